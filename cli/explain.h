/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fusebpfctl explain: which view, filter and rule decide what a caller gets
 * for a path, without doing the operation. The decision here is a pure
 * function of a mount record and the policy of the filters it uses (as read
 * from their maps), so tests/host/cli_explain.c checks it without a kernel.
 * It follows what the filters in bpf-progs/ do (hide.bpf.h, denywrite.bpf.h,
 * attrs.bpf.h, fusebpf.bpf.c) and which program runs where (server.h):
 *
 * - every component of the path is looked up (LOOKUP) by the program of its
 *   parent directory; a hidden one ends the walk with ENOENT, except for the
 *   last name of an op that creates it;
 * - an op that names an entry (create, mkdir, unlink, ...) runs the parent's
 *   program, an op on the node itself (open, write, setattr, ...) the node's;
 * - the program of a node is that of the first --at SUBDIR on its path,
 *   else the mount's --filter; with --at, the root and the directories
 *   above each SUBDIR are served by fusebpfctl, outside every filter;
 * - the combined filter runs denywrite, then hide, then attrs; audit mode
 *   (FUSEBPF_CFG_AUDIT) records would-deny and would-hide and goes on.
 */
#ifndef FUSEBPFCTL_EXPLAIN_H
#define FUSEBPFCTL_EXPLAIN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "json.h"

/* --- input ------------------------------------------------------------------------ */

struct explain_rule {
	struct fusebpf_name name;	/* all zero: the rule for every name */
	struct fusebpf_attr_rule rule;
};

struct explain_except {
	struct fusebpf_except_key key;
	uint32_t mask;			/* FUSEBPF_POLICY_* */
};

/* A loaded filter's policy, as its maps hold it (explain_cmd.c reads them). */
struct explain_filter {
	char name[NAME_LEN];
	char kind[32];			/* a built-in's name, "file", "unknown" */
	struct fusebpf_config cfg;
	bool has_hide, has_attrs, has_deny;	/* which policy maps it has */
	int nnames;
	struct fusebpf_name *names;	/* hide_names */
	struct fusebpf_pattern patterns[FUSEBPF_HIDE_PATTERNS_MAX];
	int nrules;
	struct explain_rule *rules;	/* attr_rules */
	int nallow;
	struct fusebpf_name *allow;	/* deny_allow */
	int nexcept;
	struct explain_except *except;	/* fusebpf_except */
};

/* The policies a filter runs: a single built-in's own, the combined one's config. */
uint32_t explain_policies(const struct explain_filter *f);
/* Whether explain knows what the filter decides (a built-in kind). */
bool explain_known_kind(const char *kind);
void explain_filter_free(struct explain_filter *f);

/* What the op does, for the filters. */
enum explain_op_kind {
	EXOP_LOOKUP,		/* look the path up (every op does, first) */
	EXOP_NODE_READ,		/* an op on the node that changes nothing */
	EXOP_NODE_WRITE,	/* an op on the node that changes it (denywrite) */
	EXOP_NAME_CREATE,	/* an op that makes the last name */
	EXOP_NAME_REMOVE,	/* an op that removes the last name */
};

struct explain_op {
	const char *name;	/* as --op takes it: "lookup", "write", ... */
	enum explain_op_kind kind;
	bool attrs;		/* its reply carries attributes that attrs rewrites */
	const char *what;	/* the system calls it stands for, for the help */
};

extern const struct explain_op explain_ops[];
extern const int explain_nops;
/* The op named s (exact, case-insensitive); NULL when unknown. */
const struct explain_op *explain_find_op(const char *s);

struct explain_query {
	const struct mount_rec *m;
	const char *rel;		/* relative to the backing root, normalized; "" the root */
	uint32_t uid, gid;
	const struct explain_op *op;
	const struct explain_filter *filters;	/* the loaded filters the mount uses */
	int nfilters;
};

/* --- output ----------------------------------------------------------------------- */

enum explain_verdict {
	EXV_ALLOW,
	EXV_HIDE,
	EXV_DENY,
	EXV_WOULD_HIDE,		/* audit mode */
	EXV_WOULD_DENY,
	EXV_EXCEPTED,		/* a step only: the policy matched, the caller is excepted */
	EXV_UNKNOWN,		/* a filter explain cannot read the mind of */
};

