// SPDX-License-Identifier: GPL-2.0
/*
 * fusebpf: the policies composed. The kernel runs one filter (fuse_ops map) per node, so
 * composition is one struct_ops map: this one runs denywrite, hide and attrs, each
 * when its FUSEBPF_POLICY_* bit is set in fusebpf_config.policies (all off:
 * it is the stats filter), from the same maps as the single filters.
 *
 * Order: denywrite first (a create of a hidden name on a read-only view
 * fails with the deny errno, which says nothing about hidden files), then
 * hide, then attrs (which only rewrites what the user may see).
 */
#include "attrs.bpf.h"
#include "denywrite.bpf.h"
#include "hide.bpf.h"

static __always_inline int fusebpf_pre(struct fuse_bpf_ctx *ctx, __u32 op, __u32 policies)
{
	int verdict = 0, v;

	if (policies & FUSEBPF_POLICY_DENYWRITE) {
		v = deny_pre(ctx, op);
		if (v < 0)
			return v;
		verdict |= v;
	}
	if (policies & FUSEBPF_POLICY_HIDE) {
		v = hide_pre(ctx, op);
		if (v < 0)
			return v;
		verdict |= v;
	}
	if (policies & FUSEBPF_POLICY_ATTRS)
		verdict |= attrs_pre(ctx, op);
	return verdict;
}

static __always_inline int fusebpf_post(struct fuse_bpf_ctx *ctx, __u32 op, __u32 policies)
{
	if (policies & FUSEBPF_POLICY_DENYWRITE)
		deny_post(ctx, op);
	if (policies & FUSEBPF_POLICY_HIDE)
		hide_post(ctx, op);
	if (policies & FUSEBPF_POLICY_ATTRS)
		return attrs_post(ctx, op);
	return 0;
}

/*
 * GETATTR: no policy has a prefilter for it (attrs rewrites the result),
 * so it runs once, as the postfilter, counted but not timed (stats.h).
 */
#define FUSEBPF_POST_ONLY_OPS	FUSEBPF_POST_ONLY(getattr)

static __always_inline int fusebpf_run(struct fuse_bpf_ctx *ctx, __u32 op)
{
	__u32 policies = fusebpf_cfg().policies;
	int verdict;

	if (op == FUSE_READDIR && fusebpf_is_entry(ctx))
		return fusebpf_stats_entry(ctx, policies & FUSEBPF_POLICY_HIDE ? hide_entry(ctx) : 0);
	if (fusebpf_is_post(ctx) && FUSEBPF_IS_POST_ONLY(FUSEBPF_POST_ONLY_OPS, op))
		return fusebpf_stats_post_only(ctx, fusebpf_post(ctx, op, policies));
	if (fusebpf_is_post(ctx))
		return fusebpf_stats_post(ctx, fusebpf_post(ctx, op, policies));
	verdict = fusebpf_pre(ctx, op, policies);
	/* Only hide looks at a listing's names */
	if (!(policies & FUSEBPF_POLICY_HIDE))
		verdict = fusebpf_no_entries(ctx, verdict);
	return fusebpf_stats_pre(ctx, verdict);
}

/*
 * The union of the ops the three policies act on; the others run nothing
 * (and are not counted in fusebpf_stats: use the stats filter for those).
 */
FUSEBPF_OP_OPCODE(fusebpf, lookup, fusebpf_run)
FUSEBPF_OP_OPCODE(fusebpf, getattr, fusebpf_run)
FUSEBPF_OP_OPCODE(fusebpf, setattr, fusebpf_run)
FUSEBPF_OP_OPCODE(fusebpf, readdir, fusebpf_run)
FUSEBPF_OP_OPCODE(fusebpf, open, fusebpf_run)
FUSEBPF_OP_OPCODE(fusebpf, write, fusebpf_run)
FUSEBPF_OP_OPCODE(fusebpf, fallocate, fusebpf_run)
FUSEBPF_OP_OPCODE(fusebpf, copy_file_range, fusebpf_run)
FUSEBPF_OP_OPCODE(fusebpf, setxattr, fusebpf_run)
FUSEBPF_OP_OPCODE(fusebpf, removexattr, fusebpf_run)
FUSEBPF_OP_OPCODE(fusebpf, create, fusebpf_run)
FUSEBPF_OP_OPCODE(fusebpf, rename2, fusebpf_run)
FUSEBPF_OP_OPCODE(fusebpf, mknod, fusebpf_run)
FUSEBPF_OP_OPCODE(fusebpf, mkdir, fusebpf_run)
FUSEBPF_OP_OPCODE(fusebpf, link, fusebpf_run)
FUSEBPF_OP_OPCODE(fusebpf, unlink, fusebpf_run)
FUSEBPF_OP_OPCODE(fusebpf, rmdir, fusebpf_run)
FUSEBPF_OP_OPCODE(fusebpf, symlink, fusebpf_run)

SEC(".struct_ops")
struct fuse_ops fusebpf = {
	FUSEBPF_MEMBER(fusebpf, lookup),
	FUSEBPF_MEMBER(fusebpf, getattr),
	FUSEBPF_MEMBER(fusebpf, setattr),
	FUSEBPF_MEMBER(fusebpf, readdir),
	FUSEBPF_MEMBER(fusebpf, open),
	FUSEBPF_MEMBER(fusebpf, write),
	FUSEBPF_MEMBER(fusebpf, fallocate),
	FUSEBPF_MEMBER(fusebpf, copy_file_range),
	FUSEBPF_MEMBER(fusebpf, setxattr),
	FUSEBPF_MEMBER(fusebpf, removexattr),
	FUSEBPF_MEMBER(fusebpf, create),
	FUSEBPF_MEMBER(fusebpf, rename2),
	FUSEBPF_MEMBER(fusebpf, mknod),
	FUSEBPF_MEMBER(fusebpf, mkdir),
	FUSEBPF_MEMBER(fusebpf, link),
	FUSEBPF_MEMBER(fusebpf, unlink),
	FUSEBPF_MEMBER(fusebpf, rmdir),
	FUSEBPF_MEMBER(fusebpf, symlink),
	.post_only = FUSEBPF_POST_ONLY_OPS,
};

char LICENSE[] SEC("license") = "GPL";
