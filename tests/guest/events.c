// SPDX-License-Identifier: GPL-2.0
/*
 * Audit events, per-user exceptions and latency histograms, as a user runs
 * them with fusebpfctl: refusals of an unprivileged user seen by
 * 'fusebpfctl events' (plain, JSON, follow, syslog), the rate limit and the
 * full ring counted, --except-uid/--except-gid on load and changed live,
 * and 'stats --hist' whose counts add up to the stats counts. Each case has
 * its own pins, state directory and mount.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <json-c/json.h>
#include <libgen.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"
#include "tctl.h"
#include "tjson.h"
#include "tproc.h"

#define NOBODY 65534
#define OWNER 1000

static char out[1 << 20];	/* the last command's stdout (and stderr, unless split) */
static char pins[128], state[128], dir[128], mnt[160], back[160];

/* fusebpfctl ARGS (see ctl_into()): output in out[]. */
#define ctl(...) ctl_into(out, sizeof(out), __VA_ARGS__)

/* A fresh environment: pins, state, a backing tree anyone may write, a mountpoint. */
static int setup(const char *name)
{
	snprintf(pins, sizeof(pins), "/sys/fs/bpf/ev-%s", name);
	snprintf(state, sizeof(state), "/tmp/ev-%s/state", name);
	snprintf(dir, sizeof(dir), "/tmp/ev-%s", name);
	snprintf(mnt, sizeof(mnt), "%s/mnt", dir);
	snprintf(back, sizeof(back), "%s/back", dir);
	setenv("FUSEBPF_PIN_DIR", pins, 1);
	setenv("FUSEBPF_STATE_DIR", state, 1);
	return run("mkdir -p %s/sub %s && echo hello > %s/a.txt && echo secret > %s/secret && "
		   "chmod 0666 %s/a.txt %s/secret && chmod 0777 %s %s/sub && chmod 0755 %s",
		   back, mnt, back, back, back, back, back, back, dir);
}

static void teardown(void)
{
	ctl_cleanup(pins, dir, mnt);
}

#define NEED_FUSE_BPF()                                                   \
	do {                                                              \
		if (!fuse_bpf())                                          \
			SKIP("this kernel has no fuse-bpf BPF side");     \
	} while (0)

/* An unprivileged user's denied writes, in the plain output, once. */
static int t_denied_write_event(void)
{
	int ret = TAP_FAIL;
	char path[256], want[128];
	pid_t pid = 0;

	NEED_FUSE_BPF();
	EXPECT(setup("denied") == 0);
	EXPECT(ctl("load denywrite --name ro 2>&1") == 0, "%s", out);
	EXPECT(ctl("attach %s %s --filter ro 2>&1", mnt, back) == 0, "%s", out);
	EXPECT(ctl("events ro 2>&1") == 0 && !out[0], "no events before any refusal: %s", out);
	snprintf(path, sizeof(path), "%s/a.txt", mnt);
	EXPECT(open_as(NOBODY, NOBODY, path, O_WRONLY, &pid) == EROFS);
	EXPECT(as_user(NOBODY, NOBODY, "touch %s/new 2>/dev/null", mnt) != 0);
	EXPECT(as_user(NOBODY, NOBODY, "cat %s/a.txt >/dev/null", mnt) == 0, "reads are no events");
	EXPECT(ctl("events ro 2>&1") == 0, "%s", out);
	snprintf(want, sizeof(want), "ro: denied open uid=%d gid=%d pid=%d comm=events errno=EROFS "
		 "policy=denywrite\n", NOBODY, NOBODY, pid);
	EXPECT(strstr(out, want), "no '%s' in\n%s", want, out);
	snprintf(want, sizeof(want), "ro: denied create \"new\" uid=%d gid=%d pid=", NOBODY, NOBODY);
	EXPECT(strstr(out, want) && strstr(out, "comm=touch errno=EROFS"), "%s", out);
	EXPECT(!strstr(out, "a.txt\"") && !strstr(out, " read "), "only the refusals: %s", out);
	/* The time is now, in local time. */
	{
		time_t t = time(NULL);
		char hour[32];

		strftime(hour, sizeof(hour), "%Y-%m-%d %H:", localtime(&t));
		EXPECT(!strncmp(out, hour, strlen(hour)), "not %s...: %s", hour, out);
	}
	EXPECT(!strstr(out, "dropped"), "%s", out);
	/* Reading consumed them. */
	EXPECT(ctl("events ro 2>&1") == 0 && !out[0], "%s", out);
	/* The backing tree is unchanged. */
	EXPECT(run("grep -qx hello %s/a.txt && ! test -e %s/new", back, back) == 0);
	ret = TAP_OK;
out:
	teardown();
	return ret;
}

