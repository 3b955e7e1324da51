/*
 * Lesson 03: the memory hierarchy, with 2-D heat diffusion.
 *
 * A float field of WIDTH x HEIGHT cells is smoothed step after step:
 *     field <- field - coeff * laplacian(field),      coeff = 0.25
 * with the 5-point Laplacian written as the centre minus its neighbours,
 *     laplacian = 4 * centre - (left + right + up + down),
 * so heat flows out of a cell hotter than its neighbours. On the border a
 * neighbour that does not exist counts as the centre itself: its term
 * (centre - centre) is zero, so no heat crosses the border (no flux). The
 * source article's step counts a missing neighbour as 0 instead (it starts
 * from 4 * centre and subtracts only the neighbours that exist), so heat leaks
 * out across its border. The two agree while the border cells hold 0, as the
 * article's field does until the heat reaches them; this lesson's field keeps
 * its border warm so that the checks see a wrong edge rule.
 *
 * Build and run (from the top of the repository):
 *     make lesson03 && ./lesson03
 *     ./lesson03 -n 4096x2048 --steps 100     # another field, more steps
 *     ./lesson03 --seed-problem               # the article's 2000 x 2000, 10,000 steps:
 *                                             # a GPU's job (hours under the emulator)
 *     ./lesson03 --output plots/results/fields  # write the fields; make plots draws them
 *     ./lesson03 --race-demo                  # the in-place update's race, shown
 *     ./lesson03 --help                       # every option
 *
 * Each step reads the whole field and writes a new one (ping-pong between two
 * buffers: a step must not read cells the same step already changed):
 *   cpu        the C loop on every core (OpenMP): the reference
 *   naive      one thread per cell reading its 5 cells from global memory,
 *              one launch per step; the caches (L1, L2) catch the reuse
 *   shared     a block loads its tile plus a one-cell halo into shared memory
 *              once, then every thread reads its neighbours there
 *   optimized  several steps per launch: a block loads a tile with a halo as
 *              wide as the steps it takes, steps it in shared memory and writes
 *              only the result; global traffic and launches drop by that factor
 *   registers  the same steps per launch, each thread walking one column of
 *              the tile: the cells above and below stay in registers, so a
 *              cell update reads 3 floats from shared memory instead of 5, and
 *              no index is divided or border tested inside the loop
 *
 * Napkin math (H100: 3,352 GB/s HBM3 peak, 2,988 GB/s measured device copy,
 * 50 MB L2, 4.1 us to launch an empty kernel):
 *   bytes per step:   read the field, write the new one: 8 B per cell.
 *   flops per step:   7 per cell (4c, three additions, a subtraction, coeff
 *                     times the Laplacian and a subtraction): 7 / 8 = 0.9 FLOP
 *                     per byte, far below the ~20 the GPU needs to be busy
 *                     computing. Memory (or the cache) is the limit.
 *   8192 x 8192:      268 MB per field, 537 MB per step, ten times the L2:
 *                     every step comes from HBM, 537 MB / 2,988 GB/s = 0.18 ms.
 *   2000 x 2000:      16 MB per field, 32 MB per step: both fields fit in the
 *                     50 MB L2, so after the first step HBM hardly matters. At
 *                     one launch per step the floor is the launch rate: 10,000
 *                     steps x a few us = tens of ms before a byte moves. Several
 *                     steps per launch remove most launches and most traffic.
 *   in shared memory: the SM itself is then the limit. It issues 4 warp
 *                     instructions and one warp-wide shared-memory access a
 *                     clock. A cell update is 48 instructions in optimized's
 *                     loop (sm_90 code, disassembled: indexing and border
 *                     tests), 14 in registers': 32 x 4 / 48 = 2.7 updates a
 *                     clock against about 8 for registers, whose 4 shared
 *                     accesses (3 loads, 1 store) are then its limit.
 * The table's GB/s count 8 B per cell and step, so they can pass the HBM
 * peak when the L2 or shared memory serves the field.
 */
#include "workbook.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The field and its step, shared with lesson 09, which splits the same field
 * over several GPUs: the initial field (fill_jagged), the update of one cell
 * (diffused: coeff = 0.25), the CPU reference's step of the whole field
 * (diffuse_step_cpu) and kernel 1, diffuse_naive. */
