// runtime/api.cpp - the CUDA runtime API on the CPU: memory, copies, streams, events, the device
// description, the occupancy model and error strings.
//
// Part of the CPU emulation backend (common/emu/). Device memory is host memory, and all work is
// synchronous (a launch returns when its grid is done), which keeps this file short:
//   - A stream still reports work the host has not waited for as not done (cudaStreamQuery), as
//     a GPU may, so that a missing synchronize shows here too.
//   - The pinned memory of a cudaMemcpyAsync stays protected until the host waits for the copy,
//     so that a host that reads its results (or changes what it sends) too early is stopped at
//     that line, as a GPU would give it old bytes now and then.
//   - Every device allocation is recorded, so cudaMemcpy can refuse a copy whose device side is not
//     inside one (wrong direction, too many bytes, freed buffer), as a GPU does. Blocks from a
//     memory pool (cudaMallocAsync, runtime/pools.cpp) are recorded the same way while in use.
//   - Events read the host's monotonic clock; since launches are synchronous, the time between
//     two events is the time of the work between them.
//   - The emulated device reports a real GPU's SM count and per-SM limits (runtime/models.cpp,
//     CUDA_EMU_DEVICE), whatever the number of worker threads, so occupancy arithmetic and the
//     launch warnings give that GPU's numbers.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

namespace cuda_emu {
namespace {

thread_local cudaError_t last_error = cudaSuccess;  // per host thread, as in CUDA
std::atomic<cudaError_t> device_failure{cudaSuccess};  // for every host thread: the device's

cudaError_t fail(cudaError_t error) {
    set_last_error(error);
    return error;
}

// ---- The device we pretend to be: the GPU of runtime/models.cpp --------------------------------
// Registers per thread are unknown without a GPU compiler; the model assumes 32, the figure at
// which registers stop limiting a full multiprocessor (65536 / 2048), unless CUDA_EMU_REGISTERS
// asks what another figure would do (settings().registers_per_thread).
size_t raised_shared_limit = default_shared_per_block;  // cudaFuncSetAttribute may raise it

size_t physical_memory() { return (size_t)sysconf(_SC_PHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE); }

size_t available_memory() {
    // MemAvailable counts reclaimable caches too, which is what "free" means to a program.
    if (FILE* f = fopen("/proc/meminfo", "r")) {
        char line[256];
        unsigned long long kib = 0;
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1) break;
        fclose(f);
        if (kib) return (size_t)kib * 1024;
    }
    return (size_t)sysconf(_SC_AVPHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE);
}

int host_cache_bytes() {
    long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE), l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    return (int)(l3 > 0 ? l3 : (l2 > 0 ? l2 : 4 << 20));
}

// ---- Allocation records -----------------------------------------------------------------------
enum class Kind { device, managed, pinned_host, registered_host, symbol, graph };
struct Allocation {
    size_t size;
    Kind kind;
    bool guarded;
    cudaMemPool_t pool = nullptr;  // the pool the block goes back to when freed, if any
};
std::mutex allocations_mutex;
std::map<const char*, Allocation> allocations;  // keyed by start address

// The allocation that holds [ptr, ptr + count), or null.
const Allocation* find_allocation(const void* ptr, size_t count) {
    const char* p = (const char*)ptr;
    auto it = allocations.upper_bound(p);
    if (it == allocations.begin()) return nullptr;
    --it;
    if (p + count > it->first + it->second.size || p < it->first) return nullptr;
    if (count == 0 && p > it->first + it->second.size) return nullptr;
    return &it->second;
}

// ---- Pinned memory that an asynchronous copy still uses ----------------------------------------
// Work runs when it is issued here, so cudaMemcpyAsync has moved every byte before it returns. On
// a GPU it has only been queued: until the host waits for it, the pinned memory it copies into
// (device to host) does not hold the results yet, and the pinned memory it copies from (host to
// device) must not change. A program that reads its results too early passes here and fails on a
// GPU, now and then. So the pages of such a copy's pinned side are protected until the host
// waits for the copy: none of it may be touched (into the host) or written (from it). A host
// thread that does is stopped, and the fault report (debug.cpp) names its line. Protection is by
// whole pages: an access to another part of a protected page, by a kernel (ordered after the copy
// in its stream, it may use the bytes), or by the emulator's own code (EmulatorAccess) lifts the
// protection of the copies on that page rather than guess; so does a copy of the emulator's that
// reads or writes them. Memory that cudaHostRegister pinned is watched in the whole pages inside
// it only, as the program's other variables may share its first and last pages.

struct InFlightCopy {
    const char* start;  // the host bytes the copy moves
    size_t count;
    char* pages;        // the whole pages protected for it
    size_t page_bytes;
    bool into_host;     // device to host: no access until waited for; host to device: no writes
    cudaStream_t stream;
    uint64_t work;      // its item number in the stream
    size_t buffer_size; // the pinned allocation that holds the bytes
};
std::mutex in_flight_mutex;  // taken before streams_mutex or allocations_mutex, never after
std::vector<InFlightCopy> in_flight;

char* page_floor(const void* p) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return (char*)((uintptr_t)p / page * page);
}
char* page_ceil(const void* p) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return (char*)(((uintptr_t)p + page - 1) / page * page);
}

// Under in_flight_mutex: gives the pages [from, to) the protection the copies still in flight
// ask of them: none where one copies into them, reading only where one copies from them.
void protect_pages(char* from, char* to) {
    std::vector<char*> cuts{from, to};
    for (const InFlightCopy& c : in_flight) {
        char* a = std::max(from, c.pages);
        char* b = std::min(to, c.pages + c.page_bytes);
        if (a < b) cuts.insert(cuts.end(), {a, b});
    }
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    for (size_t i = 0; i + 1 < cuts.size(); i++) {
        bool no_access = false, read_only = false;
        for (const InFlightCopy& c : in_flight)
            if (c.pages <= cuts[i] && cuts[i + 1] <= c.pages + c.page_bytes)
                (c.into_host ? no_access : read_only) = true;
        int protection = no_access ? PROT_NONE : read_only ? PROT_READ : PROT_READ | PROT_WRITE;
        mprotect(cuts[i], (size_t)(cuts[i + 1] - cuts[i]), protection);
    }
}

// Under in_flight_mutex: stops watching the copies `done` picks, and unprotects their pages.
template <class Done>
void drop_copies(Done done) {
    std::vector<std::pair<char*, char*>> spans;
    for (auto c = in_flight.begin(); c != in_flight.end();) {
        if (done(*c)) {
            spans.emplace_back(c->pages, c->pages + c->page_bytes);
            c = in_flight.erase(c);
        } else {
            ++c;
        }
    }
    for (const auto& [from, to] : spans) protect_pages(from, to);
}

// The copies on the pages of [p, p + count) are no longer watched (the emulator's own copy
// touches them, or the memory is freed).
void lift_copies(const void* p, size_t count) {
    if (count == 0) return;
    std::lock_guard<std::mutex> lock(in_flight_mutex);
    if (in_flight.empty()) return;
    char* from = page_floor(p);
    char* to = page_ceil((const char*)p + count);
    drop_copies([&](const InFlightCopy& c) { return c.pages < to && from < c.pages + c.page_bytes; });
}

// After the host waited for something: the copies it has now waited for are done.
void release_waited_copies() {
    std::lock_guard<std::mutex> lock(in_flight_mutex);
    if (in_flight.empty()) return;
    drop_copies([](const InFlightCopy& c) { return host_waited_for(c.stream, c.work); });
}

// cudaMemcpyAsync in `stream`, its item `work`, has moved the bytes: its pinned side, if it has
// one, is protected until the host waits for it.
void watch_copy(void* dst, const void* src, size_t count, cudaMemcpyKind kind, cudaStream_t stream,
                uint64_t work) {
    InFlightCopy copy{};
    {
        std::lock_guard<std::mutex> lock(allocations_mutex);
        auto pinned = [&](const void* p) -> const char* {  // the allocation's start, or null
            const Allocation* a = find_allocation(p, count);
            if (!a || (a->kind != Kind::pinned_host && a->kind != Kind::registered_host)) return nullptr;
            auto it = allocations.upper_bound((const char*)p);
            return (--it)->first;
        };
        const char* buffer = nullptr;
        if (kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDefault) {
            buffer = pinned(dst);
            copy.into_host = buffer != nullptr;
        }
        if (!buffer && (kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDefault)) buffer = pinned(src);
        if (!buffer) {
            // pageable memory: the real runtime stages it through a pinned buffer of its own
            // before it returns, so the copy overlaps little or nothing. Said once, in a stream
            // of the program's own, where overlap is what the program asks for.
            static std::atomic<bool> said{false};
            bool host_side = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToHost;
            if (host_side && stream != 0 && emulator_access == 0 && !said.exchange(true))
                report("note: cudaMemcpyAsync in stream %p copies %s pageable memory (which "
                       "cudaMallocHost, cudaHostAlloc or cudaHostRegister did not pin): on a GPU "
                       "it may not return before the copy is done, and overlaps little or nothing "
                       "with the host and the other streams. Pinned memory lets it overlap "
                       "(lesson 07)",
                       (void*)stream, kind == cudaMemcpyHostToDevice ? "from" : "into");
            return;
        }
        const Allocation& a = allocations[buffer];
        copy.start = (const char*)(copy.into_host ? dst : src);
        copy.count = count;
        copy.buffer_size = a.size;
        // pinned_host: whole pages of its own (allocate); registered: the whole pages inside it
        char* first = a.kind == Kind::pinned_host ? page_floor(buffer) : page_ceil(buffer);
        char* end = a.kind == Kind::pinned_host ? page_ceil(buffer + a.size) : page_floor(buffer + a.size);
        copy.pages = std::max(first, page_floor(copy.start));
        char* last = std::min(end, page_ceil(copy.start + count));
        if (last <= copy.pages) return;
        copy.page_bytes = (size_t)(last - copy.pages);
    }
    copy.stream = stream;
    copy.work = work;
    install_fault_handlers();
    std::lock_guard<std::mutex> lock(in_flight_mutex);
    in_flight.push_back(copy);
    protect_pages(copy.pages, copy.pages + copy.page_bytes);
}

