#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_loopff.sh - the loop fast-forward (guest.c guest_loop_ff, interp.c
# loop_ff) against the slow path (fast_forward: false), on seed 002's gtod
# loop (compute, a PIO exit, a counter): every metric the same bytes but the
# engine's cost figures (events, events_per_sec), and the same trace and lock
# statistics; a body with a random compute is never fast-forwarded; a
# forever loop of computes only, its vCPU's only task, has no events (and one
# sharing its vCPU does), nor has the overhead paid ahead of it (a switch-in,
# a tick's exit), nor has that of a spin without an end (a ticket waiter, no
# PLE, or one switched in on a pCPU without an SMT sibling), nor have such a
# waiter's ticks while tasks wait (they run when something looks); a
# deliberately broken fast-forward is caught; the ring fast-forward of a
# lock's hand-overs (seed 000), plain, pv-ticket, broken by odd events, a
# loop ending mid-cycle, rings overcommitted under credit and CFS, tas and
# spinpark takers (one alone, two handing over or parking), and a wrong one
# caught.
#
# Run by `make check`; one line per check, then "N passed, M failed".

. "$(dirname "$0")/e2e_lib.sh"
S=$top_srcdir/configs/seed002/gtod.yaml
L='workloads.gtod.program[0]'
# a second VM of 8 vCPUs busy in 20us steps: host time slices, preemption of
# the gtod vCPU, an SMT sibling busy or not, and its own fixed loop besides
HV='vms=[{name: guest, vcpus: 4, threads: 1, lock: ticket, workload: gtod},
    {name: hog, vcpus: 8, workload: hog}]'
HW='workloads.hog={program: [{loop: forever, do: [{compute: 20us}, {count: steps}]}]}'

# both NAME SETS...: run gtod with and without the fast-forward
both() {
	name=$1
	shift
	ff_both "$name" "$S" "$@"
}

# fewer NAME DIV: the fast-forward run handled fewer than 1/DIV of the events
fewer() {
	awk -v a="$(metric events "$tmp/$1.true")" -v b="$(metric events "$tmp/$1.false")" \
	    -v d="$2" 'BEGIN { exit !(a > 0 && a * d < b) }'
}

# fewer_steps NAME DIV: the same, counting the steps folded into events (a
# lone vCPU's steps are folded, not events, without a fast-forward too)
fewer_steps() {
	awk -v a="$(metric events "$tmp/$1.true")" -v f="$(metric steps_folded "$tmp/$1.true")" \
	    -v b="$(metric events "$tmp/$1.false")" -v d="$2" 'BEGIN { exit !(a > 0 && (a + f) * d < b) }'
}

# same_events NAME: no loop fast-forwarded (a skipped host tick or a folded
# step is one event fewer: tests/e2e_tickff.sh, tests/e2e_fold.sh)
same_events() {
	[ $(($(metric events "$tmp/$1.true") + $(metric host_ticks_skipped "$tmp/$1.true") +
	    $(metric guest_ticks_skipped "$tmp/$1.true") + $(metric steps_folded "$tmp/$1.true"))) = \
	    "$(metric events "$tmp/$1.false")" ]
}

# positive NAME METRIC
positive() {
	awk -F, -v m="$2" '$1 == m { v = $3 } END { exit !(v > 0) }' "$tmp/$1.true"
}

check "gtod pio-user: the same metrics" both user --set "$L.loop=200000"
check "gtod pio-user: < 1/10 of the events" fewer user 10
check "gtod pio-user: the calls counted" positive user guest.calls
check "gtod pio-kernel: the same metrics" both kernel --set "$L.loop=200000" \
    --set "$L.do[1].io=pio-kernel"
check "gtod pio-kernel: < 1/10 of the events" fewer kernel 10
# a guest tick (hz) interrupts the loop: a bound every 1 ms
check "gtod, guest tick at 1000 Hz: the same metrics" both tick --set "$L.loop=200000" \
    --set 'vms[0].guest={hz: 1000}'
check "gtod, guest tick: the timer exits counted" positive tick timer_exits
check "gtod, guest tick: < 1/5 of the events" fewer tick 5
# a loop: forever stops at the duration (sim end bounds the step)
check "gtod forever, 30 ms: the same metrics" both forever --set "$L.loop=forever" \
    --set until=duration --set duration=30ms
