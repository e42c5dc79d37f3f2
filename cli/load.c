// SPDX-License-Identifier: GPL-2.0
/*
 * fusebpfctl load FILTER [--name NAME] [policy options]
 * fusebpfctl unload NAME [--force]
 *
 * A built-in filter (cli/builtins.def) comes from its skeleton, the ELF
 * embedded in fusebpfctl. Any other FILTER is the path of a filter object. Every program of the object gets
 * the fuse filter program type (libbpf 1.1 does not know it) before load.
 */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "builtins.h"
#include "filter.h"
#include "fusebpf_loader.h"
#include "fusebpfctl.h"
#include "json.h"
#include "load.h"
#include "policy.h"
#include "policy_vocab.h"

#define VERIFIER_LOG_SIZE (1 << 22)

void help_load(FILE *out)
{
	fprintf(out,
		"Usage: fusebpfctl load FILTER [--name NAME] [POLICY OPTIONS]\n"
		"\n"
		"Load a filter and pin it under PIN_DIR/NAME/ (its fuse_ops map as 'ops', the maps by\n"
		"their names). FILTER is a built-in (%s: the\n"
		"combined filter) or the path of a filter object (.bpf.o). When the verifier\n"
		"rejects the program, its log is printed and the exit status is 1.\n"
		"\n"
		"Options:\n"
		"  -n, --name NAME        pin name (default: the built-in's name, or the file's\n"
		"                         name without .bpf.o)\n"
		"Policy options (the same changes as the policy commands, applied after pinning):\n"
		"      --hide NAME        hide this file name (repeatable)\n"
		"      --hide-prefix P    hide names starting with P (also --hide-suffix, --hide-glob)\n"
		"      --hide-dotfiles    hide names starting with '.'\n"
		"      --hide-errno E     errno for creating a hidden name (default EACCES)\n"
		"      --mode SPEC        attrs rule for every name: +BITS, -BITS, =BITS (octal)\n"
		"      --uid ID, --gid ID attrs rule for every name: force the owner / group\n"
		"      --deny-errno E     errno of denied writes: EROFS (default), EACCES, EPERM\n"
		"      --allow NAME       denywrite: names that may still be created/removed\n"
		"      --policies LIST    the combined filter's policies: hide,attrs,denywrite\n"
		"                         (default hide,attrs)\n"
		"      --postfilter       also run the postfilter on every op, for latency and\n"
		"                         backing-error counts (default for stats and files)\n"
		"      --no-postfilter    skip postfilter runs kept only for statistics (default\n"
		"                         for hide, attrs, denywrite and fusebpf)\n"
		"      --no-enforce       audit mode: hide and denywrite report what they would\n"
		"                         refuse or hide, and refuse nothing (see 'policy')\n"
		"      --except-uid ID    hide and denywrite do not apply to this real uid (a\n"
		"      --except-gid ID    number or a name; also --except-gid; repeatable)\n"
		"      --no-events        report no audit events (see 'fusebpfctl events')\n"
		"      --events-rate N    at most N events a second (default %d)...\n"
		"      --events-burst N   ... and N at once (default %d)\n"
		"      --events-readdir   also report directory entries hidden from listings\n"
		"\n"
		"JSON (-j): the loaded filter, as in 'list'.\n"
		"\n"
		"EXAMPLES\n"
		"  fusebpfctl load hide --name private --hide secret.txt --hide-dotfiles\n"
		"  fusebpfctl load denywrite --name ro --deny-errno EACCES\n"
		"  fusebpfctl load denywrite --name ro --except-uid alice\n"
		"  fusebpfctl load ./myfilter.bpf.o\n",
		builtin_names(", "), FUSEBPF_EV_RATE_DEFAULT, FUSEBPF_EV_BURST_DEFAULT);
}

struct load_args {
	const char *name;
	struct policy_vec changes;
	bool policies_given;
	int bad;
};

static struct policy_change *add_change(struct load_args *a, enum policy_op op)
{
	struct policy_change *c = policy_vec_add(&a->changes, op, 0);

