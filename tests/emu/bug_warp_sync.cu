// bug_warp_sync.cu - a deliberate bug: the last warp of a reduction, unrolled the pre-Volta way,
// trusting the 32 threads of a warp to run in lockstep (volatile shared memory, no
// __syncwarp). Since Volta they need not; `emucc --sanitize` reports the race inside the warp
// and asks for __syncwarp() (tests/sanitize.bats).
#include "check.h"

static const char* test_name = "bug_warp_sync";
constexpr int threads_per_block = 64;

__global__ void block_sum(const int* in, int* out) {
    __shared__ int partial[threads_per_block];
    int t = threadIdx.x;
    partial[t] = in[t];
    __syncthreads();
    if (t < 32) {
        volatile int* v = partial;
        v[t] += v[t + 32];
        v[t] += v[t + 16];  // BUG: each line reads what other lanes wrote on the line before:
                            // a __syncwarp() belongs between every two lines
        v[t] += v[t + 8];
        v[t] += v[t + 4];
        v[t] += v[t + 2];
        v[t] += v[t + 1];
    }
    if (t == 0) *out = partial[0];
}

int main() {
    int h_in[threads_per_block], h_out = 0, expected = 0;
    for (int i = 0; i < threads_per_block; i++) expected += h_in[i] = i;
    int *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, sizeof h_in));
    CHECK(cudaMalloc(&d_out, sizeof h_out));
    CHECK(cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice));
    block_sum<<<1, threads_per_block>>>(d_in, d_out);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(&h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost));
    EXPECT(h_out == expected, "the sum is %d, expected %d", h_out, expected);
    return pass(test_name);
}
