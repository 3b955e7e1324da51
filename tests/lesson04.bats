#!/usr/bin/env bats
# Lesson 04, SGEMM: what is particular to this lesson. The generic contract
# (awkward sizes, bad inputs, CSV shape) is in contract.bats; the exercise's
# tests are at the end of this file.

setup_file() {
    # common/workbook.cu compiled once for the mutants below, each of which links with it
    if [ -x "$BATS_TEST_DIRNAME/../common/emu/emucc" ]; then
        "$BATS_TEST_DIRNAME/../common/emu/emucc" -O2 -std=c++20 -Xcompiler -fopenmp \
            -I"$BATS_TEST_DIRNAME/../common" -c "$BATS_TEST_DIRNAME/../common/workbook.cu" \
            -o "$BATS_FILE_TMPDIR/workbook.o"
    fi
}

setup() {
    load test_helper
}

@test "lesson04's kernels stay inside their matrices and need their barriers, in every thread order" {
    [ -d "$EMU_BUILD" ] || skip "no emulator build in $EMU_BUILD"
    # guard mode: a read or write past the end of A, B or C stops the program; poison mode:
    # memory starts as NaN, so an element nobody wrote fails the check; the thread orders: a
    # barrier left out shows as a wrong sum in one of them. 33x65x17 and 129x127x9 take the
    # register-tiled kernels' one-float path, 132x36x20 and 129x128x32 their float4 path
    # (129x128x32: two whole 16-deep k-tiles of warptiled); 1023x33x9 is tall and thin (eight
    # 128-row block tiles less one row), 3x5x4097 has a k one past a multiple of every tile's
    # depth.
    for order in forward reverse random:2024; do
        for size in 33x65x17 129x127x9 132x36x20 129x128x32 1023x33x9 3x5x4097; do
            CUDA_EMU_GUARD=1 CUDA_EMU_POISON=1 CUDA_EMU_ORDER=$order \
                run "$EMU_BUILD/lesson04" -n "$size" --reps 1 --warmup 0 --csv
            assert_success
            assert_equal "$(csv_column check <<<"$output" | grep -c -x PASS)" 5
        done
    done
}

@test "lesson04 reads -n as m x n x k and reports the FLOP and the least bytes" {
    use_gpu_build
    run "$BUILD/lesson04" -n 20x30x40 --reps 1 --warmup 0
    assert_success
    # 2 m n k = 48000 FLOP; 4 (m k + k n + m n) = 4 (800 + 1200 + 600) = 10400 bytes
    assert_line "problem  m x n x k (C is m x n, the sums k long) = 20x30x40; moves 10.4 kB, 4.8e+04 FLOP"
    assert_line --regexp "^naive +kernel .* PASS \(max err [0-9.e-]+\)$"
    assert_line --regexp "^tiled +kernel .* PASS \(max err [0-9.e-]+\)$"
    assert_line --regexp "^optimized +kernel .* PASS \(max err [0-9.e-]+\)$"
    assert_line --regexp "^warptiled +kernel .* PASS \(max err [0-9.e-]+\)$"
    assert_line --regexp "^swizzled +kernel .* PASS \(max err [0-9.e-]+\)$"
}

@test "lesson04 under the emulator skips cuBLAS, saying why, and still passes" {
    [ -d "$EMU_BUILD" ] || skip "no emulator build in $EMU_BUILD"
    run "$EMU_BUILD/lesson04" -n 17 --reps 1 --warmup 0
    assert_success
    assert_line --regexp "^cublas      skip: cuBLAS is not part of the CPU emulator$"
    assert_line "all 5 checks passed against the CPU reference: naive, tiled, optimized, warptiled, swizzled; skipped rows are no failure"
    run --separate-stderr "$EMU_BUILD/lesson04" -n 17 --only cublas --reps 1 --warmup 0 --csv
    assert_success
    assert_equal "$stderr" "lesson04: cublas skipped: cuBLAS is not part of the CPU emulator"
}

@test "lesson04 refuses shapes of the wrong rank and dimensions beyond the naive grid" {
    use_any_build
    run --separate-stderr "$BUILD/lesson04" -n 20x30
    assert_equal "$status" 2
    [[ "$stderr" == *"invalid value '20x30' for -n: expected MxNxK or N for NxNxN"* ]] || fail "$stderr"
    run --separate-stderr "$BUILD/lesson04" -n 600000x1x1
    assert_equal "$status" 2
    [[ "$stderr" == *"is out of range (each dimension 1 to 524280)"* ]] || fail "$stderr"
    run --separate-stderr "$BUILD/lesson04" -n 10x0x10
    assert_equal "$status" 2
    assert_equal "$(wc -l <<<"$stderr")" 1
}

