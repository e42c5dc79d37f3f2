// SPDX-License-Identifier: GPL-2.0
/* The filtered view of a case: see hfilter_view.h. */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hfilter_view.h"
#include "tap.h"
#include "tfilter.h"

struct hf_env E;

/* The whole content of path in buf (NUL-terminated), or "<errno text>". */
const char *content(const char *path)
{
	static char buf[4][256];
	static int n;
	char *p = buf[n++ % 4];
	long r = read_file(path, p, 256);

	if (r < 0)
		snprintf(p, 256, "<%s>", strerror(-r));
	return p;
}

/* open(path, flags) fails with err; an fd it gets by mistake is closed. */
bool open_fails(const char *path, int flags, int err)
{
	int fd;

	errno = 0;
	fd = open(path, flags, 0644);
	if (fd >= 0) {
		close(fd);
		errno = 0;
		return false;
	}
	return errno == err;
}

/* A listing of the backing tree (names, modes, sizes, times, owners). */
int snapshot(const char *out)
{
	return run("cd %s && find . -printf '%%p %%y %%m %%s %%T@ %%u %%g\\n' | sort > %s", E.back,
		   out);
}

int same_snapshot(const char *a, const char *b)
{
	return run("diff %s %s >&2", a, b);
}

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

/*
 * Load hfilter and attach its fuse_ops map, keeping the link, so that
 * hf_teardown() detaches it (an attached map is freed only once detached).
 */
int load_filter(void)
{
	int err;

	if (!tfilter_have_fuse_ops())
		return -ENOENT;
	libbpf_set_print(libbpf_quiet);
	E.skel = hfilter_bpf__open_and_load();
	if (!E.skel)
		return -errno;
	E.link = bpf_map__attach_struct_ops(E.skel->maps.hf);
	if (!E.link) {
		err = -errno;
		printf("attaching the hf map: %s\n", strerror(-err));
		return err == -ENOENT ? -EINVAL : err;
	}
	return 0;
}

int set_cfg(uint32_t op, uint32_t flags, int pre_ret, int post_ret)
{
	struct hf_cfg c = { .flags = flags, .pre_ret = pre_ret, .post_ret = post_ret };

	return bpf_map_update_elem(bpf_map__fd(E.skel->maps.cfg), &op, &c, BPF_ANY);
}

long long map_get(struct bpf_map *map, uint32_t key)
{
	long long v = -999999;

	bpf_map_lookup_elem(bpf_map__fd(map), &key, &v);
	return v;
}

void map_put(struct bpf_map *map, uint32_t key, long long v)
{
	bpf_map_update_elem(bpf_map__fd(map), &key, &v, BPF_ANY);
}

static int srv_prefilter(int fd, struct tfuse_req *req)
{
	uint32_t op = req->h->opcode & 0xffff;
	struct hf_srv *s = E.srv;
	uint64_t u = req->h->unique;

	if (op == FUSE_ACCESS) {
		struct fuse_access_in ai = *(struct fuse_access_in *)req->arg;

		__atomic_add_fetch(&s->access, 1, __ATOMIC_SEQ_CST);
		if (ai.mask & MAY_NOT_BLOCK)
			__atomic_add_fetch(&s->access_not_block, 1, __ATOMIC_SEQ_CST);
		return tfuse_reply(fd, u, 0, &ai, sizeof(ai));
	}
	if (op == FUSE_MKNOD) {
		struct fuse_mknod_in mi = *(struct fuse_mknod_in *)req->arg;

		s->mknod++;
		if (s->mknod_mode)
			mi.mode = s->mknod_mode;
		return tfuse_reply(fd, u, 0, &mi, sizeof(mi));
	}
	if (op == FUSE_RENAME2) {
		struct fuse_rename2_in ri = *(struct fuse_rename2_in *)req->arg;

		s->rename2++;
		ri.flags |= s->rename_add;
		return tfuse_reply(fd, u, 0, &ri, sizeof(ri));
	}
	if (op == FUSE_LOOKUP) {
		uint32_t n = __atomic_fetch_add(&s->lookup, 1, __ATOMIC_SEQ_CST);

		if (n < ARRAY_SIZE(s->lookup_name)) {
			size_t len = req->arglen < 127 ? req->arglen : 127;

			memcpy(s->lookup_name[n], req->arg, len);
			s->lookup_name[n][len] = 0;
		}
		while (__atomic_load_n(&s->hold, __ATOMIC_SEQ_CST))
			usleep(10000);
		return tfuse_reply(fd, u, 0, NULL, 0);
	}
	if (op == FUSE_READDIR) {
		struct fuse_read_in ri = *(struct fuse_read_in *)req->arg;

		s->readdir++;
		if (s->readdir_size)
			ri.size = s->readdir_size;
		return tfuse_reply(fd, u, 0, &ri, sizeof(ri));
	}
	s->other++;
	return tfuse_reply(fd, u, -ENOSYS, NULL, 0);
}

static int srv_handler(int fd, struct tfuse_req *req, void *ctx)
{
	uint32_t op = req->h->opcode;
	(void)ctx;

	if (op & FUSE_PREFILTER)
		return srv_prefilter(fd, req);
	if (op == FUSE_FORGET || op == FUSE_BATCH_FORGET || op == FUSE_INTERRUPT)
		return 0;
	E.srv->other++;
	return tfuse_reply(fd, req->h->unique, -ENOSYS, NULL, 0);
}

