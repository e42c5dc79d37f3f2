#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Configure a kernel build directory the way the fusebpf kernels are:
# tinyconfig, the fragments merged on top (scripts/kconfig/merge_config.sh),
# olddefconfig; then check that every =y of the fragments survived.
#
#   kernel/config.sh SRC OUT LOG FRAGMENT...
#
# Used by kernel/build.sh (normal and debug flavours) and by
# kernel/series-check.sh. The caller holds the build lock.
# Environment: CONFIG_MAKE_ARGS, extra make arguments (e.g. CC=...).
set -euo pipefail

die() { printf 'kernel/config.sh: %s\n' "$*" >&2; exit 1; }

[ $# -ge 4 ] || die "usage: kernel/config.sh SRC OUT LOG FRAGMENT..."
src=$1 out=$2 log=$3
shift 3
fragments=()
for f in "$@"; do
	[ -r "$f" ] || die "$f: no such config fragment"
	fragments+=("$(realpath "$f")") # merge_config.sh runs in $src
done
read -r -a extra <<<"${CONFIG_MAKE_ARGS:-}"
names=$(for f in "${fragments[@]}"; do printf ' + kernel/%s' "${f##*/}"; done)

kmake() { make -s -C "$src" O="$out" ARCH=x86_64 "${extra[@]}" "$@" >/dev/null; }

# Print the =y options of the fragments that the tree defines but that
# olddefconfig dropped; note the ones this tree does not define (yet).
missing_options() {
	local line sym
	while IFS= read -r line; do
		case "$line" in CONFIG_*=y) ;; *) continue ;; esac
		grep -qx "$line" "$out/.config" && continue
		sym=${line%=y}
		if git -C "$src" grep -q -E "^(menu)?config ${sym#CONFIG_}\$" -- '*Kconfig*'; then
			printf ' %s' "$sym"
		else
			echo "kernel/config.sh: note: $sym is not defined by this tree (yet)" >&2
		fi
	done < <(cat "${fragments[@]}")
}

mkdir -p "$out"
kmake tinyconfig
(cd "$src" && KCONFIG_CONFIG="$out/.config" scripts/kconfig/merge_config.sh -m -O "$out" \
	"$out/.config" "${fragments[@]}") >"$log" 2>&1 ||
	{ cat "$log" >&2; die "merging the config fragments failed"; }
kmake olddefconfig
missing=$(missing_options)
[ -z "$missing" ] || die "options in${names# +} did not survive olddefconfig:$missing"
