# threadlens build.
#
#   make            build build/threadlens (installs missing Debian packages as root)
#   make demo       build, record the bundled demo, print its report
#   make check      build and run every test tier, ends with a summary line
#   make bench      benchmarks against perf (not part of check)
#   make fuzz       longer fuzzing runs (FUZZ_SECONDS per target)
#   make format     rewrite the C files in the style of .clang-format (make check
#                   fails on any file that differs: scripts/format.sh)
#   make SANITIZE=address,undefined check    the suite under ASan + UBSan
#   make CC=clang   build with clang (both compilers must stay warning-free)
#   make install    install the command, the marker library, its header and
#                   pkg-config file under PREFIX (/usr/local); DESTDIR works;
#                   make uninstall removes them
#
# Library code (lib/, in folders by rank: docs/LAYOUT.md) is built into
# build/libtlcore.a; the CLI (src/) links it.
# Every tests/unit/test_*.c becomes its own test program, every
# tests/live/wl_*.c a workload, every tests/fuzz/fuzz_*.c a libFuzzer target.
# The marker library (instr/, include/threadlens.h) becomes
# build/libthreadlens.a and build/libthreadlens.so; workloads link it.

VERSION := 0.1.0
CC ?= cc
BUILD ?= build
SANITIZE ?=

PKGS := libtraceevent libtracefs libzstd libelf libdw libbpf sqlite3
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS = $(shell pkg-config --libs $(PKGS) 2>/dev/null)

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter
CFLAGS ?= -O2 -g
BASE_CFLAGS := -std=c17 -D_GNU_SOURCE $(WARN) -fvisibility=hidden -iquote lib -iquote $(BUILD)/bpf -DTL_VERSION='"$(VERSION)"'
ifneq ($(SANITIZE),)
CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS += -fsanitize=$(SANITIZE)
endif
ALL_CFLAGS = $(BASE_CFLAGS) $(PKG_CFLAGS) $(CFLAGS)
LIBS = $(PKG_LIBS) -lgomp -lpthread -lm

