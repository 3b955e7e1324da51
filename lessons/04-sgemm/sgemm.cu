/*
 * Lesson 04: shared-memory tiling with SGEMM, C = A.B in float32, row-major.
 * A is m x k, B is k x n, C is m x n; every element of C is a dot product of
 * a row of A and a column of B, k multiply-adds long.
 *
 * Build and run (from the top of the repository):
 *     make lesson04 && ./lesson04
 *     ./lesson04 -n 4096                 # 4096 x 4096 x 4096 (on a GPU)
 *     ./lesson04 -n 1000x2000x500        # m x n x k
 *     ./lesson04 --seed-problem          # the column sums of A.B, three ways
 *     ./lesson04 --help                  # every option
 *
 * Seven versions of the same product:
 *   cpu        blocked loops on every core (OpenMP), the inner loop vectorized
 *   naive      one thread per element of C, reading A and B from global memory
 *   tiled      32 x 32 tiles of A and B staged in shared memory by the block
 *   optimized  128 x 128 block tiles in shared memory, 8 x 8 register tiles per
 *              thread, 16-byte loads, A stored transposed in shared memory
 *   warptiled  optimized's tiles 16 deep along k, each warp owning a 32 x 64
 *              piece of the block tile (conflict-free 16-byte shared loads),
 *              two stages of shared memory: the next tiles load during the math
 *   swizzled   warptiled with A's tile laid out so that its stores meet no bank
 *              conflicts either (an XOR of the row, no padding)
 *   cublas     NVIDIA's cublasSgemm on the same data (not in the emulator)
 *
 * Napkin math for m = n = k = 4096 on an H100:
 *   flops:        2 m n k = 137 GFLOP (a multiply and an add per term)
 *   least bytes:  read A and B, write C once: 3 x 64 MB = 201 MB
 *   intensity:    137 GFLOP / 201 MB = 683 FLOP/byte, far right of the
 *                 ridge point (67 TFLOP/s / 3.35 TB/s = 20 FLOP/byte): the
 *                 limit is arithmetic, 137 GFLOP / 67 TFLOP/s = 2 ms at peak,
 *                 2.7 ms at the 51.6 TFLOP/s cuBLAS reached on the
 *                 course's reference H100.
 *   but only if each loaded value is reused. Bytes loaded per multiply-add:
 *     naive:     each FMA loads one float of A and one of B: 8 B/FMA. The
 *                warp shares its A value (one broadcast) and B is coalesced,
 *                so about 4 B/FMA reach the caches: 68.7 G FMA x 4 B = 275 GB,
 *                which in cuBLAS's 2.7 ms would take 100 TB/s, thirty
 *                times what HBM delivers: only the caches can save it.
 *     tiled:     a T x T tile of A and of B (2 T^2 floats) feeds T^3 FMAs:
 *                8/T B/FMA from global memory, 0.25 B at T = 32; but every FMA
 *                still reads two floats from shared memory.
 *     register:  a thread's TM x TN tile needs TM + TN shared-memory loads per
 *                TM x TN FMAs: with 8 x 8, 16 loads for 64 FMAs (0.25 load per
 *                FMA, down from 2), and a 128 x 128 block tile loads
 *                8/128 = 0.0625 B/FMA from global memory.
 *     warptiled: the same 0.25 shared load per FMA and 0.0625 B/FMA, but
 *                the passes (wavefronts) shared memory takes for them drop:
 *                per step p a warp's four 16-byte loads take 4 + 4 + 4 + 4 =
 *                16, where optimized's take 4 + 4 (A) + 8 + 8 (B, 2-way
 *                conflicts) = 24, a third fewer for the same 64 FMAs a
 *                thread. One barrier per 16 x 64 FMAs a thread instead of two
 *                per 8 x 64 (a quarter as many), and the next tiles' global
 *                loads in flight during the math, where optimized's warps
 *                wait for them at every step. What is left is shared-memory
 *                and issue bandwidth: nearer cuBLAS, which does the same
 *                things with tile sizes tuned per GPU.
 *     swizzled:  per 16-deep k-tile a warp's shared memory passes are
 *                16 x 16 = 256 for the loads, 8 (B's two float4 stores) and
 *                16 for A's eight 4-byte stores, whose 2-way conflicts make
 *                them 16 where 8 would do: 280 passes, against the 256 clocks
 *                its 16 x 64 FMAs a lane take at 4 warp FMAs a clock. Shared
 *                memory, one pass a clock, is then the limit; without the
 *                conflicts it takes 272, up to 3% less time.
 */
#include "workbook.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef CUDA_EMULATION
#include <cublas_v2.h>
#endif

/* ---- sizes and tiles --------------------------------------------------------- */

/* naive: 32 threads (one warp) along a row of C, 8 rows: 256 threads a block. */
#define NAIVE_BLOCK_COLS 32
#define NAIVE_BLOCK_ROWS 8
/* tiled: one 32 x 32 tile of C per block, one thread per element (1024, the
 * most a block may have); 32 wide so that a warp reads one row of a tile. */
#define TILE 32
/* optimized: a block computes a BLOCK_M x BLOCK_N tile of C, stepping along k
 * BLOCK_K at a time; each of its threads computes THREAD_M x THREAD_N of it.
 * 128 x 128 x 8 with 8 x 8 per thread is the classic choice (siboehm's
 * SGEMM_CUDA, CUTLASS's first "SIMT" tiles): 256 threads, 64 accumulators each,
 * 2 x 128 x 8 x 4 B = 8 KB of shared memory. */
#define BLOCK_M 128
#define BLOCK_N 128
#define BLOCK_K 8
#define THREAD_M 8
#define THREAD_N 8
#define OPTIMIZED_THREADS ((BLOCK_M / THREAD_M) * (BLOCK_N / THREAD_N))
/* a float4 holds 4 floats: the unit of the 16-byte loads */
#define VECTOR_WIDTH 4
/* the loads below give each thread exactly one float4 of each tile per step */
static_assert(BLOCK_M * BLOCK_K == OPTIMIZED_THREADS * VECTOR_WIDTH, "one float4 of A each");
static_assert(BLOCK_K * BLOCK_N == OPTIMIZED_THREADS * VECTOR_WIDTH, "one float4 of B each");
/* warptiled: the same 128 x 128 block tile and 8 x 8 results per thread, a
 * k-tile twice as deep (WIDE_BLOCK_K), two stages of each tile in shared
 * memory, and the block's 8 warps each owning a WARP_TILE_M x WARP_TILE_N piece
 * of the block tile (4 warps down, 2 across). A warp's 32 lanes stand in a
 * WARP_LANES_M x WARP_LANES_N grid, each lane owning 4 x 4 results (SUB_TILE) of
 * a 16 x 32 sub-tile of the warp tile; the warp steps that grid twice down and
 * twice across (SUB_TILES_M x SUB_TILES_N), so a thread's 8 x 8 results are 2 x 2
 * pieces of 4 x 4, 16 rows and 32 columns apart. */
#define WIDE_BLOCK_K 16
#define WARPTILED_THREADS 256
#define WARP_LANES 32
#define WARP_TILE_M 32
#define WARP_TILE_N 64
#define WARP_LANES_M 4
#define WARP_LANES_N 8
#define SUB_TILE 4
#define SUB_TILES_M (THREAD_M / SUB_TILE)
#define SUB_TILES_N (THREAD_N / SUB_TILE)
/* the rows of a warp's sub-tile, and its columns: how far apart a thread's 4 x 4 pieces lie */
#define SUB_TILE_ROWS (WARP_LANES_M * SUB_TILE)
#define SUB_TILE_COLUMNS (WARP_LANES_N * SUB_TILE)
/* each thread brings WIDE_LOADS float4s of A's 128 x 16 tile, and as many of B's 16 x 128 */
#define WIDE_LOADS 2
static_assert(WARPTILED_THREADS == (BLOCK_M / WARP_TILE_M) * (BLOCK_N / WARP_TILE_N) * WARP_LANES,
              "one warp per warp tile");
