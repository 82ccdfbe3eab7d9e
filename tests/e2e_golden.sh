#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_golden.sh - scenarios of the per-vCPU form give the numbers they gave
# before the guest kernel existed.  tests/data/golden/release-visibility-off/
# *.json were written by vlocksim at cee5d5f (before tasks) with `run FILE
# --no-wall-clock --format json --reps R`, before the machine's
# release_visibility existed: with it off they must still be the same bytes.
# tests/data/golden/*.json are the same runs with the default (on), written
# when the switch came (the only difference is the switch: the off run is
# byte-identical).  Metrics added since cee5d5f (ipi_exits, timer_exits: 0 in
# this form; ple_exits_bulk, a cost figure like events) are left out, and so
# are events and host_ticks_skipped: a skipped host tick is one event fewer
# (tests/e2e_tickff.sh shows it changes nothing else).  So are the locks'
# wait_holder_preempted_ns and wait_handover_ns (issue 28): new metrics, every
# other byte the same.
#
# Run by `make check`; one line per check, then "N passed, M failed".

. "$(dirname "$0")/e2e_lib.sh"
G=$top_srcdir/tests/data/golden
LEFT_OUT='"ipi_exits"\|"timer_exits"\|"ple_exits_bulk"\|"events"\|"host_ticks_skipped"\|wait_holder_preempted_ns\|wait_handover_ns'

golden() {	# NAME REPS
	grep -v "$LEFT_OUT" "$G/release-visibility-off/$1.json" >"$tmp/$1-off.want"
	grep -v "$LEFT_OUT" "$G/$1.json" >"$tmp/$1.want"
	"$VS" run "$top_srcdir/configs/examples/$1.yaml" --no-wall-clock --format json \
	    --reps "$2" --set machine.costs.release_visibility=off |
	    grep -v "$LEFT_OUT" >"$tmp/$1-off.json"
	check "$1 (release_visibility off): the same bytes as before the guest kernel" \
	    cmp -s "$tmp/$1-off.want" "$tmp/$1-off.json"
	"$VS" run "$top_srcdir/configs/examples/$1.yaml" --no-wall-clock --format json \
	    --reps "$2" | grep -v "$LEFT_OUT" >"$tmp/$1.json"
	check "$1: the same bytes as when release_visibility came" cmp -s "$tmp/$1.want" "$tmp/$1.json"
}
golden cfs-overcommit 2
golden locks-compare 2
golden credit-tickle 1
e2e_finish
