// SPDX-License-Identifier: GPL-2.0
/*
 * The configuration files: an INI-like "key = value" format, parsed here
 * (two dozen keys, one level of [sections]: a library would not make it
 * shorter). No kernel needed.
 *
 *   # comment            (a line whose first non-blank character is # or ;)
 *   [NAME]               a filter, pinned as NAME
 *   filter = hide        the built-in (hide, attrs, denywrite, stats, fusebpf)
 *                        or a .bpf.o path (relative: to the file's directory)
 *   hide = a.txt "b c"   lists: words, or "quoted" with \" and \\
 *   except-uid = 1000    ids (numbers or names) hide and denywrite spare
 *   events-rate = 10     the audit events' settings
 *   ...
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf.h"
#include "policy_vocab.h"
#include "policy_diff.h"
#include "filter.h"
#include "fusebpfctl.h"

#define CONF_MAX_FILE (1 << 20)
#define MAX_WORDS 256
/* seen_line's slot of the filter key; those of policy_keys[] come first. */
#define SLOT_FILTER 31

static void conf_verr(struct conf *c, const char *file, int line, const char *fmt, va_list ap)
{
	char what[768], msg[1024];

	vsnprintf(what, sizeof(what), fmt, ap);
	if (line > 0)
		snprintf(msg, sizeof(msg), "%s:%d: %s", file, line, what);
	else
		snprintf(msg, sizeof(msg), "%s: %s", file, what);
	if (!c->nerrors++)
		snprintf(c->first_error, sizeof(c->first_error), "%s", msg);
	if (!c->quiet)
		fprintf(stderr, "fusebpfctl: %s\n", msg);
}

void conf_error(struct conf *c, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	conf_verr(c, file, line, fmt, ap);
	va_end(ap);
}

struct conf_filter *conf_find(struct conf *c, const char *name)
{
	for (int i = 0; i < c->n; i++)
		if (!strcmp(c->f[i].name, name))
			return &c->f[i];
	return NULL;
}

void conf_free(struct conf *c)
{
	for (int i = 0; i < c->n; i++)
		free(c->f[i].set);
	free(c->f);
	c->f = NULL;
	c->n = 0;
}

/* --- one line -------------------------------------------------------------- */

/*
 * Split s into words in place: blanks separate, "..." quotes (with \" and
 * \\). The count, or -1 for an unterminated quote or too many words.
 */
static int split_words(char *s, char **words, int max)
{
	int n = 0;
	char *w;

	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			return n;
		if (n == max)
			return -1;
		words[n++] = w = s;
		if (*s != '"') {
			while (*s && *s != ' ' && *s != '\t')
				s++;
			if (*s)
				*s++ = 0;
			continue;
		}
		for (s++;; s++) {
			if (!*s)
				return -1;
			if (*s == '"')
				break;
			if (*s == '\\' && (s[1] == '"' || s[1] == '\\'))
				s++;
			*w++ = *s;
		}
		*w = 0;
		s++;
		if (*s && *s != ' ' && *s != '\t')
			return -1;
	}
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = 0;
	return s;
}

struct parse {
	struct conf *c;
	const char *file;
	int line;
	struct conf_filter *f;		/* the current section */
	bool bad_section;		/* keys go nowhere (reported once) */
	int seen_line[SLOT_FILTER + 1];	/* scalar keys (by index in policy_keys): their line */
	int nids;			/* the distinct ids excepted in the section */
};

static struct policy_change *add_set(struct parse *p, enum policy_op op)
{
	struct conf_filter *f = p->f;
	struct policy_vec vec = { f->set, f->nset };
	struct policy_change *v = policy_vec_add(&vec, op, 0);

	f->set = vec.v;
	f->nset = vec.n;
	if (!v)
		conf_error(p->c, p->file, p->line, "out of memory");
	return v;
}

/* Add a set item unless the same key is there (lists are sets). */
static void add_item(struct parse *p, const struct policy_change *item)
{
	struct policy_change *v;

	for (int i = 0; i < p->f->nset; i++)
		if (policy_same_key(&p->f->set[i], item))
			return;
	v = add_set(p, item->op);
	if (v)
		*v = *item;
}

static void need(struct parse *p, unsigned int maps)
{
	for (int i = 0; i < CONF_NMAPS; i++)
		if ((maps & (1u << i)) && !(p->f->needs & (1u << i))) {
			p->f->needs |= 1u << i;
			p->f->need_line[i] = p->line;
		}
}

