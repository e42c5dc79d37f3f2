#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host test of bench/compare.sh (TAP 13): two runs whose spreads overlap
# agree, even where a median lies outside the other's spread (counted, with
# what runs of one distribution would give); more cells with disjoint
# spreads than such runs give disagree (exit 1, named); ratios are taken
# round by round; a file that is not a bench.tsv is refused (exit 2).
set -u
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); failed=1; echo "not ok $n - $1"; sed 's/^/# /' "$tmp/out"; }
check() { if eval "$2"; then ok "$1"; else notok "$1"; fi; }
echo "TAP version 13"
echo "1..7"

# run NAME FUSEBPF [NATIVE [WORKLOADS]]: a bench.tsv of 3 rounds; fuse-bpf's
# samples of each workload (default: stat) in FUSEBPF, native's in NATIVE
# (default 100 each round).
run() {
	mkdir -p "$tmp/$1"
	{
		printf 'round\tworkload\tconfig\tvalue\n'
		for r in 1 2 3; do
			for w in ${4:-stat}; do
				printf '%d\t%s\tnative\t%s\n' $r $w "$(echo ${3:-100,100,100} | cut -d, -f$r)"
				printf '%d\t%s\tfuse-bpf\t%s\n' $r $w "$(echo $2 | cut -d, -f$r)"
			done
			printf '%d\tcreate\tnative\t50\n' $r
			printf '%d\tcreate\tbind-ro\tro\n' $r
		done
	} >"$tmp/$1/bench.tsv"
}

run a 90,95,100
run b 92,97,99
bench/compare.sh "$tmp/a" "$tmp/b" >"$tmp/out" 2>&1
rc=$?
check "overlapping runs agree (status $rc)" '[ $rc = 0 ] && grep -q "^1 of 1 cells: the spreads overlap" "$tmp/out" && grep -q "^the runs agree" "$tmp/out"'
check "cells never run or read-only are counted as having no numbers" 'grep -q "^3 cells without numbers" "$tmp/out"'
# The spreads 0.90-1.00 and 0.97-1.10 overlap; B's median 1.05 is outside A's.
run e 97,105,110
bench/compare.sh "$tmp/a" "$tmp/e" >"$tmp/out" 2>&1
rc=$?
check "overlapping spreads agree, a median outside is counted (status $rc)" \
	'[ $rc = 0 ] && grep -q "^stat .*fuse-bpf .* yes  *NO$" "$tmp/out" && grep -q "^0 of 1 cells: each run" "$tmp/out"'
check "the counts come with what identical runs of 3 rounds give" \
	'grep -q "overlap (runs of one distribution: [89][0-9].[0-9]% each" "$tmp/out" && grep -q "3 and 3 rounds: [34][0-9]% each" "$tmp/out"'
# One cell in six disjoint is what identical 3-round runs give now and
# then; six in six is not.
wl="stat open walk readdir untar grep"
run a6 90,95,100 "" "$wl"
run c6 60,62,65 "" "$wl"
bench/compare.sh "$tmp/a6/bench.tsv" "$tmp/c6/bench.tsv" >"$tmp/out" 2>&1
rc=$?
check "cells outside the other's spread, more than chance: the runs disagree (status $rc)" \
	'[ $rc = 1 ] && grep -q "^stat .*fuse-bpf .*NO$" "$tmp/out" && grep -q "DISAGREE" "$tmp/out"'
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
