#!/usr/bin/env bats
# Lesson 05, reduction: what is particular to this lesson. The generic
# contract (awkward sizes, bad inputs, CSV shape) is in contract.bats.

setup() {
    load test_helper
}

SOURCE=lessons/05-reduction/reduction.cu
# the GPU variants checked under the emulator (cub is skipped there)
CHECKED_VARIANTS=9

# Runs lesson05 with the arguments and asserts that every checked row PASSes.
assert_every_variant_passes() {
    use_gpu_build
    run --separate-stderr "$BUILD/lesson05" --reps 1 --warmup 0 --csv "$@"
    assert_success
    assert_equal "$(csv_column check <<<"$output" | grep -c -x FAIL)" 0
    [ "$(csv_column check <<<"$output" | grep -c -x PASS)" -ge "$CHECKED_VARIANTS" ] ||
        fail "fewer than $CHECKED_VARIANTS rows passed: $output"
}

@test "lesson05's kernels stay inside their arrays and barriers hold in every thread order" {
    [ -d "$EMU_BUILD" ] || skip "no emulator build in $EMU_BUILD"
    # guard mode: a read or write past the end of x or of the partial sums stops the program;
    # poison mode: memory starts as NaN, so a partial sum read before it was written fails
    for order in forward reverse random:2024; do
        for n in 1 33 4099; do
            CUDA_EMU_GUARD=1 CUDA_EMU_POISON=1 CUDA_EMU_ORDER=$order \
                run "$EMU_BUILD/lesson05" -n "$n" --reps 1 --warmup 0 --csv
            assert_success
            assert_equal "$(csv_column check <<<"$output" | grep -c -x PASS)" "$CHECKED_VARIANTS"
        done
    done
}

@test "lesson05 prints the story's table in order, with CUB skipped under the emulator" {
    [ -d "$EMU_BUILD" ] || skip "no emulator build in $EMU_BUILD"
    run "$EMU_BUILD/lesson05" -n 5000 --reps 1 --warmup 0
    assert_success
    assert_line --index 0 "lesson05: reduction: the sum of n floats"
    assert_line "problem  elements to sum = 5000; moves 20.0 kB, 5e+03 FLOP"
    assert_equal "$(sed -n 's/^\([a-z-]\+\) \+\(host\|kernel\|library\|skip:\) .*/\1/p' <<<"$output" | tr '\n' ' ')" \
        "cpu device-copy naive interleaved strided sequential first-add last-warp optimized fixed-order last-block cub "
    assert_line "cub         skip: CUB is not part of the CPU emulator"
    assert_line "all 9 checks passed against the CPU reference: naive, interleaved, strided, sequential, first-add, last-warp, optimized, fixed-order, last-block; skipped rows are no failure"
}

@test "a run with one check says so in the singular" {
    use_gpu_build
    run "$BUILD/lesson05" -n 1000 --only cpu,naive --reps 1 --warmup 0
    assert_success
    assert_line "the one check passed against the CPU reference: naive"
}

@test "lesson05's launch warnings name the tree kernels" {
    [ -d "$EMU_BUILD" ] || skip "no emulator build in $EMU_BUILD"
    # each tree variant's last pass is one block, which leaves 131 of the modelled H100's SMs idle
    run "$EMU_BUILD/lesson05" -n 64k --reps 1 --warmup 0
    assert_success
    for kernel in interleaved strided sequential first_add last_warp; do
        assert_line --regexp "^warning: ${kernel/_/-}: reduce_$kernel launches 1 block of 256 threads on 132 SMs, so 131 SMs sit idle"
    done
    refute_line --regexp "^warning: [a-z-]+: kernel"
}

@test "a NaN in the input gives NaN in every variant, which matches the reference" {
    assert_every_variant_passes -n 1025 --nan-at 1024
    assert_every_variant_passes -n 33 --nan-at 0
}

@test "an Inf in the input gives Inf in every variant; Inf and NaN together give NaN" {
    assert_every_variant_passes -n 1025 --inf-at 7
    assert_every_variant_passes -n 4099 --inf-at 4098 --nan-at 1
}

@test "a variant that loses the NaN of the input fails" {
    [ -d "$EMU_BUILD" ] || skip "no emulator build in $EMU_BUILD"
    build_mutant "$SOURCE" 's/    if (i < n)$/    if (i < n \&\& !isnan(x[i]))/' "$BATS_TEST_TMPDIR/broken"
    run --separate-stderr "$BATS_TEST_TMPDIR/broken" -n 1000 --nan-at 500 --only naive --reps 1 --warmup 0
    assert_failure 1
    [[ "$stderr" == *"lesson05: naive (kernel) FAIL: sum: first mismatch at index 0: expected nan, got "* ]] ||
        fail "stderr does not name the mismatch: $stderr"
}

