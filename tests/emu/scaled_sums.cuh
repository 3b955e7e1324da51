// scaled_sums.cuh - a header with what emucc must rewrite in an included file as well as in
// the .cu: a kernel with extern __shared__, a __noinline__ device function, and a launch.
// Included by header_kernels.cu.
#pragma once

#include "check.h"

__device__ __noinline__ float scaled(float value, float factor) { return value * factor; }

// Each block sums factor * x over its blockDim.x elements, through dynamic shared memory.
template <typename T>
__global__ void scaled_block_sums(const T* x, T* sums, int n, T factor) {
    extern __shared__ T partial[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    partial[threadIdx.x] = i < n ? scaled(x[i], factor) : T(0);
    __syncthreads();
    for (unsigned int half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0) sums[blockIdx.x] = partial[0];
}

inline void launch_scaled_block_sums(const float* d_x, float* d_sums, int n, float factor,
                                     int threads) {
    int blocks = (n + threads - 1) / threads;
    scaled_block_sums<float><<<blocks, threads, threads * sizeof(float)>>>(d_x, d_sums, n,
                                                                           factor);
}
