// SPDX-License-Identifier: GPL-2.0
/*
 * fusebpfctl explain PATH [--uid U] [--gid G] [--op OP]: parse, read the
 * mount record and the filters' maps, decide (explain.c), print
 * (explain_fmt.c). Nothing is done to PATH; only the backing directory is
 * looked at, to tell an unknown path from a hidden one.
 */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "explain.h"
#include "filter.h"
#include "fusebpfctl.h"
#include "namemaps.h"
#include "policy.h"
#include "state.h"

void help_explain(FILE *out)
{
	fprintf(out,
		"Usage: fusebpfctl explain PATH [--uid U] [--gid G] [--op OP]\n"
		"\n"
		"Say which view, filter and rule decide what a caller gets for PATH, a path\n"
		"on a view that fusebpfctl mounted, without doing the operation: the name or\n"
		"pattern that hides a component, the policy that denies the op and its errno,\n"
		"the attribute rule the reply goes through, the uid or gid that is excepted,\n"
		"what a policy in audit mode would do, and the --at subtree whose filter runs.\n"
		"The caller is the real uid and gid given (default: yours; G defaults to U's\n"
		"primary group). PATH is resolved without following symlinks.\n"
		"\n"
		"Options:\n"
		"  -u, --uid U     the caller's real uid (a number or a user name)\n"
		"  -g, --gid G     the caller's real gid (a number or a group name)\n"
		"  -o, --op OP     the operation (default lookup):\n");
	for (int i = 0; i < explain_nops; i++)
		fprintf(out, "                    %-12s %s\n", explain_ops[i].name, explain_ops[i].what);
	fprintf(out,
		"\n"
		"Verdicts: allow, hide, deny, would-hide and would-deny (audit mode), unknown\n"
		"(a filter object, whose program explain cannot read); a step's verdict may\n"
		"also be excepted.\n"
		"\n"
		"JSON (-j): {\"path\": S, \"view\": {\"mountpoint\": S, \"backing\": S, \"mode\": S},\n"
		"  \"relpath\": S, \"caller\": {\"uid\": N, \"gid\": N}, \"op\": S, \"filter\": S|null,\n"
		"  \"subtree\": S|null, \"served\": B, \"verdict\": S, \"errno\": S|null,\n"
		"  \"steps\": [{\"path\": S, \"op\": S, \"filter\": S|null, \"subtree\": S|null,\n"
		"             \"policy\": S|null, \"verdict\": S, \"errno\": S|null, \"rule\": S|null,\n"
		"             \"match\": S|null, \"excepted\": {\"kind\": \"uid\"|\"gid\", \"id\": N}|null}],\n"
		"  \"attrs\": {\"filter\": S, \"rule\": S|null, \"mode_set\": S, \"mode_clear\": S,\n"
		"            \"uid\": N|null, \"gid\": N|null}|null, \"note\": S|null}\n"
		"\n"
		"EXAMPLES\n"
		"  fusebpfctl explain /mnt/private/.ssh\n"
		"  fusebpfctl explain /mnt/ro/report.txt --op write --uid alice\n"
		"  fusebpfctl -j explain /mnt/shared/run.sh --op getattr\n");
}

struct explain_args {
	uint32_t uid, gid;
	bool uid_set, gid_set;
	const struct explain_op *op;
};

static int explain_opt(int c, const char *arg, void *ctx)
{
	struct explain_args *a = ctx;

	switch (c) {
	case 'u':
		if (policy_parse_id(arg, false, &a->uid))
			return usage_error("bad user '%s'", arg);
		a->uid_set = true;
		return 0;
	case 'g':
		if (policy_parse_id(arg, true, &a->gid))
			return usage_error("bad group '%s'", arg);
		a->gid_set = true;
		return 0;
	case 'o':
		a->op = explain_find_op(arg);
		if (!a->op)
			return usage_error("unknown --op '%s' (see 'fusebpfctl explain --help')", arg);
		return 0;
	}
	return EXIT_USAGE;
}

/* Options and PATH; 0, PARSE_HELP or PARSE_USAGE (message printed). */
static int explain_parse(int argc, char **argv, struct explain_args *a, const char **path)
{
	static const struct option longopts[] = {
		{ "uid", required_argument, NULL, 'u' },
		{ "gid", required_argument, NULL, 'g' },
		{ "op", required_argument, NULL, 'o' },
		{ 0 },
	};
	struct passwd *pw;
	int idx;

	a->op = explain_find_op("lookup");
	idx = parse_cmd_opts(argc, argv, "u:g:o:", longopts, explain_opt, a, help_explain);
	if (idx < 0)
		return idx;
	if (idx >= argc)
		return usage_error("which PATH?"), PARSE_USAGE;
	if (argc - idx > 1)
		return usage_error("unexpected argument '%s'", argv[idx + 1]), PARSE_USAGE;
	*path = argv[idx];
	if (!a->uid_set)
		a->uid = getuid();
	if (!a->gid_set) {
		pw = a->uid_set ? getpwuid(a->uid) : NULL;
		a->gid = pw ? pw->pw_gid : getgid();
	}
	return 0;
}

