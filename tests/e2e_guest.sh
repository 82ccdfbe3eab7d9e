#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_guest.sh - guest traces in (issue 19) and the traces users have (issue 15):
# /proc/lock_stat, lock:contention_*, guest sched_switch, `trace scenario` and its
# round trip through the simulator's own lock_stat, perf kvm stat and perf script,
# 0 vCPUs, the trace-size guard and gzip, `machine probe` (and its cstates from
# a copy of sysfs).
#
# Run by `make check`, or by hand: top_srcdir=. top_builddir=. sh tests/e2e_guest.sh

. "$(dirname "$0")/e2e_lib.sh"
D=$top_srcdir/tests/data/traces/guest
M=$(cd "$top_srcdir" && pwd)/configs/machines/x5570-noht.yaml

# lock_stat: counts and means exact (tests/data/traces/guest/README.md).
run trace import "$D/lock_stat.txt" --seconds 10ms --out "$tmp/ls.yaml"
check "lock_stat imports" [ "$rc" -eq 0 ]
check "two classes" sh -c "grep -q '\"&zone->lock\":' '$tmp/ls.yaml' && grep -q '\"tasklist_lock-W\":' '$tmp/ls.yaml'"
check "zone lock: 1000 acquisitions, 200 contentions" sh -c "grep -A2 'zone->lock\":' '$tmp/ls.yaml' | grep -q 'acquisitions: 1000' && grep -A3 'zone->lock\":' '$tmp/ls.yaml' | grep -q 'contentions: 200'"
check "hold mean 2000us / 1000 = 2us, wait 400us / 200 = 2us" sh -c "grep -q 'hold: {dist: exponential, mean: 2us}' '$tmp/ls.yaml' && grep -q 'wait: {dist: exponential, mean: 2us}' '$tmp/ls.yaml'"
run trace import "$D/lock_stat-0.3.txt" --out "$tmp/ls3.yaml"
check "version 0.3 (10 numbers) gives the same hold" sh -c "[ $rc -eq 0 ] && grep -q 'hold: {dist: exponential, mean: 5us}' '$tmp/ls3.yaml'"
run trace import "$D/bad-lock_stat.txt"
check "a class line with 11 numbers: exit 2, FILE:6:COL" sh -c "[ $rc -eq 2 ] && grep -q 'bad-lock_stat.txt:6:[0-9]*: a lock_stat class line has 12 numbers' '$tmp/err'"

# A guest trace: tasks, idle, contention tracepoints.
run trace import "$D/guest-sched.txt" --guest --out "$tmp/g.yaml"
check "guest trace imports with --guest" [ "$rc" -eq 0 ]
check "idle share 0.5 (each CPU idles 5 of 10 ms)" grep -q 'idle_share: 0.5000' "$tmp/g.yaml"
check "worker: run and block means 1ms, population 2" sh -c "grep -q 'run: {dist: exponential, mean: 1ms}' '$tmp/g.yaml' && grep -q 'block: {dist: exponential, mean: 1ms}' '$tmp/g.yaml' && grep -q 'population: 2' '$tmp/g.yaml'"
check "contention tracepoints: 2 waits, mean 3us (2us and 4us)" sh -c "grep -q 'tp_contentions: 2' '$tmp/g.yaml' && grep -q 'wait_tp: {dist: const, value: 3us}' '$tmp/g.yaml'"
run trace import "$D/guest-sched.txt"
check "without --guest: 0 vCPUs is exit 2 with the reason" sh -c "[ $rc -eq 2 ] && grep -q 'no vCPU in the trace' '$tmp/err'"
run trace scenario "$D/bad-guest.txt" --machine "$M" --out "$tmp/bad.yaml"
check "trace scenario: a malformed line is exit 2, FILE:5:58, nothing written" sh -c "[ $rc -eq 2 ] && grep -q 'bad-guest.txt:5:58:' '$tmp/err' && [ ! -e '$tmp/bad.yaml' ]"

