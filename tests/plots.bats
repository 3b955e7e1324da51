#!/usr/bin/env bats
# tests/plots.bats - the specification of plots/plot.sh: it checks results
# files and turns them into PNG and SVG charts.
#
#   bats tests/plots.bats        (or make test, which runs every test file)
#
# The inputs are the synthetic files in tests/fixtures/ (test data, not
# measurements); the charts go to a temporary folder per test.

setup() {
    bats_load_library bats-support
    bats_load_library bats-assert
    repo="$BATS_TEST_DIRNAME/.."
    fixtures="$BATS_TEST_DIRNAME/fixtures"
    out="$BATS_TEST_TMPDIR/out"
    cd "$repo" || return 1
}

# Drawing needs gnuplot; checking files does not. Without it the drawing
# tests are skipped, saying so (the TAP summary counts the skips).
needs_gnuplot() {
    command -v gnuplot >/dev/null 2>&1 ||
        skip "gnuplot is not installed: sudo apt-get install gnuplot-nox"
}

# PNG files start with the bytes 89 50 4E 47 ("\x89PNG").
is_png() {
    [ "$(head -c 4 "$1" | od -An -tx1 | tr -d ' \n')" = "89504e47" ]
}

@test "make plots turns one results file into PNG and SVG charts" {
    needs_gnuplot
    run sh plots/plot.sh "$out" "$fixtures/test-gpu-a.csv"
    assert_success
    for chart in speedup peak sweep gflops roofline; do
        for lesson in lesson01 lesson02; do
            png="$out/test-gpu-a-$lesson-$chart.png"
            svg="$out/test-gpu-a-$lesson-$chart.svg"
            [ -s "$png" ] || fail "$png is missing or empty"
            [ -s "$svg" ] || fail "$svg is missing or empty"
            is_png "$png" || fail "$png does not start with the PNG signature"
            grep -q '<svg' "$svg" || fail "$svg has no <svg element"
        done
    done
}

@test "make plots draws the same charts in a locale whose decimal mark is a comma" {
    needs_gnuplot
    load test_helper
    use_comma_locale
    run sh plots/plot.sh "$out" "$fixtures/test-gpu-a.csv"
    assert_success
    local in_c=$output
    LOCPATH="$LOCALES" LC_ALL=de_DE.UTF-8 run sh plots/plot.sh "$BATS_TEST_TMPDIR/de" "$fixtures/test-gpu-a.csv"
    assert_success
    assert_equal "${output//$BATS_TEST_TMPDIR\/de/$out}" "$in_c"
    local chart count=0
    for chart in "$out"/*.svg; do
        cmp "$chart" "$BATS_TEST_TMPDIR/de/${chart##*/}" || fail "${chart##*/} differs in de_DE"
        count=$((count + 1))
    done
    [ "$count" -ge 10 ]
}

@test "chart titles name the lesson and the device" {
    needs_gnuplot
    run sh plots/plot.sh "$out" "$fixtures/test-gpu-a.csv"
    assert_success
    # two title lines: what ran where, then what the chart shows
    grep -q '>lesson01 on Test GPU A<' "$out/test-gpu-a-lesson01-speedup.svg"
    grep -q '>speedup over the CPU at n = 1M<' "$out/test-gpu-a-lesson01-speedup.svg"
    grep -q '>throughput against problem size<' "$out/test-gpu-a-lesson01-sweep.svg"
    grep -q 'GB/s' "$out/test-gpu-a-lesson01-sweep.svg"
    # the GFLOP/s sweep has the device's FP32 peak (the fixture's 10000 GFLOP/s) as a line
    grep -q '>GFLOP/s against problem size<' "$out/test-gpu-a-lesson01-gflops.svg"
    grep -q '>effective throughput (GFLOP/s, log scale)<' "$out/test-gpu-a-lesson01-gflops.svg"
    grep -q '>FP32 peak (10000 GFLOP/s)<' "$out/test-gpu-a-lesson01-gflops.svg"
    ! grep -q 'FP32 peak' "$out/test-gpu-a-lesson01-sweep.svg"
}

