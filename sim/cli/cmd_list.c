/* cmd_list.c - `vlocksim list`: what the registry holds. */
#include <stdio.h>

#include "cmd.h"
#include "guest/gsched.h"
#include "guest/lock.h"
#include "hv/kind.h"
#include "hv/sched.h"
#include "registry.h"

int
cmd_list(int argc, char **argv)
{
	int i;

	puts("hypervisor kinds (hypervisor.kind):");
	for (i = 0; registry_kinds[i] != NULL; i++)
		printf("  %-14s %s\n", registry_kinds[i]->name, registry_kinds[i]->desc);
	puts("schedulers (hypervisor.scheduler):");
	for (i = 0; registry_scheds[i] != NULL; i++) {
		printf("  %-14s %s\n", registry_scheds[i]->name, registry_scheds[i]->desc);
		if (registry_scheds[i]->params != NULL)
			printf("  %-14s params: %s\n", "", registry_scheds[i]->params);
	}
	puts("locks (vms[].lock: NAME, or {kind: NAME, PARAM: VALUE, ...}; parameters with defaults):");
	for (i = 0; registry_locks[i] != NULL; i++) {
		const struct lock_param *lp = registry_locks[i]->params;

		printf("  %-14s %s\n", registry_locks[i]->name, registry_locks[i]->desc);
		for (; lp != NULL && lp->name != NULL; lp++)
			printf("      %s: %s\n          %s\n", lp->name, lp->def, lp->what);
	}
	puts("guest schedulers (vms[].guest.scheduler; guest: {hz, tickless, halt_poll,\n"
	    "  steal_clock, start_phase: aligned|random}):");
	for (i = 0; registry_gscheds[i] != NULL; i++)
		printf("  %-14s %s\n", registry_gscheds[i]->name, registry_gscheds[i]->desc);
	puts("workload primitives (workloads.NAME.program, or .programs.P with .tasks):\n"
	    "  compute: DIST      run guest code for a time drawn from DIST\n"
	    "  acquire: LOCK      take a lock of the VM (its algorithm is vms[].lock)\n"
	    "  release: LOCK      release it\n"
	    "  count: NAME        bump a per-VM counter (metric VM.NAME, VM.NAME_per_sec)\n"
	    "  io: KIND           an exit: pio-kernel, pio-user, mmio-kernel, mmio-user, hypercall\n"
	    "  sleep: DIST        block (HLT) for a time, then an interrupt wakes the vCPU\n"
	    "  memory: SIZE       stream bytes through the socket's shared memory bandwidth\n"
	    "  loop: N|forever    with do: [...]\n"
	    "task primitives (the task form: programs + tasks: [{program, count, nice, cpus}]):\n"
	    "  block: DIST        the task sleeps (I/O, a timer); its vCPU runs others or idles\n"
	    "  disk: DIST         a read the VM's disk serves in DIST after those queued before\n"
	    "  wait: Q            take a token of wait queue Q, or sleep until woken\n"
	    "  wake: Q            wake one waiter of Q ({on: Q, count: N} or {on: Q, all: true})\n"
	    "  spawn: {program: P, count: N, parallel: M}   start N child tasks, at most M alive\n"
	    "  join: children     wait until every child has exited\n"
	    "  barrier: {name: B, count: N}   the N-th arrival releases all\n"
	    "  mark: {start: R} / mark: {stop: R}   a timed region: VM.R_mean_s, R_sd_s, R_n\n"
	    "distributions: const, exponential, uniform, normal, lognormal, gamma, empirical");
	puts("metrics:\n"
	    "  sim_seconds, completed, completion_seconds, megacycles (until: done),\n"
	    "  events, events_per_sec, ctx_switches, hlt_exits, ipi_exits, timer_exits, wakes,\n"
	    "  VM.{guest_idle_share,idle_halts_per_sec,guest_ctx_switches,task_migrations,\n"
	    "  task_wakeups,resched_ipis,guest_ticks,tasks_spawned,disk_reads,disk_busy_share,\n"
	    "  wake_latency_mean_ns,wake_latency_p99_ns} (task form),\n"
	    "  VM.{running,runnable,blocked,offline}_share (%), VM.COUNTER, VM.COUNTER_per_sec,\n"
	    "  VM.LOCK.{acquisitions,contended_share,wait_mean_ns,wait_p50_ns,wait_p99_ns,"
	    "hold_mean_ns}");
	return 0;
}

