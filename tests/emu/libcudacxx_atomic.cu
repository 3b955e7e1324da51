// libcudacxx_atomic.cu - libcu++'s atomics (<cuda/atomic>, <cuda/std/atomic>) and a few of its
// cuda::std headers: a histogram counted first in shared memory (atomic_ref of a block's scope),
// then in global memory (of the device's scope); fetch_min and fetch_max, a float fetch_add, a
// compare_exchange loop, the bit operations, exchange; a managed counter that the host reads
// through cuda::std::atomic_ref; and a thread that waits (wait) for a flag another warp sets.
// It compiles with nvcc too (compute capability 7.0 on, for wait).
#include <cuda/atomic>
#include <cuda/std/array>
#include <cuda/std/atomic>
#include <cuda/std/cstdint>
#include <cuda/std/limits>

#include "check.h"

static const char* test_name = "libcudacxx_atomic";
constexpr int bin_count = 16, threads = 128, blocks = 6, n = threads * blocks;

struct Results {
    unsigned bins[bin_count];
    int lowest, highest;
    float total;
    unsigned long long largest_square;  // by a compare_exchange loop
    unsigned lanes_seen, toggled, cleared;
    unsigned swap_slot, swapped_out;  // each block swaps its number in and adds what it took out
    int waits_ended;
};

__device__ int value_of(int i) { return (i * 37) % 101 - 50; }  // -50 to 50

__global__ void count_and_combine(Results* results, int* managed_count) {
    __shared__ unsigned block_bins[bin_count];
    __shared__ int flag;
    if (threadIdx.x < bin_count) block_bins[threadIdx.x] = 0;
    if (threadIdx.x == 0) flag = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = value_of(i);
    cuda::atomic_ref<unsigned, cuda::thread_scope_block> block_bin(block_bins[(v + 50) % bin_count]);
    block_bin.fetch_add(1, cuda::memory_order_relaxed);

    cuda::atomic_ref<int, cuda::thread_scope_device>(results->lowest).fetch_min(v);
    cuda::atomic_ref<int, cuda::thread_scope_device>(results->highest).fetch_max(v);
    cuda::atomic_ref<float, cuda::thread_scope_device>(results->total).fetch_add((float)v);
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> largest(results->largest_square);
    unsigned long long square = (unsigned long long)(v * v) << 20 | (unsigned)i;  // ties told apart
    unsigned long long seen = largest.load();
    while (seen < square && !largest.compare_exchange_weak(seen, square)) {
    }
    unsigned lane_bit = 1u << (threadIdx.x % 32);
    cuda::atomic_ref<unsigned, cuda::thread_scope_device>(results->lanes_seen).fetch_or(lane_bit);
    cuda::atomic_ref<unsigned, cuda::thread_scope_device>(results->toggled) ^= lane_bit;  // 24 times each
    if (threadIdx.x % 32 < 16) cuda::atomic_ref<unsigned, cuda::thread_scope_device>(results->cleared) &= ~lane_bit;
    cuda::std::atomic_ref<int> count(*managed_count);
    count++;
    count += 2;

    // Thread 0 waits for thread 100, of another warp, to raise the flag.
    cuda::atomic_ref<int, cuda::thread_scope_block> raised(flag);
    if (threadIdx.x == 0) {
        raised.wait(0, cuda::memory_order_acquire);
        cuda::atomic_ref<int, cuda::thread_scope_device>(results->waits_ended).fetch_add(1);
    }
    if (threadIdx.x == 100) {
        raised.store(1, cuda::memory_order_release);
        raised.notify_all();
    }
    __syncthreads();
    if (threadIdx.x < bin_count) {
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> bin(results->bins[threadIdx.x]);
        bin.fetch_add(block_bins[threadIdx.x]);
    }
    if (threadIdx.x == 0) {
        unsigned taken_out = cuda::atomic_ref<unsigned, cuda::thread_scope_device>(results->swap_slot).exchange(blockIdx.x + 1);
        cuda::atomic_ref<unsigned, cuda::thread_scope_device>(results->swapped_out).fetch_add(taken_out);
    }
    cuda::atomic_thread_fence(cuda::memory_order_seq_cst, cuda::thread_scope_device);
}

int main() {
    Results h{};
    h.lowest = cuda::std::numeric_limits<int>::max();
    h.highest = cuda::std::numeric_limits<int>::min();
    h.cleared = 0xffffffffu;
    Results* d_results;
    int* managed_count;
    CHECK(cudaMalloc(&d_results, sizeof h));
    CHECK(cudaMemcpy(d_results, &h, sizeof h, cudaMemcpyHostToDevice));
    CHECK(cudaMallocManaged(&managed_count, sizeof(int)));
    cuda::std::atomic_ref<int>(*managed_count).store(0);
    count_and_combine<<<blocks, threads>>>(d_results, managed_count);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(&h, d_results, sizeof h, cudaMemcpyDeviceToHost));

    cuda::std::array<unsigned, bin_count> bins{};
    int lowest = 50, highest = -50;
    double total = 0;
    unsigned long long largest_square = 0;
    for (int i = 0; i < n; i++) {
        int v = (i * 37) % 101 - 50;
        bins[(v + 50) % bin_count]++;
        lowest = v < lowest ? v : lowest;
        highest = v > highest ? v : highest;
        total += v;
        unsigned long long square = (unsigned long long)(v * v) << 20 | (unsigned)i;
        largest_square = square > largest_square ? square : largest_square;
    }
    for (int b = 0; b < bin_count; b++)
        EXPECT(h.bins[b] == bins[b], "bin %d holds %u, expected %u", b, h.bins[b], bins[b]);
    EXPECT(h.lowest == lowest && h.highest == highest, "fetch_min and fetch_max gave %d and %d, expected %d and %d",
           h.lowest, h.highest, lowest, highest);
    EXPECT(h.total == (float)total, "the float fetch_add gave %g, expected %g", h.total, total);
    EXPECT(h.largest_square == largest_square, "the compare_exchange loop kept %llx, expected %llx",
           h.largest_square, largest_square);
    EXPECT(h.lanes_seen == 0xffffffffu, "fetch_or gathered lanes %08x", h.lanes_seen);
    EXPECT(h.toggled == 0, "each bit flipped an even number of times by ^=, yet %08x is left", h.toggled);
    EXPECT(h.cleared == 0xffff0000u, "&= left %08x, expected ffff0000", h.cleared);
    // 0 (the first value), 1, ..., blocks: each was taken out once, but the one left in the slot
    EXPECT(h.swapped_out + h.swap_slot == blocks * (blocks + 1) / 2, "exchange took out %u and left %u",
           h.swapped_out, h.swap_slot);
    EXPECT(h.waits_ended == blocks, "%d of %d waits ended", h.waits_ended, blocks);
    int count = cuda::std::atomic_ref<int>(*managed_count).load();
    EXPECT(count == 3 * n, "the managed counter is %d, expected %d", count, 3 * n);
    CHECK(cudaFree(d_results));
    CHECK(cudaFree(managed_count));
    return pass(test_name);
}
