// SPDX-License-Identifier: GPL-2.0
/*
 * The hostile FUSE server of make fuzz. It answers LOOKUP with random
 * replies, well-formed and not: backing entries naming fds of every kind
 * (from the epoch's pool, or the same name in a backing file system), BPF
 * entries naming one of the epoch's filters (fuse_ops maps with random
 * members), a map that is not attached or no longer, a member's program, a
 * program of another type, a map or no fd at all, random entry counts, types, modes, sizes and node ids, through the
 * ioctl or through write(), with wrong lengths. Server filter requests get
 * their arguments echoed, changed or refused; other requests plausible or
 * broken answers. Some requests get an answer to a wrong unique first,
 * some are answered late, some never. The driver kills and restarts it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "fusebpf_uapi.h"
#include "fuzz.h"
#include "tfuse.h"

#ifndef FUSE_PREFILTER
#define FUSE_PREFILTER 0x10000
#define FUSE_POSTFILTER 0x20000
#endif
#define FZ_FILTER_BITS (FUSE_PREFILTER | FUSE_POSTFILTER | 0x40000)

#define FZ_DROPPED 16
#define FZ_REPLY_MAX 8192

struct srv {
	struct fz_epoch *e;
	struct fz_mount *m;
	struct fz_rng r;
	struct fz_ring *ring;
	int fd;
	uint64_t dropped[FZ_DROPPED];
	int ndropped;
	char out[FZ_REPLY_MAX];
};

/* --- sending -------------------------------------------------------------------------- */

/*
 * Send a reply of len payload bytes: through the ioctl or write(), with the
 * header's len changed by skew and the transport's length by cut (bad
 * replies). Returns 0 or -errno.
 */
static int srv_send(struct srv *s, uint64_t unique, int error, const void *data, size_t len,
		    bool ioctl_, int skew, int cut)
{
	struct fuse_out_header *oh = (struct fuse_out_header *)s->out;
	size_t total = sizeof(*oh) + len;
	long rc;

	if (total > sizeof(s->out))
		total = sizeof(s->out);
	if (data && total > sizeof(*oh))
		memmove(s->out + sizeof(*oh), data, total - sizeof(*oh));
	*oh = (struct fuse_out_header){ .len = total + skew, .error = error, .unique = unique };
	if (cut && (long)total + cut > 0 && (size_t)((long)total + cut) <= sizeof(s->out))
		total += cut;
	if (ioctl_)
		rc = ioctl(s->fd, FUSE_DEV_IOC_BPF_RESPONSE(total & 0x3fff), s->out);
	else
		rc = write(s->fd, s->out, total);
	rc = rc < 0 ? -errno : 0;
	fz_log(s->ring, "reply %llu err %d len %zu%s skew %d cut %d -> %ld",
	       (unsigned long long)unique, error, len, ioctl_ ? " ioctl" : "", skew, cut, rc);
	return rc;
}

static int srv_ok(struct srv *s, uint64_t unique, const void *data, size_t len)
{
	return srv_send(s, unique, 0, data, len, false, 0, 0);
}

static int srv_err(struct srv *s, uint64_t unique, int error)
{
	return srv_send(s, unique, error, NULL, 0, false, 0, 0);
}

static int srv_errno(struct fz_rng *r)
{
	static const int errs[] = { -ENOENT, -EIO, -EACCES, -EPERM, -EINVAL, -ENOMEM, -EINTR,
				    -ENOSPC, -EEXIST, -ENOTDIR, -EISDIR, -ENOSYS, -ELOOP,
				    -EOPNOTSUPP, -ENODATA, -E2BIG, -EXDEV, -ENAMETOOLONG };
	static const int bad[] = { 1, 2, 4, -512, -516, -529, -4095, -4096, -100000, 0x7fffffff,
				   (int)0x80000000 };

	return fz_chance(r, 85) ? FZ_PICK(r, errs) : FZ_PICK(r, bad);
}

