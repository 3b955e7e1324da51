// libcudacxx_copy.cu - libcu++'s copies from global to shared memory (<cuda/pipeline>,
// <cuda/barrier>): cuda::memcpy_async with a thread's own two-stage pipeline, in a
// double-buffered sum, and with a block's barrier. Run with an argument to see what the emulator
// refuses, each at its line:
//   misaligned        a copy whose aligned_size_t<16> the address does not keep
//   shared-pipeline   a pipeline shared by the block's threads (not emulated)
//   partial-barrier   a barrier that expects half of the block (not emulated)
#include <cooperative_groups.h>
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cuda/std/type_traits>

#include <cstring>

#include "check.h"

namespace cg = cooperative_groups;

static const char* test_name = "libcudacxx_copy";
static_assert(cuda::std::is_same<cuda::std::remove_const<const float>::type, float>::value,
              "cuda::std has the standard type traits");
constexpr int threads = 64, tile = threads * 4;  // a float4 a thread, a tile of 256 floats

// Each block sums its part of x, a tile at a time; tile t + 1 is on its way while tile t is summed.
__global__ void pipelined_sum(const float* x, int tiles_per_block, float* sums) {
    __shared__ __align__(16) float buffer[2][tile];
    cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
    const auto float4_size = cuda::aligned_size_t<16>(sizeof(float4));
    const float* part = x + blockIdx.x * tiles_per_block * tile;
    auto start_copy = [&](int t) {
        pipe.producer_acquire();
        cuda::memcpy_async(&buffer[t % 2][threadIdx.x * 4], &part[t * tile + threadIdx.x * 4], float4_size, pipe);
        pipe.producer_commit();
    };
    float sum = 0;
    start_copy(0);
    for (int t = 0; t < tiles_per_block; t++) {
        if (t + 1 < tiles_per_block) {
            start_copy(t + 1);
            cuda::pipeline_consumer_wait_prior<1>(pipe);  // tile t is here, t + 1 may not be
        } else {
            cuda::pipeline_consumer_wait_prior<0>(pipe);
        }
        __syncthreads();  // every thread's part of tile t
        for (int i = threadIdx.x; i < tile; i += threads) sum += buffer[t % 2][i];
        __syncthreads();  // before buffer t % 2 is filled again
        pipe.consumer_release();
    }
    atomicAdd(sums, sum);
}

// The block copies one tile with a barrier to wait on, and sums it.
__global__ void barrier_sum(const float* x, float* sums) {
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    __shared__ alignas(alignof(float4)) float buffer[tile];  // alignas after __shared__, as nvcc allows
    if (threadIdx.x == 0) init(&bar, blockDim.x);
    __syncthreads();
    cuda::memcpy_async(&buffer[threadIdx.x * 4], &x[threadIdx.x * 4], cuda::aligned_size_t<16>(16), bar);
    bar.arrive_and_wait();  // every thread's copy is here
    float sum = 0;
    for (int i = threadIdx.x; i < tile; i += threads) sum += buffer[i];
    atomicAdd(sums, sum);
}

__global__ void misaligned_copy(const float* x, float* out) {
    __shared__ __align__(16) float buffer[8];
    cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
    pipe.producer_acquire();
    cuda::memcpy_async(buffer, x + 1, cuda::aligned_size_t<16>(16), pipe);  // x + 1: not a multiple of 16
    pipe.producer_commit();
    pipe.consumer_wait();
    out[threadIdx.x] = buffer[0];
}

#ifdef __NVCC__
// libcu++'s shared state has a constructor, which a __shared__ variable does not run; as NVIDIA's
// samples do, the block's threads use it as they find it.
#pragma nv_diag_suppress static_var_with_dynamic_init
#endif
__global__ void shared_pipeline(float* out) {
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> state;
    auto pipe = cuda::make_pipeline(cg::this_thread_block(), &state);  // a block's pipeline
    pipe.producer_acquire();
    pipe.producer_commit();
    out[threadIdx.x] = 0;
}

__global__ void partial_barrier(float* out) {
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    if (threadIdx.x == 0) init(&bar, blockDim.x / 2);
    __syncthreads();
    if (threadIdx.x < blockDim.x / 2) bar.arrive_and_wait();  // half of the block
    out[threadIdx.x] = 0;
}

int main(int argc, char** argv) {
    const int tiles_per_block = 3, count = 2 * tiles_per_block * tile;
    float* h_x = new float[count];
    double expected = 0, first_tile = 0;
    for (int i = 0; i < count; i++) {
        expected += h_x[i] = (float)(i % 13) - 5.0f;
        if (i < tile) first_tile += h_x[i];
    }
    float *d_x, *d_sum, sum = 0;
    CHECK(cudaMalloc(&d_x, count * sizeof(float)));
    CHECK(cudaMalloc(&d_sum, threads * sizeof(float)));
    CHECK(cudaMemcpy(d_x, h_x, count * sizeof(float), cudaMemcpyHostToDevice));
    if (argc > 1) {
        if (strcmp(argv[1], "misaligned") == 0) misaligned_copy<<<1, 32>>>(d_x, d_sum);
        if (strcmp(argv[1], "shared-pipeline") == 0) shared_pipeline<<<1, 32>>>(d_sum);
        if (strcmp(argv[1], "partial-barrier") == 0) partial_barrier<<<1, 32>>>(d_sum);
        printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
        return 1;
    }
    CHECK(cudaMemset(d_sum, 0, sizeof(float)));
    pipelined_sum<<<2, threads>>>(d_x, tiles_per_block, d_sum);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(&sum, d_sum, sizeof sum, cudaMemcpyDeviceToHost));
    EXPECT(sum == (float)expected, "pipelined sum %g, expected %g", sum, expected);
    CHECK(cudaMemset(d_sum, 0, sizeof(float)));
    barrier_sum<<<1, threads>>>(d_x, d_sum);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(&sum, d_sum, sizeof sum, cudaMemcpyDeviceToHost));
    EXPECT(sum == (float)first_tile, "sum after the barrier %g, expected %g", sum, first_tile);
    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_sum));
    delete[] h_x;
    return pass(test_name);
}
