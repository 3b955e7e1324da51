// runtime/debug.cpp - the emulator's bug finding: settings, reports, guard pages, the watchdog.
//
// Part of the CPU emulation backend (common/emu/). A GPU tells you little when a kernel is wrong:
// a hang, garbage, or "an illegal memory access was encountered" with no culprit. Here we can do
// better, because every emulated thread is ordinary CPU code:
//   CUDA_EMU_ORDER=forward|reverse|random[:SEED]  order the threads of a block run in between
//                    barriers; a result that changes with the order has a missing barrier.
//   CUDA_EMU_GUARD=1  every device allocation ends at a protected page (to within its 16-byte
//                    alignment), so a byte read or written past its end stops the program with the allocation, the offset and
//                    the block and thread that did it. Freed allocations stay protected, which
//                    catches use after cudaFree or cudaFreeAsync (memory pools then reuse no
//                    block: runtime/pools.cpp).
//   CUDA_EMU_POISON=1 fresh device memory (and dynamic shared memory) is filled with 0xFF bytes,
//                    which read as NaN in floats and -1 in ints, so using uninitialised memory
//                    shows in the results.
//   CUDA_EMU_TIMEOUT=SECONDS  a thread that neither finishes nor reaches a barrier for this long
//                    (default 10, 0 = never) is reported: typically a spin on a flag that another
//                    thread must set, which cannot work when threads take turns (unless the loop
//                    calls __nanosleep(), which gives way to them).
//   CUDA_EMU_WORKERS=N  OS threads that run blocks (default: one per core).
//   CUDA_EMU_DEVICE=t4|a100|rtx3060|rtx4090|l4|h100  the GPU whose SM count, per-SM limits and
//                    compute capability the device reports (default h100; runtime/models.cpp).
//   CUDA_EMU_STACK_KB=N stack of each emulated GPU thread (default 256).
//   CUDA_EMU_REGISTERS=N, CUDA_EMU_LOCAL_BYTES=N  what cudaFuncGetAttributes reports for every
//                    kernel, registers per thread (default 32) and local memory per thread
//                    (default 0), and what the occupancy model assumes: without a GPU compiler
//                    the emulator cannot know them, so these ask "what if a kernel used this many?"
//   CUDA_EMU_PROFILE_CSV=FILE, CUDA_EMU_PROFILE_LINES=1  (a program built with emucc --profile)
//                    its figures as CSV too; its tables per source line too
// Crashes inside a kernel (bad pointer, stack overflow, division by zero) are reported with the
// kernel, block and thread. Every report starts with "cuda-emu: " and the program exits with 1;
// a CUDA_EMU_* value that is not understood is a usage error, reported in one line with exit 2.
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include <pthread.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "internal.h"

extern char** environ;  // the process's environment (POSIX), for refuse_unknown_settings

