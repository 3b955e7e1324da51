// function_attributes.cu - prints what cudaFuncGetAttributes and the occupancy API say of a
// kernel, for tests/emu.bats to compare with CUDA_EMU_REGISTERS and CUDA_EMU_LOCAL_BYTES.
#include <cstdio>

#include <cuda_runtime.h>

__global__ void work(float* data) { data[threadIdx.x] *= 2.0f; }

int main() {
    cudaFuncAttributes attributes;
    int blocks_of_256 = 0;
    if (cudaFuncGetAttributes(&attributes, work) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_of_256, work, 256, 0) != cudaSuccess) {
        printf("FAIL function_attributes: %s\n", cudaGetErrorName(cudaGetLastError()));
        return 1;
    }
    printf("registers %d, local bytes %zu, at most %d threads a block, 256-thread blocks per SM: %d\n",
           attributes.numRegs, (size_t)attributes.localSizeBytes, attributes.maxThreadsPerBlock,
           blocks_of_256);
    return 0;
}
