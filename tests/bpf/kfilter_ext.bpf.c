// SPDX-License-Identifier: GPL-2.0
/*
 * An extension (freplace) of the global function ext_target() of
 * kfilter_exttgt's getattr member, calling a kfunc tcp_congestion_ops
 * registered: it runs inside a fuse_ops program, so fuse_ops' kfunc
 * allow-list applies, and the verifier must refuse the call as it
 * refuses it in a member (kfilter_tcpkf).
 */
#include "fusebpf.h"

extern void tcp_reno_cong_avoid(struct sock *sk, __u32 ack, __u32 acked) __ksym;

SEC("freplace/ext_target")
int ext_replacement(int x)
{
	tcp_reno_cong_avoid((struct sock *)0, 1, 1);
	return x;
}

char LICENSE[] SEC("license") = "GPL";