@test "an FP64 lesson's charts name the FP64 peak, the others' the FP32 peak, one without FLOP the bandwidth" {
    needs_gnuplot
    # lesson01's rows again as lesson06's, whose lesson.conf says ARITHMETIC = FP64
    awk -F , -v OFS=, 'NR == 1 { print; next } $1 == "lesson01" { print; $1 = "lesson06"; print }' \
        "$fixtures/test-gpu-a.csv" > "$BATS_TEST_TMPDIR/fp64.csv"
    run sh plots/plot.sh "$out" "$BATS_TEST_TMPDIR/fp64.csv"
    assert_success
    grep -q '>FP64 peak (10000 GFLOP/s)<' "$out/fp64-lesson06-gflops.svg"
    grep -q '>roofline: [0-9]* GB/s, 10000 GFLOP/s FP64<' "$out/fp64-lesson06-roofline.svg"
    grep -q '>% of peak (memory, FP64) at n = 1M<' "$out/fp64-lesson06-peak.svg"
    # lesson02's rows do no floating-point work: their % of peak is of the bandwidth alone
    awk -F , -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; print; next }
        $1 == "lesson02" { $c["flops"] = 0; $c["gflops"] = 0; print }' \
        "$fixtures/test-gpu-a.csv" > "$BATS_TEST_TMPDIR/memory.csv"
    run sh plots/plot.sh "$out" "$BATS_TEST_TMPDIR/memory.csv"
    assert_success
    grep -q '>% of peak (memory bandwidth) at n = ' "$out/memory-lesson02-peak.svg"
    grep -q '>FP32 peak (10000 GFLOP/s)<' "$out/fp64-lesson01-gflops.svg"
    grep -q '>roofline: [0-9]* GB/s, 10000 GFLOP/s FP32<' "$out/fp64-lesson01-roofline.svg"
    ! grep -q 'FP64' "$out/fp64-lesson01-gflops.svg"
}

