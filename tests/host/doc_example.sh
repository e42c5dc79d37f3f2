#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host test (TAP 13): the minimal and the complete filter in
# docs/filters.md (the C blocks after "<!-- doc-example: NAME -->")
# compile as shown, with the
# project's headers and skel/vmlinux.h, into an object whose .struct_ops
# section holds a fuse_ops map; and a broken copy does not compile (the
# check can fail).
set -u
# DOC: another copy of the page (to see the test fail on a broken one)
cd "$(dirname "$0")/../.."
doc=${DOC:-docs/filters.md}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); echo "not ok $n - $1"; }
check() { if eval "$2"; then ok "$1"; else notok "$1"; sed 's/^/# /' "$3" 2>/dev/null | tail -n 20; fi; }
echo "TAP version 13"
echo "1..6"

extract() {
	awk -v name="$1" '$0 == "<!-- doc-example: " name " -->"{m=1; next}
	     m && /^```c$/{c=1; next}
	     c && /^```$/{exit}
	     c{print}' "$doc"
}

compile() {
	${CLANG:-clang} -O2 -g -target bpf -Wall -Werror -D__TARGET_ARCH_x86 \
		-I/usr/include/"$(${CC:-cc} -dumpmachine)" -Ibpf-progs -Iskel \
		-c "$1" -o "$2"
}

extract minimal >"$tmp/minimal.bpf.c"
check "the doc has the minimal example" 'grep -q "struct fuse_ops" "$tmp/minimal.bpf.c"' /dev/null
check "the minimal example compiles as shown" 'compile "$tmp/minimal.bpf.c" "$tmp/minimal.bpf.o" 2>"$tmp/cc"' "$tmp/cc"
check "its object has a .struct_ops map" \
	'${LLVM_OBJDUMP:-llvm-objdump} -h "$tmp/minimal.bpf.o" 2>"$tmp/od" | grep -q "\.struct_ops"' "$tmp/od"
sed 's/FUSEBPF_MEMBER(hide, lookup)/FUSEBPF_MEMBER(hide, no_such_op)/' "$tmp/minimal.bpf.c" >"$tmp/broken.bpf.c"
check "a copy naming a member fuse_ops lacks does not compile" \
	'! compile "$tmp/broken.bpf.c" "$tmp/broken.bpf.o" 2>/dev/null' /dev/null
extract complete >"$tmp/complete.bpf.c"
check "the doc has the complete example" 'grep -q "FUSEBPF_ALL_MEMBERS" "$tmp/complete.bpf.c"' /dev/null
check "the complete example compiles as shown" 'compile "$tmp/complete.bpf.c" "$tmp/complete.bpf.o" 2>"$tmp/cc2"' "$tmp/cc2"
