// SPDX-License-Identifier: GPL-2.0
/*
 * Audit mode and explain, through a mounted view, as an administrator runs
 * them with fusebpfctl:
 *
 * - 'policy NAME enforce off' (or enforce = no in a configuration file):
 *   hide and denywrite refuse and hide nothing,
 *   report would-hide and would-deny events with the errno the caller would
 *   have got, and count them in stats; 'enforce on' enforces again at once
 *   (a hidden name looked up in audit mode is not left in the dentry cache).
 * - 'explain PATH': which view, filter and rule decide what a caller gets,
 *   checked against what the caller does get through the view: a name hidden
 *   by name and by pattern, a denied write, an attribute rule, a uid
 *   exception, an --at subtree, the JSON shape, and bad input.
 *
 * Each case has its own pins, state directory and mount.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "tctl.h"
#include "tjson.h"
#include "tproc.h"

#define NOBODY 65534
#define OWNER 1000

static char out[1 << 18];	/* the last command's stdout (and stderr, when redirected) */
static char pins[128], state[128], dir[128], mnt[160], back[160];

/* fusebpfctl ARGS (see ctl_into()): output in out[]. */
#define ctl(...) ctl_into(out, sizeof(out), __VA_ARGS__)

/* A fresh environment: pins, state, a backing tree anyone may write, a mountpoint. */
static int setup(const char *name)
{
	snprintf(pins, sizeof(pins), "/sys/fs/bpf/au-%s", name);
	snprintf(state, sizeof(state), "/tmp/au-%s/state", name);
	snprintf(dir, sizeof(dir), "/tmp/au-%s", name);
	snprintf(mnt, sizeof(mnt), "%s/mnt", dir);
	snprintf(back, sizeof(back), "%s/back", dir);
	setenv("FUSEBPF_PIN_DIR", pins, 1);
	setenv("FUSEBPF_STATE_DIR", state, 1);
	return run("mkdir -p %s/sub %s && echo hello > %s/a.txt && echo secret > %s/secret && "
		   "echo s2 > %s/sub/secret && echo b > %s/sub/x.bak && echo r > %s/run.sh && "
		   "chmod 0666 %s/a.txt %s/secret %s/sub/secret %s/sub/x.bak && chmod 0644 %s/run.sh && "
		   "chmod 0777 %s %s/sub && chmod 0755 %s",
		   back, mnt, back, back, back, back, back, back, back, back, back, back, back, back,
		   dir);
}

static void teardown(void)
{
	ctl_cleanup(pins, dir, mnt);
}

/* An event of the array with this verdict, op and name (NULL: none). */
static json_object *find_event(json_object *arr, const char *verdict, const char *op, const char *name)
{
	for (size_t i = 0; arr && i < json_object_array_length(arr); i++) {
		json_object *e = json_object_array_get_idx(arr, i);
		const char *n = jstr(e, "name");

		if (!strcmp(jstr(e, "verdict"), verdict) && !strcmp(jstr(e, "op"), op) &&
		    (name ? n && !strcmp(n, name) : !n))
			return e;
	}
	return NULL;
}

/* A field of the totals row of '-j stats NAME', -1 when out[] has none. */
static int64_t stats_total(const char *field)
{
	json_object *o = json_tokener_parse(out), *f, *t;
	int64_t v = -1;

	if (json_object_object_get_ex(o, "filters", &f) && json_object_array_length(f) == 1 &&
	    json_object_object_get_ex(json_object_array_get_idx(f, 0), "totals", &t))
		v = jint(t, field);
	json_object_put(o);
	return v;
}

/* Parse out[] as one JSON document. */
static json_object *json_out(void)
{
	return json_tokener_parse(out);
}

static json_object *step(json_object *o, size_t i)
{
	json_object *steps;

	if (!json_object_object_get_ex(o, "steps", &steps))
		return NULL;
	return json_object_array_get_idx(steps, i);
}

#define NEED_FUSE_BPF()                                                   \
	do {                                                              \
		if (!fuse_bpf())                                          \
			SKIP("this kernel has no fuse-bpf BPF side");     \
	} while (0)

/* --- audit mode --------------------------------------------------------------------- */

