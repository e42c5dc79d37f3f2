// SPDX-License-Identifier: GPL-2.0
/*
 * fusebpfctl apply [FILE|DIR] [--dry-run]
 *
 * Make the loaded filters and their policies match the configuration
 * (conf.c): load what is missing, change what differs, and unload the
 * filters that an earlier apply of the same files loaded and that are gone
 * from them. Everything is read and checked before anything changes; the
 * changes are printed as the fusebpfctl commands that make them.
 */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apply.h"
#include "conf.h"
#include "policy_diff.h"
#include "filter.h"
#include "fusebpf_loader.h"
#include "fusebpfctl.h"
#include "json.h"
#include "load.h"
#include "namemaps.h"

void help_apply(FILE *out)
{
	fprintf(out,
		"Usage: fusebpfctl apply [FILE|DIR] [--dry-run]\n"
		"\n"
		"Make the loaded filters and their policies match the configuration: the\n"
		"*.conf files of DIR (default %s, or $FUSEBPF_CONFIG), or FILE.\n"
		"Filters missing are loaded, policies that differ are changed (exceptions\n"
		"and event settings included), and filters that an earlier apply loaded\n"
		"from the same files and that are no longer in them are unloaded; filters\n"
		"loaded by hand are left alone unless the files name them. The whole\n"
		"configuration is checked first: an error (shown as FILE:LINE) changes\n"
		"nothing. Each change is printed as the fusebpfctl command that makes it;\n"
		"a second run finds nothing to change. The format is in docs/filters.md\n"
		"and fusebpfctl(8).\n"
		"\n"
		"Options:\n"
		"  -n, --dry-run   print the changes, make none\n"
		"\n"
		"JSON (-j): {\"config\": S, \"dry_run\": B, \"filters\": [S],\n"
		"            \"changes\": [{\"filter\": S, \"change\": S}]}\n"
		"\n"
		"EXAMPLES\n"
		"  fusebpfctl apply\n"
		"  fusebpfctl apply --dry-run /etc/fusebpf/filters.d/private.conf\n",
		FUSEBPF_CONFIG_DIR);
}

const char *config_default(void)
{
	const char *env = getenv("FUSEBPF_CONFIG");

	return env && *env ? env : FUSEBPF_CONFIG_DIR;
}

/* --- what is loaded ------------------------------------------------------------ */

/* The policy maps a loaded filter has (its pins). */
static unsigned int pinned_maps(const char *name)
{
	char path[4400];
	unsigned int maps = 0;

	for (int i = 0; i < CONF_NMAPS; i++) {
		snprintf(path, sizeof(path), "%s/%s/%s", opts.pin_dir, name, policy_maps[i].map);
		if (!access(path, F_OK))
			maps |= policy_maps[i].bit;
	}
	return maps;
}

/* The policy maps of a filter object, opened without loading it. */
static int object_maps(const char *path, unsigned int *maps)
{
	struct bpf_object *obj;
	struct bpf_map *map;

	*maps = 0;
	obj = bpf_object__open_file(path, NULL);
	if (!obj)
		return -errno;
	bpf_object__for_each_map(map, obj)
		*maps |= policy_map_bit(bpf_map__name(map));
	bpf_object__close(obj);
	return 0;
}

struct read_names_ctx {
	enum policy_op op;
	struct policy_vec *v;
};

static int add_change(int fd, const void *key, const char *name, void *arg)
{
	struct read_names_ctx *r = arg;
	struct fusebpf_attr_rule rule;
	struct policy_change *p;

	if (r->op == POL_ATTR_SET && bpf_map_lookup_elem(fd, key, &rule))
		return 0;	/* deleted meanwhile */
	if (!(p = policy_vec_add(r->v, r->op, 0)))
		return -ENOMEM;
	snprintf(p->name, sizeof(p->name), "%s", name);
	if (r->op == POL_ATTR_SET)
		p->rule = rule;
	return 0;
}

/* The keys of a name-keyed policy (both its maps) as changes of op. */
static int read_names(const char *name, const char *map, enum policy_op op, struct policy_vec *v)
{
	struct read_names_ctx r = { .op = op, .v = v };

	return namemaps_each(name, map, add_change, &r);
}

