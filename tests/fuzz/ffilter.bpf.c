// SPDX-License-Identifier: GPL-2.0
/*
 * The filter of make fuzz (tests/fuzz/): every verdict comes from a table
 * that the fuzzer rewrites while operations run, one row per base opcode:
 * what the prefilter, the postfilter and the READDIR entry filter return
 * (any value, documented or not), and which argument bytes they change
 * through bpf_fuse_set_arg() (allowed or not: the kernel must say no
 * cleanly). Counters say what ran, so a run shows that filters were hit.
 *
 * struct fz_verdict and the FZV_* flags are repeated in tests/fuzz/fuzz.h.
 *
 * Two struct_ops maps of struct fuse_ops, fz and fz2, each with all 31
 * members and its own rows of the table. The fuzzer loads them but never
 * attaches them: it builds each epoch's filters from their programs, maps
 * with random subsets of the members (tests/fuzz/fuzz_filters.c).
 */
#include "fusebpf.h"

#define FZ_MAX_OP	64
#define FZ_BUF		128

/* flags */
#define FZV_SET_IN	1	/* prefilter: flip a byte of in arg (arg) and write it back */
#define FZV_SET_OUT	2	/* postfilter: the same for out arg (arg) */
#define FZV_SET_ENTRY	4	/* entry filter: the same for the fuse_bpf_dirent */
#define FZV_GET_ALL	8	/* read every arg, in and out, at every size */

struct fz_verdict {
	__s32 pre;
	__s32 post;
	__s32 entry;
	__u32 flags;
	__u32 arg;		/* which arg FZV_SET_* changes (0..2) */
	__u32 off;		/* the byte flipped (mod FZ_BUF) */
	__u32 xor;		/* with this */
	__u32 size;		/* and how many bytes are written back (mod FZ_BUF, + 1) */
};

/* Rows [op] are fz's, [FZ_MAX_OP + op] fz2's */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2 * FZ_MAX_OP);
	__type(key, __u32);
	__type(value, struct fz_verdict);
} verdicts SEC(".maps");

/*
 * Runs by the member's opcode: [op] prefilter, [64 + op] postfilter,
 * [128 + op] entry filter.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 3 * FZ_MAX_OP);
	__type(key, __u32);
	__type(value, __u64);
} runs SEC(".maps");

/* set_arg results: [0] accepted, [1] -EACCES, [2] -E2BIG, [3] other. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} setargs SEC(".maps");

/* Runs of a member for an opcode that is not its own: [0]; a kernel bug. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} wrong_member SEC(".maps");

struct fz_buf {
	char b[FZ_BUF];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fz_buf);
} scratch SEC(".maps");

static __always_inline void bump(void *map, __u32 key)
{
	__u64 *v = bpf_map_lookup_elem(map, &key);

	if (v)
		*v += 1;
}

static __always_inline void flip(struct fuse_bpf_ctx *ctx, __u32 arg, struct fz_verdict *v)
{
	__u32 zero = 0, off, size;
	struct fz_buf *buf;
	long r;

	buf = bpf_map_lookup_elem(&scratch, &zero);
	if (!buf)
		return;
	if (bpf_fuse_get_arg(ctx, arg, buf->b, FZ_BUF) < 0)
		return;
	off = v->off & (FZ_BUF - 1);
	buf->b[off] ^= v->xor;
	size = (v->size & (FZ_BUF - 1)) + 1;
	r = bpf_fuse_set_arg(ctx, arg, buf->b, size);
	bump(&setargs, r == 0 ? 0 : r == -EACCES ? 1 : r == -E2BIG ? 2 : 3);
}

/* Every arg at a few sizes: the kernel bounds each copy by the arg's size. */
static __always_inline void get_all(struct fuse_bpf_ctx *ctx)
{
	__u32 zero = 0;
	struct fz_buf *buf = bpf_map_lookup_elem(&scratch, &zero);

	if (!buf)
		return;
	for (__u32 i = 0; i < 4; i++) {
		bpf_fuse_get_arg(ctx, FUSE_BPF_IN_ARG(i), buf->b, 1);
		bpf_fuse_get_arg(ctx, FUSE_BPF_IN_ARG(i), buf->b, FZ_BUF);
		bpf_fuse_get_arg(ctx, FUSE_BPF_OUT_ARG(i), buf->b, 7);
		bpf_fuse_get_arg(ctx, FUSE_BPF_OUT_ARG(i), buf->b, FZ_BUF);
	}
	bpf_fuse_get_arg(ctx, 0x200, buf->b, FZ_BUF);
	bpf_fuse_get_arg(ctx, 0xffffffff, buf->b, FZ_BUF);
}

