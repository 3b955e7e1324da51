/*
 * common/workbook.h - the lesson API: a lesson declares, common/ measures.
 *
 * A lesson file holds only its own idea: the napkin math, the CPU reference,
 * the kernels, one short launcher per variant, and a declaration of
 *   - the problem's shape (a length n, a width x height, or m x n x k),
 *   - its buffers (name, element type, element count, role, how inputs are
 *     filled, how outputs are checked),
 *   - its variants (cpu, naive, optimized, and any others: seed, tiled,
 *     cublas, ...), what each one's time covers, and when it cannot run here,
 *   - the bytes it must move and the flops it must do, as functions of the shape.
 * Its main is one line: return wb_main(&lesson, argc, argv);
 *
 * wb_main does the rest, identically for every lesson: the command line, the
 * device, allocation, reproducible input, the CPU reference, and for each
 * variant a check against the reference (outputs poisoned first, so a value
 * nobody wrote is caught), a warm-up, the timed runs, and one table row or CSV
 * row; under the table, one warning line per launch that under-fills the GPU
 * (too few blocks, low occupancy, register spills, a mostly empty last wave:
 * see "launch warnings" in workbook.cu; --quiet-warnings hides them); then
 * the closing summary and the exit code:
 *   0 every check passed, 1 a check or a CUDA call failed, 2 usage error,
 *   3 no usable CUDA device (the CPU version still ran).
 *
 * Index (what a lesson uses):
 *   CUDA_CHECK(call), CUDA_CHECK_LAUNCH()  stop with file, line and the runtime's message
 *   wb_shape                 the problem's shape, parsed from -n
 *   wb_buffer, wb_variant    the declarations; WB_* constants for their fields
 *   wb_option                an extra command-line option of the lesson
 *   wb_lesson, wb_main       the lesson as a whole, and the one call that runs it
 *   wb_choose_part()         a program of several lessons (parts), picked by --part
 *   wb_data                  what a variant's run function receives
 *   wb_sum_tolerance()       the tolerance of a sum added in another order
 *   wb_largest_magnitude()   max |x| of a float array, for a tolerance
 *   wb_measured_ms(), wb_note()  a row's median, and a line under the table (finish)
 *   wb_timeline, wb_span_*   spans of work on streams, drawn under the table
 *   wb_usage_error()         a bad input the lesson finds itself: one line, exit 2
 *   wb_team, wb_join_team()  a lesson run as several processes (MPI ranks)
 * and for exercise checkers, which do their own small loop:
 *   wb_describe_device(), wb_alloc_host(), wb_fill_random(), wb_check(),
 *   wb_checker_margin()
 */
#ifndef WORKBOOK_H
#define WORKBOOK_H

#include <cuda_runtime.h>
#include <stddef.h>

#define WB_EXIT_OK 0
#define WB_EXIT_CHECK_FAILED 1
#define WB_EXIT_USAGE 2
#define WB_EXIT_NO_DEVICE 3

/* ---- errors ------------------------------------------------------------ */

/* Wrap every CUDA runtime call: on failure print file, line, the call and the
 * runtime's message, then exit 1. */
#define CUDA_CHECK(call) wb_cuda_check((call), #call, __FILE__, __LINE__)
/* A launch (k<<<grid, block>>>) returns nothing; its configuration errors
 * surface in cudaGetLastError(), so check it right after every launch. A fault
 * while the kernel runs (an illegal address, a failed assert) comes later, from
 * the next call that waits for the GPU, and is sticky: every call after it
 * fails the same way, and only a new process can use the GPU again. */
#define CUDA_CHECK_LAUNCH() \
    wb_cuda_check(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)

void wb_cuda_check(cudaError_t status, const char *call, const char *file, int line);

/* ---- the problem's shape ------------------------------------------------- */

/* -n takes what a student would type: 10M, 4096, 7680x4320, 4096x4096x4096.
 * Suffixes k, M, G mean 10^3, 10^6, 10^9; Ki, Mi, Gi mean 2^10, 2^20, 2^30.
 * A 2-D lesson reads "N" as N x N, a 3-D one as N x N x N. */
