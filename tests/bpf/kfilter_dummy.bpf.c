// SPDX-License-Identifier: GPL-2.0
/* A struct_ops map of another type (bpf_dummy_ops): root_bpf= must refuse it. */
#include "fusebpf.h"

SEC("struct_ops/test_1")
int BPF_PROG(dummy_test_1, struct bpf_dummy_ops_state *state)
{
	return 0;
}

SEC(".struct_ops")
struct bpf_dummy_ops dummy = {
	.test_1 = (void *)dummy_test_1,
};

char LICENSE[] SEC("license") = "GPL";
