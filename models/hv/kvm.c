/*
 * kvm.c - KVM's side of spinning: pause-loop exiting and directed yield.
 *
 * PLE (Intel VMX; model-reference §2.1-2.3): a vCPU that spins in the guest
 * kernel longer than ple_window exits (EXIT_REASON_PAUSE_INSTRUCTION);
 * handle_pause calls kvm_vcpu_on_spin, which looks for another vCPU of the
 * same VM to yield_to, in the hope that it holds the lock.  Two versions:
 *   "3.2":  round robin from last_boosted_vcpu, skipping itself, halted
 *           vCPUs, and (in kvm_vcpu_yield_to) vCPUs that are running;
 *   "3.10": only vCPUs with the preempted flag (set when the host preempted
 *           a runnable vCPU thread), skipping halted ones, with dy_eligible
 *           toggling for vCPUs that are themselves in a spin loop, and up to
 *           three -ESRCH answers before giving up.
 * The dynamic window (3.18, vmx.c __grow/__shrink_ple_window) is optional.
 * Without `ple:` the machine has no PLE and spinners simply spin.
 */
#include <stdlib.h>
#include <string.h>

#include "hv/hv.h"
#include "hv/kind.h"
#include "yconf.h"

enum { SPIN_32, SPIN_310 };

struct kvm_cfg {
	int ple;		/* the CPU has PLE and KVM enables it */
	double window_ns, max_ns;
	double grow, shrink;
	int dynamic;
	int handler;		/* SPIN_32 / SPIN_310 */
	double halt_poll_ns;	/* fixed halt-polling window; 0 = off (3.2) */
};

struct kvm_vcpu {
	double window_ns;	/* this vCPU's current PLE window */
	int preempted, in_spin_loop, dy_eligible;
};

struct kvm {
	const struct kvm_cfg *cfg;
	struct kvm_vcpu *v;	/* per vCPU, by global id */
	int *last_boosted;	/* per VM */
};

static int
kvm_parse(const struct yc_node *n, const struct machine *m, void **out, struct vs_err *err)
{
	static const char *const handlers[] = { "3.2", "3.10", NULL };
	struct kvm_cfg *c = xcalloc(1, sizeof *c);
	const struct yc_node *ple = n ? yc_find(n, "ple") : NULL;
	int h;

	*out = c;
	if (n != NULL && yc_get_enum(n, "spin_handler", handlers, SPIN_32, &h, err))
		return -1;
	c->handler = n != NULL ? h : SPIN_32;
	/* LNX-4.5 kvm_main.c halt_poll_ns (x86 default 500000); absent in 3.2 */
	if (n != NULL && yc_get_qty(n, "halt_poll", UNIT_TIME, m->hz, 0, 0, 1e9,
	    &c->halt_poll_ns, err))
		return -1;
	if (ple == NULL)
		return 0;
	if (yc_expect(ple, YC_MAP, "PLE settings {window, gap, dynamic, ...}", err) ||
	    yc_get_bool(ple, "enabled", 1, &c->ple, err) ||
	    /* vmx.c: KVM_VMX_DEFAULT_PLE_WINDOW 4096, ple_window_grow 2, shrink 0 */
	    yc_get_qty(ple, "window", UNIT_TIME, m->hz, 4096 * 1e9 / m->hz, 1, 1e9,
	    &c->window_ns, err) ||
	    yc_get_bool(ple, "dynamic", 0, &c->dynamic, err) ||
	    yc_get_num(ple, "grow", 2, 0, 1e9, &c->grow, err) ||
	    yc_get_num(ple, "shrink", 0, 0, 1e9, &c->shrink, err) ||
	    yc_get_qty(ple, "max", UNIT_TIME, m->hz, 1073741823.0 * 1e9 / m->hz, 1, 1e12,
	    &c->max_ns, err))
		return -1;
	/* ple_gap only says whether PAUSEs belong to one loop: spin loops always do. */
	(void)yc_find(ple, "gap");
	return yc_check_unused(ple, "enabled, window, gap, dynamic, grow, shrink, max", err);
}

static void
kvm_free_cfg(void *c)
{
	free(c);
}

static void
kvm_init(struct hv *hv, const void *cfg)
{
	struct kvm *k = xcalloc(1, sizeof *k);
	int i;

	k->cfg = cfg;
	k->v = xcalloc((size_t)hv->nvcpus, sizeof *k->v);
	k->last_boosted = xcalloc((size_t)hv->nvms, sizeof *k->last_boosted);
	for (i = 0; i < hv->nvcpus; i++)
		k->v[i].window_ns = k->cfg->window_ns;
	for (i = 0; i < hv->nvms; i++)
		k->last_boosted[i] = -1;
	hv->kind_priv = k;
}

static void
kvm_deinit(struct hv *hv)
{
	struct kvm *k = hv->kind_priv;

	free(k->v);
	free(k->last_boosted);
	free(k);
	hv->kind_priv = NULL;
}

static double
kvm_ple_window(struct hv *hv, struct vcpu *v)
{
	struct kvm *k = hv->kind_priv;

	return k->cfg->ple ? k->v[v->id].window_ns : 0;
}

