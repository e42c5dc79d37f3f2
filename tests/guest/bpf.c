// SPDX-License-Identifier: GPL-2.0
/*
 * fuse-bpf's BPF side: the fuse_ops struct_ops type and who may load it,
 * prefilters, postfilters, entry filters and server filters, attached by
 * mount option and by LOOKUP replies; rejections; per-op counts; no leaked
 * programs.
 */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <linux/capability.h>
#include <unistd.h>

#include "fusebpf_loader.h"
#include "fusebpf_uapi.h"

#include "kfilter.skel.h"
#include "tap.h"
#include "tfuse.h"

#ifndef FUSE_PREFILTER
#define FUSE_OPCODE_MASK 0x0ffff
#define FUSE_PREFILTER 0x10000
#define FUSE_POSTFILTER 0x20000
#endif

static char mnt[64], back[64];

/* --- loading ----------------------------------------------------------------- */

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_WARN)
		return vfprintf(stderr, fmt, ap);
	return 0;
}

static bool have_fuse_ops(void);

static struct bpf_link *filter_links[64];
static int n_filter_links;

/* Detach every filter map (so the kernel lets go of them), then free them */
static void filters_destroy(struct kfilter_bpf *skel)
{
	while (n_filter_links > 0)
		bpf_link__destroy(filter_links[--n_filter_links]);
	kfilter_bpf__destroy(skel);
}

/* Open and load the filters, fuse_ops maps, and attach them all */
static int load_filters(struct kfilter_bpf **skel)
{
	struct bpf_map *m;
	int err;

	libbpf_set_print(libbpf_quiet);
	if (!have_fuse_ops())
		return -ENOENT;
	*skel = kfilter_bpf__open();
	if (!*skel)
		return -errno;
	err = kfilter_bpf__load(*skel);
	if (err)
		return err;
	bpf_object__for_each_map(m, (*skel)->obj) {
		if (bpf_map__type(m) != BPF_MAP_TYPE_STRUCT_OPS || n_filter_links == 64)
			continue;
		filter_links[n_filter_links] = bpf_map__attach_struct_ops(m);
		if (!filter_links[n_filter_links])
			return -errno;
		n_filter_links++;
	}
	return 0;
}

/* --- a backing tree and a mount over it -------------------------------------- */

static int make_tree(void)
{
	strcpy(back, "/tmp/bpf-back-XXXXXX");
	strcpy(mnt, "/tmp/bpf-mnt-XXXXXX");
	if (!mkdtemp(back) || !mkdtemp(mnt))
		return -errno;
	return run("cd %s && echo public > public && echo secret > secret && chmod 600 public "
		   "&& mkdir -p dir/sub && echo s > dir/secret && echo s > dir/sub/secret "
		   "&& echo p > dir/sub/public", back);
}

static void cleanup(void)
{
	if (mnt[0]) {
		umount2(mnt, MNT_DETACH);
		rmdir(mnt);
	}
	if (back[0])
		run("rm -rf %s", back);
}

/* Mount with the root backed by the tree, no root filter, no server */
static int mount_unfiltered(void)
{
	char opts[128];
	int dirfd, fd;

	dirfd = open(back, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return -errno;
	snprintf(opts, sizeof(opts), "root_dir=%d,no_daemon,allow_other", dirfd);
	fd = tfuse_mount(mnt, opts);
	close(dirfd);
	if (fd >= 0)
		close(fd);
	return fd < 0 ? fd : 0;
}

/* Mount with the root backed by the tree and filtered by the fuse_ops map filter_fd, no server */
static int mount_filtered(int filter_fd)
{
	char opts[128];
	int dirfd, fd;

	dirfd = open(back, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return -errno;
	snprintf(opts, sizeof(opts), "root_dir=%d,root_bpf=%d,no_daemon,allow_other", dirfd,
		 filter_fd);
	fd = tfuse_mount(mnt, opts);
	close(dirfd);
	if (fd >= 0)
		close(fd);
	return fd < 0 ? fd : 0;
}

static const char *in(const char *dir, const char *name)
{
	static char buf[4][256];
	static int n;
	char *p = buf[n++ % 4];

	snprintf(p, 256, "%s/%s", dir, name);
	return p;
}

static __u64 op_count(struct kfilter_bpf *skel, __u32 op)
{
	int ncpu = libbpf_num_possible_cpus();
	__u64 vals[256] = { 0 }, sum = 0;

	if (ncpu <= 0 || ncpu > 256 ||
	    bpf_map_lookup_elem(bpf_map__fd(skel->maps.op_count), &op, vals))
		return ~0ULL;
	for (int i = 0; i < ncpu; i++)
		sum += vals[i];
	return sum;
}

static long long seen(struct kfilter_bpf *skel, __u32 slot)
{
	long long v = 0;

	bpf_map_lookup_elem(bpf_map__fd(skel->maps.seen), &slot, &v);
	return v;
}

static int listing_has(const char *dir, const char *name)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int found = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d)))
		if (!strcmp(de->d_name, name))
			found = 1;
	closedir(d);
	return found;
}

#define SETUP(skel)                                                              \
	do {                                                                     \
		int __e = load_filters(&(skel));                                 \
		if (__e == -ENOENT)                                              \
			SKIP("kernel without struct fuse_ops");                  \
		EXPECT(__e == 0, "loading the filters: %s", strerror(-__e));     \
		EXPECT(make_tree() == 0);                                        \
	} while (0)

/* --- cases --------------------------------------------------------------------------- */

static int t_sysfs(void)
{
	char buf[64];
	int ret = TAP_FAIL;

	if (!have_fuse_ops())
		SKIP("kernel without struct fuse_ops");
	/* filters are struct_ops maps: no program type number to publish */
	EXPECT(access("/sys/fs/fuse/bpf_prog_type_fuse", F_OK) && errno == ENOENT,
	       "/sys/fs/fuse/bpf_prog_type_fuse is still there");
	EXPECT(read_file("/sys/fs/fuse/features/fuse_bpf", buf, sizeof(buf)) > 0);
	EXPECT(strcmp(buf, "supported\n") == 0, "features/fuse_bpf: '%s'", buf);
	ret = TAP_OK;
out:
	return ret;
}

/*
 * Loading a filter as the kernel checks it: a fuse_ops member program (a
 * struct_ops program, raw: r0 = 0) and a fuse_ops struct_ops map, made by
 * hand against the kernel's BTF. LOADED: both load; else the bits of
 * PROG_EPERM and MAP_EPERM, or OTHER_ERR (printed).
 */
#define LOADED		0
#define PROG_EPERM	1
#define MAP_EPERM	2
#define OTHER_ERR	4

struct fuse_ops_btf {
	int ops_id;		/* struct fuse_ops */
	int value_id;		/* struct bpf_struct_ops_fuse_ops, a map's value */
	int value_size;
	int btf_fd;		/* a BTF object of ours: a struct_ops map needs one */
};

/* A BTF object with one int, loaded (by root: loading BTF needs CAP_BPF too) */
static int own_btf_fd(void)
{
	struct btf *btf = btf__new_empty();
	int fd = -ENOMEM;

	if (btf && btf__add_int(btf, "int", 4, BTF_INT_SIGNED) > 0 && !btf__load_into_kernel(btf))
		fd = fcntl(btf__fd(btf), F_DUPFD_CLOEXEC, 3);
	btf__free(btf);
	return fd;
}

static int fuse_ops_btf(struct fuse_ops_btf *b)
{
	struct btf *btf = btf__load_vmlinux_btf();

	if (!btf)
		return -errno;
	b->ops_id = btf__find_by_name_kind(btf, "fuse_ops", BTF_KIND_STRUCT);
	b->value_id = btf__find_by_name_kind(btf, "bpf_struct_ops_fuse_ops", BTF_KIND_STRUCT);
	b->value_size = b->value_id > 0 ? btf__resolve_size(btf, b->value_id) : -1;
	btf__free(btf);
	if (b->ops_id <= 0 || b->value_id <= 0 || b->value_size <= 0)
		return -ENOENT;
	b->btf_fd = own_btf_fd();
	return b->btf_fd < 0 ? -EIO : 0;
}

static int load_status(const char *what, int fd, int bit)
{
	if (fd >= 0) {
		close(fd);
		return LOADED;
	}
	if (errno == EPERM)
		return bit;
	printf("# %s: %s\n", what, strerror(errno));
	return OTHER_ERR;
}

static int load_raw_filter(const struct fuse_ops_btf *b)
{
	const struct bpf_insn prog[] = {
		{ .code = 0xb7, .dst_reg = 0, .imm = 0 },	/* r0 = 0 */
		{ .code = 0x95 },				/* exit */
	};
	LIBBPF_OPTS(bpf_prog_load_opts, popts, .attach_btf_id = b->ops_id,
		    .expected_attach_type = 0);			/* member 0, lookup */
	LIBBPF_OPTS(bpf_map_create_opts, mopts, .btf_fd = b->btf_fd,
		    .btf_vmlinux_value_type_id = b->value_id);
	int fd, st;

	fd = bpf_prog_load(BPF_PROG_TYPE_STRUCT_OPS, "fuse_lookup", "GPL", prog, 2, &popts);
	st = load_status("program", fd, PROG_EPERM);
	fd = bpf_map_create(BPF_MAP_TYPE_STRUCT_OPS, "fuse_ops", sizeof(int), b->value_size, 1,
			    &mopts);
	return st | load_status("map", fd, MAP_EPERM);
}

/* Leave the effective and permitted capabilities without those in drop (a mask) */
static int drop_caps(uint64_t drop)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return -errno;
	for (int i = 0; i < 2; i++) {
		d[i].effective &= ~(uint32_t)(drop >> (32 * i));
		d[i].permitted &= ~(uint32_t)(drop >> (32 * i));
	}
	return syscall(SYS_capset, &h, d) ? -errno : 0;
}

#define CAP(c) (1ULL << (c))

/* In a child without the capabilities in drop: load_raw_filter()'s result, 99 if not run */
static int load_without(const struct fuse_ops_btf *b, uint64_t drop)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(drop_caps(drop) ? 99 : load_raw_filter(b));
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 99;
	return WEXITSTATUS(status);
}

