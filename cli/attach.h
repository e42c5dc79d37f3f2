/* SPDX-License-Identifier: GPL-2.0 */
#ifndef FUSEBPFCTL_ATTACH_H
#define FUSEBPFCTL_ATTACH_H

#include <stdbool.h>

#include "json.h"

struct attach_args {
	const char *filter;
	int nat;
	struct at_rule at[MAX_AT];
	bool foreground, userspace;
	const char *log;
};

/* attach's arguments (argv[0] is "attach"); 0, PARSE_HELP or PARSE_USAGE. */
int attach_parse(int argc, char **argv, struct attach_args *a, const char **mnt, const char **back);

#endif
