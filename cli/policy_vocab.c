// SPDX-License-Identifier: GPL-2.0
/* The policy vocabulary (policy_vocab.h): its keys and the parser of their values. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "builtins.h"
#include "fusebpfctl.h"
#include "policy_vocab.h"

#define EXCEPT_KEYS(prefix, mask, maps)                                                        \
	{ prefix "except-uid", POL_EXCEPT_ADD, PV_EXCEPT, mask, FUSEBPF_EXCEPT_UID,            \
	  CONF_EXCEPT | (maps) },                                                                \
	{ prefix "except-gid", POL_EXCEPT_ADD, PV_EXCEPT, mask, FUSEBPF_EXCEPT_GID,            \
	  CONF_EXCEPT | (maps) }

const struct policy_key policy_keys[] = {
	{ "hide", POL_HIDE_ADD, PV_NAME, FUSEBPF_PAT_NONE, 0, CONF_HIDE },
	{ "hide-prefix", POL_PATTERN_ADD, PV_NAME, FUSEBPF_PAT_PREFIX, 0, CONF_HIDE },
	{ "hide-suffix", POL_PATTERN_ADD, PV_NAME, FUSEBPF_PAT_SUFFIX, 0, CONF_HIDE },
	{ "hide-glob", POL_PATTERN_ADD, PV_NAME, FUSEBPF_PAT_GLOB, 0, CONF_HIDE },
	{ "hide-dotfiles", POL_DOTFILES, PV_BOOL, 0, 0, CONF_HIDE },
	{ "hide-errno", POL_HIDE_ERRNO, PV_ERRNO, 0, 0, CONF_HIDE },
	{ "mode", POL_ATTR_SET, PV_MODE, 0, 0, CONF_ATTRS },
	{ "uid", POL_ATTR_SET, PV_ID, FUSEBPF_ATTR_FORCE_UID, 0, CONF_ATTRS },
	{ "gid", POL_ATTR_SET, PV_ID, FUSEBPF_ATTR_FORCE_GID, 0, CONF_ATTRS },
	{ "allow", POL_ALLOW_ADD, PV_NAME, FUSEBPF_PAT_NONE, 0, CONF_DENY },
	{ "deny-errno", POL_DENY_ERRNO, PV_ERRNO, 0, 0, CONF_DENY },
	{ "policies", POL_POLICIES, PV_POLICIES, 0, 0, CONF_CONFIG },
	{ "postfilter", POL_POSTFILTER, PV_BOOL, 0, 0, CONF_CONFIG },
	/* audit mode is for the policies that refuse or hide: those with events */
	{ "enforce", POL_ENFORCE, PV_BOOL, 0, 0, CONF_CONFIG | CONF_EVENTS },
	EXCEPT_KEYS("", 0, 0),
	EXCEPT_KEYS("hide-", FUSEBPF_POLICY_HIDE, CONF_HIDE),
	EXCEPT_KEYS("deny-", FUSEBPF_POLICY_DENYWRITE, CONF_DENY),
	{ "events", POL_EVENTS, PV_BOOL, 0, 0, CONF_EVENTS },
	{ "events-rate", POL_EV_RATE, PV_COUNT, 0, 0, CONF_EVENTS },
	{ "events-burst", POL_EV_BURST, PV_COUNT, 0, 0, CONF_EVENTS },
	{ "events-readdir", POL_EV_READDIR, PV_BOOL, 0, 0, CONF_EVENTS },
};
const size_t policy_nkeys = sizeof(policy_keys) / sizeof(policy_keys[0]);

const struct policy_key *policy_key_find(const char *key)
{
	for (size_t i = 0; i < policy_nkeys; i++)
		if (!strcmp(policy_keys[i].key, key))
			return &policy_keys[i];
	return NULL;
}

bool policy_key_is_list(const struct policy_key *k)
{
	return k->value == PV_NAME || k->value == PV_EXCEPT;
}

enum policy_op policy_op_del(enum policy_op op)
{
	switch (op) {
	case POL_HIDE_ADD:
		return POL_HIDE_DEL;
	case POL_PATTERN_ADD:
		return POL_PATTERN_DEL;
	case POL_ALLOW_ADD:
		return POL_ALLOW_DEL;
	case POL_EXCEPT_ADD:
		return POL_EXCEPT_DEL;
	case POL_ATTR_SET:
		return POL_ATTR_DEL;
	default:
		return op;
	}
}

void policy_rule_merge(const struct policy_key *k, struct fusebpf_attr_rule *dst,
		       const struct fusebpf_attr_rule *src)
{
	if (k->value == PV_MODE) {
		dst->mode_set = src->mode_set;
		dst->mode_clear = src->mode_clear;
	} else if (k->arg == FUSEBPF_ATTR_FORCE_UID) {
		dst->flags |= FUSEBPF_ATTR_FORCE_UID;
		dst->uid = src->uid;
	} else if (k->arg == FUSEBPF_ATTR_FORCE_GID) {
		dst->flags |= FUSEBPF_ATTR_FORCE_GID;
		dst->gid = src->gid;
	}
}

