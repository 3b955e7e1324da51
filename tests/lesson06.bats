#!/usr/bin/env bats
# tests/lesson06.bats - lesson 06 (occupancy) and the launch warnings that
# common/workbook.cu prints under every lesson's table. Under the emulator the
# device is a model of a real GPU (common/emu/runtime/models.cpp): an H100 SXM
# by default, 132 SMs each holding 2,048 threads in at most 32 blocks, whatever
# the number of worker threads; CUDA_EMU_DEVICE=t4 makes it a T4's 40 SMs of
# 1,024 threads in at most 16 blocks.

setup() {
    load test_helper
    [ -x "$EMU_BUILD/lesson06" ] || skip "no emulator build in $EMU_BUILD (run make test)"
    export CUDA_EMU_WORKERS=2
    LESSON_SOURCE="$REPO/lessons/06-occupancy/loop_test.cu"
}

@test "lesson06 passes every variant at its default size" {
    use_gpu_build
    run "$BUILD/lesson06" --reps 1 --warmup 0
    assert_success
    assert_line --regexp "^naive +kernel .* PASS"
    assert_line --regexp "^blocks64 +kernel .* PASS"
    assert_line --regexp "^optimized +kernel .* PASS"
    assert_line --regexp "^no-convert +kernel .* PASS"
}

@test "no-convert's sums are optimized's: its products, carried as doubles, stay exact" {
    # 65,536 results of 512 terms: products up to 3.3 x 10^7, past 2^24, where a float would round
    # them; both rows land at the same distance from the CPU's sums
    run --separate-stderr "$EMU_BUILD/lesson06" -n 65536x512 --only optimized,no-convert --reps 1 \
        --warmup 0 --csv --quiet-warnings
    assert_success
    assert_equal "$(csv_column check <<<"$output" | sort -u)" PASS
    local errors
    errors=$(csv_column max_error <<<"$output")
    [ "$(sort -u <<<"$errors" | wc -l)" -eq 1 ] || fail "the two rows' errors differ: $errors"
    # products carried as floats still pass the check (the sums are near 10^9), but the
    # comparison above tells them apart
    build_mutant lessons/06-occupancy/loop_test.cu \
        's/double product = (double)(i \* lane), growth = (double)(i \* WARP_SIZE);/float product = (float)(i * lane), growth = (float)(i * WARP_SIZE);/' \
        "$BATS_TEST_TMPDIR/mutant"
    run --separate-stderr "$BATS_TEST_TMPDIR/mutant" -n 65536x512 --only optimized,no-convert \
        --reps 1 --warmup 0 --csv --quiet-warnings
    assert_success
    errors=$(csv_column max_error <<<"$output")
    [ "$(sort -u <<<"$errors" | wc -l)" -eq 2 ] || fail "float products gave optimized's error: $errors"
}

@test "a no-convert kernel whose product grows by i, not 32 i, fails" {
    build_mutant lessons/06-occupancy/loop_test.cu \
        's/growth = (double)(i \* WARP_SIZE);/growth = (double)i;/' "$BATS_TEST_TMPDIR/mutant"
    run "$BATS_TEST_TMPDIR/mutant" -n 100x100 --only no-convert --reps 1 --warmup 0
    assert_failure 1
    assert_line --regexp "^no-convert +kernel .* FAIL "
}

