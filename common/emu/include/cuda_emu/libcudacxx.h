// cuda_emu/libcudacxx.h - libcu++'s asynchronous copies, atomics and synchronization for the CPU
// emulator (common/emu/): cuda::memcpy_async into shared memory, waited for with a cuda::pipeline
// or a cuda::barrier, as <cuda/pipeline> and <cuda/barrier> have them; atomics, latches and
// semaphores (<cuda/atomic>, <cuda/latch>, <cuda/semaphore> and their cuda::std twins). Each of
// those headers includes this file.
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
// producer and consumer roles), cuda::barrier and cuda::std::barrier for the threads of one block
// (arrive, wait, arrive_and_wait, arrive_and_drop, for any count of threads, with a completion
// function), and cuda::aligned_size_t; cuda::atomic, cuda::atomic_ref and their cuda::std twins
// (see Atomics below); cuda::latch, cuda::counting_semaphore and cuda::binary_semaphore, and
// their cuda::std twins, at any scope.
#pragma once

#include <assert.h>  // __assert_fail, which a semaphore released past its maximum calls
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../cuda_pipeline_primitives.h"  // async_copy_bytes, async_copy_share
#include "cuda_std.h"

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
// both. The threads that wait give the CPU to the others, as at a __syncthreads. A completion
// function, if given, runs once per phase, in the last thread to arrive, before any waiter
// resumes. The scope may be any (cuda::std::barrier's is the system's), but the threads that use
// one barrier must be of one block: a barrier that threads of two blocks use is reported.
namespace emu {
struct empty_completion {
    void operator()() noexcept {}
};
}  // namespace emu

template <thread_scope Scope, class CompletionFunction = emu::empty_completion>
class barrier {
    static constexpr bool has_completion = !::std::is_same<CompletionFunction, emu::empty_completion>::value;
    static void complete(void* self) { static_cast<barrier*>(self)->completion_(); }

public:
    using arrival_token = unsigned;  // the phase it arrived in
    barrier() = default;  // trivial, so that it can be a __shared__ variable; init() sets it up
    explicit barrier(std::ptrdiff_t expected, CompletionFunction completion = CompletionFunction())
        : state_{expected, expected, 0, 0}, completion_(completion) {}
    barrier(const barrier&) = delete;
    barrier& operator=(const barrier&) = delete;

    arrival_token arrive(std::ptrdiff_t update = 1, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
        return ::cuda_emu::phase_barrier_arrive(&state_, update, false, file, line, has_completion ? complete : nullptr,
                                               this);
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
        (void)::cuda_emu::phase_barrier_arrive(&state_, 1, true, file, line, has_completion ? complete : nullptr,
                                               this);
    }
    static constexpr std::ptrdiff_t max() noexcept { return (std::ptrdiff_t(1) << 31) - 1; }
    friend void init(barrier* bar, std::ptrdiff_t expected, CompletionFunction completion = CompletionFunction()) {
        bar->state_ = {expected, expected, 0, 0};
        bar->completion_ = completion;
    }

private:
    mutable ::cuda_emu::PhaseBarrier state_;
    CompletionFunction completion_;
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
template <thread_scope Scope, class Completion>
struct waits_for_copies<barrier<Scope, Completion>> {
    static constexpr bool value = true;
};
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

// ---- Atomics ----------------------------------------------------------------------------------------
// cuda::atomic<T, Scope> and cuda::atomic_ref<T, Scope> (<cuda/atomic>), cuda::std::atomic<T> and
// cuda::std::atomic_ref<T> (<cuda/std/atomic>): the compiler's atomic operations on the CPU, on
// types of 1, 2, 4 or 8 bytes (load, store, exchange and compare-exchange), with arithmetic on
// integers and floating-point values. Every scope is emulated as the widest: the blocks of a grid
// run on several OS threads, and the host is one more. wait() gives way to the block's other
// threads (as __nanosleep() does) until the value changes; notify_one and notify_all have nothing
// to do.
using ::std::memory_order;
using ::std::memory_order_relaxed;
using ::std::memory_order_consume;
using ::std::memory_order_acquire;
using ::std::memory_order_release;
using ::std::memory_order_acq_rel;
using ::std::memory_order_seq_cst;
using ::std::atomic_signal_fence;

namespace emu {
// What a failed compare-exchange may use of the order asked for: no release.
constexpr int failure_order(memory_order order) {
    return order == memory_order_acq_rel ? __ATOMIC_ACQUIRE
           : order == memory_order_release ? __ATOMIC_RELAXED
                                            : (int)order;
}

// The operations, on the T that Self::address() names (a member of cuda::atomic, the referenced
// object of cuda::atomic_ref).
template <class T, class Self>
class atomic_operations {
    static_assert(::std::is_trivially_copyable<T>::value, "cuda::atomic needs a trivially copyable type");
    static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8,
                  "cuda-emu: cuda::atomic of a type of 1, 2, 4 or 8 bytes, which the CPU's atomic "
                  "instructions take whole");
    T* at() const { return static_cast<const Self*>(this)->address(); }
    // old -> change(old) in one step, for what the compiler has no atomic operation of its own.
    template <class Change>
    T update(Change change, memory_order order) const {
        T old = load(memory_order_relaxed);
        while (!compare_exchange_weak(old, change(old), order, memory_order_relaxed)) {
        }
        return old;
    }
    static constexpr bool integral = ::std::is_integral<T>::value;
    static constexpr bool arithmetic = ::std::is_arithmetic<T>::value;

public:
    using value_type = T;
    static constexpr bool is_always_lock_free = sizeof(T) <= 8;
    bool is_lock_free() const noexcept { return is_always_lock_free; }