check "gtod forever: < 1/10 of the events" fewer forever 10
# two threads: each one's events bound the other's steps
check "gtod 2 threads: the same metrics" both two --set "$L.loop=50000" \
    --set 'vms[0].threads=2'
check "gtod 4 threads, pio-kernel: the same metrics" both four --set "$L.loop=20000" \
    --set 'vms[0].threads=4' --set "$L.do[1].io=pio-kernel"
# the task form: 3 tasks share vCPU 0, the guest's tick preempts them mid-loop
check "task form, 4 tasks on 2 vCPUs: the same metrics" both tasks \
    --set 'vms=[{name: guest, vcpus: 2, lock: ticket, workload: gtod}]' \
    --set 'workloads.gtod={programs: {g: [{loop: 20000, do: [{compute: 300ns},
    {io: pio-user}, {count: calls}]}]}, tasks: [{program: g, count: 3, cpus: [0]},
    {program: g, count: 1}]}'
check "task form: the guest switches tasks" positive tasks guest.guest_ctx_switches
check "task form: fewer events" fewer tasks 1.5
# a second busy VM: short bounds, preemptions, SMT rate changes
check "gtod + a busy VM: the same metrics" both hog --set "$L.loop=100000" --set "$HV" --set "$HW"
check "gtod + a busy VM: it preempts (ctx switches)" positive hog ctx_switches
check "gtod + a busy VM: the hog's steps counted" positive hog hog.steps
check "gtod + a busy VM: fewer events" fewer hog 1.5
# an endless busy VM (a forever loop of computes only, one task a vCPU):
# one compute without an end, no event at its iterations (interp.c endless)
HE='workloads.hog={program: [{loop: forever, do: [{compute: 20us}]}]}'
check "gtod + an endless busy VM: the same metrics" both endless --set "$L.loop=100000" \
    --set "$HV" --set "$HE"
check "gtod + an endless busy VM: < 1/100 of the events" fewer endless 100
# two endless VMs with guest ticks beside gtod: switch-ins and tick exits on
# an endless loop pay their overhead without an event (guest.c pre_unevented)
HT='vms=[{name: guest, vcpus: 4, threads: 1, lock: ticket, workload: gtod},
    {name: hog, vcpus: 8, workload: hog, guest: {hz: 1000}},
    {name: hog2, vcpus: 8, workload: hog, guest: {hz: 1000}}]'
check "gtod + two endless VMs, guest ticks: the same metrics" both endtick \
    --set "$L.loop=100000" --set "$HT" --set "$HE"
# the endless VMs alone: each tick is its one event (its exit once took a second)
check "two endless VMs alone: the same metrics" both endonly --set until=duration \
    --set duration=50ms --set "$HE" --set "vms=[{name: hog, vcpus: 8, workload: hog,
    guest: {hz: 1000}}, {name: hog2, vcpus: 8, workload: hog, guest: {hz: 1000}}]"
check "two endless VMs alone: fewer events than 2 per timer exit" awk -v \
    e="$(metric events "$tmp/endonly.true")" -v x="$(metric timer_exits "$tmp/endonly.true")" \
    'BEGIN { exit !(x > 100 && e < 2 * x) }'
# ticket waiters on a host without PLE spin without an end behind a holder
# that holds for longer than the run: their tick exits have no event either
SX=$top_srcdir/configs/seed001/x5570.yaml
WX='workloads.w={locks: {big: {}}, program: [{loop: forever, do: [{acquire: big},
    {compute: 1s}, {release: big}]}]}'
check "ticket waiters without PLE + an endless VM: the same metrics" ff_both spinhog "$SX" \
    --set until=duration --set duration=50ms --set "$WX" --set "$HE" \
    --set "vms=[{name: g, vcpus: 4, threads: 4, lock: ticket, workload: w, guest: {hz: 1000}},
    {name: hog, vcpus: 8, workload: hog, guest: {hz: 1000}}]"
check "ticket waiters without PLE alone: the same metrics" ff_both spinonly "$SX" \
    --set until=duration --set duration=50ms --set "$WX" \
    --set "vms=[{name: g, vcpus: 8, threads: 8, lock: ticket, workload: w, guest: {hz: 1000}}]"
check "ticket waiters without PLE alone: fewer events than 1.5 per timer exit" awk -v \
    e="$(metric events "$tmp/spinonly.true")" -v x="$(metric timer_exits "$tmp/spinonly.true")" \
    'BEGIN { exit !(x > 100 && e < 1.5 * x) }'
