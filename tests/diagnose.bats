#!/usr/bin/env bats
# The bug finder after a FAIL (common/diagnose.sh): make exerciseNN and make
# grade rebuild a failing exercise with emucc --sanitize, run it with guard
# pages, and print what it finds with the student's file:line, or one line
# saying that it found no race or overrun. Each exercise's typical race or
# overrun is a mutant of its worked solution; one make grade grades them all.

setup_file() {
    load test_helper
    [ -d "$EMU_BUILD" ] || skip "no emulator build in $EMU_BUILD (run make test)"
    local lessons="$BATS_FILE_TMPDIR/bob/lessons"
    mkdir -p "$lessons"
    cp -r "$REPO"/lessons/* "$lessons"/
    for solution in "$REPO"/solutions/*/exercise.cu; do
        cp "$solution" "$lessons/$(basename "$(dirname "$solution")")/exercise.cu"
    done
    mutate() {  # mutate NN SED_EXPRESSION: the student's exercise NN, changed
        local file=("$lessons"/"$1"-*/exercise.cu)
        cp "${file[0]}" "$BATS_FILE_TMPDIR/before.cu"
        sed -i "$2" "${file[0]}"
        ! cmp -s "${file[0]}" "$BATS_FILE_TMPDIR/before.cu" || fail "the sed expression changed nothing: $2"
    }
    # 01: the loop and its bound left out (lesson 01's kernel without its if)
    mutate 01 's/for (long long i = first; i < n; i += stride)/long long i = first;/'
    # 02: no bounds check for the blocks that stick out of the image
    mutate 02 's/if (column < width \&\& row < height) {/{/'
    # 03, 04, 05, 08: the barrier between the shared-memory stores and the reads left out
    mutate 03 '/__syncthreads();/d'
    mutate 04 '/the tiles are complete before anyone reads them/d'
    mutate 05 '/the next step could read/,+1d'
    mutate 08 '/^    __syncthreads();/d'
    # 06: a launch one result short, no race or overrun (the student writes no kernel)
    mutate 06 's/(d_results, result_count,$/(d_results, result_count - 1,/'
    # 07: the last chunk not cut short, so its copy runs past the end of d_x
    mutate 07 's/long long length = n - begin < chunk ? n - begin : chunk;/long long length = chunk;/'
    # 09: the two neighbours swapped in the first exchange (host code and MPI only)
    mutate 09 's/MPI_Sendrecv(first_row, width, MPI_FLOAT, above, TAG_UP, halo_below, width, MPI_FLOAT, below,/MPI_Sendrecv(first_row, width, MPI_FLOAT, below, TAG_UP, halo_below, width, MPI_FLOAT, above,/'
    touch "$BATS_FILE_TMPDIR/graded"
    make -C "$REPO" --no-print-directory BACKEND=emu GRADE_FROM="$lessons" \
        GRADE_CSV="$BATS_FILE_TMPDIR/grade.csv" grade >"$BATS_FILE_TMPDIR/grade.out" 2>&1 || true
}

setup() {
    load test_helper
    LESSONS="$BATS_FILE_TMPDIR/bob/lessons"
    run cat "$BATS_FILE_TMPDIR/grade.out"
}

# line_of NN TEXT: the line of the student's exercise NN that holds TEXT
line_of() {
    local file=("$LESSONS"/"$1"-*/exercise.cu)
    grep -n -F -m 1 "$2" "${file[0]}" | cut -d: -f1
}

# The bug finder's line under an exercise's line in make grade's output.
FOUND="^ {12}the bug finder: "
RACE="data race on shared memory in kernel"

