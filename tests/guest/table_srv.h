/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A raw FUSE server that answers LOOKUPs from a table of names in memory
 * shared with the test, and the environment of a case that uses it: a
 * directory of its own under /tmp with its own backing tmpfs and a FUSE
 * mount served by that server (the backing, server and splice suites, and
 * the cases of others that mount no_daemon views of their own).
 *
 * A table entry says how the server answers: a plain node, or a backing
 * reply (through the fuse-bpf ioctl) with a file the server opens or an fd
 * of the test, optionally a program, a mode and a validity. The server
 * writes down what the kernel took (replies, FORGETs, requests naming
 * nodeid 0) where the test reads it.
 */
#ifndef FUSEBPF_TABLE_SRV_H
#define FUSEBPF_TABLE_SRV_H
#include <linux/bpf.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fusebpf_uapi.h"
#include "tfuse.h"

#ifndef FUSE_PREFILTER
#define FUSE_PREFILTER 0x10000
#endif
#ifndef FUSE_BPF_USER_FILTER
#define FUSE_BPF_USER_FILTER 1
#endif
/* <linux/fs.h> includes <linux/mount.h>, which glibc 2.36's <sys/mount.h> conflicts with */
#ifndef FS_IOC_GETFLAGS
#define FS_IOC_GETFLAGS _IOR('f', 1, long)
#define FS_IOC_SETFLAGS _IOW('f', 2, long)
#endif
#ifndef FS_APPEND_FL
#define FS_APPEND_FL 0x00000020
#endif
#ifndef FIBMAP
#define FIBMAP _IO(0x00, 1)
#endif

/* --- the server: a table of names ------------------------------------------------ */

#define TS_ENTS 16
#define TS_NODES 64
#define TS_NAME 32

enum ts_kind { TS_PLAIN, TS_BACKING };

/* How the server answers a LOOKUP of name in the directory parent. */
struct ts_ent {
	char name[TS_NAME];
	uint64_t parent;	/* nodeid of the directory */
	uint64_t nodeid;	/* of the reply; 0: a pure passthrough node */
	int kind;		/* TS_PLAIN: no fuse-bpf entries; TS_BACKING: via the ioctl */
	char path[200];		/* TS_BACKING: the server opens this... */
	int open_flags;
	int test_fd;		/* ...unless this (an fd of the test process) is >= 0 */
	int bpf_fd;		/* >= 0: a FUSE_ENTRY_BPF entry too (fd of the test process) */
	bool st_set;		/* the attributes are st's (a test_fd, stat by the test) */
	struct stat st;
	bool mode_set;		/* attr.mode is mode, not the backing's */
	uint32_t mode;
	uint64_t entry_valid;	/* seconds, entry and attributes */
	/* results */
	int last_err;		/* errno of the last reply (0: the kernel took it) */
	uint32_t replies;
};

struct ts_shared {
	struct ts_ent ent[TS_ENTS];
	uint32_t granted[TS_NODES];	/* LOOKUP replies the kernel took, by nodeid */
	uint32_t forgotten[TS_NODES];	/* nlookup returned by FORGETs, by nodeid */
	uint32_t nodeid0;		/* requests naming nodeid 0 */
	uint32_t nodeid0_op;		/* the last one's opcode */
	uint32_t write_pre;		/* FUSE_WRITE | FUSE_PREFILTER requests (server filters) */
	pid_t test_pid;
	/* For the splice cases: a server whose files take writes */
	int write_ok;			/* WRITE, READ, SETATTR, FSYNC answered (else EIO) */
	int fsync_err;			/* FSYNC fails with this errno (0: succeeds) */
	uint32_t fopen;			/* fuse_open_out.open_flags of an OPEN */
	uint32_t fsync_flags;		/* of the last FSYNC */
	uint64_t write_lo, write_hi;	/* the bytes the WRITEs covered (set by the test) */
	int write_stall;		/* set: a WRITE is answered once the test clears it */
	int write_err;			/* WRITE fails with this errno (0: succeeds) */
	uint64_t write_notify;		/* a WRITE of this node: first NOTIFY_DELETE s0 (nodeid 10) */
	int notify_rc;			/* what that NOTIFY_DELETE returned (1: not sent yet) */
};

