// bug_out_of_bounds.cu - a deliberate bug: the bounds check uses <= instead of <, so the thread
// with i == n writes one float past the end of the output. Run with CUDA_EMU_GUARD=1, the
// emulator stops at that write and names the allocation (size, file:line), the offset, and the
// block and thread that made it.
#include "check.h"

static const char* test_name = "bug_out_of_bounds";
constexpr int threads_per_block = 64;

__global__ void copy(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) out[i] = i < n ? in[i] : 0.0f;  // BUG: should be i < n
}

int main() {
    const int n = 100;
    float *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    CHECK(cudaMalloc(&d_out, n * sizeof(float)));  // the allocation that is overrun
    CHECK(cudaMemset(d_in, 0, n * sizeof(float)));
    copy<<<(n + threads_per_block - 1) / threads_per_block, threads_per_block>>>(d_in, d_out, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    return pass(test_name);
}
