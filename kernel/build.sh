#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the fusebpf guest kernel out of tree.
#
#   extract /usr/src/linux-source-6.1.tar.xz once into $FUSEBPF_CACHE/src (a git
#   repository whose first commit is the pristine tree), apply kernel/series on
#   the pristine tree whenever the series or a patch changes (only the files whose
#   content changes are rewritten, so the build stays incremental), merge
#   kernel/fusebpf.config onto tinyconfig whenever the fragment changes
#   (kernel/config.sh), and run an incremental `make bzImage` in
#   $FUSEBPF_CACHE/build-normal.
#
# Flavours (KERNEL_FLAVOR): both build from the same patched src/.
#   normal  $FUSEBPF_CACHE/build-normal, tinyconfig + fusebpf.config +
#           fusebpf-normal.config (-O2);
#           links $FUSEBPF_CACHE/bzImage-normal and vmlinux-normal
#   debug   $FUSEBPF_CACHE/build-debug, tinyconfig + fusebpf.config +
#           fusebpf-debug.config (KASAN, lockdep, ...);
#           links $FUSEBPF_CACHE/bzImage-debug and vmlinux-debug
#
# One build at a time: the whole run (extract, patch, configure, make) holds
# an exclusive flock on $FUSEBPF_CACHE/build.lock; a second build waits.
#
# Environment: FUSEBPF_CACHE (default ${XDG_CACHE_HOME:-~/.cache}/fusebpf),
#              KERNEL_FLAVOR (normal | debug, default normal),
#              KERNEL_TARBALL, JOBS, V=1 for verbose kernel build lines.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${FUSEBPF_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fusebpf}
tarball=${KERNEL_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
src=$cache/src
jobs=${JOBS:-$(nproc)}

say() { printf '  %-8s %s\n' "$1" "$2"; }
die() { printf 'kernel/build.sh: %s\n' "$*" >&2; exit 1; }

flavor=${KERNEL_FLAVOR:-normal}
case "$flavor" in
normal)	out=$cache/build-normal sfx=-normal
	fragments=("$here/fusebpf.config" "$here/fusebpf-normal.config") ;;
debug)	out=$cache/build-debug sfx=-debug
	fragments=("$here/fusebpf.config" "$here/fusebpf-debug.config") ;;
*)	die "KERNEL_FLAVOR must be normal or debug, not '$flavor'" ;;
esac

for tool in git make gcc flex bison bc pahole xz flock; do
	command -v "$tool" >/dev/null 2>&1 ||
		die "$tool is missing: run 'make deps' (apt-get install of the build dependencies)"
done
[ -r "$tarball" ] || die "$tarball not found: run 'make deps' (Debian package linux-source-6.1)"

mkdir -p "$cache"

# --- 0. one build at a time ------------------------------------------------------
# The lock covers everything below: extracting and patching rewrite src/,
# which the other flavour's make reads. fd 9 stays open (and locked) in the
# children, so a make that outlives this script still holds it.
exec 9>>"$cache/build.lock"
if ! flock -n 9; then
	holder=$(cat "$cache/build.lock" 2>/dev/null || true)
	printf 'kernel/build.sh: waiting for another kernel build (%s) to finish\n' \
		"${holder:-$cache/build.lock}" >&2
	flock 9
fi
echo "pid $$, $flavor flavour, since $(date '+%H:%M:%S')" >"$cache/build.lock"

# The Debian point release the series was made on, and the installed one.
made_on=$(sed -n 's/^# made-on: *//p' "$here/series" | head -n1)
installed=$(dpkg-query -W -f '${Version}' linux-source-6.1 2>/dev/null || echo unknown)
# The oldest point release the series works on: "# needs:" in kernel/series
# (the backports it relies on are named there).
needs=$(sed -n 's/^# needs: *\([^ ]*\).*/\1/p' "$here/series" | head -n1)
if [ -n "$needs" ] && [ "$installed" != unknown ] &&
	dpkg --compare-versions "$installed" lt "$needs"; then
	die "linux-source-6.1 $installed is older than $needs, which kernel/series needs; install the current one: apt-get update && apt-get install linux-source-6.1"
fi

# --- 1. extract once ---------------------------------------------------------
if [ ! -f "$src/.fusebpf-pristine" ] || [ "$(cat "$src/.fusebpf-pristine")" != "$installed" ]; then
	say EXTRACT "$tarball ($installed)"
	rm -rf "$src" "$cache/build" "$cache/build-normal" "$cache/build-debug"
	mkdir -p "$src"
	tar -xJf "$tarball" -C "$src" --strip-components=1
	git -C "$src" init -q
	git -C "$src" config user.name fusebpf
	git -C "$src" config user.email fusebpf@localhost
	git -C "$src" config core.autocrlf false
	git -C "$src" config gc.auto 0
	git -C "$src" add -A -f >/dev/null
	git -C "$src" commit -q -m "linux-source-6.1 $installed (pristine)"
	git -C "$src" tag -f pristine >/dev/null
	echo "$installed" >"$src/.fusebpf-pristine"
	rm -f "$cache/series.stamp"
