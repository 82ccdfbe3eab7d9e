#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench.sh VLOCKSIM EVQ_HOLD SRCDIR [PEERS] - the tables `make bench` prints.
#
# 1. Reference scenarios: each runs BENCH_RUNS times (default 3); every rate
#    is per CPU-second of the vlocksim process (user + sys, in microseconds
#    from bench/cputime.c, see timed), so a loaded machine slows the wall
#    clock but not the figures; the median run gives the rates, min/median/max CPU seconds show
#    the spread.  Acquisitions are the scenario's VM.LOCK.acquisitions
#    metrics summed.  "evq ns/ev" is the bare event queue (bench/evq_hold.c,
#    the hold model) with as many pending events as the scenario has vCPUs +
#    pCPUs, its rough queue size.
# 2. Peers: bench/peer-ticket.yaml (the pinned ticket-lock model) at 4, 64
#    and 1024 vCPUs beside the same model in the three peers of PEERS
#    (default SRCDIR/../shared/peers, run from there, never copied):
#    limit_ticket.c (a hand-coded C model, the floor) and simgrid_ticket.cpp
#    (SimGrid S4U, Debian libsimgrid-dev) compiled now into a temp dir, and
#    simpy_ticket.py (SimPy Classic, Debian python3-simpy).  A peer whose
#    source or dependency is missing is skipped with a line saying so.  The
#    tools run interleaved (vlocksim, limit, SimGrid, SimPy, then again),
#    BENCH_RUNS rounds; a ratio is vlocksim's acquisitions per CPU-second
#    over the peer's in the same round, the median over the rounds.  CPU
#    seconds are the whole process's (start-up included) for every tool.
# 3. Scaling: ns per event (CPU-s / events) at 8, 64, 512 and 4096 vCPUs,
#    pinned (peer-ticket.yaml; 4096 is 4 sockets of 1024) and under a CFS
#    host at 2x overcommit (bench/scale.yaml: N/8 VMs of 8 vCPUs on N/2
#    pCPUs), about 8 M events a row, BENCH_RUNS interleaved rounds: median
#    and spread, with peak RSS; the 4096/8 ratios, median of the rounds'.
# The load (uptime) is printed before and after.
# BENCH_ONLY=NAME[,NAME...] runs only those rows of table 1 (names as
# printed) or the sections `peers`, `scale`.  BENCH_SET=PATH=VALUE adds one
# --set to every row of table 1 (fast_forward=false: the slow path).  Rows
# with PLE exits say how many the fast-forward took in bulk.
set -u
VS=$1 EVQ=$2 SRC=$3 PEERS=${4:-$3/../shared/peers}
RUNS=${BENCH_RUNS:-3}
ONLY=${BENCH_ONLY:-}
SET=${BENCH_SET:-}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vlocksim-bench.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
${CC:-cc} -O2 -o "$tmp/cputime" "$SRC/bench/cputime.c" 2> "$tmp/cc.err" ||
    { echo "bench: bench/cputime.c does not build:"; cat "$tmp/cc.err"; exit 2; }

want() { [ -z "$ONLY" ] && return 0; case ",$ONLY," in *",$1,"*) return 0 ;; esac; return 1; }

# stats FILE: min med max of a column of numbers
stats() { sort -g "$1" | awk '{ v[NR] = $1 } END { printf "%.6f %.6f %.6f", v[1], v[int((NR + 1) / 2)], v[NR] }'; }

# timed OUT CMD...: run CMD with stdout to OUT; write "cpu_s peak_rss_kB
# wall_s" to $tmp/t1 (the whole process: user + sys at microsecond
# resolution, max RSS; GNU time's %U/%S have 10 ms steps, 15% of a 0.06 CPU-s
# row).  Every timed run goes through here.
timed() {
	out=$1; shift
	if ! "$tmp/cputime" "$tmp/t1" "$@" > "$out" 2> "$tmp/terr"; then
		echo "bench: $* failed:"; cat "$tmp/terr"; return 1
	fi
}

