// SPDX-License-Identifier: GPL-2.0
/*
 * The workers of make fuzz: random system calls on random paths of the
 * epoch's mounts (and now and then of the backing file systems under
 * them), on a few open files each. Every call is recorded in the worker's
 * ring before it is made, its result after. Results are not checked: the
 * kernel's log and the leak checks are the oracle; but for op_setid, whose
 * execs through views must get the euid and egid the backing file gives.
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
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <grp.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "fuzz.h"
#include "tap.h"

#define FZ_SLOTS 6
#define FZ_IOBUF (256 * 1024)

#ifndef FS_IOC_GETFLAGS
#define FS_IOC_GETFLAGS _IOR('f', 1, long)
#endif

struct wk {
	struct fz_epoch *e;
	uint32_t idx;
	uid_t uid;
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

/* --- mappings: grown, reprotected, remapped, advised ------------------------------------ */

#ifndef MADV_COLD
#define MADV_COLD 20
#endif
#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

/*
 * A mapping of an open file (a view's, mostly), shared or private, read-only
 * or writable, then one of: grown with mremap(MREMAP_MAYMOVE) (past the end
 * of the file too), made writable with mprotect() (a read-only shared
 * mapping of a file open read-only or for writing), remap_file_pages() on a
 * shared one, madvise(); then read and written through, a fault (SIGBUS
 * past the end, SIGSEGV where not writable) ending the op.
 */
static long op_mmap_more(struct wk *w)
{
	static const int advice[] = { MADV_DONTNEED, MADV_WILLNEED, MADV_REMOVE, MADV_PAGEOUT,
				      MADV_COLD, MADV_POPULATE_READ, MADV_POPULATE_WRITE, MADV_FREE,
				      MADV_SEQUENTIAL, MADV_RANDOM, MADV_DONTFORK, MADV_HUGEPAGE,
				      MADV_COLLAPSE, MADV_NORMAL };
	static const char *const hows[] = { "mremap grow", "mprotect rw", "remap_file_pages",
					    "madvise", "mremap shrink+grow" };
	int fd = wk_fd(w), how = fz_below(&w->r, 5);
	bool shared = fz_chance(&w->r, 70), wr = fz_chance(&w->r, 40);
	int prot = wr ? PROT_READ | PROT_WRITE : PROT_READ;
	size_t len = 4096 * (1 + fz_below(&w->r, 6)), nlen = len + 4096 * (1 + fz_below(&w->r, 24));
	off_t off = 4096 * (off_t)fz_below(&w->r, 8);
	char *volatile cur;
	volatile size_t curlen;
	volatile bool writable = wr;
	volatile long rc = 0;
	char *p, *q;

	REC(w, "mmap fd %d len %zu off %lld %s %s, then %s", fd, len, (long long)off,
	    wr ? "rw" : "ro", shared ? "shared" : "private", hows[how]);
	p = mmap(NULL, len, prot, shared ? MAP_SHARED : MAP_PRIVATE, fd, off);
	if (p == MAP_FAILED)
		return -1;
	fz_done(w->ring, 0, 0);
	cur = p;
	curlen = len;
	fz_in_mmap = 1;
	if (!sigsetjmp(fz_jb, 1)) {
		switch (how) {
		case 0:
			REC(w, "mremap %p %zu -> %zu MAYMOVE", (void *)cur, (size_t)curlen, nlen);
			q = mremap(cur, curlen, nlen, MREMAP_MAYMOVE);
			rc = q == MAP_FAILED ? -1 : 0;
			if (q != MAP_FAILED) {
				cur = q;
				curlen = nlen;
			}
			break;
		case 1: {
			int np = PROT_READ | PROT_WRITE | (fz_chance(&w->r, 10) ? PROT_EXEC : 0);

			REC(w, "mprotect %zu prot %d", (size_t)curlen, np);
			rc = mprotect(cur, curlen, np);
			writable = writable || !rc;
			break;
		}
		case 2: {
			size_t pages = curlen / 4096, start = fz_below(&w->r, pages);
			size_t n = 1 + fz_below(&w->r, pages - start);
			unsigned long pgoff = fz_below(&w->r, 16);

			REC(w, "remap_file_pages +%zu pages %zu pgoff %lu", start, n, pgoff);
			rc = syscall(SYS_remap_file_pages, cur + 4096 * start, 4096 * n, 0, pgoff, 0);
			break;
		}
		case 3: {
			int adv = FZ_PICK(&w->r, advice);

			REC(w, "madvise %zu advice %d", (size_t)curlen, adv);
			rc = madvise(cur, curlen, adv);
			break;
		}
		default:
			REC(w, "mremap %zu -> 4096 -> %zu MAYMOVE", (size_t)curlen, nlen);
			q = mremap(cur, curlen, 4096, 0);
			if (q != MAP_FAILED) {
				curlen = 4096;
				q = mremap(cur, 4096, nlen, MREMAP_MAYMOVE);
				if (q != MAP_FAILED) {
					cur = q;
					curlen = nlen;
				}
			}
			rc = q == MAP_FAILED ? -1 : 0;
			break;
		}
		fz_done(w->ring, rc, errno);
		REC(w, "touch %zu bytes at %p%s", (size_t)curlen, (void *)cur, writable ? ", writing" : "");
		for (size_t i = 0; i < curlen; i += 4096) {
			rc += cur[i] & 1;
			if (writable)
				cur[i] = (char)(i >> 12);
		}
		if (writable && shared && fz_chance(&w->r, 30))
			msync(cur, curlen, fz_chance(&w->r, 50) ? MS_SYNC : MS_ASYNC);
		rc = 0;
	} else {
		rc = -2;	/* SIGBUS/SIGSEGV: past the end, or refused */
	}
	fz_in_mmap = 0;
	munmap(cur, curlen);
	return rc;
}

