/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The built-in filters (cli/builtins.def) and the policy maps a filter can
 * have: everything loading, apply, the config keys and the help know about
 * them comes from here.
 */
#ifndef FUSEBPFCTL_BUILTINS_H
#define FUSEBPFCTL_BUILTINS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The policy maps a filter has (which config keys and policy commands it takes). */
enum {
	CONF_HIDE = 1 << 0,	/* hide_names, hide_patterns */
	CONF_ATTRS = 1 << 1,	/* attr_rules */
	CONF_DENY = 1 << 2,	/* deny_allow */
	CONF_CONFIG = 1 << 3,	/* fusebpf_config */
	CONF_EXCEPT = 1 << 4,	/* fusebpf_except */
	CONF_EVENTS = 1 << 5,	/* fusebpf_events (its settings are in fusebpf_config) */
	CONF_NMAPS = 6,
};

struct policy_map {
	const char *map;	/* its pin name (bpf-progs/fusebpf_maps.h) */
	unsigned int bit;	/* CONF_* */
	uint32_t policy;	/* the FUSEBPF_POLICY_* it holds, 0 for none */
	const char *what;	/* "hide policy", for "filter 'x' has no ..." */
};
/* Indexed by the bit's position: policy_maps[i].bit == 1 << i. */
extern const struct policy_map policy_maps[CONF_NMAPS];
/* The CONF_* bit of a map name; 0 when it is no policy map. */
unsigned int policy_map_bit(const char *map);

struct builtin_filter {
	const char *name;
	const void *(*elf)(size_t *size);	/* the embedded object (its skeleton) */
	uint32_t policies;	/* FUSEBPF_POLICY_* its config runs after load */
	unsigned int maps;	/* CONF_* */
	const char *summary;
};
extern const struct builtin_filter builtin_filters[];
extern const size_t builtin_nfilters;

/* The built-in named name, or NULL. */
const struct builtin_filter *builtin_find(const char *name);
bool is_builtin(const char *name);
/* The built-ins' names joined by sep ("hide, attrs, ..."), for messages and help. */
const char *builtin_names(const char *sep);

/* The policies a filter of this kind runs after load (FUSEBPF_POLICY_*; 0 for stats, files). */
uint32_t builtin_policies(const char *kind);
/*
 * Whether a filter of this kind runs its latency postfilter after load: yes
 * for stats (latency is what it is for) and filter files (as they were
 * built), no for the policy filters, which then cost one BPF run per op.
 */
bool builtin_postfilter(const char *kind);
/* The policy maps of a built-in (CONF_*); 0 for "file". */
unsigned int builtin_maps(const char *kind);

#endif
