/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lock_tas.c - the unfair test-and-set byte lock, with or without PAUSE.
 *
 * Word 0 free / 1 held.  Acquire: cmpxchg 0 -> 1; on failure spin until the
 * word reads 0 and try again; whoever's cmpxchg reaches the line first wins
 * (no queue, no order).  Release: store 0.  This is virt_spin_lock, the
 * fallback of qspinlock in a VM without PV locks (LNX-4.5
 * arch/x86/include/asm/qspinlock.h, model-reference §4.3), and the Xen
 * pre-3.12 byte lock's fast path (§3.4).
 *
 * Cost model (one event per spinner per change of the word, never per
 * iteration):
 *  - every spinner poked by a change of the word makes one attempt round:
 *    if the word is free when the change reaches it, its cmpxchg takes the
 *    lock (with release_visibility it first invalidates the releaser's and
 *    the other spinners' copies: lock_claim_ns); if another spinner got
 *    there first, its cmpxchg fails and steals the word's line (the next
 *    writer fetches it from there);
 *  - pause: true (TTAS, read + PAUSE): between changes spinners only read,
 *    the line stays shared, the holder is not disturbed;
 *  - pause: false (cmpxchg loop): the spinners' RMW storm keeps the line
 *    moving during the whole hold.  The holder's release store, and its
 *    critical section's access to the lock's line (the first of cs_lines:
 *    the lock sits in the structure it protects), queue behind one RMW per
 *    running spinner: each pays sum over running spinners of their line
 *    transfer to the holder.
 * Leaves out: a no-PAUSE spinner is seen by its SMT sibling like a PAUSE
 * spinner (guest.c sets LOAD_SPIN for every spin).
 */
#include <stdlib.h>

#include "guest/lock.h"
#include "hv/hv.h"
#include "yconf.h"
#include "yparam.h"

struct tas_cfg {
	int pause;
};

struct tas {
	const struct tas_cfg *cfg;
	unsigned char *spinning;	/* per vCPU of the VM: waiting in the loop */
	int n;
};

static const struct vs_param tas_params[] = {
	{ "pause", "true", "read + PAUSE between tries (TTAS); false: a cmpxchg loop", "bool", "",
	  VP_BOOL, VS_AT(struct tas_cfg, pause), 0, 1, 1, NULL },
	{ NULL, NULL, NULL, NULL, NULL, VS_LIST }
};

static int
tas_parse(const struct yc_node *n, const struct machine *m, void **out, struct vs_err *err)
{
	struct tas_cfg *c = xcalloc(1, sizeof *c);

	*out = c;
	return yc_params_read(n, tas_params, NULL, m->hz, c, err);
}

static void
tas_free_cfg(void *c)
{
	free(c);
}

static void *
tas_create(struct glock *l, const void *cfg)
{
	struct tas *t = xcalloc(1, sizeof *t);

	t->cfg = cfg;
	t->n = l->vm->nvcpus;
	t->spinning = xcalloc((size_t)t->n, 1);
	return t;
}

static void
tas_destroy(void *p)
{
	struct tas *t = p;

	free(t->spinning);
	free(t);
}

/* The RMW storm of running no-PAUSE spinners, as felt by an access on v. */
static double
storm_ns(struct glock *l, const struct vcpu *v)
{
	struct tas *t = l->priv;
	double ns = 0;
	int i;

	if (t->cfg->pause)
		return 0;
	for (i = 0; i < t->n; i++) {
		struct vcpu *w = l->vm->vcpus[i];

		if (t->spinning[i] && w != v && w->pcpu != NULL)
			ns += lock_line_ns(l, w->pcpu->id, v);
	}
	return ns;
}

/* v owns the word; extra is what its cmpxchg cost. */
static void
take(struct glock *l, struct vcpu *v, double extra)
{
	struct tas *t = l->priv;

	t->spinning[v->idx] = 0;
	/* No PAUSE: the section's access to the lock's line queues behind the storm. */
	if (l->cs_lines > 0)
		extra += storm_ns(l, v);
	lock_taken(l, v, extra);
}

/* LNX-4.5 asm/qspinlock.h virt_spin_lock: cmpxchg, else spin and retry */
static void
tas_acquire(struct glock *l, struct vcpu *v)
{
	struct tas *t = l->priv;
	double cmpxchg = lock_seen_ns(l, v) + lock_atomic_ns(l);

	/* Success or failure, the cmpxchg took the line exclusive. */
	l->last_pcpu = v->pcpu->id;
	if (l->holder == NULL) {
		take(l, v, cmpxchg);
		return;
	}
	t->spinning[v->idx] = 1;
	lock_wait(l, v, GUEST_FOREVER, NULL);
}

/* Store 0; every running spinner makes one attempt round. */
static double
tas_release(struct glock *l, struct vcpu *v)
{
	struct tas *t = l->priv;
	double storm = storm_ns(l, v);
	int i;

	for (i = 0; i < t->n; i++)
		if (t->spinning[i])
			lock_poke(l, l->vm->vcpus[i]);
	return storm;
}

static int
tas_ready(struct glock *l, struct vcpu *v)
{
	return l->holder == NULL;
}

static int
tas_observe(struct glock *l, struct vcpu *v)
{
	/* It saw 0 and tried; lost if another spinner's cmpxchg came first
	 * (which still took the line). */
	if (l->holder != NULL) {
		l->last_pcpu = v->pcpu->id;
		return 0;
	}
	take(l, v, lock_claim_ns(l, v));
	return 1;
}


const struct lock_ops lock_tas_ops = {
	.name = "tas",
	.desc = "unfair test-and-set byte lock (virt_spin_lock); pause: false = cmpxchg storm",
	.params = tas_params,
	.parse = tas_parse,
	.free_cfg = tas_free_cfg,
	.create = tas_create,
	.destroy = tas_destroy,
	.acquire = tas_acquire,
	.release = tas_release,
	.observe = tas_observe,
	.ready = tas_ready,
};
