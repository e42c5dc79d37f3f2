// SPDX-License-Identifier: GPL-2.0
/* A filter the verifier must refuse: it dereferences a random number. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("fuse")
int reject_me(void *ctx)
{
	return *(int *)(long)bpf_get_prandom_u32();
}

char LICENSE[] SEC("license") = "GPL";