int push_mount(const char *path)
{
	size_t len = strnlen(path, sizeof(E.mounts[0]) - 1);

	if (E.nmounts == 6)
		return -ENOSPC;
	memmove(E.mounts[E.nmounts], path, len);
	E.mounts[E.nmounts++][len] = 0;
	return 0;
}

/*
 * A tmpfs at E.dir, the backing filesystem at E.back (mount options opts,
 * e.g. "nodev"), the filter loaded. 0 or -errno; hf_teardown() always.
 */
int hf_setup(enum hf_kind kind, const char *opts)
{
	const char *sep = opts && *opts ? "," : "";
	int rc;

	opts = opts ? opts : "";
	E.server = -1;
	strcpy(E.dir, "/tmp/hf-XXXXXX");
	if (!mkdtemp(E.dir))
		return -errno;
	if (mount("tmpfs", E.dir, "tmpfs", 0, "mode=0755,size=200m"))
		return -errno;
	push_mount(E.dir);
	snprintf(E.back, sizeof(E.back), "%s/back", E.dir);
	snprintf(E.root, sizeof(E.root), "%s", E.back);
	snprintf(E.mnt, sizeof(E.mnt), "%s/mnt", E.dir);
	snprintf(E.img, sizeof(E.img), "%s/ext4.img", E.dir);
	if (mkdir(E.back, 0755) || mkdir(E.mnt, 0755))
		return -errno;
	if (kind == HF_EXT4)
		rc = run("truncate -s 64M %s && mkfs.ext4 -q -F -b 4096 %s && mount -o loop%s%s %s %s",
			 E.img, E.img, sep, opts, E.img, E.back);
	else
		rc = run("mount -t tmpfs -o mode=0755%s%s tmpfs %s", sep, opts, E.back);
	if (rc)
		return -EIO;
	push_mount(E.back);
	E.srv = mmap(NULL, sizeof(*E.srv), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (E.srv == MAP_FAILED)
		return -ENOMEM;
	return load_filter();
}

/* Mount the view of E.root; served: with a server (srv_handler), else no_daemon. */
int hf_mount(bool served)
{
	char opts[160];
	int dirfd, fd;

	dirfd = open(E.root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return -errno;
	snprintf(opts, sizeof(opts), "root_dir=%d,root_bpf=%d,allow_other%s", dirfd,
		 bpf_map__fd(E.skel->maps.hf), served ? "" : ",no_daemon");
	fd = tfuse_mount(E.mnt, opts);
	close(dirfd);
	if (fd < 0)
		return fd;
	E.view = true;
	if (served)
		E.server = tfuse_spawn(fd, srv_handler, NULL);
	close(fd);
	return served && E.server < 0 ? -ECHILD : 0;
}

int hf_unmount_view(void)
{
	if (!E.view)
		return 0;
	E.view = false;
	tfuse_stop(E.mnt, E.server);
	E.server = -1;
	return 0;
}

/* Undo everything; -EBUSY when the backing filesystem could not be unmounted. */
int hf_teardown(void)
{
	int rc = 0;

	if (E.frozen)
		run("fsfreeze -u %s", E.back);
	hf_unmount_view();
	for (int i = E.nmounts - 1; i >= 0; i--) {
		if (!umount2(E.mounts[i], 0))
			continue;
		if (!strcmp(E.mounts[i], E.back))
			rc = -errno;
		printf("umount %s: %s; detaching\n", E.mounts[i], strerror(errno));
		umount2(E.mounts[i], MNT_DETACH);
	}
	if (E.dir[0] && strcmp(E.dir, "/tmp/hf-XXXXXX"))
		rmdir(E.dir);
	bpf_link__destroy(E.link);
	E.link = NULL;
	hfilter_bpf__destroy(E.skel);
	E.skel = NULL;
	return rc;
}

/*
 * Run argv[0] (as uid when uid != 0) with its stdout in out; its exit
 * status (< 100), or -errno when execve failed.
 */
int try_exec(char *const argv[], uid_t uid, char *out, size_t cap)
{
	int p[2], status;
	ssize_t n = 0, r;
	pid_t pid;

	if (pipe(p))
		return -EPIPE;
	pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		if (uid && (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
			    setresuid(uid, uid, uid)))
			_exit(99);
		execv(argv[0], argv);
		_exit(100 + (errno & 0x7f));
	}
	close(p[1]);
	while (out && (size_t)n + 1 < cap && (r = read(p[0], out + n, cap - 1 - n)) > 0)
		n += r;
	if (out)
		out[n] = 0;
	close(p[0]);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -ECHILD;
	return WEXITSTATUS(status) >= 100 ? -(WEXITSTATUS(status) - 100) : WEXITSTATUS(status);
}

int uring_one(struct io_uring *ring, int fd, bool write, void *buf, long long off)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	struct io_uring_cqe *cqe;
	int res;

	if (!sqe)
		return -10000;
	if (write)
		io_uring_prep_write(sqe, fd, buf, IO_LEN, off);
	else
		io_uring_prep_read(sqe, fd, buf, IO_LEN, off);
	if (io_uring_submit(ring) != 1 || io_uring_wait_cqe(ring, &cqe))
		return -10001;
	res = cqe->res;
	io_uring_cqe_seen(ring, cqe);
	return res;
}
