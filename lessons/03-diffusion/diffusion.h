/*
 * lessons/03-diffusion/diffusion.h - the field and one step of its diffusion,
 * the same on the CPU and the GPU: used by diffusion.cu, and by lesson 09
 * (lessons/09-multi-gpu), which splits the same field over several GPUs and
 * must get the same result, bit for bit.
 *
 *   fill_jagged        the initial field, a "jagged image"
 *   diffused           the update of one cell, from the cell and its neighbours
 *   diffuse_step_cpu   one step of the whole field on the CPU: the reference
 *   diffuse_naive      one step on the GPU, one thread per cell, of the whole
 *                      field or of a band of its rows
 */
#ifndef DIFFUSION_H
#define DIFFUSION_H

#include "workbook.h"

/* The article's coefficient: with 0.25 the centre's own weight in the update,
 * 1 - 4 x 0.25, is zero, the largest coefficient for which the explicit
 * scheme stays stable. It is a power of two, so coeff x laplacian is exact in
 * float: a fused multiply-add gives the same bits as a multiply and a subtract. */
#define DIFFUSION_COEFF 0.25f

/* ---- the update of one cell, shared by the CPU and every kernel ----------- */

/* The same expression, in the same order, on both sides: the CPU and GPU
 * results then agree to the last bit however the compilers contract it (the
 * multiplications are by powers of two and exact). */
__host__ __device__ static inline float laplacian_of(float centre, float left, float right,
                                                     float up, float down)
{
    return 4.0f * centre - (left + right + up + down);
}

__host__ __device__ static inline float diffused(float centre, float left, float right, float up,
                                                 float down)
{
    return centre - DIFFUSION_COEFF * laplacian_of(centre, left, right, up, down);
}

/* ---- CPU reference ------------------------------------------------------ */

/* One step of the whole field, from `from` into `to`. */
static void diffuse_step_cpu(const float *from, float *to, int width, int height)
{
#pragma omp parallel for schedule(static)
    for (int row = 0; row < height; row++) {
        const float *here = from + (long long)row * width;
        const float *above = row > 0 ? here - width : here;        /* missing: the row itself */
        const float *below = row < height - 1 ? here + width : here;
        for (int col = 0; col < width; col++) {
            float centre = here[col];
            float left = col > 0 ? here[col - 1] : centre;
            float right = col < width - 1 ? here[col + 1] : centre;
            to[(long long)row * width + col] =
                diffused(centre, left, right, above[col], below[col]);
        }
    }
}

/* ---- the naive kernel ----------------------------------------------------- */

/* 1. One thread per cell; every thread reads its 5 cells from global memory.
 * Each cell is read by 5 threads, but neighbours in a warp share cache lines,
 * so L1 and L2 serve most of those reads: the question is how well.
 *
 * The kernel steps a band of `rows` rows of a field `height` rows tall, the
 * band's first row being row first_row of the field: `from` and `to` point at
 * that row, a thread's row counts from it, and the border test asks whether
 * the row is the field's first or last. The rows just above and below the
 * band are read where the field has them, never written. Lesson 03 steps the
 * whole field as one band (first_row 0, rows = height); lesson 09 gives each
 * GPU a slab of the field, with copies of its neighbours' nearest rows (the
 * halos) just above and below it. */
__global__ void diffuse_naive(const float *from, float *to, int width, int height, int first_row,
                              int rows)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (col >= width || row >= rows)
        return;
    int field_row = first_row + row;
    long long here = (long long)row * width + col;
    float centre = from[here];
    float left = col > 0 ? from[here - 1] : centre;
    float right = col < width - 1 ? from[here + 1] : centre;
    float up = field_row > 0 ? from[here - width] : centre;
    float down = field_row < height - 1 ? from[here + width] : centre;
    to[here] = diffused(centre, left, right, up, down);
}

/* ---- the initial field: a "jagged image" ------------------------------------ */

/* Smooth noise inside an ellipse that fills the field, cut off below the top
 * 30% of the field: sharp edges for diffusion to wear down, like the
 * article's picture. The noise is bilinear between random values on a coarse
 * lattice, NOISE_CELLS lattice cells across the field. The article sets the
 * rest to zero; here it keeps a tenth of the noise, a cool background, so
 * that the cells on the border, where the edge rule acts, hold values that
 * a wrong neighbour would change, and the checks see it. */
#define NOISE_CELLS 16
#define ELLIPSE_RADIUS 0.45 /* of the field's width and height */
#define HOT_FRACTION 0.3    /* the rows that keep their noise */
#define BACKGROUND 0.1      /* what is left of the noise outside the hot region */

static void fill_jagged(void *host, long long count, const wb_shape *shape,
                        unsigned long long seed)
{
    float *field = (float *)host;
    int width = (int)shape->width, height = (int)shape->height;
    float lattice[(NOISE_CELLS + 1) * (NOISE_CELLS + 1)];
    wb_fill_random(lattice, WB_COUNT(lattice), 0.0f, 1.0f, seed);
#pragma omp parallel for schedule(static)
    for (int row = 0; row < height; row++)
        for (int col = 0; col < width; col++) {
            double x = (col + 0.5) / width, y = (row + 0.5) / height; /* in (0, 1) */
            double dx = (x - 0.5) / ELLIPSE_RADIUS, dy = (y - 0.5) / ELLIPSE_RADIUS;
            double u = x * NOISE_CELLS, v = y * NOISE_CELLS;
            int i = (int)u, j = (int)v;
            double fu = u - i, fv = v - j;
            const float *top = lattice + j * (NOISE_CELLS + 1) + i;
            const float *bottom = top + NOISE_CELLS + 1;
            double noise = (1 - fv) * ((1 - fu) * top[0] + fu * top[1]) +
                           fv * ((1 - fu) * bottom[0] + fu * bottom[1]);
            int hot = dx * dx + dy * dy <= 1.0 && y < HOT_FRACTION;
            field[(long long)row * width + col] = (float)(hot ? noise : BACKGROUND * noise);
        }
}

#endif
