#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# ident.sh BASE NEW [OUTDIR] - the byte-identity check of a speed change.
# Runs every configs/examples and configs/seed00[0234] scenario (300 ms cap),
# seed 001's X5570 and X7560 rows (0/1/2 hogs, ticket and pv-ticket; 60 s and
# 20 s), a 4096-vCPU host (bench/scale.yaml), with binary BASE and binary NEW,
# one replication, --no-wall-clock JSON; and traces and lock statistics of
# seed 001 and 002 windows.  Prints DIFF NAME for each output that differs
# and exits 1 if any did; COST NAME for one that differs only in the engine's
# `events` count, `host_ticks_skipped` or `steps_folded` (an exact
# fast-forward handles fewer:
# the simulator's work, not a result).  Needs a few CPU-minutes.
A=$1; B=$2; OUT=${3:-${TMPDIR:-/tmp}/vlocksim-ident}; SRC=$(cd "$(dirname "$0")/.." && pwd)
case $A in /*) ;; *) A=$PWD/$A ;; esac
case $B in /*) ;; *) B=$PWD/$B ;; esac
mkdir -p "$OUT"; cd "$SRC" || exit 2
fail=0; n=0; cost=0
run() { # tag args...
  tag=$1; shift
  for w in A B; do
    eval bin=\$$w
    nice -n 10 "$bin" run "$@" --reps 1 --no-wall-clock --format json >"$OUT/$tag.$w.json" 2>"$OUT/$tag.$w.err"
    echo $? >>"$OUT/$tag.$w.json"
  done
  n=$((n+1))
  if cmp -s "$OUT/$tag.A.json" "$OUT/$tag.B.json"; then :
  elif [ "$(grep -v '^ *"events": \|^ *"host_ticks_skipped": \|^ *"steps_folded": ' "$OUT/$tag.A.json" | cksum)" = \
      "$(grep -v '^ *"events": \|^ *"host_ticks_skipped": \|^ *"steps_folded": ' "$OUT/$tag.B.json" | cksum)" ]; then
    echo "COST $tag"; cost=$((cost+1))
  else echo "DIFF $tag"; fail=1; fi
}
D=""
for f in configs/examples/*.yaml configs/seed00[0234]/*.yaml; do
  case $f in */calibrated*) continue;; esac
  t=$(echo "$f" | tr '/' '_')
  run "$t" "$f" $D --set duration=300ms
done
# a trace (event-level order) of small windows
run trace_ticket configs/examples/ticket-4threads.yaml $D --set duration=5ms --trace "$OUT/tt.json"
for c in 0 1 2; do
  for l in ticket pv-ticket; do
    run "s1x5570_${c}_$l" configs/seed001/x5570.yaml $D --set duration=60s --set "vms[1].count=$c" --set "vms[0].lock=$l"
    run "s1x7560_${c}_$l" configs/seed001/x7560-ple.yaml $D --set duration=20s --set "vms[1].count=$c" --set "vms[0].lock=$l"
  done
done
run scale4096 bench/scale.yaml --set 'vms[0].count=512' --set machine.sockets=16 --set machine.cores_per_socket=128 --set duration=40ms
for w in A B; do eval bin=\$$w
  nice -n 10 "$bin" run configs/seed001/x5570.yaml --reps 1 --no-wall-clock --set duration=12s --set "vms[1].count=1" --trace "$OUT/s1tr.$w.json" --trace-window 10s:11s --lock-stat "$OUT/s1ls.$w.txt" >/dev/null 2>&1
  nice -n 10 "$bin" run configs/seed001/x7560-ple.yaml --reps 1 --no-wall-clock --set duration=12s --set "vms[1].count=1" --trace "$OUT/s7tr.$w.json" --trace-window 10s:10.2s --lock-stat "$OUT/s7ls.$w.txt" >/dev/null 2>&1
  nice -n 10 "$bin" run configs/seed002/gtod.yaml --reps 1 --no-wall-clock --set duration=1s --trace "$OUT/s2tr.$w.json" --trace-window 0.5s:0.52s >/dev/null 2>&1
done
for x in s1tr s1ls s7tr s7ls s2tr; do e=json; case $x in *ls) e=txt;; esac
  n=$((n+1)); cmp -s "$OUT/$x.A.$e" "$OUT/$x.B.$e" || { echo "DIFF $x"; fail=1; }; done
echo "$n cases, fail=$fail, events only=$cost"
exit $fail
