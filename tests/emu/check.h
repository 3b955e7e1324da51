// check.h - the little shared by the emulator's self-checking test programs (tests/emu/*.cu).
//
// Each program checks one feature of the CPU emulator (common/emu/) against a CPU reference and
// prints exactly one line, "PASS name" or "FAIL name: what differed", exiting with 0 or 1.
// tests/emu.bats builds them with common/emu/emucc and runs each under every thread order. They
// also compile with nvcc, so the same checks can be run on a real GPU.
#pragma once

#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

// Every CUDA call is checked; a failure names the call and the error.
#define CHECK(call)                                                                          \
    do {                                                                                     \
        cudaError_t status_ = (call);                                                        \
        if (status_ != cudaSuccess) {                                                        \
            printf("FAIL %s: %s:%d: %s returned %s\n", test_name, __FILE__, __LINE__, #call, \
                   cudaGetErrorName(status_));                                               \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)

// Stops at the first mismatch with a description printf-style.
#define EXPECT(condition, ...)                     \
    do {                                           \
        if (!(condition)) {                        \
            printf("FAIL %s: ", test_name);        \
            printf(__VA_ARGS__);                   \
            printf("\n");                          \
            exit(1);                               \
        }                                          \
    } while (0)

inline int pass(const char* name) {
    printf("PASS %s\n", name);
    return 0;
}