static int t_json_events(void)
{
	int ret = TAP_FAIL;
	json_object *arr = NULL, *e;
	struct timespec now;
	int64_t t;

	NEED_FUSE_BPF();
	EXPECT(setup("json") == 0);
	EXPECT(ctl("load fusebpf --name combo --policies hide,denywrite --hide secret 2>&1") == 0, "%s", out);
	EXPECT(ctl("attach %s %s --filter combo 2>&1", mnt, back) == 0, "%s", out);
	EXPECT(as_user(NOBODY, NOBODY, "mkdir %s/sub/d 2>/dev/null", mnt) != 0);
	EXPECT(as_user(NOBODY, NOBODY, "cat %s/secret 2>/dev/null", mnt) != 0);
	EXPECT(ctl("-j events combo") == 0, "%s", out);
	arr = json_lines(out, "event");
	EXPECT(arr && json_object_array_length(arr) == 2, "%s", out);
	clock_gettime(CLOCK_REALTIME, &now);
	e = json_object_array_get_idx(arr, 0);
	EXPECT(!strcmp(jstr(e, "filter"), "combo") && !strcmp(jstr(e, "op"), "mkdir") &&
	       jint(e, "opcode") == 9 && !strcmp(jstr(e, "name"), "d") &&
	       !strcmp(jstr(e, "verdict"), "denied") && !strcmp(jstr(e, "errno"), "EROFS") &&
	       jint(e, "errno_num") == EROFS && !strcmp(jstr(e, "policy"), "denywrite"));
	EXPECT(jint(e, "uid") == NOBODY && jint(e, "gid") == NOBODY && jint(e, "pid") > 1 &&
	       jint(e, "tid") == jint(e, "pid") && !strcmp(jstr(e, "comm"), "mkdir"));
	t = jint(e, "time_ns");
	EXPECT(t > (now.tv_sec - 60) * 1000000000LL && t <= (now.tv_sec + 1) * 1000000000LL,
	       "time_ns %lld, now %lld", (long long)t, (long long)now.tv_sec);
	EXPECT(strlen(jstr(e, "time")) == 27 && jstr(e, "time")[26] == 'Z', "%s", jstr(e, "time"));
	e = json_object_array_get_idx(arr, 1);
	EXPECT(!strcmp(jstr(e, "op"), "lookup") && !strcmp(jstr(e, "name"), "secret") &&
	       !strcmp(jstr(e, "verdict"), "hidden") && !strcmp(jstr(e, "errno"), "ENOENT") &&
	       !strcmp(jstr(e, "policy"), "hide") && !strcmp(jstr(e, "comm"), "cat"));
	/* An op on an open file has no name: null. */
	json_object_put(arr);
	arr = NULL;
	EXPECT(as_user(NOBODY, NOBODY, "echo x >> %s/a.txt 2>/dev/null", mnt) != 0);
	EXPECT(ctl("-j events") == 0, "without NAME: every filter's");
	arr = json_lines(out, "event");
	EXPECT(arr && json_object_array_length(arr) == 1, "%s", out);
	e = json_object_array_get_idx(arr, 0);
	EXPECT(!strcmp(jstr(e, "op"), "open") && !jstr(e, "name") && strstr(out, "\"name\":null"),
	       "%s", out);
	ret = TAP_OK;
out:
	json_object_put(arr);
	teardown();
	return ret;
}

/* Count the events of out[] and its drops; -1 on bad JSON. */
static int count_events(int64_t *rate, int64_t *full, int64_t *sent)
{
	json_object *ev = json_lines(out, "event"), *dr = json_lines(out, "dropped"), *d;
	int n = ev ? (int)json_object_array_length(ev) : -1;

	*rate = *full = 0;
	*sent = -1;
	if (dr && json_object_array_length(dr)) {
		d = json_object_array_get_idx(dr, json_object_array_length(dr) - 1);
		*rate = jint(d, "rate_limited");
		*full = jint(d, "ring_full");
		*sent = jint(d, "sent");
	}
	json_object_put(ev);
	json_object_put(dr);
	return n;
}

