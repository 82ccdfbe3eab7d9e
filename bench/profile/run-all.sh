#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/profile/run-all.sh OUTDIR - the recordings that configs/presets cite
# (issue 28): a kernel build, ebizzy and hackbench at N = the CPUs and
# oversubscribed 2x and 4x, each under bench/profile/record.sh, each in its
# own /work/bin/quiet window (QUIET= to run without it, e.g. elsewhere).
#
# Needs: perf; a kernel tree configured and prepared (KSRC, default Debian's
# linux-source-6.1 unpacked in /tmp/prof: `tar xf /usr/src/linux-source-6.1.tar.xz;
# make defconfig; make prepare`); ebizzy 0.3 built from LTP's
# utils/benchmark/ebizzy-0.3/ebizzy.c (EBIZZY; Debian has no package:
# `gcc -O2 -pthread -o ebizzy ebizzy.c`); hackbench from Debian's rt-tests.
# Then bench/profile/summarize.sh OUTDIR writes the summaries.
set -eu
out=${1:?usage: run-all.sh OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
: "${KSRC:=/tmp/prof/linux-source-6.1}" "${EBIZZY:=/tmp/prof/ebizzy/ebizzy}"
: "${HACKBENCH:=hackbench}" "${QUIET=/work/bin/quiet}" "${KDIRS:=mm/ kernel/}"
: "${ONLY:=kbuild ebizzy hackbench}"
ncpu=$(nproc)
rec() { $QUIET "$here/record.sh" "$@"; }

for m in 1 2 4; do
	n=$((ncpu * m))
	case " $ONLY " in *" kbuild "*)
		# The same objects every time: delete them, then `make -j N` those dirs.
		# shellcheck disable=SC2086
		(cd "$KSRC" && find $KDIRS -name '*.o' -delete && find $KDIRS -name '*.a' -delete)
		# shellcheck disable=SC2086
		rec "kbuild-j$n" "$out" -- make -C "$KSRC" -j "$n" $KDIRS ;;
	esac
	case " $ONLY " in *" ebizzy "*)
		# ebizzy -m (mmap/munmap every iteration, as the preset), n threads, 10 s.
		rec "ebizzy-t$n" "$out" -- "$EBIZZY" -m -S 10 -t "$n" ;;
	esac
	case " $ONLY " in *" hackbench "*)
		# hackbench -pipe with one group of m senders and m receivers: 2m = n
		# tasks; loops sized for a second or two here.
		rec "hackbench-f$m" "$out" -- "$HACKBENCH" -p -g 1 -f "$m" -l $((1000000 / m / m)) ;;
	esac
done
case " $ONLY " in *" hackbench "*)
	# The preset's shape: 4 groups of 20 + 20 (160 tasks, 80 per CPU here).
	rec hackbench-g4 "$out" -- "$HACKBENCH" -p -g 4 -l 1000 ;;
esac
