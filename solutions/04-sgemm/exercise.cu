/*
 * Exercise 04, worked solution: the tiled matrix product, C = A.B (A m x k, B k x n, row-major).
 *
 * Each block computes one EXERCISE_TILE x EXERCISE_TILE tile of C, one
 * thread per element. Walking along k a tile at a time, the block's threads
 * first copy a tile of A and a tile of B into shared memory, one element
 * each, then every thread adds up its products from shared memory.
 * make solution04 checks it.
 */
#include "workbook.h"

/* 16 x 16 = 256 threads a block; the checker's sizes (17, 31, 33, ...) are
 * not multiples of it, so the tiles at the right and bottom edges stick out. */
#define EXERCISE_TILE 16

__global__ void sgemm_tiled_exercise(const float *a, const float *b, float *c, int m, int n, int k)
{
    __shared__ float a_tile[EXERCISE_TILE][EXERCISE_TILE];
    __shared__ float b_tile[EXERCISE_TILE][EXERCISE_TILE];
    int col = blockIdx.x * EXERCISE_TILE + threadIdx.x;
    int row = blockIdx.y * EXERCISE_TILE + threadIdx.y;
    float sum = 0.0f;
    for (int tile_start = 0; tile_start < k; tile_start += EXERCISE_TILE) {
        int a_col = tile_start + threadIdx.x;
        int b_row = tile_start + threadIdx.y;
        a_tile[threadIdx.y][threadIdx.x] = row < m && a_col < k ? a[(size_t)row * k + a_col] : 0.0f;
        b_tile[threadIdx.y][threadIdx.x] = b_row < k && col < n ? b[(size_t)b_row * n + col] : 0.0f;
        __syncthreads(); /* the tiles are complete before anyone reads them */

        for (int p = 0; p < EXERCISE_TILE; p++)
            sum += a_tile[threadIdx.y][p] * b_tile[p][threadIdx.x];

        __syncthreads(); /* nobody overwrites a tile another thread still reads */
    }
    if (row < m && col < n)
        c[(size_t)row * n + col] = sum;
}

void launch_sgemm_tiled_exercise(const float *d_a, const float *d_b, float *d_c, int m, int n,
                                 int k)
{
    dim3 block(EXERCISE_TILE, EXERCISE_TILE);
    dim3 grid((n + EXERCISE_TILE - 1) / EXERCISE_TILE, (m + EXERCISE_TILE - 1) / EXERCISE_TILE);
    sgemm_tiled_exercise<<<grid, block>>>(d_a, d_b, d_c, m, n, k);
    CUDA_CHECK_LAUNCH();
}
