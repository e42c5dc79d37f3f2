/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Child processes for the guest suites: run part of a case in a child (as
 * another user, in a new user namespace, or as it is) and take its TAP
 * result, or look at a process from outside.
 *
 * The child's fn returns TAP_OK, TAP_FAIL or TAP_SKIP; what it prints is
 * flushed before it exits, so it lands with the case's diagnostics. A
 * child killed by a signal fails.
 */
#ifndef FUSEBPF_TPROC_H
#define FUSEBPF_TPROC_H
#include <sys/types.h>

/* Run fn(arg) in a child process; its TAP result. */
int in_child(int (*fn)(void *), void *arg);
/* Run fn(arg) in a child as uid (gid uid too, no supplementary groups). */
int in_child_as(uid_t uid, int (*fn)(void *), void *arg);
/*
 * Run fn(arg) in a child that is root of a new user namespace (mapped to
 * the caller's ids) with a new mount namespace (mounts private).
 */
int in_child_userns(int (*fn)(void *), void *arg);
/* Become uid and gid 65534 with no supplementary groups; 0 once no capability is left. */
int drop_to_nobody(void);
/* The state letter of a process (R, S, D, Z, ...) from /proc, or 0. */
char proc_state(pid_t pid);
/*
 * Run a shell command (from fmt) as uid and gid, no supplementary groups:
 * its exit status (126: the ids could not be taken), or -1. The command and
 * its status are printed (a case's diagnostics).
 */
int as_user(uid_t uid, gid_t gid, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* open(path, flags, 0644) as uid and gid in a child: 0 or the errno, -1; *pid the child's pid. */
int open_as(uid_t uid, gid_t gid, const char *path, int flags, pid_t *pid);
#endif
