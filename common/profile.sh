#!/bin/sh
# common/profile.sh - runs programs at a small size and prints, per kernel, what the hardware saw:
# global memory requests and sectors (coalescing), shared memory wavefronts (bank conflicts),
# divergent branches, atomics, and the launch's occupancy, each named as Nsight Compute names it.
#
#   make profile                 the usual way: builds every lesson for it, then runs them
#   make profile LESSON=05       one lesson
#   PROFILE_BUILD=build/emu-profile sh common/profile.sh lesson02 lesson05
#
# Without a GPU (PROFILE_TOOL=emu) the programs are the lessons built with `emucc --profile`,
# which print their own tables when they end: exact counts from the addresses every thread
# touched, not timings (common/emu/runtime/profile.cpp). With a GPU (PROFILE_TOOL=ncu) each runs
# under Nsight Compute with the same metrics, and the same table is printed from its CSV.
# A lesson runs with the PROFILE_ARGS of its lesson.conf, started by its PROFILE_LAUNCH when it
# has one (lesson 09, an MPI program, as one rank: one process, one set of tables).
#
# Exit status: 0 when every program ran and passed, 1 otherwise, 2 usage.

set -u
export LC_ALL=C # numbers with a decimal point in every locale (awk in de_DE reads 1.5 as 1)
program=profile.sh
build=${PROFILE_BUILD:-build/emu-profile}
tool=${PROFILE_TOOL:-emu}

if [ $# -eq 0 ]; then
    echo "usage: PROFILE_BUILD=DIR [PROFILE_TOOL=emu|ncu] sh common/profile.sh PROGRAM..." >&2
    exit 2
fi
case $tool in
    emu) ;;
    ncu)
        if ! command -v ncu >/dev/null 2>&1; then
            echo "$program: ncu not found: install NVIDIA Nsight Compute (sudo apt-get install nsight-compute, or the CUDA Toolkit's installer) and put ncu on PATH" >&2
            exit 1
        fi ;;
    *) echo "$program: PROFILE_TOOL=$tool: expected emu or ncu" >&2; exit 2 ;;
esac

# The metrics of the table, as Nsight Compute names them (runtime/profile.cpp counts the same).
metrics="launch__grid_size,launch__block_size,launch__shared_mem_per_block_static"
metrics="$metrics,launch__shared_mem_per_block_dynamic"
metrics="$metrics,device__attribute_multiprocessor_count,launch__occupancy_limit_blocks"
metrics="$metrics,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem"
metrics="$metrics,launch__occupancy_limit_warps,sm__maximum_warps_per_active_cycle_pct"
metrics="$metrics,launch__waves_per_multiprocessor"
for op in ld st; do
    metrics="$metrics,l1tex__t_requests_pipe_lsu_mem_global_op_$op.sum"
    metrics="$metrics,l1tex__t_sectors_pipe_lsu_mem_global_op_$op.sum"
    metrics="$metrics,smsp__sass_data_bytes_mem_global_op_$op.sum"
    metrics="$metrics,smsp__inst_executed_op_shared_$op.sum"
    metrics="$metrics,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_$op.sum"
    metrics="$metrics,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_$op.sum"
done
metrics="$metrics,smsp__sass_inst_executed_op_branch.sum"
metrics="$metrics,smsp__sass_branch_targets_threads_divergent.sum"
metrics="$metrics,smsp__sass_branch_targets_threads_uniform.sum"
metrics="$metrics,smsp__thread_inst_executed_per_inst_executed.ratio"
metrics="$metrics,l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum"
metrics="$metrics,smsp__inst_executed_op_shared_atom.sum"

. "$(dirname "$0")/lesson-setting.sh"

