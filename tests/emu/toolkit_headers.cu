// toolkit_headers.cu - code written for NVIDIA's headers finds what it looks for: the headers
// beside cuda_runtime.h, their include guards (NVIDIA's helper_cuda.h tests __DRIVER_TYPES_H__
// and __CUDA_RUNTIME_H__ to decide what to define), the compute mode and the profiler calls.
#include <builtin_types.h>
#include <cuda_profiler_api.h>
#include <device_launch_parameters.h>
#include <driver_types.h>
#include <vector_types.h>

#include "check.h"

static const char* test_name = "toolkit_headers";

#if !defined(__DRIVER_TYPES_H__) || !defined(__CUDA_RUNTIME_H__) || !defined(__VECTOR_TYPES_H__)
#error "the toolkit's include guards are not defined"
#endif

__global__ void fill(float4* out) { out[threadIdx.x] = make_float4(threadIdx.x, 1, 2, 3); }

int main() {
    int mode = -1;
    CHECK(cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, 0));
    EXPECT(mode != cudaComputeModeProhibited, "the device's compute mode prohibits its use");
    CHECK(cudaProfilerStart());
    float4* d_out;
    CHECK(cudaMalloc(&d_out, 4 * sizeof(float4)));
    fill<<<1, 4>>>(d_out);
    CHECK(cudaGetLastError());
    float4 h[4];
    CHECK(cudaMemcpy(h, d_out, sizeof h, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d_out));
    CHECK(cudaProfilerStop());
    EXPECT(h[3].x == 3 && h[3].w == 3, "out[3] = (%g, %g, %g, %g)", h[3].x, h[3].y, h[3].z, h[3].w);
    return pass(test_name);
}
