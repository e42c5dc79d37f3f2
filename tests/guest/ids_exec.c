// SPDX-License-Identifier: GPL-2.0
/*
 * Owners, modes and set-id bits changed in the backing tree behind a view:
 * exec, protected_hardlinks and protected_symlinks must see them through
 * the view as they do on the backing (the VFS reads them from the FUSE
 * inode, not the backing's), also when an async write cleared the setuid
 * bit, while another CPU changes them, and for a directory that a walk
 * holds locked. Each case mounts its own filtered view and a view of the
 * same root without a filter (tests/guest/hfilter_view.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fusebpf_uapi.h"
#include "hfilter_view.h"
#include "tap.h"
#include "tfuse.h"
#include "tproc.h"

/* --- the backing tree changed behind the view ---------------------------------------- */

/*
 * The VFS reads some attributes of the FUSE inode itself, not the backing's:
 * exec the set-id bits and owner (bprm_fill_uid()), protected_hardlinks and
 * protected_symlinks the owners (may_linkat(), may_follow_link()). A change
 * made directly in the backing tree after the lookup must hold through the
 * view as it holds natively: each case runs the native control first, and
 * checks the filtered view and a view without a filter (no_daemon, of the
 * same root) alike.
 */

#define USER_A 65534
#define USER_B 65533
#define USER_C 65532
#define VIEWS 3

/* Set the sysctl file path to val, its old value in old (cap bytes); 0 or -errno. */
static int sysctl_set(const char *path, const char *val, char *old, size_t cap)
{
	long r = read_file(path, old, cap);

	if (r < 0)
		return r;
	return write_file(path, val, strlen(val));
}

