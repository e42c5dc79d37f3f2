// SPDX-License-Identifier: GPL-2.0
/*
 * fusebpfctl explain's decision (cli/explain.c): which view, filter and rule
 * decide what a caller gets for a path, from a mount record and the policy
 * the filters' maps hold. The guest suite (tests/guest/audit.c) checks the
 * same answers against a mounted view.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain.h"
#include "fusebpfctl.h"
#include "tap.h"

/* A filter of kind with these hidden names (NULL-terminated) and nothing else. */
static struct explain_filter filter(const char *name, const char *kind, const char *const *hidden)
{
	struct explain_filter f = { 0 };
	int n = 0;

	snprintf(f.name, sizeof(f.name), "%s", name);
	snprintf(f.kind, sizeof(f.kind), "%s", kind);
	f.has_hide = true;
	while (hidden && hidden[n])
		n++;
	f.names = calloc(n + 1, sizeof(*f.names));
	for (int i = 0; i < n; i++)
		snprintf(f.names[i].name, sizeof(f.names[i].name), "%s", hidden[i]);
	f.nnames = n;
	return f;
}

static void pattern(struct explain_filter *f, int slot, uint32_t kind, const char *pat)
{
	f->patterns[slot].kind = kind;
	f->patterns[slot].len = strlen(pat);
	snprintf(f->patterns[slot].pat, sizeof(f->patterns[slot].pat), "%s", pat);
}

static void except(struct explain_filter *f, uint32_t kind, uint32_t id, uint32_t mask)
{
	f->except = realloc(f->except, (f->nexcept + 1) * sizeof(*f->except));
	f->except[f->nexcept++] = (struct explain_except){ { kind, id }, mask };
}

static struct mount_rec view(const char *filter)
{
	struct mount_rec m = { .mountpoint = "/mnt/v", .backing = "/srv/data", .mode = "fuse-bpf" };

	snprintf(m.filter, sizeof(m.filter), "%s", filter);
	return m;
}

static struct explain_result *ask(const struct mount_rec *m, struct explain_filter *fs, int nfs,
				  const char *rel, const char *op, uint32_t uid)
{
	static struct explain_result res;
	struct explain_query q = {
		.m = m, .rel = rel, .uid = uid, .gid = 100, .op = explain_find_op(op),
		.filters = fs, .nfilters = nfs,
	};

	explain_decide(&q, &res);
	return &res;
}

static int t_ops(void)
{
	int ret = TAP_FAIL;

	EXPECT(explain_find_op("write") && explain_find_op("WRITE") == explain_find_op("write"));
	EXPECT(explain_find_op("lookup")->kind == EXOP_LOOKUP);
	EXPECT(explain_find_op("create")->kind == EXOP_NAME_CREATE);
	EXPECT(explain_find_op("unlink")->kind == EXOP_NAME_REMOVE);
	EXPECT(!explain_find_op("frobnicate") && !explain_find_op("") && !explain_find_op("writ"));
	EXPECT(!strcmp(explain_verdict_name(EXV_WOULD_DENY), "would-deny"));
	ret = TAP_OK;
out:
	return ret;
}

