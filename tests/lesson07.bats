#!/usr/bin/env bats
# Lesson 07, host-device transfers: what is particular to this lesson. The
# generic contract (awkward sizes, bad inputs, CSV shape) runs on its default
# part, chain, in contract.bats; here every other part runs alone, --part is
# refused when wrong, and the exercise's checker catches the usual mistakes.

setup() {
    load test_helper
}

# Runs one part at size n and asserts that it passed, that the CPU row is the
# reference and that each named row (variant,scope) PASSed.
assert_part_passes() {
    local part="$1" n="$2"
    shift 2
    use_gpu_build
    run "$BUILD/lesson07" --part "$part" -n "$n" --reps 1 --warmup 0 --csv
    assert_success
    assert_line --regexp "^lesson07,cpu,host,$n,.*,REF,"
    for row in "$@"; do
        assert_line --regexp "^lesson07,$row,$n,.*,PASS,"
    done
    refute_line --regexp ",FAIL,"
}

@test "lesson07 --part chain: @vectorize copies, resident launches and the fused kernel pass" {
    assert_part_passes chain 4099 vectorize,transfers naive,kernel naive,end-to-end \
        optimized,kernel optimized,end-to-end
}

@test "lesson07 --part bandwidth: a round trip from pageable and from pinned memory arrives intact" {
    assert_part_passes bandwidth 1 pageable,end-to-end pinned,end-to-end
    assert_part_passes bandwidth 65537 pageable,end-to-end pinned,end-to-end
}

@test "lesson07 --part intensity passes at degrees 1 and 256" {
    assert_part_passes intensity 1023 gpu,kernel gpu,end-to-end gpu-pinned,end-to-end
    run "$BUILD/lesson07" --part intensity --degree 256 -n 1025 --reps 1 --warmup 0 --csv
    assert_success
    assert_line --regexp "^lesson07,gpu,kernel,1025,1025,8200,524800,.*,PASS,"
}

@test "lesson07 --part overlap: the streamed pipeline passes with a short last chunk and more chunks than elements" {
    assert_part_passes overlap 4099 serial,kernel serial,end-to-end streams,transfers
    run "$BUILD/lesson07" --part overlap --chunks 7 -n 3 --reps 1 --warmup 0 --csv
    assert_success
    assert_line --regexp "^lesson07,streams,transfers,3,.*,PASS,"
}

@test "lesson07 --part managed: managed memory with and without prefetching passes" {
    assert_part_passes managed 257 device,kernel device,end-to-end managed,transfers \
        prefetched,transfers
}

@test "lesson07 --part lucas: L(n) by recursion in one GPU thread matches the CPU" {
    assert_part_passes lucas 1 one-thread,kernel one-thread,end-to-end
    assert_part_passes lucas 25 one-thread,kernel one-thread,end-to-end
}

@test "lesson07 refuses an unknown part with exit 2, listing the valid ones" {
    use_any_build
    for form in "--part nope" "--part=nope"; do
        run --separate-stderr "$BUILD/lesson07" $form
        assert_equal "$status" 2
        assert_equal "$stderr" "lesson07: unknown part 'nope' for --part: expected chain, bandwidth, intensity, overlap, managed, lucas (see --help)"
    done
    for missing in "--part" "--part --csv"; do
        run --separate-stderr "$BUILD/lesson07" $missing
        assert_equal "$status" 2
        assert_equal "$stderr" "lesson07: --part needs a value (see --help)"
    done
}

@test "lesson07 refuses a Lucas index beyond 32 bits and a chunk count of 0" {
    use_any_build
    run --separate-stderr "$BUILD/lesson07" --part lucas -n 47
    assert_equal "$status" 2
    [[ "$stderr" == *"'47' is out of range (each dimension 1 to 46)"* ]] || fail "stderr: $stderr"
    run --separate-stderr "$BUILD/lesson07" --part overlap --chunks 0
    assert_equal "$status" 2
    [[ "$stderr" == *"--chunks value '0' is out of range (1 to 1024)"* ]] || fail "stderr: $stderr"
}

@test "lesson07 --help names the part's variants and the transfers scope" {
    use_any_build
    run "$BUILD/lesson07" --part overlap --help
    assert_success
    assert_output --partial "--part TEXT"
    assert_line --regexp "^  streams +.+ \[transfers\]$"
    assert_line --regexp "^  serial +.+ \[kernel, end-to-end\]$"
    assert_output --partial "transfers: the variant's own copies and launches"
}

@test "lesson07's parts stay in bounds and wait where they must in every thread order" {
    [ -d "$EMU_BUILD" ] || skip "no emulator build in $EMU_BUILD"
    for order in reverse random:7; do
        for run_args in "--part chain -n 257" "--part overlap -n 1025 --chunks 3" \
            "--part managed -n 5" "--part bandwidth -n 255"; do
            CUDA_EMU_GUARD=1 CUDA_EMU_POISON=1 CUDA_EMU_ORDER=$order \
                run "$EMU_BUILD/lesson07" $run_args --reps 1 --warmup 0 --csv
            assert_success
            refute_line --regexp ",FAIL,"
        done
    done
}

