// occupancy.cu - the occupancy API and device description give sane, self-consistent answers:
// blocks per multiprocessor fall as blocks grow or use more shared memory, never exceed the
// device's limits, and the suggested block size is a whole number of warps.
#include "check.h"

static const char* test_name = "occupancy";

__global__ void work(float* data) { data[threadIdx.x] *= 2.0f; }

// Static shared memory: a GPU's compiler records the size of a kernel's __shared__ variables, and
// the occupancy API counts it before the kernel has ever run. The sizes here need the body's own
// constant, and an overload without any tells the two apart.
__global__ void staged(float* data) {
    constexpr int stage = 8 * 1024;  // 32 KB of floats
    __shared__ float buffer[stage];
    __shared__ int flag;
    buffer[threadIdx.x] = data[threadIdx.x];
    if (threadIdx.x == 0) flag = 1;
    __syncthreads();
    data[threadIdx.x] = buffer[blockDim.x - 1 - threadIdx.x] + flag;
}
__global__ void staged(int* data) { data[threadIdx.x] += 1; }

// A template kernel: each instance has its own sizes. Declared before it is defined, and its
// header holds a comment, a default and a parameter that only the body uses.
template <int Stage, typename T /* the element */, bool Flagged = true>
__global__ void __launch_bounds__(256) staged_template(T* data);
template <int Stage, typename T /* the element */, bool Flagged>
__global__ void __launch_bounds__(256) staged_template(T* data) {
    __shared__ T buffer[Stage];
    __shared__ int flags[Flagged ? 4 : 1];
    buffer[threadIdx.x] = data[threadIdx.x];
    if (threadIdx.x == 0) flags[0] = 1;
    __syncthreads();
    data[threadIdx.x] = buffer[blockDim.x - 1 - threadIdx.x] + flags[0];
}
// A pack: its instances' parameter lists differ.
template <typename... Values>
__global__ void summed(float* out, Values... values) {
    __shared__ float total[sizeof...(Values) + 1];
    total[0] = (0.0f + ... + float(values));
    out[0] = total[0];
}

// __device__ functions' static shared memory counts for each kernel that reaches them, through
// other functions too, each variable once however often it is called; a function no kernel calls
// counts for none, and neither does a member function called obj.name() that shares a name with
// a free function. A constexpr function stays one.
namespace blocks {
__device__ float warp_partials(float value) {
    __shared__ float partial[32];
    partial[threadIdx.x % 32] = value;
    __syncthreads();
    return partial[0];
}
__device__ __forceinline__ float block_total(float value) {
    __shared__ double total;
    if (threadIdx.x == 0) total = warp_partials(value) + warp_partials(2 * value);
    __syncthreads();
    return (float)total;
}
}  // namespace blocks
template <int Size>
__device__ float windowed(float value) {
    __shared__ float window[Size];
    window[threadIdx.x % Size] = value;
    __syncthreads();
    return window[0];
}
__device__ float never_called(float value) {
    __shared__ float unused[4096];
    unused[threadIdx.x] = value;
    return unused[0];
}
__host__ __device__ constexpr int padded(int count) { return (count + 31) / 32 * 32; }
struct Recorder {
    __device__ float never_called(float value) { return value; }
};
__global__ void totals(float* data) { data[threadIdx.x] = blocks::block_total(data[threadIdx.x]); }
__global__ void partials(float* data) {
    __shared__ float own[padded(10)];
    own[threadIdx.x % 32] = blocks::warp_partials(data[threadIdx.x]);
    data[threadIdx.x] = own[0] + windowed<100>(data[0]) + Recorder().never_called(1.0f);
}

