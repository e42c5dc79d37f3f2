// SPDX-License-Identifier: GPL-2.0
/*
 * fusebpfctl end to end, as a user runs it: every command and flag, and the
 * failure paths, each with its message and exit code and nothing left mounted
 * or pinned. Each case has its own pin and state directories and mount.
 * Cases that need fuse-bpf's BPF side skip on a kernel without it; the
 * user-space server and the failure paths run on any kernel.
 */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "tctl.h"

static char reject_obj[2048];	/* build/tests/cli_reject.bpf.o */
static char supp[2048];		/* tests/guest/cli.supp */
static char objdir[2048];	/* build/tests */
static char out[1 << 16];	/* the last command's stdout and stderr */
static char pins[128], state[128], dir[128], mnt[160], back[160];

/* fusebpfctl ARGS 2>&1 (see ctl_into()); fmt must be a literal. */
#define ctl(fmt, ...) ctl_into(out, sizeof(out), "2>&1 " fmt, ##__VA_ARGS__)

static bool pinned(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", pins, name);
	return access(path, F_OK) == 0;
}

/* A fresh environment: pins, state, a backing tree and a mountpoint. */
static int setup(const char *name)
{
	snprintf(pins, sizeof(pins), "/sys/fs/bpf/cli-%s", name);
	snprintf(state, sizeof(state), "/tmp/cli-%s/state", name);
	snprintf(dir, sizeof(dir), "/tmp/cli-%s", name);
	snprintf(mnt, sizeof(mnt), "%s/mnt", dir);
	snprintf(back, sizeof(back), "%s/back", dir);
	setenv("FUSEBPF_PIN_DIR", pins, 1);
	setenv("FUSEBPF_STATE_DIR", state, 1);
	unsetenv("FUSEBPF_FORCE_NO_FUSE_BPF");
	return run("mkdir -p %s/docs %s/sub %s && echo hello > %s/a.txt && echo secret > %s/secret.txt"
		   " && echo doc > %s/docs/readme && echo dot > %s/.profile",
		   back, back, mnt, back, back, back, back);
}

/* Leaves nothing behind: detaches, unloads, removes (only what setup() made). */
static void teardown(void)
{
	if (strncmp(dir, "/tmp/cli-", 9) || strncmp(pins, "/sys/fs/bpf/cli-", 16))
		return;	/* setup() did not run: nothing of ours to remove */
	if (mounted(mnt)) {
		ctl("detach %s", mnt);
		if (mounted(mnt))
			umount2(mnt, MNT_DETACH);
	}
	run("for d in '%s'/*; do [ -d \"$d\" ] && rm -f \"$d\"/* && rmdir \"$d\"; done; "
	    "rmdir '%s'; rm -rf '%s'", pins, pins, dir);
}

static json_object *parse_out(void)
{
	return json_tokener_parse(out);
}

/* --- any kernel --------------------------------------------------------------- */

static int t_help_version_usage(void)
{
	int ret = TAP_FAIL;
	json_object *j = NULL, *v;

	EXPECT(setup("help") == 0);
	EXPECT(ctl("help") == 0 && strstr(out, "EXAMPLES") && strstr(out, "attach"));
	EXPECT(ctl("--help") == 0 && strstr(out, "Usage: fusebpfctl"));
	EXPECT(ctl("attach --help") == 0 && strstr(out, "--userspace") && strstr(out, "EXAMPLES"));
	EXPECT(ctl("help stats") == 0 && strstr(out, "--reset"));
	EXPECT(ctl("det --help") == 0 && strstr(out, "fusebpfctl detach"), "a unique prefix");
	EXPECT(ctl("l") == 2 && strstr(out, "ambiguous command 'l'"));
	EXPECT(ctl("frob") == 2 && strstr(out, "fusebpfctl: unknown command 'frob'"));
	EXPECT(ctl("") == 2 && strstr(out, "Usage"));
	EXPECT(ctl("--bogus list") == 2);
	EXPECT(ctl("version") == 0 && strstr(out, "fusebpfctl 0."));
	EXPECT(ctl("-j version 2>/dev/null") == 0);
	j = parse_out();
	EXPECT(j && json_object_object_get_ex(j, "fuse_bpf", &v));
	EXPECT(!strcmp(json_object_get_string(v), fuse_bpf() ? "supported" : "unsupported"));
	EXPECT(ctl("attach %s", mnt) == 2 && strstr(out, "MOUNTPOINT and BACKING_DIR"));
	EXPECT(ctl("stats -i 0") == 2 && strstr(out, "bad interval"));
	EXPECT(ctl("load") == 2);
	EXPECT(ctl("list extra") == 2);
	EXPECT(ctl("hide p frob") == 2 && strstr(out, "unknown subcommand"));
	EXPECT(ctl("attach %s %s --userspace --filter x", mnt, back) == 2);
	/* Usage errors under -j are JSON too. */
	EXPECT(ctl("-j attach %s 2>/dev/null", mnt) == 2);
	json_object_put(j);
	j = parse_out();
	EXPECT(j && json_object_object_get_ex(j, "error", &v), "%s", out);
	ret = TAP_OK;
out:
	json_object_put(j);
	teardown();
	return ret;
}

