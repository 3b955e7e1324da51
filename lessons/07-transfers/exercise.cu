/*
 * Exercise 07: from a serial copy-kernel-copy loop to a pipeline.
 *
 * pipeline_serial below copies all of x to the GPU, runs the kernel, and
 * copies all of y back: while one of the three runs, the other two engines of
 * the GPU (the copy engine of each direction, the SMs) wait. Cut the work into
 * chunk_count pieces instead, and give piece c to stream c % stream_count, so
 * that piece c+1 comes in while piece c computes and piece c-1 goes out.
 * h_x and h_y are pinned (cudaMallocHost): cudaMemcpyAsync from them returns
 * at once and the copy runs beside the kernels.
 *
 * Fill in pipeline_chunked where it says TODO, then check your work:
 *     make exercise07
 * It answers "not implemented yet", PASS, or FAIL with the first wrong index
 * or the stream your function returned without waiting for; on a GPU it also
 * times your pipeline against the serial loop. The worked
 * solution is in solutions/07-transfers/exercise.cu (make solution07).
 */
#include "workbook.h"

#define THREADS_PER_BLOCK 256

__global__ void square_plus_one(const float *x, float *y, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = x[i] * x[i] + 1.0f;
}

/* The kernel on n elements, queued on `stream`. */
void launch_square_plus_one(const float *d_x, float *d_y, long long n, cudaStream_t stream)
{
    unsigned int blocks = (unsigned int)((n + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK);
    square_plus_one<<<blocks, THREADS_PER_BLOCK, 0, stream>>>(d_x, d_y, n);
    CUDA_CHECK_LAUNCH();
}

/* The starting point: one engine busy at a time. */
void pipeline_serial(const float *h_x, float *h_y, float *d_x, float *d_y, long long n)
{
    size_t bytes = (size_t)n * sizeof(float);
    CUDA_CHECK(cudaMemcpy(d_x, h_x, bytes, cudaMemcpyHostToDevice));
    launch_square_plus_one(d_x, d_y, n, 0);
    CUDA_CHECK(cudaMemcpy(h_y, d_y, bytes, cudaMemcpyDeviceToHost));
}

void pipeline_chunked(const float *h_x, float *h_y, float *d_x, float *d_y, long long n,
                      int chunk_count, const cudaStream_t *streams, int stream_count)
{
    /* TODO 1: the length of a chunk: n / chunk_count, rounded up, so that
     *         chunk_count chunks cover all n elements. */

    /* TODO 2: for each chunk: where it begins, and its length (the last one
     *         may be shorter, and with a rounded-up length a chunk may even
     *         begin past n: stop there). Its stream: streams[c % stream_count]. */

    /* TODO 3: on that stream: cudaMemcpyAsync the chunk of h_x into d_x at
     *         the same offset, launch_square_plus_one on the chunk, and
     *         cudaMemcpyAsync the chunk of d_y back into h_y. */

    /* TODO 4: wait for every stream before returning: the caller reads h_y. */
}
