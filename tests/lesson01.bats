#!/usr/bin/env bats
# Lesson 01, vector add: what is particular to this lesson. The generic
# contract (awkward sizes, bad inputs, CSV shape) is in contract.bats.

setup() {
    load test_helper
}

# Runs lesson01 at size n (quickly) and asserts that all four GPU rows PASS.
assert_every_variant_passes() {
    local n="$1"
    shift
    use_gpu_build
    run --separate-stderr "$BUILD/lesson01" -n "$n" --reps 2 --warmup 1 --csv "$@"
    assert_success
    assert_line --regexp "^lesson01,cpu,host,$n,.*,REF,"
    assert_line --regexp "^lesson01,naive,kernel,$n,.*,PASS,"
    assert_line --regexp "^lesson01,naive,end-to-end,$n,.*,PASS,"
    assert_line --regexp "^lesson01,optimized,kernel,$n,.*,PASS,"
    assert_line --regexp "^lesson01,optimized,end-to-end,$n,.*,PASS,"
}

@test "lesson01's kernels stay inside their arrays at awkward sizes in every thread order" {
    [ -d "$EMU_BUILD" ] || skip "no emulator build in $EMU_BUILD"
    # guard mode: every device array ends at a protected page, so a read or write past its end
    # stops the program; poison mode: memory starts as NaN, so a skipped element fails the check
    for order in forward reverse random:2024; do
        for n in 1 5 257 4099; do
            CUDA_EMU_GUARD=1 CUDA_EMU_POISON=1 CUDA_EMU_ORDER=$order \
                run --separate-stderr "$EMU_BUILD/lesson01" -n "$n" --reps 1 --warmup 0 --csv
            assert_success
            assert_equal "$(csv_column check <<<"$output" | grep -c -x PASS)" 4
        done
    done
}

@test "lesson01 passes with a naive block size that is not a multiple of a warp" {
    assert_every_variant_passes 4099 --threads-per-block 33
}

@test "lesson01 rejects a naive block size above 1024 threads or below one warp" {
    use_any_build
    run "$BUILD/lesson01" --threads-per-block 1025
    assert_failure 2
    assert_output --partial "--threads-per-block value '1025' is out of range (32 to 1024)"
    run "$BUILD/lesson01" --threads-per-block 16
    assert_failure 2
    assert_output --partial "--threads-per-block value '16' is out of range (32 to 1024)"
}

@test "lesson01 prints the table with device, problem and every variant checked" {
    use_gpu_build
    run "$BUILD/lesson01" -n 100000 --reps 3 --warmup 1
    assert_success
    assert_line --index 0 "lesson01: vector add: c = a + b, float32"
    assert_line --regexp "^device   "
    assert_line "problem  elements per vector = 100000; moves 1.2 MB, 1e+05 FLOP"
    # host: a and b, and c twice (the CPU's reference and the GPU's copy); device: a, b, c
    assert_line "memory   1.6 MB on the host, 1.2 MB on the device"
    assert_line --regexp "^cpu +host .* 1\.00x[ *] ref$"
    assert_line --regexp "^device-copy +library .* -$"
    assert_line --regexp "^naive +kernel .* PASS \(max err 0\)$"
    assert_line --regexp "^naive +end-to-end .* PASS \(max err 0\)$"
    assert_line --regexp "^optimized +kernel .* PASS \(max err 0\)$"
    assert_line "all 4 checks passed against the CPU reference: naive, optimized"
}

@test "lesson01 labels emulated times as CPU emulation, not GPU times" {
    [ -d "$EMU_BUILD" ] || skip "no emulator build in $EMU_BUILD"
    run "$EMU_BUILD/lesson01" -n 1000 --reps 1 --warmup 0
    assert_success
    assert_line --regexp "^device   CPU emulation of NVIDIA H100 SXM5 80GB on [0-9]+ CPU threads?: compute capability 9.0, 132 SMs,$"
    assert_line "         backend emu: GPU code runs on the CPU, so its times are CPU emulation times, not GPU times"
}

@test "lesson01 --only naive runs the naive variant alone, still checked against the CPU" {
    use_gpu_build
    run --separate-stderr "$BUILD/lesson01" -n 1000 --only naive --reps 1 --warmup 0 --csv
    assert_success
    assert_equal "${#lines[@]}" 3
    assert_line --index 1 --regexp "^lesson01,naive,kernel,1000,.*,PASS,"
    assert_line --index 2 --regexp "^lesson01,naive,end-to-end,1000,.*,PASS,"
    refute_line --regexp "^lesson01,cpu,"
}

