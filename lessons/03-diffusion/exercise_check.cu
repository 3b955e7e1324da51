/*
 * The checker of exercise 03: make exercise03 builds it with your
 * exercise.cu, make solution03 with the worked solution.
 *
 * It takes one diffusion step with launch_diffuse_tile on fields shaped to
 * catch the usual halo mistakes: a single cell, a single row and column
 * (every neighbour on one side missing), the 32 x 8 block exactly, plus and
 * minus one each way (a halo side that crosses into the next block, or a
 * partial block), and larger prime shapes with many blocks. The field is
 * random, so a halo cell that is missing or stale gives a wrong value; the
 * output starts as NaN, so a cell nobody wrote shows up too.
 *
 * A missing __syncthreads() lets a thread read a neighbour's tile cell before
 * the neighbour stored it. Whether that shows depends on the order the
 * threads run in: on the CPU emulator run the checker in other orders too,
 *     CUDA_EMU_ORDER=reverse make exercise03
 *     CUDA_EMU_ORDER=random:7 make exercise03
 *
 * Exit status: 0 PASS, 1 FAIL or not implemented yet, 3 no usable GPU.
 */
#include "workbook.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* written by you in exercise.cu */
void launch_diffuse_tile(const float *d_from, float *d_to, int width, int height);

typedef struct {
    int width, height;
} field_shape;

static const field_shape shapes[] = {
    {1, 1}, {37, 1}, {1, 37}, {31, 7}, {32, 8}, {33, 9}, {64, 16}, {65, 17}, {97, 61}, {257, 131},
};
#define SHAPE_COUNT (int)(sizeof shapes / sizeof shapes[0])
#define COEFF 0.25f

/* One step on the CPU, with the same expression in the same order. */
static void diffuse_step_reference(const float *from, float *to, int width, int height)
{
    for (int row = 0; row < height; row++)
        for (int col = 0; col < width; col++) {
            long long here = (long long)row * width + col;
            float centre = from[here];
            float left = col > 0 ? from[here - 1] : centre;
            float right = col < width - 1 ? from[here + 1] : centre;
            float up = row > 0 ? from[here - width] : centre;
            float down = row < height - 1 ? from[here + width] : centre;
            to[here] = centre - COEFF * (4.0f * centre - (left + right + up + down));
        }
}

/* 1 when every byte still holds the 0xFF poison: the kernel wrote nothing */
static int untouched(const float *field, long long cells)
{
    const unsigned char *bytes = (const unsigned char *)field;
    for (size_t i = 0; i < (size_t)cells * sizeof(float); i++)
        if (bytes[i] != 0xFF)
            return 0;
    return 1;
}

int main(void)
{
    const char *name = "exercise03";
    wb_checker_device(name);

    long long largest = 0;
    for (int s = 0; s < SHAPE_COUNT; s++) {
        long long cells = (long long)shapes[s].width * shapes[s].height;
        largest = cells > largest ? cells : largest;
    }
    size_t max_bytes = (size_t)largest * sizeof(float);
    float *h_from = (float *)wb_alloc_host(max_bytes, "the field");
    float *h_to = (float *)wb_alloc_host(max_bytes, "the result");
    float *h_expected = (float *)wb_alloc_host(max_bytes, "the expected result");
    float *d_from, *d_to;
    CUDA_CHECK(cudaMalloc(&d_from, max_bytes));
    CUDA_CHECK(cudaMalloc(&d_to, max_bytes));

    /* one verdict per shape, printed at the end unless the kernel wrote nothing at all */
    char verdicts[SHAPE_COUNT][WB_VERDICT_LENGTH];
    int failures = 0, silent_shapes = 0;
    for (int s = 0; s < SHAPE_COUNT; s++) {
        int width = shapes[s].width, height = shapes[s].height;
        long long cells = (long long)width * height;
        size_t bytes = (size_t)cells * sizeof(float);
        wb_fill_random(h_from, cells, 0.0f, 1.0f, 300 + s);
        diffuse_step_reference(h_from, h_expected, width, height);
        CUDA_CHECK(cudaMemcpy(d_from, h_from, bytes, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemset(d_to, 0xFF, bytes)); /* all bits set: NaN */

        launch_diffuse_tile(d_from, d_to, width, height);
        CUDA_CHECK(cudaDeviceSynchronize());
        CUDA_CHECK(cudaMemcpy(h_to, d_to, bytes, cudaMemcpyDeviceToHost));

        char shape_text[32];
        snprintf(shape_text, sizeof shape_text, "%dx%d", width, height);
        silent_shapes += untouched(h_to, cells);
        wb_check_result check = wb_check(h_expected, h_to, cells, WB_ATOL, WB_RTOL);
        if (check.passed) {
            snprintf(verdicts[s], WB_VERDICT_LENGTH, "  %-8s PASS", shape_text);
        } else {
            failures++;
            unsigned int bits;
            memcpy(&bits, &h_to[check.first_bad], sizeof bits);
            snprintf(verdicts[s], WB_VERDICT_LENGTH,
                     "  %-8s FAIL: first wrong cell (row %lld, column %lld): expected %.9g, "
                     "got %.9g%s", shape_text, check.first_bad / width, check.first_bad % width,
                     check.expected, check.actual, bits == 0xFFFFFFFFu ? " (never written)" : "");
        }
    }

    CUDA_CHECK(cudaFree(d_from));
    CUDA_CHECK(cudaFree(d_to));
    free(h_from);
    free(h_to);
    free(h_expected);

    wb_exercise_report report = {
        .name = name,
        .title = "one diffusion step through a shared-memory tile with a halo",
        .exercise_file = "lessons/03-diffusion/exercise.cu",
        .nothing_done = silent_shapes == SHAPE_COUNT ? "the kernel wrote nothing" : NULL,
        .cases = "shapes",
        .verdicts = verdicts,
        .count = SHAPE_COUNT,
        .failures = failures,
    };
    return wb_report_exercise(&report);
}
