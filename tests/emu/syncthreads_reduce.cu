// syncthreads_reduce.cu - __syncthreads_count, __syncthreads_and and __syncthreads_or return the
// block-wide count / AND / OR of a predicate to every thread, in blocks of 1, 97 and 1024 threads.
#include "check.h"

static const char* test_name = "syncthreads_reduce";

__global__ void vote(int* results, int modulus) {
    int t = threadIdx.x;
    int count = __syncthreads_count(t % modulus == 0);
    int all_below = __syncthreads_and(t < 100000);
    int any_last = __syncthreads_or(t == (int)blockDim.x - 1 && modulus > 1);
    int all_even = __syncthreads_and(t % 2 == 0);
    results[t * 4 + 0] = count;
    results[t * 4 + 1] = all_below;
    results[t * 4 + 2] = any_last;
    results[t * 4 + 3] = all_even;
}

int main() {
    const int block_sizes[] = {1, 97, 1024};
    const int modulus = 3;
    for (int threads : block_sizes) {
        int* d_results;
        CHECK(cudaMalloc(&d_results, threads * 4 * sizeof(int)));
        vote<<<1, threads>>>(d_results, modulus);
        CHECK(cudaGetLastError());
        int* h = (int*)malloc(threads * 4 * sizeof(int));
        CHECK(cudaMemcpy(h, d_results, threads * 4 * sizeof(int), cudaMemcpyDeviceToHost));
        int expected_count = (threads + modulus - 1) / modulus;
        for (int t = 0; t < threads; t++) {
            EXPECT(h[t * 4] == expected_count, "%d threads: count %d, expected %d", threads, h[t * 4], expected_count);
            EXPECT(h[t * 4 + 1] == 1, "%d threads: and of true = %d", threads, h[t * 4 + 1]);
            EXPECT(h[t * 4 + 2] == 1, "%d threads: or with one true = %d", threads, h[t * 4 + 2]);
            EXPECT(h[t * 4 + 3] == (threads == 1), "%d threads: and of mixed = %d", threads, h[t * 4 + 3]);
        }
        CHECK(cudaFree(d_results));
        free(h);
    }
    return pass(test_name);
}
