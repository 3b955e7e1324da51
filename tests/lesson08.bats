#!/usr/bin/env bats
# Lesson 08, the Sobel pipeline: what is particular to this lesson. The
# generic contract (awkward sizes, bad -n, CSV shape) is in contract.bats.
# Most runs here use --cache warm: flushing the CPU caches before every run
# is the slow part of a tiny emulated run, and these tests are about
# correctness.

setup_file() {
    # prints an image's pixels as text, to compare what lesson08 wrote with its input
    cc -O2 -o "$BATS_FILE_TMPDIR/image_dump" "$BATS_TEST_DIRNAME/fixtures/image_dump.c" -lstb -lm
}

setup() {
    load test_helper
    DUMP="$BATS_FILE_TMPDIR/image_dump"
}

QUICK=(--reps 1 --warmup 0 --cache warm)

# Asserts that the 1-channel image $2 is the edge map of RGB image $1 by the
# rule of lessons/08-sobel/sobel.h, recomputed here from the pixels: Rec. 601
# integer luma, the border clamped to the edge, |gx| + |gy| saturated at 255.
# $3: the pixel count.
assert_edges_of() {
    "$DUMP" "$1" >"$BATS_TEST_TMPDIR/in.txt"
    "$DUMP" "$2" >"$BATS_TEST_TMPDIR/out.txt"
    run awk '
        function at(r, c) {
            r = r < 0 ? 0 : r >= h ? h - 1 : r
            c = c < 0 ? 0 : c >= w ? w - 1 : c
            return gray[r * w + c]
        }
        function abs(v) { return v < 0 ? -v : v }
        NR == FNR {
            if (FNR == 1) { w = $1; h = $2 }
            else gray[FNR - 2] = int((19595 * $1 + 38470 * $2 + 7471 * $3 + 32768) / 65536)
            next
        }
        FNR == 1 { if ($1 != w || $2 != h || $3 != 1) { print "size or channels: " $0 " for " w "x" h; exit } next }
        {
            p = FNR - 2; r = int(p / w); c = p % w
            gx = at(r - 1, c + 1) + 2 * at(r, c + 1) + at(r + 1, c + 1) - at(r - 1, c - 1) - 2 * at(r, c - 1) - at(r + 1, c - 1)
            gy = at(r + 1, c - 1) + 2 * at(r + 1, c) + at(r + 1, c + 1) - at(r - 1, c - 1) - 2 * at(r - 1, c) - at(r - 1, c + 1)
            m = abs(gx) + abs(gy)
            if (m > 255) m = 255
            if ($1 != m) { print "pixel " p " (row " r ", column " c "): expected " m ", got " $1; exit }
            checked++
        }
        END { print checked " pixels" }' "$BATS_TEST_TMPDIR/in.txt" "$BATS_TEST_TMPDIR/out.txt"
    assert_output "$3 pixels"
}

# Asserts that the arguments are refused: exit status 2, one line naming the problem ($1).
assert_refused() {
    local expected="$1"
    shift
    assert_refused_by lesson08 "$expected" "$@" "${QUICK[@]}"
}

