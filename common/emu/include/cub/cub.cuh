// cub/cub.cuh - a stand-in for NVIDIA's header under the CPU emulator (common/emu/).
// CUB is not emulated: this stops the build at the line that includes the header, and says
// what to do instead.
#pragma once
#error "cuda-emu: CUB is not emulated. Include it and make its calls only when CUDA_EMULATION is not defined (as lesson 05 keeps its cub row), so that they run on a GPU, built with nvcc"
