// SPDX-License-Identifier: GPL-2.0
/*
 * The passthrough suite's environment: a backing filesystem, a FUSE mount,
 * and a server that backs the root's children with fds of the backing
 * filesystem's entries, counting every request it gets.
 */
#define _GNU_SOURCE
#include "passthrough.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>


struct pt_server {
	int back_fd;
	struct pt_shared *sh;
	uint64_t next_nodeid;
	pid_t test_pid;
};

static struct pt_server server_state;

_Static_assert(sizeof(struct fuse_entry_out) % 8 == 0 && sizeof(struct fuse_bpf_entry_out) == 16,
	       "a lookup reply is fuse_entry_out then the entries, without padding");

const char *pt_kind_name(enum pt_backing kind)
{
	return kind == PT_EXT4 ? "ext4" : "tmpfs";
}

static void fill_root_attr(struct fuse_attr *a)
{
	*a = (struct fuse_attr){
		.ino = FUSE_ROOT_ID,
		.mode = S_IFDIR | 0755,
		.nlink = 2,
		.blksize = 4096,
	};
}

/* A reply put into a pipe and spliced to /dev/fuse; 0 or -errno. */
static int reply_by_splice(int fd, uint64_t unique, const void *data, size_t len)
{
	struct fuse_out_header oh = { .len = sizeof(oh) + len, .unique = unique };
	int p[2], rc = 0;
	ssize_t n;

	if (pipe(p))
		return -errno;
	if (write(p[1], &oh, sizeof(oh)) != sizeof(oh) || write(p[1], data, len) != (ssize_t)len) {
		rc = -EIO;
		goto out;
	}
	n = splice(p[0], NULL, fd, NULL, oh.len, 0);
	if (n < 0)
		rc = -errno;
	else if (n != oh.len)
		rc = -EIO;
out:
	close(p[0]);
	close(p[1]);
	return rc;
}

/*
 * LOOKUP of a root child: open it in the backing filesystem and reply with
 * its fd as the backing entry (or with the crafted entries for craft_name).
 */
static int serve_lookup(int fd, struct tfuse_req *req, struct pt_server *s)
{
	struct pt_shared *sh = s->sh;
	const char *name = req->arg;
	uint64_t unique = req->h->unique;
	struct {
		struct fuse_entry_out e;
		struct fuse_bpf_entry_out b[PT_CRAFT_MAX];
	} r;
	int extra[PT_CRAFT_MAX] = { -1, -1, -1, -1 };
	size_t len = sizeof(r.e) + sizeof(r.b[0]);
	bool craft;
	struct stat st;
	int bfd, rc;

	if (req->h->nodeid != FUSE_ROOT_ID)
		return tfuse_reply(fd, unique, -ENOENT, NULL, 0);
	craft = sh->craft_name[0] && strcmp(name, sh->craft_name) == 0;
	if (craft)
		name = sh->craft_attr_name[0] ? sh->craft_attr_name : "data";
	bfd = openat(s->back_fd, name, sh->open_flags | O_NOFOLLOW | O_CLOEXEC);
	if (bfd < 0)
		return tfuse_reply(fd, unique, -errno, NULL, 0);
	if (fstat(bfd, &st)) {
		close(bfd);
		return tfuse_reply(fd, unique, -EIO, NULL, 0);
	}
	memset(&r, 0, sizeof(r));
	r.e.nodeid = sh->real_nodeids ? s->next_nodeid++ : 0;
	r.e.generation = 1;
	r.e.entry_valid = 3600;
	r.e.attr_valid = 3600;
	tfuse_attr_from_stat(&st, &r.e.attr);
	if (craft) {
		len = sizeof(r.e) + sh->craft_len;
		for (int i = 0; i < PT_CRAFT_MAX; i++) {
			r.b[i] = sh->craft[i];
			if (sh->craft_test_fd[i] >= 0) {
				extra[i] = tfuse_fd_of(s->test_pid, sh->craft_test_fd[i]);
				r.b[i].fd = extra[i];
			} else if (r.b[i].fd == PT_FD_DATA) {
				r.b[i].fd = bfd;
			}
		}
	} else {
		r.b[0] = (struct fuse_bpf_entry_out){ .entry_type = FUSE_ENTRY_BACKING, .fd = bfd };
	}
	if (sh->reply_via_write == PT_REPLY_SPLICE)
		rc = reply_by_splice(fd, unique, &r, len);
	else if (sh->reply_via_write)
		rc = tfuse_reply(fd, unique, 0, &r, len);
	else
		rc = tfuse_reply_ioctl(fd, unique, 0, &r, len);
	__atomic_store_n(&sh->last_reply_err, -rc, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&sh->backing_replies, 1, __ATOMIC_SEQ_CST);
	/*
	 * A rejected reply may or may not have ended the request (depending on
	 * where the kernel rejected it); make sure it ends. ENOENT (no such
	 * request) is expected when it already did.
	 */
	if (rc)
		tfuse_reply(fd, unique, -EIO, NULL, 0);
	close(bfd);
	for (int i = 0; i < PT_CRAFT_MAX; i++)
		if (extra[i] >= 0)
			close(extra[i]);
	return 0;
}

