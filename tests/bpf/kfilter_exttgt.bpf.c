// SPDX-License-Identifier: GPL-2.0
/*
 * A fuse_ops member that calls a global function, ext_target(), which
 * kfilter_ext.bpf.c's extension replaces.
 */
#include "fusebpf.h"

__noinline int ext_target(int x)
{
	return x ? FUSE_BPF_BACKING : 0;
}

static __always_inline int call_target(struct fuse_bpf_ctx *ctx)
{
	return ext_target(1);
}

FUSEBPF_OP(exttgt, getattr, call_target)

SEC(".struct_ops")
struct fuse_ops exttgt = {
	FUSEBPF_MEMBER(exttgt, getattr),
};

char LICENSE[] SEC("license") = "GPL";