/* The member of opcode member_op, with the verdict rows from base on */
static __always_inline int fz_run(struct fuse_bpf_ctx *ctx, __u32 base, __u32 member_op)
{
	__u32 op = fusebpf_op(ctx);
	struct fz_verdict *v;
	__u32 key = member_op < FZ_MAX_OP ? member_op : 0, row = base + key;

	if (op != member_op)
		bump(&wrong_member, 0);
	v = bpf_map_lookup_elem(&verdicts, &row);
	if (fusebpf_is_entry(ctx)) {
		bump(&runs, 2 * FZ_MAX_OP + key);
		if (!v)
			return 0;
		if (v->flags & FZV_SET_ENTRY)
			flip(ctx, FUSE_BPF_OUT_ARG(0), v);
		return v->entry;
	}
	if (fusebpf_is_post(ctx)) {
		bump(&runs, FZ_MAX_OP + key);
		if (!v)
			return 0;
		if (v->flags & FZV_GET_ALL)
			get_all(ctx);
		if (v->flags & FZV_SET_OUT)
			flip(ctx, FUSE_BPF_OUT_ARG(v->arg & 1), v);
		return v->post;
	}
	bump(&runs, key);
	if (!v)
		return FUSE_BPF_BACKING;
	if (v->flags & FZV_GET_ALL)
		get_all(ctx);
	if (v->flags & FZV_SET_IN)
		flip(ctx, FUSE_BPF_IN_ARG(v->arg % 3), v);
	return v->pre;
}

/* FUSEBPF_OP(), with the member's opcode for fz_run() */
#define FZ_OP(map, member, opcode, base)					\
	SEC("struct_ops/" #member)						\
	int BPF_PROG(map##_##member, struct fuse_bpf_ctx *fz_ctx)		\
	{									\
		return fz_run(fz_ctx, base, opcode);				\
	}

/* Every member (include/linux/fuse_bpf.h), with its opcode */
#define FZ_ALL_OPS(map, base)							\
	FZ_OP(map, lookup, FUSE_LOOKUP, base)					\
	FZ_OP(map, getattr, FUSE_GETATTR, base)					\
	FZ_OP(map, setattr, FUSE_SETATTR, base)					\
	FZ_OP(map, readlink, FUSE_READLINK, base)				\
	FZ_OP(map, symlink, FUSE_SYMLINK, base)					\
	FZ_OP(map, mknod, FUSE_MKNOD, base)					\
	FZ_OP(map, mkdir, FUSE_MKDIR, base)					\
	FZ_OP(map, unlink, FUSE_UNLINK, base)					\
	FZ_OP(map, rmdir, FUSE_RMDIR, base)					\
	FZ_OP(map, rename2, FUSE_RENAME2, base)					\
	FZ_OP(map, link, FUSE_LINK, base)					\
	FZ_OP(map, open, FUSE_OPEN, base)					\
	FZ_OP(map, read, FUSE_READ, base)					\
	FZ_OP(map, write, FUSE_WRITE, base)					\
	FZ_OP(map, statfs, FUSE_STATFS, base)					\
	FZ_OP(map, release, FUSE_RELEASE, base)					\
	FZ_OP(map, fsync, FUSE_FSYNC, base)					\
	FZ_OP(map, setxattr, FUSE_SETXATTR, base)				\
	FZ_OP(map, getxattr, FUSE_GETXATTR, base)				\
	FZ_OP(map, listxattr, FUSE_LISTXATTR, base)				\
	FZ_OP(map, removexattr, FUSE_REMOVEXATTR, base)				\
	FZ_OP(map, flush, FUSE_FLUSH, base)					\
	FZ_OP(map, opendir, FUSE_OPENDIR, base)					\
	FZ_OP(map, readdir, FUSE_READDIR, base)					\
	FZ_OP(map, releasedir, FUSE_RELEASEDIR, base)				\
	FZ_OP(map, fsyncdir, FUSE_FSYNCDIR, base)				\
	FZ_OP(map, access, FUSE_ACCESS, base)					\
	FZ_OP(map, create, FUSE_CREATE, base)					\
	FZ_OP(map, fallocate, FUSE_FALLOCATE, base)				\
	FZ_OP(map, lseek, FUSE_LSEEK, base)					\
	FZ_OP(map, copy_file_range, FUSE_COPY_FILE_RANGE, base)

FZ_ALL_OPS(fz, 0)
SEC(".struct_ops")
struct fuse_ops fz = { FUSEBPF_ALL_MEMBERS(fz) };

/*
 * The same filter with its own verdict rows: servers give its members to
 * some directories (a LOOKUP reply's BPF entry, as fusebpfctl attach --at
 * does) and views to their root, so that renames and links cross between
 * subtrees of different filters.
 */
FZ_ALL_OPS(fz2, FZ_MAX_OP)
SEC(".struct_ops")
struct fuse_ops fz2 = { FUSEBPF_ALL_MEMBERS(fz2) };

char LICENSE[] SEC("license") = "GPL";
