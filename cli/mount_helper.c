// SPDX-License-Identifier: GPL-2.0
/*
 * mount.fusebpf SOURCE TARGET [-sfnv] [-N NAMESPACE] [-o OPTIONS] [-t TYPE]
 *
 * The mount helper mount(8) runs for "mount -t fusebpf" and fstab lines of
 * type fusebpf (and fuse.fusebpf, the type the mount table shows): fusebpfctl
 * reached through a symlink of that name. The options become attach's
 * arguments (filter=, at=, log=, userspace), mount(2) flags (ro, noexec, ...)
 * or are ignored as mount(8)'s own (noauto, _netdev, nofail, x-*, ...).
 * Filters not loaded yet are loaded from the configuration (apply.c). It
 * returns once the mount answers, the server running in the background;
 * umount(8) stops the server (it sees the connection go).
 *
 * Exit status as mount(8)'s: 0, 1 bad invocation or options, 2 system
 * error, 32 the mount failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "apply.h"
#include "attach.h"
#include "conf.h"
#include "filter.h"
#include "fusebpfctl.h"

enum { MH_OK = 0, MH_USAGE = 1, MH_SYSERR = 2, MH_FAIL = 32 };

#define MH_MAX_ARGS (2 * MAX_AT + 16)

struct helper {
	const char *argv[MH_MAX_ARGS];	/* attach's arguments */
	int argc;
	const char *filters[MAX_AT + 1];	/* the filters named */
	int nfilters;
	const char *config;
	unsigned long set, clear;	/* mount(2) flags */
	bool sloppy, fake, remount;
	char *optbuf;
};

bool is_mount_helper(const char *argv0)
{
	const char *base = strrchr(argv0, '/') ? strrchr(argv0, '/') + 1 : argv0;

	return !strcmp(base, "mount.fusebpf") || !strcmp(base, "mount.fuse.fusebpf");
}

