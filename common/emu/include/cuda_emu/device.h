// cuda_emu/device.h - what kernel code sees: qualifiers, built-in variables, barriers, warp
// operations, atomics and intrinsics, for the CPU emulator.
//
// Part of the CPU emulation backend (common/emu/); <cuda_runtime.h> includes it.
// How the pieces map onto the CPU:
//   - __global__, __device__, __host__ vanish: a kernel is an ordinary C++ function that the
//     emulator calls once per GPU thread.
//   - __shared__ becomes `static thread_local`. All threads of a block run on one OS thread and a
//     worker runs one block at a time, so there is exactly one copy per running block.
//   - threadIdx, blockIdx, blockDim and gridDim are per-OS-thread variables that the scheduler
//     updates each time it switches from one GPU thread to another.
//   - Barriers and warp operations are calls into the scheduler, which suspends the calling
//     thread (a fiber with its own stack) until its partners arrive. The macros pass __FILE__ and
//     __LINE__ so a bug report can name the exact barrier.
//   - Atomics use the CPU's atomic instructions, so they are atomic across blocks that run on
//     different cores.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <ctime>

#include "types.h"

// ---- Qualifiers -------------------------------------------------------------------------------
#define __global__
#define __device__
#define __host__
#define __constant__
#define __managed__
// On a 16-byte boundary, so that a misaligned vector access reported in a __shared__ array is one
// of its offset (tile[1] read as a float4), alike on every host processor: x86-64 aligns arrays
// of 16 bytes or more so by itself, 32-bit Arm on 8 bytes only. (CUDA promises no more than the
// element type's alignment; __align__(16) asks for more.)
#define __shared__ static thread_local __attribute__((aligned(16)))
#define __forceinline__ inline __attribute__((always_inline))
// __noinline__ is no macro: libstdc++ spells GCC's attribute __attribute__((__noinline__)), which
// such a macro would break. emucc's rewriter turns the keyword in CUDA sources into
// __attribute__((noinline)) instead (common/emu/rewrite.c).
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...)
// Thread block clusters are not emulated: a kernel declared with a cluster size stops the build
// at its line, saying so.
#define __cluster_dims__(...) \
    _Pragma("GCC error \"cuda-emu: thread block clusters (__cluster_dims__) are not emulated\"")
#define __grid_constant__
#define __builtin_align__(n) __attribute__((aligned(n)))
#define __device_builtin__
#define __cudart_builtin__

// ---- Built-in variables -----------------------------------------------------------------------
// __thread (not thread_local) so that reading threadIdx.x is a single load, not a function call.
// blockDim and gridDim are dim3 in CUDA; a uint3 has the same members and converts to dim3.
extern __thread uint3 threadIdx;
extern __thread uint3 blockIdx;
extern __thread uint3 blockDim;
extern __thread uint3 gridDim;
constexpr int warpSize = 32;

namespace cuda_emu {

// The dynamic shared memory of the block this OS thread is running (sized by the launch).
extern __thread char* dynamic_shared_base;

// `extern __shared__ T name[];` at namespace scope is rewritten to one of these: it behaves like
// the array by converting to the current block's buffer each time it is used.
template <class T>
struct dynamic_shared_array {
    operator T*() const { return reinterpret_cast<T*>(dynamic_shared_base); }
    T& operator[](std::ptrdiff_t i) const { return reinterpret_cast<T*>(dynamic_shared_base)[i]; }
};

// emucc --sanitize registers where each static __shared__ variable lies (rewrite.c, rewrite 4),
// so that an access past one is reported (runtime/sanitize.cpp); name null: a gap.
void shared_extent_here(const void* start, std::size_t size, const char* name);

// ---- Barriers and warp operations (implemented in runtime/scheduler.cpp) ----------------------
// How a block barrier ends: plain, with a reduction of the predicates, or (GRID_SYNC) as the first
// step of grid.sync(), after which the block waits for the rest of the grid.
enum BlockReduce { REDUCE_NONE, REDUCE_COUNT, REDUCE_AND, REDUCE_OR, GRID_SYNC };
enum WarpOp {
    WARP_SYNC, WARP_SHFL, WARP_SHFL_UP, WARP_SHFL_DOWN, WARP_SHFL_XOR,
    WARP_BALLOT, WARP_ANY, WARP_ALL, WARP_REDUCE_ADD, WARP_REDUCE_MIN, WARP_REDUCE_MAX,
    WARP_REDUCE_AND, WARP_REDUCE_OR, WARP_REDUCE_XOR, WARP_MATCH_ANY, WARP_MATCH_ALL
};

int block_barrier(const char* file, int line, int reduce, int predicate);
uint64_t warp_barrier(const char* file, int line, int op, unsigned mask, uint64_t value, int arg,
                      int width);
// The lanes of the calling thread's warp that arrive at this place (file and line) together: it
// waits until each other lane of its warp has arrived here too or stopped elsewhere (at a barrier,
// a warp operation, or its end). What __activemask() and coalesced_threads() return.
unsigned converged_lanes(const char* file, int line);
// The sync() of a cooperative_groups tile of `size` threads, 64 to 1024: the calling thread's tile
// is the `size` threads from a multiple of `size`. Returns how many passed a non-zero predicate.
int tile_barrier(const char* file, int line, int size, int predicate);
bool cooperative_launch();  // whether the running kernel was started by cudaLaunchCooperativeKernel
// A cuda::barrier of a block (cuda_emu/libcudacxx.h): the arrivals a phase expects, those it still
// waits for, and the phase's number. It lies where the barrier does, in shared memory.
struct PhaseBarrier {
    std::ptrdiff_t expected, pending;
    unsigned phase;
    std::uint64_t user;  // 1 + the index in its grid of the block whose threads use it; 0: none yet
};
// Arrives `count` times (and with `drop`, later phases expect one arrival fewer); the last
// arrival of a phase runs complete(object), if given, then starts the next phase and resumes the
// threads waiting for this one. Returns the phase it arrived in (the arrival token).
unsigned phase_barrier_arrive(PhaseBarrier* barrier, std::ptrdiff_t count, bool drop, const char* file,
                              int line, void (*complete)(void*) = nullptr, void* object = nullptr);
// Waits until the phase numbered `phase` is over (at once if it is).
void phase_barrier_wait(const PhaseBarrier* barrier, unsigned phase, const char* file, int line);
// The running thread gives way to the others of its block (__nanosleep in a spinning wait).
void yield_thread();
// For --sanitize: what the block's threads did before this moment counts as ordered before what
// they do after, as across a __syncthreads (a latch reaching zero, a semaphore's release).
void note_block_ordering();

template <class T>
T warp_shuffle(const char* file, int line, int op, unsigned mask, T value, int arg,
               int width = 32) {
    static_assert(sizeof(T) <= 8,
                  "__shfl_sync and the other shuffle intrinsics take built-in types of at most 8 "
                  "bytes, as in CUDA; a cooperative_groups tile's shfl moves larger values");
    uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof(T));
    bits = warp_barrier(file, line, op, mask, bits, arg, width);
    T result;
    std::memcpy(&result, &bits, sizeof(T));
    return result;
}
}  // namespace cuda_emu

