/* SPDX-License-Identifier: GPL-2.0-or-later */
/* metric_doc.c - the metric table of metric_doc.h (names as run.c makes them). */
#include "metric_doc.h"

#include <string.h>

const struct metric_doc metric_docs[] = {
	{ "sim_seconds", "s", "simulated time the metrics cover: the run's length after its "
	  "warm-up (every count, rate and share is of that interval; events, steps_folded, "
	  "host_ticks_skipped and guest_ticks_skipped count the whole run)" },
	{ "completed", "bool", "1 if every finite thread ended (until: done); 0: the duration "
	  "cap stopped the run and the times below are lower bounds" },
	{ "completion_seconds", "s", "time at which the last thread ended (until: done)" },
	{ "megacycles", "Mcycles", "completion_seconds in host cycles (until: done)" },
	{ "events", "count", "events the engine handled (the simulator's work)" },
	{ "events_per_sec", "1/s", "events per host second (the simulator's speed; 0 with "
	  "--no-wall-clock)" },
	{ "host_ticks_skipped", "count", "host ticks that could change nothing, not simulated "
	  "(0 with fast_forward: false, which runs them; a cost figure like events)" },
	{ "guest_ticks_skipped", "count", "guest ticks on a vCPU off its pCPU with one pending, "
	  "which change nothing, not simulated, and those on a vCPU spinning without an end, "
	  "run in one step when something looks (0 with fast_forward: false; a cost figure "
	  "like events)" },
	{ "steps_folded", "count", "vCPU steps due before every other event, taken inside the "
	  "event before them, and overhead ends ahead of work or a spin without an end, taken "
	  "without one: one event fewer each (0 with fast_forward: false; a cost figure "
	  "like events)" },
	{ "ctx_switches", "count", "host context switches between vCPUs" },
	{ "hlt_exits", "count", "HLT exits (a vCPU halted)" },
	{ "ple_exits", "count", "PAUSE-loop exits" },
	{ "ple_exits_bulk", "count", "of those, the exits the PLE fast-forward took in bulk (0 "
	  "with fast_forward: false; a cost figure like events)" },
	{ "io_exits", "count", "PIO/MMIO exits (io: primitive; none on bare metal)" },
	{ "io_exit_cpu_share", "% of a CPU", "host CPU time spent handling I/O exits" },
	{ "io_path_device", "count", "io: accesses on bare metal: a device access, no exit "
	  "(io_path_* shown when a program has an io: step)" },
	{ "io_path_pio_kernel", "count", "PIO exits served in the kernel (no decode)" },
	{ "io_path_pio_user", "count", "PIO exits sent to user space (QEMU, Xen's device model)" },
	{ "io_path_mmio_fast", "count", "MMIO writes to an ioeventfd address taken by KVM's fast "
	  "MMIO bus (EPT misconfiguration, no decode)" },
	{ "io_path_mmio_kernel", "count", "MMIO exits decoded by the emulator and served in the "
	  "kernel" },
	{ "io_path_mmio_user", "count", "MMIO exits decoded, then sent to user space (KVM_EXIT_MMIO, "
	  "a Xen ioreq)" },
	{ "io_path_hypercall", "count", "io: hypercall steps" },
	{ "hypercalls", "count", "hypercall exits (kicks, yields, io: hypercall)" },
	{ "ipi_exits", "count", "exits for inter-processor interrupts sent" },
	{ "timer_exits", "count", "timer-interrupt exits (guest ticks)" },
	{ "yield_to_ok", "count", "directed yields (PLE handler, pv kick) that found a target" },
	{ "yield_to_fail", "count", "directed yields that found none" },
	{ "yields", "count", "plain yields (SCHEDOP_yield, sched_yield)" },
	{ "blocks", "count", "times a vCPU blocked in the host (halted, not polling)" },
	{ "wakes", "count", "wake-ups of blocked vCPUs (kicks, interrupts)" },
	{ "halt_polls_ok", "count", "halts that ended during halt polling (no block)" },
	{ "c0_share", "% of pCPU time", "%C0: the pCPUs' time not in a C-state (running, "
	  "host or guest halt polling, the poll state), over all pCPUs" },
	{ "cstate_wakes", "count", "pCPUs leaving a C-state to run a vCPU" },
	{ "cstate_exit_seconds", "s", "the exit latencies those wakes paid" },
	{ "halt_poll_seconds", "s", "host time spent halt polling (kvm halt_poll given)" },
	{ "halt_poll_cpu_share", "% of a CPU", "that time over the run" },
	{ "halt_polls_succeeded", "count", "polls that saw a wakeup before the window ended" },
	{ "halt_polls_failed", "count", "polls that ended in a block" },
	{ "directed_yields", "count", "yield_to calls of kvm_vcpu_on_spin (directed_yield given)" },
	{ "pv_sched_yields", "count", "KVM_HC_SCHED_YIELD handled by the host (pv given)" },
	{ "VM.halt_poll_cpu_share", "% of a CPU", "the VM instance's halt polling over the run" },
	{ "VM.halt_polls_failed", "count", "the VM instance's polls that ended in a block" },
	{ "VM.running_share", "%", "share of the VM's vCPU time running" },
	{ "VM.runnable_share", "%", "share of vCPU time runnable but not running (steal)" },
	{ "VM.blocked_share", "%", "share of vCPU time blocked (halted)" },
	{ "VM.offline_share", "%", "share of vCPU time offline" },
	{ "VM.vm_seconds", "s", "each VM's time to its last thread's end, mean over the entry's VMs" },
	{ "VM.guest_idle_share", "%", "guest idle time over vCPU time (task form)" },
	{ "VM.idle_halts_per_sec", "1/s", "idle-loop HLTs per second per VM (task form)" },
	{ "VM.guest_polls_ok", "count", "guest-side polls (cpuidle-haltpoll, guest halt_poll "
	  "given) that ended with a task to run: a wake with no HLT exit, per VM" },
	{ "VM.guest_polls_failed", "count", "guest-side polls that ran out (an HLT followed), "
	  "per VM" },
	{ "VM.guest_poll_cpu_share", "% of a CPU", "pCPU time of the guest-side polls over the "
	  "run, per VM (host halt polling is halt_poll_cpu_share)" },
	{ "VM.guest_ctx_switches", "count", "guest task switches (task form)" },
	{ "VM.sched_rq.acquisitions", "count", "the guest scheduler's rq->lock acquisitions, all "
	  "vCPUs' run queues, per VM (guest.sched_locks given; sched_pi: p->pi_lock's, all tasks)" },
	{ "VM.sched_rq.contentions_per_busy_cpu_s", "1/s", "rq->lock acquisitions that waited, "
	  "per second of busy vCPU time (vCPU time less guest idle), as bench/profile's "
	  "summaries count them (sched_pi: p->pi_lock's)" },
	{ "VM.sched_rq.contended_share", "%", "rq->lock acquisitions that waited (sched_pi: "
	  "p->pi_lock's)" },
	{ "VM.sched_rq.wait_mean_ns", "ns", "mean wait per rq->lock acquisition (sched_pi: "
	  "p->pi_lock's)" },
	{ "VM.sched_rq.hold_mean_ns", "ns", "mean rq->lock hold, the holder's preemption "
	  "included (sched_pi: p->pi_lock's, which holds the rq->lock's wait)" },
	{ "VM.sched_rq.wait_holder_preempted_ns", "ns", "of the mean wait, the part with the "
	  "holder's vCPU preempted by the host (sched_pi: p->pi_lock's)" },
	{ "VM.sched_pi.acquisitions", "count", "as VM.sched_rq.acquisitions, of p->pi_lock (all tasks)" },
	{ "VM.sched_pi.contentions_per_busy_cpu_s", "1/s", "as VM.sched_rq.contentions_per_busy_cpu_s, of p->pi_lock (all tasks)" },
	{ "VM.sched_pi.contended_share", "%", "as VM.sched_rq.contended_share, of p->pi_lock (all tasks)" },
	{ "VM.sched_pi.wait_mean_ns", "ns", "as VM.sched_rq.wait_mean_ns, of p->pi_lock (all tasks)" },
	{ "VM.sched_pi.hold_mean_ns", "ns", "as VM.sched_rq.hold_mean_ns, of p->pi_lock (all tasks)" },
	{ "VM.sched_pi.wait_holder_preempted_ns", "ns", "as VM.sched_rq.wait_holder_preempted_ns, of p->pi_lock (all tasks)" },
	{ "VM.sched_pi.oncpu_waits", "count", "wakes that spun under p->pi_lock until the wakee's "
	  "vCPU had switched it out (try_to_wake_up's p->on_cpu wait), per VM" },
	{ "VM.task_migrations", "count", "guest task migrations between vCPUs (task form)" },
	{ "VM.task_wakeups", "count", "guest task wake-ups (task form)" },
	{ "VM.resched_ipis", "count", "reschedule IPIs the guest sent (task form)" },
	{ "VM.preempt_ipis", "count", "reschedule IPIs from another vCPU's wakeup that preempts the "
	  "task running on the target (resched_curr), where resched_ipis also counts idle "
	  "vCPUs' wakes" },
	{ "VM.guest_ticks", "count", "guest scheduler ticks handled (task form)" },
	{ "VM.timer_irqs", "count", "guest timer interrupts outside a tick (task form; "
	  "gtimer.h)" },
	{ "VM.timer_wakes", "count", "... of them, those that woke an idle vCPU" },
	{ "VM.timer_runs", "count", "guest timer functions run (sleeps' ends, kernel services)" },
	{ "VM.tasks_spawned", "count", "tasks started by spawn: (task form)" },
	{ "VM.disk_reads", "count", "reads served by the VM's virtual disk (disk:)" },
	{ "VM.disk_busy_share", "%", "share of time the virtual disk was busy" },
	{ "VM.wake_latency_mean_ns", "ns", "mean wake-up to run of guest tasks (task form)" },
	{ "VM.wake_latency_p99_ns", "ns", "99th percentile wake-up to run (task form)" },
	{ "VM.ipi_calls", "count", "function-call IPIs the guest made (ipi:, tlb_flush:), per VM" },
	{ "VM.ipis_sent", "count", "IPIs sent (one per destination), per VM" },
	{ "VM.ipis_received", "count", "IPIs handled, per VM" },
	{ "VM.ipi_send_exits", "count", "sender exits for IPIs (ICR writes, PV send-IPI hypercalls)" },
	{ "VM.ipi_wait_mean_ns", "ns", "mean time a waiting sender spins until every target ran "
	  "the function" },
	{ "VM.ipi_wait_p99_ns", "ns", "99th percentile of that wait" },
	{ "VM.ipi_wait_share", "%", "vCPU time spent waiting for IPIs" },
	{ "VM.tlb_shootdowns", "count", "TLB shootdowns (tlb_flush:, munmap:), per VM" },
	{ "VM.pv_tlb_flush_marked", "count", "preempted targets marked for a flush on entry "
	  "instead of an IPI (pv_tlb_flush)" },
	{ "VM.pv_tlb_flushes_on_entry", "count", "flushes done on entry for such marks" },
	{ "VM.pv_sched_yields", "count", "KVM_HC_SCHED_YIELD yields after IPIs (pv_sched_yield)" },
	{ "VM.ipis_delivered", "count", "IPI destinations the host delivered (function calls, "
	  "TLB shootdowns, reschedules), per VM" },
	{ "VM.ipi_to_running", "count", "... that found their target running guest code" },
	{ "VM.ipi_kicks", "count", "... of those, kicked with a host IPI and an exit (no posted "
	  "interrupts)" },
	{ "VM.ipi_wakes", "count", "... that woke a halted target" },
	{ "VM.ipi_to_preempted", "count", "... that waited for a preempted target's next entry" },
	{ "VM.ipi_host_sender_ns", "ns", "host time per delivered IPI: the senders' exits (ICR "
	  "writes, hypercalls)" },
	{ "VM.ipi_host_delivery_ns", "ns", "host time per delivered IPI: the delivery (work in "
	  "the sender's exit, the kicked targets' exits)" },
	{ "VM.ipi_host_wake_ns", "ns", "host time per delivered IPI: woken targets' time from the "
	  "IPI to taking it (wake path, pCPU wake-up, run queue)" },
	{ "VM.SLOCK.spins", "count", "waits of a sleeping lock that spun on the owner" },
	{ "VM.SLOCK.spin_acquired", "count", "of those, the ones that got the lock by spinning" },
	{ "VM.SLOCK.sleeps", "count", "waits that slept" },
	{ "VM.SLOCK.sleep_mean_ns", "ns", "mean time asleep per sleep" },
	{ "VM.R_mean_s", "s", "mean length of the timed region R (mark:), over its runs" },
	{ "VM.R_sd_s", "s", "sd of the timed region's length" },
	{ "VM.R_n", "count", "times the timed region ran" },
	{ "VM.LOCK.acquisitions", "count", "acquisitions of the lock" },
	{ "VM.LOCK.contended_share", "%", "acquisitions that had to wait" },
	{ "VM.LOCK.wait_mean_ns", "ns", "mean wait per acquisition, uncontended ones (0) included" },
	{ "VM.LOCK.wait_p50_ns", "ns", "median wait over all acquisitions" },
	{ "VM.LOCK.wait_p99_ns", "ns", "99th percentile wait over all acquisitions" },
	{ "VM.LOCK.hold_mean_ns", "ns", "mean time from acquired to released" },
	{ "VM.LOCK.wait_holder_preempted_ns", "ns", "of wait_mean_ns, the part while the "
	  "lock's holder was preempted by the host (lock-holder preemption)" },
	{ "VM.LOCK.wait_handover_ns", "ns", "of wait_mean_ns, the part while the lock was "
	  "free and its next owner had not taken it (a preempted or halted next waiter, its "
	  "kick, the hand-over's line)" },
	{ "VM.LOCK.path_cycles_mean", "cycles", "acquire to past the release per call, as a "
	  "caller's rdtsc pair times it" },
	{ "VM.LOCK.path_gcycles", "Gcycles", "path cycles summed over the calls (the measured "
	  "run's calls: when given)" },
	{ "VM.LOCK.spin_share", "%", "CPU time in the lock's code outside sections "
	  "(sum of paths - sum of holds) over the threads' CPU time, as perf sees it" },
	{ "VM.LOCK.slow_share", "%", "a lock with a pool: sections that found it empty (take) "
	  "or full (put) and took the slow path" },
	{ "VM.LOCK.spurious_wakeups", "count", "a pv lock with irqs: on: slow-path halts that "
	  "ended (an interrupt) without the waiter's turn, so it spun and halted again" },
	{ "VM.mmap_sem.MM.acquisitions", "count", "mmap_sem of address space MM (a rwsem): acquisitions" },
	{ "VM.mmap_sem.MM.contended_share", "%", "mmap_sem of address space MM (a rwsem): acquisitions that waited" },
	{ "VM.mmap_sem.MM.spins", "count", "mmap_sem of address space MM (a rwsem): waits that spun on the owner" },
	{ "VM.mmap_sem.MM.spin_acquired", "count", "mmap_sem of address space MM (a rwsem): spins that got the lock" },
	{ "VM.mmap_sem.MM.sleeps", "count", "mmap_sem of address space MM (a rwsem): waits that slept" },
	{ "VM.mmap_sem.MM.wait_mean_ns", "ns", "mmap_sem of address space MM (a rwsem): mean wait" },
	{ "VM.mmap_sem.MM.wait_p99_ns", "ns", "mmap_sem of address space MM (a rwsem): 99th percentile wait" },
	{ "VM.mmap_sem.MM.spin_share", "%", "mmap_sem of address space MM (a rwsem): vCPU time spinning on it" },
	{ "VM.mmap_sem.MM.sleep_mean_ns", "ns", "mmap_sem of address space MM (a rwsem): mean time asleep per sleep" },
	{ "VM.COUNTER", "count", "times the workload's count: COUNTER ran, summed over the VMs" },
	{ "VM.COUNTER_per_sec", "1/s", "COUNTER per simulated second, summed over the VMs" },
	{ "VM.COUNTER_per_vm_sec", "1/s", "COUNTER per second of the mean VM" },
	{ NULL, NULL, NULL }
};

