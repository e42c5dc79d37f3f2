# SPDX-License-Identifier: GPL-2.0
#
# bench/summary.awk: make bench's results from its samples (bench.tsv:
# round, workload, config, value; value a rate, "ro" for a write workload
# skipped on a read-only view, "fail" for a failed run). Per cell: the
# median, min and max over the rounds; and its ratio to native, round by
# round (the cell's rate in a round over native's in the same round), as
# the median, min and max of those per-round ratios (rates: higher is
# faster), so that native's own movement is in the spread. Prints the ratio
# table on stdout and writes, in the directory `out`: bench.md (the ratio
# and absolute tables), bench.json, and bench.dat (ratio, min, max per
# configuration; for bench/chart.sh and bench/compare.sh). Variables:
# configs, workloads (default: in the order of the samples), units, out,
# rounds, secs, kernel, cpus, when, load.

function sort_num(a, n,    i, j, t) {
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
		}
}

function is_num(s) {
	return s ~ /^[0-9.]+$/
}

# The median of a[1..n], sorted in place; m["lo"] and m["hi"] get the ends.
function median(a, n, m) {
	sort_num(a, n)
	m["lo"] = a[1]
	m["hi"] = a[n]
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}

# Fills med[], lo[], hi[], state[] for cell k from its samples.
function cell(k,    n, i, a, s, m) {
	n = 0
	for (i = 1; i <= cnt[k]; i++) {
		s = val[k, i]
		if (is_num(s))
			a[++n] = s + 0
		else if (s == "ro")
			state[k] = "ro"
		else
			failed[k]++
	}
	if (n == 0) {
		if (state[k] != "ro")
			state[k] = cnt[k] ? "fail" : "none"
		return
	}
	med[k] = median(a, n, m)
	lo[k] = m["lo"]
	hi[k] = m["hi"]
	state[k] = "ok"
	for (i = 1; i <= n; i++)
		samples[k] = samples[k] (i > 1 ? ", " : "") a[i]
}

# Fills rmed[], rlo[], rhi[] for cell k of workload w: the ratios to native
# of the rounds in which both have a number. No entry: no such round.
function ratios(k, w,    n, r, x, y, a, m) {
	n = 0
	for (r = 1; r <= last_round; r++) {
		x = byround[k, r]
		y = byround[w, "native", r]
		if (is_num(x) && is_num(y) && y > 0)
			a[++n] = x / y
	}
	if (!n)
		return
	rmed[k] = median(a, n, m)
	rlo[k] = m["lo"]
	rhi[k] = m["hi"]
}

function human(x) {
	if (x >= 1e7)
		return sprintf("%.0fM", x / 1e6)
	if (x >= 1e4)
		return sprintf("%.0fk", x / 1e3)
	return sprintf("%.0f", x)
}

# A cell of the ratio table: "0.97 (0.91-1.02)", or why there is none.
function rcell(w, c,    k) {
	k = w SUBSEP c
	if (state[k] == "ro")
		return "ro"
	if (state[k] != "ok")
		return state[k]
	if (c == "native")
		return sprintf("%s %s", human(med[k]), unit[w])
	if (!(k in rmed))
		return "-"
	return sprintf("%.2f (%.2f-%.2f)%s", rmed[k], rlo[k], rhi[k], failed[k] ? "!" : "")
}

function acell(w, c,    k) {
	k = w SUBSEP c
	if (state[k] != "ok")
		return state[k]
	return sprintf("%s [%s-%s]", human(med[k]), human(lo[k]), human(hi[k]))
}

function jnum(x) {
	return x == int(x) ? sprintf("%d", x) : sprintf("%.4f", x)
}

function write_md(f,    w, c, i, j) {
	printf "Ratios to native (each round's rate over native's in the same round: the median over %d rounds, min-max in brackets; higher is faster; ro: a write workload on a read-only view, skipped):\n\n", rounds > f
	printf "| workload |" > f
	for (j = 1; j <= nc; j++)
		printf " %s |", cfg[j] > f
	printf "\n|---|" > f
	for (j = 1; j <= nc; j++)
		printf "---|" > f
	printf "\n" > f
	for (i = 1; i <= nw; i++) {
		w = wl[i]
		printf "| %s |", w > f
		for (j = 1; j <= nc; j++)
			printf " %s |", rcell(w, cfg[j]) > f
		printf "\n" > f
	}
	printf "\nAbsolute: median [min-max] per cell:\n\n| workload | unit |" > f
	for (j = 1; j <= nc; j++)
		printf " %s |", cfg[j] > f
	printf "\n|---|---|" > f
	for (j = 1; j <= nc; j++)
		printf "---|" > f
	printf "\n" > f
	for (i = 1; i <= nw; i++) {
		w = wl[i]
		printf "| %s | %s |", w, unit[w] > f
		for (j = 1; j <= nc; j++)
			printf " %s |", acell(w, cfg[j]) > f
		printf "\n" > f
	}
	printf "\n%s, %d CPUs, %d rounds of %s s cells, load average at the end %s, %s.\n",
		kernel, cpus, rounds, secs, load, when > f
	close(f)
}

