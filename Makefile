# etldump - GNU make. Honours CC, CFLAGS, CPPFLAGS, LDFLAGS, PREFIX, DESTDIR.
# `make`, `make check` and `make demo` first make sure the build dependencies
# are present (tools/deps.sh installs them as root, or names the command),
# then build everything asked for in one inner make, so that `make -jN` with
# several goals builds each object once.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share/etldump
CFLAGS ?= -O2 -g
PKG_CONFIG ?= pkg-config
VERSION = 0.1

.DEFAULT_GOAL := all
.PHONY: all check check-quick demo install uninstall clean fuzz fuzz-coverage valgrind \
        bench deps tsan
.SECONDARY:

ifndef ETLDUMP_DEPS_OK
# First pass: check (and install) dependencies once, then make every goal in
# one inner make, where pkg-config is asked only once the packages are there.
GOALS := $(or $(filter-out clean uninstall,$(MAKECMDGOALS)),$(if $(MAKECMDGOALS),,all))
DEPS_KIND := $(if $(filter bench,$(GOALS)),bench,$(if $(filter check check-quick test-programs fuzz fuzz-coverage valgrind tsan,$(GOALS)),check,build))
$(GOALS): inner
	@:
inner:
	@sh tools/deps.sh $(DEPS_KIND)
	@$(MAKE) --no-print-directory ETLDUMP_DEPS_OK=1 $(GOALS)
.PHONY: inner
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/etldump $(DESTDIR)$(MANDIR)/man1/etldump.1
	rm -f $(DESTDIR)$(DATADIR)/etldump.xsd
	-rmdir $(DESTDIR)$(DATADIR) 2>/dev/null
clean:
	rm -rf build etldump
else

XML_CFLAGS := $(shell $(PKG_CONFIG) --cflags libxml-2.0)
# etldump loads libxml2 when first needed (src/xmlapi.h), by its SONAME:
# the programs link with the dynamic loader's library, not with libxml2.
# The SONAME is the one of the libxml2 pkg-config finds (libxml2.so.2 up to
# 2.13, libxml2.so.16 from 2.14), libxml2.so.2 when objdump cannot say.
ifeq ($(origin XML_SONAME),undefined)
XML_SONAME := $(shell objdump -p $(shell $(PKG_CONFIG) --variable=libdir libxml-2.0)/libxml2.so \
                2>/dev/null | sed -n 's/^ *SONAME *\(libxml2[^ ]*\)$$/\1/p')
XML_SONAME := $(or $(XML_SONAME),libxml2.so.2)
endif
DL_LIBS := -ldl
# The unit tests and fuzz targets read what the XML printer wrote with
# libxml2 itself.
XML_LINK := $(shell $(PKG_CONFIG) --libs libxml-2.0) $(DL_LIBS)
CHECK_CFLAGS = $(shell $(PKG_CONFIG) --cflags check)
CHECK_LIBS = $(shell $(PKG_CONFIG) --libs check)

WARN = -std=c11 -Wall -Wextra -Wconversion -Wshadow -Wformat=2
# The library formats and reads ahead on POSIX threads (src/pipeline.c).
THREADS = -pthread
BASE_CPPFLAGS = -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -DETLDUMP_VERSION='"$(VERSION)"' -Isrc
ALL_CPPFLAGS = $(BASE_CPPFLAGS) $(XML_CFLAGS) -DETL_XML_SONAME='"$(XML_SONAME)"' $(CPPFLAGS)
ALL_CFLAGS = $(WARN) $(THREADS) $(CFLAGS)