#define __syncthreads() ::cuda_emu::block_barrier(__FILE__, __LINE__, ::cuda_emu::REDUCE_NONE, 1)
#define __syncthreads_count(p) \
    ::cuda_emu::block_barrier(__FILE__, __LINE__, ::cuda_emu::REDUCE_COUNT, (p) != 0)
#define __syncthreads_and(p) \
    ::cuda_emu::block_barrier(__FILE__, __LINE__, ::cuda_emu::REDUCE_AND, (p) != 0)
#define __syncthreads_or(p) \
    ::cuda_emu::block_barrier(__FILE__, __LINE__, ::cuda_emu::REDUCE_OR, (p) != 0)

// __syncwarp() and __syncwarp(mask): the macro makes a callable that remembers the place, so the
// optional mask needs no compiler extension.
#define __syncwarp(...) ::cuda_emu::SyncWarp{__FILE__, __LINE__}(__VA_ARGS__)
#define __shfl_sync(...) \
    ::cuda_emu::warp_shuffle(__FILE__, __LINE__, ::cuda_emu::WARP_SHFL, __VA_ARGS__)
#define __shfl_up_sync(...) \
    ::cuda_emu::warp_shuffle(__FILE__, __LINE__, ::cuda_emu::WARP_SHFL_UP, __VA_ARGS__)
#define __shfl_down_sync(...) \
    ::cuda_emu::warp_shuffle(__FILE__, __LINE__, ::cuda_emu::WARP_SHFL_DOWN, __VA_ARGS__)
#define __shfl_xor_sync(...) \
    ::cuda_emu::warp_shuffle(__FILE__, __LINE__, ::cuda_emu::WARP_SHFL_XOR, __VA_ARGS__)
#define __ballot_sync(mask, p) \
    ((unsigned)::cuda_emu::warp_barrier(__FILE__, __LINE__, ::cuda_emu::WARP_BALLOT, mask, (p) != 0, 0, 32))
#define __any_sync(mask, p) \
    ((int)::cuda_emu::warp_barrier(__FILE__, __LINE__, ::cuda_emu::WARP_ANY, mask, (p) != 0, 0, 32))
#define __all_sync(mask, p) \
    ((int)::cuda_emu::warp_barrier(__FILE__, __LINE__, ::cuda_emu::WARP_ALL, mask, (p) != 0, 0, 32))
