#!/bin/sh
# common/doctor.sh - the preflight check for a lab machine: make doctor
#
# Prints what the course needs and what this machine has: nvcc and the CUDA
# version it builds with, the host compiler, its OpenMP and whether nvcc
# accepts it, the NVIDIA driver and each GPU with its compute capability, the
# architecture and backend the build will use, and the test tools. Every
# problem comes with the next step to take. Exit status: 0 when the lessons
# can be built and run here (on a GPU or on the CPU emulator), 1 otherwise.
#
# The Makefile passes NVCC, CUDA_ARCH and BACKEND as it resolved them; CC and
# CXX, where a user set them, come in the environment.
#
# BRIEF=1 (make doctor BRIEF=1) prints one line instead, for a room of
# machines: the host, ready or NOT READY with what is wrong, the GPU or the
# emulator, nvcc's CUDA version and whether make test can run:
#
#   lab-07       ready  GPU 0: NVIDIA H100 80GB HBM3 (sm_90)  CUDA 13.0  tests: yes
#   lab-08       NOT READY (no nvcc; no stb_image (libstb-dev))  no GPU: CPU emulator  CUDA -  tests: no (missing bats)
#
# The full report ends with the same line, after "summary: ".

# in English in every locale: the compilers' messages, which the checks below read for "error"
export LC_ALL=C

NVCC=${NVCC:-nvcc}
problems=0
problem_names=""  # short, for the one-line summary

# problem NAME: one more thing that keeps the lessons from running here
problem() {
    problems=$((problems + 1))
    problem_names="${problem_names:+$problem_names; }$1"
}

# With BRIEF=1 the detailed report goes nowhere and only the summary line is printed.
exec 3>&1
[ "${BRIEF:-0}" = 1 ] && exec >/dev/null

say() { printf '%-14s %s\n' "$1" "$2"; }
next_step() { printf '%-14s -> %s\n' "" "$1"; }

echo "CUDA C Workbook: checking this machine"
echo

nvcc_version=$("$NVCC" --version 2>&1)
nvcc_cuda=$(echo "$nvcc_version" | sed -n 's/.*release \([0-9.]*\).*/\1/p')
if command -v "$NVCC" >/dev/null 2>&1 && [ -n "$nvcc_cuda" ]; then
    say "nvcc" "CUDA $nvcc_cuda ($(command -v "$NVCC"))"
    nvcc_ok=1
elif command -v "$NVCC" >/dev/null 2>&1; then
    # there, but it does not run: a toolkit removed under a link or a wrapper left behind
    say "nvcc" "$(command -v "$NVCC") does not run: $(echo "$nvcc_version" | head -n 1)"
    next_step "reinstall the CUDA Toolkit, or name a working nvcc (make NVCC=/usr/local/cuda/bin/nvcc),"
    next_step "or use the CPU emulator, which needs only g++: make BACKEND=emu lesson01"
    nvcc_cuda="" nvcc_ok=0
else
    say "nvcc" "not found (NVCC=$NVCC)"
    next_step "install the CUDA Toolkit and add its bin/ to PATH (export PATH=/usr/local/cuda/bin:\$PATH),"
    next_step "or use the CPU emulator, which needs only g++: make BACKEND=emu lesson01"
    nvcc_ok=0
fi

# openmp_problem COMPILER: nothing when COMPILER builds and runs an OpenMP
# program, else what went wrong (its first error)
openmp_problem() {
    probe=$(mktemp -d 2>/dev/null) || return 0
    printf '#include <omp.h>\nint main(void) { return omp_get_max_threads() < 1; }\n' >"$probe/omp.c"
    if ! "$1" -fopenmp -x c "$probe/omp.c" -o "$probe/omp" >"$probe/log" 2>&1; then
        grep -m 1 -i 'error' "$probe/log" || echo "its build failed"
    elif ! "$probe/omp" >/dev/null 2>&1; then
        echo "the program it built does not run"
    fi
    rm -rf "$probe"
}

# nvcc_problem: nothing when nvcc preprocesses a .cu file with its host
# compiler (CC when set), else nvcc's first error: each CUDA release supports
# host compilers up to a version, and refuses newer ones.
nvcc_problem() {
    probe=$(mktemp -d 2>/dev/null) || return 0
    printf '__global__ void kernel(void) {}\n' >"$probe/probe.cu"
    if ! "$NVCC" -std=c++20 ${CC:+-ccbin "$CC"} -E "$probe/probe.cu" -o /dev/null >"$probe/log" 2>&1; then
        grep -m 1 'error' "$probe/log" | sed 's/.*error: *//; s/^#error *-* *//; s/\(not supported!\).*/\1/' |
            cut -c 1-160
        grep -q 'error' "$probe/log" || echo "its run failed"
    fi
    rm -rf "$probe"
}

