// SPDX-License-Identifier: GPL-2.0
/*
 * stats: changes nothing, counts every op in fusebpf_stats (runs, backing
 * errors, latency). The baseline the other filters are measured against.
 */
#include "stats.h"

SEC("fuse")
int stats(struct fuse_bpf_ctx *ctx)
{
	if (fusebpf_is_entry(ctx))
		return fusebpf_stats_entry(ctx, 0);
	if (fusebpf_is_post(ctx))
		return fusebpf_stats_post(ctx, 0);
	return fusebpf_stats_pre(ctx, fusebpf_no_entries(ctx, 0));
}

char LICENSE[] SEC("license") = "GPL";