# trace.dat through libtracecmd (guest-sched.dat: mkdat.py, the same timeline).
if grep -q '^#define HAVE_LIBTRACECMD 1' "$top_builddir/config.h" 2>/dev/null; then
	run trace import "$D/guest-sched.dat" --guest --out "$tmp/gd.yaml"
	check "trace.dat imports through libtracecmd" [ "$rc" -eq 0 ]
	check "same tasks and idle share as the text" sh -c "sed -n '/^  idle_share/,/block:/p' '$tmp/g.yaml' | grep -v 'switches\|wakeups' > '$tmp/a'; sed -n '/^  idle_share/,/block:/p' '$tmp/gd.yaml' | grep -v 'switches\|wakeups' > '$tmp/b'; cmp -s '$tmp/a' '$tmp/b'"
	printf '\027\010\104tracing6\000junk' >"$tmp/junk.dat"
	run trace import "$tmp/junk.dat"
	check "a broken trace.dat: exit 2 at the bad field's offset" sh -c "[ $rc -eq 2 ] && grep -q 'junk.dat: byte offset 12: damaged trace.dat: byte order 106' '$tmp/err'"
else
	skip "trace.dat: built without libtracecmd"
fi

# trace scenario: it runs, it sweeps, its measured table holds the trace's numbers.
run trace scenario "$D/guest-sched.txt" --lock-stat "$D/lock_stat.txt" --machine "$M" \
    --out "$tmp/s.yaml" --measured "$tmp/s.csv" --setup G
check "trace scenario exits 0" [ "$rc" -eq 0 ]
check "the header names the sources" sh -c "grep -q '^#   guest trace: ' '$tmp/s.yaml' && grep -q '^#   lock statistics: ' '$tmp/s.yaml' && grep -q 'hold: lock_stat holdtime-total' '$tmp/s.yaml'"
check "measured: zone_lock acquisitions 1000, idle 50%" sh -c "grep -q '^G,traced.zone_lock.acquisitions,traced.zone_lock.acquisitions,count,1000,' '$tmp/s.csv' && grep -q '^G,traced.guest_idle_share,traced.guest_idle_share,%,50,' '$tmp/s.csv'"
run trace scenario "$D/guest-sched.txt" --lock-stat "$D/lock_stat.txt" --machine "$M" \
    --out "$tmp/s2.yaml" --workload "$tmp/w.yaml"
cat >"$tmp/inc.yaml" <<EOI
name: inc
duration: 5ms
until: duration
machine:
  include: $M
vms:
  - {name: mine, vcpus: 2, lock: ticket, workload: mine}
workloads:
  mine:
    include: $tmp/w.yaml
EOI
run run "$tmp/inc.yaml" --reps 1 --no-wall-clock
check "--workload: a preset that includes it runs" sh -c "[ $rc -eq 0 ] && grep -q '^mine.zone_lock.acquisitions' '$tmp/out'"
run run "$tmp/s.yaml" --reps 1 --no-wall-clock
check "the scenario runs" sh -c "[ $rc -eq 0 ] && grep -q '^traced.zone_lock.acquisitions' '$tmp/out'"
run sweep "$tmp/s.yaml" --vary 'vms[1].count=0,1' --reps 1 --out "$tmp/sw"
check "sweep --vary vms[1].count=0,1 runs" sh -c "[ $rc -eq 0 ] && [ \$(grep -c . '$tmp/sw/results.csv') -ge 3 ]"

# Round trip: a known scenario's own lock_stat -> trace scenario -> run: the 1x
# run reproduces the recorded acquisitions and hold time within 5%.
cat >"$tmp/known.yaml" <<EOK
name: known
seed: 7
reps: 1
until: duration
duration: 200ms
machine:
  include: $M
hypervisor: {kind: kvm, scheduler: cfs}
vms:
  - {name: g, vcpus: 4, lock: pv-qspinlock, workload: w}
workloads:
  w:
    locks: {k: {cs_lines: 1}}
    programs:
      t:
        - loop: forever
          do:
            - compute: {dist: exponential, mean: 20us}
            - acquire: k
            - compute: {dist: exponential, mean: 2us}
            - release: k
    tasks:
      - {program: t, count: 4}
EOK
run run "$tmp/known.yaml" --lock-stat "$tmp/known.ls" --no-wall-clock
check "run --lock-stat writes /proc/lock_stat text" sh -c "[ $rc -eq 0 ] && grep -q '^lock_stat version 0.4' '$tmp/known.ls' && grep -q ' k: ' '$tmp/known.ls'"
run trace scenario "$tmp/known.ls" --seconds 200ms --vcpus 4 --machine "$M" --out "$tmp/rt.yaml" \
    --measured "$tmp/rt.csv" --setup RT
