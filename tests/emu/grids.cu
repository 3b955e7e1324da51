// grids.cu - threadIdx, blockIdx, blockDim and gridDim are right in 2D and 3D grids of 2D and 3D
// blocks: every thread writes its coordinates to its own slot, and each slot is checked.
#include "check.h"

static const char* test_name = "grids";

__global__ void record(int4* slots) {
    int block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    int thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    int threads_per_block = blockDim.x * blockDim.y * blockDim.z;
    int packed_thread = threadIdx.x | threadIdx.y << 10 | threadIdx.z << 20;
    int packed_block = blockIdx.x | blockIdx.y << 10 | blockIdx.z << 20;
    slots[block * threads_per_block + thread] =
        make_int4(packed_block, packed_thread, gridDim.x * gridDim.y * gridDim.z, threads_per_block);
}

int check(dim3 grid, dim3 block) {
    int blocks = grid.x * grid.y * grid.z, threads = block.x * block.y * block.z;
    int count = blocks * threads;
    int4* d_slots;
    CHECK(cudaMalloc(&d_slots, count * sizeof(int4)));
    record<<<grid, block>>>(d_slots);
    CHECK(cudaGetLastError());
    int4* h_slots = (int4*)malloc(count * sizeof(int4));
    CHECK(cudaMemcpy(h_slots, d_slots, count * sizeof(int4), cudaMemcpyDeviceToHost));
    for (unsigned bz = 0; bz < grid.z; bz++)
        for (unsigned by = 0; by < grid.y; by++)
            for (unsigned bx = 0; bx < grid.x; bx++)
                for (unsigned tz = 0; tz < block.z; tz++)
                    for (unsigned ty = 0; ty < block.y; ty++)
                        for (unsigned tx = 0; tx < block.x; tx++) {
                            int b = bx + grid.x * (by + grid.y * bz);
                            int t = tx + block.x * (ty + block.y * tz);
                            int4 s = h_slots[b * threads + t];
                            EXPECT(s.x == (int)(bx | by << 10 | bz << 20) &&
                                       s.y == (int)(tx | ty << 10 | tz << 20) && s.z == blocks &&
                                       s.w == threads,
                                   "grid %ux%ux%u block %ux%ux%u: wrong indices at block (%u,%u,%u) thread (%u,%u,%u)",
                                   grid.x, grid.y, grid.z, block.x, block.y, block.z, bx, by, bz, tx, ty, tz);
                        }
    CHECK(cudaFree(d_slots));
    free(h_slots);
    return 0;
}

int main() {
    check(dim3(7, 3), dim3(16, 5));
    check(dim3(3, 2, 5), dim3(4, 3, 2));
    check(dim3(1, 1, 3), dim3(1, 1, 64));
    check(dim3(2, 65), dim3(33));
    return pass(test_name);
}
