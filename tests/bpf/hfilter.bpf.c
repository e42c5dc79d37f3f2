// SPDX-License-Identifier: GPL-2.0
/*
 * The filter of the guest suites' filtered views (tests/guest/hfilter_view.c):
 * a fuse_ops map whose 31 members all run hf_run(), which a case steers per
 * opcode through the cfg map (what the prefilter and the postfilter return,
 * which in args it tries to rewrite) and which reports what it saw in the
 * pre_runs, post_runs, setarg_ret and note maps. Every operation has its
 * member, so that every one is filtered (and counted) as a case expects.
 *
 * The HF_* values and the NOTE_* slots are repeated in hfilter_view.h:
 * keep them in step.
 */
#include "fusebpf.h"

#define HF_MAX_OP	64

/* cfg flags */
#define HF_PRE_RET	1	/* the prefilter returns pre_ret, whatever it is */
#define HF_POST		2	/* ask for the postfilter, which returns post_ret */
#define HF_SETARG	4	/* rewrite in arg 0 (see setarg()); result in setarg_ret */
#define HF_ACCESS_DROP	8	/* access(2): remove MAY_EXEC from the ACCESS mask */
#define HF_LSEEK	16	/* LSEEK: 1000 becomes 5 (prefilter); 2000 gives -5000 (postfilter) */
#define HF_FALLOC	32	/* FALLOCATE: the length becomes 8192 */
#define HF_PER_UID	64	/* LOOKUP: "secret" is ENOENT but for uid 0; post_ret 1:
				 * the postfilter sets entry_valid 0 for it */
#define HF_UID		128	/* HF_PRE_RET only for the uid in pad */
#define HF_EXPIRE	256	/* LOOKUP: the postfilter sets entry_valid 0 (names expire at once) */
#define HF_POST_UID	512	/* LOOKUP: as HF_PER_UID, but the postfilter decides: "secret"
				 * is ENOENT but for uid 0, who gets entry_valid 0 */

/* note slots */
#define NOTE_NOT_BLOCK	0	/* ACCESS prefilters with MAY_NOT_BLOCK in the mask */
#define NOTE_ECHILD	1	/* postfilters that saw -ECHILD */
#define NOTE_WRITE_OFF	2	/* the last WRITE prefilter's offset */
#define NOTE_WRITE_SIZE	3	/* and its size */
#define NOTE_ACCESS	4	/* ACCESS prefilters */
#define NOTE_POST_ERR	5	/* the last postfilter's error_in */
#define NOTE_OPEN_FLAGS	6	/* the last OPEN prefilter's fuse_open_in.flags */
#define NOTE_MAX	8

#define MAY_EXEC	0x01
#define MAY_ACCESS	0x10
#define MAY_NOT_BLOCK	0x80
#define ECHILD		10
#define RENAME_EXCHANGE	2
#define SEEK_SET	0

struct hf_cfg {
	__u32 flags;
	__s32 pre_ret;
	__s32 post_ret;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, HF_MAX_OP);
	__type(key, __u32);
	__type(value, struct hf_cfg);
} cfg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, HF_MAX_OP);
	__type(key, __u32);
	__type(value, __u64);
} pre_runs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, HF_MAX_OP);
	__type(key, __u32);
	__type(value, __u64);
} post_runs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, HF_MAX_OP);
	__type(key, __u32);
	__type(value, __s64);
} setarg_ret SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, NOTE_MAX);
	__type(key, __u32);
	__type(value, __s64);
} note SEC(".maps");

static __always_inline void bump(void *map, __u32 key)
{
	__u64 *v = bpf_map_lookup_elem(map, &key);

	if (v)
		__sync_fetch_and_add(v, 1);
}

static __always_inline void put(void *map, __u32 key, __s64 val)
{
	bpf_map_update_elem(map, &key, &val, BPF_ANY);
}

union hf_in {
	struct fuse_mknod_in mknod;
	struct fuse_mkdir_in mkdir;
	struct fuse_rename2_in rename2;
	struct fuse_open_in open;
	struct fuse_write_in write;
	struct fuse_read_in read;
	struct fuse_setattr_in setattr;
};

