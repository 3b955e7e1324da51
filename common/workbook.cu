/*
 * common/workbook.cu - the implementation of common/workbook.h.
 *
 * Read workbook.h first: it says what each function promises. This file is
 * plain host code; the only kernel in it is the one-thread probe that tells
 * whether the build holds a kernel image for the GPU that is present.
 *
 * Sections: errors; the command line; random input; the device; the run's
 * header and memory check; timing and statistics; checking; reporting.
 */
#include "workbook.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *program = "lesson"; /* set from the lesson, used in messages */

/* ---- errors ------------------------------------------------------------ */

void wb_cuda_check(cudaError_t status, const char *call, const char *file, int line)
{
    if (status == cudaSuccess)
        return;
    fprintf(stderr, "%s:%d: CUDA error in %s: %s: %s\n", file, line, call,
            cudaGetErrorName(status), cudaGetErrorString(status));
    exit(WB_EXIT_CHECK_FAILED);
}

static void usage_error(const char *format, const char *what, const char *value)
{
    fprintf(stderr, "%s: ", program);
    fprintf(stderr, format, what, value);
    fprintf(stderr, " (see --help)\n");
    exit(WB_EXIT_USAGE);
}

/* ---- the command line -------------------------------------------------- */

#define DEFAULT_REPS 10
#define DEFAULT_WARMUP 2
#define MAX_REPS 100000
#define MAX_WARMUP 1000

/* Reads a count such as "1000", "64k", "10M", "1Gi". Decimal suffixes k/M/G
 * multiply by 10^3, 10^6, 10^9, binary ones Ki/Mi/Gi by 2^10, 2^20, 2^30. Returns 0 on success,
 * -1 if text is not such a number, -2 if it is larger than max. */
static int parse_count(const char *text, long long max, long long *out)
{
    if (!isdigit((unsigned char)text[0]))
        return -1;
    errno = 0;
    char *end;
    unsigned long long value = strtoull(text, &end, 10);
    if (errno == ERANGE)
        return -2;
    unsigned long long scale = 1;
    const char *suffixes[] = {"", "k", "M", "G", "Ki", "Mi", "Gi"};
    const unsigned long long scales[] = {1, 1000ull, 1000000ull, 1000000000ull,
                                         1ull << 10, 1ull << 20, 1ull << 30};
    int known = 0;
    for (int i = 0; i < 7; i++) {
        if (strcmp(end, suffixes[i]) == 0) {
            scale = scales[i];
            known = 1;
        }
    }
    if (!known)
        return -1;
    if (value > (unsigned long long)max / scale)
        return -2;
    *out = (long long)(value * scale);
    return 0;
}

static long long parse_ranged(const char *flag, const char *text, long long min, long long max)
{
    long long value = 0;
    int status = parse_count(text, max, &value);
    if (status == -1 && text[0] == '-')
        status = -2; /* a negative number: out of range rather than malformed */
    if (status == -1)
        usage_error("invalid value '%2$s' for %1$s: expected a whole number such as 1000, 64k or 10M",
                    flag, text);
    if (status == -2 || value < min) {
        char range[96];
        snprintf(range, sizeof range, "'%s' is out of range (%lld to %lld)", text, min, max);
        usage_error("%s value %s", flag, range);
    }
    return value;
}

static unsigned int parse_variants(const char *text)
{
    unsigned int mask = 0;
    char list[128];
    snprintf(list, sizeof list, "%s", text);
    for (char *name = strtok(list, ","); name; name = strtok(NULL, ",")) {
        if (strcmp(name, "cpu") == 0)
            mask |= WB_CPU;
        else if (strcmp(name, "naive") == 0)
            mask |= WB_NAIVE;
        else if (strcmp(name, "optimized") == 0)
            mask |= WB_OPTIMIZED;
        else
            usage_error("unknown variant '%2$s' for %1$s: expected cpu, naive or optimized",
                        "--only", name);
    }
    if (mask == 0)
        usage_error("%s needs at least one variant%s", "--only", "");
    return mask;
}

