// SPDX-License-Identifier: GPL-2.0
/*
 * make stress: the processes. Workers change the tree through the views,
 * mutators change the backing tree directly, walkers read the views and
 * check what they see, and the switcher changes the filter's policies.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/fs.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "stress.h"

#define MAX_FAILS	10	/* mismatches printed per process */
#define MAX_OWN		80	/* above this many names, a process mostly removes */

uint64_t st_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static bool running(const struct st_config *cfg)
{
	return st_now_ns() < cfg->deadline_ns;
}

/* --- a process that changes the tree -------------------------------------------------- */
struct proc {
	const struct st_config *cfg;
	char kind;		/* 'w' worker (views), 'b' mutator (backing) */
	int id;
	char prefix[8];		/* "w3-": the names this process owns */
	struct st_rng rng;
	struct st_model m;
	int logfd;
	uint64_t seq;
	uint32_t counter;
	int fails;
	bool mixed;		/* changes its tree through both views */
	uint8_t *buf;
	int *own;		/* scratch: own node indices */
	int own_cap;
};

static const char *root_of(const struct st_config *cfg, char via)
{
	return via == 'v' ? cfg->view : via == 'p' ? cfg->plain : cfg->back;
}

static void full_path(const struct proc *P, char via, const char *rel, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s/%s", root_of(P->cfg, via), rel);
}

static bool hideable(const char *path)
{
	const char *s;

	for (s = strstr(path, ".h"); s; s = strstr(s + 1, ".h"))
		if (s[2] == 0 || s[2] == '/')
			return true;
	return false;
}

static const char *errname(int e)
{
	const char *n = e ? strerrorname_np(e) : "0";

	return n ? n : "?";
}

/*
 * The last component of the name an op makes, or "". (A directory above it
 * may be hidden but still cached from before: the op may reach it.)
 */
static const char *new_name_of(const struct st_rec *r)
{
	const char *path = r->op == OP_CREATE || r->op == OP_MKDIR ? r->p :
			   r->op == OP_SYMLINK || r->op == OP_LINK || r->op == OP_RENAME ? r->q : "";

	return strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
}

/*
 * Is the result r->err right? The model predicted r->pred; on the filtered
 * view, a policy in force at some time during the op may also have refused
 * it (denywrite: EROFS; hide: ENOENT for a hidden name, EACCES for creating
 * one), and with denywrite in force for the whole op, an op that reaches the
 * file system must fail. Returns NULL or what is wrong.
 */
static const char *judge(const struct proc *P, const struct st_rec *r, bool noop)
{
	bool mutating = r->op != OP_FSYNC;
	unsigned any = 0, all = 0;

	if (r->via == 'v')
		st_policy_range(P->cfg->sh, r->g0, r->g1, &any, &all);
	if (r->op == OP_WRITE && !r->err && r->a != r->d)
		return "a short write";
	if (r->err == r->pred) {
		if (!r->err && mutating && !noop && (all & ST_POL_DENY))
			return "succeeded while denywrite was in force";
		if (!r->err && !noop && (all & ST_POL_HIDE) && hideable(new_name_of(r)))
			return "made a hidden name while hide was in force";
		return NULL;
	}
	if (mutating && (any & ST_POL_DENY) && r->err == EROFS)
		return NULL;
	/*
	 * A directory moved through one view is found at its new place by a
	 * lookup in the other view while that view still has it at the old
	 * one: the VFS moves the alias if it can take the rename lock without
	 * waiting (d_splice_alias), and fails the lookup ESTALE if not. Only
	 * for a process that changes its tree through both views.
	 */
	if (P->mixed && r->err == ESTALE)
		return NULL;
	if ((any & ST_POL_HIDE) && (r->err == ENOENT || r->err == EACCES) &&
	    (hideable(r->p) || hideable(r->q)))
		return NULL;
	/*
	 * A hidden target is not in the view, so RENAME_NOREPLACE's EEXIST,
	 * which the VFS checks first, does not come: the next check does,
	 * moving a directory into itself (EINVAL).
	 */
	if ((any & ST_POL_HIDE) && r->op == OP_RENAME && r->pred == EEXIST &&
	    r->err == EINVAL && hideable(r->q))
		return NULL;
	return "unexpected result";
}

