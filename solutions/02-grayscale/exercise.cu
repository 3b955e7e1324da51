/*
 * Exercise 02, worked solution: a 2-D grid over an image.
 * Check it with: make solution02
 *
 * The coalesced kernel of lessons/02-grayscale/grayscale.cu. Why it is right:
 * the grid has at least width threads along x and height along y, so every
 * (row, column) of the image has a thread; the bounds check stops the threads
 * of the edge blocks that fall outside it, which would otherwise write past
 * the end of gray (their index runs on into the next row, and past the last
 * one). Why it is fast: threadIdx.x is the column, so the 32 threads of a
 * warp take 32 neighbouring pixels of one row: 96 contiguous bytes read,
 * 32 written.
 */
#include "workbook.h"
#include "luma.h"

/* one warp along a row, 8 rows a block: 256 threads */
#define EXERCISE_BLOCK_WIDTH 32
#define EXERCISE_BLOCK_HEIGHT 8

__global__ void grayscale_2d(const unsigned char *rgb, unsigned char *gray, int width, int height)
{
    int column = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (column < width && row < height) {
        long long pixel = (long long)row * width + column;
        gray[pixel] = luma(rgb[3 * pixel], rgb[3 * pixel + 1], rgb[3 * pixel + 2]);
    }
}

void launch_grayscale_2d(const unsigned char *d_rgb, unsigned char *d_gray, int width, int height)
{
    dim3 block(EXERCISE_BLOCK_WIDTH, EXERCISE_BLOCK_HEIGHT);
    dim3 grid((width + EXERCISE_BLOCK_WIDTH - 1) / EXERCISE_BLOCK_WIDTH,
              (height + EXERCISE_BLOCK_HEIGHT - 1) / EXERCISE_BLOCK_HEIGHT);
    grayscale_2d<<<grid, block>>>(d_rgb, d_gray, width, height);
    CUDA_CHECK_LAUNCH();
}
