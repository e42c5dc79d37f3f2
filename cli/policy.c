// SPDX-License-Identifier: GPL-2.0
/* Policy changes on a loaded filter's pinned maps, and reading the policy back. */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "filter.h"
#include "fusebpfctl.h"
#include "json.h"
#include "namemaps.h"
#include "policy.h"

static const char *op_map(enum policy_op op)
{
	switch (op) {
	case POL_HIDE_ADD:
	case POL_HIDE_DEL:
		return FUSEBPF_MAP_HIDE_NAMES;
	case POL_PATTERN_ADD:
	case POL_PATTERN_DEL:
		return FUSEBPF_MAP_HIDE_PATTERNS;
	case POL_ATTR_SET:
	case POL_ATTR_DEL:
		return FUSEBPF_MAP_ATTR_RULES;
	case POL_ALLOW_ADD:
	case POL_ALLOW_DEL:
		return FUSEBPF_MAP_DENY_ALLOW;
	case POL_EXCEPT_ADD:
	case POL_EXCEPT_DEL:
		return FUSEBPF_MAP_EXCEPT;
	default:
		return FUSEBPF_MAP_CONFIG;
	}
}

/* The events switches live in the config, but mean something only with events. */
static bool op_is_events(enum policy_op op)
{
	return op == POL_EVENTS || op == POL_EV_RATE || op == POL_EV_BURST || op == POL_EV_READDIR;
}

static const char *op_policy(enum policy_op op)
{
	switch (op) {
	case POL_HIDE_ADD:
	case POL_HIDE_DEL:
	case POL_PATTERN_ADD:
	case POL_PATTERN_DEL:
		return "hide";
	case POL_ATTR_SET:
	case POL_ATTR_DEL:
		return "attrs";
	case POL_ALLOW_ADD:
	case POL_ALLOW_DEL:
		return "denywrite";
	case POL_EXCEPT_ADD:
	case POL_EXCEPT_DEL:
		return "except";
	default:
		return op_is_events(op) ? "events" : "config";
	}
}

static int update_config(int fd, const struct policy_change *c)
{
	struct fusebpf_config cfg = {};
	uint32_t key = 0;

	if (bpf_map_lookup_elem(fd, &key, &cfg))
		return -errno;
	switch (c->op) {
	case POL_DOTFILES:
		if (c->val)
			cfg.hide_flags |= FUSEBPF_HIDE_DOTFILES;
		else
			cfg.hide_flags &= ~FUSEBPF_HIDE_DOTFILES;
		break;
	case POL_HIDE_ERRNO:
		cfg.hide_errno = c->val;
		break;
	case POL_DENY_ERRNO:
		cfg.deny_errno = c->val;
		break;
	case POL_POLICIES:
		cfg.policies = c->val;
		break;
	case POL_POSTFILTER:
		if (c->val)
			cfg.flags &= ~FUSEBPF_CFG_NO_POSTFILTER;
		else
			cfg.flags |= FUSEBPF_CFG_NO_POSTFILTER;
		break;
	case POL_EVENTS:
		if (c->val)
			cfg.flags &= ~FUSEBPF_CFG_NO_EVENTS;
		else
			cfg.flags |= FUSEBPF_CFG_NO_EVENTS;
		break;
	case POL_EV_READDIR:
		if (c->val)
			cfg.flags |= FUSEBPF_CFG_EV_READDIR;
		else
			cfg.flags &= ~FUSEBPF_CFG_EV_READDIR;
		break;
	case POL_EV_RATE:
		cfg.ev_rate = c->val;
		break;
	case POL_EV_BURST:
		cfg.ev_burst = c->val;
		break;
	case POL_ENFORCE:
		if (c->val)
			cfg.flags &= ~FUSEBPF_CFG_AUDIT;
		else
			cfg.flags |= FUSEBPF_CFG_AUDIT;
		break;
	default:
		return -EINVAL;
	}
	return bpf_map_update_elem(fd, &key, &cfg, BPF_ANY) ? -errno : 0;
}