    T load(memory_order order = memory_order_seq_cst) const noexcept {
        T value;
        __atomic_load(at(), &value, (int)order);
        return value;
    }
    void store(T value, memory_order order = memory_order_seq_cst) const noexcept {
        __atomic_store(at(), &value, (int)order);
    }
    operator T() const noexcept { return load(); }
    T exchange(T value, memory_order order = memory_order_seq_cst) const noexcept {
        T old;
        __atomic_exchange(at(), &value, &old, (int)order);
        return old;
    }
    bool compare_exchange_weak(T& expected, T desired, memory_order success, memory_order failure) const noexcept {
        return __atomic_compare_exchange(at(), &expected, &desired, true, (int)success, (int)failure);
    }
    bool compare_exchange_strong(T& expected, T desired, memory_order success, memory_order failure) const noexcept {
        return __atomic_compare_exchange(at(), &expected, &desired, false, (int)success, (int)failure);
    }
    bool compare_exchange_weak(T& expected, T desired, memory_order order = memory_order_seq_cst) const noexcept {
        return __atomic_compare_exchange(at(), &expected, &desired, true, (int)order, failure_order(order));
    }
    bool compare_exchange_strong(T& expected, T desired, memory_order order = memory_order_seq_cst) const noexcept {
        return __atomic_compare_exchange(at(), &expected, &desired, false, (int)order, failure_order(order));
    }

    T fetch_add(T value, memory_order order = memory_order_seq_cst) const noexcept {
        static_assert(arithmetic, "fetch_add needs an integer or floating-point type");
        if constexpr (integral) return __atomic_fetch_add(at(), value, (int)order);
        else return update([value](T old) { return old + value; }, order);
    }
    T fetch_sub(T value, memory_order order = memory_order_seq_cst) const noexcept {
        static_assert(arithmetic, "fetch_sub needs an integer or floating-point type");
        if constexpr (integral) return __atomic_fetch_sub(at(), value, (int)order);
        else return update([value](T old) { return old - value; }, order);
    }
    T fetch_and(T value, memory_order order = memory_order_seq_cst) const noexcept {
        static_assert(integral, "fetch_and needs an integer type");
        return __atomic_fetch_and(at(), value, (int)order);
    }
    T fetch_or(T value, memory_order order = memory_order_seq_cst) const noexcept {
        static_assert(integral, "fetch_or needs an integer type");
        return __atomic_fetch_or(at(), value, (int)order);
    }
    T fetch_xor(T value, memory_order order = memory_order_seq_cst) const noexcept {
        static_assert(integral, "fetch_xor needs an integer type");
        return __atomic_fetch_xor(at(), value, (int)order);
    }
    T fetch_min(T value, memory_order order = memory_order_seq_cst) const noexcept {
        static_assert(arithmetic, "fetch_min needs an integer or floating-point type");
        return update([value](T old) { return value < old ? value : old; }, order);
    }
    T fetch_max(T value, memory_order order = memory_order_seq_cst) const noexcept {
        static_assert(arithmetic, "fetch_max needs an integer or floating-point type");
        return update([value](T old) { return old < value ? value : old; }, order);
    }