/* A scalar setting as the filter reads it from its config (0 or too large: the default). */
static int config_value(const struct fusebpf_config *cfg, enum policy_op op)
{
	switch (op) {
	case POL_POLICIES:
		return cfg->policies;
	case POL_POSTFILTER:
		return !(cfg->flags & FUSEBPF_CFG_NO_POSTFILTER);
	case POL_DOTFILES:
		return !!(cfg->hide_flags & FUSEBPF_HIDE_DOTFILES);
	case POL_HIDE_ERRNO:
		return cfg->hide_errno ? cfg->hide_errno : EACCES;
	case POL_DENY_ERRNO:
		return cfg->deny_errno ? cfg->deny_errno : EROFS;
	case POL_EVENTS:
		return !(cfg->flags & FUSEBPF_CFG_NO_EVENTS);
	case POL_EV_READDIR:
		return !!(cfg->flags & FUSEBPF_CFG_EV_READDIR);
	case POL_ENFORCE:
		return !(cfg->flags & FUSEBPF_CFG_AUDIT);
	case POL_EV_RATE:
		return cfg->ev_rate && cfg->ev_rate <= FUSEBPF_EV_MAX ? (int)cfg->ev_rate :
									FUSEBPF_EV_RATE_DEFAULT;
	default:
		return cfg->ev_burst && cfg->ev_burst <= FUSEBPF_EV_MAX ? (int)cfg->ev_burst :
									  FUSEBPF_EV_BURST_DEFAULT;
	}
}

static int read_scalars(const char *name, struct policy_vec *v)
{
	static const enum policy_op ops[] = {
		POL_POLICIES, POL_POSTFILTER, POL_DOTFILES, POL_HIDE_ERRNO, POL_DENY_ERRNO,
		POL_EVENTS, POL_EV_RATE, POL_EV_BURST, POL_EV_READDIR, POL_ENFORCE,
	};
	int fd = filter_obj_fd(name, FUSEBPF_MAP_CONFIG), err = 0;
	struct fusebpf_config cfg;
	uint32_t zero = 0;

	if (fd < 0)
		return fd == -ENOENT ? 0 : fd;
	if (bpf_map_lookup_elem(fd, &zero, &cfg))
		err = -errno;
	for (size_t i = 0; !err && i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!policy_vec_add(v, ops[i], config_value(&cfg, ops[i])))
			err = -ENOMEM;
	close(fd);
	return err;
}

static int read_patterns(const char *name, struct policy_vec *v)
{
	struct fusebpf_pattern pat;
	struct policy_change *p;
	int fd = filter_obj_fd(name, FUSEBPF_MAP_HIDE_PATTERNS);

	if (fd < 0)
		return fd == -ENOENT ? 0 : fd;
	for (uint32_t i = 0; i < FUSEBPF_HIDE_PATTERNS_MAX; i++) {
		if (bpf_map_lookup_elem(fd, &i, &pat) || pat.kind == FUSEBPF_PAT_NONE)
			continue;
		if (!(p = policy_vec_add(v, POL_PATTERN_ADD, 0))) {
			close(fd);
			return -ENOMEM;
		}
		pat.pat[FUSEBPF_PATTERN_MAX - 1] = 0;
		p->pat_kind = pat.kind;
		snprintf(p->name, sizeof(p->name), "%s", pat.pat);
	}
	close(fd);
	return 0;
}

/* The exceptions: one change per id and policy (conf.h). */
static int read_except(const char *name, struct policy_vec *v)
{
	struct fusebpf_except_key key, next;
	struct policy_change *p;
	void *prev = NULL;
	uint32_t mask;
	int fd = filter_obj_fd(name, FUSEBPF_MAP_EXCEPT);

	if (fd < 0)
		return fd == -ENOENT ? 0 : fd;
	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &mask))
			continue;
		for (uint32_t bit = 1; bit; bit <<= 1) {
			if (!(mask & bit & POLICY_EXCEPTABLE))
				continue;
			if (!(p = policy_vec_add(v, POL_EXCEPT_ADD, 0))) {
				close(fd);
				return -ENOMEM;
			}
			p->id_kind = key.kind;
			p->val = (int)key.id;
			p->mask = bit;
			snprintf(p->name, sizeof(p->name), "%s %u",
				 key.kind == FUSEBPF_EXCEPT_GID ? "gid" : "uid", key.id);
		}
	}
	close(fd);
	return 0;
}

