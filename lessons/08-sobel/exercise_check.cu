/*
 * The checker of exercise 08: make exercise08 builds it with your
 * exercise.cu, make solution08 with the worked solution.
 *
 * It runs launch_sobel_fused on images chosen to catch the usual mistakes,
 * and compares every pixel with the CPU reference of sobel.h, exactly:
 *   - 1x1, 2x2, a single row and a single column: every window is clamped,
 *     on every side, and a tile holds more halo than image;
 *   - the 16 x 16 tile plus and minus one (15x15, 17x17, 33x17, 15x33): a
 *     last tile of one row or column, where a halo off by one shows;
 *   - primes and non-square images (13x7, 7x13, 97x61, 451x300 and
 *     300x451): rows and columns swapped, width for height;
 *   - the image large enough for many blocks at once, so that a thread
 *     reading the tile before the others stored it reads another block's
 *     levels.
 * Every image is checked twice, edges filled first with 0x00 and then with
 * 0xFF: a pixel the kernel never wrote keeps one of them, and every level
 * differs from one of the two, so no forgotten pixel passes as a right one.
 * The bytes past the end of the image must stay as they were: a thread
 * outside the image that writes is caught too.
 *
 * Exit status: 0 PASS, 1 FAIL or not implemented yet, 3 no usable GPU.
 */
#include "workbook.h"
#include "sobel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* written by you in exercise.cu */
void launch_sobel_fused(const unsigned char *d_rgb, unsigned char *d_edges, int width, int height);

typedef struct {
    int width, height;
} image_size;

static const image_size sizes[] = {
    {1, 1}, {2, 2}, {1, 37}, {37, 1}, {13, 7}, {7, 13}, {15, 15}, {16, 16},
    {17, 17}, {33, 17}, {15, 33}, {97, 61}, {451, 300}, {300, 451},
};
#define SIZE_COUNT (int)(sizeof sizes / sizeof sizes[0])
static const unsigned char poisons[] = {0x00, 0xFF};
#define POISON_COUNT 2
/* A kernel without its bounds check overshoots by less than a tile, 16 rows
 * and 16 columns; one that mixes up width and height in the index reaches at
 * most side x side + side, side the longer one. edges has room for that. */
#define MARGIN_ROWS 16
#define MARGIN_COLUMNS 16

/* reproducible bytes (Knuth's multiplicative hash), in bands so that edges
 * of every strength occur, not only saturated ones */
static unsigned char channel(long long i, int seed)
{
    unsigned int hash = (unsigned int)(i * 2654435761u + (unsigned int)seed * 40503u);
    return (unsigned char)((i / 7 % 4) * 48 + (hash >> 16) % 64);
}

int main(void)
{
    const char *name = "exercise08";
    wb_checker_device(name);

    char verdicts[SIZE_COUNT][WB_VERDICT_LENGTH];
    int failures = 0, silent_sizes = 0;
    for (int s = 0; s < SIZE_COUNT; s++) {
        int width = sizes[s].width, height = sizes[s].height;
        long long pixels = (long long)width * height;
        long long side = width > height ? width : height;
        /* no margin under the bug finder: the guard page past the image names the line */
        long long margin = side * side + (MARGIN_ROWS + 1) * side + MARGIN_COLUMNS - pixels;
        long long room = pixels + (long long)wb_checker_margin((size_t)margin);
        size_t edges_room = (size_t)room, rgb_room = 3 * edges_room;
        unsigned char *h_rgb = (unsigned char *)wb_alloc_host(rgb_room, "rgb");
        unsigned char *h_edges[POISON_COUNT];
        for (int p = 0; p < POISON_COUNT; p++)
            h_edges[p] = (unsigned char *)wb_alloc_host(edges_room, "edges");
        unsigned char *h_expected = (unsigned char *)wb_alloc_host((size_t)pixels, "expected");
        unsigned char *h_gray = (unsigned char *)wb_alloc_host((size_t)pixels, "gray");
        /* past the image, rgb is zero: a stray thread reads zeros there */
        memset(h_rgb, 0, rgb_room);
        for (long long i = 0; i < 3 * pixels; i++)
            h_rgb[i] = channel(i, s);
        edges_cpu(h_rgb, h_gray, h_expected, width, height);

        unsigned char *d_rgb, *d_edges;
        CUDA_CHECK(cudaMalloc(&d_rgb, rgb_room));
        CUDA_CHECK(cudaMalloc(&d_edges, edges_room));
        CUDA_CHECK(cudaMemcpy(d_rgb, h_rgb, rgb_room, cudaMemcpyHostToDevice));
        long long stray = 0, written = 0;
        for (int p = 0; p < POISON_COUNT; p++) {
            CUDA_CHECK(cudaMemset(d_edges, poisons[p], edges_room));
            launch_sobel_fused(d_rgb, d_edges, width, height);
            CUDA_CHECK(cudaDeviceSynchronize());
            CUDA_CHECK(cudaMemcpy(h_edges[p], d_edges, edges_room, cudaMemcpyDeviceToHost));
            for (long long i = 0; i < pixels; i++)
                written += h_edges[p][i] != poisons[p];
            long long past_end = 0;
            for (long long i = pixels; i < room; i++)
                past_end += h_edges[p][i] != poisons[p];
            stray = past_end > stray ? past_end : stray;
        }
        CUDA_CHECK(cudaFree(d_rgb));
        CUDA_CHECK(cudaFree(d_edges));
        silent_sizes += written == 0 && stray == 0;

        /* a pixel is never written when each run left its poison there */
        long long first_bad = -1;
        for (long long i = 0; i < pixels && first_bad < 0; i++)
            if (h_edges[0][i] != h_expected[i] || h_edges[1][i] != h_expected[i])
                first_bad = i;
        int got = 0, never_written = 0;
        if (first_bad >= 0) {
            got = h_edges[h_edges[0][first_bad] == h_expected[first_bad]][first_bad];
            never_written = h_edges[0][first_bad] == poisons[0] &&
                            h_edges[1][first_bad] == poisons[1];
        }

        char shape[24];
        snprintf(shape, sizeof shape, "%dx%d", width, height);
        if (first_bad >= 0) {
            failures++;
            snprintf(verdicts[s], WB_VERDICT_LENGTH,
                     "  %-8s FAIL: first wrong pixel (row %lld, column %lld): expected %d, got %d%s",
                     shape, first_bad / width, first_bad % width, h_expected[first_bad], got,
                     never_written ? " (never written)" : "");
        } else if (stray > 0) {
            failures++;
            snprintf(verdicts[s], WB_VERDICT_LENGTH,
                     "  %-8s FAIL: wrote %lld byte%s past the end of edges:"
                     " threads outside the image went on", shape, stray, stray == 1 ? "" : "s");
        } else {
            snprintf(verdicts[s], WB_VERDICT_LENGTH, "  %-8s PASS", shape);
        }
        free(h_rgb);
        for (int p = 0; p < POISON_COUNT; p++)
            free(h_edges[p]);
        free(h_expected);
        free(h_gray);
    }

    wb_exercise_report report = {
        .name = name,
        .title = "gray, Sobel and edge level fused into one tiled kernel",
        .exercise_file = "lessons/08-sobel/exercise.cu",
        .nothing_done = silent_sizes == SIZE_COUNT ? "the kernel wrote nothing" : NULL,
        .cases = "sizes",
        .verdicts = verdicts,
        .count = SIZE_COUNT,
        .failures = failures,
    };
    return wb_report_exercise(&report);
}
