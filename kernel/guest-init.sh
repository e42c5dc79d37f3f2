#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# PID 1 of the fusebpf guest (see kernel/vm.sh). The root filesystem is the
# host's, read-only over 9p; this makes the writable places, runs the command
# left in the shared out directory (or a shell), records its exit status and
# the kernel log there, and reboots (QEMU runs with -no-reboot, so it exits).
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp/home TERM=${TERM:-linux} LANG=C.UTF-8

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm 2>/dev/null
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
# The repository and the cache (fusebpf.hold=, from vm.sh), when below one of
# the tmpfs directories (a checkout in /tmp), are held by bind mounts while
# those are covered, then put back in their places.
held=()
IFS=, read -r -a hold <<<"$(sed -n 's/.* fusebpf\.hold=\([^ ]*\).*/\1/p' /proc/cmdline)"
for p in "${hold[@]}"; do
	case "$p" in
	/tmp/*|/run/*|/var/tmp/*|/var/log/*)
		h=/dev/shm/hold${#held[@]}
		mkdir -p "$h" && mount --bind "$p" "$h" && held+=("$p") ;;
	esac
done
for d in /tmp /run /var/tmp /var/log; do
	mount -t tmpfs -o mode=1777 tmpfs "$d"
done
for i in "${!held[@]}"; do
	mkdir -p "${held[$i]}" && mount --move "/dev/shm/hold$i" "${held[$i]}"
done
mkdir -p /tmp/home
mount -t bpf bpf /sys/fs/bpf
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t fusectl fusectl /sys/fs/fuse/connections 2>/dev/null
out=/run/fusebpf-out
mkdir -p $out
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 fusebpf_out $out
hostname fusebpf-vm 2>/dev/null
ip link set lo up 2>/dev/null
ulimit -c 0

finish() {
	dmesg >$out/dmesg 2>/dev/null
	echo "$1" >$out/rc
	sync
	echo b >/proc/sysrq-trigger
	sleep 5
}

if [ -f $out/env ]; then
	set -a
	. $out/env
	set +a
fi
cd "$(cat $out/cwd 2>/dev/null || echo /)" 2>/dev/null || cd /

if [ -f $out/interactive ]; then
	echo "fusebpf guest: $(uname -r); the host's root is read-only, /tmp is writable"
	setsid -c bash -i </dev/ttyS0 >/dev/ttyS0 2>&1
	finish 0
fi

echo "FUSEBPF-GUEST-START"
bash -c "$(cat $out/cmd)" </dev/null >/dev/ttyS0 2>&1
rc=$?
echo "FUSEBPF-GUEST-END rc=$rc"
finish $rc
