// SPDX-License-Identifier: GPL-2.0
/*
 * make fuzz, in the guest: epochs of fresh backing file systems and
 * fuse-bpf mounts, hostile servers (fuzz_srv.c), filters with random
 * members (fuse_ops maps, fuzz_filters.c) replaced and with random verdicts
 * changed while workers (fuzz_ops.c) run random system calls on them.
 * After each epoch everything is taken down and checked: the kernel log
 * (tests/kernel-log-check.sh), the mounts and backing file systems
 * unmountable, ext4 clean (e2fsck -fn), the BPF programs and fuse_ops maps
 * back to what the run holds, no program run of a member that no filter of
 * the epoch has, or for another op than its own. Prints TAP 13 (three
 * cases) so make check can count it.
 *
 *   fuzz [-s SECONDS] [-S SEED] [-e EPOCH_SECONDS] [-w WORKERS] [-f FIRST_EPOCH] [-n EPOCHS]
 *        [-x KIND,...]
 *
 * -x leaves out mount kinds (served, view, stacked; none): by default those
 * of open bugs that tests/guest/fuzz_found.c has as TODO (FZ_OPEN_BUGS), so
 * that a run finds new bugs instead of the known one again.
 *
 * FUZZ_SECONDS and FUZZ_SEED in the environment are the defaults of -s and
 * -S (75 s; a seed from the clock). Epoch k of seed S makes the same
 * choices in every run: -S S -f k -n 1 replays it alone.
 */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <grp.h>
#include <inttypes.h>
#include <linux/bpf.h>
#include <linux/loop.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "fusebpf_uapi.h"
#include "fuzz.h"
#include "tap.h"
#include "tfuse.h"

#ifndef FUSE_BPF_USER_FILTER
#define FUSE_BPF_USER_FILTER 1
#define FUSE_BPF_BACKING 2
#define FUSE_BPF_POST_FILTER 4
#define FUSE_BPF_DROP_ENTRY 8
#endif
#ifndef FUSE_BPF_NO_ENTRY_FILTER
#define FUSE_BPF_NO_ENTRY_FILTER 16
#endif

#define FZ_DIR "/tmp/fz"
/* Rings: the workers', the servers', the replacer's, the policy changer's */
#define FZ_NRINGS (FZ_MAX_WORKERS + FZ_MAX_MOUNTS + 2)
#define FZ_RING_REPLACER (FZ_NRINGS - 2)
/* Mount kinds of open bugs (fuzz_found's TODO cases), comma-separated: none */
#define FZ_OPEN_BUGS ""

struct fz_opts {
	long seconds;
	uint64_t seed;
	long epoch_seconds;
	int workers;
	uint32_t first;
	long epochs;		/* 0: until the time is up */
	const char *exclude;	/* mount kinds left out */
};

/* The whole run's state. */
static struct {
	struct fz_opts o;
	int sock_prog, nprogs_base, nprogs_run, nmaps_base, nmaps_run;
	struct fz_ring *rings;	/* shared: workers, servers, the replacer, the policy changer */
	volatile int *stop;
	struct fz_shared *sh;
	int kmsg;
	char klog_check[512];
	pid_t worker[FZ_MAX_WORKERS], policy, replacer;
	uint32_t replacer_gen;
	struct fz_epoch e;
	/* totals */
	uint64_t ops, server_replies, restarts, aborts, remounts, mounts;
	uint32_t epochs_done, killed;
	uint64_t setid_checks, umount_busy, umount_done;
	uint64_t replaced, replace_none, remounted, refused;
	char problem[256];
} F;

static double fz_secs(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec + now.tv_nsec / 1e9;
}

static time_t fz_now(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec;
}

/* --- the ring ------------------------------------------------------------------------ */

void fz_log(struct fz_ring *ring, const char *fmt, ...)
{
	char *slot = ring->op[ring->next % FZ_RING];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(slot, FZ_DESC, fmt, ap);
	va_end(ap);
	__atomic_add_fetch(&ring->next, 1, __ATOMIC_SEQ_CST);
}

void fz_done(struct fz_ring *ring, long ret, int err)
{
	char *slot = ring->op[(ring->next - 1) % FZ_RING];
	size_t n = strnlen(slot, FZ_DESC);

	if (ret < 0)
		snprintf(slot + n, FZ_DESC - n, " = %ld %s", ret, strerrorname_np(err) ?: "?");
	else
		snprintf(slot + n, FZ_DESC - n, " = %ld", ret);
}

void fz_ring_dump(const struct fz_ring *ring)
{
	uint32_t n = ring->next, first = n > FZ_RING ? n - FZ_RING : 0;

	if (!n)
		return;
	printf("# --- %s (pid %d): the last %u of %u operations\n", ring->who, ring->pid, n - first, n);
	for (uint32_t i = first; i < n; i++)
		printf("#   %u: %.*s\n", i, FZ_DESC, ring->op[i % FZ_RING]);
}

static void fz_dump_all(void)
{
	printf("# seed %#" PRIx64 " epoch %u: replay with -S %#" PRIx64 " -f %u -n 1\n", F.o.seed,
	       F.e.epoch, F.o.seed, F.e.epoch);
	for (int i = 0; i < FZ_NRINGS; i++)
		fz_ring_dump(&F.rings[i]);
	fflush(stdout);
}

