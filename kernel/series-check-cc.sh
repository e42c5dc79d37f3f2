#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The compiler of kernel/series-check.sh's build (make CC=...): gcc, which
# also keeps what it printed on stderr for an object X.o in X.o.warn, so
# that an incremental build still knows the warnings of the objects it did
# not rebuild. Everything else passes straight through to gcc.
set -uo pipefail

out="" prev=""
for a in "$@"; do
	[ "$prev" = -o ] && out=$a
	prev=$a
done
case "$out" in
*.o) ;;
*) exec gcc "$@" ;;
esac
gcc "$@" 2>"$out.warn.tmp"
rc=$?
cat "$out.warn.tmp" >&2
mv -f "$out.warn.tmp" "$out.warn"
exit "$rc"