# The host compiler builds the CPU code: nvcc's (CC when set, as the Makefile
# gives it to -ccbin; else gcc, nvcc's default) or the emulator's (CXX, as
# emucc reads it; else g++). Every lesson's CPU version runs on all cores with
# OpenMP, which clang has only with libomp.
if [ "$BACKEND" = cuda ]; then
    host_compiler=${CC:-gcc} host_role="nvcc's host compiler${CC:+, CC}"
else
    host_compiler=${CXX:-g++} host_role="the emulator's host compiler${CXX:+, CXX}"
fi
if ! command -v "$host_compiler" >/dev/null 2>&1; then
    say "host compiler" "$host_compiler not found ($host_role)"
    next_step "install it: sudo apt-get install g++"
    problem "no $host_compiler"
else
    say "host compiler" "$("$host_compiler" --version 2>/dev/null | head -n 1) ($host_role)"
    openmp=$(openmp_problem "$host_compiler")
    if [ -n "$openmp" ]; then
        say "" "$host_compiler cannot build an OpenMP program: $openmp"
        case $host_compiler in
        *clang*) next_step "clang's OpenMP is LLVM's libomp: sudo apt-get install libomp-dev" ;;
        *) next_step "install the compiler's OpenMP library (GCC's is libgomp, part of gcc)" ;;
        esac
        problem "no OpenMP in $host_compiler"
    fi
fi
if [ "$nvcc_ok" = 1 ]; then
    rejected=$(nvcc_problem)
    if [ -n "$rejected" ]; then
        say "" "nvcc cannot build with ${CC:-gcc}: $rejected"
        next_step "name a host compiler this CUDA supports, e.g. make CC=gcc-13 (its installation"
        next_step "guide lists them), or build for the CPU emulator: make BACKEND=emu"
        [ "$BACKEND" = cuda ] && problem "nvcc rejects ${CC:-gcc}"
    fi
fi

gpus=$(nvidia-smi --query-gpu=index,name,compute_cap,memory.total --format=csv,noheader 2>/dev/null)
if [ -n "$gpus" ]; then
    driver_cuda=$(nvidia-smi | sed -n 's/.*CUDA Version: *\([0-9.]*\).*/\1/p' | head -n 1)
    say "driver" "$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n 1), runs CUDA up to $driver_cuda"
    # Within one major version newer toolkits run on older drivers (CUDA's
    # minor version compatibility); across major versions they do not.
    if [ -n "$nvcc_cuda" ] && [ "${driver_cuda%%.*}" -lt "${nvcc_cuda%%.*}" ]; then
        say "" "the driver is older than nvcc's CUDA $nvcc_cuda: programs will fail to start"
        next_step "update the NVIDIA driver, or use a CUDA Toolkit no newer than $driver_cuda"
        problem "driver older than CUDA $nvcc_cuda"
    fi
    # A here-document, not a pipe, so that problems counted in the loop stay counted.
    while IFS=, read -r index name capability memory; do
        say "GPU $index" "$(echo "$name" | sed 's/^ //'), compute capability$capability,$memory"
        arch=$(echo "$capability" | tr -d '. ')
        if [ "$arch" -lt 75 ]; then
            next_step "CUDA 13 supports compute capability 7.5 and newer: this GPU cannot run the"
            next_step "lessons' kernels; make builds them for the CPU emulator instead (BACKEND=emu)"
            [ "$BACKEND" = cuda ] && problem "GPU $index older than sm_75"
        elif [ "$CUDA_ARCH" -gt "$arch" ]; then
            say "" "the build targets CUDA_ARCH=$CUDA_ARCH, newer than this GPU: its kernels will not load"
            next_step "make CUDA_ARCH=$arch"
            problem "CUDA_ARCH=$CUDA_ARCH newer than GPU $index"
        elif [ "$CUDA_ARCH" -lt "$arch" ]; then
            next_step "the build targets CUDA_ARCH=$CUDA_ARCH, which runs here, compiled at load time;"
            next_step "make CUDA_ARCH=$arch builds for this GPU itself"
        fi
    done <<GPUS
$gpus
GPUS
elif command -v nvidia-smi >/dev/null 2>&1; then
    say "driver" "nvidia-smi is installed but lists no GPU: $(nvidia-smi -L 2>&1 | head -n 1)"
    next_step "check that the driver is loaded (nvidia-smi), or use BACKEND=emu"
else
    say "GPU" "none found (no nvidia-smi, so no NVIDIA driver)"
    next_step "the lessons run their GPU code on the CPU emulator here; times are CPU emulation"
fi

say "build" "BACKEND=$BACKEND, CUDA_ARCH=$CUDA_ARCH (sm_$CUDA_ARCH)"
if [ "$BACKEND" = cuda ] && [ "$nvcc_ok" = 0 ]; then
    problem "no nvcc"
fi

# make test needs bats with its two helper libraries; make plots needs gnuplot.
bats_libraries=${BATS_LIB_PATH:-/usr/lib/bats}
missing=""
command -v bats >/dev/null 2>&1 || missing="$missing bats"
[ -d "$bats_libraries/bats-support" ] || missing="$missing bats-support"
[ -d "$bats_libraries/bats-assert" ] || missing="$missing bats-assert"
command -v gnuplot >/dev/null 2>&1 || missing="$missing gnuplot"
if [ -z "$missing" ]; then
    say "test tools" "bats, bats-support, bats-assert and gnuplot found"
