/*
 * common/image.h - image files for the lessons that read photographs and
 * write their results (02, 08): --image in, --output out.
 *
 * An image named on the command line is checked and decoded before anything
 * is allocated, so a bad file costs nothing but one line; the output is
 * written beside its place under a temporary name and renamed into it at the
 * end, so that nothing half-written is ever left there (and an interrupted
 * run leaves no temporary file behind). Every refusal is one line on stderr,
 *     PROGRAM: PATH: PROBLEM: DETAIL
 * and exit status 2 (a usage error: the file the user named is at fault).
 * The image sets the size, so -n (or --size) beside --image is refused the
 * same way: "PROGRAM: -n and --image together: the image sets the size".
 *
 * Debian's libstb-dev: stb_image reads PNG, JPEG, BMP, TGA, PPM, ...;
 * stb_image_write writes PNG. The implementation is in libstb: a lesson that
 * includes this header has LIBS = -lstb -lm in its lesson.conf. Include it from
 * the lesson's one source file: the functions are defined here.
 */
#ifndef WORKBOOK_IMAGE_H
#define WORKBOOK_IMAGE_H

#include "workbook.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stb/stb_image.h>
#include <stb/stb_image_write.h>

/* stb_image refuses to allocate more than 2^31 - 1 bytes for an image; its
 * PNG decoder stops earlier, at 2^30 bytes of samples (width x height x the
 * file's channels), and fails on such a header as on a corrupt one */
#define STB_MAX_BYTES 2147483647LL

/* --output, written here and then renamed */
static char image_temporary_path[PATH_MAX] = "";
/* 1 while that file exists: what the signal handler below may read */
static volatile sig_atomic_t image_temporary_exists = 0;

/* A file the user named that cannot be used: one line, exit 2. */
static void refuse_file(const char *program, const char *path, const char *problem,
                        const char *detail)
{
    fprintf(stderr, "%s: %s: %s%s%s\n", program, path, problem, detail ? ": " : "",
            detail ? detail : "");
    exit(WB_EXIT_USAGE);
}

static void remove_temporary_image(void)
{
    if (image_temporary_exists)
        unlink(image_temporary_path);
    image_temporary_exists = 0;
}

/* Ctrl-C or kill while the PNG is being written: remove the temporary file,
 * then die of the signal as the program would have (unlink, signal and raise
 * may be called from a signal handler; exit may not). */
static void remove_temporary_image_and_die(int signal_number)
{
    remove_temporary_image();
    signal(signal_number, SIG_DFL);
    raise(signal_number);
}

/* Installs that handler for a signal, unless the program ignores the signal
 * (a background job ignores SIGINT): then it stays ignored. */
static void remove_temporary_image_on(int signal_number)
{
    if (signal(signal_number, remove_temporary_image_and_die) == SIG_IGN)
        signal(signal_number, SIG_IGN);
}

/* Makes a new, empty temporary file beside output_path, with the usual
 * permissions; returns 0, or -1 with errno set. */
static int make_temporary_image(const char *output_path)
{
    snprintf(image_temporary_path, sizeof image_temporary_path, "%s.XXXXXX", output_path);
    /* a signal between mkstemp and the flag would leave the file behind:
     * hold SIGINT and SIGTERM back until the handler can see it */
    sigset_t held, before;
    sigemptyset(&held);
    sigaddset(&held, SIGINT);
    sigaddset(&held, SIGTERM);
    sigprocmask(SIG_BLOCK, &held, &before);
    int descriptor = mkstemp(image_temporary_path);
    if (descriptor >= 0)
        image_temporary_exists = 1;
    sigprocmask(SIG_SETMASK, &before, NULL);
    if (descriptor < 0)
        return -1;
    /* mkstemp makes the file private (0600); give it the usual permissions */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(descriptor, 0666 & ~mask);
    close(descriptor);
    return 0;
}

/* Checks now, before any work, that a file can be made beside output_path,
 * by making one and removing it at once: a path that cannot be written is
 * refused at once rather than after the run. The real temporary file is made
 * only when the image is written, so that a run stopped before then leaves
 * nothing behind. */
