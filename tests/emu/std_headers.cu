// std_headers.cu - a program that includes the whole C++ standard library, as homework and
// real-world CUDA code do, builds and runs: the emulator's CUDA keywords must not collide with
// it (libstdc++ itself writes __attribute__((__noinline__)) in <memory>). The kernel uses
// __noinline__ and __forceinline__ functions. Build and run:
//     common/emu/emucc tests/emu/std_headers.cu -o std_headers && ./std_headers
#include <bits/stdc++.h>
#include <memory>
#include <string>

#include "check.h"

static const char* test_name = "std_headers";

__device__ __noinline__ int square(int x) { return x * x; }
__device__ __forceinline__ int twice(int x) { return 2 * x; }

__global__ void twice_the_squares(int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = twice(square(i));
}

int main() {
    const int n = 100;
    std::vector<int> host(n);
    int* device = nullptr;
    CHECK(cudaMalloc(&device, n * sizeof(int)));
    twice_the_squares<<<(n + 31) / 32, 32>>>(device, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(host.data(), device, n * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(device));
    auto expected = std::make_shared<std::vector<int>>(n);
    for (int i = 0; i < n; i++) (*expected)[i] = 2 * i * i;
    for (int i = 0; i < n; i++)
        EXPECT(host[i] == (*expected)[i], "element %d is %d, expected %d", i, host[i], (*expected)[i]);
    return pass(std::string(test_name).c_str());
}
