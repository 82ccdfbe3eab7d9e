#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_pgo.sh - make pgo's training runs (bench/pgo-train.sh) still run with
# this build's vlocksim, each scenario and --set it names valid, so that a
# renamed scenario or parameter breaks make check, not a user's make pgo.  The
# instrumented build itself (a minute of CPU) runs in neither make check nor
# CI: after a change to the build, run make pgo and bench/ident.sh by hand.
. "$(dirname "$0")/e2e_lib.sh"

sh "$top_srcdir/bench/pgo-train.sh" "$VS" "$top_srcdir" "$tmp/t" > "$tmp/out" 2> "$tmp/err"
rc=$?
check "pgo-train.sh exits 0" [ "$rc" -eq 0 ]
check "... with nothing on stderr" [ ! -s "$tmp/err" ]
check "... and the seven runs' results" [ "$(ls "$tmp"/t/*/results.txt | wc -l)" -eq 7 ]
sh "$top_srcdir/bench/pgo-train.sh" "$VS" "$tmp/none" "$tmp/u" > "$tmp/out" 2> "$tmp/err"
rc=$?
check "a failed training run fails pgo-train.sh" \
    sh -c "[ $rc -eq 1 ] && grep -q 'pgo-train.sh: s0s1 failed' '$tmp/err'"
e2e_finish