check "trace scenario from it" [ "$rc" -eq 0 ]
run run "$tmp/rt.yaml" --reps 1 --no-wall-clock
check "the rebuilt scenario runs" [ "$rc" -eq 0 ]
within5() {	# METRIC: simulated within 5% of measured
	m=$(awk -F, -v k="traced.k.$1" '$3 == k { print $5 }' "$tmp/rt.csv")
	s=$(awk -v k="traced.k.$1" '$1 == k { print $2 }' "$tmp/out")
	awk -v m="$m" -v s="$s" 'BEGIN { d = (s - m) / m; if (d < 0) d = -d; exit !(m > 0 && d <= 0.05) }'
}
check "1x acquisitions within 5% of the recorded" within5 acquisitions
check "1x hold mean within 5% of the recorded" within5 hold_mean_ns

# lock_stat counts a class as lockdep does: a class of instances is one line
# (its acquisitions summed), named VM/NAME once two VMs have locks.
cat >"$tmp/inst.yaml" <<EOK
name: inst
seed: 7
reps: 1
until: duration
duration: 50ms
machine:
  include: $M
hypervisor: {kind: kvm, scheduler: cfs}
vms:
  - {name: a, vcpus: 4, lock: ticket, workload: w}
  - {name: b, vcpus: 2, lock: ticket, workload: w}
workloads:
  w:
    locks: {k: {instances: 3, cs_lines: 1}}
    programs:
      t:
        - loop: forever
          do:
            - compute: {dist: exponential, mean: 20us}
            - acquire: {name: k, by: random}
            - compute: {dist: exponential, mean: 2us}
            - release: k
    tasks:
      - {program: t, count: 4}
metrics: [a.k.acquisitions, b.k.acquisitions]
EOK
run run "$tmp/inst.yaml" --lock-stat "$tmp/inst.ls" --no-wall-clock --format csv
acq_ls() { awk -v c="$1/k:" '$1 == c { print $9 }' "$tmp/inst.ls"; }
acq_m() { awk -F, -v k="$1.k.acquisitions" '$1 == k { print $3 }' "$tmp/out"; }
check "lock_stat: one line per class and VM, acquisitions summed over instances" sh -c "[ $rc -eq 0 ] &&
    [ \$(grep -c '/k: ' '$tmp/inst.ls') -eq 2 ] && ! grep -q 'k\[' '$tmp/inst.ls' &&
    [ '$(acq_ls a)' = '$(acq_m a)' ] && [ '$(acq_ls b)' = '$(acq_m b)' ] && [ -n '$(acq_m a)' ]"

# perf kvm stat report as a measured table; perf script lines with kvm: prefixes.
run trace import "$D/perf-kvm-stat.txt" --measured "$tmp/pk.csv" --setup PK --seconds 10s
check "perf kvm stat imports" [ "$rc" -eq 0 ]
check "exits, means, time share, rates" sh -c "grep -q '^PK,vm.exits.HLT,vm.exits.HLT,count,100,' '$tmp/pk.csv' && grep -q '^PK,vm.exit_mean_ns.HLT,vm.exit_mean_ns.HLT,ns,990000,' '$tmp/pk.csv' && grep -q '^PK,vm.exit_time_share.MSR_WRITE,vm.exit_time_share.MSR_WRITE,%,0.5,' '$tmp/pk.csv' && grep -q '^PK,vm.exits_per_sec.PAUSE_INSTRUCTION,vm.exits_per_sec.PAUSE_INSTRUCTION,1/s,5,' '$tmp/pk.csv'"
run trace import "$D/perf-script-kvm.txt"
check "perf script: two vCPUs, HLT and PAUSE exits" sh -c "[ $rc -eq 0 ] && grep -q '^overall (2 vCPUs)' '$tmp/out' && grep -q 'PLE exits 1' '$tmp/out'"

# Trace export: the size guard cuts the window and says so; .gz is gzip.
SC=$top_srcdir/configs/examples/ticket-4threads.yaml
run run "$SC" --reps 1 --set workloads.spin.program[0].loop=2000 --trace "$tmp/t.json" \
    --trace-limit 20KiB --no-wall-clock
check "over --trace-limit: the first window that fits, and a message" sh -c "[ $rc -eq 0 ] && grep -q 'larger than --trace-limit' '$tmp/err' && [ \$(wc -c < '$tmp/t.json') -lt 40000 ]"
if command -v python3 >/dev/null 2>&1; then
	check "the cut trace is valid JSON" python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/t.json"