	if (!c)
		a->bad = 1;
	return c;
}

static struct policy_change *default_rule(struct load_args *a)
{
	for (int i = 0; i < a->changes.n; i++)
		if (a->changes.v[i].op == POL_ATTR_SET && !a->changes.v[i].name[0])
			return &a->changes.v[i];
	return add_change(a, POL_ATTR_SET);
}

/* load's policy options: --KEY VALUE of the vocabulary, and flags that set a key. */
static const struct load_policy_opt {
	const char *opt, *key, *fixed;	/* fixed: the value the flag sets */
} load_policy_opts[] = {
	{ "hide", "hide", NULL }, { "hide-prefix", "hide-prefix", NULL }, { "hide-suffix", "hide-suffix", NULL },
	{ "hide-glob", "hide-glob", NULL }, { "hide-dotfiles", "hide-dotfiles", "on" },
	{ "hide-errno", "hide-errno", NULL }, { "mode", "mode", NULL }, { "uid", "uid", NULL }, { "gid", "gid", NULL },
	{ "deny-errno", "deny-errno", NULL }, { "allow", "allow", NULL }, { "policies", "policies", NULL },
	{ "postfilter", "postfilter", "on" }, { "no-postfilter", "postfilter", "off" },
	{ "no-enforce", "enforce", "off" },
	{ "except-uid", "except-uid", NULL }, { "except-gid", "except-gid", NULL },
	{ "no-events", "events", "off" }, { "events-rate", "events-rate", NULL },
	{ "events-burst", "events-burst", NULL }, { "events-readdir", "events-readdir", "on" },
};
#define LOAD_NPOLICY_OPTS (sizeof(load_policy_opts) / sizeof(load_policy_opts[0]))
#define O_POLICY 256	/* + the index in load_policy_opts */

static int load_policy_opt(struct load_args *a, const struct load_policy_opt *o, const char *arg)
{
	const struct policy_key *k = policy_key_find(o->key);
	struct policy_change ch, *p;
	char label[40], why[512];

	snprintf(label, sizeof(label), "--%s", o->opt);
	if (policy_key_value(k, label, o->fixed ? o->fixed : arg, SYNTAX_CLI, &ch, why, sizeof(why)))
		return usage_error("%s", why);
	if (ch.op == POL_ATTR_SET) {
		if (!(p = default_rule(a)))
			return EXIT_USAGE;
		policy_rule_merge(k, &p->rule, &ch.rule);
		return 0;
	}
	if (!(p = add_change(a, ch.op)))
		return EXIT_USAGE;
	*p = ch;	/* an exception's mask 0: the filter's policies (see load_filter) */
	a->policies_given |= ch.op == POL_POLICIES;
	return 0;
}

static int load_opt(int c, const char *arg, void *ctx)
{
	struct load_args *a = ctx;

	if (c == 'n') {
		if (!valid_filter_name(arg))
			return usage_error("bad name '%s' (letters, digits, '_', '-', '.')", arg);
		a->name = arg;
		return 0;
	}
	if (c >= O_POLICY && c < O_POLICY + (int)LOAD_NPOLICY_OPTS)
		return load_policy_opt(a, &load_policy_opts[c - O_POLICY], arg);
	return EXIT_USAGE;
}

/* The FUSEBPF_POLICY_* whose maps a loaded filter has. */
static uint32_t filter_policies(const char *name)
{
	uint32_t mask = 0;

	for (int i = 0; i < CONF_NMAPS; i++) {
		int fd;

		if (!policy_maps[i].policy)
			continue;
		fd = filter_obj_fd(name, policy_maps[i].map);
		if (fd >= 0) {
			mask |= policy_maps[i].policy;
			close(fd);
		}
	}
	return mask;
}

static void default_name(const char *filter, char *buf, size_t cap)
{
	const char *base = strrchr(filter, '/') ? strrchr(filter, '/') + 1 : filter;
	size_t len = strlen(base);

	if (len > 6 && strcmp(base + len - 6, ".bpf.o") == 0)
		len -= 6;
	else if (len > 2 && strcmp(base + len - 2, ".o") == 0)
		len -= 2;
	snprintf(buf, cap, "%.*s", (int)len, base);
}

