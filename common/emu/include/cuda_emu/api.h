// cuda_emu/api.h - the CUDA runtime API (cudaMalloc, cudaMemcpy, streams, events, ...) on the CPU.
//
// Part of the CPU emulation backend (common/emu/); <cuda_runtime.h> includes it. The functions
// keep the signatures of NVIDIA's cuda_runtime_api.h so course code compiles unchanged with
// either. Two differences a student can see:
//   - Device memory is ordinary host memory, so a host pointer passed to a kernel "works" here
//     and crashes on a GPU. cudaMemcpy does check that its device side lies inside a device
//     allocation (wrong direction or size gives cudaErrorInvalidValue, like a GPU).
//   - Everything runs synchronously: a kernel launch returns when the kernel is done, and
//     events record host time. Streams exist so that stream code compiles and runs.
// The allocation functions take two hidden default arguments (the caller's file and line,
// filled in by the compiler) so that CUDA_EMU_GUARD=1 can say where a bad buffer came from.
#pragma once

#include "types.h"

#define CUDART_VERSION 13000
#define CUDA_EMU_HERE const char* cuda_emu_file = __builtin_FILE(), int cuda_emu_line = __builtin_LINE()

extern "C" {
// Errors
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
const char* cudaGetErrorName(cudaError_t error);
const char* cudaGetErrorString(cudaError_t error);

// Device management
cudaError_t cudaGetDeviceCount(int* count);
// One device: no peer to reach (programs written for several GPUs ask, and go on without).
cudaError_t cudaDeviceCanAccessPeer(int* can_access, int device, int peer_device);
cudaError_t cudaDeviceEnablePeerAccess(int peer_device, unsigned int flags);
cudaError_t cudaDeviceDisablePeerAccess(int peer_device);
// Between two different devices only: with one, every question is about an invalid pair.
cudaError_t cudaDeviceGetP2PAttribute(int* value, enum cudaDeviceP2PAttr attr, int src_device,
                                      int dst_device);
// A copy "between" device 0 and itself is a copy within its memory, as CUDA allows.
cudaError_t cudaMemcpyPeer(void* dst, int dst_device, const void* src, int src_device, size_t count);
cudaError_t cudaMemcpyPeerAsync(void* dst, int dst_device, const void* src, int src_device,
                                size_t count, cudaStream_t stream = 0);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDevice(int* device);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device);
cudaError_t cudaDeviceGetAttribute(int* value, enum cudaDeviceAttr attr, int device);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaDeviceReset(void);
cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache config);
cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value);
cudaError_t cudaDeviceGetLimit(size_t* value, enum cudaLimit limit);
cudaError_t cudaDriverGetVersion(int* version);
cudaError_t cudaRuntimeGetVersion(int* version);
cudaError_t cudaSetDeviceFlags(unsigned int flags);

// Memory
cudaError_t cudaMalloc(void** dev_ptr, size_t size, CUDA_EMU_HERE);
cudaError_t cudaMallocManaged(void** dev_ptr, size_t size, unsigned int flags = cudaMemAttachGlobal,
                              CUDA_EMU_HERE);
cudaError_t cudaMallocPitch(void** dev_ptr, size_t* pitch, size_t width, size_t height, CUDA_EMU_HERE);
cudaError_t cudaMallocHost(void** ptr, size_t size);
cudaError_t cudaHostAlloc(void** ptr, size_t size, unsigned int flags);
cudaError_t cudaHostGetDevicePointer(void** dev_ptr, void* host_ptr, unsigned int flags);
// Registered and mapped host memory: kernels can use host memory directly, since the emulated
// device shares it; registering only records the range.
cudaError_t cudaHostRegister(void* ptr, size_t size, unsigned int flags);
cudaError_t cudaHostUnregister(void* ptr);
cudaError_t cudaFree(void* dev_ptr);
cudaError_t cudaFreeHost(void* ptr);
cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes);
cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t stream = 0);
cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                         size_t height, enum cudaMemcpyKind kind);
cudaError_t cudaMemset(void* dev_ptr, int value, size_t count);
cudaError_t cudaMemsetAsync(void* dev_ptr, int value, size_t count, cudaStream_t stream = 0);
cudaError_t cudaMemset2D(void* dev_ptr, size_t pitch, int value, size_t width, size_t height);
cudaError_t cudaMemPrefetchAsync(const void* dev_ptr, size_t count, struct cudaMemLocation location,
                                 unsigned int flags, cudaStream_t stream = 0);