# lib/ is in folders by pipeline stage (docs/LAYOUT.md); includes name the
# folder: #include "trace/event.h".
LIB_SRC := $(sort $(shell find lib -name '*.c' -not -name '*.bpf.c'))
# eBPF programs (lib/capture/bpf/NAME.bpf.c): compiled with clang -target bpf,
# CO-RE, and built into the binary through bpftool's skeleton, included as
# "capture/bpf/NAME.skel.h" (generated in $(BUILD)/bpf/capture/bpf/).
BPF_SRC := $(sort $(shell find lib -name '*.bpf.c'))
BPF_SKEL := $(patsubst lib/%.bpf.c,$(BUILD)/bpf/%.skel.h,$(BPF_SRC))
BPF_CLANG ?= clang
BPFTOOL ?= $(shell command -v bpftool 2>/dev/null || echo /usr/sbin/bpftool)
BPF_ARCH := $(shell uname -m | sed 's/x86_64/x86/; s/aarch64/arm64/')
BPF_CFLAGS = -g -O2 -Wall -target bpf -ffreestanding -D__TARGET_ARCH_$(BPF_ARCH) -iquote lib -I/usr/include/$(shell gcc -dumpmachine 2>/dev/null)
CLI_SRC := $(sort $(wildcard src/*.c))
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
WL_SRC := $(sort $(wildcard tests/live/wl_*.c))
FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz_*.c))
DEMO_SRC := $(sort $(wildcard demo/*.c))

LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/%.o)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
WL_BIN := $(WL_SRC:tests/live/%.c=$(BUILD)/tests/%) $(BUILD)/tests/wl_hot_nofp
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/fuzz/%)
DEMO_BIN := $(DEMO_SRC:demo/%.c=$(BUILD)/demo/%)
CORE_LIB := $(BUILD)/libtlcore.a
TL := $(BUILD)/threadlens

# The marker library: position-independent objects of its own for both
# archives; only the calls of threadlens.h are exported (TL_EXPORT).
INSTR_SRC := $(sort $(wildcard instr/*.c))
INSTR_OBJ := $(INSTR_SRC:%.c=$(BUILD)/%.pic.o)
INSTR_ABI := 1
INSTR_A := $(BUILD)/libthreadlens.a
INSTR_SO := $(BUILD)/libthreadlens.so.$(INSTR_ABI).0
INSTR_LIBS := $(INSTR_A) $(INSTR_SO) $(BUILD)/libthreadlens.so.$(INSTR_ABI) $(BUILD)/libthreadlens.so
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
INCLUDEDIR ?= $(PREFIX)/include
LIBDIR ?= $(PREFIX)/lib

.PHONY: all deps demo check tests fuzz bench bench-marks clean format install uninstall
all: deps $(TL) $(DEMO_BIN) $(INSTR_LIBS) $(BUILD)/doc-examples.ok

# Installs what is missing (as root) or says what to install; see the script.
deps:
	@scripts/deps.sh build

# deps first: on a fresh machine the libraries (and their pkg-config flags,
# read when a recipe runs) appear only once scripts/deps.sh installed them.
$(BUILD)/%.o: %.c | deps
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

# The HTML report's script and style are copied into this object (.incbin).
$(BUILD)/lib/export/html_assets.o: $(wildcard lib/export/html/*.js lib/export/html/*.css)
# calibrate's microbenchmarks run OpenMP constructs with the installed libgomp
$(BUILD)/lib/analysis/predict/calibrate.o: CFLAGS += -fopenmp

$(BUILD)/bpf/%.bpf.o: lib/%.bpf.c | deps
	@mkdir -p $(dir $@)
	$(BPF_CLANG) $(BPF_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/bpf/%.skel.h: $(BUILD)/bpf/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $(notdir $*) >$@.tmp && mv $@.tmp $@

# The library's objects may include a skeleton (the .d files say which, after the first build).
$(LIB_OBJ): | $(BPF_SKEL)

$(CORE_LIB): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(TL): $(CLI_OBJ) $(CORE_LIB)
	$(CC) $(LDFLAGS) $(CLI_OBJ) $(CORE_LIB) $(LIBS) -o $@

$(BUILD)/tests/%: tests/unit/%.c $(wildcard tests/unit/*.h) $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests/unit $(LDFLAGS) $< $(CORE_LIB) $(LIBS) -o $@

# wl_hot's functions stay named in .dynsym, for the stripped-build test of `profile`;
# frame pointers give its samples their callers (the flame graph of the HTML test)
$(BUILD)/tests/wl_hot: LDFLAGS += -rdynamic
$(BUILD)/tests/wl_hot: CFLAGS += -fno-omit-frame-pointer
# the validation kernel of predict runs a real OpenMP version too
$(BUILD)/tests/wl_filter $(BUILD)/tests/wl_fast $(BUILD)/tests/wl_sort: CFLAGS += -fopenmp
# and without them, for record --stack dwarf
$(BUILD)/tests/wl_hot_nofp: tests/live/wl_hot.c tests/live/workload.h $(INSTR_A)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -fomit-frame-pointer -Itests/live -Iinclude $(LDFLAGS) -rdynamic $< $(INSTR_A) -lpthread -lm -o $@

$(BUILD)/tests/wl_%: tests/live/wl_%.c tests/live/workload.h $(INSTR_A)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -Itests/live -Iinclude $(LDFLAGS) $< $(INSTR_A) -lpthread -lm -o $@

$(BUILD)/instr/%.pic.o: instr/%.c | deps
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) -Iinclude $(CFLAGS) -fPIC -MMD -MP -c $< -o $@

$(INSTR_A): $(INSTR_OBJ)
	@rm -f $@
	ar rcs $@ $^

# -z defs: the library needs nothing but libc; not with sanitizers, whose
# runtime the program brings.
$(INSTR_SO): $(INSTR_OBJ)
	$(CC) -shared -Wl,-soname,libthreadlens.so.$(INSTR_ABI) $(if $(SANITIZE),,-Wl,-z,defs) $(LDFLAGS) $^ -lpthread -o $@

$(BUILD)/libthreadlens.so.$(INSTR_ABI) $(BUILD)/libthreadlens.so: $(INSTR_SO)
	ln -sf $(notdir $(INSTR_SO)) $@

# test_marks drives both ends of the marker protocol in one process.
$(BUILD)/tests/test_marks: tests/unit/test_marks.c $(wildcard tests/unit/*.h) $(CORE_LIB) $(INSTR_A)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests/unit -Iinstr -Iinclude $(LDFLAGS) $< $(INSTR_A) $(CORE_LIB) $(LIBS) -o $@

# The instrumented program of tests/cli/test_marks.sh.
$(BUILD)/tests/marks_prog: tests/cli/marks_prog.c include/threadlens.h $(INSTR_A)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) -Iinclude $(CFLAGS) $(LDFLAGS) $< $(INSTR_A) -lpthread -o $@

# The synthetic span trace writer of tests/cli/test_hist.sh and bench/hist.sh.
$(BUILD)/tests/gen_spans: bench/gen_spans.c $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) $< $(CORE_LIB) $(LIBS) -o $@

# The synthetic task trace of bench/predict.sh.
$(BUILD)/tests/gen_tasks: bench/gen_tasks.c $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) $< $(CORE_LIB) $(LIBS) -o $@

$(BUILD)/demo/%: demo/%.c $(INSTR_A)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -Iinclude $(LDFLAGS) $< $(INSTR_A) -lpthread -lm -o $@

# Fuzz targets always use clang's libFuzzer with ASan + UBSan, in their own
# objects: the library is compiled once for them (instrumented, without
# libFuzzer's main) into libtlfuzz.a, and each target links it.
FUZZ_CC ?= clang
FUZZ_SAN := -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_FLAGS := $(FUZZ_SAN) -fsanitize=fuzzer
FUZZ_OBJ := $(LIB_SRC:%.c=$(BUILD)/fuzzobj/%.o)
FUZZ_LIB := $(BUILD)/libtlfuzz.a
$(FUZZ_OBJ): | $(BPF_SKEL)
$(BUILD)/fuzzobj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(BASE_CFLAGS) $(PKG_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@
$(FUZZ_LIB): $(FUZZ_OBJ)
	@rm -f $@
	ar rcs $@ $^
$(BUILD)/fuzz/%: tests/fuzz/%.c $(FUZZ_LIB)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(BASE_CFLAGS) $(PKG_CFLAGS) $(FUZZ_FLAGS) $< $(FUZZ_LIB) $(PKG_LIBS) -lpthread -lm -o $@

# Every C example of README.md and docs/*.md compiles, with the library's own
# flags (scripts/doc_examples.sh; a part of a file follows <!-- fragment -->).
$(BUILD)/doc-examples.ok: scripts/doc_examples.sh README.md $(wildcard docs/*.md) include/threadlens.h $(INSTR_A) $(CORE_LIB)
	@TL_DOC_CFLAGS="$(filter-out -DTL_VERSION=%,$(BASE_CFLAGS)) $(CFLAGS)" scripts/doc_examples.sh $(BUILD) >$@.log || \
		{ grep -v '^ok' $@.log >&2; exit 1; }
	@mv $@.log $@

demo: all
	@scripts/demo.sh $(TL) $(BUILD)

# Everything the test tiers run, for one build directory.
tests: $(TL) $(DEMO_BIN) $(UNIT_BIN) $(WL_BIN) $(INSTR_LIBS) $(BUILD)/tests/marks_prog $(BUILD)/tests/gen_spans $(BUILD)/tests/gen_tasks

# The whole suite on this build, then again on an ASan + UBSan build in
# build-san (fuzz targets are sanitized anyway and run once).
check: all
	@scripts/deps.sh check
	@$(MAKE) --no-print-directory tests $(FUZZ_BIN)
	@$(MAKE) --no-print-directory BUILD=build-san SANITIZE=address,undefined tests
	@scripts/check.sh $(BUILD) build-san

fuzz: all
	@scripts/deps.sh check
	@$(MAKE) --no-print-directory $(FUZZ_BIN)
	@scripts/fuzz.sh $(BUILD) $${FUZZ_SECONDS:-60}

bench: all
	@scripts/deps.sh bench
	@$(MAKE) --no-print-directory $(WL_BIN)
	@bench/run.sh $(BUILD)
	@bench/marks.sh $(BUILD)
	@bench/hist.sh $(BUILD)

# Only the marker cost (bench/marks.sh, about 2 minutes).
bench-marks: all
	@bench/marks.sh $(BUILD)

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(LIBDIR)/pkgconfig
	install -m 755 $(TL) $(DESTDIR)$(BINDIR)/threadlens
	install -m 644 include/threadlens.h $(DESTDIR)$(INCLUDEDIR)/threadlens.h
	install -m 644 $(INSTR_A) $(DESTDIR)$(LIBDIR)/libthreadlens.a
	install -m 755 $(INSTR_SO) $(DESTDIR)$(LIBDIR)/$(notdir $(INSTR_SO))
	ln -sf $(notdir $(INSTR_SO)) $(DESTDIR)$(LIBDIR)/libthreadlens.so.$(INSTR_ABI)
	ln -sf libthreadlens.so.$(INSTR_ABI) $(DESTDIR)$(LIBDIR)/libthreadlens.so
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
	    -e 's|@VERSION@|$(VERSION)|g' instr/threadlens.pc.in >$(DESTDIR)$(LIBDIR)/pkgconfig/threadlens.pc
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && command -v ldconfig >/dev/null; then ldconfig; fi

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/threadlens $(DESTDIR)$(INCLUDEDIR)/threadlens.h \
	      $(DESTDIR)$(LIBDIR)/libthreadlens.a $(DESTDIR)$(LIBDIR)/$(notdir $(INSTR_SO)) \
	      $(DESTDIR)$(LIBDIR)/libthreadlens.so.$(INSTR_ABI) $(DESTDIR)$(LIBDIR)/libthreadlens.so \
	      $(DESTDIR)$(LIBDIR)/pkgconfig/threadlens.pc

format:
	@scripts/deps.sh check
	@scripts/format.sh --fix

clean:
	rm -rf $(BUILD) build-*

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(INSTR_OBJ:.o=.d) $(BPF_SKEL:.skel.h=.bpf.d) $(FUZZ_OBJ:.o=.d)
