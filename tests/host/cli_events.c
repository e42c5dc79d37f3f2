// SPDX-License-Identifier: GPL-2.0
/* Audit events as text and JSON, and latency histograms: what fusebpfctl prints. */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "events_fmt.h"
#include "fusebpfctl.h"
#include "json.h"
#include "ringbuf.h"
#include "stats.h"
#include "tap.h"

static struct fusebpf_event sample(void)
{
	struct fusebpf_event ev = {
		.time_ns = 5000000000ULL, .pid = 42, .tid = 43, .uid = 65534, .gid = 100,
		.opcode = 35, .verdict = FUSEBPF_EV_DENIED, .err = 30,
		.policy = FUSEBPF_POLICY_DENYWRITE,
	};

	strcpy(ev.comm, "touch");
	strcpy(ev.name, "new file");
	return ev;
}

static int t_line(void)
{
	struct fusebpf_event ev = sample();
	int ret = TAP_FAIL;
	char buf[2048];

	event_format(&ev, "ro", 0, false, buf, sizeof(buf));
	EXPECT(!strcmp(buf, "ro: denied create \"new file\" uid=65534 gid=100 pid=42 comm=touch "
			    "errno=EROFS policy=denywrite"), "%s", buf);
	/* No name (an op on an open file); a hidden READDIR entry has no errno. */
	ev.name[0] = 0;
	ev.opcode = 14;
	event_format(&ev, "ro", 0, false, buf, sizeof(buf));
	EXPECT(!strcmp(buf, "ro: denied open uid=65534 gid=100 pid=42 comm=touch errno=EROFS "
			    "policy=denywrite"), "%s", buf);
	ev = sample();
	ev.opcode = 28;
	ev.verdict = FUSEBPF_EV_HIDDEN;
	ev.err = 0;
	ev.policy = FUSEBPF_POLICY_HIDE;
	event_format(&ev, "h", 0, false, buf, sizeof(buf));
	EXPECT(!strcmp(buf, "h: hidden readdir \"new file\" uid=65534 gid=100 pid=42 comm=touch "
			    "policy=hide"), "%s", buf);
	/* Errnos not in the policy table by their names; unknown ones by number. */
	ev.err = 28;
	event_format(&ev, "h", 0, false, buf, sizeof(buf));
	EXPECT(strstr(buf, " errno=ENOSPC "), "%s", buf);
	ev.err = 4000;
	event_format(&ev, "h", 0, false, buf, sizeof(buf));
	EXPECT(strstr(buf, " errno=4000 "), "%s", buf);
	/* The time: 5 s after boot, boot at 1 000 000 000 s (UTC 2001-09-09 01:46:40). */
	setenv("TZ", "UTC", 1);
	event_format(&ev, "h", 1000000000LL * 1000000000LL + 123456789, true, buf, sizeof(buf));
	EXPECT(!strncmp(buf, "2001-09-09 01:46:45.123456 h: hidden", 36), "%s", buf);
	ret = TAP_OK;
out:
	return ret;
}

/* Audit mode's verdicts: what would have been, with the errno the caller would have got. */
static int t_audit_verdicts(void)
{
	struct fusebpf_event ev = sample();
	json_object *o = NULL, *v;
	int ret = TAP_FAIL;
	char buf[2048];

	ev.verdict = FUSEBPF_EV_WOULD_DENY;
	event_format(&ev, "ro", 0, false, buf, sizeof(buf));
	EXPECT(!strcmp(buf, "ro: would-deny create \"new file\" uid=65534 gid=100 pid=42 comm=touch "
			    "errno=EROFS policy=denywrite"), "%s", buf);
	ev.verdict = FUSEBPF_EV_WOULD_HIDE;
	ev.opcode = 1;
	ev.err = 2;
	ev.policy = FUSEBPF_POLICY_HIDE;
	event_format(&ev, "h", 0, false, buf, sizeof(buf));
	EXPECT(!strcmp(buf, "h: would-hide lookup \"new file\" uid=65534 gid=100 pid=42 comm=touch "
			    "errno=ENOENT policy=hide"), "%s", buf);
	o = json_event(&ev, "h", 0);
	EXPECT(json_object_object_get_ex(o, "verdict", &v) &&
	       !strcmp(json_object_get_string(v), "would-hide"));
	EXPECT(!strcmp(event_verdict_name(99), "unknown"));
	ret = TAP_OK;
out:
	json_object_put(o);
	return ret;
}

