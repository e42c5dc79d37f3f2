// SPDX-License-Identifier: GPL-2.0
/*
 * An extension (freplace) of a global function ext_target(int): of
 * kfilter_exttgt's fuse_ops member, which the kernel must refuse, or of
 * kfilter_dummytgt's bpf_dummy_ops member, which it allows, and then must
 * refuse to attach to the fuse_ops member (fuse_ops limits the kfuncs
 * its programs call; an extension is verified without that limit).
 */
#include "fusebpf.h"

SEC("freplace/ext_target")
int ext_replacement(int x)
{
	return x;
}

char LICENSE[] SEC("license") = "GPL";
