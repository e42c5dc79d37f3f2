// SPDX-License-Identifier: GPL-2.0
/* The fixed JSON shapes of fusebpfctl (docs/fusebpfctl.8, JSON OUTPUT). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fusebpfctl.h"
#include "json.h"
#include "stats.h"
#include "tap.h"

/* o's keys are exactly keys (comma-separated, in this order). */
static bool has_keys(json_object *o, const char *keys, char *why, size_t cap)
{
	char want[512], got[512] = "";
	size_t len = 0;

	snprintf(want, sizeof(want), "%s", keys);
	json_object_object_foreach(o, k, v) {
		(void)v;
		len += snprintf(got + len, sizeof(got) - len, "%s%s", len ? "," : "", k);
	}
	snprintf(why, cap, "keys %s, expected %s", got, want);
	return strcmp(got, want) == 0;
}

static json_type type_of(json_object *o, const char *key)
{
	json_object *v = NULL;

	json_object_object_get_ex(o, key, &v);
	return json_object_get_type(v);
}

static int t_filter_shape(void)
{
	struct filter_desc f = {
		.name = "private", .kind = "hide", .ops_id = 42, .ops_name = "hide",
		.nmaps = 2, .mounts = 1,
		.maps = { { "fusebpf_stats", 7, "percpu_array" }, { "hide_names", 8, "hash" } },
	};
	json_object *o = json_filter(&f), *maps, *m;
	int ret = TAP_FAIL;
	char why[1200];

	EXPECT(has_keys(o, "name,kind,source,ops_id,ops_name,mounts,maps,ops_state,members", why,
			sizeof(why)), "%s", why);
	EXPECT(type_of(o, "source") == json_type_null, "a built-in has no source file");
	EXPECT(type_of(o, "ops_state") == json_type_null, "members not read: no state");
	json_object_object_get_ex(o, "members", &m);
	EXPECT(json_object_is_type(m, json_type_array) && json_object_array_length(m) == 0);
	EXPECT(type_of(o, "ops_id") == json_type_int && type_of(o, "mounts") == json_type_int);
	json_object_object_get_ex(o, "maps", &maps);
	EXPECT(json_object_is_type(maps, json_type_array) && json_object_array_length(maps) == 2);
	m = json_object_array_get_idx(maps, 1);
	EXPECT(has_keys(m, "name,id,type", why, sizeof(why)), "%s", why);
	json_object_put(o);
	/* No maps: still an array. */
	f.nmaps = 0;
	snprintf(f.source, sizeof(f.source), "/x/y.bpf.o");
	o = json_filter(&f);
	json_object_object_get_ex(o, "maps", &maps);
	EXPECT(json_object_is_type(maps, json_type_array) && json_object_array_length(maps) == 0);
	EXPECT(type_of(o, "source") == json_type_string);
	json_object_put(o);
	/* The members the map has, and its state. */
	f.ops_known = true;
	f.ops = (struct ops_desc){ .type = "fuse_ops", .state = 2, .total = 31, .n = 2,
				   .m = { { "lookup", 12 }, { "readdir", 14 } } };
	o = json_filter(&f);
	EXPECT(type_of(o, "ops_state") == json_type_string);
	json_object_object_get_ex(o, "ops_state", &m);
	EXPECT(!strcmp(json_object_get_string(m), "tobefree"), "%s", json_object_get_string(m));
	json_object_object_get_ex(o, "members", &maps);
	EXPECT(json_object_array_length(maps) == 2);
	m = json_object_array_get_idx(maps, 1);
	EXPECT(has_keys(m, "name,prog_id", why, sizeof(why)), "%s", why);
	EXPECT(!strcmp(json_object_to_json_string_ext(m, JSON_C_TO_STRING_PLAIN),
		       "{\"name\":\"readdir\",\"prog_id\":14}"), "%s", json_object_to_json_string(m));
	ret = TAP_OK;
out:
	json_object_put(o);
	return ret;
}

