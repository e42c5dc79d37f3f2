// SPDX-License-Identifier: GPL-2.0
/*
 * hide: names that are not there. Exact names in hide_names, prefixes,
 * suffixes and globs in hide_patterns, dotfiles with FUSEBPF_HIDE_DOTFILES
 * in fusebpf_config.hide_flags. A hidden name is ENOENT for LOOKUP, absent
 * from READDIR, and cannot be created (hide_errno, EACCES by default).
 * See hide.bpf.h and docs/filters.md.
 */
#include "hide.bpf.h"

SEC("fuse")
int hide(struct fuse_bpf_ctx *ctx)
{
	if (fusebpf_is_entry(ctx))
		return fusebpf_stats_entry(ctx, hide_entry(ctx));
	if (fusebpf_is_post(ctx))
		return fusebpf_stats_post(ctx, hide_post(ctx));
	return fusebpf_stats_pre(ctx, hide_pre(ctx));
}

char LICENSE[] SEC("license") = "GPL";
