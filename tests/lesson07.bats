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
    # the default part's rows are lesson07's; another part's carry its name
    local lesson=lesson07-$part
    [ "$part" = chain ] && lesson=lesson07
    assert_line --regexp "^$lesson,cpu,host,$n,.*,REF,"
    for row in "$@"; do
        assert_line --regexp "^$lesson,$row,$n,.*,PASS,"
    done
    refute_line --regexp ",FAIL,"
}

@test "lesson07 --part chain: @vectorize copies, resident launches and the fused kernel pass" {
    assert_part_passes chain 4099 vectorize,transfers naive,kernel naive,end-to-end \
        optimized,kernel optimized,end-to-end
}

@test "lesson07 --part bandwidth: each direction, from pageable and from pinned memory, arrives intact" {
    assert_part_passes bandwidth 1 h2d,transfers d2h,transfers h2d-pinned,transfers \
        d2h-pinned,transfers both-pinned,transfers
    assert_part_passes bandwidth 65537 h2d,transfers d2h,transfers h2d-pinned,transfers \
        d2h-pinned,transfers both-pinned,transfers
    # one direction a row: 4 bytes per element, not a round trip's 8
    assert_line --regexp "^lesson07-bandwidth,d2h-pinned,transfers,65537,65537,262148,0,.*,PASS,"
}

@test "lesson07 --part bandwidth at -n 1 prints each direction's latency, the rows' own times" {
    use_gpu_build
    run --separate-stderr "$BUILD/lesson07" --part bandwidth -n 1 --reps 3 --warmup 1 --csv
    assert_success
    local expected printed
    expected=$(awk -F , '$3 == "transfers" && $2 != "both-pinned" { printf "%s%s %.1f us", sep, $2, $9 * 1000; sep = ", " }' \
        <<<"$output")
    printed=$(sed -n 's/.*a copy of 4 bytes is all fixed cost: //p' <<<"$stderr")
    [ -n "$printed" ] || fail "no latency line in: $stderr"
    # the same directions in the same order, each time within the last printed
    # digit: the note rounds the unrounded time, the CSV's 6 digits may round apart
    awk -v printed="$printed" -v expected="$expected" 'BEGIN {
            n = split(printed, p, ", "); if (n != split(expected, e, ", ")) exit 1
            for (i = 1; i <= n; i++) {
                split(p[i], pw, " "); split(e[i], ew, " ")
                if (pw[1] != ew[1] || pw[3] != "us" || pw[2] - ew[2] > 0.15 || ew[2] - pw[2] > 0.15) exit 1
            } }' || fail "expected the latencies '$expected' in: $stderr"
    if [ "$BUILD" = "$EMU_BUILD" ]; then
        [[ "$stderr" == *"latency (from this run's times, CPU emulation, not GPU times)"* ]] ||
            fail "the latency line does not say it is CPU emulation: $stderr"
    fi
}

