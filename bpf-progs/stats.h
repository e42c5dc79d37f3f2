/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stats.h - the statistics every fusebpf filter keeps (BPF side).
 *
 * fusebpf_stats is a PERCPU_ARRAY indexed by the base FUSE opcode, of
 * struct fusebpf_op_stats (fusebpf_maps.h, where user space finds the field
 * names). A filter wraps its verdicts:
 *
 *	if (fusebpf_is_entry(ctx))
 *		return fusebpf_stats_entry(ctx, my_entry_verdict);
 *	if (fusebpf_is_post(ctx))
 *		return fusebpf_stats_post(ctx, my_post_verdict);
 *	return fusebpf_stats_pre(ctx, my_pre_verdict);
 *
 * and counts what its policy did with fusebpf_count(ctx, denied | hidden |
 * rewritten). The wrappers count runs, backing errors, hand-offs to the
 * server and latency.
 *
 * Latency: unless fusebpf_config.flags has FUSEBPF_CFG_NO_POSTFILTER, the
 * prefilter wrapper asks for the postfilter on every op it lets through,
 * stamps bpf_ktime_get_ns() in fusebpf_lat under the thread's pid_tgid, and
 * the postfilter wrapper adds the elapsed time to lat_ns_sum/lat_count of
 * the op (a thread runs one FUSE op at a time; the stamp carries the opcode,
 * so a mismatched or stale stamp is never counted) and marks the stamp
 * used. That is also what lets backing_errors be counted: only a postfilter
 * sees error_in. Each time counted in lat_count is also counted in the op's
 * log2 histogram (fusebpf_hist), so the histogram's counts add up to
 * lat_count. With FUSEBPF_CFG_NO_POSTFILTER nothing is timed, also not the
 * ops whose policy asks for a postfilter anyway (attrs' GETATTR): their
 * cost is then the policy's alone.
 */
#ifndef FUSEBPF_STATS_H
#define FUSEBPF_STATS_H

#include "fusebpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FUSEBPF_STATS_MAX_OPS);
	__type(key, __u32);
	__type(value, struct fusebpf_op_stats);
} fusebpf_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, FUSEBPF_LAT_ENTRIES);
	__type(key, __u64);
	__type(value, struct fusebpf_lat_stamp);
} fusebpf_lat SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FUSEBPF_STATS_MAX_OPS);
	__type(key, __u32);
	__type(value, struct fusebpf_lat_hist);
} fusebpf_hist SEC(".maps");

/* floor(log2(v)), 0 for 0 and 1. */
static __always_inline __u32 fusebpf_log2(__u64 v)
{
	__u32 r = 0, shift;

	shift = (v > 0xffffffffULL) << 5;
	v >>= shift;
	r |= shift;
	shift = (v > 0xffff) << 4;
	v >>= shift;
	r |= shift;
	shift = (v > 0xff) << 3;
	v >>= shift;
	r |= shift;
	shift = (v > 0xf) << 2;
	v >>= shift;
	r |= shift;
	shift = (v > 0x3) << 1;
	v >>= shift;
	r |= shift;
	r |= (v >> 1);
	return r;
}

/* Count ns in the op's latency histogram (fusebpf_maps.h: slots of microseconds). */
static __always_inline void fusebpf_hist_add(__u32 key, __u64 ns)
{
	struct fusebpf_lat_hist *h = bpf_map_lookup_elem(&fusebpf_hist, &key);
	__u32 slot = fusebpf_log2(ns / 1000);

	if (!h)
		return;
	if (slot >= FUSEBPF_HIST_SLOTS)
		slot = FUSEBPF_HIST_SLOTS - 1;
	/*
	 * clang checks the bound on a copy of slot, which the verifier does not
	 * connect to it: hide slot from clang and mask it where it is used.
	 */
	asm volatile("" : "+r"(slot));
	h->slot[slot & (FUSEBPF_HIST_SLOTS - 1)]++;
}

/* This CPU's counters for the op of ctx (slot 0 for opcodes >= 64). */
static __always_inline struct fusebpf_op_stats *fusebpf_stats_of(const struct fuse_bpf_ctx *ctx)
{
	__u32 key = fusebpf_op(ctx);

	if (key >= FUSEBPF_STATS_MAX_OPS)
		key = 0;
	return bpf_map_lookup_elem(&fusebpf_stats, &key);
}