/* A loaded filter's policy, in the canonical form of conf.h. */
static int policy_current(const char *name, struct policy_vec *v)
{
	int err;

	err = read_scalars(name, v);
	if (!err)
		err = read_names(name, FUSEBPF_MAP_HIDE_NAMES, POL_HIDE_ADD, v);
	if (!err)
		err = read_patterns(name, v);
	if (!err)
		err = read_names(name, FUSEBPF_MAP_ATTR_RULES, POL_ATTR_SET, v);
	if (!err)
		err = read_names(name, FUSEBPF_MAP_DENY_ALLOW, POL_ALLOW_ADD, v);
	if (!err)
		err = read_except(name, v);
	return err;
}

/* A freshly loaded filter's policy: what load sets up. */
static int policy_fresh(const struct conf_filter *f, unsigned int maps, struct policy_vec *v)
{
	struct policy_change *p;

	if (!(maps & CONF_CONFIG))
		return 0;
	if (!(p = policy_vec_add(v, POL_POLICIES, 0)))
		return -ENOMEM;
	p->val = builtin_policies(f->kind);
	if (!(p = policy_vec_add(v, POL_POSTFILTER, 0)))
		return -ENOMEM;
	p->val = builtin_postfilter(f->kind);
	if (!(p = policy_vec_add(v, POL_DOTFILES, 0)))
		return -ENOMEM;
	if (!(p = policy_vec_add(v, POL_HIDE_ERRNO, 0)))
		return -ENOMEM;
	p->val = EACCES;
	if (!(p = policy_vec_add(v, POL_DENY_ERRNO, 0)))
		return -ENOMEM;
	p->val = EROFS;
	if (!(maps & CONF_EVENTS))
		return 0;
	if (!(p = policy_vec_add(v, POL_EVENTS, 0)))
		return -ENOMEM;
	p->val = 1;
	if (!(p = policy_vec_add(v, POL_EV_RATE, 0)))
		return -ENOMEM;
	p->val = FUSEBPF_EV_RATE_DEFAULT;
	if (!(p = policy_vec_add(v, POL_EV_BURST, 0)))
		return -ENOMEM;
	p->val = FUSEBPF_EV_BURST_DEFAULT;
	if (!(p = policy_vec_add(v, POL_EV_READDIR, 0)))
		return -ENOMEM;
	if (!(p = policy_vec_add(v, POL_ENFORCE, 0)))
		return -ENOMEM;
	p->val = 1;
	return 0;
}

/* --- the plan --------------------------------------------------------------------- */

enum step_kind { STEP_UNLOAD, STEP_LOAD, STEP_POLICY, STEP_ADOPT };

struct step {
	enum step_kind kind;
	char name[NAME_LEN];
	const struct conf_filter *f;	/* LOAD, POLICY, ADOPT */
	struct policy_change c;		/* POLICY */
};

struct plan {
	struct step *s;
	int n;
	int nerrors;
	char abs[PATH_MAX];	/* the configuration's real path */
	bool is_dir;
};

static struct step *plan_add(struct plan *pl, enum step_kind kind, const char *name,
			     const struct conf_filter *f)
{
	struct step *s = array_add(&pl->s, &pl->n, sizeof(*s));

	if (!s)
		return NULL;
	s->kind = kind;
	s->f = f;
	snprintf(s->name, sizeof(s->name), "%s", name);
	return s;
}

