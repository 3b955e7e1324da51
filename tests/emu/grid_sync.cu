// grid_sync.cu - a cooperative launch runs all blocks at once, so grid.sync() is a barrier for the
// whole grid: a stencil that reads its neighbours' values, written by other blocks, step after
// step. The grid's ranks and sizes, is_valid() in both kinds of launch, and the refusal of a grid
// larger than the device holds at once, static shared memory counted; the kernel passed as itself
// and as void*.
#include <cooperative_groups.h>

#include "check.h"

namespace cg = cooperative_groups;

static const char* test_name = "grid_sync";
constexpr int threads = 128;
constexpr int steps = 5;

struct GridInfo {
    unsigned long long size, num_blocks;
    int valid, ranks_ok;
};

// Each step: every element becomes the sum of itself and its two neighbours (on a ring), read
// from the previous step's array, which threads of every block wrote.
__global__ void ring_sums(const int* in, int* a, int* b, int n, GridInfo* info) {
    cg::grid_group grid = cg::this_grid();
    unsigned long long rank = grid.thread_rank();
    bool ranks_ok = rank == blockIdx.x * (unsigned long long)threads + threadIdx.x &&
                    grid.block_rank() == blockIdx.x && grid.block_index().x == blockIdx.x;
    if (!ranks_ok) atomicExch(&info->ranks_ok, 0);
    if (rank == 0) {
        info->size = grid.size();
        info->num_blocks = grid.num_blocks();
        info->valid = grid.is_valid();
    }
    for (int i = (int)rank; i < n; i += (int)grid.size()) a[i] = in[i];
    grid.sync();
    for (int s = 0; s < steps; s++) {
        const int* from = s % 2 == 0 ? a : b;
        int* to = s % 2 == 0 ? b : a;
        for (int i = (int)rank; i < n; i += (int)grid.size())
            to[i] = from[(i + n - 1) % n] + from[i] + from[(i + 1) % n];
        grid.sync();
    }
}

__global__ void validity(int* valid) { *valid = cg::this_grid().is_valid(); }

// 40 KB of static shared memory a block: fewer of its blocks fit on an SM at once, so a smaller
// grid is the most that may be launched cooperatively.
__global__ void staged_sync(int* out) {
    __shared__ int stage[10 * 1024];
    stage[threadIdx.x] = (int)threadIdx.x;
    cg::this_grid().sync();
    out[blockIdx.x * blockDim.x + threadIdx.x] = stage[threadIdx.x];
}

// With an argument N: a grid for N SMs; without one, for every SM of the device, as cooperative
// kernels are usually launched (the emulator runs as many SMs' worth as it has workers).
int main(int argc, char** argv) {
    int per_sm = 0, sms = 0, cooperative = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, ring_sums, threads, 0));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, 0));
    EXPECT(cooperative == 1, "cudaDevAttrCooperativeLaunch is %d", cooperative);
    int device_blocks = per_sm * sms;  // what the device holds at once
    if (argc > 1) sms = atoi(argv[1]);
    int blocks = per_sm * sms;
    int n = blocks * threads * 2 + 7;

    int* h_in = new int[n];
    int* h_expected = new int[n];
    int* h_out = new int[n];
    for (int i = 0; i < n; i++) h_in[i] = i % 10;
    int *d_in, *d_a, *d_b;
    GridInfo* d_info;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_a, n * sizeof(int)));
    CHECK(cudaMalloc(&d_b, n * sizeof(int)));
    CHECK(cudaMalloc(&d_info, sizeof(GridInfo)));
    CHECK(cudaMemcpy(d_in, h_in, n * sizeof(int), cudaMemcpyHostToDevice));
    GridInfo h_info = {0, 0, 0, 1};
    CHECK(cudaMemcpy(d_info, &h_info, sizeof h_info, cudaMemcpyHostToDevice));

    // Launched as NVIDIA's samples do, through void*: the emulator reads the arguments with the
    // parameter types it noted at the occupancy query above.
    void* args[] = {&d_in, &d_a, &d_b, &n, &d_info};
    CHECK(cudaLaunchCooperativeKernel((void*)ring_sums, dim3(blocks), dim3(threads), args));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(h_out, steps % 2 == 0 ? d_a : d_b, n * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&h_info, d_info, sizeof h_info, cudaMemcpyDeviceToHost));

    for (int i = 0; i < n; i++) h_expected[i] = h_in[i];
    for (int s = 0; s < steps; s++) {
        int* next = new int[n];
        for (int i = 0; i < n; i++)
            next[i] = h_expected[(i + n - 1) % n] + h_expected[i] + h_expected[(i + 1) % n];
        delete[] h_expected;
        h_expected = next;
    }
    for (int i = 0; i < n; i++)
        EXPECT(h_out[i] == h_expected[i], "element %d of %d is %d, expected %d (%d blocks)", i, n, h_out[i],
               h_expected[i], blocks);
    EXPECT(h_info.size == (unsigned long long)blocks * threads && h_info.num_blocks == (unsigned long long)blocks,
           "grid size %llu and %llu blocks, expected %d blocks of %d", h_info.size, h_info.num_blocks, blocks,
           threads);
    EXPECT(h_info.valid == 1 && h_info.ranks_ok == 1, "is_valid %d, ranks right %d", h_info.valid,
           h_info.ranks_ok);

    // One block more than the device holds at once cannot be cooperative.
    cudaError_t error = cudaLaunchCooperativeKernel(ring_sums, dim3(device_blocks + 1), dim3(threads), args);
    EXPECT(error == cudaErrorCooperativeLaunchTooLarge, "a launch of %d blocks gave %s",
           device_blocks + 1, cudaGetErrorName(error));
    error = cudaGetLastError();
    EXPECT(error == cudaErrorCooperativeLaunchTooLarge, "cudaGetLastError after it gave %s",
           cudaGetErrorName(error));

    int staged_per_sm = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&staged_per_sm, staged_sync, threads, 0));
    EXPECT(staged_per_sm >= 1 && staged_per_sm < per_sm, "%d blocks with 40 KB of static shared memory per SM, %d without",
           staged_per_sm, per_sm);
    int staged_blocks = staged_per_sm * (device_blocks / per_sm) + 1;
    void* staged_args[] = {&d_a};
    error = cudaLaunchCooperativeKernel(staged_sync, dim3(staged_blocks), dim3(threads), staged_args);
    EXPECT(error == cudaErrorCooperativeLaunchTooLarge, "a launch of %d blocks of staged_sync gave %s", staged_blocks,
           cudaGetErrorName(error));
    cudaGetLastError();

    // A grid launched with <<<...>>> is no valid grid group.
    int* d_valid;
    int valid = -1;
    CHECK(cudaMalloc(&d_valid, sizeof(int)));
    validity<<<2, 32>>>(d_valid);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(&valid, d_valid, sizeof valid, cudaMemcpyDeviceToHost));
    EXPECT(valid == 0, "is_valid() in a <<<>>> launch is %d", valid);

    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
    CHECK(cudaFree(d_info));
    CHECK(cudaFree(d_valid));
    delete[] h_in;
    delete[] h_expected;
    delete[] h_out;
    printf("%d blocks of %d threads\n", blocks, threads);
    return pass(test_name);
}
