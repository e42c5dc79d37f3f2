// SPDX-License-Identifier: GPL-2.0
/*
 * fusebpfctl attach MOUNTPOINT BACKING_DIR [--filter NAME] [--at SUBDIR=NAME]...
 *                   [--foreground] [--userspace] [--log FILE]
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
		"\n"
		"JSON (-j): the mount record, as in 'list'.\n"
		"\n"
		"EXAMPLES\n"
		"  fusebpfctl attach /mnt /srv/data --filter private\n"
		"  fusebpfctl attach /mnt /srv/data --filter ro --at docs=private\n"
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
	}
	return EXIT_USAGE;
}

int attach_parse(int argc, char **argv, struct attach_args *a, const char **mnt, const char **back)
{
	static const struct option longopts[] = {
		{ "filter", required_argument, NULL, 'f' },
		{ "at", required_argument, NULL, 'a' },
		{ "foreground", no_argument, NULL, 'F' },
		{ "userspace", no_argument, NULL, 'u' },
		{ "log", required_argument, NULL, 'l' },
		{ 0 },
	};
	int idx;

	memset(a, 0, sizeof(*a));
	a->mflags = MS_NOSUID | MS_NODEV;
	idx = parse_cmd_opts(argc, argv, "f:a:Ful:", longopts, attach_opt, a, help_attach);
	if (idx < 0)
		return idx;
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
	return attach_run(&a, mnt_arg, back_arg);
}

int attach_run(struct attach_args *ap, const char *mnt_arg, const char *back_arg)
{
	struct attach_args a = *ap;
	struct server_cfg *cfg = NULL;
	struct mount_rec *rec = NULL, *old = NULL;
	char opts_str[512], mnt[PATH_MAX], back[PATH_MAX];
	int ret = EXIT_FAIL, err, lock = -1, fuse_fd = -1, back_fd = -1, pipefd[2] = { -1, -1 };
	int logfd = -1;
	bool mounted = false;
	struct stat st;
	struct statfs sf;
	pid_t pid;

	cfg = calloc(1, sizeof(*cfg));
	rec = calloc(1, sizeof(*rec));
	old = calloc(1, sizeof(*old));
	if (!cfg || !rec || !old) {
		ret = fail(ENOMEM, "attach");
		goto out;
	}
	cfg->filter_fd = -1;
	cfg->ready_fd = -1;
	for (int i = 0; i < MAX_AT; i++)
		cfg->at[i].prog_fd = -1;

	if (stat(back_arg, &st)) {
		ret = fail(errno, "attach: backing directory %s", back_arg);
		goto out;
	}
	if (!S_ISDIR(st.st_mode)) {
		ret = fail(ENOTDIR, "attach: backing directory %s", back_arg);
		goto out;
	}
	err = resolve_mountpoint(mnt_arg, mnt);
	if (err) {
		ret = fail(-err, "attach: mountpoint %s", mnt_arg);
		goto out;
	}
	if (!realpath(back_arg, back)) {
		ret = fail(errno, "attach: resolve %s", back_arg);
		goto out;
	}
	{
		size_t bl = strlen(back);

		if (!strcmp(mnt, back) || (!strncmp(mnt, back, bl) && (mnt[bl] == '/' || bl == 1))) {
			ret = fail(EINVAL, "attach: mountpoint %s is inside the backing directory %s",
				   mnt, back);
			goto out;
		}
	}

	/* fuse-bpf or not. */
	if (!a.userspace && !fuse_bpf_supported()) {
		if (a.filter || a.nat) {
			ret = fail(EOPNOTSUPP, "attach %s: this kernel has no fuse-bpf "
				   "(/sys/fs/fuse/features/fuse_bpf), so filters cannot run "
				   "(--userspace serves the tree without them)", mnt);
			goto out;
		}
		note("attach %s: this kernel has no fuse-bpf (/sys/fs/fuse/features/fuse_bpf): "
		     "serving every operation in user space", mnt);
		a.userspace = true;
	}

	lock = state_lock();
	if (lock < 0) {
		ret = fail(lock, "lock %s/lock", opts.state_dir);
		goto out;
	}
	if (mount_rec_read(mnt, old) == 0) {
		if (old->alive || is_mountpoint(mnt)) {
			ret = fail(EBUSY, "attach %s: already attached (server pid %d%s)", mnt, old->pid,
				   old->alive ? "" : ", dead: detach it first");
			goto out;
		}
		mount_rec_remove(mnt);	/* stale: nothing mounted, nobody serving */
	}
	if (is_mountpoint(mnt)) {
		ret = fail(EBUSY, "attach %s: something is already mounted there", mnt);
		goto out;
	}

	/* Filters: the pins give the program fds the server hands to the kernel. */
	if (a.filter) {
		cfg->filter_fd = filter_obj_fd(a.filter, "prog");
		if (cfg->filter_fd < 0) {
			ret = fail(cfg->filter_fd, "attach %s: filter '%s'%s", mnt, a.filter,
				   cfg->filter_fd == -ENOENT ? " is not loaded" : "");
			goto out;
		}
	}
	back_fd = open(back, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (back_fd < 0) {
		ret = fail(errno, "attach: open %s", back);
		goto out;
	}
	for (int i = 0; i < a.nat; i++) {
		cfg->at[i].prog_fd = filter_obj_fd(a.at[i].filter, "prog");
		if (cfg->at[i].prog_fd < 0) {
			ret = fail(cfg->at[i].prog_fd, "attach %s: --at %s: filter '%s'%s", mnt,
				   a.at[i].path, a.at[i].filter,
				   cfg->at[i].prog_fd == -ENOENT ? " is not loaded" : "");
			goto out;
		}
		if (fstatat(back_fd, a.at[i].path, &st, AT_SYMLINK_NOFOLLOW)) {
			ret = fail(errno, "attach %s: --at %s: %s/%s", mnt, a.at[i].path, back,
				   a.at[i].path);
			goto out;
		}
		snprintf(cfg->at[i].path, sizeof(cfg->at[i].path), "%s", a.at[i].path);
	}
	cfg->nat = a.nat;

	/* The record and the log. */
	snprintf(rec->mountpoint, sizeof(rec->mountpoint), "%s", mnt);
	snprintf(rec->backing, sizeof(rec->backing), "%s", back);
	snprintf(rec->mode, sizeof(rec->mode), "%s", a.userspace ? "userspace" : "fuse-bpf");
	snprintf(rec->filter, sizeof(rec->filter), "%s", a.filter ? a.filter : "");
	rec->nat = a.nat;
	memcpy(rec->at, a.at, sizeof(a.at));
	rec->started = time(NULL);
	if (a.log) {
		if (a.log[0] == '/' || !getcwd(rec->log, sizeof(rec->log)))
			snprintf(rec->log, sizeof(rec->log), "%s", a.log);
		else
			snprintf(rec->log + strlen(rec->log), sizeof(rec->log) - strlen(rec->log), "/%s",
				 a.log);
	} else if (a.foreground) {
		snprintf(rec->log, sizeof(rec->log), "(stderr)");
	} else {
		char dir[PATH_MAX];

		snprintf(dir, sizeof(dir), "%s/mounts", opts.state_dir);
		mkdir_p(dir, 0755);
		mount_rec_path(mnt, ".log", rec->log, sizeof(rec->log));
	}
	if (!a.foreground || a.log) {
		logfd = open(rec->log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (logfd < 0) {
			ret = fail(errno, "attach: open log %s", rec->log);
			goto out;
		}
	}

	/* Mount. */
	fuse_fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fuse_fd < 0) {
		ret = fail(errno, "attach: open /dev/fuse");
		goto out;
	}
	snprintf(opts_str, sizeof(opts_str),
		 "fd=%d,rootmode=40000,user_id=0,group_id=0,allow_other,default_permissions", fuse_fd);
	if (!a.userspace && !a.nat) {
		size_t len = strlen(opts_str);

		len += snprintf(opts_str + len, sizeof(opts_str) - len, ",root_dir=%d", back_fd);
		if (cfg->filter_fd >= 0)
			snprintf(opts_str + len, sizeof(opts_str) - len, ",root_bpf=%d", cfg->filter_fd);
	}
	debug("mount -t fuse.fusebpf -o %s %s %s", opts_str, back, mnt);
	if (mount(back, mnt, "fuse.fusebpf", a.mflags, opts_str)) {
		err = errno;
		ret = fail(err, "attach: mount %s", mnt);
		goto out;
	}
	mounted = true;

	cfg->fuse_fd = fuse_fd;
	cfg->back_fd = back_fd;
	cfg->userspace = a.userspace;
	cfg->mountpoint = mnt;
	cfg->verbose = opts.verbose;

	if (a.foreground) {
		rec->pid = getpid();
		err = mount_rec_write(rec);
		if (err) {
			ret = fail(err, "attach: write the mount record");
			goto out;
		}
		state_unlock(lock);
		lock = -1;
		if (logfd >= 0) {
			dup2(logfd, STDERR_FILENO);
		}
		if (!a.quiet)
			print_record(rec);
		fflush(stdout);
		err = server_run(cfg);
		mounted = false;	/* the server saw it go */
		if (umount2(mnt, MNT_DETACH) == 0)
			debug("unmounted %s", mnt);
		lock = state_lock();
		if (mount_rec_read(mnt, old) == 0 && old->pid == getpid())
			mount_rec_remove(mnt);
		ret = err ? fail(err, "serve %s", mnt) : EXIT_OK;
		goto out;
	}

	if (pipe2(pipefd, O_CLOEXEC)) {
		ret = fail(errno, "attach: pipe");
		goto out;
	}
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		ret = fail(errno, "attach: fork");
		goto out;
	}
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);

		/* The lock is the parent's: a flock is shared across fork. */
		close(lock);
		close(pipefd[0]);
		setsid();
		if (chdir("/"))
			_exit(1);
		if (devnull >= 0) {
			dup2(devnull, STDIN_FILENO);
			dup2(devnull, STDOUT_FILENO);
		}
		dup2(logfd, STDERR_FILENO);
		setvbuf(stderr, NULL, _IOLBF, 0);
		cfg->ready_fd = pipefd[1];
		err = server_run(cfg);
		/* The record is ours to remove once the mount is gone. */
		if (mount_rec_read(mnt, old) == 0 && old->pid == getpid())
			mount_rec_remove(mnt);
		_exit(err ? 1 : 0);
	}
	close(pipefd[1]);
	pipefd[1] = -1;
	err = wait_ready(pipefd[0], pid);
	if (err) {
		if (err != -ECHILD)
			kill(pid, SIGKILL);
		ret = fail(err == -ECHILD ? 0 : err, "attach %s: the server %s (see %s)", mnt,
			   err == -ECHILD ? "died before the mount was ready" : "did not start", rec->log);
		waitpid(pid, NULL, 0);
		goto out;
	}
	/* The mount answers: the root's attributes come back. */
	if (statfs(mnt, &sf) || sf.f_type != FUSE_SUPER_MAGIC || stat(mnt, &st)) {
		err = errno ? errno : EIO;
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		ret = fail(err, "attach %s: the mount does not answer (see %s)", mnt, rec->log);
		goto out;
	}
	rec->pid = pid;
	rec->alive = true;
	err = mount_rec_write(rec);
	if (err) {
		kill(pid, SIGTERM);
		ret = fail(err, "attach: write the mount record");
		goto out;
	}
	mounted = false;	/* the server's now */
	if (!a.quiet)
		print_record(rec);
	ret = EXIT_OK;
