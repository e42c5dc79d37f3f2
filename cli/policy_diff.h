/* SPDX-License-Identifier: GPL-2.0 */
/* Comparing policies in the canonical form of conf.h (policy_diff.c). */
#ifndef FUSEBPFCTL_POLICY_DIFF_H
#define FUSEBPFCTL_POLICY_DIFF_H

#include <stdbool.h>

#include "policy.h"

/* Do a and b set the same thing (op and name)? */
bool policy_same_key(const struct policy_change *a, const struct policy_change *b);
/* ... and to the same value? */
bool policy_same_value(const struct policy_change *a, const struct policy_change *b);
/* Is this canonical change's setting managed for a filter with these maps? */
bool policy_managed(const struct policy_change *c, unsigned int maps, bool policies);
/*
 * The changes that turn the canonical policy cur into want, for a filter with
 * maps (policies: whether POL_POLICIES is managed): scalars first, then
 * removals, then additions. *out is malloc'd; the count or -ENOMEM.
 */
int policy_diff(const struct policy_change *want, int nwant, const struct policy_change *cur,
		int ncur, unsigned int maps, bool policies, struct policy_change **out);

#endif
