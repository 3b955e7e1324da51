// runtime/sanitize.cpp - the checks of `emucc --sanitize`: shared-memory data races, reads of
// shared memory nobody wrote, out-of-bounds accesses to dynamic shared memory, warp-level races
// that need __syncwarp(), and misaligned accesses to device and shared memory, each reported
// with the kernel, block, threads and source lines.
//
// Part of the CPU emulation backend (common/emu/). How it sees every memory access: emucc
// --sanitize compiles the program's .cu files with the compiler's ThreadSanitizer
// instrumentation (-fsanitize=thread, in GCC and clang alike), which puts a call such as
// __tsan_read4(address) before every load and __tsan_write4(address) before every store, but
// links without ThreadSanitizer's own runtime. The functions it calls are defined here instead:
// each one tells in two comparisons whether the address is in the running block's shared
// memory, and only then consults the shadow state below. Programs built without --sanitize
// never call them. emucc --profile compiles with the same instrumentation: then each access in
// a block goes to runtime/profile.cpp as well (or instead, without --sanitize).
//
// Shared memory in the emulator: static __shared__ arrays are thread_local variables of the
// program (its TLS segment, one copy per worker thread, reused block after block), dynamic
// shared memory is one buffer per worker. The shadow keeps, per 4-byte word, the last two writes
// and the last two reads of the current block, each with the bytes of the word it touched, each with the GPU thread, the barrier generation
// (block_epoch, counted by the scheduler at every __syncthreads, at the end of a cuda::barrier's
// phase, and when threads asleep in __nanosleep resume) and the warp generation (warp
// barriers: __syncwarp, shuffles, votes) it happened in. Two accesses to one word by different
// threads, at least one a write, in the same barrier generation are a race: nothing ordered
// them, and on a GPU the result depends on timing. Between warps, the sync() of a
// cooperative_groups tile of more than 32 threads orders them too, if both warps are in the tile. Entries carry the block's serial number, so
// nothing needs clearing between blocks.
#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <vector>

#include "internal.h"