# Builds lesson07 with one line changed (sed expression $1) with the emulator.
build_mutated_lesson() {
    [ -d "$EMU_BUILD" ] || skip "no emulator build in $EMU_BUILD"
    local source="$REPO/lessons/07-transfers/transfers.cu"
    sed "$1" "$source" >"$BATS_TEST_TMPDIR/transfers.cu"
    ! cmp -s "$source" "$BATS_TEST_TMPDIR/transfers.cu" || fail "the sed expression changed nothing"
    "$REPO/common/emu/emucc" -O2 -std=c++20 -Xcompiler -fopenmp -I"$REPO/common" \
        -o "$BATS_TEST_TMPDIR/broken" "$BATS_TEST_TMPDIR/transfers.cu" "$REPO/common/workbook.cu"
}

@test "a streamed pipeline that drops its short last chunk fails at the first element it missed" {
    build_mutated_lesson 's/begin < n; c++, begin += chunk/begin + chunk <= n; c++, begin += chunk/'
    run --separate-stderr "$BATS_TEST_TMPDIR/broken" --part overlap -n 1000 --chunks 3 --reps 1 --warmup 0
    assert_equal "$status" 1
    assert_line --regexp "^streams +transfers .* FAIL"
    [[ "$stderr" == *"streams (transfers) FAIL: y: first mismatch at index 668: "*"nan"* ]] ||
        fail "stderr does not name the first mismatch: $stderr"
}

@test "a polynomial kernel that writes one NaN fails every GPU row of the intensity part" {
    build_mutated_lesson '/^__global__ void polynomial_kernel/,/^}/s/y\[i\] = polynomial(x\[i\], degree);$/y[i] = i == 77 ? nanf("") : polynomial(x[i], degree);/'
    run --separate-stderr "$BATS_TEST_TMPDIR/broken" --part intensity -n 1000 --reps 1 --warmup 0
    assert_equal "$status" 1
    assert_line --regexp "^gpu +kernel .* FAIL \(1 NaN/Inf\)$"
    assert_line --regexp "^gpu-pinned +end-to-end .* FAIL \(1 NaN/Inf\)$"
    [[ "$stderr" == *"first mismatch at index 77: "* ]] || fail "stderr: $stderr"
}

@test "a @vectorize chain that skips its copy back between steps fails" {
    build_mutated_lesson 's/on_host = (const float \*)data->host\[Y\];/on_host = on_host;/'
    run "$BATS_TEST_TMPDIR/broken" --part chain -n 1000 --reps 1 --warmup 0
    assert_equal "$status" 1
    assert_line --regexp "^vectorize +transfers .* FAIL"
    assert_line --regexp "^optimized +kernel .* PASS"
}

# ---- exercise 07 --------------------------------------------------------------

@test "the untouched exercise07 skeleton reports not implemented yet" {
    use_gpu_build
    run "$BUILD/exercise07"
    assert_failure 1
    assert_line --partial "exercise07: not implemented yet"
}

@test "the worked solution of exercise07 passes every trial, and says where overlap is checked" {
    use_gpu_build
    run "$BUILD/solution07"
    assert_success
    assert_line "  n = 1         8 chunks  PASS"
    assert_line "  n = 1000003  16 chunks  PASS"
    if [ "$BUILD" = "$EMU_BUILD" ]; then
        assert_line "exercise07: PASS (all 7 trials; overlap only on a GPU)"
    else
        assert_line --regexp "^  overlap: .* PASS$"
    fi
}

run_mutated_solution() {
    use_gpu_build
    [ "$BUILD" = "$EMU_BUILD" ] || skip "mutants are built with the emulator"
    local solution="$REPO/solutions/07-transfers/exercise.cu"
    sed "$1" "$solution" >"$BATS_TEST_TMPDIR/exercise.cu"
    ! cmp -s "$BATS_TEST_TMPDIR/exercise.cu" "$solution" || fail "the sed expression changed nothing"
    "$REPO/common/emu/emucc" -O2 -std=c++20 -Xcompiler -fopenmp -I"$REPO/common" -o "$BATS_TEST_TMPDIR/mutant" \
        "$BATS_TEST_TMPDIR/exercise.cu" "$REPO/lessons/07-transfers/exercise_check.cu" \
        "$REPO/common/workbook.cu"
    run "$BATS_TEST_TMPDIR/mutant"
}

@test "exercise07's checker catches a pipeline that rounds the chunk length down" {
    run_mutated_solution 's|(n + chunk_count - 1) / chunk_count|n / chunk_count + (n < chunk_count)|; s|begin < n; c++|c < chunk_count \&\& begin < n; c++|'
    assert_failure 1
    assert_line --regexp "^  n = 257 +4 chunks  FAIL: first wrong index 256: expected [0-9.]+, got -?nan$"
    assert_line "  n = 4099      1 chunks  PASS"
}

@test "exercise07's checker catches a copy back from the start of d_y instead of the chunk's" {
    run_mutated_solution 's/h_y + begin, d_y + begin/h_y + begin, d_y/'
    assert_failure 1
    assert_line "  n = 1         8 chunks  PASS"
    assert_line "  n = 4099      1 chunks  PASS"
    assert_line --regexp "^  n = 4099 +3 chunks  FAIL: first wrong index 1367: "
}

@test "exercise07's checker does not let a NaN slip through" {
    run_mutated_solution 's/launch_square_plus_one(d_x + begin, d_y + begin, length, stream);/launch_square_plus_one(d_x + begin, d_y + begin, length, stream); if (begin == 0 \&\& n > 100) CUDA_CHECK(cudaMemsetAsync(d_y + 50, 0xFF, 4, stream));/'
    assert_failure 1
    assert_line "  n = 1         8 chunks  PASS"
    assert_line --regexp "^  n = 257 +4 chunks  FAIL: first wrong index 50: expected [0-9.]+, got -?nan$"
}
