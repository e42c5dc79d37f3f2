// SPDX-License-Identifier: GPL-2.0
/*
 * attrs: rewrite the modes and owners the user sees (attr_rules: per name,
 * or the all-zero name for everything) in LOOKUP, GETATTR and SETATTR
 * replies; the backing files keep theirs. See attrs.bpf.h.
 */
#include "attrs.bpf.h"

/* Every phase of the ops below; an op without a member runs nothing. */
static __always_inline int attrs_run(struct fuse_bpf_ctx *ctx, __u32 op)
{
	if (fusebpf_is_post(ctx))
		return fusebpf_stats_post(ctx, attrs_post(ctx, op));
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
};

char LICENSE[] SEC("license") = "GPL";
