/*
 * Lesson 06: occupancy, with the "simple for loop test":
 *     result[i] = sum over j < inner of i * j * 0.1,   in double precision,
 * for 10,000 results of 10,000 terms each: the shape -n RESULTSxTERMS.
 *
 * Build and run (from the top of the repository):
 *     make lesson06 && ./lesson06         # 10,000 results of 1,000 terms
 *     ./lesson06 -n 10kx10k               # the article's full size
 *     ./lesson06 --threads-per-block 128  # another block size for naive and optimized
 *     sh plots/block-sweep.sh ./lesson06 plots/out -n 10kx10k   # 32..1024, charted
 *     ./lesson06 --help                   # every option
 *     CUDA_EMU_DEVICE=t4 ./lesson06       # emulator: a T4's 40 SMs, its warnings
 * The default has fewer terms than the article's so that the CPU emulator
 * (make BACKEND=emu) finishes in a second; the grid depends on the results
 * alone, so the launches are the article's. The warnings under the table
 * weigh them against the device; the emulated device is an H100 SXM's 132
 * SMs by default, whatever the number of cores, so ./lesson06 prints the
 * warnings an H100 would give (CUDA_EMU_DEVICE picks another GPU).
 *
 * A port of this loop to Numba launched 256 threads per block, one thread per
 * result: 40 blocks. Numba warned "Grid size 40 will likely result in GPU
 * under-utilization due to low occupancy"; 64 threads per block (157 blocks)
 * made the warning go away. CUDA C warns about nothing, so common/ does
 * (read the lines under the table). Six versions:
 *   cpu         the double loop on every core (OpenMP): the reference
 *   naive       one thread per result, 256 threads per block: 40 blocks for
 *               an H100's 132 SMs, so 92 SMs have nothing to do
 *   blocks64    the same kernel with 64 threads per block: 157 blocks, one
 *               per SM at least, yet only 10,000 threads on a GPU that holds
 *               270,336 at once (132 SMs x 2,048)
 *   optimized   one warp per result: its 32 threads split the inner loop and
 *               add their partial sums with warp shuffles, so 320,000 threads
 *               are busy; the block size comes from the occupancy API
 *   ilp         one warp per result with 4 independent sums per lane, one
 *               256-thread block per SM: low occupancy on purpose, and the
 *               warnings under the table say so (Volkov's point: see kernel 3)
 *   no-convert  optimized's launch and warps, each lane's i * j carried as a
 *               double from one term to the next, so that no term waits for
 *               the slow conversion (see kernel 2b)
 *
 * Napkin math for the article's 10,000 x 10,000 (-n 10kx10k) on an H100:
 *   work:     10^8 terms, each a 64-bit integer product converted to double,
 *             an FP64 multiply and an FP64 add; 80 kB of results, so memory
 *             does not matter. The conversion is the slow step: 16 per clock
 *             per SM on compute capability 9.0 (CUDA Programming Guide,
 *             throughput table), against 64 for FP64 adds and multiplies.
 *   FP64:     an H100 SXM runs FP64 at half its FP32 rate (~34 TFLOP/s, NVIDIA's
 *             data sheet); a GeForce GPU at 1/64 (compute capability 8.6 and
 *             8.9) or 1/32 (7.5, Turing); lesson06 prints this GPU's ratio.
 *   optimized: all 132 SMs: 10^8 / (132 x 16 x 1.98 GHz) = 24 us.
 *   naive:    40 SMs, 2.56M terms each: 2.56M / 16 / 1.98 GHz = 81 us at best,
 *             and each thread's 10,000 dependent FP64 adds (some 8 cycles
 *             each: 40 us) overlap only with the 7 other warps on its SM.
 *   So optimized should be 3-4x faster than naive, not the 10x a pure latency
 *   argument suggests; lesson 06's chapter says how to measure it.
 *   no-convert: two FP64 operations a term, 64 a clock per SM:
 *             10^8 x 2 / (132 x 64 x 1.98 GHz) = 12 us, some 7x naive's floor.
 */
#include "workbook.h"

#include <stdio.h>

/* The article's first launch: 256 threads per block. */
#define NAIVE_DEFAULT_THREADS_PER_BLOCK 256
/* The article's fix: 64 threads per block, 157 blocks for 10,000 results. */
#define BLOCKS64_THREADS_PER_BLOCK 64
/* a warp is 32 threads on every NVIDIA GPU so far */
#define WARP_SIZE 32
#define FULL_WARP_MASK 0xffffffffu

/* ---- CPU reference ------------------------------------------------------ */

/* One term of the sum. i * j is exact in 64-bit integers; the product with
 * 0.1 rounds once, the same way on the CPU and on the GPU. */
