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
	long count;		/* samples with -i; -1: until interrupted */
	bool reset;
	bool hist;
};

enum { O_RESET = 256, O_HIST };

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

/* all[FUSEBPF_STATS_MAX_OPS], summed over CPUs; 0 or -errno. */
static int read_stats(int fd, struct fusebpf_op_stats *all)
{
	int ncpu = libbpf_num_possible_cpus();
	struct fusebpf_op_stats *percpu;

	if (ncpu < 0)
		return ncpu;
	percpu = calloc(ncpu, sizeof(*percpu));
	if (!percpu)
		return -ENOMEM;
	for (uint32_t op = 0; op < FUSEBPF_STATS_MAX_OPS; op++) {
		if (bpf_map_lookup_elem(fd, &op, percpu)) {
			int err = -errno;

			free(percpu);
			return err;
		}
		stats_sum_percpu(percpu, ncpu, &all[op]);
	}
	free(percpu);
	return 0;
}

/* A per-CPU map of FUSEBPF_STATS_MAX_OPS values of size each, zeroed. */
static int reset_percpu(int fd, size_t size)
{
	int ncpu = libbpf_num_possible_cpus();
	void *zero;
	int err = 0;

	if (ncpu < 0)
		return ncpu;
	zero = calloc(ncpu, size);
	if (!zero)
		return -ENOMEM;
	for (uint32_t op = 0; op < FUSEBPF_STATS_MAX_OPS && !err; op++)
		if (bpf_map_update_elem(fd, &op, zero, BPF_ANY))
			err = -errno;
	free(zero);
	return err;
}

/* The histograms go with the counters: zeroed together, their counts still add up. */
static int reset_hist(const char *name)
{
	int fd = filter_obj_fd(name, FUSEBPF_MAP_HIST), err;

	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	err = reset_percpu(fd, sizeof(struct fusebpf_lat_hist));
	close(fd);
	return err;
}

static int reset_stats(int fd, const char *name)
{
	int err = reset_percpu(fd, sizeof(struct fusebpf_op_stats));

	return err ? err : reset_hist(name);
}

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
		fail(fd == -ENOENT ? 0 : fd, "stats %s: the filter has no %s map", name,
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

static bool interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = true;
}