@test "lesson07 --part bandwidth: both directions at once, and what they took against each alone" {
    use_gpu_build
    run --separate-stderr "$BUILD/lesson07" --part bandwidth -n 65537 --reps 2 --warmup 0 --csv
    assert_success
    # one copy's bytes a row, as the one-way rows: each direction's rate while both run
    assert_line --regexp "^lesson07-bandwidth,both-pinned,transfers,65537,65537,262148,0,.*,PASS,"
    local expected
    expected=$(awk -F , '$3 == "transfers" { ms[$2] = $9 }
        END { slower = ms["h2d-pinned"] > ms["d2h-pinned"] ? ms["h2d-pinned"] : ms["d2h-pinned"]
              printf "%.0f\n", 100 * ms["both-pinned"] / slower }' <<<"$output")
    local printed
    printed=$(sed -n 's/.* both took \([0-9]*\)% of the slower one.s$/\1/p' <<<"$stderr")
    [ -n "$printed" ] || fail "no both-ways note in: $stderr"
    [ $((printed - expected)) -le 1 ] && [ $((expected - printed)) -le 1 ] ||
        fail "the note says $printed%, the rows give $expected%: $stderr"
    [[ "$stderr" == *"both ways ("*"): 0.2621 MB each way in "* ]] || fail "stderr: $stderr"
    # without the one-way rows there is nothing to set it against: no note
    run --separate-stderr "$BUILD/lesson07" --part bandwidth -n 1000 --only both-pinned \
        --reps 1 --warmup 0
    assert_success
    [[ "$stderr$output" != *"both ways"* ]] || fail "a both-ways note without the one-way rows"
}

@test "a copy to the device that moves half the bytes fails its row at the first element it missed" {
    run_failing_mutant '/^static void run_copy_to_device/,/^}/s/data->bytes\[X\], cudaMemcpyHostToDevice/data->bytes[X] \/ 2, cudaMemcpyHostToDevice/' --part bandwidth -n 1000
    assert_line --regexp "^h2d +transfers .* FAIL"
    assert_line --regexp "^d2h +transfers .* PASS"
    [[ "$stderr" == *"h2d (transfers) FAIL: y: first mismatch at index 500: "* ]] || fail "stderr: $stderr"
}

@test "both ways at once: a copy to the device that moves half the bytes fails the row" {
    run_failing_mutant '/^static void run_copy_both_ways/,/^}/s/data->bytes\[X\],$/data->bytes[X] \/ 2,/' --part bandwidth -n 1000
    assert_line --regexp "^both-pinned +transfers .* FAIL"
    assert_line --regexp "^h2d-pinned +transfers .* PASS"
}

@test "a copy to the host of a device buffer nobody filled fails its row" {
    run_failing_mutant '/^static void prepare_bandwidth/,/^}/s/CUDA_CHECK(cudaMemcpy(data->device\[X\].*$/(void)data;/' --part bandwidth -n 1000
    assert_line --regexp "^d2h +transfers .* FAIL"
    assert_line --regexp "^d2h-pinned +transfers .* FAIL"
    assert_line --regexp "^h2d-pinned +transfers .* PASS"
}

# Runs the intensity part at size n and degree d, and checks the break-even
# lines on stderr against the CSV's medians: the case the times call for,
# the degree d x copies / (cpu - kernel) and the size n x end-to-end / cpu.
assert_break_even_matches_rows() {
    local n="$1" degree="$2"
    use_gpu_build
    run --separate-stderr "$BUILD/lesson07" --part intensity -n "$n" --degree "$degree" \
        --reps 3 --warmup 1 --csv
    assert_success
    local cpu kernel end_to_end
    read -r cpu kernel end_to_end < <(awk -F , '$2 == "cpu" { c = $9 }
        $2 == "gpu" && $3 == "kernel" { k = $9 } $2 == "gpu" && $3 == "end-to-end" { e = $9 }
        END { print c, k, e }' <<<"$output")
    local source="from this run's measurements"
    [ "$BUILD" != "$EMU_BUILD" ] || source="from this run's times, CPU emulation, not GPU times"
    [[ "$stderr" == *"break-even ($source):"* ]] || fail "no break-even heading: $stderr"
    if awk -v c="$cpu" -v k="$kernel" 'BEGIN { exit !(k >= c) }'; then
        local printed
        printed=$(sed -n "s/^  the kernel alone takes \([0-9.e+-]*\) ms, the CPU \([0-9.e+-]*\) ms: no degree makes the copies pay at n = $n\$/\1 \2/p" <<<"$stderr")
        [ -n "$printed" ] || fail "no 'no degree makes the copies pay' line in: $stderr"
        # the line prints 4 significant digits of the unrounded times, the CSV
        # keeps 6: the two may round apart in the last printed digit
        awk -v printed="$printed" -v c="$cpu" -v k="$kernel" 'function near(a, b) {
                return (a - b <= 1e-3 * b && b - a <= 1e-3 * b) }
            BEGIN { split(printed, p, " "); exit !(near(p[1], k) && near(p[2], c)) }' ||
            fail "printed '$printed' (kernel, cpu), the rows give $kernel, $cpu: $stderr"
        return
    fi
    local printed_degree wanted_degree
    printed_degree=$(sed -n "s/^  at n = $n it does from degree \([0-9]*\).*/\1/p" <<<"$stderr")
    [ -n "$printed_degree" ] || fail "no break-even degree in: $stderr"
    wanted_degree=$(awk -v c="$cpu" -v k="$kernel" -v e="$end_to_end" -v d="$degree" \
        'BEGIN { x = d * (e > k ? e - k : 0) / (c - k); r = int(x); if (r < x) r++; print r < 1 ? 1 : r }')
    # the CSV keeps 6 digits: a ceiling may land one apart
    [ $((printed_degree - wanted_degree)) -ge -1 ] && [ $((printed_degree - wanted_degree)) -le 1 ] ||
        fail "printed degree $printed_degree, the rows give $wanted_degree: $stderr"
    if awk -v c="$cpu" -v e="$end_to_end" 'BEGIN { exit !(e < c) }'; then
        local printed_n wanted_n
        printed_n=$(sed -n "s/^  at degree $degree the GPU end to end beats the CPU from n = \([0-9]*\) at most (here n = $n: .*/\1/p" <<<"$stderr")
        [ -n "$printed_n" ] || fail "no break-even size in: $stderr"
        wanted_n=$(awk -v c="$cpu" -v e="$end_to_end" -v n="$n" 'BEGIN { printf "%d", n * e / c }')
        [ $((printed_n - wanted_n)) -ge -1 ] && [ $((printed_n - wanted_n)) -le 1 ] ||
            fail "printed size $printed_n, the rows give $wanted_n: $stderr"
    else
        [[ "$stderr" == *"  the GPU end to end does not beat the CPU at this size and degree"* ]] ||
            fail "expected the GPU to lose at this size and degree: $stderr"
    fi
}

@test "lesson07 --part intensity prints a break-even that follows from its own rows" {
    assert_break_even_matches_rows 20000 1
    assert_break_even_matches_rows 20000 64
}

@test "lesson07 --part intensity prints its break-even under the table too" {
    use_gpu_build
    run "$BUILD/lesson07" --part intensity -n 4099 --reps 1 --warmup 0
    assert_success
    assert_line --regexp "^break-even \(from this run's"
    assert_line --regexp "^  at n = 4099 it does from degree [0-9]+( \(pinned: [0-9]+\))?: [0-9.e+]+ FLOP per byte copied$|^  the kernel alone takes "
}

@test "lesson07 --part intensity passes at degrees 1 and 256" {
    assert_part_passes intensity 1023 gpu,kernel gpu,end-to-end gpu-pinned,end-to-end
    run "$BUILD/lesson07" --part intensity --degree 256 -n 1025 --reps 1 --warmup 0 --csv
    assert_success
    assert_line --regexp "^lesson07-intensity,gpu,kernel,1025,1025,8200,524800,.*,PASS,"
}

@test "lesson07 --part overlap: the streamed pipeline passes with a short last chunk and more chunks than elements" {
    assert_part_passes overlap 4099 serial,kernel serial,end-to-end streams,transfers \
        one-stream,transfers
    run "$BUILD/lesson07" --part overlap --chunks 7 -n 3 --reps 1 --warmup 0 --csv
    assert_success
    assert_line --regexp "^lesson07-overlap,streams,transfers,3,.*,PASS,"
    assert_line --regexp "^lesson07-overlap,one-stream,transfers,3,.*,PASS,"
}

# The three lanes of the timeline titled $2: 60 columns each, every one of
# the $1 chunks' digits in each.
assert_timeline_lanes() {
    local chunks="$1" title="$2" lane line
    for lane in "copy in " "kernel  " "copy out"; do
        line=$(grep -A 5 -F "$title" <<<"$output" | grep -E "^  $lane  \|.{60}\| busy [0-9.e+-]+ ms$") ||
            fail "no $lane lane of 60 columns after '$title': $output"
        for ((c = 0; c < chunks; c++)); do
            [[ "$line" == *"$c"* ]] || fail "chunk $c is missing from: $line"
        done
    done
}

@test "lesson07 --part overlap draws a timeline of every chunk on each engine, and compares with the ideal" {
    use_gpu_build
    run "$BUILD/lesson07" --part overlap -n 5000 --chunks 3 --reps 1 --warmup 0
    assert_success
    assert_line --regexp "^timeline of one-stream, 3 chunks on 1 stream, its latest run: 9 spans over "
    assert_line --regexp "^timeline of streams, 3 chunks on 4 streams, its latest run: 9 spans over "
    assert_timeline_lanes 3 "timeline of one-stream"
    assert_timeline_lanes 3 "timeline of streams"
    # the ideal is one-stream's busiest engine; the percentage, the streams
    # row's time over it
    local ideal streams percent median
    ideal=$(sed -n 's/^  (one-stream.s spans: copy in \([^ ]*\) ms, kernel \([^ ]*\) ms, copy out \([^ ]*\) ms)$/\1 \2 \3/p' <<<"$output" |
        awk '{ m = $1; if ($2 > m) m = $2; if ($3 > m) m = $3; printf "%.4g", m }')
    [ -n "$ideal" ] || fail "no engine times: $output"
    read -r streams percent < <(sed -n "s/^  streams take \([^ ]*\) ms, \([0-9]*\)% of the ideal $ideal ms: the busiest engine alone$/\1 \2/p" <<<"$output")
    [ -n "$percent" ] || fail "no comparison with the ideal $ideal ms: $output"
    awk -v s="$streams" -v i="$ideal" -v p="$percent" 'BEGIN { d = 100 * s / i - p; exit !(d > -1 && d < 1) }' ||
        fail "$streams ms is not $percent% of $ideal ms"
    median=$(awk '$1 == "streams" && $2 == "transfers" { print $3 }' <<<"$output")
    awk -v a="$median" -v b="$streams" 'BEGIN { exit !(a - b < 1e-3 * b && b - a < 1e-3 * b) }' ||
        fail "the note's $streams ms is not the streams row's $median ms"
    if [ "$BUILD" = "$EMU_BUILD" ]; then
        assert_line "overlap (from this run's times, CPU emulation, not GPU times):"
        assert_line "  nothing overlaps here; only a GPU shows its engines at work together"
        assert_line --regexp "^  two or more lanes busy at once: 0% of the "
    fi
}

@test "lesson07 --part overlap --csv gives the ideal time as a figure line on stderr, the table none" {
    use_gpu_build
    run --separate-stderr "$BUILD/lesson07" --part overlap -n 5000 --chunks 3 --reps 1 --warmup 0 --csv
    assert_success
    refute_line --regexp "^figure"
    # the figure is the note's ideal, the busiest engine alone
    figure=$(printf '%s\n' "$stderr" | grep '^figure,')
    [[ "$figure" =~ ^figure,lesson07-overlap,ideal_ms,[0-9.e+-]+,ms$ ]] || fail "figure line: $figure"
    ideal=$(printf '%s\n' "$stderr" | sed -n 's/.* of the ideal \([0-9.e+-]*\) ms:.*/\1/p')
    # the note rounds the time to 4 significant digits and the figure to 6, each from the full
    # value: they agree to within half a unit of the note's last digit (6e-4 of the value)
    awk -v f="$(echo "$figure" | cut -d , -f 4)" -v i="$ideal" 'BEGIN { d = f - i; exit !(d < 6e-4 * i && -d < 6e-4 * i) }' ||
        fail "figure $figure, the note's ideal $ideal"
    # without --csv the note alone says it
    run "$BUILD/lesson07" --part overlap -n 5000 --chunks 3 --reps 1 --warmup 0
    refute_output --partial "figure,"
}

@test "lesson07 --part overlap counts the chunks there are: 3 elements in --chunks 7 make 3" {
    use_gpu_build
    run --separate-stderr "$BUILD/lesson07" --part overlap -n 3 --chunks 7 --reps 1 --warmup 0 --csv
    assert_success
    [[ "$stderr" == *"timeline of streams, 3 chunks on 4 streams, its latest run: 9 spans over "* ]] ||
        fail "stderr: $stderr"
    refute_line --regexp "^timeline"
}

@test "lesson07 --part managed: managed memory with and without prefetching passes" {
    assert_part_passes managed 257 device,kernel device,end-to-end managed,transfers \
        prefetched,transfers
}

@test "lesson07 --part managed prints the fault cost per page that its rows imply" {
    use_gpu_build
    run --separate-stderr "$BUILD/lesson07" --part managed -n 64k --reps 3 --warmup 1 --csv
    assert_success
    local managed prefetched
    read -r managed prefetched < <(awk -F , '$3 == "transfers" && $2 == "managed" { m = $9 }
        $3 == "transfers" && $2 == "prefetched" { p = $9 } END { print m, p }' <<<"$output")
    local source="from this run's measurements"
    [ "$BUILD" != "$EMU_BUILD" ] || source="from this run's times, CPU emulation, not GPU times"
    [[ "$stderr" == *"first-touch faults ($source):"* ]] || fail "no fault heading: $stderr"
    if awk -v m="$managed" -v p="$prefetched" 'BEGIN { exit !(m <= p) }'; then
        [[ "$stderr" == *"  managed takes "*" ms, prefetched "*" ms: no fault cost shows at this size"* ]] ||
            fail "managed $managed ms is no slower than prefetched $prefetched ms: $stderr"
        return
    fi
    # x and y: 256,000 bytes each, 63 pages of 4 KB each
    local difference per_page
    read -r difference per_page < <(sed -n 's/^  managed takes \([^ ]*\) ms more than prefetched: \([^ ]*\) us for each of the 126 pages of 4 KB in x and y$/\1 \2/p' <<<"$stderr")
    [ -n "$per_page" ] || fail "no fault cost per page in: $stderr"
    # the CSV keeps 6 digits, the note computes from the full medians and prints the difference
    # with 4 digits, the cost per page with 3 (rounded by up to half a unit of the third)
    awk -v m="$managed" -v p="$prefetched" -v d="$difference" -v u="$per_page" 'BEGIN {
        e = m - p; slack = 1e-5 * (m + p) + 1e-3 * e
        exit !(d - e <= slack && e - d <= slack && (u - e * 1e3 / 126) ^ 2 <= (1e3 * slack / 126 + 5e-3 * u) ^ 2) }' ||
        fail "printed $difference ms and $per_page us a page; the rows give $managed - $prefetched ms"
}

@test "lesson07 --part managed times the prefetched kernel alone, against the device kernel row" {
    use_gpu_build
    run --separate-stderr "$BUILD/lesson07" --part managed -n 64k --only device,prefetched \
        --reps 2 --warmup 0 --csv
    assert_success
    # the timeline of prefetched's latest call: its three steps, one after another
    [[ "$stderr" == *"timeline of prefetched, its latest run: 3 spans over "* ]] ||
        fail "no timeline of prefetched: $stderr"
    local figure kernel device percent
    figure=$(grep '^figure,' <<<"$stderr")
    [[ "$figure" =~ ^figure,lesson07-managed,prefetched_kernel_ms,[0-9.e+-]+,ms$ ]] ||
        fail "figure line: $figure"
    read -r kernel percent device < <(sed -n 's/^  \([^ ]*\) ms on managed memory already on the GPU, \([0-9]*\)% of the device kernel row.s \([^ ]*\) ms$/\1 \2 \3/p' <<<"$stderr")
    [ -n "$device" ] || fail "no prefetched kernel note in: $stderr"
    # the figure is the note's kernel time, and the percentage its ratio to the device row
    # (within half a unit of the note's 4th digit: the figure's 6 digits rounded again to 4 can
    # land one unit off, 0.87495 -> 0.8749 where the note rounded 0.874950.. to 0.875)
    awk -v f="$(cut -d , -f 4 <<<"$figure")" -v k="$kernel" \
        'BEGIN { unit = 10 ^ (int(log(k) / log(10) + 100) - 100 - 3); exit !((f - k) ^ 2 <= (0.5001 * unit) ^ 2) }' ||
        fail "figure $figure, the note's kernel $kernel ms"
    awk -v k="$kernel" -v d="$device" -v p="$percent" 'BEGIN { e = 100 * k / d; exit !(p - e <= 1 && e - p <= 1) }' ||
        fail "$kernel ms against $device ms is not $percent%"
    # without the device row there is nothing to compare with: no figure
    run --separate-stderr "$BUILD/lesson07" --part managed -n 1000 --only prefetched \
        --reps 1 --warmup 0 --csv
    assert_success
    [[ "$stderr" != *"prefetched_kernel_ms"* ]] || fail "a figure without the device row: $stderr"
}

@test "under the emulator the bandwidth and managed parts say the device is integrated" {
    [ -d "$EMU_BUILD" ] || skip "no emulator build in $EMU_BUILD"
    local part
    for part in bandwidth managed; do
        run "$EMU_BUILD/lesson07" --part $part -n 1000 --reps 1 --warmup 0
        assert_success
        assert_line "integrated: the emulated device shares the host's memory (integrated = 1), so its copies are memcpys"
        assert_line "  and its managed pages never move: no row here shows what a link costs"
    done
    run "$EMU_BUILD/lesson07" --part managed -n 1000 --reps 1 --warmup 0
    assert_line "  (no page moves under CPU emulation: the difference is not a fault cost)"
    run "$EMU_BUILD/lesson07" --part chain -n 1000 --reps 1 --warmup 0
    refute_output --partial "integrated:"
}

@test "lesson07 --part lucas: L(n) by recursion in one GPU thread matches the CPU" {
    assert_part_passes lucas 1 one-thread,kernel one-thread,end-to-end
    assert_part_passes lucas 25 one-thread,kernel one-thread,end-to-end
}

@test "lesson07 --part lucas says its CPU version runs on one thread, in the header and the CSV" {
    use_gpu_build
    run "$BUILD/lesson07" --part lucas -n 10 --reps 1 --warmup 0
    assert_success
    assert_line "host     CPU version on 1 OpenMP thread"
    run "$BUILD/lesson07" --part lucas -n 10 --reps 1 --warmup 0 --csv
    assert_success
    assert_line --regexp "^lesson07-lucas,cpu,host,10,.*,1,(cold|warm)$"
}

@test "COURSE.md's sweep loops write one CSV header, which plot.sh accepts, and the break-even reads it" {
    [ -d "$EMU_BUILD" ] || skip "no emulator build in $EMU_BUILD"
    cd "$BATS_TEST_TMPDIR"
    local lesson07="$EMU_BUILD/lesson07" n
    # the chapter's loops, at sizes the emulator runs in a moment
    for n in 1 256 4k; do "$lesson07" --part bandwidth -n $n --csv --reps 1 --warmup 0; done 2>/dev/null |
        awk 'NR == 1 || !/^lesson,/' > bandwidth.csv
    for n in 1k 16k; do "$lesson07" --part intensity --degree 256 -n $n --csv --reps 1 --warmup 0; done 2>/dev/null |
        awk 'NR == 1 || !/^lesson,/' > intensity.csv
    assert_equal "$(grep -c '^lesson,' bandwidth.csv)" 1
    assert_equal "$(wc -l < bandwidth.csv)" 19
    run sh "$REPO/plots/plot.sh" --check bandwidth.csv intensity.csv
    assert_success
    assert_output "plot.sh: 2 results file(s) look good"
    run awk -f "$REPO/plots/break-even.awk" intensity.csv
    assert_success
    assert_line "break-even, lesson07-intensity at degree 256 (CPU emulation, not GPU times):"
    assert_line --regexp "^  gpu end-to-end (beats|does not beat) the cpu "
    assert_line --regexp "^  gpu-pinned end-to-end (beats|does not beat) the cpu "
    # without the awk, every run's header lands in the file, and plot.sh refuses it
    for n in 1 256; do "$lesson07" --part bandwidth -n $n --csv --reps 1 --warmup 0; done > headers.csv 2>/dev/null
    run sh "$REPO/plots/plot.sh" --check headers.csv
    assert_failure 1
    # the second run's header follows the first run's header and six rows
    assert_output "plot.sh: headers.csv: line 8: scope is 'scope', expected one of: host kernel end-to-end library transfers "
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

@test "lesson07 refuses a Lucas index beyond 32 bits, and bad chunk counts, degrees and sizes, in one line" {
    use_any_build
    run --separate-stderr "$BUILD/lesson07" --part lucas -n 47
    assert_equal "$status" 2
    [[ "$stderr" == *"'47' is out of range (each dimension 1 to 46)"* ]] || fail "stderr: $stderr"
    local arguments expected
    while IFS='|' read -r arguments expected; do
        # shellcheck disable=SC2086  # arguments is a list of words
        run --separate-stderr "$BUILD/lesson07" $arguments
        assert_equal "$status" 2
        assert_equal "$stderr" "lesson07: $expected (see --help)"
        assert_equal "$output" ""
    done <<'CASES'
--part overlap --chunks 0|--chunks value '0' is out of range (1 to 1024)
--part overlap --chunks 1025|--chunks value '1025' is out of range (1 to 1024)
--part intensity --degree 0|--degree value '0' is out of range (1 to 4096)
--part intensity --degree 4097|--degree value '4097' is out of range (1 to 4096)
--part intensity --degree x|invalid value 'x' for --degree: expected a whole number such as 1000, 64k or 10M
--part bandwidth -n 0|-n value '0' is out of range (each dimension 1 to 34359738368)
CASES
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
    build_mutant lessons/07-transfers/transfers.cu "$1" "$BATS_TEST_TMPDIR/broken"
}

# Builds lesson07 with sed expression $1 applied, runs it once with the other
# arguments, and asserts that a check failed.
run_failing_mutant() {
    build_mutated_lesson "$1"
    shift
    run --separate-stderr "$BATS_TEST_TMPDIR/broken" "$@" --reps 1 --warmup 0
    assert_equal "$status" 1
}

@test "a streamed pipeline that drops its short last chunk fails at the first element it missed" {
    run_failing_mutant 's/begin < n; c++, begin += chunk/begin + chunk <= n; c++, begin += chunk/' --part overlap -n 1000 --chunks 3
    assert_line --regexp "^streams +transfers .* FAIL"
    [[ "$stderr" == *"streams (transfers) FAIL: y: first mismatch at index 668: "*"nan"* ]] ||
        fail "stderr does not name the first mismatch: $stderr"
}

@test "a polynomial kernel that writes one NaN fails every GPU row of the intensity part" {
    run_failing_mutant '/^__global__ void polynomial_kernel/,/^}/s/y\[i\] = polynomial(x\[i\], degree);$/y[i] = i == 77 ? nanf("") : polynomial(x[i], degree);/' --part intensity -n 1000
    assert_line --regexp "^gpu +kernel .* FAIL \(1 NaN/Inf\)$"
    assert_line --regexp "^gpu-pinned +end-to-end .* FAIL \(1 NaN/Inf\)$"
    [[ "$stderr" == *"first mismatch at index 77: "* ]] || fail "stderr: $stderr"
}

@test "a @vectorize chain that skips its copy back between steps fails" {
    run_failing_mutant 's/on_host = (const float \*)data->host\[Y\];/on_host = on_host;/' --part chain -n 1000
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
    build_mutant solutions/07-transfers/exercise.cu "$1" "$BATS_TEST_TMPDIR/mutant" \
        lessons/07-transfers/exercise_check.cu
    run "$BATS_TEST_TMPDIR/mutant"
}

@test "exercise07's checker catches a pipeline that rounds the chunk length down" {
    run_mutated_solution 's|(n + chunk_count - 1) / chunk_count|n / chunk_count + (n < chunk_count)|; s|begin < n; c++|c < chunk_count \&\& begin < n; c++|'
    assert_failure 1
    assert_line --regexp "^  n = 257 +4 chunks  FAIL: first wrong index 256: expected [0-9.]+, got -?nan$"
    assert_line "  n = 4099      1 chunk   PASS"
}

@test "exercise07's checker catches a pipeline that returns without waiting for its streams" {
    # TODO 4 left out: the results are there under the emulator, but no stream was waited for
    run_mutated_solution 's/CUDA_CHECK(cudaStreamSynchronize(streams\[s\]));/;/'
    assert_failure 1
    assert_line "  n = 1         8 chunks  FAIL: pipeline_chunked returned while streams[0] still had work: wait for every stream before returning (TODO 4)"
    assert_line "  n = 4099      1 chunk   FAIL: pipeline_chunked returned while streams[0] still had work: wait for every stream before returning (TODO 4)"
    assert_line "exercise07: FAIL (7 of 7 trials wrong)"
}

@test "exercise07's checker catches a pipeline that waits for the first stream only" {
    run_mutated_solution 's/cudaStreamSynchronize(streams\[s\])/cudaStreamSynchronize(streams[0])/'
    assert_failure 1
    # one chunk, or one element, uses streams[0] alone
    assert_line "  n = 1         8 chunks  PASS"
    assert_line "  n = 4099      1 chunk   PASS"
    assert_line "  n = 255       4 chunks  FAIL: pipeline_chunked returned while streams[1] still had work: wait for every stream before returning (TODO 4)"
    assert_line "exercise07: FAIL (5 of 7 trials wrong)"
}

@test "exercise07's checker catches a copy back from the start of d_y instead of the chunk's" {
    run_mutated_solution 's/h_y + begin, d_y + begin/h_y + begin, d_y/'
    assert_failure 1
    assert_line "  n = 1         8 chunks  PASS"
    assert_line "  n = 4099      1 chunk   PASS"
    assert_line --regexp "^  n = 4099 +3 chunks  FAIL: first wrong index 1367: "
}

@test "exercise07's checker does not let a NaN slip through" {
    run_mutated_solution 's/launch_square_plus_one(d_x + begin, d_y + begin, length, stream);/launch_square_plus_one(d_x + begin, d_y + begin, length, stream); if (begin == 0 \&\& n > 100) CUDA_CHECK(cudaMemsetAsync(d_y + 50, 0xFF, 4, stream));/'
    assert_failure 1
    assert_line "  n = 1         8 chunks  PASS"
    assert_line --regexp "^  n = 257 +4 chunks  FAIL: first wrong index 50: expected [0-9.]+, got -?nan$"
}
