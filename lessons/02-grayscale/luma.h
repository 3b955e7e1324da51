/*
 * lessons/02-grayscale/luma.h - one gray level from one RGB pixel, the same
 * on the CPU and the GPU: used by grayscale.cu, its exercise and the checker.
 */
#ifndef LUMA_H
#define LUMA_H

/* Rec. 601 weights in 16-bit fixed point: 0.299, 0.587, 0.114 times 65536,
 * rounded (19595.3, 38469.6, 7471.1). They add up to exactly 65536, so white
 * (255, 255, 255) stays 255. Adding half of 65536 before the shift rounds to
 * the nearest level. The largest sum, 255 x 65536 + 32768, fits in 32 bits. */
#define WEIGHT_R 19595u
#define WEIGHT_G 38470u
#define WEIGHT_B 7471u
#define FIXED_POINT_SHIFT 16
#define FIXED_POINT_HALF (1u << (FIXED_POINT_SHIFT - 1))

__host__ __device__ static inline unsigned char luma(unsigned int r, unsigned int g, unsigned int b)
{
    return (unsigned char)((WEIGHT_R * r + WEIGHT_G * g + WEIGHT_B * b + FIXED_POINT_HALF) >>
                           FIXED_POINT_SHIFT);
}

#endif
