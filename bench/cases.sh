# SPDX-License-Identifier: GPL-2.0-or-later
# cases.sh - the scenarios a speed change is checked on, said once for
# bench/ident.sh (byte identity) and bench/equiv.sh (same distributions).
# Sourced from the source tree's root; bench_cases FN calls FN TAG ARGS...
# for each: every configs/examples and configs/seed00[0234] scenario (300 ms
# cap), seed 001's X5570 and X7560 rows (0/1/2 hogs, ticket and pv-ticket;
# 60 s and 20 s) and a 4096-vCPU host (bench/scale.yaml).
bench_cases() {
	for f in configs/examples/*.yaml configs/seed00[0234]/*.yaml; do
		case $f in */calibrated*) continue ;; esac
		"$1" "$(echo "$f" | tr '/' '_')" "$f" --set duration=300ms
	done
	for c in 0 1 2; do
		for l in ticket pv-ticket; do
			"$1" "s1x5570_${c}_$l" configs/seed001/x5570.yaml --set duration=60s \
			    --set "vms[1].count=$c" --set "vms[0].lock=$l"
			"$1" "s1x7560_${c}_$l" configs/seed001/x7560-ple.yaml --set duration=20s \
			    --set "vms[1].count=$c" --set "vms[0].lock=$l"
		done
	done
	"$1" scale4096 bench/scale.yaml --set 'vms[0].count=512' --set machine.sockets=16 \
	    --set machine.cores_per_socket=128 --set duration=40ms
}

# The metrics that count the simulator's work, not a result (metric_doc.c
# calls them cost figures): a speed change may move them.
bench_cost="events events_per_sec host_ticks_skipped guest_ticks_skipped steps_folded ple_exits_bulk"
