// SPDX-License-Identifier: GPL-2.0
/*
 * Latency histograms (fusebpf_maps.h: struct fusebpf_lat_hist, log2 slots
 * of microseconds): per-CPU summing, deltas, the text bars and JSON. No
 * kernel needed: tests/host/cli_stats.c checks them.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "fusebpfctl.h"
#include "json.h"
#include "stats.h"

#define HIST_STARS 40

void hist_sum_percpu(const struct fusebpf_lat_hist *percpu, int ncpu, struct fusebpf_lat_hist *out)
{
	memset(out, 0, sizeof(*out));
	for (int cpu = 0; cpu < ncpu; cpu++)
		for (int i = 0; i < FUSEBPF_HIST_SLOTS; i++)
			out->slot[i] += percpu[cpu].slot[i];
}

void hist_delta(const struct fusebpf_lat_hist *now, const struct fusebpf_lat_hist *before,
		struct fusebpf_lat_hist *out)
{
	for (int i = 0; i < FUSEBPF_HIST_SLOTS; i++)
		/* A slot that went back was reset: count from zero. */
		out->slot[i] = now->slot[i] < before->slot[i] ? now->slot[i] :
			       now->slot[i] - before->slot[i];
}

uint64_t hist_total(const struct fusebpf_lat_hist *h)
{
	uint64_t n = 0;

	for (int i = 0; i < FUSEBPF_HIST_SLOTS; i++)
		n += h->slot[i];
	return n;
}

/* The highest slot with a count, or -1. */
static int hist_top(const struct fusebpf_lat_hist *h)
{
	int top = -1;

	for (int i = 0; i < FUSEBPF_HIST_SLOTS; i++)
		if (h->slot[i])
			top = i;
	return top;
}

void hist_slot_range(int slot, uint64_t *low, uint64_t *high)
{
	*low = slot ? 1ULL << slot : 0;
	*high = (1ULL << (slot + 1)) - 1;
}

void hist_print(FILE *out, const char *op, const struct fusebpf_lat_hist *h)
{
	int top = hist_top(h);
	uint64_t max = 0, low, high;

	fprintf(out, "operation = '%s'\n", op);
	if (top < 0) {
		fprintf(out, "     (no times recorded)\n");
		return;
	}
	for (int i = 0; i <= top; i++)
		max = h->slot[i] > max ? h->slot[i] : max;
	fprintf(out, "%5s%-19s : count    distribution\n", "", "usecs");
	for (int i = 0; i <= top; i++) {
		char bar[HIST_STARS + 1];
		int stars = (int)(h->slot[i] * HIST_STARS / max);

		memset(bar, '*', stars);
		bar[stars] = 0;
		hist_slot_range(i, &low, &high);
		fprintf(out, "%10llu -> %-10llu : %-8llu |%-*s|\n", (unsigned long long)low,
			(unsigned long long)high, (unsigned long long)h->slot[i], HIST_STARS, bar);
	}
}

json_object *json_hist(unsigned int opcode, const struct fusebpf_lat_hist *h)
{
	json_object *o = json_object_new_object(), *slots = json_object_new_array();
	int top = hist_top(h);
	uint64_t low, high;
	char buf[16];

	json_object_object_add(o, "op", json_object_new_string(stats_op_name(opcode, buf, sizeof(buf))));
	json_object_object_add(o, "opcode", json_object_new_int(opcode));
	json_object_object_add(o, "count", json_object_new_int64(hist_total(h)));
	for (int i = 0; i <= top; i++) {
		json_object *s = json_object_new_object();

		hist_slot_range(i, &low, &high);
		json_object_object_add(s, "low", json_object_new_int64(low));
		json_object_object_add(s, "high", json_object_new_int64(high));
		json_object_object_add(s, "count", json_object_new_int64(h->slot[i]));
		json_object_array_add(slots, s);
	}
	json_object_object_add(o, "slots", slots);
	return o;
}