/* A malformed reply: random bytes, lengths and header. */
static void srv_garbage(struct srv *s, uint64_t unique)
{
	char junk[256];
	size_t len = fz_below(&s->r, sizeof(junk));

	for (size_t i = 0; i < len; i++)
		junk[i] = (char)fz_next(&s->r);
	srv_send(s, fz_chance(&s->r, 80) ? unique : fz_next(&s->r), fz_chance(&s->r, 70) ? 0 : srv_errno(&s->r),
		 junk, len, fz_chance(&s->r, 50), (int)fz_below(&s->r, 64) - 32,
		 fz_chance(&s->r, 30) ? (int)fz_below(&s->r, 32) - 16 : 0);
}

/* --- LOOKUP ------------------------------------------------------------------------------ */

static uint32_t srv_random_mode(struct fz_rng *r)
{
	static const uint32_t types[] = { S_IFREG, S_IFDIR, S_IFLNK, S_IFIFO, S_IFSOCK, S_IFCHR,
					  S_IFBLK, 0, 0170000 };

	return FZ_PICK(r, types) | fz_below(r, 010000);
}

static uint64_t srv_nodeid(struct srv *s)
{
	static const uint64_t odd[] = { 0, 1, 0xffffffffffffffffULL, 0x7fffffffffffffffULL, 0x100000000ULL };

	if (fz_chance(&s->r, 100 - s->m->bad_pct / 2))
		return 2 + fz_below(&s->r, 40);
	return FZ_PICK(&s->r, odd);
}

/* Attributes that look like a node of mode (the server's own nodes). */
static void srv_attr(struct srv *s, struct fuse_attr *a, uint64_t nodeid, uint32_t mode)
{
	*a = (struct fuse_attr){
		.ino = nodeid,
		.mode = mode,
		.nlink = S_ISDIR(mode) ? 2 : 1,
		.size = fz_chance(&s->r, 80) ? fz_below(&s->r, 65536) : fz_next(&s->r),
		.blksize = fz_chance(&s->r, 90) ? 4096 : (uint32_t)fz_next(&s->r),
		.mtime = fz_below(&s->r, 2000000000),
		.mtimensec = fz_chance(&s->r, 90) ? 0 : (uint32_t)fz_next(&s->r),
	};
}