    T operator++() const noexcept { return fetch_add(1) + 1; }
    T operator++(int) const noexcept { return fetch_add(1); }
    T operator--() const noexcept { return fetch_sub(1) - 1; }
    T operator--(int) const noexcept { return fetch_sub(1); }
    T operator+=(T value) const noexcept { return fetch_add(value) + value; }
    T operator-=(T value) const noexcept { return fetch_sub(value) - value; }
    T operator&=(T value) const noexcept { return fetch_and(value) & value; }
    T operator|=(T value) const noexcept { return fetch_or(value) | value; }
    T operator^=(T value) const noexcept { return fetch_xor(value) ^ value; }

    // Waits until the value is no longer `old`.
    void wait(T old, memory_order order = memory_order_seq_cst) const noexcept {
        for (T now = load(order); ::std::memcmp(&now, &old, sizeof(T)) == 0; now = load(order))
            ::cuda_emu::yield_thread();
    }
    void notify_one() const noexcept {}
    void notify_all() const noexcept {}
};

// An atomic that holds its value.
template <class T, class Self>
class atomic_value : public atomic_operations<T, Self> {
public:
    atomic_value() noexcept = default;
    constexpr atomic_value(T value) noexcept : value_(value) {}
    atomic_value(const atomic_value&) = delete;
    atomic_value& operator=(const atomic_value&) = delete;
    T operator=(T value) noexcept {
        this->store(value);
        return value;
    }
    T* address() const { return &value_; }

private:
    alignas(sizeof(T)) mutable T value_;  // as an atomic instruction needs it: at a multiple of its size
};

// An atomic view of an object elsewhere.
template <class T, class Self>
class atomic_reference : public atomic_operations<T, Self> {
public:
    static constexpr ::std::size_t required_alignment = sizeof(T);
    explicit atomic_reference(T& object) noexcept : object_(&object) {}
    atomic_reference(const atomic_reference&) noexcept = default;
    atomic_reference& operator=(const atomic_reference&) = delete;
    T operator=(T value) const noexcept {
        this->store(value);
        return value;
    }
    T* address() const { return object_; }

private:
    T* object_;
};
}  // namespace emu

template <class T, thread_scope Scope = thread_scope_system>
struct atomic : emu::atomic_value<T, atomic<T, Scope>> {
    using emu::atomic_value<T, atomic<T, Scope>>::atomic_value;
    using emu::atomic_value<T, atomic<T, Scope>>::operator=;
};
template <class T, thread_scope Scope = thread_scope_system>
struct atomic_ref : emu::atomic_reference<T, atomic_ref<T, Scope>> {
    using emu::atomic_reference<T, atomic_ref<T, Scope>>::atomic_reference;
    using emu::atomic_reference<T, atomic_ref<T, Scope>>::operator=;
};

// A fence: on the CPU every scope is the widest.
inline void atomic_thread_fence(memory_order order, thread_scope = thread_scope_system) noexcept {
    ::std::atomic_thread_fence(order);
}

// ---- Latches and semaphores (<cuda/latch>, <cuda/semaphore>) ---------------------------------------
// A latch counts down, once, to zero: wait() returns when it is there. A counting semaphore holds
// permits: acquire() takes one, waiting while there are none, and release() gives them back. Both
// are an atomic count, so any scope works: threads of other blocks may count down or release,
// while those blocks run. A thread that waits gives way to its block's other threads, as with
// __nanosleep; if what it waits for never comes, the watchdog names it, as a GPU would hang.
// --sanitize takes a latch reaching zero, and a semaphore's release, for a __syncthreads: what
// they order is not named as a race (nor is a race of other threads across that moment).
template <thread_scope Scope>
class latch {
public:
    constexpr explicit latch(std::ptrdiff_t expected) : count_(expected) {}
    latch(const latch&) = delete;
    latch& operator=(const latch&) = delete;
    void count_down(std::ptrdiff_t update = 1) {
        if (count_.fetch_sub(update, memory_order_acq_rel) == update) ::cuda_emu::note_block_ordering();
    }
    bool try_wait() const noexcept { return count_.load(memory_order_acquire) == 0; }
    void wait() const {
        while (!try_wait()) ::cuda_emu::yield_thread();
    }
    void arrive_and_wait(std::ptrdiff_t update = 1) {
        count_down(update);
        wait();
    }
    static constexpr std::ptrdiff_t max() noexcept { return PTRDIFF_MAX; }

private:
    atomic<std::ptrdiff_t, Scope> count_;
};