# Nsight Compute's CSV (one row per kernel launch and metric) as the emulator's table: counts
# summed over a kernel's launches, the launch figures of its last, ratios from the sums.
ncu_table() {
    awk '
    function field(i) { return $i }
    BEGIN { FS = "\",\""; OFS = "" }
    /^"ID"/ {
        for (i = 1; i <= NF; i++) { name = $i; gsub(/"/, "", name); column[name] = i }
        next
    }
    !("Metric Name" in column) || !/^"/ { next }
    {
        kernel = $column["Kernel Name"]; gsub(/"/, "", kernel)
        # common/workbook.cu launches it once, to learn whether the build can run on this GPU
        if (kernel == "wb_probe_kernel") next
        metric = $column["Metric Name"]; gsub(/"/, "", metric)
        value = $column["Metric Value"]; gsub(/[",]/, "", value)
        id = $column["ID"]; gsub(/"/, "", id)
        if (!(kernel in seen)) { seen[kernel] = 1; order[++kernels] = kernel }
        if (!((kernel, id) in launch)) { launch[kernel, id] = 1; launches[kernel]++ }
        if (metric ~ /\.sum$/) total[kernel, metric] += value
        else last[kernel, metric] = value
    }
    function row(metric, value, label, fraction) {
        printf "  %-70s %12s  %s\n", metric, fraction ? sprintf("%.2f", value) : sprintf("%d", value), label
    }
    function ratio(a, b) { return b ? a / b : 0 }
    END {
        for (k = 1; k <= kernels; k++) {
            n = order[k]
            printf "\nncu profile: kernel %s, %d launch%s (Nsight Compute on this GPU)\n", n, launches[n], launches[n] == 1 ? "" : "es"
            print " launch:"
            row("launch__grid_size", last[n, "launch__grid_size"], "blocks in the grid")
            row("launch__block_size", last[n, "launch__block_size"], "threads per block")
            if ((n, "launch__shared_mem_per_block_static") in last)
                row("launch__shared_mem_per_block_static", last[n, "launch__shared_mem_per_block_static"], "bytes of static shared memory per block (its __shared__ variables)")
            row("launch__shared_mem_per_block_dynamic", last[n, "launch__shared_mem_per_block_dynamic"], "bytes of dynamic shared memory per block")
            row("device__attribute_multiprocessor_count", last[n, "device__attribute_multiprocessor_count"], "SMs of this GPU")
            least = last[n, "launch__occupancy_limit_blocks"] + 0
            split("registers shared_mem warps", limits, " ")
            for (l in limits) {
                limit = last[n, "launch__occupancy_limit_" limits[l]] + 0
                if (limit < least) least = limit
            }
            row("min(launch__occupancy_limit_*)", least, "blocks an SM holds at once (occupancy model)")
            row("sm__maximum_warps_per_active_cycle_pct", last[n, "sm__maximum_warps_per_active_cycle_pct"], "theoretical occupancy: % of an SM'"'"'s warps", 1)
            row("launch__waves_per_multiprocessor", last[n, "launch__waves_per_multiprocessor"], "waves: blocks / (blocks per SM x SMs)", 1)
            split("ld st", ops, " "); split("load store", verbs, " ")
            for (o = 1; o <= 2; o++) {
                op = ops[o]; requests = total[n, "l1tex__t_requests_pipe_lsu_mem_global_op_" op ".sum"]
                if (!requests) continue
                sectors = total[n, "l1tex__t_sectors_pipe_lsu_mem_global_op_" op ".sum"]
                bytes = total[n, "smsp__sass_data_bytes_mem_global_op_" op ".sum"]
                print " global memory, " verbs[o] "s:"
                row("l1tex__t_requests_pipe_lsu_mem_global_op_" op ".sum", requests, "requests: one per warp per " verbs[o] " executed")
                row("l1tex__t_sectors_pipe_lsu_mem_global_op_" op ".sum", sectors, "32-byte sectors touched")
                row("l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_" op ".ratio", ratio(sectors, requests), "sectors per request: 4 for 32 consecutive floats, up to 32", 1)
                row("smsp__sass_data_bytes_mem_global_op_" op ".sum", bytes, "bytes the threads asked for")
                row("l1tex__t_bytes_pipe_lsu_mem_global_op_" op ".sum", sectors * 32, "bytes in the sectors moved")
                row("smsp__sass_average_data_bytes_per_sector_mem_global_op_" op ".pct", 100 * ratio(bytes, sectors * 32), "% of the moved bytes asked for (coalescing)", 1)
            }
            for (o = 1; o <= 2; o++) {
                op = ops[o]; requests = total[n, "smsp__inst_executed_op_shared_" op ".sum"]
                if (!requests) continue
                wavefronts = total[n, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_" op ".sum"]
                print " shared memory, " verbs[o] "s:"
                row("smsp__inst_executed_op_shared_" op ".sum", requests, "requests: one per warp per " verbs[o] " executed")
                row("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_" op ".sum", wavefronts, "wavefronts: an n-way bank conflict takes n")
                row("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_" op ".sum", total[n, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_" op ".sum"], "bank conflicts: wavefronts beyond the fewest possible")
                row("(" op " wavefronts / requests)", ratio(wavefronts, requests), "wavefronts per request: 1 without conflicts, up to 32", 1)
            }
            branches = total[n, "smsp__sass_inst_executed_op_branch.sum"]
            if (branches) {
                print " divergence:"
                row("smsp__sass_inst_executed_op_branch.sum", branches, "branches executed by warps (every branch instruction)")
                row("smsp__sass_branch_targets_threads_divergent.sum", total[n, "smsp__sass_branch_targets_threads_divergent.sum"], "divergent: the warp'"'"'s lanes went both ways")
                row("smsp__sass_branch_targets_threads_uniform.sum", total[n, "smsp__sass_branch_targets_threads_uniform.sum"], "uniform: all lanes went one way")
            }
            global_atomics = total[n, "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum"]
            shared_atomics = total[n, "smsp__inst_executed_op_shared_atom.sum"]
            if (global_atomics || shared_atomics) {
                print " atomics:"
                row("l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum", global_atomics, "global atomic requests: one per warp per atomic executed")
                row("smsp__inst_executed_op_shared_atom.sum", shared_atomics, "shared atomic requests")
            }
            if ((n, "smsp__thread_inst_executed_per_inst_executed.ratio") in last)
                row("smsp__thread_inst_executed_per_inst_executed.ratio", last[n, "smsp__thread_inst_executed_per_inst_executed.ratio"], "active threads per warp instruction (all instructions; 32 is all)", 1)
        }
    }'
}

output=$(mktemp "${TMPDIR:-/tmp}/profile.XXXXXX") || exit 1
# Ctrl-C or a time limit stops the run (a trapped signal alone would clean up and go on)
trap 'rm -f "$output"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
failed=0
if [ "$tool" = emu ]; then
    echo "$program: emucc --profile, programs in $build (CPU emulation: counts, not timings)"
else
    echo "$program: Nsight Compute (ncu), programs in $build"
fi
for name in "$@"; do
    if [ ! -x "$build/$name" ]; then
        echo "  $name: not built in $build" >&2
        failed=1
        continue
    fi
    arguments=$(lesson_setting "$name" PROFILE_ARGS)
    launch=$(lesson_setting "$name" PROFILE_LAUNCH)
    echo ""
    echo "==== $name $arguments"
    # shellcheck disable=SC2086  # the launcher and the arguments are lists of words
    if [ "$tool" = emu ]; then
        # the lesson's report (stdout) times the CPU, which means nothing here: only its failed
        # checks are shown; the tables come on stderr
        $launch "$build/$name" $arguments > "$output" 2> "$output.tables"
        status=$?
        grep -E 'FAIL' "$output" | head -n 20
        cat "$output.tables"
        rm -f "$output.tables"
    else
        # (--cache warm: ncu empties the caches before each kernel it measures, and
        # the lesson's own emptying would be one more kernel in the table)
        $launch ncu --csv --print-kernel-base function --metrics "$metrics" --log-file "$output.csv" \
            "$build/$name" $arguments --cache warm > "$output" 2>&1
        status=$?
        grep -E 'FAIL|==ERROR==' "$output" | head -n 20
        ncu_table < "$output.csv"
        rm -f "$output.csv"
    fi
    if [ "$status" -ne 0 ]; then
        echo "  $name: FAILED (exit status $status)"
        failed=1
    fi
done
if [ "$failed" -ne 0 ]; then
    echo "$program: some programs failed (see above)" >&2
    exit 1
fi
