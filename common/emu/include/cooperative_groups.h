// cooperative_groups.h - the CPU emulator's subset of NVIDIA's cooperative groups (common/emu/).
//
// Groups of threads as objects: the block (this_thread_block), tiles of 32 threads or fewer
// within a warp (tiled_partition), the grid (this_grid), and thread_group, which holds any of
// them. Each is a thin layer over what the emulator already has: a block's sync() is
// __syncthreads(), a tile's operations are the warp operations (__shfl_sync, __ballot_sync, ...)
// with the tile's lanes as their mask, the grid's sync() a __syncthreads() after which the block
// waits for the others (runtime/scheduler.cpp). What is missing: coalesced_threads, memcpy_async.
#pragma once

#include <assert.h>
#include <type_traits>

#include "cuda_runtime.h"

#define _COOPERATIVE_GROUPS_H_  // the toolkit's include guard: its own copy is never read

namespace cooperative_groups {

namespace details {
inline unsigned linear_thread_index() {
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
inline unsigned long long block_threads() {
    return (unsigned long long)blockDim.x * blockDim.y * blockDim.z;
}
// The lanes of the calling thread's tile of `size` threads, as a warp mask.
inline unsigned tile_mask(unsigned size) {
    unsigned lane = linear_thread_index() % 32;
    unsigned lanes = size >= 32 ? 0xffffffffu : (1u << size) - 1;
    return lanes << (lane & ~(size - 1));
}

// A tile's shuffles move any trivially copyable value of up to 32 bytes (a double2, a struct), as
// CUDA's do, while the intrinsics take only built-in types of 8 bytes or less. Both cut the value
// into slices the hardware can move and shuffle each slice: here 8-byte slices, one warp
// shuffle each, so a value of 8 bytes or less costs one shuffle.
template <class T>
T shuffle_slices(int op, unsigned mask, T value, int arg, unsigned width) {
    static_assert(std::is_trivially_copyable<T>::value,
                  "a tile's shfl needs a trivially copyable type: it copies the bytes");
    static_assert(sizeof(T) <= 32, "a tile's shfl moves values of at most 32 bytes, as in CUDA");
    constexpr unsigned slices = (sizeof(T) + 7) / 8;
    uint64_t bits[slices] = {};
    std::memcpy(bits, &value, sizeof(T));
    for (unsigned i = 0; i < slices; i++)
        bits[i] = ::cuda_emu::warp_barrier(__FILE__, __LINE__, op, mask, bits[i], arg, (int)width);
    std::memcpy(&value, bits, sizeof(T));
    return value;
}
}  // namespace details

class thread_block {
public:
    void sync() const { __syncthreads(); }
    unsigned long long thread_rank() const { return details::linear_thread_index(); }
    unsigned long long size() const { return details::block_threads(); }
    unsigned long long num_threads() const { return size(); }
    dim3 group_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
    dim3 thread_index() const { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
    dim3 group_dim() const { return dim3(blockDim.x, blockDim.y, blockDim.z); }
    dim3 dim_threads() const { return group_dim(); }
    bool is_valid() const { return true; }
};

inline thread_block this_thread_block() { return thread_block(); }

// A tile of Size threads (a power of two, 32 at most): consecutive lanes of one warp.
template <unsigned Size>
class thread_block_tile {
    static_assert(Size >= 1 && Size <= 32 && (Size & (Size - 1)) == 0,
                  "the emulator's tiles have a power-of-two size of 32 threads or fewer");

public:
    static constexpr unsigned num_threads() { return Size; }
    static constexpr unsigned size() { return Size; }
    unsigned thread_rank() const { return details::linear_thread_index() % Size; }
    unsigned meta_group_rank() const { return details::linear_thread_index() / Size; }
    unsigned meta_group_size() const {
        return (unsigned)((details::block_threads() + Size - 1) / Size);
    }
    void sync() const { __syncwarp(mask()); }
    template <class T> T shfl(T value, int source_rank) const {
        return details::shuffle_slices(::cuda_emu::WARP_SHFL, mask(), value, source_rank, Size);
    }
    template <class T> T shfl_up(T value, unsigned delta) const {
        return details::shuffle_slices(::cuda_emu::WARP_SHFL_UP, mask(), value, (int)delta, Size);
    }
    template <class T> T shfl_down(T value, unsigned delta) const {
        return details::shuffle_slices(::cuda_emu::WARP_SHFL_DOWN, mask(), value, (int)delta, Size);
    }
    template <class T> T shfl_xor(T value, unsigned lane_mask) const {
        return details::shuffle_slices(::cuda_emu::WARP_SHFL_XOR, mask(), value, (int)lane_mask, Size);
    }
    int any(int predicate) const { return __any_sync(mask(), predicate); }
    int all(int predicate) const { return __all_sync(mask(), predicate); }
    // The ballot of the tile's lanes only, with the tile's first lane as bit 0.
    unsigned ballot(int predicate) const {
        unsigned first_lane = details::linear_thread_index() % 32 & ~(Size - 1);
        return __ballot_sync(mask(), predicate) >> first_lane;
    }
    bool is_valid() const { return true; }

private:
    static unsigned mask() { return details::tile_mask(Size); }
};

template <unsigned Size, class Parent>
thread_block_tile<Size> tiled_partition(const Parent&) {
    return thread_block_tile<Size>();
}

// The whole grid. size() and thread_rank() count threads across all blocks. sync() is a barrier
// for every thread of the grid; it needs a launch by cudaLaunchCooperativeKernel, which runs all
// blocks at once (is_valid() tells).
class grid_group {
public:
    // The caller's file and line, for reports of threads that wait at different barriers.
    void sync(const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
        ::cuda_emu::block_barrier(file, line, ::cuda_emu::GRID_SYNC, 1);
    }
    bool is_valid() const { return ::cuda_emu::cooperative_launch(); }
    unsigned long long size() const {
        return (unsigned long long)gridDim.x * gridDim.y * gridDim.z * details::block_threads();
    }
    unsigned long long num_threads() const { return size(); }
    unsigned long long thread_rank() const {
        unsigned long long block = blockIdx.x + (unsigned long long)gridDim.x *
                                                    (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
        return block * details::block_threads() + details::linear_thread_index();
    }
    unsigned long long block_rank() const { return thread_rank() / details::block_threads(); }
    unsigned long long num_blocks() const { return (unsigned long long)gridDim.x * gridDim.y * gridDim.z; }
    dim3 group_dim() const { return dim3(gridDim.x, gridDim.y, gridDim.z); }
    dim3 dim_blocks() const { return group_dim(); }
    dim3 block_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
};

inline grid_group this_grid() { return grid_group(); }

// Any group, as a function parameter takes it when it serves blocks and tiles alike
// (void reduce(thread_group g, ...)): a block, a tile or the grid, chosen when it is made. A tile
// of a size known only at run time comes from tiled_partition(parent, size).
class thread_group {
public:
    thread_group(const thread_block&) : kind_(BLOCK), tile_size_(0) {}
    template <unsigned Size>
    thread_group(const thread_block_tile<Size>&) : kind_(TILE), tile_size_(Size) {}
    thread_group(const grid_group&) : kind_(GRID), tile_size_(0) {}

