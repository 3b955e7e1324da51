/*
 * The checker of exercise 04: make exercise04 builds it with your
 * exercise.cu, make solution04 with the worked solution.
 *
 * It runs launch_sgemm_tiled_exercise on shapes (m x n x k) chosen to catch
 * the usual mistakes: 1 x 1 x 1; exactly one 16 x 16 tile; a tile plus and
 * minus one in every dimension, where the edge tiles stick out of A, B and C;
 * k many tiles long, where a missing barrier lets one step's
 * loads overwrite a tile that the previous step still reads; non-square
 * shapes, where swapped m and n show. C starts out as NaN, so an element the
 * kernel forgot shows up as a mismatch.
 *
 * A load past the edge of A or B would mostly be harmless arithmetic: the
 * value meets a zero from the other tile. But past the last row it leaves the
 * array (on a GPU: another allocation, or a crash). So A and B are followed
 * by NaN here: a tile read past their end brings a NaN in, and NaN times zero
 * is NaN, which fails the check.
 *
 * A store without its bounds check writes past the end of C (the edge blocks'
 * threads below the last row, or right of the last column on the last row).
 * On a GPU that lands in another allocation, or nowhere; here C is followed
 * by rows of a sentinel that no kernel computes, and any of them changed
 * fails the shape: "wrote ... past the end of C".
 *
 * Exit status: 0 PASS, 1 FAIL or not implemented yet, 3 no usable GPU.
 */
#include "workbook.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* written by you in exercise.cu */
void launch_sgemm_tiled_exercise(const float *d_a, const float *d_b, float *d_c, int m, int n,
                                 int k);

typedef struct {
    int m, n, k;
} matmul_shape;

static const matmul_shape shapes[] = {
    {1, 1, 1},   {16, 16, 16}, {17, 17, 17}, {15, 33, 31},
    {33, 15, 47}, {48, 32, 80}, {1, 40, 100}, {70, 3, 129},
};
#define SHAPE_COUNT (int)(sizeof shapes / sizeof shapes[0])
/* rows of NaN after A and after B, of the sentinel after C: more than any
 * tile sticks out */
#define NAN_PADDING_ROWS 64
/* the sentinel: a NaN with a payload of its own (not the 0xFF poison of C,
 * nor the NaN arithmetic makes), so a NaN written past the end shows too */
#define SENTINEL_BITS 0x7FC5E971u

/* 1 when every byte of c still holds the 0xFF poison: the kernel wrote nothing */
static int untouched(const float *c, long long count)
{
    const unsigned char *bytes = (const unsigned char *)c;
    for (size_t i = 0; i < (size_t)count * sizeof(float); i++)
        if (bytes[i] != 0xFF)
            return 0;
    return 1;
}

/* the plain triple loop, summing in the same order p = 0, 1, ... as the kernel */
static void matmul_reference(const float *a, const float *b, float *c, int m, int n, int k)
{
    for (int row = 0; row < m; row++)
        for (int col = 0; col < n; col++) {
            float sum = 0.0f;
            for (int p = 0; p < k; p++)
                sum += a[(size_t)row * k + p] * b[(size_t)p * n + col];
            c[(size_t)row * n + col] = sum;
        }
}

