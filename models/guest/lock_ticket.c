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
#include "hv/hv.h"

struct ticket {
	uint64_t head, tail;
	uint64_t *my;		/* per vCPU of the VM: its ticket while waiting */
	struct vcpu **by_ticket; /* ring: who holds ticket t (t % nvcpus) */
	int n;
};

static void *
ticket_create(struct glock *l, const void *cfg)
{
	struct ticket *t = xcalloc(1, sizeof *t);

	t->n = l->vm->nvcpus;
	t->my = xcalloc((size_t)t->n, sizeof *t->my);
	t->by_ticket = xcalloc((size_t)t->n, sizeof *t->by_ticket);
	return t;
}

static void
ticket_destroy(void *p)
{
	struct ticket *t = p;

	free(t->my);
	free(t->by_ticket);
	free(t);
}

/* LNX-3.6 spinlock.h: __ticket_spin_lock - xadd, then spin on head */
static void
ticket_acquire(struct glock *l, struct vcpu *v)
{
	struct ticket *t = l->priv;
	uint64_t my = t->tail++;
	double xadd = lock_seen_ns(l, v) + lock_atomic_ns(l);

	VS_ASSERT(t->tail - t->head <= (uint64_t)t->n);
	t->my[v->idx] = my;
	t->by_ticket[my % (uint64_t)t->n] = v;
	l->last_pcpu = v->pcpu->id;
	if (t->head == my) {
		lock_taken(l, v, xadd);
		return;
	}
	lock_wait(l, v, GUEST_FOREVER, NULL);
}

/* LNX-3.6 spinlock.h: __ticket_spin_unlock - head++ (no kick) */
static double
ticket_release(struct glock *l, struct vcpu *v)
{
	struct ticket *t = l->priv;

	t->head++;
	if (t->tail != t->head)
		lock_poke(l, t->by_ticket[t->head % (uint64_t)t->n]);
	return 0;
}

static int
ticket_ready(struct glock *l, struct vcpu *v)
{
	struct ticket *t = l->priv;

	return l->holder == NULL && t->head == t->my[v->idx];
}

static int
ticket_observe(struct glock *l, struct vcpu *v)
{
	if (!ticket_ready(l, v))
		return 0;
	lock_taken(l, v, 0);
	return 1;
}

const struct lock_ops lock_ticket_ops = {
	.name = "ticket",
	.desc = "x86 ticket spinlock: FIFO, spins forever (Linux 2.6.25-3.x)",
	.create = ticket_create,
	.destroy = ticket_destroy,
	.acquire = ticket_acquire,
	.release = ticket_release,
	.observe = ticket_observe,
	.ready = ticket_ready,
};
