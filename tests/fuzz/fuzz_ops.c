// SPDX-License-Identifier: GPL-2.0
/*
 * The workers of make fuzz: random system calls on random paths of the
 * epoch's mounts (and now and then of the backing file systems under
 * them), on a few open files each. Every call is recorded in the worker's
 * ring before it is made, its result after. Results are not checked: the
 * kernel's log and the leak checks are the oracle.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libaio.h>
#include <liburing.h>
#include <linux/falloc.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "fuzz.h"

#define FZ_SLOTS 6
#define FZ_IOBUF (256 * 1024)

#ifndef FS_IOC_GETFLAGS
#define FS_IOC_GETFLAGS _IOR('f', 1, long)
#endif

struct wk {
	struct fz_epoch *e;
	struct fz_rng r;
	struct fz_ring *ring;
	int fd[FZ_SLOTS];
	struct io_uring uring;
	bool uring_ok;
	io_context_t aio;
	bool aio_ok;
	char *buf;		/* FZ_IOBUF, page aligned (O_DIRECT) */
};

static sigjmp_buf fz_jb;
static volatile sig_atomic_t fz_in_mmap;

/* SIGALRM ends a call that sleeps interruptibly (a FIFO's open, a FUSE request: INTERRUPT) */
static void fz_alarm(int sig)
{
	(void)sig;
}

static void fz_fault(int sig)
{
	if (fz_in_mmap)
		siglongjmp(fz_jb, sig);
	signal(sig, SIG_DFL);
	raise(sig);
}

const char *fz_path(struct fz_epoch *e, struct fz_rng *r, char *buf, size_t cap)
{
	static const char *const names[] = { FZ_NAMES };
	uint32_t depth = fz_below(r, 10);
	size_t n;

	if (e->nmounts && fz_chance(r, 88))
		n = snprintf(buf, cap, "%s", e->m[fz_below(r, e->nmounts)].path);
	else
		n = snprintf(buf, cap, "%s", fz_chance(r, 50) ? e->ext4 : e->tmpfs);
	depth = depth < 1 ? 0 : depth < 6 ? 1 : depth < 9 ? 2 : 3;
	for (uint32_t i = 0; i < depth && n < cap; i++)
		n += snprintf(buf + n, cap - n, "/%s", FZ_PICK(r, names));
	return buf;
}

static const char *wk_path(struct wk *w)
{
	static char bufs[2][256];
	static int next;

	return fz_path(w->e, &w->r, bufs[next++ & 1], sizeof(bufs[0]));
}

static int wk_fd(struct wk *w)
{
	int fd = w->fd[fz_below(&w->r, FZ_SLOTS)];

	return fd >= 0 || fz_chance(&w->r, 80) ? fd : 9999;
}

static off_t wk_off(struct wk *w)
{
	static const off_t odd[] = { 0, 1, 4095, 4096, 4097, 65536, 1 << 20, 0x7ffffffffffff000LL,
				     0x7fffffffffffffffLL, -1, 1LL << 40 };

	return fz_chance(&w->r, 80) ? (off_t)fz_below(&w->r, 3 * 65536) : FZ_PICK(&w->r, odd);
}

static size_t wk_len(struct wk *w)
{
	static const size_t odd[] = { 0, 1, 4096, 65536, FZ_IOBUF };

	return fz_chance(&w->r, 70) ? fz_below(&w->r, 16384) : FZ_PICK(&w->r, odd);
}

#define REC(w, ...) fz_log((w)->ring, __VA_ARGS__)

/* --- files ------------------------------------------------------------------------ */

