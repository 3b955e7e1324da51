#!/usr/bin/env bats
# tests/sanitize.bats - the specification of `emucc --sanitize` (common/emu/runtime/sanitize.cpp)
# and of `make sanitize`: every shared-memory race is named with both lines whatever the thread
# order, as are reads of shared memory nobody wrote, accesses past dynamic shared memory,
# warp-synchronous code that needs __syncwarp() and misaligned accesses to device and shared
# memory; correct programs report nothing.

# REPO, the libraries, and what MPI needs to start lesson 09's ranks here
load test_helper
EMUCC="$REPO/common/emu/emucc"
# Correct programs that use shared memory, barriers, warp operations and atomics.
# byte_tile: threads writing neighbouring bytes of one word, no race. memory_pools: memory from
# cudaMallocAsync, blocks that pools reuse included. large_tiles: threads of different warps
# ordered by the sync() of a cooperative_groups tile of 64 to 512 threads. libcudacxx_copy:
# threads ordered by the phases of cuda::barriers and of a pipeline's stages. spin_wait: a lock
# in shared memory, taken with atomicCAS and __nanosleep, orders what it guards.
# libcudacxx_atomic: libcu++'s atomics on shared memory are atomic accesses, no race.
# libcudacxx_sync: a latch and a binary semaphore order what they guard.
CORRECT=(reduce_shared warp_shuffle transpose atomics syncthreads_reduce votes grids vector_add byte_tile
    memory_pools large_tiles coalesced_groups libcudacxx_copy spin_wait libcudacxx_atomic libcudacxx_sync)
BUGS=(bug_race_tree bug_missing_sync bug_warp_sync bug_shared_uninitialized bug_shared_out_of_bounds
    bug_shared_static_out_of_bounds bug_uninitialized bug_byte_tile_race bug_tile_race bug_misaligned)

setup_file() {
    export BIN="$BATS_FILE_TMPDIR/bin"
    mkdir -p "$BIN"
    cd "$REPO"
    # (the first build also builds the emulator's runtime when it is out of date, alone)
    "$EMUCC" --sanitize -o "$BIN/vector_add" tests/emu/vector_add.cu 2>"$BIN/vector_add.build.log" || true
    printf '%s\n' "${CORRECT[@]}" "${BUGS[@]}" bug_out_of_bounds | grep -v '^vector_add$' |
        xargs -P 2 -I{} sh -c '"$0" --sanitize -o "$1/{}" tests/emu/{}.cu 2>"$1/{}.build.log" || true' \
            "$EMUCC" "$BIN"
}

line_of() {  # line_of FILE TEXT: the line number where TEXT first appears
    grep -n -F -- "$2" "$1" | head -n 1 | cut -d: -f1
}

require_built() {
    [ -x "$BIN/$1" ] || fail "$1 did not build with --sanitize: $(cat "$BIN/$1.build.log")"
}

@test "correct programs report nothing under --sanitize, in every thread order" {
    for name in "${CORRECT[@]}"; do
        require_built "$name"
        for order in forward reverse random:7; do
            CUDA_EMU_ORDER=$order run "$BIN/$name"
            assert_success
            assert_output "PASS $name"
        done
    done
}

@test "a tree reduction without __syncthreads, right in reverse order, is named with its line in every order" {
    require_built bug_race_tree
    local line
    line=$(line_of "$REPO/tests/emu/bug_race_tree.cu" "the racing read and write")
    for order in forward reverse random:7; do
        CUDA_EMU_ORDER=$order run "$BIN/bug_race_tree"
        assert_failure 1
        # blocks run on several cores at once: whichever finds its race first reports it
        assert_line --regexp "^cuda-emu: data race on shared memory in kernel block_sums, block \([0-3],0,0\):$"
        assert_line --regexp "^cuda-emu:   thread \([0-9]+,0,0\) (reads|writes) at tests/emu/bug_race_tree.cu:$line$"
        assert_line --partial "with no __syncthreads() between"
        refute_output --partial "PASS"
    done
}

@test "a missing __syncthreads between a write and a neighbour's read names both lines and threads" {
    require_built bug_missing_sync
    local write read
    write=$(line_of "$REPO/tests/emu/bug_missing_sync.cu" "tile[threadIdx.x] = i < n")
    read=$(line_of "$REPO/tests/emu/bug_missing_sync.cu" "int left = ")
    CUDA_EMU_ORDER=forward run "$BIN/bug_missing_sync"
    assert_failure 1
    assert_line --regexp "^cuda-emu: data race on shared memory in kernel left_sum, block \([0-7],0,0\):$"
    assert_line "cuda-emu:   thread (31,0,0) writes at tests/emu/bug_missing_sync.cu:$write"
    assert_line "cuda-emu:   thread (32,0,0) reads at tests/emu/bug_missing_sync.cu:$read"
    CUDA_EMU_ORDER=reverse run "$BIN/bug_missing_sync"
    assert_failure 1
    assert_line --partial "with no __syncthreads() between"
}