static void print_help(const wb_lesson *lesson)
{
    printf("usage: ./%s [options]\n%s, on the CPU and on the GPU, checked and timed.\n\n",
           lesson->name, lesson->title);
    printf("  -n, --size N      %s (default %lld); suffixes k, M, G mean 10^3, 10^6,\n"
           "                    10^9; Ki, Mi, Gi mean 2^10, 2^20, 2^30\n", lesson->size_meaning,
           lesson->default_size);
    printf("      --reps R      timed repetitions after the warm-up (default %d)\n", DEFAULT_REPS);
    printf("      --warmup W    untimed runs before the timed ones (default %d)\n", DEFAULT_WARMUP);
    printf("      --only LIST   variants to run: any of cpu,naive,optimized (default all)\n");
    printf("      --csv         one CSV row per measurement instead of the table\n");
    printf("      --seed S      seed of the random input (default 1)\n");
    printf("  -h, --help        this help\n");
    if (lesson->extra_options) {
        printf("\n%s options:\n", lesson->name);
        for (const wb_extra_option *opt = lesson->extra_options; opt->flag; opt++)
            printf("      %s N  %s (default %lld, %lld to %lld)\n", opt->flag, opt->help,
                   *opt->value, opt->min, opt->max);
    }
    printf("\nexit status: 0 every check passed, 1 a check failed, 2 usage error,\n"
           "3 no usable CUDA device (the CPU version still runs)\n");
}

wb_options wb_parse_options(const wb_lesson *lesson, int argc, char **argv)
{
    program = lesson->name;
    wb_options options;
    options.size = lesson->default_size;
    options.reps = DEFAULT_REPS;
    options.warmup = DEFAULT_WARMUP;
    options.variants = WB_CPU | WB_NAIVE | WB_OPTIMIZED;
    options.csv = 0;
    options.seed = 1;

    for (int i = 1; i < argc; i++) {
        const char *flag = argv[i];
        if (strcmp(flag, "-h") == 0 || strcmp(flag, "--help") == 0) {
            print_help(lesson);
            exit(WB_EXIT_OK);
        }
        if (strcmp(flag, "--csv") == 0) {
            options.csv = 1;
            continue;
        }
        /* every other option takes a value: "--reps 5" or "--reps=5" */
        const char *value = NULL;
        char name[64];
        const char *equals = strchr(flag, '=');
        if (equals && flag[0] == '-' && flag[1] == '-') {
            snprintf(name, sizeof name, "%.*s", (int)(equals - flag), flag);
            value = equals + 1;
        } else {
            snprintf(name, sizeof name, "%s", flag);
        }
        wb_extra_option *extra = NULL;
        int known = strcmp(name, "-n") == 0 || strcmp(name, "--size") == 0 ||
                    strcmp(name, "--reps") == 0 || strcmp(name, "--warmup") == 0 ||
                    strcmp(name, "--only") == 0 || strcmp(name, "--seed") == 0;
        for (wb_extra_option *opt = lesson->extra_options; opt && opt->flag; opt++)
            if (strcmp(name, opt->flag) == 0)
                extra = opt;
        if (!known && !extra)
            usage_error("unknown option '%s'%s", flag, "");
        if (!value) {
            /* "--reps --csv": the next word is another flag, not the value */
            int next_is_flag = i + 1 < argc && argv[i + 1][0] == '-' &&
                               !isdigit((unsigned char)argv[i + 1][1]);
            if (i + 1 >= argc || next_is_flag)
                usage_error("%s needs a value%s", name, "");
            value = argv[++i];
        }
        if (extra)
            *extra->value = parse_ranged(name, value, extra->min, extra->max);
        else if (strcmp(name, "-n") == 0 || strcmp(name, "--size") == 0)
            options.size = parse_ranged(name, value, 1, lesson->max_size);
        else if (strcmp(name, "--reps") == 0)
            options.reps = (int)parse_ranged(name, value, 1, MAX_REPS);
        else if (strcmp(name, "--warmup") == 0)
            options.warmup = (int)parse_ranged(name, value, 0, MAX_WARMUP);
        else if (strcmp(name, "--seed") == 0)
            options.seed = (unsigned long long)parse_ranged(name, value, 0, LLONG_MAX);
        else
            options.variants = parse_variants(value);
    }
    return options;
}

