// SPDX-License-Identifier: GPL-2.0
/* fusebpfctl explain's answer as JSON and as text (explain.h); no kernel needed. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "events_fmt.h"
#include "explain.h"
#include "fusebpfctl.h"

static json_object *str_or_null(const char *s)
{
	return s && *s ? json_object_new_string(s) : NULL;
}

static json_object *errno_json(int err)
{
	char buf[16];

	return err ? json_object_new_string(event_errno_name(err, buf, sizeof(buf))) : NULL;
}

static json_object *mode_json(uint32_t bits)
{
	char buf[8];

	snprintf(buf, sizeof(buf), "%04o", bits & 07777);
	return json_object_new_string(buf);
}

static json_object *step_json(const struct explain_step *s)
{
	json_object *o = json_object_new_object(), *e = NULL;

	json_object_object_add(o, "path", json_object_new_string(s->path));
	json_object_object_add(o, "op", json_object_new_string(s->op));
	json_object_object_add(o, "filter", str_or_null(s->filter));
	json_object_object_add(o, "subtree", str_or_null(s->subtree));
	json_object_object_add(o, "policy", str_or_null(s->policy));
	json_object_object_add(o, "verdict", json_object_new_string(explain_verdict_name(s->verdict)));
	json_object_object_add(o, "errno", errno_json(s->err));
	json_object_object_add(o, "rule", str_or_null(s->rule));
	json_object_object_add(o, "match", str_or_null(s->match));
	if (s->except_kind) {
		e = json_object_new_object();
		json_object_object_add(e, "kind", json_object_new_string(
					       s->except_kind == FUSEBPF_EXCEPT_GID ? "gid" : "uid"));
		json_object_object_add(e, "id", json_object_new_int64(s->except_id));
	}
	json_object_object_add(o, "excepted", e);
	return o;
}

static json_object *attrs_json(const struct explain_result *r)
{
	json_object *o;

	if (!r->has_attrs)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "filter", json_object_new_string(r->attrs_filter));
	json_object_object_add(o, "rule", r->attrs_every ? NULL : json_object_new_string(r->attrs_name));
	json_object_object_add(o, "mode_set", mode_json(r->attrs.mode_set));
	json_object_object_add(o, "mode_clear", mode_json(r->attrs.mode_clear));
	json_object_object_add(o, "uid", r->attrs.flags & FUSEBPF_ATTR_FORCE_UID ?
			       json_object_new_int64(r->attrs.uid) : NULL);
	json_object_object_add(o, "gid", r->attrs.flags & FUSEBPF_ATTR_FORCE_GID ?
			       json_object_new_int64(r->attrs.gid) : NULL);
	return o;
}

static json_object *view_json(const struct mount_rec *m)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "mountpoint", json_object_new_string(m->mountpoint));
	json_object_object_add(o, "backing", json_object_new_string(m->backing));
	json_object_object_add(o, "mode", json_object_new_string(m->mode));
	return o;
}

json_object *json_explain(const char *path, const struct explain_query *q,
			  const struct explain_result *r)
{
	json_object *o = json_object_new_object(), *c = json_object_new_object();
	json_object *steps = json_object_new_array();

	json_object_object_add(o, "path", json_object_new_string(path));
	json_object_object_add(o, "view", view_json(q->m));
	json_object_object_add(o, "relpath", json_object_new_string(q->rel));
	json_object_object_add(c, "uid", json_object_new_int64(q->uid));
	json_object_object_add(c, "gid", json_object_new_int64(q->gid));
	json_object_object_add(o, "caller", c);
	json_object_object_add(o, "op", json_object_new_string(q->op->name));
	json_object_object_add(o, "filter", str_or_null(r->filter));
	json_object_object_add(o, "subtree", str_or_null(r->subtree));
	json_object_object_add(o, "served", json_object_new_boolean(r->served));
	json_object_object_add(o, "verdict", json_object_new_string(explain_verdict_name(r->verdict)));
	json_object_object_add(o, "errno", errno_json(r->err));
	for (int i = 0; i < r->nsteps; i++)
		json_object_array_add(steps, step_json(&r->steps[i]));
	json_object_object_add(o, "steps", steps);
	json_object_object_add(o, "attrs", attrs_json(r));
	json_object_object_add(o, "note", str_or_null(r->note));
	return o;
}

/* "private", "sub (--at sub)", or "none". */
static const char *filter_text(const char *filter, const char *subtree, char *buf, size_t cap)
{
	if (!*filter)
		return "none";
	if (!*subtree)
		return filter;
	snprintf(buf, cap, "%s (--at %s)", filter, subtree);
	return buf;
}