/* A scalar key given once per section; its slot in seen_line. */
static bool once(struct parse *p, int slot, const char *key)
{
	if (p->seen_line[slot]) {
		conf_error(p->c, p->file, p->line, "'%s' given twice in [%s] (first on line %d)", key,
			 p->f->name, p->seen_line[slot]);
		return false;
	}
	p->seen_line[slot] = p->line;
	return true;
}

static void start_section(struct parse *p, char *s)
{
	struct conf *c = p->c;
	struct conf_filter *f, *old;
	char *end = strchr(s, ']');
	char *name;

	p->f = NULL;
	p->nids = 0;
	memset(p->seen_line, 0, sizeof(p->seen_line));
	if (!end || *trim(end + 1)) {
		conf_error(c, p->file, p->line, "a section is [NAME] alone on its line");
		return;
	}
	*end = 0;
	name = trim(s + 1);
	if (!valid_filter_name(name)) {
		conf_error(c, p->file, p->line, "bad filter name '%s' (letters, digits, '_', '-', '.')",
			 name);
		return;
	}
	old = conf_find(c, name);
	if (old) {
		conf_error(c, p->file, p->line, "filter '%s' is already defined at %s:%d", name,
			 old->file, old->line);
		return;
	}
	p->f = f = array_add(&c->f, &c->n, sizeof(*f));
	if (!f) {
		conf_error(c, p->file, p->line, "out of memory");
		return;
	}
	snprintf(f->name, sizeof(f->name), "%s", name);
	snprintf(f->file, sizeof(f->file), "%s", p->file);
	f->line = p->line;
}

static void set_filter(struct parse *p, char **w, int n)
{
	struct conf_filter *f = p->f;
	char dir[PATH_MAX];

	if (n != 1) {
		conf_error(p->c, p->file, p->line, "filter = one built-in (%s) or one .bpf.o path",
			 builtin_names(", "));
		return;
	}
	if (!strchr(w[0], '/') && is_builtin(w[0])) {
		snprintf(f->filter, sizeof(f->filter), "%s", w[0]);
		snprintf(f->kind, sizeof(f->kind), "%s", w[0]);
		return;
	}
	if (!strchr(w[0], '/') && !strstr(w[0], ".o")) {
		conf_error(p->c, p->file, p->line, "unknown filter '%s' (%s, or the path of a .bpf.o)",
			 w[0], builtin_names(", "));
		return;
	}
	snprintf(dir, sizeof(dir), "%s", p->file);
	if (w[0][0] == '/')
		snprintf(f->filter, sizeof(f->filter), "%s", w[0]);
	else if (snprintf(f->filter, sizeof(f->filter), "%s/%s", dirname(dir), w[0]) >=
		 (int)sizeof(f->filter))
		conf_error(p->c, p->file, p->line, "path too long");
	snprintf(f->kind, sizeof(f->kind), "file");
}

static void scalar_key(struct parse *p, enum policy_op op, int val)
{
	struct policy_change *v = add_set(p, op);

	if (v)
		v->val = val;
}

/* The rule of name ("" = every name), made on first use. */
static struct policy_change *rule_of(struct parse *p, const char *name)
{
	struct policy_change *v;

	for (int i = 0; i < p->f->nset; i++)
		if (p->f->set[i].op == POL_ATTR_SET && !strcmp(p->f->set[i].name, name))
			return &p->f->set[i];
	v = add_set(p, POL_ATTR_SET);
	if (v)
		snprintf(v->name, sizeof(v->name), "%s", name);
	return v;
}

/* mode=SPEC, uid=ID or gid=ID into a rule; false when bad (reported). */
static bool rule_setting(struct parse *p, const char *key, const char *val,
			 struct fusebpf_attr_rule *r)
{
	const struct policy_key *k = policy_key_find(key);
	struct policy_change c;
	char why[512];

	if (!k || (k->value != PV_MODE && k->value != PV_ID)) {
		conf_error(p->c, p->file, p->line, "unknown rule setting '%s' (mode=, uid=, gid=)",
			   key);
		return false;
	}
	if (policy_key_value(k, key, val, SYNTAX_CONF, &c, why, sizeof(why))) {
		conf_error(p->c, p->file, p->line, "%s", why);
		return false;
	}
	policy_rule_merge(k, r, &c.rule);
	return true;
}

