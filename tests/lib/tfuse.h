/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A raw /dev/fuse test server: just enough of the protocol to mount, answer
 * requests with a handler, and reply either through write() or through the
 * fuse-bpf ioctl. libfuse cannot send fuse-bpf replies, hence this.
 */
#ifndef FUSEBPF_TFUSE_H
#define FUSEBPF_TFUSE_H

#include <linux/fuse.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

struct tfuse_req {
	struct fuse_in_header *h;
	void *arg;		/* the bytes after the header */
	size_t arglen;
};

/* Handles one request; must reply (or not, for FORGET). Returns 0 or -errno. */
typedef int (*tfuse_handler)(int fd, struct tfuse_req *req, void *ctx);

/* Open /dev/fuse and mount it at mnt; extra is appended to the options. */
int tfuse_mount(const char *mnt, const char *extra);
/* Reply with an error (negative errno) or data. */
int tfuse_reply(int fd, uint64_t unique, int error, const void *data, size_t len);
/* Reply through FUSE_DEV_IOC_BPF_RESPONSE (fuse-bpf kernels only). */
int tfuse_reply_ioctl(int fd, uint64_t unique, int error, const void *data, size_t len);
/* Answer INIT; used by tfuse_serve, exposed for hand-written loops. */
int tfuse_reply_init(int fd, struct tfuse_req *req);
/*
 * Serve until the connection goes away (unmount or abort). INIT is answered
 * here; everything else goes to the handler. Returns 0 at unmount.
 */
int tfuse_serve(int fd, tfuse_handler handler, void *ctx);
/* Fork a server process; returns its pid. The parent keeps fd too: close it. */
pid_t tfuse_spawn(int fd, tfuse_handler handler, void *ctx);
/*
 * A dup of fd @fd of process @pid (pidfd_getfd): a forked server replies
 * with fds the test opened after the fork.  Returns the fd or -1 (errno).
 */
int tfuse_fd_of(pid_t pid, int fd);
/* Unmount (lazily if busy) and reap the server. */
void tfuse_stop(const char *mnt, pid_t server);

/*
 * Request counts by opcode, kept in shared memory so that a test sees what a
 * forked server received. tfuse_counts_new() maps them (before the fork);
 * tfuse_count_into() makes tfuse_serve() in this process (and its children)
 * count every request it reads, INIT included.
 */
#define TFUSE_MAX_OPCODE 64	/* opcodes at or above this are counted in op[0] */
struct tfuse_counts {
	uint32_t op[TFUSE_MAX_OPCODE];
};
struct tfuse_counts *tfuse_counts_new(void);
void tfuse_counts_free(struct tfuse_counts *c);
void tfuse_count_into(struct tfuse_counts *c);
/* A snapshot of c (the server may be counting while we copy). */
void tfuse_counts_get(const struct tfuse_counts *c, struct tfuse_counts *snap);
/* The name of an opcode ("LOOKUP"), or "op<N>". */
const char *tfuse_opname(uint32_t opcode);

/* Fill a fuse_attr from a stat of path; returns 0 or -errno. */
void tfuse_attr_from_stat(const struct stat *st, struct fuse_attr *attr);
int tfuse_attr_from_path(const char *path, struct fuse_attr *attr);

#endif
