#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e_layers.sh - the include layering (tests/check_layers.sh): the tree
# passes, and a copy with one upward include or one circle between files of
# a folder injected fails, naming it.
#
# Run by `make check`, or by hand: top_srcdir=. top_builddir=. sh tests/e2e_layers.sh
# One line per check, then "N passed, M failed"; exit 0 / 1, 77 without a binary.

. "$(dirname "$0")/e2e_lib.sh"
CL=$top_srcdir/tests/check_layers.sh

sh "$CL" "$top_srcdir" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "the tree passes" [ "$rc" -eq 0 ]
check "no upward include remains (hv -> guest goes through struct hv_guest_ops)" \
    [ "$(grep -c 'allowed for now' "$tmp/out")" -eq 0 ]

# inject FILE LINE: a copy of sim/ and models/ with LINE added to FILE.
inject() {
	rm -rf "$tmp/t"
	mkdir "$tmp/t"
	cp -R "$top_srcdir/sim" "$top_srcdir/models" "$tmp/t/"
	chmod -R u+w "$tmp/t"
	printf '%s\n' "$2" >>"$tmp/t/$1"
	sh "$CL" "$tmp/t" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

inject sim/engine/evq.c '#include "scenario.h"'
check "engine including scenario.h fails" [ "$rc" -eq 1 ]
check "  and names the file, the header and both layers" \
    grep -q '^sim/engine/evq.c:[0-9]*: includes sim/scenario/scenario.h (layer 6 above 0)$' "$tmp/out"

inject models/hw/machine.c '#include "hv/hv.h"'
check "models/hw including hv/hv.h fails" [ "$rc" -eq 1 ]

inject models/guest/lock.c '#include "run.h"'
check "a model including a scenario header fails" [ "$rc" -eq 1 ]

inject sim/scenario/run.c '#include "cmd.h"'
check "scenario including a cli header fails" [ "$rc" -eq 1 ]

inject sim/trace/trace_xen.c '#include "trace_in.h"'
check "a trace reader including trace_in.h (the old circle) fails" [ "$rc" -eq 1 ]

inject models/hv/sched_credit.c '#include "guest/lock.h"'
check "an upward include not on the allow-list fails" [ "$rc" -eq 1 ]

inject models/guest/lock.c '#include "workload/workload.h"'
check "a lock including the workload layer fails (it has struct lock_client)" [ "$rc" -eq 1 ]

inject models/guest/kernel.c '#include "guest/ipi.h"'
check "two files of one folder calling each other (kernel.c <-> ipi.c) fail" [ "$rc" -eq 1 ]
check "  and the circle is named" grep -q '^circle in models/guest: .*kernel' "$tmp/out"

inject models/guest/vdisk.c '#include "guest/ipi.h"'
check "a one-way call inside a folder passes" [ "$rc" -eq 0 ]

inject sim/cli/main.c '#include "trace_in.h"'
check "a downward include passes" [ "$rc" -eq 0 ]

mkdir -p "$tmp/t/sim/newlayer" && echo 'int x;' >"$tmp/t/sim/newlayer/x.c"
sh "$CL" "$tmp/t" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "a file in a folder with no layer fails" [ "$rc" -eq 1 ]

# The readers define only their reader tables and call nothing of trace_in.o.
# The library's objects carry its prefix (per-target flags: libvlocksim_a-).
ob=$top_builddir/sim/trace/libvlocksim_a-
if command -v nm >/dev/null 2>&1 && [ -f "${ob}trace_in.o" ] && [ -f "${ob}trace_xen.o" ]; then
	nm -g --defined-only "${ob}trace_in.o" | awk '{print $3}' | sort >"$tmp/in"
	nm -u "${ob}trace_ftrace.o" "${ob}trace_xen.o" | awk 'NF {print $NF}' | sort -u >"$tmp/need"
	check "the trace readers use no symbol of trace_in.o" \
	    [ -z "$(comm -12 "$tmp/in" "$tmp/need")" ]
	nm -u "${ob}trace_in.o" | awk '{print $NF}' | grep -q '^ti_reader_ftrace$'
	check "  and trace_in.o does use the readers' tables" [ $? -eq 0 ]
else
	skip "the trace readers use no symbol of trace_in.o (no objects or nm)"
fi

# No function over 150 lines (issue 32) but the interpreter's dispatch
# (wl_continue, one case per op): a top-level definition starts at a line
# "name(" and ends at the first line "}".
for f in $(cd "$top_srcdir" && find sim models -name '*.c' | LC_ALL=C sort); do
	awk -v F="$f" '/^[a-zA-Z_][a-zA-Z0-9_]*\(/ { n = $0; sub(/\(.*/, "", n); s = NR }
	    s && /^}/ { if (NR - s + 1 > 150 && n != "wl_continue") print F ":" s ": " n " " NR - s + 1; s = 0 }' \
	    "$top_srcdir/$f"
done >"$tmp/long"
check "no function over 150 lines (wl_continue, the dispatch, aside)" [ ! -s "$tmp/long" ]
[ -s "$tmp/long" ] && show "$tmp/long"

e2e_finish