static void log_rec(struct proc *P, const struct st_rec *r)
{
	char line[2 * ST_PATH_MAX + 200];

	st_rec_format(r, P->seq++, line, sizeof(line));
	if (write(P->logfd, line, strlen(line)) < 0)
		P->fails++;
}

/* Judge, apply to the model and log an op whose result is in r->err. */
static void finish(struct proc *P, struct st_rec *r, bool noop)
{
	const char *bad = judge(P, r, noop);
	int ret;

	if (bad) {
		unsigned any = 0, all = 0;

		st_policy_range(P->cfg->sh, r->g0, r->g1, &any, &all);
		if (P->fails++ < MAX_FAILS)
			printf("stress: %c%d op %" PRIu64 ": %s %s%s%s via %c: %s, expected %s: %s (policies any %#x all %#x)\n",
			       P->kind, P->id, P->seq, st_op_name(r->op), r->p, r->q[0] ? " " : "",
			       r->q, r->via, errname(r->err), errname(r->pred), bad, any, all);
	}
	if (!r->err || (r->op == OP_WRITE && r->a)) {
		ret = st_apply(&P->m, r);
		if (ret && P->fails++ < MAX_FAILS)
			printf("stress: %c%d op %" PRIu64 ": %s %s: the model refused a successful op (%s)\n",
			       P->kind, P->id, P->seq, st_op_name(r->op), r->p, strerror(-ret));
	}
	log_rec(P, r);
}

static void begin(struct proc *P, struct st_rec *r, enum st_op op, const char *p, const char *q)
{
	memset(r, 0, sizeof(*r));
	r->op = op;
	snprintf(r->p, sizeof(r->p), "%s", p);
	snprintf(r->q, sizeof(r->q), "%s", q ? q : "");
	if (P->kind == 'b')
		r->via = 'b';
	else if (P->mixed)
		r->via = st_chance(&P->rng, 60) ? 'v' : 'p';
	else
		r->via = P->id % 4 == 3 ? 'p' : 'v';
	r->pred = st_predict(&P->m, r);
	r->g0 = st_gen(P->cfg->sh);
}

static int end_syscall(struct proc *P, struct st_rec *r, int ret)
{
	r->err = ret < 0 ? errno : 0;
	r->g1 = st_gen(P->cfg->sh);
	return ret;
}

/* Run a path op: mkdir, rmdir, rename, link, unlink, symlink. */
static void path_op(struct proc *P, enum st_op op, const char *p, const char *q, unsigned flags)
{
	char fp[PATH_MAX], fq[PATH_MAX];
	struct st_rec r;
	bool noop = false;
	int ret;

	begin(P, &r, op, p, q);
	r.c = flags;
	r.pred = st_predict(&P->m, &r);
	if (op == OP_RENAME) {
		int a = st_lookup(&P->m, p), b = st_lookup(&P->m, q);

		noop = a >= 0 && b >= 0 && P->m.nodes[a].ino == P->m.nodes[b].ino;
	}
	full_path(P, r.via, p, fp, sizeof(fp));
	if (q)
		full_path(P, r.via, q, fq, sizeof(fq));
	switch (op) {
	case OP_MKDIR:
		ret = mkdir(fp, 0755);
		break;
	case OP_RMDIR:
		ret = rmdir(fp);
		break;
	case OP_UNLINK:
		ret = unlink(fp);
		break;
	case OP_LINK:
		ret = link(fp, fq);
		break;
	case OP_SYMLINK:
		ret = symlink(p, fq);
		break;
	case OP_RENAME:
		ret = renameat2(AT_FDCWD, fp, AT_FDCWD, fq, flags);
		break;
	default:
		ret = -1;
		errno = EINVAL;
	}
	end_syscall(P, &r, ret);
	finish(P, &r, noop);
}

