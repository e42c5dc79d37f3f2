// SPDX-License-Identifier: GPL-2.0
/* JSON printing and the fixed shapes of fusebpfctl's output. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fusebpfctl.h"
#include "json.h"
#include "ops.h"
#include "stats.h"

void json_print(json_object *o)
{
	int flags = opts.pretty ? JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED
				: JSON_C_TO_STRING_PLAIN;

	puts(json_object_to_json_string_ext(o, flags | JSON_C_TO_STRING_NOSLASHESCAPE));
	fflush(stdout);
}

static json_object *str_or_null(const char *s)
{
	return s && *s ? json_object_new_string(s) : NULL;
}

json_object *json_error(const char *cmd, const char *what, int err)
{
	json_object *o = json_object_new_object(), *e = json_object_new_object();

	json_object_object_add(e, "command", json_object_new_string(cmd ? cmd : ""));
	json_object_object_add(e, "message", json_object_new_string(what ? what : ""));
	json_object_object_add(e, "errno", json_object_new_int(err));
	json_object_object_add(e, "reason", err ? json_object_new_string(strerror(err)) : NULL);
	json_object_object_add(o, "error", e);
	return o;
}

json_object *json_ops_members(const struct ops_desc *d)
{
	json_object *a = json_object_new_array();

	for (int i = 0; i < d->n; i++) {
		json_object *m = json_object_new_object();

		json_object_object_add(m, "name", json_object_new_string(d->m[i].name));
		json_object_object_add(m, "prog_id", json_object_new_int64(d->m[i].prog_id));
		json_object_array_add(a, m);
	}
	return a;
}

json_object *json_filter(const struct filter_desc *f)
{
	json_object *o = json_object_new_object(), *maps = json_object_new_array();

	json_object_object_add(o, "name", json_object_new_string(f->name));
	json_object_object_add(o, "kind", json_object_new_string(f->kind));
	json_object_object_add(o, "source", str_or_null(f->source));
	json_object_object_add(o, "ops_id", json_object_new_int64(f->ops_id));
	json_object_object_add(o, "ops_name", json_object_new_string(f->ops_name));
	json_object_object_add(o, "mounts", json_object_new_int(f->mounts));
	for (int i = 0; i < f->nmaps; i++) {
		json_object *m = json_object_new_object();

		json_object_object_add(m, "name", json_object_new_string(f->maps[i].name));
		json_object_object_add(m, "id", json_object_new_int64(f->maps[i].id));
		json_object_object_add(m, "type", json_object_new_string(f->maps[i].type));
		json_object_array_add(maps, m);
	}
	json_object_object_add(o, "maps", maps);
	json_object_object_add(o, "ops_state",
			       f->ops_known ? json_object_new_string(ops_state_name(f->ops.state)) : NULL);
	json_object_object_add(o, "members", json_ops_members(&f->ops));
	return o;
}

json_object *json_mount(const struct mount_rec *m, bool with_alive)
{
	json_object *o = json_object_new_object(), *at = json_object_new_array();

	json_object_object_add(o, "mountpoint", json_object_new_string(m->mountpoint));
	json_object_object_add(o, "backing", json_object_new_string(m->backing));
	json_object_object_add(o, "mode", json_object_new_string(m->mode));
	json_object_object_add(o, "filter", str_or_null(m->filter));
	for (int i = 0; i < m->nat; i++) {
		json_object *a = json_object_new_object();

		json_object_object_add(a, "path", json_object_new_string(m->at[i].path));
		json_object_object_add(a, "filter", json_object_new_string(m->at[i].filter));
		json_object_array_add(at, a);
	}
	json_object_object_add(o, "at", at);
	json_object_object_add(o, "pid", json_object_new_int(m->pid));
	json_object_object_add(o, "log", json_object_new_string(m->log));
	json_object_object_add(o, "started", json_object_new_int64(m->started));
	if (with_alive)
		json_object_object_add(o, "alive", json_object_new_boolean(m->alive));
	return o;
}

static int get_str(json_object *o, const char *key, char *buf, size_t cap, bool nullable)
{
	json_object *v;
	const char *s;

	if (!json_object_object_get_ex(o, key, &v))
		return -EINVAL;
	if (!v) {
		if (!nullable)
			return -EINVAL;
		buf[0] = 0;
		return 0;
	}
	if (!json_object_is_type(v, json_type_string))
		return -EINVAL;
	s = json_object_get_string(v);
	if (strlen(s) >= cap)
		return -ENAMETOOLONG;
	strcpy(buf, s);
	return 0;
}

int mount_from_json(json_object *o, struct mount_rec *m)
{
	json_object *v, *at;
	int err;

	memset(m, 0, sizeof(*m));
	if (!o || !json_object_is_type(o, json_type_object))
		return -EINVAL;
	if ((err = get_str(o, "mountpoint", m->mountpoint, sizeof(m->mountpoint), false)) ||
	    (err = get_str(o, "backing", m->backing, sizeof(m->backing), false)) ||
	    (err = get_str(o, "mode", m->mode, sizeof(m->mode), false)) ||
	    (err = get_str(o, "filter", m->filter, sizeof(m->filter), true)) ||
	    (err = get_str(o, "log", m->log, sizeof(m->log), false)))
		return err;
	if (!json_object_object_get_ex(o, "pid", &v) || !json_object_is_type(v, json_type_int))
		return -EINVAL;
	m->pid = json_object_get_int(v);
	if (json_object_object_get_ex(o, "started", &v) && json_object_is_type(v, json_type_int))
		m->started = json_object_get_int64(v);
	if (!json_object_object_get_ex(o, "at", &at) || !json_object_is_type(at, json_type_array))
		return -EINVAL;
	if (json_object_array_length(at) > MAX_AT)
		return -E2BIG;
	for (size_t i = 0; i < json_object_array_length(at); i++) {
		json_object *a = json_object_array_get_idx(at, i);

		if ((err = get_str(a, "path", m->at[i].path, sizeof(m->at[i].path), false)) ||
		    (err = get_str(a, "filter", m->at[i].filter, sizeof(m->at[i].filter), false)))
			return err;
		m->nat++;
	}
	return 0;
}

static json_object *json_stats_fields(const struct fusebpf_op_stats *s)
{
	json_object *o = json_object_new_object();

	for (size_t i = 0; i < FUSEBPF_STATS_NFIELDS; i++) {
		uint64_t v = *(const uint64_t *)((const char *)s + fusebpf_stats_fields[i].offset);

		json_object_object_add(o, fusebpf_stats_fields[i].name, json_object_new_uint64(v));
	}
	json_object_object_add(o, "lat_ns_avg",
			       json_object_new_uint64(s->lat_count ? s->lat_ns_sum / s->lat_count : 0));
	return o;
}

json_object *json_stats(const char *name, double interval_s, const struct op_row *rows, int nrows,
			const struct fusebpf_op_stats *totals)
{
	json_object *o = json_object_new_object(), *ops = json_object_new_array();
	char buf[16];

	json_object_object_add(o, "name", json_object_new_string(name));
	json_object_object_add(o, "interval_s",
			       interval_s > 0 ? json_object_new_double(interval_s) : NULL);
	for (int i = 0; i < nrows; i++) {
		json_object *r = json_object_new_object(), *f = json_stats_fields(&rows[i].s);

		json_object_object_add(r, "op", json_object_new_string(
			stats_op_name(rows[i].opcode, buf, sizeof(buf))));
		json_object_object_add(r, "opcode", json_object_new_int(rows[i].opcode));
		json_object_object_foreach(f, key, val)
			json_object_object_add(r, key, json_object_get(val));
		json_object_put(f);
		json_object_array_add(ops, r);
	}
	json_object_object_add(o, "ops", ops);
	json_object_object_add(o, "totals", json_stats_fields(totals));
	return o;
}
