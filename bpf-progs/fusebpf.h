/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fusebpf.h - the API for fuse-bpf filter authors.
 *
 * A filter is a struct_ops map of struct fuse_ops: one member per FUSE
 * operation that it filters (lookup, getattr, ..., readdir; the kernel's
 * include/linux/fuse_bpf.h, and vmlinux.h here). An operation without a
 * member runs no program at all. A member is a BPF program that serves
 * every phase of its operation:
 *
 *   #include "fusebpf.h"
 *
 *   static __always_inline int hide_secret(struct fuse_bpf_ctx *ctx)
 *   {
 *           struct fusebpf_name n;
 *
 *           if (fusebpf_is_pre(ctx) &&
 *               fusebpf_get_name(ctx, FUSE_BPF_IN_ARG(0), &n) >= 0 &&
 *               fusebpf_name_eq(&n, "secret"))
 *                   return -ENOENT;
 *           return FUSE_BPF_BACKING;
 *   }
 *
 *   FUSEBPF_OP(myfilter, lookup, hide_secret)
 *
 *   SEC(".struct_ops")
 *   struct fuse_ops myfilter = {
 *           FUSEBPF_MEMBER(myfilter, lookup),
 *   };
 *   char LICENSE[] SEC("license") = "GPL";
 *
 * A member is run with ctx->opcode = opcode | FUSE_PREFILTER before the
 * operation is done on the backing file, with opcode | FUSE_POSTFILTER
 * after it (when the prefilter returned FUSE_BPF_POST_FILTER), and, for
 * READDIR, once per directory entry with FUSE_READDIR | FUSE_ENTRYFILTER.
 * See docs/filters.md.
 *
 * vmlinux.h (dumped from our kernel's BTF) gives the kernel's types: struct
 * fuse_ops, struct fuse_bpf_ctx, struct fuse_bpf_dirent, the fuse_*_in/out
 * structs and enum fuse_opcode (FUSE_LOOKUP...). It has no macros: they
 * are here.
 */
#ifndef FUSEBPF_H
#define FUSEBPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "fusebpf_maps.h"

/* ---- the ABI (include/uapi/linux/fuse.h of the series) -------------------- */

#define FUSE_OPCODE_MASK	0xffff
#define FUSE_PREFILTER		0x10000
#define FUSE_POSTFILTER		0x20000
#define FUSE_ENTRYFILTER	0x40000

/*
 * Return values. Prefilter: a negative errno fails the op without touching
 * the backing file; else a mask of USER_FILTER (the server decides),
 * BACKING (do the op on the backing file; 0 means the same) and
 * POST_FILTER (run the postfilter afterwards), and for READDIR
 * NO_ENTRY_FILTER (its entries go to the caller without an entry filter
 * run each: fusebpf_no_entries()). Postfilter: 0 keeps the
 * result, a negative errno replaces it, USER_FILTER hands it to the server.
 * Entry filter: 0 keeps the entry, DROP_ENTRY drops it, a negative errno
 * fails the READDIR. Anything else is EIO.
 */
#define FUSE_BPF_USER_FILTER	1
#define FUSE_BPF_BACKING	2
#define FUSE_BPF_POST_FILTER	4
#define FUSE_BPF_DROP_ENTRY	8
#define FUSE_BPF_NO_ENTRY_FILTER	16

/* Argument selectors for bpf_fuse_get_arg()/bpf_fuse_set_arg(). */
#define FUSE_BPF_IN_ARG(i)	(i)
#define FUSE_BPF_OUT_ARG(i)	(0x100 | (i))

/*
 * The kfuncs (fs/fuse/bpf.c). buf must be initialized memory (the
 * verifier's rule for kfunc buffers): fusebpf_get() and the name helpers
 * below zero theirs.
 *
 * Copy min(size, the arg's size) bytes of an arg into buf, zero the rest of
 * buf; returns the arg's size or -ENOENT (no such arg).
 */
extern int bpf_fuse_get_arg(struct fuse_bpf_ctx *ctx, __u32 which, void *buf,
			    __u32 buf__sz) __ksym;
/*
 * Overwrite the first size bytes of an arg: in args in a prefilter, out args
 * in a postfilter or entry filter; never names. 0, -EACCES, -E2BIG, -ENOENT.
 */
extern int bpf_fuse_set_arg(struct fuse_bpf_ctx *ctx, __u32 which,
			    const void *buf, __u32 buf__sz) __ksym;

/*
 * FUSEBPF_OP(map, member, fn): the program of one member of struct_ops map
 * `map`, named map_member, that returns fn(ctx). FUSEBPF_MEMBER(map,
 * member) names it in the map's initializer. (The program's own argument
 * is called fusebpf_ctx: BPF_PROG() keeps `ctx` for the raw arguments.)
 */
#define FUSEBPF_OP(map, member, fn)						\
	SEC("struct_ops/" #member)						\
	int BPF_PROG(map##_##member, struct fuse_bpf_ctx *fusebpf_ctx)		\
	{									\
		return fn(fusebpf_ctx);						\
	}
#define FUSEBPF_MEMBER(map, member)	.member = (void *)map##_##member

/*
 * FUSEBPF_POST_ONLY(member): its bit in struct fuse_ops' post_only, which
 * says that the member only looks at or rewrites the result: the kernel
 * runs it once, as the postfilter, and never as a prefilter (the op goes
 * to the backing file as if the prefilter had returned FUSE_BPF_BACKING |
 * FUSE_BPF_POST_FILTER). For example
 *	.post_only = FUSEBPF_POST_ONLY(getattr),
 * FUSEBPF_IS_POST_ONLY(mask, op): op's bit is in mask.
 */
#define FUSEBPF_POST_ONLY(member)	(1ULL << FUSEBPF_OPCODE_##member)
#define FUSEBPF_IS_POST_ONLY(mask, op)	(((mask) >> ((op) & 63)) & 1)

/*
 * FUSEBPF_OP_OPCODE(map, member, fn): the same program, returning fn(ctx,
 * opcode) with the member's FUSE opcode (FUSEBPF_OPCODE_<member>) as a
 * constant. The kernel runs a member only for its own operation, so a
 * function that serves several ops and switches on that argument is
 * compiled, and checked by the verifier, for one op per member: a filter
 * with many members loads in a fraction of the time. (fusebpf_op(ctx) is
 * read from the context, which the verifier knows nothing about.)
 */
#define FUSEBPF_OP_OPCODE(map, member, fn)					\
	SEC("struct_ops/" #member)						\
	int BPF_PROG(map##_##member, struct fuse_bpf_ctx *fusebpf_ctx)		\
	{									\
		return fn(fusebpf_ctx, FUSEBPF_OPCODE_##member);		\
	}
#define FUSEBPF_OPCODE_lookup	FUSE_LOOKUP
#define FUSEBPF_OPCODE_getattr	FUSE_GETATTR
#define FUSEBPF_OPCODE_setattr	FUSE_SETATTR
#define FUSEBPF_OPCODE_readlink	FUSE_READLINK
#define FUSEBPF_OPCODE_symlink	FUSE_SYMLINK
#define FUSEBPF_OPCODE_mknod	FUSE_MKNOD
#define FUSEBPF_OPCODE_mkdir	FUSE_MKDIR
#define FUSEBPF_OPCODE_unlink	FUSE_UNLINK
#define FUSEBPF_OPCODE_rmdir	FUSE_RMDIR
#define FUSEBPF_OPCODE_rename2	FUSE_RENAME2
#define FUSEBPF_OPCODE_link	FUSE_LINK
#define FUSEBPF_OPCODE_open	FUSE_OPEN
#define FUSEBPF_OPCODE_read	FUSE_READ
#define FUSEBPF_OPCODE_write	FUSE_WRITE
#define FUSEBPF_OPCODE_statfs	FUSE_STATFS
#define FUSEBPF_OPCODE_release	FUSE_RELEASE
#define FUSEBPF_OPCODE_fsync	FUSE_FSYNC
#define FUSEBPF_OPCODE_setxattr	FUSE_SETXATTR
#define FUSEBPF_OPCODE_getxattr	FUSE_GETXATTR
#define FUSEBPF_OPCODE_listxattr	FUSE_LISTXATTR
#define FUSEBPF_OPCODE_removexattr	FUSE_REMOVEXATTR
#define FUSEBPF_OPCODE_flush	FUSE_FLUSH
#define FUSEBPF_OPCODE_opendir	FUSE_OPENDIR
#define FUSEBPF_OPCODE_readdir	FUSE_READDIR
#define FUSEBPF_OPCODE_releasedir	FUSE_RELEASEDIR
#define FUSEBPF_OPCODE_fsyncdir	FUSE_FSYNCDIR
#define FUSEBPF_OPCODE_access	FUSE_ACCESS
#define FUSEBPF_OPCODE_create	FUSE_CREATE
#define FUSEBPF_OPCODE_fallocate	FUSE_FALLOCATE
#define FUSEBPF_OPCODE_lseek	FUSE_LSEEK
#define FUSEBPF_OPCODE_copy_file_range	FUSE_COPY_FILE_RANGE

/*
 * Every operation: the programs of map's 31 members, each returning fn(ctx)
 * (FUSEBPF_ALL_OPS), or fn(ctx, opcode) (FUSEBPF_ALL_OPS_OPCODE)
 */
#define FUSEBPF_ALL_OPS(map, fn)	FUSEBPF_ALL_OPS_WITH(FUSEBPF_OP, map, fn)
#define FUSEBPF_ALL_OPS_OPCODE(map, fn)	FUSEBPF_ALL_OPS_WITH(FUSEBPF_OP_OPCODE, map, fn)
#define FUSEBPF_ALL_OPS_WITH(OP, map, fn)						\
	OP(map, lookup, fn) OP(map, getattr, fn)		\
	OP(map, setattr, fn) OP(map, readlink, fn)		\
	OP(map, symlink, fn) OP(map, mknod, fn)			\
	OP(map, mkdir, fn) OP(map, unlink, fn)			\
	OP(map, rmdir, fn) OP(map, rename2, fn)			\
	OP(map, link, fn) OP(map, open, fn)			\
	OP(map, read, fn) OP(map, write, fn)			\
	OP(map, statfs, fn) OP(map, release, fn)		\
	OP(map, fsync, fn) OP(map, setxattr, fn)		\
	OP(map, getxattr, fn) OP(map, listxattr, fn)		\
	OP(map, removexattr, fn) OP(map, flush, fn)		\
	OP(map, opendir, fn) OP(map, readdir, fn)		\
	OP(map, releasedir, fn) OP(map, fsyncdir, fn)		\
	OP(map, access, fn) OP(map, create, fn)			\
	OP(map, fallocate, fn) OP(map, lseek, fn)		\
	OP(map, copy_file_range, fn)
/* ...and the initializer that names them all */
#define FUSEBPF_ALL_MEMBERS(map)						\
	FUSEBPF_MEMBER(map, lookup), FUSEBPF_MEMBER(map, getattr),		\
	FUSEBPF_MEMBER(map, setattr), FUSEBPF_MEMBER(map, readlink),		\
	FUSEBPF_MEMBER(map, symlink), FUSEBPF_MEMBER(map, mknod),		\
	FUSEBPF_MEMBER(map, mkdir), FUSEBPF_MEMBER(map, unlink),		\
	FUSEBPF_MEMBER(map, rmdir), FUSEBPF_MEMBER(map, rename2),		\
	FUSEBPF_MEMBER(map, link), FUSEBPF_MEMBER(map, open),			\
	FUSEBPF_MEMBER(map, read), FUSEBPF_MEMBER(map, write),			\
	FUSEBPF_MEMBER(map, statfs), FUSEBPF_MEMBER(map, release),		\
	FUSEBPF_MEMBER(map, fsync), FUSEBPF_MEMBER(map, setxattr),		\
	FUSEBPF_MEMBER(map, getxattr), FUSEBPF_MEMBER(map, listxattr),		\
	FUSEBPF_MEMBER(map, removexattr), FUSEBPF_MEMBER(map, flush),		\
	FUSEBPF_MEMBER(map, opendir), FUSEBPF_MEMBER(map, readdir),		\
	FUSEBPF_MEMBER(map, releasedir), FUSEBPF_MEMBER(map, fsyncdir),		\
	FUSEBPF_MEMBER(map, access), FUSEBPF_MEMBER(map, create),		\
	FUSEBPF_MEMBER(map, fallocate), FUSEBPF_MEMBER(map, lseek),		\
	FUSEBPF_MEMBER(map, copy_file_range)

/* ---- constants that vmlinux.h lacks ----------------------------------------- */

#ifndef EPERM
#define EPERM		1
#define ENOENT		2
#define EIO		5
#define E2BIG		7
#define EBADF		9
#define EACCES		13
#define EEXIST		17
#define EXDEV		18
#define ENOTDIR		20
#define EISDIR		21
#define EINVAL		22
#define EROFS		30
#define ENAMETOOLONG	36
#define ENOSYS		38
#define ENOTEMPTY	39
#endif

#ifndef O_ACCMODE
#define O_ACCMODE	00000003
#define O_RDONLY	00000000
#define O_WRONLY	00000001
#define O_RDWR		00000002
#define O_CREAT		00000100
#define O_EXCL		00000200
#define O_TRUNC		00001000
#define O_APPEND	00002000
#endif

#ifndef S_IFMT
#define S_IFMT		00170000
#define S_IFSOCK	0140000
#define S_IFLNK		0120000
#define S_IFREG		0100000
#define S_IFBLK		0060000
#define S_IFDIR		0040000
#define S_IFCHR		0020000
#define S_IFIFO		0010000
#define S_ISUID		0004000
#define S_ISGID		0002000
#define S_ISVTX		0001000
#endif
#define FUSEBPF_MODE_PERM	07777

#ifndef DT_UNKNOWN
#define DT_UNKNOWN	0
#define DT_FIFO		1
#define DT_CHR		2
#define DT_DIR		4
#define DT_BLK		6
#define DT_REG		8
#define DT_LNK		10
#define DT_SOCK		12
#endif

/* fuse_setattr_in.valid */
#ifndef FATTR_MODE
#define FATTR_MODE	(1 << 0)
#define FATTR_UID	(1 << 1)
#define FATTR_GID	(1 << 2)
#define FATTR_SIZE	(1 << 3)
#define FATTR_ATIME	(1 << 4)
#define FATTR_MTIME	(1 << 5)
#define FATTR_FH	(1 << 6)
#endif

/* ---- the context ------------------------------------------------------------ */

/*
 * Context fields are read through the kernel's BTF: vmlinux.h marks its
 * structs preserve_access_index, so each read carries a CO-RE relocation
 * and libbpf fixes its offset for the kernel the filter loads on.
 */
#define fusebpf_ctx_u32(ctx, field) ((__u32)(ctx)->field)

/* The opcode with the filter bits (FUSE_PREFILTER...). */
static __always_inline __u32 fusebpf_opcode(const struct fuse_bpf_ctx *ctx)
{
	return fusebpf_ctx_u32(ctx, opcode);
}

/* Postfilter: the result of the operation, 0 or a negative errno. */
static __always_inline int fusebpf_error_in(const struct fuse_bpf_ctx *ctx)
{
	return (int)fusebpf_ctx_u32(ctx, error_in);
}

/* The base FUSE opcode (FUSE_LOOKUP, ...) without the filter bits. */
static __always_inline __u32 fusebpf_op(const struct fuse_bpf_ctx *ctx)
{
	return fusebpf_opcode(ctx) & FUSE_OPCODE_MASK;
}

/*
 * A prefilter verdict, and for a READDIR one that needs no entry filter:
 * the kernel then runs no program per entry of the page (the READDIR
 * prefilter's FUSE_BPF_NO_ENTRY_FILTER bit). For a filter that does not
 * look at names; errnos pass unchanged.
 */
static __always_inline int fusebpf_no_entries(const struct fuse_bpf_ctx *ctx, int verdict)
{
	if (verdict < 0 || (verdict & FUSE_BPF_USER_FILTER) ||
	    fusebpf_op(ctx) != FUSE_READDIR)
		return verdict;
	return verdict | FUSE_BPF_NO_ENTRY_FILTER;
}

static __always_inline bool fusebpf_is_pre(const struct fuse_bpf_ctx *ctx)
{
	return fusebpf_opcode(ctx) & FUSE_PREFILTER;
}

static __always_inline bool fusebpf_is_post(const struct fuse_bpf_ctx *ctx)
{
	return fusebpf_opcode(ctx) & FUSE_POSTFILTER;
}

static __always_inline bool fusebpf_is_entry(const struct fuse_bpf_ctx *ctx)
{
	return fusebpf_opcode(ctx) & FUSE_ENTRYFILTER;
}

/*
 * Read a fixed-size arg into *ptr (e.g. struct fuse_open_in): returns the
 * arg's size, or a negative errno. *ptr is zero where the arg is shorter.
 */
#define fusebpf_get(ctx, arg, ptr) bpf_fuse_get_arg(ctx, arg, ptr, sizeof(*(ptr)))
/* Write *ptr back over the arg (after changing it). */
#define fusebpf_set(ctx, arg, ptr) bpf_fuse_set_arg(ctx, arg, ptr, sizeof(*(ptr)))

/* ---- names ------------------------------------------------------------------ */

/*
 * Most names are short (FUSEBPF_NAME_SHORT, fusebpf_maps.h): they are
 * copied into the first FUSEBPF_NAME_SHORT bytes and the rest is zeroed
 * here, with a few stores, rather than by the helper's memset of the whole
 * buffer; a longer name is copied again whole.
 */

/*
 * Copy a name arg to n (usually on the stack: the kernel's args cannot be
 * indexed directly), NUL-terminated and zero-filled so that n is a ready
 * hash key for the name maps. Returns the name's length (without the NUL),
 * or a negative errno: -ENAMETOOLONG when it does not fit (such a name then
 * matches nothing), -ENOENT when the op has no such arg.
 */
static __always_inline long fusebpf_get_name(struct fuse_bpf_ctx *ctx, __u32 arg,
					     struct fusebpf_name *n)
{
	long size = bpf_fuse_get_arg(ctx, arg, n->name, FUSEBPF_NAME_SHORT);

	if (size > FUSEBPF_NAME_SHORT)
		size = bpf_fuse_get_arg(ctx, arg, n->name, sizeof(n->name));
	else
		__builtin_memset(n->name + FUSEBPF_NAME_SHORT, 0,
				 sizeof(n->name) - FUSEBPF_NAME_SHORT);
	if (size < 0)
		return size;
	if (size > (long)sizeof(n->name))
		return -ENAMETOOLONG;
	n->name[sizeof(n->name) - 1] = 0;
	/* The arg is the name and its NUL; be robust to one without the NUL. */
	if (size > 0 && n->name[(size - 1) & (FUSEBPF_NAME_MAX - 1)] == 0)
		size--;
	return size;
}

/*
 * Look the name n (of length len, from fusebpf_get_name()) up in a
 * name-keyed policy: a short name in map (keyed by its first
 * FUSEBPF_NAME_SHORT bytes), a longer one in long_map. Returns the value or
 * NULL.
 */
#define fusebpf_name_lookup(map, long_map, n, len)                                \
	((len) < FUSEBPF_NAME_SHORT ? bpf_map_lookup_elem(map, (n)->name) :       \
				      bpf_map_lookup_elem(long_map, (n)->name))

static __always_inline bool __fusebpf_bytes_eq(const char *a, const char *b, int size)
{
	bool eq = true;

#pragma clang loop unroll(full)
	for (int i = 0; i < size; i++)
		eq &= a[i] == b[i];
	return eq;
}

/* n equals the string literal s ("secret"). */
#define fusebpf_name_eq(n, s)                                                     \
	(sizeof(s) <= FUSEBPF_NAME_MAX && __fusebpf_bytes_eq((n)->name, s, sizeof(s)))

/* n starts with the string literal s (".git"). */
#define fusebpf_name_starts(n, s)                                                 \
	(sizeof(s) <= FUSEBPF_NAME_MAX && __fusebpf_bytes_eq((n)->name, s, sizeof(s) - 1))

/* "." or "..": never hidden, never subject to name policy. */
static __always_inline bool fusebpf_name_is_dots(const struct fusebpf_name *n, long len)
{
	return n->name[0] == '.' && (len == 1 || (len == 2 && n->name[1] == '.'));
}

/* The name (length len) starts with pat[0..plen). pat may be a map value. */
static __always_inline bool fusebpf_has_prefix(const struct fusebpf_name *n, long len,
					       const char *pat, __u32 plen)
{
	if (plen > FUSEBPF_PATTERN_MAX - 1 || plen > len)
		return false;
	for (int i = 0; i < FUSEBPF_PATTERN_MAX - 1; i++) {
		if (i >= plen)
			break;
		if (n->name[i] != pat[i])
			return false;
	}
	return true;
}

/* The name (length len) ends with pat[0..plen). */
static __always_inline bool fusebpf_has_suffix(const struct fusebpf_name *n, long len,
					       const char *pat, __u32 plen)
{
	__u32 off;

	if (plen > FUSEBPF_PATTERN_MAX - 1 || plen > len || len >= FUSEBPF_NAME_MAX)
		return false;
	off = len - plen;
	for (int i = 0; i < FUSEBPF_PATTERN_MAX - 1; i++) {
		if (i >= plen)
			break;
		if (n->name[(off + i) & (FUSEBPF_NAME_MAX - 1)] != pat[i])
			return false;
	}
	return true;
}

/*
 * Glob matching ('*' any run, '?' any one byte, everything else literal)
 * of a whole name, as a bpf_loop() state machine (the classic one-star
 * backtracking algorithm): the verifier checks one step instead of
 * (name length x pattern length) of them.
 */
struct fusebpf_glob {
	const char *name;
	const char *pat;
	__s32 nlen, plen;
	__s32 i, j, star, mark;
	int matched;
};

static long fusebpf_glob_step(__u32 index, void *data)
{
	struct fusebpf_glob *g = data;
	__s32 i = g->i, j = g->j;
	char pc = 0, nc;

	(void)index;
	if (i >= g->nlen) {
		/* Name consumed: only stars may remain. */
		if (j < g->plen && j >= 0 && g->pat[j & (FUSEBPF_PATTERN_MAX - 1)] == '*') {
			g->j = j + 1;
			return 0;
		}
		g->matched = j >= g->plen;
		return 1;
	}
	if (i < 0)
		return 1;
	nc = g->name[i & (FUSEBPF_NAME_MAX - 1)];
	if (j >= 0 && j < g->plen)
		pc = g->pat[j & (FUSEBPF_PATTERN_MAX - 1)];
	if (j < g->plen && pc == '*') {
		g->star = j;
		g->mark = i;
		g->j = j + 1;
	} else if (j < g->plen && (pc == '?' || pc == nc)) {
		g->i = i + 1;
		g->j = j + 1;
	} else if (g->star >= 0) {
		g->j = g->star + 1;
		g->mark++;
		g->i = g->mark;
	} else {
		return 1;	/* no match */
	}
	return 0;
}

/*
 * A quick no before the state machine: a pattern that does not start (end)
 * with '*' or '?' only matches a name that starts (ends) with its first
 * (last) byte. Most names fail here, so most globs cost two compares.
 */
static __always_inline bool fusebpf_glob_ends_match(const struct fusebpf_name *n, long len,
						    const char *pat, __u32 plen)
{
	char first, last;

	if (!plen || !len)
		return true;
	first = pat[0];
	last = pat[(plen - 1) & (FUSEBPF_PATTERN_MAX - 1)];
	if (first != '*' && first != '?' && first != n->name[0])
		return false;
	return last == '*' || last == '?' ||
	       last == n->name[(len - 1) & (FUSEBPF_NAME_MAX - 1)];
}

static __always_inline bool fusebpf_glob_match(const struct fusebpf_name *n, long len,
					       const char *pat, __u32 plen)
{
	struct fusebpf_glob g = {
		.name = n->name, .pat = pat, .nlen = len, .plen = plen, .star = -1,
	};

	if (len < 0 || len >= FUSEBPF_NAME_MAX || plen > FUSEBPF_PATTERN_MAX - 1)
		return false;
	if (!fusebpf_glob_ends_match(n, len, pat, plen))
		return false;
	/* Steps: at most (plen + 1) per name byte, and plen at the end. */
	bpf_loop((len + 1) * (plen + 1) + plen + 1, fusebpf_glob_step, &g, 0);
	return g.matched;
}

/* A pattern slot of hide_patterns (or any map holding struct fusebpf_pattern). */
static __always_inline bool fusebpf_pattern_match(const struct fusebpf_name *n, long len,
						  const struct fusebpf_pattern *p)
{
	switch (p->kind) {
	case FUSEBPF_PAT_PREFIX:
		return fusebpf_has_prefix(n, len, p->pat, p->len);
	case FUSEBPF_PAT_SUFFIX:
		return fusebpf_has_suffix(n, len, p->pat, p->len);
	case FUSEBPF_PAT_GLOB:
		return fusebpf_glob_match(n, len, p->pat, p->len);
	default:
		return false;
	}
}

/*
 * The in arg that holds the directory entry name an op looks up, creates or
 * removes (for RENAME/RENAME2: the new name; the old one is in arg 1), or
 * -1 for ops that name no entry. SETXATTR/REMOVEXATTR names are xattr
 * names, not entries.
 */
static __always_inline int fusebpf_entry_name_arg(__u32 op)
{
	switch (op) {
	case FUSE_LOOKUP:
	case FUSE_UNLINK:
	case FUSE_RMDIR:
	case FUSE_SYMLINK:	/* in 0 the new name, in 1 the link target */
		return 0;
	case FUSE_CREATE:
	case FUSE_MKNOD:
	case FUSE_MKDIR:
	case FUSE_LINK:
		return 1;
	case FUSE_RENAME:
	case FUSE_RENAME2:
		return 2;
	default:
		return -1;
	}
}

/* ---- the shared config ---------------------------------------------------- */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fusebpf_config);
} fusebpf_config SEC(".maps");

/* A copy of the config (all zero, the defaults, if it could not be read). */
static __always_inline struct fusebpf_config fusebpf_cfg(void)
{
	struct fusebpf_config none = {};
	__u32 zero = 0;
	struct fusebpf_config *c = bpf_map_lookup_elem(&fusebpf_config, &zero);

	return c ? *c : none;
}

#endif /* FUSEBPF_H */