@test "a missing __syncthreads in a tile of bytes is named, though the racing threads write other bytes of the word" {
    require_built bug_byte_tile_race
    local write read
    write=$(line_of "$REPO/tests/emu/bug_byte_tile_race.cu" "tile[threadIdx.x] = i < n")
    read=$(line_of "$REPO/tests/emu/bug_byte_tile_race.cu" "int left = ")
    for order in forward reverse random:7; do
        CUDA_EMU_ORDER=$order run "$BIN/bug_byte_tile_race"
        assert_failure 1
        assert_line --regexp "^cuda-emu: data race on shared memory in kernel left_sum_bytes, block \([0-7],0,0\):$"
        assert_line --regexp "^cuda-emu:   thread \([0-9]+,0,0\) writes at tests/emu/bug_byte_tile_race.cu:$write$"
        assert_line --regexp "^cuda-emu:   thread \([0-9]+,0,0\) reads at tests/emu/bug_byte_tile_race.cu:$read$"
    done
}

@test "a read after a tile's sync() of what the block's other tile wrote is named: the sync orders its own tile only" {
    require_built bug_tile_race
    local write read
    write=$(line_of "$REPO/tests/emu/bug_tile_race.cu" "values[threadIdx.x] = 3 * threadIdx.x")
    read=$(line_of "$REPO/tests/emu/bug_tile_race.cu" "out[threadIdx.x] = values[")
    for order in forward reverse random:7; do
        CUDA_EMU_ORDER=$order run "$BIN/bug_tile_race"
        assert_failure 1
        assert_line "cuda-emu: data race on shared memory in kernel swap_halves, block (0,0,0):"
        assert_line --regexp "^cuda-emu:   thread \([0-9]+,0,0\) writes at tests/emu/bug_tile_race.cu:$write$"
        assert_line --regexp "^cuda-emu:   thread \([0-9]+,0,0\) reads at tests/emu/bug_tile_race.cu:$read$"
        refute_output --partial "PASS"
    done
}

@test "warp-synchronous code without __syncwarp is flagged as needing __syncwarp()" {
    require_built bug_warp_sync
    for order in forward reverse; do
        CUDA_EMU_ORDER=$order run "$BIN/bug_warp_sync"
        assert_failure 1
        assert_line "cuda-emu: data race on shared memory in kernel block_sum, block (0,0,0):"
        assert_line --partial "both in one warp, with no __syncwarp() between"
        assert_line --regexp "^cuda-emu:   thread \(([0-9]|[12][0-9]|3[01]),0,0\) (reads|writes) at tests/emu/bug_warp_sync.cu:[0-9]+$"
    done
}

@test "a read of shared memory that no thread wrote is reported with its line, block and thread" {
    require_built bug_shared_uninitialized
    local line
    line=$(line_of "$REPO/tests/emu/bug_shared_uninitialized.cu" "the read of the halo")
    run "$BIN/bug_shared_uninitialized"
    assert_failure 1
    assert_line --regexp "^cuda-emu: read of shared memory that no thread of the block has written, in kernel right_sum, block \([01],0,0\), thread \(31,0,0\), at tests/emu/bug_shared_uninitialized.cu:$line$"
}

@test "a read of device memory that no copy, memset or kernel wrote is reported with its line and the allocation" {
    require_built bug_uninitialized
    local read allocation
    read=$(line_of "$REPO/tests/emu/bug_uninitialized.cu" "atomicAdd(total, in[i])")
    allocation=$(line_of "$REPO/tests/emu/bug_uninitialized.cu" "CHECK(cudaMalloc(&d_in")
    run "$BIN/bug_uninitialized"
    assert_failure 1
    # half the input was copied: the first element past that half is the first one nobody wrote
    assert_line --regexp "^cuda-emu: read of device memory that nothing wrote \(no copy, memset or kernel\), in kernel sum, block \([0-9]+,0,0\), thread \([0-9]+,0,0\), at tests/emu/bug_uninitialized.cu:$read: byte offset [0-9]+ of a 4000-byte allocation made at tests/emu/bug_uninitialized.cu:$allocation$"
}

