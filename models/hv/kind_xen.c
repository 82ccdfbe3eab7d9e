/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kind_xen.c - Xen HVM's side of spinning.
 *
 * XEN-4.2 vmx.c: EXIT_REASON_PAUSE_INSTRUCTION -> do_sched_op_compat
 * (SCHEDOP_yield): a plain yield to the credit scheduler, no directed
 * yield, no dynamic window (vmcs.c: ple_gap 128, ple_window 4096).
 */
#include <stdlib.h>

#include "hv/hv.h"
#include "hv/kind.h"
#include "hw/machine.h"
#include "yconf.h"
#include "yparam.h"

struct xen_cfg {
	int ple;
	double window_ns;
	int apicv, evtchn_ipi;	/* IPI delivery (xen_ipi_path) */
	int pv_timer;		/* the guest's clockevent is Xen's (xen_ipi_path) */
};

/* hypervisor.* keys of xen (XEN-4.2 vmcs.c: ple_gap 128, ple_window 4096). */
static const struct vs_param xen_params[] = {
	{ "ple.enabled", NULL, "PAUSE-loop exiting on (vmcs.c ple_gap 128)", "bool", "",
	  VP_BOOL, VS_AT(struct xen_cfg, ple), 0, 1, 1, NULL },
	{ "ple.window", NULL, "vmcs.c ple_window", "time", "cycles",
	  VP_TIME, VS_AT(struct xen_cfg, window_ns), 1, 1e9, 4096, NULL },
	{ "ple.gap", "128", "ple_gap: accepted, not modelled", "int", "cycles", VS_LIST },
	{ "apicv", NULL, "Xen's apicv option: posted interrupts (Xen 4.3 vmx.c "
	  "vmx_deliver_posted_intr; Ivy Bridge-EP and later): a running IPI target takes no "
	  "exit", "bool", "", VP_BOOL, VS_AT(struct xen_cfg, apicv), 0, 1, 0, NULL },
	{ "evtchn_ipi", NULL, "the guest sends IPIs over event channels (Linux "
	  "smp_hvm.c xen_hvm_smp_init, PVHVM with the vector callback): an EVTCHNOP_send "
	  "hypercall per destination; false: vlapic ICR writes", "bool", "",
	  VP_BOOL, VS_AT(struct xen_cfg, evtchn_ipi), 0, 1, 0, NULL },
	{ "pv_timer", NULL, "the guest's timer is Xen's (Linux 3.2 arch/x86/xen/time.c "
	  "xen_hvm_init_time_ops, PVHVM with the vector callback): it re-arms with the "
	  "VCPUOP_set_singleshot_timer hypercall and fires as VIRQ_TIMER, an event channel; "
	  "false: the emulated LAPIC timer (hvm/vlapic.c, vpt.c)", "bool", "",
	  VP_BOOL, VS_AT(struct xen_cfg, pv_timer), 0, 1, 0, NULL },
	{ NULL, NULL, NULL, NULL, NULL, VS_LIST }
};

/* No ple mapping: no PLE.  The hypervisor mapping's own keys are checked by
 * the scenario. */
static int
xen_parse(const struct yc_node *n, const struct machine *m, void **out, struct vs_err *err)
{
	struct xen_cfg *c = xcalloc(1, sizeof *c);
	const struct yc_node *ple = n ? yc_find(n, "ple") : NULL;

	*out = c;
	if (yc_params_read(n, xen_params, NULL, m->hz, c, err))
		return -1;
	if (ple == NULL)
		return 0;
	if (yc_expect(ple, YC_MAP, "PLE settings {window, gap}", err) ||
	    yc_params_read(ple, xen_params, "ple", m->hz, c, err))
		return -1;
	return yc_params_check(ple, xen_params, "ple", err);
}

static void
xen_free_cfg(void *c)
{
	free(c);
}

static void
xen_init(struct hv *hv, const void *cfg)
{
	hv->kind_priv = (void *)cfg;
}

static double
xen_ple_window(struct hv *hv, struct vcpu *v)
{
	const struct xen_cfg *c = hv->kind_priv;

	return c->ple ? c->window_ns : 0;
}

/* XEN-4.2 vmcs.c construct_vmcs: ple_gap 0 leaves PAUSE exiting off for
 * every vCPU */
static int
xen_ple_off(struct hv *hv)
{
	const struct xen_cfg *c = hv->kind_priv;

	return !c->ple;
}

/* XEN-4.2 vmx.c: vmx_vmexit_handler, EXIT_REASON_PAUSE_INSTRUCTION */
static void
xen_ple_exit(struct hv *hv, struct vcpu *v)
{
	hv_yield(v);
}

/*
 * Per destination, in the sender's exit: XEN-4.19 vlapic.c vlapic_ipi ->
 * vlapic_set_irq: vlapic_test_and_set_irr (the APIC page) and vcpu_kick ->
 * vcpu_unblock (struct vcpu), 2 lines and 2 locked RMWs, or with posted
 * interrupts vmx_deliver_posted_intr's PIR and ON bits (the descriptor) and
 * v->is_running, 2 lines, 2 RMWs; event channels (event_channel.c evtchn_send
 * -> evtchn_2l_set_pending -> vcpu_mark_events_pending -> hvm_assert_evtchn_irq):
 * the port's pending bit (shared_info), evtchn_pending_sel and
 * evtchn_upcall_pending (vcpu_info), then vcpu_kick's unblock: 3 lines, 4 RMWs.
 * vcpu_kick of a running vCPU on another pCPU: smp_send_event_check_cpu.
 * The guest's timer: the emulated LAPIC's (XEN-4.19 vlapic.c
 * vlapic_update_timer -> vpt.c create_periodic_time on the deadline write,
 * pt_timer_fn -> vcpu_kick at expiry, vmx_intr_assist -> pt_update_irq
 * injects on entry), or with pv_timer Xen's per-vCPU singleshot timer
 * (common/domain.c VCPUOP_set_singleshot_timer, sched/core.c
 * vcpu_singleshot_timer_fn -> send_timer_event: VIRQ_TIMER, whose event
 * channel kicks the vCPU as an IPI's does).
 */
static void
xen_ipi_path(const struct hv *hv, struct hv_ipi_path *p)
{
	const struct xen_cfg *c = hv->kind_priv;

	p->exits = 1;
	p->posted = c->apicv;
	p->evtchn = c->evtchn_ipi;
	p->deliver_lines = c->evtchn_ipi ? 3 : 2;
	p->deliver_atomics = c->evtchn_ipi ? 4 : 2;
	p->pv_timer = c->pv_timer;
}

const struct hv_kind_ops kind_xen_ops = {
	.name = "xen",
	.desc = "Xen HVM: PLE exits yield (SCHEDOP_yield); poll/event-channel wake",
	.params = xen_params,
	/* vmx.c handle_pio / hvm/emulate.c handle_mmio: every MMIO is decoded */
	.parse = xen_parse,
	.free_cfg = xen_free_cfg,
	.init = xen_init,
	.ple_window = xen_ple_window,
	.ple_off = xen_ple_off,
	.ple_exit = xen_ple_exit,
	.ipi_path = xen_ipi_path,
};