// New memory, or with a pool (cudaMallocAsync) a block the pool hands out, stream-ordered in
// `stream`; either way recorded as one allocation.
cudaError_t allocate(void** ptr, size_t size, Kind kind, const char* file, int line,
                     cudaMemPool_t pool = nullptr, cudaStream_t stream = 0) {
    if (cudaError_t failure = device_error()) return fail(failure);
    if (!ptr) return fail(cudaErrorInvalidValue);
    bool guard = settings().guard && kind != Kind::pinned_host;
    void* memory = nullptr;
    // Pinned memory in whole pages of its own, as the pages an asynchronous copy still uses are
    // protected (see "Pinned memory that an asynchronous copy still uses" below).
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if (size <= SIZE_MAX - 4096)  // rounding up to whole pages must not overflow
        memory = pool    ? pool_take(pool, size, stream, file, line)
                 : guard ? guarded_alloc(size, file, line)
                 : kind == Kind::pinned_host ? aligned_alloc(page, (size + page - 1) / page * page)
                                             : aligned_alloc(256, (size + 255) / 256 * 256);
    if (!memory) {
        *ptr = nullptr;
        return fail(cudaErrorMemoryAllocation);
    }
    if (settings().poison && kind != Kind::pinned_host) memset(memory, 0xff, size);
    std::lock_guard<std::mutex> lock(allocations_mutex);
    allocations[(const char*)memory] = Allocation{size, kind, guard, pool};
    // --sanitize: device memory is tracked for reads of bytes nobody wrote (managed memory is
    // written by host code the checks do not see, so it is left out). --profile: all memory a
    // kernel may reach is global memory, whose sectors it counts.
    bool watch_writes = sanitize_enabled && kind == Kind::device;
    if (watch_writes || profile_enabled) sanitize_track(memory, size, file, line, watch_writes);
    *ptr = memory;
    return cudaSuccess;
}

// Frees what allocate() made; a pool's block goes back to its pool, freed in `stream` as its
// item number `work` (cudaFree: at once, in no stream's order). `not_allocated` is the error for
// a pointer that is no allocation of that kind (any more). A graph allocation goes back to
// graphs.cpp.
cudaError_t release(void* ptr, bool host_kind, cudaError_t not_allocated, cudaStream_t stream = 0,
                    uint64_t work = 0) {
    if (cudaError_t failure = device_error()) return fail(failure);
    if (!ptr) return cudaSuccess;
    Allocation found;
    {
        std::lock_guard<std::mutex> lock(allocations_mutex);
        auto it = allocations.find((const char*)ptr);
        if (it == allocations.end() || (it->second.kind == Kind::pinned_host) != host_kind ||
            it->second.kind == Kind::symbol || it->second.kind == Kind::registered_host)
            return fail(not_allocated);
        found = it->second;
        allocations.erase(it);
    }
    if (sanitize_enabled || profile_enabled) sanitize_untrack(ptr);
    if (found.kind == Kind::pinned_host) lift_copies(ptr, found.size);  // its pages go back to malloc
    if (found.kind == Kind::graph) {
        graph_allocation_freed(ptr, stream, work);  // closes its pages: a later access is reported
        return cudaSuccess;
    }
    if (settings().poison) memset(ptr, 0xff, found.size);  // reads after free show as NaN
    if (found.pool)
        pool_give_back(found.pool, ptr, stream, work);
    else if (found.guarded)
        guarded_free(ptr);
    else
        free(ptr);
    return cudaSuccess;
}

// An event keeps the time it was recorded at, and how much of its stream's work came before it
// (for cudaEventSynchronize and cudaEventQuery: see the stream states below).
struct Timing {
    double ms;
    bool recorded;
    cudaStream_t stream;
    uint64_t work_before;
};

// ---- Which streams the host has waited for ------------------------------------------------------
// Work runs when it is issued, so by the time a call returns, its stream has nothing left to do. On
// a GPU the work may still be running, and the host learns that it is done only by waiting for it
// (a synchronize) or by asking (cudaStreamQuery, cudaEventQuery). So that a program which forgets
// to wait cannot pass here and fail on a GPU, each stream counts the work queued on it and the
// work the host has seen finish: cudaStreamQuery answers cudaErrorNotReady while some has not been
// waited for, as a GPU may, and counts it seen then, so that a loop polling the stream ends.
// A stream that waits for an event of another (cudaStreamWaitEvent) makes the host, when it waits
// for the first stream past that point, wait for the other's work before the event too.
struct EventWait {
    uint64_t after;        // the waiting stream's items queued before the wait
    cudaStream_t stream;   // the event's stream, and its items before the event
    uint64_t work;
};
struct StreamState {
    uint64_t queued = 0;  // copies, memsets, prefetches and kernels issued on the stream
    uint64_t waited = 0;  // of those, how many the host has waited for or seen finish
    bool blocking = true;  // not cudaStreamNonBlocking: the legacy default stream waits for it
    int priority = 0;      // as made (cudaStreamCreateWithPriority), reported, changing nothing
    // cudaStreamSetAttribute's other attributes, kept to be read back: they change nothing here
    struct Hints {
        cudaAccessPolicyWindow window{};
        cudaSynchronizationPolicy sync_policy = cudaSyncPolicyAuto;
        cudaLaunchMemSyncDomainMap domain_map{0, 1};
        cudaLaunchMemSyncDomain domain = cudaLaunchMemSyncDomainDefault;
        unsigned nvlink_scheduling = 0;
    } hints;
    std::vector<EventWait> event_waits;  // not yet passed by what the host waited for
};
std::mutex streams_mutex;
std::map<cudaStream_t, StreamState> stream_states;  // the default stream is 0

uint64_t work_queued_on(cudaStream_t stream) {
    std::lock_guard<std::mutex> lock(streams_mutex);
    return stream_states[stream].queued;
}

// Under streams_mutex: the host has waited for (or seen finish) the first `work` items of the
// stream, and so for the work of other streams that those waited for. A destroyed stream's work
// is all done.
void mark_waited(cudaStream_t stream, uint64_t work) {
    auto found = stream_states.find(stream);
    if (found == stream_states.end()) return;
    StreamState& state = found->second;
    work = std::min(work, state.queued);
    state.waited = std::max(state.waited, work);
    std::vector<EventWait> passed;
    for (auto wait = state.event_waits.begin(); wait != state.event_waits.end();) {
        if (wait->after <= work) {
            passed.push_back(*wait);
            wait = state.event_waits.erase(wait);
        } else {
            ++wait;
        }
    }
    for (const EventWait& wait : passed) mark_waited(wait.stream, wait.work);
}

// The host has waited for the first `work` items of the stream.
void waited_for(cudaStream_t stream, uint64_t work) {
    {
        std::lock_guard<std::mutex> lock(streams_mutex);
        stream_states[stream];  // a stream never used before is known from now on
        mark_waited(stream, work);
    }
    release_waited_copies();
}

void waited_for_all(cudaStream_t stream) { waited_for(stream, UINT64_MAX); }

// Everything the legacy default stream waits for: its own work and every blocking stream's
// (cudaDeviceSynchronize: every stream's).
void waited_for_every_stream(bool blocking_only) {
    {
        std::lock_guard<std::mutex> lock(streams_mutex);
        std::vector<cudaStream_t> waited;
        for (auto& [stream, state] : stream_states)
            if (!blocking_only || state.blocking || stream == 0) waited.push_back(stream);
        for (cudaStream_t stream : waited) mark_waited(stream, UINT64_MAX);
    }
    release_waited_copies();
}

// cudaErrorNotReady (not an error: the last error stays) while the first `work` items of the
// stream have not been waited for; they count as seen from then on, so that the next query
// answers cudaSuccess. The host learns that they are done only then: their copies' pinned
// memory stays protected until it has.
cudaError_t query_work(cudaStream_t stream, uint64_t work) {
    bool seen;
    {
        std::lock_guard<std::mutex> lock(streams_mutex);
        StreamState& state = stream_states[stream];
        work = std::min(work, state.queued);
        seen = state.waited >= work;
        mark_waited(stream, work);
    }
    if (!seen) return cudaErrorNotReady;
    release_waited_copies();
    return cudaSuccess;
}
double now_ms() {
    return std::chrono::duration<double, std::milli>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

// A window as cudaStreamSetAttribute and cudaLaunchKernelEx check it; `how` names the call.
cudaError_t check_policy_window(const cudaAccessPolicyWindow& window, const char* how) {
    bool ratio_ok = window.hitRatio >= 0.0f && window.hitRatio <= 1.0f;  // false for NaN too
    bool hit_ok = window.hitProp >= cudaAccessPropertyNormal && window.hitProp <= cudaAccessPropertyPersisting;
    bool miss_ok = window.missProp == cudaAccessPropertyNormal || window.missProp == cudaAccessPropertyStreaming;
    if (ratio_ok && hit_ok && miss_ok) return cudaSuccess;
    report("%s: an access policy window needs a hitRatio from 0 to 1, a hitProp of Normal, Streaming or "
           "Persisting (0 to 2) and a missProp of Normal or Streaming (0 or 1); this one has hitRatio %g, "
           "hitProp %d, missProp %d",
           how, (double)window.hitRatio, (int)window.hitProp, (int)window.missProp);
    return fail(cudaErrorInvalidValue);
}

}  // namespace

