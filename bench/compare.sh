#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/compare.sh A B: do two make bench runs agree? A and B are run
# directories (holding bench.tsv) or bench.tsv files. For every cell but
# native's, each run's ratio to native (its median over the rounds, divided
# by native's median of the same run) must lie within the other run's
# spread (the cell's min and max over native's median, as bench.md shows
# them). Prints one line per cell and a count; exits 1 if a cell disagrees,
# 2 on bad input.

set -euo pipefail

die() { echo "compare.sh: $*" >&2; exit 2; }

tsv_of() {
	local f=$1
	[ -d "$f" ] && f=$f/bench.tsv
	[ -r "$f" ] || die "no bench.tsv at $1"
	head -1 "$f" | grep -q '^round	workload	config	value$' || die "$f: not a bench.tsv"
	echo "$f"
}

[ $# -eq 2 ] || die "usage: bench/compare.sh RUN_A RUN_B (directories or bench.tsv files)"
a=$(tsv_of "$1")
b=$(tsv_of "$2")

awk -F'\t' -v A="$a" -v B="$b" '
function sort_num(v, n,    i, j, t) {
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
			t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
		}
}

# med/lo/hi of run r, cell k, from its numeric samples; 0 if it has none.
function stats(r, k,    n, i, v) {
	n = 0
	for (i = 1; i <= cnt[r, k]; i++)
		if (val[r, k, i] ~ /^[0-9.]+$/)
			v[++n] = val[r, k, i] + 0
	if (!n)
		return 0
	sort_num(v, n)
	med[r, k] = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	lo[r, k] = v[1]
	hi[r, k] = v[n]
	return 1
}

FNR == 1 { run = FILENAME == A ? "a" : "b"; next }
{
	k = $2 SUBSEP $3
	if (!((run, k) in cnt)) {
		if (!(k in seen)) {
			seen[k] = 1
			order[++nk] = k
		}
	}
	val[run, k, ++cnt[run, k]] = $4
}

END {
	printf "%-14s %-13s %-20s %-20s %s\n", "workload", "config", "A ratio (spread)", "B ratio (spread)", "agree"
	for (i = 1; i <= nk; i++) {
		k = order[i]
		split(k, wc, SUBSEP)
		if (wc[2] == "native")
			continue
		n = wc[1] SUBSEP "native"
		if (!stats("a", k) || !stats("b", k) || !stats("a", n) || !stats("b", n) ||
		    !med["a", n] || !med["b", n]) {
			skipped++
			continue
		}
		ra = med["a", k] / med["a", n]; la = lo["a", k] / med["a", n]; ha = hi["a", k] / med["a", n]
		rb = med["b", k] / med["b", n]; lb = lo["b", k] / med["b", n]; hb = hi["b", k] / med["b", n]
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
}' "$a" "$b"
