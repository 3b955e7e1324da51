/*
 * Exercise 04: the tiled matrix product, C = A.B (A m x k, B k x n, row-major).
 *
 * Each block computes one EXERCISE_TILE x EXERCISE_TILE tile of C, one
 * thread per element. Walking along k a tile at a time, the block's threads
 * first copy a tile of A and a tile of B into shared memory, one element
 * each, then every thread adds up its products from shared memory. The
 * product loop is written; the thread's row and column, the loads, the two
 * barriers and the final store are yours (sgemm_tiled in sgemm.cu is the
 * model, with 32 x 32 tiles).
 *
 * Fill in the TODOs, then check your work:
 *     make exercise04
 * It answers "not implemented yet", PASS, or FAIL with the first wrong
 * (row, column). The worked solution is in solutions/04-sgemm/exercise.cu
 * (make solution04). Under the CPU emulator, try your kernel in other thread
 * orders too: CUDA_EMU_ORDER=reverse make exercise04 (a missing barrier shows
 * up as a FAIL in some order). Or build it with the emulator's race checker,
 * which names the two lines of a missing barrier's race in any order:
 *     make BACKEND=emu SANITIZE=1 exercise04
 */
#include "workbook.h"

/* 16 x 16 = 256 threads a block; the checker's sizes (17, 31, 33, ...) are
 * not multiples of it, so the tiles at the right and bottom edges stick out. */
#define EXERCISE_TILE 16

__global__ void sgemm_tiled_exercise(const float *a, const float *b, float *c, int m, int n, int k)
{
    __shared__ float a_tile[EXERCISE_TILE][EXERCISE_TILE];
    __shared__ float b_tile[EXERCISE_TILE][EXERCISE_TILE];
    /* TODO 1: this thread's element of C: its row (which block row, where in
     *         the block along y) and its column (the same along x). */

    float sum = 0.0f;
    for (int tile_start = 0; tile_start < k; tile_start += EXERCISE_TILE) {
        /* TODO 2: a_tile[threadIdx.y][threadIdx.x] = the element of A in this
         *         thread's row and in column tile_start + threadIdx.x, or 0
         *         where that lies outside A (row >= m or the column >= k). */

        /* TODO 3: b_tile[threadIdx.y][threadIdx.x] = the element of B in row
         *         tile_start + threadIdx.y and this thread's column, or 0 outside B. */

        /* TODO 4: wait until every thread of the block has stored its elements. */

        for (int p = 0; p < EXERCISE_TILE; p++)
            sum += a_tile[threadIdx.y][p] * b_tile[p][threadIdx.x];

        /* TODO 5: wait until every thread is done reading the tiles, before
         *         the next step overwrites them. */
    }
    /* TODO 6: store sum in C at (row, col), if that lies inside C. */
}

void launch_sgemm_tiled_exercise(const float *d_a, const float *d_b, float *d_c, int m, int n,
                                 int k)
{
    dim3 block(EXERCISE_TILE, EXERCISE_TILE);
    dim3 grid((n + EXERCISE_TILE - 1) / EXERCISE_TILE, (m + EXERCISE_TILE - 1) / EXERCISE_TILE);
    sgemm_tiled_exercise<<<grid, block>>>(d_a, d_b, d_c, m, n, k);
    CUDA_CHECK_LAUNCH();
}
