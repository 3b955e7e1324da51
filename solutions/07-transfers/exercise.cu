/*
 * Exercise 07, worked solution: a chunked pipeline over several streams.
 * Check it with: make solution07
 *
 * Chunk c goes to stream c % stream_count. Work in one stream runs in order,
 * so a chunk's copy in, kernel and copy out wait for each other; work in
 * different streams may run at once, so the copy engines and the SMs each
 * work on a different chunk. The rounded-up chunk length covers n with at
 * most chunk_count chunks; the loop stops at n, so a short last chunk, or
 * fewer chunks than asked for (n = 1, 8 chunks), need nothing special.
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
    long long chunk = (n + chunk_count - 1) / chunk_count;
    for (long long c = 0, begin = 0; begin < n; c++, begin += chunk) {
        long long length = n - begin < chunk ? n - begin : chunk;
        size_t bytes = (size_t)length * sizeof(float);
        cudaStream_t stream = streams[c % stream_count];
        CUDA_CHECK(cudaMemcpyAsync(d_x + begin, h_x + begin, bytes, cudaMemcpyHostToDevice,
                                   stream));
        launch_square_plus_one(d_x + begin, d_y + begin, length, stream);
        CUDA_CHECK(cudaMemcpyAsync(h_y + begin, d_y + begin, bytes, cudaMemcpyDeviceToHost,
                                   stream));
    }
    /* every stream's last copy out must be done before the caller reads h_y */
    for (int s = 0; s < stream_count; s++)
        CUDA_CHECK(cudaStreamSynchronize(streams[s]));
}
