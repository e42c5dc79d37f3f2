// SPDX-License-Identifier: GPL-2.0
/*
 * Operation cases: each does something through the mount (m, a backed
 * directory) and checks that the backing directory (b) shows the same effect,
 * or the other way round, errors included. pt_run_op() runs each over tmpfs
 * and over ext4 and fails it if the server saw any of it.
 */
#define _GNU_SOURCE
#include "passthrough.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libaio.h>
#include <liburing.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/xattr.h>
#include <unistd.h>



/* The two calls (through the mount, on the backing) give the same result and errno. */
#define SAME_RESULT(through, backing)                                                     \
	do {                                                                              \
		errno = 0;                                                                \
		long sr_m_ = (long)(through);                                             \
		int sr_me_ = sr_m_ < 0 ? errno : 0;                                       \
		errno = 0;                                                                \
		long sr_b_ = (long)(backing);                                             \
		int sr_be_ = sr_b_ < 0 ? errno : 0;                                       \
		EXPECT(sr_m_ == sr_b_ && sr_me_ == sr_be_,                                \
		       "%s = %ld (%s) but %s = %ld (%s)", #through, sr_m_, strerror(sr_me_), \
		       #backing, sr_b_, strerror(sr_be_));                                \
	} while (0)

#define SAME_STAT(name) EXPECT(!pt_same_stat(P(m, name), P(b, name)), "stat of %s differs", name)
#define SAME_BYTES(name) EXPECT(!pt_same_bytes(P(m, name), P(b, name)), "bytes of %s differ", name)
#define MAKE(path, len, seed)                                                        \
	do {                                                                         \
		int mk_rc_ = pt_make_file(path, len, seed);                          \
		EXPECT(!mk_rc_, "creating %s: %s", path, strerror(-mk_rc_));         \
	} while (0)

static int closefd(int *fd)
{
	int rc = 0;

	if (*fd >= 0)
		rc = close(*fd);
	*fd = -1;
	return rc;
}

/* The listings of m/name and b/name are equal. */
static int same_listing(const char *m, const char *b, const char *name)
{
	char *lm = pt_listing(name ? P(m, name) : m), *lb = pt_listing(name ? P(b, name) : b);
	int rc = -1;

	if (!lm || !lb)
		goto out;
	if (strcmp(lm, lb)) {
		printf("listing through the mount:\n%.2000s\nbacking:\n%.2000s\n", lm, lb);
		goto out;
	}
	rc = 0;
out:
	free(lm);
	free(lb);
	return rc;
}

#define SAME_LISTING(name) EXPECT(!same_listing(m, b, name), "listings of %s differ", name ? name : ".")

/* File contents equal a buffer. */
static int bytes_are(const char *path, const void *want, size_t len)
{
	char *got = NULL;
	long n = pt_slurp(path, &got);
	int rc = -1;

	if (n < 0) {
		printf("reading %s: %s\n", path, strerror(-n));
		goto out;
	}
	if ((size_t)n != len) {
		printf("%s has %ld bytes, expected %zu\n", path, n, len);
		goto out;
	}
	for (size_t i = 0; i < len; i++) {
		if (got[i] != ((const char *)want)[i]) {
			printf("%s differs at byte %zu: %02x, expected %02x\n", path, i,
			       (unsigned char)got[i], ((const unsigned char *)want)[i]);
			goto out;
		}
	}
	rc = 0;
out:
	free(got);
	return rc;
}

/* --- lookup, revalidate, getattr ---------------------------------------------- */

int op_lookup_revalidate(struct pt_env *e)
{
	const char *m = e->m, *b = e->b;
	int ret = TAP_FAIL;
	struct stat st;

	MAKE(P(b, "f"), 100, 1);
	SAME_STAT("f");
	SAME_BYTES("f");
	ERR(stat(P(m, "missing"), &st), ENOENT);
	ERR(stat(P(m, "f/x"), &st), ENOTDIR);
	/* A cached negative entry must not hide a name created on the backing side. */
	MAKE(P(b, "missing"), 10, 2);
	OK(stat(P(m, "missing"), &st));
	SAME_BYTES("missing");
	/* Nor a cached positive one a name removed there. */
	OK(unlink(P(b, "f")));
	ERR(stat(P(m, "f"), &st), ENOENT);
	ERR(open(P(m, "f"), O_RDONLY), ENOENT);
	/* A name replaced there by another inode shows the new inode. */
	MAKE(P(b, "r"), 100, 3);
	SAME_BYTES("r");
	MAKE(P(b, "r.new"), 200, 4);
	OK(rename(P(b, "r.new"), P(b, "r")));
	SAME_STAT("r");
	SAME_BYTES("r");
	/* A file replaced by a directory. */
	OK(unlink(P(b, "r")));
	OK(mkdir(P(b, "r"), 0700));
	SAME_STAT("r");
	/* Deeper levels are looked up in the backing directory too. */
	OK(mkdir(P(b, "d1"), 0755));
	OK(mkdir(P(b, "d1/d2"), 0755));
	MAKE(P(b, "d1/d2/f"), 3000, 5);
	SAME_STAT("d1");
	SAME_STAT("d1/d2");
	SAME_STAT("d1/d2/f");
	SAME_BYTES("d1/d2/f");
	ERR(stat(P(m, "d1/d2/nope"), &st), ENOENT);
	/* Dot-dot walks back up through the backed tree. */
	OK(stat(P(m, "d1/d2/../../missing"), &st));
	EXPECT(S_ISREG(st.st_mode));
	SAME_LISTING(NULL);
	ret = TAP_OK;
out:
	return ret;
}

int op_getattr(struct pt_env *e)
{
	const char *m = e->m, *b = e->b;
	int ret = TAP_FAIL, fd = -1, bfd = -1;
	struct stat sm, sb;

	MAKE(P(b, "f"), 12345, 1);
	OK(mkdir(P(b, "d"), 0710));
	OK(symlink("f", P(b, "l")));
	OK(mkfifo(P(b, "p"), 0604));
	OK(mknod(P(b, "c"), S_IFCHR | 0600, makedev(1, 3)));
	SAME_STAT("f");
	SAME_STAT("d");
	SAME_STAT("l");
	SAME_STAT("p");
	SAME_STAT("c");
	SAME_STAT(".");
	/* Attributes follow changes made on the backing side (no stale cache). */
	MAKE(P(b, "f"), 777, 2);
	OK(chmod(P(b, "f"), 0640));
	SAME_STAT("f");
	/* fstat of an open file. */
	fd = open(P(m, "f"), O_RDONLY);
	EXPECT(fd >= 0, "open: %s", strerror(errno));
	OK(fstat(fd, &sm));
	OK(stat(P(b, "f"), &sb));
	EXPECT(sm.st_size == sb.st_size && sm.st_mode == sb.st_mode, "fstat: size %ld mode %o, backing %ld %o",
	       sm.st_size, sm.st_mode, sb.st_size, sb.st_mode);
	bfd = open(P(b, "f"), O_WRONLY | O_APPEND);
	EXPECT(bfd >= 0);
	EXPECT(write(bfd, "tail", 4) == 4);
	OK(fstat(fd, &sm));
	EXPECT(sm.st_size == 781, "fstat after a backing append: size %ld, expected 781", sm.st_size);
	ret = TAP_OK;
out:
	closefd(&fd);
	closefd(&bfd);
	return ret;
}

/* --- access ----------------------------------------------------------------------- */

int op_access(struct pt_env *e)
{
	static const struct {
		const char *name;
		mode_t mode;
	} files[] = { { "rw", 0600 }, { "x", 0755 }, { "ro", 0444 }, { "none", 0 } };
	static const int modes[] = { F_OK, R_OK, W_OK, X_OK, R_OK | W_OK, R_OK | X_OK };
	const char *m = e->m, *b = e->b;
	int ret = TAP_FAIL;

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		MAKE(P(b, files[i].name), 10, i);
		OK(chmod(P(b, files[i].name), files[i].mode));
		for (size_t j = 0; j < sizeof(modes) / sizeof(modes[0]); j++)
			SAME_RESULT(access(P(m, files[i].name), modes[j]),
				    access(P(b, files[i].name), modes[j]));
	}
	OK(mkdir(P(b, "dir"), 0600));
	SAME_RESULT(access(P(m, "dir"), X_OK), access(P(b, "dir"), X_OK));
	/* Even root may not execute a file without an x bit. */
	ERR(access(P(m, "rw"), X_OK), EACCES);
	OK(access(P(m, "x"), X_OK));
	ERR(access(P(m, "missing"), F_OK), ENOENT);
	SAME_RESULT(faccessat(AT_FDCWD, P(m, "none"), R_OK, AT_EACCESS),
		    faccessat(AT_FDCWD, P(b, "none"), R_OK, AT_EACCESS));
	ret = TAP_OK;
out:
	return ret;
}

/* --- mmap ----------------------------------------------------------------------- */

int op_mmap_shared(struct pt_env *e)
{
	const size_t len = 3 * 4096 + 100;
	const char *m = e->m, *b = e->b;
	char *want = malloc(len), *p = MAP_FAILED;
	int ret = TAP_FAIL, fd = -1, bfd = -1;

	EXPECT(want);
	MAKE(P(b, "f"), len, 7);
	pt_fill(want, len, 7);
	fd = open(P(m, "f"), O_RDWR);
	EXPECT(fd >= 0, "open: %s", strerror(errno));
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	EXPECT(p != MAP_FAILED, "mmap: %s", strerror(errno));
	EXPECT(memcmp(p, want, len) == 0, "the mapping does not show the backing bytes");
	/* A store through the mapping reaches the backing file. */
	memset(p + 100, 0xa5, 5000);
	memset(want + 100, 0xa5, 5000);
	OK(msync(p, len, MS_SYNC));
	EXPECT(!bytes_are(P(b, "f"), want, len), "after msync");
	/* The mapping is the backing file's: no msync needed, both ways. */
	p[len - 1] = 'Z';
	want[len - 1] = 'Z';
	EXPECT(!bytes_are(P(b, "f"), want, len), "a store without msync is not visible on the backing");
	bfd = open(P(b, "f"), O_WRONLY);
	EXPECT(bfd >= 0);
	OK(pwrite(bfd, "backing", 7, 8192) == 7 ? 0 : -1);
	EXPECT(memcmp(p + 8192, "backing", 7) == 0, "a backing write is not visible in the mapping");
	memcpy(want + 8192, "backing", 7);
	OK(munmap(p, len));
	p = MAP_FAILED;
	OK(closefd(&fd));
	EXPECT(!bytes_are(P(m, "f"), want, len), "read back through the mount");
	/* A private mapping does not write through. */
	fd = open(P(m, "f"), O_RDWR);
	EXPECT(fd >= 0);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	EXPECT(p != MAP_FAILED, "mmap private: %s", strerror(errno));
	memset(p, 0, 4096);
	EXPECT(!bytes_are(P(b, "f"), want, len), "a MAP_PRIVATE store reached the backing file");
	/* A shared writable mapping of a read-only fd is refused. */
	OK(munmap(p, len));
	p = MAP_FAILED;
	OK(closefd(&fd));
	fd = open(P(m, "f"), O_RDONLY);
	EXPECT(fd >= 0);
	EXPECT(mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) == MAP_FAILED && errno == EACCES,
	       "a shared writable mapping of an O_RDONLY fd: %s", strerror(errno));
	ret = TAP_OK;
out:
	if (p != MAP_FAILED)
		munmap(p, len);
	closefd(&fd);
	closefd(&bfd);
	free(want);
	return ret;
}

/* --- lseek ---------------------------------------------------------------------- */