#define __activemask() ::cuda_emu::converged_lanes(__FILE__, __LINE__)
#define __match_any_sync(mask, v) ::cuda_emu::warp_match(__FILE__, __LINE__, mask, v)
#define __match_all_sync(mask, v, pred) ::cuda_emu::warp_match(__FILE__, __LINE__, mask, v, pred)
#define __reduce_add_sync(mask, v) ::cuda_emu::warp_reduce(__FILE__, __LINE__, ::cuda_emu::WARP_REDUCE_ADD, mask, v)
#define __reduce_min_sync(mask, v) ::cuda_emu::warp_reduce(__FILE__, __LINE__, ::cuda_emu::WARP_REDUCE_MIN, mask, v)
#define __reduce_max_sync(mask, v) ::cuda_emu::warp_reduce(__FILE__, __LINE__, ::cuda_emu::WARP_REDUCE_MAX, mask, v)
#define __reduce_and_sync(mask, v) ::cuda_emu::warp_reduce(__FILE__, __LINE__, ::cuda_emu::WARP_REDUCE_AND, mask, v)
#define __reduce_or_sync(mask, v) ::cuda_emu::warp_reduce(__FILE__, __LINE__, ::cuda_emu::WARP_REDUCE_OR, mask, v)
#define __reduce_xor_sync(mask, v) ::cuda_emu::warp_reduce(__FILE__, __LINE__, ::cuda_emu::WARP_REDUCE_XOR, mask, v)

namespace cuda_emu {
struct SyncWarp {
    const char* file;
    int line;
    void operator()(unsigned mask = 0xffffffffu) const { warp_barrier(file, line, WARP_SYNC, mask, 0, 0, 32); }
};
// __match_any_sync: the lanes of the mask whose value equals the caller's. __match_all_sync: the
// whole mask if all values are equal (and *pred = 1), else 0 (and *pred = 0). For 4- and 8-byte
// types (int, unsigned, long long, float, double, ...), as in CUDA.
template <class T>
unsigned warp_match(const char* file, int line, unsigned mask, T value, int* all_equal = nullptr) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "__match_any_sync and __match_all_sync take "
                  "4- and 8-byte types (int, unsigned, long long, float, double), as in CUDA");
    uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof(T));
    int op = all_equal ? WARP_MATCH_ALL : WARP_MATCH_ANY;
    unsigned lanes = (unsigned)warp_barrier(file, line, op, mask, bits, 0, 32);
    if (all_equal) *all_equal = lanes != 0;
    return lanes;
}
// __reduce_*_sync exist for int and unsigned; the sign decides how min and max compare.
template <class T>
T warp_reduce(const char* file, int line, int op, unsigned mask, T value) {
    static_assert(sizeof(T) == 4, "__reduce_*_sync takes int or unsigned");
    int64_t wide = (int64_t)value;
    return (T)warp_barrier(file, line, op, mask, (uint64_t)wide, T(-1) < T(0), 32);
}
}  // namespace cuda_emu

// Memory fences: every emulated thread shares the CPU's coherent memory, so a full fence is
// enough for all three scopes.
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
// __nanosleep(): a thread that waits for another, spinning, sleeps between its looks. Here it
// gives way to the other threads of its block, which take turns, so that the one it waits for runs.
inline void __nanosleep(unsigned) { ::cuda_emu::yield_thread(); }

// clock64(): a GPU multiprocessor's cycle counter. Here it counts nanoseconds of the host's
// monotonic clock (a 1 GHz clock, the clock rate the device reports), enough to time a piece of
// a kernel. clock() in a kernel counts the same (the runtime's clock(), scheduler.cpp).
inline long long clock64() {
    timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
}

// ---- emucc --sanitize and --profile ----------------------------------------------------------
// The program tells the runtime at startup what emucc built it for (the instrumentation of every
// load and store is the same for both; runtime/sanitize.cpp).
namespace cuda_emu {
void enable_checks(bool sanitize, int profile);  // profile 2: per source line too
#if defined(CUDA_EMU_SANITIZE) || defined(CUDA_EMU_PROFILE)
#ifndef CUDA_EMU_SANITIZE
#define CUDA_EMU_SANITIZE 0
#endif
#ifndef CUDA_EMU_PROFILE
#define CUDA_EMU_PROFILE 0
#endif
inline const bool checks_enabled = (enable_checks(CUDA_EMU_SANITIZE, CUDA_EMU_PROFILE), true);
#endif
// --profile: emucc's rewriter wraps the condition of each if and while in device code in
// profile_branch(...), which notes which way the calling thread went (runtime/profile.cpp);
// each atomic notes its address. Not inlined: the return address names the branch or atomic.
__attribute__((noinline)) bool profile_branch(bool taken);
__attribute__((noinline)) void profile_atomic(const volatile void* address);
}  // namespace cuda_emu
#if CUDA_EMU_PROFILE
#define CUDA_EMU_COUNT_ATOMIC(address) ::cuda_emu::profile_atomic(address)
#else
#define CUDA_EMU_COUNT_ATOMIC(address) ((void)0)
#endif

