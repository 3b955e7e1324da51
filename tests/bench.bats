#!/usr/bin/env bats
# tests/bench.bats - the specification of common/bench.sh: it runs the
# lessons over a sweep of sizes and appends the rows to one results file per
# machine.
#
#   bats tests/bench.bats        (or make test, which runs every test file)
#
# Uses the real lesson01 builds when they exist (WORKBOOK_EMU_BUILD, default
# build/emu; WORKBOOK_CUDA_BUILD, default build/cuda-smNN) and otherwise skips
# those tests, saying why; the other tests use tests/fixtures/fake-lesson.sh,
# a stand-in program that prints test data. Results go to a temporary folder.

setup() {
    load test_helper
    cd "$REPO"
    emu_build=$EMU_BUILD
    cuda_build=$CUDA_BUILD
    results="$BATS_TEST_TMPDIR/results"
}

# A build folder whose lesson01 is the stand-in program.
fake_build() {
    mkdir -p "$BATS_TEST_TMPDIR/build"
    cp "$BATS_TEST_DIRNAME/fixtures/fake-lesson.sh" "$BATS_TEST_TMPDIR/build/lesson01"
    chmod +x "$BATS_TEST_TMPDIR/build/lesson01"
}

@test "bench.sh on the emulation backend writes a well-formed results file" {
    [ -x "$emu_build/lesson01" ] ||
        skip "$emu_build/lesson01 not built (the emulation backend is needed: make BACKEND=emu lesson01)"
    BACKEND=emu BUILD="$emu_build" BENCH_SIZES="1000 4099" BENCH_REPS=2 \
        BENCH_RESULTS_DIR="$results" run sh common/bench.sh lesson01
    assert_success
    assert_output --partial "CPU emulation"
    file="$results/cpu-emulation.csv"
    [ -s "$file" ]
    # the header is the program's own, with the date of the run after it
    [ "$(head -n 1 "$file")" = "$("$emu_build/lesson01" -n 1 --only cpu --reps 1 --csv | head -n 1),date" ]
    # one row per variant and scope at each size: cpu host, and kernel and
    # end-to-end for each GPU variant; all checks pass, all rows say emu
    for size in 1000 4099; do
        run awk -F , -v size="$size" '$4 == size { print $2 "/" $3 }' "$file"
        assert_output --partial "cpu/host"
        assert_output --partial "naive/kernel"
        assert_output --partial "optimized/end-to-end"
        [ "$(printf '%s\n' "$output" | sort | uniq -d)" = "" ] || fail "a row is repeated at n=$size"
    done
    # (LC_ALL=C: in other locales sort puts n/a first)
    assert_equal "$(csv_column check <"$file" | LC_ALL=C sort -u | tr '\n' ' ')" "PASS REF n/a "
    assert_equal "$(csv_column backend <"$file" | sort -u)" "emu"
    run sh plots/plot.sh --check "$file"
    assert_success
}

@test "bench.sh sweeps each part a lesson.conf lists, the part named in its rows" {
    [ -x "$emu_build/lesson07" ] ||
        skip "$emu_build/lesson07 not built (the emulation backend is needed: make BACKEND=emu lesson07)"
    local parts
    parts=$(lesson_setting lesson07 BENCH_PARTS)
    [ -n "$parts" ] || fail "lessons/07-*/lesson.conf has no BENCH_PARTS"
    BACKEND=emu BUILD="$emu_build" BENCH_SIZES="1k" BENCH_REPS=1 BENCH_WARMUP=0 \
        BENCH_RESULTS_DIR="$results" run sh common/bench.sh lesson07
    assert_success
    assert_line "  lesson07 n=1k: ok, 6 rows"
    assert_line "  lesson07 --part bandwidth n=1k: ok, 6 rows"
    file="$results/cpu-emulation.csv"
    # the default part keeps the lesson's name; each other part is its own lesson
    assert_equal "$(csv_column lesson <"$file" | sort -u | tr '\n' ' ')" \
        "$(printf '%s\n' lesson07 $(printf 'lesson07-%s\n' $parts) | sort | tr '\n' ' ')"
    assert_equal "$(awk -F , '$1 == "lesson07-bandwidth" { print $2 }' "$file" | tr '\n' ' ')" \
        "cpu h2d d2h h2d-pinned d2h-pinned both-pinned "
    for part in $parts; do
        assert_line --regexp "^  lesson07-$part at n=1000: "
    done
    run sh plots/plot.sh --check "$file"
    assert_success
}

