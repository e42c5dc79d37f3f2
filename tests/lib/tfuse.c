// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include "tfuse.h"
#include "../../cli/fuse_attr.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

/* Syscall numbers the C library may not know yet (x86_64). */
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

#ifndef FUSE_DEV_IOC_BPF_RESPONSE
#define FUSE_DEV_IOC_BPF_RESPONSE(N) _IOW(FUSE_DEV_IOC_MAGIC, 125, char[N])
#endif

int tfuse_mount(const char *mnt, const char *extra)
{
	char opts[512];
	int fd;

	fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,group_id=0%s%s", fd,
		 extra && *extra ? "," : "", extra ? extra : "");
	if (mount("tfuse", mnt, "fuse.tfuse", 0, opts)) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

int tfuse_reply(int fd, uint64_t unique, int error, const void *data, size_t len)
{
	struct fuse_out_header oh = {
		.len = sizeof(oh) + (error ? 0 : len),
		.error = error,
		.unique = unique,
	};
	struct iovec iov[2] = {
		{ .iov_base = &oh, .iov_len = sizeof(oh) },
		{ .iov_base = (void *)data, .iov_len = error ? 0 : len },
	};

	if (writev(fd, iov, 2) < 0)
		return -errno;
	return 0;
}

int tfuse_reply_ioctl(int fd, uint64_t unique, int error, const void *data, size_t len)
{
	size_t total = sizeof(struct fuse_out_header) + (error ? 0 : len);
	struct fuse_out_header *oh;
	char *buf;
	int rc;

	buf = calloc(1, total);
	if (!buf)
		return -ENOMEM;
	oh = (struct fuse_out_header *)buf;
	*oh = (struct fuse_out_header){ .len = total, .error = error, .unique = unique };
	if (!error && len)
		memcpy(buf + sizeof(*oh), data, len);
	rc = ioctl(fd, FUSE_DEV_IOC_BPF_RESPONSE(total), buf);
	rc = rc < 0 ? -errno : 0;
	free(buf);
	return rc;
}

int tfuse_reply_init(int fd, struct tfuse_req *req)
{
	const struct fuse_init_in *in = req->arg;
	struct fuse_init_out out = {
		.major = FUSE_KERNEL_VERSION,
		.minor = FUSE_KERNEL_MINOR_VERSION,
		.max_readahead = in->max_readahead,
		.flags = 0,
		.max_background = 16,
		.congestion_threshold = 12,
		.max_write = 128 * 1024,
		.time_gran = 1,
	};

	return tfuse_reply(fd, req->h->unique, 0, &out, sizeof(out));
}

static struct tfuse_counts *counting;