/* A storm of refusals: at most the burst and the refill get through, every one is counted. */
static int t_rate_limit(void)
{
	int ret = TAP_FAIL, n, fd;
	int64_t rate, full, sent;
	struct timeval t0, t1;
	char path[256];
	double secs;

	NEED_FUSE_BPF();
	EXPECT(setup("rate") == 0);
	EXPECT(ctl("load denywrite --name ro --events-rate 2 --events-burst 5 2>&1") == 0, "%s", out);
	EXPECT(ctl("attach %s %s --filter ro 2>&1", mnt, back) == 0, "%s", out);
	snprintf(path, sizeof(path), "%s/a.txt", mnt);
	gettimeofday(&t0, NULL);
	for (int i = 0; i < 200; i++) {
		fd = open(path, O_WRONLY);
		EXPECT(fd < 0 && errno == EROFS);
	}
	gettimeofday(&t1, NULL);
	secs = t1.tv_sec - t0.tv_sec + (t1.tv_usec - t0.tv_usec) / 1e6;
	EXPECT(ctl("-j events ro") == 0);
	n = count_events(&rate, &full, &sent);
	EXPECT(n >= 5 && n <= 5 + 2 * (int)(secs + 1), "%d events in %.2f s", n, secs);
	EXPECT(n == sent && full == 0 && n + rate == 200, "%d events, sent %lld, %lld + %lld dropped",
	       n, (long long)sent, (long long)rate, (long long)full);
	EXPECT(ctl("-j stats ro") == 0 && strstr(out, "\"denied\":200"), "every refusal counted: %s", out);
	/* Plain: the drops on stderr, after the events. */
	EXPECT(ctl("events ro 2>&1") == 0 && strstr(out, " events dropped since the filter was loaded ("),
	       "%s", out);
	/* Events off: nothing more is sent or dropped. */
	EXPECT(ctl("policy ro events off 2>&1") == 0);
	EXPECT(open(path, O_WRONLY) < 0 && errno == EROFS);
	EXPECT(ctl("-j events ro") == 0 && count_events(&rate, &full, &sent) == 0 && n + rate == 200,
	       "%s", out);
	ret = TAP_OK;
out:
	teardown();
	return ret;
}

/* Past the ring's size the rest is dropped as ring_full; the sum still holds. */
static int t_ring_full(void)
{
	int ret = TAP_FAIL, n, fd, total = 1500;
	int64_t rate, full, sent;
	char path[256];

	NEED_FUSE_BPF();
	EXPECT(setup("full") == 0);
	EXPECT(ctl("load denywrite --name ro --events-rate 1000000 --events-burst 1000000 2>&1") == 0,
	       "%s", out);
	EXPECT(ctl("attach %s %s --filter ro 2>&1", mnt, back) == 0, "%s", out);
	snprintf(path, sizeof(path), "%s/a.txt", mnt);
	for (int i = 0; i < total; i++) {
		fd = open(path, O_WRONLY);
		EXPECT(fd < 0 && errno == EROFS);
	}
	EXPECT(ctl("-j events ro") == 0);
	n = count_events(&rate, &full, &sent);
	EXPECT(n > 100 && full > 0 && n == sent && n + rate + full == total,
	       "%d events, sent %lld, dropped %lld + %lld", n, (long long)sent, (long long)rate,
	       (long long)full);
	/* The ring has room again. */
	EXPECT(open(path, O_WRONLY) < 0);
	EXPECT(ctl("-j events ro") == 0 && count_events(&rate, &full, &sent) == 1, "%s", out);
	ret = TAP_OK;
out:
	teardown();
	return ret;
}

