# tests/test_helper.bash - loaded by every .bats file in tests/.
#
# make test builds the programs first and tells the tests where they are:
#   WORKBOOK_EMU_BUILD   programs built for the CPU emulator (build/emu)
#   WORKBOOK_CUDA_BUILD  programs built by nvcc for a real GPU (build/cuda-smNN)
#   WORKBOOK_GPU_COUNT   how many GPUs nvidia-smi listed
# Run one file by hand with: make test-programs && bats tests/lesson01.bats

bats_require_minimum_version 1.5.0
bats_load_library bats-support
bats_load_library bats-assert

REPO="$(cd "$BATS_TEST_DIRNAME/.." && pwd)"
# The defaults are the Makefile's: nvcc builds for the present GPU, or for 7.5.
DETECTED_ARCH="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d '. ' | grep -E '^[0-9]+$')"
EMU_BUILD="$REPO/${WORKBOOK_EMU_BUILD:-build/emu}"
CUDA_BUILD="$REPO/${WORKBOOK_CUDA_BUILD:-build/cuda-sm${DETECTED_ARCH:-75}}"
GPU_COUNT="${WORKBOOK_GPU_COUNT:-$([ -n "$DETECTED_ARCH" ] && nvidia-smi -L 2>/dev/null | grep -c '^GPU' || echo 0)}"

# MPI programs (lesson 09) start under mpirun. CI runs the tests as root, which
# Open MPI refuses unless told twice, and starts more ranks than the machine
# has cores, which it refuses unless allowed to oversubscribe (Open MPI 4 and 5
# each read their own variable). Both are the tests' setting, not the lesson's.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 PRTE_MCA_rmaps_default_mapping_policy=:oversubscribe
# Open MPI 5's TCP transport, which ranks on one machine do not need, warns on every rank of a
# machine with IPv6 addresses that it cannot pair them; without IPv6 it says nothing.
export OMPI_MCA_btl_tcp_disable_family=6

# clang_has_openmp: whether clang and clang++ are installed and build an OpenMP program, which
# every lesson's CPU version is (clang's OpenMP is LLVM's libomp, from libomp-dev).
clang_has_openmp() {
    command -v clang++ >/dev/null && command -v clang >/dev/null &&
        printf '#include <omp.h>\nint main(void) { return omp_get_max_threads() < 1; }\n' |
        clang++ -fopenmp -x c++ - -o "$BATS_TEST_TMPDIR/openmp-probe" 2>/dev/null
}
# needs_clang: skips the test, saying what to install, unless clang_has_openmp.
needs_clang() {
    command -v clang++ >/dev/null || skip "clang++ is not installed"
    clang_has_openmp || skip "clang++ builds no OpenMP program here: sudo apt-get install libomp-dev"
}

# use_comma_locale: makes a German locale, whose decimal mark is a comma, for the commands a
# test then runs with LOCPATH="$LOCALES" LC_ALL=de_DE.UTF-8 (built from glibc's sources into the
# test's folder: no root needed). awk there reads 1.5 as 1 and prints 1,5, so a script that
# does not set its own locale gets its numbers wrong. Skips where it cannot be built.
use_comma_locale() {
    LOCALES="$BATS_FILE_TMPDIR/locales"
    mkdir -p "$LOCALES"
    [ -d "$LOCALES/de_DE.UTF-8" ] || localedef -i de_DE -f UTF-8 "$LOCALES/de_DE.UTF-8" >/dev/null 2>&1 ||
        skip "no German locale to build here (localedef, and the locales package for its sources)"
    [ "$(echo 1.5 | LOCPATH="$LOCALES" LC_ALL=de_DE.UTF-8 awk '{ print $1 + 1 }')" = 2 ] ||
        skip "this awk reads numbers alike in every locale: nothing to show"
}

# Sets BUILD to the build whose GPU variants can run here: the real GPU's when
# there is one, else the emulator's. Skips the test, saying why, when there is
# neither. (Called on its own line: a skip inside $(...) would skip nothing.)
use_gpu_build() {
    if [ "$GPU_COUNT" -gt 0 ] && [ -d "$CUDA_BUILD" ]; then
        BUILD="$CUDA_BUILD"
    elif [ -d "$EMU_BUILD" ]; then
        BUILD="$EMU_BUILD"
    else
        skip "no GPU here and no emulator build in $EMU_BUILD (run make test)"
    fi
}

# Sets BUILD to any build: enough for what happens before a device is used
# (option parsing).
use_any_build() {
    for BUILD in "$EMU_BUILD" "$CUDA_BUILD"; do
        [ -d "$BUILD" ] && return
    done
    skip "no build found (run make test)"
}

# The lesson programs there are: lesson01 lesson02 ... (without MPI, not the
# MPI lessons, which make does not build then)
lesson_programs() {
    local dir
    for dir in "$REPO"/lessons/[0-9][0-9]-*; do
        if grep -q '^MPI *= *yes' "$dir/lesson.conf" && ! command -v mpicxx >/dev/null; then
            continue
        fi
        basename "$dir" | sed 's/^\([0-9][0-9]\)-.*/lesson\1/'
    done
}

# Number of comma-separated fields in a CSV line.
field_count() {
    awk -F, '{ print NF }' <<<"$1"
}

