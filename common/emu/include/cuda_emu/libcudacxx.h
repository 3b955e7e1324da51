// cuda_emu/libcudacxx.h - libcu++'s asynchronous copies for the CPU emulator (common/emu/):
// cuda::memcpy_async into shared memory, waited for with a cuda::pipeline or a cuda::barrier, as
// <cuda/pipeline> and <cuda/barrier> have them (both include this file).
//
// On a GPU cuda::memcpy_async starts a copy that the thread does not wait for: a pipeline
// collects the copies started between producer_acquire and producer_commit into a stage, and
// consumer_wait (or pipeline_consumer_wait_prior<N>) waits for the oldest stages; a barrier's
// arrive_and_wait waits for the copies tied to it too. Here, as with the pipeline primitives of
// <cuda_pipeline.h>, each copy is made when it is started and the waits have nothing to wait
// for: a thread that reads a copy before its wait sees it here and not on a GPU.
//
// Emulated whole: a thread's own pipeline (cuda::pipeline<cuda::thread_scope_thread>,
// cuda::make_pipeline()), cuda::aligned_size_t, and a block's cuda::barrier whose arrive_and_wait
// all of the block's threads call (init(&bar, blockDim.x * blockDim.y * blockDim.z)): that is the
// block's barrier. Not emulated, stopping the program with a line that says so: a pipeline a
// block shares (pipeline_shared_state, producer and consumer threads), a barrier that expects
// another number of threads, and a barrier's split arrive() and wait().
#pragma once

#include <cstddef>
#include <cstdint>

#include "../cuda_pipeline_primitives.h"  // async_copy_bytes

// Stops the program: `what` is not emulated (runtime/debug.cpp).
extern "C" [[noreturn]] void cuda_emu_not_emulated(const char* what, const char* file, int line);

namespace cuda {

enum thread_scope {
    thread_scope_system = 0,
    thread_scope_device = 1,
    thread_scope_block = 2,
    thread_scope_thread = 3,
};

// A size that is a multiple of Alignment, copied between addresses that are multiples of it too.
template <std::size_t Alignment>
struct aligned_size_t {
    static constexpr std::size_t align = Alignment;
    std::size_t value;
    explicit constexpr aligned_size_t(std::size_t size) : value(size) {}
    constexpr operator std::size_t() const { return value; }
};

namespace emu {
template <class Size> struct alignment_of_size { static constexpr std::size_t value = 1; };
template <std::size_t Alignment> struct alignment_of_size<aligned_size_t<Alignment>> {
    static constexpr std::size_t value = Alignment;
};

// The copy, once its size and addresses are as aligned_size_t promised: if not, a device-side
// assert at the caller's line, as a GPU would fault there.
template <class Size>
inline void copy(void* dst, const void* src, const Size& size, const char* file, int line, const char* function) {
    constexpr std::size_t alignment = alignment_of_size<Size>::value;
    if (((std::uintptr_t)dst | (std::uintptr_t)src | (std::size_t)size) % alignment != 0)
        __assert_fail("cuda::memcpy_async: aligned_size_t<N> needs both addresses and the size to be multiples of N",
                      file, (unsigned)line, function);
    ::cuda_emu::async_copy_bytes(dst, src, (std::size_t)size);
}
}  // namespace emu

// ---- Pipelines ----------------------------------------------------------------------------------
enum class pipeline_role { producer, consumer };

template <thread_scope Scope>
class pipeline {
public:
    void producer_acquire() {}
    void producer_commit() {}
    void consumer_wait() {}
    void consumer_release() {}
    bool quit() { return true; }
};

// The stages a block's pipeline keeps in shared memory (not emulated: see make_pipeline).
template <thread_scope Scope, std::uint8_t Stages>
struct pipeline_shared_state {};

inline pipeline<thread_scope_thread> make_pipeline() { return {}; }

template <class Group, thread_scope Scope, std::uint8_t Stages>
pipeline<Scope> make_pipeline(const Group&, pipeline_shared_state<Scope, Stages>*,
                              const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    cuda_emu_not_emulated("a pipeline shared by the threads of a block (cuda::pipeline_shared_state)", file, line);
}
template <class Group, thread_scope Scope, std::uint8_t Stages>
pipeline<Scope> make_pipeline(const Group&, pipeline_shared_state<Scope, Stages>*, pipeline_role,
                              const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    cuda_emu_not_emulated("a pipeline shared by the threads of a block (cuda::pipeline_shared_state)", file, line);
}
template <class Group, thread_scope Scope, std::uint8_t Stages>
pipeline<Scope> make_pipeline(const Group&, pipeline_shared_state<Scope, Stages>*, std::size_t,
                              const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    cuda_emu_not_emulated("a pipeline shared by the threads of a block (cuda::pipeline_shared_state)", file, line);
}

// Waits until at most Prior of the latest committed stages are still on their way.
template <std::uint8_t Prior, thread_scope Scope>
void pipeline_consumer_wait_prior(pipeline<Scope>&) {}

template <class T, class Size, thread_scope Scope>
void memcpy_async(T* dst, const T* src, const Size& size, pipeline<Scope>&,
                  const char* file = __builtin_FILE(), int line = __builtin_LINE(),
                  const char* function = __builtin_FUNCTION()) {
    emu::copy(dst, src, size, file, line, function);
}
template <class Size, thread_scope Scope>
void memcpy_async(void* dst, const void* src, const Size& size, pipeline<Scope>&,
                  const char* file = __builtin_FILE(), int line = __builtin_LINE(),
                  const char* function = __builtin_FUNCTION()) {
    emu::copy(dst, src, size, file, line, function);
}

// ---- Barriers -------------------------------------------------------------------------------------
template <thread_scope Scope>
class barrier {
public:
    struct arrival_token {};
    barrier() = default;  // trivial, so that it can be a __shared__ variable; init() sets it up
    barrier(std::ptrdiff_t expected) : expected_(expected) {}

    void arrive_and_wait(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
        static_assert(Scope == thread_scope_block, "cuda-emu: only a block's barriers are emulated");
        if (expected_ != (std::ptrdiff_t)(blockDim.x * blockDim.y * blockDim.z))
            cuda_emu_not_emulated("a cuda::barrier that expects another number of threads than the block has",
                                  file, line);
        ::cuda_emu::block_barrier(file, line, ::cuda_emu::REDUCE_NONE, 1);  // __syncthreads at the caller's line
    }
    arrival_token arrive(std::ptrdiff_t = 1, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
        cuda_emu_not_emulated("cuda::barrier's split arrive() and wait() (arrive_and_wait is emulated)", file, line);
    }
    void wait(arrival_token&&, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
        cuda_emu_not_emulated("cuda::barrier's split arrive() and wait() (arrive_and_wait is emulated)", file, line);
    }
    friend void init(barrier* bar, std::ptrdiff_t expected) { bar->expected_ = expected; }

private:
    std::ptrdiff_t expected_;
};

template <class T, class Size, thread_scope Scope>
void memcpy_async(T* dst, const T* src, const Size& size, barrier<Scope>&,
                  const char* file = __builtin_FILE(), int line = __builtin_LINE(),
                  const char* function = __builtin_FUNCTION()) {
    emu::copy(dst, src, size, file, line, function);
}
template <class Size, thread_scope Scope>
void memcpy_async(void* dst, const void* src, const Size& size, barrier<Scope>&,
                  const char* file = __builtin_FILE(), int line = __builtin_LINE(),
                  const char* function = __builtin_FUNCTION()) {
    emu::copy(dst, src, size, file, line, function);
}

}  // namespace cuda
