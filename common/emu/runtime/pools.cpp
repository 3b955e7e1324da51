// runtime/pools.cpp - stream-ordered allocation: the device's memory pools, their attributes and
// statistics, and the freed blocks they keep for reuse (cudaMallocAsync, cudaFreeAsync and the
// cudaMemPool* calls).
//
// Part of the CPU emulation backend (common/emu/). A pool hands out blocks of host memory, which
// runtime/api.cpp records as device allocations while they are in use, so that cudaMemcpy,
// CUDA_EMU_GUARD, CUDA_EMU_POISON and --sanitize treat them as they treat cudaMalloc memory. What
// a GPU's pool does, and how it is done here:
//   - Order. cudaMallocAsync and cudaFreeAsync are operations in a stream. Work runs when it is
//     issued, so when cudaFreeAsync is called every kernel and copy queued before it is done with
//     the block: taking it back at once keeps the stream's order.
//   - Reuse. A freed block stays in its pool (still reserved, no longer used) and goes to a later
//     allocation that fits in it and needs at least half of it: the smallest such block, and of
//     equal ones the last freed. In the stream that freed it, always; in another stream as the
//     pool's reuse policies allow: InternalDependencies (the driver would make that stream wait
//     for the free), Opportunistic (the free has completed, which here it has at once), or, with
//     both turned off, once the host has waited for the free (a synchronize). Dependencies made
//     with events are not tracked, so FollowEventDependencies alone allows no more than that.
//   - Release. At each stream, event or device synchronize, a pool hands the freed blocks it keeps
//     back to the host's allocator, keeping its release threshold (default 0: none of them);
//     cudaMemPoolTrimTo does the same at once.
//   - Statistics. Reserved counts the bytes of the blocks a pool holds, used those of the blocks
//     in use; a block is its allocation's size rounded up to 256 bytes. A GPU's pool reserves
//     memory in larger pieces, so its figures are larger.
//   - CUDA_EMU_GUARD=1. Blocks are not reused: each has its own guard pages, and a freed one
//     stays protected, so that a use after cudaFreeAsync is reported as one after cudaFree is.
//   - One device in one process. A pool lives on device 0, which always has read-write access;
//     there is no other device to give access to, and the handle types of inter-process sharing
//     are refused, as a machine with one GPU refuses them.
#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
#include <vector>

#include "internal.h"

namespace {

constexpr size_t block_alignment = 256;  // as cudaMalloc's

// A block a pool keeps after its free: in which stream it was freed, as that stream's item `work`.
struct FreedBlock {
    char* start;
    size_t size;
    cudaStream_t freed_in;
    uint64_t work;
};

}  // namespace

// The object behind a cudaMemPool_t.
struct CUmemPoolHandle_st {
    explicit CUmemPoolHandle_st(const cudaMemPoolProps& properties) : props(properties) {}
    cudaMemPoolProps props;
    // Attributes (cudaMemPoolSetAttribute), with CUDA's defaults.
    uint64_t release_threshold = 0;
    int follow_event_dependencies = 1;
    int allow_opportunistic = 1;
    int allow_internal_dependencies = 1;
    // Statistics, in bytes.
    uint64_t reserved = 0, reserved_high = 0, used = 0, used_high = 0;
    std::map<void*, size_t> in_use;  // blocks handed out, with their sizes
    std::vector<FreedBlock> freed;   // blocks given back, kept for reuse
    bool destroyed = false;          // by cudaMemPoolDestroy: it goes when its last block is freed
};

