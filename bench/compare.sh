#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/compare.sh A B: do two make bench runs agree? A and B are run
# directories (holding bench.tsv) or bench.tsv files. Each run's ratios come
# from bench/summary.awk, as bench.md shows them: per cell, the median of
# the per-round ratios to native, and their min and max (the spread). A cell
# agrees when each run's median lies within the other run's spread. Prints
# one line per cell and a count; exits 1 if a cell disagrees, 2 on bad input.

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

awk -F'\t' -v A="$da" '
# Row 1 names the configurations (every third column); rows after it hold
# ratio, min, max per configuration. Cells are keyed by workload and name.
FNR == 1 {
	run = FILENAME == A ? "a" : "b"
	for (j = 2; j <= NF; j += 3)
		name[run, j] = $j
	next
}
{
	for (j = 2; j <= NF; j += 3) {
		k = $1 SUBSEP name[run, j]
		if (!(k in seen)) {
			seen[k] = 1
			order[++nk] = k
		}
		if ($j != "NaN") {
			r[run, k] = $j; lo[run, k] = $(j + 1); hi[run, k] = $(j + 2)
		}
	}
}

END {
	printf "%-14s %-13s %-20s %-20s %s\n", "workload", "config", "A ratio (spread)", "B ratio (spread)", "agree"
	for (i = 1; i <= nk; i++) {
		k = order[i]
		split(k, wc, SUBSEP)
		if (!(("a", k) in r) || !(("b", k) in r)) {
			skipped++
			continue
		}
		ra = r["a", k]; la = lo["a", k]; ha = hi["a", k]
		rb = r["b", k]; lb = lo["b", k]; hb = hi["b", k]
		ok = ra >= lb && ra <= hb && rb >= la && rb <= ha
		total++
		agree += ok
		printf "%-14s %-13s %-20s %-20s %s\n", wc[1], wc[2],
			sprintf("%.2f (%.2f-%.2f)", ra, la, ha), sprintf("%.2f (%.2f-%.2f)", rb, lb, hb),
			ok ? "yes" : "NO"
	}
	printf "\n%d of %d cells agree (each run'\''s ratio within the other'\''s spread)", agree, total
	printf "%s\n", skipped ? sprintf("; %d without numbers in both runs", skipped) : ""
	exit agree == total ? 0 : 1
}' "$da" "$db"
