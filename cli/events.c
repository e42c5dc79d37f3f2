// SPDX-License-Identifier: GPL-2.0
/*
 * fusebpfctl events [NAME] [-f] [--syslog]
 *
 * Reads the audit events of loaded filters from their pinned ring buffers
 * (fusebpf_events): without -f what is queued, then exits; with -f it waits
 * for more until interrupted. Reading consumes them: the ring is one queue,
 * so two readers share the events between them. The counts of events the
 * filters dropped (rate limit, full ring) come from fusebpf_evlimit.
 */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "events_fmt.h"
#include "filter.h"
#include "fusebpfctl.h"
#include "json.h"
#include "ringbuf.h"

#define EVENTS_POLL_MS 250

void help_events(FILE *out)
{
	fprintf(out,
		"Usage: fusebpfctl events [NAME] [-f] [--syslog]\n"
		"\n"
		"Print the audit events of a loaded filter (of every filter that reports them\n"
		"without NAME): each operation its policy refused or hid, with the time, the\n"
		"caller's pid, command, real uid and gid, the operation, the entry name (none\n"
		"for operations on an open file), the verdict and the errno the caller got.\n"
		"A filter in audit mode ('fusebpfctl policy NAME enforce off') refuses and\n"
		"hides nothing and reports would-deny and would-hide, with the errno the\n"
		"caller would have got.\n"
		"Without -f, prints the events queued and exits; reading consumes them. The\n"
		"filters rate-limit their events (see 'fusebpfctl policy'); how many they\n"
		"dropped is printed after the events (on stderr in plain output).\n"
		"\n"
		"Options:\n"
		"  -f, --follow    wait for new events and print them as they come, until\n"
		"                  interrupted (as journalctl -f)\n"
		"      --syslog    send the events to syslog (facility authpriv, priority\n"
		"                  notice; drops warning) instead of printing them\n"
		"\n"
		"Plain: TIME FILTER: VERDICT OP [\"NAME\"] uid=N gid=N pid=N comm=S [errno=E] policy=P\n"
		"JSON (-j): one object per line: {\"type\": \"event\", \"filter\": S, \"time\": S,\n"
		"  \"time_ns\": N, \"pid\": N, \"tid\": N, \"comm\": S, \"uid\": N, \"gid\": N, \"op\": S,\n"
		"  \"opcode\": N, \"name\": S|null, \"verdict\": \"denied\"|\"hidden\"|\"would-deny\"|\n"
		"  \"would-hide\", \"errno\": S|null,\n"
		"  \"errno_num\": N, \"policy\": S}, and {\"type\": \"dropped\", \"filter\": S,\n"
		"  \"rate_limited\": N, \"ring_full\": N, \"sent\": N} when events were dropped.\n"
		"\n"
		"EXAMPLES\n"
		"  fusebpfctl events ro\n"
		"  fusebpfctl events -f\n"
		"  fusebpfctl -j events ro -f\n"
		"  fusebpfctl events -f --syslog\n");
}

struct events_args {
	bool follow;
	bool syslog;
};

enum { O_SYSLOG = 256 };

static int events_opt(int c, const char *arg, void *ctx)
{
	struct events_args *a = ctx;

	(void)arg;
	switch (c) {
	case 'f':
		a->follow = true;
		return 0;
	case O_SYSLOG:
		a->syslog = true;
		return 0;
	}
	return EXIT_USAGE;
}

/* One filter's ring and counters. */
struct ev_source {
	char name[NAME_LEN];
	int ring_fd;
	int limit_fd;
	uint64_t reported;	/* drops already reported */
	bool syslog;
	int64_t boot_to_real;
};

