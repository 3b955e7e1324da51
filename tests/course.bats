#!/usr/bin/env bats
# COURSE.md against itself: the table of GPU limits by compute capability, the figures the
# chapters quote from it (recomputed here from the table's numbers, so that a number changed in
# one place only fails), lesson 01's figures against the reference CSV, every measured table
# against its results file (tests/course_tables.awk), the README's reference figures against
# theirs, and the links.

setup() {
    load test_helper
    COURSE="$REPO/COURSE.md"
    # the text with every run of spaces and line breaks made one space: a phrase the text wraps
    # over two lines is still found
    PROSE=$(tr -s '[:space:]' ' ' <"$COURSE")
    CAPABILITIES="7.5 8.0 8.6 8.9 9.0"
    # the chapter with the tables, read once
    LIMITS="$BATS_TEST_TMPDIR/limits.md"
    awk '/^## GPU limits by compute capability/ { chapter = 1; next }
         chapter && /^## / { exit }
         chapter' "$COURSE" >"$LIMITS"
}

# table HEADER ROW COLUMN: the cell of a table in the chapter "GPU limits by compute capability",
# the table whose first header cell is HEADER, in the row whose first cell is ROW.
table() {
    awk -F' *[|] *' -v header="$1" -v row="$2" -v column="$3" '
        $2 == header { for (i = 2; i < NF; i++) index_of[$i] = i; inside = 1; next }
        inside && !/^[|]/ { inside = 0 }
        inside && $2 == row && (column in index_of) { print $(index_of[column]); found = 1; exit }
        END { if (!found) exit 1 }' "$LIMITS" ||
        { echo "COURSE.md: no '$2' row with a '$3' column in the table of '$1'" >&2; return 1; }
}

# number CELL: the cell's number without thousands separators and unit: "1,590 MHz" -> 1590
number() {
    local value=${1//,/}
    echo "${value%% *}"
}

# limit CAPABILITY ROW: a number of the table of limits
limit() {
    local cell
    cell=$(table limit "$2" "$1") || return 1
    number "$cell"
}

# part NAME COLUMN: a number of the table of typical parts (NAME: the whole first cell)
part() {
    local cell
    cell=$(table part "$1" "$2") || return 1
    number "$cell"
}

# with_commas 270336 -> 270,336
with_commas() {
    sed ':a;s/\B[0-9]\{3\}\>/,&/;ta' <<<"$1"
}

# assert_prose PHRASE...: each phrase is in COURSE.md, wherever its lines wrap
assert_prose() {
    local phrase
    for phrase in "$@"; do
        grep -qF -- "$phrase" <<<"$PROSE" || {
            echo "COURSE.md does not say: $phrase" >&2
            return 1
        }
    done
}

# calc EXPRESSION [FORMAT]: awk arithmetic, printed with FORMAT (default %d)
calc() {
    awk "BEGIN { printf \"${2:-%d}\", $1 }"
}

# registers_per_warp CAPABILITY REGISTERS: a warp's registers, rounded up to the allocation unit
registers_per_warp() {
    local unit
    unit=$(limit "$1" "register allocation unit, per warp") || return 1
    calc "int(($2 * 32 + $unit - 1) / $unit) * $unit"
}

# warps_by_registers CAPABILITY REGISTERS: the warps an SM holds as registers allow, counted per
# sub-partition as cuda_occupancy.h counts them
warps_by_registers() {
    local per_warp per_partition partitions
    per_warp=$(registers_per_warp "$1" "$2") || return 1
    per_partition=$(limit "$1" "registers per sub-partition") || return 1
    partitions=$(limit "$1" "sub-partitions per SM (one warp scheduler each)") || return 1
    calc "int($per_partition / $per_warp) * $partitions"
}

# blocks_per_sm CAPABILITY REGISTERS THREADS_PER_BLOCK: the smallest of the thread, block and
# register limits (the kernels here use no shared memory)
blocks_per_sm() {
    local threads blocks warps
    threads=$(limit "$1" "threads per SM") || return 1
    blocks=$(limit "$1" "blocks per SM") || return 1
    warps=$(warps_by_registers "$1" "$2") || return 1
    awk -v threads="$threads" -v blocks="$blocks" -v warps="$warps" -v size="$3" 'BEGIN {
        least = int(threads / size)
        if (blocks < least) least = blocks
        by_registers = int(warps / int((size + 31) / 32))
        if (by_registers < least) least = by_registers
        print least }'
}

