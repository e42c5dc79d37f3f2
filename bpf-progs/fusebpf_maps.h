/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fusebpf_maps.h - the maps of fusebpf's filters, shared by the BPF programs
 * (the bpf-progs/<filter>.bpf.c programs) and user space (fusebpfctl, tests).
 *
 * Plain C: no BPF macros, only __u32/__u64 and fixed-size arrays, so that
 * user space can include it as it is. Map names and layouts are an ABI: the
 * CLI finds maps by these names (bpf_object__find_map_by_name(), or the pins
 * /sys/fs/bpf/fusebpf/<filter>/<map name>), so they do not change. Every name
 * fits the kernel's 15 characters, so bpftool shows it whole.
 *
 * Every filter object (hide, attrs, denywrite, stats, and the combined
 * "fusebpf" filter) has fusebpf_stats and fusebpf_config; the policy maps are
 * in the objects that use them:
 *
 *   map                    type            key                  value                     in objects
 *   ---------------------  --------------  -------------------  ------------------------  --------------------------
 *   fusebpf_stats          PERCPU_ARRAY    __u32 base opcode    struct fusebpf_op_stats   all
 *   fusebpf_config         ARRAY (1)       __u32 0              struct fusebpf_config     all
 *   fusebpf_lat            LRU_HASH        __u64 pid_tgid       struct fusebpf_lat_stamp  all (internal)
 *   hide_names             HASH            struct fusebpf_sname __u32 (ignored, use 1)    hide, fusebpf
 *   hide_names_long        HASH            struct fusebpf_name  __u32 (ignored, use 1)    hide, fusebpf
 *   hide_patterns          ARRAY (16)      __u32 slot           struct fusebpf_pattern    hide, fusebpf
 *   attr_rules             HASH            struct fusebpf_sname struct fusebpf_attr_rule  attrs, fusebpf
 *   attr_rules_long        HASH            struct fusebpf_name  struct fusebpf_attr_rule  attrs, fusebpf
 *   attr_inodes            LRU_HASH        __u64 ino            struct fusebpf_name       attrs, fusebpf (internal)
 *   deny_allow             HASH            struct fusebpf_sname __u32 (ignored, use 1)    denywrite, fusebpf
 *   deny_allow_long        HASH            struct fusebpf_name  __u32 (ignored, use 1)    denywrite, fusebpf
 *   fusebpf_hist           PERCPU_ARRAY    __u32 base opcode    struct fusebpf_lat_hist   all
 *   fusebpf_events         RINGBUF         -                    struct fusebpf_event      hide, denywrite, fusebpf
 *   fusebpf_evlimit        ARRAY (1)       __u32 0              struct fusebpf_ev_limit   hide, denywrite, fusebpf
 *   fusebpf_except         HASH            struct fusebpf_except_key  __u32 policies   hide, denywrite, fusebpf
 *
 * Policy maps may be changed at any time (bpf_map_update_elem from user
 * space); the next operation sees the change.
 */
#ifndef FUSEBPF_MAPS_H
#define FUSEBPF_MAPS_H

#if !defined(__bpf__) && !defined(__VMLINUX_H__)
#include <linux/bpf.h>	/* struct bpf_spin_lock */
#include <linux/types.h>
#include <stddef.h>
#endif

/* ---- fusebpf_stats: per-op counters --------------------------------------- */

/*
 * Key: the base FUSE opcode (ctx->opcode & 0xffff, e.g. FUSE_LOOKUP = 1);
 * opcodes >= FUSEBPF_STATS_MAX_OPS are counted in slot 0. Per CPU: user space
 * sums each field over the possible CPUs (libbpf_num_possible_cpus()); the
 * lookup of a PERCPU_ARRAY element returns one struct per possible CPU.
 */
#define FUSEBPF_STATS_MAX_OPS 64

