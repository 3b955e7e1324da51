/*
 * The checker of exercise 09: make exercise09 builds it with your
 * exercise.cu, make solution09 with the worked solution.
 *
 * It calls exchange_halos on the slabs of fields of several shapes, split
 * over 1 to 4 ranks as lesson 09 splits them (slab.h): taller and shorter
 * slabs, slabs of one row, a row of one cell and rows of 12 kB (longer than
 * the few kB MPI sends without waiting for the receiver). Every cell holds
 * its own address, 4096 x (field row + 1) + column, so a halo that holds the
 * wrong row tells which row it holds; every halo starts as its rank's mark,
 * -(rank + 1), so a halo left unwritten, or a neighbour's halo sent instead
 * of its row, shows as such. The own rows must come back untouched.
 *
 * Started by itself (make exercise09), the checker starts itself again as 4
 * MPI ranks, mpirun -np 4 --oversubscribe (a check, not a timing: ranks
 * may share cores), and passes on what they print. Under mpirun it checks
 * with the ranks it is given. A case that does not return within
 * EXERCISE09_TIMEOUT seconds (default 10) is a deadlock: the check stops
 * there and says so. An MPI call that fails (a rank that does not exist)
 * is reported with MPI's message.
 *
 * Exit status: 0 PASS, 1 FAIL or not implemented yet, 3 cannot check (no mpirun).
 */
#include "workbook.h"
#include "slab.h"

#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* written by you in exercise.cu */
void exchange_halos(float *slab, int width, int rows, MPI_Comm comm);

#define NAME "exercise09"
#define EXERCISE_FILE "lessons/09-multi-gpu/exercise.cu"
#define CHECK_RANKS 4
#define DEFAULT_TIMEOUT_S 10
/* a cell's address: 4096 x (row + 1) + column, exact in a float for the
 * fields below (rows < 16, columns < 4096) */
#define ROW_STRIDE 4096

typedef struct {
    int ranks, width, height;
} exchange_case;

static const exchange_case cases[] = {
    {1, 37, 3},   /* one rank: both halos stay as they were */
    {2, 37, 4},   /* two ranks of two rows */
    {2, 1, 3},    /* rows of one cell, slabs of two rows and one */
    {3, 37, 7},   /* three ranks: 3, 2 and 2 rows */
    {3, 5, 3},    /* three slabs of one row: first row = last row */
    {4, 37, 9},   /* four ranks: 3, 2, 2, 2: two neighbours in the middle */
    {4, 33, 5},   /* 2, 1, 1, 1 */
    {4, 3000, 6}, /* rows of 12 kB, sent only when the receiver is ready */
};
#define CASE_COUNT (int)(sizeof cases / sizeof cases[0])

/* ---- what a halo holds, in words ------------------------------------------ */

static float address(int row, int col) { return (float)(ROW_STRIDE * (row + 1) + col); }
static float mark_of(int rank) { return (float)-(rank + 1); }

/* What a cell holds: "field row 3", "nothing (never written)", "rank 2's
 * halo (sent instead of its row?)". */
static void describe(float value, int me, char *text, size_t room)
{
    if (value == mark_of(me))
        snprintf(text, room, "nothing (never written)");
    else if (value < 0 && value == floorf(value))
        snprintf(text, room, "rank %d's halo (sent instead of its row?)", (int)-value - 1);
    else if (value >= ROW_STRIDE && value == floorf(value))
        snprintf(text, room, "field row %d", (int)value / ROW_STRIDE - 1);
    else
        snprintf(text, room, "%g, no cell of the field", value);
}

/* Leaves verdict as it is when the row of `width` cells at `cells` holds
 * field row `row` (row < 0: still `mark`, as before the exchange); else says
 * what it holds instead: "rank 1's halo above holds field row 0, " and then
 * `expected`. */
static void check_row(const float *cells, int width, int row, float mark, int me,
                      const char *what, const char *expected, char *verdict, size_t room)
{
    for (int col = 0; col < width; col++) {
        float want = row >= 0 ? address(row, col) : mark;
        if (cells[col] == want)
            continue;
        char holds[96], where[32] = "";
        describe(cells[col], me, holds, sizeof holds);
        if (col > 0)
            snprintf(where, sizeof where, " at column %d", col);
        snprintf(verdict, room, "rank %d's %s holds %s%s, %s", me, what, holds, where, expected);
        return;
    }
}

/* ---- MPI errors and deadlocks ----------------------------------------------- */

/* The message of an MPI call that failed on this rank in the current case:
 * MPI calls this rather than stopping the program. */
