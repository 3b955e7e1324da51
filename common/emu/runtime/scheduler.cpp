// runtime/scheduler.cpp - runs a kernel's grid on the CPU: blocks on a pool of OS threads, the
// threads of a block as fibers (user-space threads with their own stacks) on one OS thread.
//
// Part of the CPU emulation backend (common/emu/).
//
// The scheme, and why:
//   - Blocks are independent on a GPU, so they are shared out among worker OS threads (one per
//     core, CUDA_EMU_WORKERS to change). Each worker runs one block at a time to its end.
//   - Threads of a block only meet at barriers (__syncthreads, and the warp operations among the
//     lanes of a warp). Between barriers they can run one after the other. So a worker starts
//     thread 0 as a plain function call; if it returns without meeting a barrier, the same stack
//     runs thread 1, and so on: a kernel without barriers never switches stacks.
//   - When a thread reaches a barrier it keeps the stack it is on, and the next thread starts on a
//     fresh stack. When the last thread arrives, all of them become ready and are resumed, one at
//     a time, in the chosen order (CUDA_EMU_ORDER), each running to its next barrier or its end.
//     A stack whose thread has finished starts the next unstarted thread or is given back.
//   - If no thread can run and the block is not finished, the block is deadlocked on a GPU too
//     (a barrier some threads never reach); we report it instead of hanging.
//   - Which lanes of a warp run together (coalesced_threads(), __activemask()) is no fixed thing
//     here, as lanes run one at a time. A lane that asks waits until every other lane of its warp
//     has arrived at the same place or stopped elsewhere (at a barrier, or at its end): the lanes
//     that arrived together are its group. Inside an if, that is the lanes that took the branch.
// All bookkeeping lives in the Block, not in local variables, so any stack can pick up the work.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cerrno>
#include <cstdio>
#include <ctime>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

// The built-in variables kernel code reads (declared in include/cuda_emu/device.h).
__thread uint3 threadIdx;
__thread uint3 blockIdx;
__thread uint3 blockDim;
__thread uint3 gridDim;

