// intrinsics.cu - the bit, packed-integer and math intrinsics give the values CUDA documents (the
// directed roundings included), and printf works inside a kernel.
#include <cfloat>
#include <cmath>

#include "check.h"

static const char* test_name = "intrinsics";

struct Bits {
    int popc, popcll, clz, clz_zero, ffs, ffs_zero;
    float ldg, expf_, logf_, sinf_, cosf_, divide, rsqrt, fma, fma_rn;
    int min_int;
    float max_float;
    unsigned int dp2a_lo, dp2a_hi, dp4a;
    int dp2a_lo_signed, dp2a_hi_signed, dp4a_signed;
    unsigned int dp2a_hi_vector, dp4a_vector;
    int dp2a_lo_signed_vector;
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
    // halves 40000 (low) and 3; bytes 0x04 0x05 0x06 0xF0, byte 0 lowest
    out->dp2a_lo = __dp2a_lo(0x00039C40u, 0xF0060504u, 7u);  // 40000 x 4 + 3 x 5 + 7
    out->dp2a_hi = __dp2a_hi(0x00039C40u, 0xF0060504u, 7u);  // 40000 x 6 + 3 x 240 + 7
    out->dp4a = __dp4a(0x01020304u, 0xF0060504u, 1u);       // 4x4 + 3x5 + 2x6 + 1x240 + 1
    // signed: the low half -2, the high 3; the bytes 4, 5, 6, -16
    out->dp2a_lo_signed = __dp2a_lo((int)0x0003FFFEu, (int)0xF0060504u, 1);  // -2x4 + 3x5 + 1
    out->dp2a_hi_signed = __dp2a_hi((int)0x0003FFFEu, (int)0xF0060504u, 1);  // -2x6 + 3x-16 + 1
    out->dp4a_signed = __dp4a((int)0xFF020304u, (int)0xF0060504u, 0);      // 16 + 15 + 12 + 16
    // the vector forms: the same sums
    out->dp2a_hi_vector = __dp2a_hi(make_ushort2(40000, 3), make_uchar4(4, 5, 6, 240), 7u);
    out->dp4a_vector = __dp4a(make_uchar4(4, 3, 2, 1), make_uchar4(4, 5, 6, 240), 1u);
    out->dp2a_lo_signed_vector = __dp2a_lo(make_short2(-2, 3), make_char4(4, 5, 6, -16), 1);
    if (threadIdx.x == 0 && blockIdx.x == 0) printf("kernel printf %d %.1f\n", 42, 1.5f);
}

// Packed and funnel-shifted integers, each against a value worked out by hand.
struct Packed {
    unsigned int usad, uhadd, urhadd, funnel_l, funnel_l_wrap, funnel_lc, funnel_r, funnel_rc;
    unsigned int byte_perm, byte_perm_swap, vabsdiffu4, vabsdiffu2, vsadu4, vsadu2, vadd4, vsub4;
    unsigned int vmaxu4, vminu2;
    int hadd, rhadd;
};

__global__ void packed(Packed* out) {
    out->usad = __usad(3u, 10u, 100u);                           // 7 + 100
    out->hadd = __hadd(-7, 2);                                   // -5 / 2 rounded down: -3
    out->rhadd = __rhadd(-7, 2);                                 // rounded up: -2
    out->uhadd = __uhadd(0xFFFFFFFFu, 0xFFFFFFFFu);              // no overflow: 0xFFFFFFFF
    out->urhadd = __urhadd(4u, 7u);                              // 5.5 up: 6
    out->funnel_l = __funnelshift_l(0x89ABCDEFu, 0x01234567u, 8);    // 0x23456789
    out->funnel_l_wrap = __funnelshift_l(0x89ABCDEFu, 0x01234567u, 40);  // 40 & 31 = 8
    out->funnel_lc = __funnelshift_lc(0x89ABCDEFu, 0x01234567u, 40);     // clamped: lo
    out->funnel_r = __funnelshift_r(0x89ABCDEFu, 0x01234567u, 8);        // 0x6789ABCD
    out->funnel_rc = __funnelshift_rc(0x89ABCDEFu, 0x01234567u, 33);     // clamped: hi
    out->byte_perm = __byte_perm(0x33221100u, 0x77665544u, 0x7531u);     // bytes 1, 3, 5, 7
    out->byte_perm_swap = __byte_perm(0x44332211u, 0, 0x0123u);          // byte order reversed
    out->vabsdiffu4 = __vabsdiffu4(0x10FF0305u, 0x20000503u);            // 10 FF 02 02
    out->vabsdiffu2 = __vabsdiffu2(0x0001FFFFu, 0x00030000u);            // 0002 FFFF
    out->vsadu4 = __vsadu4(0x10FF0305u, 0x20000503u);                    // 16 + 255 + 2 + 2
    out->vsadu2 = __vsadu2(0x0001FFFFu, 0x00030000u);                    // 2 + 65535
    out->vadd4 = __vadd4(0x01FF7F80u, 0x01018080u);                      // 02 00 FF 00: wraps
    out->vsub4 = __vsub4(0x00050000u, 0x01030001u);                      // FF 02 00 FF
    out->vmaxu4 = __vmaxu4(0x01FF0080u, 0x02000100u);                    // 02 FF 01 80
    out->vminu2 = __vminu2(0x8000FFFFu, 0x7FFF0001u);                    // 7FFF 0001
}