@test "the table of limits has every compute capability the course supports, consistent with itself" {
    local cc name
    for cc in $CAPABILITIES; do
        threads=$(limit "$cc" "threads per SM")
        warps=$(limit "$cc" "warps per SM")
        [ "$((warps * 32))" -eq "$threads" ] || { echo "$cc: $warps warps are not $threads threads"; false; }
        registers=$(limit "$cc" "registers per SM (32-bit)")
        partitions=$(limit "$cc" "sub-partitions per SM (one warp scheduler each)")
        [ "$((registers / partitions))" -eq "$(limit "$cc" "registers per sub-partition")" ]
        fp32=$(limit "$cc" "FP32 lanes per SM (FP32 results per clock)")
        fp64=$(limit "$cc" "FP64 results per clock per SM")
        [ "$(limit "$cc" "FP64 : FP32")" = "1/$((fp32 / fp64))" ]
        per_block=$(limit "$cc" "shared memory per block, with opt-in")
        [ "$per_block" -le "$(limit "$cc" "shared memory per SM")" ]
    done
    # each part's FP32 peak is its SMs x its capability's FP32 lanes x 2 FLOP x its boost clock
    for name in "NVIDIA T4" "NVIDIA A100 SXM4 80GB" "GeForce RTX 3060" "GeForce RTX 4090" \
        "NVIDIA L4" "NVIDIA H100 SXM5 80GB, the reference H100"; do
        cc=$(table part "$name" "compute capability")
        lanes=$(limit "$cc" "FP32 lanes per SM (FP32 results per clock)")
        peak=$(calc "$(part "$name" SMs) * $lanes * 2 * $(part "$name" "boost clock") / 1e6" %.1f)
        [ "$peak" = "$(part "$name" "FP32 peak")" ] || { echo "$name: the FP32 peak is $peak"; false; }
    done
}

@test "the table's occupancy method is cuda_occupancy.h's: both give the chapters' block counts" {
    local header compiler="${CXX:-g++}"
    header="$(dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")/../include/cuda_occupancy.h"
    [ -f "$header" ] || skip "no cuda_occupancy.h (the CUDA Toolkit's) at $header"
    command -v "$compiler" >/dev/null || skip "no C++ compiler ($compiler)"
    cat >"$BATS_TEST_TMPDIR/occupancy.cpp" <<'EOF'
#include <cstdio>
#include <cstdlib>
#include <cuda_occupancy.h>
// occupancy MAJOR MINOR THREADS_PER_SM REGISTERS_PER_SM SHARED_PER_SM_KB REGISTERS BLOCK_SIZE:
// the blocks per SM that NVIDIA's occupancy calculator gives
int main(int argc, char **argv)
{
    if (argc != 8) return 2;
    cudaOccDeviceProp device;
    device.computeMajor = atoi(argv[1]);
    device.computeMinor = atoi(argv[2]);
    device.maxThreadsPerBlock = 1024;
    device.maxThreadsPerMultiprocessor = atoi(argv[3]);
    device.regsPerBlock = device.regsPerMultiprocessor = atoi(argv[4]);
    device.warpSize = 32;
    device.sharedMemPerBlock = 48 * 1024;
    device.sharedMemPerMultiprocessor = device.sharedMemPerBlockOptin = atoi(argv[5]) * 1024;
    device.numSms = 1;
    cudaOccFuncAttributes kernel;
    kernel.maxThreadsPerBlock = 1024;
    kernel.numRegs = atoi(argv[6]);
    cudaOccDeviceState state;
    cudaOccResult result;
    if (cudaOccMaxActiveBlocksPerMultiprocessor(&result, &device, &kernel, &state, atoi(argv[7]), 0)
        != CUDA_OCC_SUCCESS) return 1;
    printf("%d\n", result.activeBlocksPerMultiprocessor);
    return 0;
}
EOF
    "$compiler" -I"$(dirname "$header")" -o "$BATS_TEST_TMPDIR/occupancy" "$BATS_TEST_TMPDIR/occupancy.cpp"
    for cc in $CAPABILITIES; do
        for kernel in "32 1024" "34 256" "34 64" "32 32"; do
            set -- $kernel
            expected=$("$BATS_TEST_TMPDIR/occupancy" "${cc%.*}" "${cc#*.}" \
                "$(limit "$cc" "threads per SM")" "$(limit "$cc" "registers per SM (32-bit)")" \
                "$(limit "$cc" "shared memory per SM")" "$1" "$2")
            actual=$(blocks_per_sm "$cc" "$1" "$2")
            [ "$actual" = "$expected" ] ||
                { echo "$cc, $1 registers, blocks of $2: the table gives $actual blocks, cuda_occupancy.h $expected"; false; }
        done
    done
}

