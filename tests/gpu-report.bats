#!/usr/bin/env bats
# tests/gpu-report.bats - the specification of make gpu-report (common/gpu-report.sh) and of
# its judge of the lessons' targets (common/gpu-judge.awk).
#
# The judge runs on tests/fixtures/gpu-report-runs.csv (made-up rows of "Test GPU A", not
# measurements). The report runs under the emulator, for one or two lessons, with a one-test
# Bats file as its step 2, into a temporary folder: its layout and its summary are checked.

load test_helper

setup() {
    cd "$REPO" || return 1
    runs="$BATS_TEST_DIRNAME/fixtures/gpu-report-runs.csv"
}

# judge LESSON MEASURED BOUND [JUDGED]: the judge's table row for that target
judge() {
    run awk -f common/gpu-judge.awk -v lesson="$1" -v what="a target" -v measured="$2" \
        -v bound="$3" -v judged="${4:-yes}" "$runs"
}

@test "the judge says met for a ratio of two rows' GB/s at or above its bound, and shows it as a percentage" {
    judge lesson01 "optimized kernel gbps / device-copy library gbps" ">= 90%"
    assert_success
    assert_output "| lesson01 | a target | 93.8% | >= 90% | met |"
}

@test "the judge says missed, exit status 1, for a ratio below its bound, and for a time above its bound" {
    judge lesson01 "naive kernel gbps / device-copy library gbps" ">= 90%"
    assert_failure 1
    assert_output "| lesson01 | a target | 75.0% | >= 90% | missed |"
    judge lesson01 "optimized kernel median_ms" "<= 0.3 ms"
    assert_failure 1
    assert_output "| lesson01 | a target | 0.32 ms | <= 0.3 ms | missed |"
    judge lesson01 "naive kernel median_ms / optimized kernel median_ms" ">= 1.2x"
    assert_success
    assert_output "| lesson01 | a target | 1.25x | >= 1.2x | met |"
}

@test "the judge counts a missing row, and a row whose check FAILED, as missed, naming the row" {
    judge lesson01 "tiled kernel gbps / device-copy library gbps" ">= 90%"
    assert_failure 1
    assert_output "| lesson01 | a target | - | >= 90% | missed: not measured (no row tiled kernel gbps) |"
    # the broken row is the fastest: its figure would pass, its check did not
    judge lesson01 "broken kernel gbps / device-copy library gbps" ">= 90%"
    assert_failure 1
    assert_output --partial "missed: not measured (broken kernel gbps: its check FAILED)"
    judge lesson01 "optimized kernel gbps / figure nowhere" ">= 90%"
    assert_failure 1
    assert_output --partial "missed: not measured (no figure nowhere)"
}

@test "the judge reads figures, the best of several rows, the row of the largest size, other lessons' rows and a factor" {
    judge lesson07 "h2d-pinned transfers gbps at largest / best h2d* transfers gbps" ">= 90%"
    assert_output "| lesson07 | a target | 100.0% | >= 90% | met |"
    judge lesson07 "h2d transfers gbps at largest / best h2d* transfers gbps" ">= 90%"
    assert_output "| lesson07 | a target | 25.0% | >= 90% | missed |"
    # 4.5 ms of ideal against optimized's 0.32 ms
    judge lesson07 "figure ideal_ms / lesson01/optimized kernel median_ms" ">= 100x"
    assert_output "| lesson07 | a target | 14.06x | >= 100x | missed |"
    # 0.75 x 2400 / 51.2
    judge lesson07 "0.75 x lesson01/optimized kernel gbps / lesson07-bandwidth/h2d-pinned transfers gbps at 64000000" ">= 35x"
    assert_output "| lesson07 | a target | 35.16x | >= 35x | met |"
}

@test "the judge refuses a malformed target with its reason: two rows where one is meant, a bad bound, a column that is not there" {
    judge lesson07 "h2d-pinned transfers gbps" ">= 50 GB/s"
    assert_failure 1
    assert_output --partial "missed: target malformed: 2 rows match h2d-pinned transfers gbps (say best, or at SIZE)"
    judge lesson01 "optimized kernel gbps" "about 90%"
    assert_failure 1
    assert_output --partial "missed: target malformed: bound about 90% is not >= or <= a number and a unit"
    judge lesson01 "optimized kernel speed" ">= 90%" no
    assert_failure 1
    assert_output --partial "missed: target malformed: no column speed in the rows"
}

