// device_assert.cu - assert() in a kernel ends the launch with cudaErrorAssert, as on a GPU: the
// failing thread is reported on stderr with file, line, block and thread; the host program goes on,
// and every later call that uses the device returns the error until cudaDeviceReset. With NDEBUG
// an assert is nothing, and in host code a failed assert aborts the program, as the C library's does.
#include <cassert>
#include <cstring>

#include "check.h"

static const char* test_name = "device_assert";
constexpr int threads = 64;

// Every block counts, through shared memory, the elements its threads checked.
__global__ void check_positive(const int* values, int* checked) {
    __shared__ int count;
    if (threadIdx.x == 0) count = 0;
    __syncthreads();
    int i = blockIdx.x * threads + threadIdx.x;
    assert(values[i] >= 0);  // fails for element 69: block 1, thread 5
    atomicAdd(&count, 1);
    __syncthreads();
    if (threadIdx.x == 0) checked[blockIdx.x] = count;
}

// <assert.h> may be included again: with NDEBUG defined, assert() below expands to nothing.
#define NDEBUG
#include <assert.h>

__global__ void count_negative(const int* values, int* negatives) {
    int i = blockIdx.x * threads + threadIdx.x;
    assert(values[i] >= 0);  // gone: NDEBUG
    if (values[i] < 0) atomicAdd(negatives, 1);
}

// Back on for host code, where a failed assert aborts the program as the C library's does.
#undef NDEBUG
#include <assert.h>

static void host_check(int argc) { assert(argc == 1); }

static void show(const char* call, cudaError_t error) {
    printf("%s: %s\n", call, cudaGetErrorName(error));
}

int main(int argc, char** argv) {
    if (argc > 1 && strcmp(argv[1], "host") == 0) host_check(argc);
    constexpr int blocks = 4, n = blocks * threads;
    int h_values[n];
    for (int i = 0; i < n; i++) h_values[i] = i == 69 ? -1 : i;
    int *d_values, *d_checked;
    CHECK(cudaMalloc(&d_values, sizeof h_values));
    CHECK(cudaMalloc(&d_checked, blocks * sizeof(int)));
    CHECK(cudaMemcpy(d_values, h_values, sizeof h_values, cudaMemcpyHostToDevice));

    check_positive<<<blocks, threads>>>(d_values, d_checked);
    cudaError_t error = cudaDeviceSynchronize();
    printf("cudaDeviceSynchronize: %s (%s)\n", cudaGetErrorName(error), cudaGetErrorString(error));
    // The error is sticky: reading it does not clear it, and every later call fails with it.
    show("cudaGetLastError", cudaGetLastError());
    show("cudaGetLastError again", cudaGetLastError());
    int h_checked[blocks];
    show("cudaMemcpy", cudaMemcpy(h_checked, d_checked, sizeof h_checked, cudaMemcpyDeviceToHost));
    int* d_more = nullptr;
    show("cudaMalloc", cudaMalloc(&d_more, sizeof(int)));
    check_positive<<<1, threads>>>(d_values, d_checked);
    show("another launch", cudaGetLastError());

    // cudaDeviceReset starts the device afresh; its memory is gone, so allocate again.
    show("cudaDeviceReset", cudaDeviceReset());
    int* d_negatives;
    CHECK(cudaMalloc(&d_values, sizeof h_values));
    CHECK(cudaMalloc(&d_negatives, sizeof(int)));
    CHECK(cudaMemcpy(d_values, h_values, sizeof h_values, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_negatives, 0, sizeof(int)));
    count_negative<<<blocks, threads>>>(d_values, d_negatives);
    CHECK(cudaGetLastError());
    int negatives = 0;
    CHECK(cudaMemcpy(&negatives, d_negatives, sizeof negatives, cudaMemcpyDeviceToHost));
    printf("negatives counted with NDEBUG: %d\n", negatives);
    CHECK(cudaFree(d_values));
    CHECK(cudaFree(d_negatives));
    return pass(test_name);
}
