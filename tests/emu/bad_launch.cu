// bad_launch.cu - a launch with an impossible configuration fails with the error a GPU gives,
// readable once through cudaGetLastError, and the kernel does not run.
#include <cstring>

#include "check.h"

static const char* test_name = "bad_launch";

__global__ void mark(int* ran) { *ran = 1; }

int main() {
    int* d_ran;
    CHECK(cudaMalloc(&d_ran, sizeof(int)));
    struct Case {
        const char* what;
        dim3 grid, block;
        size_t shared_bytes;
        cudaError_t expected;
    };
    const Case cases[] = {
        {"1025 threads per block", dim3(1), dim3(1025), 0, cudaErrorInvalidConfiguration},
        {"block of 32 x 33 threads", dim3(1), dim3(32, 33), 0, cudaErrorInvalidConfiguration},
        {"block z of 65", dim3(1), dim3(1, 1, 65), 0, cudaErrorInvalidConfiguration},
        {"zero threads", dim3(1), dim3(0), 0, cudaErrorInvalidConfiguration},
        {"zero blocks", dim3(0), dim3(32), 0, cudaErrorInvalidConfiguration},
        {"grid y of 65536", dim3(1, 65536), dim3(32), 0, cudaErrorInvalidConfiguration},
        {"1 MiB of dynamic shared memory", dim3(1), dim3(32), 1 << 20, cudaErrorInvalidValue},
    };
    for (const Case& c : cases) {
        CHECK(cudaMemset(d_ran, 0, sizeof(int)));
        mark<<<c.grid, c.block, c.shared_bytes>>>(d_ran);
        cudaError_t error = cudaGetLastError();
        EXPECT(error == c.expected, "%s: got %s, expected %s", c.what, cudaGetErrorName(error),
               cudaGetErrorName(c.expected));
        EXPECT(cudaGetLastError() == cudaSuccess, "%s: the error was not cleared by reading it", c.what);
        int ran = 0;
        CHECK(cudaMemcpy(&ran, d_ran, sizeof ran, cudaMemcpyDeviceToHost));
        EXPECT(ran == 0, "%s: the kernel ran anyway", c.what);
    }
    // A good launch after bad ones works, and a negative size shows up as a huge unsigned one.
    mark<<<1, 1024>>>(d_ran);
    CHECK(cudaGetLastError());
    int blocks = -1;
    mark<<<blocks, 32>>>(d_ran);
    EXPECT(cudaGetLastError() == cudaErrorInvalidConfiguration, "a grid of -1 blocks was accepted");
    EXPECT(cudaMemcpy(d_ran, d_ran, 1 << 20, cudaMemcpyDeviceToDevice) == cudaErrorInvalidValue,
           "a copy larger than the allocation was accepted");
    EXPECT(strcmp(cudaGetErrorString(cudaErrorInvalidConfiguration), "invalid configuration argument") == 0,
           "error string: %s", cudaGetErrorString(cudaErrorInvalidConfiguration));
    cudaGetLastError();
    return pass(test_name);
}
