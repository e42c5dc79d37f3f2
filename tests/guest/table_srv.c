// SPDX-License-Identifier: GPL-2.0
/* The table server and its environment: see table_srv.h. */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "table_srv.h"
#include "tfilter.h"
#include "tsfilter.skel.h"
#include "tap.h"

/* --- the server: answers from the table ----------------------------------------------- */

static struct ts_ent *ts_find(struct ts_shared *sh, uint64_t parent, const char *name)
{
	for (int i = 0; i < TS_ENTS; i++) {
		struct ts_ent *ent = &sh->ent[i];

		if (ent->name[0] && ent->parent == parent && !strcmp(ent->name, name))
			return ent;
	}
	return NULL;
}

static struct ts_ent *ts_find_node(struct ts_shared *sh, uint64_t nodeid)
{
	for (int i = 0; i < TS_ENTS; i++)
		if (sh->ent[i].name[0] && sh->ent[i].nodeid == nodeid)
			return &sh->ent[i];
	return NULL;
}

static void ts_plain_attr(struct fuse_attr *a, uint64_t ino, uint32_t mode)
{
	*a = (struct fuse_attr){
		.ino = ino,
		.mode = mode,
		.nlink = S_ISDIR(mode) ? 2 : 1,
		.blksize = 4096,
	};
}

static void ts_record(struct ts_shared *sh, struct ts_ent *ent, int rc)
{
	if (!rc && ent->nodeid && ent->nodeid < TS_NODES)
		__atomic_add_fetch(&sh->granted[ent->nodeid], 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&ent->last_err, -rc, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&ent->replies, 1, __ATOMIC_SEQ_CST);
}

/* The entries of a backing reply: the backing fd, and a program if asked. */
static int ts_reply_backing(int fd, struct tfuse_req *req, struct ts_shared *sh,
			    struct ts_ent *ent, struct fuse_entry_out *e)
{
	struct {
		struct fuse_entry_out e;
		struct fuse_bpf_entry_out b[2];
	} r;
	int bfd, pfd = -1, n = 0, rc;
	struct stat st;

	bfd = ent->test_fd >= 0 ? tfuse_fd_of(sh->test_pid, ent->test_fd) :
				  open(ent->path, ent->open_flags | O_CLOEXEC);
	if (bfd < 0) {
		rc = -errno;
		ts_record(sh, ent, rc);
		return tfuse_reply(fd, req->h->unique, rc, NULL, 0);
	}
	memset(&r, 0, sizeof(r));
	r.e = *e;
	/*
	 * A test fd may be on this very connection's stack (the stacking
	 * cases): a stat here would wait for this server. The test stats it.
	 */
	if (ent->st_set)
		tfuse_attr_from_stat(&ent->st, &r.e.attr);
	else if (!fstat(bfd, &st))
		tfuse_attr_from_stat(&st, &r.e.attr);
	if (ent->mode_set)
		r.e.attr.mode = ent->mode;
	r.b[n++] = (struct fuse_bpf_entry_out){ .entry_type = FUSE_ENTRY_BACKING, .fd = bfd };
	if (ent->bpf_fd >= 0) {
		pfd = tfuse_fd_of(sh->test_pid, ent->bpf_fd);
		r.b[n++] = (struct fuse_bpf_entry_out){ .entry_type = FUSE_ENTRY_BPF, .fd = pfd };
	}
	rc = tfuse_reply_ioctl(fd, req->h->unique, 0, &r, sizeof(r.e) + n * sizeof(r.b[0]));
	ts_record(sh, ent, rc);
	/* A refused reply may or may not have ended the request: end it (ENOENT if it did). */
	if (rc)
		tfuse_reply(fd, req->h->unique, -EIO, NULL, 0);
	close(bfd);
	if (pfd >= 0)
		close(pfd);
	return 0;
}