namespace cuda_emu {

__thread SanitizeState sanitize_state;
bool sanitize_enabled = false;
bool profile_enabled = false;

// Called at startup by the programs' own code (cuda_emu/device.h), which knows how emucc built it.
// profile: 0 no, 1 the tables per kernel, 2 per source line too (emucc --profile --lines).
void enable_checks(bool sanitize, int profile) {
    sanitize_enabled = sanitize_enabled || sanitize;
    if (profile) {
        profile_enabled = true;
        start_profile(profile > 1);
    }
}

namespace {

constexpr size_t word_bytes = 4;

struct Access {
    const void* pc;  // where in the program; null: none in this block
    uint32_t block_serial;
    uint32_t block_epoch;
    uint32_t warp_epoch;
    uint32_t tile_barrier;  // the block's tile syncs completed before it (SanitizeState::tile_barriers)
    uint16_t thread;
    uint8_t bytes;  // which of the word's four bytes it touched, as bits: 0xF for the whole word
};

// Threads may write different bytes of one word (a tile of unsigned char) without a race, as on
// a GPU: accesses conflict only where their bytes overlap. other_write keeps such a write by
// another thread when a later one to other bytes of the word replaces it as write.
struct Word {
    Access write, other_write, read, other_read;  // other_read: the last read by a thread
                                                  // other than read's
    uint32_t written_serial;  // the block that wrote this word (for never-written reads)
};

struct Region {
    char* start = nullptr;
    size_t size = 0;
    std::vector<Word> shadow;
};

// Device allocations (cudaMalloc), with one byte per byte that says whether anything wrote it
// (--sanitize; empty when only --profile, which needs to know where they lie, tracks them).
// Changed only by the host thread between launches (launches are synchronous here), read by the
// workers while a kernel runs.
struct Tracked {
    const char* start;
    size_t size;
    std::vector<unsigned char> written;  // empty: not watched for reads of unwritten bytes
    const char* file;
    int line;
};
std::vector<Tracked> tracked;

Tracked* tracked_at(const char* a) {
    for (Tracked& t : tracked)
        if (a >= t.start && a < t.start + t.size) return &t;
    return nullptr;
}

// Where each static __shared__ variable lies in this worker's TLS segment (rewrite.c registers
// them as their declarations run).
struct Extent {
    const char* start;
    size_t size;
    const char* name;
};
thread_local std::vector<Extent> extents;

const Extent* extent_at(const char* a) {
    for (const Extent& e : extents)
        if (a >= e.start && a < e.start + e.size) return &e;
    return nullptr;
}

// For every two warps of the running block, the last sync() of a tile of more than 32 threads
// that held both, numbered as SanitizeState::tile_barriers counts them (0: none).
thread_local uint32_t last_tile_barrier[max_threads_per_block / 32][max_threads_per_block / 32];

// Per worker thread: the program's TLS segment (static __shared__) and the dynamic buffer.
thread_local Region static_region, dynamic_region;
thread_local bool regions_known = false;
// The emulator's own thread_local variables live in the same TLS segment; kernels read them
// (threadIdx.x), the scheduler writes them: they are no shared memory.
thread_local char* emulator_variables[6];

int find_tls(struct dl_phdr_info* info, size_t, void* data) {
    for (int i = 0; i < info->dlpi_phnum; i++) {
        if (info->dlpi_phdr[i].p_type == PT_TLS && info->dlpi_tls_data) {
            Region* region = static_cast<Region*>(data);
            region->start = static_cast<char*>(info->dlpi_tls_data);
            region->size = info->dlpi_phdr[i].p_memsz;
            return 1;  // the first object with TLS is the program itself
        }
    }
    return 0;
}

void learn_regions() {
    regions_known = true;
    dl_iterate_phdr(find_tls, &static_region);
    if (sanitize_enabled) static_region.shadow.assign(static_region.size / word_bytes + 1, Word{});
    emulator_variables[0] = reinterpret_cast<char*>(&threadIdx);
    emulator_variables[1] = reinterpret_cast<char*>(&blockIdx);
    emulator_variables[2] = reinterpret_cast<char*>(&blockDim);
    emulator_variables[3] = reinterpret_cast<char*>(&gridDim);
    emulator_variables[4] = reinterpret_cast<char*>(&dynamic_shared_base);
    emulator_variables[5] = reinterpret_cast<char*>(&sanitize_state);
}

bool is_emulator_variable(const char* address) {
    static const size_t sizes[6] = {sizeof threadIdx, sizeof blockIdx, sizeof blockDim,
                                    sizeof gridDim, sizeof dynamic_shared_base,
                                    sizeof sanitize_state};
    for (int i = 0; i < 6; i++)
        if (address >= emulator_variables[i] && address < emulator_variables[i] + sizes[i])
            return true;
    return false;
}

// ---- Reports ------------------------------------------------------------------------------------

// The program's own load address, to turn a return address into an offset addr2line reads.
uintptr_t program_base() {
    static uintptr_t base = 0;
    static bool known = false;
    if (!known) {
        known = true;
        dl_iterate_phdr([](struct dl_phdr_info* info, size_t, void* data) {
            *static_cast<uintptr_t*>(data) = info->dlpi_addr;
            return 1;  // the first object is the program
        }, &base);
    }
    return base;
}

}  // namespace

// "file:line" of the code at pc. A return address (the call to a check) is looked up one byte
// back, inside the call. Inlined code is followed outwards to the first frame outside the
// emulator's own headers: the student's line.
void code_line(const void* pc, bool is_return_address, char* text, size_t size) {
    snprintf(text, size, "an unknown line (build with -g, or emucc --sanitize, for line numbers)");
    char exe[4096];
    ssize_t length = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (length <= 0) return;
    exe[length] = 0;
    char command[4300];
    snprintf(command, sizeof command, "addr2line -i -e '%s' 0x%lx 2>/dev/null", exe,
             (unsigned long)(reinterpret_cast<uintptr_t>(pc) - (is_return_address ? 1 : 0) -
                             program_base()));
    FILE* pipe = popen(command, "r");
    if (!pipe) return;
    char line[1024];
    bool found = false;
    while (fgets(line, sizeof line, pipe)) {
        line[strcspn(line, "\n")] = 0;
        size_t length = strlen(line);
        bool unknown = strncmp(line, "??", 2) == 0 ||
                       (length >= 2 && line[length - 2] == ':' &&
                        (line[length - 1] == '?' || line[length - 1] == '0'));
        if (found || unknown) continue;
        char* discriminator = strstr(line, " (discriminator");
        if (discriminator) *discriminator = 0;
        // paths relative to where the program runs, as the compiler was given them
        char here[4096];
        const char* shown = line;
        if (getcwd(here, sizeof here) && strncmp(line, here, strlen(here)) == 0 &&
            line[strlen(here)] == '/')
            shown = line + strlen(here) + 1;
        snprintf(text, size, "%s", shown);
        found = strstr(line, "/emu/include/") == nullptr;
    }
    pclose(pipe);
}

namespace {

void source_line(const void* pc, char* text, size_t size) { code_line(pc, true, text, size); }

void thread_text(uint16_t linear, char* text, size_t size) {
    unsigned x = blockDim.x, y = blockDim.y;
    snprintf(text, size, "(%u,%u,%u)", linear % x, linear / x % y, linear / (x * y));
}

const char* kernel_name() {
    Location where = current_location();
    return where.kernel ? where.kernel : "?";
}

// "kernel K, block (x,y,z), thread (x,y,z), at file:line" for one access of the running block.
void describe_access(uint16_t thread, const void* pc, char* text, size_t size) {
    char thread_index[48], line[1100];
    thread_text(thread, thread_index, sizeof thread_index);
    source_line(pc, line, sizeof line);
    snprintf(text, size, "kernel %s, block (%u,%u,%u), thread %s, at %s", kernel_name(), blockIdx.x,
             blockIdx.y, blockIdx.z, thread_index, line);
}

[[noreturn]] void report_race(const Access& earlier, bool earlier_writes, const Access& now,
                              bool now_writes, bool same_warp) {
    claim_report();
    char block[48], first[48], second[48], first_line[1100], second_line[1100];
    snprintf(block, sizeof block, "(%u,%u,%u)", blockIdx.x, blockIdx.y, blockIdx.z);
    thread_text(earlier.thread, first, sizeof first);
    thread_text(now.thread, second, sizeof second);
    source_line(earlier.pc, first_line, sizeof first_line);
    source_line(now.pc, second_line, sizeof second_line);
    report("data race on shared memory in kernel %s, block %s:", kernel_name(), block);
    report("  thread %s %s at %s", first, earlier_writes ? "writes" : "reads", first_line);
    report("  thread %s %s at %s", second, now_writes ? "writes" : "reads", second_line);
    if (same_warp)
        report("both in one warp, with no __syncwarp() between: the threads of a warp do not run "
               "in lockstep (since Volta); put __syncwarp() between the two, or use __shfl_*_sync");
    else
        report("with no __syncthreads() between: on a GPU the result depends on which thread "
               "runs first; put a __syncthreads() between the write and the read");
    die();
}

// A race inside one warp is reported when the block ends, unless a race between warps (a
// missing __syncthreads, the likelier mistake) shows up first: code that lacks a
// __syncthreads usually races inside warps too, and the first pair found is often in one warp.
struct PendingRace {
    bool pending;
    Access earlier, now;
    bool earlier_writes, now_writes;
};
thread_local PendingRace warp_race;
// Likewise a read of a word nobody wrote yet: in reverse order the reader of a missing
// __syncthreads often runs before the writer, and the race is the better report.
thread_local Access uninitialized_read;

void race(const Access& earlier, bool earlier_writes, const Access& now, bool now_writes,
          bool same_warp) {
    if (!same_warp) report_race(earlier, earlier_writes, now, now_writes, false);
    if (!warp_race.pending) warp_race = PendingRace{true, earlier, now, earlier_writes, now_writes};
}

[[noreturn]] void report_uninitialized(const Access& read) {
    claim_report();
    char where[1300];
    describe_access(read.thread, read.pc, where, sizeof where);
    report("read of shared memory that no thread of the block has written, in %s", where);
    report("shared memory starts undefined in every block: write it (and __syncthreads()) "
           "before reading it");
    die();
}

// An access to a gap the rewriter put after the __shared__ variables: past the end of the
// variable below it, usually.
[[noreturn]] void report_outside_static(const void* pc, const char* address, bool writes) {
    claim_report();
    char where[1300], which[256] = "in no __shared__ variable";
    describe_access((uint16_t)sanitize_state.thread, pc, where, sizeof where);
    const Extent* below = nullptr;
    for (const Extent& e : extents)
        if (e.name && e.start + e.size <= address && (!below || e.start > below->start)) below = &e;
    if (below && address == below->start + below->size)
        snprintf(which, sizeof which, "the first byte past the end of __shared__ %s (%zu bytes)",
                 below->name, below->size);
    else if (below)
        snprintf(which, sizeof which, "%lld bytes past the end of __shared__ %s (%zu bytes)",
                 (long long)(address - (below->start + below->size)), below->name, below->size);
    report("out-of-bounds %s of shared memory in %s: %s", writes ? "write" : "read", where, which);
    die();
}

[[noreturn]] void report_unwritten_global(const void* pc, const Tracked& t, const char* address) {
    claim_report();
    char where[1300];
    describe_access((uint16_t)sanitize_state.thread, pc, where, sizeof where);
    report("read of device memory that nothing wrote (no copy, memset or kernel), in %s: byte "
           "offset %lld of a %zu-byte allocation made at %s:%d", where,
           (long long)(address - t.start), t.size, t.file, t.line);
    die();
}

void check_global(const char* a, size_t size, bool writes, const void* pc) {
    Tracked* t = tracked_at(a);
    if (!t || t->written.empty()) return;
    size_t first = (size_t)(a - t->start);
    size_t end = std::min(first + size, t->size);
    if (writes) {
        memset(t->written.data() + first, 1, end - first);
        return;
    }
    for (size_t i = first; i < end; i++)
        if (!t->written[i]) report_unwritten_global(pc, *t, a + (i - first));
}

[[noreturn]] void report_out_of_bounds(const void* pc, const char* address, bool writes) {
    claim_report();
    char where[1300];
    describe_access((uint16_t)sanitize_state.thread, pc, where, sizeof where);
    report("out-of-bounds %s of dynamic shared memory in %s: byte offset %ld of %zu bytes (the "
           "launch's third <<<>>> argument)", writes ? "write" : "read", where,
           (long)(address - dynamic_region.start), dynamic_region.size);
    die();
}

// ---- The check ----------------------------------------------------------------------------------

// True when nothing orders the earlier access before the current thread's: same block, same
// barrier generation, and, within one warp, no warp barrier since; between warps, no sync() since
// of a tile that holds both.
bool unordered(const Access& earlier, bool* same_warp) {
    const SanitizeState& s = sanitize_state;
    if (!earlier.pc || earlier.block_serial != s.block_serial || earlier.thread == s.thread ||
        earlier.block_epoch != s.block_epoch)
        return false;
    *same_warp = earlier.thread / 32 == s.thread / 32;
    if (!*same_warp)
        return last_tile_barrier[earlier.thread / 32][s.thread / 32] <= earlier.tile_barrier;
    return earlier.warp_epoch == s.warp_epoch[s.thread / 32];
}

// An earlier access that nothing orders before this one and that touched some of its bytes.
bool conflicts(const Access& earlier, uint8_t bytes, bool* same_warp) {
    return (earlier.bytes & bytes) && unordered(earlier, same_warp);
}

void check_word(Word& word, bool writes, const void* pc, uint8_t bytes) {
    const SanitizeState& s = sanitize_state;
    Access now{pc, s.block_serial, s.block_epoch, s.warp_epoch[s.thread / 32], s.tile_barriers,
               (uint16_t)s.thread, bytes};
    bool same_warp = false;
    if (conflicts(word.write, bytes, &same_warp)) race(word.write, true, now, writes, same_warp);
    if (conflicts(word.other_write, bytes, &same_warp))
        race(word.other_write, true, now, writes, same_warp);
    if (writes) {
        if (conflicts(word.read, bytes, &same_warp)) race(word.read, false, now, true, same_warp);
        if (conflicts(word.other_read, bytes, &same_warp))
            race(word.other_read, false, now, true, same_warp);
        if (word.write.block_serial == s.block_serial && word.write.thread != now.thread &&
            word.write.block_epoch == now.block_epoch)
            word.other_write = word.write;
        word.write = now;
        word.written_serial = s.block_serial;
        return;
    }
    if (word.written_serial != s.block_serial && !uninitialized_read.pc)
        uninitialized_read =
            Access{pc, s.block_serial, s.block_epoch, 0, 0, (uint16_t)s.thread, bytes};
    if (word.read.block_serial == s.block_serial && word.read.thread != now.thread &&
        word.read.block_epoch == now.block_epoch)
        word.other_read = word.read;
    word.read = now;
}

inline void check(const void* address, size_t size, bool writes, const void* pc) {
    if (!sanitize_state.in_block) return;
    if (profile_enabled) {
        profile_access(address, size, writes, pc);
        if (!sanitize_enabled) return;
    }
    const char* a = static_cast<const char*>(address);
    if (!regions_known) learn_regions();
    Region* region = nullptr;
    if (a >= static_region.start && a < static_region.start + static_region.size) {
        if (is_emulator_variable(a)) return;
        // only the registered __shared__ variables are shared memory; the gaps the rewriter puts
        // after them (name null) are red zones; other thread_locals are the program's own
        const Extent* extent = extent_at(a);
        if (!extent) return;
        if (!extent->name) report_outside_static(pc, a, writes);
        region = &static_region;
    } else if (dynamic_region.start && a >= dynamic_region.start &&
               a < dynamic_region.start + dynamic_region.size + sanitize_red_zone) {
        // the scheduler allocates the red zone after the buffer (run_blocks)
        if (a + size > dynamic_region.start + dynamic_region.size)
            report_out_of_bounds(pc, a, writes);
        region = &dynamic_region;
    } else {
        // device memory; or the stack, constants, host memory: not tracked
        if (!tracked.empty()) check_global(a, size, writes, pc);
        return;
    }
    size_t offset = (size_t)(a - region->start);
    size_t first = offset / word_bytes, last = (offset + size - 1) / word_bytes;
    for (size_t w = first; w <= last && w < region->shadow.size(); w++) {
        // the bytes of word w inside [offset, offset + size), as bits
        size_t low = std::max(offset, w * word_bytes);
        size_t high = std::min(offset + size, (w + 1) * word_bytes);
        uint8_t bytes = (uint8_t)(((1u << (high - low)) - 1) << (low - w * word_bytes));
        check_word(region->shadow[w], writes, pc, bytes);
    }
}

// A load or store of 2, 4, 8 or 16 bytes whose type promises an address that is a multiple of
// its size: an int, a float, a float4 or a uchar4 reached through a pointer of its type. A GPU
// stops the kernel when the address is not (cudaErrorMisalignedAddress); a CPU does it without
// a word, so the emulator checks, in device memory and shared memory. The compilers call
// __tsan_readN or __tsan_writeN for these, and __tsan_unaligned_readN for accesses they know
// may be misaligned (packed data, bytes they merged): only the first are checked.
[[noreturn]] void report_misaligned(const void* pc, const char* a, size_t size, bool writes,
                                    const char* memory) {
    claim_report();
    char where[1300];
    describe_access((uint16_t)sanitize_state.thread, pc, where, sizeof where);
    unsigned long past = (unsigned long)((uintptr_t)a % size);
    report("misaligned %zu-byte %s in %s: %s, %lu byte%s past a multiple of %zu", size,
           writes ? "write" : "read", where, memory, past, past == 1 ? "" : "s", size);
    report("a GPU stops the kernel here (cudaErrorMisalignedAddress): a %zu-byte type needs an "
           "address that is a multiple of %zu; read such data a byte at a time, or start the "
           "vector on a multiple of its size", size, size);
    die();
}

void check_alignment(const char* a, size_t size, bool writes, const void* pc) {
    if (!regions_known) learn_regions();
    char memory[320];
    if (a >= static_region.start && a < static_region.start + static_region.size) {
        const Extent* extent = is_emulator_variable(a) ? nullptr : extent_at(a);
        if (!extent || !extent->name) return;  // not shared memory, or a red zone (reported)
        snprintf(memory, sizeof memory, "byte offset %lld of __shared__ %s",
                 (long long)(a - extent->start), extent->name);
    } else if (dynamic_region.start && a >= dynamic_region.start &&
               a < dynamic_region.start + dynamic_region.size) {
        snprintf(memory, sizeof memory, "byte offset %lld of dynamic shared memory",
                 (long long)(a - dynamic_region.start));
    } else if (const Tracked* t = tracked_at(a)) {
        snprintf(memory, sizeof memory, "byte offset %lld of a %zu-byte allocation made at %s:%d",
                 (long long)(a - t->start), t->size, t->file, t->line);
    } else {
        return;  // the stack, constants, host memory
    }
    report_misaligned(pc, a, size, writes, memory);
}

// The accesses whose type promises alignment: checked for it, then as any other.
inline void check_aligned(const void* address, size_t size, bool writes, const void* pc) {
    if (sanitize_enabled && sanitize_state.in_block && ((uintptr_t)address & (size - 1)))
        check_alignment(static_cast<const char*>(address), size, writes, pc);
    check(address, size, writes, pc);
}

}  // namespace

// A whole vector (float4, int2, ...) copied by one instruction: cuda_emu/types.h. Its type
// promises alignment (a float4 on a multiple of 16, an int2 of 8).
void vector_access(const void* address, unsigned long size, bool writes, const void* pc) {
    if ((size & (size - 1)) == 0)
        check_aligned(address, size, writes, pc);
    else
        check(address, size, writes, pc);
}

void sanitize_track(const void* start, size_t size, const char* file, int line, bool watch_writes) {
    tracked.push_back(Tracked{static_cast<const char*>(start), size,
                              std::vector<unsigned char>(watch_writes ? size : 0, 0), file, line});
}

Space memory_space(const void* address, const char** base) {
    const char* a = static_cast<const char*>(address);
    if (!regions_known) learn_regions();
    if (a >= static_region.start && a < static_region.start + static_region.size) {
        if (is_emulator_variable(a)) return Space::none;
        const Extent* extent = extent_at(a);
        return extent && extent->name ? Space::shared : Space::none;
    }
    if (a >= dynamic_region.start && a < dynamic_region.start + dynamic_region.size)
        return Space::shared;
    if (const Tracked* t = tracked_at(a)) {
        *base = t->start;
        return Space::global;
    }
    return Space::none;
}

void sanitize_untrack(const void* start) {
    for (size_t i = 0; i < tracked.size(); i++)
        if (tracked[i].start == start) {
            tracked.erase(tracked.begin() + (long)i);
            return;
        }
}

void sanitize_mark_written(const void* start, size_t size) {
    const char* a = static_cast<const char*>(start);
    Tracked* t = tracked_at(a);
    if (!t || t->written.empty()) return;
    size_t first = (size_t)(a - t->start);
    memset(t->written.data() + first, 1, std::min(size, t->size - first));
}

void shared_extent_here(const void* start, size_t size, const char* name) {
    const char* a = static_cast<const char*>(start);
    if (profile_enabled && name && sanitize_state.in_block) profile_static_shared(start, size);
    if (!extents.empty() && extents.back().start == a) return;  // the usual case: known
    for (const Extent& e : extents)
        if (e.start == a) return;
    extents.push_back(Extent{a, size, name});
}

void sanitize_tile_barrier(unsigned first_warp, unsigned count) {
    uint32_t number = ++sanitize_state.tile_barriers;
    for (unsigned a = first_warp; a < first_warp + count; a++) {
        sanitize_state.warp_epoch[a]++;  // it orders the lanes of each of its warps as well
        for (unsigned b = first_warp; b < first_warp + count; b++) last_tile_barrier[a][b] = number;
    }
}

// Called by the scheduler when a block's threads have all finished.
void sanitize_block_end() {
    if (warp_race.pending) {
        const PendingRace r = warp_race;
        report_race(r.earlier, r.earlier_writes, r.now, r.now_writes, true);
    }
    if (uninitialized_read.pc) report_uninitialized(uninitialized_read);
}

// Called by the scheduler when a worker starts a block (the dynamic buffer may have moved).
void sanitize_block_start(char* dynamic_base, size_t dynamic_bytes) {
    sanitize_state.block_serial++;
    if (sanitize_state.block_serial == 0) sanitize_state.block_serial = 1;  // 0 means "never"
    sanitize_state.block_epoch = 0;
    memset(sanitize_state.warp_epoch, 0, sizeof sanitize_state.warp_epoch);
    if (sanitize_state.tile_barriers) memset(last_tile_barrier, 0, sizeof last_tile_barrier);
    sanitize_state.tile_barriers = 0;
    if (dynamic_region.start != dynamic_base || dynamic_region.size != dynamic_bytes) {
        dynamic_region.start = dynamic_base;
        dynamic_region.size = dynamic_bytes;
        if (sanitize_enabled) dynamic_region.shadow.assign(dynamic_bytes / word_bytes + 1, Word{});
    }
}

}  // namespace cuda_emu

