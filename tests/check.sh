#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side of `make check`.
#   tests/check.sh [--host BIN]... [--guest BIN]...
# Runs the host unit tests, boots the VM once to run the guest suites, then
# counts the TAP results of both and prints one closing line:
#   N passed, N failed[, N skipped]
# It fails when a test failed, a planned test did not report, the guest
# crashed or hung, or the guest kernel log has a report
# (tests/kernel-log-check.sh: WARNING, BUG, Oops, KASAN, UBSAN, lockdep,
# sleeping in atomic context, hung tasks, list corruption). Logs are kept in
# build/check/. The guest boots FUSEBPF_KERNEL (kernel/vm.sh; make check sets
# it to debug).
set -uo pipefail
cd "$(dirname "$0")/.."
top=$PWD
out=$top/build/check
rm -rf "$out"
mkdir -p "$out/tap"

host=() guest=()
while [ $# -gt 0 ]; do
	case "$1" in
	--host) host+=("$2"); shift 2 ;;
	--guest) guest+=("$2"); shift 2 ;;
	*) echo "tests/check.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done

problems=()

# --- host unit tests --------------------------------------------------------------
for t in "${host[@]}"; do
	name=host-$(basename "$t")
	echo "# host suite $(basename "$t")"
	"$t" 2>&1 | tee "$out/tap/$name.tap"
done

# --- guest suites -------------------------------------------------------------------
if [ ${#guest[@]} -gt 0 ]; then
	vmout=$out/vm
	args=""
	for t in "${guest[@]}"; do args="$args $top/$t"; done
	echo "# guest suites on the ${FUSEBPF_KERNEL:-normal} kernel"
	VM_OUT=$vmout VM_LOG=$out/console.log VM_TIMEOUT=${VM_TIMEOUT:-5400} TAP_DIR=/run/fusebpf-out/tap \
		kernel/vm.sh "$top/tests/run-guest.sh$args"
	vmrc=$?
	cp "$vmout"/tap/*.tap "$out/tap/" 2>/dev/null
	[ -f "$vmout/dmesg" ] && cp "$vmout/dmesg" "$out/dmesg"
	case $vmrc in
	124) problems+=("the guest hung (console log: $out/console.log)") ;;
	125) problems+=("the guest crashed (console log: $out/console.log)") ;;
	esac
	# A suite that never ran (a binary or the runner missing in the guest)
	# reports nothing at all: that is a failure, not zero tests.
	for t in "${guest[@]}"; do
		[ -s "$out/tap/$(basename "$t").tap" ] ||
			problems+=("guest suite $(basename "$t") did not run (exit status $vmrc; console log: $out/console.log)")
	done
	# The kernel log: dmesg when the guest finished, the console otherwise.
	klog=$out/dmesg
	[ -f "$klog" ] || klog=$out/console.log
	if ! tests/kernel-log-check.sh "$klog" >"$out/kernel-problems.txt"; then
		problems+=("the guest kernel log has $(wc -l <"$out/kernel-problems.txt") problem line(s): $out/kernel-problems.txt (log: $klog)")
		sed 's/^/  /' "$out/kernel-problems.txt" | head -n 20
	fi
fi

# --- count --------------------------------------------------------------------------------
read -r passed failed skipped < <(tests/tap-count.sh "$out"/tap/*.tap)
line="$passed passed, $failed failed"
[ "$skipped" -gt 0 ] && line="$line, $skipped skipped"
for p in "${problems[@]}"; do echo "check: $p" >&2; done
echo "$line"
[ "$failed" -eq 0 ] && [ ${#problems[@]} -eq 0 ] && [ "$passed" -gt 0 ]
