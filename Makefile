# kmemflight: build the tool, its tests and fuzz targets.
#
#   make            build/kmemflight
#   make asan       build-asan/kmemflight (ASan + UBSan)
#   make check      unit tests and CLI tests, on the sanitizer build
#   make test T=t0010   one CLI test file (tests/cli/t0010-*.sh); make cli
#                   T='t0010 t0099' for several
#   make fast       the test command's fast tier: unit, CLI, fuzz smoke and
#                   shell lint, no kernel (qemu-tests/ci.sh --fast)
#   make parity     tests/perf/parity.sh: the import against perf kmem stat
#                   on a recording of this machine (root, perf)
#   make fuzz       libFuzzer targets (clang) in build-fuzz/
#   make man        man pages from Documentation/man/*.rst into build/man/
#   make install    kmemflight and its man pages under $(DESTDIR)$(PREFIX)

CC      ?= cc
PREFIX  ?= /usr/local
UAPI    := kernel-patch/include/uapi
WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wformat=2 \
           -Wno-format-nonliteral -Wmissing-prototypes -Wvla
CFLAGS  ?= -O2 -g
PKG_CFLAGS := $(shell pkg-config --cflags libtracefs libtraceevent freetype2 fontconfig)
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE $(WARN) -I$(UAPI) $(PKG_CFLAGS) $(CFLAGS)
# every object leaves a .d beside it: an edit recompiles what includes it
DEPFLAGS := -MMD -MP

LIB_SRC := lib/trace.c lib/cursor.c lib/symbols.c lib/writer.c lib/encode.c lib/perfdata.c lib/previous.c
TOOL_SRC := cli/main.c extract/recorder.c extract/spool.c extract/attach.c extract/save.c extract/watch.c extract/bootdir.c extract/meta.c extract/import.c extract/kmemev.c extract/ftrace.c extract/perf.c \
            analyze/slab.c analyze/tasks.c analyze/pagesite.c analyze/footprint.c analyze/report.c analyze/report_out.c \
            analyze/info.c analyze/diff.c analyze/latency.c analyze/report_latency.c \
            analyze/memblock.c analyze/report_memblock.c analyze/report_footprint.c analyze/report_window.c \
            analyze/plot.c analyze/flame.c analyze/svg.c analyze/pass.c lib/vmlinux.c
# FreeType and fontconfig: their headers only; svg.c opens them to draw
# the trace library: libzstd for compressed sections
LIB_LIBS := -lzstd
TOOL_LIBS := -lelf -ldw -ldl $(shell pkg-config --libs libtracefs libtraceevent) $(LIB_LIBS)

SAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
FUZZ_CC := clang
FUZZ_CFLAGS := -std=c11 -D_GNU_SOURCE -I$(UAPI) -g -O1 -fno-sanitize-recover=all

UNIT := tests/unit/test_varint tests/unit/test_trace tests/unit/test_slab tests/unit/test_latency \
        tests/unit/test_memblock tests/unit/test_pass
FUZZ := fuzz_trace fuzz_cursor fuzz_kallsyms fuzz_summary fuzz_budget fuzz_vmlinux fuzz_perfdata fuzz_previous
# the footprint parsers need the analysis they summarise
FUZZ_SRC := $(LIB_SRC) analyze/footprint.c analyze/slab.c analyze/tasks.c analyze/pagesite.c analyze/latency.c \
            analyze/report_window.c \
            analyze/memblock.c analyze/pass.c
UNIT_ANALYZE := analyze/slab.c analyze/tasks.c analyze/pagesite.c analyze/latency.c analyze/memblock.c analyze/pass.c
TEST_HELPERS := tests/unit/kmt_build.c

# Objects: one tree per build flavour, beside the binaries it links.
#   build/obj       the tool as shipped (CFLAGS)
#   build-asan/obj  ASan + UBSan: the unit and CLI tests
#   build-fuzz/obj  libFuzzer's instrumentation
obj = $(patsubst %.c,$(1)/obj/%.o,$(2))

build/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(DEPFLAGS) -Ilib -c -o $@ $<

build-asan/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(SAN) $(DEPFLAGS) -Ilib -c -o $@ $<

build-fuzz/obj/%.o: %.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link,address,undefined $(DEPFLAGS) -c -o $@ $<

.PHONY: all asan check unit unit-build cli test fast parity fuzz man install clean

all: build/kmemflight

build/kmemflight: $(call obj,build,$(LIB_SRC) $(TOOL_SRC))
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(TOOL_LIBS)

build-asan/kmemflight: $(call obj,build-asan,$(LIB_SRC) $(TOOL_SRC))
	$(CC) $(ALL_CFLAGS) $(SAN) -o $@ $^ $(TOOL_LIBS)

asan: build-asan/kmemflight

build-asan/tests/%: $(call obj,build-asan,tests/unit/%.c $(TEST_HELPERS) $(LIB_SRC) $(UNIT_ANALYZE))
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(SAN) -o $@ $^ -lcmocka $(LIB_LIBS)

unit-build: $(patsubst tests/unit/%,build-asan/tests/%,$(UNIT))