static int t_escaping(void)
{
	struct fusebpf_event ev = sample();
	int ret = TAP_FAIL;
	char buf[2048];
	json_object *o = NULL, *v;

	/* A name is any bytes but '/' and NUL: a newline must not forge a line. */
	strcpy(ev.name, "a\nb\"c\\");
	memcpy(ev.comm, "0123456789abcdef", 16);	/* the kernel's comm, unterminated */
	event_format(&ev, "ro", 0, false, buf, sizeof(buf));
	EXPECT(strstr(buf, "\"a\\x0ab\\x22c\\x5c\"") && !strchr(buf, '\n'), "%s", buf);
	EXPECT(strstr(buf, "comm=0123456789abcde "), "%s", buf);
	/* A name filling the whole field, unterminated, is cut, not overrun. */
	memset(ev.name, 'x', sizeof(ev.name));
	event_format(&ev, "ro", 0, false, buf, sizeof(buf));
	EXPECT(strlen(buf) < 400, "%zu", strlen(buf));
	strcpy(ev.name, "a\nb");
	o = json_event(&ev, "ro", 0);
	EXPECT(json_object_object_get_ex(o, "name", &v) && !strcmp(json_object_get_string(v), "a\nb"));
	EXPECT(strstr(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN), "\"a\\nb\""));
	ret = TAP_OK;
out:
	json_object_put(o);
	return ret;
}

static int t_json_shape(void)
{
	static const char *const keys[] = { "type", "filter", "time", "time_ns", "pid", "tid", "comm",
					     "uid", "gid", "op", "opcode", "name", "verdict", "errno",
					     "errno_num", "policy" };
	struct fusebpf_event ev = sample();
	struct fusebpf_ev_limit l = { .sent = 7, .dropped_rate = 40, .dropped_full = 2 };
	json_object *o = json_event(&ev, "ro", 1000000000LL * 1000000000LL), *v;
	int ret = TAP_FAIL;
	char buf[512];

	EXPECT(json_object_object_length(o) == (int)(sizeof(keys) / sizeof(keys[0])));
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		EXPECT(json_object_object_get_ex(o, keys[i], &v), "no %s", keys[i]);
	json_object_object_get_ex(o, "time", &v);
	EXPECT(!strcmp(json_object_get_string(v), "2001-09-09T01:46:45.000000Z"), "%s",
	       json_object_get_string(v));
	json_object_object_get_ex(o, "time_ns", &v);
	EXPECT(json_object_get_int64(v) == 1000000005000000000LL);
	json_object_object_get_ex(o, "errno", &v);
	EXPECT(!strcmp(json_object_get_string(v), "EROFS"));
	json_object_object_get_ex(o, "op", &v);
	EXPECT(!strcmp(json_object_get_string(v), "create"));
	json_object_put(o);
	ev.err = 0;
	ev.name[0] = 0;
	o = json_event(&ev, "ro", 0);
	EXPECT(json_object_object_get_ex(o, "errno", &v) && !v, "no errno: null");
	EXPECT(json_object_object_get_ex(o, "name", &v) && !v, "no name: null");
	json_object_put(o);
	o = json_event_drops("ro", &l);
	EXPECT(!strcmp(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
		       "{\"type\":\"dropped\",\"filter\":\"ro\",\"rate_limited\":40,\"ring_full\":2,"
		       "\"sent\":7}"), "%s", json_object_to_json_string(o));
	event_format_drops("ro", &l, buf, sizeof(buf));
	EXPECT(!strcmp(buf, "ro: 42 events dropped since the filter was loaded (40 over the rate "
			    "limit, 2 with the ring full; 7 sent)"), "%s", buf);
	ret = TAP_OK;
out:
	json_object_put(o);
	return ret;
}

