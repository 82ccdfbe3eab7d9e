/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kvm_halt_poll.c - KVM halt polling: before a halted vCPU's thread sleeps,
 * it busy-polls for a wake event, keeping its pCPU (the vCPU stays running
 * from the host's view).
 *
 *   hypervisor.halt_poll: 50us          fixed window on every halt (the
 *                                       original "KVM: add halt_poll_ns",
 *                                       LNX-4.0, a module parameter);
 *   hypervisor.halt_poll: {policy: dynamic, max, grow, grow_start, shrink}
 *                                       per-vCPU window adapted after each
 *                                       halt, as LNX-6.12 kvm_vcpu_halt.
 * kvm_vcpu_can_poll (single_task_running) is kind_kvm.c's: no poll while another
 * task is runnable on the pCPU, and a poll ends when one is woken there.
 * Leaves out: need_resched from other causes (a poller the host preempts
 * anyway polls for the rest of its window when it runs again), and
 * vcpu_valid_wakeup (always true on x86).
 */
#include <math.h>

#include "hv/kvm_priv.h"
#include "hw/machine.h"
#include "yconf.h"
#include "yparam.h"

/* Defaults and ranges: kvm_params' halt_poll rows (kind_kvm.c). */
int
kvm_hp_parse(const struct yc_node *n, const struct machine *m, struct kvm_hp_cfg *c,
    struct vs_err *err)
{
	const struct yc_node *hp = n != NULL ? yc_find(n, "halt_poll") : NULL;

	if (yc_params_read(hp != NULL && hp->kind == YC_MAP ? hp : NULL, kvm_params, "halt_poll",
	    m->hz, c, err))
		return -1;
	if (hp == NULL) {
		c->mode = KVM_HP_OFF;
		return 0;
	}
	c->given = 1;
	if (hp->kind != YC_MAP) {
		/* A plain time: the fixed window (0: off), as before */
		if (yc_get_qty(n, "halt_poll", UNIT_TIME, m->hz, 0, 0, 1e9, &c->fixed_ns, err))
			return -1;
		c->mode = c->fixed_ns > 0 ? KVM_HP_FIXED : KVM_HP_OFF;
		return 0;
	}
	if (c->mode == KVM_HP_FIXED && c->fixed_ns <= 0)
		return yc_err(hp, err, "halt_poll: policy fixed needs a window (e.g. window: 50us)");
	return yc_params_check(hp, kvm_params, "halt_poll", err);
}

/* LNX-6.12 kvm_main.c: grow_halt_poll_ns (the cap applies at the next halt) */
static void
grow(const struct kvm_hp_cfg *c, struct kvm_hp_vcpu *h)
{
	double val = h->cur_ns;

	if (c->grow == 0)
		return;
	val *= c->grow;
	if (val < c->grow_start_ns)
		val = c->grow_start_ns;
	h->cur_ns = val;
	h->grows++;
}

/* LNX-6.12 kvm_main.c: shrink_halt_poll_ns ("KVM: ... below grow_start", 2021) */
static void
shrink(const struct kvm_hp_cfg *c, struct kvm_hp_vcpu *h)
{
	double val = c->shrink == 0 ? 0 : floor(h->cur_ns / c->shrink);

	if (val < c->grow_start_ns)
		val = 0;
	h->cur_ns = val;
	h->shrinks++;
}

/* LNX-6.12 kvm_main.c kvm_vcpu_halt: clamp to the max, poll if non-zero */
double
kvm_hp_begin(const struct kvm_hp_cfg *c, struct kvm_hp_vcpu *h)
{
	switch (c->mode) {
	case KVM_HP_FIXED:
		h->window_ns = c->fixed_ns;
		break;
	case KVM_HP_DYNAMIC:
		if (h->cur_ns > c->max_ns)
			h->cur_ns = c->max_ns;
		h->window_ns = h->cur_ns;
		break;
	default:
		h->window_ns = 0;
	}
	return h->window_ns;
}

/* LNX-6.12 kvm_main.c kvm_vcpu_halt after the wait: update_halt_poll_stats, adapt */
void
kvm_hp_end(const struct kvm_hp_cfg *c, struct kvm_hp_vcpu *h, double halt_ns,
    double poll_ns, int waited)
{
	if (h->window_ns > 0) {
		/* "successful so long as the vCPU was never actually scheduled out" */
		if (waited)
			h->polls_fail++;
		else
			h->polls_ok++;
		h->poll_ns += poll_ns;
	}
	if (c->mode != KVM_HP_DYNAMIC)
		return;
	if (c->max_ns <= 0)
		h->cur_ns = 0;
	else if (halt_ns <= h->cur_ns)
		;
	else if (h->cur_ns > 0 && halt_ns > c->max_ns)
		shrink(c, h);		/* a long block: shrink polling */
	else if (h->cur_ns < c->max_ns && halt_ns < c->max_ns)
		grow(c, h);		/* a short halt, and the poll too small */
}

void
kvm_hp_list(FILE *o)
{
	fputs("  halt_poll: TIME       fixed window every halt (0 = off, the default; "
	    "\"kvm: add halt_poll_ns module parameter\", Linux 4.0)\n"
	    "  halt_poll: {policy: dynamic|fixed|off, ...}   Linux 6.12 kvm_vcpu_halt:\n"
	    "    max: 200us           halt_poll_ns (x86 KVM_HALT_POLL_NS_DEFAULT)\n"
	    "    grow: 2              halt_poll_ns_grow (window x grow after a short halt)\n"
	    "    grow_start: 10us     halt_poll_ns_grow_start (first non-zero window)\n"
	    "    shrink: 2            halt_poll_ns_shrink (0: reset to 0, the Linux 4.0-5.4 default)\n"
	    "    window: TIME         policy fixed: the window\n", o);
}