static int ts_lookup(int fd, struct tfuse_req *req, struct ts_shared *sh)
{
	struct ts_ent *ent = ts_find(sh, req->h->nodeid, req->arg);
	struct fuse_entry_out e;
	int rc;

	if (!ent)
		return tfuse_reply(fd, req->h->unique, -ENOENT, NULL, 0);
	memset(&e, 0, sizeof(e));
	e.nodeid = ent->nodeid;
	e.generation = 1;
	e.entry_valid = ent->entry_valid;
	e.attr_valid = ent->entry_valid;
	if (ent->kind == TS_BACKING)
		return ts_reply_backing(fd, req, sh, ent, &e);
	ts_plain_attr(&e.attr, ent->nodeid, ent->mode_set ? ent->mode : S_IFDIR | 0755);
	rc = tfuse_reply(fd, req->h->unique, 0, &e, sizeof(e));
	ts_record(sh, ent, rc);
	return rc;
}

static void ts_forget(struct ts_shared *sh, uint64_t nodeid, uint64_t nlookup)
{
	if (nodeid < TS_NODES)
		__atomic_add_fetch(&sh->forgotten[nodeid], nlookup, __ATOMIC_SEQ_CST);
}

static void ts_batch_forget(struct tfuse_req *req, struct ts_shared *sh)
{
	const struct fuse_batch_forget_in *b = req->arg;
	const struct fuse_forget_one *one = (const void *)(b + 1);

	for (uint32_t i = 0; i < b->count; i++)
		ts_forget(sh, one[i].nodeid, one[i].nlookup);
}

/* Requests about nodeid 0 (the node or a RENAME's new directory). */
static void ts_note_nodeid0(struct tfuse_req *req, struct ts_shared *sh)
{
	uint32_t op = req->h->opcode;
	bool zero = req->h->nodeid == 0;

	if (op == FUSE_INIT || op == FUSE_FORGET || op == FUSE_BATCH_FORGET ||
	    op == FUSE_INTERRUPT || op == FUSE_DESTROY)
		return;
	if (op == FUSE_RENAME || op == FUSE_RENAME2)
		zero |= ((const struct fuse_rename_in *)req->arg)->newdir == 0;
	if (zero) {
		__atomic_add_fetch(&sh->nodeid0, 1, __ATOMIC_SEQ_CST);
		__atomic_store_n(&sh->nodeid0_op, op, __ATOMIC_SEQ_CST);
	}
}

static int ts_getattr(int fd, struct tfuse_req *req, struct ts_shared *sh)
{
	struct fuse_attr_out o = { .attr_valid = 0 };
	struct ts_ent *ent = ts_find_node(sh, req->h->nodeid);

	if (req->h->nodeid == FUSE_ROOT_ID)
		ts_plain_attr(&o.attr, FUSE_ROOT_ID, S_IFDIR | 0755);
	else if (ent)
		ts_plain_attr(&o.attr, ent->nodeid, ent->mode_set ? ent->mode : S_IFDIR | 0755);
	else
		return tfuse_reply(fd, req->h->unique, -ENOENT, NULL, 0);
	return tfuse_reply(fd, req->h->unique, 0, &o, sizeof(o));
}

/* WRITE, READ (end of file), SETATTR and FSYNC of a server whose files take writes */
static int ts_data(int fd, struct tfuse_req *req, struct ts_shared *sh)
{
	uint64_t unique = req->h->unique;

	switch (req->h->opcode) {
	case FUSE_WRITE: {
		const struct fuse_write_in *in = req->arg;
		struct fuse_write_out o = { .size = in->size };
		int err;

		while (__atomic_load_n(&sh->write_stall, __ATOMIC_SEQ_CST))
			usleep(1000);
		if (req->h->nodeid == __atomic_load_n(&sh->write_notify, __ATOMIC_SEQ_CST)) {
			struct {
				struct fuse_notify_delete_out d;
				char name[4];
			} del = { .d = { .parent = FUSE_ROOT_ID, .child = 10, .namelen = 2 }, .name = "s0" };

			usleep(300000);
			__atomic_store_n(&sh->notify_rc, notify(fd, FUSE_NOTIFY_DELETE, &del, sizeof(del.d) + 3),
					 __ATOMIC_SEQ_CST);
		}
		err = __atomic_load_n(&sh->write_err, __ATOMIC_SEQ_CST);
		if (err)
			return tfuse_reply(fd, unique, -err, NULL, 0);
		if (in->offset < sh->write_lo)
			sh->write_lo = in->offset;
		if (in->offset + in->size > sh->write_hi)
			sh->write_hi = in->offset + in->size;
		return tfuse_reply(fd, unique, 0, &o, sizeof(o));
	}
	case FUSE_READ:
		return tfuse_reply(fd, unique, 0, NULL, 0);
	case FUSE_SETATTR: {
		struct fuse_attr_out o = { .attr_valid = 0 };
		struct ts_ent *ent = ts_find_node(sh, req->h->nodeid);

		ts_plain_attr(&o.attr, req->h->nodeid, ent && ent->mode_set ? ent->mode : S_IFREG | 0666);
		return tfuse_reply(fd, unique, 0, &o, sizeof(o));
	}
	default: /* FUSE_FSYNC */
		__atomic_store_n(&sh->fsync_flags, ((const struct fuse_fsync_in *)req->arg)->fsync_flags,
				 __ATOMIC_SEQ_CST);
		return tfuse_reply(fd, unique, -__atomic_load_n(&sh->fsync_err, __ATOMIC_SEQ_CST), NULL, 0);
	}
}

