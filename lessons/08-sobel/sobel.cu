/*
 * Lesson 08, the capstone: a Sobel edge-detection pipeline over a batch of
 * frames, from the RGB bytes on the host to 8-bit edge maps back on it.
 *
 * Build and run (from the top of the repository):
 *     make lesson08 && ./lesson08                   # 16 synthetic 4K frames
 *                                                   # (2 of 1280x720 under CPU emulation)
 *     ./lesson08 --frames 64 -n 1920x1080           # another batch: N frames of WIDTHxHEIGHT
 *     ./lesson08 --image data/astronaut.png --output edges.png
 *     ./lesson08 --help                             # every option
 *
 * Each frame goes through three stages:
 *   gray   lesson 02's Rec. 601 luma in integer arithmetic (luma.h)
 *   sobel  the 3 x 3 Sobel gradients gx, gy of the gray levels, and |gx| + |gy|
 *   edge   that magnitude, 0 to 2040, saturated to an 8-bit level (255: white)
 * The border rule is clamp to the edge (replicate): a neighbour outside the
 * frame is the nearest pixel inside it. Every step is integer arithmetic,
 * written once in sobel.h for the CPU and the GPU, so the check is exact.
 * With --image, every frame of the batch is that photo, of its size (so -n
 * beside it is refused; data/ holds PNG photos and a JPEG; a gray file works
 * too), and --output writes its edge map.
 *
 * Six versions:
 *   cpu        the two passes (gray, then edges) on every core with OpenMP
 *   naive      a kernel per stage, the gray frame and the magnitudes kept in
 *              global memory between them; end to end, each frame is copied
 *              in, processed and copied out before the next (pageable memory)
 *   optimized  one fused kernel: each block computes the gray levels of a
 *              32 x 32 tile and its one-pixel halo into shared memory, and
 *              each thread writes 4 edge pixels from it; end to end, pinned
 *              host memory and 4 streams, so that frame f+1 comes in while
 *              frame f is computed and frame f-1 goes out
 *   sliding    the next rung after optimized, its kernel alone: the tile's RGB
 *              read as 32-bit words, and each thread's window sliding down 4
 *              adjacent rows (see the kernel)
 *   shuffle    the rung after sliding, its kernel alone: no shared memory; each
 *              lane walks down 4 columns, and the neighbouring columns' levels
 *              come from the neighbouring lanes by warp shuffle (see the kernel)
 *   batched    the rung after shuffle: the same kernel, one launch for every
 *              frame of the batch instead of one a frame (see sobel_batched)
 * Under the table, per frame: the kernel time, frames per second end to end,
 * and the share of the end-to-end time that the copies add.
 *
 * Napkin math, per 3840 x 2160 frame (8.3 Mpixels):
 *   in and out:        3 bytes of RGB in, 1 edge byte out per pixel:
 *                      24.9 MB in + 8.3 MB out = 33.2 MB. The gray levels and
 *                      the halo live in shared memory and cost the fused
 *                      kernel no DRAM traffic.
 *   naive's traffic:   gray written and read (2 x 8.3 MB), the magnitude as a
 *                      4-byte int written and read (2 x 33.2 MB): 116 MB, 3.5x
 *                      the fused kernel's 33.2 MB.
 *   device-copy bound: a kernel that must read 24.9 MB and write 8.3 MB can
 *                      take no less than a cudaMemcpy device to device of the
 *                      same 33.2 MB: time >= 33.2 MB / B_copy, 11.1 us at
 *                      the 2,988 GB/s of an H100's cudaMemcpy (predicted; the
 *                      device-copy row measures B_copy on your GPU, and
 *                      % copy compares).
 *   PCIe bound:        over a link of B_link per direction, the copy in takes
 *                      24.9 MB / B_link and the copy out 8.3 MB / B_link. With
 *                      both copy engines busy at once the slower, the copy in,
 *                      sets the pace: fps <= B_link / 24.9 MB, about 2,210
 *                      frames/s at 55 GB/s; one copy at a time gives
 *                      B_link / 33.2 MB, about 1,660 (predicted; lesson 07's
 *                      bandwidth part measures B_link).
 *   so:                the link is some 40x slower than the kernel: end to
 *                      end, a frame costs its copies, and the best a pipeline
 *                      can do is hide the kernel and the copy out behind the
 *                      copy in.
 * Targets on an H100 (benchmarks, never timed tests): the fused kernel at
 * 85% or more of the device-copy row's GB/s (% copy >= 85); the pipeline at
 * 85% or more of B_link / 24.9 MB frames per second. On the reference H200
 * (plots/reference/nvidia-h200/) the pipeline met its target, 94%. The fused
 * kernel's target is missed: optimized reached 29% of the copy, bound by its
 * one-byte loads like lesson 02's coalesced kernel, not by its bytes; sliding
 * and shuffle are the rungs that answer it, and shuffle, which the target
 * judged last, reached 52% at 4K (COURSE.md, Lesson 08). batched, which the
 * target now judges, is newer than the reference run: no GPU has timed it.
 */