static_assert(WARP_LANES_M * WARP_LANES_N == WARP_LANES, "the lanes fill the grid of a sub-tile");
static_assert(WARP_TILE_M == SUB_TILES_M * SUB_TILE_ROWS, "the sub-tiles fill the warp tile down");
static_assert(WARP_TILE_N == SUB_TILES_N * SUB_TILE_COLUMNS, "and across");
static_assert(BLOCK_M * WIDE_BLOCK_K == WARPTILED_THREADS * WIDE_LOADS * VECTOR_WIDTH,
              "WIDE_LOADS float4s of A each");
static_assert(WIDE_BLOCK_K * BLOCK_N == WARPTILED_THREADS * WIDE_LOADS * VECTOR_WIDTH,
              "WIDE_LOADS float4s of B each");
/* gridDim.y is at most 65535, and the naive kernel puts NAIVE_BLOCK_ROWS rows
 * of C in each block row: the largest m (and, to keep it simple, any dimension). */
#define MAX_DIMENSION (65535LL * NAIVE_BLOCK_ROWS)

/* ---- CPU reference ------------------------------------------------------------ */

/* The CPU also loses to memory if it walks B column by column. This order
 * (i, p, j) adds a[i][p] times row p of B into row i of C: the inner loop runs
 * along rows of B and C, contiguous, which the compiler turns into vector
 * instructions. Blocks of rows, of k and of columns keep the part of B in use
 * (CPU_BLOCK_K x CPU_BLOCK_COLS floats = 64 KB) in the core's L2 cache. Each
 * element is still summed in the order p = 0, 1, ..., k - 1, as the kernels do. */
#define CPU_BLOCK_ROWS 32
#define CPU_BLOCK_K 64
#define CPU_BLOCK_COLS 256

static long long min_ll(long long a, long long b) { return a < b ? a : b; }

static void sgemm_cpu(const float *a, const float *b, float *c, long long m, long long n,
                      long long k)
{
#pragma omp parallel for schedule(static)
    for (long long row0 = 0; row0 < m; row0 += CPU_BLOCK_ROWS) {
        long long row_end = min_ll(row0 + CPU_BLOCK_ROWS, m);
        for (long long row = row0; row < row_end; row++)
            memset(c + row * n, 0, (size_t)n * sizeof(float));
        for (long long col0 = 0; col0 < n; col0 += CPU_BLOCK_COLS) {
            long long col_end = min_ll(col0 + CPU_BLOCK_COLS, n);
            for (long long p0 = 0; p0 < k; p0 += CPU_BLOCK_K) {
                long long p_end = min_ll(p0 + CPU_BLOCK_K, k);
                for (long long row = row0; row < row_end; row++) {
                    float *c_row = c + row * n;
                    for (long long p = p0; p < p_end; p++) {
                        float a_value = a[row * k + p];
                        const float *b_row = b + p * n;
                        for (long long col = col0; col < col_end; col++)
                            c_row[col] += a_value * b_row[col];
                    }
                }
            }
        }
    }
}

/* The seed problem's reference: the column sums of A.B as (1^T A) B, the
 * column sums of A times B, in double so that it is more accurate than any
 * float variant it judges; of |A| and |B| when magnitudes is 1 (for the
 * check's bound). Each thread owns a block of SEED_CPU_COLUMNS columns and
 * walks the rows in order: the rows are read in contiguous pieces, and every
 * sum is added in the same order however many threads there are. */
#define SEED_CPU_COLUMNS 64

static void column_sums_of_product_cpu(const float *a, const float *b, double *out, long long m,
                                       long long n, long long k, int magnitudes)
{
    double *a_sums = (double *)wb_alloc_host((size_t)k * sizeof(double), "column sums of A");
#pragma omp parallel
    {
#pragma omp for schedule(static)
        for (long long p0 = 0; p0 < k; p0 += SEED_CPU_COLUMNS) {
            long long p_end = min_ll(p0 + SEED_CPU_COLUMNS, k);
            for (long long p = p0; p < p_end; p++)
                a_sums[p] = 0.0;
            for (long long row = 0; row < m; row++)
                for (long long p = p0; p < p_end; p++)
                    a_sums[p] += magnitudes ? fabs((double)a[row * k + p]) : a[row * k + p];
        }
        /* (the end of an omp for waits for every thread: a_sums is complete) */
#pragma omp for schedule(static)
        for (long long col0 = 0; col0 < n; col0 += SEED_CPU_COLUMNS) {
            long long col_end = min_ll(col0 + SEED_CPU_COLUMNS, n);
            for (long long col = col0; col < col_end; col++)
                out[col] = 0.0;
            for (long long p = 0; p < k; p++)
                for (long long col = col0; col < col_end; col++)
                    out[col] += a_sums[p] * (magnitudes ? fabs((double)b[p * n + col])
                                                        : b[p * n + col]);
        }
    }
    free(a_sums);
}

/* ---- kernels ------------------------------------------------------------------ */

/* 1. One thread per element of C. threadIdx.x runs along a row of C, so the
 * 32 threads of a warp read 32 consecutive floats of a row of B (one
 * coalesced load) and the same float of A (one broadcast). Every value is
 * loaded again by every thread that needs it: A's row by all n threads of a
 * row of C, B's column by all m. Only the caches stand between this kernel
 * and 8 bytes of traffic per multiply-add. */
__global__ void sgemm_naive(const float *a, const float *b, float *c, int m, int n, int k)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= m || col >= n)
        return;
    float sum = 0.0f;
    for (int p = 0; p < k; p++)
        sum += a[(size_t)row * k + p] * b[(size_t)p * n + col];
    c[(size_t)row * n + col] = sum;
}

/* 2. Shared-memory tiles. The block's threads load a TILE x TILE tile of A
 * and one of B together, one element each, then every thread takes its dot
 * product over the tile from shared memory: each value loaded from global
 * memory is used TILE times. Two barriers per step along k:
 *   after the loads:  no thread may read the tile before the others wrote it;
 *   after the sums:   no thread may overwrite the tile with the next step's
 *                     values while another still reads this one.
 * Past the edges of A and B (sizes that are not multiples of TILE) the tile
 * is filled with zeros, which add nothing to the sums. */
__global__ void sgemm_tiled(const float *a, const float *b, float *c, int m, int n, int k)
{
    __shared__ float a_tile[TILE][TILE];
    __shared__ float b_tile[TILE][TILE];
    int col = blockIdx.x * TILE + threadIdx.x;
    int row = blockIdx.y * TILE + threadIdx.y;
    float sum = 0.0f;
    for (int tile_start = 0; tile_start < k; tile_start += TILE) {
        int a_col = tile_start + threadIdx.x;
        int b_row = tile_start + threadIdx.y;
        a_tile[threadIdx.y][threadIdx.x] = row < m && a_col < k ? a[(size_t)row * k + a_col] : 0.0f;
        b_tile[threadIdx.y][threadIdx.x] = b_row < k && col < n ? b[(size_t)b_row * n + col] : 0.0f;
        __syncthreads();
        for (int p = 0; p < TILE; p++)
            sum += a_tile[threadIdx.y][p] * b_tile[p][threadIdx.x];
        __syncthreads();
    }
    if (row < m && col < n)
        c[(size_t)row * n + col] = sum;
}

/* The global-memory accesses of the register-tiled kernels (3 and 4): four
 * consecutive floats of a row of a row-major rows x cols matrix, from (row,
 * col). VECTOR: one 16-byte access, for when every row starts 16-byte aligned
 * (cols % 4 == 0; see kernel 3); then four floats from a col that is a
 * multiple of 4 lie wholly inside the row or wholly past its end. Otherwise
 * one float at a time. A value past the edges loads as 0, which adds nothing
 * to a sum; a value past the edges is not stored. */
