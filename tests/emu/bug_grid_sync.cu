// bug_grid_sync.cu - two deliberate bugs with grid.sync(). Blocks whose data ends return early,
// and the other blocks wait at a grid.sync() those never reach: on a GPU the grid hangs; the
// emulator reports the barrier and the blocks that returned, and exits 1. With the argument
// "plain", the kernel is launched with <<<...>>>, where grid.sync() is not allowed at all.
#include <cstring>

#include <cooperative_groups.h>

#include "check.h"

namespace cg = cooperative_groups;

static const char* test_name = "bug_grid_sync";
constexpr int threads = 64;

__global__ void shift_left(int* data, int n) {
    cg::grid_group grid = cg::this_grid();
    int i = (int)grid.thread_rank();
    if (blockIdx.x * threads >= (unsigned)n) return;  // BUG: whole blocks skip the grid.sync below
    int right = i + 1 < n ? data[i + 1] : 0;
    grid.sync();  // the grid-wide barrier the returned blocks miss
    if (i < n) data[i] = right;
}

int main(int argc, char** argv) {
    int n = 2 * threads;  // 2 blocks of data, 4 launched
    int* d_data;
    CHECK(cudaMalloc(&d_data, 4 * threads * sizeof(int)));
    CHECK(cudaMemset(d_data, 0, 4 * threads * sizeof(int)));
    if (argc > 1 && strcmp(argv[1], "plain") == 0) {
        shift_left<<<4, threads>>>(d_data, n);
    } else {
        void* args[] = {&d_data, &n};
        CHECK(cudaLaunchCooperativeKernel(shift_left, 4, threads, args));
    }
    CHECK(cudaDeviceSynchronize());
    return pass(test_name);
}
