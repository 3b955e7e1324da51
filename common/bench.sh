#!/bin/sh
# common/bench.sh - runs each lesson over a sweep of problem sizes and appends
# the CSV rows to this machine's results file in plots/results/.
#
#   make bench                          the usual way; it builds, then runs:
#   BACKEND=cuda BUILD=build/cuda-sm90 sh common/bench.sh lesson01 lesson02
#   BACKEND=emu BUILD=build/emu BENCH_SIZES="1k 16k" BENCH_REPS=3 sh common/bench.sh lesson01
#
# Settings (environment):
#   BACKEND            cuda or emu (default emu); BUILD: where the lesson
#                      programs are (default build/emu for emu)
#   BENCH_SIZES        sizes to run every lesson at, instead of its lesson.conf
#   BENCH_REPS         timed runs per measurement (default: the program's own,
#                      10; on the emulator 3)
#   BENCH_WARMUP       untimed runs first (default: the program's own, 2; emu 1)
#   BENCH_RESULTS_DIR  where the results file goes (default plots/results)
#   BENCH_NOISY_PCT    spread (interquartile range / median, %) above which a
#                      row is called noisy in the summary (default 5)
#
# A lesson whose lesson.conf has LAUNCH (an MPI program: "mpirun -np 2 ...")
# runs as that command followed by the program and its options; its rows come
# from its first rank.
#
# The results file is named after the device: a slug of the GPU's name
# (nvidia-h100-80gb-hbm3.csv), cpu-emulation.csv for the emulator, no-gpu.csv
# when no GPU could run. It has one header: the columns the programs print
# with --csv, plus "date", the UTC time this run started, on every row, so a
# file holds several runs and plots/plot.sh draws the latest one. Device,
# driver and CUDA runtime versions and the backend are columns of every row.
#
# Exit status: 0 when every run passed its checks (a program that found no
# GPU, exit status 3, counts as passed: its CPU rows are recorded); 1 when a
# check failed or a program failed in another way; 2 usage.

set -u
export LC_ALL=C # numbers with a decimal point in every locale (awk in de_DE reads 1.5 as 1)
program=bench.sh
. "$(dirname "$0")/lesson-setting.sh"

# ---- which sizes -------------------------------------------------------------
# Each lesson's sweep is in its lessons/NN-*/lesson.conf: BENCH_SIZES_GPU,
# from tiny (launch overhead dominates) to past 4x the L2 cache (data comes
# from memory, not cache), and a short BENCH_SIZES_EMU for the emulator. A
# program of several parts lists the parts to sweep besides its default in
# BENCH_PARTS, each with sizes of its own (BENCH_SIZES_GPU_bandwidth) or else
# the lesson's.

# sizes_for lesson07 [PART]: a part's own sweep (BENCH_SIZES_GPU_bandwidth),
# else the lesson's.
sizes_for() {
    if [ -n "${BENCH_SIZES:-}" ]; then
        echo "$BENCH_SIZES"
        return
    fi
    key=BENCH_SIZES_GPU
    [ "$BACKEND" = emu ] && key=BENCH_SIZES_EMU
    sizes=""
    [ -n "${2:-}" ] && sizes=$(lesson_setting "$1" "${key}_$2")
    [ -n "$sizes" ] || sizes=$(lesson_setting "$1" "$key")
    echo "$sizes"
}

# ---- settings ----------------------------------------------------------------

BACKEND=${BACKEND:-emu}
case $BACKEND in
    emu)  BUILD=${BUILD:-build/emu}
          BENCH_REPS=${BENCH_REPS:-3}
          BENCH_WARMUP=${BENCH_WARMUP:-1} ;;
    cuda) if [ -z "${BUILD:-}" ]; then
              echo "$program: BACKEND=cuda needs BUILD=build/cuda-smNN (make bench sets it)" >&2
              exit 2
          fi ;;
    *)    echo "$program: BACKEND=$BACKEND: expected cuda or emu" >&2; exit 2 ;;
esac
results_dir=${BENCH_RESULTS_DIR:-plots/results}
noisy_pct=${BENCH_NOISY_PCT:-5}
# Empty: the program's own default.
repetition_options=""
[ -n "${BENCH_REPS:-}" ] && repetition_options="--reps $BENCH_REPS"
[ -n "${BENCH_WARMUP:-}" ] && repetition_options="$repetition_options --warmup $BENCH_WARMUP"

