# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_lib.sh - what every end-to-end script shares; sourced, not run.
#
# Sets VS (the binary), DATA (tests/data), tmp (a scratch folder removed at
# exit, with any background job in $bgpid), and the check helpers.  Skips the
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
trap '[ -n "$bgpid" ] && kill -9 "$bgpid" 2>/dev/null; rm -rf "$tmp"' EXIT
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