static int write_meta(const char *name, const char *kind, const char *source, const char *config)
{
	char dir[4096], path[4200];
	json_object *o = json_object_new_object();
	int err;

	snprintf(dir, sizeof(dir), "%s/filters", opts.state_dir);
	err = mkdir_p(dir, 0755);
	if (err)
		goto out;
	snprintf(path, sizeof(path), "%s/%s.json", dir, name);
	json_object_object_add(o, "name", json_object_new_string(name));
	json_object_object_add(o, "kind", json_object_new_string(kind));
	json_object_object_add(o, "source", source && *source ? json_object_new_string(source) : NULL);
	if (config)
		json_object_object_add(o, "config", json_object_new_string(config));
	if (json_object_to_file_ext(path, o, JSON_C_TO_STRING_PRETTY))
		err = -EIO;
out:
	json_object_put(o);
	return err;
}

static void remove_pins(const char *name)
{
	char dir[4096], path[4400], meta[4200];
	struct dirent *de;
	DIR *d;

	filter_pin_dir(name, dir, sizeof(dir));
	d = opendir(dir);
	if (d) {
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			unlink(path);
		}
		closedir(d);
	}
	rmdir(dir);
	snprintf(meta, sizeof(meta), "%s/filters/%s.json", opts.state_dir, name);
	unlink(meta);
}

/* Does the buffer look like an ELF file at all? */
static bool is_elf_file(const char *path)
{
	unsigned char magic[4];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool elf;

	if (fd < 0)
		return true;	/* let libbpf say why */
	elf = read(fd, magic, 4) == 4 && !memcmp(magic, "\177ELF", 4);
	close(fd);
	return elf;
}

/* Which object FILTER names: a built-in's embedded ELF, or a file. */
struct load_src {
	const char *filter;	/* as given */
	const struct builtin_filter *builtin;	/* NULL: a file */
	char kind[32];		/* the built-in's name, or "file" */
	char path[PATH_MAX];	/* the file's real path; "" for a built-in */
};

static int find_object(const char *filter, struct load_src *src)
{
	struct stat st;

	memset(src, 0, sizeof(*src));
	src->filter = filter;
	if (!strchr(filter, '/') && (src->builtin = builtin_find(filter))) {
		snprintf(src->kind, sizeof(src->kind), "%s", filter);
		return 0;
	}
	if (stat(filter, &st)) {
		int err = errno;

		fail(err, "load %s: %s%s%s", filter,
		     strchr(filter, '/') || strstr(filter, ".o") ? "cannot open the filter object" :
		     "not a built-in filter (", strchr(filter, '/') || strstr(filter, ".o") ? "" :
		     builtin_names(", "), strchr(filter, '/') || strstr(filter, ".o") ? "" : ") nor a file");
		return -err;
	}
	if (!S_ISREG(st.st_mode)) {
		fail(EINVAL, "load %s: not a BPF object file", filter);
		return -EINVAL;
	}
	if (!realpath(filter, src->path) &&
	    snprintf(src->path, sizeof(src->path), "%s", filter) >= (int)sizeof(src->path)) {
		fail(ENAMETOOLONG, "load %s", filter);
		return -ENAMETOOLONG;
	}
	snprintf(src->kind, sizeof(src->kind), "file");
	return 0;
}

/* The object's filter: its one fuse_ops struct_ops map (printed when none or several). */
static struct bpf_map *object_ops_map(const char *filter, struct bpf_object *obj)
{
	struct bpf_map *map = fusebpf_ops_map(obj);

	if (!map && errno == EEXIST)
		fail(EEXIST, "load %s: the object has several struct fuse_ops maps; "
		     "a filter object has one", filter);
	else if (!map)
		fail(ENOENT, "load %s: the object has no struct fuse_ops map "
		     "(SEC(\".struct_ops\") struct fuse_ops NAME = { ... })", filter);
	return map;
}

