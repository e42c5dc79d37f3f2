// SPDX-License-Identifier: GPL-2.0
/*
 * The policy commands of the built-in filters, live on the pinned maps:
 *
 *   fusebpfctl hide NAME add|del [--prefix|--suffix|--glob] PATTERN...
 *   fusebpfctl hide NAME dotfiles on|off
 *   fusebpfctl hide NAME errno ERRNO
 *   fusebpfctl hide|deny NAME except-uid|except-gid add|del ID...
 *   fusebpfctl attrs NAME set [FILE] [--mode SPEC] [--uid ID] [--gid ID]
 *   fusebpfctl attrs NAME del [FILE]
 *   fusebpfctl deny NAME errno ERRNO
 *   fusebpfctl deny NAME allow|disallow FILE...
 *   fusebpfctl policy NAME [show]
 *   fusebpfctl policy NAME policies LIST
 *   fusebpfctl policy NAME postfilter on|off
 *   fusebpfctl policy NAME events on|off
 *   fusebpfctl policy NAME events-rate|events-burst N
 *   fusebpfctl policy NAME events-readdir on|off
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"
#include "fusebpfctl.h"
#include "json.h"
#include "policy.h"
#include "policy_cmds.h"
#include "policy_vocab.h"

void help_hide(FILE *out)
{
	fprintf(out,
		"Usage: fusebpfctl hide NAME add|del [--prefix|--suffix|--glob] PATTERN...\n"
		"       fusebpfctl hide NAME dotfiles on|off\n"
		"       fusebpfctl hide NAME errno ERRNO\n"
		"       fusebpfctl hide NAME except-uid|except-gid add|del ID...\n"
		"\n"
		"Change the hide policy of the loaded filter NAME (hide or fusebpf), live.\n"
		"PATTERNs are exact file names unless --prefix, --suffix or --glob ('*', '?')\n"
		"is given (at most %d patterns). A hidden name is missing from lookups and\n"
		"listings; creating it fails with ERRNO (default EACCES). Callers whose real\n"
		"uid or gid is excepted (ID: a number or a name) see every name.\n"
		"\n"
		"EXAMPLES\n"
		"  fusebpfctl hide private add secret.txt notes.md\n"
		"  fusebpfctl hide private add --suffix .bak\n"
		"  fusebpfctl hide private dotfiles on\n"
		"  fusebpfctl hide private except-uid add alice\n",
		FUSEBPF_HIDE_PATTERNS_MAX);
}

void help_attrs(FILE *out)
{
	fprintf(out,
		"Usage: fusebpfctl attrs NAME set [FILE] [--mode SPEC] [--uid ID] [--gid ID]\n"
		"       fusebpfctl attrs NAME del [FILE]\n"
		"\n"
		"Set or remove the attribute rule for FILE (a file name), or without FILE the\n"
		"rule for every name, of the loaded filter NAME (attrs or fusebpf), live. SPEC:\n"
		"comma-separated +BITS (set), -BITS (clear), =BITS (exactly), octal permission\n"
		"bits. ID: a number or a name. The backing files never change.\n"
		"\n"
		"EXAMPLES\n"
		"  fusebpfctl attrs shown set --mode -0222           # everything read-only\n"
		"  fusebpfctl attrs shown set run.sh --mode +0111 --uid 0\n"
		"  fusebpfctl attrs shown del run.sh\n");
}

void help_deny(FILE *out)
{
	fprintf(out,
		"Usage: fusebpfctl deny NAME errno ERRNO\n"
		"       fusebpfctl deny NAME allow|disallow FILE...\n"
		"       fusebpfctl deny NAME except-uid|except-gid add|del ID...\n"
		"\n"
		"Change the denywrite policy of the loaded filter NAME (denywrite or fusebpf),\n"
		"live: the errno of denied writes (EROFS, EACCES or EPERM), file names that\n"
		"may still be created, removed and renamed, and the users and groups (real uid\n"
		"or gid; ID: a number or a name) who may still write.\n"
		"\n"
		"EXAMPLES\n"
		"  fusebpfctl deny ro errno EACCES\n"
		"  fusebpfctl deny ro allow scratch.txt\n"
		"  fusebpfctl deny ro except-uid add 1000\n");
}

void help_policy(FILE *out)
{
	fprintf(out,
		"Usage: fusebpfctl policy NAME [show]\n"
		"       fusebpfctl policy NAME policies LIST\n"
		"       fusebpfctl policy NAME postfilter on|off\n"
		"       fusebpfctl policy NAME enforce on|off\n"
		"       fusebpfctl policy NAME events on|off\n"
		"       fusebpfctl policy NAME events-rate|events-burst N\n"
		"       fusebpfctl policy NAME events-readdir on|off\n"
		"\n"
		"Print the current policy of the loaded filter NAME: its config, hidden names\n"
		"and patterns, attribute rules, allowed names and excepted users. 'policies'\n"
		"chooses what the combined filter (fusebpf) runs: a comma-separated list of\n"
		"hide, attrs, denywrite, or none. 'postfilter off' saves the postfilter runs\n"
		"that only collect statistics (latency, backing errors). 'enforce off' puts\n"
		"the hide and denywrite policies in audit mode: nothing is refused or hidden,\n"
		"and what would have been is reported as would-deny and would-hide events\n"
		"and counted in stats (WOULD_DENY, WOULD_HIDE); 'enforce on' enforces again.\n"
		"'events' turns the audit events of refusals and hidings on or off,\n"
		"'events-rate' and 'events-burst' bound them (per second, and at once:\n"
		"default %d and %d), 'events-readdir' also reports each directory entry\n"
		"hidden from a listing.\n"
		"\n"
		"JSON (-j): {\"name\": S, \"config\": {\"policies\": [S], \"postfilter\": B,\n"
		"  \"enforce\": B, \"hide_dotfiles\": B, \"hide_errno\": S, \"deny_errno\": S,\n"
		"  \"events\": {\"enabled\": B, \"rate\": N, \"burst\": N, \"readdir\": B} | null} | null,\n"
		"  \"hide\": {\"names\": [S], \"patterns\": [{\"kind\": S, \"pattern\": S}]} | null,\n"
		"  \"attrs\": [{\"name\": S|null, \"mode_set\": S, \"mode_clear\": S,\n"
		"             \"uid\": N|null, \"gid\": N|null}] | null,\n"
		"  \"deny\": {\"allow\": [S]} | null,\n"
		"  \"except\": [{\"kind\": \"uid\"|\"gid\", \"id\": N, \"policies\": [S]}] | null}\n"
		"(null: the filter has no such policy)\n"
		"\n"
		"EXAMPLES\n"
		"  fusebpfctl policy private\n"
		"  fusebpfctl -j policy private\n"
		"  fusebpfctl policy combo policies hide,denywrite\n"
		"  fusebpfctl policy ro events-rate 10\n"
		"  fusebpfctl policy private enforce off\n",
		FUSEBPF_EV_RATE_DEFAULT, FUSEBPF_EV_BURST_DEFAULT);
}

struct pc_args {
	uint32_t pat_kind;
	bool mode;
	struct fusebpf_attr_rule rule;
};

enum { O_PREFIX = 256, O_SUFFIX, O_GLOB, O_MODE, O_UID, O_GID };

/* --mode, --uid, --gid: the vocabulary's keys of the same names. */
static int pc_rule_opt(struct pc_args *a, const char *key, const char *arg)
{
	const struct policy_key *k = policy_key_find(key);
	struct policy_change c;
	char why[512];

	if (policy_key_value(k, key, arg, SYNTAX_CLI, &c, why, sizeof(why)))
		return usage_error("%s", why);
	policy_rule_merge(k, &a->rule, &c.rule);
	a->mode |= k->value == PV_MODE;
	return 0;
}

