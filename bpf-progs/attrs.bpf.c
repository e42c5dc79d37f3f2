// SPDX-License-Identifier: GPL-2.0
/*
 * attrs: rewrite the modes and owners the user sees (attr_rules: per name,
 * or the all-zero name for everything) in LOOKUP, GETATTR and SETATTR
 * replies; the backing files keep theirs. See attrs.bpf.h.
 */
#include "attrs.bpf.h"

SEC("fuse")
int attrs(struct fuse_bpf_ctx *ctx)
{
	if (fusebpf_is_entry(ctx))
		return fusebpf_stats_entry(ctx, 0);
	if (fusebpf_is_post(ctx))
		return fusebpf_stats_post(ctx, attrs_post(ctx));
	return fusebpf_stats_pre(ctx, fusebpf_no_entries(ctx, attrs_pre(ctx)));
}

char LICENSE[] SEC("license") = "GPL";
