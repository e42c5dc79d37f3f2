// SPDX-License-Identifier: GPL-2.0
/*
 * The backing mount's flags and state, and the backing inodes' flags,
 * apply through a view as they do on the backing: a read-only bind mount
 * (every mutating op EROFS), a frozen filesystem (writers wait for the
 * thaw), a running binary (ETXTBSY), an overmount inside the backing tree
 * (EXDEV), append-only and immutable files (also when they became so after
 * the view cached the inode or opened the file), and noexec, nosuid and
 * nodev backings.
 *
 * Each case mounts its own view of a backing filesystem of its own
 * (tests/guest/hfilter_view.c; append_ftruncate_after_chattr a no_daemon
 * view of an ext4 in the table server's environment, table_srv.c).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "fusebpf_uapi.h"
#include "hfilter_view.h"
#include "table_srv.h"
#include "tap.h"
#include "tfuse.h"
#include "tproc.h"

/* --- read-only and frozen backing mounts, running binaries --------------------------- */

struct mut_op {
	const char *what;
	long (*fn)(void);
};

static long op_unlink(void)
{
	return unlink(M("u"));
}

static long op_mkdir(void)
{
	return mkdir(M("newdir"), 0755);
}

static long op_rmdir(void)
{
	return rmdir(M("d"));
}

static long op_rename(void)
{
	return rename(M("r"), M("moved"));
}

/* -1 and errno when the open fails; -2 (closed again) when it opens. */
static long open_closed(const char *path, int flags)
{
	int fd = open(path, flags, 0644);

	if (fd < 0)
		return -1;
	close(fd);
	return -2;
}

static long op_create(void)
{
	return open_closed(M("new"), O_WRONLY | O_CREAT);
}

static long op_open_w(void)
{
	return open_closed(M("f"), O_WRONLY);
}

static long op_link(void)
{
	return link(M("f"), M("hard"));
}

static long op_symlink(void)
{
	return symlink("f", M("sym"));
}

static long op_mknod(void)
{
	return mknod(M("fifo"), S_IFIFO | 0644, 0);
}

static long op_chmod(void)
{
	return chmod(M("f"), 0600);
}

static long op_chown(void)
{
	return chown(M("f"), 1, 1);
}

static long op_truncate(void)
{
	return truncate(M("f"), 1);
}

static long op_setxattr(void)
{
	return setxattr(M("f"), "trusted.k", "w", 1, 0);
}

static long op_removexattr(void)
{
	return removexattr(M("f"), "trusted.k");
}

static long op_utimes(void)
{
	struct timeval tv[2] = { { .tv_sec = 1000 }, { .tv_sec = 2000 } };

	return utimes(M("f"), tv);
}

static const struct mut_op mut_ops[] = {
	{ "unlink", op_unlink }, { "mkdir", op_mkdir }, { "rmdir", op_rmdir },
	{ "rename", op_rename }, { "create", op_create }, { "open O_WRONLY", op_open_w },
	{ "link", op_link }, { "symlink", op_symlink }, { "mknod", op_mknod },
	{ "utimes", op_utimes }, { "chmod", op_chmod }, { "chown", op_chown },
	{ "truncate", op_truncate }, { "setxattr", op_setxattr },
	{ "removexattr", op_removexattr },
};

/* Each op must fail with err; prints every one that does not. The count of those. */
static int ops_fail_with(int err)
{
	int bad = 0;

	for (unsigned int i = 0; i < ARRAY_SIZE(mut_ops); i++) {
		long r;

		errno = 0;
		r = mut_ops[i].fn();
		if (r == -1 && errno == err)
			continue;
		printf("%s: %ld (%s), not %s\n", mut_ops[i].what, r,
		       r == -1 ? strerror(errno) : r == -2 ? "opened" : "ok", strerror(err));
		bad++;
	}
	return bad;
}

/*
 * A view of a read-only bind mount of the backing: every mutating op fails
 * EROFS and the backing is unchanged; reads work.
 */
