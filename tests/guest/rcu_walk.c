// SPDX-License-Identifier: GPL-2.0
/*
 * Path walks through a filtered view and the revalidation of its names:
 * a warm walk stays in RCU walk and runs no filter there, revalidation in
 * RCU walk stores nothing, and a name whose verdict depends on the caller
 * (the filter shows it to one uid only) is never served from the dentry
 * cache to another user: the LOOKUP filters are asked again, however the
 * name got into the cache, and an expired name keeps what is mounted on
 * it. Every case mounts its own view (tests/guest/hfilter_view.c).
 */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fusebpf_uapi.h"
#include "hfilter_view.h"
#include "tap.h"
#include "tfuse.h"
#include "tproc.h"

/* --- walks through a filtered view stay in RCU walk ------------------------------ */

#define KPROBE_EVENTS "/sys/kernel/tracing/kprobe_events"
#define LOOKUP_RCU 0x40
/* Names longer than a dentry's inline name: their copies are allocated and freed */
#define LONG_NAME	"a-name-longer-than-the-inline-32-bytes-of-a-dentry"

static int write_str(const char *path, const char *s, int flags)
{
	int fd = open(path, O_WRONLY | flags), rc = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) < 0)
		rc = -errno;
	close(fd);
	return rc;
}

/* fuse_revalidate_backing() calls traced: how many in RCU walk, how many not. */
static int count_revalidations(long *rcu, long *ref)
{
	FILE *f = fopen("/sys/kernel/tracing/trace", "r");
	char line[512];
	unsigned int flags;
	char *p;

	if (!f)
		return -errno;
	*rcu = *ref = 0;
	while (fgets(line, sizeof(line), f)) {
		p = strstr(line, "hf_reval:");
		if (!p || !(p = strstr(p, "flags=")) || sscanf(p, "flags=0x%x", &flags) != 1)
			continue;
		if (flags & LOOKUP_RCU)
			(*rcu)++;
		else
			(*ref)++;
	}
	fclose(f);
	return 0;
}

/* A kprobe event @name on @func, enabled; -ENOENT when the kernel has none. */
static int kprobe_add(const char *name, const char *func)
{
	char def[128], path[160];

	snprintf(path, sizeof(path), "/sys/kernel/tracing/events/kprobes/%s/enable", name);
	write_str(path, "0", 0);
	snprintf(def, sizeof(def), "-:%s", name);
	write_str(KPROBE_EVENTS, def, O_APPEND);
	snprintf(def, sizeof(def), "p:%s %s", name, func);
	if (write_str(KPROBE_EVENTS, def, O_APPEND))
		return -ENOENT;
	return write_str(path, "1", 0);
}

static void kprobe_off(const char *name)
{
	char path[160];

	snprintf(path, sizeof(path), "/sys/kernel/tracing/events/kprobes/%s/enable", name);
	write_str(path, "0", 0);
}

/* Disabled and removed (which also empties the trace). */
static void kprobe_del(const char *name)
{
	char def[128];

	kprobe_off(name);
	snprintf(def, sizeof(def), "-:%s", name);
	write_str(KPROBE_EVENTS, def, O_APPEND);
}

/*
 * Trace fuse_revalidate_backing() (event hf_reval, its flags) from here on,
 * the trace emptied: 0, -ENOENT when the kernel has no kprobe events, or
 * another -errno.
 */
static int reval_trace_start(void)
{
	int rc = kprobe_add("hf_reval", "fuse_revalidate_backing flags=%si:x32");

	return rc ?: write_str("/sys/kernel/tracing/trace", "", O_TRUNC);
}

/* Revalidations traced by one fstatat(): how many in RCU walk, how many not. */
static int traced_stat(int dirfd, const char *path, long *rcu, long *ref)
{
	struct stat st;
	int rc = write_str("/sys/kernel/tracing/trace", "", O_TRUNC);

	if (rc)
		return rc;
	if (fstatat(dirfd, path, &st, 0))
		return -errno;
	return count_revalidations(rcu, ref);
}

static double since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

/*
 * A view of a/b/c/file (5 bytes), unserved; returns a directory fd on its
 * root (walks from it stay in RCU walk: an absolute path would leave it at
 * the guest's 9p root), or -errno.
 */
static int abc_view(void)
{
	int fd;

	if (run("mkdir -p %s/a/b/c && printf 12345 > %s/a/b/c/file", E.back, E.back) ||
	    hf_mount(false))
		return -EIO;
	fd = open(E.mnt, O_RDONLY | O_DIRECTORY);
	return fd < 0 ? -errno : fd;
}

/* How long RCU walk trusts a backing seq that ref walk recorded (FUSE_BACKING_SEQ_TTL) */
#define SEQ_TTL_SECONDS 10

/*
 * A warm stat() and open() of a/b/c/file in a filtered view: every backed
 * component is revalidated in RCU walk, never in ref walk, and no ACCESS
 * prefilter runs for the walk or an open (FUSE sends ACCESS for access(2)
 * and chdir(2) only); access(2) and chdir(2) still run it.
 */
