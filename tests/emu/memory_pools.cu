// memory_pools.cu - stream-ordered allocation: cudaMallocAsync and cudaFreeAsync in a stream's
// order, the device's default pool and pools made with cudaMemPoolCreate, their attributes and
// statistics, the reuse of freed blocks, and the runtime's errors for misuse. A GPU's pool
// reserves memory in larger pieces and reuses blocks by its own rules, so the checks of exact
// byte counts and addresses are the emulator's only.
//
// With an argument, it makes one of the mistakes the emulator's checks catch in pool memory as
// they do in cudaMalloc memory (tests/emu.bats, tests/sanitize.bats):
//   overrun         a kernel writes one element past a cudaMallocAsync buffer (CUDA_EMU_GUARD=1)
//   use-after-free  a kernel writes a buffer after its cudaFreeAsync (CUDA_EMU_GUARD=1)
//   stale           a kernel reads a reused block before anything wrote it (emucc --sanitize);
//                   run plainly, it prints the sum of what the block still held
#include <cstdint>
#include <cstring>
#include <string>

#include "check.h"

static const char* test_name = "memory_pools";
constexpr int n = 5000;
constexpr size_t bytes = n * sizeof(float);  // 20,000
#ifdef CUDA_EMULATION
constexpr uint64_t block_bytes = 20224;  // the emulator's block: 20,000 rounded up to 256
#endif

__global__ void fill(float* data, float value, int count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) data[i] = value;
}

__global__ void add(const float* a, const float* b, float* sum, int count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) sum[i] = a[i] + b[i];
}

__global__ void sum_into(const float* data, float* total, int count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) atomicAdd(total, data[i]);
}

constexpr int threads = 256;
constexpr int blocks = (n + threads - 1) / threads;

// A call that must fail with `expected`, which it also leaves as the last error.
#define EXPECT_ERROR(call, expected)                                                            \
    do {                                                                                        \
        cudaError_t got_ = (call);                                                              \
        EXPECT(got_ == (expected), "%s returned %s, not %s", #call, cudaGetErrorName(got_),     \
               cudaGetErrorName(expected));                                                     \
        EXPECT(cudaGetLastError() == (expected), "%s left another last error", #call);          \
    } while (0)

static uint64_t bytes_of(cudaMemPool_t pool, cudaMemPoolAttr attr) {
    uint64_t value = 0;
    CHECK(cudaMemPoolGetAttribute(pool, attr, &value));
    return value;
}

static int policy(cudaMemPool_t pool, cudaMemPoolAttr attr) {
    int value = -1;
    CHECK(cudaMemPoolGetAttribute(pool, attr, &value));
    return value;
}

static cudaMemPool_t create_pool() {
    cudaMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    cudaMemPool_t pool;
    CHECK(cudaMemPoolCreate(&pool, &props));
    return pool;
}

// The device supports pools; its current pool is its default one, with CUDA's default attributes.
static void check_default_pool() {
    int supported = 0;
    CHECK(cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, 0));
    EXPECT(supported == 1, "cudaDevAttrMemoryPoolsSupported is %d", supported);
#ifdef CUDA_EMULATION
    int handle_types = -1;  // one process: no other to share a pool with
    CHECK(cudaDeviceGetAttribute(&handle_types, cudaDevAttrMemoryPoolSupportedHandleTypes, 0));
    EXPECT(handle_types == 0, "cudaDevAttrMemoryPoolSupportedHandleTypes is %d", handle_types);
#endif
    cudaMemPool_t default_pool, current;
    CHECK(cudaDeviceGetDefaultMemPool(&default_pool, 0));
    CHECK(cudaDeviceGetMemPool(&current, 0));
    EXPECT(current == default_pool, "the current pool is not the default pool at start");
    EXPECT(bytes_of(default_pool, cudaMemPoolAttrReleaseThreshold) == 0, "release threshold not 0");
    EXPECT(policy(default_pool, cudaMemPoolReuseFollowEventDependencies) == 1 &&
               policy(default_pool, cudaMemPoolReuseAllowOpportunistic) == 1 &&
               policy(default_pool, cudaMemPoolReuseAllowInternalDependencies) == 1,
           "a reuse policy is off by default");
    cudaMemLocation device = {cudaMemLocationTypeDevice, 0};
    cudaMemAccessFlags access = cudaMemAccessFlagsProtNone;
    CHECK(cudaMemPoolGetAccess(&access, default_pool, &device));
    EXPECT(access == cudaMemAccessFlagsProtReadWrite, "device 0's access to its pool is %d", access);
}

