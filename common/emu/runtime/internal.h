// runtime/internal.h - what the emulator's runtime files share with each other (not with students'
// code, which sees only common/emu/include/).
//
// Part of the CPU emulation backend (common/emu/). The runtime is these files:
//   scheduler.cpp  fibers, barriers, warp operations, the worker pool that runs a grid
//   api.cpp        the CUDA runtime API: memory, streams, events, device properties, errors
//   pools.cpp      stream-ordered allocation: memory pools and the blocks they keep for reuse
//   graphs.cpp     CUDA graphs: their nodes, stream capture, instantiation and launch
//   texture.cpp    CUDA arrays, texture objects and the texture unit's fetches
//   models.cpp     the GPUs the device can be (CUDA_EMU_DEVICE) and their occupancy arithmetic
//   debug.cpp      settings from CUDA_EMU_* variables, bug reports, guard pages, watchdog
//   sanitize.cpp   emucc --sanitize: the checks of every shared-memory access
//   profile.cpp    emucc --profile: memory requests, sectors, bank conflicts, divergence, atomics
// and switch.S, the few instructions that switch from one fiber (emulated GPU thread) to another.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "../include/cuda_runtime.h"

namespace cuda_emu {

// ---- The GPU the emulated device reports being (models.cpp) ------------------------------------
struct DeviceModel {
    const char* key;   // its CUDA_EMU_DEVICE name
    const char* name;  // the part
    int major, minor;  // compute capability
    int sm_count;
    int clock_mhz;  // boost clock
    int threads_per_sm, blocks_per_sm;
    int registers_per_sm, registers_per_block;  // 32-bit registers
    size_t shared_per_sm, shared_per_block_optin, reserved_shared_per_block;
    int shared_allocation_unit;  // bytes: a block's shared memory is rounded up to a multiple
    int fp32_per_fp64;           // FP32 results per FP64 result, per clock
};
extern const char* const default_device_model;
extern const char* const device_model_names;  // for an error message: "t4, a100, ... or h100"
const DeviceModel* find_device_model(const char* key);  // null for an unknown key
const DeviceModel& device_model();                      // the one CUDA_EMU_DEVICE chose
// The most threads a block of a kernel may have with CUDA_EMU_REGISTERS registers per thread.
int register_limited_block_threads();

// ---- Settings (CUDA_EMU_* environment variables, read once) -----------------------------------
enum class Order { forward, reverse, random };
struct Settings {
    Order order = Order::forward;
    uint64_t seed = 1;
    bool guard = false;
    bool poison = false;
    int workers = 1;
    double timeout_seconds = 10;
    size_t stack_bytes = 256 * 1024;
    int registers_per_thread = 32;      // what cudaFuncGetAttributes reports, and occupancy assumes
    size_t local_bytes_per_thread = 0;  // what cudaFuncGetAttributes reports as local memory
    const DeviceModel* device = nullptr;  // the GPU modelled
    bool profile_lines = false;         // --profile's tables per source line too
};
const Settings& settings();

// ---- Reports ----------------------------------------------------------------------------------
// Every message starts with "cuda-emu: ". fatal() prints one, flushes the program's own output
// and ends the process with exit status 1 (the GPU would have hung or silently misbehaved).
// A report that ends the process calls claim_report() before its first line: blocks run on
// every core, and two may meet a bug at the same moment; the first to claim prints its report
// whole, and any other waits there for the process to end.
void report(const char* format, ...) __attribute__((format(printf, 1, 2)));
void claim_report();
[[noreturn]] void fatal(const char* format, ...) __attribute__((format(printf, 1, 2)));
[[noreturn]] void die();

// What the calling OS thread is running right now, for reports ("kernel K, block (..), thread (..)").
struct Location {
    const char* kernel;  // null outside a kernel
    uint3 block;
    uint3 thread;
};
Location current_location();
// Writes "kernel K, block (x,y,z), thread (x,y,z)" or "host code".
void describe(const Location& where, char* text, size_t size);

// ---- Per-OS-thread setup: signal stack, fault reports, the no-progress watchdog ----------------
void prepare_os_thread();
// The same, given back when a host thread that ran blocks ends (its slot, its signal stack).
void release_os_thread();
// Counts barriers reached and threads finished by this OS thread, for the watchdog. Inline: it
// runs at every barrier. Only this thread writes its counter, so a plain increment is enough.
extern __thread std::atomic<uint64_t>* progress_counter;
inline void note_progress() {
    progress_counter->store(progress_counter->load(std::memory_order_relaxed) + 1,
                            std::memory_order_relaxed);
}
void watchdog_track(bool running_a_block);

// ---- Fiber stacks and guarded allocations, for fault reports ----------------------------------
void register_stack_guard(void* guard_page, size_t size);
void unregister_stack_guard(void* guard_page);
void* guarded_alloc(size_t size, const char* file, int line);
void guarded_free(void* ptr);
// Graph memory (graphs.cpp): the address range of a memory alloc node's allocation, fixed when the
// node is made, between protected pages, and readable only while open (allocated), so that any
// access outside the allocation's lifetime is reported as one. Reserved closed; null when out of
// address space. Closing gives the pages back to the system; release gives back the range.
void* graph_region_reserve(size_t size, const char* file, int line);
void graph_region_open(void* data, const char* file, int line);
void graph_region_close(void* data);
void graph_region_release(void* data);

// ---- Context switch (switch.S) ------------------------------------------------------------------
extern "C" void cuda_emu_switch(void** save_sp, void* load_sp);
// Prepares a fresh stack so that switching to the returned stack pointer calls entry(arg).
void* prepare_context(char* stack_base, size_t stack_size, void (*entry)(void*), void* arg);

// ---- Launch limits, shared by the scheduler and the device properties ---------------------------
constexpr int max_threads_per_block = 1024;
constexpr int max_block_dim_z = 64;
constexpr size_t default_shared_per_block = 48 * 1024;
size_t dynamic_shared_limit();
// Blocks of this many threads and bytes of dynamic shared memory an SM of the modelled GPU holds
// at once (models.cpp).
int resident_blocks_per_sm(int block_size, size_t dynamic_shared_bytes);
// Counts a launch (or copy) on `stream` as work the host has not yet waited for (runtime/api.cpp).
void note_stream_work(cudaStream_t stream);
void set_last_error(cudaError_t error);
// A device-side pointer must lie, with all `count` bytes, inside one live device allocation.
bool device_range_ok(const void* ptr, size_t count);
// Whether the host has waited for (or seen finish) the first `work` items queued on `stream`.
bool host_waited_for(cudaStream_t stream, uint64_t work);

// ---- Pinned memory that an asynchronous copy still uses (api.cpp) -----------------------------
// The pages of the host side of a cudaMemcpyAsync, when it is pinned memory, are protected until
// the host waits for the copy; a host thread that touches them first is stopped (debug.cpp).
// While the emulator works on host memory for the program (a copy to or from a CUDA array, a
// graph's copy or host node), emulator_access is above 0, and a fault there lifts the protection
// instead (and a graph's copy of pageable memory draws no note).
extern thread_local int emulator_access;
struct EmulatorAccess {
    EmulatorAccess() { emulator_access++; }
    ~EmulatorAccess() { emulator_access--; }
    EmulatorAccess(const EmulatorAccess&) = delete;
    EmulatorAccess& operator=(const EmulatorAccess&) = delete;
};
// What a memory fault at `address` is to those copies. by_host: the program's host code made it
// (not a kernel, not the emulator). too_early: the copy whose bytes it touched, for the report.
struct EarlyAccess {
    bool into_host;          // the copy writes the host side (device to host), else reads it
    cudaStream_t stream;
    size_t offset, count;    // the byte touched, of the `count` the copy moves
    size_t buffer_size;      // the pinned allocation that holds them
};
enum class CopyFault { not_ours, go_on, too_early };
// may_write: the access may be a write (the processor did not say it was a read).
CopyFault in_flight_copy_fault(const char* address, bool by_host, bool may_write, EarlyAccess* too_early);
// The fault handlers of debug.cpp, installed once for the whole process.
void install_fault_handlers();
// A failed device assert leaves the device failed until cudaDeviceReset, as a GPU's context is:
// from then on the calls that use it return that error, not only the next one.
void fail_device(cudaError_t error);
cudaError_t device_error();

// ---- Memory pools (pools.cpp) -------------------------------------------------------------------
// api.cpp records each block a pool hands out as a device allocation; the pool keeps the rest.
bool pool_exists(cudaMemPool_t pool);  // created and not destroyed (or the default pool)
cudaMemPool_t current_pool();         // the one cudaMallocAsync draws from
// A block of at least `size` bytes for an allocation in `stream`: one freed earlier when one fits,
// else new memory (guard pages under CUDA_EMU_GUARD=1). Null when the pool cannot grow.
void* pool_take(cudaMemPool_t pool, size_t size, cudaStream_t stream, const char* file, int line);
// A block back from cudaFreeAsync (or cudaFree) in `stream`, whose first `work` items include it.
void pool_give_back(cudaMemPool_t pool, void* block, cudaStream_t stream, uint64_t work);
// At a stream, event or device synchronize: each pool releases what it holds beyond its threshold.
void release_pool_memory();

// ---- Graph memory (graphs.cpp and api.cpp) -------------------------------------------------------
// While a graph allocation is allocated, api.cpp records it as a device allocation, so that copies
// and memsets into it are checked as for cudaMalloc memory. Freed (by a free node, cudaFree or
// cudaFreeAsync in `stream` as its item `work`), api.cpp hands it back to graphs.cpp.
void record_graph_allocation(void* start, size_t size, const char* file, int line);
void graph_allocation_freed(void* start, cudaStream_t stream, uint64_t work);
// Frees a graph allocation as cudaFreeAsync(start, stream) does (the free node's work).
cudaError_t free_graph_allocation(void* start, cudaStream_t stream);

// ---- Stream capture (graphs.cpp) ---------------------------------------------------------------
// While capturing(stream) (cuda_emu/launch.h), the stream's work becomes nodes of the capture's
// graph instead of running: api.cpp hands each operation to one of these.
cudaError_t capture_copy(void* dst, const void* src, size_t count, cudaMemcpyKind kind,
                         cudaStream_t stream);
cudaError_t capture_memset(void* dst, int value, size_t count, cudaStream_t stream);
cudaError_t capture_host_function(cudaHostFn_t fn, void* user_data, cudaStream_t stream);
void capture_event_record(cudaEvent_t event, cudaStream_t stream);
bool capture_event_wait(cudaStream_t stream, cudaEvent_t event);  // false: not a capture's event
// cudaMallocAsync and cudaFreeAsync in a capturing stream: a memory alloc node (its address in
// *ptr at once) and a memory free node, whose address must be one such a node allocated.
cudaError_t capture_allocation(void** ptr, size_t size, cudaStream_t stream, const char* file, int line);
cudaError_t capture_free(void* ptr, cudaStream_t stream);
// cudaErrorStreamCaptureUnsupported (and the capture spoilt) for a call a capture forbids.
cudaError_t capture_forbids_unsafe_call();                 // cudaMalloc, cudaMemcpy, ...
cudaError_t capture_forbids_sync(cudaStream_t stream);     // synchronizing a capturing stream

// ---- Launch attributes (api.cpp) ----------------------------------------------------------------
// One attribute of cudaLaunchKernelEx (for_graph_node false) or of cudaGraphKernelNodeSetAttribute,
// checked as CUDA checks it. Not one of theirs, or a value out of its range: cudaErrorInvalidValue,
// after a report naming it (how: the call). Clusters of several blocks: cudaErrorNotSupported.
cudaError_t check_launch_attribute(const cudaLaunchAttribute& attribute, bool for_graph_node, const char* how);

// ---- emucc --sanitize (sanitize.cpp) ------------------------------------------------------------
// What the checks need to know of the running block; the scheduler keeps it up to date (plain
// stores, so programs built without --sanitize pay nothing worth measuring).
struct SanitizeState {
    bool in_block;            // checks are on and a block is running on this worker
    int thread;               // the running GPU thread, as an index within the block
    uint32_t block_serial;    // which block, of all this worker ran
    uint32_t block_epoch;     // __syncthreads completed in this block so far
    uint32_t warp_epoch[max_threads_per_block / 32];  // warp barriers completed, per warp
    uint32_t tile_barriers;   // syncs of tiles of more than 32 threads completed in this block
};
extern __thread SanitizeState sanitize_state;
extern bool sanitize_enabled;  // set when the program was compiled with emucc --sanitize
extern bool profile_enabled;   // set when the program was compiled with emucc --profile
// Bytes after the dynamic shared-memory buffer in which an access is reported as out of bounds.
constexpr size_t sanitize_red_zone = 4096;
void sanitize_block_start(char* dynamic_base, size_t dynamic_bytes);
void sanitize_block_end();
void sanitize_mark_atomic(void* address, size_t size);
// A cooperative_groups tile of more than 32 threads, `count` warps from `first_warp`, has passed its
// sync(): what its threads did before is ordered before what they do after.
void sanitize_tile_barrier(unsigned first_warp, unsigned count);
// Device allocations, for reads of global memory nobody wrote: tracked from cudaMalloc to
// cudaFree; copies and memsets into them count as writes.
// watch_writes: also keep which bytes were written (--sanitize); --profile only needs the extent.
void sanitize_track(const void* start, size_t size, const char* file, int line, bool watch_writes);
void sanitize_untrack(const void* start);
void sanitize_mark_written(const void* start, size_t size);
// "file:line" of a code address, from the program's debug information (addr2line).
void code_line(const void* pc, bool is_return_address, char* text, size_t size);
// Where an address a kernel touches lies, by the same bookkeeping: shared memory (a registered
// static __shared__ variable or the dynamic buffer), a device allocation (global memory; *base:
// where the allocation starts, as the GPU aligns sectors to it), or neither (the thread's stack,
// the program's own variables), which the profile does not count.
enum class Space { none, shared, global };
Space memory_space(const void* address, const char** base);

// ---- emucc --profile (profile.cpp) --------------------------------------------------------------
// sanitize.cpp hands it each load and store of a running block (instrumented as for --sanitize),
// the scheduler each launch and each block's start and end.
void profile_access(const void* address, size_t size, bool writes, const void* pc);
void profile_launch(const LaunchConfig& config, const char* kernel_name);
void profile_block_start();
// A static __shared__ variable of `size` bytes at `start`, declared by the running block's code.
void profile_static_shared(const void* start, size_t size);
void profile_block_end(const char* kernel_name);
// Called once at startup by enable_checks; per_line: emucc --lines.
void start_profile(bool per_line);

}  // namespace cuda_emu
