#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_tracedat.sh - damaged trace.dat files (issue 29): truncations and bit
# flips of the three test files (version 6, version 7, version 7 zstd) are
# refused with exit 2 and the file's name, never a crash: trace_datchk.c
# checks the structure, and libtracecmd runs in a child process whose crash
# or loop is a refused file (trace_dat.c).  Prints how many each caught.
#
# Run by `make check`, or by hand: top_srcdir=. top_builddir=. sh tests/e2e_tracedat.sh

. "$(dirname "$0")/e2e_lib.sh"
D=$top_srcdir/tests/data/traces/guest
M=$(cd "$top_srcdir" && pwd)/configs/machines/x5570-noht.yaml

if ! grep -q '^#define HAVE_LIBTRACECMD 1' "$top_builddir/config.h" 2>/dev/null; then
	echo "skip: built without libtracecmd"
	exit 77
fi

# The undamaged files read the same whatever their version.
for v in "" -v7 -v7z; do
	run trace import "$D/guest-sched$v.dat" --guest --out "$tmp/g$v.yaml"
	check "guest-sched$v.dat imports" [ "$rc" -eq 0 ]
	sed 1,3d "$tmp/g$v.yaml" >"$tmp/g$v.body"
done
check "versions 6, 7 and 7 with zstd give the same import" \
    sh -c "cmp '$tmp/g.body' '$tmp/g-v7.body' && cmp '$tmp/g.body' '$tmp/g-v7z.body'"

# flip IN OFFSET BIT OUT: IN with one bit flipped.
flip() {
	cp "$1" "$4"
	b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
	# shellcheck disable=SC2059 # the format is the byte
	printf "$(printf '\\%03o' $((b ^ (1 << $3))))" |
	    dd of="$4" bs=1 seek="$2" conv=notrunc 2>/dev/null
}

nrun=0 nbad=0 nchk=0 nchild=0 nother=0 nok=0
# one FILE WHAT: import it; exit 0 or 2 (never a signal), the name in the message.
one() {
	"$VS" trace import "$1" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	nrun=$((nrun + 1))
	if [ "$rc" -eq 0 ]; then
		nok=$((nok + 1))
	elif [ "$rc" -ne 2 ] || ! grep -q "^$1[:]" "$tmp/err"; then
		nbad=$((nbad + 1))
		notok "$2: exit $rc"
		show "$tmp/err"
	elif grep -q 'libtracecmd crashed\|libtracecmd used up\|libtracecmd returned more' "$tmp/err"; then
		nchild=$((nchild + 1))
	elif grep -q 'damaged trace.dat' "$tmp/err"; then
		nchk=$((nchk + 1))
	else
		nother=$((nother + 1))
	fi
}

x=1	# a fixed linear congruential sequence picks the flipped bits
for v in "" -v7 -v7z; do
	f=$D/guest-sched$v.dat
	size=$(wc -c <"$f")
	i=256
	while [ "$i" -lt "$size" ]; do
		head -c "$i" "$f" >"$tmp/m.dat"
		one "$tmp/m.dat" "guest-sched$v.dat cut at $i bytes"
		i=$((i + 512))
	done
	k=0
	while [ "$k" -lt 40 ]; do
		x=$(((x * 1103515245 + 12345) % 2147483648))
		flip "$f" $(((x / 8) % size)) $((x % 8)) "$tmp/m.dat"
		one "$tmp/m.dat" "guest-sched$v.dat bit $((x % 8)) of byte $(((x / 8) % size)) flipped"
		k=$((k + 1))
	done
done
echo "# $nrun damaged files: $nchk refused by the structure check, $nchild by the child's" \
    "crash or loop, $nother by the reader, $nok read; $nbad wrong"
check "every damaged file is exit 0 or 2 with its name" [ "$nbad" -eq 0 ]
check "the structure check refuses most" [ "$nchk" -gt $((nrun / 4)) ]

# Known damage, one each: the structure check names the field's offset ...
flip "$D/guest-sched.dat" 4105 6 "$tmp/commit.dat"
run trace import "$tmp/commit.dat"
check "a page's commit past its page: exit 2 at byte 4104" sh -c "[ $rc -eq 2 ] &&
    grep -q 'commit.dat: byte offset 4104: damaged trace.dat: CPU 0.s page holds 17332 bytes' '$tmp/err'"
# ... and libtracecmd 3.1.6 crashes on an event format with a flipped bit
# (libtraceevent's parser), which the child turns into exit 2.
flip "$D/guest-sched-v7.dat" 1416 7 "$tmp/format.dat"
run trace import "$tmp/format.dat"
check "libtracecmd's crash in the child: exit 2, the metadata's bytes" sh -c "[ $rc -eq 2 ] &&
    grep -q 'format.dat: bytes 0-4096: damaged trace.dat: libtracecmd crashed' '$tmp/err'"
run trace scenario "$tmp/format.dat" --machine "$M" --out "$tmp/s.yaml"
check "trace scenario: the same, nothing written" sh -c "[ $rc -eq 2 ] &&
    grep -q 'libtracecmd crashed' '$tmp/err' && [ ! -e '$tmp/s.yaml' ]"
e2e_finish
