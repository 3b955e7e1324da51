// bug_misaligned.cu - a deliberate bug: 32-bit loads from addresses that are not multiples of 4.
// first_words reads the first 4 pixels of each row of RGB bytes as three 32-bit words, but a row
// is 3 x 30 = 90 bytes, so row 1 starts 2 bytes past a multiple of 4. A CPU loads from there
// without a word; a GPU stops the kernel (cudaErrorMisalignedAddress). Built with --sanitize, the
// emulator stops there too and names the line, the allocation and the offset.
// With the argument "shared": a float4 read from a __shared__ tile one float in, 4 bytes past a
// multiple of 16.
#include <cstring>

#include "check.h"

static const char* test_name = "bug_misaligned";
constexpr int width = 30, height = 8;

__global__ void first_words(const unsigned char* rgb, unsigned int* out) {
    int row = threadIdx.x;
    const unsigned int* words = (const unsigned int*)(rgb + 3 * row * width);
    out[row] = words[0] ^ words[1] ^ words[2];  // BUG: a row starts where 90 x row puts it
}

__global__ void shifted_float4(const float* in, float* out) {
    __shared__ float tile[8];
    tile[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    if (threadIdx.x == 0) {
        float4 four = *(const float4*)&tile[1];  // BUG: tile + 4 bytes is no float4's place
        out[0] = four.x + four.y + four.z + four.w;
    }
}

int main(int argc, char** argv) {
    if (argc > 1 && strcmp(argv[1], "shared") == 0) {
        float *d_in, *d_out;
        CHECK(cudaMalloc(&d_in, 8 * sizeof(float)));
        CHECK(cudaMalloc(&d_out, sizeof(float)));
        CHECK(cudaMemset(d_in, 0, 8 * sizeof(float)));
        shifted_float4<<<1, 8>>>(d_in, d_out);
    } else {
        unsigned char* d_rgb;
        unsigned int* d_out;
        CHECK(cudaMalloc(&d_rgb, 3 * width * height));  // the RGB rows
        CHECK(cudaMalloc(&d_out, height * sizeof(unsigned int)));
        CHECK(cudaMemset(d_rgb, 0, 3 * width * height));
        first_words<<<1, height>>>(d_rgb, d_out);
    }
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    return pass(test_name);
}
