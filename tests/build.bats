#!/usr/bin/env bats
# The Makefile: what a student and an instructor type.

setup() {
    load test_helper
    cd "$REPO"
}

# nvcc_builds_every_lesson_with CC BUILD: nvcc, with CC as its host compiler, builds every lesson
# into BUILD without a warning; on a GPU they pass at their contract sizes.
nvcc_builds_every_lesson_with() {
    local build=$2 targets=() lesson
    for lesson in $(lesson_programs); do targets+=("$build/$lesson"); done
    run make --no-print-directory -j2 BACKEND=cuda CC="$1" BUILD="$build" "${targets[@]}"
    assert_success
    assert_output --partial " -ccbin $1 "
    ! grep -q 'warning' <<<"$output" || fail "warnings: $(grep 'warning' <<<"$output" | head -n 5)"
    use_gpu_build
    [ "$BUILD" = "$CUDA_BUILD" ] || return 0
    lessons_pass_in "$build" $(lesson_programs)
}

# lessons_pass_in BUILD LESSON...: each of these lesson programs, built into BUILD, passes at its
# contract size; run by $RUNNER where it is set (qemu-aarch64: a program for another CPU).
lessons_pass_in() {
    local build=$1 lesson
    shift
    for lesson in "$@"; do
        run ${RUNNER:+"$RUNNER"} "$build/$lesson" -n "$(contract_size "$lesson")" --reps 1 --warmup 0 --quiet-warnings
        assert_success
        assert_line --regexp "^all [0-9]+ checks passed against the CPU reference: "
    done
}

# emu_builds_lessons_with CXX BUILD LESSON...: with CXX as emucc's host compiler, the lessons
# build into BUILD, a folder of its own (the g++ build in build/emu stays as it is), without a
# warning.
emu_builds_lessons_with() {
    local cxx=$1 build=$2 targets=() lesson
    shift 2
    for lesson in "$@"; do targets+=("$build/$lesson"); done
    CXX="$cxx" run make --no-print-directory -j2 BACKEND=emu BUILD="$build" "${targets[@]}"
    assert_success
    ! grep -q 'warning:' <<<"$output" || fail "$cxx warns: $(grep 'warning:' <<<"$output" | head -n 5)"
}

@test "make help lists the targets and the variables a user may set" {
    run make --no-print-directory help
    assert_success
    for word in lessonNN exerciseNN solutionNN test doctor clean BACKEND= CUDA_ARCH= NVCC= CC= CXX= CFLAGS= NVCCFLAGS= \
        SANITIZE= GRADE_FROM= GRADE_STUDENT= GRADE_CSV= GRADE_TIMEOUT=; do
        assert_output --partial "$word"
    done
    assert_output --partial "lesson01"
}

@test "make lesson01 builds ./lesson01 for the backend asked for" {
    [ -d "$EMU_BUILD" ] || skip "no emulator build"
    run make --no-print-directory BACKEND=emu lesson01
    assert_success
    assert_line "built ./lesson01 (backend emu)"
    cmp "$REPO/lesson01" "$EMU_BUILD/lesson01"
}

@test "a checkout whose path has a space builds and runs a lesson and an exercise" {
    # as a student's "~/My Courses/cuda-workbook": make and the scripts quote every path
    local copy="$BATS_TEST_TMPDIR/My Courses/cuda-workbook"
    mkdir -p "$copy"
    git -C "$REPO" ls-files -z | (cd "$REPO" && xargs -0 tar -cf -) | tar -C "$copy" -xf -
    cd "$copy"
    run make --no-print-directory BACKEND=emu lesson01
    assert_success
    assert_line "built ./lesson01 (backend emu)"
    run ./lesson01 -n 1k --reps 1 --warmup 0 --quiet-warnings
    assert_success
    assert_line "all 4 checks passed against the CPU reference: naive, optimized"
    run make --no-print-directory BACKEND=emu exercise01
    assert_failure
    assert_line --partial "exercise01: not implemented yet"
}

@test "a build with other flags or another host compiler compiles again; the same settings compile nothing" {
    local build="$BATS_TEST_TMPDIR/settings"
    run make --no-print-directory BACKEND=emu BUILD="$build" "$build/lesson01"
    assert_success
    assert_output --partial "-c lessons/01-vector-add/vector_add.cu"
    run make --no-print-directory BACKEND=emu BUILD="$build" "$build/lesson01"
    assert_success
    refute_output --partial " -c "
    run make --no-print-directory BACKEND=emu BUILD="$build" CFLAGS="-O1 -Wall" "$build/lesson01"
    assert_success
    assert_output --regexp "-Xcompiler -O1,-Wall,-fopenmp -Icommon +-MMD -MP -c lessons/01-vector-add/vector_add.cu"
    assert_output --partial "-c common/workbook.cu"
    clang_has_openmp || return 0
    run make --no-print-directory BACKEND=emu BUILD="$build" CXX=clang++ "$build/lesson01"
    assert_success
    assert_output --partial "-c lessons/01-vector-add/vector_add.cu"
    readelf -p .comment "$build/lesson01" | grep -q 'clang version' || fail "lesson01 was not rebuilt by clang++"
}

