# podplan - one non-recursive Makefile.
#
#   make deps      install the missing Debian packages (idempotent)
#   make           bin/podplan, plus bin/podplan-calibrate when nvcc and NCCL exist
#   make run       deps + build + the default scenario end to end
#   make test      deps + build + every test under prove, then again under ASan+UBSan
#   make test-only the tests of one build (SAN=1: the sanitizer build), no deps
#   make fuzz      the libFuzzer targets of tests/fuzz/ (clang, ASan+UBSan)
#   make fuzz-run  each of them SECONDS=N (default 60) from its seed corpus
#   make bench     the benchmarks under bench/
#   make bench-instr the same in instructions and cache misses (valgrind)
#   make install   PREFIX=/usr/local DESTDIR=
#   make clean
#
# Automatic header dependencies come from -MMD -MP. Every .c under sim/'s
# layer folders but cli/ and every .c under reports/ goes into
# build/libpodplan.a; sim/cli/ (the commands) links into bin/podplan only;
# every tests/test_*.c becomes a test program (linked with the other
# tests/*.c, the helpers), every tests/t_*.sh is a test script; both speak
# TAP and run under prove (Debian package perl); calibrate/*.c and *.cu build
# podplan-calibrate. The layers and what each may include: sim/LAYERS
# (make check-layers).

PREFIX ?= /usr/local
DESTDIR ?=
CC ?= cc
BUILD ?= build
BINDIR ?= bin
SAN ?=

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wpointer-arith -Wformat=2 -Wvla -Wundef -Wno-format-nonliteral -Wno-format-truncation
CPPFLAGS += -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L -Isim -Ireports -MMD -MP
CFLAGS ?= -O3 -g
CFLAGS += -std=c11 $(WARN) -fno-strict-aliasing
LDLIBS += -lcjson -lgsl -lgslcblas -lsqlite3 -lm -ldl

ifeq ($(SAN),1)
  BUILD := build/san
  BINDIR := build/san/bin
  # float-cast-overflow: a NaN or 1e300 cast to an integer (not part of
  # -fsanitize=undefined)
  CFLAGS += -O1 -fsanitize=address,undefined,float-cast-overflow -fno-omit-frame-pointer \
	-fno-sanitize-recover=all
  LDFLAGS += -fsanitize=address,undefined,float-cast-overflow
endif