cudaError_t cudaMemAdvise(const void* dev_ptr, size_t count, enum cudaMemoryAdvise advice,
                          struct cudaMemLocation location);
// Stream-ordered allocation (runtime/pools.cpp): cudaMallocAsync takes a block from the device's
// current memory pool (cudaMallocFromPoolAsync: from the pool given), cudaFreeAsync gives it back
// for the pool to hand out again. Work runs when it is issued, so nothing still uses a block when
// it is freed. Pool memory is device memory to cudaMemcpy, CUDA_EMU_GUARD, CUDA_EMU_POISON and
// --sanitize, as cudaMalloc's is. One device in one process: the access of other devices and
// the handle types of inter-process sharing are refused, as on a machine with one GPU.
cudaError_t cudaMallocAsync(void** dev_ptr, size_t size, cudaStream_t stream, CUDA_EMU_HERE);
cudaError_t cudaMallocFromPoolAsync(void** dev_ptr, size_t size, cudaMemPool_t pool,
                                    cudaStream_t stream, CUDA_EMU_HERE);
cudaError_t cudaFreeAsync(void* dev_ptr, cudaStream_t stream);
cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t* pool, int device);
cudaError_t cudaDeviceGetMemPool(cudaMemPool_t* pool, int device);
cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t pool);
cudaError_t cudaMemPoolCreate(cudaMemPool_t* pool, const struct cudaMemPoolProps* props);
cudaError_t cudaMemPoolDestroy(cudaMemPool_t pool);
cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, enum cudaMemPoolAttr attr, void* value);
cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, enum cudaMemPoolAttr attr, void* value);
cudaError_t cudaMemPoolTrimTo(cudaMemPool_t pool, size_t min_bytes_to_keep);
cudaError_t cudaMemPoolSetAccess(cudaMemPool_t pool, const struct cudaMemAccessDesc* desc_list,
                                 size_t count);
cudaError_t cudaMemPoolGetAccess(enum cudaMemAccessFlags* flags, cudaMemPool_t pool,
                                 struct cudaMemLocation* location);

// Streams and events. Work runs when it is issued, so a host function or callback put on a
// stream runs at once: everything issued before it is already done.
#define CUDART_CB
typedef void (*cudaHostFn_t)(void* user_data);
typedef void (*cudaStreamCallback_t)(cudaStream_t stream, cudaError_t status, void* user_data);
cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* user_data);
cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void* user_data,
                                  unsigned int flags);
cudaError_t cudaStreamCreate(cudaStream_t* stream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags);
// Priorities are kept and reported, in the range CUDA gives recent GPUs (0, the default and
// lowest, to -5), but change nothing: work runs when it is issued.
cudaError_t cudaDeviceGetStreamPriorityRange(int* least_priority, int* greatest_priority);
cudaError_t cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned int flags, int priority);
cudaError_t cudaStreamGetPriority(cudaStream_t stream, int* priority);
cudaError_t cudaStreamGetFlags(cudaStream_t stream, unsigned int* flags);
// A stream's access policy window, synchronization policy, priority and memory synchronization
// domains: checked, kept and read back, changing nothing (see cuda_emu/types.h).
cudaError_t cudaStreamSetAttribute(cudaStream_t stream, cudaStreamAttrID attr, const cudaStreamAttrValue* value);
cudaError_t cudaStreamGetAttribute(cudaStream_t stream, cudaStreamAttrID attr, cudaStreamAttrValue* value);
cudaError_t cudaStreamCopyAttributes(cudaStream_t dst, cudaStream_t src);
cudaError_t cudaCtxResetPersistingL2Cache(void);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaStreamQuery(cudaStream_t stream);
// Managed memory is the host's, seen by every stream: attaching it to one changes nothing.
cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void* dev_ptr, size_t length = 0,
                                     unsigned int flags = cudaMemAttachSingle);
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags = 0);
cudaError_t cudaEventCreate(cudaEvent_t* event);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = 0);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventQuery(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaEventDestroy(cudaEvent_t event);

// The profiler (cuda_profiler_api.h): nothing to start or stop without a GPU.
cudaError_t cudaProfilerStart(void);
cudaError_t cudaProfilerStop(void);

// Kernels: attributes and the occupancy model (see the comment in runtime/api.cpp).
cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes* attr, const void* func);
cudaError_t cudaFuncSetAttribute(const void* func, enum cudaFuncAttribute attr, int value);
cudaError_t cudaFuncSetCacheConfig(const void* func, enum cudaFuncCache config);
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* num_blocks, const void* func,
                                                          int block_size, size_t dynamic_smem);
}