static int mh_error(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int mh_error(int status, const char *fmt, ...)
{
	va_list ap;

	fputs("mount.fusebpf: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return status;
}

static const struct {
	const char *name;
	unsigned long set, clear;
} kernel_opts[] = {
	{ "ro", MS_RDONLY, 0 },
	{ "rw", 0, MS_RDONLY },
	/* A view is always nosuid,nodev (attach's choice; mount(8) does not pass suid, dev). */
	{ "nosuid", MS_NOSUID, 0 },
	{ "suid", 0, 0 },
	{ "nodev", MS_NODEV, 0 },
	{ "dev", 0, 0 },
	{ "noexec", MS_NOEXEC, 0 },
	{ "exec", 0, MS_NOEXEC },
	{ "sync", MS_SYNCHRONOUS, 0 },
	{ "async", 0, MS_SYNCHRONOUS },
	{ "dirsync", MS_DIRSYNC, 0 },
	{ "noatime", MS_NOATIME, 0 },
	{ "atime", 0, MS_NOATIME },
	{ "nodiratime", MS_NODIRATIME, 0 },
	{ "diratime", 0, MS_NODIRATIME },
	{ "relatime", MS_RELATIME, 0 },
	{ "norelatime", 0, MS_RELATIME },
	{ "strictatime", MS_STRICTATIME, 0 },
	{ "nostrictatime", 0, MS_STRICTATIME },
	{ "lazytime", MS_LAZYTIME, 0 },
	{ "nolazytime", 0, MS_LAZYTIME },
	{ "silent", MS_SILENT, 0 },
	{ "loud", 0, MS_SILENT },
};

/* mount(8)'s own options, and libmount's: nothing for the kernel. */
static bool userspace_opt(const char *o)
{
	static const char *const names[] = {
		"defaults", "auto", "noauto", "_netdev", "nofail", "user", "nouser", "users",
		"owner", "group", "nofail", "bind", "rbind", NULL,
	};
	static const char *const prefixes[] = {
		"x-", "X-", "comment=", "loop", "offset=", "sizelimit=", "helper=", "context=",
		"fscontext=", "defcontext=", "rootcontext=", NULL,
	};

	for (int i = 0; names[i]; i++)
		if (!strcmp(o, names[i]))
			return true;
	for (int i = 0; prefixes[i]; i++)
		if (!strncmp(o, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

/*
 * The options the view is always mounted with (fusebpfctl chooses them);
 * mount(8) passes them back from the mount table on remount.
 */
static bool fuse_opt(const char *o)
{
	static const char *const names[] = {
		"user_id=", "group_id=", "allow_other", "default_permissions", "rootmode=", "fd=",
		"root_dir=", "root_bpf=", "max_read=", "blksize=", NULL,
	};

	for (int i = 0; names[i]; i++)
		if (!strncmp(o, names[i], strlen(names[i])))
			return true;
	return false;
}

static int push(struct helper *h, const char *a, const char *b)
{
	if (h->argc + 2 >= MH_MAX_ARGS - 3)
		return mh_error(MH_USAGE, "too many options");
	h->argv[h->argc++] = a;
	if (b)
		h->argv[h->argc++] = b;
	return 0;
}

static int one_opt(struct helper *h, char *o)
{
	char *val = strchr(o, '=');

	for (size_t i = 0; i < sizeof(kernel_opts) / sizeof(kernel_opts[0]); i++)
		if (!strcmp(o, kernel_opts[i].name)) {
			h->set = (h->set & ~kernel_opts[i].clear) | kernel_opts[i].set;
			h->clear = (h->clear & ~kernel_opts[i].set) | kernel_opts[i].clear;
			return 0;
		}
	if (!strcmp(o, "remount")) {
		h->remount = true;
		return 0;
	}
	if (!strcmp(o, "userspace"))
		return push(h, "--userspace", NULL);
	if (userspace_opt(o) || fuse_opt(o))
		return 0;
	if (val && !strncmp(o, "filter=", 7)) {
		if (h->nfilters == MAX_AT + 1)
			return mh_error(MH_USAGE, "too many filters");
		h->filters[h->nfilters++] = val + 1;
		return push(h, "--filter", val + 1);
	}
	if (val && !strncmp(o, "at=", 3)) {
		char *eq = strrchr(val + 1, '=');

		if (!eq || eq == val + 1 || !eq[1])
			return mh_error(MH_USAGE, "at=SUBDIR=NAME, not '%s'", o);
		if (h->nfilters == MAX_AT + 1)
			return mh_error(MH_USAGE, "at most %d at= options", MAX_AT);
		h->filters[h->nfilters++] = eq + 1;
		return push(h, "--at", val + 1);
	}
	if (val && !strncmp(o, "log=", 4))
		return push(h, "--log", val + 1);
	if (val && !strncmp(o, "config=", 7)) {
		h->config = val + 1;
		return 0;
	}
	if (h->sloppy)
		return 0;
	return mh_error(MH_USAGE, "unknown option '%s' (filter=NAME, at=SUBDIR=NAME, log=FILE, "
			"config=PATH, userspace, and the kernel's ro, noexec, ...)", o);
}

static int parse_options(struct helper *h, const char *optstr)
{
	char *save = NULL, *o;
	int err;

	free(h->optbuf);
	h->optbuf = strdup(optstr);
	if (!h->optbuf)
		return mh_error(MH_SYSERR, "out of memory");
	for (o = strtok_r(h->optbuf, ",", &save); o; o = strtok_r(NULL, ",", &save)) {
		err = one_opt(h, o);
		if (err)
			return err;
	}
	return 0;
}

static int enter_namespace(const char *ns)
{
	char path[64];
	char *end;
	int fd;

	strtol(ns, &end, 10);
	if (!*end && *ns)
		snprintf(path, sizeof(path), "/proc/%s/ns/mnt", ns);
	fd = open(!*end && *ns ? path : ns, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return mh_error(MH_USAGE, "namespace %s: %s", ns, strerror(errno));
	if (setns(fd, CLONE_NEWNS)) {
		close(fd);
		return mh_error(MH_FAIL, "enter namespace %s: %s", ns, strerror(errno));
	}
	close(fd);
	return 0;
}

/* -o remount: only the mount's flags (the view and its filters stay). */
static int remount(struct helper *h, const char *target)
{
	unsigned long flags = (MS_NOSUID | MS_NODEV | h->set) & ~h->clear;

	if (h->argc > 1)
		return mh_error(MH_USAGE, "remount changes only flags (ro, noexec, ...): the filters "
				"of a mount stay until it is unmounted");
	if (h->fake)
		return MH_OK;
	if (mount(NULL, target, NULL, MS_REMOUNT | flags, NULL))
		return mh_error(MH_FAIL, "remount %s: %s", target, strerror(errno));
	return MH_OK;
}

/* Filters the options name and nobody loaded yet: from the configuration. */
static int load_missing(struct helper *h)
{
	const char *missing[MAX_AT + 1];
	int n = 0, lock, ret;

	for (int i = 0; i < h->nfilters; i++)
		if (!filter_loaded(h->filters[i]))
			missing[n++] = h->filters[i];
	if (!n)
		return 0;
	lock = state_lock();
	if (lock < 0)
		return mh_error(MH_SYSERR, "lock %s/lock: %s", opts.state_dir, strerror(-lock));
	ret = apply_config(h->config, missing, n, h->fake, !opts.verbose);
	state_unlock(lock);
	return ret ? MH_FAIL : 0;
}

static void helper_usage(FILE *out)
{
	fprintf(out,
		"Usage: mount.fusebpf BACKING_DIR MOUNTPOINT [-sfnv] [-N NS] [-o OPTIONS]\n"
		"\n"
		"The mount(8) helper for fuse-bpf views: mount -t fusebpf -o filter=NAME\n"
		"/srv/data /mnt, or an fstab line of type fusebpf. OPTIONS: filter=NAME,\n"
		"at=SUBDIR=NAME (repeatable), log=FILE, config=PATH (where filters not loaded\n"
		"yet are found; default %s), userspace, the kernel's ro, noexec,\n"
		"nosuid, nodev, noatime, ..., and mount(8)'s own (noauto, nofail, _netdev,\n"
		"x-*, ...), which are ignored. See fusebpfctl(8).\n",
		FUSEBPF_CONFIG_DIR);
}

/*
 * mount(8)'s arguments: the flags, then SOURCE TARGET, then every -o (after
 * -s, wherever it is). MH_OK, or the status to exit with (-1: exit 0, -h).
 */
static int helper_parse(int argc, char **argv, struct helper *h, const char **source,
			const char **target)
{
	int c, ret;

	opterr = 0;
	optind = 0;
	while ((c = getopt(argc, argv, "sfnvhN:o:t:")) != -1) {
		if (c == 's')
			h->sloppy = true;
		else if (c == 'f')
			h->fake = true;
		else if (c == 'v')
			opts.verbose++;
		else if (c == 'h')
			return helper_usage(stdout), -1;
		else if (c == 'N' && (ret = enter_namespace(optarg)))
			return ret;
		else if (c == '?' || c == ':')
			return helper_usage(stderr), MH_USAGE;
		/* -n: no mtab to write; -o: below; -t fusebpf or fuse.fusebpf: the same */
	}
	if (argc - optind != 2)
		return helper_usage(stderr), MH_USAGE;
	*source = argv[optind];
	*target = argv[optind + 1];
	optind = 0;
	while ((c = getopt(argc, argv, "sfnvhN:o:t:")) != -1)
		if (c == 'o' && (ret = parse_options(h, optarg)))
			return ret;
	return MH_OK;
}

/* Load the filters the options name from the configuration, then attach. */
static int helper_mount(struct helper *h, const char *source, const char *target)
{
	struct attach_args a;
	const char *mnt, *back;
	int ret;

	if (geteuid() != 0)
		return mh_error(MH_USAGE, "only root can mount fuse-bpf views");
	if ((ret = push(h, target, source)))
		return ret;
	h->argv[h->argc] = NULL;
	if (attach_parse(h->argc, (char **)h->argv, &a, &mnt, &back))
		return MH_USAGE;
	a.mflags = (a.mflags | h->set) & ~h->clear;
	a.quiet = !opts.verbose;
	if ((ret = load_missing(h)) || h->fake)
		return ret;
	return attach_run(&a, mnt, back) ? MH_FAIL : MH_OK;
}

int mount_helper(int argc, char **argv)
{
	struct helper h = { .argv = { "attach" }, .argc = 1 };
	const char *source, *target;
	int ret;

	opts.cmd = "attach";
	ret = helper_parse(argc, argv, &h, &source, &target);
	if (ret < 0)
		ret = MH_OK;
	else if (!ret)
		ret = h.remount ? remount(&h, target) : helper_mount(&h, source, target);
	free(h.optbuf);
	return ret;
}
