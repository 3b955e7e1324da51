// bug_out_of_bounds.cu - a deliberate bug: the bounds check uses <= instead of <, so the thread
// with i == n writes one float past the end of the output. Run with CUDA_EMU_GUARD=1, the
// emulator stops at that write and names the allocation (size, file:line), the offset, and the
// block and thread that made it. With an argument, the same kernel is launched through a pointer:
// "pointer" passes it to a helper that launches `kernel<<<...>>>`, "cudaLaunchKernel" casts it
// to void*; the report still names `copy`.
#include <cstring>

#include "check.h"

static const char* test_name = "bug_out_of_bounds";
constexpr int threads_per_block = 64;

__global__ void copy(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) out[i] = i < n ? in[i] : 0.0f;  // BUG: should be i < n
}

using CopyKernel = void (*)(const float*, float*, int);

static void launch_through_pointer(CopyKernel kernel, int blocks, const float* in, float* out, int n) {
    kernel<<<blocks, threads_per_block>>>(in, out, n);
}

int main(int argc, char** argv) {
    const char* how = argc > 1 ? argv[1] : "direct";
    const int n = 100;
    float *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    CHECK(cudaMalloc(&d_out, n * sizeof(float)));  // the allocation that is overrun
    CHECK(cudaMemset(d_in, 0, n * sizeof(float)));
    const int blocks = (n + threads_per_block - 1) / threads_per_block;
    if (strcmp(how, "pointer") == 0) {
        launch_through_pointer(copy, blocks, d_in, d_out, n);
    } else if (strcmp(how, "cudaLaunchKernel") == 0) {
        int count = n;
        void* args[] = {&d_in, &d_out, &count};
        CHECK(cudaLaunchKernel((const void*)copy, dim3(blocks), dim3(threads_per_block), args, 0, 0));
    } else {
        copy<<<blocks, threads_per_block>>>(d_in, d_out, n);
    }
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    return pass(test_name);
}
