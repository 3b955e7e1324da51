// cuda_fp8.h - a stand-in for NVIDIA's header under the CPU emulator (common/emu/).
// 8-bit floating point is not emulated: this stops the build at the line that includes the header,
// and says what to do instead.
#pragma once
#error "cuda-emu: 8-bit floating point is not emulated. Include it and make its calls only when CUDA_EMULATION is not defined, so that they run on a GPU, built with nvcc"
