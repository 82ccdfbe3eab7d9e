/* cmd_list.c - `vlocksim list`: what the registry holds. */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "guest/gsched.h"
#include "guest/lock.h"
#include "guest/slock.h"
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
	for (i = 0; registry_kinds[i] != NULL; i++)
		if (registry_kinds[i]->list != NULL)
			registry_kinds[i]->list(stdout);
	puts("schedulers (hypervisor.scheduler):");
	for (i = 0; registry_scheds[i] != NULL; i++) {
		const char *p = registry_scheds[i]->params;

		printf("  %-14s %s\n", registry_scheds[i]->name, registry_scheds[i]->desc);
		if (p != NULL && strchr(p, '\n') == NULL)
			printf("  %-14s params: %s\n", "", p);
		else
			while (p != NULL && *p != '\0') {	/* one parameter a line */
				const char *nl = strchr(p, '\n');
				int n = nl != NULL ? (int)(nl - p) : (int)strlen(p);

				printf("      %.*s\n", n, p);
				p += n + (nl != NULL);
			}
	}
	puts("VM cgroup (vms[].cgroup; needs hypervisor.params.groups: per-vm, cfs or eevdf):\n"
	    "  weight: 100        cgroup v2 cpu.weight 1..10000 (100 = shares 1024)\n"
	    "  max: max           cpu.max \"QUOTA/PERIOD\" (e.g. \"50ms/100ms\"): CFS bandwidth");
	puts("locks (vms[].lock: NAME, or {kind: NAME, PARAM: VALUE, ...}; parameters with defaults):");
	for (i = 0; registry_locks[i] != NULL; i++) {
		const struct lock_param *lp = registry_locks[i]->params;

		printf("  %-14s %s\n", registry_locks[i]->name, registry_locks[i]->desc);
		for (; lp != NULL && lp->name != NULL; lp++)
			printf("      %s: %s\n          %s\n", lp->name, lp->def, lp->what);
	}
	puts("guest schedulers (vms[].guest.scheduler; guest: {hz, tickless, halt_poll,\n"
	    "  steal_clock, start_phase: aligned|random, vcpu_is_preempted, ipi}):");
	for (i = 0; registry_gscheds[i] != NULL; i++)
		printf("  %-14s %s\n", registry_gscheds[i]->name, registry_gscheds[i]->desc);
	puts("guest IPIs (vms[].guest.ipi: {...}; defaults in parentheses):\n"
	    "  mode: physical|cluster|pv  (physical) x2APIC physical: an ICR-write exit per\n"
	    "                 destination; cluster: one per cluster of 16; pv: KVM_HC_SEND_IPI,\n"
	    "                 one hypercall per 128 APIC IDs (Linux 4.19 kvm_send_ipi_mask)\n"
	    "  ipiv: BOOL     (false) posted interrupts / IPI virtualization: no sender exit\n"
	    "  pv_tlb_flush: BOOL  (false) Linux 4.16 kvm_flush_tlb_others: a preempted target\n"
	    "                 is marked in steal time and flushes on its next entry\n"
	    "  pv_sched_yield: BOOL  (false) Linux 5.3: after a function-call IPI, yield\n"
	    "                 (KVM_HC_SCHED_YIELD) to the first preempted target\n"
	    "  flush_cost: TIME  (500ns) one TLB flush, local or a target's handler\n"
	    "  guest.vcpu_is_preempted: BOOL  (false) Linux 4.10: mutex/rwsem spin-on-owner\n"
	    "                 stops when the owner's vCPU is preempted (steal time)");
	puts("sleeping locks (workloads.W.locks: {NAME: {kind: K}}; lock/unlock primitives):");
	for (i = 0; registry_slocks[i] != NULL; i++)
		printf("  %-14s %s\n", registry_slocks[i]->name, registry_slocks[i]->desc);
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
	    "  ipi: {to: all|others|random|N, wait: BOOL, cost: DIST}   smp_call_function_many\n"
	    "                     (all: on_each_cpu); with wait the sender spins (PLE sees it)\n"
	    "  tlb_flush: {mm: MM}  flush_tlb_mm_range: shoot down the vCPUs that ran MM\n"
	    "  mmap: {cost: DIST} / munmap: {cost: DIST}   work under the task's mmap_sem\n"
	    "                     (write); munmap then flushes the task's mm\n"
	    "  fault: DIST        a page fault's work under mmap_sem held for reading\n"
	    "  lock: L / unlock: L   a sleeping lock ({name: L, read: true} for rwsem readers);\n"
	    "                     tasks: [{..., mm: MM}] names the address space (default: program)\n"
	    "distributions: const, exponential, uniform, normal, lognormal, gamma, empirical");
	puts("metrics:\n"
	    "  sim_seconds, completed, completion_seconds, megacycles (until: done),\n"
	    "  events, events_per_sec, ctx_switches, hlt_exits, ipi_exits, timer_exits, wakes,\n"
	    "  VM.{guest_idle_share,idle_halts_per_sec,guest_ctx_switches,task_migrations,\n"
	    "  task_wakeups,resched_ipis,guest_ticks,tasks_spawned,disk_reads,disk_busy_share,\n"
	    "  wake_latency_mean_ns,wake_latency_p99_ns} (task form),\n"
	    "  kvm with halt_poll: halt_poll_seconds, halt_poll_cpu_share, halt_polls_succeeded,\n"
	    "    halt_polls_failed, VM.halt_poll_cpu_share, VM.halt_polls_failed;\n"
	    "    with ple, pause_filter or directed_yield: directed_yields; with pv: pv_sched_yields,\n"
	    "  VM.{running,runnable,blocked,offline}_share (%), VM.COUNTER, VM.COUNTER_per_sec,\n"
	    "  VM.LOCK.{acquisitions,contended_share,wait_mean_ns,wait_p50_ns,wait_p99_ns,"
	    "hold_mean_ns},\n"
	    "  VM.{ipi_calls,ipis_sent,ipis_received,ipi_send_exits,ipi_wait_mean_ns,\n"
	    "  ipi_wait_p99_ns,ipi_wait_share,tlb_shootdowns,pv_tlb_flush_marked,\n"
	    "  pv_tlb_flushes_on_entry,pv_sched_yields} (task form, per VM),\n"
	    "  VM.SLOCK.{acquisitions,contended_share,spins,spin_acquired,sleeps,wait_mean_ns,\n"
	    "  wait_p99_ns,spin_share,sleep_mean_ns} (sleeping locks; mmap_sem.MM if used)");
	return 0;
}

