# stcluster - plain Makefile (fio's manner): automatic dependencies, quiet
# rules (V=1 shows commands), a sanitizer build, packages via pkg-config.
#
#   make            build ./stcluster
#   make check      unit + MPI tests, on the normal and the ASan+UBSan build; a short fuzz run
#   make demo       install what is missing (as root), build, run a sweep, report
#   make sanitize   build build-san/stcluster with ASan+UBSan
#   make nolibnfs   build build-nolibnfs/stcluster without the libnfs engine (NO_LIBNFS=1)
#   make fuzz-build build the libFuzzer targets of tests/fuzz/ into build-fuzz/ (clang)
#   make fuzz       run each of them FUZZ_SECONDS (600) on a corpus kept in build-fuzz/
#   make install    PREFIX=/usr/local (bin/stcluster, share/man/man1/stcluster.1)
#   make clean

PREFIX   ?= /usr/local
DESTDIR  ?=
CC       ?= cc
BUILD    ?= build
PKGS     := ompi-c hwloc uuid sqlite3 libcrypto zlib

ifeq ($(V),1)
Q :=
else
Q := @
endif

# optional: the libnfs engine, when libnfs is there (tests/deps.sh installs
# it); NO_LIBNFS=1 leaves it out even then (make check builds so once).
# Without it the binary says so for --engine libnfs; the nfs:// parser
# (worker/lnfs_url.c) is plain C and always built.
ifneq ($(NO_LIBNFS),1)
HAVE_LIBNFS := $(shell pkg-config --exists libnfs && echo yes)
endif
# Only its headers: libnfs is loaded at run time (dlopen in worker/lnfs_lib.c,
# issue 19) by the soname of the library those headers belong to, so the
# binary starts on a node without it.
ifeq ($(HAVE_LIBNFS),yes)
FEATURES += -DST_HAVE_LIBNFS $(shell pkg-config --cflags libnfs)
LIBNFS_SONAME := $(shell objdump -p $$(pkg-config --variable=libdir libnfs)/libnfs.so 2>/dev/null | awk '$$1 == "SONAME" { print $$2 }')
ifneq ($(LIBNFS_SONAME),)
FEATURES += -DLNFS_SONAME='"$(LIBNFS_SONAME)"'
endif
endif
LIBNFS_SRC := worker/engine_libnfs.c worker/lnfs_rpc.c worker/lnfs_lib.c

# optional: the posix engine's request queue for --iodepth > 1 (issue 14):
# io_uring through liburing's header (pkg-config), else libaio's header (no
# .pc); NO_LIBURING=1 / NO_LIBAIO=1 leave one out. Only the headers: the
# libraries are loaded at run time (dlopen in worker/posix_aio.c, issue 19),
# so the binary starts on a host without them and each thread's io_mode says
# which queue it had and why. Without either the engine issues one call at a
# time.
ifneq ($(NO_LIBURING),1)
HAVE_LIBURING := $(shell pkg-config --exists liburing && echo yes)
endif
ifeq ($(HAVE_LIBURING),yes)
FEATURES += -DST_HAVE_LIBURING $(shell pkg-config --cflags liburing)
endif
ifneq ($(NO_LIBAIO),1)
HAVE_LIBAIO := $(shell printf '\043include <libaio.h>\n' | $(CC) -E -x c - >/dev/null 2>&1 && echo yes)
endif
ifeq ($(HAVE_LIBAIO),yes)
FEATURES += -DST_HAVE_LIBAIO
endif

PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)

CFLAGS  ?= -O2 -g
CFLAGS  += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
           -Wno-format-truncation -fno-strict-aliasing $(FEATURES) $(PKG_CFLAGS) $(EXTRA_CFLAGS)
LDFLAGS += $(EXTRA_LDFLAGS)
# clang (make CC=clang, make fuzz-build) knows no -Wno-format-truncation
ifneq ($(shell $(CC) --version 2>/dev/null | grep -c clang),0)
CFLAGS  += -Wno-unknown-warning-option
endif
LDLIBS  += $(PKG_LIBS) -lpthread -lm