bool device_range_ok(const void* ptr, size_t count) {
    std::lock_guard<std::mutex> lock(allocations_mutex);
    const Allocation* a = find_allocation(ptr, count);
    return a && a->kind != Kind::pinned_host;
}

void set_last_error(cudaError_t error) {
    if (error != cudaSuccess) last_error = error;
}

void fail_device(cudaError_t error) {
    device_failure.store(error);
    set_last_error(error);
}
cudaError_t device_error() { return device_failure.load(std::memory_order_relaxed); }

size_t dynamic_shared_limit() { return raised_shared_limit; }

// Under streams_mutex: the legacy default stream (0) and the blocking streams wait for each
// other. Its work, or an event recorded there, comes after all the work of the blocking streams
// queued before it, and theirs after its: a host that waits for one past `after` has waited for
// that work of the others too.
void note_legacy_order(cudaStream_t stream, StreamState& state, uint64_t after) {
    if (!state.blocking) return;
    for (auto& [other, other_state] : stream_states) {
        if (other == stream || !other_state.blocking || (stream != 0 && other != 0)) continue;
        if (other_state.queued <= other_state.waited) continue;  // nothing of it to wait for
        bool covered = false;
        for (const EventWait& wait : state.event_waits)
            covered = covered || (wait.stream == other && wait.work >= other_state.queued);
        if (!covered) state.event_waits.push_back(EventWait{after, other, other_state.queued});
    }
}

void note_stream_work(cudaStream_t stream) {
    std::lock_guard<std::mutex> lock(streams_mutex);
    StreamState& state = stream_states[stream];
    note_legacy_order(stream, state, state.queued + 1);
    state.queued++;
}

// A destroyed stream's work is all done, as cudaStreamDestroy lets it finish first.
bool host_waited_for(cudaStream_t stream, uint64_t work) {
    std::lock_guard<std::mutex> lock(streams_mutex);
    auto state = stream_states.find(stream);
    return state == stream_states.end() || state->second.waited >= work;
}

thread_local int emulator_access = 0;

// debug.cpp's fault handler asks. A fault on a protected page that no copy holds any more (the
// host waited for it on another thread meanwhile) goes on; so does one by a kernel or by the
// emulator, or on bytes of the page that no copy moves, after lifting the protection of the
// copies on that page. Only the program's host code touching a copy's own bytes is too early.
CopyFault in_flight_copy_fault(const char* address, bool by_host, bool may_write, EarlyAccess* too_early) {
    std::lock_guard<std::mutex> lock(in_flight_mutex);
    char* page = page_floor(address);
    const InFlightCopy* early = nullptr;
    bool on_protected_page = false;
    for (const InFlightCopy& c : in_flight) {
        if (page < c.pages || page >= c.pages + c.page_bytes) continue;
        on_protected_page = true;
        if (by_host && (c.into_host || may_write) && address >= c.start && address < c.start + c.count)
            early = &c;
    }
    if (early) {
        *too_early = EarlyAccess{early->into_host, early->stream, (size_t)(address - early->start),
                                 early->count, early->buffer_size};
        return CopyFault::too_early;
    }
    if (on_protected_page) {
        drop_copies([&](const InFlightCopy& c) { return page >= c.pages && page < c.pages + c.page_bytes; });
        return CopyFault::go_on;
    }
    // Pinned memory, and no copy holds its page: a copy dropped since the fault. Its pages may
    // still be on their way back; make sure of this one.
    {
        std::lock_guard<std::mutex> allocations_lock(allocations_mutex);
        auto it = allocations.upper_bound(address);
        if (it == allocations.begin()) return CopyFault::not_ours;
        --it;
        const Allocation& a = it->second;
        if (a.kind != Kind::pinned_host && a.kind != Kind::registered_host) return CopyFault::not_ours;
        if (address >= page_ceil(it->first + a.size)) return CopyFault::not_ours;
    }
    protect_pages(page, page + sysconf(_SC_PAGESIZE));
    return CopyFault::go_on;
}

cudaError_t copy_symbol(void* symbol, size_t symbol_size, void* buffer, size_t count,
                        size_t offset, bool to_symbol) {
    if (cudaError_t failure = device_error()) return fail(failure);
    if (offset > symbol_size || count > symbol_size - offset) return fail(cudaErrorInvalidValue);
    lift_copies(buffer, count);
    if (to_symbol)
        memcpy((char*)symbol + offset, buffer, count);
    else
        memcpy(buffer, (char*)symbol + offset, count);
    return cudaSuccess;
}

cudaError_t register_symbol(void* symbol, size_t size) {
    std::lock_guard<std::mutex> lock(allocations_mutex);
    allocations.emplace((const char*)symbol, Allocation{size, Kind::symbol, false});
    return cudaSuccess;
}

// A graph allocation as its memory alloc node runs: device memory from now until its free.
void record_graph_allocation(void* start, size_t size, const char* file, int line) {
    if (settings().poison) memset(start, 0xff, size);
    {
        std::lock_guard<std::mutex> lock(allocations_mutex);
        allocations[(const char*)start] = Allocation{size, Kind::graph, false};
    }
    if (sanitize_enabled || profile_enabled) sanitize_track(start, size, file, line, sanitize_enabled);
}

cudaError_t free_graph_allocation(void* start, cudaStream_t stream) {
    uint64_t work = work_queued_on(stream) + 1;  // the graph launch that frees it
    return release(start, false, cudaErrorInvalidValue, stream, work);
}

}  // namespace cuda_emu

using namespace cuda_emu;

