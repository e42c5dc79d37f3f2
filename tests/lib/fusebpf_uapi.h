/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fuse-bpf uapi for the tests: fusebpfctl's copy (cli/fuse_uapi.h), and
 * what the tests need besides.
 */
#ifndef FUSEBPF_UAPI_H
#define FUSEBPF_UAPI_H

#include "../../cli/fuse_uapi.h"

#ifndef FUSE_DEV_IOC_BPF_REPLACE	/* include/uapi/linux/fuse.h: live filter replacement */
struct fuse_bpf_replace {
	uint32_t old_fd;
	uint32_t new_fd;
	uint32_t flags;		/* 0 */
	uint32_t padding;	/* 0 */
};
#define FUSE_DEV_IOC_BPF_REPLACE _IOW(229, 126, struct fuse_bpf_replace)
#endif

/* include/linux/fs.h; not in uapi. */
#ifndef FILESYSTEM_MAX_STACK_DEPTH
#define FILESYSTEM_MAX_STACK_DEPTH 2
#endif

#endif