static int t_paths(void)
{
	struct mount_rec recs[3] = { view("a"), view("b"), view("c") };
	char out[PATH_MAX], rel[PATH_MAX];
	int ret = TAP_FAIL;

	EXPECT(!explain_normalize("/home/u", "x/./y//z/../w", out, sizeof(out)) &&
	       !strcmp(out, "/home/u/x/y/w"), "%s", out);
	EXPECT(!explain_normalize("/home/u", "/mnt/v/../../..", out, sizeof(out)) && !strcmp(out, "/"),
	       "%s", out);
	EXPECT(!explain_normalize("/", "/mnt/v/", out, sizeof(out)) && !strcmp(out, "/mnt/v"), "%s", out);
	EXPECT(explain_normalize("/", "/abcdef", out, 4) == -ENAMETOOLONG);
	snprintf(recs[1].mountpoint, sizeof(recs[1].mountpoint), "/mnt/v/sub");
	snprintf(recs[2].mountpoint, sizeof(recs[2].mountpoint), "/mnt/vx");
	EXPECT(explain_find_mount(recs, 3, "/mnt/v/a/b", rel, sizeof(rel)) == 0 && !strcmp(rel, "a/b"));
	EXPECT(explain_find_mount(recs, 3, "/mnt/v/sub/c", rel, sizeof(rel)) == 1 && !strcmp(rel, "c"),
	       "the longest mount point holds it");
	EXPECT(explain_find_mount(recs, 3, "/mnt/v", rel, sizeof(rel)) == 0 && !strcmp(rel, ""));
	EXPECT(explain_find_mount(recs, 3, "/mnt/vx/d", rel, sizeof(rel)) == 2 && !strcmp(rel, "d"));
	EXPECT(explain_find_mount(recs, 3, "/mnt/w", rel, sizeof(rel)) == -ENOENT);
	EXPECT(explain_find_mount(recs, 3, "/mnt", rel, sizeof(rel)) == -ENOENT);
	ret = TAP_OK;
out:
	return ret;
}

/* A hidden directory ends the walk at its own name, by name; patterns and dotfiles too. */
static int t_hidden(void)
{
	static const char *const names[] = { "secret", NULL };
	struct explain_filter f = filter("priv", "hide", names);
	struct mount_rec m = view("priv");
	struct explain_result *r;
	int ret = TAP_FAIL;

	r = ask(&m, &f, 1, "a/secret/x.txt", "read", 1000);
	EXPECT(r->verdict == EXV_HIDE && r->err == ENOENT && r->nsteps == 1);
	EXPECT(!strcmp(r->steps[0].path, "a/secret") && !strcmp(r->steps[0].rule, "name") &&
	       !strcmp(r->steps[0].match, "secret") && !strcmp(r->steps[0].filter, "priv") &&
	       !strcmp(r->steps[0].policy, "hide") && !strcmp(r->steps[0].op, "lookup"));
	r = ask(&m, &f, 1, "a/public", "lookup", 1000);
	EXPECT(r->verdict == EXV_ALLOW && r->nsteps == 0 && !strcmp(r->filter, "priv"));
	pattern(&f, 0, FUSEBPF_PAT_SUFFIX, ".bak");
	pattern(&f, 1, FUSEBPF_PAT_GLOB, "*.t?t");
	pattern(&f, 2, FUSEBPF_PAT_PREFIX, "tmp");
	/* After the first unused slot: the filter does not look, nor does explain */
	pattern(&f, 4, FUSEBPF_PAT_PREFIX, "never");
	EXPECT(ask(&m, &f, 1, "neverseen", "lookup", 0)->verdict == EXV_ALLOW);
	r = ask(&m, &f, 1, "x.bak", "lookup", 0);
	EXPECT(r->verdict == EXV_HIDE && !strcmp(r->steps[0].rule, "suffix") &&
	       !strcmp(r->steps[0].match, ".bak"));
	r = ask(&m, &f, 1, "d/notes.txt", "lookup", 0);
	EXPECT(r->verdict == EXV_HIDE && !strcmp(r->steps[0].rule, "glob") &&
	       !strcmp(r->steps[0].match, "*.t?t"));
	EXPECT(ask(&m, &f, 1, "notes.tx", "lookup", 0)->verdict == EXV_ALLOW);
	r = ask(&m, &f, 1, "tmpfile", "lookup", 0);
	EXPECT(r->verdict == EXV_HIDE && !strcmp(r->steps[0].rule, "prefix"));
	EXPECT(ask(&m, &f, 1, ".profile", "lookup", 0)->verdict == EXV_ALLOW);
	f.cfg.hide_flags = FUSEBPF_HIDE_DOTFILES;
	r = ask(&m, &f, 1, "d/.profile", "lookup", 0);
	EXPECT(r->verdict == EXV_HIDE && !strcmp(r->steps[0].rule, "dotfiles"));
	/* Creating a hidden name: the caller gets hide_errno (EACCES by default). */
	r = ask(&m, &f, 1, "d/secret", "create", 0);
	EXPECT(r->verdict == EXV_DENY && r->err == EACCES && !strcmp(r->steps[0].op, "create"));
	f.cfg.hide_errno = EPERM;
	EXPECT(ask(&m, &f, 1, "d/secret", "mkdir", 0)->err == EPERM);
	ret = TAP_OK;
out:
	explain_filter_free(&f);
	return ret;
}

