# common/gpu-judge.awk - judges one lesson target against the rows its runs printed.
#
#   awk -f common/gpu-judge.awk -v lesson=lesson01 -v what="..." -v measured="..." \
#       -v bound=">= 90%" -v judged=yes RUNS.csv
#
# RUNS.csv holds what the target's runs printed with --csv: a header line
# (lesson,variant,...) before each run's rows, and the figure lines
# (figure,LESSON,NAME,VALUE,UNIT) that common/workbook's wb_figure and
# common/gpu-report.sh write. A target is declared in its lesson.conf:
#
#   TARGET = what | GPU run | emulator run | measured | bound
#
# and this script reads its last three fields:
#   measured  [FACTOR x] QUANTITY [/ QUANTITY], a QUANTITY being
#               [best] [LESSON/]VARIANT SCOPE COLUMN [at SIZE]
#             - one row's column (gbps, gflops, median_ms ...); VARIANT may
#             hold * (any characters); "best" takes the largest value of every
#             row that matches, "at largest" the row of the largest size
#             (elements), "at SIZE" the row of that size (as the size column
#             prints it); else exactly one row must match - or
#               figure NAME
#             - the value of a figure line
#   bound     >= or <= a number, followed by % (the ratio as a percentage),
#             x (the ratio as it is) or a unit (ms: the value as it is)
# judged: yes compares and prints met or missed; no (CPU emulation) shows
# the figure and "not judged: CPU emulation of EMULATED_RUN" (-v emulated_run:
# the target's emulator run, whose size is not the one what names); emulated compares emulated
# figures, to test this script, and says so.
#
# Prints one Markdown table row: | lesson | what | measured | bound | verdict |.
# Exit status: 0 met or not judged, 1 missed (a figure that could not be
# measured counts as missed where the target is judged).

BEGIN { FS = "," }

/^lesson,/ { delete column; for (i = 1; i <= NF; i++) column[$i] = i; next }
/^figure,/ { figure[$3] = $4; next }
NF > 1 && ("lesson" in column) { rows[++row_count] = $0 }

# value_of(quantity): the value it names, or "" with why_missing set
function value_of(quantity,    words, count, best, name, i, field, matches, value, found, size, pattern, pass, largest) {
    count = split(quantity, words, " ")
    if (words[1] == "figure") {
        if (count != 2) return bad_spec("figure takes one NAME: " quantity)
        if (!(words[2] in figure)) { why_missing = "no figure " words[2]; return "" }
        return figure[words[2]]
    }
    best = words[1] == "best"
    if (best) { for (i = 1; i < count; i++) words[i] = words[i + 1]; count-- }
    size = ""
    if (count == 5 && words[4] == "at") { size = words[5]; count = 3 }
    if (count != 3) return bad_spec("expected [best] [LESSON/]VARIANT SCOPE COLUMN [at SIZE]: " quantity)
    name = words[1]; want_lesson = ""
    if (index(name, "/")) { want_lesson = substr(name, 1, index(name, "/") - 1); name = substr(name, index(name, "/") + 1) }
    # variant names are words and dashes: * is the one character with a meaning
    pattern = name; gsub(/\*/, ".*", pattern)
    pattern = "^" pattern "$"
    if (!(words[3] in column)) return bad_spec("no column " words[3] " in the rows")
    matches = 0; found = ""; largest = ""
    for (pass = size == "largest" ? 1 : 2; pass <= 2; pass++)
    for (i = 1; i <= row_count; i++) {
        split(rows[i], field, ",")
        if (field[column["lesson"]] !~ ("^" (want_lesson == "" ? lesson "(-.*)?" : want_lesson) "$")) continue
        if (field[column["variant"]] !~ pattern || field[column["scope"]] != words[2]) continue
        # pass 1 finds the largest size among the rows that match
        if (pass == 1) { if (largest == "" || field[column["elements"]] + 0 > largest + 0) largest = field[column["elements"]]; continue }
        if (size == "largest" && field[column["elements"]] != largest) continue
        if (size != "" && size != "largest" && field[column["size"]] != size) continue
        if (field[column["check"]] == "FAIL") { why_missing = quantity ": its check FAILED"; return "" }
        value = field[column[words[3]]]
        if (value == "") continue
        matches++
        if (found == "" || value + 0 > found + 0) found = value
    }
    if (matches == 0) { why_missing = "no row " quantity; return "" }
    if (matches > 1 && !best) return bad_spec(matches " rows match " quantity " (say best, or at SIZE)")
    return found
}

function bad_spec(message) { why_missing = "target malformed: " message; return "" }

function trim(text) { gsub(/^[ \t]+|[ \t]+$/, "", text); return text }

END {
    why_missing = ""
    factor = 1
    expression = trim(measured)
    if (match(expression, /^[0-9.]+ x /)) {
        factor = substr(expression, 1, RLENGTH - 3) + 0
        expression = substr(expression, RLENGTH + 1)
    }
    parts = split(expression, side, " / ")
    value = value_of(trim(side[1]))
    if (value != "" && parts == 2) {
        denominator = value_of(trim(side[2]))
        if (denominator == "") value = ""
        else if (denominator + 0 == 0) { value = ""; why_missing = "zero in " side[2] }
        else value = value / denominator
    } else if (parts > 2) {
        value = bad_spec("one / at most: " measured)
    }
    if (value != "") value *= factor

    # the bound: operator, number, unit
    bound_text = trim(bound)
    if (!match(bound_text, /^(>=|<=) *[0-9.]+ *[^ ]*$/)) {
        value = bad_spec("bound " bound " is not >= or <= a number and a unit")
        operator = ""; limit = 0; unit = ""
    } else {
        operator = substr(bound_text, 1, 2)
        rest = trim(substr(bound_text, 3))
        match(rest, /^[0-9.]+/)
        limit = substr(rest, 1, RLENGTH) + 0
        unit = trim(substr(rest, RLENGTH + 1))
    }
    shown = ""
    if (value != "") {
        if (unit == "%") shown = sprintf("%.1f%%", 100 * value)
        else if (unit == "x") shown = sprintf("%.2fx", value)
        else shown = sprintf("%.4g %s", value, unit)
        compared = unit == "%" ? 100 * value : value
        met = operator == ">=" ? compared >= limit : compared <= limit
    }

    if (why_missing ~ /^target malformed/) {
        verdict = "missed: " why_missing; status = 1; shown = "-"
    } else if (judged == "no") {
        # the run's own size, since what names the GPU run's
        verdict = "not judged: CPU emulation" (emulated_run == "" ? "" : " of " emulated_run); status = 0
        shown = value == "" ? "- (" why_missing ")" : shown " (CPU emulation)"
    } else if (value == "") {
        verdict = "missed: not measured (" why_missing ")"; status = 1; shown = "-"
    } else {
        verdict = met ? "met" : "missed"; status = met ? 0 : 1
        if (judged == "emulated") { verdict = verdict " (judged on CPU emulation figures)"; shown = shown " (CPU emulation)" }
    }
    printf "| %s | %s | %s | %s | %s |\n", lesson, what, shown, bound_text, verdict
    exit status
}