int op_lseek(struct pt_env *e)
{
	static const off_t offsets[] = { 0, 100, 4095, 4096, 8192, 65536, 500000, 1 << 20,
					 (1 << 20) + 4095, (1 << 20) + 4096, 3 << 20, 1LL << 40 };
	const char *m = e->m, *b = e->b;
	int ret = TAP_FAIL, fm = -1, fb = -1;
	char page[4096], c;

	pt_fill(page, sizeof(page), 3);
	fb = open(P(b, "f"), O_CREAT | O_RDWR, 0644);
	EXPECT(fb >= 0);
	/* data, a hole of about 1 MiB, data */
	OK(pwrite(fb, page, sizeof(page), 0) == sizeof(page) ? 0 : -1);
	OK(pwrite(fb, page, sizeof(page), 1 << 20) == sizeof(page) ? 0 : -1);
	OK(fsync(fb));
	fm = open(P(m, "f"), O_RDONLY);
	EXPECT(fm >= 0, "open: %s", strerror(errno));
	for (size_t i = 0; i < sizeof(offsets) / sizeof(offsets[0]); i++) {
		SAME_RESULT(lseek(fm, offsets[i], SEEK_DATA), lseek(fb, offsets[i], SEEK_DATA));
		SAME_RESULT(lseek(fm, offsets[i], SEEK_HOLE), lseek(fb, offsets[i], SEEK_HOLE));
	}
	EXPECT(lseek(fm, 0, SEEK_HOLE) == 4096, "SEEK_HOLE from 0: %ld", (long)lseek(fm, 0, SEEK_HOLE));
	EXPECT(lseek(fm, 4096, SEEK_DATA) == 1 << 20, "SEEK_DATA from 4096");
	ERR(lseek(fm, (1 << 20) + 4096, SEEK_DATA), ENXIO);
	/* The position the kernel keeps is the one reads use. */
	EXPECT(lseek(fm, 123, SEEK_SET) == 123);
	EXPECT(lseek(fm, 10, SEEK_CUR) == 133);
	EXPECT(read(fm, &c, 1) == 1 && c == page[133], "read after SEEK_CUR");
	EXPECT(lseek(fm, 0, SEEK_CUR) == 134);
	EXPECT(lseek(fm, -5, SEEK_END) == (1 << 20) + 4096 - 5);
	EXPECT(read(fm, &c, 1) == 1 && c == page[4096 - 5], "read after SEEK_END");
	EXPECT(lseek(fm, -2, SEEK_CUR) == (1 << 20) + 4096 - 6);
	EXPECT(lseek(fm, 10, SEEK_END) == (1 << 20) + 4096 + 10);
	EXPECT(read(fm, &c, 1) == 0, "read past the end");
	ERR(lseek(fm, -1, SEEK_SET), EINVAL);
	ERR(lseek(fm, 0, 42), EINVAL);
	/* The file grows on the backing side: SEEK_END follows. */
	OK(pwrite(fb, "x", 1, 2 << 20) == 1 ? 0 : -1);
	EXPECT(lseek(fm, 0, SEEK_END) == (2 << 20) + 1, "SEEK_END after a backing write: %ld",
	       (long)lseek(fm, 0, SEEK_END));
	ret = TAP_OK;
out:
	closefd(&fm);
	closefd(&fb);
	return ret;
}

/* --- fallocate ------------------------------------------------------------------ */

int op_fallocate(struct pt_env *e)
{
	const char *m = e->m, *b = e->b;
	int ret = TAP_FAIL, fd = -1;
	char *want = calloc(1, 1 << 20);
	struct stat st;

	EXPECT(want);
	fd = open(P(m, "f"), O_CREAT | O_RDWR, 0644);
	EXPECT(fd >= 0, "open: %s", strerror(errno));
	OK(fallocate(fd, 0, 0, 1 << 20));
	OK(stat(P(b, "f"), &st));
	EXPECT(st.st_size == 1 << 20, "backing size %ld after fallocate", st.st_size);
	EXPECT(st.st_blocks >= 2048, "backing blocks %ld after fallocate of 1 MiB", st.st_blocks);
	SAME_STAT("f");
	OK(fallocate(fd, FALLOC_FL_KEEP_SIZE, 1 << 20, 1 << 20));
	OK(stat(P(b, "f"), &st));
	EXPECT(st.st_size == 1 << 20, "KEEP_SIZE changed the size to %ld", st.st_size);
	EXPECT(st.st_blocks >= 4096, "backing blocks %ld after KEEP_SIZE", st.st_blocks);
	SAME_STAT("f");
	/* Punch a hole into data. */
	pt_fill(want, 65536, 11);
	OK(pwrite(fd, want, 65536, 0) == 65536 ? 0 : -1);
	OK(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 4096, 8192));
	memset(want + 4096, 0, 8192);
	EXPECT(!bytes_are(P(b, "f"), want, 1 << 20), "after PUNCH_HOLE");
	SAME_STAT("f");
	/* Errors come from the backing file (or the VFS) the same way. */
	ERR(fallocate(fd, FALLOC_FL_PUNCH_HOLE, 0, 4096), EOPNOTSUPP);
	ERR(fallocate(fd, 0, -1, 4096), EINVAL);
	OK(closefd(&fd));
	fd = open(P(m, "f"), O_RDONLY);
	EXPECT(fd >= 0);
	ERR(fallocate(fd, 0, 0, 4096), EBADF);
	ret = TAP_OK;
out:
	closefd(&fd);
	free(want);
	return ret;
}

/* --- open, create, release, flush ------------------------------------------------ */

int op_open_create_release(struct pt_env *e)
{
	const char *m = e->m, *b = e->b;
	int ret = TAP_FAIL, fd = -1, fd2 = -1;
	struct stat st;
	char buf[16];

	fd = open(P(m, "new"), O_CREAT | O_EXCL | O_RDWR, 0640);
	EXPECT(fd >= 0, "create: %s", strerror(errno));
	OK(stat(P(b, "new"), &st));
	EXPECT(st.st_mode == (S_IFREG | 0640), "created with mode %o", st.st_mode);
	OK(write(fd, "hello", 5) == 5 ? 0 : -1);
	/* close = flush + release, and their errors would show here */
	OK(closefd(&fd));
	EXPECT(!bytes_are(P(b, "new"), "hello", 5));
	SAME_STAT("new");
	ERR(open(P(m, "new"), O_CREAT | O_EXCL | O_RDWR, 0640), EEXIST);
	ERR(open(P(m, "absent"), O_RDONLY), ENOENT);
	ERR(open(P(m, "new/x"), O_CREAT | O_RDWR, 0600), ENOTDIR);
	ERR(open(m, O_WRONLY), EISDIR);
	ERR(open(P(m, "new"), O_RDONLY | O_DIRECTORY), ENOTDIR);
	/* O_CREAT on an existing file opens it as it is. */
	fd = open(P(m, "new"), O_CREAT | O_RDONLY, 0600);
	EXPECT(fd >= 0);
	EXPECT(read(fd, buf, sizeof(buf)) == 5);
	OK(closefd(&fd));
	OK(stat(P(b, "new"), &st));
	EXPECT(st.st_mode == (S_IFREG | 0640), "O_CREAT of an existing file changed its mode to %o", st.st_mode);
	/* O_TRUNC and O_APPEND reach the backing file. */
	fd = open(P(m, "new"), O_WRONLY | O_TRUNC);
	EXPECT(fd >= 0);
	OK(closefd(&fd));
	EXPECT(!bytes_are(P(b, "new"), "", 0), "O_TRUNC");
	fd = open(P(m, "new"), O_WRONLY | O_APPEND);
	EXPECT(fd >= 0);
	OK(write(fd, "ab", 2));
	OK(lseek(fd, 0, SEEK_SET));
	OK(write(fd, "cd", 2));
	OK(closefd(&fd));
	EXPECT(!bytes_are(P(b, "new"), "abcd", 4), "O_APPEND");
	/* Two opens share the backing inode. */
	fd = open(P(m, "new"), O_RDWR);
	fd2 = open(P(m, "new"), O_RDONLY);
	EXPECT(fd >= 0 && fd2 >= 0);
	OK(pwrite(fd, "XY", 2, 1));
	EXPECT(pread(fd2, buf, 4, 0) == 4 && memcmp(buf, "aXYd", 4) == 0);
	OK(closefd(&fd));
	OK(closefd(&fd2));
	/* creat() in a subdirectory */
	OK(mkdir(P(b, "sub"), 0755));
	fd = creat(P(m, "sub/c"), 0604);
	EXPECT(fd >= 0, "creat: %s", strerror(errno));
	OK(closefd(&fd));
	SAME_STAT("sub/c");
	ERR(open(P(m, "sub/c"), O_RDWR | O_CREAT | O_EXCL, 0600), EEXIST);
	SAME_LISTING(NULL);
	ret = TAP_OK;
out:
	closefd(&fd);
	closefd(&fd2);
	return ret;
}

int op_opendir_releasedir(struct pt_env *e)
{
	const char *m = e->m, *b = e->b;
	int ret = TAP_FAIL, n1 = 0, n2 = 0, saw_sub = 0, saw_a = 0, rc;
	struct dirent *de;
	DIR *d = NULL, *d2 = NULL;

	OK(mkdir(P(b, "d"), 0755));
	MAKE(P(b, "d/a"), 1, 1);
	MAKE(P(b, "d/b"), 2, 2);
	OK(mkdir(P(b, "d/sub"), 0755));
	OK(symlink("a", P(b, "d/l")));
	SAME_LISTING("d");
	d = opendir(P(m, "d"));
	d2 = opendir(P(m, "d"));
	EXPECT(d && d2, "opendir: %s", strerror(errno));
	while ((de = readdir(d))) {
		n1++;
		if (!strcmp(de->d_name, "sub"))
			saw_sub = de->d_type == DT_DIR || de->d_type == DT_UNKNOWN;
		if (!strcmp(de->d_name, "a"))
			saw_a = de->d_type == DT_REG || de->d_type == DT_UNKNOWN;
	}
	EXPECT(n1 == 6, "%d entries with . and .., expected 6", n1);
	EXPECT(saw_sub && saw_a, "wrong d_type for sub or a");
	while (readdir(d2))
		n2++;
	EXPECT(n2 == n1, "a second handle read %d entries", n2);
	rewinddir(d);
	n1 = 0;
	while (readdir(d))
		n1++;
	EXPECT(n1 == 6, "after rewinddir: %d entries", n1);
	rc = closedir(d);
	d = NULL;
	EXPECT(!rc, "closedir: %s", strerror(errno));
	rc = closedir(d2);
	d2 = NULL;
	EXPECT(!rc, "closedir: %s", strerror(errno));
	EXPECT(!opendir(P(m, "d/a")) && errno == ENOTDIR, "opendir of a file: %s", strerror(errno));
	EXPECT(!opendir(P(m, "d/nope")) && errno == ENOENT, "opendir of nothing: %s", strerror(errno));
	/* An empty directory lists only . and .. */
	d = opendir(P(m, "d/sub"));
	EXPECT(d);
	n1 = 0;
	while (readdir(d))
		n1++;
	EXPECT(n1 == 2, "empty dir: %d entries", n1);
	/* A directory removed while open reads as empty. */
	OK(rmdir(P(b, "d/sub")));
	rewinddir(d);
	EXPECT(!readdir(d), "a removed directory still lists entries");
	ret = TAP_OK;
out:
	if (d)
		closedir(d);
	if (d2)
		closedir(d2);
	return ret;
}

/* --- mknod, mkdir, rmdir, unlink ---------------------------------------------------- */

int op_mknod(struct pt_env *e)
{
	const char *m = e->m, *b = e->b;
	int ret = TAP_FAIL, fd = -1;
	struct stat st;
	char c;

	OK(mkfifo(P(m, "fifo"), 0620));
	OK(stat(P(b, "fifo"), &st));
	EXPECT(S_ISFIFO(st.st_mode) && (st.st_mode & 07777) == 0620, "backing mode %o", st.st_mode);
	SAME_STAT("fifo");
	OK(mknod(P(m, "reg"), S_IFREG | 0640, 0));
	OK(stat(P(b, "reg"), &st));
	EXPECT(S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0640 && st.st_size == 0,
	       "backing mode %o size %ld", st.st_mode, st.st_size);
	SAME_STAT("reg");
	OK(mknod(P(m, "null"), S_IFCHR | 0666, makedev(1, 3)));
	OK(stat(P(b, "null"), &st));
	EXPECT(S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3), "backing rdev %lx", st.st_rdev);
	SAME_STAT("null");
	ERR(mknod(P(m, "fifo"), S_IFIFO | 0600, 0), EEXIST);
	ERR(mknod(P(m, "nodir/x"), S_IFIFO | 0600, 0), ENOENT);
	/* The fifo works as a fifo through the mount. */
	fd = open(P(m, "fifo"), O_RDWR | O_NONBLOCK);
	EXPECT(fd >= 0, "open fifo: %s", strerror(errno));
	EXPECT(write(fd, "q", 1) == 1);
	EXPECT(read(fd, &c, 1) == 1 && c == 'q');
	ERR(read(fd, &c, 1), EAGAIN);
	SAME_LISTING(NULL);
	ret = TAP_OK;
out:
	closefd(&fd);
	return ret;
}