    void sync(const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
        switch (kind_) {
        case BLOCK: ::cuda_emu::block_barrier(file, line, ::cuda_emu::REDUCE_NONE, 1); break;
        case TILE: ::cuda_emu::SyncWarp{file, line}(details::tile_mask(tile_size_)); break;
        case GRID: ::cuda_emu::block_barrier(file, line, ::cuda_emu::GRID_SYNC, 1); break;
        }
    }
    unsigned long long thread_rank() const {
        switch (kind_) {
        case BLOCK: return thread_block().thread_rank();
        case TILE: return details::linear_thread_index() % tile_size_;
        default: return grid_group().thread_rank();
        }
    }
    unsigned long long size() const {
        switch (kind_) {
        case BLOCK: return thread_block().size();
        case TILE: return tile_size_;
        default: return grid_group().size();
        }
    }
    unsigned long long num_threads() const { return size(); }
    bool is_valid() const { return kind_ != GRID || grid_group().is_valid(); }

private:
    enum Kind { BLOCK, TILE, GRID };
    thread_group(Kind kind, unsigned tile_size) : kind_(kind), tile_size_(tile_size) {}
    friend thread_group tiled_partition(const thread_group&, unsigned);
    Kind kind_;
    unsigned tile_size_;
};

// A tile whose size is a run-time value: a power of two of 32 threads or fewer, as the emulator's
// tiles are, taken from a block or from a larger tile.
inline thread_group tiled_partition(const thread_group& parent, unsigned tile_size) {
    if (tile_size == 0 || tile_size > 32 || (tile_size & (tile_size - 1)) != 0 ||
        tile_size > parent.size())
        __assert_fail("tiled_partition(group, size): the emulator's tiles have a power-of-two size "
                      "of 32 threads or fewer, within the parent group", __FILE__, __LINE__,
                      "tiled_partition");
    return thread_group(thread_group::TILE, tile_size);
}

template <class Group>
void sync(const Group& group) { group.sync(); }

template <class Group>
auto thread_rank(const Group& group) { return group.thread_rank(); }

// ---- Reductions (<cooperative_groups/reduce.h>) --------------------------------------------------
template <class T> struct plus { T operator()(T a, T b) const { return a + b; } };
template <class T> struct less { T operator()(T a, T b) const { return b < a ? b : a; } };
template <class T> struct greater { T operator()(T a, T b) const { return a < b ? b : a; } };
template <class T> struct bit_and { T operator()(T a, T b) const { return a & b; } };
template <class T> struct bit_or { T operator()(T a, T b) const { return a | b; } };
template <class T> struct bit_xor { T operator()(T a, T b) const { return a ^ b; } };

// Every lane of the tile gets op applied over all the tile's values (a butterfly of shuffles).
template <unsigned Size, class T, class Op>
T reduce(const thread_block_tile<Size>& tile, T value, Op op) {
    for (unsigned offset = Size / 2; offset > 0; offset /= 2) value = op(value, tile.shfl_xor(value, offset));
    return value;
}

}  // namespace cooperative_groups
