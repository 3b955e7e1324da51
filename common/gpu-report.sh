#!/bin/bash
# common/gpu-report.sh - the whole course checked on this machine in one run,
# every lesson's target judged, everything written to one folder to send back.
#
#   make gpu-report                     the usual way; the Makefile passes what it
#                                       resolved (BACKEND, CUDA_ARCH, GPU_COUNT, ...)
#   make gpu-report GPU_REPORT_QUICK=1  no sweep, no ncu, no charts (steps 1, 2, 4, 6)
#
# The steps, each timed ("step 3 bench: 27s ok"); a step that fails does not
# stop the others:
#   1 build     on a GPU every lesson, exercise and solution for it (make
#               test-programs with nvcc); under the emulator its lessons alone
#   2 targets   each TARGET of each lesson.conf: its runs, judged by
#               common/gpu-judge.awk (under the emulator: shown, not judged)
#   3 bench     every lesson over its lesson.conf sweep (common/bench.sh), each
#               run's rows written as it ends
#   4 sanitize  every lesson under compute-sanitizer's memcheck, racecheck,
#               initcheck and synccheck, or the emulator's --sanitize checks
#   5 ncu       Nsight Compute's short metric set for the kernels of each lesson's
#               NCU_ARGS run (naive and optimized, as a rule), or "ncu not found: skipped"
#   6 tests     on a GPU the emulator's build and every .cu compiled by nvcc
#               (nvcc-check) first, then the Bats files whose tests run the GPU
#               build (the emulator's own files are make test's, which any
#               machine runs: leaving them out keeps the report short). Under
#               the emulator a quick subset (GPU_REPORT_BATS), said so in the
#               summary
#   7 charts    make plots' charts of the results, into the folder
#   8 summary   summary.md in full (it is rewritten after every step, marked
#               unfinished: a run stopped by a time limit leaves what it had done)
# The order puts first what a short loan of a GPU must not miss: the
# measurements, which need the machine to themselves (the verdicts, then the
# long sweep), and only the builds they need before them; then the checks that
# time nothing, the quick ones first (on an H200: sanitize 13 s, ncu 48 s, the
# tests some minutes). A machine without bats or gnuplot skips steps 6 and 7,
# saying so (the charts can be drawn from the folder's CSV anywhere), and a
# lesson that needs what the machine lacks (MPI, stb_image) is listed as not
# built, among the problems.
# The folder: plots/reference/<gpu-slug>/ on a GPU (the name make bench gives
# its results file), plots/results/cpu-emulation/ without one.
#
# Settings (environment): GPU_REPORT_QUICK=1; GPU_REPORT_LESSONS: the lessons
# (default: every one this machine builds); GPU_REPORT_TARGETS: a file of
# TARGET lines to judge instead of the lesson.confs'; GPU_REPORT_BATS: the
# .bats files of step 6; GPU_REPORT_DIR: the folder; GPU_REPORT_NOT_BUILT: the
# lessons make cannot build here and why ("lessonNN: it needs ...; lessonMM:
# ...", as make gpu-report passes them; with GPU_REPORT_LESSONS, those of its
# lessons only); BATS, GNUPLOT: the commands (default bats, gnuplot);
# GPU_REPORT_JUDGE_EMULATED=1: judge the emulator's figures too (to test the
# judge: they say nothing of a GPU); GPU_REPORT_BATS_JOBS: Bats files run side
# by side on a GPU (default: one for every core; 1: the whole suite in one
# bats); BENCH_REPS, BENCH_WARMUP: as for make bench (default 3 and 1 on a GPU,
# 1 and 0 under the emulator).
#
# Exit status: 0 when every step passed, every target was met (or, under the
# emulator, shown) and every lesson was built; 1 otherwise.

set -u
export LC_ALL=C # numbers with a decimal point in every locale (awk in de_DE reads 1.5 as 1)
program=gpu-report.sh
. "$(dirname "$0")/lesson-setting.sh"
cd "$(dirname "$0")/.." || exit 1

