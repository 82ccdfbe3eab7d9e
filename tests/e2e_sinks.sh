#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_sinks.sh - outputs that are not regular files (issue 29): a device node
# or a FIFO is written through and stays what it was, a symlink is followed
# (its target replaced, the link kept) or, leading nowhere, refused; standard
# output that cannot be written is exit 1 for every command.
#
# Device nodes are made here with mknod (root only, else those checks are
# skipped), never /dev's own: the audit once turned /dev/full into a file.
#
# Run by `make check`, or by hand: top_srcdir=. top_builddir=. sh tests/e2e_sinks.sh

. "$(dirname "$0")/e2e_lib.sh"
K=$DATA/traces/kvm-raw.txt
R=$(cd "$top_srcdir" && pwd)/configs/examples/ticket-4threads.yaml
swshort="--reps 1 --set workloads.spin.program[0].loop=500"
short="$swshort --no-wall-clock"

dev=no
if mknod "$tmp/full" c 1 7 2>/dev/null && mknod "$tmp/null" c 1 3 2>/dev/null &&
    ! (echo x >"$tmp/full") 2>/dev/null; then
	dev=yes
fi
chr() { [ -c "$1" ] && [ ! -L "$1" ]; }

# The reference: a regular file.
run trace import "$K" --out "$tmp/ref.yaml"
check "trace import --out a new file" [ "$rc" -eq 0 ]

if [ $dev = yes ]; then
	run trace import "$K" --out "$tmp/null"
	check "trace import --out a null device: exit 0, still a device" sh -c "[ $rc -eq 0 ] &&
	    [ -c '$tmp/null' ]"
	run trace import "$K" --out "$tmp/full"
	check "trace import --out a full device: exit 1, ENOSPC, still a device" sh -c \
	    "[ $rc -eq 1 ] && grep -q 'full: write failed: No space left on device' '$tmp/err' &&
	    [ -c '$tmp/full' ]"
	# shellcheck disable=SC2086
	run run "$R" $short --trace "$tmp/full"
	check "run --trace a full device: exit 1, still a device" sh -c "[ $rc -eq 1 ] && [ -c '$tmp/full' ]"
	# shellcheck disable=SC2086
	run run "$R" $short --lock-stat "$tmp/full"
	check "run --lock-stat a full device: exit 1, still a device" sh -c "[ $rc -eq 1 ] &&
	    [ -c '$tmp/full' ]"
	# shellcheck disable=SC2086
	run run "$R" $short --trace "$tmp/null" --lock-stat "$tmp/null"
	check "run --trace and --lock-stat a null device: exit 0" sh -c "[ $rc -eq 0 ] && [ -c '$tmp/null' ]"
	mkdir "$tmp/od" && mknod "$tmp/od/results.csv" c 1 3
	# shellcheck disable=SC2086
	run run "$R" $short --out "$tmp/od"
	check "run --out DIR whose results.csv is a device: exit 0, still a device, the rest written" \
	    sh -c "[ $rc -eq 0 ] && [ -c '$tmp/od/results.csv' ] && [ -s '$tmp/od/results.txt' ]"
	# Standard output that cannot be written: exit 1 and a message, every command.
	for c in "list" "list --format yaml" "--help" "run --help" "trace import $K" \
	    "run $R $short" "run $R $short --format json" "run $R $short --format csv" \
	    "sweep $R $swshort --vary vms[0].vcpus=1,2 --out $tmp/sw-full"; do
		# shellcheck disable=SC2086
		"$VS" $c >"$tmp/full" 2>"$tmp/err"
		rc=$?
		check "$c >full: exit 1, says so" sh -c "[ $rc -eq 1 ] &&
		    grep -q 'cannot write standard output: No space left on device' '$tmp/err'"
	done
	check "... and the device is still a device" chr "$tmp/full"
else
	skip "device nodes: mknod needs root"
fi