/* hide in audit mode: the name is there, would-hide is reported and counted; then enforced. */
static int t_audit_hide(void)
{
	json_object *arr = NULL, *e;
	int ret = TAP_FAIL;
	char path[256];

	NEED_FUSE_BPF();
	EXPECT(setup("hide") == 0);
	EXPECT(ctl("load hide --name priv --hide secret --events-readdir 2>&1") == 0, "%s", out);
	EXPECT(ctl("policy priv enforce off 2>&1") == 0, "%s", out);
	EXPECT(ctl("-j policy priv") == 0 && strstr(out, "\"enforce\":false"), "%s", out);
	EXPECT(ctl("policy priv") == 0 && strstr(out, "enforce:    off (audit mode"), "%s", out);
	EXPECT(ctl("attach %s %s --filter priv 2>&1", mnt, back) == 0, "%s", out);
	EXPECT(as_user(NOBODY, NOBODY, "grep -qx secret %s/secret", mnt) == 0, "audit hides nothing");
	EXPECT(as_user(NOBODY, NOBODY, "ls %s | grep -qx secret", mnt) == 0, "nor from listings");
	EXPECT(ctl("-j events priv") == 0, "%s", out);
	arr = json_lines(out, "event");
	e = find_event(arr, "would-hide", "lookup", "secret");
	EXPECT(e && !strcmp(jstr(e, "errno"), "ENOENT") && jint(e, "uid") == NOBODY &&
	       !strcmp(jstr(e, "policy"), "hide"), "%s", out);
	EXPECT(find_event(arr, "would-hide", "readdir", "secret"), "a listing's entry: %s", out);
	EXPECT(!strstr(out, "\"verdict\":\"hidden\""), "nothing hidden: %s", out);
	EXPECT(ctl("-j stats priv") == 0 && stats_total("would_hide") >= 2 && stats_total("hidden") == 0,
	       "%s", out);
	EXPECT(ctl("stats priv") == 0 && strstr(out, "WOULD_HIDE"), "%s", out);
	/* Enforcing again: at once, although the name was just looked up. */
	EXPECT(ctl("policy priv enforce on 2>&1") == 0, "%s", out);
	snprintf(path, sizeof(path), "%s/secret", mnt);
	EXPECT(open_as(NOBODY, NOBODY, path, O_RDONLY, NULL) == ENOENT, "the dentry did not outlive audit mode");
	EXPECT(as_user(NOBODY, NOBODY, "ls %s | grep -qx secret", mnt) != 0);
	EXPECT(ctl("-j stats priv") == 0 && stats_total("hidden") >= 2, "%s", out);
	ret = TAP_OK;
out:
	json_object_put(arr);
	teardown();
	return ret;
}

/* denywrite in audit mode: writes go through, would-deny with the errno; then enforced. */
static int t_audit_denywrite(void)
{
	json_object *arr = NULL, *e;
	int ret = TAP_FAIL;
	char path[256];

	NEED_FUSE_BPF();
	EXPECT(setup("deny") == 0);
	EXPECT(ctl("load denywrite --name ro --deny-errno EACCES 2>&1") == 0, "%s", out);
	EXPECT(ctl("attach %s %s --filter ro 2>&1", mnt, back) == 0, "%s", out);
	EXPECT(ctl("policy ro enforce off 2>&1") == 0, "%s", out);
	EXPECT(as_user(NOBODY, NOBODY, "echo more >> %s/a.txt", mnt) == 0, "audit refuses nothing");
	EXPECT(as_user(NOBODY, NOBODY, "touch %s/new", mnt) == 0);
	EXPECT(run("grep -qx more %s/a.txt && test -e %s/new", back, back) == 0, "the writes were done");
	EXPECT(ctl("-j events ro") == 0, "%s", out);
	arr = json_lines(out, "event");
	e = find_event(arr, "would-deny", "open", NULL);
	EXPECT(e && !strcmp(jstr(e, "errno"), "EACCES") && !strcmp(jstr(e, "policy"), "denywrite"),
	       "%s", out);
	EXPECT(find_event(arr, "would-deny", "create", "new"), "%s", out);
	EXPECT(!strstr(out, "\"verdict\":\"denied\""), "%s", out);
	EXPECT(ctl("-j stats ro") == 0 && stats_total("would_deny") >= 2 && stats_total("denied") == 0,
	       "%s", out);
	EXPECT(ctl("events ro 2>&1") == 0 && !out[0], "read once");
	EXPECT(ctl("policy ro enforce on 2>&1") == 0, "%s", out);
	EXPECT(ctl("-j policy ro") == 0 && strstr(out, "\"enforce\":true"), "%s", out);
	snprintf(path, sizeof(path), "%s/a.txt", mnt);
	EXPECT(open_as(NOBODY, NOBODY, path, O_WRONLY, NULL) == EACCES);
	EXPECT(ctl("-j events ro") == 0 && strstr(out, "\"verdict\":\"denied\"") &&
	       !strstr(out, "would-deny"), "%s", out);
	EXPECT(ctl("-j stats ro") == 0 && stats_total("denied") >= 1, "%s", out);
	ret = TAP_OK;
out:
	json_object_put(arr);
	teardown();
	return ret;
}