MAKE=${MAKE:-make}
NVCC=${NVCC:-nvcc}
BACKEND=${BACKEND:-emu}
GPU_COUNT=${GPU_COUNT:-0}
CUDA_ARCH=${CUDA_ARCH:-75}
quick=${GPU_REPORT_QUICK:-0}
BATS=${BATS:-bats}
GNUPLOT=${GNUPLOT:-gnuplot}
jobs=$(nproc 2>/dev/null || echo 2)
# compute-sanitizer and ncu live beside nvcc
nvcc_path=$(command -v "$NVCC" 2>/dev/null)
[ -n "$nvcc_path" ] && PATH="$PATH:$(dirname "$nvcc_path")"

if [ "$BACKEND" = cuda ] && [ "$GPU_COUNT" -gt 0 ]; then
    on_gpu=yes
    build=build/cuda-sm$CUDA_ARCH
    device=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
    # as common/bench.sh names its results file: "NVIDIA H100 80GB HBM3" -> nvidia-h100-80gb-hbm3
    slug=$(printf '%s' "$device" | tr '[:upper:]' '[:lower:]' | tr -c 'a-z0-9' '-' |
           sed 's/--*/-/g; s/^-//; s/-$//')
    folder=${GPU_REPORT_DIR:-plots/reference/$slug}
    # three timed runs a row, not make bench's five: on an H200 the bench step took 3 minutes
    export BENCH_REPS=${BENCH_REPS:-3} BENCH_WARMUP=${BENCH_WARMUP:-1}
else
    on_gpu=no
    BACKEND=emu
    build=build/emu
    device="CPU emulation"
    slug=cpu-emulation
    folder=${GPU_REPORT_DIR:-plots/results/$slug}
    # one timed run of each: emulated times are for show, and two cores have five minutes
    export BENCH_REPS=${BENCH_REPS:-1} BENCH_WARMUP=${BENCH_WARMUP:-0}
fi
lessons=${GPU_REPORT_LESSONS:-${LESSONS:-}}
not_built=$(printf '%s' "${GPU_REPORT_NOT_BUILT:-}" | tr ';' '\n' | sed 's/^ *//; /^$/d')
# Lessons named in GPU_REPORT_LESSONS: those make cannot build here are left
# out of the run, and only they count among the lessons not built.
if [ -n "${GPU_REPORT_LESSONS:-}" ]; then
    not_built=$(printf '%s\n' "$not_built" | while IFS= read -r line; do
                    case " $lessons " in *" ${line%%:*} "*) echo "$line" ;; esac
                done)
    lessons=$(for lesson in $lessons; do
                  printf '%s\n' "$not_built" | grep -q "^$lesson:" || echo "$lesson"
              done | paste -sd ' ' -)
fi
if [ -z "$lessons" ]; then
    echo "$program: no lessons to report on (make gpu-report names them)" >&2
    exit 2
fi
if [ -n "${GPU_REPORT_TARGETS:-}" ] && [ ! -r "$GPU_REPORT_TARGETS" ]; then
    echo "$program: GPU_REPORT_TARGETS=$GPU_REPORT_TARGETS: no such file" >&2
    exit 2
fi
# On a GPU the files whose tests run the GPU build; under the emulator a quick
# part (all of it takes some ten minutes on two cores). Never this report's own
# tests.
if [ $on_gpu = no ]; then
    default_bats=tests/lesson01.bats
