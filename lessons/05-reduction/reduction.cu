/*
 * Lesson 05: reduction, the sum of n floats; and Monte Carlo pi (--pi).
 *
 * Build and run (from the top of the repository):
 *     make lesson05 && ./lesson05
 *     ./lesson05 -n 16M --only optimized,fixed-order,last-block,cub
 *     ./lesson05 --pi -n 100M           # estimate pi from 100M random points
 *     ./lesson05 --help                 # every option
 *
 * The first kernel where threads must work together: n numbers in, one out.
 * The variants follow Mark Harris' "Optimizing Parallel Reduction" step by
 * step, each one changing one thing:
 *   cpu          OpenMP, summed in double: the reference
 *   naive        one atomicAdd per element, all on the same address
 *   interleaved  a shared-memory tree per block; threads 0, 2, 4, ... work at
 *                step 1, 0, 4, 8, ... at step 2: every warp stays busy but
 *                most of its threads idle (divergence)
 *   strided      the same tree, thread t working on element 2 * stride * t:
 *                no divergence, but threads of a warp collide on the
 *                banks of shared memory (bank conflicts)
 *   sequential   the same tree with the working threads packed together
 *                (sequential addressing): whole warps retire early, and
 *                no conflicts
 *   first-add    each thread adds two elements while loading: half the blocks,
 *                and no thread idle on the first step
 *   last-warp    the last 64 partial sums by warp shuffles, without barriers
 *   optimized    a grid just big enough to fill the GPU, grid-stride loop over
 *                float4, shuffles, then one atomicAdd per block
 *   fixed-order  the optimized first pass writing one partial per block, and
 *                a second one-block pass: bitwise the same result every run
 *   last-block   fixed-order in one launch: the last block to finish (it
 *                counts the finished blocks) adds up the partials; no memset,
 *                no second launch, no atomicAdd on the sum
 *   cub          cub::DeviceReduce::Sum, the library's answer (not emulated)
 * The tree variants run in passes: each pass turns n values into one per
 * block, until one is left.
 *
 * Napkin math for 2^28 floats on an H100 (the bar CUB sets there):
 *   bytes that must move:  read x once: 4 B x 2^28 = 1.07 GB; the result is 4 B
 *   flops:                 2^28 additions, 1 per 4 bytes: memory-bound
 *   at 3,352 GB/s (HBM3 peak) 0.32 ms; at the 2,988 GB/s cudaMemcpy reaches,
 *   0.36 ms; CUB measured 0.354 ms (3,030 GB/s). A reduction only reads, so it
 *   can beat a copy (which reads and writes) by a little.
 *   The atomics of naive all hit one address: the L2 serves them one after
 *   another, at most about one per clock at ~2 GHz, so 2^28 of them take on
 *   the order of 0.1 s or more, hundreds of times the memory limit.
 */
#include "workbook.h"

#include <math.h>
#include <string.h>

#ifndef CUDA_EMULATION
#include <cub/cub.cuh> /* NVIDIA's header-only library; the emulator has no copy of it */
#endif

/* A warp is 32 threads; a shuffle between all of them uses this mask. */
#define WARP_SIZE 32
#define FULL_WARP_MASK 0xffffffffu
/* At most 1024 threads per block, so at most 32 warps to sum in a block. */
#define MAX_WARPS_PER_BLOCK 32

/* The tree kernels: 256 threads (8 warps) per block, the block size Harris
 * uses; a power of two, as a tree that halves each step needs. */
#define TREE_THREADS 256
/* optimized and fixed-order: 256 threads per block too, as many blocks as
 * fit on the GPU at once; the second pass of fixed-order is one block of 1024. */
#define OPTIMIZED_THREADS 256
#define FINAL_PASS_THREADS 1024

/* ---- CPU reference ------------------------------------------------------ */

/* Summed in double: 29 more bits than float, so the reference is the exact sum
 * rounded once to float, whatever order OpenMP's threads add in, and the check
 * measures the GPU's error alone. */
static void sum_cpu(const float *x, float *sum, long long n)
{
    double total = 0.0;
#pragma omp parallel for reduction(+ : total) schedule(static)
    for (long long i = 0; i < n; i++)
        total += x[i];
    *sum = (float)total;
}

/* ---- kernels ------------------------------------------------------------ */

/* 1. naive: the loop's `sum += x[i]` as one atomicAdd per element. Correct,
 * and the simplest parallel sum there is, but every thread of the GPU adds to
 * the same 4 bytes: the L2 performs the adds one after another, so the whole
 * GPU runs at the speed of one memory address. */
__global__ void reduce_naive(const float *x, float *sum, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(sum, x[i]);
}

/* 2. interleaved: each block sums TREE_THREADS elements in shared memory as a
 * tree, and writes one partial sum; a next pass sums the partials.
 *
 *   step 1:  0+1   2+3   4+5   6+7  ...   threads 0, 2, 4, 6 add
 *   step 2:  0+2         4+6        ...   threads 0, 4 add
 *   step 3:  0+4                    ...   thread 0 adds
 *
 * tid % (2 * stride) == 0 picks the working threads: by step 2 only every
 * fourth thread of a warp works, but the warp still takes the full step
 * (divergence), and the modulo is slow. The barrier after each step: a thread
 * must not read partial[tid + stride] before its owner wrote it. */
