#!/usr/bin/env bats
# Lesson 03, 2-D heat diffusion: what is particular to this lesson. The
# generic contract (awkward shapes at the default steps, bad inputs, CSV
# shape) is in contract.bats.

setup() {
    load test_helper
}

# The number of GPU rows of lesson03's CSV on stdin that PASS.
passing_rows() {
    csv_column check | grep -c -x PASS
}

@test "lesson03's kernels stay inside the field in every thread order, over several launches" {
    [ -d "$EMU_BUILD" ] || skip "no emulator build in $EMU_BUILD"
    # guard mode: a read or write past a buffer's end stops the program; poison mode: memory
    # starts as NaN, so a cell nobody wrote fails; 17 steps = two full launches of 8 steps
    # and one of 1 for optimized and registers, and 17 ping-pong passes for naive and shared;
    # 225x70 is two by three of registers' 112 x 32 tiles and a cell more
    for order in forward reverse random:2024; do
        for shape in 1x1 33x9 65x33 225x70; do
            CUDA_EMU_GUARD=1 CUDA_EMU_POISON=1 CUDA_EMU_ORDER=$order \
                run "$EMU_BUILD/lesson03" -n "$shape" --steps 17 --reps 1 --warmup 0 --csv
            assert_success
            assert_equal "$(passing_rows <<<"$output")" 4
        done
    done
}

@test "lesson03 passes at a step count that fills whole optimized launches, and at one step" {
    use_gpu_build
    for steps in 1 8 16; do
        run "$BUILD/lesson03" -n 70x19 --steps "$steps" --reps 1 --warmup 0 --csv
        assert_success
        assert_equal "$(passing_rows <<<"$output")" 4
    done
}

@test "lesson03 prints the table with the problem, every variant checked, exactly" {
    use_gpu_build
    run "$BUILD/lesson03" -n 100x60 --steps 12 --reps 1 --warmup 0
    assert_success
    assert_line --index 0 "lesson03: 2-D heat diffusion: field -= 0.25 x Laplacian(field), float32"
    # 8 bytes and 7 FLOP per cell and step: 6,000 cells x 12 steps
    assert_line "problem  field = 100x60; moves 576.0 kB, 5.04e+05 FLOP"
    # fields of 24 kB: on the host the initial one, the final one twice (the
    # reference and a variant's result) and the CPU's second field of the
    # ping-pong; on the device the initial, final and second fields
    assert_line "memory   96.0 kB on the host, 72.0 kB on the device"
    assert_line --regexp "^cpu +host .* ref$"
    assert_line --regexp "^device-copy +library .* -$"
    # the same expression in the same order everywhere, and exact products: bit for bit
    assert_line --regexp "^naive +kernel .* PASS \(max err 0\)$"
    assert_line --regexp "^shared +kernel .* PASS \(max err 0\)$"
    assert_line --regexp "^optimized +kernel .* PASS \(max err 0\)$"
    assert_line --regexp "^registers +kernel .* PASS \(max err 0\)$"
    assert_line "all 4 checks passed against the CPU reference: naive, shared, optimized, registers"
}

@test "lesson03 prints the L2, shared memory and registers the device reports" {
    use_gpu_build
    run "$BUILD/lesson03" -n 16x16 --steps 1 --reps 1 --warmup 0
    assert_success
    if [ "$BUILD" = "$EMU_BUILD" ]; then
        # the emulated device model: an H100's shared memory and registers, the CPU's cache
        assert_line --regexp "^memories of this device \(cudaDeviceGetAttribute\): L2 cache [0-9.]+ MiB; per SM, 228 KiB of shared memory and 65536 32-bit registers \(the emulated device model's; its L2 is this CPU's last-level cache\)$"
    else
        assert_line --regexp "^memories of this device \(cudaDeviceGetAttribute\): L2 cache [0-9.]+ MiB; per SM, [0-9.]+ KiB of shared memory and [0-9]+ 32-bit registers$"
    fi
}

@test "lesson03's device-copy row copies one step's bytes, not all the steps'" {
    use_gpu_build
    run "$BUILD/lesson03" -n 100x60 --steps 12 --only device-copy,naive --reps 1 --warmup 0 --csv
    assert_success
    # one step: read and write 6,000 floats; the kernels: 12 such steps
    assert_line --regexp "^lesson03,device-copy,library,100x60,6000,48000,0,"
    assert_line --regexp "^lesson03,naive,kernel,100x60,6000,576000,504000,"
}