@test "an unknown BACKEND is refused with the accepted values" {
    run make --no-print-directory BACKEND=opencl lesson01
    assert_failure
    assert_output --partial "BACKEND=opencl: expected cuda, emu or auto"
}

@test "BACKEND=cuda names what to do when nvcc is missing" {
    run make --no-print-directory BACKEND=cuda NVCC=/nonexistent/nvcc lesson01
    assert_failure
    assert_output --partial "nvcc not found (NVCC=/nonexistent/nvcc)"
    assert_output --partial "BACKEND=emu"
}

@test "a host compiler that is not installed is named, for nvcc (CC) and for the emulator (CXX)" {
    run make --no-print-directory BACKEND=emu CXX=g++-0 BUILD="$BATS_TEST_TMPDIR/emu" lesson01
    assert_failure
    assert_output --partial "emucc: the host C++ compiler CXX=g++-0 is not found"
    # a CC in the environment (many machines export one) is nvcc's host compiler,
    # not the emulator's: the CXX named still counts
    CC=gcc run make --no-print-directory BACKEND=emu CXX=g++-0 BUILD="$BATS_TEST_TMPDIR/emu-cc" lesson01
    assert_failure
    assert_output --partial "emucc: the host C++ compiler CXX=g++-0 is not found"
    refute_output --partial "-ccbin"
    command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ] || return 0
    run make --no-print-directory BACKEND=cuda CC=gcc-0 BUILD="$BATS_TEST_TMPDIR/cuda" lesson01
    assert_failure
    assert_output --partial "the host compiler CC=gcc-0, which nvcc compiles the CPU code with, is not found"
    [ ! -d "$BATS_TEST_TMPDIR/cuda/lessons" ]
}

@test "make doctor reports nvcc, the GPUs and the architecture built for" {
    run make --no-print-directory doctor
    assert_success
    assert_line --regexp "^nvcc +"
    assert_line --regexp "^build +BACKEND=(cuda|emu), CUDA_ARCH=[0-9]+ \(sm_[0-9]+\)$"
    assert_line --partial "ready: make lesson01 && ./lesson01"
}

@test "a header change rebuilds the objects that include it" {
    [ -d "$EMU_BUILD" ] || skip "no emulator build"
    run make --no-print-directory -n BACKEND=emu lesson01
    refute_output --partial "common/workbook.cu"
    run make --no-print-directory -n BACKEND=emu -W common/workbook.h lesson01
    assert_output --partial "-c common/workbook.cu"
    assert_output --partial "-c lessons/01-vector-add/vector_add.cu"
}

@test "every .cu file in the repository compiles with nvcc for a real GPU architecture" {
    command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ] || skip "nvcc is not installed"
    local arch_dir cuda_dir
    arch_dir=$(ls -d build/nvcc-check-sm* 2>/dev/null | head -n 1)
    [ -n "$arch_dir" ] || fail "make test did not run the nvcc check (build/nvcc-check-sm*)"
    # make test's nvcc build of the programs (build/cuda-smNN) compiled the lessons, exercises,
    # solutions and common/; its nvcc check, for the same architecture, every other .cu
    cuda_dir=build/cuda-${arch_dir#build/nvcc-check-}
    local count=0
    while read -r source; do
        [ -s "$arch_dir/${source%.cu}.o" ] || [ -s "$cuda_dir/${source%.cu}.o" ] ||
            fail "$source was not compiled by nvcc"
        count=$((count + 1))
    done < <(find lessons solutions common tests -name '*.cu')
    [ "$count" -ge 4 ]
}

@test "every lesson builds with clang++ as the emulator's host compiler and passes at its contract size" {
    needs_clang
    local build="$BATS_TEST_TMPDIR/clang"
    emu_builds_lessons_with clang++ "$build" $(lesson_programs)
    readelf -p .comment "$build/lesson01" | grep -q 'clang version' || fail "lesson01 was not compiled by clang++"
    lessons_pass_in "$build" $(lesson_programs)
}