static int t_userspace_cycle(void)
{
	int ret = TAP_FAIL, rc;
	json_object *j = NULL, *mounts, *m, *v;
	char buf[256];

	EXPECT(setup("userspace") == 0);
	EXPECT(ctl("attach %s %s --userspace", mnt, back) == 0, "%s", out);
	EXPECT(strstr(out, "attached") && mounted(mnt));
	EXPECT(read_file(strcat(strcpy(buf, mnt), "/a.txt"), buf, sizeof(buf)) > 0 &&
	       !strcmp(buf, "hello\n"));
	EXPECT(run("echo new > %s/b.txt && grep -qx new %s/b.txt", mnt, back) == 0);
	EXPECT(run("mkdir %s/d && mv %s/b.txt %s/d/c && test -f %s/d/c && rm -r %s/d && ! test -e %s/d",
		   mnt, mnt, mnt, back, mnt, back) == 0);
	EXPECT(run("test $(ls -A %s | wc -l) = $(ls -A %s | wc -l)", mnt, back) == 0);
	EXPECT(run("ln -s a.txt %s/l && test \"$(cat %s/l)\" = hello && chmod 600 %s/a.txt && "
		   "test $(stat -c %%a %s/a.txt) = 600", mnt, mnt, mnt, back) == 0);
	EXPECT(run("dd if=/dev/urandom of=%s/big bs=64k count=40 status=none && cmp %s/big %s/big",
		   mnt, mnt, back) == 0);
	rc = splice_file(strcat(strcpy(buf, mnt), "/spliced"), O_WRONLY | O_CREAT | O_EXCL, 's', 65536);
	EXPECT(rc == 65536, "splice into a served file: %s", strerror(-rc));
	EXPECT(run("test $(tr -d s < %s/spliced | wc -c) = 0 && test $(stat -c %%s %s/spliced) = 65536",
		   back, back) == 0);
	/*
	 * An O_SYNC splice into a served file takes the inode, then the pipe,
	 * as the splice above does, and syncs after it unlocks (fuse_fsync()
	 * takes the inode lock): in the other order lockdep sees a cycle with
	 * the splice above, and a sync under the lock deadlocks.
	 */
	rc = splice_file(strcat(strcpy(buf, mnt), "/synced"), O_WRONLY | O_CREAT | O_SYNC, 'y', 65536);
	EXPECT(rc == 65536, "O_SYNC splice into a served file: %s", strerror(-rc));
	/* over the first 8 KiB (splice refuses O_APPEND files) */
	rc = splice_file(strcat(strcpy(buf, mnt), "/synced"), O_WRONLY | O_DSYNC, 'd', 8192);
	EXPECT(rc == 8192, "O_DSYNC splice into a served file: %s", strerror(-rc));
	EXPECT(run("test $(head -c 8192 %s/synced | tr -d d | wc -c) = 0 && "
		   "test $(tail -c 57344 %s/synced | tr -d y | wc -c) = 0 && "
		   "test $(stat -c %%s %s/synced) = 65536", back, back, back) == 0);
	EXPECT(run("dmesg | grep -q 'circular locking dependency'") != 0,
	       "lockdep found a circular locking dependency (dmesg)");
	EXPECT(ctl("list") == 0 && strstr(out, mnt) && strstr(out, "userspace"));
	EXPECT(ctl("-j list") == 0);
	j = parse_out();
	EXPECT(j && json_object_object_get_ex(j, "mounts", &mounts) &&
	       json_object_array_length(mounts) == 1, "%s", out);
	m = json_object_array_get_idx(mounts, 0);
	EXPECT(json_object_object_get_ex(m, "mode", &v) && !strcmp(json_object_get_string(v), "userspace"));
	EXPECT(json_object_object_get_ex(m, "alive", &v) && json_object_get_boolean(v));
	EXPECT(json_object_object_get_ex(m, "filter", &v) && !v);
	EXPECT(json_object_object_get_ex(j, "filters", &v) && json_object_is_type(v, json_type_array));
	EXPECT(ctl("-p list") == 0 && strstr(out, "\n  \"mounts\""), "pretty: %s", out);
	/* Attaching twice. */
	EXPECT(ctl("attach %s %s --userspace", mnt, back) == 1 && strstr(out, "already attached"));
	EXPECT(ctl("detach %s", mnt) == 0 && strstr(out, "detached"));
	EXPECT(!mounted(mnt), "still mounted");
	EXPECT(ctl("-j list") == 0 && strstr(out, "\"mounts\":[]"), "%s", out);
	EXPECT(ctl("detach %s", mnt) == 1 && strstr(out, "not a fusebpfctl mount"));
	ret = TAP_OK;
out:
	json_object_put(j);
	teardown();
	return ret;
}

static int t_fallback_without_fuse_bpf(void)
{
	int ret = TAP_FAIL;

	EXPECT(setup("fallback") == 0);
	setenv("FUSEBPF_FORCE_NO_FUSE_BPF", "1", 1);
	EXPECT(ctl("attach %s %s --filter private", mnt, back) == 1);
	EXPECT(strstr(out, "no fuse-bpf") && strstr(out, "--userspace"), "%s", out);
	EXPECT(!mounted(mnt));
	EXPECT(ctl("attach %s %s", mnt, back) == 0, "%s", out);
	EXPECT(strstr(out, "serving every operation in user space") && mounted(mnt));
	EXPECT(run("grep -qx hello %s/a.txt", mnt) == 0);
	EXPECT(ctl("detach %s", mnt) == 0 && !mounted(mnt));
	ret = TAP_OK;
out:
	teardown();
	return ret;
}

static int t_attach_failures(void)
{
	int ret = TAP_FAIL;
	bool tmpfs = false;

	EXPECT(setup("attachfail") == 0);
	EXPECT(ctl("attach %s %s/missing --userspace", mnt, dir) == 1);
	EXPECT(strstr(out, "fusebpfctl: attach: backing directory") &&
	       strstr(out, "No such file or directory"), "%s", out);
	EXPECT(ctl("attach %s %s/a.txt --userspace", mnt, back) == 1 && strstr(out, "Not a directory"));
	EXPECT(ctl("attach %s/nomnt %s --userspace", dir, back) == 1 && strstr(out, "mountpoint"));
	EXPECT(ctl("attach %s/docs %s --userspace", back, back) == 1 &&
	       strstr(out, "inside the backing directory"));
	if (fuse_bpf()) {
		EXPECT(ctl("attach %s %s --filter nosuch", mnt, back) == 1 &&
		       strstr(out, "filter 'nosuch' is not loaded"), "%s", out);
	}
	/* Busy: something else is mounted there. */
	EXPECT(run("mount -t tmpfs none %s", mnt) == 0);
	tmpfs = true;
	EXPECT(ctl("attach %s %s --userspace", mnt, back) == 1 && strstr(out, "already mounted"),
	       "%s", out);
	/* ... and that mount is not ours to detach. */
	EXPECT(ctl("detach %s", mnt) == 1 && strstr(out, "not a fusebpfctl mount"), "%s", out);
	EXPECT(mounted(mnt), "detach unmounted a mount that is not ours");
	EXPECT(ctl("-j detach %s 2>/dev/null", mnt) == 1 && strstr(out, "{\"error\":{"), "%s", out);
	EXPECT(umount2(mnt, 0) == 0);
	tmpfs = false;
	EXPECT(!mounted(mnt));
	ret = TAP_OK;
out:
	if (tmpfs)
		umount2(mnt, MNT_DETACH);
	teardown();
	return ret;
}