@test "lesson03 --seed-problem sets the article's 2000 x 2000 field and 10,000 steps" {
    use_any_build
    # whatever -n and --steps say; the run itself takes minutes on a CPU, so it is
    # stopped once the header, printed before any work, has said what it will do
    run --separate-stderr timeout 2 "$BUILD/lesson03" -n 7x7 --steps 3 --seed-problem --only cpu
    assert_equal "$status" 124
    assert_line "problem  field = 2000x2000; moves 320.0 GB, 2.8e+11 FLOP"
    if [ "$BUILD" = "$EMU_BUILD" ]; then
        # hours under the emulator: one run without warm-up, and a warning that says so
        assert_line "timing   median of 1 run after 0 warm-up runs; every row cold: CPU caches flushed before each run"
        assert_equal "$stderr" "lesson03: --seed-problem is 4 x 10^10 cell updates per variant and run, hours under the CPU emulator: it runs once, without warm-up, unless --reps or --warmup say otherwise (it is meant for a GPU)"
    else
        assert_line --regexp "^timing   median of 10 runs after 2 warm-up runs; "
        assert_equal "$stderr" ""
    fi
}

@test "lesson03 --seed-problem under the emulator keeps the runs the command line asks for" {
    [ -d "$EMU_BUILD" ] || skip "no emulator build in $EMU_BUILD"
    run --separate-stderr timeout 2 "$EMU_BUILD/lesson03" --seed-problem --only cpu --reps 3
    assert_equal "$status" 124
    assert_line --regexp "^timing   median of 3 runs after 0 warm-up runs; "
    run --separate-stderr timeout 2 "$EMU_BUILD/lesson03" --seed-problem --only cpu --warmup=2
    assert_equal "$status" 124
    assert_line --regexp "^timing   median of 1 run after 2 warm-up runs; "
}

@test "lesson03 refuses a step count of 0 or above a million, and a value for a switch" {
    use_any_build
    run --separate-stderr "$BUILD/lesson03" --steps 0
    assert_failure 2
    assert_equal "$stderr" "lesson03: --steps value '0' is out of range (1 to 1000000) (see --help)"
    run --separate-stderr "$BUILD/lesson03" --steps 1000001
    assert_failure 2
    run --separate-stderr "$BUILD/lesson03" --steps ten
    assert_failure 2
    assert_equal "$(wc -l <<<"$stderr")" 1
    run --separate-stderr "$BUILD/lesson03" --seed-problem=yes
    assert_failure 2
    assert_equal "$stderr" "lesson03: --seed-problem takes no value (see --help)"
}

@test "lesson03 refuses a side longer than 2^18 cells before allocating" {
    use_any_build
    run --separate-stderr "$BUILD/lesson03" -n 262145x1
    assert_failure 2
    [[ "$stderr" == *"out of range (each dimension 1 to 262144)"* ]] || fail "stderr: $stderr"
}

@test "lesson03 --output refuses a folder it cannot create, at once, with one line" {
    use_any_build
    touch "$BATS_TEST_TMPDIR/a-file"
    run --separate-stderr "$BUILD/lesson03" --output "$BATS_TEST_TMPDIR/a-file/fields"
    assert_failure 2
    assert_output ""
    assert_equal "$stderr" "lesson03: --output '$BATS_TEST_TMPDIR/a-file/fields': cannot create the folder $BATS_TEST_TMPDIR/a-file: a file is in the way"
}