// The directed roundings: down, up and toward zero, on inputs whose exact results no float holds.
struct Directed {
    float add_down, add_up, add_toward_zero, sub_down, mul_down, mul_up, div_down, div_up;
    float sqrt_down, sqrt_up, rcp_down, rcp_up, overflow_toward_zero, overflow_up;
    float narrow_down, narrow_up, int_down, int_up, exact_up;
    double dadd_up, ddiv_down, ddiv_up;
};

__global__ void directed(const float* in, Directed* out) {
    float one = in[4], tiny = in[5], third = in[6], big = in[7];
    out->add_down = __fadd_rd(one, tiny);
    out->add_up = __fadd_ru(one, tiny);
    out->add_toward_zero = __fadd_rz(-one, -tiny);
    out->sub_down = __fsub_rd(-one, tiny);
    out->mul_down = __fmul_rd(third, third);
    out->mul_up = __fmul_ru(third, third);
    out->div_down = __fdiv_rd(one, 3.0f);
    out->div_up = __fdiv_ru(one, 3.0f);
    out->sqrt_down = __fsqrt_rd(2.0f * one);
    out->sqrt_up = __fsqrt_ru(2.0f * one);
    out->rcp_down = __frcp_rd(3.0f * one);
    out->rcp_up = __frcp_ru(3.0f * one);
    out->overflow_toward_zero = __fadd_rz(big, big);
    out->overflow_up = __fadd_ru(big, big);
    out->narrow_down = __double2float_rd(0.1);
    out->narrow_up = __double2float_ru(0.1);
    out->int_down = __int2float_rd(16777217);  // 2^24 + 1: between two floats
    out->int_up = __int2float_ru(16777217);
    out->exact_up = __fadd_ru(one, one);       // exact: no step
    out->dadd_up = __dadd_ru(1.0, 1e-300);
    out->ddiv_down = __ddiv_rd(1.0, 3.0);
    out->ddiv_up = __ddiv_ru(1.0, 3.0);
}

static bool close(float actual, float expected) {
    return std::fabs(actual - expected) <= 1e-5f + 1e-5f * std::fabs(expected);
}

