// SPDX-License-Identifier: GPL-2.0
/* Parsing of policy arguments; no kernel needed. */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fusebpfctl.h"
#include "policy.h"

struct policy_change *policy_vec_add(struct policy_vec *v, enum policy_op op, int val)
{
	struct policy_change *p = array_add(&v->v, &v->n, sizeof(*p));

	if (!p)
		return NULL;
	p->op = op;
	p->val = val;
	return p;
}

int policy_name_key(const char *s, struct fusebpf_name *key)
{
	size_t len = strlen(s);

	memset(key, 0, sizeof(*key));
	if (!len || strchr(s, '/') || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
		return -EINVAL;
	if (len >= FUSEBPF_NAME_MAX)
		return -ENAMETOOLONG;
	memcpy(key->name, s, len);
	return 0;
}

int policy_pattern_kind(const char *s)
{
	if (strcmp(s, "name") == 0)
		return FUSEBPF_PAT_NONE;
	if (strcmp(s, "prefix") == 0)
		return FUSEBPF_PAT_PREFIX;
	if (strcmp(s, "suffix") == 0)
		return FUSEBPF_PAT_SUFFIX;
	if (strcmp(s, "glob") == 0)
		return FUSEBPF_PAT_GLOB;
	return -1;
}

const char *policy_pattern_kind_name(uint32_t kind)
{
	switch (kind) {
	case FUSEBPF_PAT_PREFIX:
		return "prefix";
	case FUSEBPF_PAT_SUFFIX:
		return "suffix";
	case FUSEBPF_PAT_GLOB:
		return "glob";
	default:
		return "name";
	}
}

int policy_pattern(uint32_t kind, const char *s, struct fusebpf_pattern *pat)
{
	size_t len = strlen(s);

	memset(pat, 0, sizeof(*pat));
	if (kind < FUSEBPF_PAT_PREFIX || kind > FUSEBPF_PAT_GLOB || !len || strchr(s, '/'))
		return -EINVAL;
	if (len >= FUSEBPF_PATTERN_MAX)
		return -ENAMETOOLONG;
	pat->kind = kind;
	pat->len = len;
	memcpy(pat->pat, s, len);
	return 0;
}

static int parse_bits(const char *s, size_t len, uint32_t *bits)
{
	uint32_t v = 0;

	if (!len || len > 5)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '7')
			return -EINVAL;
		v = v * 8 + (s[i] - '0');
	}
	if (v > 07777)
		return -EINVAL;
	*bits = v;
	return 0;
}

int policy_parse_mode(const char *spec, uint32_t *set, uint32_t *clear)
{
	const char *p = spec;

	*set = *clear = 0;
	if (!*p)
		return -EINVAL;
	while (*p) {
		size_t len = strcspn(p, ",");
		char op = *p;
		uint32_t bits;

		if (op == '+' || op == '-' || op == '=') {
			p++;
			len--;
		} else {
			op = '=';
		}
		if (parse_bits(p, len, &bits))
			return -EINVAL;
		if (op == '+') {
			*set |= bits;
			*clear &= ~bits;
		} else if (op == '-') {
			*clear |= bits;
			*set &= ~bits;
		} else {
			*set = bits;
			*clear = 07777 & ~bits;
		}
		p += len;
		if (*p == ',') {
			p++;
			if (!*p)
				return -EINVAL;
		}
	}
	return 0;
}

int policy_parse_id(const char *s, bool group, uint32_t *id)
{
	char *end;
	unsigned long v;

	if (!*s)
		return -EINVAL;
	v = strtoul(s, &end, 10);
	if (!*end && *s != '-') {
		if (v > 0xfffffffeUL)
			return -EINVAL;
		*id = v;
		return 0;
	}
	if (group) {
		struct group *g = getgrnam(s);

		if (!g)
			return -EINVAL;
		*id = g->gr_gid;
	} else {
		struct passwd *pw = getpwnam(s);

		if (!pw)
			return -EINVAL;
		*id = pw->pw_uid;
	}
	return 0;
}

int policy_parse_ev_count(const char *s, uint32_t *v)
{
	unsigned long n;
	char *end;

	if (!*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	n = strtoul(s, &end, 10);
	if (*end || errno || n < 1 || n > FUSEBPF_EV_MAX)
		return -EINVAL;
	*v = n;
	return 0;
}

int policy_parse_policies(const char *s, uint32_t *mask)
{
	char buf[128], *tok, *save = NULL;

	*mask = 0;
	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	if (strcmp(buf, "none") == 0)
		return 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (strcmp(tok, "hide") == 0)
			*mask |= FUSEBPF_POLICY_HIDE;
		else if (strcmp(tok, "attrs") == 0)
			*mask |= FUSEBPF_POLICY_ATTRS;
		else if (strcmp(tok, "denywrite") == 0 || strcmp(tok, "deny") == 0)
			*mask |= FUSEBPF_POLICY_DENYWRITE;
		else
			return -EINVAL;
	}
	return *mask ? 0 : -EINVAL;
}

int parse_bool(const char *s)
{
	if (!strcasecmp(s, "on") || !strcasecmp(s, "yes") || !strcmp(s, "1") || !strcasecmp(s, "true"))
		return 1;
	if (!strcasecmp(s, "off") || !strcasecmp(s, "no") || !strcmp(s, "0") || !strcasecmp(s, "false"))
		return 0;
	return -1;
}
