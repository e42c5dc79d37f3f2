// SPDX-License-Identifier: GPL-2.0
/*
 * fsbench: the metadata workloads of make bench (bench/bench.sh), timed in
 * one process so that the shell's own cost is not measured.
 *
 *   fsbench stat DIR SECONDS     lstat() every file under DIR, in turns
 *   fsbench open DIR SECONDS     open(O_RDONLY) + close() every file under DIR
 *   fsbench create DIR SECONDS   create, write 4 KiB, close, unlink, in DIR
 *   fsbench readdir DIR SECONDS  list DIR (opendir, readdir to the end, closedir)
 *   fsbench walk DIR             one walk of the tree under DIR, lstat()ing
 *                                every entry (bench.sh drops the caches first)
 *   fsbench read|write|randread|randwrite FILE SECONDS BS [DEPTH]
 *                                BS-byte reads or writes of FILE, in order
 *                                (wrapping at its end) or at random aligned
 *                                offsets; with pread/pwrite and an fsync at
 *                                the end of writes (psync), or with DEPTH:
 *                                O_DIRECT through Linux AIO (libaio), DEPTH
 *                                requests in flight
 *
 * The timed workloads repeat until SECONDS have passed (stat and open build
 * their list of files first, untimed). Prints one number: operations per
 * second (entries per second for readdir and walk, KiB per second for the
 * data workloads). Exit status 1 on any failed operation, with the path and
 * the error on stderr. fio would do the data workloads as well, but its
 * start-up costs seconds per run under TCG.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <ftw.h>
#include <libaio.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct run {
	const char *dir;	/* or the file, for the data workloads */
	double seconds;
	char **files;		/* stat, open: every regular file under dir */
	size_t nfiles;
	size_t bs;		/* data: block size */
	unsigned int depth;	/* data: AIO requests in flight, 0: psync */
	bool write, random;	/* data: the kind */
	uint64_t seed;		/* data: xorshift state for random offsets */
	double ops;		/* operations done (data: bytes) */
	double elapsed;		/* seconds they took */
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int fail(const char *what, const char *path)
{
	fprintf(stderr, "fsbench: %s %s: %s\n", what, path, strerror(errno));
	return -1;
}

/* --- the file list (stat, open) ------------------------------------------- */

static struct run *list_run;

static int list_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	char **files;

	(void)st;
	(void)ftw;
	if (type != FTW_F)
		return 0;
	if (!(list_run->nfiles & (list_run->nfiles + 1)) || !list_run->files) {
		files = realloc(list_run->files, (2 * list_run->nfiles + 2) * sizeof(*files));
		if (!files)
			return -1;
		list_run->files = files;
	}
	/* Relative to the directory, where the workload runs (list_files()) */
	list_run->files[list_run->nfiles] = strdup(path + strlen(list_run->dir) + 1);
	if (!list_run->files[list_run->nfiles])
		return -1;
	list_run->nfiles++;
	return 0;
}

/*
 * The path walks start in the directory, as a process working in the tree
 * does: in the guest an absolute path starts on the 9p root, whose
 * d_revalidate leaves RCU walk at the first component, so every view would
 * be measured in ref walk, which a real root file system does not force.
 */
static int work_in(struct run *r)
{
	if (chdir(r->dir))
		return fail("chdir", r->dir);
	return 0;
}

static int list_files(struct run *r)
{
	list_run = r;
	if (nftw(r->dir, list_one, 32, FTW_PHYS))
		return fail("walking", r->dir);
	if (!r->nfiles) {
		fprintf(stderr, "fsbench: no files under %s\n", r->dir);
		return -1;
	}
	return work_in(r);
}

/* --- the workloads ---------------------------------------------------------- */

static int do_stat(struct run *r, size_t i)
{
	struct stat st;

	if (lstat(r->files[i % r->nfiles], &st))
		return fail("lstat", r->files[i % r->nfiles]);
	return 0;
}

static int do_open(struct run *r, size_t i)
{
	int fd = open(r->files[i % r->nfiles], O_RDONLY);

	if (fd < 0)
		return fail("open", r->files[i % r->nfiles]);
	close(fd);
	return 0;
}

static int do_create(struct run *r, size_t i)
{
	static char buf[4096];
	char path[4096];
	int fd;

	(void)r;	/* in r->dir: work_in() */
	snprintf(path, sizeof(path), "c%zu", i % 1000);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0)
		return fail("create", path);
	if (write(fd, buf, sizeof(buf)) != sizeof(buf)) {
		close(fd);
		return fail("write", path);
	}
	close(fd);
	if (unlink(path))
		return fail("unlink", path);
	return 0;
}

