#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make stress: boot the guest (the debug kernel unless FUSEBPF_KERNEL says
# otherwise) and run the stress suite (tests/guest/stress.c) once, then
# count its TAP and check the guest's kernel log like make check does.
#
#   STRESS_SECONDS  length of the run (default 60)
#   STRESS_SEED     the seed (default: random); printed, so that any run can
#                   be replayed: make stress STRESS_SEED=N STRESS_SECONDS=S
#   STRESS_WORKERS, STRESS_MUTATORS, STRESS_WALKERS  process counts
#
# Everything is kept in build/stress/: the console log, the guest's kernel
# log, the TAP, and the processes' op logs when the run failed.
set -uo pipefail
cd "$(dirname "$0")/.."
top=$PWD
out=$top/build/stress
bin=$top/build/tests/guest/stress
[ -x "$bin" ] || { echo "tests/stress.sh: $bin is missing: make tests" >&2; exit 2; }
rm -rf "$out"
mkdir -p "$out"

seconds=${STRESS_SECONDS:-60}
seed=${STRESS_SEED:-$(od -An -N6 -tu8 /dev/urandom | tr -d ' ')}
case "$seconds$seed" in *[!0-9]*) echo "tests/stress.sh: STRESS_SECONDS and STRESS_SEED are numbers" >&2; exit 2 ;; esac
vars="STRESS_SECONDS=$seconds STRESS_SEED=$seed"
for v in STRESS_WORKERS STRESS_MUTATORS STRESS_WALKERS; do
	[ -n "${!v:-}" ] && vars="$vars $v=$((${!v}))"
done
export FUSEBPF_KERNEL=${FUSEBPF_KERNEL:-debug}
echo "make stress: $vars on the $FUSEBPF_KERNEL kernel"

# The guest gets three times the run plus 15 minutes: boot, set-up and the
# checks take minutes on the debug kernel under TCG.
VM_OUT=$out/vm VM_LOG=$out/console.log VM_TIMEOUT=$((seconds * 3 + 900)) \
	TAP_DIR=/run/fusebpf-out/tap kernel/vm.sh "$vars $top/tests/run-guest.sh $bin"
vmrc=$?
cp -r "$out"/vm/tap/. "$out/" 2>/dev/null
[ -f "$out/vm/dmesg" ] && cp "$out/vm/dmesg" "$out/dmesg"

problems=()
case $vmrc in
124) problems+=("the guest hung (console log: $out/console.log)") ;;
125) problems+=("the guest crashed (console log: $out/console.log)") ;;
esac
[ -s "$out/stress.tap" ] || problems+=("the suite did not run (exit status $vmrc)")
klog=$out/dmesg
[ -f "$klog" ] || klog=$out/console.log
if ! tests/kernel-log-check.sh "$klog" >"$out/kernel-problems.txt"; then
	problems+=("the guest kernel log has $(wc -l <"$out/kernel-problems.txt") problem line(s): $out/kernel-problems.txt (log: $klog)")
	sed 's/^/  /' "$out/kernel-problems.txt" | head -n 20
fi
read -r passed failed skipped < <(tests/tap-count.sh "$out"/*.tap)
for p in "${problems[@]}"; do echo "stress: $p" >&2; done
echo "$passed passed, $failed failed (STRESS_SEED=$seed STRESS_SECONDS=$seconds)"
[ "$failed" -eq 0 ] && [ ${#problems[@]} -eq 0 ] && [ "$passed" -gt 0 ]