/* --- the filters' maps --------------------------------------------------------------- */

/*
 * Every element of a hash map, as records of elem bytes appended to the n
 * records of *out: the key at 0, the value at voff (vsize 0: keys only).
 * The count, or -errno.
 */
static int read_hash(int fd, size_t ksize, size_t voff, size_t vsize, size_t elem, void **out,
		     int n)
{
	char key[FUSEBPF_NAME_MAX], next[FUSEBPF_NAME_MAX];
	void *prev = NULL, *v = *out, *grown;

	while (bpf_map_get_next_key(fd, prev, next) == 0) {
		memcpy(key, next, ksize);
		prev = key;
		grown = realloc(v, (n + 1) * elem);
		if (!grown) {
			free(v);
			*out = NULL;
			return -ENOMEM;
		}
		v = grown;
		memset((char *)v + n * elem, 0, elem);
		memcpy((char *)v + n * elem, key, ksize);
		if (vsize && bpf_map_lookup_elem(fd, key, (char *)v + n * elem + voff))
			continue;	/* deleted meanwhile */
		n++;
	}
	*out = v;
	return n;
}

/*
 * A name-keyed policy: the short names of its map (fd), then the long
 * names of its _long map, as fusebpf_name records (read_hash()).
 */
static int read_name_maps(int fd, const char *filter, const char *map, size_t voff,
			  size_t vsize, size_t elem, void **out)
{
	int n = read_hash(fd, sizeof(struct fusebpf_sname), voff, vsize, elem, out, 0);
	int lfd;

	if (n < 0)
		return n;
	lfd = filter_obj_fd(filter, namemaps_long(map));
	if (lfd == -ENOENT)
		return n;
	if (lfd < 0)
		return lfd;
	n = read_hash(lfd, sizeof(struct fusebpf_name), voff, vsize, elem, out, n);
	close(lfd);
	return n;
}

/* One map of the filter, read by fn; a filter without the map reads as empty. */
static int with_map(const char *filter, const char *map, bool *has,
		    int (*fn)(int fd, struct explain_filter *f), struct explain_filter *f)
{
	int fd = filter_obj_fd(filter, map), err;

	if (has)
		*has = fd >= 0;
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	err = fn(fd, f);
	close(fd);
	return err;
}

static int read_config(int fd, struct explain_filter *f)
{
	return bpf_map_lookup_elem(fd, &(uint32_t){ 0 }, &f->cfg) ? -errno : 0;
}

static int read_names(int fd, struct explain_filter *f)
{
	f->nnames = read_name_maps(fd, f->name, FUSEBPF_MAP_HIDE_NAMES, 0, 0, sizeof(*f->names),
				   (void **)&f->names);
	return f->nnames < 0 ? f->nnames : 0;
}

static int read_patterns(int fd, struct explain_filter *f)
{
	for (uint32_t i = 0; i < FUSEBPF_HIDE_PATTERNS_MAX; i++)
		if (bpf_map_lookup_elem(fd, &i, &f->patterns[i]))
			return -errno;
	return 0;
}

static int read_rules(int fd, struct explain_filter *f)
{
	f->nrules = read_name_maps(fd, f->name, FUSEBPF_MAP_ATTR_RULES,
				   offsetof(struct explain_rule, rule),
				   sizeof(struct fusebpf_attr_rule), sizeof(*f->rules),
				   (void **)&f->rules);
	return f->nrules < 0 ? f->nrules : 0;
}

static int read_allow(int fd, struct explain_filter *f)
{
	f->nallow = read_name_maps(fd, f->name, FUSEBPF_MAP_DENY_ALLOW, 0, 0, sizeof(*f->allow),
				   (void **)&f->allow);
	return f->nallow < 0 ? f->nallow : 0;
}

static int read_except(int fd, struct explain_filter *f)
{
	f->nexcept = read_hash(fd, sizeof(struct fusebpf_except_key),
			       offsetof(struct explain_except, mask), sizeof(uint32_t),
			       sizeof(*f->except), (void **)&f->except, 0);
	return f->nexcept < 0 ? f->nexcept : 0;
}

/* A loaded filter's policy; -ENOENT when it is not loaded. */
static int read_filter(const char *name, struct explain_filter *f)
{
	int err;

	memset(f, 0, sizeof(*f));
	snprintf(f->name, sizeof(f->name), "%s", name);
	if (!filter_loaded(name))
		return -ENOENT;
	if (filter_meta(name, f->kind, sizeof(f->kind), NULL, 0, NULL, 0) || !f->kind[0])
		snprintf(f->kind, sizeof(f->kind), "unknown");
	err = with_map(name, FUSEBPF_MAP_CONFIG, NULL, read_config, f);
	err = err ?: with_map(name, FUSEBPF_MAP_HIDE_NAMES, &f->has_hide, read_names, f);
	err = err ?: with_map(name, FUSEBPF_MAP_HIDE_PATTERNS, NULL, read_patterns, f);
	err = err ?: with_map(name, FUSEBPF_MAP_ATTR_RULES, &f->has_attrs, read_rules, f);
	err = err ?: with_map(name, FUSEBPF_MAP_DENY_ALLOW, &f->has_deny, read_allow, f);
	err = err ?: with_map(name, FUSEBPF_MAP_EXCEPT, NULL, read_except, f);
	return err;
}

