#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_kill.sh - SIGINT, SIGTERM and SIGKILL in the middle of `run --out`,
# `validate --out` and `sweep` (issue 29), then the same command again: the
# killed one left no --out (a sweep: only whole points), the next one writes
# the bytes of an uninterrupted run (a sweep resumes: only the missing
# points), and no staging folder of the killed process is left behind.
# The kill follows the stage at once (10 ms polls, no sleep) and the killed
# commands run for tenths of a second on an idle machine, so that a fast
# machine does not finish them first.
#
# Run by `make check`, or by hand: top_srcdir=. top_builddir=. sh tests/e2e_kill.sh

. "$(dirname "$0")/e2e_lib.sh"

base=$DATA/base.yaml
# run: 12 replications of 60000 lock round trips (about 0.05 s each alone)
R="run $base --reps 12 --set workloads.spin.program[0].loop=60000 --no-wall-clock"
# validate: the test case with 30 times the loops, 48 replications (seconds)
cp -r "$DATA/valid" "$tmp/valid"
chmod -R u+w "$tmp/valid"
sed -i 's/loop=200"/loop=6000"/; s/loop=400"/loop=12000"/' "$tmp/valid/cases/synthetic.yaml"
V="validate --cases $tmp/valid/cases --reps 144"
# sweep: 4 points of 2 replications of 100000 round trips
S="sweep $base --reps 2 --set workloads.spin.program[0].loop=100000 -j 1
    --vary vms[0].vcpus=1:4:1"

# started CMD...: run it in the background ($bgpid); output in $tmp/k.out, k.err.
# A background job of a script starts with SIGINT ignored; env gives it back
# the default, as a terminal's Ctrl-C finds it (skipped where env cannot).
dflt=
env --default-signal=INT true 2>/dev/null && dflt="env --default-signal=INT"
started() {
	$dflt "$VS" "$@" >"$tmp/k.out" 2>"$tmp/k.err" &
	bgpid=$!
}

# until_there PATTERN: wait (at most 20 s) until a path matching PATTERN exists
until_there() {
	i=0
	while [ "$i" -lt 2000 ] && ! ls -d $1 >/dev/null 2>&1; do
		sleep 0.01
		i=$((i + 1))
	done
}

# worker_unlocked DIR: a worker of $bgpid (a child named vlocksim: not gnuplot,
# which the close-on-exec descriptor never reaches) that holds no copy of
# DIR/.sweep.lock appears (at most 20 s).  A flock belongs to the open file, so a
# worker's copy would keep the folder locked after its master was killed, until
# the worker died too: on a loaded machine the re-run came first and was
# refused ("another sweep (pid N) is using this folder").
worker_unlocked() {
	i=0
	while [ "$i" -lt 2000 ]; do
		for c in $(cat /proc/[0-9]*/status 2>/dev/null |
		    awk -v pp="$bgpid" '/^Name:/ { name = $2 } /^Pid:/ { pid = $2 }
			/^PPid:/ && $2 == pp && name == "vlocksim" { print pid }'); do
			l=$(ls -l "/proc/$c/fd" 2>/dev/null) || continue
			echo "$l" | grep -q '\.sweep\.lock' || return 0
		done
		sleep 0.01
		i=$((i + 1))
	done
	return 1
}

# killed SIG: send SIG to $bgpid; krc its status (128 + signal when it died of it)
killed() {
	kill -s "$1" "$bgpid" 2>/dev/null
	wait "$bgpid"
	krc=$?
	bgpid=
}

# The references, uninterrupted.
# shellcheck disable=SC2086
run $R --out "$tmp/r-ref"
check "run --out (reference) exits 0" [ "$rc" -eq 0 ]
# shellcheck disable=SC2086
run $V --out "$tmp/v-ref"
check "validate --out (reference) exits 0" [ "$rc" -eq 0 ]
# shellcheck disable=SC2086
run $S --out "$tmp/s-ref"
check "sweep (reference) exits 0" [ "$rc" -eq 0 ]

sigs="INT TERM KILL"
[ -n "$dflt" ] || { sigs="TERM KILL"; skip "SIGINT: env has no --default-signal"; }
for sig in $sigs; do
	case $sig in INT) n=2 ;; TERM) n=15 ;; KILL) n=9 ;; esac
	# run --out: the stage exists from before the first replication
	# shellcheck disable=SC2086
	started $R --out "$tmp/r-$sig"
	until_there "$tmp/r-$sig.tmp.*"
	killed "$sig"
	check "run --out, SIG$sig mid-run: died of it ($krc), no --out" \
	    sh -c "[ $krc -eq $((128 + n)) ] && [ ! -e '$tmp/r-$sig' ]"
	# shellcheck disable=SC2086
	run $R --out "$tmp/r-$sig"
	check "run --out again after SIG$sig: exit 0, the reference's bytes, no stage left" \
	    sh -c "[ $rc -eq 0 ] && cmp -s '$tmp/r-ref/results.csv' '$tmp/r-$sig/results.csv' &&
	    cmp -s '$tmp/r-ref/results.json' '$tmp/r-$sig/results.json' &&
	    ! ls -d '$tmp/r-$sig'.tmp.* >/dev/null 2>&1"

	# shellcheck disable=SC2086
	started $V --out "$tmp/v-$sig"
	until_there "$tmp/v-$sig.tmp.*"
	killed "$sig"
	check "validate --out, SIG$sig mid-run: died of it ($krc), no --out" \
	    sh -c "[ $krc -eq $((128 + n)) ] && [ ! -e '$tmp/v-$sig' ]"
	# shellcheck disable=SC2086
	run $V --out "$tmp/v-$sig"
	check "validate --out again after SIG$sig: exit 0, the reference's bytes, no stage left" \
	    sh -c "[ $rc -eq 0 ] && cmp -s '$tmp/v-ref/validation.csv' '$tmp/v-$sig/validation.csv' &&
	    cmp -s '$tmp/v-ref/validation.txt' '$tmp/v-$sig/validation.txt' &&
	    ! ls -d '$tmp/v-$sig'.tmp.* >/dev/null 2>&1"

	# sweep: killed once a point is done; the re-run runs only the others
	# shellcheck disable=SC2086
	started $S --out "$tmp/s-$sig"
	until_there "$tmp/s-$sig/points/[0-9]*.csv"
	if [ "$sig" = KILL ] && [ -d /proc/self/fd ]; then
		check "sweep: its running worker holds no copy of the folder's lock" \
		    worker_unlocked "$tmp/s-$sig"
	fi
	killed "$sig"
	np=$(ls "$tmp/s-$sig/points" 2>/dev/null | grep -c '^[0-9]*\.csv$')
	check "sweep, SIG$sig mid-run: died of it ($krc) with $np of 4 points, no results.csv" \
	    sh -c "[ $krc -eq $((128 + n)) ] && [ $np -ge 1 ] && [ $np -lt 4 ] &&
	    [ ! -e '$tmp/s-$sig/results.csv' ]"
	# shellcheck disable=SC2086
	run $S --out "$tmp/s-$sig"
	check "sweep again after SIG$sig: resumes ($((4 - np)) run now, $np already done), the reference's bytes" \
	    sh -c "[ $rc -eq 0 ] && grep -q '^sweep: 4 points ($((4 - np)) run now, $np already done)' '$tmp/out' &&
	    cmp -s '$tmp/s-ref/results.csv' '$tmp/s-$sig/results.csv'"
done
e2e_finish
