// wmma.cu - warp matrix multiply-accumulate (<mma.h>) gives the product a CPU computes, for every
// input type and shape the tensor cores have: one warp per output tile, tiles over k accumulated,
// A and B in both layouts, accumulators loaded and stored in both, scaled element by element.
#include <mma.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "check.h"

using namespace nvcuda;

static const char* test_name = "wmma";

// D (rows x cols, row-major) = alpha A B + C, one warp per m x n tile of D, blocks of 2 warps.
// A is rows x depth, row-major or (a_by_columns) column-major; B is depth x cols, column-major or
// (b_by_rows) row-major. C is read column-major when c_by_columns.
template <int m, int n, int k, class In, class Acc, class LayoutA, class LayoutB, class Element>
__global__ void tiled_product(const Element* a, const Element* b, const Acc* c, Acc* d, int rows,
                              int cols, int depth, float alpha, bool c_by_columns, bool to_tf32) {
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int tile_row = warp / (cols / n), tile_col = warp % (cols / n);
    if (tile_row >= rows / m) return;  // the whole warp leaves together
    constexpr bool a_by_rows = std::is_same<LayoutA, wmma::row_major>::value;
    constexpr bool b_by_rows = std::is_same<LayoutB, wmma::row_major>::value;
    wmma::fragment<wmma::matrix_a, m, n, k, In, LayoutA> a_tile;
    wmma::fragment<wmma::matrix_b, m, n, k, In, LayoutB> b_tile;
    wmma::fragment<wmma::accumulator, m, n, k, Acc> sum, c_tile;
    wmma::fill_fragment(sum, 0.0f);
    for (int step = 0; step < depth; step += k) {
        int a_row = tile_row * m, b_col = tile_col * n;
        const Element* a_at = a_by_rows ? a + (size_t)a_row * depth + step : a + (size_t)step * rows + a_row;
        const Element* b_at = b_by_rows ? b + (size_t)step * cols + b_col : b + (size_t)b_col * depth + step;
        wmma::load_matrix_sync(a_tile, a_at, a_by_rows ? depth : rows);
        wmma::load_matrix_sync(b_tile, b_at, b_by_rows ? cols : depth);
#ifdef CUDA_EMULATION  // tf32: see below
        if (to_tf32) {
            for (int t = 0; t < a_tile.num_elements; t++) a_tile.x[t] = wmma::__float_to_tf32(a_tile.x[t]);
            for (int t = 0; t < b_tile.num_elements; t++) b_tile.x[t] = wmma::__float_to_tf32(b_tile.x[t]);
        }
#endif
        wmma::mma_sync(sum, a_tile, b_tile, sum);
    }
    size_t c_at = c_by_columns ? (size_t)tile_col * n * rows + tile_row * m : (size_t)tile_row * m * cols + tile_col * n;
    wmma::load_matrix_sync(c_tile, c + c_at, c_by_columns ? rows : cols,
                           c_by_columns ? wmma::mem_col_major : wmma::mem_row_major);
    for (int t = 0; t < sum.num_elements; t++) sum.x[t] = (Acc)(alpha * (double)sum.x[t] + (double)c_tile.x[t]);
    wmma::store_matrix_sync(d + (size_t)tile_row * m * cols + tile_col * n, sum, cols, wmma::mem_row_major);
}

// tf32 on the CPU (the test's own): 10 mantissa bits, to nearest, ties away from zero.
static float tf32_on_cpu(float value) {
    if (!std::isfinite(value)) return value;
    uint32_t bits;
    std::memcpy(&bits, &value, 4);
    bits = (bits + 0x1000u) & ~0x1fffu;
    std::memcpy(&value, &bits, 4);
    return value;
}

// bfloat16, tf32 and double need compute capability 8.0, and make test has nvcc compile every .cu
// for its default architecture, 7.5: their cases are the emulator's alone.
#ifdef CUDA_EMULATION
__global__ void to_tf32(const float* in, float* out, int count) {
    int i = threadIdx.x;
    if (i < count) out[i] = wmma::__float_to_tf32(in[i]);
}
#endif

// The same on the CPU, in double, from the values the GPU multiplies.
template <class Element, class Acc>
std::vector<double> cpu_product(const std::vector<Element>& a, const std::vector<Element>& b,
                                const std::vector<Acc>& c, int rows, int cols, int depth, float alpha,
                                bool a_by_rows, bool b_by_rows, bool c_by_columns, bool to_tf32) {
    auto value = [&](Element e) { return to_tf32 ? (double)tf32_on_cpu((float)e) : (double)e; };
    std::vector<double> d((size_t)rows * cols);
    for (int r = 0; r < rows; r++)
        for (int col = 0; col < cols; col++) {
            double sum = 0;
            for (int i = 0; i < depth; i++)
                sum += value(a[a_by_rows ? (size_t)r * depth + i : (size_t)i * rows + r]) *
                       value(b[b_by_rows ? (size_t)i * cols + col : (size_t)col * depth + i]);
            double c_value = (double)c[c_by_columns ? (size_t)col * rows + r : (size_t)r * cols + col];
            d[(size_t)r * cols + col] = alpha * sum + c_value;
        }
    return d;
}

