/*
 * Exercise 05, worked solution: a block's sum as a shared-memory tree, for any
 * block size. Check it with: make solution05
 *
 * Why it works: with `active` values left, the lower `half` = (active + 1) / 2
 * positions carry over to the next step, and the upper active - half =
 * active / 2 values are used up: thread t < active / 2 adds partial[t + half]
 * onto partial[t]. When active is odd, the middle value, partial[active / 2]
 * (the last of the lower half), receives nothing and is not lost: it is one
 * of the next step's `half` values. After ceil(log2(blockDim.x)) steps one
 * value is left, in partial[0].
 */
#include "workbook.h"

long long blocks_for(long long n, int threads_per_block)
{
    /* rounded up: the last block takes the n % threads_per_block left over */
    return (n + threads_per_block - 1) / threads_per_block;
}

__global__ void block_sums_tree(const float *x, float *block_sums, long long n)
{
    extern __shared__ float partial[];
    unsigned int tid = threadIdx.x;
    long long i = (long long)blockIdx.x * blockDim.x + tid;
    partial[tid] = i < n ? x[i] : 0.0f;
    /* without it a thread could add a neighbour's element before it is loaded */
    __syncthreads();
    for (unsigned int active = blockDim.x; active > 1;) {
        unsigned int half = (active + 1) / 2;
        if (tid < active - half)
            partial[tid] += partial[tid + half];
        /* without it the next step could read a sum this step has not finished */
        __syncthreads();
        active = half;
    }
    if (tid == 0)
        block_sums[blockIdx.x] = partial[0];
}

void launch_block_sums(const float *d_x, float *d_block_sums, long long n, int threads_per_block)
{
    long long blocks = blocks_for(n, threads_per_block);
    if (blocks < 1)
        return;
    block_sums_tree<<<(unsigned int)blocks, threads_per_block, threads_per_block * sizeof(float)>>>(
        d_x, d_block_sums, n);
    CUDA_CHECK_LAUNCH();
}