// NVIDIA's streamOrderedAllocation pattern: allocate, copy, compute and free in one stream; the
// inputs are freed after the kernel that reads them is queued, and the host waits only at the end.
static void vector_add_in_stream_order(cudaStream_t stream) {
    float *h_a, *h_b, *h_sum;
    CHECK(cudaMallocHost(&h_a, bytes));
    CHECK(cudaMallocHost(&h_b, bytes));
    CHECK(cudaMallocHost(&h_sum, bytes));
    for (int i = 0; i < n; i++) {
        h_a[i] = (float)i;
        h_b[i] = 0.5f * i;
    }
    cudaMemPool_t pool;
    CHECK(cudaDeviceGetMemPool(&pool, 0));
    uint64_t used_before = bytes_of(pool, cudaMemPoolAttrUsedMemCurrent);
    float *d_a, *d_b, *d_sum;
    CHECK(cudaMallocAsync(&d_a, bytes, stream));
    CHECK(cudaMallocAsync(&d_b, bytes, stream));
    CHECK(cudaMallocAsync(&d_sum, bytes, stream));
    EXPECT(bytes_of(pool, cudaMemPoolAttrUsedMemCurrent) >= used_before + 3 * bytes,
           "three allocations of %zu bytes used %llu bytes of the pool", bytes,
           (unsigned long long)(bytes_of(pool, cudaMemPoolAttrUsedMemCurrent) - used_before));
    CHECK(cudaMemcpyAsync(d_a, h_a, bytes, cudaMemcpyHostToDevice, stream));
    CHECK(cudaMemcpyAsync(d_b, h_b, bytes, cudaMemcpyHostToDevice, stream));
    add<<<blocks, threads, 0, stream>>>(d_a, d_b, d_sum, n);
    CHECK(cudaGetLastError());
    CHECK(cudaFreeAsync(d_a, stream));
    CHECK(cudaFreeAsync(d_b, stream));
    CHECK(cudaMemcpyAsync(h_sum, d_sum, bytes, cudaMemcpyDeviceToHost, stream));
    CHECK(cudaFreeAsync(d_sum, stream));
    CHECK(cudaStreamSynchronize(stream));
    for (int i = 0; i < n; i++) EXPECT(h_sum[i] == 1.5f * i, "sum[%d] = %g", i, h_sum[i]);
    EXPECT(bytes_of(pool, cudaMemPoolAttrUsedMemCurrent) == used_before,
           "the pool's used memory did not go back after the frees");
    CHECK(cudaFreeHost(h_a));
    CHECK(cudaFreeHost(h_b));
    CHECK(cudaFreeHost(h_sum));
}

// A pool of one's own: its statistics, the reuse of a freed block, the release threshold,
// cudaMemPoolTrimTo and the high-water marks.
static void reuse_and_statistics(cudaStream_t stream, cudaStream_t other) {
    cudaMemPool_t pool = create_pool();
    EXPECT(bytes_of(pool, cudaMemPoolAttrReservedMemCurrent) == 0 &&
               bytes_of(pool, cudaMemPoolAttrUsedMemCurrent) == 0,
           "a new pool holds memory");
    float *first, *second;
    CHECK(cudaMallocFromPoolAsync(&first, bytes, pool, stream));
    uint64_t used = bytes_of(pool, cudaMemPoolAttrUsedMemCurrent);
    uint64_t reserved = bytes_of(pool, cudaMemPoolAttrReservedMemCurrent);
    EXPECT(used >= bytes && reserved >= used, "used %llu, reserved %llu bytes for %zu",
           (unsigned long long)used, (unsigned long long)reserved, bytes);
    CHECK(cudaFreeAsync(first, stream));
    EXPECT(bytes_of(pool, cudaMemPoolAttrUsedMemCurrent) == 0, "used memory after the free");
    // With a pool, cudaMallocAsync is NVIDIA's C++ spelling of cudaMallocFromPoolAsync.
    CHECK(cudaMallocAsync(&second, bytes, pool, stream));
#ifdef CUDA_EMULATION
    EXPECT(used == block_bytes && reserved == block_bytes, "used %llu, reserved %llu bytes",
           (unsigned long long)used, (unsigned long long)reserved);
    EXPECT(second == first, "the block freed in the stream was not reused");
    EXPECT(bytes_of(pool, cudaMemPoolAttrReservedMemCurrent) == block_bytes,
           "the reuse reserved more memory");
#endif
    CHECK(cudaFreeAsync(second, stream));
    CHECK(cudaStreamSynchronize(stream));
#ifdef CUDA_EMULATION
    // Release threshold 0: at the synchronize the pool gave its freed block back.
    EXPECT(bytes_of(pool, cudaMemPoolAttrReservedMemCurrent) == 0,
           "%llu bytes still reserved after a synchronize",
           (unsigned long long)bytes_of(pool, cudaMemPoolAttrReservedMemCurrent));
#endif

    // A high threshold keeps the freed block past a synchronize; cudaMemPoolTrimTo gives it back.
    uint64_t keep_everything = UINT64_MAX;
    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_everything));
    EXPECT(bytes_of(pool, cudaMemPoolAttrReleaseThreshold) == UINT64_MAX, "threshold not kept");
    CHECK(cudaMallocFromPoolAsync(&first, bytes, pool, stream));
    CHECK(cudaFreeAsync(first, stream));
    CHECK(cudaStreamSynchronize(stream));