static int pc_opt(int c, const char *arg, void *ctx)
{
	struct pc_args *a = ctx;

	switch (c) {
	case O_PREFIX:
	case O_SUFFIX:
	case O_GLOB:
		if (a->pat_kind)
			return usage_error("one of --prefix, --suffix, --glob");
		a->pat_kind = c == O_PREFIX ? FUSEBPF_PAT_PREFIX :
			      c == O_SUFFIX ? FUSEBPF_PAT_SUFFIX : FUSEBPF_PAT_GLOB;
		return 0;
	case O_MODE:
		return pc_rule_opt(a, "mode", arg);
	case O_UID:
		return pc_rule_opt(a, "uid", arg);
	case O_GID:
		return pc_rule_opt(a, "gid", arg);
	}
	return EXIT_USAGE;
}

/* What a subcommand takes after it. */
enum pc_form {
	PC_ONE,		/* one value of key */
	PC_LIST,	/* values of key (hide: a pattern key with --prefix, ...) */
	PC_IDS,		/* add|del ID... */
	PC_RULE,	/* attrs: [FILE], the rule from --mode, --uid, --gid */
};

/* The subcommands of hide, attrs, deny and policy, as keys of the vocabulary. */
static const struct pc_sub {
	const char *cmd, *sub, *key;
	enum pc_form form;
	bool del;		/* removes what key adds */
	const char *count_usage;	/* the usage error for a wrong count of values */
} pc_subs[] = {
	{ "hide", "add", "hide", PC_LIST, false, "%s what?" },
	{ "hide", "del", "hide", PC_LIST, true, "%s what?" },
	{ "hide", "dotfiles", "hide-dotfiles", PC_ONE, false, "dotfiles on or off?" },
	{ "hide", "errno", "hide-errno", PC_ONE, false, "errno: a name like EROFS, or a number" },
	{ "hide", "except-uid", "hide-except-uid", PC_IDS, false, "%s add|del ID..." },
	{ "hide", "except-gid", "hide-except-gid", PC_IDS, false, "%s add|del ID..." },
	{ "attrs", "set", NULL, PC_RULE, false, NULL },
	{ "attrs", "del", NULL, PC_RULE, true, NULL },
	{ "deny", "errno", "deny-errno", PC_ONE, false, "errno: a name like EROFS, or a number" },
	{ "deny", "allow", "allow", PC_LIST, false, "%s which names?" },
	{ "deny", "disallow", "allow", PC_LIST, true, "%s which names?" },
	{ "deny", "except-uid", "deny-except-uid", PC_IDS, false, "%s add|del ID..." },
	{ "deny", "except-gid", "deny-except-gid", PC_IDS, false, "%s add|del ID..." },
	{ "policy", "policies", "policies", PC_ONE, false, "'%s' takes one value" },
	{ "policy", "postfilter", "postfilter", PC_ONE, false, "'%s' takes one value" },
	{ "policy", "enforce", "enforce", PC_ONE, false, "'%s' takes one value" },
	{ "policy", "events", "events", PC_ONE, false, "'%s' takes one value" },
	{ "policy", "events-readdir", "events-readdir", PC_ONE, false, "'%s' takes one value" },
	{ "policy", "events-rate", "events-rate", PC_ONE, false, "'%s' takes one value" },
	{ "policy", "events-burst", "events-burst", PC_ONE, false, "'%s' takes one value" },
};

