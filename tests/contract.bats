#!/usr/bin/env bats
# tests/contract.bats - the lesson contract, run over every folder in lessons/:
# what every lesson program promises because it is declared on the lesson API
# (common/workbook.h). A new lesson is tested here the moment it exists.
#   --help lists the common options, the lesson's variants and the columns;
#   each bad input exits 2 with one line naming the problem;
#   every variant PASSes at the lesson's awkward sizes (TEST_SIZES in its lesson.conf);
#   every --only name runs alone; the CSV has the header's shape and consistent numbers.

setup() {
    load test_helper
}

# Runs every lesson with the given arguments and asserts exit status 2 and a
# single line on stderr that contains the expected text.
assert_usage_error() {
    local expected="$1"
    shift
    use_any_build
    for lesson in $(lesson_programs); do
        run --separate-stderr "$BUILD/$lesson" "$@"
        assert_equal "$status" 2
        assert_equal "$(wc -l <<<"$stderr")" 1
        assert_output ""
        [[ "$stderr" == *"$expected"* ]] || fail "$lesson $*: stderr was: $stderr"
    done
}

@test "every lesson's --help lists the common options, its variants and the columns" {
    use_any_build
    for lesson in $(lesson_programs); do
        run "$BUILD/$lesson" --help
        assert_success
        assert_line --partial "usage: ./$lesson [options]"
        for flag in "--size N" "--reps R" "--warmup W" "--only LIST" "--cache C" "--csv" "--seed S"; do
            assert_output --partial "$flag"
        done
        assert_line "variants:"
        assert_line --regexp "^  cpu +.+ \[host\]$"
        assert_line --regexp "^  naive +.+ \[.*(kernel|library).*\]$"
        assert_line --regexp "^  optimized +.+ \[.*(kernel|library).*\]$"
        assert_line "columns of the table:"
        assert_output --partial "3 no usable CUDA device"
    done
}

@test "every lesson's --help names the compute peak of its arithmetic, as its lesson.conf's ARITHMETIC says" {
    use_any_build
    local fp64=0
    for lesson in $(lesson_programs); do
        run "$BUILD/$lesson" --help
        assert_success
        # the charts (plots/plot.sh) name the peak from lesson.conf, the program holds the
        # rows to it: the two must agree
        if [ "$(lesson_setting "$lesson" ARITHMETIC)" = FP64 ]; then
            fp64=$((fp64 + 1))
            assert_line "               (memory bandwidth and FP64 compute)"
        else
            refute_output --partial "FP64 compute"
        fi
    done
    # lesson06's loop is FP64: a lesson.conf that lost the setting fails here
    [ "$fp64" -ge 1 ] || fail "no lesson declares ARITHMETIC = FP64"
}

@test "an unknown flag is refused with exit status 2" {
    assert_usage_error "unknown option '--frobnicate'" --frobnicate
}

@test "an unknown flag of 10,000 characters is cut, not echoed in full" {
    local long
    long="--$(head -c 10000 /dev/zero | tr '\0' x)"
    assert_usage_error "unknown option '--xxxxxxxx" "$long"
    [ "${#stderr}" -lt 200 ] || fail "the message is ${#stderr} characters long"
}

@test "a size of 0 is refused" {
    assert_usage_error "'0' is out of range" -n 0
}

@test "a negative size is refused" {
    assert_usage_error "'-5' is out of range" -n -5
}

@test "a size that is not a number is refused" {
    assert_usage_error "invalid value 'abc' for -n" -n abc
}

@test "a size in scientific notation is refused, not truncated" {
    assert_usage_error "invalid value '1e30' for -n" -n 1e30
}

@test "a size beyond 64-bit integers is refused as out of range" {
    assert_usage_error "is out of range" --size 99999999999999999999999
}

@test "a shape with four dimensions is refused" {
    assert_usage_error "invalid value '2x3x4x5' for -n" -n 2x3x4x5
}

@test "zero repetitions are refused" {
    assert_usage_error "--reps value '0' is out of range" --reps 0
}

@test "a flag without its value is refused" {
    assert_usage_error "--reps needs a value" --reps
}

@test "a flag where a value belongs is refused as a missing value" {
    assert_usage_error "--reps needs a value" --reps --csv
}

@test "an unknown variant in --only is refused, naming the valid ones" {
    # every lesson starts with cpu and naive; others (coalesced, tiled) may come before optimized
    assert_usage_error "unknown variant 'gpu' for --only: expected cpu, naive, " --only cpu,gpu
    [[ "$stderr" == *", optimized"* ]] || fail "optimized is not among the valid names: $stderr"
}

