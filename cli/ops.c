// SPDX-License-Identifier: GPL-2.0
/* The members of a fuse_ops struct_ops map, from its value and the kernel's BTF. */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ops.h"

#define VALUE_PREFIX "bpf_struct_ops_"

const char *ops_state_name(int state)
{
	static const char *const names[] = { "init", "inuse", "tobefree" };

	return state >= 0 && state < 3 ? names[state] : "unknown";
}

/* The members of struct type t at data_off in value (size bytes) into d */
static int decode_members(const struct btf *btf, const struct btf_type *t, size_t data_off,
			  const unsigned char *value, size_t size, struct ops_desc *d)
{
	const struct btf_member *m = btf_members(t);

	for (int i = 0; i < btf_vlen(t); i++) {
		size_t off = data_off + btf_member_bit_offset(t, i) / 8;
		uint64_t id;

		if (off + sizeof(id) > size)
			return -EINVAL;
		d->total++;
		memcpy(&id, value + off, sizeof(id));
		if (!id)
			continue;
		if (d->n == OPS_MAX)
			return -E2BIG;
		snprintf(d->m[d->n].name, sizeof(d->m[d->n].name), "%s",
			 btf__name_by_offset(btf, m[i].name_off));
		d->m[d->n++].prog_id = id;
	}
	return 0;
}

int ops_decode(const struct btf *btf, uint32_t value_type, const void *value, size_t size,
	       struct ops_desc *d)
{
	const struct btf_type *vt = btf__type_by_id(btf, value_type), *data = NULL;
	const char *vname = vt ? btf__name_by_offset(btf, vt->name_off) : NULL;
	size_t data_off = 0, state_off = 0;
	bool have_state = false;

	memset(d, 0, sizeof(*d));
	if (!vt || !btf_is_struct(vt) || !vname || strncmp(vname, VALUE_PREFIX, strlen(VALUE_PREFIX)))
		return -EINVAL;
	snprintf(d->type, sizeof(d->type), "%s", vname + strlen(VALUE_PREFIX));
	for (int i = 0; i < btf_vlen(vt); i++) {
		const struct btf_member *m = btf_members(vt) + i;
		const char *name = btf__name_by_offset(btf, m->name_off);

		if (name && !strcmp(name, "state")) {
			state_off = btf_member_bit_offset(vt, i) / 8;
			have_state = true;
		} else if (name && !strcmp(name, "data")) {
			data_off = btf_member_bit_offset(vt, i) / 8;
			data = btf__type_by_id(btf, btf__resolve_type(btf, m->type));
		}
	}
	if (!have_state || !data || !btf_is_struct(data) || state_off + sizeof(int) > size)
		return -EINVAL;
	memcpy(&d->state, (const unsigned char *)value + state_off, sizeof(int));
	return decode_members(btf, data, data_off, value, size, d);
}

/* The map's value as the kernel has it, decoded with the kernel's BTF */
static int ops_read(int fd, const struct bpf_map_info *info, struct ops_desc *d)
{
	struct btf *btf = btf__load_vmlinux_btf();
	void *value = calloc(1, info->value_size);
	uint32_t zero = 0;
	int err;

	if (!btf || !value)
		err = btf ? -ENOMEM : -errno;
	else if (bpf_map_lookup_elem(fd, &zero, value))
		err = -errno;
	else
		err = ops_decode(btf, info->btf_vmlinux_value_type_id, value, info->value_size, d);
	free(value);
	btf__free(btf);
	return err;
}

int ops_describe(int fd, struct ops_desc *d)
{
	struct bpf_map_info info = {};
	uint32_t len = sizeof(info);
	int err;

	memset(d, 0, sizeof(*d));
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	if (info.type != BPF_MAP_TYPE_STRUCT_OPS)
		return -EINVAL;
	err = ops_read(fd, &info, d);
	if (err)
		return err;
	return strcmp(d->type, "fuse_ops") ? -EINVAL : 0;
}
