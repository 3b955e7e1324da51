#!/usr/bin/env bats
# Lesson 09, lesson 03's diffusion split over MPI ranks: what is particular to
# this lesson. The generic contract (./lesson09 alone, one rank) is in
# contract.bats, the exercise in exercise09.bats. The ranks start with
# mpi_run (test_helper.bash: mpirun without its own notices), at small fields:
# about a second a run.

setup() {
    load test_helper
    needs_mpi
}

# lesson09 RANKS ARGS...: the lesson on that many ranks, stopped after 60 s,
# so that a rank that hangs fails the test rather than stalling it
lesson09() {
    local ranks="$1"
    shift
    run --separate-stderr mpi_run 60 -np "$ranks" "$BUILD/lesson09" "$@"
}

# The CSV on stdin: one header, each row once, naive and optimized among
# them, every GPU row PASS with an error of exactly 0.
assert_rows_exact() {
    local csv
    csv=$(cat)
    assert_equal "$(grep -c '^lesson,' <<<"$csv")" 1
    assert_equal "$(csv_column variant <<<"$csv" | sort | uniq -d)" ""
    for variant in naive optimized; do
        grep -q "^lesson09,$variant,kernel," <<<"$csv" || fail "no $variant row: $csv"
    done
    assert_equal "$(awk -F , 'NR > 1 && $2 != "cpu" { print $19, $20 }' <<<"$csv" | sort -u)" "PASS 0"
}

@test "lesson09 on 1 to 4 ranks gives lesson 03's field bit for bit, on slabs of unequal height" {
    use_gpu_build
    # 11 rows: 11; 6 and 5; 4, 4 and 3; 3, 3, 3 and 2
    for ranks in 1 2 3 4; do
        lesson09 "$ranks" -n 37x11 --steps 3 --reps 1 --warmup 0 --csv
        [ "$status" -eq 0 ] || fail "$ranks ranks: exit status $status: $stderr"
        assert_rows_exact <<<"$output"
    done
}

@test "lesson09 on 8 ranks passes with slabs of a single row" {
    use_gpu_build
    # 9 rows over 8 ranks: 2, then seven of one; 8 rows: one each
    for shape in 20x9 5x8; do
        lesson09 8 -n "$shape" --steps 2 --reps 1 --warmup 0 --csv
        [ "$status" -eq 0 ] || fail "-n $shape: exit status $status: $stderr"
        assert_rows_exact <<<"$output"
    done
}

@test "lesson09's table says how the ranks are placed, and under it each step's exchange and timelines" {
    use_gpu_build
    lesson09 3 -n 40x10 --steps 4 --reps 1 --warmup 0 --quiet-warnings
    assert_success
    assert_line --index 0 "lesson09: lesson 03's diffusion split over MPI ranks, a slab of rows on each GPU, float32"
    if [ "$BUILD" = "$EMU_BUILD" ]; then
        assert_line "ranks    3 MPI ranks, a slab of rows each, each with an emulated GPU of its own"
    else
        assert_line --regexp "^ranks    3 MPI ranks on 1 node, (a slab of rows each, one GPU each|more than GPUs: ranks share a GPU \(shared GPU: correctness only, not a scaling measurement\))"
    fi
    # the whole field of 400 cells moves 8 B a cell and step, as in lesson 03
    assert_line "problem  field = 40x10; moves 12.8 kB, 1.12e+04 FLOP"
    assert_line --regexp "^memory   .* on the host, .* on the device, on each rank$"
    assert_line --regexp "^naive +kernel .* PASS \(max err 0\)$"
    assert_line --regexp "^optimized +kernel .* PASS \(max err 0\)$"
    # 10 rows over 3 ranks: 4, 3 and 3
    assert_line "per step, 3 ranks: slabs of 3 or 4 rows of 40 cells, MPI through the host"
    assert_line --regexp "^  naive +[0-9.]+ ms a step; exchange +[0-9.]+ ms, +[0-9]+% of it hidden$"
    assert_line --regexp "^  optimized +[0-9.]+ ms a step; exchange +[0-9.]+ ms, +[0-9]+% of it hidden$"
    # naive: an exchange and a kernel a step; optimized: an exchange (the first
    # before the steps), the edge rows and the interior
    assert_line --regexp "^timeline of naive on rank 0, 4 steps, its latest run: 8 spans over "
    assert_line --regexp "^timeline of optimized on rank 0, 4 steps, its latest run: 12 spans over "
    for lane in "exchange " "slab     " "edge rows" "interior "; do
        assert_line --regexp "^  $lane \|[ 0-3]{60}\| busy "
    done
    assert_line "all 2 checks passed against the CPU reference: naive, optimized; skipped rows are no failure"
}

