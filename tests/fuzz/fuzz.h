/* SPDX-License-Identifier: GPL-2.0 */
/*
 * make fuzz (tests/fuzz/): hostile FUSE servers, random filter verdicts and
 * random system calls on fresh fuse-bpf mounts, on the debug kernel.
 *
 * One run is a sequence of epochs. Each epoch gets fresh backing file
 * systems and mounts, its filters (fuse_ops maps with random members), its
 * servers, workers, a policy changer and a filter replacer, all
 * seeded from (FUZZ_SEED, epoch, role, index): the same seed makes the same
 * choices (the interleaving is the scheduler's). fuzz.c drives the epochs
 * and checks the kernel log and for leaks; fuzz_srv.c is the server,
 * fuzz_ops.c the workers' system calls.
 */
#ifndef FUSEBPF_FUZZ_H
#define FUSEBPF_FUZZ_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* --- the PRNG: splitmix64, one per process ----------------------------------------- */

struct fz_rng {
	uint64_t s;
};

static inline uint64_t fz_next(struct fz_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, n); n > 0. */
static inline uint32_t fz_below(struct fz_rng *r, uint32_t n)
{
	return (uint32_t)((fz_next(r) >> 32) * n >> 32);
}

/* True with probability pct/100. */
static inline bool fz_chance(struct fz_rng *r, uint32_t pct)
{
	return fz_below(r, 100) < pct;
}

#define FZ_PICK(r, arr) ((arr)[fz_below(r, ARRAY_SIZE(arr))])

/* A seed for (run seed, epoch, role, index). */
static inline void fz_seed(struct fz_rng *r, uint64_t seed, uint32_t epoch, uint32_t role,
			   uint32_t idx)
{
	r->s = seed;
	r->s = fz_next(r) ^ ((uint64_t)epoch << 32 | (uint64_t)role << 16 | idx);
	fz_next(r);
}

enum fz_role { FZ_ROLE_PLAN, FZ_ROLE_WORKER, FZ_ROLE_SERVER, FZ_ROLE_POLICY, FZ_ROLE_REPLACER };

/* --- the ring of recent operations, per process, in shared memory --------------- */

#define FZ_RING 48
#define FZ_DESC 120

struct fz_ring {
	uint32_t next;		/* operations recorded so far */
	pid_t pid;
	char who[16];		/* "worker 2 uid 65534", "server m1" */
	char op[FZ_RING][FZ_DESC];
};