out:
	if (mounted && umount2(mnt, 0))
		umount2(mnt, MNT_DETACH);
	if (pipefd[0] >= 0)
		close(pipefd[0]);
	if (pipefd[1] >= 0)
		close(pipefd[1]);
	if (fuse_fd >= 0)
		close(fuse_fd);
	if (back_fd >= 0)
		close(back_fd);
	if (logfd >= 0)
		close(logfd);
	if (cfg) {
		if (cfg->filter_fd >= 0)
			close(cfg->filter_fd);
		for (int i = 0; i < MAX_AT; i++)
			if (cfg->at[i].prog_fd >= 0)
				close(cfg->at[i].prog_fd);
	}
	state_unlock(lock);
	free(cfg);
	free(rec);
	free(old);
	return ret;
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

int do_detach(int argc, char **argv)
{
	struct mount_rec *rec = NULL;
	char mnt[PATH_MAX];
	int idx, err, lock = -1, ret = EXIT_FAIL;
	bool lazy = false, was_alive;

	idx = parse_cmd_opts(argc, argv, "", NULL, detach_noopt, NULL, help_detach);
	if (idx == PARSE_HELP)
		return EXIT_OK;
	if (idx < 0)
		return EXIT_USAGE;
	if (argc - idx != 1)
		return usage_error(argc - idx ? "one MOUNTPOINT, please" : "which MOUNTPOINT?");
	err = absolute_path(argv[idx], mnt, sizeof(mnt));
	if (err)
		return fail(err, "detach %s", argv[idx]);
	rec = calloc(1, sizeof(*rec));
	if (!rec)
		return fail(ENOMEM, "detach");
	lock = state_lock();
	if (lock < 0) {
		ret = fail(lock, "lock %s/lock", opts.state_dir);
		goto out;
	}
	err = mount_rec_read(mnt, rec);
	if (err) {
		ret = fail(0, "detach %s: not a fusebpfctl mount%s", mnt,
			   is_mountpoint(mnt) ? " (something else is mounted there)" : "");
		goto out;
	}
	was_alive = rec->alive;
	if (umount2(mnt, 0)) {
		if (errno == EBUSY) {
			if (umount2(mnt, MNT_DETACH)) {
				ret = fail(errno, "detach: unmount %s", mnt);
				goto out;
			}
			lazy = true;
		} else if (errno != EINVAL && errno != ENOENT) {
			ret = fail(errno, "detach: unmount %s", mnt);
			goto out;
		}
	}
	/* The server sees the connection go and exits; make sure. */
	if (rec->alive && !wait_gone(rec->pid, lazy ? 500 : 5000) && is_our_server(rec->pid)) {
		kill(rec->pid, SIGTERM);
		if (!wait_gone(rec->pid, 2000))
			kill(rec->pid, SIGKILL);
	}
	mount_rec_remove(mnt);
	if (!opts.json)
		printf("detached %s%s%s\n", mnt, lazy ? " (busy: unmounted lazily)" : "",
		       was_alive ? "" : " (its server had died)");
	ret = EXIT_OK;
out:
	state_unlock(lock);
	free(rec);
	return ret;
}
