// SPDX-License-Identifier: GPL-2.0
/* Path rules of the server (no kernel needed). */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "server.h"

int normalize_subdir(const char *in, char *out, size_t cap)
{
	size_t n = 0;
	const char *p = in;

	while (*p == '/')
		p++;
	while (*p) {
		size_t len = strcspn(p, "/");

		if ((len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.'))
			return -EINVAL;
		if (len) {
			if (n + len + 2 > cap)
				return -ENAMETOOLONG;
			if (n)
				out[n++] = '/';
			memcpy(out + n, p, len);
			n += len;
		}
		p += len;
		while (*p == '/')
			p++;
	}
	if (!n)
		return -EINVAL;
	out[n] = 0;
	return 0;
}

int server_classify(const struct server_cfg *cfg, const char *path)
{
	size_t len = strlen(path);

	for (int i = 0; i < cfg->nat; i++)
		if (strcmp(cfg->at[i].path, path) == 0)
			return i;
	for (int i = 0; i < cfg->nat; i++)
		if (!len || (strncmp(cfg->at[i].path, path, len) == 0 && cfg->at[i].path[len] == '/'))
			return -1;
	return cfg->nat;
}
