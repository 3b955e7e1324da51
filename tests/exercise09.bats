#!/usr/bin/env bats
# The exercise of lesson 09 (the halo exchange with MPI_Sendrecv) and its
# checker: the untouched skeleton says "not implemented yet", the worked
# solution passes on 1 to 4 ranks, and the typical mistakes are caught, each
# named: a swapped neighbour, a missing edge rank, an off-by-one halo row, a
# deadlock. The checker starts its own 4 ranks (mpirun) when run alone.

setup() {
    load test_helper
    needs_mpi
}

@test "the untouched exercise09 skeleton reports not implemented yet" {
    use_gpu_build
    run "$BUILD/exercise09"
    assert_failure 1
    assert_line --index 0 "exercise09: the halo exchange with MPI_Sendrecv, on 1 to 4 ranks"
    assert_line "exercise09: not implemented yet: no rank received a halo row in any case (fill in the TODOs in lessons/09-multi-gpu/exercise.cu)"
}

@test "the worked solution of exercise09 passes on 1 to 4 ranks, slabs of one row and long rows" {
    use_gpu_build
    run "$BUILD/solution09"
    assert_success
    assert_line "  1 rank, 37 x 3 (3 rows)              PASS"
    assert_line "  3 ranks, 5 x 3 (1, 1, 1 rows)        PASS"
    assert_line "  4 ranks, 3000 x 6 (2, 2, 1, 1 rows)  PASS"
    assert_line "exercise09: PASS (all 8 cases)"
}

@test "run as root, as in a lab's container, exercise09's checker still starts its ranks" {
    [ "$(id -u)" -eq 0 ] || skip "not root here: Open MPI's refusal to run as root does not arise"
    use_gpu_build
    # without the test suite's own permission (test_helper.bash), as a student's shell has it
    run env -u OMPI_ALLOW_RUN_AS_ROOT -u OMPI_ALLOW_RUN_AS_ROOT_CONFIRM "$BUILD/solution09"
    assert_success
    assert_line "exercise09: PASS (all 8 cases)"
}

@test "exercise09's checker under mpirun checks with the ranks it is given" {
    use_gpu_build
    run mpi_run 60 -np 2 "$BUILD/solution09"
    assert_success
    assert_line "exercise09: PASS (all 3 cases)"
    assert_line "(started with 2 ranks: only the cases of up to 2 ran; make exercise09 starts 4)"
}

# Builds the checker with an exercise.cu: the solution changed by the sed
# expression $1, or with $2 the file $2, with the emulator, and runs it with
# a deadlock timeout of 2 s.
run_mutant() {
    [ -d "$EMU_BUILD" ] || skip "no emulator build in $EMU_BUILD"
    local solution="$REPO/solutions/09-multi-gpu/exercise.cu" mutant="$BATS_TEST_TMPDIR/exercise.cu"
    if [ -n "${2:-}" ]; then
        cp "$2" "$mutant"
    else
        sed "$1" "$solution" >"$mutant"
        ! cmp -s "$mutant" "$solution" || fail "the sed expression changed nothing"
    fi
    # shellcheck disable=SC2046  # the flags are a list of words
    "$REPO/common/emu/emucc" -O2 -std=c++20 -Xcompiler -fopenmp -I"$REPO/common" \
        -I"$REPO/lessons/09-multi-gpu" $(mpi_flags) -o "$BATS_TEST_TMPDIR/mutant" "$mutant" \
        "$REPO/lessons/09-multi-gpu/exercise_check.cu" "$(common_object)"
    EXERCISE09_TIMEOUT=2 run timeout 60 "$BATS_TEST_TMPDIR/mutant"
}

@test "exercise09's checker catches a swapped neighbour, naming the halo and the row it holds" {
    # the first row sent down instead of up, the lower halo received from above
    run_mutant 's/MPI_Sendrecv(first_row, width, MPI_FLOAT, above, TAG_UP, halo_below, width, MPI_FLOAT, below,/MPI_Sendrecv(first_row, width, MPI_FLOAT, below, TAG_UP, halo_below, width, MPI_FLOAT, above,/'
    assert_failure 1
    assert_line "  1 rank, 37 x 3 (3 rows)              PASS"
    assert_line "  2 ranks, 37 x 4 (2, 2 rows)          FAIL: rank 0's halo below holds nothing (never written), not field row 2 (rank 1's first row)"
    assert_line "exercise09: FAIL (7 of 8 cases wrong)"
}