void *wb_alloc_host(size_t bytes, const char *what)
{
    void *memory = malloc(bytes);
    if (!memory) {
        fprintf(stderr, "%s: cannot allocate %zu bytes of host memory for %s\n", program, bytes,
                what);
        exit(WB_EXIT_CHECK_FAILED);
    }
    return memory;
}

/* ---- random input ------------------------------------------------------ */

/* splitmix64: a counter-based generator, so element i gets the same value
 * whatever the number of threads that fill the array. */
static uint64_t splitmix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

void wb_fill_random(float *data, long long n, float lo, float hi, unsigned long long seed)
{
    uint64_t stream = splitmix64(seed);
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < n; i++) {
        /* the top 24 bits give a float in [0, 1) with every value exact */
        float unit = (float)(splitmix64(stream + (uint64_t)i) >> 40) / 16777216.0f;
        data[i] = lo + (hi - lo) * unit;
    }
}

/* ---- the device -------------------------------------------------------- */

/* FP32 lanes per SM by architecture, from the CUDA C Programming Guide's
 * "Arithmetic Instructions" throughput table. */
static int fp32_lanes_per_sm(int major, int minor)
{
    if (major == 6 && minor == 0) return 64;
    if (major == 7) return 64;
    if (major == 8 && minor == 0) return 64;
    return 128; /* 5.x, 6.1+, 8.6, 8.9, 9.0 and later */
}

/* CUDA 13 compiles for compute capability 7.5 (Turing) and newer. */
#define OLDEST_CUDA13_CAPABILITY 75

/* One thread that does nothing: launching it tells whether this binary holds
 * code the GPU can run (cudaErrorNoKernelImageForDevice otherwise). */
__global__ void wb_probe_kernel(void) {}

static int usable_device(wb_device *device, const char *lesson_name)
{
    char *why = device->why_unavailable;
    size_t room = sizeof device->why_unavailable;
    const char *emulator_hint = "; to run the GPU variants anyway, build with the CPU emulator";
    int count = 0;
    cudaError_t status = cudaGetDeviceCount(&count);
    CUDA_CHECK(cudaDriverGetVersion(&device->driver_version));
    CUDA_CHECK(cudaRuntimeGetVersion(&device->runtime_version));
    if (status == cudaErrorInsufficientDriver && device->driver_version == 0) {
        snprintf(why, room, "no NVIDIA driver is installed (no NVIDIA GPU here?)%s: "
                 "make BACKEND=emu %s", emulator_hint, lesson_name);
        return 0;
    }
    if (status == cudaErrorInsufficientDriver) {
        snprintf(why, room, "the NVIDIA driver supports CUDA %d.%d, this build needs %d.%d: "
                 "update the driver (make doctor shows the versions)",
                 device->driver_version / 1000, device->driver_version % 1000 / 10,
                 device->runtime_version / 1000, device->runtime_version % 1000 / 10);
        return 0;
    }
    if (status != cudaSuccess || count == 0) {
        snprintf(why, room, "no CUDA GPU found (%s)%s: make BACKEND=emu %s",
                 status == cudaSuccess ? "0 devices" : cudaGetErrorString(status),
                 emulator_hint, lesson_name);
        cudaGetLastError(); /* clear it, so later calls do not report it again */
        return 0;
    }
    CUDA_CHECK(cudaGetDeviceProperties(&device->prop, 0));
    wb_probe_kernel<<<1, 1>>>();
    status = cudaGetLastError();
    if (status == cudaSuccess)
        status = cudaDeviceSynchronize();
    int capability = 10 * device->prop.major + device->prop.minor;
    if (capability < OLDEST_CUDA13_CAPABILITY) {
        snprintf(why, room, "this GPU has compute capability %d.%d, older than CUDA 13 supports "
                 "(7.5 and newer): use the CPU emulator, make BACKEND=emu %s",
                 device->prop.major, device->prop.minor, lesson_name);
        return 0;
    }
    if (status == cudaErrorNoKernelImageForDevice || status == cudaErrorUnsupportedPtxVersion) {
        snprintf(why, room, "this build has no kernel image for the GPU's compute capability "
                 "%d.%d: rebuild with make CUDA_ARCH=%d%d %s",
                 device->prop.major, device->prop.minor, device->prop.major,
                 device->prop.minor, lesson_name);
        return 0;
    }
    if (status != cudaSuccess) {
        snprintf(why, room, "the GPU cannot run kernels: %s: %s", cudaGetErrorName(status),
                 cudaGetErrorString(status));
        return 0;
    }
    return 1;
}

