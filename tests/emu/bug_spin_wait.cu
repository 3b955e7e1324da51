// bug_spin_wait.cu - a deliberate bug: thread 0 spins until thread 1 sets a flag in shared
// memory. Threads of a block take turns in the emulator (and warps may too on a GPU), so thread 0
// waits forever; with CUDA_EMU_TIMEOUT=1 the emulator reports the stuck thread instead of hanging.
// (spin_wait.cu waits with __nanosleep() in the loop, which lets the other thread run.)
#include "check.h"

static const char* test_name = "bug_spin_wait";

__global__ void handshake(int* out) {
    __shared__ volatile int flag;
    if (threadIdx.x == 1) flag = 1;
    if (threadIdx.x == 0) {
        while (flag == 0) {
        }  // BUG: nothing guarantees thread 1 runs while thread 0 spins
        *out = 1;
    }
}

int main() {
    int* d_out;
    CHECK(cudaMalloc(&d_out, sizeof(int)));
    handshake<<<1, 2>>>(d_out);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    return pass(test_name);
}
