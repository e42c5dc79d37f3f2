/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The FUSE server of a mount: the raw /dev/fuse protocol (libfuse cannot send
 * fuse-bpf replies). One engine for both modes:
 *
 * - fuse-bpf: a LOOKUP is answered through FUSE_DEV_IOC_BPF_RESPONSE with
 *   the backing file and the filter program of its subtree, and the kernel
 *   does everything below it. Only the mount's root and the directories
 *   leading to an --at subtree are served here (read-only for names: they
 *   are outside every filter); with no --at the root itself is backed by
 *   root_dir and the server sees nothing but INIT.
 * - userspace: every operation is done here on the backing tree (plain FUSE
 *   passthrough: the baseline of the benchmarks, and the fallback on kernels
 *   without fuse-bpf).
 */
#ifndef FUSEBPFCTL_SERVER_H
#define FUSEBPFCTL_SERVER_H

#include <stdbool.h>

#include "json.h"

struct server_at {
	char path[PATH_MAX];	/* relative to the backing root */
	int prog_fd;
};

struct server_cfg {
	int fuse_fd;
	int back_fd;		/* the backing directory (O_PATH) */
	bool userspace;
	int filter_fd;		/* program of everything not under an --at; -1: none */
	int nat;
	struct server_at at[MAX_AT];
	int ready_fd;		/* one byte is written here once INIT is answered; -1 */
	const char *mountpoint;	/* lazily unmounted on SIGTERM/SIGINT */
	int verbose;
};

/* Serve until the mount goes away; 0 or -errno. */
int server_run(struct server_cfg *cfg);

/*
 * What a LOOKUP of path (relative, "a/b") gets in fuse-bpf mode: -1 served
 * here (the root or an ancestor of an --at path), else the index of the --at
 * rule (nat: the default --filter). Exposed for tests/host/cli_args.c.
 */
int server_classify(const struct server_cfg *cfg, const char *path);

/* Normalize an --at SUBDIR: no leading or trailing '/', no "." or ".."
 * components, no empty ones; 0 or -EINVAL. */
int normalize_subdir(const char *in, char *out, size_t cap);

#endif
