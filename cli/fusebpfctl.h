/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fusebpfctl: what the command files share. The pieces that do not need a
 * kernel (argument and policy parsing, JSON shapes, per-CPU summing) live in
 * files of their own so that tests/host/cli_*.c can link them alone.
 */
#ifndef FUSEBPFCTL_H
#define FUSEBPFCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define FUSEBPFCTL_VERSION "0.1.0"

/*
 * Return convention (xdp-tools'): inside, functions return 0 or -errno, and
 * a function that fails prints its message itself (its comment says so when
 * it does not). Only the edge, the commands' do_*() and main(), returns
 * EXIT_*; fail() and usage_error() print and return the EXIT_* value for
 * them. Option parsing returns the index of the first operand, or PARSE_HELP
 * or PARSE_USAGE (message printed).
 */
enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2 };

/* Global options, set by main() before a command runs. */
struct cli_opts {
	bool json;
	bool pretty;
	int verbose;
	const char *pin_dir;	/* /sys/fs/bpf/fusebpf, $FUSEBPF_PIN_DIR, --pin-dir */
	const char *state_dir;	/* /run/fusebpf, $FUSEBPF_STATE_DIR, --state-dir */
	const char *cmd;	/* the command's full name, for messages */
};
extern struct cli_opts opts;

#define DEFAULT_PIN_DIR "/sys/fs/bpf/fusebpf"
#define DEFAULT_STATE_DIR "/run/fusebpf"

/* --- commands (one file each) ------------------------------------------------ */
struct cli_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
	void (*help)(FILE *out);
};
extern const struct cli_cmd cli_cmds[];
extern const size_t cli_ncmds;

/* Exact name or unique prefix; NULL with *ambiguous set when two match. */
const struct cli_cmd *cli_find_cmd(const char *name, bool *ambiguous);

int do_load(int argc, char **argv);
int do_unload(int argc, char **argv);
int do_attach(int argc, char **argv);
int do_detach(int argc, char **argv);
int do_list(int argc, char **argv);
int do_stats(int argc, char **argv);
int do_events(int argc, char **argv);
int do_hide(int argc, char **argv);
int do_attrs(int argc, char **argv);
int do_deny(int argc, char **argv);
int do_policy(int argc, char **argv);
int do_apply(int argc, char **argv);
int do_explain(int argc, char **argv);
int do_help(int argc, char **argv);
int do_version(int argc, char **argv);
void main_usage(FILE *out);
void help_help(FILE *out);
void help_version(FILE *out);
void help_load(FILE *out);
void help_unload(FILE *out);
void help_attach(FILE *out);
void help_detach(FILE *out);
void help_list(FILE *out);
void help_stats(FILE *out);
void help_events(FILE *out);
void help_hide(FILE *out);
void help_attrs(FILE *out);
void help_deny(FILE *out);
void help_policy(FILE *out);
void help_apply(FILE *out);
void help_explain(FILE *out);

/* --- errors and output (util.c) ---------------------------------------------- */
/*
 * "fusebpfctl: <what>: <strerror(err)>" on stderr; under -j also
 * {"error": {...}} on stdout. err is a positive errno value, as errno
 * itself (pass -err for a -errno result), or 0 for no reason. Returns
 * EXIT_FAIL.
 */
int fail(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A usage error: the message, a pointer to --help; returns EXIT_USAGE. */
int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Informational line on stderr ("fusebpfctl: ..."), shown unless -j. */
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Debug line on stderr, shown with -v. */
void debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* libbpf's messages only with -v (debug ones with -vv). */
void cli_setup_libbpf_log(void);

/* getopt_long with the common --help; returns the index of the first operand. */
struct option;
/*
 * Parse a command's options. Calls handle(c, optarg, ctx) for each option;
 * handle returns 0 or EXIT_USAGE. --help/-h prints help and returns -1 (the
 * caller exits 0). Returns optind, -1 for help, or -EXIT_USAGE-1 on usage error.
 */
#define PARSE_HELP (-1)
#define PARSE_USAGE (-3)
int parse_cmd_opts(int argc, char **argv, const char *shortopts, const struct option *longopts,
		   int (*handle)(int c, const char *arg, void *ctx), void *ctx, void (*help)(FILE *));

/*
 * Grow the array *arr of *n elements of size by one, zeroed: the new
 * element, or NULL (the array unchanged) when out of memory.
 */
void *array_add(void *arr, int *n, size_t size);

/* Paths. */
int mkdir_p(const char *path, unsigned int mode);
/* The pin directory of a filter (no check that it exists). */
void filter_pin_dir(const char *name, char *buf, size_t cap);
/* Make sure opts.pin_dir is on a bpffs (mounting one at /sys/fs/bpf if missing). */
int ensure_pin_dir(void);
/* An exclusive lock on the state directory for mutating commands; returns an fd. */
int state_lock(void);
void state_unlock(int fd);

/* fuse-bpf kernel features (sysfs). */
bool fuse_bpf_supported(void);
/* Read a small file (sysfs, /proc) into buf, NUL-terminated: its length or -errno. */
ssize_t read_small(const char *path, char *buf, size_t cap);
/* The fuse filter program type number (skel/fusebpf_loader.h), or -errno. */

/* A filter name must be a plain file name: [A-Za-z0-9_.-], not "." or "..", <= 64. */
bool valid_filter_name(const char *name);

/* FUSE opcode names ("LOOKUP"); NULL for unknown. */
const char *fuse_opname(unsigned int opcode);
/* Case-insensitive name to opcode; -1 when unknown. */
int fuse_opcode(const char *name);
#define FUSE_MAX_OPCODE 64

/* errno names accepted by policy options: "EROFS" or a number; -1 when bad. */
int parse_errno(const char *s);
const char *errno_name(int err);

#endif