/* /proc/sys/kernel/unprivileged_bpf_disabled set to val; the old value, or -1 */
static int set_unpriv_bpf(int val)
{
	const char *path = "/proc/sys/kernel/unprivileged_bpf_disabled";
	char buf[16] = "";
	int old;

	if (read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	old = atoi(buf);
	snprintf(buf, sizeof(buf), "%d", val);
	return old == val || !write_file(path, buf, strlen(buf)) ? old : -1;
}

/*
 * Loading a filter needs CAP_BPF, and for its programs (struct_ops
 * programs) CAP_PERFMON too; CAP_SYS_ADMIN stands for both. With
 * unprivileged BPF allowed for the case (else the bpf() system call
 * refuses without CAP_BPF before the map or program is looked at), each
 * check is the struct_ops one: without CAP_BPF neither the program nor the
 * map loads, with CAP_BPF alone the program does not, with CAP_BPF and
 * CAP_PERFMON both do.
 */
static int t_load_privilege(void)
{
	const uint64_t admin = CAP(CAP_SYS_ADMIN), bpf = CAP(CAP_BPF), perfmon = CAP(CAP_PERFMON);
	int ret = TAP_FAIL, old = -1, r;
	struct fuse_ops_btf b = { .btf_fd = -1 };

	if (!have_fuse_ops())
		SKIP("kernel without struct fuse_ops");
	r = fuse_ops_btf(&b);
	EXPECT(r == 0, "the kernel's bpf_struct_ops_fuse_ops, a BTF object: %s", strerror(-r));
	r = load_raw_filter(&b);
	EXPECT(r == LOADED, "as root: %d", r);
	old = set_unpriv_bpf(0);
	if (old < 0)
		printf("# unprivileged BPF stays off: the bpf() call itself refuses\n");
	r = load_without(&b, admin | bpf | perfmon);
	EXPECT(r == (PROG_EPERM | MAP_EPERM), "without CAP_BPF: %d", r);
	r = load_without(&b, admin | perfmon);
	EXPECT(r == PROG_EPERM, "with CAP_BPF alone: %d", r);
	r = load_without(&b, admin);
	EXPECT(r == LOADED, "with CAP_BPF and CAP_PERFMON: %d", r);
	r = load_without(&b, bpf | perfmon);
	EXPECT(r == LOADED, "with CAP_SYS_ADMIN alone: %d", r);
	ret = TAP_OK;
out:
	if (old > 0)
		set_unpriv_bpf(old);
	if (b.btf_fd >= 0)
		close(b.btf_fd);
	return ret;
}

static int t_hide(void)
{
	struct kfilter_bpf *skel = NULL;
	int ret = TAP_FAIL;
	struct stat st;

	SETUP(skel);
	EXPECT(mount_filtered(bpf_map__fd(skel->maps.hide_secret)) == 0);
	EXPECT(stat(in(mnt, "secret"), &st) == -1 && errno == ENOENT, "stat: %s", strerror(errno));
	EXPECT(open(in(mnt, "secret"), O_RDONLY) == -1 && errno == ENOENT);
	EXPECT(stat(in(mnt, "public"), &st) == 0);
	EXPECT(listing_has(mnt, "secret") == 0, "readdir shows secret");
	EXPECT(listing_has(mnt, "public") == 1, "readdir lost public");
	/* inherited by the whole subtree */
	EXPECT(stat(in(mnt, "dir/sub/secret"), &st) == -1 && errno == ENOENT);
	EXPECT(listing_has(in(mnt, "dir/sub"), "secret") == 0);
	EXPECT(listing_has(in(mnt, "dir/sub"), "public") == 1);
	/* still there on the backing file system */
	EXPECT(stat(in(back, "secret"), &st) == 0 && stat(in(back, "dir/sub/secret"), &st) == 0);
	ret = TAP_OK;
out:
	cleanup();
	filters_destroy(skel);
	return ret;
}

/*
 * A READDIR prefilter's FUSE_BPF_NO_ENTRY_FILTER sends the page
 * to the caller without an entry filter run per entry (the filter would
 * drop every entry); LOOKUP is still filtered.
 */
static int t_no_entry_filter(void)
{
	struct kfilter_bpf *skel = NULL;
	int ret = TAP_FAIL;
	struct stat st;

	SETUP(skel);
	EXPECT(mount_filtered(bpf_map__fd(skel->maps.hide_secret_no_entries)) == 0);
	EXPECT(stat(in(mnt, "secret"), &st) == -1 && errno == ENOENT, "stat: %s", strerror(errno));
	EXPECT(listing_has(mnt, "secret") == 1, "readdir lost secret");
	EXPECT(listing_has(mnt, "public") == 1, "readdir lost public");
	EXPECT(listing_has(in(mnt, "dir/sub"), "public") == 1);
	EXPECT(seen(skel, 2) == 0, "the entry filter ran %lld times", seen(skel, 2));
	ret = TAP_OK;
out:
	cleanup();
	filters_destroy(skel);
	return ret;
}

/* The names in dir, counted; pos_name: the name read after seekdir() to the 3rd entry's telldir() */
static int count_and_seek(const char *dir, char *pos_name, size_t cap)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	char third[256] = "";
	long pos = -1;
	int n = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (++n == 3) {
			snprintf(third, sizeof(third), "%s", de->d_name);
			pos = telldir(d);
		}
	}
	pos_name[0] = 0;
	if (pos >= 0) {
		seekdir(d, pos);
		de = readdir(d);
		snprintf(pos_name, cap, "%s", de ? de->d_name : "(end)");
	}
	closedir(d);
	return n;
}

/*
 * NO_ENTRY_FILTER with POST_FILTER in every prefilter
 * verdict: other operations work as without it (LOOKUP still hides
 * "secret"; create, write, read, mkdir, rename, unlink; RELEASE and
 * RELEASEDIR), a READDIR of several pages, after a seekdir() too, lists
 * every entry with no entry filter run but the postfilter run; with
 * USER_FILTER the bit fails the READDIR with EIO.
 */