else
    default_bats=$(grep -l 'use_gpu_build\|CUDA_BUILD' tests/*.bats | grep -v '/gpu-report\.bats$')
fi
bats_files=$(echo ${GPU_REPORT_BATS:-$default_bats})

# The folder is this report's alone: an earlier report in it is replaced,
# anything else is left as it is.
if [ -d "$folder" ] && [ -n "$(ls -A "$folder")" ] && [ ! -e "$folder/summary.md" ]; then
    echo "$program: $folder holds files but no summary.md: not a report's folder; move them, or name another with GPU_REPORT_DIR" >&2
    exit 2
fi
rm -rf "$folder" && mkdir -p "$folder/logs" || exit 1
work=$(mktemp -d "${TMPDIR:-/tmp}/gpu-report.XXXXXX") || exit 1
# Ctrl-C or a time limit stops the run (a trapped signal alone would clean up and go on)
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
: > "$work/steps"
echo "$program: $device, backend $BACKEND, lessons: $lessons"
echo "$program: writing $folder/"

# step NUMBER NAME FUNCTION: runs it with its output in logs/NAME.log, times
# it, and records the line for the summary; a failure is noted, not fatal.
step() {
    local started=$SECONDS status result
    "$3" > "$folder/logs/$2.log" 2>&1
    status=$?
    case $status in
        0) result=ok ;;
        3) result=skipped ;;   # the step's log says why
        4) result="ok, $(tail -n 1 "$folder/logs/$2.log")" ;;   # it ran; what it found is its last line
        *) result=FAILED; failed_steps="$failed_steps $2" ;;
    esac
    # a skipped step's log ends with why
    [ $result = skipped ] && result="skipped ($(tail -n 1 "$folder/logs/$2.log"))"
    printf 'step %s %s: %ss %s\n' "$1" "$2" "$((SECONDS - started))" "$result" | tee -a "$work/steps"
    [ "$result" = FAILED ] && tail -n 8 "$folder/logs/$2.log" | sed 's/^/    /'
    # the summary so far: what a run stopped by a time limit leaves behind
    write_summary "$1"
    return 0
}
failed_steps=""
skipped_step() {   # skipped_step NUMBER NAME WHY
    printf 'step %s %s: skipped (%s)\n' "$1" "$2" "$3" | tee -a "$work/steps"
    write_summary "$1"
}

# ---- 1. build ----------------------------------------------------------------

build_all() {
    local status=0
    if [ $on_gpu = yes ]; then
        # (-k: a file that does not compile leaves the others to build and run)
        "$MAKE" --no-print-directory -k -j"$jobs" BACKEND=cuda test-programs || status=1
    else
        # Two cores compile the emulator's exercises and solutions in some two
        # minutes: the emulator's report builds the lessons it runs, and says so.
        # shellcheck disable=SC2086  # the lessons' make targets
        "$MAKE" --no-print-directory -k -j"$jobs" BACKEND=emu $lessons || status=1
        echo "no GPU: the lessons for the emulator only (make test builds the exercises and" \
             "solutions too, make nvcc-check compiles every .cu with nvcc)"
    fi
    [ -z "$not_built" ] || printf '%s\n' "$not_built" | sed 's/^/not built here: /'
    return $status
}

# ---- 6. tests ----------------------------------------------------------------

run_tests() {
    local file files_at_once=${GPU_REPORT_BATS_JOBS:-$jobs} status=0 libraries
    libraries=$(for dir in ${BATS_LIB_PATH//:/ } /usr/lib/bats; do
                    [ -d "$dir/bats-assert" ] && [ -d "$dir/bats-support" ] && echo "$dir"
                done)
    if ! command -v "$BATS" >/dev/null 2>&1 || [ -z "$libraries" ]; then
        echo "bats with bats-assert and bats-support not found ($BATS; BATS_LIB_PATH=${BATS_LIB_PATH:-}):" \
             "sudo apt-get install bats bats-assert bats-support"
        return 3
    fi
    if [ $on_gpu = yes ]; then
        # What the measurements did not need: the emulator's build, which the
        # tests run too, and every other .cu through nvcc
        "$MAKE" --no-print-directory -k -j"$jobs" BACKEND=emu test-programs || status=1
        "$MAKE" --no-print-directory -k -j"$jobs" nvcc-check NVCC_CHECK_SKIP_BUILT=yes || status=1
    fi
    # (under the emulator the quick subset in one bats, unless told otherwise)
    [ $on_gpu = yes ] || files_at_once=${GPU_REPORT_BATS_JOBS:-1}
    export WORKBOOK_EMU_BUILD=build/emu WORKBOOK_CUDA_BUILD=build/cuda-sm$CUDA_ARCH WORKBOOK_GPU_COUNT=$GPU_COUNT
    if [ "$files_at_once" -le 1 ]; then
        # shellcheck disable=SC2086  # a list of files
        "$BATS" --tap $bats_files > "$folder/tests.tap" || status=1
    else
        # Several files side by side, each file's tests in order, the cores shared
        # among them (the lessons' CPU versions use every core they are given);
        # the TAP of each file in the order of the files. (bash -c: a bats run
        # from a bats test needs the functions bats exports, which sh drops.)
        mkdir -p "$work/tap"
        # shellcheck disable=SC2086
        printf '%s\n' $bats_files | OMP_NUM_THREADS=$(( jobs / files_at_once )) xargs -P "$files_at_once" -I {} \
            bash -c '"$3" --tap "$1" > "$2/$(basename "$1").tap" 2>&1 || echo "$1" >> "$2/failed"' bash {} "$work/tap" "$BATS"
        for file in $bats_files; do
            echo "# $file"
            cat "$work/tap/$(basename "$file").tap"
        done > "$folder/tests.tap"
        [ -e "$work/tap/failed" ] && status=1
    fi
    sh common/tap-summary.sh "$folder/tests.tap"
    return $status
}

# ---- 4. sanitize ---------------------------------------------------------------

# Each lesson alone (sanitize.sh), several side by side; the log in lesson order.
sanitize_all() {
    local tool=compute-sanitizer sanitize_build=$build lesson
    if [ $on_gpu = no ]; then
        tool=emu sanitize_build=build/emu-sanitize
        # shellcheck disable=SC2046
        "$MAKE" --no-print-directory -j"$jobs" BACKEND=emu SANITIZE=1 \
            $(for lesson in $lessons; do echo "build/emu-sanitize/$lesson"; done) || return 1
    elif ! command -v compute-sanitizer >/dev/null 2>&1; then
        echo "compute-sanitizer not found (it comes with the CUDA Toolkit, beside nvcc)" | tee "$folder/sanitizer.log"
        return 1
    fi
    mkdir -p "$work/sanitize"
    # shellcheck disable=SC2086
    printf '%s\n' $lessons | xargs -P "$jobs" -I {} sh -c \
        "SANITIZE_TOOL=$tool SANITIZE_BUILD=$sanitize_build sh common/sanitize.sh {} \
             > $work/sanitize/{}.log 2>&1 || echo {} >> $work/sanitize/failed"
    for lesson in $lessons; do cat "$work/sanitize/$lesson.log"; done > "$folder/sanitizer.log"
    cat "$folder/sanitizer.log"
    [ ! -e "$work/sanitize/failed" ]
}

# ---- 2. targets --------------------------------------------------------------

# The TARGET lines of the lessons reported on (or of GPU_REPORT_TARGETS), each
# prefixed with its lesson: "lesson01<TAB>what | gpu run | emulator run | measured | bound".
target_lines() {
    local lesson
    if [ -n "${GPU_REPORT_TARGETS:-}" ]; then
        sed -n 's/^TARGET[[:space:]]*=[[:space:]]*//p' "$GPU_REPORT_TARGETS" |
            while IFS= read -r line; do
                # the lesson of a target is that of its first run
                lesson=$(printf '%s' "$line" | cut -d '|' -f 2 | sed 's/block-sweep//' | awk '{ print $1 }')
                printf '%s\t%s\n' "$lesson" "$line"
            done
        return
    fi
    for lesson in $lessons; do
        lesson_setting "$lesson" TARGET | sed "s/^/$lesson\t/"
    done
}

