// SPDX-License-Identifier: GPL-2.0
/*
 * fz-id, make fuzz's set-id helper: prints "EUID EGID RUID RGID\n" and
 * exits 0. The fuzzer copies it into the backing trees, makes the copies
 * set-id and runs them through the views as an unprivileged user: the
 * euid and egid must be what the backing file's mode and owner give a
 * direct exec (fuzz_ops.c, op_setid). No libc: a static binary of a few
 * pages, quick to exec through a view, with no loader to run in secure
 * mode.
 */
static long fz_sys(long n, long a, long b, long c)
{
	long r;

	__asm__ volatile("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
	return r;
}

static char *fz_num(char *p, unsigned long v)
{
	char tmp[24];
	int n = 0;

	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10));
	while (n)
		*p++ = tmp[--n];
	return p;
}

void _start(void) __attribute__((noreturn));
void _start(void)
{
	char buf[96], *p = buf;

	p = fz_num(p, (unsigned long)fz_sys(107, 0, 0, 0));	/* geteuid */
	*p++ = ' ';
	p = fz_num(p, (unsigned long)fz_sys(108, 0, 0, 0));	/* getegid */
	*p++ = ' ';
	p = fz_num(p, (unsigned long)fz_sys(102, 0, 0, 0));	/* getuid */
	*p++ = ' ';
	p = fz_num(p, (unsigned long)fz_sys(104, 0, 0, 0));	/* getgid */
	*p++ = '\n';
	fz_sys(1, 1, (long)buf, p - buf);
	for (;;)
		fz_sys(60, 0, 0, 0);
}
