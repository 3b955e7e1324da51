// cuda_pipeline.h - for the CPU emulator (common/emu/): the pipeline primitives
// (__pipeline_memcpy_async, __pipeline_commit, __pipeline_wait_prior), which this header brings
// with the toolkit too. Its nvcuda::experimental::pipeline class is not emulated.
#pragma once

#include "cuda_pipeline_primitives.h"
