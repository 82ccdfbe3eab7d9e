#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_sweep.sh - end-to-end checks of `vlocksim sweep`: kill -9 and resume,
# refusal of other arguments on the same folder, bad input, -j, plots.
#
# Run by `make check` (top_srcdir and top_builddir are exported), or by hand:
#   top_srcdir=. top_builddir=. sh tests/e2e_sweep.sh
# One line per check ("ok - ..." / "not ok - ..."), then "N passed, M failed".
# Exit 0 when every check passed, 1 otherwise, 77 (skip) without a binary.

. "$(dirname "$0")/e2e_lib.sh"

# npoints DIR: finished point files (temp files end in .tmp.PID, not .csv).
npoints() {
	ls "$1/points" 2>/dev/null | grep -c '^[0-9]*\.csv$'
}

base=$DATA/base.yaml
# 6 points of about 0.2 s each (2 reps of 150000 lock round trips).
slow="--set workloads.spin.program[0].loop=150000
    --vary workloads.spin.program[0].do[1].compute.mean=20ns:80ns:30ns
    --vary vms[0].vcpus=3,4"

# ---- an uninterrupted sweep ----------------------------------------------------

run sweep "$base" $slow --out "$tmp/full"
if [ "$rc" -eq 0 ]; then ok "uninterrupted sweep exits 0"; else notok "uninterrupted sweep exits 0"; show "$tmp/err"; fi
check "it reports 6 points run" grep -q '^sweep: 6 points (6 run now, 0 already done)' "$tmp/out"
check "results.csv: a header and 6 rows" [ "$(wc -l <"$tmp/full/results.csv")" -eq 7 ]
check "results.csv header: varied paths, then NAME_mean,NAME_sd,NAME_ci95" \
    grep -q '^workloads.spin.program\[0\].do\[1\].compute.mean,vms\[0\].vcpus,sim_seconds_mean,sim_seconds_sd,sim_seconds_ci95,' \
    "$tmp/full/results.csv"
check "results.csv has no events_per_sec (wall clock)" \
    sh -c "! grep -q events_per_sec '$tmp/full/results.csv'"
check "rows in grid order (first --vary slowest)" [ "$(cut -d, -f1,2 "$tmp/full/results.csv" | tr '\n' ' ')" = \
    "workloads.spin.program[0].do[1].compute.mean,vms[0].vcpus 20ns,3 20ns,4 50ns,3 50ns,4 80ns,3 80ns,4 " ]
