// SPDX-License-Identifier: GPL-2.0
/*
 * The filters of make fuzz: fuse_ops struct_ops maps built from the
 * programs of tests/fuzz/ffilter.bpf.c, and the replacer that switches
 * them while the workers run.
 *
 * The object has two maps with every member, fz and fz2 (their programs
 * read their own rows of the verdict table). They are loaded and never
 * attached: each epoch makes its own maps, each with a random subset of
 * one of them's programs (an op without a member runs no program, and is
 * done as if unfiltered), attaches them, hands them to root_bpf= and the
 * servers, and detaches and closes them after the epoch's unmounts; then
 * no fuse_ops map but the object's two may be left (the kernel's
 * references are gone). Some epochs leave a few members out of every map:
 * their programs must not run at all that epoch.
 *
 * The replacer (a process of its own, restarted when the driver mounts a
 * connection afresh) switches filters at random: FUSE_DEV_IOC_BPF_REPLACE
 * on a connection's /dev/fuse between two of the epoch's maps, and a
 * remount with root_bpf=. Its own oracle: replacing between the epoch's
 * maps succeeds or finds no filter running the old one (ENOENT), a remount
 * with root_bpf= succeeds exactly on the mounts that have a root filter,
 * and a map never attached or a program is refused (a detached map may be:
 * the fix of 6.1's never freed maps accepts it, as it was).
 * The workers' oracle needs nothing of which filter ran: an op done under
 * a map without its member is one that any filter may do (a prefilter
 * that returns FUSE_BPF_BACKING), and each op runs under one map's ops,
 * the old or the new, from its prefilter to its postfilter.
 */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/fuse.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "ffilter.skel.h"
#include "fusebpf_uapi.h"
#include "fuzz.h"


/* struct fuse_ops's members in order (include/linux/fuse_bpf.h), checked against the BTF */
static const struct {
	const char *name;
	uint32_t opcode;
} fz_members[FZ_MEMBERS] = {
	{ "lookup", FUSE_LOOKUP }, { "getattr", FUSE_GETATTR }, { "setattr", FUSE_SETATTR },
	{ "readlink", FUSE_READLINK }, { "symlink", FUSE_SYMLINK }, { "mknod", FUSE_MKNOD },
	{ "mkdir", FUSE_MKDIR }, { "unlink", FUSE_UNLINK }, { "rmdir", FUSE_RMDIR },
	{ "rename2", FUSE_RENAME2 }, { "link", FUSE_LINK }, { "open", FUSE_OPEN },
	{ "read", FUSE_READ }, { "write", FUSE_WRITE }, { "statfs", FUSE_STATFS },
	{ "release", FUSE_RELEASE }, { "fsync", FUSE_FSYNC }, { "setxattr", FUSE_SETXATTR },
	{ "getxattr", FUSE_GETXATTR }, { "listxattr", FUSE_LISTXATTR },
	{ "removexattr", FUSE_REMOVEXATTR }, { "flush", FUSE_FLUSH }, { "opendir", FUSE_OPENDIR },
	{ "readdir", FUSE_READDIR }, { "releasedir", FUSE_RELEASEDIR }, { "fsyncdir", FUSE_FSYNCDIR },
	{ "access", FUSE_ACCESS }, { "create", FUSE_CREATE }, { "fallocate", FUSE_FALLOCATE },
	{ "lseek", FUSE_LSEEK }, { "copy_file_range", FUSE_COPY_FILE_RANGE },
};

#define FZ_ALL_MEMBERS ((1u << FZ_MEMBERS) - 1)

/* The run's: the object, and how a map's value is laid out */
static struct {
	struct ffilter_bpf *skel;
	uint32_t value_type;		/* bpf_struct_ops_fuse_ops in vmlinux's BTF */
	uint32_t value_size;
	uint32_t member_off[FZ_MEMBERS];	/* a member's program fd, in the value */
	uint32_t post_only_off;		/* struct fuse_ops' post_only, in the value */
	int prog[2][FZ_MEMBERS];	/* fz's and fz2's programs */
} FL;

