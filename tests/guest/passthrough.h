/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the passthrough suite's files: a test environment (a backing
 * filesystem, a FUSE mount and its server) and the operation cases.
 *
 * The layout of an environment, all under one mkdtemp directory:
 *
 *	<dir>/back		the backing filesystem (its own tmpfs, or ext4 on loop)
 *	<dir>/back/data		the backing directory the operation cases use (b)
 *	<dir>/mnt		the FUSE mount; its root belongs to the server
 *	<dir>/mnt/data		looked up once, the server replying with a
 *				backing fd of <dir>/back/data (m); everything
 *				below it must then bypass the server
 */
#ifndef FUSEBPF_TEST_PASSTHROUGH_H
#define FUSEBPF_TEST_PASSTHROUGH_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include "fusebpf_uapi.h"
#include "tap.h"
#include "tfuse.h"

enum pt_backing { PT_TMPFS, PT_EXT4 };

#define PT_NAME_MAX 64
#define PT_CRAFT_MAX 4
/* A crafted entry's fd: the server opens backing "data" and puts that fd here. */
#define PT_FD_DATA ((uint64_t)-2)
/* reply_via_write: splice() the reply from a pipe */
#define PT_REPLY_SPLICE 2

/*
 * What the server is told and what it tells back, in memory shared with the
 * test process (set before a lookup, read after it).
 */
struct pt_shared {
	/* How LOOKUPs of the root's children are answered. */
	int reply_via_write;	/* the backing reply through write() (or PT_REPLY_SPLICE), not the ioctl */
	int open_flags;		/* flags the backing fd is opened with */
	int real_nodeids;	/* nodeids 2, 3, ... instead of 0 */
	/* A crafted reply for the root's child named craft_name. */
	char craft_name[PT_NAME_MAX];
	/* the entry's attributes (and PT_FD_DATA) are of this backing name: "data" if empty */
	char craft_attr_name[PT_NAME_MAX];
	uint32_t craft_len;	/* bytes of entries sent after fuse_entry_out */
	struct fuse_bpf_entry_out craft[PT_CRAFT_MAX];
	/* >= 0: craft[i].fd becomes a dup of this fd of the test process */
	int craft_test_fd[PT_CRAFT_MAX];
	/* UNLINK, RMDIR of a root child: unlinkat() it in the backing filesystem (else EIO). */
	int serve_unlink;
	/* Results: the errno of the last backing reply (0: the kernel took it). */
	int last_reply_err;
	uint32_t backing_replies;
};

struct pt_env {
	char dir[64];
	char back[128];		/* the backing filesystem's mount point */
	char mnt[128];		/* the FUSE mount point */
	char img[128];		/* ext4 image */
	char b[160];		/* back/data */
	char m[160];		/* mnt/data */
	char mroot[128];	/* what the operations see as the FUSE root: mnt */
	enum pt_backing kind;
	bool direct;		/* TEST_PT_DIRECT: m is b, no FUSE in between */
	bool back_mounted, fuse_mounted;
	int fuse_fd;		/* the test's copy; -1 once the server owns it */
	int back_fd;		/* O_PATH of back, inherited by the server */
	pid_t server;
	struct pt_shared *sh;
	struct tfuse_counts *counts;
	/* Root children an operation looks up on purpose (the server counts them). */
	unsigned int extra_lookups;
};

/* Mount extra options (NULL: none). Returns 0 or -errno; pt_teardown always. */
int pt_setup(struct pt_env *e, enum pt_backing kind, const char *fuse_opts);
/* Creates b, then stats m so that the server backs it. 0 or -errno. */
int pt_setup_data(struct pt_env *e);
/* 0, or -errno when the backing filesystem could not be unmounted (a leak). */
int pt_teardown(struct pt_env *e);
/* Wait until the server has recorded n backing replies in all; 0 or -ETIMEDOUT. */
int pt_wait_replies(struct pt_env *e, uint32_t n);
const char *pt_kind_name(enum pt_backing kind);

/*
 * Requests the server got between before and now other than INIT, FORGETs
 * (and allowed_lookups LOOKUPs); 0 if none, and a description in why.
 */
int pt_unexpected_requests(struct pt_env *e, const struct tfuse_counts *before,
			   unsigned int allowed_lookups, char *why, size_t cap);

/* An operation case: the effect through m equals the effect on b. */
typedef int (*pt_op_fn)(struct pt_env *e);
/*
 * Set up over kind, run op, check that the server saw nothing, tear down.
 * TEST_PT_DIRECT=1 in the environment runs op with m = b (no FUSE): a check
 * of the cases' own expectations on a kernel without fuse-bpf.
 */
int pt_run_op(pt_op_fn op, enum pt_backing kind);

/* --- helpers ------------------------------------------------------------------ */
#define P pt_path



/* Join a directory and a name into buf (static rotating buffers). */
const char *pt_path(const char *dir, const char *name);
/* Fill buf with bytes from a simple generator seeded by seed. */
void pt_fill(void *buf, size_t len, uint32_t seed);
/* Whole contents of path into a malloc'd buffer; returns the length or -errno. */
long pt_slurp(const char *path, char **buf);
/* Compare two files' bytes; 0 when equal, else prints the first difference. */
int pt_same_bytes(const char *a, const char *b);
/* Compare the stat fields that passthrough must keep; prints differences. */
int pt_same_stat(const char *through, const char *backing);
/* Sorted, newline-joined names of a directory (without . and ..); malloc'd. */
char *pt_listing(const char *dir);
/* Make a file of len bytes generated from seed. */
int pt_make_file(const char *path, size_t len, uint32_t seed);
/* Free bytes and inodes of the filesystem of dir, once what was written reached it. */
int pt_backing_free(const char *dir, long long *bytes, long long *inodes);

/* The operation cases (passthrough_ops.c), run over tmpfs and ext4. */
#define PT_OPS(X)                 \
	X(lookup_revalidate)      \
	X(getattr)                \
	X(access)                 \
	X(mmap_shared)            \
	X(lseek)                  \
	X(fallocate)              \
	X(open_create_release)    \
	X(opendir_releasedir)     \
	X(mknod)                  \
	X(mkdir_rmdir)            \
	X(unlink_closed_before)   \
	X(unlink_open_fd)         \
	X(remove_frees_space)     \
	X(remove_dir_frees_inode) \
	X(backing_remove_frees_space) \
	X(rmdir_notempty_keeps_cache) \
	X(setfl_flags)            \
	X(setfl_copy_from_direct) \
	X(setfl_append_only)      \
	X(setfl_append_only_after_open) \
	X(setfl_direct_unsupported) \
	X(setfl_noatime)          \
	X(read_write_sync)        \
	X(read_write_io_uring)    \
	X(read_write_libaio)      \
	X(read_write_direct)      \
	X(splice_sendfile)        \
	X(readdir_large)          \
	X(fsync)                  \
	X(rename)                 \
	X(renameat2)              \
	X(rename_exdev)           \
	X(setattr)                \
	X(statfs)                 \
	X(copy_file_range)        \
	X(xattr)                  \
	X(symlink_readlink)       \
	X(link)

#define PT_DECLARE_OP(name) int op_##name(struct pt_env *e);
PT_OPS(PT_DECLARE_OP)

#endif