@test "./lesson09 started alone is one rank with the whole field" {
    use_gpu_build
    run "$BUILD/lesson09" -n 16x4 --steps 2 --reps 1 --warmup 0 --quiet-warnings
    assert_success
    assert_line "ranks    1 MPI rank: the whole field on one GPU (mpirun -np N ./lesson09 splits it into N slabs)"
    assert_line "per step, 1 rank: slabs of 4 rows of 16 cells, MPI through the host"
}

@test "a field with fewer rows than ranks is refused on every rank, rank 0 saying so in one line" {
    use_any_build
    # each rank a shell that runs lesson09 and says how it exited (the shell
    # then exits 0: mpirun stops the other ranks when one exits with a failure)
    run --separate-stderr mpi_run 60 -np 3 \
        sh -c '"$0" -n 8x2 --reps 1; echo "rank exit $?" >&2' "$BUILD/lesson09"
    assert_success
    assert_output ""
    assert_equal "$(grep -c -x 'rank exit 2' <<<"$stderr")" 3
    assert_equal "$(grep -v -x 'rank exit 2' <<<"$stderr")" \
        "lesson09: -n 8x2: a field of 2 rows cannot be split over 3 ranks: each rank needs a row at least (see --help)"
}

@test "an unknown flag or a step count of 0 under mpirun is one line from rank 0 and exit status 2" {
    use_any_build
    lesson09 4 --frobnicate
    assert_equal "$status" 2 # mpirun's: every rank's, or the first to exit
    assert_output ""
    assert_equal "$stderr" "lesson09: unknown option '--frobnicate' (see --help)"
    lesson09 2 --steps 0
    assert_equal "$status" 2
    assert_equal "$stderr" "lesson09: --steps value '0' is out of range (1 to 1000000) (see --help)"
}

@test "every rank's kernels stay inside its slab under guard pages and poisoned memory, in every thread order" {
    [ -d "$EMU_BUILD" ] || skip "no emulator build in $EMU_BUILD"
    BUILD="$EMU_BUILD"
    for order in forward reverse random:2024; do
        CUDA_EMU_GUARD=1 CUDA_EMU_POISON=1 CUDA_EMU_ORDER=$order \
            lesson09 3 -n 33x9 --steps 3 --reps 1 --warmup 0 --csv
        [ "$status" -eq 0 ] || fail "$order: exit status $status: $stderr"
        assert_rows_exact <<<"$output"
    done
}

