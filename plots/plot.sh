#!/bin/sh
# plots/plot.sh - checks benchmark results files and draws their charts.
#
#   make plots                                  the usual way; it runs:
#   sh plots/plot.sh plots/out plots/reference/*.csv plots/results/*.csv
#   sh plots/plot.sh OUTDIR results.csv [more.csv ...]
#   sh plots/plot.sh --check results.csv [more.csv ...]   only check the files
#
# Each results file is one machine (common/bench.sh writes them). First every
# file is checked (plots/validate.awk): a missing, empty or malformed file
# stops everything with one line naming the file and the problem, exit status
# 1, before a single chart is drawn from doubtful numbers. Then, for each
# machine and each lesson found in its file, into OUTDIR as PNG and SVG:
#   MACHINE-LESSON-speedup     speedup over the CPU version, largest size
#   MACHINE-LESSON-peak        % of the device's peak (skipped without peaks)
#   MACHINE-LESSON-sweep       GB/s against problem size, every variant/scope
#   MACHINE-LESSON-gflops      GFLOP/s against problem size, with the compute peak
#                              as a line (lessons whose rows do floating-point work;
#                              FP32, or FP64 where lesson.conf says ARITHMETIC = FP64)
#   MACHINE-LESSON-roofline    GFLOP/s against FLOP per byte, under the roofs
#   LESSON-across-machines     when two or more files have that lesson
#   MACHINE-course             every lesson's last kernel (optimized, or its
#                              lesson.conf's COURSE_CHART_VARIANT) at its largest
#                              size: speedup over the CPU and % of peak
# and, for a file with lesson 07's intensity part at several sizes, prints
# the size from which the GPU end to end beats the CPU (plots/break-even.awk).
# MACHINE is the results file's name without .csv, with "reference-" in front
# for the committed results in plots/reference/. Lessons and variants are
# read from the files, so a new lesson needs no change here.
# Needs: a POSIX shell, awk, gnuplot 5.

set -u
export LC_ALL=C # numbers with a decimal point in every locale (awk in de_DE reads 1.5 as 1)
program=plot.sh
plot_dir=$(dirname "$0")
tab=$(printf '\t')

usage() {
    echo "usage: sh plots/plot.sh OUTDIR results.csv [more.csv ...]" >&2
    echo "       sh plots/plot.sh --check results.csv [more.csv ...]" >&2
    exit 2
}

# ---- 1. check every file before drawing anything ---------------------------

check_file() {
    file=$1
    case $file in
        *'*'*) echo "$program: no results file matches $file (run make bench first)" >&2
               return 1 ;;
    esac
    if [ ! -e "$file" ]; then
        echo "$program: $file: no such file" >&2; return 1
    fi
    if [ ! -r "$file" ] || [ -d "$file" ]; then
        echo "$program: $file: not a readable file" >&2; return 1
    fi
    if [ ! -s "$file" ]; then
        echo "$program: $file: the file is empty (no header, no rows)" >&2; return 1
    fi
    # the validator is silent on a good file, one line on stderr on a bad one
    if ! problem=$(awk -f "$plot_dir/validate.awk" "$file" 2>&1); then
        echo "$program: $problem" >&2; return 1
    fi
}

