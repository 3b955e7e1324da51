#!/bin/sh
# common/grade.sh - builds and checks every exercise of a checkout: make grade
#
#   make grade                                  the exercises in this checkout's lessons/
#   make grade GRADE_FROM=../alice/lessons      a student's, with this checkout's checkers
#   make grade GRADE_FROM=solutions             the worked solutions (all PASS)
#
# One line per exercise, then a total:
#
#   exercise01  PASS
#   exercise02  does not compile: 02-grayscale/exercise.cu:31:5: error: 'colum' was not declared in this scope
#   exercise03  FAIL: 97x61: first wrong cell (row 0, column 32): expected 0.5, got nan (never written)
#               the bug finder: data race on shared memory in kernel diffuse_tile, block (0,0,0): ...
#   exercise04  not implemented
#   exercise05  deadlock: deadlock in kernel block_sums_tree, block (0,0,0): no thread of the block can continue.
#   exercise06  timed out: after 120 s: a deadlock or an endless loop
#   exercise07  missing: no ../alice/lessons/07-transfers/exercise.cu
#   exercise08  PASS
#   grade: 2 of 8 exercises pass
#
# A FAIL is followed by what the bug finder (common/diagnose.sh) says about it: a
# race or an access out of bounds with the student's line, or that it found none.
# The same goes as CSV (student, exercise, result, detail, seconds; the bug
# finder's line at the end of the detail) to
# GRADE_CSV, for a gradebook. Each exercise is compiled from GRADE_FROM/NN-topic/
# with the checker and common/ of this checkout, so a student's edits to a
# checker do not count. A kernel that never finishes cannot stall the grading:
# the emulator reports a block whose threads cannot all reach a barrier (and,
# after CUDA_EMU_TIMEOUT seconds, a thread that never gets anywhere), and every
# run is stopped after GRADE_TIMEOUT seconds on any backend.
#
# Settings (environment; the Makefile passes them):
#   BACKEND, BUILD        cuda or emu, and where the checker objects are
#   COMPILER, LINK_FLAGS  the compiler and all flags of a lesson's link
#   LINK_LIBRARIES        libraries every program links
#   MPI_FLAGS             Open MPI's compile and link flags, for a lesson whose
#                         lesson.conf says MPI = yes
#   GRADE_FROM            where the exercises are (default lessons)
#   GRADE_STUDENT         the name in the CSV (default: the checkout's folder)
#   GRADE_CSV             the CSV file (default build/grade.csv)
#   GRADE_TIMEOUT         seconds one checker run may take (default 120)
#
# Arguments: the lesson directories with an exercise (lessons/01-vector-add ...).
# Exit status: 0 when every exercise passes, 1 otherwise, 2 usage.

set -u
export LC_ALL=C # compilers' messages in English in every locale: they are read for "error"
program=grade.sh

BACKEND=${BACKEND:-emu}
BUILD=${BUILD:-build/emu}
COMPILER=${COMPILER:-common/emu/emucc}
LINK_FLAGS=${LINK_FLAGS:--O3 -std=c++20 -Icommon}
LINK_LIBRARIES=${LINK_LIBRARIES:-}
GRADE_FROM=${GRADE_FROM:-lessons}
GRADE_CSV=${GRADE_CSV:-build/grade.csv}
GRADE_TIMEOUT=${GRADE_TIMEOUT:-120}

if [ $# -eq 0 ]; then
    echo "$program: no lesson directories given (run it through make grade)" >&2
    exit 2
fi
if [ ! -d "$GRADE_FROM" ]; then
    echo "$program: GRADE_FROM=$GRADE_FROM: no such directory (expected a lessons/ folder with NN-topic/exercise.cu)" >&2
    exit 2
fi
case $GRADE_TIMEOUT in
    '' | *[!0-9]* | 0) echo "$program: GRADE_TIMEOUT=$GRADE_TIMEOUT: expected a whole number of seconds" >&2
                       exit 2 ;;
esac
GRADE_STUDENT=${GRADE_STUDENT:-$(basename "$(cd "$GRADE_FROM/.." && pwd)")}

setting() {
    # setting lessons/01-vector-add KEY: the value of "KEY = value" in its lesson.conf
    sed -n "s/^$2[[:space:]]*=[[:space:]]*//p" "$1/lesson.conf"
}

csv_field() {
    # a CSV field: quoted, with inner quotes doubled
    printf '"%s"' "$(printf '%s' "$1" | sed 's/"/""/g')"
}

