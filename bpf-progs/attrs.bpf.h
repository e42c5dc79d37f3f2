/* SPDX-License-Identifier: GPL-2.0 */
/*
 * attrs.bpf.h - the attrs policy: the modes and owners the user sees.
 *
 * attr_rules (attr_rules_long for long names) maps a name to a rule (the
 * all-zero name: the rule for every other node). The postfilters of LOOKUP (struct fuse_entry_out), GETATTR
 * and SETATTR (struct fuse_attr_out) apply it to the attributes returned;
 * the backing file is never changed. GETATTR carries no name, so LOOKUP
 * remembers which name each backing inode number was found by
 * (attr_inodes, LRU); a rule added later applies from the next GETATTR.
 * READDIR entries carry only the file type, which no rule changes.
 */
#ifndef FUSEBPF_ATTRS_BPF_H
#define FUSEBPF_ATTRS_BPF_H

#include "stats.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FUSEBPF_ATTR_RULES_MAX);
	__type(key, struct fusebpf_sname);
	__type(value, struct fusebpf_attr_rule);
} attr_rules SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FUSEBPF_ATTR_RULES_MAX);
	__type(key, struct fusebpf_name);
	__type(value, struct fusebpf_attr_rule);
} attr_rules_long SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, FUSEBPF_ATTR_INODES_MAX);
	__type(key, __u64);
	__type(value, struct fusebpf_name);
} attr_inodes SEC(".maps");

/* Apply r to a; true if anything changed. */
static __always_inline bool attrs_apply(const struct fusebpf_attr_rule *r, struct fuse_attr *a)
{
	__u32 mode = (a->mode & ~(r->mode_clear & FUSEBPF_MODE_PERM)) |
		     (r->mode_set & FUSEBPF_MODE_PERM);
	bool changed = mode != a->mode;

	a->mode = mode;
	if ((r->flags & FUSEBPF_ATTR_FORCE_UID) && a->uid != r->uid) {
		a->uid = r->uid;
		changed = true;
	}
	if ((r->flags & FUSEBPF_ATTR_FORCE_GID) && a->gid != r->gid) {
		a->gid = r->gid;
		changed = true;
	}
	return changed;
}

/* The rule for every node without one of its own (the all-zero name). */
static __always_inline struct fusebpf_attr_rule *attrs_default_rule(void)
{
	struct fusebpf_sname every = {};

	return bpf_map_lookup_elem(&attr_rules, &every);
}

/* The rule for name n (of length len, 0 for none), else the rule for every node. */
static __always_inline struct fusebpf_attr_rule *attrs_rule(const struct fusebpf_name *n,
							    long len)
{
	struct fusebpf_attr_rule *r = NULL;

	if (len > 0)
		r = fusebpf_name_lookup(&attr_rules, &attr_rules_long, n, len);
	return r ?: attrs_default_rule();
}

/* Prefilter: ask for the postfilter where there are attributes to rewrite. */
static __always_inline int attrs_pre(struct fuse_bpf_ctx *ctx, __u32 op)
{
	switch (op) {
	case FUSE_LOOKUP:
	case FUSE_GETATTR:
	case FUSE_SETATTR:
		return FUSE_BPF_BACKING | FUSE_BPF_POST_FILTER;
	default:
		return 0;
	}
}

static __noinline __attribute__((unused)) int attrs_post_lookup(struct fuse_bpf_ctx *ctx)
{
	struct fuse_entry_out e;
	struct fusebpf_attr_rule *r;
	struct fusebpf_name n;
	long len;

	if (fusebpf_get(ctx, FUSE_BPF_OUT_ARG(0), &e) < (long)sizeof(e))
		return 0;
	len = fusebpf_get_name(ctx, FUSE_BPF_IN_ARG(0), &n);
	/* A kernel that leaves the entry unfilled gives ino 0: nothing to learn. */
	if (len > 0 && e.attr.ino)
		bpf_map_update_elem(&attr_inodes, &e.attr.ino, &n, BPF_ANY);
	else
		len = 0;
	r = attrs_rule(&n, len);
	if (r && attrs_apply(r, &e.attr) && !fusebpf_set(ctx, FUSE_BPF_OUT_ARG(0), &e))
		fusebpf_count(ctx, rewritten);
	return 0;
}

static __noinline __attribute__((unused)) int attrs_post_attr(struct fuse_bpf_ctx *ctx)
{
	struct fusebpf_attr_rule *r = NULL;
	struct fuse_attr_out o;
	struct fusebpf_name *known;

	if (fusebpf_get(ctx, FUSE_BPF_OUT_ARG(0), &o) < (long)sizeof(o))
		return 0;
	/* A known name is zero-filled: short if its last short byte is 0. */
	known = bpf_map_lookup_elem(&attr_inodes, &o.attr.ino);
	if (known)
		r = known->name[FUSEBPF_NAME_SHORT - 1] ?
		    bpf_map_lookup_elem(&attr_rules_long, known->name) :
		    bpf_map_lookup_elem(&attr_rules, known->name);
	if (!r)
		r = attrs_default_rule();
	if (r && attrs_apply(r, &o.attr) && !fusebpf_set(ctx, FUSE_BPF_OUT_ARG(0), &o))
		fusebpf_count(ctx, rewritten);
	return 0;
}

/* Postfilter: always keeps the result (0); rewrites the attributes. */
static __always_inline int attrs_post(struct fuse_bpf_ctx *ctx, __u32 op)
{
	if (fusebpf_error_in(ctx) < 0)
		return 0;
	switch (op) {
	case FUSE_LOOKUP:
		return attrs_post_lookup(ctx);
	case FUSE_GETATTR:
	case FUSE_SETATTR:
		return attrs_post_attr(ctx);
	default:
		return 0;
	}
}

#endif
