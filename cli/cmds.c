// SPDX-License-Identifier: GPL-2.0
/* The command table, help and version. */
#define _GNU_SOURCE
#include <bpf/libbpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtins.h"
#include "fusebpfctl.h"
#include "json.h"


const struct cli_cmd cli_cmds[] = {
	{ "load", do_load, "load a filter and pin it", help_load },
	{ "unload", do_unload, "unpin a loaded filter", help_unload },
	{ "attach", do_attach, "mount a filtered view of a directory and serve it", help_attach },
	{ "detach", do_detach, "unmount and stop the server", help_detach },
	{ "list", do_list, "loaded filters and mounts", help_list },
	{ "stats", do_stats, "per-operation statistics of filters", help_stats },
	{ "events", do_events, "audit events: operations the filters refused or hid", help_events },
	{ "hide", do_hide, "hide filter policy: names to hide, dotfiles", help_hide },
	{ "attrs", do_attrs, "attrs filter policy: mode, uid and gid rules", help_attrs },
	{ "deny", do_deny, "denywrite filter policy: errno and allowed names", help_deny },
	{ "policy", do_policy, "print a filter's current policy", help_policy },
	{ "explain", do_explain, "which view, filter and rule decide a caller's access to a path",
	  help_explain },
	{ "apply", do_apply, "make loaded filters match /etc/fusebpf/filters.d", help_apply },
	{ "help", do_help, "this help, or a command's", help_help },
	{ "version", do_version, "versions and kernel support", help_version },
};
const size_t cli_ncmds = sizeof(cli_cmds) / sizeof(cli_cmds[0]);

const struct cli_cmd *cli_find_cmd(const char *name, bool *ambiguous)
{
	const struct cli_cmd *found = NULL;
	size_t len = strlen(name);

	*ambiguous = false;
	if (!len)
		return NULL;
	for (size_t i = 0; i < cli_ncmds; i++) {
		if (strcmp(cli_cmds[i].name, name) == 0)
			return &cli_cmds[i];
		if (strncmp(cli_cmds[i].name, name, len) == 0) {
			if (found)
				*ambiguous = true;
			found = &cli_cmds[i];
		}
	}
	return *ambiguous ? NULL : found;
}

void main_usage(FILE *out)
{
	fprintf(out,
		"Usage: fusebpfctl [OPTIONS] COMMAND [ARGS]\n"
		"\n"
		"Load fuse-bpf filters, mount filtered views of directories, read their statistics.\n"
		"\n"
		"Commands (a unique prefix is enough):\n");
	for (size_t i = 0; i < cli_ncmds; i++)
		fprintf(out, "  %-9s %s\n", cli_cmds[i].name, cli_cmds[i].summary);
	fprintf(out,
		"\n"
		"Options:\n"
		"  -j, --json           JSON output (read commands; errors as {\"error\": ...})\n"
		"  -p, --pretty         indented JSON (implies --json)\n"
		"  -v, --verbose        libbpf and verifier detail\n"
		"      --pin-dir DIR    where filters are pinned (default %s, or $FUSEBPF_PIN_DIR)\n"
		"      --state-dir DIR  mount records and logs (default %s, or $FUSEBPF_STATE_DIR)\n"
		"  -h, --help           this help\n"
		"  -V, --version        same as the version command\n"
		"\n"
		"Exit status: 0 success, 1 failure, 2 usage error.\n"
		"'fusebpfctl COMMAND --help' describes a command.\n"
		"\n"
		"EXAMPLES\n"
		"  fusebpfctl load hide --name private --hide-dotfiles\n"
		"  fusebpfctl attach /mnt /srv/data --filter private\n"
		"  fusebpfctl stats private\n"
		"  fusebpfctl -j stats private -i 1 5\n"
		"  fusebpfctl detach /mnt\n",
		DEFAULT_PIN_DIR, DEFAULT_STATE_DIR);
}

void help_help(FILE *out)
{
	fprintf(out, "Usage: fusebpfctl help [COMMAND]\n\n"
		     "Print the overview, or a command's help.\n\n"
		     "EXAMPLES\n  fusebpfctl help attach\n");
}

void help_version(FILE *out)
{
	fprintf(out, "Usage: fusebpfctl version\n\n"
		     "Print fusebpfctl's and libbpf's versions, the built-in filters (embedded in\n"
		     "the binary) and whether the kernel has fuse-bpf.\n"
		     "JSON: {\"version\": S, \"libbpf\": S, \"fuse_bpf\": \"supported\"|\"unsupported\",\n"
		     "       \"filter_type\": S, \"builtins\": [{\"name\": S, \"summary\": S}]}\n\n"
		     "EXAMPLES\n  fusebpfctl -j version\n");
}

int do_help(int argc, char **argv)
{
	const struct cli_cmd *c;
	bool amb;

	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		main_usage(stdout);
		return EXIT_OK;
	}
	c = cli_find_cmd(argv[1], &amb);
	if (!c)
		return usage_error("%s command '%s'", amb ? "ambiguous" : "unknown", argv[1]);
	c->help(stdout);
	return EXIT_OK;
}

/* [{"name": S, "summary": S}] of the built-in filters. */
static json_object *json_builtins(void)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < builtin_nfilters; i++) {
		json_object *b = json_object_new_object();

		json_object_object_add(b, "name", json_object_new_string(builtin_filters[i].name));
		json_object_object_add(b, "summary",
				       json_object_new_string(builtin_filters[i].summary));
		json_object_array_add(a, b);
	}
	return a;
}

int do_version(int argc, char **argv)
{
	bool supported = fuse_bpf_supported();
	char libbpf[32];

	if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		help_version(stdout);
		return EXIT_OK;
	}
	if (argc > 1)
		return usage_error("unexpected argument '%s'", argv[1]);
	snprintf(libbpf, sizeof(libbpf), "%u.%u", libbpf_major_version(), libbpf_minor_version());
	if (opts.json) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "version", json_object_new_string(FUSEBPFCTL_VERSION));
		json_object_object_add(o, "libbpf", json_object_new_string(libbpf));
		json_object_object_add(o, "fuse_bpf",
				       json_object_new_string(supported ? "supported" : "unsupported"));
		json_object_object_add(o, "filter_type",
				       json_object_new_string("struct_ops fuse_ops"));
		json_object_object_add(o, "builtins", json_builtins());
		json_print(o);
		json_object_put(o);
	} else {
		printf("fusebpfctl %s\nlibbpf %s\nfuse-bpf: %s", FUSEBPFCTL_VERSION, libbpf,
		       supported ? "supported" : "not supported by this kernel");
		if (supported)
			printf(" (filters: struct_ops maps of struct fuse_ops)");
		printf("\nbuilt-in filters: %s\n", builtin_names(" "));
	}
	return EXIT_OK;
}