# run_once "lessonNN ARGS" or "block-sweep lessonNN ARGS": runs it (once per
# report, however many targets read it) and prints its rows and figures.
run_once() {
    local key
    key=$(printf '%s' "$1" | cksum | cut -d ' ' -f 1)
    if [ ! -e "$work/runs/$key.out" ]; then
        # shellcheck disable=SC2086  # a run is a list of words
        set -- $1
        echo "\$ $*" >> "$folder/logs/target-runs.log"
        if [ "$1" = block-sweep ]; then
            block_sweep "$work/runs/$key.out" "${@:2}"
        else
            local name=$1 launch
            shift
            launch=$(lesson_setting "$name" LAUNCH)
            local status
            # shellcheck disable=SC2086
            $launch "$build/$name" --csv --quiet-warnings "$@" > "$work/runs/$key.out" 2> "$work/runs/$key.err"
            status=$?
            echo "exit status $status" >> "$folder/logs/target-runs.log"
            [ $status -eq 0 ] || echo "$name $*: exit status $status" >> "$work/failed-runs"
            grep '^figure,' "$work/runs/$key.err" >> "$work/runs/$key.out"
            grep -v '^figure,' "$work/runs/$key.err" >> "$folder/logs/target-runs.log"
            # the rows, for the results folder
            grep -v '^figure,' "$work/runs/$key.out" | tail -n +2 >> "$work/target-rows"
            [ -s "$folder/targets.csv" ] || head -n 1 "$work/runs/$key.out" | grep '^lesson,' > "$folder/targets.csv"
        fi
    fi
    cat "$work/runs/$key.out"
}