wb_device wb_describe_device(const char *program_name)
{
    wb_device described;
    wb_device *device = &described;
    memset(device, 0, sizeof *device);
    program = program_name;
#ifdef CUDA_EMULATION
    device->emulated = 1;
#endif
    device->gpu_available = usable_device(device, program_name);
    if (!device->gpu_available || device->emulated)
        return described; /* an emulated device has no meaningful peak */
    /* CUDA 13's cudaDeviceProp has no clock fields; the attributes still do. */
    int core_khz = 0, memory_khz = 0, bus_bits = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&core_khz, cudaDevAttrClockRate, 0));
    CUDA_CHECK(cudaDeviceGetAttribute(&memory_khz, cudaDevAttrMemoryClockRate, 0));
    CUDA_CHECK(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0));
    /* double data rate: two transfers per memory clock, bus_bits / 8 bytes each */
    device->peak_gbps = 2.0 * memory_khz * 1e3 * (bus_bits / 8) / 1e9;
    /* a fused multiply-add counts as two floating-point operations */
    device->peak_gflops = (double)device->prop.multiProcessorCount *
                          fp32_lanes_per_sm(device->prop.major, device->prop.minor) * 2.0 *
                          core_khz * 1e3 / 1e9;
    return described;
}

/* ---- the run's header and memory check ---------------------------------- */

/* Decimal units (1 MB = 10^6 bytes), the same as in GB/s. */
static const char *human_bytes(double bytes, char *text, size_t room)
{
    const char *units[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
    int unit = 0;
    while (bytes >= 1000.0 && unit < 6) {
        bytes /= 1000.0;
        unit++;
    }
    snprintf(text, room, unit == 0 ? "%.0f %s" : "%.1f %s", bytes, units[unit]);
    return text;
}

static size_t host_available_bytes(void)
{
    FILE *meminfo = fopen("/proc/meminfo", "r");
    char line[256];
    unsigned long long kib = 0;
    while (meminfo && fgets(line, sizeof line, meminfo))
        if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1)
            break;
    if (meminfo)
        fclose(meminfo);
    return (size_t)kib * 1024;
}

static void refuse_if_too_big(const char *what, size_t needed, size_t available,
                              const wb_options *options)
{
    if (needed <= available)
        return;
    char need_text[32], have_text[32];
    fprintf(stderr, "%s: size %lld needs %s of %s memory, but only %s is available\n", program,
            options->size, human_bytes((double)needed, need_text, sizeof need_text), what,
            human_bytes((double)available, have_text, sizeof have_text));
    exit(WB_EXIT_USAGE);
}

static const char *backend_name(const wb_device *device)
{
    return device->emulated ? "emu" : "cuda";
}