@test "the emulator builds without a warning with the newest clang++ installed, and its checks pass" {
    # a newer compiler warns of more, also inside the C++ library its runtime uses (clang 19 of
    # GCC 12's std::stable_sort). OpenMP, which the lessons' CPU versions need, comes with one
    # LLVM version at a time on Debian: the emulator's own test programs need none.
    local newest program
    newest=$(compgen -c clang++- | grep -E '^clang\+\+-[0-9]+$' | sort -t- -k2 -n | tail -n 1)
    [ -n "$newest" ] || skip "no versioned clang++ installed: sudo apt-get install clang-19"
    export CUDA_EMU_CACHE="$BATS_TEST_TMPDIR/runtime" CXX=$newest
    for program in runtime_api cooperative_groups graphs textures half_precision intrinsics \
        occupancy atomics standard_headers toolkit_headers memory_pools; do
        run common/emu/emucc -Xcompiler -Wall,-Wextra -o "$BATS_TEST_TMPDIR/$program" "tests/emu/$program.cu"
        assert_success
        refute_output --partial "warning:"
        run "$BATS_TEST_TMPDIR/$program"
        assert_success
        assert_output --partial "PASS $program"
    done
    # and the checks built into a program, with --sanitize and --profile
    run common/emu/emucc --sanitize -o "$BATS_TEST_TMPDIR/race" tests/emu/bug_tile_race.cu
    assert_success
    refute_output --partial "warning:"
    run "$BATS_TEST_TMPDIR/race"
    assert_failure 1
    assert_output --partial "data race on shared memory"
    run common/emu/emucc --profile -o "$BATS_TEST_TMPDIR/branches" tests/emu/profile/branches.cu
    assert_success
    refute_output --partial "warning:"
    run "$BATS_TEST_TMPDIR/branches"
    assert_success
    assert_output --partial "PASS profile_branches"
}

@test "under AddressSanitizer and UBSan the lessons and the emulator run clean, host threads and all" {
    # the lessons' host code (arguments, files, checks) and the emulator's runtime, built with
    # g++'s sanitizers: a heap overrun, a leak or undefined behaviour ends the run with its report
    local build="$BATS_TEST_TMPDIR/sanitized" bin="$BATS_TEST_TMPDIR/bin" lessons=() lesson
    mkdir -p "$bin"
    printf '#!/bin/sh\nexec g++ -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer "$@"\n' \
        >"$bin/g++-sanitized"
    chmod +x "$bin/g++-sanitized"
    for lesson in $(lesson_programs); do
        [ "$(lesson_setting "$lesson" MPI)" = yes ] && continue  # Open MPI keeps memory to the end
        lessons+=("$lesson")
    done
    emu_builds_lessons_with "$bin/g++-sanitized" "$build" "${lessons[@]}"
    ASAN_OPTIONS=detect_leaks=1 lessons_pass_in "$build" "${lessons[@]}"
    # a thread that ran blocks gives its stacks back when it ends (the sanitizer must not see
    # its old marks on the next stack mapped there)
    CXX="$bin/g++-sanitized" run common/emu/emucc -o "$build/host_threads" tests/emu/host_threads.cu
    assert_success
    ASAN_OPTIONS=detect_leaks=1 run "$build/host_threads"
    assert_success
    assert_output "PASS host_threads"
}

@test "every lesson builds with clang++ on LLVM's libc++, a second C++ standard library, and passes" {
    # a second C++ standard library: a file that uses a name its own includes do not declare,
    # counting on what GCC's headers happen to include (as newer GCCs include less: GCC 13's
    # <string> no longer brings <cstdint>), can fail here before it fails a student
    needs_clang
    clang++ -stdlib=libc++ -x c++ -fsyntax-only - <<<'#include <vector>' 2>/dev/null ||
        skip "LLVM's libc++ is not installed: sudo apt-get install libc++-dev libc++abi-dev"
    local build="$BATS_TEST_TMPDIR/libcxx" bin="$BATS_TEST_TMPDIR/bin" targets=() lesson
    mkdir -p "$bin"
    # emucc runs CXX as one word: a compiler of its own name (its runtime is built apart)
    printf '#!/bin/sh\nexec clang++ -stdlib=libc++ "$@"\n' >"$bin/clang++-libc++"
    chmod +x "$bin/clang++-libc++"
    for lesson in $(lesson_programs); do targets+=("$build/$lesson"); done
    CXX="$bin/clang++-libc++" run make --no-print-directory -j2 BACKEND=emu BUILD="$build" "${targets[@]}"
    assert_success
    ! grep -q 'error:' <<<"$output" || fail "$(grep 'error:' <<<"$output" | head -n 5)"
    readelf -d "$build/lesson01" | grep -q 'libc++' || fail "lesson01 is not linked against libc++"
    lessons_pass_in "$build" $(lesson_programs)
}

@test "with clang as nvcc's host compiler (CC=clang) every lesson builds without a warning" {
    needs_clang
    command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ] || skip "nvcc is not installed"
    nvcc_builds_every_lesson_with clang "$BATS_TEST_TMPDIR/cuda-clang"
}