# block_sweep OUT lessonNN ARGS: plots/block-sweep.sh over every block size (a
# few under the emulator), of the variant the ARGS' --only names. The sweep's
# fastest block size is the fastest of 32 noisy medians, and so partly the
# luckiest (COURSE.md, lesson 06's targets): it and the occupancy API's choice
# are then timed again, head to head, REMATCH_ROUNDS times each in turn. The
# figures: the medians of those runs, sweep_best_ms and api_choice_ms, and
# the sweep's own two times, sweep_min_ms and api_choice_in_sweep_ms.
block_sweep() {
    local out=$1 name=$2 chosen best status round threads
    shift 2
    [ $on_gpu = no ] && export BLOCK_SIZES="32 256 1024"
    sh plots/block-sweep.sh "$build/$name" "$folder/charts" "$@" > "$work/sweep.log" 2>&1
    status=$?
    echo "exit status $status" >> "$folder/logs/target-runs.log"
    [ $status -eq 0 ] || echo "block-sweep $name $*: exit status $status" >> "$work/failed-runs"
    cat "$work/sweep.log" >> "$folder/logs/target-runs.log"
    chosen=$(sed -n "s/.*occupancy API's choice: \([0-9][0-9]*\).*/\1/p" "$work/sweep.log")
    awk -F , -v lesson="$name" -v chosen="$chosen" '
        NR > 1 && $3 != "" { if (best == "" || $3 + 0 < best + 0) best = $3
                             if ($1 == chosen) at_choice = $3 }
        END { if (best != "") print "figure," lesson ",sweep_min_ms," best ",ms"
              if (at_choice != "") print "figure," lesson ",api_choice_in_sweep_ms," at_choice ",ms" }' \
        "$folder/charts/$name-block-sweep.csv" > "$out" 2>/dev/null
    best=$(awk -F , 'NR > 1 && $3 != "" && (best == "" || $3 + 0 < best + 0) { best = $3; at = $1 }
                     END { print at }' "$folder/charts/$name-block-sweep.csv" 2>/dev/null)
    [ -n "$chosen" ] && [ -n "$best" ] || return 0
    local rematch="$folder/charts/$name-block-rematch.csv"
    echo "round,threads_per_block,median_ms" > "$rematch"
    local sizes=$best rounds
    [ "$chosen" = "$best" ] || sizes="$best $chosen"
    rounds=${REMATCH_ROUNDS:-$([ $on_gpu = yes ] && echo 5 || echo 1)}
    for round in $(seq "$rounds"); do
        for threads in $sizes; do
            "$build/$name" "$@" --threads-per-block "$threads" --csv --quiet-warnings \
                > "$work/rematch.out" 2>> "$folder/logs/target-runs.log" ||
                { echo "block-sweep $name $*: the rematch at $threads threads failed" >> "$work/failed-runs"
                  return 0; }
            awk -F , -v round="$round" -v threads="$threads" '
                NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
                $c["scope"] == "kernel" { print round "," threads "," $c["median_ms"]; exit }' \
                "$work/rematch.out" >> "$rematch"
        done
    done
    { echo "\$ the rematch: $name $* at $best threads (the sweep's fastest) and $chosen (the API's)," \
           "$rounds round$([ "$rounds" = 1 ] || echo s)"; cat "$rematch"; } >> "$folder/logs/target-runs.log"
    # the median of each size's runs (the lower middle one of an even count)
    local figure_name
    for figure_name in sweep_best_ms api_choice_ms; do
        threads=$([ $figure_name = sweep_best_ms ] && echo "$best" || echo "$chosen")
        awk -F , -v threads="$threads" 'NR > 1 && $2 == threads { print $3 }' "$rematch" | sort -g |
            awk -v lesson="$name" -v name="$figure_name" \
                '{ v[NR] = $1 } END { if (NR) print "figure," lesson "," name "," v[int((NR + 1) / 2)] ",ms" }' \
            >> "$out"
    done
}

# Exit status: 0 every target met (or shown), 4 some missed ("N of M targets
# missed", its last line), 1 a run failed or a target could not be read.
judge_targets() {
    local lesson line what gpu_run emu_run measured bound runs run judged=yes status=0 verdict
    local missed=0 total=0
    mkdir -p "$work/runs"
    : > "$work/target-rows"
    [ $on_gpu = no ] && judged=no
    [ $on_gpu = no ] && [ "${GPU_REPORT_JUDGE_EMULATED:-0}" = 1 ] && judged=emulated
    target_lines > "$work/targets"
    if [ ! -s "$work/targets" ]; then
        echo "no TARGET lines in the lesson.confs of $lessons"
    fi
    while IFS="$(printf '\t')" read -r lesson line; do
        IFS='|' read -r what gpu_run emu_run measured bound <<< "$line"
        runs=$gpu_run
        [ $on_gpu = no ] && runs=$emu_run
        : > "$work/target.csv"
        IFS=';' read -ra run_list <<< "$runs"
        for run in "${run_list[@]}"; do
            run_once "$run" >> "$work/target.csv" < /dev/null
        done
        awk -f common/gpu-judge.awk -v lesson="$lesson" -v what="$(echo $what)" \
            -v measured="$measured" -v bound="$bound" -v judged=$judged \
            -v emulated_run="$([ $on_gpu = no ] && echo $emu_run)" "$work/target.csv" \
            >> "$work/verdicts"
        verdict=$?
        total=$((total + 1))
        case $verdict in
            0) ;;
            1) missed=$((missed + 1)) ;;   # gpu-judge.awk: missed
            *) status=1 ;;                 # a TARGET line it could not read
        esac
    done < "$work/targets"
    cat "$work/target-rows" >> "$folder/targets.csv" 2>/dev/null
    cat "$work/verdicts" 2>/dev/null
    [ $missed -eq 0 ] || missed_targets=yes
    if [ -s "$work/failed-runs" ]; then
        echo "runs that failed (logs/target-runs.log has what they printed):"
        cat "$work/failed-runs"
        status=1
    fi
    [ $status -eq 0 ] || return 1
    [ $missed -eq 0 ] || { echo "$missed of $total targets missed"; return 4; }
    return 0
}
missed_targets=no

