#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench (runs in the guest as root): the same workloads on the native
# backing filesystem, through fuse-bpf (no filter, and the stats filter),
# and through a plain user-space FUSE server (fusebpfctl attach --userspace),
# in one run, reported as ratios to native. Not a test: nothing here fails
# on a number. Under TCG the absolute numbers mean little; the ratios are
# the point.
#   BENCH_SECONDS  seconds per fio job (default 3)
#   BENCH_FILES    files in the metadata tree (default 2000)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
export PATH=$here/build:$PATH
secs=${BENCH_SECONDS:-3}
nfiles=${BENCH_FILES:-2000}
B=/tmp/bench
die() { echo "bench: $*" >&2; exit 1; }
command -v fio >/dev/null || die "fio is missing: make deps"
command -v fusebpfctl >/dev/null || die "build/fusebpfctl is missing: make cli"
[ "$(cat /sys/fs/fuse/features/fuse_bpf 2>/dev/null)" = supported ] ||
	die "this kernel has no fuse-bpf"

cleanup() {
	for m in $B/bpf $B/bpfstats $B/user; do fusebpfctl detach "$m" >/dev/null 2>&1 || true; done
	fusebpfctl unload --force bench >/dev/null 2>&1 || true
	umount $B/back 2>/dev/null || true
	rm -rf $B
}
trap cleanup EXIT
cleanup
mkdir -p $B/back $B/bpf $B/bpfstats $B/user

# The backing filesystem: ext4 on a loop device in RAM, as in the usual
# passthrough numbers.
truncate -s 512M $B/ext4.img
mkfs.ext4 -q -F $B/ext4.img
mount -o loop $B/ext4.img $B/back
mkdir $B/back/tree
for d in $(seq 1 20); do
	mkdir $B/back/tree/d$d
	for f in $(seq 1 $((nfiles / 20))); do : > $B/back/tree/d$d/f$f; done
done

fusebpfctl load stats --name bench >/dev/null
fusebpfctl attach $B/bpf $B/back >/dev/null
fusebpfctl attach $B/bpfstats $B/back --filter bench >/dev/null
fusebpfctl attach $B/user $B/back --userspace >/dev/null

configs="native:$B/back fuse-bpf:$B/bpf fuse-bpf+stats:$B/bpfstats userspace:$B/user"
declare -A result

# fio terse v3: field 7 is the read bandwidth, 48 the write bandwidth (KiB/s).
fio_bw() {	# dir rw
	local out
	out=$(cd "$1" && fio --name=b --filename=bench.$2 --rw="$2" --bs=4k --size=64m \
		--ioengine=psync --time_based --runtime="$secs" --minimal 2>&1) ||
		{ echo "bench: fio $2 in $1 failed: $out" >&2; kill $$; exit 1; }
	rm -f "$1/bench.$2"
	echo "$out" | awk -F';' -v rw="$2" '$1 == 3 { v = (rw ~ /write/ ? $48 : $7) } END { print v + 0 }'
}

# files stat'ed per second: find -ls lstat()s every file of the tree
meta_rate() {	# dir
	local t0 t1 n
	echo 3 > /proc/sys/vm/drop_caches
	t0=$(date +%s%N)
	n=$(find "$1/tree" -ls | wc -l)
	t1=$(date +%s%N)
	echo $((n * 1000000000 / (t1 - t0 + 1)))
}

workloads="read write randread randwrite"
for c in $configs; do
	name=${c%%:*} dir=${c#*:}
	for w in $workloads; do
		result[$name,$w]=$(fio_bw "$dir" $w)
	done
	result[$name,stat]=$(meta_rate "$dir")
	echo "bench: $name done" >&2
done

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
printf '\n%-10s %12s %12s %12s %12s   %-22s %s\n' workload native fuse-bpf "+stats" userspace \
	"fuse-bpf/native" "fuse-bpf/userspace"
for w in $workloads stat; do
	unit=KiB/s; [ $w = stat ] && unit=files/s
	printf '%-10s %12s %12s %12s %12s   %-22s %s\n' "$w" "${result[native,$w]}" \
		"${result[fuse-bpf,$w]}" "${result[fuse-bpf+stats,$w]}" "${result[userspace,$w]}" \
		"$(ratio "${result[fuse-bpf,$w]}" "${result[native,$w]}") ($(ratio "${result[fuse-bpf+stats,$w]}" "${result[native,$w]}") with stats)" \
		"$(ratio "${result[fuse-bpf,$w]}" "${result[userspace,$w]}")x"
done
echo
echo "read/write: fio, 4 KiB blocks, psync, ${secs} s each, in KiB/s; stat: find -ls over $nfiles files, cold dcache."
echo "Ratios are throughput ratios (higher is faster); one run, on $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs."
fusebpfctl stats bench