@test "a variant named twice in --only is refused" {
    assert_usage_error "variant 'cpu' is named twice in --only" --only cpu,cpu
}

@test "an empty name in --only is refused" {
    assert_usage_error "--only 'naive,' has an empty name" --only naive,
    assert_usage_error "--only '' has an empty name" --only ""
}

@test "a cache policy other than cold or warm is refused" {
    assert_usage_error "invalid value 'hot' for --cache: expected cold or warm" --cache hot
}

@test "a size whose buffers do not fit in host memory is refused before allocating" {
    use_any_build
    for lesson in $(lesson_programs); do
        # HUGE_SIZE in lesson.conf: a shape the lesson accepts that needs terabytes
        local huge
        huge=$(lesson_setting "$lesson" HUGE_SIZE)
        run --separate-stderr "$BUILD/$lesson" -n "${huge:-20G}"
        assert_equal "$status" 2
        assert_equal "$(wc -l <<<"$stderr")" 1
        [[ "$stderr" == *"of host memory, but only"* ]] || fail "$lesson -n ${huge:-20G}: $stderr"
    done
}

@test "--size=N with a suffix and -n N are the same size" {
    use_any_build
    for lesson in $(lesson_programs); do
        # 1k, not more: lesson 04's CPU version multiplies n x n matrices
        run --separate-stderr "$BUILD/$lesson" --size=1k --only cpu --reps 1 --warmup 0 --csv
        local with_suffix
        with_suffix=$(csv_column size <<<"$output")
        run --separate-stderr "$BUILD/$lesson" -n 1000 --only cpu --reps 1 --warmup 0 --csv
        assert_equal "$with_suffix" "$(csv_column size <<<"$output")"
        run --separate-stderr "$BUILD/$lesson" -n 1Ki --only cpu --reps 1 --warmup 0 --csv
        [[ "$(csv_column size <<<"$output")" == 1024* ]] || fail "$lesson -n 1Ki is not 1024"
    done
}

@test "every variant of every lesson passes at the lesson's awkward sizes" {
    use_gpu_build
    for lesson in $(lesson_programs); do
        local sizes
        sizes=$(lesson_setting "$lesson" TEST_SIZES)
        [ -n "$sizes" ] || fail "$lesson's lesson.conf has no TEST_SIZES"
        for size in $sizes; do
            run --separate-stderr "$BUILD/$lesson" -n "$size" --reps 1 --warmup 0 --csv
            [ "$status" -eq 0 ] || fail "$lesson -n $size: exit $status: $stderr"
            # every GPU row PASSes; the cpu row is the reference, device-copy a measurement
            [ -z "$(csv_column check <<<"$output" | grep -v -x -e PASS -e REF -e n/a)" ] ||
                fail "$lesson -n $size: a row did not pass: $output"
            # every variant has its rows, or says on stderr why it was skipped
            for variant in $(lesson_variants "$lesson"); do
                grep -q "^$lesson,$variant," <<<"$output" || [[ "$stderr" == *"$variant skipped: "* ]] ||
                    fail "$lesson -n $size: no row for $variant"
            done
        done
    done
}

@test "every --only name of every lesson runs that variant alone" {
    use_gpu_build
    for lesson in $(lesson_programs); do
        for variant in $(lesson_variants "$lesson"); do
            run --separate-stderr "$BUILD/$lesson" -n "$(contract_size "$lesson" 257)" --only "$variant" --reps 1 --warmup 0 --csv
            assert_success
            # a row, or the reason it cannot run here (cuBLAS under the emulator)
            [ "${#lines[@]}" -ge 2 ] || [[ "$stderr" == *"$variant skipped: "* ]] ||
                fail "$lesson --only $variant printed no row"
            run awk -F , -v variant="$variant" 'NR > 1 && $2 != variant' <<<"$output"
            assert_output ""
        done
    done
}

@test "every lesson's CSV rows have the header's columns, with numbers where numbers belong" {
    use_gpu_build
    for lesson in $(lesson_programs); do
        run --separate-stderr "$BUILD/$lesson" -n "$(contract_size "$lesson")" --reps 3 --warmup 1 --csv
        assert_success
        local header="${lines[0]}"
        for column in lesson variant scope size elements bytes flops reps median_ms min_ms \
                      spread_pct gbps gflops pct_peak pct_copy speedup check max_error device \
                      backend driver runtime cpu_threads cache; do
            [[ ",$header," == *",$column,"* ]] || fail "$lesson's CSV header has no column $column"
        done
        printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/$lesson.csv"
        run sh "$REPO/plots/plot.sh" --check "$BATS_TEST_TMPDIR/$lesson.csv"
        assert_success
    done
}

