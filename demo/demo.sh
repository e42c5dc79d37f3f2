#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo (runs in the guest): shows that fuse-bpf's pieces are present.
# Until fusebpfctl exists, this is a tour of the kernel the project runs on.
say() { printf '\n\033[1m$ %s\033[0m\n' "$*"; eval "$*"; }
echo "fusebpf demo: the guest kernel and what fuse-bpf stands on"
say 'uname -r'
say 'ls -l /dev/fuse'
say 'grep -E "fuse|bpf" /proc/filesystems'
say 'ls /sys/fs/fuse/'
say 'cat /sys/fs/fuse/features/fuse_bpf 2>/dev/null || echo "(fuse-bpf not in this kernel yet)"'
say 'ls -l /sys/kernel/btf/vmlinux'
say 'bpftool btf dump file /sys/kernel/btf/vmlinux | grep -c "STRUCT .fuse_"'