#include "diffusion.h"

/* The defaults are small so that ./lesson03 finishes in seconds under the CPU
 * emulator; --seed-problem and -n/--steps ask for more. */
#define DEFAULT_STEPS 5
#define SEED_PROBLEM_SIDE 2000  /* the article's field: 2000 x 2000 */
#define SEED_PROBLEM_STEPS 10000

/* 32 x 8 threads: a row of a block is one warp, so a warp reads 32 consecutive
 * floats of a row (one 128-byte line); 8 rows make 256 threads per block. */
#define BLOCK_COLUMNS 32
#define BLOCK_ROWS 8

/* optimized: each block owns an OUT_COLUMNS x OUT_ROWS tile of the result and
 * takes up to STEPS_PER_LAUNCH steps on it in shared memory. After s steps a
 * cell depends on cells up to s away, so the block loads a halo that wide. */
#define STEPS_PER_LAUNCH 8
#define OUT_COLUMNS 64
#define OUT_ROWS 32
#define HALO_COLUMNS (OUT_COLUMNS + 2 * STEPS_PER_LAUNCH) /* 80 */
#define HALO_ROWS (OUT_ROWS + 2 * STEPS_PER_LAUNCH)       /* 48: 2 x 80 x 48 x 4 B = 30 kB */

/* registers: a block of WALK_COLUMNS threads, one per column of a haloed
 * tile WALK_ROWS tall; the same 8-cell halo on every side. */
#define WALK_COLUMNS 128 /* four warps */
#define WALK_ROWS 48     /* 2 x 48 x 128 x 4 B = 48 KiB, all that static __shared__ may hold */
#define WALK_OUT_COLUMNS (WALK_COLUMNS - 2 * STEPS_PER_LAUNCH) /* 112 */
#define WALK_OUT_ROWS (WALK_ROWS - 2 * STEPS_PER_LAUNCH)       /* 32 */
static_assert(WALK_OUT_ROWS > 0, "registers: WALK_ROWS must exceed 2 x STEPS_PER_LAUNCH");

/* the article's block: 8 x 8 threads, used by the in-place race demo */
#define ARTICLE_BLOCK 8

/* ---- CPU reference: diffuse_step_cpu, in diffusion.h ---------------------- */

/* The Laplacian of the whole field: written by --output beside the fields. */
static void laplacian_cpu(const float *field, float *laplacian, int width, int height)
{
#pragma omp parallel for schedule(static)
    for (int row = 0; row < height; row++) {
        const float *here = field + (long long)row * width;
        const float *above = row > 0 ? here - width : here;
        const float *below = row < height - 1 ? here + width : here;
        for (int col = 0; col < width; col++) {
            float centre = here[col];
            float left = col > 0 ? here[col - 1] : centre;
            float right = col < width - 1 ? here[col + 1] : centre;
            laplacian[(long long)row * width + col] =
                laplacian_of(centre, left, right, above[col], below[col]);
        }
    }
}

/* ---- kernels ------------------------------------------------------------ */

/* 1. diffuse_naive, one thread per cell reading its 5 cells from global
 * memory: in diffusion.h. */

/* The index of the cell at (row, col), moved onto the field if it lies off
 * it: a missing neighbour becomes the nearest cell on the border, which for
 * the one-cell halo is the centre itself, as the edge rule wants. */
__device__ inline long long clamped_index(int row, int col, int width, int height)
{
    row = min(max(row, 0), height - 1);
    col = min(max(col, 0), width - 1);
    return (long long)row * width + col;
}

/* A block's tile of the field, ROWS x COLUMNS cells, with a one-cell halo
 * around it, into shared memory. Each thread loads its own cell; the threads
 * on the tile's edges also load the row or column just outside it (the
 * corners are not needed by a 5-point stencil). Threads past the field's end
 * still load (a clamped cell): the last real column's right neighbour is
 * their cell. */
