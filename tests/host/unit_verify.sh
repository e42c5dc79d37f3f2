#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host test of fusebpf.service as `make install` puts it in build/tests/stage
# (TAP 13): systemd-analyze verify finds nothing to say about it (its
# ExecStart pointed at the staged binary, its man pages found through
# MANPATH), it is ordered as fstab mounts need, and a broken copy does make
# verify complain (the check can fail).
set -u
cd "$(dirname "$0")/../.."
stage=build/tests/stage
unit=$stage/usr/local/lib/systemd/system/fusebpf.service
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); echo "not ok $n - $1"; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
check() { if eval "$2"; then ok "$1"; else notok "$1"; sed 's/^/# /' "$3" 2>/dev/null | tail -n 20; fi; }
echo "TAP version 13"
echo "1..4"

verify() {
	# verify checks that ExecStart= is executable and that man: pages exist
	MANPATH=$PWD/$stage/usr/local/share/man systemd-analyze verify "$1" >"$2" 2>&1 && [ ! -s "$2" ]
}

sed "s|=/usr/local/sbin/|=$PWD/$stage/usr/local/sbin/|" "$unit" >"$tmp/fusebpf.service" 2>"$tmp/sed"
check "make install put the unit in lib/systemd/system" '[ -s "$tmp/fusebpf.service" ]' "$tmp/sed"
grep -E '^(Type|RemainAfterExit|Before|DefaultDependencies|ExecStart|WantedBy)=' "$unit" >"$tmp/keys"
check "oneshot, RemainAfterExit, before local-fs-pre.target, runs apply" \
	'grep -qx "Type=oneshot" "$tmp/keys" && grep -qx "RemainAfterExit=yes" "$tmp/keys" &&
	 grep -q "^Before=local-fs-pre.target local-fs.target" "$tmp/keys" &&
	 grep -qx "DefaultDependencies=no" "$tmp/keys" &&
	 grep -qx "ExecStart=/usr/local/sbin/fusebpfctl apply" "$tmp/keys"' "$tmp/keys"
if ! command -v systemd-analyze >/dev/null; then
	skip "systemd-analyze verify: no complaint" "no systemd-analyze on this host"
	skip "systemd-analyze verify: a broken unit is reported" "no systemd-analyze on this host"
	exit 0
fi
check "systemd-analyze verify: no complaint" 'verify "$tmp/fusebpf.service" "$tmp/verify"' "$tmp/verify"
mkdir "$tmp/bad"
sed 's/^Type=oneshot/Type=oneshoot/' "$tmp/fusebpf.service" >"$tmp/bad/fusebpf.service"
check "systemd-analyze verify: a broken unit is reported" \
	'! verify "$tmp/bad/fusebpf.service" "$tmp/bad/verify" && grep -q oneshoot "$tmp/bad/verify"' "$tmp/bad/verify"