typedef struct {
    int rank;                /* 1, 2 or 3: which fields below mean something */
    long long n;             /* rank 1: the length; rank 3: columns of the m x n result */
    long long width, height; /* rank 2: an image or a field, stored row after row */
    long long m, k;          /* rank 3: rows of the result, and the inner (summed) dimension */
    long long elements;      /* n, width * height, or m * n: the size of the result */
    char text[64];           /* the shape as the CSV and the header print it: 7680x4320 */
} wb_shape;

/* ---- buffers --------------------------------------------------------------- */

typedef enum { WB_FLOAT, WB_DOUBLE, WB_INT, WB_UINT, WB_UCHAR } wb_type;

typedef enum {
    WB_INPUT,  /* filled once, copied to the device, never written */
    WB_OUTPUT, /* written by every variant and checked against the CPU's */
    WB_INOUT,  /* filled, then updated in place: reset before each check, then checked */
    WB_SCRATCH /* device memory a variant works in (partial sums of a multi-pass kernel):
                  no host copy unless host_too; not filled, copied or checked; poisoned
                  (0xFF bytes) before each check, so a kernel that reads it before writing
                  it fails */
} wb_role;

typedef struct wb_data wb_data;

/* How closely a result must match the CPU's. Floating point:
 *     |actual - expected| <= atol + rtol * |expected|
 * and a NaN or Inf where the reference is finite never matches. Integers and
 * pixels: |actual - expected| <= levels (0: exactly). A variant that adds in
 * another order than the CPU widens it and says why; `widen`, when set,
 * computes the tolerance from the data at run time (e.g. wb_sum_tolerance). */
typedef struct {
    double atol, rtol;
    long long levels;
    const char *why;
    void (*widen)(const wb_data *data, double *atol, double *rtol);
} wb_tolerance;

/* The default for floating point: results computed the same way on both sides
 * may still differ in the last bits (fused multiply-add, another compiler). */
#define WB_ATOL 1e-6
#define WB_RTOL 1e-5

typedef struct {
    const char *name;                         /* "a"; messages name it */
    wb_type type;
    wb_role role;
    long long (*count)(const wb_shape *shape); /* elements, as a function of the shape */
    /* Inputs: uniform random values in [low, high] from --seed (integers:
     * every whole number in the range equally likely), unless fill is set. */
    double low, high;
    void (*fill)(void *host, long long count, const wb_shape *shape, unsigned long long seed);
    wb_tolerance tolerance; /* outputs; all zero: WB_ATOL, WB_RTOL, or exact for integers */
    /* 2-D outputs report the first mismatch as (row, column). The row length
     * is the shape's width (rank 2) or n (rank 3) unless row_length says otherwise. */
    long long (*row_length)(const wb_shape *shape);
    /* WB_SCRATCH only: 1 when the CPU variant works in such a buffer too (the
     * second field of a ping-pong): host[] is then a host copy of the same
     * size, counted in the header's host memory */
    int host_too;
    /* A buffer split over the processes of a team (lesson 09: each GPU holds a
     * slab of the field's rows): host[] holds the whole buffer on every
     * process, device[] this process's part alone, part_count elements. The
     * lesson moves the data: where common/ would copy the buffer to the device,
     * to_part copies this process's part of host[] into device[]; where it
     * would copy it back, from_parts fills the whole of host[], on every
     * process, from every process's device[]. */
    long long (*part_count)(const wb_shape *shape);
    void (*to_part)(const wb_data *data, int buffer);
    void (*from_parts)(const wb_data *data, int buffer);
} wb_buffer;

/* ---- variants ---------------------------------------------------------- */

/* What a variant's time covers: a mask, one table row per bit. */
#define WB_HOST 1        /* a CPU function on host memory */
#define WB_KERNEL 2      /* the launch alone, its data already on the device */
#define WB_END_TO_END 4  /* copies of the inputs to the device, the launch, the copies back */
#define WB_LIBRARY 8     /* a library call (cuBLAS, CUB) on data already on the device */
/* The variant moves its own data: it copies host[] inputs to the device and
 * its results back into host[] outputs itself (in chunks, on streams, through
 * managed memory), and its time covers all of it. common/ copies nothing for
 * such a row; its check reads the host[] outputs as the variant left them. */
#define WB_TRANSFERS 16

/* What a variant's run function receives: the shape, and every buffer's host
 * and device copy, indexed like the lesson's buffer list. For the cpu
 * variant host[] outputs are where the reference goes; for the others they
 * are scratch the result is copied back to. A WB_SCRATCH buffer has only its
 * device copy, host[] NULL, unless it says host_too. */
