/*
 * Exercise 08: fuse the three stages (gray, Sobel, edge level) into one
 * kernel with a shared-memory tile.
 *
 * A first port (stages.h, which sobel.cu's naive version launches) runs
 * grayscale_kernel over the whole image, writing the gray levels to global
 * memory, then sobel_kernel, which reads each of them back nine times (once
 * for every window that holds it), then edge_level_kernel. Write
 * sobel_fused, which does it all in one pass: each 16 x 16 block
 *   1. converts the RGB pixels of its tile AND a one-pixel halo around it
 *      (18 x 18 gray levels: the windows of the tile's edge pixels reach one
 *      pixel past it) into a __shared__ array,
 *   2. waits until every thread has stored its part,
 *   3. lets each thread compute its own pixel's edge level from the tile.
 * The border rule is the CPU's: a position outside the image takes the
 * nearest pixel inside it, clamp_index(i, count) in sobel.h. The arithmetic
 * is sobel.h's too (luma, sobel_magnitude, edge_level), so the result must
 * match the CPU exactly.
 *
 * The block has 256 threads and the tile 324 places: let each thread load
 * places thread, thread + 256, ... as long as they are below 324.
 *
 * Fill in the kernel where it says TODO, then check your work:
 *     make exercise08
 * It answers "not implemented yet", PASS, or FAIL with the first wrong
 * (row, column), or the bytes written past the end of the image.
 * The worked solution is in solutions/08-sobel/exercise.cu (make solution08).
 */
#include "workbook.h"
#include "sobel.h"
/* grayscale_kernel, sobel_kernel, edge_level_kernel: the three stages to fuse */
#include "stages.h"

/* 16 x 16 = 256 threads, one output pixel each */
#define EXERCISE_TILE 16
#define HALO 1
#define EXERCISE_TILE_WITH_HALO (EXERCISE_TILE + 2 * HALO)

__global__ void sobel_fused(const unsigned char *rgb, unsigned char *edges, int width, int height)
{
    /* TODO 1: the tile, EXERCISE_TILE_WITH_HALO x EXERCISE_TILE_WITH_HALO gray
     *         levels in __shared__ memory (as int, the type of the window's
     *         sums), and where the block's tile starts: its first row and
     *         first column in the image. */

    /* TODO 2: fill the tile. Place (tile_row, tile_column) of the tile is
     *         pixel (first_row + tile_row - HALO, first_column + tile_column
     *         - HALO) of the image, each coordinate clamped into the image;
     *         store luma of its R, G, B there. */

    /* TODO 3: no thread may read the tile before every thread has written
     *         its places. */

    /* TODO 4: this thread's pixel (row, column); if it is inside the image,
     *         its window is the 3 x 3 places around (threadIdx.y + HALO,
     *         threadIdx.x + HALO) of the tile: edges[row * width + column] =
     *         edge_level(sobel_magnitude(the eight neighbours)). */
}

void launch_sobel_fused(const unsigned char *d_rgb, unsigned char *d_edges, int width, int height)
{
    dim3 block(EXERCISE_TILE, EXERCISE_TILE);
    dim3 grid((width + EXERCISE_TILE - 1) / EXERCISE_TILE,
              (height + EXERCISE_TILE - 1) / EXERCISE_TILE);
    sobel_fused<<<grid, block>>>(d_rgb, d_edges, width, height);
    CUDA_CHECK_LAUNCH();
}
