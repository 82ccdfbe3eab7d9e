#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_summary.sh - what `trace import` prints, figure by figure, on the shipped
# samples (traces/README.md) and the hand-written fixtures
# (tests/data/traces/guest/README.md): exits by reason as perf kvm stat report
# prints them, lock_stat classes, contention per lock, scheduling per CPU and
# task, the format named right, the YAML header naming the layout's file.
#
# Run by `make check`, or by hand: top_srcdir=. top_builddir=. sh tests/e2e_summary.sh

. "$(dirname "$0")/e2e_lib.sh"
D=$top_srcdir/tests/data/traces/guest
P1=$top_srcdir/traces/perf/sched-messaging.txt
X1=$top_srcdir/traces/xen/xentrace-vmx-credit2-8pcpu.bin

# row FIRST-FIELD: the output line whose first field is FIRST-FIELD, fields one
# space apart (the columns are padded).
row() {
	awk -v k="$1" '$1 == k { $1 = $1; print; exit }' "$tmp/out"
}
# has FIRST-FIELD "EXPECTED LINE": that row is exactly EXPECTED LINE.
has() {
	got=$(row "$1")
	[ "$got" = "$2" ] || { echo "row '$1': got '$got', want '$2'" >"$tmp/err"; return 1; }
}

# perf kvm stat report: count, share, rate (with --seconds), time share, mean,
# min and max as the report has them (HLT: 100, 57.14%, 99.00%, 50us, 2000us, 990us).
run trace import "$D/perf-kvm-stat.txt" --seconds 10s
check "perf kvm stat: exit 0" [ "$rc" -eq 0 ]
check "perf kvm stat: labelled perf-kvm-stat, 10 s from --seconds" \
    grep -q 'perf-kvm-stat.txt: perf-kvm-stat, span 10.000000 s (--seconds), 3 exit reasons' "$tmp/out"
check "HLT: 100, 57.14%, 10.00/s, 99.00% of the time, mean 990us, min 50us, max 2ms" \
    has HLT "HLT 100 57.14% 10.00 99.00% 990us 50us - - 2ms"
check "PAUSE_INSTRUCTION: 50, 5.00/s, mean 10us, min 500ns, max 40us" \
    has PAUSE_INSTRUCTION "PAUSE_INSTRUCTION 50 28.57% 5.00 0.50% 10us 500ns - - 40us"
check "PLE exits 50 at 5.00/s" grep -q '^  PLE exits 50 (5.00/s)' "$tmp/out"
run trace import "$D/perf-kvm-stat.txt"
check "without --seconds: no rate, and it says why" sh -c "grep -q '(rate/s: give --seconds' '$tmp/out' && \
    awk '\$1 == \"HLT\" && \$4 == \"-\" { f = 1 } END { exit !f }' '$tmp/out'"

# lock_stat: per class acquisitions, contentions, wait and hold (README of the
# fixtures: zone lock 1,000 / 200, hold 2,000 us, wait 400 us; maxima 10 us, 30 us).
run trace import "$D/lock_stat.txt" --seconds 10ms
check "lock_stat: two classes, most contended first" \
    sh -c "grep -A3 '^lock classes (/proc/lock_stat): 2, most contended first; over 10ms' '$tmp/out' | sed -n 3p | grep -q '&zone->lock'"
check "&zone->lock: 1000, 200, 20.00%, 1e5/s, wait 400us avg 2us max 10us, hold 2ms avg 2us max 30us" \
    has '&zone->lock' "&zone->lock 1000 200 20.00% 100000 400us 2us 10us 2ms 2us 30us"
check "tasklist_lock-W: never contended, no wait figures; hold 500us avg 5us" \
    has tasklist_lock-W "tasklist_lock-W 100 0 0.00% 10000 - - - 500us 5us 20us"
check "no vCPU block for a lock_stat" sh -c "! grep -q '^overall' '$tmp/out'"