#define WB_MAX_BUFFERS 8
struct wb_data {
    wb_shape shape;
    void *host[WB_MAX_BUFFERS];
    void *device[WB_MAX_BUFFERS];
    size_t bytes[WB_MAX_BUFFERS];
    const struct wb_device *device_info; /* SM count, limits: the GPU or the emulated one */
    /* the one scope this call's time covers (WB_HOST, WB_KERNEL, ...): a
     * variant with both a kernel row and a transfers row launches alone for
     * the first and makes its own copies only for the second */
    int scope;
};

typedef struct {
    const char *name;        /* a word: cpu, naive, optimized, tiled, cublas, ... */
    const char *description; /* one line for --help */
    int scope;               /* WB_HOST, or GPU scopes: WB_KERNEL | WB_END_TO_END, WB_LIBRARY */
    void (*run)(const wb_data *data); /* one call: a CPU function, or launches */
    wb_tolerance tolerance;  /* all zero: each output buffer's own */
    /* NULL, or the reason this variant cannot run on this device (e.g. "cuBLAS
     * is not part of the CPU emulator"): the table shows it, it is no failure. */
    const char *(*skip_reason)(const struct wb_device *device);
    /* 1: while this variant runs, host[] is page-locked memory (cudaMallocHost)
     * holding the same inputs, so every copy to or from it goes by DMA straight
     * from host memory, without the staging copy pageable memory needs. */
    int pinned_host;
    /* 1, with WB_TRANSFERS: run leaves its outputs in device[], not host[]
     * (a copy to the device, timed alone); its check copies them back first,
     * untimed. */
    int outputs_on_device;
    /* optional: the work this variant really does, when it is not the
     * lesson's count (a variant that reassociates does less). The table's
     * rates keep the lesson's count in every row, to compare the rows; a
     * note under the table gives this variant's formula, its FLOP, the least
     * bytes it moves, and its rates at those. */
    struct {
        const char *formula;                    /* "mk + 2kn" */
        double (*flops)(const wb_shape *shape);
        double (*bytes)(const wb_shape *shape);
    } own_work;
} wb_variant;

/* ---- the lesson -------------------------------------------------------- */

/* An extra option of the lesson, listed by --help: a whole number in
 * [min, max] (value), a text such as a file name (text), or a switch
 * without a value (present). */
typedef struct {
    const char *flag;  /* "--threads-per-block" */
    const char *help;  /* one line */
    long long *value;  /* holds the default, receives the parsed number */
    long long min, max;
    const char **text; /* instead of value: holds the default, receives the text */
    int *present;      /* instead of value: set to 1 when the flag is given */
} wb_option;

/* the precision of a lesson's arithmetic: which compute peak it is held to */
typedef enum { WB_FP32, WB_FP64 } wb_arithmetic;

typedef struct {
    const char *name;          /* "lesson01" */
    const char *title;         /* "vector add: c = a + b, float32" */
    int rank;                  /* of the shape: 1, 2 or 3 */
    const char *size_meaning;  /* what -n means: "elements per vector" */
    const char *default_size;  /* as typed: "10M", "7680x4320" */
    long long max_dimension;   /* largest value of any one dimension */
    long long max_elements;    /* largest result: the kernels' indexing limit */
    const wb_buffer *buffers;  int buffer_count;
    const wb_variant *variants; int variant_count; /* the first is cpu, the reference */
    double (*bytes)(const wb_shape *shape); /* bytes that must move to and from memory */
    double (*flops)(const wb_shape *shape); /* floating-point operations */
    /* the precision flops() counts, and so the compute peak the rows' % of peak
     * and the CSV's peak_gflops are of: WB_FP32 (the default) or WB_FP64, whose
     * peak is the FP32 peak / the device's fp32_per_fp64 */
    wb_arithmetic arithmetic;
    /* optional: what flops() and bytes() count, for the note on the
     * variants' own_work: "2mnk", "A, B, the sums" */
    const char *flops_formula, *bytes_formula;
    /* 1: also time cudaMemcpy device to device of the same bytes (the
     * "device-copy" row): what this GPU's memory delivers, to compare with. */
    int copy_anchor;
    /* optional: the bytes the device-copy row copies, when they are not
     * bytes(): a lesson that moves the same field many times (a step after
     * step) compares each kernel with one copy of what a step moves. */
    double (*copy_bytes)(const wb_shape *shape);
    const wb_option *options;  int option_count;
    /* called once when the GPU is usable, after allocation: for launch
     * settings that come from the device (grid sizes from the SM count). */
    void (*prepare)(const wb_data *data);
    /* optional: called after the command line is read, before anything is
     * allocated; a lesson whose input is a file sets the shape from it
     * (wb_set_shape) and refuses a bad file with one line and exit 2; a
     * lesson whose problem is long may lower the runs (wb_default_runs). */
    void (*input_shape)(wb_shape *shape);
    /* optional: called at the end with host[] holding the CPU's outputs
     * (which every passing variant matched): to write an output file. */
    void (*finish)(const wb_data *data);
    /* optional: in a program of several parts, each its own wb_lesson, the
     * name --part picks this one by (see wb_choose_part) */
    const char *part;
    /* optional: a run works through a batch of items (the frames of a video).
     * Under the table, each GPU variant's kernel time per item, its items per
     * second end to end, and the share of its end-to-end time that its
     * kernels leave to the copies. item_name is one item: "frame". */
    const char *item_name;
    long long (*items)(const wb_shape *shape);
} wb_lesson;

