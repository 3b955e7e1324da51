// bug_missing_sync.cu - a deliberate bug: a stencil reads its neighbour's element from shared
// memory without a __syncthreads between the writes and the reads. On a GPU it often works by
// luck; in the emulator it works in forward order (thread t-1 happens to write before thread t
// reads) and fails in reverse or random order, which is the point of CUDA_EMU_ORDER.
// Prints FAIL when the result is wrong (tests/emu.bats expects that in reverse order).
#include "check.h"

static const char* test_name = "bug_missing_sync";
constexpr int threads_per_block = 128;

__global__ void left_sum(const int* in, int* out, int n) {
    __shared__ int tile[threads_per_block];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = i < n ? in[i] : 0;
    // BUG: __syncthreads() belongs here; thread t reads what thread t-1 wrote.
    int left = threadIdx.x > 0 ? tile[threadIdx.x - 1] : 0;
    if (i < n) out[i] = tile[threadIdx.x] + left;
}

int main() {
    const int n = 1000;
    int h_in[n], h_out[n];
    for (int i = 0; i < n; i++) h_in[i] = i + 1;
    int *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, sizeof h_in));
    CHECK(cudaMalloc(&d_out, sizeof h_out));
    CHECK(cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice));
    left_sum<<<(n + threads_per_block - 1) / threads_per_block, threads_per_block>>>(d_in, d_out, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
        int left = i % threads_per_block > 0 ? h_in[i - 1] : 0;
        EXPECT(h_out[i] == h_in[i] + left, "out[%d] = %d, expected %d (missing __syncthreads?)", i,
               h_out[i], h_in[i] + left);
    }
    return pass(test_name);
}
