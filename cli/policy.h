/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Policy of the built-in filters (bpf-progs/fusebpf_maps.h): parsing of the
 * command-line forms (no kernel needed; tests/host/cli_policy.c) and the
 * changes applied to a loaded filter's pinned maps (policy.c).
 */
#ifndef FUSEBPFCTL_POLICY_H
#define FUSEBPFCTL_POLICY_H

#include <stdbool.h>
#include <stdint.h>

#include "json.h"

enum policy_op {
	POL_HIDE_ADD,		/* name */
	POL_HIDE_DEL,		/* name */
	POL_PATTERN_ADD,	/* pat_kind, name */
	POL_PATTERN_DEL,	/* pat_kind, name */
	POL_DOTFILES,		/* val 0/1 */
	POL_HIDE_ERRNO,		/* val */
	POL_ATTR_SET,		/* name ("" = every name), rule */
	POL_ATTR_DEL,		/* name */
	POL_DENY_ERRNO,		/* val */
	POL_ALLOW_ADD,		/* name */
	POL_ALLOW_DEL,		/* name */
	POL_POLICIES,		/* val: FUSEBPF_POLICY_* mask */
	POL_POSTFILTER,		/* val 0/1 (1: run the postfilter for statistics) */
	POL_EXCEPT_ADD,		/* id_kind, val = id, mask (0: every policy of the filter) */
	POL_EXCEPT_DEL,		/* id_kind, val = id, mask (0: every policy of the filter) */
	POL_EVENTS,		/* val 0/1 */
	POL_EV_RATE,		/* val: events per second */
	POL_EV_BURST,		/* val: events */
	POL_EV_READDIR,		/* val 0/1: report READDIR entries hidden */
	POL_ENFORCE,		/* val 0/1 (0: audit mode, FUSEBPF_CFG_AUDIT) */
};

struct policy_change {
	enum policy_op op;
	uint32_t pat_kind;
	char name[FUSEBPF_NAME_MAX];
	struct fusebpf_attr_rule rule;
	int val;
	uint32_t id_kind;	/* FUSEBPF_EXCEPT_UID or _GID */
	uint32_t mask;		/* FUSEBPF_POLICY_* an exception is for */
};

/* A growing array of changes. */
struct policy_vec {
	struct policy_change *v;
	int n;
};
/* Append a zeroed change of op with val; NULL when out of memory (v unchanged). */
struct policy_change *policy_vec_add(struct policy_vec *v, enum policy_op op, int val);

/* A file name as a hash key; -EINVAL for "", "." , "..", or a '/'; -ENAMETOOLONG. */
int policy_name_key(const char *s, struct fusebpf_name *key);
/* "prefix"/"suffix"/"glob"/"name" -> kind (name: FUSEBPF_PAT_NONE); -1 if unknown. */
int policy_pattern_kind(const char *s);
const char *policy_pattern_kind_name(uint32_t kind);
/* A hide pattern (1..FUSEBPF_PATTERN_MAX-1 bytes, no '/'); 0 or -errno. */
int policy_pattern(uint32_t kind, const char *s, struct fusebpf_pattern *pat);
/*
 * Mode changes: comma-separated "+BITS" (set), "-BITS" (clear), "=BITS" or
 * "BITS" (exactly these permission bits); BITS octal, within 07777.
 * 0 or -EINVAL.
 */
int policy_parse_mode(const char *spec, uint32_t *set, uint32_t *clear);
/* A uid or gid: a number or a user/group name; 0 or -EINVAL. */
int policy_parse_id(const char *s, bool group, uint32_t *id);
/* "hide,attrs,denywrite" -> FUSEBPF_POLICY_* mask; -EINVAL. */
int policy_parse_policies(const char *s, uint32_t *mask);
/* on/off, yes/no, 1/0, true/false -> 1/0; -1 when neither. */
int parse_bool(const char *s);
/* An events rate or burst: 1..FUSEBPF_EV_MAX; 0 or -EINVAL. */
int policy_parse_ev_count(const char *s, uint32_t *v);
/* The policies an exception can be for, of a filter with these maps. */
#define POLICY_EXCEPTABLE (FUSEBPF_POLICY_HIDE | FUSEBPF_POLICY_DENYWRITE)

/* Apply a change to the filter pinned as name; 0 or -errno (message printed). */
int policy_apply(const char *name, const struct policy_change *c);
/* Changes that load applies after pinning (its policy options). */
int policy_apply_all(const char *name, const struct policy_change *c, int n);

/* A change as the fusebpfctl command that makes it ("hide NAME add x.txt"). */
void policy_change_str(const char *filter, const struct policy_change *c, char *buf, size_t cap);

/* The filter's current policy: {"name", "config", "hide", "attrs", "deny", "except"}. */
int policy_read(const char *name, json_object **out);
void policy_print_plain(json_object *p);

#endif
