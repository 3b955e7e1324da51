/*
 * Lesson 09: beyond one GPU, with lesson 03's diffusion split over MPI ranks.
 *
 * The same field and the same step as lesson 03 (lessons/03-diffusion/
 * diffusion.h: field -= 0.25 x Laplacian(field), the missing neighbours on
 * the border counted as the centre), but the field is cut into horizontal
 * slabs, one per MPI rank, and each rank steps its slab on a GPU of its own.
 * A cell on a slab's first or last row needs a row that another rank owns,
 * so each rank keeps a copy of its neighbours' nearest rows, its halos, one
 * above and one below, and before every step the ranks exchange them:
 *
 *       row 0         halo: the last row of the rank above (none for rank 0)
 *       rows 1..R     this rank's R rows of the field
 *       row R + 1     halo: the first row of the rank below (none for the last)
 *
 * The gathered field must equal lesson 03's, bit for bit: the same
 * arithmetic in the same order, whatever the number of ranks.
 *
 * Build and run (from the top of the repository):
 *     make lesson09 && mpirun -np 4 ./lesson09      # 4 ranks, 4 slabs
 *     ./lesson09                                    # alone: 1 rank, the whole field
 *     mpirun -np 2 ./lesson09 -n 8192 --steps 100   # another field, more steps
 *     mpirun -np 8 --hostfile hosts ./lesson09      # ranks on several machines
 *     ./lesson09 --help                             # every option
 * Each rank takes the GPU (node-local rank) modulo (the node's GPU count):
 * with fewer GPUs than ranks, ranks share a GPU, and the header says so: the
 * checks still hold, the times say nothing about scaling.
 *
 * The variants (rank 0 prints the table; every rank checks the whole field):
 *   cpu        lesson 03's CPU step on the whole field, in one process: the
 *              reference
 *   naive      each step: copy the slab's first and last rows to the host,
 *              MPI_Sendrecv them with both neighbours, copy the halos back,
 *              then step the slab; everything in sequence
 *   optimized  each step: the two boundary rows first on one stream, then,
 *              while the interior computes on a second stream, the new
 *              boundary rows go to the neighbours and theirs come back;
 *              straight from device memory when MPI is CUDA-aware (asked at
 *              run time), through pinned host buffers otherwise
 *   nccl       the exchange with ncclSend and ncclRecv in a group, queued on
 *              the compute stream, no host in between (built when NCCL is
 *              found; the emulator has none)
 *
 * Napkin math (H100 SXM: 2,988 GB/s measured device copy; the links'
 * nominal rates each way: PCIe 5 x16 ~55 GB/s, NVLink 4 ~450 GB/s,
 * InfiniBand NDR ~50 GB/s):
 *   compute per step:  a slab of R rows of W cells moves 8 B a cell:
 *                      8 W R / 2,988 GB/s
 *   exchange per step: with each neighbour one row out and one row in,
 *                      2 x 4 W B: 16 W B for a rank with two neighbours
 *   hidden when        8 W R / 2,988 >= 16 W / B_link, so R >= 2 x 2,988 /
 *                      B_link: 109 rows over PCIe, 120 over InfiniBand, 14
 *                      over NVLink, whatever the width (COURSE.md's chapter
 *                      has the efficiency to expect, and its chart)
 * The table's GB/s count the whole field's 8 B per cell and step, as lesson
 * 03's do: the rows of both lessons compare directly.
 */
#include "workbook.h"
#include "workbook_mpi.h"

/* the field and its step: lesson 03's, shared */
#include "../03-diffusion/diffusion.h"

#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h> /* MPIX_Query_cuda_support: is this Open MPI CUDA-aware? */
#endif
#ifdef HAVE_NCCL
#include <nccl.h>
#endif
#include <stdio.h>
#include <stdlib.h>

/* The defaults are lesson 03's: small, so that the emulator finishes in seconds. */
#define DEFAULT_STEPS 5

/* lesson 03's launch shape: 32 x 8 threads, a row of a block one warp */
#define BLOCK_COLUMNS 32
#define BLOCK_ROWS 8

/* message tags: a row on its way up (to the rank above), or down */
#define TAG_UP 1
#define TAG_DOWN 2

#define TIMELINE_COLUMNS 60

static long long steps = DEFAULT_STEPS;

/* ---- the slabs ---------------------------------------------------------- */

