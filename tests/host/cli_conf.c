// SPDX-License-Identifier: GPL-2.0
/*
 * The configuration files of fusebpfctl apply (cli/conf.c): parsing, the
 * errors with FILE:LINE, the canonical policy, the difference between two
 * policies and how a change is printed. No kernel.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apply.h"
#include "conf.h"
#include "policy_diff.h"
#include "fusebpfctl.h"
#include "tap.h"

static const struct policy_change *find(const struct conf_filter *f, enum policy_op op,
					const char *name)
{
	for (int i = 0; i < f->nset; i++)
		if (f->set[i].op == op && (!name || !strcmp(f->set[i].name, name)))
			return &f->set[i];
	return NULL;
}

static int count(const struct conf_filter *f, enum policy_op op)
{
	int n = 0;

	for (int i = 0; i < f->nset; i++)
		n += f->set[i].op == op;
	return n;
}

static int t_parse_good(void)
{
	static const char text[] =
		"# a comment\n"
		"; another\n"
		"[private]\n"
		"  filter = hide  \n"
		"hide = secret.txt \"a b.txt\" \"q\\\"uote\"\n"
		"hide = secret.txt\n"
		"hide-suffix = .bak\n"
		"hide-glob = *.tmp\n"
		"hide-dotfiles = yes\n"
		"\n"
		"[shown]\r\n"
		"filter = fusebpf\n"
		"policies = hide,denywrite\n"
		"mode = -0222\n"
		"uid = 0\n"
		"rule = run.sh mode=+0111 gid=0\n"
		"allow = scratch\n"
		"deny-errno = EACCES\n"
		"postfilter = off\n"
		"[mine]\n"
		"filter = objs/my.bpf.o\n";
	struct conf c = { .quiet = true };
	const struct policy_change *p;
	struct conf_filter *f;
	int ret = TAP_FAIL;

	conf_parse(&c, "/etc/fusebpf/filters.d/x.conf", text);
	EXPECT(c.nerrors == 0, "%s", c.first_error);
	EXPECT(c.n == 3);
	f = conf_find(&c, "private");
	EXPECT(f && !strcmp(f->kind, "hide") && !strcmp(f->filter, "hide") && f->line == 3);
	EXPECT(count(f, POL_HIDE_ADD) == 3, "a repeated name counts once");
	EXPECT(find(f, POL_HIDE_ADD, "a b.txt") && find(f, POL_HIDE_ADD, "q\"uote"));
	EXPECT((p = find(f, POL_PATTERN_ADD, ".bak")) && p->pat_kind == FUSEBPF_PAT_SUFFIX);
	EXPECT((p = find(f, POL_PATTERN_ADD, "*.tmp")) && p->pat_kind == FUSEBPF_PAT_GLOB);
	EXPECT((p = find(f, POL_DOTFILES, NULL)) && p->val == 1);
	/* The defaults of what the file leaves out: a whole policy. */
	EXPECT((p = find(f, POL_HIDE_ERRNO, NULL)) && p->val == EACCES);
	EXPECT((p = find(f, POL_POLICIES, NULL)) && p->val == FUSEBPF_POLICY_HIDE);
	/* A policy filter times nothing unless told (builtin_postfilter()) */
	EXPECT((p = find(f, POL_POSTFILTER, NULL)) && p->val == 0);
	EXPECT(!find(f, POL_DENY_ERRNO, NULL), "hide has no denywrite policy");

	f = conf_find(&c, "shown");
	EXPECT(f && !strcmp(f->kind, "fusebpf"));
	EXPECT((p = find(f, POL_POLICIES, NULL)) &&
	       p->val == (FUSEBPF_POLICY_HIDE | FUSEBPF_POLICY_DENYWRITE));
	EXPECT((p = find(f, POL_ATTR_SET, "")) && p->rule.mode_clear == 0222 && !p->rule.mode_set &&
	       p->rule.flags == FUSEBPF_ATTR_FORCE_UID && p->rule.uid == 0);
	EXPECT((p = find(f, POL_ATTR_SET, "run.sh")) && p->rule.mode_set == 0111 &&
	       p->rule.flags == FUSEBPF_ATTR_FORCE_GID);
	EXPECT(find(f, POL_ALLOW_ADD, "scratch"));
	EXPECT((p = find(f, POL_DENY_ERRNO, NULL)) && p->val == EACCES);
	EXPECT((p = find(f, POL_POSTFILTER, NULL)) && p->val == 0);
	EXPECT((p = find(f, POL_DOTFILES, NULL)) && p->val == 0);

	/* A relative object path is the file's directory's; its maps come later. */
	f = conf_find(&c, "mine");
	EXPECT(f && !strcmp(f->kind, "file") &&
	       !strcmp(f->filter, "/etc/fusebpf/filters.d/objs/my.bpf.o"), "%s", f ? f->filter : "");
	EXPECT(f->nset == 0);
	ret = TAP_OK;
