// known_answers.cu - kernels whose memory traffic, bank conflicts, divergence and atomics follow
// from arithmetic, for tests/profile.bats to hold emucc --profile's counts to. Each kernel has a
// name of its own, so its table is its own; every launch is one block.
//
// Global memory comes in 32-byte sectors: a warp reading 32 consecutive floats (128 bytes) touches
// 4 sectors in 1 request; with a stride of 2 floats 8 sectors, of 4 floats 16, of 8 floats or more
// one sector per lane, 32. Shared memory has 32 banks of 4-byte words: lanes reading different
// words of one bank are served one after another (an n-way conflict takes n wavefronts), lanes
// reading one word share it (a broadcast). A float4 or int2 moves in one instruction per lane
// (16 or 8 bytes), however the CPU compiler copies it: 32 consecutive float4 are 512 bytes, 16
// sectors in 1 request; in shared memory a quarter of the warp at a time, 4 wavefronts at least
// (an 8-byte vector, half the warp: 2), and only wavefronts beyond those are conflicts.
#include "../check.h"

static const char* test_name = "profile_known_answers";

constexpr int warp = 32;

__global__ void read_consecutive(const float* in, float* out) {
    out[threadIdx.x] = in[threadIdx.x];
}

template <int stride>
__global__ void read_strided(const float* in, float* out) {
    out[threadIdx.x] = in[threadIdx.x * stride];
}