/* A read-only view: writes denied with deny_errno, reads not; allowed names. */
static int t_denied(void)
{
	struct explain_filter f = filter("ro", "denywrite", NULL);
	struct mount_rec m = view("ro");
	struct explain_result *r;
	int ret = TAP_FAIL;

	f.has_hide = false;
	f.has_deny = true;
	r = ask(&m, &f, 1, "docs/a.txt", "write", 1000);
	EXPECT(r->verdict == EXV_DENY && r->err == EROFS && r->nsteps == 1);
	EXPECT(!strcmp(r->steps[0].policy, "denywrite") && !strcmp(r->steps[0].rule, "write") &&
	       !strcmp(r->steps[0].op, "write") && !strcmp(r->steps[0].path, "docs/a.txt"));
	EXPECT(ask(&m, &f, 1, "docs/a.txt", "read", 1000)->verdict == EXV_ALLOW);
	EXPECT(ask(&m, &f, 1, "docs/a.txt", "setattr", 1000)->verdict == EXV_DENY);
	f.cfg.deny_errno = EACCES;
	EXPECT(ask(&m, &f, 1, "docs", "rmdir", 1000)->err == EACCES);
	f.allow = calloc(1, sizeof(*f.allow));
	snprintf(f.allow[0].name, sizeof(f.allow[0].name), "scratch");
	f.nallow = 1;
	r = ask(&m, &f, 1, "docs/scratch", "create", 1000);
	EXPECT(r->verdict == EXV_ALLOW && r->nsteps == 1 && !strcmp(r->steps[0].rule, "allow"));
	EXPECT(ask(&m, &f, 1, "docs/scratch", "write", 1000)->verdict == EXV_DENY,
	       "an existing file is never opened for writing");
	ret = TAP_OK;
out:
	explain_filter_free(&f);
	return ret;
}

/* Exceptions by uid, then gid, for one policy only. */
static int t_excepted(void)
{
	static const char *const names[] = { "secret", NULL };
	struct explain_filter f = filter("both", "fusebpf", names);
	struct mount_rec m = view("both");
	struct explain_result *r;
	int ret = TAP_FAIL;

	f.cfg.policies = FUSEBPF_POLICY_HIDE | FUSEBPF_POLICY_DENYWRITE;
	except(&f, FUSEBPF_EXCEPT_UID, 1000, FUSEBPF_POLICY_HIDE);
	except(&f, FUSEBPF_EXCEPT_GID, 100, FUSEBPF_POLICY_DENYWRITE);
	r = ask(&m, &f, 1, "secret", "lookup", 1000);
	EXPECT(r->verdict == EXV_ALLOW && r->nsteps == 1 && r->steps[0].verdict == EXV_EXCEPTED &&
	       r->steps[0].except_kind == FUSEBPF_EXCEPT_UID && r->steps[0].except_id == 1000);
	EXPECT(ask(&m, &f, 1, "secret", "lookup", 1001)->verdict == EXV_HIDE);
	/* gid 100 (every caller here) may write; a hidden name still can't be created. */
	r = ask(&m, &f, 1, "new", "create", 1001);
	EXPECT(r->verdict == EXV_ALLOW && r->steps[0].except_kind == FUSEBPF_EXCEPT_GID);
	r = ask(&m, &f, 1, "secret", "create", 1001);
	EXPECT(r->verdict == EXV_DENY && r->err == EACCES && !strcmp(r->steps[1].policy, "hide"));
	ret = TAP_OK;
out:
	explain_filter_free(&f);
	return ret;
}

