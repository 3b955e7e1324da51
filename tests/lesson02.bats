#!/usr/bin/env bats
# Lesson 02, RGB to grayscale: what is particular to this lesson. The generic
# contract (awkward sizes, bad inputs, CSV shape) is in contract.bats. Most
# runs here use --cache warm: flushing the CPU caches before every run is the
# slow part of a tiny emulated run, and these tests are about correctness.

setup_file() {
    # prints an image's pixels as text, to compare what lesson02 wrote with its input
    cc -O2 -o "$BATS_FILE_TMPDIR/image_dump" "$BATS_TEST_DIRNAME/fixtures/image_dump.c" -lstb -lm
    # the unchanged parts of the mutants below, compiled once for all of them
    local repo="$BATS_TEST_DIRNAME/.." flags=(-O2 -std=c++20 -Xcompiler -fopenmp)
    "$repo/common/emu/emucc" "${flags[@]}" -I"$repo/common" -c -o "$BATS_FILE_TMPDIR/workbook.o" \
        "$repo/common/workbook.cu"
    "$repo/common/emu/emucc" "${flags[@]}" -I"$repo/common" -I"$repo/lessons/02-grayscale" -c \
        -o "$BATS_FILE_TMPDIR/exercise_check.o" "$repo/lessons/02-grayscale/exercise_check.cu"
}

setup() {
    load test_helper
    DUMP="$BATS_FILE_TMPDIR/image_dump"
}

QUICK=(--reps 1 --warmup 0 --cache warm)

# Asserts that gray image $2 is input image $1 converted with the Rec. 601
# integer weights, pixel for pixel, and that it has the input's size.
assert_gray_of() {
    "$DUMP" "$1" >"$BATS_TEST_TMPDIR/in.txt"
    "$DUMP" "$2" >"$BATS_TEST_TMPDIR/out.txt"
    run awk '
        NR == FNR { if (FNR == 1) { size = $1 "x" $2 } else { in_r[FNR] = $1; in_g[FNR] = $2; in_b[FNR] = $3 } next }
        FNR == 1 { if ($1 "x" $2 != size || $3 != 1) { print "size or channels: " $0 " for " size; exit } next }
        {
            expected = int((19595 * in_r[FNR] + 38470 * in_g[FNR] + 7471 * in_b[FNR] + 32768) / 65536)
            if ($1 != expected) { print "pixel " FNR - 2 ": expected " expected ", got " $1; exit }
            checked++
        }
        END { print checked " pixels" }' "$BATS_TEST_TMPDIR/in.txt" "$BATS_TEST_TMPDIR/out.txt"
    assert_output "$3 pixels"
}

# be32 N: the escapes (for printf) of N as 4 bytes, most significant first, as PNG stores numbers.
be32() {
    printf '\\x%02x\\x%02x\\x%02x\\x%02x' $(($1 >> 24 & 255)) $(($1 >> 16 & 255)) $(($1 >> 8 & 255)) $(($1 & 255))
}

# png_header FILE WIDTH HEIGHT: the start of a PNG file, its signature and its IHDR chunk
# for an 8-bit RGB image of that size: all that stb_image reads to learn the size.
png_header() {
    local chunk="$BATS_TEST_TMPDIR/ihdr"
    # the chunk's type and data: width, height, 8 bits a sample, color type 2 (RGB),
    # compression, filter and interlace methods 0
    printf "IHDR$(be32 "$2")$(be32 "$3")\\x08\\x02\\x00\\x00\\x00" >"$chunk"
    # then its CRC-32, the same one gzip keeps in the 4 bytes before its last 4 (least
    # significant first)
    local crc
    crc=$(gzip -c <"$chunk" | tail -c 8 | head -c 4 | od -An -tx1 | awk '{ print $4 $3 $2 $1 }')
    {
        printf '\x89PNG\r\n\x1a\n'
        printf "$(be32 13)"
        cat "$chunk"
        printf "$(be32 $((16#$crc)))"
    } >"$1"
}

# Asserts that the arguments are refused: exit status 2, one line naming the problem ($1).
assert_refused() {
    local expected="$1"
    shift
    assert_refused_by lesson02 "$expected" "$@" "${QUICK[@]}"
}