/* -f: events as they come, until SIGINT (exit 0). */
static int t_follow(void)
{
	int ret = TAP_FAIL, status, fd = -1;
	char log[256], buf[8192] = "";
	pid_t pid = -1;

	NEED_FUSE_BPF();
	EXPECT(setup("follow") == 0);
	EXPECT(ctl("load denywrite --name ro 2>&1") == 0, "%s", out);
	EXPECT(ctl("attach %s %s --filter ro 2>&1", mnt, back) == 0, "%s", out);
	snprintf(log, sizeof(log), "%s/follow.log", dir);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, 1);
		dup2(fd, 2);
		execl(ctl_path, ctl_path, "-j", "events", "ro", "-f", NULL);
		_exit(127);
	}
	EXPECT(pid > 0);
	usleep(500000);
	EXPECT(waitpid(pid, &status, WNOHANG) == 0, "events -f exited: %s",
	       (read_file(log, buf, sizeof(buf)), buf));
	EXPECT(as_user(NOBODY, NOBODY, "rmdir %s/sub 2>/dev/null", mnt) != 0);
	for (int i = 0; i < 100 && !strstr(buf, "rmdir"); i++) {
		usleep(50000);
		read_file(log, buf, sizeof(buf));
	}
	EXPECT(strstr(buf, "\"op\":\"rmdir\"") && strstr(buf, "\"name\":\"sub\""), "%s", buf);
	/* A second refusal, still followed. */
	EXPECT(as_user(NOBODY, NOBODY, "mv %s/a.txt %s/b.txt 2>/dev/null", mnt, mnt) != 0);
	for (int i = 0; i < 100 && !strstr(buf, "rename"); i++) {
		usleep(50000);
		read_file(log, buf, sizeof(buf));
	}
	EXPECT(strstr(buf, "\"op\":\"rename") && strstr(buf, "\"name\":\"b.txt\""), "%s", buf);
	EXPECT(kill(pid, SIGINT) == 0 && waitpid(pid, &status, 0) == pid);
	pid = -1;
	EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x", status);
	EXPECT(ctl("events nosuch -f 2>&1") == 1 && strstr(out, "no such filter"), "%s", out);
	ret = TAP_OK;
out:
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	teardown();
	return ret;
}

/* --syslog: the events reach the syslog socket, /dev/log (ours, for the test). */
static int t_syslog(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = 5 };
	int ret = TAP_FAIL, s = -1;
	char msg[2048];
	bool bound = false;
	ssize_t n;

	NEED_FUSE_BPF();
	if (access("/dev/log", F_OK) == 0)
		SKIP("/dev/log exists: a syslog daemon is there");
	EXPECT(setup("syslog") == 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "/dev/log");
	s = socket(AF_UNIX, SOCK_DGRAM, 0);
	EXPECT(s >= 0 && bind(s, (struct sockaddr *)&sa, sizeof(sa)) == 0, "%s", strerror(errno));
	bound = true;
	EXPECT(setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) == 0);
	EXPECT(ctl("load denywrite --name ro 2>&1") == 0, "%s", out);
	EXPECT(ctl("attach %s %s --filter ro 2>&1", mnt, back) == 0, "%s", out);
	EXPECT(as_user(NOBODY, NOBODY, "ln -s a.txt %s/l 2>/dev/null", mnt) != 0);
	EXPECT(ctl("events ro --syslog 2>&1") == 0 && !out[0], "nothing on stdout: %s", out);
	n = recv(s, msg, sizeof(msg) - 1, 0);
	EXPECT(n > 0, "no syslog message: %s", strerror(errno));
	msg[n] = 0;
	printf("syslog: %s\n", msg);
	/* <authpriv.notice> = <85>, the tag, and the event without the time. */
	EXPECT(!strncmp(msg, "<85>", 4) && strstr(msg, "fusebpfctl[") &&
	       strstr(msg, "ro: denied symlink \"l\" uid=65534 gid=65534") &&
	       strstr(msg, "errno=EROFS policy=denywrite"), "%s", msg);
	ret = TAP_OK;
out:
	if (s >= 0)
		close(s);
	if (bound)
		unlink("/dev/log");
	teardown();
	return ret;
}

