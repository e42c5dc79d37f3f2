#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make series-check: what a reviewer of kernel/series checks, patch by patch.
#
# For every prefix of the series (patches 1..N, N = FROM..TO), on a copy of
# the pristine tree of its own ($FUSEBPF_CACHE/series-check/src, a git clone
# --shared of $FUSEBPF_CACHE/src, which stays untouched):
#   apply       git am of patch N applies;
#   checkpatch  scripts/checkpatch.pl --strict on the patch file: an ERROR
#               fails; WARNINGs and CHECKs are listed in checkpatch.txt;
#   build       make W=1 fs/fuse/ kernel/bpf/ (objects only, no vmlinux) in
#               $FUSEBPF_CACHE/series-check/build, configured as the normal
#               kernel (kernel/config.sh: tinyconfig + kernel/fusebpf.config +
#               kernel/fusebpf-normal.config): fails on a warning that the
#               pristine tree's W=1 build of the same directories (saved once,
#               baseline.warnings) does not have; warnings are compared
#               without line numbers. The build is incremental: the compiler
#               (kernel/series-check-cc.sh) keeps each object's warnings, so
#               the objects not rebuilt still count;
#   uapi        for a patch that changes include/uapi (and for patch TO):
#               make headers_install, then every UAPI header the series
#               changes compiled on its own as C (the flags of 6.1's
#               usr/include/Makefile, and its headers_check.pl) and as C++.
# One line per patch (ok, or the steps that failed), then a summary line;
# the exit status is 1 if any step failed.
#
# Environment: SERIES_CHECK_FROM, SERIES_CHECK_TO (patch numbers, default
#              the whole series; patches before FROM are applied unchecked),
#              SERIES_CHECK_SKIP (any of: checkpatch build uapi),
#              FUSEBPF_CACHE, JOBS.
# Each make holds the flock on $FUSEBPF_CACHE/build.lock that kernel/build.sh
# takes, so the check never compiles while a kernel builds; all at nice 19.
set -euo pipefail
export LC_ALL=C

here=$(cd "$(dirname "$0")" && pwd)
cache=${FUSEBPF_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fusebpf}
sc=$cache/series-check
src=$sc/src
out=$sc/build
res=$sc/results
jobs=${JOBS:-$(nproc)}
skip=${SERIES_CHECK_SKIP:-}
skip=" ${skip//,/ } "
fragments=("$here/fusebpf.config" "$here/fusebpf-normal.config")
# The compiler wrapper is copied into the cache, so that its path (part of
# every object's command line) is the same from any checkout of the project.
cc=$sc/cc
kmake=(make -C "$src" O="$out" ARCH=x86_64 CC="$cc" LOCALVERSION=)

say() { printf '  %-10s %s\n' "$1" "$2"; }
die() { printf 'kernel/series-check.sh: %s\n' "$*" >&2; exit 2; }
skipped() { [[ "$skip" == *" $1 "* ]]; }
check_skip() {
	local w
	for w in $skip; do
		case "$w" in
		checkpatch | build | uapi) ;;
		*) die "SERIES_CHECK_SKIP: '$w' is not checkpatch, build or uapi" ;;
		esac
	done
}

# --- helpers ---------------------------------------------------------------------

# Run "$@" holding kernel/build.sh's lock. The note that it waits goes to
# the script's stderr (fd 7), not to the log the caller redirects to.
locked() {
	(
		if ! flock -n 9; then
			echo "kernel/series-check.sh: waiting for a kernel build ($(cat "$cache/build.lock" 2>/dev/null))" >&7
			flock 9
		fi
		echo "pid $$, series-check, since $(date '+%H:%M:%S')" >"$cache/build.lock"
		"$@"
	) 9>>"$cache/build.lock"
}

check_tools() {
	local tool
	for tool in git make gcc g++ perl flex bison bc flock; do
		command -v "$tool" >/dev/null 2>&1 || die "$tool is missing: run 'make deps'"
	done
	[ -d "$cache/src/.git" ] || die "$cache/src is missing: run 'make kernel' once (it extracts the pristine tree)"
}