@test "under the CPU emulator the judge shows the figure and does not judge it, unless told to" {
    judge lesson01 "naive kernel gbps / device-copy library gbps" ">= 90%" no
    assert_success
    assert_output "| lesson01 | a target | 75.0% (CPU emulation) | >= 90% | not judged: CPU emulation |"
    judge lesson01 "tiled kernel gbps" ">= 90%" no
    assert_success
    assert_output "| lesson01 | a target | - (no row tiled kernel gbps) | >= 90% | not judged: CPU emulation |"
    judge lesson01 "naive kernel gbps / device-copy library gbps" ">= 90%" emulated
    assert_failure 1
    assert_output "| lesson01 | a target | 75.0% (CPU emulation) | >= 90% | missed (judged on CPU emulation figures) |"
}

@test "every lesson.conf's targets are well formed: five fields, runs of the lesson, a bound" {
    for conf in lessons/*/lesson.conf; do
        lesson=lesson$(basename "$(dirname "$conf")" | cut -c 1-2)
        while IFS= read -r target; do
            fields=$(printf '%s' "$target" | awk -F '|' '{ print NF }')
            [ "$fields" -eq 5 ] || fail "$conf: $fields fields, not 5: $target"
            for run_field in 2 3; do
                printf '%s' "$target" | cut -d '|' -f "$run_field" | tr ';' '\n' |
                    grep -Eq "^ *(block-sweep )?$lesson " || fail "$conf: a run is not of $lesson: $target"
            done
            printf '%s' "$target" | cut -d '|' -f 5 | grep -Eq '^ *(>=|<=) *[0-9.]+ *[^ ]+ *$' ||
                fail "$conf: bound: $target"
        done < <(sed -n 's/^TARGET[[:space:]]*=[[:space:]]*//p' "$conf")
    done
    # the eight lessons of the table of targets, lesson 09 has none yet
    [ "$(cat lessons/0[1-8]-*/lesson.conf | grep -c '^TARGET')" -ge 12 ]
}

# One-test Bats files for the report's step 6 (the suite itself runs in make test): quick.bats,
# and with an argument a second one, quick2.bats; their names, for GPU_REPORT_BATS.
quick_suite() {
    # (printf: a line of this file that starts with the word would be a test of its own)
    printf '@%s\n' 'test "a quick test" { true; }' > "$BATS_TEST_TMPDIR/quick.bats"
    printf '@%s\n' 'test "a second quick test" { true; }' > "$BATS_TEST_TMPDIR/quick2.bats"
    echo "$BATS_TEST_TMPDIR/quick.bats${1:+ $BATS_TEST_TMPDIR/quick2.bats}"
}