int op_mkdir_rmdir(struct pt_env *e)
{
	const char *m = e->m, *b = e->b;
	int ret = TAP_FAIL, fd = -1, fd2 = -1;
	struct stat st;

	OK(mkdir(P(m, "d"), 0750));
	OK(stat(P(b, "d"), &st));
	EXPECT(S_ISDIR(st.st_mode) && (st.st_mode & 07777) == 0750, "backing mode %o", st.st_mode);
	SAME_STAT("d");
	SAME_STAT(".");	/* the parent's link count */
	ERR(mkdir(P(m, "d"), 0750), EEXIST);
	ERR(mkdir(P(m, "nope/x"), 0750), ENOENT);
	MAKE(P(b, "file"), 1, 1);
	ERR(mkdir(P(m, "file/x"), 0750), ENOTDIR);
	/* Nested, and the parent's nlink follows. */
	OK(mkdir(P(m, "d/c"), 0700));
	SAME_STAT("d");
	SAME_STAT("d/c");
	fd = open(P(m, "d/c/f"), O_CREAT | O_WRONLY, 0600);
	EXPECT(fd >= 0);
	OK(closefd(&fd));
	ERR(rmdir(P(m, "d/c")), ENOTEMPTY);
	ERR(rmdir(P(m, "d")), ENOTEMPTY);
	OK(stat(P(b, "d/c/f"), &st));
	OK(unlink(P(m, "d/c/f")));
	OK(rmdir(P(m, "d/c")));
	ERR(stat(P(b, "d/c"), &st), ENOENT);
	ERR(stat(P(m, "d/c"), &st), ENOENT);
	SAME_STAT("d");
	ERR(rmdir(P(m, "d/c")), ENOENT);
	ERR(rmdir(P(m, "file")), ENOTDIR);
	ERR(rmdir(P(m, "d/.")), EINVAL);
	/* Made on one side, removed on the other. */
	OK(mkdir(P(b, "fromb"), 0755));
	OK(rmdir(P(m, "fromb")));
	ERR(stat(P(b, "fromb"), &st), ENOENT);
	OK(mkdir(P(m, "fromm"), 0755));
	OK(rmdir(P(b, "fromm")));
	ERR(stat(P(m, "fromm"), &st), ENOENT);
	/* Removed while open: the open directory reads and stats like a removed backing one. */
	OK(mkdir(P(m, "open-m"), 0755));
	OK(mkdir(P(b, "open-b"), 0755));
	fd = open(P(m, "open-m"), O_RDONLY | O_DIRECTORY);
	fd2 = open(P(b, "open-b"), O_RDONLY | O_DIRECTORY);
	EXPECT(fd >= 0 && fd2 >= 0);
	OK(rmdir(P(m, "open-m")));
	OK(rmdir(P(b, "open-b")));
	ERR(stat(P(b, "open-m"), &st), ENOENT);
	{
		char dents[1024];
		struct stat s1, s2;

		SAME_RESULT(syscall(SYS_getdents64, fd, dents, sizeof(dents)),
			    syscall(SYS_getdents64, fd2, dents, sizeof(dents)));
		OK(fstat(fd, &s1));
		OK(fstat(fd2, &s2));
		EXPECT(s1.st_nlink == s2.st_nlink, "nlink of a removed open directory: %lu, backing %lu",
		       s1.st_nlink, s2.st_nlink);
	}
	ERR(openat(fd, "x", O_CREAT | O_WRONLY, 0600), ENOENT);
	OK(closefd(&fd));
	OK(closefd(&fd2));
	/* A removed directory can be made again (no stale dentry). */
	OK(mkdir(P(m, "fromm"), 0701));
	SAME_STAT("fromm");
	SAME_LISTING(NULL);
	ret = TAP_OK;
out:
	closefd(&fd);
	closefd(&fd2);
	return ret;
}

int op_unlink_closed_before(struct pt_env *e)
{
	const char *m = e->m, *b = e->b;
	int ret = TAP_FAIL, fd = -1;
	struct stat st;

	fd = open(P(m, "f"), O_CREAT | O_RDWR, 0644);
	EXPECT(fd >= 0);
	OK(write(fd, "x", 1));
	OK(closefd(&fd));
	OK(unlink(P(m, "f")));
	ERR(stat(P(b, "f"), &st), ENOENT);
	ERR(stat(P(m, "f"), &st), ENOENT);
	ERR(unlink(P(m, "f")), ENOENT);
	OK(mkdir(P(b, "dir"), 0755));
	ERR(unlink(P(m, "dir")), EISDIR);
	/* Made on the backing side, removed through the mount, and the reverse. */
	MAKE(P(b, "g"), 10, 1);
	OK(unlink(P(m, "g")));
	ERR(stat(P(b, "g"), &st), ENOENT);
	MAKE(P(m, "h"), 10, 1);
	OK(unlink(P(b, "h")));
	ERR(stat(P(m, "h"), &st), ENOENT);
	ERR(unlink(P(m, "h")), ENOENT);
	/* The name can be reused at once. */
	MAKE(P(m, "f"), 20, 2);
	SAME_BYTES("f");
	SAME_LISTING(NULL);
	ret = TAP_OK;
out:
	closefd(&fd);
	return ret;
}

int op_unlink_open_fd(struct pt_env *e)
{
	const char *m = e->m, *b = e->b;
	int ret = TAP_FAIL, fd = -1, fd2 = -1;
	struct stat st;
	char buf[8];

	fd = open(P(m, "f"), O_CREAT | O_RDWR, 0644);
	EXPECT(fd >= 0);
	OK(write(fd, "abc", 3));
	OK(unlink(P(m, "f")));
	ERR(stat(P(b, "f"), &st), ENOENT);
	ERR(stat(P(m, "f"), &st), ENOENT);
	/* The open file lives on. */
	OK(fstat(fd, &st));
	EXPECT(st.st_nlink == 0, "nlink %lu after unlink", st.st_nlink);
	EXPECT(pwrite(fd, "def", 3, 3) == 3);
	EXPECT(pread(fd, buf, 6, 0) == 6 && memcmp(buf, "abcdef", 6) == 0);
	/* A new file of the same name is another file. */
	MAKE(P(m, "f"), 5, 9);
	EXPECT(pread(fd, buf, 6, 0) == 6 && memcmp(buf, "abcdef", 6) == 0, "the new file changed the old one");
	SAME_BYTES("f");
	OK(closefd(&fd));
	/* Opened on the backing side, unlinked through the mount. */
	fd2 = open(P(b, "f"), O_RDONLY);
	EXPECT(fd2 >= 0);
	OK(unlink(P(m, "f")));
	EXPECT(read(fd2, buf, 5) == 5);
	OK(closefd(&fd2));
	SAME_LISTING(NULL);
	ret = TAP_OK;
out:
	closefd(&fd);
	closefd(&fd2);
	return ret;
}

int pt_backing_free(const char *b, long long *bytes, long long *inodes)
{
	struct statfs s;
	int fd = open(b, O_RDONLY | O_DIRECTORY), rc;

	if (fd < 0)
		return -1;
	rc = syncfs(fd) || fstatfs(fd, &s);
	close(fd);
	if (rc)
		return -1;
	*bytes = (long long)s.f_bfree * s.f_bsize;
	*inodes = (long long)s.f_ffree;
	return 0;
}

#define PT_BIG (16 << 20)

/* Space and inode given back to the backing, allowing for a little metadata. */
#define FREED_AGAIN(what)                                                                   \
	do {                                                                                \
		OK(pt_backing_free(b, &bytes, &inodes));                                       \
		EXPECT(bytes > bytes0 - PT_BIG / 4 && inodes >= inodes0,                    \
		       "after %s, the backing has %lld KiB and %lld inodes less than before", \
		       what, (bytes0 - bytes) >> 10, inodes0 - inodes);                     \
	} while (0)

/*
 * A file removed through the view gives its blocks and inode back at once,
 * as it does natively: its cached FUSE dentry must not keep the backing
 * one. An open one gives them back at its last close.
 */
int op_remove_frees_space(struct pt_env *e)
{
	const char *m = e->m, *b = e->b;
	long long bytes0, inodes0, bytes, inodes;
	int ret = TAP_FAIL, fd = -1;
	struct stat st;

	OK(pt_backing_free(b, &bytes0, &inodes0));
	MAKE(P(m, "big"), PT_BIG, 3);
	OK(pt_backing_free(b, &bytes, &inodes));
	EXPECT(bytes < bytes0 - PT_BIG / 2 && inodes < inodes0, "writing 16 MiB used no space");
	OK(stat(P(m, "big"), &st));
	OK(unlink(P(m, "big")));
	FREED_AGAIN("an unlink");
	/* The name is free again, and a new file of it is another file. */
	ERR(stat(P(m, "big"), &st), ENOENT);
	MAKE(P(m, "big"), PT_BIG, 4);
	MAKE(P(m, "small"), 10, 5);
	OK(rename(P(m, "small"), P(m, "big")));
	OK(unlink(P(m, "big")));
	FREED_AGAIN("a rename over a file and an unlink");
	OK(mkdir(P(m, "dir"), 0755));
	OK(stat(P(m, "dir"), &st));
	OK(rmdir(P(m, "dir")));
	FREED_AGAIN("an rmdir");
	/* A file unlinked while open keeps its blocks until its last close. */
	MAKE(P(m, "big"), PT_BIG, 6);
	fd = open(P(m, "big"), O_RDONLY);
	EXPECT(fd >= 0);
	OK(unlink(P(m, "big")));
	OK(pt_backing_free(b, &bytes, &inodes));
	EXPECT(bytes < bytes0 - PT_BIG / 2, "an open file's blocks were freed at its unlink");
	OK(closefd(&fd));
	FREED_AGAIN("the last close of an unlinked file");
	SAME_LISTING(NULL);
	ret = TAP_OK;
out:
	closefd(&fd);
	return ret;
}

/*
 * A directory removed through the view gives its inode back at once too,
 * even after names were looked up in it. Each such lookup left a negative
 * FUSE dentry holding a negative backing one; the backing rmdir runs before
 * the VFS prunes the FUSE children (vfs_rmdir() shrinks after ->rmdir()),
 * so on a backing file system that keeps negative dentries (ext4) the
 * backing child, released only then, stays cached and keeps its removed
 * parent. The same for a directory replaced by a rename.
 */
int op_remove_dir_frees_inode(struct pt_env *e)
{
	const char *m = e->m, *b = e->b;
	long long bytes0, inodes0, bytes, inodes;
	int ret = TAP_FAIL;
	struct stat st;

	/* Fails on ext4 only: tmpfs keeps no negative dentries (always_delete_dentry) */
	OK(pt_backing_free(b, &bytes0, &inodes0));
	OK(mkdir(P(m, "d"), 0755));
	ERR(stat(P(m, "d/absent"), &st), ENOENT);
	OK(rmdir(P(m, "d")));
	FREED_AGAIN("an rmdir of a directory with a name looked up in it");
	/* Within a directory that stays (its own rmdir would prune the child). */
	OK(mkdir(P(m, "a"), 0755));
	OK(mkdir(P(m, "a/b"), 0755));
	ERR(stat(P(m, "a/b/absent"), &st), ENOENT);
	OK(rmdir(P(m, "a/b")));
	OK(pt_backing_free(b, &bytes, &inodes));
	EXPECT(inodes >= inodes0 - 1, "after an rmdir in a directory, %lld inodes in use, not 1",
	       inodes0 - inodes);
	OK(rmdir(P(m, "a")));
	/* A rename over an empty directory frees the one it replaced. */
	OK(mkdir(P(m, "s"), 0755));
	OK(mkdir(P(m, "t"), 0755));
	ERR(stat(P(m, "t/absent"), &st), ENOENT);
	OK(rename(P(m, "s"), P(m, "t")));
	OK(pt_backing_free(b, &bytes, &inodes));
	EXPECT(inodes >= inodes0 - 1, "after a rename over a directory, %lld inodes in use, not 1",
	       inodes0 - inodes);
	OK(rmdir(P(m, "t")));
	SAME_LISTING(NULL);
	ret = TAP_OK;
out:
	return ret;
}

/*
 * A file removed on the backing side (by a server, which cannot name a node
 * the kernel found in a notification, or through another view of the same
 * directory) gives its blocks back at once too, as on a bind mount, even when
 * the view has looked it up: the view's unused cached dentry holds the backing
 * one until the name is walked again or the dcache is pruned (a known
 * limit, as with overlayfs, in docs/kernel.md "Not done": a TODO).
 */
