# tests/course_tables.awk - checks the measured tables of COURSE.md against the reference
# results files they were drawn from (tests/course.bats runs it):
#
#   awk -f tests/course_tables.awk LESSON01_RESULTS.csv RESULTS.csv COURSE.md
#
# Each table whose header has a variant, a "time covers" and a median column (the Measured
# tables of the lesson chapters) is read under the chapter it is in ("## Lesson NN"): lesson 01's
# from the first file, every other lesson's from the second. For each of its rows the results
# file's row of the same lesson (and part), variant, scope and size is found, and each number
# the table shows (median, GB/s, GFLOP/s, % of peak, % copy, speedup; a frame's or a step's
# time, the median over the frames or steps its header names) must be that row's, rounded as
# the table prints it: within half a unit of its last digit. Lesson 07's table of its bandwidth
# part, a column a copy and each cell "median, GB/s", is read the same way. Prints one line per
# cell that differs and per row that has no results row, then "checked N cells in T tables".

BEGIN {
    FS = ","
    # the results file's columns a table can show
    wanted_count = split("median_ms gbps gflops pct_peak pct_copy speedup", wanted, " ")
}

# Two results files, read first: fields by the header's names.
FILENAME != "" && FNR == 1 && FILENAME != last_file {
    last_file = FILENAME
    file_index++
}
file_index <= 2 {
    if (FNR == 1) {
        for (i = 1; i <= NF; i++) column[file_index, $i] = i
        next
    }
    key = file_index SUBSEP $(column[file_index, "lesson"]) SUBSEP $(column[file_index, "variant"]) \
          SUBSEP $(column[file_index, "scope"]) SUBSEP $(column[file_index, "size"])
    # the latest run's row wins, as in the charts
    for (k = 1; k <= wanted_count; k++)
        results[key, wanted[k]] = $(column[file_index, wanted[k]])
    known[key] = 1
    sizes[file_index, $(column[file_index, "lesson"]), $(column[file_index, "size"])] = 1
    next
}

# The table's column names, to the results file's.
function results_column(header) {
    if (header ~ /^median/) return "median_ms"
    if (header ~ /^a (frame|step)$/) return "median_ms" # over the items the median covers
    if (header == "GB/s") return "gbps"
    if (header == "GFLOP/s") return "gflops"
    if (header ~ /^% of .*peak$/) return "pct_peak"
    if (header == "% copy") return "pct_copy"
    if (header == "speedup over cpu") return "speedup"
    return ""
}

# "1k" -> 1000, "64M" -> 64000000, "2^28" -> 268435456, "256^2" -> 256x256,
# "1,000 x 10,000" -> 1000x10000; "128" for a lesson of N x N x N shapes -> 128x128x128.
function results_size(text, file, lesson,    size, base, power, value, k) {
    size = text
    gsub(/[ ,]/, "", size)
    if (size ~ /^2\^[0-9]+$/) {
        value = 1
        for (k = 0; k < substr(size, 3) + 0; k++) value *= 2
        size = sprintf("%.0f", value)
    } else if (size ~ /^[0-9]+\^[23]$/) {
        base = size; sub(/\^.*/, "", base)
        power = substr(size, length(size)) + 0
        size = base "x" base (power == 3 ? "x" base : "")
    } else if (size ~ /^[0-9.]+[kMG]$/) {
        value = substr(size, 1, length(size) - 1) * (size ~ /k$/ ? 1e3 : size ~ /M$/ ? 1e6 : 1e9)
        size = sprintf("%.0f", value)
    }
    if (!((file, lesson, size) in sizes)) {
        if ((file, lesson, size "x" size) in sizes) size = size "x" size
        else if ((file, lesson, size "x" size "x" size) in sizes) size = size "x" size "x" size
    }
    return size
}

# The table's cell as a number in the results file's unit, and half a unit of its last digit.
function cell_value(text, name) {
    cell_half_unit = 0
    if (text ~ /^< /) return "below " substr(text, 3)
    gsub(/,/, "", text)
    scale = 1
    if (name == "median_ms") {
        if (text ~ / us$/) scale = 1e-3
        else if (text ~ / s$/) scale = 1e3
        else if (text !~ / ms$/) return "?"
        sub(/ [mu]?s$/, "", text)
    }
    if (name == "speedup") sub(/x$/, "", text)
    if (text !~ /^-?[0-9]+(\.[0-9]+)?$/) return "?"
    decimals = index(text, ".") ? length(text) - index(text, ".") : 0
    cell_half_unit = 0.5 * scale / (10 ^ decimals)
    return text * scale
}

# A Markdown table row: its cells, trimmed, in cells[1..n].
function split_row(line,    n) {
    sub(/^\| */, "", line)
    sub(/ *\|$/, "", line)
    n = split(line, cells, / *\| */)
    return n
}