static int t_ro_bind(void)
{
	char before[128], after[128], v[8];
	int ret = TAP_FAIL, bad;

	SETUP(HF_TMPFS, NULL);
	snprintf(before, sizeof(before), "%s/before", E.dir);
	snprintf(after, sizeof(after), "%s/after", E.dir);
	EXPECT(run("cd %s && echo data > f && echo u > u && echo r > r && mkdir d && "
		   "setfattr -n trusted.k -v v f", E.back) == 0);
	snprintf(E.root, sizeof(E.root), "%s/ro", E.dir);
	EXPECT(mkdir(E.root, 0755) == 0);
	EXPECT(mount(E.back, E.root, NULL, MS_BIND, NULL) == 0, "bind: %s", strerror(errno));
	push_mount(E.root);
	EXPECT(mount(NULL, E.root, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL) == 0,
	       "remount ro: %s", strerror(errno));
	EXPECT(FAILS(unlink(at(E.root, "f")), EROFS), "the bind mount is not read-only");
	EXPECT(snapshot(before) == 0);
	EXPECT(hf_mount(false) == 0);
	bad = ops_fail_with(EROFS);
	EXPECT(!strcmp(content(M("f")), "data\n"), "read: %s", content(M("f")));
	EXPECT(getxattr(M("f"), "trusted.k", v, sizeof(v)) == 1 && v[0] == 'v', "getxattr: %s",
	       strerror(errno));
	EXPECT(snapshot(after) == 0);
	EXPECT(same_snapshot(before, after) == 0, "the backing changed");
	EXPECT(getxattr(B("f"), "trusted.k", v, sizeof(v)) == 1 && v[0] == 'v', "xattr changed");
	EXPECT(bad == 0, "%d ops were not refused with EROFS", bad);
	ret = TAP_OK;
out:
	hf_teardown();
	return ret;
}

/* The child: unlink m/f1 and mkdir m/d1; exits 0, or the errno of the first failure. */
static pid_t frozen_child(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (unlink(M("f1")))
			_exit(errno);
		if (mkdir(M("d1"), 0755))
			_exit(errno);
		_exit(0);
	}
	return pid;
}

/* fsfreeze -f on an ext4 backing: unlink and mkdir through the view wait for the thaw. */
static int t_frozen_backing(void)
{
	int ret = TAP_FAIL, status;
	pid_t child = -1;
	struct stat st;

	SETUP(HF_EXT4, NULL);
	EXPECT(write_file(B("f1"), "x", 1) == 0);
	EXPECT(hf_mount(false) == 0);
	EXPECT(stat(M("f1"), &st) == 0);
	EXPECT(run("fsfreeze -f %s", E.back) == 0, "fsfreeze -f failed");
	E.frozen = true;
	child = frozen_child();
	EXPECT(child > 0);
	/* until it sleeps uninterruptibly (waiting for the thaw) or is done */
	for (int i = 0; i < 100 && proc_state(child) != 'D' && proc_state(child) != 'Z'; i++)
		usleep(50000);
	EXPECT(waitpid(child, &status, WNOHANG) == 0,
	       "unlink/mkdir through the view did not wait for the frozen backing (exit %d)",
	       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	EXPECT(stat(B("f1"), &st) == 0, "f1 was unlinked on the frozen filesystem");
	EXPECT(run("fsfreeze -u %s", E.back) == 0);
	E.frozen = false;
	EXPECT(waitpid(child, &status, 0) == child);
	child = -1;
	EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0, "after the thaw: %s",
	       WIFEXITED(status) ? strerror(WEXITSTATUS(status)) : "killed");
	EXPECT(FAILS(stat(B("f1"), &st), ENOENT) && stat(B("d1"), &st) == 0 && S_ISDIR(st.st_mode));
	ret = TAP_OK;
out:
	if (E.frozen)
		run("fsfreeze -u %s", E.back);
	E.frozen = false;
	if (child > 0)
		waitpid(child, NULL, 0);
	hf_teardown();
	return ret;
}