LIB_SRC := $(wildcard common/*.c) \
           $(filter-out $(if $(HAVE_LIBNFS),,$(LIBNFS_SRC)),$(wildcard worker/*.c)) \
           $(filter-out coordinator/main.c,$(wildcard coordinator/*.c coordinator/*/*.c))
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o) $(BUILD)/sql_embed.o
UNIT_SRC := $(wildcard tests/unit/*.c)
UNIT_OBJ := $(UNIT_SRC:%.c=$(BUILD)/%.o)
FUZZ_SRC := $(wildcard tests/fuzz/*.c)
FUZZ_OBJ := $(FUZZ_SRC:%.c=$(BUILD)/%.o)
DEPS    := $(LIB_OBJ:.o=.d) $(UNIT_OBJ:.o=.d) $(FUZZ_OBJ:.o=.d) $(BUILD)/coordinator/main.d

# libFuzzer targets (tests/fuzz/): clang, the library instrumented for
# coverage with ASan and UBSan, linked with libFuzzer's main
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 600
FUZZ_TARGETS ?= $(filter-out fuzz_check $(if $(HAVE_LIBNFS),,fuzz_url),$(basename $(notdir $(FUZZ_SRC))))
FUZZ_SAN     := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all

ifeq ($(BUILD),build)
BIN := stcluster
else
BIN := $(BUILD)/stcluster
endif

.PHONY: FORCE all check check-slow demo deps sanitize nolibnfs wire-other install clean unit bench man fuzz fuzz-build fuzz-targets
all: $(BIN) $(BUILD)/unit $(BUILD)/stcluster.1

# objects are rebuilt when the flags change (a feature found, a sanitizer)
$(BUILD)/.cflags: FORCE
	@mkdir -p $(BUILD)
	@echo '$(CC) $(CFLAGS)' | cmp -s - $@ || echo '$(CC) $(CFLAGS)' > $@

$(BUILD)/%.o: %.c $(BUILD)/.cflags
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) $(EXTRA_DEFS) -MMD -MP -c -o $@ $<

# sql/*.sql become C strings, so the binary carries its schema; each named
# query sql/queries/NAME.sql becomes st_sql_q_NAME
QUERY_SQL := $(sort $(wildcard sql/queries/*.sql))
$(BUILD)/sql_embed.c: sql/schema.sql sql/views.sql $(QUERY_SQL) tests/embed.sh
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  EMBED   $@")
	$(Q)sh tests/embed.sh st_sql_schema sql/schema.sql st_sql_views sql/views.sql \
		$(foreach q,$(QUERY_SQL),st_sql_q_$(basename $(notdir $(q))) $(q)) > $@.tmp && mv $@.tmp $@

$(BUILD)/sql_embed.o: $(BUILD)/sql_embed.c $(BUILD)/.cflags
	$(Q)$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/libstcluster.a: $(LIB_OBJ)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^

# the version (--version, the man page, run.stcluster_version): git describe
# of the tree, -dirty with uncommitted changes. The header is written only
# when that text changes, so a new commit (or a first edit) rebuilds the two
# objects that include it, and nothing else.
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo 0.1)
VERSION_OBJ := $(BUILD)/coordinator/main.o $(BUILD)/coordinator/store/store.o
$(BUILD)/gen/version.h: FORCE
	@mkdir -p $(dir $@)
	@echo '#define ST_VERSION "$(VERSION)"' | cmp -s - $@ || \
		{ $(if $(Q),echo "  GEN     $@";) echo '#define ST_VERSION "$(VERSION)"' > $@; }
$(VERSION_OBJ): $(BUILD)/gen/version.h
$(VERSION_OBJ): EXTRA_DEFS = -I$(BUILD)/gen

$(BIN): $(BUILD)/coordinator/main.o $(BUILD)/libstcluster.a
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/unit: $(UNIT_OBJ) $(BUILD)/libstcluster.a
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# stcluster(1), written by the binary from its options table: it cannot drift
$(BUILD)/stcluster.1: $(BIN)
	@$(if $(Q),echo "  MAN     $@")
	$(Q)./$(BIN) --help-man > $@.tmp && mv $@.tmp $@

man: $(BUILD)/stcluster.1

unit: $(BUILD)/unit
	$(BUILD)/unit

# the build without the optional libnfs engine, as on a machine without
# libnfs-dev (tests/mpi/t_bad_input.sh: once_built_without_libnfs runs it)
nolibnfs:
	$(MAKE) BUILD=build-nolibnfs NO_LIBNFS=1 all

# a binary of another wire version (common/wire.h), for the test that a
# job mixing it with ./stcluster is refused (t_build.sh)
wire-other:
	$(MAKE) BUILD=build-wire EXTRA_CFLAGS="-DST_WIRE_VERSION=999" build-wire/stcluster

sanitize:
	$(MAKE) BUILD=build-san EXTRA_CFLAGS="-O1 -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" EXTRA_LDFLAGS="-fsanitize=address,undefined" all

fuzz-build:
	$(MAKE) BUILD=build-fuzz CC=$(FUZZ_CC) EXTRA_CFLAGS="-O1 -g -fno-omit-frame-pointer $(FUZZ_SAN)" EXTRA_LDFLAGS="-fsanitize=fuzzer,address,undefined" fuzz-targets

fuzz-targets: $(addprefix $(BUILD)/,$(FUZZ_TARGETS))
.SECONDARY: $(FUZZ_OBJ)

# fuzz_url holds the engine's URL parser against libnfs's own: linked with it
# (a test tool; stcluster itself loads libnfs at run time)
$(BUILD)/fuzz_url: LDLIBS += $(shell pkg-config --libs libnfs 2>/dev/null)
$(BUILD)/fuzz_%: $(BUILD)/tests/fuzz/fuzz_%.o $(BUILD)/tests/fuzz/fuzz_check.o $(BUILD)/libstcluster.a
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# each target FUZZ_SECONDS on its working corpus build-fuzz/corpus/TARGET
# (seeded from tests/fuzz/corpus/TARGET, which is never written)
fuzz: fuzz-build
	@fail=0; for t in $(FUZZ_TARGETS); do \
		sh tests/fuzz/fuzz.sh $$t $(FUZZ_SECONDS) build-fuzz/corpus/$$t || fail=1; \
	done; exit $$fail

# the whole ladder: unit tests, then MPI jobs on this host, on both builds
# (a fresh make after deps, so pkg-config sees what deps installed)
NPROC := $(shell nproc 2>/dev/null || echo 2)
check: deps
	$(MAKE) -j$(NPROC) all
	$(MAKE) -j$(NPROC) sanitize
	@if command -v $(FUZZ_CC) >/dev/null 2>&1; then $(MAKE) -j$(NPROC) fuzz-build; \
	else echo "no $(FUZZ_CC): the fuzz step of tests/run.sh says so"; fi
	$(MAKE) -j$(NPROC) nolibnfs
	$(MAKE) -j$(NPROC) wire-other
	sh tests/run.sh --part quick

# what check leaves out (tests/slow.txt: the longest ASan+UBSan duplicates and valgrind);
# CI runs it after check
check-slow: deps
	$(MAKE) -j$(NPROC) all
	$(MAKE) -j$(NPROC) sanitize
	sh tests/run.sh --part slow build build-san

# set-up on a fresh Debian 12 machine: what is missing, installed when root
deps:
	sh tests/deps.sh install

demo: deps
	$(MAKE) all
	sh tests/demo.sh

bench: all
	sh tests/bench/run.sh

install: $(BIN) $(BUILD)/stcluster.1
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/stcluster
	install -m 644 $(BUILD)/stcluster.1 $(DESTDIR)$(PREFIX)/share/man/man1/stcluster.1

clean:
	rm -rf build build-san build-fuzz build-nolibnfs build-wire stcluster

-include $(DEPS)
