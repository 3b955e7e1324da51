/*
 * The checker of exercise 06: make exercise06 builds it with your
 * exercise.cu, make solution06 with the worked solution.
 *
 * For each problem size it asks choose_launch for a configuration and checks
 *   - that the block size is a whole number of warps, at most 1,024 threads;
 *   - that the grid fills the device: at least one full wave (the blocks of
 *     that size the occupancy API says fit on every SM at once), or, for a
 *     small problem, at least one thread per result;
 *   - that it has no more blocks than the results need: a block past the
 *     last result would start only to find nothing to do;
 *   - that the launch computes every result (they start out as NaN).
 *
 * Exit status: 0 PASS, 1 FAIL or not implemented yet, 3 no usable GPU.
 */
#include "workbook.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int blocks_per_grid;
    int threads_per_block;
} launch_config;

/* written by you in exercise.cu */
launch_config choose_launch(long long result_count);
void launch_loop_test(double *d_results, long long result_count, long long terms);
const void *exercise_kernel(void);

/* 1; a warp minus one; more results than one wave of threads on most GPUs */
static const long long sizes[] = {1, 31, 1000, 300007};
#define SIZE_COUNT (int)(sizeof sizes / sizeof sizes[0])
/* enough terms that a wrong index shows, few enough for the CPU emulator */
#define TERMS 40
#define WARP_SIZE 32
#define MAX_THREADS_PER_BLOCK 1024

/* "" when the configuration fills the device, or why it does not */
static void judge_configuration(launch_config config, long long n, const wb_device *device,
                                char *why, size_t room)
{
    why[0] = '\0';
    int threads = config.threads_per_block;
    if (threads < WARP_SIZE || threads > MAX_THREADS_PER_BLOCK || threads % WARP_SIZE != 0) {
        snprintf(why, room, "%d threads per block: expected a multiple of %d up to %d", threads,
                 WARP_SIZE, MAX_THREADS_PER_BLOCK);
        return;
    }
    int blocks_per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, exercise_kernel(),
                                                             threads, 0));
    long long wave = (long long)blocks_per_sm * device->prop.multiProcessorCount;
    long long needed = (n + threads - 1) / threads;
    long long enough = needed < wave ? needed : wave;
    int blocks = config.blocks_per_grid;
    if (blocks < enough)
        snprintf(why, room,
                 "%d block%s of %d threads leave%s the device part idle: one wave is %lld blocks "
                 "(%d per SM x %d SMs), the results need %lld",
                 blocks, blocks == 1 ? "" : "s", threads, blocks == 1 ? "s" : "", wave,
                 blocks_per_sm, device->prop.multiProcessorCount, needed);
    else if (blocks > needed)
        snprintf(why, room,
                 "%d blocks of %d threads for %lld result%s: %lld block%s would do, and %lld "
                 "start%s with nothing to compute",
                 blocks, threads, n, n == 1 ? "" : "s", needed, needed == 1 ? "" : "s",
                 blocks - needed, blocks - needed == 1 ? "s" : "");
}

int main(void)
{
    const char *name = "exercise06";
    wb_device device = wb_checker_device(name);
    printf("%s: a launch configuration from the occupancy API\n", name);
    if (choose_launch(sizes[0]).threads_per_block == 0) {
        return wb_report_not_implemented(name, "choose_launch returned 0 threads per block",
                                         "lessons/06-occupancy/exercise.cu");
    }

    long long largest = sizes[SIZE_COUNT - 1];
    size_t max_bytes = (size_t)largest * sizeof(double);
    double *h_results = (double *)wb_alloc_host(max_bytes, "results");
    double *d_results;
    CUDA_CHECK(cudaMalloc(&d_results, max_bytes));

    int failures = 0;
    for (int s = 0; s < SIZE_COUNT; s++) {
        long long n = sizes[s];
        char why[WB_VERDICT_LENGTH];
        launch_config config = choose_launch(n);
        judge_configuration(config, n, &device, why, sizeof why);
        if (why[0]) {
            printf("  n = %-7lld FAIL: %s\n", n, why);
            failures++;
            continue;
        }
        CUDA_CHECK(cudaMemset(d_results, 0xFF, n * sizeof(double))); /* all bits set: NaN */
        launch_loop_test(d_results, n, TERMS);
        CUDA_CHECK(cudaDeviceSynchronize());
        CUDA_CHECK(cudaMemcpy(h_results, d_results, n * sizeof(double), cudaMemcpyDeviceToHost));
        long long first_bad = -1;
        double expected = 0;
        for (long long i = 0; i < n && first_bad < 0; i++) {
            expected = 0.0;
            for (long long j = 0; j < TERMS; j++)
                expected += (double)(i * j) * 0.1;
            /* the same additions in the same order: equal unless fused differently */
            if (!(fabs(h_results[i] - expected) <= WB_ATOL + WB_RTOL * fabs(expected)))
                first_bad = i;
        }
        if (first_bad >= 0) {
            printf("  n = %-7lld FAIL: first wrong index %lld: expected %.9g, got %.9g%s\n", n,
                   first_bad, expected, h_results[first_bad],
                   isnan(h_results[first_bad]) ? " (never written)" : "");
            failures++;
        } else {
            printf("  n = %-7lld PASS: %d block%s of %d threads\n", n, config.blocks_per_grid,
                   config.blocks_per_grid == 1 ? "" : "s", config.threads_per_block);
        }
    }
    CUDA_CHECK(cudaFree(d_results));
    free(h_results);

    return wb_report_verdict(name, failures, SIZE_COUNT, "sizes", NULL);
}