static int ts_handler(int fd, struct tfuse_req *req, void *ctx)
{
	struct ts_shared *sh = ctx;
	uint64_t unique = req->h->unique;

	ts_note_nodeid0(req, sh);
	if (req->h->opcode == (FUSE_WRITE | FUSE_PREFILTER))
		__atomic_add_fetch(&sh->write_pre, 1, __ATOMIC_SEQ_CST);
	switch (req->h->opcode) {
	case FUSE_LOOKUP:
		return ts_lookup(fd, req, sh);
	case FUSE_GETATTR:
		return ts_getattr(fd, req, sh);
	case FUSE_OPENDIR:
	case FUSE_OPEN: {
		struct fuse_open_out o = { .fh = 1 };

		if (req->h->opcode == FUSE_OPEN)
			o.open_flags = __atomic_load_n(&sh->fopen, __ATOMIC_SEQ_CST);
		return tfuse_reply(fd, unique, 0, &o, sizeof(o));
	}
	case FUSE_WRITE:
	case FUSE_READ:
	case FUSE_SETATTR:
	case FUSE_FSYNC:
		if (!__atomic_load_n(&sh->write_ok, __ATOMIC_SEQ_CST))
			return tfuse_reply(fd, unique, -EIO, NULL, 0);
		return ts_data(fd, req, sh);
	case FUSE_READDIR:
		return tfuse_reply(fd, unique, 0, NULL, 0);
	case FUSE_RELEASEDIR:
	case FUSE_RELEASE:
	case FUSE_FLUSH:
	case FUSE_ACCESS:
		return tfuse_reply(fd, unique, 0, NULL, 0);
	case FUSE_STATFS: {
		struct fuse_statfs_out o = { .st = { .bsize = 4096, .frsize = 4096, .namelen = 255 } };

		return tfuse_reply(fd, unique, 0, &o, sizeof(o));
	}
	case FUSE_FORGET:
		ts_forget(sh, req->h->nodeid, ((const struct fuse_forget_in *)req->arg)->nlookup);
		return 0;
	case FUSE_BATCH_FORGET:
		ts_batch_forget(req, sh);
		return 0;
	case FUSE_INTERRUPT:
		return 0;
	case FUSE_CREATE:
	case FUSE_MKNOD:
	case FUSE_MKDIR:
		return tfuse_reply(fd, unique, -EROFS, NULL, 0);
	default:
		/* EIO, not ENOSYS: ENOSYS would switch kernel features off. */
		return tfuse_reply(fd, unique, -EIO, NULL, 0);
	}
}

/* --- a case's environment ------------------------------------------------------------- */

/* Answer INIT with flags (tfuse_reply_init offers none). */
static int ts_reply_init(int fd, struct tfuse_req *req, uint32_t flags)
{
	const struct fuse_init_in *in = req->arg;
	struct fuse_init_out out = {
		.major = FUSE_KERNEL_VERSION,
		.minor = FUSE_KERNEL_MINOR_VERSION,
		.max_readahead = in->max_readahead,
		.flags = flags,
		.max_background = 16,
		.congestion_threshold = 12,
		.max_write = 128 * 1024,
		.time_gran = 1,
	};

	return tfuse_reply(fd, req->h->unique, 0, &out, sizeof(out));
}

