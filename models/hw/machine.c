/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * machine.c - the host from a machine file: topology, clock and costs, all
 * read by machine_params below.  Defaults: a Nehalem-EP Xeon X5570 (2.93
 * GHz), the machine of seeds 000 and 001, each cost with its source
 * (../shared/model-reference.md §7).
 */
#include "hw/machine.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "yconf.h"
#include "yparam.h"

#define M(f)	VS_AT(struct machine, f)

/* The keys of a machine file (or `machine:` mapping); costs.* in cycles
 * (ns at the clock) unless written with a time unit. */
const struct vs_param machine_params[] = {
	{ "name", "machine", "its name in reports", "string", "", VP_STR, M(name), 0, 0, 0,
	  NULL },
	{ "sockets", NULL, "sockets (NUMA nodes)", "int", "", VP_INT, M(sockets), 1, 64, 1,
	  NULL },
	{ "cores_per_socket", NULL, "cores of a socket", "int", "", VP_INT, M(cores_per_socket),
	  1, 1024, 4, NULL },
	{ "threads_per_core", NULL, "SMT threads of a core", "int", "",
	  VP_INT, M(threads_per_core), 1, 8, 1, NULL },
	{ "clock", NULL, "the nominal clock (X5570), which converts cycles", "frequency",
	  "Hz", VP_FREQ, M(hz), 1e6, 1e11, 2.93e9, NULL },
	/* line transfers ~80 cycles in a socket, ~300 across (Molka PACT'09, unverified) */
	{ "costs.line_same_core", NULL, "a modified line's transfer within a core (L1)",
	  "time", "cycles", VP_TIME, M(line_ns[HW_SAME]), 0, 1e12, 4, NULL },
	{ "costs.line_sibling", NULL, "... between SMT siblings", "time", "cycles",
	  VP_TIME, M(line_ns[HW_SIBLING]), 0, 1e12, 12, NULL },
	{ "costs.line_socket", NULL, "... between cores of a socket (Molka PACT'09)",
	  "time", "cycles", VP_TIME, M(line_ns[HW_SOCKET]), 0, 1e12, 80, NULL },
	{ "costs.line_remote", NULL, "... across sockets (Molka PACT'09)", "time",
	  "cycles", VP_TIME, M(line_ns[HW_REMOTE]), 0, 1e12, 300, NULL },
	{ "costs.atomic", NULL, "a locked RMW on a line already held", "time", "cycles",
	  VP_TIME, M(atomic_ns), 0, 1e12, 20, NULL },
	{ "costs.ctx_switch", NULL, "a host context switch between vCPUs", "time",
	  "cycles", VP_TIME, M(ctx_switch_ns), 0, 1e12, 6000, NULL },
	{ "costs.wake_ipi", NULL, "an IPI to an idle pCPU (placeholder; its C-state exit is "
	  "the state's, cstates)", "time", "cycles", VP_TIME, M(wake_ipi_ns), 0, 1e12, 8000, NULL },
	/* exit round trip ~2000 cycles (SplitX, WIOV 2011); vmcall 3898, PIO in-kernel
	 * 7237, PIO to QEMU 20574 cycles (kvm-unit-tests 00bfecaa) */
	{ "costs.exit_hlt", NULL, "a HLT exit's round trip (SplitX, WIOV 2011)", "time",
	  "cycles", VP_TIME, M(exit_hlt_ns), 0, 1e12, 2000, NULL },
	{ "costs.exit_hypercall", NULL, "a vmcall round trip (kvm-unit-tests vmexit)",
	  "time", "cycles", VP_TIME, M(exit_hypercall_ns), 0, 1e12, 3898, NULL },
	{ "costs.exit_ple", NULL, "a PAUSE-loop exit's round trip", "time", "cycles",
	  VP_TIME, M(exit_ple_ns), 0, 1e12, 2000, NULL },
	/* a host IPI to a pCPU in guest mode (KVM kvm_vcpu_kick's smp_send_reschedule,
	 * Xen vcpu_kick's smp_send_event_check_cpu) is an external-interrupt exit;
	 * the re-entry injects the interrupt: one exit round trip (SplitX) */
	{ "costs.exit_irq", NULL, "a running vCPU's exit on a host IPI (the kick of an "
	  "IPI without posted interrupts) and its re-entry (SplitX, WIOV 2011)", "time", "cycles",
	  VP_TIME, M(exit_irq_ns), 0, 1e12, 2000, NULL },
	/* a halt that ends without the vCPU thread sleeping (a successful halt
	 * poll, an event pending at the exit: KVM vcpu_run -> vcpu_enter_guest)
	 * pays the VM entry back on its own; one that slept pays it inside
	 * ctx_switch.  SplitX gives only the world switch out + in, ~2000 cycles:
	 * the entry is taken as half of it (unverified) */
	{ "costs.vm_entry", NULL, "the VM entry that returns a halted vCPU to the guest "
	  "without a host switch (a successful halt poll; half of SplitX's world switch out + "
	  "in, unverified)", "time", "cycles", VP_TIME, M(vm_entry_ns), 0, 1e12, 1000, NULL },
	{ "costs.pio_kernel", NULL, "a PIO exit handled in the kernel (kvm-unit-tests)",
	  "time", "cycles", VP_TIME, M(pio_kernel_ns), 0, 1e12, 7237, NULL },
	{ "costs.pio_user", NULL, "a PIO exit handled by QEMU", "time", "cycles",
	  VP_TIME, M(pio_user_ns), 0, 1e12, 24615, NULL },
	/* MMIO (hv/hv_io.h): the full path is the PIO path of the same end plus the
	 * x86 emulator's fetch and decode, which a PIO exit does not need; the 2012
	 * figures give it as an emulated IN less a vmcall, 7237 - 3898 cycles
	 * (model-reference §7.1 "emulator cost"); the fast path (ioeventfd on
	 * KVM_FAST_MMIO_BUS) is an exit and an in-kernel bus write with no decode,
	 * as the in-kernel PIO out fast path measured there, 4451 cycles */
	{ "costs.mmio_decode", NULL, "MMIO's instruction decode on top of the PIO path "
	  "(kvm-unit-tests 00bfecaa: emulated in 7237 - vmcall 3898)", "time", "cycles",
	  VP_TIME, M(mmio_decode_ns), 0, 1e12, 3339, NULL },
	{ "costs.mmio_fast", NULL, "an MMIO write to an ioeventfd address (fast MMIO "
	  "bus, no decode; as kvm-unit-tests 00bfecaa's in-kernel out)", "time", "cycles",
	  VP_TIME, M(mmio_fast_ns), 0, 1e12, 4451, NULL },
	/* bare metal: a port access to a legacy device, as Linux's fast TSC
	 * calibration expects it (arch/x86/kernel/tsc.c pit_expect_msb: "each IO
	 * is going to take about 1us on real hardware"); no exit */
	{ "costs.dev_access", NULL, "a device access on bare metal, no exit (Linux "
	  "arch/x86/kernel/tsc.c pit_expect_msb: \"each IO is going to take about 1us on real "
	  "hardware\")", "time", "ns", VP_TIME, M(dev_access_ns), 0, 1e12, 1000, NULL },
	{ "costs.pause", NULL, "one PAUSE-loop iteration", "time", "cycles",
	  VP_TIME, M(pause_ns), 0, 1e12, 10, NULL },
	/* The guest kernel's (model-reference §7.2, placeholders): a task switch
	 * as the host's; an IPI's sender exit on the x2APIC ICR write, as a vmcall
	 * round trip (kvm-unit-tests x86/vmexit.c measures "ipi"); an interrupt's
	 * injection and EOI exit, one exit round trip (SplitX); a LAPIC timer
	 * tick, two (the hrtimer's kick and the next deadline's MSR write). */
	{ "costs.guest_ctx_switch", NULL, "a guest task switch (as the host's)", "time",
	  "cycles", VP_TIME, M(guest_ctx_switch_ns), 0, 1e12, 6000, NULL },
	{ "costs.exit_ipi", NULL, "an IPI's sender exit (x2APIC ICR write; a vmcall)",
	  "time", "cycles", VP_TIME, M(exit_ipi_ns), 0, 1e12, 3898, NULL },
	{ "costs.irq", NULL, "an interrupt's injection and EOI exit (one round trip)",
	  "time", "cycles", VP_TIME, M(irq_ns), 0, 1e12, 2000, NULL },
	{ "costs.timer_tick", NULL, "a guest timer tick's exits (hrtimer kick, deadline "
	  "MSR write)", "time", "cycles", VP_TIME, M(timer_tick_ns), 0, 1e12, 4000, NULL },
	/* The guest scheduler's work under its own locks (vms[].guest.sched_locks,
	 * kernel.c "The scheduler's locks"): a-priori estimates from the length
	 * of each code path (a few hundred instructions each at an IPC below 1,
	 * unverified); bench/profile/README.md's derived H (3.2 us for
	 * hackbench's rq->__lock) bounds them from above, a check, not an input */
	{ "costs.sched_pi", NULL, "try_to_wake_up's work under p->pi_lock before the rq "
	  "lock: the state checks and select_task_rq (wake_affine, select_idle_sibling's scan; "
	  "a-priori from the code path)", "time", "cycles", VP_TIME, M(sched_pi_ns), 0, 1e12,
	  1000, NULL },
	{ "costs.sched_ttwu", NULL, "try_to_wake_up's work under the target's rq->lock: "
	  "ttwu_do_activate (enqueue_task_fair) and check_preempt_curr (a-priori from the code "
	  "path)", "time", "cycles", VP_TIME, M(sched_ttwu_ns), 0, 1e12, 1500, NULL },
	{ "costs.sched_pick", NULL, "__schedule's work under its rq->lock: deactivate_task "
	  "or put_prev_task, pick_next_task_fair, switch_mm and switch_to up to "
	  "finish_task_switch's unlock (a-priori from the code path): the part of "
	  "costs.guest_ctx_switch under the lock, so a switch costs that less this after it",
	  "time", "cycles", VP_TIME, M(sched_pick_ns),
	  0, 1e12, 2000, NULL },
	{ "costs.sched_tick", NULL, "scheduler_tick's work under its rq->lock: "
	  "update_rq_clock, task_tick_fair (update_curr, check_preempt_tick), the load's "
	  "update (a-priori from the code path)", "time", "cycles", VP_TIME, M(sched_tick_ns),
	  0, 1e12, 1000, NULL },
	{ "costs.sched_move", NULL, "a load balance's move of one task under both rq locks "
	  "(detach_task, attach_task; a-priori from the code path)", "time", "cycles", VP_TIME,
	  M(sched_move_ns), 0, 1e12, 1000, NULL },
	{ "costs.smt_busy_slowdown", NULL, "time factor while an SMT sibling runs code",
	  "number", "", VP_NUM, M(smt_busy_slowdown), 1, 10, 1.3, NULL },
	{ "costs.smt_spin_slowdown", NULL, "time factor while an SMT sibling spins with PAUSE",
	  "number", "", VP_NUM, M(smt_spin_slowdown), 1, 10, 1.15, NULL },
	/* A Nehalem-EP socket's three DDR3-1333 channels give ~17 GB/s of STREAM,
	 * one core alone ~10 GB/s (Molka PACT'09 and Intel's X5570 STREAM
	 * figures, unverified); a size here means per second. */
	{ "costs.mem_bw_core", NULL, "memory bandwidth one core draws alone, per second",
	  "size", "B", VP_SIZE, M(mem_bw_core), 1, 1e15, 10e9, NULL },
	{ "costs.mem_bw_socket", NULL, "memory bandwidth a socket shares among its "
	  "streamers, per second", "size", "B", VP_SIZE, M(mem_bw_socket), 1, 1e15, 17e9, NULL },
	/* L1D fill buffers (10 on Nehalem to Haswell, secondary source in
	 * models/README.md); 1 charges every line serially, as before it existed */
	{ "costs.mlp", NULL, "memory-level parallelism of a streaming copy (lines in flight)",
	  "int", "", VP_INT, M(mlp), 1, 64, 1, NULL },
	/* MESI (Sorin/Hill/Wood 2011, ch. 6-7; lock.c lock_own_ns) */
	{ "costs.release_visibility", NULL, "a release's store owns the word's line before "
	  "waiters see it", "bool", "", VP_BOOL, M(release_visibility), 0, 1, 1, NULL },
	/* Linux drivers/idle/intel_idle.c nehalem_cstates (Nehalem-EP/EX, Westmere):
	 * read by machine_cstates below */
	{ "cstates", "(intel_idle nehalem_cstates: C1 3/6us, C1E 10/20us, C3 20/80us, C6 "
	  "200/800us)", "idle states, shallowest first: [{name, exit_latency, target_residency}]"
	  " (intel_idle's table of the CPU model; [] idles in C0)", "list", "", VS_LIST },
	{ NULL, NULL, NULL, NULL, NULL, VS_LIST }
};

