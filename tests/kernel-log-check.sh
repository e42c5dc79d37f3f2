#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/kernel-log-check.sh LOG: print the lines of a guest kernel log that
# make a test run fail; exit 1 when there is any, 0 otherwise.
#
# Most reports start with "WARNING:" or "BUG:", but a report's first line can
# be split by another CPU's output on the console, so each kind of report is
# also matched by its own words. The debug kernel (kernel/fusebpf-debug.config)
# prints the lockdep, atomic-sleep, KASAN, hung-task and list reports.
patterns=(
	# WARN(), BUG(), oopses, panics
	'WARNING:' 'BUG:' 'Oops' 'kernel BUG at' 'general protection fault'
	'Unable to handle kernel' 'Kernel panic'
	# sanitizers and refcounts
	'KASAN' 'UBSAN' 'refcount_t:'
	# lockdep (PROVE_LOCKING, PROVE_RCU); after its first report lockdep
	# turns itself off, so that line also means the rest went unchecked
	'possible circular locking dependency' 'possible recursive locking'
	'inconsistent lock state' 'suspicious RCU usage'
	'possible irq lock inversion dependency' 'bad unlock balance'
	'held lock freed' 'lock held when returning to user space'
	'turning off the locking correctness validator'
	# DEBUG_ATOMIC_SLEEP
	'sleeping function called from invalid context'
	# DETECT_HUNG_TASK
	'INFO: task .* blocked' 'blocked for more than [0-9]+ seconds'
	# DEBUG_LIST
	'list_add corruption' 'list_del corruption'
	# generic_shutdown_super(): a super block freed under a live inode
	'Busy inodes after unmount'
)
re=$(IFS='|'; echo "${patterns[*]}")
grep -nE "$re" "$1" && exit 1
exit 0
