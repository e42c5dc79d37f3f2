/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The declarative configuration, the *.conf files of /etc/fusebpf/filters.d (the format is
 * in docs/filters.md, "Configuration files"): parsing and checking, no kernel
 * needed (tests/host/cli_conf.c). apply.c makes the loaded filters match it.
 *
 * A filter's policy is kept as the list of changes that would set it up on a
 * fresh filter, in a canonical form: only the "set" operations (POL_POLICIES,
 * POL_POSTFILTER, POL_DOTFILES, POL_HIDE_ERRNO, POL_DENY_ERRNO, POL_EVENTS,
 * POL_EV_RATE, POL_EV_BURST, POL_EV_READDIR, POL_ENFORCE, POL_HIDE_ADD, POL_PATTERN_ADD,
 * POL_ATTR_SET, POL_ALLOW_ADD, POL_EXCEPT_ADD), one per key. An exception is
 * one POL_EXCEPT_ADD per id and policy (mask one FUSEBPF_POLICY_* bit, so
 * that each prints as one policy command); while the file's filter object is
 * not opened yet, mask 0 stands for every policy it can except from. The
 * state read back from a loaded filter has the same form, so that comparing
 * the two gives the changes to make.
 */
#ifndef FUSEBPFCTL_CONF_H
#define FUSEBPFCTL_CONF_H

#include <limits.h>
#include <stdbool.h>

#include "builtins.h"
#include "policy.h"

#ifndef FUSEBPF_CONFIG_DIR
#define FUSEBPF_CONFIG_DIR "/etc/fusebpf/filters.d"
#endif


struct conf_filter {
	char name[NAME_LEN];
	char filter[PATH_MAX];	/* a built-in's name, or an object's absolute path */
	char kind[32];		/* the built-in's name, or "file" */
	char file[PATH_MAX];	/* the file and line of its [section] */
	int line;
	unsigned int needs;	/* CONF_* maps its keys need */
	int need_line[CONF_NMAPS];	/* the first line that needed each */
	bool policies_given;
	struct policy_change *set;	/* the policy, canonical (see above) */
	int nset;
};

struct conf {
	struct conf_filter *f;
	int n;
	char path[PATH_MAX];	/* the file or directory read */
	bool is_dir;
	int nfiles;
	int nerrors;
	char first_error[1024];	/* "FILE:LINE: what" */
	bool quiet;		/* do not print errors (host tests) */
};

/*
 * Read a file, or the *.conf files of a directory in name order, into c
 * (which the caller zeroed). Every error is printed as
 * "fusebpfctl: FILE:LINE: what" and counted in c->nerrors. 0, or -errno when
 * the path itself cannot be read (errors in its contents only count).
 */
int conf_read(const char *path, struct conf *c);
/* Report an error at FILE:LINE (line 0: FILE alone) and count it in c->nerrors. */
void conf_error(struct conf *c, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Parse one file's text (file names it in errors). */
void conf_parse(struct conf *c, const char *file, const char *text);
/*
 * Check c->f[i]'s keys against the maps its object has and add the default
 * of every policy setting the file leaves out, so that the policy is whole.
 * Errors are counted in c->nerrors.
 */
void conf_complete(struct conf *c, struct conf_filter *f, unsigned int maps);
/* The filter named name, or NULL. */
struct conf_filter *conf_find(struct conf *c, const char *name);
void conf_free(struct conf *c);

#endif