#include "workbook.h"
/* --image and --output: checked, decoded and written with stb_image (-lstb) */
#include "image.h"
/* luma, clamp_index, sobel_magnitude, edge_level: one edge pixel's arithmetic */
#include "sobel.h"
/* naive's three kernels, one a stage */
#include "stages.h"

#include <stdio.h>
#include <string.h>

/* 32 x 8 = 256 threads, a warp along a row, as in lesson 02. */
#define BLOCK_WIDTH 32
#define BLOCK_HEIGHT 8
#define THREADS_PER_BLOCK (BLOCK_WIDTH * BLOCK_HEIGHT)
/* The fused kernel: each thread writes 4 pixels of a column, 8 rows apart,
 * so a warp writes one row of the tile at a time. A 32 x 32 tile and its
 * one-pixel halo are 34 x 34 gray levels, 13% more pixels converted than
 * written; a 32 x 8 tile, one pixel a thread, would convert 34 x 10, 33%
 * more. Each level is an int in the tile, 4,624 bytes of shared memory:
 * the window's arithmetic is in int, so the nine reads of each output need
 * no conversion (a tile of bytes would work too, in a quarter of the space). */
#define ROWS_PER_THREAD 4
#define TILE_WIDTH BLOCK_WIDTH
#define TILE_HEIGHT (BLOCK_HEIGHT * ROWS_PER_THREAD)
#define HALO 1
/* Two copy engines and the SMs make three things that can run at once; a
 * fourth stream keeps one frame queued (lesson 07). */
#define PIPELINE_STREAMS 4

/* A grid's y dimension may not exceed 65,535 blocks. 2^18 rows are 32,768
 * blocks of 8 rows for naive's 2-D kernels and 8,192 tiles of 32 for the
 * fused kernel; edge_level_kernel's 1-D grid of 2^36 pixels is 2^28 blocks
 * of 256, within the x dimension's 2^31 - 1. Indices within a frame are
 * 64-bit, so the pixel count is limited by memory alone. */
#define MAX_SIDE (1LL << 18)
#define MAX_PIXELS (1LL << 36)
#define MAX_FRAMES 4096

/* A 4K video on a GPU; under the CPU emulator, which runs every GPU thread
 * on the CPU some hundred times slower, two 720p frames. */
#ifdef CUDA_EMULATION
#define DEFAULT_SIZE "1280x720"
#define DEFAULT_FRAMES 2
#else
#define DEFAULT_SIZE "3840x2160"
#define DEFAULT_FRAMES 16
#endif

static long long frame_count = DEFAULT_FRAMES;
static const char *image_path = "";
static const char *output_path = "";
static unsigned char *image_pixels; /* the decoded --image, 3 bytes a pixel */

/* Buffer indices, in the order of the declaration below. */
enum { RGB, EDGES, GRAY, MAGNITUDE };

/* ---- CPU reference ------------------------------------------------------- */

static void run_cpu(const wb_data *data)
{
    int width = (int)data->shape.width, height = (int)data->shape.height;
    long long pixels = data->shape.elements;
    const unsigned char *rgb = (const unsigned char *)data->host[RGB];
    unsigned char *edges = (unsigned char *)data->host[EDGES];
    /* the gray frame between the two passes */
    unsigned char *gray = (unsigned char *)wb_alloc_host((size_t)pixels, "gray frame");
    for (long long f = 0; f < frame_count; f++)
        edges_cpu(rgb + 3 * pixels * f, gray, edges + pixels * f, width, height);
    free(gray);
}

/* ---- kernels ------------------------------------------------------------- */

/* naive: grayscale_kernel, sobel_kernel and edge_level_kernel, one kernel a
 * stage, are in stages.h, where the exercise finds them too. */

/* optimized: the three stages in one pass, the gray levels kept on chip.
 * A block owns a TILE_WIDTH x TILE_HEIGHT tile of the frame. First its 256
 * threads convert the tile and its halo, (TILE_HEIGHT + 2) x (TILE_WIDTH + 2)
 * pixels, into shared memory, neighbouring threads taking neighbouring
 * pixels of a row; positions outside the frame take the clamped pixel, which
 * is the border rule. Then, once every thread has stored its part, each
 * thread reads its windows from the tile and writes ROWS_PER_THREAD edge
 * levels. DRAM sees each RGB byte once (the halo's come mostly from L2) and
 * each edge byte once: nothing else. */