@test "lesson02's kernels stay inside the image at awkward sizes in every thread order" {
    [ -d "$EMU_BUILD" ] || skip "no emulator build in $EMU_BUILD"
    # guard mode: a read or write past a device array's end stops the program;
    # poison mode: device memory starts as 0xFF, so a pixel nobody wrote fails the check
    for order in forward reverse random:2024; do
        for size in 1x1 7x13 33x9; do
            CUDA_EMU_GUARD=1 CUDA_EMU_POISON=1 CUDA_EMU_ORDER=$order \
                run "$EMU_BUILD/lesson02" -n "$size" "${QUICK[@]}" --csv
            assert_success
            assert_equal "$(csv_column check <<<"$output" | grep -c -x PASS)" 5
        done
    done
}

@test "lesson02 prints the table with the three mappings, the copy row and every check" {
    use_gpu_build
    run "$BUILD/lesson02" -n 640x480 "${QUICK[@]}"
    assert_success
    assert_line --index 0 "lesson02: RGB to grayscale, 8-bit, Rec. 601 weights"
    # 3 bytes read and 1 written per pixel; the arithmetic is integer
    assert_line "problem  image size = 640x480; moves 1.2 MB, 0 FLOP"
    assert_line --regexp "^cpu +host .* ref$"
    assert_line --regexp "^device-copy +library .* -$"
    assert_line --regexp "^naive +kernel .* PASS \(max err 0\)$"
    assert_line --regexp "^naive +end-to-end .* PASS \(max err 0\)$"
    assert_line --regexp "^coalesced +kernel .* PASS \(max err 0\)$"
    assert_line --regexp "^optimized +kernel .* PASS \(max err 0\)$"
    assert_line --regexp "^optimized +end-to-end .* PASS \(max err 0\)$"
    assert_line "all 5 checks passed against the CPU reference: naive, coalesced, optimized"
}

@test "lesson02 takes an 8K frame on a GPU and a 1080p one under emulation by default" {
    use_any_build
    run "$BUILD/lesson02" --only cpu "${QUICK[@]}"
    assert_success
    if [ "$BUILD" = "$EMU_BUILD" ]; then
        assert_line "problem  image size = 1920x1080; moves 8.3 MB, 0 FLOP"
    else
        assert_line "problem  image size = 7680x4320; moves 132.7 MB, 0 FLOP"
    fi
    run "$BUILD/lesson02" -n 7680x4320 --only cpu "${QUICK[@]}"
    assert_success
    assert_line "problem  image size = 7680x4320; moves 132.7 MB, 0 FLOP"
}

@test "lesson02 converts a real photograph into the right gray PNG" {
    use_gpu_build
    local folder="$BATS_TEST_TMPDIR/photos"
    mkdir "$folder"
    run --separate-stderr "$BUILD/lesson02" --image "$REPO/data/chelsea.png" \
        --output "$folder/gray.png" "${QUICK[@]}"
    assert_success
    assert_line "problem  image size = 451x300; moves 541.2 kB, 0 FLOP"
    assert_line "all 5 checks passed against the CPU reference: naive, coalesced, optimized"
    assert_equal "$stderr" "lesson02: wrote $folder/gray.png (451x300, 8-bit gray)"
    assert_gray_of "$REPO/data/chelsea.png" "$folder/gray.png" 135300
    # only the PNG is left in the folder: no temporary file
    assert_equal "$(ls -A "$folder")" "gray.png"
}

@test "the gray astronaut that COURSE.md shows is lesson02's output of data/astronaut.png" {
    assert_gray_of "$REPO/data/astronaut.png" "$REPO/data/astronaut-gray.png" 262144
}