__host__ __device__ static inline double term(long long i, long long j)
{
    return (double)(i * j) * 0.1;
}

static void loop_test_cpu(double *results, long long result_count, long long inner)
{
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < result_count; i++) {
        double sum = 0.0;
        for (long long j = 0; j < inner; j++)
            sum += term(i, j);
        results[i] = sum;
    }
}

/* ---- kernels ------------------------------------------------------------ */

/* 1. One thread per result, as the loop's first port does: the outer loop
 * becomes the grid, the inner loop stays a loop in each thread. Only as many
 * threads as results: 10,000 is far too few to fill a GPU. */
__global__ void loop_thread_per_result(double *results, long long result_count, long long inner)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= result_count)
        return;
    double sum = 0.0;
    for (long long j = 0; j < inner; j++)
        sum += term(i, j);
    results[i] = sum;
}

/* The warps of the grid numbered across the blocks first: warp 0 of every
 * block, then warp 1 of every block, and so on. When the results outnumber
 * the warps, the first warps take a second result; numbered block by block,
 * those would all sit in the first blocks, and so on the first SMs (at
 * 10,000 results on an H100: 49 SMs with 96 results' work each, 76 on
 * average, and every SM's arithmetic is the limit). Numbered this way every
 * block, and every SM, gets its share of them. blockDim.x is a multiple of 32. */
__device__ static long long warp_in_grid(void)
{
    return (long long)(threadIdx.x / WARP_SIZE) * gridDim.x + blockIdx.x;
}

/* 2. One warp per result: the 32 threads of a warp take every 32nd term of
 * the inner loop, so a warp does in 313 steps what one thread did in 10,000,
 * and there are 32 times as many threads to spread over the SMs. The partial
 * sums meet in 5 shuffle steps (16, 8, 4, 2, 1 lanes apart), registers to
 * registers, without shared memory. A grid-stride loop over results lets the
 * grid be sized to the device, not to the problem. */
__global__ void loop_warp_per_result(double *results, long long result_count, long long inner)
{
    int lane = threadIdx.x % WARP_SIZE;
    long long warp = warp_in_grid();
    long long warps_in_grid = (long long)gridDim.x * blockDim.x / WARP_SIZE;
    for (long long i = warp; i < result_count; i += warps_in_grid) {
        double sum = 0.0;
        for (long long j = lane; j < inner; j += WARP_SIZE)
            sum += term(i, j);
        for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2)
            sum += __shfl_down_sync(FULL_WARP_MASK, sum, offset);
        if (lane == 0)
            results[i] = sum;
    }
}

/* 2b. optimized without the conversion. A lane's terms are i x lane,
 * i x (lane + 32), i x (lane + 64), ...: each product is the one before plus
 * 32 x i. Carried as a double, the product stays exact as long as it is
 * below 2^53, and results x terms is at most 2^40 here, so every term is the
 * same double as (double)(i * j), and the sums are optimized's. A term then
 * costs two FP64 instructions, an add for the product and a fused
 * multiply-add for the sum, where optimized converts a 64-bit integer to a
 * double: 64 FP64 operations per clock per SM against 16 conversions, 32
 * terms a clock against 16 (COURSE.md, lesson 06's targets). */
__global__ void loop_warp_per_result_no_convert(double *results, long long result_count,
                                                long long inner)
{
    int lane = threadIdx.x % WARP_SIZE;
    long long warp = warp_in_grid();
    long long warps_in_grid = (long long)gridDim.x * blockDim.x / WARP_SIZE;
    for (long long i = warp; i < result_count; i += warps_in_grid) {
        double product = (double)(i * lane), growth = (double)(i * WARP_SIZE);
        double sum = 0.0;
        for (long long j = lane; j < inner; j += WARP_SIZE) {
            sum += product * 0.1; /* term(i, j), without converting i * j */
            product += growth;
        }
        for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2)
            sum += __shfl_down_sync(FULL_WARP_MASK, sum, offset);
        if (lane == 0)
            results[i] = sum;
    }
}

/* 3. Volkov's point ("Better performance at lower occupancy", GTC 2010):
 * occupancy is a means, not the goal. What hides the latency of an FP64 add
 * (some 8 cycles) is independent work, and it can come from more warps or
 * from more independent additions per warp. Here each lane keeps
 * ILP_ACCUMULATORS partial sums that do not wait for each other, and the
 * launch has one block of ILP_THREADS_PER_BLOCK threads per SM: 8 of 64 warps,
 * 12.5% occupancy on the reference H100 (8 of 48 on compute capability 8.6
 * and 8.9, 8 of 32 on 7.5), and the warnings say so, yet 8 warps x 4 chains
 * keep as many additions in flight as 32 warps with one chain each.
 * __launch_bounds__ promises the compiler no block larger than this, so it
 * may give each thread more registers for the extra sums (the launch with
 * more threads would fail, not silently spill). */
