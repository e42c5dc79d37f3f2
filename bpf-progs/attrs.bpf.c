// SPDX-License-Identifier: GPL-2.0
/*
 * attrs: rewrite the modes and owners the user sees (attr_rules: per name,
 * or the all-zero name for everything) in LOOKUP, GETATTR and SETATTR
 * replies; the backing files keep theirs. See attrs.bpf.h.
 */
#include "attrs.bpf.h"

/*
 * attrs only rewrites results: each of its ops runs once, as the
 * postfilter (post_only), counted but not timed (stats.h). A map whose
 * post_only is cleared still rewrites: its ops then also run and count
 * a prefilter, and stay untimed.
 */
#define ATTRS_POST_ONLY	(FUSEBPF_POST_ONLY(lookup) | FUSEBPF_POST_ONLY(getattr) |	\
			 FUSEBPF_POST_ONLY(setattr))

static __always_inline int attrs_run(struct fuse_bpf_ctx *ctx, __u32 op)
{
	if (fusebpf_is_post(ctx))
		return fusebpf_stats_post_only(ctx, attrs_post(ctx, op));
	return fusebpf_stats_pre(ctx, attrs_pre(ctx, op));
}

FUSEBPF_OP_OPCODE(attrs, lookup, attrs_run)
FUSEBPF_OP_OPCODE(attrs, getattr, attrs_run)
FUSEBPF_OP_OPCODE(attrs, setattr, attrs_run)

SEC(".struct_ops")
struct fuse_ops attrs = {
	FUSEBPF_MEMBER(attrs, lookup),
	FUSEBPF_MEMBER(attrs, getattr),
	FUSEBPF_MEMBER(attrs, setattr),
	.post_only = ATTRS_POST_ONLY,
};

char LICENSE[] SEC("license") = "GPL";
