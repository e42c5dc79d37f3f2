// SPDX-License-Identifier: GPL-2.0
/*
 * Filters that exercise the kernel's fuse-bpf BPF ABI (tests/guest/bpf.c):
 * each program is attached to a mount or a node by the test, and counts its
 * prefilter runs per opcode in op_count.
 */
#include "fusebpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u64);
} op_count SEC(".maps");

/* Entry-filter runs and postfilters seen, in slots 0 and 1 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __s64);
} seen SEC(".maps");

static __always_inline void count(struct fuse_bpf_ctx *ctx)
{
	__u32 op = fusebpf_op(ctx);
	__u64 *v;

	if (!fusebpf_is_pre(ctx))
		return;
	if (op >= 64)
		op = 0;
	v = bpf_map_lookup_elem(&op_count, &op);
	if (v)
		*v += 1;
}

/*
 * "Go on": the backing operation for a prefilter or postfilter, keep the
 * entry (0) for an entry filter, to which any other value is invalid.
 */
static __always_inline int pass(struct fuse_bpf_ctx *ctx)
{
	return fusebpf_is_entry(ctx) ? 0 : FUSE_BPF_BACKING;
}

static __always_inline void note(__u32 slot, __s64 val)
{
	bpf_map_update_elem(&seen, &slot, &val, BPF_ANY);
}

/* Counts every operation and changes nothing. */
static __always_inline int count_only_fn(struct fuse_bpf_ctx *ctx)
{
	count(ctx);
	return pass(ctx);
}

/* A LOOKUP prefilter of "secret"? */
static __noinline bool lookup_of_secret(struct fuse_bpf_ctx *ctx)
{
	struct fusebpf_name n;
	long len;

	if (fusebpf_op(ctx) != FUSE_LOOKUP || !fusebpf_is_pre(ctx))
		return false;
	len = fusebpf_get_name(ctx, FUSE_BPF_IN_ARG(0), &n);
	return len >= 0 && fusebpf_name_eq(&n, "secret");
}

/* "secret" is absent from LOOKUP and READDIR. */
static __always_inline int hide_secret_fn(struct fuse_bpf_ctx *ctx)
{
	struct fusebpf_name n;
	long len;

	count(ctx);
	if (lookup_of_secret(ctx))
		return -ENOENT;
	if (fusebpf_is_entry(ctx)) {
		len = fusebpf_get_name(ctx, FUSE_BPF_IN_ARG(0), &n);
		if (len >= 0 && fusebpf_name_eq(&n, "secret"))
			return FUSE_BPF_DROP_ENTRY;
	}
	return pass(ctx);
}

/*
 * hide_secret, but READDIR's prefilter says its entries need no entry
 * filter (FUSE_BPF_NO_ENTRY_FILTER): "secret" stays listed, and slot 2
 * counts the entry filter runs, which must be none.
 */
static __always_inline int hide_secret_no_entries_fn(struct fuse_bpf_ctx *ctx)
{
	__u32 slot = 2;
	__s64 *runs;

	if (fusebpf_is_entry(ctx)) {
		runs = bpf_map_lookup_elem(&seen, &slot);
		if (runs)
			__sync_fetch_and_add(runs, 1);
		return FUSE_BPF_DROP_ENTRY;
	}
	if (fusebpf_op(ctx) == FUSE_READDIR && fusebpf_is_pre(ctx))
		return FUSE_BPF_BACKING | FUSE_BPF_NO_ENTRY_FILTER;
	return lookup_of_secret(ctx) ? -ENOENT : pass(ctx);
}

/* LOOKUP and GETATTR results: mode 0640 (type kept), uid 1234, gid 5678. */
static __always_inline void rewrite(struct fuse_attr *a)
{
	a->mode = (a->mode & S_IFMT) | 0640;
	a->uid = 1234;
	a->gid = 5678;
}

static __always_inline int rewrite_attrs_fn(struct fuse_bpf_ctx *ctx)
{
	__u32 op = fusebpf_op(ctx);

	count(ctx);
	if (op != FUSE_LOOKUP && op != FUSE_GETATTR)
		return pass(ctx);
	if (fusebpf_is_pre(ctx))
		return FUSE_BPF_BACKING | FUSE_BPF_POST_FILTER;
	if (ctx->error_in)
		return 0;
	if (op == FUSE_LOOKUP) {
		struct fuse_entry_out e;

		if (fusebpf_get(ctx, FUSE_BPF_OUT_ARG(0), &e) < 0)
			return -EIO;
		rewrite(&e.attr);
		return fusebpf_set(ctx, FUSE_BPF_OUT_ARG(0), &e);
	} else {
		struct fuse_attr_out a;

		if (fusebpf_get(ctx, FUSE_BPF_OUT_ARG(0), &a) < 0)
			return -EIO;
		rewrite(&a.attr);
		return fusebpf_set(ctx, FUSE_BPF_OUT_ARG(0), &a);
	}
}

/* Every mutating operation fails with EROFS; reads work. */
static __always_inline int deny_writes_fn(struct fuse_bpf_ctx *ctx)
{
	struct fuse_open_in oi;

	count(ctx);
	if (!fusebpf_is_pre(ctx))
		return 0;
	switch (fusebpf_op(ctx)) {
	case FUSE_WRITE:
	case FUSE_CREATE:
	case FUSE_MKNOD:
	case FUSE_MKDIR:
	case FUSE_UNLINK:
	case FUSE_RMDIR:
	case FUSE_RENAME:
	case FUSE_RENAME2:
	case FUSE_LINK:
	case FUSE_SYMLINK:
	case FUSE_SETATTR:
	case FUSE_SETXATTR:
	case FUSE_REMOVEXATTR:
	case FUSE_FALLOCATE:
		return -EROFS;
	case FUSE_OPEN:
		if (fusebpf_get(ctx, FUSE_BPF_IN_ARG(0), &oi) < 0)
			return -EIO;
		if ((oi.flags & O_ACCMODE) != O_RDONLY || (oi.flags & O_TRUNC))
			return -EROFS;
		return pass(ctx);
	default:
		return pass(ctx);
	}
}

/*
 * Errors only the backing file system knows, rewritten to EPERM by the
 * postfilter: MKDIR's EEXIST for a name the LOOKUP prefilter hides (so the
 * VFS, which sees a negative dentry, lets the mkdir through), and RMDIR's
 * ENOTEMPTY.
 */
static __always_inline int errors_to_eperm_fn(struct fuse_bpf_ctx *ctx)
{
	__u32 op = fusebpf_op(ctx);
	struct fusebpf_name n;


	count(ctx);
	if (op == FUSE_LOOKUP && fusebpf_is_pre(ctx)) {
		long len = fusebpf_get_name(ctx, FUSE_BPF_IN_ARG(0), &n);

		if (len >= 0 && fusebpf_name_eq(&n, "taken"))
			return -ENOENT;
		return FUSE_BPF_BACKING;
	}
	if (op != FUSE_MKDIR && op != FUSE_RMDIR)
		return pass(ctx);
	if (fusebpf_is_pre(ctx))
		return FUSE_BPF_BACKING | FUSE_BPF_POST_FILTER;
	note(1, ctx->error_in);
	if ((op == FUSE_MKDIR && ctx->error_in == -EEXIST) ||
	    (op == FUSE_RMDIR && ctx->error_in == -ENOTEMPTY))
		return -EPERM;
	return 0;
}

/* READDIR's postfilter goes to the server, which edits the entries. */
static __always_inline int readdir_post_to_server_fn(struct fuse_bpf_ctx *ctx)
{
	count(ctx);
	if (fusebpf_op(ctx) != FUSE_READDIR || fusebpf_is_entry(ctx))
		return pass(ctx);
	if (fusebpf_is_pre(ctx))
		return FUSE_BPF_BACKING | FUSE_BPF_POST_FILTER;
	note(1, ctx->out_sizes[1]);
	return FUSE_BPF_USER_FILTER;
}

/* OPEN is decided by the FUSE server (a server prefilter). */
static __always_inline int open_to_server_fn(struct fuse_bpf_ctx *ctx)
{
	count(ctx);
	if (fusebpf_op(ctx) == FUSE_OPEN && fusebpf_is_pre(ctx))
		return FUSE_BPF_USER_FILTER;
	return pass(ctx);
}

/* GETATTR's postfilter goes to the server, which may change the result. */
static __always_inline int getattr_post_to_server_fn(struct fuse_bpf_ctx *ctx)
{
	count(ctx);
	if (fusebpf_op(ctx) != FUSE_GETATTR)
		return pass(ctx);
	if (fusebpf_is_pre(ctx))
		return FUSE_BPF_BACKING | FUSE_BPF_POST_FILTER;
	return FUSE_BPF_USER_FILTER;
}

/* Returns a value that means nothing: every operation fails with EIO. */
static __always_inline int bad_return_fn(struct fuse_bpf_ctx *ctx)
{
	if (fusebpf_op(ctx) == FUSE_GETATTR)
		return 77;
	return pass(ctx);
}

/* Writing an in arg that is a name, or an out arg in a prefilter, is refused. */
static __always_inline int bad_writes_fn(struct fuse_bpf_ctx *ctx)
{
	char name[8] = "XXXXXXX";
	struct fuse_entry_out e = {};

	if (fusebpf_op(ctx) == FUSE_LOOKUP && fusebpf_is_pre(ctx)) {
		note(2, bpf_fuse_set_arg(ctx, FUSE_BPF_IN_ARG(0), name, 2));
		note(3, bpf_fuse_set_arg(ctx, FUSE_BPF_OUT_ARG(0), &e, sizeof(e)));
	}
	return pass(ctx);
}