uint32_t fz_member_opcode(uint32_t i)
{
	return i < FZ_MEMBERS ? fz_members[i].opcode : 0;
}

const char *fz_member_name(uint32_t i)
{
	return i < FZ_MEMBERS ? fz_members[i].name : "?";
}

/* --- loading ------------------------------------------------------------------------- */

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

/* The offset of member name of struct type id, in bytes, or -1 */
static long fz_btf_offset(const struct btf *btf, uint32_t id, const char *name)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_member *m = btf_members(t);

	for (int i = 0; i < btf_vlen(t); i++, m++)
		if (!strcmp(btf__name_by_offset(btf, m->name_off), name))
			return btf_member_bit_offset(t, i) / 8;
	return -1;
}

/* Where a map value (struct bpf_struct_ops_fuse_ops) holds each member: -ENOENT without one */
static int fz_layout(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	int vt, ops, rc = -ENOENT;
	long data;

	if (!btf)
		return -errno;
	vt = btf__find_by_name_kind(btf, "bpf_struct_ops_fuse_ops", BTF_KIND_STRUCT);
	ops = btf__find_by_name_kind(btf, "fuse_ops", BTF_KIND_STRUCT);
	if (vt < 0 || ops < 0 || (data = fz_btf_offset(btf, vt, "data")) < 0)
		goto out;
	rc = -EINVAL;	/* the kernel's struct fuse_ops is not this fuzzer's */
	if (btf_vlen(btf__type_by_id(btf, ops)) != FZ_MEMBERS + 1 ||
	    fz_btf_offset(btf, ops, "post_only") < 0)
		goto out;
	FL.post_only_off = data + fz_btf_offset(btf, ops, "post_only");
	for (int i = 0; i < FZ_MEMBERS; i++) {
		const struct btf_member *m = btf_members(btf__type_by_id(btf, ops)) + i;

		if (strcmp(btf__name_by_offset(btf, m->name_off), fz_members[i].name))
			goto out;
		FL.member_off[i] = data + fz_btf_offset(btf, ops, fz_members[i].name);
	}
	FL.value_type = vt;
	FL.value_size = btf__type_by_id(btf, vt)->size;
	rc = 0;
out:
	btf__free(btf);
	return rc;
}

static int fz_find_programs(void)
{
	static const char *const maps[] = { "fz", "fz2" };
	char name[64];

	for (int s = 0; s < 2; s++)
		for (int i = 0; i < FZ_MEMBERS; i++) {
			struct bpf_program *p;

			snprintf(name, sizeof(name), "%s_%s", maps[s], fz_members[i].name);
			p = bpf_object__find_program_by_name(FL.skel->obj, name);
			if (!p || (FL.prog[s][i] = bpf_program__fd(p)) < 0)
				return -ENOENT;
		}
	return 0;
}

/* The object and the layout; -ENOENT: no fuse_ops in this kernel */
int fz_filters_load(struct fz_epoch *e)
{
	int rc;

	libbpf_set_print(libbpf_quiet);
	rc = fz_layout();
	if (rc)
		return rc;
	FL.skel = ffilter_bpf__open_and_load();
	if (!FL.skel)
		return -errno ?: -EINVAL;
	rc = fz_find_programs();
	if (rc)
		return rc;
	e->idle_map_fd = bpf_map__fd(FL.skel->maps.fz);
	e->member_prog_fd = FL.prog[0][0];
	e->verdict_fd = bpf_map__fd(FL.skel->maps.verdicts);
	e->gone_map_fd = -1;
	return 0;
}

void fz_filters_unload(void)
{
	ffilter_bpf__destroy(FL.skel);
	FL.skel = NULL;
}

/* --- the epoch's maps ------------------------------------------------------------------ */

/* post_only's bits (BIT(opcode)) for these members */
static uint64_t fz_post_only_mask(uint32_t members)
{
	uint64_t mask = 0;

	for (int i = 0; i < FZ_MEMBERS; i++)
		if (members & 1u << i)
			mask |= 1ull << fz_members[i].opcode;
	return mask;
}

