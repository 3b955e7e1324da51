// bug_shared_static_out_of_bounds.cu - a deliberate bug: a 1-D stencil whose tile has no room
// for its halo, so the last thread of each block writes one element past the __shared__ array.
// On a GPU that write lands in whatever lies next to the array; `emucc --sanitize` reports it
// with its line (tests/sanitize.bats). With the argument `aligned`, the same bug in a kernel whose
// tiles are declared `__shared__ alignas(16)`, as for vector loads.
#include <cstring>

#include "check.h"

static const char* test_name = "bug_shared_static_out_of_bounds";
constexpr int threads_per_block = 32;

__global__ void with_right_neighbour(const int* in, int* out, int n) {
    __shared__ int tile[threads_per_block];  // BUG: needs threads_per_block + 1
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = i < n ? in[i] : 0;
    if (threadIdx.x == blockDim.x - 1) tile[threadIdx.x + 1] = i + 1 < n ? in[i + 1] : 0;  // past the end
    __syncthreads();
    if (i < n) out[i] = tile[threadIdx.x] + tile[threadIdx.x + 1];
}

__global__ void with_right_neighbour_aligned(const int* in, int* out, int n) {
    __shared__ alignas(16) int tile[threads_per_block];  // BUG: needs threads_per_block + 1
    __shared__ alignas(16) int doubled[threads_per_block];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = i < n ? in[i] : 0;
    doubled[threadIdx.x] = 2 * tile[threadIdx.x];
    if (threadIdx.x == blockDim.x - 1) tile[threadIdx.x + 1] = i + 1 < n ? in[i + 1] : 0;  // past the aligned end
    __syncthreads();
    if (i < n) out[i] = doubled[threadIdx.x] + tile[threadIdx.x + 1];
}

int main(int argc, char** argv) {
    bool aligned = argc > 1 && strcmp(argv[1], "aligned") == 0;
    const int n = 64;
    int h_in[n], h_out[n];
    for (int i = 0; i < n; i++) h_in[i] = i;
    int *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, sizeof h_in));
    CHECK(cudaMalloc(&d_out, sizeof h_out));
    CHECK(cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice));
    if (aligned)
        with_right_neighbour_aligned<<<n / threads_per_block, threads_per_block>>>(d_in, d_out, n);
    else
        with_right_neighbour<<<n / threads_per_block, threads_per_block>>>(d_in, d_out, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost));
    return pass(test_name);
}
