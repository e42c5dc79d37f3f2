// SPDX-License-Identifier: GPL-2.0
/*
 * denywrite: a read-only view. Every mutating op fails with
 * fusebpf_config.deny_errno (EROFS by default) unless deny_allow lists the
 * entry name it uses. See denywrite.bpf.h.
 */
#include "denywrite.bpf.h"

/* Every phase of the ops below; an op without a member runs nothing. */
static __always_inline int deny_run(struct fuse_bpf_ctx *ctx, __u32 op)
{
	if (fusebpf_is_post(ctx))
		return fusebpf_stats_post(ctx, deny_post(ctx, op));
	return fusebpf_stats_pre(ctx, deny_pre(ctx, op));
}

FUSEBPF_OP_OPCODE(denywrite, open, deny_run)
FUSEBPF_OP_OPCODE(denywrite, write, deny_run)
FUSEBPF_OP_OPCODE(denywrite, fallocate, deny_run)
FUSEBPF_OP_OPCODE(denywrite, copy_file_range, deny_run)
FUSEBPF_OP_OPCODE(denywrite, setattr, deny_run)
FUSEBPF_OP_OPCODE(denywrite, setxattr, deny_run)
FUSEBPF_OP_OPCODE(denywrite, removexattr, deny_run)
FUSEBPF_OP_OPCODE(denywrite, create, deny_run)
FUSEBPF_OP_OPCODE(denywrite, rename2, deny_run)
FUSEBPF_OP_OPCODE(denywrite, mknod, deny_run)
FUSEBPF_OP_OPCODE(denywrite, mkdir, deny_run)
FUSEBPF_OP_OPCODE(denywrite, link, deny_run)
FUSEBPF_OP_OPCODE(denywrite, unlink, deny_run)
FUSEBPF_OP_OPCODE(denywrite, rmdir, deny_run)
FUSEBPF_OP_OPCODE(denywrite, symlink, deny_run)

SEC(".struct_ops")
struct fuse_ops denywrite = {
	FUSEBPF_MEMBER(denywrite, open),
	FUSEBPF_MEMBER(denywrite, write),
	FUSEBPF_MEMBER(denywrite, fallocate),
	FUSEBPF_MEMBER(denywrite, copy_file_range),
	FUSEBPF_MEMBER(denywrite, setattr),
	FUSEBPF_MEMBER(denywrite, setxattr),
	FUSEBPF_MEMBER(denywrite, removexattr),
	FUSEBPF_MEMBER(denywrite, create),
	FUSEBPF_MEMBER(denywrite, rename2),
	FUSEBPF_MEMBER(denywrite, mknod),
	FUSEBPF_MEMBER(denywrite, mkdir),
	FUSEBPF_MEMBER(denywrite, link),
	FUSEBPF_MEMBER(denywrite, unlink),
	FUSEBPF_MEMBER(denywrite, rmdir),
	FUSEBPF_MEMBER(denywrite, symlink),
};

char LICENSE[] SEC("license") = "GPL";
