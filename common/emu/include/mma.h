// mma.h - a stand-in for NVIDIA's header under the CPU emulator (common/emu/).
// Warp matrix multiply-accumulate is not emulated: this stops the build at the line that includes
// the header, and says what to do instead.
#pragma once
#error "cuda-emu: warp matrix multiply-accumulate (WMMA, the tensor cores) is not emulated. Include it and make its calls only when CUDA_EMULATION is not defined (and give the emulator a plain version of the kernel), so that they run on a GPU, built with nvcc"
