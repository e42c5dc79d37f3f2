/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A filtered view for one case: a tmpfs of its own under /tmp, a backing
 * filesystem in it (tmpfs or ext4, with the mount options the case asks
 * for) and the view mounted on it with root_bpf= the fuse_ops map of
 * tests/bpf/hfilter.bpf.c, steered per opcode through its cfg map (which
 * verdict a prefilter or postfilter returns, whether it rewrites its
 * arguments, for which uid). A served view has a server that answers the prefilters the
 * filter hands it (srv in shared memory says how, and counts them).
 * Everything is taken down by hf_teardown(); each case runs in a process of
 * its own, so one global E holds the case's world.
 */
#ifndef FUSEBPF_HFILTER_VIEW_H
#define FUSEBPF_HFILTER_VIEW_H
#include <bpf/libbpf.h>
#include <liburing.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "fusebpf_uapi.h"
#include "hfilter.skel.h"
#include "tfuse.h"

#ifndef FUSE_PREFILTER
#define FUSE_PREFILTER 0x10000
#define FUSE_POSTFILTER 0x20000
#endif
#define FUSE_BPF_USER_FILTER 1
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * tests/bpf/hfilter.bpf.c's cfg flags, note slots and number of opcodes
 * (keep in step; what each means is said there).
 */
#define HF_PRE_RET	1
#define HF_POST		2
#define HF_SETARG	4
#define HF_ACCESS_DROP	8
#define HF_LSEEK	16
#define HF_FALLOC	32
#define HF_PER_UID	64
#define HF_UID		128
#define HF_EXPIRE	256
#define HF_POST_UID	512
#define HF_MAX_OP	64

#define NOTE_NOT_BLOCK	0
#define NOTE_ECHILD	1
#define NOTE_WRITE_OFF	2
#define NOTE_WRITE_SIZE	3
#define NOTE_ACCESS	4
#define NOTE_POST_ERR	5
#define NOTE_OPEN_FLAGS	6

#define MAY_NOT_BLOCK	0x80
#define SETARG_UNSET	12345

struct hf_cfg {
	__u32 flags;
	__s32 pre_ret;
	__s32 post_ret;
	__u32 pad;
};

/* What the served mounts' server is told and saw (shared memory). */
struct hf_srv {
	uint32_t mknod_mode;	/* MKNOD prefilter: reply with this mode (0: echo) */
	uint32_t rename_add;	/* RENAME2 prefilter: flags added */
	uint32_t readdir_size;	/* READDIR prefilter: size replied (0: echo) */
	uint32_t access, access_not_block, mknod, rename2, readdir, other;
	uint32_t lookup;	/* LOOKUP prefilters received */
	uint32_t hold;		/* set: LOOKUP prefilters wait before they are answered */
	char lookup_name[4][128]; /* the names of the first four, as received */
};

enum hf_kind { HF_TMPFS, HF_EXT4 };

/* One case's world; each case runs in a process of its own. */
struct hf_env {
	char dir[64];		/* /tmp/hf-XXXXXX, a tmpfs */
	char back[96];		/* the backing filesystem */
	char root[96];		/* the view's root_dir: back, or a bind mount of it */
	char mnt[96];		/* the view */
	char img[96];		/* ext4 image */
	char mounts[6][128];	/* unmounted in reverse order */
	int nmounts;
	bool view, frozen;
	pid_t server;
	struct hfilter_bpf *skel;
	struct bpf_link *link;	/* the attached hf map, detached at teardown */
	struct hf_srv *srv;
};
extern struct hf_env E;

/* --- paths, files ------------------------------------------------------------- */

#define M(name) at(E.mnt, name)
#define B(name) at(E.back, name)

/* The whole content of path in buf (NUL-terminated), or "<errno text>". */
const char *content(const char *path);

/* -1 and errno err from the expression, else a message in why. */
#define FAILS(expr, err) ((errno = 0, (long)(expr)) == -1 && errno == (err))

/* open(path, flags) fails with err; an fd it gets by mistake is closed. */
bool open_fails(const char *path, int flags, int err);

/* A listing of the backing tree (names, modes, sizes, times, owners). */
int snapshot(const char *out);

/* 0 when the two snapshots are the same; else diff's status (the diff on stderr). */
int same_snapshot(const char *a, const char *b);

/* --- the filter ------------------------------------------------------------- */

/*
 * Open and load hfilter into E.skel and attach its fuse_ops map (E.link);
 * -ENOENT on a kernel without struct fuse_ops.
 */
int load_filter(void);

/* Steer op's filters: flags (HF_*), what the prefilter and the postfilter return. */
int set_cfg(uint32_t op, uint32_t flags, int pre_ret, int post_ret);

/* An entry of one of the filter's maps (-999999 when it can't be read), or set it. */
long long map_get(struct bpf_map *map, uint32_t key);
void map_put(struct bpf_map *map, uint32_t key, long long v);

#define NOTE(slot) map_get(E.skel->maps.note, slot)
#define SETARG(op) map_get(E.skel->maps.setarg_ret, op)
#define PRE_RUNS(op) map_get(E.skel->maps.pre_runs, op)
#define POST_RUNS(op) map_get(E.skel->maps.post_runs, op)

/* --- set-up and tear-down ------------------------------------------------------- */

/* Unmount path in hf_teardown() (before the mounts pushed earlier); -ENOSPC past 6. */
int push_mount(const char *path);

/*
 * A tmpfs at E.dir, the backing filesystem at E.back (mount options opts,
 * e.g. "nodev"), the filter loaded. 0 or -errno; hf_teardown() always.
 */
int hf_setup(enum hf_kind kind, const char *opts);

/* Mount the view of E.root; served: with a server (srv_handler), else no_daemon. */
int hf_mount(bool served);

/* Unmount the view (and stop its server) before the end of a case; 0. */
int hf_unmount_view(void);

/* Undo everything; -EBUSY when the backing filesystem could not be unmounted. */
int hf_teardown(void);

/* In a case: hf_setup(), skipped on a kernel without fuse-bpf filters. */
#define SETUP(kind, opts)                                                          \
	do {                                                                       \
		int __e = hf_setup(kind, opts);                                    \
		if (__e == -ENOENT)                                                \
			SKIP("kernel without struct fuse_ops: no fuse-bpf filters");     \
		EXPECT(__e == 0, "setting up: %s", strerror(-__e));                \
	} while (0)

/* --- running programs ------------------------------------------------------------ */

/*
 * Run argv[0] (as uid when uid != 0) with its stdout in out; its exit
 * status (< 100), or -errno when execve failed.
 */
int try_exec(char *const argv[], uid_t uid, char *out, size_t cap);

/* --- data through the view --------------------------------------------------------- */

#define IO_LEN 4096

/*
 * One io_uring read or write of IO_LEN bytes at off on fd: the completion's
 * result (-errno on failure), -10000 or -10001 when io_uring itself failed.
 */
int uring_one(struct io_uring *ring, int fd, bool write, void *buf, long long off);

#endif
