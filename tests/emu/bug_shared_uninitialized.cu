// bug_shared_uninitialized.cu - a deliberate bug: a stencil whose tile misses its right halo, so
// the last thread of each block reads a word of shared memory that no thread wrote. The value
// is whatever the previous block left there, often even the right one; `emucc --sanitize`
// reports the read with its line (tests/sanitize.bats).
#include "check.h"

static const char* test_name = "bug_shared_uninitialized";
constexpr int threads_per_block = 32;

__global__ void right_sum(const int* in, int* out, int n) {
    __shared__ int tile[threads_per_block + 1];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = i < n ? in[i] : 0;
    // BUG: the halo, tile[threads_per_block], is never loaded.
    __syncthreads();
    if (i < n) out[i] = tile[threadIdx.x] + tile[threadIdx.x + 1];  // the read of the halo
}

int main() {
    const int n = 64;
    int h_in[n], h_out[n];
    for (int i = 0; i < n; i++) h_in[i] = 1;
    int *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, sizeof h_in));
    CHECK(cudaMalloc(&d_out, sizeof h_out));
    CHECK(cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice));
    right_sum<<<n / threads_per_block, threads_per_block>>>(d_in, d_out, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost));
    return pass(test_name);
}
