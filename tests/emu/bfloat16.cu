// bfloat16.cu - __nv_bfloat16 and __nv_bfloat162 from <cuda_bf16.h>: a float's range with 8
// bits of mantissa. Conversions round to the nearest bfloat16 (ties to even), arithmetic rounds
// each result, and paired operations act on both halves.
#include <cuda_bf16.h>

#include <cmath>

#include "check.h"

static const char* test_name = "bfloat16";

constexpr int n = 64;

__global__ void dot_pairs(const __nv_bfloat162* a, const __nv_bfloat162* b, float* out) {
    int i = threadIdx.x;
    __nv_bfloat162 product = __hmul2(a[i], b[i]);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800 && !defined(CUDA_EMULATION)
    __nv_bfloat162 sum = __hadd2(product, product);  // CUDA has no bfloat16 fma before 8.0
#else
    __nv_bfloat162 sum = __hfma2(a[i], b[i], product);  // 2 * a * b, rounded twice
#endif
    out[i] = __low2float(sum) + __high2float(sum);
}

__global__ void conversions(float* out) {
    out[0] = __bfloat162float(__float2bfloat16(1.0f + 1.0f / 256));  // tie: to even, 1
    out[1] = __bfloat162float(__float2bfloat16(1.0f + 3.0f / 256));  // tie: to even, 1 + 2/128
    out[2] = __bfloat162float(__float2bfloat16(3.3895314e38f));      // the largest bfloat16
    out[3] = __bfloat162float(__float2bfloat16(3.4e38f));            // too large: infinity
    out[4] = __bfloat162float(__float2bfloat16(1e10f));              // far past half's range
    out[5] = __bfloat162float(__hdiv(__float2bfloat16(1.0f), __float2bfloat16(3.0f)));
    out[6] = __bfloat162float(__hneg(__float2bfloat16(2.5f)));
    out[7] = (float)__hisinf(__float2bfloat16(-INFINITY));           // -1: negative infinity
    out[8] = (float)__hisnan(__float2bfloat16(__int_as_float(0x7f800001)));  // a NaN stays one
    out[9] = __bfloat162float(__hadd(__float2bfloat16(256.0f), __float2bfloat16(1.0f)));  // 257: a tie, to 256
}

int main() {
    __nv_bfloat162 h_a[n], h_b[n];
    for (int i = 0; i < n; i++) {
        h_a[i] = __floats2bfloat162_rn(i * 0.5f, -i * 0.25f);
        h_b[i] = __floats2bfloat162_rn(2.0f, 4.0f);
    }
    __nv_bfloat162 *d_a, *d_b;
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
        float expected = 2 * (i * 0.5f * 2.0f) + 2 * (-i * 0.25f * 4.0f);  // exact in bfloat16 here
        EXPECT(h_out[i] == expected, "pair %d: %g, expected %g", i, h_out[i], expected);
    }
    conversions<<<1, 1>>>(d_out);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h_out, d_out, 10 * sizeof(float), cudaMemcpyDeviceToHost));
    const float expected[10] = {1.0f, 1.0f + 2.0f / 128, 3.3895314e38f, INFINITY, 9999220736.0f,
                                0.333984375f, -2.5f, -1.0f, 1.0f, 256.0f};
    for (int i = 0; i < 10; i++)
        EXPECT(h_out[i] == expected[i], "conversion %d: %.9g, expected %.9g", i, h_out[i], expected[i]);
    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
    CHECK(cudaFree(d_out));
    return pass(test_name);
}
