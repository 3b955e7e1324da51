// cuda_bf16.h - bfloat16 (__nv_bfloat16, __nv_bfloat162) for the CPU emulator (common/emu/).
//
// A bfloat16 is the top half of a float: 1 sign bit, the same 8 exponent bits, 7 mantissa bits.
// It has a float's range with far fewer digits (about 3 decimal digits), which is why training
// neural networks likes it: no overflow where half would, and half the bytes of a float. Each
// operation converts to float, computes and rounds back to the nearest bfloat16 (ties to even):
// float holds more than twice bfloat16's digits, so one addition, subtraction, multiplication or
// division gives the GPU's result. What is here: conversions, arithmetic, comparisons and the
// paired __nv_bfloat162 versions, with the names cuda_fp16.h gives half's (__hadd, __hmul2, ...);
// not the math functions (hsin, hexp, ...).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "cuda_runtime.h"

#define __CUDA_BF16_H__  // the toolkit's include guard: its own copy is never read

namespace cuda_emu {
inline unsigned short float_to_bfloat16_bits(float value) {
    uint32_t x;
    std::memcpy(&x, &value, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((x >> 16) | 0x40u);  // NaN stays NaN
    x += 0x7fffu + ((x >> 16) & 1u);  // to nearest, ties to even; a carry may reach infinity: right
    return (unsigned short)(x >> 16);
}
inline float bfloat16_bits_to_float(unsigned short bits) {
    uint32_t x = (uint32_t)bits << 16;
    float value;
    std::memcpy(&value, &x, 4);
    return value;
}
}  // namespace cuda_emu

// Converts to and from float implicitly, as CUDA's does, so bfloat16 values mix with float code.
struct __nv_bfloat16 {
    unsigned short __x;
    __nv_bfloat16() = default;
    __nv_bfloat16(float value) : __x(cuda_emu::float_to_bfloat16_bits(value)) {}
    __nv_bfloat16(double value) : __nv_bfloat16((float)value) {}
    __nv_bfloat16(int value) : __nv_bfloat16((float)value) {}
    operator float() const { return cuda_emu::bfloat16_bits_to_float(__x); }
    __nv_bfloat16& operator+=(__nv_bfloat16 other) { return *this = __nv_bfloat16((float)*this + (float)other); }
    __nv_bfloat16& operator-=(__nv_bfloat16 other) { return *this = __nv_bfloat16((float)*this - (float)other); }
    __nv_bfloat16& operator*=(__nv_bfloat16 other) { return *this = __nv_bfloat16((float)*this * (float)other); }
    __nv_bfloat16& operator/=(__nv_bfloat16 other) { return *this = __nv_bfloat16((float)*this / (float)other); }
};
struct alignas(4) __nv_bfloat162 {
    __nv_bfloat16 x, y;
    __nv_bfloat162() = default;
    __nv_bfloat162(__nv_bfloat16 low, __nv_bfloat16 high) : x(low), y(high) {}
};
typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;

inline __nv_bfloat16 __float2bfloat16(float a) { return __nv_bfloat16(a); }
inline __nv_bfloat16 __float2bfloat16_rn(float a) { return __nv_bfloat16(a); }
inline __nv_bfloat16 __double2bfloat16(double a) { return __nv_bfloat16((float)a); }
inline float __bfloat162float(__nv_bfloat16 a) { return (float)a; }
inline __nv_bfloat16 __int2bfloat16_rn(int a) { return __nv_bfloat16((float)a); }
inline int __bfloat162int_rn(__nv_bfloat16 a) { return (int)nearbyintf((float)a); }
inline int __bfloat162int_rz(__nv_bfloat16 a) { return (int)(float)a; }
inline unsigned short __bfloat16_as_ushort(__nv_bfloat16 a) { return a.__x; }
inline __nv_bfloat16 __ushort_as_bfloat16(unsigned short bits) {
    __nv_bfloat16 b;
    b.__x = bits;
    return b;
}

inline __nv_bfloat16 __hadd(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat16((float)a + (float)b); }
inline __nv_bfloat16 __hsub(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat16((float)a - (float)b); }
inline __nv_bfloat16 __hmul(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat16((float)a * (float)b); }
inline __nv_bfloat16 __hdiv(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat16((float)a / (float)b); }
inline __nv_bfloat16 __hfma(__nv_bfloat16 a, __nv_bfloat16 b, __nv_bfloat16 c) {
    return __nv_bfloat16(fmaf((float)a, (float)b, (float)c));
}
inline __nv_bfloat16 __hneg(__nv_bfloat16 a) { return __ushort_as_bfloat16((unsigned short)(a.__x ^ 0x8000u)); }
inline __nv_bfloat16 __habs(__nv_bfloat16 a) { return __ushort_as_bfloat16((unsigned short)(a.__x & 0x7fffu)); }
inline __nv_bfloat16 __hmax(__nv_bfloat16 a, __nv_bfloat16 b) { return (float)a < (float)b ? b : a; }
inline __nv_bfloat16 __hmin(__nv_bfloat16 a, __nv_bfloat16 b) { return (float)b < (float)a ? b : a; }
inline bool __heq(__nv_bfloat16 a, __nv_bfloat16 b) { return (float)a == (float)b; }
inline bool __hne(__nv_bfloat16 a, __nv_bfloat16 b) { return (float)a != (float)b; }
inline bool __hlt(__nv_bfloat16 a, __nv_bfloat16 b) { return (float)a < (float)b; }
inline bool __hle(__nv_bfloat16 a, __nv_bfloat16 b) { return (float)a <= (float)b; }
inline bool __hgt(__nv_bfloat16 a, __nv_bfloat16 b) { return (float)a > (float)b; }
inline bool __hge(__nv_bfloat16 a, __nv_bfloat16 b) { return (float)a >= (float)b; }
inline bool __hisnan(__nv_bfloat16 a) { return std::isnan((float)a); }
inline int __hisinf(__nv_bfloat16 a) { return std::isinf((float)a) ? ((float)a < 0 ? -1 : 1) : 0; }

inline __nv_bfloat162 __halves2bfloat162(__nv_bfloat16 low, __nv_bfloat16 high) { return __nv_bfloat162{low, high}; }
inline __nv_bfloat162 __floats2bfloat162_rn(float low, float high) {
    return __nv_bfloat162{__nv_bfloat16(low), __nv_bfloat16(high)};
}
inline __nv_bfloat162 __float2bfloat162_rn(float a) { return __nv_bfloat162{__nv_bfloat16(a), __nv_bfloat16(a)}; }
inline __nv_bfloat162 __bfloat162bfloat162(__nv_bfloat16 a) { return __nv_bfloat162{a, a}; }
inline float2 __bfloat1622float2(__nv_bfloat162 a) { return make_float2((float)a.x, (float)a.y); }
inline __nv_bfloat162 __float22bfloat162_rn(float2 a) { return __floats2bfloat162_rn(a.x, a.y); }
inline __nv_bfloat16 __low2bfloat16(__nv_bfloat162 a) { return a.x; }
inline __nv_bfloat16 __high2bfloat16(__nv_bfloat162 a) { return a.y; }
inline float __low2float(__nv_bfloat162 a) { return (float)a.x; }
inline float __high2float(__nv_bfloat162 a) { return (float)a.y; }
inline __nv_bfloat162 __lowhigh2highlow(__nv_bfloat162 a) { return __nv_bfloat162{a.y, a.x}; }
inline __nv_bfloat162 __hadd2(__nv_bfloat162 a, __nv_bfloat162 b) { return {__hadd(a.x, b.x), __hadd(a.y, b.y)}; }
inline __nv_bfloat162 __hsub2(__nv_bfloat162 a, __nv_bfloat162 b) { return {__hsub(a.x, b.x), __hsub(a.y, b.y)}; }
inline __nv_bfloat162 __hmul2(__nv_bfloat162 a, __nv_bfloat162 b) { return {__hmul(a.x, b.x), __hmul(a.y, b.y)}; }
inline __nv_bfloat162 __h2div(__nv_bfloat162 a, __nv_bfloat162 b) { return {__hdiv(a.x, b.x), __hdiv(a.y, b.y)}; }
inline __nv_bfloat162 __hfma2(__nv_bfloat162 a, __nv_bfloat162 b, __nv_bfloat162 c) {
    return {__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)};
}
inline __nv_bfloat162 __hneg2(__nv_bfloat162 a) { return {__hneg(a.x), __hneg(a.y)}; }
inline __nv_bfloat162 operator+(__nv_bfloat162 a, __nv_bfloat162 b) { return __hadd2(a, b); }
inline __nv_bfloat162 operator-(__nv_bfloat162 a, __nv_bfloat162 b) { return __hsub2(a, b); }
inline __nv_bfloat162 operator*(__nv_bfloat162 a, __nv_bfloat162 b) { return __hmul2(a, b); }
inline __nv_bfloat162 operator/(__nv_bfloat162 a, __nv_bfloat162 b) { return __h2div(a, b); }