template <int ROWS, int COLUMNS>
__device__ static void load_tile_with_halo(float (*tile)[COLUMNS + 2], const float *field,
                                           int row, int col, int width, int height)
{
    int tile_row = threadIdx.y + 1, tile_col = threadIdx.x + 1; /* +1: past the halo */
    tile[tile_row][tile_col] = field[clamped_index(row, col, width, height)];
    if (threadIdx.x == 0)
        tile[tile_row][0] = field[clamped_index(row, col - 1, width, height)];
    if (threadIdx.x == COLUMNS - 1)
        tile[tile_row][COLUMNS + 1] = field[clamped_index(row, col + 1, width, height)];
    if (threadIdx.y == 0)
        tile[0][tile_col] = field[clamped_index(row - 1, col, width, height)];
    if (threadIdx.y == ROWS - 1)
        tile[ROWS + 1][tile_col] = field[clamped_index(row + 1, col, width, height)];
}

/* This thread's cell after one step, from the tile alone. */
template <int COLUMNS>
__device__ static float diffused_in_tile(float (*tile)[COLUMNS + 2])
{
    int tile_row = threadIdx.y + 1, tile_col = threadIdx.x + 1;
    return diffused(tile[tile_row][tile_col], tile[tile_row][tile_col - 1],
                    tile[tile_row][tile_col + 1], tile[tile_row - 1][tile_col],
                    tile[tile_row + 1][tile_col]);
}

/* 2. The tile plus a one-cell halo in shared memory: each cell is read from
 * global memory about once (plus the halo), then five times from shared. */
__global__ void diffuse_shared(const float *from, float *to, int width, int height)
{
    __shared__ float tile[BLOCK_ROWS + 2][BLOCK_COLUMNS + 2];
    int col = blockIdx.x * BLOCK_COLUMNS + threadIdx.x;
    int row = blockIdx.y * BLOCK_ROWS + threadIdx.y;
    load_tile_with_halo<BLOCK_ROWS, BLOCK_COLUMNS>(tile, from, row, col, width, height);
    /* without it a thread reads a neighbour's cell before the neighbour stored it */
    __syncthreads();
    if (col < width && row < height)
        to[(long long)row * width + col] = diffused_in_tile<BLOCK_COLUMNS>(tile);
}

/* 3. Several steps per launch (temporal blocking). The block loads its
 * OUT_COLUMNS x OUT_ROWS tile with a STEPS_PER_LAUNCH-wide halo, then takes
 * `steps` steps between two shared-memory buffers: after each step the ring
 * of cells still correct shrinks by one, and after `steps` steps the inner
 * tile is exact and is written out. The halo cells are computed more than
 * once (by the neighbouring blocks too), about 40% extra arithmetic, to save
 * STEPS_PER_LAUNCH - 1 of every STEPS_PER_LAUNCH global reads, writes and
 * launches. Each thread handles several cells, walking the tile in strides of
 * the block's 256 threads. */
__global__ void diffuse_optimized(const float *from, float *to, int width, int height, int steps)
{
    __shared__ float buffer[2][HALO_ROWS][HALO_COLUMNS];
    int first_col = blockIdx.x * OUT_COLUMNS - STEPS_PER_LAUNCH; /* of the haloed tile */
    int first_row = blockIdx.y * OUT_ROWS - STEPS_PER_LAUNCH;
    int thread = threadIdx.y * BLOCK_COLUMNS + threadIdx.x;
    const int threads = BLOCK_COLUMNS * BLOCK_ROWS;

    for (int i = thread; i < HALO_ROWS * HALO_COLUMNS; i += threads) {
        int r = i / HALO_COLUMNS, c = i % HALO_COLUMNS;
        buffer[0][r][c] = from[clamped_index(first_row + r, first_col + c, width, height)];
    }
    __syncthreads();

    for (int step = 1; step <= steps; step++) {
        float(*current)[HALO_COLUMNS] = buffer[(step - 1) % 2];
        float(*next)[HALO_COLUMNS] = buffer[step % 2];
        /* the ring still correct after this step: `step` cells in from the edge */
        int rows = HALO_ROWS - 2 * step, cols = HALO_COLUMNS - 2 * step;
        for (int i = thread; i < rows * cols; i += threads) {
            int r = step + i / cols, c = step + i % cols;
            int row = first_row + r, col = first_col + c;
            float centre = current[r][c];
            /* the edge rule at the field's border; cells off the field are
             * computed too but no cell on it ever reads them */
            float left = col > 0 ? current[r][c - 1] : centre;
            float right = col < width - 1 ? current[r][c + 1] : centre;
            float up = row > 0 ? current[r - 1][c] : centre;
            float down = row < height - 1 ? current[r + 1][c] : centre;
            next[r][c] = diffused(centre, left, right, up, down);
        }
        /* the next step reads what this one wrote, across threads */
        __syncthreads();
    }

    float(*result)[HALO_COLUMNS] = buffer[steps % 2];
    for (int i = thread; i < OUT_ROWS * OUT_COLUMNS; i += threads) {
        int r = STEPS_PER_LAUNCH + i / OUT_COLUMNS, c = STEPS_PER_LAUNCH + i % OUT_COLUMNS;
        int row = first_row + r, col = first_col + c;
        if (row < height && col < width)
            to[(long long)row * width + col] = result[r][c];
    }
}

