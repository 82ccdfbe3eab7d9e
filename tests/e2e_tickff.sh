#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_tickff.sh - skipped host ticks (hv.c hv_tick_ev, sched_fair.c
# fair_tick_next / tick_sync) and guest ticks (kernel.c tick_ev, tick_wake)
# against the slow path (fast_forward: false),
# which runs every tick: every metric the same bytes but the engine's cost
# figures (events, events_per_sec, ple_exits_bulk, host_ticks_skipped,
# steps_folded), and
# the same trace and lock statistics; a host that cannot skip (groups,
# eevdf) runs every tick; a deliberately broken skip is caught.
#
# Run by `make check`; one line per check, then "N passed, M failed".

. "$(dirname "$0")/e2e_lib.sh"
X5=$top_srcdir/configs/seed001/x5570.yaml
X7=$top_srcdir/configs/seed001/x7560-ple.yaml
EB=$top_srcdir/configs/examples/ipi-ebizzy-32.yaml

# both NAME FILE SETS...: run FILE with and without the fast paths
both() {
	name=$1 f=$2
	shift 2
	ff_both "$name" "$f" --reps 1 "$@"
}

# fewer NAME R: the fast run handled fewer than R times the slow run's events
fewer() {
	awk -v a="$(metric events "$tmp/$1.true")" -v b="$(metric events "$tmp/$1.false")" \
	    -v r="$2" 'BEGIN { exit !(a > 0 && a < b * r) }'
}

# same_events NAME: no host tick skipped (a folded step or a skipped guest
# tick is one event fewer: tests/e2e_fold.sh, below)
same_events() {
	[ $(($(metric events "$tmp/$1.true") + $(metric steps_folded "$tmp/$1.true") +
	    $(metric guest_ticks_skipped "$tmp/$1.true"))) = \
	    "$(metric events "$tmp/$1.false")" ] &&
	[ "$(metric host_ticks_skipped "$tmp/$1.true")" = 0 ]
}

# one_each NAME: each skipped tick is the one event fewer (no other fast path)
one_each() {
	[ "$(metric host_ticks_skipped "$tmp/$1.false")" = 0 ] &&
	[ "$(metric guest_ticks_skipped "$tmp/$1.false")" = 0 ] &&
	[ $(($(metric events "$tmp/$1.true") + $(metric host_ticks_skipped "$tmp/$1.true") +
	    $(metric guest_ticks_skipped "$tmp/$1.true") + $(metric steps_folded "$tmp/$1.true"))) = \
	    "$(metric events "$tmp/$1.false")" ]
}

W='--set until=duration'
# the hogs' loop with a count: not one endless compute (interp.c
# loop_endless), whose iteration ends no cost figure counts, so the event
# sums below see the ticks alone
H='workloads.cpuhog={program: [{loop: forever, do: [{compute: 10ms}, {count: steps}]}]}'
# seed 001's ticket collapse: two vCPUs a pCPU, a preemption every slice
check "X5570 2x ticket: the same metrics" both x2 "$X5" $W --set duration=20s \
    --set 'vms[1].count=1' --set "$H"
check "X5570 2x ticket: < 0.7 of the events" fewer x2 0.7
check "X5570 2x ticket: each skipped tick is the one event fewer" one_each x2
# positive NAME METRIC MIN: the fast run's METRIC is > MIN
positive() {
	awk -F, -v m="$2" -v min="$3" '$1 == m { v = $3 } END { exit !(v > min) }' "$tmp/$1.true"
}
check "X5570 2x ticket: the host preempts" positive x2 ctx_switches 1000
# the guest's ticks on a preempted vCPU after the first (kernel.c tick_ev)
check "X5570 2x ticket: guest ticks skipped" positive x2 guest_ticks_skipped 1000
# 1x: guest idle, halts and wakes, wake-time migrations between pCPUs
check "X5570 1x pv-ticket: the same metrics" both x1 "$X5" $W --set duration=20s \
    --set 'vms[0].lock=pv-ticket'
check "X5570 1x: fewer events" fewer x1 1
# 3x, the PLE host: yields to the lock holder, balancing between busy pCPUs
check "X7560 3x ticket (PLE, yield_to): the same metrics" both x7 "$X7" $W \
    --set duration=5s --set 'vms[1].count=2'
check "X7560 3x: it yields" positive x7 yield_to_ok 0
# wakes that migrate off a pCPU whose ticks were skipped
check "wake migrations off quiet pCPUs: the same metrics" both wk "$DATA/tick-wake.yaml"
check "wake migrations: < 0.7 of the events" fewer wk 0.7
# IPIs, TLB shootdowns and an mmap_sem under a 2x host on 36 pCPUs
check "ebizzy, 64 vCPUs on 36 pCPUs: the same metrics" both eb "$EB" --set duration=100ms
# the self-checks see nothing amiss either
check "--check=full: the same metrics" both chk "$X5" $W --set duration=3s \
    --set 'vms[1].count=1' --check=full
# hosts whose ticks are not skipped
check "cfs, groups per-vm: the same metrics" both grp "$X5" $W --set duration=3s \
    --set 'vms[1].count=1' --set hypervisor.params.groups=per-vm --set "$H"
check "cfs, groups per-vm: every tick runs" same_events grp
check "eevdf: the same metrics" both ee "$X5" $W --set duration=3s \
    --set 'vms[1].count=1' --set hypervisor.scheduler=eevdf --set "$H"
check "eevdf: every tick runs" same_events ee

# what a probe sees: the same trace and lock statistics
for ff in true false; do
	"$VS" run "$X5" --no-wall-clock --format csv --reps 1 $W --set 'metrics=[]' \
	    --set duration=3s --set 'vms[1].count=1' --set fast_forward=$ff --trace "$tmp/t.$ff.json" \
	    --trace-window 2s:2.5s --lock-stat "$tmp/ls.$ff" >"$tmp/out.$ff" 2>"$tmp/err"
done
check "the same trace" cmp "$tmp/t.true.json" "$tmp/t.false.json"
check "the same lock statistics" cmp "$tmp/ls.true" "$tmp/ls.false"

# a deliberately broken skip (the skipped ticks' cpu_load decay and
# update_curr left out) is caught
export VLOCKSIM_TEST_TICKFF_FAULT=1
if both broken "$DATA/tick-wake.yaml"; then
	notok "a broken tick skip is caught"
else
	ok "a broken tick skip is caught"
fi
unset VLOCKSIM_TEST_TICKFF_FAULT
e2e_finish