@test "the emulator's GPU models (CUDA_EMU_DEVICE) are the tables' parts, limits and occupancy" {
    cat >"$BATS_TEST_TMPDIR/model.cu" <<'EOF'
#include <cstdio>
#include <cstdlib>
__global__ void kernel() {}
// model BLOCK_SIZE: what the emulated device reports, and the blocks of BLOCK_SIZE an SM holds
int main(int argc, char **argv)
{
    cudaDeviceProp p;
    int clock_khz = 0, fp32_per_fp64 = 0, blocks = 0;
    if (argc != 2 || cudaGetDeviceProperties(&p, 0) != cudaSuccess ||
        cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0) != cudaSuccess ||
        cudaDeviceGetAttribute(&fp32_per_fp64, cudaDevAttrSingleToDoublePrecisionPerfRatio, 0) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, atoi(argv[1]), 0) != cudaSuccess)
        return 1;
    printf("%s|%d.%d|%d|%d|%d|%d|%d|%zu|%zu|%d|%d\n", p.name, p.major, p.minor, p.multiProcessorCount,
           clock_khz / 1000, p.maxThreadsPerMultiProcessor, p.maxBlocksPerMultiProcessor,
           p.regsPerMultiprocessor, p.sharedMemPerMultiprocessor / 1024, p.sharedMemPerBlockOptin / 1024,
           fp32_per_fp64, blocks);
    return 0;
}
EOF
    "$REPO/common/emu/emucc" -o "$BATS_TEST_TMPDIR/model" "$BATS_TEST_TMPDIR/model.cu"
    local key name cc
    for key in t4:"NVIDIA T4" a100:"NVIDIA A100 SXM4 80GB" rtx3060:"GeForce RTX 3060" \
        rtx4090:"GeForce RTX 4090" l4:"NVIDIA L4" h100:"NVIDIA H100 SXM5 80GB, the reference H100"; do
        name=${key#*:}
        key=${key%%:*}
        cc=$(table part "$name" "compute capability")
        local expected="CPU emulation of ${name%, the reference H100} on 1 CPU thread|$cc"
        expected+="|$(part "$name" SMs)|$(part "$name" "boost clock")"
        expected+="|$(limit "$cc" "threads per SM")|$(limit "$cc" "blocks per SM")"
        expected+="|$(limit "$cc" "registers per SM (32-bit)")|$(limit "$cc" "shared memory per SM")"
        expected+="|$(limit "$cc" "shared memory per block, with opt-in")"
        expected+="|$(limit "$cc" "FP64 : FP32" | cut -d/ -f2)"
        for kernel in "32 1024" "34 256" "34 64" "32 32"; do
            set -- $kernel
            CUDA_EMU_DEVICE=$key CUDA_EMU_WORKERS=1 CUDA_EMU_REGISTERS=$1 run "$BATS_TEST_TMPDIR/model" "$2"
            assert_success
            assert_output "$expected|$(blocks_per_sm "$cc" "$1" "$2")"
        done
    done
}

