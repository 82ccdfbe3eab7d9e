#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench.sh VLOCKSIM EVQ_HOLD SRCDIR - the table `make bench` prints.
#
# Each reference scenario runs BENCH_RUNS times (default 3); every rate is
# per CPU-second of the vlocksim process (user + sys, from /usr/bin/time), so
# a loaded machine slows the wall clock but not the figures; the median run
# gives the rates, min/median/max CPU seconds show the spread.  The load
# (uptime) is printed before and after.  Acquisitions are the scenario's
# VM.LOCK.acquisitions metrics summed.  "evq ns/ev" is the bare event queue
# (bench/evq_hold.c, the hold model) with as many pending events as the
# scenario has vCPUs + pCPUs, its rough queue size.  With SimPy Classic
# (python3-simpy), bench/simpy_ticket.py runs bench/peer-ticket.yaml's model
# side by side; the ratio is of acquisitions per CPU-second.
# BENCH_ONLY=NAME[,NAME...] runs only those rows (names as printed).
# BENCH_SET=PATH=VALUE adds one --set to every row (fast_forward=false: the
# slow path).  Rows with PLE exits say how many the fast-forward took in bulk.
set -u
VS=$1 EVQ=$2 SRC=$3
RUNS=${BENCH_RUNS:-3}
ONLY=${BENCH_ONLY:-}
SET=${BENCH_SET:-}
TIME=/usr/bin/time
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vlocksim-bench.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
[ -x "$TIME" ] || { echo "bench: needs GNU time ($TIME)"; exit 2; }

want() { [ -z "$ONLY" ] && return 0; case ",$ONLY," in *",$1,"*) return 0 ;; esac; return 1; }

# stats FILE: min med max of a column of numbers
stats() { sort -g "$1" | awk '{ v[NR] = $1 } END { printf "%.3f %.3f %.3f", v[1], v[int((NR + 1) / 2)], v[NR] }'; }

# row NAME PENDING REPS ARGS...: run vlocksim ARGS (REPS replications, so a
# short scenario runs long enough to time) RUNS times and print one row
row() {
	name=$1 pend=$2 reps=$3; shift 3
	want "$name" || return 0
	: > "$tmp/cpu"; : > "$tmp/wall"
	i=0
	while [ $i -lt "$RUNS" ]; do
		if ! $TIME -f '%e %U %S' -o "$tmp/t" "$VS" run "$@" --reps "$reps" --set 'metrics=[]' \
		    ${SET:+--set} ${SET:+"$SET"} --no-wall-clock --format csv > "$tmp/out" \
		    2> "$tmp/err"; then
			echo "bench: $name failed:"; cat "$tmp/err"; return 1
		fi
		awk '{ print $2 + $3 }' "$tmp/t" >> "$tmp/cpu"
		awk '{ print $1 }' "$tmp/t" >> "$tmp/wall"
		i=$((i + 1))
	done
	# the metrics are means per replication
	ev1=$(awk -F, '$1 == "events" { print $3 }' "$tmp/out")
	acq1=$(awk -F, '$1 ~ /^[^.]+\.[^.]+\.acquisitions$/ { s += $3 } END { print s + 0 }' "$tmp/out")
	ev=$(awk -v a="$ev1" -v r="$reps" 'BEGIN { printf "%.0f", a * r }')
	acq=$(awk -v a="$acq1" -v r="$reps" 'BEGIN { printf "%.0f", a * r }')
	set -- $(stats "$tmp/cpu")
	wmed=$(stats "$tmp/wall" | awk '{ print $2 }')
	eq=$("$EVQ" "$pend" 2000000 | sed 's/.*ns_per_event=//')
	awk -v n="$name" -v ev="$ev" -v acq="$acq" -v lo="$1" -v med="$2" -v hi="$3" \
	    -v w="$wmed" -v p="$pend" -v eq="$eq" 'BEGIN {
		c = med > 0 ? med : 1e-3
		printf "%-16s %11d %10d %6.2f/%6.2f/%6.2f %7.2f %8.2f %8.3f %7.1f %7.1f (%d)\n",
		    n, ev, acq, lo, med, hi, w, ev / c / 1e6, acq / c / 1e6, c * 1e9 / ev, eq, p }'
	echo "$name $ev $acq $2 $acq1" >> "$tmp/rows"
	awk -F, -v n="$name" '$1 == "ple_exits" { p = $3 } $1 == "ple_exits_bulk" { b = $3 }
	    END { if (p > 0) printf "%s %.0f %.0f %.2f\n", n, p, b, 100 * b / p }' \
	    "$tmp/out" >> "$tmp/ple"
}

