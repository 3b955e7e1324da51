/*
 * lessons/09-multi-gpu/slab.h - which rows of the field each rank owns: used
 * by multi_gpu.cu and by the exercise's checker.
 */
#ifndef SLAB_H
#define SLAB_H

/* A rank's part of a field width x height: rows [first_row, first_row +
 * rows). */
typedef struct {
    int width, height;
    int first_row, rows;
} slab;

/* Rank r of `ranks` gets height / ranks rows, and the first height % ranks
 * ranks one row more: slabs differ by one row at most, and the first ones
 * are the taller. */
static inline slab slab_of(int r, int ranks, int width, int height)
{
    slab part;
    int base = height / ranks, extra = height % ranks;
    part.width = width;
    part.height = height;
    part.rows = base + (r < extra ? 1 : 0);
    part.first_row = r * base + (r < extra ? r : extra);
    return part;
}

#endif