static void print_header(const wb_run *run)
{
    const wb_device *device = &run->device;
    char text[32], host_text[32], device_text[32];
    printf("%s: %s\n", run->lesson->name, run->lesson->title);
    if (!device->gpu_available)
        printf("device   none usable: %s\n", device->why_unavailable);
    else if (device->emulated)
        printf("device   %s (backend emu: GPU code runs on the CPU, its times are CPU emulation "
               "times, not GPU times)\n", device->prop.name);
    else
        printf("device   %s, compute capability %d.%d, %d SMs, %s\n"
               "         peak %.0f GB/s memory bandwidth, %.1f TFLOP/s FP32 "
               "(backend cuda, driver %d.%d, runtime %d.%d)\n",
               device->prop.name, device->prop.major, device->prop.minor,
               device->prop.multiProcessorCount,
               human_bytes((double)device->prop.totalGlobalMem, text, sizeof text),
               device->peak_gbps, device->peak_gflops / 1e3, device->driver_version / 1000,
               device->driver_version % 1000 / 10, device->runtime_version / 1000,
               device->runtime_version % 1000 / 10);
    printf("host     CPU version on %d OpenMP threads\n", omp_get_max_threads());
    printf("problem  n = %lld %s; moves %s, %.3g FLOP; allocates %s on host, %s on device\n",
           run->options.size, run->lesson->size_meaning,
           human_bytes(run->problem.bytes, text, sizeof text), run->problem.flops,
           human_bytes((double)run->problem.host_bytes, host_text, sizeof host_text),
           human_bytes((double)run->problem.device_bytes, device_text, sizeof device_text));
    printf("timing   median and min of %d runs after %d warm-up runs; CPU: monotonic clock; "
           "GPU: %s\n\n", run->options.reps, run->options.warmup,
           !device->gpu_available ? "not run"
           : device->emulated     ? "CUDA events, which the emulator reads from the host clock"
                                  : "CUDA events, L2 cache flushed before each run");
    printf("%-10s %-11s %10s %10s %9s %9s %7s %9s  %s\n", "variant", "time covers", "median ms",
           "min ms", "GB/s", "GFLOP/s", "% peak", "speedup", "check");
}

#define CSV_COLUMNS                                                                         \
    "lesson,variant,scope,size,bytes,flops,reps,median_ms,min_ms,spread_pct,gbps,gflops,"   \
    "peak_gbps,peak_gflops,pct_peak,speedup,check,max_error,device,backend,driver,runtime," \
    "cpu_threads,cache"

wb_run wb_begin(const wb_lesson *lesson, const wb_options *options, const wb_problem *problem)
{
    wb_run run;
    memset(&run, 0, sizeof run);
    run.lesson = lesson;
    run.options = *options;
    run.problem = *problem;
    run.device = wb_describe_device(lesson->name);
    size_t host_needed = problem->host_bytes;
    if (run.device.emulated)
        host_needed += problem->device_bytes; /* the emulated device's memory is host memory */
    refuse_if_too_big("host", host_needed, host_available_bytes(), options);
    if (run.device.gpu_available && !run.device.emulated) {
        size_t free_bytes = 0, total_bytes = 0;
        CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
        /* the timing also needs a buffer twice the L2's size to flush the cache with */
        size_t flush_bytes = 2 * (size_t)run.device.prop.l2CacheSize;
        refuse_if_too_big("device", problem->device_bytes + flush_bytes, free_bytes, options);
    }
    if (options->csv)
        printf("%s\n", CSV_COLUMNS);
    else
        print_header(&run);
    fflush(stdout);
    return run;
}

/* ---- timing and statistics ---------------------------------------------- */

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The value below which fraction q of the sorted samples lie (linear
 * interpolation between neighbours). */
static double quantile(const double *sorted, int count, double q)
{
    double position = q * (count - 1);
    int below = (int)position;
    int above = below + 1 < count ? below + 1 : below;
    return sorted[below] + (position - below) * (sorted[above] - sorted[below]);
}

