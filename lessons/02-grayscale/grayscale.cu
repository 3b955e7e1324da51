/*
 * Lesson 02: grid indexing in 2-D, with RGB to grayscale on real images.
 *
 * Build and run (from the top of the repository):
 *     make lesson02 && ./lesson02                 # a synthetic 8K frame (1080p
 *                                                 # under CPU emulation)
 *     ./lesson02 -n 1920x1080                     # another size: WIDTHxHEIGHT
 *     ./lesson02 --image data/astronaut.png --output gray.png
 *     ./lesson02 --help                           # every option
 *
 * Every pixel of an 8-bit, interleaved RGB image (R G B R G B ..., row after
 * row) becomes one 8-bit gray level, with the Rec. 601 luma weights:
 *     gray = 0.299 R + 0.587 G + 0.114 B
 * in 16-bit fixed point, rounded to the nearest level (see luma.h: for 0.05%
 * of the colours that is one level from rounding the decimal formula). The
 * CPU and the GPU do the same integer arithmetic, so the check is exact: not
 * one level of difference is allowed.
 *
 * Four versions, which differ in how threads are mapped onto pixels:
 *   cpu        the C loops, rows spread over every core with OpenMP
 *   naive      the mapping of a first port (image[x][y] with x = threadIdx.x):
 *              threadIdx.x walks DOWN a column, so the 32 threads of a warp
 *              touch 32 different rows
 *   coalesced  the same kernel with the roles swapped: threadIdx.x walks
 *              ALONG a row, so a warp touches 32 neighbouring pixels
 *   optimized  four pixels per thread: three 32-bit loads, one 32-bit store
 *
 * Napkin math for the default 7680 x 4320 frame (33.2 Mpixels):
 *   bytes that must move:  read 3 B, write 1 B per pixel = 4 x 33.2M = 133 MB,
 *                          2.7 times an H100's 50 MB L2: it comes from memory.
 *   work:                  3 multiplies and 2 adds of integers per 4 bytes:
 *                          bandwidth is the limit, as in lesson 01.
 *   GPU kernel at peak:    133 MB at 3,352 GB/s (an H100's HBM3) = 40 us; at
 *                          the 2,988 GB/s that cudaMemcpy reaches, 44 us. The
 *                          device-copy row measures that on your GPU.
 *   naive mapping:         a warp's 32 pixels lie in 32 rows, 7680 x 3 bytes
 *                          apart: each of its loads (R, G, B) touches 32
 *                          separate 32-byte sectors for 32 useful bytes, one
 *                          in each, where the coalesced mapping's touches 3.
 *                          The caches catch some of the waste (the next warps
 *                          read the neighbouring bytes of the same sectors),
 *                          but not all of it.
 */
#include "workbook.h"
/* --image and --output: checked, decoded and written with stb_image (-lstb) */
#include "image.h"
/* luma(r, g, b): the Rec. 601 weights in integer arithmetic, shared with the exercise */
#include "luma.h"

#include <stdio.h>
#include <string.h>

/* 32 x 8 = 256 threads, 8 warps: each warp is one row of the block. In the
 * coalesced kernel a warp then covers 32 neighbouring pixels of one image row;
 * in the naive kernel, with the roles of x and y swapped, 32 rows of one
 * column. */
#define BLOCK_WIDTH 32
#define BLOCK_HEIGHT 8
/* optimized: 4 pixels = 12 bytes of RGB = three 32-bit words in, one out */
#define PIXELS_PER_THREAD 4
#define OPTIMIZED_THREADS_PER_BLOCK 256

/* The naive grid's y dimension counts columns in blocks of BLOCK_HEIGHT and
 * may not exceed 65535 blocks (the coalesced grid's counts rows so): 2^18 =
 * 262144 pixels a side stays below 8 x 65535. Every index is 64-bit, so the
 * pixel count is limited by memory alone: 2^36 leaves that to the host
 * memory check. */
#define MAX_SIDE (1LL << 18)
#define MAX_PIXELS (1LL << 36)

/* An 8K frame on a GPU. The CPU emulator runs every GPU thread on the CPU,
 * some hundred times slower: there the default is a 1080p frame, which still
 * runs in seconds. */
#ifdef CUDA_EMULATION
#define DEFAULT_SIZE "1920x1080"
#else
#define DEFAULT_SIZE "7680x4320"
#endif

/* ---- CPU reference ------------------------------------------------------- */

static void grayscale_cpu(const unsigned char *rgb, unsigned char *gray, long long width,
                          long long height)
{
#pragma omp parallel for schedule(static)
    for (long long y = 0; y < height; y++)
        for (long long x = 0; x < width; x++) {
            const unsigned char *pixel = rgb + 3 * (y * width + x);
            gray[y * width + x] = luma(pixel[0], pixel[1], pixel[2]);
        }
}

