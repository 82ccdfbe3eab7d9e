#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/profile/summarize.sh RECDIR [SUMDIR] - the shipped summaries of the
# recordings record.sh made in RECDIR: for each NAME.data, `perf script` text
# (kept in RECDIR, not shipped), `vlocksim trace import --guest --profile`
# (sim/trace/trace_kprof.h: lock classes by call site, IPIs, TLB shootdowns,
# fork/exit/exec and page faults per busy CPU-second), and NAME.meta's
# provenance, into SUMDIR/NAME.yaml (default bench/profile/summaries).
set -eu
rec=${1:?usage: summarize.sh RECDIR [SUMDIR]}
here=$(cd "$(dirname "$0")" && pwd)
sum=${2:-$here/summaries}
: "${VLOCKSIM:=$here/../../vlocksim}" "${PERF:=perf}"
# Where this machine runs (not visible from inside; say it): the default is
# the project's shared machine of issue 28.
: "${HOST_NOTE:=a Firecracker-like microVM (kernel built -fc), 2 vCPUs, shared by other jobs that /work/bin/quiet held back during the recording}"
mkdir -p "$sum"
for data in "$rec"/*.data; do
	name=$(basename "$data" .data)
	txt=$rec/$name.txt
	[ -s "$txt" ] && [ "$txt" -nt "$data" ] ||
		"$PERF" script --ns -i "$data" -F comm,tid,cpu,time,period,event,trace,ip,sym \
			> "$txt" 2> "$rec/$name.script.err"
	"$VLOCKSIM" trace import "$txt" --guest --profile "$rec/$name.kprof" > "$rec/$name.import.txt"
	{
		echo "# bench/profile/summaries/$name.yaml: a perf recording of this machine's"
		echo "# own kernel (issue 28), by bench/profile/record.sh (events listed there);"
		echo "# derived by bench/profile/summarize.sh with vlocksim trace import --profile"
		echo "# (sim/trace/trace_kprof.h).  Rates are per busy CPU-second of the workload."
		echo "provenance:"
		echo "  host: \"$HOST_NOTE\""
		# NAME.meta's "key: value" lines, quoted; its workload_output block as a list.
		awk '
			/^workload_output:/ { out = 1; print "  workload_output:"; next }
			out { sub(/^  /, ""); if ($0 ~ /libtraceevent|__get_cpumask/) next
			      gsub(/\\/, "\\\\"); gsub(/"/, "\\\""); print "    - \"" $0 "\""; next }
			{ k = $0; sub(/:.*/, "", k); v = $0; sub(/^[^:]*: ?/, "", v)
			  gsub(/\\/, "\\\\", v); gsub(/"/, "\\\"", v); print "  " k ": \"" v "\"" }
		' "$rec/$name.meta"
		echo "  perf_script_lines: $(wc -l < "$txt")"
		sed 1d "$rec/$name.kprof"
	} > "$sum/$name.yaml"
	echo "$sum/$name.yaml"
done
