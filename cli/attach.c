// SPDX-License-Identifier: GPL-2.0
/*
 * fusebpfctl attach MOUNTPOINT BACKING_DIR [--filter NAME] [--at SUBDIR=NAME]...
 *                   [--foreground] [--userspace] [--log FILE]
 * fusebpfctl attach MOUNTPOINT --filter NAME --replace	(replace.c)
 * fusebpfctl detach MOUNTPOINT
 *
 * attach mounts in this process (so that mount errors are reported as they
 * happen), forks the server, and exits 0 once the server has answered INIT and
 * the mount answers a stat; the server logs to a file and removes its record
 * when the mount goes away.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "filter.h"
#include "fuse_uapi.h"
#include "fusebpfctl.h"
#include "attach.h"
#include "json.h"
#include "server.h"
#include "state.h"

#define READY_TIMEOUT_MS 10000

void help_attach(FILE *out)
{
	fprintf(out,
		"Usage: fusebpfctl attach MOUNTPOINT BACKING_DIR [--filter NAME] [--at SUBDIR=NAME]...\n"
		"                         [--foreground] [--userspace] [--log FILE]\n"
		"       fusebpfctl attach MOUNTPOINT --filter NAME --replace\n"
		"\n"
		"Mount a fuse-bpf filesystem at MOUNTPOINT that shows BACKING_DIR through the\n"
		"loaded filter NAME, and serve it in the background. The kernel does the\n"
		"operations on the backing files and runs the filter; the server only answers\n"
		"lookups, with the backing file and the filter of its subtree. Returns once the\n"
		"mount is ready.\n"
		"\n"
		"Options:\n"
		"  -f, --filter NAME      the filter of the whole tree (default: none, plain\n"
		"                         passthrough)\n"
		"  -a, --at SUBDIR=NAME   filter NAME for BACKING_DIR/SUBDIR instead (repeatable);\n"
		"                         the root and the directories above SUBDIR are then\n"
		"                         served by fusebpfctl, and names directly in them cannot\n"
		"                         be created, removed or renamed (EPERM)\n"
		"  -F, --foreground       serve in this process, logging to stderr\n"
		"  -u, --userspace        serve every operation in user space, without fuse-bpf\n"
		"                         and without filters (the benchmarks' baseline); used\n"
		"                         automatically, with a message, when the kernel has no\n"
		"                         fuse-bpf and no filter was asked for\n"
		"  -l, --log FILE         the server's log (default STATE_DIR/mounts/<mountpoint>.log)\n"
		"  -r, --replace          replace the filter at the root of the view mounted at\n"
		"                         MOUNTPOINT by NAME, without unmounting it: every node that\n"
		"                         runs the root's filter runs NAME's from its next operation\n"
		"                         (--at subtrees keep theirs)\n"
		"\n"
		"JSON (-j): the mount record, as in 'list'; with --replace, also \"replaced\": the\n"
		"filter it had (S|null).\n"
		"\n"
		"EXAMPLES\n"
		"  fusebpfctl attach /mnt /srv/data --filter private\n"
		"  fusebpfctl attach /mnt /srv/data --filter ro --at docs=private\n"
		"  fusebpfctl attach /mnt --filter private-v2 --replace\n"
		"  fusebpfctl attach /mnt /srv/data --userspace\n");
}

static int attach_opt(int c, const char *arg, void *ctx)
{
	struct attach_args *a = ctx;
	char sub[PATH_MAX];
	const char *eq;

	switch (c) {
	case 'f':
		if (!valid_filter_name(arg))
			return usage_error("bad filter name '%s'", arg);
		a->filter = arg;
		return 0;
	case 'a':
		eq = strrchr(arg, '=');
		if (!eq || eq == arg || !eq[1])
			return usage_error("--at wants SUBDIR=NAME, not '%s'", arg);
		if (a->nat == MAX_AT)
			return usage_error("at most %d --at", MAX_AT);
		if ((size_t)(eq - arg) >= sizeof(sub))
			return usage_error("--at: SUBDIR too long");
		memcpy(sub, arg, eq - arg);
		sub[eq - arg] = 0;
		if (normalize_subdir(sub, a->at[a->nat].path, sizeof(a->at[a->nat].path)))
			return usage_error("--at: bad SUBDIR '%s' (a path inside BACKING_DIR, "
					   "without . or ..)", sub);
		if (!valid_filter_name(eq + 1))
			return usage_error("--at: bad filter name '%s'", eq + 1);
		snprintf(a->at[a->nat].filter, sizeof(a->at[a->nat].filter), "%s", eq + 1);
		for (int i = 0; i < a->nat; i++)
			if (!strcmp(a->at[i].path, a->at[a->nat].path))
				return usage_error("--at %s given twice", a->at[i].path);
		a->nat++;
		return 0;
	case 'F':
		a->foreground = true;
		return 0;
	case 'u':
		a->userspace = true;
		return 0;
	case 'l':
		a->log = arg;
		return 0;
	case 'r':
		a->replace = true;
		return 0;
	}
	return EXIT_USAGE;
}

/* attach --replace: one MOUNTPOINT and the filter, none of a new mount's options */
static int replace_usage(const struct attach_args *a, int noperands)
{
	if (noperands != 1)
		return usage_error(noperands ? "--replace takes the MOUNTPOINT only (its backing stays)"
					     : "--replace: which MOUNTPOINT?");
	if (!a->filter)
		return usage_error("--replace: which filter? (--filter NAME)");
	if (a->nat)
		return usage_error("--replace replaces the root's filter: --at subtrees keep theirs");
	if (a->foreground || a->userspace || a->log)
		return usage_error("--replace changes a mounted view's filter: --foreground, "
				   "--userspace and --log are for a new mount");
	return 0;
}