/* tfuse_serve() with init_flags in the INIT reply, counting into counts. */
static int ts_serve_flags(int fd, struct ts_shared *sh, struct tfuse_counts *counts,
			  uint32_t init_flags)
{
	static char buf[1 << 20];
	struct tfuse_req req;
	ssize_t n;

	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == ENOENT))
			continue;
		if (n < 0)
			return errno == ENODEV ? 0 : -errno;
		if ((size_t)n < sizeof(*req.h))
			continue;
		req.h = (struct fuse_in_header *)buf;
		req.arg = buf + sizeof(*req.h);
		req.arglen = n - sizeof(*req.h);
		__atomic_add_fetch(&counts->op[req.h->opcode < TFUSE_MAX_OPCODE ? req.h->opcode : 0],
				   1, __ATOMIC_SEQ_CST);
		if (req.h->opcode == FUSE_INIT)
			ts_reply_init(fd, &req, init_flags);
		else
			ts_handler(fd, &req, sh);
	}
}

pid_t ts_spawn_flags(struct ts_env *e, uint32_t init_flags)
{
	pid_t pid = fork();

	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		_exit(ts_serve_flags(e->fuse_fd, e->sh, e->counts, init_flags) ? 1 : 0);
	}
	return pid;
}

/*
 * A directory, a backing tmpfs, a FUSE mount with opts (NULL: none) and its
 * server, whose INIT reply has init_flags.
 */
