// SPDX-License-Identifier: GPL-2.0
/*
 * The smallest fuse_ops filter: a getattr member that counts its runs and
 * lets the backing op happen. For the cases about which maps root_bpf=
 * takes (one not yet attached is refused; attached, it is taken), that
 * an op without a member runs no program (wrong_op stays 0) and for remount
 * replacement (which map's getattrs grows).
 */
#include "fusebpf.h"

/* The test reads this at offset 0 of .bss */
struct {
	__u64 getattrs;		/* runs of the getattr member */
	__u64 wrong_op;		/* runs for another op: must stay 0 */
} kmin_count;

static __always_inline int count_getattr(struct fuse_bpf_ctx *ctx)
{
	if (fusebpf_op(ctx) == FUSE_GETATTR)
		__sync_fetch_and_add(&kmin_count.getattrs, 1);
	else
		__sync_fetch_and_add(&kmin_count.wrong_op, 1);
	return FUSE_BPF_BACKING;
}

FUSEBPF_OP(kmin, getattr, count_getattr)

SEC(".struct_ops")
struct fuse_ops kmin = {
	FUSEBPF_MEMBER(kmin, getattr),
};

char LICENSE[] SEC("license") = "GPL";