int attach_parse(int argc, char **argv, struct attach_args *a, const char **mnt, const char **back)
{
	static const struct option longopts[] = {
		{ "filter", required_argument, NULL, 'f' },
		{ "at", required_argument, NULL, 'a' },
		{ "foreground", no_argument, NULL, 'F' },
		{ "userspace", no_argument, NULL, 'u' },
		{ "log", required_argument, NULL, 'l' },
		{ "replace", no_argument, NULL, 'r' },
		{ 0 },
	};
	int idx;

	memset(a, 0, sizeof(*a));
	a->mflags = MS_NOSUID | MS_NODEV;
	idx = parse_cmd_opts(argc, argv, "f:a:Ful:r", longopts, attach_opt, a, help_attach);
	if (idx < 0)
		return idx;
	if (a->replace) {
		*mnt = argv[idx];
		*back = NULL;
		return replace_usage(a, argc - idx) ? PARSE_USAGE : 0;
	}
	if (argc - idx != 2) {
		usage_error(argc - idx < 2 ? "MOUNTPOINT and BACKING_DIR, please" : "too many arguments");
		return PARSE_USAGE;
	}
	if (a->userspace && (a->filter || a->nat)) {
		usage_error("--userspace serves without filters: drop --filter and --at");
		return PARSE_USAGE;
	}
	*mnt = argv[idx];
	*back = argv[idx + 1];
	return 0;
}

/* Wait for the server's ready byte; 0, or -errno when it died or hung. */
static int wait_ready(int rfd, pid_t pid)
{
	struct pollfd p = { .fd = rfd, .events = POLLIN };
	char c;
	int n = poll(&p, 1, READY_TIMEOUT_MS), status;

	if (n == 1 && read(rfd, &c, 1) == 1)
		return 0;
	if (waitpid(pid, &status, WNOHANG) == pid)
		return -ECHILD;
	return n == 0 ? -ETIMEDOUT : -EIO;
}

static void print_record(const struct mount_rec *m)
{
	if (opts.json) {
		json_object *o = json_mount(m, true);

		json_print(o);
		json_object_put(o);
		return;
	}
	printf("attached %s (%s over %s", m->mountpoint, m->mode, m->backing);
	if (m->filter[0])
		printf(", filter %s", m->filter);
	for (int i = 0; i < m->nat; i++)
		printf(", %s=%s", m->at[i].path, m->at[i].filter);
	printf("; server pid %d, log %s)\n", m->pid, m->log);
}

/*
 * The mountpoint, a directory, resolved into @out (PATH_MAX).  A mount
 * whose server died answers ENOTCONN (once FUSE's attribute timeout has
 * passed): it is resolved through its parent, so that the mount record
 * can say what it is ("dead: detach it first").  0 or -errno.
 */
