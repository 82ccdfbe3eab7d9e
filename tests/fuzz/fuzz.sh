#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# fuzz.sh - build the libFuzzer targets with clang and run each one.
#
#   sh tests/fuzz/fuzz.sh SRCDIR BUILDDIR SECONDS [TARGET...]
#
# Targets: scen (the loader), run (loader + a 20 us run at --check=full),
# tracecmd, xentrace, xenalyze, lockstat, perfkvm, tracedat (the trace
# importers; tracedat: trace.dat's structure check, then libtracecmd in its
# child process, trace_dat.c; skipped without libtracecmd).  The library is rebuilt
# with -fsanitize=fuzzer-no-link,address,undefined into BUILDDIR/fuzz/; seed
# corpora come from configs/, tests/data/ and the sample traces, new inputs go
# to BUILDDIR/fuzz/corpus-TARGET, crashes to BUILDDIR/fuzz/crash-TARGET-*.
# BUILDDIR holds config.h; FUZZ_OUT replaces BUILDDIR/fuzz.
# Exit 77 (skip) without clang; 1 when a target found a crash, leak, timeout
# or out-of-memory.  Environment: CLANG (clang), FUZZ_FLAGS (extra flags),
# FUZZ_JOBS (1): the library's compiles and the targets run that many at a
# time (CI: one a core; each target still gets SECONDS of its own).
set -u
src=$(cd "$1" && pwd)
bld=$(cd "$2" && pwd)
secs=$3
shift 3
targets=${*:-scen run tracecmd xentrace xenalyze lockstat perfkvm tracedat}
CLANG=${CLANG:-clang}
jobs=${FUZZ_JOBS:-1}
command -v "$CLANG" >/dev/null 2>&1 || { echo "fuzz: no $CLANG, skipped"; exit 77; }

out=${FUZZ_OUT:-$bld/fuzz}
mkdir -p "$out/obj"
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
inc=""
for d in engine conf scenario report exec validate trace cli; do inc="$inc -I$src/sim/$d"; done
cflags="-g -O1 -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $inc -I$src/models -I$bld \
	-DVS_DATADIR=\"$src\" -DVS_SRCDIR=\"$src\" -DVS_SRC_PLOTDIR=\"$src/plots\" \
	$(pkg-config --cflags gsl yaml-0.1)"
libs="$(pkg-config --libs gsl yaml-0.1) -lm"
# MPI sweep ranks are optional (configure --with-mpi: HAVE_MPI)
if grep -q '^#define HAVE_MPI 1' "$bld/config.h" 2>/dev/null; then
	cflags="$cflags $(mpicc --showme:compile 2>/dev/null)"
	libs="$libs $(mpicc --showme:link 2>/dev/null)"
fi
# trace.dat support is optional (configure's HAVE_LIBTRACECMD)
dat=no
if grep -q '^#define HAVE_LIBTRACECMD 1' "$bld/config.h" 2>/dev/null; then
	dat=yes
	cflags="$cflags $(pkg-config --cflags libtracecmd)"
	libs="$libs $(pkg-config --libs libtracecmd)"
fi