/* enforce = no in a configuration file: apply sets it, finds nothing more, resets it when gone. */
static int t_audit_from_config(void)
{
	int ret = TAP_FAIL;
	char conf[256];

	NEED_FUSE_BPF();
	EXPECT(setup("conf") == 0);
	snprintf(conf, sizeof(conf), "%s/trial.conf", dir);
	EXPECT(run("printf '[trial]\\nfilter = denywrite\\nenforce = no\\n' > %s", conf) == 0);
	EXPECT(ctl("apply %s 2>&1", conf) == 0 && strstr(out, "load denywrite --name trial"), "%s", out);
	EXPECT(ctl("-j policy trial") == 0 && strstr(out, "\"enforce\":false"), "%s", out);
	EXPECT(ctl("apply %s 2>&1", conf) == 0 && strstr(out, "nothing to change"), "%s", out);
	EXPECT(ctl("attach %s %s --filter trial 2>&1", mnt, back) == 0, "%s", out);
	EXPECT(as_user(NOBODY, NOBODY, "echo more >> %s/a.txt", mnt) == 0, "audit refuses nothing");
	EXPECT(ctl("-j stats trial") == 0 && stats_total("would_deny") >= 1, "%s", out);
	EXPECT(run("printf '[trial]\\nfilter = denywrite\\n' > %s", conf) == 0);
	EXPECT(ctl("apply %s 2>&1", conf) == 0 && strstr(out, "policy trial enforce on"), "%s", out);
	EXPECT(as_user(NOBODY, NOBODY, "echo more >> %s/a.txt 2>/dev/null", mnt) != 0, "enforced");
	EXPECT(run("printf '[trial]\\nfilter = attrs\\nenforce = no\\n' > %s", conf) == 0);
	EXPECT(ctl("apply --dry-run %s 2>&1", conf) == 1 && strstr(out, "trial.conf:3:"), "%s", out);
	ret = TAP_OK;
out:
	teardown();
	return ret;
}

/* Audit mode means something only where a policy refuses or hides. */
static int t_audit_needs_a_policy(void)
{
	int ret = TAP_FAIL;

	NEED_FUSE_BPF();
	EXPECT(setup("attrs") == 0);
	EXPECT(ctl("load attrs --name shown --mode -0222 2>&1") == 0, "%s", out);
	EXPECT(ctl("policy shown enforce off 2>&1") == 1 && strstr(out, "no hide or denywrite policy"),
	       "%s", out);
	EXPECT(ctl("policy shown enforce sometimes 2>&1") == 2, "%s", out);
	EXPECT(ctl("policy nosuch enforce off 2>&1") == 1, "%s", out);
	ret = TAP_OK;
out:
	teardown();
	return ret;
}

/* --- explain ------------------------------------------------------------------------ */