static void fz_problem(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fz_problem(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(F.problem, sizeof(F.problem), fmt, ap);
	va_end(ap);
	printf("# FAIL epoch %u: %s\n", F.e.epoch, F.problem);
	fflush(stdout);
}

/* --- verdicts ------------------------------------------------------------------------ */

int32_t fz_verdict_value(struct fz_rng *r, bool post)
{
	static const int32_t errs[] = { -ENOENT, -EACCES, -EPERM, -EIO, -ENOSPC, -EROFS, -ENOSYS,
					-ECHILD, -EINTR, -EAGAIN, -EEXIST, -EXDEV, -ENOTDIR, -EISDIR,
					-EINVAL, -ENAMETOOLONG, -EOVERFLOW };
	static const int32_t odd[] = { -512, -516, -529, -511, -4095, -4096, -1000000, 3, 7, 16, 255,
				       1000, 0x7fffffff, (int32_t)0x80000000, FUSE_BPF_DROP_ENTRY,
				       FUSE_BPF_USER_FILTER | FUSE_BPF_POST_FILTER,
				       FUSE_BPF_USER_FILTER | FUSE_BPF_NO_ENTRY_FILTER,
				       FUSE_BPF_DROP_ENTRY | FUSE_BPF_NO_ENTRY_FILTER };
	uint32_t p = fz_below(r, 100);

	if (post) {
		if (p < 60)
			return 0;
		if (p < 80)
			return FZ_PICK(r, errs);
		if (p < 88)
			return FUSE_BPF_USER_FILTER;
		return FZ_PICK(r, odd);
	}
	if (p < 35)
		return FUSE_BPF_BACKING;
	if (p < 40)
		return 0;
	if (p < 45)
		return FUSE_BPF_BACKING | FUSE_BPF_NO_ENTRY_FILTER |
		       (fz_below(r, 2) ? FUSE_BPF_POST_FILTER : 0);
	if (p < 65)
		return FUSE_BPF_BACKING | FUSE_BPF_POST_FILTER;
	if (p < 73)
		return FUSE_BPF_USER_FILTER;
	if (p < 88)
		return FZ_PICK(r, errs);
	return FZ_PICK(r, odd);
}

void fz_verdict_row(struct fz_rng *r, struct fz_verdict *v)
{
	uint32_t p = fz_below(r, 100);

	*v = (struct fz_verdict){
		.pre = fz_verdict_value(r, false),
		.post = fz_verdict_value(r, true),
		.entry = p < 60 ? 0 : p < 80 ? FUSE_BPF_DROP_ENTRY : fz_verdict_value(r, true),
		.arg = fz_below(r, 3),
		.off = fz_below(r, 128),
		.xor = 1 + fz_below(r, 255),
		.size = fz_chance(r, 70) ? fz_below(r, 48) : fz_below(r, 128),
	};
	for (int i = 0; i < 4; i++)
		if (fz_chance(r, 12))
			v->flags |= 1u << i;
}

static void fz_verdicts_benign(void)
{
	struct fz_verdict v = { .pre = FUSE_BPF_BACKING };

	for (uint32_t op = 0; op < 2 * FZ_MAX_OP; op++)
		bpf_map_update_elem(F.e.verdict_fd, &op, &v, BPF_ANY);
}

/* The policy changer: rows rewritten while the workers run. */
static void fz_policy(void)
{
	struct fz_rng r;
	struct fz_ring *ring = &F.rings[FZ_NRINGS - 1];

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	fz_seed(&r, F.o.seed, F.e.epoch, FZ_ROLE_POLICY, 0);
	snprintf(ring->who, sizeof(ring->who), "policy");
	ring->pid = getpid();
	while (!*F.stop) {
		struct fz_verdict v;
		uint32_t op = fz_chance(&r, 95) ? fz_below(&r, 52) : fz_below(&r, FZ_MAX_OP);
		/* rows FZ_MAX_OP + op are the second program's (fz2) */
		uint32_t row = op + (fz_chance(&r, 40) ? FZ_MAX_OP : 0);

		if (fz_chance(&r, 5)) {
			fz_log(ring, "all benign");
			fz_verdicts_benign();
		} else {
			fz_verdict_row(&r, &v);
			fz_log(ring, "%sop %s: pre %d post %d entry %d flags %#x arg %u off %u size %u",
			       row >= FZ_MAX_OP ? "fz2 " : "", tfuse_opname(op), v.pre, v.post, v.entry,
			       v.flags, v.arg, v.off, v.size);
			bpf_map_update_elem(F.e.verdict_fd, &row, &v, BPF_ANY);
		}
		usleep(1000 * fz_below(&r, 60));
	}
	_exit(0);
}

/* --- programs ------------------------------------------------------------------------ */

static int fz_count_progs(void)
{
	uint32_t id = 0;
	int n = 0;

	while (!bpf_prog_get_next_id(id, &id))
		n++;
	return n;
}

/* The filter's object, and a program of another type (a socket filter) for bad replies. */
static int fz_load_programs(void)
{
	struct bpf_insn ret0[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int rc;

	if (access("/sys/fs/fuse/features/fuse_bpf", F_OK))
		return -ENOENT;
	rc = fz_filters_load(&F.e);
	if (rc)
		return rc;
	F.sock_prog = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "fz_sock", "GPL", ret0, 2, NULL);
	return F.sock_prog < 0 ? -errno : 0;
}

/* --- the kernel log ------------------------------------------------------------------- */

/* New kernel log lines since the last call, into path; their number. */
static int fz_kmsg_drain(const char *path)
{
	FILE *f = fopen(path, "w");
	char rec[2048];
	int n = 0;

	for (;;) {
		ssize_t len = read(F.kmsg, rec, sizeof(rec) - 1);
		char *msg;

		if (len < 0 && errno == EPIPE)
			continue;	/* overwritten records */
		if (len <= 0)
			break;
		rec[len] = 0;
		msg = strchr(rec, ';');
		if (f)
			fputs(msg ? msg + 1 : rec, f);
		n++;
	}
	if (f)
		fclose(f);
	return n;
}

/* 0, or 1 when the epoch's kernel log has a report (printed). */
static int fz_kernel_log_check(void)
{
	char path[128], cmd[768], *out = NULL;
	size_t cap = 0;
	FILE *p;
	int bad = 0;

	snprintf(path, sizeof(path), "%s/klog", FZ_DIR);
	fz_kmsg_drain(path);
	snprintf(cmd, sizeof(cmd), "bash %s %s", F.klog_check, path);
	p = popen(cmd, "r");
	if (!p)
		return 0;
	while (getline(&out, &cap, p) > 0) {
		if (!bad)
			printf("# kernel report in epoch %u:\n", F.e.epoch);
		printf("#   %s", out);
		bad = 1;
	}
	free(out);
	pclose(p);
	if (bad)
		fz_problem("a kernel report (the log above; the console log has the rest)");
	return bad;
}

/* --- backing file systems and mounts ------------------------------------------------- */

unsigned char *fz_id_bin;
size_t fz_id_len;

/*
 * The tree every backing file system starts an epoch with (no processes:
 * they are slow here). "d" is a second subtree for the renames and links
 * between directories that a server gave different filters (op_xrename);
 * s<tag><i> are root worker i's set-id helpers (op_setid), a name no
 * other operation uses.
 */
int fz_populate(const char *dir, char tag)
{
	static const char *const dirs[] = { "", "sub", "sub/sub", "d" };
	char big[70000];
	char p[160];
	int rc = 0;

	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (char)(i * 131 + (i >> 9));
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, dirs[i]);
		if (i && mkdir(p, 0777))
			return -errno;
		chmod(p, 0777);
	}
