# CUDA C Workbook - build the lessons, their exercises, the tests.
#
#   make lesson01 && ./lesson01     build and run a lesson
#   make test                       the whole test suite
#   make help                       every target and variable
#
# Every lesson lives in lessons/NN-topic/: one lesson program (any .cu file
# but exercise.cu and exercise_check.cu), and optionally an exercise. Adding a
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

# CFLAGS go to the host compiler for the CPU code (the lesson's CPU version
# is spread over all cores with OpenMP); NVCCFLAGS to nvcc or the emulator.
CFLAGS ?= -O3 -Wall -Wextra -Wno-unused-parameter
NVCCFLAGS ?= -O3 -std=c++17
comma := ,
space := $(subst x, ,x)
HOST_FLAGS := -Xcompiler $(subst $(space),$(comma),$(strip $(CFLAGS) -fopenmp))
# CC: the host compiler for the CPU code, when set (nvcc's -ccbin); nvcc
# links with it too, so the C++ library is named for a C compiler's sake.
ifneq ($(origin CC),default)
  HOST_FLAGS += -ccbin $(CC)
  LINK_LIBRARIES := -lstdc++
endif

ifeq ($(BACKEND),cuda)
  COMPILER := $(NVCC)
  BUILD := build/cuda-sm$(CUDA_ARCH)
  ARCH_FLAGS := -arch=sm_$(CUDA_ARCH) -lineinfo
  LINK_DEPENDENCIES :=
else
  COMPILER := $(EMUCC)
  BUILD := build/emu
  ARCH_FLAGS :=
  # emucc links the emulator's runtime into every program: relink when it changes
  LINK_DEPENDENCIES := $(EMUCC) $(wildcard common/emu/runtime/* common/emu/include/*.h common/emu/include/*/*.h)
endif
ALL_FLAGS = $(NVCCFLAGS) $(ARCH_FLAGS) $(HOST_FLAGS) -Icommon

# ---- what there is to build -------------------------------------------------

