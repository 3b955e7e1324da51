/*
 * Lesson 07: host-device transfers: when the GPU loses, and how to make it win.
 *
 * Build and run (from the top of the repository):
 *     make lesson07 && ./lesson07              # the default part: chain
 *     ./lesson07 --part bandwidth -n 64M       # one part at a time
 *     ./lesson07 --part intensity --degree 256
 *     ./lesson07 --help                        # every option, this part's variants
 *
 * A discrete GPU has its own memory, reached from the CPU over a link (on the
 * reference H100 (SXM), whose host link is PCIe 5.0 x16: 64 GB/s each way on
 * paper, about 55 GB/s measured from pinned memory, 7-10 GB/s from ordinary
 * pageable memory). Six parts,
 * each its own table, show what that link costs and how to hide it:
 *   chain      three element-wise operations: copied in and out around each
 *              (as Numba's @vectorize does on every call given NumPy arrays;
 *              device arrays it leaves on the GPU), kept on the GPU between
 *              launches, fused into one kernel
 *   bandwidth  one copy a row, to the GPU or back, from pageable and from
 *              pinned (page-locked) memory; at -n 1, the latency of a tiny copy;
 *              and both directions at once, what the overlap part asks of the link
 *   intensity  a polynomial of --degree D per element: the work per byte
 *              copied rises with D until the GPU wins even end to end; under
 *              the table, the break-even that this run's rows predict
 *   overlap    copies in, kernel, copies out in --chunks pieces over several
 *              streams, so the two copy engines and the SMs work at once;
 *              under the table, a timeline of each chunk on each engine, and
 *              the time against the ideal, the busiest engine alone
 *   managed    cudaMallocManaged memory, the pages moved by faults on first
 *              touch or ahead of time by cudaMemPrefetchAsync; under the
 *              table, the fault cost per page that this run's rows imply
 *   lucas      L(n) by recursion in one GPU thread: work with no parallelism
 *
 * Napkin math for the reference H100 (SXM), whose host link is PCIe 5.0 x16,
 * float32, n = 64M elements (256 MB a vector):
 *   copy x in and y out, pinned:  512 MB / 55 GB/s = 9.3 ms
 *   the same from pageable memory at 7-10 GB/s:     50-75 ms
 *   a kernel reading x, writing y from HBM:          512 MB / 3,000 GB/s = 0.17 ms
 * So an element-wise kernel is some 50x faster than its own pinned copies.
 * More work per element costs the kernel nothing until it turns compute
 * bound (a polynomial of degree 80 on the reference H100, where 2D FLOP per
 * 8 bytes reach its ridge point, 20 FLOP per byte); the copies pay for
 * themselves only once the CPU's time for that work outgrows them: from a
 * degree of 4 x CPU FLOP/s / link bytes/s, some 73 against pinned copies and
 * 400 against pageable ones for a CPU that sustains 1 TFLOP/s (an assumption:
 * the intensity part measures yours). Unless each element gets that much
 * work, or the data stays on the GPU between operations, the copies decide
 * the end-to-end time. With copies and kernels overlapped, the best possible
 * time is the slowest of the three engines (copy in, compute, copy out), not
 * their sum.
 *
 * Under the CPU emulator a copy is a memcpy and a stream runs its work at
 * once, in order: those rows check that the code is right; only a GPU shows
 * what the link costs and what overlaps, and the lines under each table say
 * when their numbers are CPU emulation times. The emulated device is
 * integrated (it shares the host's memory, as a Jetson's GPU does), and the
 * bandwidth and managed parts say what that means for their rows.
 */
#include "workbook.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>

/* 256 threads = 8 warps: enough to hide memory latency, small enough for
 * several blocks per SM (lesson 01). */
#define THREADS_PER_BLOCK 256
/* Streams of the overlap part: two copy engines and the SMs make three
 * things that can run at once; a fourth stream keeps one chunk queued. */
#define OVERLAP_STREAMS 4
#define MAX_CHUNKS 1024
/* Every coefficient of the polynomial, so that p(x) = sum c x^k stays small
 * for |x| <= INPUT_BOUND: at most 0.5 / (1 - 0.9) = 5 in magnitude. */
#define POLYNOMIAL_COEFFICIENT 0.5f
#define INPUT_BOUND 0.9
#define POLYNOMIAL_SUM_BOUND 5.0
/* L(46) = 4,106,118,243 is the last Lucas number below 2^32. */
#define LARGEST_LUCAS_INDEX 46

static long long degree = 16;
static long long chunk_count = 8;
static const char *part_name = "chain";

/* Buffer indices of every part but bandwidth and lucas: x in, y out. */
enum { X, Y };

/* ---- CPU references ------------------------------------------------------ */

/* Horner's rule: degree multiply-adds per element, 2 x degree FLOP. */
__host__ __device__ static inline float polynomial(float x, int degree)
{
    float y = POLYNOMIAL_COEFFICIENT;
    for (int k = 0; k < degree; k++)
        y = y * x + POLYNOMIAL_COEFFICIENT;
    return y;
}

static void polynomial_cpu(const float *x, float *y, long long n, int degree)
{
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < n; i++)
        y[i] = polynomial(x[i], degree);
}