extern "C" {

// ---- Errors ---------------------------------------------------------------------------------------
// A failed device cannot be cleared by reading its error: only cudaDeviceReset clears it.
cudaError_t cudaPeekAtLastError(void) {
    cudaError_t failure = device_error();
    return failure != cudaSuccess ? failure : cuda_emu::last_error;
}
cudaError_t cudaGetLastError(void) {
    cudaError_t e = cudaPeekAtLastError();
    cuda_emu::last_error = cudaSuccess;
    return e;
}

namespace {
struct ErrorText {
    cudaError_t code;
    const char* name;
    const char* text;
};
// The same wording as NVIDIA's runtime, so messages match what students find online.
const ErrorText error_texts[] = {
    {cudaSuccess, "cudaSuccess", "no error"},
    {cudaErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument"},
    {cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation", "out of memory"},
    {cudaErrorInitializationError, "cudaErrorInitializationError", "initialization error"},
    {cudaErrorInvalidConfiguration, "cudaErrorInvalidConfiguration", "invalid configuration argument"},
    {cudaErrorInvalidPitchValue, "cudaErrorInvalidPitchValue", "invalid pitch argument"},
    {cudaErrorInvalidSymbol, "cudaErrorInvalidSymbol", "invalid device symbol"},
    {cudaErrorInvalidHostPointer, "cudaErrorInvalidHostPointer", "invalid host pointer"},
    {cudaErrorInvalidTexture, "cudaErrorInvalidTexture", "invalid texture reference"},
    {cudaErrorInvalidChannelDescriptor, "cudaErrorInvalidChannelDescriptor", "invalid channel descriptor"},
    {cudaErrorInvalidDevicePointer, "cudaErrorInvalidDevicePointer", "invalid device pointer"},
    {cudaErrorInvalidMemcpyDirection, "cudaErrorInvalidMemcpyDirection", "invalid copy direction for memcpy"},
    {cudaErrorNotYetImplemented, "cudaErrorNotYetImplemented", "function not yet implemented"},
    {cudaErrorInvalidDeviceFunction, "cudaErrorInvalidDeviceFunction", "invalid device function"},
    {cudaErrorNoDevice, "cudaErrorNoDevice", "no CUDA-capable device is detected"},
    {cudaErrorInvalidDevice, "cudaErrorInvalidDevice", "invalid device ordinal"},
    {cudaErrorInvalidResourceHandle, "cudaErrorInvalidResourceHandle", "invalid resource handle"},
    {cudaErrorNotReady, "cudaErrorNotReady", "device not ready"},
    {cudaErrorIllegalAddress, "cudaErrorIllegalAddress", "an illegal memory access was encountered"},
    {cudaErrorLaunchOutOfResources, "cudaErrorLaunchOutOfResources", "too many resources requested for launch"},
    {cudaErrorLaunchTimeout, "cudaErrorLaunchTimeout", "the launch timed out and was terminated"},
    {cudaErrorAssert, "cudaErrorAssert", "device-side assert triggered"},
    {cudaErrorHostMemoryAlreadyRegistered, "cudaErrorHostMemoryAlreadyRegistered", "part or all of the requested memory range is already mapped"},
    {cudaErrorHostMemoryNotRegistered, "cudaErrorHostMemoryNotRegistered", "pointer does not correspond to a registered memory region"},
    {cudaErrorLaunchFailure, "cudaErrorLaunchFailure", "unspecified launch failure"},
    {cudaErrorCooperativeLaunchTooLarge, "cudaErrorCooperativeLaunchTooLarge", "too many blocks in cooperative launch"},
    {cudaErrorNotPermitted, "cudaErrorNotPermitted", "operation not permitted"},
    {cudaErrorNotSupported, "cudaErrorNotSupported", "operation not supported"},
    {cudaErrorUnknown, "cudaErrorUnknown", "unknown error"},
};
const ErrorText* find_error(cudaError_t e) {
    for (const ErrorText& t : error_texts)
        if (t.code == e) return &t;
    return nullptr;
}
}  // namespace

const char* cudaGetErrorName(cudaError_t e) {
    const ErrorText* t = find_error(e);
    return t ? t->name : "cudaErrorUnknown";
}
const char* cudaGetErrorString(cudaError_t e) {
    const ErrorText* t = find_error(e);
    return t ? t->text : "unrecognized error code";
}

// ---- Device management ------------------------------------------------------------------------------
cudaError_t cudaGetDeviceCount(int* count) {
    if (!count) return fail(cudaErrorInvalidValue);
    *count = 1;
    return cudaSuccess;
}
cudaError_t cudaDeviceCanAccessPeer(int* can_access, int device, int peer_device) {
    if (!can_access) return fail(cudaErrorInvalidValue);
    if (device != 0 || peer_device != 0) return fail(cudaErrorInvalidDevice);
    *can_access = 0;
    return cudaSuccess;
}
cudaError_t cudaDeviceEnablePeerAccess(int, unsigned int) { return fail(cudaErrorInvalidDevice); }
cudaError_t cudaDeviceGetP2PAttribute(int* value, enum cudaDeviceP2PAttr, int, int) {
    if (!value) return fail(cudaErrorInvalidValue);
    return fail(cudaErrorInvalidDevice);
}
cudaError_t cudaMemcpyPeer(void* dst, int dst_device, const void* src, int src_device, size_t count) {
    if (dst_device != 0 || src_device != 0) return fail(cudaErrorInvalidDevice);
    return cudaMemcpy(dst, src, count, cudaMemcpyDeviceToDevice);
}
cudaError_t cudaMemcpyPeerAsync(void* dst, int dst_device, const void* src, int src_device,
                                size_t count, cudaStream_t stream) {
    if (dst_device != 0 || src_device != 0) return fail(cudaErrorInvalidDevice);
    return cudaMemcpyAsync(dst, src, count, cudaMemcpyDeviceToDevice, stream);
}
cudaError_t cudaDeviceDisablePeerAccess(int peer_device) {
    return fail(peer_device == 0 ? cudaErrorPeerAccessNotEnabled : cudaErrorInvalidDevice);
}
cudaError_t cudaSetDevice(int device) { return device == 0 ? cudaSuccess : fail(cudaErrorInvalidDevice); }
cudaError_t cudaGetDevice(int* device) {
    if (!device) return fail(cudaErrorInvalidValue);
    *device = 0;
    return cudaSuccess;
}
cudaError_t cudaSetDeviceFlags(unsigned int) { return cudaSuccess; }
// Launches are synchronous: there is nothing to wait for, only a failure to report.
cudaError_t cudaDeviceSynchronize(void) {
    if (cudaError_t failure = device_error()) return fail(failure);
    if (cudaError_t refused = capture_forbids_unsafe_call()) return refused;
    waited_for_every_stream(false);
    release_pool_memory();
    return cudaSuccess;
}
// A new start for the device, which clears a failure (allocations are not freed: the emulator
// cannot tell which the program will still read as host memory).
cudaError_t cudaDeviceReset(void) {
    device_failure.store(cudaSuccess);
    last_error = cudaSuccess;
    return cudaSuccess;
}
cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache) { return cudaSuccess; }
// The device's limits, kept so that a program reads back what it set. They limit nothing here:
// a GPU thread's stack is the emulator's own (CUDA_EMU_STACK_KB, 256 KiB, far above a GPU's
// 1 KiB), printf writes at once, and device-side malloc is the host's.
static size_t device_limits[] = {
    1024,             // cudaLimitStackSize: bytes per thread
    1 << 20,          // cudaLimitPrintfFifoSize
    8 << 20,          // cudaLimitMallocHeapSize
    2,                // cudaLimitDevRuntimeSyncDepth
    2048,             // cudaLimitDevRuntimePendingLaunchCount
    64,               // cudaLimitMaxL2FetchGranularity: bytes
    0,                // cudaLimitPersistingL2CacheSize
};
cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value) {
    if ((unsigned)limit >= sizeof device_limits / sizeof device_limits[0])
        return fail(cudaErrorUnsupportedLimit);
    device_limits[limit] = value;
    return cudaSuccess;
}
cudaError_t cudaDeviceGetLimit(size_t* value, enum cudaLimit limit) {
    if (!value) return fail(cudaErrorInvalidValue);
    if ((unsigned)limit >= sizeof device_limits / sizeof device_limits[0])
        return fail(cudaErrorUnsupportedLimit);
    *value = device_limits[limit];
    return cudaSuccess;
}
cudaError_t cudaDriverGetVersion(int* version) {
    if (!version) return fail(cudaErrorInvalidValue);
    *version = CUDART_VERSION;
    return cudaSuccess;
}
cudaError_t cudaRuntimeGetVersion(int* version) { return cudaDriverGetVersion(version); }

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
    if (!prop) return fail(cudaErrorInvalidValue);
    if (device != 0) return fail(cudaErrorInvalidDevice);
    memset(prop, 0, sizeof *prop);
    const DeviceModel& model = device_model();
    int workers = settings().workers;
    snprintf(prop->name, sizeof prop->name, "CPU emulation of %s on %d CPU thread%s", model.name,
             workers, workers == 1 ? "" : "s");
    prop->totalGlobalMem = physical_memory();
    prop->sharedMemPerBlock = default_shared_per_block;
    prop->sharedMemPerBlockOptin = model.shared_per_block_optin;
    prop->sharedMemPerMultiprocessor = model.shared_per_sm;
    prop->reservedSharedMemPerBlock = model.reserved_shared_per_block;
    prop->regsPerBlock = model.registers_per_block;
    prop->regsPerMultiprocessor = model.registers_per_sm;
    prop->warpSize = warpSize;
    prop->memPitch = 2147483647;
    prop->maxThreadsPerBlock = max_threads_per_block;
    prop->maxThreadsDim[0] = max_threads_per_block;
    prop->maxThreadsDim[1] = max_threads_per_block;
    prop->maxThreadsDim[2] = max_block_dim_z;
    prop->maxGridSize[0] = 2147483647;
    prop->maxGridSize[1] = 65535;
    prop->maxGridSize[2] = 65535;
    prop->totalConstMem = 64 * 1024;
    prop->major = model.major;
    prop->minor = model.minor;
    prop->textureAlignment = 512;
    prop->texturePitchAlignment = 32;
    prop->multiProcessorCount = model.sm_count;
    prop->integrated = 1;  // it shares the host's memory
    prop->canMapHostMemory = 1;
    // every modelled GPU's (compute capability 7.5 to 9.0)
    prop->maxTexture1D = 131072;
    prop->maxTexture2D[0] = 131072;
    prop->maxTexture2D[1] = 65536;
    prop->maxTexture3D[0] = prop->maxTexture3D[1] = prop->maxTexture3D[2] = 16384;
    prop->maxTexture1DLayered[0] = 32768;
    prop->maxTexture1DLayered[1] = 2048;
    prop->maxTexture2DLayered[0] = prop->maxTexture2DLayered[1] = 32768;
    prop->maxTexture2DLayered[2] = 2048;
    prop->surfaceAlignment = 512;
    prop->streamPrioritiesSupported = 1;  // stored and reported; all work runs when issued
    prop->computePreemptionSupported = 1;
    prop->computeMode = cudaComputeModeDefault;
    prop->concurrentKernels = 0;
    prop->asyncEngineCount = 0;
    prop->unifiedAddressing = 1;
    prop->memoryBusWidth = 64;  // one DDR channel
    prop->l2CacheSize = host_cache_bytes();
    // No lines of it can be set aside for persisting accesses: an access policy window is kept,
    // but is no more than a hint (cudaStreamSetAttribute).
    prop->persistingL2CacheMaxSize = 0;
    prop->accessPolicyMaxWindowSize = 0;
    prop->maxThreadsPerMultiProcessor = model.threads_per_sm;
    prop->maxBlocksPerMultiProcessor = model.blocks_per_sm;
    prop->managedMemory = 1;
    prop->concurrentManagedAccess = 1;
    prop->pageableMemoryAccess = 1;
    prop->pageableMemoryAccessUsesHostPageTables = 1;
    prop->hostNativeAtomicSupported = 1;
    prop->cooperativeLaunch = 1;  // cudaLaunchCooperativeKernel and grid.sync() work
    return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int* value, enum cudaDeviceAttr attr, int device) {
    if (!value) return fail(cudaErrorInvalidValue);
    if (device != 0) return fail(cudaErrorInvalidDevice);
    cudaDeviceProp p;
    cudaGetDeviceProperties(&p, 0);
    switch (attr) {
        case cudaDevAttrMaxThreadsPerBlock: *value = p.maxThreadsPerBlock; break;
        case cudaDevAttrMaxBlockDimX: *value = p.maxThreadsDim[0]; break;
        case cudaDevAttrMaxBlockDimY: *value = p.maxThreadsDim[1]; break;
        case cudaDevAttrMaxBlockDimZ: *value = p.maxThreadsDim[2]; break;
        case cudaDevAttrMaxGridDimX: *value = p.maxGridSize[0]; break;
        case cudaDevAttrMaxGridDimY: *value = p.maxGridSize[1]; break;
        case cudaDevAttrMaxGridDimZ: *value = p.maxGridSize[2]; break;
        case cudaDevAttrMaxSharedMemoryPerBlock: *value = (int)p.sharedMemPerBlock; break;
        case cudaDevAttrTotalConstantMemory: *value = (int)p.totalConstMem; break;
        case cudaDevAttrWarpSize: *value = p.warpSize; break;
        case cudaDevAttrMaxRegistersPerBlock: *value = p.regsPerBlock; break;
        // Clocks in kHz. The multiprocessor's is 1 GHz because clock() and clock64() in a kernel
        // count nanoseconds: a kernel that waits ms x clock rate cycles waits ms milliseconds.
        // The memory figures describe DDR4-3200 (1600 MHz, two transfers per clock) on a 64-bit
        // channel: 2 * 1.6e9 * 8 bytes = 25.6 GB/s, a typical host channel.
        case cudaDevAttrClockRate: *value = device_model().clock_mhz * 1000; break;
        case cudaDevAttrSingleToDoublePrecisionPerfRatio: *value = device_model().fp32_per_fp64; break;
        case cudaDevAttrMemoryClockRate: *value = 1600000; break;
        case cudaDevAttrGlobalMemoryBusWidth: *value = p.memoryBusWidth; break;
        case cudaDevAttrMultiProcessorCount: *value = p.multiProcessorCount; break;
        case cudaDevAttrGpuOverlap: *value = p.asyncEngineCount > 0; break;
        case cudaDevAttrIntegrated: *value = p.integrated; break;
        case cudaDevAttrCanMapHostMemory: *value = p.canMapHostMemory; break;
        case cudaDevAttrComputeMode: *value = p.computeMode; break;
        case cudaDevAttrConcurrentKernels: *value = p.concurrentKernels; break;
        case cudaDevAttrKernelExecTimeout: *value = 0; break;  // no display watchdog
        case cudaDevAttrTextureAlignment: *value = (int)p.textureAlignment; break;
        case cudaDevAttrTexturePitchAlignment: *value = (int)p.texturePitchAlignment; break;
        case cudaDevAttrSurfaceAlignment: *value = (int)p.surfaceAlignment; break;
        case cudaDevAttrMaxTexture1DWidth: *value = p.maxTexture1D; break;
        case cudaDevAttrMaxTexture2DWidth: *value = p.maxTexture2D[0]; break;
        case cudaDevAttrMaxTexture2DHeight: *value = p.maxTexture2D[1]; break;
        case cudaDevAttrMaxTexture3DWidth: *value = p.maxTexture3D[0]; break;
        case cudaDevAttrMaxTexture3DHeight: *value = p.maxTexture3D[1]; break;
        case cudaDevAttrMaxTexture3DDepth: *value = p.maxTexture3D[2]; break;
        case cudaDevAttrEccEnabled: *value = p.ECCEnabled; break;
        case cudaDevAttrPciBusId: *value = p.pciBusID; break;
        case cudaDevAttrPciDeviceId: *value = p.pciDeviceID; break;
        case cudaDevAttrComputePreemptionSupported: *value = p.computePreemptionSupported; break;
        case cudaDevAttrL2CacheSize: *value = p.l2CacheSize; break;
        case cudaDevAttrMaxThreadsPerMultiProcessor: *value = p.maxThreadsPerMultiProcessor; break;
        case cudaDevAttrAsyncEngineCount: *value = p.asyncEngineCount; break;
        case cudaDevAttrUnifiedAddressing: *value = p.unifiedAddressing; break;
        case cudaDevAttrComputeCapabilityMajor: *value = p.major; break;
        case cudaDevAttrComputeCapabilityMinor: *value = p.minor; break;
        case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *value = (int)p.sharedMemPerMultiprocessor; break;
        case cudaDevAttrMaxRegistersPerMultiprocessor: *value = p.regsPerMultiprocessor; break;
        case cudaDevAttrManagedMemory: *value = p.managedMemory; break;
        case cudaDevAttrHostNativeAtomicSupported: *value = p.hostNativeAtomicSupported; break;
        case cudaDevAttrPageableMemoryAccess: *value = p.pageableMemoryAccess; break;
        case cudaDevAttrPageableMemoryAccessUsesHostPageTables:
            *value = p.pageableMemoryAccessUsesHostPageTables;
            break;
        case cudaDevAttrConcurrentManagedAccess: *value = p.concurrentManagedAccess; break;
        case cudaDevAttrCooperativeLaunch: *value = p.cooperativeLaunch; break;
        case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = (int)p.sharedMemPerBlockOptin; break;
        case cudaDevAttrMaxBlocksPerMultiprocessor: *value = p.maxBlocksPerMultiProcessor; break;
        case cudaDevAttrMaxPersistingL2CacheSize: *value = p.persistingL2CacheMaxSize; break;
        case cudaDevAttrMaxAccessPolicyWindowSize: *value = p.accessPolicyMaxWindowSize; break;
        case cudaDevAttrClusterLaunch: *value = 0; break;  // clusters of blocks are not emulated
        // Stream-ordered allocation from device pools (runtime/pools.cpp), in one process: no
        // handle types to share a pool with another, and no pools of host memory.
        case cudaDevAttrMemoryPoolsSupported: *value = 1; break;
        case cudaDevAttrMemoryPoolSupportedHandleTypes: *value = cudaMemHandleTypeNone; break;
        case cudaDevAttrHostMemoryPoolsSupported: *value = 0; break;
        default: return fail(cudaErrorInvalidValue);
    }
    return cudaSuccess;
}