// ---- Atomics ----------------------------------------------------------------------------------
// Integer add/sub/and/or/xor/exch map to single CPU instructions; the rest (float add, min, max,
// inc, dec) are compare-and-swap loops, which is also how a GPU without a native instruction
// does them. Each atomic operation counts once (CUDA_EMU_COUNT_ATOMIC), however often its loop
// tries.
namespace cuda_emu {
template <class T, class F>
inline T atomic_update(T* address, F update) {
    CUDA_EMU_COUNT_ATOMIC(address);
    T old = __atomic_load_n(address, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(address, &old, update(old), false, __ATOMIC_SEQ_CST,
                                        __ATOMIC_RELAXED)) {
    }
    return old;
}
template <class T, class Bits, class F>
inline T atomic_update_bits(T* address, F update) {  // for float and double
    static_assert(sizeof(T) == sizeof(Bits), "bit pattern size");
    CUDA_EMU_COUNT_ATOMIC(address);
    Bits* raw = reinterpret_cast<Bits*>(address);
    Bits old_bits = __atomic_load_n(raw, __ATOMIC_RELAXED);
    for (;;) {
        T old_value, new_value;
        std::memcpy(&old_value, &old_bits, sizeof(T));
        new_value = update(old_value);
        Bits new_bits;
        std::memcpy(&new_bits, &new_value, sizeof(T));
        if (__atomic_compare_exchange_n(raw, &old_bits, new_bits, false, __ATOMIC_SEQ_CST,
                                        __ATOMIC_RELAXED))
            return old_value;
    }
}
}  // namespace cuda_emu

// One atomic that is a single CPU instruction: BUILTIN(a, v, order).
#define CUDA_EMU_FETCH_ATOMIC(T, name, builtin)                                                    \
    inline T name(T* a, T v) {                                                                   \
        CUDA_EMU_COUNT_ATOMIC(a);                                                                \
        return builtin(a, v, __ATOMIC_SEQ_CST);                                                  \
    }
#define CUDA_EMU_INT_ATOMICS(T)                                                                    \
    CUDA_EMU_FETCH_ATOMIC(T, atomicAdd, __atomic_fetch_add)                                      \
    CUDA_EMU_FETCH_ATOMIC(T, atomicSub, __atomic_fetch_sub)                                      \
    CUDA_EMU_FETCH_ATOMIC(T, atomicAnd, __atomic_fetch_and)                                      \
    CUDA_EMU_FETCH_ATOMIC(T, atomicOr, __atomic_fetch_or)                                        \
    CUDA_EMU_FETCH_ATOMIC(T, atomicXor, __atomic_fetch_xor)                                      \
    CUDA_EMU_FETCH_ATOMIC(T, atomicExch, __atomic_exchange_n)                                    \
    inline T atomicMin(T* a, T v) {                                                              \
        return cuda_emu::atomic_update(a, [v](T old) { return old < v ? old : v; });             \
    }                                                                                            \
    inline T atomicMax(T* a, T v) {                                                              \
        return cuda_emu::atomic_update(a, [v](T old) { return old > v ? old : v; });             \
    }                                                                                            \
    inline T atomicCAS(T* a, T compare, T v) {                                                   \
        CUDA_EMU_COUNT_ATOMIC(a);                                                                \
        __atomic_compare_exchange_n(a, &compare, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);  \
        return compare;                                                                          \
    }
CUDA_EMU_INT_ATOMICS(int)
CUDA_EMU_INT_ATOMICS(unsigned int)
CUDA_EMU_INT_ATOMICS(long long)
CUDA_EMU_INT_ATOMICS(unsigned long long)
#undef CUDA_EMU_INT_ATOMICS
#undef CUDA_EMU_FETCH_ATOMIC

