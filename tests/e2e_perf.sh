#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_perf.sh - the README's perf recipe, end to end: perf record of a real
# multi-threaded program -> perf script -> `vlocksim trace scenario` -> `run`.
# The part after the recording always runs, on the recording shipped as sample
# P1 (traces/README.md); a fresh recording runs where perf can record, and is
# skipped with perf's reason where it cannot (no perf, no permission, no
# tracepoints: CI machines, containers).
#
# Run by `make check`, or by hand: top_srcdir=. top_builddir=. sh tests/e2e_perf.sh

. "$(dirname "$0")/e2e_lib.sh"
P1=$top_srcdir/traces/perf/sched-messaging.txt
M=$(cd "$top_srcdir" && pwd)/configs/machines/x5570-noht.yaml

# scenario_checks NAME TRACE: trace scenario from TRACE, then a 1x run of it.
scenario_checks() {
	name=$1 trace=$2
	run trace scenario "$trace" --machine "$M" --out "$tmp/$name.yaml" \
	    --measured "$tmp/$name.csv" --setup "$name"
	check "$name: trace scenario exits 0" [ "$rc" -eq 0 ]
	check "$name: the header names the trace and its format" \
	    grep -q "^#   guest trace: $trace (perf-script, " "$tmp/$name.yaml"
	check "$name: the benchmark's threads are one task group with a population" \
	    grep -q '^      - {program: sched-messaging, count: [1-9][0-9]*}' "$tmp/$name.yaml"
	check "$name: its runs and blocks are fitted from the recording" sh -c \
	    "grep -A4 '^      sched-messaging:' '$tmp/$name.yaml' | grep -q 'compute: {dist: .*# run until blocked: sched_switch, [0-9]* runs' && \
	     grep -A4 '^      sched-messaging:' '$tmp/$name.yaml' | grep -q 'block: {dist: .*# blocked until woken'"
	check "$name: no option the command does not have" sh -c "! grep -q -- '--burst' '$tmp/$name.yaml'"
	check "$name: the measured table has the guest's idle share" \
	    grep -q "^$name,traced.guest_idle_share,traced.guest_idle_share,%," "$tmp/$name.csv"
	run run "$tmp/$name.yaml" --reps 1 --no-wall-clock --format csv
	check "$name: the scenario runs" [ "$rc" -eq 0 ]
	check "$name: the 1x run reports the guest's idle share and switches" sh -c \
	    "grep -q '^traced.guest_idle_share,' '$tmp/out' && grep -q '^traced.guest_ctx_switches,' '$tmp/out'"
}

# The shipped recording: always.
scenario_checks P1 "$P1"
check "P1: a task seen to block once, never woken (migration/0), is no CPU hog" sh -c \
    "grep -A4 '^      migration:' '$tmp/P1.yaml' | grep -q 'blocked and not woken before the trace ended'"
check "P1: the idle share recorded (21.5%)" grep -q '^P1,traced.guest_idle_share,traced.guest_idle_share,%,21.53' "$tmp/P1.csv"

# A fresh recording, where this machine lets perf record.
why=""
if ! command -v perf >/dev/null 2>&1; then
	why="perf is not installed"
elif ! perf bench sched messaging -t -g 1 -l 1 >/dev/null 2>&1; then
	why="perf bench sched messaging does not run here"
else
	ev="-e sched:sched_switch -e sched:sched_wakeup"
	# lock:contention_* exist from Linux 5.19; record without them before.
	for extra in "-e lock:contention_begin -e lock:contention_end" ""; do
		# shellcheck disable=SC2086
		if perf record -q -o "$tmp/rec.data" $ev $extra -a -- \
		    perf bench sched messaging -t -g 1 -l 20 >"$tmp/rec.out" 2>"$tmp/rec.err"; then
			why=""
			break
		fi
		why="perf record cannot record here: $(grep -v '^ *$\|^Error:$' "$tmp/rec.err" | head -1)"
	done
fi
if [ -z "$why" ] && ! perf script --ns -i "$tmp/rec.data" >"$tmp/rec.txt" 2>"$tmp/rec.err"; then
	why="perf script failed: $(head -1 "$tmp/rec.err")"
fi
if [ -z "$why" ] && ! grep -q 'sched:sched_switch:' "$tmp/rec.txt"; then
	why="the recording holds no sched_switch (tracepoints not readable)"
fi
if [ -n "$why" ]; then
	skip "fresh perf recording: $why"
else
	check "fresh: perf script text of the benchmark's 40 threads" \
	    grep -q 'sched-messaging' "$tmp/rec.txt"
	scenario_checks fresh "$tmp/rec.txt"
fi

e2e_finish
