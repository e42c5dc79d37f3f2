/* SPDX-License-Identifier: GPL-2.0 */
/* Loaded filters: their pins and metadata (filter.c; the layout is in state.h). */
#ifndef FUSEBPFCTL_FILTER_H
#define FUSEBPFCTL_FILTER_H

#include <stdbool.h>
#include <stddef.h>

#include "builtins.h"
#include "model.h"

/* A pinned object of a loaded filter ("ops" or a map name): fd or -errno. */
int filter_obj_fd(const char *name, const char *obj);
bool filter_loaded(const char *name);
/* Names of the loaded filters (directories in the pin dir), sorted; malloc'd. */
int filter_names(char (**names)[NAME_LEN]);
int filter_describe(const char *name, struct filter_desc *f);
/* How many live mounts of ours use the filter. */
int filter_mount_count(const char *name);
/*
 * A loaded filter's metadata (<state dir>/filters/NAME.json): its kind, its
 * object's path ("" for embedded built-ins) and the configuration file that
 * loaded it ("" when loaded by hand); NULL buffers are skipped. 0 or -errno.
 */
int filter_meta(const char *name, char *kind, size_t kcap, char *source, size_t scap,
		char *config, size_t ccap);

/* Record the configuration file a filter now comes from (apply). */
int filter_set_config(const char *name, const char *config);

#endif