# Builds lesson04 with one line changed (sed expression $1, emucc flags after it) for the
# emulator, into $BATS_TEST_TMPDIR/broken.
build_mutated_lesson() {
    [ -d "$EMU_BUILD" ] || skip "no emulator build in $EMU_BUILD"
    local source="$REPO/lessons/04-sgemm/sgemm.cu" expression="$1"
    shift
    sed "$expression" "$source" >"$BATS_TEST_TMPDIR/sgemm.cu"
    ! cmp -s "$source" "$BATS_TEST_TMPDIR/sgemm.cu" || fail "the sed expression changed nothing"
    "$REPO/common/emu/emucc" "$@" -O2 -std=c++20 -Xcompiler -fopenmp -I"$REPO/common" -o "$BATS_TEST_TMPDIR/broken" \
        "$BATS_TEST_TMPDIR/sgemm.cu" "$BATS_FILE_TMPDIR/workbook.o"
}

@test "a NaN written at one element of C fails, naming its row and column" {
    build_mutated_lesson 's/    c\[(size_t)row \* n + col\] = sum;/    c[(size_t)row * n + col] = row == 5 \&\& col == 7 ? nanf("") : sum;/'
    run --separate-stderr "$BATS_TEST_TMPDIR/broken" -n 17 --reps 1 --warmup 0
    assert_equal "$status" 1
    assert_line --regexp "^naive +kernel .* FAIL \(1 NaN/Inf\)$"
    assert_line --regexp "^optimized +kernel .* PASS "
    [[ "$stderr" == *"lesson04: naive (kernel) FAIL: c: first mismatch at (row 5, column 7): expected "*"got "*"nan"* ]] ||
        fail "stderr does not name the first mismatch: $stderr"
}

@test "the tolerance grows with k but not so far that a missing term passes" {
    # the naive kernel leaves out the last of the k products of every sum
    build_mutated_lesson 's/    for (int p = 0; p < k; p++)$/    for (int p = 0; p < k - 1; p++)/'
    for size in 31x33x129 64x64x512; do
        run --separate-stderr "$BATS_TEST_TMPDIR/broken" -n "$size" --only naive --reps 1 --warmup 0
        assert_equal "$status" 1
        assert_line --regexp "^naive +kernel .* FAIL "
    done
}

@test "the register-tiled kernels pass whether or not k and n allow float4 loads" {
    use_gpu_build
    # k % 4, n % 4: 0 0 (float4), 1 0, 0 3, 3 1, 2 2 (one float at a time): every remainder
    for variant in optimized warptiled swizzled; do
        for size in 130x132x16 130x132x17 130x131x16 130x129x19 130x130x18; do
            run --separate-stderr "$BUILD/lesson04" -n "$size" --only "$variant" --reps 1 --warmup 0 --csv
            assert_success
            assert_equal "${#lines[@]}" 2
            assert_line --index 1 --regexp "^lesson04,$variant,kernel,$size,.*,PASS,"
        done
    done
}

@test "warptiled's one barrier a step is needed: without it the thread orders fail and --sanitize names the race" {
    local barrier='/the one barrier: stage ^ 1 is complete/{n;d}'
    build_mutated_lesson "$barrier"
    for order in forward reverse; do
        CUDA_EMU_ORDER=$order run "$BATS_TEST_TMPDIR/broken" -n 33x65x17 --only cpu,warptiled --reps 1 --warmup 0
        assert_equal "$status" 1
        assert_line --regexp "^warptiled +kernel .* FAIL \(max err "
    done
    build_mutated_lesson "$barrier" --sanitize
    run "$BATS_TEST_TMPDIR/broken" -n 33x65x17 --only cpu,warptiled --reps 1 --warmup 0
    assert_failure
    # a read of a stage in the product loop, and a store of the next k-tile into a stage
    local reads writes
    reads=$(grep -n 'unpack_four(\*(const float4 \*)&[ab]_tiles\[stage\]' "$BATS_TEST_TMPDIR/sgemm.cu" | cut -d: -f1 | paste -sd '|')
    writes=$(grep -n -e 'column_top\[.*\] = values' -e '(float4 \*)&b_tile\[' "$BATS_TEST_TMPDIR/sgemm.cu" | cut -d: -f1 | paste -sd '|')
    assert_line --regexp "^cuda-emu: data race on shared memory in kernel sgemm_warptiled<false>, "
    assert_line --regexp "^cuda-emu:   thread .* reads at .*/sgemm.cu:($reads)$"
    assert_line --regexp "^cuda-emu:   thread .* writes at .*/sgemm.cu:($writes)$"
}

