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

#include <assert.h>  // __assert_fail, which a failed check calls as assert() does
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "cuda_runtime.h"

#define _CUDA_PIPELINE_PRIMITIVES_H_  // the toolkit's include guard: its own copy is never read

// Under emucc --sanitize and --profile these calls to memcpy and memset reach the checks and
// counts of their bytes (runtime/sanitize.cpp), as every call in such a program does.
namespace cuda_emu {
inline void async_copy_bytes(void* to, const void* from, size_t size) {
    if (size > 0) std::memcpy(to, from, size);  // 0: no access, not even one just past the end
}
inline void async_zero_bytes(void* to, size_t size) {
    if (size > 0) std::memset(to, 0, size);
}
// A group's copy (cooperative_groups::memcpy_async, cuda::memcpy_async with a group): the thread
// of rank `rank` among `threads` copies its share, whole 16-byte pieces of it.
inline void async_copy_share(unsigned long long rank, unsigned long long threads, void* to,
                             const void* from, size_t size) {
    const size_t piece = 16, pieces = (size + piece - 1) / piece;
    size_t begin = pieces * rank / threads * piece, end = pieces * (rank + 1) / threads * piece;
    if (end > size) end = size;
    if (begin < end) async_copy_bytes((char*)to + begin, (const char*)from + begin, end - begin);
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
