#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make fuzz: boot the debug kernel and run build/tests/fuzz/fuzz in it for
# FUZZ_SECONDS (default 300) with FUZZ_SEED (default: a new random one; the
# seed is printed first, so any run can be replayed); FUZZ_EXCLUDE (mount
# kinds to leave out: served, view, stacked, or none; default: those of the
# open bugs in tests/guest/fuzz_found.c, see fuzz.c). The guest gets
# FUZZ_SECONDS plus 10 minutes (VM_TIMEOUT) for its boot, the last epoch and
# the checks; a guest that stops answering fails the run (vm.sh: 124).
# FUZZ_SKIP_OPS (worker ops that do nothing, e.g. setid,umount: to look for
# other bugs while one class is open; fuzz_ops.c) is passed to the guest.
#
# Fails on a failed fuzz case (a kernel report seen during an epoch, a hang,
# a leak: the ring of each process's last operations is printed), a guest
# that hung or crashed, or a report in the guest's kernel log
# (tests/kernel-log-check.sh). Everything is kept in build/fuzz/ (fuzz.tap,
# console.log, dmesg), or in FUZZ_OUT.
set -uo pipefail
cd "$(dirname "$0")/../.."
top=$PWD
secs=${FUZZ_SECONDS:-300}
seed=${FUZZ_SEED:-}
[ -n "$seed" ] || seed=0x$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')
out=${FUZZ_OUT:-$top/build/fuzz}
case "$secs" in
'' | *[!0-9]*) echo "make fuzz: FUZZ_SECONDS must be a number of seconds, not '$secs'" >&2; exit 2 ;;
esac
bin=$top/build/tests/fuzz/fuzz
[ -x "$bin" ] || { echo "make fuzz: $bin is missing: run make tests" >&2; exit 2; }
rm -rf "$out"
mkdir -p "$out"

echo "fuzz: seed $seed, $secs s, on the ${FUSEBPF_KERNEL:-debug} kernel (FUZZ_SEED=$seed replays it)"
# loglevel 7: a hang's task stacks (hung-task reports, sysrq-w) reach the
# console log, which is all there is when the guest stops answering
FUSEBPF_KERNEL=${FUSEBPF_KERNEL:-debug} VM_OUT=$out/vm VM_LOG=$out/console.log \
	VM_LOGLEVEL=${VM_LOGLEVEL:-7} \
	VM_TIMEOUT=${VM_TIMEOUT:-$((secs + 600))} \
	kernel/vm.sh "${FUZZ_SKIP_OPS:+env FUZZ_SKIP_OPS=$FUZZ_SKIP_OPS }$bin -s $secs -S $seed${FUZZ_EXCLUDE:+ -x $FUZZ_EXCLUDE}" |
	tee "$out/fuzz.tap"
vmrc=${PIPESTATUS[0]}
[ -f "$out/vm/dmesg" ] && cp "$out/vm/dmesg" "$out/dmesg"

problems=()
case $vmrc in
0) ;;
124) problems+=("the guest stopped answering (VM_TIMEOUT); console log: $out/console.log") ;;
125) problems+=("the guest crashed; console log: $out/console.log") ;;
*) problems+=("the fuzzer failed (exit status $vmrc)") ;;
esac
klog=$out/dmesg
[ -f "$klog" ] || klog=$out/console.log
if ! tests/kernel-log-check.sh "$klog" >"$out/kernel-problems.txt"; then
	problems+=("the guest kernel log has $(wc -l <"$out/kernel-problems.txt") problem line(s): $out/kernel-problems.txt")
	sed 's/^/  /' "$out/kernel-problems.txt" | head -n 20
fi
read -r passed failed skipped < <(tests/tap-count.sh "$out/fuzz.tap")
[ "$failed" -eq 0 ] || problems+=("$failed fuzz case(s) failed")
for p in "${problems[@]}"; do echo "fuzz: $p" >&2; done
if [ ${#problems[@]} -gt 0 ]; then
	echo "fuzz: FAILED with seed $seed (replay: make fuzz FUZZ_SEED=$seed FUZZ_SECONDS=$secs${FUZZ_EXCLUDE:+ FUZZ_EXCLUDE=$FUZZ_EXCLUDE}; the last operations are above and in $out/console.log)"
	exit 1
fi
echo "fuzz: passed, seed $seed, $secs s"
