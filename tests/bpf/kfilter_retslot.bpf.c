// SPDX-License-Identifier: GPL-2.0
/*
 * A fuse_ops member that reads the slot after its one argument, where a
 * tracing program finds the return value: fsyncdir, access and create are
 * members 25 to 27, the numbers of BPF_TRACE_FEXIT, BPF_MODIFY_RETURN and
 * BPF_LSM_MAC, and a struct_ops program's attach type is its member's
 * index. The struct_ops trampoline never writes that slot (stale kernel
 * stack): the verifier must refuse the read. Built three times, MEMBER
 * naming which one.
 */
#include "fusebpf.h"

SEC("struct_ops/" MEMBER_NAME)
int read_ret_slot(__u64 *ctx)
{
	return ctx[1] ? FUSE_BPF_BACKING : FUSE_BPF_BACKING | FUSE_BPF_POST_FILTER;
}

SEC(".struct_ops")
struct fuse_ops retslot = {
	.MEMBER = (void *)read_ret_slot,
};

char LICENSE[] SEC("license") = "GPL";
