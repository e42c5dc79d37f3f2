// SPDX-License-Identifier: GPL-2.0
/* A filter the verifier must refuse: it dereferences a random number. */
#include "fusebpf.h"

static __always_inline int reject_me(struct fuse_bpf_ctx *ctx)
{
	return *(int *)(long)bpf_get_prandom_u32();
}

FUSEBPF_OP(reject, lookup, reject_me)

SEC(".struct_ops")
struct fuse_ops reject = {
	FUSEBPF_MEMBER(reject, lookup),
};

char LICENSE[] SEC("license") = "GPL";
