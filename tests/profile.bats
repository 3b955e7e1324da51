#!/usr/bin/env bats
# tests/profile.bats - the specification of `emucc --profile` (common/emu/runtime/profile.cpp) and
# of `make profile`: the counts Nsight Compute names (global requests and sectors, shared-memory
# wavefronts and bank conflicts, divergent branches, atomics), held to answers that follow from
# arithmetic (tests/emu/profile/known_answers.cu), the same in every thread order and with any
# number of worker threads; and the lessons' naive and optimized kernels told apart by them.
#
# Run: bats tests/profile.bats   (EMU_CXX=clang++ for clang++ as emucc's host compiler)

load test_helper
EMUCC="$REPO/common/emu/emucc"
export CXX="${EMU_CXX:-g++}"
SOURCE=tests/emu/profile/known_answers.cu

setup_file() {
    export BIN="$BATS_FILE_TMPDIR/bin"
    mkdir -p "$BIN"
    cd "$REPO"
    "$EMUCC" --profile -o "$BIN/known_answers" "$SOURCE" 2>"$BIN/known_answers.build.log" || true
    "$EMUCC" -o "$BIN/plain" "$SOURCE" 2>"$BIN/plain.build.log" || true
    "$EMUCC" --profile -o "$BIN/branches" tests/emu/profile/branches.cu 2>"$BIN/branches.build.log" || true
    # the lessons whose counts COURSE.md quotes, as make profile builds them: with emucc's
    # default host compiler whatever EMU_CXX says, since build/emu-profile keeps one compiler's
    # objects
    env -u CXX make --no-print-directory -j2 BACKEND=emu PROFILE=1 build/emu-profile/lesson02 \
        build/emu-profile/lesson03 build/emu-profile/lesson04 build/emu-profile/lesson05 \
        build/emu-profile/lesson06 build/emu-profile/lesson08 >"$BIN/lessons.build.log" 2>&1 || true
}

require_built() {
    [ -x "$1" ] || fail "$1 did not build: $(cat "$BIN"/*.build.log)"
}

# profile_csv PROGRAM CSV [ARGUMENTS...]: runs the program, its figures into CSV
profile_csv() {
    local program=$1 csv=$2
    shift 2
    require_built "$program"
    CUDA_EMU_PROFILE_CSV="$csv" run "$program" "$@"
    assert_success
}

# figure CSV KERNEL METRIC [LINE]: one figure of a kernel (of one source line when LINE is given)
figure() {
    awk -F, -v kernel="\"$2\"" -v metric="$3" -v line="${4:-}" \
        '$1 == kernel && $2 == line && $3 == metric { print $4 }' "$1"
}

# assert_figure CSV KERNEL METRIC EXPECTED [LINE]
assert_figure() {
    local value
    value=$(figure "$1" "$2" "$3" "${5:-}")
    [ "$value" = "$4" ] || fail "$2${5:+ at $5}: $3 is '$value', expected $4"
}

line_of() {  # line_of TEXT: the line of known_answers.cu where TEXT first appears
    grep -n -F -- "$1" "$REPO/$SOURCE" | head -n 1 | cut -d: -f1
}

known_answers() {  # runs known_answers.cu once per test file's temporary folder; sets CSV
    CSV="$BATS_FILE_TMPDIR/known_answers.csv"
    [ -s "$CSV" ] && return 0
    cd "$REPO"
    profile_csv "$BIN/known_answers" "$CSV"
}

@test "a warp reading 32 consecutive floats makes 1 request of 4 sectors, 128 bytes moved for 128 asked" {
    known_answers
    assert_figure "$CSV" read_consecutive l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum 1
    assert_figure "$CSV" read_consecutive l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum 4
    assert_figure "$CSV" read_consecutive l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio 4.00
    assert_figure "$CSV" read_consecutive smsp__sass_data_bytes_mem_global_op_ld.sum 128
    assert_figure "$CSV" read_consecutive l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum 128
    assert_figure "$CSV" read_consecutive l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum 4
}

