#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_limits.sh - --max-events and --timeout in every command that simulates
# (run, sweep, validate, calibrate, lab; issue 29): a run stopped at a limit
# makes the command exit 4 (CMD_EXIT_STOPPED) with the run's message, and
# nothing is half-written.  Under mpirun a point or row stopped on another
# rank exits 4 too (the stop crosses the rank's result message).  trace
# scenario simulates nothing and takes neither option.
#
# Run by `make check`, or by hand: top_srcdir=. top_builddir=. sh tests/e2e_limits.sh

. "$(dirname "$0")/e2e_lib.sh"
export SOURCE_DATE_EPOCH=1700000000	# calibrate's date line
base=$DATA/base.yaml	# loop 2000: 16025 events a replication; loop 10: 105
stopmsg='run stopped at .* --max-events 50 reached; the last task to run: VM '

# stopped DESC: exit 4 and the stop's message on stderr
stopped() {
	if [ "$rc" -eq 4 ]; then ok "$1: exit 4"; else notok "$1: exit 4 (got $rc)"; show "$tmp/err"; fi
	check "$1: says which limit and where" grep -q "$stopmsg" "$tmp/err"
}

# ---- run ------------------------------------------------------------------------
run run "$base" --max-events 50 --out "$tmp/run" --trace "$tmp/run.json" \
    --lock-stat "$tmp/run.ls"
stopped "run"
check "run: no --out folder, no stage, no trace, no lock_stat" \
    [ -z "$(ls "$tmp" | grep '^run')" ]
check "run: nothing on stdout" [ ! -s "$tmp/out" ]
run run "$base" --max-events 16025 --reps 1
check "run: a replication of exactly --max-events events is whole (exit $rc)" [ "$rc" -eq 0 ]

# ---- sweep ----------------------------------------------------------------------
# Point 0 (10 loops) fits in 200 events, point 1 (2000 loops) does not.
run sweep "$base" --vary 'workloads.spin.program[0].loop=10,2000' --max-events 200 \
    -j 2 --out "$tmp/sw"
if [ "$rc" -eq 4 ]; then ok "sweep: a point stopped: exit 4"; else notok "sweep: a point stopped: exit 4 (got $rc)"; show "$tmp/err"; fi
check "sweep: the message names the point" \
    grep -q 'max-events 200 reached.*\[sweep point 1: ' "$tmp/err"