[ $# -ge 1 ] || usage
out_dir=$1
shift
[ $# -ge 1 ] || { echo "$program: no results files given (run make bench first)" >&2; exit 2; }

for results in "$@"; do
    check_file "$results" || exit 1
done
if [ "$out_dir" = "--check" ]; then
    echo "$program: $# results file(s) look good"
    exit 0
fi

command -v gnuplot >/dev/null 2>&1 ||
    { echo "$program: gnuplot not found: install it (Debian/Ubuntu: apt install gnuplot-nox)" >&2; exit 1; }
mkdir -p "$out_dir" || exit 1

# pngcairo draws smoother text; plain png is what gnuplot without cairo has.
if gnuplot -e 'set terminal' 2>&1 | grep -q pngcairo; then
    png_terminal=pngcairo
else
    png_terminal=png
fi

# The lessons whose course-chart kernel is not optimized: "lesson04=warptiled ..."
last_variants=$(cd "$plot_dir/.." && . common/lesson-setting.sh &&
                for dir in lessons/[0-9][0-9]-*; do
                    lesson=lesson$(basename "$dir" | cut -c 1-2)
                    variant=$(lesson_setting "$lesson" COURSE_CHART_VARIANT)
                    [ -z "$variant" ] || echo "$lesson=$variant"
                done | tr '\n' ' ')
# The lessons whose arithmetic is FP64 (ARITHMETIC in lesson.conf, as the
# program's .arithmetic): their CSV's peak_gflops is the FP64 peak
fp64_lessons=$(cd "$plot_dir/.." && . common/lesson-setting.sh &&
               for dir in lessons/[0-9][0-9]-*; do
                   lesson=lesson$(basename "$dir" | cut -c 1-2)
                   [ "$(lesson_setting "$lesson" ARITHMETIC)" != FP64 ] || echo "$lesson"
               done | tr '\n' ' ')

# The tables the gnuplot scripts read live in a temporary folder.
tables=$(mktemp -d "${TMPDIR:-/tmp}/plot.XXXXXX") || exit 1
# Ctrl-C or a time limit stops the run (a trapped signal alone would clean up and go on)
trap 'rm -rf "$tables"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---- 2. draw ---------------------------------------------------------------

charts=0
# draw SCRIPT NAME SETTINGS: renders plots/SCRIPT.gp into OUT_DIR/NAME.png and
# .svg; SETTINGS is gnuplot code that sets the script's variables.
draw() {
    for format in "$png_terminal" svg; do
        extension=$format
        [ "$format" = pngcairo ] && extension=png
        if ! gnuplot -e "format='$format'; outfile='$out_dir/$2.$extension'; $3" \
                "$plot_dir/terminal.gp" "$plot_dir/$1.gp"; then
            echo "$program: gnuplot failed on $plot_dir/$1.gp for $2" >&2
            exit 1
        fi
    done
    charts=$((charts + 1))
    echo "  $out_dir/$2.png, .svg"
}

skip() {
    echo "  skipped $1: $2"
}

# Text that goes between quotes in gnuplot code: no quotes, no backslashes.
quote_safe() {
    printf '%s' "$1" | tr -d "\"'\\\\"
}

# The chart title names the device; emulated results say so, so that times
# measured on a CPU are never taken for GPU times.
device_title() {
    # $1 device, $2 backend
    if [ "$2" = emu ]; then
        case $1 in
            *emulation*) echo "$1 - emulated, NOT GPU times" ;;
            *) echo "$1 (CPU emulation) - emulated, NOT GPU times" ;;
        esac
    elif [ "$1" = none ]; then
        echo "no usable GPU (CPU version only)"
    else
        echo "$1"
    fi
}