static int on_event(void *ctx, void *data, size_t size)
{
	struct ev_source *src = ctx;
	const struct fusebpf_event *ev = data;
	char line[2048];

	if (size < sizeof(*ev))
		return 0;
	if (src->syslog) {
		event_format(ev, src->name, 0, false, line, sizeof(line));
		syslog(LOG_AUTHPRIV | LOG_NOTICE, "%s", line);
	} else if (opts.json) {
		json_object *o = json_event(ev, src->name, src->boot_to_real);

		json_print(o);
		json_object_put(o);
	} else {
		event_format(ev, src->name, src->boot_to_real, true, line, sizeof(line));
		printf("%s\n", line);
	}
	return 0;
}

/* Report the filter's drops if they grew since the last report. */
static void report_drops(struct ev_source *src)
{
	struct fusebpf_ev_limit l = {};
	uint32_t zero = 0;
	char line[512];

	if (src->limit_fd < 0 || bpf_map_lookup_elem(src->limit_fd, &zero, &l))
		return;
	if (l.dropped_rate + l.dropped_full <= src->reported)
		return;
	src->reported = l.dropped_rate + l.dropped_full;
	if (src->syslog) {
		event_format_drops(src->name, &l, line, sizeof(line));
		syslog(LOG_AUTHPRIV | LOG_WARNING, "%s", line);
	} else if (opts.json) {
		json_object *o = json_event_drops(src->name, &l);

		json_print(o);
		json_object_put(o);
	} else {
		fflush(stdout);
		event_format_drops(src->name, &l, line, sizeof(line));
		fprintf(stderr, "fusebpfctl: %s\n", line);
	}
}

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* Open NAME's ring; -ENOENT (quietly, when quiet) if it reports no events. */
static int open_source(const char *name, bool quiet, struct ev_source *src)
{
	struct bpf_map_info info = {};
	uint32_t len = sizeof(info);

	memset(src, 0, sizeof(*src));
	src->ring_fd = src->limit_fd = -1;
	snprintf(src->name, sizeof(src->name), "%s", name);
	if (!valid_filter_name(name) || !filter_loaded(name)) {
		fail(ENOENT, "events %s: no such filter loaded", name);
		return -ENOENT;
	}
	src->ring_fd = filter_obj_fd(name, FUSEBPF_MAP_EVENTS);
	if (src->ring_fd >= 0 && (bpf_obj_get_info_by_fd(src->ring_fd, &info, &len) ||
				  info.type != BPF_MAP_TYPE_RINGBUF)) {
		close(src->ring_fd);
		src->ring_fd = -EINVAL;
	}
	if (src->ring_fd < 0) {
		int err = src->ring_fd;

		if (!quiet)
			fail(err == -ENOENT ? 0 : -err, "events %s: the filter reports no events "
			     "(no ring buffer %s)", name, FUSEBPF_MAP_EVENTS);
		return err;
	}
	src->limit_fd = filter_obj_fd(name, FUSEBPF_MAP_EVLIMIT);
	return 0;
}

static void close_sources(struct ev_source *srcs, int n)
{
	for (int i = 0; i < n; i++) {
		if (srcs[i].ring_fd >= 0)
			close(srcs[i].ring_fd);
		if (srcs[i].limit_fd >= 0)
			close(srcs[i].limit_fd);
	}
	free(srcs);
}

/* The sources: NAME's, or every loaded filter's that reports events. */
static int collect_sources(const char *name, struct ev_source **out)
{
	char (*names)[NAME_LEN] = NULL;
	struct ev_source *srcs;
	int n, k = 0, err;

	if (name) {
		names = calloc(1, sizeof(*names));
		if (!names)
			return -ENOMEM;
		snprintf(names[0], NAME_LEN, "%s", name);
		n = 1;
	} else {
		n = filter_names(&names);
		if (n < 0)
			return fail(-n, "events: list %s", opts.pin_dir), n;
	}
	srcs = calloc(n ? n : 1, sizeof(*srcs));
	if (!srcs) {
		free(names);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++) {
		err = open_source(names[i], !name, &srcs[k]);
		if (err && name) {
			free(names);
			close_sources(srcs, 1);
			return err;
		}
		if (!err)
			k++;
	}
	free(names);
	*out = srcs;
	return k;
}