static int t_hist_math(void)
{
	struct fusebpf_lat_hist cpu[3] = {}, sum, before = {}, d;
	uint64_t low, high;
	int ret = TAP_FAIL;

	cpu[0].slot[0] = 5;
	cpu[1].slot[0] = 2;
	cpu[2].slot[3] = 4;
	cpu[2].slot[FUSEBPF_HIST_SLOTS - 1] = 1;
	hist_sum_percpu(cpu, 3, &sum);
	EXPECT(sum.slot[0] == 7 && sum.slot[3] == 4 && hist_total(&sum) == 12);
	before.slot[0] = 3;
	before.slot[3] = 9;
	hist_delta(&sum, &before, &d);
	EXPECT(d.slot[0] == 4 && d.slot[3] == 4, "a slot that went back counts from zero");
	hist_slot_range(0, &low, &high);
	EXPECT(low == 0 && high == 1);
	hist_slot_range(1, &low, &high);
	EXPECT(low == 2 && high == 3);
	hist_slot_range(10, &low, &high);
	EXPECT(low == 1024 && high == 2047);
	ret = TAP_OK;
out:
	return ret;
}

static int t_hist_print(void)
{
	struct fusebpf_lat_hist h = {};
	json_object *o = NULL;
	int ret = TAP_FAIL;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	h.slot[0] = 80;
	h.slot[2] = 20;
	f = open_memstream(&buf, &len);
	hist_print(f, "read", &h);
	fclose(f);
	EXPECT(!strcmp(buf,
		       "operation = 'read'\n"
		       "     usecs               : count    distribution\n"
		       "         0 -> 1          : 80       |****************************************|\n"
		       "         2 -> 3          : 0        |                                        |\n"
		       "         4 -> 7          : 20       |**********                              |\n"),
	       "%s", buf);
	free(buf);
	buf = NULL;
	memset(&h, 0, sizeof(h));
	f = open_memstream(&buf, &len);
	hist_print(f, "lookup", &h);
	fclose(f);
	EXPECT(strstr(buf, "(no times recorded)"), "%s", buf);
	h.slot[1] = 3;
	o = json_hist(15, &h);
	EXPECT(!strcmp(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
		       "{\"op\":\"read\",\"opcode\":15,\"count\":3,\"slots\":[{\"low\":0,\"high\":1,"
		       "\"count\":0},{\"low\":2,\"high\":3,\"count\":3}]}"),
	       "%s", json_object_to_json_string(o));
	ret = TAP_OK;
out:
	json_object_put(o);
	free(buf);
	return ret;
}

static int no_sample(void *ctx, void *data, size_t size)
{
	(void)ctx, (void)data, (void)size;
	return 0;
}

/* How many mappings this process has (a ring buffer manager maps each ring). */
static int mappings(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0, c;

	if (!f)
		return -1;
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

/*
 * events over several filters: when a later ring cannot be added, the
 * manager and the rings already in it are freed (not lost), and the
 * failing one is named.
 */
static int t_ring_open_failure(void)
{
	int fds[3] = { -1, -1, -1 }, failed = -1, before, ret = TAP_FAIL;
	void *ctxs[3] = { NULL, NULL, NULL };
	struct ring_buffer *rb;

	fds[0] = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "r0", 0, 0, 4096, NULL);
	fds[1] = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "r1", 0, 0, 4096, NULL);
	fds[2] = bpf_map_create(BPF_MAP_TYPE_ARRAY, "not_a_ring", 4, 4, 1, NULL);
	if (fds[0] < 0 || fds[1] < 0 || fds[2] < 0) {
		tap_skip_why("cannot create BPF maps here: %s", strerror(errno));
		ret = TAP_SKIP;
		goto out;
	}
	/* Two good rings: one manager. */
	rb = ringbuf_open_all(fds, 2, no_sample, ctxs, &failed);
	EXPECT(rb, "%s", strerror(errno));
	ring_buffer__free(rb);
	before = mappings();
	rb = ringbuf_open_all(fds, 3, no_sample, ctxs, &failed);
	EXPECT(!rb && failed == 2 && errno, "rb %p, failed %d", (void *)rb, failed);
	EXPECT(mappings() == before, "%d mappings before, %d after: the rings were lost",
	       before, mappings());
	ret = TAP_OK;
out:
	for (int i = 0; i < 3; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	return ret;
}

static const struct tap_case cases[] = {
	{ "event_line", t_line },
	{ "event_audit_verdicts", t_audit_verdicts },
	{ "event_escaping", t_escaping },
	{ "event_json_shape", t_json_shape },
	{ "hist_math", t_hist_math },
	{ "hist_print_and_json", t_hist_print },
	{ "ring_open_failure_frees", t_ring_open_failure },
};

TAP_MAIN("cli_events", cases)
