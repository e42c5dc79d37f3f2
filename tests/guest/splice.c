// SPDX-License-Identifier: GPL-2.0
/*
 * Splices into a server's file (one without a backing): the locks they
 * take and in which order, what they sync, and what wakes them. A splice
 * holds the file's FUSE inode and waits for the pipe; whoever else waits
 * for that inode (fsync, close, truncate, the server's own notifications)
 * must not wait for the pipe, and nothing may close a locking cycle with
 * the backing's freeze protection. O_SYNC and O_DSYNC splices sync what
 * they wrote as write() does, and report errors as write() does.
 *
 * Every case runs the table server (tests/guest/table_srv.c) with files
 * that take writes, and is killed after CASE_TIMEOUT seconds: a kernel
 * that deadlocks on it fails the case instead of hanging the suite.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fusebpf_uapi.h"
#include "table_srv.h"
#include "tap.h"
#include "tfuse.h"
#include "tproc.h"

#define MIX_FILES 6

/*
 * Splices into backed and server's files and renames that mix the two
 * kinds, at once: no cycle of locks (a deadlock when the backing file
 * system is being frozen). A rename of two backed files holds their FUSE
 * inodes and takes the backing's freeze protection (as overlayfs does); a
 * splice into a backing file holds that and takes the pipe's lock; a
 * rename of a server's file over a backed one (or back) holds one FUSE
 * inode and takes the other. So a splice into a server's file must lock
 * its inode before the pipe, as overlayfs does, not the pipe first (the
 * cycle lockdep reports as "possible circular locking dependency"). Only
 * the debug kernel (lockdep) can fail this case.
 */
