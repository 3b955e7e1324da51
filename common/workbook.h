/*
 * common/workbook.h - the one shared helper of the course.
 *
 * Every lesson program follows the same contract (COURSE.md, "How the lessons
 * work"): it runs a CPU version, a naive GPU version and an optimized GPU
 * version of one computation, checks each GPU result against the CPU result,
 * times them and prints a table (or CSV). This header holds everything that is
 * the same in all lessons, so that a lesson file only contains its own idea:
 *
 *   CUDA_CHECK(call)        stop with file, line and the runtime's message
 *   CUDA_CHECK_LAUNCH()     the same for the kernel launched just before
 *   wb_parse_options()      the command line every lesson shares
 *   wb_alloc_host()         malloc that names what failed instead of crashing
 *   wb_fill_random()        reproducible random input from --seed
 *   wb_describe_device()    the GPU, its peaks, or why there is no usable one
 *   wb_begin()              describe the device and the problem, refuse sizes
 *                           that do not fit in memory
 *   wb_time_host()          time a CPU function with a monotonic clock
 *   wb_time_device()        time a GPU function with CUDA events
 *   wb_check()              compare a result with the CPU reference
 *   wb_report()             one row of the table (or of the CSV)
 *   wb_finish()             the closing summary and the exit code
 *
 * A lesson states what its computation moves and computes (bytes, flops);
 * this helper turns that into GB/s, GFLOP/s, % of the device's peak and
 * speedups. Exit codes: 0 every check passed, 1 a check or a CUDA call
 * failed, 2 usage error, 3 no usable CUDA device (the CPU version still ran).
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
 * surface in cudaGetLastError(), so check it right after every launch. */
#define CUDA_CHECK_LAUNCH() \
    wb_cuda_check(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)

void wb_cuda_check(cudaError_t status, const char *call, const char *file, int line);

/* ---- the command line -------------------------------------------------- */

enum wb_variant { WB_CPU = 1, WB_NAIVE = 2, WB_OPTIMIZED = 4 };

/* A lesson-specific integer option, listed by --help. */
typedef struct {
    const char *flag;   /* "--threads-per-block" */
    const char *help;   /* one line for --help */
    long long *value;   /* holds the default, receives the parsed value */
    long long min, max; /* accepted range */
} wb_extra_option;

typedef struct {
    const char *name;         /* "lesson01" */
    const char *title;        /* "vector add: c = a + b" */
    const char *size_meaning; /* what -n counts: "elements per vector" */
    long long default_size;
    long long max_size;       /* indexing limit of the lesson's kernels */
    wb_extra_option *extra_options; /* NULL-terminated list, or NULL */
} wb_lesson;

typedef struct {
    long long size;         /* -n, --size */
    int reps;               /* timed repetitions after warm-up */
    int warmup;             /* untimed runs before the timed ones */
    unsigned int variants;  /* --only: a mask of enum wb_variant */
    int csv;                /* --csv: machine-readable rows instead of the table */
    unsigned long long seed;
} wb_options;

/* Parses argv. --help prints the usage and exits 0; a bad flag or value
 * prints one line naming the problem and exits 2. */
wb_options wb_parse_options(const wb_lesson *lesson, int argc, char **argv);

/* malloc that never returns NULL: on failure it names what could not be
 * allocated and exits 1, rather than letting a lesson crash later. */
void *wb_alloc_host(size_t bytes, const char *what);

/* Fills data[0..n) with uniform random floats in [lo, hi), reproducibly from
 * the seed, so that every run of a lesson checks the same numbers. */
void wb_fill_random(float *data, long long n, float lo, float hi, unsigned long long seed);

/* ---- the run: device, problem, measurements ----------------------------- */

/* What the lesson states about one run of its computation; the helper turns
 * it into GB/s, GFLOP/s and % of the device's peak. */
typedef struct {
    double bytes;             /* bytes that must move to and from memory */
    double flops;             /* floating-point operations */
    size_t host_bytes;        /* host memory the program allocates */
    size_t device_bytes;      /* device memory the program allocates */
} wb_problem;

typedef struct {
    int gpu_available;        /* 0: only the CPU version can run */
    char why_unavailable[256];/* when gpu_available is 0: the reason and what to do */
    int emulated;             /* 1: the "GPU" is the CPU emulation backend */
    cudaDeviceProp prop;
    double peak_gbps;         /* from memory clock and bus width; 0 if unknown */
    double peak_gflops;       /* FP32, from SMs x cores per SM x 2 x clock; 0 if unknown */
    int driver_version, runtime_version; /* 13000 means 13.0 */
} wb_device;

/* Finds device 0 and tells whether it can run this program's kernels; when it
 * cannot, why_unavailable says why and what to do. wb_begin calls it; the
 * exercise checkers call it directly. */
wb_device wb_describe_device(const char *program_name);

typedef struct {
    const wb_lesson *lesson;
    wb_options options;
    wb_problem problem;
    wb_device device;
    double cpu_median_ms;     /* 0 until the CPU version was timed */
    int failed_checks;
} wb_run;

/* Describes the device (or why there is no usable one) and prints the header.
 * A problem that does not fit in host or device memory is refused here, with
 * how much it needs and how much there is (exit 2), before any allocation. */
wb_run wb_begin(const wb_lesson *lesson, const wb_options *options, const wb_problem *problem);

typedef struct {
    double median_ms, min_ms;
    double spread_pct;        /* interquartile range as % of the median */
    int reps;
    int cold_l2;              /* 1: the L2 cache was flushed before each run */
} wb_timing;

/* Runs fn(context) options.warmup times untimed, then options.reps times
 * timed. The host version reads a monotonic clock; the device version records
 * CUDA events around each run and flushes the L2 cache before it, so a run
 * cannot profit from data the previous one left in the cache. */
typedef void (*wb_function)(void *context);
wb_timing wb_time_host(const wb_run *run, wb_function fn, void *context);
wb_timing wb_time_device(const wb_run *run, wb_function fn, void *context);

typedef struct {
    int passed;
    long long first_bad;      /* -1 when every value is within tolerance */
    double expected, actual;  /* the values at first_bad */
    double max_error;         /* largest |actual - expected|; infinite if non_finite > 0 */
    long long non_finite;     /* NaN or Inf where the reference is finite */
} wb_check_result;

/* The one tolerance rule of the course: actual matches expected when
 *     |actual - expected| <= atol + rtol * |expected|
 * and a NaN or Inf where the reference is finite is always a mismatch.
 * WB_ATOL and WB_RTOL suit results computed the same way on both sides; a
 * lesson whose GPU version adds in another order passes wider ones and says why. */
#define WB_ATOL 1e-6
#define WB_RTOL 1e-5
wb_check_result wb_check(const float *expected, const float *actual, long long n,
                         double atol, double rtol);

/* One row of the table (or of the CSV). scope says what the time includes:
 *   "host"        the CPU version
 *   "kernel"      the kernel alone, its data already on the device
 *   "end-to-end"  the copies host->device, the kernel, and the copy back
 * check is NULL for the CPU version, which is the reference. A failed check
 * also prints the first mismatching index with the expected and actual values. */
void wb_report(wb_run *run, const char *variant, const char *scope,
               const wb_timing *timing, const wb_check_result *check);

/* Prints the closing lines and returns the exit code for main: 1 if a check
 * failed, 3 if GPU variants were asked for but no device could run them. */
int wb_finish(wb_run *run);

#endif
