// cuda_runtime.h - the CPU emulator's stand-in for NVIDIA's <cuda_runtime.h>.
//
// common/emu/emucc puts common/emu/include/ first on the include path (and pre-includes this file
// into every .cu, as nvcc does), so course code that includes <cuda_runtime.h> gets the emulator
// instead of a GPU. The pieces:
//   cuda_emu/types.h   vector types, dim3, error codes, device properties
//   cuda_emu/api.h     cudaMalloc, cudaMemcpy, streams, events, occupancy, ...
//   cuda_emu/device.h  qualifiers, threadIdx & co., barriers, warp operations, atomics, intrinsics
//   cuda_emu/launch.h  what a rewritten kernel<<<...>>>(...) launch calls
//   cuda_emu/texture.h CUDA arrays, texture objects, tex1Dfetch, tex1D, tex2D, tex3D
//   cuda_emu/graph.h   CUDA graphs: stream capture, cudaGraphAdd*Node, cudaGraphLaunch
// CUDA_EMULATION is 1 here and undefined with the real toolkit, for code that wants to say which
// backend it runs on. Nothing else in a .cu file should need to know.
#pragma once

#define CUDA_EMULATION 1

// The include guards of the toolkit's headers that this one stands in for. Code such as NVIDIA's
// helper_cuda.h tests them to see what has been included; and should a toolkit's own header be
// reached anyway (one the emulator lacks, including a header it replaces), its body is skipped
// instead of defining float4 & co. a second time.
#define __CUDA_RUNTIME_H__
#define __CUDA_RUNTIME_API_H__
#define __DRIVER_TYPES_H__
#define __VECTOR_TYPES_H__
#define __VECTOR_FUNCTIONS_H__
#define __DEVICE_TYPES_H__
#define __DEVICE_LAUNCH_PARAMETERS_H__
#define __TEXTURE_TYPES_H__
#define __SURFACE_TYPES_H__
#define __CHANNEL_DESCRIPTOR_H__
#define __TEXTURE_INDIRECT_FUNCTIONS_H__
#define __CUDA_PROFILER_API_H__
#define __CUDA_DEVICE_RUNTIME_API_H__

// nvcc's headers bring <limits.h> (INT_MAX, UINT_MAX) into every .cu, and code relies on it
#include <climits>

#include "cuda_emu/types.h"
#include "cuda_emu/api.h"
#include "cuda_emu/device.h"
#include "cuda_emu/launch.h"
#include "cuda_emu/texture.h"
#include "cuda_emu/graph.h"
