/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lock_pvticket.c - paravirtual ticket spinlock with halt and kick (KVM).
 *
 * LNX-3.18 arch/x86/include/asm/spinlock.h and arch/x86/kernel/kvm.c
 * (model-reference §3.2-3.3): a waiter spins SPIN_THRESHOLD iterations on the
 * lock word; then kvm_lock_spinning publishes {lock, want}, sets the slowpath
 * flag, re-checks, and halts (HLT exit, the vCPU blocks in the host).  With
 * PV spinlocks on, unlock is a locked add with a full barrier plus a test of
 * the flag; if the flag is set and the next ticket's owner registered, the
 * unlocker kicks it with KVM_HC_KICK_CPU and the host wakes it.
 *
 * backend: none is the guest kernel of seed 000's configuration C: Jeremy
 * Fitzhardinge's 2011 ticketlock series with PARAVIRT_SPINLOCKS=y but no
 * KVM backend (the KVM patches are configurations D/E).  pv_lock_ops stay
 * paravirt_nop and the jump label paravirt_ticketlocks_enabled stays off,
 * so a waiter that reaches SPIN_THRESHOLD calls a no-op and spins on,
 * nobody sets the slowpath flag, and unlock is the native plain add: the
 * algorithm is the native ticket lock (INC 2 instead of 1 changes nothing).
 *
 * irqs: off (default) is a spin_lock_irqsave site: kvm_lock_spinning halt()s
 * and only the kick wakes the waiter.  on is a spin_lock site: safe_halt(),
 * so an interrupt ends the halt; the handler runs, and a waiter whose ticket
 * has not come (a spurious wakeup) spins SPIN_THRESHOLD again, then halts.
 */
#include <stdlib.h>
#include <string.h>

#include "guest/lock.h"
#include "guest/ring_ff.h"
#include "guest/ticket_word.h"
#include "hv/hv.h"
#include "yconf.h"
#include "yparam.h"

enum pvt_backend { PVT_KVM, PVT_NONE };
static const char *const pvt_backend_names[] = { "kvm", "none", NULL };
static const char *const pvt_irqs_names[] = { "off", "on", NULL };

struct pvt_cfg {
	int backend;		/* enum pvt_backend */
	double threshold;	/* iterations before the slow path */
	double iter_ns;		/* one spin iteration: a read and a PAUSE */
	double unlock_ns;	/* the PV unlock's extra cost (locked add, flag test) */
	double hypercall_ns;
	int irqs;		/* 1: spin_lock() with interrupts on, kvm_lock_spinning safe_halt()s */
};

struct pvt {
	const struct pvt_cfg *cfg;
	struct ticket_word w;
	int slowpath;		/* TICKET_SLOWPATH_FLAG in tail */
	unsigned char *registered; /* per vCPU: in waiting_cpus with want = my */
};

static const struct vs_param pvt_params[] = {
	{ "backend", NULL, "kvm: kvm_lock_spinning halts, unlock kicks; none: PARAVIRT_SPINLOCKS=y with no backend (pv ops nop, jump label off: the native ticket lock; seed 000 C)", "enum kvm|none", "",
	  VP_ENUM, VS_AT(struct pvt_cfg, backend), 0, 0, PVT_KVM, pvt_backend_names },
	/* LNX-3.18 asm/spinlock.h: SPIN_THRESHOLD (1 << 15) */
	{ "spin_threshold", NULL, "SPIN_THRESHOLD, iterations before halting (3.18 "
	  "asm/spinlock.h)", "int", "", VP_NUM, VS_AT(struct pvt_cfg, threshold), 1, 1e9, 32768,
	  NULL },
	{ "iteration", "(machine pause)", "ns of one spin iteration (one PAUSE)", "time", "ns",
	  VP_TIME, VS_AT(struct pvt_cfg, iter_ns), 0.1, 1e6, 0, NULL },
	{ "unlock_extra", "(machine atomic; 0 with backend none)", "extra unlock cost with PV on (locked add + flag test)",
	  "time", "ns", VP_TIME, VS_AT(struct pvt_cfg, unlock_ns), 0, 1e6, 0, NULL },
	{ "irqs", NULL, "off: spin_lock_irqsave sites, kvm_lock_spinning halt()s and only the kick wakes; on: spin_lock with interrupts enabled, safe_halt(): an interrupt wakes the waiter, which spins again (VM.LOCK.spurious_wakeups)", "enum off|on", "",
	  VP_ENUM, VS_AT(struct pvt_cfg, irqs), 0, 0, 0, pvt_irqs_names },
	{ NULL, NULL, NULL, NULL, NULL, VS_LIST }
};