int op_backing_remove_frees_space(struct pt_env *e)
{
	const char *m = e->m, *b = e->b;
	long long bytes0, inodes0, bytes, inodes;
	int ret = TAP_FAIL;
	struct stat st;

	if (!e->direct)
		TODO("a cached backed dentry keeps a backing file removed underneath");
	OK(pt_backing_free(b, &bytes0, &inodes0));
	MAKE(P(m, "big"), PT_BIG, 3);
	OK(stat(P(m, "big"), &st));
	OK(unlink(P(b, "big")));
	FREED_AGAIN("an unlink on the backing of a file the view looked up");
	OK(mkdir(P(m, "dir"), 0755));
	OK(stat(P(m, "dir"), &st));
	OK(rmdir(P(b, "dir")));
	FREED_AGAIN("an rmdir on the backing of a directory the view looked up");
	ERR(stat(P(m, "big"), &st), ENOENT);
	ERR(stat(P(m, "dir"), &st), ENOENT);
	SAME_LISTING(NULL);
	ret = TAP_OK;
out:
	return ret;
}

/* Dentries in the dcache, all file systems: the first field of dentry-state. */
static long long nr_dentry(void)
{
	long long n = -1;
	FILE *f = fopen("/proc/sys/fs/dentry-state", "r");

	if (f) {
		if (fscanf(f, "%lld", &n) != 1)
			n = -1;
		fclose(f);
	}
	return n;
}

#define PT_TREE 2000

/*
 * An rmdir that fails (ENOTEMPTY) leaves the dcache alone, as natively: it
 * must not prune the view's cached subtree of the directory, which the next
 * walks would have to look up again (each one a backing lookup, getattr and
 * iget): a directory's FUSE children are pruned once the backing rmdir
 * has succeeded, not before it.
 */
int op_rmdir_notempty_keeps_cache(struct pt_env *e)
{
	const char *m = e->m;
	long long n0, n1;
	int ret = TAP_FAIL, fd;
	struct stat st;
	char name[64];

	OK(mkdir(P(m, "d"), 0755));
	OK(mkdir(P(m, "d/sub"), 0755));
	for (int i = 0; i < PT_TREE; i++) {
		snprintf(name, sizeof(name), "d/sub/f%d", i);
		fd = open(P(m, name), O_CREAT | O_WRONLY, 0644);
		EXPECT(fd >= 0, "creating %s: %s", name, strerror(errno));
		OK(close(fd));
	}
	for (int i = 0; i < PT_TREE; i++) {
		snprintf(name, sizeof(name), "d/sub/f%d", i);
		OK(stat(P(m, name), &st));
	}
	n0 = nr_dentry();
	ERR(rmdir(P(m, "d")), ENOTEMPTY);
	n1 = nr_dentry();
	EXPECT(n0 > 0 && n1 > n0 - PT_TREE / 2,
	       "a failed rmdir dropped %lld dentries of the %d cached below it", n0 - n1, PT_TREE);
	OK(mkdir(P(m, "x"), 0755));
	for (int i = 0; i < PT_TREE; i++) {
		snprintf(name, sizeof(name), "d/sub/f%d", i);
		OK(stat(P(m, name), &st));
	}
	n0 = nr_dentry();
	ERR(rename(P(m, "x"), P(m, "d")), ENOTEMPTY);
	n1 = nr_dentry();
	EXPECT(n0 > 0 && n1 > n0 - PT_TREE / 2,
	       "a failed rename over a directory dropped %lld dentries of the %d cached below it",
	       n0 - n1, PT_TREE);
	ret = TAP_OK;
out:
	return ret;
}

/*
 * fcntl(F_SETFL) changes O_APPEND and O_DIRECT of an open file: its next read
 * or write goes by the new flags through the view as natively, not by those
 * the backing file was opened with.
 */
int op_setfl_flags(struct pt_env *e)
{
	const char *m = e->m, *b = e->b;
	int ret = TAP_FAIL, fd = -1, fd2 = -1;
	char buf[8] = "";
	loff_t off;

	MAKE(P(b, "f"), 0, 0);
	fd = open(P(m, "f"), O_WRONLY | O_APPEND);
	EXPECT(fd >= 0);
	OK(write(fd, "abcd", 4));
	OK(fcntl(fd, F_SETFL, 0));
	EXPECT(pwrite(fd, "X", 1, 0) == 1);
	OK(lseek(fd, 1, SEEK_SET));
	EXPECT(write(fd, "Y", 1) == 1);
	EXPECT(!bytes_are(P(b, "f"), "XYcd", 4), "writes after clearing O_APPEND still appended");
	OK(fcntl(fd, F_SETFL, O_APPEND));
	OK(lseek(fd, 0, SEEK_SET));
	EXPECT(write(fd, "Z", 1) == 1);
	EXPECT(!bytes_are(P(b, "f"), "XYcdZ", 5), "a write after setting O_APPEND did not append");
	/* copy_file_range() and splice refuse an O_APPEND file, and take it once cleared */
	OK(fcntl(fd, F_SETFL, 0));
	fd2 = open(P(m, "f"), O_RDONLY);
	EXPECT(fd2 >= 0);
	off = 0;
	EXPECT(copy_file_range(fd2, &off, fd, NULL, 2, 0) == 2, "copy_file_range: %s", strerror(errno));
	EXPECT(!bytes_are(P(b, "f"), "XYcdZXY", 7), "copy_file_range after clearing O_APPEND");
	OK(closefd(&fd2));
	OK(closefd(&fd));
	fd = open(P(m, "f"), O_RDONLY | O_DIRECT);
	if (fd < 0) {
		ERR(open(P(b, "f"), O_RDONLY | O_DIRECT), EINVAL);
		printf("%s refuses O_DIRECT: the O_DIRECT half is not run\n", pt_kind_name(e->kind));
		ret = TAP_OK;
		goto out;
	}
	/* Unaligned: fine once O_DIRECT is off */
	OK(fcntl(fd, F_SETFL, 0));
	EXPECT(pread(fd, buf + 1, 3, 1) == 3 && !memcmp(buf + 1, "Ycd", 3),
	       "an unaligned read after clearing O_DIRECT: %s", strerror(errno));
	ret = TAP_OK;
out:
	closefd(&fd);
	closefd(&fd2);
	return ret;
}

/*
 * copy_file_range() reads the input through its backing file: after F_SETFL
 * cleared O_DIRECT on the view's file, an unaligned copy out of it works.
 */
int op_setfl_copy_from_direct(struct pt_env *e)
{
	const char *m = e->m, *b = e->b;
	int ret = TAP_FAIL, fd = -1, fd2 = -1;
	loff_t off_in = 1, off_out = 0;
	ssize_t n;

	MAKE(P(b, "f"), 0, 0);
	MAKE(P(b, "g"), 0, 0);
	fd = open(P(b, "f"), O_WRONLY);
	EXPECT(fd >= 0);
	EXPECT(write(fd, "abcd", 4) == 4);
	OK(fsync(fd));
	OK(closefd(&fd));
	fd = open(P(m, "f"), O_RDONLY | O_DIRECT);
	if (fd < 0) {
		ERR(open(P(b, "f"), O_RDONLY | O_DIRECT), EINVAL);
		printf("%s refuses O_DIRECT: not run\n", pt_kind_name(e->kind));
		ret = TAP_OK;
		goto out;
	}
	OK(fcntl(fd, F_SETFL, 0));
	fd2 = open(P(m, "g"), O_WRONLY);
	EXPECT(fd2 >= 0);
	n = copy_file_range(fd, &off_in, fd2, &off_out, 3, 0);
	EXPECT(n == 3, "an unaligned copy_file_range() out of a file whose O_DIRECT was cleared: "
	       "%zd (%s)", n, n < 0 ? strerror(errno) : "short");
	EXPECT(!bytes_are(P(b, "g"), "bcd", 3));
	ret = TAP_OK;
out:
	closefd(&fd);
	closefd(&fd2);
	return ret;
}

/* chattr +a/-a on a backing path; 0 or -errno */
static int set_append_only(const char *path, bool on)
{
	int fd = open(path, O_RDONLY), flags, rc = 0;

	if (fd < 0)
		return -errno;
	if (ioctl(fd, FS_IOC_GETFLAGS, &flags) < 0) {
		rc = -errno;
		goto out;
	}
	flags = on ? flags | FS_APPEND_FL : flags & ~FS_APPEND_FL;
	if (ioctl(fd, FS_IOC_SETFLAGS, &flags) < 0)
		rc = -errno;
out:
	close(fd);
	return rc;
}

/*
 * O_APPEND is cleared with F_SETFL, then the file is made append-only (the
 * open file stays writable at any offset, as the VFS checks S_APPEND only
 * at open and F_SETFL).  A read has nothing to do with O_APPEND and must not
 * fail; a write goes where it is told, as on the backing file system.
 */
int op_setfl_append_only(struct pt_env *e)
{
	const char *m = e->m, *b = e->b;
	int ret = TAP_FAIL, fd = -1, rc;
	bool marked = false;
	char buf[4] = "";
	ssize_t n;

	MAKE(P(b, "f"), 0, 0);
	fd = open(P(m, "f"), O_RDWR | O_APPEND);
	EXPECT(fd >= 0);
	EXPECT(write(fd, "abcd", 4) == 4);
	OK(fcntl(fd, F_SETFL, 0));
	/*
	 * The view gives the backing file the cleared O_APPEND at its next
	 * I/O; one that comes only after the chattr finds an append-only
	 * inode and keeps O_APPEND (setfl_append_only_after_open).
	 */
	EXPECT(pread(fd, buf, 1, 0) == 1);
	rc = set_append_only(P(b, "f"), true);
	EXPECT(!rc, "chattr +a: %s", strerror(-rc));
	marked = true;
	n = pread(fd, buf, 2, 1);
	EXPECT(n == 2 && !memcmp(buf, "bc", 2),
	       "a read after O_APPEND was cleared and the file made append-only: %zd (%s)", n,
	       n < 0 ? strerror(errno) : "short");
	n = pwrite(fd, "X", 1, 0);
	EXPECT(n == 1, "a write at 0 after O_APPEND was cleared and the file made append-only: "
	       "%zd (%s)", n, n < 0 ? strerror(errno) : "short");
	EXPECT(!bytes_are(P(b, "f"), "Xbcd", 4));
	ret = TAP_OK;
out:
	closefd(&fd);
	if (marked)
		set_append_only(P(b, "f"), false);
	return ret;
}

/*
 * A file opened with O_APPEND and then made append-only (behind the view)
 * keeps appending: natively, F_SETFL refuses to clear O_APPEND (EPERM, setfl()
 * checks S_APPEND of the file's inode), so the open file can never write at
 * an offset.  Through the view, setfl() checks the FUSE inode, whose S_APPEND
 * is a copy refreshed only by a walk or a getattr: were the cleared O_APPEND
 * copied into the backing file at the next write, that write would
 * overwrite the append-only file. An append-only backing inode keeps the
 * backing file's O_APPEND.
 */
int op_setfl_append_only_after_open(struct pt_env *e)
{
	const char *m = e->m, *b = e->b;
	int ret = TAP_FAIL, fd = -1, rc, err;
	bool marked = false, ring_up = false;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	ssize_t n;

	MAKE(P(b, "f"), 0, 0);
	fd = open(P(m, "f"), O_RDWR | O_APPEND);
	EXPECT(fd >= 0);
	EXPECT(write(fd, "abcd", 4) == 4);
	rc = set_append_only(P(b, "f"), true);
	EXPECT(!rc, "chattr +a: %s", strerror(-rc));
	marked = true;
	rc = fcntl(fd, F_SETFL, 0);
	err = rc ? errno : 0;
	printf("F_SETFL clearing O_APPEND of an append-only file: %s\n", rc ? strerror(err) : "allowed");
	n = pwrite(fd, "X", 1, 0);
	EXPECT(n == 1, "a pwrite: %zd (%s)", n, n < 0 ? strerror(errno) : "short");
	/* (F_SETFL itself fails natively; the view has no hook to refuse it) */
	EXPECT(!bytes_are(P(b, "f"), "abcdX", 5),
	       "an O_APPEND file made append-only was written at offset 0 after F_SETFL");
	/* An async write too (it clones the view's iocb, without IOCB_APPEND) */
	rc = io_uring_queue_init(2, &ring, 0);
	EXPECT(rc == 0, "io_uring_queue_init: %s", strerror(-rc));
	ring_up = true;
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_write(sqe, fd, "Y", 1, 0);
	EXPECT(io_uring_submit(&ring) == 1);
	EXPECT(io_uring_wait_cqe(&ring, &cqe) == 0);
	n = cqe->res;
	io_uring_cqe_seen(&ring, cqe);
	EXPECT(n == 1, "an io_uring write: %zd", n);
	EXPECT(!bytes_are(P(b, "f"), "abcdXY", 6),
	       "an O_APPEND file made append-only was written at offset 0 by io_uring");
	ret = TAP_OK;
out:
	if (ring_up)
		io_uring_queue_exit(&ring);
	closefd(&fd);
	if (marked)
		set_append_only(P(b, "f"), false);
	return ret;
}

