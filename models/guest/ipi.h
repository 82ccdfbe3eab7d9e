/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ipi.h - inter-processor interrupts in the guest kernel: how a vCPU sends
 * them (x2APIC physical or cluster ICR writes, the KVM PV send-IPI
 * hypercall, or no exit at all with IPI virtualization), function calls that
 * wait for every target (smp_call_function_many), TLB shootdowns to the vCPUs
 * an mm ran on, and the PV variants (PV TLB flush, PV sched_yield) that read
 * the steal-time `preempted` flag (models/README.md, "IPIs").
 *
 * Delivery is guest_interrupt(): a running target takes it at once, a halted
 * one is woken in the host, a preempted one takes it when it next runs guest
 * code.  A waiting sender spins (guest_spin_wait), so PLE sees it; a target
 * that the host keeps off its pCPU holds the sender up: IPI-waiter
 * preemption follows, nothing scripts it.
 */
#ifndef VS_IPI_H
#define VS_IPI_H

#include <stdint.h>

#include "guest/guest.h"

struct gkernel;
struct gcpu;
struct gk_stats;
struct task;

enum ipi_mode { IPI_PHYS, IPI_CLUSTER, IPI_PV };

struct ipi_config {
	int mode;		/* enum ipi_mode: how a multicast is sent */
	int ipiv;		/* posted interrupts / IPI virtualization: no sender exit */
	int pv_tlb_flush;	/* Linux 4.16 kvm_flush_tlb_others */
	int pv_sched_yield;	/* Linux 5.3 kvm_smp_send_call_func_ipi */
	double flush_ns;	/* one TLB flush (local, or a target's handler) */
};

/* Where an `ipi:` goes (workload primitive). */
enum ipi_to { IPI_TO_ALL, IPI_TO_OTHERS, IPI_TO_ONE, IPI_TO_RANDOM };

struct ipi;

struct ipi *ipi_new(struct gkernel *, const struct ipi_config *, int nmm, struct gk_stats *);
void ipi_free(struct ipi *);

/* kernel.c's calls. */
/* A reschedule IPI from vCPU `from` (-1: from an interrupt, nobody pays) to c. */
void ipi_resched(struct ipi *, int from, struct gcpu *to);
/* c took an interrupt: run the function calls pending for it. */
void ipi_irq(struct ipi *, struct gcpu *c);
/* c enters the guest (KVM vcpu_enter_guest): a PV TLB flush marked for it. */
void ipi_entry(struct ipi *, struct gcpu *c);
/* c switches to task t: t's mm is loaded there (mm_cpumask). */
void ipi_switch_mm(struct ipi *, struct gcpu *c, const struct task *t);

/* The workload's: v's current task runs smp_call_function_many (or
 * on_each_cpu for IPI_TO_ALL) of a function taking func_ns on each target;
 * with wait, done runs once every target has run it.  1 if done will be
 * called later, 0 if it ran at once (nothing to wait for). */
int ipi_call(struct vcpu *, enum ipi_to, int target, int wait, double func_ns, guest_fn done);
/* flush_tlb_mm_range for mm (-1: the current task's): flush locally, then
 * shoot down the other vCPUs in the mm's cpumask and wait.  As ipi_call. */
int ipi_flush_tlb(struct vcpu *, int mm, guest_fn done);

/* vcpu_is_preempted() as the guest reads it from steal time: the host
 * preempted the vCPU while runnable (KVM kvm_steal_time_set_preempted). */
int ipi_vcpu_is_preempted(const struct vcpu *);

/* The exits a multicast to the n vCPU indices idx[] (ascending) costs. */
int ipi_send_exits(const struct ipi_config *, const int *idx, int n);

#endif