inline unsigned short atomicCAS(unsigned short* a, unsigned short compare, unsigned short v) {
    CUDA_EMU_COUNT_ATOMIC(a);
    __atomic_compare_exchange_n(a, &compare, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    return compare;
}
inline float atomicAdd(float* a, float v) {
    return cuda_emu::atomic_update_bits<float, uint32_t>(a, [v](float old) { return old + v; });
}
inline double atomicAdd(double* a, double v) {
    return cuda_emu::atomic_update_bits<double, uint64_t>(a, [v](double old) { return old + v; });
}
inline float atomicSub(float* a, float v) { return atomicAdd(a, -v); }
inline float atomicExch(float* a, float v) {
    return cuda_emu::atomic_update_bits<float, uint32_t>(a, [v](float) { return v; });
}
inline float atomicMin(float* a, float v) {
    return cuda_emu::atomic_update_bits<float, uint32_t>(a, [v](float o) { return fminf(o, v); });
}
inline float atomicMax(float* a, float v) {
    return cuda_emu::atomic_update_bits<float, uint32_t>(a, [v](float o) { return fmaxf(o, v); });
}
// atomicInc wraps to 0 after reaching limit; atomicDec wraps to limit after 0 (or above limit).
inline unsigned int atomicInc(unsigned int* a, unsigned int limit) {
    return cuda_emu::atomic_update(a, [limit](unsigned old) { return old >= limit ? 0u : old + 1; });
}
inline unsigned int atomicDec(unsigned int* a, unsigned int limit) {
    return cuda_emu::atomic_update(
        a, [limit](unsigned old) { return (old == 0 || old > limit) ? limit : old - 1; });
}
// The _block and _system variants differ on a GPU only in which threads must see the result.
#define atomicAdd_block atomicAdd
#define atomicAdd_system atomicAdd
#define atomicSub_system atomicSub
#define atomicExch_system atomicExch
#define atomicMin_system atomicMin
#define atomicMax_system atomicMax
#define atomicInc_system atomicInc
#define atomicDec_system atomicDec
#define atomicCAS_system atomicCAS
#define atomicAnd_system atomicAnd
#define atomicOr_system atomicOr
#define atomicXor_system atomicXor
#define atomicCAS_block atomicCAS
#define atomicExch_block atomicExch
#define atomicMin_block atomicMin
#define atomicMax_block atomicMax

// ---- Integer intrinsics -----------------------------------------------------------------------
inline int __popc(unsigned int x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned int __brev(unsigned int x) {
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
    return __builtin_bswap32(x);
}
inline int __mul24(int a, int b) { return (int)((a << 8 >> 8) * (b << 8 >> 8)); }
inline unsigned int __umul24(unsigned int a, unsigned int b) { return (a & 0xffffff) * (b & 0xffffff); }
inline int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
inline unsigned int __umulhi(unsigned int a, unsigned int b) {
    return (unsigned)(((unsigned long long)a * b) >> 32);
}
inline unsigned int __sad(int a, int b, unsigned int c) { return (unsigned)(a > b ? a - b : b - a) + c; }
inline unsigned int __usad(unsigned int a, unsigned int b, unsigned int c) { return (a > b ? a - b : b - a) + c; }
// Averages without overflow, rounded down or (rh) up.
inline int __hadd(int a, int b) { return (int)(((long long)a + b) >> 1); }
inline int __rhadd(int a, int b) { return (int)(((long long)a + b + 1) >> 1); }
inline unsigned int __uhadd(unsigned int a, unsigned int b) { return (unsigned)(((unsigned long long)a + b) >> 1); }
inline unsigned int __urhadd(unsigned int a, unsigned int b) {
    return (unsigned)(((unsigned long long)a + b + 1) >> 1);
}
// hi:lo as one 64-bit value shifted left (keeping its upper half) or right (its lower half), by
// the shift's low 5 bits, or (lc, rc) by the shift clamped to 32.
inline unsigned int __funnelshift_l(unsigned int lo, unsigned int hi, unsigned int shift) {
    return (unsigned)(((((unsigned long long)hi << 32) | lo) << (shift & 31)) >> 32);
}
inline unsigned int __funnelshift_lc(unsigned int lo, unsigned int hi, unsigned int shift) {
    return (unsigned)(((((unsigned long long)hi << 32) | lo) << (shift < 32 ? shift : 32)) >> 32);
}
inline unsigned int __funnelshift_r(unsigned int lo, unsigned int hi, unsigned int shift) {
    return (unsigned)((((unsigned long long)hi << 32) | lo) >> (shift & 31));
}
inline unsigned int __funnelshift_rc(unsigned int lo, unsigned int hi, unsigned int shift) {
    return (unsigned)((((unsigned long long)hi << 32) | lo) >> (shift < 32 ? shift : 32));
}
// Byte n of the result is byte (s >> 4n) & 7 of the eight bytes y:x (x's are 0 to 3).
inline unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s) {
    unsigned long long bytes = ((unsigned long long)y << 32) | x;
    unsigned int result = 0;
    for (int n = 0; n < 4; n++) {
        unsigned int byte = (s >> (4 * n)) & 7;
        result |= (unsigned)((bytes >> (8 * byte)) & 0xffu) << (8 * n);
    }
    return result;
}

// SIMD video instructions: the same operation on the two 16-bit halves (...2) or the four bytes
// (...4) of a 32-bit word, each part unsigned; a sum or difference wraps within its part.
namespace cuda_emu {
inline unsigned int simd_absdiff(unsigned int x, unsigned int y) { return x > y ? x - y : y - x; }
inline unsigned int simd_add(unsigned int x, unsigned int y) { return x + y; }
inline unsigned int simd_sub(unsigned int x, unsigned int y) { return x - y; }
inline unsigned int simd_max(unsigned int x, unsigned int y) { return x > y ? x : y; }
inline unsigned int simd_min(unsigned int x, unsigned int y) { return x < y ? x : y; }
template <int bits, class Op>
inline unsigned int simd_parts(unsigned int a, unsigned int b, Op op) {
    const unsigned int mask = (1u << bits) - 1;
    unsigned int result = 0;
    for (int k = 0; k < 32; k += bits) result |= (op((a >> k) & mask, (b >> k) & mask) & mask) << k;
    return result;
}
template <int bits>
inline unsigned int simd_sad(unsigned int a, unsigned int b) {
    const unsigned int mask = (1u << bits) - 1;
    unsigned int sum = 0;
    for (int k = 0; k < 32; k += bits) sum += simd_absdiff((a >> k) & mask, (b >> k) & mask);
    return sum;
}
}  // namespace cuda_emu
#define CUDA_EMU_SIMD(name, bits, op)                                 \
    inline unsigned int name(unsigned int a, unsigned int b) {       \
        return ::cuda_emu::simd_parts<bits>(a, b, ::cuda_emu::op); \
    }
CUDA_EMU_SIMD(__vabsdiffu2, 16, simd_absdiff)
CUDA_EMU_SIMD(__vabsdiffu4, 8, simd_absdiff)
CUDA_EMU_SIMD(__vadd2, 16, simd_add)
CUDA_EMU_SIMD(__vadd4, 8, simd_add)
CUDA_EMU_SIMD(__vsub2, 16, simd_sub)
CUDA_EMU_SIMD(__vsub4, 8, simd_sub)
CUDA_EMU_SIMD(__vmaxu2, 16, simd_max)
CUDA_EMU_SIMD(__vmaxu4, 8, simd_max)
CUDA_EMU_SIMD(__vminu2, 16, simd_min)
CUDA_EMU_SIMD(__vminu4, 8, simd_min)
#undef CUDA_EMU_SIMD
inline unsigned int __vsadu2(unsigned int a, unsigned int b) { return ::cuda_emu::simd_sad<16>(a, b); }
inline unsigned int __vsadu4(unsigned int a, unsigned int b) { return ::cuda_emu::simd_sad<8>(a, b); }

// Dot products of packed integers (compute capability 6.1 on), one instruction each on a GPU:
// __dp2a_lo and __dp2a_hi multiply the two 16-bit halves of a (the low half first) by bytes 0
// and 1 of b, or by bytes 2 and 3, and add c; __dp4a multiplies the four bytes of a by the four
// of b and adds c. The unsigned forms zero-extend every part, the signed forms sign-extend.
inline unsigned int __dp2a_lo(unsigned int a, unsigned int b, unsigned int c) {
    return c + (a & 0xffffu) * (b & 0xffu) + (a >> 16) * ((b >> 8) & 0xffu);
}
inline unsigned int __dp2a_hi(unsigned int a, unsigned int b, unsigned int c) {
    return c + (a & 0xffffu) * ((b >> 16) & 0xffu) + (a >> 16) * (b >> 24);
}
inline int __dp2a_lo(int a, int b, int c) {
    return c + (short)(a & 0xffff) * (signed char)(b & 0xff) +
           (short)((unsigned)a >> 16) * (signed char)((b >> 8) & 0xff);
}
inline int __dp2a_hi(int a, int b, int c) {
    return c + (short)(a & 0xffff) * (signed char)((b >> 16) & 0xff) +
           (short)((unsigned)a >> 16) * (signed char)((unsigned)b >> 24);
}
inline unsigned int __dp4a(unsigned int a, unsigned int b, unsigned int c) {
    for (int k = 0; k < 32; k += 8) c += ((a >> k) & 0xffu) * ((b >> k) & 0xffu);
    return c;
}
inline int __dp4a(int a, int b, int c) {
    for (int k = 0; k < 32; k += 8)
        c += (signed char)(((unsigned)a >> k) & 0xff) * (signed char)(((unsigned)b >> k) & 0xff);
    return c;
}
// The same on vector types: a 16-bit pair and a byte quad (x the lowest).
inline unsigned int __dp2a_lo(ushort2 a, uchar4 b, unsigned int c) { return c + a.x * b.x + a.y * b.y; }
inline unsigned int __dp2a_hi(ushort2 a, uchar4 b, unsigned int c) { return c + a.x * b.z + a.y * b.w; }
inline int __dp2a_lo(short2 a, char4 b, int c) { return c + a.x * b.x + a.y * b.y; }
inline int __dp2a_hi(short2 a, char4 b, int c) { return c + a.x * b.z + a.y * b.w; }
inline unsigned int __dp4a(uchar4 a, uchar4 b, unsigned int c) {
    return c + a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
}
inline int __dp4a(char4 a, char4 b, int c) { return c + a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }

// Loads through the read-only cache are ordinary loads here.
template <class T> inline T __ldg(const T* p) { return *p; }
template <class T> inline T __ldcg(const T* p) { return *p; }
template <class T> inline T __ldca(const T* p) { return *p; }
template <class T> inline T __ldcs(const T* p) { return *p; }
template <class T> inline void __stcg(T* p, T v) { *p = v; }
template <class T> inline void __stcs(T* p, T v) { *p = v; }
template <class T> inline void __stwt(T* p, T v) { *p = v; }

// ---- Floating point intrinsics ----------------------------------------------------------------
// The fast hardware approximations (__expf, __sinf, ...) are computed exactly here, so results can
// differ from a GPU in the last bits; compare with a tolerance, as the course does anyway.
inline float __expf(float x) { return expf(x); }
inline float __exp10f(float x) { return powf(10.0f, x); }
inline float __logf(float x) { return logf(x); }
inline float __log2f(float x) { return log2f(x); }
inline float __log10f(float x) { return log10f(x); }
inline float __sinf(float x) { return sinf(x); }
inline float __cosf(float x) { return cosf(x); }
inline float __tanf(float x) { return tanf(x); }
inline void __sincosf(float x, float* s, float* c) { *s = sinf(x); *c = cosf(x); }
inline float __powf(float x, float y) { return powf(x, y); }
inline float __fdividef(float x, float y) { return x / y; }
inline float __frcp_rn(float x) { return 1.0f / x; }
inline float __fsqrt_rn(float x) { return sqrtf(x); }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
inline double __fma_rn(double a, double b, double c) { return fma(a, b, c); }
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __dsub_rn(double a, double b) { return a - b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline double __ddiv_rn(double a, double b) { return a / b; }
inline double __drcp_rn(double x) { return 1.0 / x; }
inline double __dsqrt_rn(double x) { return sqrt(x); }

// The directed roundings (_rd down, _ru up, _rz toward zero) without touching the floating-point
// environment, which the host's other threads share: take the round-to-nearest result and the
// sign of what it left out, found exactly (an error-free transformation), and step one ulp where
// the direction asks. Exact except where a product or quotient underflows to subnormals.
namespace cuda_emu {
enum Rounding { round_down, round_up, round_toward_zero };
// nearest: the round-to-nearest result; remainder: > 0 when the exact value is above it.
template <class T>
inline T round_directed(T nearest, T remainder, Rounding mode) {
    if (remainder == 0 || nearest != nearest) return nearest;
    const T huge = std::numeric_limits<T>::infinity();
    if (nearest == huge || nearest == -huge) {  // an overflow: directed roundings may stop at max
        bool toward_max = mode == round_toward_zero || (mode == round_down) == (nearest > 0);
        return toward_max ? std::copysign(std::numeric_limits<T>::max(), nearest) : nearest;
    }
    bool exact_is_above = remainder > 0;
    bool step_down = exact_is_above ? false : (mode == round_down || (mode == round_toward_zero && nearest > 0));
    bool step_up = exact_is_above ? (mode == round_up || (mode == round_toward_zero && nearest < 0)) : false;
    if (step_down) return std::nextafter(nearest, -huge);
    if (step_up) return std::nextafter(nearest, huge);
    return nearest;
}
// a + b's rounding error, exactly (Knuth's TwoSum); a + b overflowing gives nan, handled above.
template <class T>
inline T sum_remainder(T a, T b, T sum) {
    T b_part = sum - a;
    return (a - (sum - b_part)) + (b - b_part);
}
template <class T> inline T add(T a, T b, Rounding mode) {
    T sum = a + b;
    if (!std::isfinite(sum)) return round_directed(sum, std::isfinite(a) && std::isfinite(b) ? sum : T(0), mode);
    return round_directed(sum, sum_remainder(a, b, sum), mode);
}
template <class T> inline T mul(T a, T b, Rounding mode) {
    T product = a * b;
    if (!std::isfinite(product))
        return round_directed(product, std::isfinite(a) && std::isfinite(b) ? product : T(0), mode);
    return round_directed(product, std::fma(a, b, -product), mode);
}
template <class T> inline T div(T a, T b, Rounding mode) {
    T quotient = a / b;
    if (!std::isfinite(quotient) || b == 0)
        return round_directed(quotient, std::isfinite(a) && b != 0 ? quotient : T(0), mode);
    T remainder = std::fma(-quotient, b, a);  // a - quotient * b, exact
    return round_directed(quotient, b > 0 ? remainder : -remainder, mode);
}
template <class T> inline T root(T x, Rounding mode) {
    T r = std::sqrt(x);
    if (!(x > 0) || !std::isfinite(x)) return r;
    return round_directed(r, std::fma(-r, r, x), mode);
}
// A double or a 64-bit integer to float: round to nearest, then compare in double or long double.
template <class From> inline float to_float(From x, Rounding mode) {
    float nearest = (float)x;
    long double difference = (long double)x - (long double)nearest;
    if (!std::isfinite(nearest) && std::isfinite((double)x))
        return round_directed(nearest, nearest, mode);
    return round_directed(nearest, difference > 0 ? 1.0f : difference < 0 ? -1.0f : 0.0f, mode);
}
}  // namespace cuda_emu

#define CUDA_EMU_DIRECTED(SUFFIX, MODE)                                                                   \
    inline float __fadd_##SUFFIX(float a, float b) { return cuda_emu::add(a, b, cuda_emu::MODE); }         \
    inline float __fsub_##SUFFIX(float a, float b) { return cuda_emu::add(a, -b, cuda_emu::MODE); }        \
    inline float __fmul_##SUFFIX(float a, float b) { return cuda_emu::mul(a, b, cuda_emu::MODE); }         \
    inline float __fdiv_##SUFFIX(float a, float b) { return cuda_emu::div(a, b, cuda_emu::MODE); }         \
    inline float __frcp_##SUFFIX(float x) { return cuda_emu::div(1.0f, x, cuda_emu::MODE); }              \
    inline float __fsqrt_##SUFFIX(float x) { return cuda_emu::root(x, cuda_emu::MODE); }                  \
    inline double __dadd_##SUFFIX(double a, double b) { return cuda_emu::add(a, b, cuda_emu::MODE); }     \
    inline double __dsub_##SUFFIX(double a, double b) { return cuda_emu::add(a, -b, cuda_emu::MODE); }    \
    inline double __dmul_##SUFFIX(double a, double b) { return cuda_emu::mul(a, b, cuda_emu::MODE); }     \
    inline double __ddiv_##SUFFIX(double a, double b) { return cuda_emu::div(a, b, cuda_emu::MODE); }     \
    inline double __drcp_##SUFFIX(double x) { return cuda_emu::div(1.0, x, cuda_emu::MODE); }             \
    inline double __dsqrt_##SUFFIX(double x) { return cuda_emu::root(x, cuda_emu::MODE); }                \
    inline float __double2float_##SUFFIX(double x) { return cuda_emu::to_float(x, cuda_emu::MODE); }      \
    inline float __int2float_##SUFFIX(int x) { return cuda_emu::to_float((long long)x, cuda_emu::MODE); } \
    inline float __uint2float_##SUFFIX(unsigned x) {                                                      \
        return cuda_emu::to_float((long long)x, cuda_emu::MODE);                                          \
    }                                                                                                     \
    inline float __ll2float_##SUFFIX(long long x) { return cuda_emu::to_float(x, cuda_emu::MODE); }
CUDA_EMU_DIRECTED(rd, round_down)
CUDA_EMU_DIRECTED(ru, round_up)
CUDA_EMU_DIRECTED(rz, round_toward_zero)
#undef CUDA_EMU_DIRECTED
inline float __ll2float_rn(long long x) { return (float)x; }
inline double __int2double_rn(int x) { return (double)x; }
inline double __ll2double_rn(long long x) { return (double)x; }
inline long long __float2ll_rn(float x) { return (long long)nearbyintf(x); }
inline long long __float2ll_rz(float x) { return (long long)x; }
inline long long __double2ll_rn(double x) { return (long long)nearbyint(x); }
inline long long __double2ll_rz(double x) { return (long long)x; }
inline int __double2int_rz(double x) { return (int)x; }
inline int __double2int_rd(double x) { return (int)floor(x); }
inline int __double2int_ru(double x) { return (int)ceil(x); }
inline unsigned int __float2uint_rz(float x) { return (unsigned)x; }
inline unsigned int __float2uint_rd(float x) { return (unsigned)floorf(x); }
inline unsigned int __float2uint_ru(float x) { return (unsigned)ceilf(x); }
inline float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / sqrt(x); }
inline float rcbrtf(float x) { return 1.0f / cbrtf(x); }
inline float exp10f(float x) { return powf(10.0f, x); }
inline float normcdff(float x) { return 0.5f * erfcf(-x * 0.70710678f); }

