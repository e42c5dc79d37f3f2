// SPDX-License-Identifier: GPL-2.0
/*
 * A getattr member that hands the kfuncs a map value it never checked for
 * NULL, from a lookup that misses: 6.1's verifier lets that through for a
 * kfunc's buffer, so the kfuncs must refuse a NULL buffer themselves
 * (-EINVAL) rather than write through it. The results go to .bss.
 */
#include "fusebpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fuse_getattr_in);
} never SEC(".maps");

struct {
	__s64 get, set, runs;
} nullbuf_res;

static __always_inline int null_buffers(struct fuse_bpf_ctx *ctx)
{
	__u32 key = 7;
	struct fuse_getattr_in *v = bpf_map_lookup_elem(&never, &key);

	nullbuf_res.get = bpf_fuse_get_arg(ctx, FUSE_BPF_IN_ARG(0), v, sizeof(*v));
	nullbuf_res.set = bpf_fuse_set_arg(ctx, FUSE_BPF_IN_ARG(0), v, sizeof(*v));
	__sync_fetch_and_add(&nullbuf_res.runs, 1);
	return FUSE_BPF_BACKING;
}

FUSEBPF_OP(nullbuf, getattr, null_buffers)

SEC(".struct_ops")
struct fuse_ops nullbuf = {
	FUSEBPF_MEMBER(nullbuf, getattr),
};

char LICENSE[] SEC("license") = "GPL";
