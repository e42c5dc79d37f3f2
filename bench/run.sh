#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/run.sh (make bench, on the host): boots the guest to run
# bench/bench.sh, then copies the results to BENCH_OUT and draws the chart.
# The rounds are spread over BENCH_BOOTS boots (default: one round a boot),
# each boot making its tree and views afresh and adding its rounds to the
# samples of the boots before: what differs from one boot to the next (the
# emulator's code cache, where the kernel put things) is then in every
# cell's spread, as it is between two runs. BENCH_BOOTS=1 runs all rounds
# in one boot. BENCH_PROFILE and BENCH_QUICK=1 runs are one boot.
#
#   BENCH_OUT   where the results go (required)
#   BENCH_CPUS  host CPUs to pin the guest to (taskset)
#   VM_SMP      the guest's CPUs: 1 by default (the suites' default is 2).
#               Every workload is one task, and a second vCPU under TCG
#               is one more emulator thread competing for the host's
#               cores; the runs in docs/performance.md had one CPU
#   VM_OUT      the guest's out directory (default BENCH_OUT/vm)
set -euo pipefail

die() { echo "bench: $*" >&2; exit 1; }

out=${BENCH_OUT:?BENCH_OUT is not set}
vm_out=${VM_OUT:-$out/vm}
quick=${BENCH_QUICK:-0}
rounds=${BENCH_ROUNDS:-}
[ -n "$rounds" ] || { [ "$quick" = 1 ] && rounds=1 || rounds=5; }
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || die "BENCH_ROUNDS must be a positive number, not '$rounds'"
boots=${BENCH_BOOTS:-$rounds}
[[ "$boots" =~ ^[1-9][0-9]*$ ]] || die "BENCH_BOOTS must be a positive number, not '$boots'"
[ -z "${BENCH_PROFILE:-}" ] || boots=1
[ "$boots" -le "$rounds" ] || boots=$rounds

# One boot: rounds first .. first + n - 1.
boot() {	# first n
	FUSEBPF_KERNEL=normal VM_OUT=$vm_out VM_TIMEOUT=${VM_TIMEOUT:-9000} VM_SMP=${VM_SMP:-1} \
		BENCH_ROUND_FIRST=$1 BENCH_ROUNDS=$2 BENCH_PRIOR_TSV=$out/bench.tsv.boots \
		${BENCH_CPUS:+taskset -c "$BENCH_CPUS"} env -u BENCH_OUT kernel/vm.sh bench/bench.sh
}

main() {
	local i first=1 n
	for ((i = 0; i < boots; i++)); do
		# rounds / boots each, the first rounds % boots boots one more
		n=$((rounds / boots + (i < rounds % boots ? 1 : 0)))
		[ "$boots" = 1 ] || echo "bench: boot $((i + 1)) of $boots: rounds $first-$((first + n - 1))"
		boot $first $n
		first=$((first + n))
		# each boot starts with an empty out directory: keep the samples
		[ -n "${BENCH_PROFILE:-}" ] || cp "$vm_out/bench.tsv" "$out/bench.tsv.boots"
	done
	rm -f "$out/bench.tsv.boots"
	if [ -n "${BENCH_PROFILE:-}" ]; then
		echo "bench: profiles in $vm_out/perf/"
		return
	fi
	cp "$vm_out"/bench.* "$out"/
	bench/chart.sh "$out/bench.dat" "$out/bench.svg"
}

main
