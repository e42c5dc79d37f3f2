# SPDX-License-Identifier: GPL-2.0
#
# bench/agree.awk: the cell-by-cell comparison of bench/compare.sh. Input:
# two bench.dat files (A first); -v A=<A's path> na=<A's rounds> nb=<B's>.
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

function median(v, n,    i, j, t) {
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
			t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
		}
	return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}

# Two runs of na and nb rounds drawn from one distribution: the share of
# cells that pass the strict test (into strict) and the overlap test (into
# overlap), by simulation with a fixed seed.
function expect(na, nb,    trials, t, i, a, b, ma, mb, la, ha, lb, hb) {
	srand(1)
	trials = 20000
	for (t = 0; t < trials; t++) {
		la = lb = 2; ha = hb = -1
		for (i = 1; i <= na; i++) {
			a[i] = rand(); la = a[i] < la ? a[i] : la; ha = a[i] > ha ? a[i] : ha
		}
		for (i = 1; i <= nb; i++) {
			b[i] = rand(); lb = b[i] < lb ? b[i] : lb; hb = b[i] > hb ? b[i] : hb
		}
		ma = median(a, na); mb = median(b, nb)
		strict += ma >= lb && ma <= hb && mb >= la && mb <= ha
		overlap += la <= hb && lb <= ha
	}
	strict /= trials; overlap /= trials
}

function cell(k,    wc, ra, la, ha, rb, lb, hb, med, ovl) {
	split(k, wc, SUBSEP)
	ra = r["a", k]; la = lo["a", k]; ha = hi["a", k]
	rb = r["b", k]; lb = lo["b", k]; hb = hi["b", k]
	med = ra >= lb && ra <= hb && rb >= la && rb <= ha
	ovl = la <= hb && lb <= ha
	total++
	medians += med
	overlaps += ovl
	printf "%-14s %-13s %-20s %-20s %-8s %s\n", wc[1], wc[2],
		sprintf("%.2f (%.2f-%.2f)", ra, la, ha), sprintf("%.2f (%.2f-%.2f)", rb, lb, hb),
		ovl ? "yes" : "NO", med ? "yes" : "NO"
}

# The most cells out of n that fail a test of failure rate p, for runs of
# one distribution, 99 times in 100: the smallest k with P(X <= k) >= 0.99,
# X binomial (the cells of a run are not independent, so a guide, not a law).
function bound(n, p,    k, pk, sum) {
	if (p <= 0)
		return 0
	if (p >= 1)
		return n
	pk = (1 - p) ^ n
	sum = pk
	for (k = 0; sum < 0.99 && k < n; k++) {
		pk *= (n - k) / (k + 1) * p / (1 - p)
		sum += pk
	}
	return k
}

END {
	printf "%-14s %-13s %-20s %-20s %-8s %s\n", "workload", "config", "A ratio (spread)",
		"B ratio (spread)", "overlap", "medians"
	for (i = 1; i <= nk; i++) {
		if ((("a", order[i]) in r) && (("b", order[i]) in r))
			cell(order[i])
		else
			skipped++
	}
	expect(na, nb)
	ko = bound(total, 1 - overlap)
	km = bound(total, 1 - strict)
	printf "\n%d of %d cells: the spreads overlap (runs of one distribution: %.1f%% each; up to %d cells not, 99 times in 100)\n",
		overlaps, total, 100 * overlap, ko
	printf "%d of %d cells: each run's median within the other's spread (runs of one distribution, %d and %d rounds: %.0f%% each; up to %d cells not)\n",
		medians, total, na, nb, 100 * strict, km
	if (skipped)
		printf "%d cells without numbers in both runs\n", skipped
	ok = total - overlaps <= ko && total - medians <= km
	printf "%s\n", ok ? "the runs agree" : "the runs DISAGREE: more cells differ than runs of one distribution would"
	exit ok ? 0 : 1
}
