#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench (runs in the guest as root, on the normal kernel): every
# workload on every configuration, in rounds, reported per cell as the
# median with min-max, and as ratios to native. Not a test: nothing here
# fails on a number. Under TCG the absolute numbers mean little; the ratios
# are the point. docs/performance.md explains the method.
#
# Configurations, all views of one ext4 file system (a loop device on a file
# in RAM) holding the same pre-created files:
#   native        the ext4 mount itself
#   bind-ro       a read-only bind mount of it (the kernel's cheapest view)
#   overlay-ro    overlayfs, read only: the ext4 tree as the upper of two
#                 lower layers (the other empty), the kernel's own stacked
#                 view, what stacking itself costs
#   fuse-bpf      fusebpfctl attach, no filter
#   hide          the hide filter: 100 names and 10 patterns (none matches)
#   attrs         the attrs filter: one rule for everything (mode -022, uid/gid 1000)
#   denywrite     the denywrite filter (a read-only view)
#   stats         the stats filter, with its latency postfilter
#   stats-nopost  the stats filter, --no-postfilter
#   combined      the fusebpf filter: hide, attrs and denywrite with the
#                 policies above (read-only)
#   bindfs        bindfs --perms=go-w --force-user --force-group (attrs' view)
#   bindfs-ro     bindfs -r (denywrite's view)
#   userspace     fusebpfctl attach --userspace (plain FUSE, every op served)
# Workloads that write are skipped on read-only views (shown as "ro").
#
# Each round runs every workload on every configuration, the order of the
# configurations rotated by one per round and per workload; a warm-up pass
# first. Results: bench.tsv (every sample), bench.json, bench.md (tables),
# bench.dat (ratios, for bench/chart.sh) in BENCH_OUT.
#
#   BENCH_ROUNDS     rounds (default 5) in this boot
#   BENCH_ROUND_FIRST  the number of this boot's first round (default 1);
#                    above 1, this boot's samples are added to those of the
#                    boots before, read from BENCH_PRIOR_TSV (bench/run.sh
#                    spreads a run's rounds over several boots this way)
#   BENCH_SECONDS    seconds per timed cell (default 1)
#   BENCH_QUICK=1    a smoke run: 1 round of 0.3 s cells, smaller trees
#   BENCH_CONFIGS    the configurations to run, separated by commas or spaces
#                    (default: all; native always)
#   BENCH_WORKLOADS  the workloads to run (default: all), the same way
#   BENCH_SRC        tar of the source tree the job extracts and greps
#                    (default build/bench/src.tar, made by make bench)
#   BENCH_CLI        the fusebpfctl to use (default build/fusebpfctl; another
#                    build's, to compare filters)
#   BENCH_OUT        result directory (default: the guest's out directory
#                    /run/fusebpf-out when it is mounted, else /tmp/bench-out)
#   BENCH_PROFILE=WORKLOAD,...  profile these workloads with perf on each
#                    configuration instead of the rounds (perf/*.txt)
#   BENCH_VERBOSE=1  say which cell runs before running it
#   BENCH_BPFSTATS=1 also enable kernel.bpf_stats_enabled and report each
#                    filter's run count and time (it slows every BPF run)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
export PATH=$here/build:$here/build/bench:$PATH
rounds=${BENCH_ROUNDS:-5}
first=${BENCH_ROUND_FIRST:-1}
secs=${BENCH_SECONDS:-1}
nbig=10000	# entries in the readdir directory
ndirs=20 nper=100	# the stat/open tree: ndirs directories of nper files
datamb=32	# MiB in each data file
if [ "${BENCH_QUICK:-0}" = 1 ]; then
	rounds=${BENCH_ROUNDS:-1} secs=${BENCH_SECONDS:-0.3} nbig=2000 ndirs=5
fi
all_configs="native bind-ro overlay-ro fuse-bpf hide attrs denywrite stats stats-nopost combined bindfs bindfs-ro userspace"
all_workloads="seqread seqwrite randread randwrite aio-seqread aio-seqwrite aio-randread aio-randwrite
	stat open create readdir walk untar grep"
