/*
 * Exercise 09, a worked solution: the halo exchange, with MPI_Sendrecv.
 * make solution09 checks it.
 */
#include <mpi.h>

/* message tags: a row on its way up (to the rank above), or down */
#define TAG_UP 1
#define TAG_DOWN 2

void exchange_halos(float *slab, int width, int rows, MPI_Comm comm)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);

    /* MPI_PROC_NULL at the field's edges: the sends to it and the receives
     * from it do nothing, and the outer halo stays as it was */
    int above = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int below = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    float *first_row = slab + width, *last_row = slab + (long long)rows * width;
    float *halo_above = slab, *halo_below = slab + (long long)(rows + 1) * width;

    /* Each call sends and receives at once: every rank sends up while the
     * rank above receives from below, so no rank waits for one that waits too. */
    MPI_Sendrecv(first_row, width, MPI_FLOAT, above, TAG_UP, halo_below, width, MPI_FLOAT, below,
                 TAG_UP, comm, MPI_STATUS_IGNORE);
    MPI_Sendrecv(last_row, width, MPI_FLOAT, below, TAG_DOWN, halo_above, width, MPI_FLOAT, above,
                 TAG_DOWN, comm, MPI_STATUS_IGNORE);
}