/* The attribute rule: the name's own, else the rule for every name. */
static int t_attrs(void)
{
	struct explain_filter f = filter("shown", "attrs", NULL);
	struct mount_rec m = view("shown");
	struct explain_result *r;
	int ret = TAP_FAIL;

	f.rules = calloc(2, sizeof(*f.rules));
	f.nrules = 2;
	snprintf(f.rules[0].name.name, sizeof(f.rules[0].name.name), "run.sh");
	f.rules[0].rule = (struct fusebpf_attr_rule){ .flags = FUSEBPF_ATTR_FORCE_UID, .mode_set = 0111 };
	f.rules[1].rule.mode_clear = 0222;
	r = ask(&m, &f, 1, "bin/run.sh", "getattr", 1000);
	EXPECT(r->has_attrs && !r->attrs_every && !strcmp(r->attrs_name, "run.sh") &&
	       r->attrs.mode_set == 0111 && !strcmp(r->attrs_filter, "shown"));
	r = ask(&m, &f, 1, "bin/other", "lookup", 1000);
	EXPECT(r->has_attrs && r->attrs_every && r->attrs.mode_clear == 0222);
	EXPECT(!ask(&m, &f, 1, "bin/run.sh", "read", 1000)->has_attrs, "read shows no attributes");
	ret = TAP_OK;
out:
	explain_filter_free(&f);
	return ret;
}

/* --at: the first SUBDIR on the path decides; above it fusebpfctl serves, unfiltered. */
static int t_subtree(void)
{
	static const char *const names[] = { "secret", NULL };
	struct explain_filter fs[2] = { filter("priv", "hide", names), filter("ro", "denywrite", NULL) };
	struct mount_rec m = view("ro");
	struct explain_result *r;
	int ret = TAP_FAIL;

	m.nat = 1;
	snprintf(m.at[0].path, sizeof(m.at[0].path), "pub/docs");
	snprintf(m.at[0].filter, sizeof(m.at[0].filter), "priv");
	r = ask(&m, fs, 2, "pub/docs/secret", "lookup", 1000);
	EXPECT(r->verdict == EXV_HIDE && !strcmp(r->steps[0].subtree, "pub/docs") &&
	       !strcmp(r->steps[0].filter, "priv"));
	EXPECT(!strcmp(r->filter, "priv") || r->verdict == EXV_HIDE);
	r = ask(&m, fs, 2, "pub/docs/a/b", "write", 1000);
	EXPECT(r->verdict == EXV_ALLOW && !strcmp(r->filter, "priv") && !strcmp(r->subtree, "pub/docs"));
	r = ask(&m, fs, 2, "other/x", "write", 1000);
	EXPECT(r->verdict == EXV_DENY && !strcmp(r->filter, "ro") && !*r->subtree);
	/* The root and pub/ are served: their names are looked up outside every filter, */
	r = ask(&m, fs, 2, "pub/secret", "lookup", 1000);
	EXPECT(r->verdict == EXV_ALLOW && r->served && !*r->filter && !r->nsteps);
	/* and none is made or removed there. */
	r = ask(&m, fs, 2, "pub/new", "create", 1000);
	EXPECT(r->verdict == EXV_DENY && r->err == EPERM && r->served && !strcmp(r->steps[0].rule, "served"));
	r = ask(&m, fs, 2, "pub/docs", "write", 1000);
	EXPECT(r->verdict == EXV_ALLOW && !strcmp(r->filter, "priv"), "the SUBDIR itself is its filter's");
	ret = TAP_OK;
out:
	explain_filter_free(&fs[0]);
	explain_filter_free(&fs[1]);
	return ret;
}