check "no progress line when stderr is not a terminal" [ ! -s "$tmp/err" ]
if [ -x /usr/bin/gnuplot ] && grep -q 'GNUPLOT_PATH "/' "$top_builddir/config.h" 2>/dev/null; then
	for ext in png svg; do
		check "default plot sweep-completion_seconds.$ext written" \
		    [ -s "$tmp/full/sweep-completion_seconds.$ext" ]
	done
	check "the PNG is a PNG" sh -c "head -c 4 '$tmp/full/sweep-completion_seconds.png' | grep -q PNG"
	check "the SVG names the metric and unit" \
	    grep -q 'completion_seconds (s)' "$tmp/full/sweep-completion_seconds.svg"
	# The x axis ends near the data, 20-80 ns (it ran to the next tics beyond:
	# a count of 0-3 was drawn from -1 to 4): its tic labels, the numbers
	# gnuplot's SVG centres, lie within 20..80.
	awk '/text-anchor="middle"/ { m = 1; next }
	    m && /<text>/ { s = $0; sub(/.*<text>/, "", s); sub(/<\/text>.*/, "", s)
		if (s ~ /^-?[0-9.]+$/) print s }
	    { m = 0 }' "$tmp/full/sweep-completion_seconds.svg" > "$tmp/xtics"
	check "the x axis ends near the data (tics $(tr '\n' ' ' < "$tmp/xtics"))" \
	    awk 'BEGIN { bad = 1 } { bad = 0 } $1 < 20 || $1 > 80 { bad = 1; exit } END { exit bad }' "$tmp/xtics"
	# The quick start's picture beside each sweep (quickstart.sh draws it with
	# only=): overcommit 1x-4x, not the path vms[1].count; times scaled back
	# x10, so no axis down to the simulated 1/10 times (~16 s); one host.
	# tests/data/quickstart/: columns of the quick start's own results.csv.
	grep -v '^#' "$top_srcdir/validation/measured/seed001_kernbench.csv" | grep -v ',base-sd,' \
	    > "$tmp/measured.csv"
	gnuplot -e "nople='$DATA/quickstart/x5570.csv'; ple='$DATA/quickstart/x7560-ple.csv'; \
	    measured='$tmp/measured.csv'; scale=10; reps=2; only='nople'; out='$tmp/qs'" \
	    "$top_srcdir/plots/kernbench-overcommit.gp" 2> "$tmp/gperr"
	check "quick start, one host: drawn" [ -s "$tmp/qs.svg" -a ! -s "$tmp/gperr" ]
	check "quick start, one host: overcommit 1x-4x on the x axis, not vms[1].count" \
	    sh -c "grep -q '>overcommit (kernbench guest' '$tmp/qs.svg' && grep -q '>4x<' '$tmp/qs.svg' &&
		! grep -q 'vms\[1\]' '$tmp/qs.svg'"
	check "quick start, one host: the X5570's lines alone" \
	    sh -c "grep -q 'on the X5570 (no PLE)' '$tmp/qs.svg' && ! grep -q 'X7560' '$tmp/qs.svg'"
	check "quick start, one host: times scaled back (no axis tic at 10 s)" \
	    sh -c "grep -q '> *100<' '$tmp/qs.svg' && ! grep -q '> *10<' '$tmp/qs.svg'"
else
	echo "ok - plots # SKIP no gnuplot"
fi

# ---- kill -9 mid-run, restart: same bytes, every point exactly once --------------

"$VS" sweep "$base" $slow --out "$tmp/k" -j 1 >"$tmp/kout" 2>"$tmp/kerr" &
bgpid=$!
# (until 2 points are done: at most 300 s, a hang detector, not a time asked)
i=0
while [ "$i" -lt 6000 ] && [ "$(npoints "$tmp/k")" -lt 2 ]; do
	sleep 0.05
	i=$((i + 1))
done
kill -9 "$bgpid" 2>/dev/null
wait "$bgpid" 2>/dev/null
bgpid=
n1=$(npoints "$tmp/k")
check "killed after some points, before the end (got $n1 of 6)" [ "$n1" -ge 2 -a "$n1" -lt 6 ]
check "the killed sweep wrote no results.csv" [ ! -e "$tmp/k/results.csv" ]
left=$(out_outlived "$tmp/k")
check "no worker outlives the killed sweep (${left:+pid }${left:-none} running on)" [ -z "$left" ]
n2=$(npoints "$tmp/k")
check "... and no point came after it ($n1 then $n2)" [ "$n1" -eq "$n2" ]

run sweep "$base" $slow --out "$tmp/k" -j 1
if [ "$rc" -eq 0 ]; then ok "restart exits 0"; else notok "restart exits 0"; show "$tmp/err"; fi
check "restart runs only the missing points ($((6 - n2)) run now, $n2 already done)" \
    grep -q "^sweep: 6 points ($((6 - n2)) run now, $n2 already done)" "$tmp/out"
check "resumed results.csv is byte-identical to the uninterrupted one" \
    cmp -s "$tmp/k/results.csv" "$tmp/full/results.csv"
check "every point exactly once" [ "$(cut -d, -f1,2 "$tmp/k/results.csv" | sort | uniq -d | wc -l)" -eq 0 ]
check "exactly 6 point files, no temp files left" \
    [ "$(ls "$tmp/k/points" | wc -l)" -eq 6 -a "$(npoints "$tmp/k")" -eq 6 ]

# ---- restart with other arguments: refused, nothing changes ------------------------

