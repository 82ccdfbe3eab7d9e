#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# check_layers.sh [TOP] - fail when a file includes a header of a layer above it.
#
# Layers, bottom first (sim/README.md); a file may include headers of its own
# rank or lower.  Folders of equal rank may include each other.
#   0 sim/engine   1 sim/conf   2 models/hw   3 models/hv   4 models/guest
#   4.5 models/workload   5 models/ (registry)   6 sim/scenario, sim/report
#   7 sim/exec, sim/validate, sim/trace   8 sim/cli
# Inside sim/trace the format readers and their hook table (trace_acc.h) sit
# at 6.5, below the accumulator (trace_in.c) that fills the table in: a reader
# that includes trace_in.h is the old circle coming back.
# An include is resolved as the compiler does (the file's own folder, then
# every -I folder of Makefile.am); headers found nowhere (config.h, system,
# GSL) are not checked.  A .c or .h in a folder with no rank fails too.
# Run by `make check` (tests/e2e_layers.sh); by hand: sh tests/check_layers.sh .
# Files of one folder may not call each other in a circle either: X -> Y when
# X.c or X.h includes Y.h and Y.c exists beside it (Y's code is called);
# each circle found (tsort) is one line "circle in FOLDER: X Y ...".
# Prints one line per upward include or circle, "layers: N files, M includes,
# K upward, C circles"; exit 0 when none outside the allow-list, 1 otherwise.

top=${1:-.}
cd "$top" || exit 2

# Upward includes that exist today, as FILE:HEADER (the resolved path).
# None: the hv core reaches the guest through struct hv_guest_ops, locks
# reach the workload through struct lock_client.
ALLOW="
"

rank() {
	case $1 in
	sim/trace/trace_acc.h|sim/trace/trace_ftrace.c|sim/trace/trace_xen.c|sim/trace/trace_lockstat.c|sim/trace/trace_perfkvm.c|sim/trace/trace_dat.c|\
	sim/trace/trace_datchk.c|sim/trace/trace_datchk.h) echo 6.5 ;;
	sim/engine/*) echo 0 ;;
	sim/conf/*) echo 1 ;;
	models/hw/*) echo 2 ;;
	models/hv/*) echo 3 ;;
	models/guest/*) echo 4 ;;
	models/workload/*) echo 4.5 ;;
	models/*/*) echo - ;;
	models/*) echo 5 ;;
	sim/scenario/*|sim/report/*) echo 6 ;;
	sim/exec/*|sim/validate/*|sim/trace/*) echo 7 ;;
	sim/cli/*) echo 8 ;;
	*) echo - ;;
	esac
}

incdirs="$(ls -d sim/*/ 2>/dev/null | sed 's,/$,,') models"

# resolve FILE HEADER: the path the compiler would open, or nothing.
resolve() {
	d=$(dirname "$1")
	for dir in "$d" $incdirs; do
		if [ -f "$dir/$2" ]; then
			echo "$dir/$2" | sed 's,/\./,/,g; s,^\./,,'
			return
		fi
	done
}

nfiles=0
ninc=0
nup=0
nbad=0
for f in $(find sim models -name '*.[ch]' | LC_ALL=C sort); do
	nfiles=$((nfiles + 1))
	rf=$(rank "$f")
	if [ "$rf" = - ]; then
		echo "$f: in no layer (add its folder to tests/check_layers.sh and sim/README.md)"
		nbad=$((nbad + 1))
		continue
	fi
	grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
	    sed 's/^\([0-9]*\):.*"\([^"]*\)".*/\1 \2/' >"${TMPDIR:-/tmp}/layers.$$"
	while read -r line hdr; do
		h=$(resolve "$f" "$hdr")
		[ -n "$h" ] || continue
		ninc=$((ninc + 1))
		# an edge of the folder's call graph (circles, below)
		if [ "$(dirname "$h")" = "$(dirname "$f")" ] && [ -f "${h%.h}.c" ] &&
		    [ "${h%.h}" != "${f%.[ch]}" ]; then
			echo "$(dirname "$f") $(basename "${f%.[ch]}") $(basename "${h%.h}")" \
			    >>"${TMPDIR:-/tmp}/layers-edges.$$"
		fi
		rh=$(rank "$h")
		[ "$rh" = - ] && continue	# reported as a file of its own
		if awk -v a="$rh" -v b="$rf" 'BEGIN { exit !(a > b) }'; then
			nup=$((nup + 1))
			case $ALLOW in
			*"
$f:$h
"*)
				echo "$f:$line: includes $h (layer $rh above $rf): allowed for now" ;;
			*)
				echo "$f:$line: includes $h (layer $rh above $rf)"
				nbad=$((nbad + 1)) ;;
			esac
		fi
	done <"${TMPDIR:-/tmp}/layers.$$"
	rm -f "${TMPDIR:-/tmp}/layers.$$"
done
ncirc=0
touch "${TMPDIR:-/tmp}/layers-edges.$$"
for d in $(awk '{print $1}' "${TMPDIR:-/tmp}/layers-edges.$$" | LC_ALL=C sort -u); do
	# tsort names the files of each loop it finds on stderr
	awk -v d="$d" '$1 == d { print $2, $3 }' "${TMPDIR:-/tmp}/layers-edges.$$" |
	    tsort 2>&1 >/dev/null | awk -v d="$d" '
		/input contains a loop/ { if (c != "") print "circle in " d ":" c; c = ""; next }
		{ sub(/^tsort: /, ""); c = c " " $0 }
		END { if (c != "") print "circle in " d ":" c }' >"${TMPDIR:-/tmp}/layers-circ.$$"
	cat "${TMPDIR:-/tmp}/layers-circ.$$"
	ncirc=$((ncirc + $(wc -l <"${TMPDIR:-/tmp}/layers-circ.$$")))
done
rm -f "${TMPDIR:-/tmp}/layers-edges.$$" "${TMPDIR:-/tmp}/layers-circ.$$"
nbad=$((nbad + ncirc))
echo "layers: $nfiles files, $ninc includes, $nup upward, $ncirc circles, $nbad not allowed"
[ "$nbad" -eq 0 ]
