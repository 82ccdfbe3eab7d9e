/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lock_pmtticket.c - the preemptable ticket spinlock (pmtlock).
 *
 * Follows Jiannan Ouyang and John R. Lange, "Preemptable Ticket Spinlocks:
 * Improving Consolidated Performance in the Cloud", VEE 2013, as coded in
 * pmtlock-v3.0.patch (github.com/ouyangjn/pmtlock, "pmt-cpt-st", for Linux
 * 3.12+; arch/x86/include/asm/spinlock.h arch_spin_lock/arch_spin_unlock):
 *  - the word is {head, tail}, tickets step by 2, and bit 0 of head is
 *    LOCK_HOLD_FLAG (the lock is held);
 *  - acquire: xadd on tail takes a ticket.  Wait phase: spin reading head
 *    until it equals the ticket (the turn has come), or until a timeout of
 *    (tail - head) << pmtlock_timeout_shift iterations, proportional to the
 *    waiters ahead (shift 8: 512 iterations per waiter ahead);
 *  - compete phase: spin; whenever the hold flag is clear, cmpxchg it set.
 *    The turn's owner and every timed-out waiter race for it: a waiter whose
 *    earlier neighbour is preempted gets the lock out of order;
 *  - release: head += 1 (clears the flag and advances the turn by one), so
 *    the turn moves on at every release whoever took the lock.
 * A waiter passed by the turn (someone took its release out of order) only
 * leaves the wait phase by its timeout.  No halt, no kick (the patch
 * replaces the PV ticket slow path).
 *
 * Costs as `ticket` and `tas`: the xadd and the cmpxchg pay the word's line
 * and an atomic; every running waiter that can act sees a release one line
 * transfer later; the first cmpxchg to arrive wins.
 * Leaves out: the u8/u16 ticket wrap-around (tickets do not wrap here).
 */
#include <math.h>
#include <stdlib.h>

#include "guest/lock.h"
#include "hv/hv.h"
#include "yconf.h"
#include "yparam.h"

enum pmt_phase { PMT_NONE, PMT_WAIT, PMT_COMPETE };

struct pmt_cfg {
	double shift, iter_ns;
};

/* A waiter's state, one per vCPU (the patch keeps it in arch_spin_lock's locals). */
struct pmt_node {
	uint64_t ticket;	/* its ticket: inc.tail of the xadd */
	unsigned char phase;	/* enum pmt_phase */
};

struct pmt {
	const struct pmt_cfg *cfg;
	uint64_t head, tail;	/* in tickets (the patch's value / 2) */
	int held;		/* LOCK_HOLD_FLAG */
	int n;
	struct pmt_node *node;	/* per vCPU of the VM (v->idx) */
};

static const struct vs_param pmt_params[] = {
	/* pmtlock-v3.0 kernel/locking/spinlock.c: pmtlock_timeout_shift = 8 */
	{ "timeout_shift", NULL, "pmtlock_timeout_shift: a waiter leaves its turn after "
	  "(waiters ahead x 2) << shift iterations", "int", "",
	  VP_NUM, VS_AT(struct pmt_cfg, shift), 0, 40, 8, NULL },
	{ "iteration", "(machine pause)", "ns of one spin iteration (one PAUSE)", "time", "ns",
	  VP_TIME, VS_AT(struct pmt_cfg, iter_ns), 0.01, 1e6, 0, NULL },
	{ NULL, NULL, NULL, NULL, NULL, VS_LIST }
};

static int
pmt_parse(const struct yc_node *n, const struct machine *m, void **out, struct vs_err *err)
{
	struct pmt_cfg *c = xcalloc(1, sizeof *c);

	*out = c;
	c->iter_ns = m->pause_ns;
	return yc_params_read(n, pmt_params, NULL, m->hz, c, err);
}

static void
pmt_free_cfg(void *c)
{
	free(c);
}

