#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot the fusebpf guest kernel in QEMU.
#
#   kernel/vm.sh                 a root shell on the serial console
#   kernel/vm.sh CMD...          run CMD (a shell command line) as root in the
#                                guest, stream its output, exit with its status
#
# The guest sees the host's root filesystem read-only over virtio-9p (so host
# tools and the repository's built binaries run in it, the repository at the
# same path), tmpfs on /tmp, /run, /var/tmp and /root, bpffs on /sys/fs/bpf.
#
# Environment:
#   FUSEBPF_CACHE   cache directory holding the kernels (see kernel/build.sh)
#   FUSEBPF_KERNEL  normal (default): bzImage-normal, from `make kernel`;
#                   debug: bzImage-debug (KASAN, lockdep, ...), from
#                   `make kernel-debug`, with 4G of memory by default
#   VM_KERNEL       boot this bzImage instead (the guest is told its version
#                   string, FUSEBPF_VM_KERNEL_VERSION)
#   FUSEBPF_ACCEL   kvm | tcg (default: kvm when a KVM guest actually runs)
#   VM_TIMEOUT      seconds before a command run is declared hung (default 900)
#   VM_MEM, VM_SMP  guest memory (default 2G, debug 4G) and CPUs (default 2:
#                   the suites race tasks on two CPUs; tests/guest/foundation
#                   checks that the guest sees them all)
#   VM_OUT          directory shared read-write with the guest (rc, dmesg,
#                   results); emptied first. Default: a new directory
#                   $FUSEBPF_CACHE/vm/runs/<time>-<pid>, so that guests run
#                   at once never share one (the newest 8 runs are kept)
#   VM_LOG          where the console log is kept (default VM_OUT/console.log)
#   VM_LOGLEVEL     the guest's console loglevel (default 4: warnings and
#                   worse); 7 also puts the task stacks of hung-task reports
#                   and of sysrq-w on the console, for a guest that hangs
#
# Two guests may run at once; each holds a lock on its out directory, and a
# second run given the same VM_OUT stops with an error instead of deleting
# the first one's files.
#
# Exit status: the command's; 124 when the guest hung (timeout); 125 when the
# guest died (panic, crash) before the command finished.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${FUSEBPF_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fusebpf}

die() { printf 'kernel/vm.sh: %s\n' "$*" >&2; exit 125; }

# The flavour (kernel/build.sh's KERNEL_FLAVOR). KASAN keeps an eighth of the
# memory as shadow and delays reusing freed objects (its quarantine), and
# lockdep has its own tables: the debug guest gets more memory.
flavor=${FUSEBPF_KERNEL:-normal}
case "$flavor" in
normal) kernel=${VM_KERNEL:-$cache/bzImage-normal} mem=${VM_MEM:-2G} target=kernel ;;
debug) kernel=${VM_KERNEL:-$cache/bzImage-debug} mem=${VM_MEM:-4G} target=kernel-debug ;;
*) die "FUSEBPF_KERNEL must be normal, debug or unset, not '$flavor'" ;;
esac
vmdir=$cache/vm
mkdir -p "$vmdir"
if [ -n "${VM_OUT:-}" ]; then
	outdir=$VM_OUT
else
	mkdir -p "$vmdir/runs"
	outdir=$vmdir/runs/$(date +%Y%m%d-%H%M%S)-$$
fi
log=${VM_LOG:-$outdir/console.log}
timeout_s=${VM_TIMEOUT:-900}
smp=${VM_SMP:-2}
case "${VM_LOGLEVEL:-4}" in
[0-8]) ;;
*) die "VM_LOGLEVEL must be a console loglevel from 0 to 8, not '${VM_LOGLEVEL}'" ;;
esac

command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 is missing: run 'make deps'"
[ -r "$kernel" ] || die "no kernel at $kernel: run 'make $target' first"

