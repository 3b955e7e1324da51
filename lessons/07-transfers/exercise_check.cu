/*
 * The checker of exercise 07: make exercise07 builds it with your
 * exercise.cu, make solution07 with the worked solution.
 *
 * It runs pipeline_chunked on sizes and chunk counts chosen to catch the usual
 * mistakes: n = 1 (fewer elements than chunks), a block size plus and minus
 * one, n not divisible by the chunk count (a short last chunk), one chunk,
 * more chunks than streams. y starts out as NaN, so an element no chunk
 * copied back shows up as a mismatch. When pipeline_chunked returns, every
 * stream must be idle (cudaStreamQuery): the caller reads h_y next, and a
 * copy still on its way would leave it half written. Under the CPU emulator
 * the work is done by then, but a stream counts as busy until the host has
 * waited for it, so a missing wait fails there as it would on a GPU.
 *
 * On a GPU it then times pipeline_serial and pipeline_chunked on a large
 * input: copies in and out of pinned memory run on two separate copy engines,
 * so a pipeline that overlaps them takes clearly less time than the serial
 * loop; one that does not, about the same. Under the CPU emulator a copy is a
 * memcpy and streams run one after the other, so only the results and the
 * waits are checked there.
 *
 * Exit status: 0 PASS, 1 FAIL or not implemented yet, 3 no usable GPU.
 */
#include "workbook.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* written by you in exercise.cu */
void pipeline_serial(const float *h_x, float *h_y, float *d_x, float *d_y, long long n);
void pipeline_chunked(const float *h_x, float *h_y, float *d_x, float *d_y, long long n,
                      int chunk_count, const cudaStream_t *streams, int stream_count);

typedef struct {
    long long n;
    int chunks;
} trial;
static const trial trials[] = {{1, 8},   {255, 4},   {257, 4},    {4099, 1},
                               {4099, 3}, {65537, 8}, {1000003, 16}};
#define TRIAL_COUNT (int)(sizeof trials / sizeof trials[0])
#define STREAM_COUNT 4

/* The overlap test: 64M floats, 256 MB each way, some 5 ms per direction
 * over a 55 GB/s link: long enough that launch and queueing costs vanish.
 * With the two directions overlapped the pipeline needs about half the serial
 * time (the kernel is short); OVERLAP_LIMIT leaves room for a slower link. */
#define OVERLAP_ELEMENTS (64LL << 20)
#define OVERLAP_CHUNKS 16
#define OVERLAP_LIMIT 0.8
#define OVERLAP_REPS 5

/* The first stream (-1: the default stream) with work the host has not
 * waited for, or -2 when every one is idle. */
static int busy_stream(const cudaStream_t *streams)
{
    for (int s = -1; s < STREAM_COUNT; s++) {
        cudaError_t state = cudaStreamQuery(s < 0 ? (cudaStream_t)0 : streams[s]);
        if (state == cudaErrorNotReady)
            return s;
        CUDA_CHECK(state);
    }
    return -2;
}

static int untouched(const float *y, long long n)
{
    const unsigned char *bytes = (const unsigned char *)y;
    for (size_t i = 0; i < (size_t)n * sizeof(float); i++)
        if (bytes[i] != 0xFF)
            return 0;
    return 1;
}

/* The shortest of OVERLAP_REPS runs, in ms, timed with events on the
 * default stream around a call that returns only when y is on the host. */
static float best_ms(int chunked, const float *h_x, float *h_y, float *d_x, float *d_y,
                     long long n, const cudaStream_t *streams)
{
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    float best = 0;
    for (int rep = 0; rep < OVERLAP_REPS; rep++) {
        CUDA_CHECK(cudaDeviceSynchronize());
        CUDA_CHECK(cudaEventRecord(start));
        if (chunked)
            pipeline_chunked(h_x, h_y, d_x, d_y, n, OVERLAP_CHUNKS, streams, STREAM_COUNT);
        else
            pipeline_serial(h_x, h_y, d_x, d_y, n);
        CUDA_CHECK(cudaDeviceSynchronize());
        CUDA_CHECK(cudaEventRecord(stop));
        CUDA_CHECK(cudaEventSynchronize(stop));
        float ms = 0;
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        best = rep == 0 || ms < best ? ms : best;
    }
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    return best;
}