@test "a reused pool block counts as unwritten again: reading it before a write is reported with the new allocation" {
    require_built memory_pools
    local read allocation
    read=$(line_of "$REPO/tests/emu/memory_pools.cu" "atomicAdd(total, data[i])")
    allocation=$(line_of "$REPO/tests/emu/memory_pools.cu" "// the reused block")
    run "$BIN/memory_pools" stale
    assert_failure 1
    assert_line --regexp "^cuda-emu: read of device memory that nothing wrote \(no copy, memset or kernel\), in kernel sum_into, block \([0-9]+,0,0\), thread \([0-9]+,0,0\), at tests/emu/memory_pools.cu:$read: byte offset [0-9]+ of a 20000-byte allocation made at tests/emu/memory_pools.cu:$allocation$"
    refute_output --partial "sum to"
}

@test "a write past the end of dynamic shared memory is reported with its line and offset" {
    require_built bug_shared_out_of_bounds
    local line
    line=$(line_of "$REPO/tests/emu/bug_shared_out_of_bounds.cu" "BUG: thread blockDim.x - 1")
    run "$BIN/bug_shared_out_of_bounds"
    assert_failure 1
    assert_line "cuda-emu: out-of-bounds write of dynamic shared memory in kernel shift, block (0,0,0), thread (63,0,0), at tests/emu/bug_shared_out_of_bounds.cu:$line: byte offset 256 of 256 bytes (the launch's third <<<>>> argument)"
}

@test "a write past the end of a static __shared__ array is reported with its line and the array" {
    require_built bug_shared_static_out_of_bounds
    local line
    line=$(line_of "$REPO/tests/emu/bug_shared_static_out_of_bounds.cu" "// past the end")
    run "$BIN/bug_shared_static_out_of_bounds"
    assert_failure 1
    assert_line --regexp "^cuda-emu: out-of-bounds write of shared memory in kernel with_right_neighbour, block \([01],0,0\), thread \(31,0,0\), at tests/emu/bug_shared_static_out_of_bounds.cu:$line: the first byte past the end of __shared__ tile \(128 bytes\)$"
}

@test "a write past a __shared__ alignas(16) array is named with its line and the array" {
    require_built bug_shared_static_out_of_bounds
    local line
    line=$(line_of "$REPO/tests/emu/bug_shared_static_out_of_bounds.cu" "// past the aligned end")
    for order in forward reverse; do
        CUDA_EMU_ORDER=$order run "$BIN/bug_shared_static_out_of_bounds" aligned
        assert_failure 1
        assert_line --regexp "^cuda-emu: out-of-bounds write of shared memory in kernel with_right_neighbour_aligned, block \([01],0,0\), thread \(31,0,0\), at tests/emu/bug_shared_static_out_of_bounds.cu:$line: the first byte past the end of __shared__ tile \(128 bytes\)$"
    done
}

@test "a 32-bit load from device memory at an address not a multiple of 4 is named with its line" {
    require_built bug_misaligned
    local access allocation
    access=$(line_of "$REPO/tests/emu/bug_misaligned.cu" "BUG: a row starts where")
    allocation=$(line_of "$REPO/tests/emu/bug_misaligned.cu" "// the RGB rows")
    # rows 1, 3, 5 and 7 start 2 bytes past a multiple of 4; forward order meets row 1 first
    CUDA_EMU_ORDER=forward run "$BIN/bug_misaligned"
    assert_failure 1
    assert_line "cuda-emu: misaligned 4-byte read in kernel first_words, block (0,0,0), thread (1,0,0), at tests/emu/bug_misaligned.cu:$access: byte offset 90 of a 720-byte allocation made at tests/emu/bug_misaligned.cu:$allocation, 2 bytes past a multiple of 4"
    assert_line --partial "a GPU stops the kernel here (cudaErrorMisalignedAddress)"
    refute_line --partial "PASS"
}

@test "a float4 read from shared memory one float in is named with its line and the array" {
    require_built bug_misaligned
    local access
    access=$(line_of "$REPO/tests/emu/bug_misaligned.cu" "BUG: tile + 4 bytes")
    run "$BIN/bug_misaligned" shared
    assert_failure 1
    assert_line "cuda-emu: misaligned 16-byte read in kernel shifted_float4, block (0,0,0), thread (0,0,0), at tests/emu/bug_misaligned.cu:$access: byte offset 4 of __shared__ tile, 4 bytes past a multiple of 16"
}

@test "an access past a global allocation names the faulting line as well as the allocation" {
    require_built bug_out_of_bounds
    local access allocation
    access=$(line_of "$REPO/tests/emu/bug_out_of_bounds.cu" "BUG: should be i < n")
    allocation=$(line_of "$REPO/tests/emu/bug_out_of_bounds.cu" "the allocation that is overrun")
    CUDA_EMU_GUARD=1 run "$BIN/bug_out_of_bounds"
    assert_failure 1
    assert_output --partial "out-of-bounds write in kernel copy, block (1,0,0), thread (36,0,0) at tests/emu/bug_out_of_bounds.cu:$access: byte offset 400 of a 400-byte allocation made at tests/emu/bug_out_of_bounds.cu:$allocation"
}