static long op_open(struct wk *w)
{
	static const int extra[] = { O_CREAT, O_EXCL, O_TRUNC, O_APPEND, O_DIRECT, O_NOFOLLOW,
				     O_DIRECTORY, O_PATH, O_NONBLOCK, O_SYNC, O_NOATIME, O_CLOEXEC };
	static const int acc[] = { O_RDONLY, O_WRONLY, O_RDWR, O_RDWR };
	int flags = FZ_PICK(&w->r, acc), slot = fz_below(&w->r, FZ_SLOTS);
	mode_t mode = fz_below(&w->r, 01000);
	const char *p = wk_path(w);
	long fd;

	for (int i = fz_below(&w->r, 4); i > 0; i--)
		flags |= FZ_PICK(&w->r, extra);
	if (fz_chance(&w->r, 30))
		flags |= O_CREAT;
	if (fz_chance(&w->r, 3))
		flags = O_TMPFILE | O_RDWR;
	REC(w, "open %s flags 0%o mode 0%o slot %d", p, flags, mode, slot);
	fd = open(p, flags, mode);
	if (fd >= 0) {
		if (w->fd[slot] >= 0)
			close(w->fd[slot]);
		w->fd[slot] = fd;
	}
	return fd;
}

static long op_close(struct wk *w)
{
	int slot = fz_below(&w->r, FZ_SLOTS);
	long rc;

	REC(w, "close slot %d fd %d", slot, w->fd[slot]);
	if (w->fd[slot] < 0)
		return 0;
	rc = close(w->fd[slot]);
	w->fd[slot] = -1;
	return rc;
}

static long op_rw(struct wk *w)
{
	int fd = wk_fd(w), how = fz_below(&w->r, 4);
	size_t len = wk_len(w);
	off_t off = wk_off(w);

	REC(w, "%s fd %d len %zu off %lld", (const char *[]){ "read", "write", "pread", "pwrite" }[how],
	    fd, len, (long long)off);
	switch (how) {
	case 0:
		return read(fd, w->buf, len);
	case 1:
		return write(fd, w->buf, len);
	case 2:
		return pread(fd, w->buf, len, off);
	default:
		return pwrite(fd, w->buf, len, off);
	}
}

static long op_mmap(struct wk *w)
{
	int fd = wk_fd(w), prot = fz_chance(&w->r, 50) ? PROT_READ : PROT_READ | PROT_WRITE;
	int flags = fz_chance(&w->r, 70) ? MAP_SHARED : MAP_PRIVATE;
	size_t len = 4096 * (1 + fz_below(&w->r, 8));
	off_t off = 4096 * (off_t)fz_below(&w->r, 8);
	volatile char *p;
	long sum = 0;

	REC(w, "mmap fd %d len %zu off %lld prot %d %s", fd, len, (long long)off, prot,
	    flags == MAP_SHARED ? "shared" : "private");
	p = mmap(NULL, len, prot, flags, fd, off);
	if (p == MAP_FAILED)
		return -1;
	fz_in_mmap = 1;
	if (!sigsetjmp(fz_jb, 1)) {
		for (size_t i = 0; i < len; i += 4096) {
			sum += p[i];
			if (prot & PROT_WRITE)
				p[i] = (char)i;
		}
		if (fz_chance(&w->r, 30))
			msync((void *)p, len, MS_SYNC);
		if (fz_chance(&w->r, 20))
			mprotect((void *)p, len, PROT_READ | PROT_WRITE);
	} else {
		sum = -2;	/* SIGBUS/SIGSEGV: past the end, or refused */
	}
	fz_in_mmap = 0;
	munmap((void *)p, len);
	return sum < 0 ? sum : 0;
}

static long op_truncate(struct wk *w)
{
	off_t len = fz_chance(&w->r, 80) ? (off_t)fz_below(&w->r, 200000) : wk_off(w);

	if (fz_chance(&w->r, 50)) {
		const char *p = wk_path(w);

		REC(w, "truncate %s %lld", p, (long long)len);
		return truncate(p, len);
	}
	int fd = wk_fd(w);

	REC(w, "ftruncate fd %d %lld", fd, (long long)len);
	return ftruncate(fd, len);
}

