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
 * Two programs, fz and fz2, each with its own rows of the table.
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

/* Runs by opcode: [op] prefilter, [64 + op] postfilter, [128 + op] entry filter. */
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

static __always_inline int fz_run(struct fuse_bpf_ctx *ctx, __u32 base)
{
	__u32 op = fusebpf_op(ctx);
	struct fz_verdict *v;
	__u32 key = op < FZ_MAX_OP ? op : 0, row = base + key;

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

SEC("fuse")
int fz(struct fuse_bpf_ctx *ctx)
{
	return fz_run(ctx, 0);
}

/*
 * The same filter with its own verdict rows: servers give it to some
 * directories (a LOOKUP reply's BPF entry, as fusebpfctl attach --at does)
 * and views to their root, so that renames and links cross between
 * subtrees of different programs.
 */
SEC("fuse")
int fz2(struct fuse_bpf_ctx *ctx)
{
	return fz_run(ctx, FZ_MAX_OP);
}

char LICENSE[] SEC("license") = "GPL";