static int t_no_entry_filter_other_ops(void)
{
	struct kfilter_bpf *skel = NULL;
	int ret = TAP_FAIL, n, fd;
	char name[256], after[256];
	struct stat st;
	DIR *d;

	SETUP(skel);
	EXPECT(run("cd %s && mkdir many && for i in $(seq 1 400); do : > many/entry-with-a-long-name-$i; done",
		   back) == 0);
	EXPECT(mount_filtered(bpf_map__fd(skel->maps.no_entries_everywhere)) == 0);
	EXPECT(stat(in(mnt, "secret"), &st) == -1 && errno == ENOENT, "stat: %s", strerror(errno));
	EXPECT(stat(in(mnt, "public"), &st) == 0, "%s", strerror(errno));
	EXPECT(listing_has(mnt, "secret") == 1, "readdir lost secret");
	fd = open(in(mnt, "new"), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
	EXPECT(fd >= 0, "create: %s", strerror(errno));
	EXPECT(write(fd, "abc", 3) == 3);
	EXPECT(pread(fd, name, 3, 0) == 3 && !memcmp(name, "abc", 3));
	close(fd);
	OK(mkdir(in(mnt, "nd"), 0755));
	OK(rename(in(mnt, "new"), in(mnt, "nd/new2")));
	OK(stat(in(back, "nd/new2"), &st));
	OK(unlink(in(mnt, "nd/new2")));
	OK(rmdir(in(mnt, "nd")));
	n = count_and_seek(in(mnt, "many"), after, sizeof(after));
	EXPECT(n == 402, "listed %d of 402 entries", n);
	EXPECT(after[0] && strcmp(after, "(end)"), "nothing after seekdir()");
	snprintf(name, sizeof(name), "%s", after);
	n = count_and_seek(in(back, "many"), after, sizeof(after));
	EXPECT(!strcmp(name, after), "after seekdir(): %s, on the backing directory %s", name, after);
	EXPECT(seen(skel, 2) == 0, "the entry filter ran %lld times", seen(skel, 2));
	EXPECT(seen(skel, 3) > 2, "the READDIR postfilter ran %lld times", seen(skel, 3));
	cleanup();
	filters_destroy(skel);
	skel = NULL;

	SETUP(skel);
	EXPECT(mount_filtered(bpf_map__fd(skel->maps.no_entries_user)) == 0);
	d = opendir(mnt);
	EXPECT(d, "opendir: %s", strerror(errno));
	errno = 0;
	EXPECT(!readdir(d) && errno == EIO, "readdir: %s", strerror(errno));
	closedir(d);
	EXPECT(run("dmesg | grep -q 'fuse-bpf: filter of opcode 28 (phase 0x10000) returned invalid value 17'") == 0,
	       "no kernel message naming the op and value");
	ret = TAP_OK;
out:
	cleanup();
	filters_destroy(skel);
	return ret;
}

static int t_attrs(void)
{
	struct kfilter_bpf *skel = NULL;
	int ret = TAP_FAIL;
	struct stat st;

	SETUP(skel);
	EXPECT(mount_filtered(bpf_map__fd(skel->maps.rewrite_attrs)) == 0);
	EXPECT(stat(in(mnt, "public"), &st) == 0, "%s", strerror(errno));
	EXPECT(st.st_mode == (S_IFREG | 0640), "mode %o", st.st_mode);
	EXPECT(st.st_uid == 1234 && st.st_gid == 5678, "uid %u gid %u", st.st_uid, st.st_gid);
	EXPECT(stat(in(mnt, "dir"), &st) == 0);
	EXPECT(st.st_mode == (S_IFDIR | 0640) && st.st_uid == 1234, "dir mode %o", st.st_mode);
	EXPECT(op_count(skel, FUSE_GETATTR) > 0);
	/* the backing file is unchanged */
	EXPECT(stat(in(back, "public"), &st) == 0);
	EXPECT(st.st_mode == (S_IFREG | 0600) && st.st_uid == 0 && st.st_gid == 0,
	       "backing mode %o uid %u", st.st_mode, st.st_uid);
	ret = TAP_OK;
out:
	cleanup();
	filters_destroy(skel);
	return ret;
}

static int t_deny(void)
{
	struct kfilter_bpf *skel = NULL;
	char before[4096], after[4096], got[64];
	int ret = TAP_FAIL, fd = -1;

	SETUP(skel);
	EXPECT(run("cd %s && setfattr -n trusted.k -v v public && find . -printf '%%p %%m %%s\\n' "
		   "| sort > /tmp/bpf-deny-before", back) == 0);
	EXPECT(mount_filtered(bpf_map__fd(skel->maps.deny_writes)) == 0);
	EXPECT(open(in(mnt, "public"), O_WRONLY) == -1 && errno == EROFS, "open for write: %s",
	       strerror(errno));
	EXPECT(open(in(mnt, "public"), O_RDONLY | O_TRUNC) == -1 && errno == EROFS);
	EXPECT(open(in(mnt, "new"), O_WRONLY | O_CREAT, 0644) == -1 && errno == EROFS,
	       "create: %s", strerror(errno));
	EXPECT(unlink(in(mnt, "public")) == -1 && errno == EROFS, "unlink: %s", strerror(errno));
	EXPECT(rename(in(mnt, "public"), in(mnt, "moved")) == -1 && errno == EROFS);
	EXPECT(chmod(in(mnt, "public"), 0777) == -1 && errno == EROFS, "chmod: %s", strerror(errno));
	EXPECT(truncate(in(mnt, "public"), 0) == -1 && errno == EROFS);
	EXPECT(mkdir(in(mnt, "d"), 0755) == -1 && errno == EROFS);
	EXPECT(rmdir(in(mnt, "dir/sub")) == -1 && errno == EROFS);
	EXPECT(symlink("x", in(mnt, "l")) == -1 && errno == EROFS);
	EXPECT(link(in(mnt, "public"), in(mnt, "h")) == -1 && errno == EROFS);
	EXPECT(setxattr(in(mnt, "public"), "trusted.k", "w", 1, 0) == -1 && errno == EROFS);
	EXPECT(removexattr(in(mnt, "public"), "trusted.k") == -1 && errno == EROFS);
	/* reads still work */
	fd = open(in(mnt, "public"), O_RDONLY);
	EXPECT(fd >= 0, "open for read: %s", strerror(errno));
	EXPECT(read(fd, got, sizeof(got)) == 7 && !memcmp(got, "public\n", 7));
	EXPECT(getxattr(in(mnt, "public"), "trusted.k", got, sizeof(got)) == 1 && got[0] == 'v');
	EXPECT(listing_has(mnt, "public") == 1);
	/* nothing changed on the backing file system */
	EXPECT(run("cd %s && find . -printf '%%p %%m %%s\\n' | sort > /tmp/bpf-deny-after", back) == 0);
	EXPECT(read_file("/tmp/bpf-deny-before", before, sizeof(before)) > 0);
	EXPECT(read_file("/tmp/bpf-deny-after", after, sizeof(after)) > 0);
	EXPECT(strcmp(before, after) == 0, "backing changed:\n%s---\n%s", before, after);
	ret = TAP_OK;
out:
	if (fd >= 0)
		close(fd);
	cleanup();
	filters_destroy(skel);
	return ret;
}

static int t_error_rewrite(void)
{
	struct kfilter_bpf *skel = NULL;
	int ret = TAP_FAIL;

	SETUP(skel);
	EXPECT(run("mkdir %s/taken", back) == 0);
	EXPECT(mount_filtered(bpf_map__fd(skel->maps.errors_to_eperm)) == 0);
	/* "taken" is hidden from LOOKUP but there on the backing: EEXIST */
	EXPECT(mkdir(in(mnt, "taken"), 0755) == -1 && errno == EPERM, "mkdir of a hidden name: %s",
	       strerror(errno));
	EXPECT(seen(skel, 1) == -EEXIST, "the postfilter saw error_in %lld", seen(skel, 1));
	EXPECT(rmdir(in(mnt, "dir")) == -1 && errno == EPERM, "rmdir of a full directory: %s",
	       strerror(errno));
	EXPECT(seen(skel, 1) == -ENOTEMPTY, "the postfilter saw error_in %lld", seen(skel, 1));
	EXPECT(mkdir(in(mnt, "fresh"), 0755) == 0, "mkdir: %s", strerror(errno));
	EXPECT(seen(skel, 1) == 0);
	EXPECT(rmdir(in(mnt, "fresh")) == 0, "rmdir of an empty directory: %s", strerror(errno));
	EXPECT(seen(skel, 1) == 0);
	EXPECT(access(in(back, "fresh"), F_OK) == -1 && errno == ENOENT);
	EXPECT(access(in(back, "dir/sub"), F_OK) == 0 && access(in(back, "taken"), F_OK) == 0);
	ret = TAP_OK;
out:
	cleanup();
	filters_destroy(skel);
	return ret;
}

static int t_invalid_return(void)
{
	struct kfilter_bpf *skel = NULL;
	int ret = TAP_FAIL;
	struct stat st;

	SETUP(skel);
	EXPECT(mount_filtered(bpf_map__fd(skel->maps.bad_return)) == 0);
	EXPECT(stat(in(mnt, "public"), &st) == -1 && errno == EIO, "stat: %s", strerror(errno));
	EXPECT(run("dmesg | grep -q 'fuse-bpf: filter of opcode .* returned invalid value 77'") == 0,
	       "no kernel message naming the op and value");
	ret = TAP_OK;
out:
	cleanup();
	filters_destroy(skel);
	return ret;
}

static int t_arg_write_bounds(void)
{
	struct kfilter_bpf *skel = NULL;
	int ret = TAP_FAIL;
	struct stat st;

	SETUP(skel);
	EXPECT(mount_filtered(bpf_map__fd(skel->maps.bad_writes)) == 0);
	EXPECT(stat(in(mnt, "public"), &st) == 0, "%s", strerror(errno));
	EXPECT(seen(skel, 2) == -EACCES, "writing a name in arg: %lld", seen(skel, 2));
	EXPECT(seen(skel, 3) == -EACCES, "writing an out arg in a prefilter: %lld", seen(skel, 3));
	ret = TAP_OK;
out:
	cleanup();
	filters_destroy(skel);
	return ret;
}

/* Does the running kernel have struct fuse_ops (filters as struct_ops maps)? */
static bool have_fuse_ops(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	bool have;

	if (!btf)
		return false;
	have = btf__find_by_name_kind(btf, "fuse_ops", BTF_KIND_STRUCT) > 0;
	btf__free(btf);
	return have;
}

static int t_out_of_bounds_rejected(void)
{
	LIBBPF_OPTS(bpf_object_open_opts, oopts);
	char log[65536] = "", path[512];
	struct bpf_object *obj = NULL;
	int ret = TAP_FAIL, err;

	if (!have_fuse_ops())
		SKIP("kernel without struct fuse_ops");
	snprintf(path, sizeof(path), "%s/kfilter_oob.bpf.o", getenv("TEST_BPF_DIR") ?: "build/tests");
	oopts.kernel_log_buf = log;
	oopts.kernel_log_size = sizeof(log);
	oopts.kernel_log_level = 1;
	libbpf_set_print(libbpf_quiet);
	obj = bpf_object__open_file(path, &oopts);
	EXPECT(obj, "open %s: %s", path, strerror(errno));
	err = bpf_object__load(obj);
	EXPECT(err < 0, "a member reading the kernel's part of its context was loaded");
	EXPECT(strstr(log, "struct fuse_bpf_ctx is readable up to out_sizes only"),
	       "verifier log: %s", log);
	ret = TAP_OK;
out:
	bpf_object__close(obj);
	return ret;
}

/* Open and load tests/bpf/kfilter_min.bpf.o; its fuse_ops map, not attached */
static struct bpf_object *load_kmin(struct bpf_map **map)
{
	char path[512];
	struct bpf_object *obj;

	snprintf(path, sizeof(path), "%s/kfilter_min.bpf.o", getenv("TEST_BPF_DIR") ?: "build/tests");
	obj = bpf_object__open_file(path, NULL);
	if (!obj)
		return NULL;
	if (bpf_object__load(obj)) {
		bpf_object__close(obj);
		return NULL;
	}
	*map = bpf_object__find_map_by_name(obj, "kmin");
	return obj;
}

/* root_bpf= takes an attached fuse_ops map only: not a plain map, not one loaded but not attached */
static int t_root_bpf_needs_attached_fuse_ops(void)
{
	struct bpf_object *obj = NULL;
	struct bpf_link *link = NULL;
	struct bpf_map *map = NULL;
	int ret = TAP_FAIL, afd = -1;

	if (!have_fuse_ops())
		SKIP("kernel without struct fuse_ops");
	EXPECT(make_tree() == 0);
	afd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "plain", 4, 8, 1, NULL);
	EXPECT(afd >= 0, "array map: %s", strerror(errno));
	EXPECT(mount_filtered(afd) == -EINVAL, "an array map as root_bpf was accepted");
	obj = load_kmin(&map);
	EXPECT(obj && map, "load kfilter_min.bpf.o: %s", strerror(errno));
	EXPECT(mount_filtered(bpf_map__fd(map)) == -EINVAL, "a fuse_ops map not attached was accepted");
	link = bpf_map__attach_struct_ops(map);
	EXPECT(link, "attach kmin: %s", strerror(errno));
	EXPECT(mount_filtered(bpf_map__fd(map)) == 0, "the attached map was refused");
	ret = TAP_OK;
out:
	cleanup();
	bpf_link__destroy(link);
	bpf_object__close(obj);
	if (afd >= 0)
		close(afd);
	return ret;
}

/* kfilter_min's counters, read from its .bss map now ({~0, ~0} on error) */
struct kmin_count {
	__u64 getattrs, wrong_op;
};

/* kfilter_min's .bss map in obj, or NULL */
static struct bpf_map *kmin_bss(struct bpf_object *obj)
{
	struct bpf_map *m;

	bpf_object__for_each_map(m, obj)
		if (bpf_map__is_internal(m) && strstr(bpf_map__name(m), ".bss") &&
		    bpf_map__value_size(m) <= 8 * sizeof(struct kmin_count))
			return m;
	return NULL;
}

/* The counters from an fd of that map */
static struct kmin_count kmin_count_fd(int bss_fd)
{
	struct kmin_count c[8];	/* .bss holds only it; room to spare */
	__u32 zero = 0;

	memset(c, 0xff, sizeof(c));
	bpf_map_lookup_elem(bss_fd, &zero, c);
	return c[0];
}

static struct kmin_count kmin_count(struct bpf_object *obj)
{
	struct bpf_map *m = kmin_bss(obj);

	return kmin_count_fd(m ? bpf_map__fd(m) : -1);
}

/* An op without a member runs no program and is done on the backing file */
static int t_op_without_member(void)
{
	struct bpf_object *obj = NULL;
	struct bpf_link *link = NULL;
	struct bpf_map *map = NULL;
	char path[128], buf[64] = "";
	struct stat st;
	int ret = TAP_FAIL;

	if (!have_fuse_ops())
		SKIP("kernel without struct fuse_ops");
	EXPECT(make_tree() == 0);
	obj = load_kmin(&map);
	EXPECT(obj && map, "load kfilter_min.bpf.o");
	link = bpf_map__attach_struct_ops(map);
	EXPECT(link, "attach kmin: %s", strerror(errno));
	EXPECT(mount_filtered(bpf_map__fd(map)) == 0);
	snprintf(path, sizeof(path), "%s/public", mnt);
	EXPECT(read_file(path, buf, sizeof(buf)) == 7 && !strcmp(buf, "public\n"), "read: '%s'", buf);
	EXPECT(run("ls %s/dir/sub > /dev/null && touch %s/new && rm %s/new", mnt, mnt, mnt) == 0);
	EXPECT(stat(path, &st) == 0 && st.st_size == 7, "stat: %s", strerror(errno));
	EXPECT(kmin_count(obj).getattrs > 0, "the getattr member never ran");
	EXPECT(kmin_count(obj).wrong_op == 0, "the getattr member ran %llu times for other ops",
	       (unsigned long long)kmin_count(obj).wrong_op);
	ret = TAP_OK;
out:
	cleanup();
	bpf_link__destroy(link);
	bpf_object__close(obj);
	return ret;
}

