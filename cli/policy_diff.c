// SPDX-License-Identifier: GPL-2.0
/*
 * Comparing two policies in the canonical form of conf.h, and the changes
 * that turn one into the other (apply). No kernel needed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtins.h"
#include "policy_diff.h"

static bool is_scalar(enum policy_op op)
{
	return op == POL_POLICIES || op == POL_POSTFILTER || op == POL_DOTFILES ||
	       op == POL_HIDE_ERRNO || op == POL_DENY_ERRNO || op == POL_EVENTS ||
	       op == POL_EV_RATE || op == POL_EV_BURST || op == POL_EV_READDIR || op == POL_ENFORCE;
}

bool policy_same_key(const struct policy_change *a, const struct policy_change *b)
{
	if (a->op != b->op)
		return false;
	if (is_scalar(a->op))
		return true;
	if (a->op == POL_EXCEPT_ADD || a->op == POL_EXCEPT_DEL)
		return a->id_kind == b->id_kind && a->val == b->val && a->mask == b->mask;
	return a->pat_kind == b->pat_kind && !strcmp(a->name, b->name);
}

static void rule_norm(const struct fusebpf_attr_rule *in, struct fusebpf_attr_rule *out)
{
	memset(out, 0, sizeof(*out));
	out->flags = in->flags & (FUSEBPF_ATTR_FORCE_UID | FUSEBPF_ATTR_FORCE_GID);
	out->mode_set = in->mode_set & 07777;
	out->mode_clear = in->mode_clear & 07777;
	if (out->flags & FUSEBPF_ATTR_FORCE_UID)
		out->uid = in->uid;
	if (out->flags & FUSEBPF_ATTR_FORCE_GID)
		out->gid = in->gid;
}

bool policy_same_value(const struct policy_change *a, const struct policy_change *b)
{
	struct fusebpf_attr_rule ra, rb;

	if (!policy_same_key(a, b))
		return false;
	if (is_scalar(a->op))
		return a->val == b->val;
	if (a->op != POL_ATTR_SET)
		return true;
	rule_norm(&a->rule, &ra);
	rule_norm(&b->rule, &rb);
	return !memcmp(&ra, &rb, sizeof(ra));
}

bool policy_managed(const struct policy_change *c, unsigned int maps, bool policies)
{
	switch (c->op) {
	case POL_HIDE_ADD:
	case POL_PATTERN_ADD:
	case POL_DOTFILES:
	case POL_HIDE_ERRNO:
		return maps & CONF_HIDE;
	case POL_ATTR_SET:
		return maps & CONF_ATTRS;
	case POL_ALLOW_ADD:
	case POL_DENY_ERRNO:
		return maps & CONF_DENY;
	case POL_POSTFILTER:
		return maps & CONF_CONFIG;
	case POL_POLICIES:
		return policies && (maps & CONF_CONFIG);
	case POL_EVENTS:
	case POL_EV_RATE:
	case POL_EV_BURST:
	case POL_EV_READDIR:
	case POL_ENFORCE:
		return (maps & CONF_EVENTS) && (maps & CONF_CONFIG);
	case POL_EXCEPT_ADD:
		return (maps & CONF_EXCEPT) &&
		       (c->mask == FUSEBPF_POLICY_HIDE ? maps & CONF_HIDE :
			c->mask == FUSEBPF_POLICY_DENYWRITE ? maps & CONF_DENY : false);
	default:
		return false;
	}
}

static enum policy_op inverse(enum policy_op op)
{
	switch (op) {
	case POL_HIDE_ADD:
		return POL_HIDE_DEL;
	case POL_PATTERN_ADD:
		return POL_PATTERN_DEL;
	case POL_ATTR_SET:
		return POL_ATTR_DEL;
	case POL_ALLOW_ADD:
		return POL_ALLOW_DEL;
	case POL_EXCEPT_ADD:
		return POL_EXCEPT_DEL;
	default:
		return op;
	}
}

static const struct policy_change *find_key(const struct policy_change *v, int n,
					    const struct policy_change *k)
{
	for (int i = 0; i < n; i++)
		if (policy_same_key(&v[i], k))
			return &v[i];
	return NULL;
}

int policy_diff(const struct policy_change *want, int nwant, const struct policy_change *cur,
		int ncur, unsigned int maps, bool policies, struct policy_change **out)
{
	struct policy_change *v = calloc(nwant + ncur + 1, sizeof(*v));
	int n = 0;

	*out = NULL;
	if (!v)
		return -ENOMEM;
	/* The policies first (what the combined filter runs), then the other scalars. */
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < nwant; i++) {
			const struct policy_change *c;

			if (!is_scalar(want[i].op) || (want[i].op == POL_POLICIES) != !pass ||
			    !policy_managed(&want[i], maps, policies))
				continue;
			c = find_key(cur, ncur, &want[i]);
			if (!c || !policy_same_value(c, &want[i]))
				v[n++] = want[i];
		}
	/* Removals before additions: a pattern slot may be needed. */
	for (int i = 0; i < ncur; i++) {
		if (is_scalar(cur[i].op) || !policy_managed(&cur[i], maps, policies) ||
		    find_key(want, nwant, &cur[i]))
			continue;
		v[n] = cur[i];
		v[n++].op = inverse(cur[i].op);
	}
	for (int i = 0; i < nwant; i++) {
		const struct policy_change *c;

		if (is_scalar(want[i].op) || !policy_managed(&want[i], maps, policies))
			continue;
		c = find_key(cur, ncur, &want[i]);
		if (!c || !policy_same_value(c, &want[i]))
			v[n++] = want[i];
	}
	*out = v;
	return n;
}