struct tfuse_counts *tfuse_counts_new(void)
{
	void *p = mmap(NULL, sizeof(struct tfuse_counts), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

void tfuse_counts_free(struct tfuse_counts *c)
{
	if (counting == c)
		counting = NULL;
	if (c)
		munmap(c, sizeof(*c));
}

void tfuse_count_into(struct tfuse_counts *c)
{
	counting = c;
}

void tfuse_counts_get(const struct tfuse_counts *c, struct tfuse_counts *snap)
{
	for (int i = 0; i < TFUSE_MAX_OPCODE; i++)
		snap->op[i] = __atomic_load_n(&c->op[i], __ATOMIC_SEQ_CST);
}

const char *tfuse_opname(uint32_t opcode)
{
	static const char *const names[] = {
		[FUSE_LOOKUP] = "LOOKUP", [FUSE_FORGET] = "FORGET", [FUSE_GETATTR] = "GETATTR",
		[FUSE_SETATTR] = "SETATTR", [FUSE_READLINK] = "READLINK", [FUSE_SYMLINK] = "SYMLINK",
		[FUSE_MKNOD] = "MKNOD", [FUSE_MKDIR] = "MKDIR", [FUSE_UNLINK] = "UNLINK",
		[FUSE_RMDIR] = "RMDIR", [FUSE_RENAME] = "RENAME", [FUSE_LINK] = "LINK",
		[FUSE_OPEN] = "OPEN", [FUSE_READ] = "READ", [FUSE_WRITE] = "WRITE",
		[FUSE_STATFS] = "STATFS", [FUSE_RELEASE] = "RELEASE", [FUSE_FSYNC] = "FSYNC",
		[FUSE_SETXATTR] = "SETXATTR", [FUSE_GETXATTR] = "GETXATTR",
		[FUSE_LISTXATTR] = "LISTXATTR", [FUSE_REMOVEXATTR] = "REMOVEXATTR",
		[FUSE_FLUSH] = "FLUSH", [FUSE_INIT] = "INIT", [FUSE_OPENDIR] = "OPENDIR",
		[FUSE_READDIR] = "READDIR", [FUSE_RELEASEDIR] = "RELEASEDIR",
		[FUSE_FSYNCDIR] = "FSYNCDIR", [FUSE_GETLK] = "GETLK", [FUSE_SETLK] = "SETLK",
		[FUSE_SETLKW] = "SETLKW", [FUSE_ACCESS] = "ACCESS", [FUSE_CREATE] = "CREATE",
		[FUSE_INTERRUPT] = "INTERRUPT", [FUSE_BMAP] = "BMAP", [FUSE_DESTROY] = "DESTROY",
		[FUSE_IOCTL] = "IOCTL", [FUSE_POLL] = "POLL", [FUSE_NOTIFY_REPLY] = "NOTIFY_REPLY",
		[FUSE_BATCH_FORGET] = "BATCH_FORGET", [FUSE_FALLOCATE] = "FALLOCATE",
		[FUSE_READDIRPLUS] = "READDIRPLUS", [FUSE_RENAME2] = "RENAME2",
		[FUSE_LSEEK] = "LSEEK", [FUSE_COPY_FILE_RANGE] = "COPY_FILE_RANGE",
		[FUSE_SETUPMAPPING] = "SETUPMAPPING", [FUSE_REMOVEMAPPING] = "REMOVEMAPPING",
		[FUSE_SYNCFS] = "SYNCFS", [FUSE_TMPFILE] = "TMPFILE",
	};
	static char other[16];

	if (opcode < sizeof(names) / sizeof(names[0]) && names[opcode])
		return names[opcode];
	snprintf(other, sizeof(other), "op%u", opcode);
	return other;
}

int tfuse_serve(int fd, tfuse_handler handler, void *ctx)
{
	size_t cap = 1 << 20;
	char *buf = malloc(cap);
	int rc = 0;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		struct tfuse_req req;
		ssize_t n = read(fd, buf, cap);

		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN || errno == ENOENT)
				continue;
			rc = errno == ENODEV ? 0 : -errno;
			break;
		}
		if ((size_t)n < sizeof(struct fuse_in_header))
			continue;
		req.h = (struct fuse_in_header *)buf;
		req.arg = buf + sizeof(*req.h);
		req.arglen = n - sizeof(*req.h);
		if (counting)
			__atomic_add_fetch(&counting->op[req.h->opcode < TFUSE_MAX_OPCODE ?
							 req.h->opcode : 0], 1, __ATOMIC_SEQ_CST);
		if (req.h->opcode == FUSE_INIT)
			tfuse_reply_init(fd, &req);
		else
			handler(fd, &req, ctx);
	}
	free(buf);
	return rc;
}

pid_t tfuse_spawn(int fd, tfuse_handler handler, void *ctx)
{
	pid_t pid = fork();

	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		_exit(tfuse_serve(fd, handler, ctx) ? 1 : 0);
	}
	return pid;
}

void tfuse_stop(const char *mnt, pid_t server)
{
	int status;

	if (umount2(mnt, 0))
		umount2(mnt, MNT_DETACH);
	if (server > 0) {
		/* The server sees ENODEV once the connection is gone. */
		for (int i = 0; i < 50; i++) {
			if (waitpid(server, &status, WNOHANG) == server)
				return;
			usleep(20000);
		}
		kill(server, SIGKILL);
		waitpid(server, &status, 0);
	}
}

void tfuse_attr_from_stat(const struct stat *st, struct fuse_attr *attr)
{
	fuse_attr_from_stat(st, attr);
}

int tfuse_attr_from_path(const char *path, struct fuse_attr *attr)
{
	struct stat st;

	if (lstat(path, &st))
		return -errno;
	tfuse_attr_from_stat(&st, attr);
	return 0;
}

int tfuse_fd_of(pid_t pid, int fd)
{
	int pidfd = syscall(SYS_pidfd_open, pid, 0), got;

	if (pidfd < 0)
		return -1;
	got = syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	close(pidfd);
	return got;
}
