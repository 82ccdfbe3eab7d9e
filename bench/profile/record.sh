#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/profile/record.sh - record the kernel's own lock, IPI, TLB, fork/exit
# and page-fault profile of one real workload run (issue 28).
#
#   record.sh NAME OUTDIR -- CMD [ARGS...]
#
# Runs CMD under `perf record` per process with inherit (the default: the
# workload and every child it forks, nothing else on the machine), with:
#   lock:contention_begin (with the kernel call chain: the lock's call site),
#   lock:contention_end, sched:sched_switch/sched_wakeup/sched_wakeup_new,
#   sched:sched_process_fork/exit/exec, ipi:ipi_send_cpu/ipi_send_cpumask
#   (the sender's side: its call site says reschedule or function call),
#   irq_vectors:{call_function,call_function_single,reschedule}_entry (the
#   receiver's side, when the workload was current there), tlb:tlb_flush,
#   page faults (software event page-faults, every 100th sampled, named
#   page_faults) and the workload's CPU time (task-clock, one sample per ms of
#   it with the call chain, named task_clock: busy CPU-seconds, and where the
#   time goes).
# Writes OUTDIR/NAME.data (perf.data, not shipped: tens of MB) and
# OUTDIR/NAME.meta (provenance: kernel, CPU, date, command, load average
# before and during, the workload's own output).  Run it under /work/bin/quiet
# so no other helper's build runs meanwhile; bench/profile/run-all.sh runs the
# set the presets cite, bench/profile/summarize.sh derives the summaries.
set -eu
[ $# -ge 4 ] && [ "$3" = "--" ] || { echo "usage: record.sh NAME OUTDIR -- CMD..." >&2; exit 2; }
name=$1 out=$2
shift 3
mkdir -p "$out"
data=$out/$name.data meta=$out/$name.meta log=$out/$name.out
: "${PERF:=perf}"

# Tracepoints need tracefs (perf reads event formats there).
[ -d /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true

cmd=$*
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
# Load average during the run: sampled every 5 s by a background loop.
( while :; do cut -d' ' -f1 /proc/loadavg; sleep 5; done ) > "$out/$name.load" &
sampler=$!
t0=$(date +%s.%N)
rc=0
# EVENTS=lean: the lock events and task_clock alone, a control for the
# observer effect (sched_switch/sched_wakeup are emitted with rq->__lock and
# p->pi_lock held, so recording them lengthens those sections).
if [ "${EVENTS:-full}" = lean ]; then
	set -- -e 'lock:contention_begin/call-graph=fp/' -e lock:contention_end \
		-e 'task-clock/period=1000000,name=task_clock,call-graph=fp/' -- "$@"
else
	set -- -e 'lock:contention_begin/call-graph=fp/' -e lock:contention_end \
		-e sched:sched_switch -e sched:sched_wakeup -e sched:sched_wakeup_new \
		-e sched:sched_process_fork -e sched:sched_process_exit \
		-e sched:sched_process_exec -e ipi:ipi_send_cpu -e ipi:ipi_send_cpumask \
		-e irq_vectors:call_function_entry -e irq_vectors:call_function_single_entry \
		-e irq_vectors:reschedule_entry -e tlb:tlb_flush \
		-e 'page-faults/period=100,name=page_faults/' \
		-e 'task-clock/period=1000000,name=task_clock,call-graph=fp/' -- "$@"
fi
"$PERF" record -q --sample-cpu -o "$data" "$@" > "$log" 2>&1 || rc=$?
t1=$(date +%s.%N)
kill "$sampler" 2>/dev/null || true
wait "$sampler" 2>/dev/null || true
load_during=$(sort -n "$out/$name.load" | awk '{a[NR]=$1} END {if (NR) printf "min %s max %s (%d samples, every 5 s)", a[1], a[NR], NR}')

{
	echo "name: $name"
	echo "command: $cmd"
	echo "events: ${EVENTS:-full}"
	echo "exit: $rc"
	echo "date_end: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "wall_s: $(echo "$t1 - $t0" | bc)"
	echo "kernel: $(uname -r) ($(uname -v))"
	echo "machine: $(nproc) vCPUs, $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(grep -m1 '^flags' /proc/cpuinfo | grep -qw hypervisor && echo 'a VM (hypervisor flag)' || echo 'bare metal')"
	echo "perf: $("$PERF" --version)"
	echo "load_before: $load_before"
	echo "load_during: $load_during"
	echo "perf_data_bytes: $(stat -c %s "$data" 2>/dev/null || echo 0)"
	echo "workload_output: |"
	tail -n 8 "$log" | sed 's/^/  /'
} > "$meta"
rm -f "$out/$name.load"
exit "$rc"