/* root_bpf=@fd by fsconfig() on the mount at @path: 0 or -errno */
static int reconfigure_root_bpf(const char *path, int fd)
{
	char val[16];
	int fsfd = fspick(AT_FDCWD, path, FSPICK_CLOEXEC), rc = 0;

	if (fsfd < 0)
		return -errno;
	snprintf(val, sizeof(val), "%d", fd);
	if (fsconfig(fsfd, FSCONFIG_SET_STRING, "root_bpf", val, 0) ||
	    fsconfig(fsfd, FSCONFIG_CMD_RECONFIGURE, NULL, NULL, 0))
		rc = -errno;
	close(fsfd);
	return rc;
}

/*
 * root_bpf= by fsconfig() replaces the root's filter, and is refused on a
 * mount without one; a legacy mount(MS_REMOUNT) ignores it, as every FUSE
 * option (its fd number may be from a stored option string).
 */
static int t_remount_replaces_root_filter(void)
{
	struct bpf_object *o1 = NULL, *o2 = NULL;
	struct bpf_link *l1 = NULL, *l2 = NULL;
	struct bpf_map *m1 = NULL, *m2 = NULL;
	char opts[64], path[128];
	struct stat st;
	__u64 before;
	int ret = TAP_FAIL, err;

	if (!have_fuse_ops())
		SKIP("kernel without struct fuse_ops");
	EXPECT(make_tree() == 0);
	o1 = load_kmin(&m1);
	o2 = load_kmin(&m2);
	EXPECT(o1 && o2 && m1 && m2);
	EXPECT((l1 = bpf_map__attach_struct_ops(m1)) && (l2 = bpf_map__attach_struct_ops(m2)));
	EXPECT(mount_filtered(bpf_map__fd(m1)) == 0);
	snprintf(path, sizeof(path), "%s/public", mnt);
	EXPECT(stat(path, &st) == 0 && kmin_count(o1).getattrs > 0 && kmin_count(o2).getattrs == 0);
	snprintf(opts, sizeof(opts), "root_bpf=%d", bpf_map__fd(m2));
	EXPECT(mount("tfuse", mnt, "fuse.tfuse", MS_REMOUNT, opts) == 0, "remount: %s", strerror(errno));
	EXPECT(stat(path, &st) == 0 && kmin_count(o2).getattrs == 0,
	       "mount(MS_REMOUNT) with root_bpf= replaced the filter");
	EXPECT((err = reconfigure_root_bpf(mnt, bpf_map__fd(m2))) == 0, "fsconfig: %s",
	       strerror(-err));
	before = kmin_count(o1).getattrs;
	EXPECT(stat(path, &st) == 0 && stat(mnt, &st) == 0);
	EXPECT(kmin_count(o2).getattrs > 0, "the new filter did not run");
	EXPECT(kmin_count(o1).getattrs == before, "the old filter still ran");
	umount2(mnt, MNT_DETACH);
	EXPECT(mount_unfiltered() == 0);
	err = reconfigure_root_bpf(mnt, bpf_map__fd(m2));
	EXPECT(err == -EINVAL, "root_bpf= of a mount without a root filter: %s", strerror(-err));
	ret = TAP_OK;
out:
	cleanup();
	bpf_link__destroy(l1);
	bpf_link__destroy(l2);
	bpf_object__close(o1);
	bpf_object__close(o2);
	return ret;
}

/* Is a map of this id in the kernel (bpf_map_get_next_id())? */
static bool map_id_exists(__u32 id)
{
	__u32 next = 0;

	while (!bpf_map_get_next_id(next, &next))
		if (next == id)
			return true;
	return false;
}

/* Wait up to ms for map id to be freed (RCU grace periods, a work item) */
static bool map_id_gone(__u32 id, int ms)
{
	for (int t = 0; t < ms && map_id_exists(id); t += 20)
		usleep(20000);
	return !map_id_exists(id);
}

/*
 * A fuse_ops map released after its update (fusebpf_ops_release(): its
 * element deleted, state TOBEFREE) is taken as root_bpf= and filters as
 * before; unpinned and its fds closed, the mount keeps it, and it is freed
 * when the mount goes.
 */
static int t_released_map_freed_with_last_user(void)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	struct bpf_object *obj = NULL;
	struct bpf_link *link = NULL;
	struct bpf_map *map = NULL;
	int ret = TAP_FAIL, bss_fd = -1;
	char pin[64] = "";
	struct stat st;
	__u64 before;

	if (!have_fuse_ops())
		SKIP("kernel without struct fuse_ops");
	EXPECT(make_tree() == 0);
	obj = load_kmin(&map);
	EXPECT(obj && map, "load kfilter_min.bpf.o: %s", strerror(errno));
	EXPECT(bpf_obj_get_info_by_fd(bpf_map__fd(map), &info, &len) == 0 && info.id);
	EXPECT(kmin_bss(obj) && (bss_fd = dup(bpf_map__fd(kmin_bss(obj)))) >= 0);
	link = fusebpf_ops_update(map);
	EXPECT(link, "update kmin: %s", strerror(errno));
	fusebpf_ops_release(link);
	link = NULL;
	snprintf(pin, sizeof(pin), "/sys/fs/bpf/bpf-released-%d", getpid());
	EXPECT(bpf_obj_pin(bpf_map__fd(map), pin) == 0, "pin: %s", strerror(errno));
	EXPECT(mount_filtered(bpf_map__fd(map)) == 0, "a released fuse_ops map as root_bpf= was refused");
	EXPECT(unlink(pin) == 0);
	pin[0] = 0;
	bpf_object__close(obj);
	obj = NULL;
	EXPECT(map_id_exists(info.id), "the map was freed while a mount uses it");
	before = kmin_count_fd(bss_fd).getattrs;
	EXPECT(stat(in(mnt, "public"), &st) == 0 && stat(in(mnt, "dir/sub/public"), &st) == 0);
	EXPECT(kmin_count_fd(bss_fd).getattrs > before, "the released map's getattr member did not run");
	EXPECT(umount2(mnt, 0) == 0, "umount: %s", strerror(errno));
	EXPECT(map_id_gone(info.id, 5000), "map %u outlived its last fd, pin and mount", info.id);
	ret = TAP_OK;
out:
	cleanup();
	if (pin[0])
		unlink(pin);
	if (bss_fd >= 0)
		close(bss_fd);
	bpf_link__destroy(link);
	bpf_object__close(obj);
	return ret;
}

/* Open tests/bpf/<name>.bpf.o and load it, the verifier's log in log */
static struct bpf_object *load_named(const char *name, char *log, size_t logsz, int *err)
{
	LIBBPF_OPTS(bpf_object_open_opts, oopts);
	struct bpf_object *obj;
	char path[512];

	snprintf(path, sizeof(path), "%s/%s.bpf.o", getenv("TEST_BPF_DIR") ?: "build/tests", name);
	oopts.kernel_log_buf = log;
	oopts.kernel_log_size = logsz;
	oopts.kernel_log_level = 1;
	obj = bpf_object__open_file(path, &oopts);
	if (!obj) {
		*err = -errno;
		return NULL;
	}
	*err = bpf_object__load(obj);
	return obj;
}

/*
 * Load tests/bpf/<name>.bpf.o, which the verifier must refuse with @why in
 * its log: 0, or -1 with what happened in @log (the verifier's log, or a
 * line of ours).
 */
static int expect_refused(const char *name, const char *why, char *log, size_t logsz)
{
	struct bpf_object *obj;
	int err = 0;

	log[0] = '\0';
	libbpf_set_print(libbpf_quiet);
	obj = load_named(name, log, logsz, &err);
	if (!obj) {
		snprintf(log, logsz, "open %s.bpf.o: %s", name, strerror(-err));
		return -1;
	}
	bpf_object__close(obj);
	if (err >= 0) {
		snprintf(log, logsz, "%s was loaded", name);
		return -1;
	}
	return strstr(log, why) ? 0 : -1;
}

/*
 * A member that writes its context (tests/bpf/kfilter_ctxw.bpf.c): the
 * context is read-only, which the verifier enforces at load.
 */
static int t_ctx_write_rejected(void)
{
	static char log[65536];
	int ret = TAP_FAIL;

	if (!have_fuse_ops())
		SKIP("kernel without struct fuse_ops");
	EXPECT(expect_refused("kfilter_ctxw", "only read is supported", log, sizeof(log)) == 0,
	       "a member writing its context: %s", log);
	ret = TAP_OK;
out:
	return ret;
}

/* A struct_ops map of another type (bpf_dummy_ops) as root_bpf= */
static int t_dummy_ops_map_refused(void)
{
	static char log[65536];
	struct bpf_object *obj = NULL;
	struct bpf_map *map;
	int ret = TAP_FAIL, err = 0;

	if (!have_fuse_ops())
		SKIP("kernel without struct fuse_ops");
	EXPECT(make_tree() == 0);
	libbpf_set_print(libbpf_quiet);
	obj = load_named("kfilter_dummy", log, sizeof(log), &err);
	EXPECT(obj && err == 0, "load kfilter_dummy.bpf.o: %d %s", err, log);
	map = bpf_object__find_map_by_name(obj, "dummy");
	EXPECT(map && bpf_map__fd(map) >= 0);
	EXPECT(mount_filtered(bpf_map__fd(map)) == -EINVAL, "a bpf_dummy_ops map as root_bpf was accepted");
	ret = TAP_OK;
out:
	cleanup();
	bpf_object__close(obj);
	return ret;
}

/* The fuse kfuncs called by a tcp_congestion_ops member with its struct sock */
static int t_kfunc_from_foreign_struct_ops_refused(void)
{
	static char log[262144];
	int ret = TAP_FAIL;

	if (!have_fuse_ops())
		SKIP("kernel without struct fuse_ops");
	EXPECT(expect_refused("kfilter_kfunc_cc", "fuse_bpf_ctx", log, sizeof(log)) == 0,
	       "a congestion control calling bpf_fuse_get_arg on a sock: %s", log);
	ret = TAP_OK;
out:
	return ret;
}

/*
 * A fuse_ops member that hands the kfuncs a context it made itself, on its
 * stack or in a map value (tests/bpf/kfilter_forge.bpf.c): each variant
 * must be refused, since the kfuncs trust the context's pointers.
 */
static int t_forged_ctx_refused(void)
{
	static const char *const variant[] = { "sg", "ss", "mg", "ms" };
	static char log[262144];
	int ret = TAP_FAIL;
	char name[64];

	if (!have_fuse_ops())
		SKIP("kernel without struct fuse_ops");
	for (int i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "kfilter_forge_%s", variant[i]);
		EXPECT(expect_refused(name, "fuse_bpf_ctx must point to scalar", log,
				      sizeof(log)) == 0,
		       "%s: a forged struct fuse_bpf_ctx for a kfunc: %s", name, log);
	}
	ret = TAP_OK;