/* Hidden by name and by pattern, as the view hides them; the JSON names the rule. */
static int t_explain_hidden(void)
{
	json_object *o = NULL, *s;
	int ret = TAP_FAIL;
	char path[256];

	NEED_FUSE_BPF();
	EXPECT(setup("exhide") == 0);
	EXPECT(ctl("load hide --name priv --hide secret --hide-suffix .bak 2>&1") == 0, "%s", out);
	EXPECT(ctl("attach %s %s --filter priv 2>&1", mnt, back) == 0, "%s", out);
	snprintf(path, sizeof(path), "%s/sub/x.bak", mnt);
	EXPECT(open_as(NOBODY, NOBODY, path, O_RDONLY, NULL) == ENOENT, "the view hides it");
	EXPECT(ctl("explain %s/secret --uid %d", mnt, NOBODY) == 0, "%s", out);
	EXPECT(strstr(out, ": hide (ENOENT)\n") &&
	       strstr(out, "lookup \"secret\": hide by hide of priv, rule name \"secret\""), "%s", out);
	EXPECT(ctl("-j explain %s/sub/x.bak --uid %d", mnt, NOBODY) == 0, "%s", out);
	o = json_out();
	s = step(o, 0);
	EXPECT(o && !strcmp(jstr(o, "verdict"), "hide") && !strcmp(jstr(o, "errno"), "ENOENT") &&
	       !strcmp(jstr(o, "relpath"), "sub/x.bak"), "%s", out);
	EXPECT(s && !strcmp(jstr(s, "rule"), "suffix") && !strcmp(jstr(s, "match"), ".bak") &&
	       !strcmp(jstr(s, "filter"), "priv") && !strcmp(jstr(s, "path"), "sub/x.bak"), "%s", out);
	json_object_put(o);
	o = NULL;
	/* Below a hidden directory: the walk ends at it. A visible name: allow. */
	EXPECT(run("mkdir -p %s/secretdir/in && touch %s/secretdir/in/f", back, back) == 0);
	EXPECT(ctl("hide priv add secretdir 2>&1") == 0);
	EXPECT(ctl("-j explain %s/secretdir/in/f --op read", mnt) == 0, "%s", out);
	o = json_out();
	EXPECT(o && !strcmp(jstr(o, "verdict"), "hide") && !strcmp(jstr(step(o, 0), "path"), "secretdir"),
	       "%s", out);
	EXPECT(ctl("explain %s/a.txt", mnt) == 0 && strstr(out, ": allow\n"), "%s", out);
	/* Creating a hidden name: EACCES, by hide. */
	EXPECT(ctl("explain %s/sub/new.bak --op create", mnt) == 0 && strstr(out, ": deny (EACCES)\n"),
	       "%s", out);
	snprintf(path, sizeof(path), "%s/sub/new.bak", mnt);
	EXPECT(open_as(NOBODY, NOBODY, path, O_WRONLY | O_CREAT, NULL) == EACCES, "as explained");
	ret = TAP_OK;
out:
	json_object_put(o);
	teardown();
	return ret;
}

/* A denied write: which policy and errno; reads are allowed. */
static int t_explain_denied(void)
{
	json_object *o = NULL, *s;
	int ret = TAP_FAIL;
	char path[256];

	NEED_FUSE_BPF();
	EXPECT(setup("exdeny") == 0);
	EXPECT(ctl("load denywrite --name ro --deny-errno EPERM --allow scratch 2>&1") == 0, "%s", out);
	EXPECT(ctl("attach %s %s --filter ro 2>&1", mnt, back) == 0, "%s", out);
	EXPECT(ctl("-j explain %s/a.txt --op write", mnt) == 0, "%s", out);
	o = json_out();
	s = step(o, 0);
	EXPECT(o && !strcmp(jstr(o, "verdict"), "deny") && !strcmp(jstr(o, "errno"), "EPERM") &&
	       !strcmp(jstr(o, "filter"), "ro") && !strcmp(jstr(o, "op"), "write"), "%s", out);
	EXPECT(s && !strcmp(jstr(s, "policy"), "denywrite") && !strcmp(jstr(s, "rule"), "write"), "%s", out);
	snprintf(path, sizeof(path), "%s/a.txt", mnt);
	EXPECT(open_as(NOBODY, NOBODY, path, O_WRONLY, NULL) == EPERM, "as explained");
	EXPECT(ctl("explain %s/a.txt --op read", mnt) == 0 && strstr(out, ": allow\n"), "%s", out);
	EXPECT(open_as(NOBODY, NOBODY, path, O_RDONLY, NULL) == 0);
	EXPECT(ctl("explain %s/sub/scratch --op create", mnt) == 0 && strstr(out, ": allow\n") &&
	       strstr(out, "rule allow \"scratch\""), "%s", out);
	snprintf(path, sizeof(path), "%s/sub/scratch", mnt);
	EXPECT(open_as(NOBODY, NOBODY, path, O_WRONLY | O_CREAT, NULL) == 0, "as explained");
	EXPECT(ctl("explain %s/sub/x.bak --op unlink", mnt) == 0 && strstr(out, ": deny (EPERM)\n"),
	       "%s", out);
	ret = TAP_OK;
out:
	json_object_put(o);
	teardown();
	return ret;
}

