#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_mpi_pool.sh - `vlocksim validate` and `calibrate` on MPI ranks (mpirun,
# loopback only): the bytes of -j 1 at -np 2 and 3 with runs done by the other
# ranks; the same fit under 2 ranks as in one process; bad input said once,
# a rank that cannot set up named by rank 0;
# and the end of a run when a rank dies or hangs after its last job (the
# results whole, the run ends in seconds, its status honest).  Skipped (77)
# without an MPI build or without mpirun.
#
# Run by `make check`, or by hand: top_srcdir=. top_builddir=. sh tests/e2e_mpi_pool.sh

. "$(dirname "$0")/e2e_lib.sh"

mpi_setup
export SOURCE_DATE_EPOCH=1700000000	# calibrate's date line
CASES=$top_srcdir/validation/cases

# mpi NP ARGS...: vlocksim under mpirun -np NP; status in $rc, $tmp/out, $tmp/err
# (the timeout only catches a hang: 40x a run of a few seconds).
mpi() {
	np=$1
	shift
	timeout -k 5 120 $MPIRUN -np "$np" "$VS" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

# ---- validate: the bytes of -j 1, rows run on the other ranks ---------------------

# x1: 4 rows of 3 replications and 1 more row, about 0.3 CPU-s.
run validate x1 --cases "$CASES" -j 1 --out "$tmp/j1" --format json
check "validate x1 -j 1 (reference)" [ "$rc" -eq 0 ]
cp "$tmp/out" "$tmp/j1.stdout"
for np in 2 3; do
	mpi "$np" validate x1 --cases "$CASES" -j 1 --out "$tmp/np$np" --format json
	if [ "$rc" -eq 0 ]; then ok "validate -np $np exits 0"; else notok "validate -np $np exits 0 (got $rc)"; show "$tmp/err"; fi
	for f in validation.csv validation.txt validation.json; do
		check "validate -np $np: $f byte-identical to -j 1" cmp -s "$tmp/j1/$f" "$tmp/np$np/$f"
	done
	check "validate -np $np: stdout byte-identical to -j 1 (rank 0 alone prints)" \
	    cmp -s "$tmp/j1.stdout" "$tmp/out"
	# Proof the ranks worked: rank 0 says how many runs they did (> 0); under
	# mpirun a rank's stdout is a pty, so a progress line may come before it.
	check "validate -np $np: runs were done by the other ranks" \
	    grep -Eq "vlocksim validate: [1-9][0-9]* of [0-9]+ runs on rank" "$tmp/err"
done

# ---- calibrate: the same fit under 2 ranks --------------------------------------

cp -r "$DATA/valid" "$tmp/v"
chmod -R u+w "$tmp/v"
# Six replications per evaluation of a 2000-loop row (a few ms each), so a
# step's runs spread over both ranks even when rank 1 answers late on a
# loaded machine (3 runs of 200 loops once all went to rank 0).
sed 's/^reps: 1$/reps: 6/' "$tmp/v/calib.yaml" >"$tmp/v/calib3.yaml"
sed -i 's/program\[0\]\.loop=200"/program[0].loop=2000"/' "$tmp/v/cases/synthetic.yaml"
grep -q 'loop=2000"' "$tmp/v/cases/synthetic.yaml" || notok "the calibration row is 2000 loops"
(cd "$tmp/v" && "$VS" calibrate calib3.yaml --cases cases -j 1 --out "$tmp/c1.yaml" \
    >"$tmp/c1.out" 2>"$tmp/err")
check "calibrate in one process" [ -s "$tmp/c1.yaml" ]
(cd "$tmp/v" && timeout -k 5 120 $MPIRUN -np 2 "$VS" calibrate calib3.yaml --cases cases -j 1 \
    --out "$tmp/c2.yaml" >"$tmp/c2.out" 2>"$tmp/err")
rc=$?
check "calibrate -np 2 exits 0 (got $rc)" [ "$rc" -eq 0 ]
check "calibrate -np 2: the same file, byte for byte (same fit, same evaluations)" \
    cmp -s "$tmp/c1.yaml" "$tmp/c2.yaml"
check "calibrate -np 2: the same report" \
    [ "$(sed 's/c1.yaml$//' "$tmp/c1.out")" = "$(sed 's/c2.yaml$//' "$tmp/c2.out")" ]
check "calibrate -np 2: rank 1 ran part of every step" \
    grep -Eq "vlocksim calibrate: [1-9][0-9]* of [0-9]+ runs on rank 1" "$tmp/err"

# ---- bad input: exit 2, said once, nothing written ------------------------------------

mpi 3 validate nosuchcase --cases "$CASES" --out "$tmp/bad"
check "validate of an unknown case under -np 3: exit 2 (got $rc)" [ "$rc" -eq 2 ]
check "the message comes once, not once per rank" \
    [ "$(grep -c 'nosuchcase' "$tmp/err")" -eq 1 ]
check "nothing written" [ ! -e "$tmp/bad" ]

# A rank that cannot set up (here: it sees an empty cases folder) fails the
# jobs it is sent with its own message, so rank 0 says why and exits 2.
mkdir "$tmp/nocases"
cat >"$tmp/wrap.sh" <<EOF
#!/bin/sh
d="$CASES"
[ "\$OMPI_COMM_WORLD_RANK" = 1 ] && d="$tmp/nocases"
exec "$VS" validate x1 --cases "\$d" -j 1 --out "$tmp/half"
EOF
timeout -k 5 120 $MPIRUN -np 2 sh "$tmp/wrap.sh" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "a rank without the case: exit 2 (got $rc)" [ "$rc" -eq 2 ]
check "rank 0 says what that rank could not open" grep -q "$tmp/nocases/x1.yaml" "$tmp/err"
check "nothing written" [ ! -e "$tmp/half" ]

# ---- a rank dies (or hangs) at the end: the end protocol (exec_mpi.h) -------------

# The cases below wait on purpose (a rank silent for 5-13 s, the 10-30 s
# rules of MPI_Finalize) and use little CPU, so they run side by side:
# fault_start NAME MPIRUN-ARGS... starts one in the background, its output in
# $tmp/f.NAME.out and .err; fault_end NAME waits for it (status in $rc, its
# output copied to $tmp/out and $tmp/err for the checks).  Each mpirun has a
# timeout only to catch a hang (300 s: the longest case takes ~35 s).
# Rank 0 runs under a wrapper that records, once it has left, its own status
# and when it left ($tmp/f.NAME.rank0: "STATUS EPOCH-SECONDS"); the other
# ranks exec vlocksim (a hung rank is then mpirun's to kill, no shell between).
cat >"$tmp/rank0.sh" <<EOF
[ "\$OMPI_COMM_WORLD_RANK" = 0 ] || exec "\$@"
"\$@"
rc=\$?
echo "\$rc \$(date +%s)" >"\$R0FILE.tmp" && mv "\$R0FILE.tmp" "\$R0FILE"
exit \$rc
EOF
fault_start() {
	fname=$1
	shift
	timeout -k 5 300 $MPIRUN -x R0FILE="$tmp/f.$fname.rank0" "$@" \
	    >"$tmp/f.$fname.out" 2>"$tmp/f.$fname.err" &
	eval "fpid_$fname=\$!"
	bgpids="$bgpids $!"
}
fault_end() {
	eval "wait \$fpid_$1"
	rc=$?
	cp "$tmp/f.$1.out" "$tmp/out"
	cp "$tmp/f.$1.err" "$tmp/err"
}

# end_secs NAME DIR: seconds from rank 0's last output file in DIR (its mtime)
# to rank 0's exit.  Only the end protocol and MPI_Finalize lie in between,
# not Open MPI's start-up nor the simulations, so a loaded machine does not
# lengthen it beyond a few messages' worth: it is the protocol's own waits.
end_secs() {
	last=$(find "$2" -type f -printf '%T@\n' 2>/dev/null | sort -n | tail -1)
	left=$(cut -d' ' -f2 "$tmp/f.$1.rank0" 2>/dev/null)
	[ -n "$last" ] && [ -n "$left" ] && echo $((left - ${last%.*}))
}

V="validate x1 --cases $CASES -j 1 --format json"
# VLOCKSIM_MPI_DIE=1:WHEN kills rank 1 on STOP, after its BYE, just before
# MPI_Finalize, or hangs it there (--enable-recovery, below).
for when in stop bye fin hang; do
	fault_start "$when" --enable-recovery -x VLOCKSIM_MPI_DIE=1:$when -np 3 \
	    sh "$tmp/rank0.sh" "$VS" $V --out "$tmp/d$when"
done
# ... and without --enable-recovery.
fault_start nr -x VLOCKSIM_MPI_DIE=1:bye -np 3 "$VS" $V --out "$tmp/dnr"
# Rank 0 away 6 s before the end, rank 1 silent 7 s on a job or on STOP, rank
# 0 away 13 s after the end protocol.
fault_start deaf -x VLOCKSIM_MPI_DIE=0:deaf -np 2 "$VS" $V --out "$tmp/deaf"
for when in lag lagend; do
	fault_start "$when" -x VLOCKSIM_MPI_DIE=1:$when -np 2 "$VS" $V --out "$tmp/$when"
done
fault_start slowend -x VLOCKSIM_MPI_DIE=0:slowend -np 3 "$VS" $V --out "$tmp/slowend"
# A sweep whose rank 0 is 42 s in its plots: gnuplot sleeps first (~/.gnuplot,
# in a HOME of the ranks' own).
SW="sweep $DATA/base.yaml --vary vms[0].vcpus=1:4:1"
plots=no
if ! grep -q '^#define GNUPLOT_PATH ""' "$top_builddir/config.h"; then
	plots=yes
	mkdir "$tmp/slowplot"
	echo 'system "sleep 42"' >"$tmp/slowplot/.gnuplot"
	fault_start slowplot -x HOME="$tmp/slowplot" -np 2 "$VS" $SW --out "$tmp/sp"
	run $SW -j 1 --out "$tmp/spref"
fi

# Under --enable-recovery the run must end (a 5 s silence of a rank whose
# process is gone, a send that cannot complete in 5 s, or the 10 s alarm on
# MPI_Finalize with a rank's process gone), with rank 0's files whole and its
# status 0.  A dead rank costs rank 0 at most DEAD_S + FINALIZE_S = 15 s after
# its files; one taken for a live, starved rank would cost FINALIZE_LIVE_S
# (30 s) or LIVE_S (60 s): 25 s tells them apart with 10 s to spare for the
# few messages between, whatever the machine's load (end_secs).
for when in stop bye fin; do
	fault_end "$when"
	st=$(cut -d' ' -f1 "$tmp/f.$when.rank0" 2>/dev/null)
	es=$(end_secs "$when" "$tmp/d$when")
	check "rank 1 dies ($when) at the end, --enable-recovery: exit 0 (got $rc), rank 0's own 0 (got ${st:-none})" \
	    [ "$rc" -eq 0 -a "$st" = 0 ]
	check "... rank 0 left ${es:-?} s after its files (< 25: no dead rank waited for as a live one)" \
	    [ "${es:-99}" -lt 25 ]
	if [ "$when" = stop ]; then
		check "... rank 0 says rank 1 did not answer STOP" \
		    grep -q "rank 1 did not answer at the end" "$tmp/err"
	else
		check "... rank 1 answered STOP (BYE): no rank said not to answer" \
		    sh -c "! grep -q 'did not answer' '$tmp/err'"
	fi
	check "... validation.csv and stdout whole, the bytes of -j 1" \
	    sh -c "cmp -s '$tmp/j1/validation.csv' '$tmp/d$when/validation.csv' &&
	    cmp -s '$tmp/j1.stdout' '$tmp/out'"
done

# A rank that never finalizes leaves mpirun (Open MPI 4.1) to kill it, and
# mpirun's own teardown then sometimes segfaults in PMIx_server_finalize or
# stalls: its status is mpirun's.  vlocksim's part: rank 0 leaves on its own
# (after FINALIZE_LIVE_S, its status the run's), files whole.  So mpirun is
# waited for until rank 0 has left (a hang detector: 300 s), then given 5 s
# to end on its own and stopped (rank 0's stdout came 30 s before).
mpirun_end "$fpid_hang" 3000 test -e "$tmp/f.hang.rank0"
fault_end hang
st=$(cut -d' ' -f1 "$tmp/f.hang.rank0" 2>/dev/null)
echo "# hang: mpirun exit $rc (Open MPI's teardown; not judged)"
check "rank 1 hangs at the end: rank 0 leaves on its own, status 0 (got ${st:-none})" [ "$st" = 0 ]
check "... and says it left without MPI_Finalize" grep -q "MPI_Finalize did not return" "$tmp/err"
check "... validation.csv and stdout whole, the bytes of -j 1" \
    sh -c "cmp -s '$tmp/j1/validation.csv' '$tmp/dhang/validation.csv' &&
    cmp -s '$tmp/j1.stdout' '$tmp/out'"

# Without --enable-recovery mpirun ends the job when a rank dies, even after
# the end: a failed status, but the files were written before.
fault_end nr
check "rank 1 dies at the end without --enable-recovery: mpirun fails the job (rc $rc)" \
    [ "$rc" -ne 0 -a "$rc" -ne 124 ]
check "... validation.csv whole all the same" cmp -s "$tmp/j1/validation.csv" "$tmp/dnr/validation.csv"

# Rank 0 away longer than a rank may be silent (a slow plot on a loaded
# machine) before the end: the ranks are not taken for dead, the end protocol
# runs, every rank finalizes.  Before, rank 0 skipped MPI_Finalize and mpirun
# failed the job (exit 1) with whole results: 1 of 20 runs under stress-ng.
fault_end deaf
check "rank 0 away 6 s before the end: exit 0 (got $rc), no rank taken for dead" \
    sh -c "[ $rc -eq 0 ] && ! grep -q 'did not answer\|MPI_Finalize did not return' '$tmp/err'"
check "... validation.csv and stdout the bytes of -j 1" \
    sh -c "cmp -s '$tmp/j1/validation.csv' '$tmp/deaf/validation.csv' && cmp -s '$tmp/j1.stdout' '$tmp/out'"

# A live rank that does not run for longer than a dead rank's silence (a
# starved rank on a loaded machine; here it sleeps 7 s, on its first job or on
# STOP): rank 0 asks the OS, sees its process, and waits for it.  Before, it
# was taken for dead: its job lost, or no BYE in time, then nobody finalized
# and mpirun said rank 1 was "exiting improperly".
for when in lag lagend; do
	fault_end "$when"
	check "rank 1 silent 7 s but alive ($when): exit 0 (got $rc), not taken for dead" \
	    sh -c "[ $rc -eq 0 ] && ! grep -q 'silent for\|did not answer\|MPI_Finalize did not return' '$tmp/err'"
	check "... validation.csv and stdout the bytes of -j 1" \
	    sh -c "cmp -s '$tmp/j1/validation.csv' '$tmp/$when/validation.csv' && cmp -s '$tmp/j1.stdout' '$tmp/out'"
done

# Rank 0 slow after the end protocol (its files, or a plot, on a loaded
# machine) for longer than MPI_Finalize's first 10 s: the other ranks, waiting
# in MPI_Finalize, see its process there and wait on.  Before, they left
# after 10 s without it and mpirun failed the job: a rank "exiting
# improperly", as e2e_mpi.sh did 1 of 3 runs at nice 19 beside two busy loops.
fault_end slowend
check "rank 0 away 13 s after the end protocol: exit 0 (got $rc), no rank left MPI_Finalize early" \
    sh -c "[ $rc -eq 0 ] && ! grep -q 'did not answer\|MPI_Finalize did not return' '$tmp/err'"
check "... validation.csv and stdout the bytes of -j 1" \
    sh -c "cmp -s '$tmp/j1/validation.csv' '$tmp/slowend/validation.csv' && cmp -s '$tmp/j1.stdout' '$tmp/out'"
# A sweep's rank 0 slow in its plots: the other ranks are released after the
# plots (cmd_mpi_end, as after any file), so they wait in their serving loop,
# which has no deadline.  Before, a sweep released them before its plots, so
# they waited in MPI_Finalize, which gives a live rank 0 35 s
# (FINALIZE_LIVE_S + 5): a gnuplot slower than that (a starved machine) made
# them leave without MPI_Finalize, mpirun's rank 1 "exiting improperly"
# (e2e_mpi.sh's "-np 2 exits 0" flake).
if [ "$plots" = yes ]; then
	fault_end slowplot
	check "sweep, rank 0 42 s in its plots: -np 2 exits 0 (got $rc), no rank left early" \
	    sh -c "[ $rc -eq 0 ] && ! grep -q 'exiting improperly\|MPI_Finalize did not return\|did not answer' '$tmp/err'"
	check "... results.csv the bytes of -j 1, the plot drawn" \
	    sh -c "cmp -s '$tmp/spref/results.csv' '$tmp/sp/results.csv' && ls '$tmp/sp/'*.png >/dev/null 2>&1"
else
	skip "sweep, rank 0 slow in its plots: built without gnuplot"
fi
bgpids=

e2e_finish
