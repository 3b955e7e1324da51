// shared_2d.cu - a dynamic shared array with a second dimension, `extern __shared__ T s[][N]`,
// inside a kernel and at file scope, and one declared with __shared__ after the type
// (`extern float __shared__ s[]`, as some of NVIDIA's samples write it): a tile transposed
// through each comes out right.
#include "check.h"

static const char* test_name = "shared_2d";

constexpr int tile = 16;
constexpr int padded = tile + 1;  // one extra column, as in the course's transpose

extern __shared__ float file_scope_rows[][padded];

__global__ void transpose_in_kernel(const float* in, float* out) {
    extern __shared__ float rows[][padded];
    rows[threadIdx.y][threadIdx.x] = in[threadIdx.y * tile + threadIdx.x];
    __syncthreads();
    out[threadIdx.y * tile + threadIdx.x] = rows[threadIdx.x][threadIdx.y];
}

__global__ void transpose_at_file_scope(const float* in, float* out) {
    file_scope_rows[threadIdx.y][threadIdx.x] = in[threadIdx.y * tile + threadIdx.x];
    __syncthreads();
    out[threadIdx.y * tile + threadIdx.x] = file_scope_rows[threadIdx.x][threadIdx.y];
}

__global__ void transpose_qualifier_after_type(const float* in, float* out) {
    extern float __shared__ __align__(16) flat[];
    flat[threadIdx.y * padded + threadIdx.x] = in[threadIdx.y * tile + threadIdx.x];
    __syncthreads();
    out[threadIdx.y * tile + threadIdx.x] = flat[threadIdx.x * padded + threadIdx.y];
}

int main() {
    const int n = tile * tile;
    float h_in[n], h_out[n];
    for (int i = 0; i < n; i++) h_in[i] = (float)i;
    float *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, sizeof h_in));
    CHECK(cudaMalloc(&d_out, sizeof h_out));
    CHECK(cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice));
    size_t shared_bytes = tile * padded * sizeof(float);
    for (int variant = 0; variant < 3; variant++) {
        CHECK(cudaMemset(d_out, 0, sizeof h_out));
        if (variant == 0)
            transpose_in_kernel<<<1, dim3(tile, tile), shared_bytes>>>(d_in, d_out);
        else if (variant == 1)
            transpose_at_file_scope<<<1, dim3(tile, tile), shared_bytes>>>(d_in, d_out);
        else
            transpose_qualifier_after_type<<<1, dim3(tile, tile), shared_bytes>>>(d_in, d_out);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost));
        for (int r = 0; r < tile; r++)
            for (int c = 0; c < tile; c++)
                EXPECT(h_out[r * tile + c] == h_in[c * tile + r], "variant %d: out[%d][%d] = %g",
                       variant, r, c, h_out[r * tile + c]);
    }
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    return pass(test_name);
}