# ... switched in and out beside an endless VM, without guest ticks, on a
# host without SMT (X5570): the switch-in set the pCPU busy, the spin's load
# is set at once (guest.c pre_load), so only the holder's switch-ins, 1 of
# the 12 vCPUs, end their overhead with an event
check "ticket waiters without PLE, switched in beside an endless VM: the same metrics" \
    ff_both spinsw "$SX" --set until=duration --set duration=200ms --set "$WX" --set "$HE" \
    --set "vms=[{name: g, vcpus: 4, threads: 4, lock: ticket, workload: w},
    {name: hog, vcpus: 8, workload: hog}]"
check "ticket waiters switched in: over 3/4 of the switch-ins without an event" awk -v \
    f="$(metric steps_folded "$tmp/spinsw.true")" -v n="$(metric ctx_switches "$tmp/spinsw.true")" \
    'BEGIN { exit !(n > 40 && f > 0.75 * n) }'
# the task form: 8 tasks on 4 vCPUs, one holds, 3 spin, 4 wait queued: the
# spinners' ticks run later, when something looks (kernel.c tick_lazy), so
# over half of the ticks are ghosts; with a warm-up (the host's books reset
# first) and beside an endless VM (switch-outs) too
TL='workloads.w={locks: {big: {}}, programs: {p: [{loop: forever, do: [{acquire: big},
    {compute: 1s}, {release: big}]}]}, tasks: [{program: p, count: 8}]}'
GL='{name: g, vcpus: 4, lock: ticket, workload: w, guest: {hz: 1000}}'
check "ticket waiters without PLE, tasks queued: the same metrics" ff_both lazy "$SX" \
    --set until=duration --set duration=50ms --set "$TL" --set "vms=[$GL]"
check "ticket waiters, tasks queued: over half of the ticks are ghosts" awk -v \
    g="$(metric guest_ticks_skipped "$tmp/lazy.true")" -v x="$(metric timer_exits "$tmp/lazy.true")" \
    'BEGIN { exit !(x > 100 && g > x / 2) }'
check "... with a warm-up, beside an endless VM: the same metrics" ff_both lazyw "$SX" \
    --set until=duration --set duration=50ms --set warmup=21ms --set "$TL" --set "$HE" \
    --set "vms=[$GL, {name: hog, vcpus: 8, workload: hog}]"
# sections of 500 us: a spin ends between two ticks, and its vCPU's
# need_resched, set by a tick run later, preempts at the release
check "... sections shorter than a tick: the same metrics" ff_both lazys "$SX" \
    --set until=duration --set duration=100ms --set "vms=[$GL]" \
    --set 'workloads.w={locks: {big: {}}, programs: {p: [{loop: forever, do: [{acquire: big},
    {compute: 500us}, {release: big}, {compute: 300us}]}]}, tasks: [{program: p, count: 8}]}'
check "... sections shorter than a tick: some ticks are ghosts" positive lazys guest_ticks_skipped
# two such tasks share vCPU 0 (their loop ends are preemption points: run),
# one has vCPU 1 to itself (endless); the guest's tick preempts on vCPU 0
check "task form, endless loops, 2 tasks on vCPU 0: the same metrics" both endtasks \
    --set 'vms=[{name: guest, vcpus: 2, lock: ticket, workload: w, guest: {hz: 1000}}]' \
    --set 'workloads.w={programs: {g: [{loop: forever, do: [{compute: 300us},
    {compute: 70us}]}]}, tasks: [{program: g, count: 2, cpus: [0]},
    {program: g, count: 1, cpus: [1]}]}' --set until=duration --set duration=50ms
check "task form, endless loops: the guest switches tasks" positive endtasks \
    guest.guest_ctx_switches
check "task form, endless loops: fewer events" fewer endtasks 2
# a random compute: iterations differ, so none is taken in bulk
check "random compute: the same metrics" both rnd --set "$L.loop=20000" \
    --set "$L.do[0].compute={dist: exponential, mean: 300ns}"
check "random compute: not fast-forwarded (the same events)" same_events rnd
check "random compute + a busy VM: the same metrics" both rndhog --set "$L.loop=20000" \
    --set "$L.do[0].compute={dist: exponential, mean: 300ns}" --set "$HV" --set "$HW"
# the self-checks see nothing amiss either
check "--check=full: the same metrics" both chk --set "$L.loop=50000" --set "$HV" --set "$HW" --check=full