# A guest's trace-cmd text: per CPU and per task, and the contention waits
# (fixture: worker runs 1 ms, blocks 1 ms; CPU 1 idles 5 of 10 ms; waits 2 us, 4 us).
run trace import "$D/guest-sched.txt" --guest
check "guest trace-cmd text: labelled trace-cmd" grep -q 'guest-sched.txt: trace-cmd, span 0.010000 s' "$tmp/out"
check "CPU 1: 11 switches, busy 50%" has 1 "1 11 50.00% 50.00%"
check "worker: 2 threads, 10 switches, none preempted, 10 blocks, 50% of the CPUs, runs and blocks of 1ms, population 2" \
    has worker "worker 2 10 0 10 50.00% 1ms 1ms 2"
check "lock 0xffff888100001000: SPIN, 2 waits, 6us in all, 3us avg, 2us min, 4us max" \
    has 0xffff888100001000 "0xffff888100001000 SPIN 2 6us 3us 2us 4us"

# Sample P1, a perf script text recorded for the project: labelled as such; its
# figures against what awk counts in the file itself.
run trace import "$P1" --guest --out "$tmp/p1.yaml"
check "P1: exit 0, labelled perf-script" sh -c "[ $rc -eq 0 ] && grep -q 'sched-messaging.txt: perf-script, span 0.066515 s, 5031 events' '$tmp/out'"
for c in 0 1; do
	n=$(awk -v c="[00$c]" '$3 == c && /sched:sched_switch:/ { n++ } END { print n + 0 }' "$P1")
	check "P1: CPU $c has the file's $n switches" sh -c "awk -v n=$n '\$1 == \"$c\" { f = \$2 == n } END { exit !f }' '$tmp/out'"
done
check "P1: 2111 switches and 1526 wakeups in all" grep -q '2 CPUs over 66.515ms, 2111 switches, 1526 wakeups' "$tmp/out"
check "P1: the benchmark's 80 threads in one task group, the most CPU first" \
    sh -c "grep -A1 '^  task (by comm)' '$tmp/out' | awk 'NR == 2 && \$1 == \"sched-messaging\" && \$2 == 80 { f = 1 } END { exit !f }'"
idle=$(awk '/^  idle_share:/ { printf "%.2f%%", 100 * $2 }' "$tmp/p1.yaml")
check "P1: the idle share printed is the YAML's ($idle)" sh -c "awk '\$1 == \"all\" { f = \$4 == \"$idle\" } END { exit !f }' '$tmp/out'"
nb=$(grep -c ': lock:contention_begin:' "$P1")
check "P1: the file's $nb contention waits, on 83 locks" grep -q "^lock contention (lock:contention_begin/end): $nb waits on 83 locks" "$tmp/out"
top=$(awk '/: lock:contention_begin:/ { print $6 }' "$P1" | sort | uniq -c | sort -rn | awk 'NR == 1 { print $2, $1 }')
check "P1: the most waited-on lock and its count ($top)" \
    sh -c "grep -A2 '^lock contention' '$tmp/out' | awk 'NR == 3 { f = \$1 \" \" \$3 == \"$top\" } END { exit !f }'"
check "P1: 20 lock rows, the rest counted" grep -q '^  (63 locks more, less total wait; all in --out)' "$tmp/out"
check "--out names its layout's file" grep -q '^# Format: sim/trace/trace_in.h\.' "$tmp/p1.yaml"
run trace import "$D/perf-script-kvm.txt"
check "a host perf script is labelled perf-script too" grep -q 'perf-script-kvm.txt: perf-script,' "$tmp/out"

# Sample X1: exits by reason with mean, min, max (HLT 391 exits over 3.4945 s).
run trace import "$X1"
check "X1: HLT overall 391, 6.66%, 111.89/s, 99.82% of the exit time" \
    sh -c "sed -n '/^overall/,\$p' '$tmp/out' | awk '\$1 == \"HLT\" { f = \$2 == 391 && \$3 == \"6.66%\" && \$4 == \"111.89\" && \$5 == \"99.82%\" } END { exit !f }'"
check "X1: a dom0 vCPU (PV, no exits) prints no exit table" \
    sh -c "sed -n '/^d0v0:/,/^\$/p' '$tmp/out' | grep -q 'exits' && exit 1 || exit 0"

e2e_finish