# The results file of a lesson's rows: lesson 01's the first, the others' the second.
function file_of(row_lesson) {
    return row_lesson == "lesson01" ? 1 : 2
}

# Whether the results have a row of LESSON, VARIANT, SCOPE at SIZE; when not, says so.
function known_row(row_lesson, variant, scope, size, size_text,    file) {
    file = file_of(row_lesson)
    if ((file SUBSEP row_lesson SUBSEP variant SUBSEP scope SUBSEP size) in known)
        return 1
    printf "COURSE.md:%d: %s %s %s at %s: no such row in %s\n", FNR, row_lesson, variant,
           scope, size_text, file == 1 ? "the lesson 01 results" : "the results"
    problems++
    return 0
}

# One cell of a table against that row: HEADER names its column, SHOWN is the cell.
function check_cell(row_lesson, variant, scope, size, size_text, header, shown,
                    key, name, expected, value, bad) {
    key = file_of(row_lesson) SUBSEP row_lesson SUBSEP variant SUBSEP scope SUBSEP size
    name = results_column(header)
    expected = results[key, name]
    if (header ~ /^a (frame|step)$/ && expected != "")
        expected /= items
    if (shown == "" || shown == "-") {
        if (expected != "" && !(name == "speedup" && variant == "device-copy")) {
            printf "COURSE.md:%d: %s %s %s at %s: %s is empty, the results say %s\n", FNR,
                   row_lesson, variant, scope, size_text, header, expected
            problems++
        }
        return
    }
    checked++
    if (name == "speedup" && shown == "1" && expected + 0 == 1)
        return
    value = cell_value(shown, name)
    if (value ~ /^below /)
        bad = !(expected != "" && expected + 0 < substr(value, 7) + 0)
    else if (value == "?")
        bad = 1
    else
        bad = expected == "" || (value - expected > cell_half_unit * 1.0001 + 1e-12) ||
              (expected - value > cell_half_unit * 1.0001 + 1e-12)
    if (bad) {
        printf "COURSE.md:%d: %s %s %s at %s: %s shows %s, the results say %s\n", FNR,
               row_lesson, variant, scope, size_text, header, shown, expected
        problems++
    }
}

/^## / {
    lesson = ""
    if ($0 ~ /^## Lesson [0-9][0-9]:/) lesson = "lesson" substr($0, 11, 2)
    in_table = 0
    next
}

# A header of a measured table: variant, time covers, a median.
lesson != "" && /^\| / && /\| variant \|/ && /\| time covers \|/ && /\| median/ {
    header_count = split_row($0)
    items = 1
    for (k = 1; k <= header_count; k++) {
        header[k] = cells[k]
        # "median, 16 frames": the run's items, for the column of one item's time
        if (cells[k] ~ /^median, [0-9]+ /) items = substr(cells[k], 9) + 0
    }
    in_table = 1
    tables++
    next
}
# Lesson 07's bandwidth part, a column a variant: each cell "median, GB/s" of that copy.
lesson == "lesson07" && /^\| n \(bytes a copy\) \|/ {
    header_count = split_row($0)
    for (k = 1; k <= header_count; k++) header[k] = cells[k]
    in_table = 2
    tables++
    next
}
in_table == 2 && /^\| [0-9]/ {
    n = split_row($0)
    size_text = cells[1]
    sub(/ \(.*/, "", size_text)
    size = results_size(size_text, 2, "lesson07-bandwidth")
    for (k = 2; k <= n; k++) {
        variant = header[k]
        sub(/ .*/, "", variant) # "cpu (`memcpy`)": cpu
        scope = variant == "cpu" ? "host" : "transfers"
        if (!known_row("lesson07-bandwidth", variant, scope, size, cells[1]))
            continue
        split(cells[k], pair, /, /)
        check_cell("lesson07-bandwidth", variant, scope, size, cells[1], "median", pair[1])
        check_cell("lesson07-bandwidth", variant, scope, size, cells[1], "GB/s", pair[2])
    }
    next
}
in_table && /^\|---/ { next }
in_table && !/^\| / { in_table = 0 }
in_table == 1 {
    n = split_row($0)
    row_lesson = lesson; variant = ""; scope = ""; size_text = ""
    for (k = 1; k <= n; k++) {
        if (header[k] == "part") row_lesson = lesson "-" cells[k]
        else if (header[k] == "variant") variant = cells[k]
        else if (header[k] == "time covers") scope = cells[k]
        else if (k == 1 || (k == 2 && header[1] == "part")) size_text = cells[k]
    }
    size = results_size(size_text, file_of(row_lesson), row_lesson)
    if (!known_row(row_lesson, variant, scope, size, size_text))
        next
    for (k = 1; k <= n; k++)
        if (results_column(header[k]) != "")
            check_cell(row_lesson, variant, scope, size, size_text, header[k], cells[k])
}

END {
    printf "checked %d cells in %d tables\n", checked, tables
    exit problems > 0
}
