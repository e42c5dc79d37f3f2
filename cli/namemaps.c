// SPDX-License-Identifier: GPL-2.0
/* Name-keyed policy maps: the short and the _long map of each (namemaps.h). */
#include <bpf/bpf.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "filter.h"
#include "namemaps.h"

static const char *const long_maps[][2] = {
	{ FUSEBPF_MAP_HIDE_NAMES, FUSEBPF_MAP_HIDE_NAMES_LONG },
	{ FUSEBPF_MAP_ATTR_RULES, FUSEBPF_MAP_ATTR_RULES_LONG },
	{ FUSEBPF_MAP_DENY_ALLOW, FUSEBPF_MAP_DENY_ALLOW_LONG },
};

const char *namemaps_long(const char *map)
{
	for (size_t i = 0; i < sizeof(long_maps) / sizeof(long_maps[0]); i++)
		if (strcmp(map, long_maps[i][0]) == 0)
			return long_maps[i][1];
	return NULL;
}

const char *namemaps_of(const char *map, const char *name)
{
	const char *lmap = namemaps_long(map);

	return lmap && strlen(name) >= FUSEBPF_NAME_SHORT ? lmap : map;
}

/* The key size of the map fd: at most FUSEBPF_NAME_MAX; -errno otherwise. */
static int key_size(int fd)
{
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	return info.key_size && info.key_size <= FUSEBPF_NAME_MAX ? (int)info.key_size : -EINVAL;
}

int namemaps_each_fd(int fd, namemaps_fn fn, void *ctx)
{
	char key[FUSEBPF_NAME_MAX], next[FUSEBPF_NAME_MAX], name[FUSEBPF_NAME_MAX + 1];
	int ksize = key_size(fd), err;
	void *prev = NULL;

	if (ksize < 0)
		return ksize;
	while (bpf_map_get_next_key(fd, prev, next) == 0) {
		memcpy(key, next, ksize);
		prev = key;
		/* A key written by other tools may lack its NUL */
		memcpy(name, key, ksize);
		name[ksize] = 0;
		err = fn(fd, key, name, ctx);
		if (err)
			return err;
	}
	return errno == ENOENT ? 0 : -errno;
}

/* One map of the filter; a filter without it has no keys there. */
static int each_of_map(const char *filter, const char *map, namemaps_fn fn, void *ctx)
{
	int fd = filter_obj_fd(filter, map), err;

	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	err = namemaps_each_fd(fd, fn, ctx);
	close(fd);
	return err;
}

int namemaps_each(const char *filter, const char *map, namemaps_fn fn, void *ctx)
{
	const char *lmap = namemaps_long(map);
	int err = each_of_map(filter, map, fn, ctx);

	return err || !lmap ? err : each_of_map(filter, lmap, fn, ctx);
}