@test "lesson 06's occupancy arithmetic is the table's, registers counted per sub-partition" {
    local cc=9.0
    threads=$(limit $cc "threads per SM")
    blocks=$(limit $cc "blocks per SM")
    warps=$(limit $cc "warps per SM")
    partition=$(limit $cc "registers per sub-partition")
    partitions=$(limit $cc "sub-partitions per SM (one warp scheduler each)")
    # loop_warp_per_result: 32 registers, 1,024-thread blocks
    per_warp=$(registers_per_warp $cc 32)
    by_registers=$(warps_by_registers $cc 32)
    result=$(blocks_per_sm $cc 32 1024)
    assert_prose "| threads | $(with_commas "$threads") / 1,024 | $((threads / 1024)) |" \
        "| blocks | at most $blocks | $blocks |" \
        "| registers | 32 x 32 = $(with_commas "$per_warp") a warp; $(with_commas "$partition") / $(with_commas "$per_warp") = $((partition / per_warp)) warps a sub-partition, x $partitions = $by_registers warps; 32 a block | $((by_registers / 32)) |" \
        "The smallest limit is $result blocks = $((result * 32)) warps = $((result * 32 * 100 / warps))%."
    # loop_warp_per_result_ilp: 34 registers, 256-thread blocks; and the whole-SM shortcut
    per_warp=$(registers_per_warp $cc 34)
    by_registers=$(warps_by_registers $cc 34)
    shortcut=$(( $(limit $cc "registers per SM (32-bit)") / per_warp ))
    words=(none one two three four five six seven eight nine ten eleven twelve)
    assert_prose "34 x 32 = $(with_commas $((34 * 32))) registers, rounded up to $(with_commas "$per_warp")." \
        "$(with_commas "$partition") / $(with_commas "$per_warp") = $((partition / per_warp)) warps ($(calc "$partition / $per_warp" %.1f), rounded down), the SM $((partition / per_warp)) x $partitions = $by_registers warps: ${words[$(blocks_per_sm $cc 34 256)]} 256-thread blocks, $((by_registers * 100 / warps))%." \
        "$(with_commas "$(limit $cc "registers per SM (32-bit)")") / $(with_commas "$per_warp") = $shortcut warps, is the wrong method" \
        "for 256-thread blocks it also gives ${words[$((shortcut / 8))]}, but for 64-thread blocks it would promise $((shortcut / 2)) blocks where $(blocks_per_sm $cc 34 64) fit."
    [ "$((shortcut / 8))" -eq "$(blocks_per_sm $cc 34 256)" ]
    [ "$((shortcut / 2))" -ne "$(blocks_per_sm $cc 34 64)" ]
    # the SM of the diagram, and the warp slots occupancy counts against
    assert_prose "$(with_commas "$threads") threads = $warps warps of 32" \
        "$(with_commas "$(limit $cc "registers per SM (32-bit)")") registers" \
        "$(limit $cc "shared memory per SM") KB shared memory" \
        "resident warps / $(limit 8.0 "warps per SM") on 8.0 and 9.0, / $(limit 8.6 "warps per SM") on 8.6 and 8.9, / $(limit 7.5 "warps per SM") on 7.5." \
        "an RTX 3060's SMs (8.6) hold $(with_commas "$(limit 8.6 "threads per SM")") threads and $(limit 8.6 "blocks per SM") blocks, a T4's (7.5) $(with_commas "$(limit 7.5 "threads per SM")") threads and $(limit 7.5 "blocks per SM") blocks"
    [ "$(limit 8.0 "warps per SM")" -eq "$warps" ] && [ "$(limit 8.9 "warps per SM")" -eq "$(limit 8.6 "warps per SM")" ]
    # the ilp launch: one 256-thread block, 8 warps, per SM
    assert_prose "8 of $warps warps on the reference H100, $(calc "800 / $warps" %.1f)% occupancy (8 of $(limit 8.6 "warps per SM") on 8.6 and 8.9, 8 of $(limit 7.5 "warps per SM") on 7.5)"
}

@test "blocks of one warp: the occupancy the chapters give for every compute capability" {
    local cc piece sentence=""
    for cc in $CAPABILITIES; do
        blocks=$(blocks_per_sm "$cc" 32 32)
        warps=$(limit "$cc" "warps per SM")
        pct=$(calc "100 * $blocks / $warps" %.0f)
        piece="$blocks of $warps ($pct%) on $cc"
        [ -n "$sentence" ] || piece="$blocks of $warps warps ($pct%) on $cc"
        sentence="${sentence:+$sentence, }$piece"
    done
    # "a, b, c, d and e"
    sentence=$(sed 's/\(.*\), /\1 and /' <<<"$sentence")
    assert_prose "an SM holds no more warps than blocks: $sentence."
    # the limits chapter groups the capabilities with the same figures
    assert_prose "$(blocks_per_sm 7.5 32 32) of $(limit 7.5 "warps per SM") on 7.5, $(blocks_per_sm 8.0 32 32) of $(limit 8.0 "warps per SM") on 8.0 and 9.0, $(blocks_per_sm 8.6 32 32) of $(limit 8.6 "warps per SM") on 8.6, $(blocks_per_sm 8.9 32 32) of $(limit 8.9 "warps per SM") on 8.9"
    [ "$(blocks_per_sm 8.0 32 32)/$(limit 8.0 "warps per SM")" = "$(blocks_per_sm 9.0 32 32)/$(limit 9.0 "warps per SM")" ]
    # lesson 06's question 3: the reference H100, and an RTX 3060
    assert_prose "32-block limit per SM: $(blocks_per_sm 9.0 32 32) blocks x 1 warp = $(blocks_per_sm 9.0 32 32) of $(limit 9.0 "warps per SM") warps, $(calc "100 * $(blocks_per_sm 9.0 32 32) / $(limit 9.0 "warps per SM")" %.0f)%." \
        "On an RTX 3060 (8.6) it is $(blocks_per_sm 8.6 32 32) blocks: $(blocks_per_sm 8.6 32 32) of $(limit 8.6 "warps per SM") warps, $(calc "100 * $(blocks_per_sm 8.6 32 32) / $(limit 8.6 "warps per SM")" %.0f)%."
}

