// half_precision.cu - __half and __half2 from <cuda_fp16.h>: conversions round to the nearest
// half (ties to even), arithmetic rounds each result, and paired operations act on both halves.
#include <cuda_fp16.h>

#include "check.h"

static const char* test_name = "half_precision";

constexpr int n = 64;

__global__ void dot_pairs(const __half2* a, const __half2* b, float* out) {
    int i = threadIdx.x;
    __half2 product = __hmul2(a[i], b[i]);
    __half2 sum = __hfma2(a[i], b[i], product);  // 2 * a * b, rounded twice
    half2 zero(0.f, 0.f);  // each float made a __half, as CUDA's constructor does
    __half2 doubled = __hadd2(sum, zero);
    out[i] = __low2float(doubled) + __high2float(doubled);
}

__global__ void conversions(float* out) {
    out[0] = __half2float(__float2half(1.0f + 1.0f / 2048));       // tie: to even, 1
    out[1] = __half2float(__float2half(1.0f + 3.0f / 2048));       // tie: to even, 1 + 2/1024
    out[2] = __half2float(__float2half(65504.0f));                  // the largest half
    out[3] = __half2float(__float2half(70000.0f));                  // too large: infinity
    out[4] = __half2float(__float2half(5.9604645e-8f));             // the smallest subnormal
    out[5] = __half2float(__hdiv(__float2half(1.0f), __float2half(3.0f)));
    out[6] = __half2float(__hneg(__float2half(2.5f)));
}

int main() {
    __half2 h_a[n], h_b[n];
    for (int i = 0; i < n; i++) {
        h_a[i] = __floats2half2_rn(i * 0.5f, -i * 0.25f);
        h_b[i] = __floats2half2_rn(2.0f, 4.0f);
    }
    __half2 *d_a, *d_b;
    float *d_out, h_out[n];
    CHECK(cudaMalloc(&d_a, sizeof h_a));
    CHECK(cudaMalloc(&d_b, sizeof h_b));
    CHECK(cudaMalloc(&d_out, sizeof h_out));
    CHECK(cudaMemcpy(d_a, h_a, sizeof h_a, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_b, h_b, sizeof h_b, cudaMemcpyHostToDevice));
    dot_pairs<<<1, n>>>(d_a, d_b, d_out);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
        float expected = 2 * (i * 0.5f * 2.0f) + 2 * (-i * 0.25f * 4.0f);  // exact in half here
        EXPECT(h_out[i] == expected, "pair %d: %g, expected %g", i, h_out[i], expected);
    }
    conversions<<<1, 1>>>(d_out);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h_out, d_out, 7 * sizeof(float), cudaMemcpyDeviceToHost));
    const float expected[7] = {1.0f, 1.0f + 2.0f / 1024, 65504.0f, INFINITY, 5.9604645e-8f,
                               0.333251953125f, -2.5f};
    for (int i = 0; i < 7; i++)
        EXPECT(h_out[i] == expected[i], "conversion %d: %.9g, expected %.9g", i, h_out[i], expected[i]);
    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
    CHECK(cudaFree(d_out));
    return pass(test_name);
}
