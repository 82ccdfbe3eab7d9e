#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_golden.sh - scenarios of the per-vCPU form give the numbers they gave
# when exponential draws moved to the ziggurat (sim/engine/rng_exp.c): the
# files were rewritten then with `run FILE --no-wall-clock --format json
# --reps R`, tests/data/golden/release-visibility-off/ with
# --set machine.costs.release_visibility=off.  Until then they had been the
# bytes of cee5d5f (before the guest kernel and before release_visibility,
# the off runs) and of the commit that brought the switch (the on runs); the
# ziggurat changed them through the random stream alone.  Metrics added
# since cee5d5f (ipi_exits, timer_exits: 0 in this form; ple_exits_bulk, a
# cost figure like events) are left out, and so are events,
# host_ticks_skipped, guest_ticks_skipped and steps_folded: a skipped tick or a folded step
# is one event fewer (tests/e2e_tickff.sh, tests/e2e_fold.sh show they
# change nothing else).  So are the locks' wait_holder_preempted_ns and
# wait_handover_ns (issue 28): new metrics, every other byte the same.
# credit-tickle's two files were rewritten when a pv unlock's kick moved
# after the unlock's own store (lock.c lock_kick, issue 28): its pv-ticket
# waiters are woken a line transfer later; the other two have no kicks.
# credit-tickle's two files were rewritten again when idle pCPUs got C-states
# (models/hv/hv_idle.c, issue 27): its pCPUs go idle between halts and pay
# the exit latency of the state the menu governor picked (x5570's
# nehalem_cstates) before they schedule; the other two never wake an idle
# pCPU (cstate_wakes 0) and are unchanged.  The idle metrics (c0_share,
# cstate_wakes, cstate_exit_seconds) are new and left out.
# credit-tickle's two files were rewritten again when a halt that returns
# without its thread having slept paid the VM entry back (guest.c
# halt_entry, costs.vm_entry, issue 27): its pv-ticket waiters on Xen find a
# kick already pending at some halts (pv_unhalted) and go on vm_entry
# (1000 cycles) later;
# with --set machine.costs.vm_entry=0ns the run gives the old bytes.  The
# other two never halt with a kick pending and are unchanged.
#
# Run by `make check`; one line per check, then "N passed, M failed".

. "$(dirname "$0")/e2e_lib.sh"
G=$top_srcdir/tests/data/golden
LEFT_OUT='"ipi_exits"\|"timer_exits"\|"ple_exits_bulk"\|"events"\|"host_ticks_skipped"\|"guest_ticks_skipped"\|"steps_folded"\|wait_holder_preempted_ns\|wait_handover_ns\|"c0_share"\|"cstate_wakes"\|"cstate_exit_seconds"'

golden() {	# NAME REPS
	grep -v "$LEFT_OUT" "$G/release-visibility-off/$1.json" >"$tmp/$1-off.want"
	grep -v "$LEFT_OUT" "$G/$1.json" >"$tmp/$1.want"
	"$VS" run "$top_srcdir/configs/examples/$1.yaml" --no-wall-clock --format json \
	    --reps "$2" --set machine.costs.release_visibility=off |
	    grep -v "$LEFT_OUT" >"$tmp/$1-off.json"
	check "$1 (release_visibility off): the same bytes as the golden run" \
	    cmp -s "$tmp/$1-off.want" "$tmp/$1-off.json"
	"$VS" run "$top_srcdir/configs/examples/$1.yaml" --no-wall-clock --format json \
	    --reps "$2" | grep -v "$LEFT_OUT" >"$tmp/$1.json"
	check "$1: the same bytes as the golden run" cmp -s "$tmp/$1.want" "$tmp/$1.json"
}
golden cfs-overcommit 2
golden locks-compare 2
golden credit-tickle 1
e2e_finish
