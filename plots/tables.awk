# plots/tables.awk - turns one results CSV into the small tables the gnuplot
# scripts draw, one folder per lesson.
#
#   awk -v tables=DIR -v machine=NAME -f plots/tables.awk plots/results/NAME.csv
#
# plot.sh runs it after plots/validate.awk accepted the file. For each lesson
# in the file it writes, into DIR/LESSON/:
#   speedup.dat   label, speedup over the CPU       (largest size, GPU variants)
#   peak.dat      label, % of the device's peak     (largest size, kernel rows)
#   sweep.dat     one block per variant+scope: size, GB/s   (every size)
#   sweep_gflops.dat  the same blocks: size, GFLOP/s  (rows that do floating-point work)
#   roofline.dat  label, FLOP per byte, GFLOP/s     (largest size, CPU and kernels)
# and prints one line per lesson on stdout, tab-separated, for plot.sh:
#   lesson  largest_size  device  backend  peak_gbps  peak_gflops (0: unknown)
#   sweep_series  sweep_colors  sweep_dashes  speedup_rows  peak_rows
#   roofline_rows  speedup_min  speedup_max  intensity_min  intensity_max
#   gflops_points (points in sweep_gflops.dat; 0: no GFLOP/s chart)
#   sweep_sizes (how many sizes were run; a sweep needs two)
# It also appends one line per lesson to the file named by -v best=FILE, for
# the chart across machines:  lesson  machine label  CPU GB/s  best kernel GB/s
#
# Which rows count: a results file grows by one run per `make bench`, so only
# each lesson's latest run is drawn (the run of its last row; runs are told
# apart by the date column, a file without one is one run). Within that run a
# repeated measurement keeps its last row. Rows whose check FAILed are left
# out: a fast wrong answer is not a result.

BEGIN { FS = ","; OFS = "\t"; row_count = 0 }

# Columns by name, from the header: files written before a column was added
# (elements, pct_copy) stay readable.
NR == 1 {
    sub(/\r$/, "")
    has_date = ($NF == "date")
    for (i = 1; i <= NF; i++) column_number[$i] = i
    next
}

{
    sub(/\r$/, "")
    row_count++
    for (i = 1; i <= NF; i++) cell[row_count, i] = $i
    run_of_row[row_count] = has_date ? $NF : "one run"
    latest_run[$1] = run_of_row[row_count]
    if (!($1 in seen_lesson)) { seen_lesson[$1] = 1; lessons[++lesson_count] = $1 }
}

function col(name) { return column_number[name] }

# A row's problem size as a number, for ordering and the sweep's x axis: the
# elements of the result (older files: the size, then always a length).
function magnitude(row) {
    return ("elements" in column_number) ? cell[row, col("elements")] + 0 : cell[row, col("size")] + 0
}

# "naive kernel", "optimized end-to-end", "cpu host": what a legend shows.
function series_label(row) {
    return cell[row, col("variant")] " " cell[row, col("scope")]
}

# 1000 -> 1k, 16000000 -> 16M: sizes as bench.sh writes them; a shape such
# as 7680x4320 stays as it is.
function short_size(n) {
    if (n ~ /x/) return n
    if (n >= 1e9 && n % 1e9 == 0) return (n / 1e9) "G"
    if (n >= 1e6 && n % 1e6 == 0) return (n / 1e6) "M"
    if (n >= 1e3 && n % 1e3 == 0) return (n / 1e3) "k"
    return n
}

