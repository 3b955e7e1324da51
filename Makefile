# CUDA C Workbook - build the lessons, their exercises, the tests.
#
#   make lesson01 && ./lesson01     build and run a lesson
#   make test                       the whole test suite
#   make help                       every target and variable
#
# Every lesson lives in lessons/NN-topic/, with a lesson.conf that names its
# program, its exercise, extra link flags and its benchmark sizes. Adding a
# directory there adds its targets here; nothing below names a lesson.

# ---- what to build with ------------------------------------------------------

SHELL := /bin/bash

NVCC ?= $(or $(shell command -v nvcc 2>/dev/null),$(wildcard /usr/local/cuda/bin/nvcc),nvcc)
EMUCC := common/emu/emucc

# The GPU nvidia-smi lists first, as compute capability digits (90 = 9.0,
# H100); empty without a GPU or a working driver.
DETECTED_ARCH := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d '. ' | grep -E '^[0-9]+$$')
GPU_COUNT := $(if $(DETECTED_ARCH),$(shell nvidia-smi -L 2>/dev/null | grep -c '^GPU'),0)
# CUDA 13 compiles for compute capability 7.5 (Turing) and newer.
OLDEST_ARCH := 75
GPU_TOO_OLD := $(if $(DETECTED_ARCH),$(shell [ $(DETECTED_ARCH) -lt $(OLDEST_ARCH) ] && echo yes))

# BACKEND: cuda (nvcc, runs on an NVIDIA GPU), emu (the host compiler and the
# course's CPU emulator in common/emu/), or auto: cuda when a GPU is usable.
BACKEND ?= auto
ifeq ($(BACKEND),auto)
  ifeq ($(GPU_TOO_OLD),yes)
    $(info this GPU has compute capability $(DETECTED_ARCH), older than CUDA 13 supports ($(OLDEST_ARCH)): building for the CPU emulator)
  endif
  override BACKEND := $(if $(filter-out 0,$(GPU_COUNT)),$(if $(GPU_TOO_OLD),emu,cuda),emu)
endif
ifeq ($(filter $(BACKEND),cuda emu),)
  $(error BACKEND=$(BACKEND): expected cuda, emu or auto)
endif

# CUDA_ARCH: the GPU architecture nvcc compiles for. Default: the present
# GPU's own; without a GPU, 75, whose PTX newer GPUs compile when they load it.
CUDA_ARCH ?= $(if $(GPU_TOO_OLD),$(OLDEST_ARCH),$(or $(DETECTED_ARCH),$(OLDEST_ARCH)))
# The architectures CUDA 13's nvcc compiles for (nvcc --list-gpu-code).
VALID_ARCHS := 75 80 86 87 88 89 90 90a 100 100a 103 103a 110 120 121
ifeq ($(filter $(CUDA_ARCH),$(VALID_ARCHS)),)
  $(error CUDA_ARCH=$(CUDA_ARCH): expected one of $(VALID_ARCHS) (compute capability as digits: 90 is an H100; nvcc --list-gpu-code lists them))
endif

# CFLAGS go to the host compiler for the CPU code (the lesson's CPU version
# is spread over all cores with OpenMP); NVCCFLAGS to nvcc or the emulator.
# (-Wno-missing-field-initializers: a lesson's declaration names only the
# fields it sets, as C's designated initializers allow.)
CFLAGS ?= -O3 -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers
NVCCFLAGS ?= -O3 -std=c++20
comma := ,
space := $(subst x, ,x)
HOST_FLAGS := -Xcompiler $(subst $(space),$(comma),$(strip $(CFLAGS) -fopenmp))
# CC: nvcc's host compiler for the CPU code, when set (-ccbin); nvcc links
# with it too, so the C++ and math libraries are named for a C compiler's sake
# (g++ adds both; gcc and clang add neither). The emulator's host compiler is
# CXX, which emucc reads: a CC that the environment sets (many do) must not
# replace the CXX a student names.
ifneq ($(origin CC),default)
  NVCC_HOST_COMPILER := -ccbin $(CC)
  ifeq ($(BACKEND),cuda)
    LINK_LIBRARIES := -lstdc++ -lm
  endif
endif

ifeq ($(BACKEND),cuda)
  COMPILER := $(NVCC)
  BUILD := build/cuda-sm$(CUDA_ARCH)
  ARCH_FLAGS := -arch=sm_$(CUDA_ARCH) -lineinfo
  # common/workbook.cu sees every kernel launch for its launch warnings: nvcc's
  # launch stubs call __cudaLaunchKernel (cudaLaunchKernel before CUDA 13),
  # and the linker sends those calls to its __wrap_ functions first.
  LINK_FLAGS := -Xlinker --wrap=__cudaLaunchKernel -Xlinker --wrap=cudaLaunchKernel
  LINK_DEPENDENCIES :=
