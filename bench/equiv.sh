#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# equiv.sh BASE NEW [OUTDIR] - the same-distribution check of a speed change
# that is not exact (a reordered tie, another random stream): issue 31's
# "replications, CI overlap".  Runs bench/cases.sh's scenarios with binary
# BASE and binary NEW, EQUIV_REPS replications each (default 8, CSV), and
# compares every metric but the cost figures (bench_cost): it is SEPARATED
# when the two 95% confidence intervals do not overlap (|mean difference| >
# ci95 + ci95), or when its sd is 0 on both sides (a scenario without
# randomness) and the means differ.  Equal distributions separate now and
# then by chance (well under 1% of the ~800 metrics a round), so a case with
# a separation runs again on fresh seeds (1001 on; round 1 has 1 on): a
# metric separated in both rounds, the same way, is a DIFF and the exit
# status is 1; one separated in one round only is printed as CHANCE.  A
# metric one binary prints and the other does not is a DIFF too.  A DIFF in a
# metric with sd 0 is a tie reordered in a scenario without randomness: it
# needs its own explanation.  Needs ~2-4 CPU-minutes with the default.
A=$1; B=$2; OUT=${3:-${TMPDIR:-/tmp}/vlocksim-equiv}; SRC=$(cd "$(dirname "$0")/.." && pwd)
R=${EQUIV_REPS:-8}
[ -n "$A" ] && [ -n "$B" ] || { echo "usage: equiv.sh BASE NEW [OUTDIR]" >&2; exit 2; }
case $A in /*) ;; *) A=$PWD/$A ;; esac
case $B in /*) ;; *) B=$PWD/$B ;; esac
mkdir -p "$OUT"; cd "$SRC" || exit 2
. bench/cases.sh
fail=0; n=0; nm=0; nchance=0

# cmp_csv A.csv B.csv: one line per separated metric, "NAME DIR A-mean±ci
# B-mean±ci" (DIR: + when B is above), and "MISSING NAME" for a metric only
# one side has
cmp_csv() {
	awk -F, -v cost=" $bench_cost " '
	    FNR == 1 { f++; next }
	    index(cost, " " $1 " ") { next }
	    f == 1 { m[$1] = $3; c[$1] = $5; s[$1] = $4; next }
	    { seen[$1] = 1
	      if (!($1 in m)) { print "MISSING " $1; next }
	      if ($3 == m[$1]) next
	      if ($3 == "nan" || m[$1] == "nan") { print "MISSING " $1; next }
	      d = $3 - m[$1]; ad = d < 0 ? -d : d
	      if (ad > c[$1] + $5 || (s[$1] == 0 && $4 == 0))
		  printf "%s %s %s±%s %s±%s\n", $1, (d > 0 ? "+" : "-"), m[$1], c[$1], $3, $5 }
	    END { for (k in m) if (!(k in seen)) print "MISSING " k }' "$1" "$2"
}

# run1 TAG ROUND SEEDSET ARGS...: both binaries, R replications, CSV
run1() {
	tag=$1 round=$2 sd=$3; shift 3
	for w in A B; do
		eval bin=\$$w
		if ! nice -n 10 "$bin" run "$@" $sd --reps "$R" --no-wall-clock --format csv \
		    > "$OUT/$tag.$round.$w.csv" 2> "$OUT/$tag.$round.$w.err"; then
			echo "FAIL $tag ($w: $(head -1 "$OUT/$tag.$round.$w.err"))"; fail=1; return 1
		fi
	done
	cmp_csv "$OUT/$tag.$round.A.csv" "$OUT/$tag.$round.B.csv" | sort > "$OUT/$tag.$round.sep"
}

check() {
	tag=$1; shift
	n=$((n + 1))
	run1 "$tag" 1 "" "$@" || return 0
	nm=$((nm + $(tail -n +2 "$OUT/$tag.1.A.csv" | wc -l)))
	[ -s "$OUT/$tag.1.sep" ] || return 0
	# fresh seeds: every scenario here starts at seed 1 (rep r: 1 + r)
	run1 "$tag" 2 "--set seed=1001" "$@" || return 0
	while read -r name rest; do
		if [ "$name" = MISSING ]; then
			echo "DIFF $tag: $rest printed by one binary only"; fail=1; continue
		fi
		set -- $rest
		again=$(awk -v k="$name" -v d="$1" '$1 == k && $2 == d { print $3 " " $4 }' "$OUT/$tag.2.sep")
		if [ -n "$again" ]; then
			echo "DIFF $tag: $name $1 (round 1: $2 -> $3; round 2: $again)"; fail=1
		else
			echo "CHANCE $tag: $name $1 (round 1: $2 -> $3; not in round 2)"
			nchance=$((nchance + 1))
		fi
	done < "$OUT/$tag.1.sep"
}
bench_cases check
echo "$n cases, $nm metrics, $R replications: fail=$fail, separated by chance=$nchance"
exit $fail
