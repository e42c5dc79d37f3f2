// SPDX-License-Identifier: GPL-2.0
/*
 * fusebpfctl [-j|-p] [-v] COMMAND [ARGS]: global options, then the command
 * (cmds.c has the table; each command is a do_<cmd>() in a file of its own).
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fusebpfctl.h"
#include "attach.h"

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "pin-dir", required_argument, NULL, 'P' },
		{ "state-dir", required_argument, NULL, 'S' },
		{ 0 },
	};
	const struct cli_cmd *c;
	const char *env;
	bool amb;
	int opt, first;

	if ((env = getenv("FUSEBPF_PIN_DIR")) && *env)
		opts.pin_dir = env;
	if ((env = getenv("FUSEBPF_STATE_DIR")) && *env)
		opts.state_dir = env;
	/* Reached as /sbin/mount.fusebpf: mount(8)'s calling convention. */
	if (is_mount_helper(argv[0])) {
		cli_setup_libbpf_log();
		return mount_helper(argc, argv);
	}
	/* '+': stop at the command; its options are its own. */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+jpvhV", longopts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			opts.json = true;
			break;
		case 'p':
			opts.json = opts.pretty = true;
			break;
		case 'v':
			opts.verbose++;
			break;
		case 'h':
			main_usage(stdout);
			return EXIT_OK;
		case 'V':
			return do_version(1, argv);
		case 'P':
			opts.pin_dir = optarg;
			break;
		case 'S':
			opts.state_dir = optarg;
			break;
		default:
			if (optopt)
				return usage_error("unknown option '-%c'", optopt);
			return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	cli_setup_libbpf_log();
	if (optind >= argc) {
		main_usage(stderr);
		return EXIT_USAGE;
	}
	c = cli_find_cmd(argv[optind], &amb);
	if (!c)
		return usage_error("%s command '%s'",
				   amb ? "ambiguous" : "unknown", argv[optind]);
	opts.cmd = c->name;
	first = optind;
	argv[first] = (char *)c->name;
	optind = 0;	/* a full reset for the command's getopt */
	return c->fn(argc - first, argv + first);
}