if [ $# -eq 0 ]; then
    echo "usage: BACKEND=cuda|emu BUILD=DIR sh common/bench.sh lesson01 [lesson02 ...]" >&2
    exit 2
fi

# The header is the one the programs print with --csv (common/workbook.cu
# names the columns); bench adds "date". Columns are read by name.
columns=""
run_date=$(date -u +%Y-%m-%dT%H:%M:%SZ)

work=$(mktemp -d "${TMPDIR:-/tmp}/bench.XXXXXX") || exit 1
# Ctrl-C or a time limit stops the run (a trapped signal alone would clean up and go on)
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
: > "$work/rows"            # every row of this run, without the date
failed=0                    # 1: some check failed or some program broke

echo "$program: backend $BACKEND, programs in $BUILD, ${repetition_options:-default repetitions}"
if [ "$BACKEND" = emu ]; then
    echo "$program: CPU emulation: the GPU variants run on the CPU; their times are not GPU times"
fi

# ---- the results file -------------------------------------------------------

# column NAME FILE: the value of that column in FILE's first row
column() {
    { echo "$columns"; head -n 1 "$2"; } |
        awk -F , -v name="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next }
                               { print $c }'
}
results_file=""

# record ROWS: appends a run's rows, dated, to this machine's results file as
# soon as the run ends, so a sweep stopped halfway (a time limit, Ctrl-C)
# keeps what it measured. The first rows name the file after their device.
record() {
    [ -s "$1" ] || return 0
    if [ -z "$results_file" ]; then
        if [ "$(column backend "$1")" = emu ]; then
            slug=cpu-emulation
        elif [ "$(column device "$1")" = none ]; then
            slug=no-gpu
        else
            # "NVIDIA H100 80GB HBM3" -> nvidia-h100-80gb-hbm3
            slug=$(column device "$1" | tr '[:upper:]' '[:lower:]' | tr -c 'a-z0-9' '-' |
                   sed 's/--*/-/g; s/^-//; s/-$//')
        fi
        mkdir -p "$results_dir" || exit 1
        results_file="$results_dir/$slug.csv"
        if [ ! -s "$results_file" ]; then
            echo "$columns,date" > "$results_file"
        elif [ "$(head -n 1 "$results_file")" != "$columns,date" ]; then
            echo "$program: $results_file has another header; move it aside and run again" >&2
            exit 1
        fi
    fi
    sed "s/\$/,$run_date/" "$1" >> "$results_file"
}

# ---- run every lesson at every size -----------------------------------------

for lesson in "$@"; do
    lesson_program="$BUILD/$lesson"
    if [ ! -x "$lesson_program" ]; then
        echo "$program: $lesson_program not found: build it first (make bench builds everything)" >&2
        failed=1
        continue
    fi
    no_gpu_reason=""
    launch=$(lesson_setting "$lesson" LAUNCH)
    : > "$work/$lesson.rows"
    # A program of several parts (lesson07) names the ones besides its default
    # in BENCH_PARTS; each part's rows say which it is in their lesson column.
    for part in "" $(lesson_setting "$lesson" BENCH_PARTS); do
        part_option=""
        [ -n "$part" ] && part_option="--part $part"
        for size in $(sizes_for "$lesson" "$part"); do
            run_name="$lesson${part:+ --part $part} n=$size"
            # shellcheck disable=SC2086  # the launcher and the options are lists of words
            $launch "$lesson_program" --csv -n "$size" $part_option $repetition_options \
                > "$work/out" 2> "$work/err"
            status=$?
            [ -n "$columns" ] || columns=$(head -n 1 "$work/out" | grep '^lesson,')
            if [ -n "$columns" ] && [ "$(head -n 1 "$work/out")" = "$columns" ]; then
                tail -n +2 "$work/out" > "$work/run.rows"
                cat "$work/run.rows" >> "$work/$lesson.rows"
                record "$work/run.rows"
                row_count=$(($(wc -l < "$work/out") - 1))
            else
                row_count=0
            fi
            case $status in
                0)  echo "  $run_name: ok, $row_count rows" ;;
                3)  # No usable GPU: the CPU rows are still worth keeping.
                    echo "  $run_name: CPU rows only ($row_count), GPU variants not run"
                    no_gpu_reason=$(tail -n 1 "$work/err") ;;
                1)  echo "  $run_name: CHECK FAILED, $row_count rows (recorded, marked FAIL):" >&2
                    sed 's/^/    /' "$work/err" >&2
                    failed=1 ;;
                *)  echo "  $run_name: the program failed with exit status $status:" >&2
                    sed 's/^/    /' "$work/err" | tail -n 5 >&2
                    failed=1 ;;
            esac
        done
    done
    cat "$work/$lesson.rows" >> "$work/rows"
    if [ -n "$no_gpu_reason" ]; then
        echo "  $lesson: GPU variants not run (no usable GPU), CPU rows recorded; the program says:"
        echo "    $no_gpu_reason"
    fi