/* The attribute rule a stat goes through: the name's own, else the one for every name. */
static int t_explain_attrs(void)
{
	json_object *o = NULL, *a;
	int ret = TAP_FAIL;
	struct stat st;
	char path[256];

	NEED_FUSE_BPF();
	EXPECT(setup("exattrs") == 0);
	EXPECT(ctl("load attrs --name shown --mode -0222 2>&1") == 0, "%s", out);
	EXPECT(ctl("attrs shown set run.sh --mode +0111 --uid 0 2>&1") == 0, "%s", out);
	EXPECT(ctl("attach %s %s --filter shown 2>&1", mnt, back) == 0, "%s", out);
	snprintf(path, sizeof(path), "%s/run.sh", mnt);
	EXPECT(stat(path, &st) == 0 && (st.st_mode & 0777) == 0755, "mode %o", st.st_mode & 0777);
	EXPECT(ctl("-j explain %s/run.sh --op getattr", mnt) == 0, "%s", out);
	o = json_out();
	EXPECT(o && json_object_object_get_ex(o, "attrs", &a) && a, "%s", out);
	EXPECT(!strcmp(jstr(a, "rule"), "run.sh") && !strcmp(jstr(a, "mode_set"), "0111") &&
	       jint(a, "uid") == 0 && !jstr(a, "gid") && !strcmp(jstr(a, "filter"), "shown"), "%s", out);
	json_object_put(o);
	o = NULL;
	EXPECT(ctl("-j explain %s/a.txt", mnt) == 0, "%s", out);
	o = json_out();
	EXPECT(o && json_object_object_get_ex(o, "attrs", &a) && a && !jstr(a, "rule") &&
	       !strcmp(jstr(a, "mode_clear"), "0222"), "the rule for every name: %s", out);
	EXPECT(ctl("explain %s/a.txt", mnt) == 0 && strstr(out, "attrs    the rule for every name of "
							   "shown: set 0000 clear 0222"), "%s", out);
	ret = TAP_OK;
out:
	json_object_put(o);
	teardown();
	return ret;
}

/* A uid exception: the step says who is excepted; another caller is refused. */
static int t_explain_except(void)
{
	json_object *o = NULL, *s, *e;
	int ret = TAP_FAIL;

	NEED_FUSE_BPF();
	EXPECT(setup("exexc") == 0);
	EXPECT(ctl("load hide --name priv --hide secret --except-uid %d 2>&1", OWNER) == 0, "%s", out);
	EXPECT(ctl("attach %s %s --filter priv 2>&1", mnt, back) == 0, "%s", out);
	EXPECT(ctl("-j explain %s/secret --uid %d", mnt, OWNER) == 0, "%s", out);
	o = json_out();
	s = step(o, 0);
	EXPECT(o && !strcmp(jstr(o, "verdict"), "allow") && s && !strcmp(jstr(s, "verdict"), "excepted") &&
	       json_object_object_get_ex(s, "excepted", &e) && e && !strcmp(jstr(e, "kind"), "uid") &&
	       jint(e, "id") == OWNER, "%s", out);
	EXPECT(jint(json_object_object_get(o, "caller"), "uid") == OWNER, "%s", out);
	EXPECT(as_user(OWNER, OWNER, "grep -qx secret %s/secret", mnt) == 0, "as explained");
	EXPECT(ctl("explain %s/secret --uid %d --gid %d", mnt, NOBODY, NOBODY) == 0 &&
	       strstr(out, ": hide (ENOENT)\n") && strstr(out, "uid 65534 gid 65534"), "%s", out);
	EXPECT(as_user(NOBODY, NOBODY, "cat %s/secret 2>/dev/null", mnt) != 0, "as explained");
	ret = TAP_OK;
out:
	json_object_put(o);
	teardown();
	return ret;
}