static int t_detach_after_sigkill(void)
{
	int ret = TAP_FAIL;
	json_object *j = NULL, *m, *v;
	int pid;

	EXPECT(setup("sigkill") == 0);
	EXPECT(ctl("-j attach %s %s --userspace", mnt, back) == 0);
	j = parse_out();
	EXPECT(j && json_object_object_get_ex(j, "pid", &v), "%s", out);
	pid = json_object_get_int(v);
	EXPECT(pid > 1 && kill(pid, SIGKILL) == 0);
	for (int i = 0; i < 100 && kill(pid, 0) == 0; i++)
		usleep(20000);
	EXPECT(run("! cat %s/a.txt", mnt) == 0, "a dead server's mount still answers");
	EXPECT(ctl("list") == 0 && strstr(out, "dead"), "%s", out);
	EXPECT(ctl("-j list") == 0);
	json_object_put(j);
	j = parse_out();
	json_object_object_get_ex(j, "mounts", &m);
	m = json_object_array_get_idx(m, 0);
	EXPECT(m && json_object_object_get_ex(m, "alive", &v) && !json_object_get_boolean(v));
	EXPECT(ctl("attach %s %s --userspace", mnt, back) == 1 && strstr(out, "detach it first"));
	EXPECT(ctl("detach %s", mnt) == 0 && strstr(out, "had died"), "%s", out);
	EXPECT(!mounted(mnt));
	EXPECT(ctl("list") == 0 && !strstr(out, mnt));
	ret = TAP_OK;
out:
	json_object_put(j);
	teardown();
	return ret;
}

static int t_foreground(void)
{
	int ret = TAP_FAIL, status;
	char log[256];
	pid_t pid;

	EXPECT(setup("foreground") == 0);
	snprintf(log, sizeof(log), "%s/fg.log", dir);
	pid = fork();
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		dup2(fd, 1);
		dup2(fd, 2);
		execl(ctl_path, ctl_path, "attach", mnt, back, "--userspace", "--foreground", NULL);
		_exit(127);
	}
	for (int i = 0; i < 250 && !mounted(mnt); i++)
		usleep(20000);
	EXPECT(mounted(mnt));
	EXPECT(run("grep -qx hello %s/a.txt", mnt) == 0);
	EXPECT(ctl("list") == 0 && strstr(out, mnt));
	/* Ctrl-C: the server unmounts and exits 0. */
	EXPECT(kill(pid, SIGINT) == 0);
	EXPECT(waitpid(pid, &status, 0) == pid);
	EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x", status);
	EXPECT(!mounted(mnt));
	EXPECT(ctl("list") == 0 && !strstr(out, mnt), "the record is gone");
	EXPECT(run("grep -q 'serving' %s", log) == 0);
	ret = TAP_OK;
out:
	teardown();
	return ret;
}

static int t_load_failures(void)
{
	int ret = TAP_FAIL;

	EXPECT(setup("loadfail") == 0);
	EXPECT(ctl("load nosuch") == 1 && strstr(out, "not a built-in filter"), "%s", out);
	EXPECT(ctl("load %s/a.txt", back) == 1 && strstr(out, "not a BPF object file"), "%s", out);
	EXPECT(ctl("load /etc") == 1 && strstr(out, "not a BPF object file"), "%s", out);
	EXPECT(ctl("load hide --name a/b") == 2);
	EXPECT(ctl("load hide --mode u+x") == 2 && strstr(out, "bad mode"));
	EXPECT(ctl("stats nosuch") == 1 && strstr(out, "stats nosuch: no such filter loaded"), "%s", out);
	EXPECT(ctl("-j stats nosuch 2>/dev/null") == 1 && strstr(out, "\"errno\":2"), "%s", out);
	EXPECT(ctl("unload nosuch") == 1 && strstr(out, "no such filter"));
	EXPECT(ctl("policy nosuch") == 1 && strstr(out, "no such filter"));
	EXPECT(ctl("hide nosuch add x") == 1 && strstr(out, "no such filter"));
	if (!fuse_bpf())
		EXPECT(ctl("load hide") == 1 && strstr(out, "fuse-bpf is not supported"), "%s", out);
	EXPECT(!pinned("nosuch") && !pinned("a") && !pinned("hide"));
	ret = TAP_OK;
out:
	teardown();
	return ret;
}

/* --- fuse-bpf ------------------------------------------------------------------ */

#define NEED_FUSE_BPF()                                                   \
	do {                                                              \
		if (!fuse_bpf())                                          \
			SKIP("this kernel has no fuse-bpf BPF side yet"); \
	} while (0)

