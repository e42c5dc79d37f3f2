// SPDX-License-Identifier: GPL-2.0
/* Errors, option parsing, paths, locks and kernel feature checks. */
#define _GNU_SOURCE
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/magic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "fusebpf_loader.h"
#include "fusebpfctl.h"
#include "json.h"
#include "test_seams.h"

struct cli_opts opts = {
	.pin_dir = DEFAULT_PIN_DIR,
	.state_dir = DEFAULT_STATE_DIR,
	.cmd = "",
};

int fail(int err, const char *fmt, ...)
{
	char what[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (err)
		fprintf(stderr, "fusebpfctl: %s: %s\n", what, strerror(err));
	else
		fprintf(stderr, "fusebpfctl: %s\n", what);
	if (opts.json) {
		json_object *o = json_error(opts.cmd, what, err);

		json_print(o);
		json_object_put(o);
	}
	return EXIT_FAIL;
}

int usage_error(const char *fmt, ...)
{
	char what[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	fprintf(stderr, "fusebpfctl: %s%s%s\n", opts.cmd && *opts.cmd ? opts.cmd : "",
		opts.cmd && *opts.cmd ? ": " : "", what);
	if (opts.cmd && *opts.cmd)
		fprintf(stderr, "Try 'fusebpfctl %s --help'.\n", opts.cmd);
	else
		fprintf(stderr, "Try 'fusebpfctl help'.\n");
	if (opts.json) {
		json_object *o = json_error(opts.cmd, what, EINVAL);

		json_object_object_add(json_object_object_get(o, "error"), "usage",
				       json_object_new_boolean(1));
		json_print(o);
		json_object_put(o);
	}
	return EXIT_USAGE;
}

void note(const char *fmt, ...)
{
	va_list ap;

	fputs("fusebpfctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void debug(const char *fmt, ...)
{
	va_list ap;

	if (!opts.verbose)
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG && opts.verbose < 2)
		return 0;
	if (!opts.verbose)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

void cli_setup_libbpf_log(void)
{
	libbpf_set_print(libbpf_print);
}

void *array_add(void *arr, int *n, size_t size)
{
	void **pv = arr;
	char *v = realloc(*pv, (*n + 1) * size);

	if (!v)
		return NULL;
	*pv = v;
	v += (*n)++ * size;
	memset(v, 0, size);
	return v;
}

int parse_cmd_opts(int argc, char **argv, const char *shortopts, const struct option *longopts,
		   int (*handle)(int c, const char *arg, void *ctx), void *ctx, void (*help)(FILE *))
{
	struct option all[32];
	char shorts[64];
	size_t n = 0;
	int c;

	for (; longopts && longopts[n].name && n < 27; n++)
		all[n] = longopts[n];
	all[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	/* The global output options are accepted after the command too. */
	all[n++] = (struct option){ "json", no_argument, NULL, 'j' };
	all[n++] = (struct option){ "pretty", no_argument, NULL, 'p' };
	all[n++] = (struct option){ "verbose", no_argument, NULL, 'v' };
	all[n] = (struct option){ 0 };
	snprintf(shorts, sizeof(shorts), ":hjpv%s", shortopts ? shortopts : "");
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, all, NULL)) != -1) {
		if (c == 'h') {
			help(stdout);
			return PARSE_HELP;
		}
		if (c == 'j' || c == 'p') {
			opts.json = true;
			opts.pretty |= c == 'p';
			continue;
		}
		if (c == 'v') {
			opts.verbose++;
			continue;
		}
		if (c == '?') {
			if (optopt)
				usage_error("unknown option '-%c'", optopt);
			else
				usage_error("unknown option '%s'", argv[optind - 1]);
			return PARSE_USAGE;
		}
		if (c == ':') {
			usage_error("option '%s' needs a value", argv[optind - 1]);
			return PARSE_USAGE;
		}
		if (handle(c, optarg, ctx))
			return PARSE_USAGE;
	}
	return optind;
}

int mkdir_p(const char *path, unsigned int mode)
{
	char buf[4096];
	size_t len = strlen(path);

	if (len >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, len + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(buf, mode) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, mode) && errno != EEXIST)
		return -errno;
	return 0;
}

void filter_pin_dir(const char *name, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s/%s", opts.pin_dir, name);
}

static bool is_bpffs(const char *path)
{
	struct statfs sf;

	return statfs(path, &sf) == 0 && sf.f_type == BPF_FS_MAGIC;
}

int ensure_pin_dir(void)
{
	char parent[4096], *slash;
	int err;

	if (is_bpffs(opts.pin_dir))
		return 0;
	/* The pin directory's parent must be a bpffs; mount the usual one if missing. */
	snprintf(parent, sizeof(parent), "%s", opts.pin_dir);
	slash = strrchr(parent, '/');
	if (slash && slash != parent)
		*slash = 0;
	if (!is_bpffs(parent)) {
		if (strcmp(parent, "/sys/fs/bpf")) {
			fail(0, "pin directory %s: its parent is not a bpffs (mount one first)",
			     opts.pin_dir);
			return -ENOTDIR;
		}
		debug("mounting bpffs on /sys/fs/bpf");
		if (mount("bpf", "/sys/fs/bpf", "bpf", 0, "mode=0700")) {
			err = errno;
			fail(err, "mount bpffs on /sys/fs/bpf");
			return -err;
		}
	}
	err = mkdir_p(opts.pin_dir, 0700);
	if (err) {
		fail(-err, "create %s", opts.pin_dir);
		return err;
	}
	return 0;
}

int state_lock(void)
{
	char path[4096];
	int fd, err;

	err = mkdir_p(opts.state_dir, 0755);
	if (err)
		return err;
	snprintf(path, sizeof(path), "%s/lock", opts.state_dir);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX)) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

void state_unlock(int fd)
{
	if (fd >= 0)
		close(fd);
}

#define SYSFS_FEATURE "/sys/fs/fuse/features/fuse_bpf"

ssize_t read_small(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, cap - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n >= 0)
		buf[n] = 0;
	return n;
}

bool fuse_bpf_supported(void)
{
	char buf[64];

	if (test_seam_no_fuse_bpf())
		return false;
	if (read_small(SYSFS_FEATURE, buf, sizeof(buf)) < 0)
		return false;
	buf[strcspn(buf, "\n")] = 0;
	return strcmp(buf, "supported") == 0;
}

bool valid_filter_name(const char *name)
{
	size_t len = strlen(name);

	if (!len || len > 64 || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return false;
	for (const char *p = name; *p; p++)
		if (!(*p >= 'a' && *p <= 'z') && !(*p >= 'A' && *p <= 'Z') &&
		    !(*p >= '0' && *p <= '9') && *p != '_' && *p != '-' && *p != '.')
			return false;
	return true;
}
