#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_readme.sh - the commands of the README's ```sh blocks run, in README
# order, in a fresh copy of the tree (the files a clone has, or the tarball's
# in make distcheck, with this build's vlocksim beside them and no
# VLOCKSIM_DATADIR), and each exits 0.
#
# Every command has a rule in rule() below, so a command added to the README
# without one fails here: run it as written; run it shortened (fewer
# replications, a shorter workload: make check stays quick); or skip it,
# saying why (a cluster, a guest, minutes of CPU; the test that covers it).
. "$(dirname "$0")/e2e_lib.sh"

# rule CMD: sets act (run, short or skip), how (short: a sed script) and why.
rule() {
	act=run how="" why=""
	case $1 in
	"./quickstart.sh"|'make -j"$(nproc)" check')
		act=skip why="CI (.ci/run) runs the quick start and make check first" ;;
	"./vlocksim run configs/examples/ticket-4threads.yaml --reps 5")
		act=short how="s/--reps 5/--reps 1/" why="1 replication, not 5" ;;
	"./vlocksim run SCENARIO.yaml "*)
		act=short why="SCENARIO.yaml: the ticket example, 1 replication"
		how="s|SCENARIO.yaml|configs/examples/ticket-4threads.yaml|; s|\$| --reps 1|" ;;
	"./vlocksim list"|"./vlocksim list --format yaml") ;;
	"./vlocksim validate")
		act=skip why="every case: CPU-minutes (e2e_validate.sh runs validate)" ;;
	"./vlocksim validate seed000 --format csv")
		act=skip why="20 CPU-seconds (e2e_validate.sh runs validate --format csv)" ;;
	"./vlocksim calibrate validation/calibration/seed000.yaml")
		act=skip why="a fit of CPU-minutes (the x1 fit below runs; check_calibrate)" ;;
	"./vlocksim sweep configs/examples/ticket-4threads.yaml "*)
		act=short why="1 replication of a 2000-iteration loop"
		how="s/--reps 5/--reps 1 --set workloads.spin.program[0].loop=2000/" ;;
	"mpirun "*)
		act=skip why="MPI ranks of a cluster writing /shared (e2e_mpi.sh runs mpirun sweeps)" ;;
	"./vlocksim sweep scen.yaml "*|"sbatch "*|"./vlocksim sweep --merge sw-1 sw-2 sw-3")
		act=skip why="a cluster's scen.yaml, /shared, Slurm (e2e_sweep.sh: --shard, --merge)" ;;
	"mkdir -p out"|"./vlocksim trace import traces/"*) ;;
	"./vlocksim run configs/traces/x1-credit2.yaml "*) ;;
	"./vlocksim calibrate validation/calibration/x1.yaml && ./vlocksim validate x1") ;;
	"./vlocksim trace scenario traces/perf/sched-messaging.txt "*|"./vlocksim run out/p1.yaml") ;;
	"perf record "*|"perf script "*)
		act=skip why="records the user's ./my-program (e2e_perf.sh records perf bench)" ;;
	"trace-cmd "*|"echo 0 > /proc/lock_stat"*|"sleep 10; "*|"vlocksim "*)
		act=skip why="in a guest with tracefs, on its files (e2e_trace.sh: trace scenario)" ;;
	"./vlocksim lab-vm"*)
		act=skip why="boots QEMU guests (e2e_labvm.sh: --check; e2e_labvm_tcg.sh: a TCG boot)" ;;
	"./vlocksim lab"*)
		act=skip why="measures this machine for minutes (e2e_lab.sh runs a short lab)" ;;
	"autoreconf "*|"./configure "*|"make "*)
		act=skip why="the build itself (CI: .ci/run, distcheck, make deb)" ;;
	*)
		act=none ;;
	esac
}

# The commands: ```sh blocks, continuation lines joined, comments and blank
# lines dropped, white space squeezed.
awk '/^```/ { if (inb) inb = 0; else if ($0 ~ /^```sh/) { inb = 1; nb++ }; next }
	inb { line = line $0
		if (line ~ /\\$/) { sub(/\\$/, "", line); next }
		sub(/(^|[ \t])#.*/, "", line); gsub(/[ \t]+/, " ", line)
		sub(/^ /, "", line); sub(/ $/, "", line)
		if (line != "") print nb "\t" line
		line = "" }' "$top_srcdir/README.md" > "$tmp/cmds"
check "the README has command blocks ($(wc -l < "$tmp/cmds") commands)" [ -s "$tmp/cmds" ]

# A fresh copy: the tracked files of a git checkout, else (the tarball) the
# source folder; the binary at its top reads that tree (datadir.h).
copy=$tmp/copy
mkdir "$copy"
src=$(cd "$top_srcdir" && pwd -P)
if [ "$(git -C "$src" rev-parse --show-toplevel 2>/dev/null)" = "$src" ]; then
	(cd "$src" && git ls-files -z | xargs -0 tar cf - 2>/dev/null) | tar xf - -C "$copy"
else
	cp -R "$src"/. "$copy" && chmod -R u+w "$copy"
	rm -rf "$copy/out"
fi
cp "$VS" "$copy/vlocksim"
check "the copy has the examples and the traces" \
    test -f "$copy/configs/examples/ticket-4threads.yaml" -a -d "$copy/traces"

nrun=0 nshort=0 nskip=0
while IFS="$(printf '\t')" read -r nb cmd; do
	rule "$cmd"
	case $act in
	none)
		notok "README block $nb: '$cmd' has no rule in tests/e2e_readme.sh" ;;
	skip)
		nskip=$((nskip + 1))
		skip "README block $nb: $cmd ($why)" ;;
	*)
		[ "$act" = short ] && cmd=$(echo "$cmd" | sed "$how") && nshort=$((nshort + 1))
		nrun=$((nrun + 1))
		(cd "$copy" && env -u VLOCKSIM_DATADIR sh -c "$cmd") >"$tmp/out" 2>"$tmp/err"
		rc=$?
		check "README block $nb: $cmd${why:+ ($why)}: exit 0 (was $rc)" [ "$rc" -eq 0 ] ;;
	esac
done < "$tmp/cmds"
echo "# $nrun commands run ($nshort of them shortened), $nskip skipped"

# What the run commands promise is there.
check "trace import wrote out/x1.yaml" [ -s "$copy/out/x1.yaml" ]
check "the sweep wrote out/sw/results.csv (9 points)" \
    [ "$(wc -l < "$copy/out/sw/results.csv")" -eq 10 ]
check "the timeline trace out/x1.json was written" [ -s "$copy/out/x1.json" ]
check "trace scenario wrote out/p1.yaml from sample P1" [ -s "$copy/out/p1.yaml" ]

e2e_finish