LESSON_DIRS := $(sort $(wildcard lessons/[0-9][0-9]-*))
lesson_number = $(firstword $(subst -, ,$(notdir $(1))))
lesson_source = $(filter-out %/exercise.cu %/exercise_check.cu,$(wildcard $(1)/*.cu))
LESSONS := $(foreach dir,$(LESSON_DIRS),lesson$(call lesson_number,$(dir)))
EXERCISE_DIRS := $(foreach dir,$(LESSON_DIRS),$(if $(wildcard $(dir)/exercise.cu),$(dir)))
EXERCISES := $(foreach dir,$(EXERCISE_DIRS),exercise$(call lesson_number,$(dir)))
SOLUTIONS := $(foreach dir,$(EXERCISE_DIRS),solution$(call lesson_number,$(dir)))

COMMON_OBJECT := $(BUILD)/common/workbook.o

.PHONY: all help test test-programs nvcc-check bench plots doctor clean \
        $(LESSONS) $(EXERCISES) $(SOLUTIONS) check-compiler

all: $(LESSONS)

# make lessonNN: build the lesson for $(BACKEND) and copy it to ./lessonNN.
# define ... endef writes the same three rules for every lesson directory.
define lesson_rules
$(BUILD)/lesson$(call lesson_number,$(1)): $(patsubst %.cu,$(BUILD)/%.o,$(call lesson_source,$(1))) $(COMMON_OBJECT) $(LINK_DEPENDENCIES)
	$$(COMPILER) $$(ALL_FLAGS) -o $$@ $$(filter %.o,$$^) $$(LINK_LIBRARIES)

lesson$(call lesson_number,$(1)): check-compiler $(BUILD)/lesson$(call lesson_number,$(1))
	@cp -f $(BUILD)/lesson$(call lesson_number,$(1)) $$@
	@echo "built ./$$@ (backend $(BACKEND))"
endef

# make exerciseNN: build your exercise.cu with its checker and run it.
# make solutionNN: the same with the worked solution in solutions/.
define exercise_rules
$(BUILD)/exercise$(call lesson_number,$(1)): $(BUILD)/$(1)/exercise.o $(BUILD)/$(1)/exercise_check.o $(COMMON_OBJECT) $(LINK_DEPENDENCIES)
	$$(COMPILER) $$(ALL_FLAGS) -o $$@ $$(filter %.o,$$^) $$(LINK_LIBRARIES)

$(BUILD)/solution$(call lesson_number,$(1)): $(BUILD)/solutions/$(notdir $(1))/exercise.o $(BUILD)/$(1)/exercise_check.o $(COMMON_OBJECT) $(LINK_DEPENDENCIES)
	$$(COMPILER) $$(ALL_FLAGS) -o $$@ $$(filter %.o,$$^) $$(LINK_LIBRARIES)

exercise$(call lesson_number,$(1)): check-compiler $(BUILD)/exercise$(call lesson_number,$(1))
	@./$(BUILD)/exercise$(call lesson_number,$(1))

solution$(call lesson_number,$(1)): check-compiler $(BUILD)/solution$(call lesson_number,$(1))
	@./$(BUILD)/solution$(call lesson_number,$(1))
endef

$(foreach dir,$(LESSON_DIRS),$(eval $(call lesson_rules,$(dir))))
$(foreach dir,$(EXERCISE_DIRS),$(eval $(call exercise_rules,$(dir))))

$(BUILD)/%.o: %.cu
	@mkdir -p $(dir $@)
	$(COMPILER) $(ALL_FLAGS) -MMD -MP -c $< -o $@

# headers are dependencies: the compiler wrote them into the .d files
-include $(shell find build -name '*.d' 2>/dev/null)

check-compiler:
ifeq ($(BACKEND),cuda)
	@command -v $(NVCC) >/dev/null 2>&1 || { echo "nvcc not found (NVCC=$(NVCC)): install the CUDA Toolkit and put its bin/ on PATH, or build with BACKEND=emu; make doctor says more" >&2; exit 1; }
endif

# ---- tests ------------------------------------------------------------------

# Every program for the tests: the emulator build always; the nvcc build too
# when nvcc is installed, so that code which only works off the GPU cannot
# slip in (it must compile for a real GPU architecture).
HAVE_NVCC := $(shell command -v $(NVCC) >/dev/null 2>&1 && echo yes)
BUILD_NAMES := $(foreach dir,$(LESSON_DIRS),$(BUILD)/lesson$(call lesson_number,$(dir))) \
               $(foreach dir,$(EXERCISE_DIRS),$(BUILD)/exercise$(call lesson_number,$(dir)) \
                                              $(BUILD)/solution$(call lesson_number,$(dir)))
test-programs: $(BUILD_NAMES)

ALL_CU := $(shell find lessons solutions common tests -name '*.cu' 2>/dev/null | sort)
NVCC_CHECK := build/nvcc-check-sm$(CUDA_ARCH)

# Compiles every .cu in the repository with nvcc for a real GPU architecture.
nvcc-check: $(patsubst %.cu,$(NVCC_CHECK)/%.o,$(ALL_CU))

$(NVCC_CHECK)/%.o: %.cu
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) -arch=sm_$(CUDA_ARCH) $(HOST_FLAGS) -Icommon -MMD -MP -c $< -o $@

BATS_LIBRARIES := $(or $(BATS_LIB_PATH),/usr/lib/bats)

test:
	@command -v bats >/dev/null 2>&1 && [ -d "$(BATS_LIBRARIES)/bats-assert" ] || { \
	  echo "make test needs bats with bats-assert and bats-support:" \
	       "sudo apt-get install bats bats-assert bats-support gnuplot-nox" >&2; exit 1; }
	$(MAKE) --no-print-directory BACKEND=emu test-programs
ifeq ($(HAVE_NVCC),yes)
	$(MAKE) --no-print-directory BACKEND=cuda test-programs
	$(MAKE) --no-print-directory nvcc-check
else
	@echo "nvcc not found: skipping the nvcc builds (the emulator tests still run)"
endif
	@mkdir -p build
	@set -o pipefail; WORKBOOK_EMU_BUILD=build/emu WORKBOOK_CUDA_BUILD=build/cuda-sm$(CUDA_ARCH) \
	  WORKBOOK_GPU_COUNT=$(GPU_COUNT) bats --tap tests | tee build/tests.tap; \
	  status=$$?; \
	  if command -v clang++ >/dev/null; then \
	    echo "# the emulator's tests again, with clang++ as emucc's host compiler"; \
	    EMU_CXX=clang++ bats --tap tests/emu.bats | tee -a build/tests.tap || status=1; \
	  else echo "clang++ not found: the emulator's tests ran with g++ only"; fi; \
	  sh common/tap-summary.sh build/tests.tap; exit $$status

# ---- lab tools ----------------------------------------------------------------

doctor:
	@NVCC="$(NVCC)" CUDA_ARCH="$(CUDA_ARCH)" BACKEND="$(BACKEND)" sh common/doctor.sh

help:
	@echo "CUDA C Workbook"
	@echo ""
	@echo "targets:"
	@echo "  lessonNN       build ./lessonNN (here: $(LESSONS))"
	@echo "  all            build every lesson"
	@echo "  exerciseNN     build your lessons/NN-*/exercise.cu and check it (here: $(EXERCISES))"
	@echo "  solutionNN     the same with the worked solution in solutions/"
	@echo "  test           build everything and run the Bats test suite in tests/"
	@echo "  bench          run every lesson over a size sweep; append to plots/results/<device>.csv;"
	@echo "                 then the emulator's own benchmark (context switch, 16M reduction)"
	@echo "  plots          check plots/results/*.csv and draw charts into plots/out/ (PNG and SVG)"
	@echo "  doctor         check this machine: nvcc, driver, GPUs, the architecture built for"
	@echo "  clean          remove build/ and the lesson programs"
	@echo ""
	@echo "variables (make VAR=value ...), now:"
	@echo "  BACKEND=$(BACKEND)       cuda, emu (CPU emulation) or auto (cuda when a GPU is usable)"
	@echo "  CUDA_ARCH=$(CUDA_ARCH)        GPU architecture for nvcc, e.g. 75, 80, 86, 89, 90"
	@echo "  NVCC=$(NVCC)"
	@echo "  CC=...                host compiler for the CPU code (nvcc -ccbin), e.g. CC=gcc-12"
	@echo "  CFLAGS=$(CFLAGS)"
	@echo "  NVCCFLAGS=$(NVCCFLAGS)"

clean:
	rm -rf build $(LESSONS)

# ---- benchmarks and charts --------------------------------------------------

# make bench: every lesson at its benchmark sizes, appended to
# plots/results/<device>.csv; then the emulator's own benchmark.
bench: all
	BACKEND=$(BACKEND) BUILD=$(BUILD) sh common/bench.sh $(LESSONS)
	$(EMUCC) -O2 -o build/emu-bench common/emu/bench.cu
	./build/emu-bench

# make plots: charts from plots/results/*.csv into plots/out/ (PNG and SVG).
plots:
	sh plots/plot.sh plots/out plots/results/*.csv
