// bug_race_tree.cu - a deliberate bug: a shared-memory tree reduction whose loop has no
// __syncthreads between the levels. In reverse order each thread happens to find its
// partner's value already summed, so the result is right: changing the thread order is not
// enough to find this bug, and `emucc --sanitize` names it in every order (tests/sanitize.bats).
#include "check.h"

static const char* test_name = "bug_race_tree";
constexpr int threads_per_block = 256;

__global__ void block_sums(const int* in, int* out) {
    __shared__ int partial[threads_per_block];
    int t = threadIdx.x;
    partial[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (t < stride) partial[t] += partial[t + stride];  // the racing read and write
        // BUG: __syncthreads() belongs here, before the next level reads these sums.
    }
    if (t == 0) out[blockIdx.x] = partial[0];
}

int main() {
    const int blocks = 4, n = blocks * threads_per_block;
    int h_in[n], h_out[blocks];
    for (int i = 0; i < n; i++) h_in[i] = i % 7;
    int *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, sizeof h_in));
    CHECK(cudaMalloc(&d_out, sizeof h_out));
    CHECK(cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice));
    block_sums<<<blocks, threads_per_block>>>(d_in, d_out);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost));
    for (int b = 0; b < blocks; b++) {
        int expected = 0;
        for (int i = 0; i < threads_per_block; i++) expected += h_in[b * threads_per_block + i];
        EXPECT(h_out[b] == expected, "block %d sums to %d, expected %d", b, h_out[b], expected);
    }
    return pass(test_name);
}