# row NAME PENDING REPS ARGS...: run vlocksim ARGS (REPS replications, so a
# short scenario runs long enough to time) RUNS times and print one row
row() {
	name=$1 pend=$2 reps=$3; shift 3
	want "$name" || return 0
	: > "$tmp/cpu"; : > "$tmp/wall"
	i=0
	while [ $i -lt "$RUNS" ]; do
		timed "$tmp/out" "$VS" run "$@" --reps "$reps" --set 'metrics=[]' \
		    ${SET:+--set} ${SET:+"$SET"} --no-wall-clock --format csv || return 1
		awk '{ print $1 }' "$tmp/t1" >> "$tmp/cpu"
		awk '{ print $3 }' "$tmp/t1" >> "$tmp/wall"
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
t1=0
for r in ticket-4threads seed001-3x ple-storm seed004 pv-qspinlock; do want $r && t1=1; done
[ $t1 = 0 ] || printf '%-16s %11s %10s %20s %7s %8s %8s %7s %13s\n' scenario events acquisitions \
    "cpu s min/med/max" "wall s" "Mev/cpu-s" "Macq/cpu-s" "ns/ev" "evq ns/ev (N)"
C=$SRC/configs
row ticket-4threads 8 1 "$C/examples/ticket-4threads.yaml"
row seed001-3x 40 1 "$C/seed001/x5570.yaml" --set 'vms[1].count=2'
row ple-storm 128 1 "$C/seed001/x7560-ple.yaml" --set 'vms[1].count=1' \
    --set 'vms[0].lock=ticket' --set duration=20s
row seed004 64 5 "$C/seed004/seed004.yaml"
row pv-qspinlock 48 10 "$C/seed003/kvm-overcommit.yaml" --set 'vms[0].lock=pv-qspinlock' \
    --set 'vms[1].count=2'
if [ -s "$tmp/ple" ]; then
	echo "PLE exits per replication, and those the fast-forward took in bulk (ple_exits_bulk):"
	awk '{ printf "  %-16s %12s exits, %12s in bulk (%s%%)\n", $1, $2, $3, $4 }' "$tmp/ple"
fi

# vl_sockets N: "SOCKETS CORES" for N pinned vCPUs (at most 1024 cores a socket)
vl_sockets() { if [ "$1" -le 1024 ]; then echo "1 $1"; else echo "$(($1 / 1024)) 1024"; fi; }

# vl_peer N DURATION OUT: the pinned ticket model at N vCPUs
vl_peer() {
	set -- "$1" "$2" "$3" $(vl_sockets "$1")
	timed "$3" "$VS" run "$SRC/bench/peer-ticket.yaml" --set "vms[0].vcpus=$1" \
	    --set "machine.sockets=$4" --set "machine.cores_per_socket=$5" \
	    --set "duration=$2" --reps 1 --no-wall-clock --format csv
}
# csv_events / csv_acq FILE: from a --format csv run of one replication
csv_events() { awk -F, '$1 == "events" { print $3 }' "$1"; }
csv_acq() { awk -F, '$1 ~ /^[^.]+\.[^.]+\.acquisitions$/ { s += $3 } END { print s + 0 }' "$1"; }

# Section 2: the peers.  Same model, same arguments: cs 100 ns, ncs 1 us, a
# 56 ns hand-over, seed 1.  Durations (simulated) keep each run near a second
# or more: at 4 vCPUs every tool's is 5 times as long (vlocksim's run was
# 0.2 CPU-s there, when GNU time's 10 ms step was 5% of it), the same
# factor for all so a ratio compares the same work.
if want peers; then
	echo
	echo "peers: bench/peer-ticket.yaml beside $PEERS (same model: cs Exp(100 ns),"
	echo "       ncs Exp(1 us), FIFO lock, hand-over 56 ns in the peers); $RUNS interleaved rounds"
	tools=vlocksim
	if [ -f "$PEERS/limit_ticket.c" ] && ${CC:-cc} -O2 -o "$tmp/limit" "$PEERS/limit_ticket.c" -lm \
	    2> "$tmp/cc.err"; then
		tools="$tools limit"
	else
		echo "  limit (hand-coded C): skipped: $PEERS/limit_ticket.c missing or does not build"
	fi
	if [ ! -f "$PEERS/simgrid_ticket.cpp" ]; then
		echo "  SimGrid: skipped: $PEERS/simgrid_ticket.cpp not found"
	elif ${CXX:-c++} -O2 -o "$tmp/simgrid" "$PEERS/simgrid_ticket.cpp" -lsimgrid 2> "$tmp/cxx.err"; then
		tools="$tools simgrid"
	else
		echo "  SimGrid: skipped: simgrid_ticket.cpp does not build (needs libsimgrid-dev and a C++ compiler)"
	fi
	PY=
	for p in /usr/bin/python3 python3; do
		if command -v "$p" > /dev/null 2>&1 && "$p" -c 'import SimPy.Simulation' 2> /dev/null; then
			PY=$p; break
		fi
	done
	if [ ! -f "$PEERS/simpy_ticket.py" ]; then
		echo "  SimPy: skipped: $PEERS/simpy_ticket.py not found"
	elif [ -z "$PY" ]; then
		echo "  SimPy: skipped: SimPy Classic not found (Debian python3-simpy)"
	else
		tools="$tools simpy"
	fi
	P="100 1000 56 1"
	: > "$tmp/peer"
	for n in 4 64 1024; do
		case $n in 4) m=5 ;; *) m=1 ;; esac	# the duration factor
		pd=$(awk -v m=$m 'BEGIN { print 0.05 * m }')
		i=0
		while [ $i -lt "$RUNS" ]; do
			for t in $tools; do
				case $t in
				vlocksim) vl_peer $n $((500 * m))ms "$tmp/o" || exit 1
					a=$(csv_acq "$tmp/o") ;;
				limit) timed "$tmp/o" "$tmp/limit" $n $((2 * m)) $P || exit 1
					a=$(sed 's/acquisitions=\([0-9]*\).*/\1/' "$tmp/o") ;;
				simgrid) timed "$tmp/o" "$tmp/simgrid" $n $pd $P --log=root.thres:critical || exit 1
					a=$(sed 's/acquisitions=\([0-9]*\).*/\1/' "$tmp/o") ;;
				simpy) timed "$tmp/o" "$PY" "$PEERS/simpy_ticket.py" $n $pd $P || exit 1
					a=$(sed 's/acquisitions=\([0-9]*\).*/\1/' "$tmp/o") ;;
				esac
				echo "$n $i $t $a $(cat "$tmp/t1")" >> "$tmp/peer"
			done
			i=$((i + 1))
		done
	done
	# per N: each tool's median rate, and vlocksim's over each peer's, the
	# median of the rounds' ratios
	printf '%-6s %-9s %12s %9s %9s %12s %10s\n' vCPUs tool acquisitions "cpu s" "RSS MB" \
	    "Macq/cpu-s" "vl/tool"
	for n in 4 64 1024; do
		for t in $tools; do
			awk -v n=$n -v t=$t '
			    function med(a, k,   i, j, x) { for (i = 2; i <= k; i++) { x = a[i]
				for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
				return a[int((k + 1) / 2)] }
			    $1 == n { r = $4 / ($5 > 0 ? $5 : 1e-3) }
			    $1 == n && $3 == "vlocksim" { vr[$2] = r }
			    $1 == n && $3 == t { k++; acq[k] = $4; cpu[k] = $5; rss[k] = $6; rate[k] = r; rd[$2] = r }
			    END { for (i in rd) { m++; q[m] = vr[i] / rd[i] }
				printf "%-6d %-9s %12d %9.3f %9.1f %12.3f %9s\n", n, t, med(acq, k),
				    med(cpu, k), med(rss, k) / 1024, med(rate, k) / 1e6,
				    t == "vlocksim" ? "-" : sprintf("%.3gx", med(q, m)) }' "$tmp/peer"
		done
	done
	echo "targets: vl/limit >= 0.35, vl/simgrid >= 20x, vl/simpy >= 40x"
fi

# Section 3: ns per event against the number of vCPUs, pinned and CFS 2x.
# Every row runs about 8 M events (0.5-1 CPU-s): the same work at every
# size, so no row's figure is a short run's (the 8-vCPU rows ran 3-5 M, a
# quarter CPU-second, and moved 60-86 ns/event between runs; 4096 pinned
# 0.7 M).  The sizes run interleaved, one round of all of them after
# another, RUNS rounds: a ratio is the same round's 4096 over its 8, the
# median of the rounds (as the peers' ratios), and each row gives its
# median and the rounds' spread.
if want scale; then
	echo
	echo "scaling: ns per event (CPU-s / events; median and min-max of $RUNS interleaved rounds), peak RSS"
	printf '%-6s %9s %17s %7s %9s %17s %7s\n' vCPUs "pinned ev" "ns/ev (min-max)" "RSS MB" \
	    "CFS 2x ev" "ns/ev (min-max)" "RSS MB"
	: > "$tmp/scale"
	i=0
	while [ $i -lt "$RUNS" ]; do
		for n in 8 64 512 4096; do
			case $n in 8) pd=640ms; cd=96s ;; 64) pd=560ms; cd=2700ms ;;
			512) pd=560ms; cd=200ms ;; *) pd=1100ms; cd=20ms ;; esac
			# CFS: N/8 VMs of 8 vCPUs on N/2 pCPUs, at most 128 cores a socket
			p=$((n / 2)); if [ $p -le 128 ]; then cs="1 $p"; else cs="$((p / 128)) 128"; fi
			vl_peer $n $pd "$tmp/o" || exit 1
			echo "$n $i pinned $(csv_events "$tmp/o") $(cat "$tmp/t1")" >> "$tmp/scale"
			set -- $cs
			timed "$tmp/o" "$VS" run "$SRC/bench/scale.yaml" --set "vms[0].count=$((n / 8))" \
			    --set "machine.sockets=$1" --set "machine.cores_per_socket=$2" \
			    --set "duration=$cd" --reps 1 --no-wall-clock --format csv || exit 1
			echo "$n $i cfs $(csv_events "$tmp/o") $(cat "$tmp/t1")" >> "$tmp/scale"
		done
		i=$((i + 1))
	done
	# $tmp/scale: N round host events cpu_s rss_kB wall_s
	awk 'function med(a, k,   i, j, x) { for (i = 2; i <= k; i++) { x = a[i]
		for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
		return a[int((k + 1) / 2)] }
	    { ns = $5 * 1e9 / $4; k = $1 SUBSEP $3; c[k]++; v[k, c[k]] = ns; r[k, c[k]] = $6 / 1024
		ev[k] = $4; byr[$1, $3, $2] = ns; rounds[$2] = 1 }
	    # row N HOST: "events median (min-max) RSS"
	    function row(n, h,   k, i, a, b, lo, hi) { k = n SUBSEP h
		for (i = 1; i <= c[k]; i++) { a[i] = v[k, i]; b[i] = r[k, i]
			lo = i == 1 || a[i] < lo ? a[i] : lo; hi = i == 1 || a[i] > hi ? a[i] : hi }
		return sprintf("%9d %17s %7.1f", ev[k], sprintf("%.1f (%.0f-%.0f)", med(a, c[k]), lo, hi),
		    med(b, c[k])) }
	    # ratio HOST: the median over the rounds of 4096 / 8, and the extremes
	    function ratio(h,   i, m, q, lo, hi) { for (i in rounds) { m++
		q[m] = byr[4096, h, i] / byr[8, h, i]
		lo = m == 1 || q[m] < lo ? q[m] : lo; hi = m == 1 || q[m] > hi ? q[m] : hi }
		return sprintf("%.2f (%.2f-%.2f)", med(q, m), lo, hi) }
	    END { for (n = 8; n <= 4096; n *= 8)
		printf "%-6d %s %s\n", n, row(n, "pinned"), row(n, "cfs")
		printf "ns/event at 4096 vCPUs / at 8 (the rounds\047 median, min-max): pinned %s, CFS 2x %s (target <= 2)\n",
		    ratio("pinned"), ratio("cfs") }' "$tmp/scale"
fi
echo "load after: $(uptime)"