/* Open the object (a file that is not BPF fails here, on any kernel) and find its filter. */
static int open_object(const struct load_src *src, struct bpf_object **objp,
		       struct bpf_map **ops)
{
	struct bpf_object *obj;
	int err;

	if (src->builtin) {
		char objname[64];
		size_t size;
		const void *elf = src->builtin->elf(&size);

		/* The skeleton's object name, as bpftool gen skeleton gave it. */
		snprintf(objname, sizeof(objname), "%s_bpf", src->kind);
		LIBBPF_OPTS(bpf_object_open_opts, oo, .object_name = objname);
		obj = bpf_object__open_mem(elf, size, &oo);
	} else {
		if (!is_elf_file(src->path)) {
			fail(ENOEXEC, "load %s: not a BPF object file", src->filter);
			return -ENOEXEC;
		}
		obj = bpf_object__open_file(src->path, NULL);
	}
	if (!obj) {
		err = errno;
		fail(err, "load %s: not a usable BPF object file", src->filter);
		return -err;
	}
	*objp = obj;
	*ops = object_ops_map(src->filter, obj);
	return *ops ? 0 : -ENOEXEC;
}

/* Every program of the object logs into log (the one that fails leaves its log). */
static void prepare_programs(struct bpf_object *obj, char *log)
{
	struct bpf_program *prog;

	log[0] = 0;
	bpf_object__for_each_program(prog, obj) {
		bpf_program__set_log_buf(prog, log, VERIFIER_LOG_SIZE);
		if (opts.verbose)
			bpf_program__set_log_level(prog, 1);
	}
}

static void print_verifier_failure(const char *filter, const char *log, int err)
{
	if (log[0]) {
		fprintf(stderr, "-- verifier log --\n%s", log);
		if (log[strlen(log) - 1] != '\n')
			fputc('\n', stderr);
		fprintf(stderr, "-- end of verifier log --\n");
		fail(-err, "load %s: the verifier rejected a program of the filter", filter);
	} else {
		fail(-err, "load %s: loading into the kernel failed%s", filter,
		     opts.verbose ? "" : " (-v for libbpf's detail)");
	}
}

/* 0 when the kernel has fuse-bpf filters, else -EOPNOTSUPP (printed). */
static int check_kernel(const char *filter)
{
	if (fuse_bpf_supported())
		return 0;
	fail(EOPNOTSUPP, "load %s: fuse-bpf is not supported by this kernel "
	     "(/sys/fs/fuse/features/fuse_bpf)", filter);
	return -EOPNOTSUPP;
}

/* Load the object and attach its fuse_ops map, printing the verifier's log when refused. */
static int load_object(const char *filter, struct bpf_object *obj, struct bpf_map *ops)
{
	char *log;
	int err;

	log = malloc(VERIFIER_LOG_SIZE);
	if (!log) {
		fail(ENOMEM, "load %s", filter);
		return -ENOMEM;
	}
	prepare_programs(obj, log);
	err = bpf_object__load(obj);
	if (err)
		print_verifier_failure(filter, log, err);
	else if (opts.verbose && log[0])
		fprintf(stderr, "-- verifier log --\n%s\n", log);
	free(log);
	if (!err && (err = fusebpf_ops_attach(ops)) < 0)
		fail(-err, "load %s: attaching struct_ops map '%s'", filter, bpf_map__name(ops));
	return err < 0 ? err : 0;
}

/* Pin the filter's fuse_ops map as PINDIR/ops and the other maps by their names. */
static int pin_object(struct bpf_object *obj, struct bpf_map *ops, const char *pindir)
{
	char path[PATH_MAX + 64];
	struct bpf_map *map;
	int err;

	snprintf(path, sizeof(path), "%s/ops", pindir);
	err = bpf_map__pin(ops, path);
	if (err) {
		fail(-err, "pin %s", path);
		return err;
	}
	bpf_object__for_each_map(map, obj) {
		if (bpf_map__is_internal(map) || map == ops ||
		    bpf_map__type(map) == BPF_MAP_TYPE_STRUCT_OPS)
			continue;
		snprintf(path, sizeof(path), "%s/%s", pindir, bpf_map__name(map));
		err = bpf_map__pin(map, path);
		if (err) {
			fail(-err, "pin %s", path);
			return err;
		}
	}
	return 0;
}

