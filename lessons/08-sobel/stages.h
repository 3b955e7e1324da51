/*
 * lessons/08-sobel/stages.h - the pipeline as a first port writes it: one
 * kernel a stage, each reading its input from global memory and writing its
 * result there for the next. sobel.cu's naive version launches them; the
 * exercise fuses all three into one kernel, as sobel.cu's optimized version
 * does.
 */
#ifndef STAGES_H
#define STAGES_H

#include "sobel.h"

/* stage 1: lesson 02's coalesced kernel, one thread a pixel. */
__global__ void grayscale_kernel(const unsigned char *rgb, unsigned char *gray, int width,
                                 int height)
{
    int column = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (column < width && row < height) {
        long long pixel = (long long)row * width + column;
        gray[pixel] = luma(rgb[3 * pixel], rgb[3 * pixel + 1], rgb[3 * pixel + 2]);
    }
}

/* stage 2: |gx| + |gy| from the gray frame in global memory. Each
 * gray level is read by the 9 threads whose windows hold it; the caches
 * catch most of those reads, but the magnitudes, 4 bytes a pixel, go all
 * the way out to memory and back for stage 3. */
__global__ void sobel_kernel(const unsigned char *gray, int *magnitude, int width, int height)
{
    int column = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (column < width && row < height)
        magnitude[(long long)row * width + column] = magnitude_at(gray, width, height, row, column);
}

/* stage 3: the magnitudes as 8-bit levels. The image's shape no
 * longer matters: a 1-D grid over the pixels, as in lesson 01. */
__global__ void edge_level_kernel(const int *magnitude, unsigned char *edges, long long pixels)
{
    long long pixel = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (pixel < pixels)
        edges[pixel] = edge_level(magnitude[pixel]);
}

#endif
