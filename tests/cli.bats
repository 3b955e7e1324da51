#!/usr/bin/env bats
# The command line every lesson shares (common/workbook.cu): --help, and a
# one-line message with exit status 2 for each bad input. Runs for every
# lesson in lessons/.

setup() {
    load test_helper
    use_any_build
}

# Runs every lesson with the given arguments and asserts exit status 2 and a
# single line on stderr that contains the expected text.
assert_usage_error() {
    local expected="$1"
    shift
    for lesson in $(lesson_programs); do
        run --separate-stderr "$BUILD/$lesson" "$@"
        assert_equal "$status" 2
        assert_equal "$(wc -l <<<"$stderr")" 1
        assert_output ""
        [[ "$stderr" == *"$expected"* ]] || fail "$lesson $*: stderr was: $stderr"
    done
}

@test "every lesson's --help lists the common options and exits 0" {
    for lesson in $(lesson_programs); do
        run "$BUILD/$lesson" --help
        assert_success
        assert_line --partial "usage: ./$lesson [options]"
        for flag in "--size N" "--reps R" "--warmup W" "--only LIST" "--csv" "--seed S"; do
            assert_output --partial "$flag"
        done
        assert_output --partial "3 no usable CUDA device"
    done
}

@test "an unknown flag is refused with exit status 2" {
    assert_usage_error "unknown option '--frobnicate'" --frobnicate
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

@test "zero repetitions are refused" {
    assert_usage_error "--reps value '0' is out of range" --reps 0
}

@test "a flag without its value is refused" {
    assert_usage_error "--reps needs a value" --reps
}

@test "a flag where a value belongs is refused as a missing value" {
    assert_usage_error "--reps needs a value" --reps --csv
}

@test "an unknown variant in --only is refused" {
    assert_usage_error "unknown variant 'gpu' for --only" --only cpu,gpu
}

@test "a size whose arrays do not fit in host memory is refused before allocating" {
    assert_usage_error "of host memory, but only" -n 20G
}

@test "--size=N and -n N with a suffix are the same size" {
    for lesson in $(lesson_programs); do
        run "$BUILD/$lesson" --size=2k --only cpu --reps 1 --warmup 0 --csv
        assert_line --index 1 --regexp "^$lesson,cpu,host,2000,"
        run "$BUILD/$lesson" -n 2Ki --only cpu --reps 1 --warmup 0 --csv
        assert_line --index 1 --regexp "^$lesson,cpu,host,2048,"
    done
}