best="$tables/best.tsv"
: > "$best"
for results in "$@"; do
    machine=$(basename "$results" .csv)
    # the committed reference results (plots/reference/, and make gpu-report's
    # plots/reference/<gpu>/) keep their own chart names, apart from results
    # measured here on a machine of the same kind
    case /$(dirname "$results")/ in */reference/*) machine="reference-$machine" ;; esac
    echo "$results:"
    awk -v tables="$tables/$machine" -v machine="$machine" -v best="$best" \
        -f "$plot_dir/tables.awk" "$results" > "$tables/$machine.lessons" || exit 1
    while IFS="$tab" read -r lesson largest device backend peak_gbps peak_gflops \
            series_count series_colors series_dashes speedup_rows peak_rows \
            roofline_rows speedup_min speedup_max intensity_min intensity_max gflops_points \
            sweep_sizes; do
        data="$tables/$machine/$lesson"
        on=$(quote_safe "$(device_title "$device" "$backend")")
        case " $fp64_lessons " in *" ${lesson%%-*} "*) arithmetic=FP64 ;; *) arithmetic=FP32 ;; esac
        # the roofs a row's % of peak is of: memory alone where it does no floating-point work
        roofs="memory, $arithmetic"
        [ "$roofline_rows" -gt 0 ] || roofs="memory bandwidth"
        name="$machine-$lesson"

        if [ "$speedup_rows" -gt 0 ]; then
            draw speedup "$name-speedup" "datafile='$data/speedup.dat';
                chart_title='$lesson on $on'; chart_subtitle='speedup over the CPU at n = $largest';
                speedup_min=$speedup_min; speedup_max=$speedup_max"
        else
            skip "$name-speedup" "no GPU variant ran (or no CPU row to compare with)"
        fi

        if [ "$peak_rows" -gt 0 ]; then
            draw peak "$name-peak" "datafile='$data/peak.dat';
                chart_title='$lesson on $on'; chart_subtitle='% of peak ($roofs) at n = $largest'"
        elif [ "$backend" = emu ]; then
            skip "$name-peak" "CPU emulation has no device peaks to compare with"
        else
            skip "$name-peak" "no kernel rows with a % of peak (needs a real GPU)"
        fi

        if [ "$sweep_sizes" -lt 2 ]; then
            skip "$name-sweep" "one size only (n = $largest): a sweep needs two"
        else
            draw sweep "$name-sweep" "datafile='$data/sweep.dat';
                chart_title='$lesson on $on'; chart_subtitle='throughput against problem size';
                series_count=$series_count; series_colors='$series_colors';
                series_dashes='$series_dashes'"
        fi

        if [ "$sweep_sizes" -lt 2 ]; then
            skip "$name-gflops" "one size only (n = $largest): a sweep needs two"
        elif [ "$gflops_points" -gt 0 ]; then
            draw sweep "$name-gflops" "datafile='$data/sweep_gflops.dat';
                chart_title='$lesson on $on'; chart_subtitle='GFLOP/s against problem size';
                quantity='GFLOP/s'; peak_line=$peak_gflops; peak_name='$arithmetic peak';
                series_count=$series_count; series_colors='$series_colors';
                series_dashes='$series_dashes'"
        else
            skip "$name-gflops" "no rows with floating-point work (flops = 0)"
        fi

        if [ "$roofline_rows" -gt 0 ]; then
            draw roofline "$name-roofline" "datafile='$data/roofline.dat';
                chart_title='$lesson on $on'; chart_subtitle='roofline at n = $largest';
                peak_gbps=$peak_gbps; peak_gflops=$peak_gflops; arithmetic='$arithmetic';
                intensity_min=$intensity_min; intensity_max=$intensity_max"
        else
            skip "$name-roofline" "no rows with floating-point work (flops = 0) to place"
        fi
        [ "$peak_gbps" != 0 ] || [ "$roofline_rows" -eq 0 ] ||
            echo "  note: $name-roofline has no roofs: device peaks unknown"
    done < "$tables/$machine.lessons"

    # Lesson 07's intensity part over sizes: where the GPU, copies and all,
    # starts to beat the CPU. Text, not a chart: one size per degree says it.
    awk -f "$plot_dir/break-even.awk" "$results" | sed 's/^/  /'

    # The whole course on this machine: each lesson's last kernel.
    awk -f "$plot_dir/course.awk" -v last="$last_variants" "$results" > "$tables/$machine-course.dat" || exit 1
    if [ -s "$tables/$machine-course.dat" ]; then
        speedup_max=$(cut -f 2 "$tables/$machine-course.dat" | sort -g | tail -n 1)
        lesson_count=$(wc -l < "$tables/$machine-course.dat")
        # the device and backend of the file's first row, for the title
        device=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "device") d = i
                                                                if ($i == "backend") b = i }
                                    next }
                          { print $d; print $b; exit }' "$results")
        on=$(quote_safe "$(device_title "$(echo "$device" | sed -n 1p)" "$(echo "$device" | sed -n 2p)")")
        draw course "$machine-course" "datafile='$tables/$machine-course.dat';
            chart_title='the course on $on';
            chart_subtitle='each lesson: its last kernel at the largest size ($lesson_count measured)';
            speedup_max=$speedup_max"
    else
        skip "$machine-course" "no rows of the lessons' last kernels"
    fi
done

# One chart per lesson that two or more machines measured.
if [ $# -ge 2 ]; then
    echo "across machines:"
    for lesson in $(cut -f 1 "$best" | sort -u); do
        awk -F "$tab" -v lesson="$lesson" -v OFS="$tab" '$1 == lesson { print $2, $3, $4, $5 }' \
            "$best" > "$tables/$lesson-machines.dat"
        if [ "$(wc -l < "$tables/$lesson-machines.dat")" -ge 2 ]; then
            # machine labels go inside quotes in gnuplot code, data files do not care
            draw machines "$lesson-across-machines" "datafile='$tables/$lesson-machines.dat';
                chart_title='$lesson across machines: CPU and best GPU kernel, largest size each'"
        else
            skip "$lesson-across-machines" "only one machine has $lesson"
        fi
    done
fi

echo "$program: $charts charts (PNG and SVG) in $out_dir"