# The clone of the pristine tree; made again if the pristine tree changed.
setup_src() {
	local pristine
	pristine=$(git -C "$cache/src" rev-parse pristine) || die "$cache/src has no tag 'pristine'"
	if [ -d "$src/.git" ] && [ "$(git -C "$src" rev-parse -q --verify pristine 2>/dev/null)" != "$pristine" ]; then
		say RESET "the pristine tree changed: new clone and build dir"
		rm -rf "$sc"
	fi
	mkdir -p "$sc" "$res"
	cmp -s "$here/series-check-cc.sh" "$cc" || install -m 0755 "$here/series-check-cc.sh" "$cc"
	[ -d "$src/.git" ] && return
	say CLONE "$cache/src (pristine) -> $src"
	git clone -q --shared --no-checkout "$cache/src" "$src"
	git -C "$src" config user.name fusebpf
	git -C "$src" config user.email fusebpf@localhost
	git -C "$src" config gc.auto 0
	git -C "$src" checkout -q -B check pristine
}

# The series, one patch name a line.
series() { grep -v -e '^#' -e '^[[:space:]]*$' "$here/series"; }

# A commit of the pristine tree with the first $1 patches, made in a
# separate index (nothing checked out).
prefix_commit() {
	local n=$1 idx=$sc/prefix.index p
	[ "$n" -gt 0 ] || { git -C "$src" rev-parse pristine; return; }
	rm -f "$idx"
	GIT_INDEX_FILE=$idx git -C "$src" read-tree pristine
	for p in $(series | sed -n "1,${n}p"); do
		GIT_INDEX_FILE=$idx git -C "$src" apply --cached "$here/patches/$p" ||
			die "kernel/patches/$p does not apply (run the check from 1 to see where)"
	done
	git -C "$src" commit-tree -p pristine -m "patches 1-$n of kernel/series" \
		"$(GIT_INDEX_FILE=$idx git -C "$src" write-tree)"
	rm -f "$idx"
}

# Check out pristine + the first $1 patches: only the files that differ
# from what is checked out are rewritten, so the build stays incremental.
goto_prefix() {
	local c
	[ ! -d "$src/.git/rebase-apply" ] || git -C "$src" am --abort
	c=$(prefix_commit "$1") || exit 2
	git -C "$src" checkout -q -f -B check "$c"
}

# --- build and warnings ------------------------------------------------------------

# Configure the build dir when the fragments or any Kconfig file changed.
configure() {
	local key
	key=$( (cat "${fragments[@]}"; git -C "$src" ls-files -s -- '*Kconfig*') | sha256sum | cut -d' ' -f1)
	[ -f "$out/.config" ] && [ "$(cat "$sc/config.key" 2>/dev/null)" = "$key" ] && return
	CONFIG_MAKE_ARGS="CC=$cc" \
		locked "$here/config.sh" "$src" "$out" "$sc/config.log" "${fragments[@]}" 2>"$sc/config.err" ||
		{ cat "$sc/config.err" >&2; return 1; }
	echo "$key" >"$sc/config.key"
}