@test "lesson08 prints the table, the per-frame summary and every check" {
    use_gpu_build
    run "$BUILD/lesson08" -n 64x48 --frames 3 "${QUICK[@]}"
    assert_success
    assert_line --index 0 "lesson08: Sobel edges: RGB to gray to |gx| + |gy| to 8 bits, a batch of frames"
    # 3 bytes read and 1 written per pixel of each of 3 frames; the arithmetic is integer
    assert_line "problem  frame size = 64x48; moves 36.9 kB, 0 FLOP"
    assert_line --regexp "^cpu +host .* ref$"
    assert_line --regexp "^device-copy +library .* -$"
    assert_line --regexp "^naive +kernel .* PASS \(max err 0\)$"
    assert_line --regexp "^naive +transfers .* PASS \(max err 0\)$"
    assert_line --regexp "^optimized +kernel .* PASS \(max err 0\)$"
    assert_line --regexp "^optimized +transfers .* PASS \(max err 0\)$"
    assert_line --regexp "^sliding +kernel .* PASS \(max err 0\)$"
    assert_line --regexp "^shuffle +kernel .* PASS \(max err 0\)$"
    assert_line --regexp "^batched +kernel .* PASS \(max err 0\)$"
    assert_line "per frame, 3 frames of 64x48 a run:"
    assert_line --regexp "^  naive +kernel [0-9.]+ ms +end to end [0-9.]+ ms = [0-9.]+ frames/s +copies [0-9]+%$"
    assert_line --regexp "^  optimized +kernel [0-9.]+ ms +end to end [0-9.]+ ms = [0-9.]+ frames/s +copies [0-9]+%$"
    # sliding, shuffle and batched have kernel rows only
    assert_line --regexp "^  sliding +kernel [0-9.]+ ms *$"
    assert_line --regexp "^  shuffle +kernel [0-9.]+ ms *$"
    assert_line --regexp "^  batched +kernel [0-9.]+ ms *$"
    assert_line "all 7 checks passed against the CPU reference: naive, optimized, sliding, shuffle, batched"
}

@test "lesson08's kernels stay inside the frames at awkward sizes in every thread order" {
    [ -d "$EMU_BUILD" ] || skip "no emulator build in $EMU_BUILD"
    # guard mode: a read or write past a device array's end stops the program;
    # poison mode: device memory starts as 0xFF, so a pixel nobody wrote fails the check;
    # 5 frames: more than the 4 streams of the pipeline; widths of 4, 36 and 244, multiples
    # of 4, take sliding's and shuffle's word loads, the others their pixel-by-pixel path;
    # 244x17: shuffle's 3 bands across (120 columns each, the last of 4), a band of 1 row
    for order in forward reverse random:2024; do
        for size in 1x1 2x2 4x3 33x33 31x65 36x33 244x17; do
            CUDA_EMU_GUARD=1 CUDA_EMU_POISON=1 CUDA_EMU_ORDER=$order \
                run "$EMU_BUILD/lesson08" -n "$size" --frames 5 "${QUICK[@]}" --csv
            assert_success
            assert_equal "$(csv_column check <<<"$output" | grep -c -x PASS)" 7
        done
    done
}

@test "lesson08 takes 16 4K frames on a GPU and 2 720p ones under emulation by default" {
    use_gpu_build
    run "$BUILD/lesson08" --only cpu "${QUICK[@]}"
    assert_success
    if [ "$BUILD" = "$EMU_BUILD" ]; then
        assert_line "problem  frame size = 1280x720; moves 7.4 MB, 0 FLOP"
    else
        assert_line "problem  frame size = 3840x2160; moves 530.8 MB, 0 FLOP"
    fi
}

@test "lesson08 --seed and --frames change the synthetic frames and every variant still passes" {
    use_gpu_build
    run --separate-stderr "$BUILD/lesson08" -n 61x59 --frames 7 --seed 777 "${QUICK[@]}" --csv
    assert_success
    assert_equal "$(csv_column check <<<"$output" | grep -c -x PASS)" 7
    assert_equal "$(csv_column elements <<<"$output" | sort -u)" 3599
}

