// SPDX-License-Identifier: GPL-2.0
/*
 * make stress, and its short run in make check: several processes change a
 * fuse-bpf view of an ext4 tree at once while its filter's policies switch
 * live, others change the backing tree directly, others walk the views; then
 * the backing tree must hold exactly what the logged return values say, the
 * views must show it, nothing may be left mounted or pinned, and e2fsck must
 * find the file system clean. The kernel log is checked by the host.
 *
 *	STRESS_SECONDS	the run's length (default 60, split over the cases)
 *	STRESS_SEED	the seed (default: from the clock; printed)
 *	STRESS_WORKERS, STRESS_MUTATORS, STRESS_WALKERS	process counts (3, 2, 2)
 *
 * The processes and the model are in stress_work.c and stress_model.c; the
 * design is in docs/testing.md.
 */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "stress.h"
#include "tap.h"
#include "tctl.h"
#include "tproc.h"

#define TOP	"/tmp/stress"
#define FILTER	"stress"

static uint64_t seed;
static unsigned seconds, nworkers = 3, nmutators = 2, nwalkers = 2;
static int report_fd = -1;	/* the suite's stdout: a summary line per run */

static void report(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void report(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdprintf(report_fd, fmt, ap);
	va_end(ap);
}

static int count_progs(void)
{
	__u32 id = 0;
	int n = 0;

	while (!bpf_prog_get_next_id(id, &id))
		n++;
	return n;
}

/* Unmount and remove whatever an earlier run left; quiet. */
static void scrub(void)
{
	run("for m in " TOP "/view " TOP "/plain; do %s detach $m; done >/dev/null 2>&1; "
	    "%s unload --force " FILTER " >/dev/null 2>&1; "
	    "umount " TOP "/view " TOP "/plain " TOP "/back 2>/dev/null; rm -rf " TOP "; true",
	    ctl_path, ctl_path);
}

/* ext4 on a loop device in RAM (/tmp is tmpfs), with the shared directories. */
static int make_backing(void)
{
	return run("mkdir -p " TOP "/back " TOP "/view " TOP "/plain " TOP "/log && "
		   "truncate -s 256M " TOP "/ext4.img && mkfs.ext4 -q -F " TOP "/ext4.img && "
		   "mount -o loop " TOP "/ext4.img " TOP "/back && "
		   "mkdir -m 0777 " TOP "/back/d0 " TOP "/back/d1 " TOP "/back/d2 " TOP "/back/d3");
}

static pid_t spawn(int (*fn)(const struct st_config *, int), const struct st_config *cfg, int id)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(fn(cfg, id));
	return pid;
}

static int switcher_main(const struct st_config *cfg, int id)
{
	(void)id;
	return st_switcher(cfg);
}

/*
 * Wait for the processes; those still running a grace period after the
 * deadline are hung: show their kernel stacks (and every blocked task's, in
 * the kernel log), kill them. Returns the number of processes that failed.
 */
static int wait_all(pid_t *pids, const char **names, int n, uint64_t deadline_ns, bool *hung)
{
	uint64_t give_up = deadline_ns + (60ULL + seconds / 4) * 1000000000ULL;
	int left = n, failed = 0, i, status;

	*hung = false;
	while (left > 0) {
		pid_t pid = waitpid(-1, &status, WNOHANG);

		if (pid <= 0) {
			if (st_now_ns() > give_up)
				break;
			usleep(100000);
			continue;
		}
		for (i = 0; i < n; i++)
			if (pids[i] == pid) {
				pids[i] = 0;
				left--;
				if (!WIFEXITED(status) || WEXITSTATUS(status)) {
					printf("stress: %s failed (status %#x)\n", names[i], status);
					failed++;
				}
			}
	}
	if (!left)
		return failed;
	*hung = true;
	run("echo w > /proc/sysrq-trigger");
	for (i = 0; i < n; i++) {
		char cmd[256];

		if (!pids[i])
			continue;
		printf("stress: %s (pid %d) hangs: still running %llu s after the deadline\n",
		       names[i], pids[i], (unsigned long long)(st_now_ns() - deadline_ns) / 1000000000ULL);
		snprintf(cmd, sizeof(cmd), "sed 's/^/    /' /proc/%d/stack", pids[i]);
		if (system(cmd))
			printf("    (no stack)\n");
		kill(pids[i], SIGKILL);
		failed++;
	}
	return failed;
}

