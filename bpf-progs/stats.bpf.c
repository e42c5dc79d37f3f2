// SPDX-License-Identifier: GPL-2.0
/*
 * stats: changes nothing, counts every op in fusebpf_stats (runs, backing
 * errors, latency). The baseline the other filters are measured against.
 */
#include "stats.h"

/* Every phase of every op: all 31 members. */
static __always_inline int stats_run(struct fuse_bpf_ctx *ctx)
{
	if (fusebpf_is_entry(ctx))
		return fusebpf_stats_entry(ctx, 0);
	if (fusebpf_is_post(ctx))
		return fusebpf_stats_post(ctx, 0);
	return fusebpf_stats_pre(ctx, fusebpf_no_entries(ctx, 0));
}

FUSEBPF_ALL_OPS(stats, stats_run)

SEC(".struct_ops")
struct fuse_ops stats = {
	FUSEBPF_ALL_MEMBERS(stats),
};

char LICENSE[] SEC("license") = "GPL";