out:
	return ret;
}

static int ioc_replace(int devfd, int old_fd, int new_fd)
{
	struct fuse_bpf_replace r = { .old_fd = old_fd, .new_fd = new_fd };

	return ioctl(devfd, FUSE_DEV_IOC_BPF_REPLACE, &r) ? -errno : 0;
}

/*
 * The members whose index is a tracing attach type with a return value
 * (fsyncdir, access, create: tests/bpf/kfilter_retslot.bpf.c) read the
 * slot after their argument: refused, it is stale kernel stack.
 */
static int t_ret_slot_refused(void)
{
	static const char *const member[] = { "fsyncdir", "access", "create" };
	static char log[65536];
	int ret = TAP_FAIL;
	char name[64];

	if (!have_fuse_ops())
		SKIP("kernel without struct fuse_ops");
	for (int i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "kfilter_retslot_%s", member[i]);
		/* fuse_ops's own is_valid_access() refuses it before btf_ctx_access() */
		EXPECT(expect_refused(name, "invalid bpf_context access off=8", log,
				      sizeof(log)) == 0,
		       "%s: a member reading the return value slot: %s", member[i], log);
	}
	ret = TAP_OK;
out:
	return ret;
}

/*
 * A member that loads the low 1, 2 or 4 bytes of its context pointer
 * (tests/bpf/kfilter_narrow.bpf.c) and passes that to a kfunc: refused at
 * load, or the kfunc would take a truncated address for a context.
 */
static int t_narrow_ctx_load_refused(void)
{
	static const char *const width[] = { "1", "2", "4" };
	static char log[65536];
	int ret = TAP_FAIL;
	char name[64];

	if (!have_fuse_ops())
		SKIP("kernel without struct fuse_ops");
	for (int i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "kfilter_narrow_%s", width[i]);
		EXPECT(expect_refused(name, "invalid bpf_context access", log, sizeof(log)) == 0,
		       "a %s-byte load of the context pointer: %s", width[i], log);
	}
	ret = TAP_OK;
out:
	return ret;
}

/* A fuse_ops member calling tcp_congestion_ops's kfunc (kfilter_tcpkf.bpf.c) */
static int t_tcp_kfunc_from_fuse_ops_refused(void)
{
	static char log[65536];
	int ret = TAP_FAIL;

	if (!have_fuse_ops())
		SKIP("kernel without struct fuse_ops");
	EXPECT(expect_refused("kfilter_tcpkf", "tcp_reno_cong_avoid is not allowed", log,
			      sizeof(log)) == 0,
	       "a fuse_ops member calling tcp_reno_cong_avoid(): %s", log);
	ret = TAP_OK;
out:
	return ret;
}

/* kfilter_ext opened, its program to extend ext_target() of @tgt_fd; NULL on failure */
static struct bpf_object *open_ext(int tgt_fd, char *log, size_t logsz)
{
	LIBBPF_OPTS(bpf_object_open_opts, oopts);
	struct bpf_object *ext;
	struct bpf_program *p;
	char path[512];

	snprintf(path, sizeof(path), "%s/kfilter_ext.bpf.o",
		 getenv("TEST_BPF_DIR") ?: "build/tests");
	oopts.kernel_log_buf = log;
	oopts.kernel_log_size = logsz;
	oopts.kernel_log_level = 1;
	ext = bpf_object__open_file(path, &oopts);
	if (!ext)
		return NULL;
	p = bpf_object__next_program(ext, NULL);
	if (!p || bpf_program__set_attach_target(p, tgt_fd, "ext_target")) {
		bpf_object__close(ext);
		return NULL;
	}
	return ext;
}

/* The fd of program @prog of object @name, loaded into *obj */
static int load_prog_of(const char *name, const char *prog, struct bpf_object **obj,
			char *log, size_t logsz)
{
	struct bpf_program *p;
	int err = 0;

	*obj = load_named(name, log, logsz, &err);
	if (!*obj || err)
		return -1;
	p = bpf_object__find_program_by_name(*obj, prog);
	return p ? bpf_program__fd(p) : -1;
}

/*
 * An extension (freplace) would run inside a filter but is verified with
 * the generic struct_ops ops, without fuse_ops' kfunc allow-list: the
 * kernel refuses to extend a fuse_ops program, whether the extension is
 * loaded for one, or loaded for a bpf_dummy_ops program and then attached
 * to one.
 */
static int t_extension_of_fuse_ops_refused(void)
{
	static char log[262144];
	struct bpf_object *tgt = NULL, *dummy = NULL, *ext = NULL;
	struct bpf_link *link = NULL;
	int ret = TAP_FAIL, fuse_fd, dummy_fd;

	if (!have_fuse_ops())
		SKIP("kernel without struct fuse_ops");
	libbpf_set_print(libbpf_quiet);
	fuse_fd = load_prog_of("kfilter_exttgt", "exttgt_getattr", &tgt, log, sizeof(log));
	EXPECT(fuse_fd >= 0, "load kfilter_exttgt.bpf.o:\n%.2000s", log);
	dummy_fd = load_prog_of("kfilter_dummytgt", "dummytgt_test_1", &dummy, log, sizeof(log));
	EXPECT(dummy_fd >= 0, "load kfilter_dummytgt.bpf.o:\n%.2000s", log);

	ext = open_ext(fuse_fd, log, sizeof(log));
	EXPECT(ext, "open kfilter_ext.bpf.o for the fuse_ops member: %s", strerror(errno));
	log[0] = '\0';
	EXPECT(bpf_object__load(ext) < 0, "an extension of a fuse_ops member loaded");
	EXPECT(strstr(log, "Cannot extend programs of a struct_ops type that limits its kfuncs"),
	       "refused, but not as an extension of fuse_ops: %.400s", log);
	bpf_object__close(ext);

	ext = open_ext(dummy_fd, log, sizeof(log));
	EXPECT(ext, "open kfilter_ext.bpf.o for the bpf_dummy_ops member: %s", strerror(errno));
	EXPECT(bpf_object__load(ext) == 0, "an extension of bpf_dummy_ops refused:\n%.2000s", log);
	link = bpf_program__attach_freplace(bpf_object__next_program(ext, NULL), fuse_fd,
					    "ext_target");
	EXPECT(!link && errno == EINVAL,
	       "an extension loaded for bpf_dummy_ops, attached to a fuse_ops member: %s",
	       link ? "attached" : strerror(errno));
	ret = TAP_OK;
out:
	bpf_link__destroy(link);
	bpf_object__close(ext);
	bpf_object__close(dummy);
	bpf_object__close(tgt);
	return ret;
}

/* Copy @obj's .bss, of @size bytes, to @out; left as it was if there is none */
static void bss_read(struct bpf_object *obj, void *out, size_t size)
{
	struct bpf_map *m;
	__u32 key = 0;

	bpf_object__for_each_map(m, obj)
		if (bpf_map__is_internal(m) && strstr(bpf_map__name(m), ".bss") &&
		    bpf_map__value_size(m) == size)
			bpf_map_lookup_elem(bpf_map__fd(m), &key, out);
}

/* kfilter_nullbuf's results ({0} if unreadable) */
struct nullbuf_res {
	__s64 get, set, runs;
};

static struct nullbuf_res nullbuf_res(struct bpf_object *obj)
{
	struct nullbuf_res r = { 0 };

	bss_read(obj, &r, sizeof(r));
	return r;
}

/*
 * A getattr member that hands both kfuncs an unchecked map value from a
 * lookup that misses (kfilter_nullbuf.bpf.c): 6.1's verifier takes it for
 * a buffer, and the kfuncs refuse NULL (-EINVAL) instead of writing
 * through it. A verifier that refuses the program is as good.
 */
static int t_null_buffer_to_kfuncs(void)
{
	static char log[262144];
	struct bpf_object *obj = NULL;
	struct bpf_link *link = NULL;
	struct nullbuf_res r;
	struct bpf_map *map;
	struct stat st;
	int ret = TAP_FAIL, err = 0;

	if (!have_fuse_ops())
		SKIP("kernel without struct fuse_ops");
	EXPECT(make_tree() == 0);
	libbpf_set_print(libbpf_quiet);
	obj = load_named("kfilter_nullbuf", log, sizeof(log), &err);
	EXPECT(obj, "open kfilter_nullbuf.bpf.o: %s", strerror(-err));
	if (err < 0) {
		printf("# refused at load: %.200s\n", log);
		ret = TAP_OK;
		goto out;
	}
	map = bpf_object__find_map_by_name(obj, "nullbuf");
	link = map ? bpf_map__attach_struct_ops(map) : NULL;
	EXPECT(link, "attach nullbuf: %s", strerror(errno));
	EXPECT(mount_filtered(bpf_map__fd(map)) == 0);
	EXPECT(stat(in(mnt, "public"), &st) == 0, "stat: %s", strerror(errno));
	r = nullbuf_res(obj);
	EXPECT(r.runs > 0, "the getattr member never ran");
	EXPECT(r.get == -EINVAL && r.set == -EINVAL,
	       "NULL buffer: bpf_fuse_get_arg %lld, bpf_fuse_set_arg %lld (want -EINVAL)",
	       (long long)r.get, (long long)r.set);
	ret = TAP_OK;
out:
	cleanup();
	bpf_link__destroy(link);
	bpf_object__close(obj);
	return ret;
}

/* kfilter_postonly's counts ({0} if unreadable) */
struct postonly_res {
	__s64 pre, post, entry;
};

static struct postonly_res postonly_res(struct bpf_object *obj)
{
	struct postonly_res r = { 0 };

	bss_read(obj, &r, sizeof(r));
	return r;
}

/* libbpf's debug lines, kept for libbpf_capture()'s caller */
static char libbpf_lines[1 << 18];
static size_t libbpf_lines_len;

static int libbpf_capture(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	size_t room = sizeof(libbpf_lines) - libbpf_lines_len;
	int n = vsnprintf(libbpf_lines + libbpf_lines_len, room, fmt, ap);

	(void)level;
	if (n > 0)
		libbpf_lines_len += (size_t)n < room ? (size_t)n : room - 1;
	return 0;
}

/*
 * struct fuse_bpf_ctx is not UAPI, so a filter must not read it at offsets
 * fixed when it was compiled: fusebpf.h's reads carry CO-RE relocations,
 * which libbpf resolves against the running kernel's BTF (its debug log
 * names each one) when it loads kfilter_postonly.
 */
