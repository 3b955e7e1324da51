// intrinsics.cu - the bit and math intrinsics give the values CUDA documents, and printf
// works inside a kernel.
#include <cmath>

#include "check.h"

static const char* test_name = "intrinsics";

struct Bits {
    int popc, popcll, clz, clz_zero, ffs, ffs_zero;
    float ldg, expf_, logf_, sinf_, cosf_, divide, rsqrt, fma, fma_rn;
    int min_int;
    float max_float;
};

__global__ void intrinsics(const float* in, Bits* out) {
    out->popc = __popc(0xF0F0u);              // 8 bits set
    out->popcll = __popcll(0xFFFFFFFFFFull);  // 40 bits set
    out->clz = __clz(1);                      // 31 zeros above bit 0
    out->clz_zero = __clz(0);                 // 32
    out->ffs = __ffs(0x50);                   // lowest set bit is bit 4: position 5
    out->ffs_zero = __ffs(0);                 // 0: no bit set
    out->ldg = __ldg(&in[1]);
    out->expf_ = __expf(1.0f);
    out->logf_ = __logf(in[2]);
    out->sinf_ = __sinf(0.5f);
    out->cosf_ = __cosf(0.5f);
    out->divide = __fdividef(in[0], 4.0f);
    out->rsqrt = rsqrtf(in[3]);
    out->fma = fmaf(in[0], in[1], 1.0f);
    out->fma_rn = __fmaf_rn(in[0], in[1], 1.0f);
    out->min_int = min(-3, 7);
    out->max_float = max(2.5f, -1.0f);
    if (threadIdx.x == 0 && blockIdx.x == 0) printf("kernel printf %d %.1f\n", 42, 1.5f);
}

static bool close(float actual, float expected) {
    return std::fabs(actual - expected) <= 1e-5f + 1e-5f * std::fabs(expected);
}

int main() {
    const float h_in[4] = {3.0f, 0.25f, 2.718281828f, 16.0f};
    float* d_in;
    Bits* d_out;
    CHECK(cudaMalloc(&d_in, sizeof h_in));
    CHECK(cudaMalloc(&d_out, sizeof(Bits)));
    CHECK(cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice));
    intrinsics<<<1, 1>>>(d_in, d_out);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());  // kernel printf output is flushed by a synchronization
    Bits bits;
    CHECK(cudaMemcpy(&bits, d_out, sizeof bits, cudaMemcpyDeviceToHost));

    EXPECT(bits.popc == 8 && bits.popcll == 40, "__popc %d __popcll %d", bits.popc, bits.popcll);
    EXPECT(bits.clz == 31 && bits.clz_zero == 32, "__clz(1) %d __clz(0) %d", bits.clz, bits.clz_zero);
    EXPECT(bits.ffs == 5 && bits.ffs_zero == 0, "__ffs(0x50) %d __ffs(0) %d", bits.ffs, bits.ffs_zero);
    EXPECT(bits.ldg == 0.25f, "__ldg %g", bits.ldg);
    // The fast __ intrinsics are approximations on a GPU; 1e-5 relative covers them.
    EXPECT(close(bits.expf_, 2.718281828f), "__expf(1) %g", bits.expf_);
    EXPECT(close(bits.logf_, 1.0f), "__logf(e) %g", bits.logf_);
    EXPECT(close(bits.sinf_, 0.479425539f) && close(bits.cosf_, 0.877582562f), "__sinf %g __cosf %g",
           bits.sinf_, bits.cosf_);
    EXPECT(bits.divide == 0.75f, "__fdividef(3, 4) %g", bits.divide);
    EXPECT(close(bits.rsqrt, 0.25f), "rsqrtf(16) %g", bits.rsqrt);
    EXPECT(bits.fma == 1.75f && bits.fma_rn == 1.75f, "fmaf %g __fmaf_rn %g", bits.fma, bits.fma_rn);
    EXPECT(bits.min_int == -3 && bits.max_float == 2.5f, "min %d max %g", bits.min_int, bits.max_float);
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    return pass(test_name);
}