/*
 * F_SETFL(O_DIRECT) on a file whose file system cannot do O_DIRECT (tmpfs on
 * 6.1) fails with EINVAL natively, and the file goes on working.  Through the
 * view, setfl() asks the FUSE file (which can), so it succeeds, and then every
 * read, write, splice and copy_file_range() of the open file fails with
 * EINVAL until O_DIRECT is cleared again: a known bug (TODO).
 */
int op_setfl_direct_unsupported(struct pt_env *e)
{
	const char *m = e->m, *b = e->b;
	int ret = TAP_FAIL, fd = -1, fd2 = -1, rc, err;
	loff_t off_in = 0, off_out = 0;
	char buf[4];
	ssize_t n;

	MAKE(P(b, "f"), 4, 1);
	MAKE(P(b, "g"), 0, 0);
	fd = open(P(b, "f"), O_RDONLY | O_DIRECT);
	if (fd >= 0) {
		printf("%s can do O_DIRECT: not run\n", pt_kind_name(e->kind));
		ret = TAP_OK;
		goto out;
	}
	if (!e->direct)
		TODO("F_SETFL(O_DIRECT) accepted on a view of a backing without O_DIRECT");
	fd = open(P(m, "f"), O_RDONLY);
	EXPECT(fd >= 0);
	rc = fcntl(fd, F_SETFL, O_DIRECT);
	err = rc ? errno : 0;
	printf("F_SETFL(O_DIRECT): %s\n", rc ? strerror(err) : "allowed");
	n = pread(fd, buf, 4, 0);
	EXPECT(n == 4, "a read after F_SETFL(O_DIRECT) (%s): %zd (%s)", rc ? strerror(err) : "allowed",
	       n, n < 0 ? strerror(errno) : "short");
	fd2 = open(P(m, "g"), O_WRONLY);
	EXPECT(fd2 >= 0);
	n = copy_file_range(fd, &off_in, fd2, &off_out, 4, 0);
	EXPECT(n == 4, "copy_file_range out of it: %zd (%s)", n, n < 0 ? strerror(errno) : "short");
	EXPECT(rc == -1 && err == EINVAL, "F_SETFL(O_DIRECT) succeeded");
	ret = TAP_OK;
out:
	closefd(&fd);
	closefd(&fd2);
	return ret;
}

/* A read through a file that F_SETFL gave O_NOATIME leaves the atime alone */
int op_setfl_noatime(struct pt_env *e)
{
	const char *m = e->m, *b = e->b;
	const struct timespec old[2] = { { 1000, 0 }, { 0, UTIME_OMIT } };
	int ret = TAP_FAIL, fd = -1;
	char buf[4];
	struct stat st;

	MAKE(P(b, "f"), 4, 1);
	fd = open(P(m, "f"), O_RDONLY);
	EXPECT(fd >= 0);
	OK(fcntl(fd, F_SETFL, O_NOATIME));
	EXPECT(fcntl(fd, F_GETFL) & O_NOATIME);
	OK(utimensat(AT_FDCWD, P(b, "f"), old, 0));
	EXPECT(pread(fd, buf, 4, 0) == 4);
	OK(stat(P(b, "f"), &st));
	EXPECT(st.st_atim.tv_sec == 1000, "a read with O_NOATIME set by F_SETFL changed the atime");
	/* and the other way: cleared, a read updates it (relatime: atime < mtime) */
	OK(fcntl(fd, F_SETFL, 0));
	EXPECT(pread(fd, buf, 4, 0) == 4);
	OK(stat(P(b, "f"), &st));
	EXPECT(st.st_atim.tv_sec != 1000, "a read after O_NOATIME was cleared left the atime");
	ret = TAP_OK;
out:
	closefd(&fd);
	return ret;
}

/* --- read and write ---------------------------------------------------------------- */

int op_read_write_sync(struct pt_env *e)
{
	static const size_t sizes[] = { 1, 4095, 4096, 4097, 65536 + 17, 131072, 131073, 1 << 20 };
	const char *m = e->m, *b = e->b;
	size_t total = 0, max = 4 << 20;
	char *want = calloc(1, max), *got = malloc(max);
	int ret = TAP_FAIL, fd = -1, bfd = -1;
	struct iovec iov[3];

	EXPECT(want && got);
	fd = open(P(m, "f"), O_CREAT | O_RDWR, 0644);
	EXPECT(fd >= 0);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		pt_fill(want + total, sizes[i], 100 + i);
		EXPECT(pwrite(fd, want + total, sizes[i], total) == (ssize_t)sizes[i],
		       "pwrite of %zu at %zu: %s", sizes[i], total, strerror(errno));
		total += sizes[i];
		total += 3;	/* a small gap of zeros */
	}
	total -= 3;
	EXPECT(!bytes_are(P(b, "f"), want, total), "after pwrites through the mount");
	EXPECT(pread(fd, got, max, 0) == (ssize_t)total);
	EXPECT(memcmp(got, want, total) == 0, "pread through the mount");
	/* write() and read() at the file position */
	OK(lseek(fd, 10, SEEK_SET));
	EXPECT(write(fd, "0123456789", 10) == 10);
	memcpy(want + 10, "0123456789", 10);
	EXPECT(lseek(fd, 0, SEEK_CUR) == 20);
	OK(lseek(fd, 5, SEEK_SET));
	EXPECT(read(fd, got, 20) == 20 && memcmp(got, want + 5, 20) == 0);
	/* Writes on the backing side are read through the mount (no stale page cache). */
	bfd = open(P(b, "f"), O_WRONLY);
	EXPECT(bfd >= 0);
	EXPECT(pwrite(bfd, "BACKING", 7, 70000) == 7);
	memcpy(want + 70000, "BACKING", 7);
	EXPECT(pread(fd, got, 7, 70000) == 7 && memcmp(got, "BACKING", 7) == 0,
	       "a backing write is not seen through the mount");
	/* Vectors */
	iov[0] = (struct iovec){ "one", 3 };
	iov[1] = (struct iovec){ "-two-", 5 };
	iov[2] = (struct iovec){ "three", 5 };
	EXPECT(pwritev(fd, iov, 3, 200) == 13);
	memcpy(want + 200, "one-two-three", 13);
	iov[0] = (struct iovec){ got, 4 };
	iov[1] = (struct iovec){ got + 4, 9 };
	EXPECT(preadv(fd, iov, 2, 200) == 13 && memcmp(got, "one-two-three", 13) == 0);
	/* EOF */
	EXPECT(pread(fd, got, 10, total) == 0);
	EXPECT(pread(fd, got, 10, total - 4) == 4);
	OK(closefd(&fd));
	EXPECT(!bytes_are(P(b, "f"), want, total), "at the end");
	SAME_STAT("f");
	fd = open(P(m, "f"), O_RDONLY);
	EXPECT(fd >= 0);
	ERR(write(fd, "x", 1), EBADF);
	ret = TAP_OK;
out:
	closefd(&fd);
	closefd(&bfd);
	free(want);
	free(got);
	return ret;
}

#define ASYNC_N 8
#define ASYNC_LEN 65536

int op_read_write_io_uring(struct pt_env *e)
{
	const size_t total = ASYNC_N * (ASYNC_LEN + 1);
	const char *m = e->m, *b = e->b;
	char *want = calloc(1, total), *got = calloc(1, total);
	int ret = TAP_FAIL, fd = -1, rc, bfd = -1;
	struct io_uring ring;
	bool ring_up = false;
	struct iovec iov[2];

	EXPECT(want && got);
	rc = io_uring_queue_init(16, &ring, 0);
	EXPECT(rc == 0, "io_uring_queue_init: %s", strerror(-rc));
	ring_up = true;
	fd = open(P(m, "f"), O_CREAT | O_RDWR, 0644);
	EXPECT(fd >= 0);
	/* Unaligned offsets: each write lands one byte after the previous one ends. */
	for (int i = 0; i < ASYNC_N; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

		EXPECT(sqe);
		pt_fill(want + i * (ASYNC_LEN + 1), ASYNC_LEN, 200 + i);
		io_uring_prep_write(sqe, fd, want + i * (ASYNC_LEN + 1), ASYNC_LEN, i * (ASYNC_LEN + 1));
		io_uring_sqe_set_data64(sqe, i);
	}
	rc = io_uring_submit(&ring);
	EXPECT(rc == ASYNC_N, "submit: %d", rc);
	for (int i = 0; i < ASYNC_N; i++) {
		struct io_uring_cqe *cqe;

		rc = io_uring_wait_cqe(&ring, &cqe);
		EXPECT(rc == 0, "wait: %s", strerror(-rc));
		EXPECT(cqe->res == ASYNC_LEN, "write %llu: %d (%s)", io_uring_cqe_get_data64(cqe), cqe->res,
		       cqe->res < 0 ? strerror(-cqe->res) : "short");
		io_uring_cqe_seen(&ring, cqe);
	}
	EXPECT(!bytes_are(P(b, "f"), want, total - 1), "after io_uring writes");
	/* Change the backing file, read it back with io_uring through the mount. */
	bfd = open(P(b, "f"), O_WRONLY);
	EXPECT(bfd >= 0);
	pt_fill(want + 1000, 3000, 77);
	EXPECT(pwrite(bfd, want + 1000, 3000, 1000) == 3000);
	for (int i = 0; i < ASYNC_N; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

		EXPECT(sqe);
		io_uring_prep_read(sqe, fd, got + i * (ASYNC_LEN + 1), ASYNC_LEN + 1, i * (ASYNC_LEN + 1));
		io_uring_sqe_set_data64(sqe, i);
	}
	EXPECT(io_uring_submit(&ring) == ASYNC_N);
	for (int i = 0; i < ASYNC_N; i++) {
		struct io_uring_cqe *cqe;
		int want_res;

		EXPECT(io_uring_wait_cqe(&ring, &cqe) == 0);
		want_res = io_uring_cqe_get_data64(cqe) == ASYNC_N - 1 ? ASYNC_LEN : ASYNC_LEN + 1;
		EXPECT(cqe->res == want_res, "read %llu: %d, expected %d", io_uring_cqe_get_data64(cqe),
		       cqe->res, want_res);
		io_uring_cqe_seen(&ring, cqe);
	}
	EXPECT(memcmp(got, want, total - 1) == 0, "io_uring reads through the mount");
	/* Vectored */
	{
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
		struct io_uring_cqe *cqe;

		EXPECT(sqe);
		iov[0] = (struct iovec){ got, 100 };
		iov[1] = (struct iovec){ got + 100, 200 };
		io_uring_prep_readv(sqe, fd, iov, 2, 5000);
		EXPECT(io_uring_submit(&ring) == 1);
		EXPECT(io_uring_wait_cqe(&ring, &cqe) == 0);
		EXPECT(cqe->res == 300, "readv: %d", cqe->res);
		io_uring_cqe_seen(&ring, cqe);
		EXPECT(memcmp(got, want + 5000, 300) == 0, "io_uring readv");
	}
	ret = TAP_OK;
out:
	if (ring_up)
		io_uring_queue_exit(&ring);
	closefd(&fd);
	closefd(&bfd);
	free(want);
	free(got);
	return ret;
}

static int aio_run(io_context_t ctx, struct iocb *cbs, int n, long want_res, const char *what)
{
	struct iocb *ptrs[ASYNC_N];
	struct io_event ev[ASYNC_N];
	int rc, got = 0;

	for (int i = 0; i < n; i++)
		ptrs[i] = &cbs[i];
	rc = io_submit(ctx, n, ptrs);
	if (rc != n) {
		printf("%s: io_submit: %d (%s)\n", what, rc, rc < 0 ? strerror(-rc) : "short");
		return -1;
	}
	while (got < n) {
		rc = io_getevents(ctx, 1, n - got, ev, NULL);
		if (rc < 0) {
			printf("%s: io_getevents: %s\n", what, strerror(-rc));
			return -1;
		}
		for (int i = 0; i < rc; i++) {
			if ((long)ev[i].res != want_res) {
				printf("%s: an event has res %ld, expected %ld\n", what, (long)ev[i].res,
				       want_res);
				return -1;
			}
		}
		got += rc;
	}
	return 0;
}

