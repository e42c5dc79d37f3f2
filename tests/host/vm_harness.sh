#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host test of kernel/vm.sh and `make vm` as the fuzz and stress runs use
# them (TAP 13): two guests at once keep their own out directories and
# console logs, a second run on a busy VM_OUT is refused without touching
# the first one's files, and `make vm CMD=...` passes `$` and quotes through
# to the guest's shell. Boots the normal kernel four times (about 20 s
# under TCG).
set -u
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); failed=1; echo "not ok $n - $1"; }
check() { if eval "$2"; then ok "$1"; else notok "$1"; sed 's/^/# /' "$3" 2>/dev/null | tail -n 20; fi; }
echo "TAP version 13"
echo "1..4"

# Two runs at once: each sees its own marker, neither hangs. One vCPU each:
# two guests of two vCPUs under TCG on a two-core host can starve a vCPU
# booting for over 30 s, and the guest's ACPI then times out evaluating
# the PCI interrupt routing (AE_AML_LOOP_TIMEOUT) and never finds its
# disks; what is tested here is the harness, not SMP. A hang costs 300 s.
VM_SMP=1 VM_TIMEOUT=300 kernel/vm.sh 'sleep 2; echo marker-one' >"$tmp/one" 2>&1 &
p1=$!
sleep 0.5
VM_SMP=1 VM_TIMEOUT=300 kernel/vm.sh 'echo marker-two' >"$tmp/two" 2>&1
r2=$?
wait $p1
r1=$?
check "two guests at once both finish (status $r1, $r2)" '[ $r1 = 0 ] && [ $r2 = 0 ]' "$tmp/one"
check "each guest's output is its own" \
	'grep -q marker-one "$tmp/one" && ! grep -q marker-two "$tmp/one" && grep -q marker-two "$tmp/two"' "$tmp/two"

# A second run on a VM_OUT in use is refused, and the first one's files stay.
VM_OUT=$tmp/busy VM_SMP=1 VM_TIMEOUT=300 kernel/vm.sh 'sleep 3; echo busy-done' >"$tmp/first" 2>&1 &
p1=$!
sleep 1
VM_OUT=$tmp/busy VM_SMP=1 VM_TIMEOUT=300 kernel/vm.sh 'true' >"$tmp/second" 2>&1
r2=$?
wait $p1
r1=$?
check "a busy VM_OUT is refused, the first run finishes (status $r1, $r2)" \
	'[ $r1 = 0 ] && [ $r2 = 125 ] && grep -q "another guest is using" "$tmp/second" && grep -q busy-done "$tmp/busy/console.log"' \
	"$tmp/second"

# make vm: $ and ' reach the guest's shell unexpanded by make.
make -s vm CMD='echo "home=$HOME" '"'"'a  b'"'" >"$tmp/make" 2>&1
check "make vm CMD passes \$ and quotes through" 'grep -q "^home=/tmp/home a  b\$" "$tmp/make"' "$tmp/make"
exit $failed
