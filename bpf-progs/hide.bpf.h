/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hide.bpf.h - the hide policy: names that do not exist through the mount.
 *
 * Hidden: an exact name in hide_names, a name matching a slot of
 * hide_patterns (prefix, suffix or glob), or, with FUSEBPF_HIDE_DOTFILES, a
 * name starting with '.' ("." and ".." never). A hidden name:
 *   - LOOKUP, UNLINK, RMDIR, and a RENAME from it: ENOENT (it is absent);
 *   - READDIR: the entry is dropped;
 *   - CREATE, MKNOD, MKDIR, SYMLINK, LINK or RENAME onto it: fails with
 *     fusebpf_config.hide_errno (EACCES by default) and the backing is not
 *     touched. Letting it through would create over, truncate or replace a
 *     file the user is not supposed to see; EEXIST would reveal it exists,
 *     and ENOENT from a create would be a lie. So the name is refused the
 *     same way whether or not a hidden file of that name exists.
 * Callers whose uid or gid fusebpf_except lists for hide see every name;
 * the dentry of a hidden name such a caller looked up gets a timeout of 0
 * (the LOOKUP postfilter's entry_valid), so that the next walk through it
 * looks it up again for whoever walks, instead of serving the excepted
 * caller's verdict from the dentry cache. Each refusal and hiding is
 * reported (events.h). In audit mode (FUSEBPF_CFG_AUDIT) nothing is hidden
 * or refused: what would have been is counted and reported, and hidden
 * names a LOOKUP finds get the same timeout of 0, so that enforcing again
 * takes effect at the next walk.
 */
#ifndef FUSEBPF_HIDE_BPF_H
#define FUSEBPF_HIDE_BPF_H

#include "events.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FUSEBPF_HIDE_NAMES_MAX);
	__type(key, struct fusebpf_sname);
	__type(value, __u32);
} hide_names SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FUSEBPF_HIDE_NAMES_MAX);
	__type(key, struct fusebpf_name);
	__type(value, __u32);
} hide_names_long SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FUSEBPF_HIDE_PATTERNS_MAX);
	__type(key, __u32);
	__type(value, struct fusebpf_pattern);
} hide_patterns SEC(".maps");

struct hide_scan {
	const struct fusebpf_name *n;
	long len;
	int hit;
};

/* One slot: 1 (stop) at a match or at the first unused slot, else 0. */
static long hide_pattern_step(__u32 slot, void *data)
{
	struct hide_scan *h = data;
	struct fusebpf_pattern *p = bpf_map_lookup_elem(&hide_patterns, &slot);

	if (!p || p->kind == FUSEBPF_PAT_NONE)
		return 1;
	if (fusebpf_pattern_match(h->n, h->len, p)) {
		h->hit = 1;
		return 1;
	}
	return 0;
}

static __always_inline bool hide_is_hidden(const struct fusebpf_name *n, long len)
{
	struct hide_scan scan = { .n = n, .len = len };

	if (len <= 0 || fusebpf_name_is_dots(n, len))
		return false;
	if ((fusebpf_cfg().hide_flags & FUSEBPF_HIDE_DOTFILES) && n->name[0] == '.')
		return true;
	if (fusebpf_name_lookup(&hide_names, &hide_names_long, n, len))
		return true;
	bpf_loop(FUSEBPF_HIDE_PATTERNS_MAX, hide_pattern_step, &scan, 0);
	return scan.hit;
}

/* Hidden from this caller: hidden, and the caller not excepted from hide. */
static __always_inline bool hide_applies(const struct fusebpf_name *n, long len)
{
	return hide_is_hidden(n, len) && !fusebpf_excepted(FUSEBPF_POLICY_HIDE);
}

/* Audit mode: the hiding or refusal that would have been, counted and reported. */
static __always_inline bool hide_audit(void)
{
	return fusebpf_cfg().flags & FUSEBPF_CFG_AUDIT;
}

/* LOOKUP, UNLINK, RMDIR of a hidden name (in arg): ENOENT, or 0 in audit mode. */
static __always_inline int hide_absent(struct fuse_bpf_ctx *ctx, __u32 op, int arg)
{
	if (hide_audit()) {
		fusebpf_count(ctx, would_hide);
		fusebpf_report(ctx, FUSEBPF_EV(HIDE, WOULD_HIDE), ENOENT, arg);
		/* LOOKUP: hide_post() keeps the name out of the dentry cache */
		return op == FUSE_LOOKUP ? FUSE_BPF_POST_FILTER : 0;
	}
	fusebpf_count(ctx, hidden);
	fusebpf_report(ctx, FUSEBPF_EV(HIDE, HIDDEN), ENOENT, arg);
	return -ENOENT;
}

/* Creating, linking or renaming onto a hidden name: hide_errno, or 0 in audit mode. */
static __always_inline int hide_refuse(struct fuse_bpf_ctx *ctx, int arg)
{
	long err = fusebpf_cfg().hide_errno;

	err = err > 0 && err < 4096 ? err : EACCES;
	if (hide_audit()) {
		fusebpf_count(ctx, would_deny);
		fusebpf_report(ctx, FUSEBPF_EV(HIDE, WOULD_DENY), err, arg);
		return 0;
	}
	fusebpf_count(ctx, denied);
	fusebpf_report(ctx, FUSEBPF_EV(HIDE, DENIED), err, arg);
	return -err;
}