/*
 * The policy changes after pinning; the built-ins' config says which
 * policies run and whether the latency postfilter does. Applied first: the
 * other changes refine them.
 */
static int apply_load_policy(const char *name, const char *kind,
			     const struct policy_change *changes, int nchanges)
{
	struct policy_vec all = { 0 };
	bool policies_given = false;
	int err = 0;

	for (int i = 0; i < nchanges; i++)
		policies_given |= changes[i].op == POL_POLICIES;
	if (!policies_given && builtin_policies(kind) &&
	    !policy_vec_add(&all, POL_POLICIES, builtin_policies(kind)))
		err = -ENOMEM;
	if (!err && !builtin_postfilter(kind) && !policy_vec_add(&all, POL_POSTFILTER, 0))
		err = -ENOMEM;
	for (int i = 0; !err && i < nchanges; i++) {
		struct policy_change *c = policy_vec_add(&all, changes[i].op, 0);

		if (!c) {
			err = -ENOMEM;
			break;
		}
		*c = changes[i];
		/* --except-uid/gid: for the policies the filter has (by their maps). */
		if (c->op == POL_EXCEPT_ADD && !c->mask)
			c->mask = filter_policies(name) & POLICY_EXCEPTABLE;
	}
	if (err)
		fail(-err, "load %s", name);
	else
		err = policy_apply_all(name, all.v, all.n);
	free(all.v);
	return err;
}

/*
 * Load FILTER (a built-in or an object's path), pin it as name and apply the
 * policy changes; config (or NULL) is the configuration file it came from
 * (apply). The caller holds the state lock. 0, or -errno with the error printed.
 */
int load_filter(const char *filter, const char *name, const struct policy_change *changes,
		int nchanges, const char *config)
{
	struct bpf_object *obj = NULL;
	struct bpf_map *ops = NULL;
	struct load_src src;
	char pindir[PATH_MAX];
	bool pinned = false;
	int err;

	err = find_object(filter, &src);
	if (!err)
		err = open_object(&src, &obj, &ops);
	if (!err)
		err = check_kernel(filter);
	if (!err)
		err = ensure_pin_dir();
	if (err)
		goto out;
	filter_pin_dir(name, pindir, sizeof(pindir));
	if (access(pindir, F_OK) == 0) {
		err = -EEXIST;
		fail(EEXIST, "load %s: a filter named '%s' is already loaded "
		     "(unload it, or give another --name)", filter, name);
		goto out;
	}
	err = load_object(filter, obj, ops);
	if (err)
		goto out;
	if (mkdir(pindir, 0700)) {
		err = -errno;
		fail(-err, "create %s", pindir);
		goto out;
	}
	pinned = true;
	err = pin_object(obj, ops, pindir);
	if (!err && (err = write_meta(name, src.kind, src.path, config)))
		fail(-err, "write %s/filters/%s.json", opts.state_dir, name);
	if (!err)
		err = apply_load_policy(name, src.kind, changes, nchanges);
	pinned = err != 0;
out:
	if (pinned)
		remove_pins(name);
	bpf_object__close(obj);	/* the pins keep the maps (and ops its programs) */
	return err;
}

int unload_filter(const char *name)
{
	remove_pins(name);
	return 0;
}

