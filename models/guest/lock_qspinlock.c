/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lock_qspinlock.c - the queued spinlock, native (Linux 4.2+ x86).
 *
 * LNX-4.5 kernel/locking/qspinlock.c queued_spin_lock_slowpath
 * (model-reference §4.1-4.2).  Lock word {locked, pending, tail}:
 *  - fast path: cmpxchg of the whole word 0 -> locked;
 *  - only locked set: the caller sets pending and spins on the word; it is
 *    the one waiter outside the queue, and takes the lock at release;
 *  - anything else (pending or tail set): join the MCS queue (xchg_tail).
 *    Each queued waiter spins on its own node (local spinning); the queue
 *    head spins on the word until locked and pending are clear, takes the
 *    lock and writes next->locked, which the successor sees one line
 *    transfer (from the new owner's pCPU) later: it becomes the head.
 * Strictly FIFO: a newcomer queues whenever pending or tail is set.
 *
 * hypervisor: true models virt_spin_lock (LNX-4.5 asm/qspinlock.h, §4.3):
 * the guest sees X86_FEATURE_HYPERVISOR and has no PV spinlocks, so after a
 * failed fast path the slow path is the unfair test-and-set loop (spin with
 * cpu_relax until the whole word is 0, cmpxchg 0 -> locked), and the lock
 * behaves exactly as `tas` with PAUSE (this file forwards to it).  Since 4.15
 * the check is the static key virt_spin_lock_key, on by default in a guest;
 * KVM turns it off (native qspinlock) for KVM_HINTS_REALTIME and nopvspin
 * [unverified]: that is hypervisor: false here.  virt_fallback is the older
 * name of the same switch.
 *
 * Leaves out: the nesting levels of MCS nodes (one node per vCPU: a vCPU
 * waits for one lock at a time here), the short wait for a pending ->
 * locked hand-over in progress (step 2), the cost of the RMWs of waiters
 * (they overlap their wait; the word's line moves to them all the same).
 */
#include <stdlib.h>

#include "guest/lock.h"
#include "hv/hv.h"
#include "yconf.h"
#include "yparam.h"

struct qs_cfg {
	/* First: inside QS_FALLBACK, qs_reads_word reads l->priv (then the tas
	 * state) as a struct qs, and this field as the first int of the tas
	 * cfg (its pause, 1), which makes it answer 1 as it should. */
	int virt_fallback;	/* hypervisor or virt_fallback */
	void *tas_cfg;		/* virt_fallback: tas with PAUSE */
	int hv, old;		/* the keys hypervisor and virt_fallback (its older name) */
};

/* A vCPU's MCS node (qspinlock.c struct mcs_spinlock: next, locked), one per
 * vCPU: a vCPU waits for one lock at a time here. */
struct qs_node {
	struct qs_node *next;	/* its successor in the queue */
	struct vcpu *v;		/* the vCPU it belongs to */
	sim_time_t seen_at;	/* when node->locked = 1 reaches it; -1: not written */
};

struct qs {
	const struct qs_cfg *cfg;
	void *tas;		/* virt_fallback: the tas lock's private data */
	struct vcpu *pending;	/* the pending-bit spinner, NULL if none */
	struct qs_node *head, *tail;	/* MCS queue (the word's tail), NULL: empty */
	int qn, n;
	struct qs_node *node;	/* per vCPU of the VM (v->idx) */
};

static const struct vs_param qs_params[] = {
	{ "hypervisor", NULL, "X86_FEATURE_HYPERVISOR without PV spinlocks: virt_spin_lock's "
	  "test-and-set slow path (4.2+; virt_spin_lock_key 4.15+); = tas", "bool", "",
	  VP_BOOL, VS_AT(struct qs_cfg, hv), 0, 1, 0, NULL },
	{ "virt_fallback", NULL, "older name of hypervisor", "bool", "",
	  VP_BOOL, VS_AT(struct qs_cfg, old), 0, 1, 0, NULL },
	{ NULL, NULL, NULL, NULL, NULL, VS_LIST }
};

static int
qs_parse(const struct yc_node *n, const struct machine *m, void **out, struct vs_err *err)
{
	struct qs_cfg *c = xcalloc(1, sizeof *c);

	*out = c;
	if (yc_params_read(n, qs_params, NULL, m->hz, c, err))
		return -1;
	c->virt_fallback = c->hv || c->old;
	if (c->virt_fallback)
		return lock_tas_ops.parse(NULL, m, &c->tas_cfg, err);
	return 0;
}

static void
qs_free_cfg(void *p)
{
	struct qs_cfg *c = p;

	if (c != NULL && c->tas_cfg != NULL)
		lock_tas_ops.free_cfg(c->tas_cfg);
	free(c);
}

static void *
qs_create(struct glock *l, const void *cfg)
{
	struct qs *s = xcalloc(1, sizeof *s);
	int i;

	s->cfg = cfg;
	s->n = l->vm->nvcpus;
	s->node = xcalloc((size_t)s->n, sizeof *s->node);
	for (i = 0; i < s->n; i++) {
		s->node[i].v = l->vm->vcpus[i];
		s->node[i].seen_at = -1;
	}
	if (s->cfg->virt_fallback)
		s->tas = lock_tas_ops.create(l, s->cfg->tas_cfg);
	return s;
}

static void
qs_destroy(void *p)
{
	struct qs *s = p;

	if (s->tas != NULL)
		lock_tas_ops.destroy(s->tas);
	free(s->node);
	free(s);
}

static struct vcpu *
qhead(const struct qs *s)
{
	return s->head != NULL ? s->head->v : NULL;
}

/* virt_spin_lock: the tas ops find their data in l->priv; swap it in around a call. */
#define QS_FALLBACK(l, s, call) do {			\
	void *qs_self_ = (l)->priv;			\
	(l)->priv = (s)->tas;				\
	call;						\
	(l)->priv = qs_self_;				\
} while (0)

/* qspinlock.c: queued_spin_lock + queued_spin_lock_slowpath */
static void
qs_acquire(struct glock *l, struct vcpu *v)
{
	struct qs *s = l->priv;
	struct qs_node *me;
	double cmpxchg = lock_seen_ns(l, v) + lock_atomic_ns(l);

	if (s->cfg->virt_fallback) {
		QS_FALLBACK(l, s, lock_tas_ops.acquire(l, v));
		return;
	}
	l->last_p = v->pcpu;
	if (l->holder == NULL && s->pending == NULL && s->qn == 0) {
		lock_taken(l, v, cmpxchg);	/* fast path: 0 -> locked */
		return;
	}
	if (l->holder != NULL && s->pending == NULL && s->qn == 0) {
		s->pending = v;			/* trylock-or-pending: set pending */
		lock_wait(l, v, GUEST_FOREVER, NULL);
		return;
	}
	/* queue: xchg_tail, then WRITE_ONCE(prev->next, node); with no
	 * predecessor we are the head at once */
	me = &s->node[v->idx];
	me->next = NULL;
	me->seen_at = -1;
	if (s->tail != NULL)
		s->tail->next = me;
	else
		s->head = me;
	s->tail = me;
	s->qn++;
	VS_ASSERT(s->qn <= s->n);
	lock_wait(l, v, GUEST_FOREVER, NULL);
}

/* native_queued_spin_unlock: store 0 to the locked byte */
static double
qs_release(struct glock *l, struct vcpu *v)
{
	struct qs *s = l->priv;
	double extra = 0;

	if (s->cfg->virt_fallback) {
		QS_FALLBACK(l, s, extra = lock_tas_ops.release(l, v));
		return extra;
	}
	/* Who spins on the word: the pending waiter, else the queue head. */
	if (s->pending != NULL)
		lock_poke(l, s->pending);
	else if (qhead(s) != NULL)
		lock_poke(l, qhead(s));
	return 0;
}

static int
qs_ready(struct glock *l, struct vcpu *v)
{
	struct qs *s = l->priv;
	int r = 0;

	if (s->cfg->virt_fallback) {
		QS_FALLBACK(l, s, r = lock_tas_ops.ready(l, v));
		return r;
	}
	if (l->holder != NULL)
		return 0;
	return s->pending == v || (s->pending == NULL && qhead(s) == v);
}

static int
qs_observe(struct glock *l, struct vcpu *v)
{
	struct qs *s = l->priv;
	sim_time_t now = l->hv->sim->now;
	struct vcpu *next;
	int r = 0;

	if (s->cfg->virt_fallback) {
		QS_FALLBACK(l, s, r = lock_tas_ops.observe(l, v));
		return r;
	}
	if (!qs_ready(l, v))
		return 0;
	if (s->pending == v) {
		/* clear_pending_set_locked: a plain store (_Q_PENDING_BITS 8);
		 * its upgrade drains from the store buffer behind the section */
		s->pending = NULL;
		lock_taken(l, v, lock_atomic_ns(l));
		return 1;
	}
	/* The head's node->locked write must reach it before it acts as head. */
	if (s->head->seen_at > now) {
		guest_poke(v, (double)(s->head->seen_at - now));
		return 0;
	}
	s->head = s->head->next;
	if (s->head == NULL)
		s->tail = NULL;
	s->qn--;
	if ((next = qhead(s)) != NULL) {
		/* arch_mcs_spin_unlock_contended(&next->locked): a store to the
		 * node next spins on */
		double d = lock_flag_ns(l, v, next);

		s->head->seen_at = now + sim_ns(d);
		if (guest_is_running(next) && guest_is_spinning(next))
			guest_poke(next, d);
	}
	/* Claim the word it spun on: with a successor, set_locked, a plain
	 * store whose upgrade drains from the store buffer (TSO lets the
	 * section's loads pass it); alone (val == tail), a cmpxchg, which
	 * waits for it. */
	lock_taken(l, v, next == NULL ? lock_claim_ns(l, v) : lock_atomic_ns(l));
	return 1;
}

/* The pending waiter and the queue head spin on the word (atomic_cond_read_acquire
 * on lock->val); the others on their own MCS node, the head only once it has
 * seen its node's locked write.  virt_spin_lock: every spinner reads it. */
static int
qs_reads_word(const struct glock *l, const struct vcpu *v)
{
	const struct qs *s = l->priv;

	if (s->cfg->virt_fallback)
		return 1;
	return s->pending == v ||
	    (qhead(s) == v && s->head->seen_at <= l->hv->sim->now);
}


const struct lock_ops lock_qspinlock_ops = {
	.name = "qspinlock",
	.desc = "queued spinlock: pending bit + MCS queue, FIFO (Linux 4.2+ native)",
	.params = qs_params,
	.parse = qs_parse,
	.free_cfg = qs_free_cfg,
	.create = qs_create,
	.fifo = 1,
	.destroy = qs_destroy,
	.acquire = qs_acquire,
	.release = qs_release,
	.observe = qs_observe,
	.ready = qs_ready,
	.reads_word = qs_reads_word,
};