/* A view without a filter at E.dir/@name of @of (unmounted by hf_teardown()) */
static int mount_plain_view(const char *name, const char *of, char *out, size_t len)
{
	char opts[96];
	int dirfd, fd;

	snprintf(out, len, "%s/%s", E.dir, name);
	if (mkdir(out, 0755))
		return -errno;
	dirfd = open(of, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return -errno;
	snprintf(opts, sizeof(opts), "root_dir=%d,allow_other,no_daemon", dirfd);
	fd = tfuse_mount(out, opts);
	close(dirfd);
	if (fd < 0)
		return fd;
	close(fd);
	push_mount(out);
	return 0;
}

/*
 * The filtered view (hf_mount(false)), one without a filter of the same
 * tree, and one without a filter of the filtered view (two copies of mode
 * and owner to refresh).
 */
static int mount_views(const char *views[VIEWS])
{
	static char plain[128], stacked[128];
	int rc;

	rc = hf_mount(false);
	if (!rc)
		rc = mount_plain_view("plain", E.root, plain, sizeof(plain));
	if (!rc)
		rc = mount_plain_view("stacked", E.mnt, stacked, sizeof(stacked));
	views[0] = E.mnt;
	views[1] = plain;
	views[2] = stacked;
	return rc;
}

static const char *view_name(int v)
{
	static const char *const name[VIEWS] = { "the filtered view", "the view without a filter",
						 "a view of the filtered view" };

	return name[v];
}

/* What a run of argv[0] -u as uid printed (id -u: the effective uid), or why not. */
static const char *euid_of(char *const argv[], uid_t uid)
{
	static char out[4][64];
	static int n;
	char *p = out[n++ % 4];
	int rc;

	/* A writer's io_uring may drop its file a little after the write */
	for (int i = 0; i < 100; i++) {
		rc = try_exec(argv, uid, p, sizeof(out[0]));
		if (rc != -ETXTBSY)
			break;
		usleep(20000);
	}
	if (rc < 0)
		snprintf(p, sizeof(out[0]), "<execve: %s>", strerror(-rc));
	else if (rc)
		snprintf(p, sizeof(out[0]), "<exit %d>", rc);
	else
		p[strcspn(p, "\n")] = 0;
	return p;
}

/* The euid of dir/name -u run as uid. */
static const char *euid_at(const char *dir, const char *name, uid_t uid)
{
	char *argv[] = { (char *)at(dir, name), "-u", NULL };

	return euid_of(argv, uid);
}

/* A setuid-root copy of id at B(name), mode mode (S_ISUID included). */
static int setuid_id(const char *name, mode_t mode)
{
	return run("cp /usr/bin/id %s && chown root:root %s && chmod %o %s", B(name), B(name), mode,
		   B(name));
}

/*
 * A setuid-root program looked up through the view (it runs setuid there),
 * then chmod u-s directly in the backing tree: run as nobody, directly and
 * through the view, its euid is nobody's.
 */
static int t_exec_setuid_removed_behind(void)
{
	const char *euid, *views[VIEWS];
	int ret = TAP_FAIL, v, bad = 0;
	struct stat st;

	SETUP(HF_TMPFS, NULL);
	EXPECT(setuid_id("id", 04755) == 0);
	EXPECT(mount_views(views) == 0);
	for (v = 0; v < VIEWS; v++) {
		OK(stat(at(views[v], "id"), &st));
		EXPECT(st.st_mode & S_ISUID, "%s: id has mode %o, not setuid", view_name(v), st.st_mode);
		euid = euid_at(views[v], "id", USER_A);
		EXPECT(!strcmp(euid, "0"), "the control: setuid through %s gives euid %s, not 0",
		       view_name(v), euid);
	}
	OK(chmod(B("id"), 0755));
	euid = euid_at(E.back, "id", USER_A);
	EXPECT(!strcmp(euid, "65534"), "the control: directly, after chmod u-s: euid %s", euid);
	for (v = 0; v < VIEWS; v++) {
		euid = euid_at(views[v], "id", USER_A);
		if (strcmp(euid, "65534") && ++bad)
			printf("through %s, after chmod u-s in the backing: euid %s, expected 65534\n",
			       view_name(v), euid);
	}
	EXPECT(!bad, "%d of %d views ran it setuid", bad, VIEWS);
	ret = TAP_OK;
out:
	hf_teardown();
	return ret;
}

/*
 * Until killed: chown to USER_B (which takes the setuid bit away), chown
 * back to root, chmod u+s, and stat through each view so that lookups and
 * getattrs refresh the FUSE inode meanwhile.
 */
static void owner_churn(const char *const views[VIEWS])
{
	struct stat st;

	for (;;) {
		if (chown(B("id"), USER_B, -1) || chown(B("id"), 0, -1) || chmod(B("id"), 04755))
			_exit(2);
		for (int v = 0; v < VIEWS; v++)
			stat(at(views[v], "id"), &st);
	}
}

#define RACE_RUNS 40

/*
 * exec reads the set-id bits and the owner together, under the inode lock:
 * never the setuid bit of one state of the file with the owner of another.
 * One CPU moves a setuid-root program through (04755 root) -> (0755 B) ->
 * (0755 root) -> (04755 root), directly in the backing tree, while the
 * other runs it RACE_RUNS times through the views as A: its euid is root's
 * or A's, never B's (the setuid bit of the first state with the owner of
 * the second). Two CPUs; a race: a pass says little (a kernel that reads
 * a stale but whole state passes too: the case guards the rule that the
 * refresh of the ids and exec's reading of them take the inode lock).
 */
static int t_exec_setid_owner_race(void)
{
	char want_b[16], *argv[] = { NULL, "-u", NULL };
	const char *euid, *views[VIEWS];
	int ret = TAP_FAIL, st, bad = 0, runs, v;
	pid_t churn = -1;

	EXPECT(sysconf(_SC_NPROCESSORS_ONLN) >= 2, "a race of two CPUs; the guest has %ld",
	       sysconf(_SC_NPROCESSORS_ONLN));
	SETUP(HF_TMPFS, NULL);
	EXPECT(setuid_id("id", 04755) == 0);
	EXPECT(mount_views(views) == 0);
	snprintf(want_b, sizeof(want_b), "%d", USER_B);
	churn = fork();
	EXPECT(churn >= 0, "fork: %s", strerror(errno));
	if (churn == 0)
		owner_churn(views);
	for (runs = 1; runs <= RACE_RUNS; runs++) {
		v = runs % VIEWS;
		argv[0] = (char *)at(views[v], "id");
		euid = euid_of(argv, USER_A);
		if (strcmp(euid, "0") && strcmp(euid, "65534") && ++bad <= 5)
			printf("# run %d through %s: euid %s%s\n", runs, view_name(v), euid,
			       strcmp(euid, want_b) ? "" : " (B's: a torn mode and owner)");
	}
	EXPECT(waitpid(churn, &st, WNOHANG) == 0, "the backing's chown/chmod loop ended: status %#x",
	       st);
	printf("# %d runs, %d with an euid of neither state\n", RACE_RUNS, bad);
	EXPECT(!bad, "%d of %d runs got an euid no state of the file gives", bad, RACE_RUNS);
	ret = TAP_OK;
out:
	if (churn > 0) {
		kill(churn, SIGKILL);
		waitpid(churn, &st, 0);
	}
	hf_teardown();
	return ret;
}

/* renameat(dfd, from, tfd, to) in a child, given secs: its errno, or -1 if it hung. */
static int renameat_within(int dfd, const char *from, int tfd, const char *to, int secs)
{
	int st = 0;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -2;
	if (pid == 0)
		_exit(renameat(dfd, from, tfd, to) ? errno : 0);
	for (int i = 0; i < secs * 10; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : -2;
		usleep(100000);
	}
	return -1;
}

/*
 * A directory's mode and owner changed behind the view are refreshed by a
 * walk through it without its inode lock: the walk may hold it. A rename
 * of a/b to a/b/c, given b as a directory fd (no walk through b first),
 * holds a's and b's locks and then revalidates b; an open(O_CREAT) of b
 * holds a's and revalidates b. A refresh that locked b there would
 * deadlock the rename on itself, and lockdep would report the open's
 * recursive locking.
 */
static int t_dir_ids_changed_behind_walk(void)
{
	int ret = TAP_FAIL, v, rc, afd = -1, bfd = -1;
	const char *views[VIEWS];
	char a[16], b[64];
	struct stat st;

	SETUP(HF_TMPFS, NULL);
	EXPECT(mount_views(views) == 0);
	for (v = 0; v < VIEWS; v++) {
		snprintf(a, sizeof(a), "a%d", v);
		snprintf(b, sizeof(b), "a%d/b", v);
		EXPECT(run("mkdir -p %s", B(b)) == 0);
		OK(stat(at(views[v], b), &st));
		OK(chmod(B(b), 0700));
		ERR(open(at(views[v], b), O_CREAT | O_RDONLY | O_CLOEXEC, 0644), EISDIR);
		afd = open(at(views[v], a), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		bfd = open(at(views[v], b), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		EXPECT(afd >= 0 && bfd >= 0, "open %s and %s through %s: %s", a, b, view_name(v),
		       strerror(errno));
		OK(chmod(B(b), 0750));
		rc = renameat_within(afd, "b", bfd, "c", 20);
		EXPECT(rc != -1, "rename(%s, %s/c) through %s hung", b, b, view_name(v));
		EXPECT(rc == EINVAL, "rename(%s, %s/c) through %s: %s, expected EINVAL", b, b,
		       view_name(v), rc > 0 ? strerror(rc) : "no error");
		close(afd);
		close(bfd);
		afd = bfd = -1;
		OK(stat(at(views[v], b), &st));
		EXPECT((st.st_mode & 07777) == 0750, "%s through %s: mode %o", b, view_name(v),
		       st.st_mode & 07777);
	}
	ret = TAP_OK;
out:
	if (afd >= 0)
		close(afd);
	if (bfd >= 0)
		close(bfd);
	hf_teardown();
	return ret;
}

struct rewrite {
	const char *path;
	char buf[IO_LEN];	/* the file's first IO_LEN bytes, written back */
};

/* As the caller: one io_uring write of r->buf over the start of r->path. */
static int uring_rewrite(void *p)
{
	struct rewrite *r = p;
	int ret = TAP_FAIL, fd = -1, rc;
	struct io_uring ring;
	bool ring_up = false;

	fd = open(r->path, O_WRONLY | O_CLOEXEC);
	EXPECT(fd >= 0, "open %s for writing: %s", r->path, strerror(errno));
	rc = io_uring_queue_init(4, &ring, 0);
	EXPECT(rc == 0, "io_uring_queue_init: %s", strerror(-rc));
	ring_up = true;
	rc = uring_one(&ring, fd, true, r->buf, 0);
	EXPECT(rc == IO_LEN, "io_uring write: %d%s%s", rc, rc < 0 ? " " : "", rc < 0 ? strerror(-rc) : "");
	ret = TAP_OK;
out:
	if (ring_up)
		io_uring_queue_exit(&ring);
	if (fd >= 0)
		close(fd);
	return ret;
}

/*
 * A setuid-root program that anyone may write (04777), looked up through
 * the view, rewritten through the view by nobody with io_uring (the same
 * bytes, so that it still runs): the backing file system's write took the
 * setuid bit away (file_remove_privs()); another user running it through
 * the view gets his own euid, not root's. (A sync write() copies the
 * backing's attributes to the FUSE inode afterwards; an async one only
 * marks them stale, and exec reads i_mode as it is.) One file per view:
 * id0 written and run through the filtered view, id1 through the other.
 */
static int t_exec_setuid_after_async_write(void)
{
	static const char *const name[VIEWS] = { "id0", "id1", "id2" };
	const char *euid, *views[VIEWS];
	struct rewrite *r = NULL;
	int ret = TAP_FAIL, v, fd, bad = 0;
	struct stat st;
	ssize_t n;

	SETUP(HF_TMPFS, NULL);
	r = calloc(1, sizeof(*r));
	EXPECT(r);
	for (v = 0; v < VIEWS; v++)
		EXPECT(setuid_id(name[v], 04777) == 0);
	fd = open(B("id0"), O_RDONLY | O_CLOEXEC);
	EXPECT(fd >= 0, "open id0: %s", strerror(errno));
	n = pread(fd, r->buf, IO_LEN, 0);
	close(fd);
	EXPECT(n == IO_LEN, "reading id0: %zd", n);
	EXPECT(mount_views(views) == 0);
	for (v = 0; v < VIEWS; v++) {
		euid = euid_at(views[v], name[v], USER_B);
		EXPECT(!strcmp(euid, "0"), "the control: setuid through %s gives euid %s, not 0",
		       view_name(v), euid);
	}
	for (v = 0; v < VIEWS; v++) {
		r->path = at(views[v], name[v]);
		EXPECT(in_child_as(USER_A, uring_rewrite, r) == TAP_OK, "nobody's io_uring write through %s",
		       view_name(v));
		OK(stat(B(name[v]), &st));
		EXPECT(!(st.st_mode & S_ISUID), "the control: the backing %s kept its setuid bit (mode %o)",
		       name[v], st.st_mode);
	}
	euid = euid_at(E.back, "id0", USER_B);
	EXPECT(!strcmp(euid, "65533"), "the control: directly: euid %s", euid);
	for (v = 0; v < VIEWS; v++) {
		euid = euid_at(views[v], name[v], USER_B);
		if (strcmp(euid, "65533") && ++bad)
			printf("through %s, after nobody's io_uring write there: euid %s, expected 65533\n",
			       view_name(v), euid);
	}
	EXPECT(!bad, "%d of %d views ran it setuid", bad, VIEWS);
	ret = TAP_OK;
out:
	free(r);
	hf_teardown();
	return ret;
}

/* As the caller: link(a[0], a[1]) fails EPERM. */
static int link_eperm(void *p)
{
	const char *const *a = p;
	int ret = TAP_FAIL;

	ERR(link(a[0], a[1]), EPERM);
	ret = TAP_OK;
out:
	return ret;
}

/*
 * protected_hardlinks: user A's file, looked up through the view, then
 * chowned to root and made 0600 directly in the backing tree. A may not
 * link it (EPERM), directly or through the view, where the FUSE inode's
 * owner is still A.
 */
static int t_link_after_chown_behind(void)
{
	const char *views[VIEWS], *paths[2];
	int ret = TAP_FAIL, rc, v, bad = 0;
	char old[16] = "";
	struct stat st;

	SETUP(HF_TMPFS, NULL);
	rc = sysctl_set("/proc/sys/fs/protected_hardlinks", "1", old, sizeof(old));
	EXPECT(!rc, "fs.protected_hardlinks: %s", strerror(-rc));
	OK(mkdir(B("d"), 0777));
	OK(chmod(B("d"), 0777));
	EXPECT(write_file(B("d/f"), "f\n", 2) == 0);
	OK(chown(B("d/f"), USER_A, USER_A));
	EXPECT(mount_views(views) == 0);
	for (v = 0; v < VIEWS; v++) {
		OK(stat(at(views[v], "d/f"), &st));
		EXPECT(st.st_uid == USER_A, "%s: d/f has uid %u", view_name(v), st.st_uid);
	}
	OK(chown(B("d/f"), 0, 0));
	OK(chmod(B("d/f"), 0600));
	paths[0] = B("d/f");
	paths[1] = B("d/direct");
	EXPECT(in_child_as(USER_A, link_eperm, paths) == TAP_OK,
	       "the control: A links root's 0600 file directly");
	for (v = 0; v < VIEWS; v++) {
		char linked[16];

		snprintf(linked, sizeof(linked), "d/linked%d", v);
		paths[0] = at(views[v], "d/f");
		paths[1] = at(views[v], linked);
		if (in_child_as(USER_A, link_eperm, paths) != TAP_OK && ++bad)
			printf("A linked root's 0600 file through %s\n", view_name(v));
	}
	EXPECT(!bad, "%d of %d views let A link it", bad, VIEWS);
	ret = TAP_OK;
out:
	if (old[0])
		write_file("/proc/sys/fs/protected_hardlinks", old, strlen(old));
	hf_teardown();
	return ret;
}

/*
 * B's setuid program given to root and back, directly in the backing tree,
 * the view's inodes dropped each round so that each exec may find a new
 * one: a chown clears the set-id bits after it stored the new owner, and a
 * copy of both read between the two would be root's owner with B's bits.
 */
static void chown_to_root_churn(void)
{
	for (;;) {
		if (chown(B("id"), 0, -1) || chown(B("id"), USER_B, -1) || chmod(B("id"), 04755))
			_exit(2);
		write_file("/proc/sys/vm/drop_caches", "2", 1);
	}
}

/* A runs B's setuid program while it goes to root and back: euid B or A, never 0 */
static int t_exec_setuid_chown_to_root_race(void)
{
	char *argv[] = { NULL, "-u", NULL };
	const char *euid, *views[VIEWS];
	int ret = TAP_FAIL, st, bad = 0, runs;
	pid_t churn = -1;

	EXPECT(sysconf(_SC_NPROCESSORS_ONLN) >= 2, "a race of two CPUs; the guest has %ld",
	       sysconf(_SC_NPROCESSORS_ONLN));
	SETUP(HF_TMPFS, NULL);
	EXPECT(setuid_id("id", 04755) == 0);
	OK(chown(B("id"), USER_B, -1));
	OK(chmod(B("id"), 04755));
	EXPECT(mount_views(views) == 0);
	churn = fork();
	EXPECT(churn >= 0, "fork: %s", strerror(errno));
	if (churn == 0)
		chown_to_root_churn();
	for (runs = 1; runs <= RACE_RUNS; runs++) {
		argv[0] = (char *)at(views[runs % VIEWS], "id");
		euid = euid_of(argv, USER_A);
		if (!strcmp(euid, "0") && ++bad <= 5)
			printf("# run %d through %s: euid 0\n", runs, view_name(runs % VIEWS));
	}
	EXPECT(waitpid(churn, &st, WNOHANG) == 0, "the backing's chown loop ended: status %#x", st);
	EXPECT(!bad, "%d of %d runs got root's euid from B's program", bad, RACE_RUNS);
	ret = TAP_OK;
out:
	if (churn > 0) {
		kill(churn, SIGKILL);
		waitpid(churn, &st, 0);
	}
	hf_teardown();
	return ret;
}

/*
 * As user A, in a child: open @file, wait for the parent to change it,
 * then link it by its /proc/self/fd link (no walk through its name
 * revalidates it) to @linked. 0 when that fails EPERM.
 */
static int link_fd_after_change(const char *file, const char *linked, const char *back)
{
	int rdy[2], go[2], status, fd;
	char proc[64], c = 0;
	pid_t pid;

	if (pipe(rdy) || pipe(go))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		if (setresgid(USER_A, USER_A, USER_A) || setresuid(USER_A, USER_A, USER_A))
			_exit(2);
		fd = open(file, O_RDONLY);
		if (fd < 0 || write(rdy[1], &c, 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(3);
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		if (!linkat(AT_FDCWD, proc, AT_FDCWD, linked, AT_SYMLINK_FOLLOW))
			_exit(1);
		_exit(errno == EPERM ? 0 : 4);
	}
	if (read(rdy[0], &c, 1) != 1 || chown(back, 0, 0) || chmod(back, 0600) ||
	    write(go[1], &c, 1) != 1)
		kill(pid, SIGKILL);
	close(rdy[0]);
	close(rdy[1]);
	close(go[0]);
	close(go[1]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/*
 * The same through a file A holds open: a link by its /proc/self/fd link
 * walks no name, and may_linkat() reads the owner on the FUSE inode.
 */
static int t_link_fd_after_chown_behind(void)
{
	const char *views[VIEWS];
	int ret = TAP_FAIL, rc, v, bad = 0;
	char old[16] = "";

	SETUP(HF_TMPFS, NULL);
	rc = sysctl_set("/proc/sys/fs/protected_hardlinks", "1", old, sizeof(old));
	EXPECT(!rc, "fs.protected_hardlinks: %s", strerror(-rc));
	OK(mkdir(B("d"), 0777));
	OK(chmod(B("d"), 0777));
	EXPECT(mount_views(views) == 0);
	for (v = 0; v < VIEWS; v++) {
		char name[16], linked[16];

		snprintf(name, sizeof(name), "d/g%d", v);
		snprintf(linked, sizeof(linked), "d/fdlink%d", v);
		EXPECT(write_file(B(name), "g\n", 2) == 0);
		OK(chown(B(name), USER_A, USER_A));
		rc = link_fd_after_change(at(views[v], name), at(views[v], linked), B(name));
		if (rc && ++bad)
			printf("through %s: %s\n", view_name(v),
			       rc == 1 ? "A linked root's 0600 file" : "the child failed");
	}
	EXPECT(!bad, "%d of %d views let A link it", bad, VIEWS);
	ret = TAP_OK;
out:
	if (old[0])
		write_file("/proc/sys/fs/protected_hardlinks", old, strlen(old));
	hf_teardown();
	return ret;
}

/* As the caller: opening (following) the symlink p fails EACCES. */
static int follow_eacces(void *p)
{
	int ret = TAP_FAIL;

	ERR(open(p, O_RDONLY | O_CLOEXEC), EACCES);
	ret = TAP_OK;
out:
	return ret;
}

/*
 * protected_symlinks: in A's sticky world-writable directory, A's symlink
 * (which anyone may follow: its owner owns the directory), looked up
 * through the view, then lchowned to B directly in the backing tree. C
 * may not follow it (EACCES), directly or through the view, where the
 * FUSE inode's owner is still A.
 */
static int t_symlink_follow_after_chown_behind(void)
{
	int ret = TAP_FAIL, rc, v, bad = 0;
	const char *views[VIEWS];
	char old[16] = "";
	struct stat st;

	SETUP(HF_TMPFS, NULL);
	rc = sysctl_set("/proc/sys/fs/protected_symlinks", "1", old, sizeof(old));
	EXPECT(!rc, "fs.protected_symlinks: %s", strerror(-rc));
	EXPECT(write_file(B("target"), "target\n", 7) == 0);
	OK(mkdir(B("t"), 01777));
	OK(chmod(B("t"), 01777));
	OK(chown(B("t"), USER_A, USER_A));
	OK(symlink("../target", B("t/l")));
	OK(lchown(B("t/l"), USER_A, USER_A));
	EXPECT(mount_views(views) == 0);
	for (v = 0; v < VIEWS; v++) {
		OK(lstat(at(views[v], "t/l"), &st));
		EXPECT(S_ISLNK(st.st_mode) && st.st_uid == USER_A, "%s: t/l has mode %o uid %u",
		       view_name(v), st.st_mode, st.st_uid);
	}
	OK(lchown(B("t/l"), USER_B, USER_B));
	EXPECT(in_child_as(USER_C, follow_eacces, (void *)B("t/l")) == TAP_OK,
	       "the control: C follows B's link in A's sticky directory directly");
	for (v = 0; v < VIEWS; v++)
		if (in_child_as(USER_C, follow_eacces, (void *)at(views[v], "t/l")) != TAP_OK && ++bad)
			printf("C followed B's link in A's sticky directory through %s\n", view_name(v));
	EXPECT(!bad, "%d of %d views let C follow it", bad, VIEWS);
	ret = TAP_OK;
out:
	if (old[0])
		write_file("/proc/sys/fs/protected_symlinks", old, strlen(old));
	hf_teardown();
	return ret;
}

static const struct tap_case cases[] = {
	{ "exec_setuid_removed_behind", t_exec_setuid_removed_behind },
	{ "exec_setuid_after_async_write", t_exec_setuid_after_async_write },
	{ "exec_setid_owner_race", t_exec_setid_owner_race },
	{ "exec_setuid_chown_to_root_race", t_exec_setuid_chown_to_root_race },
	{ "dir_ids_changed_behind_walk", t_dir_ids_changed_behind_walk },
	{ "link_after_chown_behind", t_link_after_chown_behind },
	{ "link_fd_after_chown_behind", t_link_fd_after_chown_behind },
	{ "symlink_follow_after_chown_behind", t_symlink_follow_after_chown_behind },
};

TAP_MAIN("ids_exec", cases)