__global__ void reduce_interleaved(const float *x, float *block_sums, long long n)
{
    __shared__ float partial[TREE_THREADS];
    unsigned int tid = threadIdx.x;
    long long i = (long long)blockIdx.x * TREE_THREADS + tid;
    partial[tid] = i < n ? x[i] : 0.0f; /* past the end: 0, which changes no sum */
    __syncthreads();
    for (unsigned int stride = 1; stride < TREE_THREADS; stride *= 2) {
        if (tid % (2 * stride) == 0)
            partial[tid] += partial[tid + stride];
        __syncthreads();
    }
    if (tid == 0)
        block_sums[blockIdx.x] = partial[0];
}

/* 3. strided: the interleaved tree without its divergence (Harris' second
 * kernel). Thread t works on element 2 * stride * t, so the working threads
 * are 0, 1, 2, ... at every step: whole warps work or idle together. The
 * price moves to shared memory, 32 banks of 4-byte words (word w is in bank
 * w % 32). At stride 1 thread t reads words 2t and 2t + 1: two threads of a
 * warp on each bank it touches, a 2-way conflict that takes two passes
 * (wavefronts) instead of one. At stride 2 it is 4-way, at stride 4 8-way;
 * after that fewer threads work (2 * stride * t must stay below 256) and the
 * conflicts stay 8-way or shrink. `make profile LESSON=05` counts them. */
__global__ void reduce_strided(const float *x, float *block_sums, long long n)
{
    __shared__ float partial[TREE_THREADS];
    unsigned int tid = threadIdx.x;
    long long i = (long long)blockIdx.x * TREE_THREADS + tid;
    partial[tid] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (unsigned int stride = 1; stride < TREE_THREADS; stride *= 2) {
        unsigned int index = 2 * stride * tid;
        if (index < TREE_THREADS)
            partial[index] += partial[index + stride];
        __syncthreads();
    }
    if (tid == 0)
        block_sums[blockIdx.x] = partial[0];
}

/* 4. sequential: the same tree, folded the other way: the first half of the
 * threads adds the second half onto itself, then the first quarter, ...
 *
 *   step 1:  0+128  1+129  ...  127+255   threads 0..127 add
 *   step 2:  0+64   1+65   ...  63+127    threads 0..63 add
 *
 * The working threads are contiguous, so whole warps either work or are done:
 * no divergence until fewer than 32 remain. Consecutive threads also read
 * consecutive words of shared memory, one per bank: no bank conflicts, where
 * strided's 2 * stride * tid put several threads of a warp on one bank. */
__global__ void reduce_sequential(const float *x, float *block_sums, long long n)
{
    __shared__ float partial[TREE_THREADS];
    unsigned int tid = threadIdx.x;
    long long i = (long long)blockIdx.x * TREE_THREADS + tid;
    partial[tid] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (unsigned int stride = TREE_THREADS / 2; stride > 0; stride /= 2) {
        if (tid < stride)
            partial[tid] += partial[tid + stride];
        __syncthreads();
    }
    if (tid == 0)
        block_sums[blockIdx.x] = partial[0];
}

/* 5. first-add: half the threads of sequential idle on its first step. Here
 * each thread loads two elements, a block apart, and adds them on the way in:
 * a block covers 2 x TREE_THREADS elements, half as many blocks are needed,
 * and every thread does useful work from the start. */
__global__ void reduce_first_add(const float *x, float *block_sums, long long n)
{
    __shared__ float partial[TREE_THREADS];
    unsigned int tid = threadIdx.x;
    long long i = (long long)blockIdx.x * (2 * TREE_THREADS) + tid;
    float first = i < n ? x[i] : 0.0f;
    float second = i + TREE_THREADS < n ? x[i + TREE_THREADS] : 0.0f;
    partial[tid] = first + second;
    __syncthreads();
    for (unsigned int stride = TREE_THREADS / 2; stride > 0; stride /= 2) {
        if (tid < stride)
            partial[tid] += partial[tid + stride];
        __syncthreads();
    }
    if (tid == 0)
        block_sums[blockIdx.x] = partial[0];
}

/* The sum of a value over the 32 threads of a warp, in registers: at each
 * step a thread adds the value of the thread `offset` lanes above it
 * (__shfl_down_sync), halving the distance. No shared memory and no barrier:
 * the threads of a warp exchange registers directly. Lane 0 ends with the sum.
 *
 *   offset 16: lane 0 += lane 16, lane 1 += lane 17, ...
 *   offset 8:  lane 0 += lane 8, ...      ... offset 1: lane 0 += lane 1
 *
 * A template: floats for the sum, whole numbers for Monte Carlo pi below. */
template <typename T>
__device__ T warp_sum(T value)
{
    for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2)
        value += __shfl_down_sync(FULL_WARP_MASK, value, offset);
    return value;
}

/* 6. last-warp: first-add's tree until 64 partial sums are left, then one
 * warp adds the last 64 with shuffles: the last five steps of the tree need
 * no barrier and no shared memory, and only one warp runs them. */