static int t_load_list_unload(void)
{
	int ret = TAP_FAIL;
	json_object *j = NULL, *f, *v;

	NEED_FUSE_BPF();
	EXPECT(setup("load") == 0);
	/* The combined filter (fusebpf) is the filter library's to verify (tests/guest/filters). */
	for (const char *const *b = (const char *const[]){ "hide", "attrs", "denywrite", "stats",
							    NULL }; *b; b++) {
		EXPECT(ctl("load %s", *b) == 0, "%s", out);
		EXPECT(pinned(*b), "%s not pinned", *b);
	}
	EXPECT(ctl("load hide") == 1 && strstr(out, "already loaded"));
	EXPECT(ctl("load hide --name private --hide secret.txt") == 0);
	EXPECT(run("test -e %s/private/ops -a -e %s/private/hide_names -a -e %s/private/fusebpf_stats",
		   pins, pins, pins) == 0);
	EXPECT(ctl("list") == 0 && strstr(out, "private") && strstr(out, "hide_names"));
	EXPECT(ctl("-j list") == 0);
	j = parse_out();
	EXPECT(j && json_object_object_get_ex(j, "filters", &f) && json_object_array_length(f) == 5,
	       "%s", out);
	f = json_object_array_get_idx(f, 3);	/* sorted: attrs denywrite hide private stats */
	EXPECT(json_object_object_get_ex(f, "name", &v) && !strcmp(json_object_get_string(v), "private"));
	EXPECT(json_object_object_get_ex(f, "kind", &v) && !strcmp(json_object_get_string(v), "hide"));
	EXPECT(json_object_object_get_ex(f, "ops_id", &v) && json_object_get_int(v) > 0);
	EXPECT(json_object_object_get_ex(f, "maps", &v) && json_object_array_length(v) >= 3);
	EXPECT(ctl("-v load %s --name verbose", "stats") == 0);
	EXPECT(ctl("unload verbose") == 0 && !pinned("verbose"));
	/* A filter object file; and the pin directory as an option. */
	EXPECT(ctl("--pin-dir %s load %s/../bpf/stats.bpf.o --name fromfile", pins, objdir) == 0, "%s", out);
	EXPECT(pinned("fromfile") && ctl("-j list") == 0 && strstr(out, "\"kind\":\"file\""), "%s", out);
	EXPECT(ctl("stats fromfile") == 0 && strstr(out, "total"));
	EXPECT(ctl("unload fromfile") == 0 && !pinned("fromfile"));
	for (const char *const *b = (const char *const[]){ "hide", "attrs", "denywrite", "stats",
							    "private", NULL }; *b; b++)
		EXPECT(ctl("unload %s", *b) == 0 && !pinned(*b));
	EXPECT(ctl("-j list") == 0 && strstr(out, "\"filters\":[]"));
	ret = TAP_OK;
out:
	json_object_put(j);
	teardown();
	return ret;
}

static int t_verifier_rejects(void)
{
	int ret = TAP_FAIL;

	NEED_FUSE_BPF();
	EXPECT(setup("reject") == 0);
	EXPECT(ctl("load %s --name bad", reject_obj) == 1);
	EXPECT(strstr(out, "verifier log") && strstr(out, "the verifier rejected a program of the filter"),
	       "%s", out);
	EXPECT(!pinned("bad"));
	ret = TAP_OK;
out:
	teardown();
	return ret;
}

static int t_hide_day(void)
{
	int ret = TAP_FAIL;
	json_object *j = NULL, *v, *ops;
	bool found = false;

	NEED_FUSE_BPF();
	EXPECT(setup("hide") == 0);
	EXPECT(ctl("load hide --name private --hide secret.txt") == 0, "%s", out);
	EXPECT(ctl("-v attach %s %s --filter private --log %s/server.log", mnt, back, dir) == 0,
	       "%s", out);
	EXPECT(strstr(out, "root_bpf="), "-v shows the mount options: %s", out);
	EXPECT(run("test -e %s/a.txt && ! test -e %s/secret.txt && ! ls %s | grep -q secret",
		   mnt, mnt, mnt) == 0);
	EXPECT(run("grep -q serving %s/server.log", dir) == 0, "--log");
	EXPECT(run("test -e %s/secret.txt", back) == 0, "the backing file is gone");
	/* Live policy changes. */
	EXPECT(ctl("hide private add a.txt") == 0);
	EXPECT(run("! ls %s | grep -q a.txt", mnt) == 0);
	EXPECT(ctl("hide private del a.txt") == 0);
	EXPECT(run("ls %s | grep -q a.txt", mnt) == 0);
	EXPECT(ctl("hide private dotfiles on") == 0 && run("! ls -A %s | grep -q profile", mnt) == 0);
	EXPECT(ctl("hide private add --suffix .txt") == 0 && run("! ls %s | grep -q txt", mnt) == 0);
	EXPECT(ctl("hide private del --suffix .txt") == 0);
	EXPECT(ctl("hide private del nothere") == 1 && strstr(out, "not in the policy"));
	EXPECT(ctl("policy private") == 0 && strstr(out, "secret.txt") && strstr(out, "dotfiles on"),
	       "%s", out);
	EXPECT(ctl("-j policy private") == 0);
	j = parse_out();
	EXPECT(j && json_object_object_get_ex(j, "hide", &v) && v, "%s", out);
	json_object_put(j);
	j = NULL;
	EXPECT(ctl("attrs private set --mode -0222") == 1 && strstr(out, "no attrs policy"), "%s", out);
	/* Stats: lookups counted, some hidden. */
	EXPECT(ctl("stats private") == 0 && strstr(out, "lookup") && strstr(out, "total"), "%s", out);
	EXPECT(ctl("-j stats private") == 0);
	j = parse_out();
	EXPECT(j && json_object_object_get_ex(j, "filters", &v) && json_object_array_length(v) == 1);
	v = json_object_array_get_idx(v, 0);
	EXPECT(json_object_object_get_ex(v, "ops", &ops));
	for (size_t i = 0; i < json_object_array_length(ops); i++) {
		json_object *r = json_object_array_get_idx(ops, i), *op, *hidden;

		json_object_object_get_ex(r, "op", &op);
		json_object_object_get_ex(r, "hidden", &hidden);
		if (!strcmp(json_object_get_string(op), "lookup") && json_object_get_int64(hidden) > 0)
			found = true;
	}
	EXPECT(found, "no lookup with hidden > 0: %s", out);
	EXPECT(ctl("stats private -i 0.2 2") == 0 && strstr(out, "per second"), "%s", out);
	EXPECT(ctl("-j stats private -i 0.2 2") == 0);
	EXPECT(run("test $(printf '%%s' '%s' | grep -c '\"sample\"') = 2", out) == 0, "two samples");
	EXPECT(ctl("stats private --reset") == 0);
	EXPECT(ctl("-j stats private") == 0 && strstr(out, "\"ops\":[]"), "reset: %s", out);
	/* Unload while attached. */
	EXPECT(ctl("unload private") == 1 && strstr(out, "attached"), "%s", out);
	EXPECT(ctl("detach %s", mnt) == 0 && !mounted(mnt));
	EXPECT(ctl("unload private") == 0 && !pinned("private"));
	ret = TAP_OK;
out:
	json_object_put(j);
	teardown();
	return ret;
}

