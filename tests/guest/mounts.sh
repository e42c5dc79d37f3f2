#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Views set up the system's way, as an administrator does it, from
# the tree `make install` put in build/tests/stage (DESTDIR, PREFIX=/usr/local):
# mount(8) and an fstab line through /sbin/mount.fusebpf, umount, findmnt, the
# configuration in /etc/fusebpf/filters.d and `fusebpfctl apply`. The guest's
# root is the host's, read-only: the installed files are merged over /usr/sbin
# (= /sbin), /usr/local and /etc with bind mounts of tmpfs directories that
# hold symlinks to the originals plus the new files, so mount(8) finds its
# helper where it always looks. The default pin and state directories are used
# (no FUSEBPF_* overrides): each case unloads what it loaded.
#
# TAP 13; each case a function run in a subshell, its output shown only when
# it fails. build/tests/guest/mounts NAME runs the cases whose names contain NAME.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
stage=$top/build/tests/stage
work=/tmp/mounts-suite
conf=/etc/fusebpf/filters.d
unset FUSEBPF_PIN_DIR FUSEBPF_STATE_DIR FUSEBPF_CONFIG FUSEBPF_BPF_DIR
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# --- merging the installed tree over the read-only root -------------------------

# merge ORIG SRC NEW: NEW gets a symlink to each entry of ORIG, a copy of
# each entry of SRC, and for a directory in both, a directory merged the same way.
merge() {
	local orig=$1 src=$2 new=$3 e name links=()
	mkdir -p "$new"
	for e in "$orig"/* "$orig"/.[!.]*; do
		[ -e "$e" ] || [ -L "$e" ] || continue
		name=${e##*/}
		if [ -d "$src/$name" ] && [ ! -L "$src/$name" ] && [ -d "$e" ] && [ ! -L "$e" ]; then
			merge "$e" "$src/$name" "$new/$name"
		elif [ ! -e "$src/$name" ] && [ ! -L "$src/$name" ]; then
			links+=("$e")
		fi
	done
	# one ln for all: a process per entry costs seconds under TCG
	[ ${#links[@]} = 0 ] || ln -s -t "$new" -- "${links[@]}"
	for e in "$src"/*; do
		[ -e "$e" ] || [ -L "$e" ] || continue
		name=${e##*/}
		[ -e "$new/$name" ] || [ -L "$new/$name" ] || cp -a "$e" "$new/$name"
	done
}

# cover DIR SRC: DIR shows its own entries and SRC's (until uncover).
covered=()
cover() {
	local dir=$1 src=$2 w
	w=$work/cover/$(echo "$dir" | tr / _)
	mkdir -p "$w/orig" "$w/new" || return 1
	mount --bind "$dir" "$w/orig" || return 1
	merge "$w/orig" "$src" "$w/new" || return 1
	mount --bind "$w/new" "$dir" || return 1
	covered+=("$dir")
}

