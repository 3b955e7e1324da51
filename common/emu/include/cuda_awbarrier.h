// cuda_awbarrier.h - a stand-in for NVIDIA's header under the CPU emulator (common/emu/).
// libcu++'s pipelines and barriers are not emulated: this stops the build at the line that
// includes the header, and says what to do instead.
#pragma once
#error "cuda-emu: libcu++'s asynchronous copying (cuda::memcpy_async with cuda::pipeline or cuda::barrier) is not emulated. Include it and make its calls only when CUDA_EMULATION is not defined (the pipeline primitives of <cuda_pipeline.h>, __pipeline_memcpy_async, and cooperative_groups::memcpy_async are emulated), so that they run on a GPU, built with nvcc"