#define EXPLAIN_MAX_STEPS 32

/* One decision on the way: a policy that matched (or a filter nobody can explain). */
struct explain_step {
	char path[PATH_MAX];		/* relative to the view's root */
	const char *op;			/* "lookup", or the op's name */
	char filter[NAME_LEN];		/* "" none */
	char subtree[PATH_MAX];		/* the --at SUBDIR of the filter, "" the mount's */
	const char *policy;		/* "hide", "denywrite", or NULL */
	enum explain_verdict verdict;
	int err;			/* positive errno the caller gets (or would), 0 none */
	const char *rule;		/* "name", "prefix", "suffix", "glob", "dotfiles":
					 * hide; "write", "allow": denywrite; "served":
					 * a name in a directory fusebpfctl serves; or NULL */
	char match[FUSEBPF_NAME_MAX];	/* the name or pattern that matched, "" none */
	uint32_t except_kind;		/* FUSEBPF_EXCEPT_UID/GID when excepted, else 0 */
	uint32_t except_id;
};

struct explain_result {
	/* The program that runs the op itself, and where it comes from. */
	char filter[NAME_LEN];		/* "" none */
	char subtree[PATH_MAX];		/* "" the mount's --filter */
	bool served;			/* done by fusebpfctl's server, outside every filter */
	enum explain_verdict verdict;	/* ALLOW, HIDE, DENY, WOULD_*, UNKNOWN */
	int err;
	int nsteps;
	bool truncated;			/* more steps than EXPLAIN_MAX_STEPS */
	struct explain_step steps[EXPLAIN_MAX_STEPS];
	/* The attribute rule the reply goes through (ops with attrs, when shown). */
	bool has_attrs;
	char attrs_filter[NAME_LEN];
	bool attrs_every;		/* the rule for every name, not the name's own */
	char attrs_name[FUSEBPF_NAME_MAX];	/* the name's own rule: the name */
	struct fusebpf_attr_rule attrs;
	const char *note;		/* why the answer is incomplete, or NULL */
};

/* Decide; res is filled in (large: allocate it). */
void explain_decide(const struct explain_query *q, struct explain_result *res);

/* "allow", "hide", "deny", "would-hide", "would-deny", "excepted", "unknown". */
const char *explain_verdict_name(enum explain_verdict v);

/* --- paths ------------------------------------------------------------------------ */

/*
 * path made absolute against cwd (when relative), with ".", ".." and
 * repeated '/' resolved lexically (symlinks are not followed: a view may
 * hide them); 0 or -ENAMETOOLONG.
 */
int explain_normalize(const char *cwd, const char *path, char *out, size_t cap);
/*
 * The record whose mount point holds abs (the longest), and abs relative to
 * it in rel ("" for the mount point itself); its index, or -ENOENT.
 */
int explain_find_mount(const struct mount_rec *recs, int n, const char *abs, char *rel, size_t cap);

/* --- printing --------------------------------------------------------------------- */

/*
 * {"path": S, "view": {"mountpoint": S, "backing": S, "mode": S}, "relpath": S,
 *  "caller": {"uid": N, "gid": N}, "op": S, "filter": S|null, "subtree": S|null,
 *  "served": B, "verdict": S, "errno": S|null,
 *  "steps": [{"path": S, "op": S, "filter": S|null, "subtree": S|null,
 *             "policy": S|null, "verdict": S, "errno": S|null, "rule": S|null,
 *             "match": S|null, "excepted": {"kind": "uid"|"gid", "id": N}|null}],
 *  "attrs": {"filter": S, "rule": S|null, "mode_set": S, "mode_clear": S,
 *            "uid": N|null, "gid": N|null}|null,
 *  "note": S|null}
 */
json_object *json_explain(const char *path, const struct explain_query *q,
			  const struct explain_result *r);
void explain_print_plain(FILE *out, const char *path, const struct explain_query *q,
			 const struct explain_result *r);

#endif
