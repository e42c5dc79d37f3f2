// SPDX-License-Identifier: GPL-2.0
/*
 * A fuse_ops member that writes its context (error_in, a field it may
 * read): the context is read-only, so the verifier must refuse to load it.
 */
#include "fusebpf.h"

static __always_inline int write_ctx(struct fuse_bpf_ctx *ctx)
{
	*(volatile __s32 *)&ctx->error_in = -EPERM;
	return 0;
}

FUSEBPF_OP(ctxw, getattr, write_ctx)

SEC(".struct_ops")
struct fuse_ops ctxw = {
	FUSEBPF_MEMBER(ctxw, getattr),
};

char LICENSE[] SEC("license") = "GPL";