# --- KVM or TCG -----------------------------------------------------------------
# /dev/kvm can exist while a KVM guest hangs (it does on the build machines), so
# run a real guest with the CPU model the VM uses: a boot sector that writes to
# isa-debug-exit. QEMU exits with status 3 when the guest code ran. The answer
# is cached per host boot.
kvm_works() {
	[ -w /dev/kvm ] || return 1
	local bootid probe img rc
	bootid=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null || echo none)
	probe=$vmdir/kvm-probe
	if [ -f "$probe" ] && [ "$(head -n1 "$probe")" = "$bootid" ]; then
		[ "$(sed -n 2p "$probe")" = yes ]
		return
	fi
	img=$vmdir/kvm-probe.$$.img
	# mov al,1; out 0xf4,al; hlt; ... 0x55 0xaa boot signature
	{ printf '\xb0\x01\xe6\xf4\xf4'; head -c 505 /dev/zero; printf '\x55\xaa'; } >"$img"
	timeout 5 qemu-system-x86_64 -accel kvm -cpu host -smp "$smp" -display none -nodefaults -no-user-config \
		-m 16 -device isa-debug-exit,iobase=0xf4,iosize=0x04 \
		-drive file="$img",format=raw,if=ide >/dev/null 2>&1 &
	wait $! 2>/dev/null
	rc=$?
	rm -f "$img"
	if [ "$rc" = 3 ]; then
		printf '%s\nyes\n' "$bootid" >"$probe"
		return 0
	fi
	printf '%s\nno\n' "$bootid" >"$probe"
	return 1
}

case "${FUSEBPF_ACCEL:-auto}" in
kvm) accel=kvm ;;
tcg) accel=tcg ;;
auto) if kvm_works; then accel=kvm; else accel=tcg; fi ;;
*) die "FUSEBPF_ACCEL must be kvm, tcg or unset" ;;
esac
if [ "$accel" = kvm ]; then
	cpu=host
else
	cpu=max
fi