# The library: every .c of libvlocksim_a_SOURCES (Makefile.am).
srcs=$(sed -n '/^libvlocksim_a_SOURCES/,/^$/p' "$src/Makefile.am" | tr ' \\\t' '\n\n\n' | grep '\.c$')
# A header change rebuilds every object: the test below sees only each .c
# (a stale object with an old struct layout crashes as if the code did).
stamp=$out/obj/.headers
if [ ! -f "$stamp" ] ||
    [ -n "$(find "$src/sim" "$src/models" -name '*.h' -newer "$stamp" | head -n 1)" ]; then
	rm -f "$out"/obj/*.o
	touch "$stamp"
fi
objs=""
n=0
rm -f "$out/obj/.failed"
for c in $srcs; do
	o=$out/obj/$(echo "$c" | tr / _ | sed 's/\.c$/.o/')
	if [ ! -f "$o" ] || [ "$src/$c" -nt "$o" ]; then
		# shellcheck disable=SC2086
		{ $CLANG $cflags -fsanitize=fuzzer-no-link $san -c "$src/$c" -o "$o" ||
			{ rm -f "$o"; : >"$out/obj/.failed"; }; } &
		n=$((n + 1))
		[ "$n" -lt "$jobs" ] || { wait; n=0; }
	fi
	objs="$objs $o"
done
wait
[ ! -f "$out/obj/.failed" ] || exit 1
rm -f "$out/libvs.a"
# shellcheck disable=SC2086
ar rcs "$out/libvs.a" $objs || exit 1

build() {	# NAME SOURCE DEFINES
	# shellcheck disable=SC2086
	$CLANG $cflags -fsanitize=fuzzer $san $3 "$src/tests/fuzz/$2" "$out/libvs.a" $libs \
		-o "$out/fuzz_$1" || exit 1
}

seed() {	# NAME FILES...: a seed corpus (once)
	d=$out/seed-$1
	shift
	[ -d "$d" ] && return
	mkdir -p "$d"
	for f in "$@"; do [ -f "$f" ] && cp "$f" "$d/$(echo "$f" | tr / _)"; done
}

# Chunks of a text trace as seeds: the first N lines in pieces of M.
chunks() {	# NAME FILE N M
	[ -f "$2" ] || return 0
	mkdir -p "$out/seed-$1"
	head -n "$3" "$2" | split -l "$4" - "$out/seed-$1/$(basename "$2")."
}

# finish: wait for the running targets, then report each in its order.
rc=0
batch=""
finish() {
	wait
	for t in $batch; do
		st=$(cat "$out/$t.status" 2>/dev/null || echo 1)
		grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb' "$out/$t.log" |
			sed "s/^/fuzz: $t: /"
		if [ "$st" -ne 0 ]; then
			echo "fuzz: $t FAILED (exit $st); see $out/$t.log"
			grep -E 'ERROR: |SUMMARY: ' "$out/$t.log" | head -5
			rc=1
		fi
	done
	batch=""
}

traces=$src/../shared/traces
[ -d "$traces" ] || traces=/work/shared/traces
for t in $targets; do
	case $t in
	scen)	build scen fuzz_scen.c ""
		seed scen $(find "$src/configs" "$src/tests/data" "$src/tests/bad" -name '*.yaml') ;;
	run)	build run fuzz_scen.c "-DFUZZ_RUN"
		seed run $(find "$src/configs" "$src/tests/data" -name '*.yaml') ;;
	tracecmd) build tracecmd fuzz_trace.c "-DFUZZ_FMT=TI_FMT_TRACECMD"
		seed tracecmd $(find "$src/tests/data/traces" "$src/tests/bad" -name '*.txt')
		for f in "$traces"/kvm/*.txt; do chunks tracecmd "$f" 1500 150; done ;;
	xentrace) build xentrace fuzz_trace.c "-DFUZZ_FMT=TI_FMT_XENTRACE"
		seed xentrace $(find "$src/tests/data/traces" "$src/tests/bad" -name '*.bin')
		for f in "$traces"/xen/*.bin; do
			[ -f "$f" ] && head -c 16384 "$f" >"$out/seed-xentrace/$(basename "$f").16k"
		done ;;
	xenalyze) build xenalyze fuzz_trace.c "-DFUZZ_FMT=TI_FMT_XENALYZE"
		seed xenalyze $(find "$src/tests/data/traces" -name '*xenalyze*')
		for f in "$traces"/xen/xenalyze*.txt; do chunks xenalyze "$f" 900 300; done ;;
	lockstat) build lockstat fuzz_trace.c "-DFUZZ_FMT=TI_FMT_LOCKSTAT"
		seed lockstat $(find "$src/tests/data/traces/guest" -name '*lock_stat*') ;;
	perfkvm) build perfkvm fuzz_trace.c "-DFUZZ_FMT=TI_FMT_PERFKVM"
		seed perfkvm $(find "$src/tests/data/traces/guest" -name 'perf-*') ;;
	tracedat) [ $dat = yes ] || { echo "fuzz: tracedat: built without libtracecmd, skipped"; continue; }
		build tracedat fuzz_trace.c "-DFUZZ_FMT=TI_FMT_DAT"
		seed tracedat $(find "$src/tests/data/traces" "$src/tests/bad" -name '*.dat') ;;
	*)	echo "fuzz: unknown target $t"; exit 2 ;;
	esac
	mkdir -p "$out/corpus-$t"
	echo "fuzz: $t for ${secs}s"
	# -fork=1 keeps going after a crash so that one run reports them all.
	rm -f "$out/$t.status"
	# shellcheck disable=SC2086
	(cd "$out" && "$out/fuzz_$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-max_len=65536 -dict="$src/tests/fuzz/vlocksim.dict" -print_final_stats=1 \
		-artifact_prefix="$out/crash-$t-" ${FUZZ_FLAGS:-} \
		"$out/corpus-$t" "$out/seed-$t" >"$out/$t.log" 2>&1
	echo $? >"$out/$t.status") &
	batch="$batch $t"
	[ "$(echo $batch | wc -w)" -lt "$jobs" ] || finish
done
finish
exit $rc
