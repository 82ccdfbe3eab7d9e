#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_lab.sh - `vlocksim lab` end to end on a short run: lockbench measured
# here, the case written, the fit on the declared row only, every other row
# predicted, the table and the plot.  The numbers are not asserted (the
# machine running the tests may be busy: --force), the files and rows are.
. "$(dirname "$0")/e2e_lib.sh"
if [ ! -x "$top_builddir/bench/lab/lockbench" ]; then
	echo "skip: lockbench not built"
	exit 77
fi
O=$tmp/lab
short="--force --wait 0 --sim-duration 5ms --sim-reps 1 --probe-time 0.1s -j 1"
bench="-- --duration 0.02 --warmup 0.005 --reps 2 --threads 1,2 --locks ticket,mutex"

# shellcheck disable=SC2086
run lab --out "$O" $short --calibrate ticket/t2 $bench
check "lab exits 0" [ "$rc" -eq 0 ]
for f in lab.txt measured.csv case.yaml scenario.yaml calibration.yaml calibrated.yaml \
    machine.yaml lockbench.csv lockbench-threads.csv lab-table.csv validation.csv \
    row-t1-ticket.yaml row-t2-mutex.yaml; do
	check "$f written" [ -s "$O/$f" ]
done
if command -v gnuplot >/dev/null 2>&1; then
	check "the plot: lab.png" [ -s "$O/lab.png" ]
fi
check "measured.csv: 4 throughput rows, 2 wait rows" sh -c "
	[ \$(grep -c '^t[12],\(ticket\|mutex\),ops_per_sec,1/s,' '$O/measured.csv') -eq 4 ] &&
	[ \$(grep -c '^t2-wait,\(ticket\|mutex\),wait_mean_ns,ns,' '$O/measured.csv') -eq 2 ]"
check "measured.csv: provenance (kernel, VM or not, load before and during)" sh -c "
	grep -q '^# machine: .*kernel $(uname -r)' '$O/measured.csv' &&
	grep -q '^# machine: .*\\(a VM\\|bare metal\\)' '$O/measured.csv' &&
	grep -q '^# load before' '$O/measured.csv' && grep -q '^# load during' '$O/measured.csv'"
check "the scenario is bare metal under the running kernel's scheduler" sh -c "
	grep -q '^  kind: none\$' '$O/scenario.yaml' &&
	grep -q '^  scheduler: \\(eevdf\\|cfs\\)\$' '$O/scenario.yaml'"
case $(uname -r) in
[7-9].* | 6.1[5-9]* | 6.[2-9][0-9]*) slice=0.7ms ;;
*) slice=0.75ms ;;
esac
if grep -q '^  scheduler: eevdf$' "$O/scenario.yaml"; then
	check "the scenario: EEVDF's base slice of $(uname -r) ($slice)" \
		grep -q "^  params: {hz: [0-9]*, base_slice: $slice[,}]" "$O/scenario.yaml"
fi
# (on a busy machine the loop can time shorter than its section and a clock
# read, timed apart: then the nominal timing, checked below)
check "the scenario's loop: lockbench's own, measured with no lock" sh -c "
	grep -q '^          # lockbench.s loop measured with no lock: ' '$O/scenario.yaml' &&
	grep -q '^          - compute: [0-9.]*ns   # t2 - t1 + the clock read' '$O/scenario.yaml' ||
	grep -q '^          # and a clock read .*: noise of a busy machine' '$O/scenario.yaml'"
# the model's run leaves out lockbench's warm-up (--warmup 0.005 above), then
# simulates the lab's duration
check "scenario: lockbench's warm-up, then the duration" sh -c "
	grep -q '^# warmup_s: 0.005\$' '$O/lockbench.csv' &&
	grep -q '^warmup: 5ms  *# lockbench.s --warmup' '$O/scenario.yaml' &&
	grep -q '^duration: 5ms\$' '$O/scenario.yaml'"
check "the case: one calibration row, the declared one" sh -c "
	[ \$(grep -c 'role: calibration' '$O/case.yaml') -eq 1 ] &&
	grep -q '{row: t2/ticket, role: calibration}' '$O/case.yaml'"
check "the fit read the declared row only" \
	grep -q '^# Calibration rows (the only measured values read): lab:t2/ticket\.$' "$O/calibrated.yaml"
check "validation.csv: 6 rows, 1 calibration" sh -c "
	[ \$(grep -c '^lab,' '$O/validation.csv') -eq 6 ] &&
	[ \$(grep -c '^lab,[^,]*,calibration,' '$O/validation.csv') -eq 1 ]"
check "lab.txt: the table with the fit" sh -c "
	grep -q '^# fit: machine.costs.line_socket = ' '$O/lab.txt' &&
	grep -q '^t2/mutex  *prediction ' '$O/lab.txt'"