// Symbols (__constant__ and __device__ variables) are ordinary globals here; the templates take
// the variable itself, as NVIDIA's C++ overloads do.
namespace cuda_emu {
cudaError_t copy_symbol(void* symbol, size_t symbol_size, void* buffer, size_t count,
                        size_t offset, bool to_symbol);
cudaError_t register_symbol(void* symbol, size_t size);
}

template <class T>
cudaError_t cudaMemcpyToSymbol(const T& symbol, const void* src, size_t count, size_t offset = 0,
                               enum cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
    (void)kind;
    return cuda_emu::copy_symbol((void*)&symbol, sizeof(T), (void*)src, count, offset, true);
}
template <class T>
cudaError_t cudaMemcpyFromSymbol(void* dst, const T& symbol, size_t count, size_t offset = 0,
                                 enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost) {
    (void)kind;
    return cuda_emu::copy_symbol((void*)&symbol, sizeof(T), dst, count, offset, false);
}
template <class T>
cudaError_t cudaMemcpyToSymbolAsync(const T& symbol, const void* src, size_t count,
                                    size_t offset = 0,
                                    enum cudaMemcpyKind kind = cudaMemcpyHostToDevice,
                                    cudaStream_t stream = 0) {
    (void)stream;
    return cudaMemcpyToSymbol(symbol, src, count, offset, kind);
}
template <class T>
cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const T& symbol, size_t count, size_t offset = 0,
                                      enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost,
                                      cudaStream_t stream = 0) {
    (void)stream;
    return cudaMemcpyFromSymbol(dst, symbol, count, offset, kind);
}
template <class T>
cudaError_t cudaGetSymbolAddress(void** dev_ptr, const T& symbol) {
    *dev_ptr = (void*)&symbol;
    return cuda_emu::register_symbol((void*)&symbol, sizeof(T));
}
template <class T>
cudaError_t cudaGetSymbolSize(size_t* size, const T& symbol) {
    (void)symbol;
    *size = sizeof(T);
    return cudaSuccess;
}

// The typed calls below that take a kernel also note its parameter types (cuda_emu/launch.h), for a
// later cudaLaunchCooperativeKernel((void*)kernel, ...) to read its arguments with.
namespace cuda_emu {
template <class... Params>
void note_kernel(void (*kernel)(Params...));
template <class T>
void note_kernel(T) {}
}  // namespace cuda_emu