/* --- backing umounts under watches -------------------------------------------------------- */

/* A served mount (its server names the spare), or NULL */
static const struct fz_mount *wk_served(struct wk *w)
{
	const struct fz_epoch *e = w->e;
	int n = 0, k;

	for (int i = 0; i < e->nmounts; i++)
		n += e->m[i].server > 0;
	if (!n)
		return NULL;
	k = fz_below(&w->r, n);
	for (int i = 0; i < e->nmounts; i++)
		if (e->m[i].server > 0 && !k--)
			return &e->m[i];
	return NULL;
}

/* A path in a mount (not a backing), at depth 1 or 2; in a served one if served */
static const char *wk_view_path(struct wk *w, char *buf, size_t cap, const struct fz_mount *served)
{
	static const char *const names[] = { FZ_NAMES };
	struct fz_epoch *e = w->e;
	const struct fz_mount *m;
	size_t n;

	if (!e->nmounts)
		return fz_path(e, &w->r, buf, cap);
	if (served && fz_chance(&w->r, 60)) {
		/* worker 0's own names, which the server backs by the spare (and nothing else holds) */
		static const char *const own[] = { "w0", "wd", "wd/f", "wd/f" };

		snprintf(buf, cap, "%s/%s", served->path, FZ_PICK(&w->r, own));
		return buf;
	}
	m = served && fz_chance(&w->r, 60) ? served : &e->m[fz_below(&w->r, e->nmounts)];
	n = snprintf(buf, cap, "%s/%s", m->path, FZ_PICK(&w->r, names));
	if (fz_chance(&w->r, 40))
		snprintf(buf + n, cap - n, "/%s", FZ_PICK(&w->r, names));
	return buf;
}

/*
 * Inotify watches, O_PATH fds, open files and a mapping on files of the
 * views; the dentries dropped (echo 2 > drop_caches, root); then a backing
 * file system unmounted under them. Worker 0 unmounts the spare, which only
 * servers name (LOOKUP replies backed by it): the view's inodes of it must
 * keep it busy (EBUSY), or the umount must leave nothing behind ("VFS: Busy
 * inodes after unmount" is a kernel report, and the watches' close after it
 * would be an iput() on a dead super block). Worker 0 does so in an epoch
 * with a server, watching mostly files of a served mount, and mounts the
 * spare again after a umount that went through. Other workers try ext4 or
 * tmpfs, which the epoch's pool and the views' roots hold: EBUSY.
 */
