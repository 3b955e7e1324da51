// header_kernels.cu - kernels, launches and extern __shared__ that live in an included header
// (scaled_sums.cuh) work as they do in the .cu itself: emucc rewrites quoted includes too.
#include "check.h"
#include "scaled_sums.cuh"

static const char* test_name = "header_kernels";

int main() {
    const int n = 1000, threads = 128, blocks = (n + threads - 1) / threads;
    float h_x[n], h_sums[blocks];
    for (int i = 0; i < n; i++) h_x[i] = (float)(i % 7);
    float *d_x, *d_sums;
    CHECK(cudaMalloc(&d_x, sizeof h_x));
    CHECK(cudaMalloc(&d_sums, sizeof h_sums));
    CHECK(cudaMemcpy(d_x, h_x, sizeof h_x, cudaMemcpyHostToDevice));
    launch_scaled_block_sums(d_x, d_sums, n, 0.5f, threads);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h_sums, d_sums, sizeof h_sums, cudaMemcpyDeviceToHost));
    for (int b = 0; b < blocks; b++) {
        float expected = 0.0f;
        for (int i = b * threads; i < n && i < (b + 1) * threads; i++) expected += 0.5f * h_x[i];
        EXPECT(h_sums[b] == expected, "block %d: expected %g, got %g\n", b, expected, h_sums[b]);
    }
    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_sums));
    return pass(test_name);
}
