// cuda_fp16.h - half precision (__half, __half2) for the CPU emulator (common/emu/).
//
// A __half is 16 bits in IEEE 754 binary16: 1 sign bit, 5 exponent bits, 10 mantissa bits. The
// CPU has no half arithmetic, so each operation converts to float, computes, and rounds back to
// the nearest half (ties to even), which gives a GPU's result for one addition, multiplication or
// fused multiply-add. What is here: conversions, arithmetic, comparisons, and the paired __half2
// versions; not the half math functions (hsin, hexp, ...).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "cuda_runtime.h"

#define __CUDA_FP16_H__  // the toolkit's include guard: its own copy is never read

namespace cuda_emu {
inline unsigned short float_to_half_bits(float value) {
    uint32_t x;
    std::memcpy(&x, &value, 4);
    uint32_t sign = (x >> 16) & 0x8000u, mantissa = x & 0x7fffffu;
    int exponent = (int)((x >> 23) & 0xff);
    if (exponent == 255) return (unsigned short)(sign | 0x7c00u | (mantissa ? 0x200u : 0));  // inf, NaN
    int half_exponent = exponent - 127 + 15;
    if (half_exponent >= 31) return (unsigned short)(sign | 0x7c00u);  // too large: infinity
    if (half_exponent <= 0) {                                           // a subnormal half, or 0
        if (half_exponent < -10) return (unsigned short)sign;
        mantissa |= 0x800000u;
        int shift = 14 - half_exponent;
        uint32_t bits = mantissa >> shift, rest = mantissa & ((1u << shift) - 1), half_way = 1u << (shift - 1);
        if (rest > half_way || (rest == half_way && (bits & 1))) bits++;
        return (unsigned short)(sign | bits);
    }
    uint32_t bits = sign | ((uint32_t)half_exponent << 10) | (mantissa >> 13), rest = mantissa & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (bits & 1))) bits++;  // a carry may reach infinity: right
    return (unsigned short)bits;
}
inline float half_bits_to_float(unsigned short h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
    if (exponent == 0) {
        float magnitude = std::ldexp((float)mantissa, -24);
        return sign ? -magnitude : magnitude;
    }
    uint32_t bits = exponent == 31 ? sign | 0x7f800000u | (mantissa << 13)
                                   : sign | ((exponent - 15 + 127) << 23) | (mantissa << 13);
    float value;
    std::memcpy(&value, &bits, 4);
    return value;
}
}  // namespace cuda_emu

// Converts to and from float implicitly, as CUDA's does, so half values mix with float code.
struct __half {
    unsigned short __x;
    __half() = default;
    __half(float value) : __x(cuda_emu::float_to_half_bits(value)) {}
    __half(double value) : __half((float)value) {}
    __half(int value) : __half((float)value) {}
    operator float() const { return cuda_emu::half_bits_to_float(__x); }
    __half& operator+=(__half other) { return *this = __half((float)*this + (float)other); }
    __half& operator-=(__half other) { return *this = __half((float)*this - (float)other); }
    __half& operator*=(__half other) { return *this = __half((float)*this * (float)other); }
    __half& operator/=(__half other) { return *this = __half((float)*this / (float)other); }
};
struct alignas(4) __half2 {
    __half x, y;
    __half2() = default;
    // as CUDA's: half2 value(0.f, 0.f) makes each float a __half
    __half2(__half low, __half high) : x(low), y(high) {}
};
typedef __half half;
typedef __half2 half2;

inline __half __float2half(float a) { return __half(a); }
inline __half __float2half_rn(float a) { return __half(a); }
inline float __half2float(__half a) { return (float)a; }
inline __half __int2half_rn(int a) { return __half((float)a); }
inline int __half2int_rn(__half a) { return (int)nearbyintf((float)a); }
inline int __half2int_rz(__half a) { return (int)(float)a; }
inline unsigned short __half_as_ushort(__half a) { return a.__x; }
inline __half __ushort_as_half(unsigned short bits) { __half h; h.__x = bits; return h; }

inline __half __hadd(__half a, __half b) { return __half((float)a + (float)b); }
inline __half __hsub(__half a, __half b) { return __half((float)a - (float)b); }
inline __half __hmul(__half a, __half b) { return __half((float)a * (float)b); }
inline __half __hdiv(__half a, __half b) { return __half((float)a / (float)b); }
inline __half __hfma(__half a, __half b, __half c) { return __half(fmaf((float)a, (float)b, (float)c)); }
inline __half __hneg(__half a) { return __ushort_as_half((unsigned short)(a.__x ^ 0x8000u)); }
inline __half __habs(__half a) { return __ushort_as_half((unsigned short)(a.__x & 0x7fffu)); }
inline __half __hmax(__half a, __half b) { return (float)a < (float)b ? b : a; }
inline __half __hmin(__half a, __half b) { return (float)b < (float)a ? b : a; }
inline bool __heq(__half a, __half b) { return (float)a == (float)b; }
inline bool __hne(__half a, __half b) { return (float)a != (float)b; }
inline bool __hlt(__half a, __half b) { return (float)a < (float)b; }
inline bool __hle(__half a, __half b) { return (float)a <= (float)b; }
inline bool __hgt(__half a, __half b) { return (float)a > (float)b; }
inline bool __hge(__half a, __half b) { return (float)a >= (float)b; }
inline bool __hisnan(__half a) { return std::isnan((float)a); }
inline int __hisinf(__half a) { return std::isinf((float)a) ? ((float)a < 0 ? -1 : 1) : 0; }  // -1: -inf

inline __half2 __halves2half2(__half low, __half high) { return __half2{low, high}; }
inline __half2 __floats2half2_rn(float low, float high) { return __half2{__half(low), __half(high)}; }
inline __half2 __float2half2_rn(float a) { return __half2{__half(a), __half(a)}; }
inline __half2 __half2half2(__half a) { return __half2{a, a}; }
inline float2 __half22float2(__half2 a) { return make_float2((float)a.x, (float)a.y); }
inline __half2 __float22half2_rn(float2 a) { return __floats2half2_rn(a.x, a.y); }
inline __half __low2half(__half2 a) { return a.x; }
inline __half __high2half(__half2 a) { return a.y; }
inline float __low2float(__half2 a) { return (float)a.x; }
inline float __high2float(__half2 a) { return (float)a.y; }
inline __half2 __lowhigh2highlow(__half2 a) { return __half2{a.y, a.x}; }
inline __half2 __hadd2(__half2 a, __half2 b) { return __half2{__hadd(a.x, b.x), __hadd(a.y, b.y)}; }
inline __half2 __hsub2(__half2 a, __half2 b) { return __half2{__hsub(a.x, b.x), __hsub(a.y, b.y)}; }
inline __half2 __hmul2(__half2 a, __half2 b) { return __half2{__hmul(a.x, b.x), __hmul(a.y, b.y)}; }
inline __half2 __h2div(__half2 a, __half2 b) { return __half2{__hdiv(a.x, b.x), __hdiv(a.y, b.y)}; }
inline __half2 __hfma2(__half2 a, __half2 b, __half2 c) {
    return __half2{__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)};
}
inline __half2 __hneg2(__half2 a) { return __half2{__hneg(a.x), __hneg(a.y)}; }
inline __half2 operator+(__half2 a, __half2 b) { return __hadd2(a, b); }
inline __half2 operator-(__half2 a, __half2 b) { return __hsub2(a, b); }
inline __half2 operator*(__half2 a, __half2 b) { return __hmul2(a, b); }
inline __half2 operator/(__half2 a, __half2 b) { return __h2div(a, b); }