/* truncate(view/bin) of a backing binary being executed directly: ETXTBSY. */
static int t_truncate_running(void)
{
	int ret = TAP_FAIL, status;
	struct stat before, st;
	pid_t pid = -1;

	SETUP(HF_TMPFS, NULL);
	EXPECT(run("cp /bin/sleep %s/bin", E.back) == 0);
	EXPECT(stat(B("bin"), &before) == 0);
	EXPECT(hf_mount(false) == 0);
	pid = fork();
	if (pid == 0) {
		execl(B("bin"), "bin", "30", NULL);
		_exit(127);
	}
	EXPECT(pid > 0);
	/* until it runs: a write open of the backing then fails ETXTBSY */
	for (int i = 0; i < 100; i++) {
		int fd = open(B("bin"), O_WRONLY);

		if (fd < 0 && errno == ETXTBSY)
			break;
		if (fd >= 0)
			close(fd);
		usleep(20000);
	}
	EXPECT(open_fails(B("bin"), O_WRONLY, ETXTBSY), "the binary does not run");
	errno = 0;
	EXPECT(FAILS(truncate(M("bin"), 0), ETXTBSY), "truncate through the view: %s",
	       strerror(errno));
	EXPECT(stat(B("bin"), &st) == 0 && st.st_size == before.st_size, "size now %lld",
	       (long long)st.st_size);
	ret = TAP_OK;
out:
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	hf_teardown();
	return ret;
}

/* --- overmounts ----------------------------------------------------------------------- */

/*
 * A tmpfs mounted on backing/sub hides backing/sub/secret; through the
 * view, sub and everything under it fail EXDEV, and readdir still lists sub.
 */
static int t_overmount(void)
{
	int ret = TAP_FAIL, found = 0;
	char cover[128];
	struct dirent *de;
	struct stat st;
	DIR *d = NULL;

	SETUP(HF_TMPFS, NULL);
	EXPECT(run("mkdir %s/sub && echo secret > %s/sub/secret", E.back, E.back) == 0);
	snprintf(cover, sizeof(cover), "%s/sub", E.back);
	EXPECT(mount("tmpfs", cover, "tmpfs", 0, "mode=0755") == 0, "%s", strerror(errno));
	push_mount(cover);
	EXPECT(write_file(at(cover, "shown"), "over\n", 5) == 0);
	EXPECT(hf_mount(false) == 0);
	errno = 0;
	EXPECT(FAILS(stat(M("sub"), &st), EXDEV), "stat sub: %s", strerror(errno));
	errno = 0;
	EXPECT(open_fails(M("sub/secret"), O_RDONLY, EXDEV), "open sub/secret: %s (reads '%s')",
	       strerror(errno), content(M("sub/secret")));
	EXPECT(open_fails(M("sub/shown"), O_RDONLY, EXDEV), "open sub/shown: %s", strerror(errno));
	d = opendir(E.mnt);
	EXPECT(d, "opendir: %s", strerror(errno));
	while ((de = readdir(d)))
		found |= !strcmp(de->d_name, "sub");
	EXPECT(found, "readdir of the view lost sub");
	ret = TAP_OK;
out:
	if (d)
		closedir(d);
	hf_teardown();
	return ret;
}

/* --- inode flags --------------------------------------------------------------------- */

/* chattr +a f: write opens without O_APPEND, O_TRUNC, truncate fail EPERM; appends work. */
static int t_chattr_append(void)
{
	int ret = TAP_FAIL, fd = -1;

	SETUP(HF_EXT4, NULL);
	EXPECT(write_file(B("f"), "data\n", 5) == 0);
	EXPECT(run("chattr +a %s", B("f")) == 0, "chattr +a");
	EXPECT(hf_mount(false) == 0);
	errno = 0;
	EXPECT(open_fails(M("f"), O_WRONLY, EPERM), "open O_WRONLY: %s", strerror(errno));
	EXPECT(open_fails(M("f"), O_RDWR, EPERM), "open O_RDWR: %s", strerror(errno));
	EXPECT(open_fails(M("f"), O_WRONLY | O_APPEND | O_TRUNC, EPERM), "O_TRUNC: %s",
	       strerror(errno));
	EXPECT(FAILS(truncate(M("f"), 0), EPERM), "truncate: %s", strerror(errno));
	fd = open(M("f"), O_WRONLY | O_APPEND);
	EXPECT(fd >= 0, "open O_APPEND: %s", strerror(errno));
	EXPECT(pwrite(fd, "more\n", 5, 0) == 5, "append: %s", strerror(errno));
	EXPECT(!strcmp(content(B("f")), "data\nmore\n"), "backing: '%s'", content(B("f")));
	ret = TAP_OK;
out:
	if (fd >= 0)
		close(fd);
	run("chattr -a %s", B("f"));
	hf_teardown();
	return ret;
}

