// SPDX-License-Identifier: GPL-2.0
/*
 * What a filter returns and rewrites, and where the kernel must not take
 * its word: postfilter verdicts on READ and WRITE, return values that are
 * not errnos a system call may return, a failing OPEN postfilter, in args
 * that are read only (by BPF prefilters and by server prefilters) and
 * those that are writable, writes that must pass the WRITE filter however
 * they are made (splice, copy_file_range, shared mappings), an exec's OPEN
 * that says it is one, and the attributes a view without a filter shows.
 *
 * Most cases mount a view of their own with tests/bpf/hfilter.bpf.c
 * (tests/guest/hfilter_view.c); the LSEEK whence case loads a filter of
 * tests/bpf/tsfilter.bpf.c on a view of the table server's environment
 * (tests/guest/table_srv.c). A case marked "crashes" crashes a kernel
 * that lacks the check: run it alone there (argv[1] selects cases).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libaio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fusebpf_uapi.h"
#include "hfilter_view.h"
#include "table_srv.h"
#include "tap.h"
#include "tfuse.h"
#include "tproc.h"

#define FMODE_EXEC_FLAG	0x20	/* __FMODE_EXEC, in an exec's f_flags */

/* --- rewritten in args ------------------------------------------------------------ */

/*
 * A filter whose LSEEK prefilter sets in arg 0's whence (struct
 * fuse_lseek_in) to whence with bpf_fuse_set_arg(); set_arg's error, if
 * any, is the verdict (tests/bpf/tsfilter.bpf.c, ts_whence).
 */
static int load_lseek_whence_prog(int whence)
{
	return ts_filter("ts_whence", 0, whence);
}

/*
 * LSEEK's in arg is writable by a prefilter, but its whence must stay one
 * llseek(2) accepts: rewritten to 7 (past SEEK_MAX), lseek(SEEK_SET) and
 * lseek(SEEK_END) on a view file fail EINVAL: passed on to the backing
 * file system, 7 would be taken for SEEK_SET by its generic llseek. The
 * file otherwise reads through the filter.
 */