/* Change one field of in arg 0 that the ABI says is read only. */
static __always_inline long setarg(struct fuse_bpf_ctx *ctx, __u32 op)
{
	union hf_in u = {};

	if (bpf_fuse_get_arg(ctx, FUSE_BPF_IN_ARG(0), &u, sizeof(u)) < 0)
		return -1000;
	switch (op) {
	case FUSE_MKNOD:
		u.mknod.mode = S_IFREG | 0600;
		return fusebpf_set(ctx, FUSE_BPF_IN_ARG(0), &u.mknod);
	case FUSE_MKDIR:
		u.mkdir.mode = 0777;
		return fusebpf_set(ctx, FUSE_BPF_IN_ARG(0), &u.mkdir);
	case FUSE_RENAME2:
		u.rename2.flags |= RENAME_EXCHANGE;
		return fusebpf_set(ctx, FUSE_BPF_IN_ARG(0), &u.rename2);
	case FUSE_OPEN:
		u.open.flags |= O_RDWR;
		return fusebpf_set(ctx, FUSE_BPF_IN_ARG(0), &u.open);
	case FUSE_WRITE:
		u.write.offset += 100;
		return fusebpf_set(ctx, FUSE_BPF_IN_ARG(0), &u.write);
	case FUSE_READ:
		u.read.size = 1;
		return fusebpf_set(ctx, FUSE_BPF_IN_ARG(0), &u.read);
	case FUSE_SETATTR:
		u.setattr.size = 1;
		return fusebpf_set(ctx, FUSE_BPF_IN_ARG(0), &u.setattr);
	default:
		return -1001;
	}
}

static __always_inline int access_drop(struct fuse_bpf_ctx *ctx)
{
	struct fuse_access_in ai;

	if (fusebpf_get(ctx, FUSE_BPF_IN_ARG(0), &ai) < 0)
		return -EIO;
	if (!(ai.mask & MAY_ACCESS))
		return FUSE_BPF_BACKING;
	ai.mask &= ~MAY_EXEC;
	put(&setarg_ret, FUSE_ACCESS, fusebpf_set(ctx, FUSE_BPF_IN_ARG(0), &ai));
	return FUSE_BPF_BACKING;
}

static __always_inline void lseek_pre(struct fuse_bpf_ctx *ctx)
{
	struct fuse_lseek_in li;

	if (fusebpf_get(ctx, FUSE_BPF_IN_ARG(0), &li) < 0)
		return;
	if (li.whence != SEEK_SET || li.offset != 1000)
		return;
	li.offset = 5;
	put(&setarg_ret, FUSE_LSEEK, fusebpf_set(ctx, FUSE_BPF_IN_ARG(0), &li));
}

static __always_inline int lseek_post(struct fuse_bpf_ctx *ctx)
{
	struct fuse_lseek_out lo;

	if (fusebpf_get(ctx, FUSE_BPF_OUT_ARG(0), &lo) < 0)
		return 0;
	if (lo.offset == 2000) {
		lo.offset = -5000;
		fusebpf_set(ctx, FUSE_BPF_OUT_ARG(0), &lo);
	}
	return 0;
}

static __always_inline void falloc_pre(struct fuse_bpf_ctx *ctx)
{
	struct fuse_fallocate_in fi;

	if (fusebpf_get(ctx, FUSE_BPF_IN_ARG(0), &fi) < 0)
		return;
	fi.length = 8192;
	put(&setarg_ret, FUSE_FALLOCATE, fusebpf_set(ctx, FUSE_BPF_IN_ARG(0), &fi));
}

/* HF_PER_UID: a name only root may see. */
static __always_inline int per_uid_pre(struct fuse_bpf_ctx *ctx)
{
	struct fusebpf_name n;

	if (fusebpf_get_name(ctx, FUSE_BPF_IN_ARG(0), &n) < 0 || !fusebpf_name_eq(&n, "secret"))
		return FUSE_BPF_BACKING;
	if ((__u32)bpf_get_current_uid_gid())
		return -ENOENT;
	return FUSE_BPF_BACKING | FUSE_BPF_POST_FILTER;
}

static __always_inline int per_uid_post(struct fuse_bpf_ctx *ctx, struct hf_cfg *c)
{
	struct fuse_entry_out eo;

	if (c->post_ret != 1 || fusebpf_error_in(ctx) ||
	    fusebpf_get(ctx, FUSE_BPF_OUT_ARG(0), &eo) < 0)
		return 0;
	eo.entry_valid = 0;
	eo.entry_valid_nsec = 0;
	put(&setarg_ret, FUSE_LOOKUP, fusebpf_set(ctx, FUSE_BPF_OUT_ARG(0), &eo));
	return 0;
}

/* HF_POST_UID: is LOOKUP's name "secret"? */
static __always_inline bool post_uid_name(struct fuse_bpf_ctx *ctx)
{
	struct fusebpf_name n;

	return fusebpf_get_name(ctx, FUSE_BPF_IN_ARG(0), &n) >= 0 && fusebpf_name_eq(&n, "secret");
}

/* HF_POST_UID: the verdict about "secret" is the postfilter's, which sees the entry. */
static __always_inline int post_uid_post(struct fuse_bpf_ctx *ctx)
{
	struct fuse_entry_out eo;

	if (fusebpf_error_in(ctx) || !post_uid_name(ctx))
		return 0;
	if ((__u32)bpf_get_current_uid_gid())
		return -ENOENT;
	if (fusebpf_get(ctx, FUSE_BPF_OUT_ARG(0), &eo) < 0)
		return 0;
	eo.entry_valid = 0;
	eo.entry_valid_nsec = 0;
	fusebpf_set(ctx, FUSE_BPF_OUT_ARG(0), &eo);
	return 0;
}