check "sweep: the finished point kept whole, the stopped one absent, no results.csv" \
    sh -c "[ -s '$tmp/sw/points/00000.csv' ] && [ ! -e '$tmp/sw/points/00001.csv' ] &&
	[ ! -e '$tmp/sw/results.csv' ] && [ -z \"\$(ls '$tmp/sw/points' | grep tmp)\" ]"
run sweep "$base" --vary 'workloads.spin.program[0].loop=10,2000' -j 2 --out "$tmp/sw"
check "sweep: the re-run without the limit resumes (1 point run now)" \
    sh -c "[ $rc -eq 0 ] && grep -q '^sweep: 2 points (1 run now, 1 already done)' '$tmp/out'"
# A limit smaller than the events at time 0 stops the check every point gets
# before anything runs (its dry run).
run sweep "$base" --vary 'seed=1,2' --max-events 1 --out "$tmp/sw1"
if [ "$rc" -eq 4 ]; then ok "sweep: stopped in the dry run: exit 4"; else notok "sweep: stopped in the dry run: exit 4 (got $rc)"; show "$tmp/err"; fi
check "sweep: the dry run's stop writes nothing" [ ! -e "$tmp/sw1" ]

# ---- validate -------------------------------------------------------------------
cp -r "$DATA/valid" "$tmp/v"
chmod -R u+w "$tmp/v"
run validate synthetic --cases "$tmp/v/cases" --max-events 50 -j 2 --out "$tmp/val"
stopped "validate"
check "validate: no --out folder, no stage, nothing on stdout" \
    sh -c "[ -z \"\$(ls '$tmp' | grep '^val')\" ] && [ ! -s '$tmp/out' ]"
# The engine looks at the clock every 2^20 events: a 1 ns timeout stops the
# first run that gets there (loops400: 400000 loops, 1.6 M events, without the
# ring fast-forward that would take them in a few), whatever the machine's speed.
sed 's/loop=400"/loop=400000", "fast_forward=false"/' "$tmp/v/cases/synthetic.yaml" \
    >"$tmp/v/cases/long.yaml"
run validate long --cases "$tmp/v/cases" -j 1 --out "$tmp/valt" --timeout 1ns
if [ "$rc" -eq 4 ]; then ok "validate --timeout: exit 4"; else notok "validate --timeout: exit 4 (got $rc)"; show "$tmp/err"; fi
check "validate --timeout: says so, nothing written" sh -c "
	grep -q 'after 1048576 events: --timeout .* of wall time reached' '$tmp/err' &&
	[ -z \"\$(ls '$tmp' | grep '^valt')\" ]"

# ---- calibrate ------------------------------------------------------------------
(cd "$tmp/v" && "$VS" calibrate calib.yaml --cases cases -j 2 --max-events 50 \
    --output "$tmp/cal.yaml" >"$tmp/out" 2>"$tmp/err")
rc=$?
stopped "calibrate"
check "calibrate: no fit written, nothing on stdout" \
    sh -c "[ -z \"\$(ls '$tmp' | grep '^cal')\" ] && [ ! -s '$tmp/out' ]"

# ---- lab (its simulation part: the fit and the predictions) ---------------------
if [ -x "$top_builddir/bench/lab/lockbench" ]; then
	run lab --out "$tmp/lab" --force --wait 0 --sim-duration 5ms --sim-reps 1 \
	    --probe-time 0.1s -j 1 --calibrate ticket/t2 --max-events 50 -- --duration 0.02 \
	    --warmup 0.005 --reps 2 --threads 1,2 --locks ticket
	stopped "lab"
	check "lab: no --out folder; the measurement kept where it says" sh -c "
		[ ! -e '$tmp/lab' ] && grep -q 'the measurement is kept in $tmp/lab.tmp.' '$tmp/err'"
else
	skip "lab: exit 4 (lockbench not built)"
fi

# ---- trace scenario simulates nothing -------------------------------------------
run trace scenario "$DATA/traces/guest/guest-sched.txt" --machine "$top_srcdir/configs/machines/x5570.yaml" \
    --out "$tmp/ts.yaml" --max-events 50
check "trace scenario takes no --max-events (exit 2)" [ "$rc" -eq 2 ]

# ---- under mpirun: a stop on rank 1 reaches rank 0 -------------------------------
if grep -q '^#define HAVE_MPI 1' "$top_builddir/config.h" 2>/dev/null &&
    command -v mpirun >/dev/null 2>&1; then
	mpi_setup
	# Rank 0 waits for rank 1 before the first job: point 0 runs on rank 0's
	# worker, point 1 on rank 1's, and only point 1 stops.
	timeout -k 5 120 $MPIRUN -np 2 "$VS" sweep "$base" -j 1 --max-events 200 \
	    --vary 'workloads.spin.program[0].loop=10,2000' --out "$tmp/swm" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -eq 4 ]; then ok "sweep -np 2, point 1 stopped on rank 1: exit 4"; else notok "sweep -np 2, point 1 stopped on rank 1: exit 4 (got $rc)"; show "$tmp/err"; fi
	check "  point 0 kept, point 1 absent" sh -c "
		[ -s '$tmp/swm/points/00000.csv' ] && [ ! -e '$tmp/swm/points/00001.csv' ]"
	timeout -k 5 120 $MPIRUN -np 2 "$VS" validate synthetic --cases "$tmp/v/cases" -j 1 \
	    --max-events 50 --out "$tmp/valm" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	stopped "validate -np 2"
	check "validate -np 2: nothing written" [ -z "$(ls "$tmp" | grep '^valm')" ]
else
	skip "under mpirun (built without MPI or no mpirun)"
fi

e2e_finish