// ---- Memory ---------------------------------------------------------------------------------------
cudaError_t cudaMalloc(void** ptr, size_t size, const char* file, int line) {
    if (cudaError_t refused = capture_forbids_unsafe_call()) return refused;
    return allocate(ptr, size, Kind::device, file, line);
}
cudaError_t cudaMallocManaged(void** ptr, size_t size, unsigned int, const char* file, int line) {
    return allocate(ptr, size, Kind::managed, file, line);
}
cudaError_t cudaMallocPitch(void** ptr, size_t* pitch, size_t width, size_t height,
                            const char* file, int line) {
    if (!pitch) return fail(cudaErrorInvalidValue);
    *pitch = (width + 511) / 512 * 512;  // rows start on 512-byte boundaries, like a GPU's
    return allocate(ptr, *pitch * height, Kind::device, file, line);
}
cudaError_t cudaMallocHost(void** ptr, size_t size) {
    return allocate(ptr, size, Kind::pinned_host, "", 0);
}
cudaError_t cudaHostAlloc(void** ptr, size_t size, unsigned int) { return cudaMallocHost(ptr, size); }
cudaError_t cudaHostGetDevicePointer(void** dev_ptr, void* host_ptr, unsigned int) {
    if (!dev_ptr) return fail(cudaErrorInvalidValue);
    *dev_ptr = host_ptr;
    return cudaSuccess;
}
cudaError_t cudaHostRegister(void* ptr, size_t size, unsigned int) {
    if (!ptr || size == 0) return fail(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(allocations_mutex);
    if (find_allocation(ptr, size)) return fail(cudaErrorHostMemoryAlreadyRegistered);
    allocations[(const char*)ptr] = Allocation{size, Kind::registered_host, false};
    return cudaSuccess;
}
cudaError_t cudaHostUnregister(void* ptr) {
    size_t size;
    {
        std::lock_guard<std::mutex> lock(allocations_mutex);
        auto it = allocations.find((const char*)ptr);
        if (it == allocations.end() || it->second.kind != Kind::registered_host)
            return fail(cudaErrorHostMemoryNotRegistered);
        size = it->second.size;
        allocations.erase(it);  // the memory is the program's own: nothing to free
    }
    lift_copies(ptr, size);  // nor watched any more
    return cudaSuccess;
}
cudaError_t cudaFree(void* ptr) { return release(ptr, false, cudaErrorInvalidDevicePointer); }
cudaError_t cudaFreeHost(void* ptr) { return release(ptr, true, cudaErrorInvalidHostPointer); }

cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes) {
    if (!free_bytes || !total_bytes) return fail(cudaErrorInvalidValue);
    *free_bytes = available_memory();
    *total_bytes = physical_memory();
    return cudaSuccess;
}

namespace {
cudaError_t copy_now(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind) {
    if (cudaError_t failure = device_error()) return fail(failure);
    if (count == 0) return cudaSuccess;
    if (!dst || !src) return fail(cudaErrorInvalidValue);
    if ((unsigned)kind > cudaMemcpyDefault) return fail(cudaErrorInvalidMemcpyDirection);
    bool dst_device = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
    bool src_device = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
    if ((dst_device && !device_range_ok(dst, count)) || (src_device && !device_range_ok(src, count)))
        return fail(cudaErrorInvalidValue);
    lift_copies(dst, count);  // the copy itself reads and writes them
    lift_copies(src, count);
    memmove(dst, src, count);
    if (sanitize_enabled) sanitize_mark_written(dst, count);
    return cudaSuccess;
}
}  // namespace