/*
 * Prefilter of op: 0 (go on), FUSE_BPF_POST_FILTER (a LOOKUP to time out)
 * or a negative errno. Called with op a constant (FUSEBPF_OP_OPCODE()), so
 * that the verifier walks that op's path only.
 */
static __noinline __attribute__((unused)) int hide_pre(struct fuse_bpf_ctx *ctx, __u32 op)
{
	int arg = fusebpf_entry_name_arg(op);
	struct fusebpf_name n;
	long len;
	int v;

	if (arg < 0)
		return 0;
	if (arg == 2) {		/* RENAME: from a hidden name */
		len = fusebpf_get_name(ctx, FUSE_BPF_IN_ARG(1), &n);
		if (hide_applies(&n, len) && (v = hide_absent(ctx, op, 1)) < 0)
			return v;
	}
	len = fusebpf_get_name(ctx, FUSE_BPF_IN_ARG(arg), &n);
	if (!hide_is_hidden(&n, len))
		return 0;
	if (fusebpf_excepted(FUSEBPF_POLICY_HIDE))
		/* LOOKUP: hide_post() puts a timeout on the name */
		return op == FUSE_LOOKUP ? FUSE_BPF_POST_FILTER : 0;
	switch (op) {
	case FUSE_LOOKUP:
	case FUSE_UNLINK:
	case FUSE_RMDIR:
		return hide_absent(ctx, op, arg);
	default:
		return hide_refuse(ctx, arg);
	}
}

/* Is LOOKUP's name (in 0) hidden? Its own frame: the name is 256 bytes of stack. */
static __noinline bool hide_lookup_name_hidden(struct fuse_bpf_ctx *ctx)
{
	struct fusebpf_name n;
	long len = fusebpf_get_name(ctx, FUSE_BPF_IN_ARG(0), &n);

	return hide_is_hidden(&n, len);
}

/* LOOKUP's entry out (out 0): valid for 0 s, so the next walk looks it up again. */
static __noinline int hide_entry_no_cache(struct fuse_bpf_ctx *ctx)
{
	struct fuse_entry_out feo;

	if (fusebpf_get(ctx, FUSE_BPF_OUT_ARG(0), &feo) < 0)
		return 0;
	feo.entry_valid = 0;
	feo.entry_valid_nsec = 0;
	fusebpf_set(ctx, FUSE_BPF_OUT_ARG(0), &feo);
	return 0;
}

/*
 * Postfilter: a hidden name that a LOOKUP found was looked up by an
 * excepted caller, or in audit mode (anyone else was refused); entry_valid
 * 0 keeps its dentry from serving that verdict to the next caller, or
 * after the policy enforces again (the kernel's LOOKUP timeout support:
 * a LOOKUP postfilter's entry_valid is the backed name's timeout). Only
 * with hide exceptions or in audit mode, so that other filters pay
 * nothing here.
 */
static __noinline __attribute__((unused)) int hide_post_lookup(struct fuse_bpf_ctx *ctx)
{
	struct fusebpf_config cfg;

	if (fusebpf_error_in(ctx) < 0)
		return 0;
	cfg = fusebpf_cfg();
	if (!(cfg.hide_flags & FUSEBPF_HIDE_EXCEPTIONS) && !(cfg.flags & FUSEBPF_CFG_AUDIT))
		return 0;
	if (hide_lookup_name_hidden(ctx))
		hide_entry_no_cache(ctx);
	return 0;
}

/* Postfilter of op: only LOOKUP's does anything. */
static __always_inline int hide_post(struct fuse_bpf_ctx *ctx, __u32 op)
{
	return op == FUSE_LOOKUP ? hide_post_lookup(ctx) : 0;
}

/* Entry filter: 0 (keep: not hidden, or audit mode) or FUSE_BPF_DROP_ENTRY. */
static __noinline __attribute__((unused)) int hide_entry(struct fuse_bpf_ctx *ctx)
{
	struct fusebpf_name n;
	long len = fusebpf_get_name(ctx, FUSE_BPF_IN_ARG(0), &n);
	struct fusebpf_config cfg;

	if (!hide_applies(&n, len))
		return 0;
	cfg = fusebpf_cfg();
	if (cfg.flags & FUSEBPF_CFG_AUDIT) {
		fusebpf_count(ctx, would_hide);
		if (cfg.flags & FUSEBPF_CFG_EV_READDIR)
			fusebpf_report(ctx, FUSEBPF_EV(HIDE, WOULD_HIDE), 0, 0);
		return 0;
	}
	fusebpf_count(ctx, hidden);
	if (cfg.flags & FUSEBPF_CFG_EV_READDIR)
		fusebpf_report(ctx, FUSEBPF_EV(HIDE, HIDDEN), 0, 0);
	return FUSE_BPF_DROP_ENTRY;
}

#endif
