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
# What a good file looks like: a header that starts with "lesson" and has the
# columns the charts read (the lesson programs print it with --csv, and
# common/bench.sh adds "date"); then at least one row, each with as many
# fields as the header, numbers where numbers belong and known words in the
# word columns. Columns are found by name, so files written before a column
# was added stay readable.

BEGIN {
    FS = ","
    # Columns a file must have; the lesson programs print more (common/workbook.cu
    # names them all), and older files lack the newer ones (elements, pct_copy).
    split("lesson variant scope size bytes flops reps median_ms min_ms spread_pct gbps gflops " \
          "check max_error device backend", list, " ")
    for (i in list) required_column[list[i]] = 1
    # Numbers every row must have, and numbers that may be empty (peaks and
    # % of peak are unknown without a real GPU, speedup without a CPU row).
    split("elements bytes flops reps median_ms min_ms spread_pct gbps gflops cpu_threads", list, " ")
    for (i in list) required_number[list[i]] = 1
    split("peak_gbps peak_gflops pct_peak pct_copy speedup", list, " ")
    for (i in list) optional_number[list[i]] = 1
    allowed["scope"] = " host kernel end-to-end library transfers "
    allowed["check"] = " REF PASS FAIL n/a "
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
    if ($1 != "lesson")
        fail("the header is not a lesson CSV header (the first column must be lesson)")
    field_count = NF
    for (i = 1; i <= NF; i++) { name[i] = $i; column[$i] = i }
    for (c in required_column)
        if (!(c in column))
            fail("the header has no column " c)
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
        # the emulator has no driver: n/a
        if ((name[i] == "driver" || name[i] == "runtime") && $i != "n/a" && !is_number($i))
            fail(name[i] " is '" $i "', expected a version number or n/a")
    }
    # size is the shape as typed: 1000, 7680x4320, 4096x4096x4096
    if ($column["size"] !~ /^[0-9]+(x[0-9]+)?(x[0-9]+)?$/)
        fail("size is '" $column["size"] "', expected N, WxH or MxNxK")
    # max_error is printed with %g: a broken kernel can make it inf or nan.
    if ($column["max_error"] !~ /^-?(inf|nan)$/ && !is_number($column["max_error"]))
        fail("max_error is '" $column["max_error"] "', expected a number")
    # lesson and variant become file names and legends: letters, digits, - and _.
    if ($column["lesson"] !~ /^[A-Za-z0-9_-]+$/ || $column["variant"] !~ /^[A-Za-z0-9_-]+$/)
        fail("lesson and variant must be non-empty words of letters, digits, - and _")
    if ($column["device"] == "")
        fail("device is empty")
    if (("date" in column) && $column["date"] == "")
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