namespace cuda_emu {

// ---- Settings -----------------------------------------------------------------------------------
namespace {

// A setting the emulator cannot read is a usage error, like a bad command-line option: one
// line and exit status 2, before any kernel runs with a setting the user did not mean.
[[noreturn]] void bad_setting(const char* name, const char* value, const char* expected) {
    report("%s=%.40s is not understood; expected %s", name, value, expected);
    fflush(stdout);
    _exit(2);
}

// Every CUDA_EMU_* variable the emulator knows (CUDA_EMU_CACHE is emucc's, at compile time).
const char* const known_settings[] = {"CUDA_EMU_ORDER",     "CUDA_EMU_GUARD",    "CUDA_EMU_POISON",
                                      "CUDA_EMU_TIMEOUT",   "CUDA_EMU_WORKERS",  "CUDA_EMU_DEVICE",
                                      "CUDA_EMU_STACK_KB",  "CUDA_EMU_REGISTERS", "CUDA_EMU_LOCAL_BYTES",
                                      "CUDA_EMU_CACHE",     "CUDA_EMU_PROFILE_CSV", "CUDA_EMU_PROFILE_LINES"};

// A misspelt setting (CUDA_EMU_GAURD=1) would otherwise be ignored without a word.
void refuse_unknown_settings() {
    for (char** variable = environ; *variable; variable++) {
        if (strncmp(*variable, "CUDA_EMU_", 9) != 0) continue;
        size_t length = strcspn(*variable, "=");
        bool known = false;
        for (const char* name : known_settings)
            known |= strlen(name) == length && strncmp(*variable, name, length) == 0;
        if (!known) {
            report("%.*s is not a setting of the emulator; the settings are CUDA_EMU_ORDER, "
                   "CUDA_EMU_GUARD, CUDA_EMU_POISON, CUDA_EMU_TIMEOUT, CUDA_EMU_WORKERS, "
                   "CUDA_EMU_DEVICE, CUDA_EMU_STACK_KB, CUDA_EMU_REGISTERS, CUDA_EMU_LOCAL_BYTES, "
                   "CUDA_EMU_PROFILE_CSV and CUDA_EMU_PROFILE_LINES (emucc --help)",
                   (int)(length < 40 ? length : 40), *variable);
            fflush(stdout);
            _exit(2);
        }
    }
}

long read_number(const char* name, long low, long high, long fallback) {
    const char* text = getenv(name);
    if (!text || !*text) return fallback;
    char* end;
    long value = strtol(text, &end, 10);
    if (*end || value < low || value > high) {
        char expected[64];
        snprintf(expected, sizeof expected, "a whole number from %ld to %ld", low, high);
        bad_setting(name, text, expected);
    }
    return value;
}

Settings read_settings() {
    refuse_unknown_settings();
    Settings s;
    if (const char* order = getenv("CUDA_EMU_ORDER"); order && *order) {
        if (strcmp(order, "forward") == 0) {
            s.order = Order::forward;
        } else if (strcmp(order, "reverse") == 0) {
            s.order = Order::reverse;
        } else if (strncmp(order, "random", 6) == 0 && (order[6] == 0 || order[6] == ':')) {
            s.order = Order::random;
            if (order[6] == ':') {
                char* end;
                s.seed = strtoull(order + 7, &end, 10);
                if (*end || end == order + 7) bad_setting("CUDA_EMU_ORDER", order, "random:NUMBER");
            } else {
                // A fresh order each run; print the seed so a failing order can be repeated.
                s.seed = (uint64_t)std::chrono::steady_clock::now().time_since_epoch().count() % 1000000;
                fprintf(stderr, "cuda-emu: thread order random:%llu (CUDA_EMU_ORDER=random:%llu repeats it)\n",
                        (unsigned long long)s.seed, (unsigned long long)s.seed);
            }
        } else {
            bad_setting("CUDA_EMU_ORDER", order, "forward, reverse, random or random:SEED");
        }
    }
    s.guard = read_number("CUDA_EMU_GUARD", 0, 1, 0) != 0;
    s.poison = read_number("CUDA_EMU_POISON", 0, 1, 0) != 0;
    long cores = (long)std::thread::hardware_concurrency();
    s.workers = (int)read_number("CUDA_EMU_WORKERS", 1, 1024, cores > 0 ? cores : 1);
    const char* device = getenv("CUDA_EMU_DEVICE");
    s.device = find_device_model(device && *device ? device : default_device_model);
    if (!s.device) bad_setting("CUDA_EMU_DEVICE", device, device_model_names);
    s.timeout_seconds = (double)read_number("CUDA_EMU_TIMEOUT", 0, 86400, 10);
    s.stack_bytes = (size_t)read_number("CUDA_EMU_STACK_KB", 16, 1 << 20, 256) * 1024;
    // A GPU thread has at most 255 registers and 512 KiB of local memory.
    s.registers_per_thread = (int)read_number("CUDA_EMU_REGISTERS", 1, 255, 32);
    s.local_bytes_per_thread = (size_t)read_number("CUDA_EMU_LOCAL_BYTES", 0, 512 * 1024, 0);
    s.profile_lines = read_number("CUDA_EMU_PROFILE_LINES", 0, 1, 0) != 0;
    return s;
}

}  // namespace

const Settings& settings() {
    static const Settings s = read_settings();
    return s;
}

// ---- Reports ------------------------------------------------------------------------------------
// Built with snprintf and written with write(2), so they also work inside a signal handler.
namespace {
void vreport(const char* format, va_list args) {
    char text[1024] = "cuda-emu: ";
    size_t prefix = strlen(text);
    vsnprintf(text + prefix, sizeof text - prefix - 1, format, args);
    size_t length = strlen(text);
    text[length++] = '\n';
    ssize_t ignored = write(STDERR_FILENO, text, length);
    (void)ignored;
}
}  // namespace

void report(const char* format, ...) {
    va_list args;
    va_start(args, format);
    vreport(format, args);
    va_end(args);
}

void claim_report() {
    static std::atomic<bool> claimed{false};
    static thread_local bool mine = false;
    if (mine) return;
    if (claimed.exchange(true))
        for (;;) pause();
    mine = true;
}

void die() {
    fflush(stdout);  // keep what the program printed before the report
    _exit(1);
}

void fatal(const char* format, ...) {
    claim_report();
    va_list args;
    va_start(args, format);
    vreport(format, args);
    va_end(args);
    die();
}

void describe(const Location& where, char* text, size_t size) {
    if (!where.kernel) {
        snprintf(text, size, "host code");
        return;
    }
    snprintf(text, size, "kernel %s, block (%u,%u,%u), thread (%u,%u,%u)", where.kernel,
             where.block.x, where.block.y, where.block.z, where.thread.x, where.thread.y,
             where.thread.z);
}

// ---- Guarded allocations and stack guard pages ------------------------------------------------------
// Fixed tables, never shrunk, so the fault handler can read them without locks. A guarded
// allocation's slot is kept for good (its pages stay protected after the free, to catch a use
// after it); a graph allocation's slot is given back when no graph refers to it any more (its
// mapping_size is 0 while free, which no address matches).
namespace {
struct Guarded {
    char* data;
    size_t size;
    char* mapping;
    size_t mapping_size;
    const char* file;
    int line;
    std::atomic<bool> freed;
    bool graph;  // a graph allocation's range (graph_region_reserve)
};
constexpr int max_guarded = 1 << 16;
Guarded guarded[max_guarded];
std::atomic<int> guarded_count{0};
std::mutex guarded_slots_mutex;
std::vector<int> free_guarded_slots;  // given back by graph_region_release

// The guard page below each GPU thread's stack. Workers make stacks at once, and a thread that
// ends gives its stacks back: slots are taken and freed under a lock, and the fault handler reads
// them without one (an empty slot's page is null).
struct StackGuard {
    std::atomic<char*> page{nullptr};
    size_t size;
};
constexpr int max_stack_guards = 1 << 16;
StackGuard stack_guards[max_stack_guards];
std::atomic<int> stack_guard_count{0};
std::mutex stack_guards_mutex;
std::vector<int> free_stack_guards;
// The host thread's own stack, on which a block's threads start as plain calls (scheduler.cpp):
// its lowest address and its size, to tell an overflow of it from a wild pointer.
thread_local char* host_stack_low;
thread_local size_t host_stack_size;
}  // namespace

void register_stack_guard(void* page, size_t size) {
    std::lock_guard<std::mutex> lock(stack_guards_mutex);
    int slot;
    if (!free_stack_guards.empty()) {
        slot = free_stack_guards.back();
        free_stack_guards.pop_back();
    } else {
        slot = stack_guard_count.load();
        if (slot >= max_stack_guards) return;  // an overflow there is reported as a crash
        stack_guard_count.store(slot + 1);
    }
    stack_guards[slot].size = size;
    stack_guards[slot].page.store((char*)page);
}

void unregister_stack_guard(void* page) {
    std::lock_guard<std::mutex> lock(stack_guards_mutex);
    int count = stack_guard_count.load();
    for (int i = 0; i < count; i++)
        if (stack_guards[i].page.load() == page) {
            stack_guards[i].page.store(nullptr);
            free_stack_guards.push_back(i);
            return;
        }
}

namespace {

// A slot of the table: one given back if there is one, else the next unused.
int take_guarded_slot(const char* what) {
    static int next = 0;
    std::lock_guard<std::mutex> lock(guarded_slots_mutex);
    if (!free_guarded_slots.empty()) {
        int slot = free_guarded_slots.back();
        free_guarded_slots.pop_back();
        return slot;
    }
    if (next >= max_guarded) fatal("%s: at most %d allocations at once", what, max_guarded);
    return next++;
}

// Maps the pages for `size` bytes between two protected pages, and records them in `slot`.
void* map_guarded(int slot, size_t size, const char* file, int line, bool graph) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t data_pages = (size + page - 1) / page;
    size_t mapping_size = (data_pages + 2) * page;
    char* mapping = (char*)mmap(nullptr, mapping_size, PROT_READ | PROT_WRITE,
                                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapping == MAP_FAILED) {
        std::lock_guard<std::mutex> lock(guarded_slots_mutex);
        free_guarded_slots.push_back(slot);
        return nullptr;
    }
    mprotect(mapping, page, PROT_NONE);
    mprotect(mapping + page + data_pages * page, page, PROT_NONE);
    // The data ends as close to the protected page as alignment allows, so an access past the
    // end faults. It starts aligned to the largest power of two dividing its size, between 16
    // and 256: an array of T has a size that is a multiple of alignof(T), so its elements stay
    // aligned, and kernels may still read a float array as float4 (16 bytes), as they may on a
    // GPU, where cudaMalloc aligns to 256. The price: when the size is not a multiple of 16, an
    // overrun into the few bytes between its end and the next 16-byte boundary goes unnoticed.
    size_t alignment = size ? (size & (~size + 1)) : 256;
    if (alignment < 16) alignment = 16;
    if (alignment > 256) alignment = 256;
    char* end = mapping + page + data_pages * page;
    char* data = (char*)((uintptr_t)(end - size) & ~(uintptr_t)(alignment - 1));
    Guarded& g = guarded[slot];
    g.data = data;
    g.size = size;
    g.mapping = mapping;
    g.file = file;
    g.line = line;
    g.graph = graph;
    g.freed.store(false);
    g.mapping_size = mapping_size;  // last: from here on the fault handler matches the range
    int count = guarded_count.load();
    while (count < slot + 1 && !guarded_count.compare_exchange_weak(count, slot + 1)) {
    }
    return data;
}

Guarded* find_graph_region(const void* data) {
    int count = guarded_count.load();
    for (int i = 0; i < count; i++)
        if (guarded[i].graph && guarded[i].mapping_size && guarded[i].data == data) return &guarded[i];
    return nullptr;
}

// The whole pages that hold the data (the protected page on each side excluded).
void data_pages(const Guarded& g, char** start, size_t* length) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    *start = g.mapping + page;
    *length = g.mapping_size - 2 * page;
}

}  // namespace