static int resolve_mountpoint(const char *arg, char *out)
{
	char dir[PATH_MAX], base[PATH_MAX], parent[PATH_MAX];
	struct stat st;

	if (!stat(arg, &st)) {
		if (!S_ISDIR(st.st_mode))
			return -ENOTDIR;
		return realpath(arg, out) ? 0 : -errno;
	}
	if (errno != ENOTCONN)
		return -errno;
	if (strlen(arg) >= PATH_MAX)
		return -ENAMETOOLONG;
	/* dirname() and basename() may change their argument */
	strcpy(dir, arg);
	strcpy(base, arg);
	if (!realpath(dirname(dir), parent))
		return -errno;
	if (snprintf(out, PATH_MAX, "%s/%s", strcmp(parent, "/") ? parent : "",
		     basename(base)) >= PATH_MAX)
		return -ENAMETOOLONG;
	return 0;
}

int do_attach(int argc, char **argv)
{
	struct attach_args a;
	const char *mnt_arg, *back_arg;
	int err;

	err = attach_parse(argc, argv, &a, &mnt_arg, &back_arg);
	if (err == PARSE_HELP)
		return EXIT_OK;
	if (err)
		return EXIT_USAGE;
	if (a.replace)
		return replace_run(&a, mnt_arg) ? EXIT_FAIL : EXIT_OK;
	return attach_run(&a, mnt_arg, back_arg) ? EXIT_FAIL : EXIT_OK;
}

/*
 * A view served without root_dir= (--at) can't tell the kernel how deep its
 * backing is stacked: over a FUSE backing (sshfs, another view) its backing
 * files would be refused (ELOOP) at the default depth of 1.
 */
static bool backing_on_fuse(int back_fd)
{
	struct statfs sf;

	return !fstatfs(back_fd, &sf) && sf.f_type == FUSE_SUPER_MAGIC;
}

/* What attach_run holds while it mounts: freed by attach_end. */
struct attach_state {
	struct attach_args a;
	struct server_cfg cfg;
	struct mount_rec rec, old;
	char mnt[PATH_MAX], back[PATH_MAX];
	int lock, fuse_fd, back_fd, logfd;
	bool mounted;		/* ours to unmount on failure */
};

/* The mount point and the backing directory, resolved; the first must not be inside the second. */
static int attach_paths(struct attach_state *st, const char *mnt_arg, const char *back_arg)
{
	struct stat sb;
	size_t bl;
	int err;

	if (stat(back_arg, &sb)) {
		err = -errno;
		return fail(-err, "attach: backing directory %s", back_arg), err;
	}
	if (!S_ISDIR(sb.st_mode))
		return fail(ENOTDIR, "attach: backing directory %s", back_arg), -ENOTDIR;
	err = resolve_mountpoint(mnt_arg, st->mnt);
	if (err)
		return fail(-err, "attach: mountpoint %s", mnt_arg), err;
	if (!realpath(back_arg, st->back)) {
		err = -errno;
		return fail(-err, "attach: resolve %s", back_arg), err;
	}
	bl = strlen(st->back);
	if (!strcmp(st->mnt, st->back) ||
	    (!strncmp(st->mnt, st->back, bl) && (st->mnt[bl] == '/' || bl == 1)))
		return fail(EINVAL, "attach: mountpoint %s is inside the backing directory %s",
			    st->mnt, st->back), -EINVAL;
	return 0;
}

/* fuse-bpf, or user space when the kernel has none and no filter is asked for. */
static int attach_mode(struct attach_state *st)
{
	if (st->a.userspace || fuse_bpf_supported())
		return 0;
	if (st->a.filter || st->a.nat)
		return fail(EOPNOTSUPP, "attach %s: this kernel has no fuse-bpf "
			    "(/sys/fs/fuse/features/fuse_bpf), so filters cannot run "
			    "(--userspace serves the tree without them)", st->mnt), -EOPNOTSUPP;
	note("attach %s: this kernel has no fuse-bpf (/sys/fs/fuse/features/fuse_bpf): "
	     "serving every operation in user space", st->mnt);
	st->a.userspace = true;
	return 0;
}