__global__ void sobel_fused(const unsigned char *__restrict__ rgb,
                            unsigned char *__restrict__ edges, int width, int height)
{
    __shared__ int tile[TILE_HEIGHT + 2 * HALO][TILE_WIDTH + 2 * HALO];
    int first_column = blockIdx.x * TILE_WIDTH, first_row = blockIdx.y * TILE_HEIGHT;
    int thread = threadIdx.y * blockDim.x + threadIdx.x;
    for (int i = thread; i < (TILE_HEIGHT + 2 * HALO) * (TILE_WIDTH + 2 * HALO);
         i += THREADS_PER_BLOCK) {
        int tile_row = i / (TILE_WIDTH + 2 * HALO), tile_column = i % (TILE_WIDTH + 2 * HALO);
        int row = clamp_index(first_row + tile_row - HALO, height);
        int column = clamp_index(first_column + tile_column - HALO, width);
        const unsigned char *pixel = rgb + 3 * ((long long)row * width + column);
        tile[tile_row][tile_column] = luma(pixel[0], pixel[1], pixel[2]);
    }
    /* the windows below read what other threads stored */
    __syncthreads();

    int column = first_column + threadIdx.x;
    if (column >= width)
        return;
    int c = threadIdx.x + HALO;
    for (int k = 0; k < ROWS_PER_THREAD; k++) {
        int row = first_row + threadIdx.y + k * BLOCK_HEIGHT;
        if (row >= height)
            break;
        int r = threadIdx.y + k * BLOCK_HEIGHT + HALO;
        int magnitude = sobel_magnitude(tile[r - 1][c - 1], tile[r - 1][c], tile[r - 1][c + 1],
                                        tile[r][c - 1], tile[r][c + 1],
                                        tile[r + 1][c - 1], tile[r + 1][c], tile[r + 1][c + 1]);
        edges[(long long)row * width + column] = edge_level(magnitude);
    }
}

/* sliding: the next rung, from what the H200 measured of optimized (COURSE.md,
 * Lesson 08): its one-byte loads and eight shared-memory reads per output,
 * not its bytes, bound it. Two changes, the same results:
 *   - the tile's RGB comes in as 32-bit words, lesson 02's third rung: the
 *     tile is widened to whole groups of 4 pixels, GROUP columns on each
 *     side, and each thread turns 3 words into 4 gray levels (two dp2a dot
 *     products a pixel: luma_of_words_dp2a in luma.h), stored with
 *     one 16-byte store (consecutive groups fill the tile row after row, so
 *     a warp's stores are one contiguous run: no bank conflicts). A group
 *     that is not 4 whole pixels inside the row, or a frame whose width is
 *     not a multiple of 4 (its rows would not start on a 4-byte boundary),
 *     goes pixel by pixel with the clamp, as in optimized;
 *   - each thread writes 4 ADJACENT rows of its column, so its window slides
 *     down: each output reads the 3 levels of its new bottom row and keeps
 *     the other 6 in registers, 4.5 reads an output in all against 8.
 * The tile is 34 x 40 ints, 5,440 bytes. */
#define GROUP 4
#define SLIDING_TILE_WIDTH (TILE_WIDTH + 2 * GROUP)
#define GROUPS_PER_ROW (SLIDING_TILE_WIDTH / GROUP)

