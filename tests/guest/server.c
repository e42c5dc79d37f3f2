// SPDX-License-Identifier: GPL-2.0
/*
 * What the kernel asks of a FUSE server and takes from it when some of the
 * mount's nodes are backed: lookups it was given come back in FORGETs, a
 * filter's ENOSYS switches no feature off, nothing about a backed node
 * (nodeid 0) reaches the server (renames across the two kinds, locks,
 * ioctls, readahead, FIBMAP, notifications), CUSE devices stay CUSE's, and
 * a filter that hands a WRITE to the server where the server must not be
 * asked (under mmap_lock) fails instead.
 *
 * Each case runs the table server (tests/guest/table_srv.c) on a mount of
 * its own, and is killed after CASE_TIMEOUT seconds.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fusebpf_uapi.h"
#include "table_srv.h"
#include "tap.h"
#include "tfuse.h"
#include "tproc.h"

/*
 * A node first looked up without a backing (nodeid 5, entry valid 0 s);
 * its revalidation LOOKUP is answered with a backing: the kernel drops the
 * dentry and must FORGET that reply's lookup. Once the caches are dropped,
 * every lookup the server gave is forgotten.
 */
static int t_revalidate_forget(void)
{
	int ret = TAP_FAIL, rc;
	struct ts_ent *ent;
	struct ts_env e;
	struct stat st;

	rc = ts_setup(&e, NULL);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	OK(mkdir(at(e.back, "d"), 0755));
	EXPECT(write_file(at(e.back, "d/f"), "x", 1) == 0);
	ent = ts_add(&e, FUSE_ROOT_ID, "n", NULL);
	ent->nodeid = 5;
	ent->entry_valid = 0;
	OK(stat(at(e.mnt, "n"), &st));
	EXPECT(!ts_wait(ent, 1) && e.sh->granted[5] == 1, "%u lookups of n", e.sh->granted[5]);
	/* Now backed: the next revalidation gets a backing reply. */
	snprintf(ent->path, sizeof(ent->path), "%s", at(e.back, "d"));
	ent->kind = TS_BACKING;
	ent->entry_valid = 3600;
	usleep(20000);
	OK(stat(at(e.mnt, "n/f"), &st));
	EXPECT(ts_wait(ent, 3) == 0, "%u replies", ent->replies);
	printf("lookups taken for nodeid 5: %u (plain, revalidation, new lookup)\n", e.sh->granted[5]);
	EXPECT(e.sh->granted[5] >= 2, "the revalidation was not answered with a backing");
	drop_caches();
	EXPECT(forgets_balance(e.sh) == 0, "the server's lookup counts do not balance");
	ret = TAP_OK;
out:
	if (ts_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/*
 * A backed create that a filter fails with ENOSYS must not switch CREATE
 * off for the connection: a create in an unbacked directory of the same
 * mount then still sends FUSE_CREATE (not FUSE_MKNOD) to the server.
 */
static int t_create_enosys(void)
{
	int ret = TAP_FAIL, rc, prog = -1, fd = -1;
	struct tfuse_counts before, now;
	struct ts_ent *ent;
	struct ts_env e;
	struct stat st;

	prog = load_prog(true);
	if (prog == -ENOENT)
		SKIP("kernel without fuse-bpf BPF");
	EXPECT(prog >= 0, "loading the ENOSYS filter: %s", strerror(-prog));
	rc = ts_setup(&e, NULL);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	OK(mkdir(at(e.back, "b"), 0755));
	ent = ts_add(&e, FUSE_ROOT_ID, "b", at(e.back, "b"));
	ent->bpf_fd = prog;
	ts_add(&e, FUSE_ROOT_ID, "u", NULL)->nodeid = 3;
	OK(stat(at(e.mnt, "b"), &st));
	OK(stat(at(e.mnt, "u"), &st));
	fd = open(at(e.mnt, "b/new"), O_CREAT | O_WRONLY, 0644);
	printf("backed create with the filter's ENOSYS: %s\n", fd >= 0 ? "created" : strerror(errno));
	EXPECT(fd >= 0 || errno == ENOSYS, "backed create: %s", strerror(errno));
	EXPECT((fd >= 0) == !lstat(at(e.back, "b/new"), &st),
	       "the open %s but the backing file is %s", fd >= 0 ? "succeeded" : "failed",
	       fd >= 0 ? "missing" : "there");
	tfuse_counts_get(e.counts, &before);
	ERR(open(at(e.mnt, "u/new"), O_CREAT | O_WRONLY, 0644), EROFS);
	tfuse_counts_get(e.counts, &now);
	EXPECT(now.op[FUSE_CREATE] - before.op[FUSE_CREATE] == 1 &&
	       now.op[FUSE_MKNOD] == before.op[FUSE_MKNOD],
	       "the unbacked create sent %u CREATE and %u MKNOD", now.op[FUSE_CREATE] - before.op[FUSE_CREATE],
	       now.op[FUSE_MKNOD] - before.op[FUSE_MKNOD]);
	ret = TAP_OK;
out:
	if (fd >= 0)
		close(fd);
	ts_filter_close(prog);
	if (ts_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/*
 * rename between a backed directory (nodeid 0) and an unbacked one, both
 * ways, fails EXDEV; the server gets no RENAME and nothing about nodeid 0.
 */
static int t_rename_backed_unbacked(void)
{
	struct tfuse_counts before, now;
	int ret = TAP_FAIL, rc;
	struct ts_ent *ent;
	struct ts_env e;
	struct stat st;

	rc = ts_setup(&e, NULL);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	OK(mkdir(at(e.back, "b"), 0755));
	EXPECT(write_file(at(e.back, "b/f"), "f", 1) == 0);
	ts_add(&e, FUSE_ROOT_ID, "b", at(e.back, "b"));
	ts_add(&e, FUSE_ROOT_ID, "u", NULL)->nodeid = 3;
	ent = ts_add(&e, 3, "uf", NULL);
	ent->nodeid = 4;
	ent->mode_set = true;
	ent->mode = S_IFREG | 0644;
	OK(stat(at(e.mnt, "b/f"), &st));
	OK(stat(at(e.mnt, "u/uf"), &st));
	tfuse_counts_get(e.counts, &before);
	ERR(rename(at(e.mnt, "b/f"), at(e.mnt, "u/f")), EXDEV);
	ERR(rename(at(e.mnt, "u/uf"), at(e.mnt, "b/uf")), EXDEV);
	ERR(renameat2(AT_FDCWD, at(e.mnt, "u/uf"), AT_FDCWD, at(e.mnt, "b/uf"), RENAME_NOREPLACE), EXDEV);
	tfuse_counts_get(e.counts, &now);
	EXPECT(now.op[FUSE_RENAME] == before.op[FUSE_RENAME] &&
	       now.op[FUSE_RENAME2] == before.op[FUSE_RENAME2], "the server got %u RENAME, %u RENAME2",
	       now.op[FUSE_RENAME] - before.op[FUSE_RENAME], now.op[FUSE_RENAME2] - before.op[FUSE_RENAME2]);
	EXPECT(e.sh->nodeid0 == 0, "the server got %u requests about nodeid 0 (the last %s)",
	       e.sh->nodeid0, tfuse_opname(e.sh->nodeid0_op));
	OK(lstat(at(e.back, "b/f"), &st));
	ret = TAP_OK;
out:
	if (ts_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

#define NOTIFY_FILES 2000

/*
 * Notifications naming nodeid 0 find no inode, however many passthrough
 * (nodeid 0) inodes exist: INVAL_INODE, STORE and RETRIEVE fail ENOENT.
 * (An inode lookup that matched by nodeid alone would find one that shares
 * a hash bucket.) INVAL_INODE of the root works.
 */
static int t_notify_nodeid0(void)
{
	struct fuse_notify_inval_inode_out inval = { .ino = 0 };
	struct fuse_notify_retrieve_out retr = { .notify_unique = 77, .nodeid = 0, .size = 4096 };
	struct {
		struct fuse_notify_store_out o;
		char data[8];
	} store = { .o = { .nodeid = 0, .offset = 0, .size = 8 }, .data = "notified" };
	int ret = TAP_FAIL, rc;
	struct ts_env e;
	struct stat st;
	char name[32];

	rc = ts_setup(&e, NULL);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	OK(mkdir(at(e.back, "b"), 0755));
	EXPECT(run("cd %s/b && seq 1 %d | xargs touch", e.back, NOTIFY_FILES) == 0);
	ts_add(&e, FUSE_ROOT_ID, "b", at(e.back, "b"));
	for (int i = 1; i <= NOTIFY_FILES; i++) {
		snprintf(name, sizeof(name), "b/%d", i);
		OK(stat(at(e.mnt, name), &st));
	}
	inval.ino = FUSE_ROOT_ID;
	rc = notify(e.fuse_fd, FUSE_NOTIFY_INVAL_INODE, &inval, sizeof(inval));
	EXPECT(rc == 0, "INVAL_INODE of the root: %s", strerror(-rc));
	inval.ino = 0;
	rc = notify(e.fuse_fd, FUSE_NOTIFY_INVAL_INODE, &inval, sizeof(inval));
	EXPECT(rc == -ENOENT, "INVAL_INODE of nodeid 0: %s", rc ? strerror(-rc) : "found an inode");
	rc = notify(e.fuse_fd, FUSE_NOTIFY_STORE, &store, sizeof(store));
	EXPECT(rc == -ENOENT, "STORE to nodeid 0: %s", rc ? strerror(-rc) : "found an inode");
	rc = notify(e.fuse_fd, FUSE_NOTIFY_RETRIEVE, &retr, sizeof(retr));
	EXPECT(rc == -ENOENT, "RETRIEVE of nodeid 0: %s", rc ? strerror(-rc) : "found an inode");
	ret = TAP_OK;
out:
	if (ts_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/* A CUSE device's server: INIT names the device, OPEN and POLL answered. */
static void cuse_serve(int fd, const char *devname)
{
	static char buf[1 << 17];

	for (;;) {
		struct fuse_in_header *h = (void *)buf;
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == ENOENT))
			continue;
		if (n < (ssize_t)sizeof(*h))
			return;
		if (h->opcode == CUSE_INIT) {
			struct {
				struct cuse_init_out o;
				char info[64];
			} r = { .o = { .major = FUSE_KERNEL_VERSION, .minor = FUSE_KERNEL_MINOR_VERSION,
				       .max_read = 65536, .max_write = 65536 } };
			int len = snprintf(r.info, sizeof(r.info), "DEVNAME=%s", devname) + 1;

			tfuse_reply(fd, h->unique, 0, &r, sizeof(r.o) + len);
		} else if (h->opcode == FUSE_OPEN) {
			struct fuse_open_out o = { .fh = 1, .open_flags = FOPEN_DIRECT_IO };

			tfuse_reply(fd, h->unique, 0, &o, sizeof(o));
		} else if (h->opcode == FUSE_POLL) {
			struct fuse_poll_out o = { .revents = POLLIN };

			tfuse_reply(fd, h->unique, 0, &o, sizeof(o));
		} else if (h->opcode != FUSE_FORGET && h->opcode != FUSE_INTERRUPT) {
			tfuse_reply(fd, h->unique, h->opcode == FUSE_RELEASE || h->opcode == FUSE_FLUSH ?
					0 : -ENOSYS, NULL, 0);
		}
	}
}

/*
 * poll() on a CUSE device goes to its server and gives its revents (the
 * fuse-bpf check in fuse_file_poll must not read CUSE's inode as a FUSE
 * inode; KASAN would report that).
 */
static int t_cuse_poll(void)
{
	int ret = TAP_FAIL, cfd = -1, dfd = -1, status;
	char devname[32], dev[64];
	struct pollfd pfd;
	pid_t server = -1;

	if (access("/dev/cuse", F_OK))
		SKIP("no /dev/cuse: kernel without CONFIG_CUSE");
	snprintf(devname, sizeof(devname), "ts_cuse_%d", getpid());
	snprintf(dev, sizeof(dev), "/dev/%s", devname);
	cfd = open("/dev/cuse", O_RDWR | O_CLOEXEC);
	EXPECT(cfd >= 0, "open /dev/cuse: %s", strerror(errno));
	server = fork();
	EXPECT(server >= 0);
	if (server == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		cuse_serve(cfd, devname);
		_exit(0);
	}
	for (int i = 0; i < 200 && access(dev, F_OK); i++)
		usleep(10000);
	dfd = open(dev, O_RDWR | O_CLOEXEC);
	EXPECT(dfd >= 0, "open %s: %s", dev, strerror(errno));
	pfd = (struct pollfd){ .fd = dfd, .events = POLLIN | POLLOUT };
	EXPECT(poll(&pfd, 1, 2000) == 1, "poll: %s", strerror(errno));
	EXPECT(pfd.revents == POLLIN, "revents %#x, the server said POLLIN", pfd.revents);
	ret = TAP_OK;
out:
	if (dfd >= 0)
		close(dfd);
	if (cfd >= 0)
		close(cfd);
	if (server > 0) {
		kill(server, SIGKILL);
		waitpid(server, &status, 0);
	}
	return ret;
}

/* In a child (another lock owner): F_GETLK on *fd sees the parent's write lock. */
static int getlk_sees_lock(void *p)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int ret = TAP_FAIL;

	OK(fcntl(*(int *)p, F_GETLK, &fl));
	EXPECT(fl.l_type == F_WRLCK && fl.l_pid == getppid(),
	       "F_GETLK: type %d pid %d, expected F_WRLCK by %d", fl.l_type, fl.l_pid, getppid());
	ret = TAP_OK;
out:
	return ret;
}

#define QUIET_DATA 65536

/*
 * The control: the connection takes locks to the server. A node the
 * server serves itself (nodeid 3) sends its F_SETLK there (one SETLK,
 * which ts_handler answers EIO).
 */
static int server_has_locks(struct ts_env *e)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	struct tfuse_counts before, now;
	int ret = TAP_FAIL, fd = -1;
	struct ts_ent *ent;

	ent = ts_add(e, FUSE_ROOT_ID, "served", NULL);
	EXPECT(ent);
	ent->nodeid = 3;
	ent->mode_set = true;
	ent->mode = S_IFREG | 0644;
	fd = open(at(e->mnt, "served"), O_RDWR | O_CLOEXEC);
	EXPECT(fd >= 0, "open: %s", strerror(errno));
	tfuse_counts_get(e->counts, &before);
	ERR(fcntl(fd, F_SETLK, &fl), EIO);
	tfuse_counts_get(e->counts, &now);
	EXPECT(now.op[FUSE_SETLK] - before.op[FUSE_SETLK] == 1, "%u SETLK reached the server",
	       now.op[FUSE_SETLK] - before.op[FUSE_SETLK]);
	ret = TAP_OK;
out:
	if (fd >= 0)
		close(fd);
	return ret;
}

/*
 * A backed node (nodeid 0) is unknown to the server, which offers POSIX and
 * flock locks at INIT: locks are kept by the kernel (a write lock works
 * and another process's F_GETLK sees it; flock works), ioctls fail ENOTTY
 * (FS_IOC_GETFLAGS and an unknown one), readahead(2) and fadvise(WILLNEED)
 * (where the kernel has it) read nothing into the FUSE inode's page cache,
 * FIBMAP has no answer; and the server gets no GETLK, SETLK, SETLKW, IOCTL,
 * READ or BMAP, and no request about nodeid 0 at all. Control: a node the
 * server serves itself sends its lock to the server.
 */
static int t_backed_node_no_server_requests(void)
{
	static const uint32_t quiet[] = { FUSE_GETLK, FUSE_SETLK, FUSE_SETLKW,
					  FUSE_IOCTL, FUSE_READ, FUSE_BMAP };
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int ret = TAP_FAIL, rc, fd = -1, flags = 0, blk = 0;
	static char data[QUIET_DATA];
	struct tfuse_counts now;
	bool quiet_ok = true;
	struct ts_env e;

	rc = ts_setup_flags(&e, NULL, FUSE_POSIX_LOCKS | FUSE_FLOCK_LOCKS);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	memset(data, 'q', sizeof(data));
	EXPECT(write_file(at(e.back, "f"), data, sizeof(data)) == 0);
	ts_add(&e, FUSE_ROOT_ID, "f", at(e.back, "f"));
	fd = open(at(e.mnt, "f"), O_RDWR | O_CLOEXEC);
	EXPECT(fd >= 0, "open: %s", strerror(errno));
	OK(fcntl(fd, F_SETLK, &fl));
	EXPECT(in_child(getlk_sees_lock, &fd) == TAP_OK, "the lock seen from another process");
	OK(flock(fd, LOCK_EX));
	ERR(ioctl(fd, FS_IOC_GETFLAGS, &flags), ENOTTY);
	ERR(ioctl(fd, _IO('h', 0x5a)), ENOTTY);
	/* ENOSYS: a kernel without CONFIG_ADVISE_SYSCALLS; readahead(2) takes the same path */
	rc = posix_fadvise(fd, 0, 0, POSIX_FADV_WILLNEED);
	EXPECT(rc == 0 || rc == ENOSYS, "posix_fadvise(WILLNEED): %s", strerror(rc));
	if (rc)
		printf("posix_fadvise: %s (no fadvise64 syscall in this kernel)\n", strerror(rc));
	OK(readahead(fd, 0, QUIET_DATA));
	OK(ioctl(fd, FIBMAP, &blk));
	EXPECT(blk == 0, "FIBMAP: block %d", blk);
	fl.l_type = F_UNLCK;
	OK(fcntl(fd, F_SETLK, &fl));
	OK(flock(fd, LOCK_UN));
	fl.l_type = F_WRLCK;
	OK(fcntl(fd, F_SETLK, &fl));
	/* close() drops this one: locks_remove_posix() */
	close(fd);
	fd = -1;
	tfuse_counts_get(e.counts, &now);
	for (size_t i = 0; i < sizeof(quiet) / sizeof(quiet[0]); i++) {
		if (now.op[quiet[i]]) {
			printf("the server got %u %s\n", now.op[quiet[i]], tfuse_opname(quiet[i]));
			quiet_ok = false;
		}
	}
	EXPECT(quiet_ok, "requests about a backed node reached the server");
	EXPECT(e.sh->nodeid0 == 0, "the server got %u requests about nodeid 0 (the last %s)",
	       e.sh->nodeid0, tfuse_opname(e.sh->nodeid0_op));
	EXPECT(server_has_locks(&e) == TAP_OK, "the server's own node");
	ret = TAP_OK;
out:
	if (fd >= 0)
		close(fd);
	if (ts_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/* A filter whose op prefilter returns verdict; 0 (the backing) for everything else. */
static int load_verdict_prog(uint32_t op, int verdict)
{
	return ts_filter("ts_verdict", op, verdict);
}

/*
 * mmap(MAP_SHARED) of a file open for writing asks its WRITE prefilter,
 * under mmap_lock, where the server must not be asked: a prefilter that
 * hands WRITE to the server (FUSE_BPF_USER_FILTER) makes a writable shared
 * mapping fail EIO, and the server gets no request; a read-only shared
 * mapping works and can't be made writable (mprotect EACCES).
 */
static int t_mmap_user_filter_eio(void)
{
	int ret = TAP_FAIL, rc, prog = -1, fd = -1;
	static char data[4096];
	struct tfuse_counts now;
	struct ts_ent *ent;
	void *p = MAP_FAILED;
	struct ts_env e;

	prog = load_verdict_prog(FUSE_WRITE, FUSE_BPF_USER_FILTER);
	if (prog == -ENOENT)
		SKIP("kernel without fuse-bpf BPF");
	EXPECT(prog >= 0, "loading the WRITE filter: %s", strerror(-prog));
	rc = ts_setup(&e, NULL);
	EXPECT(!rc, "setup: %s", strerror(-rc));
	memset(data, 'm', sizeof(data));
	EXPECT(write_file(at(e.back, "f"), data, sizeof(data)) == 0);
	ent = ts_add(&e, FUSE_ROOT_ID, "f", at(e.back, "f"));
	EXPECT(ent);
	ent->bpf_fd = prog;
	fd = open(at(e.mnt, "f"), O_RDWR | O_CLOEXEC);
	EXPECT(fd >= 0, "open: %s (reply: %s)", strerror(errno), strerror(ent->last_err));
	ERR(mmap(NULL, sizeof(data), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), EIO);
	p = mmap(NULL, sizeof(data), PROT_READ, MAP_SHARED, fd, 0);
	EXPECT(p != MAP_FAILED, "a read-only shared mapping: %s", strerror(errno));
	EXPECT(!memcmp(p, data, sizeof(data)), "the mapping's data");
	ERR(mprotect(p, sizeof(data), PROT_READ | PROT_WRITE), EACCES);
	tfuse_counts_get(e.counts, &now);
	EXPECT(e.sh->write_pre == 0 && now.op[0] == 0,
	       "the server got %u WRITE prefilter requests, %u filter requests in all",
	       e.sh->write_pre, now.op[0]);
	ret = TAP_OK;
out:
	if (p != MAP_FAILED)
		munmap(p, sizeof(data));
	if (fd >= 0)
		close(fd);
	ts_filter_close(prog);
	if (ts_teardown(&e))
		ret = TAP_FAIL;
	return ret;
}

/* --- the cases ------------------------------------------------------------ */

CASE(revalidate_forget)
CASE(create_enosys)
CASE(rename_backed_unbacked)
CASE(notify_nodeid0)
CASE(cuse_poll)
CASE(backed_node_no_server_requests)
CASE(mmap_user_filter_eio)

static const struct tap_case cases[] = {
	{ "revalidate_forget", c_revalidate_forget },
	{ "create_enosys", c_create_enosys },
	{ "rename_backed_unbacked", c_rename_backed_unbacked },
	{ "notify_nodeid0", c_notify_nodeid0 },
	{ "cuse_poll", c_cuse_poll },
	{ "backed_node_no_server_requests", c_backed_node_no_server_requests },
	{ "mmap_user_filter_eio", c_mmap_user_filter_eio },
};

TAP_MAIN("server", cases)