@test "the reference H100's figures in the chapters are the table's" {
    local h100="NVIDIA H100 SXM5 80GB, the reference H100"
    sms=$(part "$h100" SMs)
    clock=$(calc "$(part "$h100" "boost clock") / 1000" %.2f)
    bandwidth=$(part "$h100" "memory bandwidth")
    lanes=$(limit 9.0 "FP32 lanes per SM (FP32 results per clock)")
    peak=$(part "$h100" "FP32 peak")
    ridge=$(calc "$peak * 1000 / $bandwidth" %.0f)
    assert_prose "$sms SMs x $lanes FP32 lanes x 2 FLOP x $clock GHz = $peak TFLOP/s and $(with_commas "$bandwidth") GB/s" \
        "$peak TFLOP/s / $(with_commas "$bandwidth") GB/s = $ridge FLOP per byte" \
        "needs $ridge ($peak TFLOP/s over $(with_commas "$bandwidth") GB/s, its ridge point)" \
        "the ridge point, $ridge FLOP per byte on the reference H100, so at D = $ridge x 8 / 2 = $((ridge * 8 / 2))." \
        "Only past that, from D = $((ridge * 8 / 2)), does the time grow with D"
    # the A100's ridge, in the same chapter
    a100="NVIDIA A100 SXM4 80GB"
    assert_prose "$(part "$a100" "FP32 peak") TFLOP/s / $(with_commas "$(part "$a100" "memory bandwidth")") GB/s = $(calc "$(part "$a100" "FP32 peak") * 1000 / $(part "$a100" "memory bandwidth")" %.1f) on the A100"
    # lesson 03's memories
    shared=$(limit 9.0 "shared memory per SM")
    unified=$(limit 9.0 "L1 and shared memory per SM (one unified data cache)")
    l2=$(part "$h100" L2)
    assert_prose "up to $shared KB per SM, carved out of the SM's $unified KB" \
        "L2 cache $l2 MB, shared by all $sms SMs" \
        "$(with_commas "$bandwidth") GB/s theoretical" \
        "64 Ki x 32-bit per SM (256 KB), up to $(limit 9.0 "registers per thread, at most") per thread" \
        "constant memory $(limit 9.0 "constant memory") KB"
    [ "$(limit 9.0 "registers per SM (32-bit)")" -eq 65536 ]
    banks=$(limit 9.0 "shared-memory banks, 4 bytes wide")
    assert_prose "roughly $(calc "$banks * 4 * $sms * $clock / 1000" %.0f) TB/s of shared-memory bandwidth ($banks banks of 4 bytes, $((banks * 4)) bytes per clock per SM, x $sms SMs x $clock GHz)"
    # lessons 01, 02, 07 and the grid
    assert_prose "the reference H100 ($sms SMs, $clock GHz" \
        "2.7 times the reference H100's $l2 MB L2" \
        "$(with_commas $((sms * $(limit 9.0 "threads per SM")))) thread slots of the reference H100 ($sms SMs x $(with_commas "$(limit 9.0 "threads per SM")"))" \
        "a GPU with $(part "GeForce RTX 3060" SMs) SMs (an RTX 3060) and one with $sms (the reference H100"
    [ "$(calc "132.7 / $l2" %.1f)" = 2.7 ]
}

