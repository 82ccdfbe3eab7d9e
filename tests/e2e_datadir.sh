#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_datadir.sh - the binary finds its data beside itself, from any folder
# (sim/report/datadir.h): an in-tree binary its build tree, an installed one
# PREFIX/share/vlocksim even after the prefix was moved; what cannot be found
# is named with where it was looked for, before anything is simulated.
. "$(dirname "$0")/e2e_lib.sh"

abs_src=$(cd "$top_srcdir" && pwd)
abs_build=$(cd "$top_builddir" && pwd)
base=$abs_src/tests/data/base.yaml
small="--reps 1 --set workloads.spin.program[0].loop=200 --vary vms[0].vcpus=1,2"
have_gp=0
if grep -q 'GNUPLOT_PATH "/' "$top_builddir/config.h" 2>/dev/null &&
    [ -x "$(sed -n 's/^#define GNUPLOT_PATH "\(.*\)"$/\1/p' "$top_builddir/config.h")" ]; then
	have_gp=1
fi
# vs [ARGS...]: the binary of $VSB, run from $tmp/elsewhere without VLOCKSIM_DATADIR.
mkdir -p "$tmp/elsewhere"
vs() {
	(cd "$tmp/elsewhere" && env -u VLOCKSIM_DATADIR "$VSB" "$@") >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

# ---- the in-tree binary, used from the user's own folder -------------------------

VSB=$VS
if [ "$abs_src" = "$abs_build" ]; then
	vs --help
	check "--help names the build tree as the data folder" \
	    grep -qxF "Shipped scenarios, cases and plot scripts: $abs_src" "$tmp/out"
	vs run ticket-4threads --reps 1 --set 'workloads.spin.program[0].loop=100'
	check "run NAME from another folder finds the tree's example" [ "$rc" -eq 0 ]
	vs sweep "$base" $small --out "$tmp/sw-tree"
	check "a sweep from another folder exits 0" [ "$rc" -eq 0 ]
	if [ "$have_gp" = 1 ]; then
		check "... and draws its plot (plots/sweep.gp of the tree)" \
		    [ -s "$tmp/sw-tree/sweep-completion_seconds.png" ]
	else
		skip "the sweep's plot: no gnuplot"
	fi
else
	skip "in-tree binary: a VPATH build's folder holds no data"
fi

# ---- an install under a prefix, moved elsewhere -----------------------------------

if make -C "$abs_build" install prefix="$tmp/p1" >"$tmp/install.log" 2>&1; then
	mv "$tmp/p1" "$tmp/p2"
	VSB=$tmp/p2/bin/vlocksim
	vs --help
	check "a moved install names its own share/vlocksim" \
	    grep -qxF "Shipped scenarios, cases and plot scripts: $tmp/p2/share/vlocksim" "$tmp/out"
	vs run ticket-4threads --reps 1 --set 'workloads.spin.program[0].loop=100' --format csv
	check "a moved install runs its shipped example by name" \
	    grep -q '^guest.counter.acquisitions,' "$tmp/out"
	vs sweep ticket-4threads $small --out "$tmp/sw-inst"
	check "a moved install runs a sweep" [ "$rc" -eq 0 ]
	if [ "$have_gp" = 1 ]; then
		check "... and draws its plot" [ -s "$tmp/sw-inst/sweep-completion_seconds.png" ]
	fi
	vs validate nosuchcase
	check "validate NAME-of-no-case: exit 2, the known cases listed" \
	    sh -c "[ $rc -eq 2 ] && grep -q \"$tmp/p2/share/vlocksim/validation/cases/nosuchcase.yaml: no such case\" '$tmp/err' &&
	    grep -q ' seed000 .* x1' '$tmp/err'"
else
	notok "make install prefix=$tmp/p1"
	show "$tmp/install.log"
fi

# ---- a binary with no data in sight ------------------------------------------------

mkdir -p "$tmp/lone/bin"
cp "$VS" "$tmp/lone/bin/vlocksim"
VSB=$tmp/lone/bin/vlocksim
vs --help
if grep -q '^Shipped scenarios, cases and plot scripts: not found' "$tmp/out"; then
	check "--help says where it looked for the data and names VLOCKSIM_DATADIR" \
	    sh -c "grep -qF '$tmp/lone/bin/configs/examples' '$tmp/out' &&
	    grep -qF '$tmp/lone/share/vlocksim/configs/examples' '$tmp/out' &&
	    grep -q VLOCKSIM_DATADIR '$tmp/out'"
	vs run ticket-4threads
	check "run NAME: exit 2, where it looked, VLOCKSIM_DATADIR named" \
	    sh -c "[ $rc -eq 2 ] && grep -q '^ticket-4threads: cannot open scenario' '$tmp/err' &&
	    grep -qF '$tmp/lone/share/vlocksim/configs/examples/ticket-4threads.yaml' '$tmp/err' &&
	    grep -q VLOCKSIM_DATADIR '$tmp/err'"
	if [ "$have_gp" = 1 ]; then
		vs sweep "$base" $small --out "$tmp/sw-lone"
		check "sweep without plots/sweep.gp: exit 2 before any point runs" \
		    sh -c "[ $rc -eq 2 ] && [ ! -e '$tmp/sw-lone' ] &&
		    grep -q 'plots/sweep.gp: gnuplot script not found (looked in .*VLOCKSIM_DATADIR' '$tmp/err'"
		vs run "$base" --timeline "$tmp/tl.png"
		check "run --timeline without plots/timeline.gp: exit 2, nothing run" \
		    sh -c "[ $rc -eq 2 ] && [ ! -e '$tmp/tl.png.dat' ] && [ ! -s '$tmp/out' ] &&
		    grep -q 'plots/timeline.gp: gnuplot script not found' '$tmp/err'"
		vs validate x1 --cases "$abs_src/validation/cases" --out "$tmp/v-lone"
		check "validate without plots/case.gp: exit 2, nothing written" \
		    sh -c "[ $rc -eq 2 ] && [ ! -e '$tmp/v-lone' ] && [ ! -s '$tmp/out' ] &&
		    grep -q 'plots/case.gp: gnuplot script not found' '$tmp/err'"
	else
		skip "missing plot scripts: no gnuplot"
	fi
	VLOCKSIM_DATADIR=$tmp/nodata "$VSB" run ticket-4threads >"$tmp/out" 2>"$tmp/err"
	check "VLOCKSIM_DATADIR alone is searched when set, and the message says so" \
	    sh -c "grep -qF 'looked in $tmp/nodata/configs/examples/ticket-4threads.yaml;' '$tmp/err' &&
	    grep -q 'that is VLOCKSIM_DATADIR' '$tmp/err'"
else
	skip "a lone binary: the configured data folder is installed here"
fi

e2e_finish
