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
		"       fusebpfctl policy NAME events on|off\n"
		"       fusebpfctl policy NAME events-rate|events-burst N\n"
		"       fusebpfctl policy NAME events-readdir on|off\n"
		"\n"
		"Print the current policy of the loaded filter NAME: its config, hidden names\n"
		"and patterns, attribute rules, allowed names and excepted users. 'policies'\n"
		"chooses what the combined filter (fusebpf) runs: a comma-separated list of\n"
		"hide, attrs, denywrite, or none. 'postfilter off' saves the postfilter runs\n"
		"that only collect statistics (latency, backing errors). 'events' turns the\n"
		"audit events of refusals and hidings on or off, 'events-rate' and\n"
		"'events-burst' bound them (per second, and at once: default %d and %d),\n"
		"'events-readdir' also reports each directory entry hidden from a listing.\n"
		"\n"
		"JSON (-j): {\"name\": S, \"config\": {\"policies\": [S], \"postfilter\": B,\n"
		"  \"hide_dotfiles\": B, \"hide_errno\": S, \"deny_errno\": S,\n"
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
		"  fusebpfctl policy ro events-rate 10\n",
		FUSEBPF_EV_RATE_DEFAULT, FUSEBPF_EV_BURST_DEFAULT);
}

struct pc_args {
	uint32_t pat_kind;
	bool mode, uid, gid;
	struct fusebpf_attr_rule rule;
};

enum { O_PREFIX = 256, O_SUFFIX, O_GLOB, O_MODE, O_UID, O_GID };

static int pc_opt(int c, const char *arg, void *ctx)
{
	struct pc_args *a = ctx;
	uint32_t id;

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
		if (policy_parse_mode(arg, &a->rule.mode_set, &a->rule.mode_clear))
			return usage_error("bad mode '%s' (e.g. +0111, -0222, =0640)", arg);
		a->mode = true;
		return 0;
	case O_UID:
	case O_GID:
		if (policy_parse_id(arg, c == O_GID, &id))
			return usage_error("bad %s '%s'", c == O_GID ? "group" : "user", arg);
		if (c == O_UID) {
			a->rule.flags |= FUSEBPF_ATTR_FORCE_UID;
			a->rule.uid = id;
		} else {
			a->rule.flags |= FUSEBPF_ATTR_FORCE_GID;
			a->rule.gid = id;
		}
		return 0;
	}
	return EXIT_USAGE;
}

static struct policy_change *push(struct policy_change **v, int *n, enum policy_op op)
{
	struct policy_vec vec = { *v, *n };
	struct policy_change *p = policy_vec_add(&vec, op, 0);

	*v = vec.v;
	*n = vec.n;
	return p;
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
	struct pc_args a = { 0 };
	struct policy_change *v = NULL, *p;
	const char *sub;
	int idx, n = 0, e, nargs;
	char **args;

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
	args = argv + idx + 2;
	nargs = argc - idx - 2;
	if (a.pat_kind && (!sub || (strcmp(sub, "add") && strcmp(sub, "del"))))
		return usage_error("--prefix, --suffix and --glob go with add and del"), PARSE_USAGE;
	if ((a.mode || a.rule.flags) && (!sub || strcmp(sub, "set")))
		return usage_error("--mode, --uid and --gid go with set"), PARSE_USAGE;

	if (!strcmp(cmd, "policy")) {
		if (!sub || !strcmp(sub, "show")) {
			if (nargs > 0)
				goto extra;
			return 0;	/* no changes: show */
		}
		if (nargs != 1)
			return usage_error("'%s' takes one value", sub), PARSE_USAGE;
		if (!strcmp(sub, "policies")) {
			uint32_t mask;

			if (policy_parse_policies(args[0], &mask))
				return usage_error("bad policy list '%s' (hide,attrs,denywrite or none)",
						   args[0]), PARSE_USAGE;
			if (!(p = push(&v, &n, POL_POLICIES)))
				goto nomem;
			p->val = mask;
		} else if (!strcmp(sub, "postfilter") || !strcmp(sub, "events") ||
			   !strcmp(sub, "events-readdir")) {
			if ((e = parse_bool(args[0])) < 0)
				return usage_error("%s on or off?", sub), PARSE_USAGE;
			if (!(p = push(&v, &n, !strcmp(sub, "postfilter") ? POL_POSTFILTER :
					       !strcmp(sub, "events") ? POL_EVENTS : POL_EV_READDIR)))
				goto nomem;
			p->val = e;
		} else if (!strcmp(sub, "events-rate") || !strcmp(sub, "events-burst")) {
			uint32_t count;

			if (policy_parse_ev_count(args[0], &count))
				return usage_error("bad %s '%s' (1 to %d)", sub, args[0], FUSEBPF_EV_MAX),
				       PARSE_USAGE;
			if (!(p = push(&v, &n, !strcmp(sub, "events-rate") ? POL_EV_RATE : POL_EV_BURST)))
				goto nomem;
			p->val = count;
		} else {
			goto badsub;
		}
		goto done;
	}
	if (!sub)
		return usage_error("what to change? (see 'fusebpfctl %s --help')", cmd), PARSE_USAGE;