void* guarded_alloc(size_t size, const char* file, int line) {
    return map_guarded(take_guarded_slot("CUDA_EMU_GUARD=1"), size, file, line, false);
}

// Graph memory: reserved closed, as an allocation not made yet.
void* graph_region_reserve(size_t size, const char* file, int line) {
    int slot = take_guarded_slot("graph memory nodes");
    void* data = map_guarded(slot, size, file, line, true);
    if (data) graph_region_close(data);
    return data;
}

// The alloc node made at file:line runs; faults name it (several may share one address range).
void graph_region_open(void* data, const char* file, int line) {
    Guarded* g = find_graph_region(data);
    g->file = file;
    g->line = line;
    char* start;
    size_t length;
    data_pages(*g, &start, &length);
    mprotect(start, length, PROT_READ | PROT_WRITE);
    g->freed.store(false);
}

// The pages go back to the system (a later open finds them zeroed); the range stays reserved.
void graph_region_close(void* data) {
    Guarded* g = find_graph_region(data);
    char* start;
    size_t length;
    data_pages(*g, &start, &length);
    g->freed.store(true);
    madvise(start, length, MADV_DONTNEED);
    mprotect(start, length, PROT_NONE);
}

void graph_region_release(void* data) {
    Guarded* g = find_graph_region(data);
    char* mapping = g->mapping;
    size_t mapping_size = g->mapping_size;
    g->mapping_size = 0;
    munmap(mapping, mapping_size);
    std::lock_guard<std::mutex> lock(guarded_slots_mutex);
    free_guarded_slots.push_back((int)(g - guarded));
}