static int t_denywrite_attrs_at(void)
{
	int ret = TAP_FAIL;

	NEED_FUSE_BPF();
	EXPECT(setup("deny") == 0);
	EXPECT(ctl("load denywrite --name ro") == 0);
	EXPECT(ctl("load attrs --name shown --mode -0222 --uid 1234") == 0, "%s", out);
	EXPECT(ctl("load hide --name private --hide readme") == 0);
	EXPECT(ctl("attach %s %s --filter ro --at docs=private", mnt, back) == 0, "%s", out);
	EXPECT(run("! sh -c 'echo x > %s/a.txt' 2>%s/err && grep -q 'Read-only' %s/err", mnt, dir, dir) == 0);
	EXPECT(run("grep -qx hello %s/a.txt", back) == 0);
	EXPECT(ctl("deny ro errno EACCES") == 0);
	EXPECT(run("! sh -c 'touch %s/sub/new' 2>%s/err && grep -q 'Permission denied' %s/err", mnt,
		   dir, dir) == 0);
	/* The root is served by fusebpfctl with --at: no names made there. */
	EXPECT(run("! sh -c 'touch %s/new' 2>%s/err && grep -q 'not permitted' %s/err", mnt, dir, dir) == 0);
	EXPECT(run("! test -e %s/docs/readme && test -e %s/docs/readme", mnt, back) == 0, "--at docs");
	EXPECT(run("touch %s/docs/written && test -e %s/docs/written", mnt, back) == 0,
	       "docs is not under ro");
	EXPECT(ctl("-j list") == 0 && strstr(out, "\"at\":[{\"path\":\"docs\",\"filter\":\"private\"}]"),
	       "%s", out);
	/* An allowed name may be created and removed. */
	EXPECT(ctl("deny ro allow scratch") == 0);
	EXPECT(run("echo x > %s/sub/scratch && rm %s/sub/scratch", mnt, mnt) == 0);
	EXPECT(ctl("deny ro disallow scratch") == 0);
	EXPECT(run("! sh -c 'echo x > %s/sub/scratch' 2>/dev/null", mnt) == 0);
	EXPECT(ctl("-j policy ro") == 0 && strstr(out, "\"deny_errno\":\"EACCES\""), "%s", out);
	EXPECT(ctl("policy ro postfilter off") == 0 && ctl("policy ro") == 0 &&
	       strstr(out, "postfilter: off"), "%s", out);
	/* Unload while attached: refused, unless --force; the mount keeps its program. */
	EXPECT(ctl("unload ro") == 1 && strstr(out, "attached to 1 mount"), "%s", out);
	EXPECT(ctl("unload --force ro") == 0 && !pinned("ro"));
	EXPECT(run("! sh -c 'echo x > %s/a.txt' 2>/dev/null", mnt) == 0, "writes allowed after unload");
	EXPECT(ctl("detach %s", mnt) == 0);
	EXPECT(ctl("attach %s %s --filter shown", mnt, back) == 0, "%s", out);
	EXPECT(run("test $(stat -c %%a:%%u %s/a.txt) = 444:1234", mnt) == 0);
	EXPECT(run("test $(stat -c %%a:%%u %s/a.txt) = 644:0", back) == 0);
	/* A live change of the rule for every name (attribute caches last 1 s). */
	EXPECT(ctl("attrs shown set --mode -0226 --gid 77") == 0);
	EXPECT(run("sleep 1.2; test $(stat -c %%a:%%u:%%g %s/a.txt) = 440:0:77", mnt) == 0,
	       "%s", (run("stat -c %%a:%%u:%%g %s/a.txt >&2", mnt), ""));
	EXPECT(ctl("attrs shown set a.txt --mode +0111") == 0);
	EXPECT(ctl("policy shown") == 0 && strstr(out, "a.txt") && strstr(out, "(every name)"));
	EXPECT(ctl("attrs shown del a.txt") == 0 && ctl("policy shown") == 0 && !strstr(out, "a.txt"));
	EXPECT(ctl("attrs shown del a.txt") == 1 && strstr(out, "not in the policy"));
	EXPECT(ctl("detach %s", mnt) == 0 && !mounted(mnt));
	ret = TAP_OK;
out:
	teardown();
	return ret;
}

/*
 * Names of FUSEBPF_NAME_SHORT bytes and more are kept in the policies'
 * _long maps: adding, listing, removing, explain and apply see them there.
 */
static int t_long_names(void)
{
	int ret = TAP_FAIL;
	char lname[41], conf[256];

	memset(lname, 'L', 40);
	lname[40] = 0;
	NEED_FUSE_BPF();
	EXPECT(setup("long") == 0);
	snprintf(conf, sizeof(conf), "%s/long.conf", dir);
	EXPECT(run("echo x > %s/%s", back, lname) == 0);
	EXPECT(ctl("load hide --name private") == 0, "%s", out);
	EXPECT(ctl("attach %s %s --filter private", mnt, back) == 0, "%s", out);
	EXPECT(run("ls %s | grep -q LLLL", mnt) == 0);
	EXPECT(ctl("hide private add %s", lname) == 0, "%s", out);
	EXPECT(run("! ls %s | grep -q LLLL", mnt) == 0, "the 40-byte name not hidden");
	EXPECT(ctl("policy private") == 0 && strstr(out, lname), "%s", out);
	EXPECT(ctl("explain %s/%s", mnt, lname) == 0 && strstr(out, "hid"), "%s", out);
	EXPECT(ctl("hide private del %s", lname) == 0, "%s", out);
	EXPECT(run("ls %s | grep -q LLLL", mnt) == 0, "still hidden after del");
	EXPECT(ctl("hide private del %s", lname) == 1 && strstr(out, "not in the policy"), "%s", out);
	/* apply reads the long names back: the second apply changes nothing */
	EXPECT(run("printf '[private]\\nfilter = hide\\nhide = %s a.txt\\n' > %s", lname, conf) == 0);
	EXPECT(ctl("apply %s 2>&1", conf) == 0 && strstr(out, lname), "%s", out);
	EXPECT(ctl("apply %s 2>&1", conf) == 0 && strstr(out, "nothing to change"), "%s", out);
	EXPECT(run("! ls %s | grep -q 'LLLL\\|a.txt'", mnt) == 0, "applied names not hidden");
	ret = TAP_OK;
out:
	teardown();
	return ret;
}