/* HF_EXPIRE: the name's dentry expires at once. */
static __always_inline int expire_post(struct fuse_bpf_ctx *ctx)
{
	struct fuse_entry_out eo;

	if (fusebpf_get(ctx, FUSE_BPF_OUT_ARG(0), &eo) < 0)
		return 0;
	eo.entry_valid = 0;
	eo.entry_valid_nsec = 0;
	fusebpf_set(ctx, FUSE_BPF_OUT_ARG(0), &eo);
	return 0;
}

/* What the prefilter saw, whatever it then returns. */
static __always_inline void observe_pre(struct fuse_bpf_ctx *ctx, __u32 op)
{
	struct fuse_access_in ai;
	struct fuse_write_in wi;
	struct fuse_open_in oi;

	bump(&pre_runs, op);
	if (op == FUSE_ACCESS && fusebpf_get(ctx, FUSE_BPF_IN_ARG(0), &ai) >= 0) {
		bump(&note, NOTE_ACCESS);
		if (ai.mask & MAY_NOT_BLOCK)
			bump(&note, NOTE_NOT_BLOCK);
	}
	if (op == FUSE_WRITE && fusebpf_get(ctx, FUSE_BPF_IN_ARG(0), &wi) >= 0) {
		put(&note, NOTE_WRITE_OFF, wi.offset);
		put(&note, NOTE_WRITE_SIZE, wi.size);
	}
	if (op == FUSE_OPEN && fusebpf_get(ctx, FUSE_BPF_IN_ARG(0), &oi) >= 0)
		put(&note, NOTE_OPEN_FLAGS, oi.flags);
}

static __always_inline int pre(struct fuse_bpf_ctx *ctx, __u32 op, struct hf_cfg *c)
{
	observe_pre(ctx, op);
	if (!c)
		return FUSE_BPF_BACKING;
	if (c->flags & HF_SETARG)
		put(&setarg_ret, op, setarg(ctx, op));
	if ((c->flags & HF_ACCESS_DROP) && op == FUSE_ACCESS)
		return access_drop(ctx);
	if ((c->flags & HF_LSEEK) && op == FUSE_LSEEK)
		lseek_pre(ctx);
	if ((c->flags & HF_FALLOC) && op == FUSE_FALLOCATE)
		falloc_pre(ctx);
	if ((c->flags & HF_PER_UID) && op == FUSE_LOOKUP)
		return per_uid_pre(ctx);
	if ((c->flags & HF_POST_UID) && op == FUSE_LOOKUP)
		return FUSE_BPF_BACKING | (post_uid_name(ctx) ? FUSE_BPF_POST_FILTER : 0);
	if ((c->flags & HF_PRE_RET) &&
	    (!(c->flags & HF_UID) || (__u32)bpf_get_current_uid_gid() == c->pad))
		return c->pre_ret;
	if ((c->flags & HF_EXPIRE) && op == FUSE_LOOKUP)
		return FUSE_BPF_BACKING | FUSE_BPF_POST_FILTER;
	if (c->flags & (HF_POST | HF_LSEEK))
		return FUSE_BPF_BACKING | FUSE_BPF_POST_FILTER;
	return FUSE_BPF_BACKING;
}

static __always_inline int post(struct fuse_bpf_ctx *ctx, __u32 op, struct hf_cfg *c)
{
	int err = fusebpf_error_in(ctx);

	bump(&post_runs, op);
	put(&note, NOTE_POST_ERR, err);
	if (err == -ECHILD)
		bump(&note, NOTE_ECHILD);
	if (!c)
		return 0;
	if ((c->flags & HF_LSEEK) && op == FUSE_LSEEK && !err)
		return lseek_post(ctx);
	if ((c->flags & HF_PER_UID) && op == FUSE_LOOKUP)
		return per_uid_post(ctx, c);
	if ((c->flags & HF_POST_UID) && op == FUSE_LOOKUP)
		return post_uid_post(ctx);
	if ((c->flags & HF_EXPIRE) && op == FUSE_LOOKUP && !err)
		return expire_post(ctx);
	return c->flags & HF_POST ? c->post_ret : 0;
}

static __always_inline int hf_run(struct fuse_bpf_ctx *ctx, __u32 op)
{
	struct hf_cfg *c;

	if (op == FUSE_READDIR && fusebpf_is_entry(ctx))
		return 0;
	if (op >= HF_MAX_OP)
		op = 0;
	c = bpf_map_lookup_elem(&cfg, &op);
	if (c && !c->flags)
		c = NULL;
	if (fusebpf_is_post(ctx))
		return post(ctx, op, c);
	return pre(ctx, op, c);
}

FUSEBPF_ALL_OPS_OPCODE(hf, hf_run)

SEC(".struct_ops")
struct fuse_ops hf = { FUSEBPF_ALL_MEMBERS(hf) };

char LICENSE[] SEC("license") = "GPL";
