// runtime_api.cu - the memory, stream and event calls of the runtime API: pinned host memory,
// asynchronous copies and memsets on a stream, events in order, managed memory (with prefetch
// and advice accepted) and __managed__ variables, the error functions, copies between devices
// (of which there is one), stream priorities and the device's properties.
#include <string>

#include "check.h"

static const char* test_name = "runtime_api";
constexpr int n = 4099;  // prime

__managed__ int managed_counter;

__global__ void scale(float* data, float factor, int count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) data[i] *= factor;
    if (i == 0) atomicAdd(&managed_counter, 1);
}

int main() {
    // Pinned host memory, asynchronous copies and a memset on a stream, timed by events.
    float* h_data;
    CHECK(cudaMallocHost(&h_data, n * sizeof(float)));
    for (int i = 0; i < n; i++) h_data[i] = (float)i;
    float* d_data;
    CHECK(cudaMalloc(&d_data, n * sizeof(float)));
    cudaStream_t stream;
    cudaEvent_t start, stop;
    CHECK(cudaStreamCreate(&stream));
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaEventRecord(start, stream));
    CHECK(cudaMemsetAsync(d_data, 0, n * sizeof(float), stream));
    CHECK(cudaMemcpyAsync(d_data, h_data, (n - 1) * sizeof(float), cudaMemcpyHostToDevice, stream));
    scale<<<(n + 255) / 256, 256, 0, stream>>>(d_data, 2.0f, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpyAsync(h_data, d_data, n * sizeof(float), cudaMemcpyDeviceToHost, stream));
    CHECK(cudaEventRecord(stop, stream));
    CHECK(cudaStreamSynchronize(stream));
    CHECK(cudaEventSynchronize(stop));
    float ms = -1;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    EXPECT(ms >= 0, "elapsed time %g ms is negative", ms);
    for (int i = 0; i < n - 1; i++) EXPECT(h_data[i] == 2.0f * i, "h_data[%d] = %g", i, h_data[i]);
    EXPECT(h_data[n - 1] == 0.0f, "the last element was not covered by the memset: %g", h_data[n - 1]);

    // cudaMallocManaged memory is used from the host and the device alike.
    float* shared;
    CHECK(cudaMallocManaged(&shared, n * sizeof(float)));
    for (int i = 0; i < n; i++) shared[i] = 1.0f;
    int device = 0;
    CHECK(cudaGetDevice(&device));
    // CUDA 13 names the place memory should live as a cudaMemLocation.
    cudaMemLocation location = {};
    location.type = cudaMemLocationTypeDevice;
    location.id = device;
    CHECK(cudaMemAdvise(shared, n * sizeof(float), cudaMemAdviseSetPreferredLocation, location));
    CHECK(cudaMemPrefetchAsync(shared, n * sizeof(float), location, 0, stream));
    scale<<<(n + 255) / 256, 256, 0, stream>>>(shared, 3.0f, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    for (int i = 0; i < n; i++) EXPECT(shared[i] == 3.0f, "managed[%d] = %g", i, shared[i]);
    EXPECT(managed_counter == 2, "__managed__ counter is %d after two launches", managed_counter);

    // The error functions: a bad launch is sticky in PeekAtLastError until GetLastError clears it.
    scale<<<1, 2048>>>(d_data, 1.0f, n);
    EXPECT(cudaPeekAtLastError() == cudaErrorInvalidConfiguration, "peek: %s",
           cudaGetErrorName(cudaPeekAtLastError()));
    EXPECT(cudaGetLastError() == cudaErrorInvalidConfiguration, "2048 threads per block accepted");
    EXPECT(cudaGetLastError() == cudaSuccess, "cudaGetLastError did not clear the error");
    EXPECT(std::string(cudaGetErrorName(cudaErrorMemoryAllocation)) == "cudaErrorMemoryAllocation",
           "error name %s", cudaGetErrorName(cudaErrorMemoryAllocation));

    CHECK(cudaFree(shared));
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaFree(d_data));
    CHECK(cudaFreeHost(h_data));

    // One device, no peers; every kernel reads host memory (pageable memory access); typed
    // pointers for the device address of pinned memory.
    int can_access = -1, pageable = -1;
    CHECK(cudaDeviceCanAccessPeer(&can_access, 0, 0));
    EXPECT(can_access == 0, "cudaDeviceCanAccessPeer gave %d", can_access);
    CHECK(cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, 0));
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    EXPECT(pageable == 1 && prop.pageableMemoryAccess == 1, "pageable memory access %d, %d",
           pageable, prop.pageableMemoryAccess);
    // A copy between device 0 and itself is a device-to-device copy; any other device, and any
    // question about a pair of devices, is refused.
    int *d_from, *d_to, copied[3] = {0, 0, 0};
    const int values[3] = {4, 5, 6};
    CHECK(cudaMalloc(&d_from, sizeof values));
    CHECK(cudaMalloc(&d_to, sizeof values));
    CHECK(cudaMemcpy(d_from, values, sizeof values, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpyPeer(d_to, 0, d_from, 0, 2 * sizeof(int)));
    CHECK(cudaMemcpyPeerAsync(d_to + 2, 0, d_from + 2, 0, sizeof(int), 0));
    CHECK(cudaMemcpy(copied, d_to, sizeof copied, cudaMemcpyDeviceToHost));
    EXPECT(copied[0] == 4 && copied[1] == 5 && copied[2] == 6, "peer copies gave %d %d %d",
           copied[0], copied[1], copied[2]);
    EXPECT(cudaMemcpyPeer(d_to, 1, d_from, 0, sizeof(int)) == cudaErrorInvalidDevice,
           "a peer copy to device 1 was not refused");
    int rank = -1;
    EXPECT(cudaDeviceGetP2PAttribute(&rank, cudaDevP2PAttrPerformanceRank, 0, 0) ==
               cudaErrorInvalidDevice, "a P2P attribute of device 0 with itself was not refused");
    cudaGetLastError();
    CHECK(cudaFree(d_from));
    CHECK(cudaFree(d_to));

    // What deviceQuery prints besides: texture limits, alignments, no kernel time limit.
    int exec_timeout = -1, texture_2d_height = -1, preemption = -1;
    CHECK(cudaDeviceGetAttribute(&exec_timeout, cudaDevAttrKernelExecTimeout, 0));
    CHECK(cudaDeviceGetAttribute(&texture_2d_height, cudaDevAttrMaxTexture2DHeight, 0));
    CHECK(cudaDeviceGetAttribute(&preemption, cudaDevAttrComputePreemptionSupported, 0));
    EXPECT(prop.maxTexture1D == 131072 && prop.maxTexture2D[1] == 65536 &&
               texture_2d_height == prop.maxTexture2D[1] && prop.maxTexture3D[2] == 16384 &&
               prop.maxTexture2DLayered[2] == 2048 && prop.surfaceAlignment == 512,
           "texture limits 1D %d, 2D height %d (attribute %d), 3D depth %d, 2D layers %d, surface "
           "alignment %zu", prop.maxTexture1D, prop.maxTexture2D[1], texture_2d_height,
           prop.maxTexture3D[2], prop.maxTexture2DLayered[2], prop.surfaceAlignment);
    EXPECT(exec_timeout == 0 && preemption == 1 && prop.computePreemptionSupported == 1,
           "kernel time limit %d, preemption %d", exec_timeout, preemption);
    // <limits.h>'s limits, which nvcc's headers bring, as this file does not include it
    EXPECT(INT_MAX == 2147483647 && UINT_MAX == 4294967295u, "INT_MAX %d", INT_MAX);

    // Stream priorities are kept, within the range, and reported.
    int least = 1, greatest = 1, priority = 1;
    CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    EXPECT(least == 0 && greatest == -5, "stream priorities from %d to %d", least, greatest);
    cudaStream_t urgent, beyond;
    CHECK(cudaStreamCreateWithPriority(&urgent, cudaStreamNonBlocking, greatest));
    CHECK(cudaStreamCreateWithPriority(&beyond, cudaStreamDefault, greatest - 10));
    CHECK(cudaStreamGetPriority(urgent, &priority));
    EXPECT(priority == greatest, "a stream made with priority %d has %d", greatest, priority);
    CHECK(cudaStreamGetPriority(beyond, &priority));
    EXPECT(priority == greatest, "a priority past the range became %d, not %d", priority, greatest);
    CHECK(cudaStreamGetPriority(0, &priority));
    EXPECT(priority == 0, "the default stream's priority is %d", priority);
    unsigned int flags = 99;
    CHECK(cudaStreamGetFlags(urgent, &flags));
    EXPECT(flags == cudaStreamNonBlocking, "a non-blocking stream's flags are %u", flags);
    CHECK(cudaStreamDestroy(urgent));
    CHECK(cudaStreamDestroy(beyond));

    float *pinned, *d_pinned;
    CHECK(cudaMallocHost(&pinned, 4 * sizeof(float)));
    CHECK(cudaHostGetDevicePointer(&d_pinned, pinned, 0));
    EXPECT(d_pinned == pinned, "the device address of pinned memory is not its host address");
    CHECK(cudaFreeHost(pinned));

    // Stream-ordered allocation, and managed memory attached to a stream.
    int* d_async;
    CHECK(cudaMallocAsync(&d_async, 64 * sizeof(int), 0));
    CHECK(cudaMemsetAsync(d_async, 0, 64 * sizeof(int), 0));
    CHECK(cudaFreeAsync(d_async, 0));
    float* managed;
    CHECK(cudaMallocManaged(&managed, 16 * sizeof(float)));
    CHECK(cudaStreamAttachMemAsync(0, managed));
    CHECK(cudaFree(managed));

    // Device limits read back what was set.
    size_t stack_bytes = 0;
    CHECK(cudaDeviceSetLimit(cudaLimitStackSize, 8192));
    CHECK(cudaDeviceGetLimit(&stack_bytes, cudaLimitStackSize));
    EXPECT(stack_bytes >= 8192, "stack size limit %zu after setting 8192", stack_bytes);
    return pass(test_name);
}
