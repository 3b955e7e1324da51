#!/usr/bin/env bats
# Lesson 01, vector add: every variant matches the CPU at awkward sizes, the
# table and the CSV say what the course promises, and without a GPU the
# nvcc build still runs the CPU version and exits 3.

setup() {
    load test_helper
}

CSV_HEADER="lesson,variant,scope,size,bytes,flops,reps,median_ms,min_ms,spread_pct,gbps,gflops,peak_gbps,peak_gflops,pct_peak,speedup,check,max_error,device,backend,driver,runtime,cpu_threads,cache"

# Runs lesson01 at size n (quickly) and asserts that all four GPU rows PASS.
assert_every_variant_passes() {
    local n="$1"
    shift
    use_gpu_build
    run "$BUILD/lesson01" -n "$n" --reps 2 --warmup 1 --csv "$@"
    assert_success
    assert_line --index 0 "$CSV_HEADER"
    assert_line --regexp "^lesson01,cpu,host,$n,.*,REF,"
    assert_line --regexp "^lesson01,naive,end-to-end,$n,.*,PASS,"
    assert_line --regexp "^lesson01,naive,kernel,$n,.*,PASS,"
    assert_line --regexp "^lesson01,optimized,kernel,$n,.*,PASS,"
    assert_line --regexp "^lesson01,optimized,end-to-end,$n,.*,PASS,"
    assert_equal "${#lines[@]}" 6
}

@test "lesson01 passes every variant with a single element" {
    assert_every_variant_passes 1
}

@test "lesson01 passes every variant at 2, 3 and 5 elements, shorter than one float4" {
    for n in 2 3 5; do
        assert_every_variant_passes "$n"
    done
}

@test "lesson01 passes every variant at a block size plus and minus one (255, 257)" {
    assert_every_variant_passes 255
    assert_every_variant_passes 257
}

@test "lesson01 passes every variant at 2^k plus and minus one (1023, 1025, 65537)" {
    assert_every_variant_passes 1023
    assert_every_variant_passes 1025
    assert_every_variant_passes 65537
}

@test "lesson01 passes every variant at a prime size (1000003)" {
    assert_every_variant_passes 1000003
}

@test "lesson01's kernels stay inside their arrays at awkward sizes in every thread order" {
    [ -d "$EMU_BUILD" ] || skip "no emulator build in $EMU_BUILD"
    # guard mode: every device array ends at a protected page, so a read or write past its end
    # stops the program; poison mode: memory starts as NaN, so a skipped element fails the check
    for order in forward reverse random:2024; do
        for n in 1 5 257 4099; do
            CUDA_EMU_GUARD=1 CUDA_EMU_POISON=1 CUDA_EMU_ORDER=$order \
                run "$EMU_BUILD/lesson01" -n "$n" --reps 1 --warmup 0 --csv
            assert_success
            assert_equal "$(grep -c ',PASS,' <<<"$output")" 4
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
    assert_line --partial "problem  n = 100000 elements per vector; moves 1.2 MB"
    assert_line --regexp "^variant +time covers +median ms +min ms +GB/s +GFLOP/s +% peak +speedup +check$"
    assert_line --regexp "^cpu +host .* 1\.00x +reference"
    assert_line --regexp "^naive +end-to-end .* PASS \(max error 0\)"
    assert_line --regexp "^optimized +kernel .* PASS \(max error 0\)"
    assert_line "all checks passed"
}

@test "lesson01 labels emulated times as CPU emulation, not GPU times" {
    [ -d "$EMU_BUILD" ] || skip "no emulator build in $EMU_BUILD"
    run "$EMU_BUILD/lesson01" -n 1000 --reps 1 --warmup 0
    assert_success
    assert_line --partial "its times are CPU emulation times, not GPU times"
}

@test "lesson01 --csv rows have every documented column with numbers where numbers belong" {
    use_gpu_build
    run "$BUILD/lesson01" -n 4099 --reps 3 --warmup 1 --csv
    assert_success
    local columns
    columns=$(field_count "$CSV_HEADER")
    for line in "${lines[@]:1}"; do
        assert_equal "$(field_count "$line")" "$columns"
        # size, bytes, flops, reps, median_ms, min_ms, spread_pct, gbps, gflops: columns 4 to 12
        IFS=, read -r -a field <<<"$line"
        for i in 3 4 5 6 7 8 9 10 11; do
            [[ "${field[$i]}" =~ ^[0-9]+(\.[0-9]+)?$ ]] || fail "column $((i + 1)) of '$line' is not a number"
        done
        assert_equal "${field[3]}" 4099
        assert_equal "${field[4]}" $((3 * 4 * 4099))
        assert_equal "${field[5]}" 4099
        assert_equal "${field[6]}" 3
    done
}

@test "lesson01 --only naive runs the naive variant alone, still checked against the CPU" {
    use_gpu_build
    run "$BUILD/lesson01" -n 1000 --only naive --reps 1 --warmup 0 --csv
    assert_success
    assert_equal "${#lines[@]}" 3
    assert_line --index 1 --regexp "^lesson01,naive,end-to-end,1000,"
    assert_line --index 2 --regexp "^lesson01,naive,kernel,1000,.*,PASS,"
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

@test "lesson01's GB/s, GFLOP/s and speedup follow from the bytes, flops and times in its CSV" {
    use_gpu_build
    run "$BUILD/lesson01" -n 100000 --reps 3 --warmup 1 --csv
    assert_success
    # columns: 5 bytes, 6 flops, 8 median_ms, 11 gbps, 12 gflops, 16 speedup; within 1% (rounding)
    run awk -F , '
        function off(actual, expected) { return actual < 0.99 * expected || actual > 1.01 * expected }
        NR == 2 { cpu_ms = $8 }
        NR > 1 {
            if (off($11, $5 / ($8 * 1e6))) print "gbps", $0
            if (off($12, $6 / ($8 * 1e6))) print "gflops", $0
            if (off($16, cpu_ms / $8)) print "speedup", $0
        }' <<<"$output"
    assert_output ""
}

@test "a lesson whose kernel skips an element fails, naming the first wrong index" {
    [ -d "$EMU_BUILD" ] || skip "no emulator build in $EMU_BUILD"
    local source="$REPO/lessons/01-vector-add/vector_add.cu"
    sed 's/    if (i < n)$/    if (i < n - 1)/' "$source" >"$BATS_TEST_TMPDIR/vector_add.cu"
    ! cmp -s "$source" "$BATS_TEST_TMPDIR/vector_add.cu" || fail "the sed expression changed nothing"
    "$REPO/common/emu/emucc" -O2 -Xcompiler -fopenmp -I"$REPO/common" -o "$BATS_TEST_TMPDIR/broken" \
        "$BATS_TEST_TMPDIR/vector_add.cu" "$REPO/common/workbook.cu"
    run --separate-stderr "$BATS_TEST_TMPDIR/broken" -n 1000 --reps 1 --warmup 0
    assert_equal "$status" 1
    assert_line --regexp "^naive +kernel .* FAIL \(1 NaN/Inf where the CPU has a number\)$"
    assert_line --regexp "^optimized +kernel .* PASS \(max error 0\)$"
    assert_line "2 check(s) FAILED"
    [[ "$stderr" == *"lesson01: naive (kernel) FAIL: first mismatch at index 999: expected "*", got "*"nan"* ]] ||
        fail "stderr does not name the first mismatch: $stderr"
    run "$BATS_TEST_TMPDIR/broken" -n 1000 --reps 1 --warmup 0 --csv
    assert_line --regexp "^lesson01,naive,kernel,1000,.*,FAIL,inf,"
}