/* 4. Registers, the top of the hierarchy: the same temporal blocking, but each
 * thread owns one column of the haloed tile and walks down it, one cell after
 * another. The cells above and below ride along in registers (the centre
 * becomes the next cell's up, the down the next centre), so a cell update
 * reads 3 floats from shared memory (down, left, right) instead of 5. Walking
 * a column also leaves no index to divide: a thread's column is its
 * threadIdx.x, and its row is the loop's counter. The border tests move out
 * of the loop too: a thread at the field's left or right edge reads its left
 * or right neighbour 0 columns away (the centre itself, the edge rule), and
 * the walk starts and stops at the field's first and last rows; only the
 * last row's down needs a test in the loop. Threads whose column is off the
 * field load and compute nothing: no cell on the field ever reads theirs.
 * A launch of fewer than STEPS_PER_LAUNCH steps needs a narrower halo, so its
 * first rings are skipped rather than computed for nothing. */
__global__ void diffuse_registers(const float *from, float *to, int width, int height, int steps)
{
    __shared__ float buffer[2][WALK_ROWS][WALK_COLUMNS];
    int tile_col = threadIdx.x;
    int first_col = blockIdx.x * WALK_OUT_COLUMNS - STEPS_PER_LAUNCH; /* of the haloed tile */
    int first_row = blockIdx.y * WALK_OUT_ROWS - STEPS_PER_LAUNCH;
    int col = first_col + tile_col;
    int on_field = col >= 0 && col < width;
    /* the field's first and last rows, counted in the tile's rows */
    int top = max(-first_row, 0), bottom = min(height - 1 - first_row, WALK_ROWS - 1);
    /* the rings a launch of `steps` steps needs start this far in */
    int skip = STEPS_PER_LAUNCH - steps;
    /* 1 column away, or 0 at the field's edge: the missing neighbour is the centre */
    int left = col > 0, right = col < width - 1;

    if (on_field)
        for (int r = max(skip, top); r <= min(WALK_ROWS - 1 - skip, bottom); r++)
            buffer[0][r][tile_col] = from[(long long)(first_row + r) * width + col];
    __syncthreads();

    for (int step = 1; step <= steps; step++) {
        const float(*current)[WALK_COLUMNS] = buffer[(step - 1) % 2];
        float(*next)[WALK_COLUMNS] = buffer[step % 2];
        int ring = skip + step; /* cells this far in from the tile's edge are still correct */
        if (on_field && tile_col >= ring && tile_col < WALK_COLUMNS - ring) {
            int begin = max(ring, top), end = min(WALK_ROWS - 1 - ring, bottom);
            float centre = current[begin][tile_col];
            float up = begin == top ? centre : current[begin - 1][tile_col];
            for (int r = begin; r <= end; r++) {
                float down = r < bottom ? current[r + 1][tile_col] : centre;
                next[r][tile_col] = diffused(centre, current[r][tile_col - left],
                                             current[r][tile_col + right], up, down);
                up = centre;
                centre = down;
            }
        }
        /* the next step reads the neighbouring columns: other threads' cells */
        __syncthreads();
    }

    const float(*result)[WALK_COLUMNS] = buffer[steps % 2];
    if (on_field && tile_col >= STEPS_PER_LAUNCH && tile_col < STEPS_PER_LAUNCH + WALK_OUT_COLUMNS)
        for (int r = STEPS_PER_LAUNCH; r <= min(STEPS_PER_LAUNCH + WALK_OUT_ROWS - 1, bottom); r++)
            to[(long long)(first_row + r) * width + col] = result[r][tile_col];
}

