// launch_syntax.cu - every form of kernel launch the course writes reaches the right kernel with
// the right configuration: a templated kernel in a namespace, launched over several lines with all
// four configuration arguments (grid, block, dynamic shared bytes, stream); a kernel template
// whose argument is deduced; a launch with no arguments; a kernel whose parameter list has an
// #ifdef in it; and "<<<" inside strings and comments left alone.
#include "check.h"

static const char* test_name = "launch_syntax";

namespace kernels {
template <typename T, int SCALE>
__global__ void scale_into_shared(const T* in, T* out, int n) {
    extern __shared__ unsigned char raw[];  // reinterpreted, as real code often does
    T* staged = reinterpret_cast<T*>(raw);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    staged[threadIdx.x] = i < n ? in[i] * SCALE : T(0);
    __syncthreads();
    // Read a neighbour's element: only right if the barrier and per-block buffer work.
    int neighbour = (threadIdx.x + 1) % blockDim.x;
    int j = blockIdx.x * blockDim.x + neighbour;
    if (i < n && j < n) out[i] = staged[neighbour];
}
}  // namespace kernels

template <typename T>
__global__ void fill(T* out, T value, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = value;
}

__device__ int no_argument_calls;
__global__ void count_calls() { atomicAdd(&no_argument_calls, 1); }

// A parameter list that the preprocessor decides, as some of NVIDIA's samples write.
#define OFFSET_PARAMETER
__global__ void offset_fill(float* out,
#ifdef OFFSET_PARAMETER
                            float offset,
#endif
                            int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = offset + i;
}

int main() {
    const char* decoy = "kernel<<<1, 1>>>() in a string";  // must stay text
    /* and in a comment: kernel<<<1, 1>>>(); */
    EXPECT(decoy[6] == '<', "string literal was rewritten");
    const int n = 1000;
    const int threads_per_block = 64;
    int h_in[n], h_out[n];
    for (int i = 0; i < n; i++) h_in[i] = i;
    int *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, sizeof h_in));
    CHECK(cudaMalloc(&d_out, sizeof h_out));
    CHECK(cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_out, 0, sizeof h_out));
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    kernels::scale_into_shared<int, 3>
        <<<(n + threads_per_block - 1) / threads_per_block,  // blocks
           threads_per_block,                                // threads
           threads_per_block * sizeof(int),                  // dynamic shared bytes
           stream>>>(d_in,
                     d_out, n);
    CHECK(cudaGetLastError());
    CHECK(cudaStreamSynchronize(stream));
    CHECK(cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
        int block_start = i / threads_per_block * threads_per_block;
        int j = block_start + (i - block_start + 1) % threads_per_block;
        if (j < n) EXPECT(h_out[i] == 3 * j, "out[%d] = %d, expected %d", i, h_out[i], 3 * j);
    }
    float* d_f;
    CHECK(cudaMalloc(&d_f, 10 * sizeof(float)));
    fill<<<1, 32>>>(d_f, 2.5f, 10);  // T deduced as float
    CHECK(cudaGetLastError());
    float h_f[10];
    CHECK(cudaMemcpy(h_f, d_f, sizeof h_f, cudaMemcpyDeviceToHost));
    EXPECT(h_f[9] == 2.5f, "deduced template kernel wrote %g", h_f[9]);
    offset_fill<<<1, 32>>>(d_f, 0.5f, 10);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h_f, d_f, sizeof h_f, cudaMemcpyDeviceToHost));
    EXPECT(h_f[9] == 9.5f, "the kernel with #ifdef in its parameters wrote %g", h_f[9]);
    count_calls<<<dim3(2, 1, 1), dim3(3)>>>();
    CHECK(cudaGetLastError());
    int calls = 0;
    CHECK(cudaMemcpyFromSymbol(&calls, no_argument_calls, sizeof calls));
    EXPECT(calls == 6, "kernel without arguments ran %d times, expected 6", calls);
    CHECK(cudaStreamDestroy(stream));
    return pass(test_name);
}