static char mpi_failure[MPI_MAX_ERROR_STRING + 64];
static void compose_timeout_report(void);

static void record_mpi_error(MPI_Comm *comm, int *code, ...)
{
    char message[MPI_MAX_ERROR_STRING];
    int length = 0, error_class;
    MPI_Error_string(*code, message, &length);
    MPI_Error_class(*code, &error_class);
    if (mpi_failure[0])
        return; /* the first one says the most */
    snprintf(mpi_failure, sizeof mpi_failure, "%s%s", message,
             error_class == MPI_ERR_RANK
                 ? " (past the field's edge the neighbour is MPI_PROC_NULL)" : "");
    compose_timeout_report(); /* a rank that waits after this waits for nothing */
}

/* What rank 0 prints if a case never returns, written by the alarm's
 * handler (which may only write): the report after the title up to that
 * case, the case, and the verdict. Made before each case, and again when an MPI call fails,
 * into the buffer the handler does not read; then the handler is pointed
 * at it. */
static char timeout_reports[2][8192];
static volatile sig_atomic_t timeout_ready;
static struct {
    int world_rank, timeout_s, index, count;
    const char *label;
    const char (*lines)[WB_VERDICT_LENGTH];
} current;

static void compose_timeout_report(void)
{
    if (current.world_rank != 0)
        return;
    char *text = timeout_reports[1 - timeout_ready];
    size_t room = sizeof timeout_reports[0];
    text[0] = '\0'; /* the title is out already */
    for (int l = 0; l < current.index; l++)
        snprintf(text + strlen(text), room - strlen(text), "%s\n", current.lines[l]);
    if (mpi_failure[0])
        snprintf(text + strlen(text), room - strlen(text),
                 "  %-36s FAIL: rank 0: %s; then no rank returned within %d s\n", current.label,
                 mpi_failure, current.timeout_s);
    else
        snprintf(text + strlen(text), room - strlen(text),
                 "  %-36s FAIL: a deadlock: exchange_halos did not return within %d s (a rank "
                 "that receives before it sends waits for a neighbour that waits too; "
                 "MPI_Sendrecv sends and receives at once)\n", current.label, current.timeout_s);
    snprintf(text + strlen(text), room - strlen(text), "%s: FAIL (case %d of %d never ended)\n",
             NAME, current.index + 1, current.count);
    timeout_ready = 1 - timeout_ready;
}

static void on_timeout(int signal_number)
{
    (void)signal_number;
    const char *text = timeout_reports[timeout_ready];
    ssize_t written = write(STDOUT_FILENO, text, strlen(text));
    (void)written;
    _exit(WB_EXIT_CHECK_FAILED);
}

/* The other ranks wait a little longer, so that rank 0 reports first. */
static void on_timeout_quietly(int signal_number)
{
    (void)signal_number;
    _exit(WB_EXIT_CHECK_FAILED);
}

/* ---- one case -------------------------------------------------------------- */

#define VERDICT WB_VERDICT_LENGTH

/* On every rank of the world: the ranks of the case make a communicator of
 * their own, exchange, and check their slab; rank 0 gathers the verdicts.
 * Returns 1 on a rank whose halos were written at all. */
