/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lock_ticket.c - the x86 ticket spinlock (Linux 2.6.25 - 3.x, native).
 *
 * Lock word {head, tail}.  Acquire: xadd on tail takes a ticket; spin (PAUSE)
 * until head equals it.  Release: head++.  Strictly FIFO, no spin limit, no
 * paravirt hooks (LNX-3.6 arch/x86/include/asm/spinlock.h: __ticket_spin_lock).
 * In a VM this is what suffers both lock-holder and lock-waiter preemption:
 * the next ticket's owner may be descheduled when its turn comes, and nobody
 * behind it can pass.
 */
#include <stdlib.h>

#include "guest/lock.h"
#include "guest/ring_ff.h"
#include "guest/ticket_word.h"
#include "hv/hv.h"

static void *
ticket_create(struct glock *l, const void *cfg)
{
	struct ticket_word *t = xcalloc(1, sizeof *t);

	tkt_init(t, l->vm->nvcpus);
	return t;
}

/* the word of a renewed lock of the same VM: its ring kept */
static void *
ticket_renew(struct glock *l, void *p, const void *cfg)
{
	struct ticket_word *t = p;

	VS_ASSERT(t->n == l->vm->nvcpus);
	tkt_clear(t);
	return t;
}

static void
ticket_destroy(void *p)
{
	tkt_free(p);
	free(p);
}

/* LNX-3.6 spinlock.h: __ticket_spin_lock - xadd, then spin on head */
static double
ticket_take(struct glock *l, struct vcpu *v)
{
	int from = l->last_pcpu;	/* the xadd's line: the last writer's */

	l->last_pcpu = v->pcpu->id;
	/* (priced only when it takes the lock: a waiter pays its turn's) */
	if (tkt_take(l->priv, v))
		return lock_line_ns(l, from, v) + lock_atomic_ns(l);
	return -1;
}

/* LNX-3.6 spinlock.h: __ticket_spin_unlock - head++ (no kick) */
static double
ticket_release(struct glock *l, struct vcpu *v)
{
	struct vcpu *next = tkt_advance(l->priv);

	if (next != NULL) {
		lock_prefetch(l, tkt_prefetch(l->priv));
		lock_poke(l, next);
	}
	return 0;
}

static int
ticket_ready(struct glock *l, struct vcpu *v)
{
	return l->holder == NULL && tkt_turn(l->priv, v);
}

static int
ticket_observe(struct glock *l, struct vcpu *v)
{
	if (!ticket_ready(l, v))
		return 0;
	ring_ff_turn(l, v);	/* a hand-over: the ring's cycles may repeat from here */
	lock_taken(l, v, 0);
	return 1;
}

static void
ticket_ffs(struct ffs *s, struct glock *l)
{
	tkt_ffs(s, l->priv);
}

const struct lock_ops lock_ticket_ops = {
	.name = "ticket",
	.desc = "x86 ticket spinlock: FIFO, spins forever (Linux 2.6.25-3.x)",
	.create = ticket_create,
	.destroy = ticket_destroy,
	.renew = ticket_renew,
	.take = ticket_take,
	.fifo = 1,
	.release = ticket_release,
	.observe = ticket_observe,
	.ready = ticket_ready,
	.ffs = ticket_ffs,
};
