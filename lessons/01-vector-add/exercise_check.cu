/*
 * The checker of exercise 01: make exercise01 builds it with your
 * exercise.cu, make solution01 with the worked solution.
 *
 * It runs launch_vector_add_grid_stride on sizes chosen to catch the usual
 * mistakes: 1; the block size (128) and the grid's thread count (512) plus and
 * minus one; primes; and sizes many times the grid, where a kernel without
 * the loop leaves most of c unwritten. c starts out as NaN, so an element the
 * kernel forgot shows up as a mismatch.
 *
 * Exit status: 0 PASS, 1 FAIL or not implemented yet, 3 no usable GPU.
 */
#include "workbook.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* written by you in exercise.cu */
void launch_vector_add_grid_stride(const float *d_a, const float *d_b, float *d_c, long long n);

static const long long sizes[] = {1, 127, 128, 129, 511, 512, 513, 4099, 65537, 1000003};
#define SIZE_COUNT (int)(sizeof sizes / sizeof sizes[0])

/* 1 when every byte of c still holds the 0xFF poison: the kernel wrote nothing */
static int untouched(const float *c, long long n)
{
    const unsigned char *bytes = (const unsigned char *)c;
    for (size_t i = 0; i < (size_t)n * sizeof(float); i++)
        if (bytes[i] != 0xFF)
            return 0;
    return 1;
}

int main(void)
{
    const char *name = "exercise01";
    wb_checker_device(name);

    long long largest = 0;
    for (int s = 0; s < SIZE_COUNT; s++)
        largest = sizes[s] > largest ? sizes[s] : largest;
    size_t max_bytes = (size_t)largest * sizeof(float);
    float *h_a = (float *)wb_alloc_host(max_bytes, "a");
    float *h_b = (float *)wb_alloc_host(max_bytes, "b");
    float *h_c = (float *)wb_alloc_host(max_bytes, "c");
    float *h_expected = (float *)wb_alloc_host(max_bytes, "the expected c");
    float *d_a, *d_b, *d_c;
    CUDA_CHECK(cudaMalloc(&d_a, max_bytes));
    CUDA_CHECK(cudaMalloc(&d_b, max_bytes));
    CUDA_CHECK(cudaMalloc(&d_c, max_bytes));

    /* one verdict per size, printed at the end unless the kernel wrote nothing at all */
    char verdicts[SIZE_COUNT][WB_VERDICT_LENGTH];
    int failures = 0, silent_sizes = 0;
    for (int s = 0; s < SIZE_COUNT; s++) {
        long long n = sizes[s];
        size_t bytes = (size_t)n * sizeof(float);
        wb_fill_random(h_a, n, -1.0f, 1.0f, 100 + s);
        wb_fill_random(h_b, n, -1.0f, 1.0f, 200 + s);
        for (long long i = 0; i < n; i++)
            h_expected[i] = h_a[i] + h_b[i];
        CUDA_CHECK(cudaMemcpy(d_a, h_a, bytes, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(d_b, h_b, bytes, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemset(d_c, 0xFF, bytes)); /* all bits set: NaN */

        launch_vector_add_grid_stride(d_a, d_b, d_c, n);
        CUDA_CHECK(cudaDeviceSynchronize());
        CUDA_CHECK(cudaMemcpy(h_c, d_c, bytes, cudaMemcpyDeviceToHost));

        silent_sizes += untouched(h_c, n);
        wb_check_result check = wb_check(h_expected, h_c, n, WB_ATOL, WB_RTOL);
        if (check.passed) {
            snprintf(verdicts[s], WB_VERDICT_LENGTH, "  n = %-8lld PASS", n);
        } else {
            failures++;
            unsigned int bits;
            memcpy(&bits, &h_c[check.first_bad], sizeof bits);
            snprintf(verdicts[s], WB_VERDICT_LENGTH,
                     "  n = %-8lld FAIL: first wrong index %lld: expected %.9g, got %.9g%s", n,
                     check.first_bad, check.expected, check.actual,
                     bits == 0xFFFFFFFFu ? " (never written)" : "");
        }
    }

    CUDA_CHECK(cudaFree(d_a));
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_c));
    free(h_a);
    free(h_b);
    free(h_c);
    free(h_expected);

    wb_exercise_report report = {
        .name = name,
        .title = "grid-stride vector add",
        .exercise_file = "lessons/01-vector-add/exercise.cu",
        .nothing_done = silent_sizes == SIZE_COUNT ? "the kernel wrote nothing" : NULL,
        .cases = "sizes",
        .verdicts = verdicts,
        .count = SIZE_COUNT,
        .failures = failures,
    };
    return wb_report_exercise(&report);
}