out:
	conf_free(&c);
	return ret;
}

static int t_parse_errors(void)
{
	static const struct {
		const char *text, *error;
	} bad[] = {
		{ "hide = x\n", "f.conf:1: 'hide' outside a [NAME] section" },
		{ "[a b]\nfilter = hide\n", "f.conf:1: bad filter name 'a b'" },
		{ "[x\n", "f.conf:1: a section is [NAME] alone on its line" },
		{ "[x]\nhide = y\n", "f.conf:1: [x] has no 'filter ='" },
		{ "[x]\nfilter = hid\n", "f.conf:2: unknown filter 'hid'" },
		{ "[x]\nfilter = hide\nfilter = attrs\n", "f.conf:3: 'filter' given twice in [x] (first on line 2)" },
		{ "[x]\nfilter = hide\nfrob = 1\n", "f.conf:3: unknown key 'frob'" },
		{ "[x]\nfilter = hide\njust words\n", "f.conf:3: expected 'key = value'" },
		{ "[x]\nfilter = hide\nhide =\n", "f.conf:3: 'hide' needs a value" },
		{ "[x]\nfilter = hide\nhide = a/b\n", "f.conf:3: bad file name 'a/b'" },
		{ "[x]\nfilter = hide\nhide = \"open\n", "f.conf:3: 'hide': an unterminated quote" },
		{ "[x]\nfilter = hide\nhide-dotfiles = maybe\n", "f.conf:3: hide-dotfiles = yes or no" },
		{ "[x]\nfilter = hide\nhide-errno = EWHAT\n", "f.conf:3: bad errno 'EWHAT'" },
		{ "[x]\nfilter = hide\nhide-errno = EPERM EIO\n", "f.conf:3: 'hide-errno' takes one value" },
		{ "[x]\nfilter = hide\n\nmode = +0111\n", "f.conf:4: filter 'x' (hide) has no attrs policy" },
		{ "[x]\nfilter = attrs\nmode = u+x\n", "f.conf:3: bad mode 'u+x'" },
		{ "[x]\nfilter = attrs\nuid = nosuchuser-fusebpf\n", "f.conf:3: bad user 'nosuchuser-fusebpf'" },
		{ "[x]\nfilter = attrs\nrule = a.sh\n", "f.conf:3: rule = FILE mode=SPEC" },
		{ "[x]\nfilter = attrs\nrule = a.sh size=1\n", "f.conf:3: unknown rule setting 'size'" },
		{ "[x]\nfilter = attrs\nrule = a.sh uid=0\nrule = a.sh gid=0\n", "f.conf:4: a second rule for 'a.sh'" },
		{ "[x]\nfilter = attrs\npolicies = hide\n", "f.conf:3: 'policies' is for the combined filter" },
		{ "[x]\nfilter = fusebpf\npolicies = all\n", "f.conf:3: bad policy list 'all'" },
		{ "[x]\nfilter = denywrite\nhide = a\n", "f.conf:3: filter 'x' (denywrite) has no hide policy" },
		{ "[x]\nfilter = hide\n[x]\nfilter = hide\n", "f.conf:3: filter 'x' is already defined at f.conf:1" },
	};
	int ret = TAP_FAIL;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct conf c = { .quiet = true };

		conf_parse(&c, "f.conf", bad[i].text);
		EXPECT(c.nerrors == 1 && !strncmp(c.first_error, bad[i].error, strlen(bad[i].error)),
		       "case %zu: %d errors, first '%s', expected '%s'", i, c.nerrors, c.first_error,
		       bad[i].error);
		conf_free(&c);
	}
	ret = TAP_OK;
out:
	return ret;
}

