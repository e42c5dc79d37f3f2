// SPDX-License-Identifier: GPL-2.0
/*
 * Audit events as text and JSON (fusebpf_maps.h: struct fusebpf_event); no
 * kernel needed, so tests/host/cli_events.c checks them.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "events_fmt.h"
#include "fusebpfctl.h"
#include "json.h"
#include "stats.h"

#define NSEC_PER_SEC 1000000000LL

int64_t events_boot_to_real_ns(void)
{
	struct timespec real, boot;

	clock_gettime(CLOCK_REALTIME, &real);
	clock_gettime(CLOCK_BOOTTIME, &boot);
	return (real.tv_sec - boot.tv_sec) * NSEC_PER_SEC + (real.tv_nsec - boot.tv_nsec);
}

int64_t event_unix_ns(const struct fusebpf_event *ev, int64_t boot_to_real_ns)
{
	return (int64_t)ev->time_ns + boot_to_real_ns;
}

const char *event_verdict_name(uint32_t verdict)
{
	switch (verdict) {
	case FUSEBPF_EV_DENIED:
		return "denied";
	case FUSEBPF_EV_HIDDEN:
		return "hidden";
	case FUSEBPF_EV_WOULD_DENY:
		return "would-deny";
	case FUSEBPF_EV_WOULD_HIDE:
		return "would-hide";
	default:
		return "unknown";
	}
}

const char *event_policy_name(uint32_t policy)
{
	switch (policy) {
	case FUSEBPF_POLICY_HIDE:
		return "hide";
	case FUSEBPF_POLICY_ATTRS:
		return "attrs";
	case FUSEBPF_POLICY_DENYWRITE:
		return "denywrite";
	default:
		return "unknown";
	}
}

const char *event_errno_name(int err, char *buf, size_t cap)
{
	const char *n = errno_name(err);

	if (!n && err > 0)
		n = strerrorname_np(err);
	if (n)
		return n;
	snprintf(buf, cap, "%d", err);
	return buf;
}

/* A NUL-terminated copy of a fixed-size field that the kernel may not have terminated. */
static void field_str(const char *field, size_t size, char *buf)
{
	memcpy(buf, field, size);
	buf[size - 1] = 0;
}

void event_escape(const char *s, char *buf, size_t cap)
{
	size_t o = 0;

	for (; *s && o + 5 < cap; s++) {
		unsigned char c = *s;

		if (c < 0x20 || c == 0x7f || c == '"' || c == '\\')
			o += snprintf(buf + o, cap - o, "\\x%02x", c);
		else
			buf[o++] = c;
	}
	buf[o] = 0;
}

/* "2026-12-03 17:40:01.123456" in local time. */
static void format_time(int64_t unix_ns, char *buf, size_t cap)
{
	time_t sec = unix_ns / NSEC_PER_SEC;
	struct tm tm;
	size_t n;

	localtime_r(&sec, &tm);
	n = strftime(buf, cap, "%Y-%m-%d %H:%M:%S", &tm);
	snprintf(buf + n, cap - n, ".%06lld", (long long)(unix_ns % NSEC_PER_SEC / 1000));
}

int event_format(const struct fusebpf_event *ev, const char *filter, int64_t boot_to_real_ns,
		 bool with_time, char *buf, size_t cap)
{
	char name[FUSEBPF_NAME_MAX], esc[4 * FUSEBPF_NAME_MAX + 8], comm[sizeof(ev->comm)];
	char ecomm[4 * sizeof(ev->comm) + 8], when[64] = "", opbuf[16], errbuf[16];
	char errpart[48] = "";

	field_str(ev->name, sizeof(ev->name), name);
	field_str(ev->comm, sizeof(ev->comm), comm);
	event_escape(name, esc, sizeof(esc));
	event_escape(comm, ecomm, sizeof(ecomm));
	if (with_time) {
		format_time(event_unix_ns(ev, boot_to_real_ns), when, sizeof(when) - 1);
		strcat(when, " ");
	}
	if (ev->err)
		snprintf(errpart, sizeof(errpart), " errno=%s",
			 event_errno_name(ev->err, errbuf, sizeof(errbuf)));
	return snprintf(buf, cap, "%s%s: %s %s%s%s%s uid=%u gid=%u pid=%u comm=%s%s policy=%s", when,
			filter, event_verdict_name(ev->verdict),
			stats_op_name(ev->opcode, opbuf, sizeof(opbuf)), name[0] ? " \"" : "", esc,
			name[0] ? "\"" : "", ev->uid, ev->gid, ev->pid, ecomm, errpart,
			event_policy_name(ev->policy));
}