// cudaMemcpy runs in the legacy default stream, which first waits for every blocking stream, and
// returns when the copy is done: the host has waited for all of that work.
cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind) {
    if (cudaError_t refused = capture_forbids_unsafe_call()) return refused;
    cudaError_t result = copy_now(dst, src, count, kind);
    if (result == cudaSuccess) waited_for_every_stream(true);
    return result;
}
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t stream) {
    if (capturing(stream)) return capture_copy(dst, src, count, kind, stream);
    cudaError_t result = copy_now(dst, src, count, kind);
    if (result == cudaSuccess) {
        note_stream_work(stream);
        if (count > 0) watch_copy(dst, src, count, kind, stream, work_queued_on(stream));
    }
    return result;
}
cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                         size_t height, enum cudaMemcpyKind kind) {
    if (width > dpitch || width > spitch) return fail(cudaErrorInvalidPitchValue);
    for (size_t row = 0; row < height; row++) {
        cudaError_t e = cudaMemcpy((char*)dst + row * dpitch, (const char*)src + row * spitch, width, kind);
        if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
}
cudaError_t cudaMemset(void* ptr, int value, size_t count) {
    if (cudaError_t failure = device_error()) return fail(failure);
    if (count == 0) return cudaSuccess;
    if (!device_range_ok(ptr, count)) return fail(cudaErrorInvalidValue);
    memset(ptr, value, count);
    if (sanitize_enabled) sanitize_mark_written(ptr, count);
    return cudaSuccess;
}
cudaError_t cudaMemset2D(void* ptr, size_t pitch, int value, size_t width, size_t height) {
    if (width > pitch) return fail(cudaErrorInvalidPitchValue);
    for (size_t row = 0; row < height; row++) {
        cudaError_t e = cudaMemset((char*)ptr + row * pitch, value, width);
        if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
}
cudaError_t cudaMemsetAsync(void* ptr, int value, size_t count, cudaStream_t stream) {
    if (capturing(stream)) return capture_memset(ptr, value, count, stream);
    cudaError_t result = cudaMemset(ptr, value, count);
    if (result == cudaSuccess) note_stream_work(stream);
    return result;
}
cudaError_t cudaMemPrefetchAsync(const void*, size_t, struct cudaMemLocation, unsigned int,
                                 cudaStream_t stream) {
    note_stream_work(stream);  // there is only one memory: nothing moves
    return cudaSuccess;
}
cudaError_t cudaMemAdvise(const void*, size_t, enum cudaMemoryAdvise, struct cudaMemLocation) {
    return cudaSuccess;
}
// Stream-ordered allocation: the pool's side (which block, how much it holds) is in pools.cpp.
// Each allocation and free counts as work of its stream, as on a GPU, where it is an operation
// queued there. A zero-byte allocation is a null pointer, which cudaFreeAsync accepts. In a
// capturing stream they become a graph's memory alloc and free nodes (graphs.cpp).
cudaError_t cudaMallocFromPoolAsync(void** ptr, size_t size, cudaMemPool_t pool, cudaStream_t stream,
                                    const char* file, int line) {
    if (cudaError_t failure = device_error()) return fail(failure);
    if (!ptr || !pool_exists(pool)) return fail(cudaErrorInvalidValue);
    if (size == 0) {
        *ptr = nullptr;
        return cudaSuccess;
    }
    if (capturing(stream)) return capture_allocation(ptr, size, stream, file, line);
    cudaError_t result = allocate(ptr, size, Kind::device, file, line, pool, stream);
    if (result == cudaSuccess) note_stream_work(stream);
    return result;
}
cudaError_t cudaMallocAsync(void** ptr, size_t size, cudaStream_t stream, const char* file, int line) {
    return cudaMallocFromPoolAsync(ptr, size, current_pool(), stream, file, line);
}
// Also frees cudaMalloc memory (at once: the work before the free is done). A pointer that is no
// live allocation, one freed already included, is an invalid argument, as with the real runtime.
cudaError_t cudaFreeAsync(void* ptr, cudaStream_t stream) {
    if (cudaError_t failure = device_error()) return fail(failure);
    if (!ptr) return cudaSuccess;
    if (capturing(stream)) return capture_free(ptr, stream);
    uint64_t work = work_queued_on(stream) + 1;  // the free is the stream's next item
    cudaError_t result = release(ptr, false, cudaErrorInvalidValue, stream, work);
    if (result == cudaSuccess) note_stream_work(stream);
    return result;
}
cudaError_t cudaStreamAttachMemAsync(cudaStream_t, void*, size_t, unsigned int) { return cudaSuccess; }

// ---- Streams and events -----------------------------------------------------------------------------
// Work runs when it is issued, so a stream only counts its work and what of it the host has
// waited for (see StreamState above); an event keeps a time and its place in its stream.
constexpr int least_stream_priority = 0, greatest_stream_priority = -5;
// As CUDA does, a priority outside the range is taken to its nearer end.
static int clamp_priority(int priority) {
    return std::min(least_stream_priority, std::max(greatest_stream_priority, priority));
}
cudaError_t cudaStreamCreate(cudaStream_t* stream) { return cudaStreamCreateWithFlags(stream, 0); }
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags) {
    return cudaStreamCreateWithPriority(stream, flags, least_stream_priority);
}
cudaError_t cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned int flags, int priority) {
    if (cudaError_t failure = device_error()) return fail(failure);
    if (!stream || (flags & ~(unsigned)cudaStreamNonBlocking)) return fail(cudaErrorInvalidValue);
    priority = clamp_priority(priority);
    *stream = reinterpret_cast<cudaStream_t>(new char(0));
    std::lock_guard<std::mutex> lock(streams_mutex);
    stream_states[*stream] = StreamState{0, 0, (flags & cudaStreamNonBlocking) == 0, priority};
    return cudaSuccess;
}
cudaError_t cudaDeviceGetStreamPriorityRange(int* least_priority, int* greatest_priority) {
    if (least_priority) *least_priority = least_stream_priority;
    if (greatest_priority) *greatest_priority = greatest_stream_priority;
    return cudaSuccess;
}
cudaError_t cudaStreamGetPriority(cudaStream_t stream, int* priority) {
    if (!priority) return fail(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(streams_mutex);
    *priority = stream_states[stream].priority;
    return cudaSuccess;
}

// ---- Attributes of streams and launches (cudaStreamSetAttribute, cudaLaunchKernelEx) -----------
// Checked as CUDA checks them and kept, so that a program reads back what it set; none of them
// changes how work runs here.
cudaError_t cudaStreamSetAttribute(cudaStream_t stream, cudaStreamAttrID attr, const cudaStreamAttrValue* value) {
    if (!value) return fail(cudaErrorInvalidValue);
    if (attr == cudaLaunchAttributeAccessPolicyWindow)
        if (cudaError_t bad = check_policy_window(value->accessPolicyWindow, "cudaStreamSetAttribute")) return bad;
    std::lock_guard<std::mutex> lock(streams_mutex);
    StreamState& state = stream_states[stream];
    switch (attr) {
        case cudaLaunchAttributeAccessPolicyWindow: state.hints.window = value->accessPolicyWindow; break;
        case cudaLaunchAttributeSynchronizationPolicy:
            if (value->syncPolicy < cudaSyncPolicyAuto || value->syncPolicy > cudaSyncPolicyBlockingSync)
                return fail(cudaErrorInvalidValue);
            state.hints.sync_policy = value->syncPolicy;
            break;
        case cudaLaunchAttributePriority:
            state.priority = clamp_priority(value->priority);
            break;
        case cudaLaunchAttributeMemSyncDomainMap: state.hints.domain_map = value->memSyncDomainMap; break;
        case cudaLaunchAttributeMemSyncDomain:
            if (value->memSyncDomain != cudaLaunchMemSyncDomainDefault &&
                value->memSyncDomain != cudaLaunchMemSyncDomainRemote)
                return fail(cudaErrorInvalidValue);
            state.hints.domain = value->memSyncDomain;
            break;
        case cudaLaunchAttributeNvlinkUtilCentricScheduling:
            if (value->nvlinkUtilCentricScheduling > 1) return fail(cudaErrorInvalidValue);
            state.hints.nvlink_scheduling = value->nvlinkUtilCentricScheduling;
            break;
        default:  // the attributes of launches and graph nodes only
            return fail(cudaErrorInvalidValue);
    }
    return cudaSuccess;
}
cudaError_t cudaStreamGetAttribute(cudaStream_t stream, cudaStreamAttrID attr, cudaStreamAttrValue* value) {
    if (!value) return fail(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(streams_mutex);
    const StreamState& state = stream_states[stream];
    switch (attr) {
        case cudaLaunchAttributeAccessPolicyWindow: value->accessPolicyWindow = state.hints.window; break;
        case cudaLaunchAttributeSynchronizationPolicy: value->syncPolicy = state.hints.sync_policy; break;
        case cudaLaunchAttributePriority: value->priority = state.priority; break;
        case cudaLaunchAttributeMemSyncDomainMap: value->memSyncDomainMap = state.hints.domain_map; break;
        case cudaLaunchAttributeMemSyncDomain: value->memSyncDomain = state.hints.domain; break;
        case cudaLaunchAttributeNvlinkUtilCentricScheduling:
            value->nvlinkUtilCentricScheduling = state.hints.nvlink_scheduling;
            break;
        default: return fail(cudaErrorInvalidValue);
    }
    return cudaSuccess;
}
cudaError_t cudaStreamCopyAttributes(cudaStream_t dst, cudaStream_t src) {
    std::lock_guard<std::mutex> lock(streams_mutex);
    const StreamState from = stream_states[src];
    stream_states[dst].priority = from.priority;
    stream_states[dst].hints = from.hints;
    return cudaSuccess;
}
// No cache lines persist here, so there are none to return to normal.
cudaError_t cudaCtxResetPersistingL2Cache(void) { return cudaSuccess; }

cudaError_t cudaStreamGetFlags(cudaStream_t stream, unsigned int* flags) {
    if (!flags) return fail(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(streams_mutex);
    *flags = stream_states[stream].blocking ? cudaStreamDefault : cudaStreamNonBlocking;
    return cudaSuccess;
}
// Its work still finishes, so its copies stop being watched: reading their memory before a
// synchronize is not caught (the emulator no longer knows the stream to name).
cudaError_t cudaStreamDestroy(cudaStream_t stream) {
    {
        std::lock_guard<std::mutex> lock(streams_mutex);
        stream_states.erase(stream);
    }
    release_waited_copies();
    delete reinterpret_cast<char*>(stream);
    return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
    if (cudaError_t failure = device_error()) return fail(failure);
    if (cudaError_t refused = capture_forbids_sync(stream)) return refused;
    if (stream == 0)
        waited_for_every_stream(true);  // the legacy default stream waits for the blocking ones
    else
        waited_for_all(stream);
    release_pool_memory();
    return cudaSuccess;
}
cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* user_data) {
    if (!fn) return fail(cudaErrorInvalidValue);
    if (capturing(stream)) return capture_host_function(fn, user_data, stream);
    // It runs when the stream's work before it is done: what the host learns from it, as from
    // a wait (a thread it starts may read what the copies brought).
    waited_for(stream, work_queued_on(stream));
    fn(user_data);
    return cudaSuccess;
}
cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void* user_data,
                                  unsigned int flags) {
    if (!callback || flags != 0) return fail(cudaErrorInvalidValue);
    waited_for(stream, work_queued_on(stream));  // as for cudaLaunchHostFunc
    callback(stream, cudaSuccess, user_data);
    return cudaSuccess;
}
cudaError_t cudaStreamQuery(cudaStream_t stream) {
    if (cudaError_t failure = device_error()) return fail(failure);
    if (cudaError_t refused = capture_forbids_sync(stream)) return refused;
    return query_work(stream, UINT64_MAX);
}
// Work already ran when it was issued, so there is nothing to wait for, unless the event was
// recorded in a stream capture: then the waiting stream joins that capture (graphs.cpp). Else the
// wait is noted: a host that waits for this stream past it has waited for the event's work too.
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int) {
    if (!event) return fail(cudaErrorInvalidResourceHandle);
    if (capture_event_wait(stream, event)) return cudaSuccess;
    const Timing* timing = reinterpret_cast<const Timing*>(event);
    if (timing->recorded && timing->stream != stream) {
        std::lock_guard<std::mutex> lock(streams_mutex);
        StreamState& state = stream_states[stream];
        state.event_waits.push_back(EventWait{state.queued, timing->stream, timing->work_before});
    }
    return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t* event) { return cudaEventCreateWithFlags(event, 0); }
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int) {
    if (cudaError_t failure = device_error()) return fail(failure);
    if (!event) return fail(cudaErrorInvalidValue);
    *event = reinterpret_cast<cudaEvent_t>(new Timing{0, false, 0, 0});
    return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
    if (cudaError_t failure = device_error()) return fail(failure);
    if (!event) return fail(cudaErrorInvalidResourceHandle);
    if (capturing(stream)) {  // a place in the capture, for other streams to wait for
        capture_event_record(event, stream);
        return cudaSuccess;
    }
    uint64_t work_before;
    {
        std::lock_guard<std::mutex> lock(streams_mutex);
        StreamState& state = stream_states[stream];
        note_legacy_order(stream, state, state.queued);
        work_before = state.queued;
    }
    *reinterpret_cast<Timing*>(event) = Timing{now_ms(), true, stream, work_before};
    return cudaSuccess;
}
// Waiting for an event is waiting for the work of its stream queued before it.
cudaError_t cudaEventSynchronize(cudaEvent_t event) {
    if (cudaError_t failure = device_error()) return fail(failure);
    if (!event) return fail(cudaErrorInvalidResourceHandle);
    const Timing* timing = reinterpret_cast<const Timing*>(event);
    if (timing->recorded) waited_for(timing->stream, timing->work_before);
    release_pool_memory();
    return cudaSuccess;
}
cudaError_t cudaEventQuery(cudaEvent_t event) {
    if (cudaError_t failure = device_error()) return fail(failure);
    if (!event) return fail(cudaErrorInvalidResourceHandle);
    const Timing* timing = reinterpret_cast<const Timing*>(event);
    return timing->recorded ? query_work(timing->stream, timing->work_before) : cudaSuccess;
}
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
    if (!ms) return fail(cudaErrorInvalidValue);
    if (!start || !end) return fail(cudaErrorInvalidResourceHandle);
    const Timing* a = reinterpret_cast<const Timing*>(start);
    const Timing* b = reinterpret_cast<const Timing*>(end);
    if (!a->recorded || !b->recorded) return fail(cudaErrorInvalidResourceHandle);
    *ms = (float)(b->ms - a->ms);
    return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t event) {
    delete reinterpret_cast<Timing*>(event);
    return cudaSuccess;
}