/* ---- kernels ------------------------------------------------------------- */

/* 1. The first port: x is the first index, as in image[x][y], and comes from
 * threadIdx.x, so x counts ROWS. Correct, but neighbouring threads of a warp
 * are a whole row (3 x width bytes) apart: each of the warp's loads and its
 * store touch 32 different memory sectors and use one byte of each. */
__global__ void grayscale_naive(const unsigned char *rgb, unsigned char *gray, int width,
                                int height)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    int column = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < height && column < width) {
        long long pixel = (long long)row * width + column;
        gray[pixel] = luma(rgb[3 * pixel], rgb[3 * pixel + 1], rgb[3 * pixel + 2]);
    }
}

/* 2. The same work with threadIdx.x along a row: a warp reads 32 neighbouring
 * pixels, 96 contiguous bytes, and writes 32 contiguous bytes. Only the
 * mapping changed; the bounds check still keeps the threads of the blocks that
 * stick out past the right and bottom edges from writing. */
__global__ void grayscale_coalesced(const unsigned char *rgb, unsigned char *gray, int width,
                                    int height)
{
    int column = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (column < width && row < height) {
        long long pixel = (long long)row * width + column;
        gray[pixel] = luma(rgb[3 * pixel], rgb[3 * pixel + 1], rgb[3 * pixel + 2]);
    }
}

/* 3. Fewer, wider memory instructions. Rows follow each other without gaps,
 * so the image is one line of width x height pixels and the rows stop
 * mattering: a 1-D grid, 256 threads a block as in lesson 01. Each thread
 * takes 4 pixels: their 12 bytes of RGB are three aligned 32-bit words
 * (pixel 4i starts at byte 12i), their 4 gray levels one 32-bit word. Three
 * loads and one store instead of twelve loads and four stores. Little-endian:
 * the first byte in memory is the lowest byte of the word.
 *     word 0: R0 G0 B0 R1   word 1: G1 B1 R2 G2   word 2: B2 R3 G3 B3
 * The last pixels % 4 pixels are done one at a time by the first threads. */
__global__ void grayscale_optimized(const unsigned char *__restrict__ rgb,
                                    unsigned char *__restrict__ gray, long long pixels)
{
    long long group = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long groups = pixels / PIXELS_PER_THREAD;
    if (group < groups) {
        const unsigned int *words = (const unsigned int *)rgb + 3 * group;
        unsigned int g[4];
        luma_of_words(words[0], words[1], words[2], g);
        ((unsigned int *)gray)[group] = g[0] | g[1] << 8 | g[2] << 16 | g[3] << 24;
    }
    long long leftover = groups * PIXELS_PER_THREAD + group;
    if (group < pixels % PIXELS_PER_THREAD)
        gray[leftover] = luma(rgb[3 * leftover], rgb[3 * leftover + 1], rgb[3 * leftover + 2]);
}

/* ---- launchers ------------------------------------------------------------ */

/* Buffer indices, in the order of the declaration below. */
enum { RGB, GRAY };

static void run_cpu(const wb_data *data)
{
    grayscale_cpu((const unsigned char *)data->host[RGB], (unsigned char *)data->host[GRAY],
                  data->shape.width, data->shape.height);
}

static unsigned int blocks_for(long long items, int per_block)
{
    return (unsigned int)((items + per_block - 1) / per_block); /* round up */
}

static void run_naive(const wb_data *data)
{
    int width = (int)data->shape.width, height = (int)data->shape.height;
    /* x of the grid counts rows, y counts columns: the article's mapping */
    dim3 block(BLOCK_WIDTH, BLOCK_HEIGHT);
    dim3 grid(blocks_for(height, BLOCK_WIDTH), blocks_for(width, BLOCK_HEIGHT));
    grayscale_naive<<<grid, block>>>((const unsigned char *)data->device[RGB],
                                     (unsigned char *)data->device[GRAY], width, height);
    CUDA_CHECK_LAUNCH();
}

static void run_coalesced(const wb_data *data)
{
    int width = (int)data->shape.width, height = (int)data->shape.height;
    dim3 block(BLOCK_WIDTH, BLOCK_HEIGHT);
    dim3 grid(blocks_for(width, BLOCK_WIDTH), blocks_for(height, BLOCK_HEIGHT));
    grayscale_coalesced<<<grid, block>>>((const unsigned char *)data->device[RGB],
                                         (unsigned char *)data->device[GRAY], width, height);
    CUDA_CHECK_LAUNCH();
}

