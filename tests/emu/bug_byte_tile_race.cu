// bug_byte_tile_race.cu - a deliberate bug: byte_tile.cu without its barrier. Thread t reads the
// byte thread t-1 wrote, in the same 4-byte word as its own: --sanitize must name this race even
// though the two threads touch different bytes of the word at their writes.
#include "check.h"

static const char* test_name = "bug_byte_tile_race";
constexpr int threads_per_block = 128;

__global__ void left_sum_bytes(const unsigned char* in, int* out, int n) {
    __shared__ unsigned char tile[threads_per_block];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = i < n ? in[i] : 0;
    // BUG: __syncthreads() belongs here
    int left = threadIdx.x > 0 ? tile[threadIdx.x - 1] : 0;
    if (i < n) out[i] = tile[threadIdx.x] + left;
}

int main() {
    const int n = 1001;
    unsigned char h_in[n];
    int h_out[n];
    for (int i = 0; i < n; i++) h_in[i] = (unsigned char)(i * 7);
    unsigned char* d_in;
    int* d_out;
    CHECK(cudaMalloc(&d_in, sizeof h_in));
    CHECK(cudaMalloc(&d_out, sizeof h_out));
    CHECK(cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice));
    left_sum_bytes<<<(n + threads_per_block - 1) / threads_per_block, threads_per_block>>>(d_in, d_out, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
        int left = i % threads_per_block > 0 ? h_in[i - 1] : 0;
        EXPECT(h_out[i] == h_in[i] + left, "out[%d] = %d, expected %d", i, h_out[i], h_in[i] + left);
    }
    return pass(test_name);
}
