// SPDX-License-Identifier: GPL-2.0
/* Loaded filters: their pins, their metadata, and what list shows of them. */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "filter.h"
#include "fusebpfctl.h"
#include "json.h"
#include "ops.h"
#include "state.h"

int filter_obj_fd(const char *name, const char *obj)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s/%s", opts.pin_dir, name, obj);
	fd = bpf_obj_get(path);
	return fd < 0 ? -errno : fd;
}

bool filter_loaded(const char *name)
{
	char path[4096];
	struct stat st;

	if (!valid_filter_name(name))
		return false;
	snprintf(path, sizeof(path), "%s/%s/ops", opts.pin_dir, name);
	return stat(path, &st) == 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

int filter_names(char (**names)[NAME_LEN])
{
	char (*v)[NAME_LEN] = NULL;
	struct dirent *de;
	int n = 0, cap = 0;
	DIR *d;

	*names = NULL;
	d = opendir(opts.pin_dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		/* A name we could not have pinned (too long for NAME_LEN) is not ours. */
		if (!valid_filter_name(de->d_name) || !filter_loaded(de->d_name))
			continue;
		if (n == cap) {
			void *p = realloc(v, (cap = cap ? cap * 2 : 8) * sizeof(*v));

			if (!p) {
				free(v);
				closedir(d);
				return -ENOMEM;
			}
			v = p;
		}
		memcpy(v[n++], de->d_name, strlen(de->d_name) + 1);	/* valid: < NAME_LEN */
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), cmp_name);
	else
		free(v), v = NULL;
	*names = v;
	return n;
}

static const char *map_type_name(uint32_t type)
{
	const char *s = libbpf_bpf_map_type_str(type);

	return s ? s : "unknown";
}

static void read_meta(const char *name, struct filter_desc *f)
{
	char path[4096];
	json_object *o, *v;

	snprintf(f->kind, sizeof(f->kind), "unknown");
	snprintf(path, sizeof(path), "%s/filters/%s.json", opts.state_dir, name);
	o = json_object_from_file(path);
	if (!o)
		return;
	if (json_object_object_get_ex(o, "kind", &v) && json_object_is_type(v, json_type_string))
		snprintf(f->kind, sizeof(f->kind), "%s", json_object_get_string(v));
	if (json_object_object_get_ex(o, "source", &v) && json_object_is_type(v, json_type_string))
		snprintf(f->source, sizeof(f->source), "%s", json_object_get_string(v));
	json_object_put(o);
}

static void meta_str(json_object *o, const char *key, char *buf, size_t cap)
{
	json_object *v;

	if (!buf)
		return;
	buf[0] = 0;
	if (json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string))
		snprintf(buf, cap, "%s", json_object_get_string(v));
}

int filter_meta(const char *name, char *kind, size_t kcap, char *source, size_t scap,
		char *config, size_t ccap)
{
	char path[4096];
	json_object *o;

	if (kind)
		kind[0] = 0;
	if (source)
		source[0] = 0;
	if (config)
		config[0] = 0;
	snprintf(path, sizeof(path), "%s/filters/%s.json", opts.state_dir, name);
	o = json_object_from_file(path);
	if (!o)
		return access(path, F_OK) ? -errno : -EINVAL;
	meta_str(o, "kind", kind, kcap);
	meta_str(o, "source", source, scap);
	meta_str(o, "config", config, ccap);
	json_object_put(o);
	return 0;
}

int filter_set_config(const char *name, const char *config)
{
	char path[4096];
	json_object *o;
	int err = 0;

	snprintf(path, sizeof(path), "%s/filters/%s.json", opts.state_dir, name);
	o = json_object_from_file(path);
	if (!o)
		o = json_object_new_object();	/* a filter pinned without one */
	json_object_object_add(o, "config", json_object_new_string(config));
	if (json_object_to_file_ext(path, o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE))
		err = -EIO;
	json_object_put(o);
	return err;
}

int filter_describe(const char *name, struct filter_desc *f)
{
	struct bpf_map_info oinfo = {};
	uint32_t len = sizeof(oinfo);
	char dir[4096];
	struct dirent *de;
	int fd, err;
	DIR *d;

	memset(f, 0, sizeof(*f));
	snprintf(f->name, sizeof(f->name), "%s", name);
	read_meta(name, f);
	fd = filter_obj_fd(name, "ops");
	if (fd < 0)
		return fd;
	err = bpf_obj_get_info_by_fd(fd, &oinfo, &len) ? -errno : 0;
	if (!err)
		f->ops_known = ops_describe(fd, &f->ops) == 0;
	close(fd);
	if (err)
		return err;
	f->ops_id = oinfo.id;
	snprintf(f->ops_name, sizeof(f->ops_name), "%s", oinfo.name);
	filter_pin_dir(name, dir, sizeof(dir));
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d)) && f->nmaps < MAX_MAPS) {
		struct bpf_map_info minfo = {};
		uint32_t mlen = sizeof(minfo);

		if (de->d_name[0] == '.' || strcmp(de->d_name, "ops") == 0 ||
		    strlen(de->d_name) >= sizeof(f->maps[0].name))	/* not a map name */
			continue;
		fd = filter_obj_fd(name, de->d_name);
		if (fd < 0)
			continue;
		if (bpf_obj_get_info_by_fd(fd, &minfo, &mlen) == 0) {
			struct map_desc *m = &f->maps[f->nmaps++];

			snprintf(m->name, sizeof(m->name), "%s", de->d_name);
			m->id = minfo.id;
			snprintf(m->type, sizeof(m->type), "%s", map_type_name(minfo.type));
		}
		close(fd);
	}
	closedir(d);
	for (int i = 1; i < f->nmaps; i++)	/* sorted by name: fixed output */
		for (int j = i; j > 0 && strcmp(f->maps[j - 1].name, f->maps[j].name) > 0; j--) {
			struct map_desc t = f->maps[j];

			f->maps[j] = f->maps[j - 1];
			f->maps[j - 1] = t;
		}
	f->mounts = filter_mount_count(name);
	return 0;
}

int filter_mount_count(const char *name)
{
	struct mount_rec *recs;
	int n = mount_recs(&recs), count = 0;

	for (int i = 0; i < n; i++) {
		bool uses = recs[i].alive && strcmp(recs[i].filter, name) == 0;

		for (int j = 0; j < recs[i].nat; j++)
			uses |= recs[i].alive && strcmp(recs[i].at[j].filter, name) == 0;
		count += uses;
	}
	free(recs);
	return count;
}