#ifdef CUDA_EMULATION
    EXPECT(bytes_of(pool, cudaMemPoolAttrReservedMemCurrent) == block_bytes,
           "a threshold of UINT64_MAX did not keep the freed block");
#endif
    CHECK(cudaMemPoolTrimTo(pool, 0));
#ifdef CUDA_EMULATION
    EXPECT(bytes_of(pool, cudaMemPoolAttrReservedMemCurrent) == 0, "cudaMemPoolTrimTo(0) kept memory");

    // Reuse from another stream: the default policies allow it at once; with all three off, a
    // block freed in one stream goes to another only once the host has waited for the free.
    float* in_other;
    CHECK(cudaMallocFromPoolAsync(&first, bytes, pool, stream));
    CHECK(cudaFreeAsync(first, stream));
    CHECK(cudaMallocFromPoolAsync(&in_other, bytes, pool, other));
    EXPECT(in_other == first, "the default policies did not reuse a block in another stream");
    CHECK(cudaFreeAsync(in_other, other));
    int off = 0;
    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolReuseFollowEventDependencies, &off));
    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolReuseAllowOpportunistic, &off));
    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolReuseAllowInternalDependencies, &off));
    CHECK(cudaMemPoolTrimTo(pool, 0));
    CHECK(cudaMallocFromPoolAsync(&first, bytes, pool, stream));
    CHECK(cudaFreeAsync(first, stream));
    CHECK(cudaMallocFromPoolAsync(&in_other, bytes, pool, other));
    EXPECT(in_other != first, "a block was reused in another stream against the pool's policies");
    CHECK(cudaStreamSynchronize(stream));
    CHECK(cudaMallocFromPoolAsync(&second, bytes, pool, other));
    EXPECT(second == first, "the block was not reused after the host waited for its free");
    CHECK(cudaFreeAsync(in_other, other));
    CHECK(cudaFreeAsync(second, other));
    CHECK(cudaStreamSynchronize(other));
#endif

    // The high-water marks are reset to the current figures by setting them to 0.
    EXPECT(bytes_of(pool, cudaMemPoolAttrUsedMemHigh) >= bytes &&
               bytes_of(pool, cudaMemPoolAttrReservedMemHigh) >= bytes,
           "high-water marks below one allocation");
    uint64_t zero = 0;
    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &zero));
    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReservedMemHigh, &zero));
    EXPECT(bytes_of(pool, cudaMemPoolAttrUsedMemHigh) == bytes_of(pool, cudaMemPoolAttrUsedMemCurrent),
           "the used high-water mark was not reset");
    EXPECT(bytes_of(pool, cudaMemPoolAttrReservedMemHigh) ==
               bytes_of(pool, cudaMemPoolAttrReservedMemCurrent),
           "the reserved high-water mark was not reset");
    CHECK(cudaMemPoolDestroy(pool));
}

