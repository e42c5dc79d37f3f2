// SPDX-License-Identifier: GPL-2.0
/* fusebpfctl stats [NAME] [-i SECONDS] [COUNT] [--reset] */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <signal.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "filter.h"
#include "fusebpfctl.h"
#include "stats_sample.h"
#include "json.h"
#include "stats.h"

void help_stats(FILE *out)
{
	fprintf(out,
		"Usage: fusebpfctl stats [NAME] [-i SECONDS [COUNT]] [--reset]\n"
		"       fusebpfctl stats [NAME [OP]] --hist [-i SECONDS [COUNT]] [--reset]\n"
		"\n"
		"Per-operation statistics of a loaded filter (every filter without NAME), from\n"
		"its fusebpf_stats map, summed over CPUs: prefilter and postfilter runs, readdir\n"
		"entries filtered, ops denied, names hidden, attributes rewritten, backing errors\n"
		"seen, ops handed to the server, and the average and largest time between\n"
		"prefilter and postfilter. Only the ops that ran are shown, then a total row.\n"
		"With --hist, the distribution of those times per op (or of OP alone) as log2\n"
		"histograms in microseconds, as bcc's fsdist prints them; an op's counts add up\n"
		"to its lat_count.\n"
		"\n"
		"Options:\n"
		"      --hist              latency histograms instead of the table\n"
		"  -i, --interval SECONDS  print per-second rates every SECONDS (COUNT times,\n"
		"                          or until interrupted)\n"
		"      --reset             zero the counters and histograms after printing them\n"
		"\n"
		"JSON (-j): one document per sample: {\"sample\": N|null, \"filters\": [{\"name\": S,\n"
		"  \"interval_s\": N|null, \"ops\": [{\"op\": S, \"opcode\": N, \"pre\": N, \"post\": N,\n"
		"  \"entries\": N, \"denied\": N, \"hidden\": N, \"rewritten\": N, \"backing_errors\": N,\n"
		"  \"to_user\": N, \"lat_ns_sum\": N, \"lat_count\": N, \"lat_ns_max\": N,\n"
		"  \"lat_ns_avg\": N}], \"totals\": {the same without op and opcode}}]}\n"
		"With -i the counts are those of the interval (divide by interval_s for rates).\n"
		"--hist: {\"sample\": N|null, \"filters\": [{\"name\": S, \"interval_s\": N|null,\n"
		"  \"unit\": \"usecs\", \"ops\": [{\"op\": S, \"opcode\": N, \"count\": N,\n"
		"  \"slots\": [{\"low\": N, \"high\": N, \"count\": N}]}]}]} (slots from 0 to the\n"
		"  last one used; the last slot also counts longer times)\n"
		"\n"
		"EXAMPLES\n"
		"  fusebpfctl stats private\n"
		"  fusebpfctl stats private --json -i 1 5\n"
		"  fusebpfctl stats private --hist read\n"
		"  fusebpfctl stats --reset\n");
}

struct stats_args {
	double interval;
	bool reset;
	bool hist;
};

enum { O_RESET = 256, O_HIST };

static const struct option stats_longopts[] = {
	{ "interval", required_argument, NULL, 'i' },
	{ "reset", no_argument, NULL, O_RESET },
	{ "hist", no_argument, NULL, O_HIST },
	{ 0 },
};

static int stats_opt(int c, const char *arg, void *ctx)
{
	struct stats_args *a = ctx;
	char *end;

	switch (c) {
	case 'i':
		a->interval = strtod(arg, &end);
		if (*end || !(a->interval > 0) || a->interval > 86400)
			return usage_error("bad interval '%s' (seconds, > 0)", arg);
		return 0;
	case O_RESET:
		a->reset = true;
		return 0;
	case O_HIST:
		a->hist = true;
		return 0;
	}
	return EXIT_USAGE;
}

/* --- the kernel's maps ---------------------------------------------------------- */

