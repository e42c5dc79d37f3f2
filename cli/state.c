// SPDX-License-Identifier: GPL-2.0
/* Mount records under <state dir>/mounts/. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fusebpfctl.h"
#include "json.h"
#include "state.h"

void escape_path(const char *path, char *buf, size_t cap)
{
	size_t n = 0;

	for (const unsigned char *p = (const unsigned char *)path; *p && n + 4 < cap; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    *p == '.' || *p == '_' || *p == '-')
			buf[n++] = *p;
		else
			n += snprintf(buf + n, cap - n, "%%%02X", *p);
	}
	buf[n] = 0;
}

void mount_rec_path(const char *mountpoint, const char *ext, char *buf, size_t cap)
{
	char esc[1024];

	escape_path(mountpoint, esc, sizeof(esc));
	snprintf(buf, cap, "%s/mounts/%s%s", opts.state_dir, esc, ext);
}

int mount_rec_write(const struct mount_rec *m)
{
	char path[4096], tmp[4200], dir[4096];
	json_object *o;
	int err = 0;
	FILE *f;

	snprintf(dir, sizeof(dir), "%s/mounts", opts.state_dir);
	err = mkdir_p(dir, 0755);
	if (err)
		return err;
	mount_rec_path(m->mountpoint, ".json", path, sizeof(path));
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "we");
	if (!f)
		return -errno;
	o = json_mount(m, false);
	fprintf(f, "%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
							     JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	if (fclose(f))
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

static int read_rec_file(const char *path, struct mount_rec *m)
{
	json_object *o = json_object_from_file(path);
	int err;

	if (!o)
		return access(path, F_OK) ? -errno : -EINVAL;
	err = mount_from_json(o, m);
	json_object_put(o);
	if (!err)
		m->alive = pid_alive(m->pid);
	return err;
}

int mount_rec_read(const char *mountpoint, struct mount_rec *m)
{
	char path[4096];

	mount_rec_path(mountpoint, ".json", path, sizeof(path));
	return read_rec_file(path, m);
}

int mount_rec_remove(const char *mountpoint)
{
	char path[4096];

	mount_rec_path(mountpoint, ".json", path, sizeof(path));
	if (unlink(path) && errno != ENOENT)
		return -errno;
	return 0;
}

static int cmp_rec(const void *a, const void *b)
{
	return strcmp(((const struct mount_rec *)a)->mountpoint,
		      ((const struct mount_rec *)b)->mountpoint);
}

int mount_recs(struct mount_rec **out)
{
	char dir[4096], path[4400];
	struct mount_rec *recs = NULL;
	struct dirent *de;
	int n = 0, cap = 0;
	DIR *d;

	*out = NULL;
	snprintf(dir, sizeof(dir), "%s/mounts", opts.state_dir);
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (len < 6 || strcmp(de->d_name + len - 5, ".json"))
			continue;
		if (n == cap) {
			struct mount_rec *r = realloc(recs, (cap = cap ? cap * 2 : 4) * sizeof(*recs));

			if (!r) {
				free(recs);
				closedir(d);
				return -ENOMEM;
			}
			recs = r;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (read_rec_file(path, &recs[n]) == 0)
			n++;
	}
	closedir(d);
	if (n)
		qsort(recs, n, sizeof(*recs), cmp_rec);
	*out = recs;
	if (!n)
		free(recs), *out = NULL;
	return n;
}

bool pid_alive(pid_t pid)
{
	char path[64], buf[512], *p;

	if (pid <= 0 || (kill(pid, 0) && errno == ESRCH))
		return false;
	/* A zombie (its parent has not reaped it yet) does not serve. */
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (read_small(path, buf, sizeof(buf)) <= 0)
		return true;
	p = strrchr(buf, ')');
	return !(p && p[1] == ' ' && p[2] == 'Z');
}

bool is_mountpoint(const char *path)
{
	char line[8192], real[4096];
	bool found = false;
	FILE *f;

	if (!realpath(path, real))
		return false;
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return false;
	/* Field 5 is the mount point, with spaces etc. escaped as \040. */
	while (!found && fgets(line, sizeof(line), f)) {
		char mp[4096], *p = line, un[4096];
		size_t j = 0;

		for (int field = 0; field < 4 && p; field++)
			p = strchr(p, ' ') ? strchr(p, ' ') + 1 : NULL;
		if (!p || sscanf(p, "%4095s", mp) != 1)
			continue;
		for (size_t i = 0; mp[i] && j + 1 < sizeof(un); i++) {
			if (mp[i] == '\\' && mp[i + 1] >= '0' && mp[i + 1] <= '3') {
				un[j++] = (char)strtol((char[]){ mp[i + 1], mp[i + 2], mp[i + 3], 0 }, NULL, 8);
				i += 3;
			} else {
				un[j++] = mp[i];
			}
		}
		un[j] = 0;
		found = strcmp(un, real) == 0;
	}
	fclose(f);
	return found;
}