fi
run run "$SC" --reps 1 --set workloads.spin.program[0].loop=200 --trace "$tmp/t.json.gz" --no-wall-clock
check "--trace FILE.json.gz writes gzip" sh -c "[ $rc -eq 0 ] && gzip -dc '$tmp/t.json.gz' | grep -q '^{\"displayTimeUnit\":\"ns\"'"
run run "$SC" --trace "$tmp/u.json" --trace-limit lots
check "a bad --trace-limit is exit 2" [ "$rc" -eq 2 ]

# machine probe: loads as a machine, values in sane ranges.
run machine probe --time 300ms
check "machine probe exits 0" [ "$rc" -eq 0 ]
cp "$tmp/out" "$tmp/mine.yaml"
sed "s|$M|$tmp/mine.yaml|" "$tmp/known.yaml" >"$tmp/onmine.yaml"
run run "$tmp/onmine.yaml" --set duration=5ms --no-wall-clock
check "its output loads as a machine" [ "$rc" -eq 0 ]
check "topology and costs in sane ranges" awk '
	/^sockets:/ { s = $2 } /^cores_per_socket:/ { c = $2 } /^threads_per_core:/ { t = $2 }
	/^  atomic:/ { a = $2 + 0 } /^  pause:/ { p = $2 + 0 } /^  line_[a-z]*:/ { l = $2 + 0; if (l <= 0 || l >= 5000) bad = 1 }
	END { exit !(s >= 1 && c >= 1 && t >= 1 && a > 0 && a < 200 && (p == 0 || (p > 0 && p < 500)) && !bad) }' "$tmp/mine.yaml"

# cstates: from cpu0's cpuidle states in a sysfs copy (--sysfs): POLL and a
# disabled state left out, the rest in order with sysfs's us.
I=$tmp/sys/devices/system/cpu/cpu0/cpuidle
mkdir -p "$I/state0" "$I/state1" "$I/state2" "$I/state3" "$tmp/sys/devices/system/cpu/cpuidle"
echo intel_idle >"$tmp/sys/devices/system/cpu/cpuidle/current_driver"
st() { echo "$2" >"$I/state$1/name"; echo "$3" >"$I/state$1/latency"; echo "$4" >"$I/state$1/residency"; echo "$5" >"$I/state$1/disable"; }
st 0 POLL 0 0 0; st 1 C1 2 2 0; st 2 C1E 10 20 1; st 3 C6 133 400 0
run machine probe --time 100ms --sysfs "$tmp/sys"
check "machine probe --sysfs exits 0" [ "$rc" -eq 0 ]
sed -n '/^cstates:/,$p' "$tmp/out" | grep '^  - ' >"$tmp/cs"
printf '%s\n' '  - {name: "C1", exit_latency: 2us, target_residency: 2us}  # state1' \
    '  - {name: "C6", exit_latency: 133us, target_residency: 400us}  # state3' >"$tmp/cs.want"
check "cstates: sysfs's C1 and C6, POLL and the disabled C1E left out" cmp -s "$tmp/cs" "$tmp/cs.want"
check "the file names its source and driver" sh -c "grep -q 'cpu0/cpuidle/state\*/{name,latency,residency}' '$tmp/out' && grep -q 'driver intel_idle' '$tmp/out'"
cp "$tmp/out" "$tmp/mine.yaml"
run run "$tmp/onmine.yaml" --set duration=5ms --no-wall-clock
check "it loads as a machine" [ "$rc" -eq 0 ]
st 3 C6 133 1 0
run machine probe --time 100ms --sysfs "$tmp/sys"
check "a state shallower than the one before it is left out" sh -c "[ $rc -eq 0 ] && grep -q '# state3 C6: shallower than the state before it: left out' '$tmp/out' && [ \$(grep -c '^  - {name' '$tmp/out') -eq 1 ]"
# No cpuidle states: said in the file, and the model's default table written out.
run machine probe --time 100ms --sysfs "$tmp/nosys"
check "machine probe without cpuidle exits 0" [ "$rc" -eq 0 ]
check "it says there are none" grep -q '^# Idle states: no cpuidle states in' "$tmp/out"
sed -n 's/^  - {name: "\([^"]*\)", exit_latency: \([0-9]*\)us, target_residency: \([0-9]*\)us}$/\1 \2\/\3us/p' "$tmp/out" |
    paste -sd, - | sed 's/,/, /g' >"$tmp/cs"
run list
check "the table written is the model's default (vlocksim list's cstates)" sh -c "[ -s '$tmp/cs' ] && grep -qF \"cstates = (intel_idle nehalem_cstates: \$(cat '$tmp/cs'))\" '$tmp/out'"

e2e_finish
