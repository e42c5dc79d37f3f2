/* SPDX-License-Identifier: GPL-2.0 */
/*
 * events.h - audit events and per-user exceptions of the policies (BPF side).
 *
 * A policy that is about to refuse or hide asks fusebpf_excepted() first
 * (is the caller's uid or gid excepted from it?) and then reports what it
 * did with fusebpf_report(). Both run only on that path: an op that a
 * policy lets through pays for neither.
 *
 * fusebpf_report() puts a struct fusebpf_event (fusebpf_maps.h) in the
 * fusebpf_events ring buffer, at most fusebpf_config.ev_rate a second with
 * bursts of ev_burst (a token bucket under a spin lock in fusebpf_evlimit),
 * so a storm of refusals costs a few instructions each and cannot fill
 * memory. What the bucket or a full ring refuses is counted there too, for
 * 'fusebpfctl events' to report.
 */
#ifndef FUSEBPF_EVENTS_H
#define FUSEBPF_EVENTS_H

#include "stats.h"

#define FUSEBPF_NSEC		1000000000ULL
/* The longest idle time the bucket refills for (keeps elapsed * rate in range). */
#define FUSEBPF_EV_REFILL_MAX	(10 * FUSEBPF_NSEC)

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, FUSEBPF_EVENTS_RING_SIZE);
} fusebpf_events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fusebpf_ev_limit);
} fusebpf_evlimit SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FUSEBPF_EXCEPT_MAX);
	__type(key, struct fusebpf_except_key);
	__type(value, __u32);
} fusebpf_except SEC(".maps");

/* Is the caller's real uid or gid excepted from policy (FUSEBPF_POLICY_*)? */
static __always_inline bool fusebpf_excepted(__u32 policy)
{
	__u64 ugid = bpf_get_current_uid_gid();
	struct fusebpf_except_key key = { .kind = FUSEBPF_EXCEPT_UID, .id = (__u32)ugid };
	__u32 *mask = bpf_map_lookup_elem(&fusebpf_except, &key);

	if (mask && (*mask & policy))
		return true;
	key.kind = FUSEBPF_EXCEPT_GID;
	key.id = ugid >> 32;
	mask = bpf_map_lookup_elem(&fusebpf_except, &key);
	return mask && (*mask & policy);
}

/* Take a token from the bucket; false (and counted) when there is none. */
static __always_inline bool fusebpf_ev_admit(struct fusebpf_ev_limit *l, __u64 now,
					     __u64 rate, __u64 burst)
{
	__u64 elapsed = 0, cap = burst * FUSEBPF_NSEC;
	bool ok = false;

	bpf_spin_lock(&l->lock);
	if (now > l->last_ns) {
		elapsed = now - l->last_ns;
		l->last_ns = now;
	}
	if (elapsed > FUSEBPF_EV_REFILL_MAX)
		elapsed = FUSEBPF_EV_REFILL_MAX;
	l->tokens += elapsed * rate;
	if (l->tokens > cap)
		l->tokens = cap;
	if (l->tokens >= FUSEBPF_NSEC) {
		l->tokens -= FUSEBPF_NSEC;
		ok = true;
	} else {
		l->dropped_rate++;
	}
	bpf_spin_unlock(&l->lock);
	return ok;
}

/*
 * Report a refusal or hiding: what = policy << 8 | verdict (enum
 * fusebpf_ev_verdict), err the positive errno the caller gets (0: a
 * READDIR entry), name_arg the in arg holding the entry name or -1.
 * Not inlined: the policies call it from many places.
 */
static __noinline __attribute__((unused)) int fusebpf_report(struct fuse_bpf_ctx *ctx, __u32 what,
							       int err, int name_arg)
{
	struct fusebpf_config cfg = fusebpf_cfg();
	struct fusebpf_ev_limit *l;
	struct fusebpf_event *ev;
	__u64 rate, burst, id;
	__u32 zero = 0;
	long len;

	if (cfg.flags & FUSEBPF_CFG_NO_EVENTS)
		return 0;
	l = bpf_map_lookup_elem(&fusebpf_evlimit, &zero);
	if (!l)
		return 0;
	rate = cfg.ev_rate && cfg.ev_rate <= FUSEBPF_EV_MAX ? cfg.ev_rate : FUSEBPF_EV_RATE_DEFAULT;
	burst = cfg.ev_burst && cfg.ev_burst <= FUSEBPF_EV_MAX ? cfg.ev_burst :
		FUSEBPF_EV_BURST_DEFAULT;
	if (!fusebpf_ev_admit(l, bpf_ktime_get_ns(), rate, burst))
		return 0;
	ev = bpf_ringbuf_reserve(&fusebpf_events, sizeof(*ev), 0);
	if (!ev) {
		__sync_fetch_and_add(&l->dropped_full, 1);
		return 0;
	}
	ev->time_ns = bpf_ktime_get_boot_ns();
	id = bpf_get_current_pid_tgid();
	ev->pid = id >> 32;
	ev->tid = (__u32)id;
	id = bpf_get_current_uid_gid();
	ev->uid = (__u32)id;
	ev->gid = id >> 32;
	ev->opcode = fusebpf_op(ctx);
	ev->verdict = what & 0xff;
	ev->policy = what >> 8;
	ev->err = err;
	bpf_get_current_comm(ev->comm, sizeof(ev->comm));
	ev->name[0] = 0;
	if (name_arg >= 0) {
		len = bpf_fuse_get_arg(ctx, FUSE_BPF_IN_ARG(name_arg), ev->name, sizeof(ev->name));
		if (len < 0 || len > (long)sizeof(ev->name))
			ev->name[0] = 0;	/* none, or too long to be a name */
	}
	ev->name[sizeof(ev->name) - 1] = 0;
	bpf_ringbuf_submit(ev, 0);
	__sync_fetch_and_add(&l->sent, 1);
	return 0;
}

#define FUSEBPF_EV(policy, verdict) ((FUSEBPF_POLICY_##policy) << 8 | FUSEBPF_EV_##verdict)

#endif /* FUSEBPF_EVENTS_H */
