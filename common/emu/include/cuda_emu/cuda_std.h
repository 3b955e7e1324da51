// cuda_emu/cuda_std.h - libcu++'s cuda::std for the CPU emulator (common/emu/). On the CPU the
// standard library's headers serve: cuda::std names them (each <cuda/std/X> includes <X> and
// this). The atomics are libcu++'s own here too (cuda_emu/libcudacxx.h), for their scopes.
#pragma once
namespace cuda {
namespace std {
using namespace ::std;
}  // namespace std
}  // namespace cuda
