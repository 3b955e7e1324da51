/*
 * common/image.h - image files for the lessons that read photographs and
 * write their results (02, 08): --image in, --output out.
 *
 * An image named on the command line is checked and decoded before anything
 * is allocated, so a bad file costs nothing but one line; the output is
 * written beside its place and renamed into it at the end, so that nothing
 * half-written is ever left there. Every refusal is one line on stderr,
 *     PROGRAM: PATH: PROBLEM: DETAIL
 * and exit status 2 (a usage error: the file the user named is at fault).
 * The image sets the size, so -n (or --size) beside --image is refused the
 * same way: "PROGRAM: -n and --image together: the image sets the size".
 *
 * Debian's libstb-dev: stb_image reads PNG, JPEG, BMP, TGA, PPM, ...;
 * stb_image_write writes PNG. The implementation is in libstb: a lesson that
 * includes this header has LIBS = -lstb in its lesson.conf. Include it from
 * the lesson's one source file: the functions are defined here.
 */
#ifndef WORKBOOK_IMAGE_H
#define WORKBOOK_IMAGE_H

#include "workbook.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stb/stb_image.h>
#include <stb/stb_image_write.h>

/* stb_image refuses to allocate more than 2^31 - 1 bytes for an image */
#define STB_MAX_BYTES 2147483647LL

/* --output, written here and then renamed */
static char image_temporary_path[PATH_MAX] = "";

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
    if (image_temporary_path[0])
        unlink(image_temporary_path);
}

/* Makes the temporary file beside output_path now, before any work: a path
 * that cannot be written is refused at once rather than after the run. */
static void open_output_image(const char *program, const char *output_path)
{
    struct stat status;
    if (stat(output_path, &status) == 0 && S_ISDIR(status.st_mode))
        refuse_file(program, output_path, "cannot write the output", "it is a directory");
    int length = snprintf(image_temporary_path, sizeof image_temporary_path, "%s.XXXXXX",
                          output_path);
    if (length >= (int)sizeof image_temporary_path)
        refuse_file(program, output_path, "cannot write the output", "the path is too long");
    int descriptor = mkstemp(image_temporary_path);
    if (descriptor < 0) {
        image_temporary_path[0] = '\0';
        refuse_file(program, output_path, "cannot write the output", strerror(errno));
    }
    /* mkstemp makes the file private (0600); give it the usual permissions */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(descriptor, 0666 & ~mask);
    close(descriptor);
    atexit(remove_temporary_image);
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
        fclose(file);
        refuse_file(program, path, "not an image", "expected PNG, JPEG, BMP, TGA or PPM");
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
    unsigned char *pixels = stbi_load_from_file(file, width, height, &channels, 3);
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
    if (!stbi_write_png(image_temporary_path, width, height, 1, gray, width)) {
        fprintf(stderr, "%s: %s: writing the PNG failed\n", program, output_path);
        exit(WB_EXIT_CHECK_FAILED);
    }
    if (rename(image_temporary_path, output_path) != 0) {
        fprintf(stderr, "%s: %s: cannot move the PNG into place: %s\n", program, output_path,
                strerror(errno));
        exit(WB_EXIT_CHECK_FAILED);
    }
    image_temporary_path[0] = '\0';
    fprintf(stderr, "%s: wrote %s (%dx%d, %s)\n", program, output_path, width, height, what);
}

#endif
