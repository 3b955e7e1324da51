// cuda_pipeline_primitives.h - asynchronous copies from global to shared memory (cp.async,
// compute capability 8.0 on) for the CPU emulator (common/emu/).
//
// On a GPU __pipeline_memcpy_async starts a copy of 4, 8 or 16 bytes that the thread does not
// wait for; __pipeline_commit closes the batch of copies started since the last one, and
// __pipeline_wait_prior(N) waits until no more than the N latest batches are on their way. A
// kernel overlaps the loads of its next tile with the arithmetic on this one that way (double
// buffering). Here each copy is done when it is started, so the waits have nothing to wait for:
// a kernel that reads a tile before waiting for it works here, and reads stale data on a GPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "cuda_runtime.h"

#define _CUDA_PIPELINE_PRIMITIVES_H_  // the toolkit's include guard: its own copy is never read

#if defined(CUDA_EMU_SANITIZE) || defined(CUDA_EMU_PROFILE)
// emucc --sanitize and --profile: the checks and counts of the copy's bytes, read and written
// (runtime/sanitize.cpp, runtime/profile.cpp). g++ instruments loads and stores but not a call
// to memcpy, so the copies below ask for them by name.
extern "C" void* __tsan_memcpy(void* to, const void* from, unsigned long size);
extern "C" void* __tsan_memset(void* to, int value, unsigned long size);
#endif

namespace cuda_emu {
inline void async_copy_bytes(void* to, const void* from, size_t size) {
    if (size == 0) return;  // no access, not even one just past the end
#if defined(CUDA_EMU_SANITIZE) || defined(CUDA_EMU_PROFILE)
    __tsan_memcpy(to, from, size);
#else
    std::memcpy(to, from, size);
#endif
}
inline void async_zero_bytes(void* to, size_t size) {
    if (size == 0) return;
#if defined(CUDA_EMU_SANITIZE) || defined(CUDA_EMU_PROFILE)
    __tsan_memset(to, 0, size);
#else
    std::memset(to, 0, size);
#endif
}

// zfill: of the size_and_align bytes, the last zfill are zeros instead of a copy (a tile's part
// past the matrix's edge). The size and both addresses must be as a GPU requires, or a
// device-side assert says which, at the caller's line and function (the macro passes them).
inline void pipeline_memcpy_async(const char* file, int line, const char* function, void* dst_shared,
                                  const void* src_global, size_t size_and_align, size_t zfill = 0) {
    const char* problem = nullptr;
    if (size_and_align != 4 && size_and_align != 8 && size_and_align != 16)
        problem = "__pipeline_memcpy_async copies 4, 8 or 16 bytes";
    else if (((uintptr_t)dst_shared | (uintptr_t)src_global) % size_and_align != 0)
        problem = "__pipeline_memcpy_async: both addresses must be multiples of the size";
    else if (zfill > size_and_align)
        problem = "__pipeline_memcpy_async: zfill is more than the size";
    if (problem) __assert_fail(problem, file, (unsigned)line, function);
    async_copy_bytes(dst_shared, src_global, size_and_align - zfill);
    async_zero_bytes((char*)dst_shared + (size_and_align - zfill), zfill);
}
}  // namespace cuda_emu
#define __pipeline_memcpy_async(...) \
    ::cuda_emu::pipeline_memcpy_async(__FILE__, __LINE__, __func__, __VA_ARGS__)
inline void __pipeline_commit() {}
inline void __pipeline_wait_prior(size_t) {}
