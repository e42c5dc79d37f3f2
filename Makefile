# SPDX-License-Identifier: GPL-2.0
#
# fusebpf: make [all] | deps | kernel | kernel-debug | bpf | cli | tests | check | stress | fuzz | demo | vm | bench | clean
#
# The kernel tree and its builds live in $(FUSEBPF_CACHE), outside the
# repository; everything else is built under build/. Two kernels: the normal
# one (make kernel: bench, demo, vm, and the BTF behind skel/vmlinux.h) and the
# debug one (make kernel-debug: KASAN, lockdep, ...; make check runs on it).

FUSEBPF_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/fusebpf
export FUSEBPF_CACHE

BUILD   := build
KBUILD  := $(FUSEBPF_CACHE)/build-normal
VMLINUX := $(FUSEBPF_CACHE)/vmlinux-normal

CC      ?= gcc
CLANG   ?= clang
BPFTOOL ?= bpftool
CFLAGS  ?= -O2 -g
CFLAGS  += -Wall -Wextra -Werror -std=gnu11
LOADER  := skel/fusebpf_loader.h
LIBBPF_CFLAGS := $(shell pkg-config --cflags libbpf 2>/dev/null)
LIBBPF_LIBS   := $(or $(shell pkg-config --libs libbpf 2>/dev/null),-lbpf -lelf -lz)
BPF_CFLAGS := -O2 -g -target bpf -Wall -Werror -D__TARGET_ARCH_x86 -I/usr/include/$(shell $(CC) -dumpmachine)

ifeq ($(V),1)
Q :=
msg :=
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

# Debian packages the build, the tests and the demo need (see README.md).
DEPS := linux-source-6.1 build-essential bc flex bison libelf-dev libssl-dev \
	dwarves xz-utils cpio git qemu-system-x86 clang llvm bpftool libbpf-dev \
	pkg-config e2fsprogs attr fio util-linux iproute2 procps \
	libjson-c-dev valgrind liburing-dev libaio-dev bindfs gnuplot-nox

.PHONY: all deps kernel kernel-debug series-check tests bpf check stress host-tests guest-tests demo vm bench clean

all: kernel bpf cli tests

