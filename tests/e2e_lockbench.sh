#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_lockbench.sh - lockbench (bench/lab/), the lab's real lock benchmark:
# every lock excludes and counts exactly under contention and with more
# threads than CPUs; a lock that does not exclude is caught; the busy loop
# is calibrated (timed in thread CPU time, so a loaded machine does not
# fail it: only a factor of 4 either way is asked).
. "$(dirname "$0")/e2e_lib.sh"
LB=$(cd "$top_builddir" && pwd)/bench/lab/lockbench
if [ ! -x "$LB" ]; then
	echo "skip: $LB not built"
	exit 77
fi
ncpu=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)

# 1, 2 and CPUs+1 threads: contention, and a holder that can be preempted.
over=$((ncpu + 1))
"$LB" --check --iters 500 --threads "1,2,$over" --compute 0 --hold 50 >"$tmp/check" 2>"$tmp/err"
check "--check: every lock excludes and counts exactly (exit 0)" [ $? -eq 0 ]
for l in ticket tas ttas mcs mutex adaptive; do
	n=$(grep -c "^$l,[0-9]*,[0-9]*,[0-9]*,0,ok\$" "$tmp/check")
	check "--check: $l ok at 1, 2 and $over threads" [ "$n" -eq 3 ]
done
check "--check: counts are threads x iters" \
	grep -q "^ticket,2,1000,1000,0,ok\$" "$tmp/check"

# A lock that does not lock must fail the check (sections overlap on two
# CPUs; tried three times, as a preempted thread may let one run pass).
if [ "$ncpu" -ge 2 ]; then
	caught=no
	for i in 1 2 3; do
		if ! "$LB" --check --locks none --threads 4 --iters 100000 --hold 100 \
		    >"$tmp/none" 2>/dev/null; then
			grep -q ',FAIL$' "$tmp/none" && caught=yes && break
		fi
	done
	check "--check: no lock at all is caught (exit 1, FAIL)" [ "$caught" = yes ]
else
	skip "--check catching no lock needs two CPUs"
fi

# The busy loop: 10 ms asked, thread CPU time within a factor 4.
"$LB" --calibrate >"$tmp/cal" 2>"$tmp/err"
check "--calibrate runs" [ $? -eq 0 ]
check "--calibrate: a 10 ms busy loop takes 2.5-40 ms of CPU" awk -F, '
	NR == 2 { ok = $1 > 0 && $3 > 0 && $5 > $4 / 4 && $5 < $4 * 4 }
	END { exit !ok }' "$tmp/cal"

# A short measurement: the CSV's header and columns the lab reads.
"$LB" --locks ticket,mutex --threads 1,2 --duration 0.01 --warmup 0 --reps 2 \
	--per-thread "$tmp/pt.csv" >"$tmp/m.csv" 2>"$tmp/err"
check "a short run exits 0" [ $? -eq 0 ]
check "one row per lock x threads x rep" [ "$(grep -c '^\(ticket\|mutex\),' "$tmp/m.csv")" -eq 8 ]
check "header: clock read cost and loop rate" grep -q '^# clock_ns: [0-9.]*$' "$tmp/m.csv"
check "header: its own loop with no lock, longer than compute + hold, its section longer than hold" \
	awk '/^# loop_ns: / { l = $3 } /^# section_ns: / { s = $3 }
	    END { exit !(l > 400 && s > 200 && l > s) }' "$tmp/m.csv"
check "columns: throughput, fairness, hand-over, run delay, load, steal, idle, valid" \
	grep -q '^lock,threads,rep,seconds,acquisitions,ops_per_sec,jain,min_share,max_share,wait_mean_ns,handovers,handover_mean_ns,handover_p50_ns,handover_p99_ns,hold_mean_ns,run_delay_share,cs_per_sec,ivcs_per_sec,load1_before,load1_after,others_cpu,steal,idle_cpu,iters_per_ns,valid$' "$tmp/m.csv"
check "every run valid" awk -F, '/^(ticket|mutex),/ && $NF != 1 { bad = 1 } END { exit bad }' "$tmp/m.csv"
check "per-thread rows: 1 + 2 threads x 2 locks x 2 reps" \
	[ "$(grep -c '^\(ticket\|mutex\),' "$tmp/pt.csv")" -eq 12 ]
check "--list: each lock and the vlocksim lock it stands for" \
	sh -c "'$LB' --list | grep -q '^mcs,\"qspinlock\",'"

# Bad options: exit 2, nothing run.
"$LB" --threads 0 >/dev/null 2>"$tmp/err"
check "--threads 0: exit 2" [ $? -eq 2 ]
"$LB" --locks nosuch >/dev/null 2>"$tmp/err"
check "--locks nosuch: exit 2, named" sh -c "[ $? -eq 2 ] && grep -q nosuch '$tmp/err'"

e2e_finish