int main(void)
{
    const char *name = "exercise04";
    wb_checker_device(name);

    size_t max_bytes = 0;
    int max_dimension = 0;
    for (int s = 0; s < SHAPE_COUNT; s++) {
        const matmul_shape *shape = &shapes[s];
        max_dimension = shape->n > max_dimension ? shape->n : max_dimension;
        max_dimension = shape->k > max_dimension ? shape->k : max_dimension;
        size_t largest = (size_t)shape->m * shape->k;
        if ((size_t)shape->k * shape->n > largest)
            largest = (size_t)shape->k * shape->n;
        if ((size_t)shape->m * shape->n > largest)
            largest = (size_t)shape->m * shape->n;
        if (largest * sizeof(float) > max_bytes)
            max_bytes = largest * sizeof(float);
    }
    size_t padding_count = (size_t)NAN_PADDING_ROWS * max_dimension;
    float *h_a = (float *)wb_alloc_host(max_bytes, "a");
    float *h_b = (float *)wb_alloc_host(max_bytes, "b");
    float *h_c = (float *)wb_alloc_host(max_bytes + padding_count * sizeof(float), "c");
    float *h_expected = (float *)wb_alloc_host(max_bytes, "the expected c");
    /* the padding: a NaN other than the all-ones poison of C, so that a NaN
     * brought in from past the end is not reported as "never written" */
    float *h_nan = (float *)wb_alloc_host(padding_count * sizeof(float), "the NaN padding");
    for (size_t i = 0; i < padding_count; i++)
        h_nan[i] = NAN;
    float *h_sentinel = (float *)wb_alloc_host(padding_count * sizeof(float), "the sentinel");
    unsigned int sentinel_bits = SENTINEL_BITS;
    for (size_t i = 0; i < padding_count; i++)
        memcpy(&h_sentinel[i], &sentinel_bits, sizeof(float));

    char verdicts[SHAPE_COUNT][WB_VERDICT_LENGTH];
    int failures = 0, silent_shapes = 0;
    for (int s = 0; s < SHAPE_COUNT; s++) {
        int m = shapes[s].m, n = shapes[s].n, k = shapes[s].k;
        size_t a_bytes = (size_t)m * k * sizeof(float), b_bytes = (size_t)k * n * sizeof(float);
        size_t c_bytes = (size_t)m * n * sizeof(float);
        /* none under the bug finder: the guard page past each matrix names the line */
        size_t a_padding = wb_checker_margin((size_t)NAN_PADDING_ROWS * k * sizeof(float));
        size_t b_padding = wb_checker_margin((size_t)NAN_PADDING_ROWS * n * sizeof(float));
        size_t c_padding = b_padding; /* rows of n, like B's */
        float *d_a, *d_b, *d_c;
        CUDA_CHECK(cudaMalloc(&d_a, a_bytes + a_padding));
        CUDA_CHECK(cudaMalloc(&d_b, b_bytes + b_padding));
        CUDA_CHECK(cudaMalloc(&d_c, c_bytes + c_padding));
        CUDA_CHECK(cudaMemcpy((char *)d_a + a_bytes, h_nan, a_padding, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy((char *)d_b + b_bytes, h_nan, b_padding, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy((char *)d_c + c_bytes, h_sentinel, c_padding, cudaMemcpyHostToDevice));
        wb_fill_random(h_a, (long long)m * k, -1.0f, 1.0f, 100 + s);
        wb_fill_random(h_b, (long long)k * n, -1.0f, 1.0f, 200 + s);
        matmul_reference(h_a, h_b, h_expected, m, n, k);
        CUDA_CHECK(cudaMemcpy(d_a, h_a, a_bytes, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(d_b, h_b, b_bytes, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemset(d_c, 0xFF, c_bytes)); /* all bits set: NaN */

        launch_sgemm_tiled_exercise(d_a, d_b, d_c, m, n, k);
        CUDA_CHECK(cudaDeviceSynchronize());
        CUDA_CHECK(cudaMemcpy(h_c, d_c, c_bytes + c_padding, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaFree(d_a));
        CUDA_CHECK(cudaFree(d_b));
        CUDA_CHECK(cudaFree(d_c));

        /* the elements past the end of C that no longer hold the sentinel */
        long long first_stray = -1, strays = 0;
        for (long long i = 0; i < (long long)(c_padding / sizeof(float)); i++) {
            unsigned int bits;
            memcpy(&bits, &h_c[(size_t)m * n + i], sizeof bits);
            if (bits != SENTINEL_BITS) {
                strays++;
                first_stray = first_stray < 0 ? i : first_stray;
            }
        }
        silent_shapes += untouched(h_c, (long long)m * n) && strays == 0;
        /* the kernel sums in the same order, but may fuse each multiply-add
         * into one rounding: within the lesson's bound for a sum of k
         * products of magnitude at most 1 (inputs in [-1, 1]) */
        double atol = 2.0 * wb_sum_tolerance(k, k);
        wb_check_result check = wb_check(h_expected, h_c, (long long)m * n, atol, 0.0);
        char shape_text[32];
        snprintf(shape_text, sizeof shape_text, "%dx%dx%d", m, n, k);
        if (strays > 0) {
            /* first: on a GPU this overwrites someone else's memory */
            failures++;
            snprintf(verdicts[s], WB_VERDICT_LENGTH,
                     "  %-9s FAIL: wrote %lld element%s past the end of C (the first where "
                     "row %lld, column %lld would be)",
                     shape_text, strays, strays == 1 ? "" : "s", m + first_stray / n,
                     first_stray % n);
        } else if (check.passed) {
            snprintf(verdicts[s], WB_VERDICT_LENGTH, "  %-9s PASS", shape_text);
        } else {
            failures++;
            unsigned int bits;
            memcpy(&bits, &h_c[check.first_bad], sizeof bits);
            snprintf(verdicts[s], WB_VERDICT_LENGTH,
                     "  %-9s FAIL: first wrong element (row %lld, column %lld): expected %.9g, "
                     "got %.9g%s",
                     shape_text, check.first_bad / n, check.first_bad % n, check.expected,
                     check.actual, bits == 0xFFFFFFFFu ? " (never written)" : "");
        }
    }
    free(h_a);
    free(h_b);
    free(h_c);
    free(h_expected);
    free(h_nan);
    free(h_sentinel);

    wb_exercise_report report = {
        .name = name,
        .title = "tiled matrix product, m x n x k",
        .exercise_file = "lessons/04-sgemm/exercise.cu",
        .nothing_done = silent_shapes == SHAPE_COUNT ? "the kernel wrote nothing" : NULL,
        .cases = "shapes",
        .verdicts = verdicts,
        .count = SHAPE_COUNT,
        .failures = failures,
    };
    return wb_report_exercise(&report);
}
