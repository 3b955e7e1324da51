// bug_stack_overflow.cu - a deliberate bug: a recursion far too deep for any stack. The emulator
// reports a stack overflow, naming the kernel, block and thread, on whichever stack the GPU thread
// ran: "host" (the default), the first thread of a block without a barrier, which starts on the
// host thread's own stack; "fresh", thread 1 after a barrier, which started on a stack of its
// own (CUDA_EMU_STACK_KB); "large-array", threads with a local array larger than that stack,
// whose frame moves the stack pointer past its end at once; "host-code", a host function after a
// launch.
#include <cstring>

#include "check.h"

static const char* test_name = "bug_stack_overflow";

// Its frame lives past the call (pad is read after it), so the compiler cannot make it a loop.
__host__ __device__ int depth_sum(int n) {
    volatile char pad[64];
    pad[0] = (char)n;
    if (n == 0) return pad[0];
    int below = depth_sum(n - 1);
    return below + pad[below & 63];
}

__global__ void recurse_at_once(int* out, int n) {
    if (threadIdx.x == 0) out[0] = depth_sum(n);
}

__global__ void recurse_after_barrier(int* out, int n) {
    __syncthreads();
    if (threadIdx.x == 1) out[0] = depth_sum(n);
}

// 300 KB a thread: a GPU gives a thread up to 512 KB of local memory, the emulator 256 KB of stack
__global__ void large_local_array(int* out) {
    volatile char scratch[300 * 1024];
    __syncthreads();
    // the lowest address first: the farthest from where the stack pointer was
    for (int i = 0; i < (int)sizeof scratch; i += 4096) scratch[i] = (char)threadIdx.x;
    out[threadIdx.x] = scratch[4096];
}

int main(int argc, char** argv) {
    const char* where = argc > 1 ? argv[1] : "host";
    const int n = 10 * 1000 * 1000;  // hundreds of MB of frames
    int* d_out;
    CHECK(cudaMalloc(&d_out, 64 * sizeof(int)));
    if (strcmp(where, "fresh") == 0) {
        recurse_after_barrier<<<1, 32>>>(d_out, n);
    } else if (strcmp(where, "large-array") == 0) {
        large_local_array<<<1, 64>>>(d_out);
    } else {
        recurse_at_once<<<1, 32>>>(d_out, strcmp(where, "host") == 0 ? n : 1);
        CHECK(cudaDeviceSynchronize());
        if (strcmp(where, "host-code") == 0) printf("%d\n", depth_sum(n));
    }
    CHECK(cudaDeviceSynchronize());
    printf("FAIL %s: no stack overflow was reported\n", test_name);
    return 1;
}