static wb_timing summarize(double *ms, int reps, int cold_l2)
{
    qsort(ms, reps, sizeof *ms, compare_doubles);
    wb_timing timing;
    timing.reps = reps;
    timing.cold_l2 = cold_l2;
    timing.min_ms = ms[0];
    timing.median_ms = quantile(ms, reps, 0.5);
    timing.spread_pct = timing.median_ms > 0
        ? 100.0 * (quantile(ms, reps, 0.75) - quantile(ms, reps, 0.25)) / timing.median_ms
        : 0.0;
    free(ms);
    return timing;
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

wb_timing wb_time_host(const wb_run *run, wb_function fn, void *context)
{
    for (int i = 0; i < run->options.warmup; i++)
        fn(context);
    double *ms = (double *)malloc(run->options.reps * sizeof *ms);
    for (int i = 0; i < run->options.reps; i++) {
        double start = now_ms();
        fn(context);
        ms[i] = now_ms() - start;
    }
    return summarize(ms, run->options.reps, 0);
}

/* Writing a buffer twice the size of the L2 cache evicts whatever the
 * previous run left there. */
static void *l2_flush_buffer = NULL;
static size_t l2_flush_bytes = 0;

static void flush_l2(const wb_device *device)
{
    if (device->emulated || device->prop.l2CacheSize <= 0)
        return;
    if (!l2_flush_buffer) {
        l2_flush_bytes = 2 * (size_t)device->prop.l2CacheSize;
        CUDA_CHECK(cudaMalloc(&l2_flush_buffer, l2_flush_bytes));
    }
    CUDA_CHECK(cudaMemset(l2_flush_buffer, 0, l2_flush_bytes));
}

wb_timing wb_time_device(const wb_run *run, wb_function fn, void *context)
{
    for (int i = 0; i < run->options.warmup; i++)
        fn(context);
    CUDA_CHECK(cudaDeviceSynchronize());
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    double *ms = (double *)malloc(run->options.reps * sizeof *ms);
    for (int i = 0; i < run->options.reps; i++) {
        flush_l2(&run->device);
        CUDA_CHECK(cudaEventRecord(start));
        fn(context);
        CUDA_CHECK(cudaEventRecord(stop));
        CUDA_CHECK(cudaEventSynchronize(stop));
        float elapsed = 0;
        CUDA_CHECK(cudaEventElapsedTime(&elapsed, start, stop));
        ms[i] = elapsed;
    }
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    return summarize(ms, run->options.reps, !run->device.emulated);
}

/* ---- checking ----------------------------------------------------------- */

wb_check_result wb_check(const float *expected, const float *actual, long long n,
                         double atol, double rtol)
{
    wb_check_result result = {1, -1, 0.0, 0.0, 0.0, 0};
    for (long long i = 0; i < n; i++) {
        double want = expected[i], got = actual[i];
        int match;
        if (isnan(want))
            match = isnan(got);
        else if (isinf(want))
            match = got == want;
        else if (!isfinite(got)) {
            match = 0; /* NaN or Inf where the reference is finite: an unbounded error */
            result.non_finite++;
            result.max_error = INFINITY;
        }
        else {
            double error = fabs(got - want);
            if (error > result.max_error)
                result.max_error = error;
            match = error <= atol + rtol * fabs(want);
        }
        if (!match && result.first_bad < 0) {
            result.passed = 0;
            result.first_bad = i;
            result.expected = want;
            result.actual = got;
        }
    }
    return result;
}

/* ---- reporting ----------------------------------------------------------- */

void wb_report(wb_run *run, const char *variant, const char *scope, const wb_timing *timing,
               const wb_check_result *check)
{
    const wb_device *device = &run->device;
    int is_cpu = check == NULL;
    if (is_cpu)
        run->cpu_median_ms = timing->median_ms;
    if (check && !check->passed)
        run->failed_checks++;

    double seconds = timing->median_ms / 1e3;
    double gbps = run->problem.bytes / seconds / 1e9;
    double gflops = run->problem.flops / seconds / 1e9;
    double speedup = run->cpu_median_ms > 0 ? run->cpu_median_ms / timing->median_ms : 0.0;
    /* % of what the roofline allows at this arithmetic intensity: the lesser
     * of the compute peak and intensity x bandwidth peak. Only a kernel-only
     * time on a real GPU is compared with the GPU's peak. */
    double pct_peak = -1.0;
    if (!is_cpu && strcmp(scope, "kernel") == 0 && device->peak_gbps > 0) {
        double intensity = run->problem.flops / run->problem.bytes;
        double attainable = fmin(device->peak_gflops, intensity * device->peak_gbps);
        pct_peak = 100.0 * gflops / attainable;
    }
    const char *verdict = is_cpu ? "REF" : check->passed ? "PASS" : "FAIL";
    double max_error = is_cpu ? 0.0 : check->max_error;

    if (run->options.csv) {
        char device_name[256];
        snprintf(device_name, sizeof device_name, "%s",
                 device->gpu_available ? device->prop.name : "none");
        for (char *c = device_name; *c; c++)
            if (*c == ',')
                *c = ' '; /* keep the CSV one field per column */
        /* %.6g: six significant digits, however small the time or the rate */
        printf("%s,%s,%s,%lld,%.0f,%.0f,%d,%.6g,%.6g,%.2f,%.6g,%.6g,", run->lesson->name,
               variant, scope, run->options.size, run->problem.bytes, run->problem.flops,
               timing->reps, timing->median_ms, timing->min_ms, timing->spread_pct, gbps, gflops);
        if (device->peak_gbps > 0)
            printf("%.1f,%.1f,", device->peak_gbps, device->peak_gflops);
        else
            printf(",,");
        if (pct_peak >= 0)
            printf("%.4g,", pct_peak);
        else
            printf(",");
        if (speedup > 0)
            printf("%.6g,", speedup);
        else
            printf(",");
        printf("%s,%.3g,%s,%s,%d,%d,%d,%s\n", verdict, max_error, device_name,
               backend_name(device), device->driver_version, device->runtime_version,
               omp_get_max_threads(),
               is_cpu || device->emulated ? "n/a" : timing->cold_l2 ? "cold" : "warm");
    } else {
        char pct_text[16] = "-", speedup_text[16] = "-", check_text[64];
        if (pct_peak >= 0)
            snprintf(pct_text, sizeof pct_text, "%.1f", pct_peak);
        if (speedup > 0)
            snprintf(speedup_text, sizeof speedup_text, "%.2fx", speedup);
        if (is_cpu)
            snprintf(check_text, sizeof check_text, "reference");
        else
            snprintf(check_text, sizeof check_text, "%s (max error %.3g)", verdict, max_error);
        if (check && check->non_finite > 0)
            snprintf(check_text, sizeof check_text, "FAIL (%lld NaN/Inf where the CPU has a number)",
                     check->non_finite);
        printf("%-10s %-11s %10.4f %10.4f %9.2f %9.2f %7s %9s  %s%s\n", variant, scope,
               timing->median_ms, timing->min_ms, gbps, gflops, pct_text, speedup_text,
               check_text, timing->spread_pct > 5.0 ? "  [noisy: spread above 5%]" : "");
    }
    if (check && !check->passed)
        fprintf(stderr, "%s: %s (%s) FAIL: first mismatch at index %lld: expected %.9g, got %.9g\n",
                run->lesson->name, variant, scope, check->first_bad, check->expected,
                check->actual);
    fflush(stdout);
}

int wb_finish(wb_run *run)
{
    if (l2_flush_buffer) {
        CUDA_CHECK(cudaFree(l2_flush_buffer));
        l2_flush_buffer = NULL;
    }
    int gpu_wanted = (run->options.variants & (WB_NAIVE | WB_OPTIMIZED)) != 0;
    if (gpu_wanted && !run->device.gpu_available) {
        fprintf(stderr, "%s: GPU variants not run: %s\n", run->lesson->name,
                run->device.why_unavailable);
        return WB_EXIT_NO_DEVICE;
    }
    if (run->failed_checks > 0) {
        if (!run->options.csv)
            printf("\n%d check(s) FAILED\n", run->failed_checks);
        return WB_EXIT_CHECK_FAILED;
    }
    if (!run->options.csv)
        printf("\nall checks passed\n");
    return WB_EXIT_OK;
}