static void *
pmt_create(struct glock *l, const void *cfg)
{
	struct pmt *t = xcalloc(1, sizeof *t);

	t->cfg = cfg;
	t->n = l->vm->nvcpus;
	t->node = xcalloc((size_t)t->n, sizeof *t->node);
	return t;
}

static void
pmt_destroy(void *p)
{
	struct pmt *t = p;

	free(t->node);
	free(t);
}

/* cmpxchg(head, head & ~F, head | F) won */
static void
take(struct glock *l, struct vcpu *v, double extra)
{
	struct pmt *t = l->priv;

	t->held = 1;
	t->node[v->idx].phase = PMT_NONE;
	lock_taken(l, v, extra);
}

/* Compete phase: try now if the flag is clear, else spin until a release. */
static void
compete(struct glock *l, struct vcpu *v)
{
	struct pmt *t = l->priv;

	t->node[v->idx].phase = PMT_COMPETE;
	if (!t->held) {
		l->last_p = v->pcpu;
		take(l, v, lock_seen_ns(l, v) + lock_atomic_ns(l));
		return;
	}
	lock_wait(l, v, GUEST_FOREVER, NULL);
}

/* The wait phase's timeout ran out: compete out of turn. */
static void
timed_out(struct vcpu *v)
{
	compete(guest_acquiring(v), v);
}

static void
pmt_acquire(struct glock *l, struct vcpu *v)
{
	struct pmt *t = l->priv;
	struct pmt_node *me = &t->node[v->idx];
	uint64_t ahead;

	l->last_p = v->pcpu;	/* the xadd */
	me->ticket = t->tail++;
	if (t->head == me->ticket) {	/* __tickets_equal: goto spin */
		compete(l, v);
		return;
	}
	/* __timeout_threshold: (tail - head) << shift, in the patch's units of 2 */
	ahead = 2 * (me->ticket - t->head);
	me->phase = PMT_WAIT;
	lock_wait(l, v, (double)ahead * ldexp(1, (int)t->cfg->shift) * t->cfg->iter_ns,
	    timed_out);
}

/* arch_spin_unlock: head += 1 (flag off, turn on) */
static double
pmt_release(struct glock *l, struct vcpu *v)
{
	struct pmt *t = l->priv;
	int i;

	t->held = 0;
	t->head++;
	for (i = 0; i < t->n; i++)
		if (t->node[i].phase == PMT_COMPETE ||
		    (t->node[i].phase == PMT_WAIT && t->node[i].ticket == t->head))
			lock_poke(l, l->vm->vcpus[i]);
	return 0;
}

static int
pmt_ready(struct glock *l, struct vcpu *v)
{
	struct pmt *t = l->priv;

	switch (t->node[v->idx].phase) {
	case PMT_WAIT:
		return t->node[v->idx].ticket == t->head;
	case PMT_COMPETE:
		return !t->held;
	default:
		return 0;
	}
}

static int
pmt_observe(struct glock *l, struct vcpu *v)
{
	struct pmt *t = l->priv;

	if (!pmt_ready(l, v))
		return 0;
	if (t->node[v->idx].phase == PMT_WAIT) {	/* its turn: to the compete loop */
		compete(l, v);
		return 1;
	}
	take(l, v, lock_claim_ns(l, v));	/* it spun reading the flag */
	return 1;
}


const struct lock_ops lock_pmtticket_ops = {
	.name = "pmt-ticket",
	.desc = "preemptable ticket spinlock: FIFO until a waiter times out of its turn "
	    "(Ouyang & Lange, VEE 2013; pmtlock-v3.0)",
	.params = pmt_params,
	.parse = pmt_parse,
	.free_cfg = pmt_free_cfg,
	.create = pmt_create,
	.destroy = pmt_destroy,
	.acquire = pmt_acquire,
	.release = pmt_release,
	.observe = pmt_observe,
	.ready = pmt_ready,
};