static int pt_handler(int fd, struct tfuse_req *req, void *ctx)
{
	struct pt_server *s = ctx;
	uint64_t unique = req->h->unique;
	bool root = req->h->nodeid == FUSE_ROOT_ID;

	switch (req->h->opcode) {
	case FUSE_LOOKUP:
		return serve_lookup(fd, req, s);
	case FUSE_GETATTR: {
		struct fuse_attr_out o = { .attr_valid = 1 };

		if (!root)
			return tfuse_reply(fd, unique, -EIO, NULL, 0);
		fill_root_attr(&o.attr);
		return tfuse_reply(fd, unique, 0, &o, sizeof(o));
	}
	case FUSE_OPENDIR: {
		struct fuse_open_out o = { .fh = 1 };

		if (!root)
			return tfuse_reply(fd, unique, -EIO, NULL, 0);
		return tfuse_reply(fd, unique, 0, &o, sizeof(o));
	}
	case FUSE_READDIR:
		/* The root lists nothing: its children exist only when named. */
		return tfuse_reply(fd, unique, root ? 0 : -EIO, NULL, 0);
	case FUSE_UNLINK:
		if (!root || !s->sh->serve_unlink)
			return tfuse_reply(fd, unique, -EIO, NULL, 0);
		return tfuse_reply(fd, unique, unlinkat(s->back_fd, req->arg, 0) ? -errno : 0, NULL, 0);
	case FUSE_RMDIR:
		if (!root || !s->sh->serve_unlink)
			return tfuse_reply(fd, unique, -EIO, NULL, 0);
		return tfuse_reply(fd, unique, unlinkat(s->back_fd, req->arg, AT_REMOVEDIR) ? -errno : 0,
				   NULL, 0);
	case FUSE_RELEASEDIR:
	case FUSE_ACCESS:
		return tfuse_reply(fd, unique, 0, NULL, 0);
	case FUSE_STATFS: {
		struct fuse_statfs_out o = { .st = { .bsize = 4096, .frsize = 4096, .namelen = 255 } };

		return tfuse_reply(fd, unique, 0, &o, sizeof(o));
	}
	case FUSE_FORGET:
	case FUSE_BATCH_FORGET:
	case FUSE_INTERRUPT:
		return 0;
	default:
		/*
		 * EIO rather than ENOSYS: ENOSYS would make the kernel stop
		 * sending some operations (flush, fsync, ...) and hide a second
		 * one that should have gone to the backing file.
		 */
		return tfuse_reply(fd, unique, -EIO, NULL, 0);
	}
}