deps:
	@missing=$$(for p in $(DEPS); do dpkg-query -W -f '$${Status}\n' $$p 2>/dev/null | \
		grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "  APT      $$missing"; \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing >$(or $(TMPDIR),/tmp)/fusebpf-apt.log 2>&1 || \
		{ apt-get update -q >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing; } || \
		{ echo "make deps: apt-get install failed; run as root: apt-get install $$missing" >&2; exit 1; }; \
	fi

kernel: deps
	$(Q)KERNEL_FLAVOR=normal kernel/build.sh

# kernel/fusebpf-debug.config on top, in $(FUSEBPF_CACHE)/build-debug.
kernel-debug: deps
	$(Q)KERNEL_FLAVOR=debug kernel/build.sh

# Only the cache's vmlinux is make kernel's: a VMLINUX= given on the command
# line (another kernel's BTF) is never rebuilt from here.
ifneq ($(origin VMLINUX),command line)
$(VMLINUX): kernel
endif

# make series-check: every prefix of kernel/series applies, builds fs/fuse and
# kernel/bpf with no new W=1 warning, passes checkpatch --strict, and keeps
# the UAPI headers compiling as C and C++ (kernel/series-check.sh; its own
# tree and build dir under $(FUSEBPF_CACHE)/series-check). SERIES_CHECK_FROM,
# SERIES_CHECK_TO, SERIES_CHECK_SKIP pass through. Not part of make check:
# see docs/kernel.md.
series-check: deps
	$(Q)kernel/series-check.sh

# --- tests ------------------------------------------------------------------------
TEST_LIB      := tests/lib/tap.c tests/lib/tfuse.c tests/lib/tproc.c tests/lib/tctl.c
TEST_LIB_H    := tests/lib/tap.h tests/lib/tfuse.h tests/lib/tproc.h tests/lib/tctl.h \
		 cli/fuse_attr.h
GUEST_TESTS   := foundation passthrough bpf filters cli backing server splice verdicts rcu_walk \
		 mount_flags ids_exec stress fuzz_found events audit mounts backing_change
TEST_BPF      := basic
GUEST_BINS    := $(GUEST_TESTS:%=$(BUILD)/tests/guest/%)
HOST_TESTS    := tap_selftest cli_args cli_policy cli_json cli_stats cli_events cli_conf cli_explain
HOST_BINS     := $(HOST_TESTS:%=$(BUILD)/tests/host/%)
# Host tests that are scripts: the VM harness (boots the normal kernel), the
# systemd unit (systemd-analyze verify on the staged install), the example
# filter in docs/filters.md (compiled as shown).
HOST_SCRIPTS  := tests/host/vm_harness.sh tests/host/unit_verify.sh tests/host/bench_compare.sh \
                 tests/host/doc_example.sh
TEST_CFLAGS   := $(CFLAGS) -Wno-format-zero-length $(LIBBPF_CFLAGS) -Itests/lib -I$(BUILD)/tests

tests: $(GUEST_BINS) $(HOST_BINS)

$(BUILD)/tests/%.bpf.o: tests/bpf/%.bpf.c
	$(call msg,CLANG,$@)
	@mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/tests/%.skel.h: $(BUILD)/tests/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $*_bpf > $@.tmp && mv $@.tmp $@

# A suite may have more sources and libraries: SRCS_<suite>, LIBS_<suite>.
SRCS_passthrough := tests/guest/passthrough_env.c tests/guest/passthrough_ops.c
LIBS_passthrough := -luring -laio
$(BUILD)/tests/guest/passthrough: $(SRCS_passthrough) tests/guest/passthrough.h tests/lib/fusebpf_uapi.h cli/fuse_uapi.h
SRCS_stress := tests/guest/stress_model.c tests/guest/stress_work.c
$(BUILD)/tests/guest/stress: $(SRCS_stress) tests/guest/stress.h $(BUILD)/fusebpfctl

$(BUILD)/tests/guest/%: tests/guest/%.c $(TEST_LIB) $(TEST_LIB_H) $(TEST_BPF:%=$(BUILD)/tests/%.skel.h)
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(TEST_CFLAGS) -o $@ $< $(SRCS_$(@F)) $(TEST_LIB) $(LIBBPF_LIBS) $(LIBS_$(@F))

$(BUILD)/tests/host/%: tests/host/%.c $(TEST_LIB) $(TEST_LIB_H)
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(TEST_CFLAGS) -o $@ $< $(TEST_LIB)

# The filter library and its skeletons: make bpf.
include skel/Makefile.inc

# tests/guest/bpf: the kernel's BPF ABI, with filters in tests/bpf/kfilter*.bpf.c
# built like the library's (fusebpf.h, vmlinux.h of our kernel).
KFILTER_OBJS := $(BUILD)/tests/kfilter.bpf.o $(BUILD)/tests/kfilter_oob.bpf.o $(BUILD)/tests/kfilter_min.bpf.o \
		$(BUILD)/tests/kfilter_dummy.bpf.o $(BUILD)/tests/kfilter_kfunc_cc.bpf.o \
		$(BUILD)/tests/kfilter_ctxw.bpf.o $(BUILD)/tests/kfilter_tcpkf.bpf.o \
		$(BUILD)/tests/kfilter_nullbuf.bpf.o $(BUILD)/tests/kfilter_postonly.bpf.o \
		$(BUILD)/tests/kfilter_ext.bpf.o $(BUILD)/tests/kfilter_exttgt.bpf.o \
		$(BUILD)/tests/kfilter_dummytgt.bpf.o
$(KFILTER_OBJS): $(BUILD)/tests/%.bpf.o: tests/bpf/%.bpf.c skel/vmlinux.h $(BPF_HEADERS)
	$(call msg,CLANG,$@)
	@mkdir -p $(@D)
	$(Q)$(CLANG) $(FILTER_CFLAGS) \
		-c $< -o $@
# kfilter_forge.bpf.c four times: a context forged on the stack or in a map
# value (m), handed to bpf_fuse_get_arg() or bpf_fuse_set_arg() (s).
FORGE_OBJS := $(foreach v,sg ss mg ms,$(BUILD)/tests/kfilter_forge_$(v).bpf.o)
$(FORGE_OBJS): $(BUILD)/tests/kfilter_forge_%.bpf.o: tests/bpf/kfilter_forge.bpf.c skel/vmlinux.h $(BPF_HEADERS)
	$(call msg,CLANG,$@)
	@mkdir -p $(@D)
	$(Q)$(CLANG) $(FILTER_CFLAGS) -DFORGE_MAP=$(if $(filter m%,$*),1,0) \
		-DFORGE_SET=$(if $(filter %s,$*),1,0) -c $< -o $@
# kfilter_narrow.bpf.c with a 1, 2 and 4-byte load of the context pointer
NARROW_OBJS := $(foreach n,1 2 4,$(BUILD)/tests/kfilter_narrow_$(n).bpf.o)
$(NARROW_OBJS): $(BUILD)/tests/kfilter_narrow_%.bpf.o: tests/bpf/kfilter_narrow.bpf.c skel/vmlinux.h $(BPF_HEADERS)
	$(call msg,CLANG,$@)
	@mkdir -p $(@D)
	$(Q)$(CLANG) $(FILTER_CFLAGS) -DNARROW=$* -c $< -o $@
# kfilter_retslot.bpf.c once per member whose index is a tracing attach type
RETSLOT_OBJS := $(foreach m,fsyncdir access create,$(BUILD)/tests/kfilter_retslot_$(m).bpf.o)
$(RETSLOT_OBJS): $(BUILD)/tests/kfilter_retslot_%.bpf.o: tests/bpf/kfilter_retslot.bpf.c skel/vmlinux.h \
		$(BPF_HEADERS)
	$(call msg,CLANG,$@)
	@mkdir -p $(@D)
	$(Q)$(CLANG) $(FILTER_CFLAGS) -DMEMBER=$* -DMEMBER_NAME='"$*"' -c $< -o $@
$(BUILD)/tests/guest/bpf: $(KFILTER_OBJS) $(FORGE_OBJS) $(RETSLOT_OBJS) $(NARROW_OBJS) $(BUILD)/tests/kfilter.skel.h tests/lib/fusebpf_uapi.h \
	cli/fuse_uapi.h $(LOADER)
$(BUILD)/tests/guest/bpf: TEST_CFLAGS += -Iskel -Ibpf-progs
$(BUILD)/tests/guest/filters: $(LOADER)

# The suites whose cases run the table server (tests/guest/table_srv.c) and
# those whose cases mount views with the filter tests/bpf/hfilter.bpf.c
# (tests/guest/hfilter_view.c; built like kfilter).
# The filters of both, and filters.c's small ones (tests/bpf/mfilter.bpf.c),
# are fuse_ops maps loaded by tests/lib/tfilter.h.
TSRV_SUITES  := backing server splice verdicts mount_flags
HVIEW_SUITES := verdicts rcu_walk mount_flags ids_exec
TFILTER_OBJS := $(BUILD)/tests/hfilter.bpf.o $(BUILD)/tests/tsfilter.bpf.o $(BUILD)/tests/mfilter.bpf.o
$(TFILTER_OBJS): $(BUILD)/tests/%.bpf.o: tests/bpf/%.bpf.c skel/vmlinux.h $(BPF_HEADERS)
	$(call msg,CLANG,$@)
	@mkdir -p $(@D)
	$(Q)$(CLANG) $(FILTER_CFLAGS) -c $< -o $@
$(TSRV_SUITES:%=$(BUILD)/tests/guest/%): tests/guest/table_srv.c tests/guest/table_srv.h \
	$(BUILD)/tests/tsfilter.skel.h tests/lib/tfilter.h skel/fusebpf_loader.h \
	tests/lib/fusebpf_uapi.h cli/fuse_uapi.h
$(HVIEW_SUITES:%=$(BUILD)/tests/guest/%): tests/guest/hfilter_view.c tests/guest/hfilter_view.h \
	$(BUILD)/tests/hfilter.skel.h tests/lib/tfilter.h skel/fusebpf_loader.h \
	tests/lib/fusebpf_uapi.h cli/fuse_uapi.h
$(addprefix $(BUILD)/tests/guest/,$(sort $(TSRV_SUITES) $(HVIEW_SUITES))): TEST_CFLAGS += -Iskel
$(BUILD)/tests/guest/filters: $(BUILD)/tests/mfilter.skel.h tests/lib/tfilter.h
$(foreach s,$(TSRV_SUITES),$(eval SRCS_$(s) += tests/guest/table_srv.c))
$(foreach s,$(HVIEW_SUITES),$(eval SRCS_$(s) += tests/guest/hfilter_view.c))
$(foreach s,$(HVIEW_SUITES),$(eval LIBS_$(s) := -luring -laio))

# make fuzz (tests/fuzz/): hostile servers, random verdicts (the filter
# tests/fuzz/ffilter.bpf.c) and random system calls, in the guest.
FUZZ_SRCS := tests/fuzz/fuzz.c tests/fuzz/fuzz_srv.c tests/fuzz/fuzz_ops.c tests/fuzz/fuzz_filters.c
FUZZ_BIN  := $(BUILD)/tests/fuzz/fuzz
$(BUILD)/tests/ffilter.bpf.o: tests/fuzz/ffilter.bpf.c skel/vmlinux.h $(BPF_HEADERS)
	$(call msg,CLANG,$@)
	@mkdir -p $(@D)
	$(Q)$(CLANG) $(FILTER_CFLAGS) -c $< -o $@
$(FUZZ_BIN): $(FUZZ_SRCS) tests/fuzz/fuzz.h $(BUILD)/tests/ffilter.skel.h $(TEST_LIB) $(TEST_LIB_H) \
		tests/lib/fusebpf_uapi.h cli/fuse_uapi.h
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(TEST_CFLAGS) -o $@ $(FUZZ_SRCS) $(TEST_LIB) $(LIBBPF_LIBS) -luring -laio
# fz-id: the set-id helper the fuzzer copies into backing trees (no libc)
FUZZ_ID := $(BUILD)/tests/fuzz/fz-id
$(FUZZ_ID): tests/fuzz/fz_id.c
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) -O2 -Wall -Wextra -static -nostdlib -fno-stack-protector -fno-pie -no-pie \
		-fno-asynchronous-unwind-tables -Wl,--build-id=none -o $@ $<
