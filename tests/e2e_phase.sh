#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_phase.sh - phase-locking (issue 14, from the reliability audit): with
# constant compute times, 64 vCPUs on one pCPU never had a lock holder
# preempted, and ticket, tas and qspinlock gave byte-identical numbers, because
# the loop's period locked onto the host scheduler's decisions.  The task
# form's random guest tick phases break the lock step; the per-vCPU form keeps
# aligned phases (its outputs stay byte-identical to before), so it still
# phase-locks, which this test also pins down.

. "$(dirname "$0")/e2e_lib.sh"

# metric FILE NAME: the mean of NAME in a CSV report
metric() {
	awk -F, -v m="$2" '$1 == m { print $3 }' "$1"
}

one() {	# FILE LOCK SEED OUT
	"$VS" run "$DATA/$1" --set "vms[0].lock=$2" --seed "$3" --format csv \
		--no-wall-clock >"$tmp/$4" 2>"$tmp/err"
}

one phase-vcpu.yaml ticket 1 vt
one phase-vcpu.yaml tas 1 va
check "per-vCPU form: no contended acquisition at all (phase-locked)" \
    [ "$(metric "$tmp/vt" g.l.contended_share)" = 0 ]
check "per-vCPU form: ticket and tas give the same ops (phase-locked)" \
    [ "$(metric "$tmp/vt" g.ops)" = "$(metric "$tmp/va" g.ops)" ]

one phase-tasks.yaml ticket 1 tt
one phase-tasks.yaml tas 1 ta
one phase-tasks.yaml ticket 2 tt2
check "task form: holders get preempted (contended share > 0)" \
    awk -v x="$(metric "$tmp/tt" g.l.contended_share)" 'BEGIN { exit !(x > 0) }'
check "task form: ticket and tas differ" \
    [ "$(metric "$tmp/tt" g.ops)" != "$(metric "$tmp/ta" g.ops)" ]
check "task form: the phases come from the seed (seeds 1 and 2 differ)" \
    [ "$(metric "$tmp/tt" g.ops)" != "$(metric "$tmp/tt2" g.ops)" ]
e2e_finish