	if (hide && (!strcmp(sub, "add") || !strcmp(sub, "del"))) {
		bool add = !strcmp(sub, "add");

		if (nargs < 1)
			return usage_error("%s what?", sub), PARSE_USAGE;
		for (int i = 0; i < nargs; i++) {
			struct fusebpf_pattern pat;
			struct fusebpf_name key;

			e = a.pat_kind ? policy_pattern(a.pat_kind, args[i], &pat)
				       : policy_name_key(args[i], &key);
			if (e) {
				usage_error("bad %s '%s': %s", a.pat_kind ? "pattern" : "file name",
					    args[i], strerror(-e));
				goto usage;
			}
			p = push(&v, &n, a.pat_kind ? (add ? POL_PATTERN_ADD : POL_PATTERN_DEL)
						    : (add ? POL_HIDE_ADD : POL_HIDE_DEL));
			if (!p)
				goto nomem;
			p->pat_kind = a.pat_kind;
			snprintf(p->name, sizeof(p->name), "%s", args[i]);
		}
	} else if ((hide || !strcmp(cmd, "deny")) &&
		   (!strcmp(sub, "except-uid") || !strcmp(sub, "except-gid"))) {
		bool gid = !strcmp(sub, "except-gid");
		bool add;
		uint32_t id;

		if (nargs < 2 || (strcmp(args[0], "add") && strcmp(args[0], "del")))
			return usage_error("%s add|del ID...", sub), PARSE_USAGE;
		add = !strcmp(args[0], "add");
		for (int i = 1; i < nargs; i++) {
			if (policy_parse_id(args[i], gid, &id)) {
				usage_error("bad %s '%s'", gid ? "group" : "user", args[i]);
				goto usage;
			}
			if (!(p = push(&v, &n, add ? POL_EXCEPT_ADD : POL_EXCEPT_DEL)))
				goto nomem;
			p->id_kind = gid ? FUSEBPF_EXCEPT_GID : FUSEBPF_EXCEPT_UID;
			p->val = (int)id;
			p->mask = hide ? FUSEBPF_POLICY_HIDE : FUSEBPF_POLICY_DENYWRITE;
			snprintf(p->name, sizeof(p->name), "%s %u", gid ? "gid" : "uid", id);
		}
		goto done;
	} else if (hide && !strcmp(sub, "dotfiles")) {
		if (nargs != 1 || (e = parse_bool(args[0])) < 0)
			return usage_error("dotfiles on or off?"), PARSE_USAGE;
		if (!(p = push(&v, &n, POL_DOTFILES)))
			goto nomem;
		p->val = e;
	} else if ((hide || !strcmp(cmd, "deny")) && !strcmp(sub, "errno")) {
		if (nargs != 1 || (e = parse_errno(args[0])) < 0)
			return usage_error("errno: a name like EROFS, or a number"), PARSE_USAGE;
		if (!(p = push(&v, &n, hide ? POL_HIDE_ERRNO : POL_DENY_ERRNO)))
			goto nomem;
		p->val = e;
	} else if (attrs && (!strcmp(sub, "set") || !strcmp(sub, "del"))) {
		struct fusebpf_name key;
		bool set = !strcmp(sub, "set");

		if (nargs > 1)
			goto extra;
		if (nargs == 1 && (e = policy_name_key(args[0], &key))) {
			usage_error("bad file name '%s': %s", args[0], strerror(-e));
			goto usage;
		}
		if (set && !a.mode && !a.rule.flags)
			return usage_error("set what? (--mode, --uid, --gid)"), PARSE_USAGE;
		if (!(p = push(&v, &n, set ? POL_ATTR_SET : POL_ATTR_DEL)))
			goto nomem;
		p->rule = a.rule;
		if (nargs == 1)
			snprintf(p->name, sizeof(p->name), "%s", args[0]);
	} else if (!strcmp(cmd, "deny") && (!strcmp(sub, "allow") || !strcmp(sub, "disallow"))) {
		if (nargs < 1)
			return usage_error("%s which names?", sub), PARSE_USAGE;
		for (int i = 0; i < nargs; i++) {
			struct fusebpf_name key;

			if ((e = policy_name_key(args[i], &key))) {
				usage_error("bad file name '%s': %s", args[i], strerror(-e));
				goto usage;
			}
			if (!(p = push(&v, &n, !strcmp(sub, "allow") ? POL_ALLOW_ADD : POL_ALLOW_DEL)))
				goto nomem;
			snprintf(p->name, sizeof(p->name), "%s", args[i]);
		}
	} else {
		goto badsub;
	}
	if (hide && strcmp(sub, "add") && strcmp(sub, "del") && nargs > 1)
		goto extra;
done:
	*out = v;
	*nout = n;
	return 0;
badsub:
	usage_error("unknown subcommand '%s'", sub);
	goto usage;
extra:
	usage_error("too many arguments");
	goto usage;
nomem:
	fail(ENOMEM, "%s", cmd);
usage:
	free(v);
	return PARSE_USAGE;
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
