/*
 * Lesson 01: grid indexing with vector add, c[i] = a[i] + b[i].
 *
 * Build and run (from the top of the repository):
 *     make lesson01 && ./lesson01
 *     ./lesson01 -n 1M --reps 20        # another size, more repetitions
 *     ./lesson01 --help                 # every option
 *
 * Three versions of the same loop:
 *   cpu        the plain C loop, spread over every core with OpenMP
 *   naive      one GPU thread per element; a, b copied to the GPU and c back
 *              on every call, as a first port of the loop would do
 *   optimized  data stays on the GPU; a grid-stride loop over float4 (16-byte)
 *              loads, with a launch sized from the GPU's SM count
 *
 * Napkin math for the default n = 10M floats:
 *   bytes that must move:  read a and b, write c = 3 x 4 B x 10M = 120 MB
 *   flops:                 10M additions, 1 per 12 bytes: far too few to keep
 *                          any processor's arithmetic busy, so memory bandwidth
 *                          is the limit everywhere.
 *   GPU kernel at peak:    120 MB / (the peak GB/s in the header). A GPU with
 *                          2,000-3,000 GB/s needs 40-60 us.
 *   copies over PCIe:      the naive version also moves a and b to the GPU and
 *                          c back (120 MB) over a link of some 10-50 GB/s:
 *                          2.5-12 ms, a hundred times the kernel. That is why
 *                          "GPU vector add" often loses to the CPU end to end,
 *                          and why real programs keep their data on the GPU.
 *   CPU:                   the same 120 MB through host memory at 10-100 GB/s.
 * The table shows kernel-only and end-to-end times side by side, so you can
 * see where the time goes on your machine.
 */
#include "workbook.h"

/* 256 threads = 8 warps of 32: a common first choice, large enough to hide
 * memory latency, small enough that several blocks fit on one SM. The naive
 * kernel's block size can be changed with --threads-per-block. */
#define NAIVE_DEFAULT_THREADS_PER_BLOCK 256
#define OPTIMIZED_THREADS_PER_BLOCK 256

/* ---- CPU reference ------------------------------------------------------ */

static void vector_add_cpu(const float *a, const float *b, float *c, long long n)
{
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < n; i++)
        c[i] = a[i] + b[i];
}

/* ---- kernels ------------------------------------------------------------ */

/* One thread per element. The grid has at least n threads, so the last block
 * may stick out past the end of the arrays: the bounds check keeps its extra
 * threads from writing outside c. The index is 64-bit: blockIdx.x * blockDim.x
 * is 32-bit unsigned arithmetic, which wraps around beyond 2^32 elements. */
