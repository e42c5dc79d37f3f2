/* SPDX-License-Identifier: GPL-2.0 */
/* Loading and unloading filters, the caller holding the state lock (load.c). */
#ifndef FUSEBPFCTL_LOAD_H
#define FUSEBPFCTL_LOAD_H

struct policy_change;
/* Load FILTER as name with the changes; config: the file it came from, or NULL.
 * 0, or -errno with the error printed. */
int load_filter(const char *filter, const char *name, const struct policy_change *changes,
		int nchanges, const char *config);
int unload_filter(const char *name);

#endif