@test "lesson08 writes the edge map of data/astronaut.png, pixel for pixel the CPU rule" {
    use_gpu_build
    local folder="$BATS_TEST_TMPDIR/photos"
    mkdir "$folder"
    run --separate-stderr "$BUILD/lesson08" --image "$REPO/data/astronaut.png" \
        --output "$folder/edges.png" --frames 1 "${QUICK[@]}"
    assert_success
    assert_line "problem  frame size = 512x512; moves 1.0 MB, 0 FLOP"
    assert_line "all 7 checks passed against the CPU reference: naive, optimized, sliding, shuffle, batched"
    assert_equal "$stderr" "lesson08: wrote $folder/edges.png (512x512, 8-bit edge map)"
    # a valid PNG of the photo's size, one channel, every pixel as the rule says
    [ "$(head -c 8 "$folder/edges.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
        fail "edges.png does not start with the PNG signature"
    assert_edges_of "$REPO/data/astronaut.png" "$folder/edges.png" 262144
    # only the PNG is left in the folder: no temporary file
    assert_equal "$(ls -A "$folder")" "edges.png"
}

@test "the edge map that COURSE.md shows is lesson08's output of data/astronaut.png" {
    assert_edges_of "$REPO/data/astronaut.png" "$REPO/data/astronaut-edges.png" 262144
}

@test "lesson08 reads a JPEG, and a gray photo gives the edges of the color one it came from" {
    use_gpu_build
    run "$BUILD/lesson08" --image "$REPO/data/rocket.jpg" --output "$BATS_TEST_TMPDIR/rocket.png" \
        --frames 1 "${QUICK[@]}" --only cpu,optimized
    assert_success
    assert_edges_of "$REPO/data/rocket.jpg" "$BATS_TEST_TMPDIR/rocket.png" 273280
    # astronaut-gray.png is lesson02's luma of astronaut.png, and the luma of
    # a gray pixel (v, v, v) is v: the same edges
    run "$BUILD/lesson08" --image "$REPO/data/astronaut.png" --output "$BATS_TEST_TMPDIR/color.png" \
        --frames 1 "${QUICK[@]}" --only cpu
    assert_success
    run "$BUILD/lesson08" --image "$REPO/data/astronaut-gray.png" --output "$BATS_TEST_TMPDIR/gray.png" \
        --frames 1 "${QUICK[@]}" --only cpu
    assert_success
    cmp <("$DUMP" "$BATS_TEST_TMPDIR/color.png") <("$DUMP" "$BATS_TEST_TMPDIR/gray.png") ||
        fail "the gray photo's edges differ from the color photo's"
}

@test "lesson08 refuses a missing image, a file that is not one, and a corrupt one" {
    use_any_build
    assert_refused "nope.png: cannot open the image: No such file or directory" --image nope.png
    assert_refused "README.md: not an image: expected PNG, JPEG, BMP, TGA or PPM" \
        --image "$REPO/data/README.md"
    assert_refused "truncated.jpg: cannot decode the image: the file is truncated or corrupt" \
        --image "$REPO/data/truncated.jpg"
    head -c 5000 "$REPO/data/astronaut.png" >"$BATS_TEST_TMPDIR/cut.png"
    assert_refused "cut.png: cannot decode the image: the file is truncated or corrupt" \
        --image "$BATS_TEST_TMPDIR/cut.png"
    assert_refused "$BATS_TEST_TMPDIR/no/such/folder/edges.png: cannot write the output: No such file or directory" \
        --output "$BATS_TEST_TMPDIR/no/such/folder/edges.png"
}

@test "lesson08 refuses -n or --size beside --image: the photo sets the frame size" {
    use_any_build
    assert_refused "-n and --image together: the image sets the size" \
        --image "$REPO/data/astronaut.png" -n 64x64
    assert_refused "--size and --image together: the image sets the size" \
        --size=512x512 --image "$REPO/data/chelsea.png"
    # refused before anything is written: the --output folder stays empty
    mkdir "$BATS_TEST_TMPDIR/out"
    assert_refused "-n and --image together" \
        -n 64x64 --image "$REPO/data/astronaut.png" --output "$BATS_TEST_TMPDIR/out/edges.png"
    assert_equal "$(ls -A "$BATS_TEST_TMPDIR/out")" ""
}

@test "lesson08 refuses --frames of 0, a negative count, too many, a fraction, a word, or none" {
    use_any_build
    assert_refused "--frames value '0' is out of range (1 to 4096)" --frames 0
    assert_refused "--frames value '-3' is out of range (1 to 4096)" --frames -3
    assert_refused "--frames value '5000' is out of range (1 to 4096)" --frames 5000
    assert_refused "invalid value '2.5' for --frames" --frames 2.5
    assert_refused "invalid value 'many' for --frames" --frames many
    assert_refused "--frames needs a value" --frames
}

@test "lesson08 built by nvcc without a GPU runs the CPU version, writes the PNG and exits 3" {
    [ "$GPU_COUNT" -eq 0 ] || skip "a GPU is present, so the nvcc build runs on it"
    [ -x "$CUDA_BUILD/lesson08" ] || skip "no nvcc build in $CUDA_BUILD (nvcc not installed?)"
    run --separate-stderr "$CUDA_BUILD/lesson08" --image "$REPO/data/coffee.png" \
        --output "$BATS_TEST_TMPDIR/coffee.png" --frames 1 "${QUICK[@]}"
    assert_equal "$status" 3
    assert_line --regexp "^cpu +host "
    refute_line --regexp "^naive"
    assert_edges_of "$REPO/data/coffee.png" "$BATS_TEST_TMPDIR/coffee.png" 240000
}

# Builds lessons/08-sobel/sobel.cu with one line changed (sed expression $1)
# by the emulator (with MUTANT_FLAGS too: --sanitize), and runs it with the
# remaining arguments.
run_mutated_lesson() {
    [ -d "$EMU_BUILD" ] || skip "no emulator build in $EMU_BUILD"
    local source="$REPO/lessons/08-sobel/sobel.cu"
    sed "$1" "$source" >"$BATS_TEST_TMPDIR/sobel.cu"
    ! cmp -s "$source" "$BATS_TEST_TMPDIR/sobel.cu" || fail "the sed expression changed nothing"
    # shellcheck disable=SC2086  # MUTANT_FLAGS is a list of words
    "$REPO/common/emu/emucc" ${MUTANT_FLAGS:-} -O2 -std=c++20 -Xcompiler -fopenmp -I"$REPO/common" \
        -I"$REPO/lessons/08-sobel" -o "$BATS_TEST_TMPDIR/broken" \
        "$BATS_TEST_TMPDIR/sobel.cu" "$(common_object)" -lstb -lm
    shift
    run --separate-stderr "$BATS_TEST_TMPDIR/broken" "$@" "${QUICK[@]}"
}

# Asserts that the mutant run just made ($stderr) names the first wrong edge pixel of variant $1's
# kernel row: at row $2 (counted on through the batch's frames), column $3.
assert_first_mismatch() {
    [[ "$stderr" == *"$1 (kernel) FAIL: edges: first mismatch at (row $2, column $3): "* ]] ||
        fail "stderr does not name $1's first mismatch at (row $2, column $3): $stderr"
}

@test "a fused kernel that reads the tile before it is complete fails" {
    run_mutated_lesson 's/^    __syncthreads();$//' -n 97x61 --only optimized
    assert_equal "$status" 1
    assert_line --regexp "^optimized +kernel .* FAIL "
    [[ "$stderr" == *"optimized (kernel) FAIL: edges: first mismatch at (row "* ]] ||
        fail "stderr does not name the first mismatch: $stderr"
}

@test "a fused kernel whose tile reads past the right edge fails at the last column" {
    # clamping to width instead of width - 1 reads the first pixel of the next row
    run_mutated_lesson 's/int column = clamp_index(first_column + tile_column - HALO, width);/int column = clamp_index(first_column + tile_column - HALO, width + 1);/' \
        -n 13x7 --only optimized
    assert_equal "$status" 1
    assert_first_mismatch optimized 0 12
}

@test "a sliding kernel whose word loads run past the row's end fails at the last column" {
    # the group of pixels 36 to 39 of a 36-pixel row is the next row's first 4: it must be clamped
    run_mutated_lesson 's/if (words_fit \&\& column >= 0 \&\& column + GROUP <= width) {/if (words_fit \&\& column >= 0 \&\& column + GROUP <= width + GROUP) {/' \
        -n 36x5 --frames 2 --only sliding
    assert_equal "$status" 1
    assert_first_mismatch sliding 0 35
}

@test "a sliding kernel whose window does not move down fails" {
    run_mutated_lesson 's/^        nw = w, n = here, ne = e;$//' -n 36x34 --only sliding
    assert_equal "$status" 1
    assert_line --regexp "^sliding +kernel .* FAIL "
}

@test "a shuffle kernel that takes its left neighbour from the lane on its right fails" {
    # __shfl_down_sync reads lane + 1: the window's w and e are then the same pixel
    run_mutated_lesson 's/int left = (int)__shfl_up_sync(/int left = (int)__shfl_down_sync(/' \
        -n 124x9 --only shuffle
    assert_equal "$status" 1
    assert_first_mismatch shuffle 0 0
}

@test "a shuffle kernel whose lanes outside the frame lend the wrong level fails at the frame's edge" {
    # lane 0 of the first band loads pixels 0 to 3 and must lend pixel 0, the clamp of pixel -1
    run_mutated_lesson 's/unsigned int lent_right = column < 0 ? gray\[0\] : gray\[GROUP - 1\];/unsigned int lent_right = gray[GROUP - 1];/' \
        -n 124x9 --only shuffle
    assert_equal "$status" 1
    assert_first_mismatch shuffle 0 0
    # the lane just past a 124-pixel row loads pixels 120 to 123 and must lend pixel 123
    run_mutated_lesson 's/unsigned int lent_left = column >= width ? gray\[GROUP - 1\] : gray\[0\];/unsigned int lent_left = gray[0];/' \
        -n 124x9 --only shuffle
    assert_equal "$status" 1
    assert_first_mismatch shuffle 0 123
}

@test "a shuffle kernel that does not clamp the rows it loads ahead reads past the frames" {
    # the last band of the last frame loads rows below the frame: the guard stops it
    CUDA_EMU_GUARD=1 run_mutated_lesson 's/long long row = frame_row + clamp_index(first_row - 1 + step, height);/long long row = frame_row + first_row - 1 + step;/' \
        -n 124x9 --only shuffle
    assert_equal "$status" 1
    [[ "$stderr" == *"cuda-emu: out-of-bounds read in kernel sobel_shuffle, "* ]] ||
        fail "stderr does not name the kernel's read: $stderr"
}

@test "a shuffle kernel that reads words from rows not on a multiple of 4 is stopped by the sanitizer" {
    # without width % 4 == 0, a 37-pixel row (111 bytes) puts row 1's words 3 bytes past a
    # multiple of 4: the CPU reads them and the result is even right, but a GPU stops the kernel
    MUTANT_FLAGS=--sanitize run_mutated_lesson 's/int words_fit = width % 4 == 0;/int words_fit = 1;/' \
        -n 37x5 --only shuffle
    assert_equal "$status" 1
    [[ "$stderr" == *"cuda-emu: misaligned 4-byte read in kernel sobel_shuffle, "*", 3 bytes past a multiple of 4"* ]] ||
        fail "stderr does not name the misaligned read: $stderr"
}

@test "a batched kernel that ignores blockIdx.z computes the first frame only, and fails at the second" {
    # row 9 of a batch of 9-row frames is the second frame's first row
    run_mutated_lesson 's/shuffle_band(rgb, edges, width, height, (int)blockIdx.z \* height);/shuffle_band(rgb, edges, width, height, 0);/' \
        -n 124x9 --frames 3 --only batched
    assert_equal "$status" 1
    assert_first_mismatch batched 9 0
}

@test "at 4K, shuffle's launch a frame leaves a second wave of 296 blocks that batched's one launch does not" {
    [ -d "$EMU_BUILD" ] || skip "no emulator build in $EMU_BUILD"
    # nvcc gives both kernels 80 registers (ptxas -v): an H100 or H200 holds 6 blocks of 128
    # threads an SM, 792 on 132 SMs; a 4K frame is 32 x 34 = 1,088 blocks, two frames 2,176
    CUDA_EMU_REGISTERS=80 run "$EMU_BUILD/lesson08" -n 3840x2160 --frames 2 \
        --only shuffle,batched "${QUICK[@]}"
    assert_success
    assert_line --partial "warning: shuffle: sobel_shuffle's last of 2 waves holds 296 of 792 blocks: 31% of its SM time idles; "
    # batched: 2,176 blocks, the last of 3 waves 592 of 792, 8% idle: below the warning's 25%
    refute_line --partial "warning: batched:"
    assert_line "all 2 checks passed against the CPU reference: shuffle, batched"
}

# ---- the exercise and its checker ---------------------------------------------

@test "the untouched exercise08 skeleton reports not implemented yet" {
    use_gpu_build
    run "$BUILD/exercise08"
    assert_failure 1
    assert_line --partial "exercise08: not implemented yet"
}

@test "the worked solution of exercise08 passes at every size" {
    use_gpu_build
    run "$BUILD/solution08"
    assert_success
    assert_line "  1x1      PASS"
    assert_line "  17x17    PASS"
    assert_line "  300x451  PASS"
    assert_line "exercise08: PASS (all 14 sizes)"
}

# Builds the worked solution with one line changed (sed expression $1)
# together with the checker, by the emulator, and runs it.
run_mutated_solution() {
    use_gpu_build
    [ "$BUILD" = "$EMU_BUILD" ] || skip "mutants are built with the emulator"
    # a relative -I: EMUCC_FLAGS is split at spaces, and the repository's path may have some
    cd "$REPO"
    EMUCC_FLAGS="-Ilessons/08-sobel" build_mutant solutions/08-sobel/exercise.cu "$1" \
        "$BATS_TEST_TMPDIR/mutant" lessons/08-sobel/exercise_check.cu
    run "$BATS_TEST_TMPDIR/mutant"
}

@test "exercise08's checker catches a border off by one" {
    run_mutated_solution 's/tile_column - HALO, width)/tile_column - HALO, width + 1)/'
    assert_failure 1
    assert_line --regexp "^  13x7 +FAIL: first wrong pixel \(row [0-9]+, column 12\): expected [0-9]+, got [0-9]+$"
    assert_line --regexp "^exercise08: FAIL \([0-9]+ of 14 sizes wrong\)$"
}

@test "exercise08's checker catches a missing __syncthreads after loading the tile" {
    run_mutated_solution 's/^    __syncthreads();$//'
    assert_failure 1
    assert_line --regexp "^  97x61 +FAIL: first wrong pixel "
    assert_line --regexp "^exercise08: FAIL \([0-9]+ of 14 sizes wrong\)$"
}

@test "exercise08's checker catches a halo loaded one pixel off" {
    run_mutated_solution 's/first_row + tile_row - HALO, height)/first_row + tile_row, height)/'
    assert_failure 1
    # one row: the rows above and below are the row itself, so the shift hides
    assert_line "  37x1     PASS"
    assert_line --regexp "^  16x16 +FAIL: first wrong pixel \(row 0, column [0-9]+\): "
}

@test "exercise08's checker catches pixels never written, whatever value they hold" {
    run_mutated_solution 's/if (row < height \&\& column < width)/if (row < height - 1 \&\& column < width)/'
    assert_failure 1
    # the poison (0x00, then 0xFF) left in the last row, named as such
    assert_line --regexp "^  1x1 +FAIL: first wrong pixel \(row 0, column 0\): expected 0, got 255 \(never written\)$"
    assert_line --regexp "^  13x7 +FAIL: first wrong pixel \(row 6, column 0\): expected [0-9]+, got (0|255) \(never written\)$"
    assert_line "exercise08: FAIL (14 of 14 sizes wrong)"
}

@test "exercise08's checker catches threads outside the image that write" {
    run_mutated_solution 's/if (row < height \&\& column < width) {/{/'
    assert_failure 1
    assert_line --regexp "^  1x1 +FAIL: wrote [0-9]+ bytes past the end of edges: threads outside the image went on$"
}

@test "exercise08's checker counts a single byte written past the end" {
    # a guard on the flat index lets the thread one past the last pixel write
    run_mutated_solution 's/if (row < height \&\& column < width) {/if ((long long)row * width + column <= (long long)width * height) {/'
    assert_failure 1
    assert_line "  1x1      FAIL: wrote 1 byte past the end of edges: threads outside the image went on"
}
