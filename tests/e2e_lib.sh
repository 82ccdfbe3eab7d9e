# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_lib.sh - what every end-to-end script shares; sourced, not run.
#
# Sets VS (the binary), DATA (tests/data), tmp (a scratch folder removed at
# exit, with any background job in $bgpid killed, and those in $bgpids
# stopped: SIGTERM, which timeout(1) passes on), and the check helpers.  Skips the
# script (exit 77) when the binary is not built.  Scripts end with e2e_finish:
# "N passed, M failed", exit 0 when nothing failed.

here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$here/..}"
: "${top_builddir:=$here/..}"
VS=$(cd "$top_builddir" && pwd)/vlocksim	# absolute: scripts may cd
DATA=$top_srcdir/tests/data

if [ ! -x "$VS" ]; then
	echo "skip: $VS not built"
	exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/vlocksim-e2e.XXXXXX") || exit 1
bgpid=
bgpids=
trap '[ -n "$bgpid" ] && kill -9 "$bgpid" 2>/dev/null; for p in $bgpids; do kill "$p" 2>/dev/null; done; rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

npass=0
nfail=0

ok() {
	npass=$((npass + 1))
	echo "ok - $*"
}

notok() {
	nfail=$((nfail + 1))
	echo "not ok - $*"
}

skip() {
	echo "ok - $* # SKIP"
}

# Show why a check failed (a file, usually the last stderr), indented.
show() {
	sed 's/^/#   /' "$1" 2>/dev/null
}

# check DESC COMMAND...: passes when COMMAND succeeds; on failure shows $tmp/err.
check() {
	desc=$1
	shift
	if "$@"; then ok "$desc"; else notok "$desc"; show "$tmp/err"; fi
}

# run [ARGS...]: run vlocksim; status in $rc, output in $tmp/out, $tmp/err.
run() {
	"$VS" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

# The fast paths (fast_forward: the PLE and loop fast-forwards, skipped host
# ticks) against the slow path.  ff_both NAME FILE ARGS...: run FILE with each
# into $tmp/NAME.true and $tmp/NAME.false (CSV), and compare every metric but
# the engine's cost figures ($tmp/NAME.*.m).
ff_both() {
	name=$1 f=$2
	shift 2
	for ff in true false; do
		"$VS" run "$f" --no-wall-clock --format csv --set 'metrics=[]' "$@" \
		    --set fast_forward=$ff >"$tmp/$name.$ff" 2>"$tmp/err" || return 1
		grep -v '^events,\|^events_per_sec,\|^ple_exits_bulk,\|^host_ticks_skipped,\|^guest_ticks_skipped,\|^steps_folded,' \
		    "$tmp/$name.$ff" >"$tmp/$name.$ff.m"
	done
	cmp "$tmp/$name.true.m" "$tmp/$name.false.m" >"$tmp/err" 2>&1
}

# out_procs DIR: the vlocksim processes that name DIR as an argument (a run
# with --out DIR, its MPI ranks, their point workers: forks, with the same
# command line) and have neither ended (state Z or X) nor begun to (a SIGKILL
# pending in SigPnd or ShdPnd, or PF_EXITING in the flags: proc(5)).
out_procs() {
	for d in /proc/[0-9]*; do
		c=
		read -r c 2>/dev/null <"$d/comm"
		[ "$c" = vlocksim ] || continue
		tr '\0' '\n' <"$d/cmdline" 2>/dev/null | grep -qxF -- "$1" || continue
		proc_ending "${d#/proc/}" || echo "${d#/proc/}"
	done
}

# proc_ending PID: PID has ended or is ending (as out_procs says).
proc_ending() {
	st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null)
	case $st in Z*|X*|'') return 0 ;; esac
	# flags, the 7th field after the command's name: PF_EXITING 0x4
	[ $(( $(echo "$st" | cut -d' ' -f7) & 4 )) -ne 0 ] && return 0
	# SIGKILL (9): bit 8 of the pending masks, the third hex digit from the right
	awk '/^(SigPnd|ShdPnd):/ { if (substr($2, length($2) - 2, 1) ~ /[13579bdfBDF]/) k = 1 }
	    END { exit !k }' "/proc/$1/status" 2>/dev/null
}

# out_outlived DIR: after the process that ran the job in DIR has ended,
# whether one of its workers outlives it; prints its pid.  A worker dies with
# its parent (PR_SET_PDEATHSIG: SIGKILL, sent as the parent exits), or, forked
# just before, exits at its first steps on seeing its parent gone: either way
# it uses no CPU to speak of.  So a process of the job still there is watched
# until it has ended (at most 120 s: a hang detector) and judged by the CPU it
# uses meanwhile (over 2 clock ticks, utime + stime), never by the wall time: a
# worker that lives on runs its point (tenths of a CPU-second).
out_outlived() {
	i=0
	rm -f "$tmp"/cpu0.*
	while [ "$i" -lt 1200 ]; do
		left=$(out_procs "$1")
		[ -n "$left" ] || return 1
		for p in $left; do
			t=$(sed 's/.*) //' "/proc/$p/stat" 2>/dev/null | awk '{ print $12 + $13 }')
			[ -n "$t" ] || continue
			[ -e "$tmp/cpu0.$p" ] || echo "$t" >"$tmp/cpu0.$p"
			if [ $((t - $(cat "$tmp/cpu0.$p"))) -gt 2 ]; then
				echo "$p"
				return 0
			fi
		done
		sleep 0.1
		i=$((i + 1))
	done
	echo "$left"
	return 0
}

# mpirun_end PID TENTHS DONE...: wait until PID (an mpirun in the
# background) has ended or the command DONE... says the job is over, at most
# TENTHS tenths of a second (a hang detector), then give PID 5 s to end on
# its own and stop it: Open MPI's teardown after a rank's fault can stall.
mpirun_end() {
	me_pid=$1 me_n=$2
	shift 2
	i=0
	while [ "$i" -lt "$me_n" ] && kill -0 "$me_pid" 2>/dev/null && ! "$@"; do
		sleep 0.1
		i=$((i + 1))
	done
	i=0
	while [ "$i" -lt 50 ] && kill -0 "$me_pid" 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
	kill "$me_pid" 2>/dev/null
}

# metric NAME FILE: its mean in a CSV result
metric() {
	awk -F, -v m="$1" '$1 == m { print $3 }' "$2"
}

e2e_finish() {
	echo "$npass passed, $nfail failed"
	[ "$nfail" -eq 0 ]
}

# mpi_setup: skip (77) without an MPI build or mpirun; else set MPIRUN for
# loopback ranks, more ranks than cores, root allowed (CI containers).  Under
# --enable-sanitizers Open MPI never frees what its dlopen'ed components
# allocate and LeakSanitizer cannot tell that from ours, so leaks are not
# checked here (check_sweep and e2e_sweep run the same code without MPI).
mpi_setup() {
	if ! grep -q '^#define HAVE_MPI 1' "$top_builddir/config.h" 2>/dev/null ||
	    ! command -v mpirun >/dev/null 2>&1; then
		echo "skip: built without MPI (configure --with-mpi) or no mpirun"
		exit 77
	fi
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
	# Rank 0 waits for every rank before the first job (exec_mpi.h), so that
	# "the other ranks ran jobs" holds on a loaded machine too.
	MPIRUN="mpirun --oversubscribe --mca btl self,tcp --mca btl_tcp_if_include lo
	    --mca oob_tcp_if_include lo -x VLOCKSIM_MPI_WAIT_READY=1"
}
