// runtime/models.cpp - the GPUs the emulated device can pretend to be (CUDA_EMU_DEVICE).
//
// Part of the CPU emulation backend (common/emu/). Kernels run on however many CPU threads
// CUDA_EMU_WORKERS gives; what the program is told about the device (cudaGetDeviceProperties,
// cudaDeviceGetAttribute, the occupancy API, and so the launch warnings of common/workbook.cu)
// is one real GPU's, so that a launch that would leave a real GPU's SMs idle is warned about on a
// laptop too. Sources: the SM counts, clocks and FP64 rates are NVIDIA's data sheets; the per-SM
// limits are the CUDA C Programming Guide's table "Technical Specifications per Compute
// Capability"; the allocation units and the reserved shared memory are those of the toolkit's
// cuda_occupancy.h. COURSE.md's chapter "GPU limits by compute capability" shows the same
// figures, and tests/course.bats keeps the two equal.
#include <algorithm>
#include <cstring>

#include "internal.h"

namespace cuda_emu {

namespace {
constexpr size_t KiB = 1024;

const DeviceModel models[] = {
    // key, name, compute capability, SMs, boost clock (MHz), threads, blocks per SM; registers
    // per SM and per block; shared memory per SM, per block with opt-in, reserved per block, its
    // allocation unit; FP32 results per FP64 result
    {"t4", "NVIDIA T4", 7, 5, 40, 1590, 1024, 16, 65536, 65536, 64 * KiB, 64 * KiB, 0, 256, 32},
    {"a100", "NVIDIA A100 SXM4 80GB", 8, 0, 108, 1410, 2048, 32, 65536, 65536, 164 * KiB,
     163 * KiB, 1 * KiB, 128, 2},
    {"rtx3060", "GeForce RTX 3060", 8, 6, 28, 1777, 1536, 16, 65536, 65536, 100 * KiB, 99 * KiB,
     1 * KiB, 128, 64},
    {"rtx4090", "GeForce RTX 4090", 8, 9, 128, 2520, 1536, 24, 65536, 65536, 100 * KiB, 99 * KiB,
     1 * KiB, 128, 64},
    {"l4", "NVIDIA L4", 8, 9, 58, 2040, 1536, 24, 65536, 65536, 100 * KiB, 99 * KiB, 1 * KiB, 128,
     64},
    {"h100", "NVIDIA H100 SXM5 80GB", 9, 0, 132, 1980, 2048, 32, 65536, 65536, 228 * KiB,
     227 * KiB, 1 * KiB, 128, 2},
};
}  // namespace

const char* const default_device_model = "h100";
const char* const device_model_names = "t4, a100, rtx3060, rtx4090, l4 or h100";

const DeviceModel* find_device_model(const char* key) {
    for (const DeviceModel& m : models)
        if (strcmp(m.key, key) == 0) return &m;
    return nullptr;
}

const DeviceModel& device_model() { return *settings().device; }

namespace {
// Registers go to warps in units of 256, and all of a warp's come from one of the SM's 4
// sub-partitions (one warp scheduler each), which therefore holds a whole number of warps.
constexpr int register_unit = 256, sub_partitions = 4;
int registers_per_warp() { return (settings().registers_per_thread * 32 + register_unit - 1) / register_unit * register_unit; }
}  // namespace

int register_limited_block_threads() {
    int warps = device_model().registers_per_block / registers_per_warp() / sub_partitions * sub_partitions;
    return std::min(max_threads_per_block, warps * 32);
}

// The blocks of `block_size` threads, each with `dynamic_smem` bytes of dynamic shared memory, that
// one SM holds at once: the tightest of four limits, counted as cuda_occupancy.h counts them.
int resident_blocks_per_sm(int block_size, size_t dynamic_smem) {
    const DeviceModel& m = device_model();
    if (block_size <= 0 || block_size > max_threads_per_block || dynamic_smem > m.shared_per_block_optin)
        return 0;
    int warps = (block_size + 31) / 32;
    int by_threads = m.threads_per_sm / 32 / warps;
    // The launch check counts a block's warps in whole rounds over the sub-partitions.
    int rounded_warps = (warps + sub_partitions - 1) / sub_partitions * sub_partitions;
    if (registers_per_warp() * rounded_warps > m.registers_per_block) return 0;
    int warps_by_registers = m.registers_per_sm / sub_partitions / registers_per_warp() * sub_partitions;
    int by_registers = warps_by_registers / warps;
    size_t unit = (size_t)m.shared_allocation_unit;
    size_t block_shared = (dynamic_smem + m.reserved_shared_per_block + unit - 1) / unit * unit;
    int by_shared = block_shared > 0 ? (int)(m.shared_per_sm / block_shared) : m.blocks_per_sm;
    return std::min({m.blocks_per_sm, by_threads, by_registers, by_shared});
}

}  // namespace cuda_emu