static int t_ctx_reads_core_relocated(void)
{
	static char log[262144];
	struct bpf_object *obj = NULL;
	int ret = TAP_FAIL, err = 0;

	if (!have_fuse_ops())
		SKIP("kernel without struct fuse_ops");
	libbpf_lines_len = 0;
	libbpf_lines[0] = '\0';
	libbpf_set_print(libbpf_capture);
	obj = load_named("kfilter_postonly", log, sizeof(log), &err);
	libbpf_set_print(libbpf_quiet);
	EXPECT(obj && err == 0, "load kfilter_postonly.bpf.o: %s", strerror(-err));
	EXPECT(strstr(libbpf_lines, "struct fuse_bpf_ctx.opcode"),
	       "no CO-RE relocation of fuse_bpf_ctx.opcode in libbpf's log (%zu bytes)",
	       libbpf_lines_len);
	ret = TAP_OK;
out:
	bpf_object__close(obj);
	return ret;
}

/*
 * A getattr member in post_only (kfilter_postonly.bpf.c) runs as the
 * postfilter only: stats through the view run it once each, never as a
 * prefilter, and its rewrite of the mode is what stat() shows. A mask
 * with the bit of an op that has no member (FORGET) is refused when the
 * map is updated.
 */
static int t_post_only_runs_once(void)
{
	static char log[262144];
	struct bpf_link *link = NULL, *bad = NULL;
	struct bpf_object *obj = NULL;
	struct postonly_res r;
	struct bpf_map *map;
	struct stat st;
	int ret = TAP_FAIL, err = 0, i;

	if (!have_fuse_ops())
		SKIP("kernel without struct fuse_ops");
	EXPECT(make_tree() == 0);
	libbpf_set_print(libbpf_quiet);
	obj = load_named("kfilter_postonly", log, sizeof(log), &err);
	EXPECT(obj && err == 0, "load kfilter_postonly.bpf.o: %s\n%.2000s", strerror(-err), log);
	map = bpf_object__find_map_by_name(obj, "badmask");
	bad = map ? bpf_map__attach_struct_ops(map) : NULL;
	EXPECT(!bad && errno == EINVAL,
	       "post_only with FORGET's bit: want EINVAL at the update, got %s",
	       bad ? "success" : strerror(errno));
	map = bpf_object__find_map_by_name(obj, "postonly");
	link = map ? bpf_map__attach_struct_ops(map) : NULL;
	EXPECT(link, "attach postonly: %s", strerror(errno));
	EXPECT(mount_filtered(bpf_map__fd(map)) == 0);
	for (i = 0; i < 3; i++)
		EXPECT(stat(in(mnt, "public"), &st) == 0, "stat: %s", strerror(errno));
	EXPECT((st.st_mode & 07777) == 0400, "mode %o, want the postfilter's 0400",
	       st.st_mode & 07777);
	r = postonly_res(obj);
	EXPECT(r.pre == 0, "the member ran %lld times as a prefilter", (long long)r.pre);
	EXPECT(r.post >= 3, "the member ran %lld times as the postfilter (3 stats)",
	       (long long)r.post);
	ret = TAP_OK;
out:
	cleanup();
	bpf_link__destroy(bad);
	bpf_link__destroy(link);
	bpf_object__close(obj);
	return ret;
}

/*
 * A replacement decides about names the old filter allowed and the dentry
 * cache holds: "secret" (looked up), "dir/secret" (looked up below a
 * directory held open) and "made" (created through the view) are absent
 * once a filter that hides them replaces one that did not, for a stat,
 * an open and a walk from the held directory. No prune of unused dentries
 * helps here: the ioctl does none.
 */
