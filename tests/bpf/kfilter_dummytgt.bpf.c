// SPDX-License-Identifier: GPL-2.0
/* A bpf_dummy_ops member that calls a global function kfilter_ext replaces. */
#include "fusebpf.h"

__noinline int ext_target(int x)
{
	return x ? 1 : 0;
}

SEC("struct_ops/test_1")
int BPF_PROG(dummytgt_test_1, struct bpf_dummy_ops_state *state)
{
	return ext_target(1);
}

SEC(".struct_ops")
struct bpf_dummy_ops dummytgt = {
	.test_1 = (void *)dummytgt_test_1,
};

char LICENSE[] SEC("license") = "GPL";
