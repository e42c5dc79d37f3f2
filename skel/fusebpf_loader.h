/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fusebpf_loader.h - user space: load fuse-bpf filters with stock libbpf 1.1.
 *
 * A filter is a struct_ops map of struct fuse_ops (bpf-progs/fusebpf.h).
 * Open and load it as any object or skeleton, then attach its map so that
 * root_bpf= or a server's FUSE_ENTRY_BPF can name it by its fd:
 *
 *	skel = hide_bpf__open_and_load();
 *	fd = fusebpf_ops_attach(skel->maps.hide);
 *
 * (fusebpf_ops_update() then fusebpf_ops_release(): the map's lifetime is
 * then that of its fds, pins and mounts.)
 *
 * For an object that is not ours, fusebpf_ops_map(obj) finds that map.
 * Header-only; used by the tests and fusebpfctl.
 */
#ifndef FUSEBPF_LOADER_H
#define FUSEBPF_LOADER_H

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Whether the running kernel has fuse-bpf filters (struct fuse_ops). */
#define FUSEBPF_FEATURE_FILE	"/sys/fs/fuse/features/fuse_bpf"

/*
 * Update a loaded struct_ops map of struct fuse_ops with its programs
 * (libbpf's bpf_map__attach_struct_ops()): from then on a server
 * (FUSE_ENTRY_BPF) or root_bpf= may name it by its fd. Returns libbpf's
 * link, whose destruction deletes the element again, or NULL with errno.
 */
static inline struct bpf_link *fusebpf_ops_update(struct bpf_map *map)
{
	return bpf_map__attach_struct_ops(map);
}

/*
 * Delete the element of a map that fusebpf_ops_update() updated
 * (destroying libbpf's struct_ops link does). On 6.1 an updated map holds
 * a reference on itself that only a delete drops, so a map never deleted
 * is never freed; a deleted one is freed when its last fd, pin and mount
 * go. A deleted map can still be attached, and filters as before.
 */
static inline void fusebpf_ops_release(struct bpf_link *link)
{
	bpf_link__destroy(link);
}

/*
 * Attach a loaded struct_ops map of struct fuse_ops: update it, then
 * release it. Returns the map's fd, which names the filter, or a negative
 * errno.
 */
static inline int fusebpf_ops_attach(struct bpf_map *map)
{
	struct bpf_link *link = fusebpf_ops_update(map);

	if (!link)
		return -errno;
	fusebpf_ops_release(link);
	return bpf_map__fd(map);
}

/*
 * The struct type a struct_ops map of obj implements ("fuse_ops"), from the
 * variable of the same name in the object's .struct_ops section (libbpf 1.1
 * gives such maps no value type id); NULL when not found.
 */
static inline const char *fusebpf_struct_ops_type(const struct btf *btf, const char *var)
{
	int sec = btf__find_by_name_kind(btf, ".struct_ops", BTF_KIND_DATASEC);
	const struct btf_var_secinfo *vs;
	const struct btf_type *t;
	int i;

	if (sec < 0)
		return NULL;
	t = btf__type_by_id(btf, sec);
	vs = btf_var_secinfos(t);
	for (i = 0; i < btf_vlen(t); i++, vs++) {
		const struct btf_type *v = btf__type_by_id(btf, vs->type);

		if (strcmp(btf__name_by_offset(btf, v->name_off), var))
			continue;
		t = btf__type_by_id(btf, btf__resolve_type(btf, v->type));
		return t ? btf__name_by_offset(btf, t->name_off) : NULL;
	}
	return NULL;
}

/*
 * The one struct_ops map of struct fuse_ops in an opened object: the
 * filter. NULL with errno ENOENT when it has none, EEXIST when several
 * (a filter object names one filter).
 */
static inline struct bpf_map *fusebpf_ops_map(struct bpf_object *obj)
{
	const struct btf *btf = bpf_object__btf(obj);
	struct bpf_map *map, *found = NULL;

	bpf_object__for_each_map(map, obj) {
		const char *type;

		if (bpf_map__type(map) != BPF_MAP_TYPE_STRUCT_OPS || !btf)
			continue;
		type = fusebpf_struct_ops_type(btf, bpf_map__name(map));
		if (!type || strcmp(type, "fuse_ops"))
			continue;
		if (found) {
			errno = EEXIST;
			return NULL;
		}
		found = map;
	}
	if (!found)
		errno = ENOENT;
	return found;
}

#endif
