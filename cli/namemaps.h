/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Name-keyed policy maps (hide_names, attr_rules, deny_allow): a name
 * shorter than FUSEBPF_NAME_SHORT bytes is a key of the map itself, a
 * longer one of its _long map (fusebpf_maps.h). namemaps.c.
 */
#ifndef FUSEBPFCTL_NAMEMAPS_H
#define FUSEBPFCTL_NAMEMAPS_H

#include "fusebpf_maps.h"

/* The _long map of a name-keyed map, or NULL if map is not one. */
const char *namemaps_long(const char *map);

/* The map that holds name: map itself, or its _long map for a long name. */
const char *namemaps_of(const char *map, const char *name);

/*
 * Called for each key: fd is the key's map (for its value), key the key as
 * the map has it, name the same as a NUL-terminated string.
 */
typedef int (*namemaps_fn)(int fd, const void *key, const char *name, void *ctx);

/* Every key of map (an open fd) in turn; stops at fn's first nonzero return. */
int namemaps_each_fd(int fd, namemaps_fn fn, void *ctx);

/*
 * Every key of a loaded filter's map and of its _long map; a filter
 * without the map (or the _long map) has none there. 0, fn's nonzero
 * return, or -errno.
 */
int namemaps_each(const char *filter, const char *map, namemaps_fn fn, void *ctx);

#endif
