/*
 * common/workbook.cu - the implementation of common/workbook.h.
 *
 * Read workbook.h first: it says what a lesson declares and what wb_main
 * promises. This file is plain host code; the only kernel in it is the
 * one-thread probe that tells whether the build holds a kernel image for the
 * GPU that is present.
 *
 * Sections: errors (and the processes of a team); numbers and shapes; the
 * command line; random input; the device; memory and the header; timing;
 * checking; reporting; wb_main.
 */
#include "workbook.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *program = "lesson"; /* set from the lesson, used in messages */
static const char *size_flag;           /* "-n" or "--size" when given: wb_size_flag */
/* A part other than a program's first (default) one, chosen with --part: its
 * CSV rows are named "lesson07-bandwidth", so that one results file can hold
 * every part's sweep and the charts draw each part on its own. */
static const char *csv_part = NULL;

/* ---- errors, and the processes of a team -------------------------------- */

/* The processes this program runs as, from wb_join_team; without a team, the
 * one process there is, process 0. */
static wb_team team = {0, 1, NULL, NULL, NULL, NULL, NULL};
static int in_team;

void wb_join_team(const wb_team *joined)
{
    team = *joined;
    in_team = 1;
    /* the table, the notes, the help: process 0 prints them for the team */
    if (team.rank != 0 && !freopen("/dev/null", "w", stdout))
        fprintf(stderr, "%s: rank %d: cannot silence stdout\n", program, team.rank);
}

/* 1 on the process that prints what every process would print alike: the
 * only one, or process 0 of a team. */
static int speaks(void)
{
    return team.rank == 0;
}

/* Before a message only this process prints (an error it alone met), in a
 * team of several: "rank 2 of 4: ". */
static const char *rank_prefix(void)
{
    static char prefix[48];
    if (team.size > 1)
        snprintf(prefix, sizeof prefix, "rank %d of %d: ", team.rank, team.size);
    return prefix;
}

/* Every process exits with this status here: a usage error or --help, which
 * every process of a team meets alike. */
__attribute__((noreturn)) static void stop_together(int status)
{
    fflush(stdout);
    if (in_team)
        team.leave(status);
    exit(status);
}

/* This process alone met an error: in a team, every process is stopped, so
 * that none waits for it for ever. */
__attribute__((noreturn)) static void stop_alone(int status)
{
    fflush(stdout);
    if (in_team)
        team.abort(status);
    exit(status);
}

void wb_cuda_check(cudaError_t status, const char *call, const char *file, int line)
{
    if (status == cudaSuccess)
        return;
    fprintf(stderr, "%s%s:%d: CUDA error in %s: %s: %s\n", rank_prefix(), file, line, call,
            cudaGetErrorName(status), cudaGetErrorString(status));
    stop_alone(WB_EXIT_CHECK_FAILED);
}

/* What the user typed, cut to a length that fits on one line of a message. */
#define ECHO_LIMIT 40
static void describe_shape(wb_shape *shape);
static const char *echo(const char *typed, char *room, size_t size)
{
    if (strlen(typed) <= ECHO_LIMIT)
        snprintf(room, size, "%s", typed);
    else
        snprintf(room, size, "%.*s...", ECHO_LIMIT, typed);
    return room;
}

/* One line on stderr, then exit 2: wb_usage_error, and the command line's. */
__attribute__((noreturn)) static void usage_verror(const char *format, va_list arguments)
{
    if (speaks()) {
        fprintf(stderr, "%s: ", program);
        vfprintf(stderr, format, arguments);
        fprintf(stderr, " (see --help)\n");
    }
    stop_together(WB_EXIT_USAGE);
}

__attribute__((noreturn, format(printf, 1, 2))) static void usage_error(const char *format, ...)
{
    va_list arguments;
    va_start(arguments, format);
    usage_verror(format, arguments);
}

void wb_usage_error(const char *format, ...)
{
    va_list arguments;
    va_start(arguments, format);
    usage_verror(format, arguments);
}

/* ---- numbers and shapes -------------------------------------------------- */

/* Reads a count such as "1000", "64k", "10M", "1Gi" from text, stopping at
 * `stop` or the end. Returns 0 on success, -1 if it is not such a number, -2
 * if it is larger than max. */
static int parse_count(const char *text, char stop, long long max, long long *out)
{
    if (!isdigit((unsigned char)text[0]))
        return -1;
    errno = 0;
    char *end;
    unsigned long long value = strtoull(text, &end, 10);
    if (errno == ERANGE)
        return -2;
    size_t suffix_length = strchr(end, stop) ? (size_t)(strchr(end, stop) - end) : strlen(end);
    const char *suffixes[] = {"", "k", "M", "G", "Ki", "Mi", "Gi"};
    const unsigned long long scales[] = {1, 1000ull, 1000000ull, 1000000000ull,
                                         1ull << 10, 1ull << 20, 1ull << 30};
    for (int i = 0; i < 7; i++) {
        if (strlen(suffixes[i]) == suffix_length && strncmp(end, suffixes[i], suffix_length) == 0) {
            if (value > (unsigned long long)max / scales[i])
                return -2;
            *out = (long long)(value * scales[i]);
            return 0;
        }
    }
    return -1;
}

static long long parse_ranged(const char *flag, const char *text, long long min, long long max)
{
    char shown[ECHO_LIMIT + 4];
    long long value = 0;
    int status = parse_count(text, '\0', max, &value);
    if (status == -1 && text[0] == '-')
        status = -2; /* a negative number: out of range rather than malformed */
    if (status == -1)
        usage_error("invalid value '%s' for %s: expected a whole number such as 1000, 64k or 10M",
                    echo(text, shown, sizeof shown), flag);
    if (status == -2 || value < min)
        usage_error("%s value '%s' is out of range (%lld to %lld)", flag,
                    echo(text, shown, sizeof shown), min, max);
    return value;
}

const char *wb_size_flag(void)
{
    return size_flag;
}

void wb_set_shape(wb_shape *shape, long long first, long long second, long long third)
{
    if (shape->rank == 1) {
        shape->n = first;
    } else if (shape->rank == 2) {
        shape->width = first;
        shape->height = second;
    } else {
        shape->m = first;
        shape->n = second;
        shape->k = third;
    }
    describe_shape(shape);
}

static void describe_shape(wb_shape *shape)
{
    if (shape->rank == 1) {
        shape->elements = shape->n;
        snprintf(shape->text, sizeof shape->text, "%lld", shape->n);
    } else if (shape->rank == 2) {
        shape->elements = shape->width * shape->height;
        snprintf(shape->text, sizeof shape->text, "%lldx%lld", shape->width, shape->height);
    } else {
        shape->elements = shape->m * shape->n;
        snprintf(shape->text, sizeof shape->text, "%lldx%lldx%lld", shape->m, shape->n,
                 shape->k);
    }
}

static const char *shape_form(int rank)
{
    return rank == 1 ? "N, such as 1000, 64k or 10M"
         : rank == 2 ? "WIDTHxHEIGHT or N for NxN, such as 7680x4320"
                     : "MxNxK or N for NxNxN, such as 4096 or 1000x2000x500";
}

/* -n for a lesson of the given rank: N, WxH or MxNxK, each dimension within
 * [1, max_dimension], their product within max_elements. */
static wb_shape parse_shape(const wb_lesson *lesson, const char *flag, const char *text)
{
    char shown[ECHO_LIMIT + 4];
    long long dims[3] = {0, 0, 0};
    int count = 0;
    const char *part = text;
    for (;;) {
        if (count == 3)
            usage_error("invalid value '%s' for %s: expected %s", echo(text, shown, sizeof shown),
                        flag, shape_form(lesson->rank));
        int status = parse_count(part, 'x', lesson->max_dimension, &dims[count]);
        if (status == -1 && part[0] == '-')
            status = -2;
        if (status == -1)
            usage_error("invalid value '%s' for %s: expected %s", echo(text, shown, sizeof shown),
                        flag, shape_form(lesson->rank));
        if (status == -2 || dims[count] < 1)
            usage_error("%s value '%s' is out of range (each dimension 1 to %lld)", flag,
                        echo(text, shown, sizeof shown), lesson->max_dimension);
        count++;
        const char *cross = strchr(part, 'x');
        if (!cross)
            break;
        part = cross + 1;
    }
    if (count != 1 && count != lesson->rank)
        usage_error("invalid value '%s' for %s: expected %s", echo(text, shown, sizeof shown),
                    flag, shape_form(lesson->rank));
    for (int i = count; i < lesson->rank; i++)
        dims[i] = dims[0]; /* "4096" is 4096 x 4096 (x 4096) */

    wb_shape shape;
    memset(&shape, 0, sizeof shape);
    shape.rank = lesson->rank;
    if (lesson->rank == 1) {
        shape.n = dims[0];
    } else if (lesson->rank == 2) {
        shape.width = dims[0];
        shape.height = dims[1];
    } else {
        shape.m = dims[0];
        shape.n = dims[1];
        shape.k = dims[2];
    }
    /* each factor is at most max_dimension, so the check cannot overflow */
    long long product = lesson->rank == 2 ? dims[0] * dims[1]
                      : lesson->rank == 3 ? dims[0] * dims[1]
                                          : dims[0];
    if (product > lesson->max_elements)
        usage_error("%s value '%s' is out of range (at most %lld elements)", flag,
                    echo(text, shown, sizeof shown), lesson->max_elements);
    describe_shape(&shape);
    return shape;
}

/* ---- the command line -------------------------------------------------- */

#define DEFAULT_REPS 10
#define DEFAULT_WARMUP 2
#define MAX_REPS 100000
#define MAX_WARMUP 1000
#define MAX_VARIANTS 32

typedef struct {
    wb_shape shape;
    int reps;               /* timed repetitions after warm-up */
    int warmup;             /* untimed runs before the timed ones */
    int reps_given, warmup_given; /* 1: set on the command line, which wb_default_runs keeps */
    int selected[MAX_VARIANTS + 1]; /* --only: 1 for each variant to run; the last is device-copy */
    int only_given;
    int csv;                /* --csv: machine-readable rows instead of the table */
    int quiet_warnings;     /* --quiet-warnings: no launch warnings */
    int cold;               /* --cache cold (1) or warm (0) */
    unsigned long long seed;
} wb_options;

#define COPY_ROW_NAME "device-copy"

static void list_variant_names(const wb_lesson *lesson, char *room, size_t size)
{
    room[0] = '\0';
    for (int v = 0; v < lesson->variant_count; v++)
        snprintf(room + strlen(room), size - strlen(room), "%s%s", v ? ", " : "",
                 lesson->variants[v].name);
    if (lesson->copy_anchor)
        snprintf(room + strlen(room), size - strlen(room), ", %s", COPY_ROW_NAME);
}

/* --only naive,optimized: every name must be one of the lesson's, once. */
static void parse_only(const wb_lesson *lesson, const char *text, wb_options *options)
{
    char valid[512], shown[ECHO_LIMIT + 4];
    list_variant_names(lesson, valid, sizeof valid);
    memset(options->selected, 0, sizeof options->selected);
    options->only_given = 1;
    const char *name = text;
    for (;;) {
        size_t length = strcspn(name, ",");
        if (length == 0)
            usage_error("--only '%s' has an empty name: expected a list of %s",
                        echo(text, shown, sizeof shown), valid);
        int found = -1;
        for (int v = 0; v < lesson->variant_count; v++)
            if (strlen(lesson->variants[v].name) == length &&
                strncmp(lesson->variants[v].name, name, length) == 0)
                found = v;
        if (lesson->copy_anchor && length == strlen(COPY_ROW_NAME) &&
            strncmp(name, COPY_ROW_NAME, length) == 0)
            found = MAX_VARIANTS;
        if (found < 0)
            usage_error("unknown variant '%.*s' for --only: expected %s",
                        (int)(length < ECHO_LIMIT ? length : ECHO_LIMIT), name, valid);
        if (options->selected[found])
            usage_error("variant '%.*s' is named twice in --only", (int)length, name);
        options->selected[found] = 1;
        if (name[length] == '\0')
            break;
        name += length + 1;
    }
}

static const char *scope_name(int scope)
{
    switch (scope) {
    case WB_HOST: return "host";
    case WB_KERNEL: return "kernel";
    case WB_END_TO_END: return "end-to-end";
    case WB_TRANSFERS: return "transfers";
    default: return "library";
    }
}