template <bool VECTOR>
__device__ float4 load_four(const float *__restrict__ matrix, int rows, int cols, int row, int col)
{
    if (VECTOR)
        return row < rows && col < cols ? *(const float4 *)&matrix[(size_t)row * cols + col]
                                        : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    else {
        float values[VECTOR_WIDTH];
        for (int i = 0; i < VECTOR_WIDTH; i++)
            values[i] = row < rows && col + i < cols ? matrix[(size_t)row * cols + col + i] : 0.0f;
        return make_float4(values[0], values[1], values[2], values[3]);
    }
}

template <bool VECTOR>
__device__ void store_four(float *__restrict__ matrix, int rows, int cols, int row, int col,
                           float4 values)
{
    if (row >= rows)
        return;
    float *out = &matrix[(size_t)row * cols + col];
    if (VECTOR) {
        if (col < cols)
            *(float4 *)out = values;
    } else {
        float each[VECTOR_WIDTH] = {values.x, values.y, values.z, values.w};
        for (int i = 0; i < VECTOR_WIDTH && col + i < cols; i++)
            out[i] = each[i];
    }
}

/* A float4 of A, 4 consecutive values of one row, stored down a column of a
 * transposed tile whose rows are stride floats apart. */
__device__ void store_down_column(float *column_top, int stride, float4 values)
{
    column_top[0] = values.x;
    column_top[stride] = values.y;
    column_top[2 * stride] = values.z;
    column_top[3 * stride] = values.w;
}

/* 3. Block tiles in shared memory, register tiles in each thread.
 *
 * The tiled kernel does one FMA per two shared-memory loads, and shared
 * memory, though fast, delivers fewer loads per cycle than the SM does FMAs.
 * Here each thread computes THREAD_M x THREAD_N = 64 elements of C at once:
 * per step along k it loads THREAD_M values of A and THREAD_N of B into
 * registers and does all 64 products between them (an outer product), so 16
 * loads feed 64 FMAs. A bigger block tile (128 x 128) also means each float
 * brought from global memory serves 128 FMAs instead of 32.
 *
 * A is stored transposed in shared memory (a_tile[p][row]): a thread's
 * THREAD_M values of A for one p are then consecutive, like its THREAD_N
 * values of B, and the compiler reads both with 16-byte shared-memory loads.
 *
 * Global loads: each of the 256 threads brings one float4 of A's 128 x 8
 * tile and one of B's 8 x 128 tile. A float4 load needs a 16-byte aligned
 * address: cudaMalloc's arrays start 256-byte aligned, so that holds when
 * every row starts on a multiple of 4 floats (k % 4 == 0 for A, n % 4 == 0 for
 * B and C). VECTOR is then true; otherwise the same positions are loaded one
 * float at a time. Either way a value past the edge of A or B loads as 0 and
 * a result past the edge of C is not stored, so any m, n, k works.
 * (With k % 4 == 0 a float4 of A at a column that is a multiple of 4 lies
 * wholly inside or wholly outside the row; the same for B and C with n.) */
template <bool VECTOR>
__global__ void __launch_bounds__(OPTIMIZED_THREADS)
    sgemm_optimized(const float *__restrict__ a, const float *__restrict__ b,
                    float *__restrict__ c, int m, int n, int k)
{
    __shared__ float a_tile[BLOCK_K][BLOCK_M]; /* transposed: [p][row] */
    __shared__ float b_tile[BLOCK_K][BLOCK_N];

    int block_row = blockIdx.y * BLOCK_M, block_col = blockIdx.x * BLOCK_N;
    /* where this thread's THREAD_M x THREAD_N results lie in the block tile */
    int thread_row = threadIdx.x / (BLOCK_N / THREAD_N) * THREAD_M;
    int thread_col = threadIdx.x % (BLOCK_N / THREAD_N) * THREAD_N;
    /* which float4 of the A tile (BLOCK_M rows of BLOCK_K) and of the B tile
     * (BLOCK_K rows of BLOCK_N) this thread loads */
    int a_load_row = threadIdx.x / (BLOCK_K / VECTOR_WIDTH);
    int a_load_col = threadIdx.x % (BLOCK_K / VECTOR_WIDTH) * VECTOR_WIDTH;
    int b_load_row = threadIdx.x / (BLOCK_N / VECTOR_WIDTH);
    int b_load_col = threadIdx.x % (BLOCK_N / VECTOR_WIDTH) * VECTOR_WIDTH;

    float accumulator[THREAD_M][THREAD_N] = {};
    for (int tile_start = 0; tile_start < k; tile_start += BLOCK_K) {
        /* A: 4 consecutive values of one row, stored down a column of a_tile */
        float4 values = load_four<VECTOR>(a, m, k, block_row + a_load_row, tile_start + a_load_col);
        store_down_column(&a_tile[a_load_col][a_load_row], BLOCK_M, values);
        /* B: 4 consecutive values of one row, stored as they are */
        values = load_four<VECTOR>(b, k, n, tile_start + b_load_row, block_col + b_load_col);
        float each[VECTOR_WIDTH] = {values.x, values.y, values.z, values.w};
        for (int i = 0; i < VECTOR_WIDTH; i++)
            b_tile[b_load_row][b_load_col + i] = each[i];
        __syncthreads(); /* the tiles are complete */

        /* the outer products: THREAD_M + THREAD_N loads, THREAD_M x THREAD_N FMAs */
        for (int p = 0; p < BLOCK_K; p++) {
            float a_column[THREAD_M], b_row[THREAD_N];
            for (int i = 0; i < THREAD_M; i++)
                a_column[i] = a_tile[p][thread_row + i];
            for (int j = 0; j < THREAD_N; j++)
                b_row[j] = b_tile[p][thread_col + j];
            for (int i = 0; i < THREAD_M; i++)
                for (int j = 0; j < THREAD_N; j++)
                    accumulator[i][j] += a_column[i] * b_row[j];
        }
        __syncthreads(); /* everyone is done with the tiles before the next loads */
    }

    for (int i = 0; i < THREAD_M; i++)
        for (int j = 0; j < THREAD_N; j += VECTOR_WIDTH)
            store_four<VECTOR>(c, m, n, block_row + thread_row + i, block_col + thread_col + j,
                               make_float4(accumulator[i][j], accumulator[i][j + 1],
                                           accumulator[i][j + 2], accumulator[i][j + 3]));
}

