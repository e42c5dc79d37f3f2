#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of `make check`: run each guest suite given as an argument, each
# printing TAP 13, and keep each suite's TAP in $TAP_DIR/<suite>.tap (the
# directory shared with the host). The exit status is 0 when every suite
# passed.
tapdir=${TAP_DIR:-/run/fusebpf-out/tap}
mkdir -p "$tapdir"
rc=0
for t in "$@"; do
	name=$(basename "$t")
	echo "# suite $name"
	start=$(date +%s.%N)
	"$t" 2>&1 | tee "$tapdir/$name.tap"
	st=${PIPESTATUS[0]}
	printf '# suite %s: exit %d, %.1f s\n' "$name" "$st" "$(echo "$(date +%s.%N) - $start" | bc)"
	[ "$st" = 0 ] || rc=1
	# A test that leaves a mount behind would poison the next suite.
	if grep -qE ' fuse(\.[a-z]+)? ' /proc/mounts; then
		echo "# suite $name left FUSE mounts behind:"
		grep -E ' fuse(\.[a-z]+)? ' /proc/mounts | sed 's/^/#   /'
		grep -E ' fuse(\.[a-z]+)? ' /proc/mounts | awk '{print $2}' | xargs -r -n1 umount -l
		echo "not ok 1 $name-left-no-mounts" >"$tapdir/$name.leftover.tap"
		rc=1
	fi
done
exit $rc