done

if [ ! -s "$work/rows" ]; then
    echo "$program: no results to record" >&2
    exit 1
fi

# ---- check the results file ------------------------------------------------

device=$(column device "$work/rows")
backend=$(column backend "$work/rows")
driver=$(column driver "$work/rows")
runtime=$(column runtime "$work/rows")
# The same check make plots does, so a malformed row shows up now, not later.
if ! awk -f "$(dirname "$0")/../plots/validate.awk" "$results_file"; then
    echo "$program: $results_file is now malformed (see above): a program printed a bad row" >&2
    failed=1
fi

# ---- summary: per lesson, the largest size ----------------------------------

echo ""
echo "results: $results_file (+$(wc -l < "$work/rows") rows)"
# driver and runtime are CUDA version numbers: 13000 = 13.0
echo "  device $device, backend $backend, CUDA driver $driver, runtime $runtime, date $run_date"
{ echo "$columns"; cat "$work/rows"; } | awk -F , -v noisy_pct="$noisy_pct" -v backend="$backend" '
    # Columns by name, from the header.
    NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    # Remember, per lesson, the largest size and its best GPU rows.
    {
        lesson = $c["lesson"]; size = $c["elements"] + 0; variant = $c["variant"]
        if (!(lesson in largest)) order[++lesson_count] = lesson
        if (!(lesson in largest) || size > largest[lesson]) {
            largest[lesson] = size; best_speedup[lesson] = ""; best_peak[lesson] = ""
        }
        scope = $c["scope"]; shape = $c["size"]; speedup = $c["speedup"]; pct = $c["pct_peak"]
        if (size == largest[lesson]) shape_of[lesson] = shape
        if (size == largest[lesson] && variant != "cpu" && speedup != "" &&
            (best_speedup[lesson] == "" || speedup + 0 > best_speedup[lesson] + 0)) {
            best_speedup[lesson] = speedup; speedup_of[lesson] = variant " " scope
        }
        if (size == largest[lesson] && pct != "" && variant != "device-copy" &&
            (best_peak[lesson] == "" || pct + 0 > best_peak[lesson] + 0)) {
            best_peak[lesson] = pct; peak_of[lesson] = variant " " scope
        }
        if ($c["spread_pct"] + 0 > noisy_pct)
            noisy[lesson] = noisy[lesson] sprintf("\n    noisy: %s %s n=%s spread %s%%",
                                                  variant, scope, shape, $c["spread_pct"])
        if ($c["check"] == "FAIL")
            failures[lesson] = failures[lesson] sprintf("\n    FAIL: %s %s n=%s max error %s",
                                                        variant, scope, shape, $c["max_error"])
    }
    END {
        for (i = 1; i <= lesson_count; i++) {
            lesson = order[i]
            line = "  " lesson " at n=" shape_of[lesson] ": "
            if (best_speedup[lesson] == "")
                line = line "GPU variants not run"
            else
                line = line "best GPU speedup " best_speedup[lesson] "x (" speedup_of[lesson] ")"
            if (best_peak[lesson] != "")
                line = line ", " best_peak[lesson] "% of peak (" peak_of[lesson] ")"
            else if (backend == "emu")
                line = line ", % of peak: n/a (CPU emulation: no device peaks)"
            else
                line = line ", % of peak: n/a (no GPU)"
            print line failures[lesson] noisy[lesson]
            if (noisy[lesson] != "") any_noisy = 1
        }
        if (any_noisy)
            print "  noisy rows: spread above " noisy_pct "%: their medians are less certain;" \
                  " run again on an idle machine, or with more repetitions (BENCH_REPS)"
    }'

if [ "$failed" -ne 0 ]; then
    echo "$program: some runs failed (see above); their rows, if any, are recorded with check FAIL" >&2
    exit 1
fi
echo "$program: done; draw the charts with: make plots"