/* slab_of(r, ranks, width, height): rank r's rows of the field, [first_row,
 * first_row + rows). Each rank gets height / ranks rows, and the first
 * height % ranks ranks one more: 10 rows over 4 ranks are 3, 3, 2 and 2. */
#include "slab.h"

static int rank, ranks; /* this process's rank in MPI_COMM_WORLD, and their number */
static slab part;       /* this rank's slab */

/* On the GPU, and in every host buffer laid out like it, a slab is R + 2
 * rows: its halo above, its own rows, its halo below. */
static float *own_rows(float *slab_cells) { return slab_cells + part.width; }
static size_t row_bytes(void) { return (size_t)part.width * sizeof(float); }

/* ---- one GPU per rank -------------------------------------------------- */

/* 1 when some node runs more ranks than it has GPUs */
static int ranks_share_a_gpu;

/* The ranks on one node (MPI_COMM_TYPE_SHARED: those that can share memory)
 * number themselves 0, 1, 2, ...; rank i of a node takes the node's GPU i
 * modulo its GPU count, so that with a GPU for each rank every rank has its
 * own. Returns the header's line on the ranks and their GPUs. */
static const char *choose_gpu(void)
{
    static char about[256];
    MPI_Comm node;
    int node_rank, node_ranks, gpus = 0;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &node_rank);
    MPI_Comm_size(node, &node_ranks);
    MPI_Comm_free(&node);
    if (cudaGetDeviceCount(&gpus) != cudaSuccess) {
        cudaGetLastError(); /* no driver, no GPU: wb_main says so, and runs the CPU row */
        gpus = 0;
    }
    if (gpus > 0)
        CUDA_CHECK(cudaSetDevice(node_rank % gpus));
    int nodes, first_on_node = node_rank == 0, shared = gpus > 0 && node_ranks > gpus;
#ifdef CUDA_EMULATION
    shared = 0; /* each rank is a process with an emulated GPU of its own */
#endif
    MPI_Allreduce(&first_on_node, &nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&shared, &ranks_share_a_gpu, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (ranks == 1)
        snprintf(about, sizeof about, "1 MPI rank: the whole field on one GPU "
                 "(mpirun -np N ./lesson09 splits it into N slabs)");
#ifdef CUDA_EMULATION
    else
        snprintf(about, sizeof about, "%d MPI ranks, a slab of rows each, each with an emulated "
                 "GPU of its own", ranks);
#else
    else if (gpus == 0)
        snprintf(about, sizeof about, "%d MPI ranks, no GPU: the CPU reference alone", ranks);
    else if (ranks_share_a_gpu)
        snprintf(about, sizeof about, "%d MPI ranks on %d node%s, more than GPUs: ranks share a "
                 "GPU (shared GPU: correctness only, not a scaling measurement)", ranks, nodes,
                 nodes == 1 ? "" : "s");
    else
        snprintf(about, sizeof about, "%d MPI ranks on %d node%s, a slab of rows each, one GPU "
                 "each (node-local rank modulo the node's GPUs)", ranks, nodes,
                 nodes == 1 ? "" : "s");
#endif
    return about;
}

/* ---- CPU reference: lesson 03's step on the whole field ------------------- */

/* Buffer indices, in the order of the declaration below. SCRATCH is the
 * second field of the ping-pong. */
enum { INITIAL, FINAL, SCRATCH };

/* Ping-pong, as in lesson 03: step s reads the initial field (s = 0) or the
 * step before's result, and writes final or scratch, chosen so that the last
 * step writes final. */
static float *target_of(long long s, float *final, float *scratch)
{
    return (steps - 1 - s) % 2 == 0 ? final : scratch;
}

static void run_cpu(const wb_data *data)
{
    int width = (int)data->shape.width, height = (int)data->shape.height;
    const float *from = (const float *)data->host[INITIAL];
    for (long long s = 0; s < steps; s++) {
        float *to = target_of(s, (float *)data->host[FINAL], (float *)data->host[SCRATCH]);
        diffuse_step_cpu(from, to, width, height);
        from = to;
    }
}

/* ---- the slabs on the GPUs ------------------------------------------------ */

/* Every rank holds the whole initial field on the host (it is made from the
 * seed, the same everywhere): it copies its own rows into the middle of its
 * slab. The halos come from the neighbours, by the exchange before the
 * first step. */