static void open_output_image(const char *program, const char *output_path)
{
    struct stat status;
    if (stat(output_path, &status) == 0 && S_ISDIR(status.st_mode))
        refuse_file(program, output_path, "cannot write the output", "it is a directory");
    if (strlen(output_path) + sizeof ".XXXXXX" > sizeof image_temporary_path)
        refuse_file(program, output_path, "cannot write the output", "the path is too long");
    /* the trial file too is removed if the run is stopped while it exists */
    remove_temporary_image_on(SIGINT);
    remove_temporary_image_on(SIGTERM);
    if (make_temporary_image(output_path) != 0)
        refuse_file(program, output_path, "cannot write the output", strerror(errno));
    remove_temporary_image();
}

/* The format a file's first bytes announce, or NULL: for a file stb_image
 * cannot read, whether it is an image at all. */
static const char *image_signature(FILE *file)
{
    unsigned char start[8] = {0};
    size_t length = fread(start, 1, sizeof start, file);
    rewind(file);
    if (length >= 8 && memcmp(start, "\x89PNG\r\n\x1a\n", 8) == 0)
        return "PNG";
    if (length >= 3 && start[0] == 0xFF && start[1] == 0xD8 && start[2] == 0xFF)
        return "JPEG";
    if (length >= 4 && memcmp(start, "GIF8", 4) == 0)
        return "GIF";
    if (length >= 2 && memcmp(start, "BM", 2) == 0)
        return "BMP";
    if (length >= 2 && start[0] == 'P' && start[1] >= '1' && start[1] <= '6')
        return "PPM";
    if (length >= 4 && memcmp(start, "8BPS", 4) == 0)
        return "PSD";
    return NULL; /* TGA has no signature: a broken one reads as "not an image" */
}

/* Whether a JPEG file runs to its end-of-image marker. Newer stb_image (2.28
 * on) decodes a JPEG cut short as if the rest were there, so the course looks
 * itself: marker segments are skipped by their lengths (an EXIF thumbnail,
 * with markers of its own, lies inside one), and in compressed data a 0xFF
 * byte is followed by 0 (a stuffed 0xFF) or a restart marker, so the first
 * other marker after a scan is a real one. */
static int jpeg_is_complete(FILE *file)
{
    int complete = 0, c;
    if (fgetc(file) != 0xFF || fgetc(file) != 0xD8)
        goto done;
    for (;;) {
        do /* to the next marker, past fill bytes of 0xFF */
            c = fgetc(file);
        while (c != EOF && c != 0xFF);
        while (c == 0xFF)
            c = fgetc(file);
        if (c == EOF)
            goto done;
        if (c == 0xD9) {
            complete = 1;
            goto done;
        }
        if (c == 0x00 || (c >= 0xD0 && c <= 0xD7) || c == 0x01)
            continue; /* in compressed data: a stuffed 0xFF, a restart; TEM */
        /* a segment, its length counting its own two bytes; after a start
         * of scan (0xDA) comes its compressed data, which the search for
         * the next marker walks through */
        int high = fgetc(file), low = fgetc(file);
        int length = (high << 8) | low;
        if (low == EOF || length < 2 || fseek(file, length - 2, SEEK_CUR) != 0)
            goto done;
    }
done:
    rewind(file);
    return complete;
}

/* The width and height a PPM or PGM header gives (comments skipped): 1 when
 * it has both, else 0. */
static int ppm_header_size(FILE *file, long long *width, long long *height)
{
    long long sides[2];
    int found = fgetc(file) == 'P' && fgetc(file) != EOF;
    for (int side = 0; side < 2 && found; side++) {
        int c;
        while ((c = fgetc(file)) == '#' || (c > 0 && strchr(" \t\r\n", c)))
            if (c == '#') /* a comment, to the end of its line */
                do
                    c = fgetc(file);
                while (c != EOF && c != '\n');
        found = c >= '0' && c <= '9';
        for (sides[side] = 0; c >= '0' && c <= '9' && sides[side] < 1000000000; c = fgetc(file))
            sides[side] = sides[side] * 10 + (c - '0');
    }
    rewind(file);
    if (found) {
        *width = sides[0];
        *height = sides[1];
    }
    return found;
}

/* Decodes the image at path as 3 bytes a pixel (R G B, row after row; an
 * alpha channel is dropped, a gray image's level repeated three times), each
 * side 1 to max_side pixels. needs_color: a gray file is refused, for a
 * lesson whose point is turning color into gray. */
