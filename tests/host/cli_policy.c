// SPDX-License-Identifier: GPL-2.0
/* Policy parsing of fusebpfctl: names, patterns, modes, ids, the policy commands, the vocabulary. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "fusebpfctl.h"
#include "policy.h"
#include "policy_cmds.h"
#include "policy_vocab.h"
#include "tap.h"

static int t_name_keys(void)
{
	struct fusebpf_name key;
	char longname[300];
	int ret = TAP_FAIL;

	EXPECT(policy_name_key("secret.txt", &key) == 0 && !strcmp(key.name, "secret.txt"));
	/* The whole key is hashed: zero after the name. */
	for (size_t i = strlen("secret.txt"); i < sizeof(key.name); i++)
		EXPECT(key.name[i] == 0, "byte %zu", i);
	EXPECT(policy_name_key("", &key) == -EINVAL);
	EXPECT(policy_name_key("a/b", &key) == -EINVAL);
	EXPECT(policy_name_key("..", &key) == -EINVAL);
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;
	EXPECT(policy_name_key(longname, &key) == -ENAMETOOLONG);
	longname[FUSEBPF_NAME_MAX - 1] = 0;
	EXPECT(policy_name_key(longname, &key) == 0);
	ret = TAP_OK;
out:
	return ret;
}

static int t_patterns(void)
{
	struct fusebpf_pattern p;
	int ret = TAP_FAIL;

	EXPECT(policy_pattern_kind("prefix") == FUSEBPF_PAT_PREFIX);
	EXPECT(policy_pattern_kind("glob") == FUSEBPF_PAT_GLOB);
	EXPECT(policy_pattern_kind("regex") == -1);
	EXPECT(policy_pattern(FUSEBPF_PAT_SUFFIX, ".bak", &p) == 0);
	EXPECT(p.kind == FUSEBPF_PAT_SUFFIX && p.len == 4 && !strcmp(p.pat, ".bak"));
	EXPECT(policy_pattern(FUSEBPF_PAT_GLOB, "*.o", &p) == 0 && p.len == 3);
	EXPECT(policy_pattern(FUSEBPF_PAT_NONE, "x", &p) == -EINVAL);
	EXPECT(policy_pattern(FUSEBPF_PAT_PREFIX, "", &p) == -EINVAL);
	EXPECT(policy_pattern(FUSEBPF_PAT_PREFIX, "a/b", &p) == -EINVAL);
	EXPECT(policy_pattern(FUSEBPF_PAT_PREFIX,
			      "0123456789012345678901234567890123456789012345678901234567890123",
			      &p) == -ENAMETOOLONG);
	ret = TAP_OK;
out:
	return ret;
}

static int t_modes(void)
{
	uint32_t set, clear;
	int ret = TAP_FAIL;

	EXPECT(policy_parse_mode("+0111", &set, &clear) == 0 && set == 0111 && clear == 0);
	EXPECT(policy_parse_mode("-222", &set, &clear) == 0 && set == 0 && clear == 0222);
	EXPECT(policy_parse_mode("=0640", &set, &clear) == 0 && set == 0640 && clear == (07777 & ~0640u));
	EXPECT(policy_parse_mode("0640", &set, &clear) == 0 && set == 0640);
	EXPECT(policy_parse_mode("+0111,-0002", &set, &clear) == 0 && set == 0111 && clear == 02);
	EXPECT(policy_parse_mode("+0111,-0111", &set, &clear) == 0 && set == 0 && clear == 0111,
	       "the later change wins: set %o clear %o", set, clear);
	EXPECT(policy_parse_mode("", &set, &clear) == -EINVAL);
	EXPECT(policy_parse_mode("+", &set, &clear) == -EINVAL);
	EXPECT(policy_parse_mode("+0999", &set, &clear) == -EINVAL);
	EXPECT(policy_parse_mode("+17777", &set, &clear) == -EINVAL);
	EXPECT(policy_parse_mode("u+x", &set, &clear) == -EINVAL);
	EXPECT(policy_parse_mode("+0111,", &set, &clear) == -EINVAL);
	ret = TAP_OK;
out:
	return ret;
}