/* The article's kernel, kept for the race demo (with this lesson's edge rule):
 * the shared tile of the 8 x 8 block, but the result written back into the
 * field it reads. A block that runs after its neighbour loads a halo the
 * neighbour has already updated, so the result depends on the order the GPU
 * happens to run the blocks in.
 * reverse_blocks = 1 hands the tiles to the blocks in the opposite order,
 * as a scheduler is free to. */
__global__ void diffuse_in_place(float *field, int width, int height, int reverse_blocks)
{
    __shared__ float tile[ARTICLE_BLOCK + 2][ARTICLE_BLOCK + 2];
    unsigned block = blockIdx.y * gridDim.x + blockIdx.x;
    if (reverse_blocks)
        block = gridDim.x * gridDim.y - 1 - block;
    int col = (block % gridDim.x) * ARTICLE_BLOCK + threadIdx.x;
    int row = (block / gridDim.x) * ARTICLE_BLOCK + threadIdx.y;
    load_tile_with_halo<ARTICLE_BLOCK, ARTICLE_BLOCK>(tile, field, row, col, width, height);
    __syncthreads();
    if (col < width && row < height)
        field[(long long)row * width + col] = diffused_in_tile<ARTICLE_BLOCK>(tile);
}

/* ---- launchers ------------------------------------------------------------ */

/* Buffer indices, in the order of the declaration below. SCRATCH is the
 * second field of the ping-pong, on the GPU and (for the CPU) on the host. */
enum { INITIAL, FINAL, SCRATCH };

static long long steps = DEFAULT_STEPS;
static int seed_problem, race_demo;
static const char *output_dir = "";

/* Ping-pong: `steps` steps in passes of up to steps_per_pass (a launch, or a
 * CPU step). The first pass reads the initial field, which stays untouched;
 * the passes alternate between the final buffer and a scratch buffer,
 * arranged so that the last one writes the final buffer: pass p writes
 * `final` when passes - 1 - p is even. */
typedef void (*pass_function)(const float *from, float *to, int width, int height,
                              int steps_in_pass);

static void ping_pong(const float *initial, float *final, float *scratch, int width, int height,
                      long long steps_per_pass, pass_function pass)
{
    long long passes = (steps + steps_per_pass - 1) / steps_per_pass;
    const float *from = initial;
    for (long long p = 0; p < passes; p++) {
        float *to = (passes - 1 - p) % 2 == 0 ? final : scratch;
        long long steps_left = steps - p * steps_per_pass;
        pass(from, to, width, height,
             (int)(steps_left < steps_per_pass ? steps_left : steps_per_pass));
        from = to;
    }
}

static void cpu_pass(const float *from, float *to, int width, int height, int steps_in_pass)
{
    diffuse_step_cpu(from, to, width, height);
}

static dim3 grid_for(int width, int height, int tile_columns, int tile_rows)
{
    return dim3((unsigned)((width + tile_columns - 1) / tile_columns),
                (unsigned)((height + tile_rows - 1) / tile_rows));
}

static void naive_pass(const float *from, float *to, int width, int height, int steps_in_pass)
{
    diffuse_naive<<<grid_for(width, height, BLOCK_COLUMNS, BLOCK_ROWS),
                    dim3(BLOCK_COLUMNS, BLOCK_ROWS)>>>(from, to, width, height, 0, height);
    CUDA_CHECK_LAUNCH();
}

static void shared_pass(const float *from, float *to, int width, int height, int steps_in_pass)
{
    diffuse_shared<<<grid_for(width, height, BLOCK_COLUMNS, BLOCK_ROWS),
                     dim3(BLOCK_COLUMNS, BLOCK_ROWS)>>>(from, to, width, height);
    CUDA_CHECK_LAUNCH();
}

static void optimized_pass(const float *from, float *to, int width, int height, int steps_in_pass)
{
    diffuse_optimized<<<grid_for(width, height, OUT_COLUMNS, OUT_ROWS),
                        dim3(BLOCK_COLUMNS, BLOCK_ROWS)>>>(from, to, width, height,
                                                           steps_in_pass);
    CUDA_CHECK_LAUNCH();
}