@test "on the modelled H100 the article's launch leaves 92 of 132 SMs idle, word for word; optimized does not warn" {
    run "$EMU_BUILD/lesson06" --reps 1 --warmup 0
    assert_success
    assert_line "device   CPU emulation of NVIDIA H100 SXM5 80GB on 2 CPU threads: compute capability 9.0, 132 SMs,"
    assert_line "warning: naive: loop_thread_per_result launches 40 blocks of 256 threads on 132 SMs, so 92 SMs sit idle; try smaller blocks, or more threads with less work each (emulated device model)"
    assert_line "warning: blocks64: loop_thread_per_result's 157 blocks of 64 threads fill 4% of one wave (4224 blocks); try more threads, each with less work (emulated device model)"
    assert_line "warning: ilp: loop_warp_per_result_ilp's 132 blocks of 256 threads fill 12% of one wave (1056 blocks); try more threads, each with less work (emulated device model)"
    refute_output --partial "warning: optimized"
    [ "$(grep -c '^warning:' <<<"$output")" -eq 3 ] || fail "expected 3 warnings: $output"
    # the same whatever the number of worker threads
    CUDA_EMU_WORKERS=1 run "$EMU_BUILD/lesson06" --only naive --reps 1 --warmup 0
    assert_line "device   CPU emulation of NVIDIA H100 SXM5 80GB on 1 CPU thread: compute capability 9.0, 132 SMs,"
    assert_line "warning: naive: loop_thread_per_result launches 40 blocks of 256 threads on 132 SMs, so 92 SMs sit idle; try smaller blocks, or more threads with less work each (emulated device model)"
}

@test "CUDA_EMU_DEVICE=t4 gives a T4's header, waves, occupancy choice and FP64 rate" {
    # 40 SMs of 1,024 threads: 4 blocks of 256 a wave each (160), 16 of 64 (640); the
    # occupancy API's 1,024-thread blocks, one per SM
    CUDA_EMU_DEVICE=t4 run --separate-stderr "$EMU_BUILD/lesson06" --reps 1 --warmup 0
    assert_success
    assert_line "device   CPU emulation of NVIDIA T4 on 2 CPU threads: compute capability 7.5, 40 SMs,"
    assert_line "warning: naive: loop_thread_per_result's 40 blocks of 256 threads fill 25% of one wave (160 blocks); try more threads, each with less work (emulated device model)"
    assert_line "warning: blocks64: loop_thread_per_result's 157 blocks of 64 threads fill 25% of one wave (640 blocks); try more threads, each with less work (emulated device model)"
    [[ "$stderr" == *"lesson06: optimized runs 40 blocks of 1024 threads (the occupancy API's choice)"* ]] ||
        fail "stderr: $stderr"
    [[ "$stderr" == *"lesson06: the modelled GPU runs FP64 at 1/32 of its FP32 rate (the times here are the CPU's)"* ]] ||
        fail "stderr: $stderr"
    [[ "$stderr$output" != *"SMs sit idle"* ]] || fail "40 blocks on 40 SMs leave none idle: $stderr"
}

@test "an unknown CUDA_EMU_DEVICE is refused in one line that names the known ones" {
    CUDA_EMU_DEVICE=h200 run --separate-stderr "$EMU_BUILD/lesson06" --reps 1 --warmup 0
    assert_equal "$status" 2
    assert_equal "$stderr" "cuda-emu: CUDA_EMU_DEVICE=h200 is not understood; expected t4, a100, rtx3060, rtx4090, l4 or h100"
}

@test "a kernel with many registers warns that registers limit its occupancy" {
    # 255 registers a thread (the most a GPU allows): 8,192 a warp (255 x 32, in units of 256),
    # 2 warps in each of the SM's 4 sub-partitions of 16,384: 8 warps, 1 block of 256 threads
    CUDA_EMU_REGISTERS=255 run "$EMU_BUILD/lesson06" -n 1000x2 --only naive --reps 1 --warmup 0
    assert_success
    assert_line "warning: naive: loop_thread_per_result's theoretical occupancy is 12% (8 of 64 warps per SM), below 25%; limited by registers per thread: fewer registers (__launch_bounds__) or smaller blocks (emulated device model)"
}

@test "a kernel that spills registers to local memory is warned about" {
    CUDA_EMU_LOCAL_BYTES=64 run "$EMU_BUILD/lesson06" -n 1000x2 --only naive --reps 1 --warmup 0
    assert_success
    assert_line "warning: naive: loop_thread_per_result uses 64 bytes of local memory per thread (register spills or a local array); check nvcc -Xptxas -v, fewer live values (emulated device model)"
    CUDA_EMU_LOCAL_BYTES=1 run "$EMU_BUILD/lesson06" -n 1000x2 --only naive --reps 1 --warmup 0
    assert_line --regexp "^warning: naive: loop_thread_per_result uses 1 byte of local memory per thread "
    run "$EMU_BUILD/lesson06" -n 1000x2 --only naive --reps 1 --warmup 0
    refute_output --partial "local memory"
}