/* The state lock, and the mount point free (a stale record is removed). */
static int attach_claim(struct attach_state *st)
{
	st->lock = state_lock();
	if (st->lock < 0)
		return fail(-st->lock, "lock %s/lock", opts.state_dir), st->lock;
	if (mount_rec_read(st->mnt, &st->old) == 0) {
		if (st->old.alive || is_mountpoint(st->mnt))
			return fail(EBUSY, "attach %s: already attached (server pid %d%s)", st->mnt,
				    st->old.pid, st->old.alive ? "" : ", dead: detach it first"),
			       -EBUSY;
		mount_rec_remove(st->mnt);	/* stale: nothing mounted, nobody serving */
	}
	if (is_mountpoint(st->mnt))
		return fail(EBUSY, "attach %s: something is already mounted there", st->mnt), -EBUSY;
	return 0;
}

/* A loaded filter's fuse_ops map, for the server to hand to the kernel. */
static int attach_prog(const struct attach_state *st, const char *filter, const char *at)
{
	int fd = filter_obj_fd(filter, "ops");

	if (fd < 0 && at)
		fail(-fd, "attach %s: --at %s: filter '%s'%s", st->mnt, at, filter,
		     fd == -ENOENT ? " is not loaded" : "");
	else if (fd < 0)
		fail(-fd, "attach %s: filter '%s'%s", st->mnt, filter,
		     fd == -ENOENT ? " is not loaded" : "");
	return fd;
}

