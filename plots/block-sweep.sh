#!/bin/sh
# plots/block-sweep.sh - time the GPU variants of a lesson that take their
# block size from --threads-per-block, at each block size, and draw the chart:
# median kernel time against threads per block, with the block size the
# occupancy API chose marked.
#
#   sh plots/block-sweep.sh PROGRAM OUT_DIR [PROGRAM OPTIONS...]
#   sh plots/block-sweep.sh ./lesson06 plots/out -n 10kx10k
#
# PROGRAM must take --threads-per-block N. Only the variants that read it are
# run: a variant with a block size of its own would draw a flat line that
# looks measured and is not. The lesson names them in its lesson.conf
# (BLOCK_SWEEP_VARIANTS = naive,optimized), or an --only among the PROGRAM
# OPTIONS does; with neither, every kernel row is drawn, and the script says
# so. Its run without that option may
# print, on stderr, a line ending in "N threads (the occupancy API's choice)":
# the chart marks N. Writes OUT_DIR/LESSON-block-sweep.csv
# (threads_per_block,variant,median_ms) and OUT_DIR/LESSON-block-sweep.png
# (or .svg with FORMAT=svg). BLOCK_SIZES overrides the sizes swept
# (default 32, 64, ..., 1024: every whole number of warps). Without gnuplot
# (GNUPLOT names it; default gnuplot) the sweep still runs and writes the CSV,
# and says that no chart was drawn: a GPU machine need not have gnuplot.
# Needs: a POSIX shell, awk; gnuplot 5 for the chart.
set -u
export LC_ALL=C # numbers with a decimal point in every locale (awk in de_DE reads 1.5 as 1)
program_name=block-sweep.sh
[ $# -ge 2 ] || { echo "usage: sh plots/block-sweep.sh PROGRAM OUT_DIR [PROGRAM OPTIONS...]" >&2; exit 2; }
lesson=$1
out_dir=$2
shift 2
[ -x "$lesson" ] || { echo "$program_name: $lesson is not a program (make lessonNN first)" >&2; exit 2; }
GNUPLOT=${GNUPLOT:-gnuplot}
plot_dir=$(cd "$(dirname "$0")" && pwd)
name=$(basename "$lesson")
sizes=${BLOCK_SIZES:-$(seq 32 32 1024)}

# The variants --threads-per-block sets: the options' own --only, else the
# lesson's BLOCK_SWEEP_VARIANTS (lessons/NN-*/lesson.conf for lessonNN).
only_given=no
for option in "$@"; do
    case $option in --only|--only=*) only_given=yes ;; esac
done
if [ "$only_given" = no ]; then
    number=$(echo "$name" | sed -n 's/^lesson\([0-9][0-9]\)$/\1/p')
    variants=$(sed -n 's/^BLOCK_SWEEP_VARIANTS[[:space:]]*=[[:space:]]*//p' \
        "$plot_dir"/../lessons/"${number:-none}"-*/lesson.conf 2>/dev/null | head -n 1)
    if [ -n "$variants" ]; then
        set -- "$@" --only "$variants"
    else
        echo "$program_name: no BLOCK_SWEEP_VARIANTS for $name and no --only: every kernel row is" \
             "drawn, also any that ignores --threads-per-block" >&2
    fi
fi
mkdir -p "$out_dir"
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT

# The occupancy API's choice, from the run without --threads-per-block.
"$lesson" "$@" --csv --quiet-warnings --reps 1 --warmup 0 >/dev/null 2>"$work/err" ||
    { echo "$program_name: $lesson $* failed: $(head -n 1 "$work/err")" >&2; exit 1; }
chosen=$(sed -n "s/.* \([0-9][0-9]*\) threads (the occupancy API's choice)$/\1/p" "$work/err" | head -n 1)

csv="$out_dir/$name-block-sweep.csv"
echo "threads_per_block,variant,median_ms" >"$csv"
for threads in $sizes; do
    "$lesson" "$@" --threads-per-block "$threads" --csv --quiet-warnings >"$work/out" 2>"$work/err" ||
        { echo "$program_name: $lesson --threads-per-block $threads failed: $(head -n 1 "$work/err")" >&2; exit 1; }
    # GPU kernel rows only: the CPU and the copies do not depend on the block size
    awk -F , -v threads="$threads" '
        NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $c["scope"] == "kernel" { print threads "," $c["variant"] "," $c["median_ms"] }' \
        "$work/out" >>"$csv"
done

if ! command -v "$GNUPLOT" >/dev/null 2>&1; then
    echo "$program_name: wrote $csv (occupancy API's choice: ${chosen:-not printed});" \
         "$GNUPLOT not found, so no chart (Debian/Ubuntu: apt install gnuplot-nox)"
    exit 0
fi

# gnuplot reads one block per variant: its name, then "threads<TAB>ms" lines.
awk -F , 'NR > 1 { if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2 } rows[$2] = rows[$2] $1 "\t" $3 "\n" }
          END { for (i = 1; i <= n; i++) printf "%s%s\n%s", (i > 1 ? "\n\n" : ""), order[i], rows[order[i]] }' \
    "$csv" >"$work/sweep.dat"
# emulated times are CPU times: the title says so
backend=$(awk -F , 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "backend") c = i; next }
                    { print $c; exit }' "$work/out")
[ "$backend" = emu ] && timing="CPU emulation, not GPU times" || timing="measured on this GPU"
series=$(awk -F , 'NR > 1 && !seen[$2]++' "$csv" | wc -l)
format=${FORMAT:-png}
if [ "$format" = png ] && "$GNUPLOT" -e 'set terminal' 2>&1 | grep -q pngcairo; then format=pngcairo; fi
extension=$([ "$format" = svg ] && echo svg || echo png)
"$GNUPLOT" -e "format='$format'; outfile='$out_dir/$name-block-sweep.$extension'; \
            datafile='$work/sweep.dat'; series_count=$series; chosen_threads=${chosen:-0}; \
            chart_title='$name $*: kernel time against threads per block ($timing)'" \
    "$plot_dir/terminal.gp" "$plot_dir/block-sweep.gp" ||
    { echo "$program_name: gnuplot failed on $plot_dir/block-sweep.gp" >&2; exit 1; }
echo "$program_name: wrote $csv and $out_dir/$name-block-sweep.$extension" \
     "(occupancy API's choice: ${chosen:-not printed})"
