// mma.h - warp matrix multiply-accumulate (nvcuda::wmma, the tensor cores) for the CPU emulator
// (common/emu/).
//
// On a GPU a fragment is spread over the 32 lanes of a warp, each holding num_elements of the
// tile in an order CUDA leaves unspecified, and the tensor cores multiply whole tiles at once.
// Here every lane keeps its own copy of the whole A and B tiles it loads (so num_elements of a
// matrix_a or matrix_b fragment is the tile's size, and element-wise changes such as
// __float_to_tf32 reach every element), and its share of the accumulator: element t of lane l is
// element t * 32 + l of the tile, in row-major order. mma_sync computes each lane's share from
// its copies of A and B, so the lanes need not wait for each other, and a warp computes each
// product once. As on a GPU, all 32 lanes of the warp must take part in every call.
//
// Shapes and types, as CUDA has them: half, bfloat16 or 8-bit integer inputs in 16x16x16, 32x8x16
// and 8x32x16; precision::tf32 in 16x16x8; double in 8x8x4; accumulators of float or half, int,
// or double. Products of half, bfloat16 or tf32 inputs are exact in float and add up in float, in
// order of k; a GPU adds them in another order, so its last bits may differ. Not here: the 4-bit
// and 1-bit experimental types.
#pragma once

#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cooperative_groups.h"
#include "cuda_bf16.h"
#include "cuda_fp16.h"
#include "cuda_runtime.h"

#define __CUDA_MMA_H__  // the toolkit's include guard: its own copy is never read