static int t_walk_stays_rcu(void)
{
	int ret = TAP_FAIL, fd, cwd = -1, mfd = -1, rc;
	long rcu = -1, ref = -1, access0, expiries;
	struct timespec t0;
	struct stat st;
	char buf[8];

	SETUP(HF_TMPFS, NULL);
	mfd = abc_view();
	EXPECT(mfd >= 0, "the view of a/b/c/file: %s", strerror(-mfd));
	/* Looked up, then revalidated once in ref walk (which records d_seq) */
	for (int i = 0; i < 2; i++)
		EXPECT(fstatat(mfd, "a/b/c/file", &st, 0) == 0, "stat: %s", strerror(errno));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = reval_trace_start();
	if (rc == -ENOENT)
		SKIP("no kprobe events in this kernel");
	EXPECT(rc == 0, "enabling the kprobe: %s", strerror(-rc));
	access0 = NOTE(NOTE_ACCESS);
	for (int i = 0; i < 50; i++) {
		EXPECT(fstatat(mfd, "a/b/c/file", &st, 0) == 0 && st.st_size == 5);
		fd = openat(mfd, "a/b/c/file", O_RDONLY);
		EXPECT(fd >= 0 && read(fd, buf, sizeof(buf)) == 5, "open/read: %s", strerror(errno));
		close(fd);
	}
	kprobe_off("hf_reval");
	/* A slow guest may pass a recorded seq's expiry: 4 in ref walk each time */
	expiries = (long)(since(&t0) / SEQ_TTL_SECONDS);
	EXPECT(count_revalidations(&rcu, &ref) == 0);
	EXPECT(rcu >= 3 * 2 * 50 && ref <= 4 * expiries,
	       "revalidations: %ld in RCU walk, %ld in ref walk (%ld expiries)", rcu, ref, expiries);
	EXPECT(NOTE(NOTE_ACCESS) == access0, "%lld ACCESS prefilters ran for stat/open",
	       NOTE(NOTE_ACCESS) - access0);
	EXPECT(access(M("a/b/c/file"), R_OK) == 0);
	EXPECT(NOTE(NOTE_ACCESS) == access0 + 1, "access(2): %lld ACCESS prefilters",
	       NOTE(NOTE_ACCESS) - access0);
	cwd = open(".", O_RDONLY | O_DIRECTORY);
	EXPECT(chdir(M("a/b")) == 0, "chdir: %s", strerror(errno));
	EXPECT(NOTE(NOTE_ACCESS) == access0 + 2, "chdir(2): %lld ACCESS prefilters",
	       NOTE(NOTE_ACCESS) - access0);
	ret = TAP_OK;
out:
	if (cwd >= 0 && fchdir(cwd))
		ret = TAP_FAIL;
	if (cwd >= 0)
		close(cwd);
	if (mfd >= 0)
		close(mfd);
	kprobe_del("hf_reval");
	hf_teardown();
	return ret;
}

/*
 * RCU walk trusts the d_seq that ref walk recorded for a backing dentry
 * for SEQ_TTL_SECONDS only: a 32-bit d_seq comes back to the recorded
 * value after 2^31 renames, and a name renamed away in the backing tree
 * would then pass.  The wrap takes hours; what is tested is that no
 * recorded seq is kept longer: after the expiry one walk checks each
 * component (a, b, c, file) in ref walk, which records it anew, and the
 * next walk is in RCU walk again.
 */
static int t_backing_seq_expires(void)
{
	int ret = TAP_FAIL, mfd = -1, rc;
	long rcu = -1, ref = -1;
	struct timespec t0;
	struct stat st;

	SETUP(HF_TMPFS, NULL);
	mfd = abc_view();
	EXPECT(mfd >= 0, "the view of a/b/c/file: %s", strerror(-mfd));
	for (int i = 0; i < 2; i++)
		EXPECT(fstatat(mfd, "a/b/c/file", &st, 0) == 0, "stat: %s", strerror(errno));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = reval_trace_start();
	if (rc == -ENOENT)
		SKIP("no kprobe events in this kernel");
	EXPECT(rc == 0, "enabling the kprobe: %s", strerror(-rc));
	EXPECT(traced_stat(mfd, "a/b/c/file", &rcu, &ref) == 0);
	EXPECT(since(&t0) < SEQ_TTL_SECONDS, "the guest took %.1f s for a stat", since(&t0));
	EXPECT(rcu >= 4 && ref == 0, "warm walk: %ld in RCU walk, %ld in ref walk", rcu, ref);
	sleep(SEQ_TTL_SECONDS + 1);
	EXPECT(traced_stat(mfd, "a/b/c/file", &rcu, &ref) == 0);
	EXPECT(ref >= 4, "after %d s: %ld in RCU walk, %ld in ref walk", SEQ_TTL_SECONDS + 1, rcu,
	       ref);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	EXPECT(traced_stat(mfd, "a/b/c/file", &rcu, &ref) == 0);
	EXPECT(since(&t0) < SEQ_TTL_SECONDS, "the guest took %.1f s for a stat", since(&t0));
	EXPECT(rcu >= 4 && ref == 0, "recorded again: %ld in RCU walk, %ld in ref walk", rcu, ref);
	ret = TAP_OK;
out:
	if (mfd >= 0)
		close(mfd);
	kprobe_del("hf_reval");
	hf_teardown();
	return ret;
}

static int as_uid(uid_t uid, int (*fn)(const char *), const char *path);

/* fstatat() of statat_dirfd/name: 0, or the errno (as_uid()'s callback) */
static int statat_dirfd = -1;