void guarded_free(void* ptr) {
    int count = guarded_count.load();
    for (int i = 0; i < count; i++) {
        Guarded& g = guarded[i];
        if (!g.graph && g.data == ptr && !g.freed.load()) {
            // Keep the pages reserved but inaccessible: a later access is a use after free.
            mprotect(g.mapping, g.mapping_size, PROT_NONE);
            g.freed.store(true);
            return;
        }
    }
}

// ---- Fault and watchdog handlers -------------------------------------------------------------------
namespace {

// What the processor tells the signal handler about a memory fault: whether the instruction
// read or wrote ("access" where it does not say), and where the instruction is (nullptr where
// unknown). Each processor keeps these in its own place in the signal's context.
#if defined(__aarch64__)
// The kernel appends records to an aarch64 signal frame (asm/sigcontext.h). The one tagged
// ESR_MAGIC holds the exception syndrome: for a data abort (exception class 0x24 or 0x25) its
// bit 6, WnR, is set for a write.
struct aarch64_record {
    uint32_t magic, size;
};
const uint32_t aarch64_esr_magic = 0x45535201;

bool aarch64_syndrome(void* context, uint64_t* syndrome) {
    const unsigned char* records = ((ucontext_t*)context)->uc_mcontext.__reserved;
    size_t offset = 0, room = sizeof ((ucontext_t*)context)->uc_mcontext.__reserved;
    while (offset + sizeof(aarch64_record) <= room) {
        aarch64_record head;
        memcpy(&head, records + offset, sizeof head);
        if (head.magic == 0 || head.size < sizeof head || head.size > room - offset) return false;
        if (head.magic == aarch64_esr_magic && head.size >= sizeof head + sizeof *syndrome) {
            memcpy(syndrome, records + offset + sizeof head, sizeof *syndrome);
            return true;
        }
        offset += head.size;
    }
    return false;
}
#endif

const char* fault_access(void* context) {
#if defined(__x86_64__) && defined(REG_ERR)
    // Bit 1 of the page-fault error code is set for writes.
    return (((ucontext_t*)context)->uc_mcontext.gregs[REG_ERR] & 2) ? "write" : "read";
#elif defined(__aarch64__)
    uint64_t syndrome;
    unsigned exception_class = 0;
    if (aarch64_syndrome(context, &syndrome)) exception_class = (unsigned)(syndrome >> 26) & 0x3f;
    if (exception_class == 0x24 || exception_class == 0x25)
        return (syndrome >> 6) & 1 ? "write" : "read";
    return "access";
#elif defined(__arm__)
    // 32-bit Arm: bit 11 of error_code, WnR, is set for a write. A 32-bit kernel puts the whole
    // fault status there and 14 in trap_no (so a clear bit means a read); a 64-bit kernel
    // running a 32-bit program puts only that bit, and 0 in trap_no.
    const mcontext_t& registers = ((ucontext_t*)context)->uc_mcontext;
    if ((registers.error_code >> 11) & 1) return "write";
    return registers.trap_no == 14 ? "read" : "access";
#else
    (void)context;
    return "access";
#endif
}

const void* fault_pc(void* context) {
#if defined(__x86_64__) && defined(REG_RIP)
    return (const void*)((ucontext_t*)context)->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    return (const void*)((ucontext_t*)context)->uc_mcontext.pc;
#elif defined(__arm__)
    return (const void*)((ucontext_t*)context)->uc_mcontext.arm_pc;
#elif defined(__riscv) && defined(REG_PC)
    return (const void*)((ucontext_t*)context)->uc_mcontext.__gregs[REG_PC];
#else
    (void)context;
    return nullptr;
#endif
}

void report_fault(int signal_number, siginfo_t* info, void* context) {
    char where_text[256];
    describe(current_location(), where_text, sizeof where_text);
    char* address = (char*)info->si_addr;
    if (signal_number == SIGFPE) fatal("arithmetic error (integer division by zero?) in %s", where_text);
    if (signal_number == SIGILL) fatal("illegal instruction in %s", where_text);
    if (signal_number == SIGABRT) fatal("the program aborted (a failed assert?) in %s", where_text);

    const char* access = fault_access(context);
    if (signal_number == SIGSEGV) {
        // pinned memory that a cudaMemcpyAsync the host has not waited for still uses
        bool by_host = !current_location().kernel && emulator_access == 0;
        EarlyAccess early;
        switch (in_flight_copy_fault(address, by_host, strcmp(access, "read") != 0, &early)) {
        case CopyFault::go_on:
            return;  // the access runs again, its page open
        case CopyFault::too_early: {
            char line[1100], stream[64];
            if (const void* pc = fault_pc(context))
                code_line(pc, false, line, sizeof line);
            else
                snprintf(line, sizeof line, "an unknown line");
            if (early.stream)
                snprintf(stream, sizeof stream, "stream %p", (void*)early.stream);
            else
                snprintf(stream, sizeof stream, "the default stream");
            fatal("host %s of pinned memory that a cudaMemcpyAsync in %s %s, at %s: byte %zu of the "
                  "%zu bytes it copies %s a %zu-byte pinned buffer. The host has not waited for that copy: "
                  "on a GPU it may still be running, %s. Wait for it first: cudaStreamSynchronize, "
                  "cudaEventSynchronize or cudaDeviceSynchronize",
                  early.into_host ? access : "write", stream,
                  early.into_host ? "is still copying into (device to host)"
                                  : "is still copying from (host to device)",
                  line, early.offset, early.count, early.into_host ? "into" : "from",
                  early.buffer_size,
                  early.into_host ? "and these bytes may not hold its results yet"
                                  : "and may send the new bytes instead of the old");
        }
        case CopyFault::not_ours:
            break;
        }
    }
    int stacks = stack_guard_count.load();
    for (int i = 0; i < stacks; i++) {
        char* guard = stack_guards[i].page.load();
        if (guard && address >= guard && address < guard + stack_guards[i].size)
            fatal("stack overflow in %s: a GPU thread used more than %zu KiB of stack (large local "
                  "arrays or deep recursion); CUDA_EMU_STACK_KB raises the limit",
                  where_text, settings().stack_bytes / 1024);
    }
    // Below the host thread's stack: its guard page, or past it by a large frame
    if (host_stack_low && address < host_stack_low && address + 64 * 1024 >= host_stack_low)
        fatal("stack overflow in %s: the %zu KiB of stack of the host thread it ran on ran out (large "
              "local arrays or deep recursion)", where_text, host_stack_size / 1024);
    int count = guarded_count.load();
    for (int i = 0; i < count; i++) {
        const Guarded& g = guarded[i];
        if (address < g.mapping || address >= g.mapping + g.mapping_size) continue;
        long long offset = (long long)(address - g.data);
        char relation[64], line[1100];
        if (const void* pc = fault_pc(context))
            code_line(pc, false, line, sizeof line);
        else
            snprintf(line, sizeof line, "an unknown line");
        if (g.graph && g.freed.load())
            fatal("%s of graph memory outside its lifetime in %s at %s: byte %lld of a %zu-byte "
                  "allocation whose memory alloc node was made at %s:%d. It exists from when that "
                  "node runs until it is freed (a memory free node, cudaFree or cudaFreeAsync)",
                  access, where_text, line, offset, g.size, g.file, g.line);
        if (g.freed.load())
            fatal("use after free: %s at byte %lld of a %zu-byte allocation (made at %s:%d) that was "
                  "already freed (cudaFree or cudaFreeAsync), in %s",
                  access, offset, g.size, g.file, g.line, where_text);
        if (offset < 0)
            snprintf(relation, sizeof relation, "%lld bytes before its start", -offset);
        else if (offset == (long long)g.size)
            snprintf(relation, sizeof relation, "the first byte past its end");
        else
            snprintf(relation, sizeof relation, "%lld bytes past its end", offset - (long long)g.size + 1);
        fatal("out-of-bounds %s in %s at %s: byte offset %lld of a %zu-byte allocation made at "
              "%s:%d (%s)", access, where_text, line, offset, g.size, g.file, g.line, relation);
    }
#ifdef SI_KERNEL
    // A fault the processor raises without a page address: on x86-64, a general protection fault.
    if (signal_number == SIGSEGV && info->si_code == SI_KERNEL)
        fatal("invalid memory access in %s: a misaligned vector load or store (a float4 needs an "
              "address that is a multiple of 16) or a wild pointer", where_text);
#endif
    if ((uintptr_t)address < 4096)
        fatal("invalid %s of address %p (a null pointer) in %s", access, (void*)address, where_text);
    fatal("invalid %s of address %p in %s%s", access, (void*)address, where_text,
          settings().guard ? "" : " (CUDA_EMU_GUARD=1 says which allocation it overran)");
}

void report_no_progress(int, siginfo_t*, void*) {
    char where_text[256];
    describe(current_location(), where_text, sizeof where_text);
    fatal("no progress for %g s in %s: the thread neither finished nor reached a barrier. Is it "
          "waiting (spinning) for a value that another thread or block must write? Threads of a "
          "block take turns here, so such a wait never ends unless its loop calls __nanosleep(), "
          "which gives way to the others; on a GPU it may hang too. "
          "(CUDA_EMU_TIMEOUT sets the limit.)",
          settings().timeout_seconds, where_text);
}

// One cache line each: workers bump their counters at every barrier, and counters sharing a line
// would bounce it between cores.
struct alignas(64) WatchSlot {
    std::atomic<uint64_t> progress{0};
    std::atomic<bool> running{false};
    bool taken = false;  // by a thread that has not ended (under watch_slots_mutex)
    pthread_t thread;
};
constexpr int max_watch_slots = 1024;
WatchSlot watch_slots[max_watch_slots];
std::atomic<int> watch_slot_count{0};
std::mutex watch_slots_mutex;
thread_local WatchSlot* my_slot;
thread_local void* alternate_stack;

void watchdog() {
    using Clock = std::chrono::steady_clock;
    uint64_t seen[max_watch_slots] = {};
    Clock::time_point changed[max_watch_slots];
    for (auto& c : changed) c = Clock::now();
    for (;;) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        auto now = Clock::now();
        int count = watch_slot_count.load();
        for (int i = 0; i < count; i++) {
            uint64_t progress = watch_slots[i].progress.load(std::memory_order_relaxed);
            if (progress != seen[i] || !watch_slots[i].running.load()) {
                seen[i] = progress;
                changed[i] = now;
                continue;
            }
            if (std::chrono::duration<double>(now - changed[i]).count() > settings().timeout_seconds) {
                // Only the stuck thread knows which GPU thread it runs: ask it to report.
                pthread_kill(watch_slots[i].thread, SIGUSR2);
                std::this_thread::sleep_for(std::chrono::seconds(2));
                fatal("no progress for %g s in a kernel (CUDA_EMU_TIMEOUT)", settings().timeout_seconds);
            }
        }
    }
}

}  // namespace