/* chattr +i g: write open, unlink, rename fail EPERM. */
static int t_chattr_immutable(void)
{
	int ret = TAP_FAIL;

	SETUP(HF_EXT4, NULL);
	EXPECT(write_file(B("g"), "data\n", 5) == 0);
	EXPECT(run("chattr +i %s", B("g")) == 0, "chattr +i");
	EXPECT(hf_mount(false) == 0);
	errno = 0;
	EXPECT(open_fails(M("g"), O_WRONLY, EPERM), "open O_WRONLY: %s", strerror(errno));
	EXPECT(open_fails(M("g"), O_WRONLY | O_APPEND, EPERM), "open O_APPEND: %s", strerror(errno));
	EXPECT(FAILS(unlink(M("g")), EPERM), "unlink: %s", strerror(errno));
	EXPECT(FAILS(rename(M("g"), M("h")), EPERM), "rename: %s", strerror(errno));
	EXPECT(!strcmp(content(B("g")), "data\n") && !strcmp(content(M("g")), "data\n"));
	ret = TAP_OK;
out:
	run("chattr -i %s", B("g"));
	hf_teardown();
	return ret;
}

/* The flags are refreshed: stat first (inode cached), then chattr +a, then open. */
static int t_chattr_after_cached_stat(void)
{
	int ret = TAP_FAIL, fd = -1;
	struct stat st;

	SETUP(HF_EXT4, NULL);
	EXPECT(write_file(B("h"), "data\n", 5) == 0);
	EXPECT(hf_mount(false) == 0);
	EXPECT(stat(M("h"), &st) == 0);
	fd = open(M("h"), O_WRONLY);
	EXPECT(fd >= 0, "open before chattr: %s", strerror(errno));
	close(fd);
	fd = -1;
	EXPECT(run("chattr +a %s", B("h")) == 0, "chattr +a");
	errno = 0;
	EXPECT(open_fails(M("h"), O_WRONLY, EPERM), "open O_WRONLY after chattr +a: %s",
	       strerror(errno));
	EXPECT(FAILS(truncate(M("h"), 0), EPERM), "truncate: %s", strerror(errno));
	EXPECT(!strcmp(content(B("h")), "data\n"));
	ret = TAP_OK;
out:
	if (fd >= 0)
		close(fd);
	run("chattr -a %s", B("h"));
	hf_teardown();
	return ret;
}

/*
 * chattr -i behind a view that cached the immutable flag: the next open for
 * writing works at once (the open's walk stays in RCU walk on a cached
 * name, and inode_permission() reads the flag before ->permission()).
 */