namespace cuda_emu {
namespace {

std::mutex pools_mutex;  // guards every pool and the two variables below
std::set<cudaMemPool_t> created_pools;  // by cudaMemPoolCreate, not yet destroyed
cudaMemPool_t chosen_pool = nullptr;     // by cudaDeviceSetMemPool; null: the default pool

cudaError_t fail(cudaError_t error) {
    set_last_error(error);
    return error;
}

cudaMemPoolProps device_pool_properties() {
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypeNone;
    props.location = cudaMemLocation{cudaMemLocationTypeDevice, 0};
    return props;
}

cudaMemPool_t default_pool() {
    static CUmemPoolHandle_st pool(device_pool_properties());
    return &pool;
}

// The calls below need pools_mutex held.
bool exists(cudaMemPool_t pool) { return pool == default_pool() || created_pools.count(pool); }

// Whether a block freed earlier may go to an allocation in `stream` (see the top of the file).
bool reusable(cudaMemPool_t pool, const FreedBlock& block, cudaStream_t stream) {
    return block.freed_in == stream || pool->allow_internal_dependencies ||
           pool->allow_opportunistic || host_waited_for(block.freed_in, block.work);
}

// Hands kept blocks back to the host's allocator, the largest first, as long as the pool still
// holds at least `keep` bytes after each. The blocks it keeps stay in the order they were freed.
void trim(cudaMemPool_t pool, uint64_t keep) {
    std::vector<size_t> largest_first(pool->freed.size());
    for (size_t i = 0; i < largest_first.size(); i++) largest_first[i] = i;
    // of two of one size, the one freed first (std::sort with that order, not std::stable_sort,
    // whose libstdc++ 12 code clang 19 warns of)
    std::sort(largest_first.begin(), largest_first.end(), [&](size_t a, size_t b) {
        const FreedBlock &first = pool->freed[a], &second = pool->freed[b];
        return first.size != second.size ? first.size > second.size : a < b;
    });
    std::vector<bool> released(pool->freed.size(), false);
    for (size_t i : largest_first) {
        if (pool->reserved - pool->freed[i].size < keep) continue;
        free(pool->freed[i].start);
        pool->reserved -= pool->freed[i].size;
        released[i] = true;
    }
    std::vector<FreedBlock> kept;
    for (size_t i = 0; i < pool->freed.size(); i++)
        if (!released[i]) kept.push_back(pool->freed[i]);
    pool->freed = kept;
}

}  // namespace

bool pool_exists(cudaMemPool_t pool) {
    std::lock_guard<std::mutex> lock(pools_mutex);
    return exists(pool);
}

cudaMemPool_t current_pool() {
    std::lock_guard<std::mutex> lock(pools_mutex);
    return chosen_pool ? chosen_pool : default_pool();
}

void* pool_take(cudaMemPool_t pool, size_t size, cudaStream_t stream, const char* file, int line) {
    std::lock_guard<std::mutex> lock(pools_mutex);
    size_t need = (size + block_alignment - 1) / block_alignment * block_alignment;
    // A freed block it fits, the smallest; of equal ones the last freed (the last in the list).
    int best = -1;
    for (size_t i = 0; i < pool->freed.size(); i++) {
        const FreedBlock& block = pool->freed[i];
        if (block.size < need || block.size / 2 > need || !reusable(pool, block, stream)) continue;
        if (best < 0 || block.size <= pool->freed[best].size) best = (int)i;
    }
    char* start;
    size_t block_size;
    if (best >= 0) {
        start = pool->freed[best].start;
        block_size = pool->freed[best].size;
        pool->freed.erase(pool->freed.begin() + best);
    } else {
        // New memory. A pool with a maximum size first gives back what it keeps, to make room.
        size_t limit = pool->props.maxSize;
        if (limit && pool->reserved + need > limit) trim(pool, 0);
        if (limit && pool->reserved + need > limit) return nullptr;
        start = static_cast<char*>(settings().guard ? guarded_alloc(size, file, line)
                                                    : aligned_alloc(block_alignment, need));
        if (!start) return nullptr;
        block_size = need;
        pool->reserved += need;
        pool->reserved_high = std::max(pool->reserved_high, pool->reserved);
    }
    pool->in_use[start] = block_size;
    pool->used += block_size;
    pool->used_high = std::max(pool->used_high, pool->used);
    return start;
}

void pool_give_back(cudaMemPool_t pool, void* block, cudaStream_t stream, uint64_t work) {
    std::lock_guard<std::mutex> lock(pools_mutex);
    auto found = pool->in_use.find(block);
    if (found == pool->in_use.end()) return;  // api.cpp gives back only what the pool gave
    size_t size = found->second;
    pool->in_use.erase(found);
    pool->used -= size;
    if (settings().guard || pool->destroyed) {
        // Guard mode: the pages stay protected, to catch a use after the free. A destroyed pool
        // hands nothing out any more: nothing to keep the block for.
        if (settings().guard)
            guarded_free(block);
        else
            free(block);
        pool->reserved -= size;
    } else {
        pool->freed.push_back(FreedBlock{static_cast<char*>(block), size, stream, work});
    }
    if (pool->destroyed && pool->in_use.empty()) delete pool;
}

void release_pool_memory() {
    std::lock_guard<std::mutex> lock(pools_mutex);
    trim(default_pool(), default_pool()->release_threshold);
    for (cudaMemPool_t pool : created_pools) trim(pool, pool->release_threshold);
}

}  // namespace cuda_emu

