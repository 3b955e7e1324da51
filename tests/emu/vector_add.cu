// vector_add.cu - the emulator runs the simplest kernel right, including the sizes that test the
// bounds check: 1 element, a prime count (a partial last block), 2^20 + 1 (one thread in the last
// block). Build and run: common/emu/emucc tests/emu/vector_add.cu -o vector_add && ./vector_add
#include "check.h"

static const char* test_name = "vector_add";
constexpr int threads_per_block = 256;

__global__ void add(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

int main() {
    const int sizes[] = {1, 997, (1 << 20) + 1};
    for (int n : sizes) {
        size_t bytes = n * sizeof(float);
        float* h_a = (float*)malloc(bytes);
        float* h_b = (float*)malloc(bytes);
        float* h_c = (float*)malloc(bytes);
        for (int i = 0; i < n; i++) h_a[i] = (float)i, h_b[i] = 0.5f * (float)(n - i);
        float *d_a, *d_b, *d_c;
        CHECK(cudaMalloc(&d_a, bytes));
        CHECK(cudaMalloc(&d_b, bytes));
        CHECK(cudaMalloc(&d_c, bytes));
        CHECK(cudaMemcpy(d_a, h_a, bytes, cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(d_b, h_b, bytes, cudaMemcpyHostToDevice));
        int blocks_per_grid = (n + threads_per_block - 1) / threads_per_block;
        add<<<blocks_per_grid, threads_per_block>>>(d_a, d_b, d_c, n);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(h_c, d_c, bytes, cudaMemcpyDeviceToHost));
        for (int i = 0; i < n; i++)
            EXPECT(h_c[i] == h_a[i] + h_b[i], "n=%d: c[%d] = %g, expected %g", n, i, h_c[i], h_a[i] + h_b[i]);
        CHECK(cudaFree(d_a));
        CHECK(cudaFree(d_b));
        CHECK(cudaFree(d_c));
        free(h_a), free(h_b), free(h_c);
    }
    return pass(test_name);
}