#define ILP_ACCUMULATORS 4
#define ILP_THREADS_PER_BLOCK 256
__global__ void __launch_bounds__(ILP_THREADS_PER_BLOCK)
loop_warp_per_result_ilp(double *results, long long result_count, long long inner)
{
    int lane = threadIdx.x % WARP_SIZE;
    long long warp = warp_in_grid();
    long long warps_in_grid = (long long)gridDim.x * blockDim.x / WARP_SIZE;
    const long long step = (long long)WARP_SIZE * ILP_ACCUMULATORS;
    for (long long i = warp; i < result_count; i += warps_in_grid) {
        double partial[ILP_ACCUMULATORS] = {0.0};
        long long j = lane;
        for (; j + (ILP_ACCUMULATORS - 1) * WARP_SIZE < inner; j += step)
            for (int a = 0; a < ILP_ACCUMULATORS; a++)
                partial[a] += term(i, j + a * WARP_SIZE);
        for (; j < inner; j += WARP_SIZE) /* the last terms, fewer than a step */
            partial[0] += term(i, j);
        double sum = 0.0;
        for (int a = 0; a < ILP_ACCUMULATORS; a++)
            sum += partial[a];
        for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2)
            sum += __shfl_down_sync(FULL_WARP_MASK, sum, offset);
        if (lane == 0)
            results[i] = sum;
    }
}

/* ---- launchers: one short function per GPU variant ------------------------ */

enum { RESULTS };

/* --threads-per-block: 0 until given; then naive and optimized both use it */
static long long chosen_threads_per_block = 0;
static int optimized_threads_per_block, optimized_blocks_per_grid;

static void run_cpu(const wb_data *data)
{
    loop_test_cpu((double *)data->host[RESULTS], data->shape.width, data->shape.height);
}

static void launch_thread_per_result(const wb_data *data, long long threads_per_block)
{
    long long results = data->shape.width;
    unsigned int blocks_per_grid =
        (unsigned int)((results + threads_per_block - 1) / threads_per_block);
    loop_thread_per_result<<<blocks_per_grid, (int)threads_per_block>>>(
        (double *)data->device[RESULTS], results, data->shape.height);
    CUDA_CHECK_LAUNCH();
}

static void run_naive(const wb_data *data)
{
    launch_thread_per_result(data, chosen_threads_per_block ? chosen_threads_per_block
                                                            : NAIVE_DEFAULT_THREADS_PER_BLOCK);
}

static void run_blocks64(const wb_data *data)
{
    launch_thread_per_result(data, BLOCKS64_THREADS_PER_BLOCK);
}

static void run_optimized(const wb_data *data)
{
    loop_warp_per_result<<<optimized_blocks_per_grid, optimized_threads_per_block>>>(
        (double *)data->device[RESULTS], data->shape.width, data->shape.height);
    CUDA_CHECK_LAUNCH();
}

/* optimized's launch, block and grid: the two rows differ by the loop alone */
static void run_no_convert(const wb_data *data)
{
    loop_warp_per_result_no_convert<<<optimized_blocks_per_grid, optimized_threads_per_block>>>(
        (double *)data->device[RESULTS], data->shape.width, data->shape.height);
    CUDA_CHECK_LAUNCH();
}

static void run_ilp(const wb_data *data)
{
    /* one block per SM, or fewer if there are fewer results than warps */
    long long warps_per_block = ILP_THREADS_PER_BLOCK / WARP_SIZE;
    long long needed = (data->shape.width + warps_per_block - 1) / warps_per_block;
    long long sms = data->device_info->prop.multiProcessorCount;
    loop_warp_per_result_ilp<<<(unsigned int)(needed < sms ? needed : sms), ILP_THREADS_PER_BLOCK>>>(
        (double *)data->device[RESULTS], data->shape.width, data->shape.height);
    CUDA_CHECK_LAUNCH();
}

/* Once per run: the occupancy API picks the block size that lets the most
 * threads of this kernel live on one SM at once, and the smallest grid that
 * fills every SM with them (min_grid_size = blocks per SM x SMs). The grid is
 * that, or fewer blocks if there are fewer warps' worth of results. */