/* 4. Warp tiles, a deeper k-tile, two stages of shared memory.
 *
 * The optimized kernel leaves three costs that this one removes:
 *
 * Bank conflicts in its loads of B. A 16-byte shared-memory load is served a
 * quarter warp (8 lanes) at a time, and is conflict-free when those 8 lanes
 * read 8 different float4s that cover the 32 banks once, or the same float4
 * (a broadcast). In the optimized kernel lane l reads b_tile[p][8 l .. 8 l + 7]:
 * lanes 8 floats apart, so a quarter warp's float4s span 64 floats, two words
 * in every bank: each load takes two passes. Here a warp computes a
 * WARP_TILE_M x WARP_TILE_N = 32 x 64 warp tile, and its lanes stand in a 4 x 8
 * grid, each owning 4 x 4 results of a 16 x 32 sub-tile; the warp covers its
 * warp tile in 2 x 2 such sub-tiles, so each thread still has 8 x 8 results:
 *
 *                  warp tile, 64 columns
 *          <--- 32: sub-tile ---> <--- 32: sub-tile --->
 *          +----+----+--   --+----+----+----+--   --+----+   ^
 *          | L0 | L1 |  ...  | L7 | L0 | L1 |  ...  | L7 |   |
 *          +----+----+--   --+----+----+----+--   --+----+   | 16 rows:
 *          | L8 | L9 |  ...  |L15 | L8 | L9 |  ...  |L15 |   | 4 lanes x 4
 *          |  ...                 |  ...                 |   |
 *          |L24 |L25 |  ...  |L31 |L24 |L25 |  ...  |L31 |   v
 *          +----+----+--   --+----+----+----+--   --+----+
 *          | L0 | L1 |  ...  | L7 | L0 | L1 |  ...  | L7 |   the same lanes
 *          |  ...                 |  ...                 |   16 rows further
 *          |L24 |L25 |  ...  |L31 |L24 |L25 |  ...  |L31 |   down
 *          +----+----+--   --+----+----+----+--   --+----+
 *           each box: 4 x 4 results of one lane; lane 0 owns the four L0 boxes
 *
 * Per step p, lane l reads the float4 of B at column 4 (l % 8) of each sub-tile:
 * the 8 lanes of a quarter warp read 8 consecutive float4s, 128 bytes, every
 * bank once; and the float4 of A at row 4 (l / 8) of each sub-tile, the same
 * for the 8 lanes of a quarter warp: a broadcast. No load conflicts.
 *
 * Barriers. With an 8-deep k-tile, a step of 8 x 64 FMAs per thread pays two
 * barriers and the global loads' latency, during which the block computes
 * nothing. WIDE_BLOCK_K = 16 halves the barriers per FMA. And the tiles are
 * double-buffered: stage s of a_tiles and b_tiles holds the k-tile being
 * computed on; before that math, each thread issues its global loads of the
 * next k-tile into registers (a_next, b_next), which arrive while it does 16 x 64
 * FMAs, and it stores them into stage s ^ 1 after the math. One __syncthreads
 * per step then does both jobs of the tiled kernel's two barriers:
 *   - every store into stage s ^ 1 is done before step + 1 reads it;
 *   - every read of stage s is done before step + 1 stores into it (step + 1
 *     stores into stage s ^ 1 ^ 1 = s).
 * No thread writes the stage other threads read in the same step. Without the
 * barrier a fast thread would store the following k-tile into stage s while a
 * slow one still reads stage s for this step, and read stage s ^ 1 before the
 * others have filled it: emucc --sanitize names that race.
 *
 * Shared memory: 2 stages x (16 x 128 + 16 x 128) floats x 4 B = 32 KB, under
 * the 48 KB a block may declare statically, and two blocks fit in an SM of
 * every GPU the course supports (64 KB on compute capability 7.5); the
 * registers (at most 128 a thread, __launch_bounds__'s 2) allow two as well.
 * B's tile is stored with float4s as it was read: a warp's lanes write 32
 * consecutive float4s, no conflicts. A's is stored transposed, four words down
 * a column per float4: a warp writes rows 0-15 of the tile at columns c and
 * c + 4, words 128 c + row, and the two lanes of a row meet in one bank
 * (2-way conflicts, as in the optimized kernel). That is 8 stores per 16 x 64
 * FMAs; rows of 132 floats would shift column c + 4 by 16 banks and remove the
 * conflicts, but take the tiles past 32 KB: a 64 KB SM would hold one block.
 * swizzled (below) moves the words instead of padding the rows.
 *
 * Global loads and stores: as in the optimized kernel (load_four and
 * store_four), float4s when VECTOR, zeros past the edges of A and B, nothing
 * stored past the edges of C. A warp loads 16 rows x 32 bytes of A and 512
 * consecutive bytes of a row of B (wide_tile_place_of), and stores 4 rows x
 * 128 bytes of C. */
/* Where a thread's float4s lie in the tiles: thread t loads row t / 2 of A's
 * tile at columns 4 (t % 2) and 8 + 4 (t % 2), and rows t / 32 and 8 + t / 32
 * of B's tile at column 4 (t % 32); WIDE_ROW_STEP apart along k. */
#define WIDE_ROW_STEP (WIDE_BLOCK_K / WIDE_LOADS)
struct wide_tile_place {
    int a_row, a_col, b_row, b_col;
};

__device__ wide_tile_place wide_tile_place_of(int thread)
{
    wide_tile_place place;
    place.a_row = thread / (WIDE_ROW_STEP / VECTOR_WIDTH);
    place.a_col = thread % (WIDE_ROW_STEP / VECTOR_WIDTH) * VECTOR_WIDTH;
    place.b_row = thread / (BLOCK_N / VECTOR_WIDTH);
    place.b_col = thread % (BLOCK_N / VECTOR_WIDTH) * VECTOR_WIDTH;
    return place;
}

/* the k-tile at tile_start from global memory into registers */
template <bool VECTOR>
__device__ void load_wide_tiles(const float *__restrict__ a, const float *__restrict__ b, int m,
                                int n, int k, int block_row, int block_col, int tile_start,
                                wide_tile_place place, float4 a_next[WIDE_LOADS],
                                float4 b_next[WIDE_LOADS])
{
    for (int i = 0; i < WIDE_LOADS; i++) {
        int p = tile_start + i * WIDE_ROW_STEP;
        a_next[i] = load_four<VECTOR>(a, m, k, block_row + place.a_row, p + place.a_col);
        b_next[i] = load_four<VECTOR>(b, k, n, p + place.b_row, block_col + place.b_col);
    }
}

/* 5. swizzled: warptiled's A tile without store conflicts.
 *
 * The two lanes that store a row of A's tile write columns c and c + 4 of it;
 * each column is 128 floats, a multiple of the 32 banks, so both words of the
 * row fall in one bank. Swizzling moves them apart without padding: in every
 * other group of 4 columns (c / 4 odd) a row's value sits at row ^ 16, 16
 * banks over. Column c + 4 is always in the other kind of group, so the
 * warp's 32 stores reach 32 banks. The loads find each value where it was
 * put: a thread's float4 holds 4 rows from a multiple of 4, which the XOR
 * moves together, still 4 aligned consecutive words; and as a warp reads one
 * column at a time, the XOR moves all of its loads alike and they stay free
 * of conflicts. The same 32 KB, so the same two blocks per SM. */
#define SWIZZLE_ROWS 16 /* half the banks away */
static_assert(SWIZZLE_ROWS % SUB_TILE == 0, "a float4's 4 rows move together");
static_assert(BLOCK_M % (2 * SWIZZLE_ROWS) == 0, "the XOR keeps a row inside the tile");

/* where column p of A's tile keeps the value of row */
template <bool SWIZZLED>
__device__ int a_tile_row(int p, int row)
{
    return SWIZZLED && p / VECTOR_WIDTH % 2 == 1 ? row ^ SWIZZLE_ROWS : row;
}

/* and from the registers into one stage of the tiles */
template <bool SWIZZLED>
__device__ void store_wide_tiles(float (*a_tile)[BLOCK_M], float (*b_tile)[BLOCK_N],
                                 wide_tile_place place, const float4 a_next[WIDE_LOADS],
                                 const float4 b_next[WIDE_LOADS])
{
    for (int i = 0; i < WIDE_LOADS; i++) {
        int p = i * WIDE_ROW_STEP;
        /* columns p + a_col to p + a_col + 3: one group of 4, one swizzle */
        int column = p + place.a_col;
        store_down_column(&a_tile[column][a_tile_row<SWIZZLED>(column, place.a_row)], BLOCK_M,
                          a_next[i]);
        *(float4 *)&b_tile[p + place.b_row][place.b_col] = b_next[i];
    }
}

/* a float4 read from shared memory as 4 of a thread's values */
__device__ void unpack_four(float4 values, float *out)
{
    out[0] = values.x, out[1] = values.y, out[2] = values.z, out[3] = values.w;
}

