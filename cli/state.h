/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where fusebpfctl keeps what it did:
 *
 *   <pin dir>/NAME/prog          the filter's program (pin dir: /sys/fs/bpf/fusebpf)
 *   <pin dir>/NAME/<map name>    its maps, by the names in bpf-progs/fusebpf_maps.h
 *   <state dir>/filters/NAME.json  {"name", "kind", "source"} (state dir: /run/fusebpf)
 *   <state dir>/mounts/<escaped mountpoint>.json   a mount record (json_mount())
 *   <state dir>/mounts/<escaped mountpoint>.log    its server's log
 *   <state dir>/lock             flock()ed by mutating commands
 */
#ifndef FUSEBPFCTL_STATE_H
#define FUSEBPFCTL_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "builtins.h"
#include "json.h"

/* --- filters (filter.c) -------------------------------------------------------- */
/* A pinned object of a loaded filter ("prog" or a map name): fd or -errno. */
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

/* --- load and unload, the caller holding the state lock (load.c) ------------- */
struct policy_change;
/* Load FILTER as name with the changes; config: the file it came from, or NULL.
 * 0, or -1 with the error printed. */
int load_filter(const char *filter, const char *name, const struct policy_change *changes,
		int nchanges, const char *config);
int unload_filter(const char *name);

/* --- mounts (state.c) ---------------------------------------------------------- */
/* "/mnt/a b" -> "%2Fmnt%2Fa%20b": every byte but [A-Za-z0-9._-] as %XX. */
void escape_path(const char *path, char *buf, size_t cap);
void mount_rec_path(const char *mountpoint, const char *ext, char *buf, size_t cap);
int mount_rec_write(const struct mount_rec *m);
int mount_rec_read(const char *mountpoint, struct mount_rec *m);
int mount_rec_remove(const char *mountpoint);
/* All records, alive filled in; malloc'd array; count or -errno. */
int mount_recs(struct mount_rec **out);
bool pid_alive(pid_t pid);
/* Is path the root of a mount (its st_dev differs from its parent's, or it is in mountinfo)? */
bool is_mountpoint(const char *path);

#endif
