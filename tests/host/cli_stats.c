// SPDX-License-Identifier: GPL-2.0
/* Per-CPU summing, deltas, active rows, totals, the stats table and the sampling loop. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fusebpfctl.h"
#include "json.h"
#include "stats.h"
#include "stats_sample.h"
#include "tap.h"

static int t_sum_percpu(void)
{
	struct fusebpf_op_stats cpu[4], sum;
	int ret = TAP_FAIL;

	memset(cpu, 0, sizeof(cpu));
	for (int i = 0; i < 4; i++) {
		cpu[i].pre = 10 + i;
		cpu[i].post = 1;
		cpu[i].denied = i == 2 ? 5 : 0;
		cpu[i].lat_ns_sum = 100 * (i + 1);
		cpu[i].lat_count = i + 1;
		cpu[i].lat_ns_max = (uint64_t[]){ 7, 90, 3, 12 }[i];
	}
	stats_sum_percpu(cpu, 4, &sum);
	EXPECT(sum.pre == 46 && sum.post == 4 && sum.denied == 5, "pre %llu", (unsigned long long)sum.pre);
	EXPECT(sum.lat_ns_sum == 1000 && sum.lat_count == 10);
	EXPECT(sum.lat_ns_max == 90, "the max over CPUs, not the sum: %llu",
	       (unsigned long long)sum.lat_ns_max);
	EXPECT(sum.hidden == 0 && sum.entries == 0);
	/* Large values do not lose bits. */
	cpu[0].pre = 1ULL << 40;
	cpu[1].pre = 1ULL << 40;
	stats_sum_percpu(cpu, 2, &sum);
	EXPECT(sum.pre == 1ULL << 41);
	stats_sum_percpu(cpu, 0, &sum);
	EXPECT(sum.pre == 0 && sum.lat_ns_max == 0);
	ret = TAP_OK;
out:
	return ret;
}

static int t_delta(void)
{
	struct fusebpf_op_stats a = { .pre = 100, .post = 50, .lat_ns_max = 9 },
				b = { .pre = 40, .post = 60, .lat_ns_max = 20 }, d;
	int ret = TAP_FAIL;

	stats_delta(&a, &b, &d);
	EXPECT(d.pre == 60);
	EXPECT(d.post == 50, "a counter that went back (reset) counts from zero");
	EXPECT(d.lat_ns_max == 9, "max is not a counter");
	ret = TAP_OK;
out:
	return ret;
}

static int t_active_rows_and_totals(void)
{
	struct fusebpf_op_stats all[FUSEBPF_STATS_MAX_OPS], tot;
	struct op_row rows[FUSEBPF_STATS_MAX_OPS];
	int ret = TAP_FAIL, n;

	memset(all, 0, sizeof(all));
	all[0].pre = 1;		/* "other": listed last */
	all[28].entries = 30;	/* readdir: only entry runs */
	all[1].pre = 5;
	all[1].lat_ns_max = 70;
	all[16].denied = 2;
	all[16].pre = 2;
	all[3].lat_ns_sum = 5;	/* a time alone does not make an op active */
	n = stats_active_rows(all, rows);
	EXPECT(n == 4, "%d rows", n);
	EXPECT(rows[0].opcode == 1 && rows[1].opcode == 16 && rows[2].opcode == 28 && rows[3].opcode == 0);
	stats_total(rows, n, &tot);
	EXPECT(tot.pre == 8 && tot.entries == 30 && tot.denied == 2 && tot.lat_ns_max == 70);
	memset(all, 0, sizeof(all));
	EXPECT(stats_active_rows(all, rows) == 0);
	ret = TAP_OK;
out:
	return ret;
}

static int t_table(void)
{
	struct op_row rows[2] = {
		{ .opcode = 1, .s = { .pre = 10, .hidden = 3, .lat_ns_sum = 20000, .lat_count = 10,
				      .lat_ns_max = 5000 } },
		{ .opcode = 0, .s = { .pre = 1 } },
	};
	struct fusebpf_op_stats tot;
	char *buf = NULL, line[256];
	size_t len = 0;
	int ret = TAP_FAIL, lines = 0;
	FILE *f = open_memstream(&buf, &len), *r = NULL;
	char opname[16];

	stats_total(rows, 2, &tot);
	stats_print_table(f, "private", 0, rows, 2, &tot);
	fclose(f);
	EXPECT(strstr(buf, "private:\nOP "), "%s", buf);
	EXPECT(strstr(buf, "\nlookup "), "%s", buf);
	EXPECT(strstr(buf, "\nother "), "%s", buf);
	EXPECT(strstr(buf, "\ntotal "), "%s", buf);
	EXPECT(strstr(buf, "2.0       5.0\n"), "avg and max in us: %s", buf);
	r = fmemopen(buf, len, "r");
	while (fgets(line, sizeof(line), r))
		lines++;
	EXPECT(lines == 5, "title, header, 2 ops, total: %d lines", lines);
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	stats_print_table(f, "private", 2.0, rows, 2, &tot);
	fclose(f);
	EXPECT(strstr(buf, "per second over the last 2 s"), "%s", buf);
	EXPECT(strstr(buf, "lookup                  5.0"), "rates: %s", buf);
	EXPECT(!strcmp(stats_op_name(7, opname, sizeof(opname)), "op7"));
	EXPECT(!strcmp(stats_op_name(47, opname, sizeof(opname)), "copy_file_range"));
	ret = TAP_OK;
out:
	if (r)
		fclose(r);
	free(buf);
	return ret;
}

