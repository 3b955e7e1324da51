// stream_query.cu - a stream reports work the host has not waited for as not done, as a GPU may:
// cudaStreamQuery and cudaEventQuery answer cudaErrorNotReady (which is no error: the last error
// stays cudaSuccess) until a synchronize, an event the host waited for, or a synchronous
// cudaMemcpy (which waits for every blocking stream) covers the work. On a GPU the work may also
// have finished by itself, so there only the answers after a wait are certain.
#include "check.h"

static const char* test_name = "stream_query";
constexpr int n = 4099;

__global__ void increment(float* data, int count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) data[i] += 1.0f;
}

// Work on `stream` that the host does not wait for: a copy in, a kernel, a copy out.
static void queue_work(float* h_data, float* d_data, cudaStream_t stream) {
    CHECK(cudaMemcpyAsync(d_data, h_data, n * sizeof(float), cudaMemcpyHostToDevice, stream));
    increment<<<(n + 255) / 256, 256, 0, stream>>>(d_data, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpyAsync(h_data, d_data, n * sizeof(float), cudaMemcpyDeviceToHost, stream));
}

// Under the emulator the work is done but not waited for: not ready, once.
static void expect_not_waited_for(cudaStream_t stream, const char* after) {
#ifdef CUDA_EMULATION
    cudaError_t answer = cudaStreamQuery(stream);
    EXPECT(answer == cudaErrorNotReady, "after %s, cudaStreamQuery said %s", after,
           cudaGetErrorName(answer));
    EXPECT(cudaGetLastError() == cudaSuccess, "cudaErrorNotReady was kept as the last error");
#endif
    // a loop that polls the stream ends: on a GPU when the work is done, here at once
    while (cudaStreamQuery(stream) == cudaErrorNotReady) {
    }
    CHECK(cudaStreamQuery(stream));
}

int main() {
    // each stream works on buffers of its own: on a GPU the two run at once
    float *h_data, *d_data, *h_other, *d_other;
    CHECK(cudaMallocHost(&h_data, n * sizeof(float)));
    CHECK(cudaMalloc(&d_data, n * sizeof(float)));
    CHECK(cudaMallocHost(&h_other, n * sizeof(float)));
    CHECK(cudaMalloc(&d_other, n * sizeof(float)));
    for (int i = 0; i < n; i++) h_data[i] = h_other[i] = (float)i;
    cudaStream_t stream, non_blocking;
    CHECK(cudaStreamCreate(&stream));
    CHECK(cudaStreamCreateWithFlags(&non_blocking, cudaStreamNonBlocking));
    CHECK(cudaStreamQuery(stream));  // a new stream has nothing to do

    queue_work(h_data, d_data, stream);
    expect_not_waited_for(stream, "copies and a kernel on the stream");

    queue_work(h_data, d_data, stream);
    CHECK(cudaStreamSynchronize(stream));
    CHECK(cudaStreamQuery(stream));

    // an event waited for covers the work before it, not the work after it
    cudaEvent_t done;
    CHECK(cudaEventCreate(&done));
    queue_work(h_data, d_data, stream);
    CHECK(cudaEventRecord(done, stream));
    CHECK(cudaEventSynchronize(done));
    CHECK(cudaEventQuery(done));
    CHECK(cudaStreamQuery(stream));
    queue_work(h_data, d_data, stream);
    expect_not_waited_for(stream, "work queued after the event the host waited for");

    // a synchronous cudaMemcpy waits for the blocking streams, not for a non-blocking one
    queue_work(h_data, d_data, stream);
    queue_work(h_other, d_other, non_blocking);
    float second = 0;
    CHECK(cudaMemcpy(&second, d_data + 1, sizeof second, cudaMemcpyDeviceToHost));
    EXPECT(second == 6.0f, "the synchronous copy read %g, before the stream's work", second);
    CHECK(cudaStreamQuery(stream));
    expect_not_waited_for(non_blocking, "cudaMemcpy, on the non-blocking stream");

    // cudaDeviceSynchronize waits for every stream
    queue_work(h_data, d_data, stream);
    queue_work(h_other, d_other, non_blocking);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaStreamQuery(stream));
    CHECK(cudaStreamQuery(non_blocking));
    for (int i = 0; i < n; i++) {
        EXPECT(h_data[i] == i + 6.0f, "h_data[%d] = %g after 6 increments", i, h_data[i]);
        EXPECT(h_other[i] == i + 2.0f, "h_other[%d] = %g after 2 increments", i, h_other[i]);
    }

    CHECK(cudaEventDestroy(done));
    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaStreamDestroy(non_blocking));
    CHECK(cudaFree(d_data));
    CHECK(cudaFreeHost(h_data));
    CHECK(cudaFree(d_other));
    CHECK(cudaFreeHost(h_other));
    return pass(test_name);
}
