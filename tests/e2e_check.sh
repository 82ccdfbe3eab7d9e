#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_check.sh - every shipped scenario (configs/*/*.yaml with vms:) runs 50 ms
# of simulated time under --check=full: runstate conservation, the guest
# kernel's run queues at every switch, mutual exclusion, the pv-qspinlock
# invariant, FIFO order of FIFO locks, no vCPU on two pCPUs, event times
# never decreasing, and every lock free once its VM's threads have ended
# (vlocksim(1), INVARIANTS).  A broken invariant aborts the run.

. "$(dirname "$0")/e2e_lib.sh"

n=0
for f in $(grep -l '^vms:' "$top_srcdir"/configs/*/*.yaml); do
	n=$((n + 1))
	run run "$f" --reps 1 --check=full --set duration=50ms --format csv
	check "--check=full: ${f#"$top_srcdir"/}" [ "$rc" -eq 0 ]
done
check "shipped scenarios found" [ "$n" -ge 10 ]

run run "$DATA/base.yaml" --check=full --reps 1 --set vms[0].lock=pv-ticket --format csv
check "--check=full on a FIFO lock (pv-ticket) of a run to the end" [ "$rc" -eq 0 ]
check "... which completed" grep -q '^completed,bool,1,' "$tmp/out"
run run "$DATA/base.yaml" --check=sometimes
check "--check takes off, end, kernel or full" \
    sh -c "[ $rc -eq 2 ] && grep -q -- '--check is off, end, kernel or full' '$tmp/err'"
e2e_finish