struct fusebpf_op_stats {
	__u64 pre;		/* prefilter runs */
	__u64 post;		/* postfilter runs */
	__u64 entries;		/* readdir entry-filter runs (READDIR slot) */
	__u64 denied;		/* ops failed by a prefilter errno (deny, create of a hidden name) */
	__u64 hidden;		/* LOOKUPs answered ENOENT + READDIR entries dropped by hide */
	__u64 rewritten;	/* out args (attributes) changed by attrs */
	__u64 backing_errors;	/* postfilter runs that saw error_in < 0 */
	__u64 to_user;		/* ops handed to the FUSE server (FUSE_BPF_USER_FILTER) */
	__u64 lat_ns_sum;	/* sum of prefilter-to-postfilter times, ns */
	__u64 lat_count;	/* number of times summed in lat_ns_sum */
	__u64 lat_ns_max;	/* largest such time on this CPU (user space: max, not sum) */
	__u64 would_deny;	/* ops a policy in audit mode would have failed (FUSEBPF_CFG_AUDIT) */
	__u64 would_hide;	/* names it would have hidden (LOOKUPs, READDIR entries, ...) */
};

/*
 * Latency: the prefilter stamps bpf_ktime_get_ns() into fusebpf_lat under the
 * caller's pid_tgid (a thread does one FUSE op at a time) and asks for the
 * postfilter; the postfilter adds the delta if the stamp is for the same
 * opcode and marks it used (opcode 0; the thread's next op reuses the entry
 * in place). The time covers the backing operation plus the
 * kernel's fuse-bpf work between the two filter runs. LRU, so that stamps
 * of ops that never reached their postfilter age out.
 */
struct fusebpf_lat_stamp {
	__u64 start_ns;
	__u32 opcode;
	__u32 pad;
};

#define FUSEBPF_LAT_ENTRIES 4096

/*
 * fusebpf_hist: per-op log2 histograms of the same times, in microseconds,
 * updated where lat_count is, so that a histogram's counts add up to the
 * op's lat_count. Slot 0 holds 0 and 1 us, slot i (i >= 1) holds
 * [2^i, 2^(i+1) - 1] us, as bcc's fsdist prints them; the last slot also
 * holds everything longer. Per CPU, like fusebpf_stats.
 */
#define FUSEBPF_HIST_SLOTS 32

struct fusebpf_lat_hist {
	__u64 slot[FUSEBPF_HIST_SLOTS];
};

/* ---- fusebpf_config: one element, key 0 ------------------------------------ */

/* policies: which policies the combined "fusebpf" filter runs (the
 * single-policy objects hide/attrs/denywrite always run their own). */
#define FUSEBPF_POLICY_HIDE		(1u << 0)
#define FUSEBPF_POLICY_ATTRS		(1u << 1)
#define FUSEBPF_POLICY_DENYWRITE	(1u << 2)

/* flags */
/* Do not run the postfilter only for statistics: no latency and no
 * backing_errors counts, but one BPF run per op instead of two. */
#define FUSEBPF_CFG_NO_POSTFILTER	(1u << 0)
/* Report no events (fusebpf_events) at all. */
#define FUSEBPF_CFG_NO_EVENTS		(1u << 1)
/* Also report READDIR entries that hide drops (one event per entry). */
#define FUSEBPF_CFG_EV_READDIR		(1u << 2)
/*
 * Audit mode: hide and denywrite enforce nothing. Where they would refuse or
 * hide, they count it (would_deny, would_hide), report it (verdicts
 * FUSEBPF_EV_WOULD_DENY, _WOULD_HIDE) and let the op through. Read only on
 * that path, so an enforcing policy's ops cost what they did. A hidden name
 * a LOOKUP finds in this mode gets an entry timeout of 0, as for an excepted
 * caller: once the policy enforces again, the next walk asks again.
 */
#define FUSEBPF_CFG_AUDIT		(1u << 3)

/* hide_flags */
#define FUSEBPF_HIDE_DOTFILES		(1u << 0)	/* hide every name starting with '.' */
/* fusebpf_except has a hide exception (kept by fusebpfctl): then the LOOKUP
 * postfilter gives a hidden name an excepted caller found a timeout of 0. */
#define FUSEBPF_HIDE_EXCEPTIONS		(1u << 1)

struct fusebpf_config {
	__u32 policies;		/* FUSEBPF_POLICY_* (combined filter only) */
	__u32 flags;		/* FUSEBPF_CFG_* */
	__u32 hide_flags;	/* FUSEBPF_HIDE_* */
	__s32 hide_errno;	/* positive errno for creating, linking or renaming
				 * onto a hidden name; 0 = EACCES */
	__s32 deny_errno;	/* positive errno for denied writes: EROFS, EACCES,
				 * EPERM; 0 = EROFS */
	__u32 deny_flags;	/* reserved, 0 */
	__u32 ev_rate;		/* events per second (token bucket); 0 = FUSEBPF_EV_RATE_DEFAULT */
	__u32 ev_burst;		/* bucket size, events; 0 = FUSEBPF_EV_BURST_DEFAULT */
};