@test "with GCC 11, Ubuntu 22.04's compiler, every lesson builds for the emulator and for nvcc, and passes" {
    # an older compiler than this machine's: what it lacks of C++20, and what its C driver (gcc-11,
    # which nvcc links with under CC) does not add to a link, show here before a student meets them
    command -v g++-11 >/dev/null || skip "GCC 11 is not installed: sudo apt-get install g++-11"
    local build="$BATS_TEST_TMPDIR/gcc11"
    emu_builds_lessons_with g++-11 "$build" $(lesson_programs)
    readelf -p .comment "$build/lesson01" | grep -q 'GCC: .* 11\.' || fail "lesson01 was not compiled by GCC 11"
    lessons_pass_in "$build" $(lesson_programs)
    command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ] || return 0
    nvcc_builds_every_lesson_with gcc-11 "$BATS_TEST_TMPDIR/cuda-gcc11"
}

# arm_course_passes TRIPLE QEMU CPU [FLAGS]: built with Debian's cross compiler for TRIPLE (GCC 12,
# as on Raspberry Pi OS), with FLAGS, and run by QEMU, which emulates the Arm CPU (its `file`
# description has CPU), lessons 01-08 build without a warning and pass at their contract sizes, a
# photograph comes out byte for byte, and guard mode names the line of an overrun. Lesson 09
# would need an Arm MPI.
arm_course_passes() {
    local triple=$1 qemu=$2 cpu=$3 flags=${4:-}
    command -v "$triple-g++" >/dev/null && command -v "$qemu" >/dev/null ||
        skip "no cross compiler and qemu: sudo apt-get install g++-$triple qemu-user"
    export QEMU_LD_PREFIX="/usr/$triple" # where qemu finds the Arm C library
    build="$BATS_TEST_TMPDIR/$triple" lessons=()
    local tools="$BATS_TEST_TMPDIR/$triple-tools" lesson
    mkdir -p "$tools"
    # Debian's libstb is built for this machine's CPU: lessons 02 and 08 link the same code, the
    # headers' own, compiled for Arm
    printf '#define STB_IMAGE_IMPLEMENTATION\n#define STB_IMAGE_WRITE_IMPLEMENTATION\n#include <stb/stb_image.h>\n#include <stb/stb_image_write.h>\n' |
        "$triple-gcc" -O2 -x c -c - -o "$tools/stb.o" && "$triple-ar" rcs "$tools/libstb.a" "$tools/stb.o"
    # emucc runs CXX as one word: the cross compiler under its own name, which links there too
    printf '#!/bin/sh\nexec %s-g++ %s "$@" -L"%s"\n' "$triple" "$flags" "$tools" >"$tools/$triple-g++"
    chmod +x "$tools/$triple-g++"
    for lesson in $(lesson_programs); do
        [ "$(lesson_setting "$lesson" MPI)" = yes ] && continue
        lessons+=("$lesson")
    done
    [ "${#lessons[@]}" -ge 8 ] || fail "only ${lessons[*]} to build"
    emu_builds_lessons_with "$tools/$triple-g++" "$build" "${lessons[@]}"
    file "$build/lesson01" | grep -q "$cpu" || fail "lesson01 is not built for $cpu: $(file "$build/lesson01")"
    RUNNER=$qemu lessons_pass_in "$build" "${lessons[@]}"
    # a photograph, read, converted and written on Arm: the same bytes as the course's own
    run "$qemu" "$build/lesson02" --image data/astronaut.png --output "$tools/gray.png" --reps 1 --warmup 0 --quiet-warnings
    assert_success
    cmp "$tools/gray.png" data/astronaut-gray.png
    # guard mode reads the faulting instruction's address from the Arm signal frame. Whether it
    # wrote is there too on Linux, but qemu leaves it out: "access"
    local line
    line=$(grep -n -F "if (i <= n)" tests/emu/bug_out_of_bounds.cu | cut -d: -f1)
    CXX="$tools/$triple-g++" common/emu/emucc -g -o "$build/bug_out_of_bounds" tests/emu/bug_out_of_bounds.cu
    CUDA_EMU_GUARD=1 run "$qemu" "$build/bug_out_of_bounds"
    assert_failure 1
    assert_output --regexp "cuda-emu: out-of-bounds (write|access) in kernel copy, block \(1,0,0\), thread \(36,0,0\) at tests/emu/bug_out_of_bounds.cu:$line: "
}

@test "on a 64-bit Arm CPU (a Raspberry Pi, Graviton, Grace) the lessons build, pass, and an overrun names its line" {
    # the emulator's fiber switch and fault handler have code of their own for it, and the
    # compiler its own bugs
    local build lessons
    arm_course_passes aarch64-linux-gnu qemu-aarch64 'ARM aarch64'
}