__global__ void sobel_sliding(const unsigned char *__restrict__ rgb,
                              unsigned char *__restrict__ edges, int width, int height)
{
    __shared__ __align__(16) int tile[TILE_HEIGHT + 2 * HALO][SLIDING_TILE_WIDTH];
    int first_column = blockIdx.x * TILE_WIDTH, first_row = blockIdx.y * TILE_HEIGHT;
    int thread = threadIdx.y * blockDim.x + threadIdx.x;
    int words_fit = width % 4 == 0;
    for (int g = thread; g < (TILE_HEIGHT + 2 * HALO) * GROUPS_PER_ROW; g += THREADS_PER_BLOCK) {
        int tile_row = g / GROUPS_PER_ROW, tile_column = (g % GROUPS_PER_ROW) * GROUP;
        const unsigned char *line =
            rgb + 3 * (long long)clamp_index(first_row + tile_row - HALO, height) * width;
        int column = first_column - GROUP + tile_column; /* the group's first pixel */
        unsigned int gray[GROUP];
        if (words_fit && column >= 0 && column + GROUP <= width) {
            const unsigned int *words = (const unsigned int *)(line + 3 * column);
            luma_of_words_dp2a(words[0], words[1], words[2], gray);
        } else {
            for (int k = 0; k < GROUP; k++) {
                const unsigned char *pixel = line + 3 * clamp_index(column + k, width);
                gray[k] = luma(pixel[0], pixel[1], pixel[2]);
            }
        }
        *(int4 *)&tile[tile_row][tile_column] =
            make_int4((int)gray[0], (int)gray[1], (int)gray[2], (int)gray[3]);
    }
    /* the windows below read what other threads stored */
    __syncthreads();

    int column = first_column + threadIdx.x;
    if (column >= width)
        return;
    int c = threadIdx.x + GROUP;
    int r = threadIdx.y * ROWS_PER_THREAD + HALO; /* the tile row of its first output */
    int row = first_row + threadIdx.y * ROWS_PER_THREAD;
    int nw = tile[r - 1][c - 1], n = tile[r - 1][c], ne = tile[r - 1][c + 1];
    int w = tile[r][c - 1], here = tile[r][c], e = tile[r][c + 1];
    unsigned char *out = edges + (long long)row * width + column;
    /* unrolled, the window's shift is a renaming of registers, not 6 copies,
     * and each row's address an addition (sm_90: 94 instructions for the 4
     * outputs, against 34 a row in the loop). g++, under the emulator, does
     * not know the pragma. */
#ifndef CUDA_EMULATION
#pragma unroll
#endif
    for (int k = 0; k < ROWS_PER_THREAD; k++) {
        if (row + k >= height)
            break;
        int sw = tile[r + k + 1][c - 1], s = tile[r + k + 1][c], se = tile[r + k + 1][c + 1];
        *out = edge_level(sobel_magnitude(nw, n, ne, w, e, sw, s, se));
        out += width;
        /* one row down: the middle row becomes the top, the bottom the middle */
        nw = w, n = here, ne = e;
        w = sw, here = s, e = se;
    }
}

/* shuffle: the rung after sliding, with no shared memory at all. The Sobel
 * window is separable: with, on every gray row, the smoothed level
 * H = w + 2 c + e and the difference G = e - w of each pixel's neighbours,
 *     gx = G(above) + 2 G(here) + G(below)      gy = H(below) - H(above)
 * A warp owns a band of SHUFFLE_COLUMNS columns and SHUFFLE_ROWS rows; each
 * lane holds 4 adjacent columns and walks down them. At each row: 3 words
 * of RGB, their 4 gray levels (dp2a, as sliding), the level either side of
 * them from the neighbouring lanes (__shfl_up_sync and __shfl_down_sync read
 * a register of another lane: no shared memory, no barrier), the row's H
 * and G, and, with the two rows above still in registers, the 4 edge levels
 * of the row above, written as one 4-byte word. Lanes 0 and 31 only lend
 * their levels to lanes 1 and 30, and a band reads the row above it and the
 * row below it too: 32/30 x 18/16 = 1.2 pixels converted an output, against
 * sliding's 1.33 and its shared-memory round trip. A width that is not a
 * multiple of 4 goes pixel by pixel with the clamp, as in sliding. (sm_90:
 * 80 registers, no spills; about 1,230 instructions for a lane's 64 outputs,
 * 19.2 an output, against about 42 in sliding and 75 in optimized.) */
#define SHUFFLE_LANES 32
#define SHUFFLE_COLUMNS ((SHUFFLE_LANES - 2) * GROUP)
#define SHUFFLE_ROWS 16
/* a block: 4 warps, 4 bands one under the other */
#define SHUFFLE_WARPS 4
#define FULL_WARP_MASK 0xffffffffu

/* The band of the warp that calls it, blockIdx.x across the frame and
 * blockIdx.y down it: sobel_shuffle's whole body, which batched shares. The
 * frame is the one whose first row is row frame_row of the batch, rgb and
 * edges the batch's first bytes. An int offset in rows (at most 4,096 frames
 * of 2^18 rows: 2^30), added where each row's address is computed, keeps
 * batched at shuffle's 80 registers (nvcc -Xptxas -v); a pointer to the frame
 * took 96, and an SM then holds 5 blocks, not 6. */
