/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where fusebpfctl keeps what it did:
 *
 *   <pin dir>/NAME/ops           the filter's fuse_ops map (pin dir: /sys/fs/bpf/fusebpf)
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

#include "json.h"
#include "model.h"

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
