// SPDX-License-Identifier: GPL-2.0
/*
 * make stress: seeded random numbers, file versions, the policy history,
 * and the model of the tree that the logs replay into.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stress.h"

/* --- random numbers ------------------------------------------------------------------ */
static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

void st_rng_init(struct st_rng *r, uint64_t seed, uint64_t stream)
{
	r->s = mix64(seed ^ mix64(stream + 0x9e3779b97f4a7c15ULL)) | 1;
}

uint64_t st_rand(struct st_rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545f4914f6cdd1dULL;
}

uint32_t st_below(struct st_rng *r, uint32_t n)
{
	return n ? (uint32_t)((st_rand(r) >> 32) % n) : 0;
}

bool st_chance(struct st_rng *r, uint32_t pct)
{
	return st_below(r, 100) < pct;
}

/* --- file versions ----------------------------------------------------------------------- */
uint64_t st_sum(const uint8_t *buf, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;	/* FNV-1a */
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= buf[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

void st_fill(const struct st_version *v, uint8_t *buf)
{
	struct st_rng r;
	char hdr[ST_HDR_LEN + 1];
	size_t i;

	st_rng_init(&r, ((uint64_t)v->owner << 40) ^ ((uint64_t)v->fid << 20) ^ v->ver, v->len);
	for (i = ST_HDR_LEN; i < v->len; i++)
		buf[i] = (uint8_t)(st_rand(&r) >> 56);
	snprintf(hdr, sizeof(hdr), "STRESS o=%u f=%u v=%u len=%u sum=%016" PRIx64, v->owner,
		 v->fid, v->ver, v->len, st_sum(buf + ST_HDR_LEN, v->len - ST_HDR_LEN));
	memset(buf, ' ', ST_HDR_LEN);
	memcpy(buf, hdr, strlen(hdr));
	buf[ST_HDR_LEN - 1] = '\n';
}

const char *st_verify(const uint8_t *buf, size_t n, struct st_version *v)
{
	char hdr[ST_HDR_LEN + 1];
	uint64_t sum;

	if (n < ST_HDR_LEN)
		return "shorter than a header";
	memcpy(hdr, buf, ST_HDR_LEN);
	hdr[ST_HDR_LEN] = 0;
	if (sscanf(hdr, "STRESS o=%u f=%u v=%u len=%u sum=%" SCNx64, &v->owner, &v->fid, &v->ver,
		   &v->len, &sum) != 5)
		return "no header";
	if (v->len != n)
		return "length differs from the header's";
	if (st_sum(buf + ST_HDR_LEN, n - ST_HDR_LEN) != sum)
		return "checksum differs from the header's";
	return NULL;
}

/* --- policies ------------------------------------------------------------------------------ */
uint64_t st_gen(const struct st_shared *sh)
{
	return __atomic_load_n(&sh->gen, __ATOMIC_SEQ_CST);
}

void st_policy_range(const struct st_shared *sh, uint64_t g0, uint64_t g1, unsigned *any,
		     unsigned *all)
{
	uint64_t k;

	*any = 0;
	*all = ST_POL_HIDE | ST_POL_ATTRS | ST_POL_DENY;
	for (k = g0 / 2; k <= (g1 + 1) / 2 && k < ST_MAX_GENS; k++) {
		*any |= sh->state[k];
		*all &= sh->state[k];
	}
}

/* --- the model ------------------------------------------------------------------------------- */
static int new_ino(struct st_model *m, enum st_type type)
{
	if (m->ninos == m->icap) {
		int cap = m->icap ? m->icap * 2 : 256;
		struct st_ino *n = realloc(m->inos, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		m->inos = n;
		m->icap = cap;
	}
	memset(&m->inos[m->ninos], 0, sizeof(m->inos[0]));
	m->inos[m->ninos].type = type;
	return m->ninos++;
}

static int new_node(struct st_model *m, int parent, const char *name, int ino)
{
	int i;

	for (i = 1; i < m->nnodes; i++)
		if (m->nodes[i].parent == -1)
			goto found;
	if (m->nnodes == m->cap) {
		int cap = m->cap ? m->cap * 2 : 256;
		struct st_node *n = realloc(m->nodes, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		m->nodes = n;
		m->cap = cap;
	}
	i = m->nnodes++;
found:
	m->nodes[i].parent = parent;
	m->nodes[i].ino = ino;
	snprintf(m->nodes[i].name, ST_NAME_MAX, "%s", name);
	m->inos[ino].nlink++;
	return i;
}

int st_model_init(struct st_model *m)
{
	char name[16];
	int i, ino;

	memset(m, 0, sizeof(*m));
	ino = new_ino(m, ST_DIR);
	if (ino < 0 || new_node(m, -2, "", ino) != 0)
		return -ENOMEM;
	for (i = 0; i <= ST_SHARED_DIRS; i++) {
		if (i < ST_SHARED_DIRS)
			snprintf(name, sizeof(name), "d%d", i);
		else
			snprintf(name, sizeof(name), "lost+found");
		ino = new_ino(m, ST_DIR);
		if (ino < 0 || new_node(m, 0, name, ino) < 0)
			return -ENOMEM;
	}
	return 0;
}

void st_model_free(struct st_model *m)
{
	free(m->nodes);
	free(m->inos);
	memset(m, 0, sizeof(*m));
}

static int child(const struct st_model *m, int dir, const char *name, size_t len)
{
	int i;

	for (i = 1; i < m->nnodes; i++)
		if (m->nodes[i].parent == dir && strlen(m->nodes[i].name) == len &&
		    !memcmp(m->nodes[i].name, name, len))
			return i;
	return -1;
}

int st_lookup(const struct st_model *m, const char *path)
{
	int cur = 0;

	while (*path) {
		size_t len = strcspn(path, "/");

		if (len) {
			if (m->inos[m->nodes[cur].ino].type != ST_DIR)
				return -1;
			cur = child(m, cur, path, len);
			if (cur < 0)
				return -1;
		}
		path += len;
		if (*path == '/')
			path++;
	}
	return cur;
}

/* The parent directory of path, and its last component in *base. */
static int lookup_parent(const struct st_model *m, const char *path, const char **base)
{
	char dir[ST_PATH_MAX];
	const char *slash = strrchr(path, '/');

	if (!slash) {
		*base = path;
		return 0;
	}
	*base = slash + 1;
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	return st_lookup(m, dir);
}

int st_path_of(const struct st_model *m, int node, char *buf, size_t cap)
{
	char tmp[ST_PATH_MAX];

	buf[0] = 0;
	while (node > 0) {
		snprintf(tmp, sizeof(tmp), "%s%s%s", m->nodes[node].name, buf[0] ? "/" : "", buf);
		snprintf(buf, cap, "%s", tmp);
		node = m->nodes[node].parent;
	}
	return 0;
}

bool st_is_ancestor(const struct st_model *m, int anc, int node)
{
	while (node > 0) {
		if (node == anc)
			return true;
		node = m->nodes[node].parent;
	}
	return anc == 0;
}

bool st_dir_empty(const struct st_model *m, int node)
{
	int i;

	for (i = 1; i < m->nnodes; i++)
		if (m->nodes[i].parent == node)
			return false;
	return true;
}

static enum st_type type_of(const struct st_model *m, int node)
{
	return node < 0 ? ST_NONE : m->inos[m->nodes[node].ino].type;
}

static const char *const op_names[OP_NR] = {
	[OP_MKDIR] = "mkdir", [OP_RMDIR] = "rmdir", [OP_CREATE] = "create",
	[OP_WRITE] = "write", [OP_FSYNC] = "fsync", [OP_RENAME] = "rename",
	[OP_LINK] = "link", [OP_UNLINK] = "unlink", [OP_SYMLINK] = "symlink",
};

const char *st_op_name(enum st_op op)
{
	return op < OP_NR ? op_names[op] : "?";
}

/* A new name q: its parent must be a directory. */
static int predict_new(const struct st_model *m, const char *q)
{
	const char *base;
	int dir = lookup_parent(m, q, &base);

	if (dir < 0)
		return ENOENT;
	if (type_of(m, dir) != ST_DIR)
		return ENOTDIR;
	return st_lookup(m, q) >= 0 ? EEXIST : 0;
}

static int predict_rename(const struct st_model *m, const struct st_rec *r)
{
	const char *base;
	int src = st_lookup(m, r->p), dst = st_lookup(m, r->q);
	int dstdir = lookup_parent(m, r->q, &base);

	if (src < 0 || dstdir < 0 || type_of(m, dstdir) != ST_DIR)
		return ENOENT;
	if (src == dst)		/* rename(2) onto itself does nothing */
		return r->c & RENAME_NOREPLACE ? EEXIST : 0;
	if (r->c & RENAME_EXCHANGE) {
		if (dst < 0)
			return ENOENT;
		if (st_is_ancestor(m, src, dst) || st_is_ancestor(m, dst, src))
			return m->nodes[src].ino == m->nodes[dst].ino ? 0 : EINVAL;
		return 0;
	}
	if ((r->c & RENAME_NOREPLACE) && dst >= 0)
		return EEXIST;
	if (type_of(m, src) == ST_DIR && st_is_ancestor(m, src, dstdir))
		return EINVAL;
	if (dst >= 0 && st_is_ancestor(m, dst, src))
		return ENOTEMPTY;
	if (dst < 0 || m->nodes[src].ino == m->nodes[dst].ino)
		return 0;
	if (type_of(m, src) == ST_DIR && type_of(m, dst) != ST_DIR)
		return ENOTDIR;
	if (type_of(m, src) != ST_DIR && type_of(m, dst) == ST_DIR)
		return EISDIR;
	if (type_of(m, dst) == ST_DIR && !st_dir_empty(m, dst))
		return ENOTEMPTY;
	return 0;
}

int st_predict(const struct st_model *m, const struct st_rec *r)
{
	int n = st_lookup(m, r->p);

	switch (r->op) {
	case OP_MKDIR:
	case OP_CREATE:
		return predict_new(m, r->p);
	case OP_SYMLINK:
		return predict_new(m, r->q);
	case OP_RMDIR:
		if (n < 0)
			return ENOENT;
		if (type_of(m, n) != ST_DIR)
			return ENOTDIR;
		return st_dir_empty(m, n) ? 0 : ENOTEMPTY;
	case OP_UNLINK:
		if (n < 0)
			return ENOENT;
		return type_of(m, n) == ST_DIR ? EISDIR : 0;
	case OP_LINK: {
		int e = predict_new(m, r->q);

		if (n < 0)
			return ENOENT;
		if (e)
			return e;
		return type_of(m, n) == ST_DIR ? EPERM : 0;
	}
	case OP_RENAME:
		return predict_rename(m, r);
	case OP_WRITE:
	case OP_FSYNC:
		return n < 0 ? ENOENT : 0;
	default:
		return EINVAL;
	}
}

static void drop_node(struct st_model *m, int node)
{
	m->inos[m->nodes[node].ino].nlink--;
	m->nodes[node].parent = -1;
}

static int apply_rename(struct st_model *m, const struct st_rec *r)
{
	const char *base;
	int src = st_lookup(m, r->p), dst = st_lookup(m, r->q);
	int dstdir = lookup_parent(m, r->q, &base);
	char name[ST_NAME_MAX];
	struct st_node tmp;

	if (src < 0 || dstdir < 0)
		return -ENOENT;
	/* A name the model can't hold would make it differ from the tree */
	if (snprintf(name, sizeof(name), "%s", base) >= (int)sizeof(name))
		return -ENAMETOOLONG;
	if (dst >= 0 && m->nodes[src].ino == m->nodes[dst].ino)
		return 0;	/* the same inode: rename(2) does nothing */
	if (r->c & RENAME_EXCHANGE) {
		if (dst < 0)
			return -ENOENT;
		tmp = m->nodes[src];
		m->nodes[src].parent = m->nodes[dst].parent;
		memcpy(m->nodes[src].name, m->nodes[dst].name, ST_NAME_MAX);
		m->nodes[dst].parent = tmp.parent;
		memcpy(m->nodes[dst].name, tmp.name, ST_NAME_MAX);
		return 0;
	}
	if (dst >= 0)
		drop_node(m, dst);
	m->nodes[src].parent = dstdir;
	memcpy(m->nodes[src].name, name, ST_NAME_MAX);
	return 0;
}

static int apply_new(struct st_model *m, const char *path, enum st_type type, int ino)
{
	const char *base;
	int dir = lookup_parent(m, path, &base);

	if (dir < 0 || st_lookup(m, path) >= 0)
		return -EEXIST;
	if (ino < 0)
		ino = new_ino(m, type);
	if (ino < 0)
		return ino;
	return new_node(m, dir, base, ino) < 0 ? -ENOMEM : 0;
}

int st_apply(struct st_model *m, const struct st_rec *r)
{
	int n = st_lookup(m, r->p), ino, ret;

	switch (r->op) {
	case OP_MKDIR:
		return apply_new(m, r->p, ST_DIR, -1);
	case OP_CREATE:
		ino = new_ino(m, ST_REG);
		if (ino < 0)
			return ino;
		m->inos[ino].v = (struct st_version){ r->a, r->b, r->c, 0 };
		m->inos[ino].full = r->d;
		return apply_new(m, r->p, ST_REG, ino);
	case OP_SYMLINK:
		if (strlen(r->p) >= ST_NAME_MAX)
			return -ENAMETOOLONG;	/* a target the model can't hold */
		ino = new_ino(m, ST_LNK);
		if (ino < 0)
			return ino;
		memcpy(m->inos[ino].target, r->p, strlen(r->p) + 1);
		return apply_new(m, r->q, ST_LNK, ino);
	case OP_LINK:
		if (n < 0)
			return -ENOENT;
		return apply_new(m, r->q, ST_REG, m->nodes[n].ino);
	case OP_RMDIR:
	case OP_UNLINK:
		if (n <= 0)
			return -ENOENT;
		drop_node(m, n);
		return 0;
	case OP_RENAME:
		return apply_rename(m, r);
	case OP_WRITE:
		if (n < 0 || type_of(m, n) != ST_REG)
			return -ENOENT;
		m->inos[m->nodes[n].ino].v.len = r->a;
		return 0;
	case OP_FSYNC:
		return 0;
	default:
		ret = -EINVAL;
	}
	return ret;
}

void st_rec_format(const struct st_rec *r, uint64_t seq, char *buf, size_t cap)
{
	const char *e = r->err ? strerrorname_np(r->err) : "0";
	const char *p = r->pred ? strerrorname_np(r->pred) : "0";

	snprintf(buf, cap, "%" PRIu64 " %s %s %s %u %u %u %u %c %" PRIu64 " %" PRIu64 " %d %d # %s (predicted %s)\n",
		 seq, st_op_name(r->op), r->p, r->q[0] ? r->q : "-", r->a, r->b, r->c, r->d,
		 r->via, r->g0, r->g1, r->err, r->pred, e ? e : "?", p ? p : "?");
}

int st_rec_parse(const char *line, struct st_rec *r)
{
	char op[16];
	uint64_t seq;
	int i;

	memset(r, 0, sizeof(*r));
	if (sscanf(line, "%" SCNu64 " %15s %511s %511s %u %u %u %u %c %" SCNu64 " %" SCNu64 " %d %d",
		   &seq, op, r->p, r->q, &r->a, &r->b, &r->c, &r->d, &r->via, &r->g0, &r->g1,
		   &r->err, &r->pred) != 13)
		return -EINVAL;
	if (!strcmp(r->q, "-"))
		r->q[0] = 0;
	for (i = 0; i < OP_NR; i++)
		if (!strcmp(op, op_names[i])) {
			r->op = i;
			return 0;
		}
	return -EINVAL;
}

/* --- comparing a tree with the model ------------------------------------------------------------ */
struct cmp {
	const struct st_model *m;
	const char *logdir;
	FILE *out;
	int diffs;
	uint64_t *ino_of;	/* model inode -> st_ino seen (0: not yet) */
	uint8_t *buf;
	uint8_t *want;
};

/* The logged ops that name base, the last few of each log. */
static void show_history(struct cmp *c, const char *base)
{
	char path[PATH_MAX], line[2048], pat[ST_NAME_MAX + 2], *ring[6] = { 0 };
	struct dirent *de;
	DIR *d = opendir(c->logdir);
	int n, i;

	if (!d || c->diffs > 20)
		goto out;
	snprintf(pat, sizeof(pat), "%s", base);
	while ((de = readdir(d))) {
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", c->logdir, de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		n = 0;
		while (fgets(line, sizeof(line), f)) {
			char *hit = strstr(line, pat);
			size_t l = strlen(pat);

			for (; hit; hit = strstr(hit + 1, pat))
				if ((hit == line || hit[-1] == ' ' || hit[-1] == '/') &&
				    (hit[l] == ' ' || hit[l] == '/'))
					break;
			if (!hit)
				continue;
			free(ring[n % 6]);
			ring[n % 6] = strdup(line);
			n++;
		}
		fclose(f);
		for (i = n > 6 ? n - 6 : 0; i < n; i++)
			fprintf(c->out, "    %s: %s", de->d_name, ring[i % 6]);
	}
out:
	for (i = 0; i < 6; i++)
		free(ring[i]);
	if (d)
		closedir(d);
}

static void diff(struct cmp *c, const char *rel, const char *fmt, const char *what)
{
	c->diffs++;
	if (c->diffs > 20)
		return;
	fprintf(c->out, "  %s: ", rel);
	fprintf(c->out, fmt, what);
	fputc('\n', c->out);
	show_history(c, strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel);
}

static void compare_reg(struct cmp *c, const char *full, const char *rel, const struct st_ino *ino)
{
	struct st_version full_v = ino->v;
	char msg[160];
	ssize_t n, got = 0;
	int fd = open(full, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		diff(c, rel, "cannot open: %s", strerror(errno));
		return;
	}
	while ((n = read(fd, c->buf + got, ST_MAX_LEN + 1 - got)) > 0)
		got += n;
	close(fd);
	full_v.len = ino->full;
	st_fill(&full_v, c->want);
	if (n < 0) {
		diff(c, rel, "read: %s", strerror(errno));
	} else if (got != (ssize_t)ino->v.len) {
		snprintf(msg, sizeof(msg), "%zd bytes, expected %u (of version o=%u f=%u v=%u len=%u)",
			 got, ino->v.len, ino->v.owner, ino->v.fid, ino->v.ver, ino->full);
		diff(c, rel, "%s", msg);
	} else if (st_sum(c->buf, got) != st_sum(c->want, got)) {
		ssize_t i = 0;

		while (i < got && c->buf[i] == c->want[i])
			i++;
		snprintf(msg, sizeof(msg), "checksum differs from version o=%u f=%u v=%u (first at byte %zd)",
			 ino->v.owner, ino->v.fid, ino->v.ver, i);
		diff(c, rel, "%s", msg);
	}
}

static void compare_node(struct cmp *c, const char *full, const char *rel, int node);

static void compare_dir(struct cmp *c, const char *full, const char *rel, int node)
{
	char cfull[PATH_MAX], crel[ST_PATH_MAX];
	struct dirent *de;
	bool *seen = calloc(c->m->nnodes, sizeof(*seen));
	DIR *d = opendir(full);
	int i;

	if (!d || !seen) {
		diff(c, rel, "cannot list: %s", strerror(errno));
		goto out;
	}
	while ((de = readdir(d))) {
		int ch;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(cfull, sizeof(cfull), "%s/%s", full, de->d_name);
		snprintf(crel, sizeof(crel), "%s%s%s", rel, rel[0] ? "/" : "", de->d_name);
		ch = child(c->m, node, de->d_name, strlen(de->d_name));
		if (ch < 0) {
			diff(c, crel, "%s", "present, but no logged op left it there");
			continue;
		}
		seen[ch] = true;
		compare_node(c, cfull, crel, ch);
	}
	for (i = 1; i < c->m->nnodes; i++) {
		if (c->m->nodes[i].parent != node || seen[i])
			continue;
		snprintf(crel, sizeof(crel), "%s%s%s", rel, rel[0] ? "/" : "", c->m->nodes[i].name);
		diff(c, crel, "%s", "missing: the logged ops leave it there");
	}
out:
	free(seen);
	if (d)
		closedir(d);
}

static const char *type_name(enum st_type t)
{
	return t == ST_DIR ? "a directory" : t == ST_REG ? "a regular file" :
	       t == ST_LNK ? "a symlink" : "nothing";
}

uint32_t st_uid(char kind, int id)
{
	return kind == 'w' && id % 4 == 2 ? 1000 + id : 0;
}

uint32_t st_owner_uid(const char *name)
{
	int id;

	if ((name[0] != 'w' && name[0] != 'b') || sscanf(name + 1, "%d-", &id) != 1)
		return 0;
	return st_uid(name[0], id);
}

static void compare_node(struct cmp *c, const char *full, const char *rel, int node)
{
	const struct st_ino *ino = &c->m->inos[c->m->nodes[node].ino];
	char target[PATH_MAX], msg[160];
	enum st_type t;
	struct stat st;
	ssize_t n;

	if (lstat(full, &st)) {
		diff(c, rel, "lstat: %s", strerror(errno));
		return;
	}
	t = S_ISDIR(st.st_mode) ? ST_DIR : S_ISREG(st.st_mode) ? ST_REG :
	    S_ISLNK(st.st_mode) ? ST_LNK : ST_NONE;
	if (t != ino->type) {
		snprintf(msg, sizeof(msg), "%s, expected %s", type_name(t), type_name(ino->type));
		diff(c, rel, "is %s", msg);
		return;
	}
	if (st.st_uid != st_owner_uid(c->m->nodes[node].name) ||
	    st.st_gid != st_owner_uid(c->m->nodes[node].name)) {
		snprintf(msg, sizeof(msg), "owned by %u:%u, expected %u", st.st_uid, st.st_gid,
			 st_owner_uid(c->m->nodes[node].name));
		diff(c, rel, "%s", msg);
	}
	if (t == ST_DIR) {
		compare_dir(c, full, rel, node);
		return;
	}
	if (t == ST_LNK) {
		n = readlink(full, target, sizeof(target) - 1);
		target[n < 0 ? 0 : n] = 0;
		if (strcmp(target, ino->target))
			diff(c, rel, "symlink to '%s'", target);
		return;
	}
	if (c->ino_of[c->m->nodes[node].ino] &&
	    c->ino_of[c->m->nodes[node].ino] != st.st_ino)
		diff(c, rel, "%s", "a different inode than its hard links'");
	c->ino_of[c->m->nodes[node].ino] = st.st_ino;
	if ((int)st.st_nlink != ino->nlink) {
		snprintf(msg, sizeof(msg), "%ju links, expected %d", (uintmax_t)st.st_nlink, ino->nlink);
		diff(c, rel, "%s", msg);
	}
	compare_reg(c, full, rel, ino);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int st_compare(const struct st_model *m, const char *root, const char *logdir, FILE *out)
{
	struct cmp c = { .m = m, .logdir = logdir, .out = out };
	int i, j;

	c.ino_of = calloc(m->ninos, sizeof(*c.ino_of));
	c.buf = malloc(ST_MAX_LEN + 1);
	c.want = malloc(ST_MAX_LEN);
	if (!c.ino_of || !c.buf || !c.want) {
		fprintf(out, "  out of memory\n");
		c.diffs = 1;
		goto out;
	}
	compare_dir(&c, root, "", 0);
	/* Two model inodes on one real inode: links that should not be. */
	for (i = 0, j = 0; i < m->ninos; i++)
		if (c.ino_of[i])
			c.ino_of[j++] = c.ino_of[i];
	qsort(c.ino_of, j, sizeof(*c.ino_of), cmp_u64);
	for (i = 1; i < j; i++)
		if (c.ino_of[i] == c.ino_of[i - 1]) {
			fprintf(out, "  two files that should be separate share inode %ju\n",
				(uintmax_t)c.ino_of[i]);
			c.diffs++;
		}
	if (c.diffs > 20)
		fprintf(out, "  ... %d differences in all\n", c.diffs);
out:
	free(c.ino_of);
	free(c.buf);
	free(c.want);
	return c.diffs;
}