/* --- choosing names ------------------------------------------------------------------------- */
static int depth_of(const struct st_model *m, int node)
{
	int d = 0;

	for (; node > 0; node = m->nodes[node].parent)
		d++;
	return d;
}

/* Own nodes of a kind ('f', 't', 'd', 's'; 0: any) into P->own; their number. */
static int own_nodes(struct proc *P, char kind)
{
	size_t len = strlen(P->prefix);
	int i, n = 0;

	if (P->own_cap < P->m.nnodes) {
		int *o = realloc(P->own, P->m.cap * sizeof(*o));

		if (!o)
			return 0;
		P->own = o;
		P->own_cap = P->m.cap;
	}
	for (i = 1; i < P->m.nnodes; i++) {
		const struct st_node *nd = &P->m.nodes[i];

		if (nd->parent < 0 || strncmp(nd->name, P->prefix, len))
			continue;
		if (kind && nd->name[len] != kind)
			continue;
		P->own[n++] = i;
	}
	return n;
}

static int pick_own(struct proc *P, char kind)
{
	int n = own_nodes(P, kind);

	return n ? P->own[st_below(&P->rng, n)] : -1;
}

/* A directory for a new name: a shared one or one of ours, not too deep. */
static void pick_dir(struct proc *P, char *rel, size_t cap)
{
	int n = own_nodes(P, 'd'), i, k = 0;

	for (i = 0; i < n; i++)
		if (depth_of(&P->m, P->own[i]) < 4)
			P->own[k++] = P->own[i];
	i = st_below(&P->rng, ST_SHARED_DIRS + k);
	if (i < ST_SHARED_DIRS)
		snprintf(rel, cap, "d%d", i);
	else
		st_path_of(&P->m, P->own[i - ST_SHARED_DIRS], rel, cap);
}

/* A new name of this process in one of its directories; -ENAMETOOLONG when it does not fit. */
static int new_name(struct proc *P, char kind, char *rel, size_t cap)
{
	char dir[ST_PATH_MAX];
	int n;

	pick_dir(P, dir, sizeof(dir));
	n = snprintf(rel, cap, "%s/%s%c%u%s", dir, P->prefix, kind, ++P->counter,
		     st_chance(&P->rng, 15) ? ".h" : "");
	return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : 0;
}

static void path_of(struct proc *P, int node, char *rel, size_t cap)
{
	st_path_of(&P->m, node, rel, cap);
}

/* --- the operations ----------------------------------------------------------------------------- */
static uint32_t owner_id(const struct proc *P)
{
	return (P->kind == 'b' ? 100 : 0) + P->id;
}

/*
 * Write P->buf[0..len) through a shared mapping: the mapping first (MMAP,
 * which a filter may refuse), then the size (SETATTR, likewise), then the
 * bytes (page faults on the backing file, which no filter sees). Either
 * refusal leaves the file as it was, so the model sees all or nothing: in
 * the other order a policy switched between the two calls left a file of
 * len zero bytes that the log said was empty. Returns len, or 0 with errno.
 */
static uint32_t write_mmap(struct proc *P, int fd, uint32_t len)
{
	void *map;
	int err;

	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		if (errno != EROFS && errno != EACCES && P->fails++ < MAX_FAILS)
			printf("stress: %c%d: mmap of a file being written: %s\n", P->kind, P->id,
			       strerror(errno));
		return 0;
	}
	if (ftruncate(fd, len)) {
		err = errno;
		munmap(map, len);
		errno = err;
		return 0;
	}
	memcpy(map, P->buf, len);
	if (st_chance(&P->rng, 30) && msync(map, len, MS_SYNC) && P->fails++ < MAX_FAILS)
		printf("stress: %c%d: msync: %s\n", P->kind, P->id, strerror(errno));
	munmap(map, len);
	return len;
}