static long op_fallocate(struct wk *w)
{
	static const int modes[] = { 0, FALLOC_FL_KEEP_SIZE, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				     FALLOC_FL_ZERO_RANGE, FALLOC_FL_COLLAPSE_RANGE,
				     FALLOC_FL_INSERT_RANGE, FALLOC_FL_UNSHARE_RANGE, 0x7f, -1 };
	int fd = wk_fd(w), mode = FZ_PICK(&w->r, modes);
	off_t off = fz_chance(&w->r, 70) ? 4096 * (off_t)fz_below(&w->r, 16) : wk_off(w);
	off_t len = fz_chance(&w->r, 70) ? 4096 * (off_t)(1 + fz_below(&w->r, 16)) : wk_off(w);

	REC(w, "fallocate fd %d mode 0x%x off %lld len %lld", fd, mode, (long long)off, (long long)len);
	return fallocate(fd, mode, off, len);
}

static long op_copy(struct wk *w)
{
	int in = wk_fd(w), out = wk_fd(w);
	loff_t oi = wk_off(w), oo = wk_off(w);
	size_t len = wk_len(w);

	if (fz_chance(&w->r, 30)) {
		REC(w, "sendfile %d -> %d len %zu", in, out, len);
		return sendfile(out, in, NULL, len);
	}
	REC(w, "copy_file_range %d@%lld -> %d@%lld len %zu", in, (long long)oi, out, (long long)oo, len);
	return copy_file_range(in, fz_chance(&w->r, 50) ? &oi : NULL, out,
			       fz_chance(&w->r, 50) ? &oo : NULL, len, 0);
}

/*
 * Splicing into files, on unless FUZZ_SPLICE_WRITE=0 (it was off while fuzz
 * bug 2 was open: docs/testing.md).
 */
static bool fz_splice_write(void)
{
	const char *v = getenv("FUZZ_SPLICE_WRITE");

	return !v || !*v || strcmp(v, "0");
}

static long op_splice(struct wk *w)
{
	int in = wk_fd(w), out = wk_fd(w), p[2];
	size_t len = 1 + fz_below(&w->r, 65536);
	long rc;

	REC(w, "splice %d -> pipe -> %d len %zu", in, out, len);
	if (pipe2(p, O_NONBLOCK))
		return -1;
	rc = splice(in, NULL, p[1], NULL, len, SPLICE_F_NONBLOCK);
	if (fz_splice_write() && (rc > 0 || fz_chance(&w->r, 50))) {
		if (rc <= 0 && write(p[1], "spliced!", 8) < 0)
			rc = -1;
		rc = splice(p[0], NULL, out, NULL, rc > 0 ? rc : 8, 0);
	}
	close(p[0]);
	close(p[1]);
	return rc;
}

static long op_aio(struct wk *w)
{
	struct timespec ts = { .tv_sec = 1 };
	struct iocb cb, *cbs[1] = { &cb };
	struct io_event ev;
	int fd = wk_fd(w);
	size_t len = 512 * (1 + fz_below(&w->r, 64));
	long long off = 512 * (long long)fz_below(&w->r, 256);
	bool wr = fz_chance(&w->r, 50);
	long rc;

	REC(w, "aio %s fd %d len %zu off %lld", wr ? "pwrite" : "pread", fd, len, off);
	if (!w->aio_ok)
		return -1;
	if (wr)
		io_prep_pwrite(&cb, fd, w->buf, len, off);
	else
		io_prep_pread(&cb, fd, w->buf, len, off);
	rc = io_submit(w->aio, 1, cbs);
	if (rc != 1)
		return errno = -rc, -1;
	rc = io_getevents(w->aio, 1, 1, &ev, &ts);
	return rc == 1 ? (long)ev.res : rc;
}

