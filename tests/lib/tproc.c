// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include "tproc.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"

/* Before fn runs in the child: 0, or -errno after printing why. */
typedef int (*enter_fn)(uid_t uid);

static int child_run(enter_fn enter, uid_t uid, int (*fn)(void *), void *arg)
{
	int status, r;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return TAP_FAIL;
	if (pid == 0) {
		r = enter && enter(uid) ? TAP_FAIL : fn(arg);
		fflush(stdout);
		_exit(r);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return TAP_FAIL;
	return WEXITSTATUS(status);
}

int in_child(int (*fn)(void *), void *arg)
{
	return child_run(NULL, 0, fn, arg);
}

static int become(uid_t uid)
{
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) || setresuid(uid, uid, uid)) {
		printf("becoming uid %u: %s\n", uid, strerror(errno));
		return -errno;
	}
	return 0;
}

int in_child_as(uid_t uid, int (*fn)(void *), void *arg)
{
	return child_run(become, uid, fn, arg);
}

static int enter_userns(uid_t unused)
{
	int rc = 0;

	(void)unused;
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS))
		rc = -errno;
	else if (write_file("/proc/self/setgroups", "deny", 4) ||
		 write_file("/proc/self/uid_map", "0 0 1\n", 6) ||
		 write_file("/proc/self/gid_map", "0 0 1\n", 6))
		rc = -EPERM;
	else if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		rc = -errno;
	if (rc)
		printf("entering a user namespace: %s\n", strerror(-rc));
	return rc;
}

int in_child_userns(int (*fn)(void *), void *arg)
{
	return child_run(enter_userns, 0, fn, arg);
}

int drop_to_nobody(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];

	if (setresgid(65534, 65534, 65534) || setgroups(0, NULL) ||
	    setresuid(65534, 65534, 65534)) {
		printf("dropping to 65534: %s\n", strerror(errno));
		return -1;
	}
	if (syscall(SYS_capget, &hdr, data)) {
		printf("capget: %s\n", strerror(errno));
		return -1;
	}
	for (int i = 0; i < 2; i++) {
		if (data[i].effective || data[i].permitted || data[i].inheritable) {
			printf("capabilities left: eff %#x perm %#x inh %#x\n", data[i].effective,
			       data[i].permitted, data[i].inheritable);
			return -1;
		}
	}
	return 0;
}

char proc_state(pid_t pid)
{
	char path[64], buf[512], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (read_file(path, buf, sizeof(buf)) <= 0)
		return 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

int as_user(uid_t uid, gid_t gid, const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	int status;
	pid_t pid;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (setgroups(0, NULL) || setgid(gid) || setuid(uid))
			_exit(126);
		execl("/bin/sh", "sh", "-c", cmd, NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	printf("[uid %u] %s -> %d\n", uid, cmd, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int open_as(uid_t uid, gid_t gid, const char *path, int flags, pid_t *cpid)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int fd;

		if (setgroups(0, NULL) || setgid(gid) || setuid(uid))
			_exit(255);
		fd = open(path, flags, 0644);
		_exit(fd < 0 ? errno : 0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	if (cpid)
		*cpid = pid;
	return WEXITSTATUS(status);
}
