// SPDX-License-Identifier: GPL-2.0
/*
 * The decision of fusebpfctl explain (explain.h): no kernel, no maps; the
 * caller reads the filters' maps (explain_cmd.c) and prints the result.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "explain.h"
#include "fusebpfctl.h"

const struct explain_op explain_ops[] = {
	{ "lookup", EXOP_LOOKUP, true, "a path walk, stat" },
	{ "getattr", EXOP_NODE_READ, true, "stat, fstat" },
	{ "read", EXOP_NODE_READ, false, "open for reading, read" },
	{ "readdir", EXOP_NODE_READ, false, "ls, getdents" },
	{ "write", EXOP_NODE_WRITE, false, "open for writing or with O_TRUNC, write" },
	{ "setattr", EXOP_NODE_WRITE, true, "chmod, chown, truncate, utimes" },
	{ "setxattr", EXOP_NODE_WRITE, false, "setxattr" },
	{ "removexattr", EXOP_NODE_WRITE, false, "removexattr" },
	{ "create", EXOP_NAME_CREATE, false, "creat, open with O_CREAT" },
	{ "mkdir", EXOP_NAME_CREATE, false, "mkdir" },
	{ "mknod", EXOP_NAME_CREATE, false, "mknod, mkfifo" },
	{ "symlink", EXOP_NAME_CREATE, false, "symlink (PATH: the new link)" },
	{ "link", EXOP_NAME_CREATE, false, "link (PATH: the new name)" },
	{ "unlink", EXOP_NAME_REMOVE, false, "unlink, rm" },
	{ "rmdir", EXOP_NAME_REMOVE, false, "rmdir" },
};
const int explain_nops = sizeof(explain_ops) / sizeof(explain_ops[0]);

const struct explain_op *explain_find_op(const char *s)
{
	for (int i = 0; i < explain_nops; i++)
		if (!strcasecmp(explain_ops[i].name, s))
			return &explain_ops[i];
	return NULL;
}

uint32_t explain_policies(const struct explain_filter *f)
{
	if (!strcmp(f->kind, "hide"))
		return FUSEBPF_POLICY_HIDE;
	if (!strcmp(f->kind, "attrs"))
		return FUSEBPF_POLICY_ATTRS;
	if (!strcmp(f->kind, "denywrite"))
		return FUSEBPF_POLICY_DENYWRITE;
	if (!strcmp(f->kind, "fusebpf"))
		return f->cfg.policies;
	return 0;
}

bool explain_known_kind(const char *kind)
{
	static const char *const known[] = { "hide", "attrs", "denywrite", "fusebpf", "stats" };

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(kind, known[i]))
			return true;
	return false;
}

void explain_filter_free(struct explain_filter *f)
{
	free(f->names);
	free(f->rules);
	free(f->allow);
	free(f->except);
	memset(f, 0, sizeof(*f));
}

const char *explain_verdict_name(enum explain_verdict v)
{
	static const char *const names[] = {
		[EXV_ALLOW] = "allow", [EXV_HIDE] = "hide", [EXV_DENY] = "deny",
		[EXV_WOULD_HIDE] = "would-hide", [EXV_WOULD_DENY] = "would-deny",
		[EXV_EXCEPTED] = "excepted", [EXV_UNKNOWN] = "unknown",
	};

	return v <= EXV_UNKNOWN ? names[v] : "unknown";
}

/* --- name matching, as the filters do it (fusebpf.h) ------------------------------ */

static bool glob_match(const char *n, const char *p)
{
	const char *star = NULL, *mark = NULL;

	while (*n) {
		if (*p == '*') {
			star = p++;
			mark = n;
		} else if (*p && (*p == '?' || *p == *n)) {
			p++;
			n++;
		} else if (star) {
			p = star + 1;
			n = ++mark;
		} else {
			return false;
		}
	}
	while (*p == '*')
		p++;
	return !*p;
}