/*
 * A fuse_ops map of these members of fz's programs (fz2's: second), with
 * post_only, attached; its fd
 */
static int fz_filter_create(bool second, uint32_t members, uint64_t post_only)
{
	/* The kernel wants some BTF with a kernel struct's value: the object's */
	LIBBPF_OPTS(bpf_map_create_opts, o, .btf_fd = bpf_object__btf_fd(FL.skel->obj),
		    .btf_vmlinux_value_type_id = FL.value_type);
	char *value = calloc(1, FL.value_size);
	uint32_t zero = 0;
	int fd, rc;

	if (!value)
		return -ENOMEM;
	fd = bpf_map_create(BPF_MAP_TYPE_STRUCT_OPS, second ? "fz2_filter" : "fz_filter",
			    sizeof(zero), FL.value_size, 1, &o);
	for (int i = 0; fd >= 0 && i < FZ_MEMBERS; i++)
		if (members & 1u << i)
			*(uint64_t *)(value + FL.member_off[i]) = FL.prog[second][i];
	if (fd >= 0)
		*(uint64_t *)(value + FL.post_only_off) = post_only;
	rc = fd < 0 ? -errno : bpf_map_update_elem(fd, &zero, value, BPF_ANY) ? -errno : fd;
	if (rc < 0 && fd >= 0)
		close(fd);
	free(value);
	return rc;
}

/* A filter's members: all, none, one or two, or each by a chance */
static uint32_t fz_members_plan(struct fz_rng *r)
{
	uint32_t p = fz_below(r, 100), pct, m = 0;

	if (p < 20)
		return FZ_ALL_MEMBERS;
	if (p < 28)
		return 0;
	if (p < 40)
		return 1u << fz_below(r, FZ_MEMBERS) | 1u << fz_below(r, FZ_MEMBERS);
	pct = (uint32_t[]){ 25, 50, 75, 90 }[fz_below(r, 4)];
	for (int i = 0; i < FZ_MEMBERS; i++)
		if (fz_chance(r, pct))
			m |= 1u << i;
	return m;
}

/*
 * A post_only with the bit of an op that struct fuse_ops has no member for
 * (FORGET, or above the last opcode) is refused at the update: an oracle
 * failure otherwise.
 */
static int fz_post_only_refused(struct fz_epoch *e, struct fz_rng *r)
{
	uint64_t bad = fz_chance(r, 50) ? 1ull << FUSE_FORGET : 1ull << (48 + fz_below(r, 16));
	int fd = fz_filter_create(fz_chance(r, 50), fz_members_plan(r), bad);

	if (fd == -EINVAL)
		return 0;
	if (fd >= 0)
		close(fd);
	printf("# ORACLE (kernel bug) epoch %u: post_only %#llx (no such member): the update %s, want EINVAL\n",
	       e->epoch, (unsigned long long)bad, fd >= 0 ? "succeeded" : strerror(-fd));
	return -EPROTO;
}

int fz_filters_make(struct fz_epoch *e, struct fz_rng *r)
{
	uint32_t zero = 0;
	int want = 2 + fz_below(r, FZ_FILTERS - 1), fd;

	e->unfiltered = 0;
	for (int n = fz_chance(r, 40) ? 1 + fz_below(r, 3) : 0; n > 0; n--)
		e->unfiltered |= 1u << fz_below(r, FZ_MEMBERS);
	for (e->nfilters = 0; e->nfilters < want; e->nfilters++) {
		struct fz_filter *f = &e->filter[e->nfilters];

		f->second = fz_chance(r, 40);
		f->members = fz_members_plan(r) & ~e->unfiltered;
		f->post_only = fz_chance(r, 30) ? fz_members_plan(r) : 0;
		f->fd = fz_filter_create(f->second, f->members, fz_post_only_mask(f->post_only));
		if (f->fd < 0) {
			printf("# epoch %u: making filter %d: %s\n", e->epoch, e->nfilters, strerror(-f->fd));
			return f->fd;
		}
	}
	fd = fz_filter_create(false, fz_members_plan(r) & ~e->unfiltered, 0);
	if (fd < 0)
		return fd;
	e->gone_map_fd = fd;
	if (bpf_map_delete_elem(fd, &zero))
		return -errno;
	return fz_chance(r, 10) ? fz_post_only_refused(e, r) : 0;
}

