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

#include <string.h>

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

/* ---- launch code -------------------------------------------------------- */

/* Everything one timed call needs: host arrays h_*, device arrays d_*. */
typedef struct {
    const float *h_a, *h_b;
    float *h_c;           /* where GPU results are copied back */
    float *h_c_reference; /* the CPU's result */
    float *d_a, *d_b, *d_c;
    long long n;
    size_t vector_bytes;
    int naive_threads_per_block;
    int optimized_blocks_per_grid;
} vector_add_job;

static void run_cpu(void *context)
{
    vector_add_job *job = (vector_add_job *)context;
    vector_add_cpu(job->h_a, job->h_b, job->h_c_reference, job->n);
}

static void launch_naive(vector_add_job *job)
{
    /* round up, so that the last partial block still gets launched */
    long long blocks_per_grid =
        (job->n + job->naive_threads_per_block - 1) / job->naive_threads_per_block;
    /* at most 2^30 blocks (the size limit in `lesson` below sees to it): the cast is exact */
    vector_add_naive<<<(unsigned int)blocks_per_grid, job->naive_threads_per_block>>>(
        job->d_a, job->d_b, job->d_c, job->n);
    CUDA_CHECK_LAUNCH();
}

static void launch_optimized(vector_add_job *job)
{
    vector_add_optimized<<<job->optimized_blocks_per_grid, OPTIMIZED_THREADS_PER_BLOCK>>>(
        job->d_a, job->d_b, job->d_c, job->n);
    CUDA_CHECK_LAUNCH();
}

static void copy_inputs_to_device(vector_add_job *job)
{
    CUDA_CHECK(cudaMemcpy(job->d_a, job->h_a, job->vector_bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(job->d_b, job->h_b, job->vector_bytes, cudaMemcpyHostToDevice));
}

static void copy_result_to_host(vector_add_job *job)
{
    CUDA_CHECK(cudaMemcpy(job->h_c, job->d_c, job->vector_bytes, cudaMemcpyDeviceToHost));
}

static void run_naive_end_to_end(void *context)
{
    vector_add_job *job = (vector_add_job *)context;
    copy_inputs_to_device(job);
    launch_naive(job);
    copy_result_to_host(job);
}

static void run_naive_kernel(void *context)
{
    launch_naive((vector_add_job *)context);
}

static void run_optimized_kernel(void *context)
{
    launch_optimized((vector_add_job *)context);
}

static void run_optimized_end_to_end(void *context)
{
    vector_add_job *job = (vector_add_job *)context;
    copy_inputs_to_device(job);
    launch_optimized(job);
    copy_result_to_host(job);
}

/* Enough blocks to fill every SM as far as occupancy allows, and no more
 * than there are float4s to go round: the grid-stride loop does the rest. */
static int optimized_grid_size(const wb_device *device, long long n)
{
    int blocks_per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &blocks_per_sm, vector_add_optimized, OPTIMIZED_THREADS_PER_BLOCK, 0));
    long long filling_grid = (long long)blocks_per_sm * device->prop.multiProcessorCount;
    long long needed = (n / 4 + OPTIMIZED_THREADS_PER_BLOCK - 1) / OPTIMIZED_THREADS_PER_BLOCK;
    long long blocks = needed < filling_grid ? needed : filling_grid;
    return blocks > 0 ? (int)blocks : 1;
}

/* Before a GPU variant is timed, run it once on a poisoned output (all bits
 * set reads as NaN) and compare what comes back with the CPU's result. */
static wb_check_result check_variant(vector_add_job *job, wb_function run_once)
{
    memset(job->h_c, 0xFF, job->vector_bytes);
    CUDA_CHECK(cudaMemset(job->d_c, 0xFF, job->vector_bytes));
    copy_inputs_to_device(job);
    run_once(job);
    CUDA_CHECK(cudaDeviceSynchronize());
    copy_result_to_host(job);
    return wb_check(job->h_c_reference, job->h_c, job->n, WB_ATOL, WB_RTOL);
}