static int plan_err(struct plan *pl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int plan_err(struct plan *pl, const char *fmt, ...)
{
	char what[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	fprintf(stderr, "fusebpfctl: %s\n", what);
	pl->nerrors++;
	return -EINVAL;
}

/* The policy steps that turn cur into f's policy. */
static int plan_policy(struct plan *pl, const struct conf_filter *f, unsigned int maps,
		       const struct policy_vec *cur)
{
	struct policy_change *d;
	bool policies = strcmp(f->kind, "file") || f->policies_given;
	int n = policy_diff(f->set, f->nset, cur->v, cur->n, maps, policies, &d);

	if (n < 0)
		return n;
	for (int i = 0; i < n; i++) {
		struct step *s = plan_add(pl, STEP_POLICY, f->name, f);

		if (!s) {
			free(d);
			return -ENOMEM;
		}
		s->c = d[i];
	}
	free(d);
	return 0;
}

/* Is a filter's recorded configuration file one of those applied? */
static bool in_scope(const struct plan *pl, const char *config)
{
	size_t len = strlen(pl->abs);

	if (!config[0])
		return false;
	if (!pl->is_dir)
		return !strcmp(config, pl->abs);
	return !strncmp(config, pl->abs, len) && config[len] == '/' && !strchr(config + len + 1, '/');
}

static bool same_object(const struct conf_filter *f, const char *kind, const char *source)
{
	char real[PATH_MAX];

	if (strcmp(f->kind, kind))
		return false;
	if (strcmp(kind, "file"))
		return true;	/* a built-in, embedded or from the library */
	return realpath(f->filter, real) && !strcmp(real, source);
}

/* Plan one configured filter. */
static int plan_filter(struct plan *pl, const struct conf_filter *f)
{
	char kind[32], source[PATH_MAX], config[PATH_MAX], real[PATH_MAX];
	struct policy_vec cur = { 0 };
	unsigned int maps;
	int err = 0, users;

	if (!realpath(f->file, real))
		snprintf(real, sizeof(real), "%s", f->file);
	if (filter_loaded(f->name)) {
		filter_meta(f->name, kind, sizeof(kind), source, sizeof(source), config, sizeof(config));
		if (same_object(f, kind, source)) {
			maps = pinned_maps(f->name);
			err = policy_current(f->name, &cur);
			if (err)
				return plan_err(pl, "filter '%s': read its policy: %s", f->name,
						strerror(-err));
			err = plan_policy(pl, f, maps, &cur);
			if (!err && strcmp(config, real) && !plan_add(pl, STEP_ADOPT, f->name, f))
				err = -ENOMEM;
			free(cur.v);
			return err;
		}
		users = filter_mount_count(f->name);
		if (users)
			return plan_err(pl, "%s:%d: filter '%s' is loaded as %s, not %s, and attached to "
					"%d mount%s: detach %s first", f->file, f->line, f->name,
					kind[0] ? kind : "something else", f->filter, users,
					users == 1 ? "" : "s", users == 1 ? "it" : "them");
		if (!plan_add(pl, STEP_UNLOAD, f->name, NULL))
			return -ENOMEM;
	}
	if (!plan_add(pl, STEP_LOAD, f->name, f))
		return -ENOMEM;
	maps = builtin_maps(f->kind);
	if (!strcmp(f->kind, "file"))
		object_maps(f->filter, &maps);
	err = policy_fresh(f, maps, &cur);
	if (!err)
		err = plan_policy(pl, f, maps, &cur);
	free(cur.v);
	return err;
}

/* Filters an earlier apply of these files loaded, and that are gone from them. */
static int plan_removals(struct plan *pl, struct conf *c)
{
	char (*names)[NAME_LEN];
	char config[PATH_MAX];
	int n = filter_names(&names), users;

	if (n < 0)
		return plan_err(pl, "list %s: %s", opts.pin_dir, strerror(-n));
	for (int i = 0; i < n; i++) {
		if (conf_find(c, names[i]) ||
		    filter_meta(names[i], NULL, 0, NULL, 0, config, sizeof(config)) ||
		    !in_scope(pl, config))
			continue;
		users = filter_mount_count(names[i]);
		if (users) {
			plan_err(pl, "filter '%s' (from %s) is gone from the configuration but attached "
				 "to %d mount%s: detach first", names[i], config, users,
				 users == 1 ? "" : "s");
			continue;
		}
		if (!plan_add(pl, STEP_UNLOAD, names[i], NULL)) {
			free(names);
			return -ENOMEM;
		}
	}
	free(names);
	return 0;
}

void apply_check_object(struct conf *c, struct conf_filter *f)
{
	unsigned int maps;
	struct stat st;
	int err;

	if (stat(f->filter, &st)) {
		conf_error(c, f->file, f->line, "filter object %s: %s", f->filter, strerror(errno));
		return;
	}
	if (!S_ISREG(st.st_mode)) {
		conf_error(c, f->file, f->line, "filter object %s: not a file", f->filter);
		return;
	}
	err = object_maps(f->filter, &maps);
	if (err) {
		conf_error(c, f->file, f->line, "%s is not a usable BPF object: %s", f->filter,
			   strerror(-err));
		return;
	}
	conf_complete(c, f, maps);
}

/* File filters: the object must exist, and have the maps its keys need. */
static void check_objects(struct conf *c)
{
	for (int i = 0; i < c->n; i++)
		if (!strcmp(c->f[i].kind, "file"))
			apply_check_object(c, &c->f[i]);
}

/* --- doing and printing ----------------------------------------------------------------- */

/* Room for the longest step: a filter path and a name, or a policy command. */
#define STEP_STR_MAX (2 * PATH_MAX + 64)

static void step_str(const struct step *s, char *buf, size_t cap)
{
	switch (s->kind) {
	case STEP_UNLOAD:
		snprintf(buf, cap, "unload %s", s->name);
		break;
	case STEP_LOAD:
		snprintf(buf, cap, "load %s --name %s", s->f->filter, s->name);
		break;
	case STEP_POLICY:
		policy_change_str(s->name, &s->c, buf, cap);
		break;
	case STEP_ADOPT:
		snprintf(buf, cap, "(%s: now from %s)", s->name, s->f->file);
		break;
	}
}

static int step_do(const struct step *s)
{
	char real[PATH_MAX];
	int err;

	switch (s->kind) {
	case STEP_UNLOAD:
		return unload_filter(s->name);
	case STEP_LOAD:
		if (!realpath(s->f->file, real))
			snprintf(real, sizeof(real), "%s", s->f->file);
		/* Only the policies: the diff against a fresh filter does the rest. */
		return load_filter(s->f->filter, s->name, NULL, 0, real);
	case STEP_POLICY:
		return policy_apply(s->name, &s->c);
	case STEP_ADOPT:
		if (!realpath(s->f->file, real))
			snprintf(real, sizeof(real), "%s", s->f->file);
		err = filter_set_config(s->name, real);
		if (err)
			fail(-err, "filter '%s': record its configuration file", s->name);
		return err;
	}
	return -EINVAL;
}

static int plan_make(struct plan *pl, struct conf *c, const char *const *only, int nonly)
{
	int err = 0;

	for (int i = 0; i < c->n && err != -ENOMEM; i++) {
		bool wanted = !only;

		for (int j = 0; j < nonly; j++)
			wanted |= !strcmp(only[j], c->f[i].name);
		if (!wanted || (only && filter_loaded(c->f[i].name)))
			continue;
		err = plan_filter(pl, &c->f[i]);
	}
	if (err != -ENOMEM && !only)
		err = plan_removals(pl, c);
	if (err == -ENOMEM)
		fail(ENOMEM, "apply");
	return err == -EINVAL ? 0 : err;
}

static void print_plan(const struct plan *pl, const struct conf *c, bool dry_run)
{
	char buf[STEP_STR_MAX];
	int changes = 0;
	json_object *o, *arr, *names;

	if (!opts.json) {
		for (int i = 0; i < pl->n; i++) {
			if (pl->s[i].kind == STEP_ADOPT)
				continue;
			step_str(&pl->s[i], buf, sizeof(buf));
			printf("%s\n", buf);
			changes++;
		}
		if (!changes)
			printf("apply: nothing to change (%d filter%s as configured in %s)\n", c->n,
			       c->n == 1 ? "" : "s", c->path);
		else if (dry_run)
			printf("apply: %d change%s to make (dry run: none made)\n", changes,
			       changes == 1 ? "" : "s");
		return;
	}
	o = json_object_new_object();
	arr = json_object_new_array();
	names = json_object_new_array();
	for (int i = 0; i < c->n; i++)
		json_object_array_add(names, json_object_new_string(c->f[i].name));
	for (int i = 0; i < pl->n; i++) {
		json_object *ch;

		if (pl->s[i].kind == STEP_ADOPT)
			continue;
		step_str(&pl->s[i], buf, sizeof(buf));
		ch = json_object_new_object();
		json_object_object_add(ch, "filter", json_object_new_string(pl->s[i].name));
		json_object_object_add(ch, "change", json_object_new_string(buf));
		json_object_array_add(arr, ch);
	}
	json_object_object_add(o, "config", json_object_new_string(c->path));
	json_object_object_add(o, "dry_run", json_object_new_boolean(dry_run));
	json_object_object_add(o, "filters", names);
	json_object_object_add(o, "changes", arr);
	json_print(o);
	json_object_put(o);
}

static int plan_run(const struct plan *pl, bool quiet)
{
	int changes = 0;

	for (int i = 0; i < pl->n; i++) {
		changes += pl->s[i].kind != STEP_ADOPT;
		int err = step_do(&pl->s[i]);

		if (err) {
			char buf[STEP_STR_MAX];

			step_str(&pl->s[i], buf, sizeof(buf));
			fail(0, "apply: stopped at '%s' (%d change%s made before it)", buf,
			     changes - 1, changes == 2 ? "" : "s");
			return err;
		}
	}
	if (!opts.json && !quiet && changes)
		printf("apply: %d change%s made\n", changes, changes == 1 ? "" : "s");
	return 0;
}

/* Read and check the configuration at path (missing: empty when allowed). */
static int conf_load(const char *path, bool missing_ok, struct conf *c)
{
	int err = conf_read(path, c);

	if (err == -ENOENT && missing_ok) {
		c->is_dir = true;
		return 0;
	}
	if (err)
		return fail(-err, "apply: read %s", path), err;
	check_objects(c);
	if (c->nerrors)
		return fail(0, "apply: %d error%s in %s: nothing changed", c->nerrors,
			    c->nerrors == 1 ? "" : "s", path), -EINVAL;
	return 0;
}

int apply_config(const char *path, const char *const *only, int nonly, bool dry_run, bool quiet)
{
	struct conf c = { 0 };
	struct plan pl = { 0 };
	bool dflt = !path;
	int err;

	if (!path)
		path = config_default();
	err = conf_load(path, dflt, &c);
	if (err)
		goto out;
	pl.is_dir = c.is_dir;
	if (!realpath(path, pl.abs))
		snprintf(pl.abs, sizeof(pl.abs), "%s", path);
	for (int i = 0; i < nonly; i++)
		if (!conf_find(&c, only[i]) && !filter_loaded(only[i])) {
			fail(ENOENT, "filter '%s' is neither loaded nor in %s", only[i], path);
			err = -ENOENT;
			goto out;
		}
	err = plan_make(&pl, &c, only, nonly);
	if (err)
		goto out;
	if (pl.nerrors) {
		fail(0, "apply: %d error%s: nothing changed", pl.nerrors, pl.nerrors == 1 ? "" : "s");
		err = -EINVAL;
		goto out;
	}
	if (!quiet)
		print_plan(&pl, &c, dry_run);
	if (!dry_run && pl.n)
		err = plan_run(&pl, quiet);
out:
	free(pl.s);
	conf_free(&c);
	return err;
}

static int apply_opt(int c, const char *arg, void *ctx)
{
	(void)arg;
	if (c == 'n') {
		*(bool *)ctx = true;
		return 0;
	}
	return EXIT_USAGE;
}

int do_apply(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "dry-run", no_argument, NULL, 'n' },
		{ 0 },
	};
	bool dry_run = false;
	int idx, lock, ret;

	idx = parse_cmd_opts(argc, argv, "n", longopts, apply_opt, &dry_run, help_apply);
	if (idx == PARSE_HELP)
		return EXIT_OK;
	if (idx < 0)
		return EXIT_USAGE;
	if (argc - idx > 1)
		return usage_error("one FILE or DIR, please");
	lock = state_lock();
	if (lock < 0)
		return fail(-lock, "lock %s/lock", opts.state_dir);
	ret = apply_config(argc - idx ? argv[idx] : NULL, NULL, 0, dry_run, false) ? EXIT_FAIL :
									      EXIT_OK;
	state_unlock(lock);
	return ret;
}