@test "each part in BENCH_PARTS has a sweep of its own on both backends" {
    for part in $(lesson_setting lesson07 BENCH_PARTS); do
        for backend in GPU EMU; do
            [ "$(lesson_setting lesson07 "BENCH_SIZES_${backend}_$part" | wc -w)" -ge 2 ] ||
                fail "lesson07.conf: BENCH_SIZES_${backend}_$part needs two sizes or more"
        done
    done
}

@test "bench.sh records the CPU rows and says GPU variants were not run when there is no GPU" {
    [ -x "$cuda_build/lesson01" ] || skip "$cuda_build/lesson01 not built (needs nvcc: make BACKEND=cuda lesson01)"
    if [ "${WORKBOOK_GPU_COUNT:-0}" != 0 ] || nvidia-smi -L >/dev/null 2>&1; then
        skip "a GPU is present: the no-GPU path (exit status 3) cannot be played here"
    fi
    BACKEND=cuda BUILD="$cuda_build" BENCH_SIZES="1000 4099" BENCH_REPS=2 \
        BENCH_RESULTS_DIR="$results" run sh common/bench.sh lesson01
    assert_success
    assert_output --partial "GPU variants not run"
    file="$results/no-gpu.csv"
    run awk -F , 'NR > 1 { print $2 "/" $3 "/" $4 }' "$file"
    assert_output "cpu/host/1000
cpu/host/4099"
    run sh plots/plot.sh --check "$file"
    assert_success
}

@test "bench.sh appends each run under a single header, stamped with its date" {
    fake_build
    for _ in first second; do
        BACKEND=emu BUILD="$BATS_TEST_TMPDIR/build" BENCH_SIZES="1k" BENCH_RESULTS_DIR="$results" \
            run sh common/bench.sh lesson01
        assert_success
    done
    file="$results/cpu-emulation.csv"
    [ "$(grep -c '^lesson,' "$file")" -eq 1 ]
    [ "$(wc -l < "$file")" -eq 5 ]
    run grep -v -x -E '[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z' < <(csv_column date <"$file")
    assert_output ""
}

@test "bench.sh names the results file after the GPU" {
    fake_build
    FAKE_BACKEND=cuda BACKEND=cuda BUILD="$BATS_TEST_TMPDIR/build" BENCH_SIZES="1k" \
        BENCH_RESULTS_DIR="$results" run sh common/bench.sh lesson01
    assert_success
    [ -s "$results/test-gpu-a.csv" ]
}

@test "bench.sh runs every size of the sweep and summarises the largest" {
    fake_build
    BACKEND=emu BUILD="$BATS_TEST_TMPDIR/build" BENCH_SIZES="1k 16k 1M" BENCH_RESULTS_DIR="$results" \
        run sh common/bench.sh lesson01
    assert_success
    assert_output --partial "best GPU speedup 2.000x (naive kernel)"
    assert_output --partial "% of peak: n/a (CPU emulation: no device peaks)"
    run awk -F , 'NR > 1 && $2 == "cpu" { print $4 }' "$results/cpu-emulation.csv"
    assert_output "1000
16000
1000000"
}

@test "bench.sh flags rows whose spread is above 5%" {
    fake_build
    FAKE_SPREAD=12.50 BACKEND=emu BUILD="$BATS_TEST_TMPDIR/build" BENCH_SIZES="1k" \
        BENCH_RESULTS_DIR="$results" run sh common/bench.sh lesson01
    assert_success
    assert_output --partial "noisy: naive kernel n=1000 spread 12.50%"
}

@test "bench.sh flags a spread of 5.5% in a locale whose decimal mark is a comma too" {
    # awk in de_DE would read 5.50 as 5, which is not above 5
    use_comma_locale
    fake_build
    LOCPATH="$LOCALES" LC_ALL=de_DE.UTF-8 FAKE_SPREAD=5.50 BACKEND=emu BUILD="$BATS_TEST_TMPDIR/build" \
        BENCH_SIZES="1k" BENCH_RESULTS_DIR="$results" run sh common/bench.sh lesson01
    assert_success
    assert_output --partial "noisy: naive kernel n=1000 spread 5.50%"
}