static long op_umount(struct wk *w)
{
	struct fz_epoch *e = w->e;
	/* the spare is worker 0's, and only servers name it */
	const struct fz_mount *served = w->idx == 0 ? wk_served(w) : NULL;
	int in, fds[4], nfd = 0, flags = 0;
	char path[256];
	const char *target;
	void *map = MAP_FAILED;
	long rc;

	REC(w, "inotify_init1");
	in = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	fz_done(w->ring, in, errno);
	for (int i = 1 + fz_below(&w->r, 4); i > 0 && in >= 0; i--) {
		uint32_t mask = fz_chance(&w->r, 50) ? IN_ALL_EVENTS : IN_ATTRIB | IN_DELETE_SELF | IN_OPEN;

		wk_view_path(w, path, sizeof(path), served);
		REC(w, "inotify_add_watch %s 0x%x", path, mask);
		rc = inotify_add_watch(in, path, mask);
		fz_done(w->ring, rc, errno);
	}
	/*
	 * Half of worker 0's: watches alone, which hold inodes and no dentry or
	 * mount once the caches are dropped (open files and O_PATH fds hold the
	 * backing's mount through their path: EBUSY, rightly)
	 */
	for (int i = served && fz_chance(&w->r, 50) ? 0 : fz_below(&w->r, 4); i > 0; i--) {
		int of = FZ_PICK(&w->r, ((const int[]){ O_PATH, O_PATH | O_NOFOLLOW, O_RDONLY, O_RDONLY }));

		wk_view_path(w, path, sizeof(path), served);
		REC(w, "open %s flags 0%o (held over the umount)", path, of);
		fds[nfd] = open(path, of | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
		fz_done(w->ring, fds[nfd], errno);
		if (fds[nfd] >= 0)
			nfd++;
	}
	if (nfd && fz_chance(&w->r, 50)) {
		int fd = fds[fz_below(&w->r, nfd)];

		REC(w, "mmap fd %d 4096 shared ro (held over the umount)", fd);
		map = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
		fz_done(w->ring, map == MAP_FAILED ? -1 : 0, errno);
	}
	if (fz_chance(&w->r, served ? 90 : 50)) {
		/* 2: dentries and inodes (fz_worker's "4" made it quiet) */
		REC(w, "echo 2 > /proc/sys/vm/drop_caches");
		rc = write_file("/proc/sys/vm/drop_caches", "2", 1);
		fz_done(w->ring, rc, errno);
	}
	if (served && fz_chance(&w->r, 85)) {
		target = e->spare;
		flags = fz_chance(&w->r, 30) ? MNT_EXPIRE : 0;
	} else {
		target = fz_chance(&w->r, 50) ? e->ext4 : e->tmpfs;
	}
	REC(w, "umount2 %s%s", target, flags ? " MNT_EXPIRE" : "");
	rc = umount2(target, flags);
	if (rc && errno == EAGAIN && flags == MNT_EXPIRE) {
		/* not busy: marked expired; the second one unmounts */
		fz_done(w->ring, rc, errno);
		REC(w, "umount2 %s MNT_EXPIRE again", target);
		rc = umount2(target, flags);
	}
	fz_done(w->ring, rc, errno);
	if (!rc)
		__atomic_add_fetch(&e->sh->umount_done, 1, __ATOMIC_RELAXED);
	else if (errno == EBUSY)
		__atomic_add_fetch(&e->sh->umount_busy, 1, __ATOMIC_RELAXED);
	REC(w, "close %d fds, %s, the watches", nfd, map == MAP_FAILED ? "no mapping" : "munmap");
	if (map != MAP_FAILED)
		munmap(map, 4096);
	while (nfd)
		close(fds[--nfd]);
	if (in >= 0)
		close(in);
	if (!rc && target == e->spare) {
		fz_done(w->ring, 0, 0);
		REC(w, "mount the spare again");
		rc = fz_mount_spare(e);
		errno = rc < 0 ? (int)-rc : 0;
	}
	return rc;
}

/* --- set-id execs through views, with an oracle --------------------------------------------- */

/* Reap a child, killing it when the op's alarm ends the wait; its wait status, or -1. */
static int wk_reap(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) == pid)
		return status;
	kill(pid, SIGKILL);
	if (waitpid(pid, &status, WNOHANG) == pid)
		return status;
	return -1;	/* reaped by a later op_setid */
}

/* A child that drops to the unprivileged uid and gid (no groups) */
static void wk_unpriv(void)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (setgroups(0, NULL) || setresgid(FZ_UNPRIV, FZ_UNPRIV, FZ_UNPRIV) ||
	    setresuid(FZ_UNPRIV, FZ_UNPRIV, FZ_UNPRIV))
		_exit(126);
}

