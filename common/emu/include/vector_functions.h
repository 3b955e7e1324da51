// vector_functions.h - the CPU emulator's stand-in for NVIDIA's header of the same name (common/emu/).
// Everything the emulator provides lives behind <cuda_runtime.h>; this file exists so that code
// including <vector_functions.h> compiles unchanged, and never reaches a toolkit's copy.
#pragma once
#include "cuda_runtime.h"
