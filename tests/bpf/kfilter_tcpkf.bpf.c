// SPDX-License-Identifier: GPL-2.0
/*
 * A fuse_ops member that calls a kfunc tcp_congestion_ops registered for
 * struct_ops programs (all struct_ops types share them on 6.1): a fuse_ops
 * program may call the fuse kfuncs only, so the verifier must refuse it.
 */
#include "fusebpf.h"

extern void tcp_reno_cong_avoid(struct sock *sk, __u32 ack, __u32 acked) __ksym;

static __always_inline int call_tcp(struct fuse_bpf_ctx *ctx)
{
	tcp_reno_cong_avoid((struct sock *)0, 1, 1);
	return FUSE_BPF_BACKING;
}

FUSEBPF_OP(tcpkf, getattr, call_tcp)

SEC(".struct_ops")
struct fuse_ops tcpkf = {
	FUSEBPF_MEMBER(tcpkf, getattr),
};

char LICENSE[] SEC("license") = "GPL";