/* all[FUSEBPF_STATS_MAX_OPS] of the view, summed over CPUs; 0 or -errno. */
static int read_view(const struct stats_view *v, const struct stats_src *s, void *all)
{
	int ncpu = libbpf_num_possible_cpus(), err = 0;
	void *percpu;

	if (ncpu < 0)
		return ncpu;
	percpu = calloc(ncpu, v->size);
	if (!percpu)
		return -ENOMEM;
	for (uint32_t op = 0; op < FUSEBPF_STATS_MAX_OPS && !err; op++) {
		if (bpf_map_lookup_elem(s->fd, &op, percpu))
			err = -errno;
		else
			v->sum_percpu(percpu, ncpu, (char *)all + op * v->size);
	}
	free(percpu);
	return err;
}

/* A per-CPU map of FUSEBPF_STATS_MAX_OPS values of size each, zeroed; none: 0. */
static int zero_map(const char *name, const char *map, size_t size)
{
	int ncpu = libbpf_num_possible_cpus(), fd, err = 0;
	void *zero;

	if (ncpu < 0)
		return ncpu;
	fd = filter_obj_fd(name, map);
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	zero = calloc(ncpu, size);
	if (!zero)
		err = -ENOMEM;
	for (uint32_t op = 0; op < FUSEBPF_STATS_MAX_OPS && !err; op++)
		if (bpf_map_update_elem(fd, &op, zero, BPF_ANY))
			err = -errno;
	free(zero);
	close(fd);
	return err;
}

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static int sleep_interval(double s)
{
	struct timespec ts = { .tv_sec = (time_t)s, .tv_nsec = (long)((s - (time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		if (interrupted)
			return -EINTR;
	return 0;
}

static const struct stats_io kernel_io = {
	.read = read_view,
	.zero = zero_map,
	.sleep = sleep_interval,
	.interrupted = &interrupted,
};

/* The stats map of a filter, checked for the layout we know (quiet: no message). */
static int open_stats(const char *name, bool quiet)
{
	struct bpf_map_info info = {};
	uint32_t len = sizeof(info);
	int fd;

	if (!valid_filter_name(name) || !filter_loaded(name)) {
		fail(ENOENT, "stats %s: no such filter loaded", name);
		return -ENOENT;
	}
	fd = filter_obj_fd(name, FUSEBPF_MAP_STATS);
	if (fd < 0 && quiet)
		return fd;
	if (fd < 0) {
		fail(fd == -ENOENT ? 0 : -fd, "stats %s: the filter has no %s map", name,
		     FUSEBPF_MAP_STATS);
		return fd;
	}
	if (bpf_obj_get_info_by_fd(fd, &info, &len) || info.type != BPF_MAP_TYPE_PERCPU_ARRAY ||
	    info.value_size != sizeof(struct fusebpf_op_stats) ||
	    info.max_entries < FUSEBPF_STATS_MAX_OPS) {
		if (quiet) {
			close(fd);
			return -EINVAL;
		}
		fail(0, "stats %s: %s is not the per-CPU array of struct fusebpf_op_stats this "
		     "fusebpfctl knows", name, FUSEBPF_MAP_STATS);
		close(fd);
		return -EINVAL;
	}
	return fd;
}

/* The histogram map of a filter, checked for the layout we know. */
static int open_hist(const char *name, bool quiet)
{
	struct bpf_map_info info = {};
	uint32_t len = sizeof(info);
	int fd;

	if (!valid_filter_name(name) || !filter_loaded(name)) {
		fail(ENOENT, "stats %s: no such filter loaded", name);
		return -ENOENT;
	}
	fd = filter_obj_fd(name, FUSEBPF_MAP_HIST);
	if (fd >= 0 && (bpf_obj_get_info_by_fd(fd, &info, &len) ||
			info.type != BPF_MAP_TYPE_PERCPU_ARRAY ||
			info.value_size != sizeof(struct fusebpf_lat_hist) ||
			info.max_entries < FUSEBPF_STATS_MAX_OPS)) {
		close(fd);
		fd = -EINVAL;
	}
	if (fd < 0 && !quiet)
		fail(fd == -ENOENT ? 0 : -fd, "stats %s: the filter keeps no latency histograms "
		     "(no per-CPU array %s of this layout)", name, FUSEBPF_MAP_HIST);
	return fd;
}

/* --- the command --------------------------------------------------------------- */

/*
 * The filters to sample: NAME, or every loaded one that has the view's map
 * (the others are left out quietly). 0, or -errno with the error printed.
 */
static int open_sources(const struct stats_view *v, const char *name, struct stats_src **out,
			int *nout)
{
	char (*names)[NAME_LEN] = NULL;
	struct stats_src *srcs;
	int n = 1, k = 0, fd, err = 0;

	if (!name && (n = filter_names(&names)) < 0) {
		fail(-n, "stats: list %s", opts.pin_dir);
		return n;
	}
	srcs = calloc(n ? n : 1, sizeof(*srcs));
	for (int i = 0; srcs && i < n && !err; i++) {
		const char *fname = name ? name : names[i];

		fd = v == &stats_view_hist ? open_hist(fname, !name) : open_stats(fname, !name);
		if (fd < 0) {
			err = name ? fd : 0;
			continue;
		}
		snprintf(srcs[k].name, NAME_LEN, "%s", fname);
		srcs[k].fd = fd;
		if (!(srcs[k++].prev = calloc(FUSEBPF_STATS_MAX_OPS, v->size)))
			err = -ENOMEM;
	}
	free(names);
	if (!srcs || err == -ENOMEM)
		fail(ENOMEM, "stats");
	*out = srcs;
	*nout = k;
	return srcs ? err : -ENOMEM;
}

static void close_sources(struct stats_src *srcs, int n)
{
	for (int i = 0; i < n; i++) {
		close(srcs[i].fd);
		free(srcs[i].prev);
	}
	free(srcs);
}

/* [NAME] [COUNT] (--hist: [NAME [OP]] [COUNT]): the count is a number at the end, with -i. */
static int stats_parse(int argc, char **argv, struct stats_args *a, struct stats_run *r,
		       const char **name)
{
	int idx = parse_cmd_opts(argc, argv, "i:", stats_longopts, stats_opt, a, help_stats);
	char *end;

	if (idx < 0)
		return idx;
	*r = (struct stats_run){ .interval = a->interval, .count = -1, .reset = a->reset,
				 .opcode = -1 };
	if (argc - idx >= 1 && a->interval > 0) {
		r->count = strtol(argv[argc - 1], &end, 10);
		if (!*end && r->count > 0)
			argc--;
		else
			r->count = -1;
	}
	argc -= idx;
	argv += idx;
	if (argc > (a->hist ? 2 : 1))
		return usage_error(a->hist ? "too many arguments (NAME, OP, and COUNT after -i)" :
				   "too many arguments (NAME, and COUNT after -i)"), PARSE_USAGE;
	if (argc == 2) {
		r->opcode = strcmp(argv[1], "other") ? fuse_opcode(argv[1]) : 0;
		if (r->opcode < 0)
			return usage_error("unknown operation '%s' (lookup, read, write, ...)",
					   argv[1]), PARSE_USAGE;
	}
	*name = argc ? argv[0] : NULL;
	return 0;
}

int do_stats(int argc, char **argv)
{
	const struct stats_view *v;
	struct stats_args a = { 0 };
	struct stats_src *srcs = NULL;
	struct stats_run r;
	const char *name;
	int err, n = 0;

	err = stats_parse(argc, argv, &a, &r, &name);
	if (err == PARSE_HELP)
		return EXIT_OK;
	if (err)
		return EXIT_USAGE;
	v = a.hist ? &stats_view_hist : &stats_view_table;
	err = open_sources(v, name, &srcs, &n);
	if (!err && !n && !opts.json)
		note(a.hist ? "stats: no filter keeps latency histograms" : "stats: no filter loaded");
	if (!err && r.interval > 0) {
		signal(SIGINT, on_signal);
		signal(SIGTERM, on_signal);
	}
	if (!err)
		err = stats_sample(v, &kernel_io, srcs, n, &r);
	close_sources(srcs, n);
	return err ? EXIT_FAIL : EXIT_OK;
}