configs=native
: "${BENCH_CONFIGS:=$all_configs}"
# Lists may be separated by commas: kernel/vm.sh passes BENCH_* unquoted.
for c in ${BENCH_CONFIGS//,/ }; do
	[ "$c" = native ] || configs="$configs $c"
done
workloads=${BENCH_WORKLOADS:-$all_workloads}
workloads=$(echo ${workloads//,/ })
profile_workloads=${BENCH_PROFILE:-}
profile_workloads=${profile_workloads//,/ }
src=${BENCH_SRC:-$here/build/bench/src.tar}
cli=${BENCH_CLI:-fusebpfctl}
if [ -n "${BENCH_OUT:-}" ]; then
	out=$BENCH_OUT
elif mountpoint -q /run/fusebpf-out 2>/dev/null; then
	out=/run/fusebpf-out
else
	out=/tmp/bench-out
fi
B=/tmp/bench
V=$B/v

die() { echo "bench: $*" >&2; exit 1; }
say() { echo "bench: $*" >&2; }

check_input() {
	local c w
	for c in $configs; do
		[[ " $all_configs " == *" $c "* ]] || die "unknown configuration '$c' (known: $all_configs)"
	done
	for w in $workloads; do
		[[ " $(echo $all_workloads) " == *" $w "* ]] || die "unknown workload '$w' (known: $(echo $all_workloads))"
	done
	[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || die "BENCH_ROUNDS must be a positive number, not '$rounds'"
	[[ "$first" =~ ^[1-9][0-9]*$ ]] || die "BENCH_ROUND_FIRST must be a positive number, not '$first'"
	[[ "$secs" =~ ^[0-9]*\.?[0-9]+$ ]] || die "BENCH_SECONDS must be a number, not '$secs'"
	command -v "$cli" >/dev/null || die "$cli is missing: make cli"
	command -v fsbench >/dev/null || die "build/bench/fsbench is missing: make bench builds it"
	[[ " $configs " != *" bindfs"* ]] || command -v bindfs >/dev/null || die "bindfs is missing: make deps"
	[ -r "$src" ] || die "no source tree at $src (BENCH_SRC): make bench makes it"
	[ "$(cat /sys/fs/fuse/features/fuse_bpf 2>/dev/null)" = supported ] ||
		die "this kernel has no fuse-bpf"
	mkdir -p "$out" || die "cannot create $out (BENCH_OUT)"
}

# --- the configurations ---------------------------------------------------------

# Read-only views: the write workloads are skipped on them.
is_ro() { [[ " bind-ro overlay-ro denywrite combined bindfs-ro " == *" $1 "* ]]; }

view() { if [ "$1" = native ]; then echo $B/back; else echo $V/$1; fi; }

# hide's policy: 100 names and 10 patterns, none of which the trees use.
hide_opts=(--hide-suffix .bak --hide-suffix .swp --hide-suffix .orig --hide-suffix .rej
	--hide-suffix '~' --hide-prefix '.#' --hide-prefix .svn
	--hide-glob '*.tmp' --hide-glob 'cache-*' --hide-glob '#*#')
for i in $(seq -w 1 100); do hide_opts+=(--hide "secret-$i"); done
# attrs' policy: a rule for every name.
attrs_opts=(--mode=-022 --uid 1000 --gid 1000)

load_filters() {
	local c
	for c in $configs; do
		case $c in
		hide) $cli load hide --name b-hide "${hide_opts[@]}" ;;
		attrs) $cli load attrs --name b-attrs "${attrs_opts[@]}" ;;
		denywrite) $cli load denywrite --name b-deny ;;
		stats) $cli load stats --name b-stats ;;
		stats-nopost) $cli load stats --name b-stats-nopost --no-postfilter ;;
		combined) $cli load fusebpf --name b-comb --policies hide,attrs,denywrite \
			"${hide_opts[@]}" "${attrs_opts[@]}" ;;
		*) continue ;;
		esac >/dev/null || die "loading the filter of $c failed"
	done
}