/* --except-uid: the owner may change what the service account may not; live changes. */
static int t_except_denywrite(void)
{
	int ret = TAP_FAIL;
	json_object *j = NULL;

	NEED_FUSE_BPF();
	EXPECT(setup("exceptdeny") == 0);
	EXPECT(ctl("load denywrite --name ro --except-uid %d 2>&1", OWNER) == 0, "%s", out);
	EXPECT(ctl("attach %s %s --filter ro 2>&1", mnt, back) == 0, "%s", out);
	EXPECT(as_user(NOBODY, NOBODY, "echo x >> %s/a.txt", mnt) != 0);
	EXPECT(as_user(OWNER, OWNER, "echo owner >> %s/a.txt && touch %s/sub/o && rm %s/sub/o",
		       mnt, mnt, mnt) == 0);
	EXPECT(run("grep -qx owner %s/a.txt", back) == 0, "the owner's write reached the backing");
	EXPECT(ctl("policy ro 2>&1") == 0 && strstr(out, "except:     uid 1000 (denywrite)"), "%s", out);
	EXPECT(ctl("-j policy ro") == 0);
	j = json_tokener_parse(out);
	EXPECT(j && strstr(out, "\"except\":[{\"kind\":\"uid\",\"id\":1000,\"policies\":[\"denywrite\"]}]"),
	       "%s", out);
	/* Only the refusals are events: the owner's writes are none. */
	EXPECT(ctl("events ro 2>&1") == 0 && strstr(out, "uid=65534") && !strstr(out, "uid=1000"),
	       "%s", out);
	/* Live: the exception goes, the owner is refused; a group exception lets nobody in. */
	EXPECT(ctl("deny ro except-uid del %d 2>&1", OWNER) == 0, "%s", out);
	EXPECT(as_user(OWNER, OWNER, "echo x >> %s/a.txt 2>/dev/null", mnt) != 0);
	EXPECT(ctl("deny ro except-uid del %d 2>&1", OWNER) == 1 && strstr(out, "not in the policy"),
	       "%s", out);
	EXPECT(ctl("deny ro except-gid add 4242 2>&1") == 0, "%s", out);
	EXPECT(as_user(NOBODY, 4242, "echo group >> %s/a.txt", mnt) == 0);
	EXPECT(as_user(NOBODY, NOBODY, "echo x >> %s/a.txt 2>/dev/null", mnt) != 0);
	EXPECT(ctl("hide ro except-uid add 1 2>&1") == 1 && strstr(out, "no hide policy"), "%s", out);
	EXPECT(ctl("deny ro except-uid add nosuchuser 2>&1") == 2 && strstr(out, "bad user"), "%s", out);
	EXPECT(ctl("events ro 2>&1") == 0 && strstr(out, "uid=1000 gid=1000") &&
	       !strstr(out, "gid=4242"), "%s", out);
	ret = TAP_OK;
out:
	json_object_put(j);
	teardown();
	return ret;
}

/* --except-uid on hide: the owner sees what the service account does not. */
static int t_except_hide(void)
{
	int ret = TAP_FAIL;

	NEED_FUSE_BPF();
	EXPECT(setup("excepthide") == 0);
	EXPECT(ctl("load hide --name priv --hide secret --except-uid %d 2>&1", OWNER) == 0, "%s", out);
	EXPECT(ctl("attach %s %s --filter priv 2>&1", mnt, back) == 0, "%s", out);
	EXPECT(as_user(NOBODY, NOBODY, "ls %s | grep -q secret", mnt) != 0);
	EXPECT(as_user(NOBODY, NOBODY, "cat %s/secret 2>/dev/null", mnt) != 0);
	EXPECT(as_user(OWNER, OWNER, "ls %s | grep -qx secret && grep -qx secret %s/secret", mnt,
		       mnt) == 0);
	/* Listings are filtered per call, whoever looked the name up before. */
	EXPECT(as_user(NOBODY, NOBODY, "ls %s | grep -q secret", mnt) != 0);
	EXPECT(ctl("events priv 2>&1") == 0 && strstr(out, "priv: hidden lookup \"secret\" uid=65534") &&
	       !strstr(out, "uid=1000"), "%s", out);
	/* Live: the exception goes; once the owner's dentry is gone, the owner is refused too. */
	EXPECT(ctl("hide priv except-uid del %d 2>&1", OWNER) == 0, "%s", out);
	EXPECT(run("echo 2 > /proc/sys/vm/drop_caches") == 0);
	EXPECT(as_user(OWNER, OWNER, "ls %s | grep -q secret", mnt) != 0);
	EXPECT(as_user(OWNER, OWNER, "cat %s/secret 2>/dev/null", mnt) != 0);
	EXPECT(ctl("hide priv except-gid add %d 2>&1", OWNER) == 0, "%s", out);
	EXPECT(as_user(OWNER, OWNER, "ls %s | grep -q secret && cat %s/secret >/dev/null", mnt,
		       mnt) == 0, "by group");
	EXPECT(ctl("-j policy priv") == 0 &&
	       strstr(out, "\"except\":[{\"kind\":\"gid\",\"id\":1000,\"policies\":[\"hide\"]}]"), "%s", out);
	ret = TAP_OK;
out:
	teardown();
	return ret;
}