/* The slots of hide_patterns; the number in use (up to the first unused one), or -errno. */
static int read_pattern_slots(int fd, struct fusebpf_pattern *slots)
{
	int used = -1;

	for (uint32_t i = 0; i < FUSEBPF_HIDE_PATTERNS_MAX; i++) {
		if (bpf_map_lookup_elem(fd, &i, &slots[i]))
			return -errno;
		if (slots[i].kind == FUSEBPF_PAT_NONE && used < 0)
			used = i;
	}
	return used < 0 ? FUSEBPF_HIDE_PATTERNS_MAX : used;
}

static int write_pattern_slot(int fd, uint32_t slot, const struct fusebpf_pattern *p)
{
	return bpf_map_update_elem(fd, &slot, p, BPF_ANY) ? -errno : 0;
}

/*
 * The patterns stay packed from slot 0, because the filter stops at the
 * first unused slot: a new one goes after the last, and the last takes the
 * place of a removed one before its own slot is freed (so that a name
 * matched meanwhile meets every pattern at least once).
 */
static int update_pattern(int fd, const struct policy_change *c)
{
	struct fusebpf_pattern want, slots[FUSEBPF_HIDE_PATTERNS_MAX], none = { 0 };
	int err, used, i;

	err = policy_pattern(c->pat_kind, c->name, &want);
	if (err)
		return err;
	used = read_pattern_slots(fd, slots);
	if (used < 0)
		return used;
	for (i = 0; i < FUSEBPF_HIDE_PATTERNS_MAX; i++)
		if (slots[i].kind != FUSEBPF_PAT_NONE && !memcmp(&slots[i], &want, sizeof(want)))
			break;
	if (c->op == POL_PATTERN_ADD) {
		if (i < used)
			return 0;
		return used < FUSEBPF_HIDE_PATTERNS_MAX ? write_pattern_slot(fd, used, &want) :
							   -ENOSPC;
	}
	if (i == FUSEBPF_HIDE_PATTERNS_MAX)
		return -ENOENT;
	/* One past the list (left there by another tool) only needs freeing */
	if (i < used - 1 && (err = write_pattern_slot(fd, i, &slots[used - 1])))
		return err;
	return write_pattern_slot(fd, i < used ? used - 1 : i, &none);
}

/* Add or remove the policies of an exception; the id goes when none is left. */
static int update_except(int fd, const struct policy_change *c)
{
	struct fusebpf_except_key key = { .kind = c->id_kind, .id = (uint32_t)c->val };
	uint32_t mask = c->mask ? c->mask : POLICY_EXCEPTABLE, cur = 0;

	if (bpf_map_lookup_elem(fd, &key, &cur) && errno != ENOENT)
		return -errno;
	if (c->op == POL_EXCEPT_ADD)
		return bpf_map_update_elem(fd, &key, &(uint32_t){ cur | mask }, BPF_ANY) ? -errno : 0;
	if (!(cur & mask))
		return -ENOENT;
	cur &= ~mask;
	if (cur)
		return bpf_map_update_elem(fd, &key, &cur, BPF_ANY) ? -errno : 0;
	return bpf_map_delete_elem(fd, &key) ? -errno : 0;
}

/*
 * FUSEBPF_HIDE_EXCEPTIONS in the config says whether fusebpf_except has a
 * hide exception: the LOOKUP postfilter checks names only then.
 */
