/* SPDX-License-Identifier: GPL-2.0 */
/*
 * make stress: concurrent operations on a fuse-bpf view with checked
 * results (tests/guest/stress*.c; docs/testing.md, "make stress").
 *
 * Every process that changes the tree owns its names ("w<N>-..." for the
 * workers in the views, "b<N>-..." for the mutators of the backing tree),
 * so the final tree is determined by the return values alone: each process
 * logs every operation and its result, and the checker replays the logs
 * into a model and compares it with the backing tree.
 */
#ifndef FUSEBPF_STRESS_H
#define FUSEBPF_STRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define ST_NAME_MAX	48
#define ST_PATH_MAX	512
#define ST_SHARED_DIRS	4	/* d0..d3 at the root, shared by everyone */
#define ST_MAX_GENS	65536

/* --- seeded random numbers (xorshift64*) ----------------------------------------- */
struct st_rng {
	uint64_t s;
};

void st_rng_init(struct st_rng *r, uint64_t seed, uint64_t stream);
uint64_t st_rand(struct st_rng *r);
/* Uniform in [0, n). */
uint32_t st_below(struct st_rng *r, uint32_t n);
/* True with probability pct/100. */
bool st_chance(struct st_rng *r, uint32_t pct);

/* --- file contents --------------------------------------------------------------------- */
/*
 * A version of a file: owner, file id and version number pick its bytes,
 * len its size. The first ST_HDR_LEN bytes are a header naming all four and
 * a checksum of the rest, so a reader that knows nothing can tell a whole
 * version from a torn or foreign one.
 */
#define ST_HDR_LEN	96
#define ST_MIN_LEN	ST_HDR_LEN
#define ST_MAX_LEN	65536

struct st_version {
	uint32_t owner, fid, ver, len;
};

/* The bytes of version v (buf holds v->len). */
void st_fill(const struct st_version *v, uint8_t *buf);
/*
 * Check that buf[0..n) is a whole version: the header parses, its length is
 * n and its checksum matches. Returns 0 or a static message.
 */
const char *st_verify(const uint8_t *buf, size_t n, struct st_version *v);
uint64_t st_sum(const uint8_t *buf, size_t n);

/* --- policies switched live ------------------------------------------------------------ */
enum {
	ST_POL_HIDE = 1,	/* names ending in ".h" are hidden */
	ST_POL_ATTRS = 2,	/* every node shows the sticky bit */
	ST_POL_DENY = 4,	/* every mutating op fails EROFS */
};

/*
 * Shared between the switcher and everyone else. gen is even while policy
 * state[gen / 2] is in force, odd while the switcher moves from state
 * [gen / 2] to [gen / 2 + 1]. An op that read gen g0 before and g1 after
 * saw some of the states [g0 / 2, (g1 + 1) / 2].
 */
struct st_shared {
	uint64_t gen;
	uint64_t switches;
	uint64_t files_read, dirs_listed;	/* by the walkers */
	uint8_t state[ST_MAX_GENS];
};

uint64_t st_gen(const struct st_shared *sh);
/* OR and AND of the states an op between generations g0 and g1 may have seen. */
void st_policy_range(const struct st_shared *sh, uint64_t g0, uint64_t g1, unsigned *any,
		     unsigned *all);

/* --- the model ------------------------------------------------------------------------- */
enum st_type { ST_NONE, ST_DIR, ST_REG, ST_LNK };

struct st_ino {
	enum st_type type;
	int nlink;
	struct st_version v;	/* ST_REG: the version; v.len bytes of it written */
	uint32_t full;		/* ST_REG: the version's full size */
	char target[ST_NAME_MAX];	/* ST_LNK */
};

struct st_node {
	int parent;		/* -1: unused slot */
	int ino;
	char name[ST_NAME_MAX];
};

struct st_model {
	struct st_node *nodes;
	int nnodes, cap;
	struct st_ino *inos;
	int ninos, icap;
};

/* A root holding d0..d3 (and lost+found, which ext4 made). */
int st_model_init(struct st_model *m);
void st_model_free(struct st_model *m);
/* The node at a root-relative path ("d0/w1-f3"), or -1. */
int st_lookup(const struct st_model *m, const char *path);
int st_path_of(const struct st_model *m, int node, char *buf, size_t cap);
bool st_is_ancestor(const struct st_model *m, int anc, int node);
bool st_dir_empty(const struct st_model *m, int node);

/* An operation, as logged and replayed. */
enum st_op {
	OP_MKDIR, OP_RMDIR, OP_CREATE, OP_WRITE, OP_FSYNC, OP_RENAME, OP_LINK,
	OP_UNLINK, OP_SYMLINK, OP_NR
};

struct st_rec {
	enum st_op op;
	char p[ST_PATH_MAX];	/* the operand (OP_SYMLINK: the target) */
	char q[ST_PATH_MAX];	/* the second path, or "-" */
	uint32_t a, b, c, d;	/* CREATE: the version and full size; WRITE: bytes
				 * written in all; RENAME: flags */
	char via;		/* 'v' filtered view, 'p' plain view, 'b' backing */
	uint64_t g0, g1;
	int err;		/* 0 or the errno the op returned */
	int pred;		/* what the model predicted */
};

const char *st_op_name(enum st_op op);
/* What the op should return on the model: 0 or an errno. */
int st_predict(const struct st_model *m, const struct st_rec *r);
/* Apply a successful op to the model; -errno when the model refuses it. */
int st_apply(struct st_model *m, const struct st_rec *r);
void st_rec_format(const struct st_rec *r, uint64_t seq, char *buf, size_t cap);
int st_rec_parse(const char *line, struct st_rec *r);

/*
 * Compare the tree under root with the model; print each difference (and
 * the logged ops naming it, from logdir) to out. Returns the number of
 * differences.
 */
int st_compare(const struct st_model *m, const char *root, const char *logdir, FILE *out);

/*
 * The uid a process runs as, from its kind and id: the workers w2, w6, ...
 * are unprivileged; everyone else is root. st_owner_uid() gives the owner
 * a name must have ("w2-f7": w2's), which st_compare checks.
 */
uint32_t st_uid(char kind, int id);
uint32_t st_owner_uid(const char *name);

/* --- the processes (stress_work.c) ------------------------------------------------------ */
struct st_config {
	uint64_t seed;
	unsigned seconds;
	const char *view;	/* filtered fuse-bpf view */
	const char *plain;	/* a second view of the same backing, no filter */
	const char *back;	/* the backing tree (ext4) */
	const char *logdir;
	const char *ctl;	/* build/fusebpfctl */
	const char *filter;	/* the filter's name */
	struct st_shared *sh;
	uint64_t deadline_ns;	/* CLOCK_MONOTONIC */
};

uint64_t st_now_ns(void);
/* Each returns the process exit status: 0, or 1 after printing what failed. */
int st_worker(const struct st_config *cfg, int id);
int st_mutator(const struct st_config *cfg, int id);
int st_walker(const struct st_config *cfg, int id);
int st_switcher(const struct st_config *cfg);

#endif