/* One listing of the directory; returns the entries read, or -1. */
static long do_readdir(struct run *r)
{
	DIR *d = opendir(r->dir);
	long n = 0;

	if (!d)
		return fail("opendir", r->dir);
	errno = 0;
	while (readdir(d))
		n++;
	if (errno) {
		closedir(d);
		return fail("readdir", r->dir);
	}
	closedir(d);
	return n;
}

/* Repeat op over i = 0, 1, ... until the time is up; checks the clock every 16. */
static int repeat(struct run *r, int (*op)(struct run *, size_t))
{
	double t0 = now(), t;
	size_t i = 0;

	do {
		for (size_t j = 0; j < 16; j++, i++)
			if (op(r, i))
				return -1;
		t = now();
	} while (t - t0 < r->seconds);
	r->ops = i;
	r->elapsed = t - t0;
	return 0;
}

static int repeat_readdir(struct run *r)
{
	double t0 = now(), t;
	long n;

	do {
		n = do_readdir(r);
		if (n < 0)
			return -1;
		r->ops += n;
		t = now();
	} while (t - t0 < r->seconds);
	r->elapsed = t - t0;
	return 0;
}

static struct run *walk_run;

static int walk_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_NS || type == FTW_DNR) {
		errno = EIO;
		return fail("walking", path);
	}
	walk_run->ops++;
	return 0;
}

static int walk(struct run *r)
{
	double t0 = now();

	walk_run = r;
	if (nftw(r->dir, walk_one, 32, FTW_PHYS))
		return r->ops ? -1 : fail("walking", r->dir);
	r->elapsed = now() - t0;
	return 0;
}

/* --- the data workloads ---------------------------------------------------------- */

/* The offset of the i-th block: in order, wrapping, or at random. */
static off_t block_offset(struct run *r, size_t nblocks, size_t i)
{
	if (!r->random)
		return (off_t)(i % nblocks) * r->bs;
	r->seed ^= r->seed << 13;
	r->seed ^= r->seed >> 7;
	r->seed ^= r->seed << 17;
	return (off_t)(r->seed % nblocks) * r->bs;
}

static int data_psync(struct run *r, int fd, char *buf, size_t nblocks)
{
	double t0 = now(), t;
	size_t i = 0;
	ssize_t n;

	do {
		for (size_t j = 0; j < 16; j++, i++) {
			off_t off = block_offset(r, nblocks, i);

			n = r->write ? pwrite(fd, buf, r->bs, off) : pread(fd, buf, r->bs, off);
			if (n != (ssize_t)r->bs) {
				if (n >= 0)
					errno = EIO;
				return fail(r->write ? "pwrite" : "pread", r->dir);
			}
		}
		t = now();
	} while (t - t0 < r->seconds);
	if (r->write && fsync(fd))
		return fail("fsync", r->dir);
	r->ops = (double)i * r->bs;
	r->elapsed = now() - t0;
	return 0;
}

static void aio_prep(struct run *r, struct iocb *cb, int fd, char *buf, off_t off)
{
	if (r->write)
		io_prep_pwrite(cb, fd, buf, r->bs, off);
	else
		io_prep_pread(cb, fd, buf, r->bs, off);
}

/* depth requests in flight until the time is up, then the rest completed. */
static int aio_loop(struct run *r, io_context_t ctx, int fd, char *bufs, size_t nblocks)
{
	struct iocb cbs[r->depth], *cb;
	struct io_event ev[r->depth];
	unsigned int inflight = 0;
	double t0 = now();
	size_t i = 0;
	int n;

	for (; inflight < r->depth; inflight++, i++) {
		cb = &cbs[inflight];
		aio_prep(r, cb, fd, bufs + inflight * r->bs, block_offset(r, nblocks, i));
		if (io_submit(ctx, 1, &cb) != 1)
			return fail("io_submit", r->dir);
	}
	while (inflight) {
		n = io_getevents(ctx, 1, r->depth, ev, NULL);
		if (n < 0) {
			errno = -n;
			return fail("io_getevents", r->dir);
		}
		inflight -= n;
		for (int k = 0; k < n; k++) {
			if (ev[k].res != r->bs) {
				errno = (long)ev[k].res < 0 ? -(long)ev[k].res : EIO;
				return fail(r->write ? "AIO write" : "AIO read", r->dir);
			}
			r->ops += r->bs;
			if (now() - t0 >= r->seconds)
				continue;
			cb = ev[k].obj;
			aio_prep(r, cb, fd, cb->u.c.buf, block_offset(r, nblocks, i++));
			if (io_submit(ctx, 1, &cb) != 1)
				return fail("io_submit", r->dir);
			inflight++;
		}
	}
	r->elapsed = now() - t0;
	return 0;
}

