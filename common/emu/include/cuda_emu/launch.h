// cuda_emu/launch.h - how a rewritten kernel launch reaches the emulator's scheduler.
//
// Part of the CPU emulation backend (common/emu/); <cuda_runtime.h> includes it.
// emucc's source rewriter (common/emu/rewrite.c) turns
//     scale<float><<<blocks, threads, shared_bytes, stream>>>(d_x, 2.0f, n);
// into
//     ::cuda_emu::launch(::cuda_emu::config(blocks, threads, shared_bytes, stream), "scale<float>",
//         [=](auto&&... cuda_emu_args) { scale<float>(cuda_emu_args...); }, d_x, 2.0f, n);
// The lambda lets the C++ compiler pick the kernel exactly as it picks any function (template
// argument deduction, overloads, implicit conversions). launch() copies the arguments once, as
// the GPU copies them into its parameter memory, and the scheduler then calls the lambda once per
// GPU thread, so every thread gets its own copy of each parameter.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
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
    bool cooperative;  // by cudaLaunchCooperativeKernel: all blocks at once, grid.sync() allowed
    size_t static_shared_bytes = 0;  // the kernel's static __shared__ variables, when known
};

inline LaunchConfig config(dim3 grid, dim3 block, size_t shared_bytes = 0, cudaStream_t stream = 0) {
    return LaunchConfig{grid, block, shared_bytes, stream, false};
}

// Runs body(closure) once per thread of every block (runtime/scheduler.cpp). A bad configuration
// is recorded for cudaGetLastError and returned, and nothing runs, as on a GPU.
cudaError_t run_grid(const LaunchConfig& config, const char* kernel_name, void (*body)(void*),
                     void* closure);

// When set, run_grid calls it with each valid launch's configuration before the launch runs:
// common/workbook.cu records launches there to warn about grids that under-fill the device.
extern void (*launch_observer)(const LaunchConfig& config, const char* kernel_name);

// A kernel with its arguments already copied, to be run later with a configuration: what a graph's
// kernel node keeps (runtime/graphs.cpp).
using BoundKernel = std::function<cudaError_t(const LaunchConfig& config)>;

// Whether work issued to `stream` is being recorded into a graph (cudaStreamBeginCapture) instead
// of run; then a launch becomes a kernel node of that graph (runtime/graphs.cpp).
bool capturing(cudaStream_t stream);
cudaError_t capture_kernel(const LaunchConfig& config, const char* kernel_name, BoundKernel kernel);

// Runs kernel(params...) as one grid. Every GPU thread calls the kernel with the same tuple, and
// the kernel's by-value parameters give each thread its own copy, as on a GPU.
template <class Kernel, class Params>
cudaError_t run_bound(const LaunchConfig& config, const char* kernel_name, Kernel& kernel,
                      Params& params) {
    struct Closure {
        Kernel* kernel;
        Params* params;
    };
    Closure closure{&kernel, &params};
    return run_grid(config, kernel_name,
             [](void* p) {
                 Closure* c = static_cast<Closure*>(p);
                 std::apply(*c->kernel, *c->params);
             },
             &closure);
}

// What the program noted at startup about the kernel at this address: its name (null if none) and
// the bytes of its static __shared__ variables (runtime/api.cpp).
const char* noted_kernel_name(const void* kernel);
std::size_t static_shared_bytes(const void* kernel);
// The same bytes of the kernel noted at startup under this name, and of the functions it calls;
// 0 when no one kernel has it (an overload, a template's instance).
std::size_t named_kernel_static_shared(const char* name);

// The kernel a launch reached through a pointer: `kernel<<<...>>>` in a helper that takes the
// kernel as a parameter, or cudaLaunchKernel. The launch's lambda then holds that pointer as its
// one capture (a kernel named directly is not captured). Null when there is none.
template <class Body>
const void* captured_kernel(const Body& body) {
    const void* captured = nullptr;
    if constexpr (sizeof(Body) == sizeof(const void*) && std::is_trivially_copyable<Body>::value)
        std::memcpy(&captured, &body, sizeof captured);
    return captured;
}

// The launch's text names the kernel (`copy<<<...>>>`), unless the kernel was reached through a
// pointer: then the kernel it points to has the name to report, when the program noted it.
template <class Body>
const char* launched_kernel_name(const char* text, const Body& body) {
    const char* noted = noted_kernel_name(captured_kernel(body));
    return noted ? noted : text;
}

template <class Kernel, class... Args>
cudaError_t launch(const LaunchConfig& launch_config, const char* kernel_text, Kernel&& kernel,
                   Args&&... args) {
    const char* kernel_name = launched_kernel_name(kernel_text, kernel);
    // A cooperative launch counts them to see whether its grid fits, and launch_observer's
    // occupancy figures need them. A kernel named in the launch is not captured: its name finds it.
    LaunchConfig config = launch_config;
    const void* captured = captured_kernel(kernel);
    config.static_shared_bytes =
        captured ? static_shared_bytes(captured) : named_kernel_static_shared(kernel_text);
    using Params = std::tuple<std::decay_t<Args>...>;
    if (capturing(config.stream)) {
        // Captured: the node keeps copies of the kernel and of the arguments' values now, so a
        // launch captured in a loop sees each iteration's values, as with CUDA.
        return capture_kernel(config, kernel_name,
                              [kernel = std::decay_t<Kernel>(kernel),
                               params = Params(std::forward<Args>(args)...),
                               kernel_name](const LaunchConfig& run_config) mutable {
                                  return run_bound(run_config, kernel_name, kernel, params);
                              });
    }
    Params params(std::forward<Args>(args)...);  // the GPU's parameter memory
    return run_bound(config, kernel_name, kernel, params);
}