static int t_lseek_whence_rewrite(void)
{
	int ret = TAP_FAIL, rc, prog = -1, dfd = -1, fd = -1;
	bool view_up = false;
	struct ts_env e;
	char view[128], opts[32], buf[16];

	prog = load_lseek_whence_prog(7);
	if (prog == -ENOENT)
		SKIP("kernel without fuse-bpf BPF");
	EXPECT(prog >= 0, "loading the whence filter: %s", strerror(-prog));
	rc = ts_setup(&e, NULL);
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
	ts_filter_close(prog);
	if (ts_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/* --- exec through a view ------------------------------------------------------------ */

/* open() and read() of path: 0, or the errno (in_child_as()'s callback) */
static int try_read(const char *path)
{
	char buf[64];
	long r = read_file(path, buf, sizeof(buf));

	return r < 0 ? -r : 0;
}

/*
 * A filter decides about exec at OPEN (a path walk asks no ACCESS filter):
 * an exec's OPEN prefilter must be able to tell it from a read, by
 * __FMODE_EXEC in fuse_open_in.flags.
 */
static int t_exec_open_flags(void)
{
	char *argv[2] = { NULL, NULL };
	int ret = TAP_FAIL, rc;
	long long flags;

	SETUP(HF_TMPFS, NULL);
	EXPECT(run("cp /bin/true %s/true", E.back) == 0);
	EXPECT(hf_mount(false) == 0);
	map_put(E.skel->maps.note, NOTE_OPEN_FLAGS, -1);
	EXPECT(try_read(M("true")) == 0);
	flags = NOTE(NOTE_OPEN_FLAGS);
	EXPECT(flags >= 0 && !(flags & FMODE_EXEC_FLAG), "read's OPEN flags %#llx", flags);
	argv[0] = (char *)M("true");
	rc = try_exec(argv, 0, NULL, 0);
	EXPECT(rc == 0, "exec through the view: %d", rc);
	flags = NOTE(NOTE_OPEN_FLAGS);
	EXPECT(flags >= 0 && (flags & FMODE_EXEC_FLAG), "exec's OPEN flags %#llx", flags);
	ret = TAP_OK;
out:
	hf_teardown();
	return ret;
}

/* --- READ and WRITE postfilters: their verdicts are ignored ----------------------- */

/* ext4 backing, READ and WRITE postfilters that return -EPERM; f has 8 KiB of 'a'. */
static int rw_post_setup(void)
{
	char buf[2 * IO_LEN];
	int rc;

	rc = hf_setup(HF_EXT4, NULL);
	if (rc)
		return rc;
	memset(buf, 'a', sizeof(buf));
	if (write_file(B("f"), buf, sizeof(buf)))
		return -EIO;
	if (set_cfg(FUSE_READ, HF_POST, 0, -EPERM) || set_cfg(FUSE_WRITE, HF_POST, 0, -EPERM))
		return -EIO;
	return hf_mount(false);
}

static void *aligned(int c)
{
	void *p = NULL;

	if (posix_memalign(&p, IO_LEN, IO_LEN))
		return NULL;
	memset(p, c, IO_LEN);
	return p;
}

/* The backing file has 'b' at [0, 4096) and 'a' after (what the writes put there). */
static int backing_is_ba(void)
{
	char buf[2 * IO_LEN + 1];
	long n = read_file(B("f"), buf, sizeof(buf));

	if (n != 2 * IO_LEN)
		return printf("backing f has %ld bytes\n", n), -1;
	for (int i = 0; i < 2 * IO_LEN; i++)
		if (buf[i] != (i < IO_LEN ? 'b' : 'a'))
			return printf("backing f: byte %d is '%c'\n", i, buf[i]), -1;
	return 0;
}

/*
 * Sync read and write with a postfilter that fails them: the byte counts,
 * the data and the file position are the backing's: the I/O is done.
 */
static int t_rw_post_sync(void)
{
	int ret = TAP_FAIL, fd = -1, rc;
	char buf[IO_LEN];

	rc = rw_post_setup();
	if (rc == -ENOENT)
		SKIP("no fuse-bpf filters");
	EXPECT(rc == 0, "setting up: %s", strerror(-rc));
	fd = open(M("f"), O_RDWR);
	EXPECT(fd >= 0, "open: %s", strerror(errno));
	memset(buf, 'b', sizeof(buf));
	errno = 0;
	rc = write(fd, buf, IO_LEN);
	EXPECT(rc == IO_LEN, "write: %d (%s): the postfilter's EPERM counted", rc, strerror(errno));
	EXPECT(lseek(fd, 0, SEEK_CUR) == IO_LEN, "position %lld after the write",
	       (long long)lseek(fd, 0, SEEK_CUR));
	rc = read(fd, buf, IO_LEN);
	EXPECT(rc == IO_LEN, "read: %d (%s)", rc, strerror(errno));
	EXPECT(buf[0] == 'a' && buf[IO_LEN - 1] == 'a', "read the wrong data");
	EXPECT(lseek(fd, 0, SEEK_CUR) == 2 * IO_LEN);
	EXPECT(POST_RUNS(FUSE_READ) >= 1 && POST_RUNS(FUSE_WRITE) >= 1,
	       "postfilters: %lld READ, %lld WRITE", POST_RUNS(FUSE_READ), POST_RUNS(FUSE_WRITE));
	close(fd);
	fd = -1;
	EXPECT(backing_is_ba() == 0);
	ret = TAP_OK;
out:
	if (fd >= 0)
		close(fd);
	if (hf_teardown())
		ret = TAP_FAIL;
	return ret;
}

/* One libaio request on fd; its result. */
static long aio_one(int fd, bool write, void *buf, long long off)
{
	io_context_t ctx = 0;
	struct iocb cb, *cbs[1] = { &cb };
	struct io_event ev;
	struct timespec ts = { .tv_sec = 20 };
	long res;
	int rc;

	rc = io_setup(4, &ctx);
	if (rc)
		return printf("io_setup: %s\n", strerror(-rc)), -10000;
	if (write)
		io_prep_pwrite(&cb, fd, buf, IO_LEN, off);
	else
		io_prep_pread(&cb, fd, buf, IO_LEN, off);
	rc = io_submit(ctx, 1, cbs);
	if (rc != 1) {
		io_destroy(ctx);
		return printf("io_submit: %d (%s)\n", rc, strerror(-rc)), -10001;
	}
	rc = io_getevents(ctx, 1, 1, &ev, &ts);
	res = rc == 1 ? (long)ev.res : -10002;
	io_destroy(ctx);
	return res;
}

/*
 * libaio O_DIRECT on ext4 (queued) with failing postfilters: 4096 each,
 * data right. Crashes a kernel that runs the postfilter on a queued I/O.
 */
static int t_rw_post_libaio(void)
{
	int ret = TAP_FAIL, fd = -1, rc;
	char *w = NULL, *r = NULL;
	long res;

	rc = rw_post_setup();
	if (rc == -ENOENT)
		SKIP("no fuse-bpf filters");
	EXPECT(rc == 0, "setting up: %s", strerror(-rc));
	w = aligned('b');
	r = aligned(0);
	EXPECT(w && r);
	fd = open(M("f"), O_RDWR | O_DIRECT);
	EXPECT(fd >= 0, "open O_DIRECT: %s", strerror(errno));
	res = aio_one(fd, true, w, 0);
	EXPECT(res == IO_LEN, "libaio write: %ld", res);
	res = aio_one(fd, false, r, IO_LEN);
	EXPECT(res == IO_LEN, "libaio read: %ld", res);
	EXPECT(r[0] == 'a' && r[IO_LEN - 1] == 'a', "read the wrong data");
	res = aio_one(fd, false, r, 0);
	EXPECT(res == IO_LEN && r[0] == 'b' && r[IO_LEN - 1] == 'b', "read back the write: %ld", res);
	close(fd);
	fd = -1;
	EXPECT(backing_is_ba() == 0);
	ret = TAP_OK;
out:
	if (fd >= 0)
		close(fd);
	free(w);
	free(r);
	if (hf_teardown())
		ret = TAP_FAIL;
	return ret;
}

/*
 * io_uring O_DIRECT on ext4 with failing postfilters: 4096 each, data
 * right. Crashes a kernel that runs the postfilter on a queued I/O.
 */
static int t_rw_post_io_uring(void)
{
	int ret = TAP_FAIL, fd = -1, rc, res;
	struct io_uring ring;
	bool ring_up = false;
	char *w = NULL, *r = NULL;

	rc = rw_post_setup();
	if (rc == -ENOENT)
		SKIP("no fuse-bpf filters");
	EXPECT(rc == 0, "setting up: %s", strerror(-rc));
	rc = io_uring_queue_init(8, &ring, 0);
	EXPECT(rc == 0, "io_uring_queue_init: %s", strerror(-rc));
	ring_up = true;
	w = aligned('b');
	r = aligned(0);
	EXPECT(w && r);
	fd = open(M("f"), O_RDWR | O_DIRECT);
	EXPECT(fd >= 0, "open O_DIRECT: %s", strerror(errno));
	res = uring_one(&ring, fd, true, w, 0);
	EXPECT(res == IO_LEN, "io_uring write: %d", res);
	res = uring_one(&ring, fd, false, r, IO_LEN);
	EXPECT(res == IO_LEN, "io_uring read: %d", res);
	EXPECT(r[0] == 'a' && r[IO_LEN - 1] == 'a', "read the wrong data");
	res = uring_one(&ring, fd, false, r, 0);
	EXPECT(res == IO_LEN && r[0] == 'b' && r[IO_LEN - 1] == 'b', "read back the write: %d", res);
	close(fd);
	fd = -1;
	EXPECT(backing_is_ba() == 0);
	ret = TAP_OK;
out:
	if (fd >= 0)
		close(fd);
	if (ring_up)
		io_uring_queue_exit(&ring);
	free(w);
	free(r);
	if (hf_teardown())
		ret = TAP_FAIL;
	return ret;
}

/* --- filter return values ------------------------------------------------------- */

/* stat(path) with GETATTR's prefilter returning val: -errno of the stat, or 0. */
static int stat_with_getattr_ret(const char *path, int val)
{
	struct stat st;

	if (set_cfg(FUSE_GETATTR, HF_PRE_RET, val, 0))
		return -10000;
	errno = 0;
	return stat(path, &st) ? -errno : 0;
}

/*
 * Kernel-internal errnos (-512 ERESTARTSYS, -4095) give EIO; errnos a
 * syscall may return (-511, -1) pass through as they are.
 */
static int t_ret_values(void)
{
	static const struct { int val, want; } v[] = {
		{ -512, -EIO }, { -4095, -EIO }, { -516, -EIO }, { -511, -511 }, { -1, -EPERM },
	};
	int ret = TAP_FAIL, bad = 0;
	struct stat st;

	SETUP(HF_TMPFS, NULL);
	EXPECT(write_file(B("f"), "data\n", 5) == 0);
	EXPECT(hf_mount(false) == 0);
	EXPECT(stat(M("f"), &st) == 0, "%s", strerror(errno));
	for (unsigned int i = 0; i < ARRAY_SIZE(v); i++) {
		int got = stat_with_getattr_ret(M("f"), v[i].val);

		if (got != v[i].want) {
			printf("GETATTR prefilter returning %d: stat gave %d, want %d\n", v[i].val, got,
			       v[i].want);
			bad++;
		}
	}
	EXPECT(!bad);
	EXPECT(run("dmesg | grep -q 'fuse-bpf: filter of opcode %d (phase %#x) returned invalid "
		   "value -512'", FUSE_GETATTR, FUSE_PREFILTER) == 0,
	       "no kernel line about GETATTR's invalid value -512");
	EXPECT(set_cfg(FUSE_GETATTR, 0, 0, 0) == 0);
	EXPECT(stat(M("f"), &st) == 0 && st.st_size == 5, "stat with the filter passing");
	ret = TAP_OK;
out:
	hf_teardown();
	return ret;
}

/*
 * -EIOCBQUEUED (-529) from a READ prefilter: read fails EIO. Crashes a
 * kernel that passes it on (BUG_ON).
 */
static int t_ret_eiocbqueued_read(void)
{
	int ret = TAP_FAIL, fd = -1;
	char buf[16];
	ssize_t n;

	SETUP(HF_TMPFS, NULL);
	EXPECT(write_file(B("f"), "data\n", 5) == 0);
	EXPECT(hf_mount(false) == 0);
	fd = open(M("f"), O_RDONLY);
	EXPECT(fd >= 0, "%s", strerror(errno));
	EXPECT(set_cfg(FUSE_READ, HF_PRE_RET, -529, 0) == 0);
	errno = 0;
	n = read(fd, buf, sizeof(buf));
	EXPECT(n == -1 && errno == EIO, "read: %zd (%s)", n, strerror(errno));
	EXPECT(set_cfg(FUSE_READ, 0, 0, 0) == 0);
	EXPECT(pread(fd, buf, sizeof(buf), 0) == 5 && !memcmp(buf, "data\n", 5));
	ret = TAP_OK;
out:
	if (fd >= 0)
		close(fd);
	hf_teardown();
	return ret;
}

/* --- a failing OPEN postfilter releases the backing file ------------------------- */

/*
 * An OPEN postfilter that fails a write open: open() fails with its errno,
 * the binary still runs (no writer holds it: no ETXTBSY), and the backing
 * file it opened is released (the ext4 backing unmounts).
 */
static int t_open_post_no_leak(void)
{
	char *argv[] = { NULL, NULL };
	int ret = TAP_FAIL, rc;

	SETUP(HF_EXT4, NULL);
	EXPECT(run("cp /bin/true %s/bin", E.back) == 0);
	EXPECT(set_cfg(FUSE_OPEN, HF_POST, 0, -EPERM) == 0);
	EXPECT(hf_mount(false) == 0);
	errno = 0;
	EXPECT(open_fails(M("bin"), O_WRONLY, EPERM), "open: %s", strerror(errno));
	EXPECT(POST_RUNS(FUSE_OPEN) == 1, "%lld OPEN postfilters", POST_RUNS(FUSE_OPEN));
	argv[0] = (char *)B("bin");
	rc = try_exec(argv, 0, NULL, 0);
	EXPECT(rc == 0, "exec of the backing binary: %s", rc < 0 ? strerror(-rc) : "failed");
	hf_unmount_view();
	/* with the view gone, nothing may hold the ext4 filesystem */
	EXPECT(umount2(E.back, 0) == 0, "umount of the backing: %s", strerror(errno));
	E.nmounts--;
	ret = TAP_OK;
out:
	if (hf_teardown())
		ret = TAP_FAIL;
	return ret;
}

/* Every op the setarg case tries: rewrite in arg 0 (HF_SETARG), nothing else. */
static int setarg_cfg(void)
{
	static const uint32_t ops[] = { FUSE_MKNOD, FUSE_MKDIR, FUSE_RENAME2, FUSE_OPEN,
					FUSE_WRITE, FUSE_READ, FUSE_SETATTR };

	for (unsigned int i = 0; i < ARRAY_SIZE(ops); i++) {
		map_put(E.skel->maps.setarg_ret, ops[i], SETARG_UNSET);
		if (set_cfg(ops[i], HF_SETARG, 0, 0))
			return -1;
	}
	return 0;
}

/* setarg_ret of op must be -EACCES; a message and 1 if not. */
static int refused(uint32_t op, const char *what)
{
	long long v = SETARG(op);

	if (v == -EACCES)
		return 0;
	printf("bpf_fuse_set_arg on %s: %lld, not -EACCES (%d)\n", what, v, -EACCES);
	return 1;
}

/*
 * A prefilter writing read-only in args (MKNOD mode, MKDIR mode, RENAME2
 * flags, OPEN flags, WRITE offset, READ size, SETATTR size) gets -EACCES,
 * and the ops do what the caller asked.
 */
static int t_setarg_readonly(void)
{
	int ret = TAP_FAIL, fd = -1, bad = 0;
	char buf[16] = "";
	struct stat st;

	SETUP(HF_TMPFS, NULL);
	umask(0);
	EXPECT(run("cd %s && echo a > a && echo b > b && printf 0123456789 > f", E.back) == 0);
	EXPECT(hf_mount(false) == 0);
	EXPECT(setarg_cfg() == 0);
	/* each step on its own: a kernel that honours one rewrite may refuse others */
	if (mknod(M("fifo"), S_IFIFO | 0644, 0))
		bad++, printf("mknod: %s\n", strerror(errno));
	if (mkdir(M("dir"), 0700))
		bad++, printf("mkdir: %s\n", strerror(errno));
	if (rename(M("a"), M("b")))
		bad++, printf("rename: %s\n", strerror(errno));
	fd = open(M("f"), O_RDONLY);
	if (fd < 0 || pread(fd, buf, 10, 0) != 10)
		bad++, printf("open/read: %s\n", strerror(errno));
	if (fd >= 0)
		close(fd);
	fd = open(M("f"), O_WRONLY);
	if (fd < 0 || pwrite(fd, "AB", 2, 0) != 2)
		bad++, printf("open for write/write: %s\n", strerror(errno));
	if (truncate(M("f"), 6))
		bad++, printf("truncate: %s\n", strerror(errno));
	bad += refused(FUSE_MKNOD, "MKNOD's mode") + refused(FUSE_MKDIR, "MKDIR's mode") +
	       refused(FUSE_RENAME2, "RENAME2's flags") + refused(FUSE_OPEN, "OPEN's flags") +
	       refused(FUSE_WRITE, "WRITE's offset") + refused(FUSE_READ, "READ's size") +
	       refused(FUSE_SETATTR, "SETATTR's size");
	if (lstat(B("fifo"), &st) || st.st_mode != (S_IFIFO | 0644))
		bad++, printf("fifo: mode %o\n", st.st_mode);
	if (lstat(B("dir"), &st) || st.st_mode != (S_IFDIR | 0700))
		bad++, printf("dir: mode %o\n", st.st_mode);
	if (!FAILS(lstat(B("a"), &st), ENOENT) || strcmp(content(B("b")), "a\n"))
		bad++, printf("rename: a %s, b '%s'\n", content(B("a")), content(B("b")));
	if (memcmp(buf, "0123456789", 10))
		bad++, printf("read '%.10s'\n", buf);
	if (strcmp(content(B("f")), "AB2345"))
		bad++, printf("f: '%s'\n", content(B("f")));
	EXPECT(!bad, "%d wrong", bad);
	ret = TAP_OK;
out:
	if (fd >= 0)
		close(fd);
	hf_teardown();
	return ret;
}

/* A served view whose filter hands op's prefilter to the server. */
static int served_setup(uint32_t op)
{
	int rc = hf_setup(HF_TMPFS, NULL);

	if (rc)
		return rc;
	if (run("cd %s && echo a > a && echo c > c && echo d > d && mkdir dir && touch dir/x",
		E.back))
		return -EIO;
	if (set_cfg(op, HF_PRE_RET, FUSE_BPF_USER_FILTER, 0))
		return -EIO;
	return hf_mount(true);
}

#define SERVED_SETUP(op)                                                  \
	do {                                                              \
		int __e = served_setup(op);                               \
		if (__e == -ENOENT)                                       \
			SKIP("no fuse-bpf filters");                      \
		EXPECT(__e == 0, "setting up: %s", strerror(-__e));       \
	} while (0)

/* A server prefilter turning MKNOD's S_IFIFO into S_IFDIR: EIO, nothing created. */
static int t_srv_mknod_mode(void)
{
	int ret = TAP_FAIL;
	struct stat st;

	SERVED_SETUP(FUSE_MKNOD);
	E.srv->mknod_mode = S_IFDIR | 0755;
	errno = 0;
	EXPECT(FAILS(mknod(M("n"), S_IFIFO | 0644, 0), EIO), "mknod: %s", strerror(errno));
	EXPECT(E.srv->mknod == 1, "%u MKNOD prefilters at the server", E.srv->mknod);
	EXPECT(FAILS(lstat(B("n"), &st), ENOENT), "the backing has n, mode %o", st.st_mode);
	/* echoed unchanged, it works */
	E.srv->mknod_mode = 0;
	EXPECT(mknod(M("n2"), S_IFIFO | 0644, 0) == 0, "mknod with the args echoed: %s",
	       strerror(errno));
	EXPECT(lstat(B("n2"), &st) == 0 && S_ISFIFO(st.st_mode));
	ret = TAP_OK;
out:
	hf_teardown();
	return ret;
}

/*
 * A server prefilter adding RENAME_WHITEOUT or RENAME_EXCHANGE to RENAME2:
 * EIO and nothing renamed, no whiteout.
 */
static int t_srv_rename2_flags(void)
{
	int ret = TAP_FAIL;
	struct stat st;

	SERVED_SETUP(FUSE_RENAME2);
	E.srv->rename_add = RENAME_WHITEOUT;
	errno = 0;
	EXPECT(FAILS(rename(M("a"), M("b")), EIO), "rename + WHITEOUT: %s", strerror(errno));
	EXPECT(!strcmp(content(B("a")), "a\n") && FAILS(lstat(B("b"), &st), ENOENT),
	       "a '%s', b %s", content(B("a")), content(B("b")));
	E.srv->rename_add = RENAME_EXCHANGE;
	EXPECT(FAILS(rename(M("c"), M("d")), EIO), "rename + EXCHANGE: %s", strerror(errno));
	EXPECT(!strcmp(content(B("c")), "c\n") && !strcmp(content(B("d")), "d\n"),
	       "c '%s', d '%s'", content(B("c")), content(B("d")));
	E.srv->rename_add = 0;
	EXPECT(rename(M("c"), M("e")) == 0, "rename with the args echoed: %s", strerror(errno));
	EXPECT(!strcmp(content(B("e")), "c\n"));
	ret = TAP_OK;
out:
	hf_teardown();
	return ret;
}

/* A server prefilter giving READDIR a size of 1 GiB: getdents fails EIO. */
static int t_srv_readdir_size(void)
{
	int ret = TAP_FAIL, fd = -1;
	char buf[4096];
	long n;

	SERVED_SETUP(FUSE_READDIR);
	E.srv->readdir_size = 1U << 30;
	fd = open(M("dir"), O_RDONLY | O_DIRECTORY);
	EXPECT(fd >= 0, "%s", strerror(errno));
	errno = 0;
	n = syscall(SYS_getdents64, fd, buf, sizeof(buf));
	EXPECT(n == -1 && errno == EIO, "getdents64: %ld (%s)", n, strerror(errno));
	EXPECT(E.srv->readdir >= 1);
	close(fd);
	E.srv->readdir_size = 0;
	fd = open(M("dir"), O_RDONLY | O_DIRECTORY);
	EXPECT(fd >= 0);
	n = syscall(SYS_getdents64, fd, buf, sizeof(buf));
	EXPECT(n > 0, "getdents64 with the args echoed: %ld (%s)", n, strerror(errno));
	ret = TAP_OK;
out:
	if (fd >= 0)
		close(fd);
	hf_teardown();
	return ret;
}

/* ACCESS: a prefilter removing MAY_EXEC from access(2)'s mask makes it EIO. */
static int t_access_mask_removal(void)
{
	int ret = TAP_FAIL;

	SETUP(HF_TMPFS, NULL);
	EXPECT(write_file(B("f"), "data\n", 5) == 0 && chmod(B("f"), 0644) == 0);
	EXPECT(hf_mount(false) == 0);
	EXPECT(FAILS(access(M("f"), X_OK), EACCES), "X_OK without the rewrite: %s", strerror(errno));
	EXPECT(set_cfg(FUSE_ACCESS, HF_ACCESS_DROP, 0, 0) == 0);
	map_put(E.skel->maps.setarg_ret, FUSE_ACCESS, SETARG_UNSET);
	errno = 0;
	EXPECT(FAILS(access(M("f"), X_OK), EIO), "X_OK with MAY_EXEC removed: %s",
	       errno ? strerror(errno) : "allowed");
	EXPECT(SETARG(FUSE_ACCESS) == 0, "set_arg on ACCESS's mask: %lld", SETARG(FUSE_ACCESS));
	ret = TAP_OK;
out:
	hf_teardown();
	return ret;
}

/*
 * Writable in args work: LSEEK's offset (1000 becomes 5) and FALLOCATE's
 * length (8192); an LSEEK out offset rewritten to -5000 is EIO, the
 * position unchanged.
 */
static int t_writable_args(void)
{
	int ret = TAP_FAIL, fd = -1;
	struct stat st;
	char c = 0;
	off_t o;

	SETUP(HF_TMPFS, NULL);
	EXPECT(write_file(B("f"), "0123456789", 10) == 0);
	EXPECT(hf_mount(false) == 0);
	EXPECT(set_cfg(FUSE_LSEEK, HF_LSEEK, 0, 0) == 0);
	EXPECT(set_cfg(FUSE_FALLOCATE, HF_FALLOC, 0, 0) == 0);
	map_put(E.skel->maps.setarg_ret, FUSE_LSEEK, SETARG_UNSET);
	fd = open(M("f"), O_RDWR);
	EXPECT(fd >= 0, "%s", strerror(errno));
	o = lseek(fd, 1000, SEEK_SET);
	EXPECT(o == 5, "lseek 1000 rewritten to 5: %lld (%s)", (long long)o, strerror(errno));
	EXPECT(SETARG(FUSE_LSEEK) == 0, "set_arg on LSEEK: %lld", SETARG(FUSE_LSEEK));
	EXPECT(read(fd, &c, 1) == 1 && c == '5', "read after the seek: '%c'", c);
	o = lseek(fd, 0, SEEK_CUR);
	EXPECT(o == 6, "position after the read: %lld (%s)", (long long)o, strerror(errno));
	errno = 0;
	o = lseek(fd, 2000, SEEK_SET);
	EXPECT(o == -1 && errno == EIO, "lseek whose out offset became -5000: %lld (%s)",
	       (long long)o, strerror(errno));
	/* the filter off, so that it rewrites nothing: the position is the file's own */
	EXPECT(set_cfg(FUSE_LSEEK, 0, 0, 0) == 0);
	errno = 0;
	o = lseek(fd, 0, SEEK_CUR);
	EXPECT(o == 6, "position after the failed lseek: %lld (%s)", (long long)o, strerror(errno));
	EXPECT(fallocate(fd, 0, 0, 4096) == 0, "fallocate: %s", strerror(errno));
	EXPECT(SETARG(FUSE_FALLOCATE) == 0, "set_arg on FALLOCATE: %lld", SETARG(FUSE_FALLOCATE));
	EXPECT(stat(B("f"), &st) == 0 && st.st_size == 8192, "size %lld after fallocate",
	       (long long)st.st_size);
	ret = TAP_OK;
out:
	if (fd >= 0)
		close(fd);
	hf_teardown();
	return ret;
}

/* --- every way to write runs the WRITE filter --------------------------------------- */

/* tmpfs backing, f = "0123456789" and src = "abcdefghij"; WRITE denied EROFS. */
static int deny_write_setup(void)
{
	int rc = hf_setup(HF_TMPFS, NULL);

	if (rc)
		return rc;
	if (write_file(B("f"), "0123456789", 10) || write_file(B("src"), "abcdefghij", 10))
		return -EIO;
	if (set_cfg(FUSE_WRITE, HF_PRE_RET, -EROFS, 0))
		return -EIO;
	map_put(E.skel->maps.note, NOTE_WRITE_OFF, -1);
	map_put(E.skel->maps.note, NOTE_WRITE_SIZE, -1);
	return hf_mount(false);
}

#define DENY_SETUP()                                                   \
	do {                                                           \
		int __e = deny_write_setup();                          \
		if (__e == -ENOENT)                                    \
			SKIP("no fuse-bpf filters");                   \
		EXPECT(__e == 0, "setting up: %s", strerror(-__e));    \
	} while (0)

/* splice from a pipe into a view file runs the WRITE filter (offset, size): EROFS. */
static int t_splice_write(void)
{
	int ret = TAP_FAIL, fd = -1, p[2] = { -1, -1 };
	loff_t off = 3;
	ssize_t n;

	DENY_SETUP();
	EXPECT(pipe(p) == 0 && write(p[1], "XYZ", 3) == 3);
	fd = open(M("f"), O_WRONLY);
	EXPECT(fd >= 0, "%s", strerror(errno));
	EXPECT(FAILS(write(fd, "XYZ", 3), EROFS), "write(2) is not denied: %s", strerror(errno));
	errno = 0;
	n = splice(p[0], NULL, fd, &off, 3, 0);
	EXPECT(n == -1 && errno == EROFS, "splice: %zd (%s)", n, strerror(errno));
	EXPECT(NOTE(NOTE_WRITE_OFF) == 3 && NOTE(NOTE_WRITE_SIZE) == 3,
	       "the WRITE filter saw offset %lld size %lld", NOTE(NOTE_WRITE_OFF),
	       NOTE(NOTE_WRITE_SIZE));
	EXPECT(!strcmp(content(B("f")), "0123456789"), "f: '%s'", content(B("f")));
	ret = TAP_OK;
out:
	if (fd >= 0)
		close(fd);
	if (p[0] >= 0) {
		close(p[0]);
		close(p[1]);
	}
	hf_teardown();
	return ret;
}

/* copy_file_range into a view file runs its WRITE prefilter (pos_out, len): EROFS. */
static int t_copy_file_range_write(void)
{
	int ret = TAP_FAIL, in = -1, out_fd = -1;
	loff_t off_in = 0, off_out = 2;
	ssize_t n;

	DENY_SETUP();
	in = open(M("src"), O_RDONLY);
	out_fd = open(M("f"), O_WRONLY);
	EXPECT(in >= 0 && out_fd >= 0, "%s", strerror(errno));
	errno = 0;
	n = copy_file_range(in, &off_in, out_fd, &off_out, 4, 0);
	EXPECT(n == -1 && errno == EROFS, "copy_file_range: %zd (%s)", n, strerror(errno));
	EXPECT(NOTE(NOTE_WRITE_OFF) == 2 && NOTE(NOTE_WRITE_SIZE) == 4,
	       "the WRITE filter saw offset %lld size %lld", NOTE(NOTE_WRITE_OFF),
	       NOTE(NOTE_WRITE_SIZE));
	EXPECT(!strcmp(content(B("f")), "0123456789"), "f: '%s'", content(B("f")));
	ret = TAP_OK;
out:
	if (in >= 0)
		close(in);
	if (out_fd >= 0)
		close(out_fd);
	hf_teardown();
	return ret;
}

/*
 * mmap(MAP_SHARED) of a file opened for writing runs the WRITE prefilter:
 * PROT_WRITE fails EROFS; PROT_READ maps, and mprotect(PROT_WRITE) fails EACCES.
 */
static int t_mmap_shared_write(void)
{
	int ret = TAP_FAIL, fd = -1;
	char *p = MAP_FAILED;

	DENY_SETUP();
	fd = open(M("f"), O_RDWR);
	EXPECT(fd >= 0, "%s", strerror(errno));
	errno = 0;
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p != MAP_FAILED) {
		memcpy(p, "MM", 2);
		msync(p, 4096, MS_SYNC);
		munmap(p, 4096);
		p = MAP_FAILED;
		EXPECT(0, "a writable shared mapping was made (backing now '%s')", content(B("f")));
	}
	EXPECT(errno == EROFS, "mmap PROT_WRITE: %s", strerror(errno));
	EXPECT(NOTE(NOTE_WRITE_OFF) == 0 && NOTE(NOTE_WRITE_SIZE) == 4096,
	       "the WRITE filter saw offset %lld size %lld", NOTE(NOTE_WRITE_OFF),
	       NOTE(NOTE_WRITE_SIZE));
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	EXPECT(p != MAP_FAILED, "mmap PROT_READ: %s", strerror(errno));
	EXPECT(!memcmp(p, "0123456789", 10));
	errno = 0;
	EXPECT(FAILS(mprotect(p, 4096, PROT_READ | PROT_WRITE), EACCES), "mprotect: %s",
	       errno ? strerror(errno) : "allowed");
	EXPECT(!strcmp(content(B("f")), "0123456789"), "f: '%s'", content(B("f")));
	ret = TAP_OK;
out:
	if (p != MAP_FAILED)
		munmap(p, 4096);
	if (fd >= 0)
		close(fd);
	hf_teardown();
	return ret;
}

/*
 * A GETATTR of a node without a filter fills the kstat from
 * vfs_getattr() on the backing path directly, the filtered path goes
 * through fuse_stat_to_attr() and fuse_attr_to_stat(). Both views of one
 * ext4 (the filter a count-only one: hfilter, nothing configured) must show
 * every statx field alike, for each request mask and sync flag: st_dev and
 * the mount id are each view's own; the rest (file type and mode with
 * setuid/sticky bits, nlink, uid/gid, rdev, size, blocks, blksize, the four
 * times, btime, attributes and their mask, result_mask) as the backing has
 * them, st_ino included (the first backing superblock keeps its numbers).
 */
static bool statx_same(const char *what, const struct statx *a, const struct statx *b, bool same_dev)
{
#define SX(f)                                                                                 \
	if (a->f != b->f) {                                                                   \
		printf("# %s: " #f " %llu != %llu\n", what, (unsigned long long)a->f,        \
		       (unsigned long long)b->f);                                             \
		ok = false;                                                                   \
	}
	bool ok = true;

	SX(stx_mask) SX(stx_blksize) SX(stx_attributes) SX(stx_nlink) SX(stx_uid) SX(stx_gid)
	SX(stx_mode) SX(stx_ino) SX(stx_size) SX(stx_blocks) SX(stx_attributes_mask)
	SX(stx_atime.tv_sec) SX(stx_atime.tv_nsec) SX(stx_btime.tv_sec) SX(stx_btime.tv_nsec)
	SX(stx_ctime.tv_sec) SX(stx_ctime.tv_nsec) SX(stx_mtime.tv_sec) SX(stx_mtime.tv_nsec)
	SX(stx_rdev_major) SX(stx_rdev_minor)
	if (same_dev) {
		SX(stx_dev_major) SX(stx_dev_minor)
	}
#undef SX
	return ok;
}

static int t_stat_unfiltered_fields(void)
{
	static const char *const names[] = { ".", "f", "suid", "hard", "d", "l", "chr", "fifo", "append" };
	static const struct {
		unsigned int mask, flags;
	} q[] = {
		{ STATX_BASIC_STATS | STATX_BTIME, 0 },
		{ STATX_ALL, AT_STATX_FORCE_SYNC },
		{ STATX_BTIME, AT_STATX_DONT_SYNC },
		{ 0, 0 },
		{ STATX_TYPE | STATX_MODE, AT_SYMLINK_NOFOLLOW },
	};
	char plain[128];
	int ret = TAP_FAIL, dirfd = -1, fd;
	bool plain_mounted = false, ok = true;
	long long runs;

	SETUP(HF_EXT4, NULL);
	EXPECT(run("cd %s && echo data > f && cp f suid && chmod 6755 suid && chown 1234:5678 suid && "
		   "truncate -s 1M hard && ln hard hard2 && mkdir -m 1777 d && ln -s f l && "
		   "mknod chr c 1 3 && mkfifo fifo && touch append && chattr +a append", E.back) == 0);
	EXPECT(hf_mount(false) == 0);
	snprintf(plain, sizeof(plain), "%s/plain", E.dir);
	OK(mkdir(plain, 0755));
	dirfd = open(E.root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	EXPECT(dirfd >= 0);
	{
		char opts[96];

		snprintf(opts, sizeof(opts), "root_dir=%d,allow_other,no_daemon", dirfd);
		fd = tfuse_mount(plain, opts);
		EXPECT(fd >= 0, "mounting the view without a filter: %s", strerror(-fd));
		close(fd);
		plain_mounted = true;
	}
	runs = PRE_RUNS(FUSE_GETATTR);
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		for (size_t j = 0; j < ARRAY_SIZE(q); j++) {
			struct statx sb, sf, su;
			char what[96];
			int flags = q[j].flags | (strcmp(names[i], ".") ? AT_SYMLINK_NOFOLLOW : 0);

			snprintf(what, sizeof(what), "%s, mask %#x, flags %#x", names[i], q[j].mask,
				 q[j].flags);
			EXPECT(!statx(AT_FDCWD, B(names[i]), flags, q[j].mask, &sb), "%s: backing: %s", what,
			       strerror(errno));
			EXPECT(!statx(AT_FDCWD, M(names[i]), flags, q[j].mask, &sf), "%s: filtered: %s", what,
			       strerror(errno));
			EXPECT(!statx(AT_FDCWD, at(plain, names[i]), flags, q[j].mask, &su),
			       "%s: unfiltered: %s", what, strerror(errno));
			/* the view's root is not a mount root of the backing: the attribute differs */
			if (!strcmp(names[i], ".")) {
				sb.stx_attributes &= ~STATX_ATTR_MOUNT_ROOT;
				sf.stx_attributes &= ~STATX_ATTR_MOUNT_ROOT;
				su.stx_attributes &= ~STATX_ATTR_MOUNT_ROOT;
			}
			ok &= statx_same(what, &sf, &su, false);
			ok &= statx_same(what, &sb, &su, false);
			EXPECT(su.stx_mnt_id != sf.stx_mnt_id && su.stx_dev_minor != sb.stx_dev_minor,
			       "%s: st_dev or the mount id not the view's", what);
		}
	}
	EXPECT(PRE_RUNS(FUSE_GETATTR) > runs, "the filtered view ran no GETATTR prefilter");
	EXPECT(ok, "the views differ (above)");
	ret = TAP_OK;
out:
	if (plain_mounted)
		umount2(plain, MNT_DETACH);
	if (dirfd >= 0)
		close(dirfd);
	run("chattr -a %s/append 2>/dev/null", E.back);
	hf_teardown();
	return ret;
}

/* --- the cases ------------------------------------------------------------ */

CASE(lseek_whence_rewrite)

static const struct tap_case cases[] = {
	{ "lseek_whence_rewrite", c_lseek_whence_rewrite },
	{ "rw_postfilter_sync", t_rw_post_sync },
	{ "rw_postfilter_libaio", t_rw_post_libaio },
	{ "rw_postfilter_io_uring", t_rw_post_io_uring },
	{ "ret_values_getattr", t_ret_values },
	{ "ret_eiocbqueued_read", t_ret_eiocbqueued_read },
	{ "open_postfilter_no_leak", t_open_post_no_leak },
	{ "setarg_readonly_in_args", t_setarg_readonly },
	{ "srv_prefilter_mknod_mode", t_srv_mknod_mode },
	{ "srv_prefilter_rename2_flags", t_srv_rename2_flags },
	{ "srv_prefilter_readdir_size", t_srv_readdir_size },
	{ "access_mask_removal_eio", t_access_mask_removal },
	{ "writable_args_lseek_fallocate", t_writable_args },
	{ "splice_write_filtered", t_splice_write },
	{ "copy_file_range_write_filtered", t_copy_file_range_write },
	{ "mmap_shared_write_filtered", t_mmap_shared_write },
	{ "stat_unfiltered_fields", t_stat_unfiltered_fields },
	{ "exec_open_flags_say_exec", t_exec_open_flags },
};

TAP_MAIN("verdicts", cases)
