#!/bin/sh
# common/diagnose.sh - when an exercise's cases come out wrong, the bug finder says why:
# make exerciseNN and make grade call it after the checker ran.
#
#   sh common/diagnose.sh [--one-line] NAME LOG PROGRAM SOURCES...
#   (NAME exercise03, LOG what the checker printed, PROGRAM the checker built with the exercise,
#    SOURCES what built it: -Ilessons/03-diffusion lessons/03-diffusion/exercise.cu
#    build/emu/lessons/03-diffusion/exercise_check.o build/emu/common/workbook.o ...)
#
# It does something only when LOG ends in "NAME: FAIL (N of M cases wrong)": a crash, a
# deadlock, a timeout, "not implemented yet" and a PASS keep their own report, and a passing
# exercise costs nothing. Then:
#   - with the emulator (BACKEND=emu) it builds SOURCES again with emucc --sanitize and runs
#     them with guard pages (CUDA_EMU_GUARD=1), poisoned memory (CUDA_EMU_POISON=1) and
#     the checker's buffers without the margins it checks itself (WORKBOOK_EXACT_BUFFERS=1):
#     a race on shared memory, a read of memory nobody wrote and an access past an array stop
#     the run with the student's file:line. The thread orders are make sanitize's, forward,
#     reverse, random:1, until one finds something: a race shows in any order, the others
#     are for a kernel whose path itself depends on the order.
#   - on a GPU (BACKEND=cuda) it runs PROGRAM under NVIDIA's compute-sanitizer, racecheck then
#     memcheck, when the toolkit has it; it never builds with emucc there.
# It prints the first report (the emulator stops at it) with the tool's own hint, or one line
# saying that nothing was found. --one-line puts all of it on one line, for make grade.
#
# Settings (environment; the Makefile passes them): BACKEND, BUILD, COMPILER, LINK_FLAGS,
# LINK_LIBRARIES as for common/grade.sh; DIAGNOSE_TIMEOUT, seconds a run may take (default 60).
# Exit status: 0, also when nothing was found; 2 usage.

set -u
export LC_ALL=C # compilers' messages in English in every locale: they are read for "error"
program=diagnose.sh
one_line=0
if [ "${1:-}" = --one-line ]; then
    one_line=1
    shift
fi
if [ $# -lt 4 ]; then
    echo "usage: sh common/$program [--one-line] NAME LOG PROGRAM SOURCES... (make exerciseNN runs it)" >&2
    exit 2
fi
name=$1 log=$2 checked=$3
shift 3
BACKEND=${BACKEND:-emu}
BUILD=${BUILD:-build/emu}
COMPILER=${COMPILER:-common/emu/emucc}
LINK_FLAGS=${LINK_FLAGS:--O3 -std=c++20 -Icommon}
LINK_LIBRARIES=${LINK_LIBRARIES:-}
DIAGNOSE_TIMEOUT=${DIAGNOSE_TIMEOUT:-60}

# only cases that came out wrong: other FAILs (on a GPU, exercise07's overlap) are no bug to find
grep -q -E "^$name: FAIL \([0-9]+ of [0-9]+ [a-z ]+ wrong\)" "$log" 2>/dev/null || exit 0

# line TEXT: one line of its own, named after the exercise unless it goes on make grade's line
line() {
    if [ "$one_line" = 1 ]; then echo "$1"; else echo "$name: $1"; fi
}

# report WHAT_RAN LINES: what it found, under a line saying what ran, or on one line for make grade
report() {
    if [ "$one_line" = 1 ]; then
        # "..., block (0,0,0):" runs on into the next line; the others are joined with "; "
        printf '%s\n' "$2" | sed 's/^ *//' | awk '
            { text = text (NR == 1 ? "" : last ~ /:$/ ? " " : "; ") $0; last = $0 }
            END { print "the bug finder: " text }'
    else
        echo "$name: the bug finder ($1):"
        printf '%s\n' "$2" | sed 's/^/  /'
    fi
}

found_nothing() {  # found_nothing WHAT_RAN
    if [ "$one_line" = 1 ]; then
        echo "the bug finder found no race or overrun: the arithmetic or indexing is wrong"
    else
        line "the bug finder ($1) found no race or overrun: the arithmetic or indexing is wrong"
    fi
}

work=$BUILD/diagnose
mkdir -p "$work"
output=$work/$name.log

if [ "$BACKEND" = cuda ]; then
    # on PATH, or beside nvcc, where the CUDA Toolkit puts it
    sanitizer=$(command -v compute-sanitizer || true)
    if [ -z "$sanitizer" ] && [ -x "$(dirname "$COMPILER")/compute-sanitizer" ]; then
        sanitizer="$(dirname "$COMPILER")/compute-sanitizer"
    fi
    if [ -z "$sanitizer" ]; then
        line "the bug finder needs compute-sanitizer, which comes with the CUDA Toolkit (not on PATH nor beside $COMPILER)"
        exit 0
    fi
    for tool in racecheck memcheck; do
        timeout -k 5 "$DIAGNOSE_TIMEOUT" "$sanitizer" --tool "$tool" --error-exitcode 99 \
            "$checked" >"$output" 2>&1
        # the first report: its "========= " lines up to the bare "=========", less the host backtrace
        found=$(awk '/^========= (COMPUTE-SANITIZER|.*SUMMARY)/ { next }
                     /^=========$/ { if (count) exit; next }
                     /^========= / && !/Host Frame|Saved host backtrace/ {
                         sub(/^========= /, ""); print; if (++count == 6) exit }' "$output")
        if [ -n "$found" ]; then
            report "compute-sanitizer --tool $tool" "$found"
            exit 0
        fi
    done
    found_nothing "compute-sanitizer racecheck and memcheck"
    exit 0
fi

sanitized=$work/$name
# shellcheck disable=SC2086  # the flags are lists of words
if ! timeout 600 $COMPILER --sanitize $LINK_FLAGS -o "$sanitized" "$@" $LINK_LIBRARIES \
        >"$work/$name.build.log" 2>&1; then
    line "the bug finder could not build it: $(grep -m 1 'error' "$work/$name.build.log")"
    exit 0
fi
for order in forward reverse random:1; do
    CUDA_EMU_ORDER=$order CUDA_EMU_GUARD=1 CUDA_EMU_POISON=1 WORKBOOK_EXACT_BUFFERS=1 \
        CUDA_EMU_TIMEOUT=$((DIAGNOSE_TIMEOUT / 2 + 1)) \
        timeout -k 5 "$DIAGNOSE_TIMEOUT" "$sanitized" >"$output" 2>&1
    status=$?
    # one report: the emulator stops at the first, and says no more than a few lines
    found=$(grep '^cuda-emu: ' "$output" | sed 's/^cuda-emu: //' | head -n 6)
    if [ -n "$found" ]; then
        report "emucc --sanitize, guard pages, thread order $order" "$found"
        exit 0
    fi
    if [ $status -eq 124 ] || [ $status -eq 137 ]; then
        line "the bug finder's run did not finish in $DIAGNOSE_TIMEOUT s"
        exit 0
    fi
done
found_nothing "emucc --sanitize, guard pages, three thread orders"
