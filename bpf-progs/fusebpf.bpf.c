// SPDX-License-Identifier: GPL-2.0
/*
 * fusebpf: the policies composed. The kernel runs one program per node, so
 * composition is one program: this one runs denywrite, hide and attrs, each
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

static __always_inline int fusebpf_pre(struct fuse_bpf_ctx *ctx, __u32 policies)
{
	int verdict = 0, v;

	if (policies & FUSEBPF_POLICY_DENYWRITE) {
		v = deny_pre(ctx);
		if (v < 0)
			return v;
		verdict |= v;
	}
	if (policies & FUSEBPF_POLICY_HIDE) {
		v = hide_pre(ctx);
		if (v < 0)
			return v;
		verdict |= v;
	}
	if (policies & FUSEBPF_POLICY_ATTRS)
		verdict |= attrs_pre(ctx);
	return verdict;
}

static __always_inline int fusebpf_post(struct fuse_bpf_ctx *ctx, __u32 policies)
{
	if (policies & FUSEBPF_POLICY_DENYWRITE)
		deny_post(ctx);
	if (policies & FUSEBPF_POLICY_HIDE)
		hide_post(ctx);
	if (policies & FUSEBPF_POLICY_ATTRS)
		return attrs_post(ctx);
	return 0;
}

SEC("fuse")
int fusebpf(struct fuse_bpf_ctx *ctx)
{
	__u32 policies = fusebpf_cfg().policies;
	int verdict;

	if (fusebpf_is_entry(ctx))
		return fusebpf_stats_entry(ctx, policies & FUSEBPF_POLICY_HIDE ? hide_entry(ctx) : 0);
	if (fusebpf_is_post(ctx))
		return fusebpf_stats_post(ctx, fusebpf_post(ctx, policies));
	verdict = fusebpf_pre(ctx, policies);
	/* Only hide looks at a listing's names */
	if (!(policies & FUSEBPF_POLICY_HIDE))
		verdict = fusebpf_no_entries(ctx, verdict);
	return fusebpf_stats_pre(ctx, verdict);
}

char LICENSE[] SEC("license") = "GPL";
