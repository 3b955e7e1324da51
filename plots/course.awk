# plots/course.awk - one line per lesson for the course-wide chart (plots/course.gp):
# the lesson's last kernel row at the largest size of the latest run,
#   lesson<TAB>speedup over the CPU<TAB>% of peak<TAB>size (shortened: 64M)
# from one results file (columns read by name). Lessons without such a row are left out.
# The last kernel of a lesson is its optimized variant, or the one its lesson.conf names
# as COURSE_CHART_VARIANT, given as -v last="lesson04=warptiled ...".
BEGIN {
    FS = ","; OFS = "\t"
    count = split(last, pairs, " ")
    for (i = 1; i <= count; i++) {
        split(pairs[i], pair, "=")
        last_variant[pair[1]] = pair[2]
    }
}
NR == 1 {
    for (i = 1; i <= NF; i++) column[$i] = i
    next
}
$column["scope"] == "kernel" &&
$column["variant"] == ($column["lesson"] in last_variant ? last_variant[$column["lesson"]] : "optimized") {
    lesson = $column["lesson"]
    date = $column["date"]
    bytes = $column["bytes"] + 0
    # a later run replaces an earlier one; within a run the largest size wins
    if (!(lesson in best_date) || date > best_date[lesson] ||
        (date == best_date[lesson] && bytes > best_bytes[lesson])) {
        best_date[lesson] = date
        best_bytes[lesson] = bytes
        speedup[lesson] = $column["speedup"]
        peak[lesson] = $column["pct_peak"]
        size[lesson] = $column["size"]
    }
}
# A size as the lessons take it: 64000000 as 64M, 268435456 as 256Mi (a label
# under a bar has room for a few characters); 1920x1080 as it is.
function short_size(size) {
    if (size !~ /^[0-9]+$/ || size < 1000) return size
    if (size % 1048576 == 0) return (size / 1048576) "Mi"
    if (size % 1000000 == 0) return (size / 1000000) "M"
    if (size % 1024 == 0) return (size / 1024) "Ki"
    if (size % 1000 == 0) return (size / 1000) "k"
    return size
}
END {
    count = 0
    for (lesson in speedup) lessons[++count] = lesson
    # in course order: by name, as the lessons are numbered
    for (i = 2; i <= count; i++)
        for (j = i; j > 1 && lessons[j - 1] > lessons[j]; j--) {
            swap = lessons[j]; lessons[j] = lessons[j - 1]; lessons[j - 1] = swap
        }
    for (i = 1; i <= count; i++) {
        lesson = lessons[i]
        print lesson, speedup[lesson], (peak[lesson] == "" ? 0 : peak[lesson]), short_size(size[lesson])
    }
}