/* A fake filter for the sampling loop: its maps are counted reads and zeroings. */
static struct {
	int reads, zero_stats, zero_hist, zero_other;
	char order[16];		/* r: read, s: counters zeroed, h: histograms zeroed */
	int norder;
} io_log;
static volatile sig_atomic_t no_interrupt;

static int fake_read(const struct stats_view *v, const struct stats_src *s, void *all)
{
	(void)s;
	memset(all, 0, v->size * FUSEBPF_STATS_MAX_OPS);
	io_log.reads++;
	if (io_log.norder < 15)
		io_log.order[io_log.norder++] = 'r';
	return 0;
}

static int fake_zero(const char *name, const char *map, size_t size)
{
	(void)name;
	if (!strcmp(map, FUSEBPF_MAP_STATS) && size == sizeof(struct fusebpf_op_stats))
		io_log.zero_stats++;
	else if (!strcmp(map, FUSEBPF_MAP_HIST) && size == sizeof(struct fusebpf_lat_hist))
		io_log.zero_hist++;
	else
		io_log.zero_other++;
	if (io_log.norder < 15)
		io_log.order[io_log.norder++] = !strcmp(map, FUSEBPF_MAP_STATS) ? 's' : 'h';
	return 0;
}

static int fake_sleep(double s)
{
	(void)s;
	return 0;
}

static const struct stats_io fake_io = {
	.read = fake_read, .zero = fake_zero, .sleep = fake_sleep, .interrupted = &no_interrupt,
};

/*
 * --reset zeroes the counters and the histograms together, in both views
 * and with or without -i: stats --hist -i N --reset once zeroed only the
 * histograms, so that the counters' lat_count no longer matched them.
 */
static int t_reset_zeroes_both(void)
{
	const struct stats_view *views[] = { &stats_view_table, &stats_view_hist };
	struct fusebpf_lat_hist prev[FUSEBPF_STATS_MAX_OPS];
	struct stats_src src = { .name = "f", .fd = -1, .prev = prev };
	int ret = TAP_FAIL;

	for (int vi = 0; vi < 2; vi++)
		for (int with_interval = 0; with_interval < 2; with_interval++) {
			struct stats_run r = { .interval = with_interval ? 1 : 0, .count = 2,
					       .reset = true, .opcode = -1 };

			memset(&io_log, 0, sizeof(io_log));
			EXPECT(stats_sample(views[vi], &fake_io, &src, 1, &r) == 0);
			EXPECT(io_log.zero_stats == 1 && io_log.zero_hist == 1 && !io_log.zero_other,
			       "%s view, interval %d: counters zeroed %d times, histograms %d, "
			       "other %d", vi ? "hist" : "table", with_interval, io_log.zero_stats,
			       io_log.zero_hist, io_log.zero_other);
			/* -i: zeroed after the first read, then two samples; else after printing */
			EXPECT(!strcmp(io_log.order, with_interval ? "rshrr" : "rsh"), "order %s",
			       io_log.order);
		}
	/* Without --reset nothing is zeroed. */
	memset(&io_log, 0, sizeof(io_log));
	EXPECT(stats_sample(&stats_view_hist, &fake_io, &src, 1,
			    &(struct stats_run){ .interval = 1, .count = 1, .opcode = -1 }) == 0);
	EXPECT(!io_log.zero_stats && !io_log.zero_hist && io_log.reads == 2);
	ret = TAP_OK;
out:
	return ret;
}

/* Audit mode's counts: an op that only would have been refused is active and shown. */
static int t_audit_counts(void)
{
	struct fusebpf_op_stats all[FUSEBPF_STATS_MAX_OPS] = { 0 }, tot;
	struct op_row rows[FUSEBPF_STATS_MAX_OPS];
	char *buf = NULL;
	size_t len = 0;
	int ret = TAP_FAIL, n;
	FILE *f;

	all[16].would_deny = 4;
	all[1].would_hide = 2;
	n = stats_active_rows(all, rows);
	EXPECT(n == 2, "%d active rows", n);
	stats_total(rows, n, &tot);
	EXPECT(tot.would_deny == 4 && tot.would_hide == 2);
	f = open_memstream(&buf, &len);
	stats_print_table(f, "audit", 0, rows, n, &tot);
	fclose(f);
	EXPECT(strstr(buf, " WOULD_DENY WOULD_HIDE "), "%s", buf);
	EXPECT(strstr(buf, "\nwrite  ") && strstr(buf, "          4          0         -         -\n"),
	       "%s", buf);
	ret = TAP_OK;
out:
	free(buf);
	return ret;
}

static const struct tap_case cases[] = {
	{ "audit_counts", t_audit_counts },
	{ "sum_over_cpus", t_sum_percpu },
	{ "delta", t_delta },
	{ "active_rows_and_totals", t_active_rows_and_totals },
	{ "table", t_table },
	{ "reset_zeroes_counters_and_histograms", t_reset_zeroes_both },
};

TAP_MAIN("cli_stats", cases)