__global__ void reduce_last_warp(const float *x, float *block_sums, long long n)
{
    __shared__ float partial[TREE_THREADS];
    unsigned int tid = threadIdx.x;
    long long i = (long long)blockIdx.x * (2 * TREE_THREADS) + tid;
    float first = i < n ? x[i] : 0.0f;
    float second = i + TREE_THREADS < n ? x[i + TREE_THREADS] : 0.0f;
    partial[tid] = first + second;
    __syncthreads();
    for (unsigned int stride = TREE_THREADS / 2; stride > WARP_SIZE; stride /= 2) {
        if (tid < stride)
            partial[tid] += partial[tid + stride];
        __syncthreads();
    }
    if (tid < WARP_SIZE) {
        float value = warp_sum(partial[tid] + partial[tid + WARP_SIZE]);
        if (tid == 0)
            block_sums[blockIdx.x] = value;
    }
}

/* The sum of a value over a whole block: each warp sums its own with
 * shuffles, its lane 0 leaves the result in shared memory, and after one
 * barrier the first warp sums those. blockDim.x must be a multiple of 32.
 * Thread 0 ends with the block's sum. */
template <typename T>
__device__ T block_sum(T value)
{
    __shared__ T warp_sums[MAX_WARPS_PER_BLOCK];
    unsigned int lane = threadIdx.x % WARP_SIZE, warp = threadIdx.x / WARP_SIZE;
    value = warp_sum(value);
    if (lane == 0)
        warp_sums[warp] = value;
    /* the first warp reads what every warp's lane 0 wrote */
    __syncthreads();
    if (warp == 0) {
        unsigned int warps = blockDim.x / WARP_SIZE;
        value = warp_sum(lane < warps ? warp_sums[lane] : T(0));
    }
    return value;
}

/* Each thread's share of x: a grid-stride loop, one float4 (16-byte load) per
 * step, kept in a register. However long x is, the grid stays the size that
 * fills the GPU, and no thread ever waits for another. cudaMalloc aligns x to
 * 256 bytes, so the float4 view is legal; the n % 4 elements past the last
 * whole float4 are picked up by the first threads. */
__device__ float grid_stride_sum(const float *__restrict__ x, long long n)
{
    long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long stride = (long long)gridDim.x * blockDim.x;
    const float4 *x4 = (const float4 *)x;
    long long n4 = n / 4;
    float sum = 0.0f;
    for (long long i = first; i < n4; i += stride) {
        float4 v = x4[i];
        sum += (v.x + v.y) + (v.z + v.w);
    }
    for (long long i = 4 * n4 + first; i < n; i += stride)
        sum += x[i];
    return sum;
}

/* 7. optimized: one pass over HBM, every load 16 bytes wide, the tree in
 * registers, and one atomicAdd per block (a few hundred in all, against n
 * for naive) instead of a second pass: no second launch. *sum must be 0
 * before the launch. The atomics land in whatever order the blocks finish,
 * so the last bits of the result can change from run to run. */
__global__ void reduce_optimized(const float *__restrict__ x, float *sum, long long n)
{
    float total = block_sum(grid_stride_sum(x, n));
    if (threadIdx.x == 0)
        atomicAdd(sum, total);
}

/* 8. fixed-order: optimized's pass writing each block's sum to its own place;
 * the same kernel run again as one block over those partial sums gives the
 * total. Every addition happens in an order fixed by the grid alone. */
__global__ void reduce_to_block_sums(const float *__restrict__ x, float *block_sums, long long n)
{
    float total = block_sum(grid_stride_sum(x, n));
    if (threadIdx.x == 0)
        block_sums[blockIdx.x] = total;
}

/* 9. last-block: fixed-order's two passes in one launch, with neither
 * optimized's memset nor its atomicAdds on the sum. Each block writes its sum
 * to its own place, then counts itself done; the block that finds itself last
 * knows every other sum is written, and adds them up in block order. The
 * count is atomicInc's, which wraps back to 0 at the last block, so the next
 * launch finds it at 0 again. */
__device__ unsigned int blocks_done; /* 0 when the program starts */

__global__ void reduce_last_block(const float *__restrict__ x, float *block_sums, float *sum,
                                  long long n)
{
    __shared__ bool last_block;
    float total = block_sum(grid_stride_sum(x, n));
    if (threadIdx.x == 0) {
        block_sums[blockIdx.x] = total;
        /* the sum must reach global memory, where the last block will read it,
         * before the count says this block is done */
        __threadfence();
        last_block = atomicInc(&blocks_done, gridDim.x - 1) == gridDim.x - 1;
    }
    __syncthreads();
    if (last_block) {
        /* __ldcg reads from L2, past this SM's L1, which other blocks' writes
         * do not update */
        float partial = 0.0f;
        for (unsigned int block = threadIdx.x; block < gridDim.x; block += blockDim.x)
            partial += __ldcg(&block_sums[block]);
        partial = block_sum(partial);
        if (threadIdx.x == 0)
            *sum = partial;
    }
}

/* ---- launchers: one short function per GPU variant ------------------------ */

