// SPDX-License-Identifier: GPL-2.0
/*
 * Lock orders of stacked views that make fuzz exercised, each reduced to a
 * small deterministic case (docs/testing.md lists the runs): the operation, then the kernel log since the case began must be
 * free of reports (tests/kernel-log-check.sh's patterns: lockdep, KASAN,
 * WARNING, ...). A bug that is still open is a TAP TODO (TODO() of tap.h)
 * and is not triggered by default (a lockdep report would switch lockdep off for
 * every later suite of make check); TEST_FUZZ_FOUND=1 triggers it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fusebpf_uapi.h"
#include "tap.h"
#include "tfuse.h"

/* One case's world: a tmpfs with the backing tree and the views' mount points. */
static struct {
	char dir[64];
	char back[96];
	char view[2][96];
	bool mounted[2];
	int kmsg;
} E = { .kmsg = -1 };

/* --- the kernel log ----------------------------------------------------------------- */

static void klog_mark(void)
{
	E.kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (E.kmsg >= 0)
		lseek(E.kmsg, 0, SEEK_END);
}

/* tests/kernel-log-check.sh, from build/tests/guest/fuzz_found */
static const char *klog_checker(void)
{
	static char path[512];
	char exe[400];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	exe[n > 0 ? n : 0] = 0;
	for (int i = 0; i < 4; i++) {
		char *slash = strrchr(exe, '/');

		if (slash)
			*slash = 0;
	}
	snprintf(path, sizeof(path), "%s/tests/kernel-log-check.sh", exe);
	return path;
}

/* 0 when the kernel logged no report since klog_mark(); else the report is printed. */
static int klog_clean(void)
{
	char rec[2048], file[128];
	FILE *f;

	if (E.kmsg < 0)
		return printf("no /dev/kmsg: %s\n", strerror(errno)), -1;
	snprintf(file, sizeof(file), "%s/klog", E.dir);
	f = fopen(file, "w");
	if (!f)
		return -1;
	for (;;) {
		ssize_t len = read(E.kmsg, rec, sizeof(rec) - 1);
		char *msg;

		if (len < 0 && errno == EPIPE)
			continue;
		if (len <= 0)
			break;
		rec[len] = 0;
		msg = strchr(rec, ';');
		fputs(msg ? msg + 1 : rec, f);
	}
	fclose(f);
	/* run() shows the checker's output (the report lines) when it fails */
	return run("bash %s %s", klog_checker(), file) ? -1 : 0;
}

/* --- set-up ------------------------------------------------------------------------- */

static int setup(void)
{
	strcpy(E.dir, "/tmp/ff-XXXXXX");
	if (!mkdtemp(E.dir))
		return -errno;
	if (mount("tmpfs", E.dir, "tmpfs", 0, "mode=0755,size=64m"))
		return -errno;
	snprintf(E.back, sizeof(E.back), "%s/back", E.dir);
	for (int i = 0; i < 2; i++)
		snprintf(E.view[i], sizeof(E.view[i]), "%s/view%d", E.dir, i);
	if (mkdir(E.back, 0777) || mkdir(E.view[0], 0755) || mkdir(E.view[1], 0755))
		return -errno;
	klog_mark();
	return 0;
}

/* A no_daemon view at E.view[i] of the directory root (root_dir=). */
static int mount_view(int i, const char *root)
{
	char opts[96];
	int dirfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC), fd;

	if (dirfd < 0)
		return -errno;
	snprintf(opts, sizeof(opts), "root_dir=%d,no_daemon", dirfd);
	fd = tfuse_mount(E.view[i], opts);
	close(dirfd);
	if (fd < 0)
		return fd;
	close(fd);
	E.mounted[i] = true;
	return 0;
}

static void teardown(void)
{
	for (int i = 1; i >= 0; i--)
		if (E.mounted[i] && umount2(E.view[i], 0))
			umount2(E.view[i], MNT_DETACH);
	if (E.dir[0] && strcmp(E.dir, "/tmp/ff-XXXXXX")) {
		umount2(E.dir, MNT_DETACH);
		rmdir(E.dir);
	}
	if (E.kmsg >= 0)
		close(E.kmsg);
}

static __attribute__((unused)) bool open_bug_runs(void)
{
	const char *v = getenv("TEST_FUZZ_FOUND");

	return v && *v && strcmp(v, "0");
}