__device__ __forceinline__ void shuffle_band(const unsigned char *__restrict__ rgb,
                                             unsigned char *__restrict__ edges, int width,
                                             int height, int frame_row)
{
    int lane = threadIdx.x;
    int column = blockIdx.x * SHUFFLE_COLUMNS - GROUP + lane * GROUP; /* the lane's first */
    int first_row = (blockIdx.y * SHUFFLE_WARPS + threadIdx.y) * SHUFFLE_ROWS;
    /* a band below the frame: the whole warp leaves, so that the shuffles
     * below always find their 32 lanes */
    if (first_row >= height)
        return;
    int writes = lane > 0 && lane < SHUFFLE_LANES - 1 && column < width;
    /* With whole words in every row, every lane of every warp takes the word
     * path: groups start at multiples of 4, so none straddles the frame's
     * edge. A lane whose group lies outside the frame (lane 0 left of it,
     * the lanes right of it) loads the group at the edge instead and lends
     * its neighbour the level at the edge: the clamp, without one lane going
     * pixel by pixel, its loads one row at a time, while its warp waits. */
    int words_fit = width % 4 == 0;
    int loaded_column = column < 0 ? 0 : column >= width ? width - GROUP : column;
    /* First the RGB words of every row the lane reads, 3 x 18 loads in
     * flight at once: the steps below then wait for memory once, not once a
     * row (rows past the frame's ends are clamped, so every load is safe). */
    unsigned int words[SHUFFLE_ROWS + 2][3];
    if (words_fit)
        for (int step = 0; step < SHUFFLE_ROWS + 2; step++) {
            long long row = frame_row + clamp_index(first_row - 1 + step, height);
            const unsigned int *row_words =
                (const unsigned int *)(rgb + 3 * (row * width + loaded_column));
            for (int k = 0; k < 3; k++)
                words[step][k] = row_words[k];
        }
    /* H and G of the two rows read before this one */
    int smooth_above[GROUP] = {0}, diff_above[GROUP] = {0};
    int smooth_here[GROUP] = {0}, diff_here[GROUP] = {0};
    /* unrolled, words[] is registers, and the window's shift a renaming */
#ifndef CUDA_EMULATION
#pragma unroll
#endif
    for (int step = 0; step < SHUFFLE_ROWS + 2; step++) {
        int row = first_row - 1 + step; /* the gray row this step reads */
        unsigned int gray[GROUP];
        if (words_fit) {
            luma_of_words_dp2a(words[step][0], words[step][1], words[step][2], gray);
        } else {
            const unsigned char *line =
                rgb + 3 * (long long)(frame_row + clamp_index(row, height)) * width;
            for (int k = 0; k < GROUP; k++) {
                const unsigned char *pixel = line + 3 * clamp_index(column + k, width);
                gray[k] = luma(pixel[0], pixel[1], pixel[2]);
            }
        }
        /* the last level of the lane on the left, the first of the one on the
         * right; a lane outside the frame lends the level at its edge */
        unsigned int lent_right = column < 0 ? gray[0] : gray[GROUP - 1];
        unsigned int lent_left = column >= width ? gray[GROUP - 1] : gray[0];
        int left = (int)__shfl_up_sync(FULL_WARP_MASK, lent_right, 1);
        int right = (int)__shfl_down_sync(FULL_WARP_MASK, lent_left, 1);
        int smooth[GROUP], diff[GROUP];
        for (int k = 0; k < GROUP; k++) {
            int w = k == 0 ? left : (int)gray[k - 1];
            int e = k == GROUP - 1 ? right : (int)gray[k + 1];
            smooth[k] = w + 2 * (int)gray[k] + e;
            diff[k] = e - w;
        }
        /* from the third row on, the row above this one has all its neighbours */
        if (step >= 2 && writes && row - 1 < height) {
            unsigned char level[GROUP];
            for (int k = 0; k < GROUP; k++)
                level[k] = edge_level(gradient_magnitude(
                    diff_above[k] + 2 * diff_here[k] + diff[k], smooth[k] - smooth_above[k]));
            unsigned char *out = edges + (long long)(frame_row + row - 1) * width + column;
            if (words_fit)
                *(uchar4 *)out = make_uchar4(level[0], level[1], level[2], level[3]);
            else
                for (int k = 0; k < GROUP && column + k < width; k++)
                    out[k] = level[k];
        }
        /* one row down */
        for (int k = 0; k < GROUP; k++) {
            smooth_above[k] = smooth_here[k], diff_above[k] = diff_here[k];
            smooth_here[k] = smooth[k], diff_here[k] = diff[k];
        }
    }
}

__global__ void sobel_shuffle(const unsigned char *__restrict__ rgb,
                              unsigned char *__restrict__ edges, int width, int height)
{
    shuffle_band(rgb, edges, width, height, 0);
}