# ---- 3. bench ----------------------------------------------------------------

# Into the folder itself, each run's rows as the run ends: a report stopped
# during the sweep keeps the runs that ended.
bench_all() {
    # shellcheck disable=SC2086
    BACKEND=$BACKEND BUILD=$build BENCH_RESULTS_DIR="$folder" sh common/bench.sh $lessons
    local status=$? file
    # bench.sh names its file after the device the programs saw, nvidia-smi's
    # name as a rule: $slug.csv. Should they differ, the report's name.
    for file in "$folder"/*.csv; do
        case ${file##*/} in
            "$slug.csv" | targets.csv | ncu.csv) ;;
            *) [ -e "$file" ] && mv "$file" "$folder/$slug.csv" ;;
        esac
    done
    return $status
}

# ---- 5. ncu ------------------------------------------------------------------

# DRAM throughput as a share of peak, achieved occupancy, global-load sectors
# per request, shared-memory bank conflicts (loads, stores), warp execution
# efficiency (threads active per instruction, of 32).
ncu_metrics="dram__throughput.avg.pct_of_peak_sustained_elapsed
sm__warps_active.avg.pct_of_peak_sustained_active
l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
smsp__thread_inst_executed_per_inst_executed.ratio"

# profile_one lessonNN METRICS: one run under ncu at its NCU_ARGS (started by
# its PROFILE_LAUNCH, as make profile starts it: lesson 09 as one rank; with
# --cache warm, since ncu empties the caches itself before each kernel); ncu's
# CSV in $work/ncu.csv, everything else it and the lesson said in $work/ncu.out.
profile_one() {
    local arguments launch
    arguments=$(lesson_setting "$1" NCU_ARGS)
    launch=$(lesson_setting "$1" PROFILE_LAUNCH)
    [ -n "$arguments" ] || { echo "$1: no NCU_ARGS in its lesson.conf: not profiled"; return 0; }
    echo "\$ ncu $1 $arguments"
    rm -f "$work/ncu.csv"
    # shellcheck disable=SC2086  # the launcher and the arguments are lists of words
    $launch ncu --csv --print-kernel-base function --metrics "$2" --launch-count 24 \
        --log-file "$work/ncu.csv" "$build/$1" $arguments --reps 1 --warmup 0 --cache warm --quiet-warnings \
        > "$work/ncu.out" 2>&1
    touch "$work/ncu.csv"
}