using namespace cuda_emu;

extern "C" {

// ---- The device's pools -----------------------------------------------------------------------------
cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t* pool, int device) {
    if (!pool) return fail(cudaErrorInvalidValue);
    if (device != 0) return fail(cudaErrorInvalidDevice);
    *pool = default_pool();
    return cudaSuccess;
}
cudaError_t cudaDeviceGetMemPool(cudaMemPool_t* pool, int device) {
    if (!pool) return fail(cudaErrorInvalidValue);
    if (device != 0) return fail(cudaErrorInvalidDevice);
    *pool = current_pool();
    return cudaSuccess;
}
cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t pool) {
    if (device != 0) return fail(cudaErrorInvalidDevice);
    std::lock_guard<std::mutex> lock(pools_mutex);
    if (!exists(pool)) return fail(cudaErrorInvalidValue);
    chosen_pool = pool == default_pool() ? nullptr : pool;
    return cudaSuccess;
}

// ---- Pools of one's own -------------------------------------------------------------------------------
// Device memory of device 0, shared with no other process. Pinned host memory pools (a location
// on the host) are refused as on a device that reports cudaDevAttrHostMemoryPoolsSupported 0.
cudaError_t cudaMemPoolCreate(cudaMemPool_t* pool, const struct cudaMemPoolProps* props) {
    if (!pool || !props) return fail(cudaErrorInvalidValue);
    if (props->allocType != cudaMemAllocationTypePinned)
        return fail(props->allocType == cudaMemAllocationTypeManaged ? cudaErrorNotSupported
                                                                     : cudaErrorInvalidValue);
    switch (props->location.type) {
        case cudaMemLocationTypeDevice:
            if (props->location.id != 0) return fail(cudaErrorInvalidValue);
            break;
        case cudaMemLocationTypeHost:
        case cudaMemLocationTypeHostNuma: return fail(cudaErrorNotSupported);
        default: return fail(cudaErrorInvalidValue);
    }
    if (props->handleTypes != cudaMemHandleTypeNone) return fail(cudaErrorNotSupported);
    cudaMemPool_t created = new CUmemPoolHandle_st(*props);
    std::lock_guard<std::mutex> lock(pools_mutex);
    created_pools.insert(created);
    *pool = created;
    return cudaSuccess;
}

// Blocks still in use keep a destroyed pool alive until they are freed; the device's default
// pool cannot be destroyed, and the device goes back to it if the destroyed pool was its current.
cudaError_t cudaMemPoolDestroy(cudaMemPool_t pool) {
    std::lock_guard<std::mutex> lock(pools_mutex);
    if (!created_pools.count(pool)) return fail(cudaErrorInvalidValue);
    created_pools.erase(pool);
    if (chosen_pool == pool) chosen_pool = nullptr;
    trim(pool, 0);
    if (pool->in_use.empty())
        delete pool;
    else
        pool->destroyed = true;
    return cudaSuccess;
}

