// standard_headers.cu - a program that includes the whole C++ standard library (what
// <bits/stdc++.h> gathers, <memory> and <string> among it) builds and runs under emulation.
// The CUDA keywords the emulator provides must not collide with names the library uses:
// libstdc++ writes __attribute__((__noinline__)), so __noinline__ cannot be a plain macro.
#if __has_include(<bits/stdc++.h>)
#include <bits/stdc++.h>
#endif
#include <memory>
#include <string>
#include <vector>  // a library without <bits/stdc++.h> (LLVM's libc++) gives these three alone

#include "check.h"

static const char* test_name = "standard_headers";

__device__ __noinline__ int square(int x) { return x * x; }
__device__ __forceinline__ int twice(int x) { return 2 * x; }

__global__ void squares(int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = square(i) + twice(i);
}

int main() {
    const int n = 100;
    int* d_out;
    CHECK(cudaMalloc(&d_out, n * sizeof(int)));
    squares<<<(n + 31) / 32, 32>>>(d_out, n);
    CHECK(cudaGetLastError());
    // Host code uses the library as any C++ program does.
    auto host = std::make_shared<std::vector<int>>(n);
    CHECK(cudaMemcpy(host->data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d_out));
    std::string seen;
    for (int i = 0; i < n; i++) {
        EXPECT((*host)[i] == i * i + 2 * i, "out[%d] = %d, expected %d", i, (*host)[i], i * i + 2 * i);
        if (i < 3) seen += std::to_string((*host)[i]) + " ";
    }
    EXPECT(seen == "0 3 8 ", "first values \"%s\"", seen.c_str());
    return pass(test_name);
}
