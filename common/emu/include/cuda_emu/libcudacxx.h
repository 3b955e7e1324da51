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
// Emulated: a thread's own pipeline (cuda::pipeline<cuda::thread_scope_thread>,
// cuda::make_pipeline()), a pipeline a block shares (pipeline_shared_state, with or without
// producer and consumer roles), a block's cuda::barrier (arrive, wait, arrive_and_wait,
// arrive_and_drop, for any count of threads), and cuda::aligned_size_t. Barriers of a wider
// scope (thread_scope_device, thread_scope_system) are not: they do not compile.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../cuda_pipeline_primitives.h"  // async_copy_bytes, async_copy_share

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

// A size and addresses that are not as aligned_size_t promised are a device-side assert at the
// caller's line, as a GPU would fault there.
template <class Size>
inline void check_alignment(const void* dst, const void* src, const Size& size, const char* file, int line,
                            const char* function) {
    constexpr std::size_t alignment = alignment_of_size<Size>::value;
    if (((std::uintptr_t)dst | (std::uintptr_t)src | (std::size_t)size) % alignment != 0)
        __assert_fail("cuda::memcpy_async: aligned_size_t<N> needs both addresses and the size to be multiples of N",
                      file, (unsigned)line, function);
}

// A thread's copy, made when it is started.
template <class Size>
inline void copy(void* dst, const void* src, const Size& size, const char* file, int line, const char* function) {
    check_alignment(dst, src, size, file, line, function);
    ::cuda_emu::async_copy_bytes(dst, src, (std::size_t)size);
}
}  // namespace emu

// ---- Barriers -------------------------------------------------------------------------------------
// A block's barrier: init(&bar, count) sets how many arrivals end a phase; arrive() counts one and
// returns the phase's token, wait(token) waits until that phase is over, arrive_and_wait() does
// both. The threads that wait give the CPU to the others, as at a __syncthreads.
template <thread_scope Scope>
class barrier {
    static_assert(Scope == thread_scope_block, "cuda-emu: only a block's barriers (thread_scope_block) are emulated");

public:
    using arrival_token = unsigned;  // the phase it arrived in
    barrier() = default;  // trivial, so that it can be a __shared__ variable; init() sets it up
    explicit barrier(std::ptrdiff_t expected) : state_{expected, expected, 0} {}
    barrier(const barrier&) = delete;
    barrier& operator=(const barrier&) = delete;

    arrival_token arrive(std::ptrdiff_t update = 1, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
        return ::cuda_emu::phase_barrier_arrive(&state_, update, false, file, line);
    }
    void wait(arrival_token&& token, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
        ::cuda_emu::phase_barrier_wait(&state_, token, file, line);
    }
    // Waits until the phase whose number has this parity is over.
    void wait_parity(bool parity, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
        unsigned phase = state_.phase;
        if ((phase & 1) == (unsigned)parity) ::cuda_emu::phase_barrier_wait(&state_, phase, file, line);
    }
    void arrive_and_wait(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
        wait(arrive(1, file, line), file, line);
    }
    // Arrives, and leaves: later phases expect one arrival fewer.
    void arrive_and_drop(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
        (void)::cuda_emu::phase_barrier_arrive(&state_, 1, true, file, line);
    }
    static constexpr std::ptrdiff_t max() noexcept { return (std::ptrdiff_t(1) << 31) - 1; }
    friend void init(barrier* bar, std::ptrdiff_t expected) { bar->state_ = {expected, expected, 0}; }

private:
    mutable ::cuda_emu::PhaseBarrier state_;
};

// ---- Pipelines ----------------------------------------------------------------------------------
// A thread's own pipeline: its copies are made when started, so its waits have nothing to wait
// for. A block's pipeline (make_pipeline with a pipeline_shared_state) is a pair of barriers per
// stage, as in libcu++: `produced` ends a phase when the producers have committed the stage,
// `consumed` when the consumers have released it. A producer's acquire waits for `consumed`, a
// consumer's wait for `produced`; each goes round the stages in turn.
enum class pipeline_role { producer, consumer };

namespace emu {
struct pipeline_stage {
    barrier<thread_scope_block> produced, consumed;
};
}  // namespace emu

template <thread_scope Scope, std::uint8_t Stages>
class pipeline_shared_state {
public:
    pipeline_shared_state() = default;
    pipeline_shared_state(const pipeline_shared_state&) = delete;
    pipeline_shared_state& operator=(const pipeline_shared_state&) = delete;
    emu::pipeline_stage stages[Stages];
    unsigned count;  // the producers as make_pipeline counts them, then the pipeline's threads
};

template <thread_scope Scope>
class pipeline {
public:
    pipeline(emu::pipeline_stage* stages, std::uint8_t stage_count, unsigned* threads)
        : stages_(stages), threads_(threads), stage_count_(stage_count) {}
    void producer_acquire(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
        stages_[head_].consumed.wait_parity(consumed_parity_, file, line);
    }
    void producer_commit(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
        (void)stages_[head_].produced.arrive(1, file, line);
        if (++head_ == stage_count_) head_ = 0, consumed_parity_ = !consumed_parity_;
    }
    void consumer_wait(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
        stages_[tail_].produced.wait_parity(produced_parity_, file, line);
    }
    void consumer_release(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
        (void)stages_[tail_].consumed.arrive(1, file, line);
        if (++tail_ == stage_count_) tail_ = 0, produced_parity_ = !produced_parity_;
    }
    // This thread leaves the pipeline; true for the last of its threads to leave.
    bool quit() { return __atomic_sub_fetch(threads_, 1u, __ATOMIC_RELAXED) == 0; }

private:
    emu::pipeline_stage* stages_;
    unsigned* threads_;
    std::uint8_t stage_count_, head_ = 0, tail_ = 0;
    bool consumed_parity_ = true, produced_parity_ = false;
};