@test "a NaN written by a kernel does not slip through" {
    [ -d "$EMU_BUILD" ] || skip "no emulator build in $EMU_BUILD"
    build_mutant "$SOURCE" 's/        atomicAdd(sum, x\[i\]);/        atomicAdd(sum, i == 77 ? nanf("") : x[i]);/' \
        "$BATS_TEST_TMPDIR/broken"
    run --separate-stderr "$BATS_TEST_TMPDIR/broken" -n 1000 --only naive --reps 1 --warmup 0
    assert_failure 1
    assert_line --regexp "^naive +kernel .* FAIL \(1 NaN/Inf\)$"
    [[ "$stderr" == *"naive (kernel) FAIL: sum: first mismatch at index 0: expected "*", got nan"* ]] ||
        fail "stderr does not name the mismatch: $stderr"
}

@test "the tolerance is tight enough to catch a dropped element" {
    [ -d "$EMU_BUILD" ] || skip "no emulator build in $EMU_BUILD"
    # the grid-stride loop's tail (the n % 4 elements past the last float4) left out
    build_mutant "$SOURCE" 's/for (long long i = 4 \* n4 + first; i < n;/for (long long i = 4 * n4 + first; i < 4 * n4;/' \
        "$BATS_TEST_TMPDIR/broken"
    run "$BATS_TEST_TMPDIR/broken" -n 1024 --only optimized --reps 1 --warmup 0
    assert_success
    run "$BATS_TEST_TMPDIR/broken" -n 1025 --only optimized,fixed-order,last-block --reps 1 --warmup 0
    assert_failure 1
    assert_line --regexp "^optimized +kernel .* FAIL \(max err "
    assert_line --regexp "^fixed-order +kernel .* FAIL \(max err "
    assert_line --regexp "^last-block +kernel .* FAIL \(max err "
}

@test "a PASS whose bound is the whole sum says under the table that it checks nothing" {
    [ -d "$EMU_BUILD" ] || skip "no emulator build in $EMU_BUILD"
    # naive's bound is n x 2^-24 x the sum: at 64Mi, 4 times the sum; its float sum stops
    # growing near 2^24, half of the 3.36e7 it should reach
    run "$EMU_BUILD/lesson05" -n 64Mi --only cpu,naive --reps 1 --warmup 0
    assert_success
    assert_line --regexp "^naive +kernel .* PASS \(max err 1\.[0-9]+e\+07\)$"
    assert_line "naive: at size 67108864 its error bound (one chain of n additions) is 4 times the value it bounds,"
    assert_line --regexp "^  so its kernel PASS checks nothing: it returned 1\.[67][0-9]*e\+07 where sum should be 3\.356e\+07, (4[5-9]|5[0-5])(\.[0-9]+)?% less$"
    # the bound reaches the sum at n = 2^24 = 16777216: above it the note shows, below it not
    run "$EMU_BUILD/lesson05" -n 17M --only cpu,naive --reps 1 --warmup 0
    assert_success
    assert_line "naive: at size 17000000 its error bound (one chain of n additions) is 1.01 times the value it bounds,"
    run "$EMU_BUILD/lesson05" -n 16500k --only cpu,naive --reps 1 --warmup 0
    assert_success
    refute_output --partial "checks nothing"
}

@test "fixed-order and last-block give the same result in every thread order and worker count" {
    [ -d "$EMU_BUILD" ] || skip "no emulator build in $EMU_BUILD"
    for variant in fixed-order last-block; do
        local first=""
        for setting in "forward 1" "reverse 2" "random:3 2"; do
            read -r order workers <<<"$setting"
            CUDA_EMU_ORDER=$order CUDA_EMU_WORKERS=$workers \
                run "$EMU_BUILD/lesson05" -n 100003 --only "$variant" --reps 1 --warmup 0 --csv
            assert_success
            local error
            error=$(csv_column max_error <<<"$output")
            [ -n "$first" ] || first=$error
            assert_equal "$error" "$first"
        done
    done
}

