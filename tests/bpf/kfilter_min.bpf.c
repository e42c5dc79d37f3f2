// SPDX-License-Identifier: GPL-2.0
/*
 * The smallest fuse_ops filter: a getattr member that counts its runs and
 * lets the backing op happen. For the cases about which maps root_bpf=
 * takes (one not yet attached is refused; attached, it is taken).
 */
#include "fusebpf.h"

__u64 getattrs;

static __always_inline int count_getattr(struct fuse_bpf_ctx *ctx)
{
	__sync_fetch_and_add(&getattrs, 1);
	return FUSE_BPF_BACKING;
}

FUSEBPF_OP(kmin, getattr, count_getattr)

SEC(".struct_ops")
struct fuse_ops kmin = {
	FUSEBPF_MEMBER(kmin, getattr),
};

char LICENSE[] SEC("license") = "GPL";
