// SPDX-License-Identifier: GPL-2.0
/*
 * Changes made directly in the backing tree, not through the view, are seen
 * through the view at once: on the very next system call, without waiting,
 * after the view has the names cached (each walked twice, so the RCU-walk
 * fast path is warm, and every directory opened and read). Renames (a file,
 * a directory with children, in its directory, into another, over an
 * existing name, under an open directory fd, RENAME_EXCHANGE), unlink and
 * rmdir then the same name made again (also as another file type, and a
 * symlink with another target), chmod and chown (the mode and owner stat
 * shows and the permission checks the view makes), writes, truncation,
 * times and links (size, mtime, link count), a name created after the view
 * looked it up and found nothing, new and removed entries in a listing,
 * changes made through a second view of the backing; with the hide filter,
 * a name renamed to a hidden one and back.
 *
 * Every case runs on a tmpfs and on an ext4 backing, through a view mounted
 * by fusebpfctl without a filter, with the hide filter (hiding "secret") and
 * with the attrs filter (mode rule -022, so a group- or world-writable mode
 * shows without those bits). Each case has its own fixture: backing tree,
 * pins, state directory and view (fx_setup(), fx_teardown()).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "tctl.h"
#include "tproc.h"

#define USER 1000
#define HIDDEN "secret"

enum backing { B_TMPFS, B_EXT4 };
enum view { V_PLAIN, V_HIDE, V_ATTRS };

/* One case's world; each case runs in a process of its own. */
static struct {
	enum view view;
	char dir[64];		/* /tmp/bc-NAME: everything of the case */
	char back[96];		/* the backing tree (an ext4 mount on B_EXT4) */
	char mnt[96];		/* the view */
	char mnt2[96];		/* a second view of the backing, without a filter */
	char pins[96];
	char state[96];
	char out[8192];		/* the last fusebpfctl's output */
} F;

#define V(name) at(F.mnt, name)
#define BK(name) at(F.back, name)
#define V2(name) at(F.mnt2, name)
#define ctl(...) ctl_into(F.out, sizeof(F.out), __VA_ARGS__)

/* --- the fixture ------------------------------------------------------------------ */

/*
 * The backing tree: files a, b (0666: the attrs filter shows 0644) and the
 * hidden name's file, d/ with x and sub/y, an empty e/, f/ with z, l a
 * symlink to a. Anyone may walk it.
 */
static int fx_populate(void)
{
	return run("cd %s && chmod 0755 . && echo alpha > a && echo bravo > b && "
		   "echo hush > " HIDDEN " && mkdir -p d/sub e f && echo x-of-d > d/x && "
		   "echo y-of-sub > d/sub/y && echo z-of-f > f/z && chmod 0644 a " HIDDEN
		   " d/x d/sub/y f/z && chmod 0666 b && chmod 0755 d d/sub e f && ln -s a l", F.back);
}

static int fx_backing(enum backing kind)
{
	if (run("mkdir -p %s %s && chmod 0755 %s", F.back, F.mnt, F.dir))
		return -1;
	if (kind == B_TMPFS)
		return run("mount -t tmpfs bc %s", F.back);
	return run("truncate -s 32M %s/ext4.img && mkfs.ext4 -q -F -b 4096 %s/ext4.img && "
		   "mount -o loop %s/ext4.img %s", F.dir, F.dir, F.dir, F.back);
}

/* Load the view's filter (none for V_PLAIN) and attach the view. */
static int fx_attach(void)
{
	if (F.view == V_HIDE && ctl("2>&1 load hide --name bchide --hide " HIDDEN))
		return -1;
	if (F.view == V_ATTRS && ctl("2>&1 load attrs --name bcattrs --mode -022"))
		return -1;
	if (F.view == V_PLAIN)
		return ctl("2>&1 attach %s %s", F.mnt, F.back);
	return ctl("2>&1 attach %s %s --filter %s", F.mnt, F.back,
		   F.view == V_HIDE ? "bchide" : "bcattrs");
}

