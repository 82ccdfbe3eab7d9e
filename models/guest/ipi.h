/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ipi.h - inter-processor interrupts in the guest kernel: how a vCPU sends
 * them (x2APIC physical or cluster ICR writes, the KVM PV send-IPI
 * hypercall, or no exit at all with IPI virtualization), function calls that
 * wait for every target (smp_call_function_many), TLB shootdowns to the vCPUs
 * an mm ran on, and the PV variants (PV TLB flush, PV sched_yield) that read
 * the steal-time `preempted` flag (models/README.md, "IPIs").
 *
 * Delivery is the host's, per destination (ipi.c deliver, after KVM's
 * lapic.c and Xen's vlapic.c / event_channel.c): a running target is kicked
 * (an exit, unless posted interrupts), a halted one is woken in the host, a
 * preempted one takes it when it next runs guest code.  A waiting sender spins (guest_spin_wait), so PLE sees it; a target
 * that the host keeps off its pCPU holds the sender up: IPI-waiter
 * preemption follows, nothing scripts it.
 */
#ifndef VS_IPI_H
#define VS_IPI_H

#include <stdint.h>

#include "guest/guest.h"
#include "guest/kernel.h"	/* struct ipi_config, the kernel's calls (gk_smp_ops) */
#include "hv/kind.h"		/* struct hv_ipi_path */

/* Where an `ipi:` goes (workload primitive). */
enum ipi_to { IPI_TO_ALL, IPI_TO_OTHERS, IPI_TO_ONE, IPI_TO_RANDOM };

struct ipi;

/* gvm.c makes it after the kernel and installs ipi_smp_ops with it. */
struct ipi *ipi_new(struct gkernel *, const struct ipi_config *, int nmm, struct gk_stats *);
void ipi_free(struct ipi *);

/*
 * The kernel's calls (kernel.h struct gk_smp_ops): resched, a reschedule
 * IPI from vCPU `from` (-1: from an interrupt, nobody pays) to c; irq, c took
 * an interrupt: run the function calls pending for it; entry, c enters the
 * guest (KVM vcpu_enter_guest): a PV TLB flush marked for it; switch_mm, c
 * switches to task t: t's mm is loaded there (mm_cpumask).
 */
extern const struct gk_smp_ops ipi_smp_ops;

/* The workload's: v's current task runs smp_call_function_many (or
 * on_each_cpu for IPI_TO_ALL) of a function taking func_ns on each target;
 * with wait, done runs once every target has run it.  1 if done will be
 * called later, 0 if it ran at once (nothing to wait for). */
int ipi_call(struct vcpu *, enum ipi_to, int target, int wait, double func_ns, guest_fn done);
/* flush_tlb_mm_range for mm (-1: the current task's): flush locally, then
 * shoot down the other vCPUs in the mm's cpumask and wait.  As ipi_call. */
int ipi_flush_tlb(struct vcpu *, int mm, guest_fn done);

/* The exits a multicast to the n vCPU indices idx[] (ascending) costs the
 * sender, as the host delivers them (kind.h struct hv_ipi_path). */
int ipi_send_exits(const struct ipi_config *, const struct hv_ipi_path *, const int *idx,
    int n);

#endif