/* Buffer indices, in the order of the declaration below. */
enum { X, SUM, PARTIALS };

static int optimized_blocks_per_grid; /* from the SM count, in prepare() */
#ifndef CUDA_EMULATION
static void *cub_temp_storage;
static size_t cub_temp_bytes;
#endif

static void run_cpu(const wb_data *data)
{
    sum_cpu((const float *)data->host[X], (float *)data->host[SUM], data->shape.n);
}

static void run_naive(const wb_data *data)
{
    long long n = data->shape.n;
    float *d_sum = (float *)data->device[SUM];
    CUDA_CHECK(cudaMemsetAsync(d_sum, 0, sizeof(float)));
    unsigned int blocks_per_grid = (unsigned int)((n + TREE_THREADS - 1) / TREE_THREADS);
    reduce_naive<<<blocks_per_grid, TREE_THREADS>>>((const float *)data->device[X], d_sum, n);
    CUDA_CHECK_LAUNCH();
}

/* The tree kernels, each launched under its own name below rather than
 * through a function pointer: the launch warnings under the table then name
 * the kernel (the CPU emulator knows a kernel by what is written before <<<). */
typedef enum { INTERLEAVED, STRIDED, SEQUENTIAL, FIRST_ADD, LAST_WARP } tree_kernel;

static void launch_tree_pass(tree_kernel kernel, unsigned int blocks, const float *in, float *out,
                             long long count)
{
    switch (kernel) {
    case INTERLEAVED: reduce_interleaved<<<blocks, TREE_THREADS>>>(in, out, count); break;
    case STRIDED: reduce_strided<<<blocks, TREE_THREADS>>>(in, out, count); break;
    case SEQUENTIAL: reduce_sequential<<<blocks, TREE_THREADS>>>(in, out, count); break;
    case FIRST_ADD: reduce_first_add<<<blocks, TREE_THREADS>>>(in, out, count); break;
    case LAST_WARP: reduce_last_warp<<<blocks, TREE_THREADS>>>(in, out, count); break;
    }
    CUDA_CHECK_LAUNCH();
}

/* A tree kernel turns `count` values into one per block; passes repeat until
 * one value is left, which the last pass writes to sum. The passes take turns
 * between the two halves of the scratch buffer. */
static void reduce_in_passes(const wb_data *data, tree_kernel kernel, int elements_per_block)
{
    const float *in = (const float *)data->device[X];
    float *halves[2] = {(float *)data->device[PARTIALS],
                        (float *)data->device[PARTIALS] + data->bytes[PARTIALS] / sizeof(float) / 2};
    long long count = data->shape.n;
    int pass = 0;
    do {
        long long blocks = (count + elements_per_block - 1) / elements_per_block;
        float *out = blocks == 1 ? (float *)data->device[SUM] : halves[pass % 2];
        launch_tree_pass(kernel, (unsigned int)blocks, in, out, count);
        in = out;
        count = blocks;
        pass++;
    } while (count > 1);
}

static void run_interleaved(const wb_data *data)
{
    reduce_in_passes(data, INTERLEAVED, TREE_THREADS);
}

static void run_strided(const wb_data *data)
{
    reduce_in_passes(data, STRIDED, TREE_THREADS);
}

static void run_sequential(const wb_data *data)
{
    reduce_in_passes(data, SEQUENTIAL, TREE_THREADS);
}

static void run_first_add(const wb_data *data)
{
    reduce_in_passes(data, FIRST_ADD, 2 * TREE_THREADS);
}

static void run_last_warp(const wb_data *data)
{
    reduce_in_passes(data, LAST_WARP, 2 * TREE_THREADS);
}

static void run_optimized(const wb_data *data)
{
    float *d_sum = (float *)data->device[SUM];
    CUDA_CHECK(cudaMemsetAsync(d_sum, 0, sizeof(float)));
    reduce_optimized<<<optimized_blocks_per_grid, OPTIMIZED_THREADS>>>(
        (const float *)data->device[X], d_sum, data->shape.n);
    CUDA_CHECK_LAUNCH();
}

static void run_fixed_order(const wb_data *data)
{
    float *block_sums = (float *)data->device[PARTIALS];
    reduce_to_block_sums<<<optimized_blocks_per_grid, OPTIMIZED_THREADS>>>(
        (const float *)data->device[X], block_sums, data->shape.n);
    CUDA_CHECK_LAUNCH();
    reduce_to_block_sums<<<1, FINAL_PASS_THREADS>>>(block_sums, (float *)data->device[SUM],
                                                    optimized_blocks_per_grid);
    CUDA_CHECK_LAUNCH();
}

static void run_last_block(const wb_data *data)
{
    reduce_last_block<<<optimized_blocks_per_grid, OPTIMIZED_THREADS>>>(
        (const float *)data->device[X], (float *)data->device[PARTIALS],
        (float *)data->device[SUM], data->shape.n);
    CUDA_CHECK_LAUNCH();
}

/* CUB asks for its scratch space ("temporary storage") first: prepare() did
 * that once, so the timed call is the reduction alone. */