# the ring fast-forward (guest/ring_ff.c): seed 000's S1, 4 ticket waiters
# handing the lock over in a fixed ring, whole cycles taken at once
R=$top_srcdir/configs/seed000/spinlock-thread.yaml
RS='workloads.s1.program[0].loop=100000'
ring() {
	name=$1
	shift
	ff_both "$name" "$R" --set reps=1 --set "$RS" "$@"
}
check "ticket ring: the same metrics" ring ring
check "ticket ring: < 1/1000 of the events" fewer ring 1000
check "pv-ticket ring without a backend: the same metrics" ring ringpv \
    --set 'vms[0].lock={kind: pv-ticket, backend: none}'
check "pv-ticket ring: < 1/1000 of the events" fewer ringpv 1000
# odd events break the ring: a second VM's computes and I/O exit; the
# guest's ticks (their exits, a cycle unlike the others); a warm-up's end
check "ticket ring + another VM's few events: the same metrics" ring ringodd \
    --set 'vms=[{name: guest, vcpus: 4, affinity: "0,2,8,10", lock: ticket, workload: s1},
    {name: odd, vcpus: 1, affinity: "4", workload: odd}]' \
    --set 'workloads.odd={program: [{compute: 30us}, {io: pio-user}, {compute: 40us}]}'
check "... the other VM's exit counted" positive ringodd io_exits
check "... < 1/1000 of the events" fewer ringodd 1000
# another VM on the ring's SMT siblings: the ring's loads re-rate its
# vCPUs without an event, so the ring runs event by event beside them
M=$top_srcdir/configs/machines/x7560-8core-ht.yaml
check "ticket ring beside a VM on its SMT siblings, ticks: the same metrics" ring ringsmt \
    --set machine="$M" --set 'vms=[{name: guest, vcpus: 4, affinity: "0,2,4,6", lock: ticket,
    workload: s1, guest: {hz: 1000}}, {name: hog, vcpus: 4, affinity: "1,3,5,7", workload: hog}]' \
    --set 'workloads.hog={program: [{loop: 3, do: [{compute: 5ms}, {count: steps}]}]}'
check "... < 1/4 of the events (after the hogs)" fewer ringsmt 4
# the vCPUs on SMT siblings of one another, and not all waiting at a hand-over
check "ticket-4threads (pCPUs 0-3): the same metrics" ff_both ring4t \
    "$top_srcdir/configs/examples/ticket-4threads.yaml" --set reps=1
check "... < 1/1000 of the events" fewer ring4t 1000
check "ticket ring, guest ticks at 250 Hz: the same metrics" ring ringhz \
    --set 'vms[0].guest={hz: 250}'
check "... the ticks' exits counted" positive ringhz timer_exits
check "... < 1/1000 of the events" fewer ringhz 1000
check "ticket ring, a warm-up, forever: the same metrics" ring ringwarm \
    --set until=duration --set duration=50ms --set warmup=10ms \
    --set 'workloads.s1.program[0].loop=forever'
check "... < 1/1000 of the events" fewer ringwarm 1000
# a finite loop that ends mid-cycle (30001 rounds of 3 waiters): its count's
# bound (FFS_LEFT) stops the last bulk take two cycles short of the end
check "3 waiters, a loop ending mid-cycle: the same metrics" ring ringodd3 \
    --set 'workloads.s1.program[0].loop=30001' --set 'vms[0].vcpus=3' \
    --set 'vms[0].affinity="0,2,8"'
check "... < 1/1000 of the events" fewer ringodd3 1000
# two ring VMs overcommitting 4 pCPUs under Xen's credit scheduler, guest
# ticks at two rates: each runs its ring between the host's switches
check "two ticket rings overcommitted under credit, ticks: the same metrics" ring ringcredit \
    --set until=duration --set duration=40ms --set hypervisor.scheduler=credit \
    --set 'workloads.s1.program[0].loop=forever' \
    --set 'vms=[{name: guest, vcpus: 4, affinity: "0-3", lock: ticket, workload: s1,
    guest: {hz: 250}}, {name: g2, vcpus: 4, affinity: "0-3", lock: ticket, workload: s1,
    guest: {hz: 100}}]'