static int sync_hide_exceptions(const char *name, int except_fd)
{
	struct fusebpf_except_key key, next;
	struct fusebpf_config cfg = {};
	uint32_t mask, zero = 0, flags;
	void *prev = NULL;
	bool any = false;
	int fd, err = 0;

	while (!any && bpf_map_get_next_key(except_fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		any = bpf_map_lookup_elem(except_fd, &key, &mask) == 0 && (mask & FUSEBPF_POLICY_HIDE);
	}
	fd = filter_obj_fd(name, FUSEBPF_MAP_CONFIG);
	if (fd < 0)
		return fd;
	if (bpf_map_lookup_elem(fd, &zero, &cfg)) {
		err = -errno;
		goto out;
	}
	flags = any ? cfg.hide_flags | FUSEBPF_HIDE_EXCEPTIONS : cfg.hide_flags & ~FUSEBPF_HIDE_EXCEPTIONS;
	if (flags != cfg.hide_flags) {
		cfg.hide_flags = flags;
		err = bpf_map_update_elem(fd, &zero, &cfg, BPF_ANY) ? -errno : 0;
	}
out:
	close(fd);
	return err;
}

/* The loaded filter has the map; other errors say yes, for the update to report them. */
static bool has_map(const char *name, const char *map)
{
	int fd = filter_obj_fd(name, map);

	if (fd >= 0)
		close(fd);
	return fd != -ENOENT || !filter_loaded(name);
}

/*
 * Has the filter what the change needs beyond its map: events, the policy
 * an exception is for, a policy that refuses or hides for audit mode?
 */
static int check_policy(const char *name, const struct policy_change *c)
{
	bool hide = c->mask & FUSEBPF_POLICY_HIDE;
	int fd;

	if (c->op == POL_ENFORCE && !has_map(name, FUSEBPF_MAP_HIDE_NAMES) &&
	    !has_map(name, FUSEBPF_MAP_DENY_ALLOW))
		return fail(0, "filter '%s' has no hide or denywrite policy to audit", name),
		       -EOPNOTSUPP;

	if (op_is_events(c->op)) {
		fd = filter_obj_fd(name, FUSEBPF_MAP_EVENTS);
		if (fd >= 0)
			close(fd);
		else if (fd == -ENOENT && filter_loaded(name))
			return fail(0, "filter '%s' reports no events (no map %s)", name,
				    FUSEBPF_MAP_EVENTS), -EOPNOTSUPP;
	}
	if (c->op != POL_EXCEPT_ADD && c->op != POL_EXCEPT_DEL)
		return 0;
	/* An exception is for a policy the filter has (hide, denywrite). */
	fd = -ENOENT;
	if (c->mask)
		fd = filter_obj_fd(name, hide ? FUSEBPF_MAP_HIDE_NAMES : FUSEBPF_MAP_DENY_ALLOW);
	if (fd >= 0)
		close(fd);
	else if (fd == -ENOENT && filter_loaded(name))
		return fail(0, "filter '%s' has no %s policy", name,
			    !c->mask ? "hide or denywrite" : hide ? "hide" : "denywrite"), -EOPNOTSUPP;
	return 0;
}

/* The map the change goes to; -errno with the error printed. */
static int open_policy_map(const char *name, const struct policy_change *c, const char *map)
{
	int fd = filter_obj_fd(name, map);

	if (fd == -ENOENT) {
		if (!filter_loaded(name))
			return fail(ENOENT, "filter '%s': not loaded", name), -ENOENT;
		return fail(0, "filter '%s' has no %s policy (no map %s)", name, op_policy(c->op),
			    map), -EOPNOTSUPP;
	}
	if (fd < 0)
		fail(-fd, "filter '%s': open map %s", name, map);
	return fd;
}

/* A name-keyed map: hide_names, deny_allow (a set), attr_rules ("" is every name). */
static int update_names(int fd, const struct policy_change *c)
{
	struct fusebpf_name key;
	uint32_t one = 1;
	int err;

	memset(&key, 0, sizeof(key));	/* the all-zero key: the rule for every name */
	err = c->name[0] || (c->op != POL_ATTR_SET && c->op != POL_ATTR_DEL) ?
	      policy_name_key(c->name, &key) : 0;
	if (err)
		return err;
	if (c->op == POL_HIDE_ADD || c->op == POL_ALLOW_ADD)
		return bpf_map_update_elem(fd, &key, &one, BPF_ANY) ? -errno : 0;
	if (c->op == POL_ATTR_SET)
		return bpf_map_update_elem(fd, &key, &c->rule, BPF_ANY) ? -errno : 0;
	return bpf_map_delete_elem(fd, &key) ? -errno : 0;
}

int policy_apply(const char *name, const struct policy_change *c)
{
	const char *map = namemaps_of(op_map(c->op), c->name);
	int fd, err;

	err = check_policy(name, c);
	if (err)
		return err;
	fd = open_policy_map(name, c, map);
	if (fd < 0)
		return fd;
	switch (c->op) {
	case POL_HIDE_ADD:
	case POL_ALLOW_ADD:
	case POL_HIDE_DEL:
	case POL_ALLOW_DEL:
	case POL_ATTR_SET:
	case POL_ATTR_DEL:
		err = update_names(fd, c);
		break;
	case POL_PATTERN_ADD:
	case POL_PATTERN_DEL:
		err = update_pattern(fd, c);
		break;
	case POL_EXCEPT_ADD:
	case POL_EXCEPT_DEL:
		err = update_except(fd, c);
		if (!err)
			err = sync_hide_exceptions(name, fd);
		break;
	default:
		err = update_config(fd, c);
		break;
	}
	close(fd);
	if (err == -ENOENT)
		fail(ENOENT, "filter '%s': %s '%s' is not in the policy", name, op_policy(c->op),
		     c->name[0] ? c->name : "(every name)");
	else if (err)
		fail(-err, "filter '%s': update map %s", name, map);
	return err;
}

int policy_apply_all(const char *name, const struct policy_change *c, int n)
{
	for (int i = 0; i < n; i++) {
		int err = policy_apply(name, &c[i]);

		if (err)
			return err;
	}
	return 0;
}

/* --- reading ------------------------------------------------------------------ */

static int cmp_jstr(const void *a, const void *b)
{
	return strcmp(json_object_get_string(*(json_object *const *)a),
		      json_object_get_string(*(json_object *const *)b));
}

static int add_name(int fd, const void *key, const char *name, void *arr)
{
	(void)fd;
	(void)key;
	json_object_array_add(arr, json_object_new_string(name));
	return 0;
}

/* The names of a name-keyed policy (both its maps), as a sorted JSON array. */
static json_object *name_keys(const char *filter, const char *map)
{
	json_object *arr = json_object_new_array();

	namemaps_each(filter, map, add_name, arr);
	json_object_array_sort(arr, cmp_jstr);
	return arr;
}

static json_object *mode_str(uint32_t bits)
{
	char buf[8];

	snprintf(buf, sizeof(buf), "%04o", bits);
	return json_object_new_string(buf);
}

static json_object *errno_json(int err, int dflt)
{
	const char *n = errno_name(err ? err : dflt);

	return n ? json_object_new_string(n) : json_object_new_int(err);
}

static int cmp_rule(const void *a, const void *b)
{
	json_object *na, *nb;

	json_object_object_get_ex(*(json_object *const *)a, "name", &na);
	json_object_object_get_ex(*(json_object *const *)b, "name", &nb);
	if (!na || !nb)
		return !na ? -1 : !nb;
	return strcmp(json_object_get_string(na), json_object_get_string(nb));
}

static json_object *events_json(const struct fusebpf_config *cfg)
{
	json_object *e = json_object_new_object();

	json_object_object_add(e, "enabled", json_object_new_boolean(!(cfg->flags & FUSEBPF_CFG_NO_EVENTS)));
	json_object_object_add(e, "rate", json_object_new_int64(cfg->ev_rate && cfg->ev_rate <= FUSEBPF_EV_MAX ?
						       cfg->ev_rate : FUSEBPF_EV_RATE_DEFAULT));
	json_object_object_add(e, "burst", json_object_new_int64(cfg->ev_burst && cfg->ev_burst <= FUSEBPF_EV_MAX ?
							cfg->ev_burst : FUSEBPF_EV_BURST_DEFAULT));
	json_object_object_add(e, "readdir", json_object_new_boolean(cfg->flags & FUSEBPF_CFG_EV_READDIR));
	return e;
}

static json_object *policy_names_json(uint32_t mask)
{
	json_object *a = json_object_new_array();

	if (mask & FUSEBPF_POLICY_HIDE)
		json_object_array_add(a, json_object_new_string("hide"));
	if (mask & FUSEBPF_POLICY_ATTRS)
		json_object_array_add(a, json_object_new_string("attrs"));
	if (mask & FUSEBPF_POLICY_DENYWRITE)
		json_object_array_add(a, json_object_new_string("denywrite"));
	return a;
}

static int cmp_except(const void *a, const void *b)
{
	json_object *x = *(json_object *const *)a, *y = *(json_object *const *)b, *v;
	int64_t kx, ky;
	const char *sx, *sy;
	int c;

	json_object_object_get_ex(x, "kind", &v);
	sx = json_object_get_string(v);
	json_object_object_get_ex(y, "kind", &v);
	sy = json_object_get_string(v);
	c = strcmp(sy, sx);	/* uid before gid */
	if (c)
		return c;
	json_object_object_get_ex(x, "id", &v);
	kx = json_object_get_int64(v);
	json_object_object_get_ex(y, "id", &v);
	ky = json_object_get_int64(v);
	return kx < ky ? -1 : kx > ky;
}

/* [{"kind": "uid"|"gid", "id": N, "policies": [S]}], sorted. */
static json_object *except_json(int fd)
{
	json_object *arr = json_object_new_array();
	struct fusebpf_except_key key, next;
	void *prev = NULL;
	uint32_t mask;

	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		json_object *e;

		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &mask))
			continue;
		e = json_object_new_object();
		json_object_object_add(e, "kind", json_object_new_string(
					       key.kind == FUSEBPF_EXCEPT_GID ? "gid" : "uid"));
		json_object_object_add(e, "id", json_object_new_int64(key.id));
		json_object_object_add(e, "policies", policy_names_json(mask));
		json_object_array_add(arr, e);
	}
	json_object_array_sort(arr, cmp_except);
	return arr;
}

