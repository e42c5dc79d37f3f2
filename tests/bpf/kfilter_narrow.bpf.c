// SPDX-License-Identifier: GPL-2.0
/*
 * A fuse_ops member that loads only the low NARROW bytes (1, 2 or 4) of its
 * context pointer and hands the kfunc that truncated address for a
 * context: the verifier must refuse the narrow load (6.1's btf_ctx_access()
 * types it as the whole pointer).
 */
#include "fusebpf.h"

#if NARROW == 1
typedef __u8 narrow_t;
#elif NARROW == 2
typedef __u16 narrow_t;
#else
typedef __u32 narrow_t;
#endif

SEC("struct_ops/getattr")
int narrow_getattr(unsigned long long *args)
{
	narrow_t lo = *(volatile narrow_t *)args;
	struct fuse_bpf_ctx *ctx = (void *)(unsigned long)lo;
	char buf[8] = {};

	return bpf_fuse_get_arg(ctx, FUSE_BPF_IN_ARG(0), buf, sizeof(buf));
}

SEC(".struct_ops")
struct fuse_ops narrow = {
	.getattr = (void *)narrow_getattr,
};

char LICENSE[] SEC("license") = "GPL";