/* Write a new file under a temporary name, then rename it into place. */
static void op_new_file(struct proc *P)
{
	char tmp[ST_PATH_MAX], dst[ST_PATH_MAX], fp[PATH_MAX];
	struct st_version v;
	struct st_rec r;
	uint32_t done = 0;
	unsigned flags = 0;
	int fd, dn;
	char via;

	v.owner = owner_id(P);
	v.fid = P->counter + 1;
	v.ver = (uint32_t)st_rand(&P->rng);
	v.len = ST_MIN_LEN + st_below(&P->rng, st_chance(&P->rng, 20) ? ST_MAX_LEN - ST_MIN_LEN : 4096);
	if (new_name(P, 't', tmp, sizeof(tmp)))
		return;
	begin(P, &r, OP_CREATE, tmp, NULL);
	r.a = v.owner, r.b = v.fid, r.c = v.ver, r.d = v.len;
	full_path(P, r.via, tmp, fp, sizeof(fp));
	fd = end_syscall(P, &r, open(fp, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0644));
	finish(P, &r, false);
	if (fd < 0)
		return;

	/* The writes go through the open file, on the view it was made in. */
	via = r.via;
	st_fill(&v, P->buf);
	begin(P, &r, OP_WRITE, tmp, NULL);
	r.via = via;
	r.d = v.len;
	if (st_chance(&P->rng, 25)) {
		done = write_mmap(P, fd, v.len);
		goto written;
	}
	while (done < v.len) {
		uint32_t chunk = 1 + st_below(&P->rng, v.len - done);
		ssize_t n = write(fd, P->buf + done, chunk);

		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			break;
		}
		done += n;
	}
written:
	end_syscall(P, &r, done == v.len ? 0 : -1);
	r.a = done;
	finish(P, &r, false);
	if (done == v.len && st_chance(&P->rng, 20)) {
		begin(P, &r, OP_FSYNC, tmp, NULL);
		r.via = via;
		end_syscall(P, &r, fsync(fd));
		finish(P, &r, false);
	}
	close(fd);
	if (done != v.len)
		return;

	dn = st_chance(&P->rng, 20) ? pick_own(P, 'f') : -1;
	if (dn >= 0)
		path_of(P, dn, dst, sizeof(dst));
	else
		if (new_name(P, 'f', dst, sizeof(dst)))
			return;
	if (st_chance(&P->rng, 25))
		flags = RENAME_NOREPLACE;
	path_op(P, OP_RENAME, tmp, dst, flags);
}

/* Rename one of ours: to a new name, over another of its kind, or exchange. */
static void op_rename(struct proc *P)
{
	static const char kinds[] = "ffds";
	char kind = kinds[st_below(&P->rng, 4)];
	char src[ST_PATH_MAX], dst[ST_PATH_MAX];
	int s = pick_own(P, kind), d;
	unsigned flags = 0;

	if (s < 0)
		return;
	path_of(P, s, src, sizeof(src));
	d = st_chance(&P->rng, 30) ? pick_own(P, kind) : -1;
	if (d >= 0) {
		path_of(P, d, dst, sizeof(dst));
		if (st_chance(&P->rng, 40) && d != s && !st_is_ancestor(&P->m, s, d) &&
		    !st_is_ancestor(&P->m, d, s))
			flags = RENAME_EXCHANGE;
	} else {
		if (new_name(P, kind, dst, sizeof(dst)))
			return;
	}
	if (!flags && st_chance(&P->rng, 15))
		flags = RENAME_NOREPLACE;
	path_op(P, OP_RENAME, src, dst, flags);
}