mount_view() {	# config
	local v=$V/$1
	mkdir -p "$v"
	case $1 in
	native) ;;
	bind-ro) mount --bind $B/back "$v" && mount -o remount,bind,ro "$v" ;;
	# a read-only overlay needs two lower layers: the tree over an empty one
	overlay-ro) mkdir -p $B/empty &&
		mount -t overlay overlay -o ro,lowerdir=$B/back:$B/empty "$v" ;;
	fuse-bpf) $cli attach "$v" $B/back ;;
	hide) $cli attach "$v" $B/back --filter b-hide ;;
	attrs) $cli attach "$v" $B/back --filter b-attrs ;;
	denywrite) $cli attach "$v" $B/back --filter b-deny ;;
	stats) $cli attach "$v" $B/back --filter b-stats ;;
	stats-nopost) $cli attach "$v" $B/back --filter b-stats-nopost ;;
	combined) $cli attach "$v" $B/back --filter b-comb ;;
	bindfs) bindfs --perms=go-w --force-user=1000 --force-group=1000 $B/back "$v" ;;
	bindfs-ro) bindfs -r $B/back "$v" ;;
	userspace) $cli attach "$v" $B/back --userspace ;;
	esac >/dev/null || die "mounting the $1 view failed"
}

# Every view shows the same tree: as many entries three levels down as native.
check_view() {	# config
	local n m
	n=$(find $B/back -maxdepth 3 -not -path '*/lost+found*' | wc -l)
	m=$(find "$(view "$1")" -maxdepth 3 -not -path '*/lost+found*' | wc -l)
	[ "$n" = "$m" ] || die "the $1 view shows $m entries where native has $n"
}

cleanup() {
	local c
	for c in $all_configs; do
		case $c in
		native) ;;
		bind-ro|overlay-ro|bindfs|bindfs-ro) umount $V/$c 2>/dev/null || true ;;
		*) $cli detach $V/$c >/dev/null 2>&1 || true ;;
		esac
	done
	for c in b-hide b-attrs b-deny b-stats b-stats-nopost b-comb; do
		$cli unload --force $c >/dev/null 2>&1 || true
	done
	umount $B/back 2>/dev/null || true
	rm -rf $B
}

# --- the backing tree -----------------------------------------------------------

make_files() {	# dir count prefix
	local i
	mkdir -p "$1"
	for ((i = 0; i < $2; i++)); do : >"$1/$3$i"; done
}

make_backing() {
	local d
	mkdir -p $B
	truncate -s 1G $B/ext4.img
	mkfs.ext4 -q -F $B/ext4.img
	mkdir -p $B/back
	mount -o loop $B/ext4.img $B/back
	mkdir -p $B/back/data $B/back/scratch $B/back/job
	for d in seq wseq rand wrand; do
		dd if=/dev/zero of=$B/back/data/$d bs=1M count=$datamb status=none
	done
	for ((d = 0; d < ndirs; d++)); do make_files $B/back/tree/d$d $nper f; done
	make_files $B/back/big $nbig e
	tar -xf "$src" -C $B/back
	[ -d $B/back/src ] || die "$src has no src/ directory"
	srcfiles=$(find $B/back/src -type f | wc -l)
	srcbytes=$(du -sb --apparent-size $B/back/src | cut -f1)
	sync
}

# --- the workloads ----------------------------------------------------------------

# The kind of a workload: write (skipped on read-only views) or read.
is_write() { [[ " seqwrite randwrite aio-seqwrite aio-randwrite create untar " == *" $1 "* ]]; }

unit_of() {
	case $1 in
	*seqread|*seqwrite|*randread|*randwrite) echo KiB/s ;;
	stat|open|create) echo ops/s ;;
	readdir|walk) echo entries/s ;;
	untar) echo files/s ;;
	grep) echo KiB/s ;;
	esac
}

drop_caches() { sync; echo 3 >/proc/sys/vm/drop_caches; }

# Nanoseconds now; the job's rates come from these.
ns() { date +%s%N; }

