# etldump - GNU make. Honours CC, CFLAGS, CPPFLAGS, LDFLAGS, PREFIX, DESTDIR.
# `make`, `make check` and `make demo` first make sure the build dependencies
# are present (tools/deps.sh installs them as root, or names the command).

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share/etldump
CFLAGS ?= -O2 -g
PKG_CONFIG ?= pkg-config
VERSION = 0.1

.DEFAULT_GOAL := all
.PHONY: all check demo install uninstall clean fuzz bench deps
.SECONDARY:

ifndef ETLDUMP_DEPS_OK
# First pass: check (and install) dependencies, then build in a fresh make so
# that pkg-config is asked only once the packages are there.
all demo install: deps-build
	@$(MAKE) --no-print-directory ETLDUMP_DEPS_OK=1 $@
check fuzz bench: deps-check
	@$(MAKE) --no-print-directory ETLDUMP_DEPS_OK=1 $@
deps-build:
	@sh tools/deps.sh build
deps-check:
	@sh tools/deps.sh check
.PHONY: deps-build deps-check
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/etldump $(DESTDIR)$(MANDIR)/man1/etldump.1
	rm -f $(DESTDIR)$(DATADIR)/etldump.xsd
	-rmdir $(DESTDIR)$(DATADIR) 2>/dev/null
clean:
	rm -rf build etldump
else

XML_CFLAGS := $(shell $(PKG_CONFIG) --cflags libxml-2.0)
XML_LIBS := $(shell $(PKG_CONFIG) --libs libxml-2.0)
CHECK_CFLAGS = $(shell $(PKG_CONFIG) --cflags check)
CHECK_LIBS = $(shell $(PKG_CONFIG) --libs check)

WARN = -std=c11 -Wall -Wextra -Wconversion -Wshadow -Wformat=2
ALL_CPPFLAGS = -D_GNU_SOURCE -DETLDUMP_VERSION='"$(VERSION)"' -Isrc $(XML_CFLAGS) $(CPPFLAGS)
ALL_CFLAGS = $(WARN) $(CFLAGS)

LIB_SRC = $(filter-out src/main.c,$(wildcard src/*.c src/*/*.c))
LIB_OBJ = $(LIB_SRC:%.c=build/%.o)
GEN_SRC = $(filter-out tests/gen/mktrace.c,$(wildcard tests/gen/*.c))
GEN_OBJ = $(GEN_SRC:%.c=build/%.o)
UNIT_SRC = $(wildcard tests/unit/test_*.c)
UNIT_BIN = $(UNIT_SRC:tests/unit/%.c=build/tests/%)

all: etldump

build/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CPPFLAGS) -Itests/gen $(ALL_CFLAGS) -MMD -MP -c $< -o $@

build/libetldump.a: $(LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

build/libetlgen.a: $(GEN_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

etldump: build/src/main.o build/libetldump.a
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(XML_LIBS)

build/mktrace: build/tests/gen/mktrace.o build/libetlgen.a
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^

build/tests/%: build/tests/unit/%.o build/libetldump.a build/libetlgen.a
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(CHECK_LIBS) $(XML_LIBS)

build/tests/unit/%.o: tests/unit/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CPPFLAGS) -Itests/gen $(CHECK_CFLAGS) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

check: etldump build/mktrace $(UNIT_BIN)
	@sh tests/run.sh

demo: etldump
	./etldump --info samples/demo-compact.etl
	./etldump samples/demo-compact.etl | head -n 25

install: etldump
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(DATADIR)
	install -m 755 etldump $(DESTDIR)$(BINDIR)/etldump
	install -m 644 man/etldump.1 $(DESTDIR)$(MANDIR)/man1/etldump.1
	install -m 644 doc/etldump.xsd $(DESTDIR)$(DATADIR)/etldump.xsd

-include $(LIB_OBJ:.o=.d) $(GEN_OBJ:.o=.d) build/src/main.d $(UNIT_SRC:tests/unit/%.c=build/tests/unit/%.d)
endif