static int t_ids_and_lists(void)
{
	uint32_t id, mask;
	int ret = TAP_FAIL;

	EXPECT(policy_parse_id("1000", false, &id) == 0 && id == 1000);
	EXPECT(policy_parse_id("root", false, &id) == 0 && id == 0);
	EXPECT(policy_parse_id("root", true, &id) == 0 && id == 0);
	EXPECT(policy_parse_id("-1", false, &id) == -EINVAL);
	EXPECT(policy_parse_id("no-such-user-here", false, &id) == -EINVAL);
	EXPECT(policy_parse_policies("hide,denywrite", &mask) == 0 &&
	       mask == (FUSEBPF_POLICY_HIDE | FUSEBPF_POLICY_DENYWRITE));
	EXPECT(policy_parse_policies("none", &mask) == 0 && mask == 0);
	EXPECT(policy_parse_policies("hide,bogus", &mask) == -EINVAL);
	EXPECT(parse_bool("on") == 1 && parse_bool("off") == 0 && parse_bool("maybe") == -1);
	ret = TAP_OK;
out:
	return ret;
}

/* Run policy_cmd_parse on a NULL-terminated argument list. */
static int pc(const char *cmd, const char **filter, struct policy_change **v, int *n, ...)
{
	char *argv[32] = { (char *)cmd };
	int argc = 1;
	va_list ap;

	va_start(ap, n);
	while ((argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	return policy_cmd_parse(cmd, argc, argv, filter, v, n);
}

static int t_policy_commands(void)
{
	struct policy_change *v = NULL;
	const char *f = NULL;
	int ret = TAP_FAIL, n;

	EXPECT(pc("hide", &f, &v, &n, "private", "add", "a", "b", NULL) == 0 && n == 2);
	EXPECT(!strcmp(f, "private") && v[0].op == POL_HIDE_ADD && !strcmp(v[1].name, "b"));
	free(v), v = NULL;
	EXPECT(pc("hide", &f, &v, &n, "private", "del", "--suffix", ".bak", NULL) == 0 && n == 1);
	EXPECT(v[0].op == POL_PATTERN_DEL && v[0].pat_kind == FUSEBPF_PAT_SUFFIX);
	free(v), v = NULL;
	EXPECT(pc("hide", &f, &v, &n, "p", "dotfiles", "on", NULL) == 0 && n == 1 &&
	       v[0].op == POL_DOTFILES && v[0].val == 1);
	free(v), v = NULL;
	EXPECT(pc("hide", &f, &v, &n, "p", "errno", "EPERM", NULL) == 0 && v[0].op == POL_HIDE_ERRNO &&
	       v[0].val == EPERM);
	free(v), v = NULL;
	EXPECT(pc("attrs", &f, &v, &n, "p", "set", "--mode", "-0222", "--uid", "0", NULL) == 0 && n == 1);
	EXPECT(v[0].op == POL_ATTR_SET && !v[0].name[0] && v[0].rule.mode_clear == 0222 &&
	       v[0].rule.flags == FUSEBPF_ATTR_FORCE_UID);
	free(v), v = NULL;
	EXPECT(pc("attrs", &f, &v, &n, "p", "set", "run.sh", "--mode", "+0111", NULL) == 0 &&
	       !strcmp(v[0].name, "run.sh"));
	free(v), v = NULL;
	EXPECT(pc("attrs", &f, &v, &n, "p", "del", NULL) == 0 && v[0].op == POL_ATTR_DEL);
	free(v), v = NULL;
	EXPECT(pc("deny", &f, &v, &n, "ro", "allow", "x", "y", NULL) == 0 && n == 2 &&
	       v[1].op == POL_ALLOW_ADD);
	free(v), v = NULL;
	EXPECT(pc("deny", &f, &v, &n, "ro", "errno", "EACCES", NULL) == 0 && v[0].op == POL_DENY_ERRNO);
	free(v), v = NULL;
	EXPECT(pc("policy", &f, &v, &n, "ro", NULL) == 0 && n == 0, "show");
	EXPECT(pc("policy", &f, &v, &n, "ro", "policies", "hide,attrs", NULL) == 0 && n == 1 &&
	       v[0].op == POL_POLICIES);
	free(v), v = NULL;
	EXPECT(pc("policy", &f, &v, &n, "ro", "postfilter", "off", NULL) == 0 && v[0].val == 0);
	free(v), v = NULL;
	EXPECT(pc("policy", &f, &v, &n, "ro", "enforce", "off", NULL) == 0 && n == 1 &&
	       v[0].op == POL_ENFORCE && v[0].val == 0);
	free(v), v = NULL;
	EXPECT(pc("policy", &f, &v, &n, "ro", "enforce", "on", NULL) == 0 && v[0].val == 1);
	free(v), v = NULL;
	EXPECT(pc("policy", &f, &v, &n, "ro", "enforce", "maybe", NULL) == PARSE_USAGE);
	/* Usage errors. */
	EXPECT(pc("hide", &f, &v, &n, NULL) == PARSE_USAGE);
	EXPECT(pc("hide", &f, &v, &n, "p", NULL) == PARSE_USAGE);
	EXPECT(pc("hide", &f, &v, &n, "p", "add", NULL) == PARSE_USAGE);
	EXPECT(pc("hide", &f, &v, &n, "p", "add", "a/b", NULL) == PARSE_USAGE);
	EXPECT(pc("hide", &f, &v, &n, "p", "dotfiles", "sometimes", NULL) == PARSE_USAGE);
	EXPECT(pc("hide", &f, &v, &n, "p", "dotfiles", "--glob", "on", NULL) == PARSE_USAGE);
	EXPECT(pc("hide", &f, &v, &n, "p", "frob", NULL) == PARSE_USAGE);
	EXPECT(pc("attrs", &f, &v, &n, "p", "set", NULL) == PARSE_USAGE, "set nothing");
	EXPECT(pc("attrs", &f, &v, &n, "p", "set", "--mode", "u+x", NULL) == PARSE_USAGE);
	EXPECT(pc("attrs", &f, &v, &n, "p", "del", "--uid", "0", NULL) == PARSE_USAGE);
	EXPECT(pc("deny", &f, &v, &n, "p", "errno", "EWHAT", NULL) == PARSE_USAGE);
	EXPECT(pc("deny", &f, &v, &n, "p", "allow", NULL) == PARSE_USAGE);
	EXPECT(pc("policy", &f, &v, &n, "p", "policies", "all", NULL) == PARSE_USAGE);
	EXPECT(pc("policy", &f, &v, &n, "p", "show", "x", NULL) == PARSE_USAGE);
	EXPECT(pc("hide", &f, &v, &n, "--help", NULL) == PARSE_HELP);
	ret = TAP_OK;
out:
	free(v);
	return ret;
}

/* Issue 13: exceptions and the events knobs. */
static int t_except_and_events(void)
{
	struct policy_change *v = NULL;
	const char *f = NULL;
	uint32_t c;
	int ret = TAP_FAIL, n;

	EXPECT(pc("hide", &f, &v, &n, "p", "except-uid", "add", "1000", "0", NULL) == 0 && n == 2);
	EXPECT(v[0].op == POL_EXCEPT_ADD && v[0].id_kind == FUSEBPF_EXCEPT_UID && v[0].val == 1000 &&
	       v[0].mask == FUSEBPF_POLICY_HIDE && !strcmp(v[0].name, "uid 1000"));
	EXPECT(v[1].val == 0);
	free(v), v = NULL;
	EXPECT(pc("deny", &f, &v, &n, "ro", "except-gid", "del", "root", NULL) == 0 && n == 1);
	EXPECT(v[0].op == POL_EXCEPT_DEL && v[0].id_kind == FUSEBPF_EXCEPT_GID && v[0].val == 0 &&
	       v[0].mask == FUSEBPF_POLICY_DENYWRITE && !strcmp(v[0].name, "gid 0"));
	free(v), v = NULL;
	EXPECT(pc("policy", &f, &v, &n, "p", "events", "off", NULL) == 0 && v[0].op == POL_EVENTS &&
	       v[0].val == 0);
	free(v), v = NULL;
	EXPECT(pc("policy", &f, &v, &n, "p", "events-readdir", "on", NULL) == 0 &&
	       v[0].op == POL_EV_READDIR && v[0].val == 1);
	free(v), v = NULL;
	EXPECT(pc("policy", &f, &v, &n, "p", "events-rate", "25", NULL) == 0 && v[0].op == POL_EV_RATE &&
	       v[0].val == 25);
	free(v), v = NULL;
	EXPECT(pc("policy", &f, &v, &n, "p", "events-burst", "1000000", NULL) == 0 &&
	       v[0].op == POL_EV_BURST && v[0].val == FUSEBPF_EV_MAX);
	free(v), v = NULL;
	EXPECT(pc("hide", &f, &v, &n, "p", "except-uid", "add", NULL) == PARSE_USAGE);
	EXPECT(pc("hide", &f, &v, &n, "p", "except-uid", "1000", NULL) == PARSE_USAGE);
	EXPECT(pc("deny", &f, &v, &n, "p", "except-uid", "add", "no such user", NULL) == PARSE_USAGE);
	EXPECT(pc("attrs", &f, &v, &n, "p", "except-uid", "add", "1", NULL) == PARSE_USAGE);
	EXPECT(pc("policy", &f, &v, &n, "p", "events-rate", "0", NULL) == PARSE_USAGE);
	EXPECT(pc("policy", &f, &v, &n, "p", "events", "sometimes", NULL) == PARSE_USAGE);
	EXPECT(policy_parse_ev_count("1", &c) == 0 && c == 1);
	EXPECT(policy_parse_ev_count("1000001", &c) == -EINVAL);
	EXPECT(policy_parse_ev_count("-5", &c) == -EINVAL);
	EXPECT(policy_parse_ev_count("5x", &c) == -EINVAL);
	EXPECT(policy_parse_ev_count("", &c) == -EINVAL);
	EXPECT(policy_parse_ev_count("99999999999999999999", &c) == -EINVAL);
	ret = TAP_OK;
out:
	free(v);
	return ret;
}

static bool same_change(const struct policy_change *a, const struct policy_change *b)
{
	return a->op == b->op && a->pat_kind == b->pat_kind && !strcmp(a->name, b->name) &&
	       a->val == b->val && a->id_kind == b->id_kind && a->mask == b->mask &&
	       !memcmp(&a->rule, &b->rule, sizeof(a->rule));
}

/*
 * One vocabulary: a configuration line and the policy command that sets the
 * same thing make the same change, and every key of the table parses.
 */
static int t_one_vocabulary(void)
{
	static const struct {
		const char *line;	/* in a [x] section of a fusebpf filter */
		const char *cmd, *args[6];
	} same[] = {
		{ "hide = a.txt", "hide", { "x", "add", "a.txt" } },
		{ "hide-suffix = .bak", "hide", { "x", "add", "--suffix", ".bak" } },
		{ "hide-errno = EPERM", "hide", { "x", "errno", "EPERM" } },
		{ "hide-except-uid = 1000", "hide", { "x", "except-uid", "add", "1000" } },
		{ "deny-except-gid = 0", "deny", { "x", "except-gid", "add", "0" } },
		{ "deny-errno = EACCES", "deny", { "x", "errno", "EACCES" } },
		{ "allow = scratch", "deny", { "x", "allow", "scratch" } },
		{ "policies = hide,denywrite", "policy", { "x", "policies", "hide,denywrite" } },
		{ "events-rate = 25", "policy", { "x", "events-rate", "25" } },
		{ "events-readdir = yes", "policy", { "x", "events-readdir", "on" } },
	};
	struct policy_change *v = NULL, c;
	struct conf cf = { .quiet = true };
	const struct conf_filter *f;
	char text[256], why[256];
	int ret = TAP_FAIL, n;
	const char *filter;

	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		char *argv[8] = { (char *)same[i].cmd };
		int argc = 1;
		bool found = false;

		while (argc < 7 && same[i].args[argc - 1])
			argv[argc] = (char *)same[i].args[argc - 1], argc++;
		EXPECT(policy_cmd_parse(same[i].cmd, argc, argv, &filter, &v, &n) == 0 && n == 1,
		       "%s", same[i].line);
		memset(&cf, 0, sizeof(cf));
		cf.quiet = true;
		snprintf(text, sizeof(text), "[x]\nfilter = fusebpf\n%s\n", same[i].line);
		conf_parse(&cf, "t.conf", text);
		EXPECT(cf.nerrors == 0 && (f = conf_find(&cf, "x")), "%s", cf.first_error);
		for (int j = 0; j < f->nset; j++)
			found |= same_change(&f->set[j], &v[0]);
		EXPECT(found, "'%s' and the %s command differ", same[i].line, same[i].cmd);
		conf_free(&cf);
		free(v);
		v = NULL;
	}
	for (size_t i = 0; i < policy_nkeys; i++) {
		const struct policy_key *k = &policy_keys[i];
		const char *val = k->value == PV_NAME ? "n" : k->value == PV_BOOL ? "on" :
				  k->value == PV_ERRNO ? "EROFS" : k->value == PV_MODE ? "+0111" :
				  k->value == PV_POLICIES ? "hide" : "1";

		EXPECT(policy_key_find(k->key) == k && k->maps, "%s", k->key);
		EXPECT(policy_key_value(k, k->key, val, SYNTAX_CLI, &c, why, sizeof(why)) == 0 &&
		       c.op == k->op, "%s = %s: %s", k->key, val, why);
	}
	ret = TAP_OK;
out:
	conf_free(&cf);
	free(v);
	return ret;
}

static const struct tap_case cases[] = {
	{ "except_and_events_commands", t_except_and_events },
	{ "name_keys", t_name_keys },
	{ "hide_patterns", t_patterns },
	{ "mode_specs", t_modes },
	{ "ids_and_policy_lists", t_ids_and_lists },
	{ "policy_commands", t_policy_commands },
	{ "one_vocabulary", t_one_vocabulary },
};

TAP_MAIN("cli_policy", cases)