# For each object X.o rebuilt since $sc/build.stamp, keep in X.o.logwarn
# the warnings of the commands that run after the compiler (which
# series-check-cc.sh wraps): objtool's about X.o, kernel-doc's about X.c.
keep_log_warnings() {
	local log=$1 w rel
	find "$out/fs/fuse" "$out/kernel/bpf" -name '*.o.warn' -newer "$sc/build.stamp" -print |
	while IFS= read -r w; do
		rel=${w#"$out"/}
		rel=${rel%.o.warn}
		grep -E -e "^$rel\.o: warning: objtool:" -e "^$src/$rel\.c:[0-9]+: warning:" \
			"$log" >"${w%.warn}.logwarn" || true
	done
}

# make W=1 fs/fuse/ kernel/bpf/ into the log $1.
build() {
	local log=$1
	configure || { echo "configuring failed: $sc/config.err" >"$log"; return 1; }
	touch "$sc/build.stamp"
	locked "${kmake[@]}" W=1 -j"$jobs" fs/fuse/ kernel/bpf/ >"$log" 2>&1 || return 1
	keep_log_warnings "$log"
}

# The warnings of the current objects, without line numbers, objtool's
# offsets and the locale's quotes (make unexports LC_ALL).
# Only the objects the archives list count: a file a later patch added
# keeps its X.o.warn when the tree goes back to pristine. (ar t names the
# members of a thin archive relative to the current directory.)
warnings() {
	local a o
	for a in fs/fuse kernel/bpf; do
		(cd "$out" && ar t "$a/built-in.a" 2>/dev/null) || true
	done |
	while IFS= read -r o; do
		cat "$out/$o.warn" "$out/$o.logwarn" 2>/dev/null || true
	done | { grep -E 'warning:' || true; } |
		sed -E -e "s|$src/||g" -e 's|^([^: ]+):[0-9]+(:[0-9]+)?:|\1:|' -e 's/\+0x[0-9a-f]+//g' -e "s/‘|’/'/g" |
		sort -u
}

# The pristine tree's warnings, built once per pristine tree, config, gcc
# and way of normalising them.
baseline() {
	local key
	key=$( (git -C "$src" rev-parse pristine; cat "${fragments[@]}"; gcc --version; declare -f warnings) |
		sha256sum | cut -d' ' -f1)
	[ -f "$sc/baseline.warnings" ] && [ "$(cat "$sc/baseline.key" 2>/dev/null)" = "$key" ] && return
	say BASELINE "W=1 build of fs/fuse kernel/bpf on the pristine tree (once)"
	goto_prefix 0
	build "$res/pristine.build.log" || die "the pristine tree does not build; see $res/pristine.build.log"
	warnings >"$sc/baseline.warnings"
	echo "$key" >"$sc/baseline.key"
	say BASELINE "$(wc -l <"$sc/baseline.warnings") warnings in $sc/baseline.warnings"
}

# --- the steps of one patch ($1 = patch name); each prints why it failed ---------------

step_apply() {
	git -C "$src" am -q "$here/patches/$1" >"$res/$1.am.log" 2>&1 && return
	git -C "$src" am --abort || true
	echo "apply (see $res/$1.am.log)"
	return 1
}

step_checkpatch() {
	local p=$1 log=$res/$1.checkpatch errors
	(cd "$src" && scripts/checkpatch.pl --strict --terse --showfile --no-summary \
		"$here/patches/$p") >"$log" 2>&1 || true
	grep -E ': (WARNING|CHECK):' "$log" | sed "s|^|$p: |" >>"$sc/checkpatch.txt" || true
	errors=$(grep -c ': ERROR:' "$log" || true)
	[ "$errors" -eq 0 ] && return
	echo "checkpatch ($errors errors: $log)"
	return 1
}

step_build() {
	local p=$1 log=$res/$1.build.log new=$res/$1.new-warnings n
	if ! build "$log"; then
		echo "build (see $log)"
		return 1
	fi
	warnings | comm -13 "$sc/baseline.warnings" - >"$new"
	n=$(wc -l <"$new")
	[ "$n" -eq 0 ] && return
	echo "W=1 ($n new warnings: $new)"
	return 1
}

# UAPI headers the series changes, as installed under usr/include.
uapi_headers() {
	local p
	for p in $(series); do
		sed -n -E 's@^diff --git a/(arch/x86/)?include/uapi/([^ ]+\.h) .*@\2@p' "$here/patches/$p"
	done | sort -u
}

touches_uapi() { grep -q -E '^diff --git a/(arch/[^/]+/)?include/uapi/' "$here/patches/$1"; }

# Each header alone as C (usr/include/Makefile's flags), then as C++.
compile_header() {
	local h=$1 inc=$out/usr/include
	[ -f "$inc/$h" ] || return 0
	gcc -std=c90 -Wall -Werror=implicit-function-declaration -m64 -I "$inc" \
		-I "$src/usr/dummy-include" -fsyntax-only -x c /dev/null -include "$inc/$h" -include "$inc/$h" &&
	perl "$src/usr/include/headers_check.pl" "$inc" x86 "$inc/$h" &&
	g++ -Wall -I "$inc" -fsyntax-only -x c++ /dev/null -include "$inc/$h"
}

step_uapi() {
	local p=$1 log=$res/$1.uapi.log h failed=""
	locked "${kmake[@]}" headers_install >"$log" 2>&1 || { echo "uapi (headers_install: $log)"; return 1; }
	for h in $(uapi_headers); do
		compile_header "$h" >>"$log" 2>&1 || failed="$failed $h"
	done
	[ -z "$failed" ] && ! grep -q 'warning:' "$log" && return
	echo "uapi (${failed:+${failed# }: }$log)"
	return 1
}

# --- the run --------------------------------------------------------------------

# Run step $1 on patch $2; add why it failed to check_one's fails.
run_step() {
	local r
	r=$("step_$1" "$2") && return
	fails+=("$r")
}

# Check patch $1 (number) named $2, $3 the last of the range; print its
# line; return 1 if a step failed, 2 if it does not apply.
check_one() {
	local n=$1 p=$2 last=$3 t0=$SECONDS r
	local -a fails=()
	r=$(step_apply "$p") || { report "$n" "$p" "$r" 0; return 2; }
	skipped checkpatch || run_step checkpatch "$p"
	skipped build || run_step build "$p"
	if ! skipped uapi && { touches_uapi "$p" || [ "$n" = "$last" ]; }; then
		run_step uapi "$p"
	fi
	r=$(printf '%s, ' "${fails[@]}")
	report "$n" "$p" "${r%, }" "$((SECONDS - t0))"
	[ "${#fails[@]}" = 0 ]
}

# One line: number, name, ok or why it failed, seconds.
report() {
	if [ -z "$3" ]; then
		printf '  %-4s ok    %s (%s s)\n' "$1" "$2" "${4:-0}"
	else
		printf '  %-4s FAIL  %s: %s (%s s)\n' "$1" "$2" "$3" "${4:-0}"
	fi
}

main() {
	local total from to n=0 ok=0 failed=0 p rc
	check_tools
	check_skip
	renice -n 19 -p $$ >/dev/null
	total=$(series | wc -l)
	from=${SERIES_CHECK_FROM:-1} to=${SERIES_CHECK_TO:-$total}
	[[ "$from" =~ ^[0-9]+$ && "$to" =~ ^[0-9]+$ && $from -ge 1 && $from -le $to && $to -le $total ]] ||
		die "SERIES_CHECK_FROM/TO must satisfy 1 <= FROM <= TO <= $total (got '$from', '$to')"
	setup_src
	skipped build || baseline
	goto_prefix $((from - 1))
	: >"$sc/checkpatch.txt"
	for p in $(series | sed -n "${from},${to}p"); do
		n=$((from + ok + failed))
		rc=0
		check_one "$n" "$p" "$to" || rc=$?
		[ "$rc" = 0 ] && ok=$((ok + 1)) || failed=$((failed + 1))
		[ "$rc" != 2 ] || { echo "  stopped: patch $n does not apply on patches 1-$((n - 1))"; break; }
	done
	summary "$from" "$to" "$total" "$ok" "$failed"
	[ "$failed" = 0 ]
}

summary() {
	local w c
	w=$(grep -c ': WARNING:' "$sc/checkpatch.txt" || true)
	c=$(grep -c ': CHECK:' "$sc/checkpatch.txt" || true)
	printf 'series-check: patches %s-%s of %s: %s ok, %s failed; checkpatch: %s WARNING, %s CHECK lines in %s\n' \
		"$1" "$2" "$3" "$4" "$5" "$w" "$c" "$sc/checkpatch.txt"
}

exec 7>&2
main "$@"
