// SPDX-License-Identifier: GPL-2.0
/*
 * The filters of the table server's suites (tests/guest/table_srv.c):
 * each a fuse_ops map whose 31 members all run one function, so that
 * every operation of a node runs it, as a filter that sees them all. A
 * case loads one (tests/lib/tfilter.h) with ts_op and ts_value set.
 */
#include "fusebpf.h"

/* Set before load: the operation a filter acts on, and what it does there */
const volatile __u32 ts_op;
const volatile __s32 ts_value;

/* Everything goes on to the backing */
static __always_inline int ts_pass_fn(struct fuse_bpf_ctx *ctx)
{
	(void)ctx;
	return 0;
}

/* ts_op's prefilter returns ts_value; everything else goes on to the backing */
static __always_inline int ts_verdict_fn(struct fuse_bpf_ctx *ctx)
{
	return fusebpf_opcode(ctx) == (ts_op | FUSE_PREFILTER) ? ts_value : 0;
}

/*
 * LSEEK's prefilter sets the whence of its in arg to ts_value with
 * bpf_fuse_set_arg(), whose error, if any, is the verdict.
 */
static __always_inline int ts_whence_fn(struct fuse_bpf_ctx *ctx)
{
	struct fuse_lseek_in li = {};

	if (fusebpf_opcode(ctx) != (FUSE_LSEEK | FUSE_PREFILTER))
		return 0;
	fusebpf_get(ctx, FUSE_BPF_IN_ARG(0), &li);
	li.whence = ts_value;
	return fusebpf_set(ctx, FUSE_BPF_IN_ARG(0), &li);
}

FUSEBPF_ALL_OPS(ts_pass, ts_pass_fn)
SEC(".struct_ops")
struct fuse_ops ts_pass = { FUSEBPF_ALL_MEMBERS(ts_pass) };

FUSEBPF_ALL_OPS(ts_verdict, ts_verdict_fn)
SEC(".struct_ops")
struct fuse_ops ts_verdict = { FUSEBPF_ALL_MEMBERS(ts_verdict) };

FUSEBPF_ALL_OPS(ts_whence, ts_whence_fn)
SEC(".struct_ops")
struct fuse_ops ts_whence = { FUSEBPF_ALL_MEMBERS(ts_whence) };

char LICENSE[] SEC("license") = "GPL";