/* Every error is reported, each with its line. */
static int t_all_errors(void)
{
	struct conf c = { .quiet = true };
	int ret = TAP_FAIL;

	conf_parse(&c, "f.conf", "[x]\nfilter = hide\nfrob = 1\nhide = a/b\n[y\nhide = z\n");
	EXPECT(c.nerrors == 3, "%d errors", c.nerrors);
	EXPECT(strstr(c.first_error, "f.conf:3:"));
	ret = TAP_OK;
out:
	conf_free(&c);
	return ret;
}

static struct policy_change ch(enum policy_op op, const char *name, int val)
{
	struct policy_change c = { .op = op, .val = val };

	snprintf(c.name, sizeof(c.name), "%s", name);
	return c;
}

static int t_diff(void)
{
	struct policy_change want[] = {
		ch(POL_POLICIES, "", FUSEBPF_POLICY_HIDE),
		ch(POL_DOTFILES, "", 1),
		ch(POL_HIDE_ERRNO, "", EACCES),
		ch(POL_HIDE_ADD, "keep", 0),
		ch(POL_HIDE_ADD, "new", 0),
		ch(POL_ATTR_SET, "r", 0),
	};
	struct policy_change cur[] = {
		ch(POL_HIDE_ADD, "old", 0),
		ch(POL_HIDE_ADD, "keep", 0),
		ch(POL_DOTFILES, "", 0),
		ch(POL_HIDE_ERRNO, "", EACCES),
		ch(POL_POLICIES, "", FUSEBPF_POLICY_HIDE | FUSEBPF_POLICY_ATTRS),
		ch(POL_ALLOW_ADD, "unmanaged", 0),
		ch(POL_ATTR_SET, "r", 0),
	};
	struct policy_change *d = NULL;
	int ret = TAP_FAIL, n;

	want[5].rule.mode_set = 0111;
	cur[6].rule.mode_set = 0111;
	cur[6].rule.uid = 5;	/* not forced: not part of the rule */
	n = policy_diff(want, 6, cur, 7, CONF_HIDE | CONF_ATTRS | CONF_CONFIG, true, &d);
	EXPECT(n == 4, "%d changes", n);
	/* policies first, then the other scalars, removals, additions */
	EXPECT(d[0].op == POL_POLICIES && d[0].val == FUSEBPF_POLICY_HIDE);
	EXPECT(d[1].op == POL_DOTFILES && d[1].val == 1);
	EXPECT(d[2].op == POL_HIDE_DEL && !strcmp(d[2].name, "old"));
	EXPECT(d[3].op == POL_HIDE_ADD && !strcmp(d[3].name, "new"));
	free(d);
	d = NULL;
	/* A changed rule is set again; a policy not managed stays. */
	cur[6].rule.flags = FUSEBPF_ATTR_FORCE_UID;
	n = policy_diff(want, 6, cur, 7, CONF_HIDE | CONF_ATTRS | CONF_CONFIG, false, &d);
	EXPECT(n == 4 && d[0].op == POL_DOTFILES && d[3].op == POL_ATTR_SET, "%d", n);
	free(d);
	d = NULL;
	/* Nothing to do between equal policies. */
	n = policy_diff(want, 6, want, 6, CONF_HIDE | CONF_ATTRS | CONF_CONFIG, true, &d);
	EXPECT(n == 0);
	ret = TAP_OK;
out:
	free(d);
	return ret;
}

