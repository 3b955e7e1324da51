#!/usr/bin/env bats
# The exercise of lesson 05 and its checker: the untouched skeleton says
# "not implemented yet", the worked solution passes in every thread order, and
# the typical mistakes of a tree reduction are caught: a missing barrier, an
# odd count that loses its middle value, a grid that drops the tail, a load
# past the end of x.

setup() {
    load test_helper
}

SOLUTION=solutions/05-reduction/exercise.cu
CHECKER=lessons/05-reduction/exercise_check.cu

# Builds the solution changed by sed expression $1 with the checker, and runs
# it in thread order $2 (default forward).
run_mutated_solution() {
    [ -d "$EMU_BUILD" ] || skip "no emulator build in $EMU_BUILD"
    build_mutant "$SOLUTION" "$1" "$BATS_TEST_TMPDIR/mutant" "$CHECKER"
    CUDA_EMU_ORDER="${2:-forward}" run "$BATS_TEST_TMPDIR/mutant"
}

@test "the untouched exercise05 skeleton reports not implemented yet" {
    use_gpu_build
    run "$BUILD/exercise05"
    assert_failure 1
    assert_line --partial "exercise05: not implemented yet: blocks_for gives no blocks"
}

@test "the worked solution of exercise05 passes in every thread order" {
    [ -d "$EMU_BUILD" ] || skip "no emulator build in $EMU_BUILD"
    for order in forward reverse random:5; do
        CUDA_EMU_ORDER=$order CUDA_EMU_POISON=1 run "$EMU_BUILD/solution05"
        assert_success
        assert_line "  threads = 96   n = 1      PASS"
        assert_line "  threads = 1000 n = 65537  PASS"
        assert_line "exercise05: PASS (all 15 cases)"
    done
}

@test "exercise05's checker says not implemented yet for a right grid and an empty kernel" {
    run_mutated_solution '/^    partial\[tid\] = i < n/,/^        block_sums\[blockIdx.x\] = partial\[0\];/d'
    assert_failure 1
    assert_line --partial "exercise05: not implemented yet: the kernel wrote nothing"
}

@test "exercise05's checker catches a missing barrier between the steps of the tree" {
    # in forward order a thread runs every step before the others run one
    run_mutated_solution '/the next step could read/,+1d' forward
    assert_failure 1
    assert_line --regexp "^  threads = 32   n = 33     FAIL: first wrong block 0: "
    # in reverse order the same bug happens to give the right sums: one order is not enough
    CUDA_EMU_ORDER=reverse run "$BATS_TEST_TMPDIR/mutant"
    assert_success
    CUDA_EMU_ORDER=random:11 run "$BATS_TEST_TMPDIR/mutant"
    assert_failure 1
}

@test "the emulator's race check names the line of a missing barrier in any order" {
    [ -d "$EMU_BUILD" ] || skip "no emulator build in $EMU_BUILD"
    EMUCC_FLAGS=--sanitize build_mutant "$SOLUTION" '/the next step could read/,+1d' \
        "$BATS_TEST_TMPDIR/mutant" "$CHECKER"
    local line
    line=$(grep -n 'partial\[tid\] += partial\[tid + half\]' "$BATS_TEST_TMPDIR/exercise.cu" | cut -d: -f1)
    CUDA_EMU_ORDER=reverse run "$BATS_TEST_TMPDIR/mutant"
    assert_failure 1
    assert_line --regexp "^cuda-emu: data race on shared memory in kernel block_sums_tree, block "
    assert_line --regexp "^cuda-emu:   thread \([0-9]+,0,0\) (reads|writes) at .*exercise.cu:$line$"
}

@test "exercise05's checker catches a missing barrier after the load" {
    run_mutated_solution '/neighbour.s element before it is loaded/,+1d' forward
    assert_failure 1
    assert_line --regexp "^  threads = 96   n = 1000   FAIL: first wrong block 0: "
}

@test "exercise05's checker catches an odd count that loses its middle value" {
    run_mutated_solution 's|(active + 1) / 2|active / 2|'
    assert_failure 1
    # a power-of-two block never has an odd count; 96 and 1000 threads do
    assert_line "  threads = 32   n = 65537  PASS"
    assert_line --regexp "^  threads = 96   n = 1000   FAIL: first wrong block 0: expected [0-9.]+, got [0-9.]+$"
    assert_line "exercise05: FAIL (8 of 15 cases wrong)"
}

@test "exercise05's checker catches a grid that drops the tail" {
    run_mutated_solution 's|(n + threads_per_block - 1) / threads_per_block|n / threads_per_block|'
    assert_failure 1
    assert_line "  threads = 96   n = 4099   FAIL: blocks_for gave 42 blocks, expected 43 (the last elements would be dropped)"
    assert_line "  threads = 1000 n = 1000   PASS"
}

@test "exercise05's checker catches a last block that skips the elements past n - 1" {
    run_mutated_solution 's|partial\[tid\] = i < n ? x\[i\] : 0.0f;|partial[tid] = i < n - 1 ? x[i] : 0.0f;|'
    assert_failure 1
    assert_line --regexp "^  threads = 32   n = 33     FAIL: first wrong block 1: expected [0-9.]+, got 0$"
}

@test "exercise05's checker catches a load without its i < n check, from the NaN past the end of x" {
    run_mutated_solution 's|partial\[tid\] = i < n ? x\[i\] : 0.0f;|partial[tid] = x[i];|'
    assert_failure 1
    assert_line --regexp "^  threads = 32   n = 33     FAIL: first wrong block 1: expected [0-9.]+, got -?nan$"
    # a whole number of blocks loads nothing past the end
    assert_line "  threads = 1000 n = 1000   PASS"
    assert_line "exercise05: FAIL (14 of 15 cases wrong)"
}

@test "exercise05's checker does not let a NaN slip through" {
    run_mutated_solution 's|block_sums\[blockIdx.x\] = partial\[0\];|block_sums[blockIdx.x] = blockIdx.x == 3 ? nanf("") : partial[0];|'
    assert_failure 1
    assert_line "  threads = 32   n = 33     PASS"
    assert_line --regexp "^  threads = 32   n = 1000   FAIL: first wrong block 3: expected [0-9.]+, got -?nan$"
}