# A FIFO: written through (a reader gets the same bytes), not replaced.
mkfifo "$tmp/p"
timeout 60 cat "$tmp/p" >"$tmp/p.got" &
bgpid=$!
run trace import "$K" --out "$tmp/p"
wait "$bgpid"
bgpid=
check "trace import --out a FIFO: exit 0, still a FIFO, the reader got the file" sh -c \
    "[ $rc -eq 0 ] && [ -p '$tmp/p' ] && cmp -s '$tmp/p.got' '$tmp/ref.yaml'"
timeout 60 cat "$tmp/p" >"$tmp/p.got" &
bgpid=$!
# shellcheck disable=SC2086
run run "$R" $short --lock-stat "$tmp/p"
wait "$bgpid"
bgpid=
check "run --lock-stat a FIFO: exit 0, still a FIFO, lock_stat read from it" sh -c \
    "[ $rc -eq 0 ] && [ -p '$tmp/p' ] && grep -q '^lock_stat version' '$tmp/p.got'"

# Symlinks: followed to a file, the link kept; one that leads nowhere refused.
echo old >"$tmp/target.yaml"
ln -s target.yaml "$tmp/link.yaml"
run trace import "$K" --out "$tmp/link.yaml"
check "trace import --out a symlink: the link kept, its target replaced" sh -c "[ $rc -eq 0 ] &&
    [ -L '$tmp/link.yaml' ] && cmp -s '$tmp/target.yaml' '$tmp/ref.yaml'"
ln -s missing.yaml "$tmp/dangle.yaml"
run trace import "$K" --out "$tmp/dangle.yaml"
check "trace import --out a symlink to nothing: exit 1, refused, left alone" sh -c \
    "[ $rc -eq 1 ] && grep -q 'dangle.yaml: a symlink that leads nowhere' '$tmp/err' &&
    [ -L '$tmp/dangle.yaml' ] && [ ! -e '$tmp/missing.yaml' ]"
# shellcheck disable=SC2086
run run "$R" $short --trace "$tmp/dangle.yaml"
check "run --trace a symlink to nothing: exit 1 before simulating" sh -c "[ $rc -eq 1 ] &&
    grep -q 'symlink that leads nowhere' '$tmp/err' && [ ! -s '$tmp/out' ]"
mkdir "$tmp/real" "$tmp/o2"
ln -s real "$tmp/olink"
echo old >"$tmp/t.csv"
ln -s ../t.csv "$tmp/o2/results.csv"
# shellcheck disable=SC2086
run run "$R" $short --out "$tmp/olink"
check "run --out a symlink to a folder: written into the folder, the link kept" sh -c \
    "[ $rc -eq 0 ] && [ -L '$tmp/olink' ] && [ -s '$tmp/real/results.csv' ]"
# shellcheck disable=SC2086
run run "$R" $short --out "$tmp/o2"
check "run --out DIR whose results.csv is a symlink: the link kept, its target written" sh -c \
    "[ $rc -eq 0 ] && [ -L '$tmp/o2/results.csv' ] && cmp -s '$tmp/t.csv' '$tmp/real/results.csv'"
mkdir "$tmp/sw"
echo old >"$tmp/swt.csv"
ln -s ../swt.csv "$tmp/sw/results.csv"
# shellcheck disable=SC2086
run sweep "$R" $swshort --vary 'vms[0].vcpus=1,2' --out "$tmp/sw"
check "sweep --out DIR whose results.csv is a symlink: the link kept, its target written" sh -c \
    "[ $rc -eq 0 ] && [ -L '$tmp/sw/results.csv' ] && grep -q '^vms\[0\]\.vcpus,' '$tmp/swt.csv'"
mkdir "$tmp/vo"
echo old >"$tmp/vt.csv"
ln -s ../vt.csv "$tmp/vo/validation.csv"
run validate --cases "$DATA/valid/cases" --out "$tmp/vo"
check "validate --out DIR whose validation.csv is a symlink: the link kept, its target written" \
    sh -c "[ $rc -eq 0 ] && [ -L '$tmp/vo/validation.csv' ] && grep -q '^synthetic,' '$tmp/vt.csv'"
e2e_finish
