#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_trace.sh - `vlocksim run --trace` and `trace import --measured` from the
# command line (the trace_out details are in check_trace_out.c).
#
# Run by `make check`, or by hand: top_srcdir=. top_builddir=. sh tests/e2e_trace.sh
# One line per check, then "N passed, M failed"; exit 0 / 1, 77 without a binary.

. "$(dirname "$0")/e2e_lib.sh"
SC=$top_srcdir/configs/examples/ticket-4threads.yaml
X1=$top_srcdir/traces/xen/xentrace-vmx-credit2-8pcpu.bin

# A trace of the first replication, windowed.
run run "$SC" --reps 2 --set workloads.spin.program[0].loop=2000 \
    --trace "$tmp/a.json" --trace-window 0:200us --no-wall-clock
check "run --trace exits 0" [ "$rc" -eq 0 ]
check "the trace is written" [ -s "$tmp/a.json" ]
check "it starts as Chrome trace JSON" grep -q '^{"displayTimeUnit":"ns","traceEvents":\[' "$tmp/a.json"
if command -v python3 >/dev/null 2>&1; then
	check "python3 json parses it, every event inside the window" python3 -c '
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
assert any(e["ph"] == "X" for e in ev)
assert all(e["ts"] + e.get("dur", 0) <= 200.0 for e in ev)' "$tmp/a.json"
fi
run run "$SC" --reps 2 --set workloads.spin.program[0].loop=2000 \
    --trace "$tmp/b.json" --trace-window 0:200us --no-wall-clock
check "same run, same bytes" cmp -s "$tmp/a.json" "$tmp/b.json"

# Bad input: exit 2, nothing written.
run run "$SC" --trace "$tmp/c.json" --trace-window 20ms:10ms
check "a backwards window exits 2" [ "$rc" -eq 2 ]
check "and writes nothing" [ ! -e "$tmp/c.json" ]
run run "$SC" --trace-window 0:1ms
check "--trace-window without --trace exits 2" [ "$rc" -eq 2 ]
run run "$SC" --trace "$tmp/d.json" --set vms[0].vcpus=-1
check "a scenario error writes no trace" [ "$rc" -eq 2 ] && [ ! -e "$tmp/d.json" ]
run run "$SC" --set workloads.spin.program[0].loop=100 --trace "$tmp/nodir/e.json"
check "an unwritable trace path exits 1" [ "$rc" -eq 1 ]

# A measured table from a real trace (sample X1, shipped in traces/).
check "sample X1 is in the tree (traces/README.md)" [ -r "$X1" ]
run trace import "$X1" --measured "$tmp/x1.csv" --setup X1 --note "licence: test"
check "trace import --measured exits 0" [ "$rc" -eq 0 ]
check "the table has the measured header" grep -q '^setup,variant,metric,unit,mean,sd,n$' "$tmp/x1.csv"
check "provenance: the note and the command" sh -c "grep -q '^# licence: test' '$tmp/x1.csv' && grep -q '^# produced by: vlocksim trace import' '$tmp/x1.csv'"
check "the source line names the trace as given" grep -q "^# source: $X1 (xentrace" "$tmp/x1.csv"
check "d14's running share is the trace's (8.848%)" grep -q '^X1,d14.running_share,d14.running_share,%,8.848' "$tmp/x1.csv"
check "d14's HLT rate (391 exits / 3.4945 s)" grep -q '^X1,d14.hlt_exits_per_sec,d14.hlt_exits_per_sec,1/s,111.88' "$tmp/x1.csv"
check "a PV dom0 gets no exit-rate rows" sh -c "! grep -q '^X1,d0.hlt_exits' '$tmp/x1.csv'"
check "the shipped x1_trace.csv holds the same rows" sh -c "grep -v '^#' '$tmp/x1.csv' > '$tmp/a'; grep -v '^#' '$top_srcdir/validation/measured/x1_trace.csv' > '$tmp/b'; cmp -s '$tmp/a' '$tmp/b'"
run trace import "$X1" --measured "$tmp/y.csv"
check "--measured without --setup exits 2" [ "$rc" -eq 2 ]

# The validation plots' footers name files of the tree: the measured table and
# the trace it came from, never ../shared.
if command -v gnuplot >/dev/null 2>&1; then
	run validate x1 --reps 1 -j 1 --out "$tmp/vx1"
	check "validate x1 exits 0" [ "$rc" -eq 0 ]
	check "x1's footer: validation/measured/x1_trace.csv - traces/xen/..." \
	    grep -q 'measured: validation/measured/x1_trace.csv - traces/xen/xentrace-vmx-credit2-8pcpu.bin' "$tmp/vx1/x1.svg"
	check "no footer names ../shared" sh -c "! grep -q 'shared/' '$tmp/vx1/x1.svg'"
else
	skip "validation footers: no gnuplot"
fi

# The README's timeline example: its window shows what the text tells (kicks
# down the queue, HLT exits, vCPUs changing runstate), not 100 us of bars that
# never change (40ms:40.1ms had no mark and no runstate change).
TLW=36.99ms:37.05ms
check "the README's timeline example is this window ($TLW)" \
    grep -q -- "--trace-window $TLW" "$top_srcdir/README.md"
if command -v gnuplot >/dev/null 2>&1; then
	run run "$top_srcdir/configs/examples/locks-overcommit.yaml" --reps 1 \
	    --set duration=60ms --timeline "$tmp/tl.png" --trace-window "$TLW"
	check "the example runs" [ "$rc" -eq 0 -a -s "$tmp/tl.png.dat" ]
	# bars: x0 x1 y kind (0-3 runstates); marks: x y kind (0 HLT, 4 kick)
	awk -v a=36990 -v b=37050 '/^# marks/ { m = 1 }
	    !m && NF == 4 && $4 <= 3 && ($1 > a + 0.001 || $2 < b - 0.001) { rs++ }
	    m && NF == 3 && $3 == 4 { kick++ } m && NF == 3 && $3 == 0 { hlt++ }
	    END { printf "%d %d %d\n", rs + 0, kick + 0, hlt + 0 }' "$tmp/tl.png.dat" > "$tmp/tlc"
	check "its window holds runstate changes, 6 kicks, HLT exits ($(cat "$tmp/tlc"))" \
	    awk '{ exit !($1 >= 10 && $2 >= 6 && $3 >= 5) }' "$tmp/tlc"
else
	skip "the README's timeline example: no gnuplot"
fi

# The kernel profile of a perf recording (issue 28; the sample is an excerpt of
# bench/profile/record.sh's kernel build).
KP=$top_srcdir/tests/data/traces/perf-script-kbuild.txt
run trace import "$KP" --guest --profile "$tmp/kp.yaml"
check "trace import --profile exits 0" [ "$rc" -eq 0 ]
check "the summary prints the kernel profile" grep -q '^kernel profile: ' "$tmp/out"
check "the profile names rq->__lock with 5 contentions" \
    sh -c "grep -A4 '\"rq->__lock\":' '$tmp/kp.yaml' | grep -q 'contentions: 5\$'"
run trace import "$top_srcdir/tests/data/traces/kvm-raw.txt" --profile "$tmp/kp2.yaml"
check "a trace without profile events: --profile exits 2, writes nothing" \
    [ "$rc" -eq 2 ] && [ ! -e "$tmp/kp2.yaml" ]

e2e_finish