inline int __float_as_int(float x) { int r; std::memcpy(&r, &x, 4); return r; }
inline unsigned int __float_as_uint(float x) { unsigned r; std::memcpy(&r, &x, 4); return r; }
inline float __int_as_float(int x) { float r; std::memcpy(&r, &x, 4); return r; }
inline float __uint_as_float(unsigned int x) { float r; std::memcpy(&r, &x, 4); return r; }
inline long long __double_as_longlong(double x) { long long r; std::memcpy(&r, &x, 8); return r; }
inline double __longlong_as_double(long long x) { double r; std::memcpy(&r, &x, 8); return r; }
inline int __float2int_rn(float x) { return (int)nearbyintf(x); }
inline int __float2int_rz(float x) { return (int)x; }
inline int __float2int_rd(float x) { return (int)floorf(x); }
inline int __float2int_ru(float x) { return (int)ceilf(x); }
inline unsigned int __float2uint_rn(float x) { return (unsigned)nearbyintf(x); }
inline float __int2float_rn(int x) { return (float)x; }
inline float __uint2float_rn(unsigned int x) { return (float)x; }
inline int __double2int_rn(double x) { return (int)nearbyint(x); }
inline float __double2float_rn(double x) { return (float)x; }

// min and max for every pair of types CUDA's headers provide them for; mixed signed/unsigned
// pairs compare as unsigned, mixed float/double as double, as in CUDA.
#define CUDA_EMU_MINMAX(R, A, B)                              \
    inline R min(A a, B b) { return (R)a < (R)b ? (R)a : (R)b; } \
    inline R max(A a, B b) { return (R)a > (R)b ? (R)a : (R)b; }
CUDA_EMU_MINMAX(int, int, int)
CUDA_EMU_MINMAX(unsigned int, unsigned int, unsigned int)
CUDA_EMU_MINMAX(unsigned int, int, unsigned int)
CUDA_EMU_MINMAX(unsigned int, unsigned int, int)
CUDA_EMU_MINMAX(long long, long long, long long)
CUDA_EMU_MINMAX(unsigned long long, unsigned long long, unsigned long long)
CUDA_EMU_MINMAX(long, long, long)
CUDA_EMU_MINMAX(unsigned long, unsigned long, unsigned long)
CUDA_EMU_MINMAX(double, double, double)
CUDA_EMU_MINMAX(double, float, double)
CUDA_EMU_MINMAX(double, double, float)
#undef CUDA_EMU_MINMAX
inline float min(float a, float b) { return fminf(a, b); }
inline float max(float a, float b) { return fmaxf(a, b); }
inline unsigned int umin(unsigned int a, unsigned int b) { return a < b ? a : b; }
inline unsigned int umax(unsigned int a, unsigned int b) { return a > b ? a : b; }
inline long long llmin(long long a, long long b) { return a < b ? a : b; }
inline long long llmax(long long a, long long b) { return a > b ? a : b; }