int pt_setup(struct pt_env *e, enum pt_backing kind, const char *fuse_opts)
{
	int rc;

	memset(e, 0, sizeof(*e));
	e->fuse_fd = -1;
	e->back_fd = -1;
	e->server = -1;
	e->kind = kind;
	umask(0);
	strcpy(e->dir, "/tmp/pt-XXXXXX");
	if (!mkdtemp(e->dir))
		return -errno;
	/* Other users enter the mount in the credentials cases. */
	chmod(e->dir, 0755);
	snprintf(e->back, sizeof(e->back), "%s/back", e->dir);
	snprintf(e->mnt, sizeof(e->mnt), "%s/mnt", e->dir);
	snprintf(e->img, sizeof(e->img), "%s/ext4.img", e->dir);
	snprintf(e->b, sizeof(e->b), "%s/data", e->back);
	snprintf(e->m, sizeof(e->m), "%s/data", e->mnt);
	snprintf(e->mroot, sizeof(e->mroot), "%s", e->mnt);
	if (mkdir(e->back, 0755) || mkdir(e->mnt, 0755))
		return -errno;
	if (kind == PT_TMPFS) {
		if (mount("tmpfs", e->back, "tmpfs", 0, "mode=0755,size=256m"))
			return -errno;
	} else {
		/* 256-byte inodes: nanosecond timestamps, like tmpfs; 4 KiB blocks like tmpfs pages. */
		if (run("truncate -s 96M %s && mkfs.ext4 -q -F -b 4096 -I 256 %s && mount -o loop %s %s",
			e->img, e->img, e->img, e->back))
			return -EIO;
	}
	e->back_mounted = true;
	e->back_fd = open(e->back, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (e->back_fd < 0)
		return -errno;
	e->counts = tfuse_counts_new();
	e->sh = mmap(NULL, sizeof(*e->sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		     -1, 0);
	if (!e->counts || e->sh == MAP_FAILED) {
		e->sh = NULL;
		return -ENOMEM;
	}
	e->sh->open_flags = O_RDONLY | O_NONBLOCK;
	for (int i = 0; i < PT_CRAFT_MAX; i++)
		e->sh->craft_test_fd[i] = -1;
	rc = tfuse_mount(e->mnt, fuse_opts);
	if (rc < 0)
		return rc;
	e->fuse_fd = rc;
	e->fuse_mounted = true;
	server_state = (struct pt_server){
		.back_fd = e->back_fd,
		.sh = e->sh,
		.next_nodeid = 2,
		.test_pid = getpid(),
	};
	tfuse_count_into(e->counts);
	e->server = tfuse_spawn(e->fuse_fd, pt_handler, &server_state);
	tfuse_count_into(NULL);
	if (e->server < 0)
		return -errno;
	/* The server has it; a copy here would keep a dead connection alive. */
	close(e->fuse_fd);
	e->fuse_fd = -1;
	return 0;
}

int pt_wait_replies(struct pt_env *e, uint32_t n)
{
	/*
	 * The kernel wakes the looking-up process before the server's ioctl
	 * or write() returns: give the server a moment to write down how
	 * its reply went.
	 */
	for (int i = 0; i < 200; i++) {
		if (__atomic_load_n(&e->sh->backing_replies, __ATOMIC_SEQ_CST) >= n)
			return 0;
		usleep(10000);
	}
	return -ETIMEDOUT;
}

int pt_setup_data(struct pt_env *e)
{
	uint32_t before = e->sh->backing_replies;
	struct stat st;

	if (mkdir(e->b, 0755))
		return -errno;
	if (stat(e->m, &st)) {
		int err = -errno;

		printf("stat %s: %s (reply: %s)\n", e->m, strerror(errno),
		       strerror(e->sh->last_reply_err));
		return err;
	}
	pt_wait_replies(e, before + 1);
	if (e->sh->backing_replies != before + 1 || e->sh->last_reply_err) {
		printf("the server sent %u backing replies for %s, the last one got %s\n",
		       e->sh->backing_replies - before, e->m, strerror(e->sh->last_reply_err));
		return -EPROTO;
	}
	if (!S_ISDIR(st.st_mode)) {
		printf("%s has mode %o, not a directory\n", e->m, st.st_mode);
		return -ENOTDIR;
	}
	return 0;
}

int pt_teardown(struct pt_env *e)
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
	if (e->back_fd >= 0)
		close(e->back_fd);
	/*
	 * With the FUSE mount and the server gone, nothing may hold the
	 * backing filesystem: EBUSY here means a leaked backing reference.
	 */
	if (e->back_mounted && umount2(e->back, 0)) {
		rc = -errno;
		printf("umount %s: %s (a leaked reference to the backing filesystem?); detaching\n", e->back,
		       strerror(errno));
		umount2(e->back, MNT_DETACH);
	}
	if (e->dir[0] && strcmp(e->dir, "/tmp/pt-XXXXXX"))
		run("rm -rf %s", e->dir);
	if (e->sh)
		munmap(e->sh, sizeof(*e->sh));
	tfuse_counts_free(e->counts);
	memset(e, 0, sizeof(*e));
	e->fuse_fd = e->back_fd = e->server = -1;
	return rc;
}

int pt_unexpected_requests(struct pt_env *e, const struct tfuse_counts *before,
			   unsigned int allowed_lookups, char *why, size_t cap)
{
	struct tfuse_counts now;
	int unexpected = 0;
	size_t used = 0;

	why[0] = 0;
	tfuse_counts_get(e->counts, &now);
	for (int op = 0; op < TFUSE_MAX_OPCODE; op++) {
		uint32_t n = now.op[op] - before->op[op];

		/* INIT is read by the server whenever it gets to it, maybe after before. */
		if (op == FUSE_FORGET || op == FUSE_BATCH_FORGET || op == FUSE_INIT)
			continue;
		if (op == FUSE_LOOKUP)
			n = n > allowed_lookups ? n - allowed_lookups : 0;
		if (!n)
			continue;
		unexpected += n;
		if (used < cap)
			used += snprintf(why + used, cap - used, "%s%s x%u", used ? ", " : "",
					 tfuse_opname(op), n);
	}
	return unexpected;
}

int pt_run_op(pt_op_fn op, enum pt_backing kind)
{
	struct tfuse_counts before;
	int ret = TAP_FAIL, rc;
	struct pt_env e;
	char why[512];

	rc = pt_setup(&e, kind, NULL);
	EXPECT(!rc, "setting up over %s: %s", pt_kind_name(kind), strerror(-rc));
	if (getenv("TEST_PT_DIRECT")) {
		e.direct = true;
		EXPECT(!mkdir(e.b, 0755));
		strcpy(e.m, e.b);
		strcpy(e.mroot, e.back);
	} else {
		rc = pt_setup_data(&e);
		EXPECT(!rc, "backing %s with %s: %s", e.m, e.b, strerror(-rc));
	}
	tfuse_counts_get(e.counts, &before);
	ret = op(&e);
	/* Releases are sent in the background: let any that went astray arrive. */
	usleep(50000);
	if (!e.direct && pt_unexpected_requests(&e, &before, e.extra_lookups, why, sizeof(why))) {
		printf("the server got requests for passed-through operations: %s\n", why);
		ret = TAP_FAIL;
	}
out:
	if (pt_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/* --- helpers ------------------------------------------------------------------ */

const char *pt_path(const char *dir, const char *name)
{
	static char bufs[16][PATH_MAX];
	static unsigned int next;
	char *p = bufs[next++ % 16];

	snprintf(p, PATH_MAX, "%s/%s", dir, name);
	return p;
}

void pt_fill(void *buf, size_t len, uint32_t seed)
{
	uint32_t x = seed * 2654435761u + 1;
	unsigned char *p = buf;

	for (size_t i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = x;
	}
}

long pt_slurp(const char *path, char **out)
{
	size_t cap = 1 << 16, got = 0;
	char *buf = malloc(cap);
	ssize_t r;
	int fd;

	*out = NULL;
	if (!buf)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return -errno;
	}
	while ((r = read(fd, buf + got, cap - got)) > 0) {
		got += r;
		if (got == cap) {
			char *n = realloc(buf, cap * 2);

			if (!n) {
				r = -1;
				errno = ENOMEM;
				break;
			}
			buf = n;
			cap *= 2;
		}
	}
	if (r < 0) {
		int err = -errno;

		close(fd);
		free(buf);
		return err;
	}
	close(fd);
	*out = buf;
	return got;
}

int pt_same_bytes(const char *a, const char *b)
{
	char *x = NULL, *y = NULL;
	long la = pt_slurp(a, &x), lb = pt_slurp(b, &y);
	int rc = -1;

	if (la < 0 || lb < 0) {
		printf("reading %s: %s, %s: %s\n", a, la < 0 ? strerror(-la) : "ok", b,
		       lb < 0 ? strerror(-lb) : "ok");
		goto out;
	}
	for (long i = 0; i < la && i < lb; i++) {
		if (x[i] != y[i]) {
			printf("%s and %s differ first at byte %ld (%02x, %02x)\n", a, b, i,
			       (unsigned char)x[i], (unsigned char)y[i]);
			goto out;
		}
	}
	if (la != lb) {
		printf("%s has %ld bytes, %s %ld\n", a, la, b, lb);
		goto out;
	}
	rc = 0;
out:
	free(x);
	free(y);
	return rc;
}

int pt_same_stat(const char *through, const char *backing)
{
	struct stat m, b;
	int diff = 0;

	if (lstat(through, &m) || lstat(backing, &b)) {
		printf("lstat %s / %s: %s\n", through, backing, strerror(errno));
		return -1;
	}
#define SAME(field, fmt)                                                                   \
	do {                                                                               \
		if (m.field != b.field) {                                                  \
			printf("%s: " #field " " fmt " through the mount, " fmt " backing\n", \
			       through, m.field, b.field);                                 \
			diff++;                                                            \
		}                                                                          \
	} while (0)
	SAME(st_mode, "%o");
	SAME(st_nlink, "%lu");
	SAME(st_uid, "%u");
	SAME(st_gid, "%u");
	SAME(st_size, "%ld");
	SAME(st_rdev, "%lu");
	SAME(st_blocks, "%ld");
	SAME(st_mtim.tv_sec, "%ld");
	SAME(st_mtim.tv_nsec, "%ld");
	SAME(st_ctim.tv_sec, "%ld");
	SAME(st_ctim.tv_nsec, "%ld");
#undef SAME
	return diff ? -1 : 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char *pt_listing(const char *path)
{
	size_t n = 0, cap = 64, len = 0;
	char **names = malloc(cap * sizeof(*names)), *out = NULL;
	struct dirent *de;
	DIR *d;

	if (!names)
		return NULL;
	d = opendir(path);
	if (!d) {
		printf("opendir %s: %s\n", path, strerror(errno));
		free(names);
		return NULL;
	}
	errno = 0;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (n == cap) {
			char **nn = realloc(names, (cap *= 2) * sizeof(*names));

			if (!nn)
				goto out;
			names = nn;
		}
		names[n] = strdup(de->d_name);
		len += strlen(de->d_name) + 1;
		n++;
	}
	if (errno) {
		printf("readdir %s: %s\n", path, strerror(errno));
		goto out;
	}
	qsort(names, n, sizeof(*names), cmp_names);
	out = malloc(len + 1);
	if (out) {
		out[0] = 0;
		for (size_t i = 0; i < n; i++) {
			strcat(out, names[i]);
			strcat(out, "\n");
		}
	}
out:
	closedir(d);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return out;
}

int pt_make_file(const char *path, size_t len, uint32_t seed)
{
	char *buf = malloc(len ? len : 1);
	int rc;

	if (!buf)
		return -ENOMEM;
	pt_fill(buf, len, seed);
	rc = write_file(path, buf, len);
	free(buf);
	return rc;
}