@test "warptiled needs its second stage: the next k-tile stored into the one being read fails" {
    build_mutated_lesson 's/store_wide_tiles<SWIZZLED>(a_tiles\[stage ^ 1\], b_tiles\[stage ^ 1\]/store_wide_tiles<SWIZZLED>(a_tiles[stage], b_tiles[stage]/'
    # one k-tile only (k = 16): nothing is stored after the math, and it still passes
    run "$BATS_TEST_TMPDIR/broken" -n 40x40x16 --only cpu,warptiled --reps 1 --warmup 0
    assert_success
    for order in forward reverse; do
        CUDA_EMU_ORDER=$order run "$BATS_TEST_TMPDIR/broken" -n 40x40x17 --only cpu,warptiled --reps 1 --warmup 0
        assert_equal "$status" 1
        assert_line --regexp "^warptiled +kernel .* FAIL \(max err "
    done
}

@test "a warptiled that leaves out a last, partial k-tile fails at k = 17 and 33, not at 16 or 32" {
    # the next k-tile is loaded only when it is whole
    build_mutated_lesson 's/bool more = tile_start + WIDE_BLOCK_K < k;/bool more = tile_start + 2 * WIDE_BLOCK_K <= k;/'
    for size in 20x24x16 20x24x32 20x23x16; do
        run "$BATS_TEST_TMPDIR/broken" -n "$size" --only cpu,warptiled --reps 1 --warmup 0
        assert_success
    done
    for size in 20x24x17 20x23x33; do
        run --separate-stderr "$BATS_TEST_TMPDIR/broken" -n "$size" --only cpu,warptiled --reps 1 --warmup 0
        assert_equal "$status" 1
        assert_line --regexp "^warptiled +kernel .* FAIL \(max err "
    done
}

@test "swizzled's loads must find A where its stores put it: a load without the swizzle fails" {
    # the stores still swizzle: every other group of 4 columns of A's tile reads rows 16 apart
    build_mutated_lesson 's/\[a_tile_row<SWIZZLED>(p, thread_row + s \* SUB_TILE_ROWS)\]/[thread_row + s * SUB_TILE_ROWS]/'
    run "$BATS_TEST_TMPDIR/broken" -n 40x40x17 --only cpu,warptiled,swizzled --reps 1 --warmup 0
    assert_equal "$status" 1
    assert_line --regexp "^warptiled +kernel .* PASS "
    assert_line --regexp "^swizzled +kernel .* FAIL \(max err "
}

@test "lesson04 --seed-problem: the column sums of A.B, fused and reassociated, cuBLAS skipped here" {
    [ -d "$EMU_BUILD" ] || skip "no emulator build in $EMU_BUILD"
    for order in forward reverse; do
        CUDA_EMU_GUARD=1 CUDA_EMU_ORDER=$order run "$EMU_BUILD/lesson04" --seed-problem -n 37x45x19 --reps 1 --warmup 0
        assert_success
        assert_line --index 0 "lesson04: column sums of A.B: fused and cublas do 2mnk FLOP, reassociated mk + 2kn"
        assert_line --regexp "^problem  m x n x k \(the article: 10000x7000x5000\) = 37x45x19;"
        assert_line --regexp "^fused +kernel .* PASS \(max err [0-9.e-]+\)$"
        assert_line --regexp "^reassociated +kernel .* PASS \(max err [0-9.e-]+\)$"
        assert_line --regexp "^cublas      skip: cuBLAS is not part of the CPU emulator$"
    done
}

@test "lesson04 --seed-problem says under the table what each variant really does" {
    [ -d "$EMU_BUILD" ] || skip "no emulator build in $EMU_BUILD"
    run "$EMU_BUILD/lesson04" --seed-problem -n 20x30x40 --reps 1 --warmup 0
    assert_success
    # 2mnk = 48000; fused: 2mnk + mn = 48600 FLOP, 4 (mk + kn + n) = 8120 bytes;
    # cublas: 4 (mk + kn + 2mn + n) = 12920 bytes; reassociated: mk + 2kn = 3200 FLOP,
    # 4 (mk + 2k + kn + n) = 8440 bytes
    assert_line "work: every row's rates count 4.8e+04 FLOP (2mnk) and 0.00812 MB (A, B, the sums);"
    assert_line --regexp "^  fused +2mnk \+ mn +4\.86e\+04 FLOP +0\.00812 MB  [0-9.e+-]+ GFLOP/s, [0-9.e+-]+ GB/s$"
    assert_line --regexp "^  cublas +2mnk \+ mn +4\.86e\+04 FLOP +0\.01292 MB  not run$"
    assert_line --regexp "^  reassociated +mk \+ 2kn +3\.2e\+03 FLOP +0\.00844 MB  [0-9.e+-]+ GFLOP/s, [0-9.e+-]+ GB/s$"
}

