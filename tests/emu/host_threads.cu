// host_threads.cu - kernels launched from host threads that come and go, as from a std::thread
// per task: more threads in a program's life than the emulator keeps at once (1024), each
// running whole blocks, one after another and four at a time. Each sums its own block of values.
#include <thread>
#include <vector>

#include "check.h"

static const char* test_name = "host_threads";

__global__ void block_sum(const int* values, int* sums) {
    __shared__ int partial[256];
    partial[threadIdx.x] = values[blockIdx.x * blockDim.x + threadIdx.x];
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if ((int)threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(sums, partial[0]);
}

int main() {
    const int blocks = 2, threads = 256, one_after_another = 1100, at_once = 4, rounds = 50;
    std::vector<int> values(blocks * threads);
    int expected = 0;
    for (int i = 0; i < blocks * threads; i++) expected += values[i] = i % 7;
    int *d_values, *d_sums;
    const int tasks = one_after_another + at_once * rounds;
    CHECK(cudaMalloc(&d_values, values.size() * sizeof(int)));
    CHECK(cudaMalloc(&d_sums, tasks * sizeof(int)));
    CHECK(cudaMemcpy(d_values, values.data(), values.size() * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_sums, 0, tasks * sizeof(int)));
    auto task = [&](int number) {
        block_sum<<<blocks, threads>>>(d_values, d_sums + number);
        CHECK(cudaDeviceSynchronize());
    };
    for (int t = 0; t < one_after_another; t++) std::thread(task, t).join();
    for (int round = 0; round < rounds; round++) {
        std::vector<std::thread> group;
        for (int t = 0; t < at_once; t++) group.emplace_back(task, one_after_another + round * at_once + t);
        for (std::thread& thread : group) thread.join();
    }
    std::vector<int> sums(tasks);
    CHECK(cudaMemcpy(sums.data(), d_sums, tasks * sizeof(int), cudaMemcpyDeviceToHost));
    for (int t = 0; t < tasks; t++) EXPECT(sums[t] == expected, "task %d summed %d, not %d", t, sums[t], expected);
    CHECK(cudaFree(d_values));
    CHECK(cudaFree(d_sums));
    return pass(test_name);
}