cp "$tmp/k/results.csv" "$tmp/k.before"
ls -R "$tmp/k" >"$tmp/k.ls"
run sweep "$base" $slow --out "$tmp/k" --reps 3
check "other --reps on the same DIR: exit 2 (got $rc)" [ "$rc" -eq 2 ]
check "the refusal says why" grep -q "holds a sweep with other arguments (recorded 'reps scenario', now 'reps 3')" "$tmp/err"
run sweep "$base" $slow --vary 'vms[0].threads=1,2' --out "$tmp/k"
check "another --vary on the same DIR: exit 2 (got $rc)" [ "$rc" -eq 2 ]
check "nothing in DIR changed" cmp -s "$tmp/k/results.csv" "$tmp/k.before"
ls -R "$tmp/k" >"$tmp/k.ls2"
check "no file added or removed" cmp -s "$tmp/k.ls" "$tmp/k.ls2"

# ---- -j 2 gives the same bytes --------------------------------------------------------

quick="--vary vms[0].vcpus=1:4:1 --vary workloads.spin.program[0].do[1].compute.mean=10ns,50ns"
run sweep "$base" $quick --out "$tmp/j1" -j 1
rc1=$rc
run sweep "$base" $quick --out "$tmp/j2" -j 2
check "-j 1 and -j 2 succeed" [ "$rc1$rc" = 00 ]
check "-j 2 results.csv is byte-identical to -j 1" cmp -s "$tmp/j1/results.csv" "$tmp/j2/results.csv"

# ---- shards for job arrays, and --merge ------------------------------------------------

for k in 1 2 3; do
	run sweep "$base" $quick --shard "$k/3" --out "$tmp/sh$k"
	check "shard $k/3 exits 0 (got $rc)" [ "$rc" -eq 0 ]
	check "shard $k/3 runs its own points only" [ "$(npoints "$tmp/sh$k")" -eq "$( [ "$k" -eq 3 ] && echo 2 || echo 3)" ]
	cp "$tmp/out" "$tmp/sh$k.out"
	run sweep "$base" $quick --shard "$k/3" --out "$tmp/shared"
done
check "shard 3/3 says the other shards are to go" \
    grep -q '^sweep: shard 3/3: 2 of 8 points (2 run now, 0 already done); 6 points of other shards to go' "$tmp/sh3.out"
check "shards 1/3, 2/3, 3/3 in one shared folder: the last writes results.csv equal to the whole" \
    cmp -s "$tmp/shared/results.csv" "$tmp/j1/results.csv"
check "a shard alone writes no results.csv" [ ! -e "$tmp/sh1/results.csv" ]
run sweep --merge "$tmp/sh1" "$tmp/sh2"
check "merge with a shard missing: exit 1 (got $rc)" [ "$rc" -eq 1 ]
check "it names the missing points" grep -q '2 point(s) missing in every folder, first point 2' "$tmp/err"
run sweep --merge "$tmp/sh1" "$tmp/sh2" "$tmp/sh3" --out "$tmp/merged"
check "merge of 1/3, 2/3, 3/3 exits 0 (got $rc)" [ "$rc" -eq 0 ]
check "merged results.csv equals the whole sweep" cmp -s "$tmp/merged/results.csv" "$tmp/j1/results.csv"
run sweep --merge "$tmp/sh1" "$tmp/k"
check "merge with a folder of another sweep: exit 2 (got $rc)" [ "$rc" -eq 2 ]
check "it says which folder" grep -q "$tmp/k holds a sweep with other arguments" "$tmp/err"
run sweep --merge "$tmp/nope"
check "merge of a folder that is not a sweep: exit 2 (got $rc)" [ "$rc" -eq 2 ]
run sweep "$base" $quick --shard 4/3 --out "$tmp/bad-shard"
check "--shard 4/3: exit 2 (got $rc)" [ "$rc" -eq 2 ]
check "--shard 4/3: says K/N" grep -q -- '--shard takes K/N' "$tmp/err"