@test "strides of 2, 4, 8 and 32 floats touch 8, 16, 32 and 32 sectors in one request" {
    known_answers
    local stride sectors
    for pair in 2:8 4:16 8:32 32:32; do
        stride=${pair%:*} sectors=${pair#*:}
        assert_figure "$CSV" "read_strided<$stride>" l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum 1
        assert_figure "$CSV" "read_strided<$stride>" l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum "$sectors"
        assert_figure "$CSV" "read_strided<$stride>" l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum $((sectors * 32))
    done
    assert_figure "$CSV" "read_strided<8>" smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct 12.50
}

@test "a float4 per lane is one request: 32 consecutive are 16 sectors, 512 bytes asked, all used" {
    known_answers
    local kernel
    for kernel in float4_cast_load float4_array_load; do
        assert_figure "$CSV" $kernel l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum 1
        assert_figure "$CSV" $kernel l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum 16
        assert_figure "$CSV" $kernel smsp__sass_data_bytes_mem_global_op_ld.sum 512
        assert_figure "$CSV" $kernel smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct 100.00
    done
    assert_figure "$CSV" float4_store l1tex__t_requests_pipe_lsu_mem_global_op_st.sum 1
    assert_figure "$CSV" float4_store l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum 16
    assert_figure "$CSV" float4_store smsp__sass_data_bytes_mem_global_op_st.sum 512
    assert_figure "$CSV" float4_store smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct 100.00
    # an int2 per lane: 256 bytes, 8 sectors
    assert_figure "$CSV" int2_load l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum 1
    assert_figure "$CSV" int2_load l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum 8
    assert_figure "$CSV" int2_load smsp__sass_data_bytes_mem_global_op_ld.sum 256
}

@test "a shared float4 per lane takes 4 wavefronts without conflict, an int2 2; every other float4 is 2-way" {
    known_answers
    local direction
    for direction in ld st; do
        assert_figure "$CSV" "shared_float4<1>" smsp__inst_executed_op_shared_$direction.sum 1
        assert_figure "$CSV" "shared_float4<1>" l1tex__data_pipe_lsu_wavefronts_mem_shared_op_$direction.sum 4
        assert_figure "$CSV" "shared_float4<1>" l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_$direction.sum 0
        assert_figure "$CSV" shared_int2 l1tex__data_pipe_lsu_wavefronts_mem_shared_op_$direction.sum 2
        assert_figure "$CSV" shared_int2 l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_$direction.sum 0
        # lanes 0 and 4 of a quarter warp: words 0-3 and 32-35, the same 4 banks
        assert_figure "$CSV" "shared_float4<2>" l1tex__data_pipe_lsu_wavefronts_mem_shared_op_$direction.sum 8
        assert_figure "$CSV" "shared_float4<2>" l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_$direction.sum 4
        assert_figure "$CSV" "shared_float4<2>" "($direction 2-way requests)" 1
    done
}

@test "a block's static and dynamic shared memory together set how many blocks an SM holds" {
    known_answers
    # 40 KiB + 512 bytes of __shared__ variables, 8 KiB dynamic: 4 blocks of 4 warps on the H100
    assert_figure "$CSV" shared_hog launch__shared_mem_per_block_static 41472
    assert_figure "$CSV" shared_hog launch__shared_mem_per_block_dynamic 8192
    assert_figure "$CSV" shared_hog "min(launch__occupancy_limit_*)" 4
    assert_figure "$CSV" shared_hog sm__maximum_warps_per_active_cycle_pct 25
    # a kernel without shared memory takes none; tile_column's tile is its own
    assert_figure "$CSV" read_consecutive launch__shared_mem_per_block_static 0
    assert_figure "$CSV" "tile_column<32>" launch__shared_mem_per_block_static 4096
    assert_figure "$CSV" "tile_column<33>" launch__shared_mem_per_block_static 4224
    # a __device__ function's, which this launch never calls, counts: the compiler reserves it
    assert_figure "$CSV" rarely_staged launch__shared_mem_per_block_static 1024
}

@test "taking an element's address is no load" {
    known_answers
    [ -z "$(figure "$CSV" address_only l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum)" ] ||
        fail "address_only counts loads: $(grep address_only "$CSV")"
    assert_figure "$CSV" address_only l1tex__t_requests_pipe_lsu_mem_global_op_st.sum 1
}

@test "a column of a 32x32 shared tile is a 32-way bank conflict; with rows of 33, none" {
    known_answers
    # 32 warps each read a column: 32 wavefronts each
    assert_figure "$CSV" "tile_column<32>" smsp__inst_executed_op_shared_ld.sum 32
    assert_figure "$CSV" "tile_column<32>" l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum 1024
    assert_figure "$CSV" "tile_column<32>" l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum 992
    assert_figure "$CSV" "tile_column<32>" "(ld wavefronts / requests)" 32.00
    # the rows were written without conflict
    assert_figure "$CSV" "tile_column<32>" l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum 0
    assert_figure "$CSV" "tile_column<33>" l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum 32
    assert_figure "$CSV" "tile_column<33>" l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum 0
}

@test "every lane reading one shared word is a broadcast: one wavefront, no conflict" {
    known_answers
    assert_figure "$CSV" broadcast smsp__inst_executed_op_shared_ld.sum 1
    assert_figure "$CSV" broadcast l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum 1
    assert_figure "$CSV" broadcast l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum 0
}

@test "if (threadIdx.x % 2) diverges in every warp; if (threadIdx.x / 32 % 2) in none" {
    known_answers
    assert_figure "$CSV" odd_lanes smsp__sass_inst_executed_op_branch.sum 4
    assert_figure "$CSV" odd_lanes smsp__sass_branch_targets_threads_divergent.sum 4
    assert_figure "$CSV" odd_warps smsp__sass_inst_executed_op_branch.sum 4
    assert_figure "$CSV" odd_warps smsp__sass_branch_targets_threads_divergent.sum 0
    # half the lanes of the 4 warps store: 16 of 32 active at the store, 32 at the branch
    assert_figure "$CSV" odd_lanes smsp__thread_inst_executed_per_inst_executed.ratio 24.00
}

@test "the interleaved tree with a strided index has 2-, 4-, 8-, 16- and 32-way conflicts, step by step" {
    known_answers
    local step ways line requests
    for pair in 1:2 2:4 4:8 8:16 16:32; do
        step=${pair%:*} ways=${pair#*:}
        line="$SOURCE:$(line_of "// step $step")"
        # 2 * step * tid < 1024: 512 / step working threads, 16 / step warps, 2 loads each
        requests=$((32 / step))
        assert_figure "$CSV" interleaved_tree smsp__inst_executed_op_shared_ld.sum "$requests" "$line"
        assert_figure "$CSV" interleaved_tree l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum \
            $((requests * ways)) "$line"
        assert_figure "$CSV" interleaved_tree "(ld wavefronts / requests)" "$ways.00" "$line"
        # the kernel's loads, by how many ways they conflict: each step's are all n-way
        assert_figure "$CSV" interleaved_tree "(ld $ways-way requests)" "$requests"
    done
    # thread 0's read of the sum
    assert_figure "$CSV" interleaved_tree "(ld 1-way requests)" 1
}

@test "if and while conditions count in every form C++ writes them; if constexpr, #if and host code are left alone" {
    require_built "$BIN/branches"
    cd "$REPO"
    local csv="$BATS_TEST_TMPDIR/branches.csv" source=tests/emu/profile/branches.cu
    CUDA_EMU_PROFILE_LINES=1 profile_csv "$BIN/branches" "$csv"
    assert_line "PASS profile_branches"
    # a while loop that lanes leave after 1 to 4 rounds: 5 visits, the middle 3 divergent
    assert_line "  $source:$(grep -n 'while (count <' "$source" | cut -d: -f1)  branch        requests 5  divergent 3"
    # the if with a comment and nested parentheses splits the warp; the else if, reached by the
    # lanes that did not take it, and the if with "if (" in a string do not; do ... while twice
    assert_line "  $source:$(grep -n '/\* a comment \*/' "$source" | cut -d: -f1)  branch        requests 1  divergent 1"
    assert_line "  $source:$(grep -n 'else if (lane == 99)' "$source" | cut -d: -f1)  branch        requests 1  divergent 0"
    assert_line "  $source:$(grep -n 'sizeof("if (")' "$source" | cut -d: -f1)  branch        requests 1  divergent 0"
    assert_line "  $source:$(grep -n '} while (rounds < 2)' "$source" | cut -d: -f1)  branch        requests 2  divergent 0"
    assert_figure "$csv" "forms<true>" smsp__sass_inst_executed_op_branch.sum 10
    assert_figure "$csv" "forms<true>" smsp__sass_branch_targets_threads_divergent.sum 4
}

@test "one counter takes every atomic; four counters a quarter each" {
    known_answers
    assert_figure "$CSV" one_counter "(emulator: atomic operations)" 128
    assert_figure "$CSV" one_counter l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum 4
    assert_figure "$CSV" one_counter "(emulator: most contended address)" 100.00
    assert_figure "$CSV" four_counters "(emulator: atomic operations)" 64
    assert_figure "$CSV" four_counters "(emulator: most contended address)" 25.00
}

@test "the table names each figure as Nsight Compute does, with its meaning, on stderr after the output" {
    require_built "$BIN/known_answers"
    run --separate-stderr "$BIN/known_answers"
    assert_success
    assert_output "PASS profile_known_answers"
    [[ "$stderr" == *"cuda-emu profile: kernel tile_column<32>, 1 launch (CPU emulation"* ]] ||
        fail "no table header for tile_column<32>: $stderr"
    echo "$stderr" | grep -E '^  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum +992  bank conflicts' ||
        fail "no bank conflict row: $stderr"
    echo "$stderr" | grep -E '^  launch__block_size +1024  threads per block' || fail "no launch row"
}

@test "CUDA_EMU_PROFILE_LINES=1 adds a table per source line" {
    require_built "$BIN/known_answers"
    CUDA_EMU_PROFILE_LINES=1 run "$BIN/known_answers"
    assert_success
    local line
    line=$(line_of "= tile[threadIdx.x][threadIdx.y]")
    assert_line --regexp "^  $SOURCE:$line  shared load   requests 32  wavefronts 1024  conflicts 992  wavefronts/request 32.00  32-way 32$"
    line=$(line_of "if (threadIdx.x % 2)")
    assert_line --regexp "^  $SOURCE:$line  branch        requests 4  divergent 4$"
    CUDA_EMU_PROFILE_LINES=yes run "$BIN/known_answers"
    assert_failure 2
    assert_output "cuda-emu: CUDA_EMU_PROFILE_LINES=yes is not understood; expected a whole number from 0 to 1"
}

# The figures without the launch's (the modelled GPU's, which no thread order or worker changes).
counts_only() {
    grep -v -E ',(launch__|device__|min\(launch|sm__maximum)' "$1"
}

@test "the counts are the same in every thread order and with 1 or 2 worker threads" {
    require_built "$BIN/known_answers"
    require_built "$REPO/build/emu-profile/lesson05"
    cd "$REPO"
    local reference="$BATS_TEST_TMPDIR/reference.csv" lesson_reference="$BATS_TEST_TMPDIR/lesson.csv"
    CUDA_EMU_ORDER=forward CUDA_EMU_WORKERS=1 profile_csv "$BIN/known_answers" "$reference"
    CUDA_EMU_ORDER=forward CUDA_EMU_WORKERS=1 profile_csv build/emu-profile/lesson05 "$lesson_reference" \
        -n 4099 --reps 1 --warmup 0
    [ "$(counts_only "$lesson_reference" | wc -l)" -gt 50 ] || fail "lesson05 wrote too few figures"
    for order in forward reverse random:7; do
        for workers in 1 2; do
            CUDA_EMU_ORDER=$order CUDA_EMU_WORKERS=$workers profile_csv "$BIN/known_answers" "$BATS_TEST_TMPDIR/run.csv"
            diff <(counts_only "$reference") <(counts_only "$BATS_TEST_TMPDIR/run.csv") ||
                fail "known_answers: counts differ in order $order with $workers workers"
            CUDA_EMU_ORDER=$order CUDA_EMU_WORKERS=$workers profile_csv build/emu-profile/lesson05 \
                "$BATS_TEST_TMPDIR/run.csv" -n 4099 --reps 1 --warmup 0
            diff <(counts_only "$lesson_reference") <(counts_only "$BATS_TEST_TMPDIR/run.csv") ||
                fail "lesson05: counts differ in order $order with $workers workers"
        done
    done
}

@test "lesson 02: the naive mapping moves several times the coalesced one's sectors per request" {
    cd "$REPO"
    local csv="$BATS_TEST_TMPDIR/lesson02.csv" naive coalesced
    profile_csv build/emu-profile/lesson02 "$csv" -n 256x128 --reps 1 --warmup 0 --only naive,coalesced
    naive=$(figure "$csv" grayscale_naive l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio)
    coalesced=$(figure "$csv" grayscale_coalesced l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio)
    # a pixel is 3 bytes: a warp of the coalesced mapping reads 96 bytes, 3 sectors; the naive
    # mapping's lanes lie a row apart, one sector each (COURSE.md quotes both figures)
    [ "$naive" = 32.00 ] || fail "naive: $naive sectors per request, expected 32.00"
    [ "$coalesced" = 3.00 ] || fail "coalesced: $coalesced sectors per request, expected 3.00"
}

@test "lesson 05: the interleaved tree diverges, the strided one has bank conflicts instead, the sequential one neither" {
    cd "$REPO"
    local csv="$BATS_TEST_TMPDIR/lesson05.csv" interleaved strided sequential conflicts
    profile_csv build/emu-profile/lesson05 "$csv" -n 4096 --reps 1 --warmup 0 --only interleaved,strided,sequential
    interleaved=$(figure "$csv" reduce_interleaved smsp__sass_branch_targets_threads_divergent.sum)
    strided=$(figure "$csv" reduce_strided smsp__sass_branch_targets_threads_divergent.sum)
    sequential=$(figure "$csv" reduce_sequential smsp__sass_branch_targets_threads_divergent.sum)
    # tid % (2 * stride): the working lanes are spread over every warp
    [ "$interleaved" -ge $((5 * strided)) ] && [ "$interleaved" -ge $((5 * sequential)) ] ||
        fail "divergent branches: interleaved $interleaved, strided $strided, sequential $sequential"
    # ... and read words 2 * stride apart, at most 16 / stride of them per warp: a bank each
    assert_figure "$csv" reduce_interleaved l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum 0
    # index = 2 * stride * tid: 32 lanes on words 2 * stride apart share 32 / (2 * stride) banks
    conflicts=$(figure "$csv" reduce_strided l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum)
    [ "$conflicts" -gt 0 ] || fail "strided: no bank conflicts"
    assert_figure "$csv" reduce_sequential l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum 0
}

@test "lesson 05: reduce_optimized's float4 loads take 16 sectors a request, every byte used, summed over its launches" {
    cd "$REPO"
    local csv="$BATS_TEST_TMPDIR/lesson05.csv" launches
    profile_csv build/emu-profile/lesson05 "$csv" -n 4096 --reps 1 --warmup 0 --only optimized
    # the table's heading and the CSV agree on the number of launches
    launches=$(figure "$csv" reduce_optimized launches)
    ! grep -q wb_probe_kernel "$csv" || fail "the CSV has common/workbook.cu's probe kernel"
    [[ "$output" == *"kernel reduce_optimized, $launches launches"* ]] ||
        fail "the CSV says $launches launches of reduce_optimized: $(grep "kernel reduce_optimized" <<<"$output")"
    [ "$launches" -ge 2 ] || fail "reduce_optimized: $launches launches, expected the run and its check"
    # a warp's 32 consecutive float4: 512 bytes in 16 sectors; 4096 floats read per launch
    assert_figure "$csv" reduce_optimized l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio 16.00
    assert_figure "$csv" reduce_optimized smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct 100.00
    assert_figure "$csv" reduce_optimized l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum $((launches * 4096 / 4 / 32))
    assert_figure "$csv" reduce_optimized smsp__sass_data_bytes_mem_global_op_ld.sum $((launches * 4096 * 4))
}

@test "a program built without --profile prints no table" {
    require_built "$BIN/plain"
    run "$BIN/plain"
    assert_success
    assert_output "PASS profile_known_answers"
}

@test "make profile LESSON=02 prints lesson 02's tables; an unknown lesson is a one-line error" {
    cd "$REPO"
    run env -u CXX make --no-print-directory profile LESSON=02
    assert_success
    assert_line "==== lesson02 -n 256x128 --reps 1 --warmup 0"
    assert_line --partial "cuda-emu profile: kernel grayscale_naive"
    refute_output --partial "lesson01"
    # the lesson's kernels only: not common/workbook.cu's probe of the GPU
    refute_output --partial "wb_probe_kernel"
    run env -u CXX make --no-print-directory profile LESSON=42
    assert_failure 2
    assert_output --partial "make profile: LESSON=42: there is no lesson42 to profile here"
}

@test "on a GPU without Nsight Compute, the profile says how to install it and fails" {
    cd "$REPO"
    PATH="/usr/bin:/bin" PROFILE_TOOL=ncu run sh common/profile.sh lesson01
    assert_failure 1
    assert_output --partial "ncu not found: install NVIDIA Nsight Compute"
}

@test "on a GPU, Nsight Compute's CSV becomes the same table: counts summed over launches, ratios from the sums" {
    # a stand-in ncu: notes the metrics it was asked for and writes the made-up CSV to --log-file
    local bin="$BATS_TEST_TMPDIR/bin"
    mkdir -p "$bin" "$BATS_TEST_TMPDIR/build"
    cat >"$bin/ncu" <<EOF
#!/bin/sh
while [ \$# -gt 0 ]; do
    case \$1 in
        --metrics) echo "\$2" >"$BATS_TEST_TMPDIR/metrics"; shift ;;
        --log-file) cp "$REPO/tests/fixtures/ncu-profile.csv" "\$2"; shift ;;
    esac
    shift
done
EOF
    chmod +x "$bin/ncu"
    printf '#!/bin/sh\n' >"$BATS_TEST_TMPDIR/build/lesson02"
    chmod +x "$BATS_TEST_TMPDIR/build/lesson02"
    cd "$REPO"
    PATH="$bin:$PATH" PROFILE_TOOL=ncu PROFILE_BUILD="$BATS_TEST_TMPDIR/build" run sh common/profile.sh lesson02
    assert_success
    assert_line "ncu profile: kernel grayscale_naive, 2 launches (Nsight Compute on this GPU)"
    # common/workbook.cu's one-thread probe, the first launch, is no kernel of the lesson
    refute_output --partial "wb_probe_kernel"
    assert_line --regexp "^  device__attribute_multiprocessor_count +132  SMs of this GPU$"
    assert_line --regexp "^  min\(launch__occupancy_limit_\*\) +8  blocks an SM holds at once"
    assert_line --regexp "^  l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum +6144  requests"
    assert_line --regexp "^  l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio +32.00  sectors per request"
    assert_line --regexp "^  smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct +3.12  "
    assert_line "ncu profile: kernel reduce_interleaved, 1 launch (Nsight Compute on this GPU)"
    assert_line --regexp "^  \(ld wavefronts / requests\) +2.50  wavefronts per request"
    # the metrics asked for are the emulator's names
    for metric in l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum \
        smsp__sass_branch_targets_threads_divergent.sum sm__maximum_warps_per_active_cycle_pct; do
        grep -q -F "$metric" "$BATS_TEST_TMPDIR/metrics" || fail "ncu was not asked for $metric"
    done
}

@test "emucc --help says what --profile counts and what it cannot show" {
    run "$EMUCC" --help
    assert_success
    refute_output --partial "cannot be observed"
    assert_output --partial "--profile"
    assert_output --partial "bank conflicts"
    assert_output --partial "caches and timing remain the CPU's"
}

# quoted_counts: every count COURSE.md quotes from make profile, one per line as
# "lesson<TAB>kernel<TAB>metric<TAB>value". A table after a paragraph naming
# `make profile LESSON=NN` has a header row | counted ... | `kernel` | ... and rows
# | what it counts (`metric`) | value | ..., the metric as the table and CSV name it.
quoted_counts() {
    awk -F'|' '
    /make profile LESSON=[0-9][0-9]/ { match($0, /LESSON=[0-9][0-9]/); lesson = substr($0, RSTART + 7, 2) }
    /^\| counted / {
        kernels = 0
        for (i = 3; i < NF; i++) { name = $i; gsub(/[` ]/, "", name); kernel[++kernels] = name }
        next
    }
    kernels && /^\|/ {
        parts = split($2, part, "`")
        if (parts < 3) next
        for (i = 3; i < NF && i - 2 <= kernels; i++) {
            value = $i; gsub(/[ ,]/, "", value)
            if (value == "-") continue  # the kernel made no such access
            printf "%s\t%s\t%s\t%s\n", lesson, kernel[i - 2], part[parts - 1], value
        }
        next
    }
    !/^\|/ { kernels = 0 }
    ' "$REPO/COURSE.md"
}

@test "every count COURSE.md quotes from make profile is what --profile prints" {
    local lesson kernel metric value printed checked=0 csv
    while IFS=$'\t' read -r lesson kernel metric value; do
        csv="$BATS_FILE_TMPDIR/lesson$lesson.csv"
        if [ ! -s "$csv" ]; then
            require_built "$REPO/build/emu-profile/lesson$lesson"
            # shellcheck disable=SC2046  # PROFILE_ARGS is a list of words
            CUDA_EMU_PROFILE_CSV="$csv" "$REPO/build/emu-profile/lesson$lesson" \
                $(sed -n 's/^PROFILE_ARGS[[:space:]]*=[[:space:]]*//p' "$REPO"/lessons/"$lesson"-*/lesson.conf) \
                >/dev/null 2>&1 || fail "lesson$lesson failed under --profile"
        fi
        printed=$(figure "$csv" "$kernel" "$metric")
        [ "$printed" = "$value" ] ||
            fail "COURSE.md quotes $metric of $kernel (lesson $lesson) as $value; --profile prints '$printed'"
        checked=$((checked + 1))
    done < <(quoted_counts)
    [ "$checked" -ge 80 ] || fail "only $checked quoted counts found in COURSE.md"
}

@test "each lesson's NCU_ARGS leave every variant's kernels inside ncu's first 24 launches" {
    # make gpu-report profiles a lesson at its NCU_ARGS with ncu --launch-count 24, the probe
    # kernel first: the variants may launch 23 kernels at most, or the last go unmeasured.
    # These lessons' counts do not depend on the size, so a small -n stands in for the GPU's.
    local pair lesson small arguments csv total
    for pair in lesson03:64 lesson04:48 lesson06:64x64 lesson08:64x32; do
        lesson=${pair%%:*} small=${pair#*:}
        arguments=$(lesson_setting "$lesson" NCU_ARGS | sed -E "s/-n [^ ]+/-n $small/")
        csv="$BATS_TEST_TMPDIR/$lesson.csv"
        # shellcheck disable=SC2086  # the arguments are a list of words
        profile_csv "$REPO/build/emu-profile/$lesson" "$csv" $arguments --reps 1 --warmup 0 \
            --cache warm --quiet-warnings
        total=$(awk -F, '$3 == "launches" { n += $4 } END { print n + 0 }' "$csv")
        [ "$total" -ge 4 ] && [ "$total" -le 23 ] ||
            fail "$lesson $arguments: $total launches; ncu measures the first 23 after the probe"
    done
}
