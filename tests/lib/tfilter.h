/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The guest suites' small fuse-bpf filters: an object of tests/bpf/ holds
 * several, each a fuse_ops struct_ops map whose programs are named
 * <map>_<member> (FUSEBPF_OP, bpf-progs/fusebpf.h). A case loads one of
 * them (the object's other maps and their programs are left out), attaches
 * it and names it by the map's fd, as root_bpf= and FUSE_ENTRY_BPF want:
 *
 *	skel = mfilter_bpf__open();
 *	fd = tfilter_load_one(skel->obj, "mm_range");
 *	mfilter_bpf__destroy(skel);
 *	... mount with root_bpf=fd ...
 *	tfilter_close(fd);
 *
 * Header-only; needs -Iskel (skel/fusebpf_loader.h).
 */
#ifndef FUSEBPF_TFILTER_H
#define FUSEBPF_TFILTER_H
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <stdbool.h>

#include "fusebpf_loader.h"

/* Whether the running kernel has struct fuse_ops, the filters' struct_ops type */
static inline bool tfilter_have_fuse_ops(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	bool have;

	if (!btf)
		return false;
	have = btf__find_by_name_kind(btf, "fuse_ops", BTF_KIND_STRUCT) > 0;
	btf__free(btf);
	return have;
}

/* A program of a struct_ops map other than name (by FUSEBPF_OP's naming) */
static inline bool tfilter_other_map_prog(struct bpf_program *p, const char *name)
{
	size_t len = strlen(name);

	return bpf_program__type(p) == BPF_PROG_TYPE_STRUCT_OPS &&
	       (strncmp(bpf_program__name(p), name, len) || bpf_program__name(p)[len] != '_');
}

/*
 * Load the fuse_ops map name of the opened obj, alone, and attach it. Its
 * fd, a descriptor of its own (obj may be closed), or -errno; -ENOENT on a
 * kernel without struct fuse_ops.
 */
static inline int tfilter_load_one(struct bpf_object *obj, const char *name)
{
	struct bpf_program *p;
	struct bpf_map *m, *found = NULL;
	int fd, err;

	if (!tfilter_have_fuse_ops())
		return -ENOENT;
	bpf_object__for_each_map(m, obj) {
		if (bpf_map__type(m) != BPF_MAP_TYPE_STRUCT_OPS)
			continue;
		if (!strcmp(bpf_map__name(m), name))
			found = m;
		else
			bpf_map__set_autocreate(m, false);
	}
	if (!found)
		return -ESRCH;
	bpf_object__for_each_program(p, obj)
		if (tfilter_other_map_prog(p, name))
			bpf_program__set_autoload(p, false);
	err = bpf_object__load(obj);
	if (err)
		return err;
	fd = fusebpf_ops_attach(found);
	if (fd < 0)
		return fd;
	fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	return fd < 0 ? -errno : fd;
}

/*
 * Detach (so that the kernel frees it once nothing else holds it) and
 * close a filter of tfilter_load_one(); nothing for fd < 0.
 */
static inline void tfilter_close(int fd)
{
	int zero = 0;

	if (fd < 0)
		return;
	bpf_map_delete_elem(fd, &zero);
	close(fd);
}

#endif
