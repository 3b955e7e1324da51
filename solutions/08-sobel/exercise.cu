/*
 * Exercise 08, worked solution: the three stages (gray, Sobel, edge level)
 * fused into one tiled kernel.
 * Check it with: make solution08
 *
 * The fused kernel of lessons/08-sobel/sobel.cu, one pixel a thread. Why it
 * is right: the tile holds the gray level of every pixel a window of the
 * block can touch, the block's 16 x 16 pixels and one more on each side,
 * each loaded from the clamped position, which is the border rule; the
 * barrier lets no thread read the tile before all of it is stored; and the
 * bounds check comes after the barrier, so every thread of an edge block
 * still helps to load. Why it is faster than the stages of stages.h: the
 * gray levels and the magnitudes never go out to memory and back, and each
 * RGB pixel is converted 1.27 times (18 x 18 loaded for 16 x 16 written).
 */
#include "workbook.h"
#include "../../lessons/08-sobel/sobel.h"
/* grayscale_kernel, sobel_kernel, edge_level_kernel: the three stages to fuse */
#include "../../lessons/08-sobel/stages.h"

/* 16 x 16 = 256 threads, one output pixel each */
#define EXERCISE_TILE 16
#define HALO 1
#define EXERCISE_TILE_WITH_HALO (EXERCISE_TILE + 2 * HALO)

__global__ void sobel_fused(const unsigned char *rgb, unsigned char *edges, int width, int height)
{
    /* an int a level, the type of the window's sums */
    __shared__ int tile[EXERCISE_TILE_WITH_HALO][EXERCISE_TILE_WITH_HALO];
    int first_column = blockIdx.x * EXERCISE_TILE, first_row = blockIdx.y * EXERCISE_TILE;
    int thread = threadIdx.y * EXERCISE_TILE + threadIdx.x;
    for (int i = thread; i < EXERCISE_TILE_WITH_HALO * EXERCISE_TILE_WITH_HALO;
         i += EXERCISE_TILE * EXERCISE_TILE) {
        int tile_row = i / EXERCISE_TILE_WITH_HALO, tile_column = i % EXERCISE_TILE_WITH_HALO;
        int row = clamp_index(first_row + tile_row - HALO, height);
        int column = clamp_index(first_column + tile_column - HALO, width);
        const unsigned char *pixel = rgb + 3 * ((long long)row * width + column);
        tile[tile_row][tile_column] = luma(pixel[0], pixel[1], pixel[2]);
    }
    __syncthreads();

    int row = first_row + threadIdx.y, column = first_column + threadIdx.x;
    if (row < height && column < width) {
        int r = threadIdx.y + HALO, c = threadIdx.x + HALO;
        int magnitude = sobel_magnitude(tile[r - 1][c - 1], tile[r - 1][c], tile[r - 1][c + 1],
                                        tile[r][c - 1], tile[r][c + 1],
                                        tile[r + 1][c - 1], tile[r + 1][c], tile[r + 1][c + 1]);
        edges[(long long)row * width + column] = edge_level(magnitude);
    }
}

void launch_sobel_fused(const unsigned char *d_rgb, unsigned char *d_edges, int width, int height)
{
    dim3 block(EXERCISE_TILE, EXERCISE_TILE);
    dim3 grid((width + EXERCISE_TILE - 1) / EXERCISE_TILE,
              (height + EXERCISE_TILE - 1) / EXERCISE_TILE);
    sobel_fused<<<grid, block>>>(d_rgb, d_edges, width, height);
    CUDA_CHECK_LAUNCH();
}