# assert_race NN KERNEL WRITE READ: the bug finder names a race in KERNEL between
# the store in the line of exercise NN that holds WRITE and the load in READ's
assert_race() {
    local file=("$LESSONS"/"$1"-*/exercise.cu) write read
    write=$(line_of "$1" "$3")
    read=$(line_of "$1" "$4")
    file="${file[0]#"$LESSONS/"}"
    assert_line --regexp "${FOUND}$RACE $2, block \([0-9,]+\): .*thread \([0-9,]+\) writes at ${file//./\\.}:$write;"
    assert_line --regexp "${FOUND}$RACE $2, .*thread \([0-9,]+\) reads at ${file//./\\.}:$read;"
}

@test "exercise01: a vector add without its bounds check reads a past n, named with the student's line" {
    local line
    line=$(line_of 01 'c[i] = a[i] + b[i];')
    assert_line --regexp "^exercise01  FAIL: n = 513: first wrong index 512: "
    assert_line --regexp "${FOUND}read of device memory that nothing wrote \(no copy, memset or kernel\), in kernel vector_add_grid_stride, block \([0-9]+,0,0\), thread \([0-9]+,0,0\), at 01-vector-add/exercise\.cu:$line: byte offset [0-9]+ of a [0-9]+-byte allocation made at lessons/01-vector-add/exercise_check\.cu:[0-9]+$"
}

@test "exercise02: a grayscale without its bounds check reads past the image, named with the student's line" {
    local line
    line=$(line_of 02 'gray[pixel] = luma(')
    assert_line "exercise02  FAIL: 1x1: wrote 38 bytes past the end of gray: threads outside the image went on"
    # without the checker's margin the image ends at the guard page
    assert_line --regexp "${FOUND}out-of-bounds read in kernel grayscale_2d, block \([0-9]+,[0-9]+,0\), thread \([0-9]+,[0-9]+,0\) at 02-grayscale/exercise\.cu:$line: byte offset [0-9]+ of a 3-byte allocation made at lessons/02-grayscale/exercise_check\.cu:[0-9]+ \([0-9]+ bytes past its end\)$"
}

@test "exercise03: a missing __syncthreads() is named with the racing write and read and where the barrier goes" {
    assert_line --regexp "^exercise03  FAIL: 1x1: first wrong cell \(row 0, column 0\): "
    # the read of the cell below, which thread (x,y+1) stores
    assert_race 03 diffuse_tile 'tile[tile_row][tile_col] = from[' 'tile[tile_row + 1][tile_col]'
    assert_line --regexp "${FOUND}$RACE diffuse_tile, .*; with no __syncthreads\(\) between: .*; put a __syncthreads\(\) between the write and the read$"
}

@test "exercise04: the barrier after the tile loads left out is named with the store and the product loop" {
    assert_line --regexp "^exercise04  FAIL: 16x16x16: first wrong element \(row 0, column 0\): "
    assert_race 04 sgemm_tiled_exercise 'b_tile[threadIdx.y][threadIdx.x] = ' 'sum += a_tile'
}

@test "exercise05: the barrier between the steps of the tree left out is named with its line" {
    local line
    line=$(line_of 05 'partial[tid] += partial[tid + half];')
    assert_line --regexp "^exercise05  FAIL: threads = 32 n = 33: first wrong block 0: "
    # 32 threads are one warp: the emulator asks for the warp's own barrier
    assert_line --regexp "${FOUND}$RACE block_sums_tree, block \(0,0,0\): thread \([0-9]+,0,0\) (reads|writes) at 05-reduction/exercise\.cu:$line; thread \([0-9]+,0,0\) (reads|writes) at 05-reduction/exercise\.cu:$line; both in one warp, with no __syncwarp\(\) between: "
}

@test "exercise06: a launch one result short has no race or overrun, and the bug finder says so" {
    assert_line --regexp "^exercise06  FAIL: n = 1: first wrong index 0: expected 0, got -?nan \(never written\)$"
    assert_line "            the bug finder found no race or overrun: the arithmetic or indexing is wrong"
    assert grep -q '^"bob",exercise06,FAIL,"n = 1: first wrong index 0: .*; the bug finder found no race or overrun: the arithmetic or indexing is wrong",[0-9]*$' \
        "$BATS_FILE_TMPDIR/grade.csv"
}