else
  COMPILER := $(EMUCC)
  # SANITIZE=1: built with emucc --sanitize, for make sanitize; PROFILE=1: with emucc
  # --profile, for make profile
  BUILD := build/emu$(if $(SANITIZE),-sanitize)$(if $(PROFILE),-profile)
  ARCH_FLAGS := $(if $(SANITIZE),--sanitize) $(if $(PROFILE),--profile)
  # emucc links the emulator's runtime into every program: relink when it changes
  LINK_DEPENDENCIES := $(EMUCC) $(wildcard common/emu/runtime/* common/emu/include/*.h common/emu/include/*/*.h)
  # and rewrites every .cu before compiling it: recompile when the rewriter changes
  COMPILE_DEPENDENCIES := $(EMUCC) common/emu/rewrite.c
endif
ALL_FLAGS = $(NVCCFLAGS) $(ARCH_FLAGS) $(HOST_FLAGS) -Icommon $(if $(filter cuda,$(BACKEND)),$(NVCC_HOST_COMPILER) $(TOOLKIT_HEADERS))
# nvcc hands the host compiler the toolkit's headers with -I; named with -isystem as
# well they are system headers, of which clang's -Wall says nothing (cuda_fp16.hpp,
# which nccl.h includes, has dozens of unused functions)
TOOLKIT_HEADERS = $(if $(NVCC_HOME),-isystem $(NVCC_HOME)/include)

# ---- MPI and NCCL, for the lessons whose lesson.conf asks for them -----------