@test "a failed check is reported and makes bench.sh fail" {
    fake_build
    FAKE_CHECK=FAIL FAKE_EXIT=1 BACKEND=emu BUILD="$BATS_TEST_TMPDIR/build" BENCH_SIZES="1k" \
        BENCH_RESULTS_DIR="$results" run sh common/bench.sh lesson01
    assert_failure
    assert_output --partial "CHECK FAILED"
    assert_output --partial "FAIL: naive kernel n=1000"
}

@test "a sweep stopped halfway keeps the rows of the runs that ended" {
    fake_build
    FAKE_STOP_AT=3000 BACKEND=emu BUILD="$BATS_TEST_TMPDIR/build" BENCH_SIZES="1k 2k 3k 4k" \
        BENCH_RESULTS_DIR="$results" run sh common/bench.sh lesson01
    assert_failure
    assert_output --partial "lesson01 n=2k: ok, 2 rows"
    refute_output --partial "n=3k"
    run cut -d , -f 2,4 "$results/cpu-emulation.csv"
    assert_output "variant,size
cpu,1000
naive,1000
cpu,2000
naive,2000"
}

@test "a program that breaks in another way makes bench.sh fail" {
    fake_build
    FAKE_EXIT=2 BACKEND=emu BUILD="$BATS_TEST_TMPDIR/build" BENCH_SIZES="1k" \
        BENCH_RESULTS_DIR="$results" run sh common/bench.sh lesson01
    assert_failure
    assert_output --partial "failed with exit status 2"
}

@test "a lesson that was not built is reported and makes bench.sh fail" {
    BACKEND=emu BUILD="$BATS_TEST_TMPDIR/nothing" BENCH_RESULTS_DIR="$results" \
        run sh common/bench.sh lesson01
    assert_failure
    assert_output --partial "$BATS_TEST_TMPDIR/nothing/lesson01 not found"
}

@test "bench.sh reads each lesson's sweep from its lesson.conf" {
    fake_build
    BACKEND=emu BUILD="$BATS_TEST_TMPDIR/build" BENCH_RESULTS_DIR="$results" \
        run sh common/bench.sh lesson01
    assert_success
    local expected
    expected=$(lesson_setting lesson01 BENCH_SIZES_EMU)
    [ -n "$expected" ] || fail "lessons/01-*/lesson.conf has no BENCH_SIZES_EMU"
    for size in $expected; do
        assert_line "  lesson01 n=$size: ok, 2 rows"
    done
}

# A folder with lessons/01-fake/lesson.conf holding the given lines, and
# launch.sh, a launcher that notes its arguments in launches and runs the
# program after its own two (as "mpirun -np 2" would).
launcher_tree() {
    tree="$BATS_TEST_TMPDIR/tree"
    mkdir -p "$tree/lessons/01-fake"
    printf '%s\n' "$@" >"$tree/lessons/01-fake/lesson.conf"
    printf '#!/bin/sh\necho "launched: $*" >>"%s/launches"\nshift 2\nexec "$@"\n' "$tree" \
        >"$tree/launch.sh"
}

@test "bench.sh starts a lesson with the LAUNCH of its lesson.conf" {
    fake_build
    launcher_tree "LAUNCH = sh $BATS_TEST_TMPDIR/tree/launch.sh -np 2" "BENCH_SIZES_EMU = 1k 4k"
    cd "$tree"
    BACKEND=emu BUILD="$BATS_TEST_TMPDIR/build" BENCH_RESULTS_DIR="$results" \
        run sh "$REPO/common/bench.sh" lesson01
    assert_success
    assert_line "  lesson01 n=1k: ok, 2 rows"
    run cat "$tree/launches"
    assert_output "launched: -np 2 $BATS_TEST_TMPDIR/build/lesson01 --csv -n 1k --reps 3 --warmup 1
launched: -np 2 $BATS_TEST_TMPDIR/build/lesson01 --csv -n 4k --reps 3 --warmup 1"
}

@test "make bench's results go to an ignored folder: the checkout stays clean" {
    git -C "$REPO" check-ignore -q plots/results/cpu-emulation.csv ||
        fail "plots/results/ is not ignored by git"
    ! git -C "$REPO" check-ignore -q plots/reference/nvidia-h100-80gb-hbm3.csv ||
        fail "the committed reference results are ignored"
    git -C "$REPO" ls-files --error-unmatch plots/reference/nvidia-h100-80gb-hbm3.csv >/dev/null
}
