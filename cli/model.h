/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What fusebpfctl knows about filters, mounts and statistics: the records
 * the commands fill in, print (json.h) and keep (state.h).
 */
#ifndef FUSEBPFCTL_MODEL_H
#define FUSEBPFCTL_MODEL_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "fusebpf_maps.h"

#define NAME_LEN 65
#define MAX_MAPS 16
#define MAX_AT 16

struct map_desc {
	char name[64];
	uint32_t id;
	char type[32];
};

/* A struct_ops map's members (cli/ops.h) */
#define OPS_MAX 64
struct ops_member {
	char name[32];
	uint32_t prog_id;
};

struct ops_desc {
	char type[64];		/* the struct it implements: "fuse_ops"; "" for no struct_ops map */
	int state;		/* enum bpf_struct_ops_state: 0 init, 1 inuse, 2 tobefree */
	int total;		/* members the struct has */
	int n;			/* members the map has a program for */
	struct ops_member m[OPS_MAX];
};

struct filter_desc {
	char name[NAME_LEN];
	char kind[32];		/* builtin filter name, "file", or "unknown" */
	char source[PATH_MAX];	/* the object file, or "" for built-ins */
	uint32_t ops_id;	/* the fuse_ops struct_ops map */
	char ops_name[32];
	bool ops_known;		/* ops was read */
	struct ops_desc ops;
	int nmaps;
	struct map_desc maps[MAX_MAPS];
	int mounts;		/* how many live mounts use it */
};

struct at_rule {
	char path[PATH_MAX];	/* relative to the backing directory, no "..", no leading '/' */
	char filter[NAME_LEN];
};

struct mount_rec {
	char mountpoint[PATH_MAX];
	char backing[PATH_MAX];
	char mode[16];		/* "fuse-bpf" or "userspace" */
	char filter[NAME_LEN];	/* "" when none */
	int nat;
	struct at_rule at[MAX_AT];
	int pid;
	char log[PATH_MAX];
	int64_t started;	/* unix time */
	bool alive;		/* the server process still runs (not stored) */
};

/* Per-op statistics summed over CPUs. */
struct op_row {
	unsigned int opcode;
	struct fusebpf_op_stats s;
};

#endif
