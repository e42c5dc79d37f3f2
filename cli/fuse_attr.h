/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A FUSE attribute reply from a stat(): shared by fusebpfctl's server
 * (server.c) and the tests' FUSE servers (tests/lib/tfuse.c).
 */
#ifndef FUSEBPF_FUSE_ATTR_H
#define FUSEBPF_FUSE_ATTR_H

#include <linux/fuse.h>
#include <sys/stat.h>

static inline void fuse_attr_from_stat(const struct stat *st, struct fuse_attr *a)
{
	*a = (struct fuse_attr){
		.ino = st->st_ino,
		.size = st->st_size,
		.blocks = st->st_blocks,
		.atime = st->st_atim.tv_sec,
		.mtime = st->st_mtim.tv_sec,
		.ctime = st->st_ctim.tv_sec,
		.atimensec = st->st_atim.tv_nsec,
		.mtimensec = st->st_mtim.tv_nsec,
		.ctimensec = st->st_ctim.tv_nsec,
		.mode = st->st_mode,
		.nlink = st->st_nlink,
		.uid = st->st_uid,
		.gid = st->st_gid,
		.rdev = st->st_rdev,
		.blksize = st->st_blksize,
	};
}

#endif