static int sleep_interval(double s)
{
	struct timespec ts = { .tv_sec = (time_t)s, .tv_nsec = (long)((s - (time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		if (interrupted)
			return -EINTR;
	return 0;
}

/* --- stats --hist ------------------------------------------------------------ */

struct hist_src {
	char name[NAME_LEN];
	int fd;
	struct fusebpf_lat_hist prev[FUSEBPF_STATS_MAX_OPS];
};

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

/* all[FUSEBPF_STATS_MAX_OPS], summed over CPUs; 0 or -errno. */
static int read_hists(int fd, struct fusebpf_lat_hist *all)
{
	int ncpu = libbpf_num_possible_cpus();
	struct fusebpf_lat_hist *percpu;
	int err = 0;

	if (ncpu < 0)
		return ncpu;
	percpu = calloc(ncpu, sizeof(*percpu));
	if (!percpu)
		return -ENOMEM;
	for (uint32_t op = 0; op < FUSEBPF_STATS_MAX_OPS && !err; op++) {
		if (bpf_map_lookup_elem(fd, &op, percpu))
			err = -errno;
		else
			hist_sum_percpu(percpu, ncpu, &all[op]);
	}
	free(percpu);
	return err;
}

/* One filter's histograms: every op with times, or opcode alone (>= 0). */
static void hist_output(const char *name, double interval, const struct fusebpf_lat_hist *h,
			int opcode, json_object *arr)
{
	json_object *f = NULL, *ops = NULL;
	char buf[16];
	bool any = false;

	if (opts.json) {
		f = json_object_new_object();
		ops = json_object_new_array();
		json_object_object_add(f, "name", json_object_new_string(name));
		json_object_object_add(f, "interval_s", interval > 0 ? json_object_new_double(interval) : NULL);
		json_object_object_add(f, "unit", json_object_new_string("usecs"));
		json_object_object_add(f, "ops", ops);
		json_object_array_add(arr, f);
	} else if (interval > 0) {
		printf("%s: latency over the last %.3g s\n", name, interval);
	} else {
		printf("%s: latency\n", name);
	}
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

static int stats_hist(const struct stats_args *a, int nargs, char **args)
{
	struct fusebpf_lat_hist now[FUSEBPF_STATS_MAX_OPS], delta[FUSEBPF_STATS_MAX_OPS];
	char (*names)[NAME_LEN] = NULL;
	struct hist_src *srcs = NULL;
	int n = 0, k = 0, opcode = -1, ret = EXIT_FAIL, err;

	if (nargs > 2)
		return usage_error("too many arguments (NAME, OP, and COUNT after -i)");
	if (nargs == 2) {
		opcode = strcmp(args[1], "other") ? fuse_opcode(args[1]) : 0;
		if (opcode < 0)
			return usage_error("unknown operation '%s' (lookup, read, write, ...)", args[1]);
	}
	if (nargs >= 1) {
		names = calloc(1, sizeof(*names));
		if (!names)
			return fail(ENOMEM, "stats");
		snprintf(names[0], NAME_LEN, "%s", args[0]);
		n = 1;
	} else if ((n = filter_names(&names)) < 0) {
		return fail(-n, "stats: list %s", opts.pin_dir);
	}
	srcs = calloc(n ? n : 1, sizeof(*srcs));
	if (!srcs) {
		ret = fail(ENOMEM, "stats");
		goto out;
	}
	for (int i = 0; i < n; i++) {
		int fd = open_hist(names[i], nargs == 0);

		if (fd < 0 && nargs)
			goto out;
		if (fd < 0)
			continue;
		snprintf(srcs[k].name, NAME_LEN, "%s", names[i]);
		srcs[k++].fd = fd;
	}
	if (!k && !opts.json)
		note("stats: no filter keeps latency histograms");
	if (a->interval > 0) {
		signal(SIGINT, on_signal);
		signal(SIGTERM, on_signal);
		for (int i = 0; i < k; i++) {
			if (a->reset)
				reset_hist(srcs[i].name);
			if ((err = read_hists(srcs[i].fd, srcs[i].prev))) {
				ret = fail(-err, "stats %s: read %s", srcs[i].name, FUSEBPF_MAP_HIST);
				goto out;
			}
		}
	}
	for (long sample = 1; a->count < 0 || sample <= a->count; sample++) {
		json_object *doc = NULL, *arr = NULL;

		if (a->interval > 0 && sleep_interval(a->interval))
			break;
		if (opts.json) {
			doc = json_object_new_object();
			arr = json_object_new_array();
			json_object_object_add(doc, "sample",
					       a->interval > 0 ? json_object_new_int64(sample) : NULL);
			json_object_object_add(doc, "filters", arr);
		}
		for (int i = 0; i < k; i++) {
			if ((err = read_hists(srcs[i].fd, now))) {
				json_object_put(doc);
				ret = fail(-err, "stats %s: read %s", srcs[i].name, FUSEBPF_MAP_HIST);
				goto out;
			}
			if (a->interval > 0) {
				for (int op = 0; op < FUSEBPF_STATS_MAX_OPS; op++)
					hist_delta(&now[op], &srcs[i].prev[op], &delta[op]);
				memcpy(srcs[i].prev, now, sizeof(now));
			} else {
				memcpy(delta, now, sizeof(now));
			}
			hist_output(srcs[i].name, a->interval, delta, opcode, arr);
			if (!opts.json && i + 1 < k)
				printf("\n");
		}
		if (opts.json) {
			json_print(doc);
			json_object_put(doc);
		} else {
			if (a->interval > 0)
				printf("\n");
			fflush(stdout);
		}
		if (a->interval <= 0 || interrupted)
			break;
	}
	if (a->reset && a->interval <= 0) {
		for (int i = 0; i < k; i++) {
			int fd = filter_obj_fd(srcs[i].name, FUSEBPF_MAP_STATS);

			err = fd >= 0 ? reset_stats(fd, srcs[i].name) : reset_hist(srcs[i].name);
			if (fd >= 0)
				close(fd);
			if (err) {
				ret = fail(-err, "stats %s: reset", srcs[i].name);
				goto out;
			}
		}
	}
	ret = EXIT_OK;
out:
	for (int i = 0; i < k; i++)
		close(srcs[i].fd);
	free(srcs);
	free(names);
	return ret;
}

int do_stats(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "reset", no_argument, NULL, O_RESET },
		{ "hist", no_argument, NULL, O_HIST },
		{ 0 },
	};
	struct stats_args a = { 0 };
	char (*names)[NAME_LEN] = NULL;
	struct fusebpf_op_stats (*prev)[FUSEBPF_STATS_MAX_OPS] = NULL, now[FUSEBPF_STATS_MAX_OPS],
		delta[FUSEBPF_STATS_MAX_OPS];
	struct op_row rows[FUSEBPF_STATS_MAX_OPS];
	struct fusebpf_op_stats totals;
	int idx, n = 0, ret = EXIT_FAIL, *fds = NULL, err;
	bool all = false;
	long count = -1;
	char *end;

	idx = parse_cmd_opts(argc, argv, "i:", longopts, stats_opt, &a, help_stats);
	if (idx == PARSE_HELP)
		return EXIT_OK;
	if (idx < 0)
		return EXIT_USAGE;
	/* [NAME] [COUNT]: a number at the end is the count (with -i). */
	if (argc - idx >= 1 && a.interval > 0) {
		count = strtol(argv[argc - 1], &end, 10);
		if (!*end && count > 0)
			argc--;
		else
			count = -1;
	}
	a.count = count;
	if (a.hist)
		return stats_hist(&a, argc - idx, argv + idx);
	if (argc - idx > 1)
		return usage_error("too many arguments (NAME, and COUNT after -i)");
	if (argc - idx == 1) {
		names = calloc(1, sizeof(*names));
		if (!names)
			return fail(ENOMEM, "stats");
		snprintf(names[0], NAME_LEN, "%s", argv[idx]);
		n = 1;
	} else {
		all = true;
		n = filter_names(&names);
		if (n < 0)
			return fail(n, "stats: list %s", opts.pin_dir);
	}
	fds = calloc(n ? n : 1, sizeof(*fds));
	prev = calloc(n ? n : 1, sizeof(*prev));
	if (!fds || !prev) {
		ret = fail(ENOMEM, "stats");
		goto out;
	}
	for (int i = 0; i < n; i++)
		fds[i] = -1;
	for (int i = 0; i < n; i++) {
		/* Without NAME, filters that keep no statistics are left out. */
		fds[i] = open_stats(names[i], all);
		if (fds[i] < 0 && !all)
			goto out;
		if (fds[i] < 0) {
			memmove(&names[i], &names[i + 1], (n - i - 1) * sizeof(*names));
			n--;
			i--;
		}
	}
	if (!n && !opts.json)
		note("stats: no filter loaded");

	if (a.interval > 0) {
		signal(SIGINT, on_signal);
		signal(SIGTERM, on_signal);
		for (int i = 0; i < n; i++)
			if ((err = read_stats(fds[i], prev[i]))) {
				ret = fail(err, "stats %s: read %s", names[i], FUSEBPF_MAP_STATS);
				goto out;
			}
		if (a.reset)
			for (int i = 0; i < n; i++)
				reset_stats(fds[i], names[i]), memset(prev[i], 0, sizeof(prev[i]));
	}
	for (long sample = 1; count < 0 || sample <= count; sample++) {
		json_object *doc = NULL, *arr = NULL;

		if (a.interval > 0 && sleep_interval(a.interval))
			break;
		if (opts.json) {
			doc = json_object_new_object();
			arr = json_object_new_array();
			json_object_object_add(doc, "sample",
					       a.interval > 0 ? json_object_new_int64(sample) : NULL);
			json_object_object_add(doc, "filters", arr);
		}
		for (int i = 0; i < n; i++) {
			int nrows;

			if ((err = read_stats(fds[i], now))) {
				json_object_put(doc);
				ret = fail(err, "stats %s: read %s", names[i], FUSEBPF_MAP_STATS);
				goto out;
			}
			if (a.interval > 0) {
				for (int op = 0; op < FUSEBPF_STATS_MAX_OPS; op++)
					stats_delta(&now[op], &prev[i][op], &delta[op]);
				memcpy(prev[i], now, sizeof(now));
			} else {
				memcpy(delta, now, sizeof(now));
			}
			nrows = stats_active_rows(delta, rows);
			stats_total(rows, nrows, &totals);
			if (opts.json)
				json_object_array_add(arr, json_stats(names[i], a.interval, rows, nrows,
								      &totals));
			else
				stats_print_table(stdout, names[i], a.interval, rows, nrows, &totals);
			if (!opts.json && i + 1 < n)
				printf("\n");
		}
		if (opts.json) {
			json_print(doc);
			json_object_put(doc);
		} else {
			if (a.interval > 0)
				printf("\n");
			fflush(stdout);
		}
		if (a.interval <= 0)
			break;
		if (interrupted)
			break;
	}
	if (a.reset && a.interval <= 0)
		for (int i = 0; i < n; i++)
			if ((err = reset_stats(fds[i], names[i]))) {
				ret = fail(err, "stats %s: reset", names[i]);
				goto out;
			}
	ret = EXIT_OK;
out:
	for (int i = 0; fds && i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(fds);
	free(prev);
	free(names);
	return ret;
}