cudaError_t cudaProfilerStart(void) { return cudaSuccess; }
cudaError_t cudaProfilerStop(void) { return cudaSuccess; }

// ---- Kernel attributes and occupancy ---------------------------------------------------------------
// The model (resident_blocks_per_sm in runtime/models.cpp): an SM of the modelled GPU holds as
// many blocks as the tightest of its limits on threads (in whole warps of 32), blocks, registers
// and shared memory allows, each block using its dynamic shared memory plus what the runtime
// reserves, as in the toolkit's cuda_occupancy.h. A kernel's static __shared__ variables count
// too: the rewriter notes their sizes when the program starts (rewrite.c, 7), for kernels defined
// at namespace scope, templates' instances among them, and those of the __device__ functions a
// kernel calls, and they call, by name (a member function's are not counted). Registers are assumed to be 32 per thread, so they never limit (unless
// CUDA_EMU_REGISTERS says otherwise).
// Registers and local memory (spills) are what nvcc decides, so the emulator cannot know them:
// CUDA_EMU_REGISTERS and CUDA_EMU_LOCAL_BYTES set what every kernel reports, to see what a
// heavier kernel would do to occupancy and to the launch warnings (lesson 06).
cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes* attr, const void* func) {
    if (!attr || !func) return fail(cudaErrorInvalidValue);
    memset(attr, 0, sizeof *attr);
    // A block must fit the registers of one multiprocessor: at 255 a thread, 8 warps.
    attr->maxThreadsPerBlock = register_limited_block_threads();
    attr->numRegs = settings().registers_per_thread;
    attr->localSizeBytes = settings().local_bytes_per_thread;
    attr->ptxVersion = attr->binaryVersion = device_model().major * 10 + device_model().minor;
    attr->maxDynamicSharedSizeBytes = (int)(raised_shared_limit);
    attr->sharedSizeBytes = cuda_emu::static_shared_bytes(func);
    return cudaSuccess;
}
cudaError_t cudaFuncSetAttribute(const void* func, enum cudaFuncAttribute attr, int value) {
    if (!func) return fail(cudaErrorInvalidDeviceFunction);
    if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize) {
        if (value < 0 || (size_t)value > device_model().shared_per_block_optin)
            return fail(cudaErrorInvalidValue);
        // Kept for all kernels, not per kernel: the emulator does not tell kernels apart here.
        raised_shared_limit = std::max(raised_shared_limit, (size_t)value);
    }
    return cudaSuccess;
}
cudaError_t cudaFuncSetCacheConfig(const void*, enum cudaFuncCache) { return cudaSuccess; }

}  // extern "C"

namespace {
// Kernels are noted from static initializers of the program's files (see note_kernel_at_startup),
// which may run before this file's: the table is made on first use.
struct KnownKernel {
    KernelLauncher launcher;
    KernelBinder binder;
    const char* name;     // null for a kernel noted only by a typed call (a template's instance)
    size_t static_shared; // the bytes of its static __shared__ variables (rewrite.c, 7)
};
std::mutex launchers_mutex;
std::map<const void*, KnownKernel>& known_kernels() {
    static std::map<const void*, KnownKernel> table;
    return table;
}
// __device__ functions, by the number the rewriter makes from a name (rewrite.c, 7): the bytes of
// each of their static __shared__ variables, and the functions they call; and the functions each
// kernel calls. Several functions of one name (overloads, or two files' static functions) count
// as one: all their variables; a template's instances too, by their largest.
struct DeviceFunction {
    std::map<std::uint64_t, std::size_t> variables;
    std::set<std::uint64_t> calls;
};
std::map<std::uint64_t, DeviceFunction>& device_functions() {
    static std::map<std::uint64_t, DeviceFunction> table;
    return table;
}
std::map<const void*, std::set<std::uint64_t>>& kernel_calls() {
    static std::map<const void*, std::set<std::uint64_t>> table;
    return table;
}
}  // namespace

void cuda_emu::note_function_shared(std::uint64_t function, std::uint64_t variable, size_t bytes) {
    std::lock_guard<std::mutex> lock(launchers_mutex);
    // a template's instances each note the variable: the largest counts
    size_t& noted = device_functions()[function].variables[variable];
    noted = std::max(noted, bytes);
}

void cuda_emu::note_kernel_calls(const void* kernel, std::uint64_t function) {
    std::lock_guard<std::mutex> lock(launchers_mutex);
    kernel_calls()[kernel].insert(function);
}

void cuda_emu::note_function_calls(std::uint64_t caller, std::uint64_t function) {
    std::lock_guard<std::mutex> lock(launchers_mutex);
    device_functions()[caller].calls.insert(function);
}

void cuda_emu::remember_launcher(const void* kernel, KernelLauncher launcher, KernelBinder binder,
                                 const char* name) {
    std::lock_guard<std::mutex> lock(launchers_mutex);
    KnownKernel& known = known_kernels()[kernel];
    known = KnownKernel{launcher, binder, name ? name : known.name, known.static_shared};
}