/* Successful ops, all ops and ESTALE results in the changers' logs. */
static void count_ops(long *ok, long *all, long *stale)
{
	char path[PATH_MAX], line[2048];
	struct dirent *de;
	struct st_rec r;
	DIR *d = opendir(TOP "/log");

	*ok = *all = *stale = 0;
	while (d && (de = readdir(d))) {
		FILE *f;

		if (de->d_name[0] != 'w' && de->d_name[0] != 'b')
			continue;
		snprintf(path, sizeof(path), TOP "/log/%s", de->d_name);
		f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f)) {
			if (st_rec_parse(line, &r))
				continue;
			(*all)++;
			*ok += !r.err;
			*stale += r.err == ESTALE;
		}
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
}

/* Replay every changer's log into one model: the tree the ops made. */
static int replay(struct st_model *m)
{
	char path[PATH_MAX], line[2048];
	struct dirent *de;
	struct st_rec r;
	DIR *d = opendir(TOP "/log");
	int bad = 0, ret;

	if (!d || st_model_init(m))
		return -1;
	while ((de = readdir(d))) {
		FILE *f;
		int lineno = 0;

		if (de->d_name[0] != 'w' && de->d_name[0] != 'b')
			continue;
		snprintf(path, sizeof(path), TOP "/log/%s", de->d_name);
		f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f)) {
			lineno++;
			if (st_rec_parse(line, &r)) {
				printf("stress: %s:%d: cannot parse: %s", de->d_name, lineno, line);
				bad++;
				continue;
			}
			if (r.err && !(r.op == OP_WRITE && r.a))
				continue;
			ret = st_apply(m, &r);
			if (ret && bad++ < 10)
				printf("stress: %s:%d: the model refuses a logged success (%s): %s",
				       de->d_name, lineno, strerror(-ret), line);
		}
		if (f)
			fclose(f);
	}
	closedir(d);
	return bad;
}

static int check_tree(const struct st_model *m, const char *root, const char *what)
{
	int n;

	n = st_compare(m, root, TOP "/log", stdout);
	if (n)
		printf("stress: %s (%s): %d difference(s) from the logged ops\n", what, root, n);
	return n;
}

/* Nothing of the run left: mounts, records, pins, programs. */
static int leftovers(int progs_before)
{
	int bad = 0, i, now = 0;

	if (run("! grep -E ' " TOP "/(view|plain) ' /proc/mounts")) {
		printf("stress: mounts left behind\n");
		bad++;
	}
	if (run("! ls /run/fusebpf/mounts 2>/dev/null | grep -q 'stress.*json'")) {
		printf("stress: mount records left in /run/fusebpf/mounts\n");
		bad++;
	}
	if (!access("/sys/fs/bpf/fusebpf/" FILTER, F_OK)) {
		printf("stress: /sys/fs/bpf/fusebpf/" FILTER " is still pinned\n");
		bad++;
	}
	/* Programs are freed after an RCU grace period. */
	for (i = 0; i < 50; i++) {
		now = count_progs();
		if (now <= progs_before)
			break;
		usleep(100000);
	}
	if (now > progs_before) {
		printf("stress: %d BPF programs before the run, %d after\n", progs_before, now);
		bad++;
	}
	return bad;
}

/* Keep the logs where the host finds them ($TAP_DIR, make check/stress). */
static void keep_logs(const char *name)
{
	const char *dir = getenv("TAP_DIR");

	if (dir && run("mkdir -p %s/stress-%s && cp -r " TOP "/log " TOP "/switcher.out %s/stress-%s/ 2>/dev/null; true",
		       dir, name, dir, name) == 0)
		printf("stress: logs kept in %s/stress-%s\n", dir, name);
}

/*
 * One run: the backing, the filter, two views (attach_args: how the
 * filtered one is made), the processes for secs seconds, then the checks.
 */