template <thread_scope Scope, std::ptrdiff_t LeastMaxValue = (std::ptrdiff_t(1) << 31) - 1>
class counting_semaphore {
    static_assert(LeastMaxValue >= 0, "a semaphore's maximum cannot be negative");

public:
    constexpr explicit counting_semaphore(std::ptrdiff_t desired) : count_(desired) {}
    counting_semaphore(const counting_semaphore&) = delete;
    counting_semaphore& operator=(const counting_semaphore&) = delete;
    // More permits than max() is undefined in C++ (a binary semaphore released twice lets two
    // threads in): a device-side assert here, at the caller's line.
    void release(std::ptrdiff_t update = 1, const char* file = __builtin_FILE(), int line = __builtin_LINE(),
                 const char* function = __builtin_FUNCTION()) {
        ::cuda_emu::note_block_ordering();  // the holder's work comes before the next holder's
        std::ptrdiff_t before = count_.fetch_add(update, memory_order_release);
        if (update < 0 || before + update > LeastMaxValue)
            __assert_fail("a semaphore's release() took its count past max() (a binary semaphore released "
                          "twice?), or its update was negative",
                          file, (unsigned)line, function);
    }
    bool try_acquire() noexcept {
        std::ptrdiff_t old = count_.load(memory_order_relaxed);
        while (old > 0)
            if (count_.compare_exchange_weak(old, old - 1, memory_order_acquire, memory_order_relaxed)) return true;
        return false;
    }
    void acquire() {
        while (!try_acquire()) ::cuda_emu::yield_thread();
    }
    template <class Clock, class Duration>
    bool try_acquire_until(const ::std::chrono::time_point<Clock, Duration>& deadline) {
        for (;;) {
            if (try_acquire()) return true;
            if (Clock::now() >= deadline) return false;
            ::cuda_emu::yield_thread();
        }
    }
    template <class Rep, class Period>
    bool try_acquire_for(const ::std::chrono::duration<Rep, Period>& wait_at_most) {
        return try_acquire_until(::std::chrono::steady_clock::now() + wait_at_most);
    }
    static constexpr std::ptrdiff_t max() noexcept { return LeastMaxValue; }

private:
    atomic<std::ptrdiff_t, Scope> count_;
};
template <thread_scope Scope>
using binary_semaphore = counting_semaphore<Scope, 1>;

// cuda::std (cuda_std.h): the standard library's names, and atomics of its own.
namespace std {
template <class T>
struct atomic : ::cuda::atomic<T, thread_scope_system> {
    using ::cuda::atomic<T, thread_scope_system>::atomic;
    using ::cuda::atomic<T, thread_scope_system>::operator=;
};
template <class T>
struct atomic_ref : ::cuda::atomic_ref<T, thread_scope_system> {
    using ::cuda::atomic_ref<T, thread_scope_system>::atomic_ref;
};
// C++20's synchronization: cuda's, at the system's scope, as in libcu++. C++20's barrier has
// no default constructor: it is made with its count (in shared memory, by placement new).
template <class CompletionFunction = emu::empty_completion>
class barrier : public ::cuda::barrier<thread_scope_system, CompletionFunction> {
public:
    explicit barrier(std::ptrdiff_t expected, CompletionFunction completion = CompletionFunction())
        : ::cuda::barrier<thread_scope_system, CompletionFunction>(expected, completion) {}
};
using latch = ::cuda::latch<thread_scope_system>;
template <std::ptrdiff_t LeastMaxValue = (std::ptrdiff_t(1) << 31) - 1>
using counting_semaphore = ::cuda::counting_semaphore<thread_scope_system, LeastMaxValue>;
using binary_semaphore = ::cuda::binary_semaphore<thread_scope_system>;
}  // namespace std

}  // namespace cuda
