// SPDX-License-Identifier: GPL-2.0
/*
 * denywrite: a read-only view. Every mutating op fails with
 * fusebpf_config.deny_errno (EROFS by default) unless deny_allow lists the
 * entry name it uses. See denywrite.bpf.h.
 */
#include "denywrite.bpf.h"

SEC("fuse")
int denywrite(struct fuse_bpf_ctx *ctx)
{
	if (fusebpf_is_entry(ctx))
		return fusebpf_stats_entry(ctx, 0);
	if (fusebpf_is_post(ctx))
		return fusebpf_stats_post(ctx, deny_post(ctx));
	return fusebpf_stats_pre(ctx, fusebpf_no_entries(ctx, deny_pre(ctx)));
}

char LICENSE[] SEC("license") = "GPL";