/* One pattern component against one name component: upper-case words are
 * placeholders for any non-empty text (as a prefix when a suffix follows). */
static int
comp_match(const char *p, size_t pn, const char *s, size_t sn)
{
	size_t i = 0;

	while (i < pn && p[i] >= 'A' && p[i] <= 'Z')
		i++;
	if (i == 0)
		return pn == sn && memcmp(p, s, pn) == 0;
	/* placeholder then a literal tail (e.g. COUNTER_per_sec, R_mean_s) */
	return sn > pn - i && memcmp(p + i, s + sn - (pn - i), pn - i) == 0;
}

static int
doc_match(const char *p, const char *s)
{
	for (;;) {
		const char *pe = strchr(p, '.'), *se = strchr(s, '.');
		size_t pn = pe ? (size_t)(pe - p) : strlen(p);
		size_t sn = se ? (size_t)(se - s) : strlen(s);

		if (!comp_match(p, pn, s, sn))
			return 0;
		if (pe == NULL || se == NULL)
			return pe == NULL && se == NULL;
		p = pe + 1;
		s = se + 1;
	}
}

/* Literal characters of a pattern (placeholders left out): its specificity. */
static size_t
literal_len(const char *p)
{
	size_t n = 0;
	int start = 1;

	for (; *p; p++) {
		if (start && *p >= 'A' && *p <= 'Z')
			continue;
		start = *p == '.';
		n++;
	}
	return n;
}

const struct metric_doc *
metric_doc_find(const char *name)
{
	const struct metric_doc *d, *best = NULL;

	/* The most specific match: the most literal characters. */
	for (d = metric_docs; d->pattern != NULL; d++)
		if (doc_match(d->pattern, name) && (best == NULL ||
		    literal_len(d->pattern) > literal_len(best->pattern)))
			best = d;
	return best;
}
