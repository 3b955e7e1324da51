// thread_group.cu - cooperative_groups::thread_group holds a block, a tile of a size fixed at
// compile time, or a tile of a size chosen at run time (tiled_partition(group, size)), and one
// function written against it serves all three: ranks, sizes and sync().
#include <cooperative_groups.h>

#include "check.h"

namespace cg = cooperative_groups;

static const char* test_name = "thread_group";
constexpr int threads = 64;

// The group's sum of its threads' values, by halving in the group's own slice of scratch;
// rank 0 of the group returns it.
__device__ int group_sum(cg::thread_group group, int* scratch, int value) {
    int rank = (int)group.thread_rank();
    for (int half = (int)group.size() / 2; half > 0; half /= 2) {
        scratch[rank] = value;
        group.sync();
        if (rank < half) value += scratch[rank + half];
        group.sync();
    }
    return value;
}

// out[0]: the block's sum; out[1 + t]: for thread t, what its 16-thread static tile found
// (at the tile's rank 0, else -1); out[1 + threads + t]: the same with an 8-thread tile made
// at run time; out[1 + 2 * threads + t]: rank and size seen through a thread_group.
__global__ void sums(int* out, unsigned dynamic_size) {
    __shared__ int scratch[threads];
    cg::thread_block block = cg::this_thread_block();
    int rank = (int)block.thread_rank();

    int block_total = group_sum(block, scratch, rank);
    if (rank == 0) out[0] = block_total;
    block.sync();

    cg::thread_block_tile<16> tile16 = cg::tiled_partition<16>(block);
    int offset = rank - (int)tile16.thread_rank();
    int tile_total = group_sum(tile16, scratch + offset, rank);
    out[1 + rank] = tile16.thread_rank() == 0 ? tile_total : -1;
    block.sync();

    cg::thread_group tile = cg::tiled_partition(block, dynamic_size);
    offset = rank - (int)tile.thread_rank();
    tile_total = group_sum(tile, scratch + offset, 1);
    out[1 + threads + rank] = tile.thread_rank() == 0 ? tile_total : -1;

    cg::thread_group as_group = tile16;
    out[1 + 2 * threads + rank] = (int)(as_group.thread_rank() * 100 + as_group.size());
}

int main() {
    const int count = 1 + 3 * threads;
    int* d_out;
    CHECK(cudaMalloc(&d_out, count * sizeof(int)));
    sums<<<1, threads>>>(d_out, 8);
    CHECK(cudaGetLastError());
    int out[count];
    CHECK(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));

    EXPECT(out[0] == threads * (threads - 1) / 2, "block sum %d, expected %d", out[0],
           threads * (threads - 1) / 2);
    for (int t = 0; t < threads; t++) {
        int first = t - t % 16;  // the tile's ranks first .. first + 15
        int expected = t % 16 == 0 ? 16 * first + 15 * 16 / 2 : -1;
        EXPECT(out[1 + t] == expected, "thread %d: 16-thread tile gave %d, expected %d", t, out[1 + t],
               expected);
        expected = t % 8 == 0 ? 8 : -1;
        EXPECT(out[1 + threads + t] == expected, "thread %d: run-time 8-thread tile gave %d, expected %d",
               t, out[1 + threads + t], expected);
        expected = (t % 16) * 100 + 16;
        EXPECT(out[1 + 2 * threads + t] == expected, "thread %d: rank*100+size %d, expected %d", t,
               out[1 + 2 * threads + t], expected);
    }

#ifdef CUDA_EMULATION
    // A tile size the emulator has no tiles of is a device-side assert, which says why on stderr.
    sums<<<1, threads>>>(d_out, 48);
    cudaError_t status = cudaDeviceSynchronize();
    EXPECT(status == cudaErrorAssert, "tiled_partition(block, 48) gave %s, expected cudaErrorAssert",
           cudaGetErrorName(status));
#endif
    return pass(test_name);
}