// A 32 x 32 tile, written a row per warp (lanes along a row: 32 banks, no conflict) and read a
// column per warp: the 32 words of a column lie 32 words apart, all in one bank. One float of
// padding per row (33) puts the column's words in 32 different banks.
template <int row_length>
__global__ void tile_column(const float* in, float* out) {
    __shared__ float tile[warp][row_length];
    tile[threadIdx.y][threadIdx.x] = in[threadIdx.y * warp + threadIdx.x];
    __syncthreads();
    out[threadIdx.y * warp + threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}

// Every lane reads the same word: a broadcast, one wavefront.
__global__ void broadcast(const float* in, float* out) {
    __shared__ float value[warp];
    value[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = value[0];
}

// Odd and even lanes of every warp take different ways; whole warps take the same way.
__global__ void odd_lanes(float* out) {
    if (threadIdx.x % 2) out[threadIdx.x] = 1.0f;
}
__global__ void odd_warps(float* out) {
    if (threadIdx.x / 32 % 2) out[threadIdx.x] = 1.0f;
}

// The interleaved tree of a reduction (thread tid adds element 2*s*tid + s into 2*s*tid), one
// step a line, in a block of 1024: at step s a warp's lanes read words 2*s apart, which fall
// into 32 / (2*s) banks: 2-, 4-, 8-, 16- and 32-way conflicts.
__global__ void interleaved_tree(const float* in, float* out) {
    __shared__ float partial[1024];
    unsigned tid = threadIdx.x;
    partial[tid] = in[tid];
    __syncthreads();
    if (2 * 1 * tid < blockDim.x) partial[2 * 1 * tid] += partial[2 * 1 * tid + 1];  // step 1
    __syncthreads();
    if (2 * 2 * tid < blockDim.x) partial[2 * 2 * tid] += partial[2 * 2 * tid + 2];  // step 2
    __syncthreads();
    if (2 * 4 * tid < blockDim.x) partial[2 * 4 * tid] += partial[2 * 4 * tid + 4];  // step 4
    __syncthreads();
    if (2 * 8 * tid < blockDim.x) partial[2 * 8 * tid] += partial[2 * 8 * tid + 8];  // step 8
    __syncthreads();
    if (2 * 16 * tid < blockDim.x) partial[2 * 16 * tid] += partial[2 * 16 * tid + 16];  // step 16
    __syncthreads();
    if (tid == 0) out[0] = partial[0];
}

// Every thread adds to one counter; or to one of four.
__global__ void one_counter(int* counters) {
    atomicAdd(&counters[0], 1);
}
__global__ void four_counters(int* counters) {
    atomicAdd(&counters[threadIdx.x % 4], 1);
}

// One float4 per lane, through a cast of a float array and through a float4 array; and stored.
__global__ void float4_cast_load(const float* in, float* out) {
    float4 v = *(const float4*)&in[4 * threadIdx.x];
    out[threadIdx.x] = v.x + v.y + v.z + v.w;
}
__global__ void float4_array_load(const float4* in, float* out) {
    float4 v = in[threadIdx.x];
    out[threadIdx.x] = v.x + v.y + v.z + v.w;
}
__global__ void float4_store(float* out) {
    float t = (float)threadIdx.x;
    *(float4*)&out[4 * threadIdx.x] = make_float4(t, t + 1, t + 2, t + 3);
}
__global__ void int2_load(const int2* in, int* out) {
    int2 v = in[threadIdx.x];
    out[threadIdx.x] = v.x * v.y;
}

// A shared float4 per lane: consecutive, 4 wavefronts and no conflict; every other float4, the
// lanes 4 apart of a quarter warp meet in 4 banks, 2 wavefronts a quarter. An int2 per lane: 2.
template <int spacing>
__global__ void shared_float4(float* out) {
    __shared__ float4 tile[warp * spacing];
    float t = (float)threadIdx.x;
    tile[threadIdx.x * spacing] = make_float4(t, t, t, t);
    __syncthreads();
    float4 v = tile[threadIdx.x * spacing];
    out[threadIdx.x] = v.x + v.w;
}
__global__ void shared_int2(int* out) {
    __shared__ int2 tile[warp];
    tile[threadIdx.x] = make_int2(threadIdx.x, 1);
    __syncthreads();
    int2 v = tile[threadIdx.x];
    out[threadIdx.x] = v.x + v.y;
}

// A block's shared memory is its static __shared__ variables plus the launch's dynamic buffer:
// 40.5 KiB + 8 KiB here, 49.5 KiB with the 1 KiB the runtime reserves a block, so an SM of the
// modelled H100 (228 KiB) holds 4 of these 4-warp blocks, 16 of its 64 warps (25%). The scratch
// variable, declared in a branch that every thread takes, counts as well.
__global__ void shared_hog(float* out) {
    __shared__ float big[10 * 1024];
    extern __shared__ float extra[];
    big[threadIdx.x] = (float)threadIdx.x;
    extra[threadIdx.x] = 1.0f;
    float one = 0.0f;
    if (threadIdx.x < 1024) {
        __shared__ int scratch[4 * warp];
        scratch[threadIdx.x] = 1;
        one = (float)scratch[threadIdx.x];
    }
    __syncthreads();
    out[threadIdx.x] = big[(threadIdx.x + 1) % warp] + extra[threadIdx.x] + one;
}

// Taking an element's address reads nothing.
__global__ void address_only(const float* in, float* out) {
    const float* element = &in[threadIdx.x];
    out[threadIdx.x] = (float)(element - in);
}

// A __device__ function's __shared__ variables belong to each kernel that calls it, as nvcc counts
// them, even when no thread of a launch reaches the call: 1 KiB here.
__device__ float staged_sum(float value) {
    __shared__ float stage[8 * warp];
    stage[threadIdx.x] = value;
    __syncthreads();
    return stage[0];
}
__global__ void rarely_staged(float* out, int staged) {
    out[threadIdx.x] = staged ? staged_sum(out[threadIdx.x]) : 0.0f;
}

int main() {
    const int n = 1024 * 32;
    float *in, *out;
    int* counters;
    CHECK(cudaMalloc(&in, n * sizeof(float)));
    CHECK(cudaMalloc(&out, n * sizeof(float)));
    CHECK(cudaMalloc(&counters, 4 * sizeof(int)));
    CHECK(cudaMemset(in, 0, n * sizeof(float)));
    CHECK(cudaMemset(counters, 0, 4 * sizeof(int)));

    read_consecutive<<<1, warp>>>(in, out);
    read_strided<2><<<1, warp>>>(in, out);
    read_strided<4><<<1, warp>>>(in, out);
    read_strided<8><<<1, warp>>>(in, out);
    read_strided<32><<<1, warp>>>(in, out);
    tile_column<32><<<1, dim3(warp, warp)>>>(in, out);
    tile_column<33><<<1, dim3(warp, warp)>>>(in, out);
    broadcast<<<1, warp>>>(in, out);
    odd_lanes<<<1, 4 * warp>>>(out);
    odd_warps<<<1, 4 * warp>>>(out);
    interleaved_tree<<<1, 1024>>>(in, out);
    one_counter<<<2, 2 * warp>>>(counters);
    four_counters<<<1, 2 * warp>>>(counters);
    float4_cast_load<<<1, warp>>>(in, out);
    float4_array_load<<<1, warp>>>((const float4*)in, out);
    float4_store<<<1, warp>>>(out);
    int2_load<<<1, warp>>>((const int2*)in, (int*)out);
    shared_float4<1><<<1, warp>>>(out);
    shared_float4<2><<<1, warp>>>(out);
    shared_int2<<<1, warp>>>((int*)out);
    address_only<<<1, warp>>>(in, out);
    shared_hog<<<2, 4 * warp, 8 * 1024>>>(out);
    rarely_staged<<<1, warp>>>(out, 0);
    CHECK(cudaGetLastError());

    int totals[4];
    CHECK(cudaMemcpy(totals, counters, sizeof totals, cudaMemcpyDeviceToHost));
    EXPECT(totals[0] == 2 * 2 * warp + 2 * warp / 4, "counter 0 is %d", totals[0]);
    printf("PASS %s\n", test_name);
    return 0;
}