/*
 * The owner's lookup makes a positive dentry; it must not serve the owner's
 * verdict to the next caller. hide gives such a name an entry timeout of 0
 * in its LOOKUP postfilter, which the kernel honours.
 */
static int t_except_hide_dcache(void)
{
	int ret = TAP_FAIL;

	NEED_FUSE_BPF();
	EXPECT(setup("dcache") == 0);
	EXPECT(ctl("load hide --name priv --hide secret --except-uid %d 2>&1", OWNER) == 0, "%s", out);
	EXPECT(ctl("attach %s %s --filter priv 2>&1", mnt, back) == 0, "%s", out);
	for (int i = 0; i < 2; i++) {
		EXPECT(as_user(OWNER, OWNER, "grep -qx secret %s/secret", mnt) == 0);
		EXPECT(as_user(NOBODY, NOBODY, "cat %s/secret 2>/dev/null", mnt) != 0,
		       "the owner's cached dentry let nobody open the hidden name");
		EXPECT(as_user(NOBODY, NOBODY, "stat %s/secret >/dev/null 2>&1", mnt) != 0);
	}
	/* Names nobody is excepted from keep their cached dentries (no timeout). */
	EXPECT(as_user(NOBODY, NOBODY, "cat %s/a.txt >/dev/null", mnt) == 0);
	/* Without hide exceptions the postfilter does not look at names. */
	EXPECT(ctl("hide priv except-uid del %d 2>&1", OWNER) == 0, "%s", out);
	EXPECT(as_user(OWNER, OWNER, "cat %s/secret 2>/dev/null", mnt) != 0);
	ret = TAP_OK;
out:
	teardown();
	return ret;
}

/* The knobs: policy show, bad values, filters without events. */
static int t_knobs_and_errors(void)
{
	int ret = TAP_FAIL;

	NEED_FUSE_BPF();
	EXPECT(setup("knobs") == 0);
	EXPECT(ctl("load hide --name h --no-events --events-readdir --events-rate 7 2>&1") == 0, "%s", out);
	EXPECT(ctl("load stats --name st 2>&1") == 0, "%s", out);
	EXPECT(ctl("policy h 2>&1") == 0 && strstr(out, "events:     off, 7/s, burst 200, readdir on"),
	       "%s", out);
	EXPECT(ctl("policy h events on 2>&1") == 0 && ctl("policy h events-burst 9 2>&1") == 0);
	EXPECT(ctl("-j policy h") == 0 &&
	       strstr(out, "\"events\":{\"enabled\":true,\"rate\":7,\"burst\":9,\"readdir\":true}"), "%s", out);
	EXPECT(ctl("policy h events-rate 0 2>&1") == 2 && strstr(out, "bad events-rate"), "%s", out);
	EXPECT(ctl("policy h events-rate 1000001 2>&1") == 2);
	EXPECT(ctl("policy h events maybe 2>&1") == 2);
	EXPECT(ctl("load hide --name x --events-burst -1 2>&1") == 2 && strstr(out, "bad --events-burst"),
	       "%s", out);
	EXPECT(ctl("hide h except-uid frob 1 2>&1") == 2);
	EXPECT(ctl("policy st events on 2>&1") == 1 && strstr(out, "reports no events"), "%s", out);
	EXPECT(ctl("load attrs --name at --except-uid 1 2>&1") == 1 &&
	       strstr(out, "has no hide or denywrite policy"), "%s", out);
	EXPECT(ctl("-j list") == 0 && !strstr(out, "\"name\":\"at\""), "a failed load leaves no pins: %s", out);
	EXPECT(ctl("-j policy st") == 0 && strstr(out, "\"events\":null") && strstr(out, "\"except\":null"),
	       "%s", out);
	EXPECT(ctl("events st 2>&1") == 1 && strstr(out, "reports no events"), "%s", out);
	EXPECT(ctl("events nosuch 2>&1") == 1 && strstr(out, "no such filter loaded"), "%s", out);
	EXPECT(ctl("events h st 2>&1") == 2);
	EXPECT(ctl("events 2>&1") == 0 && !out[0], "every filter's: none queued: %s", out);
	EXPECT(ctl("events --help") == 0 && strstr(out, "EXAMPLES") && strstr(out, "--syslog"));
	EXPECT(ctl("stats st --hist nosuchop 2>&1") == 2 && strstr(out, "unknown operation"), "%s", out);
	ret = TAP_OK;
out:
	teardown();
	return ret;
}

