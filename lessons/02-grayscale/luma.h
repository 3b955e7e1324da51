/*
 * lessons/02-grayscale/luma.h - one gray level from one RGB pixel, the same
 * on the CPU and the GPU: used by grayscale.cu, its exercise and the checker.
 */
#ifndef LUMA_H
#define LUMA_H

/* Rec. 601 weights in 16-bit fixed point: 0.299, 0.587, 0.114 times 65536,
 * rounded (19595.3, 38469.6, 7471.1). They add up to exactly 65536, so white
 * (255, 255, 255) stays 255. Adding half of 65536 before the shift rounds the
 * fixed-point sum to the nearest level, a half up. The largest sum,
 * 255 x 65536 + 32768, fits in 32 bits.
 * The fixed-point weights are not exactly the decimal ones: the sum is within
 * 0.0015 of a level of 0.299 R + 0.587 G + 0.114 B, and for 9,040 of the
 * 16,777,216 colours (0.05%), those within that distance of a half, the
 * result is one level from rounding the decimal formula: (0, 0, 250) is 28.5
 * with the decimal weights, which rounds up to 29, but 28.4996 in fixed
 * point, which gives 28. */
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

/* The gray levels of 4 pixels from the three 32-bit words that hold their 12
 * bytes, r g b r | g b r g | b r g b, each word's first byte its lowest (GPUs
 * and x86 CPUs are little-endian): three loads where bytes take twelve. Lesson
 * 02's optimized kernel reads pixels this way.
 * (Not static: called from kernels alone, it goes unused in nvcc's host pass,
 * where a compiler may warn about an unused static function.) */
__host__ __device__ inline void luma_of_words(unsigned int w0, unsigned int w1, unsigned int w2,
                                              unsigned int gray[4])
{
#define LUMA_BYTE(word, k) (((word) >> (8 * (k))) & 0xFFu)
    gray[0] = luma(LUMA_BYTE(w0, 0), LUMA_BYTE(w0, 1), LUMA_BYTE(w0, 2));
    gray[1] = luma(LUMA_BYTE(w0, 3), LUMA_BYTE(w1, 0), LUMA_BYTE(w1, 1));
    gray[2] = luma(LUMA_BYTE(w1, 2), LUMA_BYTE(w1, 3), LUMA_BYTE(w2, 0));
    gray[3] = luma(LUMA_BYTE(w2, 1), LUMA_BYTE(w2, 2), LUMA_BYTE(w2, 3));
#undef LUMA_BYTE
}

/* The same 4 levels with the GPU's two-way dot product (compute capability
 * 6.1 on), for kernels whose instructions, not their bytes, set the pace:
 * __dp2a_lo(weights, word, c) is c plus the two 16-bit halves of weights
 * times bytes 0 and 1 of word, __dp2a_hi the same with bytes 2 and 3. A
 * pixel's bytes lie in one word or straddle two, so two dot products weigh
 * each pixel, where luma_of_words spends a shift, a mask and a multiply-add
 * on every byte. The sums are the same integers: the levels are the same.
 * Lesson 08's sliding kernel reads its tile this way. */
#define LUMA_WEIGHTS(low, high) ((unsigned int)(low) | ((unsigned int)(high) << 16))
__device__ inline void luma_of_words_dp2a(unsigned int w0, unsigned int w1, unsigned int w2,
                                          unsigned int gray[4])
{
    /* bytes 0 1 2 3 of w0: r g b r, of w1: g b r g, of w2: b r g b */
    gray[0] = __dp2a_hi(LUMA_WEIGHTS(WEIGHT_B, 0), w0,
                        __dp2a_lo(LUMA_WEIGHTS(WEIGHT_R, WEIGHT_G), w0, FIXED_POINT_HALF));
    gray[1] = __dp2a_lo(LUMA_WEIGHTS(WEIGHT_G, WEIGHT_B), w1,
                        __dp2a_hi(LUMA_WEIGHTS(0, WEIGHT_R), w0, FIXED_POINT_HALF));
    gray[2] = __dp2a_lo(LUMA_WEIGHTS(WEIGHT_B, 0), w2,
                        __dp2a_hi(LUMA_WEIGHTS(WEIGHT_R, WEIGHT_G), w1, FIXED_POINT_HALF));
    gray[3] = __dp2a_hi(LUMA_WEIGHTS(WEIGHT_G, WEIGHT_B), w2,
                        __dp2a_lo(LUMA_WEIGHTS(0, WEIGHT_R), w2, FIXED_POINT_HALF));
    for (int k = 0; k < 4; k++)
        gray[k] >>= FIXED_POINT_SHIFT;
}
#undef LUMA_WEIGHTS

#endif
