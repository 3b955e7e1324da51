#!/usr/bin/env bats
# make grade: one line per exercise and a total, a CSV for a gradebook, and an
# exit status that is 0 only when every exercise passes. Graded here: the
# untouched skeletons, the worked solutions, and a student's folder with one
# exercise of each kind of outcome.

setup() {
    load test_helper
    [ -d "$EMU_BUILD" ] || skip "no emulator build in $EMU_BUILD (run make test)"
    CSV="$BATS_TEST_TMPDIR/grade.csv"
}

# grade [VAR=value...]: make grade on the emulator build, the CSV in the test's folder
grade() {
    run make -C "$REPO" --no-print-directory BACKEND=emu GRADE_CSV="$CSV" "$@" grade
}

# The exercises make grade checks here: every lesson's, but an MPI lesson's
# where MPI is not installed (make builds none of it then).
exercise_numbers() {
    local conf
    for conf in "$REPO"/lessons/*/lesson.conf; do
        grep -q '^EXERCISE *= *[^ ]' "$conf" || continue
        grep -q '^MPI *= *yes' "$conf" && ! command -v "${MPICXX:-mpicxx}" >/dev/null && continue
        sed 's|.*/lessons/\([0-9][0-9]\)-.*|\1|' <<<"$conf"
    done
}

@test "make grade on the untouched skeletons says not implemented for every exercise" {
    grade
    assert_failure
    local count=0
    for number in $(exercise_numbers); do
        assert_line "exercise$number  not implemented"
        count=$((count + 1))
    done
    assert_line --regexp "^grade: 0 of $count exercises pass \\("
    # "not implemented" is no FAIL: the bug finder does not run
    refute_output --partial "bug finder"
    [ "$(wc -l <"$CSV")" -eq $((count + 1)) ]
    assert_equal "$(head -n 1 "$CSV")" "student,exercise,result,detail,seconds"
    assert_equal "$(cut -d, -f3 "$CSV" | sort -u | tr '\n' '|')" "not implemented|result|"
}

@test "make grade on the worked solutions passes every exercise and exits 0" {
    grade GRADE_FROM=solutions GRADE_STUDENT=key
    assert_success
    local count=0
    for number in $(exercise_numbers); do
        assert_line "exercise$number  PASS"
        assert grep -q "^\"key\",exercise$number,PASS,\"\"," "$CSV"
        count=$((count + 1))
    done
    assert_line "grade: $count of $count exercises pass (key; the CSV is $CSV)"
    # a PASS costs nothing more: the bug finder does not run
    refute_output --partial "bug finder"
}

@test "make grade names each kind of failure in a student's folder and never hangs" {
    local lessons="$BATS_TEST_TMPDIR/alice/lessons"
    mkdir -p "$lessons"
    cp -r "$REPO"/lessons/* "$lessons"/
    for number in 01 03 04 05; do
        cp "$REPO"/solutions/"$number"-*/exercise.cu "$lessons"/"$number"-*/exercise.cu
    done
    # 01: a launcher that never returns; 02: a syntax error; 03: the solution;
    # 04: the last row of C never stored; 05: a thread leaves before the barrier;
    # 06: no exercise file; 07: the untouched skeleton
    sed -i 's/^    CUDA_CHECK_LAUNCH();/    CUDA_CHECK_LAUNCH();\n    for (volatile int spin = 1; spin;) {\n    }/' \
        "$lessons"/01-*/exercise.cu
    echo "this is not C;" >>"$lessons"/02-*/exercise.cu
    sed -i 's/if (row < m && col < n)/if (row < m - 1 \&\& col < n)/' "$lessons"/04-*/exercise.cu
    sed -i 's/unsigned int tid = threadIdx.x;/unsigned int tid = threadIdx.x;\n    if (tid == 1)\n        return;/' \
        "$lessons"/05-*/exercise.cu
    rm "$lessons"/06-*/exercise.cu

    grade GRADE_FROM="$lessons" GRADE_TIMEOUT=5
    assert_failure
    assert_line "exercise01  timed out: after 5 s: a deadlock or an endless loop"
    assert_line --regexp "^exercise02  does not compile: 02-grayscale/exercise.cu:[0-9]+:[0-9]+: error: .*this"
    assert_line "exercise03  PASS"
    assert_line --regexp "^exercise04  FAIL: 1x1x1: first wrong element \(row 0, column 0\): expected -?[0-9.]+, got -?nan \(never written\)$"
    assert_line "exercise05  deadlock: deadlock in kernel block_sums_tree, block (0,0,0): no thread of the block can continue."
    assert_line "exercise06  missing: no $lessons/06-occupancy/exercise.cu"
    assert_line "exercise07  not implemented"
    assert_line --regexp "^grade: 1 of [0-9]+ exercises pass \(alice; "
    assert grep -q '^"alice",exercise01,timed out,"after 5 s: a deadlock or an endless loop",[5-9]$' "$CSV"
    assert grep -q '^"alice",exercise04,FAIL,"1x1x1: first wrong element (row 0, column 0): ' "$CSV"
    assert grep -q '^"alice",exercise05,deadlock,"deadlock in kernel block_sums_tree' "$CSV"
}

@test "make grade rejects a folder that does not exist and a bad timeout" {
    grade GRADE_FROM=/nonexistent/lessons
    assert_failure
    assert_line --partial "grade.sh: GRADE_FROM=/nonexistent/lessons: no such directory"
    grade GRADE_TIMEOUT=soon
    assert_failure
    assert_line --partial "grade.sh: GRADE_TIMEOUT=soon: expected a whole number of seconds"
}
