// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char skip_reason[256];
static int skip_fd = -1;	/* the child writes its skip reason here */
static int todo_fd = -1;	/* and why the case is a known bug here */

void tap_fail_at(const char *file, int line, const char *cond, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%d: expected %s", file, line, cond);
	if (fmt && *fmt) {
		fputs(": ", stderr);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
	}
	fputc('\n', stderr);
}

void tap_skip_why(const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (skip_fd >= 0)
		(void)!write(skip_fd, buf, strlen(buf));
}

void tap_todo(const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (todo_fd >= 0)
		(void)!write(todo_fd, buf, strlen(buf));
}

static void show_diagnostics(int fd)
{
	char line[1024];
	FILE *f;

	lseek(fd, 0, SEEK_SET);
	f = fdopen(dup(fd), "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		printf("# %s\n", line);
	}
	fclose(f);
}

/* What the child wrote to fd (a temporary file), NUL-terminated. */
static void read_reason(int fd, char *buf, size_t cap)
{
	memset(buf, 0, cap);
	lseek(fd, 0, SEEK_SET);
	(void)!read(fd, buf, cap - 1);
}

/* "ok"/"not ok" and the case's TAP directive; counts a real failure. */
static void report(size_t num, const char *name, int res, int diag, const char *todo,
		   int *failed)
{
	if (res == TAP_SKIP) {
		printf("ok %zu %s # SKIP %s\n", num, name,
		       skip_reason[0] ? skip_reason : "(no reason given)");
	} else if (todo[0]) {
		printf("%s %zu %s # TODO %s\n", res == TAP_OK ? "ok" : "not ok", num, name, todo);
		if (res == TAP_OK)
			printf("# TODO case passed: the bug looks fixed, drop its TODO\n");
		else
			show_diagnostics(diag);
	} else if (res == TAP_OK) {
		printf("ok %zu %s\n", num, name);
	} else {
		printf("not ok %zu %s\n", num, name);
		show_diagnostics(diag);
		(*failed)++;
	}
}

int tap_main(const char *suite, const struct tap_case *cases, size_t n, int argc, char **argv)
{
	const char *only = argc > 1 ? argv[1] : NULL;
	size_t i, planned = 0, num = 0;
	int failed = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 0; i < n; i++)
		if (!only || strstr(cases[i].name, only))
			planned++;
	printf("TAP version 13\n# %s\n1..%zu\n", suite, planned);

	for (i = 0; i < n; i++) {
		char diag_path[] = "/tmp/tap-diag-XXXXXX", skip_path[] = "/tmp/tap-skip-XXXXXX";
		char todo_path[] = "/tmp/tap-todo-XXXXXX", todo[256];
		int diag, status, res;
		pid_t pid;

		if (only && !strstr(cases[i].name, only))
			continue;
		num++;
		diag = mkstemp(diag_path);
		skip_fd = mkstemp(skip_path);
		todo_fd = mkstemp(todo_path);
		if (diag < 0 || skip_fd < 0 || todo_fd < 0) {
			printf("not ok %zu %s\n# mkstemp: %s\n", num, cases[i].name, strerror(errno));
			failed++;
			continue;
		}
		unlink(diag_path);
		unlink(skip_path);
		unlink(todo_path);
		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			dup2(diag, STDOUT_FILENO);
			dup2(diag, STDERR_FILENO);
			setvbuf(stdout, NULL, _IONBF, 0);
			_exit(cases[i].fn());
		}
		res = TAP_FAIL;
		if (pid > 0 && waitpid(pid, &status, 0) == pid) {
			if (WIFEXITED(status))
				res = WEXITSTATUS(status);
			else
				dprintf(diag, "case died: signal %d (%s)\n", WTERMSIG(status),
					strsignal(WTERMSIG(status)));
		}
		read_reason(skip_fd, skip_reason, sizeof(skip_reason));
		read_reason(todo_fd, todo, sizeof(todo));
		report(num, cases[i].name, res, diag, todo, &failed);
		close(diag);
		close(skip_fd);
		close(todo_fd);
		skip_fd = todo_fd = -1;
	}
	return failed ? 1 : 0;
}

const char *at(const char *dir, const char *name)
{
	static char bufs[16][300];
	static unsigned int next;
	char *p = bufs[next++ % 16];

	snprintf(p, sizeof(bufs[0]), "%s/%s", dir, name);
	return p;
}

int write_file(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ssize_t w;

	if (fd < 0)
		return -errno;
	w = write(fd, buf, len);
	if (w != (ssize_t)len) {
		int err = w < 0 ? -errno : -EIO;

		close(fd);
		return err;
	}
	return close(fd) ? -errno : 0;
}

long splice_file(const char *path, int oflags, char fill, size_t len)
{
	char buf[4096];
	int p[2], fd = open(path, oflags | O_CLOEXEC, 0644);
	long done = 0;

	if (fd < 0)
		return -errno;
	if (pipe2(p, O_CLOEXEC)) {
		close(fd);
		return -errno;
	}
	memset(buf, fill, sizeof(buf));
	while ((size_t)done < len) {
		size_t n = len - done < sizeof(buf) ? len - done : sizeof(buf);
		ssize_t r = write(p[1], buf, n);

		if (r == (ssize_t)n)
			r = splice(p[0], NULL, fd, NULL, n, 0);
		if (r <= 0) {
			done = r < 0 ? -errno : -EIO;
			break;
		}
		done += r;
	}
	close(p[0]);
	close(p[1]);
	close(fd);
	return done;
}

long read_file(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t got = 0;
	ssize_t r = 0;

	if (fd < 0)
		return -errno;
	while (got + 1 < cap && (r = read(fd, buf + got, cap - 1 - got)) > 0)
		got += r;
	if (r < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	buf[got] = 0;
	close(fd);
	return got;
}

int run(const char *fmt, ...)
{
	char *cmd = NULL, *full = NULL;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vasprintf(&cmd, fmt, ap);
	va_end(ap);
	if (rc < 0)
		return -1;
	if (asprintf(&full, "out=$( (%s) 2>&1 ); rc=$?; [ $rc = 0 ] || printf '%%s\\n' \"$out\" >&2; exit $rc",
		     cmd) < 0) {
		free(cmd);
		return -1;
	}
	rc = system(full);
	free(cmd);
	free(full);
	if (rc == -1 || !WIFEXITED(rc))
		return -1;
	return WEXITSTATUS(rc);
}
