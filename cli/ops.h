/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The members of a fuse_ops struct_ops map: which operations a filter has a
 * program for, read from the map's value (ops.c). For a struct_ops map the
 * kernel's value (struct bpf_struct_ops_fuse_ops in its BTF) holds the
 * map's state and, in each function pointer member of its data, the id of
 * the program it was updated with (0: no member).
 */
#ifndef FUSEBPFCTL_OPS_H
#define FUSEBPFCTL_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

struct btf;

/*
 * What the value's BTF type says about it, from the value as the kernel
 * returned it; host-testable. 0, or -EINVAL when value_type is not a
 * struct_ops value type (state, data) or the value is too short for it.
 */
int ops_decode(const struct btf *btf, uint32_t value_type, const void *value, size_t size,
	       struct ops_desc *d);

/*
 * A map's struct_ops type and members: d->type is "" for a map that is
 * not struct_ops, the struct it implements otherwise ("fuse_ops"). 0, or
 * -EINVAL when fd is not a map of struct fuse_ops (d->type says what it
 * is), or -errno. Reads the kernel's BTF.
 */
int ops_describe(int fd, struct ops_desc *d);

/* "init" (not updated), "inuse" (updated), "tobefree" (deleted) or "unknown" */
const char *ops_state_name(int state);

#endif