int ts_setup_flags(struct ts_env *e, const char *opts, uint32_t init_flags)
{
	int fd;

	memset(e, 0, sizeof(*e));
	e->fuse_fd = -1;
	e->server = -1;
	umask(0);
	strcpy(e->dir, "/tmp/ts-XXXXXX");
	if (!mkdtemp(e->dir))
		return -errno;
	snprintf(e->back, sizeof(e->back), "%s/back", e->dir);
	snprintf(e->mnt, sizeof(e->mnt), "%s/mnt", e->dir);
	if (mkdir(e->back, 0755) || mkdir(e->mnt, 0755))
		return -errno;
	if (mount("tmpfs", e->back, "tmpfs", 0, "mode=0755,size=64m"))
		return -errno;
	e->back_mounted = true;
	e->sh = mmap(NULL, sizeof(*e->sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	e->counts = tfuse_counts_new();
	if (e->sh == MAP_FAILED || !e->counts) {
		e->sh = NULL;
		return -ENOMEM;
	}
	e->sh->test_pid = getpid();
	fd = tfuse_mount(e->mnt, opts);
	if (fd < 0)
		return fd;
	e->fuse_fd = fd;
	e->fuse_mounted = true;
	if (init_flags) {
		e->server = ts_spawn_flags(e, init_flags);
	} else {
		tfuse_count_into(e->counts);
		e->server = tfuse_spawn(fd, ts_handler, e->sh);
		tfuse_count_into(NULL);
	}
	return e->server < 0 ? -errno : 0;
}

/* ts_setup_flags() with a server that offers no INIT flag. */
int ts_setup(struct ts_env *e, const char *opts)
{
	return ts_setup_flags(e, opts, 0);
}

/* Unmount the served FUSE mount before the end of a case (it may hold backings). */
void ts_stop_fuse(struct ts_env *e)
{
	if (e->fuse_fd >= 0)
		close(e->fuse_fd);
	e->fuse_fd = -1;
	if (e->fuse_mounted)
		tfuse_stop(e->mnt, e->server);
	e->fuse_mounted = false;
	e->server = -1;
}

/* Unmount and remove everything; -errno if the backing tmpfs was still busy (a leak). */
int ts_teardown(struct ts_env *e)
{
	int rc = 0;

	if (e->fuse_fd >= 0)
		close(e->fuse_fd);
	if (e->fuse_mounted) {
		tfuse_stop(e->mnt, e->server);
	} else if (e->server > 0) {
		kill(e->server, SIGKILL);
		waitpid(e->server, NULL, 0);
	}
	if (e->back_mounted && umount2(e->back, 0)) {
		rc = -errno;
		printf("umount %s: %s (a leaked backing reference?)\n", e->back, strerror(errno));
		umount2(e->back, MNT_DETACH);
	}
	if (e->dir[0] && strcmp(e->dir, "/tmp/ts-XXXXXX"))
		run("rm -rf %s", e->dir);
	if (e->sh)
		munmap(e->sh, sizeof(*e->sh));
	tfuse_counts_free(e->counts);
	memset(e, 0, sizeof(*e));
	e->fuse_fd = e->server = -1;
	return rc;
}

/* A new table entry: name in parent, backed by path (NULL: none), for 3600 s. */
struct ts_ent *ts_add(struct ts_env *e, uint64_t parent, const char *name, const char *path)
{
	for (int i = 0; i < TS_ENTS; i++) {
		struct ts_ent *ent = &e->sh->ent[i];

		if (ent->name[0])
			continue;
		*ent = (struct ts_ent){
			.parent = parent,
			.kind = path ? TS_BACKING : TS_PLAIN,
			.open_flags = O_RDONLY | O_NONBLOCK,
			.test_fd = -1,
			.bpf_fd = -1,
			.entry_valid = 3600,
		};
		snprintf(ent->path, sizeof(ent->path), "%s", path ? path : "");
		snprintf(ent->name, sizeof(ent->name), "%s", name);
		return ent;
	}
	return NULL;
}

/* A new entry backed by fd, an fd of the test process (stat here, not by the server). */
struct ts_ent *ts_add_fd(struct ts_env *e, uint64_t parent, const char *name, int fd)
{
	struct ts_ent *ent = ts_add(e, parent, name, NULL);

	if (!ent)
		return NULL;
	ent->kind = TS_BACKING;
	ent->test_fd = fd;
	ent->st_set = !fstat(fd, &ent->st);
	return ent;
}

/* Wait until the server has written down n replies for ent. */
int ts_wait(struct ts_ent *ent, uint32_t n)
{
	for (int i = 0; i < 200; i++) {
		if (__atomic_load_n(&ent->replies, __ATOMIC_SEQ_CST) >= n)
			return 0;
		usleep(10000);
	}
	return -ETIMEDOUT;
}

/*
 * A LOOKUP of ent (at path) whose reply the kernel must refuse: the ioctl
 * fails with want, the lookup with EIO.
 */
int ts_refused(struct ts_ent *ent, const char *path, int want)
{
	int ret = TAP_FAIL;
	struct stat st;

	ent->replies = 0;
	ERR(lstat(path, &st), EIO);
	EXPECT(!ts_wait(ent, 1), "the server never answered %s", path);
	EXPECT(ent->last_err == want, "the reply for %s got %s, expected %s", path,
	       ent->last_err ? strerror(ent->last_err) : "success", strerror(want));
	ret = TAP_OK;
out:
	return ret;
}

/* The mount still takes a good backing reply (a directory of the backing tmpfs). */
int ts_still_good(struct ts_env *e)
{
	static int n;
	int ret = TAP_FAIL;
	struct ts_ent *ent;
	char name[32];
	struct stat st;

	snprintf(name, sizeof(name), "good%d", ++n);
	OK(mkdir(at(e->back, name), 0755));
	ent = ts_add(e, FUSE_ROOT_ID, name, at(e->back, name));
	EXPECT(ent);
	OK(stat(at(e->mnt, name), &st));
	EXPECT(!ts_wait(ent, 1) && ent->last_err == 0, "a good reply afterwards: %s",
	       strerror(ent->last_err));
	EXPECT(S_ISDIR(st.st_mode), "mode %o", st.st_mode);
	ret = TAP_OK;
out:
	return ret;
}

/* A no_daemon mount at mnt with root_dir=dfd; extra options appended. 0 or -errno. */
int mount_nodaemon_fd(const char *mnt, int dfd, const char *extra)
{
	char opts[256];
	int fd;

	snprintf(opts, sizeof(opts), "root_dir=%d,no_daemon%s%s", dfd, extra ? "," : "",
		 extra ? extra : "");
	fd = tfuse_mount(mnt, opts);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

/* A no_daemon mount at mnt of the directory dir; extra options appended. 0 or -errno. */
int mount_nodaemon(const char *mnt, const char *dir, const char *extra)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc;

	if (dfd < 0)
		return -errno;
	rc = mount_nodaemon_fd(mnt, dfd, extra);
	close(dfd);
	return rc;
}

/* Unmount an extra mount of a case; prints (and detaches) when it is busy. */
int unmount_extra(const char *mnt)
{
	if (!umount2(mnt, 0))
		return 0;
	printf("umount %s: %s; detaching\n", mnt, strerror(errno));
	umount2(mnt, MNT_DETACH);
	return -1;
}

void drop_caches(void)
{
	sync();
	write_file("/proc/sys/vm/drop_caches", "2", 1);
}

/*
 * Load and attach the fuse_ops map name of tests/bpf/tsfilter.bpf.c with
 * ts_op and ts_value set: its fd or -errno (-ENOENT on a kernel without
 * struct fuse_ops; libbpf prints the verifier's log).
 */
int ts_filter(const char *name, uint32_t op, int value)
{
	struct tsfilter_bpf *skel = tsfilter_bpf__open();
	int fd;

	if (!skel)
		return -errno;
	skel->rodata->ts_op = op;
	skel->rodata->ts_value = value;
	fd = tfilter_load_one(skel->obj, name);
	if (fd < 0 && fd != -ENOENT)
		printf("loading %s: %s\n", name, strerror(-fd));
	tsfilter_bpf__destroy(skel);
	return fd;
}

/*
 * A fuse-bpf filter: enosys_create fails CREATE's prefilter with ENOSYS,
 * everything else goes on to the backing (0). Returns its fd or -errno.
 */
int load_prog(bool enosys_create)
{
	if (enosys_create)
		return ts_filter("ts_verdict", FUSE_CREATE, -ENOSYS);
	return ts_filter("ts_pass", 0, 0);
}

void ts_filter_close(int fd)
{
	tfilter_close(fd);
}

/* Wait until every nodeid but the root's got back the lookups it was given; 0 or -1. */
int forgets_balance(struct ts_shared *sh)
{
	for (int i = 0; i < 300; i++) {
		bool even = true;

		for (int n = 2; n < TS_NODES; n++)
			even &= __atomic_load_n(&sh->granted[n], __ATOMIC_SEQ_CST) ==
				__atomic_load_n(&sh->forgotten[n], __ATOMIC_SEQ_CST);
		if (even)
			return 0;
		if (i % 50 == 0)
			drop_caches();
		usleep(10000);
	}
	for (int n = 2; n < TS_NODES; n++)
		if (sh->granted[n] != sh->forgotten[n])
			printf("nodeid %d: %u lookups taken, %u forgotten\n", n, sh->granted[n],
			       sh->forgotten[n]);
	return -1;
}

/* Write a notification (code, then len bytes of arg) to /dev/fuse; 0 or -errno. */
int notify(int fd, int code, const void *arg, size_t len)
{
	char buf[256];
	struct fuse_out_header oh = { .len = sizeof(oh) + len, .error = code, .unique = 0 };

	memcpy(buf, &oh, sizeof(oh));
	memcpy(buf + sizeof(oh), arg, len);
	return write(fd, buf, oh.len) == (ssize_t)oh.len ? 0 : -errno;
}

/* The same ext4 image every time (fixed hash seed, one block group), the same tree in it. */
int make_ext4(const char *img, const char *mnt)
{
	return run("truncate -s 32M %s && mkfs.ext4 -q -F -b 4096 -I 256 "
		   "-E hash_seed=5b1f2a3c-0d4e-4f60-8a7b-9c0d1e2f3a4b %s && mkdir -p %s && "
		   "mount -o loop %s %s && cd %s && mkdir tree tree/d && echo a > tree/a && "
		   "echo b > tree/d/b && ln -s a tree/l", img, img, mnt, img, mnt, mnt);
}