int main() {
    const float h_in[8] = {3.0f, 0.25f, 2.718281828f, 16.0f, 1.0f, 1e-10f, 1.0f / 3.0f, 3e38f};
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
    EXPECT(bits.dp2a_lo == 160022u && bits.dp2a_hi == 240727u && bits.dp4a == 284u,
           "__dp2a_lo %u __dp2a_hi %u __dp4a %u", bits.dp2a_lo, bits.dp2a_hi, bits.dp4a);
    EXPECT(bits.dp2a_lo_signed == 8 && bits.dp2a_hi_signed == -59 && bits.dp4a_signed == 59,
           "signed __dp2a_lo %d __dp2a_hi %d __dp4a %d", bits.dp2a_lo_signed, bits.dp2a_hi_signed,
           bits.dp4a_signed);
    EXPECT(bits.dp2a_hi_vector == 240727u && bits.dp4a_vector == 284u &&
               bits.dp2a_lo_signed_vector == 8,
           "vector __dp2a_hi %u __dp4a %u __dp2a_lo %d", bits.dp2a_hi_vector, bits.dp4a_vector,
           bits.dp2a_lo_signed_vector);

    Packed* d_packed;
    CHECK(cudaMalloc(&d_packed, sizeof(Packed)));
    packed<<<1, 1>>>(d_packed);
    CHECK(cudaGetLastError());
    Packed p;
    CHECK(cudaMemcpy(&p, d_packed, sizeof p, cudaMemcpyDeviceToHost));
    EXPECT(p.usad == 107u && p.hadd == -3 && p.rhadd == -2 && p.uhadd == 0xFFFFFFFFu && p.urhadd == 6u,
           "__usad %u __hadd %d __rhadd %d __uhadd %#x __urhadd %u", p.usad, p.hadd, p.rhadd, p.uhadd,
           p.urhadd);
    EXPECT(p.funnel_l == 0x23456789u && p.funnel_l_wrap == 0x23456789u && p.funnel_lc == 0x89ABCDEFu &&
               p.funnel_r == 0x6789ABCDu && p.funnel_rc == 0x01234567u,
           "__funnelshift_l %#x (by 40: %#x) _lc %#x _r %#x _rc %#x", p.funnel_l, p.funnel_l_wrap,
           p.funnel_lc, p.funnel_r, p.funnel_rc);
    EXPECT(p.byte_perm == 0x77553311u && p.byte_perm_swap == 0x11223344u, "__byte_perm %#x, %#x",
           p.byte_perm, p.byte_perm_swap);
    EXPECT(p.vabsdiffu4 == 0x10FF0202u && p.vabsdiffu2 == 0x0002FFFFu && p.vsadu4 == 275u &&
               p.vsadu2 == 65537u,
           "__vabsdiffu4 %#x __vabsdiffu2 %#x __vsadu4 %u __vsadu2 %u", p.vabsdiffu4, p.vabsdiffu2,
           p.vsadu4, p.vsadu2);
    EXPECT(p.vadd4 == 0x0200FF00u && p.vsub4 == 0xFF0200FFu && p.vmaxu4 == 0x02FF0180u &&
               p.vminu2 == 0x7FFF0001u,
           "__vadd4 %#x __vsub4 %#x __vmaxu4 %#x __vminu2 %#x", p.vadd4, p.vsub4, p.vmaxu4, p.vminu2);
    CHECK(cudaFree(d_packed));

    Directed* d_directed;
    CHECK(cudaMalloc(&d_directed, sizeof(Directed)));
    directed<<<1, 1>>>(d_in, d_directed);
    CHECK(cudaGetLastError());
    Directed r;
    CHECK(cudaMemcpy(&r, d_directed, sizeof r, cudaMemcpyDeviceToHost));
    const float above_one = std::nextafter(1.0f, 2.0f), below_minus_one = std::nextafter(-1.0f, -2.0f);
    EXPECT(r.add_down == 1.0f && r.add_up == above_one, "__fadd_rd %a __fadd_ru %a", r.add_down, r.add_up);
    EXPECT(r.add_toward_zero == -1.0f && r.sub_down == below_minus_one, "__fadd_rz %a __fsub_rd %a",
           r.add_toward_zero, r.sub_down);
    // rd and ru bracket the exact value (here computed in double, exactly) and are neighbours.
    const double third = (double)(1.0f / 3.0f);
    EXPECT(r.mul_down < third * third && third * third < r.mul_up &&
               std::nextafter(r.mul_down, 1.0f) == r.mul_up,
           "__fmul_rd %a __fmul_ru %a", r.mul_down, r.mul_up);
    EXPECT(r.div_down < 1.0 / 3.0 && 1.0 / 3.0 < r.div_up && std::nextafter(r.div_down, 1.0f) == r.div_up,
           "__fdiv_rd %a __fdiv_ru %a", r.div_down, r.div_up);
    EXPECT(r.rcp_down == r.div_down && r.rcp_up == r.div_up, "__frcp_rd %a __frcp_ru %a", r.rcp_down,
           r.rcp_up);
    EXPECT((double)r.sqrt_down * r.sqrt_down < 2.0 && 2.0 < (double)r.sqrt_up * r.sqrt_up &&
               std::nextafter(r.sqrt_down, 2.0f) == r.sqrt_up,
           "__fsqrt_rd %a __fsqrt_ru %a", r.sqrt_down, r.sqrt_up);
    EXPECT(r.overflow_toward_zero == FLT_MAX && std::isinf(r.overflow_up), "__fadd_rz(big, big) %a "
           "__fadd_ru(big, big) %a", r.overflow_toward_zero, r.overflow_up);
    EXPECT(r.narrow_down < 0.1 && 0.1 < r.narrow_up && std::nextafter(r.narrow_down, 1.0f) == r.narrow_up,
           "__double2float_rd(0.1) %a __double2float_ru(0.1) %a", r.narrow_down, r.narrow_up);
    EXPECT(r.int_down == 16777216.0f && r.int_up == 16777218.0f, "__int2float_rd %a __int2float_ru %a",
           r.int_down, r.int_up);
    EXPECT(r.exact_up == 2.0f, "__fadd_ru(1, 1) %a", r.exact_up);
    EXPECT(r.dadd_up == std::nextafter(1.0, 2.0) && r.ddiv_down < r.ddiv_up &&
               std::nextafter(r.ddiv_down, 1.0) == r.ddiv_up,
           "__dadd_ru %a __ddiv_rd %a __ddiv_ru %a", r.dadd_up, r.ddiv_down, r.ddiv_up);
    CHECK(cudaFree(d_directed));
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    return pass(test_name);
}
