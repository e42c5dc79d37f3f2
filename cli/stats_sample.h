/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stats' sampling loop, one for the table and the histograms (no kernel:
 * the maps are read and zeroed through a struct stats_io, which
 * tests/host/cli_stats.c fakes).
 */
#ifndef FUSEBPFCTL_STATS_SAMPLE_H
#define FUSEBPFCTL_STATS_SAMPLE_H

#include <json-c/json.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "model.h"

/* What a sample shows of a filter: its counters (the table) or its histograms. */
struct stats_view {
	const char *map;	/* FUSEBPF_MAP_STATS or FUSEBPF_MAP_HIST */
	size_t size;		/* one op's value */
	void (*sum_percpu)(const void *percpu, int ncpu, void *out);
	void (*delta)(const void *now, const void *before, void *out);
	/* One filter's values, printed (JSON: added to arr); opcode >= 0: that op alone. */
	void (*output)(const char *name, double interval, const void *vals, int opcode,
		       json_object *arr);
};
extern const struct stats_view stats_view_table, stats_view_hist;

/* A filter being sampled. */
struct stats_src {
	char name[NAME_LEN];
	int fd;			/* its map of the view */
	void *prev;		/* FUSEBPF_STATS_MAX_OPS values: the last sample */
};

/* How the loop reads, zeroes and waits: the kernel's maps (stats.c), or a test's. */
struct stats_io {
	/* all[FUSEBPF_STATS_MAX_OPS] of the view, summed over CPUs; 0 or -errno. */
	int (*read)(const struct stats_view *v, const struct stats_src *s, void *all);
	/* Zero the filter's map of FUSEBPF_STATS_MAX_OPS values of size; 0 (none: 0) or -errno. */
	int (*zero)(const char *name, const char *map, size_t size);
	/* Sleep s seconds; -EINTR when interrupted. */
	int (*sleep)(double s);
	volatile sig_atomic_t *interrupted;
};

struct stats_run {
	double interval;	/* > 0: samples of the interval's deltas */
	long count;		/* samples with an interval; -1: until interrupted */
	bool reset;		/* zero counters and histograms (after printing, or before -i) */
	int opcode;		/* histograms of this op alone; -1: every op with times */
};

/* Zero a filter's counters and its histograms together, so that their counts still add up. */
int stats_reset_filter(const struct stats_io *io, const char *name);

/* Print the samples of n filters; 0, or -errno with the error printed. */
int stats_sample(const struct stats_view *v, const struct stats_io *io, struct stats_src *srcs,
		 int n, const struct stats_run *r);

#endif