unit: unit-build
	@for t in $(patsubst tests/unit/%,build-asan/tests/%,$(UNIT)); do \
		echo "== $$t"; $$t || exit 1; done

# every CLI test, or those named: make cli T='t0010 t0099-flame'
cli: build-asan/kmemflight build-asan/tests/mktrace
	KMF=$(CURDIR)/build-asan/kmemflight MKTRACE=$(CURDIR)/build-asan/tests/mktrace \
		tests/cli/run.sh $(T)

# one CLI test file, by its number or name: make test T=t0010
test:
	@test -n "$(T)" || { echo "make test T=tNNNN: which CLI test (tests/cli/)"; exit 2; }
	@$(MAKE) -s cli T='$(T)'

# the fast tier of the test command: unit, CLI, fuzz smoke, shell lint,
# in minutes, without a kernel (qemu-tests/ci.sh --fast)
fast:
	sh qemu-tests/ci.sh --fast

build/tests/mktrace: $(call obj,build,tests/unit/mktrace.c $(TEST_HELPERS) $(LIB_SRC))
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LIB_LIBS)

build-asan/tests/mktrace: $(call obj,build-asan,tests/unit/mktrace.c $(TEST_HELPERS) $(LIB_SRC))
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(SAN) -o $@ $^ $(LIB_LIBS)

# tests/perf/parity.sh's copier of a perf.data with samples written twice
build-asan/tests/perf-repeat: $(call obj,build-asan,tests/perf/perf-repeat.c $(LIB_SRC))
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(SAN) -o $@ $^ $(LIB_LIBS)

parity: build/kmemflight build-asan/tests/perf-repeat
	tests/perf/parity.sh

check: unit cli

build-fuzz/%: $(call obj,build-fuzz,tests/fuzz/%.c $(FUZZ_SRC))
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer,address,undefined -o $@ $^ $(LIB_LIBS)

# the kernel image reader needs libelf and libdw
build-fuzz/fuzz_vmlinux: $(call obj,build-fuzz,tests/fuzz/fuzz_vmlinux.c $(FUZZ_SRC) lib/vmlinux.c)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer,address,undefined -o $@ $^ -ldw -lelf $(LIB_LIBS)

fuzz: $(addprefix build-fuzz/,$(FUZZ))

MAN_SRC := $(wildcard Documentation/man/*.1.rst)
MAN := $(patsubst Documentation/man/%.rst,build/man/%,$(MAN_SRC))

build/man/%: Documentation/man/%.rst
	@mkdir -p build/man
	rst2man --halt=warning $< $@

man: $(MAN)

# bash completion: where bash-completion looks for it under PREFIX
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions

install: build/kmemflight $(MAN)
	install -D -m 0755 build/kmemflight $(DESTDIR)$(PREFIX)/bin/kmemflight
	install -d $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0644 $(MAN) $(DESTDIR)$(PREFIX)/share/man/man1/
	install -D -m 0644 completion/kmemflight $(DESTDIR)$(BASHCOMPDIR)/kmemflight

clean:
	rm -rf build build-asan build-fuzz

-include $(shell find build/obj build-asan/obj build-fuzz/obj -name '*.d' 2>/dev/null)

# The dracut module (initramfs-hook/90kmemflight) goes where dracut looks
# for modules, under /usr/lib whatever PREFIX is; "make install" installs
# it too.  dracut --add kmemflight then puts it in an initramfs.
DRACUT_MODULES ?= /usr/lib/dracut/modules.d
DRACUT_MODULE := $(wildcard initramfs-hook/90kmemflight/*.sh)

.PHONY: install-dracut
install: install-dracut

install-dracut: $(DRACUT_MODULE) systemd/kmemflight-attach.service
	install -d $(DESTDIR)$(DRACUT_MODULES)/90kmemflight
	install -m 0755 $(DRACUT_MODULE) $(DESTDIR)$(DRACUT_MODULES)/90kmemflight/
	install -m 0644 initramfs-hook/90kmemflight/kmemflight-initrd.conf \
		$(DESTDIR)$(DRACUT_MODULES)/90kmemflight/
	sed 's|@bindir@|/usr/bin|g' systemd/kmemflight-attach.service \
		> $(DESTDIR)$(DRACUT_MODULES)/90kmemflight/kmemflight-attach.service
	chmod 0644 $(DESTDIR)$(DRACUT_MODULES)/90kmemflight/kmemflight-attach.service

# The systemd units (systemd/), off until enabled; the dracut module's
# copy of kmemflight-attach.service runs /usr/bin/kmemflight, where it
# puts the binary in the initramfs.
SYSTEMD_UNITDIR ?= /usr/lib/systemd/system
UNITS := $(wildcard systemd/*.service)

.PHONY: install-systemd
install: install-systemd

install-systemd: $(UNITS)
	install -d $(DESTDIR)$(SYSTEMD_UNITDIR)
	for u in $(UNITS); do \
		sed 's|@bindir@|$(PREFIX)/bin|g' $$u > $(DESTDIR)$(SYSTEMD_UNITDIR)/$${u##*/} && \
		chmod 0644 $(DESTDIR)$(SYSTEMD_UNITDIR)/$${u##*/} || exit 1; \
	done
