/*
 * Exercise 01: a grid-stride loop.
 *
 * The launch below starts only 4 blocks of 128 threads, 512 threads in all,
 * however long the arrays are. One thread per element is not enough any more:
 * each thread has to walk over the array, one grid-width at a time, as the
 * optimized kernel of vector_add.cu does (without its float4 part).
 *
 * Fill in the kernel where it says TODO, then check your work:
 *     make exercise01
 * It answers "not implemented yet", PASS, or FAIL with the first wrong index.
 * The worked solution is in solutions/01-vector-add/exercise.cu (make solution01).
 */
#include "workbook.h"

/* Deliberately small, so that most elements are past the first 512 threads. */
#define EXERCISE_BLOCKS 4
#define EXERCISE_THREADS_PER_BLOCK 128

__global__ void vector_add_grid_stride(const float *a, const float *b, float *c, long long n)
{
    /* TODO 1: the first element of this thread: its index in the whole grid
     *         (which block it is in, how big a block is, where in the block). */

    /* TODO 2: the stride: how many threads the whole grid has. */

    /* TODO 3: starting at the first element, step through the array by the
     *         stride while the index is below n, setting c = a + b. */
}

void launch_vector_add_grid_stride(const float *d_a, const float *d_b, float *d_c, long long n)
{
    vector_add_grid_stride<<<EXERCISE_BLOCKS, EXERCISE_THREADS_PER_BLOCK>>>(d_a, d_b, d_c, n);
    CUDA_CHECK_LAUNCH();
}
