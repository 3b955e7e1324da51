/*
 * Exercise 02: a 2-D grid over an image.
 *
 * The launch below covers a width x height image with blocks of 32 x 8
 * threads, a grid of ceil(width / 32) x ceil(height / 8) blocks: x of the
 * grid goes along the rows (columns of pixels), y down the image. Give each
 * thread its pixel, as the coalesced kernel of grayscale.cu does, so that
 * threadIdx.x walks along a row and a warp reads neighbouring pixels.
 *
 * The image is stored row after row, 3 bytes (R, G, B) a pixel:
 *     pixel (row, column) is gray[row * width + column],
 *     and rgb[3 * that], rgb[3 * that + 1], rgb[3 * that + 2].
 *
 * Fill in the kernel where it says TODO, then check your work:
 *     make exercise02
 * It answers "not implemented yet", PASS, or FAIL with the first wrong
 * (row, column), or the bytes written past the end of the image.
 * The worked solution is in solutions/02-grayscale/exercise.cu (make solution02).
 */
#include "workbook.h"
#include "luma.h"

/* one warp along a row, 8 rows a block: 256 threads */
#define EXERCISE_BLOCK_WIDTH 32
#define EXERCISE_BLOCK_HEIGHT 8

__global__ void grayscale_2d(const unsigned char *rgb, unsigned char *gray, int width, int height)
{
    /* TODO 1: this thread's column: which block along x, how wide a block
     *         is, where in the block along x. */

    /* TODO 2: this thread's row, the same way along y. */

    /* TODO 3: the grid is rounded up to whole blocks, so some threads fall
     *         outside the image: only a thread inside it may go on. */

    /* TODO 4: the pixel's index in the row-major image (as a long long),
     *         and gray[index] = luma(its R, its G, its B). */
}

void launch_grayscale_2d(const unsigned char *d_rgb, unsigned char *d_gray, int width, int height)
{
    dim3 block(EXERCISE_BLOCK_WIDTH, EXERCISE_BLOCK_HEIGHT);
    dim3 grid((width + EXERCISE_BLOCK_WIDTH - 1) / EXERCISE_BLOCK_WIDTH,
              (height + EXERCISE_BLOCK_HEIGHT - 1) / EXERCISE_BLOCK_HEIGHT);
    grayscale_2d<<<grid, block>>>(d_rgb, d_gray, width, height);
    CUDA_CHECK_LAUNCH();
}
