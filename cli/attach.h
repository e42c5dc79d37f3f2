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
	bool replace;		/* --replace: the root filter of a mounted view */
	const char *log;
	unsigned long mflags;	/* mount(2) flags: MS_NOSUID | MS_NODEV unless the helper says */
	bool quiet;		/* print nothing on success (the mount helper) */
};

/*
 * attach's arguments (argv[0] is "attach"); 0, PARSE_HELP or PARSE_USAGE.
 * With --replace, *back is NULL.
 */
int attach_parse(int argc, char **argv, struct attach_args *a, const char **mnt, const char **back);

/* Mount and serve (do_attach after parsing); 0, or -errno with the error printed. */
int attach_run(struct attach_args *a, const char *mnt, const char *back);

/*
 * attach MOUNTPOINT --filter NAME --replace (replace.c): the mount's root
 * filter replaced by NAME's, live; 0, or -errno with the error printed.
 */
int replace_run(const struct attach_args *a, const char *mnt);

/* mount.fusebpf SOURCE TARGET [-sfnv] [-N NS] [-o OPTIONS] [-t TYPE] (mount_helper.c) */
int mount_helper(int argc, char **argv);
/* Is argv[0] the mount helper's name (mount.fusebpf, mount.fuse.fusebpf)? */
bool is_mount_helper(const char *argv0);

#endif