LIB_SRC := $(filter-out sim/cli/%,$(wildcard sim/*/*.c)) $(wildcard reports/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
LIB := $(BUILD)/libpodplan.a
CLI_SRC := $(wildcard sim/cli/*.c)
MAIN_OBJ := $(CLI_SRC:%.c=$(BUILD)/%.o)
TEST_SRC := $(wildcard tests/test_*.c)
TEST_BIN := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
TEST_HELPER_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(filter-out $(TEST_SRC),$(wildcard tests/*.c)))
TEST_SH := $(wildcard tests/t_*.sh)
PROVE ?= prove
# --comments: the tests' "# ..." diagnostics (accuracy tables, timings) are
# part of the output, as --failures the "not ok" lines
PROVE_FLAGS ?= -j2 --comments --failures
BENCH_SRC := $(wildcard bench/bench_*.c)
BENCH_BIN := $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%)

# --- CUDA / NCCL / MPI detection for podplan-calibrate ---
CUDA_HOME ?= /usr/local/cuda
NVCC ?= $(shell command -v nvcc 2>/dev/null || { test -x $(CUDA_HOME)/bin/nvcc && echo $(CUDA_HOME)/bin/nvcc; })
NCCL_INC ?= $(firstword $(wildcard $(CUDA_HOME)/include/nccl.h /usr/include/nccl.h))
HAVE_CUDA := $(if $(and $(NVCC),$(NCCL_INC)),1,)
MPICC_SHOW := $(shell command -v mpicc >/dev/null 2>&1 && mpicc --showme:compile 2>/dev/null)
MPI_LINK := $(shell command -v mpicc >/dev/null 2>&1 && mpicc --showme:link 2>/dev/null)
CALIB_C := $(wildcard calibrate/*.c)
CALIB_CU := $(wildcard calibrate/*.cu)
CALIB_OBJ := $(CALIB_C:%.c=$(BUILD)/%.o) $(CALIB_CU:%.cu=$(BUILD)/%.cu.o)
# -isystem: the CUDA, NCCL and MPI headers are not held to our -Werror warnings
CALIB_CPPFLAGS := -isystem $(CUDA_HOME)/include -isystem $(dir $(NCCL_INC)) \
	$(if $(MPICC_SHOW),-DPP_HAVE_MPI $(patsubst -I%,-isystem %,$(MPICC_SHOW)),)
CALIB_LDLIBS := -L$(CUDA_HOME)/lib64 -lnccl -lcublasLt -lcudart_static -ldl -lrt -lpthread \
	$(if $(MPI_LINK),$(MPI_LINK),) -Wl,-rpath,'$$ORIGIN/../lib' -Wl,-rpath,$(CUDA_HOME)/lib64
NVCCFLAGS ?= -O2 -std=c++17 -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
	-gencode arch=compute_90,code=compute_90

ALL := $(BINDIR)/podplan $(if $(HAVE_CUDA),$(if $(CALIB_C),$(BINDIR)/podplan-calibrate,),)

.SECONDARY:
.PHONY: all deps deps-test deps-fuzz deps-install run test check check-layers test-only bench bench-instr \
	install clean calibrate fuzz fuzz-run
all: $(ALL)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(LIB): $(LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(BINDIR)/podplan: $(MAIN_OBJ) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/%: $(BUILD)/tests/%.o $(TEST_HELPER_OBJ) $(LIB)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/bench/%: $(BUILD)/bench/%.o $(LIB)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# calibrate/ is the only place that sees CUDA, NCCL and MPI headers.
$(BUILD)/calibrate/%.o: calibrate/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CALIB_CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(BUILD)/calibrate/%.cu.o: calibrate/%.cu
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) -Isim -c -o $@ $<

$(BINDIR)/podplan-calibrate: $(CALIB_OBJ) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) $(CALIB_LDLIBS) -lstdc++

calibrate: $(BINDIR)/podplan-calibrate

# --- set-up ---
DEB_PKGS := build-essential pkg-config libsqlite3-dev libcjson-dev libgsl-dev libopenmpi-dev \
	openmpi-bin sqlite3 python3
# the tests also drive a real browser (report rendering); prove is in perl
DEB_PKGS_TEST := $(DEB_PKGS) chromium perl
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
deps:
	@$(MAKE) --no-print-directory deps-install PKGS="$(DEB_PKGS)"
deps-test:
	@$(MAKE) --no-print-directory deps-install PKGS="$(DEB_PKGS_TEST)"
# make fuzz only: clang with its sanitizer and libFuzzer runtimes
DEB_PKGS_FUZZ := $(DEB_PKGS) clang libclang-rt-dev
deps-fuzz:
	@$(MAKE) --no-print-directory deps-install PKGS="$(DEB_PKGS_FUZZ)"
deps-install:
	@missing=""; for p in $(PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "make deps: installing$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing >/dev/null || exit 1; \
	fi

DEFAULT_SCENARIO ?= scenarios/llama70b-2T-tokens-rent-h100-or-build-h100-or-h200.json
run: deps
	@$(MAKE) --no-print-directory all
	./$(BINDIR)/podplan predict $(DEFAULT_SCENARIO)
	./$(BINDIR)/podplan report $(DEFAULT_SCENARIO) -o $(BUILD)/report
	@echo "open $(BUILD)/report/index.html (in this folder) in a browser"

test: deps-test
	@$(MAKE) --no-print-directory all test-only
	@$(MAKE) --no-print-directory SAN=1 test-only

# every test script and test program under prove, two at a time (the slow
# shell test first); each makes its own temporary directory and store
# (tests/harness.h), so none depends on another. The output ends on prove's
# summary.
test-only: check-layers $(ALL) $(TEST_BIN)
	@PODPLAN_BIN="$(abspath $(BINDIR))/podplan" PODPLAN_DATA="$(CURDIR)/models" PODPLAN_BUILD="$(BUILD)" \
	  $(PROVE) $(PROVE_FLAGS) $(TEST_SH) $(TEST_BIN)

# no file includes a header of a layer above its own (sim/LAYERS), and no
# two files of one folder call each other round (from the objects' symbols)
check-layers: $(LIB_OBJ) $(MAIN_OBJ)
	@sh tests/check-layers.sh . $(BUILD)

check: test

# --- fuzzing: every tests/fuzz/fuzz_*.c is a libFuzzer target, linked with
# the library built again by clang under ASan, UBSan and float-cast-overflow
# (build/fuzz/); tests/fuzz/run.sh seeds each corpus from scenarios/ and
# tests/ and prints executions and findings ---
FUZZ_CC ?= clang
FUZZ_BUILD := build/fuzz
FUZZ_SAN := -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all
FUZZ_CFLAGS := -std=c11 -g -O1 -fno-omit-frame-pointer $(WARN) -Wno-unknown-warning-option \
	-fno-strict-aliasing $(FUZZ_SAN)
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=$(FUZZ_BUILD)/%)
FUZZ_LIB_OBJ := $(LIB_SRC:%.c=$(FUZZ_BUILD)/%.o)
FUZZ_HELPER_OBJ := $(patsubst %.c,$(FUZZ_BUILD)/%.o,$(filter-out $(FUZZ_SRC),$(wildcard tests/fuzz/*.c)))
SECONDS ?= 60

$(FUZZ_BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) -Itests/fuzz $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_BUILD)/libpodplan.a: $(FUZZ_LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(FUZZ_BUILD)/fuzz_%: $(FUZZ_BUILD)/tests/fuzz/fuzz_%.o $(FUZZ_HELPER_OBJ) $(FUZZ_BUILD)/libpodplan.a
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)

fuzz: deps-fuzz
	@$(MAKE) --no-print-directory $(FUZZ_BIN)

fuzz-run: fuzz
	@PODPLAN_DATA="$(CURDIR)/models" sh tests/fuzz/run.sh "$(FUZZ_BUILD)" "$(SECONDS)"

bench: deps
	@$(MAKE) --no-print-directory all $(BENCH_BIN)
	@sh bench/run.sh "$(BUILD)" "$(BINDIR)"

# the same targets in instructions and last-level-cache misses under
# valgrind's cachegrind (caches fixed): figures that do not move with the
# machine (bench/bench.py --instructions; several minutes)
bench-instr:
	@$(MAKE) --no-print-directory deps-install PKGS="$(DEB_PKGS) valgrind"
	@$(MAKE) --no-print-directory all $(BENCH_BIN)
	@sh bench/run.sh "$(BUILD)" "$(BINDIR)" --instructions

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/podplan/models
	install -m 755 $(ALL) $(DESTDIR)$(PREFIX)/bin/
	cp -R models/. $(DESTDIR)$(PREFIX)/share/podplan/models/
	install -d $(DESTDIR)$(PREFIX)/share/podplan/scenarios
	cp -R scenarios/. $(DESTDIR)$(PREFIX)/share/podplan/scenarios/

clean:
	rm -rf build bin

-include $(shell find build -name '*.d' 2>/dev/null)