/* The patterns stay packed: removing one keeps those after it in force. */
static int t_pattern_slots(void)
{
	int ret = TAP_FAIL;

	NEED_FUSE_BPF();
	EXPECT(setup("slots") == 0);
	EXPECT(run("echo y > %s/b.log", back) == 0);
	EXPECT(ctl("load hide --name private") == 0, "%s", out);
	EXPECT(ctl("attach %s %s --filter private", mnt, back) == 0, "%s", out);
	EXPECT(ctl("hide private add --suffix .zzz") == 0 && ctl("hide private add --suffix .txt") == 0 &&
	       ctl("hide private add --suffix .log") == 0, "%s", out);
	EXPECT(run("! ls %s | grep -q 'a.txt\\|b.log'", mnt) == 0);
	EXPECT(ctl("hide private del --suffix .zzz") == 0, "%s", out);
	EXPECT(run("! ls %s | grep -q 'a.txt\\|b.log'", mnt) == 0,
	       "a pattern lost when an earlier one was removed");
	EXPECT(ctl("hide private del --suffix .txt") == 0, "%s", out);
	EXPECT(run("ls %s | grep -q a.txt && ! ls %s | grep -q b.log", mnt, mnt) == 0);
	EXPECT(ctl("-j policy private") == 0 && strstr(out, ".log") && !strstr(out, ".txt") &&
	       !strstr(out, ".zzz"), "%s", out);
	ret = TAP_OK;
out:
	teardown();
	return ret;
}

/* --- attach --replace ------------------------------------------------------------ */

/* What the view shows of a.txt, secret.txt and common, hidden by hA or hB. */
enum view { VIEW_A, VIEW_B, VIEW_OTHER };

/* One listing of mnt: hA's view (a.txt and common hidden), hB's, or another */
static enum view list_view(char *seen, size_t cap)
{
	bool a = false, secret = false, common = false;
	size_t len = 0;
	struct dirent *de;
	DIR *d = opendir(mnt);

	seen[0] = 0;
	if (!d)
		return snprintf(seen, cap, "opendir: %s", strerror(errno)), VIEW_OTHER;
	while ((de = readdir(d))) {
		a |= !strcmp(de->d_name, "a.txt");
		secret |= !strcmp(de->d_name, "secret.txt");
		common |= !strcmp(de->d_name, "common");
		if (len < cap)
			len += snprintf(seen + len, cap - len, " %s", de->d_name);
	}
	closedir(d);
	if (common || a == secret)
		return VIEW_OTHER;
	return a ? VIEW_B : VIEW_A;
}

/* A stat of name in the view: found or ENOENT are both a filter's answers */
static bool stat_sane(const char *name, bool must_be_hidden)
{
	struct stat st;
	int r = stat(at(mnt, name), &st);

	if (must_be_hidden)
		return r == -1 && errno == ENOENT;
	return r == 0 || errno == ENOENT;
}

/* What the reader saw, shared with the test */
struct reads {
	volatile int stop;
	long views[3];
	long bad_stats;
	char bad[512];		/* the first listing or stat that was no filter's */
};

/* List and stat the view until told to stop */
static void reader(struct reads *r)
{
	char seen[400];

	while (!r->stop) {
		enum view v = list_view(seen, sizeof(seen));

		r->views[v]++;
		if (v == VIEW_OTHER && !r->bad[0])
			snprintf(r->bad, sizeof(r->bad), "listing:%s", seen);
		if (!stat_sane("common", true) || !stat_sane("a.txt", false) ||
		    !stat_sane("secret.txt", false)) {
			if (!r->bad_stats++)
				snprintf(r->bad, sizeof(r->bad), "stat: %s", strerror(errno));
		}
	}
	_exit(0);
}

/* hA and hB loaded, each hiding one of a.txt and secret.txt, and common; hA mounted */
static int replace_setup(const char *name)
{
	if (setup(name) || run("echo c > %s/common", back))
		return -1;
	if (ctl("load hide --name hA --hide a.txt --hide common") ||
	    ctl("load hide --name hB --hide secret.txt --hide common"))
		return -1;
	return ctl("attach %s %s --filter hA", mnt, back) ? -1 : 0;
}

/* The mount record's filter, from -j list */
static bool record_filter_is(const char *name)
{
	char want[64];

	snprintf(want, sizeof(want), "\"filter\":\"%s\"", name);
	return ctl("-j list") == 0 && strstr(out, want);
}

/* Run the calling process on CPU @cpu only */
static int pin_to_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/*
 * attach --replace under load: a reader on CPU 1 lists and stats the view
 * while the root filter goes from hA to hB and back from CPU 0; every
 * listing is one of the two filters' views, never an unfiltered one or
 * neither's, and the view right after each replace is the new filter's.
 * A race between two CPUs: fails with fewer.
 */