static int t_change_str(void)
{
	static const struct {
		struct policy_change c;
		const char *s;
	} t[] = {
		{ { .op = POL_HIDE_ADD, .name = "a b.txt" }, "hide f add 'a b.txt'" },
		{ { .op = POL_HIDE_DEL, .name = "it's" }, "hide f del 'it'\\''s'" },
		{ { .op = POL_PATTERN_ADD, .pat_kind = FUSEBPF_PAT_GLOB, .name = "*.o" },
		  "hide f add --glob '*.o'" },
		{ { .op = POL_DOTFILES, .val = 1 }, "hide f dotfiles on" },
		{ { .op = POL_HIDE_ERRNO, .val = EPERM }, "hide f errno EPERM" },
		{ { .op = POL_DENY_ERRNO, .val = 99 }, "deny f errno 99" },
		{ { .op = POL_ALLOW_DEL, .name = "x" }, "deny f disallow x" },
		{ { .op = POL_ATTR_SET, .rule = { .mode_clear = 0222 } }, "attrs f set --mode -0222" },
		{ { .op = POL_ATTR_SET, .name = "a", .rule = { .mode_set = 0640, .mode_clear = 07137 } },
		  "attrs f set a --mode =0640" },
		{ { .op = POL_ATTR_SET, .name = "a", .rule = { .flags = 3, .uid = 1, .gid = 2 } },
		  "attrs f set a --uid 1 --gid 2" },
		{ { .op = POL_ATTR_DEL }, "attrs f del" },
		{ { .op = POL_POLICIES, .val = 5 }, "policy f policies hide,denywrite" },
		{ { .op = POL_POLICIES, .val = 0 }, "policy f policies none" },
		{ { .op = POL_POSTFILTER, .val = 0 }, "policy f postfilter off" },
		{ { .op = POL_ENFORCE, .val = 0 }, "policy f enforce off" },
		{ { .op = POL_ENFORCE, .val = 1 }, "policy f enforce on" },
		{ { .op = POL_EXCEPT_ADD, .id_kind = FUSEBPF_EXCEPT_UID, .val = 1000,
		    .mask = FUSEBPF_POLICY_HIDE }, "hide f except-uid add 1000" },
		{ { .op = POL_EXCEPT_DEL, .id_kind = FUSEBPF_EXCEPT_GID, .val = 5,
		    .mask = FUSEBPF_POLICY_DENYWRITE }, "deny f except-gid del 5" },
		{ { .op = POL_EVENTS, .val = 0 }, "policy f events off" },
		{ { .op = POL_EV_READDIR, .val = 1 }, "policy f events-readdir on" },
		{ { .op = POL_EV_RATE, .val = 10 }, "policy f events-rate 10" },
		{ { .op = POL_EV_BURST, .val = 200 }, "policy f events-burst 200" },
	};
	char buf[1024];
	int ret = TAP_FAIL;

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		policy_change_str("f", &t[i].c, buf, sizeof(buf));
		EXPECT(!strcmp(buf, t[i].s), "'%s', expected '%s'", buf, t[i].s);
	}
	ret = TAP_OK;
out:
	return ret;
}

/* The exception of an id from one policy, as the canonical form keeps it. */
static const struct policy_change *find_except(const struct conf_filter *f, uint32_t kind,
					       uint32_t id, uint32_t mask)
{
	for (int i = 0; i < f->nset; i++)
		if (f->set[i].op == POL_EXCEPT_ADD && f->set[i].id_kind == kind &&
		    (uint32_t)f->set[i].val == id && f->set[i].mask == mask)
			return &f->set[i];
	return NULL;
}

