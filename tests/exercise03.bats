#!/usr/bin/env bats
# The exercise of lesson 03 (the halo loads of a shared-memory tile) and its
# checker: the untouched skeleton says "not implemented yet", the worked
# solution passes in every thread order, and the typical mistakes are caught
# with the first wrong (row, column): a missing halo side, a missing barrier.

setup() {
    load test_helper
}

@test "the untouched exercise03 skeleton reports not implemented yet" {
    use_gpu_build
    run "$BUILD/exercise03"
    assert_failure 1
    assert_line --partial "exercise03: not implemented yet"
}

@test "the worked solution of exercise03 passes at every shape in every thread order" {
    use_gpu_build
    for order in forward reverse random:7; do
        CUDA_EMU_ORDER=$order run "$BUILD/solution03"
        assert_success
        assert_line "  1x1      PASS"
        assert_line "  257x131  PASS"
        assert_line "exercise03: PASS (all 10 shapes)"
    done
}

# Builds the solution with the sed expression $1 applied, together with the
# checker, with the emulator, into $BATS_TEST_TMPDIR/mutant.
build_mutated_solution() {
    use_gpu_build
    [ "$BUILD" = "$EMU_BUILD" ] || skip "mutants are built with the emulator"
    local solution="$REPO/solutions/03-diffusion/exercise.cu"
    sed "$1" "$solution" >"$BATS_TEST_TMPDIR/exercise.cu"
    ! cmp -s "$BATS_TEST_TMPDIR/exercise.cu" "$solution" || fail "the sed expression changed nothing"
    "$REPO/common/emu/emucc" -O2 -std=c++20 -Xcompiler -fopenmp -I"$REPO/common" \
        -o "$BATS_TEST_TMPDIR/mutant" "$BATS_TEST_TMPDIR/exercise.cu" \
        "$REPO/lessons/03-diffusion/exercise_check.cu" "$(common_object)"
}

@test "exercise03's checker catches a tile without its right halo column" {
    # the if and the load under it
    build_mutated_solution '/threadIdx.x == TILE_COLUMNS - 1/,+1d'
    run "$BATS_TEST_TMPDIR/mutant"
    assert_failure 1
    # narrower than a block: the column past the field is the clamped last one, loaded anyway
    assert_line "  31x7     PASS"
    assert_line --regexp "^  33x9     FAIL: first wrong cell \(row 0, column 31\): expected [0-9.e-]+, got [0-9.e-]+$"
    assert_line "exercise03: FAIL (7 of 10 shapes wrong)"
}

@test "exercise03's checker catches a tile without its bottom halo row" {
    build_mutated_solution '/threadIdx.y == TILE_ROWS - 1/,+1d'
    run "$BATS_TEST_TMPDIR/mutant"
    assert_failure 1
    assert_line --regexp "^  32x8     FAIL: first wrong cell \(row 7, column 0\): "
    assert_line --regexp "^  65x17    FAIL: first wrong cell \(row 7, column 0\): "
}

@test "exercise03's checker catches a tile without its left halo column, even at 1x1" {
    build_mutated_solution '/threadIdx.x == 0)/,+1d'
    run "$BATS_TEST_TMPDIR/mutant"
    assert_failure 1
    assert_line --regexp "^  1x1      FAIL: first wrong cell \(row 0, column 0\): "
}

@test "exercise03's checker catches a tile without its top halo row" {
    build_mutated_solution '/threadIdx.y == 0)/,+1d'
    run "$BATS_TEST_TMPDIR/mutant"
    assert_failure 1
    assert_line --regexp "^  1x37     FAIL: first wrong cell \(row 0, column 0\): "
}

@test "exercise03's checker catches a missing __syncthreads() in every thread order" {
    build_mutated_solution '/__syncthreads();/d'
    for order in forward reverse random:7; do
        CUDA_EMU_ORDER=$order run "$BATS_TEST_TMPDIR/mutant"
        assert_failure 1
        assert_line --regexp "^  257x131  FAIL: first wrong cell "
        assert_line --regexp "^exercise03: FAIL \([0-9]+ of 10 shapes wrong\)$"
    done
}

@test "exercise03's checker does not let a NaN slip through" {
    build_mutated_solution 's/    to\[(long long)row \* width + col\] = centre - COEFF \* laplacian;/    to[(long long)row * width + col] = row == 3 \&\& col == 5 ? nanf("") : centre - COEFF * laplacian;/'
    run "$BATS_TEST_TMPDIR/mutant"
    assert_failure 1
    assert_line "  37x1     PASS"
    assert_line --regexp "^  31x7     FAIL: first wrong cell \(row 3, column 5\): expected [0-9.e-]+, got -?nan$"
}