static int t_mount_roundtrip(void)
{
	static struct mount_rec m = {
		.mountpoint = "/mnt", .backing = "/srv/data", .mode = "fuse-bpf", .filter = "ro",
		.nat = 2, .at = { { "docs", "private" }, { "a/b", "shown" } },
		.pid = 1234, .log = "/run/fusebpf/mounts/%2Fmnt.log", .started = 1700000000,
		.alive = true,
	};
	static struct mount_rec back;
	json_object *o = json_mount(&m, true), *at, *parsed = NULL;
	int ret = TAP_FAIL;
	char why[1200];

	EXPECT(has_keys(o, "mountpoint,backing,mode,filter,at,pid,log,started,alive", why, sizeof(why)),
	       "%s", why);
	json_object_object_get_ex(o, "at", &at);
	EXPECT(json_object_array_length(at) == 2);
	EXPECT(has_keys(json_object_array_get_idx(at, 0), "path,filter", why, sizeof(why)), "%s", why);
	/* Through text, as the state files are. */
	parsed = json_tokener_parse(json_object_to_json_string(o));
	EXPECT(parsed && mount_from_json(parsed, &back) == 0);
	EXPECT(!strcmp(back.mountpoint, "/mnt") && !strcmp(back.filter, "ro") && back.nat == 2);
	EXPECT(!strcmp(back.at[1].path, "a/b") && !strcmp(back.at[1].filter, "shown"));
	EXPECT(back.pid == 1234 && back.started == 1700000000);
	json_object_put(o);
	json_object_put(parsed);
	parsed = NULL;
	/* No filter: null, and back to "". */
	m.filter[0] = 0;
	m.nat = 0;
	o = json_mount(&m, false);
	EXPECT(type_of(o, "filter") == json_type_null);
	EXPECT(has_keys(o, "mountpoint,backing,mode,filter,at,pid,log,started", why, sizeof(why)),
	       "%s", why);
	EXPECT(mount_from_json(o, &back) == 0 && back.filter[0] == 0 && back.nat == 0);
	/* Broken records are refused. */
	json_object_object_del(o, "pid");
	EXPECT(mount_from_json(o, &back) == -EINVAL);
	ret = TAP_OK;
out:
	json_object_put(o);
	json_object_put(parsed);
	return ret;
}

static int t_error_shape(void)
{
	json_object *o = json_error("attach", "attach /mnt: filter 'x' is not loaded", ENOENT), *e;
	int ret = TAP_FAIL;
	char why[1200];

	EXPECT(has_keys(o, "error", why, sizeof(why)), "%s", why);
	json_object_object_get_ex(o, "error", &e);
	EXPECT(has_keys(e, "command,message,errno,reason", why, sizeof(why)), "%s", why);
	EXPECT(json_object_get_int(json_object_object_get(e, "errno")) == ENOENT);
	EXPECT(!strcmp(json_object_get_string(json_object_object_get(e, "reason")),
		       strerror(ENOENT)));
	json_object_put(o);
	o = json_error("list", "x", 0);
	json_object_object_get_ex(o, "error", &e);
	EXPECT(type_of(e, "reason") == json_type_null);
	ret = TAP_OK;
out:
	json_object_put(o);
	return ret;
}

static int t_stats_shape(void)
{
	struct op_row rows[2] = {
		{ .opcode = 1, .s = { .pre = 10, .post = 10, .hidden = 2, .lat_ns_sum = 1000,
				      .lat_count = 10, .lat_ns_max = 300 } },
		{ .opcode = 28, .s = { .pre = 1, .entries = 50, .hidden = 5 } },
	};
	struct fusebpf_op_stats tot;
	json_object *o, *ops, *r, *t;
	int ret = TAP_FAIL;
	char why[1200];

	stats_total(rows, 2, &tot);
	o = json_stats("private", 0, rows, 2, &tot);
	EXPECT(has_keys(o, "name,interval_s,ops,totals", why, sizeof(why)), "%s", why);
	EXPECT(type_of(o, "interval_s") == json_type_null);
	json_object_object_get_ex(o, "ops", &ops);
	EXPECT(json_object_array_length(ops) == 2);
	r = json_object_array_get_idx(ops, 0);
	EXPECT(has_keys(r, "op,opcode,pre,post,entries,denied,hidden,rewritten,backing_errors,to_user,"
			   "lat_ns_sum,lat_count,lat_ns_max,would_deny,would_hide,lat_ns_avg", why, sizeof(why)), "%s", why);
	EXPECT(!strcmp(json_object_get_string(json_object_object_get(r, "op")), "lookup"));
	EXPECT(json_object_get_int64(json_object_object_get(r, "lat_ns_avg")) == 100);
	json_object_object_get_ex(o, "totals", &t);
	EXPECT(has_keys(t, "pre,post,entries,denied,hidden,rewritten,backing_errors,to_user,"
			   "lat_ns_sum,lat_count,lat_ns_max,would_deny,would_hide,lat_ns_avg", why, sizeof(why)), "%s", why);
	EXPECT(json_object_get_int64(json_object_object_get(t, "hidden")) == 7);
	EXPECT(json_object_get_int64(json_object_object_get(t, "pre")) == 11);
	json_object_put(o);
	/* With an interval; no active op: an empty array. */
	o = json_stats("private", 1.5, rows, 0, &tot);
	EXPECT(type_of(o, "interval_s") == json_type_double);
	json_object_object_get_ex(o, "ops", &ops);
	EXPECT(json_object_is_type(ops, json_type_array) && json_object_array_length(ops) == 0);
	ret = TAP_OK;
out:
	json_object_put(o);
	return ret;
}

static const struct tap_case cases[] = {
	{ "filter_shape", t_filter_shape },
	{ "mount_shape_and_roundtrip", t_mount_roundtrip },
	{ "error_shape", t_error_shape },
	{ "stats_shape", t_stats_shape },
};

TAP_MAIN("cli_json", cases)