static int t_except_events(void)
{
	static const char text[] =
		"[ro]\n"
		"filter = denywrite\n"
		"except-uid = 1000 root\n"
		"except-uid = 1000\n"
		"except-gid = nogroup 4294967294\n"
		"events-rate = 10\n"
		"events-readdir = yes\n"
		"[both]\n"
		"filter = fusebpf\n"
		"except-uid = 7\n"
		"hide-except-uid = 8\n"
		"deny-except-gid = 9\n"
		"hide-except-uid = 7\n"
		"events = no\n"
		"events-burst = 1000000\n"
		"[plain]\n"
		"filter = hide\n"
		"[obj]\n"
		"filter = /o/x.bpf.o\n"
		"except-gid = 3\n";
	struct conf c = { .quiet = true };
	const struct policy_change *p;
	struct conf_filter *f;
	int ret = TAP_FAIL;

	conf_parse(&c, "x.conf", text);
	EXPECT(c.nerrors == 0, "%s", c.first_error);
	f = conf_find(&c, "ro");
	/* denywrite only: except-uid is the denywrite exception; names resolved */
	EXPECT(count(f, POL_EXCEPT_ADD) == 4, "%d", count(f, POL_EXCEPT_ADD));
	EXPECT(find_except(f, FUSEBPF_EXCEPT_UID, 1000, FUSEBPF_POLICY_DENYWRITE));
	EXPECT(find_except(f, FUSEBPF_EXCEPT_UID, 0, FUSEBPF_POLICY_DENYWRITE));
	EXPECT(find_except(f, FUSEBPF_EXCEPT_GID, 65534, FUSEBPF_POLICY_DENYWRITE));
	EXPECT(find_except(f, FUSEBPF_EXCEPT_GID, 4294967294u, FUSEBPF_POLICY_DENYWRITE));
	EXPECT((p = find(f, POL_EV_RATE, NULL)) && p->val == 10);
	EXPECT((p = find(f, POL_EV_READDIR, NULL)) && p->val == 1);
	/* the defaults of the event settings left out */
	EXPECT((p = find(f, POL_EVENTS, NULL)) && p->val == 1);
	EXPECT((p = find(f, POL_EV_BURST, NULL)) && p->val == FUSEBPF_EV_BURST_DEFAULT);

	/* combined: except-uid is both policies, hide-/deny- one */
	f = conf_find(&c, "both");
	EXPECT(count(f, POL_EXCEPT_ADD) == 4, "%d", count(f, POL_EXCEPT_ADD));
	EXPECT(find_except(f, FUSEBPF_EXCEPT_UID, 7, FUSEBPF_POLICY_HIDE));
	EXPECT(find_except(f, FUSEBPF_EXCEPT_UID, 7, FUSEBPF_POLICY_DENYWRITE));
	EXPECT(find_except(f, FUSEBPF_EXCEPT_UID, 8, FUSEBPF_POLICY_HIDE));
	EXPECT(find_except(f, FUSEBPF_EXCEPT_GID, 9, FUSEBPF_POLICY_DENYWRITE));
	EXPECT((p = find(f, POL_EVENTS, NULL)) && p->val == 0);
	EXPECT((p = find(f, POL_EV_BURST, NULL)) && p->val == 1000000);
	EXPECT((p = find(f, POL_EV_RATE, NULL)) && p->val == FUSEBPF_EV_RATE_DEFAULT);

	/* no exceptions in the file: none (apply removes those in the map) */
	f = conf_find(&c, "plain");
	EXPECT(count(f, POL_EXCEPT_ADD) == 0 && find(f, POL_EVENTS, NULL));
	EXPECT(!find(conf_find(&c, "ro"), POL_DOTFILES, NULL));

	/* an object: "every policy" until its maps are known */
	f = conf_find(&c, "obj");
	EXPECT(f->nset == 1 && find_except(f, FUSEBPF_EXCEPT_GID, 3, 0));
	conf_complete(&c, f, CONF_HIDE | CONF_CONFIG | CONF_EXCEPT);
	EXPECT(c.nerrors == 0, "%s", c.first_error);
	EXPECT(count(f, POL_EXCEPT_ADD) == 1 && find_except(f, FUSEBPF_EXCEPT_GID, 3,
							      FUSEBPF_POLICY_HIDE));
	EXPECT(!find(f, POL_EVENTS, NULL), "no events map, no event settings");
	ret = TAP_OK;
out:
	conf_free(&c);
	return ret;
}