static void run_cub(const wb_data *data)
{
#ifndef CUDA_EMULATION
    CUDA_CHECK(cub::DeviceReduce::Sum(cub_temp_storage, cub_temp_bytes,
                                      (const float *)data->device[X], (float *)data->device[SUM],
                                      data->shape.n));
#endif
}

static const char *cub_skip_reason(const wb_device *device)
{
    return device->emulated ? "CUB is not part of the CPU emulator" : NULL;
}

/* Once per run, before any timing: a grid that fills every SM as far as
 * occupancy allows and no bigger than the float4s to go round, and CUB's
 * temporary storage (kept until the program ends). */
static void prepare(const wb_data *data)
{
    int blocks_per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, reduce_optimized,
                                                             OPTIMIZED_THREADS, 0));
    long long filling_grid = (long long)blocks_per_sm * data->device_info->prop.multiProcessorCount;
    long long needed = (data->shape.n / 4 + OPTIMIZED_THREADS - 1) / OPTIMIZED_THREADS;
    long long blocks = needed < filling_grid ? needed : filling_grid;
    /* at least one block, and no more partial sums than the scratch buffer holds */
    long long room = (long long)(data->bytes[PARTIALS] / sizeof(float));
    optimized_blocks_per_grid = (int)(blocks < 1 ? 1 : blocks < room ? blocks : room);
#ifndef CUDA_EMULATION
    CUDA_CHECK(cub::DeviceReduce::Sum(NULL, cub_temp_bytes, (const float *)data->device[X],
                                      (float *)data->device[SUM], data->shape.n));
    CUDA_CHECK(cudaMalloc(&cub_temp_storage, cub_temp_bytes ? cub_temp_bytes : 1));
#endif
}

/* ---- tolerances: how far each order of additions may stray ------------------
 *
 * A float sum whose longest chain of dependent additions is `depth` long is
 * within depth x 2^-24 x sum |x_i| of the exact sum (wb_sum_tolerance, after
 * Higham). The reference is the exact sum rounded to float, off by at most
 * 2^-24 |sum| <= 2^-24 sum |x_i| more: one more level. Each variant's depth:
 *   naive        n: the atomics form one chain, in an order nobody chose
 *   tree passes  log2(elements per block) per pass, over all passes
 *   grid-stride  n / (4 x threads in the grid) float4 steps per thread, plus
 *                2 inside a float4, 1 for the tail, log2(threads per block),
 *                and the blocks' sums: a chain of atomics (optimized) or a
 *                second pass no longer than that (fixed-order)
 * With all inputs positive (the default input is in [0, 1]), sum |x_i| is
 * the sum itself and the bound is a relative one: depth x 6e-8.
 * A bound is a check only while it is smaller than the sum: naive's reaches
 * the sum from n = 2^24 on, and then any result from 0 to twice the sum
 * passes. The bound stays the true one; common/ says under the table that
 * such a PASS checks nothing, and what the variant returned. */
#define REFERENCE_ROUNDING_DEPTH 1

static double sum_of_magnitudes(const wb_data *data)
{
    const float *x = (const float *)data->host[X];
    double total = 0.0;
#pragma omp parallel for reduction(+ : total) schedule(static)
    for (long long i = 0; i < data->shape.n; i++)
        total += fabs((double)x[i]);
    return total;
}

static void widen_to_depth(const wb_data *data, double depth, double *atol, double *rtol)
{
    *atol = wb_sum_tolerance(depth + REFERENCE_ROUNDING_DEPTH, sum_of_magnitudes(data));
    *rtol = 0.0;
}

static double tree_depth(long long n, int elements_per_block)
{
    double depth = 0.0, levels = log2((double)elements_per_block);
    for (long long count = n; count > 1; count = (count + elements_per_block - 1) / elements_per_block)
        depth += levels;
    return depth;
}

static double grid_stride_depth(long long n, long long blocks, int threads_per_block)
{
    double per_thread = ceil((double)n / (4.0 * blocks * threads_per_block)) + 2 + 1;
    return per_thread + log2((double)threads_per_block) + blocks;
}

static void widen_naive(const wb_data *data, double *atol, double *rtol)
{
    widen_to_depth(data, (double)data->shape.n, atol, rtol);
}

static void widen_one_block_tree(const wb_data *data, double *atol, double *rtol)
{
    widen_to_depth(data, tree_depth(data->shape.n, TREE_THREADS), atol, rtol);
}

static void widen_two_element_tree(const wb_data *data, double *atol, double *rtol)
{
    widen_to_depth(data, tree_depth(data->shape.n, 2 * TREE_THREADS), atol, rtol);
}

static void widen_grid_stride(const wb_data *data, double *atol, double *rtol)
{
    widen_to_depth(data, grid_stride_depth(data->shape.n, optimized_blocks_per_grid,
                                           OPTIMIZED_THREADS), atol, rtol);
}

/* CUB's order is its own: bounded as a grid-stride sum over one block per SM,
 * a smaller grid (so longer chains per thread) than CUB launches. */
static void widen_cub(const wb_data *data, double *atol, double *rtol)
{
    widen_to_depth(data, grid_stride_depth(data->shape.n,
                                           data->device_info->prop.multiProcessorCount,
                                           OPTIMIZED_THREADS), atol, rtol);
}

