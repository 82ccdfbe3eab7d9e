#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_fold.sh - folded vCPU steps (guest.c ev_at / guest_ev: a step due
# before every other pending event is taken inside the event before it)
# against the slow path (fast_forward: false), which queues each: every
# metric the same bytes but the engine's cost figures, the same trace and
# lock statistics; the pinned ticket model handles fewer events per
# acquisition.  fast_forward: false also keeps a lock call's costs and the
# caller's next compute apart (interp.c wl_lock_then).
#
# Run by `make check`; one line per check, then "N passed, M failed".

. "$(dirname "$0")/e2e_lib.sh"
P=$top_srcdir/bench/peer-ticket.yaml
X5=$top_srcdir/configs/seed001/x5570.yaml

both() {
	name=$1 f=$2
	shift 2
	ff_both "$name" "$f" --reps 1 "$@"
}

# per_acq NAME FF: events per acquisition of a peer-ticket run
per_acq() {
	awk -F, '$1 == "events" { e = $3 } $1 ~ /^[^.]+\.[^.]+\.acquisitions$/ { a += $3 }
	    END { printf "%.3f", e / a }' "$tmp/$1.$2"
}

# each_one NAME: every folded step is the one event fewer (no other fast path
# acts here or it is counted too)
each_one() {
	[ $(($(metric events "$tmp/$1.true") + $(metric steps_folded "$tmp/$1.true") +
	    $(metric host_ticks_skipped "$tmp/$1.true") +
	    $(metric guest_ticks_skipped "$tmp/$1.true"))) = "$(metric events "$tmp/$1.false")" ] &&
	[ "$(metric steps_folded "$tmp/$1.false")" = 0 ]
}

for n in 4 64; do
	check "peer-ticket, $n vCPUs: folded = slow path" \
	    both "peer$n" "$P" --set "vms[0].vcpus=$n" --set "machine.cores_per_socket=$n" \
	    --set duration=20ms
	check "peer-ticket, $n vCPUs: each folded step is one event fewer" each_one "peer$n"
done
echo "# events per acquisition, 4 vCPUs: $(per_acq peer4 true) folded, $(per_acq peer4 false) slow"
check "peer-ticket, 4 vCPUs: under 3 events per acquisition folded (4+ slow)" \
    awk -v a="$(per_acq peer4 true)" -v b="$(per_acq peer4 false)" \
    'BEGIN { exit !(a < 3 && b >= 4) }'
# (a random section: with a fixed one the ring fast-forward, ring_ff.c,
# takes the hand-overs' cycles without counting them)
check "ticket-4threads: folded = slow path" both t4 "$top_srcdir/configs/examples/ticket-4threads.yaml" \
    --set duration=50ms --set 'workloads.spin.program[0].do[1].compute={dist: exponential, mean: 5ns}'
check "ticket-4threads: each folded step is one event fewer" each_one t4
check "seed 001 X5570, 1 hog, pv-ticket: folded = slow path" both x5 "$X5" --set duration=2s \
    --set 'vms[1].count=1' --set 'vms[0].lock=pv-ticket'
check "seed 003, pv-qspinlock: folded = slow path" both s3 \
    "$top_srcdir/configs/seed003/kvm-overcommit.yaml" --set 'vms[0].lock=pv-qspinlock' \
    --set duration=100ms
# a lock call's costs and the next compute as one activity (interp.c
# wl_lock_then), here with tasks that switch at the release's
# preempt_enable: no draw made (interp.c wl_next_mid)
check "3 tasks on a vCPU, switched at a release: folded = slow path" both chain \
    "$top_srcdir/tests/data/chain-preempt.yaml"
check "3 tasks on a vCPU: the tasks switch" awk -F, '$1 == "g.guest_ctx_switches" { n = $3 }
    END { exit !(n >= 20) }' "$tmp/chain.true"
# ... and with nested locks: a reschedule due at the inner release waits
# for the outer one's preempt_enable, so the compute after the inner
# release is drawn at the boundary past a due preempt point (interp.c
# mid_due: the path closed there)
check "3 tasks on a vCPU, nested locks: folded = slow path" both nest \
    "$top_srcdir/tests/data/chain-nested.yaml"
check "CFS 2x, 64 vCPUs: folded = slow path" both cfs "$top_srcdir/bench/scale.yaml" \
    --set 'vms[0].count=8' --set machine.cores_per_socket=32 --set duration=20ms

# The trace and lock statistics of a window: the same bytes.
for ff in true false; do
	"$VS" run "$X5" --reps 1 --no-wall-clock --set duration=3s --set 'vms[1].count=1' \
	    --set fast_forward=$ff --trace "$tmp/tr.$ff.json" --trace-window 2s:2.5s \
	    --lock-stat "$tmp/ls.$ff.txt" >/dev/null 2>&1
done
check "seed 001 window: the same trace folded and not" cmp -s "$tmp/tr.true.json" "$tmp/tr.false.json"
check "seed 001 window: the same lock statistics" cmp -s "$tmp/ls.true.txt" "$tmp/ls.false.txt"
e2e_finish