/* warptiled's and swizzled's product, into their tiles in shared memory: two
 * stages; A transposed, [stage][p][row] (at row ^ SWIZZLE_ROWS in swizzled's odd
 * groups of 4 columns). */
template <bool VECTOR, bool SWIZZLED>
__device__ __forceinline__ void warptiled_product(const float *__restrict__ a,
                                                  const float *__restrict__ b,
                                                  float *__restrict__ c, int m, int n, int k,
                                                  float (*a_tiles)[WIDE_BLOCK_K][BLOCK_M],
                                                  float (*b_tiles)[WIDE_BLOCK_K][BLOCK_N])
{
    int block_row = blockIdx.y * BLOCK_M, block_col = blockIdx.x * BLOCK_N;
    int warp = threadIdx.x / WARP_LANES, lane = threadIdx.x % WARP_LANES;
    /* the top left corner of this thread's first 4 x 4 piece in the block tile:
     * its warp tile's corner, plus its place in the lanes' 4 x 8 grid */
    int thread_row = warp / (BLOCK_N / WARP_TILE_N) * WARP_TILE_M + lane / WARP_LANES_N * SUB_TILE;
    int thread_col = warp % (BLOCK_N / WARP_TILE_N) * WARP_TILE_N + lane % WARP_LANES_N * SUB_TILE;

    wide_tile_place place = wide_tile_place_of(threadIdx.x);
    float4 a_next[WIDE_LOADS], b_next[WIDE_LOADS];
    load_wide_tiles<VECTOR>(a, b, m, n, k, block_row, block_col, 0, place, a_next, b_next);
    store_wide_tiles<SWIZZLED>(a_tiles[0], b_tiles[0], place, a_next, b_next);
    __syncthreads(); /* stage 0 is complete */

    float accumulator[THREAD_M][THREAD_N] = {};
    int stage = 0;
    for (int tile_start = 0; tile_start < k; tile_start += WIDE_BLOCK_K) {
        bool more = tile_start + WIDE_BLOCK_K < k;
        /* issued now, used after the math: the loads' latency hides behind it */
        if (more)
            load_wide_tiles<VECTOR>(a, b, m, n, k, block_row, block_col,
                                    tile_start + WIDE_BLOCK_K, place, a_next, b_next);

        /* unrolled, nvcc may load step p + 1's values while step p's FMAs run (it
         * does not unroll a body of 64 FMAs by itself; 128 registers, no spills,
         * with this). g++, under the emulator, does not know the pragma. */
#ifndef CUDA_EMULATION
#pragma unroll
#endif
        for (int p = 0; p < WIDE_BLOCK_K; p++) {
            /* 2 float4s of A and 2 of B: 16 values for 64 FMAs */
            float a_column[THREAD_M], b_row[THREAD_N];
            for (int s = 0; s < SUB_TILES_M; s++)
                unpack_four(*(const float4 *)&a_tiles[stage][p]
                                        [a_tile_row<SWIZZLED>(p, thread_row + s * SUB_TILE_ROWS)],
                            &a_column[s * SUB_TILE]);
            for (int s = 0; s < SUB_TILES_N; s++)
                unpack_four(*(const float4 *)&b_tiles[stage][p][thread_col + s * SUB_TILE_COLUMNS],
                            &b_row[s * SUB_TILE]);
            for (int i = 0; i < THREAD_M; i++)
                for (int j = 0; j < THREAD_N; j++)
                    accumulator[i][j] += a_column[i] * b_row[j];
        }

        if (more)
            store_wide_tiles<SWIZZLED>(a_tiles[stage ^ 1], b_tiles[stage ^ 1], place, a_next, b_next);
        /* the one barrier: stage ^ 1 is complete, and nobody reads stage any more */
        __syncthreads();
        stage ^= 1;
    }

    /* result (i, j) lies at row i % 4 of sub-tile row i / 4, column j % 4 of sub-tile column j / 4 */
    for (int i = 0; i < THREAD_M; i++)
        for (int j = 0; j < THREAD_N; j += VECTOR_WIDTH)
            store_four<VECTOR>(c, m, n,
                               block_row + thread_row + i / SUB_TILE * SUB_TILE_ROWS + i % SUB_TILE,
                               block_col + thread_col + j / SUB_TILE * SUB_TILE_COLUMNS,
                               make_float4(accumulator[i][j], accumulator[i][j + 1],
                                           accumulator[i][j + 2], accumulator[i][j + 3]));
}

template <bool VECTOR>
__global__ void __launch_bounds__(WARPTILED_THREADS, 2)
    sgemm_warptiled(const float *__restrict__ a, const float *__restrict__ b,
                    float *__restrict__ c, int m, int n, int k)
{
    /* aligned for the float4 accesses */
    __shared__ __align__(16) float a_tiles[2][WIDE_BLOCK_K][BLOCK_M];
    __shared__ __align__(16) float b_tiles[2][WIDE_BLOCK_K][BLOCK_N];
    warptiled_product<VECTOR, false>(a, b, c, m, n, k, a_tiles, b_tiles);
}

template <bool VECTOR>
__global__ void __launch_bounds__(WARPTILED_THREADS, 2)
    sgemm_swizzled(const float *__restrict__ a, const float *__restrict__ b,
                   float *__restrict__ c, int m, int n, int k)
{
    __shared__ __align__(16) float a_tiles[2][WIDE_BLOCK_K][BLOCK_M];
    __shared__ __align__(16) float b_tiles[2][WIDE_BLOCK_K][BLOCK_N];
    warptiled_product<VECTOR, true>(a, b, c, m, n, k, a_tiles, b_tiles);
}

/* ---- the seed problem: the column sums of A.B ------------------------------------ */

/* The source article's "bad example": with the product's tiles computed as in
 * sgemm_tiled (16 x 16, as the article has them), each block adds up its
 * tile's columns in shared memory and adds the 16 partial sums to the result
 * with atomicAdd. It does the whole matrix product, 2 m n k flops, to throw
 * the product away. Two bugs of the article's kernel are left out: its bounds
 * checks used <= (reading past the end of B) and its loop along k ran 625
 * tiles where ceil(5,000 / 16) = 313 are needed. */
#define SEED_TILE 16
__global__ void column_sums_of_product_fused(const float *a, const float *b, float *sums, int m,
                                             int n, int k)
{
    __shared__ float a_tile[SEED_TILE][SEED_TILE];
    __shared__ float b_tile[SEED_TILE][SEED_TILE];
    __shared__ float products[SEED_TILE][SEED_TILE];
    int col = blockIdx.x * SEED_TILE + threadIdx.x;
    int row = blockIdx.y * SEED_TILE + threadIdx.y;
    float sum = 0.0f;
    for (int tile_start = 0; tile_start < k; tile_start += SEED_TILE) {
        int a_col = tile_start + threadIdx.x;
        int b_row = tile_start + threadIdx.y;
        a_tile[threadIdx.y][threadIdx.x] = row < m && a_col < k ? a[(size_t)row * k + a_col] : 0.0f;
        b_tile[threadIdx.y][threadIdx.x] = b_row < k && col < n ? b[(size_t)b_row * n + col] : 0.0f;
        __syncthreads();
        for (int p = 0; p < SEED_TILE; p++)
            sum += a_tile[threadIdx.y][p] * b_tile[p][threadIdx.x];
        __syncthreads();
    }
    products[threadIdx.y][threadIdx.x] = row < m ? sum : 0.0f;
    __syncthreads();
    if (threadIdx.y == 0 && col < n) {
        float column_sum = 0.0f;
        for (int r = 0; r < SEED_TILE; r++)
            column_sum += products[r][threadIdx.x];
        atomicAdd(&sums[col], column_sum);
    }
}

/* sums[col] += the sum of rows [blockIdx.y * COLUMN_SUM_ROWS, ...) of column
 * col of a rows x cols matrix: threads along a row read consecutive floats
 * (coalesced), and blockIdx.y splits the rows so that a tall matrix still
 * gives the GPU enough blocks. sums must start at zero. */