/* ---- special values in the input: --nan-at, --inf-at ----------------------- */

#define NO_INDEX (-1)
static long long nan_index = NO_INDEX, inf_index = NO_INDEX;

/* Uniform in [0, 1] like any input, then a NaN and an Inf where asked:
 * the sum of anything with a NaN is NaN, with +Inf it is +Inf (with both, NaN),
 * in every order, so every variant must give what the reference gives. */
static void fill_x(void *host, long long count, const wb_shape *shape, unsigned long long seed)
{
    float *x = (float *)host;
    wb_fill_random(x, count, 0.0f, 1.0f, seed);
    if (nan_index != NO_INDEX)
        x[nan_index] = NAN;
    if (inf_index != NO_INDEX)
        x[inf_index] = INFINITY;
}

/* After the command line: an index for --nan-at or --inf-at must be inside x. */
static void check_special_indices(wb_shape *shape)
{
    const char *flags[] = {"--nan-at", "--inf-at"};
    long long indices[] = {nan_index, inf_index};
    for (int f = 0; f < 2; f++) {
        if (indices[f] >= shape->n) {
            fprintf(stderr, "lesson05: %s %lld is past the end of x (n = %lld) (see --help)\n",
                    flags[f], indices[f], shape->n);
            exit(WB_EXIT_USAGE);
        }
    }
}

/* ---- the declaration: what common/ runs, checks and times ----------------- */

static long long vector_length(const wb_shape *shape) { return shape->n; }
static long long one(const wb_shape *shape) { return 1; }
/* The tree passes' partial sums, in two halves: the first pass writes at
 * most n / TREE_THREADS of them (rounded up) into one half, the next reads
 * them and writes into the other. */
static long long partial_sums(const wb_shape *shape)
{
    return 2 * ((shape->n + TREE_THREADS - 1) / TREE_THREADS);
}
/* read x once: 4 bytes and one addition per element */
static double bytes_read(const wb_shape *shape) { return sizeof(float) * (double)shape->n; }
static double additions(const wb_shape *shape) { return (double)shape->n; }

static const wb_buffer buffers[] = {
    {.name = "x", .type = WB_FLOAT, .role = WB_INPUT, .count = vector_length, .fill = fill_x},
    {.name = "sum", .type = WB_FLOAT, .role = WB_OUTPUT, .count = one},
    {.name = "partials", .type = WB_FLOAT, .role = WB_SCRATCH, .count = partial_sums},
};

#define SUM_ORDER(why_text, widen_function) {.why = why_text, .widen = widen_function}

static const wb_variant variants[] = {
    {.name = "cpu", .description = "OpenMP, summed in double: the reference",
     .scope = WB_HOST, .run = run_cpu},
    {.name = "naive", .description = "one atomicAdd per element, all on one address",
     .scope = WB_KERNEL, .run = run_naive,
     .tolerance = SUM_ORDER("one chain of n additions", widen_naive)},
    {.name = "interleaved", .description = "shared-memory tree per block, divergent (tid % 2s)",
     .scope = WB_KERNEL, .run = run_interleaved,
     .tolerance = SUM_ORDER("a tree of 256 per pass", widen_one_block_tree)},
    {.name = "strided", .description = "the tree without divergence, bank conflicts (2s * tid)",
     .scope = WB_KERNEL, .run = run_strided,
     .tolerance = SUM_ORDER("a tree of 256 per pass", widen_one_block_tree)},
    {.name = "sequential", .description = "the tree with contiguous working threads",
     .scope = WB_KERNEL, .run = run_sequential,
     .tolerance = SUM_ORDER("a tree of 256 per pass", widen_one_block_tree)},
    {.name = "first-add", .description = "two elements per thread added while loading",
     .scope = WB_KERNEL, .run = run_first_add,
     .tolerance = SUM_ORDER("a tree of 512 per pass", widen_two_element_tree)},
    {.name = "last-warp", .description = "first-add, the last 64 sums by warp shuffles",
     .scope = WB_KERNEL, .run = run_last_warp,
     .tolerance = SUM_ORDER("a tree of 512 per pass", widen_two_element_tree)},
    {.name = "optimized", .description = "grid-stride float4, shuffles, one atomic per block",
     .scope = WB_KERNEL, .run = run_optimized,
     .tolerance = SUM_ORDER("per-thread chains, a tree, atomics", widen_grid_stride)},
    {.name = "fixed-order", .description = "optimized with a second pass: the same bits every run",
     .scope = WB_KERNEL, .run = run_fixed_order,
     .tolerance = SUM_ORDER("per-thread chains, two trees", widen_grid_stride)},
    {.name = "last-block", .description = "fixed-order in one launch: the last block adds the sums",
     .scope = WB_KERNEL, .run = run_last_block,
     .tolerance = SUM_ORDER("per-thread chains, two trees", widen_grid_stride)},
    {.name = "cub", .description = "cub::DeviceReduce::Sum", .scope = WB_LIBRARY,
     .run = run_cub, .tolerance = SUM_ORDER("CUB's own order", widen_cub),
     .skip_reason = cub_skip_reason},
};

