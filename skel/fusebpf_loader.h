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
 * Attach (update) a loaded struct_ops map of struct fuse_ops, so that a
 * server (FUSE_ENTRY_BPF) or root_bpf= can name it by its fd. It stays
 * attached when this process ends, for as long as something holds the map
 * (a mount using it, a pin, an fd). Returns the map's fd or a negative
 * errno.
 */
static inline int fusebpf_ops_attach(struct bpf_map *map)
{
	struct bpf_link *link = bpf_map__attach_struct_ops(map);

	if (!link)
		return -errno;
	/* Destroying libbpf's link would delete the map's element (detach) */
	bpf_link__disconnect(link);
	bpf_link__destroy(link);
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
