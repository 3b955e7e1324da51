/*
 * common/workbook_mpi.h - wb_main for a lesson whose program runs as MPI
 * ranks (lesson 09): the ranks of MPI_COMM_WORLD become a team of common/
 * (workbook.h: "programs of several processes"), so that rank 0 prints the
 * table, every rank checks, and every rank stops on an error.
 *
 *     int main(int argc, char **argv)
 *     {
 *         MPI_Init(&argc, &argv);
 *         ... choose this rank's GPU (cudaSetDevice) ...
 *         return wb_main_mpi(&lesson, "a line on the ranks for the header", argc, argv);
 *     }
 *
 * Started alone (./lesson09) the program is one rank: MPI_Init makes a world
 * of one process (a singleton), no mpirun needed.
 */
#ifndef WORKBOOK_MPI_H
#define WORKBOOK_MPI_H

#include "workbook.h"

#include <mpi.h>
#include <stdlib.h>
#include <time.h>

/* Waits for every rank without spinning: Open MPI's blocking calls poll the
 * network at full speed, and a rank polling in a barrier would take a core
 * from rank 0 while it times the CPU reference on every core. */
static void wb_mpi_barrier(void)
{
    const struct timespec pause = {0, 100000}; /* 0.1 ms between polls */
    MPI_Request request;
    int done = 0;
    MPI_Ibarrier(MPI_COMM_WORLD, &request);
    for (MPI_Test(&request, &done, MPI_STATUS_IGNORE); !done;
         MPI_Test(&request, &done, MPI_STATUS_IGNORE))
        nanosleep(&pause, NULL);
}

static double wb_mpi_max(double value)
{
    double largest;
    MPI_Allreduce(&value, &largest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return largest;
}

/* Every rank meets the same usage error, or --help: each finalizes and
 * exits with the status (mpirun then reports no rank as failed). */
static void wb_mpi_leave(int status)
{
    MPI_Finalize();
    exit(status);
}

/* One rank met an error of its own: MPI_Abort stops every rank of the job,
 * so that none waits for ever for a message this one will not send. */
static void wb_mpi_abort(int status)
{
    MPI_Abort(MPI_COMM_WORLD, status);
    exit(status);
}

/* wb_main on every rank, then MPI_Finalize; every rank returns the same
 * status. about: the header's line on the ranks and their GPUs. */
static int wb_main_mpi(const wb_lesson *lesson, const char *about, int argc, char **argv)
{
    wb_team team;
    MPI_Comm_rank(MPI_COMM_WORLD, &team.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &team.size);
    team.about = about;
    team.barrier = wb_mpi_barrier;
    team.max = wb_mpi_max;
    team.leave = wb_mpi_leave;
    team.abort = wb_mpi_abort;
    wb_join_team(&team);
    int status = wb_main(lesson, argc, argv);
    MPI_Finalize();
    return status;
}

#endif
