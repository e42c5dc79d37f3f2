// SPDX-License-Identifier: GPL-2.0
/* Reads past the end of the context: the verifier must refuse to load it. */
#include "fusebpf.h"

SEC("fuse")
int read_past_ctx(struct fuse_bpf_ctx *ctx)
{
	return *(__u32 *)((char *)ctx + sizeof(*ctx));
}

char LICENSE[] SEC("license") = "GPL";