/* FILTER [--name NAME] [policy options]: 0, PARSE_HELP or PARSE_USAGE (message printed). */
static int load_parse(int argc, char **argv, struct load_args *a, const char **filter,
		      char *name, size_t cap)
{
	static struct option longopts[LOAD_NPOLICY_OPTS + 2] = {
		{ "name", required_argument, NULL, 'n' },
	};
	int idx;

	for (size_t i = 0; i < LOAD_NPOLICY_OPTS; i++)
		longopts[i + 1] = (struct option){ load_policy_opts[i].opt,
						   load_policy_opts[i].fixed ? no_argument :
									       required_argument,
						   NULL, O_POLICY + (int)i };
	idx = parse_cmd_opts(argc, argv, "n:", longopts, load_opt, a, help_load);
	if (idx < 0)
		return idx == PARSE_HELP ? PARSE_HELP : PARSE_USAGE;
	if (argc - idx != 1)
		return usage_error(argc - idx ? "one FILTER, please" : "which FILTER?"), PARSE_USAGE;
	*filter = argv[idx];
	if (a->name)
		snprintf(name, cap, "%s", a->name);
	else
		default_name(*filter, name, cap);
	if (!valid_filter_name(name))
		return usage_error("cannot make a name from '%s': give --name", *filter),
		       PARSE_USAGE;
	return 0;
}

/* The loaded filter: as in list (JSON), or "loaded NAME (KIND [SOURCE])". */
static void load_print(const char *name)
{
	if (opts.json) {
		struct filter_desc *f = calloc(1, sizeof(*f));

		if (f && filter_describe(name, f) == 0) {
			json_object *o = json_filter(f);

			json_print(o);
			json_object_put(o);
		}
		free(f);
	} else {
		char kind[32] = "", src[PATH_MAX] = "";

		filter_meta(name, kind, sizeof(kind), src, sizeof(src), NULL, 0);
		printf("loaded %s (%s%s%s)\n", name, kind, src[0] ? " " : "", src);
	}
}

int do_load(int argc, char **argv)
{
	struct load_args a = { 0 };
	char name[NAME_LEN];
	const char *filter;
	int err, lock;

	err = load_parse(argc, argv, &a, &filter, name, sizeof(name));
	if (err) {
		free(a.changes.v);
		return err == PARSE_HELP ? EXIT_OK : EXIT_USAGE;
	}
	lock = state_lock();
	if (lock < 0) {
		fail(-lock, "lock %s/lock", opts.state_dir);
		err = lock;
	} else {
		err = load_filter(filter, name, a.changes.v, a.changes.n, NULL);
	}
	if (!err)
		load_print(name);
	state_unlock(lock);
	free(a.changes.v);
	return err ? EXIT_FAIL : EXIT_OK;
}

void help_unload(FILE *out)
{
	fprintf(out,
		"Usage: fusebpfctl unload NAME [--force]\n"
		"\n"
		"Remove a filter's pins. Refused while a mount of ours uses the filter, unless\n"
		"--force (the mount keeps its program until it is detached).\n"
		"\n"
		"EXAMPLES\n"
		"  fusebpfctl unload private\n");
}

static int unload_opt(int c, const char *arg, void *ctx)
{
	(void)arg;
	if (c == 'f') {
		*(bool *)ctx = true;
		return 0;
	}
	return EXIT_USAGE;
}

int do_unload(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "force", no_argument, NULL, 'f' },
		{ 0 },
	};
	bool force = false;
	int idx, lock, ret = EXIT_FAIL, users;
	const char *name;

	idx = parse_cmd_opts(argc, argv, "f", longopts, unload_opt, &force, help_unload);
	if (idx == PARSE_HELP)
		return EXIT_OK;
	if (idx < 0)
		return EXIT_USAGE;
	if (argc - idx != 1)
		return usage_error(argc - idx ? "one NAME, please" : "which NAME?");
	name = argv[idx];
	lock = state_lock();
	if (lock < 0)
		return fail(-lock, "lock %s/lock", opts.state_dir);
	if (!filter_loaded(name)) {
		ret = fail(ENOENT, "unload %s: no such filter loaded", name);
		goto out;
	}
	users = filter_mount_count(name);
	if (users && !force) {
		ret = fail(EBUSY, "unload %s: attached to %d mount%s (detach first, or --force)", name,
			   users, users == 1 ? "" : "s");
		goto out;
	}
	unload_filter(name);
	if (!opts.json)
		printf("unloaded %s\n", name);
	ret = EXIT_OK;
out:
	state_unlock(lock);
	return ret;
}