int op_read_write_libaio(struct pt_env *e)
{
	const size_t total = ASYNC_N * ASYNC_LEN;
	const char *m = e->m, *b = e->b;
	char *want = calloc(1, total), *got = calloc(1, total);
	int ret = TAP_FAIL, fd = -1, rc;
	struct iocb cbs[ASYNC_N];
	io_context_t ctx = 0;

	EXPECT(want && got);
	rc = io_setup(16, &ctx);
	EXPECT(rc == 0, "io_setup: %s", strerror(-rc));
	fd = open(P(m, "f"), O_CREAT | O_RDWR, 0644);
	EXPECT(fd >= 0);
	pt_fill(want, total, 300);
	for (int i = 0; i < ASYNC_N; i++)
		io_prep_pwrite(&cbs[i], fd, want + i * ASYNC_LEN, ASYNC_LEN, i * ASYNC_LEN);
	EXPECT(!aio_run(ctx, cbs, ASYNC_N, ASYNC_LEN, "writes"));
	EXPECT(!bytes_are(P(b, "f"), want, total), "after libaio writes");
	for (int i = 0; i < ASYNC_N; i++)
		io_prep_pread(&cbs[i], fd, got + i * ASYNC_LEN, ASYNC_LEN, i * ASYNC_LEN);
	EXPECT(!aio_run(ctx, cbs, ASYNC_N, ASYNC_LEN, "reads"));
	EXPECT(memcmp(got, want, total) == 0, "libaio reads through the mount");
	ret = TAP_OK;
out:
	if (ctx)
		io_destroy(ctx);
	closefd(&fd);
	free(want);
	free(got);
	return ret;
}

/*
 * O_DIRECT: the mount accepts it exactly when the backing filesystem does
 * (ext4 yes, tmpfs of 6.1 no), and then direct io_uring and sync I/O work.
 */
int op_read_write_direct(struct pt_env *e)
{
	const size_t len = 16 * 4096;
	const char *m = e->m, *b = e->b;
	int ret = TAP_FAIL, fd = -1, bfd = -1, rc;
	struct io_uring ring;
	bool ring_up = false;
	void *want = NULL, *got = NULL;

	EXPECT(!posix_memalign(&want, 4096, len) && !posix_memalign(&got, 4096, len));
	MAKE(P(b, "f"), 0, 0);
	bfd = open(P(b, "f"), O_RDWR | O_DIRECT);
	fd = open(P(m, "f"), O_RDWR | O_DIRECT);
	EXPECT((fd >= 0) == (bfd >= 0), "O_DIRECT open: %s through the mount, %s on the backing",
	       fd >= 0 ? "ok" : strerror(errno), bfd >= 0 ? "ok" : "fails");
	if (fd < 0) {
		ERR(open(P(m, "f"), O_RDWR | O_DIRECT), EINVAL);
		printf("%s refuses O_DIRECT, and so does the mount\n", pt_kind_name(e->kind));
		ret = TAP_OK;
		goto out;
	}
	pt_fill(want, len, 400);
	EXPECT(pwrite(fd, want, len / 2, 0) == (ssize_t)len / 2, "direct pwrite: %s", strerror(errno));
	rc = io_uring_queue_init(4, &ring, 0);
	EXPECT(rc == 0);
	ring_up = true;
	{
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
		struct io_uring_cqe *cqe;

		io_uring_prep_write(sqe, fd, (char *)want + len / 2, len / 2, len / 2);
		EXPECT(io_uring_submit(&ring) == 1);
		EXPECT(io_uring_wait_cqe(&ring, &cqe) == 0);
		EXPECT(cqe->res == (int)len / 2, "direct io_uring write: %d", cqe->res);
		io_uring_cqe_seen(&ring, cqe);
		sqe = io_uring_get_sqe(&ring);
		io_uring_prep_read(sqe, fd, got, len, 0);
		EXPECT(io_uring_submit(&ring) == 1);
		EXPECT(io_uring_wait_cqe(&ring, &cqe) == 0);
		EXPECT(cqe->res == (int)len, "direct io_uring read: %d", cqe->res);
		io_uring_cqe_seen(&ring, cqe);
	}
	EXPECT(memcmp(got, want, len) == 0);
	EXPECT(!bytes_are(P(b, "f"), want, len));
	/* Misaligned direct I/O fails as on the backing file. */
	SAME_RESULT(pread(fd, got, 100, 0), pread(bfd, got, 100, 0));
	ret = TAP_OK;
out:
	if (ring_up)
		io_uring_queue_exit(&ring);
	closefd(&fd);
	closefd(&bfd);
	free(want);
	free(got);
	return ret;
}

/* sendfile() from and splice() into backed files. */
int op_splice_sendfile(struct pt_env *e)
{
	const size_t len = 200000;
	const char *m = e->m, *b = e->b;
	int ret = TAP_FAIL, in = -1, out = -1, pipefd[2] = { -1, -1 };
	char *want = malloc(len), got[4196], outside[200];
	off_t off = 0;
	size_t done = 0;

	EXPECT(want);
	MAKE(P(b, "src"), len, 21);
	pt_fill(want, len, 21);
	snprintf(outside, sizeof(outside), "%s/sendfile-out", e->dir);
	in = open(P(m, "src"), O_RDONLY);
	out = open(outside, O_CREAT | O_TRUNC | O_WRONLY, 0644);
	EXPECT(in >= 0 && out >= 0);
	while (done < len) {
		ssize_t r = sendfile(out, in, &off, len - done);

		EXPECT(r > 0, "sendfile after %zu bytes: %zd (%s)", done, r, strerror(errno));
		done += r;
	}
	OK(closefd(&out));
	EXPECT(!bytes_are(outside, want, len), "sendfile from the mount");
	/* splice from a pipe into a backed file, at an offset */
	OK(pipe(pipefd));
	out = open(P(m, "dst"), O_CREAT | O_WRONLY, 0644);
	EXPECT(out >= 0);
	EXPECT(write(pipefd[1], want, 4096) == 4096);
	off = 100;
	EXPECT(splice(pipefd[0], NULL, out, &off, 4096, 0) == 4096, "splice in: %s", strerror(errno));
	OK(closefd(&out));
	memset(got, 0, 100);
	memcpy(got + 100, want, 4096);
	EXPECT(!bytes_are(P(b, "dst"), got, 4196), "splice into the mount");
	/* and from a backed file into a pipe */
	off = 5000;
	EXPECT(splice(in, &off, pipefd[1], NULL, 1000, 0) == 1000, "splice out: %s", strerror(errno));
	EXPECT(read(pipefd[0], got, 1000) == 1000);
	EXPECT(memcmp(got, want + 5000, 1000) == 0, "splice from the mount");
	ret = TAP_OK;
out:
	closefd(&in);
	closefd(&out);
	closefd(&pipefd[0]);
	closefd(&pipefd[1]);
	free(want);
	return ret;
}

/* --- readdir -------------------------------------------------------------------------- */

static int count_getdents(const char *dir, size_t bufsize, int *count)
{
	char buf[8192];
	int fd = open(dir, O_RDONLY | O_DIRECTORY), n = 0;
	long r;

	if (fd < 0 || bufsize > sizeof(buf))
		return -1;
	while ((r = syscall(SYS_getdents64, fd, buf, bufsize)) > 0) {
		for (long off = 0; off < r;) {
			struct {
				uint64_t ino;
				int64_t off;
				unsigned short reclen;
				unsigned char type;
				char name[];
			} *d = (void *)(buf + off);

			n++;
			off += d->reclen;
		}
	}
	close(fd);
	*count = n;
	return r < 0 ? -1 : 0;
}

int op_readdir_large(struct pt_env *e)
{
	const int nfiles = 1100;
	const char *m = e->m, *b = e->b;
	char names_a[100][NAME_MAX + 1];
	int ret = TAP_FAIL, n = 0, fd;
	struct dirent *de;
	DIR *d = NULL;
	long pos;

	OK(mkdir(P(b, "big"), 0755));
	for (int i = 0; i < nfiles; i++) {
		char name[64];

		snprintf(name, sizeof(name), "big/file-with-a-longish-name-%05d", i);
		fd = open(P(b, name), O_CREAT | O_WRONLY, 0644);
		EXPECT(fd >= 0, "creating %s: %s", name, strerror(errno));
		close(fd);
	}
	SAME_LISTING("big");
	/* Small getdents buffers: the listing is resumed from offsets many times. */
	EXPECT(!count_getdents(P(m, "big"), 512, &n), "getdents: %s", strerror(errno));
	EXPECT(n == nfiles + 2, "getdents with a 512-byte buffer: %d entries", n);
	EXPECT(!count_getdents(P(m, "big"), 8192, &n));
	EXPECT(n == nfiles + 2, "getdents with an 8 KiB buffer: %d entries", n);
	/* telldir/seekdir */
	d = opendir(P(m, "big"));
	EXPECT(d);
	for (int i = 0; i < 500; i++)
		EXPECT(readdir(d), "readdir ended at %d", i);
	pos = telldir(d);
	EXPECT(pos >= 0);
	for (int i = 0; i < 100; i++) {
		de = readdir(d);
		EXPECT(de, "readdir ended after the telldir");
		snprintf(names_a[i], sizeof(names_a[i]), "%s", de->d_name);
	}
	seekdir(d, pos);
	for (int i = 0; i < 100; i++) {
		de = readdir(d);
		EXPECT(de && strcmp(de->d_name, names_a[i]) == 0, "after seekdir, entry %d is %s, was %s", i,
		       de ? de->d_name : "(end)", names_a[i]);
	}
	rewinddir(d);
	n = 0;
	while (readdir(d))
		n++;
	EXPECT(n == nfiles + 2, "after rewinddir: %d entries", n);
	closedir(d);
	d = NULL;
	/* Names made through the mount are listed on the backing side. */
	OK(mkdir(P(m, "big2"), 0755));
	for (int i = 0; i < 200; i++) {
		char name[64];

		snprintf(name, sizeof(name), "big2/m%d", i);
		fd = open(P(m, name), O_CREAT | O_WRONLY, 0644);
		EXPECT(fd >= 0, "creating %s: %s", name, strerror(errno));
		close(fd);
	}
	SAME_LISTING("big2");
	/* Removals in the middle of a listing. */
	for (int i = 0; i < nfiles; i += 3) {
		char name[64];

		snprintf(name, sizeof(name), "big/file-with-a-longish-name-%05d", i);
		OK(unlink(P(m, name)));
	}
	SAME_LISTING("big");
	ret = TAP_OK;
out:
	if (d)
		closedir(d);
	return ret;
}

/* --- sync ----------------------------------------------------------------------------- */

int op_fsync(struct pt_env *e)
{
	const char *m = e->m, *b = e->b;
	int ret = TAP_FAIL, fd = -1, dfd = -1;

	fd = open(P(m, "f"), O_CREAT | O_RDWR, 0644);
	EXPECT(fd >= 0);
	OK(write(fd, "data", 4));
	OK(fsync(fd));
	OK(fdatasync(fd));
	OK(sync_file_range(fd, 0, 4, SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER));
	EXPECT(!bytes_are(P(b, "f"), "data", 4));
	OK(closefd(&fd));
	fd = open(P(m, "f"), O_RDONLY);
	EXPECT(fd >= 0);
	OK(fsync(fd));
	dfd = open(m, O_RDONLY | O_DIRECTORY);
	EXPECT(dfd >= 0);
	OK(fsync(dfd));
	OK(fdatasync(dfd));
	OK(mkdir(P(m, "sub"), 0755));
	OK(closefd(&dfd));
	dfd = open(P(m, "sub"), O_RDONLY | O_DIRECTORY);
	EXPECT(dfd >= 0);
	OK(fsync(dfd));
	ret = TAP_OK;
out:
	closefd(&fd);
	closefd(&dfd);
	return ret;
}

/* --- rename ----------------------------------------------------------------------------- */