static int t_splice_served_rename_backed(void)
{
	int ret = TAP_FAIL, rc, i, j;
	struct ts_ent *ent;
	struct ts_env e;
	char name[16];
	struct stat st;

	rc = ts_setup(&e, NULL);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	OK(mkdir(at(e.back, "d"), 0755));
	EXPECT(write_file(at(e.back, "d/x"), "x", 1) == 0 && write_file(at(e.back, "d/y"), "y", 1) == 0);
	ts_add(&e, FUSE_ROOT_ID, "d", at(e.back, "d"));
	for (i = 0; i < MIX_FILES; i++) {
		snprintf(name, sizeof(name), "s%d", i);
		ent = ts_add(&e, FUSE_ROOT_ID, name, NULL);
		EXPECT(ent);
		ent->nodeid = 10 + i;
		ent->mode_set = true;
		ent->mode = S_IFREG | 0644;
		snprintf(name, sizeof(name), "b%d", i);
		EXPECT(write_file(at(e.back, name), "b", 1) == 0);
		ent = ts_add(&e, FUSE_ROOT_ID, name, at(e.back, name));
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
	if (ts_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/* --- a splice into a server's file and O_SYNC --------------------------------------- */

/*
 * A served mount (INIT flags init_flags) whose regular file "s0" (nodeid 10)
 * takes writes; its OPENs answer fopen.
 */
static int ts_data_setup(struct ts_env *e, uint32_t init_flags, uint32_t fopen)
{
	struct ts_ent *ent;
	int rc = ts_setup_flags(e, NULL, init_flags);

	if (rc)
		return rc;
	ent = ts_add(e, FUSE_ROOT_ID, "s0", NULL);
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
 * A splice into an O_SYNC or O_DSYNC server's file (and the writeback
 * cache's) syncs what it wrote, as write() does: one FSYNC, with
 * FUSE_FSYNC_FDATASYNC for O_DSYNC, covering the spliced range (the
 * writeback cache's dirty pages are written before splice() returns). A
 * sync under the splice's inode lock (fuse_fsync() takes it) deadlocks:
 * the case timeout catches that; lockdep's reports are grepped.
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
	struct ts_env e = { .fuse_fd = -1, .server = -1 };
	unsigned int i;
	loff_t off;
	long r;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		rc = ts_data_setup(&e, v[i].init, 0);
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
		if (ts_teardown(&e))
			goto out;
	}
	EXPECT(run("dmesg | grep -qE 'circular locking dependency|possible recursive locking|BUG: KASAN'") != 0,
	       "lockdep or KASAN reported (dmesg)");
	ret = TAP_OK;
out:
	if (fd >= 0)
		close(fd);
	if (e.sh && ts_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/*
 * An O_SYNC file opened FOPEN_DIRECT_IO is not synced by write()
 * (fuse_direct_write_iter() leaves it to the server, which gets O_SYNC in
 * the WRITE's flags): a splice into it sends no FSYNC either. One that did
 * would send an FSYNC that write() does not, and fail if it failed.
 */
static int t_splice_served_direct_io_osync(void)
{
	struct ts_env e = { .fuse_fd = -1, .server = -1 };
	int ret = TAP_FAIL, fd = -1, rc;
	struct tfuse_counts a, b;
	uint32_t by_write;
	loff_t off = 4096;
	long r;

	rc = ts_data_setup(&e, 0, FOPEN_DIRECT_IO);
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
	if (ts_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/*
 * The sync of an O_SYNC write fails (the server's FSYNC: EIO). write()
 * returns EIO and leaves the file position where it was; a splice must be
 * as consistent: the errno with the position unchanged, or the count with
 * the position moved. A sync after iter_file_splice_write() has consumed
 * the pipe and moved *ppos that replaces the count with the errno (EIO
 * with the position moved) is neither.
 */
static int t_splice_served_fsync_error(void)
{
	struct ts_env e = { .fuse_fd = -1, .server = -1 };
	int ret = TAP_FAIL, fd = -1, rc, left = -1;
	loff_t off;
	long r;

	rc = ts_data_setup(&e, 0, 0);
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
	if (ts_teardown(&e))
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
 * A splice into a server's file takes the FUSE inode's lock before the
 * pipe's; iter_file_splice_write() waits (without a bound) for a writer to
 * fill an empty pipe. If it waited with the inode locked, every fsync(),
 * close() (fuse_flush()), truncate and lseek(SEEK_END) of the file, by
 * anyone, would wait in D state, and so would the server's own
 * NOTIFY_DELETE of it (fuse_reverse_inval_entry() locks the child): a
 * server thread stuck there while the pipe's writer waits for that server
 * is a deadlock. So the splice waits for data unlocked: here another
 * process's fsync() and the server's notification must not wait for the
 * pipe.
 */
static int t_splice_served_empty_pipe(void)
{
	struct ts_env e = { .fuse_fd = -1, .server = -1 };
	int ret = TAP_FAIL, fd = -1, rc, p[2] = { -1, -1 }, st_sync, st_notify;
	pid_t splicer = -1, syncer = -1, notifier = -1;
	char buf[512];

	rc = ts_data_setup(&e, 0, 0);
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
	if (ts_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/*
 * A splice into a server's file takes the FUSE inode's lock before the
 * pipe's, and iter_file_splice_write() takes the
 * pipe's (mutex_lock(), uninterruptible) with the inode locked. Another
 * consumer of the same pipe holds the pipe's lock for as long as its own
 * write takes: here a splice from the pipe into a file of a second server
 * that does not answer the WRITE (a socket whose peer does not read, or a
 * pipe_write() faulting on a FUSE mapping, hold it the same way). Meanwhile
 * the splice into s0 waits for the pipe with s0's inode locked, and every
 * fsync(), close(), truncate of s0, and its server's NOTIFY_DELETE, wait in
 * D state with it, as they must not for an empty pipe
 * (splice_served_empty_pipe). With one server behind both files it is a
 * deadlock (the server's thread in NOTIFY_DELETE of s0, the WRITE it would
 * answer next holding the pipe). In the generic order (pipe, then inode)
 * the splice into s0 would wait for the pipe without s0's lock.
 */
/*
 * A known bug: a splice into a server's file locks the inode before the
 * pipe, so these two cases hang their processes until they abort the
 * connection. TEST_SPLICE_PIPE_LOCK=1 runs them (as TODO); otherwise they
 * are skipped, so that make check stays quiet until the order is
 * redesigned (docs/kernel.md, Not done).
 */
static bool pipe_lock_cases_wanted(void)
{
	const char *v = getenv("TEST_SPLICE_PIPE_LOCK");

	return v && strcmp(v, "0");
}

static int t_splice_served_pipe_busy(void)
{
	struct ts_env e = { .fuse_fd = -1, .server = -1 }, e2 = { .fuse_fd = -1, .server = -1 };
	int ret = TAP_FAIL, fd = -1, fd2 = -1, rc, p[2] = { -1, -1 }, st_sync, st_notify;
	pid_t holder = -1, splicer = -1, syncer = -1, notifier = -1;
	char buf[1024];

	if (!pipe_lock_cases_wanted())
		SKIP("a known bug: the splice waits for the pipe's lock with the inode locked "
		     "(TEST_SPLICE_PIPE_LOCK=1 runs it)");
	TODO("the inode is locked while the splice waits for the pipe's lock");
	rc = ts_data_setup(&e, 0, 0);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	rc = ts_data_setup(&e2, 0, 0);
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
	if (e.sh && ts_teardown(&e))
		ret = TAP_FAIL;
	if (e2.sh && ts_teardown(&e2))
		ret = TAP_FAIL;
	return ret;
}

/*
 * splice_served_pipe_busy with one server: a deadlock. A splice
 * from the pipe into s1 holds the pipe's lock until the server answers its
 * WRITE; the server first sends NOTIFY_DELETE of s0 (as a server does that
 * drops a file when another is written), which locks s0; a splice from the
 * same pipe into s0 holds s0's lock (inode, then pipe) and waits for the
 * pipe's. Nothing moves, SIGKILL included (the WRITE was sent, so its
 * writer waits it out; the others wait in mutex_lock() and down_write()),
 * until the connection is aborted, which the case then does.
 */
static int t_splice_served_pipe_deadlock(void)
{
	struct ts_env e = { .fuse_fd = -1, .server = -1 };
	int ret = TAP_FAIL, fd0 = -1, fd1 = -1, rc, p[2] = { -1, -1 }, st_h, st_s;
	pid_t holder = -1, splicer = -1;
	struct ts_ent *ent;
	struct stat st;
	char buf[1024];

	if (!pipe_lock_cases_wanted())
		SKIP("a known bug: the splice waits for the pipe's lock with the inode locked "
		     "(TEST_SPLICE_PIPE_LOCK=1 runs it)");
	TODO("a one-server deadlock through the pipe's lock");
	rc = ts_data_setup(&e, 0, 0);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	ent = ts_add(&e, FUSE_ROOT_ID, "s1", NULL);
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
	if (e.sh && ts_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

static void on_usr1(int sig)
{
	(void)sig;
}

/*
 * A splice waits for an empty pipe on its rd_wait, unlocked, with a
 * lockless test of the pipe. Every way the pipe can fill or lose its last
 * writer must wake the splice, with what splice() returns on other files: a
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
	struct ts_env e = { .fuse_fd = -1, .server = -1 };
	int ret = TAP_FAIL, fd = -1, src = -1, rc, st, p[2] = { -1, -1 }, q[2] = { -1, -1 };
	char buf[512];
	pid_t child = -1;
	loff_t off;

	rc = ts_data_setup(&e, 0, 0);
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
	if (ts_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/*
 * The server answers a WRITE with EAGAIN. write() sends the WRITE once and
 * returns EAGAIN; a splice must too. An -EAGAIN with data in the pipe is
 * the write's answer, not a sign that data came after the pipe was found
 * empty: a splice that took it for one would splice again, and the server
 * would get a second WRITE that no one asked for.
 */
static int t_splice_served_write_eagain(void)
{
	struct ts_env e = { .fuse_fd = -1, .server = -1 };
	int ret = TAP_FAIL, fd = -1, rc, left = -1;
	struct tfuse_counts a, b;
	uint32_t by_write;
	loff_t off = 4096;
	long r;

	rc = ts_data_setup(&e, 0, 0);
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
	if (ts_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/* --- the cases ------------------------------------------------------------ */

CASE(splice_served_rename_backed)
CASE(splice_served_osync)
CASE(splice_served_direct_io_osync)
CASE(splice_served_fsync_error)
CASE(splice_served_empty_pipe)
CASE(splice_served_pipe_busy)
CASE(splice_served_pipe_deadlock)
CASE(splice_served_wakeups)
CASE(splice_served_write_eagain)

static const struct tap_case cases[] = {
	{ "splice_served_rename_backed", c_splice_served_rename_backed },
	{ "splice_served_osync", c_splice_served_osync },
	{ "splice_served_direct_io_osync", c_splice_served_direct_io_osync },
	{ "splice_served_fsync_error", c_splice_served_fsync_error },
	{ "splice_served_empty_pipe", c_splice_served_empty_pipe },
	{ "splice_served_pipe_busy", c_splice_served_pipe_busy },
	{ "splice_served_pipe_deadlock", c_splice_served_pipe_deadlock },
	{ "splice_served_wakeups", c_splice_served_wakeups },
	{ "splice_served_write_eagain", c_splice_served_write_eagain },
};

TAP_MAIN("splice", cases)