int main() {
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    EXPECT(prop.warpSize == 32 && prop.maxThreadsPerBlock == 1024, "warp %d, max threads %d", prop.warpSize,
           prop.maxThreadsPerBlock);
    EXPECT(prop.multiProcessorCount >= 1 && prop.totalGlobalMem > 0, "no multiprocessors or memory");
    EXPECT(prop.sharedMemPerBlock <= prop.sharedMemPerMultiprocessor, "shared memory limits inconsistent");
    int value = 0;
    CHECK(cudaDeviceGetAttribute(&value, cudaDevAttrMultiProcessorCount, 0));
    EXPECT(value == prop.multiProcessorCount, "attribute and property disagree: %d", value);
    CHECK(cudaDeviceGetAttribute(&value, cudaDevAttrComputeCapabilityMajor, 0));
    EXPECT(value == prop.major, "compute capability major %d", value);
    int clock_khz = 0, bus_bits = 0;
    CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, 0));
    CHECK(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0));
    EXPECT(clock_khz > 0 && bus_bits > 0, "memory clock %d kHz, bus %d bits", clock_khz, bus_bits);
    int version = 0;
    CHECK(cudaRuntimeGetVersion(&version));
    EXPECT(version >= 12000, "runtime version %d", version);
    size_t free_bytes = 0, total_bytes = 0;
    CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    EXPECT(free_bytes > 0 && free_bytes <= total_bytes, "memory info %zu of %zu", free_bytes, total_bytes);

    int previous = 1 << 30;
    for (int block_size = 32; block_size <= 1024; block_size *= 2) {
        int blocks = 0;
        CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, work, block_size, 0));
        EXPECT(blocks >= 1 && blocks * block_size <= prop.maxThreadsPerMultiProcessor,
               "%d blocks of %d threads per multiprocessor", blocks, block_size);
        EXPECT(blocks <= previous, "occupancy grew with the block size at %d", block_size);
        previous = blocks;
    }
    int small_smem = 0, big_smem = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&small_smem, work, 128, 0));
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&big_smem, work, 128, 32 * 1024));
    EXPECT(big_smem < small_smem && big_smem >= 1, "shared memory did not limit: %d vs %d", big_smem, small_smem);
    int min_grid = 0, block = 0;
    CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, work, 0, 0));
    EXPECT(block >= 32 && block <= 1024 && block % 32 == 0, "suggested block size %d", block);
    EXPECT(min_grid >= prop.multiProcessorCount, "suggested minimum grid %d", min_grid);
    cudaFuncAttributes attributes;
    CHECK(cudaFuncGetAttributes(&attributes, work));
    EXPECT(attributes.maxThreadsPerBlock >= block, "kernel max threads %d", attributes.maxThreadsPerBlock);
    EXPECT(attributes.sharedSizeBytes == 0, "work has %zu bytes of static shared memory", attributes.sharedSizeBytes);

    void (*staged_floats)(float*) = staged;
    void (*staged_ints)(int*) = staged;
    const size_t staged_bytes = 8 * 1024 * sizeof(float) + sizeof(int);
    CHECK(cudaFuncGetAttributes(&attributes, staged_floats));
    EXPECT(attributes.sharedSizeBytes == staged_bytes, "staged(float*) has %zu bytes of static shared memory, not %zu",
           attributes.sharedSizeBytes, staged_bytes);
    CHECK(cudaFuncGetAttributes(&attributes, staged_ints));
    EXPECT(attributes.sharedSizeBytes == 0, "staged(int*) has %zu bytes of static shared memory", attributes.sharedSizeBytes);
    struct {
        const void* kernel;
        const char* name;
        size_t bytes;
    } instances[] = {
        {(const void*)staged_template<1024, float>, "staged_template<1024, float>", 1024 * sizeof(float) + 4 * sizeof(int)},
        {(const void*)staged_template<256, double, false>, "staged_template<256, double, false>", 256 * sizeof(double) + sizeof(int)},
        {(const void*)summed<int, int>, "summed<int, int>", 3 * sizeof(float)},
        {(const void*)summed<>, "summed<>", sizeof(float)},
    };
    for (const auto& instance : instances) {
        CHECK(cudaFuncGetAttributes(&attributes, instance.kernel));
        EXPECT(attributes.sharedSizeBytes == instance.bytes, "%s has %zu bytes of static shared memory, not %zu",
               instance.name, attributes.sharedSizeBytes, instance.bytes);
    }
    struct {
        const void* kernel;
        const char* name;
        size_t bytes;
    } callers[] = {
        {(const void*)totals, "totals (block_total, warp_partials)", sizeof(double) + 32 * sizeof(float)},
        {(const void*)partials, "partials (own, warp_partials, windowed<100>)",
         padded(10) * sizeof(float) + 32 * sizeof(float) + 100 * sizeof(float)},
    };
    for (const auto& caller : callers) {
        CHECK(cudaFuncGetAttributes(&attributes, caller.kernel));
        EXPECT(attributes.sharedSizeBytes == caller.bytes, "%s has %zu bytes of static shared memory, not %zu",
               caller.name, attributes.sharedSizeBytes, caller.bytes);
    }
    int static_limited = 0, dynamic_limited = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&static_limited, staged_floats, 128, 0));
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&dynamic_limited, work, 128, staged_bytes));
    EXPECT(static_limited == dynamic_limited && static_limited < small_smem,
           "32 KB of static shared memory allow %d blocks, of dynamic %d, of none %d", static_limited,
           dynamic_limited, small_smem);
    return pass(test_name);
}
