// SPDX-License-Identifier: GPL-2.0
/*
 * The small filters of tests/guest/filters.c's cases about mappings,
 * ACCESS, long names and stacked views. Each is a fuse_ops map whose 31
 * members all run one function that looks at the opcode, so that every
 * operation of a view runs it (as a filter that cares about one operation
 * but sees them all); a case loads and attaches one of them
 * (tests/lib/tfilter.h). Everything a function does not refuse goes on
 * to the backing (0).
 */
#include "fusebpf.h"

#define MAY_NOT_BLOCK	0x80

/* read_below: READs that end past 1 << read_below_shift are refused */
const volatile __u32 read_below_shift = 32;

/* A READ prefilter's [offset, offset + size) ends past limit: err, else 0 */
static __always_inline int read_ends_below(struct fuse_bpf_ctx *ctx, __u64 limit, int err)
{
	struct fuse_read_in ri = {};

	if (fusebpf_get(ctx, FUSE_BPF_IN_ARG(0), &ri) < 0)
		return err;
	return ri.offset + ri.size > limit ? err : 0;
}

/* The same for a WRITE prefilter */
static __always_inline int write_ends_below(struct fuse_bpf_ctx *ctx, __u64 limit, int err)
{
	struct fuse_write_in wi = {};

	if (fusebpf_get(ctx, FUSE_BPF_IN_ARG(0), &wi) < 0)
		return err;
	return wi.offset + wi.size > limit ? err : 0;
}

/* WRITEs only below 4096 (EPERM), READs only below 8192 (EACCES) */
static __always_inline int mm_range_fn(struct fuse_bpf_ctx *ctx)
{
	__u32 opcode = fusebpf_opcode(ctx);

	if (opcode == (FUSE_WRITE | FUSE_PREFILTER))
		return write_ends_below(ctx, 4096, -EPERM);
	if (opcode == (FUSE_READ | FUSE_PREFILTER))
		return read_ends_below(ctx, 8192, -EACCES);
	return 0;
}

/* READs only below 1 << read_below_shift (EACCES) */
static __always_inline int read_below_fn(struct fuse_bpf_ctx *ctx)
{
	if (fusebpf_opcode(ctx) != (FUSE_READ | FUSE_PREFILTER))
		return 0;
	return read_ends_below(ctx, 1ULL << (read_below_shift & 63), -EACCES);
}

/* FALLOCATE refused (EPERM), everything else (WRITE too) allowed */
static __always_inline int no_fallocate_fn(struct fuse_bpf_ctx *ctx)
{
	return fusebpf_opcode(ctx) == (FUSE_FALLOCATE | FUSE_PREFILTER) ? -EPERM : 0;
}

/* The ACCESS prefilter adds MAY_NOT_BLOCK to the mask (which the kernel refuses) */
static __always_inline int mm_nonblock_fn(struct fuse_bpf_ctx *ctx)
{
	struct fuse_access_in ai = {};

	if (fusebpf_opcode(ctx) != (FUSE_ACCESS | FUSE_PREFILTER))
		return 0;
	fusebpf_get(ctx, FUSE_BPF_IN_ARG(0), &ai);
	ai.mask |= MAY_NOT_BLOCK;
	fusebpf_set(ctx, FUSE_BPF_IN_ARG(0), &ai);
	return 0;
}

/* The READDIR entry filter drops every entry */
static __always_inline int mm_dropall_fn(struct fuse_bpf_ctx *ctx)
{
	return fusebpf_opcode(ctx) == (FUSE_READDIR | FUSE_ENTRYFILTER) ? FUSE_BPF_DROP_ENTRY : 0;
}

/* Everything allowed: a view with a filter that refuses nothing */
static __always_inline int allow_all_fn(struct fuse_bpf_ctx *ctx)
{
	(void)ctx;
	return 0;
}

FUSEBPF_ALL_OPS(mm_range, mm_range_fn)
SEC(".struct_ops")
struct fuse_ops mm_range = { FUSEBPF_ALL_MEMBERS(mm_range) };

FUSEBPF_ALL_OPS(read_below, read_below_fn)
SEC(".struct_ops")
struct fuse_ops read_below = { FUSEBPF_ALL_MEMBERS(read_below) };

FUSEBPF_ALL_OPS(no_fallocate, no_fallocate_fn)
SEC(".struct_ops")
struct fuse_ops no_fallocate = { FUSEBPF_ALL_MEMBERS(no_fallocate) };

FUSEBPF_ALL_OPS(mm_nonblock, mm_nonblock_fn)
SEC(".struct_ops")
struct fuse_ops mm_nonblock = { FUSEBPF_ALL_MEMBERS(mm_nonblock) };

FUSEBPF_ALL_OPS(mm_dropall, mm_dropall_fn)
SEC(".struct_ops")
struct fuse_ops mm_dropall = { FUSEBPF_ALL_MEMBERS(mm_dropall) };

FUSEBPF_ALL_OPS(allow_all, allow_all_fn)
SEC(".struct_ops")
struct fuse_ops allow_all = { FUSEBPF_ALL_MEMBERS(allow_all) };

char LICENSE[] SEC("license") = "GPL";