/* The loaded filters the mount uses, each once; the count or -errno (printed). */
static int read_filters(const struct mount_rec *m, struct explain_filter *fs)
{
	const char *names[MAX_AT + 1];
	int n = 0, nread = 0, err;

	names[n++] = m->filter;
	for (int i = 0; i < m->nat; i++)
		names[n++] = m->at[i].filter;
	for (int i = 0; i < n; i++) {
		bool seen = !*names[i];

		for (int j = 0; j < nread && !seen; j++)
			seen = !strcmp(fs[j].name, names[i]);
		if (seen)
			continue;
		err = read_filter(names[i], &fs[nread]);
		if (err == -ENOENT)
			continue;	/* explain says it is not loaded */
		if (err) {
			explain_filter_free(&fs[nread]);
			return fail(-err, "explain: read the maps of filter '%s'", names[i]), err;
		}
		nread++;
	}
	return nread;
}

/* --- doing ------------------------------------------------------------------------------ */

/* The path in the backing tree exists (its parent, for an op that creates it). */
static int backing_exists(const struct mount_rec *m, const char *rel, const struct explain_op *op)
{
	char path[2 * PATH_MAX + 2], *slash;
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", m->backing, rel);
	if (op->kind == EXOP_NAME_CREATE && (slash = strrchr(path, '/')))
		*slash = 0;
	return lstat(path, &st) ? -errno : 0;
}

struct explain_ctx {
	char abs[PATH_MAX], rel[PATH_MAX];
	struct mount_rec *recs;
	int nrecs;
	struct explain_filter fs[MAX_AT + 1];
	int nfs;
	struct explain_query q;
	struct explain_result *res;
};

/* Find the view, read its filters and decide; 0 or -errno (printed). */
static int explain_run(const char *path, const struct explain_args *a, struct explain_ctx *c)
{
	char cwd[PATH_MAX];
	int i, err;

	if (!getcwd(cwd, sizeof(cwd))) {
		err = -errno;
		fail(-err, "explain: getcwd");
		return err;
	}
	if (explain_normalize(cwd, path, c->abs, sizeof(c->abs)))
		return fail(ENAMETOOLONG, "explain %s", path), -ENAMETOOLONG;
	c->nrecs = mount_recs(&c->recs);
	if (c->nrecs < 0)
		return fail(-c->nrecs, "explain: read %s/mounts", opts.state_dir), c->nrecs;
	i = explain_find_mount(c->recs, c->nrecs, c->abs, c->rel, sizeof(c->rel));
	if (i < 0)
		return fail(0, "explain %s: not on a view of fusebpfctl (see 'fusebpfctl list')",
			    c->abs), -ENOENT;
	err = backing_exists(&c->recs[i], c->rel, a->op);
	if (err)
		return fail(-err, "explain %s: %s/%s", c->abs, c->recs[i].backing, c->rel), err;
	c->nfs = read_filters(&c->recs[i], c->fs);
	if (c->nfs < 0)
		return c->nfs;
	c->res = calloc(1, sizeof(*c->res));
	if (!c->res)
		return fail(ENOMEM, "explain"), -ENOMEM;
	c->q = (struct explain_query){ .m = &c->recs[i], .rel = c->rel, .uid = a->uid, .gid = a->gid,
				       .op = a->op, .filters = c->fs, .nfilters = c->nfs };
	explain_decide(&c->q, c->res);
	return 0;
}

static void explain_print(const struct explain_ctx *c)
{
	json_object *o;

	if (!opts.json) {
		explain_print_plain(stdout, c->abs, &c->q, c->res);
		return;
	}
	o = json_explain(c->abs, &c->q, c->res);
	json_print(o);
	json_object_put(o);
}

static void explain_ctx_free(struct explain_ctx *c)
{
	for (int i = 0; i < c->nfs; i++)
		explain_filter_free(&c->fs[i]);
	free(c->res);
	free(c->recs);
	free(c);
}

int do_explain(int argc, char **argv)
{
	struct explain_args a = { 0 };
	struct explain_ctx *c;
	const char *path = NULL;
	int err;

	err = explain_parse(argc, argv, &a, &path);
	if (err == PARSE_HELP)
		return EXIT_OK;
	if (err)
		return EXIT_USAGE;
	c = calloc(1, sizeof(*c));
	if (!c)
		return fail(ENOMEM, "explain");
	err = explain_run(path, &a, c);
	if (!err)
		explain_print(c);
	explain_ctx_free(c);
	return err ? EXIT_FAIL : EXIT_OK;
}