__thread std::atomic<uint64_t>* progress_counter;

void watchdog_track(bool running_a_block) {
    note_progress();
    my_slot->running.store(running_a_block);
    static std::once_flag started;
    if (running_a_block && settings().timeout_seconds > 0)
        std::call_once(started, [] { std::thread(watchdog).detach(); });
}

// Fault handlers run on a thread's own signal stack where it has one (prepare_os_thread), so a
// stack overflow can still be reported.
void install_fault_handlers() {
    static std::once_flag handlers;
    std::call_once(handlers, [] {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_sigaction = report_fault;
        action.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigaction(SIGSEGV, &action, nullptr);
        sigaction(SIGBUS, &action, nullptr);
        sigaction(SIGFPE, &action, nullptr);
        sigaction(SIGILL, &action, nullptr);
        action.sa_sigaction = report_no_progress;
        sigaction(SIGUSR2, &action, nullptr);
    });
}

void prepare_os_thread() {
    install_fault_handlers();
    pthread_attr_t attributes;
    if (pthread_getattr_np(pthread_self(), &attributes) == 0) {
        void* low;
        if (pthread_attr_getstack(&attributes, &low, &host_stack_size) == 0) host_stack_low = (char*)low;
        pthread_attr_destroy(&attributes);
    }
    stack_t alternate;
    alternate.ss_size = 64 * 1024;
    alternate.ss_sp = alternate_stack = malloc(alternate.ss_size);
    alternate.ss_flags = 0;
    sigaltstack(&alternate, nullptr);
    // a slot that an ended thread gave back, else a new one
    std::lock_guard<std::mutex> lock(watch_slots_mutex);
    int slot = 0, count = watch_slot_count.load();
    while (slot < count && watch_slots[slot].taken) slot++;
    if (slot == max_watch_slots) fatal("more than %d host threads launch kernels at once", max_watch_slots);
    if (slot == count) watch_slot_count.store(count + 1);
    watch_slots[slot].taken = true;
    watch_slots[slot].thread = pthread_self();
    my_slot = &watch_slots[slot];
    progress_counter = &my_slot->progress;
}

void release_os_thread() {
    if (!my_slot) return;
    {
        std::lock_guard<std::mutex> lock(watch_slots_mutex);
        my_slot->running.store(false);
        my_slot->taken = false;
        my_slot = nullptr;
    }
    stack_t off;
    memset(&off, 0, sizeof off);
    off.ss_flags = SS_DISABLE;
    sigaltstack(&off, nullptr);
    free(alternate_stack);
    alternate_stack = nullptr;
}

}  // namespace cuda_emu
