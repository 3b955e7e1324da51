// cooperative_groups/memcpy_async.h - a stand-in for NVIDIA's header under the CPU emulator (common/emu/).
// Asynchronous copying to shared memory is not emulated: this stops the build at the line that
// includes the header, and says what to do instead.
#pragma once
#error "cuda-emu: asynchronous copying to shared memory (memcpy_async, cuda::pipeline, cuda::barrier) is not emulated. Include it and make its calls only when CUDA_EMULATION is not defined (plain loads and stores, then __syncthreads(), copy the same), so that they run on a GPU, built with nvcc"