LIB_SRC = $(filter-out src/main.c,$(wildcard src/*.c src/*/*.c))
LIB_OBJ = $(LIB_SRC:%.c=build/%.o)
GEN_SRC = $(filter-out tests/gen/mktrace.c,$(wildcard tests/gen/*.c))
GEN_OBJ = $(GEN_SRC:%.c=build/%.o)
UNIT_SRC = $(wildcard tests/unit/test_*.c)
UNIT_BIN = $(UNIT_SRC:tests/unit/%.c=build/tests/%) build/tests/test_reader_64 build/tests/test_noxml

all: etldump

# The library and the tool.
build/src/%.o: src/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

build/libetldump.a: $(LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

# Built with AddressSanitizer, the programs the tests run thousands of times
# leave their own globals (mostly the sanitizer's ~10 MB of tables) out of
# LeakSanitizer's scan at the end of each run, the shared libraries' kept
# (tests/mem/lsan.c); nothing otherwise.
SAN_LSAN = $(if $(findstring -fsanitize=address,$(CFLAGS) $(LDFLAGS)),build/tests/mem/lsan.o)

etldump: build/src/main.o build/libetldump.a $(SAN_LSAN)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(DL_LIBS)

# The test trace writer shares no code with the library.
build/tests/gen/%.o: tests/gen/%.c
	@mkdir -p $(@D)
	$(CC) $(BASE_CPPFLAGS) $(CPPFLAGS) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

build/libetlgen.a: $(GEN_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

build/mktrace: build/tests/gen/mktrace.o build/libetlgen.a
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^

# Unit tests see the library's headers and the writer's.
build/tests/unit/%.o: tests/unit/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CPPFLAGS) -Itests/gen $(CHECK_CFLAGS) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

build/tests/%: build/tests/unit/%.o build/libetldump.a build/libetlgen.a
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(CHECK_LIBS) $(XML_LINK)

# test_reader again, its reader built to index at most 64 buffers instead of
# 2^21 (ETL_MAX_BUFFERS, src/etl/etl.h), so that a small file reaches what
# happens past the bound. Its reader.o comes before the library's.
FEW_DEFS = -DETL_MAX_BUFFERS=64u
build/tests/few/%.o: src/etl/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CPPFLAGS) $(FEW_DEFS) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

build/tests/few/test_reader.o: tests/unit/test_reader.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CPPFLAGS) $(FEW_DEFS) -Itests/gen $(CHECK_CFLAGS) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

build/tests/test_reader_64: build/tests/few/test_reader.o build/tests/few/reader.o \
                            build/libetldump.a build/libetlgen.a
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(CHECK_LIBS) $(XML_LINK)

# etldump again, its summary keeping 64 thread rows in memory instead of
# 16384 (src/view/summary.c), merging its runs past 4 instead of 128 and
# sorting 16 KiB of rows at a time instead of 8 MiB, so that small traces
# reach its spill file (tests/sched.sh, tests/memory.sh). Its summary.o
# comes before the library's.
SPILL_DEFS = -DSUMMARY_LIVE_MAX=64u -DSUMMARY_RUNS_MAX=4 -DSUMMARY_SORT_MEM=16384u
build/tests/spill/summary.o: src/view/summary.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CPPFLAGS) $(SPILL_DEFS) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

build/tests/etldump-spill: build/src/main.o build/tests/spill/summary.o build/libetldump.a
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(DL_LIBS)

# The same, its temporary files taking no rows past twice the input's size
# (instead of that and 1 GiB), so that tests/sched.sh sees the bound hold.
build/tests/spillcap/summary.o: src/view/summary.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CPPFLAGS) $(SPILL_DEFS) -DSUMMARY_SPILL_SLACK=0u $(ALL_CFLAGS) -MMD -MP -c $< -o $@

build/tests/etldump-spillcap: build/src/main.o build/tests/spillcap/summary.o build/libetldump.a $(SAN_LSAN)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(DL_LIBS)

# etldump again, with a libxml2 that is not there (its xmlsetup.o looks for
# a file of another name), so that tests/cli.sh sees what a machine without
# libxml2 does: every view and format but XML, XML and the traces with
# EventSource manifests refused with status 6.
build/tests/noxml/xmlsetup.o: src/xmlsetup.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CPPFLAGS) -UETL_XML_SONAME -DETL_XML_SONAME='"libxml2-not-here.so.2"' \
	    $(ALL_CFLAGS) -MMD -MP -c $< -o $@

build/tests/etldump-noxml: build/src/main.o build/tests/noxml/xmlsetup.o build/libetldump.a $(SAN_LSAN)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(DL_LIBS)

# etldump losing a block before main (tests/mem/leak.c): built with a
# sanitizer, tests/hostile.sh checks that its leak reports fail the runs.
build/tests/etldump-leak: build/src/main.o build/tests/mem/leak.o build/libetldump.a $(SAN_LSAN)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(DL_LIBS)

build/tests/mem/leak.o: tests/mem/leak.c
	@mkdir -p $(@D)
	$(CC) $(BASE_CPPFLAGS) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

build/tests/mem/lsan.o: tests/mem/lsan.c
	@mkdir -p $(@D)
	$(CC) $(BASE_CPPFLAGS) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

# The library with that xmlsetup.o (build/tests/noxml), not linked with
# libxml2, under a unit test of its own: the XML printer's refusal when no
# etl_library_xml came first.
build/tests/noxml/test_noxml.o: tests/noxml/test_noxml.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CPPFLAGS) -Itests/unit $(CHECK_CFLAGS) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

build/tests/test_noxml: build/tests/noxml/test_noxml.o build/tests/noxml/xmlsetup.o build/libetldump.a
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(CHECK_LIBS) $(DL_LIBS)

# Fuzz targets (tests/fuzz, see tests/fuzz/README). `make check` replays the
# corpus and regression inputs through build/fuzz-replay/* (the targets with
# a plain driver, built with CC and CFLAGS); `make fuzz` builds the libFuzzer
# binaries in build/fuzz with clang and ASan+UBSan, the library compiled with
# the same sanitizers into build/fuzz/obj.
FUZZ_TARGETS = fuzz_file fuzz_cswitch fuzz_batch fuzz_header fuzz_logfile fuzz_lz77 fuzz_lznt1 \
               fuzz_loggerctx fuzz_kfields fuzz_tracelogging fuzz_metadata fuzz_sched \
               fuzz_export fuzz_args
FUZZ_REPLAY = $(FUZZ_TARGETS:%=build/fuzz-replay/%)
FUZZ_CC ?= clang
FUZZ_CFLAGS ?= -O1 -g -fno-omit-frame-pointer
FUZZ_SAN = -fsanitize=address,undefined -fno-sanitize-recover=all
# Decompression is bounded lower than in etldump (src/etl/reader.c), so that
# decompression bombs do not slow the fuzzers down; the scheduling state
# keeps 64 threads instead of 2^18 (src/decode/sched.c), so that fuzz_sched
# reaches what happens past the bound, and the summary 64 rows (SPILL_DEFS),
# so that fuzz_file reaches its spill file.
FUZZ_DEFS = -DETL_INFLATE_BASE="(4u * 1024u * 1024u)" -DSCHED_KEPT=64u $(SPILL_DEFS)
FUZZ_OBJ = $(LIB_SRC:%.c=build/fuzz/obj/%.o)

build/fuzz-replay/%.o: tests/fuzz/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

build/fuzz-replay/%: build/fuzz-replay/%.o build/fuzz-replay/driver.o build/libetldump.a
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(XML_LINK)

# Cuts seeds for the fuzz targets out of traces read in place (tests/fuzz.sh).
build/cutseeds: tests/fuzz/cutseeds.c tests/fuzz/fuzz_file.h build/libetldump.a
	@mkdir -p $(@D)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< build/libetldump.a $(DL_LIBS)

build/mutate: tests/fuzz/mutate.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $<

build/fuzz/obj/%.o: %.c | fuzz-cc
	@mkdir -p $(@D)
	$(FUZZ_CC) $(ALL_CPPFLAGS) $(FUZZ_DEFS) $(WARN) $(THREADS) $(FUZZ_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

build/fuzz/libetldump.a: $(FUZZ_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

build/fuzz/%: tests/fuzz/%.c build/fuzz/libetldump.a
	$(FUZZ_CC) $(ALL_CPPFLAGS) $(WARN) $(THREADS) $(FUZZ_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $< build/fuzz/libetldump.a $(XML_LINK)

fuzz: $(FUZZ_TARGETS:%=build/fuzz/%)
	@echo "fuzz: built $(FUZZ_TARGETS:%=build/fuzz/%); see tests/fuzz/README"

# Source-based coverage of the fuzz replays (tests/fuzz/coverage.sh): the
# library (with FUZZ_DEFS) and the targets built with clang's profile
# instrumentation into build/cov, the corpus, regression inputs and cut seeds replayed, the report
# printed; fails below 90% of the library's lines.
COV_CFLAGS = -O1 -g -fprofile-instr-generate -fcoverage-mapping
COV_OBJ = $(LIB_SRC:%.c=build/cov/obj/%.o)

build/cov/obj/%.o: %.c | fuzz-cc
	@mkdir -p $(@D)
	$(FUZZ_CC) $(ALL_CPPFLAGS) $(FUZZ_DEFS) $(WARN) $(COV_CFLAGS) -MMD -MP -c $< -o $@

build/cov/libetldump.a: $(COV_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

build/cov/bin/%: build/cov/obj/tests/fuzz/%.o build/cov/obj/tests/fuzz/driver.o build/cov/libetldump.a
	@mkdir -p $(@D)
	$(FUZZ_CC) $(COV_CFLAGS) -o $@ $^ $(XML_LINK)

fuzz-coverage: $(FUZZ_TARGETS:%=build/cov/bin/%) build/cutseeds build/mktrace
	@sh tests/fuzz/coverage.sh

# ThreadSanitizer over the runs on several threads (tests/threads.sh): etldump
# built with clang and -fsanitize=thread into build/tsan, each view and format
# run with one thread and with three and the two compared; a race reported
# changes standard error and the exit status, and so fails the comparison.
TSAN_CFLAGS ?= -O1 -g -fno-omit-frame-pointer
TSAN_OBJ = $(LIB_SRC:%.c=build/tsan/obj/%.o) build/tsan/obj/src/main.o

build/tsan/obj/%.o: %.c | fuzz-cc
	@mkdir -p $(@D)
	$(FUZZ_CC) $(ALL_CPPFLAGS) $(WARN) $(THREADS) $(TSAN_CFLAGS) -fsanitize=thread -MMD -MP -c $< -o $@

build/tsan/etldump: $(TSAN_OBJ)
	$(FUZZ_CC) $(THREADS) $(TSAN_CFLAGS) -fsanitize=thread -o $@ $^ $(DL_LIBS)

tsan: build/tsan/etldump build/mktrace
	@TSAN_OPTIONS="halt_on_error=0 $${TSAN_OPTIONS:-}" sh tests/threads.sh build/tsan/etldump

fuzz-cc:
	@command -v $(FUZZ_CC) > /dev/null 2>&1 || { echo "fuzz: $(FUZZ_CC) not found (libFuzzer comes with clang); run: sudo apt-get install -y clang" >&2; exit 1; }
.PHONY: fuzz-cc

# Memory tests (tests/memory.sh): crafted files, peak memory, failing
# allocations. The LD_PRELOAD library takes CC but not CFLAGS (sanitizers
# and preloaded allocators do not mix).
build/failalloc.so: tests/mem/failalloc.c
	@mkdir -p $(@D)
	$(CC) -O1 -g -shared -fPIC -pthread -o $@ $< -ldl

# A run's time limit for tests/hostile.sh, preloaded (tests/alarm.c).
build/alarm.so: tests/alarm.c
	@mkdir -p $(@D)
	$(CC) $(WARN) -O1 -g -shared -fPIC -o $@ $<

# O_TMPFILE refused, as without unnamed temporary files (tests/notmpfile.c,
# preloaded by tests/unix.sh).
build/notmpfile.so: tests/notmpfile.c
	@mkdir -p $(@D)
	$(CC) $(WARN) -O1 -g -shared -fPIC -o $@ $< -ldl

build/manybuf build/peak: build/%: tests/mem/%.c
	@mkdir -p $(@D)
	$(CC) $(BASE_CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $<

# Whether files are well-formed XML, many in one process (tests/hostile.sh).
build/xmlwf: tests/xmlwf.c
	@mkdir -p $(@D)
	$(CC) $(BASE_CPPFLAGS) $(XML_CFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(XML_LINK)

# The edge cases of tests/edge.sh: crafted files and what a reader must show.
build/mkedge: tests/edge/mkedge.c
	@mkdir -p $(@D)
	$(CC) $(BASE_CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $<

TEST_PROGRAMS = etldump build/mktrace $(UNIT_BIN) $(FUZZ_REPLAY) build/mutate build/cutseeds \
                build/failalloc.so build/alarm.so build/notmpfile.so build/manybuf build/peak build/mkedge build/tests/etldump-spill \
                build/tests/etldump-spillcap build/tests/etldump-noxml build/fuzz-replay/selftest \
                build/xmlwf build/tests/etldump-leak

# Check unit tests (CK_FORK=no), the fuzz replays and a sample of etldump
# runs under valgrind memcheck (tests/fuzz/valgrind.sh).
valgrind: $(TEST_PROGRAMS)
	@sh tests/fuzz/valgrind.sh

# Every test; temporary files go under build/tmp and are removed.
check: $(TEST_PROGRAMS)
	@sh tests/run.sh

# What make check runs, built and not run (tools/check-i386.sh on a machine
# that cannot run 32-bit programs).
.PHONY: test-programs
test-programs: $(TEST_PROGRAMS)

# The quick loop: unit tests, golden outputs, formats on the bundled samples.
check-quick: $(TEST_PROGRAMS)
	@ETLDUMP_QUICK=1 sh tests/run.sh

bench: etldump build/mktrace build/floor
	@sh tools/bench.sh ./etldump build/mktrace build/floor

# make bench's floors: every byte of a file read, every buffer decompressed.
build/floor: tools/floor.c build/libetldump.a
	@mkdir -p $(@D)
	$(CC) $(BASE_CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< build/libetldump.a

demo: etldump
	./etldump --info samples/demo-compact.etl
	./etldump samples/demo-compact.etl | sed -n '/^cpu /,$$p' | head -n 21
	./etldump --summary samples/demo-processes.etl | sed -n '/^scope /,$$p' | head -n 8 | cut -c1-150

install: etldump
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(DATADIR)
	install -m 755 etldump $(DESTDIR)$(BINDIR)/etldump
	install -m 644 man/etldump.1 $(DESTDIR)$(MANDIR)/man1/etldump.1
	install -m 644 doc/etldump.xsd $(DESTDIR)$(DATADIR)/etldump.xsd

-include $(LIB_OBJ:.o=.d) $(GEN_OBJ:.o=.d) build/src/main.d build/tests/gen/mktrace.d
-include $(UNIT_SRC:tests/unit/%.c=build/tests/unit/%.d) $(FUZZ_OBJ:.o=.d) \
         build/tests/few/test_reader.d build/tests/few/reader.d build/tests/spill/summary.d \
         build/tests/noxml/test_noxml.d build/tests/mem/leak.d build/tests/mem/lsan.d \
         build/tests/spillcap/summary.d
-include $(FUZZ_TARGETS:%=build/fuzz-replay/%.d) build/fuzz-replay/driver.d \
         build/fuzz-replay/selftest.d
-include $(COV_OBJ:.o=.d) $(FUZZ_TARGETS:%=build/cov/obj/tests/fuzz/%.d) $(TSAN_OBJ:.o=.d)
endif