static void op_link(struct proc *P)
{
	char src[ST_PATH_MAX], dst[ST_PATH_MAX];
	int s = pick_own(P, 'f'), d;

	if (s < 0)
		return;
	path_of(P, s, src, sizeof(src));
	d = st_chance(&P->rng, 10) ? pick_own(P, 0) : -1;
	if (d >= 0)
		path_of(P, d, dst, sizeof(dst));
	else
		if (new_name(P, 'f', dst, sizeof(dst)))
			return;
	path_op(P, OP_LINK, src, dst, 0);
}

static void op_unlink(struct proc *P)
{
	static const char kinds[] = "fffst";
	char path[ST_PATH_MAX];
	int n;

	if (st_chance(&P->rng, 8)) {
		if (new_name(P, 'f', path, sizeof(path)))	/* does not exist */
			return;
	} else {
		n = pick_own(P, st_chance(&P->rng, 5) ? 'd' : kinds[st_below(&P->rng, 5)]);
		if (n < 0)
			return;
		path_of(P, n, path, sizeof(path));
	}
	path_op(P, OP_UNLINK, path, NULL, 0);
}

static void op_mkdir(struct proc *P)
{
	char path[ST_PATH_MAX];
	int n = st_chance(&P->rng, 5) ? pick_own(P, 'd') : -1;

	if (n >= 0)
		path_of(P, n, path, sizeof(path));	/* exists */
	else
		if (new_name(P, 'd', path, sizeof(path)))
			return;
	path_op(P, OP_MKDIR, path, NULL, 0);
}

static void op_rmdir(struct proc *P)
{
	char path[ST_PATH_MAX];
	int n = pick_own(P, 'd');

	if (n < 0)
		return;
	path_of(P, n, path, sizeof(path));
	path_op(P, OP_RMDIR, path, NULL, 0);
}

static void op_symlink(struct proc *P)
{
	char target[ST_NAME_MAX], path[ST_PATH_MAX];

	snprintf(target, sizeof(target), "tgt-%c%d-%u", P->kind, P->id, P->counter);
	if (new_name(P, 's', path, sizeof(path)))
		return;
	path_op(P, OP_SYMLINK, target, path, 0);
}

static void one_op(struct proc *P)
{
	uint32_t x = st_below(&P->rng, 100);

	if (own_nodes(P, 0) > MAX_OWN)
		x = 100;
	if (x < 26)
		op_new_file(P);
	else if (x < 44)
		op_rename(P);
	else if (x < 54)
		op_link(P);
	else if (x < 66)
		op_unlink(P);
	else if (x < 78)
		op_mkdir(P);
	else if (x < 84)
		op_rmdir(P);
	else if (x < 90)
		op_symlink(P);
	else if (x < 100)
		op_rename(P);
	else if (st_chance(&P->rng, 50))
		op_unlink(P);
	else
		op_rmdir(P);
}

static int changer(const struct st_config *cfg, char kind, int id)
{
	struct proc P = { .cfg = cfg, .kind = kind, .id = id };
	char path[PATH_MAX];
	int ret = 1;

	umask(0);
	snprintf(P.prefix, sizeof(P.prefix), "%c%d-", kind, id);
	/* w0, w2: the filtered view; w1: both views; w3: the plain one; w2 unprivileged */
	P.mixed = kind == 'w' && id % 4 == 1;
	st_rng_init(&P.rng, cfg->seed, (kind == 'b' ? 1000 : 0) + id);
	snprintf(path, sizeof(path), "%s/%c%d.log", cfg->logdir, kind, id);
	P.logfd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
	P.buf = malloc(ST_MAX_LEN);
	if (P.logfd < 0 || !P.buf || st_model_init(&P.m) ||
	    (st_uid(kind, id) && (setgroups(0, NULL) || setresgid(st_uid(kind, id), st_uid(kind, id), st_uid(kind, id)) ||
				  setresuid(st_uid(kind, id), st_uid(kind, id), st_uid(kind, id))))) {
		printf("stress: %c%d: cannot start: %s\n", kind, id, strerror(errno));
		goto out;
	}
	while (running(cfg))
		one_op(&P);
	ret = P.fails ? 1 : 0;
	if (P.fails > MAX_FAILS)
		printf("stress: %c%d: %d mismatches in all\n", kind, id, P.fails);
out:
	st_model_free(&P.m);
	free(P.buf);
	free(P.own);
	if (P.logfd >= 0)
		close(P.logfd);
	return ret;
}