@test "a launch of one block of one thread is warned about in the singular" {
    [ -x "$EMU_BUILD/lesson07" ] || skip "no lesson07 build"
    run "$EMU_BUILD/lesson07" --part lucas -n 5 --reps 1 --warmup 0
    assert_success
    assert_line "warning: one-thread: lucas_one_thread launches 1 block of 1 thread on 132 SMs, so 131 SMs sit idle; try smaller blocks, or more threads with less work each (emulated device model)"
}

@test "under the emulator lesson06 gives the modelled GPU's FP64 rate: 1/2 on an H100, 1/64 on a GeForce" {
    run --separate-stderr "$EMU_BUILD/lesson06" -n 100x2 --reps 1 --warmup 0
    assert_success
    [[ "$stderr" == *"lesson06: the modelled GPU runs FP64 at 1/2 of its FP32 rate (the times here are the CPU's)"* ]] ||
        fail "stderr: $stderr"
    CUDA_EMU_DEVICE=rtx3060 run --separate-stderr "$EMU_BUILD/lesson06" -n 100x2 --reps 1 --warmup 0
    [[ "$stderr" == *"lesson06: the modelled GPU runs FP64 at 1/64 of its FP32 rate (the times here are the CPU's)"* ]] ||
        fail "stderr: $stderr"
}

@test "lesson06's rows are held to the FP64 peak: lesson01's FP32 peak over the device's ratio" {
    use_gpu_build
    # peak_gflops of LESSON's naive kernel row in the CSV on stdin
    peak_of() { csv_column peak_gflops <<<"$(grep -E "^(lesson,|$1,naive,kernel,)")"; }
    run --separate-stderr "$BUILD/lesson06" -n 1009x100 --only naive --reps 1 --warmup 0 --csv
    assert_success
    local fp64_peak ratio
    assert_line --regexp "^lesson06,naive,kernel,"
    fp64_peak=$(peak_of lesson06 <<<"$output")
    ratio=$(sed -n 's/^lesson06: .* runs FP64 at 1\/\([0-9]*\) of its FP32 rate.*/\1/p' <<<"$stderr")
    [ -n "$ratio" ] || fail "no FP64 rate on stderr: $stderr"
    run --separate-stderr "$BUILD/lesson01" -n 4099 --only naive --reps 1 --warmup 0 --csv
    assert_success
    local fp32_peak
    assert_line --regexp "^lesson01,naive,kernel,"
    fp32_peak=$(peak_of lesson01 <<<"$output")
    if [ "$BUILD" = "$EMU_BUILD" ]; then
        # the emulator has no peaks: both empty, none made up
        assert_equal "$fp32_peak" ""
        assert_equal "$fp64_peak" ""
    else
        awk -v fp32="$fp32_peak" -v fp64="$fp64_peak" -v ratio="$ratio" \
            'BEGIN { exit !(fp64 > 0 && (fp32 / ratio - fp64) ^ 2 < (fp64 * 1e-5) ^ 2) }' ||
            fail "lesson06's peak $fp64_peak GFLOP/s is not lesson01's $fp32_peak / $ratio"
    fi
}

@test "a well-sized launch gets no warning" {
    # on a T4 (the smallest wave to run), 40,960 results in 64-thread blocks: exactly one wave,
    # 16 blocks per SM x 40 SMs (ilp launches one block per SM on purpose: it is warned about)
    CUDA_EMU_DEVICE=t4 run "$EMU_BUILD/lesson06" -n 40960x1 --reps 1 --warmup 0 --threads-per-block 64 \
        --only naive,optimized,blocks64
    assert_success
    refute_output --partial "warning:"
}

