/*
 * The worked solution of exercise 06 (lessons/06-occupancy/exercise.cu):
 * the occupancy API's block size, and a grid of one full wave or of as many
 * blocks as the results need, whichever is smaller.
 *     make solution06
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
    int min_grid_size = 0;
    CUDA_CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid_size, &config.threads_per_block,
                                                  loop_grid_stride, 0, 0));
    long long needed = (result_count + config.threads_per_block - 1) / config.threads_per_block;
    long long blocks = needed < min_grid_size ? needed : min_grid_size;
    config.blocks_per_grid = blocks > 0 ? (int)blocks : 1;
    return config;
}

void launch_loop_test(double *d_results, long long result_count, long long terms)
{
    launch_config config = choose_launch(result_count);
    loop_grid_stride<<<config.blocks_per_grid, config.threads_per_block>>>(d_results, result_count,
                                                                           terms);
    CUDA_CHECK_LAUNCH();
}