int st_worker(const struct st_config *cfg, int id)
{
	return changer(cfg, 'w', id);
}

int st_mutator(const struct st_config *cfg, int id)
{
	return changer(cfg, 'b', id);
}

/* --- walkers ---------------------------------------------------------------------------------------- */
struct walker {
	const struct st_config *cfg;
	int id;
	char via;
	struct st_rng rng;
	uint8_t *buf;
	int fails;
	uint64_t files_read, dirs_listed;
};

static void wfail(struct walker *W, const char *path, const char *what, const char *detail)
{
	if (W->fails++ < MAX_FAILS)
		printf("stress: walker %d via %c: %s: %s%s%s\n", W->id, W->via, path, what,
		       detail ? ": " : "", detail ? detail : "");
}

/* The kind letter of a name a process made ('f', 't', 'd', 's'), or 0. */
static char kind_of(const char *name)
{
	char kind, rest[8];
	unsigned a, b;

	if ((name[0] != 'w' && name[0] != 'b') ||
	    sscanf(name + 1, "%u-%c%u%7s", &a, &kind, &b, rest) < 3)
		return 0;
	if (!strchr("ftds", kind))
		return 0;
	if (sscanf(name + 1, "%u-%c%u%7s", &a, &kind, &b, rest) == 4 && strcmp(rest, ".h"))
		return 0;
	return kind;
}

/* A stable policy state over [g0, g1], or -1. */
static int stable(const struct walker *W, uint64_t g0, uint64_t g1)
{
	if (W->via != 'v')
		return 0;
	if (g0 != g1 || (g0 & 1))
		return -1;
	return W->cfg->sh->state[g0 / 2];
}

static void read_file_check(struct walker *W, const char *path)
{
	struct st_version v;
	struct stat st;
	uint64_t g0, g1;
	const char *bad;
	ssize_t n, got = 0;
	int fd, s;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno != ENOENT && errno != ESTALE)
			wfail(W, path, "open", strerror(errno));
		return;
	}
	g0 = st_gen(W->cfg->sh);
	if (fstat(fd, &st)) {
		wfail(W, path, "fstat", strerror(errno));
		goto out;
	}
	g1 = st_gen(W->cfg->sh);
	s = stable(W, g0, g1);
	if (s >= 0 && !!(st.st_mode & S_ISVTX) != !!(s & ST_POL_ATTRS))
		wfail(W, path, s & ST_POL_ATTRS ? "no sticky bit while the attrs rule was in force" :
		      "a sticky bit while no attrs rule was in force", NULL);
	while ((n = read(fd, W->buf + got, ST_MAX_LEN + 1 - got)) > 0)
		got += n;
	if (n < 0) {
		wfail(W, path, "read", strerror(errno));
		goto out;
	}
	bad = st_verify(W->buf, got, &v);
	if (bad)
		wfail(W, path, "not a whole version", bad);
	else if (got != st.st_size)
		wfail(W, path, "read a different size than fstat said", NULL);
	W->files_read++;
out:
	close(fd);
}