# Builds lesson09 with one sed expression applied to its file and to lesson
# 03's diffusion.h, with the emulator, into $BATS_TEST_TMPDIR/broken.
build_mutated_lesson() {
    [ -d "$EMU_BUILD" ] || skip "no emulator build in $EMU_BUILD"
    local tree="$BATS_TEST_TMPDIR/lessons" changed=""
    mkdir -p "$tree/03-diffusion" "$tree/09-multi-gpu"
    cp "$REPO"/lessons/09-multi-gpu/*.h "$tree/09-multi-gpu/"
    for file in 09-multi-gpu/multi_gpu.cu 03-diffusion/diffusion.h; do
        sed "$1" "$REPO/lessons/$file" >"$tree/$file"
        cmp -s "$REPO/lessons/$file" "$tree/$file" || changed=yes
    done
    [ -n "$changed" ] || fail "the sed expression changed nothing"
    # shellcheck disable=SC2046  # the flags are a list of words
    "$REPO/common/emu/emucc" -O2 -std=c++20 -Xcompiler -fopenmp -I"$REPO/common" $(mpi_flags) \
        -o "$BATS_TEST_TMPDIR/broken" "$tree/09-multi-gpu/multi_gpu.cu" "$(common_object)"
}

@test "a kernel that takes the slab's first row for the field's border fails once the field is split" {
    build_mutated_lesson 's/float up = field_row > 0 ? from\[here - width\] : centre;/float up = row > 0 ? from[here - width] : centre;/'
    BUILD="$BATS_TEST_TMPDIR"
    run --separate-stderr "$BUILD/broken" -n 37x11 --steps 3 --only naive --reps 1 --warmup 0
    assert_success # one rank: the slab's first row is the field's
    run --separate-stderr mpi_run 60 -np 3 "$BUILD/broken" -n 37x11 --steps 3 --only naive \
        --reps 1 --warmup 0
    assert_equal "$status" 1
    assert_line --regexp "^naive +kernel .* FAIL \(max err "
    [[ "$stderr" == "lesson09: naive (kernel) FAIL: final field: first mismatch at (row "* ]] ||
        fail "stderr does not name the first mismatch: $stderr"
}

@test "an optimized exchange that sends nothing between the steps fails on two ranks" {
    build_mutated_lesson 's/        if (s < steps - 1) {/        if (0) {/'
    run --separate-stderr mpi_run 60 -np 2 "$BATS_TEST_TMPDIR/broken" -n 37x11 --steps 3 \
        --only naive,optimized --reps 1 --warmup 0
    assert_equal "$status" 1
    assert_line --regexp "^naive +kernel .* PASS \(max err 0\)$"
    assert_line --regexp "^optimized +kernel .* FAIL "
}

@test "make bench starts lesson09 with its lesson.conf's LAUNCH, and records rank 0's rows" {
    [ -x "$EMU_BUILD/lesson09" ] || skip "no emulator build of lesson09 in $EMU_BUILD"
    cd "$REPO"
    # an mpirun first on PATH that notes how it was called, then runs the real one
    local real_mpirun
    real_mpirun=$(command -v mpirun)
    mkdir -p "$BATS_TEST_TMPDIR/bin"
    printf '#!/bin/sh\necho "$*" >>"%s/mpirun-calls"\nexec "%s" "$@"\n' "$BATS_TEST_TMPDIR" \
        "$real_mpirun" >"$BATS_TEST_TMPDIR/bin/mpirun"
    chmod +x "$BATS_TEST_TMPDIR/bin/mpirun"
    # without Open MPI's two settings for root, as in a lab container's root shell
    # (test_helper.bash exports both): bench.sh gives them to mpirun itself
    PATH="$BATS_TEST_TMPDIR/bin:$PATH" BACKEND=emu BUILD="$EMU_BUILD" BENCH_SIZES=32 BENCH_REPS=1 \
        BENCH_WARMUP=0 BENCH_RESULTS_DIR="$BATS_TEST_TMPDIR/results" \
        run env -u OMPI_ALLOW_RUN_AS_ROOT -u OMPI_ALLOW_RUN_AS_ROOT_CONFIRM sh common/bench.sh lesson09
    assert_success
    assert_line "  lesson09 n=32: ok, 3 rows"
    assert_equal "$(cat "$BATS_TEST_TMPDIR/mpirun-calls")" \
        "-np 2 --bind-to none $EMU_BUILD/lesson09 --csv -n 32 --reps 1 --warmup 0"
    assert_equal "$(csv_column variant <"$BATS_TEST_TMPDIR/results/cpu-emulation.csv" | tr '\n' ' ')" \
        "cpu naive optimized "
}
