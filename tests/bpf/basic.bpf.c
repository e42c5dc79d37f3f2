// SPDX-License-Identifier: GPL-2.0
/* The smallest useful BPF program: proves that loading, running and maps work. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} result SEC(".maps");

struct basic_args {
	__u64 value;
};

SEC("syscall")
int write_value(struct basic_args *args)
{
	__u32 key = 0;
	__u64 v = args->value * 2 + 1;

	bpf_map_update_elem(&result, &key, &v, BPF_ANY);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