static void registers_pass(const float *from, float *to, int width, int height, int steps_in_pass)
{
    diffuse_registers<<<grid_for(width, height, WALK_OUT_COLUMNS, WALK_OUT_ROWS), WALK_COLUMNS>>>(
        from, to, width, height, steps_in_pass);
    CUDA_CHECK_LAUNCH();
}

static void run_cpu(const wb_data *data)
{
    ping_pong((const float *)data->host[INITIAL], (float *)data->host[FINAL],
              (float *)data->host[SCRATCH], (int)data->shape.width, (int)data->shape.height, 1,
              cpu_pass);
}

static void run_on_gpu(const wb_data *data, long long steps_per_pass, pass_function pass)
{
    ping_pong((const float *)data->device[INITIAL], (float *)data->device[FINAL],
              (float *)data->device[SCRATCH], (int)data->shape.width, (int)data->shape.height,
              steps_per_pass, pass);
}

static void run_naive(const wb_data *data) { run_on_gpu(data, 1, naive_pass); }
static void run_shared(const wb_data *data) { run_on_gpu(data, 1, shared_pass); }
static void run_optimized(const wb_data *data)
{
    run_on_gpu(data, STEPS_PER_LAUNCH, optimized_pass);
}
static void run_registers(const wb_data *data)
{
    run_on_gpu(data, STEPS_PER_LAUNCH, registers_pass);
}

/* ---- the race demo and the output files (at the end, from finish) ----------- */

/* The sizes of the memories "Where the data lives" draws, as this device
 * reports them: under the table (on stderr with --csv). */
static void note_memory_sizes(const wb_data *data)
{
    int device, l2_bytes, shared_per_sm, registers_per_sm;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&shared_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor,
                                      device));
    CUDA_CHECK(cudaDeviceGetAttribute(&registers_per_sm, cudaDevAttrMaxRegistersPerMultiprocessor,
                                      device));
    wb_note("memories of this device (cudaDeviceGetAttribute): L2 cache %g MiB; per SM, %g KiB "
            "of shared memory and %d 32-bit registers%s",
            l2_bytes / 1048576.0, shared_per_sm / 1024.0, registers_per_sm,
            data->device_info->emulated
                ? " (the emulated device model's; its L2 is this CPU's last-level cache)"
                : "");
}

/* --race-demo: the article's in-place kernel, with the blocks in two orders,
 * each compared with the ping-pong result every variant matched. Under the
 * table (on stderr with --csv, whose stdout is for the rows alone). The
 * scratch field is free once every variant has run. */
static void show_race(const wb_data *data, const float *reference)
{
    int width = (int)data->shape.width, height = (int)data->shape.height;
    long long cells = data->shape.elements;
    size_t bytes = data->bytes[FINAL];
    float *field = (float *)data->device[SCRATCH];
    dim3 grid = grid_for(width, height, ARTICLE_BLOCK, ARTICLE_BLOCK);
    float *results[2];
    for (int reverse = 0; reverse < 2; reverse++) {
        results[reverse] = (float *)wb_alloc_host(bytes, "the in-place result");
        CUDA_CHECK(cudaMemcpy(field, data->host[INITIAL], bytes, cudaMemcpyHostToDevice));
        for (long long s = 0; s < steps; s++) {
            diffuse_in_place<<<grid, dim3(ARTICLE_BLOCK, ARTICLE_BLOCK)>>>(field, width, height,
                                                                          reverse);
            CUDA_CHECK_LAUNCH();
        }
        CUDA_CHECK(cudaMemcpy(results[reverse], field, bytes, cudaMemcpyDeviceToHost));
    }
    long long wrong[2] = {0, 0}, orders_differ = 0;
    for (long long i = 0; i < cells; i++) {
        for (int reverse = 0; reverse < 2; reverse++)
            wrong[reverse] += !(fabsf(results[reverse][i] - reference[i]) <= WB_ATOL);
        orders_differ += results[0][i] != results[1][i];
    }
    wb_note("race demo: the article's in-place update, %lld step%s, 8 x 8 blocks", steps,
            steps == 1 ? "" : "s");
    wb_note("  blocks in launch order:   %lld of %lld cells differ from the ping-pong result",
            wrong[0], cells);
    wb_note("  blocks in reverse order:  %lld of %lld cells differ from the ping-pong result",
            wrong[1], cells);
    if (orders_differ > 0)
        wb_note("  the two orders disagree on %lld cells: the result depends on block order",
                orders_differ);
    else if (grid.x * grid.y == 1)
        wb_note("  the two orders agree: a single block has no neighbour to race with");
    else
        wb_note("  the two orders agree here: no block read a halo its neighbour had updated");
    free(results[0]);
    free(results[1]);
}