static void print_help(const wb_lesson *lesson)
{
    printf("usage: ./%s [options]\n%s: every variant checked against the CPU and timed.\n\n",
           lesson->name, lesson->title);
    printf("  -n, --size N      %s (default %s): %s;\n"
           "                    k, M, G mean 10^3, 10^6, 10^9; Ki, Mi, Gi mean 2^10, 2^20, 2^30\n",
           lesson->size_meaning, lesson->default_size, shape_form(lesson->rank));
    printf("      --only LIST   variants to run, comma-separated (default all, see below)\n");
    printf("      --reps R      timed runs after the warm-up (default %d)\n", DEFAULT_REPS);
    printf("      --warmup W    untimed runs before the timed ones (default %d)\n",
           DEFAULT_WARMUP);
    printf("      --cache C     cold: flush the caches before every timed run (default);\n"
           "                    warm: leave them as the previous run left them\n");
    printf("      --seed S      seed of the random input (default 1)\n");
    printf("      --csv         one CSV row per measurement instead of the table\n");
    printf("      --quiet-warnings  no launch warnings (grids that under-fill the GPU, low\n"
           "                    occupancy, register spills) under the table, or on stderr with --csv\n");
    printf("  -h, --help        this help\n");
    for (int i = 0; i < lesson->option_count; i++) {
        const wb_option *option = &lesson->options[i];
        char left[40];
        snprintf(left, sizeof left, "%s %s", option->flag,
                 option->present ? "" : option->text ? "TEXT" : "N");
        if (i == 0)
            printf("\n%s options:\n", lesson->name);
        if (option->present)
            printf("      %-16s %s\n", left, option->help);
        else if (option->text && *option->text && **option->text)
            printf("      %-16s %s (default %s)\n", left, option->help, *option->text);
        else if (option->text)
            printf("      %-16s %s\n", left, option->help);
        else if (strstr(option->help, "(default")) /* the help says what the default means */
            printf("      %-16s %s (%lld to %lld)\n", left, option->help, option->min, option->max);
        else
            printf("      %-16s %s (default %lld, %lld to %lld)\n", left, option->help,
                   *option->value, option->min, option->max);
    }
    printf("\nvariants:\n");
    for (int v = 0; v < lesson->variant_count; v++) {
        const wb_variant *variant = &lesson->variants[v];
        char scopes[64] = "";
        for (int bit = WB_HOST; bit <= WB_TRANSFERS; bit <<= 1)
            if (variant->scope & bit)
                snprintf(scopes + strlen(scopes), sizeof scopes - strlen(scopes), "%s%s",
                         scopes[0] ? ", " : "", scope_name(bit));
        printf("  %-12s %s [%s]\n", variant->name, variant->description, scopes);
    }
    if (lesson->copy_anchor)
        printf("  %-12s cudaMemcpy device to device of the same bytes: what this GPU's\n"
               "  %-12s memory delivers, to compare each kernel with [library]\n",
               COPY_ROW_NAME, "");
    printf("\ncolumns of the table:\n"
           "  time covers  host: the CPU function; kernel: the launch alone, data on the GPU;\n"
           "               end-to-end: copies to the GPU, the launch, the copies back;\n"
           "               library: a library call on data on the GPU;\n"
           "               transfers: the variant's own copies and launches, end to end\n"
           "  median ms    median of the timed runs; GB/s and GFLOP/s follow from it and the\n"
           "               bytes and FLOP the lesson must move and do (the header says how many)\n"
           "  %% peak       a kernel's share of what the GPU's peaks allow at its FLOP per byte\n"
           "               (memory bandwidth%s)\n"
           "  %% copy       a kernel's GB/s as a share of the device-copy row's\n"
           "  speedup      the CPU row's median over this row's\n"
           "  check        ref (the CPU reference), PASS, FAIL, or skip with the reason\n"
           "  *            a noisy row: the runs' interquartile range is above 5%% of the median\n",
           !lesson->flops ? "" : lesson->arithmetic == WB_FP64 ? " and FP64 compute"
                                                                 : " and FP32 compute");
    printf("\nexit status: 0 every check passed, 1 a check failed, 2 usage error,\n"
           "3 no usable CUDA device (the CPU version still runs)\n");
}

static wb_options parse_options(const wb_lesson *lesson, int argc, char **argv)
{
    wb_options options;
    memset(&options, 0, sizeof options);
    options.shape = parse_shape(lesson, "-n", lesson->default_size);
    options.reps = DEFAULT_REPS;
    options.warmup = DEFAULT_WARMUP;
    for (int v = 0; v <= MAX_VARIANTS; v++)
        options.selected[v] = 1;
    options.cold = 1;
    options.seed = 1;

    char shown[ECHO_LIMIT + 4];
    for (int i = 1; i < argc; i++) {
        const char *flag = argv[i];
        if (strcmp(flag, "-h") == 0 || strcmp(flag, "--help") == 0) {
            print_help(lesson);
            stop_together(WB_EXIT_OK);
        }
        if (strcmp(flag, "--csv") == 0) {
            options.csv = 1;
            continue;
        }
        if (strcmp(flag, "--quiet-warnings") == 0) {
            options.quiet_warnings = 1;
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
        const wb_option *extra = NULL;
        int known = strcmp(name, "-n") == 0 || strcmp(name, "--size") == 0 ||
                    strcmp(name, "--reps") == 0 || strcmp(name, "--warmup") == 0 ||
                    strcmp(name, "--only") == 0 || strcmp(name, "--seed") == 0 ||
                    strcmp(name, "--cache") == 0;
        for (int o = 0; o < lesson->option_count; o++)
            if (strcmp(name, lesson->options[o].flag) == 0)
                extra = &lesson->options[o];
        if (!known && !extra)
            usage_error("unknown option '%s'", echo(flag, shown, sizeof shown));
        if (extra && extra->present) {
            if (value)
                usage_error("%s takes no value", name);
            *extra->present = 1;
            continue;
        }
        if (!value) {
            /* "--reps --csv": the next word is another flag, not the value */
            int next_is_flag = i + 1 < argc && argv[i + 1][0] == '-' &&
                               !isdigit((unsigned char)argv[i + 1][1]);
            if (i + 1 >= argc || next_is_flag)
                usage_error("%s needs a value", name);
            value = argv[++i];
        }
        if (extra && extra->text)
            *extra->text = value;
        else if (extra)
            *extra->value = parse_ranged(name, value, extra->min, extra->max);
        else if (strcmp(name, "-n") == 0 || strcmp(name, "--size") == 0) {
            options.shape = parse_shape(lesson, name, value);
            size_flag = strcmp(name, "-n") == 0 ? "-n" : "--size";
        } else if (strcmp(name, "--reps") == 0) {
            options.reps = (int)parse_ranged(name, value, 1, MAX_REPS);
            options.reps_given = 1;
        } else if (strcmp(name, "--warmup") == 0) {
            options.warmup = (int)parse_ranged(name, value, 0, MAX_WARMUP);
            options.warmup_given = 1;
        } else if (strcmp(name, "--seed") == 0) {
            options.seed = (unsigned long long)parse_ranged(name, value, 0, LLONG_MAX);
        } else if (strcmp(name, "--cache") == 0) {
            if (strcmp(value, "cold") != 0 && strcmp(value, "warm") != 0)
                usage_error("invalid value '%s' for --cache: expected cold or warm",
                            echo(value, shown, sizeof shown));
            options.cold = strcmp(value, "cold") == 0;
        } else
            parse_only(lesson, value, &options);
    }
    return options;
}

/* The run's options while the lesson's input_shape hook runs, for
 * wb_default_runs; NULL at any other time. */
static wb_options *options_being_read;

void wb_default_runs(int reps, int warmup)
{
    if (!options_being_read)
        return;
    if (!options_being_read->reps_given)
        options_being_read->reps = reps;
    if (!options_being_read->warmup_given)
        options_being_read->warmup = warmup;
}

void *wb_alloc_host(size_t bytes, const char *what)
{
    void *memory = malloc(bytes ? bytes : 1);
    if (!memory) {
        fprintf(stderr, "%s%s: cannot allocate %zu bytes of host memory for %s\n", rank_prefix(),
                program, bytes, what);
        stop_alone(WB_EXIT_CHECK_FAILED);
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

/* the top 24 bits give a float in [0, 1) with every value exact */
static float unit_float(uint64_t stream, long long i)
{
    return (float)(splitmix64(stream + (uint64_t)i) >> 40) / 16777216.0f;
}

void wb_fill_random(float *data, long long n, float lo, float hi, unsigned long long seed)
{
    uint64_t stream = splitmix64(seed);
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < n; i++)
        data[i] = lo + (hi - lo) * unit_float(stream, i);
}

static size_t type_size(wb_type type)
{
    switch (type) {
    case WB_FLOAT: return sizeof(float);
    case WB_DOUBLE: return sizeof(double);
    case WB_INT: return sizeof(int);
    case WB_UINT: return sizeof(unsigned int);
    default: return sizeof(unsigned char);
    }
}

static void fill_input(const wb_buffer *buffer, void *host, long long count,
                       const wb_shape *shape, unsigned long long seed)
{
    if (buffer->fill) {
        buffer->fill(host, count, shape, seed);
        return;
    }
    uint64_t stream = splitmix64(seed);
    double low = buffer->low, high = buffer->high;
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < count; i++) {
        uint64_t bits = splitmix64(stream + (uint64_t)i);
        switch (buffer->type) {
        case WB_FLOAT:
            ((float *)host)[i] = (float)low + (float)(high - low) * unit_float(stream, i);
            break;
        case WB_DOUBLE: /* the top 53 bits: every double in [0, 1) of that grid */
            ((double *)host)[i] = low + (high - low) * (double)(bits >> 11) / 9007199254740992.0;
            break;
        default: { /* whole numbers low..high, each equally likely */
            long long span = (long long)high - (long long)low + 1;
            long long value = (long long)low + (long long)(bits % (uint64_t)span);
            if (buffer->type == WB_INT)
                ((int *)host)[i] = (int)value;
            else if (buffer->type == WB_UINT)
                ((unsigned int *)host)[i] = (unsigned int)value;
            else
                ((unsigned char *)host)[i] = (unsigned char)value;
        }
        }
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

/* make_target: what the hints say to build instead ("make BACKEND=emu
 * lesson01"): the program's own make target. */
static int usable_device(wb_device *device, const char *make_target)
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
                 "make BACKEND=emu %s", emulator_hint, make_target);
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
                 emulator_hint, make_target);
        cudaGetLastError(); /* clear it, so later calls do not report it again */
        return 0;
    }
    /* the device cudaSetDevice chose (a rank's own GPU, lesson 09), else 0 */
    int current = 0;
    CUDA_CHECK(cudaGetDevice(&current));
    CUDA_CHECK(cudaGetDeviceProperties(&device->prop, current));
#ifndef CUDA_EMULATION
    /* (The emulator runs every kernel it was built with: nothing to probe, and
     * the probe would be a kernel of the lesson in emucc --profile's tables.) */
    wb_probe_kernel<<<1, 1>>>();
    status = cudaGetLastError();
    if (status == cudaSuccess)
        status = cudaDeviceSynchronize();
#endif
    int capability = 10 * device->prop.major + device->prop.minor;
    if (capability < OLDEST_CUDA13_CAPABILITY) {
        snprintf(why, room, "this GPU has compute capability %d.%d, older than CUDA 13 supports "
                 "(7.5 and newer): use the CPU emulator, make BACKEND=emu %s",
                 device->prop.major, device->prop.minor, make_target);
        return 0;
    }
    if (status == cudaErrorNoKernelImageForDevice || status == cudaErrorUnsupportedPtxVersion) {
        snprintf(why, room, "this build has no kernel image for the GPU's compute capability "
                 "%d.%d: rebuild with make CUDA_ARCH=%d%d %s",
                 device->prop.major, device->prop.minor, device->prop.major,
                 device->prop.minor, make_target);
        return 0;
    }
    if (status != cudaSuccess) {
        snprintf(why, room, "the GPU cannot run kernels: %s: %s", cudaGetErrorName(status),
                 cudaGetErrorString(status));
        return 0;
    }
    return 1;
}

static wb_device describe_device(const char *program_name, const char *make_target)
{
    wb_device described;
    wb_device *device = &described;
    memset(device, 0, sizeof *device);
    program = program_name;
#ifdef CUDA_EMULATION
    device->emulated = 1;
#endif
    device->gpu_available = usable_device(device, make_target);
    if (!device->gpu_available)
        return described;
    int current = 0;
    CUDA_CHECK(cudaGetDevice(&current));
    if (cudaDeviceGetAttribute(&device->fp32_per_fp64, cudaDevAttrSingleToDoublePrecisionPerfRatio,
                               current) != cudaSuccess) {
        cudaGetLastError(); /* a device that does not report it: not an error */
        device->fp32_per_fp64 = 0;
    }
    if (device->emulated)
        return described; /* an emulated device has no meaningful peak */
    /* CUDA 13's cudaDeviceProp has no clock fields; the attributes still do. */
    int core_khz = 0, memory_khz = 0, bus_bits = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&core_khz, cudaDevAttrClockRate, current));
    CUDA_CHECK(cudaDeviceGetAttribute(&memory_khz, cudaDevAttrMemoryClockRate, current));
    CUDA_CHECK(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, current));
    /* double data rate: two transfers per memory clock, bus_bits / 8 bytes each */
    device->peak_gbps = 2.0 * memory_khz * 1e3 * (bus_bits / 8) / 1e9;
    /* a fused multiply-add counts as two floating-point operations */
    device->peak_gflops = (double)device->prop.multiProcessorCount *
                          fp32_lanes_per_sm(device->prop.major, device->prop.minor) * 2.0 *
                          core_khz * 1e3 / 1e9;
    return described;
}