@test "make sanitize runs every lesson clean under the emulator's checks" {
    command -v nvidia-smi >/dev/null 2>&1 && skip "a GPU is present: make sanitize uses compute-sanitizer there"
    cd "$REPO"
    run make --no-print-directory sanitize
    assert_success
    for lesson in $(lesson_programs); do
        assert_line --regexp "^  $lesson .*: clean$"
    done
    assert_line --partial "every lesson ran clean"
}

@test "the sanitize script starts a lesson with the LAUNCH of its lesson.conf, in every order" {
    local tree="$BATS_TEST_TMPDIR/tree"
    mkdir -p "$tree/lessons/01-fake" "$tree/build"
    printf 'LAUNCH = sh %s/launch.sh -np 2\nSMALL_ARGS = -n 7\n' "$tree" >"$tree/lessons/01-fake/lesson.conf"
    # the launcher notes its arguments and runs the program after its own two;
    # the program notes the thread order it was given
    printf '#!/bin/sh\necho "launched: $*" >>"%s/launches"\nshift 2\nexec "$@"\n' "$tree" \
        >"$tree/launch.sh"
    printf '#!/bin/sh\necho "$CUDA_EMU_ORDER $*" >>"%s/orders"\n' "$tree" >"$tree/build/lesson01"
    chmod +x "$tree/build/lesson01"
    cd "$tree"
    SANITIZE_BUILD="$tree/build" run sh "$REPO/common/sanitize.sh" lesson01
    assert_success
    assert_line "  lesson01 (forward,reverse,random:1): clean"
    assert_equal "$(sort -u "$tree/launches")" "launched: -np 2 $tree/build/lesson01 -n 7"
    assert_equal "$(tr '\n' ' ' <"$tree/orders")" "forward -n 7 reverse -n 7 random:1 -n 7 "
}

@test "the sanitize script starts an mpirun LAUNCH as root, where Open MPI asks for two settings" {
    [ "$(id -u)" -eq 0 ] || skip "not root: Open MPI starts ranks without the settings"
    command -v mpirun >/dev/null 2>&1 || skip "no mpirun"
    local tree="$BATS_TEST_TMPDIR/tree"
    mkdir -p "$tree/lessons/09-fake" "$tree/build"
    printf 'LAUNCH = mpirun -np 1 --bind-to none\nSMALL_ARGS = -n 7\n' >"$tree/lessons/09-fake/lesson.conf"
    printf '#!/bin/sh\necho "$CUDA_EMU_ORDER $*" >>"%s/orders"\n' "$tree" >"$tree/build/lesson09"
    chmod +x "$tree/build/lesson09"
    cd "$tree"
    # a lab container's root shell has neither setting (test_helper.bash exports both)
    SANITIZE_BUILD="$tree/build" run env -u OMPI_ALLOW_RUN_AS_ROOT -u OMPI_ALLOW_RUN_AS_ROOT_CONFIRM \
        sh "$REPO/common/sanitize.sh" lesson09
    assert_success
    assert_line "  lesson09 (forward,reverse,random:1): clean"
    assert_equal "$(tr '\n' ' ' <"$tree/orders")" "forward -n 7 reverse -n 7 random:1 -n 7 "
}

@test "the sanitize script shows what a program said when it failed without a check's line" {
    local tree="$BATS_TEST_TMPDIR/tree"
    mkdir -p "$tree/lessons/01-fake" "$tree/build"
    printf 'SMALL_ARGS = -n 7\n' >"$tree/lessons/01-fake/lesson.conf"
    printf '#!/bin/sh\necho "launcher: refused to start"\nexit 1\n' >"$tree/build/lesson01"
    chmod +x "$tree/build/lesson01"
    cd "$tree"
    SANITIZE_BUILD="$tree/build" run sh "$REPO/common/sanitize.sh" lesson01
    assert_failure
    assert_line "  lesson01 (forward): FOUND a problem (exit status 1):"
    assert_line "    launcher: refused to start"
}

@test "the sanitize script fails on a program with a race, naming it" {
    require_built bug_race_tree
    cd "$REPO"
    SANITIZE_BUILD="$BIN" run sh common/sanitize.sh bug_race_tree
    assert_failure
    assert_output --partial "bug_race_tree"
    assert_output --partial "data race on shared memory"
}