/* One manager over the sources' rings; NULL with the error printed. */
static struct ring_buffer *open_rings(struct ev_source *srcs, int n)
{
	struct ring_buffer *rb = NULL;
	int *fds = calloc(n, sizeof(*fds)), failed = 0;
	void **ctxs = calloc(n, sizeof(*ctxs));

	if (fds && ctxs) {
		for (int i = 0; i < n; i++) {
			fds[i] = srcs[i].ring_fd;
			ctxs[i] = &srcs[i];
		}
		rb = ringbuf_open_all(fds, n, on_event, ctxs, &failed);
		if (!rb)
			fail(errno, "events %s: open the ring buffer", srcs[failed].name);
	} else {
		fail(ENOMEM, "events");
	}
	free(fds);
	free(ctxs);
	return rb;
}

/* What is queued now, then the drops. */
static int events_drain(struct ring_buffer *rb, struct ev_source *srcs, int n)
{
	int err = ring_buffer__consume(rb);

	if (err < 0)
		return fail(-err, "events: read the ring buffer"), err;
	for (int i = 0; i < n; i++)
		report_drops(&srcs[i]);
	return 0;
}

/* -f: events and drops as they come, until interrupted. */
static int events_follow(struct ring_buffer *rb, struct ev_source *srcs, int n)
{
	int err;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	for (int i = 0; i < n; i++)
		report_drops(&srcs[i]);
	while (!interrupted) {
		err = ring_buffer__poll(rb, EVENTS_POLL_MS);
		if (err < 0 && err != -EINTR)
			return fail(-err, "events: read the ring buffer"), err;
		for (int i = 0; i < n; i++)
			report_drops(&srcs[i]);
	}
	return 0;
}

/* Read the sources' events (printed by on_event, or sent to syslog). */
static int events_run(const struct events_args *a, struct ev_source *srcs, int n)
{
	int64_t offset = events_boot_to_real_ns();
	struct ring_buffer *rb;
	int err;

	for (int i = 0; i < n; i++) {
		srcs[i].syslog = a->syslog;
		srcs[i].boot_to_real = offset;
	}
	rb = open_rings(srcs, n);
	if (!rb)
		return -EIO;
	if (a->syslog)
		openlog("fusebpfctl", LOG_PID, LOG_AUTHPRIV);
	setvbuf(stdout, NULL, _IOLBF, 0);
	err = a->follow ? events_follow(rb, srcs, n) : events_drain(rb, srcs, n);
	if (a->syslog)
		closelog();
	ring_buffer__free(rb);
	return err;
}

int do_events(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "follow", no_argument, NULL, 'f' },
		{ "syslog", no_argument, NULL, O_SYSLOG },
		{ 0 },
	};
	struct events_args a = { 0 };
	struct ev_source *srcs = NULL;
	int idx, n, err = 0;

	idx = parse_cmd_opts(argc, argv, "f", longopts, events_opt, &a, help_events);
	if (idx == PARSE_HELP)
		return EXIT_OK;
	if (idx < 0)
		return EXIT_USAGE;
	if (argc - idx > 1)
		return usage_error("one NAME, please");
	n = collect_sources(argc - idx == 1 ? argv[idx] : NULL, &srcs);
	if (n < 0) {
		if (n == -ENOMEM)
			fail(ENOMEM, "events");
		return EXIT_FAIL;
	}
	if (!n && a.follow) {
		fail(ENOENT, "events: no loaded filter reports events");
		err = -ENOENT;
	} else if (!n && !opts.json) {
		note("events: no loaded filter reports events");
	} else if (n) {
		err = events_run(&a, srcs, n);
	}
	close_sources(srcs, n);
	return err ? EXIT_FAIL : EXIT_OK;
}