namespace cuda_emu {

__thread char* dynamic_shared_base;

namespace {

// UNSTARTED, RUNNING and READY threads will still run before they next wait; the AT_ states wait.
enum ThreadState : uint8_t {
    UNSTARTED, RUNNING, READY, AT_BLOCK_BARRIER, AT_WARP_OP, AT_TILE_BARRIER, AT_CONVERGE,
    AT_PHASE_WAIT, FINISHED
};

// One cache line per thread: a switch touches the line of the thread it resumes.
struct alignas(64) GpuThread {
    void* sp;  // saved stack pointer while suspended
    uint3 index;
    uint8_t state;
    uint8_t op;     // which reduction or warp operation it waits in
    uint8_t width;  // of a shuffle's segments: 1 to 32
    const char* file;
    int line;
    unsigned mask;
    int arg;
    uint64_t value, result;
};

struct Stack {
    char* base;
    size_t size;
    char* mapping;  // the guard below, where the mapping starts
    size_t mapping_size;
};

struct Grid;

// A tile of more than 32 threads at its sync(): how many of its threads have arrived, and how many
// of those passed a non-zero predicate (for the tile's any() and all()).
struct TileBarrier {
    uint16_t arrived, count;
};
// Tiles of 64, 128, 256, 512 and 1024 threads: one size class each.
constexpr int tile_size_classes = 5;

struct Block {
    void (*body)(void*);
    void* closure;
    const char* kernel;
    Grid* grid;
    unsigned thread_count;
    uint3 dims;  // blockDim; the thread table below is rebuilt when it changes
    GpuThread threads[max_threads_per_block];
    uint16_t order[max_threads_per_block];  // the order threads start and resume in
    unsigned next_start, finished, at_barrier;
    uint32_t warp_waiting[max_threads_per_block / 32];
    uint32_t warp_lanes[max_threads_per_block / 32];  // lanes that exist (the last warp may be partial)
    uint32_t converging[max_threads_per_block / 32];  // lanes waiting in converged_lanes
    TileBarrier tile_barriers[tile_size_classes][max_threads_per_block / 64];
    uint16_t ready[max_threads_per_block];            // ring buffer of threads ready to resume
    unsigned ready_head, ready_count;
    // Threads that gave way (__nanosleep): ready, but resumed only when no other thread can run.
    uint16_t yielded[max_threads_per_block];
    unsigned yielded_count;
    int current;  // the thread running now
    int reduce_result;
    // The barrier being gathered: where the first thread arrived, the predicates counted so far,
    // and whether any thread arrived at a different barrier.
    const char* barrier_file;
    int barrier_line, barrier_op, barrier_count;
    bool barrier_mismatch;
    void* root_sp;     // the worker's own stack, parked until the block is done
    void* discard_sp;  // where abandoned stacks save a context nobody will resume
    Stack* starting_stack;
    uint64_t rng;
    std::vector<Stack*> free_stacks;
    std::vector<Stack*> all_stacks;  // every stack made, to take back those an abort abandons
    unsigned stacks_made;
    // Where a failed device assert jumps to end the block: the worker's own stack, in run_block
    // (a __builtin_setjmp buffer: five words).
    void* abort_jump[5];
};

struct Worker {
    Block block;
    size_t dynamic_shared_size = 0;
};

// Ends the running block at once, from any of its stacks: back to run_threads_to_end.
[[noreturn]] void abandon_block(Block* b) { __builtin_longjmp(b->abort_jump, 1); }

thread_local Worker* this_worker;
thread_local bool inside_block;

// When a host thread that ran blocks ends (a std::thread, an OpenMP thread), its GPU threads'
// stacks, its dynamic shared memory and its place in the watchdog's table go back, so that a
// program whose threads come and go runs as long as it likes, as on a GPU. Not the main thread's:
// it ends with the program, which may exit from inside a block (a failed check), on those stacks.
#if defined(__SANITIZE_ADDRESS__)
#define CUDA_EMU_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CUDA_EMU_ADDRESS_SANITIZER 1
#endif
#endif
#ifdef CUDA_EMU_ADDRESS_SANITIZER
extern "C" void __asan_unpoison_memory_region(void const volatile* address, size_t size);
#endif
struct ThreadEnd {
    bool armed = false;
    ~ThreadEnd() {
        if (!armed || !this_worker || inside_block || getpid() == (pid_t)syscall(SYS_gettid)) return;
        for (Stack* s : this_worker->block.all_stacks) {
            unregister_stack_guard(s->mapping);
#ifdef CUDA_EMU_ADDRESS_SANITIZER
            // in a program built with -fsanitize=address: the marks it left around the frames
            // that never returned would outlive the mapping, in the next one made there
            __asan_unpoison_memory_region(s->mapping, s->mapping_size);
#endif
            munmap(s->mapping, s->mapping_size);
            delete s;
        }
        free(dynamic_shared_base);
        dynamic_shared_base = nullptr;
        delete this_worker;
        this_worker = nullptr;
        release_os_thread();
    }
};
thread_local ThreadEnd thread_end;

Worker* worker_for_this_thread() {
    if (!this_worker) {
        prepare_os_thread();
        this_worker = new Worker();
        thread_end.armed = true;
    }
    return this_worker;
}

uint64_t next_random(uint64_t& state) {  // splitmix64: small, good enough to shuffle threads
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

template <class T>
void shuffle(T* items, unsigned count, uint64_t& rng) {
    for (unsigned i = count; i > 1; i--) std::swap(items[i - 1], items[next_random(rng) % i]);
}

// ---- Stacks -------------------------------------------------------------------------------------

// No memory for one more stack. Often the cause is not memory but the count of memory mappings
// the system allows a process (vm.max_map_count, 65530 by default), of which each stack takes two:
// a cooperative launch keeps every thread of its grid at once.
[[noreturn]] void report_no_stack(size_t size) {
    int error = errno;
    long limit = 0, mappings = 0;
    if (FILE* f = fopen("/proc/sys/vm/max_map_count", "r")) {
        if (fscanf(f, "%ld", &limit) != 1) limit = 0;
        fclose(f);
    }
    if (FILE* f = fopen("/proc/self/maps", "r")) {
        for (int c; (c = fgetc(f)) != EOF;) mappings += c == '\n';
        fclose(f);
    }
    long more = 262144;
    while (more <= limit) more *= 2;
    if (limit > 0 && mappings + 64 >= limit)
        fatal("cannot allocate a %zu KiB stack for a GPU thread: the process has %ld memory "
              "mappings, as many as the system allows (vm.max_map_count), and each GPU thread's "
              "stack takes two. A cooperative launch keeps every thread of its grid at once: a "
              "smaller grid or smaller blocks, or more mappings (sudo sysctl -w "
              "vm.max_map_count=%ld), let it run", size / 1024, mappings, more);
    fatal("cannot allocate a %zu KiB stack for a GPU thread: %s", size / 1024, strerror(error));
}

Stack* acquire_stack(Block* b) {
    if (!b->free_stacks.empty()) {
        Stack* s = b->free_stacks.back();
        b->free_stacks.pop_back();
        return s;
    }
    // Protected memory below each stack turns a stack overflow into a clear report, not silent
    // corruption of the neighbouring stack. A function with a large local array moves the stack
    // pointer down by the whole array at once, past a single guard page, unless the compiler
    // probes each page on the way (emucc asks for that where the compiler can). Where address
    // space is plentiful the guard is 1 MB, as Linux keeps below a process's stack: more than a
    // GPU's 512 KB of local memory a thread, so that no kernel's frame can jump it.
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t guard = sizeof(void*) == 8 ? ((size_t)1 << 20) : page;
    size_t size = (settings().stack_bytes + page - 1) / page * page;
    // Mapped inaccessible first, so that the guard is address space alone, never memory the
    // system counts as promised (which it does where it does not overcommit).
    char* memory = (char*)mmap(nullptr, guard + size, PROT_NONE,
                               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (memory == MAP_FAILED || mprotect(memory + guard, size, PROT_READ | PROT_WRITE) != 0)
        report_no_stack(size);
    register_stack_guard(memory, guard);
    // Stacks are page-aligned, so without this every stack's top would fall on the same cache
    // sets, and a block's threads would evict each other's hot stack frames from L1 and L2 at
    // every switch. Starting each stack a different number of cache lines below its top spreads
    // them over all sets ("cache colouring").
    constexpr size_t cache_line = 64;
    size_t colour = (b->stacks_made++ % (page / cache_line)) * cache_line;
    Stack* s = new Stack{memory + guard, size - colour, memory, guard + size};
    b->all_stacks.push_back(s);
    return s;
}

void release_stack(Block* b, Stack* s) { b->free_stacks.push_back(s); }

// ---- Running threads ----------------------------------------------------------------------------

void push_ready(Block* b, int t) {
    b->threads[t].state = READY;
    b->ready[(b->ready_head + b->ready_count++) % max_threads_per_block] = (uint16_t)t;
}

// A suspended thread's saved registers and innermost stack frames: what resuming it reads first.
constexpr int resume_bytes = 192;

int pop_ready(Block* b) {
    int t = b->ready[b->ready_head];
    b->ready_head = (b->ready_head + 1) % max_threads_per_block;
    b->ready_count--;
    // The threads of a block do not fit in the L1 cache together, so resuming one waits for its
    // stack to come from L2. Fetching the stack of the thread after it now hides that wait.
    if (b->ready_count > 0) {
        const char* next_sp = static_cast<const char*>(b->threads[b->ready[b->ready_head]].sp);
        for (int offset = 0; offset < resume_bytes; offset += 64) __builtin_prefetch(next_sp + offset);
    }
    return t;
}

// Makes the listed threads ready, in the order CUDA_EMU_ORDER asks for.
void push_all_ready(Block* b, uint16_t* list, unsigned count) {
    if (settings().order == Order::reverse) std::reverse(list, list + count);
    if (settings().order == Order::random) shuffle(list, count, b->rng);
    for (unsigned k = 0; k < count; k++) push_ready(b, list[k]);
}

// No thread is ready and none is left to start: the threads that gave way resume. What they
// see now, every other thread has done before: --sanitize takes this for a barrier, so that what
// a lock guards is not named as a race (nor a race of two other threads across this moment).
inline void wake_yielded_if_idle(Block* b) {
    if (b->ready_count == 0 && b->next_start >= b->thread_count && b->yielded_count > 0) {
        unsigned count = b->yielded_count;
        b->yielded_count = 0;
        sanitize_state.block_epoch++;
        push_all_ready(b, b->yielded, count);
    }
}

// Lanes of `warp` wait in converged_lanes (coalesced_threads(), __activemask()) until no other lane
// of the warp can still arrive: when none is unstarted, running or ready, each waiting lane learns
// which lanes wait at its own place (file and line), and all of them resume.
__attribute__((noinline)) void release_converged(Block* b, int warp) {
    uint32_t lanes = b->warp_lanes[warp];
    for (int lane = 0; lane < 32; lane++) {
        uint8_t state = b->threads[warp * 32 + lane].state;
        if ((lanes >> lane) & 1 && (state == UNSTARTED || state == RUNNING || state == READY)) return;
    }
    uint32_t waiting = b->converging[warp];
    b->converging[warp] = 0;
    uint16_t list[32];
    unsigned count = 0;
    for (int lane = 0; lane < 32; lane++) {
        if (!((waiting >> lane) & 1)) continue;
        GpuThread& self = b->threads[warp * 32 + lane];
        uint32_t together = 0;
        for (int other = 0; other < 32; other++) {
            const GpuThread& t = b->threads[warp * 32 + other];
            if ((waiting >> other) & 1 && t.line == self.line &&
                (t.file == self.file || strcmp(t.file, self.file) == 0))
                together |= 1u << other;
        }
        self.result = together;
        list[count++] = (uint16_t)(warp * 32 + lane);
    }
    push_all_ready(b, list, count);
}

// The current thread stops running (it waits, or it has finished): lanes of its warp waiting in
// converged_lanes may have been waiting for it.
inline void note_lane_stopped(Block* b) {
    int warp = b->current / 32;
    if (b->converging[warp]) release_converged(b, warp);
}

void make_current(Block* b, int t) {
    b->threads[t].state = RUNNING;
    b->current = t;
    threadIdx = b->threads[t].index;
    sanitize_state.thread = t;
}

[[noreturn]] void report_stall(Block* b);

// The loop every stack runs: start threads as plain calls while there are unstarted ones and
// nobody is waiting to resume; otherwise hand the CPU to a ready thread. `stack` is null for the
// worker's own stack, the only one that may return (when the block is done).
void run_threads(Block* b, Stack* stack) {
    for (;;) {
        if (b->ready_count == 0 && b->next_start < b->thread_count) {
            make_current(b, b->order[b->next_start++]);
            b->body(b->closure);
            b->threads[b->current].state = FINISHED;
            b->finished++;
            note_progress();
            note_lane_stopped(b);
            continue;
        }
        if (b->finished == b->thread_count) {
            if (!stack) return;
            release_stack(b, stack);
            cuda_emu_switch(&b->discard_sp, b->root_sp);
        }
        wake_yielded_if_idle(b);
        if (b->ready_count == 0) report_stall(b);
        int next = pop_ready(b);
        make_current(b, next);
        if (!stack) {
            cuda_emu_switch(&b->root_sp, b->threads[next].sp);
            return;  // resumed by whichever stack finished the block's last thread
        }
        release_stack(b, stack);
        cuda_emu_switch(&b->discard_sp, b->threads[next].sp);
    }
}

void fresh_stack_entry(void* block) {
    Block* b = static_cast<Block*>(block);
    run_threads(b, b->starting_stack);
    abort();  // not reached: only the worker's own stack returns from run_threads
}

// Starts the next unstarted thread on a fresh stack. Kept out of wait_here: a resumed thread
// returns through wait_here's stack frame, and the smaller that frame, the fewer cache lines a
// switch touches.
__attribute__((noinline)) void start_on_fresh_stack(Block* b, GpuThread& self) {
    Stack* s = acquire_stack(b);
    b->starting_stack = s;
    void* sp = prepare_context(s->base, s->size, fresh_stack_entry, b);
    cuda_emu_switch(&self.sp, sp);
}

// The running thread has recorded why it waits; give the CPU to someone else until it is resumed.
inline __attribute__((always_inline)) void wait_here(Block* b) {
    GpuThread& self = b->threads[b->current];
    note_lane_stopped(b);
    wake_yielded_if_idle(b);
    if (b->ready_count > 0) {
        int next = pop_ready(b);
        if (next == b->current) {
            self.state = RUNNING;
            return;
        }
        make_current(b, next);
        cuda_emu_switch(&self.sp, b->threads[next].sp);
        return;
    }
    if (b->next_start < b->thread_count) {
        start_on_fresh_stack(b, self);
        return;
    }
    report_stall(b);
}

Block* current_block(const char* what) {
    if (!inside_block) fatal("%s called outside a kernel", what);
    return &this_worker->block;
}

void format_index(char* text, size_t size, uint3 v) { snprintf(text, size, "(%u,%u,%u)", v.x, v.y, v.z); }

const char* op_name(const GpuThread& t) {
    if (t.state == AT_BLOCK_BARRIER) {
        static const char* names[] = {"__syncthreads", "__syncthreads_count", "__syncthreads_and",
                                      "__syncthreads_or", "grid.sync()"};
        return names[t.op];
    }
    if (t.state == AT_TILE_BARRIER) return "the sync() of a tile of more than 32 threads";
    if (t.state == AT_CONVERGE) return "coalesced_threads() or __activemask()";
    if (t.state == AT_PHASE_WAIT)
        return "the wait of a cuda::barrier (wait, arrive_and_wait, or a block pipeline's acquire or wait)";
    static const char* names[] = {"__syncwarp", "__shfl_sync", "__shfl_up_sync", "__shfl_down_sync",
                                  "__shfl_xor_sync", "__ballot_sync", "__any_sync", "__all_sync",
                                  "__reduce_add_sync", "__reduce_min_sync", "__reduce_max_sync",
                                  "__reduce_and_sync", "__reduce_or_sync", "__reduce_xor_sync",
                                  "__match_any_sync", "__match_all_sync"};
    return names[t.op];
}

// No thread can run, and the block is not finished: on a GPU this block would hang (or, for
// threads that returned early, skip the barrier on some GPUs and compute garbage). Summarise who
// waits where, one line per distinct place, and stop the program.
[[noreturn]] void report_stall(Block* b) {
    claim_report();
    char block_text[48], thread_text[48];
    format_index(block_text, sizeof block_text, blockIdx);
    report("deadlock in kernel %s, block %s: no thread of the block can continue.", b->kernel,
           block_text);
    std::vector<bool> listed(b->thread_count, false);
    for (unsigned t = 0; t < b->thread_count; t++) {
        if (listed[t]) continue;
        const GpuThread& first = b->threads[t];
        unsigned same = 0;
        for (unsigned u = t; u < b->thread_count; u++) {
            const GpuThread& other = b->threads[u];
            bool alike = other.state == first.state &&
                         (first.state == FINISHED ||
                          (other.line == first.line && other.op == first.op &&
                           strcmp(other.file, first.file) == 0));
            if (alike) listed[u] = true, same++;
        }
        format_index(thread_text, sizeof thread_text, first.index);
        if (first.state == FINISHED)
            report("  %u thread(s) returned from the kernel (first: thread %s)", same, thread_text);
        else if (first.state != AT_WARP_OP)
            report("  %u thread(s) wait at %s at %s:%d (first: thread %s)", same, op_name(first),
                   first.file, first.line, thread_text);
        else
            report("  %u thread(s) wait at %s at %s:%d with mask 0x%08x (first: thread %s)", same,
                   op_name(first), first.file, first.line, first.mask, thread_text);
    }
    bool phase_wait = false;
    for (unsigned t = 0; t < b->thread_count; t++)
        phase_wait = phase_wait || b->threads[t].state == AT_PHASE_WAIT;
    if (phase_wait) {
        report("a cuda::barrier's phase ends when as many arrivals as init() set have come; a "
               "thread that returned, or waits somewhere else, does not arrive.");
        for (unsigned t = 0; t < b->thread_count; t++) {
            const GpuThread& th = b->threads[t];
            const PhaseBarrier* barrier = reinterpret_cast<const PhaseBarrier*>((uintptr_t)th.value);
            if (th.state != AT_PHASE_WAIT || barrier->expected <= (std::ptrdiff_t)b->thread_count) continue;
            report("the barrier waited for at %s:%d expects %td arrivals a phase, more than the block's %u "
                   "threads: the emulator's barriers are a block's, whatever their scope, so threads of "
                   "other blocks cannot arrive at it.",
                   th.file, th.line, barrier->expected, b->thread_count);
            break;
        }
    } else if (b->finished > 0)
        report("every thread of a block must reach each __syncthreads (every lane named in a "
               "warp operation's mask must reach it, and every thread of a tile its sync()); a "
               "thread that returns early never arrives.");
    else
        report("the threads wait for partners that wait somewhere else: a barrier inside a "
               "condition that is not the same for all threads involved.");
    die();
}

// ---- __syncthreads and friends ------------------------------------------------------------------

// Threads of the block wait at different barriers: a bug, reported with the first thread and the
// first one (by index) that waits elsewhere.
[[noreturn]] __attribute__((noinline, cold)) void report_different_barriers(Block* b) {
    claim_report();
    const GpuThread& first = b->threads[0];
    for (unsigned t = 0; t < b->thread_count; t++) {
        const GpuThread& th = b->threads[t];
        if (th.line != first.line || th.op != first.op ||
            (th.file != first.file && strcmp(th.file, first.file) != 0)) {
            char block_text[48], a[48], c[48];
            format_index(block_text, sizeof block_text, blockIdx);
            format_index(a, sizeof a, first.index);
            format_index(c, sizeof c, th.index);
            report("threads of block %s in kernel %s wait at different barriers:", block_text,
                   b->kernel);
            report("  thread %s waits at %s at %s:%d", a, op_name(first), first.file, first.line);
            report("  thread %s waits at %s at %s:%d", c, op_name(th), th.file, th.line);
            report("all threads of a block must reach the same __syncthreads; on a GPU this hangs "
                   "or silently gives wrong results. Is a barrier inside an if or a loop whose "
                   "condition differs between threads?");
            die();
        }
    }
    abort();  // not reached: a mismatch was seen on arrival
}

void wait_for_grid(Block* b);

// The last thread has arrived: every thread becomes ready, in the chosen order.
__attribute__((noinline)) void release_block_barrier(Block* b) {
    sanitize_state.block_epoch++;  // what comes after the barrier is ordered after what came before
    if (b->barrier_mismatch) report_different_barriers(b);
    // grid.sync(): the whole block has arrived; now the block waits for the other blocks.
    if (b->barrier_op == GRID_SYNC) wait_for_grid(b);
    int count = b->barrier_count;
    switch (b->barrier_op) {
        case REDUCE_COUNT: b->reduce_result = count; break;
        case REDUCE_AND: b->reduce_result = count == (int)b->thread_count; break;
        case REDUCE_OR: b->reduce_result = count > 0; break;
        default: b->reduce_result = 0;
    }
    b->at_barrier = 0;
    b->barrier_count = 0;
    if (settings().order == Order::random) shuffle(b->order, b->thread_count, b->rng);
    for (unsigned k = 0; k < b->thread_count; k++) push_ready(b, b->order[k]);
}

// ---- Warp operations ----------------------------------------------------------------------------

// A shuffle that reads a lane outside its mask gets a value CUDA leaves undefined (a GPU gives
// whatever that lane's register holds); with CUDA_EMU_POISON the emulator gives all one bits (a
// float's NaN, an int's -1), so that a use shows in the results. That is harmless when nothing
// uses what those lanes got (a tree that reads past the lanes it needs, a guarded use), so the
// places are only named, once each, when the program ends with a failure: they may be why.
struct ShuffleOutsideMask {
    const char* file;
    int line;
    char text[400];
};
std::mutex shuffle_notes_lock;
std::vector<ShuffleOutsideMask> shuffle_notes;

void print_shuffle_notes(int status, void*) {
    if (status == 0 || shuffle_notes.empty()) return;
    report("this program failed, and read values CUDA leaves undefined: shuffles read lanes "
           "outside their masks (%s):", settings().poison ? "here all one bits: NaN as a float, -1 "
                                                            "as an int" : "here the lane's own value");
    for (const ShuffleOutsideMask& note : shuffle_notes) report("  %s", note.text);
    report("name every lane a shuffle reads in its mask, give it a width that keeps it inside its "
           "segment, or leave out what those lanes got");
}

void note_shuffle_outside_mask(const Block* b, int warp, int lane, int source, uint32_t group) {
    const GpuThread& self = b->threads[warp * 32 + lane];
    std::lock_guard<std::mutex> hold(shuffle_notes_lock);
    for (const ShuffleOutsideMask& note : shuffle_notes)
        if (note.line == self.line && strcmp(note.file, self.file) == 0) return;
    if (shuffle_notes.empty()) on_exit(print_shuffle_notes, nullptr);
    ShuffleOutsideMask note{self.file, self.line, {}};
    char block_text[48];
    format_index(block_text, sizeof block_text, blockIdx);
    snprintf(note.text, sizeof note.text,
             "%s at %s:%d in kernel %s, block %s: lane %d of warp %d reads lane %d, not in the "
             "mask 0x%08x", op_name(self), self.file, self.line, b->kernel, block_text, lane, warp,
             source, group);
    shuffle_notes.push_back(note);
}

uint64_t lane_result(const Block* b, int warp, uint32_t group, int lane) {
    const GpuThread& self = b->threads[warp * 32 + lane];
    int width = self.width;
    int segment = lane & ~(width - 1), position = lane & (width - 1);
    int source = lane;
    switch (self.op) {
        case WARP_SHFL: source = segment + (self.arg & (width - 1)); break;
        case WARP_SHFL_UP: source = position - self.arg >= 0 ? lane - self.arg : lane; break;
        case WARP_SHFL_DOWN: source = position + self.arg < width ? lane + self.arg : lane; break;
        case WARP_SHFL_XOR: {
            int target = lane ^ self.arg;
            source = (target >= 0 && target < 32 && (target & ~(width - 1)) == segment) ? target : lane;
            break;
        }
        default: break;
    }
    if (self.op >= WARP_SHFL && self.op <= WARP_SHFL_XOR) {
        if ((group >> source) & 1) return b->threads[warp * 32 + source].value;
        // A lane outside the group offered no value; CUDA leaves the result undefined.
        note_shuffle_outside_mask(b, warp, lane, source, group);
        return settings().poison ? ~0ull : self.value;
    }
    uint64_t ballot = 0, same = 0;  // same: the lanes whose value equals this lane's
    int64_t sum = 0, low = INT64_MAX, high = INT64_MIN;
    uint64_t all_and = ~0ull, all_or = 0, all_xor = 0;
    for (int l = 0; l < 32; l++) {
        if (!((group >> l) & 1)) continue;
        const GpuThread& t = b->threads[warp * 32 + l];
        bool is_signed = t.arg != 0;
        int64_t v = is_signed ? (int64_t)(int32_t)t.value : (int64_t)(uint32_t)t.value;
        ballot |= (uint64_t)(t.value != 0) << l;
        same |= (uint64_t)(t.value == self.value) << l;
        sum += v;
        low = std::min(low, v);
        high = std::max(high, v);
        all_and &= t.value;
        all_or |= t.value;
        all_xor ^= t.value;
    }
    switch (self.op) {
        case WARP_BALLOT: return ballot;
        case WARP_ANY: return ballot != 0;
        case WARP_ALL: return ballot == group;
        case WARP_REDUCE_ADD: return (uint64_t)sum;
        case WARP_REDUCE_MIN: return (uint64_t)low;
        case WARP_REDUCE_MAX: return (uint64_t)high;
        case WARP_REDUCE_AND: return all_and;
        case WARP_REDUCE_OR: return all_or;
        case WARP_REDUCE_XOR: return all_xor;
        case WARP_MATCH_ANY: return same;
        case WARP_MATCH_ALL: return same == group ? group : 0;
        default: return 0;
    }
}

void release_warp(Block* b, int warp, uint32_t group) {
    sanitize_state.warp_epoch[warp]++;
    for (int lane = 0; lane < 32; lane++)
        if ((group >> lane) & 1) b->threads[warp * 32 + lane].result = lane_result(b, warp, group, lane);
    b->warp_waiting[warp] &= ~group;
    uint16_t lanes[32];
    unsigned count = 0;
    for (int lane = 0; lane < 32; lane++)
        if ((group >> lane) & 1) lanes[count++] = (uint16_t)(warp * 32 + lane);
    push_all_ready(b, lanes, count);
}

// ---- Tiles of more than 32 threads --------------------------------------------------------------

// The last thread of a tile has arrived at its sync(): every thread of the tile resumes, with the
// count of predicates.
void release_tile(Block* b, unsigned first, unsigned members, TileBarrier& tile) {
    if (sanitize_state.in_block) sanitize_tile_barrier(first / 32, (members + 31) / 32);
    uint16_t list[max_threads_per_block];
    for (unsigned k = 0; k < members; k++) {
        b->threads[first + k].result = tile.count;
        list[k] = (uint16_t)(first + k);
    }
    tile = TileBarrier{0, 0};
    push_all_ready(b, list, members);
}

// A thread comes to a wait: what it waits at, and where, for the release and for a deadlock
// report; then the watchdog hears that the block is still moving.
inline void arrive(GpuThread& self, ThreadState state, const char* file, int line, int op) {
    self.state = state;
    self.file = file;
    self.line = line;
    self.op = (uint8_t)op;
    note_progress();
}

}  // namespace

int block_barrier(const char* file, int line, int reduce, int predicate) {
    Block* b = current_block("__syncthreads");
    GpuThread& self = b->threads[b->current];
    self.value = (uint64_t)predicate;
    arrive(self, AT_BLOCK_BARRIER, file, line, reduce);
    // Each arrival is compared with the first, so the release need not look at every thread.
    if (b->at_barrier == 0) {
        b->barrier_file = file;
        b->barrier_line = line;
        b->barrier_op = reduce;
    } else if (line != b->barrier_line || reduce != b->barrier_op ||
               (file != b->barrier_file && strcmp(file, b->barrier_file) != 0)) {
        b->barrier_mismatch = true;
    }
    b->barrier_count += predicate;
    if (++b->at_barrier == b->thread_count) release_block_barrier(b);
    wait_here(b);
    return b->reduce_result;
}

uint64_t warp_barrier(const char* file, int line, int op, unsigned mask, uint64_t value, int arg,
                      int width) {
    Block* b = current_block("a warp operation");
    int me = b->current, warp = me / 32, lane = me % 32;
    GpuThread& self = b->threads[me];
    self.mask = mask;
    self.value = value;
    self.arg = arg;
    // A width that is not a power of two from 1 to 32 means 32, as in lane_result.
    self.width = (uint8_t)(width > 0 && width <= 32 && (width & (width - 1)) == 0 ? width : 32);
    arrive(self, AT_WARP_OP, file, line, op);
    // Lanes past the end of a partial last warp do not exist; they are not waited for.
    uint32_t group = (mask | (1u << lane)) & b->warp_lanes[warp];
    b->warp_waiting[warp] |= 1u << lane;
    if ((b->warp_waiting[warp] & group) == group) release_warp(b, warp, group);
    wait_here(b);
    return self.result;
}

int tile_barrier(const char* file, int line, int size, int predicate) {
    Block* b = current_block("a tile's sync()");
    if (size < 64 || size > max_threads_per_block || (size & (size - 1)) != 0)
        fatal("a tile of %d threads: tiles of more than 32 threads have 64, 128, 256, 512 or 1024", size);
    int me = b->current;
    GpuThread& self = b->threads[me];
    self.arg = size;
    arrive(self, AT_TILE_BARRIER, file, line, 0);
    // The tile: `size` threads from a multiple of `size`, fewer if the block ends first.
    unsigned first = (unsigned)me & ~(unsigned)(size - 1);
    unsigned members = std::min((unsigned)size, b->thread_count - first);
    TileBarrier& tile = b->tile_barriers[__builtin_ctz((unsigned)size) - 6][first / size];
    tile.count += predicate != 0;
    if (++tile.arrived == members) release_tile(b, first, members, tile);
    wait_here(b);
    return (int)self.result;
}

unsigned converged_lanes(const char* file, int line) {
    Block* b = current_block("coalesced_threads() and __activemask()");
    int me = b->current;
    GpuThread& self = b->threads[me];
    arrive(self, AT_CONVERGE, file, line, 0);
    b->converging[me / 32] |= 1u << (me % 32);
    wait_here(b);  // release_converged resumes it, with its group as result
    return (unsigned)self.result;
}

// ---- cuda::barrier and __nanosleep --------------------------------------------------------------

// A barrier's threads wait for one another as fibers of one block: threads of another block run
// on another OS thread (or later), and cannot. A barrier that threads of two blocks use is
// reported, whatever its scope.
static void check_barrier_user(const PhaseBarrier* barrier, const char* file, int line) {
    const uint3 g = gridDim;
    std::uint64_t user = 1 + blockIdx.x + (std::uint64_t)g.x * (blockIdx.y + (std::uint64_t)g.y * blockIdx.z);
    if (barrier->user == 0) const_cast<PhaseBarrier*>(barrier)->user = user;
    if (barrier->user == user) return;
    char where_text[256];
    describe(current_location(), where_text, sizeof where_text);
    std::uint64_t first = barrier->user - 1;
    fatal("a cuda::barrier that threads of two blocks use, in %s, at %s:%d (block (%llu,%llu,%llu) used it "
          "first): the emulator's barriers are a block's, whatever their scope, so threads of two blocks "
          "cannot wait at one together here",
          where_text, file, line, (unsigned long long)(first % g.x), (unsigned long long)(first / g.x % g.y),
          (unsigned long long)(first / ((std::uint64_t)g.x * g.y)));
}

unsigned phase_barrier_arrive(PhaseBarrier* barrier, std::ptrdiff_t count, bool drop, const char* file,
                              int line, void (*complete)(void*), void* object) {
    Block* b = current_block("a cuda::barrier's arrive");
    check_barrier_user(barrier, file, line);
    if (count <= 0 || barrier->expected <= 0 || count > barrier->pending) {
        char where_text[256];
        describe(current_location(), where_text, sizeof where_text);
        if (count <= 0)
            fatal("arrive(%td) at a cuda::barrier in %s, at %s:%d: the count of arrivals must be 1 "
                  "or more", count, where_text, file, line);
        if (barrier->expected <= 0)
            fatal("an arrival at a cuda::barrier in %s, at %s:%d, that expects none: init() did not "
                  "set it up, or every thread left it with arrive_and_drop", where_text, file, line);
        fatal("too many arrivals at a cuda::barrier in %s, at %s:%d: %td arrival(s) in a phase that "
              "waits for %td more of the %td init() set; on a GPU the barrier's count goes wrong",
              where_text, file, line, count, barrier->pending, barrier->expected);
    }
    unsigned phase = barrier->phase;
    if (drop) barrier->expected--;
    barrier->pending -= count;
    if (barrier->pending > 0) return phase;
    // The phase is complete: its completion step runs, the next phase starts, and the threads
    // waiting for this one resume.
    if (complete) complete(object);
    barrier->phase++;
    barrier->pending = barrier->expected;
    // What comes after the waits is ordered after the arrivals. --sanitize orders the whole
    // block, as at a __syncthreads: a race between a thread that is not part of the barrier and
    // one that is goes unreported.
    sanitize_state.block_epoch++;
    note_progress();
    uint16_t list[max_threads_per_block];
    unsigned waiting = 0;
    for (unsigned t = 0; t < b->thread_count; t++)
        if (b->threads[t].state == AT_PHASE_WAIT && b->threads[t].value == (uint64_t)(uintptr_t)barrier)
            list[waiting++] = (uint16_t)t;
    push_all_ready(b, list, waiting);
    return phase;
}

void phase_barrier_wait(const PhaseBarrier* barrier, unsigned phase, const char* file, int line) {
    Block* b = current_block("a cuda::barrier's wait");
    check_barrier_user(barrier, file, line);
    if (barrier->phase != phase) return;
    GpuThread& self = b->threads[b->current];
    self.value = (uint64_t)(uintptr_t)barrier;
    arrive(self, AT_PHASE_WAIT, file, line, 0);
    wait_here(b);
}

// A spinning thread gives way, so that the thread it waits for runs (on a GPU, independent
// thread scheduling lets it run meanwhile). Outside a kernel, or alone, there is nobody to run.
void yield_thread() {
    if (!inside_block) return;
    Block* b = &this_worker->block;
    if (b->ready_count == 0 && b->next_start >= b->thread_count && b->yielded_count == 0) {
        sanitize_state.block_epoch++;  // as in wake_yielded_if_idle: the others have stopped
        return;
    }
    // Ready, but after every other thread that can run: wait_here resumes the others first.
    b->threads[b->current].state = READY;
    b->yielded[b->yielded_count++] = (uint16_t)b->current;
    wait_here(b);
}

void note_block_ordering() {
    if (inside_block) sanitize_state.block_epoch++;
}

Location current_location() {
    Location where{nullptr, {0, 0, 0}, {0, 0, 0}};
    if (inside_block && this_worker) {
        where.kernel = this_worker->block.kernel;
        where.block = blockIdx;
        where.thread = threadIdx;
    }
    return where;
}

// ---- Running a grid -----------------------------------------------------------------------------
namespace {

struct Grid {
    LaunchConfig config;
    const char* kernel;
    void (*body)(void*);
    void* closure;
    uint64_t block_count;
    uint64_t chunk;
    std::atomic<uint64_t> next_block{0};
    // grid.sync() in a cooperative launch, where every block has an OS thread of its own: blocks
    // that have arrived, blocks that have finished (and will never arrive), and a generation
    // number that counts the barriers released, for the waiters to see theirs go.
    std::mutex sync_mutex;
    std::condition_variable sync_done;
    uint64_t sync_arrived = 0, blocks_finished = 0, sync_generation = 0;
    const char* sync_file = nullptr;
    int sync_line = 0;
};

// Blocks wait at grid.sync() while another block has returned from the kernel: on a GPU the grid
// hangs. Called with the grid's sync_mutex held.
[[noreturn]] void report_grid_deadlock(const Grid& g) {
    claim_report();
    report("deadlock in kernel %s: %llu block(s) wait at grid.sync() at %s:%d, and %llu block(s) "
           "returned from the kernel without reaching it.", g.kernel,
           (unsigned long long)g.sync_arrived, g.sync_file, g.sync_line,
           (unsigned long long)g.blocks_finished);
    report("every thread of every block of a cooperative launch must reach each grid.sync().");
    die();
}

// The calling block's threads all wait at grid.sync(); its OS thread now waits for the other
// blocks (each on its own OS thread), and the last block to arrive releases them all.
void wait_for_grid(Block* b) {
    Grid& g = *b->grid;
    if (!g.config.cooperative)
        fatal("grid.sync() in kernel %s, whose launch was not cooperative: a grid-wide barrier "
              "needs all blocks on the GPU at once, which only cudaLaunchCooperativeKernel (or "
              "cudaLaunchKernelEx with cudaLaunchAttributeCooperative) promises (on a GPU this "
              "hangs or fails)", b->kernel);
    // Another block's assert has ended the launch: this block ends too, at this barrier or after
    // waiting at it (below).
    if (device_error()) abandon_block(b);
    std::unique_lock<std::mutex> lock(g.sync_mutex);
    if (g.sync_arrived++ == 0) {
        g.sync_file = b->threads[b->current].file;
        g.sync_line = b->threads[b->current].line;
    }
    if (g.sync_arrived + g.blocks_finished == g.block_count) {
        if (g.blocks_finished > 0) report_grid_deadlock(g);
        g.sync_arrived = 0;
        g.sync_generation++;
        g.sync_done.notify_all();
        return;
    }
    uint64_t generation = g.sync_generation;
    watchdog_track(false);  // waiting for other blocks is no lack of progress of this one
    g.sync_done.wait(lock, [&] { return g.sync_generation != generation || device_error(); });
    watchdog_track(true);
    if (g.sync_generation == generation) {
        lock.unlock();
        abandon_block(b);
    }
}

}  // namespace

bool cooperative_launch() { return current_block("grid_group")->grid->config.cooperative; }

namespace {

// A block of a cooperative launch has finished: the waiting blocks may now be waiting in vain.
void note_block_finished(Grid& g) {
    std::lock_guard<std::mutex> lock(g.sync_mutex);
    g.blocks_finished++;
    if (device_error()) g.sync_done.notify_all();  // an assert: let the waiting blocks end
    else if (g.sync_arrived > 0 && g.sync_arrived + g.blocks_finished == g.block_count)
        report_grid_deadlock(g);
}

void setup_block_shape(Block* b, const Grid& grid) {
    dim3 dims = grid.config.block;
    b->thread_count = dims.x * dims.y * dims.z;
    if (b->dims.x != dims.x || b->dims.y != dims.y || b->dims.z != dims.z) {
        b->dims = uint3{dims.x, dims.y, dims.z};
        for (unsigned t = 0; t < b->thread_count; t++)
            b->threads[t].index = uint3{t % dims.x, (t / dims.x) % dims.y, t / (dims.x * dims.y)};
        for (unsigned w = 0; w < max_threads_per_block / 32; w++) {
            unsigned first = w * 32;
            unsigned lanes = first >= b->thread_count ? 0 : std::min(32u, b->thread_count - first);
            b->warp_lanes[w] = lanes == 32 ? 0xffffffffu : (1u << lanes) - 1;
        }
    }
    for (unsigned t = 0; t < b->thread_count; t++)
        b->order[t] = (uint16_t)(settings().order == Order::reverse ? b->thread_count - 1 - t : t);
    blockDim = b->dims;
    gridDim = uint3{grid.config.grid.x, grid.config.grid.y, grid.config.grid.z};
}

// Runs the block's threads; false when a failed device assert ended the block first. The
// assert jumps back here from whichever stack it ran on, dropping the frames of every thread of
// the block at once, as a GPU stops all threads of a kernel that asserts. (__builtin_setjmp, not
// setjmp: the C library's longjmp refuses to jump from one stack to another.)
__attribute__((noinline)) bool run_threads_to_end(Block* b) {
    if (__builtin_setjmp(b->abort_jump)) return false;
    run_threads(b, nullptr);
    return true;
}

void run_block(Worker* w, const Grid& grid, uint64_t linear) {
    Block* b = &w->block;
    dim3 g = grid.config.grid;
    blockIdx = uint3{(unsigned)(linear % g.x), (unsigned)(linear / g.x % g.y),
                     (unsigned)(linear / ((uint64_t)g.x * g.y))};
    b->next_start = b->finished = b->at_barrier = 0;
    b->barrier_count = 0;
    b->barrier_mismatch = false;
    b->ready_head = b->ready_count = b->yielded_count = 0;
    std::memset(b->warp_waiting, 0, sizeof b->warp_waiting);
    std::memset(b->converging, 0, sizeof b->converging);
    std::memset(b->tile_barriers, 0, sizeof b->tile_barriers);
    for (unsigned t = 0; t < b->thread_count; t++) b->threads[t].state = UNSTARTED;
    if (settings().order == Order::random) {
        // Seeded per block, so a run is reproducible whichever worker gets which block.
        b->rng = settings().seed * 0x9e3779b97f4a7c15ull + linear;
        shuffle(b->order, b->thread_count, b->rng);
    }  // forward and reverse keep the order setup_block_shape wrote
    if (settings().poison && grid.config.shared_bytes)
        std::memset(dynamic_shared_base, 0xff, grid.config.shared_bytes);
    sanitize_state.in_block = sanitize_enabled || profile_enabled;
    if (sanitize_state.in_block) sanitize_block_start(dynamic_shared_base, grid.config.shared_bytes);
    if (profile_enabled) profile_block_start();
    // After an assert, no thread lives on any stack the block made.
    if (!run_threads_to_end(b)) b->free_stacks = b->all_stacks;
    if (sanitize_state.in_block) sanitize_block_end();
    if (profile_enabled) profile_block_end(b->kernel);
    sanitize_state.in_block = false;
    note_progress();
}

void run_blocks(Worker* w, Grid& grid) {
    Block* b = &w->block;
    b->body = grid.body;
    b->closure = grid.closure;
    b->kernel = grid.kernel;
    b->grid = &grid;
    if (w->dynamic_shared_size < grid.config.shared_bytes || !dynamic_shared_base) {
        free(dynamic_shared_base);
        // --sanitize: a red zone after the buffer, so an access past its end stays inside
        // memory the checks own and can name
        size_t red_zone = sanitize_enabled ? sanitize_red_zone : 0;
        dynamic_shared_base =
            (char*)aligned_alloc(256, (grid.config.shared_bytes + red_zone + 255) / 256 * 256);
        w->dynamic_shared_size = grid.config.shared_bytes;
    }
    setup_block_shape(b, grid);
    inside_block = true;
    watchdog_track(true);
    for (;;) {
        if (device_error() != cudaSuccess) break;  // a block asserted: the launch is over
        uint64_t first = grid.next_block.fetch_add(grid.chunk, std::memory_order_relaxed);
        if (first >= grid.block_count) break;
        uint64_t last = std::min(first + grid.chunk, grid.block_count);
        for (uint64_t linear = first; linear < last; linear++) {
            run_block(w, grid, linear);
            if (grid.config.cooperative) note_block_finished(grid);
            if (settings().order != Order::random) continue;
            for (unsigned t = 0; t < b->thread_count; t++) b->order[t] = (uint16_t)t;
        }
    }
    watchdog_track(false);
    inside_block = false;
}

// The pool: workers sleep until a grid arrives, then take chunks of blocks until none are left.
// The launching thread works too, so N workers means N-1 extra OS threads. A cooperative launch
// needs an OS thread per block (see run_grid): the pool grows to that many, and a grid wakes only
// the helpers it needs.
struct Pool {
    std::mutex mutex;
    std::condition_variable wake, done;
    Grid* grid = nullptr;
    uint64_t generation = 0;
    int busy = 0, wanted = 0;
    std::vector<std::thread> threads;

    void grow(int extra) {  // called with the mutex held, or before any grid runs
        for (int index = (int)threads.size(); index < extra; index++) {
            threads.emplace_back([this, index] {
                uint64_t seen = 0;
                for (;;) {
                    Grid* g;
                    {
                        std::unique_lock<std::mutex> lock(mutex);
                        wake.wait(lock, [&] { return generation != seen && index < wanted; });
                        seen = generation;
                        g = grid;
                    }
                    run_blocks(worker_for_this_thread(), *g);
                    std::lock_guard<std::mutex> lock(mutex);
                    if (--busy == 0) done.notify_all();
                }
            });
            threads.back().detach();
        }
    }

    void run(Grid& g, int helpers) {
        if (g.block_count > 1 && helpers > 0) {
            std::lock_guard<std::mutex> lock(mutex);
            grow(helpers);
            grid = &g;
            busy = wanted = helpers;
            generation++;
            wake.notify_all();
        } else {
            helpers = 0;
        }
        run_blocks(worker_for_this_thread(), g);
        if (helpers) {
            std::unique_lock<std::mutex> lock(mutex);
            done.wait(lock, [&] { return busy == 0; });
        }
    }
};

std::mutex launch_mutex;

Pool& pool() {
    static Pool* p = [] {
        Pool* created = new Pool();  // never destroyed: workers may outlive static destructors
        created->grow(settings().workers - 1);
        return created;
    }();
    return *p;
}

cudaError_t check_config(const LaunchConfig& c) {
    const dim3 &g = c.grid, &b = c.block;
    if (b.x == 0 || b.y == 0 || b.z == 0 || g.x == 0 || g.y == 0 || g.z == 0)
        return cudaErrorInvalidConfiguration;
    if (b.x > (unsigned)max_threads_per_block || b.y > (unsigned)max_threads_per_block ||
        b.z > (unsigned)max_block_dim_z ||
        (uint64_t)b.x * b.y * b.z > (uint64_t)max_threads_per_block)
        return cudaErrorInvalidConfiguration;
    if (g.x > 2147483647u || g.y > 65535u || g.z > 65535u) return cudaErrorInvalidConfiguration;
    if (c.shared_bytes > dynamic_shared_limit()) return cudaErrorInvalidValue;
    return cudaSuccess;
}

}  // namespace

void (*launch_observer)(const LaunchConfig& config, const char* kernel_name) = nullptr;

cudaError_t run_grid(const LaunchConfig& config, const char* kernel_name, void (*body)(void*),
                     void* closure) {
    if (inside_block) fatal("kernel %s launched from inside a kernel: dynamic parallelism is not emulated",
                            kernel_name);
    cudaError_t error = device_error();
    if (error == cudaSuccess) error = check_config(config);
    uint64_t block_count = (uint64_t)config.grid.x * config.grid.y * config.grid.z;
    // A cooperative launch promises that all its blocks are on the device at once, so it may not
    // have more than the multiprocessors hold (the occupancy model's figure times their number).
    int helpers = settings().workers - 1;
    if (error == cudaSuccess && config.cooperative) {
        unsigned threads = config.block.x * config.block.y * config.block.z;
        uint64_t per_sm = (uint64_t)resident_blocks_per_sm(
            (int)threads, config.static_shared_bytes + config.shared_bytes);
        if (block_count > per_sm * device_model().sm_count) {
            error = cudaErrorCooperativeLaunchTooLarge;
        } else if (block_count > per_sm * settings().workers) {
            // The GPU would hold it, the emulator not: each block needs an OS thread (below).
            report("a cooperative launch of %llu blocks (kernel %s): the modelled GPU holds them at "
                   "once, but the emulator runs each block of a cooperative launch on an OS thread of "
                   "its own and holds %llu (%llu per SM x CUDA_EMU_WORKERS=%d): a smaller grid, or "
                   "more workers, runs", (unsigned long long)block_count, kernel_name,
                   (unsigned long long)(per_sm * settings().workers), (unsigned long long)per_sm,
                   settings().workers);
            error = cudaErrorCooperativeLaunchTooLarge;
        }
        // Every block gets an OS thread of its own, so that all can wait at grid.sync() at once:
        // blocks cannot take turns on one OS thread, whose thread_local variables hold the static
        // __shared__ memory of only one block.
        helpers = (int)block_count - 1;
    }
    if (error != cudaSuccess) {
        set_last_error(error);
        return error;
    }
    if (launch_observer) launch_observer(config, kernel_name);
    if (profile_enabled) profile_launch(config, kernel_name);
    note_stream_work(config.stream);
    Grid grid;
    grid.config = config;
    grid.kernel = kernel_name;
    grid.body = body;
    grid.closure = closure;
    grid.block_count = block_count;
    // Chunks of blocks keep the shared counter cool; small enough that cores finish together.
    grid.chunk = config.cooperative ? 1 : std::max<uint64_t>(1, block_count / ((uint64_t)settings().workers * 64));
    std::lock_guard<std::mutex> lock(launch_mutex);
    pool().run(grid, helpers);
    // What went wrong while it ran (an assert) is for the calls after it, as on a GPU, where
    // the launch returns before the kernel runs.
    return cudaSuccess;
}

}  // namespace cuda_emu

// ---- assert() in kernels --------------------------------------------------------------------------
// <assert.h> turns a failed assert into a call of the C library's __assert_fail; this definition,
// linked into the program, takes the place of glibc's. In a kernel it does what a GPU does: print
// the place, the block and the thread, end the launch, and leave the device failed with
// cudaErrorAssert, while the host program runs on. In host code it does what glibc's does.
extern "C" [[noreturn]] void __assert_fail(const char* assertion, const char* file,
                                           unsigned int line, const char* function) noexcept {
    using namespace cuda_emu;
    if (!inside_block) {
        fprintf(stderr, "%s: %s:%u: %s%sAssertion `%s' failed.\n", program_invocation_short_name,
                file, line, function ? function : "", function ? ": " : "", assertion);
        abort();
    }
    // CUDA's own wording, so the message reads as it does on a GPU.
    fprintf(stderr, "%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.\n",
            file, line, function ? function : "", blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x,
            threadIdx.y, threadIdx.z, assertion);
    fail_device(cudaErrorAssert);
    {
        // Blocks of a cooperative launch waiting at grid.sync() must hear of it and end too.
        Grid& g = *this_worker->block.grid;
        std::lock_guard<std::mutex> lock(g.sync_mutex);
        g.sync_done.notify_all();
    }
    abandon_block(&this_worker->block);
}

// ---- clock() in kernels ---------------------------------------------------------------------------
// In a kernel, clock() is the multiprocessor's cycle counter: here, like clock64(), nanoseconds of
// the host's monotonic clock (the 1 GHz the device reports as its clock rate). In host code it is
// the C library's processor time. This definition takes the place of glibc's, as __assert_fail's
// does.
extern "C" clock_t clock(void) noexcept {
    timespec now;
    if (cuda_emu::inside_block) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        return (clock_t)(now.tv_sec * 1000000000LL + now.tv_nsec);
    }
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return (clock_t)(now.tv_sec * CLOCKS_PER_SEC + now.tv_nsec / (1000000000L / CLOCKS_PER_SEC));
}

// ---- Portable context switch for CPUs switch.S does not cover ------------------------------------
#if !defined(__x86_64__) && !defined(__aarch64__)
#include <ucontext.h>
// Slower (swapcontext makes a system call) but correct anywhere POSIX ucontext exists.
static thread_local void (*portable_entry)(void*);
static thread_local void* portable_arg;
static void portable_start() { portable_entry(portable_arg); }
extern "C" void cuda_emu_switch(void** save_sp, void* load_sp) {
    ucontext_t self;
    *save_sp = &self;
    ucontext_t* target = static_cast<ucontext_t*>(load_sp);
    swapcontext(&self, target);
}
void* cuda_emu::prepare_context(char* stack_base, size_t stack_size, void (*entry)(void*), void* arg) {
    ucontext_t* context = reinterpret_cast<ucontext_t*>(stack_base + stack_size - sizeof(ucontext_t) - 64);
    getcontext(context);
    context->uc_stack.ss_sp = stack_base;
    context->uc_stack.ss_size = stack_size - sizeof(ucontext_t) - 128;
    context->uc_link = nullptr;
    portable_entry = entry;
    portable_arg = arg;
    makecontext(context, portable_start, 0);
    return context;
}
#else
extern "C" void cuda_emu_fiber_start();
// Lays out a fresh stack the way cuda_emu_switch expects to find a suspended one: saved registers
// (carrying entry and arg) below a return address that leads into cuda_emu_fiber_start.
void* cuda_emu::prepare_context(char* stack_base, size_t stack_size, void (*entry)(void*), void* arg) {
    uintptr_t* top = reinterpret_cast<uintptr_t*>(((uintptr_t)(stack_base + stack_size)) & ~(uintptr_t)15);
#if defined(__x86_64__)
    uintptr_t* sp = top;
    *--sp = (uintptr_t)cuda_emu_fiber_start;  // return address
    *--sp = 0;                                // rbp
    *--sp = 0;                                // rbx
    *--sp = (uintptr_t)arg;                   // r12
    *--sp = (uintptr_t)entry;                 // r13
    *--sp = 0;                                // r14
    *--sp = 0;                                // r15
    return sp;
#else
    uintptr_t* sp = top - 20;  // 160 bytes: x19..x30, d8..d15
    std::memset(sp, 0, 160);
    sp[0] = (uintptr_t)arg;                   // x19
    sp[1] = (uintptr_t)entry;                 // x20
    sp[11] = (uintptr_t)cuda_emu_fiber_start; // x30, the return address
    return sp;
#endif
}
#endif
