# plots/break-even.awk - the size from which the GPU, copies included, beats
# the CPU: lesson 07's intensity part, run at several sizes.
#
#   awk -f plots/break-even.awk plots/results/MACHINE.csv
#   awk -f plots/break-even.awk intensity.csv      (COURSE.md's sweep loop)
#
# plot.sh runs it on every results file with lesson07-intensity rows (make
# bench writes them at BENCH_SIZES_*_intensity). One run at one size can only
# bound the break-even size (the program's own note under its table says
# why); rows at several sizes show it. For each degree D in the file's latest
# run (D = flops / 2 / elements: the rows of `--degree D`), it compares the
# cpu row with the gpu and gpu-pinned end-to-end rows at each size both were
# run at, and prints, e.g.
#   break-even, lesson07-intensity at degree 16 (measured on NVIDIA ...):
#     gpu end-to-end beats the cpu from n = 16M (between 1M and 16M)
#     gpu-pinned end-to-end beats the cpu from n = 64k, the smallest size run
# "From n = N": at N and at every larger size run; the break-even lies
# between N and the size run below it. Or "does not beat the cpu within the
# sizes run". Which rows count, as in tables.awk: the lesson's latest run
# (told apart by the date column; a file without one is one run), the last
# row of a repeated measurement, and no row whose check FAILed.

BEGIN { FS = ","; if (lesson == "") lesson = "lesson07-intensity" }

{ sub(/\r$/, "") }

FNR == 1 {
    has_date = ($NF == "date")
    for (i = 1; i <= NF; i++) column[$i] = i
    next
}

$1 == lesson {
    rows++
    for (i = 1; i <= NF; i++) cell[rows, i] = $i
    run_of[rows] = has_date ? $NF : "one run"
    latest = run_of[rows]
}

# 1000 -> 1k, 16000000 -> 16M: sizes as make bench names them (tables.awk's)
function short_size(n) {
    if (n >= 1e9 && n % 1e9 == 0) return (n / 1e9) "G"
    if (n >= 1e6 && n % 1e6 == 0) return (n / 1e6) "M"
    if (n >= 1e3 && n % 1e3 == 0) return (n / 1e3) "k"
    return n
}

function field(row, name) { return cell[row, column[name]] }

# One line for one GPU row (variant, e.g. "gpu-pinned") at degree d.
function verdict(d, variant,    k, i, n, list, wins, from) {
    k = 0
    for (i = 1; i <= size_count[d]; i++) {
        n = size_at[d, i]
        if ((d, n, variant) in time_of && (d, n, "cpu") in time_of) {
            list[++k] = n
            wins[k] = time_of[d, n, variant] < time_of[d, n, "cpu"]
        }
    }
    if (k == 0)
        return ""
    from = 0
    for (i = k; i >= 1 && wins[i]; i--)
        from = i
    if (from == 0)
        return "  " variant " end-to-end does not beat the cpu within the sizes run (" \
               short_size(list[1]) (k > 1 ? " to " short_size(list[k]) : "") ")"
    if (from == 1)
        return "  " variant " end-to-end beats the cpu from n = " short_size(list[1]) \
               ", the smallest size run"
    return "  " variant " end-to-end beats the cpu from n = " short_size(list[from]) \
           " (between " short_size(list[from - 1]) " and " short_size(list[from]) ")"
}

END {
    if (rows == 0)
        exit 0
    source = ""
    for (r = 1; r <= rows; r++) {
        if (run_of[r] != latest || field(r, "check") == "FAIL")
            continue
        variant = field(r, "variant"); scope = field(r, "scope")
        if (!(variant == "cpu" && scope == "host") && scope != "end-to-end")
            continue
        n = ("elements" in column) ? field(r, "elements") + 0 : field(r, "size") + 0
        if (n <= 0)
            continue
        d = int(field(r, "flops") / 2 / n + 0.5)
        if (!(d in size_count)) degrees[++degree_count] = d
        if (!((d, n) in size_seen)) {
            size_seen[d, n] = 1
            size_at[d, ++size_count[d]] = n
        }
        time_of[d, n, variant] = field(r, "median_ms") + 0
        source = field(r, "backend") == "emu" ? "CPU emulation, not GPU times" \
                                              : "measured on " field(r, "device")
    }
    # degrees and sizes in rising order (a few of each: insertion sort)
    for (i = 2; i <= degree_count; i++)
        for (j = i; j > 1 && degrees[j - 1] > degrees[j]; j--) {
            t = degrees[j]; degrees[j] = degrees[j - 1]; degrees[j - 1] = t
        }
    for (g = 1; g <= degree_count; g++) {
        d = degrees[g]
        for (i = 2; i <= size_count[d]; i++)
            for (j = i; j > 1 && size_at[d, j - 1] > size_at[d, j]; j--) {
                t = size_at[d, j]; size_at[d, j] = size_at[d, j - 1]; size_at[d, j - 1] = t
            }
        gpu = verdict(d, "gpu"); pinned = verdict(d, "gpu-pinned")
        if (gpu == "" && pinned == "")
            continue
        print "break-even, " lesson " at degree " d " (" source "):"
        if (gpu != "") print gpu
        if (pinned != "") print pinned
    }
}
