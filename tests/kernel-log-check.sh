#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/kernel-log-check.sh LOG: print the lines of a guest kernel log that
# make a test run fail (WARNING, BUG, Oops, KASAN/UBSAN reports, panics,
# refcount and hung-task reports); exit 1 when there is any, 0 otherwise.
grep -nE 'WARNING:|BUG:|Oops|KASAN|UBSAN|general protection fault|Kernel panic|refcount_t:|INFO: task .* blocked|kernel BUG at|Unable to handle kernel' "$1" && exit 1
exit 0