@test "make gpu-report under the emulator writes the folder: results, charts, TAP, sanitizer log, ncu line, commit, machine, summary" {
    folder="$BATS_TEST_TMPDIR/report"
    # two Bats files side by side, as on a GPU
    run make --no-print-directory gpu-report BACKEND=emu GPU_REPORT_DIR="$folder" \
        GPU_REPORT_LESSONS=lesson01 GPU_REPORT_BATS="$(quick_suite two)" GPU_REPORT_BATS_JOBS=2
    assert_success
    assert_line --regexp '^step 1 build: [0-9]+s ok$'
    assert_line --regexp '^step 2 targets: [0-9]+s ok$'
    assert_line --regexp '^step 3 bench: [0-9]+s ok$'
    assert_line --regexp '^step 4 sanitize: [0-9]+s ok$'
    assert_line --regexp '^step 5 ncu: [0-9]+s (skipped \(ncu not found: skipped\)|ok)$'
    assert_line --regexp '^step 6 tests: [0-9]+s ok$'
    assert_line --regexp '^step 7 charts: [0-9]+s ok$'
    for file in cpu-emulation.csv targets.csv tests.tap sanitizer.log ncu.csv commit.txt machine.txt \
            summary.md charts/cpu-emulation-lesson01-sweep.png charts/cpu-emulation-lesson01-sweep.svg; do
        [ -s "$folder/$file" ] || fail "$folder/$file is missing or empty"
    done
    command -v ncu >/dev/null 2>&1 || grep -qx 'ncu not found: skipped' "$folder/ncu.csv"
    # each file's TAP after its name, in the order given
    [ "$(grep -v '^1\.\.1$' "$folder/tests.tap")" = "# $BATS_TEST_TMPDIR/quick.bats
ok 1 a quick test
# $BATS_TEST_TMPDIR/quick2.bats
ok 1 a second quick test" ] || fail "tests.tap: $(cat "$folder/tests.tap")"
    grep -q 'lesson01 (forward,reverse,random:1): clean' "$folder/sanitizer.log"
    grep -q "^commit: $(git rev-parse HEAD)" "$folder/commit.txt"
    grep -q '^device: CPU emulation (backend emu: CPU emulation, not GPU results)' "$folder/machine.txt"
    # the results file is make bench's: lesson01 over its emulator sweep, every row emulated
    [ "$(awk -F , 'NR > 1 { print $1 "," $22 }' "$folder/cpu-emulation.csv" | sort -u)" = "lesson01,emu" ]
    [ "$(awk -F , 'NR > 1 { print $4 }' "$folder/cpu-emulation.csv" | sort -u | wc -l)" -ge 2 ]
    summary="$folder/summary.md"
    grep -qx '# make gpu-report: CPU emulation (no GPU): not GPU results' "$summary"
    grep -q "step 6 ran a quick subset of the Bats suite ($BATS_TEST_TMPDIR/quick.bats $BATS_TEST_TMPDIR/quick2.bats)" "$summary"
    grep -Eq '^    step 3 bench: [0-9]+s ok$' "$summary"
    # one row per target of the lesson, with its emulated figure, not judged
    [ "$(grep -c '^| lesson[0-9]' "$summary")" -eq 1 ]
    grep -Eq '^\| lesson01 \| optimized kernel at 90% of the device-copy row \| [0-9.]+% \(CPU emulation\) \| >= 90% \| not judged: CPU emulation of lesson01 -n 1M --only optimized,device-copy \|$' "$summary"
    sed -n '/^## Problems/,$p' "$summary" | grep -qx none
    # a run that ended is not marked unfinished
    ! grep -q 'Unfinished' "$summary"
}

@test "a target that cannot be met shows missed, with the others met, a failing test is named, make gpu-report fails; ncu's metrics are collected; no gnuplot, no charts" {
    # lesson01's lesson.conf with its target's bound raised past what any kernel can do
    sed 's/^\(TARGET = .*| \)>= 90%$/\1>= 1000%/' lessons/01-vector-add/lesson.conf > "$BATS_TEST_TMPDIR/mutant.conf"
    grep -q '>= 1000%$' "$BATS_TEST_TMPDIR/mutant.conf"
    echo 'TARGET = checks pass | lesson01 -n 64M | lesson01 -n 4k | optimized kernel median_ms | >= 0 ms' \
        >> "$BATS_TEST_TMPDIR/mutant.conf"
    folder="$BATS_TEST_TMPDIR/report"
    # and a test that fails
    printf '@%s\n' 'test "a failing test" { false; }' > "$BATS_TEST_TMPDIR/failing.bats"
    # tests/fixtures/ncu stands in for Nsight Compute, which does not know one of the metrics
    PATH="$BATS_TEST_DIRNAME/fixtures:$PATH" run make --no-print-directory gpu-report BACKEND=emu \
        GNUPLOT=/nonexistent/gnuplot GPU_REPORT_DIR="$folder" GPU_REPORT_LESSONS=lesson01 GPU_REPORT_BATS="$BATS_TEST_TMPDIR/failing.bats" \
        GPU_REPORT_TARGETS="$BATS_TEST_TMPDIR/mutant.conf" GPU_REPORT_JUDGE_EMULATED=1
    assert_failure
    # a missed target is a finding of the step, not its failure: its runs ran
    assert_line --regexp '^step 2 targets: [0-9]+s ok, 1 of 2 targets missed$'
    assert_line --regexp '^step 6 tests: [0-9]+s FAILED$'
    grep -qx -- '- tests.tap, line 2: not ok 1 a failing test' "$folder/summary.md"
    assert_line --regexp '^\| lesson01 \| optimized kernel at 90% of the device-copy row \| [0-9.]+% \(CPU emulation\) \| >= 1000% \| missed \(judged on CPU emulation figures\) \|$'
    assert_line --regexp '^\| lesson01 \| checks pass \| [0-9.]+ ms \(CPU emulation\) \| >= 0 ms \| met \(judged on CPU emulation figures\) \|$'
    assert_line "gpu-report.sh: failed steps: tests; targets missed: yes"
    grep -q '| >= 1000% | missed' "$folder/summary.md"
    ! grep -q '^- step 2 targets' "$folder/summary.md"
    # the steps after a failed one ran; the charts wait for a machine with gnuplot
    assert_line --regexp '^step 3 bench: [0-9]+s ok$'
    assert_line --regexp '^step 5 ncu: [0-9]+s ok$'
    assert_line --regexp "^step 7 charts: [0-9]+s skipped \(gnuplot not found: make plots draws the charts from this folder's CSV on a machine with it\)$"
    [ -s "$folder/cpu-emulation.csv" ]
    [ ! -e "$folder/charts" ]
    # ncu's CSV: its header once, then a row for each metric it knows
    [ "$(head -n 1 "$folder/ncu.csv")" = '"ID","Process ID","Process Name","Host Name","Kernel Name","Metric Name","Metric Unit","Metric Value"' ]
    [ "$(grep -c '"lesson01","test-host","kernel_naive"' "$folder/ncu.csv")" -eq 5 ]
    grep -q '"dram__throughput.avg.pct_of_peak_sustained_elapsed","","50"' "$folder/ncu.csv"
    ! grep -q 'smsp__thread_inst_executed_per_inst_executed' "$folder/ncu.csv"
    grep -q '^unknown to this ncu, left out: .*smsp__thread_inst_executed_per_inst_executed.ratio' "$folder/logs/ncu.log"
}

@test "make gpu-report GPU_REPORT_QUICK=1 runs no sweep, ncu or charts and says so; without bats or stb_image it says what it left out, and fails" {
    folder="$BATS_TEST_TMPDIR/report"
    # (lesson02 and lesson08 are named, so they count as not built; lesson09, not named, does
    # not, wherever MPI is missing)
    run make --no-print-directory gpu-report BACKEND=emu GPU_REPORT_QUICK=1 GPU_REPORT_DIR="$folder" \
        GPU_REPORT_LESSONS="lesson01 lesson02 lesson08" GPU_REPORT_BATS="$(quick_suite)" \
        BATS=/nonexistent/bats STB_INCLUDE_DIRS=/nonexistent MPICXX=/nonexistent/mpicxx
    assert_failure
    assert_line --regexp '^step 2 targets: [0-9]+s ok$'
    assert_line 'step 3 bench: skipped (GPU_REPORT_QUICK)'
    assert_line --regexp '^step 6 tests: [0-9]+s skipped \(bats with bats-assert and bats-support not found \(/nonexistent/bats; BATS_LIB_PATH=.*\): sudo apt-get install bats bats-assert bats-support\)$'
    assert_line --regexp '^step 4 sanitize: [0-9]+s ok$'
    assert_line 'step 5 ncu: skipped (GPU_REPORT_QUICK)'
    assert_line 'step 7 charts: skipped (GPU_REPORT_QUICK)'
    assert_line "gpu-report.sh: failed steps: none; targets missed: no; not built here: lesson02 lesson08"
    grep -qx 'GPU_REPORT_QUICK=1: build, targets, sanitizers and tests only (no sweep, ncu or charts).' "$folder/summary.md"
    grep -qx -- '- not built here: lesson02: it needs stb_image, which is not installed (no stb/stb_image.h): sudo apt-get install libstb-dev' "$folder/summary.md"
    grep -qx -- '- not built here: lesson08: it needs stb_image, which is not installed (no stb/stb_image.h): sudo apt-get install libstb-dev' "$folder/summary.md"
    grep -qx 'not built here: lesson02: it needs stb_image, which is not installed (no stb/stb_image.h): sudo apt-get install libstb-dev' "$folder/logs/build.log"
    ! grep -q 'lesson09' "$folder/summary.md"
    # the lessons that were built ran: lesson01 alone
    grep -q '^gpu-report.sh: CPU emulation, backend emu, lessons: lesson01$' <<<"$output"
    [ ! -e "$folder/cpu-emulation.csv" ]
    [ -s "$folder/targets.csv" ]
}

@test "a report stopped before its end, as by a time limit, leaves summary.md with the steps that ended" {
    folder="$BATS_TEST_TMPDIR/report"
    # make, until step 4's build of the sanitizer's programs: there the report is killed
    cat > "$BATS_TEST_TMPDIR/make" <<'STAND_IN'
#!/bin/sh
case " $* " in *" SANITIZE=1 "*) kill -KILL "$PPID"; exit 1 ;; esac
exec make "$@"
STAND_IN
    chmod +x "$BATS_TEST_TMPDIR/make"
    run env MAKE="$BATS_TEST_TMPDIR/make" LESSONS=lesson01 GPU_REPORT_DIR="$folder" \
        GPU_REPORT_BATS="$(quick_suite)" bash common/gpu-report.sh
    assert_equal "$status" 137
    summary="$folder/summary.md"
    grep -qx '\*\*Unfinished:\*\* written after step 3 of 8. A report that stops here was cut short (a time' "$summary"
    grep -Eq '^    step 1 build: [0-9]+s ok$' "$summary"
    grep -Eq '^    step 2 targets: [0-9]+s ok$' "$summary"
    grep -Eq '^    step 3 bench: [0-9]+s ok$' "$summary"
    ! grep -q 'step 4' "$summary"
    grep -q "^commit: $(git rev-parse HEAD)" "$folder/commit.txt"
    [ -s "$folder/targets.csv" ]
}

