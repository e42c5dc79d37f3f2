// SPDX-License-Identifier: GPL-2.0
/*
 * post_only: the getattr member of postonly is a postfilter only, so the
 * kernel never runs it as a prefilter; it counts its runs per phase and
 * rewrites the mode the user sees, as attrs does. badmask asks for
 * post_only on FORGET, which has no member: the kernel refuses the map.
 */
#include "fusebpf.h"

struct {
	__s64 pre, post, entry;
} postonly_res;

static __always_inline int count_and_chmod(struct fuse_bpf_ctx *ctx)
{
	struct fuse_attr_out o;

	if (fusebpf_is_pre(ctx)) {
		__sync_fetch_and_add(&postonly_res.pre, 1);
		return FUSE_BPF_BACKING | FUSE_BPF_POST_FILTER;
	}
	if (!fusebpf_is_post(ctx)) {
		__sync_fetch_and_add(&postonly_res.entry, 1);
		return 0;
	}
	__sync_fetch_and_add(&postonly_res.post, 1);
	if (fusebpf_error_in(ctx) < 0 ||
	    bpf_fuse_get_arg(ctx, FUSE_BPF_OUT_ARG(0), &o, sizeof(o)) != sizeof(o))
		return 0;
	o.attr.mode = (o.attr.mode & ~07777) | 0400;
	bpf_fuse_set_arg(ctx, FUSE_BPF_OUT_ARG(0), &o, sizeof(o));
	return 0;
}

FUSEBPF_OP(postonly, getattr, count_and_chmod)
FUSEBPF_OP(badmask, getattr, count_and_chmod)

SEC(".struct_ops")
struct fuse_ops postonly = {
	FUSEBPF_MEMBER(postonly, getattr),
	.post_only = FUSEBPF_POST_ONLY(getattr),
};

SEC(".struct_ops")
struct fuse_ops badmask = {
	FUSEBPF_MEMBER(badmask, getattr),
	.post_only = 1ULL << FUSE_FORGET,
};

char LICENSE[] SEC("license") = "GPL";