#define FZ_AT(name) (snprintf(p, sizeof(p), "%s/%s", dir, name), p)
	rc |= write_file(FZ_AT("a"), big, sizeof(big));
	rc |= write_file(FZ_AT("sub/a"), big, 5000);
	rc |= write_file(FZ_AT("x.txt"), "hello\n", 6);
	rc |= write_file(FZ_AT("b"), "b\n", 2);
	rc |= symlink("a", FZ_AT("lnk"));
	rc |= symlink("../x.txt", FZ_AT("sub/lnk"));
	rc |= mknod(FZ_AT("fifo"), S_IFIFO | 0666, 0);
	rc |= write_file(FZ_AT("d/x.txt"), "d\n", 2);
	chmod(FZ_AT("d/x.txt"), 0666);
	if (tag == 's') {
		/* worker 0's to watch (op_umount): names no other op uses, which servers back here */
		rc |= write_file(FZ_AT("w0"), "w0\n", 3);
		rc |= mkdir(FZ_AT("wd"), 0777);
		rc |= write_file(FZ_AT("wd/f"), "f\n", 2);
	}
	for (int i = 0; fz_id_len && i < FZ_MAX_WORKERS; i += 2) {
		char name[16];

		snprintf(name, sizeof(name), "s%c%d", tag, i);
		rc |= write_file(FZ_AT(name), fz_id_bin, fz_id_len);
		chmod(p, 0755);
	}
	setxattr(FZ_AT("a"), "user.fz", "1", 1, 0);
	chmod(FZ_AT("a"), 0666);
	chmod(FZ_AT("b"), 0666);
	chmod(FZ_AT("x.txt"), 0666);
	chmod(FZ_AT("sub/a"), 0666);
#undef FZ_AT
	return rc ? -EIO : 0;
}

/* Copy the holes of src as holes (a fresh ext4 image is mostly holes). */
static int fz_copy_sparse(const char *src, const char *dst)
{
	int in = open(src, O_RDONLY | O_CLOEXEC), out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	off_t data = 0, hole, size;
	int rc = -EIO;

	if (in < 0 || out < 0)
		goto out;
	size = lseek(in, 0, SEEK_END);
	if (ftruncate(out, size))
		goto out;
	while ((data = lseek(in, data, SEEK_DATA)) >= 0) {
		hole = lseek(in, data, SEEK_HOLE);
		for (loff_t i = data, o = data; i < hole;) {
			ssize_t n = copy_file_range(in, &i, out, &o, hole - i, 0);

			if (n <= 0)
				goto out;
		}
		data = hole;
	}
	rc = 0;
out:
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return rc;
}

/* Mount the ext4 image img at dir through a free loop device (autoclear). */
static int fz_mount_loop(const char *img, const char *dir)
{
	struct loop_config cfg = { .info = { .lo_flags = LO_FLAGS_AUTOCLEAR } };
	int ctl, n, loop, imgfd, rc = -EIO;
	char dev[32];

	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0)
		return -errno;
	n = ioctl(ctl, LOOP_CTL_GET_FREE);
	close(ctl);
	if (n < 0)
		return -errno;
	snprintf(dev, sizeof(dev), "/dev/loop%d", n);
	loop = open(dev, O_RDWR | O_CLOEXEC);
	imgfd = open(img, O_RDWR | O_CLOEXEC);
	cfg.fd = imgfd;
	if (loop >= 0 && imgfd >= 0 && !ioctl(loop, LOOP_CONFIGURE, &cfg))
		rc = mount(dev, dir, "ext4", 0, "user_xattr") ? -errno : 0;
	if (imgfd >= 0)
		close(imgfd);
	if (loop >= 0)
		close(loop);
	return rc;
}

int fz_mount_spare(struct fz_epoch *e)
{
	if (mount("tmpfs", e->spare, "tmpfs", 0, "size=16m,mode=0777"))
		return -errno;
	return fz_populate(e->spare, 's');
}

static int fz_backings(void)
{
	struct fz_epoch *e = &F.e;
	char img[96];
	int rc;

	if (snprintf(e->ext4, sizeof(e->ext4), "%s/ext4", e->dir) >= (int)sizeof(e->ext4) ||
	    snprintf(e->tmpfs, sizeof(e->tmpfs), "%s/tmpfs", e->dir) >= (int)sizeof(e->tmpfs) ||
	    snprintf(e->spare, sizeof(e->spare), "%s/spare", e->dir) >= (int)sizeof(e->spare) ||
	    snprintf(img, sizeof(img), "%s/ext4.img", e->dir) >= (int)sizeof(img))
		return -ENAMETOOLONG;
	if (mkdir(e->dir, 0755) || mkdir(e->ext4, 0777) || mkdir(e->tmpfs, 0777) ||
	    mkdir(e->spare, 0777))
		return -errno;
	rc = fz_copy_sparse(FZ_DIR "/pristine.img", img);
	if (!rc)
		rc = fz_mount_loop(img, e->ext4);
	if (!rc && mount("tmpfs", e->tmpfs, "tmpfs", 0, "size=64m,mode=0777"))
		rc = -errno;
	if (!rc)
		rc = fz_populate(e->ext4, 'e');
	if (!rc)
		rc = fz_populate(e->tmpfs, 't');
	if (!rc)
		rc = fz_mount_spare(e);
	return rc;
}

static int fz_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

/* The fusectl directory of the FUSE mount at path (from mountinfo). */
static void fz_conn_of(struct fz_mount *m)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char line[1024];
	unsigned int maj, min;

	m->conn[0] = 0;
	while (f && fgets(line, sizeof(line), f)) {
		char mnt[256];

		if (sscanf(line, "%*d %*d %u:%u %*s %255s", &maj, &min, mnt) == 3 &&
		    !strcmp(mnt, m->path))
			snprintf(m->conn, sizeof(m->conn), "/sys/fs/fuse/connections/%u", min);
	}
	if (f)
		fclose(f);
}

static void fz_abort(struct fz_mount *m)
{
	char path[96];

	if (!m->conn[0])
		return;
	snprintf(path, sizeof(path), "%s/abort", m->conn);
	write_file(path, "1", 1);
}

static const char *fz_kind_name(const struct fz_mount *m)
{
	return m->kind == FZ_SERVED ? "served" : m->kind == FZ_VIEW ? "view" : "stacked";
}

/* Mount m (its kind, backing and flags chosen) at m->path. */
static int fz_mount(struct fz_mount *m)
{
	char opts[256];
	int dirfd = -1, fd;
	size_t n;

	n = snprintf(opts, sizeof(opts), "allow_other");
	if (m->kind != FZ_SERVED) {
		dirfd = open(m->backing, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dirfd < 0)
			return -errno;
		n += snprintf(opts + n, sizeof(opts) - n, ",root_dir=%d", dirfd);
		if (m->filtered)
			n += snprintf(opts + n, sizeof(opts) - n, ",root_bpf=%d",
				      F.e.filter[m->root_filter].fd);
		if (m->no_daemon)
			snprintf(opts + n, sizeof(opts) - n, ",no_daemon");
	}
	fd = tfuse_mount(m->path, opts);
	if (dirfd >= 0)
		close(dirfd);
	if (fd < 0)
		return fd;
	m->used = true;
	if (m->no_daemon) {
		close(fd);
		fd = -1;
	}
	m->fuse_fd = fd;
	fz_conn_of(m);
	F.mounts++;
	return 0;
}