@test "a mostly empty last wave warns with the idle share" {
    # 265 blocks of 1,024 threads; a wave is 2 per SM x 132 SMs = 264: the second holds 1
    run "$EMU_BUILD/lesson06" -n 270337x1 --threads-per-block 1024 --only naive --reps 1 --warmup 0
    assert_success
    assert_line "warning: naive: loop_thread_per_result's last of 2 waves holds 1 of 264 blocks: 50% of its SM time idles; try a grid of whole waves (grid-stride loop) (emulated device model)"
}

@test "a kernel's static __shared__ memory counts in the waves: lesson03's registers, 48 KiB a block, 4 per SM" {
    # 23 x 23 = 529 blocks of 128 threads (112 x 32 cells each); the threads alone would let 16
    # blocks share an SM (a wave of 2,112), the 48 KiB of static shared memory 4 (a wave of 528)
    run "$EMU_BUILD/lesson03" -n 2500x720 --steps 2 --only registers --reps 1 --warmup 0
    assert_success
    assert_line "warning: registers: diffuse_registers's last of 2 waves holds 1 of 528 blocks: 50% of its SM time idles; try a grid of whole waves (grid-stride loop) (emulated device model)"
}

@test "low theoretical occupancy warns and names shared memory as the limit" {
    # 40,000 bytes of dynamic shared memory per 32-thread block, 1 KiB more reserved, in units of
    # 128 bytes: 5 blocks in 228 KiB, 5 of 64 warps per SM
    build_mutant lessons/06-occupancy/loop_test.cu \
        's/<<<blocks_per_grid, (int)threads_per_block>>>/<<<blocks_per_grid, (int)threads_per_block, 40000>>>/' \
        "$BATS_TEST_TMPDIR/mutant"
    run "$BATS_TEST_TMPDIR/mutant" -n 1000x2 --threads-per-block 32 --only naive --reps 1 --warmup 0
    assert_success
    assert_line --regexp "^warning: naive: loop_thread_per_result's theoretical occupancy is 8% \(5 of 64 warps per SM\), below 25%; limited by shared memory per block: .*\(emulated device model\)$"
}

@test "ilp's deliberately low occupancy is warned about, as Volkov's point expects" {
    run "$EMU_BUILD/lesson06" -n 4096x2 --only ilp --reps 1 --warmup 0
    assert_success
    assert_line "warning: ilp: loop_warp_per_result_ilp's 132 blocks of 256 threads fill 12% of one wave (1056 blocks); try more threads, each with less work (emulated device model)"
}

@test "--quiet-warnings silences the warnings" {
    run "$EMU_BUILD/lesson06" -n 100x10 --reps 1 --warmup 0 --quiet-warnings
    assert_success
    refute_output --partial "warning:"
}

@test "with --csv the warnings go to stderr and stdout stays CSV" {
    run --separate-stderr "$EMU_BUILD/lesson06" -n 100x10 --reps 1 --warmup 0 --csv
    assert_success
    refute_output --partial "warning:"
    [[ "$stderr" == *"warning: naive: loop_thread_per_result launches 1 block"* ]] || fail "stderr: $stderr"
}

@test "lesson01's launches are warned about too, without a change to lesson01" {
    [ -x "$EMU_BUILD/lesson01" ] || skip "no lesson01 build"
    run "$EMU_BUILD/lesson01" -n 100 --reps 1 --warmup 0
    assert_success
    assert_line --regexp "^warning: naive: vector_add_naive launches 1 block of 256 threads on 132 SMs"
}

@test "optimized takes its block size from the occupancy API and says so" {
    run --separate-stderr "$EMU_BUILD/lesson06" -n 1000x10 --only optimized --reps 1 --warmup 0
    assert_success
    # 1,024 threads per block hold the most threads per SM on the modelled H100
    # (ties go to the larger block); 1,000 results take 32 blocks of 32 warps,
    # fewer than one wave (2 blocks per SM x 132 SMs)
    [[ "$stderr" == *"optimized runs 32 blocks of 1024 threads (the occupancy API's choice)"* ]] ||
        fail "stderr: $stderr"
}