static int stress_run(const char *name, const char *attach_args, unsigned secs)
{
	struct st_config cfg = {
		.seed = seed, .seconds = secs, .view = TOP "/view", .plain = TOP "/plain",
		.back = TOP "/back", .logdir = TOP "/log", .ctl = ctl_path, .filter = FILTER,
	};
	int ret = TAP_FAIL, progs = count_progs(), n = 0, i, failed, diffs = 0;
	pid_t pids[64];
	const char *names[64];
	char namebuf[64][24];
	struct st_model m = { 0 };
	bool hung = false, mounted = false;
	long ops_ok, ops_all, ops_stale;

	printf("stress %s: STRESS_SEED=%" PRIu64 " STRESS_SECONDS=%u (this case: %u s)\n", name,
	       seed, seconds, secs);
	scrub();
	EXPECT(make_backing() == 0, "the ext4 backing");
	EXPECT(run("%s load fusebpf --name " FILTER " --policies none --hide-suffix .h --mode +1000",
		   ctl_path) == 0, "fusebpfctl load");
	EXPECT(run("%s attach " TOP "/view " TOP "/back %s", ctl_path, attach_args) == 0,
	       "fusebpfctl attach (filtered view)");
	mounted = true;
	EXPECT(run("%s attach " TOP "/plain " TOP "/back", ctl_path) == 0, "fusebpfctl attach (plain view)");

	cfg.sh = mmap(NULL, sizeof(*cfg.sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	EXPECT(cfg.sh != MAP_FAILED);
	cfg.deadline_ns = st_now_ns() + (uint64_t)secs * 1000000000ULL;
	pids[n] = spawn(switcher_main, &cfg, 0);
	names[n++] = "the policy switcher";
	for (i = 0; i < (int)nworkers; i++, n++) {
		snprintf(namebuf[n], sizeof(namebuf[n]), "worker w%d", i);
		names[n] = namebuf[n];
		pids[n] = spawn(st_worker, &cfg, i);
	}
	for (i = 0; i < (int)nmutators; i++, n++) {
		snprintf(namebuf[n], sizeof(namebuf[n]), "mutator b%d", i);
		names[n] = namebuf[n];
		pids[n] = spawn(st_mutator, &cfg, i);
	}
	for (i = 0; i < (int)nwalkers; i++, n++) {
		snprintf(namebuf[n], sizeof(namebuf[n]), "walker %d", i);
		names[n] = namebuf[n];
		pids[n] = spawn(st_walker, &cfg, i);
	}
	failed = wait_all(pids, names, n, cfg.deadline_ns, &hung);
	EXPECT(!hung, "a process hung");
	count_ops(&ops_ok, &ops_all, &ops_stale);
	report("# stress %s: seed %" PRIu64 ", %u s: %ld ops (%ld succeeded, %ld ESTALE), %" PRIu64
	       " policy switches, %" PRIu64 " directories listed, %" PRIu64 " files read and checked\n",
	       name, seed, secs, ops_all, ops_ok, ops_stale, cfg.sh->switches, cfg.sh->dirs_listed,
	       cfg.sh->files_read);

	EXPECT(run("%s policy " FILTER " policies none", ctl_path) == 0, "policies none at the end");
	EXPECT(replay(&m) == 0, "the logs replay");
	diffs += check_tree(&m, TOP "/back", "the backing tree");
	diffs += check_tree(&m, TOP "/view", "the filtered view");
	diffs += check_tree(&m, TOP "/plain", "the plain view");

	EXPECT(run("%s detach " TOP "/view && %s detach " TOP "/plain", ctl_path, ctl_path) == 0, "detach");
	mounted = false;
	EXPECT(run("%s unload " FILTER, ctl_path) == 0, "unload");
	EXPECT(leftovers(progs) == 0);
	EXPECT(run("umount " TOP "/back") == 0, "the backing unmounts");
	EXPECT(run("e2fsck -fn " TOP "/ext4.img") == 0, "e2fsck -fn");
	EXPECT(failed == 0, "%d process(es) failed", failed);
	EXPECT(diffs == 0, "%d difference(s)", diffs);
	EXPECT(ops_ok >= 100 && cfg.sh->switches >= 5 && cfg.sh->files_read >= 10,
	       "too little work done to mean anything");
	ret = TAP_OK;
out:
	if (ret != TAP_OK) {
		printf("stress %s: replay with STRESS_SEED=%" PRIu64 " STRESS_SECONDS=%u\n", name, seed,
		       seconds);
		keep_logs(name);
	}
	st_model_free(&m);
	if (!hung || !mounted)
		scrub();
	return ret;
}

/* The kernel does everything: the root is backed and filtered at mount time. */
static int t_root_filter(void)
{
	return stress_run("root_filter", "--filter " FILTER, (seconds + 1) / 2);
}

/*
 * fusebpfctl serves the root and answers the LOOKUPs of d0..d3 with their
 * backing directories and the filter: renames between them cross from one
 * backed subtree to another.
 */
static int t_at_subtrees(void)
{
	return stress_run("at_subtrees", "--at d0=" FILTER " --at d1=" FILTER " --at d2=" FILTER
			  " --at d3=" FILTER, seconds / 2 ? seconds / 2 : 1);
}

#define SELF TOP "-self"

/* Apply r to the model, and do it on the tree under SELF. */
static int self_op(struct st_model *m, enum st_op op, const char *p, const char *q,
		   const struct st_version *v)
{
	struct st_rec r = { .op = op, .via = 'b' };
	char fp[PATH_MAX], fq[PATH_MAX];
	uint8_t buf[4096];
	int ret = -1;

	snprintf(r.p, sizeof(r.p), "%s", p);
	snprintf(r.q, sizeof(r.q), "%s", q ? q : "");
	snprintf(fp, sizeof(fp), SELF "/%s", p);
	snprintf(fq, sizeof(fq), SELF "/%s", q ? q : "");
	switch (op) {
	case OP_CREATE:
		r.a = v->owner, r.b = v->fid, r.c = v->ver, r.d = v->len;
		st_fill(v, buf);
		ret = write_file(fp, buf, v->len);
		if (!ret && st_apply(m, &r) == 0) {
			r.op = OP_WRITE;
			r.a = v->len;
		}
		break;
	case OP_LINK:
		ret = link(fp, fq);
		break;
	case OP_SYMLINK:
		ret = symlink(p, fq);
		break;
	case OP_MKDIR:
		ret = mkdir(fp, 0755);
		break;
	default:
		break;
	}
	return ret ? -1 : st_apply(m, &r);
}

/* The checker sees what it must: a tree that differs from the model fails. */
static int t_checker_catches(void)
{
	static const struct st_version v = { 1, 2, 3, 1000 };
	struct st_model m = { 0 };
	char *text = NULL;
	size_t len = 0;
	int ret = TAP_FAIL, n;
	FILE *out = NULL;

	run("rm -rf " SELF);
	OK(run("mkdir -p " SELF "/d0 " SELF "/d1 " SELF "/d2 " SELF "/d3 " SELF "/lost+found"));
	OK(run("chown -R 0:0 " SELF));
	OK(st_model_init(&m));
	OK(self_op(&m, OP_CREATE, "d0/w0-f1", NULL, &v));
	OK(self_op(&m, OP_LINK, "d0/w0-f1", "d1/w0-f2", NULL));
	OK(self_op(&m, OP_SYMLINK, "tgt-w0-1", "d2/w0-s3", NULL));
	OK(self_op(&m, OP_MKDIR, "d3/w0-d4", NULL, NULL));
	out = open_memstream(&text, &len);
	EXPECT(out);
	n = st_compare(&m, SELF, SELF "/d3", out);
	fflush(out);
	EXPECT(n == 0, "the same tree: %d differences:\n%s", n, text);

	/* A changed byte (seen through both links), a name too many, one missing. */
	OK(run("printf X | dd of=" SELF "/d0/w0-f1 bs=1 seek=500 conv=notrunc status=none"));
	OK(run("touch " SELF "/d3/w0-d4/w0-f9 && rm " SELF "/d2/w0-s3"));
	n = st_compare(&m, SELF, SELF "/d3", out);
	fflush(out);
	EXPECT(n == 4, "%d differences, expected 4:\n%s", n, text);
	EXPECT(strstr(text, "d0/w0-f1: checksum differs") && strstr(text, "first at byte 500") &&
	       strstr(text, "d1/w0-f2: checksum differs") &&
	       strstr(text, "d3/w0-d4/w0-f9: present") && strstr(text, "d2/w0-s3: missing"),
	       "%s", text);
	ret = TAP_OK;
out:
	if (out)
		fclose(out);
	free(text);
	st_model_free(&m);
	run("rm -rf " SELF);
	return ret;
}

/* --- a policy switched in the middle of an operation ------------------------------------ */

/*
 * denywrite switched on while a file is being created, between the CREATE
 * prefilter (run without it) and the postfilter (run with it): writes
 * through the new file's handle must be refused while denywrite is in
 * force. A postfilter that tagged the handle "created through an allowed
 * name" would let every one of them pass. A frozen backing holds the
 * create between the two filter runs.
 */
static int t_deny_switched_during_create(void)
{
	int ret = TAP_FAIL, status, i, go[2] = { -1, -1 };
	bool frozen = false;
	pid_t child = -1;

	scrub();
	EXPECT(make_backing() == 0, "the ext4 backing");
	EXPECT(run("%s load fusebpf --name " FILTER " --policies none", ctl_path) == 0);
	EXPECT(run("%s attach " TOP "/view " TOP "/back --filter " FILTER, ctl_path) == 0);
	OK(pipe(go));
	OK(run("fsfreeze -f " TOP "/back"));
	frozen = true;
	child = fork();
	if (child == 0) {
		char c;
		int fd = open(TOP "/view/d0/f", O_CREAT | O_EXCL | O_RDWR, 0644);

		if (fd < 0 || read(go[0], &c, 1) != 1)
			_exit(100);
		if (write(fd, "x", 1) == 1)
			_exit(101);
		_exit(errno);
	}
	for (i = 0; i < 100 && proc_state(child) != 'D'; i++)
		usleep(100000);
	EXPECT(proc_state(child) == 'D', "the create does not wait for the frozen backing");
	EXPECT(run("%s policy " FILTER " policies denywrite", ctl_path) == 0);
	OK(run("fsfreeze -u " TOP "/back"));
	frozen = false;
	OK(write(go[1], "g", 1));
	EXPECT(waitpid(child, &status, 0) == child && WIFEXITED(status));
	child = -1;
	EXPECT(WEXITSTATUS(status) != 100, "the create failed");
	EXPECT(WEXITSTATUS(status) != 101, "a write through the new file passed while denywrite was in force");
	EXPECT(WEXITSTATUS(status) == EROFS, "the write failed with %s, expected EROFS",
	       strerror(WEXITSTATUS(status)));
	ret = TAP_OK;
out:
	if (frozen)
		run("fsfreeze -u " TOP "/back");
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	if (go[0] >= 0) {
		close(go[0]);
		close(go[1]);
	}
	scrub();
	return ret;
}

static const struct tap_case cases[] = {
	{ "deny_switched_during_create", t_deny_switched_during_create },
	{ "checker_catches", t_checker_catches },
	{ "root_filter", t_root_filter },
	{ "at_subtrees", t_at_subtrees },
};

static unsigned env_uint(const char *name, unsigned def)
{
	const char *s = getenv(name);

	return s && *s ? (unsigned)strtoul(s, NULL, 0) : def;
}

int main(int argc, char **argv)
{
	char dir[1900];	/* build/tests/guest */
	const char *s = getenv("STRESS_SEED");
	struct timespec ts;

	if (ctl_find(dir, sizeof(dir)))
		return 1;
	clock_gettime(CLOCK_REALTIME, &ts);
	seed = s && *s ? strtoull(s, NULL, 0) : (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20);
	seconds = env_uint("STRESS_SECONDS", 60);
	nworkers = env_uint("STRESS_WORKERS", nworkers);
	nmutators = env_uint("STRESS_MUTATORS", nmutators);
	nwalkers = env_uint("STRESS_WALKERS", nwalkers);
	if (nworkers + nmutators + nwalkers > 60 || !seconds) {
		fprintf(stderr, "stress: at most 60 processes and at least 1 second\n");
		return 2;
	}
	report_fd = dup(STDOUT_FILENO);
	printf("# stress: STRESS_SEED=%" PRIu64 " STRESS_SECONDS=%u\n", seed, seconds);
	return tap_main("stress", cases, sizeof(cases) / sizeof(cases[0]), argc, argv);
}