# arm32_sanitize_holds CXX: built by CXX for 32-bit Arm, emucc --sanitize's checks hold: a long is
# 32 bits there, so the 64-bit atomics must not be longs; a shared array lies on 16 bytes, as on a
# GPU, where that ABI would give it 8; and of the blocks that meet a bug at the same moment one
# reports it (qemu, slow to switch threads, makes several do so at once most times)
arm32_sanitize_holds() {
    local program try
    for program in atomics bug_misaligned bug_uninitialized; do
        CXX="$1" run common/emu/emucc --sanitize -o "$build/$program" "tests/emu/$program.cu"
        assert_success
    done
    run qemu-arm "$build/atomics"
    assert_success
    assert_output --partial "PASS atomics"
    run qemu-arm "$build/bug_misaligned" shared
    assert_failure 1
    assert_output --partial "byte offset 4 of __shared__ tile, 4 bytes past a multiple of 16"
    for try in 1 2 3 4 5 6 7 8 9 10; do
        run qemu-arm "$build/bug_uninitialized"
        assert_failure 1
        [ "$(grep -c 'that nothing wrote' <<<"$output")" = 1 ] || fail "$1, try $try: $output"
    done
}

@test "on 32-bit Arm (Raspberry Pi OS's 32-bit system) the lessons pass, count the memory of a size too big, and the checks hold" {
    # compiled for ARMv6 as that system's compiler does by default, which has no 64-bit atomic
    # instructions (the runtime's counters call libatomic)
    local build lessons lesson
    arm_course_passes arm-linux-gnueabihf qemu-arm 'ARM, EABI5' '-march=armv6+fp -marm'
    local arm_gxx="$BATS_TEST_TMPDIR/arm-linux-gnueabihf-tools/arm-linux-gnueabihf-g++"
    arm32_sanitize_holds "$arm_gxx"
    # below each stack of a GPU thread, one protected page, as address space is scarce: the
    # compiler's stack probes make a large local array's frame touch it, not jump past it
    CXX="$arm_gxx" common/emu/emucc -o "$build/bug_stack_overflow" tests/emu/bug_stack_overflow.cu
    run qemu-arm "$build/bug_stack_overflow" large-array
    assert_failure 1
    assert_output --regexp "^cuda-emu: stack overflow in kernel large_local_array, block \(0,0,0\), thread \([0-9]+,0,0\): a GPU thread used more than 256 KiB"
    # a 32-bit program's size_t holds 4 GB: the bytes a size needs must be counted past that, to
    # refuse it with the right figure, not one wrapped around
    [ -d "$EMU_BUILD" ] || return 0
    for lesson in "${lessons[@]}"; do
        local huge
        huge=$(lesson_setting "$lesson" HUGE_SIZE)
        run --separate-stderr qemu-arm "$build/$lesson" -n "${huge:-20G}"
        assert_failure 2
        local needs=${stderr%%, but only*}
        assert_regex "$stderr" ', but only [0-4]\.[0-9] GB is available$'
        run --separate-stderr "$EMU_BUILD/$lesson" -n "${huge:-20G}"
        [ "${stderr%%, but only*}" = "$needs" ] || fail "on 32-bit Arm: $needs; here: $stderr"
    done
}

@test "on 32-bit Arm emucc --sanitize works with clang++ too, whose driver has no ThreadSanitizer there" {
    # (the emulator brings its own runtime for the checks, so the compiler proper is asked)
    command -v clang++ >/dev/null || skip "clang++ is not installed"
    command -v arm-linux-gnueabihf-g++ >/dev/null && command -v qemu-arm >/dev/null ||
        skip "no cross compiler and qemu: sudo apt-get install g++-arm-linux-gnueabihf qemu-user"
    export QEMU_LD_PREFIX=/usr/arm-linux-gnueabihf
    local build="$BATS_TEST_TMPDIR/arm-clang"
    mkdir -p "$build"
    # clang finds the cross compiler's C++ library and linker by the target's name. Named as the
    # clang++ on PATH is, it must not take that one's emulator runtime, built for this machine,
    # nor leave its own in that one's place.
    printf '#!/bin/sh\nexec clang++ --target=arm-linux-gnueabihf -march=armv6 -mfpu=vfp -mfloat-abi=hard -marm "$@"\n' \
        >"$build/clang++"
    chmod +x "$build/clang++"
    CXX=clang++ common/emu/emucc -o "$build/atomics-here" tests/emu/atomics.cu
    arm32_sanitize_holds "$build/clang++"
    CXX=clang++ run common/emu/emucc -o "$build/atomics-here" tests/emu/atomics.cu
    assert_success
    run "$build/atomics-here"
    assert_success
    assert_output --partial "PASS atomics"
}

@test "make exercise01 checks the student's file and fails while it is not implemented" {
    [ -d "$EMU_BUILD" ] || skip "no emulator build"
    run make --no-print-directory BACKEND=emu exercise01
    assert_failure
    assert_output --partial "exercise01: not implemented yet"
}

@test "make solution01 checks the worked solution and succeeds" {
    [ -d "$EMU_BUILD" ] || skip "no emulator build"
    run make --no-print-directory BACKEND=emu solution01
    assert_success
    assert_output --partial "exercise01: PASS (all 10 sizes)"
    # a build folder named by its full path, as the tests name theirs
    run make --no-print-directory BACKEND=emu BUILD="$BATS_TEST_TMPDIR/build" solution01 exercise01
    assert_failure
    assert_output --partial "exercise01: PASS (all 10 sizes)"
    assert_output --partial "exercise01: not implemented"
}