@test "a kernel that writes NaN into one result fails, naming it" {
    # the one-thread-per-result kernel's store (the CPU's is indented deeper)
    build_mutant lessons/06-occupancy/loop_test.cu \
        's/^    results\[i\] = sum;/    results[i] = i == 5 ? 0.0 \/ 0.0 : sum;/' "$BATS_TEST_TMPDIR/mutant"
    run --separate-stderr "$BATS_TEST_TMPDIR/mutant" -n 100x10 --only naive --reps 1 --warmup 0
    assert_equal "$status" 1
    [[ "$stderr" == *"naive (kernel) FAIL: results: first mismatch at (row 0, column 5): expected "*", got "*"nan"* ]] || fail "stderr: $stderr"
}

@test "lesson06 passes in reverse and random block order, with guarded and poisoned memory" {
    for size in 33x7 257x33; do
        CUDA_EMU_ORDER=reverse run "$EMU_BUILD/lesson06" -n $size --reps 1 --warmup 0
        assert_success
        CUDA_EMU_ORDER=random:7 run "$EMU_BUILD/lesson06" -n $size --reps 1 --warmup 0
        assert_success
        CUDA_EMU_GUARD=1 CUDA_EMU_POISON=1 run "$EMU_BUILD/lesson06" -n $size --reps 1 --warmup 0
        assert_success
    done
}

# ---- exercise 06 ----------------------------------------------------------------

# Builds a changed copy of the worked solution with the checker: $1 = sed expression.
build_solution_mutant() {
    local solution="$REPO/solutions/06-occupancy/exercise.cu"
    sed "$1" "$solution" >"$BATS_TEST_TMPDIR/exercise.cu"
    ! cmp -s "$solution" "$BATS_TEST_TMPDIR/exercise.cu" || fail "the sed expression changed nothing"
    # the checker and common/ as make test-programs built them
    "$REPO/common/emu/emucc" -O2 -std=c++20 -Xcompiler -fopenmp -I"$REPO/common" \
        -o "$BATS_TEST_TMPDIR/checker" "$BATS_TEST_TMPDIR/exercise.cu" \
        "$EMU_BUILD/lessons/06-occupancy/exercise_check.o" "$EMU_BUILD/common/workbook.o"
}

@test "the untouched exercise06 skeleton reports not implemented yet" {
    use_gpu_build
    run "$BUILD/exercise06"
    assert_equal "$status" 1
    assert_line --partial "exercise06: not implemented yet"
}

@test "the worked solution of exercise06 passes at every size" {
    run "$EMU_BUILD/solution06"
    assert_success
    # 300,007 results: one wave of 1,024-thread blocks, 2 per SM x 132 SMs
    assert_line "  n = 300007  PASS: 264 blocks of 1024 threads"
    assert_line "exercise06: PASS (all 4 sizes)"
}

@test "exercise06's checker catches a grid of one block that leaves SMs idle" {
    build_solution_mutant 's/needed < min_grid_size ? needed : min_grid_size/needed < min_grid_size ? needed : 1/'
    run "$BATS_TEST_TMPDIR/checker"
    assert_equal "$status" 1
    assert_line "  n = 300007  FAIL: 1 block of 1024 threads leaves the device part idle: one wave is 264 blocks (2 per SM x 132 SMs), the results need 293"
    assert_line "exercise06: FAIL (1 of 4 sizes wrong)"
}

@test "exercise06's checker catches a grid of a full wave where the results need fewer blocks" {
    # TODO 2 left out: always min_grid_size, 264 blocks on the modelled H100, even for 1 result
    build_solution_mutant 's/needed < min_grid_size ? needed : min_grid_size/min_grid_size/'
    run "$BATS_TEST_TMPDIR/checker"
    assert_equal "$status" 1
    assert_line "  n = 1       FAIL: 264 blocks of 1024 threads for 1 result: 1 block would do, and 263 start with nothing to compute"
    assert_line "  n = 1000    FAIL: 264 blocks of 1024 threads for 1000 results: 1 block would do, and 263 start with nothing to compute"
    assert_line "  n = 300007  PASS: 264 blocks of 1024 threads"
    assert_line "exercise06: FAIL (3 of 4 sizes wrong)"
}