static int t_except_events_errors(void)
{
	static const struct {
		const char *text, *error;
	} bad[] = {
		{ "[x]\nfilter = hide\nexcept-uid = 12abc\n",
		  "f.conf:3: bad uid '12abc': no such user" },
		{ "[x]\nfilter = hide\nexcept-gid = nosuchgroup-fusebpf\n",
		  "f.conf:3: bad gid 'nosuchgroup-fusebpf': no such group" },
		{ "[x]\nfilter = hide\nexcept-uid = 4294967295\n",
		  "f.conf:3: bad uid '4294967295': out of range (0 to 4294967294)" },
		{ "[x]\nfilter = hide\n\nexcept-uid = 1 99999999999999999999\n",
		  "f.conf:4: bad uid '99999999999999999999': out of range" },
		{ "[x]\nfilter = hide\nexcept-uid = -1\n", "f.conf:3: bad uid '-1': out of range" },
		{ "[x]\nfilter = hide\nexcept-uid = \"\"\n", "f.conf:3: bad uid '': no such user" },
		{ "[x]\nfilter = attrs\nexcept-uid = 1\n",
		  "f.conf:3: filter 'x' (attrs) has no exceptions (no map fusebpf_except)" },
		{ "[x]\nfilter = hide\ndeny-except-uid = 1\n",
		  "f.conf:3: filter 'x' (hide) has no denywrite policy" },
		{ "[x]\nfilter = stats\nevents = no\n",
		  "f.conf:3: filter 'x' (stats) has no audit events (no map fusebpf_events)" },
		{ "[x]\nfilter = hide\nevents = maybe\n", "f.conf:3: events = yes or no, not 'maybe'" },
		{ "[x]\nfilter = hide\nevents-rate = 0\n", "f.conf:3: bad events-rate '0' (1 to 1000000)" },
		{ "[x]\nfilter = hide\nevents-burst = 1000001\n", "f.conf:3: bad events-burst '1000001'" },
		{ "[x]\nfilter = hide\nevents-rate = 5x\n", "f.conf:3: bad events-rate '5x'" },
		{ "[x]\nfilter = hide\nevents-rate = 5\nevents-rate = 6\n",
		  "f.conf:4: 'events-rate' given twice in [x] (first on line 3)" },
		{ "[x]\nfilter = hide\nevents-readdir = yes no\n", "f.conf:3: 'events-readdir' takes one value" },
		{ "[x]\nfilter = hide\nexcept-user = 1\n", "f.conf:3: unknown key 'except-user'" },
	};
	char text[8192];
	int ret = TAP_FAIL, len;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct conf c = { .quiet = true };

		conf_parse(&c, "f.conf", bad[i].text);
		EXPECT(c.nerrors == 1 && !strncmp(c.first_error, bad[i].error, strlen(bad[i].error)),
		       "case %zu: %d errors, first '%s', expected '%s'", i, c.nerrors, c.first_error,
		       bad[i].error);
		conf_free(&c);
	}
	/* The map holds FUSEBPF_EXCEPT_MAX ids (uids and gids); one more is an error. */
	len = snprintf(text, sizeof(text), "[x]\nfilter = fusebpf\nexcept-uid = 1 2 3\n");
	for (int id = 0; id < FUSEBPF_EXCEPT_MAX - 3; id++)	/* lines 4 to 256 */
		len += snprintf(text + len, sizeof(text) - len, "except-gid = %d\n", id);
	{
		struct conf c = { .quiet = true };

		conf_parse(&c, "f.conf", text);
		EXPECT(c.nerrors == 0, "%d ids: %s", FUSEBPF_EXCEPT_MAX, c.first_error);
		EXPECT(count(conf_find(&c, "x"), POL_EXCEPT_ADD) == 2 * FUSEBPF_EXCEPT_MAX);
		conf_free(&c);
		/* the same ids again and the same uid for hide only: no new id */
		len += snprintf(text + len, sizeof(text) - len,
				"except-uid = 1 2\nhide-except-uid = 3\nexcept-uid = 4\n");
		memset(&c, 0, sizeof(c));
		c.quiet = true;
		conf_parse(&c, "f.conf", text);
		EXPECT(c.nerrors == 1 && !strcmp(c.first_error, "f.conf:259: more than 256 uids and "
						 "gids excepted in [x] (the exceptions map holds 256)"),
		       "%d: %s", c.nerrors, c.first_error);
		conf_free(&c);
	}
	ret = TAP_OK;
out:
	return ret;
}

/*
 * enforce = no: audit mode, for the filters whose policies refuse or hide
 * (they have events); left out, it is reset to yes; apply changes only it.
 */
static int t_enforce(void)
{
	static const char text[] =
		"[ro]\n"
		"filter = denywrite\n"
		"enforce = no\n"
		"[plain]\n"
		"filter = hide\n";
	const unsigned int maps = CONF_DENY | CONF_CONFIG | CONF_EXCEPT | CONF_EVENTS;
	struct policy_change cur = ch(POL_ENFORCE, "", 1), *d = NULL;
	struct conf c = { .quiet = true };
	const struct policy_change *p;
	struct conf_filter *f;
	int ret = TAP_FAIL, n;

	conf_parse(&c, "x.conf", text);
	EXPECT(c.nerrors == 0, "%s", c.first_error);
	f = conf_find(&c, "ro");
	EXPECT((p = find(f, POL_ENFORCE, NULL)) && p->val == 0);
	n = policy_diff(f->set, f->nset, &cur, 1, maps, false, &d);
	p = NULL;
	for (int i = 0; i < n; i++)
		p = d[i].op == POL_ENFORCE ? &d[i] : p;
	EXPECT(p && p->val == 0, "%d changes, none to enforce off", n);
	free(d);
	d = NULL;
	/* Not managed where there is no events map (nothing would audit). */
	n = policy_diff(f->set, f->nset, &cur, 1, CONF_DENY | CONF_CONFIG, false, &d);
	for (int i = 0; i < n; i++)
		EXPECT(d[i].op != POL_ENFORCE);
	EXPECT((p = find(conf_find(&c, "plain"), POL_ENFORCE, NULL)) && p->val == 1, "the default");
	conf_free(&c);
	memset(&c, 0, sizeof(c));
	c.quiet = true;
	conf_parse(&c, "f.conf", "[x]\nfilter = attrs\nenforce = no\n");
	EXPECT(c.nerrors == 1 && strstr(c.first_error, "f.conf:3: filter 'x' (attrs) has no"),
	       "%s", c.first_error);
	conf_free(&c);
	memset(&c, 0, sizeof(c));
	c.quiet = true;
	conf_parse(&c, "f.conf", "[x]\nfilter = hide\nenforce = sometimes\n");
	EXPECT(c.nerrors == 1 && !strncmp(c.first_error, "f.conf:3: enforce = yes or no", 29),
	       "%s", c.first_error);
	ret = TAP_OK;
out:
	free(d);
	conf_free(&c);
	return ret;
}

