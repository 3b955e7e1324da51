// large_tiles.cu - tiles of 64, 128, 256 and 512 threads (CUDA 12's multi-warp tiles, with the
// block's block_tile_memory): ranks, sizes and meta groups, sync() as a barrier of the tile alone
// (threads exchange values through shared memory across warps; only some tiles take a branch
// with a sync and a reduce), shfl, any, all, cg::reduce, and tiles of such tiles.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include "check.h"

namespace cg = cooperative_groups;

static const char* test_name = "large_tiles";
constexpr int threads = 512;

struct Result {
    int rank, size, meta_rank, meta_size;
    int neighbour;        // the square of the next rank's thread index, read from shared memory
    int shuffled;         // shfl(3 * t, 5): 3 * (the tile's first thread + 5)
    int any, all, none;   // any(last rank), all(t < threads), any(0)
    int sum, largest;     // cg::reduce with plus and greater
    int only_even_tiles;  // reduce of 1 in the tiles of even meta rank, else -1
    int warp_meta_rank, warp_meta_size;  // tiled_partition<32>(tile)
    int half_meta_rank, half_meta_size;  // tiled_partition<Size / 2>(tile)
};

template <unsigned Size>
__device__ void check_tile(cg::thread_block block, Result* out) {
    __shared__ int squares[threads];
    cg::thread_block_tile<Size> tile = cg::tiled_partition<Size>(block);
    int t = (int)block.thread_rank(), rank = (int)tile.thread_rank(), first = t - rank;
    Result r;
    r.rank = rank;
    r.size = (int)tile.size();
    r.meta_rank = (int)tile.meta_group_rank();
    r.meta_size = (int)tile.meta_group_size();

    squares[t] = t * t;
    tile.sync();
    r.neighbour = squares[first + (rank + 1) % (int)Size];
    tile.sync();  // before anyone writes squares again

    r.shuffled = tile.shfl(3 * t, 5);
    r.any = tile.any(rank == (int)Size - 1);
    r.all = tile.all(t < threads);
    r.none = tile.any(0);
    r.sum = cg::reduce(tile, t, cg::plus<int>());
    r.largest = cg::reduce(tile, (t * 37) % 101, cg::greater<int>());
    r.only_even_tiles = -1;
    if (tile.meta_group_rank() % 2 == 0) {
        tile.sync();
        r.only_even_tiles = cg::reduce(tile, 1, cg::plus<int>());
    }
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(tile);
    r.warp_meta_rank = (int)warp.meta_group_rank();
    r.warp_meta_size = (int)warp.meta_group_size();
    auto half = cg::tiled_partition<Size / 2>(tile);
    r.half_meta_rank = (int)half.meta_group_rank();
    r.half_meta_size = (int)half.meta_group_size();
    out[t] = r;
    block.sync();
}

__global__ void large_tiles(Result* out) {
    __shared__ cg::block_tile_memory<threads> scratch;
    cg::thread_block block = cg::this_thread_block(scratch);
    check_tile<64>(block, out);
    check_tile<128>(block, out + threads);
    check_tile<256>(block, out + 2 * threads);
    check_tile<512>(block, out + 3 * threads);
}

int main() {
    const int sizes[] = {64, 128, 256, 512};
    Result* d_out;
    CHECK(cudaMalloc(&d_out, 4 * threads * sizeof(Result)));
    large_tiles<<<1, threads>>>(d_out);
    CHECK(cudaGetLastError());
    static Result h[4 * threads];
    CHECK(cudaMemcpy(h, d_out, sizeof h, cudaMemcpyDeviceToHost));
    for (int s = 0; s < 4; s++) {
        int size = sizes[s];
        for (int t = 0; t < threads; t++) {
            const Result& r = h[s * threads + t];
            int rank = t % size, first = t - rank, next = first + (rank + 1) % size;
            EXPECT(r.rank == rank && r.size == size && r.meta_rank == t / size &&
                       r.meta_size == threads / size,
                   "tile of %d, thread %d: rank %d size %d meta %d/%d", size, t, r.rank, r.size,
                   r.meta_rank, r.meta_size);
            EXPECT(r.neighbour == next * next, "tile of %d, thread %d: read %d after sync, expected %d",
                   size, t, r.neighbour, next * next);
            EXPECT(r.shuffled == 3 * (first + 5), "tile of %d, thread %d: shfl gave %d, expected %d",
                   size, t, r.shuffled, 3 * (first + 5));
            EXPECT(r.any == 1 && r.all == 1 && r.none == 0, "tile of %d, thread %d: any %d all %d any(0) %d",
                   size, t, r.any, r.all, r.none);
            int sum = 0, largest = 0;
            for (int u = first; u < first + size; u++) {
                sum += u;
                largest = (u * 37) % 101 > largest ? (u * 37) % 101 : largest;
            }
            EXPECT(r.sum == sum && r.largest == largest,
                   "tile of %d, thread %d: reduce plus %d greater %d, expected %d %d", size, t,
                   r.sum, r.largest, sum, largest);
            int even = (t / size) % 2 == 0 ? size : -1;
            EXPECT(r.only_even_tiles == even, "tile of %d, thread %d: reduce in even tiles only %d, expected %d",
                   size, t, r.only_even_tiles, even);
            EXPECT(r.warp_meta_rank == rank / 32 && r.warp_meta_size == size / 32,
                   "tile of %d, thread %d: its warp's meta rank %d size %d", size, t,
                   r.warp_meta_rank, r.warp_meta_size);
            EXPECT(r.half_meta_rank == rank / (size / 2) && r.half_meta_size == 2,
                   "tile of %d, thread %d: its half's meta rank %d size %d", size, t,
                   r.half_meta_rank, r.half_meta_size);
        }
    }
    return pass(test_name);
}
