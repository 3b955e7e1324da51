/*
 * The checker of exercise 02: make exercise02 builds it with your
 * exercise.cu, make solution02 with the worked solution.
 *
 * It runs launch_grayscale_2d on images chosen to catch the usual mistakes:
 *   - non-square ones (37x1, 7x13, 451x300 and 300x451, ...): a kernel that
 *     swaps rows and columns passes on a square image and fails on these;
 *   - sides that are not multiples of the 32 x 8 block (1x1, 33x9, 97x61):
 *     the blocks at the edges stick out, and without the bounds check their
 *     threads write past the end of gray.
 * To see both, gray starts out as 255 in every byte and runs on past the end
 * of the image into a margin that must stay 255: the input's channels are
 * kept below 255, so no correct gray level is 255 and every pixel the kernel
 * forgot, and every byte it wrote past the end, shows. (When the bug finder
 * reruns a failed exercise, the buffers end with the image instead, so that
 * the emulator's guard page stops the first access past it: wb_checker_margin.)
 *
 * Exit status: 0 PASS, 1 FAIL or not implemented yet, 3 no usable GPU.
 */
#include "workbook.h"
#include "luma.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* written by you in exercise.cu */
void launch_grayscale_2d(const unsigned char *d_rgb, unsigned char *d_gray, int width, int height);

typedef struct {
    int width, height;
} image_size;

static const image_size sizes[] = {
    {1, 1}, {1, 37}, {37, 1}, {13, 7}, {7, 13}, {32, 8}, {33, 9},
    {64, 16}, {97, 61}, {451, 300}, {300, 451},
};
#define SIZE_COUNT (int)(sizeof sizes / sizeof sizes[0])
/* a byte no correct pixel has: every channel of the input is below it */
#define POISON 0xFF
#define LARGEST_CHANNEL 254
/* A kernel without its bounds check overshoots by less than a block, 8 rows
 * and 32 columns; one that mixes up width and height in the index reaches at
 * most side x side + side, side the longer one. gray has room for all of
 * that, so such kernels are reported rather than corrupting memory. */
#define MARGIN_ROWS 8
#define MARGIN_COLUMNS 32

/* reproducible bytes in 0..LARGEST_CHANNEL (Knuth's multiplicative hash) */
static unsigned char channel(long long i, int seed)
{
    unsigned int hash = (unsigned int)(i * 2654435761u + (unsigned int)seed * 40503u);
    return (unsigned char)((hash >> 16) % (LARGEST_CHANNEL + 1));
}

int main(void)
{
    const char *name = "exercise02";
    wb_checker_device(name);

    char verdicts[SIZE_COUNT][WB_VERDICT_LENGTH];
    int failures = 0, silent_sizes = 0;
    for (int s = 0; s < SIZE_COUNT; s++) {
        int width = sizes[s].width, height = sizes[s].height;
        long long pixels = (long long)width * height;
        long long side = width > height ? width : height;
        long long margin = side * side + (MARGIN_ROWS + 1) * side + MARGIN_COLUMNS - pixels;
        long long room = pixels + (long long)wb_checker_margin((size_t)margin);
        size_t gray_room = (size_t)room, rgb_room = 3 * gray_room;
        unsigned char *h_rgb = (unsigned char *)wb_alloc_host(rgb_room, "rgb");
        unsigned char *h_gray = (unsigned char *)wb_alloc_host(gray_room, "gray");
        unsigned char *h_expected = (unsigned char *)wb_alloc_host((size_t)pixels, "expected gray");
        /* the margin of rgb is zero: a stray thread reads zeros there and writes 0, not 255 */
        memset(h_rgb, 0, rgb_room);
        for (long long i = 0; i < 3 * pixels; i++)
            h_rgb[i] = channel(i, s);
        for (long long p = 0; p < pixels; p++)
            h_expected[p] = luma(h_rgb[3 * p], h_rgb[3 * p + 1], h_rgb[3 * p + 2]);

        unsigned char *d_rgb, *d_gray;
        CUDA_CHECK(cudaMalloc(&d_rgb, rgb_room));
        CUDA_CHECK(cudaMalloc(&d_gray, gray_room));
        CUDA_CHECK(cudaMemcpy(d_rgb, h_rgb, rgb_room, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemset(d_gray, POISON, gray_room));
        launch_grayscale_2d(d_rgb, d_gray, width, height);
        CUDA_CHECK(cudaDeviceSynchronize());
        CUDA_CHECK(cudaMemcpy(h_gray, d_gray, gray_room, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaFree(d_rgb));
        CUDA_CHECK(cudaFree(d_gray));

        long long first_bad = -1, stray = 0, written = 0;
        for (long long p = 0; p < pixels; p++) {
            written += h_gray[p] != POISON;
            if (first_bad < 0 && h_gray[p] != h_expected[p])
                first_bad = p;
        }
        for (long long p = pixels; p < room; p++)
            stray += h_gray[p] != POISON;
        silent_sizes += written == 0 && stray == 0;

        char shape[24];
        snprintf(shape, sizeof shape, "%dx%d", width, height);
        if (first_bad >= 0) {
            failures++;
            snprintf(verdicts[s], WB_VERDICT_LENGTH,
                     "  %-8s FAIL: first wrong pixel (row %lld, column %lld): expected %d, got %d%s",
                     shape, first_bad / width, first_bad % width, h_expected[first_bad],
                     h_gray[first_bad], h_gray[first_bad] == POISON ? " (never written)" : "");
        } else if (stray > 0) {
            failures++;
            snprintf(verdicts[s], WB_VERDICT_LENGTH,
                     "  %-8s FAIL: wrote %lld byte%s past the end of gray:"
                     " threads outside the image went on", shape, stray, stray == 1 ? "" : "s");
        } else {
            snprintf(verdicts[s], WB_VERDICT_LENGTH, "  %-8s PASS", shape);
        }
        free(h_rgb);
        free(h_gray);
        free(h_expected);
    }

    wb_exercise_report report = {
        .name = name,
        .title = "RGB to grayscale on a 2-D grid",
        .exercise_file = "lessons/02-grayscale/exercise.cu",
        .nothing_done = silent_sizes == SIZE_COUNT ? "the kernel wrote nothing" : NULL,
        .cases = "sizes",
        .verdicts = verdicts,
        .count = SIZE_COUNT,
        .failures = failures,
    };
    return wb_report_exercise(&report);
}