/* ---- names ----------------------------------------------------------------- */

/*
 * A file name (one path component) as a hash key: the bytes of the name,
 * NUL-terminated, and zero up to the end of the key (user space: memset 0
 * then copy; the whole key is hashed). Every name-keyed policy is two
 * maps: names shorter than FUSEBPF_NAME_SHORT bytes are keys of the map
 * itself (struct fusebpf_sname, hide_names), longer ones of its _long map
 * (struct fusebpf_name, hide_names_long). Most names are short, and a
 * lookup hashes and compares the whole key: 32 bytes instead of 256 on
 * every READDIR entry and stat. A name belongs in exactly one of the two
 * (by its length); the other is not looked at. Names longer than
 * FUSEBPF_NAME_MAX - 1 bytes never match. An all-zero key ("") in
 * attr_rules is the rule for every name.
 */
#define FUSEBPF_NAME_MAX 256
#define FUSEBPF_NAME_SHORT 32

struct fusebpf_name {
	char name[FUSEBPF_NAME_MAX];
};

/* The key of a short name: the first FUSEBPF_NAME_SHORT bytes of its fusebpf_name. */
struct fusebpf_sname {
	char name[FUSEBPF_NAME_SHORT];
};

/* ---- hide ------------------------------------------------------------------ */

/*
 * hide_names, hide_names_long: exact names to hide (HASH,
 * FUSEBPF_HIDE_NAMES_MAX each).
 * hide_patterns: FUSEBPF_HIDE_PATTERNS_MAX slots, used from slot 0 up: the
 * first slot whose kind is 0 ends the list (a pattern after it is not
 * looked at, so that a name is matched against the patterns there are and
 * no more; fusebpfctl keeps the slots packed). len is strlen(pat) (1..FUSEBPF_PATTERN_MAX-1); pat is
 * NUL-terminated. A hidden name is ENOENT for LOOKUP, dropped from READDIR,
 * and creating, linking or renaming onto it fails with hide_errno (EACCES).
 */
#define FUSEBPF_HIDE_NAMES_MAX		4096
#define FUSEBPF_HIDE_PATTERNS_MAX	16
#define FUSEBPF_PATTERN_MAX		64

enum fusebpf_pattern_kind {
	FUSEBPF_PAT_NONE = 0,
	FUSEBPF_PAT_PREFIX = 1,	/* name starts with pat */
	FUSEBPF_PAT_SUFFIX = 2,	/* name ends with pat */
	FUSEBPF_PAT_GLOB = 3,	/* whole name matches pat: '*' any run, '?' any one byte */
};

struct fusebpf_pattern {
	__u32 kind;		/* enum fusebpf_pattern_kind */
	__u32 len;		/* strlen(pat) */
	char pat[FUSEBPF_PATTERN_MAX];
};

/* ---- attrs ----------------------------------------------------------------- */

/*
 * attr_rules: name -> rule; the all-zero name is the rule for every
 * node that has no rule of its own. Applied in LOOKUP and GETATTR (and
 * SETATTR's reply) postfilters to the attributes the user sees; the backing
 * file is never changed. mode: new = (old & ~mode_clear) | mode_set, on the
 * permission bits 07777 only (the file type never changes). READDIR entries
 * carry only a type, which no rule changes.
 *
 * attr_inodes (internal): backing inode number -> the name it was
 * looked up by, so that GETATTR (which carries no name) finds the rule.
 */
#define FUSEBPF_ATTR_RULES_MAX		1024
#define FUSEBPF_ATTR_INODES_MAX		8192

#define FUSEBPF_ATTR_FORCE_UID		(1u << 0)
#define FUSEBPF_ATTR_FORCE_GID		(1u << 1)

struct fusebpf_attr_rule {
	__u32 flags;		/* FUSEBPF_ATTR_FORCE_* */
	__u32 mode_set;		/* permission bits to set (07777 mask) */
	__u32 mode_clear;	/* permission bits to clear (07777 mask) */
	__u32 uid;		/* with FUSEBPF_ATTR_FORCE_UID */
	__u32 gid;		/* with FUSEBPF_ATTR_FORCE_GID */
	__u32 pad;
};

