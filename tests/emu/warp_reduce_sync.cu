// warp_reduce_sync.cu - the warp reductions __reduce_{add,min,max,and,or,xor}_sync over every
// lane of a warp, over the lanes of a last warp that is cut short, and over a mask that a ballot
// made before a branch (the last step of NVIDIA's reduction sample: the first few lanes of warp
// 0 add up the other warps' sums). Two blocks of 200 threads: six full warps and one of 8 lanes.
//
// The intrinsics exist from compute capability 8.0, so the kernel is written, as NVIDIA's
// samples write it, behind #if __CUDA_ARCH__ >= 800: emucc must define __CUDA_ARCH__ as nvcc's
// device pass does, or the kernel is compiled empty and every figure below is missing.
#include "check.h"

static const char* test_name = "warp_reduce_sync";
constexpr int blocks = 2, threads = 200, warps = (threads + 31) / 32;

struct WarpFigures {
    int sum, low, high;                  // signed add, min, max over the warp's lanes
    unsigned all_and, all_or, all_xor;   // of the lanes' bit patterns
    unsigned unsigned_low;               // unsigned min: a negative value is a large one
};

struct BlockFigures {
    int sum, high;  // over the warps' sums, by the lanes of warp 0 that the ballot named
    int odd_sum;    // over the odd values of warp 0, in the branch only those lanes take
};

__host__ __device__ int value_of(int block, int t) { return (t * 37 + block * 11) % 101 - 50; }

__global__ void reduce_in_warps(WarpFigures* per_warp, BlockFigures* per_block) {
#if __CUDA_ARCH__ >= 800
    constexpr unsigned full_mask = 0xffffffffu;
    __shared__ int warp_sums[warps];
    int t = threadIdx.x, lane = t % 32, warp = t / 32;
    int v = value_of(blockIdx.x, t);
    unsigned existing = __ballot_sync(full_mask, true);  // the last warp has 8 lanes
    WarpFigures w;
    w.sum = __reduce_add_sync(existing, v);
    w.low = __reduce_min_sync(existing, v);
    w.high = __reduce_max_sync(existing, v);
    w.all_and = __reduce_and_sync(existing, (unsigned)v);
    w.all_or = __reduce_or_sync(existing, (unsigned)v);
    w.all_xor = __reduce_xor_sync(existing, (unsigned)v);
    w.unsigned_low = __reduce_min_sync(existing, (unsigned)v);
    if (lane == 0) {
        per_warp[blockIdx.x * warps + warp] = w;
        warp_sums[warp] = w.sum;
    }
    __syncthreads();
    if (warp == 0) {
        unsigned first_lanes = __ballot_sync(full_mask, lane < warps);
        unsigned odd_lanes = __ballot_sync(full_mask, v % 2 != 0);
        BlockFigures b{0, 0, 0};
        if (lane < warps) {
            b.sum = __reduce_add_sync(first_lanes, warp_sums[lane]);
            b.high = __reduce_max_sync(first_lanes, warp_sums[lane]);
        }
        if (v % 2 != 0) {
            int odd_sum = __reduce_add_sync(odd_lanes, v);
            if (lane == __ffs(odd_lanes) - 1) b.odd_sum = odd_sum;
        }
        b.odd_sum = __reduce_add_sync(full_mask, b.odd_sum);  // from the lane that had it
        if (lane == 0) per_block[blockIdx.x] = b;
    }
#endif
}

int main() {
    WarpFigures* d_warp;
    BlockFigures* d_block;
    CHECK(cudaMalloc(&d_warp, blocks * warps * sizeof(WarpFigures)));
    CHECK(cudaMalloc(&d_block, blocks * sizeof(BlockFigures)));
    CHECK(cudaMemset(d_warp, 0, blocks * warps * sizeof(WarpFigures)));
    CHECK(cudaMemset(d_block, 0, blocks * sizeof(BlockFigures)));
    reduce_in_warps<<<blocks, threads>>>(d_warp, d_block);
    CHECK(cudaGetLastError());
    WarpFigures h_warp[blocks * warps];
    BlockFigures h_block[blocks];
    CHECK(cudaMemcpy(h_warp, d_warp, sizeof h_warp, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(h_block, d_block, sizeof h_block, cudaMemcpyDeviceToHost));

    for (int block = 0; block < blocks; block++) {
        int block_sum = 0, highest_warp_sum = -1000000, odd_sum = 0;
        for (int warp = 0; warp < warps; warp++) {
            WarpFigures e{0, 1000, -1000, ~0u, 0, 0, ~0u};
            for (int t = warp * 32; t < warp * 32 + 32 && t < threads; t++) {
                int v = value_of(block, t);
                e.sum += v;
                e.low = v < e.low ? v : e.low;
                e.high = v > e.high ? v : e.high;
                e.all_and &= (unsigned)v;
                e.all_or |= (unsigned)v;
                e.all_xor ^= (unsigned)v;
                e.unsigned_low = (unsigned)v < e.unsigned_low ? (unsigned)v : e.unsigned_low;
                if (warp == 0 && v % 2 != 0) odd_sum += v;
            }
            const WarpFigures& g = h_warp[block * warps + warp];
            EXPECT(g.sum == e.sum && g.low == e.low && g.high == e.high,
                   "block %d warp %d: add %d min %d max %d, expected %d %d %d", block, warp, g.sum,
                   g.low, g.high, e.sum, e.low, e.high);
            EXPECT(g.all_and == e.all_and && g.all_or == e.all_or && g.all_xor == e.all_xor,
                   "block %d warp %d: and 0x%08x or 0x%08x xor 0x%08x, expected 0x%08x 0x%08x 0x%08x",
                   block, warp, g.all_and, g.all_or, g.all_xor, e.all_and, e.all_or, e.all_xor);
            EXPECT(g.unsigned_low == e.unsigned_low, "block %d warp %d: unsigned min %u, expected %u",
                   block, warp, g.unsigned_low, e.unsigned_low);
            block_sum += e.sum;
            highest_warp_sum = e.sum > highest_warp_sum ? e.sum : highest_warp_sum;
        }
        const BlockFigures& b = h_block[block];
        EXPECT(b.sum == block_sum && b.high == highest_warp_sum,
               "block %d: the first %d lanes' add %d max %d, expected %d %d", block, warps, b.sum,
               b.high, block_sum, highest_warp_sum);
        EXPECT(b.odd_sum == odd_sum, "block %d: add over the odd values' lanes %d, expected %d",
               block, b.odd_sum, odd_sum);
    }
    CHECK(cudaFree(d_warp));
    CHECK(cudaFree(d_block));
    return pass(test_name);
}
