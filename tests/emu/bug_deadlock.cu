// bug_deadlock.cu - a deliberate bug: threads past the end of the data return early, and the rest
// then wait at a __syncthreads those threads never reach. On a GPU that is undefined (a hang, or
// a barrier that silently does not hold); the emulator reports the barrier's line and exits 1.
#include "check.h"

static const char* test_name = "bug_deadlock";
constexpr int threads_per_block = 128;

__global__ void scale(float* data, int n) {
    __shared__ float tile[threads_per_block];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;  // BUG: these threads never reach the barrier below
    tile[threadIdx.x] = data[i];
    __syncthreads();  // the barrier the early returners miss
    data[i] = tile[threadIdx.x] * 2;
}

int main() {
    const int n = 200;  // the second block has 72 threads with data, 56 without
    float* d_data;
    CHECK(cudaMalloc(&d_data, n * sizeof(float)));
    CHECK(cudaMemset(d_data, 0, n * sizeof(float)));
    scale<<<(n + threads_per_block - 1) / threads_per_block, threads_per_block>>>(d_data, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    return pass(test_name);
}