@test "exercise07: a copy past the end of d_x keeps its own report, with the student's line, and no rerun" {
    local line
    line=$(line_of 07 'CUDA_CHECK(cudaMemcpyAsync(d_x + begin')
    assert_line "exercise07  error: $LESSONS/07-transfers/exercise.cu:$line: CUDA error in cudaMemcpyAsync(d_x + begin, h_x + begin, bytes, cudaMemcpyHostToDevice, stream): cudaErrorInvalidValue: invalid argument"
    refute grep -q 'exercise07.*bug finder' "$BATS_FILE_TMPDIR/grade.csv"
    # make grade's build folder
    [ ! "$REPO/build/emu/diagnose/exercise07" -nt "$BATS_FILE_TMPDIR/graded" ] ||
        fail "the bug finder rebuilt exercise07"
}

@test "exercise08: no barrier between loading the tile and reading it is named with both lines" {
    assert_line --regexp "^exercise08  FAIL: 1x1: first wrong pixel \(row 0, column 0\): "
    assert_race 08 sobel_fused 'tile[tile_row][tile_column] = luma(' 'int magnitude = sobel_magnitude('
}

@test "exercise09: a halo exchange with its neighbours swapped is wrong arithmetic to the bug finder" {
    assert_line --regexp "^exercise09  FAIL: "
    assert grep -q '^"bob",exercise09,FAIL,".*; the bug finder found no race or overrun: the arithmetic or indexing is wrong",[0-9]*$' \
        "$BATS_FILE_TMPDIR/grade.csv"
}