/* rule = FILE mode=SPEC uid=ID gid=ID */
static void rule_key(struct parse *p, char **w, int n)
{
	struct fusebpf_attr_rule r = { 0 };
	struct policy_change *v;
	struct fusebpf_name key;
	int e;

	if (n < 2) {
		conf_error(p->c, p->file, p->line, "rule = FILE mode=SPEC|uid=ID|gid=ID...");
		return;
	}
	if ((e = policy_name_key(w[0], &key))) {
		conf_error(p->c, p->file, p->line, "bad file name '%s': %s (mode, uid and gid "
			   "set the rule for every name)", w[0], strerror(-e));
		return;
	}
	for (int i = 1; i < n; i++) {
		char *eq = strchr(w[i], '=');

		if (!eq) {
			conf_error(p->c, p->file, p->line, "'%s': mode=SPEC, uid=ID or gid=ID", w[i]);
			return;
		}
		*eq = 0;
		if (!rule_setting(p, w[i], eq + 1, &r))
			return;
	}
	for (int i = 0; i < p->f->nset; i++)
		if (p->f->set[i].op == POL_ATTR_SET && !strcmp(p->f->set[i].name, w[0])) {
			conf_error(p->c, p->file, p->line, "a second rule for '%s'", w[0]);
			return;
		}
	v = rule_of(p, w[0]);
	if (v)
		v->rule = r;
}

static bool one_value(struct parse *p, const char *key, int n)
{
	if (n == 1)
		return true;
	conf_error(p->c, p->file, p->line, "'%s' takes one value", key);
	return false;
}

static bool id_listed(const struct conf_filter *f, uint32_t kind, uint32_t id)
{
	for (int i = 0; i < f->nset; i++)
		if (f->set[i].op == POL_EXCEPT_ADD && f->set[i].id_kind == kind &&
		    (uint32_t)f->set[i].val == id)
			return true;
	return false;
}

/* One more excepted id in the section; false (reported) past what the map holds. */
static bool except_room(struct parse *p, const struct policy_change *c)
{
	if (id_listed(p->f, c->id_kind, (uint32_t)c->val) || ++p->nids <= FUSEBPF_EXCEPT_MAX)
		return true;
	conf_error(p->c, p->file, p->line, "more than %d uids and gids excepted in [%s] (the "
		   "exceptions map holds %d)", FUSEBPF_EXCEPT_MAX, p->f->name, FUSEBPF_EXCEPT_MAX);
	return false;
}

/* One parsed value of k into the section's policy; false to stop at this line. */
static bool set_value(struct parse *p, const struct policy_key *k, const struct policy_change *c)
{
	struct policy_change *v;

	switch (k->value) {
	case PV_NAME:
		add_item(p, c);
		return true;
	case PV_EXCEPT:
		if (!except_room(p, c))
			return false;
		add_item(p, c);
		return true;
	case PV_MODE:
	case PV_ID:
		if ((v = rule_of(p, "")))
			policy_rule_merge(k, &v->rule, &c->rule);
		return true;
	default:
		scalar_key(p, c->op, c->val);
		p->f->policies_given |= c->op == POL_POLICIES;
		return true;
	}
}

/* A key of the policy vocabulary (policy_vocab.h), with its values. */
static void vocab_key(struct parse *p, const struct policy_key *k, char **w, int n)
{
	struct policy_change c;
	char why[512];

	need(p, k->maps);
	if (!policy_key_is_list(k) && (!once(p, (int)(k - policy_keys), k->key) ||
				       !one_value(p, k->key, n)))
		return;
	for (int i = 0; i < n; i++) {
		if (policy_key_value(k, k->key, w[i], SYNTAX_CONF, &c, why, sizeof(why)))
			conf_error(p->c, p->file, p->line, "%s", why);
		else if (!set_value(p, k, &c))
			return;
	}
}