static int t_replace_reaches_cached_names(void)
{
	struct kfilter_bpf *skel = NULL;
	int ret = TAP_FAIL, dirfd = -1, devfd = -1, held = -1, fd;
	char opts[128];
	struct stat st;

	SETUP(skel);
	dirfd = open(back, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	EXPECT(dirfd >= 0);
	snprintf(opts, sizeof(opts), "root_dir=%d,root_bpf=%d,no_daemon,allow_other", dirfd,
		 bpf_map__fd(skel->maps.count_only));
	devfd = tfuse_mount(mnt, opts);
	EXPECT(devfd >= 0, "mount: %s", strerror(-devfd));
	held = open(in(mnt, "dir"), O_RDONLY | O_DIRECTORY);
	EXPECT(held >= 0, "open dir: %s", strerror(errno));
	EXPECT(stat(in(mnt, "secret"), &st) == 0 && fstatat(held, "secret", &st, 0) == 0);
	EXPECT(run("rm %s/dir/sub/secret", back) == 0);
	fd = open(in(mnt, "dir/sub/secret"), O_CREAT | O_WRONLY, 0644);
	EXPECT(fd >= 0, "create through the view: %s", strerror(errno));
	close(fd);
	EXPECT(ioc_replace(devfd, bpf_map__fd(skel->maps.count_only),
			   bpf_map__fd(skel->maps.hide_secret)) == 0, "replace: %s", strerror(errno));
	EXPECT(stat(in(mnt, "secret"), &st) == -1 && errno == ENOENT, "cached secret: %s",
	       strerror(errno));
	EXPECT(open(in(mnt, "secret"), O_RDONLY) == -1 && errno == ENOENT);
	EXPECT(fstatat(held, "secret", &st, 0) == -1 && errno == ENOENT,
	       "secret from the held directory: %s", strerror(errno));
	EXPECT(stat(in(mnt, "dir/sub/secret"), &st) == -1 && errno == ENOENT,
	       "a name created before the replacement: %s", strerror(errno));
	EXPECT(stat(in(mnt, "dir/sub/public"), &st) == 0, "public: %s", strerror(errno));
	EXPECT(fstatat(held, "sub/public", &st, 0) == 0);
	ret = TAP_OK;
out:
	if (held >= 0)
		close(held);
	cleanup();
	if (devfd >= 0)
		close(devfd);
	if (dirfd >= 0)
		close(dirfd);
	filters_destroy(skel);
	return ret;
}

/* FUSE_DEV_IOC_BPF_REPLACE on the mount's /dev/fuse fd */
static int t_ioc_replace(void)
{
	struct bpf_object *o1 = NULL, *o2 = NULL;
	struct bpf_link *l1 = NULL, *l2 = NULL;
	struct bpf_map *m1 = NULL, *m2 = NULL;
	int ret = TAP_FAIL, dirfd = -1, devfd = -1, f1, f2;
	char opts[128], path[128];
	struct stat st;
	__u64 before;

	if (!have_fuse_ops())
		SKIP("kernel without struct fuse_ops");
	EXPECT(make_tree() == 0);
	o1 = load_kmin(&m1);
	o2 = load_kmin(&m2);
	EXPECT(o1 && o2 && m1 && m2);
	EXPECT((l1 = bpf_map__attach_struct_ops(m1)) && (l2 = bpf_map__attach_struct_ops(m2)));
	f1 = bpf_map__fd(m1);
	f2 = bpf_map__fd(m2);
	dirfd = open(back, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	EXPECT(dirfd >= 0);
	snprintf(opts, sizeof(opts), "root_dir=%d,root_bpf=%d,no_daemon,allow_other", dirfd, f1);
	devfd = tfuse_mount(mnt, opts);
	EXPECT(devfd >= 0, "mount: %s", strerror(-devfd));
	snprintf(path, sizeof(path), "%s/public", mnt);
	EXPECT(stat(path, &st) == 0 && kmin_count(o1).getattrs > 0);
	EXPECT(ioc_replace(devfd, f1, f2) == 0, "replace: %s", strerror(errno));
	before = kmin_count(o1).getattrs;
	EXPECT(stat(path, &st) == 0 && stat(mnt, &st) == 0);
	EXPECT(kmin_count(o2).getattrs > 0, "the new filter did not run");
	EXPECT(kmin_count(o1).getattrs == before, "the old filter still ran");
	EXPECT(ioc_replace(devfd, f1, f2) == -ENOENT, "a map the mount no longer runs");
	EXPECT(ioc_replace(devfd, f2, 12345) == -EBADF || ioc_replace(devfd, f2, 12345) == -EINVAL);
	EXPECT(ioc_replace(devfd, f2, dirfd) == -EINVAL, "a directory fd as the new filter");
	{
		struct fuse_bpf_replace r = { .old_fd = f2, .new_fd = f1, .flags = 1 };

		EXPECT(ioctl(devfd, FUSE_DEV_IOC_BPF_REPLACE, &r) < 0 && errno == EINVAL,
		       "unknown flags: %s", strerror(errno));
	}
	ret = TAP_OK;
out:
	cleanup();
	if (devfd >= 0)
		close(devfd);
	if (dirfd >= 0)
		close(dirfd);
	bpf_link__destroy(l1);
	bpf_link__destroy(l2);
	bpf_object__close(o1);
	bpf_object__close(o2);
	return ret;
}

static int t_wrong_type_root_bpf(void)
{
	struct bpf_insn prog[] = {
		{ .code = 0xb7, .dst_reg = 0, .imm = 0 },	/* r0 = 0 */
		{ .code = 0x95 },				/* exit */
	};
	int ret = TAP_FAIL, fd = -1;

	if (!have_fuse_ops())
		SKIP("kernel without struct fuse_ops");
	EXPECT(make_tree() == 0);
	fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "sockf", "GPL", prog, 2, NULL);
	EXPECT(fd >= 0, "socket filter: %s", strerror(errno));
	EXPECT(mount_filtered(fd) == -EINVAL, "a socket filter as root_bpf was accepted");
	ret = TAP_OK;
out:
	if (fd >= 0)
		close(fd);
	cleanup();
	return ret;
}

/* The exact number of operations of a scripted sequence, per opcode. */
static int t_percpu_counts(void)
{
	struct kfilter_bpf *skel = NULL;
	int ret = TAP_FAIL, fd = -1;
	char buf[4];

	SETUP(skel);
	EXPECT(mount_filtered(bpf_map__fd(skel->maps.count_only)) == 0);
	fd = open(in(mnt, "public"), O_RDWR);
	EXPECT(fd >= 0, "%s", strerror(errno));
	for (int i = 0; i < 3; i++)
		EXPECT(pread(fd, buf, 2, i * 2) == 2);
	for (int i = 0; i < 2; i++)
		EXPECT(pwrite(fd, "xy", 2, 10 + i * 2) == 2);
	EXPECT(fsync(fd) == 0);
	EXPECT(close(fd) == 0);
	fd = -1;
	EXPECT(mkdir(in(mnt, "d1"), 0755) == 0 && mkdir(in(mnt, "d2"), 0755) == 0);
	EXPECT(rmdir(in(mnt, "d1")) == 0);
	EXPECT(unlink(in(mnt, "secret")) == 0);
	EXPECT(op_count(skel, FUSE_OPEN) == 1, "OPEN %llu", op_count(skel, FUSE_OPEN));
	EXPECT(op_count(skel, FUSE_READ) == 3, "READ %llu", op_count(skel, FUSE_READ));
	EXPECT(op_count(skel, FUSE_WRITE) == 2, "WRITE %llu", op_count(skel, FUSE_WRITE));
	EXPECT(op_count(skel, FUSE_FSYNC) == 1, "FSYNC %llu", op_count(skel, FUSE_FSYNC));
	EXPECT(op_count(skel, FUSE_FLUSH) == 1, "FLUSH %llu", op_count(skel, FUSE_FLUSH));
	EXPECT(op_count(skel, FUSE_RELEASE) == 1, "RELEASE %llu", op_count(skel, FUSE_RELEASE));
	EXPECT(op_count(skel, FUSE_MKDIR) == 2, "MKDIR %llu", op_count(skel, FUSE_MKDIR));
	EXPECT(op_count(skel, FUSE_RMDIR) == 1, "RMDIR %llu", op_count(skel, FUSE_RMDIR));
	EXPECT(op_count(skel, FUSE_UNLINK) == 1, "UNLINK %llu", op_count(skel, FUSE_UNLINK));
	EXPECT(op_count(skel, FUSE_RENAME2) == 0);
	ret = TAP_OK;
out:
	if (fd >= 0)
		close(fd);
	cleanup();
	filters_destroy(skel);
	return ret;
}

/* --- a server: LOOKUP replies that attach programs, and server filters ------ */

struct server_state {
	int filter_fd[4];	/* by variant */
	int variant;		/* what LOOKUP of "a" attaches: 0 none, 1 prog 0, 2 remove */
	int lookups_a, open_pre, getattr_post, bad_reply_errno;
	int readdir_post, readdir_removed;
	int wrong_fd;		/* LOOKUP of "wrong" attaches this (wrong type) */
};

static struct server_state *state;

static int reply_lookup(int fd, struct tfuse_req *req, const char *name)
{
	struct {
		struct fuse_entry_out e;
		struct fuse_bpf_entry_out b[2];
	} r = { 0 };
	int n = 1, bfd, err;

	bfd = open(in(back, !strcmp(name, "wrong") ? "dir" : name), O_PATH | O_CLOEXEC);
	if (bfd < 0)
		return tfuse_reply(fd, req->h->unique, -ENOENT, NULL, 0);
	tfuse_attr_from_path(in(back, !strcmp(name, "wrong") ? "dir" : name), &r.e.attr);
	r.e.nodeid = 100 + name[0];
	r.b[0] = (struct fuse_bpf_entry_out){ .entry_type = FUSE_ENTRY_BACKING, .fd = bfd };
	if (!strcmp(name, "a") && state->variant == 1)
		r.b[n++] = (struct fuse_bpf_entry_out){ .entry_type = FUSE_ENTRY_BPF,
							 .fd = state->filter_fd[0] };
	if (!strcmp(name, "a") && state->variant == 2)
		r.b[n++] = (struct fuse_bpf_entry_out){ .entry_type = FUSE_ENTRY_REMOVE_BPF };
	if (!strcmp(name, "wrong"))
		r.b[n++] = (struct fuse_bpf_entry_out){ .entry_type = FUSE_ENTRY_BPF,
							 .fd = state->wrong_fd };
	if (!strcmp(name, "a"))
		state->lookups_a++;
	err = tfuse_reply_ioctl(fd, req->h->unique, 0, &r, sizeof(r.e) + n * sizeof(r.b[0]));
	if (err) {
		state->bad_reply_errno = -err;
		tfuse_reply(fd, req->h->unique, err, NULL, 0);
	}
	close(bfd);
	return 0;
}

/* The position of the entry the server adds after the last one */
#define ADDED_OFF (1ULL << 40)

/*
 * A READDIR postfilter in the server: in args fuse_read_in, then the out
 * args fuse_read_out and the entries; the reply is the out args. Removes
 * every name that ends in '7'; at the end of the directory, adds "added".
 */
static int readdir_post(int fd, struct tfuse_req *req)
{
	const struct fuse_read_in *ri = req->arg;
	const struct fuse_read_out *ro = (const void *)(ri + 1);
	const char *d = (const char *)(ro + 1);
	size_t n = req->arglen - sizeof(*ri) - sizeof(*ro), used = 0;
	static char out[sizeof(struct fuse_read_out) + 65536];
	struct fuse_dirent *o;

	state->readdir_post++;
	memcpy(out, ro, sizeof(*ro));
	while (n >= FUSE_NAME_OFFSET && ri->offset != ADDED_OFF) {
		const struct fuse_dirent *de = (const void *)d;
		size_t len = FUSE_DIRENT_SIZE(de);

		if (len > n)
			break;
		if (de->name[de->namelen - 1] == '7')
			state->readdir_removed++;
		else {
			memcpy(out + sizeof(*ro) + used, de, len);
			used += len;
		}
		d += len;
		n -= len;
	}
	if (req->arglen == sizeof(*ri) + sizeof(*ro) && ri->offset != ADDED_OFF) {
		o = (struct fuse_dirent *)(out + sizeof(*ro) + used);
		*o = (struct fuse_dirent){ .ino = 4242, .off = ADDED_OFF, .namelen = 5,
					   .type = DT_REG };
		memcpy(o->name, "added", 5);
		used += FUSE_DIRENT_SIZE(o);
	}
	return tfuse_reply(fd, req->h->unique, 0, out, sizeof(*ro) + used);
}

static int filter_server(int fd, struct tfuse_req *req, void *ctx)
{
	uint32_t op = req->h->opcode;
	(void)ctx;

	if (op == FUSE_LOOKUP)
		return reply_lookup(fd, req, req->arg);
	if (op == (FUSE_OPEN | FUSE_PREFILTER)) {
		struct fuse_open_in oi = *(struct fuse_open_in *)req->arg;

		state->open_pre++;
		if ((oi.flags & O_ACCMODE) != O_RDONLY)
			return tfuse_reply(fd, req->h->unique, -EACCES, NULL, 0);
		return tfuse_reply(fd, req->h->unique, 0, &oi, sizeof(oi));
	}
	if (op == (FUSE_READDIR | FUSE_POSTFILTER))
		return readdir_post(fd, req);
	if (op == (FUSE_GETATTR | FUSE_POSTFILTER)) {
		/* in: getattr_in, attr_out; out: attr_out */
		struct fuse_attr_out ao;

		memcpy(&ao, (char *)req->arg + sizeof(struct fuse_getattr_in), sizeof(ao));
		state->getattr_post++;
		ao.attr.uid = 4242;
		return tfuse_reply(fd, req->h->unique, 0, &ao, sizeof(ao));
	}
	if (op == FUSE_GETATTR) {
		struct fuse_attr_out o = { .attr_valid = 0 };

		o.attr = (struct fuse_attr){ .ino = 1, .mode = S_IFDIR | 0755, .nlink = 2 };
		return tfuse_reply(fd, req->h->unique, 0, &o, sizeof(o));
	}
	if (op == FUSE_FORGET || op == FUSE_BATCH_FORGET)
		return 0;
	if (op == FUSE_OPENDIR || op == FUSE_RELEASEDIR || op == FUSE_FLUSH || op == FUSE_RELEASE)
		return tfuse_reply(fd, req->h->unique, 0, &(struct fuse_open_out){ 0 },
				   op == FUSE_OPENDIR ? sizeof(struct fuse_open_out) : 0);
	return tfuse_reply(fd, req->h->unique, -ENOSYS, NULL, 0);
}

/* Mount with a server; the root is backed and filtered when root_prog >= 0. */
static int mount_served(int root_prog, pid_t *server)
{
	char opts[128] = "allow_other";
	int dirfd = -1, fd;

	if (root_prog >= 0) {
		dirfd = open(back, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dirfd < 0)
			return -errno;
		snprintf(opts, sizeof(opts), "root_dir=%d,root_bpf=%d,allow_other", dirfd, root_prog);
	}
	fd = tfuse_mount(mnt, opts);
	if (dirfd >= 0)
		close(dirfd);
	if (fd < 0)
		return fd;
	*server = tfuse_spawn(fd, filter_server, NULL);
	close(fd);
	return *server > 0 ? 0 : -ECHILD;
}

static int new_state(void)
{
	state = mmap(NULL, sizeof(*state), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	return state == MAP_FAILED ? -errno : 0;
}

static int t_server_prefilter(void)
{
	struct kfilter_bpf *skel = NULL;
	int ret = TAP_FAIL, fd = -1;
	pid_t server = -1;
	char got[16];

	SETUP(skel);
	EXPECT(new_state() == 0);
	EXPECT(mount_served(bpf_map__fd(skel->maps.open_to_server), &server) == 0);
	fd = open(in(mnt, "dir/secret"), O_RDONLY);
	EXPECT(fd >= 0, "read-only open the server allows: %s", strerror(errno));
	EXPECT(read(fd, got, sizeof(got)) == 2 && got[0] == 's', "read through the backing file");
	EXPECT(open(in(mnt, "dir/secret"), O_RDWR) == -1 && errno == EACCES,
	       "read-write open the server refuses: %s", strerror(errno));
	EXPECT(state->open_pre == 2, "the server saw %d OPEN prefilters", state->open_pre);
	ret = TAP_OK;
out:
	if (fd >= 0)
		close(fd);
	tfuse_stop(mnt, server);
	cleanup();
	filters_destroy(skel);
	return ret;
}

static int t_server_postfilter(void)
{
	struct kfilter_bpf *skel = NULL;
	int ret = TAP_FAIL;
	pid_t server = -1;
	struct stat st;

	SETUP(skel);
	EXPECT(new_state() == 0);
	EXPECT(mount_served(bpf_map__fd(skel->maps.getattr_post_to_server), &server) == 0);
	EXPECT(stat(in(mnt, "public"), &st) == 0, "%s", strerror(errno));
	EXPECT(st.st_uid == 4242, "uid %u: the server's change is not there", st.st_uid);
	EXPECT(st.st_size == 7, "size %lld: not the backing file's", (long long)st.st_size);
	EXPECT(state->getattr_post >= 1);
	ret = TAP_OK;
out:
	tfuse_stop(mnt, server);
	cleanup();
	filters_destroy(skel);
	return ret;
}

/* Every name through getdents64 with a buffer of bufsize; the count, or -errno. */
static int list_names(const char *dir, size_t bufsize, char names[][16], int max)
{
	char buf[65536];
	int fd, n = 0;
	long got;

	fd = open(dir, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return -errno;
	while ((got = syscall(SYS_getdents64, fd, buf, bufsize)) > 0) {
		for (long off = 0; off < got;) {
			struct { uint64_t ino; int64_t off; unsigned short reclen; unsigned char type;
				 char name[]; } *de = (void *)(buf + off);

			if (n < max)
				snprintf(names[n], 16, "%s", de->name);
			n++;
			off += de->reclen;
		}
	}
	close(fd);
	return got < 0 ? -errno : n;
}

static int t_server_readdir_postfilter(void)
{
	static char names[1000][16];
	struct kfilter_bpf *skel = NULL;
	size_t sizes[] = { 32768, 512 };
	int ret = TAP_FAIL, n;
	pid_t server = -1;

	SETUP(skel);
	EXPECT(new_state() == 0);
	EXPECT(run("mkdir %s/big && cd %s/big && for i in $(seq 100 399); do : > f$i; done",
		   back, back) == 0);
	EXPECT(mount_served(bpf_map__fd(skel->maps.readdir_post_to_server), &server) == 0);
	for (unsigned int s = 0; s < 2; s++) {
		int added = 0, kept = 0;

		state->readdir_removed = 0;
		n = list_names(in(mnt, "big"), sizes[s], names, 1000);
		EXPECT(n >= 0, "getdents64: %s", strerror(-n));
		for (int i = 0; i < n && i < 1000; i++) {
			size_t len = strlen(names[i]);

			EXPECT(names[i][len - 1] != '7', "%s is there (%zu-byte buffers)", names[i],
			       sizes[s]);
			if (!strcmp(names[i], "added"))
				added++;
			else if (names[i][0] == 'f')
				kept++;
		}
		EXPECT(added == 1 && kept == 270, "%zu-byte buffers: %d added, %d of the 270 kept "
		       "(%d entries)", sizes[s], added, kept, n);
		EXPECT(n == 273, "%d entries with . and ..", n);
		EXPECT(state->readdir_removed >= 30, "%d removed", state->readdir_removed);
	}
	EXPECT(state->readdir_post >= 2);
	EXPECT(seen(skel, 1) >= 0, "the BPF postfilter saw %lld bytes of entries", seen(skel, 1));
	EXPECT(run("test $(ls %s/big | wc -l) = 300", back) == 0, "the backing changed");
	ret = TAP_OK;
out:
	tfuse_stop(mnt, server);
	cleanup();
	filters_destroy(skel);
	return ret;
}

static int drop_caches(void)
{
	return write_file("/proc/sys/vm/drop_caches", "2\n", 2);
}

/* Attach, replace and detach through LOOKUP replies; inheritance into a subtree. */
static int t_attach_via_lookup(void)
{
	struct kfilter_bpf *skel = NULL;
	int ret = TAP_FAIL;
	pid_t server = -1;
	struct stat st;

	SETUP(skel);
	EXPECT(new_state() == 0);
	EXPECT(run("mkdir -p %s/a/deep && echo s > %s/a/secret && echo s > %s/a/deep/secret",
		   back, back, back) == 0);
	state->filter_fd[0] = bpf_map__fd(skel->maps.hide_secret);
	state->variant = 1;
	EXPECT(mount_served(-1, &server) == 0);
	EXPECT(stat(in(mnt, "a/secret"), &st) == -1 && errno == ENOENT, "attached: %s",
	       strerror(errno));
	EXPECT(stat(in(mnt, "a/deep/secret"), &st) == -1 && errno == ENOENT, "inherited");
	EXPECT(listing_has(in(mnt, "a"), "secret") == 0);
	/* "dir" is backed without a program */
	EXPECT(stat(in(mnt, "dir/secret"), &st) == 0, "no program on dir: %s", strerror(errno));
	/* a reply that removes the program: after the node is forgotten */
	state->variant = 2;
	EXPECT(drop_caches() == 0);
	EXPECT(stat(in(mnt, "a/secret"), &st) == 0, "detached: %s", strerror(errno));
	EXPECT(state->lookups_a == 2, "%d lookups of a", state->lookups_a);
	EXPECT(listing_has(in(mnt, "a"), "secret") == 1);
	/* and attached again */
	state->variant = 1;
	EXPECT(drop_caches() == 0);
	EXPECT(stat(in(mnt, "a/secret"), &st) == -1 && errno == ENOENT, "re-attached");
	ret = TAP_OK;
out:
	tfuse_stop(mnt, server);
	cleanup();
	filters_destroy(skel);
	return ret;
}

static int t_wrong_type_in_lookup(void)
{
	struct bpf_insn prog[] = {
		{ .code = 0xb7, .dst_reg = 0, .imm = 0 },
		{ .code = 0x95 },
	};
	struct kfilter_bpf *skel = NULL;
	int ret = TAP_FAIL;
	pid_t server = -1;
	struct stat st;

	SETUP(skel);
	EXPECT(new_state() == 0);
	state->wrong_fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "sockf", "GPL", prog, 2, NULL);
	EXPECT(state->wrong_fd >= 0);
	EXPECT(mount_served(-1, &server) == 0);
	EXPECT(stat(in(mnt, "wrong"), &st) == -1, "a reply with a socket filter was accepted");
	/* The lookup fails as soon as the kernel refuses the reply: the server
	 * records the errno its ioctl got a moment later. */
	for (int i = 0; i < 200 && !__atomic_load_n(&state->bad_reply_errno, __ATOMIC_ACQUIRE); i++)
		usleep(10000);
	EXPECT(state->bad_reply_errno == EINVAL, "the reply failed with %d, not EINVAL",
	       state->bad_reply_errno);
	/* no partial effect: the node is not there, a good reply still works */
	EXPECT(stat(in(mnt, "dir"), &st) == 0, "%s", strerror(errno));
	ret = TAP_OK;
out:
	tfuse_stop(mnt, server);
	cleanup();
	filters_destroy(skel);
	return ret;
}

static int count_progs(void)
{
	__u32 id = 0;
	int n = 0;

	while (!bpf_prog_get_next_id(id, &id))
		n++;
	return n;
}

/* The program count once the frees that earlier cases deferred are done */
static int settled_progs(void)
{
	int n = count_progs(), prev = -1;

	for (int i = 0; i < 200 && n != prev; i++) {
		usleep(50000);
		prev = n;
		n = count_progs();
	}
	return n;
}

/* Programs are reference-counted: attach/detach cycles leave none behind. */
static int t_no_leaked_programs(void)
{
	struct kfilter_bpf *skel = NULL;
	int ret = TAP_FAIL, base, loaded, now = 0;
	pid_t server = -1;
	struct stat st;

	base = settled_progs();
	SETUP(skel);
	loaded = count_progs();
	EXPECT(loaded > base);
	for (int i = 0; i < 1000; i++) {
		EXPECT(mount_filtered(bpf_map__fd(skel->maps.hide_secret)) == 0, "cycle %d", i);
		EXPECT(stat(in(mnt, "dir/sub/public"), &st) == 0);
		EXPECT(umount2(mnt, 0) == 0, "umount: %s", strerror(errno));
	}
	EXPECT(new_state() == 0);
	state->filter_fd[0] = bpf_map__fd(skel->maps.count_only);
	EXPECT(mount_served(-1, &server) == 0);
	for (int i = 0; i < 100; i++) {
		state->variant = 1 + i % 2;
		EXPECT(stat(in(mnt, "a/x"), &st) == -1 && errno == ENOENT);
		EXPECT(drop_caches() == 0);
	}
	tfuse_stop(mnt, server);
	server = -1;
	filters_destroy(skel);
	skel = NULL;
	/* Freeing a program is deferred (RCU, a work item): give it a moment */
	for (int i = 0; i < 100 && (now = count_progs()) != base; i++)
		usleep(20000);
	EXPECT(now == base, "%d programs before, %d after", base, now);
	ret = TAP_OK;
out:
	if (server > 0)
		tfuse_stop(mnt, server);
	cleanup();
	filters_destroy(skel);
	return ret;
}

static const struct tap_case cases[] = {
	{ "sysfs_prog_type_and_feature", t_sysfs },
	{ "loading_needs_cap_bpf", t_load_privilege },
	{ "prefilter_hides_lookup_and_entry_filter_readdir", t_hide },
	{ "no_entry_filter_verdict_skips_entries", t_no_entry_filter },
	{ "no_entry_filter_other_ops_post_seek_user", t_no_entry_filter_other_ops },
	{ "postfilter_rewrites_lookup_getattr_attrs", t_attrs },
	{ "prefilter_denies_writes_reads_work", t_deny },
	{ "postfilter_rewrites_eexist_enotempty_to_eperm", t_error_rewrite },
	{ "invalid_return_value_fails_with_eio", t_invalid_return },
	{ "arg_writes_outside_bounds_refused", t_arg_write_bounds },
	{ "out_of_bounds_ctx_access_rejected_at_load", t_out_of_bounds_rejected },
	{ "ctx_write_rejected_at_load", t_ctx_write_rejected },
	{ "wrong_program_type_as_root_bpf", t_wrong_type_root_bpf },
	{ "root_bpf_needs_an_attached_fuse_ops_map", t_root_bpf_needs_attached_fuse_ops },
	{ "op_without_member_runs_no_program", t_op_without_member },
	{ "remount_root_bpf_replaces_root_filter", t_remount_replaces_root_filter },
	{ "released_map_freed_with_last_user", t_released_map_freed_with_last_user },
	{ "bpf_dummy_ops_map_as_root_bpf_refused", t_dummy_ops_map_refused },
	{ "dev_ioctl_bpf_replace", t_ioc_replace },
	{ "kfunc_from_tcp_congestion_ops_refused", t_kfunc_from_foreign_struct_ops_refused },
	{ "forged_ctx_refused", t_forged_ctx_refused },
	{ "replace_reaches_cached_names", t_replace_reaches_cached_names },
	{ "ret_slot_refused", t_ret_slot_refused },
	{ "narrow_ctx_load_refused", t_narrow_ctx_load_refused },
	{ "tcp_kfunc_from_fuse_ops_refused", t_tcp_kfunc_from_fuse_ops_refused },
	{ "extension_of_fuse_ops_refused", t_extension_of_fuse_ops_refused },
	{ "null_buffer_to_kfuncs", t_null_buffer_to_kfuncs },
	{ "post_only_runs_once", t_post_only_runs_once },
	{ "ctx_reads_core_relocated", t_ctx_reads_core_relocated },
	{ "percpu_counts_match_scripted_ops", t_percpu_counts },
	{ "server_prefilter_decides_open", t_server_prefilter },
	{ "server_postfilter_changes_getattr", t_server_postfilter },
	{ "server_readdir_postfilter_edits_entries", t_server_readdir_postfilter },
	{ "attach_replace_detach_via_lookup", t_attach_via_lookup },
	{ "wrong_program_type_in_lookup_reply", t_wrong_type_in_lookup },
	{ "no_leaked_programs", t_no_leaked_programs },
};

TAP_MAIN("bpf", cases)