__global__ void vector_add_naive(const float *a, const float *b, float *c, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

/* A fixed grid, just big enough to fill the GPU, walks over the whole array:
 * each thread starts at its global index and jumps by the number of threads
 * in the grid. Consecutive threads still touch consecutive addresses on every
 * step, so each warp's loads stay coalesced.
 *
 * Each step moves a float4: one 16-byte load instruction instead of four
 * 4-byte ones, so fewer instructions are in flight for the same bytes.
 * cudaMalloc returns memory aligned to at least 256 bytes, which makes the
 * float4 view of a, b and c legal; the n % 4 elements past the last whole
 * float4 are done one at a time by the first threads. */
__global__ void vector_add_optimized(const float *__restrict__ a, const float *__restrict__ b,
                                     float *__restrict__ c, long long n)
{
    long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long stride = (long long)gridDim.x * blockDim.x;

    long long n4 = n / 4;
    const float4 *a4 = (const float4 *)a;
    const float4 *b4 = (const float4 *)b;
    float4 *c4 = (float4 *)c;
    for (long long i = first; i < n4; i += stride) {
        float4 x = a4[i], y = b4[i];
        c4[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }

    for (long long i = 4 * n4 + first; i < n; i += stride)
        c[i] = a[i] + b[i];
}

/* ---- launchers: one short function per GPU variant ------------------------ */

/* Buffer indices, in the order of the declaration below. */
enum { A, B, C };

static long long naive_threads_per_block = NAIVE_DEFAULT_THREADS_PER_BLOCK;
static int optimized_blocks_per_grid;

static void run_cpu(const wb_data *data)
{
    vector_add_cpu((const float *)data->host[A], (const float *)data->host[B],
                   (float *)data->host[C], data->shape.n);
}

static void run_naive(const wb_data *data)
{
    long long n = data->shape.n;
    /* round up, so that the last partial block still gets launched; at most
     * 2^30 blocks (max_elements below sees to it), so the cast is exact */
    unsigned int blocks_per_grid =
        (unsigned int)((n + naive_threads_per_block - 1) / naive_threads_per_block);
    vector_add_naive<<<blocks_per_grid, (int)naive_threads_per_block>>>(
        (const float *)data->device[A], (const float *)data->device[B], (float *)data->device[C],
        n);
    CUDA_CHECK_LAUNCH();
}

static void run_optimized(const wb_data *data)
{
    vector_add_optimized<<<optimized_blocks_per_grid, OPTIMIZED_THREADS_PER_BLOCK>>>(
        (const float *)data->device[A], (const float *)data->device[B], (float *)data->device[C],
        data->shape.n);
    CUDA_CHECK_LAUNCH();
}

/* Once per run, before any timing: enough blocks to fill every SM as far as
 * occupancy allows, and no more than there are float4s to go round; the
 * grid-stride loop does the rest. */
static void prepare(const wb_data *data)
{
    int blocks_per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &blocks_per_sm, vector_add_optimized, OPTIMIZED_THREADS_PER_BLOCK, 0));
    long long filling_grid = (long long)blocks_per_sm * data->device_info->prop.multiProcessorCount;
    long long needed =
        (data->shape.n / 4 + OPTIMIZED_THREADS_PER_BLOCK - 1) / OPTIMIZED_THREADS_PER_BLOCK;
    long long blocks = needed < filling_grid ? needed : filling_grid;
    optimized_blocks_per_grid = blocks > 0 ? (int)blocks : 1;
}

/* ---- the declaration: what common/ runs, checks and times ----------------- */

static long long vector_length(const wb_shape *shape) { return shape->n; }
/* read a and b, write c: 12 bytes and one addition per element */
static double bytes_moved(const wb_shape *shape) { return 3.0 * sizeof(float) * shape->n; }
static double additions(const wb_shape *shape) { return (double)shape->n; }

static const wb_buffer buffers[] = {
    {.name = "a", .type = WB_FLOAT, .role = WB_INPUT, .count = vector_length, .low = -1, .high = 1},
    {.name = "b", .type = WB_FLOAT, .role = WB_INPUT, .count = vector_length, .low = -1, .high = 1},
    {.name = "c", .type = WB_FLOAT, .role = WB_OUTPUT, .count = vector_length},
};

static const wb_variant variants[] = {
    {.name = "cpu", .description = "the C loop on every core (OpenMP): the reference",
     .scope = WB_HOST, .run = run_cpu},
    {.name = "naive", .description = "one thread per element, a grid as long as the array",
     .scope = WB_KERNEL | WB_END_TO_END, .run = run_naive},
    {.name = "optimized", .description = "grid-stride loop over float4, a grid that fills the GPU",
     .scope = WB_KERNEL | WB_END_TO_END, .run = run_optimized},
};

/* At least one warp (32) per block, at most the 1024 threads a block can have. */
static const wb_option options[] = {
    {.flag = "--threads-per-block", .help = "threads per block of the naive kernel",
     .value = &naive_threads_per_block, .min = 32, .max = 1024},
};

static const wb_lesson lesson = {
    .name = "lesson01",
    .title = "vector add: c = a + b, float32",
    .rank = 1,
    .size_meaning = "elements per vector",
    .default_size = "10M",
    /* 32 Gi elements, 384 GB of arrays: beyond any GPU's memory, and the naive
     * grid, n / 32 = 2^30 blocks at most, stays below gridDim.x's limit of 2^31 - 1 */
    .max_dimension = 1LL << 35,
    .max_elements = 1LL << 35,
    .buffers = buffers, .buffer_count = WB_COUNT(buffers),
    .variants = variants, .variant_count = WB_COUNT(variants),
    .bytes = bytes_moved,
    .flops = additions,
    .copy_anchor = 1,
    .options = options, .option_count = WB_COUNT(options),
    .prepare = prepare,
};

int main(int argc, char **argv)
{
    return wb_main(&lesson, argc, argv);
}