@test "make grade keeps one line per exercise and the CSV's five columns, the bug finder at the end of the detail" {
    local count
    count=$(grep -l '^EXERCISE *= *[^ ]' "$REPO"/lessons/*/lesson.conf | wc -l)
    assert_equal "$(grep -c '^exercise[0-9][0-9]  ' "$BATS_FILE_TMPDIR/grade.out")" "$count"
    assert_line "grade: 0 of $count exercises pass (bob; the CSV is $BATS_FILE_TMPDIR/grade.csv)"
    assert_equal "$(head -n 1 "$BATS_FILE_TMPDIR/grade.csv")" "student,exercise,result,detail,seconds"
    assert grep -q '^"bob",exercise03,FAIL,"1x1: first wrong cell (row 0, column 0): .*; the bug finder: data race on shared memory in kernel diffuse_tile, .* at 03-diffusion/exercise.cu:[0-9]*; .*",[0-9]*$' \
        "$BATS_FILE_TMPDIR/grade.csv"
}

# make exerciseNN runs on the student's file in lessons/: here on a copy of
# lesson 03's folder (LESSON_DIRS) with its own build folder (BUILD), make's
# command-line variables overriding the Makefile's.
make_exercise03() {
    local course="$BATS_FILE_TMPDIR/course"
    mkdir -p "$course/lessons" "$course/build/common"
    [ -d "$course/lessons/03-diffusion" ] || cp -r "$REPO/lessons/03-diffusion" "$course/lessons/"
    # common/ as make test built it; -p keeps it newer than its source, so it is not rebuilt
    cp -p "$EMU_BUILD/common/workbook.o" "$course/build/common/"
    sed "$1" "$REPO/solutions/03-diffusion/exercise.cu" >"$course/lessons/03-diffusion/exercise.cu"
    COPY="$course/lessons/03-diffusion/exercise.cu"
    run make -C "$REPO" --no-print-directory BACKEND=emu LESSON_DIRS="$course/lessons/03-diffusion" \
        BUILD="$course/build" exercise03
}

@test "make exercise03 prints the bug finder's report under the FAIL: both racing lines and where the barrier goes" {
    make_exercise03 '/__syncthreads();/d'
    assert_failure
    assert_line "exercise03: FAIL (10 of 10 shapes wrong)"
    assert_line --regexp "^exercise03: the bug finder \(emucc --sanitize, guard pages, thread order forward\):$"
    assert_line "  data race on shared memory in kernel diffuse_tile, block (0,0,0):"
    assert_line --regexp "^    thread \([0-9,]+\) writes at $COPY:$(grep -n -F -m 1 'tile[tile_row][tile_col] = from[' "$COPY" | cut -d: -f1)$"
    assert_line --regexp "^    thread \([0-9,]+\) reads at $COPY:$(grep -n -F -m 1 'tile[tile_row + 1][tile_col]' "$COPY" | cut -d: -f1)$"
    assert_line --partial "  with no __syncthreads() between: "
    # the report comes after the checker's verdict
    [[ "$output" == *"shapes wrong)"$'\n'"exercise03: the bug finder"* ]] || fail "not under the FAIL"
}

@test "make exercise03 says in one line when the bug finder finds no race or overrun" {
    make_exercise03 's/4.0f \* centre/3.0f * centre/'
    assert_failure
    assert_line "exercise03: FAIL (10 of 10 shapes wrong)"
    assert_line "exercise03: the bug finder (emucc --sanitize, guard pages, three thread orders) found no race or overrun: the arithmetic or indexing is wrong"
}

# diagnose.sh's arguments for a checker log that says FAIL, and a program never run
diagnose_gpu() {
    printf 'exercise03: FAIL (1 of 10 shapes wrong)\n' >"$BATS_TEST_TMPDIR/log"
    BACKEND=cuda BUILD="$BATS_TEST_TMPDIR" COMPILER=/nonexistent/nvcc PATH="$1" \
        run sh "$REPO/common/diagnose.sh" exercise03 "$BATS_TEST_TMPDIR/log" "$BATS_TEST_TMPDIR/exercise03" \
        lessons/03-diffusion/exercise.cu
}

@test "on a GPU build the bug finder is compute-sanitizer, never emucc" {
    mkdir -p "$BATS_TEST_TMPDIR/bin"
    # what compute-sanitizer --tool racecheck prints for the race, and nothing for memcheck
    cat >"$BATS_TEST_TMPDIR/bin/compute-sanitizer" <<'EOF'
#!/bin/sh
echo "========= COMPUTE-SANITIZER"
echo "exercise03: FAIL (1 of 10 shapes wrong)"
if [ "$2" = racecheck ]; then
    echo "========= Error: Race reported between Write access at diffuse_tile(const float *, float *, int, int)+0x1b0 in lessons/03-diffusion/exercise.cu:48"
    echo "=========     and Read access at diffuse_tile(const float *, float *, int, int)+0x2f0 in lessons/03-diffusion/exercise.cu:65 [1024 hazards]"
    echo "========="
    echo "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)"
else
    echo "========= ERROR SUMMARY: 0 errors"
fi
EOF
    chmod +x "$BATS_TEST_TMPDIR/bin/compute-sanitizer"
    diagnose_gpu "$BATS_TEST_TMPDIR/bin:/usr/bin:/bin"
    assert_success
    assert_output "exercise03: the bug finder (compute-sanitizer --tool racecheck):
  Error: Race reported between Write access at diffuse_tile(const float *, float *, int, int)+0x1b0 in lessons/03-diffusion/exercise.cu:48
      and Read access at diffuse_tile(const float *, float *, int, int)+0x2f0 in lessons/03-diffusion/exercise.cu:65 [1024 hazards]"
}

@test "on a GPU build without compute-sanitizer the bug finder says where it comes from" {
    diagnose_gpu /usr/bin:/bin
    assert_success
    assert_output "exercise03: the bug finder needs compute-sanitizer, which comes with the CUDA Toolkit (not on PATH nor beside /nonexistent/nvcc)"
}