struct ts_env {
	char dir[64];
	char back[96];		/* a tmpfs of its own */
	char mnt[96];		/* the served FUSE mount */
	bool back_mounted, fuse_mounted;
	int fuse_fd;		/* the test's copy, for notifications */
	pid_t server;
	struct ts_shared *sh;
	struct tfuse_counts *counts;
};

/* --- a case's environment ------------------------------------------------------------- */

/* Fork the server of e's FUSE mount, whose INIT reply offers init_flags; its pid. */
pid_t ts_spawn_flags(struct ts_env *e, uint32_t init_flags);

/*
 * A directory, a backing tmpfs, a FUSE mount with opts (NULL: none) and its
 * server, whose INIT reply has init_flags.
 */
int ts_setup_flags(struct ts_env *e, const char *opts, uint32_t init_flags);

/* ts_setup_flags() with a server that offers no INIT flag. */
int ts_setup(struct ts_env *e, const char *opts);

/* Unmount the served FUSE mount before the end of a case (it may hold backings). */
void ts_stop_fuse(struct ts_env *e);

/* Unmount and remove everything; -errno if the backing tmpfs was still busy (a leak). */
int ts_teardown(struct ts_env *e);

/* A new table entry: name in parent, backed by path (NULL: none), for 3600 s. */
struct ts_ent *ts_add(struct ts_env *e, uint64_t parent, const char *name, const char *path);

/* A new entry backed by fd, an fd of the test process (stat here, not by the server). */
struct ts_ent *ts_add_fd(struct ts_env *e, uint64_t parent, const char *name, int fd);

/* Wait until the server has written down n replies for ent. */
int ts_wait(struct ts_ent *ent, uint32_t n);

/*
 * A LOOKUP of ent (at path) whose reply the kernel must refuse: the ioctl
 * fails with want, the lookup with EIO.
 */
int ts_refused(struct ts_ent *ent, const char *path, int want);

/* The mount still takes a good backing reply (a directory of the backing tmpfs). */
int ts_still_good(struct ts_env *e);

/* Wait until every nodeid but the root's got back the lookups it was given; 0 or -1. */
int forgets_balance(struct ts_shared *sh);

/* Write a notification (code, then len bytes of arg) to /dev/fuse; 0 or -errno. */
int notify(int fd, int code, const void *arg, size_t len);

/* --- mounts of a case's own ----------------------------------------------------------- */

/* A no_daemon mount at mnt with root_dir=dfd; extra options appended. 0 or -errno. */
int mount_nodaemon_fd(const char *mnt, int dfd, const char *extra);

/* A no_daemon mount at mnt of the directory dir; extra options appended. 0 or -errno. */
int mount_nodaemon(const char *mnt, const char *dir, const char *extra);

/* Unmount an extra mount of a case; prints (and detaches) when it is busy. */
int unmount_extra(const char *mnt);

/* Drop the dentry and inode caches (FORGETs follow). */
void drop_caches(void);

/*
 * An ext4 image at img mounted at mnt with the same tree every time (a
 * fixed hash seed, one block group): tree/a ("a\n"), tree/d/b, tree/l.
 */
int make_ext4(const char *img, const char *mnt);

/* --- fuse-bpf programs ------------------------------------------------------------------ */

/*
 * The fuse_ops map name of tests/bpf/tsfilter.bpf.c (ts_pass, ts_verdict,
 * ts_whence: what each does is said there), loaded with ts_op and ts_value
 * set and attached: its fd or -errno (-ENOENT on a kernel without struct
 * fuse_ops). Close it with ts_filter_close().
 */
int ts_filter(const char *name, uint32_t op, int value);

/*
 * A fuse-bpf filter (ts_filter()): enosys_create fails CREATE's prefilter
 * with ENOSYS, everything else goes on to the backing (0). Returns its fd
 * or -errno.
 */
int load_prog(bool enosys_create);

/* Detach and close a filter of ts_filter(); nothing for fd < 0. */
void ts_filter_close(int fd);

/* --- the cases ------------------------------------------------------------------------------- */

/*
 * A case that hangs (a kernel that deadlocks on it) is killed after
 * CASE_TIMEOUT seconds and fails, instead of hanging the suite: the suites
 * define c_NAME with CASE(NAME) and list c_NAME, which runs t_NAME.
 */
#define CASE_TIMEOUT 120
#define CASE(name)                                    \
	static int c_##name(void)                     \
	{                                             \
		alarm(CASE_TIMEOUT);                  \
		return t_##name();                    \
	}

#endif
