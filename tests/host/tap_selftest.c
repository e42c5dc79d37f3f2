// SPDX-License-Identifier: GPL-2.0
/*
 * The test harness itself: a failing, a crashing and a skipping case are
 * reported as such, diagnostics appear only for failures, and tap-count.sh
 * counts what the harness printed (a suite that dies half way included).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"

static int c_pass(void)
{
	puts("noise that must stay hidden");
	return TAP_OK;
}

static int c_fail(void)
{
	int ret = TAP_FAIL;

	EXPECT(1 + 1 == 3, "arithmetic is %s", "fine");
	ret = TAP_OK;
out:
	return ret;
}

static int c_crash(void)
{
	raise(SIGSEGV);
	return TAP_OK;
}

static int c_skip(void)
{
	int ret = TAP_FAIL;

	SKIP("no %s here", "widget");
out:
	return ret;
}

static int c_todo_broken(void)
{
	int ret = TAP_FAIL;

	TODO("a known %s", "bug");
	EXPECT(1 + 1 == 3, "still broken");
	ret = TAP_OK;
out:
	return ret;
}

static int c_todo_fixed(void)
{
	TODO("a fixed bug");
	return TAP_OK;
}

static const struct tap_case inner[] = {
	{ "passes", c_pass },
	{ "fails", c_fail },
	{ "crashes", c_crash },
	{ "skips", c_skip },
	{ "todo_broken", c_todo_broken },
	{ "todo_fixed", c_todo_fixed },
};

/* Run the inner suite in a child and capture what it prints. */
static int run_inner(char *buf, size_t cap, int *status, const char *only)
{
	char *argv[] = { "inner", (char *)only, NULL };
	int p[2];
	size_t got = 0;
	ssize_t r;
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		_exit(tap_main("inner", inner, 6, only ? 2 : 1, argv));
	}
	close(p[1]);
	while (got + 1 < cap && (r = read(p[0], buf + got, cap - 1 - got)) > 0)
		got += r;
	buf[got] = 0;
	close(p[0]);
	waitpid(pid, status, 0);
	return 0;
}

static int t_reports_each_outcome(void)
{
	char out[8192];
	int ret = TAP_FAIL, status;

	EXPECT(run_inner(out, sizeof(out), &status, NULL) == 0);
	EXPECT(strstr(out, "TAP version 13\n"), "%s", out);
	EXPECT(strstr(out, "1..6\n"), "%s", out);
	EXPECT(strstr(out, "ok 1 passes\n"), "%s", out);
	EXPECT(strstr(out, "not ok 2 fails\n"), "%s", out);
	EXPECT(strstr(out, "# tests/host/tap_selftest.c:"), "no diagnostic with its place: %s", out);
	EXPECT(strstr(out, "arithmetic is fine"), "%s", out);
	EXPECT(strstr(out, "not ok 3 crashes\n# case died: signal 11"), "%s", out);
	EXPECT(strstr(out, "ok 4 skips # SKIP no widget here\n"), "%s", out);
	EXPECT(!strstr(out, "noise"), "a passing case's output leaked: %s", out);
	EXPECT(strstr(out, "not ok 5 todo_broken # TODO a known bug\n# tests/host/tap_selftest.c:"),
	       "%s", out);
	EXPECT(strstr(out, "still broken"), "%s", out);
	EXPECT(strstr(out, "ok 6 todo_fixed # TODO a fixed bug\n# TODO case passed"), "%s", out);
	EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 1, "exit status %d", status);
	ret = TAP_OK;
out:
	return ret;
}

/* A failing TODO case alone does not fail the suite. */
static int t_todo_does_not_fail(void)
{
	char out[4096];
	int ret = TAP_FAIL, status;

	EXPECT(run_inner(out, sizeof(out), &status, "todo") == 0);
	EXPECT(strstr(out, "1..2\nnot ok 1 todo_broken # TODO a known bug\n"), "%s", out);
	EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0, "exit status %d: %s", status, out);
	ret = TAP_OK;
out:
	return ret;
}

static int t_filter_by_name(void)
{
	char out[4096];
	int ret = TAP_FAIL, status;

	EXPECT(run_inner(out, sizeof(out), &status, "pass") == 0);
	EXPECT(strstr(out, "1..1\nok 1 passes\n"), "%s", out);
	EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ret = TAP_OK;
out:
	return ret;
}

