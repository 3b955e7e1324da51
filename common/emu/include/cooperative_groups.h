// cooperative_groups.h - the CPU emulator's subset of NVIDIA's cooperative groups (common/emu/).
//
// Groups of threads as objects: the block (this_thread_block), tiles of a size fixed at compile
// time (tiled_partition<N>: 1 to 32 threads within a warp, or 64 to 1024 threads of whole warps),
// the threads of a warp that arrive somewhere together (coalesced_threads, and labeled_partition
// and binary_partition, which split such a group or a tile by a value), the grid (this_grid), and
// thread_group, which holds any of the small ones. Each is a thin layer over what the emulator
// already has:
//   - a block's sync() is __syncthreads();
//   - a tile of 32 or fewer and a coalesced group use the warp operations (__shfl_sync,
//     __ballot_sync, ...) with their own lanes as the mask;
//   - a tile of more than 32 threads waits at a barrier of its own in the scheduler
//     (::cuda_emu::tile_barrier), and its shfl and reduce pass values through a slot per warp;
//   - coalesced_threads() asks the scheduler which lanes of the warp arrive at that line together
//     (::cuda_emu::converged_lanes, as __activemask() does): inside an if, those that took it;
//   - the grid's sync() is a __syncthreads() after which the block waits for the others.
// The scheduler is runtime/scheduler.cpp. memcpy_async and reduce are in cooperative_groups/.
// What is missing: scan, match_any and match_all as group members (the __match_*_sync intrinsics
// exist), and the cluster group of thread block clusters, whose use stops the build with a line
// that says so (see cluster_group below).
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
inline unsigned lane() { return linear_thread_index() % 32; }
// The lanes of the calling thread's tile of `size` threads (32 or fewer), as a warp mask.
inline unsigned tile_mask(unsigned size) {
    unsigned lanes = size >= 32 ? 0xffffffffu : (1u << size) - 1;
    return lanes << (lane() & ~(size - 1));
}
// The lane of the member of rank `rank` of a group of lanes (`mask`): its rank-th lane, from 0.
inline unsigned lane_of_rank(unsigned mask, unsigned rank) {
    for (unsigned lane = 0; lane < 32; lane++) {
        if (!((mask >> lane) & 1)) continue;
        if (rank == 0) return lane;
        rank--;
    }
    return 32;  // no such member
}
// A ballot over a group's lanes, with bit k for its member of rank k.
inline unsigned ballot_by_rank(unsigned lanes_ballot, unsigned mask) {
    unsigned ranks = 0, rank = 0;
    for (unsigned lane = 0; lane < 32; lane++) {
        if (!((mask >> lane) & 1)) continue;
        if ((lanes_ballot >> lane) & 1) ranks |= 1u << rank;
        rank++;
    }
    return ranks;
}

