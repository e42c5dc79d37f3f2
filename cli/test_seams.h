/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Seams for the test suites, and nothing else: each is one environment
 * variable a test sets to make fusebpfctl behave as it would on another
 * machine. Production code asks here, by name, instead of reading the
 * variables itself, so that every such hook is in one place
 * (docs/testing.md, "Test seams").
 */
#ifndef FUSEBPFCTL_TEST_SEAMS_H
#define FUSEBPFCTL_TEST_SEAMS_H

#include <stdbool.h>

/*
 * FUSEBPF_FORCE_NO_FUSE_BPF=1: act as on a kernel without fuse-bpf
 * (tests/guest/cli checks the userspace fallback on the fuse-bpf kernel).
 */
bool test_seam_no_fuse_bpf(void);

#endif
