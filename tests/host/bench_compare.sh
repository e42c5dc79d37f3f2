#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host test of bench/compare.sh (TAP 13): two runs whose ratios lie within
# each other's spread agree; a cell that moved outside disagrees (exit 1,
# named); ratios are taken round by round; a file that is not a bench.tsv
# is refused (exit 2).
set -u
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); failed=1; echo "not ok $n - $1"; sed 's/^/# /' "$tmp/out"; }
check() { if eval "$2"; then ok "$1"; else notok "$1"; fi; }
echo "TAP version 13"
echo "1..5"

# run NAME FUSEBPF [NATIVE]: a bench.tsv of 3 rounds; fuse-bpf's stat
# samples in FUSEBPF, native's in NATIVE (default 100 each round).
run() {
	mkdir -p "$tmp/$1"
	{
		printf 'round\tworkload\tconfig\tvalue\n'
		for r in 1 2 3; do
			printf '%d\tstat\tnative\t%s\n' $r "$(echo ${3:-100,100,100} | cut -d, -f$r)"
			printf '%d\tstat\tfuse-bpf\t%s\n' $r "$(echo $2 | cut -d, -f$r)"
			printf '%d\tcreate\tnative\t50\n' $r
			printf '%d\tcreate\tbind-ro\tro\n' $r
		done
	} >"$tmp/$1/bench.tsv"
}

run a 90,95,100
run b 92,97,99
bench/compare.sh "$tmp/a" "$tmp/b" >"$tmp/out" 2>&1
rc=$?
check "overlapping runs agree (status $rc)" '[ $rc = 0 ] && grep -q "1 of 1 cells agree" "$tmp/out"'
check "cells never run or read-only are counted as having no numbers" 'grep -q "3 without numbers" "$tmp/out"'
run c 60,62,65
bench/compare.sh "$tmp/a/bench.tsv" "$tmp/c/bench.tsv" >"$tmp/out" 2>&1
rc=$?
check "a cell outside the other's spread disagrees (status $rc)" \
	'[ $rc = 1 ] && grep -q "^stat .*fuse-bpf .*NO$" "$tmp/out"'
# native and fuse-bpf slow down together in round 2: the ratio is 0.9 in
# every round, and the spread says so.
run d 90,45,90 100,50,100
bench/compare.sh "$tmp/d" "$tmp/d" >"$tmp/out" 2>&1
check "ratios are per round: 0.90 (0.90-0.90)" 'grep -q "^stat .*fuse-bpf .*0.90 (0.90-0.90)" "$tmp/out"'
echo garbage >"$tmp/bad.tsv"
bench/compare.sh "$tmp/a" "$tmp/bad.tsv" >"$tmp/out" 2>&1
rc=$?
check "not a bench.tsv: refused (status $rc)" '[ $rc = 2 ] && grep -q "not a bench.tsv" "$tmp/out"'
exit $failed
