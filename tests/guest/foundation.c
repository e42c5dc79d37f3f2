// SPDX-License-Identifier: GPL-2.0
/*
 * The guest is the one we built and has what fusebpf stands on: FUSE, BPF with
 * maps, BTF, and a block filesystem for backing trees.
 */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "basic.skel.h"
#include "tap.h"
#include "tfuse.h"

/* The UTS_VERSION of the build in FUSEBPF_CACHE (build-normal/ or build-debug/) in want */
static int built_version(bool debug, char *want, size_t cap)
{
	const char *cache = getenv("FUSEBPF_CACHE");
	char path[4096], compile_h[1024];
	char *p, *q;

	if (!cache)
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/%s/include/generated/utsversion.h", cache,
		 debug ? "build-debug" : "build-normal");
	if (read_file(path, compile_h, sizeof(compile_h)) <= 0)
		return -EIO;
	p = strstr(compile_h, "UTS_VERSION \"");
	if (!p)
		return -EINVAL;
	p += strlen("UTS_VERSION \"");
	q = strchr(p, '"');
	if (!q || q - p >= (long)cap)
		return -EINVAL;
	memcpy(want, p, q - p);
	want[q - p] = 0;
	return 0;
}

/* A bzImage's version string is "<release> (<builder>) <version>" */
static bool image_is(const char *image, const struct utsname *u)
{
	size_t rlen = strlen(u->release), vlen = strlen(u->version), ilen = strlen(image);

	return !strncmp(image, u->release, rlen) && image[rlen] == ' ' && ilen > rlen + vlen &&
	       !strcmp(image + ilen - vlen, u->version);
}

/*
 * The running kernel is the one kernel/vm.sh booted: the build in
 * FUSEBPF_CACHE (build-normal/, or build-debug/ for FUSEBPF_KERNEL=debug),
 * or the image VM_KERNEL named, whose version string vm.sh passes as
 * FUSEBPF_VM_KERNEL_VERSION.
 */
static int t_kernel_is_ours(void)
{
	const char *flavor = getenv("FUSEBPF_KERNEL"), *image = getenv("FUSEBPF_VM_KERNEL_VERSION");
	int debug = flavor && !strcmp(flavor, "debug"), ret = TAP_FAIL, err;
	struct utsname u;
	char want[512] = "";

	if (!image) {
		err = built_version(debug, want, sizeof(want));
		EXPECT(!err, "the version of the cache's build: %s", strerror(-err));
	}
	EXPECT(uname(&u) == 0);
	printf("running %s %s; %s %s\n", u.release, u.version, image ? "booted" : "built",
	       image ? image : want);
	EXPECT(strncmp(u.release, "6.1.", 4) == 0, "release %s", u.release);
	EXPECT(!debug == !strstr(u.release, "-debug"), "release %s, FUSEBPF_KERNEL %s", u.release,
	       flavor ? flavor : "unset");
	if (image)
		EXPECT(image_is(image, &u), "running '%s %s', booted '%s'", u.release, u.version,
		       image);
	else
		EXPECT(strcmp(u.version, want) == 0, "running '%s', built '%s'", u.version, want);
	ret = TAP_OK;
out:
	return ret;
}

static int t_btf_vmlinux(void)
{
	struct btf *btf = NULL;
	int ret = TAP_FAIL;

	EXPECT(access("/sys/kernel/btf/vmlinux", R_OK) == 0, "%s", strerror(errno));
	btf = btf__parse("/sys/kernel/btf/vmlinux", NULL);
	EXPECT(btf, "btf__parse: %s", strerror(errno));
	EXPECT(btf__find_by_name_kind(btf, "fuse_conn", BTF_KIND_STRUCT) > 0,
	       "struct fuse_conn is not in the kernel's BTF");
	EXPECT(btf__find_by_name_kind(btf, "bpf_prog", BTF_KIND_STRUCT) > 0);
	ret = TAP_OK;
out:
	btf__free(btf);
	return ret;
}

static int t_bpf_map_roundtrip(void)
{
	struct basic_args {
		__u64 value;
	} args = { .value = 20 };
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = &args, .ctx_size_in = sizeof(args));
	struct basic_bpf *skel = NULL;
	int ret = TAP_FAIL, err;
	__u32 key = 0;
	__u64 got = 0;

	skel = basic_bpf__open_and_load();
	EXPECT(skel, "open_and_load: %s", strerror(errno));
	err = bpf_map_lookup_elem(bpf_map__fd(skel->maps.result), &key, &got);
	EXPECT(!err && got == 0, "before the run: err %d value %llu", err, (unsigned long long)got);
	err = bpf_prog_test_run_opts(bpf_program__fd(skel->progs.write_value), &opts);
	EXPECT(!err, "test_run: %s", strerror(errno));
	err = bpf_map_lookup_elem(bpf_map__fd(skel->maps.result), &key, &got);
	EXPECT(!err, "lookup: %s", strerror(errno));
	EXPECT(got == 41, "the program wrote %llu, expected 41", (unsigned long long)got);
	ret = TAP_OK;
out:
	basic_bpf__destroy(skel);
	return ret;
}

/* --- a one-file FUSE filesystem ------------------------------------------------- */

#define HELLO "hello from a fusebpf test server\n"
#define HELLO_INO 2

