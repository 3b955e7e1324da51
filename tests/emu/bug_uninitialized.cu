// bug_uninitialized.cu - a deliberate bug: the host fills only the first half of the input, and
// the kernel sums all of it. Fresh memory often happens to hold zeros, hiding the bug; with
// CUDA_EMU_POISON=1 it holds NaN, the sum turns NaN and the program reports FAIL.
#include <cmath>

#include "check.h"

static const char* test_name = "bug_uninitialized";
constexpr int threads_per_block = 128;

__global__ void sum(const float* in, float* total, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(total, in[i]);
}

int main() {
    const int n = 1000;
    float h_in[n];
    for (int i = 0; i < n; i++) h_in[i] = 1.0f;
    float *d_in, *d_total;
    CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    CHECK(cudaMalloc(&d_total, sizeof(float)));
    CHECK(cudaMemset(d_total, 0, sizeof(float)));
    CHECK(cudaMemcpy(d_in, h_in, n / 2 * sizeof(float), cudaMemcpyHostToDevice));  // BUG: half
    sum<<<(n + threads_per_block - 1) / threads_per_block, threads_per_block>>>(d_in, d_total, n);
    CHECK(cudaGetLastError());
    float total = 0;
    CHECK(cudaMemcpy(&total, d_total, sizeof total, cudaMemcpyDeviceToHost));
    EXPECT(std::isfinite(total), "the sum is %f: the kernel read memory nobody wrote", total);
    return pass(test_name);
}