static const struct pc_sub *pc_find(const char *cmd, const char *sub)
{
	for (size_t i = 0; i < sizeof(pc_subs) / sizeof(pc_subs[0]); i++)
		if (!strcmp(pc_subs[i].cmd, cmd) && !strcmp(pc_subs[i].sub, sub))
			return &pc_subs[i];
	return NULL;
}

/* Values of the subcommand's key into v; 0, or PARSE_USAGE with the message printed. */
static int pc_values(const struct pc_sub *s, uint32_t pat_kind, char **args, int nargs,
		     struct policy_vec *v)
{
	static const char *const pattern_keys[] = {
		[FUSEBPF_PAT_PREFIX] = "hide-prefix",
		[FUSEBPF_PAT_SUFFIX] = "hide-suffix",
		[FUSEBPF_PAT_GLOB] = "hide-glob",
	};
	const struct policy_key *k = policy_key_find(pat_kind ? pattern_keys[pat_kind] : s->key);
	struct policy_change c, *p;
	char why[512];

	for (int i = 0; i < nargs; i++) {
		if (policy_key_value(k, s->sub, args[i], SYNTAX_CLI, &c, why, sizeof(why)))
			return usage_error("%s", why), PARSE_USAGE;
		if (s->del)
			c.op = policy_op_del(c.op);
		if (!(p = policy_vec_add(v, c.op, 0)))
			return fail(ENOMEM, "%s", s->cmd), PARSE_USAGE;
		*p = c;
	}
	return 0;
}

/* attrs set|del [FILE]: the rule of FILE, or of every name. */
static int pc_rule(const struct pc_sub *s, const struct pc_args *a, char **args, int nargs,
		   struct policy_vec *v)
{
	struct policy_change *p;
	struct fusebpf_name key;
	int e;

	if (nargs > 1)
		return usage_error("too many arguments"), PARSE_USAGE;
	if (nargs == 1 && (e = policy_name_key(args[0], &key)))
		return usage_error("bad file name '%s': %s", args[0], strerror(-e)), PARSE_USAGE;
	if (!s->del && !a->mode && !a->rule.flags)
		return usage_error("set what? (--mode, --uid, --gid)"), PARSE_USAGE;
	if (!(p = policy_vec_add(v, s->del ? POL_ATTR_DEL : POL_ATTR_SET, 0)))
		return fail(ENOMEM, "%s", s->cmd), PARSE_USAGE;
	p->rule = a->rule;
	if (nargs == 1)
		snprintf(p->name, sizeof(p->name), "%s", args[0]);
	return 0;
}

