// nccl.h - a stand-in for NVIDIA's header under the CPU emulator (common/emu/).
// NCCL is not emulated: this stops the build at the line that includes the header, and says
// what to do instead.
#pragma once
#error "cuda-emu: NCCL is not emulated. Include it and make its calls only when CUDA_EMULATION is not defined (lesson 09 keeps its nccl row behind HAVE_NCCL, which only its nvcc build defines), so that they run on a GPU, built with nvcc"