/* The chain's three steps, each an element-wise function of its input only,
 * as a @vectorize'd function is. */
typedef enum { SCALE, SQUARE, SHIFT, STEP_COUNT } chain_step;

__host__ __device__ static inline float apply_step(float t, chain_step step)
{
    switch (step) {
    case SCALE: return 2.0f * t + 1.0f;
    case SQUARE: return t * t;
    default: return t - 0.5f;
    }
}

static void chain_cpu(const float *x, float *y, long long n)
{
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < n; i++) {
        float t = x[i];
        for (int step = 0; step < STEP_COUNT; step++)
            t = apply_step(t, (chain_step)step);
        y[i] = t;
    }
}

/* L(0) = 2, L(1) = 1, L(n) = L(n-1) + L(n-2): about 1.6^n calls, one after
 * the other. */
__host__ __device__ static unsigned int lucas(int index)
{
    if (index < 2)
        return index == 0 ? 2u : 1u;
    return lucas(index - 1) + lucas(index - 2);
}

/* ---- kernels ------------------------------------------------------------- */

/* One thread per element: every kernel of this lesson is as simple as
 * lesson 01's naive one, because the subject is the copies around it. */
__global__ void polynomial_kernel(const float *x, float *y, long long n, int degree)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = polynomial(x[i], degree);
}

/* One step of the chain: what a @vectorize'd function launches per call. */
__global__ void chain_step_kernel(const float *in, float *out, long long n, chain_step step)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = apply_step(in[i], step);
}

/* All three steps in one pass: x read once, y written once, the
 * intermediates kept in a register. */
__global__ void chain_fused_kernel(const float *x, float *y, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float t = x[i];
        for (int step = 0; step < STEP_COUNT; step++)
            t = apply_step(t, (chain_step)step);
        y[i] = t;
    }
}

/* A single thread: the other 270,000-odd thread slots of an H100 (132 SMs x
 * 2,048) idle, and this one runs at a GPU core's clock without a CPU's
 * branch prediction, out-of-order execution or deep caches. */
__global__ void lucas_one_thread(unsigned int *result, int index)
{
    *result = lucas(index);
}

/* ---- launchers ------------------------------------------------------------ */

