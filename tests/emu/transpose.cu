// transpose.cu - a tiled matrix transpose through a padded shared tile (2D grid, 2D blocks of
// 32 x 8 threads, each thread moving 4 elements) is right for shapes that are not multiples of
// the tile: 1 x 1, 37 x 61 and 33 x 1024.
#include "check.h"

static const char* test_name = "transpose";
constexpr int tile = 32;         // a warp's width
constexpr int block_rows = 8;    // 32 x 8 threads, each copying tile / block_rows = 4 elements

__global__ void transpose(const float* in, float* out, int rows, int cols) {
    __shared__ float buffer[tile][tile + 1];  // +1 column: no bank conflicts on a GPU
    int col = blockIdx.x * tile + threadIdx.x;
    int row = blockIdx.y * tile + threadIdx.y;
    for (int k = 0; k < tile; k += block_rows)
        if (row + k < rows && col < cols) buffer[threadIdx.y + k][threadIdx.x] = in[(row + k) * cols + col];
    __syncthreads();  // the tile is read transposed: other threads' elements
    int out_col = blockIdx.y * tile + threadIdx.x;
    int out_row = blockIdx.x * tile + threadIdx.y;
    for (int k = 0; k < tile; k += block_rows)
        if (out_row + k < cols && out_col < rows)
            out[(out_row + k) * rows + out_col] = buffer[threadIdx.x][threadIdx.y + k];
}

int main() {
    const int shapes[][2] = {{1, 1}, {37, 61}, {33, 1024}};
    for (auto& shape : shapes) {
        int rows = shape[0], cols = shape[1];
        size_t bytes = (size_t)rows * cols * sizeof(float);
        float* h_in = (float*)malloc(bytes);
        float* h_out = (float*)malloc(bytes);
        for (int i = 0; i < rows * cols; i++) h_in[i] = (float)i;
        float *d_in, *d_out;
        CHECK(cudaMalloc(&d_in, bytes));
        CHECK(cudaMalloc(&d_out, bytes));
        CHECK(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice));
        dim3 threads_per_block(tile, block_rows);
        dim3 blocks_per_grid((cols + tile - 1) / tile, (rows + tile - 1) / tile);
        transpose<<<blocks_per_grid, threads_per_block>>>(d_in, d_out, rows, cols);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost));
        for (int r = 0; r < rows; r++)
            for (int c = 0; c < cols; c++)
                EXPECT(h_out[c * rows + r] == h_in[r * cols + c], "%d x %d: out[%d][%d] = %g, expected %g",
                       rows, cols, c, r, h_out[c * rows + r], h_in[r * cols + c]);
        CHECK(cudaFree(d_in));
        CHECK(cudaFree(d_out));
        free(h_in), free(h_out);
    }
    return pass(test_name);
}