// ---- The functions the instrumented code calls --------------------------------------------------
using cuda_emu::check;
using cuda_emu::check_aligned;
#define PC __builtin_return_address(0)

extern "C" {
void __tsan_init() {}  // the program's code says what it was built for (enable_checks)
void __tsan_func_entry(void*) {}
void __tsan_func_exit() {}
void __tsan_ignore_thread_begin() {}
void __tsan_ignore_thread_end() {}
void __tsan_vptr_update(void**, void*) {}
void __tsan_vptr_read(void**) {}

#define PLAIN_ACCESS(size)                                                                   \
    void __tsan_read##size(void* a) { check_aligned(a, size, false, PC); }                   \
    void __tsan_write##size(void* a) { check_aligned(a, size, true, PC); }                   \
    void __tsan_unaligned_read##size(void* a) { check(a, size, false, PC); }                 \
    void __tsan_unaligned_write##size(void* a) { check(a, size, true, PC); }                 \
    void __tsan_volatile_read##size(void* a) { check_aligned(a, size, false, PC); }          \
    void __tsan_volatile_write##size(void* a) { check_aligned(a, size, true, PC); }          \
    void __tsan_unaligned_volatile_read##size(void* a) { check(a, size, false, PC); }        \
    void __tsan_unaligned_volatile_write##size(void* a) { check(a, size, true, PC); }        \
    void __tsan_read##size##_pc(void* a, void* pc) { check_aligned(a, size, false, pc); }    \
    void __tsan_write##size##_pc(void* a, void* pc) { check_aligned(a, size, true, pc); }
PLAIN_ACCESS(1)
PLAIN_ACCESS(2)
PLAIN_ACCESS(4)
PLAIN_ACCESS(8)
PLAIN_ACCESS(16)
void __tsan_read_range(void* a, unsigned long size) { check(a, size, false, PC); }
void __tsan_write_range(void* a, unsigned long size) { check(a, size, true, PC); }

// memcpy, memmove and memset. Instrumented code calls __tsan_memcpy for some copies (clang before
// 15), a plain memcpy for others (clang's struct copies, g++'s calls), or copies inline (g++'s
// struct copies, checked as ranges). So emucc links --sanitize and --profile programs with
// -Wl,--wrap=memcpy (and memmove, memset): every call to memcpy in the program comes to
// __wrap_memcpy, which checks it inside a block and then calls the C library's, __real_memcpy.
// Without the wrapping (another link) those are null, and only __tsan_memcpy's copies are checked.
extern "C" __attribute__((weak)) void* __real_memcpy(void*, const void*, size_t);
extern "C" __attribute__((weak)) void* __real_memmove(void*, const void*, size_t);
extern "C" __attribute__((weak)) void* __real_memset(void*, int, size_t);
void* __wrap_memcpy(void* to, const void* from, size_t size) {
    check(from, size, false, PC);
    check(to, size, true, PC);
    return __real_memcpy(to, from, size);
}
void* __wrap_memmove(void* to, const void* from, size_t size) {
    check(from, size, false, PC);
    check(to, size, true, PC);
    return __real_memmove(to, from, size);
}
void* __wrap_memset(void* to, int value, size_t size) {
    check(to, size, true, PC);
    return __real_memset(to, value, size);
}
void* __tsan_memcpy(void* to, const void* from, unsigned long size) {
    check(from, size, false, PC);
    check(to, size, true, PC);
    return __real_memcpy ? __real_memcpy(to, from, size) : memcpy(to, from, size);  // checked once
}
void* __tsan_memmove(void* to, const void* from, unsigned long size) {
    check(from, size, false, PC);
    check(to, size, true, PC);
    return __real_memmove ? __real_memmove(to, from, size) : memmove(to, from, size);
}
void* __tsan_memset(void* to, int value, unsigned long size) {
    check(to, size, true, PC);
    return __real_memset ? __real_memset(to, value, size) : memset(to, value, size);
}

// Atomics are never races (that is what they are for); they do the operation, sequentially
// consistent whatever order was asked for, and count as a write for never-written reads.
void __tsan_atomic_thread_fence(int) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
void __tsan_atomic_signal_fence(int) {}

#define MARK_WRITTEN(a, size) cuda_emu::sanitize_mark_atomic((void*)(a), size)
#define ATOMICS(bits, T)                                                                        \
    T __tsan_atomic##bits##_load(const volatile T* a, int) {                                    \
        return __atomic_load_n(a, __ATOMIC_SEQ_CST);                                            \
    }                                                                                           \
    void __tsan_atomic##bits##_store(volatile T* a, T v, int) {                                 \
        MARK_WRITTEN(a, sizeof(T));                                                             \
        __atomic_store_n(a, v, __ATOMIC_SEQ_CST);                                               \
    }                                                                                           \
    T __tsan_atomic##bits##_exchange(volatile T* a, T v, int) {                                 \
        MARK_WRITTEN(a, sizeof(T));                                                             \
        return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST);                                     \
    }                                                                                           \
    T __tsan_atomic##bits##_fetch_add(volatile T* a, T v, int) {                                \
        MARK_WRITTEN(a, sizeof(T));                                                             \
        return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST);                                      \
    }                                                                                           \
    T __tsan_atomic##bits##_fetch_sub(volatile T* a, T v, int) {                                \
        MARK_WRITTEN(a, sizeof(T));                                                             \
        return __atomic_fetch_sub(a, v, __ATOMIC_SEQ_CST);                                      \
    }                                                                                           \
    T __tsan_atomic##bits##_fetch_and(volatile T* a, T v, int) {                                \
        MARK_WRITTEN(a, sizeof(T));                                                             \
        return __atomic_fetch_and(a, v, __ATOMIC_SEQ_CST);                                      \
    }                                                                                           \
    T __tsan_atomic##bits##_fetch_or(volatile T* a, T v, int) {                                 \
        MARK_WRITTEN(a, sizeof(T));                                                             \
        return __atomic_fetch_or(a, v, __ATOMIC_SEQ_CST);                                       \
    }                                                                                           \
    T __tsan_atomic##bits##_fetch_xor(volatile T* a, T v, int) {                                \
        MARK_WRITTEN(a, sizeof(T));                                                             \
        return __atomic_fetch_xor(a, v, __ATOMIC_SEQ_CST);                                      \
    }                                                                                           \
    T __tsan_atomic##bits##_fetch_nand(volatile T* a, T v, int) {                               \
        MARK_WRITTEN(a, sizeof(T));                                                             \
        return __atomic_fetch_nand(a, v, __ATOMIC_SEQ_CST);                                     \
    }                                                                                           \
    int __tsan_atomic##bits##_compare_exchange_strong(volatile T* a, T* expected, T v, int,     \
                                                      int) {                                    \
        MARK_WRITTEN(a, sizeof(T));                                                             \
        return __atomic_compare_exchange_n(a, expected, v, false, __ATOMIC_SEQ_CST,             \
                                           __ATOMIC_SEQ_CST);                                   \
    }                                                                                           \
    int __tsan_atomic##bits##_compare_exchange_weak(volatile T* a, T* expected, T v, int,       \
                                                    int) {                                      \
        MARK_WRITTEN(a, sizeof(T));                                                             \
        return __atomic_compare_exchange_n(a, expected, v, true, __ATOMIC_SEQ_CST,              \
                                           __ATOMIC_SEQ_CST);                                   \
    }                                                                                           \
    T __tsan_atomic##bits##_compare_exchange_val(volatile T* a, T expected, T v, int, int) {    \
        MARK_WRITTEN(a, sizeof(T));                                                             \
        __atomic_compare_exchange_n(a, &expected, v, false, __ATOMIC_SEQ_CST,                   \
                                    __ATOMIC_SEQ_CST);                                          \
        return expected;                                                                        \
    }
ATOMICS(8, char)
ATOMICS(16, short)
ATOMICS(32, int)
ATOMICS(64, long long)
}  // extern "C"

namespace cuda_emu {
// An atomic on shared memory counts as a write for the never-written check, and races with
// nothing: it is recorded as a write by no thread in particular.
void sanitize_mark_atomic(void* address, size_t size) {
    if (!sanitize_state.in_block || !sanitize_enabled) return;
    char* a = static_cast<char*>(address);
    if (!regions_known) learn_regions();
    Region* region = nullptr;
    if (a >= static_region.start && a < static_region.start + static_region.size)
        region = &static_region;
    else if (a >= dynamic_region.start && a < dynamic_region.start + dynamic_region.size)
        region = &dynamic_region;
    if (!region) {
        sanitize_mark_written(address, size);  // an atomic on device memory writes it
        return;
    }
    size_t word = (size_t)(a - region->start) / word_bytes;
    if (word < region->shadow.size()) region->shadow[word].written_serial = sanitize_state.block_serial;
}
}  // namespace cuda_emu
