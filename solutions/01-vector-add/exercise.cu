/*
 * Exercise 01, worked solution: a grid-stride loop.
 * Check it with: make solution01
 *
 * The same idea as the optimized kernel in lessons/01-vector-add/vector_add.cu,
 * without the float4 loads. Why it works: thread t of the grid handles
 * elements t, t + stride, t + 2 * stride, ...; together the threads cover
 * every index below n exactly once, for any n and any grid size. On each
 * step the 32 threads of a warp touch 32 neighbouring floats, so the loads
 * stay coalesced.
 */
#include "workbook.h"

#define EXERCISE_BLOCKS 4
#define EXERCISE_THREADS_PER_BLOCK 128

__global__ void vector_add_grid_stride(const float *a, const float *b, float *c, long long n)
{
    long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = first; i < n; i += stride)
        c[i] = a[i] + b[i];
}

void launch_vector_add_grid_stride(const float *d_a, const float *d_b, float *d_c, long long n)
{
    vector_add_grid_stride<<<EXERCISE_BLOCKS, EXERCISE_THREADS_PER_BLOCK>>>(d_a, d_b, d_c, n);
    CUDA_CHECK_LAUNCH();
}