/* Detach the epoch's maps and close them: the kernel's references are all that may be left */
void fz_filters_drop(struct fz_epoch *e)
{
	uint32_t zero = 0;

	for (int i = 0; i < e->nfilters; i++) {
		bpf_map_delete_elem(e->filter[i].fd, &zero);
		close(e->filter[i].fd);
	}
	e->nfilters = 0;
	if (e->gone_map_fd >= 0)
		close(e->gone_map_fd);
	e->gone_map_fd = -1;
}

void fz_filter_desc(const struct fz_filter *f, char *buf, size_t cap)
{
	int n = __builtin_popcount(f->members);
	size_t len = snprintf(buf, cap, "%s", f->second ? "fz2" : "fz");

	if (n == 0 || n == FZ_MEMBERS || n > 3) {
		len += snprintf(buf + len, cap - len, n == FZ_MEMBERS ? " all" : " %d members", n);
	} else {
		for (int i = 0; i < FZ_MEMBERS && len < cap; i++)
			if (f->members & 1u << i)
				len += snprintf(buf + len, cap - len, " %s", fz_members[i].name);
	}
	if (f->post_only && len < cap)
		snprintf(buf + len, cap - len, ", %d post-only",
			 __builtin_popcount(f->post_only & f->members));
}

/* --- counting --------------------------------------------------------------------------- */

/* -1 before the layout is known and in a kernel without fuse_ops */
int fz_count_fuse_ops_maps(void)
{
	uint32_t id = 0;
	int n = 0;

	if (!FL.value_type && fz_layout())
		return -1;
	while (!bpf_map_get_next_id(id, &id)) {
		struct bpf_map_info info = {};
		uint32_t len = sizeof(info);
		int fd = bpf_map_get_fd_by_id(id);

		if (fd < 0)
			continue;	/* freed meanwhile */
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) && info.type == BPF_MAP_TYPE_STRUCT_OPS &&
		    info.btf_vmlinux_value_type_id == FL.value_type)
			n++;
		close(fd);
	}
	return n;
}

uint64_t fz_filter_count(bool runs, uint32_t from, uint32_t to)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *v = calloc(ncpu > 0 ? ncpu : 1, sizeof(*v)), sum = 0;
	struct bpf_map *map = runs ? FL.skel->maps.runs : FL.skel->maps.wrong_member;

	for (uint32_t k = from; v && k < to; k++) {
		if (bpf_map_lookup_elem(bpf_map__fd(map), &k, v))
			continue;
		for (int c = 0; c < ncpu; c++)
			sum += v[c];
	}
	free(v);
	return sum;
}

/* Runs, in any phase, of the members that no filter of the epoch has */
uint64_t fz_unfiltered_runs(const struct fz_epoch *e)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; i < FZ_MEMBERS; i++) {
		uint32_t op = fz_members[i].opcode;

		if (!(e->unfiltered & 1u << i))
			continue;
		for (uint32_t phase = 0; phase < 3; phase++)
			sum += fz_filter_count(true, phase * FZ_MAX_OP + op, phase * FZ_MAX_OP + op + 1);
	}
	return sum;
}

/* --- the replacer ------------------------------------------------------------------------ */