static unsigned char *load_rgb_image(const char *program, const char *path, int needs_color,
                                     long long max_side, int *width, int *height)
{
    /* the image's own size is the size: a -n beside it would be ignored */
    if (wb_size_flag()) {
        fprintf(stderr, "%s: %s and --image together: the image sets the size\n", program,
                wb_size_flag());
        exit(WB_EXIT_USAGE);
    }
    FILE *file = fopen(path, "rb");
    if (!file)
        refuse_file(program, path, "cannot open the image", strerror(errno));
    int channels = 0;
    if (!stbi_info_from_file(file, width, height, &channels)) {
        const char *format = image_signature(file);
        if (!format) {
            fclose(file);
            refuse_file(program, path, "not an image", "expected PNG, JPEG, BMP, TGA or PPM");
        }
        /* an image, but with a header stb_image will not decode: a size of
         * 0, one it will not allocate, or bytes that make no sense. Newer
         * stb_image refuses a PPM of 0x0 here, older ones below: the same
         * line either way. */
        long long ppm_width, ppm_height;
        if (strcmp(format, "PPM") == 0 && ppm_header_size(file, &ppm_width, &ppm_height) &&
            (ppm_width < 1 || ppm_height < 1 || ppm_width > max_side || ppm_height > max_side)) {
            char size[96];
            snprintf(size, sizeof size, "%lldx%lld: each side must be 1 to %lld", ppm_width,
                     ppm_height, max_side);
            fclose(file);
            refuse_file(program, path, "unusable image size", size);
        }
        fclose(file);
        char problem[64];
        snprintf(problem, sizeof problem, "cannot read the %s header", format);
        refuse_file(program, path, problem,
                    "truncated or corrupt header, or an image too large for the decoder "
                    "(stb_image decodes up to 2 GiB of pixels, a PNG up to 1 GiB)");
    }
    /* 1: gray, 2: gray and alpha; 3: RGB, 4: RGBA */
    if (needs_color && channels < 3) {
        fclose(file);
        refuse_file(program, path, "is a grayscale image already", "this lesson needs RGB input");
    }
    char size[96];
    if (*width < 1 || *height < 1 || *width > max_side || *height > max_side) {
        snprintf(size, sizeof size, "%dx%d: each side must be 1 to %lld", *width, *height,
                 max_side);
        fclose(file);
        refuse_file(program, path, "unusable image size", size);
    }
    if (3LL * *width * *height > STB_MAX_BYTES) {
        snprintf(size, sizeof size, "%dx%d: more than stb_image decodes (2 GiB)", *width,
                 *height);
        fclose(file);
        refuse_file(program, path, "image too large", size);
    }
    const char *format = image_signature(file);
    int cut_short = format && strcmp(format, "JPEG") == 0 && !jpeg_is_complete(file);
    unsigned char *pixels = cut_short ? NULL : stbi_load_from_file(file, width, height, &channels, 3);
    fclose(file);
    /* the header was fine, so the data is at fault */
    if (!pixels)
        refuse_file(program, path, "cannot decode the image", "the file is truncated or corrupt");
    return pixels;
}

/* Writes an 8-bit gray image as PNG into the temporary file, then moves it
 * into place. Failing now is an I/O failure after the start: exit 1. */
static void write_gray_image(const char *program, const char *output_path,
                             const unsigned char *gray, int width, int height, const char *what)
{
    /* from here until the rename, an interruption or a failure removes the file */
    remove_temporary_image_on(SIGINT);
    remove_temporary_image_on(SIGTERM);
    atexit(remove_temporary_image);
    if (make_temporary_image(output_path) != 0) {
        fprintf(stderr, "%s: %s: cannot write the output: %s\n", program, output_path,
                strerror(errno));
        exit(WB_EXIT_CHECK_FAILED);
    }
    if (!stbi_write_png(image_temporary_path, width, height, 1, gray, width)) {
        fprintf(stderr, "%s: %s: writing the PNG failed\n", program, output_path);
        exit(WB_EXIT_CHECK_FAILED);
    }
    if (rename(image_temporary_path, output_path) != 0) {
        fprintf(stderr, "%s: %s: cannot move the PNG into place: %s\n", program, output_path,
                strerror(errno));
        exit(WB_EXIT_CHECK_FAILED);
    }
    image_temporary_exists = 0; /* it is the output now */
    fprintf(stderr, "%s: wrote %s (%dx%d, %s)\n", program, output_path, width, height, what);
}

#endif