#define WB_COUNT(array) ((int)(sizeof(array) / sizeof((array)[0])))

/* Runs the lesson: parses argv, runs, checks, times and reports every
 * selected variant, and returns the exit code for main. */
int wb_main(const wb_lesson *lesson, int argc, char **argv);

/* A program of several parts: one wb_lesson per part, each with its .part
 * name and each declaring the same --part option (a text option, so that
 * --help and the parser agree whichever part runs). Returns the part that
 * --part NAME (or --part=NAME) names, the first when none is given; an
 * unknown name is a usage error (exit 2) that lists the valid ones. With
 * --csv, the rows of any part but the first say so in their lesson column
 * ("lesson07-bandwidth"): make bench sweeps each part into one file. Then:
 *     return wb_main(wb_choose_part(parts, WB_COUNT(parts), argc, argv), argc, argv); */
const wb_lesson *wb_choose_part(const wb_lesson *const *parts, int count, int argc, char **argv);

/* Sets a shape's dimensions (1-D: n; 2-D: width, height; 3-D: m, n, k) and
 * the fields that follow from them. */
void wb_set_shape(wb_shape *shape, long long first, long long second, long long third);

/* The flag that gave the size on the command line, "-n" or "--size"; NULL
 * when the lesson's default holds. A lesson whose input file sets the size
 * refuses it rather than ignore it (common/image.h). */
const char *wb_size_flag(void);

/* From input_shape: the timed runs and warm-up runs, for a problem too long
 * for the usual 10 and 2 (the article's size under the CPU emulator). What
 * --reps and --warmup say on the command line wins. */
void wb_default_runs(int reps, int warmup);

/* The tolerance of a float sum added in another order than the reference.
 * Each addition rounds with a relative error of at most u = 2^-24; a sum whose
 * longest chain of dependent additions is `depth` long is off by at most
 *     depth * u * sum |x_i|       (Higham, Accuracy and Stability of
 * Numerical Algorithms, 2nd ed., section 4.2, to first order). A sequential
 * sum of n terms has depth n - 1; a tree of blocks has depth about log2(n)
 * plus the terms each thread adds alone. Returns that bound as an atol. */
double wb_sum_tolerance(double depth, double sum_abs);

/* The largest |x| of count floats (0 for none; NaNs are skipped): the scale a
 * tolerance is measured against. */
double wb_largest_magnitude(const float *values, long long count);

/* ---- after the table: what the rows add up to ------------------------------ */

/* The median time of one row of this run (variant, and one WB_* scope), in
 * ms; negative when that row was not measured (skipped, left out by --only,
 * no GPU). For a lesson's finish hook, which runs after every row. */
double wb_measured_ms(const char *variant, int scope);

/* A line under the table, after every row: for what a lesson derives from
 * its rows (a break-even point, a timeline). On stdout under the table; on
 * stderr with --csv, so that the CSV stays one table. */
void wb_note(const char *format, ...) __attribute__((format(printf, 1, 2)));

