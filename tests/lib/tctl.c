// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include "tctl.h"

#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"

char ctl_path[2048];

int ctl_find(char *dir, size_t cap)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return -1;
	exe[n] = 0;
	if ((size_t)snprintf(dir, cap, "%s", dirname(exe)) >= cap ||
	    (size_t)snprintf(ctl_path, sizeof(ctl_path), "%s/../../fusebpfctl", dir) >= sizeof(ctl_path))
		return -1;
	return 0;
}

int ctl_into(char *out, size_t cap, const char *fmt, ...)
{
	char args[4096], cmd[8400];
	size_t len = 0;
	va_list ap;
	FILE *p;
	int status;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof(cmd), "%s %s", ctl_path, args);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (len < cap - 1) {
		size_t n = fread(out + len, 1, cap - 1 - len, p);

		if (!n)
			break;
		len += n;
	}
	out[len] = 0;
	status = pclose(p);
	printf("$ fusebpfctl %s -> %d\n%.4000s%s", args, WIFEXITED(status) ? WEXITSTATUS(status) : -1,
	       out, len > 4000 ? "...\n" : "");
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

bool fuse_bpf(void)
{
	char buf[32];

	return read_file("/sys/fs/fuse/features/fuse_bpf", buf, sizeof(buf)) > 0 &&
	       strncmp(buf, "supported", 9) == 0;
}

bool mounted(const char *path)
{
	char buf[1 << 16], needle[256];

	if (read_file("/proc/mounts", buf, sizeof(buf)) < 0)
		return false;
	snprintf(needle, sizeof(needle), " %s ", path);
	return strstr(buf, needle) != NULL;
}

void ctl_cleanup(const char *pins, const char *dir, const char *mnt)
{
	char out[4096];

	if (strncmp(dir, "/tmp/", 5) || strncmp(pins, "/sys/fs/bpf/", 12) || strstr(dir, "..") ||
	    strstr(pins, ".."))
		return;
	if (mounted(mnt)) {
		ctl_into(out, sizeof(out), "detach %s >/dev/null 2>&1", mnt);
		if (mounted(mnt))
			umount2(mnt, MNT_DETACH);
	}
	run("for d in '%s'/*; do [ -d \"$d\" ] && rm -f \"$d\"/* && rmdir \"$d\"; done; "
	    "rmdir '%s'; rm -rf '%s'", pins, pins, dir);
}