/* {"policies", "postfilter", "enforce", "hide_dotfiles", "hide_errno", "deny_errno", "events"}, or NULL. */
static json_object *config_json(const char *name)
{
	int fd = filter_obj_fd(name, FUSEBPF_MAP_CONFIG), efd;
	struct fusebpf_config cfg = {};
	json_object *c = NULL;
	uint32_t zero = 0;

	if (fd >= 0 && bpf_map_lookup_elem(fd, &zero, &cfg) == 0) {
		c = json_object_new_object();
		json_object_object_add(c, "policies", policy_names_json(cfg.policies));
		json_object_object_add(c, "postfilter",
				       json_object_new_boolean(!(cfg.flags & FUSEBPF_CFG_NO_POSTFILTER)));
		json_object_object_add(c, "enforce",
				       json_object_new_boolean(!(cfg.flags & FUSEBPF_CFG_AUDIT)));
		json_object_object_add(c, "hide_dotfiles",
				       json_object_new_boolean(cfg.hide_flags & FUSEBPF_HIDE_DOTFILES));
		json_object_object_add(c, "hide_errno", errno_json(cfg.hide_errno, EACCES));
		json_object_object_add(c, "deny_errno", errno_json(cfg.deny_errno, EROFS));
		efd = filter_obj_fd(name, FUSEBPF_MAP_EVENTS);
		json_object_object_add(c, "events", efd >= 0 ? events_json(&cfg) : NULL);
		if (efd >= 0)
			close(efd);
	}
	if (fd >= 0)
		close(fd);
	return c;
}

