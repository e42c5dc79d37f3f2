// SPDX-License-Identifier: GPL-2.0
/*
 * Hardening (issue 10), the server side: what a FUSE server may hand the
 * kernel in a LOOKUP reply and at mount, and what the kernel then does with
 * it (/work/harden-spec.md): stacking depth (item 1), backing fd types
 * (item 2), who may set backings (the privilege rule), the smaller items
 * (item 12) and inode numbers across backing filesystems (item 14).
 *
 * Each case has its own directory under /tmp (a tmpfs in the guest) with its
 * own backing tmpfs and FUSE mount, served by a raw server (tfuse.h) that
 * answers from a table of names in memory shared with the test.
 */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/bpf.h>
#include <linux/capability.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fusebpf_uapi.h"
#include "tap.h"
#include "tfuse.h"

#ifndef FUSE_PREFILTER
#define FUSE_PREFILTER 0x10000
#endif
#ifndef FUSE_BPF_USER_FILTER
#define FUSE_BPF_USER_FILTER 1
#endif
/* <linux/fs.h> includes <linux/mount.h>, which glibc 2.36's <sys/mount.h> conflicts with */
#ifndef FS_IOC_GETFLAGS
#define FS_IOC_GETFLAGS _IOR('f', 1, long)
#define FS_IOC_SETFLAGS _IOW('f', 2, long)
#endif
#ifndef FS_APPEND_FL
#define FS_APPEND_FL 0x00000020
#endif
#ifndef FIBMAP
#define FIBMAP _IO(0x00, 1)
#endif
/* The fuse-bpf helpers (bpf-progs/fusebpf.h) */
#define BPF_FUNC_fuse_get_arg 210
#define BPF_FUNC_fuse_set_arg 211

/* Raw BPF instructions, as the kernel's <linux/filter.h> spells them */
#define BPF_MOV64_REG(d, s) \
	((struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = d, .src_reg = s })
#define BPF_MOV64_IMM(d, i) \
	((struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = d, .imm = i })
#define BPF_ALU64_IMM(op, d, i) \
	((struct bpf_insn){ .code = BPF_ALU64 | (op) | BPF_K, .dst_reg = d, .imm = i })
#define BPF_LDX_MEM(sz, d, s, o) \
	((struct bpf_insn){ .code = BPF_LDX | BPF_MEM | (sz), .dst_reg = d, .src_reg = s, .off = o })
#define BPF_ST_MEM(sz, d, o, i) \
	((struct bpf_insn){ .code = BPF_ST | BPF_MEM | (sz), .dst_reg = d, .off = o, .imm = i })
#define BPF_JMP_IMM(op, d, i, o) \
	((struct bpf_insn){ .code = BPF_JMP | (op) | BPF_K, .dst_reg = d, .off = o, .imm = i })
#define BPF_CALL_HELPER(id) ((struct bpf_insn){ .code = BPF_JMP | BPF_CALL, .imm = id })
#define BPF_EXIT_INSN() ((struct bpf_insn){ .code = BPF_JMP | BPF_EXIT })


/* --- the server: a table of names ------------------------------------------------ */

#define HS_ENTS 16
#define HS_NODES 64
#define HS_NAME 32

enum hs_kind { HS_PLAIN, HS_BACKING };

/* How the server answers a LOOKUP of name in the directory parent. */
struct hs_ent {
	char name[HS_NAME];
	uint64_t parent;	/* nodeid of the directory */
	uint64_t nodeid;	/* of the reply; 0: a pure passthrough node */
	int kind;		/* HS_PLAIN: no fuse-bpf entries; HS_BACKING: via the ioctl */
	char path[200];		/* HS_BACKING: the server opens this... */
	int open_flags;
	int test_fd;		/* ...unless this (an fd of the test process) is >= 0 */
	int bpf_fd;		/* >= 0: a FUSE_ENTRY_BPF entry too (fd of the test process) */
	bool st_set;		/* the attributes are st's (a test_fd, stat by the test) */
	struct stat st;
	bool mode_set;		/* attr.mode is mode, not the backing's */
	uint32_t mode;
	uint64_t entry_valid;	/* seconds, entry and attributes */
	/* results */
	int last_err;		/* errno of the last reply (0: the kernel took it) */
	uint32_t replies;
};

struct hs_shared {
	struct hs_ent ent[HS_ENTS];
	uint32_t granted[HS_NODES];	/* LOOKUP replies the kernel took, by nodeid */
	uint32_t forgotten[HS_NODES];	/* nlookup returned by FORGETs, by nodeid */
	uint32_t nodeid0;		/* requests naming nodeid 0 */
	uint32_t nodeid0_op;		/* the last one's opcode */
	uint32_t write_pre;		/* FUSE_WRITE | FUSE_PREFILTER requests (server filters) */
	pid_t test_pid;
	/* The splice cases (patch 54): a server whose files take writes */
	int write_ok;			/* WRITE, READ, SETATTR, FSYNC answered (else EIO) */
	int fsync_err;			/* FSYNC fails with this errno (0: succeeds) */
	uint32_t fopen;			/* fuse_open_out.open_flags of an OPEN */
	uint32_t fsync_flags;		/* of the last FSYNC */
	uint64_t write_lo, write_hi;	/* the bytes the WRITEs covered (set by the test) */
	int write_stall;		/* set: a WRITE is answered once the test clears it */
	int write_err;			/* WRITE fails with this errno (0: succeeds) */
	uint64_t write_notify;		/* a WRITE of this node: first NOTIFY_DELETE s0 (nodeid 10) */
	int notify_rc;			/* what that NOTIFY_DELETE returned (1: not sent yet) */
};

struct hs_env {
	char dir[64];
	char back[96];		/* a tmpfs of its own */
	char mnt[96];		/* the served FUSE mount */
	bool back_mounted, fuse_mounted;
	int fuse_fd;		/* the test's copy, for notifications */
	pid_t server;
	struct hs_shared *sh;
	struct tfuse_counts *counts;
};

static struct hs_ent *hs_find(struct hs_shared *sh, uint64_t parent, const char *name)
{
	for (int i = 0; i < HS_ENTS; i++) {
		struct hs_ent *ent = &sh->ent[i];

		if (ent->name[0] && ent->parent == parent && !strcmp(ent->name, name))
			return ent;
	}
	return NULL;
}

static struct hs_ent *hs_find_node(struct hs_shared *sh, uint64_t nodeid)
{
	for (int i = 0; i < HS_ENTS; i++)
		if (sh->ent[i].name[0] && sh->ent[i].nodeid == nodeid)
			return &sh->ent[i];
	return NULL;
}

static void hs_plain_attr(struct fuse_attr *a, uint64_t ino, uint32_t mode)
{
	*a = (struct fuse_attr){
		.ino = ino,
		.mode = mode,
		.nlink = S_ISDIR(mode) ? 2 : 1,
		.blksize = 4096,
	};
}

static void hs_record(struct hs_shared *sh, struct hs_ent *ent, int rc)
{
	if (!rc && ent->nodeid && ent->nodeid < HS_NODES)
		__atomic_add_fetch(&sh->granted[ent->nodeid], 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&ent->last_err, -rc, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&ent->replies, 1, __ATOMIC_SEQ_CST);
}

/* The entries of a backing reply: the backing fd, and a program if asked. */
static int hs_reply_backing(int fd, struct tfuse_req *req, struct hs_shared *sh,
			    struct hs_ent *ent, struct fuse_entry_out *e)
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
		hs_record(sh, ent, rc);
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
	hs_record(sh, ent, rc);
	/* A refused reply may or may not have ended the request: end it (ENOENT if it did). */
	if (rc)
		tfuse_reply(fd, req->h->unique, -EIO, NULL, 0);
	close(bfd);
	if (pfd >= 0)
		close(pfd);
	return 0;
}

static int hs_lookup(int fd, struct tfuse_req *req, struct hs_shared *sh)
{
	struct hs_ent *ent = hs_find(sh, req->h->nodeid, req->arg);
	struct fuse_entry_out e;
	int rc;

	if (!ent)
		return tfuse_reply(fd, req->h->unique, -ENOENT, NULL, 0);
	memset(&e, 0, sizeof(e));
	e.nodeid = ent->nodeid;
	e.generation = 1;
	e.entry_valid = ent->entry_valid;
	e.attr_valid = ent->entry_valid;
	if (ent->kind == HS_BACKING)
		return hs_reply_backing(fd, req, sh, ent, &e);
	hs_plain_attr(&e.attr, ent->nodeid, ent->mode_set ? ent->mode : S_IFDIR | 0755);
	rc = tfuse_reply(fd, req->h->unique, 0, &e, sizeof(e));
	hs_record(sh, ent, rc);
	return rc;
}

static void hs_forget(struct hs_shared *sh, uint64_t nodeid, uint64_t nlookup)
{
	if (nodeid < HS_NODES)
		__atomic_add_fetch(&sh->forgotten[nodeid], nlookup, __ATOMIC_SEQ_CST);
}

static void hs_batch_forget(struct tfuse_req *req, struct hs_shared *sh)
{
	const struct fuse_batch_forget_in *b = req->arg;
	const struct fuse_forget_one *one = (const void *)(b + 1);

	for (uint32_t i = 0; i < b->count; i++)
		hs_forget(sh, one[i].nodeid, one[i].nlookup);
}

/* Requests about nodeid 0 (the node or a RENAME's new directory). */
static void hs_note_nodeid0(struct tfuse_req *req, struct hs_shared *sh)
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

static int hs_getattr(int fd, struct tfuse_req *req, struct hs_shared *sh)
{
	struct fuse_attr_out o = { .attr_valid = 0 };
	struct hs_ent *ent = hs_find_node(sh, req->h->nodeid);

	if (req->h->nodeid == FUSE_ROOT_ID)
		hs_plain_attr(&o.attr, FUSE_ROOT_ID, S_IFDIR | 0755);
	else if (ent)
		hs_plain_attr(&o.attr, ent->nodeid, ent->mode_set ? ent->mode : S_IFDIR | 0755);
	else
		return tfuse_reply(fd, req->h->unique, -ENOENT, NULL, 0);
	return tfuse_reply(fd, req->h->unique, 0, &o, sizeof(o));
}

static int notify(int fd, int code, const void *arg, size_t len);

/* WRITE, READ (end of file), SETATTR and FSYNC of a server whose files take writes */
static int hs_data(int fd, struct tfuse_req *req, struct hs_shared *sh)
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
		struct hs_ent *ent = hs_find_node(sh, req->h->nodeid);

		hs_plain_attr(&o.attr, req->h->nodeid, ent && ent->mode_set ? ent->mode : S_IFREG | 0666);
		return tfuse_reply(fd, unique, 0, &o, sizeof(o));
	}
	default: /* FUSE_FSYNC */
		__atomic_store_n(&sh->fsync_flags, ((const struct fuse_fsync_in *)req->arg)->fsync_flags,
				 __ATOMIC_SEQ_CST);
		return tfuse_reply(fd, unique, -__atomic_load_n(&sh->fsync_err, __ATOMIC_SEQ_CST), NULL, 0);
	}
}

static int hs_handler(int fd, struct tfuse_req *req, void *ctx)
{
	struct hs_shared *sh = ctx;
	uint64_t unique = req->h->unique;

	hs_note_nodeid0(req, sh);
	if (req->h->opcode == (FUSE_WRITE | FUSE_PREFILTER))
		__atomic_add_fetch(&sh->write_pre, 1, __ATOMIC_SEQ_CST);
	switch (req->h->opcode) {
	case FUSE_LOOKUP:
		return hs_lookup(fd, req, sh);
	case FUSE_GETATTR:
		return hs_getattr(fd, req, sh);
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
		return hs_data(fd, req, sh);
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
		hs_forget(sh, req->h->nodeid, ((const struct fuse_forget_in *)req->arg)->nlookup);
		return 0;
	case FUSE_BATCH_FORGET:
		hs_batch_forget(req, sh);
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

/* --- environments -------------------------------------------------------------------- */

static const char *at(const char *dir, const char *name)
{
	static char bufs[16][300];
	static unsigned int next;
	char *p = bufs[next++ % 16];

	snprintf(p, sizeof(bufs[0]), "%s/%s", dir, name);
	return p;
}

/* Answer INIT with flags (tfuse_reply_init offers none). */
static int hs_reply_init(int fd, struct tfuse_req *req, uint32_t flags)
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
static int hs_serve_flags(int fd, struct hs_shared *sh, struct tfuse_counts *counts,
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
			hs_reply_init(fd, &req, init_flags);
		else
			hs_handler(fd, &req, sh);
	}
}

static pid_t hs_spawn_flags(struct hs_env *e, uint32_t init_flags)
{
	pid_t pid = fork();

	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		_exit(hs_serve_flags(e->fuse_fd, e->sh, e->counts, init_flags) ? 1 : 0);
	}
	return pid;
}

/*
 * A directory, a backing tmpfs, a FUSE mount with opts (NULL: none) and its
 * server, whose INIT reply has init_flags.
 */
static int hs_setup_flags(struct hs_env *e, const char *opts, uint32_t init_flags)
{
	int fd;

	memset(e, 0, sizeof(*e));
	e->fuse_fd = -1;
	e->server = -1;
	umask(0);
	strcpy(e->dir, "/tmp/hs-XXXXXX");
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
		e->server = hs_spawn_flags(e, init_flags);
	} else {
		tfuse_count_into(e->counts);
		e->server = tfuse_spawn(fd, hs_handler, e->sh);
		tfuse_count_into(NULL);
	}
	return e->server < 0 ? -errno : 0;
}

/* hs_setup_flags() with a server that offers no INIT flag. */
static int hs_setup(struct hs_env *e, const char *opts)
{
	return hs_setup_flags(e, opts, 0);
}

/* Unmount the served FUSE mount before the end of a case (it may hold backings). */
static void hs_stop_fuse(struct hs_env *e)
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
static int hs_teardown(struct hs_env *e)
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
	if (e->dir[0] && strcmp(e->dir, "/tmp/hs-XXXXXX"))
		run("rm -rf %s", e->dir);
	if (e->sh)
		munmap(e->sh, sizeof(*e->sh));
	tfuse_counts_free(e->counts);
	memset(e, 0, sizeof(*e));
	e->fuse_fd = e->server = -1;
	return rc;
}