static void slab_to_device(const wb_data *data, int buffer)
{
    const float *field = (const float *)data->host[buffer];
    CUDA_CHECK(cudaMemcpy(own_rows((float *)data->device[buffer]),
                          field + (long long)part.first_row * part.width,
                          part.rows * row_bytes(), cudaMemcpyHostToDevice));
}

/* The field gathered on every rank, for every rank to check it: each copies
 * its own rows into their place in the whole field on the host, then
 * MPI_Allgatherv fills in every other rank's rows. Counted in rows (an MPI
 * type of one row), so that a field of billions of cells still counts in int. */
static void slabs_to_host(const wb_data *data, int buffer)
{
    float *field = (float *)data->host[buffer];
    CUDA_CHECK(cudaMemcpy(field + (long long)part.first_row * part.width,
                          own_rows((float *)data->device[buffer]), part.rows * row_bytes(),
                          cudaMemcpyDeviceToHost));
    int *rows_of = (int *)wb_alloc_host(2 * ranks * sizeof(int), "the slabs' rows");
    int *first_row_of = rows_of + ranks;
    for (int r = 0; r < ranks; r++) {
        slab theirs = slab_of(r, ranks, part.width, part.height);
        rows_of[r] = theirs.rows;
        first_row_of[r] = theirs.first_row;
    }
    MPI_Datatype row;
    MPI_Type_contiguous(part.width, MPI_FLOAT, &row);
    MPI_Type_commit(&row);
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, field, rows_of, first_row_of, row,
                   MPI_COMM_WORLD);
    MPI_Type_free(&row);
    free(rows_of);
}

/* Steps `count` of this rank's rows, from its row `first` on (0: its first
 * row), of the slab `from` into the slab `to` (both with their halo rows), on
 * `stream`: lesson 03's naive kernel on a band of the field. */
static void step_rows(const float *from, float *to, int first, int count, cudaStream_t stream)
{
    long long offset = (long long)(1 + first) * part.width; /* past the halo row above */
    dim3 threads_per_block(BLOCK_COLUMNS, BLOCK_ROWS);
    dim3 blocks_per_grid((part.width + BLOCK_COLUMNS - 1) / BLOCK_COLUMNS,
                         (count + BLOCK_ROWS - 1) / BLOCK_ROWS);
    diffuse_naive<<<blocks_per_grid, threads_per_block, 0, stream>>>(
        from + offset, to + offset, part.width, part.height, part.first_row + first, count);
    CUDA_CHECK_LAUNCH();
}

/* ---- the halo exchange ------------------------------------------------------ */

/* The exchange itself, on a slab of `rows` rows laid out as above, in host
 * memory, or in device memory with a CUDA-aware MPI. Each MPI_Sendrecv sends
 * one row and receives another at once, so no rank waits for a neighbour
 * that is itself waiting. At the field's edges the neighbour is
 * MPI_PROC_NULL: a send to it and a receive from it do nothing, so the edge
 * ranks need no code of their own and their outer halo is left alone (the
 * kernel never reads it: the border rule takes the centre there). This is
 * exercise09's function. */
static void exchange_halos(float *slab_cells, int width, int rows, MPI_Comm comm)
{
    int me, size;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &size);
    int above = me > 0 ? me - 1 : MPI_PROC_NULL;
    int below = me < size - 1 ? me + 1 : MPI_PROC_NULL;
    float *first = slab_cells + width, *last = slab_cells + (long long)rows * width;
    float *halo_above = slab_cells, *halo_below = slab_cells + (long long)(rows + 1) * width;
    /* upwards: my first row to the rank above, the first row of the rank below into my lower halo */
    MPI_Sendrecv(first, width, MPI_FLOAT, above, TAG_UP, halo_below, width, MPI_FLOAT, below,
                 TAG_UP, comm, MPI_STATUS_IGNORE);
    /* downwards: my last row to the rank below, the last row of the rank above into my upper halo */
    MPI_Sendrecv(last, width, MPI_FLOAT, below, TAG_DOWN, halo_above, width, MPI_FLOAT, above,
                 TAG_DOWN, comm, MPI_STATUS_IGNORE);
}

/* A four-row host buffer laid out like a slab of two rows: the halo above,
 * the slab's first row, its last row, the halo below. The naive variant's is
 * pageable (malloc), the optimized one's pinned (cudaMallocHost: copied by
 * DMA, without the staging copy pageable memory needs; lesson 07). */
#define STAGING_ROWS 4
static float *pageable_staging, *pinned_staging;