@test "lesson02 reads JPEG, PPM and RGBA TGA input and drops the alpha channel" {
    use_gpu_build
    run "$BUILD/lesson02" --image "$REPO/data/rocket.jpg" --output "$BATS_TEST_TMPDIR/rocket.png" \
        "${QUICK[@]}" --only cpu,coalesced
    assert_success
    assert_gray_of "$REPO/data/rocket.jpg" "$BATS_TEST_TMPDIR/rocket.png" 273280
    # a 3x1 PPM: black, green, blue -> 0, 150, 29; and white -> 255, never 256 (which would wrap to 0)
    printf 'P6\n4 1\n255\n\000\000\000\000\377\000\000\000\377\377\377\377' >"$BATS_TEST_TMPDIR/four.ppm"
    run "$BUILD/lesson02" --image "$BATS_TEST_TMPDIR/four.ppm" --output "$BATS_TEST_TMPDIR/four.png" "${QUICK[@]}"
    assert_success
    run "$DUMP" "$BATS_TEST_TMPDIR/four.png"
    assert_output "$(printf '4 1 1\n0\n150\n29\n255')"
    # a 2x1 uncompressed TGA, 32 bits a pixel (B, G, R, A), top row first:
    # red with alpha 0 and white with alpha 128 -> 76 and 255, whatever the alpha
    printf '\000\000\002\000\000\000\000\000\000\000\000\000\002\000\001\000\040\050' >"$BATS_TEST_TMPDIR/two.tga"
    printf '\000\000\377\000\377\377\377\200' >>"$BATS_TEST_TMPDIR/two.tga"
    run "$BUILD/lesson02" --image "$BATS_TEST_TMPDIR/two.tga" --output "$BATS_TEST_TMPDIR/two.png" "${QUICK[@]}"
    assert_success
    run "$DUMP" "$BATS_TEST_TMPDIR/two.png"
    assert_output "$(printf '2 1 1\n76\n255')"
}

@test "lesson02 refuses a missing file, a file that is not an image, and truncated ones" {
    use_any_build
    assert_refused "nope.png: cannot open the image: No such file or directory" --image nope.png
    assert_refused "README.md: not an image: expected PNG, JPEG, BMP, TGA or PPM" \
        --image "$REPO/data/README.md"
    assert_refused "truncated.jpg: cannot decode the image: the file is truncated or corrupt" \
        --image "$REPO/data/truncated.jpg"
    head -c 5000 "$REPO/data/astronaut.png" >"$BATS_TEST_TMPDIR/cut.png"
    assert_refused "cut.png: cannot decode the image: the file is truncated or corrupt" \
        --image "$BATS_TEST_TMPDIR/cut.png"
    # a JPEG cut short, whose metadata (an APP1 segment, as EXIF's) holds a thumbnail with an
    # end-of-image marker of its own: refused, though newer stb_image decodes such a file
    {
        printf '\377\330\377\341\000\012\377\330\377\332\000\002\377\331'
        tail -c +3 "$REPO/data/rocket.jpg"
    } >"$BATS_TEST_TMPDIR/thumbnail.jpg"
    head -c 60000 "$BATS_TEST_TMPDIR/thumbnail.jpg" >"$BATS_TEST_TMPDIR/thumbnail-cut.jpg"
    assert_refused "thumbnail-cut.jpg: cannot decode the image: the file is truncated or corrupt" \
        --image "$BATS_TEST_TMPDIR/thumbnail-cut.jpg"
    # whole, it decodes
    run "$BUILD/lesson02" --image "$BATS_TEST_TMPDIR/thumbnail.jpg" "${QUICK[@]}"
    assert_success
}

@test "lesson02 refuses an image of 0x0, one too wide, one too large, and a gray one" {
    use_any_build
    printf 'P6\n0 0\n255\n' >"$BATS_TEST_TMPDIR/empty.ppm"
    assert_refused "empty.ppm: unusable image size: 0x0: each side must be 1 to 262144" \
        --image "$BATS_TEST_TMPDIR/empty.ppm"
    printf 'P6\n300000 1\n255\n' >"$BATS_TEST_TMPDIR/wide.ppm"
    assert_refused "wide.ppm: unusable image size: 300000x1: each side must be 1 to 262144" \
        --image "$BATS_TEST_TMPDIR/wide.ppm"
    # a 21-byte file whose header promises 60 GB of pixels: refused before anything is allocated
    printf 'P6\n200000 100000\n255\n' >"$BATS_TEST_TMPDIR/huge.ppm"
    assert_refused "huge.ppm: image too large: 200000x100000: more than stb_image decodes (2 GiB)" \
        --image "$BATS_TEST_TMPDIR/huge.ppm"
    printf 'P5\n2 2\n255\n\001\002\003\004' >"$BATS_TEST_TMPDIR/gray.pgm"
    assert_refused "gray.pgm: is a grayscale image already: this lesson needs RGB input" \
        --image "$BATS_TEST_TMPDIR/gray.pgm"
}