/* batched: shuffle's kernel, launched once for the whole batch, blockIdx.z
 * the frame, where shuffle launches it once a frame. What it answers is in
 * the grid, not in the code: a 4K frame is 32 x 34 = 1,088 of shuffle's
 * blocks, and an H200 holds 132 x 6 = 792 of them at once (80 registers a
 * thread: 6 blocks of 128 threads an SM), so each frame's launch runs a full
 * wave and then a second of 296 blocks, with 63% of the GPU idle, and the
 * next frame's launch waits for that tail. One launch of 16 frames is
 * 17,408 blocks, 21.98 waves: only the very last wave is short, and the 16
 * launches' start and end costs are paid once. */
__global__ void sobel_batched(const unsigned char *__restrict__ rgb,
                              unsigned char *__restrict__ edges, int width, int height)
{
    shuffle_band(rgb, edges, width, height, (int)blockIdx.z * height);
}

/* ---- launchers ------------------------------------------------------------ */

static unsigned int blocks_for(long long items, int per_block)
{
    return (unsigned int)((items + per_block - 1) / per_block); /* round up */
}

/* The three stages of one frame; the gray frame and the magnitudes are
 * scratch of one frame's size, reused frame after frame (the launches of the
 * default stream run in order). */
static void launch_stages(const wb_data *data, const unsigned char *rgb, unsigned char *edges)
{
    int width = (int)data->shape.width, height = (int)data->shape.height;
    long long pixels = data->shape.elements;
    unsigned char *gray = (unsigned char *)data->device[GRAY];
    int *magnitude = (int *)data->device[MAGNITUDE];
    dim3 block(BLOCK_WIDTH, BLOCK_HEIGHT);
    dim3 grid(blocks_for(width, BLOCK_WIDTH), blocks_for(height, BLOCK_HEIGHT));
    grayscale_kernel<<<grid, block>>>(rgb, gray, width, height);
    CUDA_CHECK_LAUNCH();
    sobel_kernel<<<grid, block>>>(gray, magnitude, width, height);
    CUDA_CHECK_LAUNCH();
    edge_level_kernel<<<blocks_for(pixels, THREADS_PER_BLOCK), THREADS_PER_BLOCK>>>(magnitude,
                                                                                    edges, pixels);
    CUDA_CHECK_LAUNCH();
}

/* kernel row: every frame already on the GPU. transfers row: each frame
 * copied in from pageable memory, processed and copied out, one after the
 * other, as a first port does. */
static void run_naive(const wb_data *data)
{
    long long pixels = data->shape.elements;
    const unsigned char *d_rgb = (const unsigned char *)data->device[RGB];
    unsigned char *d_edges = (unsigned char *)data->device[EDGES];
    int copies = data->scope == WB_TRANSFERS;
    for (long long f = 0; f < frame_count; f++) {
        if (copies)
            CUDA_CHECK(cudaMemcpy((void *)(d_rgb + 3 * pixels * f),
                                  (const unsigned char *)data->host[RGB] + 3 * pixels * f,
                                  3 * pixels, cudaMemcpyHostToDevice));
        launch_stages(data, d_rgb + 3 * pixels * f, d_edges + pixels * f);
        if (copies)
            CUDA_CHECK(cudaMemcpy((unsigned char *)data->host[EDGES] + pixels * f,
                                  d_edges + pixels * f, pixels, cudaMemcpyDeviceToHost));
    }
}

static cudaStream_t streams[PIPELINE_STREAMS];

static void prepare(const wb_data *data)
{
    (void)data;
    for (int s = 0; s < PIPELINE_STREAMS; s++)
        if (!streams[s])
            CUDA_CHECK(cudaStreamCreate(&streams[s]));
}

static void launch_fused(const unsigned char *rgb, unsigned char *edges, int width, int height,
                         cudaStream_t stream)
{
    dim3 block(BLOCK_WIDTH, BLOCK_HEIGHT);
    dim3 grid(blocks_for(width, TILE_WIDTH), blocks_for(height, TILE_HEIGHT));
    sobel_fused<<<grid, block, 0, stream>>>(rgb, edges, width, height);
    CUDA_CHECK_LAUNCH();
}

/* kernel rows only: the sliding or the shuffle kernel on every frame, already
 * on the GPU (their pipeline would be optimized's). The two kernels share one
 * signature, so one loop launches either through a pointer. */
typedef void (*frame_kernel)(const unsigned char *rgb, unsigned char *edges, int width,
                             int height);

static void launch_every_frame(const wb_data *data, frame_kernel kernel, dim3 grid, dim3 block)
{
    long long pixels = data->shape.elements;
    const unsigned char *d_rgb = (const unsigned char *)data->device[RGB];
    unsigned char *d_edges = (unsigned char *)data->device[EDGES];
    for (long long f = 0; f < frame_count; f++) {
        kernel<<<grid, block>>>(d_rgb + 3 * pixels * f, d_edges + pixels * f,
                                (int)data->shape.width, (int)data->shape.height);
        CUDA_CHECK_LAUNCH();
    }
}