# --- the out directory -----------------------------------------------------------
# A lock beside it, held until this script exits: a run that finds it taken
# leaves the directory alone. Old default run directories whose lock is free
# are pruned, the newest 8 kept.
mkdir -p "$(dirname "$outdir")"
exec {lockfd}>"$outdir.lock" || die "cannot create $outdir.lock"
flock -n "$lockfd" || die "another guest is using $outdir (VM_OUT); give this run its own VM_OUT"
prune_runs() {
	local d n=0
	for d in $(ls -1dt "$vmdir"/runs/*/ 2>/dev/null); do
		d=${d%/}
		n=$((n + 1))
		[ "$n" -le 8 ] || [ "$d" = "$outdir" ] && continue
		{ flock -n 9 && rm -rf "$d" "$d.lock"; } 9>"$d.lock"
	done
}
[ -n "${VM_OUT:-}" ] || prune_runs
rm -rf "$outdir"
mkdir -p "$outdir"
ln -sfn "$outdir" "$vmdir/last" 2>/dev/null || true

# --- the command --------------------------------------------------------------------
interactive=0
if [ $# -eq 0 ]; then
	interactive=1
	: >"$outdir/interactive"
else
	printf '%s\n' "$*" >"$outdir/cmd"
fi
pwd >"$outdir/cwd"
env | grep -E '^(V|TAP_[A-Z_]*|FUSEBPF_[A-Z_]*|TEST_[A-Z_]*|BENCH_[A-Z_]*)=' | grep -v -e '^FUSEBPF_CACHE=' -e '^FUSEBPF_KERNEL=' >"$outdir/env" || true
# The cache this kernel came from and its flavour, also when the defaults were
# used, and the CPUs the guest is given (foundation's cpus_online checks it sees them)
printf 'FUSEBPF_CACHE=%q\nFUSEBPF_KERNEL=%s\nFUSEBPF_VM_CPUS=%s\n' "$(cd "$cache" && pwd)" "$flavor" "$smp" >>"$outdir/env"
# A VM_KERNEL image is no build of the cache's: the guest is told its version
# string (the setup header's kernel_version, at 0x200 + the word at 0x20e),
# which foundation's kernel_is_the_one_built compares with the running one.
if [ -n "${VM_KERNEL:-}" ]; then
	off=$(od -An -tu2 -j 526 -N 2 "$kernel" | tr -d ' ')
	version=$(dd if="$kernel" bs=1 skip=$((off + 512)) count=256 status=none | tr '\0' '\n' | head -n1)
	printf 'FUSEBPF_VM_KERNEL_VERSION=%q\n' "$version" >>"$outdir/env"
fi

append="console=ttyS0 root=fsroot rootfstype=9p"
append="$append rootflags=trans=virtio,version=9p2000.L,cache=loose,msize=262144 ro"
# no_timer_check: under TCG on a loaded host the IO-APIC timer check at boot
# can miss its ticks and panic ("IO-APIC + timer doesn't work!").
append="$append init=$here/guest-init.sh panic=-1 loglevel=${VM_LOGLEVEL:-4} tsc=reliable no_timer_check"
# The repository and the cache, which guest-init.sh keeps visible if they
# are below a directory that the guest covers with tmpfs (a checkout in
# /tmp, say).
append="$append fusebpf.hold=$(cd "$here/.." && pwd),$(cd "$cache" && pwd)"

qemu=(qemu-system-x86_64 -accel "$accel" -cpu "$cpu" -smp "$smp" -m "$mem"
	-nodefaults -no-user-config -display none -no-reboot
	-kernel "$kernel" -append "$append"
	-fsdev "local,id=fsroot,path=/,security_model=none,readonly=on,multidevs=remap"
	-device "virtio-9p-pci,fsdev=fsroot,mount_tag=fsroot"
	-fsdev "local,id=fsout,path=$outdir,security_model=none"
	-device "virtio-9p-pci,fsdev=fsout,mount_tag=fusebpf_out")

if [ "$interactive" = 1 ]; then
	echo "kernel/vm.sh: booting $(basename "$kernel") ($accel); 'exit' or Ctrl-D powers off, Ctrl-A X kills QEMU" >&2
	"${qemu[@]}" -serial mon:stdio
	exit 0
fi

# Console to a file, streamed to stdout while the guest runs.
: >"$log"
"${qemu[@]}" -serial "file:$log" </dev/null >"$outdir/qemu.err" 2>&1 &
qpid=$!
tail -n +1 -f --pid=$qpid "$log" 2>/dev/null | sed -u -e '/^FUSEBPF-GUEST-/d' -e '/sysrq: Resetting/d' -e 's/\r$//' &
tpid=$!
deadline=$((SECONDS + timeout_s))
hung=0
while kill -0 $qpid 2>/dev/null; do
	if [ $SECONDS -ge $deadline ]; then
		hung=1
		kill $qpid 2>/dev/null
		sleep 1
		kill -9 $qpid 2>/dev/null
		break
	fi
	sleep 0.2
done
wait $qpid 2>/dev/null
wait $tpid 2>/dev/null

[ "$log" -ef "$outdir/console.log" ] || cp -f "$log" "$outdir/console.log" 2>/dev/null || true
if [ "$hung" = 1 ]; then
	printf 'kernel/vm.sh: the guest hung: no result within %ss (VM_TIMEOUT); console log: %s\n' \
		"$timeout_s" "$log" >&2
	exit 124
fi
if [ ! -f "$outdir/rc" ]; then
	reason="died before the command finished"
	grep -q 'Kernel panic' "$log" && reason="panicked"
	printf 'kernel/vm.sh: the guest %s; console log: %s\n' "$reason" "$log" >&2
	[ -s "$outdir/qemu.err" ] && sed 's/^/  qemu: /' "$outdir/qemu.err" >&2
	exit 125
fi
exit "$(cat "$outdir/rc")"