static int t_replace_under_load(void)
{
	struct reads *r = MAP_FAILED;
	int ret = TAP_FAIL, status;
	cpu_set_t cpus;
	char seen[400];
	pid_t pid = -1;

	if (sched_getaffinity(0, sizeof(cpus), &cpus)) {
		printf("# sched_getaffinity: %s\n", strerror(errno));
		return TAP_FAIL;
	}
	NEED_FUSE_BPF();
	EXPECT(sysconf(_SC_NPROCESSORS_ONLN) >= 2, "a race: needs two CPUs, the guest has %ld",
	       sysconf(_SC_NPROCESSORS_ONLN));
	EXPECT(replace_setup("replace") == 0, "%s", out);
	EXPECT(list_view(seen, sizeof(seen)) == VIEW_A, "%s", seen);
	r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	EXPECT(r != MAP_FAILED);
	pid = fork();
	EXPECT(pid >= 0);
	if (pid == 0) {
		if (pin_to_cpu(1))
			_exit(2);
		reader(r);
	}
	EXPECT(pin_to_cpu(0) == 0, "pin to CPU 0: %s", strerror(errno));
	for (int i = 0; i < 8; i++) {
		const char *to = i % 2 ? "hA" : "hB";

		usleep(100000);
		EXPECT(ctl("attach %s --filter %s --replace", mnt, to) == 0, "%s", out);
		EXPECT(strstr(out, "replaced the filter of") && strstr(out, to), "%s", out);
		EXPECT(list_view(seen, sizeof(seen)) == (i % 2 ? VIEW_A : VIEW_B),
		       "after replace %d (to %s):%s", i, to, seen);
	}
	usleep(100000);
	r->stop = 1;
	EXPECT(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && !WEXITSTATUS(status));
	pid = -1;
	EXPECT(!r->views[VIEW_OTHER] && !r->bad_stats, "%ld listings, %ld stats no filter's; first: %s",
	       r->views[VIEW_OTHER], r->bad_stats, r->bad);
	EXPECT(r->views[VIEW_A] && r->views[VIEW_B], "the reader saw A %ld times, B %ld times",
	       r->views[VIEW_A], r->views[VIEW_B]);
	EXPECT(record_filter_is("hA"), "%s", out);
	/* hB is no mount's now: unloaded without --force */
	EXPECT(ctl("unload hB") == 0, "%s", out);
	EXPECT(ctl("-j attach %s --filter hA --replace", mnt) == 0, "%s", out);
	EXPECT(strstr(out, "\"filter\":\"hA\"") && strstr(out, "\"replaced\":\"hA\""), "%s", out);
	ret = TAP_OK;
out:
	if (pid > 0) {
		r->stop = 1;
		waitpid(pid, NULL, 0);
	}
	if (r != MAP_FAILED)
		munmap(r, sizeof(*r));
	sched_setaffinity(0, sizeof(cpus), &cpus);
	teardown();
	return ret;
}

/* Pin a map of filter 'from' as filter 'to''s ops: a pin that is no fuse_ops map */
static int pin_fake_ops(const char *from, const char *map, const char *to)
{
	char path[256];
	int fd, err;

	snprintf(path, sizeof(path), "%s/%s/%s", pins, from, map);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return -errno;
	snprintf(path, sizeof(path), "%s/%s", pins, to);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/%s/ops", pins, to);
	err = bpf_obj_pin(fd, path) ? -errno : 0;
	close(fd);
	return err;
}

/* What attach --replace refuses, and how it says so; the view keeps its filter */
static int t_replace_failures(void)
{
	int ret = TAP_FAIL;
	char seen[400];

	NEED_FUSE_BPF();
	EXPECT(replace_setup("replacefail") == 0, "%s", out);
	EXPECT(ctl("attach %s --filter nosuch --replace", mnt) == 1 &&
	       strstr(out, "filter 'nosuch' is not loaded"), "%s", out);
	EXPECT(pin_fake_ops("hB", "hide_names", "fake") == 0);
	EXPECT(ctl("attach %s --filter fake --replace", mnt) == 1 &&
	       strstr(out, "not a fuse_ops map"), "%s", out);
	EXPECT(ctl("attach %s --filter hB --replace", back) == 1 && strstr(out, "not a mount point"),
	       "%s", out);
	EXPECT(run("setpriv --bounding-set -sys_admin %s attach %s --filter hB --replace "
		   ">%s/err 2>&1; test $? = 1 && grep -q 'no permission' %s/err",
		   ctl_path, mnt, dir, dir) == 0, "%s", (run("cat %s/err >&2", dir), ""));
	EXPECT(ctl("attach %s --replace", mnt) == 2 && strstr(out, "which filter"), "%s", out);
	EXPECT(ctl("-j attach %s --filter nosuch --replace 2>/dev/null", mnt) == 1 &&
	       strstr(out, "{\"error\":{"), "%s", out);
	EXPECT(list_view(seen, sizeof(seen)) == VIEW_A && record_filter_is("hA"), "%s", seen);
	/* Mounts without a root filter: --at subtrees only, and user space */
	EXPECT(ctl("detach %s", mnt) == 0);
	EXPECT(ctl("attach %s %s --at docs=hA", mnt, back) == 0, "%s", out);
	EXPECT(ctl("attach %s --filter hB --replace", mnt) == 1 &&
	       strstr(out, "no filter at the root"), "%s", out);
	EXPECT(ctl("detach %s", mnt) == 0);
	EXPECT(ctl("attach %s %s --userspace", mnt, back) == 0, "%s", out);
	EXPECT(ctl("attach %s --filter hB --replace", mnt) == 1 &&
	       strstr(out, "not a fuse-bpf mount"), "%s", out);
	EXPECT(ctl("detach %s", mnt) == 0);
	EXPECT(run("mount -t tmpfs none %s", mnt) == 0);
	EXPECT(ctl("attach %s --filter hB --replace", mnt) == 1 &&
	       strstr(out, "not a fuse-bpf mount"), "%s", out);
	EXPECT(umount2(mnt, 0) == 0);
	ret = TAP_OK;
out:
	teardown();	/* a tmpfs left on mnt too */
	return ret;
}

