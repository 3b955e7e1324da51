/*
 * lessons/08-sobel/sobel.h - the arithmetic of one edge pixel, the same on
 * the CPU and the GPU: used by sobel.cu, its exercise and the checker.
 *
 * Gray: lesson 02's Rec. 601 luma in 16-bit fixed point (luma.h).
 * Border: clamp to the edge (replicate): a neighbour outside the image is
 * the nearest pixel inside it, so the 3 x 3 window of a corner pixel
 * repeats the corner, and a 1 x 1 image has a flat window and no edge.
 * Gradient: the 3 x 3 Sobel kernels, on the gray levels,
 *     gx = (ne + 2 e + se) - (nw + 2 w + sw)      (right minus left)
 *     gy = (sw + 2 s + se) - (nw + 2 n + ne)      (below minus above)
 * Magnitude: |gx| + |gy|, 0 to 2040, saturated to 255 for the 8-bit map.
 * Integers throughout: the check is exact.
 */
#ifndef SOBEL_H
#define SOBEL_H

#include "../02-grayscale/luma.h"

/* clamp to the edge: the nearest index in 0..count-1 */
__host__ __device__ static inline int clamp_index(int i, int count)
{
    return i < 0 ? 0 : i >= count ? count - 1 : i;
}

/* |gx| + |gy|: the magnitude of a gradient, without a square root */
__host__ __device__ static inline int gradient_magnitude(int gx, int gy)
{
    return (gx < 0 ? -gx : gx) + (gy < 0 ? -gy : gy);
}

/* |gx| + |gy| of the 3 x 3 window of gray levels around a pixel, named by
 * the compass: n above, s below, w left, e right. */
__host__ __device__ static inline int sobel_magnitude(int nw, int n, int ne, int w, int e,
                                                      int sw, int s, int se)
{
    int gx = (ne + 2 * e + se) - (nw + 2 * w + sw);
    int gy = (sw + 2 * s + se) - (nw + 2 * n + ne);
    return gradient_magnitude(gx, gy);
}

/* the 8-bit edge level of a magnitude: strong edges saturate at white */
__host__ __device__ static inline unsigned char edge_level(int magnitude)
{
    return (unsigned char)(magnitude > 255 ? 255 : magnitude);
}

/* |gx| + |gy| at (row, column) of a gray image stored row after row, the
 * neighbours outside the image clamped to its edge. */
__host__ __device__ static inline int magnitude_at(const unsigned char *gray, int width,
                                                   int height, int row, int column)
{
    int above = clamp_index(row - 1, height), below = clamp_index(row + 1, height);
    int left = clamp_index(column - 1, width), right = clamp_index(column + 1, width);
    const unsigned char *up = gray + (long long)above * width;
    const unsigned char *here = gray + (long long)row * width;
    const unsigned char *down = gray + (long long)below * width;
    return sobel_magnitude(up[left], up[column], up[right], here[left], here[right],
                           down[left], down[column], down[right]);
}

/* The CPU reference for one frame: gray first, then the edges from it. */
static inline void edges_cpu(const unsigned char *rgb, unsigned char *gray, unsigned char *edges,
                             int width, int height)
{
    long long pixels = (long long)width * height;
#pragma omp parallel for schedule(static)
    for (long long p = 0; p < pixels; p++)
        gray[p] = luma(rgb[3 * p], rgb[3 * p + 1], rgb[3 * p + 2]);
#pragma omp parallel for schedule(static)
    for (int row = 0; row < height; row++)
        for (int column = 0; column < width; column++)
            edges[(long long)row * width + column] =
                edge_level(magnitude_at(gray, width, height, row, column));
}

#endif