/* SUB ARGS of cmd into v; 0, or PARSE_USAGE with the message printed. */
static int pc_sub_parse(const char *cmd, const struct pc_args *a, const char *sub, char **args,
			int nargs, struct policy_vec *v)
{
	const struct pc_sub *s = pc_find(cmd, sub);
	struct pc_sub del;

	if (!s)
		return usage_error("unknown subcommand '%s'", sub), PARSE_USAGE;
	switch (s->form) {
	case PC_ONE:
		if (nargs != 1)
			return usage_error(s->count_usage, sub), PARSE_USAGE;
		return pc_values(s, 0, args, 1, v);
	case PC_LIST:
		if (nargs < 1)
			return usage_error(s->count_usage, sub), PARSE_USAGE;
		return pc_values(s, a->pat_kind, args, nargs, v);
	case PC_IDS:
		if (nargs < 2 || (strcmp(args[0], "add") && strcmp(args[0], "del")))
			return usage_error(s->count_usage, sub), PARSE_USAGE;
		del = *s;
		del.del = !strcmp(args[0], "del");
		return pc_values(&del, 0, args + 1, nargs - 1, v);
	case PC_RULE:
		return pc_rule(s, a, args, nargs, v);
	}
	return PARSE_USAGE;
}

int policy_cmd_parse(const char *cmd, int argc, char **argv, const char **filter,
		     struct policy_change **out, int *nout)
{
	static const struct option hide_opts[] = {
		{ "prefix", no_argument, NULL, O_PREFIX },
		{ "suffix", no_argument, NULL, O_SUFFIX },
		{ "glob", no_argument, NULL, O_GLOB },
		{ 0 },
	};
	static const struct option attrs_opts[] = {
		{ "mode", required_argument, NULL, O_MODE },
		{ "uid", required_argument, NULL, O_UID },
		{ "gid", required_argument, NULL, O_GID },
		{ 0 },
	};
	bool hide = !strcmp(cmd, "hide"), attrs = !strcmp(cmd, "attrs");
	void (*help)(FILE *) = hide ? help_hide : attrs ? help_attrs :
			       !strcmp(cmd, "deny") ? help_deny : help_policy;
	struct policy_vec v = { 0 };
	struct pc_args a = { 0 };
	const char *sub;
	int idx, err;

	*out = NULL;
	*nout = 0;
	idx = parse_cmd_opts(argc, argv, "", hide ? hide_opts : attrs ? attrs_opts : NULL, pc_opt,
			     &a, help);
	if (idx < 0)
		return idx;
	if (argc - idx < 1)
		return usage_error("which filter NAME?"), PARSE_USAGE;
	*filter = argv[idx];
	sub = argc - idx >= 2 ? argv[idx + 1] : NULL;
	if (a.pat_kind && (!sub || (strcmp(sub, "add") && strcmp(sub, "del"))))
		return usage_error("--prefix, --suffix and --glob go with add and del"), PARSE_USAGE;
	if ((a.mode || a.rule.flags) && (!sub || strcmp(sub, "set")))
		return usage_error("--mode, --uid and --gid go with set"), PARSE_USAGE;
	if (!strcmp(cmd, "policy") && (!sub || !strcmp(sub, "show")))
		return argc - idx > 2 ? usage_error("too many arguments"), PARSE_USAGE : 0;
	if (!sub)
		return usage_error("what to change? (see 'fusebpfctl %s --help')", cmd), PARSE_USAGE;
	err = pc_sub_parse(cmd, &a, sub, argv + idx + 2, argc - idx - 2, &v);
	if (err) {
		free(v.v);
		return err;
	}
	*out = v.v;
	*nout = v.n;
	return 0;
}

static int run_policy_cmd(const char *cmd, int argc, char **argv)
{
	struct policy_change *changes = NULL;
	const char *filter = NULL;
	json_object *p = NULL;
	int n, err, ret = EXIT_FAIL, lock = -1;

	err = policy_cmd_parse(cmd, argc, argv, &filter, &changes, &n);
	if (err == PARSE_HELP)
		return EXIT_OK;
	if (err)
		return EXIT_USAGE;
	if (!valid_filter_name(filter) || !filter_loaded(filter)) {
		ret = fail(ENOENT, "%s %s: no such filter loaded", cmd, filter);
		goto out;
	}
	if (n == 0) {	/* show */
		err = policy_read(filter, &p);
		if (err) {
			ret = fail(-err, "policy %s", filter);
			goto out;
		}
		if (opts.json)
			json_print(p);
		else
			policy_print_plain(p);
		ret = EXIT_OK;
		goto out;
	}
	lock = state_lock();
	if (lock < 0) {
		ret = fail(-lock, "lock %s/lock", opts.state_dir);
		goto out;
	}
	if (policy_apply_all(filter, changes, n) == 0)
		ret = EXIT_OK;
out:
	state_unlock(lock);
	json_object_put(p);
	free(changes);
	return ret;
}

int do_hide(int argc, char **argv)
{
	return run_policy_cmd("hide", argc, argv);
}

int do_attrs(int argc, char **argv)
{
	return run_policy_cmd("attrs", argc, argv);
}

int do_deny(int argc, char **argv)
{
	return run_policy_cmd("deny", argc, argv);
}

int do_policy(int argc, char **argv)
{
	return run_policy_cmd("policy", argc, argv);
}
