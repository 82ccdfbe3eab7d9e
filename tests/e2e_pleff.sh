#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_pleff.sh - the PLE fast-forward (guest.c ple_fast_forward) against the
# slow path (fast_forward: false), on failed-yield PLE storms: every metric the
# same bytes but the engine's cost figures (events, events_per_sec,
# ple_exits_bulk, host_ticks_skipped), and the same trace and lock
# statistics.
#
# Run by `make check`; one line per check, then "N passed, M failed".

. "$(dirname "$0")/e2e_lib.sh"
S=$DATA/ple-ff.yaml


# bulk NAME MIN%: the fast-forward took at least MIN% of the PLE exits, none
# with it off, and it handled fewer events
bulk() {
	awk -F, -v min="$2" '$1 == "ple_exits" { p = $3 } $1 == "ple_exits_bulk" { b = $3 }
	    END { exit !(p > 0 && b >= p * min / 100) }' "$tmp/$1.true" &&
	[ "$(metric ple_exits_bulk "$tmp/$1.false")" = 0 ] &&
	awk -v a="$(metric events "$tmp/$1.true")" -v b="$(metric events "$tmp/$1.false")" \
	    'BEGIN { exit !(a < b) }'
}

# positive NAME METRIC: the fast-forward run's METRIC is > 0
positive() {
	awk -F, -v m="$2" '$1 == m { v = $3 } END { exit !(v > 0) }' "$tmp/$1.true"
}

# KVM 3.2, CFS: the holder runs, PF_VCPU refuses it, the scan yields to nobody
check "3.2/cfs ticket: the same metrics" ff_both c32 "$S"
check "3.2/cfs ticket: most exits in bulk" bulk c32 80
# the holder is a candidate: yield_to to the same running vCPU fails every time
check "3.2 without skip_running: the same metrics" ff_both c32r "$S" \
    --set 'hypervisor.directed_yield={version: "3.2", skip_running: false}'
check "3.2 without skip_running: failed yield_to counted" positive c32r yield_to_fail
check "3.2 without skip_running: most exits in bulk" bulk c32r 80
# KVM 3.10's switches with -ESRCH answers (Linux 4.5 yield_to_task_fair)
check "3.10 + yield_to_esrch: the same metrics" ff_both c310 "$S" \
    --set 'hypervisor.directed_yield={version: "3.10", only_preempted: false}' \
    --set hypervisor.params.yield_to_esrch=true
check "3.10 + yield_to_esrch: most exits in bulk" bulk c310 80
check "5.3/eevdf: the same metrics" ff_both eevdf "$S" --set hypervisor.scheduler=eevdf \
    --set hypervisor.directed_yield=5.3
check "5.3/eevdf: most exits in bulk" bulk eevdf 80
# pv-ticket: the spin budget (SPIN_THRESHOLD) ends some storms, then it halts
check "pv-ticket, short budget: the same metrics" ff_both pvt "$S" \
    --set 'vms[0].lock={kind: pv-ticket, spin_threshold: 2000}'
check "pv-ticket, short budget: exits in bulk" bulk pvt 50
check "pv-ticket, short budget: it halts" positive pvt hlt_exits
# the dynamic window (6.6) grows every exit: cycles repeat only at its max
check "6.6 dynamic window: the same metrics" ff_both dyn "$S" --set hypervisor.ple.defaults=6.6
# several spinners at once: each bounds the others' steps
check "4 vCPUs, 4 pCPUs, pv-ticket: the same metrics" ff_both four "$S" \
    --set machine.cores_per_socket=4 --set 'vms[0].vcpus=4' --set 'vms[0].lock=pv-ticket'
check "4 vCPUs: some exits in bulk" bulk four 1
# the task form on the guest kernel, overcommitted: seed 001's X7560 2x BASE
check "seed001 X7560 2x BASE (0.3 s): the same metrics" ff_both s1 \
    "$top_srcdir/configs/seed001/x7560-ple.yaml" --set 'vms[1].count=1' \
    --set duration=300ms --reps 1
# exits that yield: the waiter's switch-in pays its exit's cost and ends it in
# ple_in_ev (guest.c), which fast_forward: false leaves to guest_ev's EV_PRE
# step (seen failing with ple_in_ev's ple_done left out, and with its push a
# ns late)
check "yielding exits (4 vCPUs on 2 pCPUs): the same metrics" ff_both yld "$DATA/ple-yield.yaml"
check "yielding exits: yield_to succeeded" positive yld yield_to_ok
# a poke at a PLE-exited spinner's exit end, after its switch-in, that comes
# before that end's event (seed001 X7560 3x BASE: vCPU 4's release at
# 5.083448275 s, the end of vCPUs 5 and 6's exits): its settle pays the
# exit's last ns, which ends the exit (guest.c ple_end: ple_done's window),
# and arms the spin.  Off, the look finds guest_run's event (ple_in_window);
# on, the two-stage entry, which the look demotes (ple_sync, late_w).
# (Before ple_end the spin read the switch-in's window and in_ple stayed
# set; seen failing then with either window made a no-op: a stale 0, an
# exit at once, ple_exits 54584 -> 53779 by 5.1 s with ple_in_window's)
check "a poke at a switched-in PLE exit's end (seed001 X7560 3x, 5.1 s): the same metrics" \
    ff_both s1pk "$top_srcdir/configs/seed001/x7560-ple.yaml" --set 'vms[1].count=2' \
    --set duration=5.1s --reps 1
# ... that ends the exit there (guest.c ple_end): the spinner, poked at
# 47.776 ms and not handed the lock, spins its new window to its next exit,
# which ple_exit asserts comes after the last one ended (in_ple clear).  Seen
# failing without ple_end: "fatal: ... assertion failed: !g->in_ple" both ways
check "a switched-in PLE exit ended by a poke, then a new exit (4 vCPUs, seed 9, 3.10)" \
    ff_both yld9 "$DATA/ple-yield.yaml" --seed 9 --reps 1 --set 'hypervisor.directed_yield="3.10"'

# what a probe sees: the same trace and lock statistics
for ff in true false; do
	"$VS" run "$S" --no-wall-clock --format csv --reps 1 --set duration=10ms \
	    --set 'vms[0].lock={kind: pv-ticket, spin_threshold: 2000}' --set fast_forward=$ff \
	    --trace "$tmp/t.$ff.json" --lock-stat "$tmp/ls.$ff" >"$tmp/out.$ff" 2>"$tmp/err"
done
check "the same trace" cmp "$tmp/t.true.json" "$tmp/t.false.json"
check "the trace has the PLE exits" grep -q '"name":"PLE"' "$tmp/t.true.json"
check "the same lock statistics" cmp "$tmp/ls.true" "$tmp/ls.false"

sed 's/^seed: 3$/fast_forward: maybe/' "$S" >"$tmp/bad.yaml"
sed -i "s|\.\./\.\./configs|$(cd "$top_srcdir" && pwd)/configs|" "$tmp/bad.yaml"
run run "$tmp/bad.yaml"
check "fast_forward: maybe is refused (exit 2)" [ "$rc" = 2 ]
check "... with FILE:LINE:COLUMN" grep -q 'bad.yaml:6:[0-9]*: .*fast_forward' "$tmp/err"
e2e_finish