static void fz_start_server(struct fz_mount *m, uint32_t idx)
{
	if (m->fuse_fd < 0)
		return;
	m->server = fork();
	if (m->server == 0)
		fz_server(&F.e, m, idx);
}

static int fz_reap(pid_t *pid, time_t deadline);

/* Where a task that would not die waits: its kernel stack, and every blocked task's */
static void fz_show_stuck(pid_t pid, const char *what)
{
	char path[64], buf[4096];
	int fd;
	ssize_t n;

	printf("# %s %d still alive 30 s after SIGKILL; its kernel stack:\n", what, pid);
	snprintf(path, sizeof(path), "/proc/%d/stack", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = 0;
	printf("%s\n", n > 0 ? buf : "(no /proc/PID/stack)");
	write_file("/proc/sysrq-trigger", "w", 1);
}

/*
 * SIGKILL m's server and reap it.  A server may be stuck on its own mount
 * (a path it opened reached a name another task's lookup waits on the
 * server for): only an abort of the connection frees it, as for any FUSE
 * server.  One that does not die 30 s after that is a hang in the kernel:
 * reported, and left behind rather than waited for forever.
 */
static void fz_kill(struct fz_mount *m)
{
	pid_t p = m->server;

	if (p <= 0)
		return;
	kill(p, SIGKILL);
	if (fz_reap(&m->server, fz_now() + 2)) {
		fz_abort(m);
		if (fz_reap(&m->server, fz_now() + 30)) {
			fz_show_stuck(p, "server");
			fz_problem("a killed server would not die (a hang)");
		}
	}
	m->server = -1;
}

static bool fz_excluded(enum fz_kind kind)
{
	static const char *const names[] = { "served", "view", "stacked" };
	const char *x = F.o.exclude;
	size_t len = strlen(names[kind]);

	for (const char *p = x; p && (p = strstr(p, names[kind])); p += len)
		if ((p == x || p[-1] == ',') && (p[len] == ',' || !p[len]))
			return true;
	return false;
}

/* m's mount point, and its backing by its kind; -ENAMETOOLONG when one does not fit. */
static int fz_mount_paths(const struct fz_epoch *e, struct fz_mount *m, int i, struct fz_rng *r)
{
	int n = snprintf(m->path, sizeof(m->path), "%s/m%d", e->dir, i);

	if (n < 0 || (size_t)n >= sizeof(m->path))
		return -ENAMETOOLONG;
	n = 0;
	if (m->kind == FZ_VIEW)
		n = snprintf(m->backing, sizeof(m->backing), "%s%s", fz_chance(r, 50) ? e->ext4 : e->tmpfs,
			     fz_chance(r, 20) ? "/sub" : "");
	else if (m->kind == FZ_STACKED)
		n = snprintf(m->backing, sizeof(m->backing), "%s", e->m[0].path);
	return n < 0 || (size_t)n >= sizeof(m->backing) ? -ENAMETOOLONG : 0;
}

/* Plan and mount the epoch's views. */
static int fz_mounts(struct fz_rng *r)
{
	struct fz_epoch *e = &F.e;
	int want = 1 + fz_below(r, 3), rc;

	for (int i = 0; i < want; i++) {
		struct fz_mount *m = &e->m[i];
		uint32_t p = fz_below(r, 100);

		*m = (struct fz_mount){ .fuse_fd = -1, .server = -1, .ring = &F.rings[FZ_MAX_WORKERS + i] };
		m->kind = p < 40 ? FZ_SERVED : (p < 85 || i == 0) ? FZ_VIEW : FZ_STACKED;
		if (m->kind == FZ_STACKED && e->m[0].kind != FZ_VIEW)
			m->kind = FZ_VIEW;
		for (int k = 0; k < 3 && fz_excluded(m->kind); k++)
			m->kind = (m->kind + 1) % 3;
		if (m->kind == FZ_STACKED && (e->m[0].kind != FZ_VIEW || !i))
			m->kind = FZ_VIEW;
		if (fz_excluded(m->kind))
			return -EINVAL;	/* every kind excluded */
		m->filtered = m->kind != FZ_SERVED && fz_chance(r, 80);
		m->root_filter = fz_below(r, e->nfilters);
		m->no_daemon = m->kind != FZ_SERVED && fz_chance(r, 30);
		m->bad_pct = (int[]){ 2, 10, 30, 70 }[fz_below(r, 4)];
		m->drop_pct = fz_chance(r, 60) ? 0 : (int)fz_below(r, 4);
		rc = fz_mount_paths(e, m, i, r);
		if (rc)
			return rc;
		snprintf(m->ring->who, sizeof(m->ring->who), "server m%d", i);
		if (mkdir(m->path, 0777) && errno != EEXIST)
			return -errno;
		rc = fz_mount(m);
		if (rc) {
			printf("# epoch %u: mounting m%d (%s of %s): %s\n", e->epoch, i, fz_kind_name(m),
			       m->backing, strerror(-rc));
			return rc;
		}
		e->nmounts++;
	}
	return 0;
}

/* --- the pool of fds a server may name ----------------------------------------------- */

static void fz_pool_add(const char *what, int fd)
{
	struct fz_epoch *e = &F.e;

	if (fd < 0 || e->npool == FZ_MAX_POOL) {
		if (fd >= 0)
			close(fd);
		return;
	}
	snprintf(e->pool[e->npool].what, sizeof(e->pool[0].what), "%s", what);
	e->pool[e->npool++].fd = fd;
}

static int fz_openat(const char *dir, const char *name, int flags)
{
	char path[192];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return open(path, flags | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
}

static void fz_pool(void)
{
	struct fz_epoch *e = &F.e;
	int p[2], sv[2];

	e->npool = 0;
	fz_pool_add("ext4 file", fz_openat(e->ext4, "a", O_RDONLY));
	fz_pool_add("tmpfs file", fz_openat(e->tmpfs, "a", O_RDWR));
	fz_pool_add("ext4 dir", fz_openat(e->ext4, "sub", O_RDONLY | O_DIRECTORY));
	fz_pool_add("tmpfs dir", fz_openat(e->tmpfs, "sub", O_RDONLY | O_DIRECTORY));
	fz_pool_add("symlink O_PATH", fz_openat(e->ext4, "lnk", O_PATH | O_NOFOLLOW));
	fz_pool_add("file O_PATH", fz_openat(e->tmpfs, "x.txt", O_PATH));
	fz_pool_add("dir O_PATH", fz_openat(e->ext4, ".", O_PATH));
	fz_pool_add("fifo O_PATH", fz_openat(e->tmpfs, "fifo", O_PATH));
	fz_pool_add("fifo", fz_openat(e->tmpfs, "fifo", O_RDONLY));
	fz_pool_add("eventfd", eventfd(0, EFD_CLOEXEC));
	if (!pipe2(p, O_CLOEXEC)) {
		fz_pool_add("pipe r", p[0]);
		fz_pool_add("pipe w", p[1]);
	}
	if (!socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		fz_pool_add("socket", sv[0]);
		close(sv[1]);
	}
	fz_pool_add("/proc/self/status", open("/proc/self/status", O_RDONLY | O_CLOEXEC));
	fz_pool_add("/proc", open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
	fz_pool_add("/sys file", open("/sys/fs/fuse/features/fuse_bpf", O_RDONLY | O_CLOEXEC));
	fz_pool_add("/sys dir", open("/sys/fs/fuse", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
	fz_pool_add("/dev/null", open("/dev/null", O_RDWR | O_CLOEXEC));
	fz_pool_add("memfd", memfd_create("fz", MFD_CLOEXEC));
	fz_pool_add("socket prog", dup(F.sock_prog));
	fz_pool_add("fuse_ops map", dup(e->filter[0].fd));
	fz_pool_add("member prog", dup(e->member_prog_fd));
	fz_pool_add("map", dup(e->verdict_fd));
	for (int i = 0; i < e->nmounts; i++) {
		struct fz_mount *m = &e->m[i];

		/* O_PATH: no request to a server, so no wait on one */
		fz_pool_add("fuse root O_PATH", open(m->path, O_PATH | O_CLOEXEC));
		if (m->fuse_fd >= 0)
			fz_pool_add("/dev/fuse", dup(m->fuse_fd));
		if (m->kind != FZ_SERVED && m->no_daemon) {
			/* Another fuse-bpf mount's files; verdicts are benign until the workers start */
			fz_pool_add("view file", fz_openat(m->path, "a", O_RDONLY));
			fz_pool_add("view dir", fz_openat(m->path, "sub", O_RDONLY | O_DIRECTORY));
		}
	}
}

static void fz_pool_close(void)
{
	for (int i = 0; i < F.e.npool; i++)
		close(F.e.pool[i].fd);
	F.e.npool = 0;
}

/* --- an epoch -------------------------------------------------------------------------- */

/* The replacer, with the driver's fds as they are now (a remount changes them) */
static void fz_replacer_start(void)
{
	F.replacer = fork();
	if (F.replacer == 0)
		fz_replacer(&F.e, &F.rings[FZ_RING_REPLACER], F.replacer_gen);
	F.replacer_gen++;
}

/* Before a remount: the replacer's fds will be stale (it is reaped with the epoch's strays) */
static void fz_replacer_kill(void)
{
	if (F.replacer > 0)
		kill(F.replacer, SIGKILL);
	F.replacer = -1;
}

static void fz_start_workers(void)
{
	for (int i = 0; i < F.e.nworkers; i++) {
		uid_t uid = i % 2 ? FZ_UNPRIV : 0;

		F.worker[i] = fork();
		if (F.worker[i])
			continue;
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		/* No /dev/fuse or pool fds: killing a server must end its connection */
		close_range(3, ~0U, 0);
		if (uid && (setgroups(0, NULL) || setresgid(uid, uid, uid) || setresuid(uid, uid, uid)))
			_exit(1);
		fz_worker(&F.e, i, uid, &F.rings[i]);
	}
	F.policy = fork();
	if (F.policy == 0)
		fz_policy();
	F.replacer_gen = 0;
	fz_replacer_start();
}

/* Abort m's connection and mount it afresh, with a new server. */
static void fz_remount(struct fz_mount *m, const char *why)
{
	struct fz_epoch *e = &F.e;

	printf("# epoch %u: %s (%s) aborted and mounted afresh: %s\n", e->epoch, m->path,
	       fz_kind_name(m), why);
	fz_replacer_kill();
	fz_abort(m);
	fz_kill(m);
	if (m->fuse_fd >= 0)
		close(m->fuse_fd);
	m->fuse_fd = -1;
	umount2(m->path, MNT_DETACH);
	m->used = false;
	F.aborts++;
	if (!fz_mount(m)) {
		F.remounts++;
		m->restarts++;
		fz_start_server(m, m - e->m);
	}
	fz_replacer_start();
}

/* Now and then during the epoch: a server killed and restarted, a connection aborted and remounted. */
static void fz_chaos(struct fz_rng *r)
{
	struct fz_epoch *e = &F.e;
	struct fz_mount *m = &e->m[fz_below(r, e->nmounts)];
	uint32_t p = fz_below(r, 1000);

	if (p < 15 && m->server > 0) {
		printf("# epoch %u: server of %s killed and restarted\n", e->epoch, m->path);
		fz_kill(m);
		m->restarts++;
		F.restarts++;
		fz_start_server(m, m - e->m);
	} else if (p < 20 && m->kind == FZ_SERVED) {
		fz_remount(m, "at random");
	}
}

/*
 * Workers that made no progress for 2 s wait for replies that will not
 * come (a dropped request, a killed server's): abort the served mounts and
 * mount them afresh, so that the epoch goes on.
 */
static void fz_unstall(uint32_t *last, time_t *since)
{
	struct fz_epoch *e = &F.e;
	int stalled = 0;

	for (int i = 0; i < e->nworkers; i++) {
		if (F.rings[i].next != last[i]) {
			last[i] = F.rings[i].next;
			since[i] = fz_now();
		} else if (fz_now() - since[i] >= 2) {
			stalled++;
		}
	}
	if (stalled * 2 < e->nworkers)
		return;
	for (int i = 0; i < e->nmounts; i++)
		if (e->m[i].fuse_fd >= 0)
			fz_remount(&e->m[i], "workers stalled");
	for (int i = 0; i < e->nworkers; i++)
		since[i] = fz_now();
}

/* Wait for pid until deadline (a CLOCK_MONOTONIC second); 0 when it was reaped. */
static int fz_reap(pid_t *pid, time_t deadline)
{
	struct timespec now;

	while (*pid > 0) {
		if (waitpid(*pid, NULL, WNOHANG) == *pid) {
			*pid = -1;
			return 0;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec >= deadline)
			return -1;
		usleep(20000);
	}
	return 0;
}

/* Stop workers, the policy changer and the servers; -1 when something would not die. */
static int fz_stop_all(void)
{
	struct fz_epoch *e = &F.e;
	time_t deadline = fz_now() + 2;
	int left = 0;

	*F.stop = 1;
	for (int i = 0; i < e->nworkers; i++)
		fz_reap(&F.worker[i], deadline);
	fz_reap(&F.policy, deadline);
	fz_reap(&F.replacer, deadline);
	/* Requests a server read and never answered: only an abort ends them */
	for (int i = 0; i < e->nmounts; i++) {
		fz_abort(&e->m[i]);
		fz_kill(&e->m[i]);
	}
	for (int i = 0; i < e->nworkers; i++)
		if (F.worker[i] > 0) {
			kill(F.worker[i], SIGKILL);
			F.killed++;
		}
	if (F.policy > 0)
		kill(F.policy, SIGKILL);
	fz_replacer_kill();
	deadline = fz_now() + 30;
	fz_reap(&F.policy, deadline);
	for (int i = 0; i < e->nworkers; i++)
		left += fz_reap(&F.worker[i], deadline) ? 1 : 0;
	/*
	 * The workers' own children (op_setid's execs and unprivileged writers,
	 * killed with their worker: PDEATHSIG) come to us (a subreaper): they
	 * must be gone before the views are unmounted
	 */
	for (pid_t pid; !left && (pid = waitpid(-1, NULL, WNOHANG)) != -1;) {
		if (pid > 0)
			continue;
		if (fz_now() >= deadline) {
			left = -1;
			break;
		}
		usleep(20000);
	}
	if (left < 0) {
		printf("# epoch %u: a worker's child or a replacer still alive 30 s after the aborts and SIGKILL; "
		       "blocked tasks:\n", e->epoch);
		write_file("/proc/sysrq-trigger", "w", 1);
		fz_problem("a worker's child or a replacer would not die (a hang)");
		return -1;
	}
	if (left) {
		printf("# epoch %u: %d worker(s) still alive 30 s after the aborts and SIGKILL; blocked tasks:\n",
		       e->epoch, left);
		write_file("/proc/sysrq-trigger", "w", 1);
		fz_problem("%d worker(s) would not die (a hang)", left);
		return -1;
	}
	return 0;
}

/*
 * After the unmounts and the epoch's filters detached and closed: the
 * run's programs and fuse_ops maps (the object's), nothing the kernel
 * kept. Programs and maps are freed after an RCU grace period or so.
 */
static int fz_leak_check(bool report)
{
	int progs = 0, maps = 0;

	for (int tries = 0; tries < 50; tries++) {
		progs = fz_count_progs();
		maps = fz_count_fuse_ops_maps();
		if (progs == F.nprogs_run && maps == F.nmaps_run)
			return 0;
		usleep(100000);
	}
	if (!report)
		return -1;
	if (progs != F.nprogs_run)
		fz_problem("%d BPF programs after the epoch, %d before (leaked references)", progs,
			   F.nprogs_run);
	else
		fz_problem("%d fuse_ops maps after the epoch's unmounts and its maps' detach and close, "
			   "%d before (the kernel kept a filter)", maps, F.nmaps_run);
	return -1;
}

/* Unmount everything of the epoch and check that nothing was left holding it. */
static int fz_teardown(void)
{
	struct fz_epoch *e = &F.e;
	int rc = 0;

	fz_pool_close();
	for (int i = e->nmounts - 1; i >= 0; i--) {
		struct fz_mount *m = &e->m[i];

		if (m->fuse_fd >= 0)
			close(m->fuse_fd);
		m->fuse_fd = -1;
		if (m->used && umount2(m->path, 0)) {
			if (!rc)
				fz_problem("umount %s (%s): %s", m->path, fz_kind_name(m), strerror(errno));
			rc = -1;
			umount2(m->path, MNT_DETACH);
		}
		m->used = false;
	}
	e->nmounts = 0;
	/* worker 0 may have unmounted the spare and been killed before it mounted it again */
	if (umount2(e->ext4, 0) || umount2(e->tmpfs, 0) || (umount2(e->spare, 0) && errno != EINVAL)) {
		if (!rc)
			fz_problem("a backing file system is busy after every view is gone: %s",
				   strerror(errno));
		rc = -1;
		umount2(e->ext4, MNT_DETACH);
		umount2(e->tmpfs, MNT_DETACH);
		umount2(e->spare, MNT_DETACH);
	} else if (run("e2fsck -fn %s/ext4.img", e->dir)) {
		fz_problem("e2fsck -fn: the ext4 backing is damaged");
		rc = -1;
	}
	fz_filters_drop(e);
	if (fz_leak_check(!rc))
		rc = -1;
	nftw(e->dir, fz_rm, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
	return rc;
}

/* The epoch's filters, and the members none of them has */
static void fz_filters_line(void)
{
	struct fz_epoch *e = &F.e;
	char desc[512], one[160];
	size_t n = 0;

	for (int i = 0; i < e->nfilters && n < sizeof(desc); i++) {
		fz_filter_desc(&e->filter[i], one, sizeof(one));
		n += snprintf(desc + n, sizeof(desc) - n, "%s%d: %s", i ? "; " : "", i, one);
	}
	printf("# epoch %u: filters %s\n", e->epoch, desc);
	if (!e->unfiltered)
		return;
	n = 0;
	for (uint32_t i = 0; i < FZ_MEMBERS && n < sizeof(desc); i++)
		if (e->unfiltered & 1u << i)
			n += snprintf(desc + n, sizeof(desc) - n, " %s", fz_member_name(i));
	printf("# epoch %u: in no filter (their programs must not run):%s\n", e->epoch, desc);
}

static void fz_epoch_line(void)
{
	struct fz_epoch *e = &F.e;
	char desc[512];
	size_t n = 0;

	for (int i = 0; i < e->nmounts; i++) {
		struct fz_mount *m = &e->m[i];

		n += snprintf(desc + n, sizeof(desc) - n, "%s%s", i ? "; " : "", fz_kind_name(m));
		if (m->kind != FZ_SERVED)
			n += snprintf(desc + n, sizeof(desc) - n, " of %s",
				      m->backing + strlen(e->dir) + 1);
		if (m->filtered)
			n += snprintf(desc + n, sizeof(desc) - n, " filter %d", m->root_filter);
		if (m->no_daemon)
			n += snprintf(desc + n, sizeof(desc) - n, " no_daemon");
		if (m->fuse_fd >= 0)
			n += snprintf(desc + n, sizeof(desc) - n, " bad %d%% drop %d%%", m->bad_pct,
				      m->drop_pct);
	}
	printf("# epoch %u: %s; %d workers\n", e->epoch, desc, e->nworkers);
	fz_filters_line();
	fflush(stdout);
}

/* The epoch's counts of what the workers and the replacer did, into the run's */
static void fz_epoch_counts(void)
{
	struct fz_shared *sh = F.sh;

	if (sh->setid_checks || sh->umount_busy || sh->umount_done)
		printf("# epoch %u: %u set-id execs checked; backing umounts under watches: %u busy, %u let through\n",
		       F.e.epoch, sh->setid_checks, sh->umount_busy, sh->umount_done);
	printf("# epoch %u: filters replaced %u times by the ioctl (%u found none running the old), %u by "
	       "remounts; %u refused as they must be\n", F.e.epoch, sh->replaced, sh->replace_none,
	       sh->remounted, sh->refused);
	F.setid_checks += sh->setid_checks;
	F.umount_busy += sh->umount_busy;
	F.umount_done += sh->umount_done;
	F.replaced += sh->replaced;
	F.replace_none += sh->replace_none;
	F.remounted += sh->remounted;
	F.refused += sh->refused;
}

/*
 * After the epoch: no program ran for a member that no filter had, and
 * none for an op that is not its member's (counters before the epoch given).
 */
static int fz_member_check(uint64_t unfiltered, uint64_t wrong)
{
	uint64_t u = fz_unfiltered_runs(&F.e), w = fz_filter_count(false, 0, 1);

	if (u != unfiltered) {
		fz_problem("%" PRIu64 " runs of the programs of members that no filter of the epoch has",
			   u - unfiltered);
		return -1;
	}
	if (w != wrong) {
		fz_problem("%" PRIu64 " runs of a member's program for another op", w - wrong);
		return -1;
	}
	return 0;
}

static int fz_epoch(uint32_t epoch)
{
	struct fz_epoch *e = &F.e;
	struct fz_rng r;
	uint64_t ops = 0, replies = 0, unfiltered, wrong;
	uint32_t killed, last[FZ_MAX_WORKERS];
	time_t end, since[FZ_MAX_WORKERS];
	double t0, t1, t2, t3;
	int rc;

	memset(F.rings, 0, FZ_NRINGS * sizeof(*F.rings));
	memset(F.sh, 0, sizeof(*F.sh));
	e->epoch = epoch;
	e->nmounts = 0;
	e->nworkers = F.o.workers;
	t0 = fz_secs();
	fz_seed(&r, e->seed, epoch, FZ_ROLE_PLAN, 0);
	snprintf(e->dir, sizeof(e->dir), "%s/e%u", FZ_DIR, epoch);
	fz_verdicts_benign();
	rc = fz_backings();
	if (!rc)
		rc = fz_filters_make(e, &r);
	unfiltered = fz_unfiltered_runs(e);
	wrong = fz_filter_count(false, 0, 1);
	if (!rc)
		rc = fz_mounts(&r);
	if (rc) {
		fz_problem("setting up: %s", strerror(-rc));
		fz_teardown();
		return -1;
	}
	fz_pool();
	for (int i = 0; i < e->nmounts; i++)
		fz_start_server(&e->m[i], i);
	fz_epoch_line();
	t1 = fz_secs();
	fz_start_workers();
	end = fz_now() + F.o.epoch_seconds;
	for (int i = 0; i < e->nworkers; i++) {
		last[i] = 0;
		since[i] = fz_now();
	}
	while (fz_now() < end) {
		usleep(100000);
		fz_chaos(&r);
		fz_unstall(last, since);
	}
	killed = F.killed;
	t2 = fz_secs();
	rc = fz_stop_all();
	t3 = fz_secs();
	for (int i = 0; i < FZ_MAX_WORKERS; i++)
		ops += F.rings[i].next;
	for (int i = 0; i < FZ_MAX_MOUNTS; i++)
		replies += F.rings[FZ_MAX_WORKERS + i].next;
	F.ops += ops;
	F.server_replies += replies;
	printf("# epoch %u: %" PRIu64 " system calls, %" PRIu64 " server replies, %u worker(s) still busy at the end\n",
	       epoch, ops, replies, F.killed - killed);
	if (rc) {
		fz_dump_all();
		return -1;
	}
	fz_epoch_counts();
	if (getenv("FUZZ_DUMP_RINGS"))	/* debugging the fuzzer: every epoch's last operations */
		fz_dump_all();
	rc = fz_teardown();
	rc |= fz_kernel_log_check();
	rc |= fz_member_check(unfiltered, wrong);
	if (F.sh->oracle[0]) {
		fz_problem("%.*s", (int)sizeof(F.sh->oracle), F.sh->oracle);
		rc = -1;
	}
	printf("# epoch %u: set up %.1f s, ran %.1f s, stopped %.1f s, checked %.1f s\n", epoch, t1 - t0,
	       t2 - t1, t3 - t2, fz_secs() - t3);
	if (rc) {
		fz_dump_all();
		return -1;
	}
	F.epochs_done++;
	return 0;
}

/* --- the run ----------------------------------------------------------------------------- */

static int fz_parse(int argc, char **argv, struct fz_opts *o)
{
	const char *env;
	int c;

	*o = (struct fz_opts){ .seconds = 75, .epoch_seconds = 6, .workers = 4, .exclude = FZ_OPEN_BUGS };
	env = getenv("FUZZ_SECONDS");
	if (env && *env)
		o->seconds = strtol(env, NULL, 0);
	env = getenv("FUZZ_SEED");
	if (env && *env)
		o->seed = strtoull(env, NULL, 0);
	else
		o->seed = (uint64_t)time(NULL) * 1000003 ^ (uint64_t)getpid() << 20;
	env = getenv("FUZZ_EXCLUDE");
	if (env && *env)
		o->exclude = env;
	while ((c = getopt(argc, argv, "s:S:e:w:f:n:x:")) != -1) {
		switch (c) {
		case 's': o->seconds = strtol(optarg, NULL, 0); break;
		case 'S': o->seed = strtoull(optarg, NULL, 0); break;
		case 'e': o->epoch_seconds = strtol(optarg, NULL, 0); break;
		case 'w': o->workers = atoi(optarg); break;
		case 'f': o->first = strtoul(optarg, NULL, 0); break;
		case 'n': o->epochs = strtol(optarg, NULL, 0); break;
		case 'x': o->exclude = optarg; break;
		default:
			fprintf(stderr, "usage: fuzz [-s SECONDS] [-S SEED] [-e EPOCH_SECONDS] [-w WORKERS] "
				"[-f FIRST_EPOCH] [-n EPOCHS] [-x KIND,...]\n");
			return -1;
		}
	}
	if (o->seconds < 1 || o->epoch_seconds < 1 || o->workers < 1 || o->workers > FZ_MAX_WORKERS) {
		fprintf(stderr, "fuzz: SECONDS and EPOCH_SECONDS must be >= 1, WORKERS 1..%d\n",
			FZ_MAX_WORKERS);
		return -1;
	}
	return 0;
}

/* The set-id helper, build/tests/fuzz/fz-id next to this binary (op_setid is left out without it) */
static void fz_load_id(void)
{
	char exe[384], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 16);
	struct stat st;
	int fd;

	exe[n > 0 ? n : 0] = 0;
	slash = strrchr(exe, '/');
	if (!slash)
		return;
	strcpy(slash + 1, "fz-id");
	fd = open(exe, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) || st.st_size <= 0 || st.st_size > 1 << 20 ||
	    !(fz_id_bin = malloc(st.st_size)) || read(fd, fz_id_bin, st.st_size) != st.st_size) {
		printf("# %s: %s: set-id execs left out\n", exe, strerror(errno));
		free(fz_id_bin);
		fz_id_bin = NULL;
	} else {
		fz_id_len = st.st_size;
	}
	if (fd >= 0)
		close(fd);
}

/* tests/kernel-log-check.sh, from build/tests/fuzz/fuzz */
static void fz_find_klog_check(void)
{
	char exe[384];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	exe[n > 0 ? n : 0] = 0;
	for (int i = 0; i < 4; i++) {
		char *slash = strrchr(exe, '/');

		if (slash)
			*slash = 0;
	}
	snprintf(F.klog_check, sizeof(F.klog_check) - 1, "%s/tests/kernel-log-check.sh", exe);
}

static int fz_setup(void)
{
	size_t rings = FZ_NRINGS * sizeof(*F.rings);
	int rc;

	F.rings = mmap(NULL, rings + 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (F.rings == MAP_FAILED)
		return -ENOMEM;
	F.sh = (struct fz_shared *)((char *)F.rings + rings);
	F.stop = &F.sh->stop;
	F.e.seed = F.o.seed;
	F.e.stop = F.stop;
	F.e.sh = F.sh;
	fz_load_id();
	fz_find_klog_check();
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	F.kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (F.kmsg < 0)
		return -errno;
	lseek(F.kmsg, 0, SEEK_END);
	mkdir(FZ_DIR, 0755);
	if (mount("tmpfs", FZ_DIR, "tmpfs", 0, "mode=0755,size=512m"))
		return -errno;
	if (run("truncate -s 32M %s/pristine.img && mkfs.ext4 -q -F -b 4096 %s/pristine.img", FZ_DIR, FZ_DIR))
		return -EIO;
	F.nprogs_base = fz_count_progs();
	F.nmaps_base = fz_count_fuse_ops_maps();
	rc = fz_load_programs();
	F.nprogs_run = fz_count_progs();
	F.nmaps_run = fz_count_fuse_ops_maps();
	return rc;
}

/* After the last epoch's unmounts and the object closed: no program, no fuse_ops map left */
static int fz_final_leaks(void)
{
	int n = 0, maps = 0;

	fz_filters_unload();
	close(F.sock_prog);
	for (int tries = 0; tries < 50; tries++) {
		n = fz_count_progs();
		maps = fz_count_fuse_ops_maps();
		if (n == F.nprogs_base && maps == F.nmaps_base)
			break;
		usleep(100000);
	}
	if (n != F.nprogs_base || maps != F.nmaps_base) {
		printf("# %d BPF programs and %d fuse_ops maps at the end, %d and %d before the run\n", n,
		       maps, F.nprogs_base, F.nmaps_base);
		return -1;
	}
	if (umount2(FZ_DIR, 0)) {
		printf("# umount %s: %s\n", FZ_DIR, strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t pre = 0, post = 0, entry = 0;
	time_t end;
	int rc, bad = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (fz_parse(argc, argv, &F.o))
		return 2;
	printf("TAP version 13\n1..3\n");
	printf("# fuzz: seed %#" PRIx64 " (FUZZ_SEED), %ld s, epochs of %ld s from %u, %d workers, "
	       "without: %s\n", F.o.seed, F.o.seconds, F.o.epoch_seconds, F.o.first, F.o.workers,
	       F.o.exclude);
	rc = fz_setup();
	if (rc == -ENOENT) {
		for (int i = 1; i <= 3; i++)
			printf("ok %d fuzz # SKIP no fuse-bpf filters in this kernel\n", i);
		return 0;
	}
	if (rc) {
		printf("# setting up: %s\n", strerror(-rc));
		for (int i = 1; i <= 3; i++)
			printf("not ok %d fuzz\n", i);
		return 1;
	}
	end = fz_now() + F.o.seconds;
	for (uint32_t ep = F.o.first; fz_now() < end; ep++) {
		if (F.o.epochs && ep - F.o.first >= F.o.epochs)
			break;
		if (fz_epoch(ep)) {
			bad = 1;
			break;
		}
	}
	pre = fz_filter_count(true, 0, FZ_MAX_OP);
	post = fz_filter_count(true, FZ_MAX_OP, 2 * FZ_MAX_OP);
	entry = fz_filter_count(true, 2 * FZ_MAX_OP, 3 * FZ_MAX_OP);
	printf("# %u epochs, %" PRIu64 " mounts (%" PRIu64 " remounted after an abort), %" PRIu64
	       " system calls, %" PRIu64 " server replies, %" PRIu64 " server restarts; filter runs: %" PRIu64
	       " pre, %" PRIu64 " post, %" PRIu64 " entry\n",
	       F.epochs_done, F.mounts, F.remounts, F.ops, F.server_replies, F.restarts, pre, post, entry);
	printf("# %" PRIu64 " set-id execs checked against the backing; backing umounts under watches: %" PRIu64
	       " refused (busy), %" PRIu64 " let through\n", F.setid_checks, F.umount_busy, F.umount_done);
	printf("# filters replaced: %" PRIu64 " by the ioctl (%" PRIu64 " found none running the old map), %"
	       PRIu64 " by remounts with root_bpf=; %" PRIu64 " refused as they must be\n", F.replaced,
	       F.replace_none, F.remounted, F.refused);
	printf("%sok 1 fuzz-epochs seed %#" PRIx64 "%s%s\n", bad ? "not " : "", F.o.seed,
	       bad ? ": " : "", bad ? F.problem : "");
	if (bad) {
		printf("ok 2 fuzz-no-leaks-at-end # SKIP the run failed\n");
	} else {
		rc = fz_final_leaks();
		printf("%sok 2 fuzz-no-leaks-at-end\n", rc ? "not " : "");
		bad |= rc != 0;
	}
	if (bad) {
		printf("ok 3 fuzz-did-work # SKIP the run failed\n");
		return 1;
	}
	/* A run that never reached the kernel's fuse-bpf paths proves nothing */
	rc = F.ops > 1000 * F.epochs_done && F.server_replies && pre && post && entry &&
	     F.replaced + F.remounted;
	printf("%sok 3 fuzz-did-work\n", rc ? "" : "not ");
	return rc ? 0 : 1;
}