static int pi_requested; /* --pi: the Monte Carlo lesson below instead */

static const wb_option options[] = {
    {.flag = "--pi", .help = "estimate pi by Monte Carlo instead (./lesson05 --pi --help)",
     .present = &pi_requested},
    /* "(default: none)": the help says what the default means, instead of
     * showing NO_INDEX's -1 */
    {.flag = "--nan-at", .help = "make x[N] a NaN: every variant must give NaN (default: none)",
     .value = &nan_index, .min = 0, .max = 1LL << 40},
    {.flag = "--inf-at", .help = "make x[N] +Inf: every variant must give +Inf (default: none)",
     .value = &inf_index, .min = 0, .max = 1LL << 40},
};

static const wb_lesson sum_lesson = {
    .name = "lesson05",
    .title = "reduction: the sum of n floats",
    .rank = 1,
    .size_meaning = "elements to sum",
    /* small enough that the emulator's runs of the tree kernels take seconds;
     * on a GPU, try -n 256Mi (2^28, the size of the napkin math above) */
    .default_size = "64k",
    /* 2^38 elements (1 TB) is beyond any GPU's memory; the tree kernels'
     * grids, n / 256 = 2^30 blocks at most, stay below gridDim.x's 2^31 - 1 */
    .max_dimension = 1LL << 38,
    .max_elements = 1LL << 38,
    .buffers = buffers, .buffer_count = WB_COUNT(buffers),
    .variants = variants, .variant_count = WB_COUNT(variants),
    .bytes = bytes_read,
    .flops = additions,
    /* cudaMemcpy of the same 4n bytes (2n read, 2n written): the bandwidth a
     * plain copy gets, the bar a read-only kernel should reach */
    .copy_anchor = 1,
    .options = options, .option_count = WB_COUNT(options),
    .prepare = prepare,
    .input_shape = check_special_indices,
};

/* ==== Monte Carlo pi ========================================================
 *
 * Throw N points uniformly into the unit square; the fraction inside the
 * quarter circle x^2 + y^2 < 1 tends to pi / 4. The estimate 4 * hits / N is a
 * binomial count: its standard deviation is 4 sqrt(p (1 - p) / N) with
 * p = pi / 4, about 1.64 / sqrt(N): 100x more points for one more digit.
 *
 * The random numbers come from a counter-based generator: point i is a hash of
 * (key, i), so any thread can make point i without the ones before it, and
 * the CPU, the GPU and the emulator make the same points. The test is done in
 * whole numbers (x, y of 31 bits, x^2 + y^2 < 2^62 in 64 bits), so no rounding
 * and no fused multiply-add can move a point across the circle: the CPU's and
 * the GPU's hit counts must agree exactly.
 */

/* splitmix64's finalizer (Steele, Lea and Flood, 2014): a 64-bit mix in which
 * every input bit changes about half the output bits. */
__host__ __device__ inline unsigned long long mix64(unsigned long long z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Point i: the hash's top 31 bits are x, its low 31 bits y, both in [0, 2^31). */
#define COORDINATE_BITS 31
#define COORDINATE_MASK ((1ull << COORDINATE_BITS) - 1)
/* the radius 2^31, squared */
#define RADIUS_SQUARED (1ull << (2 * COORDINATE_BITS))
/* the golden-ratio increment of splitmix64, spreading consecutive counters */
#define COUNTER_STEP 0x9E3779B97F4A7C15ull

__host__ __device__ inline unsigned int point_inside(unsigned long long key, long long i)
{
    unsigned long long bits = mix64(key + (unsigned long long)(i + 1) * COUNTER_STEP);
    unsigned long long x = bits >> (64 - COORDINATE_BITS), y = bits & COORDINATE_MASK;
    return x * x + y * y < RADIUS_SQUARED;
}

static unsigned long long pi_key(const unsigned int *key_words)
{
    return (unsigned long long)key_words[1] << 32 | key_words[0];
}

static void pi_cpu(unsigned long long key, unsigned int *hits, long long points)
{
    unsigned long long count = 0;
#pragma omp parallel for reduction(+ : count) schedule(static)
    for (long long i = 0; i < points; i++)
        count += point_inside(key, i);
    *hits = (unsigned int)count;
}

/* naive: one thread per point, an atomicAdd per hit (pi/4 of them). */
__global__ void pi_naive(unsigned long long key, unsigned int *hits, long long points)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < points && point_inside(key, i))
        atomicAdd(hits, 1u);
}

/* optimized: each thread counts its points in a register (grid-stride), the
 * block sums the counts with shuffles, one atomicAdd per block. Whole numbers
 * add exactly in any order, so the atomics cost no reproducibility here. */
__global__ void pi_optimized(unsigned long long key, unsigned int *hits, long long points)
{
    long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long stride = (long long)gridDim.x * blockDim.x;
    unsigned int count = 0;
    for (long long i = first; i < points; i += stride)
        count += point_inside(key, i);
    count = block_sum(count);
    if (threadIdx.x == 0)
        atomicAdd(hits, count);
}

enum { PI_KEY, PI_HITS };
static int pi_blocks_per_grid;