/* The backing directory and the filters' programs: the pins give their fds. */
static int attach_open(struct attach_state *st)
{
	struct server_cfg *cfg = &st->cfg;
	struct stat sb;
	int err;

	if (st->a.filter && (cfg->filter_fd = attach_prog(st, st->a.filter, NULL)) < 0)
		return cfg->filter_fd;
	st->back_fd = open(st->back, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (st->back_fd < 0) {
		err = -errno;
		return fail(-err, "attach: open %s", st->back), err;
	}
	for (int i = 0; i < st->a.nat; i++) {
		const struct at_rule *at = &st->a.at[i];

		cfg->at[i].prog_fd = attach_prog(st, at->filter, at->path);
		if (cfg->at[i].prog_fd < 0)
			return cfg->at[i].prog_fd;
		if (fstatat(st->back_fd, at->path, &sb, AT_SYMLINK_NOFOLLOW)) {
			err = -errno;
			return fail(-err, "attach %s: --at %s: %s/%s", st->mnt, at->path, st->back,
				    at->path), err;
		}
		snprintf(cfg->at[i].path, sizeof(cfg->at[i].path), "%s", at->path);
	}
	cfg->nat = st->a.nat;
	return 0;
}

/* Where the server logs: --log, stderr in the foreground, else the state dir. */
static int attach_log_path(struct attach_state *st)
{
	struct mount_rec *rec = &st->rec;
	char dir[PATH_MAX];
	int n;

	if (st->a.log && st->a.log[0] != '/' && getcwd(dir, sizeof(dir)))
		n = snprintf(rec->log, sizeof(rec->log), "%s/%s", dir, st->a.log);
	else if (st->a.log)
		n = snprintf(rec->log, sizeof(rec->log), "%s", st->a.log);
	else if (st->a.foreground)
		n = snprintf(rec->log, sizeof(rec->log), "(stderr)");
	else {
		snprintf(dir, sizeof(dir), "%s/mounts", opts.state_dir);
		mkdir_p(dir, 0755);
		mount_rec_path(st->mnt, ".log", rec->log, sizeof(rec->log));
		n = 0;
	}
	if (n >= (int)sizeof(rec->log))
		return fail(ENAMETOOLONG, "attach: log %s", st->a.log), -ENAMETOOLONG;
	return 0;
}

/* The mount's record (written once it answers) and its log. */
static int attach_record(struct attach_state *st)
{
	struct mount_rec *rec = &st->rec;
	int err;

	snprintf(rec->mountpoint, sizeof(rec->mountpoint), "%s", st->mnt);
	snprintf(rec->backing, sizeof(rec->backing), "%s", st->back);
	snprintf(rec->mode, sizeof(rec->mode), "%s", st->a.userspace ? "userspace" : "fuse-bpf");
	snprintf(rec->filter, sizeof(rec->filter), "%s", st->a.filter ? st->a.filter : "");
	rec->nat = st->a.nat;
	memcpy(rec->at, st->a.at, sizeof(st->a.at));
	rec->started = time(NULL);
	err = attach_log_path(st);
	if (err || (st->a.foreground && !st->a.log))
		return err;
	st->logfd = open(rec->log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (st->logfd < 0) {
		err = -errno;
		return fail(-err, "attach: open log %s", rec->log), err;
	}
	return 0;
}

static int attach_mount(struct attach_state *st)
{
	char mopts[512];
	size_t len;
	int err;

	st->fuse_fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (st->fuse_fd < 0) {
		err = -errno;
		return fail(-err, "attach: open /dev/fuse"), err;
	}
	len = snprintf(mopts, sizeof(mopts), "fd=%d,rootmode=40000,user_id=0,group_id=0,"
		       "allow_other,default_permissions", st->fuse_fd);
	if (!st->a.userspace && !st->a.nat) {
		len += snprintf(mopts + len, sizeof(mopts) - len, ",root_dir=%d", st->back_fd);
		if (st->cfg.filter_fd >= 0)
			snprintf(mopts + len, sizeof(mopts) - len, ",root_bpf=%d", st->cfg.filter_fd);
	} else if (!st->a.userspace && backing_on_fuse(st->back_fd)) {
		snprintf(mopts + len, sizeof(mopts) - len, ",stack_depth=2");
	}
	debug("mount -t fuse.fusebpf -o %s %s %s", mopts, st->back, st->mnt);
	if (mount(st->back, st->mnt, "fuse.fusebpf", st->a.mflags, mopts)) {
		err = -errno;
		return fail(-err, "attach: mount %s", st->mnt), err;
	}
	st->mounted = true;
	/*
	 * The mount holds the root's filter; the server, which sees nothing
	 * below a backed root, must not, or a map replaced by attach --replace
	 * would live as long as the server.
	 */
	if (!st->a.userspace && !st->a.nat && st->cfg.filter_fd >= 0) {
		close(st->cfg.filter_fd);
		st->cfg.filter_fd = -1;
	}
	st->cfg.fuse_fd = st->fuse_fd;
	st->cfg.back_fd = st->back_fd;
	st->cfg.userspace = st->a.userspace;
	st->cfg.mountpoint = st->mnt;
	st->cfg.verbose = opts.verbose;
	return 0;
}

/* --foreground: serve here until the mount goes, then clean up after it. */
static int attach_serve_here(struct attach_state *st)
{
	int err;

	st->rec.pid = getpid();
	err = mount_rec_write(&st->rec);
	if (err)
		return fail(-err, "attach: write the mount record"), err;
	state_unlock(st->lock);
	st->lock = -1;
	if (st->logfd >= 0)
		dup2(st->logfd, STDERR_FILENO);
	if (!st->a.quiet)
		print_record(&st->rec);
	fflush(stdout);
	err = server_run(&st->cfg);
	st->mounted = false;	/* the server saw it go */
	if (umount2(st->mnt, MNT_DETACH) == 0)
		debug("unmounted %s", st->mnt);
	st->lock = state_lock();
	if (mount_rec_read(st->mnt, &st->old) == 0 && st->old.pid == getpid())
		mount_rec_remove(st->mnt);
	if (err)
		fail(-err, "serve %s", st->mnt);
	return err;
}

/* The daemon: a new session, its log as stderr; exits when the mount goes. */
static void attach_child(struct attach_state *st, int ready_fd)
{
	int devnull = open("/dev/null", O_RDWR | O_CLOEXEC), err;

	/* The lock is the parent's: a flock is shared across fork. */
	close(st->lock);
	setsid();
	if (chdir("/"))
		_exit(1);
	if (devnull >= 0) {
		dup2(devnull, STDIN_FILENO);
		dup2(devnull, STDOUT_FILENO);
	}
	dup2(st->logfd, STDERR_FILENO);
	setvbuf(stderr, NULL, _IOLBF, 0);
	st->cfg.ready_fd = ready_fd;
	err = server_run(&st->cfg);
	/* The record is ours to remove once the mount is gone. */
	if (mount_rec_read(st->mnt, &st->old) == 0 && st->old.pid == getpid())
		mount_rec_remove(st->mnt);
	_exit(err ? 1 : 0);
}

/* Wait for the daemon's INIT, then for the mount to answer; kill it when not. */
static int attach_await(struct attach_state *st, int ready_fd, pid_t pid)
{
	struct statfs sf;
	struct stat sb;
	int err = wait_ready(ready_fd, pid);

	if (err) {
		if (err != -ECHILD)
			kill(pid, SIGKILL);
		fail(err == -ECHILD ? 0 : -err, "attach %s: the server %s (see %s)", st->mnt,
		     err == -ECHILD ? "died before the mount was ready" : "did not start",
		     st->rec.log);
		waitpid(pid, NULL, 0);
		return err;
	}
	/* The mount answers: the root's attributes come back. */
	errno = 0;
	if (statfs(st->mnt, &sf) || sf.f_type != FUSE_SUPER_MAGIC || stat(st->mnt, &sb)) {
		err = errno ? errno : EIO;
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return fail(err, "attach %s: the mount does not answer (see %s)", st->mnt,
			    st->rec.log), -err;
	}
	return 0;
}

/* Fork the server, wait until the mount answers, then record it. */
static int attach_daemonize(struct attach_state *st)
{
	int pipefd[2], err;
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC)) {
		err = -errno;
		return fail(-err, "attach: pipe"), err;
	}
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid == 0) {
		close(pipefd[0]);
		attach_child(st, pipefd[1]);
	}
	err = pid < 0 ? -errno : 0;
	close(pipefd[1]);
	if (err)
		fail(-err, "attach: fork");
	else
		err = attach_await(st, pipefd[0], pid);
	close(pipefd[0]);
	if (err)
		return err;
	st->rec.pid = pid;
	st->rec.alive = true;
	err = mount_rec_write(&st->rec);
	if (err) {
		kill(pid, SIGTERM);
		return fail(-err, "attach: write the mount record"), err;
	}
	st->mounted = false;	/* the server's now */
	if (!st->a.quiet)
		print_record(&st->rec);
	return 0;
}

