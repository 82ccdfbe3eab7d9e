#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# ident.sh BASE NEW [OUTDIR] - the byte-identity check of a speed change.
# Runs bench/cases.sh's scenarios with binary BASE and binary NEW, one
# replication, --no-wall-clock JSON; a trace of a short window; and traces
# and lock statistics of seed 001 and 002 windows.  Prints DIFF NAME for each output that differs
# and exits 1 if any did; COST NAME for one that differs only in the cost
# figures (bench/cases.sh bench_cost: the events an exact fast-forward saves
# are the simulator's work, not a result).  Needs a few CPU-minutes.
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
  elif [ "$(grep -v "$costre" "$OUT/$tag.A.json" | cksum)" = "$(grep -v "$costre" "$OUT/$tag.B.json" | cksum)" ]; then
    echo "COST $tag"; cost=$((cost+1))
  else echo "DIFF $tag"; fail=1; fi
}
. bench/cases.sh
costre=$(for m in $bench_cost; do printf '^ *"%s": \\|' "$m"; done); costre=${costre%\\|}
bench_cases run
# a trace (event-level order) of small windows
run trace_ticket configs/examples/ticket-4threads.yaml --set duration=5ms --trace "$OUT/tt.json"
for w in A B; do eval bin=\$$w
  nice -n 10 "$bin" run configs/seed001/x5570.yaml --reps 1 --no-wall-clock --set duration=12s --set "vms[1].count=1" --trace "$OUT/s1tr.$w.json" --trace-window 10s:11s --lock-stat "$OUT/s1ls.$w.txt" >/dev/null 2>&1
  nice -n 10 "$bin" run configs/seed001/x7560-ple.yaml --reps 1 --no-wall-clock --set duration=12s --set "vms[1].count=1" --trace "$OUT/s7tr.$w.json" --trace-window 10s:10.2s --lock-stat "$OUT/s7ls.$w.txt" >/dev/null 2>&1
  nice -n 10 "$bin" run configs/seed002/gtod.yaml --reps 1 --no-wall-clock --set duration=1s --trace "$OUT/s2tr.$w.json" --trace-window 0.5s:0.52s >/dev/null 2>&1
done
for x in s1tr s1ls s7tr s7ls s2tr; do e=json; case $x in *ls) e=txt;; esac
  n=$((n+1)); cmp -s "$OUT/$x.A.$e" "$OUT/$x.B.$e" || { echo "DIFF $x"; fail=1; }; done
echo "$n cases, fail=$fail, events only=$cost"
exit $fail