static void run_pi_cpu(const wb_data *data)
{
    pi_cpu(pi_key((const unsigned int *)data->host[PI_KEY]), (unsigned int *)data->host[PI_HITS],
           data->shape.n);
}

static void run_pi_naive(const wb_data *data)
{
    unsigned int *d_hits = (unsigned int *)data->device[PI_HITS];
    CUDA_CHECK(cudaMemsetAsync(d_hits, 0, sizeof(unsigned int)));
    long long points = data->shape.n;
    unsigned int blocks = (unsigned int)((points + OPTIMIZED_THREADS - 1) / OPTIMIZED_THREADS);
    pi_naive<<<blocks, OPTIMIZED_THREADS>>>(pi_key((const unsigned int *)data->host[PI_KEY]),
                                            d_hits, points);
    CUDA_CHECK_LAUNCH();
}

static void run_pi_optimized(const wb_data *data)
{
    unsigned int *d_hits = (unsigned int *)data->device[PI_HITS];
    CUDA_CHECK(cudaMemsetAsync(d_hits, 0, sizeof(unsigned int)));
    pi_optimized<<<pi_blocks_per_grid, OPTIMIZED_THREADS>>>(
        pi_key((const unsigned int *)data->host[PI_KEY]), d_hits, data->shape.n);
    CUDA_CHECK_LAUNCH();
}

static void prepare_pi(const wb_data *data)
{
    int blocks_per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, pi_optimized,
                                                             OPTIMIZED_THREADS, 0));
    long long filling_grid = (long long)blocks_per_sm * data->device_info->prop.multiProcessorCount;
    long long needed = (data->shape.n + OPTIMIZED_THREADS - 1) / OPTIMIZED_THREADS;
    pi_blocks_per_grid = (int)(needed < filling_grid ? needed : filling_grid);
}

/* The key of the generator, from --seed: two 32-bit words. */
static void fill_pi_key(void *host, long long count, const wb_shape *shape,
                        unsigned long long seed)
{
    unsigned long long key = mix64(seed);
    ((unsigned int *)host)[0] = (unsigned int)key;
    ((unsigned int *)host)[1] = (unsigned int)(key >> 32);
}

/* The expected spread of 4 * hits / N, in units of 1 / sqrt(N). */
#define QUARTER_PI 0.78539816339744831
static void report_pi(const wb_data *data)
{
    long long points = data->shape.n;
    unsigned int hits = *(const unsigned int *)data->host[PI_HITS];
    double estimate = 4.0 * hits / points;
    double sigma = 4.0 * sqrt(QUARTER_PI * (1.0 - QUARTER_PI) / points);
    /* under the table; on stderr with --csv, so that the CSV stays one table */
    wb_note("pi       %u of %lld points inside: pi ~ %.9f, error %.3g; "
            "expected 1/sqrt(N) band +-%.3g (%.1f sigma)", hits, points, estimate,
            estimate - 4.0 * QUARTER_PI, sigma, fabs(estimate - 4.0 * QUARTER_PI) / sigma);
}

static long long two(const wb_shape *shape) { return 2; }
static const wb_option pi_options[] = {
    {.flag = "--pi", .help = "this Monte Carlo lesson (without it: the sum of n floats)",
     .present = &pi_requested},
};
/* points are made, not read: 8 bytes of key in, 4 bytes of count out */
static double pi_bytes(const wb_shape *shape) { return 12.0; }

static const wb_buffer pi_buffers[] = {
    {.name = "key", .type = WB_UINT, .role = WB_INPUT, .count = two, .fill = fill_pi_key},
    {.name = "hits", .type = WB_UINT, .role = WB_OUTPUT, .count = one},
};

static const wb_variant pi_variants[] = {
    {.name = "cpu", .description = "OpenMP, a hit count per thread: the reference",
     .scope = WB_HOST, .run = run_pi_cpu},
    {.name = "naive", .description = "one thread per point, an atomicAdd per hit",
     .scope = WB_KERNEL, .run = run_pi_naive},
    {.name = "optimized", .description = "grid-stride counts, block sum, one atomic per block",
     .scope = WB_KERNEL, .run = run_pi_optimized},
};

static const wb_lesson pi_lesson = {
    .name = "lesson05",
    .title = "Monte Carlo pi: hits of N random points in a quarter circle",
    .rank = 1,
    .size_meaning = "random points",
    .default_size = "1M",
    /* the hit count is an unsigned int: fewer than 2^32 points */
    .max_dimension = 4000000000LL,
    .max_elements = 4000000000LL,
    .buffers = pi_buffers, .buffer_count = WB_COUNT(pi_buffers),
    .variants = pi_variants, .variant_count = WB_COUNT(pi_variants),
    .bytes = pi_bytes,
    .options = pi_options, .option_count = WB_COUNT(pi_options),
    .prepare = prepare_pi,
    .finish = report_pi,
};

/* --pi anywhere on the command line picks the Monte Carlo lesson. */
static const wb_lesson *chosen_lesson(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--pi") == 0)
            return &pi_lesson;
    return &sum_lesson;
}

int main(int argc, char **argv)
{
    return wb_main(chosen_lesson(argc, argv), argc, argv);
}