@test "exercise06's checker catches a block size that is not a whole number of warps" {
    build_solution_mutant 's/^    long long needed = /    config.threads_per_block = 1000;\n    long long needed = /'
    run "$BATS_TEST_TMPDIR/checker"
    assert_equal "$status" 1
    assert_line "  n = 1       FAIL: 1000 threads per block: expected a multiple of 32 up to 1024"
}

@test "exercise06's checker catches a launch that skips the last result" {
    build_solution_mutant 's/(d_results, result_count,$/(d_results, result_count - 1,/'
    run "$BATS_TEST_TMPDIR/checker"
    assert_equal "$status" 1
    assert_line --regexp "^  n = 1       FAIL: first wrong index 0: expected 0, got -?nan \(never written\)$"
    assert_line "exercise06: FAIL (4 of 4 sizes wrong)"
}

# ---- the block-size sweep -------------------------------------------------------

@test "plots/block-sweep.sh times the variants --threads-per-block sets at each block size and draws the chart" {
    command -v gnuplot >/dev/null || skip "gnuplot is not installed"
    BLOCK_SIZES="32 64" run sh "$REPO/plots/block-sweep.sh" "$EMU_BUILD/lesson06" "$BATS_TEST_TMPDIR/out" \
        -n 100x4 --reps 1 --warmup 0
    assert_success
    # the emulated device model's choice for the warp-per-result kernel
    assert_output --partial "(occupancy API's choice: 1024)"
    local csv="$BATS_TEST_TMPDIR/out/lesson06-block-sweep.csv"
    assert_equal "$(head -n 1 "$csv")" "threads_per_block,variant,median_ms"
    # lesson.conf's BLOCK_SWEEP_VARIANTS: blocks64 and ilp keep their own block size
    assert_equal "$(cut -d , -f 1,2 "$csv" | tail -n +2 | tr '\n' ' ')" \
        "32,naive 32,optimized 64,naive 64,optimized "
    [ -z "$(tail -n +2 "$csv" | cut -d , -f 3 | grep -v -E '^[0-9]+(\.[0-9]+)?(e-?[0-9]+)?$')" ] ||
        fail "a time is not a number: $(cat "$csv")"
    [ -s "$BATS_TEST_TMPDIR/out/lesson06-block-sweep.png" ] || fail "no chart was drawn"
}

@test "plots/block-sweep.sh takes the variants from an --only among the program's options" {
    command -v gnuplot >/dev/null || skip "gnuplot is not installed"
    use_gpu_build
    BLOCK_SIZES="32" run sh "$REPO/plots/block-sweep.sh" "$BUILD/lesson06" "$BATS_TEST_TMPDIR/out" \
        -n 100x4 --reps 1 --warmup 0 --only naive
    assert_success
    assert_equal "$(cut -d , -f 1,2 "$BATS_TEST_TMPDIR/out/lesson06-block-sweep.csv" | tail -n +2)" "32,naive"
}

@test "plots/block-sweep.sh without gnuplot still sweeps, writes the CSV and says no chart was drawn" {
    BLOCK_SIZES="32 64" GNUPLOT=/nonexistent/gnuplot run sh "$REPO/plots/block-sweep.sh" "$EMU_BUILD/lesson06" \
        "$BATS_TEST_TMPDIR/out" -n 100x4 --reps 1 --warmup 0
    assert_success
    assert_output --partial "(occupancy API's choice: 1024); /nonexistent/gnuplot not found, so no chart"
    assert_equal "$(cut -d , -f 1,2 "$BATS_TEST_TMPDIR/out/lesson06-block-sweep.csv" | tail -n +2 | tr '\n' ' ')" \
        "32,naive 32,optimized 64,naive 64,optimized "
    [ ! -e "$BATS_TEST_TMPDIR/out/lesson06-block-sweep.png" ]
}

@test "plots/block-sweep.sh refuses a program that is not there" {
    run sh "$REPO/plots/block-sweep.sh" "$BATS_TEST_TMPDIR/no-such-lesson" "$BATS_TEST_TMPDIR/out"
    assert_equal "$status" 2
    assert_output --partial "is not a program"
}