@test "lesson03 --output writes the fields as matrices and make plots' script draws them" {
    use_any_build
    local dir="$BATS_TEST_TMPDIR/results/fields"
    run "$BUILD/lesson03" -n 9x4 --steps 3 --only cpu --reps 1 --warmup 0 --output "$dir"
    assert_success
    assert_line "wrote initial.dat, final.dat and laplacian.dat (9 x 4, after 3 steps) to $dir"
    for name in initial final laplacian; do
        # one line per row of the field, one number per cell
        assert_equal "$(wc -l <"$dir/$name.dat")" 4
        assert_equal "$(awk '{ print NF }' "$dir/$name.dat" | sort -u)" 9
    done
    # heat flows but none is lost: the edge rule leaves a missing neighbour out
    run awk '{ for (i = 1; i <= NF; i++) s += $i } END { printf "%.4f\n", s }' "$dir/initial.dat"
    local initial_sum="$output"
    run awk '{ for (i = 1; i <= NF; i++) s += $i } END { printf "%.4f\n", s }' "$dir/final.dat"
    assert_equal "$output" "$initial_sum"
    [ "$initial_sum" != "0.0000" ] || fail "the initial field is all zero"
    # and the Laplacian of a field sums to zero: every flow leaves one cell for another
    run awk '{ for (i = 1; i <= NF; i++) s += $i } END { printf "%.4f\n", s < 0 ? -s : s }' "$dir/laplacian.dat"
    assert_output "0.0000"
    run "$BUILD/lesson03" -n 9x4 --steps 1 --only cpu --reps 1 --warmup 0 --output "$dir-1"
    assert_success
    assert_line "wrote initial.dat, final.dat and laplacian.dat (9 x 4, after 1 step) to $dir-1"
    command -v gnuplot >/dev/null || skip "gnuplot is not installed"
    run gnuplot -e "format='png'; outfile='$BATS_TEST_TMPDIR/fields.png'; fields='$dir'" \
        "$REPO/plots/terminal.gp" "$REPO/plots/heatmaps.gp"
    assert_success
    assert_equal "$(head -c 4 "$BATS_TEST_TMPDIR/fields.png" | tail -c 3)" "PNG"
}

@test "lesson03 --race-demo shows the in-place update's result changing with block order" {
    use_gpu_build
    local size=67x35 cells=2345
    # A GPU runs 67x35's 45 blocks all at once, each reading its halo before any neighbour
    # writes, and the race hides; a field of several waves of blocks shows it (an H100 holds
    # 4,224 of these 64-thread blocks at once, 1031x1031 has 16,900).
    if [ "$BUILD" = "$CUDA_BUILD" ]; then size=1031x1031 cells=1062961; fi
    run "$BUILD/lesson03" -n "$size" --steps 11 --only naive --reps 1 --warmup 0 --race-demo
    assert_success
    assert_line "race demo: the article's in-place update, 11 steps, 8 x 8 blocks"
    # a ping-pong variant still passes; the in-place results differ from it and from each other
    assert_line --regexp "^naive +kernel .* PASS \(max err 0\)$"
    assert_line --regexp "^  blocks in launch order: +[1-9][0-9]* of $cells cells differ from the ping-pong result$"
    assert_line --regexp "^  blocks in reverse order: +[1-9][0-9]* of $cells cells differ from the ping-pong result$"
    assert_line --regexp "^  the two orders disagree on [1-9][0-9]* cells: the result depends on block order$"
}

@test "lesson03 with one block there is no race: the in-place result is the ping-pong one" {
    use_gpu_build
    run "$BUILD/lesson03" -n 8x8 --steps 11 --only naive --reps 1 --warmup 0 --race-demo
    assert_success
    assert_line "  blocks in launch order:   0 of 64 cells differ from the ping-pong result"
    assert_line "  blocks in reverse order:  0 of 64 cells differ from the ping-pong result"
    assert_line "  the two orders agree: a single block has no neighbour to race with"
    refute_line --partial "depends on block order"
}

@test "lesson03 --race-demo --csv keeps the CSV on stdout and the demo on stderr" {
    use_gpu_build
    run --separate-stderr "$BUILD/lesson03" -n 16x8 --steps 1 --only naive --reps 1 --warmup 0 \
        --race-demo --csv --quiet-warnings
    assert_success
    # the header and one row, nothing else
    assert_equal "${#lines[@]}" 2
    assert_line --index 1 --regexp "^lesson03,naive,kernel,16x8,"
    [[ "$stderr" == *"race demo: the article's in-place update, 1 step, 8 x 8 blocks"* ]] ||
        fail "stderr: $stderr"
    [[ "$stderr" == *"  blocks in reverse order:  "*" of 128 cells differ from the ping-pong result"* ]] ||
        fail "stderr: $stderr"
}