@test "the tiled kernel's ceiling, the FP64 ratios and the shared-memory opt-in follow from the table" {
    local cc eighth=() quarter=()
    # one warp-wide 4-byte load per clock from the banks, two per FMA, against lanes / 32 FMAs
    for cc in $CAPABILITIES; do
        loads=$(calc "$(limit "$cc" "shared-memory banks, 4 bytes wide") * 4 / 128")
        lanes=$(limit "$cc" "FP32 lanes per SM (FP32 results per clock)")
        case $(calc "$lanes / 32 * 2 / $loads") in
            8) eighth+=("$cc") ;;
            4) quarter+=("$cc") ;;
            *) echo "$cc: a ceiling the text does not give"; false ;;
        esac
    done
    assert_prose "cannot pass 1/8 of the FP32 peak on compute capability ${eighth[0]}, ${eighth[1]} and ${eighth[2]} (128 lanes), or 1/4 on ${quarter[0]} and ${quarter[1]} (64 lanes" \
        "below $(calc "$(part "NVIDIA H100 SXM5 80GB, the reference H100" "FP32 peak") / 8" %.1f) TFLOP/s"
    [ "${#eighth[@]}" -eq 3 ] && [ "${#quarter[@]}" -eq 2 ]
    # FP64
    [ "$(limit 8.0 "FP64 : FP32")" = 1/2 ] && [ "$(limit 9.0 "FP64 : FP32")" = 1/2 ]
    [ "$(limit 8.6 "FP64 : FP32")" = "$(limit 8.9 "FP64 : FP32")" ]
    assert_prose "at $(limit 8.6 "FP64 : FP32") of FP32 on 8.6 and 8.9 (RTX 30 and 40, the L4), at $(limit 7.5 "FP64 : FP32") on 7.5 (RTX 20, the T4)" \
        "rate on compute capability 8.6 and 8.9 (RTX 30 and 40), $(limit 7.5 "FP64 : FP32") on 7.5 (RTX 20)"
    rtx4090=$(part "GeForce RTX 4090" "FP32 peak")
    ratio=$(limit 8.9 "FP64 : FP32")
    assert_prose "An RTX 4090's $rtx4090 TFLOP/s FP32 are about $(calc "$rtx4090 / ${ratio#1/}" %.1f) TFLOP/s FP64"
    # lesson 03: the opt-in per block, and STEPS_PER_LAUNCH 16 against the static limit
    assert_prose "$(limit 7.5 "shared memory per block, with opt-in") KB on 7.5, $(limit 8.0 "shared memory per block, with opt-in") KB on 8.0, $(limit 8.6 "shared memory per block, with opt-in") KB on 8.6 and 8.9, $(limit 9.0 "shared memory per block, with opt-in") KB on 9.0."
    [ "$(limit 8.6 "shared memory per block, with opt-in")" = "$(limit 8.9 "shared memory per block, with opt-in")" ]
    diffusion="$REPO/lessons/03-diffusion/diffusion.cu"
    columns=$(sed -n 's/^#define OUT_COLUMNS \([0-9]*\).*/\1/p' "$diffusion")
    rows=$(sed -n 's/^#define OUT_ROWS \([0-9]*\).*/\1/p' "$diffusion")
    static=$(limit 9.0 "shared memory per block, static or without opt-in")
    bytes=$((2 * (columns + 32) * (rows + 32) * 4))
    assert_prose "At 16 the two buffers take 2 x $((columns + 32)) x $((rows + 32)) x 4 = $(with_commas $bytes) bytes, exactly $static KB"
    [ "$bytes" -eq $((static * 1024)) ]
}

@test "lesson 01's figures in COURSE.md are those of the reference CSV" {
    csv="$REPO/plots/reference/nvidia-h100-80gb-hbm3.csv"
    # value VARIANT SCOPE SIZE COLUMN, from the CSV by column name
    value() {
        awk -F, -v variant="$1" -v scope="$2" -v size="$3" -v name="$4" '
            NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
            $c["lesson"] == "lesson01" && $c["variant"] == variant && $c["scope"] == scope &&
                $c["size"] == size { print $c[name] }' "$csv"
    }
    speedup() {
        local s
        s=$(value optimized kernel "$1" speedup)
        calc "$s" "$(awk -v s="$s" 'BEGIN { print (s < 10 ? "%.1f" : "%.0f") }')"
    }
    assert_prose "the optimized kernel is $(speedup 4000000)x the CPU at 4M, $(speedup 16000000)x at 16M and $(speedup 64000000)x at 64M" \
        "its $(calc "$(value cpu host 1000000 gbps)" %.0f) GB/s at 1M fall to $(calc "$(value cpu host 4000000 gbps)" %.0f) at 4M and $(calc "$(value cpu host 64000000 gbps)" %.0f) at 64M" \
        "At 1k elements the kernel takes $(calc "$(value naive kernel 1000 median_ms) * 1000" %.1f) us whatever it does"
}