static int t_count(void)
{
	const char *a_tap = "1..3\nok 1 a\nnot ok 2 b\nok 3 c # SKIP x\n";
	const char *b_tap = "1..3\nok 1 a\n";
	const char *c_tap = "1..2\nnot ok 1 d # TODO bug\nok 2 e # TODO bug\n";
	char dir[] = "/tmp/tapcount-XXXXXX", cmd[512], got[64];
	int ret = TAP_FAIL;

	EXPECT(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "%s/a.tap", dir);
	EXPECT(write_file(cmd, a_tap, strlen(a_tap)) == 0);
	snprintf(cmd, sizeof(cmd), "%s/b.tap", dir);
	/* died after its first case: two planned results missing */
	EXPECT(write_file(cmd, b_tap, strlen(b_tap)) == 0);
	snprintf(cmd, sizeof(cmd), "%s/c.tap", dir);
	/* a known bug is not a failure */
	EXPECT(write_file(cmd, c_tap, strlen(c_tap)) == 0);
	snprintf(cmd, sizeof(cmd), "tests/tap-count.sh %s/a.tap %s/b.tap %s/c.tap > %s/count", dir,
		 dir, dir, dir);
	EXPECT(run("%s", cmd) == 0);
	snprintf(cmd, sizeof(cmd), "%s/count", dir);
	EXPECT(read_file(cmd, got, sizeof(got)) > 0);
	EXPECT(strcmp(got, "4 3 1\n") == 0, "counted '%s', expected '4 3 1'", got);
	ret = TAP_OK;
out:
	run("rm -rf %s", dir);
	return ret;
}

/* The kernel-log scan that fails make check: real reports yes, noise no. */
static int t_kernel_log_check(void)
{
	static const char *bad[] = {
		"[    3.1] WARNING: CPU: 0 PID: 80 at fs/fuse/dir.c:123 fuse_x+0x1/0x2",
		"[    3.1] BUG: kernel NULL pointer dereference, address: 0000000000000008",
		"[    3.1] Oops: 0002 [#1] PREEMPT SMP",
		"[    3.1] BUG: KASAN: use-after-free in fuse_y+0x1/0x2",
		"[    3.1] UBSAN: shift-out-of-bounds in fs/fuse/file.c:9:1",
		"[    3.1] refcount_t: underflow; use-after-free.",
		"[    3.1] Kernel panic - not syncing: Fatal exception",
		/*
		 * The debug kernel's reports (kernel/fusebpf-debug.config),
		 * each without the "WARNING:"/"BUG:" that usually starts
		 * it, as when another CPU's output splits the line: each
		 * pattern has to match on its own.
		 */
		"[    3.1] possible circular locking dependency detected",
		"[    3.1] possible recursive locking detected",
		"[    3.1] inconsistent lock state",
		"[    3.1] suspicious RCU usage.",
		"[    3.1] possible irq lock inversion dependency detected",
		"[    3.1] bad unlock balance detected!",
		"[    3.1] held lock freed!",
		"[    3.1] lock held when returning to user space!",
		"[    3.1] turning off the locking correctness validator.",
		"[    3.1] sleeping function called from invalid context at kernel/locking/mutex.c:580",
		"[    3.1] KASAN: slab-out-of-bounds in fuse_z+0x1/0x2",
		"[  245.1] INFO: task fusebpfctl:123 blocked for more than 120 seconds.",
		"[  245.1] task:fusebpfctl blocked for more than 120 seconds.",
		"[    3.1] list_add corruption. prev->next should be next (ffff888003a1b2c0), but was 0000000000000000.",
		"[    3.1] list_del corruption, ffff888003a1b2c0->next is LIST_POISON1 (dead000000000100)",
		/* and as the debug kernel prints them */
		"[    3.1] WARNING: possible circular locking dependency detected",
		"[    3.1] BUG: sleeping function called from invalid context at fs/fuse/dir.c:12",
	};
	/* A clean log, with the debug kernel's boot lines about KASAN and lockdep. */
	static const char *fine =
		"[    0.1] Linux version 6.1.192-fusebpf\n[    0.2] fuse: init (API version 7.37)\n"
		"[    0.3] EXT4-fs (loop0): mounted filesystem\n"
		"[    0.0] kasan: KernelAddressSanitizer initialized (generic)\n"
		"[    0.0] Lock dependency validator: Copyright (c) 2006 Red Hat, Inc., Ingo Molnar\n"
		"[    0.0] ... MAX_LOCKDEP_SUBCLASSES:  8\n"
		"[    0.0]  memory used by lock dependency info: 6365 kB\n"
		"[    0.0] stackdepot: allocating hash table via alloc_large_system_hash\n";
	char path[] = "/tmp/klog-XXXXXX";
	int ret = TAP_FAIL, fd = mkstemp(path);
	size_t i;

	EXPECT(fd >= 0);
	close(fd);
	EXPECT(write_file(path, fine, strlen(fine)) == 0);
	EXPECT(run("tests/kernel-log-check.sh %s", path) == 0, "a clean log was flagged");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char log[2048];

		snprintf(log, sizeof(log), "%s%s\n", fine, bad[i]);
		EXPECT(write_file(path, log, strlen(log)) == 0);
		EXPECT(system(NULL) && run("! tests/kernel-log-check.sh %s >/dev/null", path) == 0,
		       "not flagged: %s", bad[i]);
	}
	ret = TAP_OK;
out:
	unlink(path);
	return ret;
}

static const struct tap_case cases[] = {
	{ "kernel_log_check_flags_reports", t_kernel_log_check },
	{ "reports_pass_fail_crash_skip", t_reports_each_outcome },
	{ "runs_only_matching_cases", t_filter_by_name },
	{ "todo_failure_does_not_fail_suite", t_todo_does_not_fail },
	{ "tap_count_counts_missing_results", t_count },
};

TAP_MAIN("tap_selftest", cases)