static void key_value(struct parse *p, const char *key, char *val)
{
	const struct policy_key *k = policy_key_find(key);
	char *w[MAX_WORDS];
	int n = split_words(val, w, MAX_WORDS);

	if (n < 0) {
		conf_error(p->c, p->file, p->line, "'%s': an unterminated quote, or more than %d words",
			   key, MAX_WORDS);
		return;
	}
	if (!n) {
		conf_error(p->c, p->file, p->line, "'%s' needs a value", key);
		return;
	}
	if (k) {
		vocab_key(p, k, w, n);
	} else if (!strcmp(key, "filter")) {
		if (once(p, SLOT_FILTER, key))
			set_filter(p, w, n);
	} else if (!strcmp(key, "rule")) {
		need(p, CONF_ATTRS);
		rule_key(p, w, n);
	} else {
		conf_error(p->c, p->file, p->line, "unknown key '%s' (filter, hide, hide-prefix, "
			   "hide-suffix, hide-glob, hide-dotfiles, hide-errno, mode, uid, gid, rule, "
			   "allow, deny-errno, policies, postfilter, except-uid, except-gid, "
			   "hide-except-uid, hide-except-gid, deny-except-uid, deny-except-gid, events, "
			   "events-rate, events-burst, events-readdir)", key);
	}
}

static void end_section(struct parse *p)
{
	struct conf_filter *f = p->f;

	if (!f)
		return;
	if (!f->kind[0]) {
		if (p->seen_line[SLOT_FILTER])
			return;	/* a bad one, reported */
		conf_error(p->c, p->file, f->line, "[%s] has no 'filter =' (%s, or a .bpf.o path)",
			 f->name, builtin_names(", "));
		return;
	}
	if (strcmp(f->kind, "fusebpf") && strcmp(f->kind, "file") && f->policies_given)
		conf_error(p->c, p->file, p->seen_line[policy_key_find("policies") - policy_keys],
			   "'policies' is for the combined "
			 "filter (fusebpf) and filter objects; %s always runs its own", f->kind);
	/* A built-in's maps are known now; a file's once apply opens it. */
	if (strcmp(f->kind, "file"))
		conf_complete(p->c, f, builtin_maps(f->kind));
}

void conf_parse(struct conf *c, const char *file, const char *text)
{
	struct parse p = { .c = c, .file = file };
	const char *s = text;

	while (*s) {
		size_t len = strcspn(s, "\n");
		char buf[4096], *line, *eq;

		p.line++;
		if (len >= sizeof(buf)) {
			conf_error(c, file, p.line, "line longer than %zu bytes", sizeof(buf) - 1);
			s += len + (s[len] == '\n');
			continue;
		}
		memcpy(buf, s, len);
		buf[len] = 0;
		s += len + (s[len] == '\n');
		line = trim(buf);
		if (!*line || *line == '#' || *line == ';')
			continue;
		if (*line == '[') {
			end_section(&p);
			start_section(&p, line);
			p.bad_section = !p.f;
			continue;
		}
		eq = strchr(line, '=');
		if (!eq) {
			conf_error(c, file, p.line, "expected 'key = value' or '[NAME]'");
			continue;
		}
		*eq = 0;
		if (!p.f) {
			/* Before any section (once), or in a bad one (already reported). */
			if (!p.bad_section)
				conf_error(c, file, p.line, "'%s' outside a [NAME] section", trim(line));
			p.bad_section = true;
			continue;
		}
		key_value(&p, trim(line), trim(eq + 1));
	}
	end_section(&p);
}

/* --- completing a filter's policy ----------------------------------------------- */

/*
 * An exception for every policy (mask 0, from except-uid or except-gid)
 * becomes one for each policy of these the filter has. false when it has
 * none of them (reported).
 */
static bool expand_excepts(struct parse *p, uint32_t policies)
{
	struct conf_filter *f = p->f;
	int n = f->nset;

	for (int i = 0; i < n; i++) {
		struct policy_change e = f->set[i];

		if (e.op != POL_EXCEPT_ADD || e.mask)
			continue;
		if (!policies) {
			conf_error(p->c, f->file, f->need_line[__builtin_ctz(CONF_EXCEPT)],
				 "filter '%s' (%s) has no hide or denywrite policy to except from",
				 f->name, f->filter);
			return false;
		}
		memmove(&f->set[i], &f->set[i + 1], (f->nset - i - 1) * sizeof(*f->set));
		f->nset--;
		n--;
		i--;
		for (uint32_t bit = 1; bit; bit <<= 1) {
			e.mask = bit;
			if (policies & bit)
				add_item(p, &e);
		}
	}
	return true;
}