static void prepare(const wb_data *data)
{
    int min_grid_size = 0;
    CUDA_CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid_size, &optimized_threads_per_block,
                                                  loop_warp_per_result, 0, 0));
    if (chosen_threads_per_block) {
        /* a sweep over block sizes: one wave of blocks of the given size, in
         * whole warps (each warp owns a result: no warp may span two blocks) */
        optimized_threads_per_block = (int)(chosen_threads_per_block / WARP_SIZE * WARP_SIZE);
        int blocks_per_sm = 0;
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &blocks_per_sm, loop_warp_per_result, optimized_threads_per_block, 0));
        min_grid_size = blocks_per_sm * data->device_info->prop.multiProcessorCount;
    }
    int warps_per_block = optimized_threads_per_block / WARP_SIZE;
    long long needed = (data->shape.width + warps_per_block - 1) / warps_per_block;
    optimized_blocks_per_grid = (int)(needed < min_grid_size ? needed : min_grid_size);

    /* FP64 is this lesson's arithmetic: how fast is it here, next to FP32? */
    int fp32_per_fp64 = data->device_info->fp32_per_fp64;
    if (fp32_per_fp64 > 0) {
        /* under the emulator, the GPU it models; the times are still the CPU's */
        fprintf(stderr, "lesson06: %s runs FP64 at 1/%d of its FP32 rate%s\n",
                data->device_info->emulated ? "the modelled GPU" : "this device", fp32_per_fp64,
                data->device_info->emulated ? " (the times here are the CPU's)" : "");
    } else {
        /* two lines: the table around them stays within 100 columns */
        fprintf(stderr, "lesson06: the FP64 rate is not reported by this device;\n  a data-centre "
                "GPU (A100, H100) runs FP64 at 1/2 of its FP32 rate, a GeForce at 1/64 (Turing 1/32)\n");
    }
    /* plots/block-sweep.sh marks the choice on its chart from this line */
    fprintf(stderr, "lesson06: optimized runs %d block%s of %d threads (%s)\n",
            optimized_blocks_per_grid, optimized_blocks_per_grid == 1 ? "" : "s",
            optimized_threads_per_block,
            chosen_threads_per_block ? "--threads-per-block" : "the occupancy API's choice");
}

/* ---- the declaration: what common/ runs, checks and times ----------------- */

/* width: the results; height: the terms summed into each */
static long long result_count(const wb_shape *shape) { return shape->width; }
/* a mismatch is reported as (0, result) */
static long long one_row(const wb_shape *shape) { return shape->width; }
/* only the results are written: 8 bytes each */
static double bytes_moved(const wb_shape *shape) { return sizeof(double) * (double)shape->width; }
/* one multiply and one add in FP64 per term */
static double flops(const wb_shape *shape) { return 2.0 * (double)shape->elements; }

static const wb_buffer buffers[] = {
    {.name = "results", .type = WB_DOUBLE, .role = WB_OUTPUT, .count = result_count,
     .row_length = one_row},
};

static const wb_variant variants[] = {
    {.name = "cpu", .description = "the double loop on every core (OpenMP): the reference",
     .scope = WB_HOST, .run = run_cpu},
    {.name = "naive", .description = "one thread per result, 256 threads per block (40 blocks)",
     .scope = WB_KERNEL, .run = run_naive},
    {.name = "optimized", .description = "one warp per result, shuffles, occupancy API's block",
     .scope = WB_KERNEL, .run = run_optimized},
    {.name = "blocks64",
     .description = "one thread per result, 64 threads per block (the article's fix)",
     .scope = WB_KERNEL, .run = run_blocks64},
    {.name = "ilp", .description = "warp per result, 4 sums per lane, 1 block per SM: Volkov",
     .scope = WB_KERNEL, .run = run_ilp},
    {.name = "no-convert",
     .description = "optimized, each i * j the one before plus 32 i: no conversion",
     .scope = WB_KERNEL, .run = run_no_convert},
};

static const wb_option options[] = {
    {.flag = "--threads-per-block",
     .help = "naive's and optimized's block size (default 256; the occupancy API's choice)",
     .value = &chosen_threads_per_block, .min = 32, .max = 1024},
};

static const wb_lesson lesson = {
    .name = "lesson06",
    .title = "occupancy: result[i] = sum of i*j*0.1 over j, float64",
    .rank = 2,
    .size_meaning = "results x terms per result",
    .default_size = "10000x1000",
    /* i * j stays exact in 64 bits and the grid below 2^31 blocks: 2^31 each */
    .max_dimension = 1LL << 31,
    /* the CPU reference runs results x terms additions: 2^40 take hours */
    .max_elements = 1LL << 40,
    .buffers = buffers, .buffer_count = WB_COUNT(buffers),
    .variants = variants, .variant_count = WB_COUNT(variants),
    .bytes = bytes_moved,
    .flops = flops,
    /* % of peak is of the FP64 peak: the FP32 one says little of this loop */
    .arithmetic = WB_FP64,
    .options = options, .option_count = WB_COUNT(options),
    .prepare = prepare,
};

int main(int argc, char **argv)
{
    return wb_main(&lesson, argc, argv);
}
