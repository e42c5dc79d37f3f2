// SPDX-License-Identifier: GPL-2.0
/*
 * A tcp_congestion_ops member that calls bpf_fuse_get_arg() with its
 * struct sock: the kfuncs are registered for every struct_ops program, so
 * it is their fuse_bpf_ctx argument type that must make the verifier
 * refuse this.
 */
#include "fusebpf.h"

SEC("struct_ops/ssthresh")
__u32 BPF_PROG(cc_ssthresh, struct sock *sk)
{
	char buf[8] = {};

	return bpf_fuse_get_arg((struct fuse_bpf_ctx *)sk, 0, buf, sizeof(buf));
}

SEC(".struct_ops")
struct tcp_congestion_ops fusecc = {
	.ssthresh = (void *)cc_ssthresh,
	.name = "fusecc",
};

char LICENSE[] SEC("license") = "GPL";