tests: $(FUZZ_BIN) $(FUZZ_ID)

# make fuzz [FUZZ_SECONDS=300] [FUZZ_SEED=...] [FUZZ_EXCLUDE=...]: on the debug
# kernel (tests/fuzz/run.sh).
FUZZ_SECONDS ?= 300
FUZZ_SEED    ?=
FUZZ_EXCLUDE ?=
.PHONY: fuzz
fuzz: tests kernel-debug
	$(Q)FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_SEED=$(FUZZ_SEED) FUZZ_EXCLUDE=$(FUZZ_EXCLUDE) tests/fuzz/run.sh

# --- fusebpfctl (cli/) ------------------------------------------------------------
# make cli builds build/fusebpfctl, with the built-in filters of
# cli/builtins.def embedded: it builds their skeletons (make bpf) first.
PREFIX       ?= /usr/local
DESTDIR      ?=
# The configuration (SYSCONFDIR/fusebpf/filters.d), where mount(8) looks for
# mount helpers (/sbin, always), and a directory in systemd's unit path.
SYSCONFDIR   ?= /etc
MOUNT_HELPER_DIR ?= /sbin
UNIT_DIR     ?= $(PREFIX)/lib/systemd/system
JSONC_CFLAGS := $(shell pkg-config --cflags json-c 2>/dev/null)
JSONC_LIBS   := $(or $(shell pkg-config --libs json-c 2>/dev/null),-ljson-c)
CLI_SRCS     := $(wildcard cli/*.c)
CLI_OBJS     := $(CLI_SRCS:cli/%.c=$(BUILD)/cli/%.o)
# Everything but main(): what the host unit tests link.
CLI_LIB_OBJS := $(filter-out $(BUILD)/cli/main.o,$(CLI_OBJS))
CLI_CFLAGS   := $(CFLAGS) $(LIBBPF_CFLAGS) $(JSONC_CFLAGS) -Icli -I$(BUILD)/cli -Iskel -Ibpf-progs \
		-DFUSEBPF_CONFIG_DIR='"$(SYSCONFDIR)/fusebpf/filters.d"'
CLI_LIBS     := $(LIBBPF_LIBS) $(JSONC_LIBS)

.PHONY: cli install
cli: $(BUILD)/fusebpfctl $(BUILD)/fusebpf.service

$(BUILD)/fusebpf.service: cli/fusebpf.service.in Makefile
	$(call msg,GEN,$@)
	@mkdir -p $(@D)
	$(Q)sed -e 's|@SBINDIR@|$(PREFIX)/sbin|g' -e 's|@CONFIG_DIR@|$(SYSCONFDIR)/fusebpf/filters.d|g' \
		-e 's|@UNIT_DIR@|$(UNIT_DIR)|g' $< >$@

$(BUILD)/cli/%.o: cli/%.c $(wildcard cli/*.h) bpf-progs/fusebpf_maps.h $(LOADER)
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CLI_CFLAGS) -c $< -o $@
# builtins.c embeds every built-in's skeleton, included by a header made
# from the list in cli/builtins.def.
$(BUILD)/cli/builtin_skels.h: cli/builtins.def
	$(call msg,GEN,$@)
	@mkdir -p $(@D)
	$(Q)printf '#include "%s.skel.h"\n' $(BPF_FILTERS) >$@
$(BUILD)/cli/builtins.o: $(BUILD)/cli/builtin_skels.h $(BPF_SKELS) cli/builtins.def

$(BUILD)/fusebpfctl: $(CLI_OBJS)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(CLI_LIBS)

# Host unit tests of the CLI link everything but main().
$(BUILD)/tests/host/cli_%: tests/host/cli_%.c $(CLI_LIB_OBJS) $(TEST_LIB) $(TEST_LIB_H)
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(TEST_CFLAGS) -Icli -Iskel -Ibpf-progs $(JSONC_CFLAGS) -o $@ $< $(CLI_LIB_OBJS) \
		$(TEST_LIB) $(CLI_LIBS)

# The guest suite runs build/fusebpfctl; a filter the verifier rejects.
LIBS_cli := $(JSONC_LIBS)
$(BUILD)/tests/guest/cli: $(BUILD)/fusebpfctl $(BUILD)/tests/cli_reject.bpf.o
# tests/guest/events: audit events, exceptions, histograms through fusebpfctl;
# tests/guest/audit: audit mode and explain through a mounted view. Both read
# fusebpfctl's JSON (tests/lib/tjson.c).
$(foreach s,events audit,$(eval SRCS_$(s) += tests/lib/tjson.c)$(eval LIBS_$(s) := $(JSONC_LIBS)))
$(BUILD)/tests/guest/events $(BUILD)/tests/guest/audit: $(BUILD)/fusebpfctl tests/lib/tjson.c tests/lib/tjson.h
$(BUILD)/tests/cli_reject.bpf.o: tests/guest/cli_reject.bpf.c skel/vmlinux.h $(BPF_HEADERS)
	$(call msg,CLANG,$@)
	@mkdir -p $(@D)
	$(Q)$(CLANG) $(FILTER_CFLAGS) -c $< -o $@

# tests/guest/mounts is a script: it mounts, as an administrator would, what
# make install put in $(STAGE) (DESTDIR; the unit test checks its unit too).
# The install below never builds a kernel: make's -o is not passed down to a
# sub-make, and what install needs is built by now.
STAGE := $(BUILD)/tests/stage
$(STAGE).stamp: $(BUILD)/fusebpfctl $(BPF_OBJS) $(BUILD)/fusebpf.service docs/fusebpfctl.8 \
		docs/mount.fusebpf.8 cli/fusebpfctl.bash-completion Makefile
	$(call msg,INSTALL,$(STAGE))
	$(Q)rm -rf $(STAGE) && $(MAKE) -s --no-print-directory -o kernel -o kernel-debug install \
		DESTDIR=$(CURDIR)/$(STAGE) >$(STAGE).log && touch $@
$(BUILD)/tests/guest/mounts: tests/guest/mounts.sh $(STAGE).stamp
	$(call msg,GEN,$@)
	@mkdir -p $(@D)
	$(Q)install -m 0755 $< $@
tests: $(STAGE).stamp

# make install: the CLI, the filter objects, the man pages, the completion,
# the mount helper (symlinks: fusebpfctl acts as one by its name), the
# systemd unit and the configuration directory.
install: $(BUILD)/fusebpfctl $(BPF_OBJS) $(BUILD)/fusebpf.service
	install -D -m 0755 $(BUILD)/fusebpfctl $(DESTDIR)$(PREFIX)/sbin/fusebpfctl
	install -d $(DESTDIR)$(PREFIX)/lib/fusebpf
	install -m 0644 $(BPF_OBJS) $(DESTDIR)$(PREFIX)/lib/fusebpf/
	install -D -m 0644 docs/fusebpfctl.8 $(DESTDIR)$(PREFIX)/share/man/man8/fusebpfctl.8
	install -D -m 0644 docs/mount.fusebpf.8 $(DESTDIR)$(PREFIX)/share/man/man8/mount.fusebpf.8
	install -d $(DESTDIR)$(MOUNT_HELPER_DIR)
	ln -sfn $(PREFIX)/sbin/fusebpfctl $(DESTDIR)$(MOUNT_HELPER_DIR)/mount.fusebpf
	ln -sfn $(PREFIX)/sbin/fusebpfctl $(DESTDIR)$(MOUNT_HELPER_DIR)/mount.fuse.fusebpf
	install -D -m 0644 $(BUILD)/fusebpf.service $(DESTDIR)$(UNIT_DIR)/fusebpf.service
	install -d -m 0755 $(DESTDIR)$(SYSCONFDIR)/fusebpf/filters.d
	install -D -m 0644 cli/fusebpfctl.bash-completion \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/fusebpfctl

# make check: everything built, host unit tests, then the guest suites in one VM
# boot of the debug kernel; one closing line "N passed, N failed[, N skipped]".
# CHECK_KERNEL=normal runs the guest suites on the normal kernel instead.
CHECK_KERNEL ?= debug
check: all $(if $(filter debug,$(CHECK_KERNEL)),kernel-debug)
	$(Q)FUSEBPF_KERNEL=$(CHECK_KERNEL) tests/check.sh $(HOST_BINS:%=--host %) $(HOST_SCRIPTS:%=--host %) \
		$(GUEST_BINS:%=--guest %) --guest $(FUZZ_BIN)

# make stress: the stress suite alone, STRESS_SECONDS long (default 60) with
# STRESS_SEED (default random, printed), on the debug kernel
# (STRESS_KERNEL=normal: the normal one); tests/stress.sh.
STRESS_KERNEL ?= debug
stress: all $(if $(filter debug,$(STRESS_KERNEL)),kernel-debug)
	$(Q)FUSEBPF_KERNEL=$(STRESS_KERNEL) tests/stress.sh

# make vm CMD='cmd args': run one command as root in the guest. GNU make itself
# can only exit 0 or 2, so the command's status is reported by make's "Error N"
# line and by the last line; kernel/vm.sh 'cmd args' exits with it directly.
# FUSEBPF_KERNEL=debug boots the debug kernel.
# The command goes to the shell as make was given it: $(value CMD), single-quoted,
# so that CMD='echo $$HOME' reaches the guest's shell with its $$ intact.
VM_CMD = '$(subst ','\'',$(value CMD))'
vm: $(if $(filter debug,$(FUSEBPF_KERNEL)),kernel-debug,kernel)
	$(Q)if [ -z $(VM_CMD) ]; then exec kernel/vm.sh; fi; \
	kernel/vm.sh $(VM_CMD); rc=$$?; \
	[ $$rc = 0 ] || echo "make vm: the command exited with status $$rc" >&2; exit $$rc

demo: all
	$(Q)FUSEBPF_KERNEL=normal kernel/vm.sh demo/demo.sh

# make bench: every workload on every view (native, bind mount, fuse-bpf with
# each filter, bindfs, user-space FUSE) in rounds, in the guest
# (bench/bench.sh; BENCH_ROUNDS, BENCH_QUICK=1, ... pass through), then the
# chart on the host. Results in build/bench/: bench.md, bench.json,
# bench.tsv, bench.svg. Always the normal kernel: KASAN and lockdep would
# dominate the numbers. The job's source tree is cut from Debian's
# linux-source tarball once.
# BENCH_CPUS=1 pins the guest to host CPU 1 (taskset), away from other work.
# The rounds are spread over BENCH_BOOTS guest boots (default: one round a
# boot), so that the spread shows what changes between boots (bench/run.sh).
# bench/compare.sh A B says whether two runs' results agree.
BENCH_OUT := $(BUILD)/bench
BENCH_SRC_DIRS := fs/ext4 fs/fuse fs/overlayfs fs/xfs kernel/bpf mm
bench: all $(BENCH_OUT)/fsbench $(BENCH_OUT)/src.tar
	$(Q)BENCH_OUT=$(abspath $(BENCH_OUT)) bench/run.sh

$(BENCH_OUT)/fsbench: bench/fsbench.c
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $< -laio

$(BENCH_OUT)/src.tar: /usr/src/linux-source-6.1.tar.xz
	$(call msg,TAR,$@)
	@rm -rf $@.d && mkdir -p $@.d
	$(Q)tar -xJf $< -C $@.d $(BENCH_SRC_DIRS:%=linux-source-6.1/%)
	$(Q)mv $@.d/linux-source-6.1 $@.d/src && tar -cf $@.tmp -C $@.d src && mv $@.tmp $@ && rm -rf $@.d

clean:
	rm -rf $(BUILD)
.SECONDARY:
