/* SPDX-License-Identifier: GPL-2.0 */
/*
 * denywrite.bpf.h - the denywrite policy: a read-only view.
 *
 * Every mutating op fails with fusebpf_config.deny_errno (EROFS by default;
 * EACCES and EPERM are the usual alternatives) before the backing file is
 * touched: WRITE, CREATE, MKNOD, MKDIR, UNLINK, RMDIR, RENAME, RENAME2,
 * LINK, SYMLINK, SETATTR, SETXATTR, REMOVEXATTR, FALLOCATE,
 * COPY_FILE_RANGE, TMPFILE, and OPEN for writing or with O_TRUNC.
 *
 * deny_allow lists names that ops naming an entry may use (both names of
 * a rename). Ops on an open file carry no name: they are allowed only on a
 * file created through an allowed name, whose file handle the CREATE
 * postfilter tags with FUSEBPF_FH_ALLOWED (WRITE, FALLOCATE,
 * COPY_FILE_RANGE into it; SETATTR would need the handle, which fuse-bpf
 * does not pass yet). Opening an existing file for
 * writing is always denied.
 *
 * Callers whose uid or gid fusebpf_except lists for denywrite may write;
 * each refusal is reported (events.h). In audit mode (FUSEBPF_CFG_AUDIT)
 * nothing is refused: what would have been is counted and reported.
 */
#ifndef FUSEBPF_DENYWRITE_BPF_H
#define FUSEBPF_DENYWRITE_BPF_H

#include "events.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FUSEBPF_DENY_ALLOW_MAX);
	__type(key, struct fusebpf_sname);
	__type(value, __u32);
} deny_allow SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FUSEBPF_DENY_ALLOW_MAX);
	__type(key, struct fusebpf_name);
	__type(value, __u32);
} deny_allow_long SEC(".maps");

/*
 * A refusal, unless the caller is excepted (then 0: go on). In audit mode
 * the refusal is counted and reported as one that would have been, and the
 * op goes on.
 */
static __always_inline int deny_verdict(struct fuse_bpf_ctx *ctx, __u32 op)
{
	struct fusebpf_config cfg = fusebpf_cfg();
	int name_arg = fusebpf_entry_name_arg(op);
	long err = cfg.deny_errno;

	if (fusebpf_excepted(FUSEBPF_POLICY_DENYWRITE))
		return 0;
	err = err > 0 && err < 4096 ? err : EROFS;
	if (cfg.flags & FUSEBPF_CFG_AUDIT) {
		fusebpf_count(ctx, would_deny);
		fusebpf_report(ctx, FUSEBPF_EV(DENYWRITE, WOULD_DENY), err, name_arg);
		return 0;
	}
	fusebpf_count(ctx, denied);
	fusebpf_report(ctx, FUSEBPF_EV(DENYWRITE, DENIED), err, name_arg);
	return -err;
}

static __always_inline bool deny_name_allowed(struct fuse_bpf_ctx *ctx, int arg)
{
	struct fusebpf_name n;
	long len = fusebpf_get_name(ctx, FUSE_BPF_IN_ARG(arg), &n);

	if (len <= 0)
		return false;
	return fusebpf_name_lookup(&deny_allow, &deny_allow_long, &n, len) != NULL;
}

static __always_inline bool deny_fh_allowed(__u64 fh)
{
	return fh == FUSEBPF_FH_ALLOWED;
}

/*
 * Prefilter of op: 0 (go on), BACKING|POST_FILTER (tag a created file) or
 * -errno. Called with op a constant (FUSEBPF_OP_OPCODE()), so that the
 * verifier walks that op's case only.
 */
static __noinline __attribute__((unused)) int deny_pre(struct fuse_bpf_ctx *ctx, __u32 op)
{
	switch (op) {
	case FUSE_OPEN: {
		struct fuse_open_in in;

		if (fusebpf_get(ctx, FUSE_BPF_IN_ARG(0), &in) < 0)
			return deny_verdict(ctx, op);
		if ((in.flags & O_ACCMODE) == O_RDONLY && !(in.flags & O_TRUNC))
			return 0;
		return deny_verdict(ctx, op);
	}
	case FUSE_WRITE: {
		struct fuse_write_in in;

		if (fusebpf_get(ctx, FUSE_BPF_IN_ARG(0), &in) >= 0 && deny_fh_allowed(in.fh))
			return 0;
		return deny_verdict(ctx, op);
	}
	case FUSE_FALLOCATE: {
		struct fuse_fallocate_in in;

		if (fusebpf_get(ctx, FUSE_BPF_IN_ARG(0), &in) >= 0 && deny_fh_allowed(in.fh))
			return 0;
		return deny_verdict(ctx, op);
	}
	case FUSE_COPY_FILE_RANGE: {
		struct fuse_copy_file_range_in in;

		if (fusebpf_get(ctx, FUSE_BPF_IN_ARG(0), &in) >= 0 && deny_fh_allowed(in.fh_out))
			return 0;
		return deny_verdict(ctx, op);
	}
	case FUSE_SETATTR: {
		struct fuse_setattr_in in;

		if (fusebpf_get(ctx, FUSE_BPF_IN_ARG(0), &in) >= 0 && (in.valid & FATTR_FH) &&
		    deny_fh_allowed(in.fh))
			return 0;
		return deny_verdict(ctx, op);
	}
	case FUSE_SETXATTR:
	case FUSE_REMOVEXATTR:
	case FUSE_TMPFILE:
		return deny_verdict(ctx, op);
	case FUSE_CREATE:
		if (deny_name_allowed(ctx, 1))
			return FUSE_BPF_BACKING | FUSE_BPF_POST_FILTER;
		return deny_verdict(ctx, op);
	case FUSE_RENAME:
	case FUSE_RENAME2:
		if (deny_name_allowed(ctx, 1) && deny_name_allowed(ctx, 2))
			return 0;
		return deny_verdict(ctx, op);
	case FUSE_MKNOD:
	case FUSE_MKDIR:
	case FUSE_LINK:
	case FUSE_UNLINK:
	case FUSE_RMDIR:
	case FUSE_SYMLINK:
		if (deny_name_allowed(ctx, fusebpf_entry_name_arg(op)))
			return 0;
		return deny_verdict(ctx, op);
	default:
		return 0;
	}
}

/*
 * Postfilter: tag the handle of a file created through an allowed name.
 * The name is checked again: the policy may have changed since the
 * prefilter (denywrite switched on while the create ran, with the stats
 * postfilter asked for anyway), and an untagged file is only written
 * while writes are allowed.
 */
static __noinline __attribute__((unused)) int deny_post_create(struct fuse_bpf_ctx *ctx)
{
	struct fuse_open_out out;

	if (fusebpf_error_in(ctx) < 0)
		return 0;
	if (!deny_name_allowed(ctx, 1))
		return 0;
	if (fusebpf_get(ctx, FUSE_BPF_OUT_ARG(1), &out) < 0)
		return 0;
	out.fh = FUSEBPF_FH_ALLOWED;
	fusebpf_set(ctx, FUSE_BPF_OUT_ARG(1), &out);
	return 0;
}

/* Postfilter of op: only CREATE's does anything. */
static __always_inline int deny_post(struct fuse_bpf_ctx *ctx, __u32 op)
{
	return op == FUSE_CREATE ? deny_post_create(ctx) : 0;
}

#endif
