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

#include "fusebpfctl.h"
#include "state.h"

void help_stats(FILE *out)
{
	fprintf(out,
		"Usage: fusebpfctl stats [NAME] [-i SECONDS [COUNT]] [--reset]\n"
		"\n"
		"Per-operation statistics of a loaded filter (every filter without NAME), from\n"
		"its fusebpf_stats map, summed over CPUs: prefilter and postfilter runs, readdir\n"
		"entries filtered, ops denied, names hidden, attributes rewritten, backing errors\n"
		"seen, ops handed to the server, and the average and largest time between\n"
		"prefilter and postfilter. Only the ops that ran are shown, then a total row.\n"
		"\n"
		"Options:\n"
		"  -i, --interval SECONDS  print per-second rates every SECONDS (COUNT times,\n"
		"                          or until interrupted)\n"
		"      --reset             zero the counters after printing them\n"
		"\n"
		"JSON (-j): one document per sample: {\"sample\": N|null, \"filters\": [{\"name\": S,\n"
		"  \"interval_s\": N|null, \"ops\": [{\"op\": S, \"opcode\": N, \"pre\": N, \"post\": N,\n"
		"  \"entries\": N, \"denied\": N, \"hidden\": N, \"rewritten\": N, \"backing_errors\": N,\n"
		"  \"to_user\": N, \"lat_ns_sum\": N, \"lat_count\": N, \"lat_ns_max\": N,\n"
		"  \"lat_ns_avg\": N}], \"totals\": {the same without op and opcode}}]}\n"
		"With -i the counts are those of the interval (divide by interval_s for rates).\n"
		"\n"
		"EXAMPLES\n"
		"  fusebpfctl stats private\n"
		"  fusebpfctl stats private --json -i 1 5\n"
		"  fusebpfctl stats --reset\n");
}

struct stats_args {
	double interval;
	bool reset;
};

enum { O_RESET = 256 };

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

static int reset_stats(int fd)
{
	int ncpu = libbpf_num_possible_cpus();
	struct fusebpf_op_stats *zero;
	int err = 0;

	if (ncpu < 0)
		return ncpu;
	zero = calloc(ncpu, sizeof(*zero));
	if (!zero)
		return -ENOMEM;
	for (uint32_t op = 0; op < FUSEBPF_STATS_MAX_OPS && !err; op++)
		if (bpf_map_update_elem(fd, &op, zero, BPF_ANY))
			err = -errno;
	free(zero);
	return err;
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

int do_stats(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "reset", no_argument, NULL, O_RESET },
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
				reset_stats(fds[i]), memset(prev[i], 0, sizeof(prev[i]));
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
			if ((err = reset_stats(fds[i]))) {
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
