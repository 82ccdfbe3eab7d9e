#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pgo-train.sh BIN SRCDIR OUTDIR - the training runs of `make pgo`: short runs
# of the scenarios whose speed matters (seed 000 S1/S2, seed 004, lab-c, seed
# 001's X5570 and X7560 at 3x, the peer ticket model at 4, 64 and 1024
# vCPUs), about half a CPU-second in all, so that an instrumented BIN records
# the branches and calls they take.
# Outputs go to OUTDIR (the caller removes it); exits 1 if a run failed.
B=$1; S=$2; O=$3
# Address randomisation off (setarch -R, personality(2)'s ADDR_NO_RANDOMIZE),
# where the kernel allows it (a container may not): some counts follow where
# malloc put things (ffsnap.c's and util.c's tables hash pointers), so with
# it on every make pgo trained a slightly different profile, and two builds
# of one commit differed in code (ffsnap's snap, laid out two ways).
R=
setarch "$(uname -m)" -R true 2>/dev/null && R="setarch $(uname -m) -R"
# The scenarios are read from a copy under OUTDIR (mktemp's, whose path has
# one length): vlocksim keeps each file's real path, so the heap, and with it
# those counts, followed the length of SRCDIR's path.
mkdir -p "$O/src/bench" && cp -R "$S/configs" "$O/src/" 2>/dev/null &&
    cp "$S/bench/peer-ticket.yaml" "$O/src/bench/" 2>/dev/null && S=$O/src
t() { # tag args...
	tag=$1; shift
	$R "$B" run "$@" --reps 1 --no-wall-clock --out "$O/$tag" >/dev/null ||
	    { echo "pgo-train.sh: $tag failed" >&2; exit 1; }
}
s0="$S/configs/seed000/spinlock-thread.yaml --set until=duration --set duration=200ms"
t s0s1 $s0 --set 'metrics=[]'
t s0s2 $s0 --set 'metrics=[]' --set 'vms[0].workload=s2'
t s4 "$S/configs/seed004/seed004.yaml" --set duration=1s
t labc "$S/configs/lab-c/scenario.yaml" --set 'vms[0].vcpus=4'
t x5570 "$S/configs/seed001/x5570.yaml" --set duration=60s --set 'vms[1].count=2' \
    --set 'vms[0].lock=ticket'
t x7560 "$S/configs/seed001/x7560-ple.yaml" --set duration=10s --set 'vms[1].count=2' \
    --set 'vms[0].lock=ticket'
t peer "$S/bench/peer-ticket.yaml" --set 'vms[0].vcpus=4' --set machine.cores_per_socket=4 \
    --set duration=50ms --set 'metrics=[]'
# make bench's peer rows at 64 and 1024 vCPUs, with small shares (3030d32:
# at 20 ms each validate's CPU grew 1.3%; at 5 ms it did not, and the peer
# rows' gain, 3-4% on the main it was judged on, was 2% a rebase later:
# judge the share again when the code changes)
t peer64 "$S/bench/peer-ticket.yaml" --set 'vms[0].vcpus=64' --set machine.cores_per_socket=64 \
    --set duration=5ms --set 'metrics=[]'
t peer1024 "$S/bench/peer-ticket.yaml" --set 'vms[0].vcpus=1024' --set machine.cores_per_socket=1024 \
    --set duration=5ms --set 'metrics=[]'