static unsigned int blocks_for(long long n)
{
    return (unsigned int)((n + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK);
}

static void launch_polynomial(const float *x, float *y, long long n, cudaStream_t stream)
{
    polynomial_kernel<<<blocks_for(n), THREADS_PER_BLOCK, 0, stream>>>(x, y, n, (int)degree);
    CUDA_CHECK_LAUNCH();
}

static void run_polynomial_cpu(const wb_data *data)
{
    polynomial_cpu((const float *)data->host[X], (float *)data->host[Y], data->shape.n,
                   (int)degree);
}

static void run_polynomial_gpu(const wb_data *data)
{
    launch_polynomial((const float *)data->device[X], (float *)data->device[Y], data->shape.n, 0);
}

/* -- chain -- */

static void run_chain_cpu(const wb_data *data)
{
    chain_cpu((const float *)data->host[X], (float *)data->host[Y], data->shape.n);
}

/* Each step copies its input to the GPU, runs, and copies its result back,
 * as a @vectorize'd function does when given NumPy arrays: it cannot know that
 * its caller will hand the result straight to the next one. Six trips over the
 * link instead of two. */
static void run_chain_vectorize(const wb_data *data)
{
    long long n = data->shape.n;
    size_t bytes = data->bytes[X];
    float *on_gpu = (float *)data->device[Y];
    const float *on_host = (const float *)data->host[X];
    for (int step = 0; step < STEP_COUNT; step++) {
        CUDA_CHECK(cudaMemcpy(on_gpu, on_host, bytes, cudaMemcpyHostToDevice));
        chain_step_kernel<<<blocks_for(n), THREADS_PER_BLOCK>>>(on_gpu, on_gpu, n,
                                                                 (chain_step)step);
        CUDA_CHECK_LAUNCH();
        CUDA_CHECK(cudaMemcpy(data->host[Y], on_gpu, bytes, cudaMemcpyDeviceToHost));
        on_host = (const float *)data->host[Y];
    }
}

/* The same three launches, the intermediates left on the GPU. */
static void run_chain_resident(const wb_data *data)
{
    long long n = data->shape.n;
    const float *in = (const float *)data->device[X];
    float *out = (float *)data->device[Y];
    for (int step = 0; step < STEP_COUNT; step++) {
        chain_step_kernel<<<blocks_for(n), THREADS_PER_BLOCK>>>(in, out, n, (chain_step)step);
        CUDA_CHECK_LAUNCH();
        in = out;
    }
}

static void run_chain_fused(const wb_data *data)
{
    long long n = data->shape.n;
    chain_fused_kernel<<<blocks_for(n), THREADS_PER_BLOCK>>>(
        (const float *)data->device[X], (float *)data->device[Y], n);
    CUDA_CHECK_LAUNCH();
}

/* -- bandwidth -- */

/* The reference: the same bytes copied within host memory. */
static void run_host_copy(const wb_data *data)
{
    memcpy(data->host[Y], data->host[X], data->bytes[X]);
}

/* One direction a row: to the device, x lands in the device's y, which the
 * check copies back untimed (outputs_on_device); ... */
static void run_copy_to_device(const wb_data *data)
{
    CUDA_CHECK(cudaMemcpy(data->device[Y], data->host[X], data->bytes[X], cudaMemcpyHostToDevice));
}

/* ... to the host, the device's x, put there once by prepare_bandwidth, lands
 * in the host's y. */
static void run_copy_to_host(const wb_data *data)
{
    CUDA_CHECK(cudaMemcpy(data->host[Y], data->device[X], data->bytes[X], cudaMemcpyDeviceToHost));
}

/* Both directions at once, each copy on a stream of its own, from pinned
 * memory: x to the device's y (checked, as h2d's), and the device's x to the
 * host's y. The row's time covers both; its GB/s count one copy's bytes, as
 * every row's do, so they read as each direction's rate while the other runs,
 * beside the one-way rows. The overlap part needs exactly this of the link. */
static cudaStream_t both_ways[2];

static void run_copy_both_ways(const wb_data *data)
{
    CUDA_CHECK(cudaMemcpyAsync(data->device[Y], data->host[X], data->bytes[X],
                               cudaMemcpyHostToDevice, both_ways[0]));
    CUDA_CHECK(cudaMemcpyAsync(data->host[Y], data->device[X], data->bytes[X],
                               cudaMemcpyDeviceToHost, both_ways[1]));
    CUDA_CHECK(cudaStreamSynchronize(both_ways[0]));
    CUDA_CHECK(cudaStreamSynchronize(both_ways[1]));
}

static void prepare_bandwidth(const wb_data *data)
{
    CUDA_CHECK(cudaMemcpy(data->device[X], data->host[X], data->bytes[X], cudaMemcpyHostToDevice));
    for (int s = 0; s < 2; s++)
        if (!both_ways[s])
            CUDA_CHECK(cudaStreamCreate(&both_ways[s]));
}

/* Where a note's numbers come from: the emulator's times are the CPU's. */
static const char *measured_on(const wb_data *data)
{
    return data->device_info->emulated ? "from this run's times, CPU emulation, not GPU times"
                                       : "from this run's measurements";
}

/* A copy costs a fixed latency (the call, the driver, the DMA set-up) plus
 * bytes / bandwidth: at a few KB the first term is all there is. */
#define LATENCY_BYTES 4096

static void note_latency(const wb_data *data)
{
    static const char *const directions[] = {"h2d", "d2h", "h2d-pinned", "d2h-pinned"};
    char times[256] = "";
    for (int d = 0; d < WB_COUNT(directions); d++) {
        double ms = wb_measured_ms(directions[d], WB_TRANSFERS);
        if (ms >= 0)
            snprintf(times + strlen(times), sizeof times - strlen(times), "%s%s %.1f us",
                     times[0] ? ", " : "", directions[d], ms * 1e3);
    }
    if (!times[0])
        return;
    if (data->bytes[X] <= LATENCY_BYTES)
        wb_note("latency (%s): a copy of %zu bytes is all fixed cost: %s", measured_on(data),
                data->bytes[X], times);
    else
        wb_note("latency: -n 1 times a copy of 4 bytes, all fixed cost; the larger the copy, "
                "the closer its GB/s to the link's%s", data->device_info->emulated
                ? " (under CPU emulation a copy is a memcpy: there is no link)" : "");
}

/* An integrated GPU (integrated = 1: a Jetson's, and the emulated device)
 * shares the host's memory: there is no link, and nothing needs to move. On
 * many Jetson boards concurrentManagedAccess is 0 (the CPU must not touch
 * managed memory while a kernel runs, and nothing can be prefetched), and on
 * older ones pinned memory is uncached for the CPU. */
static void note_integrated(const wb_data *data)
{
    if (!data->device_info->prop.integrated)
        return;
    if (data->device_info->emulated)
        wb_note("integrated: the emulated device shares the host's memory (integrated = 1), so "
                "its copies are memcpys\n  and its managed pages never move: no row here shows "
                "what a link costs");
    else
        wb_note("integrated: this GPU shares the host's memory (integrated = 1), so a copy to "
                "the device copies memory\n  to the same memory and managed pages never move: "
                "managed or mapped memory skips the copies");
}

/* What the link carried with both directions busy, against each alone. */
static void note_both_ways(const wb_data *data)
{
    double both = wb_measured_ms("both-pinned", WB_TRANSFERS);
    double in = wb_measured_ms("h2d-pinned", WB_TRANSFERS);
    double out = wb_measured_ms("d2h-pinned", WB_TRANSFERS);
    if (both <= 0 || in <= 0 || out <= 0)
        return;
    double mb = data->bytes[X] / 1e6;
    wb_note("both ways (%s): %.4g MB each way in %.4g ms, %.3g GB/s each way and %.3g GB/s\n"
            "  in all, against %.3g GB/s in and %.3g GB/s out one at a time: both took %.0f%% "
            "of the slower one's\n  time alone (100%%: a link that carries both at full speed)",
            measured_on(data), mb, both, mb / both, 2 * mb / both, mb / in, mb / out,
            100.0 * both / fmax(in, out));
}

static void note_bandwidth(const wb_data *data)
{
    note_latency(data);
    note_both_ways(data);
    note_integrated(data);
}

/* -- intensity -- */

/* From the rows of this one run at degree D and size n: the CPU's time and
 * the kernel's grow with D, the copies' do not, so the GPU end to end
 * catches up at D x copies / (cpu - kernel). One size cannot tell a fixed
 * cost from a cost per element; but were all of the GPU's time fixed
 * (launch, copy latency), it would stay put while the CPU's shrinks with n,
 * and the two would meet at n x gpu / cpu. Any of the GPU's time that is per
 * element makes them meet at a smaller size: that is the largest it can be. */
static long long degree_that_pays(double copies_ms, double gain_ms)
{
    double needed = ceil(degree * fmax(copies_ms, 0.0) / gain_ms);
    return needed < 1 ? 1 : (long long)needed;
}

static void note_break_even(const wb_data *data)
{
    double cpu = wb_measured_ms("cpu", WB_HOST), kernel = wb_measured_ms("gpu", WB_KERNEL);
    double end_to_end = wb_measured_ms("gpu", WB_END_TO_END);
    double pinned = wb_measured_ms("gpu-pinned", WB_END_TO_END);
    if (cpu < 0 || kernel < 0 || end_to_end < 0)
        return;
    long long n = data->shape.n;
    wb_note("break-even (%s):", measured_on(data));
    if (kernel >= cpu) {
        wb_note("  the kernel alone takes %.4g ms, the CPU %.4g ms: no degree makes the copies "
                "pay at n = %lld", kernel, cpu, n);
        return;
    }
    double gain = cpu - kernel;
    long long pageable_degree = degree_that_pays(end_to_end - kernel, gain);
    char pinned_text[64] = "";
    if (pinned >= 0)
        snprintf(pinned_text, sizeof pinned_text, " (pinned: %lld)",
                 degree_that_pays(pinned - kernel, gain));
    if (end_to_end < cpu)
        wb_note("  at degree %lld the GPU end to end beats the CPU from n = %lld at most "
                "(here n = %lld: %.4g ms against %.4g ms)", degree,
                (long long)ceil(n * end_to_end / cpu), n, end_to_end, cpu);
    else
        wb_note("  the GPU end to end does not beat the CPU at this size and degree "
                "(%.4g ms against %.4g ms)", end_to_end, cpu);
    /* 2 D FLOP for the 8 bytes of each element copied in and out */
    wb_note("  at n = %lld it does from degree %lld%s: %.3g FLOP per byte copied", n,
            pageable_degree, pinned_text, pageable_degree / 4.0);
}

/* -- overlap -- */

static cudaStream_t overlap_streams[OVERLAP_STREAMS];

/* The three engines a chunk goes through, the lanes of the timeline. */
enum { COPY_IN, COMPUTE, COPY_OUT, ENGINE_COUNT };
static const char *const engine_names[ENGINE_COUNT] = {"copy in", "kernel", "copy out"};
#define TIMELINE_COLUMNS 60
static wb_timeline one_stream_timeline, streams_timeline;

static long long chunk_length(long long n) { return (n + chunk_count - 1) / chunk_count; }

/* Chunk c goes to stream c % stream_count: its copy in, its kernel and its
 * copy out wait for each other, but not for the other streams' chunks, so
 * while chunk c computes, chunk c+1 can come in and chunk c-1 go out. The
 * host memory is pinned: a copy from pageable memory would not be
 * asynchronous at all. Each step is a span of the timeline: two events
 * queued in its stream, which the GPU stamps with the time as it passes them,
 * waiting for nothing. */
static void run_chunks(const wb_data *data, int stream_count, wb_timeline *timeline)
{
    long long n = data->shape.n, chunk = chunk_length(n);
    const float *x = (const float *)data->host[X];
    float *y = (float *)data->host[Y];
    float *d_x = (float *)data->device[X], *d_y = (float *)data->device[Y];
    wb_timeline_reset(timeline);
    for (long long c = 0, begin = 0; begin < n; c++, begin += chunk) {
        long long length = n - begin < chunk ? n - begin : chunk;
        size_t bytes = (size_t)length * sizeof(float);
        cudaStream_t stream = overlap_streams[c % stream_count];
        int span = wb_span_begin(timeline, COPY_IN, (int)c, stream);
        CUDA_CHECK(cudaMemcpyAsync(d_x + begin, x + begin, bytes, cudaMemcpyHostToDevice, stream));
        wb_span_end(timeline, span, stream);
        span = wb_span_begin(timeline, COMPUTE, (int)c, stream);
        launch_polynomial(d_x + begin, d_y + begin, length, stream);
        wb_span_end(timeline, span, stream);
        span = wb_span_begin(timeline, COPY_OUT, (int)c, stream);
        CUDA_CHECK(cudaMemcpyAsync(y + begin, d_y + begin, bytes, cudaMemcpyDeviceToHost, stream));
        wb_span_end(timeline, span, stream);
    }
    CUDA_CHECK(cudaDeviceSynchronize());
}

static void run_overlap_streams(const wb_data *data)
{
    run_chunks(data, OVERLAP_STREAMS, &streams_timeline);
}

/* The same chunks in one stream: each waits for the one before, so every
 * engine works alone, and the timeline shows what each costs by itself. */
static void run_overlap_one_stream(const wb_data *data)
{
    run_chunks(data, 1, &one_stream_timeline);
}

static void prepare_overlap(const wb_data *data)
{
    (void)data;
    for (int s = 0; s < OVERLAP_STREAMS; s++)
        if (!overlap_streams[s])
            CUDA_CHECK(cudaStreamCreate(&overlap_streams[s]));
}

/* With the engines overlapped perfectly, the pipeline takes as long as its
 * busiest engine alone: one-stream's spans measure each. */
static void note_overlap(const wb_data *data)
{
    long long n = data->shape.n, chunks = (n + chunk_length(n) - 1) / chunk_length(n);
    char title[128];
    snprintf(title, sizeof title, "one-stream, %lld chunks on 1 stream", chunks);
    wb_note_timeline(&one_stream_timeline, title, engine_names, ENGINE_COUNT, TIMELINE_COLUMNS);
    snprintf(title, sizeof title, "streams, %lld chunks on %d streams", chunks,
             OVERLAP_STREAMS);
    wb_note_timeline(&streams_timeline, title, engine_names, ENGINE_COUNT, TIMELINE_COLUMNS);
    double alone[WB_TIMELINE_LANES], ideal = 0.0;
    wb_timeline_busy(&one_stream_timeline, alone);
    for (int engine = 0; engine < ENGINE_COUNT; engine++)
        ideal = fmax(ideal, alone[engine]);
    double streams = wb_measured_ms("streams", WB_TRANSFERS);
    if (one_stream_timeline.count == 0 || ideal <= 0 || streams < 0)
        return;
    wb_figure("ideal_ms", ideal, "ms");
    wb_note("overlap (%s):", measured_on(data));
    wb_note("  streams take %.4g ms, %.0f%% of the ideal %.4g ms: the busiest engine alone",
            streams, 100.0 * streams / ideal, ideal);
    wb_note("  (one-stream's spans: copy in %.4g ms, kernel %.4g ms, copy out %.4g ms)",
            alone[COPY_IN], alone[COMPUTE], alone[COPY_OUT]);
    if (data->device_info->emulated)
        wb_note("  CPU emulation runs each stream's work at once, one stream after another:\n"
                "  nothing overlaps here; only a GPU shows its engines at work together");
}

/* -- managed -- */

static float *managed_x, *managed_y;

static void prepare_managed(const wb_data *data)
{
    CUDA_CHECK(cudaMallocManaged(&managed_x, data->bytes[X] ? data->bytes[X] : 1));
    CUDA_CHECK(cudaMallocManaged(&managed_y, data->bytes[Y] ? data->bytes[Y] : 1));
}

/* The CPU writes x into managed memory, so its pages live on the host; the
 * kernel's first touch of a page faults, and the driver moves memory over the
 * link then, in chunks of 64 KB to 2 MB on a discrete GPU, while the kernel
 * waits. */
static void run_managed(const wb_data *data)
{
    memcpy(managed_x, data->host[X], data->bytes[X]);
    launch_polynomial(managed_x, managed_y, data->shape.n, 0);
    CUDA_CHECK(cudaDeviceSynchronize());
    memcpy(data->host[Y], managed_y, data->bytes[Y]);
}

/* The same, but the pages are moved in bulk before the kernel needs them,
 * and y is moved back before the CPU reads it: no faults, one large copy
 * each way, like cudaMemcpy's. Each step is a span of a timeline, so that
 * the kernel's own time shows: on pages already on the GPU it should run as
 * fast as on cudaMalloc'd memory. */
enum { PREFETCH_IN, PREFETCHED_KERNEL, PREFETCH_OUT, PREFETCH_STEPS };
static const char *const prefetch_step_names[PREFETCH_STEPS] = {"to GPU", "kernel", "to host"};
static wb_timeline prefetched_timeline;

static void run_managed_prefetched(const wb_data *data)
{
    /* to the GPU this process uses, whichever it is */
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    struct cudaMemLocation gpu = {cudaMemLocationTypeDevice, device};
    struct cudaMemLocation host = {cudaMemLocationTypeHost, 0};
    wb_timeline_reset(&prefetched_timeline);
    memcpy(managed_x, data->host[X], data->bytes[X]);
    int span = wb_span_begin(&prefetched_timeline, PREFETCH_IN, 0, 0);
    CUDA_CHECK(cudaMemPrefetchAsync(managed_x, data->bytes[X], gpu, 0, 0));
    CUDA_CHECK(cudaMemPrefetchAsync(managed_y, data->bytes[Y], gpu, 0, 0));
    wb_span_end(&prefetched_timeline, span, 0);
    span = wb_span_begin(&prefetched_timeline, PREFETCHED_KERNEL, 0, 0);
    launch_polynomial(managed_x, managed_y, data->shape.n, 0);
    wb_span_end(&prefetched_timeline, span, 0);
    span = wb_span_begin(&prefetched_timeline, PREFETCH_OUT, 0, 0);
    CUDA_CHECK(cudaMemPrefetchAsync(managed_y, data->bytes[Y], host, 0, 0));
    wb_span_end(&prefetched_timeline, span, 0);
    CUDA_CHECK(cudaDeviceSynchronize());
    memcpy(data->host[Y], managed_y, data->bytes[Y]);
}

/* Managed memory moves x to the GPU and y back on faults; prefetched moves the
 * same bytes in bulk (device, with cudaMemcpy, where this GPU cannot
 * prefetch). The difference is what the faults cost, spread here over every
 * 4 KB page of x and y: a unit of account, since a fault migrates a chunk of
 * 64 KB to 2 MB. */
#define FAULT_PAGE_BYTES 4096

static void note_managed(const wb_data *data)
{
    note_integrated(data);
    double managed = wb_measured_ms("managed", WB_TRANSFERS);
    double bulk = wb_measured_ms("prefetched", WB_TRANSFERS);
    const char *bulk_name = "prefetched";
    if (bulk < 0) {
        bulk = wb_measured_ms("device", WB_END_TO_END);
        bulk_name = "device end-to-end";
    }
    if (managed < 0 || bulk < 0)
        return;
    long long pages = 0;
    for (int b = X; b <= Y; b++)
        pages += (long long)((data->bytes[b] + FAULT_PAGE_BYTES - 1) / FAULT_PAGE_BYTES);
    wb_note("first-touch faults (%s):", measured_on(data));
    if (managed <= bulk)
        wb_note("  managed takes %.4g ms, %s %.4g ms: no fault cost shows at this size", managed,
                bulk_name, bulk);
    else
        wb_note("  managed takes %.4g ms more than %s: %.3g us for each of the %lld pages of "
                "4 KB in x and y", managed - bulk, bulk_name, (managed - bulk) * 1e3 / pages,
                pages);
    if (data->device_info->emulated)
        wb_note("  (no page moves under CPU emulation: the difference is not a fault cost)");
}

/* The kernel on prefetched managed memory against the kernel on cudaMalloc'd
 * memory: the prefetched row's latest call, its kernel's span alone. */
static void note_prefetched_kernel(const wb_data *data)
{
    double steps[WB_TIMELINE_LANES];
    double device_kernel = wb_measured_ms("device", WB_KERNEL);
    if (prefetched_timeline.count == 0 || device_kernel <= 0)
        return;
    wb_timeline_busy(&prefetched_timeline, steps);
    wb_note_timeline(&prefetched_timeline, "prefetched", prefetch_step_names, PREFETCH_STEPS,
                     TIMELINE_COLUMNS);
    wb_figure("prefetched_kernel_ms", steps[PREFETCHED_KERNEL], "ms");
    wb_note("prefetched kernel (%s):", measured_on(data));
    wb_note("  %.4g ms on managed memory already on the GPU, %.0f%% of the device kernel "
            "row's %.4g ms", steps[PREFETCHED_KERNEL],
            100.0 * steps[PREFETCHED_KERNEL] / device_kernel, device_kernel);
    wb_note("  (the spans of prefetched's latest call: to GPU %.4g ms, to host %.4g ms)",
            steps[PREFETCH_IN], steps[PREFETCH_OUT]);
}

static void note_managed_part(const wb_data *data)
{
    note_managed(data);
    note_prefetched_kernel(data);
}

static const char *prefetch_unsupported(const wb_device *device)
{
    return device->prop.concurrentManagedAccess
        ? NULL
        : "this GPU cannot prefetch managed memory (concurrentManagedAccess is 0)";
}

/* -- lucas -- */

/* Each level of the recursion keeps a frame (return address, saved
 * registers) on the thread's stack in local memory, 1 KB a thread by default.
 * nvcc -Xptxas -v reports a 24-byte frame for sm_75: 46 levels need 1.1 KB.
 * 64 bytes a level leave room for other architectures. The limit is
 * reserved for every thread the GPU can hold, so it is raised only as far as
 * this part needs. (The emulator keeps the limit but runs each GPU thread on a
 * CPU stack of its own, far larger.) */
#define LUCAS_STACK_BYTES (LARGEST_LUCAS_INDEX * 64)

static void prepare_lucas(const wb_data *data)
{
    (void)data;
    CUDA_CHECK(cudaDeviceSetLimit(cudaLimitStackSize, LUCAS_STACK_BYTES));
}

static void run_lucas_cpu(const wb_data *data)
{
    *(unsigned int *)data->host[0] = lucas((int)data->shape.n);
}

static void run_lucas_gpu(const wb_data *data)
{
    lucas_one_thread<<<1, 1>>>((unsigned int *)data->device[0], (int)data->shape.n);
    CUDA_CHECK_LAUNCH();
}

/* ---- the declarations: one wb_lesson per part ------------------------------- */

static long long vector_length(const wb_shape *shape) { return shape->n; }
static long long one_value(const wb_shape *shape) { (void)shape; return 1; }

/* one copy of x: 4 bytes per element over the link */
static double one_vector(const wb_shape *shape) { return sizeof(float) * (double)shape->n; }
/* x read, y written: 8 bytes per element through memory or over the link */
static double two_vectors(const wb_shape *shape) { return 2.0 * sizeof(float) * shape->n; }
static double polynomial_flops(const wb_shape *shape) { return 2.0 * degree * shape->n; }
/* SCALE is a multiply-add, SQUARE a multiply, SHIFT a subtraction */
static double chain_flops(const wb_shape *shape) { return 4.0 * shape->n; }
static double lucas_bytes(const wb_shape *shape) { (void)shape; return sizeof(unsigned int); }

/* Horner's rule rounds twice per step (once with a fused multiply-add): the
 * bound of a sum of 2 x degree rounded terms, each at most the polynomial's
 * POLYNOMIAL_SUM_BOUND. */
static void polynomial_tolerance(const wb_data *data, double *atol, double *rtol)
{
    (void)data;
    *atol = wb_sum_tolerance(2.0 * degree, POLYNOMIAL_SUM_BOUND);
    *rtol = WB_RTOL;
}

static const wb_buffer vectors[] = {
    {.name = "x", .type = WB_FLOAT, .role = WB_INPUT, .count = vector_length,
     .low = -INPUT_BOUND, .high = INPUT_BOUND},
    {.name = "y", .type = WB_FLOAT, .role = WB_OUTPUT, .count = vector_length,
     .tolerance = {.why = "Horner's rule, fused or not", .widen = polynomial_tolerance}},
};

/* x copied one way, landing in y: what arrives is checked. */
static const wb_buffer copies[] = {
    {.name = "x", .type = WB_FLOAT, .role = WB_INPUT, .count = vector_length,
     .low = -1, .high = 1},
    {.name = "y", .type = WB_FLOAT, .role = WB_OUTPUT, .count = vector_length},
};

static const wb_buffer lucas_result[] = {
    {.name = "lucas", .type = WB_UINT, .role = WB_OUTPUT, .count = one_value},
};

/* vectorize, the slowest, comes last: every lesson's table starts with its
 * cpu, naive and optimized rows. */
static const wb_variant chain_variants[] = {
    {.name = "cpu", .description = "the three steps in one loop on every core: the reference",
     .scope = WB_HOST, .run = run_chain_cpu},
    {.name = "naive", .description = "three launches, the data left on the GPU between them",
     .scope = WB_KERNEL | WB_END_TO_END, .run = run_chain_resident},
    {.name = "optimized", .description = "one fused kernel: x read once, y written once",
     .scope = WB_KERNEL | WB_END_TO_END, .run = run_chain_fused},
    {.name = "vectorize", .description = "copy in, one step, copy out, three times (@vectorize)",
     .scope = WB_TRANSFERS, .run = run_chain_vectorize},
};

static const wb_variant bandwidth_variants[] = {
    {.name = "cpu", .description = "memcpy within host memory: the reference",
     .scope = WB_HOST, .run = run_host_copy},
    {.name = "h2d", .description = "cudaMemcpy to the GPU from malloc'd memory (staged)",
     .scope = WB_TRANSFERS, .run = run_copy_to_device, .outputs_on_device = 1},
    {.name = "d2h", .description = "cudaMemcpy from the GPU to malloc'd memory (staged)",
     .scope = WB_TRANSFERS, .run = run_copy_to_host},
    {.name = "h2d-pinned", .description = "to the GPU from cudaMallocHost memory (DMA)",
     .scope = WB_TRANSFERS, .run = run_copy_to_device, .pinned_host = 1,
     .outputs_on_device = 1},
    {.name = "d2h-pinned", .description = "from the GPU to cudaMallocHost memory (DMA)",
     .scope = WB_TRANSFERS, .run = run_copy_to_host, .pinned_host = 1},
    {.name = "both-pinned", .description = "h2d-pinned and d2h-pinned at once, on two streams",
     .scope = WB_TRANSFERS, .run = run_copy_both_ways, .pinned_host = 1,
     .outputs_on_device = 1},
};

static const wb_variant intensity_variants[] = {
    {.name = "cpu", .description = "the polynomial on every core: the reference",
     .scope = WB_HOST, .run = run_polynomial_cpu},
    {.name = "gpu", .description = "one thread per element; pageable copies end to end",
     .scope = WB_KERNEL | WB_END_TO_END, .run = run_polynomial_gpu},
    {.name = "gpu-pinned", .description = "the same kernel, copies from pinned memory",
     .scope = WB_END_TO_END, .run = run_polynomial_gpu, .pinned_host = 1},
};

static const wb_variant overlap_variants[] = {
    {.name = "cpu", .description = "the polynomial on every core: the reference",
     .scope = WB_HOST, .run = run_polynomial_cpu},
    {.name = "serial", .description = "copy all in, compute, copy all out: one at a time",
     .scope = WB_KERNEL | WB_END_TO_END, .run = run_polynomial_gpu, .pinned_host = 1},
    {.name = "streams", .description = "--chunks pieces over 4 streams, copies overlapping kernels",
     .scope = WB_TRANSFERS, .run = run_overlap_streams, .pinned_host = 1},
    {.name = "one-stream", .description = "the same pieces in one stream: each engine alone",
     .scope = WB_TRANSFERS, .run = run_overlap_one_stream, .pinned_host = 1},
};

static const wb_variant managed_variants[] = {
    {.name = "cpu", .description = "the polynomial on every core: the reference",
     .scope = WB_HOST, .run = run_polynomial_cpu},
    {.name = "device", .description = "cudaMalloc and cudaMemcpy, as in every lesson so far",
     .scope = WB_KERNEL | WB_END_TO_END, .run = run_polynomial_gpu},
    {.name = "managed", .description = "cudaMallocManaged: pages move on first touch (faults)",
     .scope = WB_TRANSFERS, .run = run_managed},
    {.name = "prefetched", .description = "cudaMallocManaged and cudaMemPrefetchAsync both ways",
     .scope = WB_TRANSFERS, .run = run_managed_prefetched, .skip_reason = prefetch_unsupported},
};

static const wb_variant lucas_variants[] = {
    {.name = "cpu", .description = "L(n) by recursion on one CPU core: the reference",
     .scope = WB_HOST, .run = run_lucas_cpu},
    {.name = "one-thread", .description = "the same recursion in one GPU thread, <<<1, 1>>>",
     .scope = WB_KERNEL | WB_END_TO_END, .run = run_lucas_gpu},
};

/* Every part accepts every option, so --help and the parser agree whichever
 * part runs; each option's help says which parts read it. */
static const wb_option options[] = {
    {.flag = "--part",
     .help = "chain, bandwidth, intensity, overlap, managed or lucas",
     .text = &part_name},
    {.flag = "--degree", .help = "polynomial degree (intensity, overlap, managed)",
     .value = &degree, .min = 1, .max = 4096},
    {.flag = "--chunks", .help = "pieces of the overlap part's pipeline",
     .value = &chunk_count, .min = 1, .max = MAX_CHUNKS},
};

/* 32 Gi elements, 128 GB a vector: beyond any GPU's memory; one thread per
 * element keeps the grid below 2^31 - 1 blocks of 256. */
#define VECTOR_LIMIT (1LL << 35)

#define PART(part_, title_, variants_, buffers_, bytes_, flops_, prepare_, finish_)    \
    {.name = "lesson07", .title = title_, .rank = 1,                                    \
     .size_meaning = "elements per vector", .default_size = "1M",                       \
     .max_dimension = VECTOR_LIMIT, .max_elements = VECTOR_LIMIT,                       \
     .buffers = buffers_, .buffer_count = WB_COUNT(buffers_),                           \
     .variants = variants_, .variant_count = WB_COUNT(variants_),                       \
     .bytes = bytes_, .flops = flops_, .options = options,                              \
     .option_count = WB_COUNT(options), .prepare = prepare_, .finish = finish_,         \
     .part = part_}

static const wb_lesson chain = PART("chain", "transfers, part chain: three element-wise steps",
                                    chain_variants, vectors, two_vectors, chain_flops, NULL, NULL);
static const wb_lesson bandwidth =
    PART("bandwidth", "transfers, part bandwidth: one copy over the link each way, float32",
         bandwidth_variants, copies, one_vector, NULL, prepare_bandwidth, note_bandwidth);
static const wb_lesson intensity =
    PART("intensity", "transfers, part intensity: a polynomial of --degree per element",
         intensity_variants, vectors, two_vectors, polynomial_flops, NULL, note_break_even);
static const wb_lesson overlap =
    PART("overlap", "transfers, part overlap: copies and kernels in chunks on streams",
         overlap_variants, vectors, two_vectors, polynomial_flops, prepare_overlap,
         note_overlap);
static const wb_lesson managed =
    PART("managed", "transfers, part managed: cudaMallocManaged, with and without prefetch",
         managed_variants, vectors, two_vectors, polynomial_flops, prepare_managed,
         note_managed_part);
/* -n is the index: L(n) for n up to 46, the last that fits 32 bits */
static const wb_lesson lucas_part = {
    .name = "lesson07", .title = "transfers, part lucas: L(n) by recursion, one thread",
    .rank = 1, .size_meaning = "the index n of the Lucas number L(n)", .default_size = "30",
    .max_dimension = LARGEST_LUCAS_INDEX, .max_elements = LARGEST_LUCAS_INDEX,
    .buffers = lucas_result, .buffer_count = WB_COUNT(lucas_result),
    .variants = lucas_variants, .variant_count = WB_COUNT(lucas_variants),
    .bytes = lucas_bytes, .options = options, .option_count = WB_COUNT(options),
    .prepare = prepare_lucas, .part = "lucas"};

/* The first is the default: chain, the lesson's main point in one table. */
static const wb_lesson *const parts[] = {&chain, &bandwidth, &intensity,
                                         &overlap, &managed, &lucas_part};

int main(int argc, char **argv)
{
    const wb_lesson *part = wb_choose_part(parts, WB_COUNT(parts), argc, argv);
    /* lucas's CPU version is one recursive call on one core; the header and
     * the CSV's cpu_threads count OpenMP's threads: one, then, to be true */
    if (part == &lucas_part)
        omp_set_num_threads(1);
    return wb_main(part, argc, argv);
}
