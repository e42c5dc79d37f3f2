/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fuse-bpf uapi for the tests: fusebpfctl's copy (cli/fuse_uapi.h), and
 * what the tests need besides.
 */
#ifndef FUSEBPF_UAPI_H
#define FUSEBPF_UAPI_H

#include "../../cli/fuse_uapi.h"

/* include/linux/fs.h; not in uapi. */
#ifndef FILESYSTEM_MAX_STACK_DEPTH
#define FILESYSTEM_MAX_STACK_DEPTH 2
#endif

#endif