/* ---- denywrite ------------------------------------------------------------- */

/*
 * deny_allow: names that mutating operations *naming an entry* may
 * use (create, mknod, mkdir, unlink, rmdir, rename: both names, link,
 * symlink). A file created through an allowed name may then be written
 * through that open file (its handle is tagged FUSEBPF_FH_ALLOWED). Other
 * writes (open for writing, truncate, setattr, xattrs, fallocate,
 * copy_file_range) carry no name and are always denied.
 */
#define FUSEBPF_DENY_ALLOW_MAX		1024
#define FUSEBPF_FH_ALLOWED		0x66627066616c6c77ULL	/* "fbpfallw" */

/* ---- events: refusals and hidings ------------------------------------------- */

/*
 * fusebpf_events (RINGBUF): one struct fusebpf_event per refusal (an op
 * failed by a policy's prefilter) or hiding (a LOOKUP, UNLINK, RMDIR or
 * rename of a hidden name; a READDIR entry dropped, with
 * FUSEBPF_CFG_EV_READDIR), or in audit mode per refusal or hiding that
 * would have been, unless FUSEBPF_CFG_NO_EVENTS. Only the refusal
 * path pays for it. A token bucket in fusebpf_evlimit (ev_rate per second,
 * ev_burst at most) bounds the rate; what it refuses is counted in
 * dropped_rate, what the full ring refuses in dropped_full.
 */
#define FUSEBPF_EVENTS_RING_SIZE	(256 * 1024)
#define FUSEBPF_EV_RATE_DEFAULT		100
#define FUSEBPF_EV_BURST_DEFAULT	200
#define FUSEBPF_EV_MAX			1000000	/* largest rate and burst */

enum fusebpf_ev_verdict {
	FUSEBPF_EV_DENIED = 1,	/* the op failed with err */
	FUSEBPF_EV_HIDDEN = 2,	/* the name was absent (err ENOENT; 0 for a READDIR entry) */
	/* Audit mode (FUSEBPF_CFG_AUDIT): what the policy would have done; err is the
	 * errno the caller would have got, and the op went ahead. */
	FUSEBPF_EV_WOULD_DENY = 3,
	FUSEBPF_EV_WOULD_HIDE = 4,
};

struct fusebpf_event {
	__u64 time_ns;		/* bpf_ktime_get_boot_ns(): CLOCK_BOOTTIME */
	__u32 pid;		/* the caller's process (tgid) */
	__u32 tid;
	__u32 uid;		/* the caller's real uid and gid */
	__u32 gid;
	__u32 opcode;		/* base FUSE opcode */
	__u32 verdict;		/* enum fusebpf_ev_verdict */
	__s32 err;		/* positive errno the caller got; 0: a READDIR entry dropped */
	__u32 policy;		/* the FUSEBPF_POLICY_* that decided */
	char comm[16];
	char name[FUSEBPF_NAME_MAX];	/* the entry name, "" for ops on an open file or node */
};

struct fusebpf_ev_limit {
	struct bpf_spin_lock lock;
	__u32 pad;
	__u64 tokens;		/* 1e9 per event */
	__u64 last_ns;		/* bpf_ktime_get_ns() of the last refill */
	__u64 sent;		/* events put in the ring */
	__u64 dropped_rate;	/* refused by the token bucket */
	__u64 dropped_full;	/* refused by a full ring */
};

/*
 * fusebpf_except: uids and gids a policy does not apply to (the caller's
 * real uid or gid, as bpf_get_current_uid_gid() gives them; supplementary
 * groups are not seen). Value: the FUSEBPF_POLICY_* bits (hide, denywrite)
 * the id is excepted from. Looked up only when a policy would refuse or hide.
 */
#define FUSEBPF_EXCEPT_MAX	256
#define FUSEBPF_EXCEPT_UID	1
#define FUSEBPF_EXCEPT_GID	2

struct fusebpf_except_key {
	__u32 kind;		/* FUSEBPF_EXCEPT_UID or _GID */
	__u32 id;
};

/* ---- user space: names for printing ---------------------------------------- */

#if !defined(__bpf__) && !defined(__VMLINUX_H__)

/* Field names of struct fusebpf_op_stats, in order; all are __u64. */
struct fusebpf_stats_field {
	const char *name;
	size_t offset;
	int is_max;		/* combine per-CPU values with max, not sum */
};

