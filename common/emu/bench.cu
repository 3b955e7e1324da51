// bench.cu - how fast the CPU emulator runs the two things that decide its speed.
//
// Part of the CPU emulation backend (common/emu/); `make bench` runs it. Build and run by hand:
//     common/emu/emucc common/emu/bench.cu -o build/emu-bench && build/emu-bench
//
// 1. A context switch: one block of 256 threads meets __syncthreads 2,000 times. Each time,
//    every thread is suspended once and resumed once, so time / (threads * barriers) is the cost
//    of handing the CPU from one emulated GPU thread to the next (barrier bookkeeping included).
// 2. A 16M-element shared-memory tree reduction, 256 threads per block: 65,536 blocks, each with
//    9 barriers (one after the load, one per halving), about 151 million thread switches in all.
//    This is the heaviest pattern the course's kernels use, so it bounds their emulation time.
// The same file compiles with nvcc, where the numbers mean something else entirely.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define CHECK(call)                                                                     \
    do {                                                                                \
        cudaError_t status = (call);                                                    \
        if (status != cudaSuccess) {                                                    \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(status)); \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

constexpr int switch_threads = 256;
constexpr int switch_barriers = 2000;
constexpr int reduce_threads = 256;        // threads per block, a power of two for the tree
constexpr int reduce_n = 16 * 1024 * 1024;  // 16M floats = 64 MiB

__global__ void barrier_loop(int* out) {
    int count = 0;
    for (int i = 0; i < switch_barriers; i++) {
        count += i;
        __syncthreads();
    }
    if (threadIdx.x == 0) *out = count;
}

__global__ void reduce_blocks(const float* in, float* block_sums, int n) {
    __shared__ float partial[reduce_threads];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    partial[threadIdx.x] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
        __syncthreads();  // the next level reads what this level wrote
    }
    if (threadIdx.x == 0) block_sums[blockIdx.x] = partial[0];
}

float elapsed_ms(cudaEvent_t start, cudaEvent_t stop) {
    float ms = 0;
    CHECK(cudaEventSynchronize(stop));
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    return ms;
}

int main() {
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    printf("device: %s\n", prop.name);
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));

    int* d_out;
    CHECK(cudaMalloc(&d_out, sizeof(int)));
    barrier_loop<<<1, switch_threads>>>(d_out);  // warm-up: stacks get allocated here
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(start));
    barrier_loop<<<1, switch_threads>>>(d_out);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(stop));
    double switch_ns = elapsed_ms(start, stop) * 1e6 / ((double)switch_threads * switch_barriers);
    printf("context switch at a barrier: %.1f ns\n", switch_ns);

    int blocks = (reduce_n + reduce_threads - 1) / reduce_threads;
    std::vector<float> h_in(reduce_n, 1.0f), h_sums(blocks);
    float *d_in, *d_sums;
    CHECK(cudaMalloc(&d_in, reduce_n * sizeof(float)));
    CHECK(cudaMalloc(&d_sums, blocks * sizeof(float)));
    CHECK(cudaMemcpy(d_in, h_in.data(), reduce_n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaEventRecord(start));
    reduce_blocks<<<blocks, reduce_threads>>>(d_in, d_sums, reduce_n);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(stop));
    float reduce_ms = elapsed_ms(start, stop);
    CHECK(cudaMemcpy(h_sums.data(), d_sums, blocks * sizeof(float), cudaMemcpyDeviceToHost));
    double total = 0;
    for (float s : h_sums) total += s;
    printf("16M-element shared-memory reduction (256 threads/block): %.2f s (sum %s)\n",
           reduce_ms / 1000.0, total == reduce_n ? "correct" : "WRONG");

    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_sums));
    return total == reduce_n ? 0 : 1;
}