#define COLUMN_SUM_THREADS 256
#define COLUMN_SUM_ROWS 256
__global__ void column_sums(const float *matrix, float *sums, int rows, int cols)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (col >= cols)
        return;
    int first = blockIdx.y * COLUMN_SUM_ROWS;
    int last = first + COLUMN_SUM_ROWS < rows ? first + COLUMN_SUM_ROWS : rows;
    float sum = 0.0f;
    for (int row = first; row < last; row++)
        sum += matrix[(size_t)row * cols + col];
    atomicAdd(&sums[col], sum);
}

/* out[col] = sum over p of vector[p] * b[p][col]: a row vector times B, one
 * thread per column, coalesced along the rows of B. */
__global__ void vector_times_matrix(const float *vector, const float *b, float *out, int k, int n)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (col >= n)
        return;
    float sum = 0.0f;
    for (int p = 0; p < k; p++)
        sum += vector[p] * b[(size_t)p * n + col];
    out[col] = sum;
}

/* ---- launchers: one short function per GPU variant ------------------------------- */

/* Buffer indices, in the order of the declarations below: both modes have A and
 * B first; C is the product, SUMS the seed problem's column sums. */
enum { A, B, C, SUMS = 2 };

static unsigned int blocks_for(long long count, int per_block)
{
    return (unsigned int)((count + per_block - 1) / per_block);
}

static void run_cpu(const wb_data *data)
{
    sgemm_cpu((const float *)data->host[A], (const float *)data->host[B], (float *)data->host[C],
              data->shape.m, data->shape.n, data->shape.k);
}

static void run_naive(const wb_data *data)
{
    const wb_shape *s = &data->shape;
    dim3 block(NAIVE_BLOCK_COLS, NAIVE_BLOCK_ROWS);
    dim3 grid(blocks_for(s->n, NAIVE_BLOCK_COLS), blocks_for(s->m, NAIVE_BLOCK_ROWS));
    sgemm_naive<<<grid, block>>>((const float *)data->device[A], (const float *)data->device[B],
                                 (float *)data->device[C], (int)s->m, (int)s->n, (int)s->k);
    CUDA_CHECK_LAUNCH();
}

static void run_tiled(const wb_data *data)
{
    const wb_shape *s = &data->shape;
    dim3 grid(blocks_for(s->n, TILE), blocks_for(s->m, TILE));
    sgemm_tiled<<<grid, dim3(TILE, TILE)>>>((const float *)data->device[A],
                                            (const float *)data->device[B],
                                            (float *)data->device[C], (int)s->m, (int)s->n,
                                            (int)s->k);
    CUDA_CHECK_LAUNCH();
}

/* The register-tiled kernels (optimized, warptiled): one block per
 * BLOCK_M x BLOCK_N tile of C, and their VECTOR variant, with float4 accesses,
 * when every row of A, B and C starts 16-byte aligned. */
static dim3 block_tile_grid(const wb_shape *s)
{
    return dim3(blocks_for(s->n, BLOCK_N), blocks_for(s->m, BLOCK_M));
}

static bool rows_hold_float4s(const wb_shape *s)
{
    return s->k % VECTOR_WIDTH == 0 && s->n % VECTOR_WIDTH == 0;
}

static void run_optimized(const wb_data *data)
{
    const wb_shape *s = &data->shape;
    const float *a = (const float *)data->device[A], *b = (const float *)data->device[B];
    float *c = (float *)data->device[C];
    dim3 grid = block_tile_grid(s);
    if (rows_hold_float4s(s))
        sgemm_optimized<true><<<grid, OPTIMIZED_THREADS>>>(a, b, c, (int)s->m, (int)s->n, (int)s->k);
    else
        sgemm_optimized<false><<<grid, OPTIMIZED_THREADS>>>(a, b, c, (int)s->m, (int)s->n, (int)s->k);
    CUDA_CHECK_LAUNCH();
}

static void run_warptiled(const wb_data *data)
{
    const wb_shape *s = &data->shape;
    const float *a = (const float *)data->device[A], *b = (const float *)data->device[B];
    float *c = (float *)data->device[C];
    dim3 grid = block_tile_grid(s);
    if (rows_hold_float4s(s))
        sgemm_warptiled<true><<<grid, WARPTILED_THREADS>>>(a, b, c, (int)s->m, (int)s->n, (int)s->k);
    else
        sgemm_warptiled<false><<<grid, WARPTILED_THREADS>>>(a, b, c, (int)s->m, (int)s->n, (int)s->k);
    CUDA_CHECK_LAUNCH();
}

static void run_swizzled(const wb_data *data)
{
    const wb_shape *s = &data->shape;
    const float *a = (const float *)data->device[A], *b = (const float *)data->device[B];
    float *c = (float *)data->device[C];
    dim3 grid = block_tile_grid(s);
    if (rows_hold_float4s(s))
        sgemm_swizzled<true><<<grid, WARPTILED_THREADS>>>(a, b, c, (int)s->m, (int)s->n, (int)s->k);
    else
        sgemm_swizzled<false><<<grid, WARPTILED_THREADS>>>(a, b, c, (int)s->m, (int)s->n, (int)s->k);
    CUDA_CHECK_LAUNCH();
}

/* cuBLAS: created once in prepare, not at every call (creating a handle
 * takes milliseconds). */
#ifndef CUDA_EMULATION
static cublasHandle_t cublas;
static float *seed_product; /* the seed problem's m x n product, for cublas */

static void cublas_check(cublasStatus_t status, const char *call)
{
    if (status != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "cuBLAS error in %s: %s\n", call, cublasGetStatusString(status));
        exit(WB_EXIT_CHECK_FAILED);
    }
}

/* cuBLAS is column-major, like Fortran: it reads our row-major m x n C as its
 * n x m C^T. Since C^T = B^T A^T, and our row-major B and A are its
 * column-major B^T (n x k) and A^T (k x m), asking it for B^T A^T with no
 * transposition flags writes C in our row-major layout. */
static void row_major_sgemm(const float *a, const float *b, float *c, int m, int n, int k)
{
    const float one = 1.0f, zero = 0.0f;
    cublas_check(cublasSgemm(cublas, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, n, a, k, &zero,
                             c, n),
                 "cublasSgemm");
}

static void run_cublas(const wb_data *data)
{
    const wb_shape *s = &data->shape;
    row_major_sgemm((const float *)data->device[A], (const float *)data->device[B],
                    (float *)data->device[C], (int)s->m, (int)s->n, (int)s->k);
}