/* Sum the "lat_count" of each op of a 'stats -j' document into counts[opcode]. */
static int stats_counts(int64_t *counts)
{
	json_object *j = json_tokener_parse(out), *f, *ops;
	int n = -1;

	memset(counts, 0, 64 * sizeof(*counts));
	if (!j || !json_object_object_get_ex(j, "filters", &f) || json_object_array_length(f) != 1)
		goto out;
	if (!json_object_object_get_ex(json_object_array_get_idx(f, 0), "ops", &ops))
		goto out;
	n = 0;
	for (size_t i = 0; i < json_object_array_length(ops); i++) {
		json_object *r = json_object_array_get_idx(ops, i);

		counts[jint(r, "opcode") & 63] = jint(r, "lat_count");
		n++;
	}
out:
	json_object_put(j);
	return n;
}

/* stats --hist: each op's counts add up to its lat_count, and the slots to the count. */
static int t_hist_adds_up(void)
{
	int ret = TAP_FAIL, nops = 0;
	json_object *j = NULL, *f, *ops;
	int64_t counts[64], total = 0;

	NEED_FUSE_BPF();
	EXPECT(setup("hist") == 0);
	EXPECT(ctl("load stats --name st 2>&1") == 0, "%s", out);
	EXPECT(ctl("attach %s %s --filter st 2>&1", mnt, back) == 0, "%s", out);
	/* Many operations from one process (a process per operation is slow under TCG). */
	for (int i = 0; i < 50; i++) {
		char path[256], buf[64];
		struct stat st;

		snprintf(path, sizeof(path), "%s/a.txt", mnt);
		EXPECT(read_file(path, buf, sizeof(buf)) == 6);
		snprintf(path, sizeof(path), "%s/sub", mnt);
		EXPECT(stat(path, &st) == 0);
	}
	EXPECT(run("dd if=/dev/zero of=%s/big bs=4k count=64 status=none && cat %s/big >/dev/null && "
		   "ls -lR %s >/dev/null", mnt, mnt, mnt) == 0);
	/* The mount is quiet now: the two reads see the same counts. */
	EXPECT(ctl("-j stats st") == 0 && stats_counts(counts) > 3, "%s", out);
	EXPECT(ctl("-j stats st --hist") == 0);
	j = json_tokener_parse(out);
	EXPECT(j && json_object_object_get_ex(j, "filters", &f) && json_object_array_length(f) == 1);
	f = json_object_array_get_idx(f, 0);
	EXPECT(!strcmp(jstr(f, "unit"), "usecs") && json_object_object_get_ex(f, "ops", &ops));
	for (size_t i = 0; i < json_object_array_length(ops); i++) {
		json_object *h = json_object_array_get_idx(ops, i), *slots;
		int64_t op = jint(h, "opcode"), sum = 0, prev_high = -1;

		EXPECT(op >= 0 && op < 64 && json_object_object_get_ex(h, "slots", &slots));
		for (size_t k = 0; k < json_object_array_length(slots); k++) {
			json_object *s = json_object_array_get_idx(slots, k);

			EXPECT(jint(s, "low") == prev_high + 1, "slots are contiguous");
			prev_high = jint(s, "high");
			sum += jint(s, "count");
		}
		EXPECT(sum == jint(h, "count"), "%s: slots %lld, count %lld", jstr(h, "op"),
		       (long long)sum, (long long)jint(h, "count"));
		EXPECT(sum == counts[op], "%s: histogram %lld, stats lat_count %lld", jstr(h, "op"),
		       (long long)sum, (long long)counts[op]);
		counts[op] = 0;
		total += sum;
		nops++;
	}
	for (int op = 0; op < 64; op++)
		EXPECT(counts[op] == 0, "op %d has lat_count %lld and no histogram", op,
		       (long long)counts[op]);
	EXPECT(nops > 3 && total > 150, "%d ops, %lld times", nops, (long long)total);
	/* Plain: fsdist's bars; one op. */
	EXPECT(ctl("stats st --hist read") == 0 && strstr(out, "operation = 'read'") &&
	       strstr(out, "usecs               : count    distribution") &&
	       strstr(out, "|****************************************|") && !strstr(out, "'lookup'"),
	       "%s", out);
	/* --reset zeroes both, so they still agree. */
	EXPECT(ctl("stats st --hist --reset >/dev/null") == 0);
	EXPECT(ctl("-j stats st --hist") == 0 && strstr(out, "\"ops\":[]"), "%s", out);
	EXPECT(ctl("-j stats st") == 0 && strstr(out, "\"ops\":[]"), "%s", out);
	EXPECT(run("cat %s/a.txt >/dev/null", mnt) == 0);
	EXPECT(ctl("-j stats st") == 0 && stats_counts(counts) > 0);
	EXPECT(ctl("-j stats st --hist open") == 0 && strstr(out, "\"op\":\"open\"") &&
	       counts[14] > 0, "%s", out);
	{
		char want[64];

		snprintf(want, sizeof(want), "\"opcode\":14,\"count\":%lld,", (long long)counts[14]);
		EXPECT(strstr(out, want), "no %s: %s", want, out);
	}
	/* Intervals: a sample per interval. */
	EXPECT(ctl("-j stats st --hist -i 0.2 2") == 0);
	EXPECT(run("test $(printf '%%s' '%s' | grep -c '\"sample\"') = 2", out) == 0, "%s", out);
	ret = TAP_OK;
out:
	json_object_put(j);
	teardown();
	return ret;
}

