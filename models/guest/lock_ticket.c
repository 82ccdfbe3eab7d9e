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

/* LNX-3.6 spinlock.h: __ticket_spin_lock (ticket_word.h tkt_lock_take;
 * lock_acquire inlines the same: lock.h) */
double
lock_ticket_take(struct glock *l, struct vcpu *v)
{
	return tkt_lock_take(l, l->priv, v);
}

/* LNX-3.6 spinlock.h: __ticket_spin_unlock (ticket_word.h
 * tkt_lock_release; lock_release inlines the same: lock.h) */
double
lock_ticket_release(struct glock *l, struct vcpu *v)
{
	return tkt_lock_release(l, l->priv);
}

static int
ticket_ready(struct glock *l, struct vcpu *v)
{
	return l->holder == NULL && tkt_turn(l->priv, v);
}

/* (ticket_word.h tkt_lock_turn; lock.c's watch inlines the same: lock.h) */
int
lock_ticket_observe(struct glock *l, struct vcpu *v)
{
	if (!tkt_lock_turn(l, l->priv, v))
		return 0;
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
	.take = lock_ticket_take,
	.fifo = 1,
	.release = lock_ticket_release,
	.observe = lock_ticket_observe,
	.ready = ticket_ready,
	.ffs = ticket_ffs,
};