static int
pvt_parse(const struct yc_node *n, const struct machine *m, void **out, struct vs_err *err)
{
	struct pvt_cfg *c = xcalloc(1, sizeof *c);

	*out = c;
	c->hypercall_ns = m->exit_hypercall_ns;
	c->iter_ns = m->pause_ns;
	c->unlock_ns = -1;
	if (yc_params_read(n, pvt_params, NULL, m->hz, c, err))
		return -1;
	/* jeremy/xen 2011 asm/spinlock.h arch_spin_unlock: with the jump label
	 * off (no backend) unlock is the plain __add of native */
	if (c->unlock_ns < 0)
		c->unlock_ns = c->backend == PVT_NONE ? 0 : m->atomic_ns;
	return 0;
}

/* kvm.c kvm_unlock_kick: KVM_HC_KICK_CPU, which only a KVM host answers */
static const char *
pvt_needs_hv(const void *cfg)
{
	const struct pvt_cfg *c = cfg;

	return c->backend == PVT_KVM ? "backend kvm: its unlock kicks a halted waiter with the "
	    "KVM_HC_KICK_CPU hypercall" : NULL;
}

/* What create sets besides the allocations (cleared): renew's too. */
static void *
pvt_set(struct glock *l, struct pvt *t, const void *cfg)
{
	t->cfg = cfg;
	l->halt_irqs = t->cfg->irqs;
	return t;
}

static void *
pvt_create(struct glock *l, const void *cfg)
{
	struct pvt *t = xcalloc(1, sizeof *t);

	tkt_init(&t->w, l->vm->nvcpus);
	t->registered = xcalloc((size_t)l->vm->nvcpus, 1);
	return pvt_set(l, t, cfg);
}

/* a renewed lock of the same VM: its arrays kept, cleared */
static void *
pvt_renew(struct glock *l, void *p, const void *cfg)
{
	struct pvt *t = p;

	VS_ASSERT(t->w.n == l->vm->nvcpus);
	tkt_clear(&t->w);
	t->slowpath = 0;
	memset(t->registered, 0, (size_t)t->w.n);
	return pvt_set(l, t, cfg);
}

static void
pvt_destroy(void *p)
{
	struct pvt *t = p;

	tkt_free(&t->w);
	free(t->registered);
	free(t);
}

static int
pvt_ready(struct glock *l, struct vcpu *v)
{
	struct pvt *t = l->priv;

	return l->holder == NULL && tkt_turn(&t->w, v);
}

static void pvt_slowpath(struct vcpu *v);

static double
budget(const struct pvt *t)
{
	/* jeremy/xen 2011 paravirt-spinlocks.c: lock_spinning = paravirt_nop
	 * without a backend, so the SPIN_THRESHOLD loop just starts again */
	if (t->cfg->backend == PVT_NONE)
		return GUEST_FOREVER;
	return t->cfg->threshold * t->cfg->iter_ns;
}

/* LNX-3.18 spinlock.h: arch_spin_lock - xadd, spin SPIN_THRESHOLD, slow path */
static void
pvt_acquire(struct glock *l, struct vcpu *v)
{
	struct pvt *t = l->priv;
	double xadd = lock_seen_ns(l, v) + lock_atomic_ns(l);

	l->last_p = v->pcpu;
	if (tkt_take(&t->w, v)) {
		lock_taken(l, v, xadd);
		return;
	}
	lock_wait(l, v, budget(t), pvt_slowpath);
}