#undef M

/* intel_idle.c nehalem_cstates: exit_latency, target_residency in us */
static const struct hw_cstate nehalem_cstates[] = {
	{ "C1", 3e3, 6e3 }, { "C1E", 10e3, 20e3 }, { "C3", 20e3, 80e3 }, { "C6", 200e3, 800e3 },
};

/* The machine file's cstates list, or the default table. */
static int
machine_cstates(struct machine *m, const struct yc_node *n, struct vs_err *err)
{
	const struct yc_node *l = yc_find(n, "cstates");
	size_t i;

	if (l == NULL) {
		m->ncstates = (int)(sizeof nehalem_cstates / sizeof nehalem_cstates[0]);
		memcpy(m->cstates, nehalem_cstates, sizeof nehalem_cstates);
		return 0;
	}
	if (yc_expect(l, YC_SEQ, "a list of idle states", err))
		return -1;
	if (l->n > HW_MAX_CSTATES)
		return yc_err(l, err, "cstates: at most %d idle states", HW_MAX_CSTATES);
	for (i = 0; i < l->n; i++) {
		const struct yc_node *c = l->vals[i];
		struct hw_cstate *cs = &m->cstates[i];
		const char *name;

		if (yc_expect(c, YC_MAP, "an idle state {name, exit_latency, target_residency}",
		    err) ||
		    yc_get_str(c, "name", NULL, &name, err) ||
		    yc_get_qty(c, "exit_latency", UNIT_TIME, m->hz, NAN, 0, 1e9, &cs->exit_ns,
		    err) ||
		    yc_get_qty(c, "target_residency", UNIT_TIME, m->hz, NAN, 0, 1e10,
		    &cs->residency_ns, err) ||
		    yc_check_unused(c, "name, exit_latency, target_residency", err))
			return -1;
		snprintf(cs->name, sizeof cs->name, "%s", name);
		if (i > 0 && cs->residency_ns < m->cstates[i - 1].residency_ns)
			return yc_err(c, err, "cstates: a deeper state's target_residency (%s) is "
			    "shorter than the one before it", cs->name);
	}
	m->ncstates = (int)l->n;
	return 0;
}