static void run_optimized(const wb_data *data)
{
    long long pixels = data->shape.elements;
    /* one thread per group of 4, and at least the 3 threads the leftovers need */
    long long threads = pixels / PIXELS_PER_THREAD + 1;
    grayscale_optimized<<<blocks_for(threads, OPTIMIZED_THREADS_PER_BLOCK),
                          OPTIMIZED_THREADS_PER_BLOCK>>>((const unsigned char *)data->device[RGB],
                                                         (unsigned char *)data->device[GRAY],
                                                         pixels);
    CUDA_CHECK_LAUNCH();
}

/* ---- image files: --image in, --output out -------------------------------- */

static const char *image_path = "";
static const char *output_path = "";
static unsigned char *image_pixels; /* the decoded --image, 3 bytes a pixel */

/* Called once the command line is read, before anything is allocated: a bad
 * --image or --output is refused now, with one line and exit 2. */
static void input_shape(wb_shape *shape)
{
    if (output_path[0])
        open_output_image("lesson02", output_path);
    if (!image_path[0])
        return; /* the synthetic image of -n's size */
    int width, height;
    image_pixels = load_rgb_image("lesson02", image_path, 1, MAX_SIDE, &width, &height);
    wb_set_shape(shape, width, height, 0);
}

/* --image given: the decoded pixels; else a reproducible synthetic image,
 * every byte a hash of the seed and its position (splitmix64's finalizer). */
static void fill_rgb(void *host, long long count, const wb_shape *shape,
                     unsigned long long seed)
{
    unsigned char *bytes = (unsigned char *)host;
    if (image_pixels) {
        memcpy(bytes, image_pixels, (size_t)count);
        return;
    }
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < count; i++) {
        unsigned long long z = seed * 0x9E3779B97F4A7C15ull + (unsigned long long)i;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        bytes[i] = (unsigned char)((z ^ (z >> 31)) >> 56);
    }
}

/* Called at the end with the CPU's gray image, which every passing variant
 * matched: written as PNG. */
static void finish(const wb_data *data)
{
    if (output_path[0])
        write_gray_image("lesson02", output_path, (const unsigned char *)data->host[GRAY],
                         (int)data->shape.width, (int)data->shape.height, "8-bit gray");
}

/* ---- the declaration: what common/ runs, checks and times ----------------- */

static long long rgb_bytes(const wb_shape *shape) { return 3 * shape->elements; }
static long long gray_bytes(const wb_shape *shape) { return shape->elements; }
/* read 3 bytes, write 1 per pixel; the arithmetic is integer: no FLOP */
static double bytes_moved(const wb_shape *shape) { return 4.0 * (double)shape->elements; }

static const wb_buffer buffers[] = {
    {.name = "rgb", .type = WB_UCHAR, .role = WB_INPUT, .count = rgb_bytes, .fill = fill_rgb},
    /* exact: the same integer arithmetic on both sides; mismatches as (row, column) */
    {.name = "gray", .type = WB_UCHAR, .role = WB_OUTPUT, .count = gray_bytes,
     .tolerance = {.levels = 0}},
};

static const wb_variant variants[] = {
    {.name = "cpu", .description = "the C loops over rows on every core (OpenMP): the reference",
     .scope = WB_HOST, .run = run_cpu},
    {.name = "naive", .description = "threadIdx.x walks down a column: a warp spans 32 rows",
     .scope = WB_KERNEL | WB_END_TO_END, .run = run_naive},
    {.name = "coalesced", .description = "threadIdx.x walks along a row: a warp reads 96 bytes",
     .scope = WB_KERNEL, .run = run_coalesced},
    {.name = "optimized", .description = "4 pixels a thread: three 32-bit loads, one store",
     .scope = WB_KERNEL | WB_END_TO_END, .run = run_optimized},
};

static const wb_option options[] = {
    {.flag = "--image", .help = "convert this file (PNG, JPEG, BMP, TGA, PPM) instead of -n's",
     .text = &image_path},
    {.flag = "--output", .help = "write the gray image to this file as PNG", .text = &output_path},
};

static const wb_lesson lesson = {
    .name = "lesson02",
    .title = "RGB to grayscale, 8-bit, Rec. 601 weights",
    .rank = 2,
    .size_meaning = "image size",
    .default_size = DEFAULT_SIZE,
    .max_dimension = MAX_SIDE,
    .max_elements = MAX_PIXELS,
    .buffers = buffers, .buffer_count = WB_COUNT(buffers),
    .variants = variants, .variant_count = WB_COUNT(variants),
    .bytes = bytes_moved,
    .copy_anchor = 1,
    .options = options, .option_count = WB_COUNT(options),
    .input_shape = input_shape,
    .finish = finish,
};

int main(int argc, char **argv)
{
    return wb_main(&lesson, argc, argv);
}
