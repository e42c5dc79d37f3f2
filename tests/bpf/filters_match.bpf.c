// SPDX-License-Identifier: GPL-2.0
/*
 * The hide policy's name matching (exact names, prefix/suffix/glob patterns,
 * dotfiles) in a BPF_PROG_TYPE_SYSCALL program, so that the real verifier
 * checks it and bpf_prog_test_run() exercises it on any kernel, fuse-bpf or
 * not. Same maps and code as hide.bpf.o.
 */
#include "hide.bpf.h"

struct match_args {
	char name[FUSEBPF_NAME_MAX];
	__s32 len;
	__s32 hidden;
};

SEC("syscall")
int match(struct match_args *args)
{
	struct fusebpf_name n;

	bpf_probe_read_kernel(n.name, sizeof(n.name), args->name);
	n.name[FUSEBPF_NAME_MAX - 1] = 0;
	args->hidden = hide_is_hidden(&n, args->len);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
