#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/compare.sh A B: do two make bench runs agree? A and B are run
# directories (holding bench.tsv) or bench.tsv files. Each run's ratios come
# from bench/summary.awk, as bench.md shows them: per cell, the median of
# the per-round ratios to native, and their min and max (the spread).
#
# Two tests per cell: the spreads overlap (the runs agree within their shown
# spread), and, stricter, each run's median lies within the other's spread.
# Two runs of one and the same distribution fail the strict test in many
# cells (about 28% at 5 rounds each, 13% at 7) and the overlap test in a
# few (0.7% at 5 rounds: one cell in 150 is no surprise), so each count is
# printed next to what identical runs of these many rounds would give (a
# simulation, bench/agree.awk), with the most cells that such runs fail
# 99 times in 100. Prints one line per cell and the counts; exits 1 if more
# cells fail either test than that (the runs disagree), 2 on bad input.

set -euo pipefail

die() { echo "compare.sh: $*" >&2; exit 2; }

tsv_of() {
	local f=$1
	[ -d "$f" ] && f=$f/bench.tsv
	[ -r "$f" ] || die "no bench.tsv at $1"
	head -1 "$f" | grep -q '^round	workload	config	value$' || die "$f: not a bench.tsv"
	echo "$f"
}

# The ratio table of a run, as bench.dat: a row per workload, then ratio,
# min and max per configuration but native.
dat_of() {	# tsv dir
	mkdir -p "$2"
	awk -F'\t' -v out="$2" -f "$(dirname "$0")/summary.awk" "$1" >/dev/null ||
		die "$1: summary.awk failed"
	echo "$2/bench.dat"
}

[ $# -eq 2 ] || die "usage: bench/compare.sh RUN_A RUN_B (directories or bench.tsv files)"
a=$(tsv_of "$1")
b=$(tsv_of "$2")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
da=$(dat_of "$a" "$tmp/a")
db=$(dat_of "$b" "$tmp/b")
rounds() { awk -F'\t' 'NR > 1 && !($1 in r) { r[$1]; n++ } END { print n + 0 }' "$1"; }

awk -F'\t' -v A="$da" -v na="$(rounds "$a")" -v nb="$(rounds "$b")" -f "$(dirname "$0")/agree.awk" \
	"$da" "$db"