/* kvm.c: kvm_unlock_kick's target leaves waiting_cpus once it runs again */
static void
pvt_woken(struct vcpu *v)
{
	struct glock *l = guest_lock(v);
	struct pvt *t = l->priv;

	t->registered[v->idx] = 0;
	if (pvt_ready(l, v)) {
		lock_taken(l, v, lock_seen_ns(l, v));
		return;
	}
	/* woken, not our turn (an interrupt, irqs: on): spin SPIN_THRESHOLD again */
	l->st.spurious++;
	lock_wait(l, v, budget(t), pvt_slowpath);
}

/* kvm.c: kvm_lock_spinning - register, set the slowpath flag, re-check, halt */
static void
pvt_slowpath(struct vcpu *v)
{
	struct glock *l = guest_lock(v);
	struct pvt *t = l->priv;
	double flag = lock_seen_ns(l, v) + lock_atomic_ns(l);

	t->registered[v->idx] = 1;
	t->slowpath = 1;
	l->last_p = v->pcpu;
	if (pvt_ready(l, v)) {		/* taken_slow_pickup */
		t->registered[v->idx] = 0;
		lock_taken(l, v, flag);
		return;
	}
	l->st.halts++;
	/* LNX-3.18 kvm.c kvm_lock_spinning: halt() if irqs were off, else safe_halt() */
	if (t->cfg->irqs)
		guest_halt_irqs(v, flag, pvt_woken);
	else
		guest_halt(v, flag, pvt_woken);
}

/* LNX-3.18 spinlock.h: arch_spin_unlock + __ticket_unlock_slowpath */
static double
pvt_release(struct glock *l, struct vcpu *v)
{
	struct pvt *t = l->priv;
	double cost = t->cfg->unlock_ns;
	struct vcpu *next;

	next = tkt_advance(&t->w);
	if (next == NULL) {
		if (t->slowpath) {	/* nobody queued: clear the flag with cmpxchg */
			t->slowpath = 0;
			cost += lock_atomic_ns(l);
		}
		return cost;
	}
	tkt_prefetch(l, &t->w);
	if (t->slowpath && t->registered[next->idx]) {
		/* kvm.c: kvm_unlock_kick -> KVM_HC_KICK_CPU, after the add */
		lock_kick(l, v, next, cost);
		cost += t->cfg->hypercall_ns;
	} else {
		lock_poke(l, next);
	}
	return cost;
}

static int
pvt_observe(struct glock *l, struct vcpu *v)
{
	if (!pvt_ready(l, v))
		return 0;
	ring_ff_turn(l, v);	/* a hand-over: the ring's cycles may repeat from here */
	lock_taken(l, v, 0);
	return 1;
}

/* The lock in a snapshot of a periodic run (ring_ff.c): the word's, and the
 * slow path's flag and registrations as they are. */
static void
pvt_ffs(struct ffs *s, struct glock *l)
{
	struct pvt *t = l->priv;

	ffs_bytes(s, t, sizeof *t);
	tkt_ffs(s, &t->w);
	ffs_bytes(s, t->registered, (size_t)t->w.n);
}

static void
pvt_free_cfg(void *c)
{
	free(c);
}


const struct lock_ops lock_pvticket_ops = {
	.name = "pv-ticket",
	.desc = "paravirtual ticket lock: spin, then halt; unlock kicks (KVM, Linux 3.12-4.x)",
	.params = pvt_params,
	.parse = pvt_parse,
	.free_cfg = pvt_free_cfg,
	.create = pvt_create,
	.destroy = pvt_destroy,
	.renew = pvt_renew,
	.acquire = pvt_acquire,
	.fifo = 1,
	.needs_hv = pvt_needs_hv,
	.release = pvt_release,
	.observe = pvt_observe,
	.ready = pvt_ready,
	.ffs = pvt_ffs,
};