# MPI = yes: the lesson is an MPI program (lesson 09). Its files compile and
# link with Open MPI's flags, which its compiler wrapper reports; without MPI
# the other lessons still build, and make lessonNN says what to install.
# (The lessons call MPI's C API: its deprecated C++ bindings, which mpi.h
# declares for C++ unless told not to, are left out.)
MPICXX ?= mpicxx
MPI_COMPILE_FLAGS := -DOMPI_SKIP_MPICXX -DMPICH_SKIP_MPICXX $(shell $(MPICXX) --showme:compile 2>/dev/null)
MPI_LINK_FLAGS := $(shell $(MPICXX) --showme:link 2>/dev/null)
MPI_INSTALL := sudo apt-get install libopenmpi-dev openmpi-bin
# NCCL = yes: the lesson has an nccl variant, built by nvcc when the CUDA
# Toolkit or the system has nccl.h and libnccl (make doctor says how to get
# them); the emulator has no NCCL.
NVCC_HOME := $(patsubst %/bin/nvcc,%,$(realpath $(shell command -v $(NVCC) 2>/dev/null)))
NCCL_HEADER := $(firstword $(wildcard $(NVCC_HOME)/include/nccl.h /usr/include/nccl.h))
NCCL_LIBRARY := $(firstword $(wildcard $(NVCC_HOME)/lib64/libnccl.so $(NVCC_HOME)/lib/libnccl.so \
                                       /usr/lib/*/libnccl.so /usr/lib64/libnccl.so))
NCCL_FOUND := $(and $(NCCL_HEADER),$(NCCL_LIBRARY))
# nvcc takes -I, -D, -L and -l itself; the rest (-pthread, -Wl,...) is for the host compiler
nvcc_form = $(foreach flag,$(1),$(if $(filter -I% -D% -L% -l%,$(flag)),$(flag),$(if $(filter -Wl$(comma)%,$(flag)),-Xlinker $(patsubst -Wl$(comma)%,%,$(flag)),-Xcompiler $(flag))))
compiler_form = $(if $(filter cuda,$(BACKEND)),$(call nvcc_form,$(1)),$(1))
# LIBS = -lstb: the lesson reads and writes images with stb_image (lessons 02
# and 08), from Debian's libstb-dev. Looked for where the compilers look, CPATH
# too, so a copy in a folder of one's own works (CPATH=DIR/include
# LIBRARY_PATH=DIR/lib) where nothing can be installed.
STB_INCLUDE_DIRS ?= $(subst :, ,$(CPATH) $(C_INCLUDE_PATH) $(CPLUS_INCLUDE_PATH)) /usr/local/include /usr/include
STB_HEADER := $(firstword $(wildcard $(addsuffix /stb/stb_image.h,$(STB_INCLUDE_DIRS))))
STB_INSTALL := sudo apt-get install libstb-dev
# $(call asks_for,DIR,MPI): DIR when its lesson.conf says MPI = yes (the lists are below)
asks_for = $(filter $(1),$(LESSONS_ASKING_$(2)))
# $(call missing,DIR): what DIR's lesson needs that this machine lacks, and how to get it
missing = $(strip \
  $(if $(and $(call asks_for,$(1),MPI),$(if $(MPI_LINK_FLAGS),,no)),MPI$(comma) which is not installed (no $(MPICXX)): $(MPI_INSTALL)) \
  $(if $(and $(call asks_for,$(1),STB),$(if $(STB_HEADER),,no)),stb_image$(comma) which is not installed (no stb/stb_image.h): $(STB_INSTALL)))
# what a lesson's files compile with besides ALL_FLAGS, for BACKEND and for nvcc
lesson_flags = $(if $(call asks_for,$(1),MPI),$(call compiler_form,$(MPI_COMPILE_FLAGS))) \
               $(if $(and $(filter cuda,$(BACKEND)),$(call asks_for,$(1),NCCL),$(NCCL_FOUND)),-DHAVE_NCCL)
nvcc_lesson_flags = $(if $(call asks_for,$(1),MPI),$(call nvcc_form,$(MPI_COMPILE_FLAGS))) \
                    $(if $(and $(call asks_for,$(1),NCCL),$(NCCL_FOUND)),-DHAVE_NCCL)

# ---- what there is to build -------------------------------------------------

LESSON_DIRS := $(sort $(wildcard lessons/[0-9][0-9]-*))
lesson_number = $(firstword $(subst -, ,$(notdir $(1))))
# $(call setting,DIR,KEY): the value of "KEY = value" in DIR/lesson.conf
setting = $(shell sed -n 's/^$(2)[[:space:]]*=[[:space:]]*//p' $(1)/lesson.conf 2>/dev/null)
lesson_source = $(addprefix $(1)/,$(call setting,$(1),PROGRAM))
# LIBS for every backend; CUDA_LIBS (NVIDIA's libraries: -lcublas) for nvcc
# only; MPI's and NCCL's when the lesson.conf asks for them
lesson_libraries = $(call setting,$(1),LIBS) $(if $(filter cuda,$(BACKEND)),$(call setting,$(1),CUDA_LIBS)) \
                   $(if $(call asks_for,$(1),MPI),$(call compiler_form,$(MPI_LINK_FLAGS))) \
                   $(if $(and $(filter cuda,$(BACKEND)),$(call asks_for,$(1),NCCL),$(NCCL_FOUND)),-L$(dir $(NCCL_LIBRARY)) -lnccl)
LESSONS := $(foreach dir,$(LESSON_DIRS),lesson$(call lesson_number,$(dir)))
LESSONS_ASKING_MPI := $(foreach dir,$(LESSON_DIRS),$(if $(filter yes,$(call setting,$(dir),MPI)),$(dir)))
LESSONS_ASKING_NCCL := $(foreach dir,$(LESSON_DIRS),$(if $(filter yes,$(call setting,$(dir),NCCL)),$(dir)))
LESSONS_ASKING_STB := $(foreach dir,$(LESSON_DIRS),$(if $(filter -lstb,$(call setting,$(dir),LIBS)),$(dir)))
# the lessons this machine can build: all but those that need what it lacks (MPI, stb)
BUILDABLE_DIRS := $(foreach dir,$(LESSON_DIRS),$(if $(call missing,$(dir)),,$(dir)))
UNBUILDABLE_DIRS := $(filter-out $(BUILDABLE_DIRS),$(LESSON_DIRS))
BUILDABLE_LESSONS := $(foreach dir,$(BUILDABLE_DIRS),lesson$(call lesson_number,$(dir)))
EXERCISE_DIRS := $(foreach dir,$(BUILDABLE_DIRS),$(if $(call setting,$(dir),EXERCISE),$(dir)))
EXERCISES := $(foreach dir,$(EXERCISE_DIRS),exercise$(call lesson_number,$(dir)))
SOLUTIONS := $(foreach dir,$(EXERCISE_DIRS),solution$(call lesson_number,$(dir)))

COMMON_OBJECT := $(BUILD)/common/workbook.o

.PHONY: all help test test-programs nvcc-check bench plots doctor grade clean sanitize profile gpu-report \
        $(LESSONS) $(EXERCISES) $(SOLUTIONS) check-compiler

all: $(BUILDABLE_LESSONS)
	@$(foreach dir,$(UNBUILDABLE_DIRS),echo "lesson$(call lesson_number,$(dir)) not built: it needs $(call missing,$(dir))";)

# make lessonNN: build the lesson for $(BACKEND) and copy it to ./lessonNN.
# define ... endef writes the same three rules for every lesson directory.
define lesson_rules
$(BUILD)/lesson$(call lesson_number,$(1)): $(patsubst %.cu,$(BUILD)/%.o,$(call lesson_source,$(1))) $(COMMON_OBJECT) $(LINK_DEPENDENCIES)
	$$(COMPILER) $$(ALL_FLAGS) $$(LINK_FLAGS) -o $$@ $$(filter %.o,$$^) $(call lesson_libraries,$(1)) $$(LINK_LIBRARIES)

lesson$(call lesson_number,$(1)): check-compiler $(BUILD)/lesson$(call lesson_number,$(1))
	@cp -f $(BUILD)/lesson$(call lesson_number,$(1)) $$@
	@echo "built ./$$@ (backend $(BACKEND))"
endef

# make exerciseNN: build your exercise.cu with its checker and run it.
# How common/grade.sh and common/diagnose.sh build an exercise as the rules below do.
EXERCISE_SETTINGS = BACKEND=$(BACKEND) BUILD=$(BUILD) COMPILER="$(COMPILER)" \
  LINK_FLAGS="$(ALL_FLAGS) $(LINK_FLAGS)" LINK_LIBRARIES="$(LINK_LIBRARIES)"
# make solutionNN: the same with the worked solution in solutions/.
define exercise_rules
$(BUILD)/exercise$(call lesson_number,$(1)): $(BUILD)/$(1)/$(basename $(call setting,$(1),EXERCISE)).o $(BUILD)/$(1)/$(basename $(call setting,$(1),EXERCISE_CHECK)).o $(COMMON_OBJECT) $(LINK_DEPENDENCIES)
	$$(COMPILER) $$(ALL_FLAGS) $$(LINK_FLAGS) -o $$@ $$(filter %.o,$$^) $(call lesson_libraries,$(1)) $$(LINK_LIBRARIES)

$(BUILD)/solution$(call lesson_number,$(1)): $(BUILD)/solutions/$(notdir $(1))/$(basename $(call setting,$(1),EXERCISE)).o $(BUILD)/$(1)/$(basename $(call setting,$(1),EXERCISE_CHECK)).o $(COMMON_OBJECT) $(LINK_DEPENDENCIES)
	$$(COMPILER) $$(ALL_FLAGS) $$(LINK_FLAGS) -o $$@ $$(filter %.o,$$^) $(call lesson_libraries,$(1)) $$(LINK_LIBRARIES)

# WORKBOOK_MAKE_TARGET: the checker's hints name the target that ran it. When its
# cases come out wrong, common/diagnose.sh reads its log and runs the bug finder.
exercise$(call lesson_number,$(1)): check-compiler $(BUILD)/exercise$(call lesson_number,$(1))
	@WORKBOOK_MAKE_TARGET=$$@ $(BUILD)/exercise$(call lesson_number,$(1)) | tee $(BUILD)/exercise$(call lesson_number,$(1)).log; \
	  status=$$$${PIPESTATUS[0]}; \
	  [ $$$$status -ne 1 ] || $(EXERCISE_SETTINGS) sh common/diagnose.sh $$@ $(BUILD)/$$@.log $(BUILD)/$$@ \
	    -I$(1) $(call lesson_flags,$(1)) $(1)/$(call setting,$(1),EXERCISE) $(BUILD)/$(1)/$(basename $(call setting,$(1),EXERCISE_CHECK)).o \
	    $(COMMON_OBJECT) $(call lesson_libraries,$(1)); \
	  exit $$$$status

solution$(call lesson_number,$(1)): check-compiler $(BUILD)/solution$(call lesson_number,$(1))
	@WORKBOOK_MAKE_TARGET=$$@ $(BUILD)/solution$(call lesson_number,$(1))
endef

$(foreach dir,$(BUILDABLE_DIRS),$(eval $(call lesson_rules,$(dir))))
$(foreach dir,$(EXERCISE_DIRS),$(eval $(call exercise_rules,$(dir))))

# A lesson that needs what this machine lacks says so in one line.
define unbuildable_rules
lesson$(call lesson_number,$(1)) exercise$(call lesson_number,$(1)) solution$(call lesson_number,$(1)):
	@echo "make: $$@ needs $(call missing,$(1))" >&2; exit 1
endef
$(foreach dir,$(UNBUILDABLE_DIRS),$(eval $(call unbuildable_rules,$(dir))))

# make lesson99, exercise42: say what there is instead of "No rule to make target". Rules for
# the goals typed, not patterns: a pattern such as exercise% would also match the dependency
# files in build/ (.../exercise.d), which make -B remakes.
# (a lesson that cannot be built here is known: its rules above say what it needs)
KNOWN_GOALS := $(LESSONS) $(EXERCISES) $(SOLUTIONS) \
  $(foreach dir,$(UNBUILDABLE_DIRS),exercise$(call lesson_number,$(dir)) solution$(call lesson_number,$(dir)))
UNKNOWN_GOALS := $(filter-out $(KNOWN_GOALS),$(filter lesson% exercise% solution%,$(MAKECMDGOALS)))
$(filter lesson%,$(UNKNOWN_GOALS)):
	@echo "make: there is no $@: the lessons are $(LESSONS) (make help lists every target)" >&2; exit 2
$(filter exercise%,$(UNKNOWN_GOALS)):
	@echo "make: there is no $@: the exercises are $(EXERCISES) (make help lists every target)" >&2; exit 2
$(filter solution%,$(UNKNOWN_GOALS)):
	@echo "make: there is no $@: the solutions are $(SOLUTIONS) (make help lists every target)" >&2; exit 2

# What the objects in $(BUILD) are compiled with: the compiler, its flags, and the host
# compiler a user named (CC for nvcc, CXX for the emulator). The file is written anew when
# that changes, and every object depends on it, so that make CXX=clang++ or make CFLAGS=-O0
# after a build compiles again instead of linking the objects of the last settings.
BUILD_SETTINGS := $(BUILD)/settings.txt
HOST_COMPILER_NAMED := $(if $(filter cuda,$(BACKEND)),CC=$(if $(filter default,$(origin CC)),,$(CC)),CXX=$(if $(filter default,$(origin CXX)),,$(CXX)))
BUILD_SETTINGS_TEXT := $(COMPILER) $(ALL_FLAGS) $(HOST_COMPILER_NAMED)
# (not for make help, doctor or clean, which compile nothing, nor with a compiler that is not
# there, as in make BACKEND=cuda NVCC=/wrong/path, which stops before building)
ifneq ($(and $(filter-out help doctor clean,$(or $(MAKECMDGOALS),all)),$(shell command -v $(COMPILER))),)
  ifneq ($(shell cat $(BUILD_SETTINGS) 2>/dev/null),$(strip $(BUILD_SETTINGS_TEXT)))
    $(shell mkdir -p $(BUILD) && printf '%s\n' '$(strip $(BUILD_SETTINGS_TEXT))' > $(BUILD_SETTINGS))
  endif
endif

$(BUILD)/%.o: %.cu $(COMPILE_DEPENDENCIES) $(BUILD_SETTINGS)
	@mkdir -p $(dir $@)
	$(COMPILER) $(ALL_FLAGS) $(LESSON_INCLUDE) $(LESSON_FLAGS) -MMD -MP -c $< -o $@

# headers are dependencies: the compiler wrote them into the .d files
-include $(shell find build -name '*.d' 2>/dev/null)

check-compiler:
ifeq ($(BACKEND),cuda)
	@command -v $(NVCC) >/dev/null 2>&1 || { echo "nvcc not found (NVCC=$(NVCC)): install the CUDA Toolkit and put its bin/ on PATH, or build with BACKEND=emu; make doctor says more" >&2; exit 1; }
	@[ "$(origin CC)" = default ] || command -v $(CC) >/dev/null 2>&1 || { echo "the host compiler CC=$(CC), which nvcc compiles the CPU code with, is not found: install it, or leave CC out for nvcc's default (g++)" >&2; exit 1; }
endif

# ---- tests ------------------------------------------------------------------

# Every program for the tests: the emulator build always; the nvcc build too
# when nvcc is installed, so that code which only works off the GPU cannot
# slip in (it must compile for a real GPU architecture).
HAVE_NVCC := $(shell command -v $(NVCC) >/dev/null 2>&1 && echo yes)
BUILD_NAMES := $(foreach dir,$(BUILDABLE_DIRS),$(BUILD)/lesson$(call lesson_number,$(dir))) \
               $(foreach dir,$(EXERCISE_DIRS),$(BUILD)/exercise$(call lesson_number,$(dir)) \
                                              $(BUILD)/solution$(call lesson_number,$(dir)))
test-programs: $(BUILD_NAMES)

ALL_CU := $(filter-out $(foreach dir,$(UNBUILDABLE_DIRS),$(dir)/% solutions/$(notdir $(dir))/%),\
                       $(shell find lessons solutions common tests -name '*.cu' 2>/dev/null | sort))
NVCC_CHECK := build/nvcc-check-sm$(CUDA_ARCH)

# Compiles every .cu in the repository with nvcc for a real GPU architecture.
# NVCC_CHECK_SKIP_BUILT=yes (make test, after the nvcc build of the programs):
# all but the files that build compiled (lessons, exercises, solutions,
# common/workbook.cu), which nvcc need not compile twice.
NVCC_CHECK_SKIP := $(if $(NVCC_CHECK_SKIP_BUILT),$(patsubst build/cuda-sm$(CUDA_ARCH)/%.o,%.cu,\
                       $(shell find build/cuda-sm$(CUDA_ARCH) -name '*.o' 2>/dev/null)))
nvcc-check: $(patsubst %.cu,$(NVCC_CHECK)/%.o,$(filter-out $(NVCC_CHECK_SKIP),$(ALL_CU)))

$(NVCC_CHECK)/%.o: %.cu
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) -arch=sm_$(CUDA_ARCH) $(HOST_FLAGS) $(NVCC_HOST_COMPILER) -Icommon $(TOOLKIT_HEADERS) $(LESSON_INCLUDE) $(LESSON_FLAGS) -MMD -MP -c $< -o $@

# A worked solution includes its lesson's headers as the exercise beside them
# does (#include "luma.h"): from the lesson's folder.
$(foreach dir,$(EXERCISE_DIRS),$(eval $(BUILD)/solutions/$(notdir $(dir))/%.o $(NVCC_CHECK)/solutions/$(notdir $(dir))/%.o: LESSON_INCLUDE := -I$(dir)))
# The flags a lesson's lesson.conf asks for (MPI, NCCL), for its files and its
# worked solution's.
$(foreach dir,$(LESSON_DIRS),$(eval $(BUILD)/$(dir)/%.o $(BUILD)/solutions/$(notdir $(dir))/%.o: LESSON_FLAGS := $(call lesson_flags,$(dir))))
$(foreach dir,$(LESSON_DIRS),$(eval $(NVCC_CHECK)/$(dir)/%.o $(NVCC_CHECK)/solutions/$(notdir $(dir))/%.o: LESSON_FLAGS := $(call nvcc_lesson_flags,$(dir))))

BATS_LIBRARIES := $(or $(BATS_LIB_PATH),/usr/lib/bats)

# make test and make profile build on every core, unless make -j already says how many
EVERY_CORE = $(if $(filter -j% --jobserver%,$(MAKEFLAGS)),,-j$(shell nproc 2>/dev/null || echo 2))

test:
	@command -v bats >/dev/null 2>&1 && [ -d "$(BATS_LIBRARIES)/bats-assert" ] || { \
	  echo "make test needs bats with bats-assert and bats-support:" \
	       "sudo apt-get install bats bats-assert bats-support gnuplot-nox" >&2; exit 1; }
	@[ -n "$(STB_HEADER)" ] || { \
	  echo "make test needs stb_image, which lessons 02 and 08 and their tests use: $(STB_INSTALL)" >&2; exit 1; }
	$(MAKE) --no-print-directory $(EVERY_CORE) BACKEND=emu test-programs
ifeq ($(HAVE_NVCC),yes)
	$(MAKE) --no-print-directory $(EVERY_CORE) BACKEND=cuda test-programs
	$(MAKE) --no-print-directory $(EVERY_CORE) nvcc-check NVCC_CHECK_SKIP_BUILT=yes
else
	@echo "nvcc not found: skipping the nvcc builds (the emulator tests still run)"
endif
	@mkdir -p build
# LC_ALL=C: the tests read numbers, and compilers' messages, as C's locale writes them
	@set -o pipefail; export LC_ALL=C; WORKBOOK_EMU_BUILD=build/emu WORKBOOK_CUDA_BUILD=build/cuda-sm$(CUDA_ARCH) \
	  WORKBOOK_GPU_COUNT=$(GPU_COUNT) bats --tap tests | tee build/tests.tap; \
	  status=$$?; \
	  if printf '#include <omp.h>\nint main(void) { return omp_get_max_threads() < 1; }\n' | \
	     clang++ -fopenmp -x c++ - -o build/openmp-probe 2>/dev/null; then \
	    echo "# the emulator's tests again, with clang++ as emucc's host compiler"; \
	    EMU_CXX=clang++ bats --tap tests/emu.bats | tee -a build/tests.tap || status=1; \
	  else echo "clang++ with OpenMP (clang, libomp-dev) not found: the emulator's tests ran with g++ only"; fi; \
	  sh common/tap-summary.sh build/tests.tap; exit $$status

# make sanitize: every lesson at a small size under the bug finders. On a GPU:
# NVIDIA's compute-sanitizer (memcheck, racecheck, initcheck, synccheck); without
# one: the lessons built with emucc --sanitize, in three thread orders, with
# guard pages and poisoned memory.
sanitize:
ifneq ($(filter-out 0,$(GPU_COUNT)),)
	$(MAKE) --no-print-directory BACKEND=cuda all
	SANITIZE_TOOL=compute-sanitizer SANITIZE_BUILD=build/cuda-sm$(CUDA_ARCH) sh common/sanitize.sh $(BUILDABLE_LESSONS)
else
	$(MAKE) --no-print-directory BACKEND=emu SANITIZE=1 $(foreach lesson,$(BUILDABLE_LESSONS),build/emu-sanitize/$(lesson))
	SANITIZE_TOOL=emu SANITIZE_BUILD=build/emu-sanitize sh common/sanitize.sh $(BUILDABLE_LESSONS)
endif

# make profile: every lesson at a small size (PROFILE_ARGS in its lesson.conf),
# a table per kernel of what the hardware sees: global sectors per request
# (coalescing), shared-memory bank conflicts, divergent branches, atomics,
# occupancy; LESSON=NN for one lesson. With BACKEND=cuda: Nsight Compute's
# figures (ncu); else the lessons built with emucc --profile, which count the
# same metrics exactly on the CPU.
PROFILE_LESSONS := $(if $(LESSON),lesson$(LESSON),$(BUILDABLE_LESSONS))
profile:
ifneq ($(filter-out $(BUILDABLE_LESSONS),$(PROFILE_LESSONS)),)
	@echo "make profile: LESSON=$(LESSON): there is no lesson$(LESSON) to profile here (the lessons are $(BUILDABLE_LESSONS))" >&2; exit 2
endif
ifeq ($(BACKEND),cuda)
	$(MAKE) --no-print-directory BACKEND=cuda $(foreach lesson,$(PROFILE_LESSONS),build/cuda-sm$(CUDA_ARCH)/$(lesson))
	@PROFILE_TOOL=ncu PROFILE_BUILD=build/cuda-sm$(CUDA_ARCH) sh common/profile.sh $(PROFILE_LESSONS)
else
	@$(MAKE) --no-print-directory $(EVERY_CORE) BACKEND=emu PROFILE=1 $(foreach lesson,$(PROFILE_LESSONS),build/emu-profile/$(lesson)) >/dev/null
	@PROFILE_TOOL=emu PROFILE_BUILD=build/emu-profile sh common/profile.sh $(PROFILE_LESSONS)
endif

# ---- lab tools ----------------------------------------------------------------

# make grade: build and check every exercise, one line each and a total, and
# build/grade.csv for a gradebook. GRADE_FROM=DIR grades DIR/NN-topic/exercise.cu
# (a student's lessons/ folder, or solutions) with this checkout's checkers;
# GRADE_TIMEOUT stops a run that never ends. common/grade.sh says more.
GRADE_FROM ?= lessons
GRADE_TIMEOUT ?= 120
GRADE_CSV ?= build/grade.csv
EXERCISE_CHECK_OBJECTS := $(foreach dir,$(EXERCISE_DIRS),$(BUILD)/$(dir)/$(basename $(call setting,$(dir),EXERCISE_CHECK)).o)
grade: check-compiler $(COMMON_OBJECT) $(EXERCISE_CHECK_OBJECTS) $(LINK_DEPENDENCIES)
	@$(EXERCISE_SETTINGS) GRADE_FROM="$(GRADE_FROM)" GRADE_STUDENT="$(GRADE_STUDENT)" \
	  MPI_FLAGS="$(call compiler_form,$(MPI_COMPILE_FLAGS) $(MPI_LINK_FLAGS))" \
	  GRADE_CSV="$(GRADE_CSV)" GRADE_TIMEOUT="$(GRADE_TIMEOUT)" sh common/grade.sh $(EXERCISE_DIRS)

doctor:
	@NVCC="$(NVCC)" CUDA_ARCH="$(CUDA_ARCH)" BACKEND="$(BACKEND)" BRIEF="$(BRIEF)" sh common/doctor.sh

help:
	@echo "CUDA C Workbook"
	@echo ""
	@echo "targets:"
	@echo "  lessonNN       build ./lessonNN (here: $(LESSONS))"
	@echo "  all            build every lesson"
	@echo "  exerciseNN     build your exercise (lessons/NN-*/exercise.cu) and check it (here: $(EXERCISES));"
	@echo "                 after a FAIL the bug finder names the line of a race or an out-of-bounds access"
	@echo "  solutionNN     the same with the worked solution in solutions/"
	@echo "  test           build everything and run the Bats test suite in tests/"
	@echo "  bench          run every lesson over its lesson.conf sweep; append to plots/results/<device>.csv;"
	@echo "                 then the emulator's own benchmark (context switch, 16M reduction)"
	@echo "  plots          check plots/reference/*.csv, plots/reference/<gpu>/<gpu>.csv (make gpu-report's)"
	@echo "                 and plots/results/*.csv, draw charts into plots/out/,"
	@echo "                 heat maps of the fields lesson03 --output wrote under plots/results/"
	@echo "                 and lesson09's model of its scaling"
	@echo "  gpu-report     the whole course on this machine in one run: build, each lesson's targets"
	@echo "                 judged, bench, sanitizers, ncu metrics, tests, charts; one folder to send back,"
	@echo "                 plots/reference/<gpu>/summary.md (without a GPU: plots/results/cpu-emulation/);"
	@echo "                 GPU_REPORT_QUICK=1: build, targets, sanitizers and tests only"
	@echo "  sanitize       every lesson under the bug finders: compute-sanitizer on a GPU, else the"
	@echo "                 emulator's --sanitize checks (races, uninitialized and out-of-bounds memory)"
	@echo "  profile        every lesson at a small size, a table per kernel: global sectors per request"
	@echo "                 (coalescing), bank conflicts, divergent branches, atomics, occupancy, named as"
	@echo "                 Nsight Compute names them: ncu on a GPU, emucc --profile's exact counts without"
	@echo "                 one; LESSON=NN for one lesson"
	@echo "  grade          build and check every exercise: PASS / FAIL / not implemented / does not"
	@echo "                 compile, a FAIL's bug finder line, a total and $(GRADE_CSV); GRADE_FROM=DIR"
	@echo "                 grades a student's lessons/"
	@echo "  doctor         check this machine: nvcc, the host compiler and its OpenMP, driver, GPUs,"
	@echo "                 the architecture built for; BRIEF=1: one line (host, ready or not, GPU,"
	@echo "                 CUDA, tests), for a room of machines"
	@echo "  clean          remove build/ and the lesson programs"
	@echo ""
	@echo "variables (make VAR=value ...), now:"
	@printf '  %-21s %s\n' \
	  "BACKEND=$(BACKEND)" "cuda, emu (CPU emulation) or auto (cuda when a GPU is usable)" \
	  "CUDA_ARCH=$(CUDA_ARCH)" "GPU architecture for nvcc, e.g. 75, 80, 86, 89, 90" \
	  "NVCC=$(NVCC)" "" \
	  "MPICXX=$(MPICXX)" "Open MPI's compiler wrapper: its flags build lesson09" \
	  "CC=..." "host compiler for the CPU code (nvcc -ccbin), e.g. CC=gcc-12" \
	  "CXX=..." "host compiler for the emulator (emucc), e.g. CXX=clang++" \
	  "CFLAGS=$(CFLAGS)" "" \
	  "NVCCFLAGS=$(NVCCFLAGS)" "" \
	  "SANITIZE=1" "build with the emulator's --sanitize checks, into build/emu-sanitize" \
	  "" "(make sanitize sets it itself)" \
	  "PROFILE=1" "build with emucc --profile, into build/emu-profile (make profile sets it)" \
	  "LESSON=NN" "make profile: that lesson only" \
	  "GPU_REPORT_QUICK=1" "make gpu-report: build, targets, sanitizers and tests only" \
	  "GRADE_FROM=$(GRADE_FROM)" "make grade: the lessons/ folder whose exercises it checks" \
	  "GRADE_STUDENT=..." "make grade: the student's name in the CSV (default: the folder" \
	  "" "that holds GRADE_FROM)" \
	  "GRADE_CSV=$(GRADE_CSV)" "" "" "make grade: where it writes the CSV" \
	  "GRADE_TIMEOUT=$(GRADE_TIMEOUT)" "make grade: seconds before a run that never ends is stopped" \
	  | sed 's/ *$$//'

clean:
	rm -rf build $(LESSONS)

# ---- benchmarks and charts --------------------------------------------------

# make bench: every lesson at its benchmark sizes, appended to
# plots/results/<device>.csv; then the emulator's own benchmark.
bench: all
	BACKEND=$(BACKEND) BUILD=$(BUILD) sh common/bench.sh $(BUILDABLE_LESSONS)
	$(EMUCC) -O2 -o build/emu-bench common/emu/bench.cu
	./build/emu-bench

# make gpu-report: build, each lesson.conf's TARGET judged, bench,
# sanitizers, ncu's metrics, tests and the charts, into plots/reference/<gpu-slug>/ on a
# GPU, plots/results/cpu-emulation/ without one (common/gpu-report.sh); the
# lessons this machine cannot build are named to it, as problems.
gpu-report:
	@BACKEND=$(BACKEND) CUDA_ARCH=$(CUDA_ARCH) GPU_COUNT=$(GPU_COUNT) NVCC="$(NVCC)" MAKE="$(MAKE)" \
	  LESSONS="$(BUILDABLE_LESSONS)" \
	  GPU_REPORT_NOT_BUILT="$(foreach dir,$(UNBUILDABLE_DIRS),lesson$(call lesson_number,$(dir)): it needs $(call missing,$(dir));)" \
	  bash common/gpu-report.sh

# make plots: charts from the committed reference results (plots/reference/)
# and this machine's (plots/results/, from make bench) into plots/out/.
# Also heat maps of every folder of fields under plots/results/ (as
# ./lesson03 --output plots/results/NAME writes them) into plots/out/NAME.png,
# and lesson 09's model of multi-GPU scaling, which needs no results.
# make gpu-report's folders of reference GPUs: plots/reference/<gpu>/<gpu>.csv
REFERENCE_REPORTS = $(foreach dir,$(wildcard plots/reference/*/),$(wildcard $(dir)$(notdir $(dir:/=)).csv))
FIELD_DIRS = $(patsubst %/final.dat,%,$(wildcard plots/results/*/final.dat))
PNG_FORMAT = $(shell gnuplot -e 'set terminal' 2>&1 | grep -q pngcairo && echo pngcairo || echo png)
plots:
	sh plots/plot.sh plots/out $(or $(wildcard plots/reference/*.csv $(REFERENCE_REPORTS) plots/results/*.csv),plots/results/*.csv)
	@gnuplot -e "format='$(PNG_FORMAT)'; outfile='plots/out/lesson09-model.png'" plots/terminal.gp \
	  plots/multi-gpu-model.gp && echo "drew plots/out/lesson09-model.png (lesson 09's model, not a measurement)"
	@for fields in $(FIELD_DIRS); do \
	  gnuplot -e "format='$(PNG_FORMAT)'; outfile='plots/out/$$(basename $$fields).png'; fields='$$fields'" \
	    plots/terminal.gp plots/heatmaps.gp && echo "drew plots/out/$$(basename $$fields).png"; \
	done