/* One field as text, a row of the field per line: gnuplot's "matrix" format. */
static void write_matrix(const char *dir, const char *name, const float *field, int width,
                         int height)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *file = fopen(path, "w");
    if (!file) {
        fprintf(stderr, "lesson03: cannot write %s: %s\n", path, strerror(errno));
        exit(WB_EXIT_CHECK_FAILED);
    }
    for (int row = 0; row < height; row++)
        for (int col = 0; col < width; col++)
            fprintf(file, "%.6g%c", field[(long long)row * width + col],
                    col == width - 1 ? '\n' : ' ');
    if (fclose(file) != 0) {
        fprintf(stderr, "lesson03: cannot write %s: %s\n", path, strerror(errno));
        exit(WB_EXIT_CHECK_FAILED);
    }
}

/* --output DIR: the initial field, the final one (the CPU's, which every
 * passing variant matched) and its Laplacian, for plots/heatmaps.gp. */
static void write_fields(const wb_data *data)
{
    int width = (int)data->shape.width, height = (int)data->shape.height;
    float *laplacian = (float *)wb_alloc_host(data->bytes[FINAL], "the Laplacian");
    laplacian_cpu((const float *)data->host[FINAL], laplacian, width, height);
    write_matrix(output_dir, "initial.dat", (const float *)data->host[INITIAL], width, height);
    write_matrix(output_dir, "final.dat", (const float *)data->host[FINAL], width, height);
    write_matrix(output_dir, "laplacian.dat", laplacian, width, height);
    free(laplacian);
    /* on stderr: with --csv, stdout is for the rows alone */
    fprintf(stderr, "wrote initial.dat, final.dat and laplacian.dat (%d x %d, after %lld step%s) "
            "to %s\n", width, height, steps, steps == 1 ? "" : "s", output_dir);
}

static void finish(const wb_data *data)
{
    if (data->device_info->gpu_available)
        note_memory_sizes(data);
    if (race_demo && data->device_info->gpu_available)
        show_race(data, (const float *)data->host[FINAL]);
    if (output_dir[0])
        write_fields(data);
}

/* ---- the declaration: what common/ runs, checks and times ----------------- */

/* After the command line, before anything is computed: --seed-problem sets
 * the article's field and step count, whatever -n and --steps said; the
 * --output folder (and its parents) is created now, so that a path that
 * cannot be written is refused at once rather than after the run. */
static void check_options(wb_shape *shape)
{
    if (seed_problem) {
        wb_set_shape(shape, SEED_PROBLEM_SIDE, SEED_PROBLEM_SIDE, 0);
        steps = SEED_PROBLEM_STEPS;
#ifdef CUDA_EMULATION
        /* 10,000 steps of 4 million cells per variant and run: on two cores
         * about ten minutes each for naive and optimized, over an hour for
         * shared (its barriers are the emulator's slowest part), so some
         * hours even for one timed run after the check */
        wb_default_runs(1, 0);
        fprintf(stderr, "lesson03: --seed-problem is 4 x 10^10 cell updates per variant and run, "
                "hours under the CPU emulator: it runs once, without warm-up, unless --reps or "
                "--warmup say otherwise (it is meant for a GPU)\n");
#endif
    }
    if (!output_dir[0])
        return;
    char path[4096];
    snprintf(path, sizeof path, "%s", output_dir);
    for (char *slash = path + 1;; slash++) {
        int end = *slash == '\0';
        if (*slash != '/' && !end)
            continue;
        *slash = '\0';
        struct stat info;
        if (mkdir(path, 0777) != 0 && !(errno == EEXIST && stat(path, &info) == 0 &&
                                          S_ISDIR(info.st_mode))) {
            fprintf(stderr, "lesson03: --output '%s': cannot create the folder %s: %s\n",
                    output_dir, path, errno == EEXIST ? "a file is in the way" : strerror(errno));
            exit(WB_EXIT_USAGE);
        }
        if (end)
            break;
        *slash = '/';
    }
}

