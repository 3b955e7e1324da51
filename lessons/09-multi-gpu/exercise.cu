/*
 * Exercise 09: the halo exchange, with MPI_Sendrecv.
 *
 * Lesson 09 cuts the field into horizontal slabs, one per MPI rank, rank 0 at
 * the top. A cell on a slab's first or last row needs the row next to it,
 * which another rank owns, so each rank keeps a copy of that row, a halo,
 * above and below its own rows:
 *
 *     slab row 0              halo: a copy of the last row of the rank above
 *     slab rows 1 .. rows     this rank's own rows
 *     slab row rows + 1       halo: a copy of the first row of the rank below
 *
 * each row `width` floats, row after row. Before every step the ranks
 * exchange: each sends its first own row to the rank above and its last own
 * row to the rank below, and receives the rank above's last row into its
 * upper halo and the rank below's first row into its lower halo.
 *
 * The ranks of `comm` are numbered from the top of the field: the rank above
 * is rank - 1, the rank below rank + 1. The first rank has no rank above and
 * the last none below: there the neighbour is MPI_PROC_NULL, a rank to which
 * a send does nothing and from which a receive receives nothing, so that the
 * edge ranks need no code of their own and their outer halo stays as it was.
 *
 * Send and receive with MPI_Sendrecv, which sends one row and receives
 * another at once. A rank that receives first (MPI_Recv, then MPI_Send)
 * waits for its neighbour, which waits for it: a deadlock.
 *
 * Fill in exchange_halos where it says TODO, then check your work:
 *     make exercise09
 * The checker starts 4 ranks (mpirun) and exchanges on 1 to 4 of them, over
 * fields of several shapes, slabs of one row among them. It answers "not
 * implemented yet", PASS, or FAIL naming the rank, the halo, and the field row
 * it holds; a deadlock is stopped after 10 s and named as one.
 * The worked solution is in solutions/09-multi-gpu/exercise.cu (make solution09).
 */
#include <mpi.h>

void exchange_halos(float *slab, int width, int rows, MPI_Comm comm)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);

    /* TODO 1: the neighbours: above = rank - 1 and below = rank + 1, or
     *         MPI_PROC_NULL for the first rank's above and the last rank's below. */

    /* TODO 2: upwards: this rank's first own row (slab row 1) to the rank
     *         above, and from the rank below into the lower halo (slab row
     *         rows + 1), in one MPI_Sendrecv of `width` MPI_FLOATs with a tag,
     *         the same on both sides. */

    /* TODO 3: downwards: the last own row (slab row rows) to the rank below,
     *         and from the rank above into the upper halo (slab row 0), with
     *         another tag. */
}
