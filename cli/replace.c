// SPDX-License-Identifier: GPL-2.0
/*
 * fusebpfctl attach MOUNTPOINT --filter NAME --replace
 *
 * Replace the root filter of a mounted view without unmounting it: the
 * kernel switches every node of the mount that runs the root's map to the
 * new map at once (an operation in flight ends with the filter it started
 * with). The remount goes through the new mount API (fspick(), fsconfig()
 * root_bpf=<fd>, FSCONFIG_CMD_RECONFIGURE): the fd is one of this process,
 * which a legacy mount(2) remount cannot name (mount(8) passes its own
 * table's options back), and the kernel takes root_bpf= only from fsconfig().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "attach.h"
#include "filter.h"
#include "fuse_uapi.h"
#include "fusebpfctl.h"
#include "json.h"
#include "ops.h"
#include "state.h"

/* What a replace holds: released by replace_end */
struct replace_state {
	char mnt[PATH_MAX];
	struct mount_rec rec;
	char old[NAME_LEN];	/* the filter the record named; "" unknown */
	bool have_rec;		/* a mount of ours */
	int lock, map_fd, fs_fd;
};

/* The mount: ours (a record) or another fuse-bpf one, with a filter at its root */
static int replace_target(struct replace_state *st, const char *arg)
{
	struct statfs sf;

	int err;

	if (!realpath(arg, st->mnt) || statfs(st->mnt, &sf)) {
		err = errno;
		return fail(err, "attach --replace: mountpoint %s", arg), -err;
	}
	if (!is_mountpoint(st->mnt))
		return fail(EINVAL, "attach --replace %s: not a mount point", st->mnt), -EINVAL;
	if (sf.f_type != FUSE_SUPER_MAGIC)
		return fail(EINVAL, "attach --replace %s: not a fuse-bpf mount", st->mnt), -EINVAL;
	st->have_rec = mount_rec_read(st->mnt, &st->rec) == 0;
	if (!st->have_rec)
		return 0;	/* another tool's mount: the kernel decides */
	if (strcmp(st->rec.mode, "fuse-bpf"))
		return fail(EINVAL, "attach --replace %s: not a fuse-bpf mount (its server serves "
			    "every operation in user space)", st->mnt), -EINVAL;
	if (!st->rec.filter[0])
		return fail(EINVAL, "attach --replace %s: no filter at the root (mounted without "
			    "--filter%s)", st->mnt, st->rec.nat ? "; --at subtrees keep theirs" : ""),
		       -EINVAL;
	snprintf(st->old, sizeof(st->old), "%s", st->rec.filter);
	return 0;
}

/* The new filter's fuse_ops map, updated (attached) */
static int replace_map(struct replace_state *st, const char *name)
{
	struct ops_desc *d = calloc(1, sizeof(*d));
	int err;

	if (!d)
		return fail(ENOMEM, "attach --replace"), -ENOMEM;
	st->map_fd = filter_obj_fd(name, "ops");
	err = st->map_fd < 0 ? st->map_fd : ops_describe(st->map_fd, d);
	if (st->map_fd < 0)
		fail(-err, "attach --replace %s: filter '%s'%s", st->mnt, name,
		     err == -ENOENT ? " is not loaded" : "");
	else if (err == -EINVAL)
		fail(EINVAL, "attach --replace %s: filter '%s': its ops pin is not a fuse_ops map (%s)",
		     st->mnt, name, d->type[0] ? d->type : "not struct_ops");
	else if (err)
		fail(-err, "attach --replace %s: filter '%s': read its fuse_ops map", st->mnt, name);
	else if (d->state == 0)
		err = -EINVAL, fail(EINVAL, "attach --replace %s: filter '%s': its fuse_ops map was "
				    "never attached (updated)", st->mnt, name);
	free(d);
	return err;
}

/* The kernel's messages about the failed fsconfig() ("e fuse: ..."), joined into buf */
static void fs_log(int fs_fd, char *buf, size_t cap)
{
	char msg[512];
	size_t len = 0;
	ssize_t n;

	buf[0] = 0;
	while (len + 3 < cap && (n = read(fs_fd, msg, sizeof(msg) - 1)) > 0) {
		msg[n] = 0;
		if (n > 0 && msg[n - 1] == '\n')
			msg[n - 1] = 0;
		len += snprintf(buf + len, cap - len, "%s%s", len ? "; " : "",
				msg[1] == ' ' ? msg + 2 : msg);
	}
}