static void run_sliding(const wb_data *data)
{
    dim3 block(BLOCK_WIDTH, BLOCK_HEIGHT);
    dim3 grid(blocks_for((int)data->shape.width, TILE_WIDTH),
              blocks_for((int)data->shape.height, TILE_HEIGHT));
    launch_every_frame(data, sobel_sliding, grid, block);
}

/* shuffle's and batched's grid: a warp a band of 120 columns, 4 bands of 16
 * rows a block, and a layer of such blocks for each of `frames` frames */
static dim3 band_grid(const wb_data *data, unsigned int frames)
{
    return dim3(blocks_for((int)data->shape.width, SHUFFLE_COLUMNS),
                blocks_for((int)data->shape.height, SHUFFLE_ROWS * SHUFFLE_WARPS), frames);
}

static void run_shuffle(const wb_data *data)
{
    launch_every_frame(data, sobel_shuffle, band_grid(data, 1), dim3(SHUFFLE_LANES, SHUFFLE_WARPS));
}

static void run_batched(const wb_data *data)
{
    dim3 grid = band_grid(data, (unsigned int)frame_count), block(SHUFFLE_LANES, SHUFFLE_WARPS);
    sobel_batched<<<grid, block>>>((const unsigned char *)data->device[RGB],
                                   (unsigned char *)data->device[EDGES],
                                   (int)data->shape.width, (int)data->shape.height);
    CUDA_CHECK_LAUNCH();
}

/* kernel row: the fused kernel on every frame, already on the GPU.
 * transfers row: frame f on stream f % 4: its copy in, its kernel and its
 * copy out wait for each other, not for the other streams' frames. Each
 * frame has its own place on the GPU, so no stream overwrites what another
 * still reads. The host memory is pinned (pinned_host below): a copy from
 * pageable memory would not be asynchronous at all. */
static void run_optimized(const wb_data *data)
{
    int width = (int)data->shape.width, height = (int)data->shape.height;
    long long pixels = data->shape.elements;
    const unsigned char *rgb = (const unsigned char *)data->host[RGB];
    unsigned char *edges = (unsigned char *)data->host[EDGES];
    unsigned char *d_rgb = (unsigned char *)data->device[RGB];
    unsigned char *d_edges = (unsigned char *)data->device[EDGES];
    if (data->scope != WB_TRANSFERS) {
        for (long long f = 0; f < frame_count; f++)
            launch_fused(d_rgb + 3 * pixels * f, d_edges + pixels * f, width, height, 0);
        return;
    }
    for (long long f = 0; f < frame_count; f++) {
        cudaStream_t stream = streams[f % PIPELINE_STREAMS];
        CUDA_CHECK(cudaMemcpyAsync(d_rgb + 3 * pixels * f, rgb + 3 * pixels * f, 3 * pixels,
                                   cudaMemcpyHostToDevice, stream));
        launch_fused(d_rgb + 3 * pixels * f, d_edges + pixels * f, width, height, stream);
        CUDA_CHECK(cudaMemcpyAsync(edges + pixels * f, d_edges + pixels * f, pixels,
                                   cudaMemcpyDeviceToHost, stream));
    }
    CUDA_CHECK(cudaDeviceSynchronize());
}

/* ---- input and output ------------------------------------------------------- */

/* Called once the command line is read, before anything is allocated: a bad
 * --image or --output is refused now, with one line and exit 2. */
static void input_shape(wb_shape *shape)
{
    if (output_path[0])
        open_output_image("lesson08", output_path);
    if (!image_path[0])
        return; /* synthetic frames of -n's size */
    int width, height;
    image_pixels = load_rgb_image("lesson08", image_path, 0, MAX_SIDE, &width, &height);
    wb_set_shape(shape, width, height, 0);
}

/* --image given: the photo in every frame. Else synthetic frames: bands
 * that drift from frame to frame (strong edges where they wrap around), and
 * a little noise from a hash of the seed and the byte's position
 * (splitmix64's finalizer), so that edges of every strength occur and not
 * every pixel saturates. */