@test "a target whose run fails fails the targets step, and the step's log names the run" {
    folder="$BATS_TEST_TMPDIR/report"
    # make, until step 4's build of the sanitizer's programs: there the report is killed
    printf '%s\n' '#!/bin/sh' 'case " $* " in *" SANITIZE=1 "*) kill -KILL "$PPID"; exit 1 ;; esac' \
        'exec make "$@"' > "$BATS_TEST_TMPDIR/make"
    chmod +x "$BATS_TEST_TMPDIR/make"
    echo 'TARGET = a run refused | lesson01 -n 0 | lesson01 -n 0 | optimized kernel median_ms | <= 1 ms' \
        > "$BATS_TEST_TMPDIR/targets.conf"
    run env MAKE="$BATS_TEST_TMPDIR/make" LESSONS=lesson01 GPU_REPORT_DIR="$folder" GPU_REPORT_QUICK=1 \
        GPU_REPORT_TARGETS="$BATS_TEST_TMPDIR/targets.conf" bash common/gpu-report.sh
    assert_equal "$status" 137
    assert_line --regexp '^step 2 targets: [0-9]+s FAILED$'
    grep -qx 'lesson01 -n 0: exit status 2' "$folder/logs/targets.log"
    grep -Eq '^- step 2 targets: [0-9]+s FAILED' "$folder/summary.md"
}