int op_rename(struct pt_env *e)
{
	const char *m = e->m, *b = e->b;
	int ret = TAP_FAIL, fd = -1;
	struct stat st;
	char buf[8];

	MAKE(P(b, "a"), 100, 1);
	OK(rename(P(m, "a"), P(m, "a2")));
	ERR(stat(P(b, "a"), &st), ENOENT);
	ERR(stat(P(m, "a"), &st), ENOENT);
	SAME_BYTES("a2");
	EXPECT(!pt_same_bytes(P(b, "a2"), P(m, "a2")));
	/* Over an existing file: the old one goes. */
	MAKE(P(b, "c"), 50, 2);
	OK(rename(P(m, "a2"), P(m, "c")));
	OK(stat(P(b, "c"), &st));
	EXPECT(st.st_size == 100, "the renamed file has %ld bytes", st.st_size);
	SAME_BYTES("c");
	/* A directory, and into a directory. */
	OK(mkdir(P(b, "d1"), 0755));
	MAKE(P(b, "d1/f"), 10, 3);
	OK(rename(P(m, "d1"), P(m, "d2")));
	SAME_BYTES("d2/f");
	ERR(stat(P(b, "d1"), &st), ENOENT);
	OK(rename(P(m, "c"), P(m, "d2/c")));
	SAME_BYTES("d2/c");
	SAME_STAT("d2");
	/* An open file survives a rename. */
	fd = open(P(m, "d2/c"), O_RDONLY);
	EXPECT(fd >= 0);
	OK(rename(P(m, "d2/c"), P(m, "moved")));
	EXPECT(read(fd, buf, 8) == 8);
	SAME_BYTES("moved");
	/* Errors */
	ERR(rename(P(m, "missing"), P(m, "x")), ENOENT);
	OK(mkdir(P(b, "full"), 0755));
	MAKE(P(b, "full/f"), 1, 4);
	OK(mkdir(P(b, "empty"), 0755));
	ERR(rename(P(m, "empty"), P(m, "full")), ENOTEMPTY);
	ERR(rename(P(m, "empty"), P(m, "moved")), ENOTDIR);
	ERR(rename(P(m, "moved"), P(m, "empty")), EISDIR);
	ERR(rename(P(m, "d2"), P(m, "d2/sub")), EINVAL);
	/* Over an empty directory. */
	OK(mkdir(P(b, "empty2"), 0755));
	OK(rename(P(m, "empty"), P(m, "empty2")));
	ERR(stat(P(b, "empty"), &st), ENOENT);
	/* Renamed on the backing side: the mount follows. */
	OK(rename(P(b, "moved"), P(b, "moved-on-backing")));
	ERR(stat(P(m, "moved"), &st), ENOENT);
	SAME_BYTES("moved-on-backing");
	SAME_LISTING(NULL);
	SAME_LISTING("d2");
	ret = TAP_OK;
out:
	closefd(&fd);
	return ret;
}

int op_renameat2(struct pt_env *e)
{
	const char *m = e->m, *b = e->b;
	char *x = NULL, *y = NULL;
	int ret = TAP_FAIL;
	struct stat st;

	MAKE(P(b, "x"), 10, 1);
	MAKE(P(b, "y"), 20, 2);
	ERR(renameat2(AT_FDCWD, P(m, "x"), AT_FDCWD, P(m, "y"), RENAME_NOREPLACE), EEXIST);
	OK(stat(P(b, "x"), &st));
	OK(stat(P(b, "y"), &st));
	EXPECT(st.st_size == 20, "NOREPLACE replaced y");
	OK(renameat2(AT_FDCWD, P(m, "x"), AT_FDCWD, P(m, "z"), RENAME_NOREPLACE));
	ERR(stat(P(b, "x"), &st), ENOENT);
	SAME_BYTES("z");
	/* EXCHANGE swaps the two backing files. */
	EXPECT(pt_slurp(P(b, "z"), &x) == 10 && pt_slurp(P(b, "y"), &y) == 20);
	OK(renameat2(AT_FDCWD, P(m, "z"), AT_FDCWD, P(m, "y"), RENAME_EXCHANGE));
	EXPECT(!bytes_are(P(b, "z"), y, 20), "z after EXCHANGE");
	EXPECT(!bytes_are(P(b, "y"), x, 10), "y after EXCHANGE");
	SAME_BYTES("y");
	SAME_BYTES("z");
	ERR(renameat2(AT_FDCWD, P(m, "z"), AT_FDCWD, P(m, "nope"), RENAME_EXCHANGE), ENOENT);
	/* A file and a directory may be exchanged. */
	OK(mkdir(P(b, "dir"), 0700));
	OK(renameat2(AT_FDCWD, P(m, "z"), AT_FDCWD, P(m, "dir"), RENAME_EXCHANGE));
	OK(stat(P(b, "z"), &st));
	EXPECT(S_ISDIR(st.st_mode), "z is not a directory after EXCHANGE");
	SAME_STAT("z");
	SAME_STAT("dir");
	ERR(renameat2(AT_FDCWD, P(m, "y"), AT_FDCWD, P(m, "dir"), RENAME_EXCHANGE | RENAME_NOREPLACE),
	    EINVAL);
	SAME_LISTING(NULL);
	ret = TAP_OK;
out:
	free(x);
	free(y);
	return ret;
}

/*
 * Two root children backed by different filesystems are one FUSE mount to
 * the VFS; the backing rename or link between them must fail with EXDEV.
 */
int op_rename_exdev(struct pt_env *e)
{
	const char *m = e->m, *b = e->b;
	char other[200], otherm[200];
	bool mounted = false;
	int ret = TAP_FAIL;
	struct stat st;

	snprintf(other, sizeof(other), "%s/xdev", e->back);
	snprintf(otherm, sizeof(otherm), "%s/xdev", e->mroot);
	OK(mkdir(other, 0755));
	OK(mount("tmpfs", other, "tmpfs", 0, "size=16m"));
	mounted = true;
	OK(stat(otherm, &st));
	/*
	 * Every path through xdev may ask the server again: revalidating a
	 * node backed by another mount's root is revalidate_backing_mount_root's
	 * business, not this case's.
	 */
	e->extra_lookups += 100;
	MAKE(P(b, "f"), 10, 1);
	OK(mkdir(P(b, "d"), 0755));
	ERR(rename(P(m, "f"), P(otherm, "f")), EXDEV);
	ERR(rename(P(m, "d"), P(otherm, "d")), EXDEV);
	ERR(link(P(m, "f"), P(otherm, "l")), EXDEV);
	ERR(renameat2(AT_FDCWD, P(m, "f"), AT_FDCWD, P(otherm, "g"), RENAME_NOREPLACE), EXDEV);
	OK(stat(P(b, "f"), &st));
	ERR(stat(P(other, "f"), &st), ENOENT);
	ERR(stat(P(other, "d"), &st), ENOENT);
	/* Within the other filesystem, all is well. */
	MAKE(P(otherm, "g"), 5, 2);
	OK(rename(P(otherm, "g"), P(otherm, "h")));
	EXPECT(!pt_same_bytes(P(otherm, "h"), P(other, "h")));
	/* Into the root, which the server serves itself: the kernel can't. */
	if (!e->direct) {
		ERR(rename(P(m, "f"), P(e->mroot, "f-at-root")), EXDEV);
		ERR(link(P(m, "f"), P(e->mroot, "l-at-root")), EXDEV);
		/* the server was asked about the two names (and said ENOENT) */
		e->extra_lookups += 2;
	}
	/* Cross-mount to a path outside FUSE: the VFS's own EXDEV. */
	ERR(rename(P(m, "f"), P(e->dir, "outside")), EXDEV);
	ret = TAP_OK;
out:
	if (mounted)
		umount2(other, MNT_DETACH);
	return ret;
}

/* --- attributes ------------------------------------------------------------------------- */

int op_setattr(struct pt_env *e)
{
	const char *m = e->m, *b = e->b;
	struct timespec ts[2] = { { 1000000000, 123456789 }, { 1200000000, 987654321 } };
	int ret = TAP_FAIL, fd = -1;
	char *want = calloc(1, 20000);
	struct stat st, before;

	EXPECT(want);
	MAKE(P(b, "f"), 5000, 1);
	pt_fill(want, 5000, 1);
	OK(chmod(P(m, "f"), 04604));
	OK(stat(P(b, "f"), &st));
	EXPECT(st.st_mode == (S_IFREG | 04604), "backing mode %o after chmod", st.st_mode);
	SAME_STAT("f");
	OK(chown(P(m, "f"), 1234, 5678));
	OK(stat(P(b, "f"), &st));
	EXPECT(st.st_uid == 1234 && st.st_gid == 5678, "backing owner %u:%u after chown", st.st_uid, st.st_gid);
	EXPECT(!(st.st_mode & S_ISUID), "chown kept the setuid bit: %o", st.st_mode);
	SAME_STAT("f");
	OK(chown(P(m, "f"), -1, 42));
	OK(stat(P(b, "f"), &st));
	EXPECT(st.st_uid == 1234 && st.st_gid == 42);
	OK(symlink("f", P(b, "l")));
	OK(lchown(P(m, "l"), 11, 22));
	OK(lstat(P(b, "l"), &st));
	EXPECT(st.st_uid == 11 && st.st_gid == 22, "lchown went to %u:%u", st.st_uid, st.st_gid);
	OK(stat(P(b, "f"), &st));
	EXPECT(st.st_uid == 1234, "lchown followed the link");
	/* truncate down and up */
	OK(truncate(P(m, "f"), 100));
	EXPECT(!bytes_are(P(b, "f"), want, 100), "truncate down");
	OK(truncate(P(m, "f"), 20000));
	memset(want + 100, 0, 19900);
	EXPECT(!bytes_are(P(b, "f"), want, 20000), "truncate up");
	SAME_STAT("f");
	fd = open(P(m, "f"), O_RDWR);
	EXPECT(fd >= 0);
	OK(ftruncate(fd, 7));
	EXPECT(!bytes_are(P(b, "f"), want, 7), "ftruncate");
	/* times */
	OK(utimensat(AT_FDCWD, P(m, "f"), ts, 0));
	OK(stat(P(b, "f"), &st));
	EXPECT(st.st_atim.tv_sec == ts[0].tv_sec && st.st_atim.tv_nsec == ts[0].tv_nsec &&
		       st.st_mtim.tv_sec == ts[1].tv_sec && st.st_mtim.tv_nsec == ts[1].tv_nsec,
	       "backing times %ld.%09ld %ld.%09ld", st.st_atim.tv_sec, st.st_atim.tv_nsec, st.st_mtim.tv_sec,
	       st.st_mtim.tv_nsec);
	SAME_STAT("f");
	before = st;
	ts[0].tv_nsec = UTIME_OMIT;
	ts[1].tv_nsec = UTIME_NOW;
	OK(futimens(fd, ts));
	OK(stat(P(b, "f"), &st));
	EXPECT(st.st_atim.tv_sec == before.st_atim.tv_sec && st.st_atim.tv_nsec == before.st_atim.tv_nsec,
	       "UTIME_OMIT changed atime");
	EXPECT(st.st_mtim.tv_sec > 1200000000, "UTIME_NOW left mtime at %ld", st.st_mtim.tv_sec);
	SAME_STAT("f");
	OK(utimensat(AT_FDCWD, P(m, "l"), (struct timespec[2]){ { 5, 0 }, { 6, 0 } }, AT_SYMLINK_NOFOLLOW));
	OK(lstat(P(b, "l"), &st));
	EXPECT(st.st_mtim.tv_sec == 6, "utimensat NOFOLLOW on the link: mtime %ld", st.st_mtim.tv_sec);
	SAME_STAT("l");
	/* Errors */
	ERR(chmod(P(m, "missing"), 0600), ENOENT);
	OK(mkdir(P(b, "dir"), 0755));
	ERR(truncate(P(m, "dir"), 0), EISDIR);
	ERR(truncate(P(m, "f"), -1), EINVAL);
	OK(closefd(&fd));
	fd = open(P(m, "f"), O_RDONLY);
	EXPECT(fd >= 0);
	ERR(ftruncate(fd, 0), EINVAL);
	ret = TAP_OK;
out:
	closefd(&fd);
	free(want);
	return ret;
}

int op_statfs(struct pt_env *e)
{
	const char *m = e->m, *b = e->b;
	int ret = TAP_FAIL, fd = -1;
	struct statfs sm, sb, sf;

	OK(statfs(m, &sm));
	OK(statfs(b, &sb));
	EXPECT(sm.f_type == (e->direct ? sb.f_type : FUSE_SUPER_MAGIC), "f_type %lx", (long)sm.f_type);
	EXPECT(sm.f_bsize == sb.f_bsize && sm.f_blocks == sb.f_blocks && sm.f_files == sb.f_files &&
		       sm.f_namelen == sb.f_namelen,
	       "bsize %ld/%ld blocks %ld/%ld files %ld/%ld namelen %ld/%ld (mount/backing)", (long)sm.f_bsize,
	       (long)sb.f_bsize, (long)sm.f_blocks, (long)sb.f_blocks, (long)sm.f_files, (long)sb.f_files,
	       (long)sm.f_namelen, (long)sb.f_namelen);
	/* Free space follows what is written through the mount. */
	MAKE(P(m, "big"), 4 << 20, 1);
	fd = open(P(m, "big"), O_RDONLY);
	EXPECT(fd >= 0);
	OK(fsync(fd));
	OK(statfs(b, &sb));
	OK(statfs(m, &sm));
	OK(fstatfs(fd, &sf));
	EXPECT(sm.f_bfree == sb.f_bfree && sm.f_bavail == sb.f_bavail && sm.f_ffree == sb.f_ffree,
	       "bfree %ld/%ld bavail %ld/%ld ffree %ld/%ld (mount/backing)", (long)sm.f_bfree,
	       (long)sb.f_bfree, (long)sm.f_bavail, (long)sb.f_bavail, (long)sm.f_ffree, (long)sb.f_ffree);
	EXPECT(sf.f_type == (e->direct ? sb.f_type : FUSE_SUPER_MAGIC) && sf.f_bfree == sb.f_bfree, "fstatfs: type %lx bfree %ld",
	       (long)sf.f_type, (long)sf.f_bfree);
	ERR(statfs(P(m, "missing"), &sm), ENOENT);
	ret = TAP_OK;
out:
	closefd(&fd);
	return ret;
}

