/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What fusebpfctl knows about filters, mounts and statistics, and their
 * fixed JSON shapes (documented in docs/fusebpfctl.8, "JSON OUTPUT").
 * Nothing here needs a kernel: tests/host/cli_json.c checks the shapes.
 */
#ifndef FUSEBPFCTL_JSON_H
#define FUSEBPFCTL_JSON_H

#include <json-c/json.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "fusebpf_maps.h"

#define NAME_LEN 65
#define MAX_MAPS 16
#define MAX_AT 16

struct map_desc {
	char name[64];
	uint32_t id;
	char type[32];
};

struct filter_desc {
	char name[NAME_LEN];
	char kind[32];		/* builtin filter name, "file", or "unknown" */
	char source[PATH_MAX];	/* the object file, or "" for built-ins */
	uint32_t prog_id;
	char prog_name[32];
	int nmaps;
	struct map_desc maps[MAX_MAPS];
	int mounts;		/* how many live mounts use it */
};

struct at_rule {
	char path[PATH_MAX];	/* relative to the backing directory, no "..", no leading '/' */
	char filter[NAME_LEN];
};

struct mount_rec {
	char mountpoint[PATH_MAX];
	char backing[PATH_MAX];
	char mode[16];		/* "fuse-bpf" or "userspace" */
	char filter[NAME_LEN];	/* "" when none */
	int nat;
	struct at_rule at[MAX_AT];
	int pid;
	char log[PATH_MAX];
	int64_t started;	/* unix time */
	bool alive;		/* the server process still runs (not stored) */
};

/* Per-op statistics summed over CPUs. */
struct op_row {
	unsigned int opcode;
	struct fusebpf_op_stats s;
};

/* Print o on stdout (indented with -p), one document per line. */
void json_print(json_object *o);

/* {"error": {"command": S, "message": S, "errno": N, "reason": S|null}} */
json_object *json_error(const char *cmd, const char *what, int err);

/* {"name", "kind", "source"|null, "prog_id", "prog_name", "mounts", "maps": [{"name","id","type"}]} */
json_object *json_filter(const struct filter_desc *f);
/* {"mountpoint","backing","mode","filter"|null,"at":[{"path","filter"}],"pid","log","started","alive"} */
json_object *json_mount(const struct mount_rec *m, bool with_alive);
/* The inverse of json_mount (for the state files); 0 or -EINVAL. */
int mount_from_json(json_object *o, struct mount_rec *m);

/*
 * One filter's table: {"name": S, "interval_s": N|null, "ops": [ROW...],
 * "totals": ROW-without-op} where ROW = {"op": S, "opcode": N, <every
 * fusebpf_op_stats field>, "lat_ns_avg": N}. rows[] holds the active ops.
 */
json_object *json_stats(const char *name, double interval_s, const struct op_row *rows, int nrows,
			const struct fusebpf_op_stats *totals);

/* --- stats arithmetic (stats_math.c) ------------------------------------------ */
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

/* --- audit events (events_fmt.c) ------------------------------------------------ */
/* CLOCK_REALTIME - CLOCK_BOOTTIME now, in ns: what turns an event's time into a date. */
int64_t events_boot_to_real_ns(void);
int64_t event_unix_ns(const struct fusebpf_event *ev, int64_t boot_to_real_ns);
/* "denied", "hidden"; "hide", "denywrite"; "EROFS" (a number when unknown). */
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