uncover() {
	local i d
	for ((i = ${#covered[@]} - 1; i >= 0; i--)); do
		umount -l "${covered[i]}" 2>/dev/null
		umount -l "$work/cover/$(echo "${covered[i]}" | tr / _)/orig" 2>/dev/null
	done
	covered=()
	# A cover made in a subshell is not in covered[]: none of these is a
	# mount point in the guest otherwise, and the suites after this one
	# need the real /sbin (mkfs.ext4).
	for d in "$(readlink -f /sbin)" /usr/local /etc; do
		while mountpoint -q "$d"; do umount -l "$d" || break; done
	done
}

install_tree() {
	[ -x "$stage/usr/local/sbin/fusebpfctl" ] || { echo "no $stage (make tests installs it)"; return 1; }
	mkdir -p "$work"
	mount -t tmpfs tmpfs "$work" || return 1
	# /sbin is /usr/sbin on Debian (merged /usr); mount(8) looks in /sbin.
	local sbin
	sbin=$(readlink -f /sbin)
	cover "$sbin" "$stage/sbin" && cover /usr/local "$stage/usr/local" && cover /etc "$stage/etc"
}

# --- helpers -----------------------------------------------------------------------

fail() {
	echo "FAILED: $*"
	return 1
}

# Run a command, showing it, its output and its status; the status is kept.
t() {
	local rc
	echo "\$ $*"
	"$@" >"$work/out" 2>&1
	rc=$?
	cat "$work/out"
	echo "-> $rc"
	return $rc
}

out_has() {
	grep -qF -- "$1" "$work/out" || fail "output lacks '$1'"
}

mounted() {
	findmnt -n "$1" >/dev/null
}

# The mount's server pid, from fusebpfctl's record (/run/fusebpf/mounts/*.json).
server_pid() {
	local rec
	rec=$(grep -l "\"mountpoint\": *\"$1\"" /run/fusebpf/mounts/*.json) &&
		sed -n 's/^ *"pid": *\([0-9]*\).*/\1/p' "$rec"
}

# The loaded filters: the pin directory's entries.
filters() {
	ls /sys/fs/bpf/fusebpf 2>/dev/null
}

# Wait (up to 5 s) for a pid to be gone.
gone() {
	local i
	for ((i = 0; i < 50; i++)); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.1
	done
	return 1
}

# A backing tree and two mountpoints.
make_tree() {
	d=$work/$1
	back=$d/back mnt=$d/mnt mnt2=$d/mnt2
	mkdir -p "$back/docs" "$mnt" "$mnt2"
	echo hello >"$back/a.txt"
	echo secret >"$back/secret.txt"
	echo old >"$back/a.bak"
	echo doc >"$back/docs/readme"
	echo draft >"$back/docs/draft.md"
	echo dot >"$back/.profile"
}

write_private_conf() {
	mkdir -p "$conf"
	cat >"$conf/10-private.conf" <<-'EOF'
	# the view a service account gets
	[private]
	filter = hide
	hide = secret.txt
	hide-suffix = .bak
	EOF
}

cleanup() {
	local m n
	for m in $(findmnt -rn -o TARGET | grep "^$work/" | sort -r); do
		umount "$m" 2>/dev/null || umount -l "$m"
	done
	for n in $(filters); do
		fusebpfctl unload --force "$n" >/dev/null
	done
	rm -rf "${conf:?}"/* "$work"/case-* /run/fusebpf/mounts/*
}

# A snapshot of what is loaded: filters, mounts, policies.
snapshot() {
	local n
	fusebpfctl -j list
	for n in $(filters); do
		fusebpfctl -j policy "$n"
	done
}

# --- cases ---------------------------------------------------------------------------

# make install put the helper where mount(8) looks, the unit, the man pages.
t_installed() {
	t test -L /sbin/mount.fusebpf || return 1
	[ "$(readlink /sbin/mount.fusebpf)" = /usr/local/sbin/fusebpfctl ] || fail "mount.fusebpf -> $(readlink /sbin/mount.fusebpf)" || return 1
	[ "$(readlink /sbin/mount.fuse.fusebpf)" = /usr/local/sbin/fusebpfctl ] || fail "no mount.fuse.fusebpf" || return 1
	t test -f /usr/local/lib/systemd/system/fusebpf.service || return 1
	grep -q '^ExecStart=/usr/local/sbin/fusebpfctl apply$' /usr/local/lib/systemd/system/fusebpf.service || fail "ExecStart" || return 1
	t test -d /etc/fusebpf/filters.d || return 1
	t test -f /usr/local/share/man/man8/mount.fusebpf.8 || return 1
	t /sbin/mount.fusebpf -h && out_has "filter=NAME" || return 1
	t fusebpfctl apply --help && out_has "--dry-run" || return 1
	# Not root: mount(8)'s "incorrect invocation or permissions".
	t setpriv --reuid 65534 --regid 65534 --clear-groups /sbin/mount.fusebpf /tmp /mnt
	[ $? = 1 ] && out_has "only root" || return 1
}

# The user's day: a filter in filters.d, an fstab line, mount -a, umount.
t_fstab_mount_a() {
	local pid fstab=$work/case-fstab
	make_tree case-a
	write_private_conf
	cat >"$fstab" <<-EOF
	# the view, and a read-only one mounted on demand
	$back  $mnt   fusebpf  filter=private,nofail,_netdev,x-systemd.requires=fusebpf.service  0 0
	$back  $mnt2  fusebpf  noauto,ro,filter=private  0 0
	EOF
	t mount -a -T "$fstab" || return 1
	mounted "$mnt" || fail "$mnt not mounted" || return 1
	mounted "$mnt2" && fail "noauto line mounted" && return 1
	# findmnt: the backing directory as the source, fuse.fusebpf as the type
	t findmnt -n -o SOURCE,FSTYPE,OPTIONS "$mnt" || return 1
	[ "$(findmnt -n -o SOURCE "$mnt")" = "$back" ] || fail "source" || return 1
	[ "$(findmnt -n -o FSTYPE "$mnt")" = fuse.fusebpf ] || fail "fstype" || return 1
	findmnt -n -o OPTIONS "$mnt" | grep -q 'nosuid,nodev' || fail "nosuid,nodev" || return 1
	# The hidden files are gone, the rest is there.
	t ls -A "$mnt" || return 1
	[ "$(ls -A "$mnt" | tr '\n' ' ')" = ".profile a.txt docs " ] || fail "listing" || return 1
	t cat "$mnt/secret.txt" && fail "secret.txt readable" && return 1
	[ "$(cat "$mnt/a.txt")" = hello ] || fail "a.txt" || return 1
	# The filter came from the configuration, and fusebpfctl knows the mount.
	t fusebpfctl list && out_has private && out_has "$mnt" || return 1
	# mount -a again: already mounted, nothing more.
	t mount -a -T "$fstab" || return 1
	[ "$(findmnt -rn -o TARGET | grep -cx "$mnt")" = 1 ] || fail "mounted twice" || return 1
	# The noauto line by its mountpoint: read-only.
	t mount -T "$fstab" "$mnt2" || return 1
	findmnt -n -o OPTIONS "$mnt2" | grep -q '^ro,' || fail "$mnt2 not ro" || return 1
	t touch "$mnt2/new" && fail "write on a ro view" && return 1
	out_has "Read-only file system" || return 1
	t umount "$mnt2" || return 1
	# umount: the server exits and its record goes.
	pid=$(server_pid "$mnt")
	[ -n "$pid" ] || fail "no server pid" || return 1
	t umount "$mnt" || return 1
	gone "$pid" || fail "server $pid still running" || return 1
	mounted "$mnt" && fail "still mounted" && return 1
	t fusebpfctl -j list || return 1
	out_has '"mounts":[]' || return 1
	grep -q 'fuse' /proc/mounts && fail "a fuse mount is left" && return 1
	return 0
}

# mount -t with options: kernel flags through, at=, the type findmnt shows.
t_mount_options() {
	make_tree case-o
	write_private_conf
	cat >>"$conf/10-private.conf" <<-'EOF'

	[drafts]
	filter = hide
	hide-glob = draft.*
	EOF
	t mount -t fusebpf -o ro,noexec,filter=private,at=docs=drafts "$back" "$mnt" || return 1
	findmnt -n -o OPTIONS "$mnt" | grep -q '^ro,nosuid,nodev,noexec' || fail "flags" || return 1
	t ls "$mnt/docs" || return 1
	[ "$(ls "$mnt/docs")" = readme ] || fail "at=docs=drafts" || return 1
	t mount -o remount,rw "$mnt" || return 1
	t findmnt -n -o OPTIONS "$mnt"
	grep -q '^rw,nosuid,nodev,noexec' "$work/out" || fail "remount rw" || return 1
	# (with at=, the root is fusebpfctl's: writes go below docs/)
	t sh -c "echo x >'$mnt/docs/new.txt'" || return 1
	[ "$(cat "$back/docs/new.txt")" = x ] || fail "write through" || return 1
	t umount "$mnt" || return 1
	# The type findmnt shows works as well; a view is nosuid,nodev (mount(8)
	# does not pass suid and dev, the defaults, to helpers).
	t mount -t fuse.fusebpf -o filter=drafts,dev,suid "$back" "$mnt" || return 1
	t findmnt -n -o FSTYPE,OPTIONS "$mnt"
	grep -q '^fuse.fusebpf *rw,nosuid,nodev,relatime' "$work/out" || fail "flags" || return 1
	t umount "$mnt" || return 1
	# Refusals: exit status, message, nothing mounted.
	t mount -t fusebpf -o filter=private,frob "$back" "$mnt"
	[ $? != 0 ] && out_has "unknown option 'frob'" || return 1
	t mount -t fusebpf -o filter=nope "$back" "$mnt"
	[ $? = 32 ] && out_has "filter 'nope' is neither loaded nor in $conf" || return 1
	t mount -t fusebpf -o filter=private "$back/none" "$mnt"
	[ $? = 32 ] && out_has "No such file" || return 1
	t mount -t fusebpf -o sloppy-unknown,filter=private -s "$back" "$mnt" || return 1
	t umount "$mnt" || return 1
	mounted "$mnt" && fail "left mounted" && return 1
	return 0
}

# apply: loads, says what it did; the second run changes nothing and says so.
t_apply_idempotent() {
	write_private_conf
	cat >"$conf/20-shown.conf" <<-'EOF'
	[shown]
	filter = fusebpf
	policies = hide,attrs,denywrite
	hide-dotfiles = yes
	mode = -0222
	rule = run.sh mode=+0111 uid=0
	allow = scratch.txt
	deny-errno = EACCES
	EOF
	t fusebpfctl apply || return 1
	out_has "load hide --name private" && out_has "hide private add secret.txt" &&
		out_has "attrs shown set run.sh --mode +0111 --uid 0" && out_has "changes made" || return 1
	t fusebpfctl -j policy shown || return 1
	out_has '"policies":["hide","attrs","denywrite"]' && out_has '"hide_dotfiles":true' &&
		out_has '"deny_errno":"EACCES"' && out_has '"allow":["scratch.txt"]' || return 1
	snapshot >"$work/before"
	t fusebpfctl apply || return 1
	out_has "apply: nothing to change (2 filters as configured in $conf)" || return 1
	t fusebpfctl -j apply || return 1
	out_has '"changes":[]' || return 1
	snapshot >"$work/after"
	t diff "$work/before" "$work/after" || return 1
	# A filter loaded by hand stays; one that leaves the files goes.
	t fusebpfctl load stats --name mine || return 1
	t rm "$conf/20-shown.conf" || return 1
	t fusebpfctl apply || return 1
	out_has "unload shown" || return 1
	grep -q mine "$work/out" && fail "unloaded a filter loaded by hand" && return 1
	t fusebpfctl list && out_has mine && out_has private || return 1
	return 0
}

# A filter loaded by hand that the files name is taken over; a kind change
# reloads it, refused while a view uses it.
t_apply_takes_over() {
	make_tree case-k
	write_private_conf
	t fusebpfctl load hide --name private --hide x.txt --hide-dotfiles || return 1
	t fusebpfctl apply || return 1
	grep -q '^load' "$work/out" && fail "loaded again" && return 1
	out_has "hide private dotfiles off" && out_has "hide private del x.txt" &&
		out_has "hide private add secret.txt" || return 1
	t mount -t fusebpf -o filter=private "$back" "$mnt" || return 1
	printf '[private]\nfilter = denywrite\n' >"$conf/10-private.conf"
	t fusebpfctl apply
	[ $? = 1 ] && out_has "filter 'private' is loaded as hide, not denywrite, and attached to 1 mount" || return 1
	t umount "$mnt" || return 1
	t fusebpfctl apply || return 1
	out_has "unload private" && out_has "load denywrite --name private" || return 1
	t fusebpfctl list && out_has denywrite || return 1
	# Now the files' own: gone from them, it is unloaded.
	t rm "$conf/10-private.conf" || return 1
	t fusebpfctl apply || return 1
	out_has "unload private" || return 1
	t fusebpfctl list || return 1
	grep -q private "$work/out" && fail "still loaded" && return 1
	return 0
}

# --dry-run prints the changes and makes none.
t_apply_dry_run() {
	write_private_conf
	t fusebpfctl apply || return 1
	sed -i 's/^hide = secret.txt$/hide = other.txt/' "$conf/10-private.conf"
	echo "hide-dotfiles = on" >>"$conf/10-private.conf"
	snapshot >"$work/before"
	t fusebpfctl apply --dry-run || return 1
	out_has "hide private dotfiles on" && out_has "hide private del secret.txt" &&
		out_has "hide private add other.txt" && out_has "dry run: none made" || return 1
	snapshot >"$work/after"
	t diff "$work/before" "$work/after" || return 1
	t fusebpfctl -j apply -n || return 1
	out_has '"dry_run":true' && out_has '"change":"hide private add other.txt"' || return 1
	t fusebpfctl apply || return 1
	t fusebpfctl -j policy private || return 1
	out_has '"names":["other.txt"]' && out_has '"hide_dotfiles":true' || return 1
	return 0
}

# A bad file: every error with FILE:LINE, and nothing changes, not even the good files.
t_bad_config() {
	make_tree case-b
	write_private_conf
	t fusebpfctl apply || return 1
	echo "hide = more.txt" >>"$conf/10-private.conf"
	cat >"$conf/30-bad.conf" <<-'EOF'
	[ok]
	filter = denywrite
	hide = x
	[broken]
	filter = hide
	hide-errno = ENOTANERRNO
	hide-dotfiles = maybe
	frob = 1
	EOF
	snapshot >"$work/before"
	t fusebpfctl apply
	[ $? = 1 ] || return 1
	out_has "$conf/30-bad.conf:3: filter 'ok' (denywrite) has no hide policy" &&
		out_has "$conf/30-bad.conf:6: bad errno 'ENOTANERRNO'" &&
		out_has "$conf/30-bad.conf:7: hide-dotfiles = yes or no" &&
		out_has "$conf/30-bad.conf:8: unknown key 'frob'" &&
		out_has "4 errors in $conf: nothing changed" || return 1
	t fusebpfctl apply --dry-run
	[ $? = 1 ] || return 1
	snapshot >"$work/after"
	t diff "$work/before" "$work/after" || return 1
	# The mount helper refuses too, and mounts nothing.
	t fusebpfctl unload private || return 1
	t mount -t fusebpf -o filter=private "$back" "$mnt"
	[ $? = 32 ] && out_has "30-bad.conf:8" || return 1
	mounted "$mnt" && fail "mounted with a bad configuration" && return 1
	t fusebpfctl list || return 1
	grep -q private "$work/out" && fail "private loaded" && return 1
	# A file that is not text, a missing path.
	t rm "$conf/30-bad.conf" || return 1
	printf 'a\0b' >"$conf/40-bin.conf"
	t fusebpfctl apply
	[ $? = 1 ] && out_has "40-bin.conf: cannot read: not a text file" || return 1
	t fusebpfctl apply /nonexistent
	[ $? = 1 ] && out_has "read /nonexistent: No such file or directory" || return 1
	return 0
}

# Run a command as a user (real and effective uid and gid, no other groups).
as_uid() {
	local u=$1
	shift
	setpriv --reuid "$u" --regid "$u" --clear-groups "$@"
}

# What uid U can do in the view: "sees reads writes" or "- - -" in their place.
can() {
	local u=$1 r=""
	as_uid "$u" ls -A "$mnt" | grep -qx secret.txt && r+="sees " || r+="- "
	[ "$(as_uid "$u" cat "$mnt/secret.txt" 2>/dev/null)" = secret ] && r+="reads " || r+="- "
	as_uid "$u" sh -c "echo $u >'$mnt/by-$u'" 2>/dev/null && r+="writes" || r+="-"
	rm -f "$back/by-$u"
	echo "$r"
}

# Exceptions and event settings in the file: applied, idempotent, removed live.
t_apply_exceptions() {
	local owner=1000 svc=1001
	make_tree case-e
	chmod 1777 "$back"
	chmod 644 "$back/secret.txt"
	mkdir -p "$conf"
	cat >"$conf/10-svc.conf" <<-EOF
	# the service account sees and changes less than the owner
	[svc]
	filter = fusebpf
	policies = hide,denywrite
	hide = secret.txt
	except-uid = $owner
	hide-except-gid = 2000
	events-rate = 10
	events-readdir = yes
	EOF
	t fusebpfctl apply || return 1
	out_has "hide svc except-uid add $owner" && out_has "deny svc except-uid add $owner" &&
		out_has "hide svc except-gid add 2000" && out_has "policy svc events-rate 10" &&
		out_has "policy svc events-readdir on" || return 1
	grep -q "deny svc except-gid" "$work/out" && fail "gid 2000 excepted from denywrite" && return 1
	t fusebpfctl -j policy svc || return 1
	out_has '"except":[{"kind":"uid","id":1000,"policies":["hide","denywrite"]},{"kind":"gid","id":2000,"policies":["hide"]}]' &&
		out_has '"events":{"enabled":true,"rate":10,"burst":200,"readdir":true}' || return 1
	t mount -t fusebpf -o filter=svc "$back" "$mnt" || return 1
	echo "owner: $(can $owner); service: $(can $svc)"
	[ "$(can $owner)" = "sees reads writes" ] || fail "the owner is not excepted" || return 1
	[ "$(can $svc)" = "- - -" ] || fail "the service account is excepted" || return 1
	# Only the service account's refusals are reported.
	t fusebpfctl events svc || return 1
	out_has "denied create \"by-$svc\" uid=$svc" || return 1
	grep -q "uid=$owner" "$work/out" && fail "events of the excepted owner" && return 1
	# Again: nothing to change, nothing changed.
	snapshot >"$work/before"
	t fusebpfctl apply || return 1
	out_has "apply: nothing to change" || return 1
	snapshot >"$work/after"
	t diff "$work/before" "$work/after" || return 1
	# Bad values: each with its line, and nothing changes.
	cp "$conf/10-svc.conf" "$work/good.conf"
	cat >>"$conf/10-svc.conf" <<-'EOF'
	except-uid = nosuchuser-fusebpf 4294967295
	deny-except-gid = 12x
	events-burst = 0
	EOF
	t fusebpfctl apply
	[ $? = 1 ] && out_has "$conf/10-svc.conf:10: bad uid 'nosuchuser-fusebpf': no such user" &&
		out_has "$conf/10-svc.conf:10: bad uid '4294967295': out of range" &&
		out_has "$conf/10-svc.conf:11: bad gid '12x': no such group" &&
		out_has "$conf/10-svc.conf:12: bad events-burst '0' (1 to 1000000)" &&
		out_has "4 errors in $conf: nothing changed" || return 1
	snapshot >"$work/after"
	t diff "$work/before" "$work/after" || return 1
	# The exception and the rate leave the file: gone live, from the mounted view.
	grep -v -e '^except-uid' -e '^events-rate' "$work/good.conf" >"$conf/10-svc.conf"
	t fusebpfctl apply --dry-run || return 1
	out_has "hide svc except-uid del $owner" && out_has "deny svc except-uid del $owner" &&
		out_has "policy svc events-rate 100" && out_has "3 changes to make (dry run" || return 1
	[ "$(can $owner)" = "sees reads writes" ] || fail "the dry run changed the exceptions" || return 1
	t fusebpfctl apply || return 1
	out_has "3 changes made" || return 1
	grep -q "except-gid" "$work/out" && fail "gid 2000 changed" && return 1
	echo "owner: $(can $owner); service: $(can $svc)"
	[ "$(can $owner)" = "- - -" ] || fail "the owner is still excepted" || return 1
	[ "$(can $svc)" = "- - -" ] || fail "the service account is excepted" || return 1
	t fusebpfctl -j policy svc || return 1
	out_has '"except":[{"kind":"gid","id":2000,"policies":["hide"]}]' &&
		out_has '"events":{"enabled":true,"rate":100,"burst":200,"readdir":true}' || return 1
	t fusebpfctl apply || return 1
	out_has "apply: nothing to change" || return 1
	# Now the owner is refused too, and reported.
	t fusebpfctl events svc || return 1
	out_has "denied create \"by-$owner\" uid=$owner" || return 1
	t umount "$mnt" || return 1
	return 0
}

# --- the runner ------------------------------------------------------------------------

cases=(t_installed t_fstab_mount_a t_mount_options t_apply_idempotent t_apply_takes_over t_apply_dry_run
	t_bad_config t_apply_exceptions)
sel=()
for c in "${cases[@]}"; do
	[ $# = 0 ] || [[ $c == *"$1"* ]] && sel+=("$c")
done

echo "TAP version 13"
echo "# mounts"
echo "1..${#sel[@]}"
start=$(date +%s%N)
if ! setup_log=$(install_tree 2>&1); then
	for i in "${!sel[@]}"; do
		echo "not ok $((i + 1)) ${sel[i]#t_}"
	done
	printf '%s\n' "$setup_log" | sed 's/^/# /'
	uncover
	exit 1
fi
echo "# installed tree merged over the root in $(( ($(date +%s%N) - start) / 1000000 )) ms"
rc=0
for i in "${!sel[@]}"; do
	log=$work/log
	start=$(date +%s%N)
	( set -o pipefail; "${sel[i]}" ) >"$log" 2>&1
	st=$?
	cleanup >>"$log" 2>&1
	echo "# ${sel[i]#t_}: $(( ($(date +%s%N) - start) / 1000000 )) ms"
	if [ $st = 0 ]; then
		echo "ok $((i + 1)) ${sel[i]#t_}"
	else
		echo "not ok $((i + 1)) ${sel[i]#t_}"
		sed 's/^/# /' "$log"
		rc=1
	fi
done
uncover
umount -l "$work" 2>/dev/null
exit $rc