@test "exercise09's checker catches an edge rank whose missing neighbour is not MPI_PROC_NULL" {
    # rank 0 sends to rank -1: MPI refuses it, and then its receive waits for ever
    run_mutant 's/int above = rank > 0 ? rank - 1 : MPI_PROC_NULL;/int above = rank - 1;/'
    assert_failure 1
    assert_line "  1 rank, 37 x 3 (3 rows)              FAIL: rank 0: MPI_ERR_RANK: invalid rank (past the field's edge the neighbour is MPI_PROC_NULL); then no rank returned within 2 s"
    assert_line "exercise09: FAIL (case 1 of 8 never ended)"
}

@test "exercise09's checker catches a field whose edges wrap around to the other side" {
    run_mutant 's/int above = rank > 0 ? rank - 1 : MPI_PROC_NULL;/int above = (rank + size - 1) % size;/; s/int below = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;/int below = (rank + 1) % size;/'
    assert_failure 1
    assert_line "  2 ranks, 37 x 4 (2, 2 rows)          FAIL: rank 0's halo above holds field row 3, but no rank is above it: it must stay as it was"
}

@test "exercise09's checker catches a halo row sent instead of the first own row" {
    run_mutant 's/float \*first_row = slab + width,/float *first_row = slab,/'
    assert_failure 1
    assert_line "  2 ranks, 37 x 4 (2, 2 rows)          FAIL: rank 0's halo below holds rank 1's halo (sent instead of its row?), not field row 2 (rank 1's first row)"
}

@test "exercise09's checker catches a row received into the slab's own row" {
    run_mutant 's/float \*halo_above = slab, \*halo_below = slab + (long long)(rows + 1) \* width;/float *halo_above = slab + width, *halo_below = slab + (long long)(rows + 1) * width;/'
    assert_failure 1
    assert_line "  2 ranks, 37 x 4 (2, 2 rows)          FAIL: rank 1's own row 1 holds field row 1, not field row 2: own rows must not change"
}

@test "exercise09's checker stops a deadlock and says it is one" {
    # receive first, then send: every rank waits for a neighbour that waits too
    cat >"$BATS_TEST_TMPDIR/deadlock.cu" <<'EOF'
#include <mpi.h>
void exchange_halos(float *slab, int width, int rows, MPI_Comm comm)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int above = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int below = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    MPI_Recv(slab + (long long)(rows + 1) * width, width, MPI_FLOAT, below, 1, comm, MPI_STATUS_IGNORE);
    MPI_Recv(slab, width, MPI_FLOAT, above, 2, comm, MPI_STATUS_IGNORE);
    MPI_Send(slab + width, width, MPI_FLOAT, above, 1, comm);
    MPI_Send(slab + (long long)rows * width, width, MPI_FLOAT, below, 2, comm);
}
EOF
    run_mutant "" "$BATS_TEST_TMPDIR/deadlock.cu"
    assert_failure 1
    assert_line "  1 rank, 37 x 3 (3 rows)              PASS"
    assert_line "  2 ranks, 37 x 4 (2, 2 rows)          FAIL: a deadlock: exchange_halos did not return within 2 s (a rank that receives before it sends waits for a neighbour that waits too; MPI_Sendrecv sends and receives at once)"
    assert_line "exercise09: FAIL (case 2 of 8 never ended)"
}

@test "exercise09's checker says it cannot check when mpirun does not start the ranks" {
    use_gpu_build
    PATH="$BATS_TEST_TMPDIR/no-mpirun:/usr/bin/false-only" run "$BUILD/solution09"
    assert_equal "$status" 3
    assert_line --partial "exercise09: cannot check: mpirun: "
}