function write_lesson(lesson,    row, key, i, j, n, largest, dir, label, series_count,
                               device, backend, peak_gbps, peak_gflops, speedup_rows,
                               peak_rows, roofline_rows, s_min, s_max, intensity_min, intensity_max,
                               colors, dashes, intensity, cpu_gbps, best_gbps, variant, scope,
                               largest_magnitude,
                               size_count, tmp, color_count, detail, gflops_points,
                               sweep_sizes, size_seen) {
    # Keep the latest run's rows, the last one per measurement.
    split("", chosen); split("", series_seen); split("", color_of); split("", series_key)
    largest = ""; series_count = 0; color_count = 0
    for (row = 1; row <= row_count; row++) {
        if (cell[row, 1] != lesson || run_of_row[row] != latest_run[lesson]) continue
        if (cell[row, col("check")] == "FAIL") continue
        label = series_label(row)
        series_key[label] = cell[row, col("variant")] SUBSEP cell[row, col("scope")]
        chosen[series_key[label] SUBSEP cell[row, col("size")]] = row
        if (!(label in series_seen)) { series_seen[label] = 1; series[++series_count] = label }
        if (largest == "" || magnitude(row) > largest_magnitude) {
            largest = cell[row, col("size")]; largest_magnitude = magnitude(row)
        }
        device = cell[row, col("device")]; backend = cell[row, col("backend")]
        if (cell[row, col("peak_gbps")] != "") {
            peak_gbps = cell[row, col("peak_gbps")]; peak_gflops = cell[row, col("peak_gflops")]
        }
    }
    if (series_count == 0) return   # every row of the latest run FAILed
    dir = tables "/" lesson
    system("mkdir -p '" dir "'")

    # The rows at the largest size feed the bar charts and the roofline.
    speedup_rows = peak_rows = roofline_rows = 0
    s_min = s_max = 1; intensity_min = intensity_max = ""; cpu_gbps = best_gbps = "?"
    printf "" > (dir "/speedup.dat"); printf "" > (dir "/peak.dat"); printf "" > (dir "/roofline.dat")
    for (i = 1; i <= series_count; i++) {
        key = series_key[series[i]] SUBSEP largest
        if (!(key in chosen)) continue
        row = chosen[key]
        label = series[i]
        variant = cell[row, col("variant")]; scope = cell[row, col("scope")]
        if (variant != "cpu" && cell[row, col("speedup")] != "") {
            tmp = cell[row, col("speedup")] + 0
            print label, tmp > (dir "/speedup.dat"); speedup_rows++
            if (tmp < s_min) s_min = tmp
            if (tmp > s_max) s_max = tmp
        }
        if (cell[row, col("pct_peak")] != "") {
            print label, cell[row, col("pct_peak")] > (dir "/peak.dat"); peak_rows++
        }
        if ((scope == "kernel" || scope == "host") && cell[row, col("bytes")] > 0 &&
            cell[row, col("flops")] > 0) {
            intensity = cell[row, col("flops")] / cell[row, col("bytes")]
            print label, intensity, cell[row, col("gflops")] > (dir "/roofline.dat"); roofline_rows++
            if (intensity_min == "" || intensity < intensity_min) intensity_min = intensity
            if (intensity_max == "" || intensity > intensity_max) intensity_max = intensity
        }
        if (scope == "host") cpu_gbps = cell[row, col("gbps")]
        if (scope == "kernel" && (best_gbps == "?" || cell[row, col("gbps")] + 0 > best_gbps + 0))
            best_gbps = cell[row, col("gbps")]
    }
    close(dir "/speedup.dat"); close(dir "/peak.dat"); close(dir "/roofline.dat")

    # The sweep: one block per series, sizes ascending, first line = legend.
    # Colour by variant, dash by scope: solid kernel, dashed end-to-end and
    # transfers (both include copies over the host link).
    printf "" > (dir "/sweep.dat"); printf "" > (dir "/sweep_gflops.dat")
    colors = dashes = ""; gflops_points = 0
    for (i = 1; i <= series_count; i++) {
        size_count = 0
        for (key in chosen) {
            row = chosen[key]
            if (series_label(row) == series[i]) sizes[++size_count] = row
        }
        # insertion sort by size (awk has no portable sort)
        for (j = 2; j <= size_count; j++) {
            tmp = sizes[j]
            for (n = j - 1; n >= 1 && magnitude(sizes[n]) > magnitude(tmp); n--)
                sizes[n + 1] = sizes[n]
            sizes[n + 1] = tmp
        }
        print series[i] > (dir "/sweep.dat")
        print series[i] > (dir "/sweep_gflops.dat")
        for (j = 1; j <= size_count; j++) {
            print magnitude(sizes[j]), cell[sizes[j], col("gbps")] > (dir "/sweep.dat")
            # a log scale has no place for 0: rows without floating-point work stay out
            if (cell[sizes[j], col("gflops")] + 0 > 0) {
                print magnitude(sizes[j]), cell[sizes[j], col("gflops")] > (dir "/sweep_gflops.dat")
                gflops_points++
            }
        }
        printf "\n\n" > (dir "/sweep.dat"); printf "\n\n" > (dir "/sweep_gflops.dat")
        split(series[i], words, " ")
        if (!(words[1] in color_of)) color_of[words[1]] = ++color_count
        colors = colors " " color_of[words[1]]
        dashes = dashes " " (words[2] == "end-to-end" || words[2] == "transfers" ? 2 : 1)
    }
    close(dir "/sweep.dat"); close(dir "/sweep_gflops.dat")
    split("", size_seen); sweep_sizes = 0
    for (key in chosen)
        if (!(magnitude(chosen[key]) in size_seen)) {
            size_seen[magnitude(chosen[key])] = 1; sweep_sizes++
        }

    # No field may be empty: plot.sh reads these with IFS=tab, which would
    # merge two tabs into one. Unknown peaks and intensities are 0.
    print lesson, short_size(largest), device, backend, peak_gbps + 0, peak_gflops + 0,
          series_count, colors, dashes, speedup_rows, peak_rows, roofline_rows,
          s_min, s_max, intensity_min + 0, intensity_max + 0, gflops_points, sweep_sizes
    label = device
    if (backend == "emu" && device !~ /emulation/) label = label " (CPU emulation)"
    if (device == "none") label = "no GPU (" machine ")"
    # The label goes on two lines under its bars: the name, then any
    # "(...)" detail and the size.
    detail = "n = " short_size(largest)
    if (match(label, / \(/)) {
        detail = substr(label, RSTART + 1) ", " detail
        label = substr(label, 1, RSTART - 1)
    }
    print lesson, label, detail, cpu_gbps, best_gbps >> best
    close(best)
}

END {
    for (i = 1; i <= lesson_count; i++) write_lesson(lessons[i])
}