static void hello_attr(uint64_t ino, struct fuse_attr *a)
{
	*a = (struct fuse_attr){ .ino = ino, .nlink = 1, .blksize = 4096 };
	if (ino == FUSE_ROOT_ID) {
		a->mode = S_IFDIR | 0755;
		a->nlink = 2;
	} else {
		a->mode = S_IFREG | 0644;
		a->size = strlen(HELLO);
		a->blocks = 1;
	}
}

static int hello_handler(int fd, struct tfuse_req *req, void *ctx)
{
	uint64_t unique = req->h->unique;
	(void)ctx;

	switch (req->h->opcode) {
	case FUSE_LOOKUP: {
		struct fuse_entry_out e = { 0 };

		if (req->h->nodeid != FUSE_ROOT_ID || strcmp(req->arg, "hello"))
			return tfuse_reply(fd, unique, -ENOENT, NULL, 0);
		e.nodeid = HELLO_INO;
		e.attr_valid = 1;
		e.entry_valid = 1;
		hello_attr(HELLO_INO, &e.attr);
		return tfuse_reply(fd, unique, 0, &e, sizeof(e));
	}
	case FUSE_GETATTR: {
		struct fuse_attr_out o = { .attr_valid = 1 };

		hello_attr(req->h->nodeid, &o.attr);
		return tfuse_reply(fd, unique, 0, &o, sizeof(o));
	}
	case FUSE_OPEN: {
		struct fuse_open_out o = { .fh = 7 };

		return tfuse_reply(fd, unique, 0, &o, sizeof(o));
	}
	case FUSE_READ: {
		const struct fuse_read_in *in = req->arg;
		size_t len = strlen(HELLO);

		if (in->offset >= len)
			return tfuse_reply(fd, unique, 0, NULL, 0);
		len -= in->offset;
		if (len > in->size)
			len = in->size;
		return tfuse_reply(fd, unique, 0, HELLO + in->offset, len);
	}
	case FUSE_FORGET:
	case FUSE_BATCH_FORGET:
		return 0;
	case FUSE_RELEASE:
	case FUSE_FLUSH:
		return tfuse_reply(fd, unique, 0, NULL, 0);
	default:
		return tfuse_reply(fd, unique, -ENOSYS, NULL, 0);
	}
}

static int t_fuse_cat(void)
{
	char mnt[] = "/tmp/fuse-hello-XXXXXX", path[128], cmd[256], got[256];
	int ret = TAP_FAIL, fd = -1;
	pid_t server = -1;

	EXPECT(mkdtemp(mnt));
	fd = tfuse_mount(mnt, NULL);
	EXPECT(fd >= 0, "mount: %s", strerror(-fd));
	server = tfuse_spawn(fd, hello_handler, NULL);
	EXPECT(server > 0);
	snprintf(path, sizeof(path), "%s/hello.copy", "/tmp");
	snprintf(cmd, sizeof(cmd), "cat %s/hello > %s", mnt, path);
	EXPECT(run("%s", cmd) == 0, "%s failed", cmd);
	EXPECT(read_file(path, got, sizeof(got)) >= 0);
	EXPECT(strcmp(got, HELLO) == 0, "cat printed '%s'", got);
	EXPECT(access(strcat(strcpy(path, mnt), "/missing"), F_OK) && errno == ENOENT,
	       "a name the server does not know: %s", strerror(errno));
	ret = TAP_OK;
out:
	if (fd >= 0)
		close(fd);
	tfuse_stop(mnt, server);
	rmdir(mnt);
	return ret;
}

/* ext4 on a loop device: the block filesystem that backs trees in later tests. */
static int t_ext4_loop(void)
{
	int ret = TAP_FAIL;

	EXPECT(run("truncate -s 32M /tmp/ext4.img && mkfs.ext4 -q -F /tmp/ext4.img") == 0);
	EXPECT(run("mkdir -p /tmp/ext4 && mount -o loop /tmp/ext4.img /tmp/ext4") == 0);
	EXPECT(run("echo data > /tmp/ext4/f && test \"$(cat /tmp/ext4/f)\" = data") == 0);
	EXPECT(run("stat -f -c %%T /tmp/ext4 | grep -q ext") == 0);
	ret = TAP_OK;
out:
	run("umount /tmp/ext4; rm -f /tmp/ext4.img");
	return ret;
}

/*
 * The guest runs on every CPU kernel/vm.sh gave it (FUSEBPF_VM_CPUS, its
 * -smp): a suite that means to race two tasks in the kernel needs two CPUs,
 * not two tasks taking turns on one.
 */
static int t_cpus_online(void)
{
	const char *want = getenv("FUSEBPF_VM_CPUS");
	char online[64] = "";
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	int ret = TAP_FAIL;

	EXPECT(want && *want, "FUSEBPF_VM_CPUS is not set: not booted by kernel/vm.sh");
	read_file("/sys/devices/system/cpu/online", online, sizeof(online));
	online[strcspn(online, "\n")] = 0;
	printf("# %ld CPUs online (%s), %s asked for\n", n, online, want);
	EXPECT(n == atol(want), "%ld CPUs online, -smp %s", n, want);
	ret = TAP_OK;
out:
	return ret;
}

static const struct tap_case cases[] = {
	{ "kernel_is_the_one_built", t_kernel_is_ours },
	{ "cpus_online", t_cpus_online },
	{ "btf_vmlinux_present", t_btf_vmlinux },
	{ "bpf_program_writes_map", t_bpf_map_roundtrip },
	{ "fuse_server_cat", t_fuse_cat },
	{ "ext4_on_loop", t_ext4_loop },
};

TAP_MAIN("foundation", cases)
