#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo (runs in the guest as root): the user's day from ARCHITECTURE.md,
# with fusebpfctl, as a readable transcript. Everything lives under /tmp/demo
# and the pins under /sys/fs/bpf/fusebpf; all is removed at the end.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
export PATH=$here/build:$PATH
D=/tmp/demo

say() { printf '\n\033[1m$ %s\033[0m\n' "$*"; eval "$*"; }
note() { printf '\n\033[36m# %s\033[0m\n' "$*"; }
cleanup() {
	for m in $D/mnt $D/ro $D/shown; do fusebpfctl detach "$m" >/dev/null 2>&1; done
	for f in private ro shown; do fusebpfctl unload --force "$f" >/dev/null 2>&1; done
	rm -rf $D
}
trap cleanup EXIT

command -v fusebpfctl >/dev/null || { echo "demo: build/fusebpfctl is missing: make cli" >&2; exit 1; }
mkdir -p $D/data/docs $D/data/src $D/mnt $D/ro $D/shown
echo "quarterly numbers" > $D/data/report.txt
echo "the password is swordfish" > $D/data/secret.txt
echo "export EDITOR=vi" > $D/data/.profile
echo "how to build" > $D/data/docs/README
echo "int main(void) { return 0; }" > $D/data/src/main.c
chmod 755 $D/data/src/main.c

echo "fusebpf demo: filtered views of $D/data with fusebpfctl ($(uname -r))"
say "fusebpfctl version"
note "The backing tree, as it is on disk:"
say "ls -la $D/data"

if [ "$(cat /sys/fs/fuse/features/fuse_bpf 2>/dev/null)" != supported ]; then
	note "This kernel has no fuse-bpf BPF side: attach serves in user space, without filters."
	say "fusebpfctl attach $D/mnt $D/data"
	say "ls -la $D/mnt"
	say "fusebpfctl list"
	say "fusebpfctl detach $D/mnt"
	exit 0
fi

note "Load the hide filter as 'private': hide secret.txt and every dotfile."
say "fusebpfctl load hide --name private --hide secret.txt --hide-dotfiles"
note "Mount the filtered view and serve it; attach returns when the mount is ready."
say "fusebpfctl attach $D/mnt $D/data --filter private"
say "ls -la $D/mnt"
say "cat $D/mnt/secret.txt"
note "The file is still there on the backing filesystem:"
say "ls $D/data/secret.txt"
note "Policy lives in BPF maps: change it while mounted, no reload, no remount."
say "fusebpfctl hide private add --suffix .c"
say "ls $D/mnt/src"
say "fusebpfctl policy private"
note "Per-operation statistics of the filter, summed over CPUs:"
say "fusebpfctl stats private"
note "With -i, rates per second while something works on the mount:"
say "fusebpfctl stats private -i 1 2 &"
say "for i in 1 2; do ls -R $D/mnt >/dev/null; cat $D/mnt/report.txt >/dev/null; sleep 1; done; wait"
note "Every read command speaks JSON with -j (shapes in the man page):"
say "fusebpfctl -j stats private | cut -c1-220"

note "Refuse writes: denywrite as 'ro' on the tree, but keep 'private' on docs/."
say "fusebpfctl load denywrite --name ro"
say "fusebpfctl attach $D/ro $D/data --filter ro --at docs=private"
say "echo more >> $D/ro/report.txt"
say "rm $D/ro/src/main.c"
say "fusebpfctl deny ro errno EACCES"
say "touch $D/ro/src/new.c"
say "cat $D/ro/report.txt"

note "Rewrite attributes: everything read-only and owned by uid 1000, in the view only."
say "fusebpfctl load attrs --name shown --mode -0222 --uid 1000"
say "fusebpfctl attach $D/shown $D/data --filter shown"
say "stat -c '%A %u %n' $D/shown/report.txt $D/shown/src/main.c"
say "stat -c '%A %u %n' $D/data/report.txt $D/data/src/main.c"

note "Who was refused what: each refusal is an audit event (rate-limited in BPF)."
say "fusebpfctl events ro"
note "Per-user policy: uid 1000 may write through 'ro', nobody (65534) still may not."
say "chmod 666 $D/data/report.txt"
say "fusebpfctl deny ro except-uid add 1000"
say "setpriv --reuid 1000 --regid 1000 --clear-groups sh -c 'echo from 1000 >> $D/ro/report.txt'"
say "setpriv --reuid 65534 --regid 65534 --clear-groups sh -c 'echo from nobody >> $D/ro/report.txt'"
say "cat $D/data/report.txt"
note "The refusal, as JSON (one object per line; 'fusebpfctl events -f' follows them):"
say "fusebpfctl -j events ro"

note "The same policy, declared in a file, as /etc/fusebpf/filters.d/*.conf are at boot: apply changes what differs."
cat >$D/ro.conf <<'EOF'
[ro]
filter = denywrite
deny-errno = EACCES
except-uid = 1000
events-rate = 10
EOF
say "cat $D/ro.conf"
say "fusebpfctl apply $D/ro.conf"
say "fusebpfctl apply $D/ro.conf"

note "Where the time goes: per-op latency histograms, as bcc's fsdist prints them."
note "Timing an op takes a second BPF run (the postfilter), so only 'stats' times by default; switch it on, live:"
say "fusebpfctl policy private postfilter on"
say "ls -lR $D/mnt >/dev/null; cat $D/mnt/report.txt >/dev/null"
say "fusebpfctl stats private --hist getattr"
note "Their counts add up to the POST column of the stats:"
say "fusebpfctl stats private | grep -E '^(OP|getattr) '"
clock=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)
case $clock in
*jiffies) note "(The guest's clock is $clock, in 4 ms steps (TCG): most times read 0, the rest 4 ms.)" ;;
esac

say "fusebpfctl list"
say "fusebpfctl stats ro"
say "fusebpfctl detach $D/mnt"
say "fusebpfctl detach $D/ro"
say "fusebpfctl detach $D/shown"
say "fusebpfctl unload private && fusebpfctl unload ro && fusebpfctl unload shown"
say "fusebpfctl list"