static long op_uring(struct wk *w)
{
	struct __kernel_timespec ts = { .tv_sec = 1 };
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	int fd = wk_fd(w), rc;
	unsigned int len = 1 + fz_below(&w->r, 65536);
	unsigned long long off = fz_below(&w->r, 200000);
	bool wr = fz_chance(&w->r, 50);

	REC(w, "io_uring %s fd %d len %u off %llu", wr ? "write" : "read", fd, len, off);
	if (!w->uring_ok)
		return -1;
	sqe = io_uring_get_sqe(&w->uring);
	if (!sqe)
		return -1;
	if (wr)
		io_uring_prep_write(sqe, fd, w->buf, len, off);
	else
		io_uring_prep_read(sqe, fd, w->buf, len, off);
	io_uring_submit(&w->uring);
	rc = io_uring_wait_cqe_timeout(&w->uring, &cqe, &ts);
	if (rc)
		return errno = -rc, -1;
	rc = cqe->res;
	io_uring_cqe_seen(&w->uring, cqe);
	return rc;
}

static long op_sync(struct wk *w)
{
	int fd = wk_fd(w), how = fz_below(&w->r, 4);

	REC(w, "%s fd %d", (const char *[]){ "fsync", "fdatasync", "syncfs", "sync_file_range" }[how], fd);
	switch (how) {
	case 0:
		return fsync(fd);
	case 1:
		return fdatasync(fd);
	case 2:
		return syncfs(fd);
	default:
		return sync_file_range(fd, wk_off(w), wk_len(w), SYNC_FILE_RANGE_WRITE);
	}
}

static long op_lseek(struct wk *w)
{
	static const int whence[] = { SEEK_SET, SEEK_CUR, SEEK_END, SEEK_DATA, SEEK_HOLE, 5, -1 };
	int fd = wk_fd(w), wh = FZ_PICK(&w->r, whence);
	off_t off = wk_off(w);

	REC(w, "lseek fd %d %lld whence %d", fd, (long long)off, wh);
	return lseek(fd, off, wh);
}

static long op_lock(struct wk *w)
{
	struct flock fl = { .l_type = fz_chance(&w->r, 50) ? F_RDLCK : F_WRLCK, .l_whence = SEEK_SET,
			    .l_start = fz_below(&w->r, 4096), .l_len = fz_below(&w->r, 4096) };
	int fd = wk_fd(w), how = fz_below(&w->r, 4);

	REC(w, "lock fd %d how %d", fd, how);
	switch (how) {
	case 0:
		return flock(fd, (fz_chance(&w->r, 50) ? LOCK_SH : LOCK_EX) | LOCK_NB);
	case 1:
		return flock(fd, LOCK_UN);
	case 2:
		return fcntl(fd, F_SETLK, &fl);
	default:
		return fcntl(fd, F_OFD_GETLK, &fl);
	}
}

static long op_ioctl(struct wk *w)
{
	int fd = wk_fd(w), v = 0;
	long flags = 0;

	if (fz_chance(&w->r, 50)) {
		REC(w, "ioctl FS_IOC_GETFLAGS fd %d", fd);
		return ioctl(fd, FS_IOC_GETFLAGS, &flags);
	}
	REC(w, "ioctl FIONREAD fd %d", fd);
	return ioctl(fd, FIONREAD, &v);
}

/* --- names ------------------------------------------------------------------------ */

static long op_rename(struct wk *w)
{
	static const unsigned int flags[] = { 0, 0, RENAME_NOREPLACE, RENAME_EXCHANGE, RENAME_WHITEOUT,
					      RENAME_NOREPLACE | RENAME_EXCHANGE, 0x80 };
	const char *a = wk_path(w), *b = wk_path(w);
	unsigned int f = FZ_PICK(&w->r, flags);

	REC(w, "renameat2 %s %s 0x%x", a, b, f);
	return syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, f);
}