static int run_case(const exchange_case *c, int world_rank, char (*verdicts)[VERDICT])
{
    char verdict[VERDICT] = "";
    int wrote_something = 0;
    MPI_Comm comm;
    MPI_Comm_split(MPI_COMM_WORLD, world_rank < c->ranks ? 0 : MPI_UNDEFINED, world_rank, &comm);
    if (comm != MPI_COMM_NULL) {
        MPI_Errhandler recorder;
        MPI_Comm_create_errhandler(record_mpi_error, &recorder);
        MPI_Comm_set_errhandler(comm, recorder);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, recorder); /* for an exchange on the wrong one */
        slab part = slab_of(world_rank, c->ranks, c->width, c->height);
        size_t row_cells = (size_t)c->width;
        float *cells = (float *)wb_alloc_host((part.rows + 2) * row_cells * sizeof(float),
                                              "the slab");
        float mark = mark_of(world_rank);
        for (size_t i = 0; i < row_cells; i++)
            cells[i] = cells[(part.rows + 1) * row_cells + i] = mark;
        for (int r = 0; r < part.rows; r++)
            for (int col = 0; col < c->width; col++)
                cells[(r + 1) * row_cells + col] = address(part.first_row + r, col);

        exchange_halos(cells, c->width, part.rows, comm);

        const float *halo_below = cells + (part.rows + 1) * row_cells;
        for (size_t i = 0; i < row_cells; i++)
            wrote_something |= cells[i] != mark || halo_below[i] != mark;
        char expected[128];
        if (mpi_failure[0])
            snprintf(verdict, sizeof verdict, "rank %d: %.160s", world_rank, mpi_failure);
        for (int r = 0; r < part.rows && !verdict[0]; r++) {
            snprintf(expected, sizeof expected, "not field row %d: own rows must not change",
                     part.first_row + r);
            char what[32];
            snprintf(what, sizeof what, "own row %d", r + 1);
            check_row(cells + (r + 1) * row_cells, c->width, part.first_row + r, mark, world_rank,
                      what, expected, verdict, sizeof verdict);
        }
        if (world_rank > 0)
            snprintf(expected, sizeof expected, "not field row %d (rank %d's last row)",
                     part.first_row - 1, world_rank - 1);
        else
            snprintf(expected, sizeof expected, "but no rank is above it: it must stay as it was");
        if (!verdict[0])
            check_row(cells, c->width, world_rank > 0 ? part.first_row - 1 : -1, mark,
                      world_rank, "halo above", expected, verdict, sizeof verdict);
        if (world_rank < c->ranks - 1)
            snprintf(expected, sizeof expected, "not field row %d (rank %d's first row)",
                     part.first_row + part.rows, world_rank + 1);
        else
            snprintf(expected, sizeof expected, "but no rank is below it: it must stay as it was");
        if (!verdict[0])
            check_row(halo_below, c->width,
                      world_rank < c->ranks - 1 ? part.first_row + part.rows : -1, mark,
                      world_rank, "halo below", expected, verdict, sizeof verdict);
        free(cells);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
        MPI_Errhandler_free(&recorder);
        MPI_Comm_free(&comm);
    }
    MPI_Gather(verdict, VERDICT, MPI_CHAR, verdicts, VERDICT, MPI_CHAR, 0, MPI_COMM_WORLD);
    return wrote_something;
}

/* "4 ranks, 37 x 9 (3, 2, 2, 2 rows)": the slabs' rows */
static void describe_case(const exchange_case *c, char *text, size_t room)
{
    snprintf(text, room, "%d rank%s, %d x %d (", c->ranks, c->ranks == 1 ? "" : "s",
             c->width, c->height);
    for (int r = 0; r < c->ranks; r++)
        snprintf(text + strlen(text), room - strlen(text), "%s%d", r ? ", " : "",
                 slab_of(r, c->ranks, c->width, c->height).rows);
    snprintf(text + strlen(text), room - strlen(text), " row%s)",
             c->ranks == 1 && c->height == 1 ? "" : "s");
}

/* ---- the ranks' side ---------------------------------------------------------- */