@test "last-block: a count that does not return to 0 passes its first launch and fails after" {
    [ -d "$EMU_BUILD" ] || skip "no emulator build in $EMU_BUILD"
    # atomicAdd never wraps: on the second launch no block finds itself last, and the sum is
    # left as it was before the launch; the checks poison it before the warm-up and timed calls
    build_mutant "$SOURCE" 's/atomicInc(&blocks_done, gridDim.x - 1) == gridDim.x - 1;/atomicAdd(\&blocks_done, 1u) == gridDim.x - 1;/' \
        "$BATS_TEST_TMPDIR/broken"
    run --separate-stderr "$BATS_TEST_TMPDIR/broken" -n 100003 --only last-block,optimized \
        --reps 2 --warmup 1
    assert_failure 1
    assert_line --regexp "^last-block +kernel .* FAIL \(1 NaN/Inf\)$"
    assert_line --regexp "^optimized +kernel .* PASS "
    assert_line "1 of 2 checks FAILED"
    [[ "$stderr" == *"lesson05: last-block (kernel) FAIL after 4 calls (the first passed: does it depend on something an earlier call left behind?): sum: first mismatch at index 0: expected "*", got "*"nan"* ]] ||
        fail "stderr does not say the later calls failed: $stderr"
    # without warm-up the one timed call after the first check is enough to show it
    run "$BATS_TEST_TMPDIR/broken" -n 100003 --only last-block --reps 1 --warmup 0 --csv
    assert_failure 1
    assert_line --regexp "^lesson05,last-block,kernel,.*,FAIL,"
}

@test "lesson05 refuses --nan-at and --inf-at past the end of x" {
    use_any_build
    run --separate-stderr "$BUILD/lesson05" -n 10 --nan-at 10
    assert_equal "$status" 2
    assert_equal "$stderr" "lesson05: --nan-at 10 is past the end of x (n = 10) (see --help)"
    run --separate-stderr "$BUILD/lesson05" -n 10 --inf-at -1
    assert_equal "$status" 2
    [[ "$stderr" == *"--inf-at value '-1' is out of range"* ]] || fail "stderr was: $stderr"
}

@test "lesson05 --help says that --nan-at and --inf-at are off unless given" {
    use_any_build
    run "$BUILD/lesson05" --help
    assert_success
    assert_line "      --nan-at N       make x[N] a NaN: every variant must give NaN (default: none) (0 to 1099511627776)"
    assert_line "      --inf-at N       make x[N] +Inf: every variant must give +Inf (default: none) (0 to 1099511627776)"
    refute_output --partial "default -1"
}

@test "lesson05 --pi counts the same hits on the CPU and the GPU and prints the estimate" {
    use_gpu_build
    local estimate='^pi +[0-9]+ of 200000 points inside: pi ~ 3\.1[0-9]+, error -?[0-9.e-]+; expected 1/sqrt\(N\) band \+-0\.00367 \([0-3]\.[0-9] sigma\)$'
    run --separate-stderr "$BUILD/lesson05" --pi -n 200000 --reps 1 --warmup 0
    assert_success
    assert_line --index 0 "lesson05: Monte Carlo pi: hits of N random points in a quarter circle"
    assert_line --regexp "^naive +kernel .* PASS \(max err 0\)$"
    assert_line --regexp "^optimized +kernel .* PASS \(max err 0\)$"
    # the estimate is the table's result: on stdout, under the table, where > file keeps it
    assert_line --regexp "$estimate"
    # with --csv on stderr, so that stdout stays one CSV table
    run --separate-stderr "$BUILD/lesson05" --pi -n 200000 --reps 1 --warmup 0 --csv
    assert_success
    refute_line --regexp "^pi "
    [[ "$stderr" =~ $estimate ]] || fail "stderr was: $stderr"
}

@test "lesson05 --pi with another --seed throws other points" {
    use_gpu_build
    run "$BUILD/lesson05" --pi -n 100000 --only cpu --reps 1 --warmup 0
    local first
    first=$(grep '^pi ' <<<"$output")
    [ -n "$first" ] || fail "no estimate: $output"
    run "$BUILD/lesson05" --pi -n 100000 --only cpu --reps 1 --warmup 0 --seed 2
    [ "$(grep '^pi ' <<<"$output")" != "$first" ] || fail "the same points for seeds 1 and 2: $output"
}

@test "lesson05 --pi --help describes the Monte Carlo lesson" {
    use_any_build
    run "$BUILD/lesson05" --pi --help
    assert_success
    assert_line --partial "Monte Carlo pi"
    assert_line --regexp "^  -n, --size N      random points "
}

@test "lesson05 built by nvcc without a GPU runs the CPU version and exits 3 saying why" {
    [ "$GPU_COUNT" -eq 0 ] || skip "a GPU is present, so the nvcc build runs on it"
    [ -x "$CUDA_BUILD/lesson05" ] || skip "no nvcc build in $CUDA_BUILD (nvcc not installed?)"
    run --separate-stderr "$CUDA_BUILD/lesson05" -n 1000 --reps 1 --warmup 0
    assert_equal "$status" 3
    assert_line --regexp "^cpu +host "
    [[ "$stderr" == *"lesson05: GPU variants not run: "* ]] || fail "stderr was: $stderr"
}