static void attach_end(struct attach_state *st)
{
	if (st->mounted && umount2(st->mnt, 0))
		umount2(st->mnt, MNT_DETACH);
	if (st->fuse_fd >= 0)
		close(st->fuse_fd);
	if (st->back_fd >= 0)
		close(st->back_fd);
	if (st->logfd >= 0)
		close(st->logfd);
	if (st->cfg.filter_fd >= 0)
		close(st->cfg.filter_fd);
	for (int i = 0; i < MAX_AT; i++)
		if (st->cfg.at[i].prog_fd >= 0)
			close(st->cfg.at[i].prog_fd);
	state_unlock(st->lock);
	free(st);
}

int attach_run(struct attach_args *ap, const char *mnt_arg, const char *back_arg)
{
	struct attach_state *st = calloc(1, sizeof(*st));
	int err;

	if (!st)
		return fail(ENOMEM, "attach");
	st->a = *ap;
	st->lock = st->fuse_fd = st->back_fd = st->logfd = -1;
	st->cfg.filter_fd = st->cfg.ready_fd = -1;
	for (int i = 0; i < MAX_AT; i++)
		st->cfg.at[i].prog_fd = -1;
	err = attach_paths(st, mnt_arg, back_arg);
	if (!err)
		err = attach_mode(st);
	if (!err)
		err = attach_claim(st);
	if (!err)
		err = attach_open(st);
	if (!err)
		err = attach_record(st);
	if (!err)
		err = attach_mount(st);
	if (!err)
		err = st->a.foreground ? attach_serve_here(st) : attach_daemonize(st);
	attach_end(st);
	return err;
}

/* --- detach ------------------------------------------------------------------ */

void help_detach(FILE *out)
{
	fprintf(out,
		"Usage: fusebpfctl detach MOUNTPOINT\n"
		"\n"
		"Unmount a mount made by attach and stop its server (also after the server\n"
		"was killed: the dead mount is unmounted and the record removed). A busy mount\n"
		"is detached lazily.\n"
		"\n"
		"EXAMPLES\n"
		"  fusebpfctl detach /mnt\n");
}