/* A figure a lesson derives from its rows and a target is judged by (the
 * ideal time of a pipeline): with --csv, one line on stderr,
 *     figure,<the rows' lesson column>,<name>,<value>,<unit>
 * which make gpu-report reads beside the rows; without --csv nothing, the
 * lesson's wb_note says it in words. */
void wb_figure(const char *name, double value, const char *unit);

/* A bad input that the lesson finds itself (a field too small for the
 * processes, a file that cannot be read): one line on stderr, "lessonNN:
 * <what is wrong> (see --help)", and exit status 2 (in a team: said once, by
 * process 0, and every process exits). */
void wb_usage_error(const char *format, ...) __attribute__((format(printf, 1, 2)));

/* ---- timelines: what ran at the same time on streams ---------------------- */

/* A variant that spreads its work over streams records a span, two
 * cudaEvents, around each piece it queues (a chunk's copy in, its kernel, its
 * copy out), in a lane (an engine or a stream) and with a label (the chunk's
 * number). The events are made once and reused: the variant resets its
 * timeline at the start of each call, so the spans are those of its latest
 * call. After the run, wb_note_timeline draws them under the table. */
#define WB_TIMELINE_SPANS 4096
#define WB_TIMELINE_LANES 4
typedef struct {
    int count, events_made;
    int lane[WB_TIMELINE_SPANS], label[WB_TIMELINE_SPANS];
    cudaEvent_t begin[WB_TIMELINE_SPANS], end[WB_TIMELINE_SPANS];
} wb_timeline;

void wb_timeline_reset(wb_timeline *timeline);
/* Records the start of a span on the stream; returns the span's number, for
 * wb_span_end, or -1 when the timeline is full (the span is not drawn). */
int wb_span_begin(wb_timeline *timeline, int lane, int label, cudaStream_t stream);
void wb_span_end(wb_timeline *timeline, int span, cudaStream_t stream);
/* Per lane, the time its spans cover, each counted once (ms); returns the
 * time from the first span's start to the last one's end. */
double wb_timeline_busy(const wb_timeline *timeline, double busy_ms[WB_TIMELINE_LANES]);
/* Per lane, the part of that time during which another lane was busy too
 * (ms): the lane's work that ran hidden behind the others'. */
void wb_timeline_overlap(const wb_timeline *timeline, double overlap_ms[WB_TIMELINE_LANES]);
/* Under the table: one line per lane, `columns` wide, each span drawn with
 * the last digit of its label, then the share of the time two or more lanes
 * were busy at once. */
void wb_note_timeline(const wb_timeline *timeline, const char *title,
                      const char *const *lane_names, int lane_count, int columns);

/* ---- programs of several processes ---------------------------------------- */

/* A lesson run as several processes at once, each with its own GPU (MPI
 * ranks: lesson 09, through common/workbook_mpi.h), joins them into a team
 * before wb_main. Every process then runs wb_main alike, and common/:
 *   - prints from process 0 alone: the others' stdout goes nowhere, and a
 *     message every process would print the same is printed once;
 *   - times a host row on process 0 alone, while the others wait (processes
 *     on one machine would share its cores), and a GPU row on every process,
 *     started together, each run as long as the slowest process took;
 *   - has every process check the outputs it holds (the whole of them, which
 *     from_parts gathered), and counts a check failed where any process
 *     found it so;
 *   - stops every process on an error: together on a usage error or --help,
 *     which every process meets alike; through abort on one that a single
 *     process meets (a CUDA error), which names that process's rank. */
typedef struct {
    int rank, size;               /* this process, and how many there are */
    const char *about;            /* the header's line on the processes and their GPUs */
    void (*barrier)(void);        /* returns when every process has called it */
    double (*max)(double value);  /* the largest of every process's value, on each */
    void (*leave)(int status);    /* every process exits with status, together */
    void (*abort)(int status);    /* stops every process: an error on this one alone */
} wb_team;

/* Before wb_main, on every process of the team. */
void wb_join_team(const wb_team *team);

/* ---- the device ---------------------------------------------------------- */