json_object *json_event(const struct fusebpf_event *ev, const char *filter, int64_t boot_to_real_ns)
{
	json_object *o = json_object_new_object();
	char name[FUSEBPF_NAME_MAX], comm[sizeof(ev->comm)], opbuf[16], errbuf[16], when[64];
	int64_t ns = event_unix_ns(ev, boot_to_real_ns);
	time_t sec = ns / NSEC_PER_SEC;
	struct tm tm;
	size_t n;

	field_str(ev->name, sizeof(ev->name), name);
	field_str(ev->comm, sizeof(ev->comm), comm);
	gmtime_r(&sec, &tm);
	n = strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(when + n, sizeof(when) - n, ".%06lldZ", (long long)(ns % NSEC_PER_SEC / 1000));

	json_object_object_add(o, "type", json_object_new_string("event"));
	json_object_object_add(o, "filter", json_object_new_string(filter));
	json_object_object_add(o, "time", json_object_new_string(when));
	json_object_object_add(o, "time_ns", json_object_new_int64(ns));
	json_object_object_add(o, "pid", json_object_new_int64(ev->pid));
	json_object_object_add(o, "tid", json_object_new_int64(ev->tid));
	json_object_object_add(o, "comm", json_object_new_string(comm));
	json_object_object_add(o, "uid", json_object_new_int64(ev->uid));
	json_object_object_add(o, "gid", json_object_new_int64(ev->gid));
	json_object_object_add(o, "op", json_object_new_string(stats_op_name(ev->opcode, opbuf,
									       sizeof(opbuf))));
	json_object_object_add(o, "opcode", json_object_new_int64(ev->opcode));
	json_object_object_add(o, "name", name[0] ? json_object_new_string(name) : NULL);
	json_object_object_add(o, "verdict", json_object_new_string(event_verdict_name(ev->verdict)));
	json_object_object_add(o, "errno", ev->err ? json_object_new_string(
					event_errno_name(ev->err, errbuf, sizeof(errbuf))) : NULL);
	json_object_object_add(o, "errno_num", json_object_new_int(ev->err));
	json_object_object_add(o, "policy", json_object_new_string(event_policy_name(ev->policy)));
	return o;
}

int event_format_drops(const char *filter, const struct fusebpf_ev_limit *l, char *buf, size_t cap)
{
	return snprintf(buf, cap, "%s: %llu events dropped since the filter was loaded "
			"(%llu over the rate limit, %llu with the ring full; %llu sent)", filter,
			(unsigned long long)(l->dropped_rate + l->dropped_full),
			(unsigned long long)l->dropped_rate, (unsigned long long)l->dropped_full,
			(unsigned long long)l->sent);
}

json_object *json_event_drops(const char *filter, const struct fusebpf_ev_limit *l)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "type", json_object_new_string("dropped"));
	json_object_object_add(o, "filter", json_object_new_string(filter));
	json_object_object_add(o, "rate_limited", json_object_new_int64(l->dropped_rate));
	json_object_object_add(o, "ring_full", json_object_new_int64(l->dropped_full));
	json_object_object_add(o, "sent", json_object_new_int64(l->sent));
	return o;
}