profile_all() {
    if ! command -v ncu >/dev/null 2>&1; then
        echo "ncu not found: skipped" | tee "$folder/ncu.csv"
        return 3
    fi
    local lesson all_metrics metrics status=0
    all_metrics=$(echo $ncu_metrics | tr ' ' ,)
    metrics=$all_metrics
    : > "$folder/ncu.csv"
    for lesson in $lessons; do
        profile_one "$lesson" "$metrics"
        # (ncu's own messages go to its log file, its CSV's lines start with a quote)
        if grep -q 'ERR_NVGPUCTRPERM' "$work/ncu.out" "$work/ncu.csv"; then
            echo "ncu may not read this GPU's performance counters (ERR_NVGPUCTRPERM): skipped;" \
                 "see https://developer.nvidia.com/ERR_NVGPUCTRPERM" | tee -a "$folder/ncu.csv"
            return 3
        fi
        # a metric this ncu does not know: keep the ones it does, and go on
        if [ "$metrics" = "$all_metrics" ] && grep -q 'Failed to find metric' "$work/ncu.out" "$work/ncu.csv"; then
            echo "unknown to this ncu, left out: $(grep -h 'Failed to find metric' "$work/ncu.out" "$work/ncu.csv")"
            metrics=$(for metric in $ncu_metrics; do
                          grep -q "$metric" "$work/ncu.out" "$work/ncu.csv" || echo "$metric"
                      done | paste -sd , -)
            profile_one "$lesson" "$metrics"
        fi
        if grep -q '^"ID"' "$work/ncu.csv"; then
            grep '^"' "$work/ncu.csv" | { [ -s "$folder/ncu.csv" ] && grep -v '^"ID"' || cat; } >> "$folder/ncu.csv"
        else
            echo "$lesson: ncu wrote no metrics:"; tail -n 5 "$work/ncu.out" "$work/ncu.csv"
            status=1
        fi
    done
    return $status
}

# ---- 7. charts ---------------------------------------------------------------

draw_charts() {
    if ! command -v "$GNUPLOT" >/dev/null 2>&1; then
        echo "gnuplot not found: make plots draws the charts from this folder's CSV on a machine with it"
        return 3
    fi
    local results="$folder/$slug.csv"
    [ -s "$results" ] || results="$folder/targets.csv"
    sh plots/plot.sh "$folder/charts" "$results"
}

# ---- 8. the commit, the machine, the summary ------------------------------------

