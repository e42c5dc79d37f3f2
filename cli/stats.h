/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Statistics arithmetic and printing (stats_math.c) and the latency
 * histograms (hist.c); no kernel needed (tests/host/cli_stats.c).
 */
#ifndef FUSEBPFCTL_STATS_H
#define FUSEBPFCTL_STATS_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "json.h"
#include "model.h"

/* Sum (or max, for the fields that say so) ncpu per-CPU values into out. */
void stats_sum_percpu(const struct fusebpf_op_stats *percpu, int ncpu, struct fusebpf_op_stats *out);
/* An op is active when any filter run counted it. */
bool stats_active(const struct fusebpf_op_stats *s);
/* out = now - before (max fields: now's value). */
void stats_delta(const struct fusebpf_op_stats *now, const struct fusebpf_op_stats *before,
		 struct fusebpf_op_stats *out);
/* Totals row over rows (sums; max of the max fields). */
void stats_total(const struct op_row *rows, int nrows, struct fusebpf_op_stats *out);
/* Keep the active rows of all[FUSEBPF_STATS_MAX_OPS] in rows; returns their count. */
int stats_active_rows(const struct fusebpf_op_stats *all, struct op_row *rows);
/* The op's display name ("lookup", "op7" for gaps). */
const char *stats_op_name(unsigned int opcode, char *buf, size_t cap);
/* Print the table (rates per second when interval_s > 0). */
void stats_print_table(FILE *out, const char *name, double interval_s, const struct op_row *rows,
		       int nrows, const struct fusebpf_op_stats *totals);

/* --- latency histograms (hist.c) ------------------------------------------------ */
void hist_sum_percpu(const struct fusebpf_lat_hist *percpu, int ncpu, struct fusebpf_lat_hist *out);
/* out = now - before (a slot that went back counts from zero). */
void hist_delta(const struct fusebpf_lat_hist *now, const struct fusebpf_lat_hist *before,
		struct fusebpf_lat_hist *out);
/* The sum of the slots: the op's lat_count. */
uint64_t hist_total(const struct fusebpf_lat_hist *h);
/* Slot 0: 0..1 us; slot i: 2^i..2^(i+1)-1 us. */
void hist_slot_range(int slot, uint64_t *low, uint64_t *high);
/* "operation = 'read'" and bars as bcc's fsdist prints them, slots 0 to the last used. */
void hist_print(FILE *out, const char *op, const struct fusebpf_lat_hist *h);
/* {"op": S, "opcode": N, "count": N, "slots": [{"low": N, "high": N, "count": N}]} */
json_object *json_hist(unsigned int opcode, const struct fusebpf_lat_hist *h);

#endif