// Runs one case and compares every element of D, within tolerance relative to D's largest.
template <int m, int n, int k, class In, class Acc, class LayoutA, class LayoutB, class Element>
void check_case(const char* what, int tiles_down, int tiles_across, int k_steps, float alpha,
                bool c_by_columns, bool to_tf32, double tolerance) {
    const int rows = m * tiles_down, cols = n * tiles_across, depth = k * k_steps;
    std::vector<Element> a((size_t)rows * depth), b((size_t)depth * cols);
    std::vector<Acc> c((size_t)rows * cols), d((size_t)rows * cols);
    uint32_t state = 12345;
    auto next = [&]() { return (int)((state = state * 1664525u + 1013904223u) >> 24); };  // 0 to 255
    constexpr bool real = std::is_floating_point<Element>::value || std::is_same<Element, __half>::value ||
                          std::is_same<Element, __nv_bfloat16>::value;
    for (auto& e : a) e = real ? (Element)((next() - 128) / 64.0f + 1e-3f * (float)next()) : (Element)next();
    for (auto& e : b) e = real ? (Element)((next() - 128) / 32.0f) : (Element)(next() / 2);
    for (auto& e : c) e = (Acc)(next() - 128);
    Element *d_a, *d_b;
    Acc *d_c, *d_d;
    CHECK(cudaMalloc(&d_a, a.size() * sizeof(Element)));
    CHECK(cudaMalloc(&d_b, b.size() * sizeof(Element)));
    CHECK(cudaMalloc(&d_c, c.size() * sizeof(Acc)));
    CHECK(cudaMalloc(&d_d, d.size() * sizeof(Acc)));
    CHECK(cudaMemcpy(d_a, a.data(), a.size() * sizeof(Element), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_b, b.data(), b.size() * sizeof(Element), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_c, c.data(), c.size() * sizeof(Acc), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_d, 0xFF, d.size() * sizeof(Acc)));
    int warps = tiles_down * tiles_across;
    tiled_product<m, n, k, In, Acc, LayoutA, LayoutB><<<(warps + 1) / 2, 64>>>(
        d_a, d_b, d_c, d_d, rows, cols, depth, alpha, c_by_columns, to_tf32);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(d.data(), d_d, d.size() * sizeof(Acc), cudaMemcpyDeviceToHost));
    std::vector<double> expected =
        cpu_product(a, b, c, rows, cols, depth, alpha, std::is_same<LayoutA, wmma::row_major>::value,
                    std::is_same<LayoutB, wmma::row_major>::value, c_by_columns, to_tf32);
    double largest = 0;
    for (double e : expected) largest = std::fmax(largest, std::fabs(e));
    for (size_t i = 0; i < d.size(); i++) {
        double actual = (double)d[i];
        if (!(std::fabs(actual - expected[i]) <= tolerance * (1 + largest))) {
            EXPECT(false, "%s: D[%zu][%zu] is %.9g, not %.9g", what, i / cols, i % cols, actual, expected[i]);
            break;
        }
    }
    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
    CHECK(cudaFree(d_c));
    CHECK(cudaFree(d_d));
}

int main() {
    using row = wmma::row_major;
    using col = wmma::col_major;
    // half inputs, float sums: products are exact, sums round in float
    check_case<16, 16, 16, half, float, row, col, half>("half 16x16x16", 3, 2, 5, 1.0f, false, false, 1e-5);
    check_case<16, 16, 16, half, float, col, row, half>("half 16x16x16, A by columns, B by rows", 2, 3, 2,
                                                        0.5f, true, false, 1e-5);
    check_case<32, 8, 16, half, float, row, row, half>("half 32x8x16", 2, 5, 3, -2.0f, false, false, 1e-5);
    // half sums: each tile's sum rounds to half
    check_case<8, 32, 16, half, half, row, col, half>("half 8x32x16 into half", 3, 1, 1, 1.0f, true, false, 2e-3);
    // 8-bit integers into int: exact
    check_case<16, 16, 16, unsigned char, int, row, col, unsigned char>("u8 16x16x16", 2, 2, 4, 1.0f, false,
                                                                         false, 0);
    check_case<32, 8, 16, signed char, int, col, col, signed char>("s8 32x8x16", 1, 3, 2, 1.0f, true, false, 0);
#ifdef CUDA_EMULATION
    // bfloat16 inputs, float sums: products are exact, sums round in float
    check_case<16, 16, 16, __nv_bfloat16, float, row, col, __nv_bfloat16>("bfloat16 16x16x16", 2, 3, 3, 1.0f,
                                                                          false, false, 1e-5);
    check_case<8, 32, 16, __nv_bfloat16, float, col, row, __nv_bfloat16>("bfloat16 8x32x16", 3, 1, 2, 0.5f,
                                                                         true, false, 1e-5);
    // tf32: the inputs rounded to 10 mantissa bits, products exact in float
    check_case<16, 16, 8, wmma::precision::tf32, float, row, col, float>("tf32 16x16x8", 2, 2, 6, 1.0f, false,
                                                                         true, 1e-5);
    // double: as a CPU computes it
    check_case<8, 8, 4, double, double, row, col, double>("double 8x8x4", 3, 3, 7, 1.0f, true, false, 1e-12);

    // __float_to_tf32 rounds to nearest, ties away from zero, and leaves infinity and NaN alone
    const float tie = 1.0f + 0x1p-11f, below_tie = 1.0f + 0x1p-11f - 0x1p-23f;
    const float h_in[5] = {tie, below_tie, -tie, INFINITY, NAN};
    float h_out[5], *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, sizeof h_in));
    CHECK(cudaMalloc(&d_out, sizeof h_out));
    CHECK(cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice));
    to_tf32<<<1, 32>>>(d_in, d_out, 5);
    CHECK(cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost));
    EXPECT(h_out[0] == 1.0f + 0x1p-10f && h_out[1] == 1.0f && h_out[2] == -(1.0f + 0x1p-10f) &&
               std::isinf(h_out[3]) && std::isnan(h_out[4]),
           "__float_to_tf32 gave %a, %a, %a, %a, %a", h_out[0], h_out[1], h_out[2], h_out[3], h_out[4]);
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
#endif
    return pass(test_name);
}