static bool pattern_match(const char *name, size_t len, const struct fusebpf_pattern *p)
{
	size_t plen = strnlen(p->pat, FUSEBPF_PATTERN_MAX - 1);
	char pat[FUSEBPF_PATTERN_MAX];

	if (plen != p->len)
		return false;
	memcpy(pat, p->pat, plen);
	pat[plen] = 0;
	switch (p->kind) {
	case FUSEBPF_PAT_PREFIX:
		return plen <= len && !memcmp(name, pat, plen);
	case FUSEBPF_PAT_SUFFIX:
		return plen <= len && !memcmp(name + len - plen, pat, plen);
	case FUSEBPF_PAT_GLOB:
		return glob_match(name, pat);
	default:
		return false;
	}
}

static bool name_in(const struct fusebpf_name *v, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strncmp(v[i].name, name, FUSEBPF_NAME_MAX))
			return true;
	return false;
}

/* Is name hidden by f's hide policy? Which rule and what matched in *s. */
static bool hide_match(const struct explain_filter *f, const char *name, struct explain_step *s)
{
	size_t len = strlen(name);

	if (!len || len >= FUSEBPF_NAME_MAX || !strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	s->policy = "hide";
	if ((f->cfg.hide_flags & FUSEBPF_HIDE_DOTFILES) && name[0] == '.') {
		s->rule = "dotfiles";
		return true;
	}
	if (name_in(f->names, f->nnames, name)) {
		s->rule = "name";
		snprintf(s->match, sizeof(s->match), "%s", name);
		return true;
	}
	for (int i = 0; i < FUSEBPF_HIDE_PATTERNS_MAX; i++) {
		const struct fusebpf_pattern *p = &f->patterns[i];

		if (p->kind == FUSEBPF_PAT_NONE)
			break;		/* the filter stops at the first unused slot */
		if (!pattern_match(name, len, p))
			continue;
		s->rule = p->kind == FUSEBPF_PAT_PREFIX ? "prefix" :
			  p->kind == FUSEBPF_PAT_SUFFIX ? "suffix" : "glob";
		snprintf(s->match, sizeof(s->match), "%.*s", (int)p->len, p->pat);
		return true;
	}
	return false;
}

/* Is the caller excepted from policy? The uid first, then the gid, as fusebpf_excepted(). */
static bool excepted(const struct explain_filter *f, const struct explain_query *q, uint32_t policy,
		     struct explain_step *s)
{
	for (int pass = 0; pass < 2; pass++) {
		uint32_t kind = pass ? FUSEBPF_EXCEPT_GID : FUSEBPF_EXCEPT_UID;
		uint32_t id = pass ? q->gid : q->uid;

		for (int i = 0; i < f->nexcept; i++) {
			const struct explain_except *e = &f->except[i];

			if (e->key.kind == kind && e->key.id == id && (e->mask & policy)) {
				s->except_kind = kind;
				s->except_id = id;
				return true;
			}
		}
	}
	return false;
}

/* --- which program runs where (server.h) ------------------------------------------ */

struct explain_prog {
	const char *filter;	/* "" none */
	const char *subtree;	/* "" the mount's */
	bool served;
};

static bool path_under(const char *path, const char *dir)
{
	size_t len = strlen(dir);

	return !strncmp(path, dir, len) && (path[len] == '/' || !path[len]);
}

/* The program of the node at path (relative to the view's root). */
static struct explain_prog program_of(const struct mount_rec *m, const char *path)
{
	struct explain_prog p = { .filter = m->filter, .subtree = "" };
	const struct at_rule *first = NULL;

	for (int i = 0; i < m->nat; i++)
		if (path_under(path, m->at[i].path) &&
		    (!first || strlen(m->at[i].path) < strlen(first->path)))
			first = &m->at[i];
	if (first)
		return (struct explain_prog){ .filter = first->filter, .subtree = first->path };
	for (int i = 0; i < m->nat; i++)
		if (!*path || path_under(m->at[i].path, path))
			return (struct explain_prog){ .filter = "", .subtree = "", .served = true };
	return p;
}

/* --- recording --------------------------------------------------------------------- */

static struct explain_step *step_new(struct explain_result *res, const char *path, const char *op,
				     const struct explain_prog *p)
{
	static struct explain_step spare;
	struct explain_step *s;

	if (res->nsteps == EXPLAIN_MAX_STEPS) {
		res->truncated = true;
		s = &spare;
	} else {
		s = &res->steps[res->nsteps++];
	}
	memset(s, 0, sizeof(*s));
	snprintf(s->path, sizeof(s->path), "%s", path);
	s->op = op;
	snprintf(s->filter, sizeof(s->filter), "%s", p->filter);
	snprintf(s->subtree, sizeof(s->subtree), "%s", p->subtree);
	return s;
}

/*
 * A policy matched step s: excepted, audited, or enforced with err.
 * Returns true when it ends the operation.
 */
static bool matched(const struct explain_query *q, struct explain_result *res,
		    const struct explain_filter *f, struct explain_step *s, uint32_t policy,
		    enum explain_verdict v, int err)
{
	if (excepted(f, q, policy, s)) {
		s->verdict = EXV_EXCEPTED;
		return false;
	}
	s->err = err;
	if (f->cfg.flags & FUSEBPF_CFG_AUDIT) {
		s->verdict = v == EXV_HIDE ? EXV_WOULD_HIDE : EXV_WOULD_DENY;
		if (res->verdict == EXV_ALLOW) {
			res->verdict = s->verdict;
			res->err = err;
		}
		return false;
	}
	s->verdict = v;
	res->verdict = v;
	res->err = err;
	return true;
}

/* The filter a program runs, when explain can tell what it decides; NULL otherwise. */
static const struct explain_filter *filter_for(const struct explain_query *q,
					       struct explain_result *res,
					       const struct explain_prog *p, const char *path,
					       const char *op)
{
	const struct explain_filter *f = NULL;
	struct explain_step *s;

	if (p->served || !*p->filter)
		return NULL;
	for (int i = 0; i < q->nfilters && !f; i++)
		if (!strcmp(q->filters[i].name, p->filter))
			f = &q->filters[i];
	if (f && explain_known_kind(f->kind))
		return f;
	for (int i = 0; i < res->nsteps; i++)
		if (res->steps[i].verdict == EXV_UNKNOWN && !strcmp(res->steps[i].filter, p->filter))
			return NULL;	/* said once */
	s = step_new(res, path, op, p);
	s->verdict = EXV_UNKNOWN;
	if (res->verdict == EXV_ALLOW)
		res->verdict = EXV_UNKNOWN;
	res->note = f ? "a filter object decides by its own program: explain knows the "
			"built-in filters' policies only"
		      : "a filter of the view is not loaded";
	return NULL;
}

static int errno_or(int err, int dflt)
{
	return err > 0 && err < 4096 ? err : dflt;
}

/* --- the decision ------------------------------------------------------------------ */

/* The LOOKUP of name (at path) in the directory parent: true when it ends the walk. */
static bool decide_lookup(const struct explain_query *q, struct explain_result *res,
			  const char *parent, const char *path, const char *name)
{
	struct explain_prog p = program_of(q->m, parent);
	const struct explain_filter *f = filter_for(q, res, &p, path, "lookup");
	struct explain_step s = { 0 }, *rec;

	if (!f || !(explain_policies(f) & FUSEBPF_POLICY_HIDE) || !hide_match(f, name, &s))
		return false;
	rec = step_new(res, path, "lookup", &p);
	rec->policy = s.policy;
	rec->rule = s.rule;
	memcpy(rec->match, s.match, sizeof(s.match));
	return matched(q, res, f, rec, FUSEBPF_POLICY_HIDE, EXV_HIDE, ENOENT);
}

/* Look up every component of the path but the last name of a create; true: ended. */
static bool walk(const struct explain_query *q, struct explain_result *res)
{
	char parent[PATH_MAX] = "", path[PATH_MAX], *save = NULL, *name;
	char buf[PATH_MAX];
	bool create = q->op->kind == EXOP_NAME_CREATE;

	snprintf(buf, sizeof(buf), "%s", q->rel);
	for (name = strtok_r(buf, "/", &save); name; name = strtok_r(NULL, "/", &save)) {
		snprintf(path, sizeof(path), "%s%s%s", parent, *parent ? "/" : "", name);
		if (create && !strcmp(path, q->rel))
			break;
		if (decide_lookup(q, res, parent, path, name))
			return true;
		snprintf(parent, sizeof(parent), "%s", path);
	}
	return false;
}

/* The parent directory of rel ("" for a top-level name) and the last name. */
static void split_last(const char *rel, char *parent, size_t cap, const char **name)
{
	const char *slash = strrchr(rel, '/');

	*name = slash ? slash + 1 : rel;
	snprintf(parent, cap, "%.*s", slash ? (int)(slash - rel) : 0, rel);
}

/* create, mkdir, ..., unlink, rmdir: in the parent's program, denywrite then hide. */
static void decide_name_op(const struct explain_query *q, struct explain_result *res,
			   const struct explain_prog *p, const struct explain_filter *f,
			   const char *name)
{
	uint32_t pol = explain_policies(f);
	struct explain_step s = { 0 }, *rec;

	if (pol & FUSEBPF_POLICY_DENYWRITE) {
		rec = step_new(res, q->rel, q->op->name, p);
		rec->policy = "denywrite";
		if (name_in(f->allow, f->nallow, name)) {
			rec->rule = "allow";
			snprintf(rec->match, sizeof(rec->match), "%s", name);
		} else {
			rec->rule = "write";
			if (matched(q, res, f, rec, FUSEBPF_POLICY_DENYWRITE, EXV_DENY,
				    errno_or(f->cfg.deny_errno, EROFS)))
				return;
		}
	}
	/* A removal of a hidden name ended at its lookup (or was audited there). */
	if (q->op->kind != EXOP_NAME_CREATE || !(pol & FUSEBPF_POLICY_HIDE) || !hide_match(f, name, &s))
		return;
	rec = step_new(res, q->rel, q->op->name, p);
	rec->policy = s.policy;
	rec->rule = s.rule;
	memcpy(rec->match, s.match, sizeof(s.match));
	matched(q, res, f, rec, FUSEBPF_POLICY_HIDE, EXV_DENY, errno_or(f->cfg.hide_errno, EACCES));
}

/* The op itself: which program runs it, and what its policies say. */
static void decide_op(const struct explain_query *q, struct explain_result *res)
{
	char parent[PATH_MAX];
	const struct explain_filter *f;
	struct explain_prog p;
	struct explain_step *rec;
	const char *name;
	bool on_name = q->op->kind == EXOP_NAME_CREATE || q->op->kind == EXOP_NAME_REMOVE ||
		       (q->op->kind == EXOP_LOOKUP && *q->rel);

	split_last(q->rel, parent, sizeof(parent), &name);
	p = program_of(q->m, on_name ? parent : q->rel);
	snprintf(res->filter, sizeof(res->filter), "%s", p.filter);
	snprintf(res->subtree, sizeof(res->subtree), "%s", p.subtree);
	res->served = p.served;
	if (q->op->kind == EXOP_LOOKUP || q->op->kind == EXOP_NODE_READ)
		return;		/* the walk decided */
	if (on_name && p.served) {
		/* fusebpfctl's server: no names made or removed where no filter sees it */
		rec = step_new(res, q->rel, q->op->name, &p);
		rec->rule = "served";
		rec->verdict = res->verdict = EXV_DENY;
		rec->err = res->err = EPERM;
		return;
	}
	f = filter_for(q, res, &p, q->rel, q->op->name);
	if (!f)
		return;
	if (on_name) {
		decide_name_op(q, res, &p, f, name);
	} else if (explain_policies(f) & FUSEBPF_POLICY_DENYWRITE) {
		rec = step_new(res, q->rel, q->op->name, &p);
		rec->policy = "denywrite";
		rec->rule = "write";
		matched(q, res, f, rec, FUSEBPF_POLICY_DENYWRITE, EXV_DENY,
			errno_or(f->cfg.deny_errno, EROFS));
	}
}

/* The attribute rule the op's reply goes through (its own program's attrs). */
static void decide_attrs(const struct explain_query *q, struct explain_result *res)
{
	const struct explain_filter *f = NULL;
	const char *name;
	char parent[PATH_MAX];

	if (!q->op->attrs || res->verdict == EXV_HIDE || res->verdict == EXV_DENY)
		return;
	for (int i = 0; i < q->nfilters && !f; i++)
		if (!strcmp(q->filters[i].name, res->filter))
			f = &q->filters[i];
	if (res->served || !f || !(explain_policies(f) & FUSEBPF_POLICY_ATTRS))
		return;
	split_last(q->rel, parent, sizeof(parent), &name);
	for (int pass = 0; pass < 2 && !res->has_attrs; pass++)
		for (int i = 0; i < f->nrules; i++) {
			const char *rn = f->rules[i].name.name;

			if (pass ? *rn : !*name || strncmp(rn, name, FUSEBPF_NAME_MAX))
				continue;
			res->has_attrs = true;
			res->attrs_every = pass;
			res->attrs = f->rules[i].rule;
			snprintf(res->attrs_name, sizeof(res->attrs_name), "%s", pass ? "" : name);
			snprintf(res->attrs_filter, sizeof(res->attrs_filter), "%s", f->name);
			break;
		}
}

void explain_decide(const struct explain_query *q, struct explain_result *res)
{
	memset(res, 0, sizeof(*res));
	res->verdict = EXV_ALLOW;
	if (!strcmp(q->m->mode, "userspace")) {
		res->served = true;
		res->note = "served in user space (--userspace): no filters";
		return;
	}
	if (walk(q, res))
		return;
	decide_op(q, res);
	decide_attrs(q, res);
}

/* --- paths ------------------------------------------------------------------------- */

int explain_normalize(const char *cwd, const char *path, char *out, size_t cap)
{
	char buf[2 * PATH_MAX], *save = NULL, *tok;
	size_t len = 0;

	if ((size_t)snprintf(buf, sizeof(buf), "%s/%s", *path == '/' ? "" : cwd, path) >= sizeof(buf))
		return -ENAMETOOLONG;
	for (tok = strtok_r(buf, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
		if (!strcmp(tok, "."))
			continue;
		if (!strcmp(tok, "..")) {
			while (len > 0 && out[--len] != '/')
				;
			continue;
		}
		if (len + 1 + strlen(tok) + 1 > cap)
			return -ENAMETOOLONG;
		len += sprintf(out + len, "/%s", tok);
	}
	if (cap < 2)
		return -ENAMETOOLONG;
	if (!len)
		out[len++] = '/';
	out[len] = 0;
	return 0;
}

int explain_find_mount(const struct mount_rec *recs, int n, const char *abs, char *rel, size_t cap)
{
	int best = -ENOENT;
	size_t best_len = 0;

	for (int i = 0; i < n; i++) {
		const char *mp = recs[i].mountpoint;
		size_t len = strlen(mp);

		while (len > 1 && mp[len - 1] == '/')
			len--;
		if (strncmp(abs, mp, len) || (abs[len] != '/' && abs[len] && len > 1))
			continue;
		if (best < 0 || len > best_len) {
			best = i;
			best_len = len;
		}
	}
	if (best >= 0) {
		const char *r = abs + best_len;

		while (*r == '/')
			r++;
		snprintf(rel, cap, "%s", r);
	}
	return best;
}
