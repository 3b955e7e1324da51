// bug_shared_out_of_bounds.cu - a deliberate bug: a kernel sizes its dynamic shared memory for
// blockDim.x floats but the last thread writes one past the end. Nothing on a GPU says so;
// `emucc --sanitize` reports the write with its line (tests/sanitize.bats).
#include "check.h"

static const char* test_name = "bug_shared_out_of_bounds";

__global__ void shift(const float* in, float* out) {
    extern __shared__ float buffer[];
    int t = threadIdx.x;
    buffer[t + 1] = in[t];  // BUG: thread blockDim.x - 1 writes buffer[blockDim.x]
    __syncthreads();
    out[t] = t > 0 ? buffer[t] : 0.0f;
}

int main() {
    const int n = 64;
    float h_in[n], h_out[n];
    for (int i = 0; i < n; i++) h_in[i] = (float)i;
    float *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, sizeof h_in));
    CHECK(cudaMalloc(&d_out, sizeof h_out));
    CHECK(cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice));
    shift<<<1, n, n * sizeof(float)>>>(d_in, d_out);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost));
    return pass(test_name);
}