/* [{"kind", "pattern"}] of the used slots. */
static json_object *patterns_json(int pfd)
{
	json_object *pats = json_object_new_array();

	for (uint32_t i = 0; pfd >= 0 && i < FUSEBPF_HIDE_PATTERNS_MAX; i++) {
		struct fusebpf_pattern p;
		json_object *pj;

		if (bpf_map_lookup_elem(pfd, &i, &p) || p.kind == FUSEBPF_PAT_NONE)
			continue;
		p.pat[FUSEBPF_PATTERN_MAX - 1] = 0;
		pj = json_object_new_object();
		json_object_object_add(pj, "kind", json_object_new_string(policy_pattern_kind_name(p.kind)));
		json_object_object_add(pj, "pattern", json_object_new_string(p.pat));
		json_object_array_add(pats, pj);
	}
	return pats;
}

/* {"names": [...], "patterns": [{"kind", "pattern"}]}, or NULL. */
static json_object *hide_json(const char *name)
{
	int fd = filter_obj_fd(name, FUSEBPF_MAP_HIDE_NAMES), pfd;
	json_object *h;

	if (fd < 0)
		return NULL;
	close(fd);
	h = json_object_new_object();
	json_object_object_add(h, "names", name_keys(name, FUSEBPF_MAP_HIDE_NAMES));
	pfd = filter_obj_fd(name, FUSEBPF_MAP_HIDE_PATTERNS);
	json_object_object_add(h, "patterns", patterns_json(pfd));
	if (pfd >= 0)
		close(pfd);
	return h;
}