static void print_step(FILE *out, const struct explain_step *s)
{
	char fbuf[NAME_LEN + PATH_MAX + 16], ebuf[16];

	fprintf(out, "  %-8s %s \"%s\": %s", "step", s->op, s->path, explain_verdict_name(s->verdict));
	if (s->policy)
		fprintf(out, " by %s of %s", s->policy,
			filter_text(s->filter, s->subtree, fbuf, sizeof(fbuf)));
	else if (!*s->filter)
		fprintf(out, " by fusebpfctl's server");
	else
		fprintf(out, " by filter %s", filter_text(s->filter, s->subtree, fbuf, sizeof(fbuf)));
	if (s->rule)
		fprintf(out, ", rule %s%s%s%s", s->rule, *s->match ? " \"" : "", s->match,
			*s->match ? "\"" : "");
	if (s->err)
		fprintf(out, " (%s)", event_errno_name(s->err, ebuf, sizeof(ebuf)));
	if (s->except_kind)
		fprintf(out, ", excepted: %s %u",
			s->except_kind == FUSEBPF_EXCEPT_GID ? "gid" : "uid", s->except_id);
	fputc('\n', out);
}

static void print_attrs(FILE *out, const struct explain_result *r)
{
	const struct fusebpf_attr_rule *a = &r->attrs;

	fprintf(out, "  %-8s the rule for %s%s%s of %s: set %04o clear %04o", "attrs",
		r->attrs_every ? "every name" : "\"", r->attrs_every ? "" : r->attrs_name,
		r->attrs_every ? "" : "\"", r->attrs_filter, a->mode_set & 07777,
		a->mode_clear & 07777);
	if (a->flags & FUSEBPF_ATTR_FORCE_UID)
		fprintf(out, " uid %u", a->uid);
	if (a->flags & FUSEBPF_ATTR_FORCE_GID)
		fprintf(out, " gid %u", a->gid);
	fputc('\n', out);
}

void explain_print_plain(FILE *out, const char *path, const struct explain_query *q,
			 const struct explain_result *r)
{
	char fbuf[NAME_LEN + PATH_MAX + 16], ebuf[16];

	fprintf(out, "%s: %s", path, explain_verdict_name(r->verdict));
	if (r->err)
		fprintf(out, " (%s)", event_errno_name(r->err, ebuf, sizeof(ebuf)));
	fprintf(out, "\n  %-8s %s over %s (%s), path \"%s\"\n", "view", q->m->mountpoint,
		q->m->backing, q->m->mode, q->rel);
	fprintf(out, "  %-8s uid %u gid %u, op %s\n", "caller", q->uid, q->gid, q->op->name);
	fprintf(out, "  %-8s %s\n", "filter", r->served ? "none: served by fusebpfctl, outside "
		"every filter" : filter_text(r->filter, r->subtree, fbuf, sizeof(fbuf)));
	for (int i = 0; i < r->nsteps; i++)
		print_step(out, &r->steps[i]);
	if (r->has_attrs)
		print_attrs(out, r);
	if (r->note)
		fprintf(out, "  %-8s %s\n", "note", r->note);
}