static void check_entry(struct walker *W, const char *path, const char *name, unsigned char type,
			int depth, int pol)
{
	char kind = kind_of(name), target[PATH_MAX];
	ssize_t n;

	if (depth == 0 && (!strcmp(name, "lost+found") ||
			   (name[0] == 'd' && name[1] >= '0' && name[1] < '0' + ST_SHARED_DIRS && !name[2])))
		return;
	if (!kind || depth == 0) {
		wfail(W, path, "a name no process makes", NULL);
		return;
	}
	if (pol >= 0 && (pol & ST_POL_HIDE) && hideable(name))
		wfail(W, path, "listed while hidden", NULL);
	if (type != DT_UNKNOWN &&
	    type != (kind == 'd' ? DT_DIR : kind == 's' ? DT_LNK : DT_REG))
		wfail(W, path, "wrong d_type", NULL);
	if (kind == 'f' && st_chance(&W->rng, 40))
		read_file_check(W, path);
	if (kind == 's' && st_chance(&W->rng, 30)) {
		n = readlink(path, target, sizeof(target) - 1);
		if (n < 0 && errno != ENOENT && errno != ESTALE)
			wfail(W, path, "readlink", strerror(errno));
		target[n < 0 ? 0 : n] = 0;
		if (n >= 0 && strncmp(target, "tgt-", 4))
			wfail(W, path, "symlink to a target no process made", target);
	}
}

struct wdir {
	char path[PATH_MAX];
	int depth;
};

#define WALK_STACK 256

/* List one directory with a random getdents buffer; push subdirectories. */
static void walk_dir(struct walker *W, const struct wdir *dir, struct wdir *stack, int *sp)
{
	char dbuf[8192], child[PATH_MAX];
	size_t size = 256 + st_below(&W->rng, sizeof(dbuf) - 256);
	uint64_t g0, g1;
	long n;
	int fd = open(dir->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0) {
		/* ESTALE: see judge() */
		if (errno != ENOENT && errno != ENOTDIR && errno != ESTALE)
			wfail(W, dir->path, "open dir", strerror(errno));
		return;
	}
	g0 = st_gen(W->cfg->sh);
	while ((n = syscall(SYS_getdents64, fd, dbuf, size)) > 0) {
		long off = 0;

		g1 = st_gen(W->cfg->sh);
		while (off < n) {
			struct {
				uint64_t ino;
				int64_t off;
				unsigned short reclen;
				unsigned char type;
				char name[];
			} *de = (void *)(dbuf + off);

			off += de->reclen;
			if (!strcmp(de->name, ".") || !strcmp(de->name, ".."))
				continue;
			/* a path that does not fit could not be opened by its name either */
			if (snprintf(child, sizeof(child), "%s/%s", dir->path, de->name) >= (int)sizeof(child))
				continue;
			check_entry(W, child, de->name, de->type, dir->depth, stable(W, g0, g1));
			if (de->type == DT_DIR && *sp < WALK_STACK && dir->depth < 8 &&
			    strcmp(de->name, "lost+found") && st_chance(&W->rng, 70)) {
				snprintf(stack[*sp].path, PATH_MAX, "%s", child);
				stack[(*sp)++].depth = dir->depth + 1;
			}
		}
		g0 = st_gen(W->cfg->sh);
	}
	if (n < 0 && errno != ENOENT)
		wfail(W, dir->path, "getdents64", strerror(errno));
	W->dirs_listed++;
	close(fd);
}

int st_walker(const struct st_config *cfg, int id)
{
	struct walker W = { .cfg = cfg, .id = id };
	struct wdir *stack = calloc(WALK_STACK, sizeof(*stack)), dir;
	int sp;

	st_rng_init(&W.rng, cfg->seed, 2000 + id);
	W.buf = malloc(ST_MAX_LEN + 1);
	if (!W.buf || !stack)
		return 1;
	while (running(cfg)) {
		uint32_t x = st_below(&W.rng, 10);

		W.via = x < 6 ? 'v' : x < 9 ? 'p' : 'b';
		snprintf(stack[0].path, PATH_MAX, "%s", root_of(cfg, W.via));
		stack[0].depth = 0;
		sp = 1;
		while (sp > 0 && running(cfg)) {
			dir = stack[--sp];
			walk_dir(&W, &dir, stack, &sp);
		}
	}
	__atomic_add_fetch(&cfg->sh->files_read, W.files_read, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&cfg->sh->dirs_listed, W.dirs_listed, __ATOMIC_SEQ_CST);
	free(W.buf);
	free(stack);
	if (W.fails > MAX_FAILS)
		printf("stress: walker %d: %d problems in all\n", id, W.fails);
	return W.fails ? 1 : 0;
}

