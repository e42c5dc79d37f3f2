// SPDX-License-Identifier: GPL-2.0
/* Seams for the test suites (test_seams.h). */
#include <stdlib.h>

#include "test_seams.h"

bool test_seam_no_fuse_bpf(void)
{
	const char *force = getenv("FUSEBPF_FORCE_NO_FUSE_BPF");

	return force && *force == '1';
}
