#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/mpi_sweep.sh - the MPI path against -j: a 32-point sweep (about 0.3
# CPU-s a point) at -j 1, -np 1, -np 2 and -j 2, and 200 tiny points (a few
# ms each) at -j 2 and -np 2 for the overhead per point; RUNS runs of each
# (default 3), wall and CPU seconds (the children's, from GNU time) per run.
#
#   sh bench/mpi_sweep.sh [RUNS]     (from a built tree with MPI)
set -u
runs=${1:-3}
VS=$(pwd)/vlocksim
out=$(mktemp -d "${TMPDIR:-/tmp}/vlocksim-mpibench.XXXXXX")
trap 'rm -rf "$out"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPIRUN="mpirun --oversubscribe --mca btl self,tcp --mca btl_tcp_if_include lo
    --mca oob_tcp_if_include lo"
base=tests/data/base.yaml
big="--set workloads.spin.program[0].loop=300000 --vary vms[0].vcpus=1:4:1
    --vary workloads.spin.program[0].do[1].compute.mean=10ns:80ns:10ns"
tiny="--set workloads.spin.program[0].loop=200 --set reps=1
    --vary vms[0].vcpus=1:4:1 --vary workloads.spin.program[0].do[1].compute.mean=1ns:50ns:1ns"

# one NAME CMD...: RUNS timed runs into fresh folders; prints NAME wall cpu per run.
one() {
	name=$1
	shift
	for i in $(seq "$runs"); do
		rm -rf "$out/s"
		/usr/bin/time -f "%e %U %S" -o "$out/t" "$@" --out "$out/s" >/dev/null 2>"$out/err" ||
		    { echo "$name: failed"; cat "$out/err"; exit 1; }
		read -r w u s <"$out/t"
		echo "$name run $i: wall $w s, cpu $(echo "$u + $s" | bc) s"
	done
}

echo "# 32 points"
one "-j 1" "$VS" sweep $base $big -j 1
one "-np 1" $MPIRUN -np 1 "$VS" sweep $base $big -j 1
one "-np 2" $MPIRUN -np 2 "$VS" sweep $base $big -j 1
one "-j 2" "$VS" sweep $base $big -j 2
echo "# 200 tiny points"
one "tiny -j 2" "$VS" sweep $base $tiny -j 2
one "tiny -np 2" $MPIRUN -np 2 "$VS" sweep $base $tiny -j 1
one "1 point -np 2 (start-up)" $MPIRUN -np 2 "$VS" sweep $base --set reps=1 \
    --set 'workloads.spin.program[0].loop=200' --vary 'vms[0].vcpus=1' -j 1
