#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_golden.sh - scenarios of the per-vCPU form give the numbers they gave
# before the guest kernel existed.  tests/data/golden/*.json were written by
# vlocksim at cee5d5f (before tasks) with `run FILE --no-wall-clock --format
# json --reps R`; metrics added since then (ipi_exits, timer_exits: 0 in this
# form; ple_exits_bulk, a cost figure like events) are left out of the comparison.
#
# Run by `make check`; one line per check, then "N passed, M failed".

. "$(dirname "$0")/e2e_lib.sh"
G=$top_srcdir/tests/data/golden

golden() {	# NAME REPS
	"$VS" run "$top_srcdir/configs/examples/$1.yaml" --no-wall-clock --format json \
	    --reps "$2" | grep -v '"ipi_exits"\|"timer_exits"\|"ple_exits_bulk"' >"$tmp/$1.json"
	check "$1: the same bytes as before the guest kernel" cmp -s "$G/$1.json" "$tmp/$1.json"
}
golden cfs-overcommit 2
golden locks-compare 2
golden credit-tickle 1
e2e_finish