check "... the host switches them" positive ringcredit ctx_switches
check "... < 1/100 of the events" fewer ringcredit 100
# a pv-ticket ring under CFS sharing pCPUs 0-1 with a VM that computes and
# halts: preempted waiters, wake-ups, the ring taken between them
check "pv-ticket ring under CFS beside a halting VM: the same metrics" ring ringcfs \
    --set until=duration --set duration=30ms --set hypervisor.scheduler=cfs \
    --set 'workloads.s1.program[0].loop=forever' \
    --set 'vms=[{name: guest, vcpus: 4, affinity: "0-3", lock: {kind: pv-ticket, backend: none},
    workload: s1}, {name: h, vcpus: 2, affinity: "0-1", workload: h}]' \
    --set 'workloads.h={program: [{loop: forever, do: [{compute: 2ms}, {sleep: 1ms}]}]}'
check "... the other VM halts" positive ringcfs hlt_exits
check "... < 1/2 of the events" fewer ringcfs 2
# the test-and-set locks and the spin-then-park mutex (lock_tas.c,
# lock_spinpark.c: lab-c's t1 and t2 rows), looked at from each acquisition:
# one vCPU taking its lock alone, two spinners handing it over, with and
# without PAUSE, and two parking ones (the futex queue in the cycle)
# ring_lock DESC NAME LOCK VCPUS COUNT DIV: the ring with that lock and that
# many vCPUs gives the same metrics, and COUNT (fewer, fewer_steps) < 1/DIV
ring_lock() {
	check "$1: the same metrics" ring "$2" --set "vms[0].lock=$3" --set "vms[0].vcpus=$4"
	check "... < 1/$6 of the events ($5)" "$5" "$2" "$6"
}
ring_lock "tas, one vCPU" ringtas1 tas 1 fewer_steps 100
ring_lock "ttas ring of 2" ringttas tas 2 fewer 1000
ring_lock "tas (cmpxchg loop) ring of 2" ringtas '{kind: tas, pause: false}' 2 fewer 1000
ring_lock "spinpark, one vCPU" ringsp1 spinpark 1 fewer_steps 100
ring_lock "spinpark without spinning, two vCPUs parking" ringmutex \
    '{kind: spinpark, spin_count: 0, adaptive: false}' 2 fewer 5
# a deliberately wrong replay (its clocks and counters a cycle short) is caught
export VLOCKSIM_TEST_RINGFF_FAULT=1
if ring ringbroken; then
	notok "a wrong ring fast-forward is caught"
else
	ok "a wrong ring fast-forward is caught"
fi
if ring ringtasbroken --set 'vms[0].lock=tas' --set 'vms[0].vcpus=2'; then
	notok "... on a tas ring too"
else
	ok "... on a tas ring too"
fi
if ring ringspbroken --set 'vms[0].lock=spinpark' --set 'vms[0].vcpus=1'; then
	notok "... on a lone spinpark taker too"
else
	ok "... on a lone spinpark taker too"
fi
unset VLOCKSIM_TEST_RINGFF_FAULT

# what a probe sees: the same trace and lock statistics
for ff in true false; do
	"$VS" run "$S" --no-wall-clock --format csv --set "$L.loop=20000" --set "$HV" --set "$HW" \
	    --set fast_forward=$ff --trace "$tmp/t.$ff.json" --lock-stat "$tmp/ls.$ff" \
	    >"$tmp/out.$ff" 2>"$tmp/err"
done
check "the same trace" cmp "$tmp/t.true.json" "$tmp/t.false.json"
check "the trace has the I/O exits" grep -q '"name":"IO' "$tmp/t.true.json"
check "the same lock statistics" cmp "$tmp/ls.true" "$tmp/ls.false"
check "fewer events with a trace on" awk -F, 'FNR == 1 { f++ }
    $1 == "events" { e[f] = $3 } END { exit !(e[1] < e[2]) }' "$tmp/out.true" "$tmp/out.false"

# a deliberately broken fast-forward (its I/O time left out) is caught
export VLOCKSIM_TEST_LOOPFF_FAULT=1
if both broken --set "$L.loop=200000"; then
	notok "a broken fast-forward is caught"
else
	ok "a broken fast-forward is caught"
fi
check "... by its I/O share" sh -c "! cmp -s '$tmp/broken.true.m' '$tmp/broken.false.m' &&
    [ \"\$(grep -v '^io_exit_cpu_share,' '$tmp/broken.true.m' | cksum)\" = \
    \"\$(grep -v '^io_exit_cpu_share,' '$tmp/broken.false.m' | cksum)\" ]"
unset VLOCKSIM_TEST_LOOPFF_FAULT
e2e_finish
