// SPDX-License-Identifier: GPL-2.0
/*
 * A fuse_ops member that hands a kfunc memory it filled itself as the
 * context: a struct fuse_bpf_ctx on its stack or in a map value, whose
 * pointers (the operation's arguments, the writable copies) would be the
 * program's choice.  The verifier must refuse each variant, or a filter
 * could read and write any kernel address through the kfuncs.
 * Built four times: FORGE_MAP (map value, else stack) x FORGE_SET
 * (bpf_fuse_set_arg(), else bpf_fuse_get_arg()).
 */
#include "fusebpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fuse_bpf_ctx);
} forged SEC(".maps");

static __always_inline int forge_ctx(struct fuse_bpf_ctx *real)
{
	struct fuse_bpf_ctx stack_ctx = {};
	struct fuse_bpf_ctx *fake = &stack_ctx;
	char buf[8] = {};
	__u32 zero = 0;

	if (FORGE_MAP) {
		fake = bpf_map_lookup_elem(&forged, &zero);
		if (!fake)
			return 0;
	}
	fake->opcode = real->opcode;
	if (FORGE_SET)
		return bpf_fuse_set_arg(fake, FUSE_BPF_OUT_ARG(0), buf, sizeof(buf));
	return bpf_fuse_get_arg(fake, FUSE_BPF_IN_ARG(0), buf, sizeof(buf));
}

FUSEBPF_OP(forge, getattr, forge_ctx)

SEC(".struct_ops")
struct fuse_ops forge = {
	FUSEBPF_MEMBER(forge, getattr),
};

char LICENSE[] SEC("license") = "GPL";