static int t_chattr_immutable_removed_behind(void)
{
	int ret = TAP_FAIL, fd = -1, i;

	SETUP(HF_EXT4, NULL);
	EXPECT(write_file(B("g"), "data\n", 5) == 0);
	EXPECT(run("chattr +i %s", B("g")) == 0, "chattr +i");
	EXPECT(hf_mount(false) == 0);
	for (i = 0; i < 3; i++)
		EXPECT(open_fails(M("g"), O_WRONLY, EPERM), "open O_WRONLY %d: %s", i,
		       strerror(errno));
	EXPECT(run("chattr -i %s", B("g")) == 0, "chattr -i");
	for (i = 0; i < 3; i++) {
		fd = open(M("g"), O_WRONLY);
		EXPECT(fd >= 0, "open O_WRONLY %d after chattr -i: %s", i, strerror(errno));
		close(fd);
		fd = -1;
	}
	ret = TAP_OK;
out:
	run("chattr -i %s", B("g"));
	hf_teardown();
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
	struct ts_env e;
	struct stat st;

	rc = ts_setup(&e, NULL);
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
	if (ts_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/* --- the backing mount's flags ------------------------------------------------------- */

/* noexec backing: execve through the view EACCES, mmap(PROT_EXEC) EPERM. */
static int t_backing_noexec(void)
{
	char *argv[] = { NULL, NULL };
	int ret = TAP_FAIL, fd = -1, rc;
	void *p;

	SETUP(HF_TMPFS, "noexec");
	EXPECT(run("cp /bin/true %s/bin", E.back) == 0);
	EXPECT(hf_mount(false) == 0);
	argv[0] = (char *)B("bin");
	EXPECT(try_exec(argv, 0, NULL, 0) == -EACCES, "the backing is not noexec");
	argv[0] = (char *)M("bin");
	rc = try_exec(argv, 0, NULL, 0);
	EXPECT(rc == -EACCES, "execve through the view: %s", rc < 0 ? strerror(-rc) : "ran");
	fd = open(M("bin"), O_RDONLY);
	EXPECT(fd >= 0, "%s", strerror(errno));
	p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (p != MAP_FAILED)
		munmap(p, 4096);
	EXPECT(p == MAP_FAILED && errno == EPERM, "mmap PROT_EXEC: %s",
	       p == MAP_FAILED ? strerror(errno) : "mapped");
	ret = TAP_OK;
out:
	if (fd >= 0)
		close(fd);
	hf_teardown();
	return ret;
}

/* nosuid backing: a setuid-root binary run through the view by nobody keeps euid nobody. */
static int t_backing_nosuid(void)
{
	char out[64], *argv[] = { NULL, "-u", NULL };
	int ret = TAP_FAIL, rc;

	SETUP(HF_TMPFS, "nosuid");
	EXPECT(run("cp /usr/bin/id %s/id && chown root:root %s/id && chmod 4755 %s/id", E.back,
		   E.back, E.back) == 0);
	EXPECT(hf_mount(false) == 0);
	argv[0] = (char *)M("id");
	rc = try_exec(argv, 65534, out, sizeof(out));
	EXPECT(rc == 0, "id through the view: %d", rc);
	EXPECT(!strcmp(out, "65534\n"), "euid through the view: %s", out);
	ret = TAP_OK;
out:
	hf_teardown();
	return ret;
}

/* nodev backing: opening a char device node through the view fails EACCES. */
static int t_backing_nodev(void)
{
	int ret = TAP_FAIL, fd;

	SETUP(HF_TMPFS, "nodev");
	EXPECT(mknod(B("null"), S_IFCHR | 0666, makedev(1, 3)) == 0, "mknod: %s", strerror(errno));
	EXPECT(open_fails(B("null"), O_RDWR, EACCES), "the backing is not nodev");
	EXPECT(hf_mount(false) == 0);
	errno = 0;
	fd = open(M("null"), O_RDWR);
	if (fd >= 0)
		close(fd);
	EXPECT(fd == -1 && errno == EACCES, "open through the view: %s",
	       fd >= 0 ? "opened" : strerror(errno));
	ret = TAP_OK;
out:
	hf_teardown();
	return ret;
}

/* --- the cases ------------------------------------------------------------ */

CASE(append_ftruncate_after_chattr)

static const struct tap_case cases[] = {
	{ "ro_bind_backing_erofs", t_ro_bind },
	{ "frozen_backing_blocks", t_frozen_backing },
	{ "truncate_executing_etxtbsy", t_truncate_running },
	{ "overmount_exdev", t_overmount },
	{ "chattr_append_only", t_chattr_append },
	{ "chattr_immutable", t_chattr_immutable },
	{ "chattr_after_cached_stat", t_chattr_after_cached_stat },
	{ "chattr_immutable_removed_behind", t_chattr_immutable_removed_behind },
	{ "append_ftruncate_after_chattr", c_append_ftruncate_after_chattr },
	{ "backing_noexec", t_backing_noexec },
	{ "backing_nosuid", t_backing_nosuid },
	{ "backing_nodev", t_backing_nodev },
};

TAP_MAIN("mount_flags", cases)