// cudaDeviceSetMemPool makes cudaMallocAsync draw from another pool. Destroying that pool while
// a block of it is in use is allowed: the block stays good until freed, and the device's current
// pool is its default one again.
static void current_pool_and_destroy(cudaStream_t stream) {
    cudaMemPool_t pool = create_pool(), current, default_pool;
    CHECK(cudaDeviceSetMemPool(0, pool));
    CHECK(cudaDeviceGetMemPool(&current, 0));
    EXPECT(current == pool, "cudaDeviceSetMemPool did not change the current pool");
    float* d_data;
    CHECK(cudaMallocAsync(&d_data, bytes, stream));
    EXPECT(bytes_of(pool, cudaMemPoolAttrUsedMemCurrent) >= bytes,
           "cudaMallocAsync did not draw from the current pool");
    CHECK(cudaMemPoolDestroy(pool));
    CHECK(cudaDeviceGetMemPool(&current, 0));
    CHECK(cudaDeviceGetDefaultMemPool(&default_pool, 0));
    EXPECT(current == default_pool, "after the current pool was destroyed, the default is not current");
    fill<<<blocks, threads, 0, stream>>>(d_data, 7.0f, n);
    CHECK(cudaGetLastError());
    float* last;  // pinned: a copy into pageable memory would not be asynchronous
    CHECK(cudaMallocHost(&last, sizeof *last));
    CHECK(cudaMemcpyAsync(last, d_data + n - 1, sizeof *last, cudaMemcpyDeviceToHost, stream));
    CHECK(cudaFreeAsync(d_data, stream));
    CHECK(cudaStreamSynchronize(stream));
    EXPECT(*last == 7.0f, "a block of a destroyed pool read back %g", *last);
    CHECK(cudaFreeHost(last));
}

// cudaFreeAsync takes cudaMalloc memory too, and cudaFree takes cudaMallocAsync memory.
static void mixed_frees(cudaStream_t stream) {
    float *plain, *pooled;
    CHECK(cudaMalloc(&plain, bytes));
    CHECK(cudaFreeAsync(plain, stream));
    CHECK(cudaMallocAsync(&pooled, bytes, stream));
    CHECK(cudaStreamSynchronize(stream));
    CHECK(cudaFree(pooled));
}

