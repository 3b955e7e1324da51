// async_copy.cu - copies from global to shared memory that a GPU makes without waiting: the
// pipeline primitives (__pipeline_memcpy_async, commit, wait_prior) in a double-buffered sum, with
// zfill past the end, and cooperative_groups::memcpy_async of a block and of a warp, with an odd
// byte count. Run "misaligned" to make a copy from an address that is not a multiple of its size.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda_pipeline.h>

#include <cstring>

#include "check.h"

namespace cg = cooperative_groups;

static const char* test_name = "async_copy";
constexpr int threads = 64, tile = threads * 4;  // a float4 a thread, a tile of 256 floats

// Each block sums its part of x in tiles: tile t + 1 is on its way while tile t is summed. The
// copy of a float4 that runs past count is cut short, the rest zero-filled.
__global__ void double_buffered_sum(const float* x, int count, int tiles_per_block, float* sums) {
    __shared__ __align__(16) float buffer[2][tile];
    int first = blockIdx.x * tiles_per_block * tile;
    auto start_copy = [&](int t) {
        int at = first + t * tile + threadIdx.x * 4;
        int valid = count - at < 0 ? 0 : count - at > 4 ? 4 : count - at;
        // a float4 wholly past the end is 16 zero bytes from a valid address
        __pipeline_memcpy_async(&buffer[t % 2][threadIdx.x * 4], valid > 0 ? &x[at] : x, 16,
                                (4 - valid) * sizeof(float));
        __pipeline_commit();
    };
    float sum = 0;
    start_copy(0);
    for (int t = 0; t < tiles_per_block; t++) {
        if (t + 1 < tiles_per_block) {
            start_copy(t + 1);
            __pipeline_wait_prior(1);  // tile t has arrived; t + 1 may still be on its way
        } else {
            __pipeline_wait_prior(0);
        }
        __syncthreads();  // every thread's part of tile t
        for (int i = threadIdx.x; i < tile; i += threads) sum += buffer[t % 2][i];
        __syncthreads();  // before buffer t % 2 is filled again
    }
    atomicAdd(sums, sum);
}

__global__ void misaligned_copy(const float* x, float* out) {
    __shared__ __align__(16) float buffer[8];
    __pipeline_memcpy_async(buffer, x + 1, 16);  // x + 1: 4 bytes past a multiple of 16
    __pipeline_commit();
    __pipeline_wait_prior(0);
    out[threadIdx.x] = buffer[0];
}

// The block copies `bytes` of x into shared memory, then each warp copies a 100-byte piece of it
// into its own part of a second buffer; the block writes back both.
__global__ void group_copies(const unsigned char* x, int bytes, unsigned char* whole, unsigned char* pieces) {
    __shared__ __align__(16) unsigned char staged[1024], by_warp[4][100];
    cg::thread_block block = cg::this_thread_block();
    cg::memcpy_async(block, staged, x, (size_t)bytes);
    cg::wait(block);
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int w = threadIdx.x / 32;
    cg::memcpy_async(warp, by_warp[w], (size_t)100, staged + 7 * w, (size_t)500);  // the smaller count
    cg::wait(warp);
    for (int i = threadIdx.x; i < bytes; i += blockDim.x) whole[i] = staged[i];
    for (int i = warp.thread_rank(); i < 100; i += 32) pieces[w * 100 + i] = by_warp[w][i];
}

int main(int argc, char** argv) {
    if (argc > 1 && strcmp(argv[1], "misaligned") == 0) {
        float *d_x, *d_out;
        CHECK(cudaMalloc(&d_x, 64 * sizeof(float)));
        CHECK(cudaMalloc(&d_out, 32 * sizeof(float)));
        misaligned_copy<<<1, 32>>>(d_x, d_out);
        printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
        return 1;
    }
    // 2 blocks of 3 tiles; the last tile holds 41 floats, then zeros
    const int tiles_per_block = 3, count = (2 * tiles_per_block - 1) * tile + 41;
    float* h_x = new float[count];
    double expected = 0;
    for (int i = 0; i < count; i++) expected += h_x[i] = (float)(i % 13) - 5.0f;
    float *d_x, *d_sum, sum = 0;
    CHECK(cudaMalloc(&d_x, count * sizeof(float)));
    CHECK(cudaMalloc(&d_sum, sizeof(float)));
    CHECK(cudaMemcpy(d_x, h_x, count * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_sum, 0, sizeof(float)));
    double_buffered_sum<<<2, threads>>>(d_x, count, tiles_per_block, d_sum);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(&sum, d_sum, sizeof sum, cudaMemcpyDeviceToHost));
    EXPECT(sum == (float)expected, "double-buffered sum %g, expected %g", sum, expected);

    const int bytes = 1000;  // 62.5 pieces of 16 bytes, over 128 threads
    unsigned char h_bytes[bytes], h_whole[bytes], h_pieces[400];
    for (int i = 0; i < bytes; i++) h_bytes[i] = (unsigned char)(i * 7 + 3);
    unsigned char *d_bytes, *d_whole, *d_pieces;
    CHECK(cudaMalloc(&d_bytes, bytes));
    CHECK(cudaMalloc(&d_whole, bytes));
    CHECK(cudaMalloc(&d_pieces, 400));
    CHECK(cudaMemcpy(d_bytes, h_bytes, bytes, cudaMemcpyHostToDevice));
    group_copies<<<1, 128>>>(d_bytes, bytes, d_whole, d_pieces);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h_whole, d_whole, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(h_pieces, d_pieces, 400, cudaMemcpyDeviceToHost));
    EXPECT(memcmp(h_whole, h_bytes, bytes) == 0, "the block's copy differs from the source");
    for (int w = 0; w < 4; w++)
        EXPECT(memcmp(h_pieces + 100 * w, h_bytes + 7 * w, 100) == 0, "warp %d's copy differs", w);
    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_sum));
    CHECK(cudaFree(d_bytes));
    CHECK(cudaFree(d_whole));
    CHECK(cudaFree(d_pieces));
    delete[] h_x;
    return pass(test_name);
}