/* An absolute, lexically normalized path (a dead FUSE mount cannot be resolved). */
static int absolute_path(const char *in, char *out, size_t cap)
{
	char tmp[PATH_MAX], norm[PATH_MAX];
	int n;

	if (realpath(in, out))
		return 0;
	if (in[0] == '/')
		n = snprintf(tmp, sizeof(tmp), "%s", in);
	else if (getcwd(norm, sizeof(norm)))
		n = snprintf(tmp, sizeof(tmp), "%s/%s", norm, in);
	else
		return -errno;
	if (n >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	if (!strcmp(tmp, "/")) {
		snprintf(out, cap, "/");
		return 0;
	}
	if (normalize_subdir(tmp, norm, sizeof(norm)))
		return -EINVAL;
	return snprintf(out, cap, "/%s", norm) >= (int)cap ? -ENAMETOOLONG : 0;
}

/* Is pid a fusebpfctl (possibly under valgrind)? Guards against a reused pid. */
static bool is_our_server(pid_t pid)
{
	char path[64], buf[4096];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	n = read_small(path, buf, sizeof(buf));
	if (n <= 0)
		return false;
	for (ssize_t i = 0; i < n; i++)
		if (!buf[i])
			buf[i] = ' ';
	return strstr(buf, "fusebpfctl") != NULL;
}

static bool wait_gone(pid_t pid, int ms)
{
	for (int t = 0; t < ms; t += 20) {
		if (!pid_alive(pid))
			return true;
		usleep(20000);
	}
	return !pid_alive(pid);
}

static int detach_noopt(int c, const char *arg, void *ctx)
{
	(void)c, (void)arg, (void)ctx;
	return EXIT_USAGE;
}

/* Unmount (lazily when busy: *lazy); nothing mounted is fine. 0 or -errno, printed. */
static int detach_unmount(const char *mnt, bool *lazy)
{
	int err;

	*lazy = false;
	if (!umount2(mnt, 0) || errno == EINVAL || errno == ENOENT)
		return 0;
	if (errno == EBUSY && !umount2(mnt, MNT_DETACH)) {
		*lazy = true;
		return 0;
	}
	err = errno;
	return fail(err, "detach: unmount %s", mnt), -err;
}

/* The server sees the connection go and exits; make sure. */
static void detach_stop_server(const struct mount_rec *rec, bool lazy)
{
	if (rec->alive && !wait_gone(rec->pid, lazy ? 500 : 5000) && is_our_server(rec->pid)) {
		kill(rec->pid, SIGTERM);
		if (!wait_gone(rec->pid, 2000))
			kill(rec->pid, SIGKILL);
	}
}

/* Detach the mount of ours at mnt, the caller holding the lock; 0 or -errno, printed. */
static int detach_mount(const char *mnt, struct mount_rec *rec, bool *lazy)
{
	int err = mount_rec_read(mnt, rec);

	if (err)
		return fail(0, "detach %s: not a fusebpfctl mount%s", mnt,
			    is_mountpoint(mnt) ? " (something else is mounted there)" : ""), err;
	err = detach_unmount(mnt, lazy);
	if (err)
		return err;
	detach_stop_server(rec, *lazy);
	mount_rec_remove(mnt);
	return 0;
}

int do_detach(int argc, char **argv)
{
	struct mount_rec *rec;
	char mnt[PATH_MAX];
	int idx, err, lock;
	bool lazy;

	idx = parse_cmd_opts(argc, argv, "", NULL, detach_noopt, NULL, help_detach);
	if (idx == PARSE_HELP)
		return EXIT_OK;
	if (idx < 0)
		return EXIT_USAGE;
	if (argc - idx != 1)
		return usage_error(argc - idx ? "one MOUNTPOINT, please" : "which MOUNTPOINT?");
	err = absolute_path(argv[idx], mnt, sizeof(mnt));
	if (err)
		return fail(-err, "detach %s", argv[idx]);
	rec = calloc(1, sizeof(*rec));
	if (!rec)
		return fail(ENOMEM, "detach");
	lock = state_lock();
	if (lock < 0) {
		fail(-lock, "lock %s/lock", opts.state_dir);
		err = lock;
	} else {
		err = detach_mount(mnt, rec, &lazy);
	}
	if (!err && !opts.json)
		printf("detached %s%s%s\n", mnt, lazy ? " (busy: unmounted lazily)" : "",
		       rec->alive ? "" : " (its server had died)");
	state_unlock(lock);
	free(rec);
	return err ? EXIT_FAIL : EXIT_OK;
}
