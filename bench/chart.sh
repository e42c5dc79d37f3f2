#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/chart.sh DAT SVG [TITLE]: draw make bench's ratios to native
# (bench.dat from bench/summary.awk: per workload, ratio, min and max for
# each configuration) as a grouped bar chart with min-max error bars, with
# gnuplot. Runs on the host after the guest run. The y axis is logarithmic:
# user-space FUSE is 20 times slower on some rows, and the rows near 1.0 are
# the ones that matter.
set -eu
die() { echo "bench/chart.sh: $*" >&2; exit 1; }
[ $# -ge 2 ] || die "usage: bench/chart.sh DAT SVG [TITLE]"
dat=$1 svg=$2 title=${3:-"fuse-bpf and other views: throughput relative to native ext4"}
command -v gnuplot >/dev/null || die "gnuplot is missing: make deps (gnuplot-nox)"
[ -s "$dat" ] || die "no data in $dat"
ncfg=$(( ($(head -n1 "$dat" | awk -F'\t' '{ print NF }') - 1) / 3 ))
[ "$ncfg" -ge 1 ] || die "$dat has no configuration columns"
nrows=$(( $(wc -l <"$dat") - 1 ))
width=$(( 300 + nrows * (ncfg * 9 + 14) ))

# A colour per configuration, by name: the kernel's views grey, fuse-bpf
# and its filters blue and green, bindfs red, user-space FUSE purple.
color_of() {
	case $1 in
	bind-ro) echo '#9e9e9e' ;;
	overlay-ro) echo '#525252' ;;
	fuse-bpf) echo '#08306b' ;;
	hide) echo '#2171b5' ;;
	attrs) echo '#6baed6' ;;
	denywrite) echo '#41ab5d' ;;
	stats) echo '#006d2c' ;;
	stats-nopost) echo '#a1d99b' ;;
	combined) echo '#fdd835' ;;
	bindfs) echo '#cb181d' ;;
	bindfs-ro) echo '#fc9272' ;;
	userspace) echo '#6a51a3' ;;
	*) echo '#000000' ;;
	esac
}
colors=$(head -n1 "$dat" | tr '\t' '\n' | awk 'NR > 1 && $0 != "-"' |
	while read -r c; do printf '"%s" ' "$(color_of "$c")"; done)

gnuplot <<EOF || die "gnuplot failed"
set terminal svg size $width,560 dynamic font "sans,11" background "white"
set output "$svg"
set title "$title"
set datafile separator "\t"
set datafile missing "NaN"
set style data histograms
set style histogram errorbars gap 2 lw 0.5
set style fill solid 0.85 border -1
set boxwidth 0.9
set logscale y
set yrange [0.01:3]
set ytics (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 0.9, 1, 2)
set grid ytics lc "gray"
set ylabel "ratio to native (log scale; higher is faster)"
set xtics rotate by -30 nomirror offset -1,0 right
set key outside right top vertical font "sans,10"
set arrow from graph 0, first 1 to graph 1, first 1 nohead lc "black" lw 1.5 front
set bmargin 5
colors = '$colors'
plot for [i=1:$ncfg] "$dat" using (column(3*i-1)):(column(3*i)):(column(3*i+1)):xtic(1) \
	title columnheader(3*i-1) lc rgb word(colors, i)
EOF
echo "bench/chart.sh: $svg"