int main(void)
{
    const char *name = "exercise07";
    wb_device device = wb_checker_device(name);

    long long largest = device.emulated ? 0 : OVERLAP_ELEMENTS;
    for (int t = 0; t < TRIAL_COUNT; t++)
        largest = trials[t].n > largest ? trials[t].n : largest;
    size_t max_bytes = (size_t)largest * sizeof(float);
    float *h_x, *h_y, *d_x, *d_y;
    CUDA_CHECK(cudaMallocHost(&h_x, max_bytes));
    CUDA_CHECK(cudaMallocHost(&h_y, max_bytes));
    CUDA_CHECK(cudaMalloc(&d_x, max_bytes));
    CUDA_CHECK(cudaMalloc(&d_y, max_bytes));
    float *expected = (float *)wb_alloc_host(max_bytes, "the expected y");
    cudaStream_t streams[STREAM_COUNT];
    for (int s = 0; s < STREAM_COUNT; s++)
        CUDA_CHECK(cudaStreamCreate(&streams[s]));

    char verdicts[TRIAL_COUNT][WB_VERDICT_LENGTH];
    int failures = 0, silent = 0;
    for (int t = 0; t < TRIAL_COUNT; t++) {
        long long n = trials[t].n;
        wb_fill_random(h_x, n, -1.0f, 1.0f, 700 + t);
        for (long long i = 0; i < n; i++)
            expected[i] = h_x[i] * h_x[i] + 1.0f;
        memset(h_y, 0xFF, (size_t)n * sizeof(float)); /* all bits set: NaN */
        CUDA_CHECK(cudaMemset(d_y, 0xFF, (size_t)n * sizeof(float)));

        pipeline_chunked(h_x, h_y, d_x, d_y, n, trials[t].chunks, streams, STREAM_COUNT);
        int busy = busy_stream(streams);
        CUDA_CHECK(cudaDeviceSynchronize());

        silent += untouched(h_y, n);
        wb_check_result check = wb_check(expected, h_y, n, WB_ATOL, WB_RTOL);
        char trial_name[64];
        snprintf(trial_name, sizeof trial_name, "  n = %-8lld %2d chunk%s", n, trials[t].chunks,
                 trials[t].chunks == 1 ? " " : "s");
        if (!check.passed) {
            failures++;
            snprintf(verdicts[t], WB_VERDICT_LENGTH,
                     "%s  FAIL: first wrong index %lld: expected %.9g, got %.9g", trial_name,
                     check.first_bad, check.expected, check.actual);
        } else if (busy != -2) {
            failures++;
            char stream_name[32] = "the default stream";
            if (busy >= 0)
                snprintf(stream_name, sizeof stream_name, "streams[%d]", busy);
            snprintf(verdicts[t], WB_VERDICT_LENGTH,
                     "%s  FAIL: pipeline_chunked returned while %s still had work: wait for every "
                     "stream before returning (TODO 4)", trial_name, stream_name);
        } else {
            snprintf(verdicts[t], WB_VERDICT_LENGTH, "%s  PASS", trial_name);
        }
    }

    printf("%s: a chunked pipeline over %d streams\n", name, STREAM_COUNT);
    int status = WB_EXIT_OK;
    if (silent == TRIAL_COUNT) {
        status = wb_report_not_implemented(name, "pipeline_chunked copied nothing back",
                                           "lessons/07-transfers/exercise.cu");
    } else {
        for (int t = 0; t < TRIAL_COUNT; t++)
            printf("%s\n", verdicts[t]);
        if (failures > 0)
            status = wb_report_verdict(name, failures, TRIAL_COUNT, "trials", NULL);
    }

    if (status == WB_EXIT_OK && device.emulated) {
        printf("  overlap: not checked: under the CPU emulator copies are memcpy and streams\n"
               "  run one after the other; run make exercise07 on a GPU to see it overlap\n");
    } else if (status == WB_EXIT_OK) {
        long long n = OVERLAP_ELEMENTS;
        wb_fill_random(h_x, n, -1.0f, 1.0f, 799);
        float serial = best_ms(0, h_x, h_y, d_x, d_y, n, streams);
        float chunked = best_ms(1, h_x, h_y, d_x, d_y, n, streams);
        int overlapped = chunked <= OVERLAP_LIMIT * serial;
        printf("  overlap: %lld elements: serial %.2f ms, chunked %.2f ms (%.0f%%): %s\n", n,
               serial, chunked, 100.0 * chunked / serial,
               overlapped ? "PASS" : "FAIL: the copies did not overlap");
        if (!overlapped) {
            printf("%s: FAIL (every trial right, but the copies did not overlap)\n", name);
            status = WB_EXIT_CHECK_FAILED;
        }
    }
    if (status == WB_EXIT_OK)
        status = wb_report_verdict(name, 0, TRIAL_COUNT, "trials",
                                   device.emulated ? "; overlap only on a GPU" : " and the overlap");

    for (int s = 0; s < STREAM_COUNT; s++)
        CUDA_CHECK(cudaStreamDestroy(streams[s]));
    CUDA_CHECK(cudaFreeHost(h_x));
    CUDA_CHECK(cudaFreeHost(h_y));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_y));
    free(expected);
    return status;
}
