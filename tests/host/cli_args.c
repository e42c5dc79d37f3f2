// SPDX-License-Identifier: GPL-2.0
/*
 * fusebpfctl's argument handling, without a kernel: the command table
 * (prefixes), attach's operands and --at rules, which subtree a lookup
 * belongs to, names and escapes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <bpf/btf.h>

#include "attach.h"
#include "fusebpfctl.h"
#include "ops.h"
#include "server.h"
#include "state.h"
#include "tap.h"

static int t_command_prefixes(void)
{
	const struct cli_cmd *c;
	int ret = TAP_FAIL;
	bool amb;

	c = cli_find_cmd("attach", &amb);
	EXPECT(c && !strcmp(c->name, "attach") && !amb);
	c = cli_find_cmd("det", &amb);
	EXPECT(c && !strcmp(c->name, "detach"));
	c = cli_find_cmd("st", &amb);
	EXPECT(c && !strcmp(c->name, "stats"));
	c = cli_find_cmd("l", &amb);	/* load, list */
	EXPECT(!c && amb, "'l' must be ambiguous");
	c = cli_find_cmd("un", &amb);
	EXPECT(c && !strcmp(c->name, "unload"));
	c = cli_find_cmd("frob", &amb);
	EXPECT(!c && !amb);
	c = cli_find_cmd("", &amb);
	EXPECT(!c);
	/* Every command has help that ends with EXAMPLES. */
	for (size_t i = 0; i < cli_ncmds; i++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		cli_cmds[i].help(f);
		fclose(f);
		EXPECT(strstr(buf, "EXAMPLES\n"), "%s --help has no EXAMPLES", cli_cmds[i].name);
		EXPECT(strncmp(buf, "Usage: fusebpfctl ", 18) == 0, "%s --help: %.40s", cli_cmds[i].name, buf);
		free(buf);
	}
	ret = TAP_OK;
out:
	return ret;
}

