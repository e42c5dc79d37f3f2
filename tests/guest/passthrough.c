// SPDX-License-Identifier: GPL-2.0
/*
 * fuse-bpf passthrough: a FUSE server backs the root's children with
 * fds of a backing filesystem; from then on the kernel does everything on the
 * backing objects and the server sees nothing. The operation cases are in
 * passthrough_ops.c; here are the protocol, the bad replies, root_dir and
 * no_daemon, credentials, and a random data-integrity mix.
 */
#define _GNU_SOURCE
#include "passthrough.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>



#define BACKING(f) { .entry_type = FUSE_ENTRY_BACKING, .fd = (f) }

/* --- the protocol ---------------------------------------------------------------- */

/* The ioctl reply backs the node; the server then sees none of the I/O. */
static int t_backing_reply_via_ioctl(void)
{
	struct tfuse_counts before, now;
	int ret = TAP_FAIL, rc, fd = -1;
	char why[256], buf[16], *listing = NULL;
	struct pt_env e;

	rc = pt_setup(&e, PT_TMPFS, NULL);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	rc = pt_setup_data(&e);
	EXPECT(!rc, "%s: %s", e.m, strerror(-rc));
	tfuse_counts_get(e.counts, &before);
	EXPECT(before.op[FUSE_LOOKUP] == 1, "%u LOOKUPs for one name", before.op[FUSE_LOOKUP]);
	/* The counter counts: a stat of the server's own root is a GETATTR. */
	OK(stat(e.mnt, &(struct stat){ 0 }));
	tfuse_counts_get(e.counts, &now);
	EXPECT(now.op[FUSE_GETATTR] > before.op[FUSE_GETATTR], "the server did not count a root GETATTR");
	tfuse_counts_get(e.counts, &before);
	fd = open(P(e.m, "f"), O_CREAT | O_RDWR, 0600);
	EXPECT(fd >= 0, "create: %s", strerror(errno));
	EXPECT(write(fd, "passthrough", 11) == 11);
	EXPECT(pread(fd, buf, 11, 0) == 11 && memcmp(buf, "passthrough", 11) == 0);
	OK(fstat(fd, &(struct stat){ 0 }));
	OK(close(fd));
	fd = -1;
	EXPECT(read_file(P(e.b, "f"), buf, sizeof(buf)) == 11 && strcmp(buf, "passthrough") == 0,
	       "the backing file has '%s'", buf);
	free(listing);
	listing = pt_listing(e.m);
	EXPECT(listing && strcmp(listing, "f\n") == 0, "listing '%s'", listing);
	tfuse_counts_get(e.counts, &now);
	for (int op = FUSE_LOOKUP; op < TFUSE_MAX_OPCODE; op++) {
		if (op == FUSE_FORGET || op == FUSE_BATCH_FORGET)
			continue;
		EXPECT(now.op[op] == before.op[op], "the server got %u %s", now.op[op] - before.op[op],
		       tfuse_opname(op));
	}
	EXPECT(!pt_unexpected_requests(&e, &before, 0, why, sizeof(why)), "%s", why);
	ret = TAP_OK;
out:
	if (fd >= 0)
		close(fd);
	free(listing);
	if (pt_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/* The same bytes through write() or splice() are refused: fds travel only by ioctl. */
static int t_backing_reply_via_write_fails(void)
{
	int ret = TAP_FAIL, rc;
	struct pt_env e;
	struct stat st;

	rc = pt_setup(&e, PT_TMPFS, NULL);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	OK(mkdir(e.b, 0755));
	e.sh->reply_via_write = 1;
	EXPECT(stat(e.m, &st) == -1, "the lookup answered through write() succeeded");
	printf("the lookup failed with %s\n", strerror(errno));
	pt_wait_replies(&e, 1);
	EXPECT(e.sh->backing_replies == 1, "%u replies, %u LOOKUPs", e.sh->backing_replies,
	       e.counts->op[FUSE_LOOKUP]);
	EXPECT(e.sh->last_reply_err == EINVAL, "write() of a backing reply: %s, expected EINVAL",
	       strerror(e.sh->last_reply_err));
	/* Nor through splice(). */
	e.sh->reply_via_write = PT_REPLY_SPLICE;
	EXPECT(stat(e.m, &st) == -1, "the lookup answered through splice() succeeded");
	pt_wait_replies(&e, 2);
	EXPECT(e.sh->backing_replies == 2);
	EXPECT(e.sh->last_reply_err == EINVAL, "splice() of a backing reply: %s, expected EINVAL",
	       strerror(e.sh->last_reply_err));
	/* The connection survives; the ioctl then works. */
	e.sh->reply_via_write = 0;
	OK(stat(e.m, &st));
	pt_wait_replies(&e, 3);
	EXPECT(e.sh->last_reply_err == 0, "then the ioctl: %s", strerror(e.sh->last_reply_err));
	EXPECT(S_ISDIR(st.st_mode));
	ret = TAP_OK;
out:
	if (pt_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/* Variants of a good reply: a real nodeid, an O_PATH fd, a file at the root. */
static int t_backing_reply_variants(void)
{
	int ret = TAP_FAIL, rc, fd = -1;
	struct pt_env e;
	char buf[64];

	rc = pt_setup(&e, PT_TMPFS, NULL);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	e.sh->real_nodeids = 1;
	rc = pt_setup_data(&e);
	EXPECT(!rc, "a reply with nodeid 2: %s", strerror(-rc));
	EXPECT(write_file(P(e.m, "f"), "nodeid", 6) == 0);
	EXPECT(read_file(P(e.b, "f"), buf, sizeof(buf)) == 6);
	/* O_PATH */
	e.sh->real_nodeids = 0;
	e.sh->open_flags = O_PATH;
	OK(mkdir(P(e.back, "opath"), 0755));
	OK(stat(P(e.mnt, "opath"), &(struct stat){ 0 }));
	pt_wait_replies(&e, 2);
	EXPECT(e.sh->last_reply_err == 0, "an O_PATH fd: %s", strerror(e.sh->last_reply_err));
	EXPECT(write_file(P(e.mnt, "opath/f"), "opath", 5) == 0);
	EXPECT(read_file(P(e.back, "opath/f"), buf, sizeof(buf)) == 5);
	/* A regular file backed by an O_RDONLY fd is still writable (the kernel opens its own). */
	e.sh->open_flags = O_RDONLY;
	EXPECT(write_file(P(e.back, "rootfile"), "0123456789", 10) == 0);
	fd = open(P(e.mnt, "rootfile"), O_RDWR);
	EXPECT(fd >= 0, "open: %s", strerror(errno));
	pt_wait_replies(&e, 3);
	EXPECT(e.sh->last_reply_err == 0);
	EXPECT(pwrite(fd, "AB", 2, 3) == 2, "write: %s", strerror(errno));
	EXPECT(read_file(P(e.back, "rootfile"), buf, sizeof(buf)) == 10 && strcmp(buf, "012AB56789") == 0,
	       "backing has '%s'", buf);
	ret = TAP_OK;
out:
	if (fd >= 0)
		close(fd);
	if (pt_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/*
 * A node the server backed stays valid without asking the server again,
 * whatever the backing object is called: a server may back "name" with any
 * directory it likes, e.g. one of another name, or the root of another mount.
 */
static int revalidate_without_server(bool mount_root)
{
	int ret = TAP_FAIL, rc, fd = -1;
	struct tfuse_counts before, now;
	char other[200], alias[200];
	bool mounted = false;
	struct pt_env e;
	struct stat st;

	rc = pt_setup(&e, PT_TMPFS, NULL);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	if (mount_root) {
		snprintf(other, sizeof(other), "%s/other", e.back);
		OK(mkdir(other, 0755));
		OK(mount("tmpfs", other, "tmpfs", 0, "size=16m"));
		mounted = true;
		snprintf(alias, sizeof(alias), "%s/other", e.mnt);
		snprintf(other, sizeof(other), "%s/other", e.back);
	} else {
		/* "alias" backed by back/data */
		OK(mkdir(e.b, 0755));
		snprintf(e.sh->craft_name, sizeof(e.sh->craft_name), "alias");
		e.sh->craft[0] = (struct fuse_bpf_entry_out)BACKING(PT_FD_DATA);
		e.sh->craft_len = sizeof(e.sh->craft[0]);
		snprintf(alias, sizeof(alias), "%s/alias", e.mnt);
		snprintf(other, sizeof(other), "%s", e.b);
	}
	OK(stat(alias, &st));
	pt_wait_replies(&e, 1);
	EXPECT(e.sh->last_reply_err == 0, "the backing reply: %s", strerror(e.sh->last_reply_err));
	tfuse_counts_get(e.counts, &before);
	for (int i = 0; i < 5; i++)
		OK(stat(alias, &st));
	fd = open(P(alias, "f"), O_CREAT | O_RDWR, 0644);
	EXPECT(fd >= 0, "create: %s", strerror(errno));
	OK(close(fd));
	fd = -1;
	OK(stat(P(other, "f"), &st));
	OK(unlink(P(alias, "f")));
	tfuse_counts_get(e.counts, &now);
	EXPECT(now.op[FUSE_LOOKUP] == before.op[FUSE_LOOKUP],
	       "%u more LOOKUPs of a backed node (backed by %s) after 5 stats, a create and an unlink",
	       now.op[FUSE_LOOKUP] - before.op[FUSE_LOOKUP],
	       mount_root ? "the root of another mount" : "a directory of another name");
	ret = TAP_OK;
out:
	if (fd >= 0)
		close(fd);
	if (mounted) {
		tfuse_stop(e.mnt, e.server);
		e.fuse_mounted = false;
		e.server = -1;
		umount2(other, MNT_DETACH);
	}
	if (pt_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

static int t_revalidate_backing_of_other_name(void)
{
	return revalidate_without_server(false);
}

static int t_revalidate_backing_mount_root(void)
{
	return revalidate_without_server(true);
}

/* Free bytes, or inodes, of the backing filesystem, once synced, or -1. */
static long long back_free_bytes(const char *back)
{
	long long bytes, inodes;

	return pt_backing_free(back, &bytes, &inodes) ? -1 : bytes;
}

static long long back_free_inodes(const char *back)
{
	long long bytes, inodes;

	return pt_backing_free(back, &bytes, &inodes) ? -1 : inodes;
}

/*
 * A file that the server backed in a directory of its own (not backed: the
 * server gets the UNLINK) and removes from the backing filesystem at an
 * unlink through the view gives its blocks back at once, as through a
 * backed directory (remove_frees_space). If d_delete() left the FUSE
 * dentry negative and cached, it would still hold the backing dentry that
 * the server's unlinkat() can only unhash, and so the backing inode, until
 * the name was looked up again or the dcache was pruned.
 */
static int t_server_unlink_frees_space(void)
{
	int ret = TAP_FAIL, rc;
	long long free0, free1;
	struct pt_env e;
	struct stat st;

	rc = pt_setup(&e, PT_TMPFS, NULL);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	free0 = back_free_bytes(e.back);
	EXPECT(free0 >= 0, "statfs: %s", strerror(errno));
	OK(pt_make_file(P(e.back, "big"), 16 << 20, 1));
	OK(stat(P(e.mnt, "big"), &st));
	pt_wait_replies(&e, 1);
	EXPECT(e.sh->last_reply_err == 0, "the backing reply: %s", strerror(e.sh->last_reply_err));
	EXPECT(st.st_size == 16 << 20, "size %lld", (long long)st.st_size);
	e.sh->serve_unlink = 1;
	OK(unlink(P(e.mnt, "big")));
	ERR(stat(P(e.back, "big"), &st), ENOENT);
	free1 = back_free_bytes(e.back);
	EXPECT(free1 > free0 - (4 << 20), "after the unlink, the backing has %lld KiB less than before",
	       (free0 - free1) >> 10);
	/* The name is gone through the view too. */
	ERR(stat(P(e.mnt, "big"), &st), ENOENT);
	ret = TAP_OK;
out:
	if (pt_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/*
 * A directory that the server backed in a directory of its own, and removes
 * from the backing filesystem at an rmdir through the view, gives its inode
 * back at once even if a missing name was looked up in it through the view,
 * as remove_dir_frees_inode checks for a backed parent. On ext4, which caches
 * negative dentries: the FUSE negative child holds its backing dentry, which
 * the server's rmdir() can therefore not prune, and which then stays cached
 * with its removed parent once the VFS prunes the FUSE child, unless the
 * kernel prunes the backing child too.
 */
static int t_server_rmdir_frees_inode(void)
{
	int ret = TAP_FAIL, rc;
	long long free0, free1;
	struct pt_env e;
	struct stat st;

	rc = pt_setup(&e, PT_EXT4, NULL);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	free0 = back_free_inodes(e.back);
	EXPECT(free0 >= 0, "statfs: %s", strerror(errno));
	OK(mkdir(P(e.back, "dir"), 0755));
	OK(stat(P(e.mnt, "dir"), &st));
	pt_wait_replies(&e, 1);
	EXPECT(e.sh->last_reply_err == 0, "the backing reply: %s", strerror(e.sh->last_reply_err));
	ERR(stat(P(e.mnt, "dir/absent"), &st), ENOENT);
	e.sh->serve_unlink = 1;
	OK(rmdir(P(e.mnt, "dir")));
	ERR(stat(P(e.back, "dir"), &st), ENOENT);
	free1 = back_free_inodes(e.back);
	EXPECT(free1 >= free0, "after the rmdir, the backing has %lld inodes less than before",
	       free0 - free1);
	ERR(stat(P(e.mnt, "dir"), &st), ENOENT);
	ret = TAP_OK;
out:
	if (pt_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/* --- bad replies ------------------------------------------------------------------- */

/*
 * Send a crafted LOOKUP reply for "bad" and expect the ioctl to fail with
 * want_err and the lookup to fail; the mount keeps working afterwards.
 */
static int bad_reply(struct pt_env *e, const struct fuse_bpf_entry_out *ents, uint32_t len,
		     const int *test_fds, int want_err)
{
	static int goods;
	int ret = TAP_FAIL;
	char good[32];
	struct stat st;

	snprintf(e->sh->craft_name, sizeof(e->sh->craft_name), "bad");
	memset(e->sh->craft, 0, sizeof(e->sh->craft));
	memcpy(e->sh->craft, ents, len < sizeof(e->sh->craft) ? len : sizeof(e->sh->craft));
	e->sh->craft_len = len;
	for (int i = 0; i < PT_CRAFT_MAX; i++)
		e->sh->craft_test_fd[i] = test_fds ? test_fds[i] : -1;
	e->sh->backing_replies = 0;
	errno = 0;
	EXPECT(stat(P(e->mnt, "bad"), &st) == -1, "the lookup with a bad reply succeeded");
	printf("the lookup failed with %s\n", strerror(errno));
	pt_wait_replies(e, 1);
	EXPECT(e->sh->backing_replies == 1, "%u replies", e->sh->backing_replies);
	EXPECT(e->sh->last_reply_err == want_err, "the reply got %s, expected %s",
	       e->sh->last_reply_err ? strerror(e->sh->last_reply_err) : "success", strerror(want_err));
	/* A good reply for a new name works afterwards. */
	e->sh->craft_name[0] = 0;
	e->sh->backing_replies = 0;
	snprintf(good, sizeof(good), "good%d", ++goods);
	OK(mkdir(P(e->back, good), 0755));
	OK(stat(P(e->mnt, good), &st));
	pt_wait_replies(e, 1);
	EXPECT(e->sh->last_reply_err == 0 && S_ISDIR(st.st_mode), "a good reply after the bad one: %s",
	       strerror(e->sh->last_reply_err));
	ret = TAP_OK;
out:
	return ret;
}

static int bad_reply_case(const struct fuse_bpf_entry_out *ents, uint32_t len, int want_err)
{
	int ret = TAP_FAIL, rc;
	struct pt_env e;

	rc = pt_setup(&e, PT_TMPFS, NULL);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	OK(mkdir(e.b, 0755));
	ret = bad_reply(&e, ents, len, NULL, want_err);
out:
	if (pt_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

static int t_bad_entry_type(void)
{
	struct fuse_bpf_entry_out ents[] = { { .entry_type = 7, .fd = PT_FD_DATA } };

	return bad_reply_case(ents, sizeof(ents), EINVAL);
}

static int t_bad_entry_type_zero(void)
{
	struct fuse_bpf_entry_out ents[] = { { .entry_type = 0, .fd = PT_FD_DATA } };

	return bad_reply_case(ents, sizeof(ents), EINVAL);
}

static int t_bad_unused_nonzero(void)
{
	struct fuse_bpf_entry_out ents[] = { { .entry_type = FUSE_ENTRY_BACKING, .unused = 1, .fd = PT_FD_DATA } };

	return bad_reply_case(ents, sizeof(ents), EINVAL);
}

static int t_bad_too_many_entries(void)
{
	struct fuse_bpf_entry_out ents[] = { BACKING(PT_FD_DATA), BACKING(PT_FD_DATA), BACKING(PT_FD_DATA) };

	return bad_reply_case(ents, sizeof(ents), EINVAL);
}

static int t_bad_two_backing_entries(void)
{
	struct fuse_bpf_entry_out ents[] = { BACKING(PT_FD_DATA), BACKING(PT_FD_DATA) };

	return bad_reply_case(ents, sizeof(ents), EINVAL);
}

static int t_bad_size_not_multiple(void)
{
	struct fuse_bpf_entry_out ents[] = { BACKING(PT_FD_DATA), BACKING(PT_FD_DATA) };

	return bad_reply_case(ents, sizeof(ents[0]) + 4, EINVAL);
}

static int t_bad_fd_not_open(void)
{
	struct fuse_bpf_entry_out ents[] = { BACKING(999) };

	return bad_reply_case(ents, sizeof(ents), EBADF);
}

static int t_bad_fd_negative(void)
{
	struct fuse_bpf_entry_out ents[] = { BACKING((uint64_t)-1) };

	return bad_reply_case(ents, sizeof(ents), EBADF);
}

/* A backing fd on this very mount: its root, and a passed-through directory in it. */
static int t_bad_fd_on_same_mount(void)
{
	struct fuse_bpf_entry_out ents[] = { BACKING(0) };
	int ret = TAP_FAIL, rc, fds[PT_CRAFT_MAX] = { -1, -1, -1, -1 }, root = -1, data = -1;
	struct pt_env e;

	rc = pt_setup(&e, PT_TMPFS, NULL);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	rc = pt_setup_data(&e);
	EXPECT(!rc);
	root = open(e.mnt, O_RDONLY | O_DIRECTORY);
	EXPECT(root >= 0, "open %s: %s", e.mnt, strerror(errno));
	fds[0] = root;
	EXPECT(bad_reply(&e, ents, sizeof(ents), fds, EINVAL) == TAP_OK, "the mount's root as a backing fd");
	data = open(e.m, O_RDONLY | O_DIRECTORY);
	EXPECT(data >= 0, "open %s: %s", e.m, strerror(errno));
	fds[0] = data;
	EXPECT(bad_reply(&e, ents, sizeof(ents), fds, EINVAL) == TAP_OK, "a backed directory of the mount");
	ret = TAP_OK;
out:
	if (root >= 0)
		close(root);
	if (data >= 0)
		close(data);
	if (pt_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/* The reply's attributes name another file type than the backing object has. */
static int t_bad_type_mismatch(void)
{
	struct fuse_bpf_entry_out ents[] = { BACKING(0) };
	int ret = TAP_FAIL, rc, fds[PT_CRAFT_MAX] = { -1, -1, -1, -1 }, file = -1, dir = -1;
	struct pt_env e;

	rc = pt_setup(&e, PT_TMPFS, NULL);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	OK(mkdir(e.b, 0755));
	EXPECT(write_file(P(e.back, "afile"), "x", 1) == 0);
	file = open(P(e.back, "afile"), O_RDONLY);
	dir = open(e.b, O_RDONLY | O_DIRECTORY);
	EXPECT(file >= 0 && dir >= 0);
	/* attributes of a directory, a file behind them */
	fds[0] = file;
	EXPECT(bad_reply(&e, ents, sizeof(ents), fds, ENOTDIR) == TAP_OK, "a directory backed by a file");
	/* attributes of a file, a directory behind them */
	snprintf(e.sh->craft_attr_name, sizeof(e.sh->craft_attr_name), "afile");
	fds[0] = dir;
	EXPECT(bad_reply(&e, ents, sizeof(ents), fds, EISDIR) == TAP_OK, "a file backed by a directory");
	ret = TAP_OK;
out:
	if (file >= 0)
		close(file);
	if (dir >= 0)
		close(dir);
	if (pt_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/* A no_daemon mount of dir at mnt; 0 or -errno. */
static int mount_no_daemon(const char *mnt, const char *dir, const char *extra)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), fd;
	char opts[256];

	if (dfd < 0)
		return -errno;
	snprintf(opts, sizeof(opts), "root_dir=%d,no_daemon%s%s", dfd, extra ? "," : "", extra ? extra : "");
	fd = tfuse_mount(mnt, opts);
	close(dfd);
	if (fd < 0)
		return fd;
	/* No one reads it: there is no server. */
	close(fd);
	return 0;
}

/*
 * tmpfs (depth 0) <- A (1) <- B (2) <- C (3): C exceeds
 * FILESYSTEM_MAX_STACK_DEPTH, as a root_dir mount and as a lookup reply
 * (ELOOP). A connection's depth is fixed at mount time, and a
 * backing must be strictly shallower: the served mount has stack_depth=2,
 * so a backing fd in A (depth 1) is fine and one in B (depth 2) is not.
 */
static int t_bad_stacking_too_deep(void)
{
	struct fuse_bpf_entry_out ents[] = { BACKING(0) };
	int ret = TAP_FAIL, rc, fds[PT_CRAFT_MAX] = { -1, -1, -1, -1 }, bfd = -1, afd = -1;
	char a[200], bm[200], c[200];
	bool a_up = false, b_up = false;
	struct pt_env e;
	struct stat st;

	rc = pt_setup(&e, PT_TMPFS, "stack_depth=2");
	EXPECT(!rc, "setup with stack_depth=2: %s", strerror(-rc));
	rc = pt_setup_data(&e);
	EXPECT(!rc);
	snprintf(a, sizeof(a), "%s/a", e.dir);
	snprintf(bm, sizeof(bm), "%s/b", e.dir);
	snprintf(c, sizeof(c), "%s/c", e.dir);
	OK(mkdir(a, 0755));
	OK(mkdir(bm, 0755));
	OK(mkdir(c, 0755));
	OK(mkdir(P(e.back, "lower"), 0755));
	OK(mkdir(P(e.back, "lower/sub"), 0755));
	rc = mount_no_daemon(a, P(e.back, "lower"), NULL);
	EXPECT(!rc, "depth 1: %s", strerror(-rc));
	a_up = true;
	rc = mount_no_daemon(bm, P(a, "sub"), NULL);
	EXPECT(!rc, "depth 2: %s", strerror(-rc));
	b_up = true;
	rc = mount_no_daemon(c, bm, NULL);
	EXPECT(rc == -ELOOP, "depth 3 as root_dir: %s, expected ELOOP", rc ? strerror(-rc) : "mounted");
	if (!rc)
		umount2(c, MNT_DETACH);
	/* A lookup reply backed by B would make depth 3. */
	bfd = open(bm, O_RDONLY | O_DIRECTORY);
	EXPECT(bfd >= 0, "open %s: %s", bm, strerror(errno));
	fds[0] = bfd;
	EXPECT(bad_reply(&e, ents, sizeof(ents), fds, ELOOP) == TAP_OK, "a backing fd at depth 2");
	/* One in A (depth 1) under a depth-2 connection: allowed. */
	afd = open(a, O_RDONLY | O_DIRECTORY);
	EXPECT(afd >= 0);
	fds[0] = afd;
	snprintf(e.sh->craft_name, sizeof(e.sh->craft_name), "ok");
	e.sh->craft[0] = (struct fuse_bpf_entry_out)BACKING(0);
	e.sh->craft_len = sizeof(e.sh->craft[0]);
	e.sh->craft_test_fd[0] = afd;
	e.sh->backing_replies = 0;
	OK(stat(P(e.mnt, "ok/sub"), &st));
	pt_wait_replies(&e, 1);
	EXPECT(e.sh->last_reply_err == 0, "a backing fd at depth 1: %s", strerror(e.sh->last_reply_err));
	ret = TAP_OK;
out:
	if (bfd >= 0)
		close(bfd);
	if (afd >= 0)
		close(afd);
	/* The server's mount may use A, B uses A, A uses the backing tmpfs. */
	if (e.fuse_mounted) {
		tfuse_stop(e.mnt, e.server);
		e.fuse_mounted = false;
		e.server = -1;
	}
	if (b_up && umount2(bm, 0)) {
		printf("umount %s: %s\n", bm, strerror(errno));
		umount2(bm, MNT_DETACH);
	}
	if (a_up && umount2(a, 0)) {
		printf("umount %s: %s\n", a, strerror(errno));
		umount2(a, MNT_DETACH);
	}
	if (pt_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/*
 * A view stacked on a view (B over A over ext4): a directory removed through
 * B gives its ext4 inode back at once, as through A alone
 * (remove_dir_frees_inode), even after a missing name was looked up in it.
 * Each level prunes its children from inside its own ->rmdir(): A's runs
 * inside B's backing vfs_rmdir(), while B's negative child still holds A's,
 * which holds ext4's; B's prune then frees A's child, whose ext4 child
 * would stay cached (ext4 keeps negative dentries) with its removed parent
 * if nobody pruned it: the prune must go down the stack.
 */
static int t_stacked_rmdir_frees_inode(void)
{
	int ret = TAP_FAIL, rc;
	char a[200], bm[200];
	bool a_up = false, b_up = false;
	long long free0, free1;
	struct pt_env e;
	struct stat st;

	rc = pt_setup(&e, PT_EXT4, NULL);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	snprintf(a, sizeof(a), "%s/a", e.dir);
	snprintf(bm, sizeof(bm), "%s/b", e.dir);
	OK(mkdir(a, 0755));
	OK(mkdir(bm, 0755));
	OK(mkdir(P(e.back, "lower"), 0755));
	rc = mount_no_daemon(a, P(e.back, "lower"), NULL);
	EXPECT(!rc, "A over ext4: %s", strerror(-rc));
	a_up = true;
	rc = mount_no_daemon(bm, a, NULL);
	EXPECT(!rc, "B over A: %s", strerror(-rc));
	b_up = true;
	free0 = back_free_inodes(e.back);
	EXPECT(free0 >= 0, "statfs: %s", strerror(errno));
	/* Control: a directory with no name looked up in it. */
	OK(mkdir(P(bm, "c"), 0755));
	OK(rmdir(P(bm, "c")));
	free1 = back_free_inodes(e.back);
	EXPECT(free1 >= free0, "after a plain rmdir through B, %lld inodes in use", free0 - free1);
	OK(mkdir(P(bm, "d"), 0755));
	ERR(stat(P(bm, "d/absent"), &st), ENOENT);
	OK(rmdir(P(bm, "d")));
	ERR(stat(P(e.back, "lower/d"), &st), ENOENT);
	free1 = back_free_inodes(e.back);
	EXPECT(free1 >= free0, "after an rmdir through B of a directory with a name looked up in "
	       "it, %lld inodes in use", free0 - free1);
	ret = TAP_OK;
out:
	if (b_up && umount2(bm, 0)) {
		printf("umount %s: %s\n", bm, strerror(errno));
		umount2(bm, MNT_DETACH);
	}
	if (a_up && umount2(a, 0)) {
		printf("umount %s: %s\n", a, strerror(errno));
		umount2(a, MNT_DETACH);
	}
	if (pt_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/* --- root_dir and no_daemon ---------------------------------------------------------- */

static int t_root_dir_not_a_directory(void)
{
	char mnt[] = "/tmp/pt-rootdir-XXXXXX", file[64], opts[64];
	int ret = TAP_FAIL, ffd = -1, rc = 0;

	EXPECT(mkdtemp(mnt));
	snprintf(file, sizeof(file), "%s.file", mnt);
	EXPECT(write_file(file, "x", 1) == 0);
	ffd = open(file, O_RDONLY);
	EXPECT(ffd >= 0);
	snprintf(opts, sizeof(opts), "root_dir=%d,no_daemon", ffd);
	rc = tfuse_mount(mnt, opts);
	EXPECT(rc == -ENOTDIR, "root_dir of a file, no_daemon: %s, expected ENOTDIR",
	       rc < 0 ? strerror(-rc) : "mounted");
	snprintf(opts, sizeof(opts), "root_dir=%d", ffd);
	rc = tfuse_mount(mnt, opts);
	EXPECT(rc == -ENOTDIR, "root_dir of a file: %s, expected ENOTDIR", rc < 0 ? strerror(-rc) : "mounted");
	ret = TAP_OK;
out:
	if (rc >= 0) {
		close(rc);
		umount2(mnt, MNT_DETACH);
	}
	if (ffd >= 0)
		close(ffd);
	unlink(file);
	rmdir(mnt);
	return ret;
}

/* A mount option that is not an open fd is a bad option: EINVAL, like fd=. */
static int t_root_dir_bad_fd(void)
{
	char mnt[] = "/tmp/pt-rootdir-XXXXXX";
	int ret = TAP_FAIL, rc = 0;

	EXPECT(mkdtemp(mnt));
	rc = tfuse_mount(mnt, "root_dir=999,no_daemon");
	EXPECT(rc == -EINVAL, "root_dir of a closed fd: %s, expected EINVAL", rc < 0 ? strerror(-rc) : "mounted");
	ret = TAP_OK;
out:
	if (rc >= 0) {
		close(rc);
		umount2(mnt, MNT_DETACH);
	}
	rmdir(mnt);
	return ret;
}

static int t_no_daemon_needs_root_dir(void)
{
	char mnt[] = "/tmp/pt-nodaemon-XXXXXX";
	int ret = TAP_FAIL, rc = 0;

	EXPECT(mkdtemp(mnt));
	rc = tfuse_mount(mnt, "no_daemon");
	EXPECT(rc == -EINVAL, "no_daemon without root_dir: %s, expected EINVAL",
	       rc < 0 ? strerror(-rc) : "mounted");
	ret = TAP_OK;
out:
	if (rc >= 0) {
		close(rc);
		umount2(mnt, MNT_DETACH);
	}
	rmdir(mnt);
	return ret;
}

/* A no_daemon mount: nobody holds /dev/fuse, and everything works. */
static int t_no_daemon(void)
{
	char dir[] = "/tmp/pt-nodaemon-XXXXXX", back[64], mnt[64], buf[64];
	int ret = TAP_FAIL, rc, fd = -1;
	bool mounted = false;
	struct statfs sfs;
	struct stat st;
	char *lm = NULL, *lb = NULL;

	EXPECT(mkdtemp(dir));
	snprintf(back, sizeof(back), "%s/back", dir);
	snprintf(mnt, sizeof(mnt), "%s/mnt", dir);
	OK(mkdir(back, 0755));
	OK(mkdir(mnt, 0755));
	EXPECT(write_file(P(back, "hello"), "no daemon\n", 10) == 0);
	OK(mkdir(P(back, "sub"), 0755));
	rc = mount_no_daemon(mnt, back, NULL);
	EXPECT(!rc, "mount: %s", strerror(-rc));
	mounted = true;
	EXPECT(read_file(P(mnt, "hello"), buf, sizeof(buf)) == 10 && strcmp(buf, "no daemon\n") == 0,
	       "read '%s'", buf);
	EXPECT(write_file(P(mnt, "sub/new"), "made", 4) == 0, "create: %s", strerror(errno));
	EXPECT(read_file(P(back, "sub/new"), buf, sizeof(buf)) == 4);
	OK(stat(mnt, &st));
	EXPECT(S_ISDIR(st.st_mode));
	lm = pt_listing(mnt);
	lb = pt_listing(back);
	EXPECT(lm && lb && strcmp(lm, lb) == 0, "listings differ:\n%s\n--\n%s", lm, lb);
	OK(statfs(mnt, &sfs));
	EXPECT(sfs.f_type == FUSE_SUPER_MAGIC, "f_type %lx", (long)sfs.f_type);
	OK(rename(P(mnt, "hello"), P(mnt, "sub/hello")));
	OK(stat(P(back, "sub/hello"), &st));
	OK(unlink(P(mnt, "sub/hello")));
	ERR(stat(P(back, "sub/hello"), &st), ENOENT);
	fd = open(mnt, O_RDONLY | O_DIRECTORY);
	EXPECT(fd >= 0);
	OK(fsync(fd));
	OK(close(fd));
	fd = -1;
	/* Without fd=, rootmode=, user_id= and group_id= too: only root_dir. */
	OK(umount2(mnt, 0));
	mounted = false;
	fd = open(back, O_RDONLY | O_DIRECTORY);
	EXPECT(fd >= 0);
	snprintf(buf, sizeof(buf), "root_dir=%d,no_daemon", fd);
	OK(mount("nodaemon", mnt, "fuse.nodaemon", 0, buf));
	mounted = true;
	OK(close(fd));
	fd = -1;
	EXPECT(read_file(P(mnt, "sub/new"), buf, sizeof(buf)) == 4 && strcmp(buf, "made") == 0, "read '%s'", buf);
	OK(stat(mnt, &st));
	EXPECT(st.st_uid == 0 && S_ISDIR(st.st_mode), "root: uid %u mode %o", st.st_uid, st.st_mode);
	ret = TAP_OK;
out:
	if (fd >= 0)
		close(fd);
	free(lm);
	free(lb);
	if (mounted && umount2(mnt, 0)) {
		printf("umount: %s\n", strerror(errno));
		umount2(mnt, MNT_DETACH);
		ret = TAP_FAIL;
	}
	run("rm -rf %s", dir);
	return ret;
}

/* root_dir with a server: the root is backed, the server sees nothing at all. */
static int t_root_dir_with_server(void)
{
	char tmpl[] = "/tmp/pt-rootdir-back-XXXXXX", opts[64], buf[16], why[256], *listing = NULL;
	int ret = TAP_FAIL, rc, dfd = -1;
	struct tfuse_counts before;
	bool made = false;
	struct pt_env e;

	memset(&e, 0, sizeof(e));
	e.fuse_fd = e.back_fd = e.server = -1;
	EXPECT(mkdtemp(tmpl));
	made = true;
	dfd = open(tmpl, O_RDONLY | O_DIRECTORY);
	EXPECT(dfd >= 0);
	EXPECT(write_file(P(tmpl, "f"), "rootdir", 7) == 0);
	snprintf(opts, sizeof(opts), "root_dir=%d", dfd);
	rc = pt_setup(&e, PT_TMPFS, opts);
	EXPECT(!rc, "mount with %s: %s", opts, strerror(-rc));
	tfuse_counts_get(e.counts, &before);
	EXPECT(read_file(P(e.mnt, "f"), buf, sizeof(buf)) == 7 && strcmp(buf, "rootdir") == 0);
	EXPECT(write_file(P(e.mnt, "g"), "new", 3) == 0);
	EXPECT(read_file(P(tmpl, "g"), buf, sizeof(buf)) == 3);
	OK(stat(e.mnt, &(struct stat){ 0 }));
	listing = pt_listing(e.mnt);
	EXPECT(listing && strcmp(listing, "f\ng\n") == 0, "listing '%s'", listing);
	EXPECT(!pt_unexpected_requests(&e, &before, 0, why, sizeof(why)), "the server got %s", why);
	ret = TAP_OK;
out:
	free(listing);
	if (pt_teardown(&e))
		ret = TAP_FAIL;
	if (dfd >= 0)
		close(dfd);
	if (made)
		run("rm -rf %s", tmpl);
	return ret;
}

/* --- credentials ---------------------------------------------------------------------- */

/* In a child as nobody: what passthrough lets a non-root user do is what the backing does. */
static int as_nobody(struct pt_env *e)
{
	const char *m = e->m, *b = e->b;
	char buf[64];
	int ret = TAP_FAIL;
	struct stat st;

	EXPECT(setgroups(0, NULL) == 0 && setgid(65534) == 0 && setuid(65534) == 0);
	EXPECT(read_file(P(m, "public"), buf, sizeof(buf)) == 6, "a 0644 file: %s", strerror(errno));
	ERR(open(P(m, "secret"), O_RDONLY), EACCES);
	ERR(access(P(m, "secret"), R_OK), EACCES);
	ERR(open(P(m, "public"), O_WRONLY), EACCES);
	ERR(stat(P(m, "private/file"), &st), EACCES);
	/* An exec-only directory: its files can be reached, it can't be listed. */
	EXPECT(read_file(P(m, "xonly/file"), buf, sizeof(buf)) == 1, "a file in a 0711 directory: %s",
	       strerror(errno));
	ERR(open(P(m, "xonly"), O_RDONLY | O_DIRECTORY), EACCES);
	ERR(open(P(m, "new"), O_CREAT | O_WRONLY, 0600), EACCES);
	ERR(unlink(P(m, "public")), EACCES);
	ERR(chmod(P(m, "secret"), 0666), EPERM);
	ERR(truncate(P(m, "public"), 0), EACCES);
	/* In a directory it owns, what it makes is its own. */
	EXPECT(write_file(P(m, "mine/f"), "mine", 4) == 0, "create in an owned directory: %s", strerror(errno));
	OK(stat(P(b, "mine/f"), &st));
	EXPECT(st.st_uid == 65534 && st.st_gid == 65534, "created as %u:%u", st.st_uid, st.st_gid);
	OK(mkdir(P(m, "mine/d"), 0700));
	OK(stat(P(b, "mine/d"), &st));
	EXPECT(st.st_uid == 65534, "mkdir as %u", st.st_uid);
	ret = TAP_OK;
out:
	return ret;
}

static int t_caller_credentials(void)
{
	int ret = TAP_FAIL, rc, status;
	struct pt_env e;
	char buf[64];
	pid_t pid;

	rc = pt_setup(&e, PT_TMPFS, "allow_other");
	EXPECT(!rc, "setup: %s", strerror(-rc));
	rc = pt_setup_data(&e);
	EXPECT(!rc);
	EXPECT(write_file(P(e.b, "secret"), "secret", 6) == 0);
	OK(chmod(P(e.b, "secret"), 0600));
	EXPECT(write_file(P(e.b, "public"), "public", 6) == 0);
	OK(chmod(P(e.b, "public"), 0644));
	OK(mkdir(P(e.b, "private"), 0700));
	EXPECT(write_file(P(e.b, "private/file"), "x", 1) == 0);
	OK(mkdir(P(e.b, "xonly"), 0711));
	EXPECT(write_file(P(e.b, "xonly/file"), "y", 1) == 0);
	OK(mkdir(P(e.b, "mine"), 0755));
	OK(chown(P(e.b, "mine"), 65534, 65534));
	fflush(stdout);
	pid = fork();
	EXPECT(pid >= 0);
	if (pid == 0)
		_exit(as_nobody(&e));
	EXPECT(waitpid(pid, &status, 0) == pid);
	EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == TAP_OK, "as nobody: status %x", status);
	/* Root reads what nobody could not. */
	EXPECT(read_file(P(e.m, "secret"), buf, sizeof(buf)) == 6, "root: %s", strerror(errno));
	ret = TAP_OK;
out:
	if (pt_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/* --- data integrity ----------------------------------------------------------------------- */

#define MIX_FILES 4
#define MIX_OPS 4000
#define MIX_MAX (384 * 1024)

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Store buf at off of fd through a MAP_SHARED mapping. */
static int mmap_store(int fd, off_t off, const char *buf, size_t len)
{
	off_t start = off & ~(off_t)4095;
	size_t maplen = off + len - start;
	char *p = mmap(NULL, maplen, PROT_READ | PROT_WRITE, MAP_SHARED, fd, start);

	if (p == MAP_FAILED)
		return -errno;
	memcpy(p + (off - start), buf, len);
	return munmap(p, maplen) ? -errno : 0;
}

static int compare_fds(int a, int b, const char *what)
{
	static char x[MIX_MAX + 65536], y[MIX_MAX + 65536];
	struct stat sa, sb;
	ssize_t na, nb;

	if (fstat(a, &sa) || fstat(b, &sb))
		return -1;
	na = pread(a, x, sizeof(x), 0);
	nb = pread(b, y, sizeof(y), 0);
	if (sa.st_size != sb.st_size || na != nb || na != sa.st_size) {
		printf("%s: sizes %ld/%ld, read %zd/%zd\n", what, sa.st_size, sb.st_size, na, nb);
		return -1;
	}
	for (ssize_t i = 0; i < na; i++) {
		if (x[i] != y[i]) {
			printf("%s: first difference at byte %zd\n", what, i);
			return -1;
		}
	}
	return 0;
}

static int integrity(enum pt_backing kind)
{
	int ret = TAP_FAIL, rc, fm[MIX_FILES], fc[MIX_FILES], fb[MIX_FILES];
	static char buf[65536], got_m[65536], got_c[65536];
	uint64_t seed = 0x5eed0000 + kind, s = seed;
	struct tfuse_counts before;
	char copy[200], why[256];
	int counts[6] = { 0 };
	struct pt_env e;

	for (int i = 0; i < MIX_FILES; i++)
		fm[i] = fc[i] = fb[i] = -1;
	rc = pt_setup(&e, kind, NULL);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	if (getenv("TEST_PT_DIRECT")) {	/* see pt_run_op() */
		e.direct = true;
		OK(mkdir(e.b, 0755));
		strcpy(e.m, e.b);
	} else {
		rc = pt_setup_data(&e);
		EXPECT(!rc);
	}
	tfuse_counts_get(e.counts, &before);
	snprintf(copy, sizeof(copy), "%s/copy", e.dir);
	OK(mkdir(copy, 0755));
	printf("seed %#llx, %d operations over %d files\n", (unsigned long long)seed, MIX_OPS, MIX_FILES);
	for (int i = 0; i < MIX_FILES; i++) {
		char name[16];

		snprintf(name, sizeof(name), "f%d", i);
		fm[i] = open(P(e.m, name), O_CREAT | O_RDWR, 0644);
		fc[i] = open(P(copy, name), O_CREAT | O_RDWR, 0644);
		EXPECT(fm[i] >= 0 && fc[i] >= 0, "open %s: %s", name, strerror(errno));
		fb[i] = open(P(e.b, name), O_RDONLY);
		EXPECT(fb[i] >= 0);
	}
	for (int n = 0; n < MIX_OPS; n++) {
		int f = rng_next(&s) % MIX_FILES, what = rng_next(&s) % 100;
		off_t off = rng_next(&s) % MIX_MAX;
		size_t len = 1 + rng_next(&s) % 20000;
		struct stat sm, sc;
		long rm, rcp;
		int em, ec;

		if (what < 35) {
			counts[0]++;
			pt_fill(buf, len, n);
			rm = pwrite(fm[f], buf, len, off);
			em = errno;
			rcp = pwrite(fc[f], buf, len, off);
			ec = errno;
			EXPECT(rm == rcp && (rm >= 0 || em == ec), "op %d pwrite(f%d, %zu, %ld): %ld/%ld (%s)", n, f,
			       len, (long)off, rm, rcp, strerror(em));
		} else if (what < 60) {
			counts[1]++;
			rm = pread(fm[f], got_m, len, off);
			rcp = pread(fc[f], got_c, len, off);
			EXPECT(rm == rcp && rm >= 0, "op %d pread(f%d, %zu, %ld): %ld/%ld", n, f, len, (long)off, rm,
			       rcp);
			EXPECT(memcmp(got_m, got_c, rm) == 0, "op %d pread(f%d, %zu, %ld) bytes differ", n, f, len,
			       (long)off);
		} else if (what < 70) {
			counts[2]++;
			rm = ftruncate(fm[f], off);
			rcp = ftruncate(fc[f], off);
			EXPECT(rm == 0 && rcp == 0, "op %d ftruncate(f%d, %ld): %s", n, f, (long)off, strerror(errno));
		} else if (what < 80) {
			static const int modes[] = { 0, FALLOC_FL_KEEP_SIZE,
						     FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE };
			int mode = modes[rng_next(&s) % 3];

			counts[3]++;
			len = 1 + rng_next(&s) % 65536;
			rm = fallocate(fm[f], mode, off, len);
			em = errno;
			rcp = fallocate(fc[f], mode, off, len);
			ec = errno;
			EXPECT(rm == rcp && (rm == 0 || em == ec), "op %d fallocate(f%d, %x, %ld, %zu): %ld/%ld (%s/%s)",
			       n, f, mode, (long)off, len, rm, rcp, strerror(em), strerror(ec));
		} else if (what < 95) {
			OK(fstat(fm[f], &sm));
			OK(fstat(fc[f], &sc));
			EXPECT(sm.st_size == sc.st_size, "op %d: f%d has %ld bytes through the mount, %ld in the copy",
			       n, f, sm.st_size, sc.st_size);
			if (sm.st_size == 0)
				continue;
			counts[4]++;
			off = off % sm.st_size;
			if ((off_t)len > sm.st_size - off)
				len = sm.st_size - off;
			pt_fill(buf, len, n);
			rc = mmap_store(fm[f], off, buf, len);
			EXPECT(!rc, "op %d mmap store through the mount: %s", n, strerror(-rc));
			rc = mmap_store(fc[f], off, buf, len);
			EXPECT(!rc, "op %d mmap store in the copy: %s", n, strerror(-rc));
		} else {
			counts[5]++;
			OK(fsync(fm[f]));
			OK(fdatasync(fc[f]));
		}
		if (n % 500 == 499 || n == MIX_OPS - 1) {
			for (int i = 0; i < MIX_FILES; i++) {
				char what_m[64], what_b[64];

				snprintf(what_m, sizeof(what_m), "after op %d, f%d through the mount", n, i);
				snprintf(what_b, sizeof(what_b), "after op %d, f%d on the backing", n, i);
				EXPECT(!compare_fds(fm[i], fc[i], what_m), "%s", what_m);
				EXPECT(!compare_fds(fb[i], fc[i], what_b), "%s", what_b);
			}
		}
	}
	printf("pwrite %d, pread %d, ftruncate %d, fallocate %d, mmap %d, fsync %d\n", counts[0], counts[1],
	       counts[2], counts[3], counts[4], counts[5]);
	for (int i = 0; i < MIX_FILES; i++) {
		char name[16];

		snprintf(name, sizeof(name), "f%d", i);
		EXPECT(!close(fm[i]), "close f%d: %s", i, strerror(errno));
		fm[i] = -1;
		EXPECT(!pt_same_bytes(P(e.m, name), P(copy, name)));
		EXPECT(!pt_same_bytes(P(e.b, name), P(copy, name)));
	}
	EXPECT(e.direct || !pt_unexpected_requests(&e, &before, 0, why, sizeof(why)), "the server got %s", why);
	ret = TAP_OK;
out:
	for (int i = 0; i < MIX_FILES; i++) {
		if (fm[i] >= 0)
			close(fm[i]);
		if (fc[i] >= 0)
			close(fc[i]);
		if (fb[i] >= 0)
			close(fb[i]);
	}
	if (pt_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

static int t_integrity_tmpfs(void)
{
	return integrity(PT_TMPFS);
}

static int t_integrity_ext4(void)
{
	return integrity(PT_EXT4);
}

/* --- the cases ---------------------------------------------------------------------------- */

#define PT_OP_WRAPPERS(name)                                    \
	static int t_##name##_tmpfs(void)                       \
	{                                                       \
		return pt_run_op(op_##name, PT_TMPFS);          \
	}                                                       \
	static int t_##name##_ext4(void)                        \
	{                                                       \
		return pt_run_op(op_##name, PT_EXT4);           \
	}
PT_OPS(PT_OP_WRAPPERS)

#define PT_OP_TMPFS(name) { #name "_tmpfs", t_##name##_tmpfs },
#define PT_OP_EXT4(name) { #name "_ext4", t_##name##_ext4 },

static const struct tap_case cases[] = {
	{ "backing_reply_via_ioctl", t_backing_reply_via_ioctl },
	{ "backing_reply_via_write_fails", t_backing_reply_via_write_fails },
	{ "backing_reply_variants", t_backing_reply_variants },
	{ "revalidate_backing_of_other_name", t_revalidate_backing_of_other_name },
	{ "revalidate_backing_mount_root", t_revalidate_backing_mount_root },
	{ "server_unlink_frees_space", t_server_unlink_frees_space },
	{ "server_rmdir_frees_inode", t_server_rmdir_frees_inode },
	{ "bad_reply_entry_type", t_bad_entry_type },
	{ "bad_reply_entry_type_zero", t_bad_entry_type_zero },
	{ "bad_reply_unused_nonzero", t_bad_unused_nonzero },
	{ "bad_reply_too_many_entries", t_bad_too_many_entries },
	{ "bad_reply_two_backing_entries", t_bad_two_backing_entries },
	{ "bad_reply_size_not_multiple", t_bad_size_not_multiple },
	{ "bad_reply_fd_not_open", t_bad_fd_not_open },
	{ "bad_reply_fd_negative", t_bad_fd_negative },
	{ "bad_reply_fd_on_same_mount", t_bad_fd_on_same_mount },
	{ "bad_reply_stacking_too_deep", t_bad_stacking_too_deep },
	{ "stacked_rmdir_frees_inode", t_stacked_rmdir_frees_inode },
	{ "bad_reply_type_mismatch", t_bad_type_mismatch },
	{ "root_dir_not_a_directory", t_root_dir_not_a_directory },
	{ "root_dir_bad_fd", t_root_dir_bad_fd },
	{ "no_daemon_needs_root_dir", t_no_daemon_needs_root_dir },
	{ "no_daemon", t_no_daemon },
	{ "root_dir_with_server", t_root_dir_with_server },
	{ "caller_credentials", t_caller_credentials },
	PT_OPS(PT_OP_TMPFS)
	PT_OPS(PT_OP_EXT4)
	{ "integrity_tmpfs", t_integrity_tmpfs },
	{ "integrity_ext4", t_integrity_ext4 },
};

TAP_MAIN("passthrough", cases)
