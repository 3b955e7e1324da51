// cooperative_groups.cu - the subset of cooperative groups the emulator provides gives the GPU's
// results: block sync and ranks, tiles of 32 and fewer with shuffles, votes and reduce, and the
// grid's size and ranks.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include "check.h"

namespace cg = cooperative_groups;

static const char* test_name = "cooperative_groups";

constexpr int block_threads = 128;  // 4 warps
constexpr int blocks = 3;
constexpr int small_tile = 8;

struct Results {
    int block_sum;          // every thread's rank, summed through shared memory
    int warp_sum;           // the same over each 32-thread tile, by shfl_down; lane 0's value
    int tile_sum;           // cg::reduce over an 8-thread tile, as every lane sees it
    unsigned tile_ballot;   // ballot of odd ranks in the 8-thread tile
    int tile_any, tile_all;
    int meta_rank, meta_size;
    unsigned long long grid_rank, grid_size;
};

__global__ void groups(Results* out) {
    cg::thread_block block = cg::this_thread_block();
    __shared__ int ranks[block_threads];
    int rank = (int)block.thread_rank();
    ranks[rank] = rank;
    block.sync();
    int block_sum = 0;
    for (int i = 0; i < (int)block.size(); i++) block_sum += ranks[i];
    cg::sync(block);

    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int warp_sum = rank;
    for (int offset = warp.size() / 2; offset > 0; offset /= 2) warp_sum += warp.shfl_down(warp_sum, offset);

    cg::thread_block_tile<small_tile> tile = cg::tiled_partition<small_tile>(block);
    int tile_sum = cg::reduce(tile, rank, cg::plus<int>());
    unsigned ballot = tile.ballot(tile.thread_rank() % 2 == 1);
    int any = tile.any(rank == 5);
    int all = tile.all(rank < 64);
    tile.sync();

    cg::grid_group grid = cg::this_grid();
    Results& r = out[blockIdx.x * block_threads + rank];
    r.block_sum = block_sum;
    r.warp_sum = warp_sum;
    r.tile_sum = tile_sum;
    r.tile_ballot = ballot;
    r.tile_any = any;
    r.tile_all = all;
    r.meta_rank = (int)warp.meta_group_rank();
    r.meta_size = (int)warp.meta_group_size();
    r.grid_rank = grid.thread_rank();
    r.grid_size = grid.size();
}

int main() {
    const int n = blocks * block_threads;
    Results* d_out;
    CHECK(cudaMalloc(&d_out, n * sizeof(Results)));
    groups<<<blocks, block_threads>>>(d_out);
    CHECK(cudaGetLastError());
    Results h[n];
    CHECK(cudaMemcpy(h, d_out, sizeof h, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d_out));
    for (int i = 0; i < n; i++) {
        int rank = i % block_threads;
        int warp_first = rank / 32 * 32, tile_first = rank / small_tile * small_tile;
        const Results& r = h[i];
        EXPECT(r.block_sum == block_threads * (block_threads - 1) / 2, "block sum %d at %d", r.block_sum, i);
        if (rank % 32 == 0)
            EXPECT(r.warp_sum == 32 * warp_first + 32 * 31 / 2, "warp sum %d at %d", r.warp_sum, i);
        int expected_tile = small_tile * tile_first + small_tile * (small_tile - 1) / 2;
        EXPECT(r.tile_sum == expected_tile, "tile sum %d, expected %d at %d", r.tile_sum, expected_tile, i);
        EXPECT(r.tile_ballot == 0xaau, "tile ballot 0x%x at %d", r.tile_ballot, i);
        EXPECT(r.tile_any == (tile_first == 0), "tile any %d at %d", r.tile_any, i);
        EXPECT(r.tile_all == (rank < 64), "tile all %d at %d", r.tile_all, i);
        EXPECT(r.meta_rank == rank / 32 && r.meta_size == block_threads / 32, "meta group %d of %d at %d",
               r.meta_rank, r.meta_size, i);
        EXPECT(r.grid_rank == (unsigned long long)i && r.grid_size == (unsigned long long)n,
               "grid rank %llu of %llu at %d", r.grid_rank, r.grid_size, i);
    }
    return pass(test_name);
}