@test "lesson02 tells a PNG whose header stb_image refuses from a file that is not an image" {
    use_any_build
    local refused="cannot read the PNG header: truncated or corrupt header, or an image too large for the decoder (stb_image decodes up to 2 GiB of pixels, a PNG up to 1 GiB)"
    # the header itself is well formed, but says 0 x 0; its CRC is the one zlib.crc32
    # computes for the chunk, as a PNG reader that checks it wants
    png_header "$BATS_TEST_TMPDIR/empty.png" 0 0
    assert_equal "$(od -An -tx1 -j 29 "$BATS_TEST_TMPDIR/empty.png" | tr -d ' ')" "b4e9eb45"
    assert_refused "empty.png: $refused" --image "$BATS_TEST_TMPDIR/empty.png"
    # 20000 x 20000 RGB is 1.2 GB: within the lesson's sides and stb_image's 2 GiB, but
    # past the 1 GiB its PNG decoder allows
    png_header "$BATS_TEST_TMPDIR/large.png" 20000 20000
    assert_equal "$(od -An -tx1 -j 29 "$BATS_TEST_TMPDIR/large.png" | tr -d ' ')" "6c12d16e"
    assert_refused "large.png: $refused" --image "$BATS_TEST_TMPDIR/large.png"
    # a JPEG cut inside its header
    head -c 100 "$REPO/data/rocket.jpg" >"$BATS_TEST_TMPDIR/cut.jpg"
    assert_refused "cut.jpg: cannot read the JPEG header: truncated or corrupt header" \
        --image "$BATS_TEST_TMPDIR/cut.jpg"
}

@test "lesson02 refuses an output path it cannot write before doing any work, leaving nothing" {
    use_any_build
    assert_refused "$BATS_TEST_TMPDIR/no/such/folder/gray.png: cannot write the output: No such file or directory" \
        -n 8x8 --output "$BATS_TEST_TMPDIR/no/such/folder/gray.png"
    assert_refused "$BATS_TEST_TMPDIR: cannot write the output: it is a directory" \
        -n 8x8 --output "$BATS_TEST_TMPDIR"
    # a bad input with a good output path: the temporary output file is removed
    mkdir "$BATS_TEST_TMPDIR/out"
    assert_refused "cannot decode the image" --image "$REPO/data/truncated.jpg" \
        --output "$BATS_TEST_TMPDIR/out/gray.png"
    assert_equal "$(ls -A "$BATS_TEST_TMPDIR/out")" ""
}

# Waits up to a minute for the command given as arguments to succeed.
wait_until() {
    for _ in $(seq 600); do
        "$@" && return 0
        sleep 0.1
    done
    fail "waited a minute in vain for: $*"
}

@test "lesson02 stopped by SIGTERM leaves no temporary file beside the output" {
    [ -d "$EMU_BUILD" ] || skip "no emulator build in $EMU_BUILD"
    local folder="$BATS_TEST_TMPDIR/out" status=0
    mkdir "$folder"
    # during the run (seconds for an emulated 8K frame), before the image is written: the
    # header is printed once the options are checked
    "$EMU_BUILD/lesson02" -n 7680x4320 --only naive "${QUICK[@]}" --output "$folder/gray.png" \
        >"$BATS_TEST_TMPDIR/run.txt" 2>&1 &
    local pid=$!
    wait_until grep -qs '^timing' "$BATS_TEST_TMPDIR/run.txt"
    kill -TERM "$pid"
    wait "$pid" || status=$?
    assert_equal "$status" 143 # killed by SIGTERM (15)
    assert_equal "$(ls -A "$folder")" ""
    # while the PNG is being written (33 MB of incompressible noise: seconds)
    status=0
    "$EMU_BUILD/lesson02" -n 7680x4320 --only cpu "${QUICK[@]}" --output "$folder/gray.png" \
        >/dev/null 2>&1 &
    pid=$!
    wait_until compgen -G "$folder/gray.png.*" >/dev/null
    kill -TERM "$pid"
    wait "$pid" || status=$?
    assert_equal "$status" 143
    assert_equal "$(ls -A "$folder")" ""
}