# The data workloads: 1 MiB sequential, 4 KiB random; pread/pwrite (and an
# fsync at the end of writes), or libaio, O_DIRECT, 16 in flight.
run_data() {	# dir workload seconds
	local rw=${2#aio-} file bs=4096 depth=
	case $rw in
	seqread) rw=read file=seq bs=1048576 ;;
	seqwrite) rw=write file=wseq bs=1048576 ;;
	randread) file=rand ;;
	randwrite) file=wrand ;;
	esac
	[[ $2 != aio-* ]] || depth=16
	fsbench $rw "$1/data/$file" "$3" $bs $depth
}

run_untar() {	# dir
	local t0 t1
	t0=$(ns)
	tar -xf "$src" -C "$1/job" || return 1
	sync
	t1=$(ns)
	rm -rf "$1/job/src" || return 1
	awk -v n="$srcfiles" -v t=$((t1 - t0)) 'BEGIN { printf "%.1f\n", n * 1e9 / t }'
}

run_grep() {	# dir
	local t0 t1 rc=0
	drop_caches
	t0=$(ns)
	grep -r -q -e 'fusebpf-bench: no such line' "$1/src" || rc=$?
	t1=$(ns)
	[ $rc = 1 ] || { say "grep -r in $1 exited $rc"; return 1; }
	awk -v b="$srcbytes" -v t=$((t1 - t0)) 'BEGIN { printf "%.1f\n", b / 1024 * 1e9 / t }'
}

# One cell: the workload on the view, for secs seconds; prints the rate.
run_cell() {	# config workload seconds
	local dir
	dir=$(view "$1")
	case $2 in
	stat|open) fsbench "$2" "$dir/tree" "$3" ;;
	create) fsbench create "$dir/scratch" "$3" ;;
	readdir) fsbench readdir "$dir/big" "$3" ;;
	walk) drop_caches && fsbench walk "$dir" ;;
	untar) run_untar "$dir" ;;
	grep) run_grep "$dir" ;;
	*) run_data "$dir" "$2" "$3" ;;
	esac
}

# The configurations in the order of round r for the workload of index w.
rotated() {	# r w
	local -a c=($configs)
	local n=${#c[@]} i
	for ((i = 0; i < n; i++)); do echo -n "${c[((i + $1 + $2) % n)]} "; done
}

# A pass that is not counted: every view's data files read and its tree
# looked up once, and the programs loaded from the 9p root.
warm_up() {
	local c w
	for c in $configs; do
		for w in seqread randread stat open readdir; do
			[[ " $workloads " == *" $w "* ]] || continue
			run_cell "$c" $w 0.2 >/dev/null || die "warm-up: $w on $c failed"
		done
	done
	[[ " $workloads " != *" grep "* ]] || run_grep $B/back >/dev/null
}

run_rounds() {	# tsv
	local r w c v line wi=0 t0=$SECONDS
	for ((r = first; r <= last; r++)); do
		wi=0
		for w in $workloads; do
			line="$w:"
			for c in $(rotated $r $wi); do
				[ "${BENCH_VERBOSE:-0}" = 0 ] || say "round $r: $w on $c"
				if is_write $w && is_ro $c; then
					v=ro
				else
					v=$(run_cell $c $w "$secs") || v=fail
				fi
				printf '%s\t%s\t%s\t%s\n' $r $w $c "$v" >>"$1"
				line="$line $c $v"
			done
			say "$line"
			wi=$((wi + 1))
		done
		say "round $r done ($((SECONDS - t0)) s; this boot: rounds $first-$last)"
	done
}

# --- the results --------------------------------------------------------------------

# From the samples (round, workload, config, value): per cell the median,
# min and max, the ratios to native's median; printed as a text table
# (stdout), bench.md, bench.json and bench.dat (gnuplot).
summarize() {	# tsv
	awk -F'\t' -v configs="$configs" -v workloads="$workloads" -v out="$out" \
		-v rounds="$last" -v secs="$secs" -v kernel="$(uname -r)" \
		-v cpus="$(nproc)" -v when="$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
		-v units="$(for w in $workloads; do echo -n "$(unit_of $w) "; done)" \
		-v load="$(cut -d' ' -f1-3 /proc/loadavg)" -f "$here/bench/summary.awk" "$1"
}

bpf_stats_report() {
	local p
	say "BPF program run counts and time (kernel.bpf_stats_enabled):"
	for p in b-hide b-attrs b-deny b-stats b-stats-nopost b-comb; do
		[ -e /sys/fs/bpf/fusebpf/$p/prog ] || continue
		bpftool -j prog show pinned /sys/fs/bpf/fusebpf/$p/prog |
			awk -v p=$p '{
				c = $0; sub(/.*"run_cnt":/, "", c); sub(/[,}].*/, "", c)
				t = $0; sub(/.*"run_time_ns":/, "", t); sub(/[,}].*/, "", t)
				printf "  %-16s run_cnt %10d  run_time_ns %12d  ns/run %8.0f\n",
					p, c, t, (c > 0 ? t / c : 0) }'
	done | tee "$out/bpf-stats.txt"
}