@test "every measured table of the lesson chapters shows its reference results file's figures" {
    local h100="$REPO/plots/reference/nvidia-h100-80gb-hbm3.csv" h200="$REPO/plots/reference/nvidia-h200/nvidia-h200.csv"
    run awk -f "$REPO/tests/course_tables.awk" "$h100" "$h200" "$COURSE"
    assert_success
    # lessons 01 to 09: one table each, lesson 07 three; some 670 medians, rates, % and speedups
    assert_output --regexp "^checked [0-9]+ cells in [0-9]+ tables$"
    local cells tables
    read -r cells tables < <(awk '{ print $2, $5 }' <<<"$output")
    [ "$tables" -ge 10 ] && [ "$cells" -ge 500 ] || fail "only $cells cells in $tables tables: $output"
    # one figure changed in the text, a median, a speedup, a copy's GB/s, or a size no run had:
    # each is named
    local changed="$BATS_TEST_TMPDIR/COURSE.md"
    sed 's/^\(| 10,000 x 10,000 | optimized | kernel | \)42.9 us/\143.5 us/;
         s/^\(| 320x240 | naive | kernel | 0.215 ms | 13.5 us | 22.8 | 0.5 | 12.9 | \)4.69x/\14.96x/;
         s/^| 64M (256 MB) | 30.1 ms, 8.5 |/| 64M (256 MB) | 30.1 ms, 8.7 |/;
         s/^| 128 | tiled | kernel |/| 129 | tiled | kernel |/' "$COURSE" >"$changed"
    run awk -f "$REPO/tests/course_tables.awk" "$h100" "$h200" "$changed"
    assert_failure
    assert_line --regexp "^COURSE.md:[0-9]+: lesson06 optimized kernel at 10,000 x 10,000: median shows 43.5 us, the results say 0.042944$"
    assert_line --regexp "^COURSE.md:[0-9]+: lesson08 naive kernel at 320x240: speedup over cpu shows 4.96x, the results say 4.6887$"
    assert_line --regexp "^COURSE.md:[0-9]+: lesson07-bandwidth h2d transfers at 64M \(256 MB\): GB/s shows 8.7, the results say 8.49521$"
    assert_line --regexp "^COURSE.md:[0-9]+: lesson04 tiled kernel at 129: no such row in the results$"
}

@test "the README's reference figures are those of the reference results files" {
    local h200="$REPO/plots/reference/nvidia-h200" h100="$REPO/plots/reference/nvidia-h100-80gb-hbm3.csv"
    local readme
    readme=$(tr -s '[:space:]' ' ' <"$REPO/README.md")
    # value FILE LESSON VARIANT SCOPE SIZE COLUMN: the file's row's column, by name
    value() {
        awk -F, -v lesson="$2" -v variant="$3" -v scope="$4" -v size="$5" -v name="$6" '
            NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
            $c["lesson"] == lesson && $c["variant"] == variant && $c["scope"] == scope &&
                $c["size"] == size { found = $c[name] }
            END { if (found == "") exit 1; print found }' "$1" ||
            fail "$1 has no $6 for $2 $3 $4 at $5"
    }
    h200() { value "$h200/nvidia-h200.csv" "$@"; }
    target() { value "$h200/targets.csv" "$@"; }
    rounded() { with_commas "$(calc "$1" "${2:-%.0f}")"; }
    says() { grep -qF -- "$1" <<<"$readme" || fail "README.md does not say: $1"; }

    says "$(rounded "$(h200 lesson01 optimized kernel 64000000 gbps)") GB/s at 64M, $(rounded "$(h200 lesson01 optimized kernel 64000000 pct_peak)")% of peak, $(rounded "$(h200 lesson01 optimized kernel 64000000 speedup)")x the CPU (H100: $(rounded "$(value "$h100" lesson01 optimized kernel 64000000 gbps)") GB/s, $(rounded "$(value "$h100" lesson01 optimized kernel 64000000 pct_peak)")%, $(rounded "$(value "$h100" lesson01 optimized kernel 64000000 speedup)")x)"
    local image=15360x8640
    says "$(rounded "$(h200 lesson02 optimized kernel $image gbps)") GB/s at $image, $(rounded "$(h200 lesson02 optimized kernel $image pct_peak)")% of peak, $(rounded "$(h200 lesson02 optimized kernel $image pct_copy)")% of a device copy, $(rounded "$(h200 lesson02 optimized kernel $image speedup)")x the CPU"
    says "registers $(rounded "$(h200 lesson03 registers kernel 8192x8192 gbps)") GB/s at 8192^2, $(rounded "$(h200 lesson03 registers kernel 8192x8192 pct_copy)")% of a device copy"
    says "$(rounded "$(h200 lesson03 registers kernel 8192x8192 speedup)")x the CPU; the 2000^2 seed problem in $(rounded "$(target lesson03 registers kernel 2000x2000 median_ms)") ms (target 0.1 s: met)"
    local cube=8192x8192x8192 warptiled cublas
    warptiled=$(h200 lesson04 warptiled kernel $cube gflops) cublas=$(h200 lesson04 cublas library $cube gflops)
    says "warptiled $(calc "$warptiled / 1000" %.1f) TFLOP/s at 8192^3, $(rounded "100 * $warptiled / $cublas")% of cuBLAS, $(rounded "$(h200 lesson04 warptiled kernel $cube speedup)")x the CPU (target 90% at 4096^3: $(calc "100 * $(target lesson04 warptiled kernel 4096x4096x4096 gflops) / $(target lesson04 cublas library 4096x4096x4096 gflops)" %.1f)%, missed)"
    local sum=268435456
    says "last-block $(rounded "$(h200 lesson05 last-block kernel $sum gbps)") GB/s at 2^28, $(rounded "$(h200 lesson05 last-block kernel $sum pct_peak)")% of peak, $(rounded "100 * $(h200 lesson05 last-block kernel $sum gbps) / $(h200 lesson05 cub library $sum gbps)")% of CUB, $(rounded "$(h200 lesson05 last-block kernel $sum speedup)")x the CPU"
    says "no-convert $(calc "$(h200 lesson06 no-convert kernel 100000x10000 median_ms)" %.3f) ms for 10^9 FP64 terms (100,000 x 10,000), $(rounded "$(h200 lesson06 no-convert kernel 100000x10000 pct_peak)")% of the FP64 peak, $(calc "$(target lesson06 naive kernel 10000x10000 median_ms) / $(target lesson06 no-convert kernel 10000x10000 median_ms)" %.1f)x naive at 10k x 10k (target 10x: missed), $(rounded "$(h200 lesson06 no-convert kernel 100000x10000 speedup)")x the CPU"
    says "pinned copies $(rounded "$(h200 lesson07-bandwidth h2d-pinned transfers 64000000 gbps)") GB/s each way (pageable: $(calc "$(h200 lesson07-bandwidth h2d transfers 64000000 gbps)" %.1f) / $(calc "$(h200 lesson07-bandwidth d2h transfers 64000000 gbps)" %.1f)); streams $(calc "$(h200 lesson07-overlap one-stream transfers 64000000 median_ms) / $(h200 lesson07-overlap streams transfers 64000000 median_ms)" %.2f)x one stream at 64M"
    local frame=7680x4320 frame4k=3840x2160
    says "shuffle kernel $(rounded "$(h200 lesson08 shuffle kernel $frame gbps)") GB/s at 8K, $(rounded "$(h200 lesson08 shuffle kernel $frame pct_copy)")% of a device copy (target 85% at 4K: $(rounded "100 * $(target lesson08 shuffle kernel $frame4k gbps) / $(target lesson08 device-copy library $frame4k gbps)")%, missed); pipeline $(rounded "$(h200 lesson08 optimized transfers $frame speedup)")x the CPU"
    says "one GPU only: $(rounded "$(h200 lesson09 optimized kernel 16384x16384 gbps)") GB/s at 16384^2"
}