/* Write bytes [off, off + len) of the helper back where they are, through path, unprivileged. */
static long wk_rewrite_unpriv(struct wk *w, const char *path, int how, size_t off, size_t len)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		const unsigned char *src = fz_id_bin + off;
		int fd;

		wk_unpriv();
		fd = open(path, O_WRONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0)
			_exit(errno);
		if (how == 0) {
			_exit(pwrite(fd, src, len, off) == (ssize_t)len ? 0 : errno ?: 125);
		} else if (how == 1) {
			struct timespec ts = { .tv_sec = 1 };
			struct iocb cb, *cbs[1] = { &cb };
			struct io_event ev;
			io_context_t ctx = 0;

			if (io_setup(1, &ctx))
				_exit(124);
			io_prep_pwrite(&cb, fd, (void *)src, len, off);
			if (io_submit(ctx, 1, cbs) != 1 || io_getevents(ctx, 1, 1, &ev, &ts) != 1)
				_exit(123);
			_exit((long)ev.res == (long)len ? 0 : (long)ev.res < 0 ? -(long)ev.res : 122);
		} else {
			struct __kernel_timespec ts = { .tv_sec = 1 };
			struct io_uring ring;
			struct io_uring_cqe *cqe;
			struct io_uring_sqe *sqe;

			if (io_uring_queue_init(2, &ring, 0) || !(sqe = io_uring_get_sqe(&ring)))
				_exit(124);
			io_uring_prep_write(sqe, fd, src, len, off);
			io_uring_submit(&ring);
			if (io_uring_wait_cqe_timeout(&ring, &cqe, &ts))
				_exit(123);
			_exit(cqe->res == (int)len ? 0 : cqe->res < 0 ? -cqe->res : 122);
		}
	}
	(void)w;
	st = wk_reap(pid);
	if (st < 0 || !WIFEXITED(st))
		return errno = EINTR, -1;
	return WEXITSTATUS(st) ? (errno = WEXITSTATUS(st), -1) : 0;
}