@test "a lesson that only appears in the CSV gets its charts with no change to the scripts" {
    needs_gnuplot
    # lesson02 and its cub variant are named nowhere in plots/
    run grep -rlw 'lesson02\|cub' plots/*.gp plots/*.sh plots/*.awk
    assert_failure
    run sh plots/plot.sh "$out" "$fixtures/test-gpu-a.csv"
    assert_success
    grep -q 'cub kernel' "$out/test-gpu-a-lesson02-speedup.svg"
}

@test "a lesson run at one size only gets no sweep chart, with the reason" {
    needs_gnuplot
    awk -F , 'NR == 1 || $4 == 1000000' "$fixtures/test-gpu-a.csv" > "$BATS_TEST_TMPDIR/one-size.csv"
    run sh plots/plot.sh "$out" "$BATS_TEST_TMPDIR/one-size.csv"
    assert_success
    assert_line "  skipped one-size-lesson01-sweep: one size only (n = 1M): a sweep needs two"
    refute_output --partial "empty x range"
    [ ! -e "$out/one-size-lesson01-sweep.png" ]
    [ -s "$out/one-size-lesson01-speedup.png" ]
}

@test "emulation results say CPU emulation in the title and skip % of peak with a reason" {
    needs_gnuplot
    run sh plots/plot.sh "$out" "$fixtures/test-emulation.csv"
    assert_success
    assert_output --partial "skipped test-emulation-lesson01-peak: CPU emulation has no device peaks"
    [ ! -e "$out/test-emulation-lesson01-peak.png" ]
    grep -q 'CPU emulation.*NOT GPU times' "$out/test-emulation-lesson01-speedup.svg"
    [ -s "$out/test-emulation-lesson01-roofline.png" ]
}

@test "the chart across machines appears only when several results files are given" {
    needs_gnuplot
    run sh plots/plot.sh "$out" "$fixtures/test-gpu-a.csv"
    assert_success
    [ ! -e "$out/lesson01-across-machines.png" ]

    run sh plots/plot.sh "$out" "$fixtures/test-gpu-a.csv" "$fixtures/test-gpu-b.csv" \
        "$fixtures/test-emulation.csv"
    assert_success
    for lesson in lesson01 lesson02; do
        is_png "$out/$lesson-across-machines.png"
        grep -q "$lesson across machines" "$out/$lesson-across-machines.svg"
    done
    [ -s "$out/test-gpu-b-lesson01-sweep.svg" ]
}

@test "a row with too few fields is refused with the file, line and problem" {
    run sh plots/plot.sh "$out" "$fixtures/malformed-short-row.csv"
    assert_failure
    assert_output "plot.sh: $fixtures/malformed-short-row.csv: line 4: has 9 fields, the header has 25"
    [ ! -e "$out" ] || [ -z "$(ls "$out")" ]
}

@test "a word where a number belongs is refused with the column named" {
    run sh plots/plot.sh "$out" "$fixtures/malformed-not-a-number.csv"
    assert_failure
    assert_output --partial "malformed-not-a-number.csv: line 3: gbps is 'fast', expected a number"
    [ "${#lines[@]}" -eq 1 ]
}

@test "a file with another header is refused" {
    printf 'a,b,c\n1,2,3\n' > "$BATS_TEST_TMPDIR/other.csv"
    run sh plots/plot.sh "$out" "$BATS_TEST_TMPDIR/other.csv"
    assert_failure
    assert_output --partial "other.csv: line 1: the header is not a lesson CSV header"
}

@test "an empty results file is refused" {
    : > "$BATS_TEST_TMPDIR/empty.csv"
    run sh plots/plot.sh "$out" "$BATS_TEST_TMPDIR/empty.csv"
    assert_failure
    assert_output "plot.sh: $BATS_TEST_TMPDIR/empty.csv: the file is empty (no header, no rows)"
}

@test "a results file with a header and no rows is refused" {
    head -n 1 "$fixtures/test-gpu-a.csv" > "$BATS_TEST_TMPDIR/header-only.csv"
    run sh plots/plot.sh "$out" "$BATS_TEST_TMPDIR/header-only.csv"
    assert_failure
    assert_output --partial "header-only.csv: has a header but no result rows"
}

@test "a missing results file is refused" {
    run sh plots/plot.sh "$out" "$BATS_TEST_TMPDIR/nothing-here.csv"
    assert_failure
    assert_output "plot.sh: $BATS_TEST_TMPDIR/nothing-here.csv: no such file"
}

@test "a glob that matched no results file says to run make bench" {
    # what the shell passes on when plots/results/*.csv matches nothing
    run sh plots/plot.sh "$out" "$BATS_TEST_TMPDIR/results/*.csv"
    assert_failure
    assert_output "plot.sh: no results file matches $BATS_TEST_TMPDIR/results/*.csv (run make bench first)"
}

@test "one bad file among good ones stops everything before any chart is drawn" {
    run sh plots/plot.sh "$out" "$fixtures/test-gpu-a.csv" "$fixtures/malformed-short-row.csv"
    assert_failure
    [ ! -e "$out/test-gpu-a-lesson01-sweep.png" ]
}

@test "a lesson CSV header without a column the charts read is refused, naming it" {
    sed '1s/,gbps,/,speed,/' "$fixtures/test-gpu-a.csv" > "$BATS_TEST_TMPDIR/no-gbps.csv"
    run sh plots/plot.sh "$out" "$BATS_TEST_TMPDIR/no-gbps.csv"
    assert_failure
    assert_output --partial "no-gbps.csv: line 1: the header has no column gbps"
}

@test "a results file as the lesson programs write it now is accepted, columns read by name" {
    # the fixtures are older files, without the elements and pct_copy columns; this one has them
    printf '%s\n' \
        "lesson,variant,scope,size,elements,bytes,flops,reps,median_ms,min_ms,spread_pct,gbps,gflops,peak_gbps,peak_gflops,pct_peak,pct_copy,speedup,check,max_error,device,backend,driver,runtime,cpu_threads,cache" \
        "lesson02,cpu,host,640x480,307200,1228800,0,3,0.5,0.5,1.00,2.4576,0,,,,,1,REF,0,Test CPU,emu,n/a,n/a,2,cold" \
        "lesson02,naive,kernel,640x480,307200,1228800,0,3,0.25,0.25,1.00,4.9152,0,,,,50,2,PASS,0,Test CPU,emu,n/a,n/a,2,cold" \
        > "$BATS_TEST_TMPDIR/now.csv"
    run sh plots/plot.sh --check "$BATS_TEST_TMPDIR/now.csv"
    assert_success
    sed -i 's/,640x480,/,640x480x3x2,/' "$BATS_TEST_TMPDIR/now.csv"
    run sh plots/plot.sh --check "$BATS_TEST_TMPDIR/now.csv"
    assert_failure
    assert_output --partial "size is '640x480x3x2', expected N, WxH or MxNxK"
}

@test "plot.sh --check accepts the fixtures without drawing" {
    run sh plots/plot.sh --check "$fixtures/test-gpu-a.csv" "$fixtures/test-gpu-b.csv" \
        "$fixtures/test-emulation.csv" "$fixtures/test-intensity-sweep.csv"
    assert_success
    assert_output "plot.sh: 4 results file(s) look good"
}

@test "only the latest run in a results file is drawn" {
    needs_gnuplot
    # an older run at a larger size, then the fixture's run: the old size must go
    results="$BATS_TEST_TMPDIR/two-runs.csv"
    head -n 1 "$fixtures/test-gpu-a.csv" > "$results"
    grep '^lesson01,cpu,host,1000,' "$fixtures/test-gpu-a.csv" |
        sed 's/,1000,12000,/,99000000,1188000000,/; s/2025-01-01T00:00:00Z/2024-06-01T00:00:00Z/' >> "$results"
    tail -n +2 "$fixtures/test-gpu-a.csv" >> "$results"
    run sh plots/plot.sh "$out" "$results"
    assert_success
    grep -q 'speedup over the CPU at n = 1M' "$out/two-runs-lesson01-speedup.svg"
}

@test "the course chart has each lesson's optimized kernel at its largest size, latest run first" {
    needs_gnuplot
    # an older run of the optimized kernel at a larger size and another speedup
    results="$BATS_TEST_TMPDIR/course.csv"
    head -n 1 "$fixtures/test-gpu-a.csv" > "$results"
    grep '^lesson01,optimized,kernel,1000000,' "$fixtures/test-gpu-a.csv" |
        sed 's/,1000000,12000000,/,99000000,1188000000,/; s/2025-01-01T00:00:00Z/2024-06-01T00:00:00Z/' >> "$results"
    tail -n +2 "$fixtures/test-gpu-a.csv" >> "$results"
    run awk -f plots/course.awk "$results"
    assert_success
    # (the size shortened to fit under the bar)
    assert_output "$(printf 'lesson01\t32.727\t65.45\t1M')"
    run sh plots/plot.sh "$out" "$results"
    assert_success
    assert_line "  $out/course-course.png, .svg"
    is_png "$out/course-course.png"
    grep -q 'the course on Test GPU A' "$out/course-course.svg"
    grep -q '32.7x' "$out/course-course.svg"
    grep -q '>1M<' "$out/course-course.svg"
}

@test "the course chart takes a lesson's COURSE_CHART_VARIANT as its last kernel, and optimized elsewhere" {
    results="$BATS_TEST_TMPDIR/course.csv"
    head -n 1 "$fixtures/test-gpu-a.csv" > "$results"
    local row
    row=$(grep '^lesson01,optimized,kernel,1000000,' "$fixtures/test-gpu-a.csv")
    # lesson 04's optimized and warptiled rows, with speedups of their own
    echo "$row" >> "$results"
    echo "$row" | sed 's/^lesson01,optimized,/lesson04,optimized,/; s/,32.727,PASS,/,20.5,PASS,/' >> "$results"
    echo "$row" | sed 's/^lesson01,optimized,/lesson04,warptiled,/; s/,32.727,PASS,/,24.25,PASS,/' >> "$results"
    run awk -f plots/course.awk -v last="lesson04=warptiled" "$results"
    assert_success
    assert_output "$(printf 'lesson01\t32.727\t65.45\t1M\nlesson04\t24.25\t65.45\t1M')"
    # and lesson 04's lesson.conf is what plot.sh reads
    grep -qx 'COURSE_CHART_VARIANT = warptiled' lessons/04-sgemm/lesson.conf
    needs_gnuplot
    run sh plots/plot.sh "$out" "$results"
    assert_success
    grep -q '24.2x\|24.3x' "$out/course-course.svg" || fail "lesson 04's bar is not warptiled's: $(grep -o '[0-9.]*x' "$out/course-course.svg" | sort -u | tr '\n' ' ')"
    ! grep -q '20.5x' "$out/course-course.svg" || fail "the chart shows lesson 04's optimized row"
}

@test "the course chart of emulated results says so in its title" {
    needs_gnuplot
    run sh plots/plot.sh "$out" "$fixtures/test-emulation.csv"
    assert_success
    grep -q 'emulated, NOT GPU times' "$out/test-emulation-course.svg"
}

@test "break-even.awk prints, per degree, the size from which the GPU end to end beats the CPU" {
    # the fixture's latest run only (an older one beat the CPU everywhere), without its FAILed row
    run awk -f plots/break-even.awk "$fixtures/test-intensity-sweep.csv"
    assert_success
    assert_output "$(cat <<'EXPECTED'
break-even, lesson07-intensity at degree 1 (measured on Test GPU A):
  gpu end-to-end does not beat the cpu within the sizes run (64k to 1M)
  gpu-pinned end-to-end does not beat the cpu within the sizes run (64k)
break-even, lesson07-intensity at degree 16 (measured on Test GPU A):
  gpu end-to-end beats the cpu from n = 16M (between 1M and 16M)
  gpu-pinned end-to-end beats the cpu from n = 1M (between 64k and 1M)
break-even, lesson07-intensity at degree 256 (measured on Test GPU A):
  gpu end-to-end beats the cpu from n = 64k, the smallest size run
  gpu-pinned end-to-end beats the cpu from n = 64k, the smallest size run
EXPECTED
)"
    # a file without the intensity part gets no break-even
    run awk -f plots/break-even.awk "$fixtures/test-gpu-a.csv"
    assert_success
    assert_output ""
}

@test "plot.sh prints the break-even of a file with lesson 07's intensity part, emulated ones labelled" {
    needs_gnuplot
    run sh plots/plot.sh "$out" "$fixtures/test-intensity-sweep.csv"
    assert_success
    assert_line "  break-even, lesson07-intensity at degree 16 (measured on Test GPU A):"
    assert_line "    gpu end-to-end beats the cpu from n = 16M (between 1M and 16M)"
    sed 's/,Test GPU A,cuda,13000,13000,/,CPU emulation (2 worker threads),emu,n\/a,n\/a,/' \
        "$fixtures/test-intensity-sweep.csv" > "$BATS_TEST_TMPDIR/emulated.csv"
    run awk -f plots/break-even.awk "$BATS_TEST_TMPDIR/emulated.csv"
    assert_line "break-even, lesson07-intensity at degree 16 (CPU emulation, not GPU times):"
}

@test "make plots draws lesson 09's model: efficiency against ranks, two fields, three links" {
    needs_gnuplot
    run make --no-print-directory -n plots
    assert_output --partial "plots/terminal.gp"
    assert_output --partial "plots/multi-gpu-model.gp"
    mkdir -p "$out"
    run gnuplot -e "format='svg'; outfile='$out/model.svg'" plots/terminal.gp plots/multi-gpu-model.gp
    assert_success
    for text in "lesson 09's model, not a measurement" "exchange in sequence with the step (naive)" \
        "exchange hidden behind the step (optimized)" "NVLink, 450 GB/s: 8192^2 field" \
        "PCIe 5, 55 GB/s: 2000^2 field" "InfiniBand NDR, 50 GB/s: 2000^2 field"; do
        grep -q -F ">$text" "$out/model.svg" || fail "the chart has no '$text'"
    done
    # and as PNG, as make plots draws it
    run gnuplot -e "format='png'; outfile='$out/model.png'" plots/terminal.gp plots/multi-gpu-model.gp
    assert_success
    is_png "$out/model.png"
}

@test "a lesson with more variants than the sweep's palette has colours is drawn, colours starting over" {
    needs_gnuplot
    # lesson01's naive kernel rows renamed eleven times: twelve variants with cpu
    { head -n 1 "$fixtures/test-gpu-a.csv"
      grep '^lesson01,cpu,' "$fixtures/test-gpu-a.csv"
      for copy in 1 2 3 4 5 6 7 8 9 10 11; do
          grep '^lesson01,naive,kernel,' "$fixtures/test-gpu-a.csv" | sed "s/,naive,/,kernel$copy,/"
      done; } > "$BATS_TEST_TMPDIR/many.csv"
    run sh plots/plot.sh "$out" "$BATS_TEST_TMPDIR/many.csv"
    assert_success
    grep -q '>kernel11 kernel<' "$out/many-lesson01-sweep.svg"
    # the first and the tenth kernel share a colour: the palette has nine, cpu has the first
    colour() { grep -A 4 ">$1 kernel<" "$out/many-lesson01-sweep.svg" | grep -o "stroke='[^']*'" | head -n 1; }
    [ -n "$(colour kernel1)" ] || fail "no colour found for kernel1"
    [ "$(colour kernel1)" = "$(colour kernel10)" ]
}

@test "make plots draws a reference GPU's folder of make gpu-report, its results file alone, under the reference- name" {
    needs_gnuplot
    tree="$BATS_TEST_TMPDIR/tree"
    mkdir -p "$tree/plots/reference/test-gpu-a"
    cp "$fixtures/test-gpu-a.csv" "$tree/plots/reference/test-gpu-a/"
    # the report's other CSV files are not results files of a machine
    cp "$fixtures/test-gpu-b.csv" "$tree/plots/reference/test-gpu-a/targets.csv"
    run make --no-print-directory -C "$tree" -f "$repo/Makefile" -n plots
    assert_success
    assert_line "sh plots/plot.sh plots/out plots/reference/test-gpu-a/test-gpu-a.csv"
    run sh plots/plot.sh "$out" "$tree/plots/reference/test-gpu-a/test-gpu-a.csv"
    assert_success
    [ -s "$out/reference-test-gpu-a-lesson01-sweep.png" ] || fail "no reference-test-gpu-a chart: $output"
}