/* Audit mode: would-hide and would-deny, and the op goes on; denywrite before hide. */
static int t_audit(void)
{
	static const char *const names[] = { "secret", NULL };
	struct explain_filter f = filter("both", "fusebpf", names);
	struct mount_rec m = view("both");
	struct explain_result *r;
	int ret = TAP_FAIL;

	f.cfg.policies = FUSEBPF_POLICY_HIDE | FUSEBPF_POLICY_DENYWRITE;
	r = ask(&m, &f, 1, "secret", "create", 1000);
	EXPECT(r->verdict == EXV_DENY && r->err == EROFS && r->nsteps == 1,
	       "enforcing: denywrite first, hide not reached");
	f.cfg.flags = FUSEBPF_CFG_AUDIT;
	r = ask(&m, &f, 1, "secret/x", "write", 1000);
	EXPECT(r->verdict == EXV_WOULD_HIDE && r->err == ENOENT && r->nsteps == 2);
	EXPECT(r->steps[0].verdict == EXV_WOULD_HIDE && r->steps[1].verdict == EXV_WOULD_DENY &&
	       r->steps[1].err == EROFS);
	r = ask(&m, &f, 1, "secret", "create", 1000);
	EXPECT(r->verdict == EXV_WOULD_DENY && r->nsteps == 2 && !strcmp(r->steps[1].policy, "hide") &&
	       r->steps[1].err == EACCES);
	EXPECT(ask(&m, &f, 1, "plain", "read", 1000)->verdict == EXV_ALLOW);
	ret = TAP_OK;
out:
	explain_filter_free(&f);
	return ret;
}

/* Filters explain can't see into, and views without filters. */
static int t_unknown(void)
{
	struct explain_filter f = filter("obj", "file", NULL);
	struct mount_rec m = view("obj");
	struct explain_result *r;
	int ret = TAP_FAIL;

	r = ask(&m, &f, 1, "a/b/c", "lookup", 0);
	EXPECT(r->verdict == EXV_UNKNOWN && r->nsteps == 1 && r->note, "said once: %d", r->nsteps);
	r = ask(&m, &f, 0, "a", "write", 0);
	EXPECT(r->verdict == EXV_UNKNOWN && strstr(r->note, "not loaded"));
	snprintf(m.mode, sizeof(m.mode), "userspace");
	m.filter[0] = 0;
	r = ask(&m, &f, 1, "a", "write", 0);
	EXPECT(r->verdict == EXV_ALLOW && r->served && r->note);
	snprintf(f.kind, sizeof(f.kind), "stats");
	snprintf(m.mode, sizeof(m.mode), "fuse-bpf");
	snprintf(m.filter, sizeof(m.filter), "obj");
	EXPECT(ask(&m, &f, 1, "a", "write", 0)->verdict == EXV_ALLOW, "stats decides nothing");
	ret = TAP_OK;
out:
	explain_filter_free(&f);
	return ret;
}

static bool keys_are(json_object *o, const char *want)
{
	char got[512] = "";
	size_t len = 0;

	json_object_object_foreach(o, k, v) {
		(void)v;
		len += snprintf(got + len, sizeof(got) - len, "%s%s", len ? "," : "", k);
	}
	if (strcmp(got, want))
		fprintf(stderr, "keys %s, expected %s\n", got, want);
	return !strcmp(got, want);
}