template <>
class pipeline<thread_scope_thread> {
public:
    void producer_acquire() {}
    void producer_commit() {}
    void consumer_wait() {}
    void consumer_release() {}
    bool quit() { return true; }
};

inline pipeline<thread_scope_thread> make_pipeline() { return {}; }

namespace emu {
// Thread 0 of the group sets up every stage's barriers for `producers` producers and the rest as
// consumers (all threads both, for a pipeline without roles); the group waits for it.
template <class Group, thread_scope Scope, std::uint8_t Stages>
pipeline<Scope> shared_pipeline(const Group& group, pipeline_shared_state<Scope, Stages>* shared,
                                unsigned producers, unsigned consumers) {
    if (group.thread_rank() == 0) {
        for (auto& stage : shared->stages) {
            init(&stage.produced, producers);
            init(&stage.consumed, consumers);
        }
        shared->count = (unsigned)group.size();
    }
    group.sync();
    return pipeline<Scope>(shared->stages, Stages, &shared->count);
}
}  // namespace emu

template <class Group, thread_scope Scope, std::uint8_t Stages>
pipeline<Scope> make_pipeline(const Group& group, pipeline_shared_state<Scope, Stages>* shared) {
    return emu::shared_pipeline(group, shared, (unsigned)group.size(), (unsigned)group.size());
}
template <class Group, thread_scope Scope, std::uint8_t Stages>
pipeline<Scope> make_pipeline(const Group& group, pipeline_shared_state<Scope, Stages>* shared,
                              std::size_t producers) {
    return emu::shared_pipeline(group, shared, (unsigned)producers, (unsigned)(group.size() - producers));
}
// Each thread says its role; the producers are counted first.
template <class Group, thread_scope Scope, std::uint8_t Stages>
pipeline<Scope> make_pipeline(const Group& group, pipeline_shared_state<Scope, Stages>* shared,
                              pipeline_role role) {
    if (group.thread_rank() == 0) shared->count = 0;
    group.sync();
    if (role == pipeline_role::producer) __atomic_add_fetch(&shared->count, 1u, __ATOMIC_RELAXED);
    group.sync();
    unsigned producers = __atomic_load_n(&shared->count, __ATOMIC_RELAXED);
    group.sync();  // every thread has read the count before thread 0 sets it anew
    return emu::shared_pipeline(group, shared, producers, (unsigned)group.size() - producers);
}

// Waits until at most Prior of the latest committed stages are still on their way.
template <std::uint8_t Prior, thread_scope Scope>
void pipeline_consumer_wait_prior(pipeline<Scope>&) {}

// ---- cuda::memcpy_async ---------------------------------------------------------------------------
// The copy is waited for with a pipeline or a barrier; with a group first, the group's threads
// copy it together, each its share (16-byte pieces by thread_rank(), as
// cooperative_groups::memcpy_async here).
namespace emu {
template <class Waiter> struct waits_for_copies { static constexpr bool value = false; };
template <thread_scope Scope> struct waits_for_copies<pipeline<Scope>> { static constexpr bool value = true; };
template <thread_scope Scope> struct waits_for_copies<barrier<Scope>> { static constexpr bool value = true; };
template <class Waiter> using if_waits = typename std::enable_if<waits_for_copies<Waiter>::value, int>::type;

template <class Group, class Size>
inline void group_copy(const Group& group, void* dst, const void* src, const Size& size, const char* file,
                       int line, const char* function) {
    check_alignment(dst, src, size, file, line, function);
    ::cuda_emu::async_copy_share(group.thread_rank(), group.size(), dst, src, (std::size_t)size);
}
}  // namespace emu

template <class T, class Size, class Waiter, emu::if_waits<Waiter> = 0>
void memcpy_async(T* dst, const T* src, const Size& size, Waiter&, const char* file = __builtin_FILE(),
                  int line = __builtin_LINE(), const char* function = __builtin_FUNCTION()) {
    emu::copy(dst, src, size, file, line, function);
}
template <class Size, class Waiter, emu::if_waits<Waiter> = 0>
void memcpy_async(void* dst, const void* src, const Size& size, Waiter&, const char* file = __builtin_FILE(),
                  int line = __builtin_LINE(), const char* function = __builtin_FUNCTION()) {
    emu::copy(dst, src, size, file, line, function);
}
template <class Group, class T, class Size, class Waiter, emu::if_waits<Waiter> = 0>
void memcpy_async(const Group& group, T* dst, const T* src, const Size& size, Waiter&,
                  const char* file = __builtin_FILE(), int line = __builtin_LINE(),
                  const char* function = __builtin_FUNCTION()) {
    emu::group_copy(group, dst, src, size, file, line, function);
}
template <class Group, class Size, class Waiter, emu::if_waits<Waiter> = 0>
void memcpy_async(const Group& group, void* dst, const void* src, const Size& size, Waiter&,
                  const char* file = __builtin_FILE(), int line = __builtin_LINE(),
                  const char* function = __builtin_FUNCTION()) {
    emu::group_copy(group, dst, src, size, file, line, function);
}

}  // namespace cuda
