// SPDX-License-Identifier: GPL-2.0
/* stats' sampling loop and its two views, the table and the histograms; no kernel. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fusebpfctl.h"
#include "json.h"
#include "stats.h"
#include "stats_sample.h"

/* --- the table ------------------------------------------------------------------ */

static void table_sum(const void *percpu, int ncpu, void *out)
{
	stats_sum_percpu(percpu, ncpu, out);
}

static void table_delta(const void *now, const void *before, void *out)
{
	stats_delta(now, before, out);
}

static void table_output(const char *name, double interval, const void *vals, int opcode,
			 json_object *arr)
{
	struct op_row rows[FUSEBPF_STATS_MAX_OPS];
	struct fusebpf_op_stats totals;
	int nrows = stats_active_rows(vals, rows);

	(void)opcode;
	stats_total(rows, nrows, &totals);
	if (opts.json)
		json_object_array_add(arr, json_stats(name, interval, rows, nrows, &totals));
	else
		stats_print_table(stdout, name, interval, rows, nrows, &totals);
}

const struct stats_view stats_view_table = {
	.map = FUSEBPF_MAP_STATS,
	.size = sizeof(struct fusebpf_op_stats),
	.sum_percpu = table_sum,
	.delta = table_delta,
	.output = table_output,
};

/* --- the histograms ------------------------------------------------------------- */

static void hist_sum(const void *percpu, int ncpu, void *out)
{
	hist_sum_percpu(percpu, ncpu, out);
}

static void hist_delta_op(const void *now, const void *before, void *out)
{
	hist_delta(now, before, out);
}

static json_object *hist_json_filter(const char *name, double interval, json_object *arr)
{
	json_object *f = json_object_new_object(), *ops = json_object_new_array();

	json_object_object_add(f, "name", json_object_new_string(name));
	json_object_object_add(f, "interval_s", interval > 0 ? json_object_new_double(interval) : NULL);
	json_object_object_add(f, "unit", json_object_new_string("usecs"));
	json_object_object_add(f, "ops", ops);
	json_object_array_add(arr, f);
	return ops;
}

/* One filter's histograms: every op with times, or opcode alone (>= 0). */
static void hist_output(const char *name, double interval, const void *vals, int opcode,
			json_object *arr)
{
	const struct fusebpf_lat_hist *h = vals;
	json_object *ops = NULL;
	char buf[16];
	bool any = false;

	if (opts.json)
		ops = hist_json_filter(name, interval, arr);
	else if (interval > 0)
		printf("%s: latency over the last %.3g s\n", name, interval);
	else
		printf("%s: latency\n", name);
	/* Real opcodes in order, slot 0 ("other") last, as the table. */
	for (unsigned int i = 1; i <= FUSEBPF_STATS_MAX_OPS; i++) {
		unsigned int op = i % FUSEBPF_STATS_MAX_OPS;

		if (opcode >= 0 ? (int)op != opcode : !hist_total(&h[op]))
			continue;
		any = true;
		if (opts.json)
			json_object_array_add(ops, json_hist(op, &h[op]));
		else
			hist_print(stdout, stats_op_name(op, buf, sizeof(buf)), &h[op]);
	}
	if (!any && !opts.json)
		printf("     (no times recorded: postfilter off, or no operation yet)\n");
}

const struct stats_view stats_view_hist = {
	.map = FUSEBPF_MAP_HIST,
	.size = sizeof(struct fusebpf_lat_hist),
	.sum_percpu = hist_sum,
	.delta = hist_delta_op,
	.output = hist_output,
};

/* --- the loop ------------------------------------------------------------------- */

int stats_reset_filter(const struct stats_io *io, const char *name)
{
	int err = io->zero(name, FUSEBPF_MAP_STATS, sizeof(struct fusebpf_op_stats));

	return err ? err : io->zero(name, FUSEBPF_MAP_HIST, sizeof(struct fusebpf_lat_hist));
}

/* With an interval: the first values to subtract (zero after --reset). */
static int stats_start(const struct stats_view *v, const struct stats_io *io,
		       struct stats_src *srcs, int n, bool reset)
{
	int err;

	for (int i = 0; i < n; i++) {
		err = io->read(v, &srcs[i], srcs[i].prev);
		if (err) {
			fail(-err, "stats %s: read %s", srcs[i].name, v->map);
			return err;
		}
		if (!reset)
			continue;
		err = stats_reset_filter(io, srcs[i].name);
		if (err) {
			fail(-err, "stats %s: reset", srcs[i].name);
			return err;
		}
		memset(srcs[i].prev, 0, v->size * FUSEBPF_STATS_MAX_OPS);
	}
	return 0;
}

/* The values to show of one filter: now, or now - prev with an interval. */
static int stats_values(const struct stats_view *v, const struct stats_io *io,
			struct stats_src *s, double interval, char *now, char *out)
{
	size_t all = v->size * FUSEBPF_STATS_MAX_OPS;
	int err = io->read(v, s, now);

	if (err) {
		fail(-err, "stats %s: read %s", s->name, v->map);
		return err;
	}
	if (interval <= 0) {
		memcpy(out, now, all);
		return 0;
	}
	for (size_t op = 0; op < FUSEBPF_STATS_MAX_OPS; op++)
		v->delta(now + op * v->size, (char *)s->prev + op * v->size, out + op * v->size);
	memcpy(s->prev, now, all);
	return 0;
}

static int stats_print_sample(const struct stats_view *v, const struct stats_io *io,
			      struct stats_src *srcs, int n, const struct stats_run *r, long sample,
			      char *now, char *vals)
{
	json_object *doc = NULL, *arr = NULL;
	int err = 0;

	if (opts.json) {
		doc = json_object_new_object();
		arr = json_object_new_array();
		json_object_object_add(doc, "sample",
				       r->interval > 0 ? json_object_new_int64(sample) : NULL);
		json_object_object_add(doc, "filters", arr);
	}
	for (int i = 0; i < n && !err; i++) {
		err = stats_values(v, io, &srcs[i], r->interval, now, vals);
		if (err)
			break;
		v->output(srcs[i].name, r->interval, vals, r->opcode, arr);
		if (!opts.json && i + 1 < n)
			printf("\n");
	}
	if (err) {
		json_object_put(doc);
		return err;
	}
	if (opts.json)
		json_print(doc);
	else if (r->interval > 0)
		printf("\n");
	json_object_put(doc);
	fflush(stdout);
	return 0;
}

int stats_sample(const struct stats_view *v, const struct stats_io *io, struct stats_src *srcs,
		 int n, const struct stats_run *r)
{
	char *now = calloc(FUSEBPF_STATS_MAX_OPS, v->size);
	char *vals = calloc(FUSEBPF_STATS_MAX_OPS, v->size);
	int err = 0;

	if (!now || !vals) {
		err = -ENOMEM;
		fail(ENOMEM, "stats");
		goto out;
	}
	if (r->interval > 0 && (err = stats_start(v, io, srcs, n, r->reset)))
		goto out;
	for (long sample = 1; r->count < 0 || sample <= r->count; sample++) {
		if (r->interval > 0 && io->sleep(r->interval))
			break;
		err = stats_print_sample(v, io, srcs, n, r, sample, now, vals);
		if (err || r->interval <= 0 || *io->interrupted)
			break;
	}
	for (int i = 0; !err && r->reset && r->interval <= 0 && i < n; i++)
		if ((err = stats_reset_filter(io, srcs[i].name)))
			fail(-err, "stats %s: reset", srcs[i].name);
out:
	free(now);
	free(vals);
	return err;
}