# ---- a distribution per point: a flow mapping is one value (issue 30) ---------------------

run sweep "$base" --reps 1 --set 'workloads.spin.program[0].loop=300' --out "$tmp/dist" \
    --vary 'workloads.spin.program[0].do[1].compute={dist: exponential, mean: 5ns},{dist: gamma, shape: 2, mean: 9ns}'
check "--vary of two distributions: exit 0 (got $rc), two points" \
    grep -q '^sweep: 2 points (2 run now' "$tmp/out"
check "results.csv quotes each distribution as one value" sh -c \
    "grep -q '^\"{dist: exponential, mean: 5ns}\",' '$tmp/dist/results.csv' &&
    grep -q '^\"{dist: gamma, shape: 2, mean: 9ns}\",' '$tmp/dist/results.csv'"

# ---- bad input: exit 2, a message, nothing written --------------------------------------

# bad NAME PATTERN ARGS...: `vlocksim sweep ARGS --out DIR` exits 2, says PATTERN
# on stderr and leaves DIR absent.
bad() {
	name=$1 pat=$2
	shift 2
	run sweep "$@" --out "$tmp/bad-$name"
	check "$name: exit 2 (got $rc)" [ "$rc" -eq 2 ]
	if grep -Eq -- "$pat" "$tmp/err"; then ok "$name: says /$pat/"; else notok "$name: says /$pat/"; show "$tmp/err"; fi
	check "$name: nothing written" [ ! -e "$tmp/bad-$name" ]
}

bad no-equals "expected PATH=V1,V2" "$base" --vary 'vms[0].vcpus'
bad empty-value "empty value" "$base" --vary 'vms[0].vcpus=1,,2'
bad bad-range "expected PATH=START:STOP:STEP" "$base" --vary 'vms[0].vcpus=1:4'
bad mixed-units "same unit" "$base" --vary 'duration=1ms:2us:1ms'
bad bad-path "^--set: vms\\[3\\]\\.vcpus: index 3 out of range.*\\[sweep point 0: " \
    "$base" --vary 'vms[3].vcpus=1,2'
# The last point is bad: checked before the first runs.
bad bad-last-value "^--set:1:14: 'vcpus' must be an integer, got 'four'.*point 2" \
    "$base" --vary 'vms[0].vcpus=1,2,four'
bad overcommit "pinned scheduler.*\\[sweep point 1: vms\\[0\\]\\.vcpus=64\\]" \
    "$base" --vary 'vms[0].vcpus=2,64'
bad unknown-plot "--plot nope: not a metric" "$base" --vary 'vms[0].vcpus=1,2' --plot nope
bad no-vary "at least one --vary" "$base"
bad jobs "-j takes an integer" "$base" --vary 'vms[0].vcpus=1,2' -j 0

mkdir "$tmp/empty"
run sweep "$base" --vary 'vms[0].vcpus=1,x' --out "$tmp/empty"
check "bad value with an existing DIR: exit 2, DIR stays empty" \
    [ "$rc" -eq 2 -a -z "$(ls -A "$tmp/empty")" ]

# Issue 14 D4: one sweep per folder (flock on DIR/.sweep.lock); a second is
# refused with exit 2 before it writes or deletes anything, even its meta.
mkdir "$tmp/locked"
exec 9>"$tmp/locked/.sweep.lock"
flock 9
run sweep "$base" $quick --out "$tmp/locked"
check "a folder another sweep holds: exit 2" [ "$rc" -eq 2 ]
check "the message says another sweep is using it" \
    grep -q 'locked: another sweep.* is using this folder' "$tmp/err"
check "the refused sweep wrote nothing (no sweep.meta, no points/)" \
    [ ! -e "$tmp/locked/sweep.meta" -a ! -e "$tmp/locked/points" ]
exec 9>&-
run sweep "$base" $quick --out "$tmp/locked"
check "once the lock is free the sweep runs" [ "$rc" -eq 0 -a -s "$tmp/locked/results.csv" ]

e2e_finish