static int name_value(const struct policy_key *k, const char *val, struct policy_change *c,
		      char *why, size_t cap)
{
	struct fusebpf_pattern pat;
	struct fusebpf_name key;
	int e = k->arg ? policy_pattern(k->arg, val, &pat) : policy_name_key(val, &key);

	if (e) {
		snprintf(why, cap, "bad %s '%s': %s", k->arg ? "pattern" : "file name", val,
			 strerror(-e));
		return -EINVAL;
	}
	c->pat_kind = k->arg;
	snprintf(c->name, sizeof(c->name), "%s", val);
	return 0;
}

/*
 * An excepted id. The files say why an id is bad (a number out of range, or
 * a name the system does not know); the command line says which kind.
 */
static int except_value(const struct policy_key *k, const char *val, enum policy_syntax syntax,
			struct policy_change *c, char *why, size_t cap)
{
	bool gid = k->id_kind == FUSEBPF_EXCEPT_GID;
	bool number = *val && val[strspn(val, "0123456789")] == 0;
	uint32_t id;

	if (policy_parse_id(val, gid, &id)) {
		if (syntax == SYNTAX_CLI)
			snprintf(why, cap, "bad %s '%s'", gid ? "group" : "user", val);
		else if (number || (val[0] == '-' && val[1] &&
				    !val[1 + strspn(val + 1, "0123456789")]))
			snprintf(why, cap, "bad %s '%s': out of range (0 to 4294967294)",
				 gid ? "gid" : "uid", val);
		else
			snprintf(why, cap, "bad %s '%s': no such %s (a number, or a name the system "
				 "knows)", gid ? "gid" : "uid", val, gid ? "group" : "user");
		return -EINVAL;
	}
	c->id_kind = k->id_kind;
	c->mask = k->arg;
	c->val = (int)id;
	snprintf(c->name, sizeof(c->name), "%s %u", gid ? "gid" : "uid", id);
	return 0;
}

static int rule_value(const struct policy_key *k, const char *val, struct policy_change *c,
		      char *why, size_t cap)
{
	bool gid = k->arg == FUSEBPF_ATTR_FORCE_GID;
	uint32_t id;

	if (k->value == PV_MODE) {
		if (!policy_parse_mode(val, &c->rule.mode_set, &c->rule.mode_clear))
			return 0;
		snprintf(why, cap, "bad mode '%s' (e.g. +0111, -0222, =0640)", val);
		return -EINVAL;
	}
	if (policy_parse_id(val, gid, &id)) {
		snprintf(why, cap, "bad %s '%s'", gid ? "group" : "user", val);
		return -EINVAL;
	}
	c->rule.flags |= k->arg;
	if (gid)
		c->rule.gid = id;
	else
		c->rule.uid = id;
	return 0;
}

static int scalar_value(const struct policy_key *k, const char *label, const char *val,
			enum policy_syntax syntax, struct policy_change *c, char *why, size_t cap)
{
	uint32_t u;
	int e;

	switch (k->value) {
	case PV_BOOL:
		if ((e = parse_bool(val)) >= 0)
			return c->val = e, 0;
		if (syntax == SYNTAX_CONF)
			snprintf(why, cap, "%s = yes or no, not '%s'", label, val);
		else
			snprintf(why, cap, "%s on or off?", label);
		return -EINVAL;
	case PV_ERRNO:
		if ((e = parse_errno(val)) >= 0)
			return c->val = e, 0;
		snprintf(why, cap, "bad errno '%s' (a name like EROFS, or a number)", val);
		return -EINVAL;
	case PV_POLICIES:
		if (!policy_parse_policies(val, &u))
			return c->val = (int)u, 0;
		snprintf(why, cap, "bad policy list '%s' (hide,attrs,denywrite or none)", val);
		return -EINVAL;
	case PV_COUNT:
		if (!policy_parse_ev_count(val, &u))
			return c->val = (int)u, 0;
		snprintf(why, cap, "bad %s '%s' (1 to %d)", label, val, FUSEBPF_EV_MAX);
		return -EINVAL;
	default:
		return -EINVAL;
	}
}

int policy_key_value(const struct policy_key *k, const char *label, const char *val,
		     enum policy_syntax syntax, struct policy_change *c, char *why, size_t cap)
{
	memset(c, 0, sizeof(*c));
	c->op = k->op;
	switch (k->value) {
	case PV_NAME:
		return name_value(k, val, c, why, cap);
	case PV_EXCEPT:
		return except_value(k, val, syntax, c, why, cap);
	case PV_MODE:
	case PV_ID:
		return rule_value(k, val, c, why, cap);
	default:
		return scalar_value(k, label, val, syntax, c, why, cap);
	}
}
