/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fusebpf_loader.h - user space: load fuse-bpf filters with stock libbpf 1.1.
 *
 * libbpf 1.1 knows neither the fuse program type (its number is whatever
 * the kernel publishes in /sys/fs/fuse/bpf_prog_type_fuse) nor the
 * SEC("fuse") section name. Before opening a filter object or skeleton:
 *
 *	if (fusebpf_register_section() < 0) ...	// SEC("fuse") -> the fuse type
 *	skel = hide_bpf__open_and_load();
 *
 * or, for an object opened without that, fusebpf_set_prog_types(obj)
 * between open and load. Header-only; used by the tests and fusebpfctl.
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

#define FUSEBPF_PROG_TYPE_FILE	"/sys/fs/fuse/bpf_prog_type_fuse"
#define FUSEBPF_SECTION		"fuse"
/* The number the series gives the type (after BPF_PROG_TYPE_SYSCALL, 31). */
#define FUSEBPF_PROG_TYPE_DEFAULT 32

/*
 * The fuse filter program type of the running kernel, or a negative errno:
 * -ENOENT when the kernel has no fuse-bpf BPF support (no sysfs file),
 * -EINVAL when the file does not hold a number. why, if not NULL, gets a
 * message for the user.
 */
static inline int fusebpf_prog_type_why(const char **why)
{
	char buf[32] = "";
	ssize_t n;
	char *end;
	long v;
	int fd;

	fd = open(FUSEBPF_PROG_TYPE_FILE, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int err = -errno;

		if (why)
			*why = err == -ENOENT ? "this kernel has no fuse-bpf filters (no "
						FUSEBPF_PROG_TYPE_FILE ")"
					      : "cannot open " FUSEBPF_PROG_TYPE_FILE;
		return err;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0) {
		if (why)
			*why = "cannot read " FUSEBPF_PROG_TYPE_FILE;
		return n < 0 ? -errno : -EINVAL;
	}
	buf[n] = 0;
	v = strtol(buf, &end, 10);
	if (end == buf || v <= 0 || v > 1000) {
		if (why)
			*why = FUSEBPF_PROG_TYPE_FILE " does not hold a program type number";
		return -EINVAL;
	}
	return (int)v;
}

static inline int fusebpf_prog_type(void)
{
	return fusebpf_prog_type_why(NULL);
}

/*
 * Make libbpf accept SEC("fuse") and give such programs the fuse type
 * (the running kernel's, or FUSEBPF_PROG_TYPE_DEFAULT when it has none, so
 * that objects can still be opened and inspected; loading them then fails
 * in the kernel). Idempotent. Returns the type used, or a negative errno.
 */
static inline int fusebpf_register_section(void)
{
	static int registered_type;
	int type, id;

	if (registered_type > 0)
		return registered_type;
	type = fusebpf_prog_type();
	if (type < 0)
		type = FUSEBPF_PROG_TYPE_DEFAULT;
	id = libbpf_register_prog_handler(FUSEBPF_SECTION, (enum bpf_prog_type)type, 0, NULL);
	if (id < 0)
		return id;
	registered_type = type;
	return type;
}

/* Set the fuse type on every program of an opened (not loaded) object. */
static inline int fusebpf_set_prog_types(struct bpf_object *obj)
{
	struct bpf_program *prog;
	int type = fusebpf_prog_type(), err;

	if (type < 0)
		return type;
	bpf_object__for_each_program(prog, obj) {
		err = bpf_program__set_type(prog, (enum bpf_prog_type)type);
		if (err)
			return err;
	}
	return 0;
}

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