work=$BUILD/grade
mkdir -p "$work" "$(dirname "$GRADE_CSV")"
printf 'student,exercise,result,detail,seconds\n' >"$GRADE_CSV"
# The emulator's own limit for a thread that makes no progress stays below ours,
# so that its report, which names the kernel and the line, is what we see.
emu_timeout=$((GRADE_TIMEOUT > 20 ? GRADE_TIMEOUT - 10 : GRADE_TIMEOUT / 2 + 1))

passed=0
total=0
for dir in "$@"; do
    number=$(basename "$dir" | cut -d- -f1)
    name=exercise$number
    source=$GRADE_FROM/$(basename "$dir")/$(setting "$dir" EXERCISE)
    checker=$BUILD/$dir/$(setting "$dir" EXERCISE_CHECK | sed 's/\.cu$/.o/')
    libraries="$(setting "$dir" LIBS)"
    [ "$BACKEND" = cuda ] && libraries="$libraries $(setting "$dir" CUDA_LIBS)"
    [ "$(setting "$dir" MPI)" = yes ] && libraries="$libraries ${MPI_FLAGS:-}"
    total=$((total + 1))
    started=$(date +%s)

    detail="" cause=""
    if [ ! -f "$source" ]; then
        result="missing"
        detail="no $source"
    # -I: the lesson's own headers (#include "luma.h") come from this checkout
    elif ! timeout 600 $COMPILER $LINK_FLAGS -I"$dir" -o "$work/$name" "$source" "$checker" \
            "$BUILD/common/workbook.o" $libraries $LINK_LIBRARIES >"$work/$name.build.log" 2>&1; then
        result="does not compile"
        # the first error, with its file and line, names what to fix
        detail=$(grep -m 1 -E 'error|undefined reference' "$work/$name.build.log" | sed "s|^$GRADE_FROM/||")
        [ -n "$detail" ] || detail=$(head -n 1 "$work/$name.build.log")
    else
        CUDA_EMU_TIMEOUT=$emu_timeout timeout -k 5 "$GRADE_TIMEOUT" "$work/$name" >"$work/$name.log" 2>&1
        status=$?
        if [ $status -eq 0 ] && grep -q "^$name: PASS" "$work/$name.log"; then
            result="PASS"
            passed=$((passed + 1))
        elif grep -q "^$name: not implemented yet" "$work/$name.log"; then
            result="not implemented"
        elif grep -q -E '^cuda-emu: (deadlock|no progress)' "$work/$name.log"; then
            result="deadlock"
            detail=$(grep -m 1 -E '^cuda-emu: (deadlock|no progress)' "$work/$name.log" | sed 's/^cuda-emu: //')
        elif [ $status -eq 124 ] || [ $status -eq 137 ]; then
            result="timed out"
            detail="after $GRADE_TIMEOUT s: a deadlock or an endless loop"
        elif [ $status -eq 3 ]; then
            result="not checked"
            detail=$(grep -m 1 "cannot check" "$work/$name.log" | sed "s/^$name: //")
        elif grep -q "^$name: FAIL" "$work/$name.log"; then
            result="FAIL"
            # the first case that failed, without the checker's indentation
            detail=$(grep -m 1 'FAIL:' "$work/$name.log" | sed 's/^ *//; s/  */ /g; s/ FAIL:/:/')
            # why, from the same sources: the bug finder's line, the student's file named as above
            cause=$(DIAGNOSE_TIMEOUT=$GRADE_TIMEOUT sh common/diagnose.sh --one-line "$name" \
                        "$work/$name.log" "$work/$name" -I"$dir" "$source" "$checker" \
                        "$BUILD/common/workbook.o" $libraries | sed "s|$source|${source#"$GRADE_FROM/"}|g")
        else
            # a CUDA error, a crash or an emulator report: its first line says what
            result="error"
            detail=$(grep -m 1 -E 'cuda-emu:|CUDA error|error' "$work/$name.log")
            [ -n "$detail" ] || detail="the checker stopped with exit status $status: $(tail -n 1 "$work/$name.log")"
        fi
    fi

    seconds=$(($(date +%s) - started))
    if [ -n "$detail" ]; then
        printf '%-11s %s: %s\n' "$name" "$result" "$detail"
    else
        printf '%-11s %s\n' "$name" "$result"
    fi
    if [ -n "$cause" ]; then
        printf '%-11s %s\n' "" "$cause"
        detail="$detail; $cause"
    fi
    printf '%s,%s,%s,%s,%s\n' "$(csv_field "$GRADE_STUDENT")" "$name" "$result" \
        "$(csv_field "$detail")" "$seconds" >>"$GRADE_CSV"
done

echo "grade: $passed of $total exercises pass ($GRADE_STUDENT; the CSV is $GRADE_CSV)"
[ "$passed" -eq "$total" ]