@test "lesson02 replaces an existing output file only when the new one is complete" {
    use_gpu_build
    local folder="$BATS_TEST_TMPDIR/photos"
    mkdir "$folder"
    echo "an older file" >"$folder/gray.png"
    run "$BUILD/lesson02" --image "$folder/nothing.png" --output "$folder/gray.png"
    assert_failure 2
    assert_equal "$(cat "$folder/gray.png")" "an older file"
    run "$BUILD/lesson02" -n 5x3 --output "$folder/gray.png" "${QUICK[@]}"
    assert_success
    run "$DUMP" "$folder/gray.png"
    assert_line --index 0 "5 3 1"
    assert_equal "${#lines[@]}" 16
    assert_equal "$(ls -A "$folder")" "gray.png"
}

@test "lesson02 --seed changes the synthetic image and every variant still passes" {
    use_gpu_build
    run "$BUILD/lesson02" -n 61x59 --seed 777 "${QUICK[@]}" --csv
    assert_success
    assert_equal "$(csv_column check <<<"$output" | grep -c -x PASS)" 5
}

# Builds lessons/02-grayscale/grayscale.cu with one line changed (sed
# expression $1) by the emulator, and runs it with the remaining arguments.
run_mutated_lesson() {
    [ -d "$EMU_BUILD" ] || skip "no emulator build in $EMU_BUILD"
    local source="$REPO/lessons/02-grayscale/grayscale.cu"
    sed "$1" "$source" >"$BATS_TEST_TMPDIR/grayscale.cu"
    ! cmp -s "$source" "$BATS_TEST_TMPDIR/grayscale.cu" || fail "the sed expression changed nothing"
    cp "$REPO/lessons/02-grayscale/luma.h" "$BATS_TEST_TMPDIR/"
    "$REPO/common/emu/emucc" -O2 -std=c++20 -Xcompiler -fopenmp -I"$REPO/common" -o "$BATS_TEST_TMPDIR/broken" \
        "$BATS_TEST_TMPDIR/grayscale.cu" "$BATS_FILE_TMPDIR/workbook.o" -lstb -lm
    shift
    run --separate-stderr "$BATS_TEST_TMPDIR/broken" "$@" "${QUICK[@]}"
}

@test "a kernel one gray level off at one pixel fails, naming its row and column" {
    run_mutated_lesson 's/gray\[pixel\] = luma(rgb\[3 \* pixel\], rgb\[3 \* pixel + 1\], rgb\[3 \* pixel + 2\]);/gray[pixel] = luma(rgb[3 * pixel], rgb[3 * pixel + 1], rgb[3 * pixel + 2]) ^ (pixel == 100);/' \
        -n 33x9 --only naive
    assert_equal "$status" 1
    assert_line --regexp "^naive +kernel .* FAIL \(max err 1\)$"
    [[ "$stderr" == *"lesson02: naive (kernel) FAIL: gray: first mismatch at (row 3, column 1): expected "* ]] ||
        fail "stderr does not name the first mismatch: $stderr"
}

@test "an optimized kernel that forgets the leftover pixels fails at the first one" {
    run_mutated_lesson 's/    if (group < pixels % PIXELS_PER_THREAD)/    if (0)/' -n 13x7 --only optimized
    assert_equal "$status" 1
    assert_line --regexp "^optimized +kernel .* FAIL "
    # 91 pixels: 22 groups of 4 reach pixel 87, so pixel 88 (row 6, column 10) is the first left over
    [[ "$stderr" == *"optimized (kernel) FAIL: gray: first mismatch at (row 6, column 10): expected "* ]] ||
        fail "stderr does not name the first leftover pixel: $stderr"
}

@test "lesson02 built by nvcc without a GPU runs the CPU version, writes the PNG and exits 3" {
    [ "$GPU_COUNT" -eq 0 ] || skip "a GPU is present, so the nvcc build runs on it"
    [ -x "$CUDA_BUILD/lesson02" ] || skip "no nvcc build in $CUDA_BUILD (nvcc not installed?)"
    run --separate-stderr "$CUDA_BUILD/lesson02" --image "$REPO/data/coffee.png" \
        --output "$BATS_TEST_TMPDIR/coffee.png" "${QUICK[@]}"
    assert_equal "$status" 3
    assert_line --regexp "^cpu +host "
    refute_line --regexp "^naive"
    assert_gray_of "$REPO/data/coffee.png" "$BATS_TEST_TMPDIR/coffee.png" 240000
}