void conf_complete(struct conf *c, struct conf_filter *f, unsigned int maps)
{
	static const struct {
		enum policy_op op;
		unsigned int map;
		int val;
	} scalars[] = {
		{ POL_DOTFILES, CONF_HIDE, 0 },
		{ POL_HIDE_ERRNO, CONF_HIDE, EACCES },
		{ POL_DENY_ERRNO, CONF_DENY, EROFS },
		{ POL_POSTFILTER, CONF_CONFIG, -1 },	/* builtin_postfilter() */
		{ POL_EVENTS, CONF_EVENTS, 1 },
		{ POL_EV_RATE, CONF_EVENTS, FUSEBPF_EV_RATE_DEFAULT },
		{ POL_EV_BURST, CONF_EVENTS, FUSEBPF_EV_BURST_DEFAULT },
		{ POL_EV_READDIR, CONF_EVENTS, 0 },
		{ POL_ENFORCE, CONF_EVENTS, 1 },
	};
	bool builtin = strcmp(f->kind, "file") != 0;
	struct parse p = { .c = c, .file = f->file, .f = f };
	int missing = 0;

	for (int i = 0; i < CONF_NMAPS; i++) {
		if (!(f->needs & (1u << i)) || (maps & (1u << i)))
			continue;
		conf_error(c, f->file, f->need_line[i], "filter '%s' (%s) has no %s", f->name,
			 builtin ? f->kind : f->filter, policy_maps[i].what);
		missing++;
	}
	if (missing)
		return;
	if (!expand_excepts(&p, (maps & CONF_HIDE ? FUSEBPF_POLICY_HIDE : 0) |
				(maps & CONF_DENY ? FUSEBPF_POLICY_DENYWRITE : 0)))
		return;
	/* The defaults, so that a setting removed from the file is reset. */
	for (size_t i = 0; i < sizeof(scalars) / sizeof(scalars[0]); i++) {
		struct policy_change d = { .op = scalars[i].op, .val = scalars[i].val };

		if (d.op == POL_POSTFILTER)
			d.val = builtin_postfilter(f->kind);
		if (maps & scalars[i].map)
			add_item(&p, &d);
	}
	if (builtin && !f->policies_given && builtin_policies(f->kind)) {
		struct policy_change d = { .op = POL_POLICIES, .val = builtin_policies(f->kind) };

		add_item(&p, &d);
	}
}

/* --- files and directories ---------------------------------------------------------- */

static int read_text(const char *path, char **out)
{
	struct stat st;
	char *buf;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	*out = NULL;
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		err = -errno;
		close(fd);
		return err;
	}
	if (st.st_size > CONF_MAX_FILE) {
		close(fd);
		return -EFBIG;
	}
	buf = malloc(st.st_size + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	n = read(fd, buf, st.st_size);
	err = n < 0 ? -errno : 0;
	close(fd);
	if (n < 0) {
		free(buf);
		return err;
	}
	buf[n] = 0;
	if (strlen(buf) != (size_t)n) {
		free(buf);
		return -EILSEQ;	/* a NUL byte: not a text file */
	}
	*out = buf;
	return 0;
}

static void read_one(struct conf *c, const char *path)
{
	char *text;
	int err = read_text(path, &text);

	c->nfiles++;
	if (err) {
		conf_error(c, path, 0, "cannot read: %s", err == -EILSEQ ? "not a text file" :
			 strerror(-err));
		return;
	}
	conf_parse(c, path, text);
	free(text);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int conf_read(const char *path, struct conf *c)
{
	struct dirent *de;
	struct stat st;
	char **names = NULL, file[PATH_MAX];
	int n = 0, err = 0;
	DIR *d;

	snprintf(c->path, sizeof(c->path), "%s", path);
	if (stat(path, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode)) {
		read_one(c, path);
		return 0;
	}
	c->is_dir = true;
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		char **v;

		/* *.conf, not hidden (editors' and package managers' leftovers) */
		if (de->d_name[0] == '.' || len < 6 || strcmp(de->d_name + len - 5, ".conf"))
			continue;
		v = realloc(names, (n + 1) * sizeof(*names));
		if (!v || !(v[n] = strdup(de->d_name))) {
			names = v ? v : names;
			err = -ENOMEM;
			break;
		}
		names = v;
		n++;
	}
	closedir(d);
	if (!err && n)
		qsort(names, n, sizeof(*names), cmp_str);
	for (int i = 0; i < n; i++) {
		if (!err) {
			snprintf(file, sizeof(file), "%s%s%s", path,
				 path[strlen(path) - 1] == '/' ? "" : "/", names[i]);
			read_one(c, file);
		}
		free(names[i]);
	}
	free(names);
	return err;
}