/* Why a reconfigure with root_bpf= failed, for the message */
static const char *remount_why(int err, const char *klog)
{
	if (klog[0])
		return klog;
	if (err == EPERM)
		return "no permission (CAP_SYS_ADMIN)";
	if (err == EINVAL)
		return "the kernel refused it (no filter at the mount's root, or not a fuse-bpf mount)";
	return "";
}

/* One step of the remount: 0, or the errno and the step's name in *step */
static int remount_step(int ret, const char *name, const char **step)
{
	if (ret >= 0)
		return 0;
	*step = name;
	return errno;
}

/* fspick() + fsconfig(root_bpf=<fd>) + FSCONFIG_CMD_RECONFIGURE */
static int replace_remount(struct replace_state *st)
{
	char fd[16], klog[1024] = "";
	const char *step = "";
	int err;

	snprintf(fd, sizeof(fd), "%d", st->map_fd);
	debug("fspick %s; fsconfig root_bpf=%s; reconfigure", st->mnt, fd);
	st->fs_fd = fspick(AT_FDCWD, st->mnt, FSPICK_CLOEXEC);
	err = remount_step(st->fs_fd, "fspick", &step);
	if (!err)
		err = remount_step(fsconfig(st->fs_fd, FSCONFIG_SET_STRING, "root_bpf", fd, 0),
				   "root_bpf=", &step);
	if (!err)
		err = remount_step(fsconfig(st->fs_fd, FSCONFIG_CMD_RECONFIGURE, NULL, NULL, 0),
				   "reconfigure", &step);
	if (!err)
		return 0;
	if (st->fs_fd >= 0)
		fs_log(st->fs_fd, klog, sizeof(klog));
	if (err == ENOSYS)
		return fail(err, "attach --replace %s: this kernel has no fspick()/fsconfig()",
			    st->mnt), -err;
	fail(err, "attach --replace %s: %s: %s", st->mnt, step, remount_why(err, klog));
	return -err;
}

static void replace_print(const struct replace_state *st, const char *name)
{
	json_object *o;

	if (!opts.json) {
		printf("replaced the filter of %s: %s -> %s\n", st->mnt,
		       st->old[0] ? st->old : "(unknown)", name);
		return;
	}
	if (st->have_rec) {
		o = json_mount(&st->rec, true);
	} else {
		o = json_object_new_object();
		json_object_object_add(o, "mountpoint", json_object_new_string(st->mnt));
		json_object_object_add(o, "filter", json_object_new_string(name));
	}
	json_object_object_add(o, "replaced", st->old[0] ? json_object_new_string(st->old) : NULL);
	json_print(o);
	json_object_put(o);
}

/* The record names the new filter (list, unload's count of users) */
static int replace_record(struct replace_state *st, const char *name)
{
	int err;

	if (!st->have_rec)
		return 0;
	snprintf(st->rec.filter, sizeof(st->rec.filter), "%s", name);
	err = mount_rec_write(&st->rec);
	if (err)
		fail(-err, "attach --replace %s: the filter is replaced, but its record is not "
		     "(list shows '%s')", st->mnt, st->old);
	return err;
}

int replace_run(const struct attach_args *a, const char *mnt_arg)
{
	struct replace_state *st = calloc(1, sizeof(*st));
	int err;

	if (!st)
		return fail(ENOMEM, "attach --replace"), -ENOMEM;
	st->map_fd = st->fs_fd = -1;
	st->lock = state_lock();
	err = st->lock < 0 ? st->lock : replace_target(st, mnt_arg);
	if (st->lock < 0)
		fail(-err, "lock %s/lock", opts.state_dir);
	if (!err)
		err = replace_map(st, a->filter);
	if (!err)
		err = replace_remount(st);
	if (!err)
		err = replace_record(st, a->filter);
	if (!err)
		replace_print(st, a->filter);
	if (st->fs_fd >= 0)
		close(st->fs_fd);
	if (st->map_fd >= 0)
		close(st->map_fd);
	state_unlock(st->lock);
	free(st);
	return err;
}