static json_object *rule_json(const char *name, const struct fusebpf_attr_rule *r)
{
	json_object *rj = json_object_new_object();

	json_object_object_add(rj, "name", name[0] ? json_object_new_string(name) : NULL);
	json_object_object_add(rj, "mode_set", mode_str(r->mode_set));
	json_object_object_add(rj, "mode_clear", mode_str(r->mode_clear));
	json_object_object_add(rj, "uid", r->flags & FUSEBPF_ATTR_FORCE_UID ?
			       json_object_new_int64(r->uid) : NULL);
	json_object_object_add(rj, "gid", r->flags & FUSEBPF_ATTR_FORCE_GID ?
			       json_object_new_int64(r->gid) : NULL);
	return rj;
}

static int add_rule(int fd, const void *key, const char *name, void *rules)
{
	struct fusebpf_attr_rule r;

	if (bpf_map_lookup_elem(fd, key, &r) == 0)	/* else deleted meanwhile */
		json_object_array_add(rules, rule_json(name, &r));
	return 0;
}

/* [{"name": S|null, "mode_set", "mode_clear", "uid": N|null, "gid": N|null}], or NULL. */
static json_object *attrs_json(const char *name)
{
	int fd = filter_obj_fd(name, FUSEBPF_MAP_ATTR_RULES);
	json_object *rules;

	if (fd < 0)
		return NULL;
	close(fd);
	rules = json_object_new_array();
	namemaps_each(name, FUSEBPF_MAP_ATTR_RULES, add_rule, rules);
	json_object_array_sort(rules, cmp_rule);
	return rules;
}

/* {"allow": [...]}, or NULL. */
static json_object *deny_json(const char *name)
{
	int fd = filter_obj_fd(name, FUSEBPF_MAP_DENY_ALLOW);
	json_object *d;

	if (fd < 0)
		return NULL;
	close(fd);
	d = json_object_new_object();
	json_object_object_add(d, "allow", name_keys(name, FUSEBPF_MAP_DENY_ALLOW));
	return d;
}

int policy_read(const char *name, json_object **out)
{
	json_object *o;
	int fd;

	*out = NULL;
	if (!filter_loaded(name))
		return -ENOENT;
	o = json_object_new_object();
	json_object_object_add(o, "name", json_object_new_string(name));
	json_object_object_add(o, "config", config_json(name));
	json_object_object_add(o, "hide", hide_json(name));
	json_object_object_add(o, "attrs", attrs_json(name));
	json_object_object_add(o, "deny", deny_json(name));
	fd = filter_obj_fd(name, FUSEBPF_MAP_EXCEPT);
	json_object_object_add(o, "except", fd >= 0 ? except_json(fd) : NULL);
	if (fd >= 0)
		close(fd);
	*out = o;
	return 0;
}