__attribute__((unused)) static const struct fusebpf_stats_field fusebpf_stats_fields[] = {
	{ "pre", offsetof(struct fusebpf_op_stats, pre), 0 },
	{ "post", offsetof(struct fusebpf_op_stats, post), 0 },
	{ "entries", offsetof(struct fusebpf_op_stats, entries), 0 },
	{ "denied", offsetof(struct fusebpf_op_stats, denied), 0 },
	{ "hidden", offsetof(struct fusebpf_op_stats, hidden), 0 },
	{ "rewritten", offsetof(struct fusebpf_op_stats, rewritten), 0 },
	{ "backing_errors", offsetof(struct fusebpf_op_stats, backing_errors), 0 },
	{ "to_user", offsetof(struct fusebpf_op_stats, to_user), 0 },
	{ "lat_ns_sum", offsetof(struct fusebpf_op_stats, lat_ns_sum), 0 },
	{ "lat_count", offsetof(struct fusebpf_op_stats, lat_count), 0 },
	{ "lat_ns_max", offsetof(struct fusebpf_op_stats, lat_ns_max), 1 },
	{ "would_deny", offsetof(struct fusebpf_op_stats, would_deny), 0 },
	{ "would_hide", offsetof(struct fusebpf_op_stats, would_hide), 0 },
};

#define FUSEBPF_STATS_NFIELDS (sizeof(fusebpf_stats_fields) / sizeof(fusebpf_stats_fields[0]))

/* Lower-case names of the FUSE opcodes by number ("lookup"); NULL for gaps.
 * Slot 0 of fusebpf_stats is "other" (opcodes >= 64). */
__attribute__((unused)) static const char *const fusebpf_op_names[FUSEBPF_STATS_MAX_OPS] = {
	[0] = "other", [1] = "lookup", [2] = "forget", [3] = "getattr",
	[4] = "setattr", [5] = "readlink", [6] = "symlink", [8] = "mknod",
	[9] = "mkdir", [10] = "unlink", [11] = "rmdir", [12] = "rename",
	[13] = "link", [14] = "open", [15] = "read", [16] = "write",
	[17] = "statfs", [18] = "release", [20] = "fsync", [21] = "setxattr",
	[22] = "getxattr", [23] = "listxattr", [24] = "removexattr", [25] = "flush",
	[26] = "init", [27] = "opendir", [28] = "readdir", [29] = "releasedir",
	[30] = "fsyncdir", [31] = "getlk", [32] = "setlk", [33] = "setlkw",
	[34] = "access", [35] = "create", [36] = "interrupt", [37] = "bmap",
	[38] = "destroy", [39] = "ioctl", [40] = "poll", [41] = "notify_reply",
	[42] = "batch_forget", [43] = "fallocate", [44] = "readdirplus",
	[45] = "rename2", [46] = "lseek", [47] = "copy_file_range",
	[48] = "setupmapping", [49] = "removemapping", [50] = "syncfs",
	[51] = "tmpfile",
};

/* Map names, for bpf_object__find_map_by_name() and pin paths. */
#define FUSEBPF_MAP_STATS		"fusebpf_stats"
#define FUSEBPF_MAP_CONFIG		"fusebpf_config"
#define FUSEBPF_MAP_LAT			"fusebpf_lat"
#define FUSEBPF_MAP_HIDE_NAMES		"hide_names"
#define FUSEBPF_MAP_HIDE_NAMES_LONG	"hide_names_long"
#define FUSEBPF_MAP_HIDE_PATTERNS	"hide_patterns"
#define FUSEBPF_MAP_ATTR_RULES		"attr_rules"
#define FUSEBPF_MAP_ATTR_RULES_LONG	"attr_rules_long"
#define FUSEBPF_MAP_ATTR_INODES		"attr_inodes"
#define FUSEBPF_MAP_DENY_ALLOW		"deny_allow"
#define FUSEBPF_MAP_DENY_ALLOW_LONG	"deny_allow_long"
#define FUSEBPF_MAP_HIST		"fusebpf_hist"
#define FUSEBPF_MAP_EVENTS		"fusebpf_events"
#define FUSEBPF_MAP_EVLIMIT		"fusebpf_evlimit"
#define FUSEBPF_MAP_EXCEPT		"fusebpf_except"

#endif /* user space */

#endif /* FUSEBPF_MAPS_H */