# lesson_setting lesson01 KEY: the value of "KEY = value" in the lesson's lesson.conf
lesson_setting() {
    sed -n "s/^$2[[:space:]]*=[[:space:]]*//p" "$REPO"/lessons/"${1#lesson}"-*/lesson.conf
}

# contract_size lesson01 [DEFAULT]: the -n of contract.bats's generic runs:
# CONTRACT_SIZE in the lesson's lesson.conf (a lesson whose work grows faster
# than its size, such as a matrix product, names a small one), else DEFAULT or 1000
contract_size() {
    local size
    size=$(lesson_setting "$1" CONTRACT_SIZE)
    echo "${size:-${2:-1000}}"
}

# csv_column NAME: the values of that column (by header name) in the CSV on stdin
csv_column() {
    awk -F , -v name="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next }
                           { print $c }'
}

# The variant names a lesson's --help lists, one per line.
lesson_variants() {
    "$BUILD/$1" --help | sed -n '/^variants:$/,/^$/p' | sed -n 's/^  \([a-z0-9_-]\+\) .*/\1/p'
}

# assert_refused_by PROGRAM TEXT [ARGS...]: runs $BUILD/PROGRAM with the
# arguments and asserts exit status 2, nothing on stdout, and one line on
# stderr, "PROGRAM: ..." with TEXT in it.
assert_refused_by() {
    local program="$1" expected="$2"
    shift 2
    run --separate-stderr "$BUILD/$program" "$@"
    assert_equal "$status" 2
    assert_output ""
    assert_equal "$(wc -l <<<"$stderr")" 1
    [[ "$stderr" == "$program: "*"$expected"* ]] || fail "$program $*: stderr was: $stderr"
}

# Skips the test, saying why, where MPI (lesson 09) is not installed.
needs_mpi() {
    command -v mpicxx >/dev/null && command -v mpirun >/dev/null ||
        skip "MPI is not installed: sudo apt-get install libopenmpi-dev openmpi-bin"
}

# mpi_run SECONDS ARGS...: mpirun ARGS, stopped after SECONDS, with mpirun's own notices about
# ranks that exit with a failure left out of stderr, as a test reads only the ranks' words: Open
# MPI 4 is told to be quiet (its -q, which Open MPI 5 lacks), and Open MPI 5's notice, a block
# between lines of dashes, is taken out.
mpi_run() {
    local seconds=$1 status=0
    shift
    OMPI_MCA_orte_execute_quiet=1 timeout "$seconds" mpirun "$@" 2>"$BATS_TEST_TMPDIR/mpirun.stderr" ||
        status=$?
    awk '/^--------------------+$/ {
             if (inside) { block = block $0 "\n"; if (block !~ /non-zero (status|exit code)/) printf "%s", block; inside = 0 }
             else { inside = 1; block = $0 "\n" }
             next
         }
         { if (inside) block = block $0 "\n"; else print }
         END { if (inside) printf "%s", block }' "$BATS_TEST_TMPDIR/mpirun.stderr" >&2
    return "$status"
}

# The flags of the Makefile's MPI lessons, for a test that builds one: MPI's C
# API, with Open MPI's compile and link flags.
mpi_flags() {
    echo "-DOMPI_SKIP_MPICXX -DMPICH_SKIP_MPICXX $(mpicxx --showme:compile) $(mpicxx --showme:link)"
}

# Where a test that builds a mutant program finds common/: the object make
# test-programs compiled for the emulator, or the source when that is missing.
common_object() {
    if [ -f "$EMU_BUILD/common/workbook.o" ]; then
        echo "$EMU_BUILD/common/workbook.o"
    else
        echo "$REPO/common/workbook.cu"
    fi
}

# build_mutant SOURCE SED_EXPRESSION OUTPUT [OTHER_SOURCES...]: builds with the
# emulator a copy of SOURCE (a path under the repository) changed by the sed
# expression, linked with the other sources and common/workbook.cu; fails the
# test if the expression changed nothing. EMUCC_FLAGS adds flags (--sanitize).
# The other sources and common/ come as make test-programs compiled them where
# it did, unless EMUCC_FLAGS asks for checked or counted code (--sanitize,
# --profile): compiling them again would take most of each mutant's build.
build_mutant() {
    local source="$REPO/$1" expression="$2" output="$3"
    shift 3
    local copy="$BATS_TEST_TMPDIR/$(basename "$source")"
    sed "$expression" "$source" >"$copy"
    ! cmp -s "$copy" "$source" || fail "the sed expression changed nothing: $expression"
    local others=() other object reuse=yes
    case " ${EMUCC_FLAGS:-} " in *" --sanitize "* | *" --profile "*) reuse=no ;; esac
    for other in "$@" common/workbook.cu; do
        object="$EMU_BUILD/${other%.cu}.o"
        if [ $reuse = yes ] && [ "$object" -nt "$REPO/$other" ]; then
            others+=("$object")
        else
            others+=("$REPO/$other")
        fi
    done
    # shellcheck disable=SC2086
    "$REPO/common/emu/emucc" -O2 -std=c++20 -Xcompiler -fopenmp ${EMUCC_FLAGS:-} -I"$REPO/common" \
        -o "$output" "$copy" "${others[@]}"
}
