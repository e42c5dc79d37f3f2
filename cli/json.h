/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fixed JSON shapes of fusebpfctl's records (documented in
 * docs/fusebpfctl.8, "JSON OUTPUT"), json.c. Nothing here needs a kernel:
 * tests/host/cli_json.c checks the shapes.
 */
#ifndef FUSEBPFCTL_JSON_H
#define FUSEBPFCTL_JSON_H

#include <json-c/json.h>
#include <stdbool.h>

#include "model.h"

/* Print o on stdout (indented with -p), one document per line. */
void json_print(json_object *o);

/* {"error": {"command": S, "message": S, "errno": N, "reason": S|null}} */
json_object *json_error(const char *cmd, const char *what, int err);

/*
 * {"name", "kind", "source"|null, "ops_id", "ops_name", "mounts", "maps": [{"name","id","type"}],
 *  "ops_state": "init"|"inuse"|"tobefree"|null, "members": [MEMBER]}
 */
json_object *json_filter(const struct filter_desc *f);
/* [MEMBER] where MEMBER = {"name": S (the op), "prog_id": N} */
json_object *json_ops_members(const struct ops_desc *d);
/* {"mountpoint","backing","mode","filter"|null,"at":[{"path","filter"}],"pid","log","started","alive"} */
json_object *json_mount(const struct mount_rec *m, bool with_alive);
/* The inverse of json_mount (for the state files); 0 or -EINVAL. */
int mount_from_json(json_object *o, struct mount_rec *m);

/*
 * One filter's table: {"name": S, "interval_s": N|null, "ops": [ROW...],
 * "totals": ROW-without-op} where ROW = {"op": S, "opcode": N, <every
 * fusebpf_op_stats field>, "lat_ns_avg": N}. rows[] holds the active ops.
 */
json_object *json_stats(const char *name, double interval_s, const struct op_row *rows, int nrows,
			const struct fusebpf_op_stats *totals);

#endif