static int check_as_ranks(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int world_rank, world_size;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    const char *timeout_text = getenv("EXERCISE09_TIMEOUT");
    int timeout_s = timeout_text && atoi(timeout_text) > 0 ? atoi(timeout_text) : DEFAULT_TIMEOUT_S;
    signal(SIGALRM, world_rank == 0 ? on_timeout : on_timeout_quietly);

    const char *title = "the halo exchange with MPI_Sendrecv, on 1 to 4 ranks";
    char lines[CASE_COUNT][VERDICT];
    current.world_rank = world_rank;
    current.timeout_s = timeout_s;
    current.lines = lines;
    current.count = 0;
    for (int i = 0; i < CASE_COUNT; i++)
        current.count += cases[i].ranks <= world_size;
    char (*verdicts)[VERDICT] = (char (*)[VERDICT])wb_alloc_host(
        (size_t)world_size * VERDICT, "the verdicts");
    int count = 0, failures = 0, wrote_anything = 0;
    /* at once: it also tells the process that started the ranks that they run */
    if (world_rank == 0) {
        printf("%s: %s\n", NAME, title);
        fflush(stdout);
    }
    for (int i = 0; i < CASE_COUNT; i++) {
        const exchange_case *c = &cases[i];
        if (c->ranks > world_size)
            continue; /* started with fewer ranks than the case needs */
        char label[96];
        describe_case(c, label, sizeof label);
        current.label = label;
        current.index = count;
        mpi_failure[0] = '\0';
        compose_timeout_report();
        alarm(world_rank == 0 ? timeout_s : timeout_s + 2);
        wrote_anything |= run_case(c, world_rank, verdicts);
        alarm(0);
        if (world_rank == 0) {
            const char *bad = NULL;
            for (int r = 0; r < c->ranks && !bad; r++)
                if (verdicts[r][0])
                    bad = verdicts[r];
            snprintf(lines[count], VERDICT, "  %-36s %s%s", label, bad ? "FAIL: " : "PASS",
                     bad ? bad : "");
            failures += bad != NULL;
        }
        count++;
    }
    int wrote = 0;
    MPI_Allreduce(&wrote_anything, &wrote, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    int status = WB_EXIT_OK;
    if (world_rank == 0) {
        if (!wrote && world_size > 1) {
            status = wb_report_not_implemented(NAME, "no rank received a halo row in any case",
                                               EXERCISE_FILE);
        } else {
            for (int l = 0; l < count; l++)
                printf("%s\n", lines[l]);
            status = wb_report_verdict(NAME, failures, count, "cases", NULL);
        }
        if (world_size < CHECK_RANKS)
            printf("(started with %d rank%s: only the cases of up to %d ran; "
                   "make exercise09 starts %d)\n", world_size, world_size == 1 ? "" : "s",
                   world_size, CHECK_RANKS);
        fflush(stdout);
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(verdicts);
    MPI_Finalize();
    return status;
}

/* ---- started by itself: start the ranks ------------------------------------------ */

/* Under mpirun (or srun), the launcher tells each rank where it stands. */
static int started_by_mpi(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK");
}

/* Runs this program again as CHECK_RANKS ranks and passes on their report.
 * Ranks that never spoke were not started (mpirun says why): the exercise
 * cannot be checked here. Ranks that stop before their verdict crashed. */
static int start_ranks(void)
{
    char self[4096];
    ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
    if (length <= 0) {
        printf("%s: cannot check: cannot find this program (/proc/self/exe: %s)\n", NAME,
               strerror(errno));
        return WB_EXIT_NO_DEVICE;
    }
    self[length] = '\0';
    int out[2];
    if (pipe(out) != 0) {
        printf("%s: cannot check: pipe: %s\n", NAME, strerror(errno));
        return WB_EXIT_NO_DEVICE;
    }
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        dup2(out[1], STDOUT_FILENO);
        close(out[0]);
        close(out[1]);
        /* A lab's container runs as root, which Open MPI refuses unless told
         * twice: the checker's own ranks are told, nothing else is. */
        if (geteuid() == 0) {
            setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
            setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
        }
        char ranks_text[8];
        snprintf(ranks_text, sizeof ranks_text, "%d", CHECK_RANKS);
        /* mpirun's own notices about ranks that exit with a failure stay out of the report:
         * Open MPI 4's quiet mode, set as a variable because its -q flag is gone from Open MPI 5,
         * whose notices go to stderr, not into the report */
        setenv("OMPI_MCA_orte_execute_quiet", "1", 1);
        /* and Open MPI 5's TCP transport, which ranks on one machine do not need, from warning
         * on a machine with IPv6 addresses that it cannot pair them */
        setenv("OMPI_MCA_btl_tcp_disable_family", "6", 0);
        execlp("mpirun", "mpirun", "-np", ranks_text, "--oversubscribe", "--bind-to", "none", self,
               (char *)NULL);
        printf("%s: cannot check: mpirun: %s (sudo apt-get install openmpi-bin)\n", NAME,
               strerror(errno));
        fflush(stdout);
        _exit(127);
    }
    close(out[1]);
    FILE *report = fdopen(out[0], "r");
    char line[4096];
    int verdict_seen = 0, lines_seen = 0;
    while (report && fgets(line, sizeof line, report)) {
        lines_seen++;
        fputs(line, stdout);
        fflush(stdout);
        verdict_seen |= strncmp(line, NAME ": PASS", strlen(NAME ": PASS")) == 0 ||
                        strncmp(line, NAME ": FAIL", strlen(NAME ": FAIL")) == 0 ||
                        strncmp(line, NAME ": not implemented", strlen(NAME ": not implemented")) == 0 ||
                        strncmp(line, NAME ": cannot check", strlen(NAME ": cannot check")) == 0;
    }
    int status = 0;
    waitpid(child, &status, 0);
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (code == 127)
        return WB_EXIT_NO_DEVICE;
    if (lines_seen == 0) {
        printf("%s: cannot check: mpirun -np %d did not start the ranks (exit status %d; it says "
               "why above)\n", NAME, CHECK_RANKS, code);
        return WB_EXIT_NO_DEVICE;
    }
    if (!verdict_seen) {
        printf("%s: FAIL: the ranks stopped before their verdict (mpirun's exit status %d): a "
               "crash? (see above)\n", NAME, code);
        return WB_EXIT_CHECK_FAILED;
    }
    return code;
}

int main(int argc, char **argv)
{
    if (started_by_mpi())
        return check_as_ranks(argc, argv);
    return start_ranks();
}