// ---- Attributes ------------------------------------------------------------------------------------------
// The reuse policies are ints, the rest 64-bit byte counts. The current figures are only read;
// a high-water mark may be set to 0 alone, which starts it again from the current figure.
cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, enum cudaMemPoolAttr attr, void* value) {
    std::lock_guard<std::mutex> lock(pools_mutex);
    if (!exists(pool) || !value) return fail(cudaErrorInvalidValue);
    int flag = *static_cast<int*>(value) != 0;
    uint64_t* bytes = static_cast<uint64_t*>(value);
    switch (attr) {
        case cudaMemPoolReuseFollowEventDependencies: pool->follow_event_dependencies = flag; break;
        case cudaMemPoolReuseAllowOpportunistic: pool->allow_opportunistic = flag; break;
        case cudaMemPoolReuseAllowInternalDependencies: pool->allow_internal_dependencies = flag; break;
        case cudaMemPoolAttrReleaseThreshold: pool->release_threshold = *bytes; break;
        case cudaMemPoolAttrReservedMemHigh:
            if (*bytes != 0) return fail(cudaErrorInvalidValue);
            pool->reserved_high = pool->reserved;
            break;
        case cudaMemPoolAttrUsedMemHigh:
            if (*bytes != 0) return fail(cudaErrorInvalidValue);
            pool->used_high = pool->used;
            break;
        default: return fail(cudaErrorInvalidValue);
    }
    return cudaSuccess;
}
cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, enum cudaMemPoolAttr attr, void* value) {
    std::lock_guard<std::mutex> lock(pools_mutex);
    if (!exists(pool) || !value) return fail(cudaErrorInvalidValue);
    int* flag = static_cast<int*>(value);
    uint64_t* bytes = static_cast<uint64_t*>(value);
    switch (attr) {
        case cudaMemPoolReuseFollowEventDependencies: *flag = pool->follow_event_dependencies; break;
        case cudaMemPoolReuseAllowOpportunistic: *flag = pool->allow_opportunistic; break;
        case cudaMemPoolReuseAllowInternalDependencies: *flag = pool->allow_internal_dependencies; break;
        case cudaMemPoolAttrReleaseThreshold: *bytes = pool->release_threshold; break;
        case cudaMemPoolAttrReservedMemCurrent: *bytes = pool->reserved; break;
        case cudaMemPoolAttrReservedMemHigh: *bytes = pool->reserved_high; break;
        case cudaMemPoolAttrUsedMemCurrent: *bytes = pool->used; break;
        case cudaMemPoolAttrUsedMemHigh: *bytes = pool->used_high; break;
        default: return fail(cudaErrorInvalidValue);
    }
    return cudaSuccess;
}

// Gives freed blocks back to the host until the pool would hold less than min_bytes_to_keep.
cudaError_t cudaMemPoolTrimTo(cudaMemPool_t pool, size_t min_bytes_to_keep) {
    std::lock_guard<std::mutex> lock(pools_mutex);
    if (!exists(pool)) return fail(cudaErrorInvalidValue);
    trim(pool, min_bytes_to_keep);
    return cudaSuccess;
}

// ---- Access from devices ----------------------------------------------------------------------------------
// Device 0 owns every pool and keeps read-write access; there is no other device. The errors are
// those of the real runtime on such a machine.
cudaError_t cudaMemPoolSetAccess(cudaMemPool_t pool, const struct cudaMemAccessDesc* desc_list,
                                 size_t count) {
    if (!pool_exists(pool) || (count > 0 && !desc_list)) return fail(cudaErrorInvalidValue);
    for (size_t i = 0; i < count; i++) {
        const cudaMemAccessDesc& desc = desc_list[i];
        if (desc.flags != cudaMemAccessFlagsProtNone && desc.flags != cudaMemAccessFlagsProtRead &&
            desc.flags != cudaMemAccessFlagsProtReadWrite)
            return fail(cudaErrorInvalidValue);
        if (desc.location.type != cudaMemLocationTypeDevice) return fail(cudaErrorNotSupported);
        // another device, or less than read-write for the pool's own
        if (desc.location.id != 0 || desc.flags != cudaMemAccessFlagsProtReadWrite)
            return fail(cudaErrorInvalidDevice);
    }
    return cudaSuccess;
}
cudaError_t cudaMemPoolGetAccess(enum cudaMemAccessFlags* flags, cudaMemPool_t pool,
                                 struct cudaMemLocation* location) {
    if (!flags || !pool_exists(pool) || !location || location->type != cudaMemLocationTypeDevice ||
        location->id != 0)
        return fail(cudaErrorInvalidValue);
    *flags = cudaMemAccessFlagsProtReadWrite;
    return cudaSuccess;
}

}  // extern "C"