/* The exchange of the halos of the device slab `slab_cells`, through the
 * host: its first and last rows to `staging`, the exchange there, the
 * neighbours' rows back into its halos. The host waits for the copies out
 * before MPI reads them; the copies back are queued on `stream`. */
static void exchange_through_host(float *slab_cells, float *staging, cudaStream_t stream)
{
    size_t bytes = row_bytes();
    float *last = slab_cells + (long long)part.rows * part.width;
    CUDA_CHECK(cudaMemcpyAsync(staging + part.width, own_rows(slab_cells), bytes,
                               cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaMemcpyAsync(staging + 2 * part.width, last, bytes, cudaMemcpyDeviceToHost,
                               stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    exchange_halos(staging, part.width, 2, MPI_COMM_WORLD);
    if (rank > 0)
        CUDA_CHECK(cudaMemcpyAsync(slab_cells, staging, bytes, cudaMemcpyHostToDevice, stream));
    if (rank < ranks - 1)
        CUDA_CHECK(cudaMemcpyAsync(last + part.width, staging + 3 * part.width, bytes,
                                   cudaMemcpyHostToDevice, stream));
}

/* ---- what a step's time goes to: timelines ------------------------------------ */

/* The lanes: the exchange, and the kernels. STEP is the kernel of the whole
 * slab (naive, nccl) or of its two edge rows (optimized, whose INTERIOR lane
 * has the rest). A span is labelled with the step it serves. */
enum { EXCHANGE, STEP, INTERIOR };
static const char *const slab_lanes[] = {"exchange", "slab"};
static const char *const split_lanes[] = {"exchange", "edge rows", "interior"};
static wb_timeline naive_timeline, optimized_timeline, nccl_timeline;

/* ---- naive: everything in sequence ----------------------------------------- */

/* Before each step, the halos of the field it reads; then the step. The
 * first exchange sends the initial field's rows: its halos are written, its
 * own rows never. Every copy and every kernel on the default stream, one
 * after another. */
static void run_naive(const wb_data *data)
{
    float *from = (float *)data->device[INITIAL];
    wb_timeline_reset(&naive_timeline);
    for (long long s = 0; s < steps; s++) {
        float *to = target_of(s, (float *)data->device[FINAL], (float *)data->device[SCRATCH]);
        int span = wb_span_begin(&naive_timeline, EXCHANGE, (int)s, 0);
        exchange_through_host(from, pageable_staging, 0);
        wb_span_end(&naive_timeline, span, 0);
        span = wb_span_begin(&naive_timeline, STEP, (int)s, 0);
        step_rows(from, to, 0, part.rows, 0);
        wb_span_end(&naive_timeline, span, 0);
        from = to;
    }
    CUDA_CHECK(cudaDeviceSynchronize());
}

/* ---- optimized: the exchange behind the interior ----------------------------- */

/* Two streams: `edge` computes the slab's first and last rows and carries
 * the exchange, `interior` computes the rows between, which need no halo. */
static cudaStream_t edge, interior;
/* 1: MPI reads and writes device memory itself (CUDA-aware), on every rank */
static int cuda_aware_mpi;

/* The exchange of the halos of `slab_cells` on the edge stream. */
static void exchange_on_edge(float *slab_cells)
{
    if (cuda_aware_mpi) {
        CUDA_CHECK(cudaStreamSynchronize(edge)); /* the rows to send are computed */
        exchange_halos(slab_cells, part.width, part.rows, MPI_COMM_WORLD);
    } else {
        exchange_through_host(slab_cells, pinned_staging, edge);
    }
}

/* Before the first step, the initial field's halos, with nothing to hide
 * behind. Then each step computes the two rows the neighbours need first, on
 * the edge stream, and sends them (the halos of the next step) while the
 * interior computes on its own stream; the last step sends nothing. A step
 * ends when both streams are done: the next step's edge rows read the
 * interior's rows, and its interior overwrites what this step read. */
static void run_optimized(const wb_data *data)
{
    float *from = (float *)data->device[INITIAL];
    wb_timeline *timeline = &optimized_timeline;
    wb_timeline_reset(timeline);
    int span = wb_span_begin(timeline, EXCHANGE, 0, edge);
    exchange_on_edge(from);
    wb_span_end(timeline, span, edge);
    for (long long s = 0; s < steps; s++) {
        float *to = target_of(s, (float *)data->device[FINAL], (float *)data->device[SCRATCH]);
        span = wb_span_begin(timeline, STEP, (int)s, edge);
        step_rows(from, to, 0, 1, edge);
        if (part.rows > 1)
            step_rows(from, to, part.rows - 1, 1, edge);
        wb_span_end(timeline, span, edge);
        if (part.rows > 2) {
            span = wb_span_begin(timeline, INTERIOR, (int)s, interior);
            step_rows(from, to, 1, part.rows - 2, interior);
            wb_span_end(timeline, span, interior);
        }
        if (s < steps - 1) {
            span = wb_span_begin(timeline, EXCHANGE, (int)(s + 1), edge);
            exchange_on_edge(to);
            wb_span_end(timeline, span, edge);
        }
        CUDA_CHECK(cudaStreamSynchronize(edge));
        CUDA_CHECK(cudaStreamSynchronize(interior));
        from = to;
    }
}

/* Open MPI says at run time whether it was built with CUDA support; other
 * MPIs without this extension are taken as not CUDA-aware. */
static int mpi_is_cuda_aware(void)
{
#if defined(MPIX_CUDA_AWARE_SUPPORT)
    return MPIX_Query_cuda_support();
#else
    return 0;
#endif
}

/* ---- nccl: the exchange queued on the GPU ----------------------------------- */

static cudaStream_t nccl_stream;
#ifdef HAVE_NCCL
static ncclComm_t nccl_comm;

#define NCCL_CHECK(call) nccl_check((call), #call, __FILE__, __LINE__)
static void nccl_check(ncclResult_t status, const char *call, const char *file, int line)
{
    if (status == ncclSuccess)
        return;
    fprintf(stderr, "rank %d: %s:%d: NCCL error in %s: %s\n", rank, file, line, call,
            ncclGetErrorString(status));
    MPI_Abort(MPI_COMM_WORLD, WB_EXIT_CHECK_FAILED);
}

/* NCCL's ranks are MPI's: rank 0 makes the communicator's id and MPI hands
 * it to the others. Once, at the variant's first run (its check), which
 * every rank makes together. */
static void start_nccl(void)
{
    ncclUniqueId id;
    if (rank == 0)
        NCCL_CHECK(ncclGetUniqueId(&id));
    MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
    NCCL_CHECK(ncclCommInitRank(&nccl_comm, ranks, id, rank));
}

/* The halo exchange as GPU work on `stream`: the sends and receives of a
 * group start together, so none waits for another, and the kernel queued
 * after them waits for them all. The host only queues. */
static void exchange_nccl(float *slab_cells, cudaStream_t stream)
{
    size_t width = (size_t)part.width;
    float *last = slab_cells + (long long)part.rows * part.width;
    NCCL_CHECK(ncclGroupStart());
    if (rank > 0) {
        NCCL_CHECK(ncclSend(own_rows(slab_cells), width, ncclFloat, rank - 1, nccl_comm, stream));
        NCCL_CHECK(ncclRecv(slab_cells, width, ncclFloat, rank - 1, nccl_comm, stream));
    }
    if (rank < ranks - 1) {
        NCCL_CHECK(ncclSend(last, width, ncclFloat, rank + 1, nccl_comm, stream));
        NCCL_CHECK(ncclRecv(last + part.width, width, ncclFloat, rank + 1, nccl_comm, stream));
    }
    NCCL_CHECK(ncclGroupEnd());
}

/* As naive, exchange then step, but all of it queued on one stream: no copy
 * through the host, no wait on the host between the steps. */
static void run_nccl(const wb_data *data)
{
    if (!nccl_comm)
        start_nccl();
    float *from = (float *)data->device[INITIAL];
    wb_timeline_reset(&nccl_timeline);
    for (long long s = 0; s < steps; s++) {
        float *to = target_of(s, (float *)data->device[FINAL], (float *)data->device[SCRATCH]);
        int span = wb_span_begin(&nccl_timeline, EXCHANGE, (int)s, nccl_stream);
        exchange_nccl(from, nccl_stream);
        wb_span_end(&nccl_timeline, span, nccl_stream);
        span = wb_span_begin(&nccl_timeline, STEP, (int)s, nccl_stream);
        step_rows(from, to, 0, part.rows, nccl_stream);
        wb_span_end(&nccl_timeline, span, nccl_stream);
        from = to;
    }
    CUDA_CHECK(cudaStreamSynchronize(nccl_stream));
}
#else
static void run_nccl(const wb_data *data) { (void)data; }
#endif

/* The same on every rank, so that every rank skips it or none does. */
static const char *nccl_skip_reason(const wb_device *device)
{
    if (device->emulated)
        return "NCCL is not part of the CPU emulator";
#ifndef HAVE_NCCL
    return "this build has no NCCL: nccl.h and libnccl were not found (make doctor)";
#endif
    if (ranks_share_a_gpu)
        return "NCCL needs a GPU of its own for each rank, and ranks share one here";
    return NULL;
}

/* ---- before the runs, and after them ---------------------------------------- */

/* Once the GPU is known to work: the streams, the staging buffers, and
 * whether MPI takes device pointers (asked of every rank: all or none). The
 * emulator's device memory is host memory, which any MPI reads, but its
 * runs take the path through the host that an MPI without CUDA takes. */
static void prepare(const wb_data *data)
{
    CUDA_CHECK(cudaStreamCreate(&edge));
    CUDA_CHECK(cudaStreamCreate(&interior));
    CUDA_CHECK(cudaStreamCreate(&nccl_stream));
    pageable_staging = (float *)wb_alloc_host(STAGING_ROWS * row_bytes(), "the staging rows");
    CUDA_CHECK(cudaMallocHost(&pinned_staging, STAGING_ROWS * row_bytes()));
    int aware = !data->device_info->emulated && mpi_is_cuda_aware();
    MPI_Allreduce(&aware, &cuda_aware_mpi, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
}

/* Per variant, from its rows and its timeline (each rank its own): the time
 * of a step, and of its exchange on the rank whose exchange took longest,
 * with the share of that exchange hidden behind a kernel on the rank that
 * hid least. */
static void note_variant(const char *name, const wb_timeline *timeline)
{
    double busy[WB_TIMELINE_LANES], overlap[WB_TIMELINE_LANES];
    wb_timeline_busy(timeline, busy);
    wb_timeline_overlap(timeline, overlap);
    int exchanges = 0;
    for (int s = 0; s < timeline->count; s++)
        exchanges += timeline->lane[s] == EXCHANGE;
    double mine[2] = {exchanges ? busy[EXCHANGE] / exchanges : 0.0,
                      busy[EXCHANGE] > 0 ? -overlap[EXCHANGE] / busy[EXCHANGE] : 0.0};
    double worst[2];
    MPI_Allreduce(mine, worst, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double ms = wb_measured_ms(name, WB_KERNEL);
    if (ms < 0 || exchanges == 0)
        return;
    wb_note("  %-10s %9.4f ms a step; exchange %9.4f ms, %3.0f%% of it hidden", name,
            ms / steps, worst[0], -100.0 * worst[1]);
}

/* Under the table, when a GPU variant ran (on every rank alike): the slabs,
 * each variant's step and exchange, and rank 0's timelines. */
static void note_steps(const wb_data *data)
{
    int most = slab_of(0, ranks, part.width, part.height).rows;
    int least = slab_of(ranks - 1, ranks, part.width, part.height).rows;
    char rows[48];
    snprintf(rows, sizeof rows, most == least ? "%d" : "%d or %d", least, most);
    wb_note("per step, %d rank%s: slabs of %s row%s of %d cells, %s", ranks,
            ranks == 1 ? "" : "s", rows, most == 1 ? "" : "s", part.width,
            cuda_aware_mpi ? "CUDA-aware MPI" : "MPI through the host");
    note_variant("naive", &naive_timeline);
    note_variant("optimized", &optimized_timeline);
    note_variant("nccl", &nccl_timeline);
    wb_note("  (the exchange: on the rank where it took longest; hidden: the share of it that "
            "ran\n  while a kernel ran, on the rank that hid least)");
    if (ranks_share_a_gpu)
        wb_note("shared GPU: correctness only, not a scaling measurement");
    if (data->device_info->emulated)
        wb_note("CPU emulation runs each stream's work at once, one after another: nothing\n"
                "overlaps, so nothing is hidden here; on a GPU the interior hides the exchange");
    char title[96];
    snprintf(title, sizeof title, "naive on rank 0, %lld step%s", steps, steps == 1 ? "" : "s");
    wb_note_timeline(&naive_timeline, title, slab_lanes, 2, TIMELINE_COLUMNS);
    snprintf(title, sizeof title, "optimized on rank 0, %lld step%s", steps, steps == 1 ? "" : "s");
    wb_note_timeline(&optimized_timeline, title, split_lanes, 3, TIMELINE_COLUMNS);
    snprintf(title, sizeof title, "nccl on rank 0, %lld step%s", steps, steps == 1 ? "" : "s");
    wb_note_timeline(&nccl_timeline, title, slab_lanes, 2, TIMELINE_COLUMNS);
}

static void finish(const wb_data *data)
{
    if (naive_timeline.count + optimized_timeline.count + nccl_timeline.count > 0)
        note_steps(data);
#ifdef HAVE_NCCL
    if (nccl_comm)
        NCCL_CHECK(ncclCommDestroy(nccl_comm));
#endif
}

/* ---- the declaration: what common/ runs, checks and times ----------------- */

/* After the command line: every rank needs a row of the field at least. */
static void check_field(wb_shape *shape)
{
    if (shape->height < ranks)
        wb_usage_error("-n %s: a field of %lld row%s cannot be split over %d ranks: each rank "
                       "needs a row at least", shape->text, shape->height,
                       shape->height == 1 ? "" : "s", ranks);
    part = slab_of(rank, ranks, (int)shape->width, (int)shape->height);
}

static long long field_cells(const wb_shape *shape) { return shape->elements; }
/* on the GPU, a rank's slab and its two halo rows */
static long long slab_with_halos(const wb_shape *shape)
{
    return (long long)(part.rows + 2) * part.width;
}
/* each step reads the field and writes the next: 8 bytes per cell, as in lesson 03 */
static double bytes_moved(const wb_shape *shape)
{
    return 2.0 * sizeof(float) * shape->elements * steps;
}
static double flops_done(const wb_shape *shape) { return 7.0 * shape->elements * steps; }

/* Lesson 03's step in lesson 03's order on every rank: the gathered field
 * must be the reference, bit for bit. */
static void bit_for_bit(const wb_data *data, double *atol, double *rtol)
{
    *atol = 0;
    *rtol = 0;
}

static const wb_buffer buffers[] = {
    {.name = "initial field", .type = WB_FLOAT, .role = WB_INPUT, .count = field_cells,
     .fill = fill_jagged, .part_count = slab_with_halos, .to_part = slab_to_device},
    {.name = "final field", .type = WB_FLOAT, .role = WB_OUTPUT, .count = field_cells,
     .tolerance = {.why = "lesson 03's arithmetic in lesson 03's order: bit for bit",
                   .widen = bit_for_bit},
     .part_count = slab_with_halos, .from_parts = slabs_to_host},
    /* the ping-pong's other field, which the CPU's steps need too */
    {.name = "second field", .type = WB_FLOAT, .role = WB_SCRATCH, .count = field_cells,
     .host_too = 1, .part_count = slab_with_halos},
};

static const wb_variant variants[] = {
    {.name = "cpu", .description = "lesson 03's step on the whole field, one process: the reference",
     .scope = WB_HOST, .run = run_cpu},
    {.name = "naive", .description = "each step: edge rows to the host, MPI_Sendrecv, halos back, "
                                     "then the slab, in sequence",
     .scope = WB_KERNEL, .run = run_naive},
    {.name = "optimized", .description = "edge rows first, then their exchange while the "
                                         "interior computes on a second stream",
     .scope = WB_KERNEL, .run = run_optimized},
    {.name = "nccl", .description = "the exchange as ncclSend/ncclRecv in a group on the "
                                    "compute stream",
     .scope = WB_KERNEL, .run = run_nccl, .skip_reason = nccl_skip_reason},
};

static const wb_option options[] = {
    {.flag = "--steps", .help = "diffusion steps", .value = &steps, .min = 1, .max = 1000000},
};

static const wb_lesson lesson = {
    .name = "lesson09",
    .title = "lesson 03's diffusion split over MPI ranks, a slab of rows on each GPU, float32",
    .rank = 2,
    .size_meaning = "field",
    .default_size = "512x256",
    /* lesson 03's limits: its kernel's grid, and no field larger than a GPU holds */
    .max_dimension = 1LL << 18,
    .max_elements = 1LL << 36,
    .buffers = buffers, .buffer_count = WB_COUNT(buffers),
    .variants = variants, .variant_count = WB_COUNT(variants),
    .bytes = bytes_moved,
    .flops = flops_done,
    .options = options, .option_count = WB_COUNT(options),
    .prepare = prepare,
    .input_shape = check_field,
    .finish = finish,
};

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    return wb_main_mpi(&lesson, choose_gpu(), argc, argv);
}