else
    say "test tools" "missing:$missing (make test needs the bats ones, make plots gnuplot)"
    next_step "sudo apt-get install bats bats-assert bats-support gnuplot-nox"
fi

# Lessons that read and write images (lessons 02 and 08) use stb_image from
# libstb-dev: its headers, and libstb (.so or .a) with the implementation,
# where the compilers look for them (CPATH and LIBRARY_PATH too).
stb_found() {
    local dir header="" library=""
    for dir in $(echo "${CPATH:-}:${C_INCLUDE_PATH:-}:${CPLUS_INCLUDE_PATH:-}" | tr ':' ' ') \
               /usr/local/include /usr/include; do
        [ -f "$dir/stb/stb_image.h" ] && [ -f "$dir/stb/stb_image_write.h" ] && header=yes
    done
    for dir in $(echo "${LIBRARY_PATH:-}" | tr ':' ' ') /usr/local/lib /usr/lib/* /usr/lib64 /usr/lib; do
        { [ -f "$dir/libstb.so" ] || [ -f "$dir/libstb.a" ]; } && library=yes
    done
    [ -n "$header" ] && [ -n "$library" ]
}
if stb_found; then
    say "image library" "stb_image found (libstb-dev)"
else
    say "image library" "stb_image missing (lessons 02 and 08 read and write images with it)"
    next_step "sudo apt-get install libstb-dev"
    problem "no stb_image (libstb-dev)"
fi

# Lesson 09 is an MPI program: Open MPI's compiler wrapper gives the flags it
# builds with, and mpirun starts its ranks. Its nccl variant needs NVIDIA's
# NCCL (nccl.h and libnccl), which only a GPU can use: optional.
if command -v mpicxx >/dev/null 2>&1 && command -v mpirun >/dev/null 2>&1; then
    say "MPI" "$(mpirun --version 2>/dev/null | head -n 1) (lesson09: mpirun -np 2 ./lesson09)"
else
    say "MPI" "not found: lesson09 is an MPI program (mpicxx, mpirun); the others build without"
    next_step "sudo apt-get install libopenmpi-dev openmpi-bin"
    problem "no MPI (libopenmpi-dev)"
fi
cuda_home=$(dirname "$(dirname "$(readlink -f "$(command -v "$NVCC" 2>/dev/null)" 2>/dev/null)")")
nccl_header="" nccl_library=""
for file in "$cuda_home/include/nccl.h" /usr/include/nccl.h; do
    [ -f "$file" ] && nccl_header=$file
done
for file in "$cuda_home"/lib*/libnccl.so /usr/lib/*/libnccl.so /usr/lib64/libnccl.so; do
    [ -f "$file" ] && nccl_library=$file
done
if [ -n "$nccl_header" ] && [ -n "$nccl_library" ]; then
    say "NCCL" "$nccl_header, $nccl_library: lesson09's nccl variant is built with nvcc"
else
    say "NCCL" "not found: lesson09's nccl variant is skipped (optional, GPUs only)"
    next_step "NVIDIA's libnccl2 and libnccl-dev, from its CUDA repository for your distribution:"
    next_step "sudo apt-get install libnccl2 libnccl-dev (https://developer.nvidia.com/nccl)"
fi

# The summary: one line, the same on every machine, so that a room's lines
# line up (make doctor BRIEF=1 prints only this one).
if [ -n "$gpus" ]; then
    first_gpu=$(echo "$gpus" | head -n 1)
    gpu_text="GPU $(echo "$first_gpu" | cut -d, -f1 | tr -d ' '): $(echo "$first_gpu" | cut -d, -f2 | sed 's/^ //')"
    gpu_text="$gpu_text (sm_$(echo "$first_gpu" | cut -d, -f3 | tr -d '. '))"
    gpu_count=$(echo "$gpus" | wc -l)
    [ "$gpu_count" -gt 1 ] && gpu_text="$gpu_text and $((gpu_count - 1)) more"
else
    gpu_text="no GPU: CPU emulator"
fi
if [ -z "$missing" ]; then tests_text="tests: yes"; else tests_text="tests: no (missing$missing)"; fi
if [ "$problems" -eq 0 ]; then verdict="ready"; else verdict="NOT READY ($problem_names)"; fi
summary=$(printf '%-12s %s  %s  CUDA %s  %s' "$(uname -n 2>/dev/null || echo this-machine)" \
    "$verdict" "$gpu_text" "${nvcc_cuda:--}" "$tests_text")

echo
if [ "$problems" -eq 0 ]; then
    echo "ready: make lesson01 && ./lesson01"
else
    echo "not ready: $problems problem(s) above"
fi
echo "summary: $summary"
[ "${BRIEF:-0}" = 1 ] && echo "$summary" >&3
[ "$problems" -eq 0 ]
