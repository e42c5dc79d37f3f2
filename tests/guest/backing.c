// SPDX-License-Identifier: GPL-2.0
/*
 * The rules for backing files: what a FUSE server may hand the kernel as a
 * backing (in a LOOKUP reply) or as a mount's root_dir, and who may. The
 * stacking depth (no loop, no backing on a superblock as deep as the
 * connection), the kinds of fd that may back a node and the modes they
 * must come with, the CAP_SYS_ADMIN rule for backings and filters (in a
 * user namespace, with the mount split over tasks, with a root_dir opened
 * by someone else), idmapped backings, unique inode numbers across two
 * backing filesystems, and a backing mount that a backed inode keeps busy.
 *
 * Each case has its own directory under /tmp with its own backing tmpfs
 * and FUSE mount, served by the table server (tests/guest/table_srv.c),
 * and is killed after CASE_TIMEOUT seconds.
 */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fusebpf_uapi.h"
#include "table_srv.h"
#include "tap.h"
#include "tfuse.h"
#include "tproc.h"
/* --- stacking ------------------------------------------------------------------------ */

/*
 * A stacking loop: B is served (depth 1), A's root_dir is B's root
 * (depth 2), and B's server answers LOOKUP "x" with A's root. A's superblock
 * is not shallower than B's connection: the ioctl fails ELOOP, the lookup
 * EIO, and nothing recurses.
 */