/* --- the cases ------------------------------------------------------------------------ */

/*
 * A create in a view stacked on a view takes sb_writers of both FUSE
 * superblocks (mnt_want_write() in fuse_lock_backing_parent() under
 * path_openat()'s), and a rename across directories s_vfs_rename_mutex of
 * both: each stack depth needs a lock class of its own, or lockdep reports
 * "possible recursive locking detected".
 */
static int t_stacked_view_create(void)
{
	int ret = TAP_FAIL, fd = -1;
	char path[160];

	EXPECT(setup() == 0, "setup: %s", strerror(errno));
	OK(mount_view(0, E.back));
	OK(mount_view(1, E.view[0]));
	snprintf(path, sizeof(path), "%s/new", E.view[1]);
	fd = open(path, O_CREAT | O_RDWR, 0644);
	EXPECT(fd >= 0, "open(O_CREAT) through the stacked view: %s", strerror(errno));
	/* And a rename across directories: s_vfs_rename_mutex of both */
	snprintf(path, sizeof(path), "%s/a", E.view[1]);
	EXPECT(mkdir(path, 0755) == 0, "mkdir: %s", strerror(errno));
	snprintf(path, sizeof(path), "%s/b", E.view[1]);
	EXPECT(mkdir(path, 0755) == 0, "mkdir: %s", strerror(errno));
	snprintf(path, sizeof(path), "%s/new", E.view[1]);
	{
		char to[160];

		snprintf(to, sizeof(to), "%s/a/moved", E.view[1]);
		EXPECT(rename(path, to) == 0, "rename: %s", strerror(errno));
		snprintf(path, sizeof(path), "%s/b/moved", E.view[1]);
		EXPECT(rename(to, path) == 0, "rename across directories: %s", strerror(errno));
	}
	EXPECT(klog_clean() == 0, "the kernel logged a report");
	ret = TAP_OK;
out:
	if (fd >= 0)
		close(fd);
	teardown();
	return ret;
}

/*
 * A splice into a view stacked on a view must not close a cycle of locks
 * (lockdep "possible circular locking dependency"). Were the outer view to
 * splice into its backing file, the inner view's, with
 * iter_file_splice_write(), it would take the pipe's lock, then the inner
 * FUSE inode's in its write path; while a truncate through the inner view
 * holds that inode and takes the backing's freeze protection, and a splice
 * into the backing holds that and takes the pipe's lock. A backed splice
 * goes through the backing file's own splice_write, which for a FUSE file
 * locks the inode before the pipe.
 */
static int t_stacked_view_splice(void)
{
	int ret = TAP_FAIL, fd;
	char path[160], got[8192];
	ssize_t n;

	EXPECT(setup() == 0, "setup: %s", strerror(errno));
	OK(mount_view(0, E.back));
	OK(mount_view(1, E.view[0]));
	snprintf(path, sizeof(path), "%s/f", E.back);
	EXPECT(write_file(path, "f", 1) == 0);
	snprintf(path, sizeof(path), "%s/f", E.view[0]);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	EXPECT(fd >= 0 && ftruncate(fd, 100) == 0, "ftruncate through the inner view: %s",
	       strerror(errno));
	close(fd);
	snprintf(path, sizeof(path), "%s/f", E.back);
	n = splice_file(path, O_WRONLY, 'z', 512);
	EXPECT(n == 512, "splice into the backing file: %zd %s", n, n < 0 ? strerror(-n) : "");
	snprintf(path, sizeof(path), "%s/f", E.view[1]);
	n = splice_file(path, O_WRONLY, 'z', 4096);
	EXPECT(n == 4096, "splice through the stacked view: %zd %s", n, n < 0 ? strerror(-n) : "");
	snprintf(path, sizeof(path), "%s/f", E.back);
	n = read_file(path, got, sizeof(got));
	EXPECT(n == 4096 && got[0] == 'z' && got[4095] == 'z', "the backing file has %zd bytes", n);
	EXPECT(klog_clean() == 0, "the kernel logged a report");
	ret = TAP_OK;
out:
	teardown();
	return ret;
}

static const struct tap_case cases[] = {
	{ "stacked_view_create", t_stacked_view_create },
	{ "stacked_view_splice", t_stacked_view_splice },
};

TAP_MAIN("fuzz_found", cases)