void cuda_emu::note_static_shared(const void* kernel, size_t bytes) {
    std::lock_guard<std::mutex> lock(launchers_mutex);
    known_kernels()[kernel].static_shared += bytes;
}

// The kernel's own variables and those of every function it reaches, each function once.
static size_t declared_static_shared(const void* kernel) {
    auto found = known_kernels().find(kernel);
    size_t bytes = found != known_kernels().end() ? found->second.static_shared : 0;
    auto calls = kernel_calls().find(kernel);
    if (calls == kernel_calls().end()) return bytes;
    std::vector<std::uint64_t> to_visit(calls->second.begin(), calls->second.end());
    std::set<std::uint64_t> visited;
    while (!to_visit.empty()) {
        std::uint64_t function = to_visit.back();
        to_visit.pop_back();
        auto known = device_functions().find(function);
        if (!visited.insert(function).second || known == device_functions().end()) continue;
        for (const auto& variable : known->second.variables) bytes += variable.second;
        to_visit.insert(to_visit.end(), known->second.calls.begin(), known->second.calls.end());
    }
    return bytes;
}

size_t cuda_emu::static_shared_bytes(const void* kernel) {
    if (!kernel) return 0;
    std::lock_guard<std::mutex> lock(launchers_mutex);
    return declared_static_shared(kernel);
}

// A launch by name (kernel<<<...>>>) does not carry the kernel's address: the name finds it, when
// one kernel noted at startup has it (not an overload, not a template's instance).
size_t cuda_emu::named_kernel_static_shared(const char* name) {
    std::lock_guard<std::mutex> lock(launchers_mutex);
    const void* named = nullptr;
    for (const auto& [kernel, known] : known_kernels()) {
        if (!known.name || strcmp(known.name, name) != 0) continue;
        if (named) return 0;
        named = kernel;
    }
    return named ? declared_static_shared(named) : 0;
}

const char* cuda_emu::noted_kernel_name(const void* kernel) {
    if (!kernel) return nullptr;
    std::lock_guard<std::mutex> lock(launchers_mutex);
    auto found = known_kernels().find(kernel);
    return found != known_kernels().end() ? found->second.name : nullptr;
}

KernelBinder cuda_emu::binder_for(const void* kernel) {
    std::lock_guard<std::mutex> lock(launchers_mutex);
    auto found = known_kernels().find(kernel);
    return found != known_kernels().end() ? found->second.binder : nullptr;
}

KernelLauncher cuda_emu::launcher_for(const void* kernel, const char* how) {
    {
        std::lock_guard<std::mutex> lock(launchers_mutex);
        auto found = known_kernels().find(kernel);
        if (found != known_kernels().end() && found->second.launcher) return found->second.launcher;
    }
    report("a kernel %s as (void*)kernel, whose parameter types the emulator cannot know: pass "
           "the kernel itself, or ask cudaOccupancyMaxActiveBlocksPerMultiprocessor about it first",
           how);
    set_last_error(cudaErrorInvalidDeviceFunction);
    return nullptr;
}

extern "C" {

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* num_blocks, const void* func,
                                                          int block_size, size_t dynamic_smem) {
    if (!num_blocks || !func || block_size <= 0) return fail(cudaErrorInvalidValue);
    *num_blocks = resident_blocks_per_sm(block_size, cuda_emu::static_shared_bytes(func) + dynamic_smem);
    return cudaSuccess;
}

}  // extern "C"

// ---- cudaLaunchKernelEx and the attributes of kernel nodes --------------------------------------
// Attributes are checked as CUDA checks them. Each launch runs when it is issued and is done
// before the next starts, so the hints (priority, access policy window, memory synchronization
// domains, a carveout) change nothing, and a launch that allows programmatic dependent launch
// still starts after the work before it, which is always correct.
cudaError_t cuda_emu::check_launch_attribute(const cudaLaunchAttribute& attribute, bool for_graph_node,
                                             const char* how) {
    const cudaLaunchAttributeValue& value = attribute.val;
    bool valid = true;
    switch (attribute.id) {
        case cudaLaunchAttributeIgnore:
        case cudaLaunchAttributePriority:
        case cudaLaunchAttributeMemSyncDomainMap:
            break;
        case cudaLaunchAttributeAccessPolicyWindow: return check_policy_window(value.accessPolicyWindow, how);
        case cudaLaunchAttributeCooperative: break;
        case cudaLaunchAttributeClusterDimension: {
            unsigned x = value.clusterDim.x, y = value.clusterDim.y, z = value.clusterDim.z;
            valid = x > 0 && y > 0 && z > 0;
            if (valid && x * y * z > 1) {
                report("%s: clusters of thread blocks (here %ux%ux%u) are not emulated, and the emulated device "
                       "reports cudaDevAttrClusterLaunch 0; launch without cudaLaunchAttributeClusterDimension",
                       how, x, y, z);
                return fail(cudaErrorNotSupported);
            }
            break;
        }
        // a hint for larger clusters where they fit: with none, blocks run alone
        case cudaLaunchAttributePreferredClusterDimension:
            valid = value.preferredClusterDim.x > 0 && value.preferredClusterDim.y > 0 && value.preferredClusterDim.z > 0;
            break;
        case cudaLaunchAttributeClusterSchedulingPolicyPreference:
            valid = value.clusterSchedulingPolicyPreference >= cudaClusterSchedulingPolicyDefault &&
                    value.clusterSchedulingPolicyPreference <= cudaClusterSchedulingPolicyLoadBalancing;
            break;
        // a launch's only: they concern the stream it is issued to
        case cudaLaunchAttributeProgrammaticStreamSerialization: valid = !for_graph_node; break;
        case cudaLaunchAttributeProgrammaticEvent: valid = !for_graph_node && value.programmaticEvent.event; break;
        case cudaLaunchAttributeLaunchCompletionEvent: valid = !for_graph_node && value.launchCompletionEvent.event; break;
        case cudaLaunchAttributeMemSyncDomain:
            valid = value.memSyncDomain == cudaLaunchMemSyncDomainDefault ||
                    value.memSyncDomain == cudaLaunchMemSyncDomainRemote;
            break;
        // a percentage of the unified L1 and shared memory, or -1 for the default
        case cudaLaunchAttributePreferredSharedMemoryCarveout:
            valid = value.sharedMemCarveout <= 100 || value.sharedMemCarveout == ~0u;
            break;
        case cudaLaunchAttributeNvlinkUtilCentricScheduling: valid = value.nvlinkUtilCentricScheduling <= 1; break;
        case cudaLaunchAttributeDeviceUpdatableKernelNode:
            if (for_graph_node && value.deviceUpdatableKernelNode.deviceUpdatable) {
                report("%s: kernel nodes that kernels update (cudaLaunchAttributeDeviceUpdatableKernelNode) are not "
                       "emulated",
                       how);
                return fail(cudaErrorNotSupported);
            }
            valid = for_graph_node;
            break;
        default:  // a stream's attribute (synchronization policy), or none
            valid = false;
    }
    if (valid) return cudaSuccess;
    static const char* const names[] = {
        "Ignore", "AccessPolicyWindow", "Cooperative", "SynchronizationPolicy (a stream's)", "ClusterDimension",
        "ClusterSchedulingPolicyPreference", "ProgrammaticStreamSerialization (a launch's)",
        "ProgrammaticEvent (a launch's)", "Priority", "MemSyncDomainMap", "MemSyncDomain",
        "PreferredClusterDimension", "LaunchCompletionEvent (a launch's)",
        "DeviceUpdatableKernelNode (a graph node's)", "PreferredSharedMemoryCarveout", "(none)",
        "NvlinkUtilCentricScheduling"};
    unsigned id = (unsigned)attribute.id;
    report("%s: cudaLaunchAttribute%s is not an attribute of a %s, or has a value out of its range", how,
           id < sizeof names / sizeof names[0] ? names[id] : " of an unknown id",
           for_graph_node ? "kernel node" : "launch");
    return fail(cudaErrorInvalidValue);
}

cudaError_t cuda_emu::launch_ex_config(const cudaLaunchConfig_t* config, LaunchConfig* launch) {
    if (!config || !launch || (config->numAttrs > 0 && !config->attrs)) return fail(cudaErrorInvalidValue);
    *launch = LaunchConfig{config->gridDim, config->blockDim, config->dynamicSmemBytes, config->stream, false};
    for (unsigned i = 0; i < config->numAttrs; i++) {
        const cudaLaunchAttribute& attribute = config->attrs[i];
        if (cudaError_t bad = check_launch_attribute(attribute, false, "cudaLaunchKernelEx")) return bad;
        if (attribute.id == cudaLaunchAttributeCooperative) launch->cooperative = attribute.val.cooperative != 0;
    }
    return cudaSuccess;
}

// The launch is over when its call returns, so its programmatic and completion events are
// recorded then: a stream waiting for either starts after the whole kernel, later than CUDA
// allows but never too early.
cudaError_t cuda_emu::launch_ex_events(const cudaLaunchConfig_t* config) {
    for (unsigned i = 0; i < config->numAttrs; i++) {
        const cudaLaunchAttribute& attribute = config->attrs[i];
        cudaEvent_t event = attribute.id == cudaLaunchAttributeProgrammaticEvent ? attribute.val.programmaticEvent.event
                            : attribute.id == cudaLaunchAttributeLaunchCompletionEvent
                                ? attribute.val.launchCompletionEvent.event
                                : nullptr;
        if (event)
            if (cudaError_t error = cudaEventRecord(event, config->stream)) return error;
    }
    return cudaSuccess;
}
