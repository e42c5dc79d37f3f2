// SPDX-License-Identifier: GPL-2.0
/*
 * hide: names that are not there. Exact names in hide_names, prefixes,
 * suffixes and globs in hide_patterns, dotfiles with FUSEBPF_HIDE_DOTFILES
 * in fusebpf_config.hide_flags. A hidden name is ENOENT for LOOKUP, absent
 * from READDIR, and cannot be created (hide_errno, EACCES by default).
 * See hide.bpf.h and docs/filters.md.
 */
#include "hide.bpf.h"

/* Every phase of the ops below; an op without a member runs nothing. */
static __always_inline int hide_run(struct fuse_bpf_ctx *ctx, __u32 op)
{
	if (op == FUSE_READDIR && fusebpf_is_entry(ctx))
		return fusebpf_stats_entry(ctx, hide_entry(ctx));
	if (fusebpf_is_post(ctx))
		return fusebpf_stats_post(ctx, hide_post(ctx, op));
	return fusebpf_stats_pre(ctx, hide_pre(ctx, op));
}

FUSEBPF_OP_OPCODE(hide, lookup, hide_run)
FUSEBPF_OP_OPCODE(hide, readdir, hide_run)
FUSEBPF_OP_OPCODE(hide, unlink, hide_run)
FUSEBPF_OP_OPCODE(hide, rmdir, hide_run)
FUSEBPF_OP_OPCODE(hide, mknod, hide_run)
FUSEBPF_OP_OPCODE(hide, mkdir, hide_run)
FUSEBPF_OP_OPCODE(hide, symlink, hide_run)
FUSEBPF_OP_OPCODE(hide, link, hide_run)
FUSEBPF_OP_OPCODE(hide, rename2, hide_run)
FUSEBPF_OP_OPCODE(hide, create, hide_run)

SEC(".struct_ops")
struct fuse_ops hide = {
	FUSEBPF_MEMBER(hide, lookup),
	FUSEBPF_MEMBER(hide, readdir),
	FUSEBPF_MEMBER(hide, unlink),
	FUSEBPF_MEMBER(hide, rmdir),
	FUSEBPF_MEMBER(hide, mknod),
	FUSEBPF_MEMBER(hide, mkdir),
	FUSEBPF_MEMBER(hide, symlink),
	FUSEBPF_MEMBER(hide, link),
	FUSEBPF_MEMBER(hide, rename2),
	FUSEBPF_MEMBER(hide, create),
};

char LICENSE[] SEC("license") = "GPL";
