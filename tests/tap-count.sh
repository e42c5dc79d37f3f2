#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Count TAP 13 results: prints "passed failed skipped". A planned test that
# never reported (a suite that died half way) counts as failed, and so does a
# file with no plan at all.
[ $# -gt 0 ] || { echo "0 0 0"; exit 0; }
awk '
function flush() {
	if (file == "")
		return
	if (plan < 0) {
		failed++
		printf "tap-count: %s has no plan\n", file > "/dev/stderr"
	} else if (seen < plan) {
		failed += plan - seen
		printf "tap-count: %s: %d of %d planned tests did not report\n", file, plan - seen, plan > "/dev/stderr"
	}
}
FNR == 1 { flush(); file = FILENAME; plan = -1; seen = 0 }
/^1\.\.[0-9]+/ { plan = substr($1, 4) + 0; next }
/^ok [0-9]+/ { seen++; if ($0 ~ /# *SKIP/) skipped++; else passed++; next }
/^not ok [0-9]+/ { seen++; if ($0 ~ /# *TODO/) passed++; else failed++; next }
END { flush(); printf "%d %d %d\n", passed, failed, skipped }
' "$@"