/* The pCPU numbering of machine.h, as tables. */
static void
machine_topo(struct machine *m)
{
	int i;

	m->core_id = xcalloc((size_t)m->npcpus, sizeof *m->core_id);
	m->socket_id = xcalloc((size_t)m->npcpus, sizeof *m->socket_id);
	for (i = 0; i < m->npcpus; i++) {
		m->core_id[i] = i / m->threads_per_core;
		m->socket_id[i] = i / (m->threads_per_core * m->cores_per_socket);
	}
}

int
machine_from_yaml(struct machine *m, const struct yc_node *n, struct vs_err *err)
{
	const struct yc_node *c;
	int i;

	memset(m, 0, sizeof *m);
	if (yc_expect(n, YC_MAP, "a mapping of machine settings", err) ||
	    yc_params_read(n, machine_params, NULL, 0, m, err)) {
		m->name = NULL;	/* the document's, which machine_free must not free */
		return -1;
	}
	m->name = xstrdup(m->name);	/* the document's until now */
	m->npcpus = m->sockets * m->cores_per_socket * m->threads_per_core;
	if (m->npcpus > 4096)
		return yc_err(n, err, "machine has %d pCPUs; at most 4096 are supported",
		    m->npcpus);
	machine_topo(m);
	c = yc_find(n, "costs");
	if (c != NULL && yc_expect(c, YC_MAP, "a mapping of costs", err))
		return -1;
	if (yc_params_read(c, machine_params, "costs", m->hz, m, err))
		return -1;
	/* the farthest transfer between two of this machine's pCPUs */
	m->line_far_ns = m->line_ns[HW_SAME];
	for (i = 1; i < m->npcpus; i++)
		if (m->line_ns[machine_dist(m, 0, i)] > m->line_far_ns)
			m->line_far_ns = m->line_ns[machine_dist(m, 0, i)];
	m->mem_bw_core *= 1e-9;		/* bytes per ns */
	m->mem_bw_socket *= 1e-9;
	if (yc_params_check(c, machine_params, "costs", err) || machine_cstates(m, n, err))
		return -1;
	return yc_params_check(n, machine_params, NULL, err);
}

void
machine_free(struct machine *m)
{
	free(m->name);
	free(m->core_id);
	free(m->socket_id);
	m->name = NULL;
	m->core_id = m->socket_id = NULL;
}

double
machine_cycles_to_ns(const struct machine *m, double cycles)
{
	return cycles * 1e9 / m->hz;
}