echo "vlocksim make bench: $RUNS run(s) per row; rates per CPU-second of the median run"
echo "load before: $(uptime)"
printf '%-16s %11s %10s %20s %7s %8s %8s %7s %13s\n' scenario events acquisitions \
    "cpu s min/med/max" "wall s" "Mev/cpu-s" "Macq/cpu-s" "ns/ev" "evq ns/ev (N)"
C=$SRC/configs
row ticket-4threads 8 1 "$C/examples/ticket-4threads.yaml"
row seed001-3x 40 1 "$C/seed001/x5570.yaml" --set 'vms[1].count=2'
row ple-storm 128 1 "$C/seed001/x7560-ple.yaml" --set 'vms[1].count=1' \
    --set 'vms[0].lock=ticket' --set duration=20s
row seed004 64 5 "$C/seed004/seed004.yaml"
row pv-qspinlock 48 10 "$C/seed003/kvm-overcommit.yaml" --set 'vms[0].lock=pv-qspinlock' \
    --set 'vms[1].count=2'
row scale-8v 12 1 "$SRC/bench/scale.yaml" --set duration=40s
row scale-4096v 6144 1 "$SRC/bench/scale.yaml" --set 'vms[0].count=512' \
    --set machine.sockets=16 --set machine.cores_per_socket=128 --set duration=20ms
for n in 4 64 1024; do
	row peer-$n $((2 * n)) $((n < 64 ? 5 : 2)) "$SRC/bench/peer-ticket.yaml" \
	    --set "vms[0].vcpus=$n" --set "machine.cores_per_socket=$n"
done
if [ -s "$tmp/ple" ]; then
	echo "PLE exits per replication, and those the fast-forward took in bulk (ple_exits_bulk):"
	awk '{ printf "  %-16s %12s exits, %12s in bulk (%s%%)\n", $1, $2, $3, $4 }' "$tmp/ple"
fi
if [ -f "$tmp/rows" ] && grep -q '^scale-8v ' "$tmp/rows" && grep -q '^scale-4096v ' "$tmp/rows"; then
	awk '$1 == "scale-8v" { a = $4 / $2 } $1 == "scale-4096v" { b = $4 / $2 }
	    END { printf "ns/event at 4096 vCPUs / at 8 vCPUs: %.2f (target <= 1.5)\n", b / a }' "$tmp/rows"
fi

# SimPy Classic side by side (its own CPU time for the simulation).
PY=
for p in /usr/bin/python3 python3; do
	if command -v "$p" > /dev/null 2>&1 && "$p" -c 'import SimPy.Simulation' 2> /dev/null; then
		PY=$p; break
	fi
done
if [ -z "$PY" ]; then
	echo "SimPy Classic (python3-simpy) not found: no peer comparison"
elif [ -f "$tmp/rows" ] && grep -q '^peer-' "$tmp/rows"; then
	echo "peer: bench/peer-ticket.yaml vs bench/simpy_ticket.py (same model, 0.1 s simulated,"
	echo "      handoff 56 ns in SimPy so both saturate alike); acquisitions per CPU-second"
	printf '%-6s %12s %12s %20s %11s %11s %8s\n' vCPUs "acq vlocksim" "acq SimPy" \
	    "SimPy cpu s min/med/max" "vl Macq/s" "SimPy Macq/s" ratio
	for n in 4 64 1024; do
		want peer-$n || continue
		: > "$tmp/py"
		i=0
		while [ $i -lt "$RUNS" ]; do
			"$PY" "$SRC/bench/simpy_ticket.py" $n 0.1 100 1000 56 1 > "$tmp/pyout" || break
			sed 's/.*cpu_s=\([^ ]*\).*/\1/' "$tmp/pyout" >> "$tmp/py"
			i=$((i + 1))
		done
		pacq=$(sed 's/acquisitions=\([0-9]*\).*/\1/' "$tmp/pyout")
		set -- $(stats "$tmp/py")
		awk -v n=$n -v pa="$pacq" -v lo="$1" -v med="$2" -v hi="$3" \
		    '$1 == "peer-" n { va = $3; vc = $4; v1 = $5 }
		    END { printf "%-6d %12d %12d %6.2f/%6.2f/%6.2f %11.3f %11.3f %7.1fx\n", n, v1, pa,
			lo, med, hi, va / vc / 1e6, pa / med / 1e6, (va / vc) / (pa / med) }' "$tmp/rows"
	done
fi
echo "load after: $(uptime)"