/* valgrind: the events reader, the histograms and the policy with no error and no leak. */
static int t_valgrind(void)
{
	int ret = TAP_FAIL;
	char vg[4600];

	NEED_FUSE_BPF();
	if (access("/usr/bin/valgrind", X_OK))
		SKIP("no valgrind");
	EXPECT(setup("valgrind") == 0);
	snprintf(vg, sizeof(vg), "valgrind -q --error-exitcode=99 --leak-check=full "
		 "--errors-for-leak-kinds=definite --suppressions=%s/../tests/guest/cli.supp "
		 "--log-file=%s/vg.%%p %s", dirname(strdupa(ctl_path)), dir, ctl_path);
	EXPECT(ctl("load denywrite --name ro --except-uid 1000 2>&1") == 0, "%s", out);
	EXPECT(ctl("attach %s %s --filter ro 2>&1", mnt, back) == 0, "%s", out);
	EXPECT(as_user(NOBODY, NOBODY, "touch %s/x 2>/dev/null", mnt) != 0);
	EXPECT(run("%s -j events ro | grep -q '\"op\":\"create\"' && %s events ro && "
		   "%s stats ro --hist && %s -j stats ro --hist lookup && %s policy ro && "
		   "%s deny ro except-gid add 5 && %s -j policy ro >/dev/null",
		   vg, vg, vg, vg, vg, vg, vg) == 0);
	EXPECT(run("cat %s/vg.*; ! grep -l 'ERROR SUMMARY: [1-9]\\|definitely lost: [1-9]' %s/vg.*",
		   dir, dir) == 0, "valgrind found something");
	ret = TAP_OK;
out:
	teardown();
	return ret;
}

static const struct tap_case cases[] = {
	{ "denied_write_event_unprivileged", t_denied_write_event },
	{ "json_events", t_json_events },
	{ "rate_limit_drops_counted", t_rate_limit },
	{ "ring_full_drops_counted", t_ring_full },
	{ "follow", t_follow },
	{ "syslog", t_syslog },
	{ "except_uid_denywrite_live", t_except_denywrite },
	{ "except_uid_hide_live", t_except_hide },
	{ "except_uid_hide_no_dcache_leak", t_except_hide_dcache },
	{ "knobs_and_errors", t_knobs_and_errors },
	{ "hist_adds_up_to_stats", t_hist_adds_up },
	{ "valgrind_events_hist_policy", t_valgrind },
};

int main(int argc, char **argv)
{
	char d[1900];	/* build/tests/guest */

	if (ctl_find(d, sizeof(d)))
		return 1;
	return tap_main("events", cases, sizeof(cases) / sizeof(cases[0]), argc, argv);
}