@test "make solutionNN without a GPU tells to build solutionNN for the emulator, not the exercise" {
    [ "$GPU_COUNT" -eq 0 ] || skip "a GPU is present, so the nvcc build runs on it"
    # the architecture make test built the nvcc programs for
    local arch=${CUDA_BUILD##*/cuda-sm} number
    for dir in lessons/[0-9][0-9]-*; do
        number=$(basename "$dir" | cut -c1-2)
        [ -n "$(lesson_setting "lesson$number" EXERCISE)" ] || continue
        # a checker of host code alone (exercise09's: MPI on the host) needs no GPU
        grep -q wb_checker_device "$dir/$(lesson_setting "lesson$number" EXERCISE_CHECK)" || continue
        [ -x "$CUDA_BUILD/solution$number" ] || skip "no nvcc build of solution$number in $CUDA_BUILD"
        # every checker answers through common/'s wb_checker_device: exit 3, and
        # the hint names the target that ran it
        run make --no-print-directory BACKEND=cuda CUDA_ARCH="$arch" "solution$number"
        assert_failure
        assert_line --regexp "^exercise$number: cannot check: .*: make BACKEND=emu solution$number$"
        assert_line --partial "solution$number] Error 3"
    done
    # make exerciseNN names the exercise; so does a checker run by hand
    [ -x "$CUDA_BUILD/exercise08" ] || skip "no nvcc build of exercise08 in $CUDA_BUILD"
    run make --no-print-directory BACKEND=cuda CUDA_ARCH="$arch" exercise08
    assert_failure
    assert_line --regexp "^exercise08: cannot check: .*: make BACKEND=emu exercise08$"
    run --separate-stderr "$CUDA_BUILD/solution08"
    assert_equal "$status" 3
    assert_equal "${stderr##*: }" "make BACKEND=emu exercise08"
}

@test "without MPI, make lesson09 says in one line what to install, and the other lessons build" {
    run make --no-print-directory BACKEND=emu MPICXX=/nonexistent/mpicxx lesson09
    assert_failure
    # the one line, then make's own about the failed target
    assert_line --index 0 "make: lesson09 needs MPI, which is not installed (no /nonexistent/mpicxx): sudo apt-get install libopenmpi-dev openmpi-bin"
    assert_equal "${#lines[@]}" 2
    run make --no-print-directory -n BACKEND=emu MPICXX=/nonexistent/mpicxx all test-programs nvcc-check
    assert_success
    assert_output --partial "lesson09 not built: it needs MPI, which is not installed"
    refute_output --partial "09-multi-gpu/"
}

@test "without stb_image, make lesson02 and exercise08 say what to install, and the other lessons build" {
    run make --no-print-directory BACKEND=emu STB_INCLUDE_DIRS=/nonexistent lesson02
    assert_failure
    assert_line --index 0 "make: lesson02 needs stb_image, which is not installed (no stb/stb_image.h): sudo apt-get install libstb-dev"
    assert_equal "${#lines[@]}" 2
    run make --no-print-directory BACKEND=emu STB_INCLUDE_DIRS=/nonexistent exercise08
    assert_failure
    assert_line --index 0 "make: exercise08 needs stb_image, which is not installed (no stb/stb_image.h): sudo apt-get install libstb-dev"
    run make --no-print-directory -n BACKEND=emu STB_INCLUDE_DIRS=/nonexistent all test-programs nvcc-check
    assert_success
    assert_output --partial "lesson02 not built: it needs stb_image"
    assert_output --partial "lesson08 not built: it needs stb_image"
    refute_output --partial "02-grayscale/"
    refute_output --partial "08-sobel/"
    assert_output --partial "lessons/03-diffusion/diffusion.cu"
    # make test says so before it builds anything, rather than failing those lessons' tests
    run make --no-print-directory STB_INCLUDE_DIRS=/nonexistent test
    assert_failure
    assert_line --index 0 "make test needs stb_image, which lessons 02 and 08 and their tests use: sudo apt-get install libstb-dev"
    assert_equal "${#lines[@]}" 2
}

@test "make lesson09 compiles and links with MPI's flags, and nvcc with NCCL's where it is found" {
    command -v mpicxx >/dev/null || skip "MPI is not installed"
    run make --no-print-directory -B -n BACKEND=emu lesson09
    assert_success
    assert_line --regexp "^common/emu/emucc .* $(mpicxx --showme:compile | sed 's/ .*//') .*-c lessons/09-multi-gpu/multi_gpu.cu "
    assert_line --regexp "^common/emu/emucc .* -o build/emu/lesson09 .* $(mpicxx --showme:link | sed 's/.* //')"
    refute_output --partial "nccl"
    run make --no-print-directory -B -n BACKEND=cuda lesson09
    assert_success
    if [ -f /usr/local/cuda/include/nccl.h ] || [ -f /usr/include/nccl.h ]; then
        assert_line --regexp "nvcc .* -DHAVE_NCCL .*-c lessons/09-multi-gpu/multi_gpu.cu "
        assert_line --regexp "nvcc .* -o build/cuda-sm[0-9a]+/lesson09 .* -lnccl"
    fi
}

@test "make -B, which remakes everything, names no file of build/ as a target that does not exist" {
    # (a pattern rule for unknown goals, exercise%, once matched build/.../exercise.d)
    local build="$BATS_TEST_TMPDIR/always"
    run make --no-print-directory -B BACKEND=emu BUILD="$build" "$build/lesson01"
    assert_success
    refute_output --partial "there is no"
    [ -x "$build/lesson01" ]
}

@test "make lesson99 names the lessons that exist and fails" {
    run make --no-print-directory lesson99
    assert_failure 2
    assert_output --partial "there is no lesson99: the lessons are lesson01"
}

@test "a CUDA_ARCH that is not an architecture is refused, naming the valid ones" {
    run make --no-print-directory CUDA_ARCH=abc doctor
    assert_failure
    assert_output --partial "CUDA_ARCH=abc: expected one of 75 80 86"
    refute_output --partial "ready"
    run make --no-print-directory CUDA_ARCH=60 lesson01
    assert_failure
    assert_output --partial "CUDA_ARCH=60: expected one of"
}

@test "every lesson folder has a lesson.conf naming a program that exists" {
    for dir in lessons/[0-9][0-9]-*; do
        [ -f "$dir/lesson.conf" ] || fail "$dir has no lesson.conf"
        local program
        program=$(sed -n 's/^PROGRAM[[:space:]]*=[[:space:]]*//p' "$dir/lesson.conf")
        [ -f "$dir/$program" ] || fail "$dir/lesson.conf names PROGRAM '$program', which is not there"
    done
}

@test "make doctor BRIEF=1 prints one summary line: host, verdict, GPU, CUDA version, tests" {
    run make --no-print-directory doctor BRIEF=1
    assert_success
    assert_equal "${#lines[@]}" 1
    # (tests: no, naming what is missing, where bats runs this file on a machine that lacks gnuplot)
    # (CUDA -: no CUDA Toolkit, which the emulator does not need)
    assert_output --regexp "^$(uname -n) +ready  (GPU 0: .* \(sm_[0-9]+\)|no GPU: CPU emulator)  CUDA ([0-9]+\.[0-9]+|-)  tests: (yes|no \(missing [^)]+\))$"
    run make --no-print-directory doctor
    assert_line "summary: $(make --no-print-directory doctor BRIEF=1)"
}

@test "make doctor BRIEF=1 names what is wrong and fails on a machine without nvcc for a cuda build" {
    BRIEF=1 NVCC=/nonexistent/nvcc BACKEND=cuda CUDA_ARCH=90 run sh common/doctor.sh
    assert_failure 1
    assert_equal "${#lines[@]}" 1
    assert_output --regexp "^$(uname -n) +NOT READY \(no nvcc\)  .*  CUDA -  tests: "
}

@test "make doctor names an nvcc that is there but does not run, and the emulator, which needs none" {
    # as a wrapper or link left behind when the toolkit it pointed at was removed
    local bin="$BATS_TEST_TMPDIR/bin"
    mkdir -p "$bin"
    printf '%s\n' '#!/bin/sh' 'echo "exec: /opt/cuda-12.0/bin/nvcc: not found" >&2' 'exit 127' >"$bin/nvcc"
    chmod +x "$bin/nvcc"
    NVCC="$bin/nvcc" BACKEND=cuda CUDA_ARCH=90 run sh common/doctor.sh
    assert_failure 1
    assert_line "nvcc           $bin/nvcc does not run: exec: /opt/cuda-12.0/bin/nvcc: not found"
    assert_line --partial "-> or use the CPU emulator, which needs only g++: make BACKEND=emu lesson01"
    assert_line --regexp "^summary: .* NOT READY \(no nvcc\)  .*  CUDA -  tests: "
    NVCC="$bin/nvcc" BACKEND=emu CUDA_ARCH=75 run sh common/doctor.sh
    assert_success
    refute_output --partial "nvcc cannot build"
}

@test "make doctor names gnuplot as missing, with the line that installs it" {
    local bin="$BATS_TEST_TMPDIR/bin"
    mkdir -p "$bin"
    # a PATH with everything doctor looks for but gnuplot
    for tool in sh sed grep tr head cat printf dirname basename command g++ as ld mktemp rm make bats \
        nvidia-smi; do
        local found
        found=$(command -v "$tool" 2>/dev/null) && [ "${found#/}" != "$found" ] && ln -sf "$found" "$bin/$tool"
    done
    PATH="$bin" run sh common/doctor.sh
    assert_output --partial "missing: gnuplot"
    assert_output --partial "sudo apt-get install bats bats-assert bats-support gnuplot-nox"
    refute_output --partial "OpenMP"
}

@test "make doctor names the host compiler it checks, and one that cannot build OpenMP with what to install" {
    # (without the CC and CXX a machine may export; g++ may print its own name
    # as g++-13 or g++-real, where g++ is a link or a wrapper)
    run env -u CC -u CXX make --no-print-directory doctor BACKEND=emu
    assert_line --regexp "^host compiler  g\+\+(-[^ ]+)? .* \(the emulator's host compiler\)$"
    refute_output --partial "cannot build an OpenMP program"
    run make --no-print-directory doctor BACKEND=cuda CC=gcc
    assert_line --regexp "^host compiler  gcc(-[^ ]+)? .* \(nvcc's host compiler, CC\)$"
    # clang without LLVM's libomp, as on a machine with clang but not libomp-dev
    local bin="$BATS_TEST_TMPDIR/bin"
    mkdir -p "$bin"
    printf '%s\n' '#!/bin/sh' \
        'case " $* " in *" --version "*) echo "clang version 14 (no libomp)"; exit 0 ;; esac' \
        'case " $* " in *" -fopenmp "*) echo "omp.c:1:10: fatal error: '"'"'omp.h'"'"' file not found" >&2; exit 1 ;; esac' \
        'exec clang "$@"' >"$bin/clang-without-libomp"
    chmod +x "$bin/clang-without-libomp"
    run make --no-print-directory doctor BACKEND=emu CXX="$bin/clang-without-libomp"
    assert_failure
    assert_line --partial "cannot build an OpenMP program: omp.c:1:10: fatal error: 'omp.h' file not found"
    assert_line --partial "-> clang's OpenMP is LLVM's libomp: sudo apt-get install libomp-dev"
    assert_line --regexp "^summary: .* NOT READY \(no OpenMP in $bin/clang-without-libomp\)"
    run make --no-print-directory doctor BACKEND=cuda CC=no-such-cc
    assert_failure
    assert_line "host compiler  no-such-cc not found (nvcc's host compiler, CC)"
}

@test "make doctor names a host compiler newer than nvcc supports, with what to do instead" {
    command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ] || skip "nvcc is not installed"
    # a GCC that says it is version 99, as a rolling distribution's newest would be to this CUDA
    local bin="$BATS_TEST_TMPDIR/bin"
    mkdir -p "$bin"
    printf '%s\n' '#!/bin/sh' \
        'case " $* " in *" --version "*) echo "gcc-99 (GCC) 99.1.0"; exit 0 ;; esac' \
        'exec gcc -U__GNUC__ -D__GNUC__=99 "$@"' >"$bin/gcc-99"
    chmod +x "$bin/gcc-99"
    run make --no-print-directory doctor BACKEND=cuda CC="$bin/gcc-99"
    assert_failure
    assert_line "host compiler  gcc-99 (GCC) 99.1.0 (nvcc's host compiler, CC)"
    assert_line --regexp "^ +nvcc cannot build with $bin/gcc-99: unsupported GNU version! gcc versions later than [0-9]+ are not supported!$"
    assert_line --partial "-> name a host compiler this CUDA supports, e.g. make CC=gcc-13"
    assert_line --regexp "^summary: .* NOT READY \(nvcc rejects $bin/gcc-99\)"
    # the emulator does not use nvcc: the lessons still build, and doctor says how
    run make --no-print-directory doctor BACKEND=emu CC="$bin/gcc-99"
    assert_success
    assert_line --partial "-> guide lists them), or build for the CPU emulator: make BACKEND=emu"
    # the machine's own gcc passes
    run make --no-print-directory doctor BACKEND=cuda
    assert_success
    refute_output --partial "nvcc cannot build"
}

@test "every script that runs awk sets its locale, so that its numbers read alike everywhere" {
    # (bench.bats and plots.bats show what goes wrong without: in de_DE awk reads 1.5 as 1)
    local script count=0
    for script in $(grep -l 'awk' common/*.sh plots/*.sh common/emu/emucc); do
        grep -q '^export LC_ALL=C' "$script" || fail "$script runs awk in the user's locale"
        count=$((count + 1))
    done
    [ "$count" -ge 6 ]
}

@test "the top level holds the course's layout and nothing else that git tracks" {
    # The layout README.md describes: Makefile, README.md, COURSE.md and the
    # folders below; a program or a note left at the top level would be the
    # first thing a student sees.
    run bash -c "git -C '$REPO' ls-files | cut -d / -f 1 | sort -u"
    assert_success
    for entry in $output; do
        case $entry in
            .gitignore | .ci | Makefile | README.md | COURSE.md | lessons | solutions | common | \
                data | tests | plots) ;;
            *) fail "the top level tracks '$entry', which is not part of the course's layout" ;;
        esac
    done
}