@test "the seed problem's check catches a row of A left out of every chunk of its column sums" {
    # column_sums skips the last row of each 256-row chunk: one row of A lost in 256 or fewer
    build_mutated_lesson 's/    for (int row = first; row < last; row++)$/    for (int row = first; row < last - 1; row++)/'
    for size in 300x200x100 2000x50x2000; do
        run --separate-stderr "$BATS_TEST_TMPDIR/broken" --seed-problem -n "$size" --only cpu,reassociated --reps 1 --warmup 0
        assert_equal "$status" 1
        assert_line --regexp "^reassociated +kernel .* FAIL \(max err "
        [[ "$stderr" == *"lesson04: reassociated (kernel) FAIL: sums: first mismatch at index 0: "* ]] || fail "$stderr"
    done
    # the fused kernel does not use column_sums: it still passes
    run "$BATS_TEST_TMPDIR/broken" --seed-problem -n 37x45x19 --only cpu,fused --reps 1 --warmup 0
    assert_success
}

@test "lesson04 --seed-problem runs its default size and lists its own variants in --help" {
    use_gpu_build
    run "$BUILD/lesson04" --seed-problem --help
    assert_success
    assert_line --regexp "^  fused +.+ \[kernel\]$"
    assert_line --regexp "^  reassociated +.+ \[kernel\]$"
    assert_output --partial "--seed-problem"
    run "$BUILD/lesson04" --help
    assert_line --regexp "^  tiled +.+ \[kernel\]$"
    assert_output --partial "--seed-problem"
    run "$BUILD/lesson04" --seed-problem --reps 1 --warmup 0 --csv
    assert_success
    assert_line --regexp "^lesson04,fused,kernel,300x200x100,.*,PASS,"
    assert_line --regexp "^lesson04,reassociated,kernel,300x200x100,.*,PASS,"
}

@test "lesson04 built by nvcc, cuBLAS linked, runs the CPU version without a GPU and exits 3" {
    [ "$GPU_COUNT" -eq 0 ] || skip "a GPU is present, so the nvcc build runs on it"
    [ -x "$CUDA_BUILD/lesson04" ] || skip "no nvcc build in $CUDA_BUILD (nvcc not installed?)"
    run --separate-stderr "$CUDA_BUILD/lesson04" -n 64 --reps 1 --warmup 0
    assert_equal "$status" 3
    assert_line --regexp "^cpu +host "
    refute_line --regexp "^cublas"
    run ldd "$CUDA_BUILD/lesson04"
    assert_output --partial "libcublas"
}

# ---- exercise 04 -------------------------------------------------------------------

@test "the untouched exercise04 skeleton reports not implemented yet" {
    use_gpu_build
    run "$BUILD/exercise04"
    assert_failure 1
    assert_line --partial "exercise04: not implemented yet"
}

@test "the worked solution of exercise04 passes in every thread order" {
    use_gpu_build
    for order in forward reverse random:7; do
        CUDA_EMU_ORDER=$order run "$BUILD/solution04"
        assert_success
        assert_line "  1x1x1     PASS"
        assert_line "  70x3x129  PASS"
        assert_line "exercise04: PASS (all 8 shapes)"
    done
}

# Builds the solution with one line changed (sed expression $1, emucc flags after it)
# together with the checker, for the emulator, into $BATS_TEST_TMPDIR/mutant.
build_mutated_solution() {
    use_gpu_build
    [ "$BUILD" = "$EMU_BUILD" ] || skip "mutants are built with the emulator"
    local expression="$1"
    shift
    sed "$expression" "$REPO/solutions/04-sgemm/exercise.cu" >"$BATS_TEST_TMPDIR/exercise.cu"
    ! cmp -s "$BATS_TEST_TMPDIR/exercise.cu" "$REPO/solutions/04-sgemm/exercise.cu" ||
        fail "the sed expression changed nothing"
    "$REPO/common/emu/emucc" "$@" -O2 -std=c++20 -Xcompiler -fopenmp -I"$REPO/common" \
        -o "$BATS_TEST_TMPDIR/mutant" "$BATS_TEST_TMPDIR/exercise.cu" \
        "$REPO/lessons/04-sgemm/exercise_check.cu" "$BATS_FILE_TMPDIR/workbook.o"
}