// cudaLaunchKernel and cudaLaunchCooperativeKernel: args[i] points to the i-th argument. Reading
// them needs the kernel's parameter types, which the kernel's own type carries.
template <class... Params, std::size_t... I>
cudaError_t launch_from_pointers(void (*kernel)(Params...), const LaunchConfig& config, void** args,
                                 const char* how, std::index_sequence<I...>) {
    return launch(config, how, [kernel](auto&&... cuda_emu_args) { kernel(cuda_emu_args...); },
                  *static_cast<std::decay_t<Params>*>(args[I])...);
}

// cudaGraphAddKernelNode: the arguments args[i] point to are copied when the node is made.
template <class... Params, std::size_t... I>
BoundKernel bind_from_pointers(void (*kernel)(Params...), void** args, std::index_sequence<I...>) {
    auto body = [kernel](auto&&... cuda_emu_args) { kernel(cuda_emu_args...); };
    std::tuple<std::decay_t<Params>...> params(*static_cast<std::decay_t<Params>*>(args[I])...);
    const char* name = launched_kernel_name("added by cudaGraphAddKernelNode", body);
    return [body, params, name](const LaunchConfig& config) mutable {
        return run_bound(config, name, body, params);
    };
}

// A kernel cast to void* has lost the parameter types that reading args needs. The typed calls that
// come before a cooperative launch (the occupancy queries, cudaFuncGetAttributes and
// cudaFuncSetAttribute) and typed launches leave a launcher for the kernel's address
// (runtime/api.cpp keeps the table), where a launch through void* finds it.
// The same table gives graphs a binder, which copies the arguments into a BoundKernel. emucc's
// rewriter notes every kernel defined at namespace scope (not templates) when the program starts,
// so that cudaGraphAddKernelNode and cudaLaunchKernel find even a kernel only ever used as void*.
using KernelLauncher = cudaError_t (*)(const void* kernel, const LaunchConfig& config, void** args,
                                       const char* how);
using KernelBinder = BoundKernel (*)(const void* kernel, void** args);
// name: the kernel's name, from note_kernel_at_startup; null keeps the name noted before.
void remember_launcher(const void* kernel, KernelLauncher launcher, KernelBinder binder,
                       const char* name = nullptr);
KernelLauncher launcher_for(const void* kernel, const char* how);  // null, after a report, if none
KernelBinder binder_for(const void* kernel);                       // null if none, no report

template <class... Params>
cudaError_t launch_typed(const void* kernel, const LaunchConfig& config, void** args, const char* how) {
    if (sizeof...(Params) > 0 && !args) return cudaErrorInvalidValue;
    auto typed = reinterpret_cast<void (*)(Params...)>(const_cast<void*>(kernel));
    return launch_from_pointers(typed, config, args, how, std::index_sequence_for<Params...>());
}

template <class... Params>
BoundKernel bind_typed(const void* kernel, void** args) {
    auto typed = reinterpret_cast<void (*)(Params...)>(const_cast<void*>(kernel));
    return bind_from_pointers(typed, args, std::index_sequence_for<Params...>());
}

template <class... Params>
KernelLauncher launcher_of(void (*)(Params...)) { return &launch_typed<Params...>; }

template <class... Params>
void note_kernel(void (*kernel)(Params...), const char* name) {
    remember_launcher(reinterpret_cast<const void*>(kernel), launcher_of(kernel), &bind_typed<Params...>,
                      name);
}

template <class... Params>
void note_kernel(void (*kernel)(Params...)) {
    note_kernel(kernel, nullptr);
}

// What the rewriter puts after each kernel definition: Function is the kernel's type, written out
// from its parameter list, which picks the right one of overloaded kernels; name is the kernel's
// name, for the reports of a launch that reaches it through a pointer.
#define CUDA_EMU_PASTE(a, b) a##b
#define CUDA_EMU_NOTED_KERNEL(n) CUDA_EMU_PASTE(cuda_emu_noted_kernel_, n)
template <class Function>
bool note_kernel_at_startup(Function* kernel, const char* name) {
    note_kernel(kernel, name);
    return true;
}

// What the rewriter puts after each static __shared__ variable in a kernel's body: the variable's
// size is added to the kernel's static shared memory when the program starts (the initializer of
// a class template's static member runs then, once for each Id), as a GPU's compiler records it.
void note_static_shared(const void* kernel, std::size_t bytes);
template <auto Kernel, std::size_t Bytes, int Id>
struct StaticShared {
    static const bool noted;
};
template <auto Kernel, std::size_t Bytes, int Id>
const bool StaticShared<Kernel, Bytes, Id>::noted =
    (note_static_shared(reinterpret_cast<const void*>(Kernel), Bytes), true);

