// SPDX-License-Identifier: GPL-2.0
/* Per-CPU summing, deltas, totals and the stats table; no kernel needed. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "fusebpfctl.h"
#include "json.h"
#include "stats.h"

#define FIELD(s, i) (*(uint64_t *)((char *)(s) + fusebpf_stats_fields[i].offset))
#define CFIELD(s, i) (*(const uint64_t *)((const char *)(s) + fusebpf_stats_fields[i].offset))

void stats_sum_percpu(const struct fusebpf_op_stats *percpu, int ncpu, struct fusebpf_op_stats *out)
{
	memset(out, 0, sizeof(*out));
	for (int cpu = 0; cpu < ncpu; cpu++)
		for (size_t i = 0; i < FUSEBPF_STATS_NFIELDS; i++) {
			uint64_t v = CFIELD(&percpu[cpu], i);

			if (fusebpf_stats_fields[i].is_max)
				FIELD(out, i) = v > FIELD(out, i) ? v : FIELD(out, i);
			else
				FIELD(out, i) += v;
		}
}

bool stats_active(const struct fusebpf_op_stats *s)
{
	return s->pre || s->post || s->entries || s->denied || s->hidden || s->rewritten ||
	       s->backing_errors || s->to_user || s->would_deny || s->would_hide;
}

void stats_delta(const struct fusebpf_op_stats *now, const struct fusebpf_op_stats *before,
		 struct fusebpf_op_stats *out)
{
	for (size_t i = 0; i < FUSEBPF_STATS_NFIELDS; i++) {
		uint64_t a = CFIELD(now, i), b = CFIELD(before, i);

		/* A counter that went back was reset: count from zero. */
		FIELD(out, i) = fusebpf_stats_fields[i].is_max || a < b ? a : a - b;
	}
}

void stats_total(const struct op_row *rows, int nrows, struct fusebpf_op_stats *out)
{
	memset(out, 0, sizeof(*out));
	for (int r = 0; r < nrows; r++)
		for (size_t i = 0; i < FUSEBPF_STATS_NFIELDS; i++) {
			uint64_t v = CFIELD(&rows[r].s, i);

			if (fusebpf_stats_fields[i].is_max)
				FIELD(out, i) = v > FIELD(out, i) ? v : FIELD(out, i);
			else
				FIELD(out, i) += v;
		}
}

int stats_active_rows(const struct fusebpf_op_stats *all, struct op_row *rows)
{
	int n = 0;

	/* Real opcodes first, in order; slot 0 ("other") last. */
	for (unsigned int op = 1; op <= FUSEBPF_STATS_MAX_OPS; op++) {
		unsigned int slot = op % FUSEBPF_STATS_MAX_OPS;

		if (!stats_active(&all[slot]))
			continue;
		rows[n].opcode = slot;
		rows[n].s = all[slot];
		n++;
	}
	return n;
}

const char *stats_op_name(unsigned int opcode, char *buf, size_t cap)
{
	if (opcode < FUSEBPF_STATS_MAX_OPS && fusebpf_op_names[opcode])
		return fusebpf_op_names[opcode];
	snprintf(buf, cap, "op%u", opcode);
	return buf;
}

static void print_row(FILE *out, const char *op, const struct fusebpf_op_stats *s, double interval_s)
{
	const uint64_t cols[] = { s->pre, s->post, s->entries, s->denied, s->hidden, s->rewritten,
				  s->backing_errors, s->to_user, s->would_deny, s->would_hide };
	double avg_us = s->lat_count ? (double)s->lat_ns_sum / s->lat_count / 1000.0 : 0;

	fprintf(out, "%-16s", op);
	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++) {
		if (interval_s > 0)
			fprintf(out, " %10.1f", cols[i] / interval_s);
		else
			fprintf(out, " %10llu", (unsigned long long)cols[i]);
	}
	if (s->lat_count)
		fprintf(out, " %9.1f %9.1f\n", avg_us, s->lat_ns_max / 1000.0);
	else
		fprintf(out, " %9s %9s\n", "-", "-");
}

void stats_print_table(FILE *out, const char *name, double interval_s, const struct op_row *rows,
		       int nrows, const struct fusebpf_op_stats *totals)
{
	char buf[16];

	if (interval_s > 0)
		fprintf(out, "%s: per second over the last %.3g s\n", name, interval_s);
	else
		fprintf(out, "%s:\n", name);
	fprintf(out, "%-16s %10s %10s %10s %10s %10s %10s %10s %10s %10s %10s %9s %9s\n", "OP", "PRE",
		"POST", "ENTRIES", "DENIED", "HIDDEN", "REWRITTEN", "ERRORS", "TO_USER", "WOULD_DENY",
		"WOULD_HIDE", "AVG_US", "MAX_US");
	for (int i = 0; i < nrows; i++)
		print_row(out, stats_op_name(rows[i].opcode, buf, sizeof(buf)), &rows[i].s, interval_s);
	print_row(out, "total", totals, interval_s);
}
