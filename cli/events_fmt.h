/* SPDX-License-Identifier: GPL-2.0 */
/* The audit events' lines and JSON (events_fmt.c); no kernel needed (tests/host/cli_events.c). */
#ifndef FUSEBPFCTL_EVENTS_FMT_H
#define FUSEBPFCTL_EVENTS_FMT_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

#include "json.h"
#include "model.h"

/* CLOCK_REALTIME - CLOCK_BOOTTIME now, in ns: what turns an event's time into a date. */
int64_t events_boot_to_real_ns(void);
int64_t event_unix_ns(const struct fusebpf_event *ev, int64_t boot_to_real_ns);
/* "denied", "hidden", "would-deny", "would-hide"; "hide", "denywrite"; "EROFS" (a number when unknown). */
const char *event_verdict_name(uint32_t verdict);
const char *event_policy_name(uint32_t policy);
const char *event_errno_name(int err, char *buf, size_t cap);
/* s with control bytes, '"' and '\\' as \xNN (cap >= 4 * strlen(s) + 1). */
void event_escape(const char *s, char *buf, size_t cap);
/*
 * One line: [TIME ]FILTER: VERDICT OP ["NAME"] uid=N gid=N pid=N comm=S
 * [errno=E] policy=P. TIME is local, with microseconds.
 */
int event_format(const struct fusebpf_event *ev, const char *filter, int64_t boot_to_real_ns,
		 bool with_time, char *buf, size_t cap);
/*
 * {"type": "event", "filter": S, "time": S (UTC, ISO 8601), "time_ns": N,
 *  "pid": N, "tid": N, "comm": S, "uid": N, "gid": N, "op": S, "opcode": N,
 *  "name": S|null, "verdict": S, "errno": S|null, "errno_num": N, "policy": S}
 */
json_object *json_event(const struct fusebpf_event *ev, const char *filter, int64_t boot_to_real_ns);
/* "FILTER: N events dropped since ..." and {"type": "dropped", "filter": S,
 *  "rate_limited": N, "ring_full": N, "sent": N}. */
int event_format_drops(const char *filter, const struct fusebpf_ev_limit *l, char *buf, size_t cap);
json_object *json_event_drops(const char *filter, const struct fusebpf_ev_limit *l);

#endif