# ---- the exercise and its checker ---------------------------------------------

@test "the untouched exercise02 skeleton reports not implemented yet" {
    use_gpu_build
    run "$BUILD/exercise02"
    assert_failure 1
    assert_line --partial "exercise02: not implemented yet"
}

@test "the worked solution of exercise02 passes at every size" {
    use_gpu_build
    run "$BUILD/solution02"
    assert_success
    assert_line "  1x1      PASS"
    assert_line "  451x300  PASS"
    assert_line "exercise02: PASS (all 11 sizes)"
}

# Builds the solution with one line changed (sed expression $1) together with
# the checker, by the emulator, and runs it.
run_mutated_solution() {
    use_gpu_build
    [ "$BUILD" = "$EMU_BUILD" ] || skip "mutants are built with the emulator"
    sed "$1" "$REPO/solutions/02-grayscale/exercise.cu" >"$BATS_TEST_TMPDIR/exercise.cu"
    ! cmp -s "$BATS_TEST_TMPDIR/exercise.cu" "$REPO/solutions/02-grayscale/exercise.cu" ||
        fail "the sed expression changed nothing"
    "$REPO/common/emu/emucc" -O2 -std=c++20 -Xcompiler -fopenmp -I"$REPO/common" \
        -I"$REPO/lessons/02-grayscale" -o "$BATS_TEST_TMPDIR/mutant" \
        "$BATS_TEST_TMPDIR/exercise.cu" "$BATS_FILE_TMPDIR/exercise_check.o" \
        "$BATS_FILE_TMPDIR/workbook.o"
    run "$BATS_TEST_TMPDIR/mutant"
}

@test "exercise02's checker catches rows and columns swapped, which passes on square images" {
    run_mutated_solution 's/int column = blockIdx.x \* blockDim.x + threadIdx.x;/int column = blockIdx.y * blockDim.y + threadIdx.y;/; s/int row = blockIdx.y \* blockDim.y + threadIdx.y;/int row = blockIdx.x * blockDim.x + threadIdx.x;/'
    assert_failure 1
    assert_line "  1x1      PASS"
    assert_line --regexp "^  451x300  FAIL: first wrong pixel \(row 0, column 304\): expected [0-9]+, got 255 \(never written\)$"
    assert_line --regexp "^  300x451  FAIL: first wrong pixel \(row 320, column 0\): "
}

@test "exercise02's checker catches an index that mixes up width and height" {
    run_mutated_solution 's/(long long)row \* width + column/(long long)column * width + row/'
    assert_failure 1
    assert_line "  1x1      PASS"
    assert_line --regexp "^  13x7     FAIL: first wrong pixel \(row 0, column 7\): .* \(never written\)$"
    assert_line --regexp "^  451x300  FAIL: "
}

@test "exercise02's checker catches a missing bounds check at sizes that are not whole blocks" {
    run_mutated_solution 's/if (column < width \&\& row < height)/if (1)/'
    assert_failure 1
    # 32x8 and 64x16 are whole blocks: no thread falls outside
    assert_line "  32x8     PASS"
    assert_line "  64x16    PASS"
    assert_line "  1x1      FAIL: wrote 38 bytes past the end of gray: threads outside the image went on"
    assert_line --regexp "^  33x9     FAIL: wrote [0-9]+ bytes past the end of gray"
    assert_line "exercise02: FAIL (9 of 11 sizes wrong)"
}

@test "exercise02's checker catches a pixel one gray level off" {
    run_mutated_solution 's/rgb\[3 \* pixel + 2\]);/rgb[3 * pixel + 2]) ^ (pixel == 40);/'
    assert_failure 1
    assert_line "  37x1     PASS"
    assert_line --regexp "^  13x7     FAIL: first wrong pixel \(row 3, column 1\): expected [0-9]+, got [0-9]+$"
}

@test "exercise02's checker counts a single byte written past the end" {
    # one column too many: the extra column of each row is the next row's first pixel,
    # written with its right value, except after the last row
    run_mutated_solution 's/if (column < width \&\& row < height)/if (column <= width \&\& row < height)/'
    assert_failure 1
    assert_line "  1x1      FAIL: wrote 1 byte past the end of gray: threads outside the image went on"
    assert_line "  451x300  FAIL: wrote 1 byte past the end of gray: threads outside the image went on"
}