static void create_cublas(void)
{
    cublas_check(cublasCreate(&cublas), "cublasCreate");
    /* the default: FP32 math throughout. CUBLAS_TF32_TENSOR_OP_MATH would let
     * it round inputs to TF32 (10-bit mantissa) for the tensor cores: faster,
     * but no longer the float32 product the other variants compute. */
    cublas_check(cublasSetMathMode(cublas, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
}
#endif

static const char *cublas_skip_reason(const wb_device *device)
{
#ifdef CUDA_EMULATION
    return "cuBLAS is not part of the CPU emulator";
#else
    return NULL;
#endif
}

static void prepare(const wb_data *data)
{
#ifndef CUDA_EMULATION
    create_cublas();
#endif
}

/* The seed problem's launchers. */
static float *a_column_sums; /* k floats: the column sums of A */

static void run_seed_cpu(const wb_data *data)
{
    const wb_shape *s = &data->shape;
    double *out = (double *)wb_alloc_host((size_t)s->n * sizeof(double), "column sums of A.B");
    column_sums_of_product_cpu((const float *)data->host[A], (const float *)data->host[B], out,
                               s->m, s->n, s->k, 0);
    float *sums = (float *)data->host[SUMS];
    for (long long col = 0; col < s->n; col++)
        sums[col] = (float)out[col];
    free(out);
}

static void run_seed_fused(const wb_data *data)
{
    const wb_shape *s = &data->shape;
    float *sums = (float *)data->device[SUMS];
    CUDA_CHECK(cudaMemset(sums, 0, (size_t)s->n * sizeof(float)));
    dim3 grid(blocks_for(s->n, SEED_TILE), blocks_for(s->m, SEED_TILE));
    column_sums_of_product_fused<<<grid, dim3(SEED_TILE, SEED_TILE)>>>(
        (const float *)data->device[A], (const float *)data->device[B], sums, (int)s->m, (int)s->n,
        (int)s->k);
    CUDA_CHECK_LAUNCH();
}

static void launch_column_sums(const float *matrix, float *sums, long long rows, long long cols)
{
    CUDA_CHECK(cudaMemset(sums, 0, (size_t)cols * sizeof(float)));
    dim3 grid(blocks_for(cols, COLUMN_SUM_THREADS), blocks_for(rows, COLUMN_SUM_ROWS));
    column_sums<<<grid, COLUMN_SUM_THREADS>>>(matrix, sums, (int)rows, (int)cols);
    CUDA_CHECK_LAUNCH();
}

static void run_seed_reassociated(const wb_data *data)
{
    const wb_shape *s = &data->shape;
    launch_column_sums((const float *)data->device[A], a_column_sums, s->m, s->k);
    vector_times_matrix<<<blocks_for(s->n, COLUMN_SUM_THREADS), COLUMN_SUM_THREADS>>>(
        a_column_sums, (const float *)data->device[B], (float *)data->device[SUMS], (int)s->k,
        (int)s->n);
    CUDA_CHECK_LAUNCH();
}

#ifndef CUDA_EMULATION
static void run_seed_cublas(const wb_data *data)
{
    const wb_shape *s = &data->shape;
    row_major_sgemm((const float *)data->device[A], (const float *)data->device[B], seed_product,
                    (int)s->m, (int)s->n, (int)s->k);
    launch_column_sums(seed_product, (float *)data->device[SUMS], s->m, s->n);
}
#else
/* never called: cublas_skip_reason skips these variants under the emulator */
static void run_cublas(const wb_data *data) {}
static void run_seed_cublas(const wb_data *data) {}
#endif

static void prepare_seed(const wb_data *data)
{
    const wb_shape *s = &data->shape;
    CUDA_CHECK(cudaMalloc(&a_column_sums, (size_t)s->k * sizeof(float)));
#ifndef CUDA_EMULATION
    create_cublas();
    CUDA_CHECK(cudaMalloc(&seed_product, (size_t)s->m * s->n * sizeof(float)));
#endif
}

/* ---- the declarations: what common/ runs, checks and times ------------------------- */

static long long a_count(const wb_shape *s) { return s->m * s->k; }
static long long b_count(const wb_shape *s) { return s->k * s->n; }
static long long c_count(const wb_shape *s) { return s->m * s->n; }
static long long sums_count(const wb_shape *s) { return s->n; }
/* the least traffic: read A and B once, write C once */
static double sgemm_bytes(const wb_shape *s)
{
    return (double)sizeof(float) * (a_count(s) + b_count(s) + c_count(s));
}
/* a multiply and an add for each of the m x n x k terms */
static double sgemm_flops(const wb_shape *s) { return 2.0 * s->m * s->n * s->k; }

/* How far two float computations of C = A.B may differ. Each element is a sum
 * of k products a[i][p] * b[p][j]; summed in any order, with or without fused
 * multiply-adds, its rounding error is at most about k u sum_p |a[i][p] b[p][j]|
 * (u = 2^-24; Higham, section 3.1), and that sum is at most k max|A| max|B|.
 * The reference has such an error too, so the two may differ by twice that:
 *     atol = 2 wb_sum_tolerance(k, k max|A| max|B|)
 * It grows with k (as k^2 for a fixed range: 2e-3 at k = 129, 2 at k = 4096
 * with inputs in [-1, 1]) and with the inputs' magnitudes. It is a bound, not
 * an estimate: typical errors are near sqrt(k) u times the result. A kernel
 * bug leaves out or repeats whole terms, each some 0.25 on average, and a
 * NaN never passes. */
static void product_tolerance(const wb_data *data, double *atol, double *rtol)
{
    const wb_shape *s = &data->shape;
    double largest = wb_largest_magnitude((const float *)data->host[A], a_count(s)) *
                     wb_largest_magnitude((const float *)data->host[B], b_count(s));
    *atol = 2.0 * wb_sum_tolerance((double)s->k, (double)s->k * largest);
    *rtol = 0.0;
}

/* The column sums of A.B, the seed problem: column j is the sum over i and p
 * of the m k terms a[i][p] b[p][j]. The bound is the same as above, term by
 * term: a term's rounding error is at most u times its magnitude for each
 * rounding on its way into the sum, its multiplication included (with a fused
 * multiply-add that one is free). A term goes through one rounding per float
 * addition between it and the final sum, at most
 *     fused         k + 1 (the dot product), SEED_TILE (the block's column
 *                   sum), ceil(m / SEED_TILE) (one atomicAdd per block row)
 *     cublas        k + 1 (any order of k products has at most k - 1 additions
 *                   after each one), then the column sums of C: at most
 *                   COLUMN_SUM_ROWS in a block's chunk, ceil(m / COLUMN_SUM_ROWS)
 *                   atomics
 *     reassociated  the column sums of A, as for cublas' C, then a term
 *                   (sum of column p of A) x b[p][j]: its product, and k
 *                   additions in vector_times_matrix
 * so |error| <= depth u sum_i sum_p |a[i][p]| |b[p][j]| (to first order, as
 * in wb_sum_tolerance). The reference adds SEED_REFERENCE_DEPTH levels: its
 * rounding to float, and its own double error, (m + k) 2^-53, below one
 * level of 2^-24 for any m + k under 2^29 (MAX_DIMENSION ensures it).
 *
 * The seed problem's inputs are drawn from [0, 1]: with every term
 * non-negative, that sum of magnitudes is the column sum itself, and the bound
 * a relative one: depth x 6e-8 of the result (at most 2e-5 at the default
 * size, 3e-4 at the article's). A row of A lost in every 256, or a chunk, a
 * tile, a block left out, changes a sum by far more. */
#define SEED_REFERENCE_DEPTH 2

static long long ceil_div(long long count, long long per_part)
{
    return (count + per_part - 1) / per_part;
}

static double largest_of(const double *values, long long count)
{
    double largest = 0.0;
    for (long long i = 0; i < count; i++)
        largest = fmax(largest, values[i]);
    return largest;
}

static void widen_to_seed_depth(const wb_data *data, double depth, double *atol, double *rtol)
{
    const wb_shape *s = &data->shape;
    /* the largest over the columns j of sum_i sum_p |a[i][p]| |b[p][j]| */
    double *magnitudes = (double *)wb_alloc_host((size_t)s->n * sizeof(double), "magnitudes");
    column_sums_of_product_cpu((const float *)data->host[A], (const float *)data->host[B],
                               magnitudes, s->m, s->n, s->k, 1);
    double largest = largest_of(magnitudes, s->n);
    free(magnitudes);
    *atol = wb_sum_tolerance(depth + SEED_REFERENCE_DEPTH, largest);
    *rtol = 0.0;
}

/* the additions each variant puts a term through; see above */
static double column_sums_depth(long long rows)
{
    return (double)min_ll(rows, COLUMN_SUM_ROWS) + (double)ceil_div(rows, COLUMN_SUM_ROWS);
}

static void fused_tolerance(const wb_data *data, double *atol, double *rtol)
{
    const wb_shape *s = &data->shape;
    double depth = s->k + 1.0 + SEED_TILE + (double)ceil_div(s->m, SEED_TILE);
    widen_to_seed_depth(data, depth, atol, rtol);
}

/* cublas and reassociated: k + 1 for the products and their sums, and the
 * column sums of an m-row matrix (C for the one, A for the other) */
static void product_then_column_sums_tolerance(const wb_data *data, double *atol, double *rtol)
{
    const wb_shape *s = &data->shape;
    widen_to_seed_depth(data, s->k + 1.0 + column_sums_depth(s->m), atol, rtol);
}

static const wb_buffer buffers[] = {
    {.name = "a", .type = WB_FLOAT, .role = WB_INPUT, .count = a_count, .low = -1, .high = 1},
    {.name = "b", .type = WB_FLOAT, .role = WB_INPUT, .count = b_count, .low = -1, .high = 1},
    {.name = "c", .type = WB_FLOAT, .role = WB_OUTPUT, .count = c_count,
     .tolerance = {.why = "sums of k products in another order", .widen = product_tolerance}},
};

static const wb_variant variants[] = {
    {.name = "cpu", .description = "blocked loops on every core (OpenMP): the reference",
     .scope = WB_HOST, .run = run_cpu},
    {.name = "naive", .description = "one thread per element of C, A and B from global memory",
     .scope = WB_KERNEL, .run = run_naive},
    {.name = "tiled", .description = "32 x 32 tiles of A and B in shared memory, two barriers",
     .scope = WB_KERNEL, .run = run_tiled},
    {.name = "optimized", .description = "128 x 128 block tiles, 8 x 8 per thread, float4 loads",
     .scope = WB_KERNEL, .run = run_optimized},
    {.name = "warptiled", .description = "warp tiles, k-tiles of 16, two shared stages, 1 barrier",
     .scope = WB_KERNEL, .run = run_warptiled},
    {.name = "swizzled", .description = "warptiled, A's tile swizzled: no store conflicts",
     .scope = WB_KERNEL, .run = run_swizzled},
    {.name = "cublas", .description = "cublasSgemm, FP32 (no TF32), row-major by transposition",
     .scope = WB_LIBRARY, .run = run_cublas, .skip_reason = cublas_skip_reason},
};

/* Set by --seed-problem; both declarations list the flag, so that --help and
 * the parsing agree whichever one main picks. */
static int seed_problem;
static const wb_option options[] = {
    {.flag = "--seed-problem", .help = "the column sums of A.B, fused, with cuBLAS, reassociated",
     .present = &seed_problem},
};

static const wb_lesson lesson = {
    .name = "lesson04",
    .title = "SGEMM: C = A.B, float32, row-major",
    .rank = 3,
    .size_meaning = "m x n x k (C is m x n, the sums k long)",
    /* a few seconds under the CPU emulator; try 4096 on a GPU */
    .default_size = "256",
    .max_dimension = MAX_DIMENSION,
    .max_elements = MAX_DIMENSION * MAX_DIMENSION,
    .buffers = buffers, .buffer_count = WB_COUNT(buffers),
    .variants = variants, .variant_count = WB_COUNT(variants),
    .bytes = sgemm_bytes,
    .flops = sgemm_flops,
    .options = options, .option_count = WB_COUNT(options),
    .prepare = prepare,
};

/* The seed problem: the same A and B, and the n column sums of A.B. */
static double seed_bytes(const wb_shape *s)
{
    return (double)sizeof(float) * (a_count(s) + b_count(s) + sums_count(s));
}

/* 0: a wrong sum is reported by its index, the column of A.B it sums */
static long long no_rows(const wb_shape *s) { return 0; }

/* inputs in [0, 1]: every term of a column sum is non-negative, and the
 * check's bound relative to the sum (see fused_tolerance and the ones after it) */
static const wb_buffer seed_buffers[] = {
    {.name = "a", .type = WB_FLOAT, .role = WB_INPUT, .count = a_count, .low = 0, .high = 1},
    {.name = "b", .type = WB_FLOAT, .role = WB_INPUT, .count = b_count, .low = 0, .high = 1},
    {.name = "sums", .type = WB_FLOAT, .role = WB_OUTPUT, .count = sums_count,
     .row_length = no_rows},
};

/* The table's GFLOP/s, GB/s and % peak columns take one count of FLOP and
 * of bytes for every row: the product's 2mnk, what the question seems to ask
 * for, and A, B and the sums moved once. What each variant really does, and
 * the least it moves, for the note under the table: */
static double mn(const wb_shape *s) { return (double)s->m * s->n; }
/* the product, then one addition per element of it into the sums */
static double product_and_sums_flops(const wb_shape *s) { return sgemm_flops(s) + mn(s); }

/* fused moves the table's bytes; cublas also writes C and reads it back */
static double cublas_bytes(const wb_shape *s)
{
    return seed_bytes(s) + sizeof(float) * 2 * mn(s);
}

/* m k additions for A's column sums, a multiply-add per element of B */
static double reassociated_flops(const wb_shape *s)
{
    return (double)s->m * s->k + 2.0 * s->k * s->n;
}

/* and A's k column sums written and read back */
static double reassociated_bytes(const wb_shape *s)
{
    return seed_bytes(s) + sizeof(float) * 2 * s->k;
}

static const wb_variant seed_variants[] = {
    {.name = "cpu", .description = "(column sums of A) times B, in double: the reference",
     .scope = WB_HOST, .run = run_seed_cpu},
    {.name = "fused", .description = "16 x 16 tiles of A.B summed by column: 2mnk flops",
     .scope = WB_KERNEL, .run = run_seed_fused,
     .tolerance = {.why = "m k products summed in tiles, blocks, atomics", .widen = fused_tolerance},
     .own_work = {"2mnk + mn", product_and_sums_flops, seed_bytes}},
    {.name = "cublas", .description = "cublasSgemm, then the column sums of C: 2mnk + mn flops",
     .scope = WB_LIBRARY, .run = run_seed_cublas,
     .tolerance = {.why = "k-long dot products, then column sums",
                   .widen = product_then_column_sums_tolerance},
     .skip_reason = cublas_skip_reason,
     .own_work = {"2mnk + mn", product_and_sums_flops, cublas_bytes}},
    {.name = "reassociated", .description = "(column sums of A) times B: mk + 2kn flops",
     .scope = WB_KERNEL, .run = run_seed_reassociated,
     .tolerance = {.why = "column sums of A, then k-long dot products",
                   .widen = product_then_column_sums_tolerance},
     .own_work = {"mk + 2kn", reassociated_flops, reassociated_bytes}},
};

static const wb_lesson seed_lesson = {
    .name = "lesson04",
    .title = "column sums of A.B: fused and cublas do 2mnk FLOP, reassociated mk + 2kn",
    .rank = 3,
    .size_meaning = "m x n x k (the article: 10000x7000x5000)",
    /* the article's problem is 10000x7000x5000; a few seconds under the emulator */
    .default_size = "300x200x100",
    .max_dimension = MAX_DIMENSION,
    .max_elements = MAX_DIMENSION * MAX_DIMENSION,
    .buffers = seed_buffers, .buffer_count = WB_COUNT(seed_buffers),
    .variants = seed_variants, .variant_count = WB_COUNT(seed_variants),
    .bytes = seed_bytes,
    /* the matrix product's flops: what the question seems to ask for (each
     * variant's own under the table, from own_work) */
    .flops = sgemm_flops,
    .flops_formula = "2mnk", .bytes_formula = "A, B, the sums",
    .options = options, .option_count = WB_COUNT(options),
    .prepare = prepare_seed,
};

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--seed-problem") == 0)
            return wb_main(&seed_lesson, argc, argv);
    return wb_main(&lesson, argc, argv);
}
