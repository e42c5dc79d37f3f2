// SPDX-License-Identifier: GPL-2.0
/*
 * A fuse_ops member that reads past the end of its context: the verifier
 * must refuse to load it ("access beyond struct fuse_bpf_ctx").
 */
#include "fusebpf.h"

static __always_inline int read_past_ctx(struct fuse_bpf_ctx *ctx)
{
	return *(__u32 *)((char *)ctx + sizeof(*ctx));
}

FUSEBPF_OP(oob, getattr, read_past_ctx)

SEC(".struct_ops")
struct fuse_ops oob = {
	FUSEBPF_MEMBER(oob, getattr),
};

char LICENSE[] SEC("license") = "GPL";
