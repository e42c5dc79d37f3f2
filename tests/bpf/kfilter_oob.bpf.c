// SPDX-License-Identifier: GPL-2.0
/*
 * A fuse_ops member that reads the kernel's part of its context (the
 * pointer to the operation's arguments, just after out_sizes[]): the
 * verifier must refuse to load it.
 */
#include "fusebpf.h"

static __always_inline int read_past_ctx(struct fuse_bpf_ctx *ctx)
{
	return ctx->fa != 0;
}

FUSEBPF_OP(oob, getattr, read_past_ctx)

SEC(".struct_ops")
struct fuse_ops oob = {
	FUSEBPF_MEMBER(oob, getattr),
};

char LICENSE[] SEC("license") = "GPL";
