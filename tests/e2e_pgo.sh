#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_pgo.sh - make pgo's training runs (bench/pgo-train.sh) still run with
# this build's vlocksim, each scenario and --set it names valid, so that a
# renamed scenario or parameter breaks make check, not a user's make pgo; and
# that a source edited after make pgo still builds.  make check does not run
# the instrumented build itself (a minute of CPU); CI does, in quickstart.sh
# and make deb.  After a change to the build, run bench/ident.sh by hand.
. "$(dirname "$0")/e2e_lib.sh"

sh "$top_srcdir/bench/pgo-train.sh" "$VS" "$top_srcdir" "$tmp/t" > "$tmp/out" 2> "$tmp/err"
rc=$?
check "pgo-train.sh exits 0" [ "$rc" -eq 0 ]
check "... with nothing on stderr" [ ! -s "$tmp/err" ]
check "... and the nine runs' results" [ "$(ls "$tmp"/t/*/results.txt | wc -l)" -eq 9 ]
sh "$top_srcdir/bench/pgo-train.sh" "$VS" "$tmp/none" "$tmp/u" > "$tmp/out" 2> "$tmp/err"
rc=$?
check "a failed training run fails pgo-train.sh" \
    sh -c "[ $rc -eq 1 ] && grep -q 'pgo-train.sh: s0s1 failed' '$tmp/err'"

# The training runs with address randomisation off where setarch can turn it
# off, so that its counts, and make pgo's code, do not change from build to
# build: a stand-in vlocksim records each run's personality(2) flags.
if setarch "$(uname -m)" -R true 2>/dev/null; then
	printf '#!/bin/sh\ncat /proc/self/personality >> "%s"\n' "$tmp/pers" > "$tmp/fake"
	chmod +x "$tmp/fake"
	sh "$top_srcdir/bench/pgo-train.sh" "$tmp/fake" "$top_srcdir" "$tmp/f" > /dev/null 2> "$tmp/err"
	n=0 bad=0
	while read -r p; do
		n=$((n + 1)); [ $((0x$p & 0x0040000)) -ne 0 ] || bad=$((bad + 1))
	done < "$tmp/pers"
	check "the nine training runs have ADDR_NO_RANDOMIZE" [ "$n:$bad" = 9:0 ]
else
	skip "training without address randomisation: setarch -R not allowed here"
fi

# A source edited after make pgo: make builds it against its old profile,
# whose coverage-mismatch is a warning with the Makefile's PGO_USE, not gcc's
# default error.  Compiler and flags are read from the Makefile; a one-function
# program stands in for the tree, whose make pgo takes a minute of CPU.
cc=$(sed -n 's/^CC = //p' "$top_builddir/Makefile")
use=$(sed -n 's/^PGO_USE = //p' "$top_builddir/Makefile")
opt=$(sed -n '/^PGO_OPT = /,/[^\\]$/p' "$top_builddir/Makefile" | sed 's/^PGO_OPT = //; s/\\$//' | tr '\n\t' '  ')
mkdir "$tmp/cov" && cd "$tmp/cov" || exit 1
echo 'int main(int c, char **v) { return c > 1 ? v[1][0] : 0; }' > f.c
$cc -O2 -fprofile-generate -c f.c && $cc -fprofile-generate f.o -o f && ./f
check "the one-function program trains" [ -s f.gcda ]
echo 'int main(int c, char **v) { for (int i = 1; i < c; i++) if (*v[i]) return i; return 0; }' > f.c
$cc -O2 $use -c f.c 2> "$tmp/err"
rc=$?
check "the edited source builds with PGO_USE" [ "$rc" -eq 0 ]
check "... and gcc warns that its profile does not fit" grep -q 'Wcoverage-mismatch' "$tmp/err"
# PGO_OPT (gcc's -O3 over -O2, spelled out) is what both builds of make pgo
# add: every flag must be one this gcc takes for C without a word, and the
# flags must hold after CFLAGS' later -O2 (an -O3 among them would not).
$cc $opt -O2 -Werror -c f.c 2> "$tmp/err"
rc=$?
check "PGO_OPT's flags build a C file with no warning" sh -c "[ -n '$opt' ] && [ $rc -eq 0 ] && [ ! -s '$tmp/err' ]"
check "... and hold after a later -O2" sh -c \
    "$cc $opt -O2 -Q --help=params 2>/dev/null | grep -q 'max-inline-insns-auto=[^0-9]*30\$'"
cd - > /dev/null

# make pgo-update (quickstart.sh) trains anew only when the sources changed
# since the profiles were made: run from another folder with MAKE=echo, it
# names the target it would build, against a copy of the sources.
mkdir "$tmp/upd" "$tmp/src" && cp -R "$top_srcdir/sim" "$top_srcdir/models" "$top_srcdir/bench" "$tmp/src/"
mk=$(cd "$top_builddir" && pwd)/Makefile
upd() { (cd "$tmp/upd" && MAKEFLAGS= make -s -f "$mk" srcdir="$tmp/src" MAKE=echo "$@" 2> /dev/null); }
check "with no profiles, pgo-update trains" [ "$(upd pgo-update)" = pgo ]
echo "$(sed -n 's/^PGO_USE = //p' "$top_builddir/Makefile")" > "$tmp/upd/pgo.flags"
upd pgo-sum > /dev/null
check "with profiles of these sources, it only rebuilds" [ "$(upd pgo-update)" = all ]
echo '/* edited */' >> "$tmp/src/sim/engine/evq.c"
check "after a source changed, it trains anew" [ "$(upd pgo-update)" = pgo ]
upd pgo-sum > /dev/null
: > "$tmp/upd/pgo.flags"
check "after make clean's plain flags, it trains anew" [ "$(upd pgo-update)" = pgo ]
e2e_finish