@test "the occupancy API's target times the sweep's fastest block size and the API's again, head to head, and compares the medians of those runs" {
    folder="$BATS_TEST_TMPDIR/report"
    # make, until step 4's build of the sanitizer's programs: there the report is killed
    printf '%s\n' '#!/bin/sh' 'case " $* " in *" SANITIZE=1 "*) kill -KILL "$PPID"; exit 1 ;; esac' \
        'exec make "$@"' > "$BATS_TEST_TMPDIR/make"
    chmod +x "$BATS_TEST_TMPDIR/make"
    grep "^TARGET = the occupancy API's block" lessons/06-occupancy/lesson.conf > "$BATS_TEST_TMPDIR/targets.conf"
    run env MAKE="$BATS_TEST_TMPDIR/make" LESSONS=lesson06 GPU_REPORT_DIR="$folder" GPU_REPORT_QUICK=1 \
        GPU_REPORT_TARGETS="$BATS_TEST_TMPDIR/targets.conf" REMATCH_ROUNDS=3 bash common/gpu-report.sh
    assert_equal "$status" 137
    assert_line --regexp '^step 2 targets: [0-9]+s ok$'
    local log="$folder/logs/target-runs.log" rematch="$folder/charts/lesson06-block-rematch.csv"
    local fastest api
    # the sweep's fastest of its block sizes, and the API's choice
    fastest=$(awk -F , 'NR > 1 && (best == "" || $3 + 0 < best + 0) { best = $3; at = $1 } END { print at }' \
        "$folder/charts/lesson06-block-sweep.csv")
    api=$(sed -n "s/^block-sweep.sh: wrote .*(occupancy API's choice: \([0-9]*\))$/\1/p" "$log")
    grep -qx "\$ the rematch: lesson06 -n 1000x100 --only optimized at $fastest threads (the sweep's fastest) and $api (the API's), 3 rounds" "$log"
    assert_equal "$(head -n 1 "$rematch")" "round,threads_per_block,median_ms"
    # 3 rounds, each size in turn (one size when the API's is the fastest)
    local sizes=2
    [ "$fastest" != "$api" ] || sizes=1
    assert_equal "$(tail -n +2 "$rematch" | cut -d , -f 1,2 | tr '\n' ' ')" \
        "$(for round in 1 2 3; do printf "$round,%s " $fastest $([ $sizes = 1 ] || echo "$api"); done)"
    # the target's ratio: the median of the API's 3 runs over the median of the fastest's
    median() { awk -F , -v threads="$1" 'NR > 1 && $2 == threads { print $3 }' "$rematch" | sort -g | sed -n 2p; }
    local ratio
    ratio=$(awk -v a="$(median "$api")" -v b="$(median "$fastest")" 'BEGIN { printf "%.2fx", a / b }')
    grep -qF "| lesson06 | the occupancy API's block within 3% of the sweep's best | $ratio (CPU emulation) |" \
        "$folder/logs/targets.log" || fail "targets.log does not show $ratio: $(grep lesson06 "$folder/logs/targets.log")"
}