/* Through --at subtrees: the subtree's filter, the mount's elsewhere, none where served. */
static int t_explain_at(void)
{
	json_object *o = NULL, *s;
	int ret = TAP_FAIL;
	char path[256];

	NEED_FUSE_BPF();
	EXPECT(setup("exat") == 0);
	EXPECT(ctl("load denywrite --name ro 2>&1") == 0, "%s", out);
	EXPECT(ctl("load hide --name priv --hide secret 2>&1") == 0, "%s", out);
	EXPECT(ctl("attach %s %s --filter ro --at sub=priv 2>&1", mnt, back) == 0, "%s", out);
	EXPECT(ctl("-j explain %s/sub/secret", mnt) == 0, "%s", out);
	o = json_out();
	s = step(o, 0);
	EXPECT(o && !strcmp(jstr(o, "verdict"), "hide") && s && !strcmp(jstr(s, "filter"), "priv") &&
	       !strcmp(jstr(s, "subtree"), "sub"), "%s", out);
	snprintf(path, sizeof(path), "%s/sub/secret", mnt);
	EXPECT(open_as(NOBODY, NOBODY, path, O_RDONLY, NULL) == ENOENT, "as explained");
	json_object_put(o);
	o = NULL;
	EXPECT(ctl("-j explain %s/sub/x.bak --op write", mnt) == 0, "%s", out);
	o = json_out();
	EXPECT(o && !strcmp(jstr(o, "verdict"), "allow") && !strcmp(jstr(o, "filter"), "priv") &&
	       !strcmp(jstr(o, "subtree"), "sub"), "%s", out);
	EXPECT(as_user(NOBODY, NOBODY, "echo w >> %s/sub/x.bak", mnt) == 0, "as explained");
	json_object_put(o);
	o = NULL;
	EXPECT(ctl("-j explain %s/a.txt --op write", mnt) == 0, "%s", out);
	o = json_out();
	EXPECT(o && !strcmp(jstr(o, "verdict"), "deny") && !strcmp(jstr(o, "filter"), "ro") &&
	       !jstr(o, "subtree"), "%s", out);
	snprintf(path, sizeof(path), "%s/a.txt", mnt);
	EXPECT(open_as(NOBODY, NOBODY, path, O_WRONLY, NULL) == EROFS, "as explained");
	/* A name in the root is looked up by fusebpfctl, outside every filter; none is made there. */
	EXPECT(ctl("explain %s/secret", mnt) == 0 && strstr(out, ": allow\n"), "%s", out);
	EXPECT(ctl("explain %s/newname --op create", mnt) == 0 && strstr(out, ": deny (EPERM)\n") &&
	       strstr(out, "none: served by fusebpfctl"), "%s", out);
	EXPECT(as_user(NOBODY, NOBODY, "touch %s/newname 2>/dev/null", mnt) != 0, "as explained");
	ret = TAP_OK;
out:
	json_object_put(o);
	teardown();
	return ret;
}

static bool keys_are(json_object *o, const char *want)
{
	char got[512] = "";
	size_t len = 0;

	if (!o)
		return false;
	json_object_object_foreach(o, k, v) {
		(void)v;
		len += snprintf(got + len, sizeof(got) - len, "%s%s", len ? "," : "", k);
	}
	printf("keys %s\n", got);
	return !strcmp(got, want);
}