static long op_name(struct wk *w)
{
	const char *a = wk_path(w), *b;
	int how = fz_below(&w->r, 8);

	switch (how) {
	case 0:
		b = wk_path(w);
		REC(w, "link %s %s", a, b);
		return link(a, b);
	case 1:
		b = fz_chance(&w->r, 50) ? "a" : wk_path(w);
		REC(w, "symlink %s -> %s", a, b);
		return symlink(b, a);
	case 2:
		REC(w, "unlink %s", a);
		return unlink(a);
	case 3:
		REC(w, "mkdir %s", a);
		return mkdir(a, fz_below(&w->r, 01000));
	case 4:
		REC(w, "rmdir %s", a);
		return rmdir(a);
	case 5:
		REC(w, "mkfifo %s", a);
		return mknod(a, S_IFIFO | 0666, 0);
	case 6:
		REC(w, "mknod chr %s", a);
		return mknod(a, S_IFCHR | 0666, makedev(1, 3));
	default: {
		int fd = wk_fd(w);

		b = wk_path(w);
		REC(w, "linkat fd %d -> %s (AT_EMPTY_PATH)", fd, b);
		return linkat(fd, "", AT_FDCWD, b, AT_EMPTY_PATH);
	}
	}
}

static long op_readdir(struct wk *w)
{
	static const size_t sizes[] = { 1, 24, 32, 64, 100, 280, 1024, 4096, 32768 };
	const char *p = wk_path(w);
	size_t size = FZ_PICK(&w->r, sizes);
	long off[4] = { 0 }, rc = 0;
	int fd, n = 0;

	REC(w, "getdents %s buf %zu", p, size);
	fd = open(p, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return fd;
	for (int i = 0; i < 8; i++) {
		rc = syscall(SYS_getdents64, fd, w->buf, size);
		if (rc <= 0)
			break;
		off[n++ & 3] = lseek(fd, 0, SEEK_CUR);
		if (fz_chance(&w->r, 25))
			lseek(fd, fz_chance(&w->r, 70) ? off[fz_below(&w->r, 4)] : (long)fz_next(&w->r),
			      SEEK_SET);
	}
	close(fd);
	return rc;
}

static long op_xattr(struct wk *w)
{
	static const char *const names[] = { "user.fz", "user.b", "trusted.fz", "security.fz",
					     "system.posix_acl_access", "bogus.fz", "user." };
	const char *p = wk_path(w), *name = FZ_PICK(&w->r, names);
	size_t len = fz_chance(&w->r, 80) ? fz_below(&w->r, 64) : wk_len(w);
	int how = fz_below(&w->r, 5);

	if (len > FZ_IOBUF)
		len = FZ_IOBUF;
	REC(w, "xattr %d %s %s len %zu", how, p, name, len);
	switch (how) {
	case 0:
		return setxattr(p, name, w->buf, len, fz_below(&w->r, 3));
	case 1:
		return getxattr(p, name, w->buf, len);
	case 2:
		return listxattr(p, w->buf, len);
	case 3:
		return removexattr(p, name);
	default:
		return lgetxattr(p, name, w->buf, len);
	}
}

static long op_attr(struct wk *w)
{
	const char *p = wk_path(w);
	struct timespec ts[2] = { { .tv_sec = fz_below(&w->r, 2000000000) },
				  { .tv_nsec = fz_chance(&w->r, 50) ? UTIME_NOW : UTIME_OMIT } };
	int how = fz_below(&w->r, 6), fd;

	switch (how) {
	case 0:
		REC(w, "chmod %s", p);
		return chmod(p, fz_below(&w->r, 010000));
	case 1:
		REC(w, "lchown %s", p);
		return lchown(p, fz_chance(&w->r, 50) ? 65534 : 0, fz_chance(&w->r, 50) ? 65534 : -1);
	case 2:
		REC(w, "utimensat %s", p);
		return utimensat(AT_FDCWD, p, fz_chance(&w->r, 20) ? NULL : ts, fz_below(&w->r, 2) * AT_SYMLINK_NOFOLLOW);
	case 3:
		fd = wk_fd(w);
		REC(w, "fchmod fd %d", fd);
		return fchmod(fd, fz_below(&w->r, 010000));
	case 4:
		fd = wk_fd(w);
		REC(w, "fchown fd %d", fd);
		return fchown(fd, 65534, 65534);
	default:
		fd = wk_fd(w);
		REC(w, "futimens fd %d", fd);
		return futimens(fd, ts);
	}
}

static long op_stat(struct wk *w)
{
	const char *p = wk_path(w);
	struct statx stx;
	struct statfs sfs;
	struct stat st;
	int how = fz_below(&w->r, 6);

	switch (how) {
	case 0:
		REC(w, "stat %s", p);
		return stat(p, &st);
	case 1:
		REC(w, "lstat %s", p);
		return lstat(p, &st);
	case 2:
		REC(w, "statx %s", p);
		return statx(AT_FDCWD, p, AT_SYMLINK_NOFOLLOW, STATX_ALL, &stx);
	case 3:
		REC(w, "access %s", p);
		return access(p, fz_below(&w->r, 8));
	case 4:
		REC(w, "readlink %s", p);
		return readlink(p, w->buf, 1 + fz_below(&w->r, 300));
	default:
		REC(w, "statfs %s", p);
		return statfs(p, &sfs);
	}
}

/* --- the loop ---------------------------------------------------------------------- */

struct wk_op {
	long (*fn)(struct wk *w);
	int weight;
};

static const struct wk_op wk_ops[] = {
	{ op_open, 14 }, { op_close, 5 }, { op_rw, 14 }, { op_mmap, 4 }, { op_truncate, 3 },
	{ op_fallocate, 3 }, { op_copy, 3 }, { op_splice, 3 }, { op_aio, 2 }, { op_uring, 2 },
	{ op_sync, 3 }, { op_lseek, 3 }, { op_lock, 2 }, { op_ioctl, 1 }, { op_rename, 5 },
	{ op_name, 10 }, { op_readdir, 6 }, { op_xattr, 5 }, { op_attr, 5 }, { op_stat, 10 },
};

static const struct wk_op *wk_pick(struct wk *w)
{
	static int total;
	int n;

	if (!total)
		for (size_t i = 0; i < ARRAY_SIZE(wk_ops); i++)
			total += wk_ops[i].weight;
	n = fz_below(&w->r, total);
	for (size_t i = 0; i < ARRAY_SIZE(wk_ops); i++) {
		n -= wk_ops[i].weight;
		if (n < 0)
			return &wk_ops[i];
	}
	return &wk_ops[0];
}

void fz_worker(struct fz_epoch *e, uint32_t idx, uid_t uid, struct fz_ring *ring)
{
	struct wk w = { .e = e, .ring = ring };
	struct sigaction sa = { .sa_handler = fz_fault };
	struct sigaction alarm_sa = { .sa_handler = fz_alarm };	/* no SA_RESTART */
	struct itimerval op_timer = { .it_value = { .tv_usec = 700000 } }, off = { 0 };

	fz_seed(&w.r, e->seed, e->epoch, FZ_ROLE_WORKER, idx);
	for (int i = 0; i < FZ_SLOTS; i++)
		w.fd[i] = -1;
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGALRM, &alarm_sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);
	if (posix_memalign((void **)&w.buf, 4096, FZ_IOBUF))
		_exit(1);
	for (size_t i = 0; i < FZ_IOBUF; i++)
		w.buf[i] = (char)(i * 7 + idx);
	w.uring_ok = !io_uring_queue_init(4, &w.uring, 0);
	w.aio_ok = !io_setup(4, &w.aio);
	snprintf(ring->who, sizeof(ring->who), "worker %u uid %u", idx, (unsigned int)uid);
	ring->pid = getpid();
	chdir(e->dir);
	while (!*e->stop) {
		const struct wk_op *op = wk_pick(&w);
		long rc;

		setitimer(ITIMER_REAL, &op_timer, NULL);
		errno = 0;
		rc = op->fn(&w);
		setitimer(ITIMER_REAL, &off, NULL);
		fz_done(ring, rc, errno);
	}
	_exit(0);
}