check "stdout is lab.txt and where it went" sh -c "
	grep -q '^written to $O' '$tmp/out' && grep -q '^t1/ticket ' '$tmp/out'"
run validate "$O/case.yaml" --out "$tmp/v" -j 1
check "the case validates on its own" [ "$rc" -eq 0 ]
run run "$O/row-t2-ticket.yaml" --reps 1 --set duration=2ms
check "a row's scenario runs on its own" grep -q '^host.ops_per_sec ' "$tmp/out"

# A loop timed shorter than its section and a clock read (the busy machine's
# noise; lockbench times clock_ns apart) made a negative compute, which the
# scenario refused (exit 1, "out of range"): the nominal timing instead.
printf '#!/bin/sh\n"%s" "$@" | sed "s/^# loop_ns: .*/# loop_ns: 5.00/"\n' \
	"$top_builddir/bench/lab/lockbench" >"$tmp/noisy-lockbench"
chmod +x "$tmp/noisy-lockbench"
run lab --out "$tmp/noisy" $short --calibrate ticket/t2 --lockbench "$tmp/noisy-lockbench" \
	-- --duration 0.02 --warmup 0.005 --reps 1 --threads 1,2 --locks ticket
check "a loop shorter than its section: exit 0, the nominal timing, said so" sh -c "
	[ $rc -eq 0 ] && grep -q '^# loop_ns: 5.00\$' '$tmp/noisy/lockbench.csv' &&
	grep -q '^          # lockbench.s loop (5.00 ns) was not longer than its section' \
	    '$tmp/noisy/scenario.yaml' &&
	grep -q '^          - compute: [0-9.]*ns   # hold [0-9.]* ns + 2 clock reads' \
	    '$tmp/noisy/scenario.yaml'"

# Honesty: a prediction row's measured value feeds nothing; change it and
# the fitted value and every prediction stay the same.
cp -r "$O" "$tmp/lab2"
sed -i 's/^t2,mutex,ops_per_sec,1\/s,[0-9.]*,/t2,mutex,ops_per_sec,1\/s,1234.5,/' \
	"$tmp/lab2/measured.csv"
"$VS" calibrate "$tmp/lab2/calibration.yaml" --output "$tmp/lab2/calibrated.yaml" \
	>/dev/null 2>&1
"$VS" validate "$tmp/lab2/case.yaml" --out "$tmp/v2" -j 1 >/dev/null 2>&1
check "a prediction row's measurement moves neither the fit nor any prediction" sh -c "
	grep '^  - \"machine' '$O/calibrated.yaml' > '$tmp/s1' &&
	grep '^  - \"machine' '$tmp/lab2/calibrated.yaml' > '$tmp/s2' && cmp -s '$tmp/s1' '$tmp/s2' &&
	grep '^lab,' '$tmp/v/validation.csv' | cut -d, -f2,8 > '$tmp/p1' &&
	grep '^lab,' '$tmp/v2/validation.csv' | cut -d, -f2,8 > '$tmp/p2' &&
	[ -s '$tmp/p1' ] && cmp -s '$tmp/p1' '$tmp/p2'"

# Bad options: exit 2 before anything runs, no folder.
run lab --out "$tmp/bad" --calibrate ticket
check "--calibrate ticket (no /tN): exit 2" [ "$rc" -eq 2 ]
run lab --out "$tmp/bad" --locks ticket
check "lockbench's options without --: exit 2" [ "$rc" -eq 2 ]
run lab --out "$tmp/bad" --wait 0 -- --threads 0
check "--threads 0 (lockbench refuses): exit 2, nothing written" \
	sh -c "[ $rc -eq 2 ] && [ ! -e '$tmp/bad' ]"
# shellcheck disable=SC2086
run lab --out "$tmp/bad" $short --calibrate tas/t2 $bench
check "--calibrate a row lockbench did not run: refused, nothing written" \
	sh -c "[ $rc -ne 0 ] && [ ! -e '$tmp/bad' ] && grep -q 'tas/t2' '$tmp/err'"

# A busy machine is refused (unless --force): the test suite itself keeps
# the load above 0 while it runs, so a limit of 0 refuses; an idle machine
# (load 0.00) has nothing to refuse.
run lab --out "$tmp/busy" --max-load 0 --max-others 0 --wait 0 -- --threads 1 --locks ticket
if grep -q 'the machine is busy' "$tmp/err"; then
	check "busy machine: refused with exit 1, nothing written" \
		sh -c "[ $rc -eq 1 ] && [ ! -e '$tmp/busy' ]"
else
	skip "the machine was idle: nothing to refuse"
fi

e2e_finish