/* Record an operation before doing it; fz_done() appends its result. */
void fz_log(struct fz_ring *ring, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void fz_done(struct fz_ring *ring, long ret, int err);
void fz_ring_dump(const struct fz_ring *ring);

/* --- what the epoch has ---------------------------------------------------------- */

#define FZ_MAX_MOUNTS	4
#define FZ_MAX_WORKERS	6
#define FZ_MAX_POOL	40
#define FZ_NAMES	"a", "b", "c", "d", "sub", "x.txt", "lnk", "fifo"
#define FZ_UNPRIV	65534	/* the odd workers' uid and gid */

enum fz_kind {
	FZ_SERVED,	/* no root_dir: a hostile server answers every LOOKUP */
	FZ_VIEW,	/* root_dir= a backing, root_bpf= the filter or none */
	FZ_STACKED,	/* root_dir= the root of a view (stack depth 2) */
};

/* An fd a server may name in a reply: what it is (for the log) and its number. */
struct fz_poolfd {
	char what[24];
	int fd;
};

struct fz_mount {
	enum fz_kind kind;
	bool used;
	bool no_daemon;
	bool filtered;		/* root_bpf= one of the epoch's filters */
	int root_filter;	/* ... which (e->filter[]), when mounted */
	int fuse_fd;		/* the driver's copy (-1 for no_daemon) */
	pid_t server;
	uint32_t restarts;
	char path[64];
	char conn[64];		/* /sys/fs/fuse/connections/N */
	char backing[64];	/* root_dir's path ("" for served) */
	int bad_pct;		/* how often the server's reply is malformed */
	int drop_pct;		/* how often it never answers */
	struct fz_ring *ring;	/* the server's */
};

/* Verdict table row (tests/fuzz/ffilter.bpf.c: keep in step). */
#define FZV_SET_IN	1
#define FZV_SET_OUT	2
#define FZV_SET_ENTRY	4
#define FZV_GET_ALL	8
#define FZ_MAX_OP	64

struct fz_verdict {
	int32_t pre;
	int32_t post;
	int32_t entry;
	uint32_t flags;
	uint32_t arg;
	uint32_t off;
	uint32_t xor;
	uint32_t size;
};

/* --- the epoch's filters (fuzz_filters.c) ---------------------------------------- */

#define FZ_MEMBERS	31	/* of struct fuse_ops */
#define FZ_FILTERS	4	/* at most, an epoch */

/* A fuse_ops map of the epoch: some members of fz's programs or of fz2's */
struct fz_filter {
	int fd;
	bool second;		/* fz2's programs (their own verdict rows) */
	uint32_t members;	/* bit i: member i of struct fuse_ops */
	uint32_t post_only;	/* bit i: member i runs as a postfilter only */
};

/*
 * Shared by the epoch's processes (one page after the rings): the stop
 * flag, counters of the new operations' outcomes, and the first oracle
 * failure a worker saw (a kernel bug: the epoch fails with it).
 */
struct fz_shared {
	int stop;
	uint32_t setid_checks;		/* set-id execs whose euid/egid were compared */
	uint32_t umount_busy;		/* backing umounts under watches refused (EBUSY) */
	uint32_t umount_done;		/* ... let through (and the backing mounted again) */
	uint32_t replaced;		/* FUSE_DEV_IOC_BPF_REPLACE that switched filters */
	uint32_t replace_none;		/* ... that found no filter running the old map */
	uint32_t remounted;		/* remounts with root_bpf= that switched the root's */
	uint32_t refused;		/* either, refused as they must be (not a filter, none) */
	char oracle[512];
};

struct fz_epoch {
	uint64_t seed;
	uint32_t epoch;
	char dir[64];		/* /tmp/fz */
	char ext4[64], tmpfs[64];	/* the backing file systems */
	char spare[64];		/* a tmpfs only servers name (never a view's root, no pool fd):
				   worker 0's umount-under-watches target */
	struct fz_mount m[FZ_MAX_MOUNTS];
	int nmounts;
	struct fz_poolfd pool[FZ_MAX_POOL];
	int npool;
	struct fz_filter filter[FZ_FILTERS];	/* what root_bpf=, servers and the replacer name */
	int nfilters;
	uint32_t unfiltered;	/* members that no filter of the epoch has (their programs never run) */
	int idle_map_fd;	/* a fuse_ops map never attached (fz): refused */
	int gone_map_fd;	/* one attached and detached: refused */
	int member_prog_fd;	/* a program of a member, not a map: refused */
	int verdict_fd;		/* the filter's table */
	int nworkers;
	volatile int *stop;	/* shared: the workers and the policy changer stop */
	struct fz_shared *sh;	/* shared */
};

/* fuzz.c: the tree every backing starts with; tag names its set-id helpers ("s<tag><worker>") */
int fz_populate(const char *dir, char tag);
/* fuzz.c: mount the spare tmpfs (again) and populate it */
int fz_mount_spare(struct fz_epoch *e);
/* The set-id helper's bytes (build/tests/fuzz/fz-id), or fz_id_len 0 */
extern unsigned char *fz_id_bin;
extern size_t fz_id_len;
#define FZ_SETID_UID 1000	/* an owner that is neither root nor the unprivileged workers */

/* fuzz_filters.c: the filter's object and its run-long state */
int fz_filters_load(struct fz_epoch *e);
void fz_filters_unload(void);
/* The epoch's filters (planned with r), and their end (detached, closed) */
int fz_filters_make(struct fz_epoch *e, struct fz_rng *r);
void fz_filters_drop(struct fz_epoch *e);
/* fuse_ops maps that exist now (of any process) */
int fz_count_fuse_ops_maps(void);
/* A counter of the filter's programs (runs, wrong_member), summed over CPUs */
uint64_t fz_filter_count(bool runs, uint32_t from, uint32_t to);
/* The opcode and name of member i of struct fuse_ops */
uint32_t fz_member_opcode(uint32_t i);
const char *fz_member_name(uint32_t i);
/* Describe f (for the epoch line) */
void fz_filter_desc(const struct fz_filter *f, char *buf, size_t cap);
/* Runs, in any phase, of the members no filter of the epoch has */
uint64_t fz_unfiltered_runs(const struct fz_epoch *e);
/* fuzz_filters.c: the replacer; never returns */
void fz_replacer(struct fz_epoch *e, struct fz_ring *ring, uint32_t gen);

/* fuzz_srv.c: serve m until the connection ends; never returns. */
void fz_server(struct fz_epoch *e, struct fz_mount *m, uint32_t idx);
/* fuzz_ops.c: run random system calls until *e->stop; never returns. */
void fz_worker(struct fz_epoch *e, uint32_t idx, uid_t uid, struct fz_ring *ring);
/* A random path: a mount (or a backing) and up to three names. */
const char *fz_path(struct fz_epoch *e, struct fz_rng *r, char *buf, size_t cap);

/* A random value a filter may return, documented or not. */
int32_t fz_verdict_value(struct fz_rng *r, bool post);
/* A random row of the verdict table. */
void fz_verdict_row(struct fz_rng *r, struct fz_verdict *v);

#endif