// Typed conveniences, as in NVIDIA's cuda_runtime.h: cudaMalloc(&d_a, bytes) with float** d_a.
template <class T>
cudaError_t cudaMalloc(T** dev_ptr, size_t size, CUDA_EMU_HERE) {
    return cudaMalloc((void**)dev_ptr, size, cuda_emu_file, cuda_emu_line);
}
template <class T>
cudaError_t cudaMallocManaged(T** dev_ptr, size_t size, unsigned int flags = cudaMemAttachGlobal,
                              CUDA_EMU_HERE) {
    return cudaMallocManaged((void**)dev_ptr, size, flags, cuda_emu_file, cuda_emu_line);
}
template <class T>
cudaError_t cudaMallocPitch(T** dev_ptr, size_t* pitch, size_t width, size_t height, CUDA_EMU_HERE) {
    return cudaMallocPitch((void**)dev_ptr, pitch, width, height, cuda_emu_file, cuda_emu_line);
}
template <class T>
cudaError_t cudaMallocHost(T** ptr, size_t size) { return cudaMallocHost((void**)ptr, size); }
template <class T>
cudaError_t cudaHostAlloc(T** ptr, size_t size, unsigned int flags) {
    return cudaHostAlloc((void**)ptr, size, flags);
}
template <class T>
cudaError_t cudaMallocAsync(T** dev_ptr, size_t size, cudaStream_t stream, CUDA_EMU_HERE) {
    return cudaMallocAsync((void**)dev_ptr, size, stream, cuda_emu_file, cuda_emu_line);
}
// With a pool, cudaMallocAsync is cudaMallocFromPoolAsync (NVIDIA's C++ spelling).
template <class T>
cudaError_t cudaMallocAsync(T** dev_ptr, size_t size, cudaMemPool_t pool, cudaStream_t stream,
                            CUDA_EMU_HERE) {
    return cudaMallocFromPoolAsync((void**)dev_ptr, size, pool, stream, cuda_emu_file, cuda_emu_line);
}
template <class T>
cudaError_t cudaMallocFromPoolAsync(T** dev_ptr, size_t size, cudaMemPool_t pool,
                                    cudaStream_t stream, CUDA_EMU_HERE) {
    return cudaMallocFromPoolAsync((void**)dev_ptr, size, pool, stream, cuda_emu_file, cuda_emu_line);
}
// cudaEventCreate with flags is cudaEventCreateWithFlags (NVIDIA's C++ overload).
inline cudaError_t cudaEventCreate(cudaEvent_t* event, unsigned int flags) {
    return cudaEventCreateWithFlags(event, flags);
}
template <class T>
cudaError_t cudaHostGetDevicePointer(T** dev_ptr, void* host_ptr, unsigned int flags) {
    return cudaHostGetDevicePointer((void**)dev_ptr, host_ptr, flags);
}
template <class T>
cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes* attr, T* func) {
    ::cuda_emu::note_kernel(func);
    return cudaFuncGetAttributes(attr, (const void*)func);
}
template <class T>
cudaError_t cudaFuncSetAttribute(T* func, enum cudaFuncAttribute attr, int value) {
    ::cuda_emu::note_kernel(func);
    return cudaFuncSetAttribute((const void*)func, attr, value);
}
template <class T>
cudaError_t cudaFuncSetCacheConfig(T* func, enum cudaFuncCache config) {
    return cudaFuncSetCacheConfig((const void*)func, config);
}
template <class T>
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* num_blocks, T func, int block_size,
                                                          size_t dynamic_smem) {
    ::cuda_emu::note_kernel(func);
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(num_blocks, (const void*)func, block_size,
                                                         dynamic_smem);
}

// The block size that gives the most resident threads per multiprocessor under the model of
// cudaOccupancyMaxActiveBlocksPerMultiprocessor; ties go to the larger block, as NVIDIA's does.
template <class T>
cudaError_t cudaOccupancyMaxPotentialBlockSize(int* min_grid_size, int* block_size, T func,
                                               size_t dynamic_smem = 0, int block_size_limit = 0) {
    ::cuda_emu::note_kernel(func);
    if (!min_grid_size || !block_size) return cudaErrorInvalidValue;
    int limit = (block_size_limit > 0 && block_size_limit < 1024) ? block_size_limit : 1024;
    int best_threads = 0, best_size = 0, best_blocks = 0;
    for (int size = 32; size <= limit; size += 32) {
        int blocks = 0;
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, (const void*)func, size, dynamic_smem);
        if (blocks * size >= best_threads && blocks > 0) {
            best_threads = blocks * size;
            best_size = size;
            best_blocks = blocks;
        }
    }
    if (best_size == 0) return cudaErrorInvalidValue;
    int sm_count = 0;
    cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, 0);
    *block_size = best_size;
    *min_grid_size = best_blocks * sm_count;
    return cudaSuccess;
}