/* A new table entry: name in parent, backed by path (NULL: none), for 3600 s. */
static struct hs_ent *hs_add(struct hs_env *e, uint64_t parent, const char *name, const char *path)
{
	for (int i = 0; i < HS_ENTS; i++) {
		struct hs_ent *ent = &e->sh->ent[i];

		if (ent->name[0])
			continue;
		*ent = (struct hs_ent){
			.parent = parent,
			.kind = path ? HS_BACKING : HS_PLAIN,
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
static struct hs_ent *hs_add_fd(struct hs_env *e, uint64_t parent, const char *name, int fd)
{
	struct hs_ent *ent = hs_add(e, parent, name, NULL);

	if (!ent)
		return NULL;
	ent->kind = HS_BACKING;
	ent->test_fd = fd;
	ent->st_set = !fstat(fd, &ent->st);
	return ent;
}

/* Wait until the server has written down n replies for ent. */
static int hs_wait(struct hs_ent *ent, uint32_t n)
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
static int hs_refused(struct hs_ent *ent, const char *path, int want)
{
	int ret = TAP_FAIL;
	struct stat st;

	ent->replies = 0;
	ERR(lstat(path, &st), EIO);
	EXPECT(!hs_wait(ent, 1), "the server never answered %s", path);
	EXPECT(ent->last_err == want, "the reply for %s got %s, expected %s", path,
	       ent->last_err ? strerror(ent->last_err) : "success", strerror(want));
	ret = TAP_OK;
out:
	return ret;
}

/* The mount still takes a good backing reply (a directory of the backing tmpfs). */
static int hs_still_good(struct hs_env *e)
{
	static int n;
	int ret = TAP_FAIL;
	struct hs_ent *ent;
	char name[32];
	struct stat st;

	snprintf(name, sizeof(name), "good%d", ++n);
	OK(mkdir(at(e->back, name), 0755));
	ent = hs_add(e, FUSE_ROOT_ID, name, at(e->back, name));
	EXPECT(ent);
	OK(stat(at(e->mnt, name), &st));
	EXPECT(!hs_wait(ent, 1) && ent->last_err == 0, "a good reply afterwards: %s",
	       strerror(ent->last_err));
	EXPECT(S_ISDIR(st.st_mode), "mode %o", st.st_mode);
	ret = TAP_OK;
out:
	return ret;
}

/* A no_daemon mount at mnt with root_dir=dfd; extra options appended. 0 or -errno. */
static int mount_nodaemon_fd(const char *mnt, int dfd, const char *extra)
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
static int mount_nodaemon(const char *mnt, const char *dir, const char *extra)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc;

	if (dfd < 0)
		return -errno;
	rc = mount_nodaemon_fd(mnt, dfd, extra);
	close(dfd);
	return rc;
}

/* Unmount an extra mount of a case; prints (and detaches) when it is busy. */
static int unmount_extra(const char *mnt)
{
	if (!umount2(mnt, 0))
		return 0;
	printf("umount %s: %s; detaching\n", mnt, strerror(errno));
	umount2(mnt, MNT_DETACH);
	return -1;
}

static void drop_caches(void)
{
	sync();
	write_file("/proc/sys/vm/drop_caches", "2", 1);
}

/* --- item 1: stacking ----------------------------------------------------------------- */

/*
 * The loop of the issue: B is served (depth 1), A's root_dir is B's root
 * (depth 2), and B's server answers LOOKUP "x" with A's root. A's superblock
 * is not shallower than B's connection: the ioctl fails ELOOP, the lookup
 * EIO, and nothing recurses.
 */
static int t_stack_loop(void)
{
	int ret = TAP_FAIL, rc, afd = -1;
	bool a_up = false;
	struct hs_ent *x;
	struct hs_env e;
	char a[128];

	rc = hs_setup(&e, NULL);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	snprintf(a, sizeof(a), "%s/a", e.dir);
	OK(mkdir(a, 0755));
	rc = mount_nodaemon(a, e.mnt, NULL);
	EXPECT(!rc, "A with root_dir = B's root: %s", strerror(-rc));
	a_up = true;
	afd = open(a, O_RDONLY | O_DIRECTORY);
	EXPECT(afd >= 0, "open A's root: %s", strerror(errno));
	x = hs_add_fd(&e, FUSE_ROOT_ID, "x", afd);
	EXPECT(hs_refused(x, at(e.mnt, "x"), ELOOP) == TAP_OK, "B/x backed by A's root");
	EXPECT(hs_still_good(&e) == TAP_OK);
	ret = TAP_OK;
out:
	if (afd >= 0)
		close(afd);
	/* On a kernel that took the loop, B/x pins A: drop it first. */
	drop_caches();
	if (a_up && unmount_extra(a))
		ret = TAP_FAIL;
	if (hs_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/* A mount of tmpfs dir at mnt with options; returns the mount's errno (0: mounted, then unmounted). */
static int try_mount(const char *mnt, const char *opts)
{
	int fd = tfuse_mount(mnt, opts);

	if (fd < 0)
		return -fd;
	close(fd);
	umount2(mnt, MNT_DETACH);
	return 0;
}

/*
 * stack_depth=N is 1 or 2, else EINVAL. A mount's depth is fixed at mount
 * time: a no_daemon mount with stack_depth=2 over a tmpfs has depth 2, so
 * it cannot be another mount's root_dir (ELOOP); stack_depth=1 does not
 * lower the depth a root_dir gives.
 */
static int t_stack_depth_option(void)
{
	int ret = TAP_FAIL, rc;
	char x[128], y[128], z[128];
	bool x_up = false, y_up = false;
	struct hs_env e;

	rc = hs_setup(&e, NULL);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	snprintf(x, sizeof(x), "%s/x", e.dir);
	snprintf(y, sizeof(y), "%s/y", e.dir);
	snprintf(z, sizeof(z), "%s/z", e.dir);
	OK(mkdir(x, 0755));
	OK(mkdir(y, 0755));
	OK(mkdir(z, 0755));
	for (int i = 0; i < 5; i++) {
		static const char *const opt[] = { "stack_depth=0", "stack_depth=3", "stack_depth=-1",
						   "stack_depth=1", "stack_depth=2" };
		int want = i < 3 ? EINVAL : 0;

		rc = try_mount(x, opt[i]);
		EXPECT(rc == want, "%s: %s, expected %s", opt[i], rc ? strerror(rc) : "mounted",
		       want ? strerror(want) : "a mount");
	}
	/* X: depth 2 by the option, over a tmpfs (depth 0) */
	rc = mount_nodaemon(x, e.back, "stack_depth=2");
	EXPECT(!rc, "no_daemon with stack_depth=2: %s", strerror(-rc));
	x_up = true;
	rc = mount_nodaemon(y, x, NULL);
	EXPECT(rc == -ELOOP, "root_dir on a stack_depth=2 mount: %s, expected ELOOP",
	       rc ? strerror(-rc) : "mounted");
	if (!rc)
		unmount_extra(y);
	OK(umount2(x, 0));
	x_up = false;
	/* X: depth 1; Y over it with stack_depth=1 has depth 2 all the same */
	rc = mount_nodaemon(x, e.back, "stack_depth=1");
	EXPECT(!rc, "no_daemon with stack_depth=1: %s", strerror(-rc));
	x_up = true;
	rc = mount_nodaemon(y, x, "stack_depth=1");
	EXPECT(!rc, "root_dir at depth 1 with stack_depth=1: %s", strerror(-rc));
	y_up = true;
	rc = mount_nodaemon(z, y, NULL);
	EXPECT(rc == -ELOOP, "root_dir on Y (depth 2): %s, expected ELOOP", rc ? strerror(-rc) : "mounted");
	if (!rc)
		unmount_extra(z);
	ret = TAP_OK;
out:
	if (y_up && unmount_extra(y))
		ret = TAP_FAIL;
	if (x_up && unmount_extra(x))
		ret = TAP_FAIL;
	if (hs_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/* tmpfs (0) <- A (1) <- B (2) <- C: C's root_dir would make depth 3: ELOOP. */
static int t_stack_root_dir_eloop(void)
{
	int ret = TAP_FAIL, rc;
	char a[128], b[128], c[128];
	bool a_up = false, b_up = false;
	struct hs_env e;

	rc = hs_setup(&e, NULL);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	snprintf(a, sizeof(a), "%s/a", e.dir);
	snprintf(b, sizeof(b), "%s/b", e.dir);
	snprintf(c, sizeof(c), "%s/c", e.dir);
	OK(mkdir(a, 0755));
	OK(mkdir(b, 0755));
	OK(mkdir(c, 0755));
	rc = mount_nodaemon(a, e.back, NULL);
	EXPECT(!rc, "depth 1: %s", strerror(-rc));
	a_up = true;
	rc = mount_nodaemon(b, a, NULL);
	EXPECT(!rc, "depth 2: %s", strerror(-rc));
	b_up = true;
	rc = mount_nodaemon(c, b, NULL);
	EXPECT(rc == -ELOOP, "depth 3: %s, expected ELOOP", rc ? strerror(-rc) : "mounted");
	if (!rc)
		unmount_extra(c);
	ret = TAP_OK;
out:
	if (b_up && unmount_extra(b))
		ret = TAP_FAIL;
	if (a_up && unmount_extra(a))
		ret = TAP_FAIL;
	if (hs_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/*
 * A backing fd must sit on a superblock strictly shallower than the
 * connection: a default mount (depth 1) refuses one on A (depth 1) with
 * ELOOP; a stack_depth=2 mount takes it and serves A's files, and refuses
 * one on B (depth 2).
 */
static int t_stack_backing_depth(void)
{
	int ret = TAP_FAIL, rc, afd = -1, bfd = -1;
	char a[128], b[128], buf[32];
	bool a_up = false, b_up = false, e2_up = false;
	struct hs_env e, e2;
	struct hs_ent *ent;

	e2.dir[0] = 0;
	rc = hs_setup(&e, NULL);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	snprintf(a, sizeof(a), "%s/a", e.dir);
	snprintf(b, sizeof(b), "%s/b", e.dir);
	OK(mkdir(a, 0755));
	OK(mkdir(b, 0755));
	OK(mkdir(at(e.back, "sub"), 0755));
	EXPECT(write_file(at(e.back, "sub/f"), "stacked", 7) == 0);
	rc = mount_nodaemon(a, e.back, NULL);
	EXPECT(!rc, "A: %s", strerror(-rc));
	a_up = true;
	rc = mount_nodaemon(b, at(a, "sub"), NULL);
	EXPECT(!rc, "B: %s", strerror(-rc));
	b_up = true;
	afd = open(a, O_RDONLY | O_DIRECTORY);
	bfd = open(b, O_RDONLY | O_DIRECTORY);
	EXPECT(afd >= 0 && bfd >= 0);
	ent = hs_add_fd(&e, FUSE_ROOT_ID, "a", afd);
	EXPECT(hs_refused(ent, at(e.mnt, "a"), ELOOP) == TAP_OK, "depth-1 backing, depth-1 mount");
	EXPECT(hs_still_good(&e) == TAP_OK);
	/* The same from a stack_depth=2 mount */
	rc = hs_setup(&e2, "stack_depth=2");
	e2_up = true;
	EXPECT(!rc, "a served mount with stack_depth=2: %s", strerror(-rc));
	e2.sh->test_pid = getpid();
	ent = hs_add_fd(&e2, FUSE_ROOT_ID, "a", afd);
	EXPECT(read_file(at(e2.mnt, "a/sub/f"), buf, sizeof(buf)) == 7 && !strcmp(buf, "stacked"),
	       "reading through a depth-1 backing at depth 2: %s (reply: %s)", strerror(errno),
	       strerror(ent->last_err));
	ent = hs_add_fd(&e2, FUSE_ROOT_ID, "b", bfd);
	EXPECT(hs_refused(ent, at(e2.mnt, "b"), ELOOP) == TAP_OK, "depth-2 backing, depth-2 mount");
	ret = TAP_OK;
out:
	if (afd >= 0)
		close(afd);
	if (bfd >= 0)
		close(bfd);
	drop_caches();
	if (e2_up && hs_teardown(&e2))
		ret = TAP_FAIL;
	if (b_up && unmount_extra(b))
		ret = TAP_FAIL;
	if (a_up && unmount_extra(a))
		ret = TAP_FAIL;
	if (hs_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/* --- item 2: backing fd types ---------------------------------------------------------- */

/*
 * A LOOKUP reply for name backed by fd (of this process) with attr.mode
 * mode: the ioctl must fail with want and the lookup with EIO (want 0: the
 * reply is taken and the lookup works).
 */
static int backing_is(struct hs_env *e, const char *name, int fd, uint32_t mode, int want)
{
	int ret = TAP_FAIL, rc;
	struct hs_ent *ent;
	struct stat st;

	ent = hs_add_fd(e, FUSE_ROOT_ID, name, fd);
	EXPECT(ent);
	ent->mode_set = true;
	ent->mode = mode;
	if (want) {
		EXPECT(hs_refused(ent, at(e->mnt, name), want) == TAP_OK, "%s (attr.mode %o)", name, mode);
	} else {
		errno = 0;
		rc = lstat(at(e->mnt, name), &st);
		hs_wait(ent, 1);
		EXPECT(!rc && ent->last_err == 0, "lstat %s: %s, the reply got %s", name,
		       rc ? strerror(errno) : "ok", strerror(ent->last_err));
		EXPECT((st.st_mode & S_IFMT) == (mode & S_IFMT), "%s: mode %o", name, st.st_mode);
	}
	ret = TAP_OK;
out:
	return ret;
}

/* One fd of a kind that may not back anything, with attr.mode mode: EINVAL. */
static int refused_fd(int fd, uint32_t mode, const char *what)
{
	int ret = TAP_FAIL, rc;
	struct hs_env e;

	EXPECT(fd >= 0, "making %s: %s", what, strerror(errno));
	rc = hs_setup(&e, NULL);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	EXPECT(backing_is(&e, what, fd, mode, EINVAL) == TAP_OK);
	EXPECT(hs_still_good(&e) == TAP_OK);
	ret = TAP_OK;
out:
	if (fd >= 0)
		close(fd);
	if (hs_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/* An eventfd (anon inode) with attr.mode 0: EINVAL. The old series hit BUG() here. */
static int t_type_eventfd(void)
{
	return refused_fd(eventfd(0, EFD_CLOEXEC), 0, "eventfd");
}

/* A timerfd (anon inode) with attr.mode 0: EINVAL. */
static int t_type_timerfd(void)
{
	return refused_fd(timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC), 0, "timerfd");
}

/* A BPF map fd (anon inode) with attr.mode 0: EINVAL. */
static int t_type_bpf_map(void)
{
	return refused_fd(bpf_map_create(BPF_MAP_TYPE_ARRAY, "hs_map", 4, 4, 1, NULL), 0, "bpfmap");
}

/* A pipe (pipefs, SB_NOUSER) even with the matching S_IFIFO: EINVAL. */
static int t_type_pipe(void)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC))
		p[0] = p[1] = -1;
	if (p[1] >= 0)
		close(p[1]);
	return refused_fd(p[0], S_IFIFO | 0600, "pipe");
}

/* A socket (sockfs) even with the matching S_IFSOCK: EINVAL. */
static int t_type_socket(void)
{
	return refused_fd(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), S_IFSOCK | 0777, "socket");
}

/* A unix socket node bound at path; 0 or -1. */
static int bind_socket(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), rc;

	if (s < 0)
		return -1;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	rc = bind(s, (struct sockaddr *)&sa, sizeof(sa));
	close(s);
	return rc;
}

/*
 * Special files of a real filesystem (a FIFO, a character device, a socket
 * node on the backing tmpfs, as O_PATH fds) with matching modes: only
 * regular files, directories and symlinks may back a node: EINVAL.
 */
static int t_type_special_nodes(void)
{
	int ret = TAP_FAIL, rc, fifo = -1, chr = -1, sock = -1;
	struct hs_env e;

	rc = hs_setup(&e, NULL);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	OK(mkfifo(at(e.back, "fifo"), 0644));
	OK(mknod(at(e.back, "null"), S_IFCHR | 0666, makedev(1, 3)));
	OK(bind_socket(at(e.back, "sock")));
	fifo = open(at(e.back, "fifo"), O_PATH | O_CLOEXEC);
	chr = open(at(e.back, "null"), O_PATH | O_CLOEXEC);
	sock = open(at(e.back, "sock"), O_PATH | O_CLOEXEC);
	EXPECT(fifo >= 0 && chr >= 0 && sock >= 0, "O_PATH: %s", strerror(errno));
	EXPECT(backing_is(&e, "fifo", fifo, S_IFIFO | 0644, EINVAL) == TAP_OK);
	EXPECT(backing_is(&e, "null", chr, S_IFCHR | 0666, EINVAL) == TAP_OK);
	EXPECT(backing_is(&e, "sock", sock, S_IFSOCK | 0755, EINVAL) == TAP_OK);
	EXPECT(hs_still_good(&e) == TAP_OK);
	ret = TAP_OK;
out:
	if (fifo >= 0)
		close(fifo);
	if (chr >= 0)
		close(chr);
	if (sock >= 0)
		close(sock);
	if (hs_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/*
 * /proc/self/status is a regular file of a mountable filesystem, so its
 * type is allowed; but procfs sets s_stack_depth to
 * FILESYSTEM_MAX_STACK_DEPTH (nothing may stack on it), which is not
 * shallower than any connection: the stacking rule refuses it, ELOOP, even
 * on a stack_depth=2 mount.
 */
static int t_type_proc_status(void)
{
	int ret = TAP_FAIL, rc, fd = -1;
	struct hs_env e;

	fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	EXPECT(fd >= 0);
	rc = hs_setup(&e, "stack_depth=2");
	EXPECT(!rc, "setup: %s", strerror(-rc));
	EXPECT(backing_is(&e, "status", fd, S_IFREG | 0444, ELOOP) == TAP_OK);
	EXPECT(hs_still_good(&e) == TAP_OK);
	ret = TAP_OK;
out:
	if (fd >= 0)
		close(fd);
	if (hs_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/* attr.mode 0 is refused for a regular file, a directory and a symlink: EINVAL. */
static int t_type_mode0(void)
{
	int ret = TAP_FAIL, rc, f = -1, d = -1, l = -1;
	struct hs_env e;

	rc = hs_setup(&e, NULL);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	EXPECT(write_file(at(e.back, "f"), "f", 1) == 0);
	OK(mkdir(at(e.back, "d"), 0755));
	OK(symlink("f", at(e.back, "l")));
	f = open(at(e.back, "f"), O_RDONLY | O_CLOEXEC);
	d = open(at(e.back, "d"), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	l = open(at(e.back, "l"), O_PATH | O_NOFOLLOW | O_CLOEXEC);
	EXPECT(f >= 0 && d >= 0 && l >= 0);
	EXPECT(backing_is(&e, "f", f, 0, EINVAL) == TAP_OK);
	EXPECT(backing_is(&e, "l", l, 0, EINVAL) == TAP_OK);
	/* Mode 0 is no directory type either: still EINVAL, not EISDIR. */
	EXPECT(backing_is(&e, "d", d, 0, EINVAL) == TAP_OK);
	EXPECT(hs_still_good(&e) == TAP_OK);
	ret = TAP_OK;
out:
	if (f >= 0)
		close(f);
	if (d >= 0)
		close(d);
	if (l >= 0)
		close(l);
	if (hs_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/*
 * The reply's file type must be the backing's: a directory type over a
 * file ENOTDIR, a file type over a directory EISDIR, other mismatches
 * EINVAL; the three allowed types with their own type are taken.
 */
static int t_type_mode_mismatch(void)
{
	int ret = TAP_FAIL, rc, f = -1, d = -1, l = -1;
	struct hs_env e;
	char buf[16];

	rc = hs_setup(&e, NULL);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	EXPECT(write_file(at(e.back, "f"), "file", 4) == 0);
	OK(mkdir(at(e.back, "d"), 0755));
	OK(symlink("target", at(e.back, "l")));
	f = open(at(e.back, "f"), O_RDONLY | O_CLOEXEC);
	d = open(at(e.back, "d"), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	l = open(at(e.back, "l"), O_PATH | O_NOFOLLOW | O_CLOEXEC);
	EXPECT(f >= 0 && d >= 0 && l >= 0);
	EXPECT(backing_is(&e, "f_as_dir", f, S_IFDIR | 0755, ENOTDIR) == TAP_OK);
	EXPECT(backing_is(&e, "d_as_file", d, S_IFREG | 0644, EISDIR) == TAP_OK);
	EXPECT(backing_is(&e, "f_as_link", f, S_IFLNK | 0777, EINVAL) == TAP_OK);
	EXPECT(backing_is(&e, "l_as_file", l, S_IFREG | 0644, EINVAL) == TAP_OK);
	EXPECT(backing_is(&e, "f_as_fifo", f, S_IFIFO | 0644, EINVAL) == TAP_OK);
	EXPECT(backing_is(&e, "file", f, S_IFREG | 0644, 0) == TAP_OK);
	EXPECT(backing_is(&e, "dir", d, S_IFDIR | 0755, 0) == TAP_OK);
	EXPECT(backing_is(&e, "link", l, S_IFLNK | 0777, 0) == TAP_OK);
	EXPECT(read_file(at(e.mnt, "file"), buf, sizeof(buf)) == 4 && !strcmp(buf, "file"));
	EXPECT(readlink(at(e.mnt, "link"), buf, sizeof(buf)) == 6 && !memcmp(buf, "target", 6),
	       "readlink: %s", strerror(errno));
	ret = TAP_OK;
out:
	if (f >= 0)
		close(f);
	if (d >= 0)
		close(d);
	if (l >= 0)
		close(l);
	if (hs_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/* --- who may: the privilege rule ------------------------------------------------------- */

static int fuse_prog_type(void)
{
	char buf[32];

	if (read_file("/sys/fs/fuse/bpf_prog_type_fuse", buf, sizeof(buf)) <= 0)
		return -1;
	return atoi(buf);
}

/*
 * A fuse-bpf program: enosys_create fails CREATE's prefilter with ENOSYS,
 * everything else goes on to the backing (0). Returns its fd or -errno.
 */
static int load_prog(bool enosys_create)
{
	struct bpf_insn prog[] = {
		/* r2 = ctx->opcode (struct fuse_bpf_ctx: u64 nodeid, then u32 opcode) */
		{ .code = BPF_LDX | BPF_MEM | BPF_W, .dst_reg = 2, .src_reg = 1, .off = 8 },
		{ .code = BPF_JMP | BPF_JNE | BPF_K, .dst_reg = 2, .off = 2,
		  .imm = enosys_create ? FUSE_CREATE | FUSE_PREFILTER : -1 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = -ENOSYS },
		{ .code = BPF_JMP | BPF_EXIT },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int type = fuse_prog_type(), fd;

	if (type < 0)
		return -ENOENT;
	fd = bpf_prog_load(type, enosys_create ? "hs_enosys" : "hs_pass", "GPL", prog,
			   sizeof(prog) / sizeof(prog[0]), NULL);
	return fd < 0 ? -errno : fd;
}

/* Become root of a new user namespace (mapped to our ids) with a new mount namespace. */
static int enter_userns(void)
{
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS))
		return -errno;
	if (write_file("/proc/self/setgroups", "deny", 4) ||
	    write_file("/proc/self/uid_map", "0 0 1\n", 6) ||
	    write_file("/proc/self/gid_map", "0 0 1\n", 6))
		return -EPERM;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return -errno;
	return 0;
}

/* Run fn in a child in a new user namespace; its TAP result. */
static int in_userns(int (*fn)(int), int arg)
{
	int status, rc;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return TAP_FAIL;
	if (pid == 0) {
		rc = enter_userns();
		if (rc) {
			printf("entering a user namespace: %s\n", strerror(-rc));
			_exit(TAP_FAIL);
		}
		_exit(fn(arg));
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return TAP_FAIL;
	return WEXITSTATUS(status);
}

/*
 * In the user namespace: a plain FUSE mount works (FS_USERNS_MOUNT); with
 * root_dir=, root_dir= and no_daemon, or root_bpf= it fails EPERM.
 */
static int userns_mounts(int prog)
{
	int ret = TAP_FAIL, rc, dfd = -1;
	char opts[128];
	struct hs_env e;

	rc = hs_setup(&e, NULL);
	EXPECT(!rc, "a plain FUSE mount in a user namespace: %s", strerror(-rc));
	OK(mkdir(at(e.dir, "m2"), 0755));
	dfd = open(e.back, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	EXPECT(dfd >= 0);
	snprintf(opts, sizeof(opts), "root_dir=%d", dfd);
	rc = try_mount(at(e.dir, "m2"), opts);
	EXPECT(rc == EPERM, "%s: %s, expected EPERM", opts, rc ? strerror(rc) : "mounted");
	snprintf(opts, sizeof(opts), "root_dir=%d,no_daemon", dfd);
	rc = try_mount(at(e.dir, "m2"), opts);
	EXPECT(rc == EPERM, "%s: %s, expected EPERM", opts, rc ? strerror(rc) : "mounted");
	snprintf(opts, sizeof(opts), "root_bpf=%d", prog);
	rc = try_mount(at(e.dir, "m2"), opts);
	EXPECT(rc == EPERM, "%s: %s, expected EPERM", opts, rc ? strerror(rc) : "mounted");
	rc = try_mount(at(e.dir, "m2"), NULL);
	EXPECT(rc == 0, "a second plain mount: %s", strerror(rc));
	ret = TAP_OK;
out:
	if (dfd >= 0)
		close(dfd);
	if (hs_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/* The mount options that set backings and programs need CAP_SYS_ADMIN in the initial namespace. */
static int t_priv_userns_mount(void)
{
	int ret = TAP_FAIL, prog = -1;

	if (access("/proc/self/ns/user", F_OK))
		SKIP("no /proc/self/ns/user: kernel without CONFIG_USER_NS");
	prog = load_prog(false);
	EXPECT(prog >= 0, "loading a fuse-bpf program: %s", strerror(-prog));
	ret = in_userns(userns_mounts, prog);
out:
	if (prog >= 0)
		close(prog);
	return ret;
}

/*
 * A server in the user namespace answers LOOKUPs: a plain reply works, a
 * reply with a backing fd or a program fails EPERM (the lookup EIO).
 */
static int userns_replies(int prog)
{
	int ret = TAP_FAIL, rc;
	struct hs_ent *ent;
	struct hs_env e;
	struct stat st;

	rc = hs_setup(&e, NULL);
	EXPECT(!rc, "a plain FUSE mount in a user namespace: %s", strerror(-rc));
	OK(mkdir(at(e.back, "d"), 0755));
	ent = hs_add(&e, FUSE_ROOT_ID, "plain", NULL);
	ent->nodeid = 2;
	OK(stat(at(e.mnt, "plain"), &st));
	EXPECT(S_ISDIR(st.st_mode));
	ent = hs_add(&e, FUSE_ROOT_ID, "backed", at(e.back, "d"));
	EXPECT(hs_refused(ent, at(e.mnt, "backed"), EPERM) == TAP_OK, "a backing fd from the user namespace");
	ent = hs_add(&e, FUSE_ROOT_ID, "filtered", at(e.back, "d"));
	ent->bpf_fd = prog;
	EXPECT(hs_refused(ent, at(e.mnt, "filtered"), EPERM) == TAP_OK, "a backing and a program");
	ret = TAP_OK;
out:
	if (hs_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/* Backing and program entries in a reply need CAP_SYS_ADMIN in the initial namespace. */
static int t_priv_userns_reply(void)
{
	int ret = TAP_FAIL, prog = -1;

	if (access("/proc/self/ns/user", F_OK))
		SKIP("no /proc/self/ns/user: kernel without CONFIG_USER_NS");
	prog = load_prog(false);
	EXPECT(prog >= 0, "loading a fuse-bpf program: %s", strerror(-prog));
	ret = in_userns(userns_replies, prog);
out:
	if (prog >= 0)
		close(prog);
	return ret;
}

/* The same replies and mount options from root in the initial namespaces work. */
static int t_priv_init_ns(void)
{
	int ret = TAP_FAIL, rc, prog = -1, dfd = -1;
	struct hs_ent *ent;
	char opts[128];
	struct hs_env e;
	struct stat st;

	prog = load_prog(false);
	EXPECT(prog >= 0, "loading a fuse-bpf program: %s", strerror(-prog));
	rc = hs_setup(&e, NULL);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	OK(mkdir(at(e.back, "d"), 0755));
	ent = hs_add(&e, FUSE_ROOT_ID, "filtered", at(e.back, "d"));
	ent->bpf_fd = prog;
	OK(stat(at(e.mnt, "filtered"), &st));
	EXPECT(!hs_wait(ent, 1) && ent->last_err == 0, "reply: %s", strerror(ent->last_err));
	OK(mkdir(at(e.dir, "m2"), 0755));
	dfd = open(e.back, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	EXPECT(dfd >= 0);
	snprintf(opts, sizeof(opts), "root_dir=%d,root_bpf=%d,no_daemon", dfd, prog);
	rc = try_mount(at(e.dir, "m2"), opts);
	EXPECT(rc == 0, "%s: %s", opts, strerror(rc));
	ret = TAP_OK;
out:
	if (dfd >= 0)
		close(dfd);
	if (prog >= 0)
		close(prog);
	if (hs_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/* --- item 12: the smaller ones ------------------------------------------------------------ */

/* Wait until every nodeid but the root's got back the lookups it was given; 0 or -1. */
static int forgets_balance(struct hs_shared *sh)
{
	for (int i = 0; i < 300; i++) {
		bool even = true;

		for (int n = 2; n < HS_NODES; n++)
			even &= __atomic_load_n(&sh->granted[n], __ATOMIC_SEQ_CST) ==
				__atomic_load_n(&sh->forgotten[n], __ATOMIC_SEQ_CST);
		if (even)
			return 0;
		if (i % 50 == 0)
			drop_caches();
		usleep(10000);
	}
	for (int n = 2; n < HS_NODES; n++)
		if (sh->granted[n] != sh->forgotten[n])
			printf("nodeid %d: %u lookups taken, %u forgotten\n", n, sh->granted[n],
			       sh->forgotten[n]);
	return -1;
}

/*
 * A node first looked up without a backing (nodeid 5, entry valid 0 s);
 * its revalidation LOOKUP is answered with a backing: the kernel drops the
 * dentry and must FORGET that reply's lookup. Once the caches are dropped,
 * every lookup the server gave is forgotten.
 */
static int t_revalidate_forget(void)
{
	int ret = TAP_FAIL, rc;
	struct hs_ent *ent;
	struct hs_env e;
	struct stat st;

	rc = hs_setup(&e, NULL);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	OK(mkdir(at(e.back, "d"), 0755));
	EXPECT(write_file(at(e.back, "d/f"), "x", 1) == 0);
	ent = hs_add(&e, FUSE_ROOT_ID, "n", NULL);
	ent->nodeid = 5;
	ent->entry_valid = 0;
	OK(stat(at(e.mnt, "n"), &st));
	EXPECT(!hs_wait(ent, 1) && e.sh->granted[5] == 1, "%u lookups of n", e.sh->granted[5]);
	/* Now backed: the next revalidation gets a backing reply. */
	snprintf(ent->path, sizeof(ent->path), "%s", at(e.back, "d"));
	ent->kind = HS_BACKING;
	ent->entry_valid = 3600;
	usleep(20000);
	OK(stat(at(e.mnt, "n/f"), &st));
	EXPECT(hs_wait(ent, 3) == 0, "%u replies", ent->replies);
	printf("lookups taken for nodeid 5: %u (plain, revalidation, new lookup)\n", e.sh->granted[5]);
	EXPECT(e.sh->granted[5] >= 2, "the revalidation was not answered with a backing");
	drop_caches();
	EXPECT(forgets_balance(e.sh) == 0, "the server's lookup counts do not balance");
	ret = TAP_OK;
out:
	if (hs_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/*
 * A backed create that a filter fails with ENOSYS must not switch CREATE
 * off for the connection: a create in an unbacked directory of the same
 * mount then still sends FUSE_CREATE (not FUSE_MKNOD) to the server.
 */
static int t_create_enosys(void)
{
	int ret = TAP_FAIL, rc, prog = -1, fd = -1;
	struct tfuse_counts before, now;
	struct hs_ent *ent;
	struct hs_env e;
	struct stat st;

	prog = load_prog(true);
	if (prog == -ENOENT)
		SKIP("kernel without fuse-bpf BPF");
	EXPECT(prog >= 0, "loading the ENOSYS filter: %s", strerror(-prog));
	rc = hs_setup(&e, NULL);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	OK(mkdir(at(e.back, "b"), 0755));
	ent = hs_add(&e, FUSE_ROOT_ID, "b", at(e.back, "b"));
	ent->bpf_fd = prog;
	hs_add(&e, FUSE_ROOT_ID, "u", NULL)->nodeid = 3;
	OK(stat(at(e.mnt, "b"), &st));
	OK(stat(at(e.mnt, "u"), &st));
	fd = open(at(e.mnt, "b/new"), O_CREAT | O_WRONLY, 0644);
	printf("backed create with the filter's ENOSYS: %s\n", fd >= 0 ? "created" : strerror(errno));
	EXPECT(fd >= 0 || errno == ENOSYS, "backed create: %s", strerror(errno));
	EXPECT((fd >= 0) == !lstat(at(e.back, "b/new"), &st),
	       "the open %s but the backing file is %s", fd >= 0 ? "succeeded" : "failed",
	       fd >= 0 ? "missing" : "there");
	tfuse_counts_get(e.counts, &before);
	ERR(open(at(e.mnt, "u/new"), O_CREAT | O_WRONLY, 0644), EROFS);
	tfuse_counts_get(e.counts, &now);
	EXPECT(now.op[FUSE_CREATE] - before.op[FUSE_CREATE] == 1 &&
	       now.op[FUSE_MKNOD] == before.op[FUSE_MKNOD],
	       "the unbacked create sent %u CREATE and %u MKNOD", now.op[FUSE_CREATE] - before.op[FUSE_CREATE],
	       now.op[FUSE_MKNOD] - before.op[FUSE_MKNOD]);
	ret = TAP_OK;
out:
	if (fd >= 0)
		close(fd);
	if (prog >= 0)
		close(prog);
	if (hs_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/*
 * rename between a backed directory (nodeid 0) and an unbacked one, both
 * ways, fails EXDEV; the server gets no RENAME and nothing about nodeid 0.
 */
static int t_rename_backed_unbacked(void)
{
	struct tfuse_counts before, now;
	int ret = TAP_FAIL, rc;
	struct hs_ent *ent;
	struct hs_env e;
	struct stat st;

	rc = hs_setup(&e, NULL);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	OK(mkdir(at(e.back, "b"), 0755));
	EXPECT(write_file(at(e.back, "b/f"), "f", 1) == 0);
	hs_add(&e, FUSE_ROOT_ID, "b", at(e.back, "b"));
	hs_add(&e, FUSE_ROOT_ID, "u", NULL)->nodeid = 3;
	ent = hs_add(&e, 3, "uf", NULL);
	ent->nodeid = 4;
	ent->mode_set = true;
	ent->mode = S_IFREG | 0644;
	OK(stat(at(e.mnt, "b/f"), &st));
	OK(stat(at(e.mnt, "u/uf"), &st));
	tfuse_counts_get(e.counts, &before);
	ERR(rename(at(e.mnt, "b/f"), at(e.mnt, "u/f")), EXDEV);
	ERR(rename(at(e.mnt, "u/uf"), at(e.mnt, "b/uf")), EXDEV);
	ERR(renameat2(AT_FDCWD, at(e.mnt, "u/uf"), AT_FDCWD, at(e.mnt, "b/uf"), RENAME_NOREPLACE), EXDEV);
	tfuse_counts_get(e.counts, &now);
	EXPECT(now.op[FUSE_RENAME] == before.op[FUSE_RENAME] &&
	       now.op[FUSE_RENAME2] == before.op[FUSE_RENAME2], "the server got %u RENAME, %u RENAME2",
	       now.op[FUSE_RENAME] - before.op[FUSE_RENAME], now.op[FUSE_RENAME2] - before.op[FUSE_RENAME2]);
	EXPECT(e.sh->nodeid0 == 0, "the server got %u requests about nodeid 0 (the last %s)",
	       e.sh->nodeid0, tfuse_opname(e.sh->nodeid0_op));
	OK(lstat(at(e.back, "b/f"), &st));
	ret = TAP_OK;
out:
	if (hs_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

#define MIX_FILES 6

/*
 * make fuzz, seed 0x3874923e1e7c2df5 epoch 120 (bug 2): lockdep "possible
 * circular locking dependency", a real deadlock when the backing file
 * system is being frozen. The chain: a rename of two backed files holds
 * their FUSE inodes and takes the backing's freeze protection (as overlayfs
 * does); a splice into a backing file holds that and takes the pipe's lock;
 * a splice into a server's file held the pipe's lock and took the FUSE
 * inode's; and a rename of a server's file over a backed one (or back)
 * holds one FUSE inode and takes the other. Fixed by splicing into a
 * server's file with its inode locked before the pipe, as overlayfs does.
 * Only the debug kernel (lockdep) can fail this case.
 */
static int t_splice_served_rename_backed(void)
{
	int ret = TAP_FAIL, rc, i, j;
	struct hs_ent *ent;
	struct hs_env e;
	char name[16];
	struct stat st;

	rc = hs_setup(&e, NULL);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	OK(mkdir(at(e.back, "d"), 0755));
	EXPECT(write_file(at(e.back, "d/x"), "x", 1) == 0 && write_file(at(e.back, "d/y"), "y", 1) == 0);
	hs_add(&e, FUSE_ROOT_ID, "d", at(e.back, "d"));
	for (i = 0; i < MIX_FILES; i++) {
		snprintf(name, sizeof(name), "s%d", i);
		ent = hs_add(&e, FUSE_ROOT_ID, name, NULL);
		EXPECT(ent);
		ent->nodeid = 10 + i;
		ent->mode_set = true;
		ent->mode = S_IFREG | 0644;
		snprintf(name, sizeof(name), "b%d", i);
		EXPECT(write_file(at(e.back, name), "b", 1) == 0);
		ent = hs_add(&e, FUSE_ROOT_ID, name, at(e.back, name));
		EXPECT(ent);
		ent->open_flags = O_RDWR;
	}
	/* Interleaved, so that some server inode sits below some backed one */
	for (i = 0; i < MIX_FILES; i++) {
		snprintf(name, sizeof(name), "s%d", i);
		OK(stat(at(e.mnt, name), &st));
		snprintf(name, sizeof(name), "b%d", i);
		OK(stat(at(e.mnt, name), &st));
	}
	/* The server fails its WRITEs (EIO): the locks are taken all the same */
	rc = splice_file(at(e.mnt, "s0"), O_WRONLY, 0, 512);
	EXPECT(rc == -EIO, "splice into a server's file: %s", rc < 0 ? strerror(-rc) : "written");
	rc = splice_file(at(e.back, "b0"), O_WRONLY, 0, 512);
	EXPECT(rc == 512, "splice into a backing file: %s", rc < 0 ? strerror(-rc) : "short");
	OK(rename(at(e.mnt, "d/x"), at(e.mnt, "d/y")));
	/* Renames mixing the two kinds: the server refuses them (EIO) */
	for (i = 0; i < MIX_FILES; i++)
		for (j = 0; j < MIX_FILES; j++) {
			char s[16], b[16];

			snprintf(s, sizeof(s), "s%d", i);
			snprintf(b, sizeof(b), "b%d", j);
			rename(at(e.mnt, s), at(e.mnt, b));
			rename(at(e.mnt, b), at(e.mnt, s));
		}
	EXPECT(run("dmesg | grep -q 'circular locking dependency'") != 0,
	       "lockdep found a circular locking dependency (dmesg)");
	ret = TAP_OK;
out:
	if (hs_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/* Write a notification (code, then len bytes of arg) to /dev/fuse; 0 or -errno. */
static int notify(int fd, int code, const void *arg, size_t len)
{
	char buf[256];
	struct fuse_out_header oh = { .len = sizeof(oh) + len, .error = code, .unique = 0 };

	memcpy(buf, &oh, sizeof(oh));
	memcpy(buf + sizeof(oh), arg, len);
	return write(fd, buf, oh.len) == (ssize_t)oh.len ? 0 : -errno;
}

#define NOTIFY_FILES 2000

/*
 * Notifications naming nodeid 0 find no inode, however many passthrough
 * (nodeid 0) inodes exist: INVAL_INODE, STORE and RETRIEVE fail ENOENT.
 * (The old series matched such inodes by nodeid alone, so a hash bucket
 * shared with one of them found it.) INVAL_INODE of the root works.
 */
static int t_notify_nodeid0(void)
{
	struct fuse_notify_inval_inode_out inval = { .ino = 0 };
	struct fuse_notify_retrieve_out retr = { .notify_unique = 77, .nodeid = 0, .size = 4096 };
	struct {
		struct fuse_notify_store_out o;
		char data[8];
	} store = { .o = { .nodeid = 0, .offset = 0, .size = 8 }, .data = "notified" };
	int ret = TAP_FAIL, rc;
	struct hs_env e;
	struct stat st;
	char name[32];

	rc = hs_setup(&e, NULL);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	OK(mkdir(at(e.back, "b"), 0755));
	EXPECT(run("cd %s/b && seq 1 %d | xargs touch", e.back, NOTIFY_FILES) == 0);
	hs_add(&e, FUSE_ROOT_ID, "b", at(e.back, "b"));
	for (int i = 1; i <= NOTIFY_FILES; i++) {
		snprintf(name, sizeof(name), "b/%d", i);
		OK(stat(at(e.mnt, name), &st));
	}
	inval.ino = FUSE_ROOT_ID;
	rc = notify(e.fuse_fd, FUSE_NOTIFY_INVAL_INODE, &inval, sizeof(inval));
	EXPECT(rc == 0, "INVAL_INODE of the root: %s", strerror(-rc));
	inval.ino = 0;
	rc = notify(e.fuse_fd, FUSE_NOTIFY_INVAL_INODE, &inval, sizeof(inval));
	EXPECT(rc == -ENOENT, "INVAL_INODE of nodeid 0: %s", rc ? strerror(-rc) : "found an inode");
	rc = notify(e.fuse_fd, FUSE_NOTIFY_STORE, &store, sizeof(store));
	EXPECT(rc == -ENOENT, "STORE to nodeid 0: %s", rc ? strerror(-rc) : "found an inode");
	rc = notify(e.fuse_fd, FUSE_NOTIFY_RETRIEVE, &retr, sizeof(retr));
	EXPECT(rc == -ENOENT, "RETRIEVE of nodeid 0: %s", rc ? strerror(-rc) : "found an inode");
	ret = TAP_OK;
out:
	if (hs_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/* A CUSE device's server: INIT names the device, OPEN and POLL answered. */
static void cuse_serve(int fd, const char *devname)
{
	static char buf[1 << 17];

	for (;;) {
		struct fuse_in_header *h = (void *)buf;
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == ENOENT))
			continue;
		if (n < (ssize_t)sizeof(*h))
			return;
		if (h->opcode == CUSE_INIT) {
			struct {
				struct cuse_init_out o;
				char info[64];
			} r = { .o = { .major = FUSE_KERNEL_VERSION, .minor = FUSE_KERNEL_MINOR_VERSION,
				       .max_read = 65536, .max_write = 65536 } };
			int len = snprintf(r.info, sizeof(r.info), "DEVNAME=%s", devname) + 1;

			tfuse_reply(fd, h->unique, 0, &r, sizeof(r.o) + len);
		} else if (h->opcode == FUSE_OPEN) {
			struct fuse_open_out o = { .fh = 1, .open_flags = FOPEN_DIRECT_IO };

			tfuse_reply(fd, h->unique, 0, &o, sizeof(o));
		} else if (h->opcode == FUSE_POLL) {
			struct fuse_poll_out o = { .revents = POLLIN };

			tfuse_reply(fd, h->unique, 0, &o, sizeof(o));
		} else if (h->opcode != FUSE_FORGET && h->opcode != FUSE_INTERRUPT) {
			tfuse_reply(fd, h->unique, h->opcode == FUSE_RELEASE || h->opcode == FUSE_FLUSH ?
					0 : -ENOSYS, NULL, 0);
		}
	}
}

/*
 * poll() on a CUSE device goes to its server and gives its revents (the
 * fuse-bpf check in fuse_file_poll must not read CUSE's inode as a FUSE
 * inode; KASAN would report that).
 */
static int t_cuse_poll(void)
{
	int ret = TAP_FAIL, cfd = -1, dfd = -1, status;
	char devname[32], dev[64];
	struct pollfd pfd;
	pid_t server = -1;

	if (access("/dev/cuse", F_OK))
		SKIP("no /dev/cuse: kernel without CONFIG_CUSE");
	snprintf(devname, sizeof(devname), "hs_cuse_%d", getpid());
	snprintf(dev, sizeof(dev), "/dev/%s", devname);
	cfd = open("/dev/cuse", O_RDWR | O_CLOEXEC);
	EXPECT(cfd >= 0, "open /dev/cuse: %s", strerror(errno));
	server = fork();
	EXPECT(server >= 0);
	if (server == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		cuse_serve(cfd, devname);
		_exit(0);
	}
	for (int i = 0; i < 200 && access(dev, F_OK); i++)
		usleep(10000);
	dfd = open(dev, O_RDWR | O_CLOEXEC);
	EXPECT(dfd >= 0, "open %s: %s", dev, strerror(errno));
	pfd = (struct pollfd){ .fd = dfd, .events = POLLIN | POLLOUT };
	EXPECT(poll(&pfd, 1, 2000) == 1, "poll: %s", strerror(errno));
	EXPECT(pfd.revents == POLLIN, "revents %#x, the server said POLLIN", pfd.revents);
	ret = TAP_OK;
out:
	if (dfd >= 0)
		close(dfd);
	if (cfd >= 0)
		close(cfd);
	if (server > 0) {
		kill(server, SIGKILL);
		waitpid(server, &status, 0);
	}
	return ret;
}

/* --- item 14: inode numbers ---------------------------------------------------------------- */

/* The same ext4 image every time (fixed hash seed, one block group), the same tree in it. */
static int make_ext4(const char *img, const char *mnt)
{
	return run("truncate -s 32M %s && mkfs.ext4 -q -F -b 4096 -I 256 "
		   "-E hash_seed=5b1f2a3c-0d4e-4f60-8a7b-9c0d1e2f3a4b %s && mkdir -p %s && "
		   "mount -o loop %s %s && cd %s && mkdir tree tree/d && echo a > tree/a && "
		   "echo b > tree/d/b && ln -s a tree/l", img, img, mnt, img, mnt, mnt);
}

#define INO_PATHS 5
static const char *const ino_paths[INO_PATHS] = { ".", "a", "d", "d/b", "l" };
#define INO_XBIT (1ULL << 56)

/*
 * Under view/name, each path's st_ino is the backing's ino | tag; its
 * (st_dev, st_ino) is added to seen (n of them).
 */
static int ino_check_tree(const char *view, const char *back, uint64_t tag,
			  struct stat *seen, int *n)
{
	int ret = TAP_FAIL;
	struct stat v, b;

	for (int i = 0; i < INO_PATHS; i++) {
		OK(lstat(at(view, ino_paths[i]), &v));
		OK(lstat(at(back, ino_paths[i]), &b));
		EXPECT(v.st_ino == (b.st_ino | tag), "%s: st_ino %#llx, backing %#llx, expected %#llx",
		       at(view, ino_paths[i]), (unsigned long long)v.st_ino,
		       (unsigned long long)b.st_ino, (unsigned long long)(b.st_ino | tag));
		for (int j = 0; j < *n; j++)
			EXPECT(seen[j].st_dev != v.st_dev || seen[j].st_ino != v.st_ino,
			       "%s has the (st_dev, st_ino) of an earlier file: %#llx",
			       at(view, ino_paths[i]), (unsigned long long)v.st_ino);
		seen[(*n)++] = v;
	}
	ret = TAP_OK;
out:
	return ret;
}

/* readdir's d_ino of each entry of dir equals its st_ino. */
static int ino_check_readdir(const char *dir)
{
	int ret = TAP_FAIL, entries = 0;
	struct dirent *de;
	struct stat st;
	DIR *d = opendir(dir);

	EXPECT(d, "opendir %s: %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		entries++;
		OK(lstat(at(dir, de->d_name), &st));
		EXPECT(de->d_ino == st.st_ino, "%s/%s: d_ino %#llx, st_ino %#llx", dir, de->d_name,
		       (unsigned long long)de->d_ino, (unsigned long long)st.st_ino);
	}
	EXPECT(entries > 0, "%s is empty", dir);
	ret = TAP_OK;
out:
	if (d)
		closedir(d);
	return ret;
}

/*
 * Two ext4 filesystems made the same way (same inode numbers) backing
 * "one" (first named: numbers kept) and "two" (numbers | 1 << 56): every
 * (st_dev, st_ino) in the view is unique and readdir agrees with stat.
 */
static int t_ino_two_ext4(void)
{
	int ret = TAP_FAIL, rc, n = 0;
	char e1[128], e2[128], i1[128], i2[128];
	bool e1_up = false, e2_up = false;
	struct stat seen[2 * INO_PATHS], a1, a2;
	struct hs_env e;

	rc = hs_setup(&e, NULL);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	snprintf(e1, sizeof(e1), "%s/e1", e.dir);
	snprintf(e2, sizeof(e2), "%s/e2", e.dir);
	snprintf(i1, sizeof(i1), "%s/e1.img", e.back);
	snprintf(i2, sizeof(i2), "%s/e2.img", e.back);
	EXPECT(make_ext4(i1, e1) == 0, "ext4 one");
	e1_up = true;
	EXPECT(make_ext4(i2, e2) == 0, "ext4 two");
	e2_up = true;
	OK(lstat(at(e1, "tree/d/b"), &a1));
	OK(lstat(at(e2, "tree/d/b"), &a2));
	EXPECT(a1.st_ino == a2.st_ino, "the images differ: inodes %lu and %lu", a1.st_ino, a2.st_ino);
	hs_add(&e, FUSE_ROOT_ID, "one", at(e1, "tree"));
	hs_add(&e, FUSE_ROOT_ID, "two", at(e2, "tree"));
	EXPECT(ino_check_tree(at(e.mnt, "one"), at(e1, "tree"), 0, seen, &n) == TAP_OK);
	EXPECT(ino_check_tree(at(e.mnt, "two"), at(e2, "tree"), INO_XBIT, seen, &n) == TAP_OK);
	EXPECT(ino_check_readdir(at(e.mnt, "one")) == TAP_OK);
	EXPECT(ino_check_readdir(at(e.mnt, "one/d")) == TAP_OK);
	EXPECT(ino_check_readdir(at(e.mnt, "two")) == TAP_OK);
	EXPECT(ino_check_readdir(at(e.mnt, "two/d")) == TAP_OK);
	ret = TAP_OK;
out:
	/* The view holds the backings: it goes first. */
	if (e.fuse_fd >= 0)
		close(e.fuse_fd);
	e.fuse_fd = -1;
	if (e.fuse_mounted)
		tfuse_stop(e.mnt, e.server);
	e.fuse_mounted = false;
	e.server = -1;
	if (e2_up && unmount_extra(e2))
		ret = TAP_FAIL;
	if (e1_up && unmount_extra(e1))
		ret = TAP_FAIL;
	if (hs_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/* --- the hostile review of 28-37 ----------------------------------------------------------- */

/* Run fn(arg) in a child process; its TAP result (a crash or a signal fails). */
static int in_child(int (*fn)(void *), void *arg)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return TAP_FAIL;
	if (pid == 0)
		_exit(fn(arg));
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return TAP_FAIL;
	return WEXITSTATUS(status);
}

/* Become uid and gid 65534 with no supplementary groups; 0 once no capability is left. */
static int drop_to_nobody(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];

	if (setresgid(65534, 65534, 65534) || setgroups(0, NULL) ||
	    setresuid(65534, 65534, 65534)) {
		printf("dropping to 65534: %s\n", strerror(errno));
		return -1;
	}
	if (syscall(SYS_capget, &hdr, data)) {
		printf("capget: %s\n", strerror(errno));
		return -1;
	}
	for (int i = 0; i < 2; i++) {
		if (data[i].effective || data[i].permitted || data[i].inheritable) {
			printf("capabilities left: eff %#x perm %#x inh %#x\n", data[i].effective,
			       data[i].permitted, data[i].inheritable);
			return -1;
		}
	}
	return 0;
}

struct split_args {
	int fsfd;	/* a fuse fs_context from root's fsopen() */
	int dirfd;	/* a directory root opened */
	int prog;	/* a fuse-bpf program */
};

/* As nobody: the fuse-bpf options on root's fs_context fail EPERM. */
static int fsconfig_as_nobody(void *p)
{
	const struct split_args *a = p;
	int ret = TAP_FAIL;
	char num[16];

	EXPECT(drop_to_nobody() == 0);
	snprintf(num, sizeof(num), "%d", a->dirfd);
	ERR(syscall(SYS_fsconfig, a->fsfd, FSCONFIG_SET_STRING, "root_dir", num, 0), EPERM);
	ERR(syscall(SYS_fsconfig, a->fsfd, FSCONFIG_SET_FLAG, "no_daemon", NULL, 0), EPERM);
	snprintf(num, sizeof(num), "%d", a->prog);
	ERR(syscall(SYS_fsconfig, a->fsfd, FSCONFIG_SET_STRING, "root_bpf", num, 0), EPERM);
	ret = TAP_OK;
out:
	return ret;
}

/*
 * The new mount API splits a mount over tasks: root fsopen()s "fuse" and an
 * unprivileged task (its child as 65534, no capabilities) fsconfig()s it.
 * The task giving root_dir=, no_daemon or root_bpf= must itself have
 * CAP_SYS_ADMIN: EPERM (the old series checked only at fill_super, in the
 * creating task, so root's FSCONFIG_CMD_CREATE would have taken them).
 * The directory was opened by root, so only the giver's check is at stake.
 * Control: root gives them on a fresh context, creates and mounts it.
 */
static int t_priv_fsconfig_split(void)
{
	struct split_args a = { .fsfd = -1, .dirfd = -1, .prog = -1 };
	int ret = TAP_FAIL, rc, fsfd = -1, mfd = -1;
	struct hs_env e;
	struct stat st;
	char num[16];

	rc = hs_setup(&e, NULL);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	EXPECT(write_file(at(e.back, "f"), "split", 5) == 0);
	a.prog = load_prog(false);
	EXPECT(a.prog >= 0, "loading a fuse-bpf program: %s", strerror(-a.prog));
	a.dirfd = open(e.back, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	EXPECT(a.dirfd >= 0);
	a.fsfd = syscall(SYS_fsopen, "fuse", FSOPEN_CLOEXEC);
	EXPECT(a.fsfd >= 0, "fsopen(\"fuse\"): %s", strerror(errno));
	EXPECT(in_child(fsconfig_as_nobody, &a) == TAP_OK, "fsconfig by an unprivileged task");
	/* Control: all of it from root */
	fsfd = syscall(SYS_fsopen, "fuse", FSOPEN_CLOEXEC);
	EXPECT(fsfd >= 0, "fsopen(\"fuse\"): %s", strerror(errno));
	snprintf(num, sizeof(num), "%d", a.dirfd);
	OK(syscall(SYS_fsconfig, fsfd, FSCONFIG_SET_STRING, "root_dir", num, 0));
	OK(syscall(SYS_fsconfig, fsfd, FSCONFIG_SET_FLAG, "no_daemon", NULL, 0));
	OK(syscall(SYS_fsconfig, fsfd, FSCONFIG_CMD_CREATE, NULL, NULL, 0));
	mfd = syscall(SYS_fsmount, fsfd, FSMOUNT_CLOEXEC, 0);
	EXPECT(mfd >= 0, "fsmount: %s", strerror(errno));
	OK(fstatat(mfd, "f", &st, 0));
	EXPECT(S_ISREG(st.st_mode) && st.st_size == 5, "f through the mount: mode %o size %lld",
	       st.st_mode, (long long)st.st_size);
	ret = TAP_OK;
out:
	if (mfd >= 0)
		close(mfd);
	if (fsfd >= 0)
		close(fsfd);
	if (a.fsfd >= 0)
		close(a.fsfd);
	if (a.dirfd >= 0)
		close(a.dirfd);
	if (a.prog >= 0)
		close(a.prog);
	if (hs_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/* Send fd over the unix socket sock (SCM_RIGHTS); 0 or -errno. */
static int send_fd(int sock, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 }, byte = 'f';
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			      .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == 1 ? 0 : -errno;
}

/* Receive an fd from the unix socket sock; the fd or -errno. */
static int recv_fd(int sock)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 }, byte;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			      .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm;
	int fd;

	if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != 1)
		return -errno;
	cm = CMSG_FIRSTHDR(&msg);
	if (!cm || cm->cmsg_type != SCM_RIGHTS || cm->cmsg_len != CMSG_LEN(sizeof(int)))
		return -EBADMSG;
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

struct opener_args {
	int sock;
	const char *dir;
};

/* As nobody: open dir and send the fd to the parent. */
static int send_dir_as_nobody(void *p)
{
	const struct opener_args *a = p;
	int ret = TAP_FAIL, dfd = -1, rc;

	EXPECT(drop_to_nobody() == 0);
	dfd = open(a->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	EXPECT(dfd >= 0, "open %s as 65534: %s", a->dir, strerror(errno));
	rc = send_fd(a->sock, dfd);
	EXPECT(!rc, "sending the fd: %s", strerror(-rc));
	ret = TAP_OK;
out:
	if (dfd >= 0)
		close(dfd);
	return ret;
}

/*
 * root_dir= must have been opened by someone with CAP_SYS_ADMIN (a setuid
 * helper mounting with a user's fd): a directory fd that an unprivileged
 * task (65534) opened and passed over SCM_RIGHTS makes root's mount(2)
 * fail EPERM. Control: the same directory opened by root mounts.
 */
static int t_priv_root_dir_opener(void)
{
	int ret = TAP_FAIL, rc, sv[2] = { -1, -1 }, dfd = -1;
	struct opener_args a;
	bool m2_up = false;
	struct hs_env e;
	char m2[128];
	struct stat st;

	rc = hs_setup(&e, NULL);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	EXPECT(write_file(at(e.back, "f"), "opener", 6) == 0);
	snprintf(m2, sizeof(m2), "%s/m2", e.dir);
	OK(mkdir(m2, 0755));
	/* mkdtemp made it 0700: let 65534 reach the backing tmpfs */
	OK(chmod(e.dir, 0755));
	OK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
	a = (struct opener_args){ .sock = sv[1], .dir = e.back };
	EXPECT(in_child(send_dir_as_nobody, &a) == TAP_OK, "the unprivileged opener");
	dfd = recv_fd(sv[0]);
	EXPECT(dfd >= 0, "receiving the fd: %s", strerror(-dfd));
	rc = mount_nodaemon_fd(m2, dfd, NULL);
	if (!rc)
		unmount_extra(m2);
	EXPECT(rc == -EPERM, "root_dir opened by 65534: %s, expected EPERM",
	       rc ? strerror(-rc) : "mounted");
	/* Control: opened by root */
	rc = mount_nodaemon(m2, e.back, NULL);
	EXPECT(!rc, "root_dir opened by root: %s", strerror(-rc));
	m2_up = true;
	OK(stat(at(m2, "f"), &st));
	EXPECT(st.st_size == 6, "size %lld", (long long)st.st_size);
	ret = TAP_OK;
out:
	if (m2_up && unmount_extra(m2))
		ret = TAP_FAIL;
	if (dfd >= 0)
		close(dfd);
	for (int i = 0; i < 2; i++)
		if (sv[i] >= 0)
			close(sv[i]);
	if (hs_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/* Set or clear FS_APPEND_FL on path; 0 or -errno. */
static int set_append(const char *path, bool on)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), flags = 0, rc = -1;

	if (fd < 0)
		return -errno;
	if (!ioctl(fd, FS_IOC_GETFLAGS, &flags)) {
		flags = on ? flags | FS_APPEND_FL : flags & ~FS_APPEND_FL;
		rc = ioctl(fd, FS_IOC_SETFLAGS, &flags);
	}
	rc = rc ? -errno : 0;
	close(fd);
	return rc;
}

/*
 * An fd opened through the view (O_WRONLY | O_APPEND) before the backing
 * file became append-only (chattr +a on the backing ext4 file): the FUSE
 * inode's flags are older than the chattr, so ftruncate()'s own S_APPEND
 * check passes; the backed setattr must refresh them and refuse the size
 * change, EPERM, leaving the size. Appending still works.
 */
static int t_append_ftruncate_after_chattr(void)
{
	int ret = TAP_FAIL, rc, fd = -1;
	bool ext_up = false, view_up = false, flag = false;
	char ext[128], img[128], view[128];
	struct hs_env e;
	struct stat st;

	rc = hs_setup(&e, NULL);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	snprintf(ext, sizeof(ext), "%s/ext", e.dir);
	snprintf(img, sizeof(img), "%s/ext.img", e.back);
	snprintf(view, sizeof(view), "%s/view", e.dir);
	OK(mkdir(view, 0755));
	EXPECT(make_ext4(img, ext) == 0, "ext4");
	ext_up = true;
	rc = mount_nodaemon(view, at(ext, "tree"), NULL);
	EXPECT(!rc, "the view: %s", strerror(-rc));
	view_up = true;
	fd = open(at(view, "a"), O_WRONLY | O_APPEND | O_CLOEXEC);
	EXPECT(fd >= 0, "open view/a: %s", strerror(errno));
	rc = set_append(at(ext, "tree/a"), true);
	EXPECT(!rc, "chattr +a on the backing file: %s", strerror(-rc));
	flag = true;
	ERR(ftruncate(fd, 0), EPERM);
	OK(stat(at(ext, "tree/a"), &st));
	EXPECT(st.st_size == 2, "the backing file's size is %lld, was 2", (long long)st.st_size);
	EXPECT(write(fd, "b\n", 2) == 2, "appending: %s", strerror(errno));
	OK(stat(at(ext, "tree/a"), &st));
	EXPECT(st.st_size == 4, "size %lld after appending 2 bytes to 2", (long long)st.st_size);
	ret = TAP_OK;
out:
	if (fd >= 0)
		close(fd);
	if (flag && set_append(at(ext, "tree/a"), false))
		ret = TAP_FAIL;
	if (view_up && unmount_extra(view))
		ret = TAP_FAIL;
	if (ext_up && unmount_extra(ext))
		ret = TAP_FAIL;
	if (hs_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/* In a child (another lock owner): F_GETLK on *fd sees the parent's write lock. */
static int getlk_sees_lock(void *p)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int ret = TAP_FAIL;

	OK(fcntl(*(int *)p, F_GETLK, &fl));
	EXPECT(fl.l_type == F_WRLCK && fl.l_pid == getppid(),
	       "F_GETLK: type %d pid %d, expected F_WRLCK by %d", fl.l_type, fl.l_pid, getppid());
	ret = TAP_OK;
out:
	return ret;
}

#define QUIET_DATA 65536

/*
 * The control: the connection takes locks to the server. A node the
 * server serves itself (nodeid 3) sends its F_SETLK there (one SETLK,
 * which hs_handler answers EIO).
 */
static int server_has_locks(struct hs_env *e)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	struct tfuse_counts before, now;
	int ret = TAP_FAIL, fd = -1;
	struct hs_ent *ent;

	ent = hs_add(e, FUSE_ROOT_ID, "served", NULL);
	EXPECT(ent);
	ent->nodeid = 3;
	ent->mode_set = true;
	ent->mode = S_IFREG | 0644;
	fd = open(at(e->mnt, "served"), O_RDWR | O_CLOEXEC);
	EXPECT(fd >= 0, "open: %s", strerror(errno));
	tfuse_counts_get(e->counts, &before);
	ERR(fcntl(fd, F_SETLK, &fl), EIO);
	tfuse_counts_get(e->counts, &now);
	EXPECT(now.op[FUSE_SETLK] - before.op[FUSE_SETLK] == 1, "%u SETLK reached the server",
	       now.op[FUSE_SETLK] - before.op[FUSE_SETLK]);
	ret = TAP_OK;
out:
	if (fd >= 0)
		close(fd);
	return ret;
}

/*
 * A backed node (nodeid 0) is unknown to the server, which offers POSIX and
 * flock locks at INIT: locks are kept by the kernel (a write lock works
 * and another process's F_GETLK sees it; flock works), ioctls fail ENOTTY
 * (FS_IOC_GETFLAGS and an unknown one), readahead(2) and fadvise(WILLNEED)
 * (where the kernel has it) read nothing into the FUSE inode's page cache,
 * FIBMAP has no answer;
 * and the server gets no GETLK, SETLK, SETLKW, IOCTL, READ or BMAP, and no
 * request about nodeid 0 at all. (The old series sent them all, nodeid 0.)
 * Control: a node the server serves itself sends its lock to the server.
 */
static int t_backed_node_no_server_requests(void)
{
	static const uint32_t quiet[] = { FUSE_GETLK, FUSE_SETLK, FUSE_SETLKW,
					  FUSE_IOCTL, FUSE_READ, FUSE_BMAP };
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int ret = TAP_FAIL, rc, fd = -1, flags = 0, blk = 0;
	static char data[QUIET_DATA];
	struct tfuse_counts now;
	bool quiet_ok = true;
	struct hs_env e;

	rc = hs_setup_flags(&e, NULL, FUSE_POSIX_LOCKS | FUSE_FLOCK_LOCKS);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	memset(data, 'q', sizeof(data));
	EXPECT(write_file(at(e.back, "f"), data, sizeof(data)) == 0);
	hs_add(&e, FUSE_ROOT_ID, "f", at(e.back, "f"));
	fd = open(at(e.mnt, "f"), O_RDWR | O_CLOEXEC);
	EXPECT(fd >= 0, "open: %s", strerror(errno));
	OK(fcntl(fd, F_SETLK, &fl));
	EXPECT(in_child(getlk_sees_lock, &fd) == TAP_OK, "the lock seen from another process");
	OK(flock(fd, LOCK_EX));
	ERR(ioctl(fd, FS_IOC_GETFLAGS, &flags), ENOTTY);
	ERR(ioctl(fd, _IO('h', 0x5a)), ENOTTY);
	/* ENOSYS: a kernel without CONFIG_ADVISE_SYSCALLS; readahead(2) takes the same path */
	rc = posix_fadvise(fd, 0, 0, POSIX_FADV_WILLNEED);
	EXPECT(rc == 0 || rc == ENOSYS, "posix_fadvise(WILLNEED): %s", strerror(rc));
	if (rc)
		printf("posix_fadvise: %s (no fadvise64 syscall in this kernel)\n", strerror(rc));
	OK(readahead(fd, 0, QUIET_DATA));
	OK(ioctl(fd, FIBMAP, &blk));
	EXPECT(blk == 0, "FIBMAP: block %d", blk);
	fl.l_type = F_UNLCK;
	OK(fcntl(fd, F_SETLK, &fl));
	OK(flock(fd, LOCK_UN));
	fl.l_type = F_WRLCK;
	OK(fcntl(fd, F_SETLK, &fl));
	/* close() drops this one: locks_remove_posix() */
	close(fd);
	fd = -1;
	tfuse_counts_get(e.counts, &now);
	for (size_t i = 0; i < sizeof(quiet) / sizeof(quiet[0]); i++) {
		if (now.op[quiet[i]]) {
			printf("the server got %u %s\n", now.op[quiet[i]], tfuse_opname(quiet[i]));
			quiet_ok = false;
		}
	}
	EXPECT(quiet_ok, "requests about a backed node reached the server");
	EXPECT(e.sh->nodeid0 == 0, "the server got %u requests about nodeid 0 (the last %s)",
	       e.sh->nodeid0, tfuse_opname(e.sh->nodeid0_op));
	EXPECT(server_has_locks(&e) == TAP_OK, "the server's own node");
	ret = TAP_OK;
out:
	if (fd >= 0)
		close(fd);
	if (hs_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/* A user namespace that maps 0 to 1000 (uids and gids); its fd or -errno. */
static int userns_fd_mapped(void)
{
	int pfd[2], fd = -EPERM;
	char c = 1, path[64];
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid == 0) {
		c = unshare(CLONE_NEWUSER) ? 1 : 0;
		if (write(pfd[1], &c, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	if (pid > 0 && read(pfd[0], &c, 1) == 1 && !c) {
		snprintf(path, sizeof(path), "/proc/%d/uid_map", pid);
		if (!write_file(path, "0 1000 1\n", 9)) {
			snprintf(path, sizeof(path), "/proc/%d/gid_map", pid);
			if (!write_file(path, "0 1000 1\n", 9)) {
				snprintf(path, sizeof(path), "/proc/%d/ns/user", pid);
				fd = open(path, O_RDONLY | O_CLOEXEC);
				if (fd < 0)
					fd = -errno;
			}
		}
	}
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	close(pfd[0]);
	close(pfd[1]);
	return fd;
}

/*
 * Backing operations check permissions in the initial user namespace, so
 * an idmapped backing mount is refused: an ext4 directory cloned with
 * open_tree() and idmapped (0 -> 1000) by mount_setattr() fails as
 * root_dir= (the mount EINVAL) and as a LOOKUP reply's backing (the
 * ioctl EINVAL, the lookup EIO). Control: the same directory, not
 * idmapped, works both ways.
 */
static int t_idmapped_backing_refused(void)
{
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_IDMAP };
	int ret = TAP_FAIL, rc, ns = -1, tree = -1, plain = -1;
	bool ext_up = false, view_up = false;
	char ext[128], img[128], view[128], buf[16];
	struct hs_ent *ent;
	struct hs_env e;
	struct stat st;

	if (access("/proc/self/ns/user", F_OK))
		SKIP("no /proc/self/ns/user: kernel without CONFIG_USER_NS");
	rc = hs_setup(&e, NULL);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	snprintf(ext, sizeof(ext), "%s/ext", e.dir);
	snprintf(img, sizeof(img), "%s/ext.img", e.back);
	snprintf(view, sizeof(view), "%s/view", e.dir);
	OK(mkdir(view, 0755));
	EXPECT(make_ext4(img, ext) == 0, "ext4");
	ext_up = true;
	ns = userns_fd_mapped();
	EXPECT(ns >= 0, "a mapped user namespace: %s", strerror(-ns));
	tree = syscall(SYS_open_tree, AT_FDCWD, at(ext, "tree"), OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	EXPECT(tree >= 0, "open_tree: %s", strerror(errno));
	attr.userns_fd = ns;
	if (syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH, &attr, sizeof(attr))) {
		if (errno == ENOSYS || errno == EINVAL)
			SKIP("mount_setattr(MOUNT_ATTR_IDMAP) on ext4: %s", strerror(errno));
		EXPECT(0, "mount_setattr(MOUNT_ATTR_IDMAP): %s", strerror(errno));
	}
	OK(fstatat(tree, "a", &st, 0));
	EXPECT(st.st_uid == 1000, "the idmapping does not show: a's uid is %u", st.st_uid);
	rc = mount_nodaemon_fd(view, tree, NULL);
	if (!rc)
		unmount_extra(view);
	EXPECT(rc == -EINVAL, "root_dir on an idmapped mount: %s, expected EINVAL",
	       rc ? strerror(-rc) : "mounted");
	ent = hs_add_fd(&e, FUSE_ROOT_ID, "idmapped", tree);
	EXPECT(ent);
	EXPECT(hs_refused(ent, at(e.mnt, "idmapped"), EINVAL) == TAP_OK, "a backing on an idmapped mount");
	/* Control: not idmapped */
	plain = open(at(ext, "tree"), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	EXPECT(plain >= 0);
	rc = mount_nodaemon_fd(view, plain, NULL);
	EXPECT(!rc, "root_dir on the plain mount: %s", strerror(-rc));
	view_up = true;
	EXPECT(read_file(at(view, "a"), buf, sizeof(buf)) == 2 && !strcmp(buf, "a\n"),
	       "view/a: %s", strerror(errno));
	ent = hs_add_fd(&e, FUSE_ROOT_ID, "plain", plain);
	EXPECT(ent);
	EXPECT(read_file(at(e.mnt, "plain/a"), buf, sizeof(buf)) == 2 && !strcmp(buf, "a\n"),
	       "plain/a: %s (reply: %s)", strerror(errno), strerror(ent->last_err));
	ret = TAP_OK;
out:
	if (view_up && unmount_extra(view))
		ret = TAP_FAIL;
	/* The served mount holds the ext4 backing: it goes first. */
	hs_stop_fuse(&e);
	if (tree >= 0)
		close(tree);
	if (plain >= 0)
		close(plain);
	if (ns >= 0)
		close(ns);
	if (ext_up && unmount_extra(ext))
		ret = TAP_FAIL;
	if (hs_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/* Load a fuse-bpf program of n instructions; its fd or -errno (the verifier's log printed). */
static int load_insns(const char *name, const struct bpf_insn *insns, size_t n)
{
	static char log[16384];
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .log_buf = log, .log_size = sizeof(log),
		    .log_level = 1);
	int type = fuse_prog_type(), fd;

	if (type < 0)
		return -ENOENT;
	log[0] = 0;
	fd = bpf_prog_load(type, name, "GPL", insns, n, &opts);
	if (fd < 0) {
		fd = -errno;
		printf("loading %s: %s\n%s\n", name, strerror(-fd), log);
	}
	return fd;
}

/* A program whose op prefilter returns verdict; 0 (the backing) for everything else. */
static int load_verdict_prog(uint32_t op, int verdict)
{
	const struct bpf_insn prog[] = {
		BPF_LDX_MEM(BPF_W, 2, 1, 8),	/* r2 = ctx->opcode */
		BPF_JMP_IMM(BPF_JNE, 2, op | FUSE_PREFILTER, 2),
		BPF_MOV64_IMM(0, verdict),
		BPF_EXIT_INSN(),
		BPF_MOV64_IMM(0, 0),
		BPF_EXIT_INSN(),
	};

	return load_insns("hs_verdict", prog, sizeof(prog) / sizeof(prog[0]));
}

/*
 * A program whose LSEEK prefilter sets in arg 0's whence (struct
 * fuse_lseek_in: fh, offset, whence, padding) to whence with
 * bpf_fuse_set_arg(); set_arg's error, if any, is the verdict.
 */
static int load_lseek_whence_prog(int whence)
{
	const struct bpf_insn prog[] = {
		BPF_MOV64_REG(6, 1),
		BPF_LDX_MEM(BPF_W, 2, 1, 8),	/* r2 = ctx->opcode */
		BPF_JMP_IMM(BPF_JNE, 2, FUSE_LSEEK | FUSE_PREFILTER, 17),
		/* struct fuse_lseek_in at fp - 24 */
		BPF_ST_MEM(BPF_DW, 10, -24, 0),
		BPF_ST_MEM(BPF_DW, 10, -16, 0),
		BPF_ST_MEM(BPF_DW, 10, -8, 0),
		BPF_MOV64_REG(1, 6),
		BPF_MOV64_IMM(2, 0),
		BPF_MOV64_REG(3, 10),
		BPF_ALU64_IMM(BPF_ADD, 3, -24),
		BPF_MOV64_IMM(4, 24),
		BPF_CALL_HELPER(BPF_FUNC_fuse_get_arg),
		BPF_ST_MEM(BPF_W, 10, -8, whence),	/* offsetof(whence) == 16 */
		BPF_MOV64_REG(1, 6),
		BPF_MOV64_IMM(2, 0),
		BPF_MOV64_REG(3, 10),
		BPF_ALU64_IMM(BPF_ADD, 3, -24),
		BPF_MOV64_IMM(4, 24),
		BPF_CALL_HELPER(BPF_FUNC_fuse_set_arg),
		BPF_EXIT_INSN(),
		/* not LSEEK's prefilter */
		BPF_MOV64_IMM(0, 0),
		BPF_EXIT_INSN(),
	};

	return load_insns("hs_whence", prog, sizeof(prog) / sizeof(prog[0]));
}

/*
 * LSEEK's in arg is writable by a prefilter, but its whence must stay one
 * llseek(2) accepts: rewritten to 7 (past SEEK_MAX), lseek(SEEK_SET) and
 * lseek(SEEK_END) on a view file fail EINVAL (the old series passed 7 to
 * the backing file system, whose generic llseek took it for SEEK_SET).
 * The file otherwise reads through the filter.
 */
static int t_lseek_whence_rewrite(void)
{
	int ret = TAP_FAIL, rc, prog = -1, dfd = -1, fd = -1;
	bool view_up = false;
	struct hs_env e;
	char view[128], opts[32], buf[16];

	prog = load_lseek_whence_prog(7);
	if (prog == -ENOENT)
		SKIP("kernel without fuse-bpf BPF");
	EXPECT(prog >= 0, "loading the whence filter: %s", strerror(-prog));
	rc = hs_setup(&e, NULL);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	EXPECT(write_file(at(e.back, "f"), "0123456789", 10) == 0);
	snprintf(view, sizeof(view), "%s/view", e.dir);
	OK(mkdir(view, 0755));
	dfd = open(e.back, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	EXPECT(dfd >= 0);
	snprintf(opts, sizeof(opts), "root_bpf=%d", prog);
	rc = mount_nodaemon_fd(view, dfd, opts);
	EXPECT(!rc, "the view with root_bpf: %s", strerror(-rc));
	view_up = true;
	fd = open(at(view, "f"), O_RDONLY | O_CLOEXEC);
	EXPECT(fd >= 0, "open view/f: %s", strerror(errno));
	EXPECT(read(fd, buf, 4) == 4 && !memcmp(buf, "0123", 4), "read: %s", strerror(errno));
	ERR(lseek(fd, 0, SEEK_SET), EINVAL);
	ERR(lseek(fd, 0, SEEK_END), EINVAL);
	EXPECT(read(fd, buf, 4) == 4 && !memcmp(buf, "4567", 4),
	       "the refused seeks moved the position: read %.4s", buf);
	ret = TAP_OK;
out:
	if (fd >= 0)
		close(fd);
	if (view_up && unmount_extra(view))
		ret = TAP_FAIL;
	if (dfd >= 0)
		close(dfd);
	if (prog >= 0)
		close(prog);
	if (hs_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/*
 * mmap(MAP_SHARED) of a file open for writing asks its WRITE prefilter,
 * under mmap_lock, where the server must not be asked: a prefilter that
 * hands WRITE to the server (FUSE_BPF_USER_FILTER) makes a writable shared
 * mapping fail EIO, and the server gets no request; a read-only shared
 * mapping works and can't be made writable (mprotect EACCES).
 */
static int t_mmap_user_filter_eio(void)
{
	int ret = TAP_FAIL, rc, prog = -1, fd = -1;
	static char data[4096];
	struct tfuse_counts now;
	struct hs_ent *ent;
	void *p = MAP_FAILED;
	struct hs_env e;

	prog = load_verdict_prog(FUSE_WRITE, FUSE_BPF_USER_FILTER);
	if (prog == -ENOENT)
		SKIP("kernel without fuse-bpf BPF");
	EXPECT(prog >= 0, "loading the WRITE filter: %s", strerror(-prog));
	rc = hs_setup(&e, NULL);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	memset(data, 'm', sizeof(data));
	EXPECT(write_file(at(e.back, "f"), data, sizeof(data)) == 0);
	ent = hs_add(&e, FUSE_ROOT_ID, "f", at(e.back, "f"));
	EXPECT(ent);
	ent->bpf_fd = prog;
	fd = open(at(e.mnt, "f"), O_RDWR | O_CLOEXEC);
	EXPECT(fd >= 0, "open: %s (reply: %s)", strerror(errno), strerror(ent->last_err));
	ERR(mmap(NULL, sizeof(data), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), EIO);
	p = mmap(NULL, sizeof(data), PROT_READ, MAP_SHARED, fd, 0);
	EXPECT(p != MAP_FAILED, "a read-only shared mapping: %s", strerror(errno));
	EXPECT(!memcmp(p, data, sizeof(data)), "the mapping's data");
	ERR(mprotect(p, sizeof(data), PROT_READ | PROT_WRITE), EACCES);
	tfuse_counts_get(e.counts, &now);
	EXPECT(e.sh->write_pre == 0 && now.op[0] == 0,
	       "the server got %u WRITE prefilter requests, %u filter requests in all",
	       e.sh->write_pre, now.op[0]);
	ret = TAP_OK;
out:
	if (p != MAP_FAILED)
		munmap(p, sizeof(data));
	if (fd >= 0)
		close(fd);
	if (prog >= 0)
		close(prog);
	if (hs_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/* --- patch 54: a splice into a server's file and O_SYNC ------------------------------ */

/*
 * A served mount (INIT flags init_flags) whose regular file "s0" (nodeid 10)
 * takes writes; its OPENs answer fopen.
 */
static int hs_data_setup(struct hs_env *e, uint32_t init_flags, uint32_t fopen)
{
	struct hs_ent *ent;
	int rc = hs_setup_flags(e, NULL, init_flags);

	if (rc)
		return rc;
	ent = hs_add(e, FUSE_ROOT_ID, "s0", NULL);
	if (!ent)
		return -ENOSPC;
	ent->nodeid = 10;
	ent->mode_set = true;
	ent->mode = S_IFREG | 0666;
	e->sh->fopen = fopen;
	e->sh->write_ok = 1;
	return 0;
}

/* splice() len bytes of fill through a new pipe into fd at *off (NULL: the file position) */
static long splice_into(int fd, loff_t *off, size_t len, int *left_in_pipe)
{
	char buf[4096];
	int p[2], n = 0;
	long r;

	if (len > sizeof(buf) || pipe2(p, O_CLOEXEC))
		return -EINVAL;
	memset(buf, 'z', len);
	if (write(p[1], buf, len) != (ssize_t)len) {
		r = -EIO;
		goto out;
	}
	r = splice(p[0], NULL, fd, off, len, 0);
	if (r < 0)
		r = -errno;
	if (left_in_pipe && !ioctl(p[0], FIONREAD, &n))
		*left_in_pipe = n;
out:
	close(p[0]);
	close(p[1]);
	return r;
}

static uint32_t op_delta(const struct tfuse_counts *a, const struct tfuse_counts *b, uint32_t op)
{
	return b->op[op] - a->op[op];
}

/*
 * Patch 54: a splice into an O_SYNC or O_DSYNC server's file (and the
 * writeback cache's) syncs what it wrote, as write() does: one FSYNC, with
 * FUSE_FSYNC_FDATASYNC for O_DSYNC, covering the spliced range (the
 * writeback cache's dirty pages are written before splice() returns). Patch
 * 51 alone deadlocked here (fuse_fsync() under the splice's inode lock): the
 * case timeout catches that; lockdep's reports are grepped.
 */
static int t_splice_served_osync(void)
{
	static const struct {
		uint32_t init;
		int oflags;
		loff_t off;
	} v[] = {
		{ 0, O_SYNC, 4096 },
		{ 0, O_DSYNC, 8192 },
		{ FUSE_WRITEBACK_CACHE, O_SYNC, 8192 },
		{ FUSE_WRITEBACK_CACHE, O_DSYNC, 16384 },
	};
	struct tfuse_counts a, b;
	int ret = TAP_FAIL, fd = -1, rc;
	struct hs_env e = { .fuse_fd = -1, .server = -1 };
	unsigned int i;
	loff_t off;
	long r;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		rc = hs_data_setup(&e, v[i].init, 0);
		EXPECT(!rc, "setup: %s", strerror(-rc));
		fd = open(at(e.mnt, "s0"), O_WRONLY | O_CLOEXEC | v[i].oflags);
		EXPECT(fd >= 0, "open: %s", strerror(errno));
		/* write(), for reference */
		tfuse_counts_get(e.counts, &a);
		EXPECT(pwrite(fd, "w", 1, 0) == 1, "pwrite: %s", strerror(errno));
		tfuse_counts_get(e.counts, &b);
		EXPECT(op_delta(&a, &b, FUSE_FSYNC) == 1, "variant %u: write() sent %u FSYNCs", i,
		       op_delta(&a, &b, FUSE_FSYNC));
		e.sh->write_lo = UINT64_MAX;
		e.sh->write_hi = 0;
		tfuse_counts_get(e.counts, &a);
		off = v[i].off;
		r = splice_into(fd, &off, 512, NULL);
		tfuse_counts_get(e.counts, &b);
		EXPECT(r == 512, "variant %u: splice: %s", i, r < 0 ? strerror(-r) : "short");
		EXPECT(off == v[i].off + 512, "variant %u: offset %lld", i, (long long)off);
		EXPECT(op_delta(&a, &b, FUSE_FSYNC) == 1, "variant %u: splice sent %u FSYNCs", i,
		       op_delta(&a, &b, FUSE_FSYNC));
		EXPECT(!!(e.sh->fsync_flags & FUSE_FSYNC_FDATASYNC) == (v[i].oflags == O_DSYNC),
		       "variant %u: fsync_flags %u", i, e.sh->fsync_flags);
		EXPECT(e.sh->write_lo <= (uint64_t)v[i].off && e.sh->write_hi >= (uint64_t)v[i].off + 512,
		       "variant %u: the WRITEs covered [%llu, %llu)", i,
		       (unsigned long long)e.sh->write_lo, (unsigned long long)e.sh->write_hi);
		close(fd);
		fd = -1;
		if (hs_teardown(&e))
			goto out;
	}
	EXPECT(run("dmesg | grep -qE 'circular locking dependency|possible recursive locking|BUG: KASAN'") != 0,
	       "lockdep or KASAN reported (dmesg)");
	ret = TAP_OK;
out:
	if (fd >= 0)
		close(fd);
	if (e.sh && hs_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/*
 * review4: an O_SYNC file opened FOPEN_DIRECT_IO is not synced by write()
 * (fuse_direct_write_iter() leaves it to the server, which gets O_SYNC in
 * the WRITE's flags): no FSYNC. Patch 54's first version synced every
 * O_SYNC splice, so a splice sent an FSYNC that write() does not, and
 * failed if it failed; now it leaves FOPEN_DIRECT_IO files alone.
 */
static int t_splice_served_direct_io_osync(void)
{
	struct hs_env e = { .fuse_fd = -1, .server = -1 };
	int ret = TAP_FAIL, fd = -1, rc;
	struct tfuse_counts a, b;
	uint32_t by_write;
	loff_t off = 4096;
	long r;

	rc = hs_data_setup(&e, 0, FOPEN_DIRECT_IO);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	fd = open(at(e.mnt, "s0"), O_WRONLY | O_CLOEXEC | O_SYNC);
	EXPECT(fd >= 0, "open: %s", strerror(errno));
	tfuse_counts_get(e.counts, &a);
	EXPECT(pwrite(fd, "w", 1, 0) == 1, "pwrite: %s", strerror(errno));
	tfuse_counts_get(e.counts, &b);
	by_write = op_delta(&a, &b, FUSE_FSYNC);
	tfuse_counts_get(e.counts, &a);
	r = splice_into(fd, &off, 512, NULL);
	tfuse_counts_get(e.counts, &b);
	EXPECT(r == 512, "splice: %s", r < 0 ? strerror(-r) : "short");
	EXPECT(op_delta(&a, &b, FUSE_FSYNC) == by_write, "write() sent %u FSYNCs, splice %u", by_write,
	       op_delta(&a, &b, FUSE_FSYNC));
	ret = TAP_OK;
out:
	if (fd >= 0)
		close(fd);
	if (hs_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/*
 * review4: the sync of an O_SYNC write fails (the server's FSYNC: EIO).
 * write() returns EIO and leaves the file position where it was; so did a
 * splice before patch 51 (the write path's generic_write_sync() failed,
 * iter_file_splice_write() kept its buffers and the offset). Patch 54's
 * first version synced after iter_file_splice_write() had consumed the
 * pipe and moved *ppos, and replaced the count with the errno: EIO with
 * the position moved. Consistent are the errno with the position
 * unchanged (what patch 54 does now), or the count with the position moved.
 */
static int t_splice_served_fsync_error(void)
{
	struct hs_env e = { .fuse_fd = -1, .server = -1 };
	int ret = TAP_FAIL, fd = -1, rc, left = -1;
	loff_t off;
	long r;

	rc = hs_data_setup(&e, 0, 0);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	e.sh->fsync_err = EIO;
	fd = open(at(e.mnt, "s0"), O_WRONLY | O_CLOEXEC | O_SYNC);
	EXPECT(fd >= 0, "open: %s", strerror(errno));
	/* write(), for reference */
	ERR(write(fd, "0123456789", 10), EIO);
	EXPECT(lseek(fd, 0, SEEK_CUR) == 0, "write(): the position moved to %lld",
	       (long long)lseek(fd, 0, SEEK_CUR));
	r = splice_into(fd, NULL, 512, &left);
	off = lseek(fd, 0, SEEK_CUR);
	/* Either the error, nothing moved (as write()); or the count, and the position after it */
	EXPECT((r == -EIO && off == 0) || (r == 512 && off == 512),
	       "splice returned %ld (%s), the file position is %lld, %d bytes left in the pipe", r,
	       r < 0 ? strerror(-r) : "written", (long long)off, left);
	ret = TAP_OK;
out:
	if (fd >= 0)
		close(fd);
	if (hs_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/* waitpid() for up to ms milliseconds: the status, or -1 if pid is still running */
static int wait_ms(pid_t pid, int ms)
{
	int st;

	for (int i = 0; i < ms / 10; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return st;
		usleep(10000);
	}
	return -1;
}

/*
 * review4: patch 51 takes the FUSE inode's lock before the pipe's and holds
 * it through iter_file_splice_write(), which waits (without a bound) for a
 * writer to fill an empty pipe. Before patch 51 a splice waiting for data
 * held only the pipe. Meanwhile every fsync(), close() (fuse_flush()),
 * truncate and lseek(SEEK_END) of the file, by anyone, waits in D state,
 * and so does the server's own NOTIFY_DELETE of it (fuse_reverse_inval_entry()
 * locks the child): a server thread stuck there while the pipe's writer
 * waits for that server is a deadlock. Here another process's fsync() and
 * the server's notification must not wait for the pipe (patch 56 waits for
 * data unlocked).
 */
static int t_splice_served_empty_pipe(void)
{
	struct hs_env e = { .fuse_fd = -1, .server = -1 };
	int ret = TAP_FAIL, fd = -1, rc, p[2] = { -1, -1 }, st_sync, st_notify;
	pid_t splicer = -1, syncer = -1, notifier = -1;
	char buf[512];

	rc = hs_data_setup(&e, 0, 0);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	fd = open(at(e.mnt, "s0"), O_WRONLY | O_CLOEXEC);
	EXPECT(fd >= 0, "open: %s", strerror(errno));
	OK(pipe(p));
	splicer = fork();
	if (splicer == 0)
		_exit(splice(p[0], NULL, fd, NULL, sizeof(buf), 0) == sizeof(buf) ? 0 : 1);
	EXPECT(splicer > 0);
	usleep(300000); /* the splice waits for the pipe */
	syncer = fork();
	if (syncer == 0) {
		int fd2 = open(at(e.mnt, "s0"), O_WRONLY | O_CLOEXEC);

		_exit(fd2 >= 0 && !fsync(fd2) ? 0 : 1);
	}
	EXPECT(syncer > 0);
	notifier = fork();
	if (notifier == 0) {
		struct {
			struct fuse_notify_delete_out d;
			char name[4];
		} del = { .d = { .parent = FUSE_ROOT_ID, .child = 10, .namelen = 2 }, .name = "s0" };

		usleep(100000);
		_exit(notify(e.fuse_fd, FUSE_NOTIFY_DELETE, &del, sizeof(del.d) + 3) ? 1 : 0);
	}
	EXPECT(notifier > 0);
	st_sync = wait_ms(syncer, 1500);
	st_notify = wait_ms(notifier, 500);
	/* Let the splice go, then everyone */
	memset(buf, 'p', sizeof(buf));
	EXPECT(write(p[1], buf, sizeof(buf)) == sizeof(buf));
	EXPECT(st_sync != -1 && st_notify != -1,
	       "waiting for a splice that waits for an empty pipe: fsync() of another fd %s, the server's NOTIFY_DELETE %s",
	       st_sync == -1 ? "yes" : "no", st_notify == -1 ? "yes" : "no");
	EXPECT(st_sync == 0 && st_notify == 0, "fsync() status %#x, NOTIFY_DELETE status %#x", st_sync,
	       st_notify);
	ret = TAP_OK;
out:
	if (p[1] >= 0 && ret != TAP_OK) {
		memset(buf, 'p', sizeof(buf));
		if (write(p[1], buf, sizeof(buf)) < 0)
			perror("write");
	}
	if (splicer > 0)
		waitpid(splicer, NULL, 0);
	if (syncer > 0)
		waitpid(syncer, NULL, 0);
	if (notifier > 0)
		waitpid(notifier, NULL, 0);
	if (p[0] >= 0)
		close(p[0]);
	if (p[1] >= 0)
		close(p[1]);
	if (fd >= 0)
		close(fd);
	if (hs_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/*
 * review5 of patch 56: a splice into a server's file still takes the FUSE
 * inode's lock before the pipe's, and iter_file_splice_write() takes the
 * pipe's (mutex_lock(), uninterruptible) with the inode locked. Another
 * consumer of the same pipe holds the pipe's lock for as long as its own
 * write takes: here a splice from the pipe into a file of a second server
 * that does not answer the WRITE (a socket whose peer does not read, or a
 * pipe_write() faulting on a FUSE mapping, hold it the same way). Meanwhile
 * the splice into s0 waits for the pipe with s0's inode locked, and every
 * fsync(), close(), truncate of s0, and its server's NOTIFY_DELETE, wait in
 * D state with it: what patch 56 set out to end, for an empty pipe. With
 * one server behind both files it is a deadlock (the server's thread in
 * NOTIFY_DELETE of s0, the WRITE it would answer next holding the pipe).
 * Before patch 51 (pipe, then inode: the generic order) the splice into s0
 * waited for the pipe without s0's lock.
 */
/*
 * review5 finding 1 is open: a splice into a server's file still locks the
 * inode before the pipe (patch 51), so these two cases hang their
 * processes until they abort the connection. TEST_HS_PIPE_LOCK=1 runs
 * them (as TODO); otherwise they are skipped, so that make check stays
 * quiet until the order is redesigned (docs/kernel.md, Not done).
 */
static bool pipe_lock_cases_wanted(void)
{
	const char *v = getenv("TEST_HS_PIPE_LOCK");

	return v && strcmp(v, "0");
}

static int t_splice_served_pipe_busy(void)
{
	struct hs_env e = { .fuse_fd = -1, .server = -1 }, e2 = { .fuse_fd = -1, .server = -1 };
	int ret = TAP_FAIL, fd = -1, fd2 = -1, rc, p[2] = { -1, -1 }, st_sync, st_notify;
	pid_t holder = -1, splicer = -1, syncer = -1, notifier = -1;
	char buf[1024];

	if (!pipe_lock_cases_wanted())
		SKIP("open: review5 finding 1 (TEST_HS_PIPE_LOCK=1 runs it)");
	TODO("review5 finding 1: the inode is locked while the splice waits for the pipe's lock");
	rc = hs_data_setup(&e, 0, 0);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	rc = hs_data_setup(&e2, 0, 0);
	EXPECT(!rc, "setup of the second server: %s", strerror(-rc));
	fd = open(at(e.mnt, "s0"), O_WRONLY | O_CLOEXEC);
	EXPECT(fd >= 0, "open: %s", strerror(errno));
	fd2 = open(at(e2.mnt, "s0"), O_WRONLY | O_CLOEXEC);
	EXPECT(fd2 >= 0, "open: %s", strerror(errno));
	OK(pipe(p));
	memset(buf, 'p', sizeof(buf));
	EXPECT(write(p[1], buf, sizeof(buf)) == sizeof(buf));
	e2.sh->write_stall = 1;
	holder = fork();
	if (holder == 0)
		_exit(splice(p[0], NULL, fd2, NULL, 512, 0) == 512 ? 0 : 1);
	EXPECT(holder > 0);
	usleep(300000); /* the holder waits for its WRITE with the pipe locked */
	splicer = fork();
	if (splicer == 0)
		_exit(splice(p[0], NULL, fd, NULL, 512, 0) == 512 ? 0 : 1);
	EXPECT(splicer > 0);
	usleep(300000); /* the splice into s0 waits for the pipe */
	syncer = fork();
	if (syncer == 0) {
		int fd3 = open(at(e.mnt, "s0"), O_WRONLY | O_CLOEXEC);

		_exit(fd3 >= 0 && !fsync(fd3) ? 0 : 1);
	}
	EXPECT(syncer > 0);
	notifier = fork();
	if (notifier == 0) {
		struct {
			struct fuse_notify_delete_out d;
			char name[4];
		} del = { .d = { .parent = FUSE_ROOT_ID, .child = 10, .namelen = 2 }, .name = "s0" };

		usleep(100000);
		_exit(notify(e.fuse_fd, FUSE_NOTIFY_DELETE, &del, sizeof(del.d) + 3) ? 1 : 0);
	}
	EXPECT(notifier > 0);
	st_sync = wait_ms(syncer, 1500);
	st_notify = wait_ms(notifier, 500);
	e2.sh->write_stall = 0;
	EXPECT(st_sync != -1 && st_notify != -1,
	       "waiting for a splice that waits for the pipe's lock: fsync() of another fd %s, the server's NOTIFY_DELETE %s",
	       st_sync == -1 ? "yes" : "no", st_notify == -1 ? "yes" : "no");
	EXPECT(st_sync == 0 && st_notify == 0, "fsync() status %#x, NOTIFY_DELETE status %#x", st_sync,
	       st_notify);
	EXPECT(wait_ms(holder, 5000) == 0 && wait_ms(splicer, 5000) == 0, "the splices failed");
	holder = splicer = -1;
	ret = TAP_OK;
out:
	if (e2.sh)
		e2.sh->write_stall = 0;
	if (holder > 0)
		waitpid(holder, NULL, 0);
	if (splicer > 0)
		waitpid(splicer, NULL, 0);
	if (syncer > 0)
		waitpid(syncer, NULL, 0);
	if (notifier > 0)
		waitpid(notifier, NULL, 0);
	if (p[0] >= 0)
		close(p[0]);
	if (p[1] >= 0)
		close(p[1]);
	if (fd >= 0)
		close(fd);
	if (fd2 >= 0)
		close(fd2);
	if (e.sh && hs_teardown(&e))
		ret = TAP_FAIL;
	if (e2.sh && hs_teardown(&e2))
		ret = TAP_FAIL;
	return ret;
}

/*
 * review5: splice_served_pipe_busy with one server: a deadlock. A splice
 * from the pipe into s1 holds the pipe's lock until the server answers its
 * WRITE; the server first sends NOTIFY_DELETE of s0 (as a server does that
 * drops a file when another is written), which locks s0; a splice from the
 * same pipe into s0 holds s0's lock (patch 51's order) and waits for the
 * pipe's. Nothing moves, SIGKILL included (the WRITE was sent, so its
 * writer waits it out; the others wait in mutex_lock() and down_write()),
 * until the connection is aborted, which the case then does.
 */
static int t_splice_served_pipe_deadlock(void)
{
	struct hs_env e = { .fuse_fd = -1, .server = -1 };
	int ret = TAP_FAIL, fd0 = -1, fd1 = -1, rc, p[2] = { -1, -1 }, st_h, st_s;
	pid_t holder = -1, splicer = -1;
	struct hs_ent *ent;
	struct stat st;
	char buf[1024];

	if (!pipe_lock_cases_wanted())
		SKIP("open: review5 finding 1 (TEST_HS_PIPE_LOCK=1 runs it)");
	TODO("review5 finding 1: a one-server deadlock through the pipe's lock");
	rc = hs_data_setup(&e, 0, 0);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	ent = hs_add(&e, FUSE_ROOT_ID, "s1", NULL);
	EXPECT(ent);
	ent->nodeid = 11;
	ent->mode_set = true;
	ent->mode = S_IFREG | 0666;
	OK(stat(e.mnt, &st));
	fd0 = open(at(e.mnt, "s0"), O_WRONLY | O_CLOEXEC);
	fd1 = open(at(e.mnt, "s1"), O_WRONLY | O_CLOEXEC);
	EXPECT(fd0 >= 0 && fd1 >= 0, "open: %s", strerror(errno));
	OK(pipe(p));
	memset(buf, 'p', sizeof(buf));
	EXPECT(write(p[1], buf, sizeof(buf)) == sizeof(buf));
	e.sh->notify_rc = 1;
	e.sh->write_notify = 11;
	holder = fork();
	if (holder == 0)
		_exit(splice(p[0], NULL, fd1, NULL, 512, 0) == 512 ? 0 : 1);
	EXPECT(holder > 0);
	usleep(100000); /* the holder's WRITE is at the server, which waits 300 ms to notify */
	splicer = fork();
	if (splicer == 0)
		_exit(splice(p[0], NULL, fd0, NULL, 512, 0) == 512 ? 0 : 1);
	EXPECT(splicer > 0);
	st_h = wait_ms(holder, 3000);
	st_s = wait_ms(splicer, 500);
	if (st_h == -1 || st_s == -1) {
		char abort_path[64];

		/* No run(): its child's exec closes fd0, and fuse_flush() waits for s0's lock */
		snprintf(abort_path, sizeof(abort_path), "/sys/fs/fuse/connections/%u/abort",
			 minor(st.st_dev));
		write_file(abort_path, "1", 1);
	} else {
		holder = splicer = -1;
	}
	EXPECT(st_h != -1 && st_s != -1,
	       "deadlocked (aborted): the splice into s1 %s, the splice into s0 %s",
	       st_h == -1 ? "waits" : "done", st_s == -1 ? "waits" : "done");
	EXPECT(st_h == 0 && st_s == 0, "the splices: status %#x, %#x", st_h, st_s);
	EXPECT(e.sh->notify_rc == 0, "the server's NOTIFY_DELETE: %d", e.sh->notify_rc);
	ret = TAP_OK;
out:
	if (holder > 0)
		waitpid(holder, NULL, 0);
	if (splicer > 0)
		waitpid(splicer, NULL, 0);
	if (p[0] >= 0)
		close(p[0]);
	if (p[1] >= 0)
		close(p[1]);
	if (fd0 >= 0)
		close(fd0);
	if (fd1 >= 0)
		close(fd1);
	if (e.sh && hs_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

static void on_usr1(int sig)
{
	(void)sig;
}

/*
 * review5: patch 56 waits for an empty pipe on its rd_wait, unlocked, with
 * a lockless test of the pipe. Every way the pipe can fill or lose its last
 * writer must wake the splice, with what splice() returned before: a
 * write(), a vmsplice(), a splice from a file, a tee() from another pipe
 * (the data, 512); the last writer's close() (0); a signal without
 * SA_RESTART (EINTR); a pipe opened O_NONBLOCK (EAGAIN at once).
 */
static int t_splice_served_wakeups(void)
{
	enum { V_WRITE, V_VMSPLICE, V_SPLICE, V_TEE, V_CLOSE, V_SIGNAL, V_NONBLOCK, V_N };
	static const char *const name[V_N] = { "write", "vmsplice", "splice", "tee", "close",
					       "signal", "O_NONBLOCK" };
	static const int want[V_N] = { 0, 0, 0, 0, 2, 3, 4 };
	struct hs_env e = { .fuse_fd = -1, .server = -1 };
	int ret = TAP_FAIL, fd = -1, src = -1, rc, st, p[2] = { -1, -1 }, q[2] = { -1, -1 };
	char buf[512];
	pid_t child = -1;
	loff_t off;

	rc = hs_data_setup(&e, 0, 0);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	fd = open(at(e.mnt, "s0"), O_WRONLY | O_CLOEXEC);
	EXPECT(fd >= 0, "open: %s", strerror(errno));
	memset(buf, 'w', sizeof(buf));
	src = open(at(e.back, "src"), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	EXPECT(src >= 0 && write(src, buf, sizeof(buf)) == sizeof(buf));
	for (int v = 0; v < V_N; v++) {
		OK(pipe2(p, v == V_NONBLOCK ? O_NONBLOCK : 0));
		child = fork();
		if (child == 0) {
			struct sigaction sa = { .sa_handler = on_usr1 };
			long r;

			sigaction(SIGUSR1, &sa, NULL);
			close(p[1]);
			r = splice(p[0], NULL, fd, NULL, sizeof(buf), 0);
			_exit(r == sizeof(buf) ? 0 : r == 0 ? 2 : errno == EINTR ? 3 : errno == EAGAIN ? 4 : 1);
		}
		EXPECT(child > 0);
		usleep(200000);
		switch (v) {
		case V_WRITE:
			EXPECT(write(p[1], buf, sizeof(buf)) == sizeof(buf));
			break;
		case V_VMSPLICE: {
			struct iovec iov = { buf, sizeof(buf) };

			EXPECT(vmsplice(p[1], &iov, 1, 0) == sizeof(buf), "vmsplice: %s", strerror(errno));
			break;
		}
		case V_SPLICE:
			off = 0;
			EXPECT(splice(src, &off, p[1], NULL, sizeof(buf), 0) == sizeof(buf), "splice: %s",
			       strerror(errno));
			break;
		case V_TEE:
			OK(pipe(q));
			EXPECT(write(q[1], buf, sizeof(buf)) == sizeof(buf));
			EXPECT(tee(q[0], p[1], sizeof(buf), 0) == sizeof(buf), "tee: %s", strerror(errno));
			break;
		case V_CLOSE:
			close(p[1]);
			p[1] = -1;
			break;
		case V_SIGNAL:
			kill(child, SIGUSR1);
			break;
		}
		st = wait_ms(child, 2000);
		EXPECT(st != -1, "%s: the splice still waits", name[v]);
		child = -1;
		EXPECT(WIFEXITED(st) && WEXITSTATUS(st) == want[v], "%s: status %#x, want exit %d", name[v], st,
		       want[v]);
		for (int i = 0; i < 2; i++) {
			if (p[i] >= 0)
				close(p[i]);
			if (q[i] >= 0)
				close(q[i]);
			p[i] = q[i] = -1;
		}
	}
	ret = TAP_OK;
out:
	if (p[1] >= 0)
		close(p[1]);
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	for (int i = 0; i < 2; i++) {
		if (p[i] >= 0)
			close(p[i]);
		if (q[i] >= 0)
			close(q[i]);
	}
	if (src >= 0)
		close(src);
	if (fd >= 0)
		close(fd);
	if (hs_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/*
 * review5: the server answers a WRITE with EAGAIN. write() sends the WRITE
 * once and returns EAGAIN, and so did a splice before patch 56. Patch 56's
 * first version took an -EAGAIN with data in the pipe for data that came
 * after the pipe was found empty, and spliced again: the server got a
 * second WRITE that no one asked for. Now an -EAGAIN with data in the pipe
 * is the write's answer, after one WRITE.
 */
static int t_splice_served_write_eagain(void)
{
	struct hs_env e = { .fuse_fd = -1, .server = -1 };
	int ret = TAP_FAIL, fd = -1, rc, left = -1;
	struct tfuse_counts a, b;
	uint32_t by_write;
	loff_t off = 4096;
	long r;

	rc = hs_data_setup(&e, 0, 0);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	e.sh->write_err = EAGAIN;
	fd = open(at(e.mnt, "s0"), O_WRONLY | O_CLOEXEC);
	EXPECT(fd >= 0, "open: %s", strerror(errno));
	tfuse_counts_get(e.counts, &a);
	ERR(pwrite(fd, "w", 1, 0), EAGAIN);
	tfuse_counts_get(e.counts, &b);
	by_write = op_delta(&a, &b, FUSE_WRITE);
	tfuse_counts_get(e.counts, &a);
	r = splice_into(fd, &off, 512, &left);
	tfuse_counts_get(e.counts, &b);
	EXPECT(r == -EAGAIN, "splice: %ld (%s)", r, r < 0 ? strerror(-r) : "written");
	EXPECT(left == 512, "%d bytes left in the pipe", left);
	EXPECT(op_delta(&a, &b, FUSE_WRITE) == by_write, "write() sent %u WRITEs, splice %u", by_write,
	       op_delta(&a, &b, FUSE_WRITE));
	ret = TAP_OK;
out:
	if (fd >= 0)
		close(fd);
	if (hs_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/* --- a backing mount under a watched inode ------------------------------------------------- */

/* The inotify watch on fd in still holds an inode: its fdinfo line, or 0. */
static bool watch_held(int in)
{
	char path[64], buf[1024];

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", in);
	return read_file(path, buf, sizeof(buf)) > 0 && strstr(buf, "inotify wd:");
}

/* A real umount of the unpinned backing on the old kernel: its use-after-free (debug kernel). */
static bool umount_uaf_wanted(void)
{
	const char *v = getenv("TEST_HS_UMOUNT_UAF");

	return v && strcmp(v, "0");
}

/*
 * A FUSE inode holds its backing inode, and the backing inode's super block
 * must outlive it: the backing mount stays busy while a backed inode of it
 * lives. The server backs d with a directory of another file system (a
 * tmpfs of its own, not the view's), f is found in it by the kernel; an
 * inotify watch holds f's FUSE inode after the dentries are dropped (d's
 * FORGET came back). While watched, the backing mount is busy (EBUSY);
 * once the watch is closed and the view unmounted, it unmounts, and the
 * kernel did not find busy inodes at any umount. The old kernel let the
 * umount through ("VFS: Busy inodes after unmount") and the watch's close
 * then did iput() on a freed super block: so umount2(MNT_EXPIRE) asks
 * first (EBUSY, or EAGAIN without unmounting), and the real umount is
 * tried only when it said busy (TEST_HS_UMOUNT_UAF=1 tries it anyway).
 */
static int t_backing_umount_under_watch(void)
{
	int ret = TAP_FAIL, rc, in = -1;
	bool other_up = false;
	struct hs_ent *ent;
	struct stat st;
	struct hs_env e;
	char other[128];

	rc = hs_setup(&e, NULL);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	snprintf(other, sizeof(other), "%s/other", e.dir);
	OK(mkdir(other, 0755));
	OK(mount("tmpfs", other, "tmpfs", 0, "mode=0755,size=16m"));
	other_up = true;
	OK(mkdir(at(other, "d"), 0755));
	EXPECT(write_file(at(other, "d/f"), "f\n", 2) == 0);
	ent = hs_add(&e, FUSE_ROOT_ID, "d", at(other, "d"));
	EXPECT(ent);
	ent->nodeid = 5;
	OK(stat(at(e.mnt, "d/f"), &st));
	EXPECT(S_ISREG(st.st_mode) && st.st_size == 2, "view/d/f: mode %o size %lld", st.st_mode,
	       (long long)st.st_size);
	EXPECT(!hs_wait(ent, 1) && ent->last_err == 0, "d's backing reply: %s", strerror(ent->last_err));
	in = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	EXPECT(in >= 0, "inotify_init1: %s", strerror(errno));
	OK(inotify_add_watch(in, at(e.mnt, "d/f"), IN_ALL_EVENTS));
	/* Nothing but the watch holds d/f's inode: d's FORGET came back */
	for (int i = 0; i < 3; i++)
		drop_caches();
	EXPECT(forgets_balance(e.sh) == 0, "view/d was not forgotten: its dentry still holds the backing");
	EXPECT(watch_held(in), "the watch is gone from the inotify fd's fdinfo");
	errno = 0;
	rc = umount2(other, umount_uaf_wanted() ? 0 : MNT_EXPIRE);
	if (rc == 0)
		other_up = false;
	EXPECT(rc == -1 && errno == EBUSY,
	       "umount2(%s) of the backing under the watched inode: %s, expected EBUSY%s", other,
	       rc ? strerror(errno) : "unmounted",
	       rc && errno == EAGAIN ? " (MNT_EXPIRE: not busy; not unmounted, the old kernel would"
				       " free the super block under the watched inode)" : "");
	ERR(umount2(other, 0), EBUSY);
	EXPECT(watch_held(in), "the watch is gone from the inotify fd's fdinfo");
	OK(close(in));
	in = -1;
	hs_stop_fuse(&e);
	rc = umount2(other, 0);
	EXPECT(rc == 0, "umount %s once the watch is closed and the view unmounted: %s", other,
	       strerror(errno));
	other_up = false;
	EXPECT(run("dmesg | grep -q 'Busy inodes'") != 0, "the kernel found busy inodes at a umount (dmesg)");
	ret = TAP_OK;
out:
	/* The view holds the backing: it goes first (the watch with it). */
	if (in >= 0)
		close(in);
	hs_stop_fuse(&e);
	if (other_up && unmount_extra(other))
		ret = TAP_FAIL;
	if (hs_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/* --- the cases ------------------------------------------------------------------------------- */

/*
 * A case that hangs (a kernel that deadlocks on it) is killed after
 * CASE_TIMEOUT seconds and fails, instead of hanging the suite.
 */
#define CASE_TIMEOUT 120
#define CASE(name)                                    \
	static int c_##name(void)                     \
	{                                             \
		alarm(CASE_TIMEOUT);                  \
		return t_##name();                    \
	}
CASE(stack_loop)
CASE(stack_depth_option)
CASE(stack_root_dir_eloop)
CASE(stack_backing_depth)
CASE(type_eventfd)
CASE(type_timerfd)
CASE(type_bpf_map)
CASE(type_pipe)
CASE(type_socket)
CASE(type_special_nodes)
CASE(type_proc_status)
CASE(type_mode0)
CASE(type_mode_mismatch)
CASE(priv_init_ns)
CASE(priv_userns_mount)
CASE(priv_userns_reply)
CASE(revalidate_forget)
CASE(create_enosys)
CASE(rename_backed_unbacked)
CASE(notify_nodeid0)
CASE(cuse_poll)
CASE(ino_two_ext4)
CASE(priv_fsconfig_split)
CASE(priv_root_dir_opener)
CASE(append_ftruncate_after_chattr)
CASE(backed_node_no_server_requests)
CASE(idmapped_backing_refused)
CASE(lseek_whence_rewrite)
CASE(mmap_user_filter_eio)
CASE(splice_served_rename_backed)
CASE(splice_served_osync)
CASE(splice_served_direct_io_osync)
CASE(splice_served_fsync_error)
CASE(splice_served_empty_pipe)
CASE(splice_served_pipe_busy)
CASE(splice_served_pipe_deadlock)
CASE(splice_served_wakeups)
CASE(splice_served_write_eagain)
CASE(backing_umount_under_watch)

static const struct tap_case cases[] = {
	/* item 1 */
	{ "stack_loop", c_stack_loop },
	{ "stack_depth_option", c_stack_depth_option },
	{ "stack_root_dir_eloop", c_stack_root_dir_eloop },
	{ "stack_backing_depth", c_stack_backing_depth },
	/* item 2; eventfd, timerfd and bpf_map crash the old series */
	{ "type_eventfd", c_type_eventfd },
	{ "type_timerfd", c_type_timerfd },
	{ "type_bpf_map", c_type_bpf_map },
	{ "type_pipe", c_type_pipe },
	{ "type_socket", c_type_socket },
	{ "type_special_nodes", c_type_special_nodes },
	{ "type_proc_status", c_type_proc_status },
	{ "type_mode0", c_type_mode0 },
	{ "type_mode_mismatch", c_type_mode_mismatch },
	/* who may */
	{ "priv_init_ns", c_priv_init_ns },
	{ "priv_userns_mount", c_priv_userns_mount },
	{ "priv_userns_reply", c_priv_userns_reply },
	/* item 12 */
	{ "revalidate_forget", c_revalidate_forget },
	{ "create_enosys", c_create_enosys },
	{ "rename_backed_unbacked", c_rename_backed_unbacked },
	{ "notify_nodeid0", c_notify_nodeid0 },
	{ "cuse_poll", c_cuse_poll },
	/* item 14 */
	{ "ino_two_ext4", c_ino_two_ext4 },
	/* the hostile review of 28-37 */
	{ "priv_fsconfig_split", c_priv_fsconfig_split },
	{ "priv_root_dir_opener", c_priv_root_dir_opener },
	{ "append_ftruncate_after_chattr", c_append_ftruncate_after_chattr },
	{ "backed_node_no_server_requests", c_backed_node_no_server_requests },
	{ "idmapped_backing_refused", c_idmapped_backing_refused },
	{ "lseek_whence_rewrite", c_lseek_whence_rewrite },
	{ "mmap_user_filter_eio", c_mmap_user_filter_eio },
	{ "splice_served_rename_backed", c_splice_served_rename_backed },
	/* the hostile review of 54 */
	{ "splice_served_osync", c_splice_served_osync },
	{ "splice_served_direct_io_osync", c_splice_served_direct_io_osync },
	{ "splice_served_fsync_error", c_splice_served_fsync_error },
	{ "splice_served_empty_pipe", c_splice_served_empty_pipe },
	/* the hostile review of 56 */
	{ "splice_served_pipe_busy", c_splice_served_pipe_busy },
	{ "splice_served_pipe_deadlock", c_splice_served_pipe_deadlock },
	{ "splice_served_wakeups", c_splice_served_wakeups },
	{ "splice_served_write_eagain", c_splice_served_write_eagain },
	/* open: a backed inode pins no backing mount */
	{ "backing_umount_under_watch", c_backing_umount_under_watch },
};

TAP_MAIN("harden_srv", cases)
