// bug_tile_race.cu - a deliberate bug: a tile's sync() orders the threads of that tile only. Each
// thread of a 128-thread block reads a value written by the other 64-thread tile, after its own
// tile's sync(): --sanitize must name the race (the fix is __syncthreads(), or block.sync()),
// and must not report the reads within a tile that large_tiles.cu makes.
#include <cooperative_groups.h>

#include "check.h"

namespace cg = cooperative_groups;

static const char* test_name = "bug_tile_race";
constexpr int threads = 128;

__global__ void swap_halves(int* out) {
    __shared__ int values[threads];
    cg::thread_block_tile<64> tile = cg::tiled_partition<64>(cg::this_thread_block());
    values[threadIdx.x] = 3 * threadIdx.x;
    tile.sync();  // BUG: orders this tile's writes only; the read below needs the other tile's
    out[threadIdx.x] = values[(threadIdx.x + 64) % threads];
}

int main() {
    int* d_out;
    CHECK(cudaMalloc(&d_out, threads * sizeof(int)));
    swap_halves<<<1, threads>>>(d_out);
    CHECK(cudaGetLastError());
    int h_out[threads];
    CHECK(cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost));
    for (int t = 0; t < threads; t++)
        EXPECT(h_out[t] == 3 * ((t + 64) % threads), "out[%d] = %d, expected %d", t, h_out[t],
               3 * ((t + 64) % threads));
    return pass(test_name);
}
