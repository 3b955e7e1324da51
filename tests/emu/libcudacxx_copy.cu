// libcudacxx_copy.cu - libcu++'s copies from global to shared memory (<cuda/pipeline>,
// <cuda/barrier>): cuda::memcpy_async with a thread's own two-stage pipeline, in a
// double-buffered sum, and with a block's barrier (each thread's copy, or the block's together);
// a pipeline the block shares, one warp producing tiles and the other summing them, with roles,
// with a count of producers, and without roles; a barrier's split arrive() and wait(), a barrier
// for half of the block, and arrive_and_drop(). Run with an argument to see a mistake reported at
// its line:
//   misaligned        a copy whose aligned_size_t<16> the address does not keep
//   missing-arrival   a barrier that expects the whole block, where half of it arrives
//   extra-arrival     a barrier that expects three arrivals, where two threads arrive twice
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

#ifdef __NVCC__
// libcu++'s barriers and shared state have constructors, which a __shared__ variable does not run;
// init() and make_pipeline set them up, as in NVIDIA's samples.
#pragma nv_diag_suppress static_var_with_dynamic_init
#endif

// The block copies one tile with a barrier to wait on, and sums it: each thread starts the copy of
// its float4, or (whole_block) the block starts the copy of the tile together.
__global__ void barrier_sum(const float* x, float* sums, bool whole_block) {
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    __shared__ alignas(alignof(float4)) float buffer[tile];  // alignas after __shared__, as nvcc allows
    if (threadIdx.x == 0) init(&bar, blockDim.x);
    __syncthreads();
    if (whole_block)
        cuda::memcpy_async(cg::this_thread_block(), buffer, x, cuda::aligned_size_t<16>(sizeof buffer), bar);
    else
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

constexpr int stages = 2, tiles_in_flight = 5;  // more tiles than stages: the ring wraps round

enum class Roles { each_says_its_own, count_of_producers, every_thread_both };

// Warp 1 copies tiles of 32 floats into a ring of `stages` buffers, warp 0 sums them as they come
// (with every_thread_both, the block copies each tile together, and both warps sum it).
template <Roles roles>
__global__ void shared_pipeline_sum(const float* x, float* sums) {
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, stages> state;
    __shared__ float ring[stages][32];
    auto block = cg::this_thread_block();
    bool producer = threadIdx.x >= 32, consumer = !producer;
    auto pipe = roles == Roles::each_says_its_own
                    ? cuda::make_pipeline(block, &state, producer ? cuda::pipeline_role::producer
                                                                  : cuda::pipeline_role::consumer)
                : roles == Roles::count_of_producers ? cuda::make_pipeline(block, &state, (size_t)32)
                                                     : cuda::make_pipeline(block, &state);
    if (roles == Roles::every_thread_both) producer = consumer = true;
    int lane = threadIdx.x % 32;
    float sum = 0;
    for (int t = 0; t < tiles_in_flight; t++) {
        if (producer) {
            pipe.producer_acquire();  // stage t % stages is free again
            if (roles == Roles::every_thread_both)  // the block copies the tile together
                cuda::memcpy_async(block, ring[t % stages], &x[t * 32], sizeof ring[0], pipe);
            else
                cuda::memcpy_async(&ring[t % stages][lane], &x[t * 32 + lane], sizeof(float), pipe);
            pipe.producer_commit();
        }
        if (consumer) {
            pipe.consumer_wait();  // every producer has committed tile t
            for (int i = 0; i < 32; i += 2) sum += ring[t % stages][(lane + i) % 32];  // half the tile
            pipe.consumer_release();
        }
    }
    if (consumer) atomicAdd(sums, sum);
}

// Each thread posts its value, arrives, works on while the others arrive, then waits and reads its
// neighbour's. Warp 0 also keeps a barrier of its own (half of the block), which one lane leaves
// after the first phase with arrive_and_drop.
__global__ void split_barrier(const float* x, float* out) {
    __shared__ cuda::barrier<cuda::thread_scope_block> whole, warp0;
    __shared__ float posted[threads], rounds[32];
    if (threadIdx.x == 0) {
        init(&whole, blockDim.x);
        init(&warp0, 32);
    }
    __syncthreads();
    posted[threadIdx.x] = x[threadIdx.x];
    auto token = whole.arrive();
    float own = 2 * x[threadIdx.x];  // work that needs no other thread
    whole.wait(std::move(token));
    out[threadIdx.x] = own + posted[(threadIdx.x + 1) % blockDim.x];
    if (threadIdx.x < 32) {
        rounds[threadIdx.x] = 1;
        if (threadIdx.x == 31) {
            warp0.arrive_and_drop();  // lane 31 leaves: the next phase expects 31
            return;
        }
        warp0.arrive_and_wait();
        float next = rounds[(threadIdx.x + 1) % 32];
        warp0.arrive_and_wait();  // phase 2: 31 arrivals end it
        out[threadIdx.x] += rounds[threadIdx.x] + next;
    }
}

__global__ void missing_arrival(float* out) {
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    if (threadIdx.x == 0) init(&bar, blockDim.x);
    __syncthreads();
    if (threadIdx.x < blockDim.x / 2) bar.arrive_and_wait();  // half of the block arrives
    out[threadIdx.x] = 0;
}

__global__ void extra_arrival(float* out) {
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    if (threadIdx.x == 0) init(&bar, 3);
    __syncthreads();
    if (threadIdx.x < 2) (void)bar.arrive(2);  // four arrivals in a phase of three
    out[threadIdx.x] = 0;
}

template <Roles roles>
static void check_shared_pipeline(const float* d_x, float* d_sum, const float* h_x, const char* how) {
    double expected = 0;
    for (int i = 0; i < tiles_in_flight * 32; i++) expected += h_x[i] * (roles == Roles::every_thread_both ? 2 : 1);
    float sum = 0;
    CHECK(cudaMemset(d_sum, 0, sizeof(float)));
    shared_pipeline_sum<roles><<<1, 64>>>(d_x, d_sum);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(&sum, d_sum, sizeof sum, cudaMemcpyDeviceToHost));
    // each tile is summed by 32 consumers, each adding half of it: every value 16 times
    EXPECT(sum == (float)(16 * expected), "pipeline %s: sum %g, expected %g", how, sum, 16 * expected);
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
        if (strcmp(argv[1], "missing-arrival") == 0) missing_arrival<<<1, 64>>>(d_sum);
        if (strcmp(argv[1], "extra-arrival") == 0) extra_arrival<<<1, 64>>>(d_sum);
        printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
        return 1;
    }
    CHECK(cudaMemset(d_sum, 0, sizeof(float)));
    pipelined_sum<<<2, threads>>>(d_x, tiles_per_block, d_sum);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(&sum, d_sum, sizeof sum, cudaMemcpyDeviceToHost));
    EXPECT(sum == (float)expected, "pipelined sum %g, expected %g", sum, expected);
    for (bool whole_block : {false, true}) {
        CHECK(cudaMemset(d_sum, 0, sizeof(float)));
        barrier_sum<<<1, threads>>>(d_x, d_sum, whole_block);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(&sum, d_sum, sizeof sum, cudaMemcpyDeviceToHost));
        EXPECT(sum == (float)first_tile, "sum after the barrier (%s) %g, expected %g",
               whole_block ? "the block's copy" : "each thread's copy", sum, first_tile);
    }
    check_shared_pipeline<Roles::each_says_its_own>(d_x, d_sum, h_x, "with roles");
    check_shared_pipeline<Roles::count_of_producers>(d_x, d_sum, h_x, "with a count of producers");
    check_shared_pipeline<Roles::every_thread_both>(d_x, d_sum, h_x, "without roles");
    static float h_out[threads];
    CHECK(cudaMemset(d_sum, 0, threads * sizeof(float)));
    split_barrier<<<1, threads>>>(d_x, d_sum);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h_out, d_sum, sizeof h_out, cudaMemcpyDeviceToHost));
    for (int i = 0; i < threads; i++) {
        float want = 2 * h_x[i] + h_x[(i + 1) % threads] + (i < 31 ? 2 : 0);
        EXPECT(h_out[i] == want, "split barrier: thread %d got %g, expected %g", i, h_out[i], want);
    }
    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_sum));
    delete[] h_x;
    return pass(test_name);
}