/* The id of a loaded filter's fuse_ops map, from -j list; 0 when not found */
static unsigned int ops_id_of(const char *name)
{
	json_object *j, *f, *v;
	unsigned int id = 0;

	if (ctl("-j list"))
		return 0;
	j = parse_out();
	if (!j || !json_object_object_get_ex(j, "filters", &f))
		goto out;
	for (size_t i = 0; i < json_object_array_length(f); i++) {
		json_object *e = json_object_array_get_idx(f, i);

		if (json_object_object_get_ex(e, "name", &v) && !strcmp(json_object_get_string(v), name) &&
		    json_object_object_get_ex(e, "ops_id", &v))
			id = json_object_get_int64(v);
	}
out:
	json_object_put(j);
	return id;
}

/* Wait up to ms for map id to be freed; is it gone? */
static bool map_gone(unsigned int id, int ms)
{
	for (int t = 0; ; t += 20) {
		__u32 next = 0;
		bool found = false;

		while (!found && !bpf_map_get_next_id(next, &next))
			found = next == id;
		if (!found)
			return true;
		if (t >= ms)
			return false;
		usleep(20000);
	}
}

/*
 * A filter's map lives as long as its pins, fds and mounts, and no longer:
 * one replaced and unloaded is freed at once; one unloaded while mounted
 * filters until the unmount, then is freed (the loader deletes a map
 * after its update, and the kernel takes a deleted map: docs/kernel.md).
 */
static int t_maps_freed_with_last_user(void)
{
	unsigned int a, b;
	int ret = TAP_FAIL;
	char seen[400];

	NEED_FUSE_BPF();
	EXPECT(replace_setup("mapsfreed") == 0, "%s", out);
	EXPECT((a = ops_id_of("hA")) && (b = ops_id_of("hB")));
	EXPECT(ctl("-j list") == 0 && strstr(out, "\"ops_state\":\"tobefree\"") &&
	       !strstr(out, "\"ops_state\":\"inuse\""), "the loader keeps maps updated: %s", out);
	EXPECT(ctl("attach %s --filter hB --replace", mnt) == 0, "%s", out);
	EXPECT(ctl("unload hA") == 0 && map_gone(a, 5000), "hA's map %u outlived its pins", a);
	EXPECT(ctl("unload --force hB") == 0, "%s", out);
	EXPECT(!map_gone(b, 200), "hB's map was freed while mounted");
	EXPECT(list_view(seen, sizeof(seen)) == VIEW_B, "%s", seen);
	EXPECT(ctl("detach %s", mnt) == 0);
	EXPECT(map_gone(b, 5000), "hB's map %u outlived its last mount", b);
	ret = TAP_OK;
out:
	teardown();
	return ret;
}

/* valgrind: load, attach, stats, list, detach with no error and no leak. */
static int t_valgrind_cycle(void)
{
	int ret = TAP_FAIL;
	const char *vg = "valgrind -q --error-exitcode=99 --leak-check=full "
			 "--errors-for-leak-kinds=definite --suppressions=%s --log-file=%s/vg.%%p";
	char prefix[2600];
	bool bpf = fuse_bpf();

	if (access("/usr/bin/valgrind", X_OK))
		SKIP("no valgrind");
	EXPECT(setup("valgrind") == 0);
	snprintf(prefix, sizeof(prefix), vg, supp, dir);
	if (bpf) {
		EXPECT(run("%s %s load hide --name v --hide secret.txt || { cat %s/vg.*; false; }", prefix,
			   ctl_path, dir) == 0);
		EXPECT(run("%s %s attach %s %s --filter v", prefix, ctl_path, mnt, back) == 0);
		EXPECT(run("ls %s >/dev/null && %s %s stats v && %s %s -j stats v", mnt, prefix, ctl_path,
			   prefix, ctl_path) == 0);
	} else {
		EXPECT(run("%s %s attach %s %s --userspace", prefix, ctl_path, mnt, back) == 0);
		EXPECT(run("ls -R %s >/dev/null && cat %s/a.txt && echo x > %s/n && rm %s/n", mnt, mnt,
			   mnt, mnt) == 0);
	}
	EXPECT(run("%s %s list && %s %s -j list", prefix, ctl_path, prefix, ctl_path) == 0);
	EXPECT(run("%s %s detach %s", prefix, ctl_path, mnt) == 0);
	if (bpf)
		EXPECT(run("%s %s unload v", prefix, ctl_path) == 0);
	/* The server (a forked child) wrote its own report when it exited. */
	sleep(1);
	EXPECT(run("cat %s/vg.*; ! grep -l 'ERROR SUMMARY: [1-9]\\|definitely lost: [1-9]' %s/vg.*",
		   dir, dir) == 0, "valgrind found something");
	EXPECT(!mounted(mnt));
	ret = TAP_OK;
out:
	teardown();
	return ret;
}

static const struct tap_case cases[] = {
	{ "help_version_usage", t_help_version_usage },
	{ "userspace_attach_list_detach", t_userspace_cycle },
	{ "fallback_without_fuse_bpf", t_fallback_without_fuse_bpf },
	{ "attach_failures", t_attach_failures },
	{ "detach_after_sigkill", t_detach_after_sigkill },
	{ "foreground", t_foreground },
	{ "load_failures", t_load_failures },
	{ "load_list_unload", t_load_list_unload },
	{ "verifier_rejects", t_verifier_rejects },
	{ "hide_policy_stats", t_hide_day },
	{ "denywrite_attrs_at", t_denywrite_attrs_at },
	{ "long_names", t_long_names },
	{ "pattern_slots", t_pattern_slots },
	{ "attach_replace_under_load", t_replace_under_load },
	{ "attach_replace_failures", t_replace_failures },
	{ "maps_freed_with_last_user", t_maps_freed_with_last_user },
	{ "valgrind_cycle", t_valgrind_cycle },
};

int main(int argc, char **argv)
{
	char d[1900];	/* build/tests/guest */

	if (ctl_find(d, sizeof(d)))
		return 1;
	snprintf(reject_obj, sizeof(reject_obj), "%s/../cli_reject.bpf.o", d);
	snprintf(supp, sizeof(supp), "%s/../../../tests/guest/cli.supp", d);
	snprintf(objdir, sizeof(objdir), "%s/..", d);
	return tap_main("cli", cases, sizeof(cases) / sizeof(cases[0]), argc, argv);
}