/* An fd of the same name in one of the backing file systems, or -1. */
static int srv_open_named(struct srv *s, const char *name)
{
	char path[160];
	static const int flags[] = { O_RDONLY, O_RDWR, O_PATH, O_PATH | O_NOFOLLOW, O_WRONLY,
				     O_RDONLY | O_DIRECTORY };
	uint32_t b = fz_below(&s->r, 100);
	/*
	 * The spare: a backing on another mount than every view's root
	 * (op_umount's target); worker 0's own names there (w0, wd) always,
	 * the others seldom (the files others hold open keep it busy)
	 */
	const char *base = name[0] == 'w' ? s->e->spare : b < 48 ? s->e->ext4 : b < 96 ? s->e->tmpfs : s->e->spare;
	int fd;

	if (strchr(name, '/') || !strcmp(name, "..") || strlen(name) > 64)
		return -1;
	snprintf(path, sizeof(path), "%s/%s", base, name);
	/*
	 * Never through a symlink: a worker's may point into this server's
	 * own mount, where the open would wait for this server's answer
	 */
	fd = open(path, FZ_PICK(&s->r, flags) | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	return fd;
}

/* The fd of a backing entry: a same-named file, a pool fd, or a bad number. */
static uint64_t srv_backing_fd(struct srv *s, const char *name, int *opened, const char **what)
{
	static const uint64_t odd[] = { (uint64_t)-1, 0x7fffffff, 0x80000000ULL, 99999, 0, 1, 2 };
	int pct = fz_below(&s->r, 100);

	*opened = -1;
	if (pct < 55) {
		*opened = srv_open_named(s, name);
		if (*opened >= 0) {
			*what = "named";
			return *opened;
		}
	}
	if (pct < 95 && s->e->npool) {
		struct fz_poolfd *p = &s->e->pool[fz_below(&s->r, s->e->npool)];

		*what = p->what;
		return p->fd;
	}
	*what = "odd";
	return FZ_PICK(&s->r, odd);
}

/*
 * The fd of a BPF entry: usually one of the epoch's filters (fuse_ops maps
 * with random members), else a map or program the kernel must refuse.
 */
static uint64_t srv_bpf_fd(struct srv *s, const char **what)
{
	static const char *const names[] = { "filter 0", "filter 1", "filter 2", "filter 3" };
	int pct = fz_below(&s->r, 100);
	struct fz_epoch *e = s->e;
	struct fz_poolfd *p;

	if (pct < 70 || !e->npool) {
		int i = fz_below(&s->r, e->nfilters);

		*what = names[i];
		return e->filter[i].fd;
	}
	if (pct < 73) {
		*what = "idle fuse_ops map";
		return e->idle_map_fd;
	}
	if (pct < 76) {
		*what = "detached fuse_ops map";
		return e->gone_map_fd;
	}
	if (pct < 78) {
		*what = "member program";
		return e->member_prog_fd;
	}
	if (pct < 80) {
		*what = "verdict map";
		return e->verdict_fd;
	}
	if (pct < 84) {
		*what = "no fd";
		return fz_chance(&s->r, 50) ? (uint64_t)-1 : 77777;
	}
	p = &e->pool[fz_below(&s->r, e->npool)];
	*what = p->what;
	return p->fd;
}

static uint32_t srv_entry_type(struct srv *s, bool bpf)
{
	static const uint32_t odd[] = { 0, 5, 6, 0xffffffff, 0x80000001 };

	if (fz_chance(&s->r, s->m->bad_pct / 3))
		return FZ_PICK(&s->r, odd);
	if (bpf)
		return fz_chance(&s->r, 80) ? FUSE_ENTRY_BPF : FUSE_ENTRY_REMOVE_BPF;
	return fz_chance(&s->r, 92) ? FUSE_ENTRY_BACKING : FUSE_ENTRY_REMOVE_BACKING;
}

/* Make a good fuse_entry_out a little or very wrong. */
static void srv_corrupt_entry(struct srv *s, struct fuse_entry_out *e)
{
	switch (fz_below(&s->r, 8)) {
	case 0:
		e->attr.mode = srv_random_mode(&s->r);
		break;
	case 1:
		e->attr.mode = 0;
		break;
	case 2:
		e->attr.size = fz_next(&s->r);
		break;
	case 3:
		e->nodeid = srv_nodeid(s);
		break;
	case 4:
		e->attr.ino = fz_next(&s->r);
		break;
	case 5:
		e->generation = fz_next(&s->r);
		e->entry_valid = fz_next(&s->r);
		e->attr_valid_nsec = (uint32_t)fz_next(&s->r);
		break;
	case 6:
		e->attr.nlink = (uint32_t)fz_next(&s->r);
		e->attr.blksize = (uint32_t)fz_next(&s->r);
		break;
	default:
		e->attr.mode ^= S_IFMT & (uint32_t)fz_next(&s->r);
		break;
	}
}

static int srv_nentries(struct srv *s)
{
	int p = fz_below(&s->r, 100);

	if (p < 50)
		return 1;
	if (p < 85)
		return 2;
	if (p < 95)
		return 0;
	return 3;
}

/* A reply with fuse-bpf entries, mostly through the ioctl. */
static void srv_lookup_backing(struct srv *s, uint64_t unique, const char *name)
{
	struct {
		struct fuse_entry_out e;
		struct fuse_bpf_entry_out b[3];
	} rep;
	const char *what0 = "-", *what1 = "-";
	int n = srv_nentries(s), opened = -1, rc;
	struct stat st;

	memset(&rep, 0, sizeof(rep));
	rep.e.nodeid = fz_chance(&s->r, 60) ? 0 : srv_nodeid(s);
	rep.e.generation = 1;
	rep.e.entry_valid = fz_below(&s->r, 3);
	rep.e.attr_valid = fz_below(&s->r, 3);
	for (int i = 0; i < n; i++) {
		bool bpf = i > 0 && fz_chance(&s->r, 85);

		rep.b[i].entry_type = srv_entry_type(s, bpf);
		if (rep.b[i].entry_type == FUSE_ENTRY_BPF)
			rep.b[i].fd = srv_bpf_fd(s, &what1);
		else if (rep.b[i].entry_type == FUSE_ENTRY_BACKING && opened < 0)
			rep.b[i].fd = srv_backing_fd(s, name, &opened, &what0);
		else if (rep.b[i].entry_type == FUSE_ENTRY_BACKING)
			rep.b[i].fd = s->e->pool[fz_below(&s->r, s->e->npool ? s->e->npool : 1)].fd;
		if (fz_chance(&s->r, s->m->bad_pct / 5))
			rep.b[i].unused = (uint32_t)fz_next(&s->r);
	}
	if (n && rep.b[0].entry_type == FUSE_ENTRY_BACKING && (int64_t)rep.b[0].fd >= 0 &&
	    rep.b[0].fd < 100000 && !fstat((int)rep.b[0].fd, &st))
		tfuse_attr_from_stat(&st, &rep.e.attr);
	else
		srv_attr(s, &rep.e.attr, 2, srv_random_mode(&s->r));
	if (fz_chance(&s->r, s->m->bad_pct))
		srv_corrupt_entry(s, &rep.e);
	fz_log(s->ring, "lookup %.30s: %d entries, fd %s, bpf %s, mode 0%o node %llu", name, n,
	       what0, what1, rep.e.attr.mode, (unsigned long long)rep.e.nodeid);
	rc = srv_send(s, unique, 0, &rep, sizeof(rep.e) + n * sizeof(rep.b[0]),
		      !fz_chance(&s->r, s->m->bad_pct / 4),
		      fz_chance(&s->r, s->m->bad_pct / 4) ? (int)fz_below(&s->r, 17) - 8 : 0,
		      fz_chance(&s->r, s->m->bad_pct / 4) ? (int)fz_below(&s->r, 17) - 8 : 0);
	/*
	 * A refused reply may have ended the request or not: answer again (an
	 * answer to an ended request is refused, ENOENT). Never answering is
	 * drop_pct's.
	 */
	if (rc)
		srv_err(s, unique, fz_chance(&s->r, 50) ? -ENOENT : -EIO);
	if (opened >= 0)
		close(opened);
}

static void srv_lookup(struct srv *s, struct tfuse_req *req)
{
	uint64_t unique = req->h->unique;
	const char *name = req->arglen ? (const char *)req->arg : "";
	int p = fz_below(&s->r, 100);

	if (p < 10) {
		srv_err(s, unique, fz_chance(&s->r, 80) ? -ENOENT : srv_errno(&s->r));
	} else if (p < 30) {
		struct fuse_entry_out e = { .nodeid = srv_nodeid(s), .generation = 1 };
		static const uint32_t modes[] = { S_IFDIR | 0755, S_IFREG | 0644, S_IFLNK | 0777 };

		srv_attr(s, &e.attr, e.nodeid, FZ_PICK(&s->r, modes));
		if (fz_chance(&s->r, s->m->bad_pct))
			srv_corrupt_entry(s, &e);
		fz_log(s->ring, "lookup %.30s: server node %llu mode 0%o", name,
		       (unsigned long long)e.nodeid, e.attr.mode);
		srv_send(s, unique, 0, &e, sizeof(e), fz_chance(&s->r, 10), 0, 0);
	} else if (p < 30 + (100 - s->m->bad_pct) * 6 / 10 + 10) {
		srv_lookup_backing(s, unique, name);
	} else {
		srv_garbage(s, unique);
		srv_err(s, unique, -EIO);
	}
}

/* --- server filters ------------------------------------------------------------------- */

/* The size of the struct in arg 0 the kernel owns (what a prefilter echoes), or 0. */
static size_t srv_in_size(uint32_t op)
{
	switch (op) {
	case FUSE_ACCESS: return sizeof(struct fuse_access_in);
	case FUSE_LSEEK: return sizeof(struct fuse_lseek_in);
	case FUSE_FALLOCATE: return sizeof(struct fuse_fallocate_in);
	case FUSE_OPEN: case FUSE_OPENDIR: return sizeof(struct fuse_open_in);
	case FUSE_READ: case FUSE_READDIR: return sizeof(struct fuse_read_in);
	case FUSE_WRITE: return sizeof(struct fuse_write_in);
	case FUSE_SETATTR: return sizeof(struct fuse_setattr_in);
	case FUSE_GETATTR: return sizeof(struct fuse_getattr_in);
	case FUSE_MKDIR: return sizeof(struct fuse_mkdir_in);
	case FUSE_MKNOD: return sizeof(struct fuse_mknod_in);
	case FUSE_CREATE: return sizeof(struct fuse_create_in);
	case FUSE_RENAME2: return sizeof(struct fuse_rename2_in);
	case FUSE_RENAME: return sizeof(struct fuse_rename_in);
	case FUSE_LINK: return sizeof(struct fuse_link_in);
	case FUSE_FSYNC: case FUSE_FSYNCDIR: return sizeof(struct fuse_fsync_in);
	case FUSE_GETXATTR: case FUSE_LISTXATTR: return sizeof(struct fuse_getxattr_in);
	case FUSE_SETXATTR: return sizeof(struct fuse_setxattr_in);
	case FUSE_FLUSH: return sizeof(struct fuse_flush_in);
	case FUSE_RELEASE: case FUSE_RELEASEDIR: return sizeof(struct fuse_release_in);
	case FUSE_COPY_FILE_RANGE: return sizeof(struct fuse_copy_file_range_in);
	default: return 0;
	}
}

/* The size of the out args a postfilter echoes (the end of the request). */
static size_t srv_out_size(uint32_t op)
{
	switch (op) {
	case FUSE_LOOKUP: return sizeof(struct fuse_entry_out);
	case FUSE_GETATTR: case FUSE_SETATTR: return sizeof(struct fuse_attr_out);
	case FUSE_OPEN: case FUSE_OPENDIR: return sizeof(struct fuse_open_out);
	case FUSE_LSEEK: return sizeof(struct fuse_lseek_out);
	case FUSE_STATFS: return sizeof(struct fuse_statfs_out);
	case FUSE_WRITE: return sizeof(struct fuse_write_out);
	case FUSE_GETXATTR: case FUSE_LISTXATTR: return sizeof(struct fuse_getxattr_out);
	case FUSE_MKDIR: case FUSE_MKNOD: case FUSE_SYMLINK: case FUSE_LINK:
		return sizeof(struct fuse_entry_out);
	default: return 0;
	}
}

static void srv_filter(struct srv *s, struct tfuse_req *req)
{
	uint32_t op = req->h->opcode & 0xffff;
	bool pre = req->h->opcode & FUSE_PREFILTER;
	uint64_t unique = req->h->unique;
	size_t len = pre ? srv_in_size(op) : srv_out_size(op);
	char buf[1024];
	const char *src;
	int p = fz_below(&s->r, 100);

	if (len > req->arglen)
		len = req->arglen;
	if (len > sizeof(buf))
		len = sizeof(buf);
	src = pre ? (const char *)req->arg : (const char *)req->arg + req->arglen - len;
	memcpy(buf, src, len);
	fz_log(s->ring, "filter %s %s node %llu arglen %zu", pre ? "pre" : "post",
	       tfuse_opname(op), (unsigned long long)req->h->nodeid, req->arglen);
	if (p < 100 - s->m->bad_pct) {
		/* An echo: the operation goes on as it is */
		srv_send(s, unique, 0, buf, len, fz_chance(&s->r, 5), 0, 0);
	} else if (p < 100 - s->m->bad_pct / 2) {
		srv_err(s, unique, srv_errno(&s->r));
	} else {
		if (len)
			buf[fz_below(&s->r, len)] ^= (char)(1 + fz_below(&s->r, 255));
		if (fz_chance(&s->r, 30))
			len = fz_below(&s->r, sizeof(buf));
		if (srv_send(s, unique, 0, buf, len, fz_chance(&s->r, 20),
			     fz_chance(&s->r, 20) ? (int)fz_below(&s->r, 17) - 8 : 0, 0))
			srv_err(s, unique, -EIO);
	}
}

/* --- the rest of the protocol ---------------------------------------------------------- */

static void srv_readdir(struct srv *s, struct tfuse_req *req)
{
	static const char *const names[] = { FZ_NAMES };
	const struct fuse_read_in *in = req->arg;
	char buf[4096];
	size_t off = 0, cap = req->arglen >= sizeof(*in) && in->size < sizeof(buf) ? in->size : sizeof(buf);
	int n = in->offset ? 0 : fz_below(&s->r, 6);

	for (int i = 0; i < n; i++) {
		const char *name = FZ_PICK(&s->r, names);
		size_t nl = strlen(name), rec = FUSE_DIRENT_ALIGN(FUSE_NAME_OFFSET + nl);
		struct fuse_dirent *d = (struct fuse_dirent *)(buf + off);

		if (off + rec > cap)
			break;
		memset(d, 0, rec);
		d->ino = 2 + fz_below(&s->r, 40);
		d->off = i + 1;
		d->namelen = fz_chance(&s->r, s->m->bad_pct / 4) ? (uint32_t)fz_next(&s->r) : nl;
		d->type = fz_below(&s->r, 16);
		memcpy(d->name, name, nl);
		off += rec;
	}
	srv_ok(s, req->h->unique, buf, off);
}

static void srv_other(struct srv *s, struct tfuse_req *req)
{
	uint64_t unique = req->h->unique;
	union {
		struct fuse_attr_out attr;
		struct fuse_open_out open;
		struct fuse_statfs_out statfs;
		struct fuse_write_out write;
		char data[4096];
	} o;

	memset(&o, 0, sizeof(o));
	switch (req->h->opcode) {
	case FUSE_GETATTR:
	case FUSE_SETATTR: {
		static const uint32_t modes[] = { S_IFDIR | 0777, S_IFREG | 0666, S_IFLNK | 0777 };

		srv_attr(s, &o.attr.attr, req->h->nodeid,
			 req->h->nodeid == FUSE_ROOT_ID ? S_IFDIR | 0777 : FZ_PICK(&s->r, modes));
		srv_ok(s, unique, &o.attr, sizeof(o.attr));
		break;
	}
	case FUSE_OPEN:
	case FUSE_OPENDIR:
	case FUSE_CREATE:
		o.open.fh = fz_next(&s->r);
		o.open.open_flags = fz_below(&s->r, 8);	/* DIRECT_IO, KEEP_CACHE, NONSEEKABLE */
		if (req->h->opcode == FUSE_CREATE)
			srv_err(s, unique, -EROFS);
		else
			srv_ok(s, unique, &o.open, sizeof(o.open));
		break;
	case FUSE_READDIR:
		srv_readdir(s, req);
		break;
	case FUSE_READ:
		for (size_t i = 0; i < 512; i++)
			o.data[i] = (char)fz_next(&s->r);
		srv_ok(s, unique, o.data, fz_below(&s->r, 512));
		break;
	case FUSE_READLINK:
		srv_ok(s, unique, "a/../b", fz_chance(&s->r, 90) ? 6 : fz_below(&s->r, 4096));
		break;
	case FUSE_WRITE:
		o.write.size = ((const struct fuse_write_in *)req->arg)->size;
		if (fz_chance(&s->r, s->m->bad_pct / 2))
			o.write.size = (uint32_t)fz_next(&s->r);
		srv_ok(s, unique, &o.write, sizeof(o.write));
		break;
	case FUSE_STATFS:
		o.statfs.st = (struct fuse_kstatfs){ .bsize = 4096, .frsize = 4096, .namelen = 255 };
		srv_ok(s, unique, &o.statfs, sizeof(o.statfs));
		break;
	case FUSE_RELEASE:
	case FUSE_RELEASEDIR:
	case FUSE_FLUSH:
	case FUSE_FSYNC:
	case FUSE_FSYNCDIR:
	case FUSE_ACCESS:
	case FUSE_SETXATTR:
	case FUSE_REMOVEXATTR:
		srv_ok(s, unique, NULL, 0);
		break;
	default:
		srv_err(s, unique, fz_chance(&s->r, 90) ? -EIO : srv_errno(&s->r));
		break;
	}
}

/* --- the loop --------------------------------------------------------------------------- */

static bool srv_no_reply(uint32_t op)
{
	return op == FUSE_FORGET || op == FUSE_BATCH_FORGET || op == FUSE_INTERRUPT;
}

/* Answer a request dropped before, late: an error or garbage. */
static void srv_answer_dropped(struct srv *s)
{
	uint64_t unique;

	if (!s->ndropped)
		return;
	unique = s->dropped[--s->ndropped];
	fz_log(s->ring, "late answer to %llu", (unsigned long long)unique);
	if (fz_chance(&s->r, 30))
		srv_garbage(s, unique);
	srv_err(s, unique, srv_errno(&s->r));
}

static void srv_request(struct srv *s, struct tfuse_req *req)
{
	uint32_t op = req->h->opcode;

	if (op == FUSE_INIT) {
		tfuse_reply_init(s->fd, req);
		return;
	}
	if (srv_no_reply(op))
		return;
	if (s->ndropped && fz_chance(&s->r, 20))
		srv_answer_dropped(s);
	if (fz_chance(&s->r, s->m->drop_pct) && s->ndropped < FZ_DROPPED) {
		fz_log(s->ring, "drop %s %llu", tfuse_opname(op & 0xffff),
		       (unsigned long long)req->h->unique);
		s->dropped[s->ndropped++] = req->h->unique;
		return;
	}
	if (fz_chance(&s->r, s->m->bad_pct / 5))
		srv_send(s, req->h->unique + 1 + fz_below(&s->r, 3), srv_errno(&s->r), NULL, 0,
			 false, 0, 0);
	if (op & FZ_FILTER_BITS)
		srv_filter(s, req);
	else if (op == FUSE_LOOKUP)
		srv_lookup(s, req);
	else
		srv_other(s, req);
}

void fz_server(struct fz_epoch *e, struct fz_mount *m, uint32_t idx)
{
	static char buf[1 << 20];
	struct srv *s = calloc(1, sizeof(*s));

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (!s)
		_exit(1);
	s->e = e;
	s->m = m;
	s->fd = m->fuse_fd;
	s->ring = m->ring;
	s->ring->pid = getpid();
	fz_seed(&s->r, e->seed, e->epoch, FZ_ROLE_SERVER, idx << 8 | (m->restarts & 0xff));
	for (;;) {
		struct pollfd pfd = { .fd = s->fd, .events = POLLIN };
		struct tfuse_req req;
		ssize_t n;

		/* Idle with requests unanswered: answer one, late */
		if (s->ndropped && poll(&pfd, 1, 100 + fz_below(&s->r, 400)) == 0) {
			srv_answer_dropped(s);
			continue;
		}
		n = read(s->fd, buf, sizeof(buf));
		if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == ENOENT))
			continue;
		if (n < 0)
			_exit(0);
		if ((size_t)n < sizeof(*req.h))
			continue;
		req.h = (struct fuse_in_header *)buf;
		req.arg = buf + sizeof(*req.h);
		req.arglen = n - sizeof(*req.h);
		srv_request(s, &req);
	}
}
