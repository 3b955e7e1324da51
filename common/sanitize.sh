#!/bin/sh
# common/sanitize.sh - runs programs under the bug finders and says which come out clean.
#
#   make sanitize                       the usual way: builds every lesson for the checks, then:
#   SANITIZE_BUILD=build/emu-sanitize sh common/sanitize.sh lesson01 lesson02
#
# Without a GPU the programs are the lessons built with `emucc --sanitize` (shared-memory races,
# reads of shared memory nobody wrote, accesses past dynamic shared memory, warp races), and each
# runs in three thread orders with CUDA_EMU_GUARD=1 (accesses past global arrays) and
# CUDA_EMU_POISON=1 (uninitialized global memory reads as NaN and fails the lesson's check).
# With a GPU (SANITIZE_TOOL=compute-sanitizer, which make sanitize sets when nvidia-smi lists
# one) each runs under NVIDIA's compute-sanitizer tools memcheck, racecheck, initcheck and
# synccheck. A lesson runs with the SMALL_ARGS of its lesson.conf: one quick run, started by
# its LAUNCH when it has one (an MPI program: "mpirun -np 2 ...", every rank under the checks).
#
# Exit status: 0 when every program ran clean, 1 otherwise (the findings are printed), 2 usage.

set -u
program=sanitize.sh
build=${SANITIZE_BUILD:-build/emu-sanitize}
tool=${SANITIZE_TOOL:-emu}

if [ $# -eq 0 ]; then
    echo "usage: SANITIZE_BUILD=DIR [SANITIZE_TOOL=emu|compute-sanitizer] sh common/sanitize.sh PROGRAM..." >&2
    exit 2
fi
case $tool in
    emu) runs="forward reverse random:1" ;;
    compute-sanitizer) runs="memcheck racecheck initcheck synccheck" ;;
    *) echo "$program: SANITIZE_TOOL=$tool: expected emu or compute-sanitizer" >&2; exit 2 ;;
esac

. "$(dirname "$0")/lesson-setting.sh"

output=$(mktemp "${TMPDIR:-/tmp}/sanitize.XXXXXX") || exit 1
# Ctrl-C or a time limit stops the run (a trapped signal alone would clean up and go on)
trap 'rm -f "$output"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
failed=0
echo "$program: $tool checks, programs in $build"
for name in "$@"; do
    if [ ! -x "$build/$name" ]; then
        echo "  $name: not built in $build" >&2
        failed=1
        continue
    fi
    arguments=$(lesson_setting "$name" SMALL_ARGS)
    launch=$(lesson_setting "$name" LAUNCH)
    found=""
    for run in $runs; do
        # shellcheck disable=SC2086  # the launcher and the arguments are lists of words
        if [ "$tool" = emu ]; then
            CUDA_EMU_ORDER=$run CUDA_EMU_GUARD=1 CUDA_EMU_POISON=1 \
                $launch "$build/$name" $arguments > "$output" 2>&1
        else
            $launch compute-sanitizer --tool "$run" --error-exitcode 1 "$build/$name" $arguments \
                > "$output" 2>&1
        fi
        status=$?
        if [ "$status" -ne 0 ]; then
            found="$found $run"
            echo "  $name ($run): FOUND a problem (exit status $status):"
            # the checks' own lines; else the end of what it said (a launcher's refusal)
            { grep -E 'cuda-emu:|=========|FAIL' "$output" || tail -n 5 "$output"; } |
                head -n 20 | sed 's/^/    /'
        fi
    done
    if [ -z "$found" ]; then
        echo "  $name ($(echo $runs | tr ' ' ',')): clean"
    else
        failed=1
    fi
done
if [ "$failed" -ne 0 ]; then
    echo "$program: problems found (see above)" >&2
    exit 1
fi
echo "$program: every lesson ran clean"
