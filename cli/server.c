// SPDX-License-Identifier: GPL-2.0
/* The FUSE server: see server.h. Single-threaded; paths relative to back_fd. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/uio.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "fuse_attr.h"
#include "fuse_uapi.h"
#include "server.h"

#define MAX_WRITE (128 * 1024)
#define BUF_SIZE (MAX_WRITE + 64 * 1024)
#define NBUCKETS 65536
#define TIMEOUT_S 1

struct node {
	uint64_t id;
	uint64_t nlookup;
	char *path;		/* "" for the root */
	struct node *next_id, *next_path;
};

struct dirh {
	DIR *d;
	off_t pos;		/* the offset the next entry has */
};

struct server {
	struct server_cfg *cfg;
	int fd;
	uint64_t next_id;
	struct node *by_id[NBUCKETS], *by_path[NBUCKETS];
	char *buf;
	char procpath[64];	/* /proc/self/fd/<back_fd> */
};

static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void logmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logmsg(const char *fmt, ...)
{
	char ts[32];
	time_t now = time(NULL);
	va_list ap;

	strftime(ts, sizeof(ts), "%F %T", localtime(&now));
	fprintf(stderr, "%s fusebpfctl[%d]: ", ts, getpid());
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* --- the node table ------------------------------------------------------------- */

static unsigned int hash_str(const char *s)
{
	unsigned int h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h % NBUCKETS;
}

static struct node *node_by_id(struct server *s, uint64_t id)
{
	for (struct node *n = s->by_id[id % NBUCKETS]; n; n = n->next_id)
		if (n->id == id)
			return n;
	return NULL;
}

static struct node *node_by_path(struct server *s, const char *path)
{
	for (struct node *n = s->by_path[hash_str(path)]; n; n = n->next_path)
		if (strcmp(n->path, path) == 0)
			return n;
	return NULL;
}

static void unlink_path(struct server *s, struct node *n)
{
	struct node **pp = &s->by_path[hash_str(n->path)];

	for (; *pp; pp = &(*pp)->next_path)
		if (*pp == n) {
			*pp = n->next_path;
			return;
		}
}

static void link_path(struct server *s, struct node *n)
{
	unsigned int h = hash_str(n->path);

	n->next_path = s->by_path[h];
	s->by_path[h] = n;
}

/* The node for path, one more lookup counted; NULL when out of memory. */
static struct node *node_get(struct server *s, const char *path)
{
	struct node *n = node_by_path(s, path);

	if (n) {
		n->nlookup++;
		return n;
	}
	n = calloc(1, sizeof(*n));
	if (!n || !(n->path = strdup(path))) {
		free(n);
		return NULL;
	}
	n->id = s->next_id++;
	n->nlookup = 1;
	n->next_id = s->by_id[n->id % NBUCKETS];
	s->by_id[n->id % NBUCKETS] = n;
	link_path(s, n);
	return n;
}

static void node_forget(struct server *s, uint64_t id, uint64_t nlookup)
{
	struct node *n = node_by_id(s, id), **pp;

	if (!n || id == FUSE_ROOT_ID)
		return;
	n->nlookup = n->nlookup > nlookup ? n->nlookup - nlookup : 0;
	if (n->nlookup)
		return;
	for (pp = &s->by_id[id % NBUCKETS]; *pp; pp = &(*pp)->next_id)
		if (*pp == n) {
			*pp = n->next_id;
			break;
		}
	unlink_path(s, n);
	free(n->path);
	free(n);
}

/* A rename moves the node and everything below it. */
static void nodes_renamed(struct server *s, const char *from, const char *to)
{
	size_t flen = strlen(from);
	struct node *victim = node_by_path(s, to);

	/* The replaced node keeps its id until FORGET, under a name nobody looks up. */
	if (victim) {
		char *dead;

		unlink_path(s, victim);
		if (asprintf(&dead, "\x01unlinked/%llu", (unsigned long long)victim->id) > 0) {
			free(victim->path);
			victim->path = dead;
		}
		link_path(s, victim);
	}
	for (unsigned int b = 0; b < NBUCKETS; b++)
		for (struct node *n = s->by_id[b]; n; n = n->next_id) {
			char *np;

			if (strncmp(n->path, from, flen) || (n->path[flen] && n->path[flen] != '/'))
				continue;
			if (asprintf(&np, "%s%s", to, n->path + flen) < 0)
				continue;
			unlink_path(s, n);
			free(n->path);
			n->path = np;
			link_path(s, n);
		}
}

static void nodes_free(struct server *s)
{
	for (unsigned int b = 0; b < NBUCKETS; b++) {
		struct node *n = s->by_id[b], *next;

		for (; n; n = next) {
			next = n->next_id;
			free(n->path);
			free(n);
		}
	}
}

/* --- replies ---------------------------------------------------------------- */

static int reply(struct server *s, uint64_t unique, int error, const void *data, size_t len)
{
	struct fuse_out_header oh = {
		.len = sizeof(oh) + (error ? 0 : len),
		.error = error,
		.unique = unique,
	};
	struct iovec iov[2] = {
		{ .iov_base = &oh, .iov_len = sizeof(oh) },
		{ .iov_base = (void *)data, .iov_len = error ? 0 : len },
	};

	if (writev(s->fd, iov, data && len && !error ? 2 : 1) < 0)
		return -errno;
	return 0;
}

static int reply_err(struct server *s, uint64_t unique, int err)
{
	return reply(s, unique, err > 0 ? -err : err, NULL, 0);
}

static const char *rel(const char *path)
{
	return *path ? path : ".";
}

/* parent + "/" + name, malloc'd; NULL for a bad name. */
static char *child_path(const struct node *parent, const char *name)
{
	char *p;

	if (!*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return NULL;
	if (asprintf(&p, "%s%s%s", parent->path, *parent->path ? "/" : "", name) < 0)
		return NULL;
	return p;
}

/* The entry for path (which exists now): a node, and in fuse-bpf mode maybe backing. */
/* A LOOKUP's reply: the entry, then in fuse-bpf mode the backing file and filter. */
struct entry_reply {
	struct fuse_entry_out e;
	struct fuse_bpf_entry_out b[2];
};	/* no padding: both are multiples of 8 bytes */

/* The reply with its backing entries, through FUSE_DEV_IOC_BPF_RESPONSE; 0 or errno. */
static int reply_backed(struct server *s, uint64_t unique, const struct entry_reply *r, size_t len)
{
	size_t total = sizeof(struct fuse_out_header) + len;
	char msg[sizeof(struct fuse_out_header) + sizeof(*r)];

	*(struct fuse_out_header *)msg = (struct fuse_out_header){
		.len = total, .error = 0, .unique = unique };
	memcpy(msg + sizeof(struct fuse_out_header), r, len);
	return ioctl(s->fd, FUSE_DEV_IOC_BPF_RESPONSE(total), msg) < 0 ? errno : 0;
}

static int reply_entry(struct server *s, uint64_t unique, const char *path, bool created)
{
	struct entry_reply r;
	struct stat st;
	struct node *n;
	int cls = -1, bfd = -1, err;
	size_t len = sizeof(r.e);

	if (fstatat(s->cfg->back_fd, rel(path), &st, AT_SYMLINK_NOFOLLOW))
		return reply_err(s, unique, errno);
	memset(&r, 0, sizeof(r));
	if (!s->cfg->userspace && !created)
		cls = server_classify(s->cfg, path);
	if (cls >= 0) {
		int prog = cls < s->cfg->nat ? s->cfg->at[cls].prog_fd : s->cfg->filter_fd;

		bfd = openat(s->cfg->back_fd, path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (bfd < 0)
			return reply_err(s, unique, errno);
		r.b[0] = (struct fuse_bpf_entry_out){ .entry_type = FUSE_ENTRY_BACKING, .fd = bfd };
		len += sizeof(r.b[0]);
		if (prog >= 0) {
			r.b[1] = (struct fuse_bpf_entry_out){ .entry_type = FUSE_ENTRY_BPF, .fd = prog };
			len += sizeof(r.b[1]);
		}
	}
	n = node_get(s, path);
	if (!n) {
		if (bfd >= 0)
			close(bfd);
		return reply_err(s, unique, ENOMEM);
	}
	r.e.nodeid = n->id;
	r.e.entry_valid = TIMEOUT_S;
	r.e.attr_valid = TIMEOUT_S;
	fuse_attr_from_stat(&st, &r.e.attr);
	if (cls < 0)
		return reply(s, unique, 0, &r, len);

	err = reply_backed(s, unique, &r, len);
	close(bfd);
	if (err) {
		logmsg("lookup %s: the kernel refused the backing reply: %s", path, strerror(err));
		node_forget(s, n->id, 1);
		/* The request may or may not have ended; make sure it does. */
		reply_err(s, unique, EIO);
		return -err;
	}
	if (s->cfg->verbose)
		logmsg("lookup %s: backed%s%s", path, cls < s->cfg->nat ? " by --at " : "",
		       cls < s->cfg->nat ? s->cfg->at[cls].path : "");
	return 0;
}

/* --- operations ---------------------------------------------------------------- */

/*
 * Every handler of the opcode table takes the same arguments: the request's
 * header, its node (NULL for the ops that name none), its argument and
 * length. Most use some of them only.
 */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#define OP_ARGS struct server *s, struct fuse_in_header *h, struct node *n, void *arg, size_t arglen

/* The mount's served directories in fuse-bpf mode are outside every filter. */
static bool names_frozen(struct server *s)
{
	return !s->cfg->userspace;
}

static void own(struct server *s, const char *path, const struct fuse_in_header *h)
{
	if (geteuid() == 0)
		(void)!fchownat(s->cfg->back_fd, path, h->uid, h->gid, AT_SYMLINK_NOFOLLOW);
}

static int op_getattr(OP_ARGS)
{
	const struct fuse_getattr_in *in = arg;
	struct fuse_attr_out o = { .attr_valid = TIMEOUT_S };
	struct stat st;
	int rc;

	if (in->getattr_flags & FUSE_GETATTR_FH)
		rc = fstat((int)in->fh, &st);
	else
		rc = fstatat(s->cfg->back_fd, rel(n->path), &st, AT_SYMLINK_NOFOLLOW);
	if (rc)
		return reply_err(s, h->unique, errno);
	fuse_attr_from_stat(&st, &o.attr);
	return reply(s, h->unique, 0, &o, sizeof(o));
}

static int op_setattr(OP_ARGS)
{
	const struct fuse_setattr_in *in = arg;
	const char *p = rel(n->path);
	int fd = in->valid & FATTR_FH ? (int)in->fh : -1;
	struct fuse_attr_out o = { .attr_valid = TIMEOUT_S };
	struct stat st;

	if (in->valid & FATTR_MODE &&
	    (fd >= 0 ? fchmod(fd, in->mode & 07777) : fchmodat(s->cfg->back_fd, p, in->mode & 07777, 0)))
		return reply_err(s, h->unique, errno);
	if (in->valid & (FATTR_UID | FATTR_GID)) {
		uid_t uid = in->valid & FATTR_UID ? in->uid : (uid_t)-1;
		gid_t gid = in->valid & FATTR_GID ? in->gid : (gid_t)-1;

		if (fchownat(s->cfg->back_fd, p, uid, gid, AT_SYMLINK_NOFOLLOW))
			return reply_err(s, h->unique, errno);
	}
	if (in->valid & FATTR_SIZE) {
		int rc;

		if (fd >= 0) {
			rc = ftruncate(fd, in->size);
		} else {
			int tfd = openat(s->cfg->back_fd, p, O_WRONLY | O_CLOEXEC);

			rc = tfd < 0 ? -1 : ftruncate(tfd, in->size);
			if (tfd >= 0)
				close(tfd);
		}
		if (rc)
			return reply_err(s, h->unique, errno);
	}
	if (in->valid & (FATTR_ATIME | FATTR_MTIME)) {
		struct timespec ts[2] = { { .tv_nsec = UTIME_OMIT }, { .tv_nsec = UTIME_OMIT } };

		if (in->valid & FATTR_ATIME)
			ts[0] = in->valid & FATTR_ATIME_NOW ? (struct timespec){ .tv_nsec = UTIME_NOW }
				: (struct timespec){ in->atime, in->atimensec };
		if (in->valid & FATTR_MTIME)
			ts[1] = in->valid & FATTR_MTIME_NOW ? (struct timespec){ .tv_nsec = UTIME_NOW }
				: (struct timespec){ in->mtime, in->mtimensec };
		if (utimensat(s->cfg->back_fd, p, ts, AT_SYMLINK_NOFOLLOW))
			return reply_err(s, h->unique, errno);
	}
	if (fstatat(s->cfg->back_fd, p, &st, AT_SYMLINK_NOFOLLOW))
		return reply_err(s, h->unique, errno);
	fuse_attr_from_stat(&st, &o.attr);
	return reply(s, h->unique, 0, &o, sizeof(o));
}

static int op_readlink(OP_ARGS)
{
	char target[PATH_MAX];
	ssize_t len = readlinkat(s->cfg->back_fd, rel(n->path), target, sizeof(target));

	if (len < 0)
		return reply_err(s, h->unique, errno);
	return reply(s, h->unique, 0, target, len);
}

/* CREATE, MKNOD, MKDIR, SYMLINK, LINK: make the name, then reply its entry. */
/* A node was made at path (rc: the call's result): own it, reply its entry. */
static int reply_made(struct server *s, struct fuse_in_header *h, char *path, int rc, bool owned)
{
	if (rc) {
		rc = reply_err(s, h->unique, errno);
	} else {
		if (owned)
			own(s, path, h);
		rc = reply_entry(s, h->unique, path, true);
	}
	free(path);
	return rc;
}

static int op_mknod(OP_ARGS)
{
	const struct fuse_mknod_in *in = arg;
	char *path = child_path(n, (const char *)(in + 1));

	if (!path)
		return reply_err(s, h->unique, EINVAL);
	return reply_made(s, h, path, mknodat(s->cfg->back_fd, path, in->mode, in->rdev), true);
}

static int op_mkdir(OP_ARGS)
{
	const struct fuse_mkdir_in *in = arg;
	char *path = child_path(n, (const char *)(in + 1));

	if (!path)
		return reply_err(s, h->unique, EINVAL);
	return reply_made(s, h, path, mkdirat(s->cfg->back_fd, path, in->mode), true);
}

static int op_symlink(OP_ARGS)
{
	const char *name = arg, *target = name + strlen(name) + 1;
	char *path;

	if ((size_t)(target - name) >= arglen)
		return reply_err(s, h->unique, EINVAL);
	if (!(path = child_path(n, name)))
		return reply_err(s, h->unique, EINVAL);
	return reply_made(s, h, path, symlinkat(target, s->cfg->back_fd, path), true);
}

static int op_link(OP_ARGS)
{
	const struct fuse_link_in *in = arg;
	struct node *old = node_by_id(s, in->oldnodeid);
	char *path;

	if (!old)
		return reply_err(s, h->unique, ENOENT);
	if (!(path = child_path(n, (const char *)(in + 1))))
		return reply_err(s, h->unique, EINVAL);
	return reply_made(s, h, path,
			  linkat(s->cfg->back_fd, old->path, s->cfg->back_fd, path, 0), false);
}

static int op_create(OP_ARGS)
{
	const struct fuse_create_in *in = arg;
	struct {
		struct fuse_entry_out e;
		struct fuse_open_out o;
	} r = { 0 };
	char *path = child_path(n, (const char *)(in + 1));
	struct stat st;
	struct node *nn;
	int fd, rc;

	if (!path)
		return reply_err(s, h->unique, EINVAL);
	fd = openat(s->cfg->back_fd, path, (in->flags | O_CREAT | O_CLOEXEC) & ~(O_NOCTTY | O_DIRECT),
		    in->mode);
	if (fd < 0)
		return reply_made(s, h, path, -1, true);
	own(s, path, h);
	errno = 0;
	if (fstat(fd, &st) || !(nn = node_get(s, path))) {
		rc = reply_err(s, h->unique, errno ? errno : ENOMEM);
		close(fd);
		free(path);
		return rc;
	}
	r.o.fh = fd;
	r.e.nodeid = nn->id;
	r.e.entry_valid = r.e.attr_valid = TIMEOUT_S;
	fuse_attr_from_stat(&st, &r.e.attr);
	free(path);
	return reply(s, h->unique, 0, &r, sizeof(r));
}

static int op_remove(OP_ARGS)
{
	const char *name = arg;
	char *path;
	int rc;

	if (names_frozen(s))
		return reply_err(s, h->unique, EPERM);
	if (!(path = child_path(n, name)))
		return reply_err(s, h->unique, EINVAL);
	rc = unlinkat(s->cfg->back_fd, path, h->opcode == FUSE_RMDIR ? AT_REMOVEDIR : 0);
	rc = reply_err(s, h->unique, rc ? errno : 0);
	free(path);
	return rc;
}

static int op_rename(OP_ARGS)
{
	uint64_t newdir;
	unsigned int flags = 0;
	const char *oldname, *newname;
	struct node *nd;
	char *from = NULL, *to = NULL;
	int rc;

	if (h->opcode == FUSE_RENAME2) {
		const struct fuse_rename2_in *in = arg;

		newdir = in->newdir;
		flags = in->flags;
		oldname = (const char *)(in + 1);
	} else {
		const struct fuse_rename_in *in = arg;

		newdir = in->newdir;
		oldname = (const char *)(in + 1);
	}
	newname = oldname + strlen(oldname) + 1;
	if (names_frozen(s))
		return reply_err(s, h->unique, EPERM);
	nd = node_by_id(s, newdir);
	if (!nd)
		return reply_err(s, h->unique, ENOENT);
	from = child_path(n, oldname);
	to = child_path(nd, newname);
	if (!from || !to) {
		rc = reply_err(s, h->unique, EINVAL);
		goto out;
	}
	if (renameat2(s->cfg->back_fd, from, s->cfg->back_fd, to, flags)) {
		rc = reply_err(s, h->unique, errno);
		goto out;
	}
	if (flags & RENAME_EXCHANGE) {
		char tmp[64];

		snprintf(tmp, sizeof(tmp), "\x01exchange/%d", getpid());
		nodes_renamed(s, from, tmp);
		nodes_renamed(s, to, from);
		nodes_renamed(s, tmp, to);
	} else {
		nodes_renamed(s, from, to);
	}
	rc = reply_err(s, h->unique, 0);
out:
	free(from);
	free(to);
	return rc;
}

static int op_open(OP_ARGS)
{
	const struct fuse_open_in *in = arg;
	struct fuse_open_out o = { 0 };
	int fd;

	fd = openat(s->cfg->back_fd, rel(n->path),
		    (in->flags & ~(O_CREAT | O_EXCL | O_NOCTTY | O_DIRECT)) | O_CLOEXEC);
	if (fd < 0)
		return reply_err(s, h->unique, errno);
	o.fh = fd;
	return reply(s, h->unique, 0, &o, sizeof(o));
}

static int op_read(OP_ARGS)
{
	const struct fuse_read_in *in = arg;
	size_t size = in->size < BUF_SIZE ? in->size : BUF_SIZE;
	char *data = s->buf + BUF_SIZE;	/* the second half of the buffer */
	ssize_t len = pread((int)in->fh, data, size, in->offset);

	if (len < 0)
		return reply_err(s, h->unique, errno);
	return reply(s, h->unique, 0, data, len);
}

static int op_write(OP_ARGS)
{
	const struct fuse_write_in *in = arg;
	struct fuse_write_out o = { 0 };
	ssize_t len = pwrite((int)in->fh, in + 1, in->size, in->offset);

	if (len < 0)
		return reply_err(s, h->unique, errno);
	o.size = len;
	return reply(s, h->unique, 0, &o, sizeof(o));
}

static int op_statfs(OP_ARGS)
{
	struct fuse_statfs_out o = { 0 };
	struct statvfs sv;

	if (fstatvfs(s->cfg->back_fd, &sv))
		return reply_err(s, h->unique, errno);
	o.st = (struct fuse_kstatfs){
		.blocks = sv.f_blocks, .bfree = sv.f_bfree, .bavail = sv.f_bavail,
		.files = sv.f_files, .ffree = sv.f_ffree, .bsize = sv.f_bsize,
		.namelen = sv.f_namemax, .frsize = sv.f_frsize,
	};
	return reply(s, h->unique, 0, &o, sizeof(o));
}

static int op_xattr(OP_ARGS)
{
	char path[PATH_MAX + 64];
	char *data = s->buf + BUF_SIZE;
	ssize_t len;

	snprintf(path, sizeof(path), "%s/%s", s->procpath, rel(n->path));
	switch (h->opcode) {
	case FUSE_GETXATTR:
	case FUSE_LISTXATTR: {
		const struct fuse_getxattr_in *in = arg;
		size_t size = in->size < BUF_SIZE ? in->size : BUF_SIZE;

		if (h->opcode == FUSE_GETXATTR)
			len = lgetxattr(path, (const char *)(in + 1), size ? data : NULL, size);
		else
			len = llistxattr(path, size ? data : NULL, size);
		if (len < 0)
			return reply_err(s, h->unique, errno);
		if (!size) {
			struct fuse_getxattr_out o = { .size = len };

			return reply(s, h->unique, 0, &o, sizeof(o));
		}
		return reply(s, h->unique, 0, data, len);
	}
	case FUSE_SETXATTR: {
		/* Without FUSE_SETXATTR_EXT the kernel sends the 8-byte compat header. */
		const struct fuse_setxattr_in *in = arg;
		const char *name = (const char *)arg + FUSE_COMPAT_SETXATTR_IN_SIZE;
		const char *value = name + strlen(name) + 1;

		if (lsetxattr(path, name, value, in->size, in->flags))
			return reply_err(s, h->unique, errno);
		return reply_err(s, h->unique, 0);
	}
	case FUSE_REMOVEXATTR:
		if (lremovexattr(path, arg))
			return reply_err(s, h->unique, errno);
		return reply_err(s, h->unique, 0);
	}
	return reply_err(s, h->unique, ENOSYS);
}

static int op_opendir(OP_ARGS)
{
	struct fuse_open_out o = { 0 };
	struct dirh *dh = calloc(1, sizeof(*dh));
	int fd;

	if (!dh)
		return reply_err(s, h->unique, ENOMEM);
	fd = openat(s->cfg->back_fd, rel(n->path), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || !(dh->d = fdopendir(fd))) {
		int err = errno;

		if (fd >= 0)
			close(fd);
		free(dh);
		return reply_err(s, h->unique, err);
	}
	o.fh = (uintptr_t)dh;
	return reply(s, h->unique, 0, &o, sizeof(o));
}

static int op_readdir(OP_ARGS)
{
	const struct fuse_read_in *in = arg;
	struct dirh *dh = (struct dirh *)(uintptr_t)in->fh;
	size_t size = in->size < BUF_SIZE ? in->size : BUF_SIZE, used = 0;
	char *data = s->buf + BUF_SIZE;

	if ((off_t)in->offset != dh->pos) {
		if (in->offset == 0)
			rewinddir(dh->d);
		else
			seekdir(dh->d, in->offset);
		dh->pos = in->offset;
	}
	for (;;) {
		struct dirent *de;
		struct fuse_dirent *fd;
		size_t namelen, reclen;
		long cookie = telldir(dh->d);

		errno = 0;
		de = readdir(dh->d);
		if (!de) {
			if (errno && !used)
				return reply_err(s, h->unique, errno);
			break;
		}
		namelen = strlen(de->d_name);
		reclen = FUSE_DIRENT_SIZE(&(struct fuse_dirent){ .namelen = namelen });
		if (used + reclen > size) {
			seekdir(dh->d, cookie);	/* this entry goes in the next reply */
			break;
		}
		fd = (struct fuse_dirent *)(data + used);
		memset(fd, 0, reclen);
		fd->ino = de->d_ino;
		fd->off = telldir(dh->d);
		fd->namelen = namelen;
		fd->type = de->d_type;
		memcpy(fd->name, de->d_name, namelen);
		used += reclen;
		dh->pos = fd->off;
	}
	return reply(s, h->unique, 0, data, used);
}

static int init_reply(struct server *s, struct fuse_in_header *h, void *arg)
{
	const struct fuse_init_in *in = arg;
	struct fuse_init_out o = {
		.major = FUSE_KERNEL_VERSION,
		.minor = in->minor < FUSE_KERNEL_MINOR_VERSION ? in->minor : FUSE_KERNEL_MINOR_VERSION,
		.max_readahead = in->max_readahead,
		.flags = in->flags & (FUSE_ASYNC_READ | FUSE_BIG_WRITES | FUSE_ATOMIC_O_TRUNC),
		.max_background = 64,
		.congestion_threshold = 48,
		.max_write = MAX_WRITE,
		.time_gran = 1,
	};

	if (in->major != FUSE_KERNEL_VERSION) {
		logmsg("the kernel speaks FUSE %u.%u; this server speaks %u", in->major, in->minor,
		       FUSE_KERNEL_VERSION);
		return reply_err(s, h->unique, EPROTO);
	}
	return reply(s, h->unique, 0, &o, sizeof(o));
}

static int op_init(OP_ARGS)
{
	int rc = init_reply(s, h, arg);

	if (s->cfg->ready_fd >= 0) {
		(void)!write(s->cfg->ready_fd, "r", 1);
		close(s->cfg->ready_fd);
		s->cfg->ready_fd = -1;
	}
	return rc;
}

static int op_forget(OP_ARGS)
{
	node_forget(s, h->nodeid, ((struct fuse_forget_in *)arg)->nlookup);
	return 0;
}

static int op_batch_forget(OP_ARGS)
{
	const struct fuse_batch_forget_in *in = arg;
	const struct fuse_forget_one *one = (const void *)(in + 1);

	for (uint32_t i = 0; i < in->count && (i + 1) * sizeof(*one) + sizeof(*in) <= arglen; i++)
		node_forget(s, one[i].nodeid, one[i].nlookup);
	return 0;
}

/* No reply: FORGET-like, or an interrupt of a request answered already. */
static int op_no_reply(OP_ARGS)
{
	return 0;
}

static int op_ok(OP_ARGS)
{
	return reply_err(s, h->unique, 0);
}

static int op_lookup(OP_ARGS)
{
	char *path = child_path(n, arg);
	int rc;

	if (!path)
		return reply_err(s, h->unique, ENOENT);
	rc = reply_entry(s, h->unique, path, false);
	free(path);
	return rc;
}

static int op_release(OP_ARGS)
{
	close((int)((struct fuse_release_in *)arg)->fh);
	return reply_err(s, h->unique, 0);
}

static int op_fsync(OP_ARGS)
{
	const struct fuse_fsync_in *in = arg;
	int rc = in->fsync_flags & 1 ? fdatasync((int)in->fh) : fsync((int)in->fh);

	return reply_err(s, h->unique, rc ? errno : 0);
}

static int op_releasedir(OP_ARGS)
{
	struct dirh *dh = (struct dirh *)(uintptr_t)((struct fuse_release_in *)arg)->fh;

	if (dh) {
		closedir(dh->d);
		free(dh);
	}
	return reply_err(s, h->unique, 0);
}

static int op_access(OP_ARGS)
{
	const struct fuse_access_in *in = arg;

	if (faccessat(s->cfg->back_fd, rel(n->path), in->mask, AT_EACCESS))
		return reply_err(s, h->unique, errno);
	return reply_err(s, h->unique, 0);
}

static int op_fallocate(OP_ARGS)
{
	const struct fuse_fallocate_in *in = arg;

	if (fallocate((int)in->fh, in->mode, in->offset, in->length))
		return reply_err(s, h->unique, errno);
	return reply_err(s, h->unique, 0);
}

static int op_lseek(OP_ARGS)
{
	const struct fuse_lseek_in *in = arg;
	struct fuse_lseek_out o;
	off_t off = lseek((int)in->fh, in->offset, in->whence);

	if (off < 0)
		return reply_err(s, h->unique, errno);
	o.offset = off;
	return reply(s, h->unique, 0, &o, sizeof(o));
}

enum {
	OP_NO_NODE = 1 << 0,	/* names no node: handled before the node lookup */
	OP_CHANGES = 1 << 1,	/* changes names or attributes: refused (EPERM) in fuse-bpf mode */
};

/* Above every opcode the table names (FUSE_LSEEK, 46, is the last). */
#define OP_TABLE_SIZE 64

struct op_handler {
	int (*fn)(OP_ARGS);
	unsigned int flags;
};

/* The opcodes served; the others get ENOSYS (on a known node, else ESTALE). */
static const struct op_handler op_table[OP_TABLE_SIZE] = {
	[FUSE_INIT] = { op_init, OP_NO_NODE },
	[FUSE_FORGET] = { op_forget, OP_NO_NODE },
	[FUSE_BATCH_FORGET] = { op_batch_forget, OP_NO_NODE },
	[FUSE_INTERRUPT] = { op_no_reply, OP_NO_NODE },
	[FUSE_DESTROY] = { op_ok, OP_NO_NODE },
	[FUSE_LOOKUP] = { op_lookup },
	[FUSE_GETATTR] = { op_getattr },
	[FUSE_SETATTR] = { op_setattr, OP_CHANGES },
	[FUSE_READLINK] = { op_readlink },
	[FUSE_SYMLINK] = { op_symlink, OP_CHANGES },
	[FUSE_MKNOD] = { op_mknod, OP_CHANGES },
	[FUSE_MKDIR] = { op_mkdir, OP_CHANGES },
	[FUSE_LINK] = { op_link, OP_CHANGES },
	[FUSE_CREATE] = { op_create, OP_CHANGES },
	[FUSE_UNLINK] = { op_remove },
	[FUSE_RMDIR] = { op_remove },
	[FUSE_RENAME] = { op_rename },
	[FUSE_RENAME2] = { op_rename },
	[FUSE_OPEN] = { op_open },
	[FUSE_READ] = { op_read },
	[FUSE_WRITE] = { op_write },
	[FUSE_STATFS] = { op_statfs },
	[FUSE_RELEASE] = { op_release },
	[FUSE_FLUSH] = { op_ok },
	[FUSE_FSYNC] = { op_fsync },
	[FUSE_SETXATTR] = { op_xattr, OP_CHANGES },
	[FUSE_REMOVEXATTR] = { op_xattr, OP_CHANGES },
	[FUSE_GETXATTR] = { op_xattr },
	[FUSE_LISTXATTR] = { op_xattr },
	[FUSE_OPENDIR] = { op_opendir },
	[FUSE_READDIR] = { op_readdir },
	[FUSE_RELEASEDIR] = { op_releasedir },
	[FUSE_FSYNCDIR] = { op_ok },
	[FUSE_ACCESS] = { op_access },
	[FUSE_FALLOCATE] = { op_fallocate },
	[FUSE_LSEEK] = { op_lseek },
};

static int dispatch(struct server *s, struct fuse_in_header *h, void *arg, size_t arglen)
{
	const struct op_handler *op = h->opcode < OP_TABLE_SIZE ? &op_table[h->opcode] : NULL;
	struct node *n;

	if (op && (op->flags & OP_NO_NODE))
		return op->fn(s, h, NULL, arg, arglen);
	n = node_by_id(s, h->nodeid);
	if (!n)
		return reply_err(s, h->unique, ESTALE);
	if (!op || !op->fn)
		return reply_err(s, h->unique, ENOSYS);
	if ((op->flags & OP_CHANGES) && names_frozen(s))
		return reply_err(s, h->unique, EPERM);
	return op->fn(s, h, n, arg, arglen);
}

int server_run(struct server_cfg *cfg)
{
	struct sigaction sa = { .sa_handler = on_stop };	/* no SA_RESTART: read() returns */
	struct server *s;
	int rc = 0;

	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->cfg = cfg;
	s->fd = cfg->fuse_fd;
	s->next_id = FUSE_ROOT_ID;	/* the first node, "", is the root */
	s->buf = malloc(2 * BUF_SIZE);
	snprintf(s->procpath, sizeof(s->procpath), "/proc/self/fd/%d", cfg->back_fd);
	if (!s->buf || !node_get(s, "")) {
		rc = -ENOMEM;
		goto out;
	}
	umask(0);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	logmsg("serving %s (%s)", cfg->mountpoint, cfg->userspace ? "userspace" : "fuse-bpf");
	while (!stop_requested) {
		ssize_t n = read(s->fd, s->buf, BUF_SIZE);
		struct fuse_in_header *h = (struct fuse_in_header *)s->buf;

		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN || errno == ENOENT)
				continue;
			if (errno != ENODEV) {
				rc = -errno;
				logmsg("reading /dev/fuse: %s", strerror(errno));
			}
			break;
		}
		if ((size_t)n < sizeof(*h) || h->len != (size_t)n)
			continue;
		dispatch(s, h, s->buf + sizeof(*h), n - sizeof(*h));
	}
	if (stop_requested) {
		logmsg("signalled: unmounting %s", cfg->mountpoint);
		if (umount2(cfg->mountpoint, 0) && umount2(cfg->mountpoint, MNT_DETACH))
			logmsg("unmount %s: %s", cfg->mountpoint, strerror(errno));
	}
	logmsg("%s is gone: exiting", cfg->mountpoint);
out:
	nodes_free(s);
	free(s->buf);
	free(s);
	return rc;
}