static int try_statat(const char *name)
{
	struct stat st;

	return fstatat(statat_dirfd, name, &st, 0) ? errno : 0;
}

/*
 * stat() of dirfd/name as uid (forked by as_uid()): 0, or the errno.
 * Relative to a directory fd in the view, so that the walk starts in RCU
 * walk.
 */
static int stat_as(int dirfd, const char *name, uid_t uid)
{
	statat_dirfd = dirfd;
	return as_uid(uid, try_statat, name);
}

/*
 * A name the filter shows to root only (HF_PER_UID), with the LOOKUP
 * postfilter setting entry_valid 0 for it: once root has looked it up, the
 * cached dentry is not served to another user; each walk asks the filter.
 */
static int t_per_uid_entry_valid(void)
{
	int ret = TAP_FAIL, mfd = -1, e;

	SETUP(HF_TMPFS, NULL);
	EXPECT(run("mkdir %s/d && echo s > %s/d/secret && echo p > %s/d/public", E.back, E.back,
		   E.back) == 0);
	EXPECT(set_cfg(FUSE_LOOKUP, HF_PER_UID, 0, 1) == 0);
	map_put(E.skel->maps.setarg_ret, FUSE_LOOKUP, SETARG_UNSET);
	EXPECT(hf_mount(false) == 0);
	mfd = open(M("d"), O_RDONLY | O_DIRECTORY);
	EXPECT(mfd >= 0, "open the view's d: %s", strerror(errno));
	EXPECT((e = stat_as(mfd, "secret", 65534)) == ENOENT, "nobody, first: %s", strerror(e));
	for (int i = 0; i < 3; i++) {
		EXPECT((e = stat_as(mfd, "secret", 0)) == 0, "root: %s", strerror(e));
		EXPECT((e = stat_as(mfd, "secret", 65534)) == ENOENT,
		       "nobody after root looked it up (round %d): %s", i, e ? strerror(e) : "visible");
	}
	EXPECT((e = stat_as(mfd, "public", 65534)) == 0, "public: %s", strerror(e));
	EXPECT(SETARG(FUSE_LOOKUP) == 0, "set_arg of entry_valid: %lld", SETARG(FUSE_LOOKUP));
	ret = TAP_OK;
out:
	if (mfd >= 0)
		close(mfd);
	hf_teardown();
	return ret;
}

static int set_cfg_uid(uint32_t op, uint32_t flags, int pre_ret, uid_t uid)
{
	struct hf_cfg c = { .flags = flags | HF_UID, .pre_ret = pre_ret, .pad = uid };

	return bpf_map_update_elem(bpf_map__fd(E.skel->maps.cfg), &op, &c, BPF_ANY);
}

/* Hits of kprobe event @name in the trace, by this process only. */
static long count_hits(const char *name)
{
	FILE *f = fopen("/sys/kernel/tracing/trace", "r");
	char line[512], tag[64], me[32];
	long n = 0;

	if (!f)
		return -errno;
	snprintf(tag, sizeof(tag), " %s:", name);
	snprintf(me, sizeof(me), "-%d ", getpid());
	while (fgets(line, sizeof(line), f))
		if (strstr(line, tag) && strstr(line, me))
			n++;
	fclose(f);
	return n;
}

/*
 * Revalidation in RCU walk must take no reference and store
 * nothing (vfs.rst: d_revalidate in rcu-walk mode "without blocking or
 * storing to the dentry", ->permission "without ... storing to the inode").
 * fuse_backing_name_matches() takes a name snapshot of the backing dentry,
 * which nothing pins in RCU walk: if that dentry is being killed meanwhile
 * (the negative backing of a pruned negative dentry, an unlinked file), the
 * snapshot takes a reference on an external name (> 31 bytes) that
 * dentry_free() already dropped, and release_dentry_name_snapshot() frees
 * it a second time. fuse_bpf_copy_flags() is inode_set_flags(), a cmpxchg
 * on i_flags whether or not they changed, at every component. Traced: a
 * warm O_PATH walk and a walk to a missing long name, both in RCU walk.
 */
