/*
 * Exercise 06: choose a launch configuration with the occupancy API.
 *
 * The kernel below is finished: one thread per result of the loop test, in a
 * grid-stride loop, so any grid computes every result. What is missing is
 * the launch: how many threads per block, how many blocks. Let the runtime
 * choose, as the optimized variant of loop_test.cu does:
 *   - cudaOccupancyMaxPotentialBlockSize gives the block size that lets the
 *     most threads of this kernel live on one SM, and the smallest grid that
 *     fills every SM with such blocks (min_grid_size);
 *   - no more blocks than the results need, and at least one.
 *
 * Fill in choose_launch where it says TODO, then check your work:
 *     make exercise06
 * It answers "not implemented yet", PASS, or FAIL: a wrong result (with the
 * first wrong index), a grid that leaves part of the device idle, or one with
 * more blocks than the results need.
 * The worked solution is in solutions/06-occupancy/exercise.cu (make solution06).
 */
#include "workbook.h"

typedef struct {
    int blocks_per_grid;
    int threads_per_block;
} launch_config;

/* the kernel, for the checker's own occupancy queries */
const void *exercise_kernel(void);

__global__ void loop_grid_stride(double *results, long long result_count, long long terms)
{
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < result_count;
         i += stride) {
        double sum = 0.0;
        for (long long j = 0; j < terms; j++)
            sum += (double)(i * j) * 0.1;
        results[i] = sum;
    }
}

const void *exercise_kernel(void) { return (const void *)loop_grid_stride; }

launch_config choose_launch(long long result_count)
{
    launch_config config = {0, 0};
    /* TODO 1: ask cudaOccupancyMaxPotentialBlockSize for this kernel's best
     *         block size and the grid that fills the device (no dynamic shared
     *         memory, no block size limit); wrap the call in CUDA_CHECK. */

    /* TODO 2: the blocks the results need (round up), so a small problem does
     *         not launch empty blocks; launch the smaller of the two, at least 1. */

    return config;
}

void launch_loop_test(double *d_results, long long result_count, long long terms)
{
    launch_config config = choose_launch(result_count);
    loop_grid_stride<<<config.blocks_per_grid, config.threads_per_block>>>(d_results, result_count,
                                                                           terms);
    CUDA_CHECK_LAUNCH();
}