function write_json(f,    w, c, i, j, k, sep) {
	printf "{\"kernel\": \"%s\", \"cpus\": %d, \"rounds\": %d, \"seconds\": %s, \"when\": \"%s\", \"load\": \"%s\",\n",
		kernel, cpus, rounds, secs, when, load > f
	printf " \"configs\": [" > f
	for (j = 1; j <= nc; j++)
		printf "%s\"%s\"", (j > 1 ? ", " : ""), cfg[j] > f
	printf "],\n \"workloads\": [\n" > f
	for (i = 1; i <= nw; i++) {
		w = wl[i]
		printf "  {\"name\": \"%s\", \"unit\": \"%s\", \"cells\": {", w, unit[w] > f
		for (j = 1; j <= nc; j++) {
			c = cfg[j]
			k = w SUBSEP c
			printf "%s\n    \"%s\": ", (j > 1 ? "," : ""), c > f
			if (state[k] != "ok") {
				printf "{\"state\": \"%s\"}", state[k] > f
				continue
			}
			printf "{\"state\": \"ok\", \"median\": %s, \"min\": %s, \"max\": %s, ",
				jnum(med[k]), jnum(lo[k]), jnum(hi[k]) > f
			if (k in rmed)
				printf "\"ratio\": %.4f, \"ratio_min\": %.4f, \"ratio_max\": %.4f, ",
					rmed[k], rlo[k], rhi[k] > f
			printf "\"failed\": %d, \"samples\": [%s]}", failed[k], samples[k] > f
		}
		printf "}}%s\n", (i < nw ? "," : "") > f
	}
	printf " ]\n}\n" > f
	close(f)
}

# One row per workload: its name, then ratio, min, max for each configuration
# but native ("NaN" where there is no number).
function write_dat(f,    w, c, i, j, k) {
	printf "workload" > f
	for (j = 2; j <= nc; j++)
		printf "\t%s\t-\t-", cfg[j] > f
	printf "\n" > f
	for (i = 1; i <= nw; i++) {
		w = wl[i]
		printf "%s", w > f
		for (j = 2; j <= nc; j++) {
			k = w SUBSEP cfg[j]
			if (state[k] == "ok" && (k in rmed))
				printf "\t%.4f\t%.4f\t%.4f", rmed[k], rlo[k], rhi[k] > f
			else
				printf "\tNaN\tNaN\tNaN" > f
		}
		printf "\n" > f
	}
	close(f)
}

function print_table(    w, i, j) {
	printf "\n%-14s", "workload"
	for (j = 1; j <= nc; j++)
		printf " %17s", cfg[j]
	printf "\n"
	for (i = 1; i <= nw; i++) {
		w = wl[i]
		printf "%-14s", w
		for (j = 1; j <= nc; j++)
			printf " %17s", rcell(w, cfg[j])
		printf "\n"
	}
	printf "\nRatios to native, round by round: median (min-max) of %d rounds; native: its median. ro: skipped (read-only view).\n", rounds
}

BEGIN {
	nc = split(configs, cfg, " ")
	nw = split(workloads, wl, " ")
	split(units, u, " ")
	for (i = 1; i <= nw; i++)
		unit[wl[i]] = u[i]
	if (!configs)
		cfg[nc = 1] = "native"
	if (secs == "")
		secs = "null"
}

# Without configs or workloads, they are taken in the order of the samples.
function seen(list, n, x,    i) {
	for (i = 1; i <= n; i++)
		if (list[i] == x)
			return n
	list[++n] = x
	return n
}

NR > 1 {
	k = $2 SUBSEP $3
	val[k, ++cnt[k]] = $4
	byround[k, $1] = $4
	if ($1 > last_round)
		last_round = $1
	if (!configs)
		nc = seen(cfg, nc, $3)
	if (!workloads)
		nw = seen(wl, nw, $2)
}

END {
	if (rounds == "")
		rounds = last_round
	for (i = 1; i <= nw; i++)
		for (j = 1; j <= nc; j++)
			cell(wl[i] SUBSEP cfg[j])
	for (i = 1; i <= nw; i++)
		for (j = 2; j <= nc; j++)
			ratios(wl[i] SUBSEP cfg[j], wl[i])
	print_table()
	write_md(out "/bench.md")
	write_json(out "/bench.json")
	write_dat(out "/bench.dat")
}
