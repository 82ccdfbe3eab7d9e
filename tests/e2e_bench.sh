#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_bench.sh - bench/cputime.c, make bench's timer (bench/bench.sh's
# timed): it writes "cpu_s maxrss_kB wall_s" with 6 decimals, leaves the
# command's stdout to it and passes its exit status on (128 + N for signal N,
# 127 when it cannot be run).  Built here as bench.sh builds it.
#
# Run by `make check`, or by hand: top_srcdir=. top_builddir=. sh tests/e2e_bench.sh

. "$(dirname "$0")/e2e_lib.sh"
CT=$tmp/cputime
if ! ${CC:-cc} -O2 -o "$CT" "$top_srcdir/bench/cputime.c" 2> "$tmp/err"; then
	notok "bench/cputime.c builds"; show "$tmp/err"; e2e_finish; exit 1
fi

"$CT" "$tmp/t" "$VS" run "$DATA/base.yaml" --reps 1 --no-wall-clock --format csv \
    > "$tmp/out" 2> "$tmp/err"
check "a vlocksim run: exit 0 (got $?)" [ $? -eq 0 ]
check "its stdout is the command's" grep -q '^events,' "$tmp/out"
check "one line: cpu_s (6 decimals) maxrss_kB wall_s (6 decimals)" \
    grep -Eqx '[0-9]+\.[0-9]{6} [0-9]+ [0-9]+\.[0-9]{6}' "$tmp/t"
check "CPU seconds and peak RSS of the run are not 0" \
    awk '{ exit !($1 > 0 && $2 > 0) }' "$tmp/t"

"$CT" "$tmp/t" sh -c 'exit 3' 2> "$tmp/err"
check "the command's exit status is passed on (got $?)" [ $? -eq 3 ]
rm -f "$tmp/t"
"$CT" "$tmp/t" sh -c 'kill -TERM $$' 2> "$tmp/err"
check "killed by SIGTERM: 128 + 15 (got $?)" [ $? -eq 143 ]
check "a killed command's times are written too" [ -s "$tmp/t" ]
"$CT" "$tmp/t" "$tmp/no-such-command" 2> "$tmp/err"
check "a command that cannot run: 127 (got $?)" [ $? -eq 127 ]
check "and says why" grep -q 'no-such-command' "$tmp/err"
"$CT" 2> "$tmp/err"
check "no command: usage, exit 2 (got $?)" [ $? -eq 2 ]
e2e_finish