wb_device wb_describe_device(const char *program_name)
{
    return describe_device(program_name, program_name);
}

/* ---- memory and the header ------------------------------------------------ */

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

static double host_available_bytes(void)
{
    FILE *meminfo = fopen("/proc/meminfo", "r");
    char line[256];
    unsigned long long kib = 0;
    while (meminfo && fgets(line, sizeof line, meminfo))
        if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1)
            break;
    if (meminfo)
        fclose(meminfo);
    /* a 32-bit program (Raspberry Pi OS's 32-bit system) addresses 4 GB at
     * most, however much memory the machine has */
    return fmin(1024.0 * (double)kib, (double)SIZE_MAX);
}

/* In a team, needed and available are the most any process needs and the
 * least any has, so that every process decides alike. */
static void refuse_if_too_big(const char *what, double needed, double available,
                              const wb_shape *shape)
{
    if (needed <= available)
        return;
    char need_text[32], have_text[32];
    if (speaks())
        fprintf(stderr, "%s: size %s needs %s of %s memory, but only %s is available\n", program,
                shape->text, human_bytes(needed, need_text, sizeof need_text), what,
                human_bytes(available, have_text, sizeof have_text));
    stop_together(WB_EXIT_USAGE);
}

/* The CPU caches, flushed by writing a buffer of twice the last level's size:
 * the CPU rows start as cold as the GPU rows, whose L2 is flushed likewise.
 * Server processors report their whole L3 (256 MB on some), but a core only
 * caches in the L3 of its own core complex, 32 MB at most today: 64 MB of
 * writes evict that, where 512 MB would add seconds to every run. */
#define FALLBACK_LAST_LEVEL_CACHE (32u << 20)
#define LARGEST_CACHE_TO_FLUSH (32u << 20)
static size_t cpu_cache_bytes(void)
{
    long bytes = -1;
#ifdef _SC_LEVEL3_CACHE_SIZE
    bytes = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (bytes <= 0)
        bytes = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
    if (bytes <= 0)
        return FALLBACK_LAST_LEVEL_CACHE;
    return (size_t)bytes < LARGEST_CACHE_TO_FLUSH ? (size_t)bytes : LARGEST_CACHE_TO_FLUSH;
}

/* What one output buffer's check found, for the report. */
typedef struct {
    wb_check_result result;
    const wb_buffer *buffer;
    long long row_length; /* 0: report a flat index */
    int launches;         /* a failure found after this many calls (0: the first call's check) */
} wb_buffer_check;

typedef struct {
    const wb_lesson *lesson;
    wb_options options;
    wb_device device;
    wb_data data;               /* the buffers as variants see them */
    void *reference[WB_MAX_BUFFERS]; /* the CPU's outputs */
    void *input[WB_MAX_BUFFERS];     /* inputs, and the starting values of in-out buffers */
    void *result[WB_MAX_BUFFERS];    /* outputs of the variant being checked */
    /* page-locked twins of input and result, for variants with pinned_host */
    void *pinned_input[WB_MAX_BUFFERS], *pinned_result[WB_MAX_BUFFERS];
    long long count[WB_MAX_BUFFERS];
    size_t device_bytes[WB_MAX_BUFFERS]; /* of device[]: this process's part of a split buffer */
    double bytes, flops;
    double cpu_median_ms;       /* 0 until the CPU version was timed */
    double copy_gbps;           /* 0 until the device-copy row was timed */
    int checks, failed_checks, skipped;
    char checked[512];          /* names of the variants checked, for the summary */
    const char *last_checked;
    void *cpu_flush, *gpu_flush, *copy_scratch;
    size_t cpu_flush_bytes, gpu_flush_bytes;
    /* each variant's kernel median and end-to-end median (its end-to-end or
     * transfers row), 0 where it has none: the per-item summary's */
    double kernel_ms[MAX_VARIANTS], whole_ms[MAX_VARIANTS];
    /* the host rows timed fewer times than --reps asked (LONG_HOST_RUN_MS) */
    const char *timed_once[MAX_VARIANTS];
    int timed_once_count;
    /* the first check of each variant that passed with a bound as large as
     * the values it bounds, for a note under the table */
    int unchecked_count;
    struct {
        const wb_variant *variant;
        int scope;
        wb_buffer_check check;
    } unchecked[MAX_VARIANTS];
} wb_run;

/* Host copies of a buffer: an input once; an output as the reference and
 * the result; an in-out buffer also keeps its starting values; scratch none,
 * or one for the CPU variant. */
static int host_copies(const wb_buffer *buffer)
{
    wb_role role = buffer->role;
    if (role == WB_SCRATCH)
        return buffer->host_too ? 1 : 0;
    return role == WB_INPUT ? 1 : role == WB_OUTPUT ? 2 : 3;
}

/* Outputs and in-out buffers: the ones a variant's check compares. */
static int is_checked(wb_role role)
{
    return role == WB_OUTPUT || role == WB_INOUT;
}

/* Inputs and in-out buffers: the ones filled and copied to the device. */
static int is_filled(wb_role role)
{
    return role == WB_INPUT || role == WB_INOUT;
}

/* Bytes of the device-copy row's scratch buffer: the bytes the lesson moves,
 * or its copy_bytes when it names them. A double, as check_memory counts. */
static double copy_row_bytes(const wb_run *run)
{
    if (!run->lesson->copy_anchor)
        return 0;
    double bytes = run->lesson->copy_bytes ? run->lesson->copy_bytes(&run->options.shape)
                                           : run->bytes;
    return 2 * floor(bytes / 2);
}

static const char *backend_name(const wb_device *device)
{
    return device->emulated ? "emu" : "cuda";
}

/* Every column of the CSV, in order: the one place they are named. The
 * scripts under common/ and plots/ read columns by these names. */
static const char *const csv_columns[] = {
    "lesson", "variant", "scope", "size", "elements", "bytes", "flops", "reps",
    "median_ms", "min_ms", "spread_pct", "gbps", "gflops", "peak_gbps", "peak_gflops",
    "pct_peak", "pct_copy", "speedup", "check", "max_error", "device", "backend", "driver",
    "runtime", "cpu_threads", "cache",
};

/* Above this interquartile range (as % of the median) a row is marked noisy. */
#define NOISY_SPREAD_PCT 5.0
/* A host run longer than this is timed once, with no more warm-up: ten runs
 * of SGEMM's CPU loop at 8192^3 would take minutes, and a run that long
 * varies little from one to the next. */
#define LONG_HOST_RUN_MS 2000.0

/* The table's columns, at most 100 characters wide with the check. */
#define TABLE_ROW "%-11s %-11s %10s %8s %8s %6s %6s %8s"

/* The compute peak in GFLOP/s of this lesson's arithmetic on this device: the
 * FP32 peak, or for an FP64 lesson that over the device's FP32-to-FP64 ratio;
 * 0 when unknown. */
static double compute_peak_gflops(const wb_run *run)
{
    const wb_device *device = &run->device;
    if (run->lesson->arithmetic != WB_FP64)
        return device->peak_gflops;
    return device->fp32_per_fp64 > 0 ? device->peak_gflops / device->fp32_per_fp64 : 0.0;
}

static void print_header(const wb_run *run)
{
    const wb_device *device = &run->device;
    const wb_options *options = &run->options;
    char text[32], host_text[32], device_text[32];
    printf("%s: %s\n", run->lesson->name, run->lesson->title);
    if (!device->gpu_available)
        printf("device   none usable: %s\n", device->why_unavailable);
    else if (device->emulated) /* the name says which GPU is modelled, on how many CPU threads */
        printf("device   %s: compute capability %d.%d, %d SMs,\n"
               "         backend emu: GPU code runs on the CPU, so its times are CPU emulation "
               "times, not GPU times\n", device->prop.name, device->prop.major, device->prop.minor,
               device->prop.multiProcessorCount);
    else {
        /* the compute peak this lesson's rows are held to */
        char compute[64];
        if (run->lesson->arithmetic != WB_FP64)
            snprintf(compute, sizeof compute, "%.1f TFLOP/s FP32", device->peak_gflops / 1e3);
        else if (device->fp32_per_fp64 > 0)
            snprintf(compute, sizeof compute, "%.1f TFLOP/s FP64 (FP32 / %d)",
                     compute_peak_gflops(run) / 1e3, device->fp32_per_fp64);
        else
            snprintf(compute, sizeof compute, "FP64 rate not reported");
        printf("device   %s, compute capability %d.%d, %d SMs, %s\n"
               "         peak %.0f GB/s memory bandwidth, %s\n"
               "         backend cuda, driver %d.%d, runtime %d.%d\n",
               device->prop.name, device->prop.major, device->prop.minor,
               device->prop.multiProcessorCount,
               human_bytes((double)device->prop.totalGlobalMem, text, sizeof text),
               device->peak_gbps, compute, device->driver_version / 1000,
               device->driver_version % 1000 / 10, device->runtime_version / 1000,
               device->runtime_version % 1000 / 10);
    }
    printf("host     CPU version on %d OpenMP thread%s\n", omp_get_max_threads(),
           omp_get_max_threads() == 1 ? "" : "s");
    if (in_team && team.about)
        printf("ranks    %s\n", team.about);
    size_t host_bytes = 0, device_bytes = 0;
    for (int b = 0; b < run->lesson->buffer_count; b++) {
        device_bytes += run->device_bytes[b];
        host_bytes += run->data.bytes[b] * host_copies(&run->lesson->buffers[b]);
    }
    printf("problem  %s = %s; moves %s, %.3g FLOP\n", run->lesson->size_meaning,
           options->shape.text, human_bytes(run->bytes, text, sizeof text), run->flops);
    printf("memory   %s on the host, %s on the device%s\n",
           human_bytes((double)host_bytes, host_text, sizeof host_text),
           human_bytes((double)device_bytes, device_text, sizeof device_text),
           team.size > 1 ? ", on each rank" : "");
    printf("timing   median of %d run%s after %d warm-up run%s; %s\n\n", options->reps,
           options->reps == 1 ? "" : "s", options->warmup, options->warmup == 1 ? "" : "s",
           !options->cold ? "caches warm: each run finds what the previous one left"
           : device->emulated || !device->gpu_available
               ? "every row cold: CPU caches flushed before each run"
               : "every row cold: GPU L2 and CPU caches flushed before each run");
    printf(TABLE_ROW "  %s\n", "variant", "time covers", "median ms", "GB/s", "GFLOP/s",
           "% peak", "% copy", "speedup", "check");
}

/* Host and device memory the run will allocate, refused before allocating
 * anything if it does not fit. */
static void check_memory(const wb_run *run)
{
    /* counted in double from the element counts: in size_t, the bytes of a
     * size too big for a 32-bit program would wrap around to a small number */
    double host_needed = 0, device_needed = copy_row_bytes(run);
    for (int b = 0; b < run->lesson->buffer_count; b++) {
        const wb_buffer *buffer = &run->lesson->buffers[b];
        double bytes = (double)run->count[b] * type_size(buffer->type);
        host_needed += bytes * host_copies(buffer);
        device_needed += buffer->part_count
                             ? (double)buffer->part_count(&run->data.shape) * type_size(buffer->type)
                             : bytes;
    }
    if (run->device.emulated)
        host_needed += device_needed; /* the emulated device's memory is host memory */
    double host_available = host_available_bytes(), device_available = INFINITY;
    if (run->device.gpu_available && !run->device.emulated) {
        size_t free_bytes = 0, total_bytes = 0;
        CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
        device_available = (double)free_bytes;
        /* the cold timing also needs a buffer twice the L2's size to flush it with */
        device_needed += 2.0 * run->device.prop.l2CacheSize;
    } else {
        device_needed = 0;
    }
    if (in_team) { /* every process decides alike: the most needed against the least there */
        host_needed = team.max(host_needed);
        host_available = -team.max(-host_available);
        device_needed = team.max(device_needed);
        device_available = -team.max(-device_available);
    }
    refuse_if_too_big("host", host_needed, host_available, &run->options.shape);
    refuse_if_too_big("device", device_needed, device_available, &run->options.shape);
}

/* ---- timing ------------------------------------------------------------- */

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

typedef struct {
    double median_ms, min_ms;
    double spread_pct; /* interquartile range as % of the median */
    int reps;
} wb_timing;