namespace nvcuda {
namespace wmma {

struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
struct col_major {};
enum layout_t { mem_row_major, mem_col_major };
namespace precision {
struct tf32 {};
}  // namespace precision

namespace detail {
// What a fragment of Use in an m x n x k product holds: its rows and columns.
template <class Use, int m, int n, int k> struct tile_shape;
template <int m, int n, int k> struct tile_shape<matrix_a, m, n, k> { static constexpr int rows = m, cols = k; };
template <int m, int n, int k> struct tile_shape<matrix_b, m, n, k> { static constexpr int rows = k, cols = n; };
template <int m, int n, int k> struct tile_shape<accumulator, m, n, k> { static constexpr int rows = m, cols = n; };

// The type a fragment's elements have: tf32 values are floats with 10 mantissa bits.
template <class T> struct storage { using type = T; };
template <> struct storage<precision::tf32> { using type = float; };

// The shapes CUDA allows for each input type; a fragment of another is a compile error, as there.
template <class T, int m, int n, int k> struct supported : std::false_type {};
template <> struct supported<__half, 16, 16, 16> : std::true_type {};
template <> struct supported<__half, 32, 8, 16> : std::true_type {};
template <> struct supported<__half, 8, 32, 16> : std::true_type {};
template <> struct supported<__nv_bfloat16, 16, 16, 16> : std::true_type {};
template <> struct supported<__nv_bfloat16, 32, 8, 16> : std::true_type {};
template <> struct supported<__nv_bfloat16, 8, 32, 16> : std::true_type {};
template <> struct supported<signed char, 16, 16, 16> : std::true_type {};
template <> struct supported<signed char, 32, 8, 16> : std::true_type {};
template <> struct supported<signed char, 8, 32, 16> : std::true_type {};
template <> struct supported<unsigned char, 16, 16, 16> : std::true_type {};
template <> struct supported<unsigned char, 32, 8, 16> : std::true_type {};
template <> struct supported<unsigned char, 8, 32, 16> : std::true_type {};
template <> struct supported<precision::tf32, 16, 16, 8> : std::true_type {};
template <> struct supported<double, 8, 8, 4> : std::true_type {};
template <class T> struct accumulates : std::false_type {};
template <> struct accumulates<float> : std::true_type {};
template <> struct accumulates<__half> : std::true_type {};
template <> struct accumulates<int> : std::true_type {};
template <> struct accumulates<double> : std::true_type {};

using ::cooperative_groups::details::lane;  // the calling thread's lane in its warp
}  // namespace detail

template <class Use, int m, int n, int k, class T, class Layout = void>
class fragment {
    using shape = detail::tile_shape<Use, m, n, k>;
    static constexpr bool is_accumulator = std::is_same<Use, accumulator>::value;
    static_assert(is_accumulator ? detail::accumulates<T>::value : detail::supported<T, m, n, k>::value,
                  "wmma: no tensor core instruction has this shape and type");
    static_assert(is_accumulator || !std::is_void<Layout>::value,
                  "wmma: a matrix_a or matrix_b fragment needs row_major or col_major");

public:
    using element_type = typename detail::storage<T>::type;
    static constexpr int rows = shape::rows, cols = shape::cols;
    static constexpr int num_elements = is_accumulator ? rows * cols / 32 : rows * cols;
    static constexpr int num_storage_elements = num_elements;
    element_type x[num_elements];
};

// Rounds a float to tf32, to nearest with ties away from zero, as cvt.rna.tf32.f32 does.
inline float __float_to_tf32(float value) {
    uint32_t bits;
    std::memcpy(&bits, &value, 4);
    if (((bits >> 23) & 0xff) != 0xff) bits = (bits + 0x1000u) & ~0x1fffu;  // not inf or NaN
    std::memcpy(&value, &bits, 4);
    return value;
}

template <class Use, int m, int n, int k, class T, class Layout, class Value>
inline void fill_fragment(fragment<Use, m, n, k, T, Layout>& f, const Value& value) {
    for (int t = 0; t < f.num_elements; t++) f.x[t] = (typename fragment<Use, m, n, k, T, Layout>::element_type)value;
}

// A or B: the whole tile, into each lane's copy. ldm counts elements, between rows (row_major) or
// columns (col_major).
template <class Use, int m, int n, int k, class T, class Layout, class Pointee>
inline void load_matrix_sync(fragment<Use, m, n, k, T, Layout>& f, const Pointee* p, unsigned ldm) {
    static_assert(!std::is_same<Use, accumulator>::value,
                  "wmma: an accumulator's load_matrix_sync takes a layout (mem_row_major or mem_col_major)");
    constexpr bool by_rows = std::is_same<Layout, row_major>::value;
    using fragment_type = fragment<Use, m, n, k, T, Layout>;
    for (int r = 0; r < fragment_type::rows; r++)
        for (int c = 0; c < fragment_type::cols; c++)
            f.x[r * fragment_type::cols + c] = p[by_rows ? (size_t)r * ldm + c : (size_t)c * ldm + r];
}

// An accumulator: the lane's share.
template <int m, int n, int k, class T, class Pointee>
inline void load_matrix_sync(fragment<accumulator, m, n, k, T>& f, const Pointee* p, unsigned ldm,
                             layout_t layout) {
    for (int t = 0; t < f.num_elements; t++) {
        int element = t * 32 + (int)detail::lane(), r = element / n, c = element % n;
        f.x[t] = p[layout == mem_row_major ? (size_t)r * ldm + c : (size_t)c * ldm + r];
    }
}

template <int m, int n, int k, class T, class Pointee>
inline void store_matrix_sync(Pointee* p, const fragment<accumulator, m, n, k, T>& f, unsigned ldm,
                              layout_t layout) {
    for (int t = 0; t < f.num_elements; t++) {
        int element = t * 32 + (int)detail::lane(), r = element / n, c = element % n;
        p[layout == mem_row_major ? (size_t)r * ldm + c : (size_t)c * ldm + r] = f.x[t];
    }
}

namespace detail {
// The type a product of two inputs of type T is summed in.
template <class T> struct sum_type { using type = float; };
template <> struct sum_type<signed char> { using type = long long; };
template <> struct sum_type<unsigned char> { using type = long long; };
template <> struct sum_type<double> { using type = double; };
inline float product_input(__half value) { return (float)value; }
inline float product_input(__nv_bfloat16 value) { return (float)value; }
inline float product_input(float value) { return __float_to_tf32(value); }  // a tf32 input
inline long long product_input(signed char value) { return value; }
inline long long product_input(unsigned char value) { return value; }
inline double product_input(double value) { return value; }
}  // namespace detail

// D = A B + C, each lane its share of D. satf saturates an integer sum to int's range; for
// floating-point sums it is ignored here.
template <int m, int n, int k, class Td, class Ta, class La, class Tb, class Lb, class Tc>
inline void mma_sync(fragment<accumulator, m, n, k, Td>& d, const fragment<matrix_a, m, n, k, Ta, La>& a,
                     const fragment<matrix_b, m, n, k, Tb, Lb>& b,
                     const fragment<accumulator, m, n, k, Tc>& c, bool satf = false) {
    using sum_t = typename detail::sum_type<Ta>::type;
    using result_t = typename fragment<accumulator, m, n, k, Td>::element_type;
    result_t result[fragment<accumulator, m, n, k, Td>::num_elements];
    for (int t = 0; t < d.num_elements; t++) {
        int element = t * 32 + (int)detail::lane(), r = element / n, col = element % n;
        sum_t sum = 0;
        for (int kk = 0; kk < k; kk++)
            sum += detail::product_input(a.x[r * k + kk]) * detail::product_input(b.x[kk * n + col]);
        sum += (sum_t)c.x[t];
        if (std::is_same<sum_t, long long>::value && satf)
            sum = sum > INT_MAX ? INT_MAX : sum < INT_MIN ? INT_MIN : sum;
        result[t] = (result_t)sum;
    }
    for (int t = 0; t < d.num_elements; t++) d.x[t] = result[t];  // d may be c
}

}  // namespace wmma
}  // namespace nvcuda
