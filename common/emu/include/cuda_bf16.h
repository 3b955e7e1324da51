// cuda_bf16.h - a stand-in for NVIDIA's header under the CPU emulator (common/emu/).
// bfloat16 is not emulated: this stops the build at the line that includes the header, and says
// what to do instead.
#pragma once
#error "cuda-emu: bfloat16 is not emulated. Include it and make its calls only when CUDA_EMULATION is not defined (__half, from cuda_fp16.h, is emulated), so that they run on a GPU, built with nvcc"
