// cuda_awbarrier.h - a stand-in for NVIDIA's header under the CPU emulator (common/emu/).
// Its experimental arrive-wait barrier (nvcuda::experimental::awbarrier) is not emulated: this
// stops the build at the line that includes the header, and says what to use instead.
#pragma once
#error "cuda-emu: the experimental arrive-wait barrier of <cuda_awbarrier.h> (nvcuda::experimental::awbarrier) is not emulated. libcu++'s cuda::barrier (<cuda/barrier>: init, arrive, wait, arrive_and_wait, arrive_and_drop) does the same and is emulated; or include this header only when CUDA_EMULATION is not defined, so that it runs on a GPU, built with nvcc"