typedef struct wb_device {
    int gpu_available;        /* 0: only the CPU version can run */
    char why_unavailable[256];/* when gpu_available is 0: the reason and what to do */
    int emulated;             /* 1: the "GPU" is the CPU emulation backend */
    cudaDeviceProp prop;
    double peak_gbps;         /* from memory clock and bus width; 0 if unknown */
    double peak_gflops;       /* FP32, from SMs x cores per SM x 2 x clock; 0 if unknown */
    /* the FP32 rate over the FP64 rate, as the device reports it (2 on an H100,
     * 64 on most GeForce GPUs); 0 if unknown. On the emulator, the modelled GPU's. */
    int fp32_per_fp64;
    int driver_version, runtime_version; /* 13000 means 13.0 */
} wb_device;

/* Finds the current device (0 unless cudaSetDevice chose another) and tells
 * whether it can run this program's kernels; when it cannot, why_unavailable
 * says why and what to do. */
wb_device wb_describe_device(const char *program_name);

/* ---- small tools for exercise checkers ----------------------------------- */

/* malloc that never returns NULL: on failure it names what could not be
 * allocated and exits 1, rather than letting a program crash later. */
void *wb_alloc_host(size_t bytes, const char *what);

/* Fills data[0..n) with uniform random floats in [lo, hi), reproducibly from
 * the seed: element i gets the same value however many threads fill it. */
void wb_fill_random(float *data, long long n, float lo, float hi, unsigned long long seed);

typedef struct {
    int passed;
    long long first_bad;      /* -1 when every value is within tolerance */
    double expected, actual;  /* the values at first_bad */
    double max_error;         /* largest |actual - expected|; infinite if non_finite > 0 */
    long long non_finite;     /* NaN or Inf where the reference is finite */
    /* Where the largest finite error was found, and the values there. */
    long long max_error_at;
    double expected_there, actual_there;
    /* The smallest bound over the value it bounds, (atol + rtol |expected|) /
     * |expected|, over the finite, nonzero floating-point references; 0 when
     * there is none. At 1 or more any result from 0 to twice each value
     * passes: such a PASS checks nothing, and the report says so. */
    double bound_ratio;
} wb_check_result;

/* Compares n floats with the tolerance rule above. */
wb_check_result wb_check(const float *expected, const float *actual, long long n,
                         double atol, double rtol);

/* The margin a checker leaves after a device buffer to see a kernel run past
 * its end (it fills the margin and checks it afterwards): `bytes`, or 0 while
 * the bug finder reruns a failed exercise (WORKBOOK_EXACT_BUFFERS=1, set by
 * common/diagnose.sh). Then the emulator's guard page (CUDA_EMU_GUARD=1) lies
 * right after the data and stops the first access past it, naming its line. */
size_t wb_checker_margin(size_t bytes);

/* Every checker reports in one format, which students read and make grade
 * parses (common/grade.sh):
 *     exercise03: <what it checks>
 *     exercise03: not implemented yet: <what showed it> (fill in the TODOs in <file>)
 * or a line per case, "  <case>  PASS" or "  <case>  FAIL: first wrong ...", then
 *     exercise03: PASS (all 10 shapes)     or     exercise03: FAIL (2 of 10 shapes wrong)
 * A checker that collects a line per case fills in a wb_exercise_report and
 * returns wb_report_exercise's exit status; one that prints as it goes uses
 * the two pieces below it. */
#define WB_VERDICT_LENGTH 200
typedef struct {
    const char *name;          /* "exercise03" */
    const char *title;         /* what the exercise asks for */
    const char *exercise_file; /* "lessons/03-diffusion/exercise.cu" */
    const char *nothing_done;  /* non-NULL when the exercise visibly did nothing: what showed it */
    const char *cases;         /* what a case is, plural: "sizes", "shapes" */
    const char (*verdicts)[WB_VERDICT_LENGTH]; /* a line per case */
    int count, failures;
} wb_exercise_report;

/* The device a checker runs on. Without a usable one it says why,
 * "exerciseNN: cannot check: ...", and exits with WB_EXIT_NO_DEVICE. */
wb_device wb_checker_device(const char *name);
int wb_report_exercise(const wb_exercise_report *report);
/* "exerciseNN: not implemented yet: ..."; returns WB_EXIT_CHECK_FAILED */
int wb_report_not_implemented(const char *name, const char *nothing_done, const char *exercise_file);
/* the closing PASS or FAIL line (pass_note is added inside PASS's parentheses);
 * returns the exit status */
int wb_report_verdict(const char *name, int failures, int count, const char *cases,
                      const char *pass_note);

#endif