/* The documented JSON shape, and explain in audit mode. */
static int t_explain_json(void)
{
	json_object *o = NULL, *v;
	int ret = TAP_FAIL;

	NEED_FUSE_BPF();
	EXPECT(setup("exjson") == 0);
	EXPECT(ctl("load fusebpf --name combo --policies hide,denywrite --hide secret 2>&1") == 0, "%s", out);
	EXPECT(ctl("attach %s %s --filter combo 2>&1", mnt, back) == 0, "%s", out);
	EXPECT(ctl("policy combo enforce off 2>&1") == 0, "%s", out);
	EXPECT(ctl("-j explain %s/secret --op write --uid %d", mnt, NOBODY) == 0, "%s", out);
	o = json_out();
	EXPECT(keys_are(o, "path,view,relpath,caller,op,filter,subtree,served,verdict,errno,steps,"
			   "attrs,note"), "%s", out);
	EXPECT(keys_are(json_object_object_get(o, "view"), "mountpoint,backing,mode"));
	EXPECT(!strcmp(jstr(json_object_object_get(o, "view"), "mountpoint"), mnt));
	EXPECT(keys_are(step(o, 0), "path,op,filter,subtree,policy,verdict,errno,rule,match,excepted"));
	EXPECT(!strcmp(jstr(o, "verdict"), "would-hide") && !strcmp(jstr(step(o, 0), "verdict"),
								 "would-hide"), "%s", out);
	EXPECT(!strcmp(jstr(step(o, 1), "verdict"), "would-deny") &&
	       !strcmp(jstr(step(o, 1), "errno"), "EROFS"), "%s", out);
	EXPECT(json_object_object_get_ex(o, "attrs", &v) && !v);
	EXPECT(json_object_object_get_ex(o, "served", &v) && json_object_is_type(v, json_type_boolean));
	EXPECT(as_user(NOBODY, NOBODY, "echo w >> %s/secret", mnt) == 0, "audit: done after all");
	ret = TAP_OK;
out:
	json_object_put(o);
	teardown();
	return ret;
}

/* Bad input: a clear message and the exit status, nothing else. */
static int t_explain_errors(void)
{
	int ret = TAP_FAIL;

	NEED_FUSE_BPF();
	EXPECT(setup("exerr") == 0);
	EXPECT(ctl("load hide --name priv --hide secret 2>&1") == 0, "%s", out);
	EXPECT(ctl("attach %s %s --filter priv 2>&1", mnt, back) == 0, "%s", out);
	EXPECT(ctl("explain %s/nosuch 2>&1", mnt) == 1 && strstr(out, "No such file or directory") &&
	       strstr(out, "nosuch"), "%s", out);
	EXPECT(ctl("explain %s/nosuch/new --op create 2>&1", mnt) == 1, "%s", out);
	EXPECT(ctl("explain %s/new --op create 2>&1", mnt) == 0, "its directory exists: %s", out);
	EXPECT(ctl("explain /tmp 2>&1") == 1 && strstr(out, "not on a view"), "%s", out);
	EXPECT(ctl("explain %s/a.txt --op frobnicate 2>&1", mnt) == 2 && strstr(out, "unknown --op"),
	       "%s", out);
	EXPECT(ctl("explain 2>&1") == 2, "%s", out);
	EXPECT(ctl("explain %s/a.txt %s/secret 2>&1", mnt, mnt) == 2, "%s", out);
	EXPECT(ctl("explain %s/a.txt --uid nosuchuser 2>&1", mnt) == 2, "%s", out);
	EXPECT(ctl("-j explain /tmp 2>/dev/null") == 1 && strstr(out, "{\"error\":"), "%s", out);
	EXPECT(ctl("explain --help") == 0 && strstr(out, "EXAMPLES"), "%s", out);
	ret = TAP_OK;
out:
	teardown();
	return ret;
}

static const struct tap_case cases[] = {
	{ "audit_hide_reports_and_shows", t_audit_hide },
	{ "audit_denywrite_reports_and_writes", t_audit_denywrite },
	{ "audit_from_config", t_audit_from_config },
	{ "audit_needs_hide_or_denywrite", t_audit_needs_a_policy },
	{ "explain_hidden_by_name_and_pattern", t_explain_hidden },
	{ "explain_denied_write", t_explain_denied },
	{ "explain_attribute_rule", t_explain_attrs },
	{ "explain_uid_exception", t_explain_except },
	{ "explain_at_subtree", t_explain_at },
	{ "explain_json_and_audit", t_explain_json },
	{ "explain_bad_input", t_explain_errors },
};

int main(int argc, char **argv)
{
	char d[1900];	/* build/tests/guest */

	if (ctl_find(d, sizeof(d)))
		return 1;
	return tap_main("audit", cases, sizeof(cases) / sizeof(cases[0]), argc, argv);
}