/* --- copy_file_range ----------------------------------------------------------------- */

int op_copy_file_range(struct pt_env *e)
{
	const size_t srclen = 300000, n = 200000;
	const char *m = e->m, *b = e->b;
	char *src = malloc(srclen), *want = calloc(1, 4321 + n);
	int ret = TAP_FAIL, fs = -1, fd = -1;
	loff_t in = 1234, out = 4321;
	size_t done = 0;

	EXPECT(src && want);
	MAKE(P(b, "src"), srclen, 9);
	pt_fill(src, srclen, 9);
	fs = open(P(m, "src"), O_RDONLY);
	fd = open(P(m, "dst"), O_CREAT | O_RDWR, 0644);
	EXPECT(fs >= 0 && fd >= 0);
	while (done < n) {
		ssize_t r = copy_file_range(fs, &in, fd, &out, n - done, 0);

		EXPECT(r > 0, "copy_file_range after %zu bytes: %zd (%s)", done, r, strerror(errno));
		done += r;
	}
	EXPECT(in == 1234 + (loff_t)n && out == 4321 + (loff_t)n, "offsets moved to %ld, %ld", (long)in,
	       (long)out);
	memcpy(want + 4321, src + 1234, n);
	EXPECT(!bytes_are(P(b, "dst"), want, 4321 + n), "the copy on the backing");
	SAME_STAT("dst");
	/* With file positions. */
	OK(lseek(fs, 10, SEEK_SET));
	OK(lseek(fd, 0, SEEK_SET));
	EXPECT(copy_file_range(fs, NULL, fd, NULL, 1000, 0) == 1000);
	EXPECT(lseek(fs, 0, SEEK_CUR) == 1010 && lseek(fd, 0, SEEK_CUR) == 1000, "file positions");
	memcpy(want, src + 10, 1000);
	EXPECT(!bytes_are(P(b, "dst"), want, 4321 + n), "the positioned copy");
	/* Past the end of the source: nothing. */
	in = srclen + 10;
	EXPECT(copy_file_range(fs, &in, fd, NULL, 100, 0) == 0);
	ERR(copy_file_range(fs, NULL, fd, NULL, 100, 1), EINVAL);
	ERR(copy_file_range(fd, NULL, fs, NULL, 100, 0), EBADF);
	ret = TAP_OK;
out:
	closefd(&fs);
	closefd(&fd);
	free(src);
	free(want);
	return ret;
}

/* --- xattrs ------------------------------------------------------------------------------ */

/* A NUL-separated name list as a sorted, newline-separated string. */
static char *sorted_names(const char *list, ssize_t len)
{
	const char *names[64];
	size_t n = 0, total = 1;
	char *out;

	for (ssize_t off = 0; off < len && n < 64; off += strlen(list + off) + 1) {
		names[n++] = list + off;
		total += strlen(list + off) + 1;
	}
	for (size_t i = 1; i < n; i++) {
		for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			const char *t = names[j];

			names[j] = names[j - 1];
			names[j - 1] = t;
		}
	}
	out = malloc(total);
	if (!out)
		return NULL;
	out[0] = 0;
	for (size_t i = 0; i < n; i++) {
		strcat(out, names[i]);
		strcat(out, "\n");
	}
	return out;
}

int op_xattr(struct pt_env *e)
{
	const char *m = e->m, *b = e->b;
	char one[64], two[64], nope[64], buf[4096], big[3000];
	char lm[1024], lb[1024], *sm = NULL, *sb = NULL;
	const char *prefix = "user.";
	int ret = TAP_FAIL;
	ssize_t nm, nb;

	MAKE(P(b, "f"), 10, 1);
	/* tmpfs of 6.1 has no user.* xattrs: trusted.* then (we are root). */
	if (setxattr(P(b, "f"), "user.probe", "1", 1, 0)) {
		EXPECT(errno == EOPNOTSUPP, "user.probe on the backing: %s", strerror(errno));
		prefix = "trusted.";
		SAME_RESULT(setxattr(P(m, "f"), "user.probe", "1", 1, 0),
			    setxattr(P(b, "f"), "user.probe", "1", 1, 0));
	} else {
		OK(removexattr(P(b, "f"), "user.probe"));
	}
	snprintf(one, sizeof(one), "%sone", prefix);
	snprintf(two, sizeof(two), "%stwo", prefix);
	snprintf(nope, sizeof(nope), "%snope", prefix);
	OK(setxattr(P(m, "f"), one, "value1", 6, 0));
	EXPECT(getxattr(P(b, "f"), one, buf, sizeof(buf)) == 6 && memcmp(buf, "value1", 6) == 0,
	       "the backing file does not have %s", one);
	OK(setxattr(P(b, "f"), two, "v2", 2, 0));
	EXPECT(getxattr(P(m, "f"), two, buf, sizeof(buf)) == 2 && memcmp(buf, "v2", 2) == 0,
	       "%s set on the backing is not read through the mount", two);
	EXPECT(getxattr(P(m, "f"), two, NULL, 0) == 2, "size query");
	ERR(getxattr(P(m, "f"), one, buf, 3), ERANGE);
	ERR(getxattr(P(m, "f"), nope, buf, sizeof(buf)), ENODATA);
	nm = listxattr(P(m, "f"), lm, sizeof(lm));
	nb = listxattr(P(b, "f"), lb, sizeof(lb));
	EXPECT(nm > 0 && nm == nb, "listxattr: %zd through the mount, %zd backing", nm, nb);
	sm = sorted_names(lm, nm);
	sb = sorted_names(lb, nb);
	EXPECT(sm && sb && strcmp(sm, sb) == 0, "listxattr: mount\n%s\nbacking\n%s", sm, sb);
	EXPECT(strstr(sm, one) && strstr(sm, two), "names missing from\n%s", sm);
	EXPECT(listxattr(P(m, "f"), NULL, 0) == nb, "listxattr size query");
	ERR(listxattr(P(m, "f"), lm, 1), ERANGE);
	ERR(setxattr(P(m, "f"), one, "x", 1, XATTR_CREATE), EEXIST);
	ERR(setxattr(P(m, "f"), nope, "x", 1, XATTR_REPLACE), ENODATA);
	OK(setxattr(P(m, "f"), one, "replaced", 8, XATTR_REPLACE));
	EXPECT(getxattr(P(b, "f"), one, buf, sizeof(buf)) == 8 && memcmp(buf, "replaced", 8) == 0);
	OK(removexattr(P(m, "f"), one));
	ERR(getxattr(P(b, "f"), one, buf, sizeof(buf)), ENODATA);
	ERR(removexattr(P(m, "f"), one), ENODATA);
	/* A larger value, and one on a directory. */
	pt_fill(big, sizeof(big), 5);
	OK(setxattr(P(m, "f"), one, big, sizeof(big), 0));
	EXPECT(getxattr(P(b, "f"), one, buf, sizeof(buf)) == sizeof(big) && memcmp(buf, big, sizeof(big)) == 0);
	OK(mkdir(P(b, "d"), 0755));
	OK(setxattr(P(m, "d"), two, "dir", 3, 0));
	EXPECT(getxattr(P(b, "d"), two, buf, sizeof(buf)) == 3);
	ERR(getxattr(P(m, "missing"), one, buf, sizeof(buf)), ENOENT);
	ret = TAP_OK;
out:
	free(sm);
	free(sb);
	return ret;
}

/* --- symlink, readlink, link ---------------------------------------------------------- */

int op_symlink_readlink(struct pt_env *e)
{
	const char *m = e->m, *b = e->b;
	char buf[PATH_MAX], longt[4000];
	int ret = TAP_FAIL;
	struct stat st;

	OK(symlink("some/target", P(m, "l")));
	EXPECT(readlink(P(b, "l"), buf, sizeof(buf)) == 11 && memcmp(buf, "some/target", 11) == 0,
	       "the backing link");
	EXPECT(readlink(P(m, "l"), buf, sizeof(buf)) == 11 && memcmp(buf, "some/target", 11) == 0,
	       "readlink through the mount");
	OK(lstat(P(m, "l"), &st));
	EXPECT(S_ISLNK(st.st_mode));
	SAME_STAT("l");
	ERR(symlink("x", P(m, "l")), EEXIST);
	ERR(stat(P(m, "l"), &st), ENOENT);	/* dangling */
	/* Made on the backing side; followed through the mount. */
	MAKE(P(b, "f"), 100, 3);
	OK(symlink("f", P(b, "lf")));
	EXPECT(readlink(P(m, "lf"), buf, sizeof(buf)) == 1 && buf[0] == 'f');
	EXPECT(!pt_same_bytes(P(m, "lf"), P(b, "f")), "following the link");
	OK(mkdir(P(b, "d"), 0755));
	MAKE(P(b, "d/g"), 10, 4);
	OK(symlink("../d", P(m, "d/up")));
	EXPECT(!pt_same_bytes(P(m, "d/up/g"), P(b, "d/g")), "a relative link to a directory");
	/* Truncating buffer, long target, and readlink of a non-link. */
	EXPECT(readlink(P(m, "l"), buf, 4) == 4 && memcmp(buf, "some", 4) == 0);
	memset(longt, 'a', sizeof(longt) - 1);
	longt[sizeof(longt) - 1] = 0;
	OK(symlink(longt, P(m, "long")));
	EXPECT(readlink(P(b, "long"), buf, sizeof(buf)) == sizeof(longt) - 1);
	EXPECT(readlink(P(m, "long"), buf, sizeof(buf)) == sizeof(longt) - 1);
	ERR(readlink(P(m, "f"), buf, sizeof(buf)), EINVAL);
	ERR(symlink("x", P(m, "nodir/l")), ENOENT);
	OK(unlink(P(m, "l")));
	ERR(lstat(P(b, "l"), &st), ENOENT);
	SAME_LISTING(NULL);
	ret = TAP_OK;
out:
	return ret;
}

int op_link(struct pt_env *e)
{
	const char *m = e->m, *b = e->b;
	struct stat sf, sg;
	int ret = TAP_FAIL, fd = -1;

	MAKE(P(b, "f"), 100, 1);
	OK(link(P(m, "f"), P(m, "g")));
	OK(stat(P(b, "f"), &sf));
	OK(stat(P(b, "g"), &sg));
	EXPECT(sf.st_ino == sg.st_ino && sf.st_nlink == 2, "backing: ino %lu/%lu nlink %lu", sf.st_ino, sg.st_ino,
	       sf.st_nlink);
	SAME_STAT("f");
	SAME_STAT("g");
	OK(stat(P(m, "f"), &sf));
	OK(stat(P(m, "g"), &sg));
	EXPECT(sf.st_ino == sg.st_ino, "through the mount the two names have inodes %lu and %lu", sf.st_ino,
	       sg.st_ino);
	/* One file under two names. */
	fd = open(P(m, "g"), O_WRONLY);
	EXPECT(fd >= 0);
	EXPECT(pwrite(fd, "LINK", 4, 0) == 4);
	OK(closefd(&fd));
	EXPECT(!pt_same_bytes(P(m, "f"), P(b, "g")));
	SAME_BYTES("f");
	ERR(link(P(m, "f"), P(m, "g")), EEXIST);
	ERR(link(P(m, "missing"), P(m, "x")), ENOENT);
	OK(mkdir(P(b, "d"), 0755));
	ERR(link(P(m, "d"), P(m, "d2")), EPERM);
	OK(link(P(m, "f"), P(m, "d/h")));
	OK(unlink(P(m, "f")));
	SAME_BYTES("g");
	SAME_STAT("g");
	SAME_STAT("d/h");
	OK(stat(P(b, "g"), &sg));
	EXPECT(sg.st_nlink == 2, "nlink %lu after one of three names went", sg.st_nlink);
	SAME_LISTING(NULL);
	ret = TAP_OK;
out:
	closefd(&fd);
	return ret;
}
