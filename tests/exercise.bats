#!/usr/bin/env bats
# The exercise of lesson 01 and its checker: the untouched skeleton says
# "not implemented yet", the worked solution passes, and wrong kernels are
# caught with the first wrong index, NaN included.

setup() {
    load test_helper
}

@test "the untouched exercise01 skeleton reports not implemented yet" {
    use_gpu_build
    run "$BUILD/exercise01"
    assert_failure 1
    assert_line --partial "exercise01: not implemented yet"
}

@test "the worked solution of exercise01 passes at every size" {
    use_gpu_build
    run "$BUILD/solution01"
    assert_success
    assert_line "  n = 1        PASS"
    assert_line "  n = 1000003  PASS"
    assert_line "exercise01: PASS (all 10 sizes)"
}

# Builds the solution with one line changed (sed expression $1) together with
# the checker, for the build in use, and runs it.
run_mutated_solution() {
    use_gpu_build
    [ "$BUILD" = "$EMU_BUILD" ] || skip "mutants are built with the emulator"
    build_mutant solutions/01-vector-add/exercise.cu "$1" "$BATS_TEST_TMPDIR/mutant" \
        lessons/01-vector-add/exercise_check.cu
    run "$BATS_TEST_TMPDIR/mutant"
}

@test "exercise01's checker catches a kernel that stops one element short" {
    run_mutated_solution 's/i < n; i += stride/i < n - 1; i += stride/'
    assert_failure 1
    assert_line --regexp "^  n = 1 +FAIL: first wrong index 0: expected -?[0-9.e-]+, got -?nan \\(never written\\)$"
    assert_line --regexp "^  n = 4099 +FAIL: first wrong index 4098: "
    assert_line "exercise01: FAIL (10 of 10 sizes wrong)"
}

@test "exercise01's checker catches a kernel without the loop past the first 512 elements" {
    run_mutated_solution 's/i += stride)/i += n)/'
    assert_failure 1
    assert_line "  n = 512      PASS"
    assert_line --regexp "^  n = 513 +FAIL: first wrong index 512: .*got -?nan \\(never written\\)$"
}

@test "exercise01's checker does not let a NaN slip through" {
    run_mutated_solution 's/c\[i\] = a\[i\] + b\[i\];/c[i] = i == 77 ? nanf("") : a[i] + b[i];/'
    assert_failure 1
    assert_line "  n = 1        PASS"
    assert_line --regexp "^  n = 129 +FAIL: first wrong index 77: expected -?[0-9.e-]+, got -?nan$"
}

@test "a failing kernel launch is reported with file, line and the runtime's message" {
    run_mutated_solution 's/#define EXERCISE_THREADS_PER_BLOCK 128/#define EXERCISE_THREADS_PER_BLOCK 2048/'
    assert_failure 1
    local line
    line=$(grep -n 'CUDA_CHECK_LAUNCH' "$BATS_TEST_TMPDIR/exercise.cu" | cut -d: -f1)
    assert_line --partial "exercise.cu:$line: CUDA error in kernel launch: cudaErrorInvalidConfiguration: "
}