static void measure(wb_run *run, vector_add_job *job, const char *variant, const char *scope,
                    wb_function run_once)
{
    /* the check leaves a and b on the device, where the kernel-only runs expect them */
    wb_check_result check = check_variant(job, run_once);
    wb_timing timing = wb_time_device(run, run_once, job);
    wb_report(run, variant, scope, &timing, &check);
}

static long long naive_threads_per_block = NAIVE_DEFAULT_THREADS_PER_BLOCK;

/* At least one warp (32) per block, at most the 1024 threads a block can have. */
static wb_extra_option lesson_options[] = {
    {"--threads-per-block", "threads per block of the naive kernel", &naive_threads_per_block,
     32, 1024},
    {NULL, NULL, NULL, 0, 0},
};

static const wb_lesson lesson = {
    "lesson01", "vector add: c = a + b, float32", "elements per vector",
    10 * 1000 * 1000,
    /* 32 Gi elements, 384 GB of arrays: beyond any GPU's memory, and the naive
     * grid, n / 32 = 2^30 blocks at most, stays below gridDim.x's limit of 2^31 - 1 */
    1LL << 35,
    lesson_options,
};

int main(int argc, char **argv)
{
    wb_options options = wb_parse_options(&lesson, argc, argv);
    long long n = options.size;
    size_t vector_bytes = (size_t)n * sizeof(float);

    wb_problem problem;
    problem.bytes = 3.0 * vector_bytes; /* read a and b, write c */
    problem.flops = (double)n;          /* one addition per element */
    problem.host_bytes = 4 * vector_bytes; /* a, b, the CPU's c, the GPU's c */
    problem.device_bytes = 3 * vector_bytes;
    wb_run run = wb_begin(&lesson, &options, &problem);

    vector_add_job job;
    memset(&job, 0, sizeof job);
    job.n = n;
    job.vector_bytes = vector_bytes;
    job.naive_threads_per_block = (int)naive_threads_per_block;
    float *h_a = (float *)wb_alloc_host(vector_bytes, "a");
    float *h_b = (float *)wb_alloc_host(vector_bytes, "b");
    job.h_c = (float *)wb_alloc_host(vector_bytes, "the GPU's c");
    job.h_c_reference = (float *)wb_alloc_host(vector_bytes, "the CPU's c");
    wb_fill_random(h_a, n, -1.0f, 1.0f, 2 * options.seed);
    wb_fill_random(h_b, n, -1.0f, 1.0f, 2 * options.seed + 1);
    job.h_a = h_a;
    job.h_b = h_b;

    /* The CPU result is the reference for every check, so it is computed
     * even when --only leaves the CPU row out of the table. */
    run_cpu(&job);
    if (options.variants & WB_CPU) {
        wb_timing timing = wb_time_host(&run, run_cpu, &job);
        wb_report(&run, "cpu", "host", &timing, NULL);
    }

    if (run.device.gpu_available) {
        CUDA_CHECK(cudaMalloc(&job.d_a, vector_bytes));
        CUDA_CHECK(cudaMalloc(&job.d_b, vector_bytes));
        CUDA_CHECK(cudaMalloc(&job.d_c, vector_bytes));
        job.optimized_blocks_per_grid = optimized_grid_size(&run.device, n);

        if (options.variants & WB_NAIVE) {
            measure(&run, &job, "naive", "end-to-end", run_naive_end_to_end);
            measure(&run, &job, "naive", "kernel", run_naive_kernel);
        }
        if (options.variants & WB_OPTIMIZED) {
            measure(&run, &job, "optimized", "kernel", run_optimized_kernel);
            measure(&run, &job, "optimized", "end-to-end", run_optimized_end_to_end);
        }
        CUDA_CHECK(cudaFree(job.d_a));
        CUDA_CHECK(cudaFree(job.d_b));
        CUDA_CHECK(cudaFree(job.d_c));
    }

    free(h_a);
    free(h_b);
    free(job.h_c);
    free(job.h_c_reference);
    return wb_finish(&run);
}