@test "every lesson's GB/s, GFLOP/s and speedup follow from its bytes, flops and times" {
    use_gpu_build
    for lesson in $(lesson_programs); do
        run --separate-stderr "$BUILD/$lesson" -n "$(contract_size "$lesson")" --reps 3 --warmup 1 --csv
        assert_success
        # within 1%: the CSV rounds to six significant digits
        run awk -F , '
            function off(actual, expected) { return actual < 0.99 * expected || actual > 1.01 * expected }
            NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
            $c["variant"] == "cpu" { cpu_ms = $c["median_ms"] }
            {
                seconds = $c["median_ms"] / 1e3
                if (off($c["gbps"], $c["bytes"] / seconds / 1e9)) print "gbps", $0
                if ($c["flops"] > 0 && off($c["gflops"], $c["flops"] / seconds / 1e9)) print "gflops", $0
                if ($c["speedup"] != "" && off($c["speedup"], cpu_ms / $c["median_ms"])) print "speedup", $0
            }' <<<"$output"
        assert_output ""
    done
}

@test "every lesson's table fits in 100 columns and says how it was timed" {
    use_gpu_build
    for lesson in $(lesson_programs); do
        run "$BUILD/$lesson" -n "$(contract_size "$lesson")" --reps 1 --warmup 0
        assert_success
        assert_line --regexp "^timing   median of 1 run after 0 warm-up runs; every row cold: "
        assert_line --regexp "^variant +time covers +median ms +GB/s +GFLOP/s +% peak +% copy +speedup +check$"
        local longest
        # the table: from its header to the blank line before the summary
        longest=$(awk '/^variant/,/^$/ { print length($0) }' <<<"$output" | sort -n | tail -n 1)
        [ "$longest" -le 100 ] || fail "$lesson's table is $longest columns wide"
        assert_line --regexp "^all [0-9]+ checks passed against the CPU reference: naive, (.+, )?optimized"
    done
}

@test "--cache warm says so in the header and the CSV" {
    use_gpu_build
    for lesson in $(lesson_programs); do
        run "$BUILD/$lesson" -n "$(contract_size "$lesson")" --reps 1 --warmup 0 --cache warm
        assert_line --partial "caches warm: each run finds what the previous one left"
        run --separate-stderr "$BUILD/$lesson" -n "$(contract_size "$lesson")" --reps 1 --warmup 0 --cache warm --csv
        assert_equal "$(csv_column cache <<<"$output" | sort -u)" warm
    done
}

@test "--only cpu says that nothing was checked" {
    use_any_build
    for lesson in $(lesson_programs); do
        run "$BUILD/$lesson" -n "$(contract_size "$lesson")" --only cpu --reps 1 --warmup 0
        assert_success
        assert_line "nothing was checked: only the CPU reference ran"
        refute_output --partial "checks passed"
    done
}

@test "emulated rows say n/a for the driver and runtime versions" {
    [ -d "$EMU_BUILD" ] || skip "no emulator build in $EMU_BUILD"
    for lesson in $(lesson_programs); do
        run --separate-stderr "$EMU_BUILD/$lesson" -n "$(contract_size "$lesson")" --reps 1 --warmup 0 --csv
        assert_success
        assert_equal "$(csv_column driver <<<"$output" | sort -u)" "n/a"
        assert_equal "$(csv_column runtime <<<"$output" | sort -u)" "n/a"
        assert_equal "$(csv_column backend <<<"$output" | sort -u)" "emu"
    done
}

@test "a host run over 2 s is timed once, and the table says so; shorter ones as often as asked" {
    use_any_build
    # lesson06's CPU loop on one thread: 3 x 10^9 multiply-adds, some 3 s on a laptop's core
    OMP_NUM_THREADS=1 run --separate-stderr "$BUILD/lesson06" -n 1000000x3000 --only cpu \
        --reps 3 --warmup 0 --csv
    assert_success
    assert_equal "$(csv_column reps <<<"$output")" 1
    awk -v ms="$(csv_column median_ms <<<"$output")" 'BEGIN { exit !(ms > 2000) }' ||
        fail "the timed run took $(csv_column median_ms <<<"$output") ms, not over 2 s: use a larger size"
    grep -qx "cpu: a run took over 2 s, so it was timed once: its row is one run, not a median" <<<"$stderr" ||
        fail "no note of the single run: $stderr"
    run --separate-stderr "$BUILD/lesson06" -n 1000x10 --only cpu --reps 3 --warmup 1 --csv
    assert_equal "$(csv_column reps <<<"$output")" 3
    [[ "$stderr" != *"timed once"* ]] || fail "a short run was said to be timed once: $stderr"
}