static int fx_setup(const char *name, enum backing kind, enum view view)
{
	char dir[2048];

	F.view = view;
	snprintf(F.dir, sizeof(F.dir), "/tmp/bc-%s", name);
	snprintf(F.back, sizeof(F.back), "%s/back", F.dir);
	snprintf(F.mnt, sizeof(F.mnt), "%s/mnt", F.dir);
	snprintf(F.pins, sizeof(F.pins), "/sys/fs/bpf/bc-%s", name);
	snprintf(F.state, sizeof(F.state), "%s/state", F.dir);
	setenv("FUSEBPF_PIN_DIR", F.pins, 1);
	setenv("FUSEBPF_STATE_DIR", F.state, 1);
	if (ctl_find(dir, sizeof(dir)) || fx_backing(kind) || fx_populate())
		return -1;
	return fx_attach() ? -1 : 0;
}

/* A second view of the same backing tree, without a filter, at F.mnt2. */
static int fx_second_view(void)
{
	snprintf(F.mnt2, sizeof(F.mnt2), "%s/mnt2", F.dir);
	if (mkdir(F.mnt2, 0755))
		return -1;
	return ctl("2>&1 attach %s %s", F.mnt2, F.back) ? -1 : 0;
}

static void fx_teardown(void)
{
	if (F.mnt2[0] && mounted(F.mnt2) && ctl("detach %s >/dev/null 2>&1", F.mnt2) &&
	    mounted(F.mnt2))
		umount2(F.mnt2, MNT_DETACH);
	if (F.dir[0] && mounted(F.mnt) && ctl("detach %s >/dev/null 2>&1", F.mnt) && mounted(F.mnt))
		umount2(F.mnt, MNT_DETACH);
	if (F.dir[0] && mounted(F.back))
		umount2(F.back, MNT_DETACH);
	if (F.dir[0])
		ctl_cleanup(F.pins, F.dir, F.mnt);
}

/* --- looking through the view ------------------------------------------------------- */

/* Walk path twice (warm RCU walk); a directory is also opened and read to the end. */
static void warm(const char *path)
{
	char link[64];
	struct stat st;
	DIR *d;

	stat(path, &st);
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
		(void)!readlink(path, link, sizeof(link));
	if (stat(path, &st) || !S_ISDIR(st.st_mode) || !(d = opendir(path)))
		return;
	while (readdir(d))
		;
	closedir(d);
}