static long long field_cells(const wb_shape *shape) { return shape->elements; }
/* each step reads the field and writes the next: 8 bytes per cell */
static double bytes_moved(const wb_shape *shape)
{
    return 2.0 * sizeof(float) * shape->elements * steps;
}
static double flops_done(const wb_shape *shape) { return 7.0 * shape->elements * steps; }
/* the device-copy row copies one field, as one step of a kernel does */
static double bytes_per_step(const wb_shape *shape)
{
    return 2.0 * sizeof(float) * shape->elements;
}

/* Every kernel computes the same expression in the same order as the CPU, and
 * the only multiplications are by 4 and 0.25, which are exact: the results
 * should agree to the bit. The tolerance still allows one rounding per step,
 * of at most u = 2^-24 times the largest value (diffusion only averages, so
 * no cell ever exceeds the initial maximum, and an error made in one step is
 * averaged, not amplified, by the next): steps x u x max. A change that adds
 * the neighbours in another order, or a coefficient that is not a power of
 * two, stays within it; a wrong neighbour does not. */
static void steps_tolerance(const wb_data *data, double *atol, double *rtol)
{
    double largest = wb_largest_magnitude((const float *)data->host[INITIAL], data->shape.elements);
    *atol = (double)steps * largest / 16777216.0;
    *rtol = 0;
}

static const wb_buffer buffers[] = {
    {.name = "initial field", .type = WB_FLOAT, .role = WB_INPUT, .count = field_cells,
     .fill = fill_jagged},
    {.name = "final field", .type = WB_FLOAT, .role = WB_OUTPUT, .count = field_cells,
     .tolerance = {.why = "one rounding per step at most", .widen = steps_tolerance}},
    /* the ping-pong's other buffer, which the CPU's steps need too */
    {.name = "second field", .type = WB_FLOAT, .role = WB_SCRATCH, .count = field_cells,
     .host_too = 1},
};

static const wb_variant variants[] = {
    {.name = "cpu", .description = "the C loop on every core (OpenMP): the reference",
     .scope = WB_HOST, .run = run_cpu},
    {.name = "naive", .description = "one thread per cell, 5 global reads, a launch per step",
     .scope = WB_KERNEL, .run = run_naive},
    {.name = "shared", .description = "32 x 8 tile plus halo in shared memory, a launch per step",
     .scope = WB_KERNEL, .run = run_shared},
    {.name = "optimized", .description = "8 steps per launch on a 64 x 32 tile with an 8-cell halo",
     .scope = WB_KERNEL, .run = run_optimized},
    {.name = "registers", .description = "optimized, a column per thread, up and down in registers",
     .scope = WB_KERNEL, .run = run_registers},
};

static const wb_option options[] = {
    {.flag = "--steps", .help = "diffusion steps", .value = &steps, .min = 1, .max = 1000000},
    {.flag = "--seed-problem", .help = "the article's 2000x2000 field, 10,000 steps",
     .present = &seed_problem},
    {.flag = "--output", .help = "write initial, final field and Laplacian to DIR",
     .text = &output_dir},
    {.flag = "--race-demo", .help = "run the article's in-place update in two block orders",
     .present = &race_demo},
};

static const wb_lesson lesson = {
    .name = "lesson03",
    .title = "2-D heat diffusion: field -= 0.25 x Laplacian(field), float32",
    .rank = 2,
    .size_meaning = "field",
    .default_size = "512x256",
    /* a side of 2^18: 8-row blocks make at most 32,768 rows of blocks, below
     * gridDim.y's limit of 65,535; 2^36 cells (275 GB a field) is beyond any GPU */
    .max_dimension = 1LL << 18,
    .max_elements = 1LL << 36,
    .buffers = buffers, .buffer_count = WB_COUNT(buffers),
    .variants = variants, .variant_count = WB_COUNT(variants),
    .bytes = bytes_moved,
    .flops = flops_done,
    .copy_anchor = 1,
    .copy_bytes = bytes_per_step,
    .options = options, .option_count = WB_COUNT(options),
    .input_shape = check_options,
    .finish = finish,
};

int main(int argc, char **argv)
{
    return wb_main(&lesson, argc, argv);
}
