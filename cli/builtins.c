// SPDX-License-Identifier: GPL-2.0
/*
 * The built-in filters, drawn from cli/builtins.def: their skeletons are
 * always embedded (make cli depends on them), so what a built-in loads never
 * depends on files found at run time.
 */
#include <stdio.h>
#include <string.h>

#include "builtins.h"
#include "fusebpf_maps.h"
/* #include "<name>.skel.h" for each BUILTIN (made by the Makefile from builtins.def). */
#include "builtin_skels.h"

const struct policy_map policy_maps[CONF_NMAPS] = {
	{ FUSEBPF_MAP_HIDE_NAMES, CONF_HIDE, FUSEBPF_POLICY_HIDE, "hide policy" },
	{ FUSEBPF_MAP_ATTR_RULES, CONF_ATTRS, FUSEBPF_POLICY_ATTRS, "attrs policy" },
	{ FUSEBPF_MAP_DENY_ALLOW, CONF_DENY, FUSEBPF_POLICY_DENYWRITE, "denywrite policy" },
	{ FUSEBPF_MAP_CONFIG, CONF_CONFIG, 0, "config map" },
	{ FUSEBPF_MAP_EXCEPT, CONF_EXCEPT, 0, "exceptions (no map " FUSEBPF_MAP_EXCEPT ")" },
	{ FUSEBPF_MAP_EVENTS, CONF_EVENTS, 0, "audit events (no map " FUSEBPF_MAP_EVENTS ")" },
};

const struct builtin_filter builtin_filters[] = {
#define BUILTIN(n, pol, m, sum) \
	{ .name = #n, .elf = n##_bpf__elf_bytes, .policies = (pol), .maps = (m), .summary = (sum) },
#include "builtins.def"
#undef BUILTIN
};
const size_t builtin_nfilters = sizeof(builtin_filters) / sizeof(builtin_filters[0]);

unsigned int policy_map_bit(const char *map)
{
	for (int i = 0; i < CONF_NMAPS; i++)
		if (!strcmp(policy_maps[i].map, map))
			return policy_maps[i].bit;
	return 0;
}

const struct builtin_filter *builtin_find(const char *name)
{
	for (size_t i = 0; i < builtin_nfilters; i++)
		if (!strcmp(builtin_filters[i].name, name))
			return &builtin_filters[i];
	return NULL;
}

bool is_builtin(const char *name)
{
	return builtin_find(name) != NULL;
}

const char *builtin_names(const char *sep)
{
	static char buf[256];
	size_t len = 0;

	buf[0] = 0;
	for (size_t i = 0; i < builtin_nfilters && len < sizeof(buf); i++)
		len += snprintf(buf + len, sizeof(buf) - len, "%s%s", i ? sep : "",
				builtin_filters[i].name);
	return buf;
}

uint32_t builtin_policies(const char *kind)
{
	const struct builtin_filter *b = builtin_find(kind);

	return b ? b->policies : 0;
}

bool builtin_postfilter(const char *kind)
{
	return !builtin_policies(kind);
}

unsigned int builtin_maps(const char *kind)
{
	const struct builtin_filter *b = builtin_find(kind);

	return b ? b->maps : 0;
}
