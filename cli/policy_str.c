// SPDX-License-Identifier: GPL-2.0
/* A policy change as the fusebpfctl command that makes it (apply prints them). No kernel needed. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fusebpfctl.h"
#include "policy.h"

static void mode_str(uint32_t set, uint32_t clear, char *buf, size_t cap)
{
	if ((set | clear) == 07777 && !(set & clear))
		snprintf(buf, cap, "=%04o", set);
	else if (set && clear)
		snprintf(buf, cap, "+%04o,-%04o", set, clear);
	else if (clear)
		snprintf(buf, cap, "-%04o", clear);
	else
		snprintf(buf, cap, "+%04o", set);
}

/* A word as the shell would need it: quoted when it has anything special. */
static void word(const char *s, char *buf, size_t cap)
{
	if (*s && !s[strcspn(s, " \t\n'\"\\$`*?[]{}()<>|&;#~!")]) {
		snprintf(buf, cap, "%s", s);
		return;
	}
	size_t n = 0;

	if (n + 1 < cap)
		buf[n++] = '\'';
	for (; *s && n + 5 < cap; s++) {
		if (*s == '\'') {
			memcpy(buf + n, "'\\''", 4);
			n += 4;
		} else {
			buf[n++] = *s;
		}
	}
	if (n + 1 < cap)
		buf[n++] = '\'';
	buf[n] = 0;
}

static const char *errno_str(int e, char *buf, size_t cap)
{
	const char *n = errno_name(e);

	if (n)
		return n;
	snprintf(buf, cap, "%d", e);
	return buf;
}

void policy_change_str(const char *filter, const struct policy_change *c, char *buf, size_t cap)
{
	char w[FUSEBPF_NAME_MAX * 4 + 8], m[32], e[16], pol[64] = "";
	const char *kind = c->pat_kind ? policy_pattern_kind_name(c->pat_kind) : NULL;
	const struct fusebpf_attr_rule *r = &c->rule;

	word(c->name, w, sizeof(w));
	switch (c->op) {
	case POL_HIDE_ADD:
	case POL_HIDE_DEL:
	case POL_PATTERN_ADD:
	case POL_PATTERN_DEL:
		snprintf(buf, cap, "hide %s %s %s%s%s%s", filter,
			 c->op == POL_HIDE_ADD || c->op == POL_PATTERN_ADD ? "add" : "del",
			 kind ? "--" : "", kind ? kind : "", kind ? " " : "", w);
		break;
	case POL_DOTFILES:
		snprintf(buf, cap, "hide %s dotfiles %s", filter, c->val ? "on" : "off");
		break;
	case POL_HIDE_ERRNO:
		snprintf(buf, cap, "hide %s errno %s", filter, errno_str(c->val, e, sizeof(e)));
		break;
	case POL_DENY_ERRNO:
		snprintf(buf, cap, "deny %s errno %s", filter, errno_str(c->val, e, sizeof(e)));
		break;
	case POL_ALLOW_ADD:
	case POL_ALLOW_DEL:
		snprintf(buf, cap, "deny %s %s %s", filter, c->op == POL_ALLOW_ADD ? "allow" : "disallow",
			 w);
		break;
	case POL_ATTR_SET: {
		int n;

		mode_str(r->mode_set, r->mode_clear, m, sizeof(m));
		n = snprintf(buf, cap, "attrs %s set%s%s", filter, c->name[0] ? " " : "",
			     c->name[0] ? w : "");
		if ((r->mode_set || r->mode_clear) && n < (int)cap)
			n += snprintf(buf + n, cap - n, " --mode %s", m);
		if ((r->flags & FUSEBPF_ATTR_FORCE_UID) && n < (int)cap)
			n += snprintf(buf + n, cap - n, " --uid %u", r->uid);
		if ((r->flags & FUSEBPF_ATTR_FORCE_GID) && n < (int)cap)
			snprintf(buf + n, cap - n, " --gid %u", r->gid);
		break;
	}
	case POL_ATTR_DEL:
		snprintf(buf, cap, "attrs %s del%s%s", filter, c->name[0] ? " " : "",
			 c->name[0] ? w : "");
		break;
	case POL_POLICIES:
		if (c->val & FUSEBPF_POLICY_HIDE)
			strcat(pol, ",hide");
		if (c->val & FUSEBPF_POLICY_ATTRS)
			strcat(pol, ",attrs");
		if (c->val & FUSEBPF_POLICY_DENYWRITE)
			strcat(pol, ",denywrite");
		snprintf(buf, cap, "policy %s policies %s", filter, pol[0] ? pol + 1 : "none");
		break;
	case POL_POSTFILTER:
	case POL_ENFORCE:
		snprintf(buf, cap, "policy %s %s %s", filter,
			 c->op == POL_ENFORCE ? "enforce" : "postfilter", c->val ? "on" : "off");
		break;
	case POL_EXCEPT_ADD:
	case POL_EXCEPT_DEL:
		snprintf(buf, cap, "%s %s except-%s %s %u", c->mask & FUSEBPF_POLICY_HIDE ? "hide" : "deny",
			 filter, c->id_kind == FUSEBPF_EXCEPT_GID ? "gid" : "uid",
			 c->op == POL_EXCEPT_ADD ? "add" : "del", (uint32_t)c->val);
		break;
	case POL_EVENTS:
	case POL_EV_READDIR:
		snprintf(buf, cap, "policy %s events%s %s", filter, c->op == POL_EVENTS ? "" : "-readdir",
			 c->val ? "on" : "off");
		break;
	case POL_EV_RATE:
	case POL_EV_BURST:
		snprintf(buf, cap, "policy %s events-%s %d", filter, c->op == POL_EV_RATE ? "rate" : "burst",
			 c->val);
		break;
	}
}
