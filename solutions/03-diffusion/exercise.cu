/*
 * Exercise 03, worked solution: the halo of a shared-memory tile.
 *
 * One diffusion step, as the shared variant of diffusion.cu takes it: each
 * block of 32 x 8 threads copies its 32 x 8 tile of the field into shared
 * memory together with a one-cell halo around it (the row above, the row
 * below, the column to the left and to the right), waits until every thread
 * has stored its part, and then computes each cell from shared memory alone.
 *
 *        tile[0][1..32]              <- the row above the tile (halo)
 *        +--------------------------+
 *   [r][0]| tile[1..8][1..32]        |[r][33]   <- left and right halo columns
 *        +--------------------------+
 *        tile[9][1..32]              <- the row below the tile (halo)
 *
 * The corners are not needed: the 5-point stencil has no diagonal neighbours.
 * On the field's border a neighbour is missing; clamped_index() moves a cell
 * that lies off the field onto it, which turns a missing neighbour into the
 * centre itself, as the lesson's edge rule wants.
 *
 * Fill in the kernel where it says TODO, then check your work:
 *     make exercise03
 * It answers "not implemented yet", PASS, or FAIL with the first wrong (row, column).
 * The worked solution is in solutions/03-diffusion/exercise.cu (make solution03).
 */
#include "workbook.h"

/* a row of the block is one warp; 8 rows make 256 threads */
#define TILE_COLUMNS 32
#define TILE_ROWS 8
#define COEFF 0.25f /* the lesson's diffusion coefficient */

__device__ inline long long clamped_index(int row, int col, int width, int height)
{
    row = min(max(row, 0), height - 1);
    col = min(max(col, 0), width - 1);
    return (long long)row * width + col;
}

__global__ void diffuse_tile(const float *from, float *to, int width, int height)
{
    __shared__ float tile[TILE_ROWS + 2][TILE_COLUMNS + 2];
    int col = blockIdx.x * TILE_COLUMNS + threadIdx.x;
    int row = blockIdx.y * TILE_ROWS + threadIdx.y;
    int tile_col = threadIdx.x + 1, tile_row = threadIdx.y + 1; /* +1: past the halo */

    /* every thread, even one past the field's end, loads its own (clamped) cell */
    tile[tile_row][tile_col] = from[clamped_index(row, col, width, height)];

    /* the halo: the threads on each edge of the block load the cell beyond it */
    if (threadIdx.x == 0)
        tile[tile_row][0] = from[clamped_index(row, col - 1, width, height)];
    if (threadIdx.x == TILE_COLUMNS - 1)
        tile[tile_row][TILE_COLUMNS + 1] = from[clamped_index(row, col + 1, width, height)];
    if (threadIdx.y == 0)
        tile[0][tile_col] = from[clamped_index(row - 1, col, width, height)];
    if (threadIdx.y == TILE_ROWS - 1)
        tile[TILE_ROWS + 1][tile_col] = from[clamped_index(row + 1, col, width, height)];

    /* every thread reads cells other threads stored: all of them must be there */
    __syncthreads();

    if (col >= width || row >= height)
        return;
    float centre = tile[tile_row][tile_col];
    float laplacian = 4.0f * centre - (tile[tile_row][tile_col - 1] + tile[tile_row][tile_col + 1] +
                                       tile[tile_row - 1][tile_col] + tile[tile_row + 1][tile_col]);
    to[(long long)row * width + col] = centre - COEFF * laplacian;
}

void launch_diffuse_tile(const float *d_from, float *d_to, int width, int height)
{
    dim3 blocks_per_grid((width + TILE_COLUMNS - 1) / TILE_COLUMNS,
                         (height + TILE_ROWS - 1) / TILE_ROWS);
    diffuse_tile<<<blocks_per_grid, dim3(TILE_COLUMNS, TILE_ROWS)>>>(d_from, d_to, width, height);
    CUDA_CHECK_LAUNCH();
}
