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

# The work is two awk passes and one loop of shell builtins (a process per
# include made it 3.5 CPU-s a run, and e2e_layers runs it 12 times).
t=${TMPDIR:-/tmp}/layers.$$
trap 'rm -f "$t".*' EXIT
find sim models -name '*.[ch]' | LC_ALL=C sort >"$t.files"
incdirs="$(ls -d sim/*/ 2>/dev/null | sed 's,/$,,') models"

# Pass 1: every quoted include as FILE LINE HEADER (the line's last "...",
# as the sed this replaced read it), and every path the compiler would try
# for it: the file's own folder, then each -I folder.
awk -v incdirs="$incdirs" -v inc="$t.inc" -v cand="$t.cand" '
	BEGIN { nd = split(incdirs, dirs, " ") }
	{ f = $0; n = 0; d = f; sub(/\/[^\/]*$/, "", d)
	  while ((getline l < f) > 0) {
		n++
		if (l !~ /^[[:space:]]*#[[:space:]]*include[[:space:]]*"/) continue
		if (!match(l, /"[^"]*"[^"]*$/)) continue
		h = substr(l, RSTART + 1); sub(/".*/, "", h)
		gsub(/^[[:space:]]+|[[:space:]]+$/, "", h)
		print f "\t" n "\t" h > inc
		print d "/" h > cand
		for (i = 1; i <= nd; i++) print dirs[i] "/" h > cand
	  }
	  close(f) }' "$t.files"
touch "$t.inc" "$t.cand"

# The paths that exist, and whether a .c stands beside each .h (builtins only).
LC_ALL=C sort -u "$t.cand" | while read -r p; do
	if [ -f "$p" ]; then
		if [ -f "${p%.h}.c" ]; then echo "1 $p"; else echo "0 $p"; fi
	fi
done >"$t.exist"

# Pass 2: ranks, upward includes and the folders' call edges, in file order.
awk -v allow="$ALLOW" -v incdirs="$incdirs" -v edges="$t.edges" -v stats="$t.stats" '
	function rank(p) {
		if (p ~ /^sim\/trace\/(trace_acc\.h|trace_ftrace\.c|trace_xen\.c|trace_lockstat\.c|trace_perfkvm\.c|trace_dat\.c|trace_datchk\.c|trace_datchk\.h)$/) return "6.5"
		if (p ~ /^sim\/engine\//) return "0"
		if (p ~ /^sim\/conf\//) return "1"
		if (p ~ /^models\/hw\//) return "2"
		if (p ~ /^models\/hv\//) return "3"
		if (p ~ /^models\/guest\//) return "4"
		if (p ~ /^models\/workload\//) return "4.5"
		if (p ~ /^models\/.*\//) return "-"
		if (p ~ /^models\//) return "5"
		if (p ~ /^(sim\/scenario|sim\/report)\//) return "6"
		if (p ~ /^(sim\/exec|sim\/validate|sim\/trace)\//) return "7"
		if (p ~ /^sim\/cli\//) return "8"
		return "-"
	}
	function dir(p) { sub(/\/[^\/]*$/, "", p); return p }
	function base(p) { sub(/^.*\//, "", p); return p }
	function stem(p) { sub(/\.[ch]$/, "", p); return p }
	BEGIN { na = split(allow, a, "\n"); for (i = 1; i <= na; i++) if (a[i] != "") ok[a[i]] = 1
		nd = split(incdirs, dirs, " ") }
	FILENAME == ARGV[1] { isc[substr($0, 3)] = $1; next }
	FILENAME == ARGV[2] { split($0, x, "\t"); k = ++ninc_of[x[1]]
		line[x[1], k] = x[2]; hdr[x[1], k] = x[3]; next }
	{ f = $0; nfiles++; rf = rank(f)
	  if (rf == "-") {
		print f ": in no layer (add its folder to tests/check_layers.sh and sim/README.md)"
		nbad++; next
	  }
	  d = dir(f)
	  for (k = 1; k <= ninc_of[f]; k++) {
		h = ""
		if ((d "/" hdr[f, k]) in isc) h = d "/" hdr[f, k]
		else for (i = 1; i <= nd; i++) if ((dirs[i] "/" hdr[f, k]) in isc) { h = dirs[i] "/" hdr[f, k]; break }
		if (h == "") continue
		c = isc[h]
		gsub(/\/\.\//, "/", h); sub(/^\.\//, "", h)
		ninc++
		# an edge of the folder call graph (circles, below)
		hs = h; sub(/\.h$/, "", hs)
		if (dir(h) == d && c == 1 && hs != stem(f))
			print d " " base(stem(f)) " " base(hs) > edges
		rh = rank(h)
		if (rh == "-") continue	# reported as a file of its own
		if (rh + 0 > rf + 0) {
			nup++
			if ((f ":" h) in ok)
				print f ":" line[f, k] ": includes " h " (layer " rh " above " rf "): allowed for now"
			else {
				print f ":" line[f, k] ": includes " h " (layer " rh " above " rf ")"
				nbad++
			}
		}
	  } }
	END { print nfiles + 0, ninc + 0, nup + 0, nbad + 0 > stats }' \
	    "$t.exist" "$t.inc" "$t.files"
read -r nfiles ninc nup nbad <"$t.stats"
ncirc=0
touch "$t.edges"
for d in $(awk '{print $1}' "$t.edges" | LC_ALL=C sort -u); do
	# tsort names the files of each loop it finds on stderr
	awk -v d="$d" '$1 == d { print $2, $3 }' "$t.edges" |
	    tsort 2>&1 >/dev/null | awk -v d="$d" '
		/input contains a loop/ { if (c != "") print "circle in " d ":" c; c = ""; next }
		{ sub(/^tsort: /, ""); c = c " " $0 }
		END { if (c != "") print "circle in " d ":" c }' >"$t.circ"
	cat "$t.circ"
	ncirc=$((ncirc + $(wc -l <"$t.circ")))
done
nbad=$((nbad + ncirc))
echo "layers: $nfiles files, $ninc includes, $nup upward, $ncirc circles, $nbad not allowed"
[ "$nbad" -eq 0 ]