@test "every link in COURSE.md and README.md leads somewhere: headings for #anchors, files for paths" {
    # GitHub's anchors: the heading in lower case, punctuation dropped, spaces made hyphens, a
    # repeated heading numbered -1, -2, ...; headings inside fenced code are no headings
    anchors=$(awk '/^```/ { fenced = !fenced; next }
        !fenced && /^#+ / {
            heading = tolower($0); sub(/^#+ /, "", heading)
            gsub(/[^a-z0-9 _-]/, "", heading); gsub(/ /, "-", heading)
            n = seen[heading]++; print (n ? heading "-" n : heading) }' "$COURSE")
    local missing=0 link file
    for link in $(grep -o '](#[^)]*)' "$COURSE" | sed 's/^](#//; s/)$//' | sort -u) \
        $(grep -o '](COURSE\.md#[^)]*)' "$REPO/README.md" | sed 's/^](COURSE\.md#//; s/)$//' | sort -u); do
        grep -qxF -- "$link" <<<"$anchors" || { echo "no heading for #$link"; missing=1; }
    done
    for file in $(grep -oh '](\([^)#:]*\)[)#]' "$COURSE" "$REPO/README.md" | sed 's/^](//; s/[)#]$//' | sort -u); do
        [ -e "$REPO/$file" ] || { echo "no file $file"; missing=1; }
    done
    [ "$missing" -eq 0 ]
    # the table of contents names the chapters this test is about
    for link in gpu-limits-by-compute-capability debugging-on-a-gpu glossary a-learning-path \
        on-your-own-what-to-know-first the-memory-hierarchy-at-a-glance; do
        head -n 30 "$COURSE" | grep -q -- "^ *[0-9-]*\.* *\[.*\](#$link)" ||
            { echo "not in the contents: #$link"; false; }
    done
}
