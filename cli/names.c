// SPDX-License-Identifier: GPL-2.0
/* Names: FUSE opcodes and errnos. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fusebpfctl.h"
#include "json.h"

const char *fuse_opname(unsigned int opcode)
{
	return opcode < FUSEBPF_STATS_MAX_OPS ? fusebpf_op_names[opcode] : NULL;
}

int fuse_opcode(const char *name)
{
	for (int i = 1; i < FUSEBPF_STATS_MAX_OPS; i++)
		if (fusebpf_op_names[i] && strcasecmp(fusebpf_op_names[i], name) == 0)
			return i;
	return -1;
}

static const struct {
	const char *name;
	int err;
} errnos[] = {
	{ "EROFS", EROFS }, { "EACCES", EACCES }, { "EPERM", EPERM }, { "ENOENT", ENOENT },
	{ "EIO", EIO }, { "ENOSPC", ENOSPC }, { "EDQUOT", EDQUOT }, { "ENOTSUP", ENOTSUP },
	{ "EBUSY", EBUSY }, { "EINVAL", EINVAL },
};

int parse_errno(const char *s)
{
	char *end;
	long v;

	if (!s || !*s)
		return -1;
	for (size_t i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++)
		if (strcasecmp(s, errnos[i].name) == 0)
			return errnos[i].err;
	v = strtol(s, &end, 10);
	if (*end || v <= 0 || v >= 4096)
		return -1;
	return (int)v;
}

const char *errno_name(int err)
{
	for (size_t i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++)
		if (errnos[i].err == err)
			return errnos[i].name;
	return NULL;
}