static int t_json(void)
{
	static const char *const names[] = { "secret", NULL };
	struct explain_filter f = filter("priv", "hide", names);
	struct mount_rec m = view("priv");
	struct explain_query q = {
		.m = &m, .rel = "secret", .uid = 1000, .gid = 100, .op = explain_find_op("lookup"),
		.filters = &f, .nfilters = 1,
	};
	struct explain_result *r = calloc(1, sizeof(*r));
	json_object *o = NULL, *s, *v;
	int ret = TAP_FAIL;

	except(&f, FUSEBPF_EXCEPT_UID, 1000, FUSEBPF_POLICY_HIDE);
	explain_decide(&q, r);
	o = json_explain("/mnt/v/secret", &q, r);
	EXPECT(keys_are(o, "path,view,relpath,caller,op,filter,subtree,served,verdict,errno,steps,"
			   "attrs,note"));
	EXPECT(keys_are(json_object_object_get(o, "view"), "mountpoint,backing,mode"));
	EXPECT(keys_are(json_object_object_get(o, "caller"), "uid,gid"));
	EXPECT(!strcmp(json_object_get_string(json_object_object_get(o, "verdict")), "allow"));
	EXPECT(json_object_object_get_ex(o, "errno", &v) && !v);
	EXPECT(json_object_object_get_ex(o, "subtree", &v) && !v);
	EXPECT(json_object_object_get_ex(o, "attrs", &v) && !v);
	s = json_object_array_get_idx(json_object_object_get(o, "steps"), 0);
	EXPECT(s && keys_are(s, "path,op,filter,subtree,policy,verdict,errno,rule,match,excepted"));
	EXPECT(!strcmp(json_object_get_string(json_object_object_get(s, "verdict")), "excepted"));
	v = json_object_object_get(s, "excepted");
	EXPECT(keys_are(v, "kind,id") && json_object_get_int(json_object_object_get(v, "id")) == 1000);
	json_object_put(o);
	q.uid = 1001;
	explain_decide(&q, r);
	o = json_explain("/mnt/v/secret", &q, r);
	EXPECT(!strcmp(json_object_get_string(json_object_object_get(o, "errno")), "ENOENT"));
	s = json_object_array_get_idx(json_object_object_get(o, "steps"), 0);
	EXPECT(json_object_object_get_ex(s, "excepted", &v) && !v);
	ret = TAP_OK;
out:
	json_object_put(o);
	free(r);
	explain_filter_free(&f);
	return ret;
}

static int t_plain(void)
{
	struct explain_filter f = filter("ro", "denywrite", NULL);
	struct mount_rec m = view("ro");
	struct explain_query q = {
		.m = &m, .rel = "a.txt", .uid = 1000, .gid = 100, .op = explain_find_op("write"),
		.filters = &f, .nfilters = 1,
	};
	struct explain_result *r = calloc(1, sizeof(*r));
	char *buf = NULL;
	size_t len = 0;
	int ret = TAP_FAIL;
	FILE *out = open_memstream(&buf, &len);

	explain_decide(&q, r);
	explain_print_plain(out, "/mnt/v/a.txt", &q, r);
	fclose(out);
	EXPECT(!strncmp(buf, "/mnt/v/a.txt: deny (EROFS)\n", 27), "%s", buf);
	EXPECT(strstr(buf, "view     /mnt/v over /srv/data (fuse-bpf)"), "%s", buf);
	EXPECT(strstr(buf, "step     write \"a.txt\": deny by denywrite of ro, rule write (EROFS)\n"),
	       "%s", buf);
	ret = TAP_OK;
out:
	free(buf);
	free(r);
	explain_filter_free(&f);
	return ret;
}

static const struct tap_case cases[] = {
	{ "ops", t_ops },
	{ "paths", t_paths },
	{ "hidden_by_name_and_pattern", t_hidden },
	{ "denied_write", t_denied },
	{ "uid_and_gid_exceptions", t_excepted },
	{ "attribute_rules", t_attrs },
	{ "at_subtrees", t_subtree },
	{ "audit_mode", t_audit },
	{ "unknown_filters", t_unknown },
	{ "json_shape", t_json },
	{ "plain", t_plain },
};

TAP_MAIN("cli_explain", cases)
