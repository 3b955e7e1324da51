#!/usr/bin/env bats
# tests/emu.bats - the specification of the CPU emulator (common/emu/), as tests.
#
# Run: bats tests/emu.bats   (about a minute on two cores; compiling dominates)
#      EMU_CXX=clang++ bats tests/emu.bats   the same with clang++ as the host compiler
# Every program in tests/emu/ is built with common/emu/emucc in setup_file, two at a time; a
# program that fails to build fails only the tests that run it (with its compiler messages).
# Self-checking programs must print "PASS name" under every thread order; the bug_* programs must
# make the emulator report exactly the bug they contain. The rest checks emucc as a compiler:
# launches over several lines, error lines that point into the .cu, dependency files for make.

bats_require_minimum_version 1.5.0
bats_load_library bats-support
bats_load_library bats-assert

REPO="$(cd "$BATS_TEST_DIRNAME/.." && pwd)"
EMUCC="$REPO/common/emu/emucc"
# The host compiler emucc uses in every test here (make test runs this file with g++ and clang++).
export CXX="${EMU_CXX:-g++}"

setup_file() {
    export BIN="$BATS_FILE_TMPDIR/bin"
    mkdir -p "$BIN"
    # Compile from the repository root with relative paths, as make does: reports name
    # tests/emu/NAME.cu:LINE.
    cd "$REPO"
    # Build the runtime first (one process), then the programs two at a time. A failed build
    # leaves NAME.build.log and no program.
    "$EMUCC" -o "$BIN/check_runtime" tests/emu/vector_add.cu 2>"$BIN/runtime.build.log" || true
    printf '%s\n' tests/emu/*.cu | xargs -P 2 -I{} sh -c \
        'name=$(basename "{}" .cu); "$0" -o "$1/$name" "{}" 2>"$1/$name.build.log"' "$EMUCC" "$BIN" || true
}

# Fails the calling test, with the compiler's messages, when tests/emu/NAME.cu did not build.
built() {
    [ -x "$BIN/$1" ] && return 0
    echo "tests/emu/$1.cu did not build with CXX=$CXX:" >&2
    cat "$BIN/$1.build.log" >&2
    return 1
}

line_of() {  # line_of FILE TEXT: the line number where TEXT first appears
    grep -n -F -- "$2" "$1" | head -n 1 | cut -d: -f1
}

run_in_every_order() {  # run_in_every_order NAME [OUTPUT]: the output expected, "PASS NAME" if not given
    local name=$1
    built "$name"
    for order in forward reverse random:12345; do
        CUDA_EMU_ORDER=$order run "$BIN/$name"
        assert_success
        assert_output "${2:-PASS $name}"
    done
}

# ---- Kernels give the GPU's results, whatever order threads run in ------------------------------

@test "vector add is right for 1, a prime and 2^20+1 elements in every thread order" {
    run_in_every_order vector_add
}

@test "shared-memory tree reduction is right with static and dynamic shared memory" {
    run_in_every_order reduce_shared
}

@test "warp shuffles (down, xor, up with width, broadcast) move values between lanes" {
    run_in_every_order warp_shuffle
}

@test "matrix transpose through a shared tile is right for awkward shapes" {
    run_in_every_order transpose
}

@test "every atomic is atomic across blocks running on different cores" {
    CUDA_EMU_WORKERS=4 run_in_every_order atomics
}

@test "constant and device variables work with cudaMemcpyToSymbol and FromSymbol" {
    run_in_every_order constant_memory
}

@test "templated, namespaced kernels launch over several lines with all four configuration arguments" {
    run_in_every_order launch_syntax
}

@test "built-in indices are right in 2D and 3D grids and blocks" {
    run_in_every_order grids
}

@test "__syncthreads_count, _and and _or reduce a predicate over the block" {
    run_in_every_order syncthreads_reduce
}

@test "warp votes and __activemask see exactly the lanes that exist, in a branch those that took it; __match_*_sync compare" {
    run_in_every_order votes
}

@test "bad launch configurations fail with the GPU's error and do not run the kernel" {
    run_in_every_order bad_launch
}

@test "the occupancy API and device properties are self-consistent" {
    run_in_every_order occupancy
}

@test "CUDA_EMU_REGISTERS and CUDA_EMU_LOCAL_BYTES set a kernel's attributes and its occupancy" {
    built function_attributes
    run "$BIN/function_attributes"
    assert_success
    # by default 32 registers: the modelled H100's 65,536 per SM hold 2,048 threads, 8 blocks of 256
    assert_output "registers 32, local bytes 0, at most 1024 threads a block, 256-thread blocks per SM: 8"
    # 255 registers: 8,192 a warp (in units of 256), 2 warps in each of 4 sub-partitions of
    # 16,384: 8 warps a block at most, one block of 256 per SM
    CUDA_EMU_REGISTERS=255 CUDA_EMU_LOCAL_BYTES=96 run "$BIN/function_attributes"
    assert_success
    assert_output "registers 255, local bytes 96, at most 256 threads a block, 256-thread blocks per SM: 1"
    # 40 registers: 1,280 a warp, 12 warps in each sub-partition, 48 per SM: 6 blocks of 8 warps;
    # on a T4 (1,024 threads per SM) the threads limit first: 4 blocks
    CUDA_EMU_REGISTERS=40 run "$BIN/function_attributes"
    assert_output "registers 40, local bytes 0, at most 1024 threads a block, 256-thread blocks per SM: 6"
    CUDA_EMU_DEVICE=t4 CUDA_EMU_REGISTERS=40 run "$BIN/function_attributes"
    assert_output "registers 40, local bytes 0, at most 1024 threads a block, 256-thread blocks per SM: 4"
}

@test "a stream reports work the host has not waited for as not ready, until a wait covers it" {
    run_in_every_order stream_query
}

@test "pinned memory that a cudaMemcpyAsync still uses, touched before the host waits, is stopped at that line; every wait opens it; pageable memory is noted once" {
    # with no argument: every kind of wait, a kernel and a host function after the copy in its
    # stream, the bytes of a page that the copy does not move, the source of a copy read
    run_in_every_order bug_read_before_wait
    local program="$BATS_TEST_TMPDIR/bug_read_before_wait" source=tests/emu/bug_read_before_wait.cu
    "$EMUCC" -g -Itests/emu -o "$program" "$source"  # -g: the report names the line
    local stream="stream 0x[0-9a-f]+" wait_first="The host has not waited for that copy: on a GPU it may still be running"
    # "access" where the processor does not tell a read from a write (as under qemu-user)
    local read="(read|access)"
    run "$program" read
    assert_failure 1
    assert_output --regexp "^cuda-emu: host $read of pinned memory that a cudaMemcpyAsync in $stream is still copying into \(device to host\), at $source:$(line_of "$source" "BUG: the copy may still be running"): byte 0 of the 12308 bytes it copies into a 12308-byte pinned buffer\. $wait_first, and these bytes may not hold its results yet\. Wait for it first: cudaStreamSynchronize, cudaEventSynchronize or cudaDeviceSynchronize$"
    # cudaStreamQuery said cudaErrorNotReady: the copy is not known to be done
    run "$program" read-after-query
    assert_failure 1
    assert_output --regexp "^cuda-emu: host $read of pinned memory .* at $source:$(( $(line_of "$source" "BUG: not ready, read all the same") + 1 )): byte 12304 of the 12308 bytes"
    run "$program" other-stream
    assert_failure 1
    assert_output --regexp "^cuda-emu: host $read of pinned memory .* at $source:$(( $(line_of "$source" "BUG: waits for the wrong stream") + 1 )): byte 400 of the 12308 bytes"
    # pageable memory is not watched (the runtime copies it before returning); a copy in a
    # stream of the program's is noted, once, as one that overlaps nothing on a GPU
    run --separate-stderr "$program" pageable
    assert_success
    assert_output "PASS bug_read_before_wait"
    [[ "$stderr" =~ ^"cuda-emu: note: cudaMemcpyAsync in stream 0x"[0-9a-f]+" copies into pageable memory (which cudaMallocHost, cudaHostAlloc or cudaHostRegister did not pin): on a GPU it may not return before the copy is done, and overlaps little or nothing with the host and the other streams. Pinned memory lets it overlap (lesson 07)"$ ]] ||
        fail "not one note on pageable memory: $stderr"
    # a copy to the device: reading its source is allowed, writing it is not
    run "$program" write-source
    assert_failure 1
    assert_output --regexp "^cuda-emu: host write of pinned memory that a cudaMemcpyAsync in $stream is still copying from \(host to device\), at $source:$(line_of "$source" "BUG: the copy may still be reading it"): byte 28 of the 12308 bytes it copies from a 12308-byte pinned buffer\. $wait_first, and may send the new bytes instead of the old\."
}

@test "CUDA graphs: captured launches keep their arguments, nodes run in dependency order, misuse fails" {
    run_in_every_order graphs
}

@test "libcu++'s cuda::memcpy_async arrives, waited for with a thread's pipeline, a pipeline a block shares, or a block's barrier (split, for part of the block, dropped)" {
    run_in_every_order libcudacxx_copy
}

@test "libcu++'s atomics: atomic_ref of a block's and the device's scope, min, max, float add, compare-exchange, bit operations, exchange, wait" {
    run_in_every_order libcudacxx_atomic
}

@test "libcu++'s latches, semaphores and barriers with a completion function order a block's threads, and a device-wide latch the blocks of a grid" {
    run_in_every_order libcudacxx_sync
}

@test "libcu++'s synchronization misused: a semaphore released past its maximum is a device-side assert at its line; a barrier two blocks use is refused" {
    built libcudacxx_sync
    local source=tests/emu/libcudacxx_sync.cu
    run "$BIN/libcudacxx_sync" double-release
    assert_failure 1
    assert_output --partial "$source:$(line_of $source "// the bug: a second release"): release_twice: block: [0,0,0], thread: [0,0,0] Assertion \`a semaphore's release() took its count past max() (a binary semaphore released twice?), or its update was negative\` failed."
    # one worker, so that block 0 runs before block 1 in every run
    local line
    line=$(line_of $source "shared_by_blocks.arrive_and_wait();")
    CUDA_EMU_WORKERS=1 run "$BIN/libcudacxx_sync" two-blocks
    assert_failure 1
    assert_line --regexp "^cuda-emu: a cuda::barrier that threads of two blocks use, in kernel barrier_of_two_blocks, block \(1,0,0\), thread \([0-9]+,0,0\), at $source:$line \(block \(0,0,0\) used it first\): the emulator's barriers are a block's, whatever their scope, so threads of two blocks cannot wait at one together here$"
    CUDA_EMU_WORKERS=1 run "$BIN/libcudacxx_sync" both-counted
    assert_failure 1
    assert_line "cuda-emu: deadlock in kernel barrier_of_two_blocks, block (0,0,0): no thread of the block can continue."
    assert_line "cuda-emu: the barrier waited for at $source:$line expects 64 arrivals a phase, more than the block's 32 threads: the emulator's barriers are a block's, whatever their scope, so threads of other blocks cannot arrive at it."
}

@test "libcu++'s copies and barriers: a misaligned copy is a device-side assert; a missing arrival is a deadlock, an extra one an error, each at its line" {
    built libcudacxx_copy
    local source=tests/emu/libcudacxx_copy.cu
    run "$BIN/libcudacxx_copy" misaligned
    assert_failure 1
    assert_output --partial "$source:$(line_of $source "x + 1: not a multiple of 16"): misaligned_copy: block: [0,0,0], thread: [0,0,0] Assertion \`cuda::memcpy_async: aligned_size_t<N> needs both addresses and the size to be multiples of N\` failed."
    run "$BIN/libcudacxx_copy" missing-arrival
    assert_failure 1
    assert_line "cuda-emu: deadlock in kernel missing_arrival, block (0,0,0): no thread of the block can continue."
    assert_line --regexp "^cuda-emu:   32 thread\(s\) wait at the wait of a cuda::barrier \(wait, arrive_and_wait, or a block pipeline's acquire or wait\) at $source:$(line_of $source "// half of the block arrives") \(first: thread \([0-9]+,0,0\)\)$"
    assert_line --regexp "^cuda-emu:   32 thread\(s\) returned from the kernel \(first: thread \([0-9]+,0,0\)\)$"
    assert_line "cuda-emu: a cuda::barrier's phase ends when as many arrivals as init() set have come; a thread that returned, or waits somewhere else, does not arrive."
    for order in forward reverse; do
        CUDA_EMU_ORDER=$order run "$BIN/libcudacxx_copy" extra-arrival
        assert_failure 1
        assert_output --regexp "cuda-emu: too many arrivals at a cuda::barrier in kernel extra_arrival, block \(0,0,0\), thread \([01],0,0\), at $source:$(line_of $source "// four arrivals in a phase of three"): 2 arrival\(s\) in a phase that waits for 1 more of the 3 init\(\) set"
    done
}

@test "graph memory nodes: an allocation keeps its address across launches and lives from its alloc node to its free" {
    run_in_every_order graph_memory
}

@test "graph memory nodes: what CUDA forbids fails with its error and a line that says why" {
    built graph_memory
    run "$BIN/graph_memory" misuse
    assert_success
    assert_line "PASS graph_memory"
    local made_at="tests/emu/graph_memory.cu:$(line_of tests/emu/graph_memory.cu "CHECK(cudaGraphAddMemAllocNode(&alloc, graph")"
    assert_line "cuda-emu: cudaGraphLaunch: the graph allocation made at $made_at by its last launch is not freed yet; free it first (cudaFree, cudaFreeAsync or a graph with a memory free node), or instantiate with cudaGraphInstantiateFlagAutoFreeOnLaunch"
    assert_line "cuda-emu: cudaGraphInstantiate: a graph with memory alloc or free nodes may have only one executable graph at a time (cudaGraphExecDestroy the other first)"
    assert_line "cuda-emu: cudaGraphClone: a graph with memory alloc or free nodes cannot be cloned"
    assert_line --regexp "^cuda-emu: a memory free node needs the address of a graph allocation .* is not one$"
    local own_at="tests/emu/graph_memory.cu:$(line_of tests/emu/graph_memory.cu "CHECK(cudaGraphAddMemAllocNode(&own_alloc")"
    assert_line "cuda-emu: the graph allocation made at $own_at already has its memory free node"
    assert_line "cuda-emu: the graph allocation made at $own_at is freed by a memory free node of its own graph, so no other graph may free it"
}

@test "conditional graph nodes: if, else, while and switch bodies run as the value a kernel sets decides" {
    run_in_every_order conditional_graphs
}

@test "conditional graph nodes: a handle of another graph, a body with a host node and a capture with nowhere to go are refused" {
    built conditional_graphs
    run "$BIN/conditional_graphs" misuse
    assert_success
    assert_line "PASS conditional_graphs"
    assert_line "cuda-emu: a conditional node needs a handle made for its own graph (cudaGraphConditionalHandleCreate with the graph the node goes into)"
    assert_line "cuda-emu: cudaGraphInstantiate: a conditional node's body may hold only kernel, memcpy, memset, empty, child-graph and conditional nodes"
}

@test "a kernel node that reads graph memory after its free node is reported, with the alloc node's line" {
    built graph_memory
    run "$BIN/graph_memory" after-free
    assert_failure 1
    assert_output --regexp "cuda-emu: read of graph memory outside its lifetime in kernel copy_doubled, block \([0-9]+,0,0\), thread \(0,0,0\) at .*: byte [0-9]+ of a 4000-byte allocation whose memory alloc node was made at tests/emu/graph_memory.cu:$(line_of tests/emu/graph_memory.cu "// the alloc node")\. It exists from when that node runs until it is freed"
    refute_output --partial "FAIL"
}

@test "asynchronous copies to shared memory (the pipeline primitives, a group's memcpy_async) arrive, zero-filled past the end" {
    run_in_every_order async_copy
    # a copy from an address that is not a multiple of its size is a device-side assert, as on a GPU
    built async_copy
    run "$BIN/async_copy" misaligned
    assert_failure 1
    assert_output --partial "tests/emu/async_copy.cu:$(line_of tests/emu/async_copy.cu "x + 1: 4 bytes past"): misaligned_copy: block: [0,0,0], thread: [0,0,0] Assertion \`__pipeline_memcpy_async: both addresses must be multiples of the size\` failed."
    assert_output --partial "device-side assert triggered"
}

@test "emucc --sanitize names a read of an asynchronous copy that another thread made, with no barrier after the wait" {
    sed 's|        __syncthreads();  // every thread.s part of tile t|        // (the barrier left out)|' \
        tests/emu/async_copy.cu >"$BATS_TEST_TMPDIR/no_barrier.cu"
    grep -q "the barrier left out" "$BATS_TEST_TMPDIR/no_barrier.cu" || fail "the sed expression changed nothing"
    local copy read
    copy=$(line_of tests/emu/async_copy.cu "__pipeline_memcpy_async(&buffer")
    read=$(line_of tests/emu/async_copy.cu "sum += buffer[t % 2][i]")
    "$EMUCC" --sanitize -Itests/emu -o "$BATS_TEST_TMPDIR/no_barrier" "$BATS_TEST_TMPDIR/no_barrier.cu"
    run "$BATS_TEST_TMPDIR/no_barrier"
    assert_failure
    assert_output --partial "cuda-emu: data race on shared memory in kernel double_buffered_sum"
    assert_output --regexp "reads at .*no_barrier.cu:$read"
    assert_output --regexp "writes at .*no_barrier.cu:$copy"
}

@test "emucc --sanitize checks copies into shared memory by memcpy and by struct assignment: a barrier orders them, a missing one is a race" {
    cd "$BATS_TEST_TMPDIR"
    cat >copies.cu <<'EOF'
#include <cstdio>
#include <cstring>
struct Weights { float w[64]; };
__global__ void weigh(const Weights* weights, float* out) {
    __shared__ Weights staged;
    __shared__ float raw[64];
    if (threadIdx.x == 0) {
        staged = *weights;
        memcpy(raw, weights->w, sizeof raw);
    }
#ifndef NO_BARRIER
    __syncthreads();
#endif
    out[threadIdx.x] = staged.w[threadIdx.x] + raw[threadIdx.x];
}
int main() {
    Weights weights;
    for (int i = 0; i < 64; i++) weights.w[i] = i;
    Weights* d_weights;
    float *d_out, out[64];
    cudaMalloc(&d_weights, sizeof weights);
    cudaMalloc(&d_out, sizeof out);
    cudaMemcpy(d_weights, &weights, sizeof weights, cudaMemcpyHostToDevice);
    weigh<<<1, 64>>>(d_weights, d_out);
    cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost);
    printf("%g %g\n", out[1], out[63]);
}
EOF
    "$EMUCC" --sanitize -o copies copies.cu
    run ./copies
    assert_success
    assert_output "2 126"
    "$EMUCC" --sanitize -DNO_BARRIER -o racy copies.cu
    run ./racy
    assert_failure
    assert_output --partial "cuda-emu: data race on shared memory in kernel weigh"
    assert_output --regexp "reads at .*copies.cu:14"
    assert_output --regexp "writes at .*copies.cu:(8|9)"
}

@test "warp matrix multiply-accumulate (wmma) gives a CPU's product for every type and shape, in both layouts" {
    run_in_every_order wmma
}

@test "bit and math intrinsics give CUDA's values, and printf works inside a kernel" {
    for order in forward reverse random:12345; do
        built intrinsics
        CUDA_EMU_ORDER=$order run "$BIN/intrinsics"
        assert_success
        assert_line --index 0 "kernel printf 42 1.5"
        assert_line --index 1 "PASS intrinsics"
    done
}

@test "a program including the whole C++ standard library builds: no CUDA keyword is a colliding macro" {
    run_in_every_order standard_headers
}

@test "cooperative groups: block sync and ranks, tiles with shuffles, votes and reduce, grid ranks" {
    run_in_every_order cooperative_groups
}

@test "thread_group holds a block, a tile or a run-time tile; one function serves them all" {
    built thread_group
    for order in forward reverse random:12345; do
        CUDA_EMU_ORDER=$order run --separate-stderr "$BIN/thread_group"
        assert_success
        assert_output "PASS thread_group"
        [[ "$stderr" == *"tiled_partition: block: [0,0,0], thread: ["*"] Assertion \`tiled_partition(group, size): the emulator's tiles have a power-of-two size of 32 threads or fewer"* ]] ||
            fail "the bad tile size was not reported: $stderr"
    done
}

@test "coalesced_threads() in a branch holds the lanes that took it: shuffles by rank, votes, reduce, one atomic per warp" {
    run_in_every_order coalesced_groups
}

@test "a shuffle that reads a lane outside its mask gets NaN under CUDA_EMU_POISON, and a failing program names it" {
    # lane 0's tree sum never uses what lanes 8 to 15 read from outside the mask: quiet
    run_in_every_order shuffle_outside_mask
    CUDA_EMU_POISON=1 run --separate-stderr "$BIN/shuffle_outside_mask" --print-undefined
    assert_success
    assert_line --regexp "^lane 8 got -?nan$"
    assert_equal "$stderr" ""
    # a program that uses those values fails, and the emulator says which shuffles read them
    local step tree
    step=$(grep -n "one_step\[lane\] = v + __shfl_down_sync" tests/emu/shuffle_outside_mask.cu | cut -d: -f1)
    tree=$(grep -n "v += __shfl_down_sync" tests/emu/shuffle_outside_mask.cu | cut -d: -f1)
    for order in forward reverse random:12345; do
        CUDA_EMU_ORDER=$order CUDA_EMU_POISON=1 run --separate-stderr "$BIN/shuffle_outside_mask" --use-undefined
        assert_failure 1
        assert_output --regexp "^FAIL shuffle_outside_mask: lane 8's step gave -?nan, expected 9$"
        [[ "$stderr" == *"cuda-emu: this program failed, and read values CUDA leaves undefined: shuffles read lanes outside their masks (here all one bits: NaN as a float, -1 as an int):"* ]] ||
            fail "no report of the shuffles: $stderr"
        [ "$(grep -c 'not in the mask' <<<"$stderr")" -eq 2 ] || fail "not one line per shuffle: $stderr"
        [[ "$stderr" == *"cuda-emu:   __shfl_down_sync at tests/emu/shuffle_outside_mask.cu:$step in kernel half_warp_sums, block (0,0,0): lane 8 of warp 0 reads lane 16, not in the mask 0x0000ffff"* ]] ||
            fail "the single step's shuffle is not named: $stderr"
        [[ "$stderr" == *"shuffle_outside_mask.cu:$tree in kernel half_warp_sums"* ]] || fail "the tree's shuffle is not named: $stderr"
    done
    # without poisoned memory the lane keeps its own value
    run --separate-stderr "$BIN/shuffle_outside_mask" --use-undefined
    assert_failure 1
    assert_output "FAIL shuffle_outside_mask: lane 8's step gave 18, expected 9"
    [[ "$stderr" == *"(here the lane's own value)"* ]] || fail "$stderr"
}

@test "__reduce_*_sync over a whole warp, a warp cut short and a mask a ballot made before a branch" {
    run_in_every_order warp_reduce_sync
}

@test "warp-aggregated atomics by bucket: labeled_partition of a coalesced group, shfl, reduce greater, less, plus" {
    run_in_every_order labeled_reduce
}

@test "tiles of 64 to 512 threads: ranks, meta groups, a sync of the tile alone, shfl, any, all, reduce" {
    run_in_every_order large_tiles
}

@test "large tiles and coalesced groups lack what CUDA's lack at compile time; ragged tiles, too large a block and a missed sync are reported" {
    cd "$BATS_TEST_TMPDIR"
    local code message
    # each line: what the kernel does, then the compiler's message
    while IFS='|' read -r code message; do
        cat >large.cu <<EOF
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
struct Pair { double a, b; };
__global__ void k(int* p, Pair* q) {
    auto tile = cg::tiled_partition<64>(cg::this_thread_block());
    $code;
}
int main() { return 0; }
EOF
        LC_ALL=C run "$EMUCC" -c large.cu -o large.o  # plain quotes in g++'s messages
        assert_failure
        assert_output --partial "$message"
    done <<'EOF'
cg::thread_block_tile<96> odd = cg::tiled_partition<96>(cg::this_thread_block())|a thread_block_tile has a power-of-two size: 1 to 32 threads within a warp, or 64 to 1024 threads of whole warps, as in CUDA
p[0] = tile.shfl_down(p[0], 1)|no member named 'shfl_down'
p[0] = tile.ballot(p[0])|no member named 'ballot'
q[0] = tile.shfl(q[0], 0)|a tile of more than 32 threads moves values of at most 8 bytes in its shfl and reduce, as in CUDA
cg::thread_group group = tile|a thread_group holds tiles of 32 threads or fewer
auto part = cg::labeled_partition(tile, p[0])|labeled_partition and binary_partition split tiles of 32 threads or fewer
auto same = cg::tiled_partition<64>(tile)|the tile to split must be larger than Size
auto group = cg::coalesced_threads(); auto four = cg::tiled_partition<4>(group)|no matching function for call to
auto group = cg::coalesced_threads(); p[0] = group.shfl_xor(p[0], 1)|no member named 'shfl_xor'
EOF
    cat >deadlock.cu <<'EOF'
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void early_return(int* p) {
    auto tile = cg::tiled_partition<128>(cg::this_thread_block());
    if (tile.thread_rank() == 100) return;
    tile.sync();  // the sync thread 100 never reaches
    p[threadIdx.x] = 1;
}
int main() {
    int* p;
    cudaMalloc(&p, 128 * sizeof(int));
    early_return<<<1, 128>>>(p);
    return cudaDeviceSynchronize() != cudaSuccess;
}
EOF
    run "$EMUCC" -o deadlock deadlock.cu
    assert_success
    run timeout 20 ./deadlock
    assert_failure 1
    assert_output --partial "cuda-emu: deadlock in kernel early_return, block (0,0,0)"
    assert_output --partial "127 thread(s) wait at the sync() of a tile of more than 32 threads at deadlock.cu:6"
    assert_output --partial "1 thread(s) returned from the kernel (first: thread (100,0,0))"
    # A 64-thread tile of a 96-thread block, and a block larger than its block_tile_memory, are
    # device-side asserts: a GPU would compute garbage.
    cat >asserts.cu <<'EOF'
#include <cstdio>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void ragged(int* p) { p[threadIdx.x] = cg::tiled_partition<64>(cg::this_thread_block()).thread_rank(); }
__global__ void too_large(int* p) {
    __shared__ cg::block_tile_memory<256> scratch;
    p[threadIdx.x] = cg::tiled_partition<64>(cg::this_thread_block(scratch)).thread_rank();
}
int main() {
    int* p;
    cudaMalloc(&p, 512 * sizeof(int));
    ragged<<<1, 96>>>(p);
    printf("ragged: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    cudaDeviceReset();
    cudaMalloc(&p, 512 * sizeof(int));
    too_large<<<1, 512>>>(p);
    printf("too large: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    return 0;
}
EOF
    run "$EMUCC" -o asserts asserts.cu
    assert_success
    run --separate-stderr ./asserts
    assert_success
    assert_output "ragged: cudaErrorAssert
too large: cudaErrorAssert"
    [[ "$stderr" == *"Assertion \`tiled_partition<Size>(parent): a tile of more than 32 threads needs a parent whose size is a multiple of the tile's\` failed."* ]] ||
        fail "the ragged tile was not reported: $stderr"
    [[ "$stderr" == *"Assertion \`this_thread_block(scratch): the block has more threads than the block_tile_memory<MaxBlockSize> was made for\` failed."* ]] ||
        fail "the block larger than its block_tile_memory was not reported: $stderr"
}

@test "a tile's shuffles move a double2, a float3 and a 32-byte struct; reduce takes such a struct" {
    run_in_every_order shuffle_large
}

@test "the shuffle intrinsics refuse values over 8 bytes and a tile's shfl over 32, as CUDA's do" {
    cd "$BATS_TEST_TMPDIR"
    cat >intrinsic.cu <<'EOF'
__global__ void k(double2* p) { p[threadIdx.x] = __shfl_sync(0xffffffffu, p[threadIdx.x], 0); }
int main() { return 0; }
EOF
    run "$EMUCC" -c intrinsic.cu -o intrinsic.o
    assert_failure
    assert_output --partial "shuffle intrinsics take built-in types of at most 8 bytes, as in CUDA"
    cat >tile.cu <<'EOF'
#include <cooperative_groups.h>
struct Big { double d[5]; };
__global__ void k(Big* p) {
    auto tile = cooperative_groups::tiled_partition<32>(cooperative_groups::this_thread_block());
    p[threadIdx.x] = tile.shfl(p[threadIdx.x], 0);
}
int main() { return 0; }
EOF
    run "$EMUCC" -c tile.cu -o tile.o
    assert_failure
    assert_output --partial "a tile's shfl moves values of at most 32 bytes, as in CUDA"
}

@test "a cooperative launch fills the SMs it may, grid.sync() orders the steps of a stencil across blocks" {
    # an H100's SM holds 16 blocks of 128 threads; the emulator runs a cooperative grid of as many
    # SMs as it has workers (an OS thread per block), and refuses a larger one, saying why
    built grid_sync
    for workers in 1 2 3; do
        for order in forward reverse random:12345; do
            CUDA_EMU_WORKERS=$workers CUDA_EMU_ORDER=$order run "$BIN/grid_sync" "$workers"
            assert_success
            assert_output "$((workers * 16)) blocks of 128 threads
PASS grid_sync"
        done
    done
    CUDA_EMU_WORKERS=2 run --separate-stderr "$BIN/grid_sync" 3
    assert_failure
    assert_output "FAIL grid_sync: tests/emu/grid_sync.cu:$(line_of "$REPO/tests/emu/grid_sync.cu" "CHECK(cudaLaunchCooperativeKernel((void*)ring_sums"): cudaLaunchCooperativeKernel((void*)ring_sums, dim3(blocks), dim3(threads), args) returned cudaErrorCooperativeLaunchTooLarge"
    assert_equal "$stderr" "cuda-emu: a cooperative launch of 48 blocks (kernel ring_sums): the modelled GPU holds them at once, but the emulator runs each block of a cooperative launch on an OS thread of its own and holds 32 (16 per SM x CUDA_EMU_WORKERS=2): a smaller grid, or more workers, runs"
}

@test "cudaLaunchCooperativeKernel((void*)kernel) of a kernel the emulator never saw typed is refused, with why" {
    # emucc notes every kernel defined at namespace scope when the program starts (plain), but a
    # template's instance exists only where the program names it: as void* it stays unknown
    cd "$BATS_TEST_TMPDIR"
    cat >untyped.cu <<'EOF'
#include <cstdio>
template <class T> __global__ void k(T* p) { *p = 1; }
__global__ void plain(int* p) { *p = 2; }
int main() {
    int* d;
    cudaMalloc(&d, sizeof(int));
    void* args[] = {&d};
    printf("%s\n", cudaGetErrorName(cudaLaunchCooperativeKernel((void*)k<int>, 1, 1, args)));
    printf("%s\n", cudaGetErrorName(cudaLaunchCooperativeKernel(k<int>, 1, 1, args)));  // now known
    printf("%s\n", cudaGetErrorName(cudaLaunchKernel((void*)k<int>, 1, 1, args)));
    printf("%s\n", cudaGetErrorName(cudaLaunchKernel((void*)plain, 1, 1, args)));
    int h = 0;
    cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("%d\n", h);
}
EOF
    run "$EMUCC" -o untyped untyped.cu
    assert_success
    run --separate-stderr ./untyped
    assert_success
    assert_output "cudaErrorInvalidDeviceFunction
cudaSuccess
cudaSuccess
cudaSuccess
2"
    [[ "$stderr" == "cuda-emu: a kernel launched by cudaLaunchCooperativeKernel as (void*)kernel, whose parameter types the emulator cannot know: pass the kernel itself, or ask cudaOccupancyMaxActiveBlocksPerMultiprocessor about it first" ]] ||
        fail "stderr: $stderr"
}

@test "an assert in one block of a cooperative launch ends the blocks waiting at grid.sync() too" {
    cd "$BATS_TEST_TMPDIR"
    cat >coop_assert.cu <<'EOF'
#include <cassert>
#include <cstdio>
#include <cooperative_groups.h>
__global__ void k(int* d) {
    cooperative_groups::grid_group grid = cooperative_groups::this_grid();
    assert(blockIdx.x != 3 || threadIdx.x != 7);
    grid.sync();
    d[grid.thread_rank()] = 1;
}
int main() {
    int* d;
    cudaMalloc(&d, 8 * 64 * sizeof(int));
    void* args[] = {&d};
    cudaError_t launch = cudaLaunchCooperativeKernel(k, 8, 64, args);
    printf("launch %s, then %s\n", cudaGetErrorName(launch), cudaGetErrorName(cudaDeviceSynchronize()));
}
EOF
    run "$EMUCC" -o coop_assert coop_assert.cu
    assert_success
    for workers in 1 2 4; do
        for order in forward reverse; do
            CUDA_EMU_WORKERS=$workers CUDA_EMU_ORDER=$order run --separate-stderr timeout 20 ./coop_assert
            assert_success
            assert_output "launch cudaSuccess, then cudaErrorAssert"
            [[ "$stderr" == "coop_assert.cu:6: void k(int"*"): block: [3,0,0], thread: [7,0,0] Assertion \`blockIdx.x != 3 || threadIdx.x != 7\` failed." ]] ||
                fail "stderr: $stderr"
        done
    done
}

@test "grid.sync() that some blocks never reach is a deadlock; in a <<<>>> launch it is refused" {
    local line
    line=$(line_of "$REPO/tests/emu/bug_grid_sync.cu" "the grid-wide barrier the returned blocks miss")
    built bug_grid_sync
    run timeout 20 "$BIN/bug_grid_sync"
    assert_failure 1
    assert_output --partial "cuda-emu: deadlock in kernel shift_left: 2 block(s) wait at grid.sync() at tests/emu/bug_grid_sync.cu:$line, and 2 block(s) returned from the kernel without reaching it."
    run timeout 20 "$BIN/bug_grid_sync" plain
    assert_failure 1
    assert_output --partial "cuda-emu: grid.sync() in kernel shift_left, whose launch was not cooperative: a grid-wide barrier needs all blocks on the GPU at once"
}

@test "texture objects fetch by the CUDA programming guide's rules: filtering, address modes, normalized reads" {
    local expected="linear float tex1Dfetch 0 3 7 -1 8: 0 4.5 10.5 0 0
uchar normalized 0 51 255 128: 0 0.2 1 0.5019608
short normalized -32768 32767 -16384 1000: -1 1 -0.5000153 0.03051851
point clamp -3 0.5 1.99 3.5 9: 10 10 20 40 40
texel coordinates, wrap -3 0.5 1.99 3.5 9: 10 10 20 40 40
linear clamp 0.5 1 1.25 0 4.5 2.253: 10 15 17.5 10 40 27.53906
normalized wrap 1.125 -0.125 0.375: 10 40 20
normalized mirror 1.125 -0.125 0.375: 40 10 20
normalized border 1.125 -0.125 0.375: 99 99 20
linear wrap at 0 and 1: 25 25
linear clamp at 0 and 1: 10 40
linear border at 0 and 1: 5 20
pitch2D linear (1,1) (2.25,1.5) (-5,10) (3.5,2.5): 5.5 11.75 20 23
3-D linear (1,1,1) (1.5,0.5,1.5) (-1,5,0.5): 55.5 101 10
uchar4 normalized at (0,0): 1 0 0.2 0.5019608
uchar4 linear at the centre: 0.2656863 0.02745098 0.08921569 0.1764706
uchar4 elements at (1,1): 10 20 30 40
PASS textures"
    run_in_every_order textures "$expected"
}

@test "texture objects refuse what the texture unit cannot do: linear filtering of integers, 3 channels" {
    cd "$BATS_TEST_TMPDIR"
    cat >refuse.cu <<'EOF'
#include <cstdio>
#include <cstring>
int main() {
    cudaChannelFormatDesc ints = cudaCreateChannelDesc<int>(), three = cudaCreateChannelDesc(32, 32, 32, 0, cudaChannelFormatKindFloat);
    cudaArray_t array, bad = nullptr;
    cudaMallocArray(&array, &ints, 4);
    printf("3 channels: %s\n", cudaGetErrorName(cudaMallocArray(&bad, &three, 4)));
    cudaResourceDesc resource;
    memset(&resource, 0, sizeof resource);
    resource.resType = cudaResourceTypeArray;
    resource.res.array.array = array;
    cudaTextureDesc desc;
    memset(&desc, 0, sizeof desc);
    desc.filterMode = cudaFilterModeLinear;
    cudaTextureObject_t texture;
    printf("linear ints: %s\n", cudaGetErrorName(cudaCreateTextureObject(&texture, &resource, &desc, nullptr)));
    printf("last error: %s\n", cudaGetErrorName(cudaGetLastError()));
    return cudaFreeArray(array);
}
EOF
    run "$EMUCC" -o refuse refuse.cu
    assert_success
    run ./refuse
    assert_success
    assert_output "3 channels: cudaErrorInvalidChannelDescriptor
linear ints: cudaErrorInvalidValue
last error: cudaErrorInvalidValue"
}

@test "code written for NVIDIA's headers finds their include guards, compute mode and profiler calls" {
    run_in_every_order toolkit_headers
}

@test "every header emucc provides compiles when a .cu includes it first; a stand-in stops the build with its cuda-emu: line" {
    local include="$REPO/common/emu/include" dir="$BATS_TEST_TMPDIR"
    (cd "$include" && find . -type f | sed 's|^\./||' | sort) >"$dir/headers"
    [ "$(wc -l <"$dir/headers")" -gt 60 ] || fail "only $(wc -l <"$dir/headers") headers found in $include"
    # Each header alone in a .cu, two compilers at a time; a line per header that did not do as
    # it should.
    xargs -P 2 -I{} bash -c '
        header={} emucc=$0 include=$1 dir=$2
        source="$dir/$(echo "$header" | tr "/." "__").cu"
        printf "#include <%s>\nint main() { return 0; }\n" "$header" >"$source"
        if output=$("$emucc" -c -o "${source%.cu}.o" "$source" 2>&1); then
            grep -q "#error \"cuda-emu:" "$include/$header" && echo "$header: a stand-in, yet it compiled"
        elif ! grep -q "#error \"cuda-emu:" "$include/$header" || ! grep -Eq "error: (#error )?\"cuda-emu:" <<<"$output"; then
            echo "$header: $(grep -m 1 error <<<"$output")"
        fi
        true' "$EMUCC" "$include" "$dir" <"$dir/headers" >"$dir/wrong"
    [ ! -s "$dir/wrong" ] || fail "$(cat "$dir/wrong")"
}

@test "a cooperative launch of more threads than the system's memory mappings allow stacks for says so, and how to allow more" {
    local limit
    limit=$(cat /proc/sys/vm/max_map_count 2>/dev/null || echo 0)
    [ "$limit" -gt 0 ] && [ "$limit" -lt 80000 ] || skip "vm.max_map_count is $limit: 40 blocks of 1,024 threads fit"
    cat >"$BATS_TEST_TMPDIR/whole_grid.cu" <<'EOF'
#include <cooperative_groups.h>
#include <cstdio>
__global__ void mark(int* out) {
    cooperative_groups::this_grid().sync();
    out[blockIdx.x] = 1;
}
int main() {
    int* d_out;
    cudaMalloc(&d_out, 40 * sizeof(int));
    void* args[] = {&d_out};
    cudaLaunchCooperativeKernel((void*)mark, dim3(40), dim3(1024), args, 0, 0);  // the whole T4
    printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
}
EOF
    "$EMUCC" -o "$BATS_TEST_TMPDIR/whole_grid" "$BATS_TEST_TMPDIR/whole_grid.cu"
    CUDA_EMU_DEVICE=t4 CUDA_EMU_WORKERS=40 CUDA_EMU_STACK_KB=16 run "$BATS_TEST_TMPDIR/whole_grid"
    assert_failure 1
    assert_output --regexp "cuda-emu: cannot allocate a 16 KiB stack for a GPU thread: the process has [0-9]+ memory mappings, as many as the system allows \(vm.max_map_count\), and each GPU thread's stack takes two\. .* \(sudo sysctl -w vm.max_map_count=262144\), let it run"
}

@test "emucc's headers win over a toolkit's include folder on the path" {
    local toolkit
    for toolkit in /usr/local/cuda/include /usr/local/include ""; do
        [ -f "$toolkit/vector_types.h" ] && break
    done
    [ -n "$toolkit" ] || skip "no CUDA toolkit headers on this machine"
    run "$EMUCC" -I"$toolkit" -o "$BATS_TEST_TMPDIR/toolkit_headers" "$REPO/tests/emu/toolkit_headers.cu"
    assert_success
    run "$BATS_TEST_TMPDIR/toolkit_headers"
    assert_output "PASS toolkit_headers"
}

@test "registered and mapped host memory, host functions and callbacks on streams, clock64" {
    run_in_every_order host_memory_callbacks
}

@test "threads that spin with __nanosleep() in the loop give way: a flag another warp sets, a lock in shared memory" {
    run_in_every_order spin_wait
}

@test "clock() and clock64() in a kernel count at the device's clock rate: 20 ms of cycles take 20 ms" {
    run_in_every_order clock_wait
}

@test "half precision: conversions round to nearest even, __half2 arithmetic on both halves" {
    run_in_every_order half_precision
}

@test "bfloat16: conversions round to nearest even with a float's range, __nv_bfloat162 arithmetic on both halves" {
    run_in_every_order bfloat16
}

@test "a 2-D dynamic shared array, extern __shared__ T s[][N], in a kernel and at file scope; __shared__ after the type" {
    run_in_every_order shared_2d
}

@test "kernels, launches, extern __shared__ and __noinline__ in an included header work as in the .cu" {
    run_in_every_order header_kernels
}

@test "headers found through -I and in subfolders are rewritten, and errors and reports name their lines" {
    cd "$BATS_TEST_TMPDIR"
    mkdir -p app include/kernels
    cat >include/kernels/fill.cuh <<'EOF'
#pragma once
#include "wait.cuh"
__global__ void fill(int* p) {
    extern __shared__ int scratch[];
    scratch[threadIdx.x] = 2;
    wait_unless_first();
    p[threadIdx.x] = scratch[threadIdx.x];
}
inline void launch_fill(int* p, int n) { fill<<<1, n, n * sizeof(int)>>>(p); }
EOF
    cat >include/kernels/wait.cuh <<'EOF'
#pragma once
__device__ void wait_unless_first() {
    if (threadIdx.x > 0) __syncthreads();
}
EOF
    cat >app/main.cu <<'EOF'
#include <cstdio>
#include "kernels/fill.cuh"
int main() {
    int* d;
    cudaMalloc(&d, 64 * sizeof(int));
    launch_fill(d, 64);
    printf("%s\n", cudaGetErrorName(cudaDeviceSynchronize()));
}
EOF
    run "$EMUCC" -Iinclude -MMD -MP -c app/main.cu -o app/main.o
    assert_success
    run cat app/main.d
    assert_output --partial "include/kernels/fill.cuh"
    assert_output --partial "include/kernels/wait.cuh"
    refute_output --partial "emucc."
    run "$EMUCC" -o app/main app/main.o
    assert_success
    run app/main
    assert_failure
    assert_output --partial "cuda-emu: deadlock in kernel fill"
    assert_output --partial "thread(s) wait at __syncthreads at include/kernels/wait.cuh:3"
    echo 'inline void broken() { undeclared_name(); }' >>include/kernels/wait.cuh
    run "$EMUCC" -Iinclude -o app/main app/main.cu
    assert_failure
    assert_output --partial "include/kernels/wait.cuh:5"
    assert_output --partial "undeclared_name"
}

@test "pinned and managed memory, async copies on streams, events and the error functions work" {
    run_in_every_order runtime_api
}

@test "cudaLaunchKernelEx and kernel nodes run kernels with their attributes; streams keep theirs; bad attributes are refused with a message" {
    built launch_attributes
    for order in forward reverse random:12345; do
        CUDA_EMU_ORDER=$order run "$BIN/launch_attributes"
        assert_success
        assert_line "PASS launch_attributes"
        assert_line "cuda-emu: cudaLaunchKernelEx: an access policy window needs a hitRatio from 0 to 1, a hitProp of Normal, Streaming or Persisting (0 to 2) and a missProp of Normal or Streaming (0 or 1); this one has hitRatio 1.5, hitProp 2, missProp 1"
        assert_line --partial "this one has hitRatio nan"
        assert_line "cuda-emu: cudaLaunchKernelEx: cudaLaunchAttributeSynchronizationPolicy (a stream's) is not an attribute of a launch, or has a value out of its range"
        assert_line "cuda-emu: cudaGraphKernelNodeSetAttribute: cudaLaunchAttributeLaunchCompletionEvent (a launch's) is not an attribute of a kernel node, or has a value out of its range"
        assert_line --partial "cuda-emu: cudaLaunchKernelEx: clusters of thread blocks (here 2x1x1) are not emulated"
        [ "${#lines[@]}" -eq 6 ]
    done
}

@test "stream-ordered allocation: cudaMallocAsync, cudaFreeAsync and memory pools as CUDA documents them, errors included" {
    run_in_every_order memory_pools
}

@test "kernels launched from host threads that come and go, more of them than run at once, run" {
    # each thread that ran blocks gives back its GPU threads' stacks and its place when it ends
    run_in_every_order host_threads
}

@test "a freed pool block goes to the next allocation with what it held, as on a GPU; poison mode refills it" {
    built memory_pools
    run "$BIN/memory_pools" stale
    assert_success
    assert_output "the reused block is the freed one, and its 5000 floats sum to 5000"
    CUDA_EMU_POISON=1 run "$BIN/memory_pools" stale
    assert_success
    assert_output --regexp "^the reused block is the freed one, and its 5000 floats sum to -?nan$"
}

@test "a failed device assert names file, line, block and thread, and leaves cudaErrorAssert for every later call" {
    local line host_line
    line=$(line_of "$REPO/tests/emu/device_assert.cu" "fails for element 69")
    host_line=$(line_of "$REPO/tests/emu/device_assert.cu" "assert(argc == 1)")
    built device_assert
    for order in forward reverse random:12345; do
        CUDA_EMU_ORDER=$order run --separate-stderr "$BIN/device_assert"
        assert_success
        assert_output "cudaDeviceSynchronize: cudaErrorAssert (device-side assert triggered)
cudaGetLastError: cudaErrorAssert
cudaGetLastError again: cudaErrorAssert
cudaMemcpy: cudaErrorAssert
cudaMalloc: cudaErrorAssert
another launch: cudaErrorAssert
cudaDeviceReset: cudaSuccess
negatives counted with NDEBUG: 1
PASS device_assert"
        # CUDA's wording; the function as the host compiler spells it (g++ and clang++ differ)
        [[ "$stderr" =~ ^"tests/emu/device_assert.cu:$line: void check_positive(const int"" "?"*, int"" "?"*): block: [1,0,0], thread: [5,0,0] Assertion \`values[i] >= 0\` failed."$ ]] ||
            fail "stderr: $stderr"
    done
    # In host code, the C library's behaviour: its message, then abort (SIGABRT: status 134).
    run --separate-stderr "$BIN/device_assert" host
    assert_failure 134
    [[ "$stderr" == "device_assert: tests/emu/device_assert.cu:$host_line: void host_check(int): Assertion \`argc == 1' failed." ]] ||
        fail "stderr: $stderr"
}

@test "one worker thread gives the same results as many" {
    for name in reduce_shared atomics warp_shuffle; do
        built "$name"
        CUDA_EMU_WORKERS=1 run "$BIN/$name"
        assert_success
        assert_output "PASS $name"
    done
}

# ---- Bugs a GPU hides are reported ----------------------------------------------------------------

@test "a missing __syncthreads passes in forward order and fails in reverse and random order" {
    built bug_missing_sync
    CUDA_EMU_ORDER=forward run "$BIN/bug_missing_sync"
    assert_success
    CUDA_EMU_ORDER=reverse run "$BIN/bug_missing_sync"
    assert_failure 1
    assert_output --partial "FAIL bug_missing_sync: out["
    CUDA_EMU_ORDER=random:12345 run "$BIN/bug_missing_sync"
    assert_failure 1
    assert_output --partial "FAIL bug_missing_sync"
}

@test "emulator reports threads waiting at different __syncthreads with both lines" {
    local source="$REPO/tests/emu/bug_divergent_barrier.cu"
    local first second
    first=$(line_of "$source" "only the first half waits here")
    second=$(line_of "$source" "only the second half here")
    built bug_divergent_barrier
    run "$BIN/bug_divergent_barrier"
    assert_failure 1
    assert_output --partial "cuda-emu: threads of block (0,0,0) in kernel halves wait at different barriers"
    assert_output --partial "thread (0,0,0) waits at __syncthreads at tests/emu/bug_divergent_barrier.cu:$first"
    assert_output --partial "thread (32,0,0) waits at __syncthreads at tests/emu/bug_divergent_barrier.cu:$second"
    refute_output --partial "PASS"
}

@test "threads that return before a __syncthreads are reported as a deadlock, not a hang" {
    local line
    line=$(line_of "$REPO/tests/emu/bug_deadlock.cu" "the barrier the early returners miss")
    built bug_deadlock
    run timeout 20 "$BIN/bug_deadlock"
    assert_failure 1
    assert_output --partial "cuda-emu: deadlock in kernel scale, block (1,0,0)"
    assert_output --partial "72 thread(s) wait at __syncthreads at tests/emu/bug_deadlock.cu:$line"
    assert_output --partial "56 thread(s) returned from the kernel (first: thread (72,0,0))"
}

@test "a thread spinning on a flag no one can set is reported after CUDA_EMU_TIMEOUT" {
    built bug_spin_wait
    CUDA_EMU_TIMEOUT=1 run timeout 20 "$BIN/bug_spin_wait"
    assert_failure 1
    assert_output --partial "cuda-emu: no progress for 1 s in kernel handshake, block (0,0,0), thread (0,0,0)"
}

@test "a stack overflow is reported as one, on either stack a GPU thread runs on, and in host code" {
    built bug_stack_overflow
    local order
    for order in forward reverse; do
        # the first thread of a block starts on the host thread's own stack
        CUDA_EMU_ORDER=$order run "$BIN/bug_stack_overflow" host
        assert_failure 1
        assert_output --regexp "^cuda-emu: stack overflow in kernel recurse_at_once, block \(0,0,0\), thread \(0,0,0\): the [0-9]+ KiB of stack of the host thread it ran on ran out"
        # a thread that starts while another waits at a barrier has a stack of its own
        CUDA_EMU_ORDER=$order run "$BIN/bug_stack_overflow" fresh
        assert_failure 1
        assert_output --partial "cuda-emu: stack overflow in kernel recurse_after_barrier, block (0,0,0), thread (1,0,0): a GPU thread used more than 256 KiB of stack"
    done
    run "$BIN/bug_stack_overflow" host-code
    assert_failure 1
    assert_output --regexp "^cuda-emu: stack overflow in host code: the [0-9]+ KiB of stack"
}

@test "a local array larger than a GPU thread's stack is a stack overflow, though its frame jumps past the stack's end at once" {
    built bug_stack_overflow
    # with the compiler's stack probes (emucc's default where it has them), and without: on a
    # 64-bit machine the protected memory below each stack is deeper than any kernel's frame
    "$EMUCC" -fno-stack-clash-protection -o "$BATS_TEST_TMPDIR/unprobed" tests/emu/bug_stack_overflow.cu
    local program order
    for program in "$BIN/bug_stack_overflow" "$BATS_TEST_TMPDIR/unprobed"; do
        for order in forward reverse; do
            CUDA_EMU_ORDER=$order run "$program" large-array
            assert_failure 1
            assert_output --regexp "^cuda-emu: stack overflow in kernel large_local_array, block \(0,0,0\), thread \([0-9]+,0,0\): a GPU thread used more than 256 KiB of stack"
        done
    done
}

@test "guard mode catches a write one element past an allocation and names block and thread" {
    local line
    line=$(line_of "$REPO/tests/emu/bug_out_of_bounds.cu" "the allocation that is overrun")
    built bug_out_of_bounds
    CUDA_EMU_GUARD=1 run "$BIN/bug_out_of_bounds"
    assert_failure 1
    assert_output --partial "cuda-emu: out-of-bounds write in kernel copy, block (1,0,0), thread (36,0,0)"
    assert_output --partial "byte offset 400 of a 400-byte allocation made at tests/emu/bug_out_of_bounds.cu:$line"
    assert_output --partial "the first byte past its end"
}

@test "guard mode catches an overrun of cudaMallocAsync memory and a use after cudaFreeAsync, naming the allocation" {
    local source="$REPO/tests/emu/memory_pools.cu" overrun_line freed_line
    overrun_line=$(line_of "$source" "the buffer that is overrun")
    freed_line=$(line_of "$source" "the buffer used after its free")
    built memory_pools
    CUDA_EMU_GUARD=1 run "$BIN/memory_pools" overrun
    assert_failure 1
    assert_output --partial "cuda-emu: out-of-bounds write in kernel fill, block (0,0,0), thread (100,0,0)"
    assert_output --partial "byte offset 400 of a 400-byte allocation made at tests/emu/memory_pools.cu:$overrun_line (the first byte past its end)"
    refute_output --partial "unnoticed"
    CUDA_EMU_GUARD=1 run "$BIN/memory_pools" use-after-free
    assert_failure 1
    assert_output --regexp "cuda-emu: use after free: write at byte [0-9]+ of a 400-byte allocation \\(made at tests/emu/memory_pools.cu:$freed_line\\) that was already freed \\(cudaFree or cudaFreeAsync\\), in kernel fill, block \\(0,0,0\\)"
    refute_output --partial "unnoticed"
    # without guard pages, as on a GPU, neither is noticed
    run "$BIN/memory_pools" use-after-free
    assert_success
    assert_output "the use after free went unnoticed"
}

@test "guard mode names the kernel, not the pointer, when it is launched through a pointer" {
    built bug_out_of_bounds
    local how
    for how in pointer cudaLaunchKernel; do
        CUDA_EMU_GUARD=1 run "$BIN/bug_out_of_bounds" "$how"
        assert_failure 1
        assert_output --partial "cuda-emu: out-of-bounds write in kernel copy, block (1,0,0), thread (36,0,0)"
    done
}

@test "without guard mode the same overrun goes unnoticed, as on a GPU" {
    built bug_out_of_bounds
    run "$BIN/bug_out_of_bounds"
    assert_success
}

@test "poison mode turns a read of uninitialized memory into NaN" {
    built bug_uninitialized
    CUDA_EMU_POISON=1 run "$BIN/bug_uninitialized"
    assert_failure 1
    assert_output --partial "FAIL bug_uninitialized: the sum is"
    assert_output --partial "nan"
}

@test "a bad CUDA_EMU_* value is refused in one line naming the accepted values, with exit status 2" {
    built vector_add
    CUDA_EMU_ORDER=sideways run "$BIN/vector_add"
    assert_failure 2
    assert_output "cuda-emu: CUDA_EMU_ORDER=sideways is not understood; expected forward, reverse, random or random:SEED"
    CUDA_EMU_ORDER=random:x run "$BIN/vector_add"
    assert_failure 2
    assert_output "cuda-emu: CUDA_EMU_ORDER=random:x is not understood; expected random:NUMBER"
    CUDA_EMU_DEVICE=V100 run "$BIN/vector_add"
    assert_failure 2
    assert_output "cuda-emu: CUDA_EMU_DEVICE=V100 is not understood; expected t4, a100, rtx3060, rtx4090, l4 or h100"
    local setting
    for setting in CUDA_EMU_GUARD=yes CUDA_EMU_POISON=2 CUDA_EMU_WORKERS=0 CUDA_EMU_TIMEOUT=-1 \
        CUDA_EMU_STACK_KB=lots CUDA_EMU_REGISTERS=256 CUDA_EMU_LOCAL_BYTES=-1; do
        run env "$setting" "$BIN/vector_add"
        assert_failure 2
        assert_output --regexp "^cuda-emu: $setting is not understood; expected a whole number from [0-9]+ to [0-9]+$"
    done
}

# ---- emucc behaves like nvcc for the Makefile and for students --------------------------------------

@test "emucc compiles, links and runs a .cu from another directory" {
    cd "$BATS_TEST_TMPDIR"
    cat >hello.cu <<'EOF'
#include <cstdio>
__global__ void hello(int* out) { out[threadIdx.x] = threadIdx.x; }
int main() {
    int* d;
    cudaMalloc(&d, 4 * sizeof(int));
    hello<<<1, 4>>>(d);
    int h[4];
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("%d %d %d %d emulated=%d\n", h[0], h[1], h[2], h[3], CUDA_EMULATION);
}
EOF
    run "$EMUCC" hello.cu -o hello
    assert_success
    run ./hello
    assert_success
    assert_output "0 1 2 3 emulated=1"
}

@test "emucc keeps line numbers: a compile error after a multi-line launch points at its .cu line" {
    cd "$BATS_TEST_TMPDIR"
    cat >broken.cu <<'EOF'
__global__ void k(int* p, int n) { p[0] = n; }
int main() {
    int* d = nullptr;
    k<<<
        1,
        1>>>(d,
             2);
    int x = "not an int";
    return x;
}
EOF
    run "$EMUCC" -c broken.cu -o broken.o
    assert_failure
    assert_output --partial "broken.cu:8:"
    assert_output --regexp "invalid conversion|cannot initialize"  # g++'s words or clang++'s
}

@test "a library the emulator lacks stops the build at its #include, with a line that names it" {
    cd "$BATS_TEST_TMPDIR"
    local header library
    while read -r header library; do
        printf '#include <cstdio>\n#include <%s>\nint main() { return 0; }\n' "$header" >uses.cu
        run "$EMUCC" -c uses.cu -o uses.o
        assert_failure
        assert_output --partial "uses.cu:2"
        assert_output --partial "cuda-emu: $library is not emulated. Include it and make its calls only when CUDA_EMULATION is not defined"
    done <<'EOF'
cublas_v2.h cuBLAS
cub/cub.cuh CUB
thrust/device_vector.h Thrust
curand_kernel.h cuRAND
nccl.h NCCL
cuda_gl_interop.h OpenGL interoperability
cuda_fp8.h 8-bit floating point
thrust/scan.h Thrust
EOF
    # kept behind the guard, as lessons 04 and 05 keep theirs, it builds and runs
    printf '#ifndef CUDA_EMULATION\n#include <cublas_v2.h>\n#endif\nint main() { return 0; }\n' >guarded.cu
    run "$EMUCC" guarded.cu -o guarded
    assert_success
    run ./guarded
    assert_success
}

@test "inline PTX stops the build at its line, naming the instruction; host assembly builds" {
    cd "$BATS_TEST_TMPDIR"
    cat >ptx.cu <<'EOF'
__device__ unsigned int absdiff_sum(unsigned int a, unsigned int b, unsigned int c) {
    unsigned int result;
    asm("vabsdiff4.u32.u32.u32.add %0, %1, %2, %3;" : "=r"(result) : "r"(a), "r"(b), "r"(c));
    return result;
}
int main() { return 0; }
EOF
    run "$EMUCC" -c ptx.cu -o ptx.o
    assert_failure
    assert_output --partial "ptx.cu:3: error: cuda-emu: inline PTX assembly (vabsdiff4.u32.u32.u32.add) is not emulated"
    assert_output --partial "Use the CUDA intrinsic that does the same (__vabsdiffu4,"
    refute_output --partial "no such instruction"
    # a block of PTX that opens with its registers
    cat >block.cu <<'EOF'
__device__ int lane() {
    int id;
    asm volatile("{\n\t.reg .u32 t;\n\tmov.u32 %0, %%laneid;\n}" : "=r"(id));
    return id;
}
int main() { return 0; }
EOF
    run "$EMUCC" -c block.cu -o block.o
    assert_failure
    assert_output --partial "block.cu:3: error: cuda-emu: inline PTX assembly (.reg) is not emulated"
    # the host's own assembly, and the word asm elsewhere, are left alone
    cat >host.cu <<'EOF'
#define NOTE "asm(\"mov.u32\") in a string"
int main() {
    int asm_count = 1;  // asm("mov.u32") in a comment
    asm volatile("" ::: "memory");
    return asm_count - 1 + (int)sizeof NOTE * 0;
}
EOF
    run "$EMUCC" -o host host.cu
    assert_success
    run ./host
    assert_success
}

@test "thread block clusters stop the build at their line, saying they are not emulated" {
    cd "$BATS_TEST_TMPDIR"
    cat >dims.cu <<'EOF'
__global__ void __cluster_dims__(2, 1, 1) pairs(int* out) { out[blockIdx.x] = 1; }
int main() { return 0; }
EOF
    run "$EMUCC" -c dims.cu -o dims.o
    assert_failure
    assert_line --regexp "^dims.cu:1:[0-9]+: error: cuda-emu: thread block clusters \(__cluster_dims__\) are not emulated$"
    # one error only: the kernel's name is still found behind the attribute
    [ "$(grep -c ': error:' <<<"$output")" -eq 1 ]
    cat >group.cu <<'EOF'
#include <cooperative_groups.h>
__global__ void ranks(int* out) {
    cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
    (void)cluster;
    out[0] = 0;
}
int main() { return 0; }
EOF
    run "$EMUCC" -c group.cu -o group.o
    assert_failure
    assert_output --partial "cuda-emu: thread block clusters (cooperative_groups::this_cluster, cluster_group, distributed shared memory) are not emulated"
}

@test "emucc accepts nvcc's flags and writes dependency files that name the .cu and its headers" {
    cd "$BATS_TEST_TMPDIR"
    mkdir -p src out
    echo '#define SCALE 3' >src/scale.h
    cat >src/app.cu <<'EOF'
#include "scale.h"
__global__ void k(int* p) { p[threadIdx.x] = SCALE * OFFSET; }
int main() { int* d; cudaMalloc(&d, 4); k<<<1, 1>>>(d); int h; cudaMemcpy(&h, d, 4, cudaMemcpyDeviceToHost); return h == 6 ? 0 : 1; }
EOF
    run "$EMUCC" -O2 -std=c++17 -Xcompiler -fopenmp,-Wall -arch=sm_75 -gencode arch=compute_75,code=sm_75 \
        --generate-code arch=compute_80,code=sm_80 -lineinfo -MMD -MP -Isrc -D OFFSET=2 -c src/app.cu -o out/app.o
    assert_success
    run cat out/app.d
    assert_output --partial "out/app.o: src/app.cu"
    assert_output --partial "src/scale.h"
    refute_output --partial ".cu.cpp"
    run "$EMUCC" -O2 -Xcompiler -fopenmp -o out/app out/app.o
    assert_success
    run out/app
    assert_success
}

@test "emucc defines __CUDA_ARCH__ in .cu files as nvcc's device pass does, from -arch or -gencode" {
    cd "$BATS_TEST_TMPDIR"
    cat >arch.cu <<'EOF'
#include <cstdio>
__global__ void arch(int* out) {
#if __CUDA_ARCH__ >= 700
    *out = __CUDA_ARCH__;
#endif
}
int main() {
    int *d, h = 0;
    cudaMalloc(&d, sizeof h);
    cudaMemset(d, 0, sizeof h);
    arch<<<1, 1>>>(d);
    cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("%d\n", h);
}
EOF
    printf '#ifdef __CUDA_ARCH__\n#error host code compiled as device code\n#endif\n' >host.cpp
    local flags expected
    for flags in "900" "750 -arch=sm_75" "860 -gencode arch=compute_80,code=sm_80 -gencode arch=compute_86,code=sm_86"; do
        expected=${flags%% *}
        flags=${flags#"$expected"}
        # shellcheck disable=SC2086  # the flags are words
        run "$EMUCC" $flags arch.cu host.cpp -o arch
        assert_success
        run ./arch
        assert_output "$expected"
    done
}

@test "a compile error leaves no dependency file naming emucc's temporary copy" {
    cd "$BATS_TEST_TMPDIR"
    printf '__global__ void k(int* p) { p[0] = ; }\n' >broken.cu
    run "$EMUCC" -MMD -MP -c broken.cu -o broken.o
    assert_failure
    [ ! -e broken.d ] || fail "broken.d was left behind: $(cat broken.d)"
}

@test "emucc refuses NVIDIA's GPU libraries with a clear message" {
    cd "$BATS_TEST_TMPDIR"
    echo 'int main() { return 0; }' >plain.cu
    run "$EMUCC" plain.cu -lcublas -o plain
    assert_failure
    assert_output --partial "emucc: -lcublas: NVIDIA's GPU libraries"
}

@test "emucc names a host compiler that is not installed, in one line, and builds nothing" {
    cd "$BATS_TEST_TMPDIR"
    echo 'int main() { return 0; }' >plain.cu
    CXX=g++-0 run "$EMUCC" plain.cu -o plain
    assert_failure 1
    assert_output "emucc: the host C++ compiler CXX=g++-0 is not found: install g++ (sudo apt-get install g++), or name one with CXX= (a single command; clang++ works too)"
    [ ! -e plain ] && [ ! -e "$REPO/build/emu-runtime/g++-0" ]
    # the C compiler builds the rewriter, the first time
    CUDA_EMU_CACHE="$BATS_TEST_TMPDIR/runtime" CC=cc-0 run "$EMUCC" plain.cu -o plain
    assert_failure 1
    assert_output "emucc: the C compiler CC=cc-0, which builds emucc's rewriter, is not found: install gcc, or name one with CC="
}

@test "emucc --help documents the environment variables" {
    run "$EMUCC" --help
    assert_success
    for variable in CUDA_EMU_ORDER CUDA_EMU_GUARD CUDA_EMU_POISON CUDA_EMU_TIMEOUT CUDA_EMU_WORKERS \
        CUDA_EMU_DEVICE CUDA_EMU_STACK_KB CUDA_EMU_REGISTERS CUDA_EMU_LOCAL_BYTES CUDA_EMU_PROFILE_CSV \
        CUDA_EMU_PROFILE_LINES; do
        assert_output --partial "$variable"
    done
}

@test "a misspelt CUDA_EMU_ setting is refused, not ignored" {
    built vector_add
    CUDA_EMU_GAURD=1 run --separate-stderr "$BIN/vector_add"
    assert_failure 2
    [[ "$stderr" == "cuda-emu: CUDA_EMU_GAURD is not a setting of the emulator; the settings are "* ]] ||
        fail "stderr: $stderr"
}
