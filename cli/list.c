// SPDX-License-Identifier: GPL-2.0
/* fusebpfctl list: loaded filters and our mounts. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"
#include "fusebpfctl.h"
#include "json.h"
#include "ops.h"
#include "state.h"

void help_list(FILE *out)
{
	fprintf(out,
		"Usage: fusebpfctl list\n"
		"\n"
		"Loaded filters (name, kind, the id of its fuse_ops map, how many mounts use it,\n"
		"maps; below it the operations it has a program for, and the map's state) and\n"
		"mounts (mountpoint, backing directory, mode, filters, server pid).\n"
		"\n"
		"JSON (-j): {\"filters\": [{\"name\": S, \"kind\": S, \"source\": S|null,\n"
		"  \"ops_id\": N, \"ops_name\": S, \"mounts\": N, \"maps\": [{\"name\": S,\n"
		"  \"id\": N, \"type\": S}], \"ops_state\": \"init\"|\"inuse\"|\"tobefree\"|null,\n"
		"  \"members\": [{\"name\": S, \"prog_id\": N}]}], \"mounts\": [{\"mountpoint\": S, \"backing\": S,\n"
		"  \"mode\": \"fuse-bpf\"|\"userspace\", \"filter\": S|null, \"at\": [{\"path\": S,\n"
		"  \"filter\": S}], \"pid\": N, \"log\": S, \"started\": N, \"alive\": B}]}\n"
		"\n"
		"EXAMPLES\n"
		"  fusebpfctl list\n"
		"  fusebpfctl -p list\n");
}

static int no_opt(int c, const char *arg, void *ctx)
{
	(void)c, (void)arg, (void)ctx;
	return EXIT_USAGE;
}

/* What list shows: the loaded filters (those that describe) and the mount records. */
struct list_data {
	struct filter_desc *f;
	int nf;
	struct mount_rec *recs;
	int nm;
};

static int list_collect(struct list_data *d)
{
	char (*names)[NAME_LEN] = NULL;
	int n = filter_names(&names);

	if (n < 0)
		return fail(-n, "list %s", opts.pin_dir), n;
	d->f = calloc(n ? n : 1, sizeof(*d->f));
	if (!d->f) {
		free(names);
		return fail(ENOMEM, "list"), -ENOMEM;
	}
	for (int i = 0; i < n; i++)
		if (filter_describe(names[i], &d->f[d->nf]) == 0)
			d->nf++;
	free(names);
	d->nm = mount_recs(&d->recs);
	if (d->nm < 0)
		return fail(-d->nm, "list %s/mounts", opts.state_dir), d->nm;
	return 0;
}

static void list_print_json(const struct list_data *d)
{
	json_object *root = json_object_new_object(), *fa = json_object_new_array(),
		    *ma = json_object_new_array();

	json_object_object_add(root, "filters", fa);
	json_object_object_add(root, "mounts", ma);
	for (int i = 0; i < d->nf; i++)
		json_object_array_add(fa, json_filter(&d->f[i]));
	for (int i = 0; i < d->nm; i++)
		json_object_array_add(ma, json_mount(&d->recs[i], true));
	json_print(root);
	json_object_put(root);
}

/* "  ops: lookup readdir (inuse)": the operations the filter has a program for */
static void print_ops_plain(const struct filter_desc *f)
{
	if (!f->ops_known) {
		printf("  ops: (unknown)\n");
		return;
	}
	printf("  ops:");
	if (f->ops.n && f->ops.n == f->ops.total)
		printf(" all %d", f->ops.total);
	else
		for (int i = 0; i < f->ops.n; i++)
			printf(" %s", f->ops.m[i].name);
	printf("%s (%s)\n", f->ops.n ? "" : " none", ops_state_name(f->ops.state));
}

static void print_filter_plain(const struct filter_desc *f)
{
	printf("%-16s %-10s %8u %6d  ", f->name, f->kind, f->ops_id, f->mounts);
	for (int m = 0; m < f->nmaps; m++)
		printf("%s%s", m ? "," : "", f->maps[m].name);
	printf("\n");
	print_ops_plain(f);
}

static void print_mount_plain(const struct mount_rec *r)
{
	char filters[1024];
	size_t len = snprintf(filters, sizeof(filters), "%s", r->filter[0] ? r->filter : "-");

	for (int j = 0; j < r->nat && len < sizeof(filters); j++)
		len += snprintf(filters + len, sizeof(filters) - len, ",%s=%s", r->at[j].path,
				r->at[j].filter);
	printf("%-24s %-24s %-9s %-20s %d%s\n", r->mountpoint, r->backing, r->mode, filters,
	       r->pid, r->alive ? "" : " (dead: detach it)");
}

static void list_print_plain(const struct list_data *d)
{
	printf("%-16s %-10s %8s %6s  %s\n", "FILTER", "KIND", "OPS_ID", "MOUNTS", "MAPS");
	for (int i = 0; i < d->nf; i++)
		print_filter_plain(&d->f[i]);
	printf("\n%-24s %-24s %-9s %-20s %s\n", "MOUNTPOINT", "BACKING", "MODE", "FILTERS", "PID");
	for (int i = 0; i < d->nm; i++)
		print_mount_plain(&d->recs[i]);
}

int do_list(int argc, char **argv)
{
	struct list_data d = { 0 };
	int idx, err;

	idx = parse_cmd_opts(argc, argv, "", NULL, no_opt, NULL, help_list);
	if (idx == PARSE_HELP)
		return EXIT_OK;
	if (idx < 0)
		return EXIT_USAGE;
	if (idx < argc)
		return usage_error("unexpected argument '%s'", argv[idx]);
	err = list_collect(&d);
	if (!err && opts.json)
		list_print_json(&d);
	else if (!err)
		list_print_plain(&d);
	free(d.f);
	free(d.recs);
	return err ? EXIT_FAIL : EXIT_OK;
}
