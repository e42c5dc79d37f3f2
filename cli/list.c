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
#include "state.h"

void help_list(FILE *out)
{
	fprintf(out,
		"Usage: fusebpfctl list\n"
		"\n"
		"Loaded filters (name, kind, program id, maps, how many mounts use it) and\n"
		"mounts (mountpoint, backing directory, mode, filters, server pid).\n"
		"\n"
		"JSON (-j): {\"filters\": [{\"name\": S, \"kind\": S, \"source\": S|null,\n"
		"  \"prog_id\": N, \"prog_name\": S, \"mounts\": N, \"maps\": [{\"name\": S,\n"
		"  \"id\": N, \"type\": S}]}], \"mounts\": [{\"mountpoint\": S, \"backing\": S,\n"
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

int do_list(int argc, char **argv)
{
	char (*names)[NAME_LEN] = NULL;
	struct mount_rec *recs = NULL;
	struct filter_desc *f = NULL;
	json_object *root = NULL, *fa = NULL, *ma = NULL;
	int idx, nf, nm, ret = EXIT_FAIL;

	idx = parse_cmd_opts(argc, argv, "", NULL, no_opt, NULL, help_list);
	if (idx == PARSE_HELP)
		return EXIT_OK;
	if (idx < 0)
		return EXIT_USAGE;
	if (idx < argc)
		return usage_error("unexpected argument '%s'", argv[idx]);
	nf = filter_names(&names);
	if (nf < 0)
		return fail(-nf, "list %s", opts.pin_dir);
	nm = mount_recs(&recs);
	if (nm < 0) {
		ret = fail(-nm, "list %s/mounts", opts.state_dir);
		goto out;
	}
	f = calloc(1, sizeof(*f));
	if (!f) {
		ret = fail(ENOMEM, "list");
		goto out;
	}
	if (opts.json) {
		root = json_object_new_object();
		fa = json_object_new_array();
		ma = json_object_new_array();
		json_object_object_add(root, "filters", fa);
		json_object_object_add(root, "mounts", ma);
	} else {
		printf("%-16s %-10s %8s %6s  %s\n", "FILTER", "KIND", "PROG_ID", "MOUNTS", "MAPS");
	}
	for (int i = 0; i < nf; i++) {
		if (filter_describe(names[i], f))
			continue;
		if (opts.json) {
			json_object_array_add(fa, json_filter(f));
			continue;
		}
		printf("%-16s %-10s %8u %6d  ", f->name, f->kind, f->prog_id, f->mounts);
		for (int m = 0; m < f->nmaps; m++)
			printf("%s%s", m ? "," : "", f->maps[m].name);
		printf("\n");
	}
	if (!opts.json)
		printf("\n%-24s %-24s %-9s %-20s %s\n", "MOUNTPOINT", "BACKING", "MODE", "FILTERS",
		       "PID");
	for (int i = 0; i < nm; i++) {
		char filters[1024];
		size_t len = 0;

		if (opts.json) {
			json_object_array_add(ma, json_mount(&recs[i], true));
			continue;
		}
		len += snprintf(filters, sizeof(filters), "%s", recs[i].filter[0] ? recs[i].filter : "-");
		for (int j = 0; j < recs[i].nat && len < sizeof(filters); j++)
			len += snprintf(filters + len, sizeof(filters) - len, ",%s=%s", recs[i].at[j].path,
					recs[i].at[j].filter);
		printf("%-24s %-24s %-9s %-20s %d%s\n", recs[i].mountpoint, recs[i].backing,
		       recs[i].mode, filters, recs[i].pid, recs[i].alive ? "" : " (dead: detach it)");
	}
	if (opts.json)
		json_print(root);
	ret = EXIT_OK;
out:
	json_object_put(root);
	free(f);
	free(names);
	free(recs);
	return ret;
}
