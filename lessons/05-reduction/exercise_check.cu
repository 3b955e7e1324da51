/*
 * The checker of exercise 05: make exercise05 builds it with your
 * exercise.cu, make solution05 with the worked solution.
 *
 * For each block size (32, a power of two; 96 and 1000, which are not) and
 * each n (1; a warp plus one; sizes that leave the last block partly full),
 * it asks blocks_for for the grid, launches launch_block_sums and compares
 * every block's sum with one computed in double on the CPU. block_sums starts
 * out as NaN, so a block that wrote nothing shows up as a mismatch. And x is
 * followed by NaN, more than a block long: a thread past the end of x that
 * loads its element anyway (no i < n check) brings a NaN into its block's sum.
 * Run it in other thread orders too (CUDA_EMU_ORDER=reverse or random with the
 * emulator): a missing barrier may only show in some orders.
 *
 * Exit status: 0 PASS, 1 FAIL or not implemented yet, 3 no usable GPU.
 */
#include "workbook.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* written by you in exercise.cu */
long long blocks_for(long long n, int threads_per_block);
void launch_block_sums(const float *d_x, float *d_block_sums, long long n, int threads_per_block);

static const int block_sizes[] = {32, 96, 1000};
static const long long sizes[] = {1, 33, 1000, 4099, 65537};
#define BLOCK_SIZE_COUNT (int)(sizeof block_sizes / sizeof block_sizes[0])
#define SIZE_COUNT (int)(sizeof sizes / sizeof sizes[0])
#define CASES (BLOCK_SIZE_COUNT * SIZE_COUNT)
/* NaN after the n elements of x: more than the largest block sticks out */
#define NAN_PADDING 1024

/* 1 when every byte still holds the 0xFF poison: the kernel wrote nothing */
static int untouched(const float *values, long long count)
{
    const unsigned char *bytes = (const unsigned char *)values;
    for (size_t i = 0; i < (size_t)count * sizeof(float); i++)
        if (bytes[i] != 0xFF)
            return 0;
    return 1;
}

int main(void)
{
    const char *name = "exercise05";
    wb_checker_device(name);

    long long largest = sizes[SIZE_COUNT - 1];
    size_t max_bytes = (size_t)largest * sizeof(float);
    float *h_x = (float *)wb_alloc_host(max_bytes, "x");
    float *h_sums = (float *)wb_alloc_host(max_bytes, "the block sums");
    float *h_expected = (float *)wb_alloc_host(max_bytes, "the expected block sums");
    float *h_nan = (float *)wb_alloc_host(NAN_PADDING * sizeof(float), "the NaN padding");
    for (int i = 0; i < NAN_PADDING; i++)
        h_nan[i] = NAN;
    /* none under the bug finder: a load past n reads memory nobody wrote, named with its line */
    size_t padding_bytes = wb_checker_margin(NAN_PADDING * sizeof(float));
    float *d_x, *d_sums;
    CUDA_CHECK(cudaMalloc(&d_x, max_bytes + padding_bytes));
    CUDA_CHECK(cudaMalloc(&d_sums, max_bytes)); /* at most one block per element */

    char verdicts[CASES][WB_VERDICT_LENGTH];
    int failures = 0, silent = 0, no_grid = 0;
    for (int b = 0; b < BLOCK_SIZE_COUNT; b++) {
        for (int s = 0; s < SIZE_COUNT; s++) {
            int threads = block_sizes[b];
            long long n = sizes[s];
            char *verdict = verdicts[b * SIZE_COUNT + s];
            int written = snprintf(verdict, WB_VERDICT_LENGTH, "  threads = %-4d n = %-6lld ", threads, n);
            char *rest = verdict + written;
            size_t room = WB_VERDICT_LENGTH - written;

            long long blocks = (n + threads - 1) / threads;
            long long asked = blocks_for(n, threads);
            if (asked != blocks) {
                failures++;
                no_grid += asked == 0;
                snprintf(rest, room, "FAIL: blocks_for gave %lld blocks, expected %lld%s", asked,
                         blocks, asked < blocks ? " (the last elements would be dropped)" : "");
                continue;
            }
            wb_fill_random(h_x, n, 0.0f, 1.0f, 500 + b * SIZE_COUNT + s);
            for (long long block = 0; block < blocks; block++) {
                double sum = 0.0;
                for (long long i = block * threads; i < n && i < (block + 1) * threads; i++)
                    sum += h_x[i];
                h_expected[block] = (float)sum;
            }
            CUDA_CHECK(cudaMemcpy(d_x, h_x, n * sizeof(float), cudaMemcpyHostToDevice));
            CUDA_CHECK(cudaMemcpy(d_x + n, h_nan, padding_bytes, cudaMemcpyHostToDevice));
            CUDA_CHECK(cudaMemset(d_sums, 0xFF, blocks * sizeof(float))); /* NaN */
            launch_block_sums(d_x, d_sums, n, threads);
            CUDA_CHECK(cudaDeviceSynchronize());
            CUDA_CHECK(cudaMemcpy(h_sums, d_sums, blocks * sizeof(float), cudaMemcpyDeviceToHost));

            silent += untouched(h_sums, blocks);
            /* a tree of ceil(log2(threads)) levels over at most `threads`
             * values in [0, 1], plus the rounding of the double reference */
            double atol = wb_sum_tolerance(ceil(log2((double)threads)) + 1, threads);
            wb_check_result check = wb_check(h_expected, h_sums, blocks, atol, 0.0);
            if (check.passed) {
                snprintf(rest, room, "PASS");
            } else {
                failures++;
                unsigned int bits;
                memcpy(&bits, &h_sums[check.first_bad], sizeof bits);
                snprintf(rest, room, "FAIL: first wrong block %lld: expected %.9g, got %.9g%s",
                         check.first_bad, check.expected, check.actual,
                         bits == 0xFFFFFFFFu ? " (never written)" : "");
            }
        }
    }

    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_sums));
    free(h_x);
    free(h_sums);
    free(h_expected);
    free(h_nan);

    wb_exercise_report report = {
        .name = name,
        .title = "a block's sum as a shared-memory tree",
        .exercise_file = "lessons/05-reduction/exercise.cu",
        .nothing_done = silent + no_grid == CASES
                            ? (no_grid == CASES ? "blocks_for gives no blocks"
                                                : "the kernel wrote nothing")
                            : NULL,
        .cases = "cases",
        .verdicts = verdicts,
        .count = CASES,
        .failures = failures,
    };
    return wb_report_exercise(&report);
}