static int t_rcu_walk_stores_nothing(void)
{
	long rcu = -1, ref = -1, snaps = -1, iflags = -1;
	int ret = TAP_FAIL, fd, mfd = -1, rc;
	struct stat st;

	SETUP(HF_TMPFS, NULL);
	mfd = abc_view();
	EXPECT(mfd >= 0, "the view of a/b/c/file: %s", strerror(-mfd));
	/* Twice: a lookup, then a ref walk revalidation that may record state */
	for (int i = 0; i < 2; i++) {
		EXPECT(fstatat(mfd, "a/b/c/file", &st, 0) == 0, "stat: %s", strerror(errno));
		EXPECT(FAILS(fstatat(mfd, "a/b/c/" LONG_NAME, &st, 0), ENOENT));
	}
	rc = reval_trace_start();
	if (rc == -ENOENT)
		SKIP("no kprobe events in this kernel");
	EXPECT(rc == 0, "enabling the kprobe: %s", strerror(-rc));
	EXPECT(kprobe_add("hf_snap", "take_dentry_name_snapshot") == 0);
	EXPECT(kprobe_add("hf_iflags", "inode_set_flags") == 0);
	for (int i = 0; i < 20; i++) {
		fd = openat(mfd, "a/b/c/file", O_PATH);
		EXPECT(fd >= 0, "O_PATH open: %s", strerror(errno));
		close(fd);
		EXPECT(FAILS(fstatat(mfd, "a/b/c/" LONG_NAME, &st, 0), ENOENT));
	}
	/* Disabled, not removed: removing an event empties the trace */
	kprobe_off("hf_reval");
	kprobe_off("hf_snap");
	kprobe_off("hf_iflags");
	EXPECT(count_revalidations(&rcu, &ref) == 0);
	snaps = count_hits("hf_snap");
	iflags = count_hits("hf_iflags");
	EXPECT(rcu >= 20 * 7 && ref == 0, "revalidations: %ld in RCU walk, %ld in ref walk", rcu, ref);
	EXPECT(snaps == 0 && iflags == 0,
	       "in 40 RCU walks: %ld take_dentry_name_snapshot(), %ld inode_set_flags()", snaps,
	       iflags);
	ret = TAP_OK;
out:
	if (mfd >= 0)
		close(mfd);
	kprobe_del("hf_reval");
	kprobe_del("hf_snap");
	kprobe_del("hf_iflags");
	hf_teardown();
	return ret;
}