static int data_aio(struct run *r, int fd, char *bufs, size_t nblocks)
{
	io_context_t ctx = 0;
	int err;

	err = io_setup(r->depth, &ctx);
	if (err) {
		errno = -err;
		return fail("io_setup for", r->dir);
	}
	err = aio_loop(r, ctx, fd, bufs, nblocks);
	io_destroy(ctx);
	return err;
}

static int data(struct run *r)
{
	int flags = (r->write ? O_WRONLY : O_RDONLY) | (r->depth ? O_DIRECT : 0);
	unsigned int nbufs = r->depth ? r->depth : 1;
	char *bufs = NULL;
	struct stat st;
	int fd, err = -1;

	fd = open(r->dir, flags);
	if (fd < 0)
		return fail("open", r->dir);
	if (fstat(fd, &st) || st.st_size < (off_t)r->bs) {
		errno = st.st_size < (off_t)r->bs ? EINVAL : errno;
		fail("a file of at least one block:", r->dir);
		goto out;
	}
	if (posix_memalign((void **)&bufs, 4096, nbufs * r->bs)) {
		errno = ENOMEM;
		fail("buffers for", r->dir);
		goto out;
	}
	memset(bufs, 0x5a, nbufs * r->bs);
	r->seed = 0x9e3779b97f4a7c15ULL;
	if (r->depth)
		err = data_aio(r, fd, bufs, st.st_size / r->bs);
	else
		err = data_psync(r, fd, bufs, st.st_size / r->bs);
out:
	free(bufs);
	close(fd);
	return err;
}

/* --- main --------------------------------------------------------------------- */

static int usage(void)
{
	fprintf(stderr, "usage: fsbench stat|open|create|readdir DIR SECONDS\n"
			"       fsbench walk DIR\n"
			"       fsbench read|write|randread|randwrite FILE SECONDS BS [DEPTH]\n");
	return 2;
}

static bool known(const char *what)
{
	static const char *const names[] = { "stat", "open", "create", "readdir", "walk",
					     "read", "write", "randread", "randwrite" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(what, names[i]))
			return true;
	return false;
}

static int run(const char *what, struct run *r)
{
	if (!strcmp(what, "stat"))
		return list_files(r) ?: repeat(r, do_stat);
	if (!strcmp(what, "open"))
		return list_files(r) ?: repeat(r, do_open);
	if (!strcmp(what, "create"))
		return work_in(r) ?: repeat(r, do_create);
	if (!strcmp(what, "readdir"))
		return repeat_readdir(r);
	if (!strcmp(what, "walk"))
		return walk(r);
	return data(r);
}

/* A number in [min, max], or -1 after saying what is wrong. */
static double number(const char *what, const char *arg, double min, double max)
{
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || *end || !(v >= min && v <= max)) {
		fprintf(stderr, "fsbench: %s must be a number in [%g, %g], not '%s'\n", what, min, max,
			arg);
		return -1;
	}
	return v;
}

/* argv after the workload's name and its DIR or FILE: the numbers. */
static int parse(struct run *r, const char *what, int argc, char **argv)
{
	bool is_data = !strcmp(what, "read") || !strcmp(what, "write") ||
		       !strcmp(what, "randread") || !strcmp(what, "randwrite");
	double v;

	if (!strcmp(what, "walk"))
		return argc == 0 ? 0 : -2;
	if (argc != (is_data ? 2 : 1) && !(is_data && argc == 3))
		return -2;
	r->seconds = number("SECONDS", argv[0], 0.001, 3600);
	if (r->seconds < 0 || !is_data)
		return r->seconds < 0 ? -1 : 0;
	v = number("BS", argv[1], 512, 64 << 20);
	if (v < 0)
		return -1;
	r->bs = v;
	if (argc == 3) {
		v = number("DEPTH", argv[2], 1, 1024);
		if (v < 0)
			return -1;
		r->depth = v;
	}
	r->write = strstr(what, "write") != NULL;
	r->random = !strncmp(what, "rand", 4);
	return 0;
}

int main(int argc, char **argv)
{
	struct run r = { 0 };
	int err;

	if (argc < 3 || !known(argv[1]))
		return usage();
	r.dir = argv[2];
	err = parse(&r, argv[1], argc - 3, argv + 3);
	if (err == -2)
		return usage();
	if (err)
		return 2;
	if (run(argv[1], &r))
		return 1;
	printf("%.1f\n", r.elapsed > 0 ? r.ops / r.elapsed / (r.bs ? 1024 : 1) : 0.0);
	return 0;
}
