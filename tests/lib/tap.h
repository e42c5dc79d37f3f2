/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small TAP 13 harness for fusebpf's tests.
 *
 * Each case is a function returning TAP_OK, TAP_FAIL or TAP_SKIP. It runs in
 * a child process, so a crash fails that case and not the suite; whatever the
 * case prints is kept in a temporary file and shown (as TAP diagnostics) only
 * when it fails or skips.
 *
 *	static int t_reads(void)
 *	{
 *		int ret = TAP_FAIL, fd = -1;
 *
 *		fd = open(...);
 *		EXPECT(fd >= 0, "open: %s", strerror(errno));
 *		...
 *		ret = TAP_OK;
 *	out:
 *		if (fd >= 0)
 *			close(fd);
 *		return ret;
 *	}
 */
#ifndef FUSEBPF_TAP_H
#define FUSEBPF_TAP_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

enum { TAP_OK = 0, TAP_FAIL = 1, TAP_SKIP = 2 };

struct tap_case {
	const char *name;
	int (*fn)(void);
};

/* Print a failure diagnostic with its place; used by EXPECT. */
void tap_fail_at(const char *file, int line, const char *cond, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Why a case skipped; printed after "# SKIP". */
void tap_skip_why(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Mark the running case a known bug; see TODO. */
void tap_todo(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define EXPECT(cond, ...)                                                       \
	do {                                                                    \
		if (!(cond)) {                                                  \
			tap_fail_at(__FILE__, __LINE__, #cond, "" __VA_ARGS__); \
			goto out;                                               \
		}                                                               \
	} while (0)

/* In a case (EXPECT): expr must succeed (return >= 0). */
#define OK(expr)                                                                     \
	do {                                                                         \
		errno = 0;                                                           \
		long ok_r_ = (long)(expr);                                           \
		EXPECT(ok_r_ >= 0, "%s returned %ld: %s", #expr, ok_r_, strerror(errno)); \
	} while (0)

/* In a case (EXPECT): expr must fail (return -1) with errno err. */
#define ERR(expr, err)                                                                 \
	do {                                                                           \
		errno = 0;                                                             \
		long err_r_ = (long)(expr);                                            \
		int err_e_ = errno;                                                    \
		EXPECT(err_r_ == -1 && err_e_ == (err), "%s returned %ld (%s), expected %s", \
		       #expr, err_r_, err_r_ == -1 ? strerror(err_e_) : "no error",      \
		       strerror(err));                                                 \
	} while (0)

#define SKIP(...)                               \
	do {                                    \
		tap_skip_why(__VA_ARGS__);      \
		ret = TAP_SKIP;                 \
		goto out;                       \
	} while (0)

/*
 * A case for a known, not yet fixed bug: say so (why: the bug) before the
 * first EXPECT. The case still runs; its failure prints "not ok N name # TODO
 * why" with the diagnostics and does not fail the suite (TAP 13). Once it
 * passes it prints "ok N name # TODO why" and a diagnostic that the bug looks
 * fixed: drop the TODO then.
 */
#define TODO(...) tap_todo(__VA_ARGS__)

/*
 * Run the cases in order and print TAP 13. argv[1], when given, runs only the
 * cases whose names contain it. Returns the process exit status: 0 when no
 * case failed.
 */
int tap_main(const char *suite, const struct tap_case *cases, size_t n, int argc, char **argv);

#define TAP_MAIN(suite, cases)                                                  \
	int main(int argc, char **argv)                                         \
	{                                                                       \
		return tap_main(suite, cases, sizeof(cases) / sizeof(cases[0]), \
				argc, argv);                                    \
	}

/* Small helpers that most suites need. */
int write_file(const char *path, const void *buf, size_t len);
/* Reads at most cap-1 bytes and NUL-terminates; returns the length or -errno. */
long read_file(const char *path, char *buf, size_t cap);
/*
 * Open path with oflags (mode 0644 if it creates) and splice len bytes of
 * the byte fill into it from a pipe, 4 KiB at a time: the bytes spliced,
 * or -errno of the first failure.
 */
long splice_file(const char *path, int oflags, char fill, size_t len);
/*
 * dir/name in one of 16 static buffers (a case may hold 16 such paths at
 * once); the path is cut at 299 bytes.
 */
const char *at(const char *dir, const char *name);
/* Run a shell command, output discarded unless it fails; returns its exit status. */
int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