// The same for __device__ functions, known by a number made from their name (Function): the
// rewriter notes the size of each of their static __shared__ variables (Variable: its name and
// line), and the functions each kernel and each __device__ function calls, so that a kernel
// counts the variables of every function it reaches. A function in a header, compiled into
// several files, is noted once: the template's instance is one in the whole program.
void note_function_shared(std::uint64_t function, std::uint64_t variable, std::size_t bytes);
void note_kernel_calls(const void* kernel, std::uint64_t function);
void note_function_calls(std::uint64_t caller, std::uint64_t function);
template <std::uint64_t Function, std::uint64_t Variable, std::size_t Bytes>
struct FunctionShared {
    static const bool noted;
};
template <std::uint64_t Function, std::uint64_t Variable, std::size_t Bytes>
const bool FunctionShared<Function, Variable, Bytes>::noted =
    (note_function_shared(Function, Variable, Bytes), true);
template <auto Kernel, std::uint64_t Function>
struct KernelCalls {
    static const bool noted;
};
template <auto Kernel, std::uint64_t Function>
const bool KernelCalls<Kernel, Function>::noted =
    (note_kernel_calls(reinterpret_cast<const void*>(Kernel), Function), true);
template <std::uint64_t Caller, std::uint64_t Function>
struct FunctionCalls {
    static const bool noted;
};
template <std::uint64_t Caller, std::uint64_t Function>
const bool FunctionCalls<Caller, Function>::noted = (note_function_calls(Caller, Function), true);

template <class T>
cudaError_t launch_kernel(T* kernel, const LaunchConfig& config, void** args, const char* how) {
    if constexpr (std::is_function<T>::value) {
        note_kernel(kernel);
        return launcher_of(kernel)(reinterpret_cast<const void*>(kernel), config, args, how);
    } else {
        KernelLauncher launcher = launcher_for(kernel, how);
        if (!launcher) return cudaErrorInvalidDeviceFunction;
        return launcher(kernel, config, args, how);
    }
}

}  // namespace cuda_emu

// T is the kernel's function type, as in CUDA's C++ overloads, or void for (void*)kernel; a bad
// launch also leaves its error for cudaGetLastError.
template <class T>
cudaError_t cudaLaunchKernel(T* kernel, dim3 grid, dim3 block, void** args,
                             size_t shared_bytes = 0, cudaStream_t stream = 0) {
    return ::cuda_emu::launch_kernel(kernel, {grid, block, shared_bytes, stream, false}, args,
                                     "launched by cudaLaunchKernel");
}
// All blocks of the grid run at once, so that the kernel may wait at grid.sync() (cooperative
// groups); a grid larger than the device holds at once fails with cudaErrorCooperativeLaunchTooLarge.
template <class T>
cudaError_t cudaLaunchCooperativeKernel(T* kernel, dim3 grid, dim3 block, void** args,
                                        size_t shared_bytes = 0, cudaStream_t stream = 0) {
    return ::cuda_emu::launch_kernel(kernel, {grid, block, shared_bytes, stream, true}, args,
                                     "launched by cudaLaunchCooperativeKernel");
}

// ---- cudaLaunchKernelEx: a launch configured by a struct with a list of attributes -------------
namespace cuda_emu {
// Reads the configuration and checks its attributes (runtime/api.cpp): cooperative launch is
// honoured; the hints are accepted and change nothing; clusters of several blocks are refused.
cudaError_t launch_ex_config(const cudaLaunchConfig_t* config, LaunchConfig* launch);
// Records the programmatic and launch-completion events the attributes name, after the launch.
cudaError_t launch_ex_events(const cudaLaunchConfig_t* config);
}  // namespace cuda_emu

// args[i] points to the i-th argument, as for cudaLaunchKernel; T is void for (void*)kernel.
template <class T>
cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t* config, T* kernel, void** args) {
    ::cuda_emu::LaunchConfig launch;
    if (cudaError_t bad = ::cuda_emu::launch_ex_config(config, &launch)) return bad;
    cudaError_t result = ::cuda_emu::launch_kernel(kernel, launch, args, "launched by cudaLaunchKernelEx");
    return result != cudaSuccess ? result : ::cuda_emu::launch_ex_events(config);
}
// The arguments themselves, each converted to its parameter's type as in a call.
template <class... Params, class... Args>
cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t* config, void (*kernel)(Params...), Args&&... args) {
    static_assert(sizeof...(Args) == sizeof...(Params),
                  "cudaLaunchKernelEx takes one argument for each of the kernel's parameters");
    std::tuple<std::decay_t<Params>...> values(std::forward<Args>(args)...);
    return std::apply(
        [&](auto&... value) {
            void* pointers[] = {static_cast<void*>(&value)..., nullptr};
            return cudaLaunchKernelExC(config, kernel, pointers);
        },
        values);
}
