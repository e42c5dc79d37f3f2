/* SPDX-License-Identifier: GPL-2.0 */
#ifndef FUSEBPFCTL_APPLY_H
#define FUSEBPFCTL_APPLY_H

#include <stdbool.h>

#include "conf.h"

/*
 * A filter object a configuration names (kind "file"): it must be a regular
 * file and a BPF object; then its keys are checked against its maps
 * (conf_complete). Errors are counted in c->nerrors.
 */
void apply_check_object(struct conf *c, struct conf_filter *f);

/* The configuration read by default: $FUSEBPF_CONFIG, or FUSEBPF_CONFIG_DIR. */
const char *config_default(void);
/*
 * apply's work, the caller holding the state lock: path NULL is the default
 * (missing: nothing configured). With only, just those filters, and only
 * when they are not loaded yet (the mount helper). quiet: print nothing but
 * errors. 0, or -errno with the error printed.
 */
int apply_config(const char *path, const char *const *only, int nonly, bool dry_run, bool quiet);

#endif