@test "a report run again over its committed folder names the commit alone; a change to the course still shows" {
    local clone="$BATS_TEST_TMPDIR/clone"
    git clone -q "$REPO" "$clone"
    # this checkout's report script, and an earlier report committed where the run writes
    cp common/gpu-report.sh common/lesson-setting.sh "$clone/common/"
    mkdir -p "$clone/plots/reference/stand-in"
    echo "# an earlier report" > "$clone/plots/reference/stand-in/summary.md"
    git -C "$clone" add -A
    git -C "$clone" -c user.name=course -c user.email=course@example.org commit -qm "an earlier report"
    # a make that stops the report at step 1: commit.txt is written before it
    printf '%s\n' '#!/bin/sh' 'kill -KILL "$PPID"' > "$BATS_TEST_TMPDIR/make"
    chmod +x "$BATS_TEST_TMPDIR/make"
    cd "$clone"
    run env MAKE="$BATS_TEST_TMPDIR/make" LESSONS=lesson01 GPU_REPORT_DIR=plots/reference/stand-in \
        bash common/gpu-report.sh
    assert_equal "$status" 137
    assert_equal "$(head -n 1 plots/reference/stand-in/commit.txt)" "commit: $(git rev-parse HEAD)"
    grep -qx '\*\*Unfinished:\*\* written before step 1 of 8. A report that stops here was cut short (a time' \
        plots/reference/stand-in/summary.md
    # (the folder the run left is a report's, which the next run replaces)
    echo "// changed" >> lessons/01-vector-add/vector_add.cu
    run env MAKE="$BATS_TEST_TMPDIR/make" LESSONS=lesson01 GPU_REPORT_DIR=plots/reference/stand-in \
        bash common/gpu-report.sh
    assert_equal "$status" 137
    assert_equal "$(head -n 1 plots/reference/stand-in/commit.txt)" \
        "commit: $(git rev-parse HEAD) (with uncommitted changes)"
}

@test "gpu-report.sh refuses a folder that holds something other than a report" {
    mkdir -p "$BATS_TEST_TMPDIR/precious"
    echo keep > "$BATS_TEST_TMPDIR/precious/notes.txt"
    run env LESSONS=lesson01 GPU_REPORT_DIR="$BATS_TEST_TMPDIR/precious" bash common/gpu-report.sh
    assert_failure 2
    assert_output --partial "holds files but no summary.md"
    [ -s "$BATS_TEST_TMPDIR/precious/notes.txt" ]
}
