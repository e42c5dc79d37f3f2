/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The policy vocabulary: every setting a filter's policy has, under the one
 * name that load's options (--KEY), the configuration files (KEY = ...) and
 * the policy commands (hide, attrs, deny, policy) use for it, with one parser
 * for its values. No kernel needed (tests/host/cli_policy.c, cli_conf.c).
 */
#ifndef FUSEBPFCTL_POLICY_VOCAB_H
#define FUSEBPFCTL_POLICY_VOCAB_H

#include <stdbool.h>
#include <stddef.h>

#include "policy.h"

enum policy_value {
	PV_NAME,	/* a file name, or a pattern of kind arg (lists) */
	PV_BOOL,	/* on/off, yes/no, 1/0, true/false */
	PV_ERRNO,	/* EROFS or a number */
	PV_MODE,	/* +BITS, -BITS, =BITS: the rule of every name (policy_rule_merge) */
	PV_ID,		/* a user (arg FUSEBPF_ATTR_FORCE_UID) or group: the rule of every name */
	PV_EXCEPT,	/* uids or gids (id_kind) excepted from the policies in arg (0: all it has) */
	PV_POLICIES,	/* hide,attrs,denywrite or none */
	PV_COUNT,	/* 1..FUSEBPF_EV_MAX */
};

struct policy_key {
	const char *key;	/* "hide-prefix", "events-rate", ... */
	enum policy_op op;	/* what a value sets or adds */
	enum policy_value value;
	uint32_t arg;		/* see enum policy_value */
	uint32_t id_kind;	/* PV_EXCEPT: FUSEBPF_EXCEPT_UID or _GID */
	unsigned int maps;	/* the policy maps it needs (CONF_*) */
};

extern const struct policy_key policy_keys[];
extern const size_t policy_nkeys;

/* The key named key, or NULL. */
const struct policy_key *policy_key_find(const char *key);
/* Does the key take several values (names, patterns, ids)? */
bool policy_key_is_list(const struct policy_key *k);

/* How the caller's syntax words a bad value: files say "KEY = yes or no", commands "on or off". */
enum policy_syntax { SYNTAX_CLI, SYNTAX_CONF };

/*
 * One value of k into c, zeroed first (op, and its name, val, rule, mask,
 * id_kind). 0, or -EINVAL with why set ("bad errno 'EWHAT' (a name like
 * EROFS, or a number)"); label is what the message calls the key ("dotfiles",
 * "--events-burst", "events-rate").
 */
int policy_key_value(const struct policy_key *k, const char *label, const char *val,
		     enum policy_syntax syntax, struct policy_change *c, char *why, size_t cap);

/* Put the rule field a PV_MODE or PV_ID key set in src (by policy_key_value) into dst. */
void policy_rule_merge(const struct policy_key *k, struct fusebpf_attr_rule *dst,
		       const struct fusebpf_attr_rule *src);

/* The op that undoes an "add" op (POL_HIDE_ADD -> POL_HIDE_DEL, ...); op itself when none. */
enum policy_op policy_op_del(enum policy_op op);

#endif
