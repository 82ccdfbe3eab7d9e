#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# quickstart.sh - set up vlocksim on Debian 12 and run the default scenario.
# Safe to run again: it installs only what is missing and rebuilds only what changed.
set -e
cd "$(dirname "$0")"

need=$(cat .ci/packages)	# the Debian packages the build, tests and plots use
missing=""
for p in $need; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "quickstart: installing$missing"
	if [ "$(id -u)" -ne 0 ]; then
		echo "quickstart: run as root (or install:$missing)" >&2
		exit 1
	fi
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
fi

[ -x configure ] || autoreconf -fi
[ -f Makefile ] || ./configure -q
# vlocksim with profile feedback, as the Debian package (make pgo: training
# runs, about two CPU-seconds, then the build that uses them; README: Building
# by hand).  Run again, it only rebuilds what changed with the same profiles,
# or trains anew when a source changed since they were made (make pgo-update).
make -j"$(nproc)" pgo-update >/dev/null

# The main job: kernbench under 1x-4x overcommit, ticket (BASE) against
# pv-ticket, on the non-PLE X5570 and the PLE X7560 of seed 001; predicted
# lines with the measured points on top.  kernbench is the task form: three
# runs of make -j 20 that the guest scheduler places on the 8 vCPUs
# (configs/presets/kernbench.yaml).  To stay within a minute it simulates 1/10
# of each build (180 of its 1,800 compile jobs, a tenth of the serial phases)
# and scales the times back; `vlocksim validate seed001` runs the whole builds.
# A second run reuses the finished points.
scale=10
k=workloads.kernbench.programs
mkdir -p out/default
sweep() {
	./vlocksim sweep "configs/seed001/$1.yaml" --vary "vms[1].count=0,1,2,3" \
	    --vary "vms[0].lock=ticket,pv-ticket" \
	    --set "$k.make[1].spawn.count=$((1800 / scale))" \
	    --set "$k.make_cold[1].spawn.count=$((1800 / scale))" \
	    --set "$k.make[0].compute=4.4e8cycles" --set "$k.make_cold[0].compute=4.4e8cycles" \
	    --set "$k.make[3].compute=2.34e9cycles" --set "$k.make_cold[3].compute=2.34e9cycles" \
	    --reps 2 -j "$(nproc)" --plot bench.make_mean_s --out "out/default/$1"
}
for m in x5570 x7560-ple; do
	# A sweep refuses a folder made from other inputs (the scenario changed): start afresh.
	sweep "$m" || { echo "quickstart: out/default/$m came from other inputs; starting afresh"; rm -rf "out/default/$m"; sweep "$m"; }
done
grep -v '^#' validation/measured/seed001_kernbench.csv | grep -v ',base-sd,' > out/default/measured.csv
# Both hosts in one picture, and each host's in place of its sweep's own plot
# (overcommit 1x-4x on the x axis, times scaled back; the sweep's plot shows
# the path vms[1].count and the simulated 1/10 times).  The sweeps' --plot
# stands for gnuplot and its script being checked before anything runs (the
# default would draw every metric).
if command -v gnuplot >/dev/null 2>&1; then
	for only in both nople ple; do
		case $only in both) o=out/default ;; nople) o=out/default/x5570 ;; ple) o=out/default/x7560-ple ;; esac
		gnuplot -e "nople='out/default/x5570/results.csv'; ple='out/default/x7560-ple/results.csv'; \
		    measured='out/default/measured.csv'; scale=$scale; reps=2; only='$only'; \
		    out='$o/kernbench-overcommit'" plots/kernbench-overcommit.gp
		[ "$o" = out/default ] || rm -f "$o/sweep-bench.make_mean_s.png" "$o/sweep-bench.make_mean_s.svg"
	done
fi
echo
echo "kernbench Elapsed Time, s (predicted: mean of 2 reps x$scale; measured: seed 001, mean ± sd of 3 runs)"
printf '%-10s %-10s %-10s %10s %18s %7s\n' host overcommit lock predicted "measured ± sd" ratio
for m in x5570 x7560-ple; do
	# Join each sweep point with its measured row: setup nople-Nx / ple-Nx,
	# variant base (ticket) / patched (pv-ticket); 4x was not measured.
	awk -F, -v m="$m" -v s="$scale" 'NR == FNR { if ($3 == "bench.make_mean_s") {
			mean[$1 "/" $2] = $5; sd[$1 "/" $2] = $6 } next }
		FNR == 1 { for (i = 1; i <= NF; i++) if ($i == "bench.make_mean_s_mean") c = i; next }
		{ x = $1 + 1; key = (m == "x5570" ? "nople-" : "ple-") x "x/" \
			($2 == "ticket" ? "base" : "patched"); p = $c * s
		  if (key in mean) printf "%-10s %-10s %-10s %10.1f %10.1f ± %6.1f %6.2fx\n",
			m, x "x", $2, p, mean[key], sd[key], p / mean[key]
		  else printf "%-10s %-10s %-10s %10.1f %18s %7s\n", m, x "x", $2, p, "(not measured)", "-" }' \
	    out/default/measured.csv "out/default/$m/results.csv"
done
echo "ratio = predicted / measured; validate seed001 judges the full-size runs against their tolerance."
echo "quickstart: plots in out/default/kernbench-overcommit.png (both hosts), out/default/x5570/ and out/default/x7560-ple/ (one host each; .svg too)"
