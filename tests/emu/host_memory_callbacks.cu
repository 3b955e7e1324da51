// host_memory_callbacks.cu - kernels use registered and mapped host memory through the device
// pointers the runtime gives for it; host functions and callbacks on a stream run after the work
// issued before them; clock64() only grows.
#include <cstdlib>

#include "check.h"

static const char* test_name = "host_memory_callbacks";

constexpr int n = 256;

__global__ void add_one(int* data, long long* elapsed) {
    long long start = clock64();
    data[threadIdx.x] += 1;
    long long end = clock64();
    if (threadIdx.x == 0) *elapsed = end - start;
}

struct Seen {
    const int* data;
    int value_at_callback;
    int calls;
};

void CUDART_CB host_function(void* user_data) {
    Seen* seen = static_cast<Seen*>(user_data);
    seen->value_at_callback = seen->data[n - 1];
    seen->calls++;
}

void CUDART_CB stream_callback(cudaStream_t, cudaError_t status, void* user_data) {
    Seen* seen = static_cast<Seen*>(user_data);
    seen->value_at_callback = status == cudaSuccess ? seen->data[0] : -1;
    seen->calls++;
}

int main() {
    // Ordinary host memory, registered and mapped.
    int* registered = static_cast<int*>(malloc(n * sizeof(int)));
    for (int i = 0; i < n; i++) registered[i] = i;
    CHECK(cudaHostRegister(registered, n * sizeof(int), cudaHostRegisterMapped));
    EXPECT(cudaHostRegister(registered, n * sizeof(int), cudaHostRegisterMapped) ==
               cudaErrorHostMemoryAlreadyRegistered,
           "registering the same memory twice was accepted");
    cudaGetLastError();
    int* d_registered;
    long long* elapsed;
    CHECK(cudaHostGetDevicePointer((void**)&d_registered, registered, 0));
    CHECK(cudaMallocManaged(&elapsed, sizeof(long long)));

    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    add_one<<<1, n, 0, stream>>>(d_registered, elapsed);
    CHECK(cudaGetLastError());
    Seen seen{registered, 0, 0};
    CHECK(cudaLaunchHostFunc(stream, host_function, &seen));
    CHECK(cudaStreamSynchronize(stream));
    EXPECT(seen.calls == 1 && seen.value_at_callback == n, "host function saw %d after %d calls",
           seen.value_at_callback, seen.calls);
    EXPECT(*elapsed >= 0, "clock64 went back by %lld", -*elapsed);
    CHECK(cudaHostUnregister(registered));
    free(registered);

    // Memory allocated mapped.
    int* mapped;
    CHECK(cudaHostAlloc(&mapped, n * sizeof(int), cudaHostAllocMapped));
    for (int i = 0; i < n; i++) mapped[i] = 10 * i;
    int* d_mapped;
    CHECK(cudaHostGetDevicePointer((void**)&d_mapped, mapped, 0));
    add_one<<<1, n, 0, stream>>>(d_mapped, elapsed);
    CHECK(cudaGetLastError());
    seen = Seen{mapped, 0, 0};
    CHECK(cudaStreamAddCallback(stream, stream_callback, &seen, 0));
    CHECK(cudaStreamSynchronize(stream));
    EXPECT(seen.calls == 1 && seen.value_at_callback == 1, "callback saw %d after %d calls",
           seen.value_at_callback, seen.calls);
    for (int i = 0; i < n; i++) EXPECT(mapped[i] == 10 * i + 1, "mapped[%d] = %d", i, mapped[i]);
    CHECK(cudaFreeHost(mapped));
    CHECK(cudaFree(elapsed));
    CHECK(cudaStreamDestroy(stream));
    return pass(test_name);
}