// A tile's shuffles move any trivially copyable value of up to 32 bytes (a double2, a struct), as
// CUDA's do, while the intrinsics take only built-in types of 8 bytes or less. Both cut the value
// into slices the hardware can move and shuffle each slice: here 8-byte slices, one warp
// shuffle each, so a value of 8 bytes or less costs one shuffle.
template <class T>
T shuffle_slices(int op, unsigned mask, T value, int arg, unsigned width) {
    static_assert(std::is_trivially_copyable<T>::value || ::cuda_emu::vector_copies_bytes<T>::value,
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

// The values a tile of more than 32 threads shares in its shfl and reduce: one 8-byte slot per
// warp of the block. static thread_local, as __shared__ variables are: one copy per running block.
inline uint64_t* warp_slots() {
    static thread_local uint64_t slots[1024 / 32];
    return slots;
}
// The first warp of the calling thread's tile of `size` threads (more than 32), counted in the block.
inline unsigned first_warp_of_tile(unsigned size) { return linear_thread_index() / size * size / 32; }
template <class T>
void check_large_tile_value() {
    static_assert(std::is_trivially_copyable<T>::value || ::cuda_emu::vector_copies_bytes<T>::value,
                  "a tile's shfl and reduce need a trivially copyable type: they copy the bytes");
    static_assert(sizeof(T) <= 8, "a tile of more than 32 threads moves values of at most 8 bytes "
                  "in its shfl and reduce, as in CUDA");
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

// Shared memory that CUDA's tiles of more than 32 threads need on GPUs older than compute
// capability 8.0, for blocks of up to MaxBlockSize threads: a block declares
// `__shared__ block_tile_memory<MaxBlockSize> scratch;` and calls this_thread_block(scratch). The
// emulated device is 8.0, and the emulator's large tiles need no such memory, so it holds
// nothing; this_thread_block(scratch) checks that the block is no larger than it was made for.
template <unsigned MaxBlockSize = 1024>
struct block_tile_memory {};

template <unsigned MaxBlockSize>
thread_block this_thread_block(block_tile_memory<MaxBlockSize>&) {
    if (details::block_threads() > MaxBlockSize)
        __assert_fail("this_thread_block(scratch): the block has more threads than the "
                      "block_tile_memory<MaxBlockSize> was made for", __FILE__, __LINE__,
                      "this_thread_block");
    return thread_block();
}

namespace details {
// What a tile can do, by its size: tile_operations<Size, false> for 32 threads or fewer,
// tile_operations<Size, true> for more.
template <unsigned Size, bool MultiWarp = (Size > 32)>
class tile_operations;

// A tile of Size threads (a power of two, 32 at most): consecutive lanes of one warp. Its
// operations are warp operations with the tile's lanes as their mask.
template <unsigned Size>
class tile_operations<Size, false> {
    static_assert(Size >= 1 && (Size & (Size - 1)) == 0,
                  "a thread_block_tile has a power-of-two size: 1 to 32 threads within a warp, or "
                  "64 to 1024 threads of whole warps, as in CUDA");

public:
    static unsigned thread_rank() { return details::linear_thread_index() % Size; }
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
        unsigned first_lane = details::lane() & ~(Size - 1);
        return __ballot_sync(mask(), predicate) >> first_lane;
    }
    bool is_valid() const { return true; }

private:
    static unsigned mask() { return details::tile_mask(Size); }
};

// A tile of Size threads, 64 to 1024: Size / 32 whole warps. As in CUDA it has sync(), any(),
// all() and shfl() (of values up to 8 bytes), and reduce() takes it, but it has no ballot,
// shfl_up, shfl_down or shfl_xor. sync() is a barrier of the scheduler's for the tile's threads;
// shfl and reduce pass values through the warps' slots, between two such barriers (the second
// keeps a thread's next shfl from overwriting a slot another thread has yet to read).
template <unsigned Size>
class tile_operations<Size, true> {
    static_assert(Size <= 1024 && (Size & (Size - 1)) == 0,
                  "a thread_block_tile has a power-of-two size: 1 to 32 threads within a warp, or "
                  "64 to 1024 threads of whole warps, as in CUDA");

public:
    static unsigned thread_rank() { return details::linear_thread_index() % Size; }
    // The caller's file and line, for reports of a tile whose threads do not all arrive.
    void sync(const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
        ::cuda_emu::tile_barrier(file, line, (int)Size, 1);
    }
    int any(int predicate, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
        return ::cuda_emu::tile_barrier(file, line, (int)Size, predicate) > 0;
    }
    int all(int predicate, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
        return ::cuda_emu::tile_barrier(file, line, (int)Size, predicate) == (int)Size;
    }
    // Every thread gets the value of the thread of rank source_rank (modulo the tile's size).
    template <class T> T shfl(T value, unsigned source_rank) const {
        details::check_large_tile_value<T>();
        uint64_t* slot = &details::warp_slots()[details::first_warp_of_tile(Size)];
        if (thread_rank() == source_rank % Size) std::memcpy(slot, &value, sizeof(T));
        ::cuda_emu::tile_barrier(__FILE__, __LINE__, (int)Size, 1);
        std::memcpy(&value, slot, sizeof(T));
        ::cuda_emu::tile_barrier(__FILE__, __LINE__, (int)Size, 1);
        return value;
    }
};
}  // namespace details

// A tile of Size threads: 1 to 32 (consecutive lanes of one warp) or 64 to 1024 (whole warps),
// made by tiled_partition<Size>(parent). thread_block_tile<Size, Parent> is the tile as
// tiled_partition returns it; it converts to thread_block_tile<Size>, which functions take.
template <unsigned Size, class ParentT = void>
class thread_block_tile;

template <unsigned Size>
class thread_block_tile<Size, void> : public details::tile_operations<Size> {
public:
    static constexpr unsigned num_threads() { return Size; }
    static constexpr unsigned size() { return Size; }
    // Which of the parent's tiles this is, and how many the parent has.
    unsigned meta_group_rank() const { return meta_group_rank_; }
    unsigned meta_group_size() const { return meta_group_size_; }

    // Made by tiled_partition, which knows the tile's place in its parent.
    thread_block_tile(unsigned meta_group_rank, unsigned meta_group_size)
        : meta_group_rank_(meta_group_rank), meta_group_size_(meta_group_size) {}

private:
    unsigned meta_group_rank_, meta_group_size_;
};

template <unsigned Size, class ParentT>
class thread_block_tile : public thread_block_tile<Size, void> {
public:
    using thread_block_tile<Size, void>::thread_block_tile;
};

namespace details {
// A tile of more than 32 threads must cover its parent exactly, as CUDA's tiled_partition<Size>
// requires: a device-side assert says so where a GPU would compute garbage.
template <unsigned Size>
void check_tile_fits(unsigned long long parent_size) {
    if (Size > 32 && parent_size % Size != 0)
        __assert_fail("tiled_partition<Size>(parent): a tile of more than 32 threads needs a parent "
                      "whose size is a multiple of the tile's", __FILE__, __LINE__,
                      "tiled_partition");
}
}  // namespace details

// A tile of Size threads of the block: meta_group_rank() counts the block's tiles.
template <unsigned Size>
thread_block_tile<Size, thread_block> tiled_partition(const thread_block& block) {
    details::check_tile_fits<Size>(block.size());
    return thread_block_tile<Size, thread_block>(
        (unsigned)(block.thread_rank() / Size), (unsigned)((block.size() + Size - 1) / Size));
}

// A tile of Size threads of a larger tile: meta_group_rank() counts the parent's tiles.
template <unsigned Size, unsigned ParentSize, class GrandParent>
thread_block_tile<Size, thread_block_tile<ParentSize, GrandParent>> tiled_partition(
    const thread_block_tile<ParentSize, GrandParent>& parent) {
    static_assert(Size < ParentSize, "tiled_partition<Size>(tile): the tile to split must be "
                  "larger than Size, as in CUDA");
    return thread_block_tile<Size, thread_block_tile<ParentSize, GrandParent>>(
        parent.thread_rank() / Size, ParentSize / Size);
}

// ---- Coalesced groups ----------------------------------------------------------------------------

class coalesced_group;
namespace details {
coalesced_group make_coalesced_group(unsigned mask, unsigned meta_rank, unsigned meta_size);
unsigned lanes_of(const coalesced_group& group);
}  // namespace details

// The lanes of one warp that reached the same coalesced_threads() together (inside an if, those
// that took the branch), or a part of such a group or of a tile (tiled_partition,
// labeled_partition, binary_partition). Ranks count the members in lane order: lanes 3, 8 and 9
// have ranks 0, 1 and 2. Its operations are warp operations with the members as their mask; a
// shfl names its source by rank.
class coalesced_group {
public:
    unsigned num_threads() const { return (unsigned)__builtin_popcount(mask_); }
    unsigned size() const { return num_threads(); }
    unsigned thread_rank() const {
        return (unsigned)__builtin_popcount(mask_ & ((1u << details::lane()) - 1));
    }
    // A group split from another (tiled_partition, labeled_partition, binary_partition): which of
    // the parts it is and how many there are; 0 and 1 for coalesced_threads() itself.
    unsigned meta_group_rank() const { return meta_group_rank_; }
    unsigned meta_group_size() const { return meta_group_size_; }
    void sync(const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
        ::cuda_emu::SyncWarp{file, line}(mask_);
    }
    // The value of the member of rank source_rank (modulo the group's size).
    template <class T> T shfl(T value, int source_rank) const {
        unsigned source = details::lane_of_rank(mask_, (unsigned)source_rank % size());
        return details::shuffle_slices(::cuda_emu::WARP_SHFL, mask_, value, (int)source, 32);
    }
    // The value of the member delta ranks below; a member without one keeps its own value.
    template <class T> T shfl_up(T value, unsigned delta) const {
        unsigned rank = thread_rank();
        unsigned source = rank >= delta ? details::lane_of_rank(mask_, rank - delta) : details::lane();
        return details::shuffle_slices(::cuda_emu::WARP_SHFL, mask_, value, (int)source, 32);
    }
    // The value of the member delta ranks above; a member without one keeps its own value.
    template <class T> T shfl_down(T value, unsigned delta) const {
        unsigned rank = thread_rank() + delta;
        unsigned source = rank < size() ? details::lane_of_rank(mask_, rank) : details::lane();
        return details::shuffle_slices(::cuda_emu::WARP_SHFL, mask_, value, (int)source, 32);
    }
    int any(int predicate) const { return __any_sync(mask_, predicate); }
    int all(int predicate) const { return __all_sync(mask_, predicate); }
    // Bit k: the predicate of the member of rank k.
    unsigned ballot(int predicate) const {
        return details::ballot_by_rank(__ballot_sync(mask_, predicate), mask_);
    }

private:
    coalesced_group(unsigned mask, unsigned meta_rank, unsigned meta_size)
        : mask_(mask), meta_group_rank_(meta_rank), meta_group_size_(meta_size) {}
    friend coalesced_group details::make_coalesced_group(unsigned, unsigned, unsigned);
    friend unsigned details::lanes_of(const coalesced_group&);
    unsigned mask_;  // the members' lanes
    unsigned meta_group_rank_, meta_group_size_;
};

namespace details {
inline coalesced_group make_coalesced_group(unsigned mask, unsigned meta_rank, unsigned meta_size) {
    return coalesced_group(mask, meta_rank, meta_size);
}
// A group's lanes, as a warp mask.
inline unsigned lanes_of(const coalesced_group& group) { return group.mask_; }
template <unsigned Size, class ParentT>
unsigned lanes_of(const thread_block_tile<Size, ParentT>&) {
    static_assert(Size <= 32, "labeled_partition and binary_partition split tiles of 32 threads "
                  "or fewer, as in CUDA");
    return tile_mask(Size);
}

// The members of `lanes` with the same predicate as the caller's: part 1 of 2 if it is true,
// part 0 if false; the whole group, part 0 of 1, if all agree.
inline coalesced_group split_by_predicate(unsigned lanes, bool predicate) {
    unsigned yes = __ballot_sync(lanes, predicate) & lanes;
    if (yes == lanes || yes == 0) return make_coalesced_group(lanes, 0, 1);
    return make_coalesced_group(predicate ? yes : lanes & ~yes, predicate ? 1 : 0, 2);
}
// The members of `lanes` with the same label as the caller's. The parts are ranked by their
// lowest lane.
inline coalesced_group split_by_label(unsigned lanes, unsigned long long label) {
    unsigned same = __match_any_sync(lanes, label);
    unsigned leader = (unsigned)__builtin_ctz(same);  // each part's lowest lane
    unsigned leaders = __ballot_sync(lanes, lane() == leader);
    return make_coalesced_group(same, (unsigned)__builtin_popcount(leaders & ((1u << leader) - 1)),
                                (unsigned)__builtin_popcount(leaders));
}
template <class Label>
coalesced_group split_by_label(unsigned lanes, Label label, std::true_type /*pointer*/) {
    return split_by_label(lanes, (unsigned long long)(uintptr_t)label);
}
template <class Label>
coalesced_group split_by_label(unsigned lanes, Label label, std::false_type /*integral*/) {
    if (std::is_same<Label, bool>::value) return split_by_predicate(lanes, label != 0);
    return split_by_label(lanes, (unsigned long long)(long long)label);
}
}  // namespace details

// The threads of the calling thread's warp that arrive at this call together: inside a divergent
// branch, those that took it. The caller's file and line name the place where they meet.
inline coalesced_group coalesced_threads(const char* file = __builtin_FILE(),
                                         int line = __builtin_LINE()) {
    return details::make_coalesced_group(::cuda_emu::converged_lanes(file, line), 0, 1);
}

// Tiles of a coalesced group: tile_size consecutive ranks (a power of two, 32 at most; the last
// tile may have fewer). A group no larger than tile_size is its own tile.
inline coalesced_group tiled_partition(const coalesced_group& parent, unsigned tile_size) {
    if (tile_size == 0 || tile_size > 32 || (tile_size & (tile_size - 1)) != 0)
        __assert_fail("tiled_partition(coalesced group, size): tiles have a power-of-two size of "
                      "32 threads or fewer", __FILE__, __LINE__, "tiled_partition");
    if (parent.size() <= tile_size) return parent;
    unsigned parent_lanes = details::lanes_of(parent);
    unsigned first = parent.thread_rank() / tile_size * tile_size, lanes = 0;
    for (unsigned rank = first; rank < first + tile_size && rank < parent.size(); rank++)
        lanes |= 1u << details::lane_of_rank(parent_lanes, rank);
    return details::make_coalesced_group(lanes, parent.thread_rank() / tile_size,
                                         (parent.size() + tile_size - 1) / tile_size);
}

// The members of a coalesced group or a tile of 32 threads or fewer whose predicate is the same
// as the caller's.
inline coalesced_group binary_partition(const coalesced_group& group, bool predicate) {
    return details::split_by_predicate(details::lanes_of(group), predicate);
}
template <unsigned Size, class ParentT>
coalesced_group binary_partition(const thread_block_tile<Size, ParentT>& tile, bool predicate) {
    return details::split_by_predicate(details::lanes_of(tile), predicate);
}

// The members of a coalesced group or a tile of 32 threads or fewer whose label (an integer or a
// pointer) is the same as the caller's.
template <class Label>
coalesced_group labeled_partition(const coalesced_group& group, Label label) {
    static_assert(std::is_integral<Label>::value || std::is_pointer<Label>::value,
                  "labeled_partition's label is an integer or a pointer, as in CUDA");
    return details::split_by_label(details::lanes_of(group), label, std::is_pointer<Label>());
}
template <class Label, unsigned Size, class ParentT>
coalesced_group labeled_partition(const thread_block_tile<Size, ParentT>& tile, Label label) {
    static_assert(std::is_integral<Label>::value || std::is_pointer<Label>::value,
                  "labeled_partition's label is an integer or a pointer, as in CUDA");
    return details::split_by_label(details::lanes_of(tile), label, std::is_pointer<Label>());
}

// ---- The grid ------------------------------------------------------------------------------------

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

// ---- thread_group --------------------------------------------------------------------------------

// Any group, as a function parameter takes it when it serves blocks and tiles alike
// (void reduce(thread_group g, ...)): a block, a tile of 32 threads or fewer, a coalesced group
// or the grid, chosen when it is made. A tile of a size known only at run time comes from
// tiled_partition(parent, size).
class thread_group {
public:
    thread_group(const thread_block&) : kind_(BLOCK), tile_size_(0), lanes_(0) {}
    template <unsigned Size, class ParentT>
    thread_group(const thread_block_tile<Size, ParentT>&) : kind_(TILE), tile_size_(Size), lanes_(0) {
        static_assert(Size <= 32, "a thread_group holds tiles of 32 threads or fewer; a larger "
                      "tile is a thread_block_tile<Size> only, as in CUDA");
    }
    thread_group(const coalesced_group& group)
        : kind_(COALESCED), tile_size_(0), lanes_(details::lanes_of(group)) {}
    thread_group(const grid_group&) : kind_(GRID), tile_size_(0), lanes_(0) {}

    void sync(const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
        switch (kind_) {
        case BLOCK: ::cuda_emu::block_barrier(file, line, ::cuda_emu::REDUCE_NONE, 1); break;
        case TILE: ::cuda_emu::SyncWarp{file, line}(details::tile_mask(tile_size_)); break;
        case COALESCED: ::cuda_emu::SyncWarp{file, line}(lanes_); break;
        case GRID: ::cuda_emu::block_barrier(file, line, ::cuda_emu::GRID_SYNC, 1); break;
        }
    }
    unsigned long long thread_rank() const {
        switch (kind_) {
        case BLOCK: return thread_block().thread_rank();
        case TILE: return details::linear_thread_index() % tile_size_;
        case COALESCED: return coalesced().thread_rank();
        default: return grid_group().thread_rank();
        }
    }
    unsigned long long size() const {
        switch (kind_) {
        case BLOCK: return thread_block().size();
        case TILE: return tile_size_;
        case COALESCED: return coalesced().size();
        default: return grid_group().size();
        }
    }
    unsigned long long num_threads() const { return size(); }
    bool is_valid() const { return kind_ != GRID || grid_group().is_valid(); }

private:
    enum Kind { BLOCK, TILE, COALESCED, GRID };
    thread_group(Kind kind, unsigned tile_size) : kind_(kind), tile_size_(tile_size), lanes_(0) {}
    coalesced_group coalesced() const { return details::make_coalesced_group(lanes_, 0, 1); }
    friend thread_group tiled_partition(const thread_group&, unsigned);
    Kind kind_;
    unsigned tile_size_;  // a tile's
    unsigned lanes_;      // a coalesced group's
};

// A tile whose size is a run-time value: a power of two of 32 threads or fewer, as in CUDA, taken
// from a block, from a larger tile, or from a coalesced group (see tiled_partition above).
inline thread_group tiled_partition(const thread_group& parent, unsigned tile_size) {
    if (parent.kind_ == thread_group::COALESCED)
        return tiled_partition(parent.coalesced(), tile_size);
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

template <class Group>
auto group_size(const Group& group) { return group.size(); }

// ---- Reductions (<cooperative_groups/reduce.h>) --------------------------------------------------
template <class T> struct plus { T operator()(T a, T b) const { return a + b; } };
template <class T> struct less { T operator()(T a, T b) const { return b < a ? b : a; } };
template <class T> struct greater { T operator()(T a, T b) const { return a < b ? b : a; } };
template <class T> struct bit_and { T operator()(T a, T b) const { return a & b; } };
template <class T> struct bit_or { T operator()(T a, T b) const { return a | b; } };
template <class T> struct bit_xor { T operator()(T a, T b) const { return a ^ b; } };

namespace details {
// A tile of 32 threads or fewer: a butterfly of shuffles gives every lane the whole result.
template <unsigned Size, class T, class Op>
T reduce_tile(const thread_block_tile<Size>& tile, T value, Op op, std::false_type /*multi-warp*/) {
    for (unsigned offset = Size / 2; offset > 0; offset /= 2) value = op(value, tile.shfl_xor(value, offset));
    return value;
}
// A tile of more than 32 threads: each warp's result by a butterfly, which lane 0 puts in its
// warp's slot; after the tile's barrier every thread combines the slots in warp order (so op
// sees the values in rank order, as it does within a warp); a second barrier keeps the slots
// until all have read them.
template <unsigned Size, class T, class Op>
T reduce_tile(const thread_block_tile<Size>& tile, T value, Op op, std::true_type /*multi-warp*/) {
    check_large_tile_value<T>();
    for (unsigned offset = 16; offset > 0; offset /= 2)
        value = op(value, shuffle_slices(::cuda_emu::WARP_SHFL_XOR, 0xffffffffu, value, (int)offset, 32));
    uint64_t* slots = warp_slots() + first_warp_of_tile(Size);
    if (lane() == 0) std::memcpy(&slots[tile.thread_rank() / 32], &value, sizeof(T));
    ::cuda_emu::tile_barrier(__FILE__, __LINE__, (int)Size, 1);
    T total;
    std::memcpy(&total, &slots[0], sizeof(T));
    for (unsigned warp = 1; warp < Size / 32; warp++) {
        T next;
        std::memcpy(&next, &slots[warp], sizeof(T));
        total = op(total, next);
    }
    ::cuda_emu::tile_barrier(__FILE__, __LINE__, (int)Size, 1);
    return total;
}
}  // namespace details

// Every thread of the tile gets op applied over all the tile's values.
template <unsigned Size, class ParentT, class T, class Op>
T reduce(const thread_block_tile<Size, ParentT>& tile, T value, Op op) {
    return details::reduce_tile(thread_block_tile<Size>(tile), value, op,
                                std::integral_constant<bool, (Size > 32)>());
}

// Every member of the coalesced group gets op applied over all its values. Its size need not be a
// power of two, so: a tree over the ranks, in which rank r adds the part that begins at rank
// r + offset (when there is one), until rank 0 holds everything; then rank 0 passes it on.
template <class T, class Op>
T reduce(const coalesced_group& group, T value, Op op) {
    unsigned rank = group.thread_rank(), size = group.size();
    for (unsigned offset = 1; offset < size; offset *= 2) {
        T other = group.shfl_down(value, offset);
        if (rank % (2 * offset) == 0 && rank + offset < size) value = op(value, other);
    }
    return group.shfl(value, 0);
}

// Thread block clusters (compute capability 9.0) are not emulated: naming the cluster group, or
// calling this_cluster(), stops the build at that line with the message below.
namespace details {
template <bool Named>
struct cluster_group_stand_in {
    static_assert(!Named, "cuda-emu: thread block clusters (cooperative_groups::this_cluster, cluster_group, "
                          "distributed shared memory) are not emulated");
};
}  // namespace details
using cluster_group = details::cluster_group_stand_in<true>;
template <class Unused = void>  // a type that depends on Unused: no compiler looks at it before a call
details::cluster_group_stand_in<std::is_void<Unused>::value> this_cluster() {
    return {};
}

}  // namespace cooperative_groups