static int t_stack_loop(void)
{
	int ret = TAP_FAIL, rc, afd = -1;
	bool a_up = false;
	struct ts_ent *x;
	struct ts_env e;
	char a[128];

	rc = ts_setup(&e, NULL);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	snprintf(a, sizeof(a), "%s/a", e.dir);
	OK(mkdir(a, 0755));
	rc = mount_nodaemon(a, e.mnt, NULL);
	EXPECT(!rc, "A with root_dir = B's root: %s", strerror(-rc));
	a_up = true;
	afd = open(a, O_RDONLY | O_DIRECTORY);
	EXPECT(afd >= 0, "open A's root: %s", strerror(errno));
	x = ts_add_fd(&e, FUSE_ROOT_ID, "x", afd);
	EXPECT(ts_refused(x, at(e.mnt, "x"), ELOOP) == TAP_OK, "B/x backed by A's root");
	EXPECT(ts_still_good(&e) == TAP_OK);
	ret = TAP_OK;
out:
	if (afd >= 0)
		close(afd);
	/* On a kernel that took the loop, B/x pins A: drop it first. */
	drop_caches();
	if (a_up && unmount_extra(a))
		ret = TAP_FAIL;
	if (ts_teardown(&e))
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
	struct ts_env e;

	rc = ts_setup(&e, NULL);
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
	if (ts_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/* tmpfs (0) <- A (1) <- B (2) <- C: C's root_dir would make depth 3: ELOOP. */
static int t_stack_root_dir_eloop(void)
{
	int ret = TAP_FAIL, rc;
	char a[128], b[128], c[128];
	bool a_up = false, b_up = false;
	struct ts_env e;

	rc = ts_setup(&e, NULL);
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
	if (ts_teardown(&e))
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
	struct ts_env e, e2;
	struct ts_ent *ent;

	e2.dir[0] = 0;
	rc = ts_setup(&e, NULL);
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
	ent = ts_add_fd(&e, FUSE_ROOT_ID, "a", afd);
	EXPECT(ts_refused(ent, at(e.mnt, "a"), ELOOP) == TAP_OK, "depth-1 backing, depth-1 mount");
	EXPECT(ts_still_good(&e) == TAP_OK);
	/* The same from a stack_depth=2 mount */
	rc = ts_setup(&e2, "stack_depth=2");
	e2_up = true;
	EXPECT(!rc, "a served mount with stack_depth=2: %s", strerror(-rc));
	e2.sh->test_pid = getpid();
	ent = ts_add_fd(&e2, FUSE_ROOT_ID, "a", afd);
	EXPECT(read_file(at(e2.mnt, "a/sub/f"), buf, sizeof(buf)) == 7 && !strcmp(buf, "stacked"),
	       "reading through a depth-1 backing at depth 2: %s (reply: %s)", strerror(errno),
	       strerror(ent->last_err));
	ent = ts_add_fd(&e2, FUSE_ROOT_ID, "b", bfd);
	EXPECT(ts_refused(ent, at(e2.mnt, "b"), ELOOP) == TAP_OK, "depth-2 backing, depth-2 mount");
	ret = TAP_OK;
out:
	if (afd >= 0)
		close(afd);
	if (bfd >= 0)
		close(bfd);
	drop_caches();
	if (e2_up && ts_teardown(&e2))
		ret = TAP_FAIL;
	if (b_up && unmount_extra(b))
		ret = TAP_FAIL;
	if (a_up && unmount_extra(a))
		ret = TAP_FAIL;
	if (ts_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/* --- backing fd types ------------------------------------------------------------------ */

/*
 * A LOOKUP reply for name backed by fd (of this process) with attr.mode
 * mode: the ioctl must fail with want and the lookup with EIO (want 0: the
 * reply is taken and the lookup works).
 */
static int backing_is(struct ts_env *e, const char *name, int fd, uint32_t mode, int want)
{
	int ret = TAP_FAIL, rc;
	struct ts_ent *ent;
	struct stat st;

	ent = ts_add_fd(e, FUSE_ROOT_ID, name, fd);
	EXPECT(ent);
	ent->mode_set = true;
	ent->mode = mode;
	if (want) {
		EXPECT(ts_refused(ent, at(e->mnt, name), want) == TAP_OK, "%s (attr.mode %o)", name, mode);
	} else {
		errno = 0;
		rc = lstat(at(e->mnt, name), &st);
		ts_wait(ent, 1);
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
	struct ts_env e;

	EXPECT(fd >= 0, "making %s: %s", what, strerror(errno));
	rc = ts_setup(&e, NULL);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	EXPECT(backing_is(&e, what, fd, mode, EINVAL) == TAP_OK);
	EXPECT(ts_still_good(&e) == TAP_OK);
	ret = TAP_OK;
out:
	if (fd >= 0)
		close(fd);
	if (ts_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/* An eventfd (anon inode) with attr.mode 0: EINVAL (a kernel that takes it hits a BUG()). */
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
	return refused_fd(bpf_map_create(BPF_MAP_TYPE_ARRAY, "ts_map", 4, 4, 1, NULL), 0, "bpfmap");
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
	struct ts_env e;

	rc = ts_setup(&e, NULL);
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
	EXPECT(ts_still_good(&e) == TAP_OK);
	ret = TAP_OK;
out:
	if (fifo >= 0)
		close(fifo);
	if (chr >= 0)
		close(chr);
	if (sock >= 0)
		close(sock);
	if (ts_teardown(&e))
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
	struct ts_env e;

	fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	EXPECT(fd >= 0);
	rc = ts_setup(&e, "stack_depth=2");
	EXPECT(!rc, "setup: %s", strerror(-rc));
	EXPECT(backing_is(&e, "status", fd, S_IFREG | 0444, ELOOP) == TAP_OK);
	EXPECT(ts_still_good(&e) == TAP_OK);
	ret = TAP_OK;
out:
	if (fd >= 0)
		close(fd);
	if (ts_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/* attr.mode 0 is refused for a regular file, a directory and a symlink: EINVAL. */
static int t_type_mode0(void)
{
	int ret = TAP_FAIL, rc, f = -1, d = -1, l = -1;
	struct ts_env e;

	rc = ts_setup(&e, NULL);
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
	EXPECT(ts_still_good(&e) == TAP_OK);
	ret = TAP_OK;
out:
	if (f >= 0)
		close(f);
	if (d >= 0)
		close(d);
	if (l >= 0)
		close(l);
	if (ts_teardown(&e))
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
	struct ts_env e;
	char buf[16];

	rc = ts_setup(&e, NULL);
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
	if (ts_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/* --- who may: the privilege rule ------------------------------------------------------- */

/*
 * In the user namespace: a plain FUSE mount works (FS_USERNS_MOUNT); with
 * root_dir=, root_dir= and no_daemon, or root_bpf= it fails EPERM.
 */
static int userns_mounts(void *arg)
{
	int prog = *(int *)arg;
	int ret = TAP_FAIL, rc, dfd = -1;
	char opts[128];
	struct ts_env e;

	rc = ts_setup(&e, NULL);
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
	if (ts_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/* The mount options that set backings and filters need CAP_SYS_ADMIN in the initial namespace. */
static int t_priv_userns_mount(void)
{
	int ret = TAP_FAIL, prog = -1;

	if (access("/proc/self/ns/user", F_OK))
		SKIP("no /proc/self/ns/user: kernel without CONFIG_USER_NS");
	prog = load_prog(false);
	EXPECT(prog >= 0, "loading a fuse-bpf filter: %s", strerror(-prog));
	ret = in_child_userns(userns_mounts, &prog);
out:
	ts_filter_close(prog);
	return ret;
}

/*
 * A server in the user namespace answers LOOKUPs: a plain reply works, a
 * reply with a backing fd or a filter fails EPERM (the lookup EIO).
 */
static int userns_replies(void *arg)
{
	int prog = *(int *)arg;
	int ret = TAP_FAIL, rc;
	struct ts_ent *ent;
	struct ts_env e;
	struct stat st;

	rc = ts_setup(&e, NULL);
	EXPECT(!rc, "a plain FUSE mount in a user namespace: %s", strerror(-rc));
	OK(mkdir(at(e.back, "d"), 0755));
	ent = ts_add(&e, FUSE_ROOT_ID, "plain", NULL);
	ent->nodeid = 2;
	OK(stat(at(e.mnt, "plain"), &st));
	EXPECT(S_ISDIR(st.st_mode));
	ent = ts_add(&e, FUSE_ROOT_ID, "backed", at(e.back, "d"));
	EXPECT(ts_refused(ent, at(e.mnt, "backed"), EPERM) == TAP_OK, "a backing fd from the user namespace");
	ent = ts_add(&e, FUSE_ROOT_ID, "filtered", at(e.back, "d"));
	ent->bpf_fd = prog;
	EXPECT(ts_refused(ent, at(e.mnt, "filtered"), EPERM) == TAP_OK, "a backing and a filter");
	ret = TAP_OK;
out:
	if (ts_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/* Backing and filter entries in a reply need CAP_SYS_ADMIN in the initial namespace. */
static int t_priv_userns_reply(void)
{
	int ret = TAP_FAIL, prog = -1;

	if (access("/proc/self/ns/user", F_OK))
		SKIP("no /proc/self/ns/user: kernel without CONFIG_USER_NS");
	prog = load_prog(false);
	EXPECT(prog >= 0, "loading a fuse-bpf filter: %s", strerror(-prog));
	ret = in_child_userns(userns_replies, &prog);
out:
	ts_filter_close(prog);
	return ret;
}

/* The same replies and mount options from root in the initial namespaces work. */
static int t_priv_init_ns(void)
{
	int ret = TAP_FAIL, rc, prog = -1, dfd = -1;
	struct ts_ent *ent;
	char opts[128];
	struct ts_env e;
	struct stat st;

	prog = load_prog(false);
	EXPECT(prog >= 0, "loading a fuse-bpf filter: %s", strerror(-prog));
	rc = ts_setup(&e, NULL);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	OK(mkdir(at(e.back, "d"), 0755));
	ent = ts_add(&e, FUSE_ROOT_ID, "filtered", at(e.back, "d"));
	ent->bpf_fd = prog;
	OK(stat(at(e.mnt, "filtered"), &st));
	EXPECT(!ts_wait(ent, 1) && ent->last_err == 0, "reply: %s", strerror(ent->last_err));
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
	ts_filter_close(prog);
	if (ts_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/* --- inode numbers ---------------------------------------------------------------------- */

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
	struct ts_env e;

	rc = ts_setup(&e, NULL);
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
	ts_add(&e, FUSE_ROOT_ID, "one", at(e1, "tree"));
	ts_add(&e, FUSE_ROOT_ID, "two", at(e2, "tree"));
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
	if (ts_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/* --- who may: tasks other than the mounter -------------------------------------------- */

struct split_args {
	int fsfd;	/* a fuse fs_context from root's fsopen() */
	int dirfd;	/* a directory root opened */
	int prog;	/* a fuse-bpf filter (a fuse_ops map fd) */
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
 * CAP_SYS_ADMIN: EPERM (a check only at fill_super, in the creating task,
 * would let root's FSCONFIG_CMD_CREATE take them).
 * The directory was opened by root, so only the giver's check is at stake.
 * Control: root gives them on a fresh context, creates and mounts it.
 */
static int t_priv_fsconfig_split(void)
{
	struct split_args a = { .fsfd = -1, .dirfd = -1, .prog = -1 };
	int ret = TAP_FAIL, rc, fsfd = -1, mfd = -1;
	struct ts_env e;
	struct stat st;
	char num[16];

	rc = ts_setup(&e, NULL);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	EXPECT(write_file(at(e.back, "f"), "split", 5) == 0);
	a.prog = load_prog(false);
	EXPECT(a.prog >= 0, "loading a fuse-bpf filter: %s", strerror(-a.prog));
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
	ts_filter_close(a.prog);
	if (ts_teardown(&e))
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
	struct ts_env e;
	char m2[128];
	struct stat st;

	rc = ts_setup(&e, NULL);
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
	if (ts_teardown(&e))
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
	struct ts_ent *ent;
	struct ts_env e;
	struct stat st;

	if (access("/proc/self/ns/user", F_OK))
		SKIP("no /proc/self/ns/user: kernel without CONFIG_USER_NS");
	rc = ts_setup(&e, NULL);
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
	ent = ts_add_fd(&e, FUSE_ROOT_ID, "idmapped", tree);
	EXPECT(ent);
	EXPECT(ts_refused(ent, at(e.mnt, "idmapped"), EINVAL) == TAP_OK, "a backing on an idmapped mount");
	/* Control: not idmapped */
	plain = open(at(ext, "tree"), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	EXPECT(plain >= 0);
	rc = mount_nodaemon_fd(view, plain, NULL);
	EXPECT(!rc, "root_dir on the plain mount: %s", strerror(-rc));
	view_up = true;
	EXPECT(read_file(at(view, "a"), buf, sizeof(buf)) == 2 && !strcmp(buf, "a\n"),
	       "view/a: %s", strerror(errno));
	ent = ts_add_fd(&e, FUSE_ROOT_ID, "plain", plain);
	EXPECT(ent);
	EXPECT(read_file(at(e.mnt, "plain/a"), buf, sizeof(buf)) == 2 && !strcmp(buf, "a\n"),
	       "plain/a: %s (reply: %s)", strerror(errno), strerror(ent->last_err));
	ret = TAP_OK;
out:
	if (view_up && unmount_extra(view))
		ret = TAP_FAIL;
	/* The served mount holds the ext4 backing: it goes first. */
	ts_stop_fuse(&e);
	if (tree >= 0)
		close(tree);
	if (plain >= 0)
		close(plain);
	if (ns >= 0)
		close(ns);
	if (ext_up && unmount_extra(ext))
		ret = TAP_FAIL;
	if (ts_teardown(&e))
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

/*
 * Try the real umount at once: on a kernel whose backed inodes do not pin
 * the backing mount, its use-after-free (an oops; KASAN on the debug kernel).
 */
static bool umount_uaf_wanted(void)
{
	const char *v = getenv("TEST_BACKING_UMOUNT_UAF");

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
 * kernel did not find busy inodes at any umount. A kernel without the pin
 * lets the umount through ("VFS: Busy inodes after unmount") and the
 * watch's close then does iput() on a freed super block: so
 * umount2(MNT_EXPIRE) asks first (EBUSY, or EAGAIN without unmounting), and
 * the real umount is tried only when it said busy
 * (TEST_BACKING_UMOUNT_UAF=1 tries it anyway).
 */
static int t_backing_umount_under_watch(void)
{
	int ret = TAP_FAIL, rc, in = -1;
	bool other_up = false;
	struct ts_ent *ent;
	struct stat st;
	struct ts_env e;
	char other[128];

	rc = ts_setup(&e, NULL);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	snprintf(other, sizeof(other), "%s/other", e.dir);
	OK(mkdir(other, 0755));
	OK(mount("tmpfs", other, "tmpfs", 0, "mode=0755,size=16m"));
	other_up = true;
	OK(mkdir(at(other, "d"), 0755));
	EXPECT(write_file(at(other, "d/f"), "f\n", 2) == 0);
	ent = ts_add(&e, FUSE_ROOT_ID, "d", at(other, "d"));
	EXPECT(ent);
	ent->nodeid = 5;
	OK(stat(at(e.mnt, "d/f"), &st));
	EXPECT(S_ISREG(st.st_mode) && st.st_size == 2, "view/d/f: mode %o size %lld", st.st_mode,
	       (long long)st.st_size);
	EXPECT(!ts_wait(ent, 1) && ent->last_err == 0, "d's backing reply: %s", strerror(ent->last_err));
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
	       rc && errno == EAGAIN ? " (MNT_EXPIRE: not busy; not unmounted: a real umount would"
				       " free the super block under the watched inode)" : "");
	ERR(umount2(other, 0), EBUSY);
	EXPECT(watch_held(in), "the watch is gone from the inotify fd's fdinfo");
	OK(close(in));
	in = -1;
	ts_stop_fuse(&e);
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
	ts_stop_fuse(&e);
	if (other_up && unmount_extra(other))
		ret = TAP_FAIL;
	if (ts_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/* --- the cases ------------------------------------------------------------ */

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
CASE(priv_fsconfig_split)
CASE(priv_root_dir_opener)
CASE(idmapped_backing_refused)
CASE(ino_two_ext4)
CASE(backing_umount_under_watch)

static const struct tap_case cases[] = {
	{ "stack_loop", c_stack_loop },
	{ "stack_depth_option", c_stack_depth_option },
	{ "stack_root_dir_eloop", c_stack_root_dir_eloop },
	{ "stack_backing_depth", c_stack_backing_depth },
	{ "type_eventfd", c_type_eventfd },
	{ "type_timerfd", c_type_timerfd },
	{ "type_bpf_map", c_type_bpf_map },
	{ "type_pipe", c_type_pipe },
	{ "type_socket", c_type_socket },
	{ "type_special_nodes", c_type_special_nodes },
	{ "type_proc_status", c_type_proc_status },
	{ "type_mode0", c_type_mode0 },
	{ "type_mode_mismatch", c_type_mode_mismatch },
	{ "priv_init_ns", c_priv_init_ns },
	{ "priv_userns_mount", c_priv_userns_mount },
	{ "priv_userns_reply", c_priv_userns_reply },
	{ "priv_fsconfig_split", c_priv_fsconfig_split },
	{ "priv_root_dir_opener", c_priv_root_dir_opener },
	{ "idmapped_backing_refused", c_idmapped_backing_refused },
	{ "ino_two_ext4", c_ino_two_ext4 },
	{ "backing_umount_under_watch", c_backing_umount_under_watch },
};

TAP_MAIN("backing", cases)
