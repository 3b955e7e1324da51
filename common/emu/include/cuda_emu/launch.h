// cuda_emu/launch.h - how a rewritten kernel launch reaches the emulator's scheduler.
//
// Part of the CPU emulation backend (common/emu/); <cuda_runtime.h> includes it.
// emucc's source rewriter (common/emu/rewrite.c) turns
//     scale<float><<<blocks, threads, shared_bytes, stream>>>(d_x, 2.0f, n);
// into
//     ::cuda_emu::launch(::cuda_emu::config(blocks, threads, shared_bytes, stream), "scale<float>",
//         [&](auto&&... cuda_emu_args) { scale<float>(cuda_emu_args...); }, d_x, 2.0f, n);
// The lambda lets the C++ compiler pick the kernel exactly as it picks any function (template
// argument deduction, overloads, implicit conversions). launch() copies the arguments once, as
// the GPU copies them into its parameter memory, and the scheduler then calls the lambda once per
// GPU thread, so every thread gets its own copy of each parameter.
#pragma once

#include <tuple>
#include <type_traits>
#include <utility>

#include "types.h"

namespace cuda_emu {

struct LaunchConfig {
    dim3 grid;
    dim3 block;
    size_t shared_bytes;
    cudaStream_t stream;
};

inline LaunchConfig config(dim3 grid, dim3 block, size_t shared_bytes = 0, cudaStream_t stream = 0) {
    return LaunchConfig{grid, block, shared_bytes, stream};
}

// Runs body(closure) once per thread of every block (runtime/scheduler.cpp). A bad configuration
// is recorded for cudaGetLastError and nothing runs, as on a GPU.
void run_grid(const LaunchConfig& config, const char* kernel_name, void (*body)(void*),
              void* closure);

// When set, run_grid calls it with each valid launch's configuration before the launch runs:
// common/workbook.cu records launches there to warn about grids that under-fill the device.
extern void (*launch_observer)(const LaunchConfig& config, const char* kernel_name);

template <class Kernel, class... Args>
void launch(const LaunchConfig& config, const char* kernel_name, Kernel&& kernel, Args&&... args) {
    struct Closure {
        Kernel* kernel;
        std::tuple<std::decay_t<Args>...> params;
    };
    Closure closure{&kernel, std::tuple<std::decay_t<Args>...>(std::forward<Args>(args)...)};
    run_grid(config, kernel_name,
             [](void* p) {
                 Closure* c = static_cast<Closure*>(p);
                 std::apply(*c->kernel, c->params);
             },
             &closure);
}

}  // namespace cuda_emu