static const char *jstr(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !v)
		return NULL;
	return json_object_get_string(v);
}

void policy_print_plain(json_object *p)
{
	json_object *cfg, *h, *a, *d, *v;

	printf("%s\n", jstr(p, "name"));
	if (json_object_object_get_ex(p, "config", &cfg) && cfg) {
		json_object *pol;
		size_t n;

		json_object_object_get_ex(cfg, "policies", &pol);
		n = json_object_array_length(pol);
		printf("  policies:   ");
		for (size_t i = 0; i < n; i++)
			printf("%s%s", i ? "," : "", json_object_get_string(json_object_array_get_idx(pol, i)));
		printf("%s\n", n ? "" : "(none)");
		printf("  postfilter: %s\n", strcmp(jstr(cfg, "postfilter"), "true") ? "off" : "on");
		printf("  enforce:    %s\n", strcmp(jstr(cfg, "enforce"), "true") ?
		       "off (audit mode: would-deny and would-hide are reported, nothing is refused)" :
		       "on");
		if (json_object_object_get_ex(cfg, "events", &v) && v)
			printf("  events:     %s, %s/s, burst %s, readdir %s\n",
			       strcmp(jstr(v, "enabled"), "true") ? "off" : "on", jstr(v, "rate"),
			       jstr(v, "burst"), strcmp(jstr(v, "readdir"), "true") ? "off" : "on");
	}
	if (json_object_object_get_ex(p, "except", &v) && v) {
		for (size_t i = 0; i < json_object_array_length(v); i++) {
			json_object *e = json_object_array_get_idx(v, i), *pol;

			json_object_object_get_ex(e, "policies", &pol);
			printf("  except:     %s %s (", jstr(e, "kind"), jstr(e, "id"));
			for (size_t k = 0; k < json_object_array_length(pol); k++)
				printf("%s%s", k ? ", " : "",
				       json_object_get_string(json_object_array_get_idx(pol, k)));
			printf(")\n");
		}
	}
	if (json_object_object_get_ex(p, "hide", &h) && h) {
		json_object_object_get_ex(h, "names", &v);
		printf("  hide:       dotfiles %s, errno %s\n",
		       cfg && !strcmp(jstr(cfg, "hide_dotfiles"), "true") ? "on" : "off",
		       cfg ? jstr(cfg, "hide_errno") : "EACCES");
		for (size_t i = 0; i < json_object_array_length(v); i++)
			printf("    name   %s\n", json_object_get_string(json_object_array_get_idx(v, i)));
		json_object_object_get_ex(h, "patterns", &v);
		for (size_t i = 0; i < json_object_array_length(v); i++) {
			json_object *pj = json_object_array_get_idx(v, i);

			printf("    %-6s %s\n", jstr(pj, "kind"), jstr(pj, "pattern"));
		}
	}
	if (json_object_object_get_ex(p, "attrs", &a) && a) {
		printf("  attrs:%s\n", json_object_array_length(a) ? "" : "      (no rules)");
		for (size_t i = 0; i < json_object_array_length(a); i++) {
			json_object *r = json_object_array_get_idx(a, i);
			const char *uid = jstr(r, "uid"), *gid = jstr(r, "gid"), *n = jstr(r, "name");

			printf("    %-20s set %s clear %s uid %s gid %s\n", n ? n : "(every name)",
			       jstr(r, "mode_set"), jstr(r, "mode_clear"), uid ? uid : "-",
			       gid ? gid : "-");
		}
	}
	if (json_object_object_get_ex(p, "deny", &d) && d) {
		json_object_object_get_ex(d, "allow", &v);
		printf("  denywrite:  errno %s\n", cfg ? jstr(cfg, "deny_errno") : "EROFS");
		for (size_t i = 0; i < json_object_array_length(v); i++)
			printf("    allow  %s\n", json_object_get_string(json_object_array_get_idx(v, i)));
	}
}