/* The oracle's failure: in the worker's ring, on stdout, and in the shared page for the epoch */
static void wk_oracle_fail(struct wk *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void wk_oracle_fail(struct wk *w, const char *fmt, ...)
{
	char msg[sizeof(w->e->sh->oracle) - 24];	/* room for "worker %u: " */
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	REC(w, "ORACLE: %s", msg);
	printf("# ORACLE (kernel bug) epoch %u, worker %u: %s\n", w->e->epoch, w->idx, msg);
	fflush(stdout);
	if (!w->e->sh->oracle[0])
		snprintf(w->e->sh->oracle, sizeof(w->e->sh->oracle), "worker %u: %s", w->idx, msg);
}

/*
 * A root worker's own set-id helper s<tag><idx> in ext4 ('e') or tmpfs
 * ('t') (a name no other op uses; a filter may not change names or written
 * bytes): chmod and chown directly in the backing and through a view (set-id
 * bits on and off, u-s), rewritten in place with its own bytes through the
 * view by the unprivileged uid (write, libaio, io_uring: a non-owner's
 * write clears set-id bits), then run through the view by the unprivileged
 * uid. When it runs, its euid and egid must be what the backing file's mode
 * and owner (stat on the backing path: no nosuid there) give a direct exec.
 * The path through the view may reach another file or none (a server's
 * reply, a refusal): then the exec fails, and nothing is compared.
 */
static long op_setid(struct wk *w)
{
	static const mode_t modes[] = { 04755, 04777, 06777, 06755, 02775, 02777, 0777, 0755,
					04711, 04555, 02755, 06711, 04775, 02711 };
	static const uid_t owners[] = { 0, FZ_SETID_UID, FZ_UNPRIV };
	struct fz_epoch *e = w->e;
	char back[128], view[128], out[96];
	char tag = fz_chance(&w->r, 50) ? 'e' : 't';
	unsigned int euid, egid, ruid, rgid, xuid, xgid;
	int pfd[2], st, steps = 1 + fz_below(&w->r, 3);
	struct stat sb;
	ssize_t n;
	pid_t pid;
	long rc = 0;

	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	if (w->uid || !fz_id_len || !e->nmounts) {
		REC(w, "setid: not root, or no helper");
		return 0;
	}
	snprintf(back, sizeof(back), "%s/s%c%u", tag == 'e' ? e->ext4 : e->tmpfs, tag, w->idx);
	snprintf(view, sizeof(view), "%s/s%c%u", e->m[fz_below(&w->r, e->nmounts)].path, tag, w->idx);
	for (int i = 0; i < steps; i++) {
		bool direct = fz_chance(&w->r, 40);
		const char *p = direct ? back : view;
		int how = fz_below(&w->r, 5);

		switch (how) {
		case 0: {
			mode_t mode = FZ_PICK(&w->r, modes);

			REC(w, "chmod %s 0%o", p, mode);
			rc = chmod(p, mode);
			break;
		}
		case 1: {
			uid_t u = FZ_PICK(&w->r, owners), g = FZ_PICK(&w->r, owners);

			REC(w, "chown %s %u:%u", p, u, g);
			rc = lchown(p, u, g);
			break;
		}
		case 2:
			REC(w, "chmod u-s (or g-s) %s", p);
			rc = stat(p, &sb);
			if (!rc)
				rc = chmod(p, sb.st_mode & 07777 & ~(fz_chance(&w->r, 70) ? S_ISUID : S_ISGID));
			break;
		default: {
			int wh = fz_below(&w->r, 3);
			size_t off = fz_below(&w->r, fz_id_len), len = 1 + fz_below(&w->r, fz_id_len - off);

			REC(w, "%s %s [%zu, +%zu) its own bytes, uid %u", (const char *[]){ "pwrite", "aio pwrite",
			    "io_uring write" }[wh], view, off, len, FZ_UNPRIV);
			rc = wk_rewrite_unpriv(w, view, wh, off, len);
			break;
		}
		}
		fz_done(w->ring, rc, errno);
	}
	REC(w, "stat %s (the oracle)", back);
	rc = lstat(back, &sb);
	fz_done(w->ring, rc, errno);
	if (rc || !S_ISREG(sb.st_mode))
		return rc;
	xuid = sb.st_mode & S_ISUID ? sb.st_uid : FZ_UNPRIV;
	xgid = (sb.st_mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP) ? sb.st_gid : FZ_UNPRIV;
	REC(w, "exec %s uid %u (backing 0%o %u:%u: euid %u egid %u)", view, FZ_UNPRIV,
	    sb.st_mode & 07777, sb.st_uid, sb.st_gid, xuid, xgid);
	if (pipe2(pfd, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid == 0) {
		char *argv[] = { "fz-id", NULL }, *envp[] = { NULL };

		dup2(pfd[1], 1);
		wk_unpriv();
		execve(view, argv, envp);
		dprintf(1, "E%d\n", errno);
		_exit(127);
	}
	close(pfd[1]);
	if (pid < 0) {
		close(pfd[0]);
		return -1;
	}
	st = wk_reap(pid);
	n = read(pfd[0], out, sizeof(out) - 1);
	close(pfd[0]);
	out[n > 0 ? n : 0] = 0;
	if (out[0] == 'E')
		return errno = atoi(out + 1), -1;	/* execve() failed */
	if (st < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		return errno = ENOEXEC, -1;	/* did not run (or not the helper) */
	if (sscanf(out, "%u %u %u %u", &euid, &egid, &ruid, &rgid) != 4)
		return errno = EBADMSG, -1;
	__atomic_add_fetch(&e->sh->setid_checks, 1, __ATOMIC_RELAXED);
	fz_done(w->ring, euid, 0);
	if (euid != xuid || egid != xgid) {
		struct stat again;
		int arc = lstat(back, &again);

		wk_oracle_fail(w, "exec %s as uid %u: euid %u egid %u, but backing %s is 0%o %u:%u "
			       "(a direct exec: euid %u egid %u)%s", view, FZ_UNPRIV, euid, egid, back,
			       sb.st_mode & 07777, sb.st_uid, sb.st_gid, xuid, xgid,
			       arc || again.st_mode != sb.st_mode || again.st_uid != sb.st_uid ||
			       again.st_gid != sb.st_gid ? " (the backing changed since: a race?)" : "");
		return errno = EPERM, -1;
	}
	REC(w, "setid ok: euid %u egid %u", euid, egid);
	return 0;
}

/* --- renames and links across subtrees of different filters --------------------------------- */

/*
 * Between two directories of one mount: a served mount's server backs "sub"
 * and "d" (and what it finds in them) with one of the epoch's filters or
 * none, a view's root has one of them (and the replacer switches them); rename (plain, RENAME_NOREPLACE, RENAME_EXCHANGE,
 * RENAME_WHITEOUT), link, and a rename back.
 */
static long op_xrename(struct wk *w)
{
	static const char *const dirs[] = { "", "/sub", "/d", "/sub/sub", "/d/sub" };
	static const char *const names[] = { FZ_NAMES };
	static const unsigned int flags[] = { 0, RENAME_NOREPLACE, RENAME_EXCHANGE, RENAME_WHITEOUT,
					      RENAME_NOREPLACE | RENAME_WHITEOUT };
	struct fz_epoch *e = w->e;
	char a[256], b[256];
	const char *mnt;
	uint32_t da, db;
	int how = fz_below(&w->r, 7);
	long rc;

	if (!e->nmounts)
		return 0;
	mnt = e->m[fz_below(&w->r, e->nmounts)].path;
	da = fz_below(&w->r, ARRAY_SIZE(dirs));
	db = (da + 1 + fz_below(&w->r, ARRAY_SIZE(dirs) - 1)) % ARRAY_SIZE(dirs);
	snprintf(a, sizeof(a), "%s%s/%s", mnt, dirs[da], FZ_PICK(&w->r, names));
	snprintf(b, sizeof(b), "%s%s/%s", mnt, dirs[db], fz_chance(&w->r, 60) ? strrchr(a, '/') + 1 :
		 FZ_PICK(&w->r, names));
	if (how == 0) {
		REC(w, "xlink %s %s", a, b);
		return link(a, b);
	}
	if (how == 1) {
		REC(w, "xrename %s %s and back", a, b);
		rc = rename(a, b);
		fz_done(w->ring, rc, errno);
		if (rc)
			return rc;
		REC(w, "xrename %s %s (back)", b, a);
		return rename(b, a);
	}
	unsigned int f = flags[(how - 2) % ARRAY_SIZE(flags)];

	REC(w, "xrenameat2 %s %s 0x%x", a, b, f);
	return syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, f);
}

/* --- the loop ---------------------------------------------------------------------- */

struct wk_op {
	long (*fn)(struct wk *w);
	int weight;
	const char *name;	/* for FUZZ_SKIP_OPS */
};

static const struct wk_op wk_ops[] = {
	{ op_open, 14, "open" }, { op_close, 5, "close" }, { op_rw, 14, "rw" }, { op_mmap, 4, "mmap" },
	{ op_truncate, 3, "truncate" }, { op_fallocate, 3, "fallocate" }, { op_copy, 3, "copy" },
	{ op_splice, 3, "splice" }, { op_aio, 2, "aio" }, { op_uring, 2, "uring" }, { op_sync, 3, "sync" },
	{ op_lseek, 3, "lseek" }, { op_lock, 2, "lock" }, { op_ioctl, 1, "ioctl" }, { op_rename, 5, "rename" },
	{ op_name, 10, "name" }, { op_readdir, 6, "readdir" }, { op_xattr, 5, "xattr" }, { op_attr, 5, "attr" },
	{ op_stat, 10, "stat" },
	/* the review's classes: 10 of 113, about 9% of the picks */
	{ op_mmap_more, 3, "mmap_more" }, { op_umount, 1, "umount" }, { op_setid, 2, "setid" },
	{ op_xrename, 4, "xrename" },
};

/*
 * FUZZ_SKIP_OPS=setid,umount,...: those ops are picked as usual but do
 * nothing (to look for one bug class while another is open; the skipped
 * ops' own choices are not drawn, so the run is not the same as without)
 */
static bool wk_skipped(const struct wk_op *op)
{
	const char *x = getenv("FUZZ_SKIP_OPS"), *p;
	size_t len;

	if (!op->name || !x || !*x)
		return false;
	len = strlen(op->name);
	for (p = x; (p = strstr(p, op->name)); p += len)
		if ((p == x || p[-1] == ',') && (p[len] == ',' || !p[len]))
			return true;
	return false;
}

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
	struct wk w = { .e = e, .ring = ring, .idx = idx, .uid = uid };
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
	/* 4: no kernel log line for each drop_caches of op_umount (root; 1-4 only) */
	if (!uid)
		write_file("/proc/sys/vm/drop_caches", "4", 1);
	while (!*e->stop) {
		const struct wk_op *op = wk_pick(&w);
		long rc;

		if (wk_skipped(op)) {
			REC(&w, "%s: skipped (FUZZ_SKIP_OPS)", op->name);
			fz_done(ring, 0, 0);
			continue;
		}
		setitimer(ITIMER_REAL, &op_timer, NULL);
		errno = 0;
		rc = op->fn(&w);
		setitimer(ITIMER_REAL, &off, NULL);
		fz_done(ring, rc, errno);
	}
	_exit(0);
}
