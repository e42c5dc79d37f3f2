/* SPDX-License-Identifier: GPL-2.0 */
#ifndef FUSEBPFCTL_POLICY_CMDS_H
#define FUSEBPFCTL_POLICY_CMDS_H

#include "policy.h"

/*
 * Parse "CMD NAME SUB ARGS..." (argv[0] is CMD) of the policy commands hide,
 * attrs, deny and policy into changes (none: show). 0, PARSE_HELP or
 * PARSE_USAGE (message printed).
 */
int policy_cmd_parse(const char *cmd, int argc, char **argv, const char **filter,
		     struct policy_change **out, int *nout);

#endif
