# plots/validate.awk - checks that a results CSV is one the charts can trust.
#
#   awk -f plots/validate.awk plots/results/cpu-emulation.csv
#
# plot.sh runs this on every file before drawing anything (sh plots/plot.sh
# --check FILE... runs only this). Silent and exit status 0 when the file is
# good; otherwise ONE line on stderr naming the file, the line and the problem,
# and exit status 1. The first problem is enough: a file with one broken row
# usually has a broken writer, and a list of 500 errors hides that.
#
# What a good file looks like: the header the lesson programs print with --csv
# (common/workbook.cu), optionally followed by the column "date" that
# common/bench.sh adds; then at least one row, each with as many fields as the
# header, numbers where numbers belong and known words in the word columns.

BEGIN {
    FS = ","
    columns = "lesson,variant,scope,size,bytes,flops,reps,median_ms,min_ms,spread_pct," \
              "gbps,gflops,peak_gbps,peak_gflops,pct_peak,speedup,check,max_error," \
              "device,backend,driver,runtime,cpu_threads,cache"
    # Numbers every row must have, and numbers that may be empty (peaks and
    # % of peak are unknown without a real GPU, speedup without a CPU row).
    split("size bytes flops reps median_ms min_ms spread_pct gbps gflops driver runtime cpu_threads", list, " ")
    for (i in list) required_number[list[i]] = 1
    split("peak_gbps peak_gflops pct_peak speedup", list, " ")
    for (i in list) optional_number[list[i]] = 1
    allowed["scope"] = " host kernel end-to-end "
    allowed["check"] = " REF PASS FAIL "
    allowed["backend"] = " cuda emu "
    allowed["cache"] = " cold warm n/a "
    rows = 0
    failed = 0
}

# Stops at the first problem: one line, "FILE: line N: what is wrong".
function fail(message) {
    printf "%s: line %d: %s\n", FILENAME, FNR, message > "/dev/stderr"
    failed = 1
    exit 1
}

function is_number(text) {
    return text ~ /^-?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/
}

{ sub(/\r$/, "") }   # a file saved on Windows still counts as good

FNR == 1 {
    if ($0 != columns && $0 != columns ",date")
        fail("the header is not the lesson CSV header (expected: " columns "[,date])")
    field_count = NF
    for (i = 1; i <= NF; i++) name[i] = $i
    next
}

{
    rows++
    if (NF != field_count)
        fail("has " NF " fields, the header has " field_count)
    for (i = 1; i <= NF; i++) {
        if (name[i] in required_number && !is_number($i))
            fail(name[i] " is '" $i "', expected a number")
        if (name[i] in optional_number && $i != "" && !is_number($i))
            fail(name[i] " is '" $i "', expected a number or nothing")
        if (name[i] in allowed && index(allowed[name[i]], " " $i " ") == 0)
            fail(name[i] " is '" $i "', expected one of:" allowed[name[i]])
    }
    # max_error is printed with %g: a broken kernel can make it inf or nan.
    if ($18 !~ /^-?(inf|nan)$/ && !is_number($18))
        fail("max_error is '" $18 "', expected a number")
    # lesson and variant become file names and legends: letters, digits, - and _.
    if ($1 !~ /^[A-Za-z0-9_-]+$/ || $2 !~ /^[A-Za-z0-9_-]+$/)
        fail("lesson and variant must be non-empty words of letters, digits, - and _")
    if ($19 == "")
        fail("device is empty")
    if (field_count == 25 && $25 == "")
        fail("date is empty (common/bench.sh stamps every row with the date of its run)")
}

END {
    if (failed) exit 1
    if (NR == 0) {
        # FNR is 0 here: report the file without a line number.
        printf "%s: the file is empty (no header, no rows)\n", FILENAME > "/dev/stderr"
        exit 1
    }
    if (rows == 0) {
        printf "%s: has a header but no result rows\n", FILENAME > "/dev/stderr"
        exit 1
    }
}