static void fill_frames(void *host, long long count, const wb_shape *shape,
                        unsigned long long seed)
{
    unsigned char *bytes = (unsigned char *)host;
    long long frame_bytes = 3 * shape->elements;
    if (image_pixels) {
        for (long long f = 0; f < count / frame_bytes; f++)
            memcpy(bytes + frame_bytes * f, image_pixels, (size_t)frame_bytes);
        return;
    }
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < count; i++) {
        long long frame = i / frame_bytes, pixel = i % frame_bytes / 3;
        long long channel = i % 3, row = pixel / shape->width, column = pixel % shape->width;
        long long band = (column * (channel + 1) + row * (3 - channel) + 5 * frame) & 0x7F;
        unsigned long long z = seed * 0x9E3779B97F4A7C15ull + (unsigned long long)i;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        bytes[i] = (unsigned char)(band + ((z ^ (z >> 31)) >> 58));
    }
}

/* Called at the end with the CPU's edge maps, which every passing variant
 * matched: the first frame's, written as PNG. */
static void finish(const wb_data *data)
{
    if (output_path[0])
        write_gray_image("lesson08", output_path, (const unsigned char *)data->host[EDGES],
                         (int)data->shape.width, (int)data->shape.height, "8-bit edge map");
}

/* ---- the declaration: what common/ runs, checks and times ----------------- */

static long long rgb_bytes(const wb_shape *shape) { return 3 * shape->elements * frame_count; }
static long long edge_bytes(const wb_shape *shape) { return shape->elements * frame_count; }
static long long one_frame(const wb_shape *shape) { return shape->elements; }
static long long frames(const wb_shape *shape) { (void)shape; return frame_count; }
/* read 3 bytes, write 1 per pixel of every frame; the arithmetic is integer: no FLOP */
static double bytes_moved(const wb_shape *shape)
{
    return 4.0 * (double)shape->elements * (double)frame_count;
}

static const wb_buffer buffers[] = {
    {.name = "rgb", .type = WB_UCHAR, .role = WB_INPUT, .count = rgb_bytes, .fill = fill_frames},
    /* exact: the same integer arithmetic on both sides. A mismatch's row
     * counts on through the frames: row 2165 of 2160-row frames is row 5 of
     * the second. */
    {.name = "edges", .type = WB_UCHAR, .role = WB_OUTPUT, .count = edge_bytes,
     .tolerance = {.levels = 0}},
    /* naive's intermediates, one frame each */
    {.name = "gray", .type = WB_UCHAR, .role = WB_SCRATCH, .count = one_frame},
    {.name = "magnitude", .type = WB_INT, .role = WB_SCRATCH, .count = one_frame},
};

static const wb_variant variants[] = {
    {.name = "cpu", .description = "gray, then edges, on every core (OpenMP): the reference",
     .scope = WB_HOST, .run = run_cpu},
    {.name = "naive", .description = "a kernel per stage; each frame copied in and out alone",
     .scope = WB_KERNEL | WB_TRANSFERS, .run = run_naive},
    {.name = "optimized", .description = "one fused, tiled kernel; pinned memory, 4 streams",
     .scope = WB_KERNEL | WB_TRANSFERS, .run = run_optimized, .pinned_host = 1},
    {.name = "sliding", .description = "optimized reading 32-bit words, its window sliding down",
     .scope = WB_KERNEL, .run = run_sliding},
    {.name = "shuffle", .description = "no shared memory: 4 columns a lane, neighbours by shuffle",
     .scope = WB_KERNEL, .run = run_shuffle},
    {.name = "batched", .description = "shuffle's kernel, one launch for every frame of the batch",
     .scope = WB_KERNEL, .run = run_batched},
};

static const wb_option options[] = {
    {.flag = "--frames", .help = "frames in the batch, each of -n's size (or the --image)",
     .value = &frame_count, .min = 1, .max = MAX_FRAMES},
    {.flag = "--image",
     .help = "every frame is this photo, which sets the size (PNG, JPEG, BMP, TGA, PPM)",
     .text = &image_path},
    {.flag = "--output", .help = "write the first frame's edge map to this file as PNG",
     .text = &output_path},
};

static const wb_lesson lesson = {
    .name = "lesson08",
    .title = "Sobel edges: RGB to gray to |gx| + |gy| to 8 bits, a batch of frames",
    .rank = 2,
    .size_meaning = "frame size",
    .default_size = DEFAULT_SIZE,
    .max_dimension = MAX_SIDE,
    .max_elements = MAX_PIXELS,
    .buffers = buffers, .buffer_count = WB_COUNT(buffers),
    .variants = variants, .variant_count = WB_COUNT(variants),
    .bytes = bytes_moved,
    .copy_anchor = 1,
    .options = options, .option_count = WB_COUNT(options),
    .prepare = prepare,
    .input_shape = input_shape,
    .finish = finish,
    .item_name = "frame",
    .items = frames,
};

int main(int argc, char **argv)
{
    return wb_main(&lesson, argc, argv);
}
