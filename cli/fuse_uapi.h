/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fuse-bpf additions to include/uapi/linux/fuse.h, for building against
 * the host's headers (which do not have them). Each definition is guarded,
 * so a patched fuse.h wins where it is installed. The tests use it too
 * (tests/lib/fusebpf_uapi.h).
 */
#ifndef FUSEBPFCTL_FUSE_UAPI_H
#define FUSEBPFCTL_FUSE_UAPI_H

#include <linux/fuse.h>
#include <stdint.h>
#include <sys/ioctl.h>

#ifndef FUSE_BPF_MAX_ENTRIES
#define FUSE_BPF_MAX_ENTRIES 2

enum fuse_bpf_type {
	FUSE_ENTRY_BACKING = 1,
	FUSE_ENTRY_BPF = 2,
	FUSE_ENTRY_REMOVE_BACKING = 3,
	FUSE_ENTRY_REMOVE_BPF = 4,
};

struct fuse_bpf_entry_out {
	uint32_t entry_type;
	uint32_t unused;
	uint64_t fd;
};

/* The out args of a backed READDIR before its postfilter: this, then fuse_dirents */
struct fuse_read_out {
	uint64_t offset;
	uint32_t again;
	uint32_t padding;
};
#endif

#ifndef FUSE_DEV_IOC_MAGIC
#define FUSE_DEV_IOC_MAGIC 229
#endif
#ifndef FUSE_DEV_IOC_BPF_RESPONSE
#define FUSE_DEV_IOC_BPF_RESPONSE(N) _IOW(FUSE_DEV_IOC_MAGIC, 125, char[N])
#endif

/* statfs f_type of a FUSE mount */
#ifndef FUSE_SUPER_MAGIC
#define FUSE_SUPER_MAGIC 0x65735546
#endif

#endif