describe_machine() {
    # The report's own folder, committed from an earlier run, was just emptied:
    # that is no change to the course.
    local course=(.)
    case $folder in /*) ;; *) course+=(":(exclude)$folder") ;; esac
    {
        echo "commit: $(git rev-parse HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- "${course[@]}" 2>/dev/null || echo ' (with uncommitted changes)')"
        echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    } > "$folder/commit.txt"
    {
        echo "device: $device (backend $BACKEND$([ $on_gpu = no ] && echo ': CPU emulation, not GPU results'))"
        if [ $on_gpu = yes ]; then
            nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total,clocks.max.sm,clocks.max.memory,pcie.link.gen.max,pcie.link.width.max \
                --format=csv 2>&1
        fi
        echo "toolkit: $("$NVCC" --version 2>/dev/null | tail -n 2 | head -n 1 || echo 'nvcc not found')"
        echo "host: $(uname -srm), $(nproc) CPU threads, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)"
        echo "compiler: $(${CXX:-g++} --version 2>/dev/null | head -n 1)"
        echo "mpi: $(mpirun --version 2>/dev/null | head -n 1 || echo 'not found')"
    } > "$folder/machine.txt"
}

# write_summary [STEP]: summary.md; with STEP, as the run stands after that step.
write_summary() {
    local title="$device"
    [ $on_gpu = no ] && title="CPU emulation (no GPU): not GPU results"
    {
        echo "# make gpu-report: $title"
        echo
        if [ -n "${1:-}" ]; then
            echo "**Unfinished:** written $([ "$1" = 0 ] && echo 'before step 1' || echo "after step $1") of 8. A report that stops here was cut short (a time"
            echo "limit?): the steps below are those that ended."
            echo
        fi
        sed 's/^/    /' "$folder/commit.txt" "$folder/machine.txt"
        echo
        if [ "$quick" = 1 ]; then
            echo "GPU_REPORT_QUICK=1: build, targets, sanitizers and tests only (no sweep, ncu or charts)."
            [ $on_gpu = yes ] && echo "Step 6 ran the test files that use the GPU build: $bats_files."
            echo
        fi
        if [ $on_gpu = no ]; then
            echo "Under the CPU emulator step 1 built the lessons alone (no exercises, solutions or nvcc build),"
            echo "step 6 ran a quick subset of the Bats suite ($bats_files), not all of it;"
            echo "the targets are shown, not judged: emulated times are CPU times."
            echo
        fi
        echo "## Steps"
        echo
        sed 's/^/    /' "$work/steps"
        echo
        echo "## Targets"
        echo
        echo "| lesson | target | measured | bound | verdict |"
        echo "|---|---|---|---|---|"
        cat "$work/verdicts" 2>/dev/null
        echo
        echo "## Problems"
        echo
        problems
    } > "$folder/summary.md"
}

# Every FAIL row, sanitizer finding and failing test, with its line.
problems() {
    local found=no file
    for file in "$folder/$slug.csv" "$folder/targets.csv"; do
        [ -s "$file" ] || continue
        awk -F , -v file="$(basename "$file")" '
            NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
            $c["check"] == "FAIL" { print "- FAIL in " file ", line " NR ": " $0 }' "$file"
    done > "$work/problems"
    grep -n 'FOUND a problem' "$folder/sanitizer.log" 2>/dev/null |
        sed 's/^\([0-9]*\):[[:space:]]*/- sanitizer.log, line \1: /' >> "$work/problems"
    grep -n '^not ok' "$folder/tests.tap" 2>/dev/null |
        sed 's/^\([0-9]*\):/- tests.tap, line \1: /' >> "$work/problems"
    grep 'FAILED' "$work/steps" | sed 's/^/- /; s/$/ (its log: logs\/)/' >> "$work/problems"
    [ -z "$not_built" ] || printf '%s\n' "$not_built" | sed 's/^/- not built here: /' >> "$work/problems"
    if [ -s "$work/problems" ]; then cat "$work/problems"; else echo "none"; fi
}

# ---- the run -------------------------------------------------------------------

describe_machine
# (a summary from the start: a run stopped in step 1 leaves a folder that the
# next run knows for a report's, and replaces)
write_summary 0
step 1 build build_all
step 2 targets judge_targets
if [ "$quick" = 1 ]; then skipped_step 3 bench GPU_REPORT_QUICK; else step 3 bench bench_all; fi
step 4 sanitize sanitize_all
if [ "$quick" = 1 ]; then skipped_step 5 ncu GPU_REPORT_QUICK; else step 5 ncu profile_all; fi
step 6 tests run_tests
if [ "$quick" = 1 ]; then skipped_step 7 charts GPU_REPORT_QUICK; else step 7 charts draw_charts; fi
started=$SECONDS
echo "step 8 summary: $((SECONDS - started))s ok" >> "$work/steps"
write_summary
echo "step 8 summary: $((SECONDS - started))s ok"
echo
sed -n '/^## Targets/,$p' "$folder/summary.md"
echo
echo "$program: $folder/summary.md"
if [ -n "$failed_steps" ] || [ $missed_targets = yes ] || [ -n "$not_built" ]; then
    echo "$program: failed steps:${failed_steps:- none}; targets missed: $missed_targets$(
          [ -z "$not_built" ] || echo "; not built here:" $(printf '%s\n' "$not_built" | cut -d : -f 1))" >&2
    exit 1
fi
echo "$program: every step passed$([ $on_gpu = yes ] && echo ', every target met')"