# BENCH_PROFILE=WORKLOAD,...: no rounds; each workload runs on each
# configuration for BENCH_SECONDS under perf record (cpu-clock, every CPU,
# call graphs), and the top of perf report goes to perf-WORKLOAD-CONFIG.txt.
profile() {
	local w c p f v
	command -v perf >/dev/null || die "perf is missing (linux-perf)"
	mkdir -p "$out/perf"
	for w in $profile_workloads; do
		for c in $configs; do
			is_write $w && is_ro $c && continue
			f=$out/perf/$w-$c
			perf record -q -a -g -e cpu-clock -o "$f.data" 2>/dev/null &
			p=$!
			sleep 1
			v=$(run_cell $c $w "$secs") || v=fail
			kill -INT $p
			wait $p || true
			{
				echo "$w on $c: $v $(unit_of $w)"
				perf report -i "$f.data" --stdio --no-children --sort sym -g none \
					--percent-limit 0.5 2>/dev/null | grep -v '^#' | grep -v '^$' | head -40
				echo "--- with children (callers' share):"
				perf report -i "$f.data" --stdio --children --sort sym -g none \
					--percent-limit 2 2>/dev/null | grep -v '^#' | grep -v '^$' | head -60
				echo "--- callers of the symbols over 5%:"
				perf report -i "$f.data" --stdio --no-children --sort sym \
					-g caller,2,callee,function,percent --percent-limit 5 2>/dev/null |
					grep -v '^#' | grep -v '^$' | head -150
			} >"$f.txt"
			rm -f "$f.data"
			say "profiled $w on $c: $v $(unit_of $w)"
		done
	done
}

main() {
	local c tsv=$out/bench.tsv
	check_input
	last=$((first + rounds - 1))	# this boot's last round, the run's so far
	trap cleanup EXIT
	cleanup
	say "setting up: $configs"
	make_backing
	load_filters
	for c in $configs; do
		mount_view $c
		check_view $c
	done
	[ "${BENCH_BPFSTATS:-0}" != 1 ] || sysctl -q kernel.bpf_stats_enabled=1
	say "warm-up"
	warm_up
	if [ -n "$profile_workloads" ]; then
		profile
		return
	fi
	say "$rounds rounds of $(echo $workloads | wc -w) workloads on $(echo $configs | wc -w) configurations, ${secs} s cells"
	if [ "$first" = 1 ]; then
		printf 'round\tworkload\tconfig\tvalue\n' >"$tsv"
	else
		[ -s "${BENCH_PRIOR_TSV:-}" ] ||
			die "BENCH_ROUND_FIRST=$first needs the rounds before it in BENCH_PRIOR_TSV"
		cp "$BENCH_PRIOR_TSV" "$tsv"
	fi
	run_rounds "$tsv"
	summarize "$tsv"
	[ "${BENCH_BPFSTATS:-0}" != 1 ] || bpf_stats_report
	say "results in $out: bench.tsv bench.json bench.md bench.dat"
}

main