fi
if [ -n "$made_on" ] && [ "$made_on" != "$installed" ]; then
	printf 'kernel/build.sh: note: the series was made on linux-source-6.1 %s; installed is %s\n' \
		"$made_on" "$installed" >&2
fi

# --- 2. apply the series on a pristine tree when it changed -------------------
patches=$(grep -v -e '^#' -e '^[[:space:]]*$' "$here/series" || true)
stamp=$( (cat "$here/series"; for p in $patches; do cat "$here/patches/$p"; done) | sha256sum | cut -d' ' -f1)
if [ ! -f "$cache/series.stamp" ] || [ "$(cat "$cache/series.stamp")" != "$stamp" ]; then
	say PATCH "applying kernel/series on the pristine tree"
	rm -f "$cache/series.stamp"
	# The series is applied on pristine in a separate index, then the
	# working tree is moved to the result: only files whose content
	# changes are rewritten, so the others keep their mtimes and the
	# build below stays incremental even when one patch changes.
	idx=$cache/series.index
	rm -f "$idx"
	GIT_INDEX_FILE=$idx git -C "$src" read-tree pristine
	n=0
	for p in $patches; do
		n=$((n + 1))
		f=$here/patches/$p
		[ -f "$f" ] || die "kernel/series names $p, which is not in kernel/patches/"
		if ! GIT_INDEX_FILE=$idx git -C "$src" apply --cached --whitespace=nowarn "$f" 2>"$cache/apply.err"; then
			echo "kernel/build.sh: patch $n does not apply: kernel/patches/$p" >&2
			sed 's/^/    /' "$cache/apply.err" >&2
			# Show the rejects against the tree the earlier patches made.
			git -C "$src" read-tree --reset -u "$(GIT_INDEX_FILE=$idx git -C "$src" write-tree)"
			git -C "$src" clean -q -fdx -e .fusebpf-pristine
			echo "  rejects (git apply --reject):" >&2
			git -C "$src" apply --reject --whitespace=nowarn "$f" 2>&1 | sed 's/^/    /' >&2 || true
			find "$src" -name '*.rej' -newer "$f" -print -exec sed 's/^/    /' {} \; >&2 || true
			git -C "$src" read-tree --reset -u "$(GIT_INDEX_FILE=$idx git -C "$src" write-tree)"
			git -C "$src" clean -q -fdx -e .fusebpf-pristine
			die "stopped at kernel/patches/$p (the tree has patches 1-$((n - 1)); fix the patch and re-run)"
		fi
		say APPLY "$p"
	done
	git -C "$src" read-tree --reset -u "$(GIT_INDEX_FILE=$idx git -C "$src" write-tree)"
	git -C "$src" clean -q -fdx -e .fusebpf-pristine
	rm -f "$idx"
	echo "$stamp" >"$cache/series.stamp"
fi

# --- 3. configuration ----------------------------------------------------------
mkdir -p "$out"
cfgstamp=$(cat "${fragments[@]}" "$cache/series.stamp" | sha256sum | cut -d' ' -f1)
cfgfile=$cache/config$sfx.stamp
names=$(for f in "${fragments[@]}"; do printf ' + kernel/%s' "${f##*/}"; done)
if [ ! -f "$out/.config" ] || [ ! -f "$cfgfile" ] || [ "$(cat "$cfgfile")" != "$cfgstamp" ]; then
	say CONFIG "tinyconfig$names"
	"$here/config.sh" "$src" "$out" "$cache/config$sfx.log" "${fragments[@]}"
	echo "$cfgstamp" >"$cfgfile"
fi

# --- 4. build --------------------------------------------------------------------
say MAKE "bzImage (-j$jobs) in $out"
mlog=$cache/make$sfx.log
if ! make -C "$src" O="$out" ARCH=x86_64 LOCALVERSION= -j"$jobs" ${V:+V=$V} bzImage >"$mlog" 2>&1; then
	grep -E -B2 -A6 'error|Error' "$mlog" | tail -n 60 >&2
	die "kernel build failed; full log: $mlog"
fi
grep -E 'warning:' "$mlog" | grep -v 'BTF' | head -n 20 >&2 || true
ln -sf "$out/arch/x86/boot/bzImage" "$cache/bzImage$sfx"
ln -sf "$out/vmlinux" "$cache/vmlinux$sfx"
say DONE "$(cat "$out/include/config/kernel.release") $cache/bzImage$sfx"