static int parse(struct attach_args *a, const char **mnt, const char **back, ...)
{
	char *argv[32];
	int argc = 0;
	va_list ap;

	va_start(ap, back);
	while ((argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	return attach_parse(argc, argv, a, mnt, back);
}

static int t_attach_args(void)
{
	struct attach_args a;
	const char *mnt = NULL, *back = NULL;
	int ret = TAP_FAIL;

	EXPECT(parse(&a, &mnt, &back, "attach", "/mnt", "/srv", "--filter", "private", NULL) == 0);
	EXPECT(!strcmp(mnt, "/mnt") && !strcmp(back, "/srv") && !strcmp(a.filter, "private"));
	EXPECT(!a.foreground && !a.userspace && a.nat == 0);
	/* Options before, between and after the operands. */
	EXPECT(parse(&a, &mnt, &back, "attach", "-F", "/mnt", "--at", "docs//x/=p", "/srv",
		     "-a", "/other=q", NULL) == 0);
	EXPECT(a.foreground && a.nat == 2);
	EXPECT(!strcmp(a.at[0].path, "docs/x") && !strcmp(a.at[0].filter, "p"), "%s", a.at[0].path);
	EXPECT(!strcmp(a.at[1].path, "other") && !strcmp(a.at[1].filter, "q"));
	EXPECT(parse(&a, &mnt, &back, "attach", "/mnt", "/srv", "--userspace", NULL) == 0 && a.userspace);
	/* Usage errors. */
	EXPECT(parse(&a, &mnt, &back, "attach", "/mnt", NULL) == PARSE_USAGE);
	EXPECT(parse(&a, &mnt, &back, "attach", "/mnt", "/srv", "/x", NULL) == PARSE_USAGE);
	EXPECT(parse(&a, &mnt, &back, "attach", "/mnt", "/srv", "--at", "docs", NULL) == PARSE_USAGE);
	EXPECT(parse(&a, &mnt, &back, "attach", "/mnt", "/srv", "--at", "=x", NULL) == PARSE_USAGE);
	EXPECT(parse(&a, &mnt, &back, "attach", "/mnt", "/srv", "--at", "../x=p", NULL) == PARSE_USAGE);
	EXPECT(parse(&a, &mnt, &back, "attach", "/mnt", "/srv", "--at", "a=p", "--at", "a/=q", NULL) ==
	       PARSE_USAGE);
	EXPECT(parse(&a, &mnt, &back, "attach", "/mnt", "/srv", "--filter", "a/b", NULL) == PARSE_USAGE);
	EXPECT(parse(&a, &mnt, &back, "attach", "/mnt", "/srv", "-u", "-f", "x", NULL) == PARSE_USAGE);
	EXPECT(parse(&a, &mnt, &back, "attach", "/mnt", "/srv", "--bogus", NULL) == PARSE_USAGE);
	EXPECT(parse(&a, &mnt, &back, "attach", "/mnt", "/srv", "--filter", NULL) == PARSE_USAGE);
	EXPECT(parse(&a, &mnt, &back, "attach", "--help", NULL) == PARSE_HELP);
	ret = TAP_OK;
out:
	return ret;
}

/* attach MOUNTPOINT --filter NAME --replace, and what it refuses */
static int t_attach_replace_args(void)
{
	struct attach_args a;
	const char *mnt = NULL, *back = "x";
	int ret = TAP_FAIL;

	EXPECT(parse(&a, &mnt, &back, "attach", "/mnt", "--filter", "b", "--replace", NULL) == 0);
	EXPECT(a.replace && !strcmp(mnt, "/mnt") && !back && !strcmp(a.filter, "b"));
	EXPECT(parse(&a, &mnt, &back, "attach", "-r", "-f", "b", "/mnt", NULL) == 0 && a.replace);
	EXPECT(parse(&a, &mnt, &back, "attach", "/mnt", "/srv", "-f", "b", NULL) == 0 && !a.replace,
	       "no --replace: a new mount");
	/* Usage errors. */
	EXPECT(parse(&a, &mnt, &back, "attach", "/mnt", "--replace", NULL) == PARSE_USAGE, "no filter");
	EXPECT(parse(&a, &mnt, &back, "attach", "--replace", "-f", "b", NULL) == PARSE_USAGE);
	EXPECT(parse(&a, &mnt, &back, "attach", "/mnt", "/srv", "-r", "-f", "b", NULL) == PARSE_USAGE);
	EXPECT(parse(&a, &mnt, &back, "attach", "/mnt", "-r", "-f", "b", "--at", "d=p", NULL) ==
	       PARSE_USAGE);
	EXPECT(parse(&a, &mnt, &back, "attach", "/mnt", "-r", "-f", "b", "-F", NULL) == PARSE_USAGE);
	EXPECT(parse(&a, &mnt, &back, "attach", "/mnt", "-r", "-f", "b", "-u", NULL) == PARSE_USAGE);
	EXPECT(parse(&a, &mnt, &back, "attach", "/mnt", "-r", "-f", "b", "-l", "x", NULL) ==
	       PARSE_USAGE);
	EXPECT(parse(&a, &mnt, &back, "attach", "/mnt", "-r", "-f", "a/b", NULL) == PARSE_USAGE);
	ret = TAP_OK;
out:
	return ret;
}

/*
 * A kernel BTF with struct fuse_ops of three members and its struct_ops
 * value type, as 6.1 lays it out: refcnt, state, data at 64 bytes.
 */
static struct btf *value_btf(const char *value_name, int *value_type)
{
	struct btf *btf = btf__new_empty();
	int i32, fn, ptr, ops;

	if (!btf)
		return NULL;
	i32 = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	fn = btf__add_func_proto(btf, i32);
	ptr = btf__add_ptr(btf, fn);
	ops = btf__add_struct(btf, "fuse_ops", 24);
	btf__add_field(btf, "lookup", ptr, 0, 0);
	btf__add_field(btf, "getattr", ptr, 64, 0);
	btf__add_field(btf, "readdir", ptr, 128, 0);
	*value_type = btf__add_struct(btf, value_name, 88);
	btf__add_field(btf, "refcnt", i32, 0, 0);
	btf__add_field(btf, "state", i32, 32, 0);
	btf__add_field(btf, "data", ops, 512, 0);
	return btf;
}

/* The members a struct_ops map's value names, from its BTF */
static int t_ops_value_decode(void)
{
	unsigned char value[88] = { 0 };
	uint64_t lookup = 12, readdir = 14;
	struct ops_desc d;
	struct btf *btf = NULL;
	int ret = TAP_FAIL, vt = 0, state = 2;

	btf = value_btf("bpf_struct_ops_fuse_ops", &vt);
	EXPECT(btf && vt > 0);
	memcpy(value + 4, &state, sizeof(state));
	memcpy(value + 64, &lookup, sizeof(lookup));
	memcpy(value + 80, &readdir, sizeof(readdir));
	EXPECT(ops_decode(btf, vt, value, sizeof(value), &d) == 0);
	EXPECT(!strcmp(d.type, "fuse_ops") && d.state == 2 && d.total == 3 && d.n == 2,
	       "%s state %d total %d n %d", d.type, d.state, d.total, d.n);
	EXPECT(!strcmp(d.m[0].name, "lookup") && d.m[0].prog_id == 12);
	EXPECT(!strcmp(d.m[1].name, "readdir") && d.m[1].prog_id == 14, "%s", d.m[1].name);
	EXPECT(!strcmp(ops_state_name(d.state), "tobefree") && !strcmp(ops_state_name(7), "unknown"));
	EXPECT(ops_decode(btf, vt, value, 80, &d) == -EINVAL, "a value too short for its type");
	EXPECT(ops_decode(btf, 1, value, sizeof(value), &d) == -EINVAL, "not a struct");
	EXPECT(ops_decode(btf, vt - 1, value, sizeof(value), &d) == -EINVAL, "not a value type");
	btf__free(btf);
	btf = value_btf("bpf_struct_ops_tcp_congestion_ops", &vt);
	EXPECT(btf && ops_decode(btf, vt, value, sizeof(value), &d) == 0);
	EXPECT(!strcmp(d.type, "tcp_congestion_ops"), "%s", d.type);
	ret = TAP_OK;
out:
	btf__free(btf);
	return ret;
}

static int t_normalize_subdir(void)
{
	char out[64];
	int ret = TAP_FAIL;

	EXPECT(normalize_subdir("a", out, sizeof(out)) == 0 && !strcmp(out, "a"));
	EXPECT(normalize_subdir("/a//b/", out, sizeof(out)) == 0 && !strcmp(out, "a/b"));
	EXPECT(normalize_subdir("a/./b", out, sizeof(out)) == -EINVAL);
	EXPECT(normalize_subdir("a/..", out, sizeof(out)) == -EINVAL);
	EXPECT(normalize_subdir("/", out, sizeof(out)) == -EINVAL);
	EXPECT(normalize_subdir("", out, sizeof(out)) == -EINVAL);
	EXPECT(normalize_subdir("..a/b..", out, sizeof(out)) == 0 && !strcmp(out, "..a/b.."));
	EXPECT(normalize_subdir("0123456789/0123456789/0123456789/0123456789/0123456789/0123456789",
				out, sizeof(out)) == -ENAMETOOLONG);
	ret = TAP_OK;
out:
	return ret;
}

/* Which LOOKUPs are backed, and with which filter. */
static int t_lookup_classes(void)
{
	static struct server_cfg cfg = {
		.nat = 2,
		.at = { { .path = "docs" }, { .path = "a/b/c" } },
	};
	int ret = TAP_FAIL;

	EXPECT(server_classify(&cfg, "") == -1, "the root is served");
	EXPECT(server_classify(&cfg, "docs") == 0);
	EXPECT(server_classify(&cfg, "a/b/c") == 1);
	EXPECT(server_classify(&cfg, "a") == -1, "an ancestor of an --at path is served");
	EXPECT(server_classify(&cfg, "a/b") == -1);
	EXPECT(server_classify(&cfg, "a/x") == 2, "a sibling gets --filter");
	EXPECT(server_classify(&cfg, "docsx") == 2, "a name that only starts like one");
	EXPECT(server_classify(&cfg, "a/b/cd") == 2);
	EXPECT(server_classify(&cfg, "other") == 2);
	cfg.nat = 0;
	EXPECT(server_classify(&cfg, "anything") == 0, "no --at: the default filter");
	ret = TAP_OK;
out:
	return ret;
}

static int t_names(void)
{
	char buf[128];
	int ret = TAP_FAIL;

	EXPECT(valid_filter_name("private") && valid_filter_name("a-b_c.1"));
	EXPECT(!valid_filter_name("") && !valid_filter_name(".") && !valid_filter_name(".."));
	EXPECT(!valid_filter_name("a/b") && !valid_filter_name("a b"));
	EXPECT(!valid_filter_name("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));
	escape_path("/mnt/a b-c.d_e", buf, sizeof(buf));
	EXPECT(!strcmp(buf, "%2Fmnt%2Fa%20b-c.d_e"), "%s", buf);
	EXPECT(parse_errno("EROFS") == EROFS && parse_errno("eacces") == EACCES);
	EXPECT(parse_errno("13") == 13 && parse_errno("0") == -1 && parse_errno("x") == -1);
	EXPECT(!strcmp(errno_name(EPERM), "EPERM"));
	EXPECT(fuse_opcode("LOOKUP") == 1 && fuse_opcode("readdir") == 28 && fuse_opcode("x") == -1);
	EXPECT(!strcmp(fuse_opname(16), "write"));
	ret = TAP_OK;
out:
	return ret;
}

static const struct tap_case cases[] = {
	{ "command_prefixes_and_help", t_command_prefixes },
	{ "attach_arguments", t_attach_args },
	{ "attach_replace_arguments", t_attach_replace_args },
	{ "ops_value_decode", t_ops_value_decode },
	{ "normalize_subdir", t_normalize_subdir },
	{ "lookup_classes", t_lookup_classes },
	{ "names_and_escapes", t_names },
};

TAP_MAIN("cli_args", cases)
