#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_bad.sh - the hostile-input corpus (tests/bad/MANIFEST): every input of the
# reliability audit is refused with exit 2 and a FILE:LINE:COLUMN message (or
# the flag's name), in bounded time and memory, leaving nothing in --out.

. "$(dirname "$0")/e2e_lib.sh"

bad=$(cd "$top_srcdir/tests/bad" && pwd)
ntried=0
timer=
[ -x /usr/bin/time ] && timer="/usr/bin/time -f %M -o $tmp/rss"

# Inputs that cannot live in the tree: an include of a directory, of
# /dev/zero and of a FIFO, a samples file that is a FIFO (%T is this scratch
# folder; nothing ever writes the FIFOs: a reader would wait forever).
mkdir "$tmp/t" "$tmp/t/adir.yaml"
ln -s /dev/zero "$tmp/t/zero.yaml"
mkfifo "$tmp/t/fifo.yaml" "$tmp/t/fifo.csv"
cp "$bad/inc-dir.yaml" "$bad/inc-zero.yaml" "$bad/inc-fifo.yaml" \
    "$bad/dist-empirical-fifo.yaml" "$tmp/t/"

while IFS= read -r line; do
	case $line in '#'*|'') continue ;; esac
	want=$(printf '%s\n' "$line" | sed 's/ *|.*//')
	args=$(printf '%s\n' "$line" | sed 's/^[^|]*| *//; s/ *|.*//')
	re=$(printf '%s\n' "$line" | sed 's/^[^|]*|[^|]*| *//')
	ntried=$((ntried + 1))
	rm -rf "$tmp/o" "$tmp/rss"
	args=$(printf '%s\n' "$args" | sed "s#%B#$bad#g; s#%O#$tmp/o#g; s#%T#$tmp/t#g")
	# shellcheck disable=SC2086 # ARGS are words
	(cd "$tmp" && timeout 30 $timer "$VS" $args >"$tmp/out" 2>"$tmp/err")
	rc=$?
	name="$args"
	if [ "$rc" -ne "$want" ]; then
		notok "$name: exit $rc, expected $want"
		show "$tmp/err"
		continue
	fi
	[ "$want" -eq 0 ] && f=$tmp/out || f=$tmp/err
	if ! grep -Eq -- "$re" "$f"; then
		notok "$name: message does not match /$re/"
		show "$f"
		continue
	fi
	if [ "$want" -ne 0 ] && [ -e "$tmp/o" ]; then
		notok "$name: left $(find "$tmp/o" | wc -l) path(s) in --out"
		continue
	fi
	if [ -s "$tmp/rss" ] && [ "$(tail -1 "$tmp/rss")" -gt 1048576 ]; then
		notok "$name: peak RSS $(tail -1 "$tmp/rss") KB (> 1 GB)"
		continue
	fi
	ok "$name"
done <"$bad/MANIFEST"
echo "# $ntried inputs tried"
e2e_finish
