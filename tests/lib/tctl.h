/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fusebpfctl from a guest suite, as a user runs it: the built binary found
 * next to the suite's, commands run through the shell, and what the cases
 * ask of the system around it.
 */
#ifndef FUSEBPF_TCTL_H
#define FUSEBPF_TCTL_H
#include <stdbool.h>
#include <stddef.h>

/* build/fusebpfctl; set by ctl_find(). */
extern char ctl_path[2048];

/*
 * The directory of the running suite (build/tests/guest) in dir (cap
 * bytes), and ctl_path set to build/fusebpfctl. 0, or -1 when
 * /proc/self/exe can't be read or the paths don't fit.
 */
int ctl_find(char *dir, size_t cap);

/*
 * Run "fusebpfctl ARGS" through the shell (ARGS, from fmt, is a shell
 * fragment: redirections work) with its stdout in out (cap bytes,
 * NUL-terminated). The command, its exit status and the start of its
 * output are printed (a case's diagnostics). Returns the exit status, or
 * -1 when it did not exit.
 */
int ctl_into(char *out, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The kernel has fuse-bpf (/sys/fs/fuse/features/fuse_bpf says so). */
bool fuse_bpf(void);

/* path is a mount point (in /proc/mounts). */
bool mounted(const char *path);

/*
 * Leave nothing of a case behind: detach mnt (unmount it lazily if that
 * fails), remove the filters pinned under pins and the directory dir. Only
 * pins under /sys/fs/bpf/ and a dir under /tmp/ are removed.
 */
void ctl_cleanup(const char *pins, const char *dir, const char *mnt);
#endif