/* LNX-4.5 vmx.c: __grow_ple_window */
static void
grow_window(struct kvm *k, struct kvm_vcpu *kv)
{
	const struct kvm_cfg *c = k->cfg;

	if (c->grow < 1)
		kv->window_ns = c->window_ns;
	else if (c->grow < c->window_ns)
		kv->window_ns *= c->grow;
	else
		kv->window_ns += c->grow;
	if (kv->window_ns > c->max_ns)
		kv->window_ns = c->max_ns;
}

/* LNX-4.5 vmx.c: __shrink_ple_window, called from vmx_sched_in */
static void
shrink_window(struct kvm *k, struct kvm_vcpu *kv)
{
	const struct kvm_cfg *c = k->cfg;

	if (c->shrink < 1)
		kv->window_ns = c->window_ns;
	else if (c->shrink < c->window_ns)
		kv->window_ns /= c->shrink;
	else
		kv->window_ns -= c->shrink;
	if (kv->window_ns < c->window_ns)
		kv->window_ns = c->window_ns;
}

/* LNX-3.10 kvm_main.c: kvm_vcpu_eligible_for_directed_yield */
static int
eligible(struct kvm_vcpu *t)
{
	int e = !t->in_spin_loop || t->dy_eligible;

	if (t->in_spin_loop)
		t->dy_eligible = !t->dy_eligible;
	return e;
}

/* LNX-3.6 / 3.10 kvm_main.c: kvm_vcpu_on_spin */
static void
kvm_ple_exit(struct hv *hv, struct vcpu *me)
{
	struct kvm *k = hv->kind_priv;
	struct vm *vm = me->vm;
	int last = k->last_boosted[vm->id], pass, i, tries = 3, r;

	if (k->cfg->dynamic)
		grow_window(k, &k->v[me->id]);
	k->v[me->id].in_spin_loop = 1;
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < vm->nvcpus; i++) {
			struct vcpu *t = vm->vcpus[i];
			struct kvm_vcpu *kt = &k->v[t->id];

			if ((pass == 0 && i <= last) || (pass == 1 && i > last))
				continue;
			if (t == me)
				continue;
			if (k->cfg->handler == SPIN_310) {
				if (!kt->preempted)
					continue;
				/* halted: its wait queue is active and no kick is pending */
				if (t->blocked && hv->gops->is_halted(t))
					continue;
				if (!eligible(kt))
					continue;
			} else {
				if (t->blocked && hv->gops->is_halted(t))
					continue;
				/* LNX-3.6 kvm_vcpu_yield_to: PF_VCPU (in guest mode) refuses */
				if (t->pcpu != NULL)
					continue;
			}
			r = hv_yield_to(me, t);
			if (r > 0) {
				k->last_boosted[vm->id] = i;
				return;
			}
			if (r < 0 && --tries == 0)
				return;
		}
	}
}

static double
kvm_halt_poll(struct hv *hv, struct vcpu *v)
{
	return ((struct kvm *)hv->kind_priv)->cfg->halt_poll_ns;
}

static void
kvm_ple_done(struct hv *hv, struct vcpu *v)
{
	struct kvm *k = hv->kind_priv;

	k->v[v->id].in_spin_loop = 0;
	k->v[v->id].dy_eligible = 0;
}

/* LNX-4.5 kvm_main.c: kvm_sched_in clears preempted; vmx_sched_in shrinks */
static void
kvm_sched_in(struct hv *hv, struct vcpu *v)
{
	struct kvm *k = hv->kind_priv;

	k->v[v->id].preempted = 0;
	if (k->cfg->dynamic)
		shrink_window(k, &k->v[v->id]);
}

/* LNX-4.5 kvm_main.c: kvm_sched_out - preempted only if still runnable */
static void
kvm_sched_out(struct hv *hv, struct vcpu *v)
{
	struct kvm *k = hv->kind_priv;

	k->v[v->id].preempted = !v->blocked;
}

/* LNX-5.3 x86.c kvm_sched_yield: yield_to the target if it is ready (preempted
 * while runnable); minimal host side for the guest's PV sched_yield (ipi.c) */
static int
kvm_sched_yield(struct hv *hv, struct vcpu *from, struct vcpu *to)
{
	(void)hv;
	if (to == from || to->rs != RS_RUNNABLE)
		return 0;
	return hv_yield_to(from, to);
}

const struct hv_kind_ops kind_kvm_ops = {
	.name = "kvm",
	.desc = "KVM: PLE exits call kvm_vcpu_on_spin (directed yield_to); halt/kick",
	.parse = kvm_parse,
	.free_cfg = kvm_free_cfg,
	.init = kvm_init,
	.deinit = kvm_deinit,
	.ple_window = kvm_ple_window,
	.ple_exit = kvm_ple_exit,
	.ple_done = kvm_ple_done,
	.halt_poll = kvm_halt_poll,
	.sched_in = kvm_sched_in,
	.sched_out = kvm_sched_out,
	.sched_yield = kvm_sched_yield,
};