static wb_timing summarize(double *ms, int reps)
{
    qsort(ms, reps, sizeof *ms, compare_doubles);
    wb_timing timing;
    timing.reps = reps;
    timing.min_ms = ms[0];
    timing.median_ms = quantile(ms, reps, 0.5);
    timing.spread_pct = timing.median_ms > 0
        ? 100.0 * (quantile(ms, reps, 0.75) - quantile(ms, reps, 0.25)) / timing.median_ms
        : 0.0;
    return timing;
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* The caches are emptied by reading a buffer twice their size, not by writing
 * it: a write leaves the cache full of dirty lines, and the timed run that
 * evicts them pays for writing them back (an H100's 50 MB of L2 at 2,988
 * GB/s: some 17 us, a third of a 44 us kernel). The buffer is written once,
 * when it is made, so that its pages are real memory (a buffer never written
 * is the kernel's one page of zeros, which every read hits in the cache).
 * Each sum is kept only if it comes out at a value it never does (every byte
 * of the buffer is 1), so the reads cannot be left out. */
__global__ void read_to_flush(const uint4 *buffer, size_t count, unsigned int *never_written)
{
    unsigned int sum = 0;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        uint4 words = buffer[i];
        sum ^= words.x ^ words.y ^ words.z ^ words.w;
    }
    if (sum == 0xFFFFFFFFu)
        *never_written = sum;
}

static volatile unsigned long long cpu_flush_sum;

/* Before each timed run under --cache cold: the CPU's caches are flushed for
 * every row (the emulated device's memory is host memory too), and a real
 * GPU's L2 for the GPU rows, which are then waited for, so that the timed run
 * starts on an idle GPU whatever streams it uses. */
static void flush_caches(wb_run *run, int gpu_row)
{
    if (!run->options.cold)
        return;
    if (!run->cpu_flush) {
        run->cpu_flush_bytes = 2 * cpu_cache_bytes();
        run->cpu_flush = wb_alloc_host(run->cpu_flush_bytes, "flushing the CPU caches");
        memset(run->cpu_flush, 0x01, run->cpu_flush_bytes);
    }
    const unsigned long long *words = (const unsigned long long *)run->cpu_flush;
    unsigned long long sum = 0;
    for (size_t i = 0; i < run->cpu_flush_bytes / sizeof *words; i++)
        sum += words[i];
    cpu_flush_sum = sum;
    if (!gpu_row || run->device.emulated || run->device.prop.l2CacheSize <= 0)
        return;
    /* the buffer, and 16 bytes after it for the sum that is never written */
    size_t flush_words = 2 * (size_t)run->device.prop.l2CacheSize / sizeof(uint4);
    if (!run->gpu_flush) {
        run->gpu_flush_bytes = (flush_words + 1) * sizeof(uint4);
        CUDA_CHECK(cudaMalloc(&run->gpu_flush, run->gpu_flush_bytes));
        CUDA_CHECK(cudaMemset(run->gpu_flush, 0x01, run->gpu_flush_bytes));
    }
    const uint4 *buffer = (const uint4 *)run->gpu_flush;
    read_to_flush<<<4 * run->device.prop.multiProcessorCount, 256>>>(
        buffer, flush_words, (unsigned int *)(buffer + flush_words));
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
}

typedef void (*timed_step)(wb_run *run, const wb_variant *variant, int scope);

/* Runs step warmup times untimed, then reps times timed: the host clock for
 * host rows, CUDA events around the GPU rows. In a team, a host row runs on
 * process 0 alone while the others wait (their times are left at 0), and
 * each timed run of a GPU row starts on every process at once and lasts as
 * long as the slowest process took. */
static wb_timing time_step(wb_run *run, timed_step step, const wb_variant *variant, int scope)
{
    int gpu_row = scope != WB_HOST;
    double *ms = (double *)wb_alloc_host(run->options.reps * sizeof *ms, "the timings");
    if (!gpu_row && !speaks()) {
        memset(ms, 0, run->options.reps * sizeof *ms);
        team.barrier();
        wb_timing timing = summarize(ms, run->options.reps);
        free(ms);
        return timing;
    }
    int long_host_run = 0;
    for (int i = 0; i < run->options.warmup && !long_host_run; i++) {
        double begin = now_ms();
        step(run, variant, scope);
        long_host_run = !gpu_row && now_ms() - begin > LONG_HOST_RUN_MS;
    }
    if (gpu_row)
        CUDA_CHECK(cudaDeviceSynchronize());
    cudaEvent_t start, stop;
    if (gpu_row) {
        CUDA_CHECK(cudaEventCreate(&start));
        CUDA_CHECK(cudaEventCreate(&stop));
    }
    int timed = 0;
    for (int i = 0; i < run->options.reps; i++, timed++) {
        if (!gpu_row && long_host_run && i > 0)
            break;
        flush_caches(run, gpu_row);
        if (!gpu_row) {
            double begin = now_ms();
            step(run, variant, scope);
            ms[i] = now_ms() - begin;
            long_host_run = ms[i] > LONG_HOST_RUN_MS;
            continue;
        }
        if (in_team)
            team.barrier();
        CUDA_CHECK(cudaEventRecord(start));
        step(run, variant, scope);
        CUDA_CHECK(cudaEventRecord(stop));
        CUDA_CHECK(cudaEventSynchronize(stop));
        float elapsed = 0;
        CUDA_CHECK(cudaEventElapsedTime(&elapsed, start, stop));
        ms[i] = in_team ? team.max(elapsed) : elapsed;
    }
    if (gpu_row) {
        CUDA_CHECK(cudaEventDestroy(start));
        CUDA_CHECK(cudaEventDestroy(stop));
    } else if (in_team) {
        team.barrier(); /* the others waited there for process 0's host row */
    }
    if (timed < run->options.reps && variant && run->timed_once_count < MAX_VARIANTS)
        run->timed_once[run->timed_once_count++] = variant->name;
    wb_timing timing = summarize(ms, timed);
    free(ms);
    return timing;
}

/* A buffer split over a team's processes is the lesson's to move: its part
 * of host[] to device[], and every part back into host[]. */
static void copy_inputs_to_device(wb_run *run)
{
    for (int b = 0; b < run->lesson->buffer_count; b++) {
        const wb_buffer *buffer = &run->lesson->buffers[b];
        if (!is_filled(buffer->role))
            continue;
        if (buffer->to_part)
            buffer->to_part(&run->data, b);
        else
            CUDA_CHECK(cudaMemcpy(run->data.device[b], run->input[b], run->data.bytes[b],
                                  cudaMemcpyHostToDevice));
    }
}

static void copy_outputs_to_host(wb_run *run)
{
    for (int b = 0; b < run->lesson->buffer_count; b++) {
        const wb_buffer *buffer = &run->lesson->buffers[b];
        if (!is_checked(buffer->role))
            continue;
        if (buffer->from_parts)
            buffer->from_parts(&run->data, b);
        else
            CUDA_CHECK(cudaMemcpy(run->data.host[b], run->data.device[b], run->data.bytes[b],
                                  cudaMemcpyDeviceToHost));
    }
}

/* One call of a variant, with the copies its scope includes. */
static void run_variant_once(wb_run *run, const wb_variant *variant, int scope)
{
    run->data.scope = scope;
    if (scope == WB_END_TO_END)
        copy_inputs_to_device(run);
    variant->run(&run->data);
    if (scope == WB_END_TO_END)
        copy_outputs_to_host(run);
}

/* The device-copy row: the same bytes the lesson moves, half of them read
 * from one half of a scratch buffer, half written to the other. */
static void run_device_copy(wb_run *run, const wb_variant *unused, int scope)
{
    size_t half = (size_t)copy_row_bytes(run) / 2;
    char *scratch = (char *)run->copy_scratch;
    CUDA_CHECK(cudaMemcpy(scratch, scratch + half, half, cudaMemcpyDeviceToDevice));
}

/* ---- checking ----------------------------------------------------------- */

static double element(const void *data, wb_type type, long long i)
{
    switch (type) {
    case WB_FLOAT: return ((const float *)data)[i];
    case WB_DOUBLE: return ((const double *)data)[i];
    case WB_INT: return ((const int *)data)[i];
    case WB_UINT: return ((const unsigned int *)data)[i];
    default: return ((const unsigned char *)data)[i];
    }
}

/* The tolerance rule of workbook.h, for n values of any type. */
static wb_check_result compare(const void *expected, const void *actual, wb_type type,
                               long long n, double atol, double rtol)
{
    wb_check_result result;
    memset(&result, 0, sizeof result);
    result.passed = 1;
    result.first_bad = -1;
    int floating = type == WB_FLOAT || type == WB_DOUBLE, located = 0;
    double largest_finite = 0.0;
    for (long long i = 0; i < n; i++) {
        double want = element(expected, type, i), got = element(actual, type, i);
        int match;
        if (isnan(want))
            match = isnan(got);
        else if (isinf(want))
            match = got == want;
        else if (!isfinite(got)) {
            match = 0; /* NaN or Inf where the reference is finite: an unbounded error */
            result.non_finite++;
            result.max_error = INFINITY;
        } else {
            double error = fabs(got - want), bound = atol + rtol * fabs(want);
            if (error > largest_finite || !located) {
                located = 1;
                largest_finite = error;
                result.max_error = fmax(result.max_error, error);
                result.max_error_at = i;
                result.expected_there = want;
                result.actual_there = got;
            }
            if (floating && want != 0.0 &&
                (result.bound_ratio == 0.0 || bound / fabs(want) < result.bound_ratio))
                result.bound_ratio = bound / fabs(want);
            match = error <= bound;
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

wb_check_result wb_check(const float *expected, const float *actual, long long n,
                         double atol, double rtol)
{
    return compare(expected, actual, WB_FLOAT, n, atol, rtol);
}

/* make exerciseNN and make solutionNN run the same checker, named after the
 * exercise; the Makefile says which target ran it in WORKBOOK_MAKE_TARGET, so
 * that a hint to rebuild ("make BACKEND=emu solution08") names the same
 * target, not the student's exercise. Run by hand: the checker's name. */
wb_device wb_checker_device(const char *name)
{
    /* a line at a time even into a pipe (make exerciseNN keeps a log): the
     * verdicts stay in order with what CUDA and the emulator say on stderr */
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *make_target = getenv("WORKBOOK_MAKE_TARGET");
    wb_device device = describe_device(name, make_target && make_target[0] ? make_target : name);
    if (!device.gpu_available) {
        fprintf(stderr, "%s: cannot check: %s\n", name, device.why_unavailable);
        exit(WB_EXIT_NO_DEVICE);
    }
    return device;
}

size_t wb_checker_margin(size_t bytes)
{
    const char *exact = getenv("WORKBOOK_EXACT_BUFFERS");
    return exact && strcmp(exact, "1") == 0 ? 0 : bytes;
}

int wb_report_not_implemented(const char *name, const char *nothing_done, const char *exercise_file)
{
    printf("%s: not implemented yet: %s (fill in the TODOs in %s)\n", name, nothing_done,
           exercise_file);
    return WB_EXIT_CHECK_FAILED;
}

int wb_report_verdict(const char *name, int failures, int count, const char *cases,
                      const char *pass_note)
{
    if (failures > 0) {
        printf("%s: FAIL (%d of %d %s wrong)\n", name, failures, count, cases);
        return WB_EXIT_CHECK_FAILED;
    }
    printf("%s: PASS (all %d %s%s)\n", name, count, cases, pass_note ? pass_note : "");
    return WB_EXIT_OK;
}

int wb_report_exercise(const wb_exercise_report *report)
{
    printf("%s: %s\n", report->name, report->title);
    /* a skeleton left as it is fails every case: one line says so, not a page of FAILs */
    if (report->nothing_done)
        return wb_report_not_implemented(report->name, report->nothing_done, report->exercise_file);
    for (int c = 0; c < report->count; c++)
        printf("%s\n", report->verdicts[c]);
    return wb_report_verdict(report->name, report->failures, report->count, report->cases, NULL);
}

double wb_sum_tolerance(double depth, double sum_abs)
{
    const double unit_roundoff = 1.0 / 16777216.0; /* 2^-24, float's */
    return depth * unit_roundoff * sum_abs;
}

double wb_largest_magnitude(const float *values, long long count)
{
    /* The largest of floats is a float, so float arithmetic gives it exactly.
     * (The same loop in double, fmax(largest, fabs((double)x)), makes GCC 12
     * for 64-bit Arm crash at -O3: Raspberry Pi OS's compiler.) */
    float largest = 0.0f;
    for (long long i = 0; i < count; i++)
        largest = fmaxf(largest, fabsf(values[i]));
    return largest;
}

static long long row_length_of(const wb_buffer *buffer, const wb_shape *shape)
{
    if (buffer->row_length)
        return buffer->row_length(shape);
    return shape->rank == 2 ? shape->width : shape->rank == 3 ? shape->n : 0;
}

/* Checks every output of the variant against the reference: the first
 * failing buffer, or the one with the largest error when all pass. */
static wb_buffer_check check_outputs(wb_run *run, const wb_variant *variant)
{
    wb_buffer_check worst;
    memset(&worst, 0, sizeof worst);
    worst.result.passed = 1;
    worst.result.first_bad = -1;
    for (int b = 0; b < run->lesson->buffer_count; b++) {
        const wb_buffer *buffer = &run->lesson->buffers[b];
        if (!is_checked(buffer->role))
            continue;
        const wb_tolerance *tolerance =
            variant->tolerance.atol || variant->tolerance.rtol || variant->tolerance.levels ||
            variant->tolerance.widen ? &variant->tolerance : &buffer->tolerance;
        int floating = buffer->type == WB_FLOAT || buffer->type == WB_DOUBLE;
        double atol = tolerance->atol, rtol = tolerance->rtol;
        if (floating && atol == 0 && rtol == 0 && !tolerance->widen) {
            atol = WB_ATOL;
            rtol = WB_RTOL;
        }
        if (!floating)
            atol = (double)tolerance->levels, rtol = 0;
        if (tolerance->widen)
            tolerance->widen(&run->data, &atol, &rtol);
        wb_check_result result = compare(run->reference[b], run->result[b], buffer->type,
                                         run->count[b], atol, rtol);
        int worse = worst.buffer == NULL || (!result.passed && worst.result.passed) ||
                    (result.passed == worst.result.passed &&
                     result.max_error > worst.result.max_error);
        if (worse) {
            worst.result = result;
            worst.buffer = buffer;
            worst.row_length = row_length_of(buffer, &run->options.shape);
        }
        if (!result.passed)
            break;
    }
    return worst;
}

static void poison(void *host, size_t bytes, void *device, size_t device_bytes)
{
    memset(host, 0xFF, bytes); /* all bits set: NaN as a float, -1 or 255 as an integer */
    if (device)
        CUDA_CHECK(cudaMemset(device, 0xFF, device_bytes));
}

/* Outputs poisoned, in-out buffers reset to their input, inputs on the
 * device; then one call of the variant, its results in run->result. */
static wb_buffer_check run_and_check(wb_run *run, const wb_variant *variant, int scope)
{
    int gpu = scope != WB_HOST;
    for (int b = 0; b < run->lesson->buffer_count; b++) {
        wb_role role = run->lesson->buffers[b].role;
        if (role == WB_SCRATCH && gpu)
            CUDA_CHECK(cudaMemset(run->data.device[b], 0xFF, run->device_bytes[b]));
        if (!is_checked(role))
            continue;
        run->data.host[b] = run->result[b];
        poison(run->result[b], run->data.bytes[b], gpu ? run->data.device[b] : NULL,
               run->device_bytes[b]);
        if (role == WB_INOUT && !gpu)
            memcpy(run->result[b], run->input[b], run->data.bytes[b]);
    }
    if (scope == WB_TRANSFERS) {
        run_variant_once(run, variant, WB_TRANSFERS);
        CUDA_CHECK(cudaDeviceSynchronize());
        if (variant->outputs_on_device)
            copy_outputs_to_host(run);
    } else if (gpu) {
        copy_inputs_to_device(run);
        run_variant_once(run, variant, WB_KERNEL);
        CUDA_CHECK(cudaDeviceSynchronize());
        copy_outputs_to_host(run);
    } else {
        run_variant_once(run, variant, WB_HOST);
    }
    return check_outputs(run, variant);
}

/* ---- reporting ----------------------------------------------------------- */

static void csv_field_number(double value, int known)
{
    if (known)
        printf("%.6g,", value);
    else
        printf(",");
}

/* Every timed row's median, for wb_measured_ms: variants, scopes and the
 * device-copy row. */
static struct {
    int count;
    struct {
        const char *variant;
        int scope;
        double median_ms;
    } rows[MAX_VARIANTS * 5 + 1];
} measured;

double wb_measured_ms(const char *variant, int scope)
{
    for (int r = 0; r < measured.count; r++)
        if (measured.rows[r].scope == scope && strcmp(measured.rows[r].variant, variant) == 0)
            return measured.rows[r].median_ms;
    return -1.0;
}

/* Notes go where the launch warnings go: under the table, or to stderr with
 * --csv; the first one under the table after a blank line. */
static struct {
    int to_stderr, printed;
    const char *lesson_name; /* the CSV rows' lesson column, without the part */
} notes;

void wb_note(const char *format, ...)
{
    if (!speaks())
        return;
    FILE *out = notes.to_stderr ? stderr : stdout;
    if (!notes.to_stderr && notes.printed++ == 0)
        fprintf(out, "\n");
    va_list arguments;
    va_start(arguments, format);
    vfprintf(out, format, arguments);
    va_end(arguments);
    fprintf(out, "\n");
    fflush(out);
}

void wb_figure(const char *name, double value, const char *unit)
{
    if (!speaks() || !notes.to_stderr)
        return;
    fprintf(stderr, "figure,%s%s%s,%s,%.6g,%s\n", notes.lesson_name, csv_part ? "-" : "",
            csv_part ? csv_part : "", name, value, unit);
    fflush(stderr);
}

static void report(wb_run *run, const char *variant, int scope, const wb_timing *timing,
                   const wb_buffer_check *check)
{
    if (measured.count < WB_COUNT(measured.rows)) {
        measured.rows[measured.count].variant = variant;
        measured.rows[measured.count].scope = scope;
        measured.rows[measured.count++].median_ms = timing->median_ms;
    }
    const wb_device *device = &run->device;
    int is_reference = check == NULL;
    int passed = is_reference || check->result.passed;
    /* the device-copy row is a measurement to compare with, not a result to
     * check: its own bytes, and no arithmetic */
    int is_anchor = strcmp(variant, COPY_ROW_NAME) == 0;
    double bytes = is_anchor ? copy_row_bytes(run) : run->bytes;
    double flops = is_anchor ? 0.0 : run->flops;
    double seconds = timing->median_ms / 1e3;
    double gbps = bytes / seconds / 1e9;
    double gflops = flops / seconds / 1e9;
    double speedup = run->cpu_median_ms > 0 ? run->cpu_median_ms / timing->median_ms : 0.0;
    /* % of what the roofline allows at this arithmetic intensity: the lesser
     * of the compute peak and intensity x bandwidth peak. Only a kernel-only
     * time on a real GPU is compared with the GPU's peak and the copy. */
    int kernel_row = scope == WB_KERNEL || scope == WB_LIBRARY;
    double pct_peak = -1.0, pct_copy = -1.0;
    double peak_gflops = compute_peak_gflops(run);
    if (kernel_row && device->peak_gbps > 0 && (flops == 0 || peak_gflops > 0)) {
        double intensity = flops / bytes;
        double attainable = fmin(peak_gflops, intensity * device->peak_gbps);
        pct_peak = 100.0 * (flops > 0 ? gflops / attainable : gbps / device->peak_gbps);
    }
    if (kernel_row && run->copy_gbps > 0 && !is_anchor)
        pct_copy = 100.0 * gbps / run->copy_gbps;
    const char *verdict = is_anchor ? "n/a" : is_reference ? "REF" : passed ? "PASS" : "FAIL";
    double max_error = is_reference ? 0.0 : check->result.max_error;
    const char *cache = !run->options.cold ? "warm" : "cold";
    if (is_anchor)
        speedup = 0.0;

    if (run->options.csv) {
        char device_name[256];
        snprintf(device_name, sizeof device_name, "%s",
                 device->gpu_available ? device->prop.name : "none");
        for (char *c = device_name; *c; c++)
            if (*c == ',')
                *c = ' '; /* keep the CSV one field per column */
        printf("%s%s%s,%s,%s,%s,%lld,%.0f,%.0f,%d,", run->lesson->name, csv_part ? "-" : "",
               csv_part ? csv_part : "", variant, scope_name(scope), run->options.shape.text, run->options.shape.elements, bytes, flops,
               timing->reps);
        printf("%.6g,%.6g,%.2f,%.6g,%.6g,", timing->median_ms, timing->min_ms,
               timing->spread_pct, gbps, gflops);
        csv_field_number(device->peak_gbps, device->peak_gbps > 0);
        csv_field_number(peak_gflops, device->peak_gbps > 0 && peak_gflops > 0);
        csv_field_number(pct_peak, pct_peak >= 0);
        csv_field_number(pct_copy, pct_copy >= 0);
        csv_field_number(speedup, speedup > 0);
        printf("%s,%.3g,%s,%s,", verdict, max_error, device_name, backend_name(device));
        /* the emulator has no driver: its version numbers mean nothing */
        if (device->emulated)
            printf("n/a,n/a,");
        else
            printf("%d,%d,", device->driver_version, device->runtime_version);
        printf("%d,%s\n", omp_get_max_threads(), cache);
    } else {
        char median_text[16], gbps_text[16], gflops_text[16], check_text[64];
        char pct_text[16] = "-", copy_text[16] = "-", speedup_text[16] = "-";
        snprintf(median_text, sizeof median_text, "%.4f", timing->median_ms);
        snprintf(gbps_text, sizeof gbps_text, "%.2f", gbps);
        snprintf(gflops_text, sizeof gflops_text, "%.2f", gflops);
        if (pct_peak >= 0)
            snprintf(pct_text, sizeof pct_text, "%.1f", pct_peak);
        if (pct_copy >= 0)
            snprintf(copy_text, sizeof copy_text, "%.1f", pct_copy);
        if (speedup > 0)
            snprintf(speedup_text, sizeof speedup_text, "%.2fx", speedup);
        if (is_anchor)
            snprintf(check_text, sizeof check_text, "-");
        else if (is_reference)
            snprintf(check_text, sizeof check_text, "ref");
        else if (check->result.non_finite > 0)
            snprintf(check_text, sizeof check_text, "FAIL (%lld NaN/Inf)", check->result.non_finite);
        else
            snprintf(check_text, sizeof check_text, "%s (max err %.3g)", verdict, max_error);
        printf(TABLE_ROW "%s %s\n", variant, scope_name(scope), median_text, gbps_text,
               gflops_text, pct_text, copy_text, speedup_text,
               timing->spread_pct > NOISY_SPREAD_PCT ? "*" : " ", check_text);
    }
    if (!passed && speaks() && check->result.first_bad < 0) {
        fprintf(stderr, "%s: %s (%s) FAIL on another rank (each rank checks the outputs)\n",
                run->lesson->name, variant, scope_name(scope));
    } else if (!passed && speaks()) {
        const wb_buffer_check *bad = check;
        long long i = bad->result.first_bad;
        char where[96];
        if (bad->row_length > 0)
            snprintf(where, sizeof where, "(row %lld, column %lld)", i / bad->row_length,
                     i % bad->row_length);
        else
            snprintf(where, sizeof where, "index %lld", i);
        char calls[160] = "";
        if (bad->launches > 0)
            snprintf(calls, sizeof calls, " after %d calls (the first passed: does it depend on "
                     "something an earlier call left behind?)", bad->launches);
        fprintf(stderr, "%s: %s (%s) FAIL%s: %s: first mismatch at %s: expected %.9g, got %.9g\n",
                run->lesson->name, variant, scope_name(scope), calls, bad->buffer->name, where,
                bad->result.expected, bad->result.actual);
    }
    fflush(stdout);
}

/* A skipped variant is a row of the table; the CSV has no row for it, so
 * stderr says why. */
static void report_skip(const wb_run *run, const char *variant, const char *reason)
{
    if (run->options.csv && speaks())
        fprintf(stderr, "%s: %s skipped: %s\n", run->lesson->name, variant, reason);
    else
        /* the reason where the numbers would be: a row of dashes and a
         * reason after them would not fit in 100 columns */
        printf("%-11s skip: %s\n", variant, reason);
}

/* Counts a check and remembers which variants were checked, for the summary. */
static void note_check(wb_run *run, const char *variant, int passed)
{
    if (run->checks == 0 || strcmp(run->last_checked, variant) != 0)
        snprintf(run->checked + strlen(run->checked), sizeof run->checked - strlen(run->checked),
                 "%s%s", run->checks ? ", " : "", variant);
    run->last_checked = variant;
    run->checks++;
    if (!passed)
        run->failed_checks++;
}

/* ---- timelines ------------------------------------------------------------ */

void wb_timeline_reset(wb_timeline *timeline)
{
    timeline->count = 0;
}

int wb_span_begin(wb_timeline *timeline, int lane, int label, cudaStream_t stream)
{
    int span = timeline->count;
    if (span >= WB_TIMELINE_SPANS || lane < 0 || lane >= WB_TIMELINE_LANES)
        return -1;
    if (span == timeline->events_made) {
        CUDA_CHECK(cudaEventCreate(&timeline->begin[span]));
        CUDA_CHECK(cudaEventCreate(&timeline->end[span]));
        timeline->events_made++;
    }
    timeline->lane[span] = lane;
    timeline->label[span] = label;
    CUDA_CHECK(cudaEventRecord(timeline->begin[span], stream));
    timeline->count++;
    return span;
}

void wb_span_end(wb_timeline *timeline, int span, cudaStream_t stream)
{
    if (span >= 0)
        CUDA_CHECK(cudaEventRecord(timeline->end[span], stream));
}

/* Each span's start and end in ms after the first span's start; returns the
 * earliest start (at most 0) and sets *last_end. */
static double span_times(const wb_timeline *timeline, double *from, double *to, double *last_end)
{
    CUDA_CHECK(cudaDeviceSynchronize());
    double first = 0.0;
    *last_end = 0.0;
    for (int s = 0; s < timeline->count; s++) {
        float begin_ms = 0, end_ms = 0;
        CUDA_CHECK(cudaEventElapsedTime(&begin_ms, timeline->begin[0], timeline->begin[s]));
        CUDA_CHECK(cudaEventElapsedTime(&end_ms, timeline->begin[0], timeline->end[s]));
        from[s] = begin_ms;
        to[s] = end_ms > begin_ms ? end_ms : begin_ms;
        first = fmin(first, from[s]);
        *last_end = fmax(*last_end, to[s]);
    }
    return first;
}

/* Walks the pieces between consecutive span boundaries: per lane the time it
 * was busy, and of that the time another lane was busy too; and the time two
 * or more lanes were. Returns the whole span. */
static double sweep_timeline(const wb_timeline *timeline, double busy_ms[WB_TIMELINE_LANES],
                             double overlap_ms[WB_TIMELINE_LANES], double *together_ms)
{
    int count = timeline->count;
    for (int lane = 0; lane < WB_TIMELINE_LANES; lane++)
        busy_ms[lane] = overlap_ms[lane] = 0.0;
    *together_ms = 0.0;
    if (count == 0)
        return 0.0; /* nothing recorded: the variant did not run */
    double *from = (double *)wb_alloc_host(4 * (size_t)count * sizeof(double), "a timeline");
    double *to = from + count, *bounds = to + count, last_end;
    double first = span_times(timeline, from, to, &last_end);
    memcpy(bounds, from, count * sizeof(double));
    memcpy(bounds + count, to, count * sizeof(double));
    qsort(bounds, 2 * (size_t)count, sizeof(double), compare_doubles);
    for (int b = 0; b + 1 < 2 * count; b++) {
        double piece = bounds[b + 1] - bounds[b], middle = bounds[b] + piece / 2;
        if (piece <= 0)
            continue;
        int lanes = 0, busy[WB_TIMELINE_LANES];
        for (int lane = 0; lane < WB_TIMELINE_LANES; lane++) {
            busy[lane] = 0;
            for (int s = 0; s < count && !busy[lane]; s++)
                busy[lane] = timeline->lane[s] == lane && from[s] <= middle && middle < to[s];
            busy_ms[lane] += busy[lane] ? piece : 0.0;
            lanes += busy[lane];
        }
        if (lanes >= 2) {
            *together_ms += piece;
            for (int lane = 0; lane < WB_TIMELINE_LANES; lane++)
                overlap_ms[lane] += busy[lane] ? piece : 0.0;
        }
    }
    free(from);
    return last_end - first;
}

double wb_timeline_busy(const wb_timeline *timeline, double busy_ms[WB_TIMELINE_LANES])
{
    double overlap_ms[WB_TIMELINE_LANES], together_ms;
    return sweep_timeline(timeline, busy_ms, overlap_ms, &together_ms);
}

void wb_timeline_overlap(const wb_timeline *timeline, double overlap_ms[WB_TIMELINE_LANES])
{
    double busy_ms[WB_TIMELINE_LANES], together_ms;
    sweep_timeline(timeline, busy_ms, overlap_ms, &together_ms);
}

void wb_note_timeline(const wb_timeline *timeline, const char *title,
                      const char *const *lane_names, int lane_count, int columns)
{
    enum { MAX_COLUMNS = 200 };
    int count = timeline->count;
    if (count == 0 || columns < 1 || columns > MAX_COLUMNS || lane_count > WB_TIMELINE_LANES)
        return;
    double busy_ms[WB_TIMELINE_LANES], overlap_ms[WB_TIMELINE_LANES], together_ms;
    double whole_ms = sweep_timeline(timeline, busy_ms, overlap_ms, &together_ms);
    double *from = (double *)wb_alloc_host(2 * (size_t)count * sizeof(double), "a timeline");
    double *to = from + count, last_end;
    double first = span_times(timeline, from, to, &last_end);
    double column_ms = whole_ms > 0 ? whole_ms / columns : 1.0;
    int *order = (int *)wb_alloc_host(2 * (size_t)count * sizeof(int), "a timeline");
    int *first_column = order + count;
    wb_note("timeline of %s, its latest run: %d spans over %.4g ms, %.3g ms a column,",
            title, count, whole_ms, column_ms);
    wb_note("each span drawn with the last digit of its label");
    for (int lane = 0; lane < lane_count; lane++) {
        char line[MAX_COLUMNS + 1];
        memset(line, ' ', columns);
        line[columns] = '\0';
        /* every span keeps a column of its own, however short: a span that
         * starts in the column of the one before it moves right, and at the
         * right edge the ones before it move left */
        int spans = 0, next_free = 0;
        for (int s = 0; s < count; s++) {
            if (timeline->lane[s] != lane)
                continue;
            int left = (int)floor((from[s] - first) / column_ms);
            order[spans] = s;
            first_column[spans++] = left < next_free ? next_free : left;
            next_free = first_column[spans - 1] + 1;
        }
        for (int i = spans - 1, limit = columns - 1; i >= 0; i--, limit--) {
            first_column[i] = first_column[i] > limit ? limit : first_column[i];
            first_column[i] = first_column[i] < 0 ? 0 : first_column[i];
            limit = first_column[i];
        }
        for (int i = 0; i < spans; i++) {
            int s = order[i], left = first_column[i];
            int right = (int)ceil((to[s] - first) / column_ms) - 1;
            right = right < left ? left : right >= columns ? columns - 1 : right;
            for (int c = left; c <= right; c++)
                line[c] = (char)('0' + timeline->label[s] % 10);
        }
        wb_note("  %-9s |%s| busy %.4g ms", lane_names[lane], line, busy_ms[lane]);
    }
    wb_note("  two or more lanes busy at once: %.0f%% of the %.4g ms",
            whole_ms > 0 ? 100.0 * together_ms / whole_ms : 0.0, whole_ms);
    free(order);
    free(from);
}

/* ---- wb_main -------------------------------------------------------------- */

/* ---- launch warnings ------------------------------------------------------ */

/* CUDA C says nothing when a launch leaves most of the GPU idle. wb_main
 * records every launch a GPU variant makes while it is checked (its kernel,
 * grid, block and dynamic shared memory) and, under the table, warns about
 * what the runtime's own numbers show: a grid with fewer blocks than SMs or
 * far less than one wave, low theoretical occupancy and what limits it,
 * register spills, and a last wave that is mostly empty.
 *
 * How launches are seen without changing how lessons write them:
 *   nvcc  compiles k<<<grid, block, shmem>>>(...) into a stub that calls
 *         __cudaLaunchKernel (CUDA 13; cudaLaunchKernel before it, and for
 *         explicit calls). The Makefile links every program with
 *         -Xlinker --wrap=NAME for both, so those calls reach
 *         __wrap_NAME below, which records the launch and calls the runtime's.
 *   emu   the emulator calls cuda_emu::launch_observer for every launch. */

/* Thresholds, chosen to flag what costs real time and stay quiet otherwise: */
/* a grid holding less than half of one wave leaves over half the device idle */
#define WAVE_FILL_WARNING_BELOW 0.5
/* below a quarter of the warps an SM can hold (16 of 64 on an H100), too few
 * warps are left to hide memory latency unless each thread has independent
 * work of its own (lesson 06: Volkov's point) */
#define OCCUPANCY_WARNING_BELOW 0.25
/* a last wave whose idle slots are over a quarter of the launch's SM time */
#define TAIL_IDLE_WARNING_ABOVE 0.25
#define MAX_RECORDED_LAUNCHES 16
#define MAX_WARNINGS 64
#define WARNING_LENGTH 320

typedef struct {
    const void *kernel; /* what the runtime's function queries take */
    char name[96];
    dim3 grid, block;
    size_t shared_bytes;
} wb_launch;

static struct {
    int recording; /* 1 while a GPU variant is being checked */
    int count;
    wb_launch launches[MAX_RECORDED_LAUNCHES];
    int warning_count;
    char warnings[MAX_WARNINGS][WARNING_LENGTH];
} launch_log;

static void record_launch(const void *kernel, const char *name, dim3 grid, dim3 block,
                          size_t shared_bytes)
{
    if (!launch_log.recording || launch_log.count == MAX_RECORDED_LAUNCHES)
        return;
    for (int i = 0; i < launch_log.count; i++) {
        const wb_launch *seen = &launch_log.launches[i];
        if (seen->kernel == kernel && seen->grid.x == grid.x && seen->grid.y == grid.y &&
            seen->grid.z == grid.z && seen->block.x == block.x && seen->block.y == block.y &&
            seen->block.z == block.z && seen->shared_bytes == shared_bytes)
            return; /* the same launch again, e.g. one per pass of a loop */
    }
    wb_launch *launch = &launch_log.launches[launch_log.count++];
    launch->kernel = kernel;
    snprintf(launch->name, sizeof launch->name, "%s", name);
    launch->grid = grid;
    launch->block = block;
    launch->shared_bytes = shared_bytes;
}

#ifdef CUDA_EMULATION
static void observe_emulated_launch(const cuda_emu::LaunchConfig &config, const char *kernel_name)
{
    /* The emulator's function queries take any non-null pointer: the name will do. They know no
     * static __shared__ memory of a name, so the launch's bytes include the kernel's. */
    record_launch(kernel_name, kernel_name, config.grid, config.block,
                  config.shared_bytes + config.static_shared_bytes);
}
#else
/* The kernel's name as the runtime gives it, mangled (_Z6kernelPfi): the
 * identifier after _Z and its length is all a warning needs. */
static void kernel_name_of(const void *kernel, char *name, size_t room)
{
    const char *mangled = NULL;
    snprintf(name, room, "a kernel");
    if (cudaFuncGetName(&mangled, kernel) != cudaSuccess || !mangled) {
        cudaGetLastError(); /* a failed query is no launch error */
        return;
    }
    char *end;
    long length = strncmp(mangled, "_Z", 2) == 0 ? strtol(mangled + 2, &end, 10) : 0;
    if (length > 0 && (size_t)length < strlen(end) + 1)
        snprintf(name, room, "%.*s", (int)length, end);
    else
        snprintf(name, room, "%s", mangled);
}

static void record_device_launch(const void *kernel, dim3 grid, dim3 block, size_t shared_bytes)
{
    if (!launch_log.recording)
        return;
    char name[96];
    kernel_name_of(kernel, name, sizeof name);
    record_launch(kernel, name, grid, block, shared_bytes);
}

extern "C" cudaError_t __real___cudaLaunchKernel(cudaKernel_t, dim3, dim3, void **, size_t,
                                                 cudaStream_t);
extern "C" cudaError_t __real_cudaLaunchKernel(const void *, dim3, dim3, void **, size_t,
                                               cudaStream_t);

extern "C" cudaError_t __wrap___cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block,
                                                 void **args, size_t shared_bytes,
                                                 cudaStream_t stream)
{
    /* the occupancy and attribute queries accept a cudaKernel_t cast to void * */
    record_device_launch((const void *)kernel, grid, block, shared_bytes);
    return __real___cudaLaunchKernel(kernel, grid, block, args, shared_bytes, stream);
}

extern "C" cudaError_t __wrap_cudaLaunchKernel(const void *kernel, dim3 grid, dim3 block,
                                               void **args, size_t shared_bytes,
                                               cudaStream_t stream)
{
    record_device_launch(kernel, grid, block, shared_bytes);
    return __real_cudaLaunchKernel(kernel, grid, block, args, shared_bytes, stream);
}
#endif

static void add_warning(const char *format, ...) __attribute__((format(printf, 1, 2)));
static void add_warning(const char *format, ...)
{
    char line[WARNING_LENGTH];
    va_list args;
    va_start(args, format);
    vsnprintf(line, sizeof line, format, args);
    va_end(args);
    for (int i = 0; i < launch_log.warning_count; i++)
        if (strcmp(launch_log.warnings[i], line) == 0)
            return;
    if (launch_log.warning_count < MAX_WARNINGS)
        snprintf(launch_log.warnings[launch_log.warning_count++], WARNING_LENGTH, "%s", line);
}

/* Which resource caps the blocks an SM holds, by the arithmetic of the
 * toolkit's cuda_occupancy.h on the runtime's numbers (shared memory's
 * allocation unit left out: the count itself comes from the occupancy API,
 * this only names the cause). A warp's registers come in units of 256 from
 * one of the SM's 4 sub-partitions, each of which holds whole warps. */
#define REGISTER_ALLOCATION_UNIT 256
#define SM_SUB_PARTITIONS 4
static const char *occupancy_limit(const cudaDeviceProp *prop, const cudaFuncAttributes *attr,
                                   int threads, size_t shared_bytes)
{
    int warps = (threads + prop->warpSize - 1) / prop->warpSize;
    long long by_blocks = prop->maxBlocksPerMultiProcessor;
    long long by_threads = prop->maxThreadsPerMultiProcessor / prop->warpSize / warps;
    long long warp_registers = ((long long)attr->numRegs * prop->warpSize + REGISTER_ALLOCATION_UNIT - 1) /
                               REGISTER_ALLOCATION_UNIT * REGISTER_ALLOCATION_UNIT;
    long long by_registers = warp_registers > 0
                                 ? prop->regsPerMultiprocessor / SM_SUB_PARTITIONS / warp_registers *
                                       SM_SUB_PARTITIONS / warps
                                 : LLONG_MAX;
    size_t block_shared = attr->sharedSizeBytes + shared_bytes + prop->reservedSharedMemPerBlock;
    long long by_shared = block_shared > 0
                              ? (long long)(prop->sharedMemPerMultiprocessor / block_shared)
                              : LLONG_MAX;
    if (by_registers <= by_shared && by_registers < by_threads && by_registers < by_blocks)
        return "registers per thread: fewer registers (__launch_bounds__) or smaller blocks";
    if (by_shared < by_threads && by_shared < by_blocks)
        return "shared memory per block: smaller tiles or fewer buffers";
    if (by_blocks < by_threads)
        return "blocks per SM, the blocks are small: more threads per block";
    return "block size: a block size that divides the SM's threads evenly";
}

/* "s" after a count other than 1: "1 block of 1 thread", "2 blocks of 64 threads" */
static const char *plural_s(long long count)
{
    return count == 1 ? "" : "s";
}

/* Checks one recorded launch against the device and adds its warnings. */
static void analyze_launch(const wb_run *run, const char *variant, const wb_launch *launch)
{
    const cudaDeviceProp *prop = &run->device.prop;
    const char *model = run->device.emulated ? " (emulated device model)" : "";
    cudaFuncAttributes attr;
    int blocks_per_sm = 0;
    int threads = (int)(launch->block.x * launch->block.y * launch->block.z);
    if (cudaFuncGetAttributes(&attr, launch->kernel) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, launch->kernel, threads,
                                                      launch->shared_bytes) != cudaSuccess) {
        cudaGetLastError(); /* no verdict is better than a wrong one */
        return;
    }
    long long blocks = (long long)launch->grid.x * launch->grid.y * launch->grid.z;
    int sms = prop->multiProcessorCount;
    long long wave = (long long)blocks_per_sm * sms; /* blocks resident at once */
    const char *kernel = launch->name;

    if (blocks < sms) {
        add_warning("warning: %s: %s launches %lld block%s of %d thread%s on %d SMs, so %lld "
                    "SM%s idle; try smaller blocks, or more threads with less work each%s",
                    variant, kernel, blocks, plural_s(blocks), threads, plural_s(threads), sms,
                    sms - blocks, sms - blocks == 1 ? " sits" : "s sit", model);
    } else if (wave > 0 && blocks < WAVE_FILL_WARNING_BELOW * wave) {
        add_warning("warning: %s: %s's %lld block%s of %d thread%s fill%s %.0f%% of one wave "
                    "(%lld blocks); try more threads, each with less work%s",
                    variant, kernel, blocks, plural_s(blocks), threads, plural_s(threads),
                    blocks == 1 ? "s" : "", 100.0 * blocks / wave, wave, model);
    }

    int warps_per_sm = prop->maxThreadsPerMultiProcessor / prop->warpSize;
    int warps_per_block = (threads + prop->warpSize - 1) / prop->warpSize;
    double occupancy = warps_per_sm > 0 ? (double)blocks_per_sm * warps_per_block / warps_per_sm : 0;
    if (occupancy < OCCUPANCY_WARNING_BELOW) {
        add_warning("warning: %s: %s's theoretical occupancy is %.0f%% (%d of %d warps per SM), "
                    "below %.0f%%; limited by %s%s",
                    variant, kernel, 100 * occupancy, blocks_per_sm * warps_per_block,
                    warps_per_sm, 100 * OCCUPANCY_WARNING_BELOW,
                    occupancy_limit(prop, &attr, threads, launch->shared_bytes), model);
    }

    if (attr.localSizeBytes > 0) {
        add_warning("warning: %s: %s uses %zu byte%s of local memory per thread (register "
                    "spills or a local array); check nvcc -Xptxas -v, fewer live values%s",
                    variant, kernel, (size_t)attr.localSizeBytes,
                    plural_s((long long)attr.localSizeBytes), model);
    }

    if (wave > 0 && blocks > wave && blocks % wave != 0) {
        long long waves = (blocks + wave - 1) / wave;
        long long last = blocks % wave;
        double idle = (double)(wave - last) / ((double)wave * waves);
        if (idle > TAIL_IDLE_WARNING_ABOVE)
            add_warning("warning: %s: %s's last of %lld waves holds %lld of %lld blocks: %.0f%% "
                        "of its SM time idles; try a grid of whole waves (grid-stride loop)%s",
                        variant, kernel, waves, last, wave, 100 * idle, model);
    }
}

static void start_recording_launches(void)
{
    launch_log.count = 0;
    launch_log.recording = 1;
}

static void analyze_recorded_launches(const wb_run *run, const char *variant)
{
    launch_log.recording = 0;
    for (int i = 0; i < launch_log.count; i++)
        analyze_launch(run, variant, &launch_log.launches[i]);
    launch_log.count = 0;
}

/* Under the table (the table stays within its width); on stderr with --csv,
 * so the CSV on stdout stays machine-readable. */
static void print_warnings(const wb_run *run)
{
    if (run->options.quiet_warnings || launch_log.warning_count == 0 || !speaks())
        return;
    FILE *out = run->options.csv ? stderr : stdout;
    if (!run->options.csv)
        fprintf(out, "\n");
    for (int i = 0; i < launch_log.warning_count; i++)
        fprintf(out, "%s\n", launch_log.warnings[i]);
    if (!run->options.csv)
        fprintf(out, "(--quiet-warnings hides these; lesson 06 explains them)\n");
}

static void check_declaration(const wb_lesson *lesson)
{
    const char *problem = NULL;
    if (lesson->buffer_count < 1 || lesson->buffer_count > WB_MAX_BUFFERS)
        problem = "buffer_count must be 1 to WB_MAX_BUFFERS";
    else if (lesson->variant_count < 1 || lesson->variant_count > MAX_VARIANTS)
        problem = "variant_count must be 1 to 32";
    else if (strcmp(lesson->variants[0].name, "cpu") != 0 || lesson->variants[0].scope != WB_HOST)
        problem = "the first variant must be cpu, scope WB_HOST: it is the reference";
    else if (lesson->rank < 1 || lesson->rank > 3)
        problem = "rank must be 1, 2 or 3";
    else if (!lesson->items != !lesson->item_name)
        problem = "items and item_name go together: both or neither";
    if (problem) {
        if (speaks())
            fprintf(stderr, "%s: the lesson's declaration is wrong: %s\n", lesson->name, problem);
        stop_together(WB_EXIT_CHECK_FAILED);
    }
}

static void allocate(wb_run *run)
{
    const wb_lesson *lesson = run->lesson;
    for (int b = 0; b < lesson->buffer_count; b++) {
        const wb_buffer *buffer = &lesson->buffers[b];
        size_t bytes = run->data.bytes[b];
        run->input[b] = is_filled(buffer->role) ? wb_alloc_host(bytes, buffer->name) : NULL;
        if (is_checked(buffer->role)) {
            run->reference[b] = wb_alloc_host(bytes, buffer->name);
            run->result[b] = wb_alloc_host(bytes, buffer->name);
        }
        if (buffer->role == WB_SCRATCH && buffer->host_too)
            run->result[b] = wb_alloc_host(bytes, buffer->name);
        run->data.host[b] = buffer->role == WB_INPUT ? run->input[b] : run->result[b];
        /* other scratch lives on the device alone: host[] is NULL for it */
        if (run->device.gpu_available)
            CUDA_CHECK(cudaMalloc(&run->data.device[b],
                                  run->device_bytes[b] ? run->device_bytes[b] : 1));
    }
    int pinned_wanted = 0;
    for (int v = 0; v < lesson->variant_count; v++)
        pinned_wanted |= lesson->variants[v].pinned_host && run->options.selected[v];
    if (!pinned_wanted || !run->device.gpu_available)
        return;
    for (int b = 0; b < lesson->buffer_count; b++) {
        size_t bytes = run->data.bytes[b] ? run->data.bytes[b] : 1;
        if (run->input[b])
            CUDA_CHECK(cudaMallocHost(&run->pinned_input[b], bytes));
        if (run->result[b])
            CUDA_CHECK(cudaMallocHost(&run->pinned_result[b], bytes));
    }
}

/* A variant with pinned_host runs on the page-locked twins: swapping them in
 * (and back out after) leaves every other step as it is. */
static void swap_pinned(wb_run *run)
{
    for (int b = 0; b < run->lesson->buffer_count; b++) {
        void *swap;
        if (run->pinned_input[b])
            swap = run->input[b], run->input[b] = run->pinned_input[b], run->pinned_input[b] = swap;
        if (run->pinned_result[b])
            swap = run->result[b], run->result[b] = run->pinned_result[b],
            run->pinned_result[b] = swap;
        run->data.host[b] =
            run->lesson->buffers[b].role == WB_INPUT ? run->input[b] : run->result[b];
    }
}

static void release(wb_run *run)
{
    for (int b = 0; b < run->lesson->buffer_count; b++) {
        free(run->input[b]);
        free(run->reference[b]);
        free(run->result[b]);
        if (run->data.device[b])
            CUDA_CHECK(cudaFree(run->data.device[b]));
        if (run->pinned_input[b])
            CUDA_CHECK(cudaFreeHost(run->pinned_input[b]));
        if (run->pinned_result[b])
            CUDA_CHECK(cudaFreeHost(run->pinned_result[b]));
    }
    free(run->cpu_flush);
    if (run->gpu_flush)
        CUDA_CHECK(cudaFree(run->gpu_flush));
}

/* The CPU variant into the reference arrays, once, whatever --only says:
 * every check compares with it. */
static void compute_reference(wb_run *run)
{
    for (int b = 0; b < run->lesson->buffer_count; b++) {
        if (!is_checked(run->lesson->buffers[b].role))
            continue;
        run->data.host[b] = run->reference[b];
        if (run->lesson->buffers[b].role == WB_INOUT)
            memcpy(run->reference[b], run->input[b], run->data.bytes[b]);
    }
    run->data.scope = WB_HOST;
    run->lesson->variants[0].run(&run->data);
    for (int b = 0; b < run->lesson->buffer_count; b++)
        if (is_checked(run->lesson->buffers[b].role))
            run->data.host[b] = run->result[b];
}

/* A bound as large as the value it bounds lets any result from 0 to twice the
 * value pass (a float sum of n values, n x 2^-24 x the sum, from n = 2^24 on).
 * The bound stays the true one; the note under the table says the PASS
 * checks nothing, and what the variant returned. Once per variant. */
static void remember_if_unchecked(wb_run *run, const wb_variant *variant, int scope,
                                  const wb_buffer_check *check)
{
    if (!check->result.passed || check->result.bound_ratio < 1.0)
        return;
    for (int u = 0; u < run->unchecked_count; u++)
        if (run->unchecked[u].variant == variant)
            return;
    if (run->unchecked_count < MAX_VARIANTS) {
        run->unchecked[run->unchecked_count].variant = variant;
        run->unchecked[run->unchecked_count].scope = scope;
        run->unchecked[run->unchecked_count++].check = *check;
    }
}

static void note_unchecked(const wb_run *run)
{
    for (int u = 0; u < run->unchecked_count; u++) {
        const wb_variant *variant = run->unchecked[u].variant;
        const wb_buffer_check *check = &run->unchecked[u].check;
        const wb_check_result *result = &check->result;
        const char *why = variant->tolerance.why ? variant->tolerance.why
                                                 : check->buffer->tolerance.why;
        char why_text[160] = "", where[96] = "";
        if (why)
            snprintf(why_text, sizeof why_text, " (%s)", why);
        int one_value = run->count[check->buffer - run->lesson->buffers] == 1;
        long long i = result->max_error_at;
        if (!one_value && check->row_length > 0)
            snprintf(where, sizeof where, " at (row %lld, column %lld)", i / check->row_length,
                     i % check->row_length);
        else if (!one_value)
            snprintf(where, sizeof where, " at index %lld", i);
        double off = 100.0 * (result->actual_there - result->expected_there) /
                     fabs(result->expected_there);
        wb_note("%s: at size %s its error bound%s is %.3g times %s,", variant->name,
                run->options.shape.text, why_text, result->bound_ratio,
                one_value ? "the value it bounds" : "or more each value it bounds");
        wb_note("  so its %s PASS checks nothing: it returned %.4g%s where %s should be %.4g, "
                "%.3g%% %s", scope_name(run->unchecked[u].scope), result->actual_there, where,
                check->buffer->name, result->expected_there, fabs(off),
                off <= 0 ? "less" : "more");
    }
}

/* For the variants whose work is not the lesson's count: what each does, the
 * least it moves, and its rates at those, from its first timed row. */
static void note_own_work(const wb_run *run)
{
    const wb_lesson *lesson = run->lesson;
    const wb_shape *shape = &run->options.shape;
    int heading = 0;
    for (int v = 1; v < lesson->variant_count; v++) {
        const wb_variant *variant = &lesson->variants[v];
        if (!variant->own_work.flops || !run->options.selected[v])
            continue;
        if (!heading++) {
            char flops_text[64] = "", bytes_text[64] = "";
            if (lesson->flops_formula)
                snprintf(flops_text, sizeof flops_text, " (%s)", lesson->flops_formula);
            if (lesson->bytes_formula)
                snprintf(bytes_text, sizeof bytes_text, " (%s)", lesson->bytes_formula);
            wb_note("work: every row's rates count %.3g FLOP%s and %.4g MB%s;", run->flops,
                    flops_text, run->bytes / 1e6, bytes_text);
            wb_note("what each variant does, the least it moves, and its rates at those:");
        }
        double flops = variant->own_work.flops(shape);
        double bytes = variant->own_work.bytes ? variant->own_work.bytes(shape) : run->bytes;
        double ms = -1.0;
        for (int scope = WB_KERNEL; scope <= WB_TRANSFERS && ms < 0; scope <<= 1)
            if (variant->scope & scope)
                ms = wb_measured_ms(variant->name, scope);
        char rates[64] = "not run";
        if (ms > 0)
            snprintf(rates, sizeof rates, "%.3g GFLOP/s, %.3g GB/s", flops / ms / 1e6,
                     bytes / ms / 1e6);
        wb_note("  %-13s %-9s %9.3g FLOP %9.4g MB  %s", variant->name,
                variant->own_work.formula ? variant->own_work.formula : "", flops, bytes / 1e6,
                rates);
    }
}

/* A buffer updated in place holds something else after every call: only the
 * first call, from the input, can be checked. */
static int updates_in_place(const wb_run *run)
{
    for (int b = 0; b < run->lesson->buffer_count; b++)
        if (run->lesson->buffers[b].role == WB_INOUT)
            return 1;
    return 0;
}

static void measure_variant(wb_run *run, const wb_variant *variant, int is_reference)
{
    if (variant->skip_reason && variant->skip_reason(&run->device)) {
        report_skip(run, variant->name, variant->skip_reason(&run->device));
        run->skipped++;
        return;
    }
    int gpu = variant->scope != WB_HOST;
    if (gpu && !run->device.gpu_available)
        return; /* wb_main says why once, at the end */
    int pinned = variant->pinned_host && run->pinned_input[0] != NULL;
    if (pinned)
        swap_pinned(run);
    for (int scope = WB_HOST; scope <= WB_TRANSFERS; scope <<= 1) {
        if (!(variant->scope & scope))
            continue;
        wb_buffer_check check;
        int check_again = 0;
        if (!is_reference) {
            int first_gpu_check = gpu && scope == (variant->scope & -variant->scope);
            if (first_gpu_check)
                start_recording_launches();
            check = run_and_check(run, variant, scope);
            if (first_gpu_check)
                analyze_recorded_launches(run, variant->name);
            /* a team: failed where any process found it so */
            if (in_team && team.max(!check.result.passed) > 0)
                check.result.passed = 0;
            check_again = scope == WB_KERNEL && check.result.passed && !updates_in_place(run);
        }
        /* A kernel that passed its check is checked again after its warm-up
         * and timed calls, its outputs poisoned before them: a kernel that
         * keeps state from one launch to the next (a __device__ counter, say)
         * can pass once and go wrong, or stop writing, after that. */
        if (check_again)
            for (int b = 0; b < run->lesson->buffer_count; b++)
                if (is_checked(run->lesson->buffers[b].role))
                    CUDA_CHECK(cudaMemset(run->data.device[b], 0xFF, run->device_bytes[b]));
        wb_timing timing = time_step(run, run_variant_once, variant, scope);
        if (check_again) {
            CUDA_CHECK(cudaDeviceSynchronize());
            copy_outputs_to_host(run);
            wb_buffer_check later = check_outputs(run, variant);
            if (in_team && team.max(!later.result.passed) > 0)
                later.result.passed = 0;
            if (!later.result.passed) {
                check = later;
                check.launches = 1 + run->options.warmup + run->options.reps;
            }
        }
        if (!is_reference) {
            note_check(run, variant->name, check.result.passed);
            remember_if_unchecked(run, variant, scope, &check);
        }
        if (is_reference)
            run->cpu_median_ms = timing.median_ms;
        int index = (int)(variant - run->lesson->variants);
        if (scope == WB_KERNEL)
            run->kernel_ms[index] = timing.median_ms;
        if (scope == WB_END_TO_END || scope == WB_TRANSFERS)
            run->whole_ms[index] = timing.median_ms;
        report(run, variant->name, scope, &timing, is_reference ? NULL : &check);
    }
    if (pinned)
        swap_pinned(run);
}

/* A lesson that works through a batch of items (wb_lesson.items): under the
 * table, per variant, the kernel time of one item, the items per second end
 * to end, and the share of the end-to-end time beyond the kernels' own: the
 * copies, and whatever of them the kernels do not hide. */
static void print_items(const wb_run *run)
{
    const wb_lesson *lesson = run->lesson;
    long long items = lesson->items(&run->options.shape);
    int header = 0;
    for (int v = 1; v < lesson->variant_count; v++) {
        double kernel_ms = run->kernel_ms[v], whole_ms = run->whole_ms[v];
        if (kernel_ms <= 0 && whole_ms <= 0)
            continue;
        if (!header)
            printf("\nper %s, %lld %ss of %s a run:\n", lesson->item_name, items,
                   lesson->item_name, run->options.shape.text);
        header = 1;
        char kernel_text[48] = "", whole_text[80] = "", share_text[48] = "";
        if (kernel_ms > 0)
            snprintf(kernel_text, sizeof kernel_text, "kernel %.4f ms", kernel_ms / items);
        if (whole_ms > 0)
            snprintf(whole_text, sizeof whole_text, "end to end %.4f ms = %.1f %ss/s",
                     whole_ms / items, items / (whole_ms / 1e3), lesson->item_name);
        if (kernel_ms > 0 && whole_ms > 0)
            snprintf(share_text, sizeof share_text, "copies %.0f%%",
                     whole_ms > kernel_ms ? 100.0 * (1.0 - kernel_ms / whole_ms) : 0.0);
        printf("  %-11s %-24s %-40s %s\n", lesson->variants[v].name, kernel_text, whole_text,
               share_text);
    }
}

static void measure_device_copy(wb_run *run)
{
    size_t bytes = (size_t)copy_row_bytes(run);
    if (bytes == 0)
        return;
    CUDA_CHECK(cudaMalloc(&run->copy_scratch, bytes));
    CUDA_CHECK(cudaMemset(run->copy_scratch, 0, bytes));
    wb_timing timing = time_step(run, run_device_copy, NULL, WB_LIBRARY);
    CUDA_CHECK(cudaFree(run->copy_scratch));
    run->copy_scratch = NULL;
    run->copy_gbps = (double)bytes / (timing.median_ms / 1e3) / 1e9;
    report(run, COPY_ROW_NAME, WB_LIBRARY, &timing, NULL);
}

static int finish(wb_run *run)
{
    int gpu_wanted = 0;
    for (int v = 1; v < run->lesson->variant_count; v++)
        gpu_wanted |= run->options.selected[v] && run->lesson->variants[v].scope != WB_HOST;
    if (gpu_wanted && !run->device.gpu_available) {
        if (speaks())
            fprintf(stderr, "%s: GPU variants not run: %s\n", run->lesson->name,
                    run->device.why_unavailable);
        return WB_EXIT_NO_DEVICE;
    }
    int csv = run->options.csv;
    if (run->failed_checks > 0) {
        if (!csv)
            printf("\n%d of %d checks FAILED\n", run->failed_checks, run->checks);
        return WB_EXIT_CHECK_FAILED;
    }
    if (!csv && run->checks == 0)
        printf("\nnothing was checked: only the CPU reference ran\n");
    else if (!csv && run->checks == 1)
        printf("\nthe one check passed against the CPU reference: %s%s\n", run->checked,
               run->skipped ? "; skipped rows are no failure" : "");
    else if (!csv)
        printf("\nall %d checks passed against the CPU reference: %s%s\n", run->checks,
               run->checked, run->skipped ? "; skipped rows are no failure" : "");
    return WB_EXIT_OK;
}

const wb_lesson *wb_choose_part(const wb_lesson *const *parts, int count, int argc, char **argv)
{
    program = parts[0]->name;
    const char *flag = "--part", *chosen = NULL;
    size_t flag_length = strlen(flag);
    for (int i = 1; i < argc; i++) {
        /* "--part --csv" has no value: wb_main's parser says so */
        if (strcmp(argv[i], flag) == 0 && i + 1 < argc && argv[i + 1][0] != '-')
            chosen = argv[++i];
        else if (strncmp(argv[i], flag, flag_length) == 0 && argv[i][flag_length] == '=')
            chosen = argv[i] + flag_length + 1;
    }
    if (!chosen)
        return parts[0];
    char valid[256] = "", shown[ECHO_LIMIT + 4];
    for (int p = 0; p < count; p++) {
        if (strcmp(parts[p]->part, chosen) == 0) {
            if (p > 0)
                csv_part = parts[p]->part;
            return parts[p];
        }
        snprintf(valid + strlen(valid), sizeof valid - strlen(valid), "%s%s", p ? ", " : "",
                 parts[p]->part);
    }
    usage_error("unknown part '%s' for --part: expected %s", echo(chosen, shown, sizeof shown),
                valid);
    return NULL;
}

int wb_main(const wb_lesson *lesson, int argc, char **argv)
{
    program = lesson->name;
    check_declaration(lesson);
#ifdef CUDA_EMULATION
    cuda_emu::launch_observer = observe_emulated_launch;
#endif
    wb_run run;
    memset(&run, 0, sizeof run);
    run.lesson = lesson;
    run.options = parse_options(lesson, argc, argv);
    notes.to_stderr = run.options.csv;
    notes.lesson_name = lesson->name;
    if (lesson->input_shape) {
        options_being_read = &run.options;
        lesson->input_shape(&run.options.shape);
        options_being_read = NULL;
        describe_shape(&run.options.shape);
    }
    run.data.shape = run.options.shape;
    for (int b = 0; b < lesson->buffer_count; b++) {
        const wb_buffer *buffer = &lesson->buffers[b];
        run.count[b] = buffer->count(&run.data.shape);
        run.data.bytes[b] = (size_t)run.count[b] * type_size(buffer->type);
        run.device_bytes[b] = buffer->part_count
                                  ? (size_t)buffer->part_count(&run.data.shape) * type_size(buffer->type)
                                  : run.data.bytes[b];
    }
    run.bytes = lesson->bytes(&run.data.shape);
    run.flops = lesson->flops ? lesson->flops(&run.data.shape) : 0.0;

    run.device = wb_describe_device(lesson->name);
    run.data.device_info = &run.device;
    check_memory(&run);
    if (run.options.csv) {
        for (int c = 0; c < WB_COUNT(csv_columns); c++)
            printf("%s%s", c ? "," : "", csv_columns[c]);
        printf("\n");
    } else {
        print_header(&run);
    }
    fflush(stdout);

    allocate(&run);
    for (int b = 0; b < lesson->buffer_count; b++)
        if (is_filled(lesson->buffers[b].role))
            fill_input(&lesson->buffers[b], run.input[b], run.count[b], &run.data.shape,
                       run.options.seed * WB_MAX_BUFFERS + b);
    for (int b = 0; b < lesson->buffer_count; b++)
        if (run.pinned_input[b])
            memcpy(run.pinned_input[b], run.input[b], run.data.bytes[b]);
    compute_reference(&run);
    if (run.device.gpu_available && lesson->prepare)
        lesson->prepare(&run.data);

    if (run.options.selected[0])
        measure_variant(&run, &lesson->variants[0], 1);
    if (lesson->copy_anchor && run.options.selected[MAX_VARIANTS] && run.device.gpu_available)
        measure_device_copy(&run);
    for (int v = 1; v < lesson->variant_count; v++)
        if (run.options.selected[v])
            measure_variant(&run, &lesson->variants[v], 0);
    if (lesson->items && !run.options.csv)
        print_items(&run);
    note_own_work(&run);
    note_unchecked(&run);
    for (int v = 0; v < run.timed_once_count; v++)
        wb_note("%s: a run took over %.0f s, so it was timed once: "
                "its row is one run, not a median", run.timed_once[v], LONG_HOST_RUN_MS / 1e3);

    if (lesson->finish) {
        for (int b = 0; b < lesson->buffer_count; b++)
            if (is_checked(lesson->buffers[b].role))
                run.data.host[b] = run.reference[b];
        lesson->finish(&run.data);
    }
    release(&run);
    print_warnings(&run);
    int status = finish(&run);
    /* a team exits alike: with the worst status any process has */
    return in_team ? (int)team.max(status) : status;
}