// Misuse gets the real runtime's error codes.
static void errors(cudaStream_t stream) {
    cudaMemPool_t default_pool;
    CHECK(cudaDeviceGetDefaultMemPool(&default_pool, 0));
    float* d_data;
    CHECK(cudaMallocAsync(&d_data, bytes, stream));
    CHECK(cudaFreeAsync(d_data, stream));
    EXPECT_ERROR(cudaFreeAsync(d_data, stream), cudaErrorInvalidValue);  // freed twice
    EXPECT(std::string(cudaGetErrorString(cudaErrorInvalidValue)) == "invalid argument",
           "cudaErrorInvalidValue reads \"%s\"", cudaGetErrorString(cudaErrorInvalidValue));
#ifdef CUDA_EMULATION
    float value = 1.0f;  // a freed block is no device memory to cudaMemcpy
    EXPECT_ERROR(cudaMemcpy(d_data, &value, sizeof value, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
#endif
    CHECK(cudaFreeAsync(nullptr, stream));
    EXPECT_ERROR(cudaMallocFromPoolAsync(&d_data, bytes, nullptr, stream), cudaErrorInvalidValue);
    EXPECT_ERROR(cudaMallocAsync(&d_data, SIZE_MAX, stream), cudaErrorMemoryAllocation);
    CHECK(cudaStreamSynchronize(stream));

    uint64_t five = 5;
    EXPECT_ERROR(cudaMemPoolSetAttribute(nullptr, cudaMemPoolAttrReleaseThreshold, &five),
                 cudaErrorInvalidValue);
    EXPECT_ERROR(cudaMemPoolGetAttribute(default_pool, (cudaMemPoolAttr)0x99, &five),
                 cudaErrorInvalidValue);
    EXPECT_ERROR(cudaMemPoolSetAttribute(default_pool, (cudaMemPoolAttr)0x99, &five),
                 cudaErrorInvalidValue);
    EXPECT_ERROR(cudaMemPoolSetAttribute(default_pool, cudaMemPoolAttrReservedMemCurrent, &five),
                 cudaErrorInvalidValue);  // a figure to read, not to set
    EXPECT_ERROR(cudaMemPoolSetAttribute(default_pool, cudaMemPoolAttrUsedMemHigh, &five),
                 cudaErrorInvalidValue);  // a high-water mark is reset to 0 only
    EXPECT_ERROR(cudaMemPoolDestroy(default_pool), cudaErrorInvalidValue);

    // Device 0 keeps read-write access to its pools; a device that does not exist gets none.
    cudaMemAccessDesc desc;
    memset(&desc, 0, sizeof desc);
    desc.location.type = cudaMemLocationTypeDevice;
    desc.location.id = 0;
    desc.flags = cudaMemAccessFlagsProtReadWrite;
    CHECK(cudaMemPoolSetAccess(default_pool, &desc, 1));
    desc.flags = cudaMemAccessFlagsProtNone;
    EXPECT_ERROR(cudaMemPoolSetAccess(default_pool, &desc, 1), cudaErrorInvalidDevice);
    desc.flags = cudaMemAccessFlagsProtReadWrite;
    int devices = 0;
    CHECK(cudaGetDeviceCount(&devices));
    desc.location.id = devices;
    EXPECT_ERROR(cudaMemPoolSetAccess(default_pool, &desc, 1), cudaErrorInvalidDevice);

    cudaMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = devices;
    cudaMemPool_t pool;
    EXPECT_ERROR(cudaMemPoolCreate(&pool, &props), cudaErrorInvalidValue);
    props.location.id = 0;
    props.allocType = cudaMemAllocationTypeInvalid;
    EXPECT_ERROR(cudaMemPoolCreate(&pool, &props), cudaErrorInvalidValue);
#ifdef CUDA_EMULATION
    props.allocType = cudaMemAllocationTypePinned;  // a pool to share with another process
    props.handleTypes = cudaMemHandleTypePosixFileDescriptor;
    EXPECT_ERROR(cudaMemPoolCreate(&pool, &props), cudaErrorNotSupported);
#endif
}

// ---- The mistakes, one per run ---------------------------------------------------------------
static int overrun() {
    float* d_data;
    CHECK(cudaMallocAsync(&d_data, 100 * sizeof(float), 0));  // the buffer that is overrun
    fill<<<1, 128>>>(d_data, 1.0f, 101);                       // BUG: 101 elements
    CHECK(cudaGetLastError());
    CHECK(cudaFreeAsync(d_data, 0));
    CHECK(cudaDeviceSynchronize());
    printf("the overrun went unnoticed\n");
    return 0;
}

static int use_after_free() {
    float* d_data;
    CHECK(cudaMallocAsync(&d_data, 100 * sizeof(float), 0));  // the buffer used after its free
    fill<<<1, 100>>>(d_data, 1.0f, 100);
    CHECK(cudaFreeAsync(d_data, 0));
    fill<<<1, 100>>>(d_data, 2.0f, 100);  // BUG: queued after the free
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    printf("the use after free went unnoticed\n");
    return 0;
}

static int stale() {
    float *first, *second, *d_total;
    CHECK(cudaMalloc(&d_total, sizeof(float)));
    CHECK(cudaMemset(d_total, 0, sizeof(float)));
    CHECK(cudaMallocAsync(&first, bytes, 0));
    fill<<<blocks, threads>>>(first, 1.0f, n);
    CHECK(cudaFreeAsync(first, 0));
    CHECK(cudaMallocAsync(&second, bytes, 0));  // the reused block
    sum_into<<<blocks, threads>>>(second, d_total, n);  // BUG: nothing wrote it since
    CHECK(cudaGetLastError());
    float total = 0;
    CHECK(cudaMemcpy(&total, d_total, sizeof total, cudaMemcpyDeviceToHost));
    printf("the reused block %s, and its %d floats sum to %g\n",
           second == first ? "is the freed one" : "is new memory", n, total);
    CHECK(cudaFreeAsync(second, 0));
    CHECK(cudaFree(d_total));
    return 0;
}

int main(int argc, char** argv) {
    std::string mistake = argc > 1 ? argv[1] : "";
    if (mistake == "overrun") return overrun();
    if (mistake == "use-after-free") return use_after_free();
    if (mistake == "stale") return stale();
    if (!mistake.empty()) {
        fprintf(stderr, "memory_pools: unknown mistake '%s' (overrun, use-after-free, stale)\n",
                mistake.c_str());
        return 2;
    }
    cudaStream_t stream, other;
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));
    check_default_pool();
    vector_add_in_stream_order(stream);
    reuse_and_statistics(stream, other);
    current_pool_and_destroy(stream);
    mixed_frees(stream);
    errors(stream);
    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaStreamDestroy(other));
    return pass(test_name);
}