static struct policy_change ex(uint32_t kind, uint32_t id, uint32_t mask)
{
	struct policy_change c = { .op = POL_EXCEPT_ADD, .id_kind = kind, .val = (int)id,
				   .mask = mask };

	return c;
}

static int t_diff_except_events(void)
{
	const uint32_t H = FUSEBPF_POLICY_HIDE, D = FUSEBPF_POLICY_DENYWRITE, U = FUSEBPF_EXCEPT_UID,
		       G = FUSEBPF_EXCEPT_GID;
	const unsigned int maps = CONF_HIDE | CONF_DENY | CONF_CONFIG | CONF_EXCEPT | CONF_EVENTS;
	struct policy_change want[] = {
		ch(POL_EVENTS, "", 1),
		ch(POL_EV_RATE, "", 10),
		ch(POL_EV_BURST, "", FUSEBPF_EV_BURST_DEFAULT),
		ex(U, 1000, D),
		ex(U, 7, H),
		ex(G, 7, D),
	};
	struct policy_change cur[] = {
		ex(U, 1000, H),	/* 1000: hide -> denywrite */
		ex(U, 1000, D),
		ex(U, 7, H),
		ex(U, 5, D),	/* gone */
		ch(POL_EVENTS, "", 0),
		ch(POL_EV_RATE, "", FUSEBPF_EV_RATE_DEFAULT),
		ch(POL_EV_BURST, "", FUSEBPF_EV_BURST_DEFAULT),
	};
	struct policy_change *d = NULL;
	char buf[256];
	int ret = TAP_FAIL, n;

	n = policy_diff(want, 6, cur, 7, maps, false, &d);
	EXPECT(n == 5, "%d changes", n);
	EXPECT(d[0].op == POL_EVENTS && d[0].val == 1);
	EXPECT(d[1].op == POL_EV_RATE && d[1].val == 10);
	/* removals before additions, each one id and policy */
	EXPECT(d[2].op == POL_EXCEPT_DEL && d[2].val == 1000 && d[2].mask == H);
	EXPECT(d[3].op == POL_EXCEPT_DEL && d[3].val == 5 && d[3].mask == D);
	EXPECT(d[4].op == POL_EXCEPT_ADD && d[4].id_kind == G && d[4].val == 7 && d[4].mask == D);
	policy_change_str("f", &d[2], buf, sizeof(buf));
	EXPECT(!strcmp(buf, "hide f except-uid del 1000"), "%s", buf);
	policy_change_str("f", &d[4], buf, sizeof(buf));
	EXPECT(!strcmp(buf, "deny f except-gid add 7"), "%s", buf);
	free(d);
	d = NULL;
	/* Idempotent: the wanted state against itself. */
	n = policy_diff(want, 6, want, 6, maps, false, &d);
	EXPECT(n == 0, "%d", n);
	free(d);
	d = NULL;
	/* A filter without the maps: exceptions and event settings not managed. */
	n = policy_diff(want, 6, cur, 7, CONF_HIDE | CONF_CONFIG, false, &d);
	EXPECT(n == 0, "%d", n);
	ret = TAP_OK;
out:
	free(d);
	return ret;
}

static int put(const char *path, const char *text)
{
	return write_file(path, text, strlen(text)) < 0 ? -1 : 0;
}