# Builds lesson03 with one sed expression applied to diffusion.cu and to
# diffusion.h (the step it shares with lesson 09), with the emulator, into
# $BATS_TEST_TMPDIR/broken.
build_mutated_lesson() {
    [ -d "$EMU_BUILD" ] || skip "no emulator build in $EMU_BUILD"
    local folder="$REPO/lessons/03-diffusion" changed=""
    for file in diffusion.cu diffusion.h; do
        sed "$1" "$folder/$file" >"$BATS_TEST_TMPDIR/$file"
        cmp -s "$folder/$file" "$BATS_TEST_TMPDIR/$file" || changed=yes
    done
    [ -n "$changed" ] || fail "the sed expression changed nothing"
    "$REPO/common/emu/emucc" -O2 -std=c++20 -Xcompiler -fopenmp -I"$REPO/common" \
        -o "$BATS_TEST_TMPDIR/broken" "$BATS_TEST_TMPDIR/diffusion.cu" "$(common_object)"
}

@test "a NaN written by one kernel at one cell fails with its (row, column)" {
    build_mutated_lesson 's/    to\[here\] = diffused(centre, left, right, up, down);/    to[here] = here == 77 ? nanf("") : diffused(centre, left, right, up, down);/'
    run --separate-stderr "$BATS_TEST_TMPDIR/broken" -n 40x5 --steps 1 --reps 1 --warmup 0
    assert_equal "$status" 1
    assert_line --regexp "^naive +kernel .* FAIL \(1 NaN/Inf\)$"
    assert_line --regexp "^shared +kernel .* PASS \(max err 0\)$"
    [[ "$stderr" == *"lesson03: naive (kernel) FAIL: final field: first mismatch at (row 1, column 37): expected "*", got nan"* ]] ||
        fail "stderr does not name the first mismatch: $stderr"
}

@test "a multi-step kernel that forgets the edge rule at the field's right border fails" {
    build_mutated_lesson 's/float right = col < width - 1 ? current\[r\]\[c + 1\] : centre;/float right = current[r][c + 1];/'
    run --separate-stderr "$BATS_TEST_TMPDIR/broken" -n 40x5 --steps 3 --reps 1 --warmup 0
    assert_equal "$status" 1
    assert_line --regexp "^optimized +kernel .* FAIL \(max err "
    [[ "$stderr" == *"lesson03: optimized (kernel) FAIL: final field: first mismatch at (row 0, column 3"* ]] ||
        fail "stderr does not name the first mismatch: $stderr"
}

@test "a multi-step kernel without the barrier between steps fails in reverse thread order" {
    # each kernel's barrier follows the comment that says why it is there
    local case variant comment
    for case in "optimized:the next step reads what this one wrote" \
        "registers:the next step reads the neighbouring columns"; do
        variant=${case%%:*} comment=${case#*:}
        build_mutated_lesson "/$comment/{n;d}"
        CUDA_EMU_ORDER=reverse run --separate-stderr "$BATS_TEST_TMPDIR/broken" -n 65x33 \
            --steps 5 --only "$variant" --reps 1 --warmup 0
        assert_equal "$status" 1
        assert_line --regexp "^$variant +kernel .* FAIL "
    done
}

@test "registers: each launch of fewer than 8 steps, on tiles cut by every border, matches to the bit" {
    use_gpu_build
    # 1 to 7 steps skip 7 to 1 of the outer rings; 9 to 15 add a short second launch.
    # 113x33: a second column and row of tiles, one cell wide; 111x31: one tile, cut short
    for shape in 111x31 113x33 1x40 40x1; do
        for steps in 1 2 3 4 5 6 7 9 15; do
            run "$BUILD/lesson03" -n "$shape" --steps "$steps" --only registers --reps 1 --warmup 0 --csv
            assert_success
            assert_line --regexp "^lesson03,registers,kernel,$shape,.*,PASS,0,"
        done
    done
}

@test "registers: shifting the registers in the wrong order fails" {
    # the next cell's up must be this cell's centre, taken before the centre moves on
    build_mutated_lesson '/^                up = centre;$/{N;s/\(.*\)\n\(.*\)/\2\n\1/}'
    run --separate-stderr "$BATS_TEST_TMPDIR/broken" -n 40x5 --steps 3 --only registers \
        --reps 1 --warmup 0
    assert_equal "$status" 1
    assert_line --regexp "^registers +kernel .* FAIL \(max err "
    [[ "$stderr" == *"lesson03: registers (kernel) FAIL: final field: first mismatch at (row "* ]] ||
        fail "stderr does not name the first mismatch: $stderr"
}