/* The replacer's oracle failed: in its ring, on stdout and in the shared page */
static void rp_oracle_fail(struct fz_epoch *e, struct fz_ring *ring, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void rp_oracle_fail(struct fz_epoch *e, struct fz_ring *ring, const char *fmt, ...)
{
	char msg[sizeof(e->sh->oracle) - 16];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fz_log(ring, "ORACLE: %s", msg);
	printf("# ORACLE (kernel bug) epoch %u, replacer: %s\n", e->epoch, msg);
	fflush(stdout);
	if (!e->sh->oracle[0])
		snprintf(e->sh->oracle, sizeof(e->sh->oracle), "replacer: %s", msg);
}

/* The replacer's state: which filter each mount's root runs, as far as it knows */
struct rp {
	struct fz_epoch *e;
	struct fz_rng r;
	struct fz_ring *ring;
	int root[FZ_MAX_MOUNTS];	/* e->filter[] index, -1: none or not known */
};

/* What rp_pick() gave: one of the epoch's filters, or not */
enum rp_kind { RP_FILTER, RP_BAD, RP_DETACHED };

/*
 * A map fd to name: one of the epoch's filters (*i its index), or with
 * bad_pct percent one that the kernel must refuse (a map never attached, a
 * program) or one it must take (a map attached and detached since: the
 * loader detaches every map), *i -1.
 */
static int rp_pick(struct rp *rp, uint32_t bad_pct, int *i, enum rp_kind *kind, char *what,
		   size_t cap)
{
	struct fz_epoch *e = rp->e;
	uint32_t p = fz_below(&rp->r, 100);

	*i = -1;
	*kind = p < bad_pct ? RP_BAD : RP_FILTER;
	if (p >= bad_pct) {
		*i = fz_below(&rp->r, e->nfilters);
		snprintf(what, cap, "filter %d", *i);
		return e->filter[*i].fd;
	}
	p = fz_below(&rp->r, 3);
	snprintf(what, cap, "%s", (const char *[]){ "idle map", "detached map", "member program" }[p]);
	if (p == 1)
		*kind = RP_DETACHED;
	return p == 0 ? e->idle_map_fd : p == 1 ? e->gone_map_fd : e->member_prog_fd;
}

/*
 * What the kernel must answer: done or ENOENT (nothing ran the old map),
 * done, EINVAL, or any of these (a detached map)
 */
enum rp_expect { RP_REPLACE, RP_REMOUNT, RP_REFUSED, RP_ANY };

/* What to expect of a replacement naming maps of these kinds, when it works with filters */
static enum rp_expect rp_expect(enum rp_kind a, enum rp_kind b, enum rp_expect good)
{
	if (a == RP_BAD || b == RP_BAD)
		return RP_REFUSED;
	return good;
}

/* Count a replacement's result, or fail the oracle with it; true when it was done */
static bool rp_check(struct rp *rp, const char *how, enum rp_expect want, int err)
{
	static const char *const wanted[] = { "done or ENOENT", "done", "EINVAL", "done, ENOENT or EINVAL" };
	struct fz_shared *sh = rp->e->sh;
	uint32_t *count = NULL;

	if ((want == RP_REFUSED || want == RP_ANY) && err == EINVAL)
		count = &sh->refused;
	else if ((want == RP_REPLACE || want == RP_ANY) && (!err || err == ENOENT))
		count = err ? &sh->replace_none : &sh->replaced;
	else if (want == RP_REMOUNT && !err)
		count = &sh->remounted;
	fz_done(rp->ring, err ? -1 : 0, err);
	if (count)
		__atomic_add_fetch(count, 1, __ATOMIC_RELAXED);
	else
		rp_oracle_fail(rp->e, rp->ring, "%s: %s, not %s", how, err ? strerror(err) : "done",
			       wanted[want]);
	return !err;
}

/*
 * FUSE_DEV_IOC_BPF_REPLACE on a random connection's /dev/fuse: old mostly
 * the map its root runs (when it has a root filter), new any.
 */
static void rp_ioctl(struct rp *rp)
{
	int k = fz_below(&rp->r, rp->e->nmounts), oi, ni;
	struct fz_mount *m = &rp->e->m[k];
	enum rp_kind okind, nkind;
	struct fuse_bpf_replace arg = {};
	char how[160], old[24], new[24];
	int rc;

	if (m->fuse_fd < 0)
		return;
	arg.old_fd = rp_pick(rp, 8, &oi, &okind, old, sizeof(old));
	if (oi >= 0 && rp->root[k] >= 0 && fz_chance(&rp->r, 70)) {
		oi = rp->root[k];
		arg.old_fd = rp->e->filter[oi].fd;
		snprintf(old, sizeof(old), "filter %d", oi);
	}
	arg.new_fd = rp_pick(rp, 8, &ni, &nkind, new, sizeof(new));
	snprintf(how, sizeof(how), "ioctl BPF_REPLACE %s: %s by %s", m->path, old, new);
	fz_log(rp->ring, "%s", how);
	rc = ioctl(m->fuse_fd, FUSE_DEV_IOC_BPF_REPLACE, &arg);
	if (rp_check(rp, how, rp_expect(okind, nkind, RP_REPLACE), rc ? errno : 0) &&
	    rp->root[k] == oi)
		rp->root[k] = ni;
}

/* root_bpf=@fd by fsconfig() on the mount at @path: 0 or an errno */
static int rp_reconfigure(const char *path, int fd)
{
	int fs = fspick(AT_FDCWD, path, FSPICK_CLOEXEC), err = 0;
	char val[16];

	snprintf(val, sizeof(val), "%d", fd);
	if (fs < 0 || fsconfig(fs, FSCONFIG_SET_STRING, "root_bpf", val, 0) ||
	    fsconfig(fs, FSCONFIG_CMD_RECONFIGURE, NULL, NULL, 0))
		err = errno;
	if (fs >= 0)
		close(fs);
	return err;
}

/*
 * root_bpf= by fsconfig(): works on a mount with a root filter, EINVAL on
 * others. Seldom a map the kernel must refuse: the kernel logs each. Now
 * and then a legacy mount(MS_REMOUNT) with root_bpf=, which must succeed
 * and change nothing (the root keeps what it runs).
 */
static void rp_remount(struct rp *rp)
{
	int k = fz_below(&rp->r, rp->e->nmounts), i;
	struct fz_mount *m = &rp->e->m[k];
	char opts[32], how[160], what[24];
	enum rp_kind kind;
	int fd = rp_pick(rp, 2, &i, &kind, what, sizeof(what)), err;

	if (!m->used)
		return;
	if (fz_chance(&rp->r, 10)) {
		snprintf(opts, sizeof(opts), "root_bpf=%d", fd);
		snprintf(how, sizeof(how), "legacy remount %s root_bpf= %s", m->path, what);
		fz_log(rp->ring, "%s", how);
		err = mount("tfuse", m->path, "fuse.tfuse", MS_REMOUNT, opts) ? errno : 0;
		rp_check(rp, how, RP_REMOUNT, err);
		return;
	}
	snprintf(how, sizeof(how), "fsconfig %s (%sroot filter) root_bpf= %s", m->path,
		 m->filtered ? "" : "no ", what);
	fz_log(rp->ring, "%s", how);
	err = rp_reconfigure(m->path, fd);
	if (rp_check(rp, how, rp_expect(kind, RP_FILTER, m->filtered ? RP_REMOUNT : RP_REFUSED),
		     err))
		rp->root[k] = i;
}

void fz_replacer(struct fz_epoch *e, struct fz_ring *ring, uint32_t gen)
{
	struct rp rp = { .e = e, .ring = ring };

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	fz_seed(&rp.r, e->seed, e->epoch, FZ_ROLE_REPLACER, gen);
	snprintf(ring->who, sizeof(ring->who), "replacer %u", gen);
	ring->pid = getpid();
	/* Restarted after a remount: what the roots run is not known then */
	for (int k = 0; k < FZ_MAX_MOUNTS; k++)
		rp.root[k] = !gen && k < e->nmounts && e->m[k].filtered ? e->m[k].root_filter : -1;
	while (!*e->stop && e->nfilters && e->nmounts) {
		if (fz_chance(&rp.r, 70))
			rp_ioctl(&rp);
		else
			rp_remount(&rp);
		usleep(1000 * fz_below(&rp.r, 25));
	}
	_exit(0);
}
