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
};

/* hypervisor.* keys of xen (XEN-4.2 vmcs.c: ple_gap 128, ple_window 4096). */
static const struct vs_param xen_params[] = {
	{ "ple.enabled", NULL, "PAUSE-loop exiting on (vmcs.c ple_gap 128)", "bool", "",
	  VP_BOOL, VS_AT(struct xen_cfg, ple), 0, 1, 1, NULL },
	{ "ple.window", NULL, "vmcs.c ple_window", "time", "cycles",
	  VP_TIME, VS_AT(struct xen_cfg, window_ns), 1, 1e9, 4096, NULL },
	{ "ple.gap", "128", "ple_gap: accepted, not modelled", "int", "cycles", VS_LIST },
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

/* XEN-4.2 vmx.c: vmx_vmexit_handler, EXIT_REASON_PAUSE_INSTRUCTION */
static void
xen_ple_exit(struct hv *hv, struct vcpu *v)
{
	hv_yield(v);
}

const struct hv_kind_ops kind_xen_ops = {
	.name = "xen",
	.desc = "Xen HVM: PLE exits yield (SCHEDOP_yield); poll/event-channel wake",
	.params = xen_params,
	/* vmx.c handle_pio / hvm/emulate.c handle_mmio: every MMIO is decoded */
	.io_exits = 1,
	.parse = xen_parse,
	.free_cfg = xen_free_cfg,
	.init = xen_init,
	.ple_window = xen_ple_window,
	.ple_exit = xen_ple_exit,
};