/* Every name of the tree fx_populate() made, through the view, cached. */
static void warm_tree(void)
{
	static const char *const names[] = { "", "a", "b", HIDDEN, "d", "d/x", "d/sub",
					     "d/sub/y", "e", "f", "f/z", "l" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		warm(V(names[i]));
}

/* The permission bits the view shows for the backing's mode m. */
static mode_t view_mode(mode_t m)
{
	return (F.view == V_ATTRS ? m & ~022 : m) & 07777;
}

static const char *content(const char *path, char *buf, size_t cap)
{
	long n = read_file(path, buf, cap);

	if (n < 0)
		snprintf(buf, cap, "<%s>", strerror(-n));
	return buf;
}

/* The view's name vname is the backing's bname: inode, type, mode, owner, size, links, mtime, content. */
static bool shows(const char *vname, const char *bname)
{
	char vbuf[256], bbuf[256];
	struct stat v, b;

	if (stat(V(vname), &v) || stat(BK(bname), &b)) {
		printf("# stat %s through the view or %s in the backing: %s\n", vname, bname,
		       strerror(errno));
		return false;
	}
	if (v.st_ino != b.st_ino || (v.st_mode & S_IFMT) != (b.st_mode & S_IFMT) ||
	    (v.st_mode & 07777) != view_mode(b.st_mode) || v.st_uid != b.st_uid ||
	    v.st_gid != b.st_gid || v.st_size != b.st_size || v.st_nlink != b.st_nlink ||
	    v.st_mtim.tv_sec != b.st_mtim.tv_sec || v.st_mtim.tv_nsec != b.st_mtim.tv_nsec) {
		printf("# view %s: ino %lu mode %o uid %u gid %u size %ld nlink %lu mtime %ld.%09ld\n"
		       "# backing %s: ino %lu mode %o uid %u gid %u size %ld nlink %lu mtime %ld.%09ld\n",
		       vname, v.st_ino, v.st_mode, v.st_uid, v.st_gid, v.st_size, v.st_nlink,
		       v.st_mtim.tv_sec, v.st_mtim.tv_nsec, bname, b.st_ino, b.st_mode, b.st_uid,
		       b.st_gid, b.st_size, b.st_nlink, b.st_mtim.tv_sec, b.st_mtim.tv_nsec);
		return false;
	}
	if (S_ISREG(b.st_mode) && strcmp(content(V(vname), vbuf, sizeof(vbuf)),
					 content(BK(bname), bbuf, sizeof(bbuf)))) {
		printf("# view %s reads '%s', backing %s '%s'\n", vname, vbuf, bname, bbuf);
		return false;
	}
	return true;
}

/* name is in the view's directory dir's listing (a fresh open). */
static bool listed(const char *dir, const char *name)
{
	DIR *d = opendir(V(dir));
	struct dirent *e;
	bool found = false;

	while (d && (e = readdir(d)))
		found |= !strcmp(e->d_name, name);
	if (d)
		closedir(d);
	return found;
}

/* The view has no name: stat and open give ENOENT, and dir's listing lacks base. */
static bool gone(const char *name, const char *dir, const char *base)
{
	struct stat st;
	int fd;

	errno = 0;
	if (stat(V(name), &st) == 0 || errno != ENOENT) {
		printf("# stat %s through the view: %s\n", name, errno ? strerror(errno) : "found");
		return false;
	}
	fd = open(V(name), O_RDONLY);
	if (fd >= 0 || errno != ENOENT) {
		printf("# open %s through the view: %s\n", name, fd >= 0 ? "opened" : strerror(errno));
		if (fd >= 0)
			close(fd);
		return false;
	}
	if (listed(dir, base)) {
		printf("# %s still listed in the view's '%s'\n", base, dir);
		return false;
	}
	return true;
}

static int put(const char *path, const char *text)
{
	return write_file(path, text, strlen(text));
}

/* open(path, flags) as USER through the view: 0 or its errno. */
static int user_open_flags(const char *path, int flags)
{
	int e = open_as(USER, USER, path, flags, NULL);

	printf("# open %s (flags %#o) as uid %d: %s\n", path, flags, USER, e ? strerror(e) : "opened");
	return e;
}

static int user_open(const char *path)
{
	return user_open_flags(path, O_RDONLY);
}

/* --- renames ------------------------------------------------------------------------ */

static int rename_file(void)
{
	int ret = TAP_FAIL;

	OK(rename(BK("a"), BK("a2")));
	EXPECT(gone("a", "", "a"));
	EXPECT(shows("a2", "a2"));
	EXPECT(listed("", "a2"));
	ret = TAP_OK;
out:
	return ret;
}

/* Into another directory; the new name is asked about first. */
static int rename_file_other_dir(void)
{
	int ret = TAP_FAIL;

	OK(rename(BK("a"), BK("d/a")));
	EXPECT(shows("d/a", "d/a"));
	EXPECT(gone("a", "", "a"));
	EXPECT(listed("d", "a"));
	ret = TAP_OK;
out:
	return ret;
}

/* Over a name the view has cached: it shows the file moved there, not the old one. */
static int rename_file_over(void)
{
	char buf[64];
	int ret = TAP_FAIL;

	OK(rename(BK("a"), BK("b")));
	EXPECT(shows("b", "b"));
	EXPECT(!strcmp(content(V("b"), buf, sizeof(buf)), "alpha\n"), "b reads '%s'", buf);
	EXPECT(gone("a", "", "a"));
	ret = TAP_OK;
out:
	return ret;
}

/* A directory's children are reachable under its new name only. */
static int rename_dir(void)
{
	int ret = TAP_FAIL;

	OK(rename(BK("d"), BK("d2")));
	EXPECT(gone("d/sub/y", "", "d"));
	EXPECT(gone("d/x", "", "d"));
	EXPECT(gone("d", "", "d"));
	EXPECT(shows("d2", "d2") && shows("d2/x", "d2/x") && shows("d2/sub/y", "d2/sub/y"));
	EXPECT(listed("d2/sub", "y"));
	ret = TAP_OK;
out:
	return ret;
}

static int rename_dir_other_dir(void)
{
	int ret = TAP_FAIL;

	OK(rename(BK("d"), BK("f/d")));
	EXPECT(shows("f/d/sub/y", "f/d/sub/y") && shows("f/d/x", "f/d/x"));
	EXPECT(gone("d/sub/y", "", "d"));
	EXPECT(gone("d", "", "d"));
	EXPECT(listed("f", "d"));
	ret = TAP_OK;
out:
	return ret;
}

/* Over the cached empty directory e. */
static int rename_dir_over(void)
{
	int ret = TAP_FAIL;

	OK(rename(BK("d"), BK("e")));
	EXPECT(shows("e", "e") && shows("e/x", "e/x") && shows("e/sub/y", "e/sub/y"));
	EXPECT(listed("e", "x"));
	EXPECT(gone("d/x", "", "d"));
	ret = TAP_OK;
out:
	return ret;
}

/* A directory the view has open: names in it change under the fd, and its own rename keeps it. */
static int rename_in_open_dir(void)
{
	struct stat v, b;
	int ret = TAP_FAIL, dfd = open(V("d"), O_RDONLY | O_DIRECTORY);

	EXPECT(dfd >= 0, "open d through the view: %s", strerror(errno));
	fstatat(dfd, "x", &v, 0);
	OK(fstatat(dfd, "x", &v, 0));
	OK(rename(BK("d/x"), BK("d/x2")));
	ERR(fstatat(dfd, "x", &v, 0), ENOENT);
	OK(fstatat(dfd, "x2", &v, 0));
	OK(stat(BK("d/x2"), &b));
	EXPECT(v.st_ino == b.st_ino, "x2 under the fd: ino %lu, backing %lu", v.st_ino, b.st_ino);
	OK(rename(BK("d"), BK("f/d")));
	OK(fstatat(dfd, "x2", &v, 0));
	EXPECT(v.st_ino == b.st_ino, "x2 after d moved: ino %lu, backing %lu", v.st_ino, b.st_ino);
	EXPECT(gone("d", "", "d") && shows("f/d/x2", "f/d/x2"));
	ret = TAP_OK;
out:
	if (dfd >= 0)
		close(dfd);
	return ret;
}

/* The two names swapped (RENAME_EXCHANGE): two files, then a file and a directory. */
static int rename_exchange(void)
{
	int ret = TAP_FAIL;

	OK(renameat2(AT_FDCWD, BK("a"), AT_FDCWD, BK("b"), RENAME_EXCHANGE));
	EXPECT(shows("a", "a") && shows("b", "b"));
	OK(renameat2(AT_FDCWD, BK("a"), AT_FDCWD, BK("d"), RENAME_EXCHANGE));
	EXPECT(shows("a/x", "a/x") && shows("a/sub/y", "a/sub/y") && shows("d", "d"));
	ERR(stat(V("d/x"), &(struct stat){ 0 }), ENOTDIR);
	EXPECT(listed("a", "x") && listed("", "d"));
	ret = TAP_OK;
out:
	return ret;
}

/* --- removed and made again ----------------------------------------------------------- */

static int unlink_recreate(void)
{
	int ret = TAP_FAIL;

	OK(unlink(BK("a")));
	EXPECT(gone("a", "", "a"));
	OK(put(BK("a"), "another alpha, longer\n"));
	EXPECT(shows("a", "a"));
	EXPECT(listed("", "a"));
	ret = TAP_OK;
out:
	return ret;
}

/* A file's name made a directory, then a file again, then a symlink. */
static int replace_type(void)
{
	int ret = TAP_FAIL;

	OK(unlink(BK("a")));
	OK(mkdir(BK("a"), 0755));
	OK(put(BK("a/in"), "in\n"));
	EXPECT(shows("a", "a") && shows("a/in", "a/in"));
	OK(unlink(BK("a/in")));
	OK(rmdir(BK("a")));
	OK(put(BK("a"), "a file again\n"));
	ERR(stat(V("a/in"), &(struct stat){ 0 }), ENOTDIR);
	EXPECT(shows("a", "a"));
	OK(unlink(BK("a")));
	OK(symlink("b", BK("a")));
	EXPECT(shows("a", "b"));
	ret = TAP_OK;
out:
	return ret;
}

/* A symlink the view has read, made again with another target. */
static int symlink_retarget(void)
{
	char link[64] = "";
	int ret = TAP_FAIL;

	EXPECT(shows("l", "a"));
	OK(unlink(BK("l")));
	OK(symlink("d/x", BK("l")));
	EXPECT(readlink(V("l"), link, sizeof(link) - 1) == 3 && !strcmp(link, "d/x"),
	       "l reads '%s'", link);
	EXPECT(shows("l", "d/x"));
	OK(rename(BK("b"), BK("l")));
	EXPECT(shows("l", "l"));
	ret = TAP_OK;
out:
	return ret;
}

/* f/ walked into and listed by the view, removed, made again with other children. */
static int rmdir_mkdir(void)
{
	int ret = TAP_FAIL;

	OK(unlink(BK("f/z")));
	OK(rmdir(BK("f")));
	EXPECT(gone("f/z", "", "f"));
	EXPECT(gone("f", "", "f"));
	OK(mkdir(BK("f"), 0700));
	OK(put(BK("f/w"), "w-of-the-new-f\n"));
	EXPECT(shows("f", "f") && shows("f/w", "f/w"));
	EXPECT(gone("f/z", "f", "z"));
	EXPECT(listed("f", "w"));
	ret = TAP_OK;
out:
	return ret;
}

/* --- attributes -------------------------------------------------------------------------- */

static int chmod_mode(void)
{
	int ret = TAP_FAIL;

	OK(chmod(BK("a"), 0666));
	EXPECT(shows("a", "a"));
	OK(chmod(BK("a"), 0600));
	EXPECT(shows("a", "a"));
	OK(chmod(BK("d"), 0777));
	EXPECT(shows("d", "d"));
	OK(chmod(BK("d/x"), 0620));
	EXPECT(shows("d/x", "d/x"));
	ret = TAP_OK;
out:
	return ret;
}

/* The view's permission checks follow the backing's new mode at once. */
static int chmod_permission(void)
{
	int ret = TAP_FAIL;

	EXPECT(user_open(V("a")) == 0 && user_open(V("d/x")) == 0);
	OK(chmod(BK("a"), 0600));
	EXPECT(user_open(V("a")) == EACCES);
	OK(chmod(BK("a"), 0604));
	EXPECT(user_open(V("a")) == 0);
	/* the backing inode's own mode decides, not the attrs filter's 0644 (docs/filters.md) */
	EXPECT(user_open_flags(V("a"), O_WRONLY) == EACCES);
	OK(chmod(BK("a"), 0666));
	EXPECT(user_open_flags(V("a"), O_WRONLY) == 0);
	OK(chmod(BK("a"), 0644));
	EXPECT(user_open_flags(V("a"), O_WRONLY) == EACCES);
	OK(chmod(BK("d"), 0700));
	EXPECT(user_open(V("d/x")) == EACCES);
	OK(chmod(BK("d"), 0755));
	EXPECT(user_open(V("d/x")) == 0);
	ret = TAP_OK;
out:
	return ret;
}

static int chown_owner(void)
{
	int ret = TAP_FAIL;

	OK(chmod(BK("a"), 0600));
	EXPECT(user_open(V("a")) == EACCES);
	OK(chown(BK("a"), USER, USER));
	EXPECT(shows("a", "a"));
	EXPECT(user_open(V("a")) == 0);
	OK(chown(BK("a"), 0, 0));
	EXPECT(user_open(V("a")) == EACCES);
	EXPECT(shows("a", "a"));
	ret = TAP_OK;
out:
	return ret;
}

/* Data written, truncated and times set in the backing: size, mtime and content at once. */
static int write_size(void)
{
	struct timespec ts[2] = { { 1000000000, 5 }, { 1000000000, 5 } };
	int ret = TAP_FAIL;

	OK(put(BK("a"), "alpha, written again and longer\n"));
	EXPECT(shows("a", "a"));
	OK(truncate(BK("a"), 3));
	EXPECT(shows("a", "a"));
	OK(utimensat(AT_FDCWD, BK("a"), ts, 0));
	EXPECT(shows("a", "a"));
	OK(link(BK("a"), BK("d/a-link")));
	EXPECT(shows("a", "a") && shows("d/a-link", "a"));
	ret = TAP_OK;
out:
	return ret;
}

/* --- new names ------------------------------------------------------------------------ */

/* Names the view looked up and did not find, then made in the backing. */
static int create_after_negative(void)
{
	int ret = TAP_FAIL;

	warm(V("n"));
	warm(V("d/n"));
	warm(V("m"));
	OK(put(BK("n"), "new\n"));
	EXPECT(shows("n", "n"));
	OK(put(BK("d/n"), "new in d\n"));
	EXPECT(shows("d/n", "d/n"));
	OK(mkdir(BK("m"), 0755));
	OK(put(BK("m/k"), "k\n"));
	EXPECT(shows("m", "m") && shows("m/k", "m/k"));
	ret = TAP_OK;
out:
	return ret;
}

/* Listings (each a new open) show entries made and lack entries removed at once. */
static int readdir_changes(void)
{
	int ret = TAP_FAIL;

	EXPECT(!listed("", "new") && listed("", "b") && !listed("d", "new2"));
	OK(put(BK("new"), "new\n"));
	EXPECT(listed("", "new"));
	OK(unlink(BK("b")));
	EXPECT(!listed("", "b"));
	OK(put(BK("d/new2"), "new2\n"));
	EXPECT(listed("d", "new2"));
	OK(rename(BK("d/new2"), BK("e/new3")));
	EXPECT(!listed("d", "new2") && listed("e", "new3"));
	ret = TAP_OK;
out:
	return ret;
}

/* Changes made through another view of the backing are seen through this one at once. */
static int other_view(void)
{
	int ret = TAP_FAIL;

	EXPECT(fx_second_view() == 0, "attaching a second view");
	warm(V("n"));
	OK(rename(V2("a"), V2("a2")));
	EXPECT(gone("a", "", "a") && shows("a2", "a2"));
	OK(rename(V2("d"), V2("f/d")));
	EXPECT(gone("d/x", "", "d") && shows("f/d/x", "f/d/x"));
	OK(unlink(V2("b")));
	EXPECT(gone("b", "", "b"));
	OK(chmod(V2("f/d/x"), 0666));
	EXPECT(shows("f/d/x", "f/d/x"));
	OK(put(V2("n"), "made through the other view\n"));
	EXPECT(shows("n", "n"));
	ret = TAP_OK;
out:
	return ret;
}

/* --- the hide filter ------------------------------------------------------------------- */

/* A visible file, then a directory, renamed to the hidden name. */
static int hide_rename_to_hidden(void)
{
	int ret = TAP_FAIL;

	OK(rename(BK("a"), BK(HIDDEN)));
	EXPECT(gone("a", "", "a"));
	EXPECT(gone(HIDDEN, "", HIDDEN));
	OK(rename(BK("d"), BK("f/" HIDDEN)));
	EXPECT(gone("d/x", "", "d"));
	EXPECT(gone("f/" HIDDEN "/x", "f", HIDDEN));
	EXPECT(gone("f/" HIDDEN, "f", HIDDEN));
	ret = TAP_OK;
out:
	return ret;
}

/* The hidden name, looked up in vain through the view, renamed to a visible one. */
static int hide_rename_from_hidden(void)
{
	int ret = TAP_FAIL;

	EXPECT(gone(HIDDEN, "", HIDDEN));
	OK(rename(BK(HIDDEN), BK("c")));
	EXPECT(shows("c", "c"));
	EXPECT(listed("", "c"));
	OK(mkdir(BK("d/" HIDDEN), 0755));
	OK(put(BK("d/" HIDDEN "/w"), "w\n"));
	warm(V("d/" HIDDEN "/w"));
	EXPECT(gone("d/" HIDDEN, "d", HIDDEN));
	OK(rename(BK("d/" HIDDEN), BK("d/shown")));
	EXPECT(shows("d/shown/w", "d/shown/w"));
	EXPECT(listed("d", "shown"));
	ret = TAP_OK;
out:
	return ret;
}

/* --- the matrix -------------------------------------------------------------------------- */

/* Set the case up (its name names its directory and pins), run it, take it down. */
static int in_fixture(const char *name, enum backing kind, enum view view, int (*fn)(void))
{
	int ret = TAP_FAIL;

	if (!fuse_bpf())
		SKIP("this kernel has no fuse-bpf");
	EXPECT(fx_setup(name, kind, view) == 0, "setting up %s", name);
	EXPECT(mounted(F.mnt), "no view at %s", F.mnt);
	warm_tree();
	/* the view's filter: the hidden name hidden or not, b's mode rewritten or not */
	EXPECT(view == V_HIDE ? gone(HIDDEN, "", HIDDEN) : shows(HIDDEN, HIDDEN));
	EXPECT(shows("b", "b"));
	ret = fn();
out:
	fx_teardown();
	return ret;
}

#define ONE(s, kind, view, tag) \
	static int s##_##tag(void) { return in_fixture(#s "_" #tag, kind, view, s); }
#define HIDE_VIEWS(s) ONE(s, B_TMPFS, V_HIDE, tmpfs_hide) ONE(s, B_EXT4, V_HIDE, ext4_hide)
#define ALL_VIEWS(s) HIDE_VIEWS(s)                                                        \
	ONE(s, B_TMPFS, V_PLAIN, tmpfs_plain) ONE(s, B_EXT4, V_PLAIN, ext4_plain)          \
	ONE(s, B_TMPFS, V_ATTRS, tmpfs_attrs) ONE(s, B_EXT4, V_ATTRS, ext4_attrs)

#define ROW(s, tag) { #s "_" #tag, s##_##tag },
#define HIDE_ROWS(s) ROW(s, tmpfs_hide) ROW(s, ext4_hide)
#define ALL_ROWS(s) ROW(s, tmpfs_plain) ROW(s, ext4_plain) HIDE_ROWS(s) \
	ROW(s, tmpfs_attrs) ROW(s, ext4_attrs)

ALL_VIEWS(rename_file)
ALL_VIEWS(rename_file_other_dir)
ALL_VIEWS(rename_file_over)
ALL_VIEWS(rename_dir)
ALL_VIEWS(rename_dir_other_dir)
ALL_VIEWS(rename_dir_over)
ALL_VIEWS(rename_in_open_dir)
ALL_VIEWS(rename_exchange)
ALL_VIEWS(unlink_recreate)
ALL_VIEWS(replace_type)
ALL_VIEWS(symlink_retarget)
ALL_VIEWS(rmdir_mkdir)
ALL_VIEWS(chmod_mode)
ALL_VIEWS(chmod_permission)
ALL_VIEWS(chown_owner)
ALL_VIEWS(write_size)
ALL_VIEWS(create_after_negative)
ALL_VIEWS(readdir_changes)
ALL_VIEWS(other_view)
HIDE_VIEWS(hide_rename_to_hidden)
HIDE_VIEWS(hide_rename_from_hidden)

static const struct tap_case cases[] = {
	ALL_ROWS(rename_file)
	ALL_ROWS(rename_file_other_dir)
	ALL_ROWS(rename_file_over)
	ALL_ROWS(rename_dir)
	ALL_ROWS(rename_dir_other_dir)
	ALL_ROWS(rename_dir_over)
	ALL_ROWS(rename_in_open_dir)
	ALL_ROWS(rename_exchange)
	ALL_ROWS(unlink_recreate)
	ALL_ROWS(replace_type)
	ALL_ROWS(symlink_retarget)
	ALL_ROWS(rmdir_mkdir)
	ALL_ROWS(chmod_mode)
	ALL_ROWS(chmod_permission)
	ALL_ROWS(chown_owner)
	ALL_ROWS(write_size)
	ALL_ROWS(create_after_negative)
	ALL_ROWS(readdir_changes)
	ALL_ROWS(other_view)
	HIDE_ROWS(hide_rename_to_hidden)
	HIDE_ROWS(hide_rename_from_hidden)
};

TAP_MAIN("backing_change", cases)