/* @fn(@path) as @uid: 0 or the errno it failed with. */
static int as_uid(uid_t uid, int (*fn)(const char *), const char *path)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		if (setgroups(0, NULL) || setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
			_exit(255);
		_exit(fn(path) & 0xff);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static int try_open_path(const char *path)
{
	int fd = open(path, O_PATH);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static int try_watch(const char *path)
{
	int in = inotify_init1(IN_CLOEXEC), err = 0;

	if (in < 0)
		return errno;
	if (inotify_add_watch(in, path, IN_ACCESS | IN_MODIFY) < 0)
		err = errno;
	close(in);
	return err;
}

static int try_stat(const char *path)
{
	struct stat st;

	return stat(path, &st) ? errno : 0;
}

static const char *err_name(int e)
{
	return e ? strerror(e) : "allowed";
}

#define FILTER_UID 1000

/*
 * A filter that refuses every prefilter to one uid keeps that uid out of
 * the view, also where another user's walk left dentries cached. A path
 * walk's search checks are the backing's alone and a cached dentry is
 * revalidated without a filter, so a walk runs no filter at all: without
 * more, the uid would resolve every cached name (O_PATH) and watch the
 * files (inotify_add_watch()'s MAY_READ check is no ACCESS either), seeing
 * their existence and others' activity. A filter whose verdict depends on
 * the caller makes those names expire (LOOKUP postfilter, entry_valid 0),
 * as here: the uid's O_PATH open and inotify watch fail EACCES, cached
 * by root's walk or not.
 */
static int t_refused_uid_cached_walk(void)
{
	int ret = TAP_FAIL, cold = -1, opath = -1, watch = -1;

	SETUP(HF_TMPFS, NULL);
	EXPECT(run("mkdir -p %s/a/b %s/a/c && printf secret > %s/a/b/file && chmod -R a+rX %s",
		   E.back, E.back, E.back, E.back) == 0);
	EXPECT(hf_mount(false) == 0);
	for (uint32_t op = 0; op < HF_MAX_OP; op++)
		EXPECT(set_cfg_uid(op, HF_PRE_RET | (op == FUSE_LOOKUP ? HF_EXPIRE : 0), -EACCES,
				   FILTER_UID) == 0);
	cold = as_uid(FILTER_UID, try_open_path, M("a/c"));
	EXPECT(cold == EACCES, "uncached, O_PATH as uid %d: %s", FILTER_UID, err_name(cold));
	EXPECT(try_stat(M("a/b/file")) == 0, "root: the policy is for uid %d only", FILTER_UID);
	EXPECT(!strcmp(content(M("a/b/file")), "secret"));
	opath = as_uid(FILTER_UID, try_open_path, M("a/b/file"));
	watch = as_uid(FILTER_UID, try_watch, M("a/b/file"));
	EXPECT(opath == EACCES && watch == EACCES,
	       "cached by root, as uid %d: O_PATH open %s, inotify_add_watch %s", FILTER_UID,
	       err_name(opath), err_name(watch));
	ret = TAP_OK;
out:
	hf_teardown();
	return ret;
}

/*
 * An expired name must be looked up again, not thrown away while in use. If revalidation answers
 * 0 for it, every walk d_invalidate()s the dentry, which detaches whatever
 * is mounted on or below it (any user's walk would unmount, lazily, what
 * root mounted there) and unhashes a directory that is a process's cwd
 * (getcwd() fails with ENOENT). FUSE itself looks an expired name up again
 * and keeps the dentry when the answer is the same node.
 */
static int t_expired_name_keeps_mounts(void)
{
	int ret = TAP_FAIL, cwd = -1;
	bool mounted = false;
	char buf[256];

	SETUP(HF_TMPFS, NULL);
	EXPECT(run("mkdir -p %s/d %s/e/f", E.back, E.back) == 0);
	EXPECT(hf_mount(false) == 0);
	EXPECT(set_cfg(FUSE_LOOKUP, HF_EXPIRE, 0, 0) == 0);
	EXPECT(mount("tmpfs", M("d"), "tmpfs", 0, "size=1m") == 0, "mount: %s", strerror(errno));
	mounted = true;
	EXPECT(write_file(M("d/marker"), "m", 1) == 0);
	EXPECT(FAILS(access(B("d/marker"), F_OK), ENOENT), "the marker went to the backing d");
	cwd = open(".", O_RDONLY | O_DIRECTORY);
	EXPECT(cwd >= 0 && chdir(M("e")) == 0, "chdir: %s", strerror(errno));
	for (int i = 0; i < 3; i++) {
		usleep(20000);
		EXPECT(!strcmp(content(M("d/marker")), "m"), "round %d: %s", i,
		       content(M("d/marker")));
		EXPECT(try_stat(M("e/f")) == 0);
		EXPECT(getcwd(buf, sizeof(buf)) && !strcmp(buf, M("e")), "round %d: getcwd: %s", i,
		       errno ? strerror(errno) : buf);
	}
	EXPECT(run("grep -q ' %s tmpfs ' /proc/mounts", M("d")) == 0, "the tmpfs was detached");
	ret = TAP_OK;
out:
	if (cwd >= 0 && fchdir(cwd))
		ret = TAP_FAIL;
	if (cwd >= 0)
		close(cwd);
	if (mounted)
		umount2(M("d"), MNT_DETACH);
	hf_teardown();
	return ret;
}

/* --- caller-dependent names stay out of the dentry cache ---------------------------- */

#define NOBODY 65534

/*
 * A LOOKUP postfilter's timeout (entry_valid 0) is the only thing that keeps a caller-dependent verdict out of the dentry cache,
 * and only fuse_lookup_finalize() sets it. A name made through the view
 * (create, mkdir, rename onto it, link) is a dentry that no LOOKUP filled:
 * it never expires, and every user is served it from the cache. Here the
 * filter (HF_PER_UID) shows "secret" to root only and gives it entry_valid
 * 0; root makes it four ways, and nobody's stat must stay ENOENT each time
 * (as it is when nobody asks first, and when root only looked it up).
 */
static int t_created_name_expires(void)
{
	static const char *const how[] = { "open(O_CREAT)", "mkdir", "rename onto it", "link" };
	int ret = TAP_FAIL, mfd = -1, fd, e[4], leaks = 0;
	char msg[256] = "";

	SETUP(HF_TMPFS, NULL);
	EXPECT(run("mkdir %s/d && echo p > %s/d/public && chmod -R a+rX %s", E.back, E.back,
		   E.back) == 0);
	EXPECT(set_cfg(FUSE_LOOKUP, HF_PER_UID, 0, 1) == 0);
	EXPECT(hf_mount(false) == 0);
	mfd = open(M("d"), O_RDONLY | O_DIRECTORY);
	EXPECT(mfd >= 0, "open the view's d: %s", strerror(errno));
	EXPECT((e[0] = stat_as(mfd, "secret", NOBODY)) == ENOENT, "nobody, first: %s",
	       err_name(e[0]));

	fd = openat(mfd, "secret", O_CREAT | O_WRONLY, 0644);
	EXPECT(fd >= 0, "create: %s", strerror(errno));
	close(fd);
	e[0] = stat_as(mfd, "secret", NOBODY);
	OK(unlinkat(mfd, "secret", 0));
	OK(mkdirat(mfd, "secret", 0755));
	e[1] = stat_as(mfd, "secret", NOBODY);
	OK(unlinkat(mfd, "secret", AT_REMOVEDIR));
	fd = openat(mfd, "x", O_CREAT | O_WRONLY, 0644);
	EXPECT(fd >= 0, "create x: %s", strerror(errno));
	close(fd);
	OK(renameat(mfd, "x", mfd, "secret"));
	e[2] = stat_as(mfd, "secret", NOBODY);
	OK(unlinkat(mfd, "secret", 0));
	OK(linkat(mfd, "public", mfd, "secret", 0));
	e[3] = stat_as(mfd, "secret", NOBODY);
	for (int i = 0; i < 4; i++) {
		size_t l = strlen(msg);

		leaks += e[i] != ENOENT;
		snprintf(msg + l, sizeof(msg) - l, "%s%s: %s", i ? ", " : "", how[i],
			 err_name(e[i]));
	}
	EXPECT(!leaks, "nobody's stat of \"secret\" after root made it by %s", msg);
	ret = TAP_OK;
out:
	if (mfd >= 0)
		close(mfd);
	hf_teardown();
	return ret;
}

/*
 * An expired name runs the LOOKUP postfilter again too, not only the
 * prefilter. A filter whose verdict is its postfilter's (which sees the
 * entry: owner, mode, ...; and only a postfilter can set the entry_valid
 * that makes the name expire) would otherwise never be asked again: the
 * name one user was shown would be served to every user. HF_POST_UID: the
 * postfilter hides "secret" from all but root and gives it entry_valid 0.
 */
static int t_expired_name_postfilter(void)
{
	int ret = TAP_FAIL, mfd = -1, e;

	SETUP(HF_TMPFS, NULL);
	EXPECT(run("mkdir %s/d && echo s > %s/d/secret && chmod -R a+rX %s", E.back, E.back,
		   E.back) == 0);
	EXPECT(set_cfg(FUSE_LOOKUP, HF_POST_UID, 0, 0) == 0);
	EXPECT(hf_mount(false) == 0);
	mfd = open(M("d"), O_RDONLY | O_DIRECTORY);
	EXPECT(mfd >= 0, "open the view's d: %s", strerror(errno));
	EXPECT((e = stat_as(mfd, "secret", NOBODY)) == ENOENT, "nobody, first: %s", err_name(e));
	EXPECT((e = stat_as(mfd, "secret", 0)) == 0, "root: %s", strerror(e));
	for (int i = 0; i < 3; i++)
		EXPECT((e = stat_as(mfd, "secret", NOBODY)) == ENOENT,
		       "nobody after root looked it up (round %d): %s", i, err_name(e));
	ret = TAP_OK;
out:
	if (mfd >= 0)
		close(mfd);
	hf_teardown();
	return ret;
}

static int try_mkdir(const char *path)
{
	if (mkdir(path, 0755))
		return errno;
	rmdir(path);
	return 0;
}

/*
 * A name hidden from the caller is refused by the MKDIR prefilter (here
 * EPERM, as hide's hide_errno) whether or not a file of that name exists
 * (hide.bpf.h: EEXIST "would reveal it exists"). Once an allowed user's
 * lookup left the name cached (expired), the caller's mkdir (likewise
 * open(O_CREAT), symlink, link, rename onto it) must still get the
 * create's EPERM, not the ENOENT of the LOOKUP prefilter that runs in
 * revalidation: that errno would say that the hidden file exists (and was
 * in use).
 */
static int t_expired_name_create_errno(void)
{
	int ret = TAP_FAIL, before, after;

	SETUP(HF_TMPFS, NULL);
	EXPECT(run("mkdir -m 1777 %s/d && echo s > %s/d/secret", E.back, E.back) == 0);
	EXPECT(set_cfg(FUSE_LOOKUP, HF_PER_UID, 0, 1) == 0);
	EXPECT(set_cfg(FUSE_MKDIR, HF_PRE_RET, -EPERM, 0) == 0);
	EXPECT(hf_mount(false) == 0);
	before = as_uid(NOBODY, try_mkdir, M("d/secret"));
	EXPECT(before == EPERM, "nobody's mkdir, nothing cached: %s", err_name(before));
	EXPECT(try_stat(M("d/secret")) == 0, "root: %s", strerror(errno));
	after = as_uid(NOBODY, try_mkdir, M("d/secret"));
	EXPECT(after == EPERM, "nobody's mkdir once root looked it up: %s (was %s)",
	       err_name(after), err_name(before));
	ret = TAP_OK;
out:
	hf_teardown();
	return ret;
}

/*
 * A looked-up name's timeout must be set before its dentry is published
 * (d_splice_alias()): a walk that found the dentry in between would be
 * served the allowed caller's verdict.
 * Root looks "secret" up afresh over and over (it unlinks and recreates the
 * backing file, so each of its stats is a new lookup), while nobody stats it
 * in a loop: nobody must never see it. Needs two CPUs (fails with fewer,
 * unless TEST_RCU_WALK_RACE_UP=1 asks for a run on one). A kprobe on
 * fuse_change_entry_timeout() (tracing only) makes the window a little
 * wider, as an interrupt there would. A race: a pass says little.
 */
static int t_timeout_after_publish(void)
{
	int ret = TAP_FAIL, mfd = -1, st, fd;
	long seen = 0, rounds = 0, kp = -1;
	struct timespec t0, t;
	pid_t b = -1;

	EXPECT(sysconf(_SC_NPROCESSORS_ONLN) >= 2 || getenv("TEST_RCU_WALK_RACE_UP"),
	       "a race: needs two CPUs, the guest has %ld (TEST_RCU_WALK_RACE_UP=1: preemption only)",
	       sysconf(_SC_NPROCESSORS_ONLN));
	SETUP(HF_TMPFS, NULL);
	EXPECT(run("mkdir %s/d && echo s > %s/d/secret && chmod -R a+rX %s", E.back, E.back,
		   E.back) == 0);
	EXPECT(set_cfg(FUSE_LOOKUP, HF_PER_UID, 0, 1) == 0);
	EXPECT(hf_mount(false) == 0);
	mfd = open(M("d"), O_RDONLY | O_DIRECTORY);
	EXPECT(mfd >= 0, "open the view's d: %s", strerror(errno));
	kp = kprobe_add("hf_timeout", "fuse_change_entry_timeout");
	b = fork();
	if (b == 0) {
		struct stat sb;
		long n = 0;

		if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
		    setresuid(NOBODY, NOBODY, NOBODY))
			_exit(255);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		do {
			for (int i = 0; i < 1000; i++)
				n += !fstatat(mfd, "secret", &sb, 0);
			clock_gettime(CLOCK_MONOTONIC, &t);
		} while (t.tv_sec - t0.tv_sec < 4);
		_exit(n > 250 ? 250 : n);
	}
	EXPECT(b > 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		struct stat sb;

		unlink(B("d/secret"));
		fstatat(mfd, "secret", &sb, 0);
		fd = open(B("d/secret"), O_CREAT | O_WRONLY, 0644);
		if (fd >= 0)
			close(fd);
		fstatat(mfd, "secret", &sb, 0);
		rounds++;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec < 4);
	EXPECT(waitpid(b, &st, 0) == b && WIFEXITED(st) && WEXITSTATUS(st) != 255);
	b = -1;
	seen = WEXITSTATUS(st);
	EXPECT(!seen, "nobody's stat saw \"secret\" %ld time(s)%s in %ld fresh lookups by root",
	       seen, seen == 250 ? " or more" : "", rounds);
	ret = TAP_OK;
out:
	if (b > 0)
		waitpid(b, &st, 0);
	if (!kp)
		kprobe_del("hf_timeout");
	if (mfd >= 0)
		close(mfd);
	hf_teardown();
	return ret;
}

/* fstatat(dirfd, name) as uid, in a child left running: its pid. */
static pid_t statat_bg(int dirfd, const char *name, uid_t uid)
{
	pid_t pid = fork();
	struct stat st;

	if (pid == 0) {
		if (setgroups(0, NULL) || setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
			_exit(255);
		_exit(fstatat(dirfd, name, &st, 0) ? errno : 0);
	}
	return pid;
}

/* Wait until E.srv->lookup reaches n, at most 3 s. */
static bool srv_lookups_reach(uint32_t n)
{
	for (int i = 0; i < 300; i++) {
		if (__atomic_load_n(&E.srv->lookup, __ATOMIC_SEQ_CST) >= n)
			return true;
		usleep(10000);
	}
	return false;
}

/* Did the kernel log "BUG: KASAN" since kmsg (opened at its end)? The line, or NULL. */
static const char *kasan_report(int kmsg)
{
	static char rec[1024];
	ssize_t len;

	while ((len = read(kmsg, rec, sizeof(rec) - 1)) > 0 || (len < 0 && errno == EPIPE)) {
		if (len <= 0)
			continue;
		rec[len] = 0;
		if (strstr(rec, "BUG: KASAN"))
			return strchr(rec, ';') ? strchr(rec, ';') + 1 : rec;
	}
	return NULL;
}

#define LONG_NAME2 "b-name-longer-than-the-inline-32-bytes-of-a-dentry"

/*
 * Revalidation hands the LOOKUP filter the dentry's name as its in arg, in
 * ref walk with neither the parent locked nor the name pinned. A rename
 * meanwhile frees an external name (kfree_rcu() in copy_name()); a server
 * prefilter (FUSE_BPF_USER_FILTER) copies the name when the server reads
 * the request, which the server decides: unless revalidation hands it a
 * snapshot of the name, a use-after-free read whose bytes go to the
 * server. Here uid 1000's prefilter goes to the server, which holds a
 * first request while a second one, about LONG_NAME, waits unread; root
 * renames LONG_NAME, the name is freed (kfree_rcu drains within 5 s),
 * names of the same size are allocated, then the server reads: it must
 * get LONG_NAME, and KASAN must stay quiet (on the debug kernel). TEST_RCU_WALK_NAME_RACE=0 skips the
 * case (it holds the server for seconds).
 */
static int t_revalidate_name_freed(void)
{
	int ret = TAP_FAIL, dfd = -1, kmsg = -1, st;
	pid_t p1 = -1, p2 = -1;
	const char *kasan;
	struct stat sb;
	char z[160];

	if (getenv("TEST_RCU_WALK_NAME_RACE") && !strcmp(getenv("TEST_RCU_WALK_NAME_RACE"), "0"))
		SKIP("TEST_RCU_WALK_NAME_RACE=0");
	SETUP(HF_TMPFS, NULL);
	/*
	 * Directories: an expired file is looked up afresh, under its parent's
	 * lock, so only a directory's revalidation runs the
	 * prefilter with the parent unlocked, where a rename can race it.
	 */
	EXPECT(run("mkdir %s/d %s/z %s/d/a %s/d/" LONG_NAME " && chmod -R a+rwX %s",
		   E.back, E.dir, E.back, E.back, E.back) == 0);
	/* uid 1000's LOOKUP prefilters go to the server; every name expires at once */
	EXPECT(set_cfg_uid(FUSE_LOOKUP, HF_PRE_RET | HF_EXPIRE, FUSE_BPF_USER_FILTER,
			   FILTER_UID) == 0);
	EXPECT(hf_mount(true) == 0);
	dfd = open(M("d"), O_RDONLY | O_DIRECTORY);
	EXPECT(dfd >= 0, "open the view's d: %s", strerror(errno));
	EXPECT(fstatat(dfd, "a", &sb, 0) == 0 && fstatat(dfd, LONG_NAME, &sb, 0) == 0,
	       "root's lookups: %s", strerror(errno));
	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg >= 0)
		lseek(kmsg, 0, SEEK_END);
	__atomic_store_n(&E.srv->hold, 1, __ATOMIC_SEQ_CST);
	p1 = statat_bg(dfd, "a", FILTER_UID);
	EXPECT(p1 > 0 && srv_lookups_reach(1), "the first LOOKUP prefilter did not reach the server");
	p2 = statat_bg(dfd, LONG_NAME, FILTER_UID);
	EXPECT(p2 > 0);
	usleep(300000);
	EXPECT(proc_state(p2) == 'S', "the second walk is not waiting (state %c)", proc_state(p2));
	EXPECT(renameat(dfd, LONG_NAME, dfd, LONG_NAME2) == 0, "rename: %s", strerror(errno));
	sleep(6);
	for (int i = 0; i < 64; i++) {
		snprintf(z, sizeof(z), "%s/z/%0*d", E.dir, (int)strlen(LONG_NAME), i);
		memset(z + strlen(E.dir) + 3, 'Z', strlen(LONG_NAME) - 2);
		close(open(z, O_CREAT | O_WRONLY, 0644));
	}
	__atomic_store_n(&E.srv->hold, 0, __ATOMIC_SEQ_CST);
	waitpid(p1, &st, 0);
	waitpid(p2, &st, 0);
	p1 = p2 = -1;
	EXPECT(E.srv->lookup >= 2, "%u LOOKUP prefilters", E.srv->lookup);
	kasan = kmsg >= 0 ? kasan_report(kmsg) : NULL;
	EXPECT(!kasan, "%s", kasan);
	for (char *c = E.srv->lookup_name[1]; *c; c++)
		*c = *c >= ' ' && *c < 127 ? *c : '?';
	EXPECT(!strcmp(E.srv->lookup_name[1], LONG_NAME),
	       "the server's LOOKUP prefilter got \"%s\", not \"" LONG_NAME "\"",
	       E.srv->lookup_name[1]);
	ret = TAP_OK;
out:
	if (E.srv && E.srv != MAP_FAILED)
		__atomic_store_n(&E.srv->hold, 0, __ATOMIC_SEQ_CST);
	if (p1 > 0)
		waitpid(p1, &st, 0);
	if (p2 > 0)
		waitpid(p2, &st, 0);
	if (kmsg >= 0)
		close(kmsg);
	if (dfd >= 0)
		close(dfd);
	hf_teardown();
	return ret;
}

/* --- no filter in RCU walk --------------------------------------------------------- */

/*
 * cwd in a filtered directory whose filter hands ACCESS to the server: a
 * relative stat() and symlink follow start in RCU walk; no filter (and no
 * server request) may run there (MAY_NOT_BLOCK in the mask), and a
 * postfilter never sees -ECHILD. The results are the backing's.
 */
static int t_rcu_walk(void)
{
	int ret = TAP_FAIL, cwd = -1;
	char link[64];
	struct stat st;
	ssize_t n;

	SETUP(HF_TMPFS, NULL);
	EXPECT(run("mkdir %s/d && printf 12345 > %s/d/file && ln -s file %s/d/link", E.back, E.back,
		   E.back) == 0);
	EXPECT(set_cfg(FUSE_ACCESS, HF_PRE_RET, FUSE_BPF_USER_FILTER, 0) == 0);
	EXPECT(set_cfg(FUSE_READLINK, HF_POST, 0, 0) == 0);
	EXPECT(set_cfg(FUSE_GETATTR, HF_POST, 0, 0) == 0);
	EXPECT(hf_mount(true) == 0);
	cwd = open(".", O_RDONLY | O_DIRECTORY);
	EXPECT(chdir(M("d")) == 0, "chdir: %s", strerror(errno));
	for (int i = 0; i < 20; i++) {
		EXPECT(stat("file", &st) == 0 && st.st_size == 5, "stat file: %s", strerror(errno));
		EXPECT(stat("link", &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 5,
		       "stat link: %s", strerror(errno));
		EXPECT(lstat("link", &st) == 0 && S_ISLNK(st.st_mode));
		n = readlink("link", link, sizeof(link));
		EXPECT(n == 4 && !memcmp(link, "file", 4), "readlink: %zd", n);
		EXPECT(!strcmp(content("link"), "12345"), "through the link: %s", content("link"));
	}
	EXPECT(E.srv->access > 0, "the server got no ACCESS prefilter");
	EXPECT(E.srv->access_not_block == 0 && NOTE(NOTE_NOT_BLOCK) == 0,
	       "filters ran in RCU walk: %u of %u server ACCESS requests, %lld of %lld BPF ACCESS "
	       "prefilters had MAY_NOT_BLOCK", E.srv->access_not_block, E.srv->access,
	       NOTE(NOTE_NOT_BLOCK), NOTE(NOTE_ACCESS));
	EXPECT(NOTE(NOTE_ECHILD) == 0, "%lld postfilters saw -ECHILD", NOTE(NOTE_ECHILD));
	ret = TAP_OK;
out:
	if (cwd >= 0) {
		if (fchdir(cwd))
			chdir("/");
		close(cwd);
	}
	hf_teardown();
	return ret;
}

static const struct tap_case cases[] = {
	{ "rcu_walk_access_server", t_rcu_walk },
	{ "walk_stays_rcu", t_walk_stays_rcu },
	{ "backing_seq_expires", t_backing_seq_expires },
	{ "per_uid_entry_valid", t_per_uid_entry_valid },
	{ "rcu_walk_stores_nothing", t_rcu_walk_stores_nothing },
	{ "refused_uid_cached_walk", t_refused_uid_cached_walk },
	{ "expired_name_keeps_mounts", t_expired_name_keeps_mounts },
	{ "created_name_expires", t_created_name_expires },
	{ "expired_name_postfilter", t_expired_name_postfilter },
	{ "expired_name_create_errno", t_expired_name_create_errno },
	{ "timeout_after_publish", t_timeout_after_publish },
	{ "revalidate_name_freed", t_revalidate_name_freed },
};

TAP_MAIN("rcu_walk", cases)