/* Count one event of a struct fusebpf_op_stats field for the op of ctx. */
#define fusebpf_count(ctx, field)                                               \
	do {                                                                    \
		struct fusebpf_op_stats *__s = fusebpf_stats_of(ctx);           \
		if (__s)                                                        \
			__s->field++;                                           \
	} while (0)

/*
 * Stamp the start of the op for its postfilter. A thread's stamp is
 * written in place once it exists: the postfilter marks it used (opcode
 * 0, which no FUSE op has) rather than deleting it, so that the hot path
 * is two lookups instead of an LRU insert and a delete per op. Stamps of
 * threads that are gone age out of the LRU.
 */
static __always_inline void fusebpf_lat_start(struct fuse_bpf_ctx *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct fusebpf_lat_stamp *p = bpf_map_lookup_elem(&fusebpf_lat, &id);
	struct fusebpf_lat_stamp stamp = {
		.opcode = fusebpf_op(ctx),
		.start_ns = bpf_ktime_get_ns(),
	};

	if (p) {
		p->start_ns = stamp.start_ns;
		p->opcode = stamp.opcode;
		return;
	}
	bpf_map_update_elem(&fusebpf_lat, &id, &stamp, BPF_ANY);
}

/* Is latency timed (FUSEBPF_CFG_NO_POSTFILTER clear)? */
static __always_inline bool fusebpf_timing(void)
{
	return !(fusebpf_cfg().flags & FUSEBPF_CFG_NO_POSTFILTER);
}

static __always_inline int fusebpf_stats_pre(struct fuse_bpf_ctx *ctx, int verdict)
{
	struct fusebpf_op_stats *s = fusebpf_stats_of(ctx);

	if (s)
		s->pre++;
	if (verdict < 0)
		return verdict;
	if (verdict & FUSE_BPF_USER_FILTER) {
		if (s)
			s->to_user++;
		return verdict;
	}
	verdict |= FUSE_BPF_BACKING;
	/* Timing off: a postfilter the policy asked for is not timed either */
	if (!fusebpf_timing())
		return verdict;
	fusebpf_lat_start(ctx);
	return verdict | FUSE_BPF_POST_FILTER;
}

/* The time since the op's stamp, counted in s and its histogram; the stamp marked used. */
static __always_inline void fusebpf_lat_end(struct fuse_bpf_ctx *ctx, struct fusebpf_op_stats *s)
{
	__u64 id = bpf_get_current_pid_tgid(), ns;
	struct fusebpf_lat_stamp *stamp;
	__u32 key = fusebpf_op(ctx);

	stamp = bpf_map_lookup_elem(&fusebpf_lat, &id);
	if (stamp) {
		if (s && stamp->opcode == key) {
			ns = bpf_ktime_get_ns() - stamp->start_ns;
			s->lat_ns_sum += ns;
			s->lat_count++;
			if (ns > s->lat_ns_max)
				s->lat_ns_max = ns;
			/* The same slot as fusebpf_stats_of(): the counts add up. */
			fusebpf_hist_add(key < FUSEBPF_STATS_MAX_OPS ? key : 0, ns);
		}
		stamp->opcode = 0;	/* used */
	}
}

/* A postfilter's counts (post, backing_errors, to_user) in s, if any. */
static __always_inline int fusebpf_count_post(struct fuse_bpf_ctx *ctx,
					      struct fusebpf_op_stats *s, int verdict)
{
	if (s) {
		s->post++;
		if (fusebpf_error_in(ctx) < 0)
			s->backing_errors++;
		if (verdict > 0 && (verdict & FUSE_BPF_USER_FILTER))
			s->to_user++;
	}
	return verdict;
}

/*
 * The postfilter of an op the filter runs post only (FUSEBPF_POST_ONLY):
 * counted, not timed, as no prefilter stamped its start.
 */
static __always_inline int fusebpf_stats_post_only(struct fuse_bpf_ctx *ctx, int verdict)
{
	return fusebpf_count_post(ctx, fusebpf_stats_of(ctx), verdict);
}

/* Timed and counted, with one lookup of the op's stats. */
static __always_inline int fusebpf_stats_post(struct fuse_bpf_ctx *ctx, int verdict)
{
	struct fusebpf_op_stats *s = fusebpf_stats_of(ctx);

	if (fusebpf_timing())
		fusebpf_lat_end(ctx, s);
	return fusebpf_count_post(ctx, s, verdict);
}

static __always_inline int fusebpf_stats_entry(struct fuse_bpf_ctx *ctx, int verdict)
{
	fusebpf_count(ctx, entries);
	return verdict;
}

#endif /* FUSEBPF_STATS_H */
