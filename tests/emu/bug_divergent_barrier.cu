// bug_divergent_barrier.cu - a deliberate bug: the two halves of a block wait at two different
// __syncthreads (one in each branch of an if). On a GPU this hangs or silently misbehaves; the
// emulator reports both barriers with file and line and exits with status 1.
#include "check.h"

static const char* test_name = "bug_divergent_barrier";

__global__ void halves(float* data) {
    __shared__ float shared[64];
    int t = threadIdx.x;
    if (t < 32) {
        shared[t] = data[t];
        __syncthreads();  // BUG: only the first half waits here
    } else {
        shared[t] = 2 * data[t];
        __syncthreads();  // ... and only the second half here
    }
    data[t] = shared[63 - t];
}

int main() {
    float* d_data;
    CHECK(cudaMalloc(&d_data, 64 * sizeof(float)));
    CHECK(cudaMemset(d_data, 0, 64 * sizeof(float)));
    halves<<<1, 64>>>(d_data);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    return pass(test_name);
}