static __always_inline void bump(__u32 slot)
{
	__s64 *v = bpf_map_lookup_elem(&seen, &slot);

	if (v)
		__sync_fetch_and_add(v, 1);
}

/*
 * FUSE_BPF_NO_ENTRY_FILTER, with a postfilter, in every
 * prefilter verdict. Other operations ignore it; READDIR runs no entry
 * filter (slot 2 counts them: none) but still its postfilter (slot 3).
 * "secret" is hidden from LOOKUP only.
 */
static __always_inline int no_entries_everywhere_fn(struct fuse_bpf_ctx *ctx)
{
	if (fusebpf_is_entry(ctx)) {
		bump(2);
		return FUSE_BPF_DROP_ENTRY;
	}
	if (!fusebpf_is_pre(ctx)) {
		if (fusebpf_op(ctx) == FUSE_READDIR)
			bump(3);
		return 0;
	}
	if (lookup_of_secret(ctx))
		return -ENOENT;
	return FUSE_BPF_BACKING | FUSE_BPF_POST_FILTER | FUSE_BPF_NO_ENTRY_FILTER;
}

/* The bit with FUSE_BPF_USER_FILTER is refused (EIO) */
static __always_inline int no_entries_user_fn(struct fuse_bpf_ctx *ctx)
{
	if (fusebpf_op(ctx) == FUSE_READDIR && fusebpf_is_pre(ctx))
		return FUSE_BPF_USER_FILTER | FUSE_BPF_NO_ENTRY_FILTER;
	return pass(ctx);
}


/* Each filter a fuse_ops map whose every member runs the function above */
FUSEBPF_ALL_OPS(count_only, count_only_fn)
SEC(".struct_ops")
struct fuse_ops count_only = { FUSEBPF_ALL_MEMBERS(count_only) };

FUSEBPF_ALL_OPS(hide_secret, hide_secret_fn)
SEC(".struct_ops")
struct fuse_ops hide_secret = { FUSEBPF_ALL_MEMBERS(hide_secret) };

FUSEBPF_ALL_OPS(hide_secret_no_entries, hide_secret_no_entries_fn)
SEC(".struct_ops")
struct fuse_ops hide_secret_no_entries = { FUSEBPF_ALL_MEMBERS(hide_secret_no_entries) };

FUSEBPF_ALL_OPS(rewrite_attrs, rewrite_attrs_fn)
SEC(".struct_ops")
struct fuse_ops rewrite_attrs = { FUSEBPF_ALL_MEMBERS(rewrite_attrs) };

FUSEBPF_ALL_OPS(deny_writes, deny_writes_fn)
SEC(".struct_ops")
struct fuse_ops deny_writes = { FUSEBPF_ALL_MEMBERS(deny_writes) };

FUSEBPF_ALL_OPS(errors_to_eperm, errors_to_eperm_fn)
SEC(".struct_ops")
struct fuse_ops errors_to_eperm = { FUSEBPF_ALL_MEMBERS(errors_to_eperm) };

FUSEBPF_ALL_OPS(readdir_post_to_server, readdir_post_to_server_fn)
SEC(".struct_ops")
struct fuse_ops readdir_post_to_server = { FUSEBPF_ALL_MEMBERS(readdir_post_to_server) };

FUSEBPF_ALL_OPS(open_to_server, open_to_server_fn)
SEC(".struct_ops")
struct fuse_ops open_to_server = { FUSEBPF_ALL_MEMBERS(open_to_server) };

FUSEBPF_ALL_OPS(getattr_post_to_server, getattr_post_to_server_fn)
SEC(".struct_ops")
struct fuse_ops getattr_post_to_server = { FUSEBPF_ALL_MEMBERS(getattr_post_to_server) };

FUSEBPF_ALL_OPS(bad_return, bad_return_fn)
SEC(".struct_ops")
struct fuse_ops bad_return = { FUSEBPF_ALL_MEMBERS(bad_return) };

FUSEBPF_ALL_OPS(bad_writes, bad_writes_fn)
SEC(".struct_ops")
struct fuse_ops bad_writes = { FUSEBPF_ALL_MEMBERS(bad_writes) };

FUSEBPF_ALL_OPS(no_entries_everywhere, no_entries_everywhere_fn)
SEC(".struct_ops")
struct fuse_ops no_entries_everywhere = { FUSEBPF_ALL_MEMBERS(no_entries_everywhere) };

FUSEBPF_ALL_OPS(no_entries_user, no_entries_user_fn)
SEC(".struct_ops")
struct fuse_ops no_entries_user = { FUSEBPF_ALL_MEMBERS(no_entries_user) };

char LICENSE[] SEC("license") = "GPL";