@test "exercise04's checker catches the barrier after the loads left out, in any order" {
    build_mutated_solution '/the tiles are complete before anyone reads them/d'
    for order in forward reverse; do
        CUDA_EMU_ORDER=$order run "$BATS_TEST_TMPDIR/mutant"
        assert_failure 1
        assert_line --regexp "^  17x17x17  FAIL: first wrong element \(row [0-9]+, column [0-9]+\): "
        assert_line --regexp "^exercise04: FAIL \([0-9] of 8 shapes wrong\)$"
    done
}

@test "exercise04's checker catches the barrier after the sums left out" {
    build_mutated_solution '/nobody overwrites a tile another thread still reads/d'
    for order in forward reverse; do
        CUDA_EMU_ORDER=$order run "$BATS_TEST_TMPDIR/mutant"
        assert_failure 1
        assert_line --regexp "^  48x32x80  FAIL: first wrong element "
    done
}

@test "emucc --sanitize names the race of a missing barrier with both lines" {
    build_mutated_solution '/the tiles are complete before anyone reads them/d' --sanitize
    run "$BATS_TEST_TMPDIR/mutant"
    assert_failure
    # the read in the product loop, and the write of a tile element (of A or of B)
    local read writes
    read=$(grep -n 'sum += a_tile' "$BATS_TEST_TMPDIR/exercise.cu" | cut -d: -f1)
    writes=$(grep -n '_tile\[threadIdx.y\]\[threadIdx.x\] = ' "$BATS_TEST_TMPDIR/exercise.cu" | cut -d: -f1 | paste -sd '|')
    assert_line --regexp "^cuda-emu: data race on shared memory in kernel sgemm_tiled_exercise, "
    assert_line --regexp "^cuda-emu:   thread .* reads at .*/exercise.cu:$read$"
    assert_line --regexp "^cuda-emu:   thread .* writes at .*/exercise.cu:($writes)$"
    assert_output --partial "put a __syncthreads() between the write and the read"
}

@test "exercise04's checker catches a tile of A read past the last column, past the end of A" {
    build_mutated_solution 's/row < m \&\& a_col < k ?/row < m ?/'
    run "$BATS_TEST_TMPDIR/mutant"
    assert_failure 1
    assert_line "  16x16x16  PASS"
    assert_line --regexp "^  70x3x129  FAIL: first wrong element \(row 69, column 0\): expected -?[0-9.e-]+, got nan$"
}

@test "exercise04's checker catches a tile of B read past the last row" {
    build_mutated_solution 's/b_row < k \&\& col < n ?/col < n ?/'
    run "$BATS_TEST_TMPDIR/mutant"
    assert_failure 1
    assert_line "  16x16x16  PASS"
    assert_line --regexp "^  17x17x17  FAIL: first wrong element \(row 0, column 0\): expected -?[0-9.e-]+, got nan$"
}

@test "exercise04's checker catches a store without its row check, past the end of C" {
    build_mutated_solution 's/    if (row < m \&\& col < n)$/    if (col < n)/'
    run "$BATS_TEST_TMPDIR/mutant"
    assert_failure 1
    assert_line "  16x16x16  PASS"
    # the edge blocks' 15 rows past the last one, 17 columns each but the last block's 2
    assert_line "  17x17x17  FAIL: wrote 255 elements past the end of C (the first where row 17, column 0 would be)"
    assert_line "exercise04: FAIL (6 of 8 shapes wrong)"
}

@test "exercise04's checker catches a store without its column check, past the end of C" {
    build_mutated_solution 's/    if (row < m \&\& col < n)$/    if (row < m)/'
    run "$BATS_TEST_TMPDIR/mutant"
    assert_failure 1
    # the last row's thread in column 15, one past the last, writes where row 33 would start
    assert_line "  33x15x47  FAIL: wrote 1 element past the end of C (the first where row 33, column 0 would be)"
    assert_line "  1x40x100  FAIL: wrote 8 elements past the end of C (the first where row 1, column 0 would be)"
}

@test "exercise04's checker does not let a NaN slip through" {
    build_mutated_solution 's/c\[(size_t)row \* n + col\] = sum;/c[(size_t)row * n + col] = row == 2 \&\& col == 3 ? nanf("") : sum;/'
    run "$BATS_TEST_TMPDIR/mutant"
    assert_failure 1
    assert_line "  1x1x1     PASS"
    assert_line --regexp "^  17x17x17  FAIL: first wrong element \(row 2, column 3\): expected -?[0-9.e-]+, got nan$"
}
