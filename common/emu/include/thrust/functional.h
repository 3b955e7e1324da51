// thrust/functional.h - a stand-in for NVIDIA's header under the CPU emulator (common/emu/).
// Thrust is not emulated: this stops the build at the line that includes the header, and says what
// to do instead.
#pragma once
#error "cuda-emu: Thrust is not emulated. Include it and make its calls only when CUDA_EMULATION is not defined (as lesson 05 keeps its CUB row), so that they run on a GPU, built with nvcc"