static int t_read_dir(void)
{
	char dir[] = "/tmp/cli_conf.XXXXXX", path[256];
	struct conf c = { .quiet = true };
	const struct policy_change *p;
	int ret = TAP_FAIL;

	EXPECT(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/20-b.conf", dir);
	EXPECT(!put(path, "[b]\nfilter = stats\n"));
	snprintf(path, sizeof(path), "%s/10-a.conf", dir);
	EXPECT(!put(path, "[a]\nfilter = hide\n"));
	snprintf(path, sizeof(path), "%s/.hidden.conf", dir);
	EXPECT(!put(path, "garbage\n"));
	snprintf(path, sizeof(path), "%s/notes.txt", dir);
	EXPECT(!put(path, "garbage\n"));
	EXPECT(conf_read(dir, &c) == 0 && c.is_dir && c.nfiles == 2 && c.nerrors == 0, "%s",
	       c.first_error);
	EXPECT(c.n == 2 && !strcmp(c.f[0].name, "a") && !strcmp(c.f[1].name, "b"), "name order");
	/* stats times its ops by default, the policy filters do not */
	EXPECT((p = find(&c.f[1], POL_POSTFILTER, NULL)) && p->val == 1);
	EXPECT((p = find(&c.f[0], POL_POSTFILTER, NULL)) && p->val == 0);
	conf_free(&c);
	/* The same name in two files: both places named. */
	snprintf(path, sizeof(path), "%s/30-c.conf", dir);
	EXPECT(!put(path, "\n[a]\nfilter = attrs\n"));
	memset(&c, 0, sizeof(c));
	c.quiet = true;
	EXPECT(conf_read(dir, &c) == 0 && c.nerrors == 1);
	EXPECT(strstr(c.first_error, "30-c.conf:2: filter 'a' is already defined at ") &&
	       strstr(c.first_error, "10-a.conf:1"), "%s", c.first_error);
	conf_free(&c);
	memset(&c, 0, sizeof(c));
	EXPECT(conf_read("/nonexistent/x.conf", &c) == -ENOENT);
	ret = TAP_OK;
out:
	conf_free(&c);
	if (strncmp(dir, "/tmp/cli_conf.", 14) == 0 && strchr(dir, 'X') == NULL) {
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd))
			ret = TAP_FAIL;
	}
	return ret;
}

/*
 * A configured filter object must be a regular BPF object file: a missing
 * one is reported with stat()'s errno (st_mode is not read after a failed
 * stat()), a directory as not a file, anything else as not a BPF object.
 */
static int t_object_checks(void)
{
	static const struct {
		const char *filter, *want;
	} cases[] = {
		{ "/nonexistent/dir/x.bpf.o", "filter object /nonexistent/dir/x.bpf.o: No such file" },
		{ "/tmp", "filter object /tmp: not a file" },
		{ NULL, NULL },	/* obj, made below: a file that is no ELF */
	};
	char text[512], obj[] = "/tmp/cli_conf_obj.XXXXXX";
	struct conf c = { .quiet = true };
	int ret = TAP_FAIL, fd = mkstemp(obj);

	EXPECT(fd >= 0 && write(fd, "not elf", 7) == 7);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *filter = cases[i].want ? cases[i].filter : obj;

		memset(&c, 0, sizeof(c));
		c.quiet = true;
		snprintf(text, sizeof(text), "[x]\nfilter = %s\nhide = a\n", filter);
		conf_parse(&c, "t.conf", text);
		EXPECT(c.nerrors == 0 && c.n == 1 && !strcmp(c.f[0].kind, "file"), "%s", c.first_error);
		apply_check_object(&c, &c.f[0]);
		EXPECT(c.nerrors == 1, "%s: %d errors", filter, c.nerrors);
		if (cases[i].want)
			EXPECT(strstr(c.first_error, cases[i].want), "%s", c.first_error);
		else
			EXPECT(strstr(c.first_error, "is not a usable BPF object"), "%s", c.first_error);
		EXPECT(!strncmp(c.first_error, "t.conf:1: ", 10), "%s", c.first_error);
		conf_free(&c);
	}
	ret = TAP_OK;
out:
	conf_free(&c);
	if (fd >= 0) {
		close(fd);
		unlink(obj);
	}
	return ret;
}

static const struct tap_case cases[] = {
	{ "enforce", t_enforce },
	{ "parse_good", t_parse_good },
	{ "parse_errors_with_lines", t_parse_errors },
	{ "every_error_reported", t_all_errors },
	{ "policy_diff", t_diff },
	{ "change_as_command", t_change_str },
	{ "read_directory", t_read_dir },
	{ "except_and_events_keys", t_except_events },
	{ "except_and_events_errors", t_except_events_errors },
	{ "policy_diff_except_events", t_diff_except_events },
	{ "filter_object_checks", t_object_checks },
};

TAP_MAIN("cli_conf", cases)