@test "lesson01 --seed changes the input and still passes" {
    assert_every_variant_passes 999 --seed 12345
}

@test "lesson01 built by nvcc without a GPU runs the CPU version and exits 3 saying why" {
    [ "$GPU_COUNT" -eq 0 ] || skip "a GPU is present, so the nvcc build runs on it"
    [ -x "$CUDA_BUILD/lesson01" ] || skip "no nvcc build in $CUDA_BUILD (nvcc not installed?)"
    run --separate-stderr "$CUDA_BUILD/lesson01" -n 1000 --reps 1 --warmup 0
    assert_equal "$status" 3
    assert_line --regexp "^device   none usable: "
    assert_line --regexp "^cpu +host "
    refute_line --regexp "^naive"
    [[ "$stderr" == *"lesson01: GPU variants not run: "*"make BACKEND=emu lesson01"* ]] ||
        fail "stderr does not say why and what to do: $stderr"
}

@test "a lesson whose kernel skips an element fails, naming the first wrong index" {
    [ -d "$EMU_BUILD" ] || skip "no emulator build in $EMU_BUILD"
    build_mutant lessons/01-vector-add/vector_add.cu 's/    if (i < n)$/    if (i < n - 1)/' \
        "$BATS_TEST_TMPDIR/broken"
    run --separate-stderr "$BATS_TEST_TMPDIR/broken" -n 1000 --reps 1 --warmup 0
    assert_equal "$status" 1
    assert_line --regexp "^naive +kernel .* FAIL \(1 NaN/Inf\)$"
    assert_line --regexp "^optimized +kernel .* PASS \(max err 0\)$"
    assert_line "2 of 4 checks FAILED"
    [[ "$stderr" == *"lesson01: naive (kernel) FAIL: c: first mismatch at index 999: expected "*", got "*"nan"* ]] ||
        fail "stderr does not name the first mismatch: $stderr"
    run --separate-stderr "$BATS_TEST_TMPDIR/broken" -n 1000 --reps 1 --warmup 0 --csv
    assert_line --regexp "^lesson01,naive,kernel,1000,.*,FAIL,inf,"
}

@test "a check whose bound is as large as every value it bounds says its PASS checks nothing" {
    [ -d "$EMU_BUILD" ] || skip "no emulator build in $EMU_BUILD"
    # a tolerance of twice each value lets a kernel that computes half the sum pass
    build_mutant lessons/01-vector-add/vector_add.cu \
        '/^__global__ void vector_add_naive/,/^}/s/c\[i\] = a\[i\] + b\[i\];/c[i] = 0.5f * (a[i] + b[i]);/; s/\.role = WB_OUTPUT, \.count = vector_length}/.role = WB_OUTPUT, .count = vector_length, .tolerance = {.rtol = 2, .why = "twice each value"}}/' \
        "$BATS_TEST_TMPDIR/loose"
    run "$BATS_TEST_TMPDIR/loose" -n 1000 --only cpu,naive --reps 1 --warmup 0
    assert_success
    assert_line --regexp "^naive +kernel .* PASS \(max err "
    assert_line "naive: at size 1000 its error bound (twice each value) is 2 times or more each value it bounds,"
    assert_line --regexp "^  so its kernel PASS checks nothing: it returned -?[0-9.]+(e-?[0-9]+)? at index [0-9]+ where c should be -?[0-9.]+(e-?[0-9]+)?, 50% (less|more)$"
    # with --csv the note goes to stderr, and stdout stays CSV
    run --separate-stderr "$BATS_TEST_TMPDIR/loose" -n 1000 --only cpu,naive --reps 1 --warmup 0 --csv
    assert_success
    refute_output --partial "checks nothing"
    [[ "$stderr" == *"  so its kernel PASS checks nothing: "* ]] || fail "stderr: $stderr"
    # the same kernel with the lesson's own tolerance fails
    build_mutant lessons/01-vector-add/vector_add.cu \
        '/^__global__ void vector_add_naive/,/^}/s/c\[i\] = a\[i\] + b\[i\];/c[i] = 0.5f * (a[i] + b[i]);/' \
        "$BATS_TEST_TMPDIR/halved"
    run "$BATS_TEST_TMPDIR/halved" -n 1000 --only cpu,naive --reps 1 --warmup 0
    assert_failure 1
    refute_output --partial "checks nothing"
}