/* --- the policy switcher ------------------------------------------------------------------------------ */
static void policy_list(unsigned s, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s%s%s", s & ST_POL_HIDE ? "hide," : "", s & ST_POL_ATTRS ? "attrs," : "",
		 s & ST_POL_DENY ? "denywrite," : "");
	if (!buf[0])
		snprintf(buf, cap, "none");
	else
		buf[strlen(buf) - 1] = 0;
}

/* fusebpfctl policy NAME policies LIST; 0 or what went wrong (printed). */
static int set_policies(const struct st_config *cfg, unsigned s, const char *errpath)
{
	char list[32];
	char *argv[] = { (char *)cfg->ctl, "policy", (char *)cfg->filter, "policies", list, NULL };
	posix_spawn_file_actions_t fa;
	int status = -1;
	pid_t pid;

	policy_list(s, list, sizeof(list));
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	if (posix_spawn(&pid, cfg->ctl, &fa, NULL, argv, environ) == 0)
		waitpid(pid, &status, 0);
	posix_spawn_file_actions_destroy(&fa);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		char out[512] = "";
		FILE *f = fopen(errpath, "r");

		if (f) {
			out[fread(out, 1, sizeof(out) - 1, f)] = 0;
			fclose(f);
		}
		printf("stress: switcher: fusebpfctl policy %s policies %s failed (status %#x): %s\n",
		       cfg->filter, list, status, out);
		return -1;
	}
	return 0;
}

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;

	if (fd < 0 || write(fd, s, strlen(s)) < 0) {
		printf("stress: switcher: %s: %s\n", path, strerror(errno));
		ret = -1;
	}
	if (fd >= 0)
		close(fd);
	return ret;
}

int st_switcher(const struct st_config *cfg)
{
	struct st_shared *sh = cfg->sh;
	char errpath[PATH_MAX], logpath[PATH_MAX], list[32];
	struct st_rng rng;
	uint64_t k = 0;
	FILE *log;
	int fails = 0;

	st_rng_init(&rng, cfg->seed, 3000);
	snprintf(errpath, sizeof(errpath), "%s/../switcher.out", cfg->logdir);
	snprintf(logpath, sizeof(logpath), "%s/switcher.txt", cfg->logdir);
	log = fopen(logpath, "w");
	while (running(cfg) && k + 1 < ST_MAX_GENS) {
		unsigned s = (st_chance(&rng, 50) ? ST_POL_HIDE : 0) |
			     (st_chance(&rng, 50) ? ST_POL_ATTRS : 0) |
			     (st_chance(&rng, 20) ? ST_POL_DENY : 0);
		struct timespec ts = { 0, (20 + st_below(&rng, 230)) * 1000000L };

		nanosleep(&ts, NULL);
		/* Now and then, the views' dentries and inodes are evicted. */
		if (st_chance(&rng, 10) && write_str("/proc/sys/vm/drop_caches", "2"))
			fails++;
		sh->state[k + 1] = s;
		__atomic_store_n(&sh->gen, 2 * k + 1, __ATOMIC_SEQ_CST);
		if (set_policies(cfg, s, errpath))
			fails++;
		k++;
		__atomic_store_n(&sh->gen, 2 * k, __ATOMIC_SEQ_CST);
		policy_list(s, list, sizeof(list));
		if (log)
			fprintf(log, "gen %" PRIu64 " %s\n", 2 * k, list);
		if (fails > 3)
			break;
	}
	sh->switches = k;
	if (log)
		fclose(log);
	return fails ? 1 : 0;
}
