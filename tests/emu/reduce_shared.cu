// reduce_shared.cu - a shared-memory tree reduction is right with a static __shared__ array and
// with an extern __shared__ array sized at launch, for 1, 1023 and 65537 elements, and block
// sizes 256 and 64 (the dynamic version takes its size from blockDim).
#include "check.h"

static const char* test_name = "reduce_shared";
constexpr int static_block = 256;

__global__ void reduce_static(const int* in, int* block_sums, int n) {
    __shared__ int partial[static_block];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    partial[threadIdx.x] = i < n ? in[i] : 0;
    __syncthreads();
    for (int stride = static_block / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) block_sums[blockIdx.x] = partial[0];
}

__global__ void reduce_dynamic(const int* in, int* block_sums, int n) {
    extern __shared__ int scratch[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    scratch[threadIdx.x] = i < n ? in[i] : 0;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) scratch[threadIdx.x] += scratch[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) block_sums[blockIdx.x] = scratch[0];
}

long long run(bool dynamic, int threads, const int* d_in, int* d_sums, int n, int* h_sums) {
    int blocks = (n + threads - 1) / threads;
    if (dynamic)
        reduce_dynamic<<<blocks, threads, threads * sizeof(int)>>>(d_in, d_sums, n);
    else
        reduce_static<<<blocks, threads>>>(d_in, d_sums, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h_sums, d_sums, blocks * sizeof(int), cudaMemcpyDeviceToHost));
    long long total = 0;
    for (int b = 0; b < blocks; b++) total += h_sums[b];
    return total;
}

int main() {
    const int sizes[] = {1, 1023, 65537};
    for (int n : sizes) {
        int* h_in = (int*)malloc(n * sizeof(int));
        int* h_sums = (int*)malloc(n * sizeof(int));
        long long expected = 0;
        for (int i = 0; i < n; i++) h_in[i] = (i * 7919) % 1000 - 500, expected += h_in[i];
        int *d_in, *d_sums;
        CHECK(cudaMalloc(&d_in, n * sizeof(int)));
        CHECK(cudaMalloc(&d_sums, n * sizeof(int)));
        CHECK(cudaMemcpy(d_in, h_in, n * sizeof(int), cudaMemcpyHostToDevice));
        long long got = run(false, static_block, d_in, d_sums, n, h_sums);
        EXPECT(got == expected, "static shared, n=%d: %lld, expected %lld", n, got, expected);
        for (int threads : {256, 64}) {
            got = run(true, threads, d_in, d_sums, n, h_sums);
            EXPECT(got == expected, "dynamic shared, %d threads, n=%d: %lld, expected %lld", threads, n,
                   got, expected);
        }
        CHECK(cudaFree(d_in));
        CHECK(cudaFree(d_sums));
        free(h_in), free(h_sums);
    }
    return pass(test_name);
}
