#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/profile/overcommit.sh [OUTDIR] - where the extra time of an
# overcommitted kernel-build guest goes (issue 28): seed 001's X5570 host
# (8 pCPUs, no PLE, calibrated), the 8-vCPU kernbench guest beside a hog VM
# of 0, 4, 8 or 2 x 8 vCPUs (1x, 1.5x, 2x, 3x), with the ticket lock (BASE)
# and pv-ticket, 1/10 of each build (as quickstart.sh; times x10).
# Writes OUTDIR/overcommit.dat (one line per point) and, with gnuplot,
# OUTDIR/overcommit.png drawn by plots/overcommit-breakdown.gp:
#   gnuplot -e "dat='OUTDIR/overcommit.dat'; out='OUTDIR/overcommit'" plots/overcommit-breakdown.gp
# Columns (seconds per build of the guest's 8 vCPUs, i.e. vCPU-seconds / 8,
# mean over the 3 builds, x10):
#   make_s      kernbench's Elapsed Time (bench.make_mean_s)
#   steal_s     vCPU time runnable but not running (bench.runnable_share)
#   lhp_s       waiting for the zone and LRU locks while their holder was
#               preempted (acquisitions x wait_holder_preempted_ns, lock.c)
#   handover_s  waiting while the lock was free and its next owner had not
#               taken it: a preempted (ticket) or halted (pv) next waiter
#               (acquisitions x wait_handover_ns)
#   lockrun_s   the rest of the lock waits: the holder ran its section
#   ipiwait_s   senders waiting for IPI targets (bench.ipi_wait_share)
#   wakelat_s   woken tasks waiting to run (task_wakeups x wake_latency_mean_ns)
#   idle_s      guest idle (bench.guest_idle_share)
set -eu
out=${1:-out/overcommit}
top=$(cd "$(dirname "$0")/../.." && pwd)
: "${VLOCKSIM:=$top/vlocksim}" "${REPS:=2}"
scale=10 k=workloads.kernbench.programs
mkdir -p "$out"
echo "# overcommit lock make_s steal_s lhp_s handover_s lockrun_s ipiwait_s wakelat_s idle_s" > "$out/overcommit.dat"
for lock in ticket pv-ticket; do
	for oc in 1 1.5 2 3; do
		case $oc in
		1) hog="--set vms[1].count=0" ;;
		1.5) hog="--set vms[1].count=1 --set vms[1].vcpus=4" ;;
		2) hog="--set vms[1].count=1" ;;
		3) hog="--set vms[1].count=2" ;;
		esac
		# shellcheck disable=SC2086
		"$VLOCKSIM" run "$top/configs/seed001/x5570.yaml" --reps "$REPS" --no-wall-clock \
		    --set "vms[0].lock=$lock" $hog \
		    --set "$k.make[1].spawn.count=$((1800 / scale))" \
		    --set "$k.make_cold[1].spawn.count=$((1800 / scale))" \
		    --set "$k.make[0].compute=4.4e8cycles" --set "$k.make_cold[0].compute=4.4e8cycles" \
		    --set "$k.make[3].compute=2.34e9cycles" --set "$k.make_cold[3].compute=2.34e9cycles" \
		    --set "metrics=[completion_seconds, bench.make_mean_s, bench.runnable_share, bench.guest_idle_share, bench.zone.acquisitions, bench.zone.wait_mean_ns, bench.zone.wait_holder_preempted_ns, bench.zone.wait_handover_ns, bench.lru.acquisitions, bench.lru.wait_mean_ns, bench.lru.wait_holder_preempted_ns, bench.lru.wait_handover_ns, bench.ipi_wait_share, bench.task_wakeups, bench.wake_latency_mean_ns]" \
		    --format csv > "$out/run-$lock-$oc.csv"
		awk -F, -v oc="$oc" -v lock="$lock" -v s="$scale" '
			NR > 1 { m[$1] = $3 }
			END {
				T = m["completion_seconds"] * 8	# vCPU-seconds of the guest
				b = 3 * 8 / s			# per build of 8 vCPUs, x10
				za = m["bench.zone.acquisitions"]; la = m["bench.lru.acquisitions"]
				w = (za * m["bench.zone.wait_mean_ns"] + la * m["bench.lru.wait_mean_ns"]) / 1e9 / b
				h = za * m["bench.zone.wait_holder_preempted_ns"]
				h = (h + la * m["bench.lru.wait_holder_preempted_ns"]) / 1e9 / b
				f = za * m["bench.zone.wait_handover_ns"]
				f = (f + la * m["bench.lru.wait_handover_ns"]) / 1e9 / b
				printf "%s %s %.4g %.4g %.4g %.4g %.4g %.4g %.4g %.4g\n", oc, lock,
				    m["bench.make_mean_s"] * s,
				    T * m["bench.runnable_share"] / 100 / b, h, f, w - h - f,
				    T * m["bench.ipi_wait_share"] / 100 / b,
				    m["bench.task_wakeups"] * m["bench.wake_latency_mean_ns"] / 1e9 / b,
				    T * m["bench.guest_idle_share"] / 100 / b
			}' "$out/run-$lock-$oc.csv" >> "$out/overcommit.dat"
	done
	printf '\n\n' >> "$out/overcommit.dat"	# one gnuplot data block (index) per lock
done
cat "$out/overcommit.dat"
if command -v gnuplot >/dev/null 2>&1; then
	gnuplot -e "dat='$out/overcommit.dat'; out='$out/overcommit'" "$top/plots/overcommit-breakdown.gp"
fi
