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
 * iteration).  MESI (Intel SDM vol. 3A, "Cache Control Protocol"; Hennessy
 * and Patterson, 5th ed., ch. 5): an RMW needs the word's line in M, so the
 * line moves from one RMW to the next and a writer waits for the RMWs
 * queued ahead of it; the mechanism is Anderson's ("The performance of spin
 * lock alternatives", IEEE TPDS 1990), the costs are the machine's line
 * transfers; lockbench's tas and ttas (bench/lab/lb_lock.c) are the two
 * spinners below:
 *  - pause: false (cmpxchg loop, lockbench tas): every try is an RMW, so
 *    while the lock is held each running spinner has one queued for the
 *    line.  The holder's release store waits behind one RMW per running
 *    spinner (the sum of their transfers, when the release happens:
 *    storm_ns), and no spinner sees the store before it is done; then the
 *    first RMW after it wins, a spinner's: a newcomer's cmpxchg queues
 *    behind theirs.  A section whose data shares the word's line
 *    (word_lines) queues behind the storm too.
 *  - pause: true (TTAS: read + PAUSE, lockbench ttas, virt_spin_lock):
 *    between changes spinners only read a shared copy, the holder is not
 *    disturbed; a release pokes every running spinner, each makes one
 *    attempt round: the first cmpxchg takes the lock (with
 *    release_visibility it first invalidates the releaser's and the other
 *    spinners' copies: lock_claim_ns), each later one fails but takes the
 *    line in turn: one burst of RMWs per release, a line transfer each
 *    (burst_end).  The next release store waits for what is left of it.
 * Leaves out: a no-PAUSE spinner is seen by its SMT sibling like a PAUSE
 * spinner (guest.c sets LOAD_SPIN for every spin); a TTAS winner's section
 * data in the word's line does not wait for the burst behind its own RMW;
 * the interconnect's bandwidth (other lines are not slowed).
 */
#include <stdlib.h>

#include "ffsnap.h"
#include "guest/lock.h"
#include "guest/ring_ff.h"
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
	double burst_end;	/* TTAS: the line is busy with a release's failed RMWs until then */
};

static const struct vs_param tas_params[] = {
	{ "pause", NULL, "read + PAUSE between tries (TTAS); false: a cmpxchg loop", "bool", "",
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

/*
 * The RMW storm of running no-PAUSE spinners, as felt by an access on v: the
 * line passes through the RMWs queued ahead before it reaches v.
 * past_owner: one spinner holds it now and hands it to v last, the
 * transfer lock_own_ns charges (from the farthest of them: lock.c counts
 * every spinner of a lock without reads_word), so the farthest is left out
 * here.  *n: the running spinners (0: no storm).
 */
static double
storm_ns(struct glock *l, const struct vcpu *v, int past_owner, int *n)
{
	struct tas *t = l->priv;
	double ns = 0, far = 0, d;
	int i;

	*n = 0;
	if (t->cfg->pause)
		return 0;
	for (i = 0; i < t->n; i++) {
		struct vcpu *w = l->vm->vcpus[i];

		if (!t->spinning[i] || w == v || w->pcpu == NULL)
			continue;
		++*n;
		d = lock_line_at(l, w->pcpu, v);
		ns += d;
		if (d > far)
			far = d;
	}
	return past_owner ? ns - far : ns;
}

/* v owns the word; extra is what its cmpxchg cost. */
static void
take(struct glock *l, struct vcpu *v, double extra)
{
	struct tas *t = l->priv;
	int n;

	t->spinning[v->idx] = 0;
	/* No PAUSE: the section's data in the word's line queues behind the
	 * other spinners' RMWs, then comes back. */
	if (l->word_lines > 0)
		extra += storm_ns(l, v, 0, &n);
	lock_taken(l, v, extra);
}

/* LNX-4.5 asm/qspinlock.h virt_spin_lock: cmpxchg, else spin and retry */
static void
tas_acquire(struct glock *l, struct vcpu *v)
{
	struct tas *t;
	double cmpxchg;
	/* No PAUSE: the cmpxchg queues behind the running spinners' RMWs, and
	 * one of them takes a free word first (MESI: served in turn). */
	int behind;

	ring_ff_turn(l, v);	/* an acquisition: the cycles may repeat from here */
	t = l->priv;
	cmpxchg = lock_seen_ns(l, v) + lock_atomic_ns(l);
	storm_ns(l, v, 0, &behind);
	/* Success or failure, the cmpxchg took the line exclusive. */
	l->last_p = v->pcpu;
	if (l->holder == NULL && !behind) {
		take(l, v, cmpxchg);
		return;
	}
	t->spinning[v->idx] = 1;
	lock_wait(l, v, GUEST_FOREVER, NULL);
}

/* Store 0 once the RMWs queued ahead of the store are done (the storm, or
 * what is left of the last burst); then every running spinner makes one
 * attempt round. */
static double
tas_release(struct glock *l, struct vcpu *v)
{
	struct tas *t = l->priv;
	double now = (double)l->hv->sim->now, wait;
	int i, running;

	if (t->cfg->pause)
		wait = t->burst_end > now ? t->burst_end - now : 0;
	else
		wait = storm_ns(l, v, 1, &running);
	l->handover_ns += wait;
	for (i = 0; i < t->n; i++)
		if (t->spinning[i])
			lock_poke(l, l->vm->vcpus[i]);
	return wait;
}

static int
tas_ready(struct glock *l, struct vcpu *v)
{
	return l->holder == NULL;
}

static int
tas_observe(struct glock *l, struct vcpu *v)
{
	struct tas *t = l->priv;
	double now, from;

	/* It saw 0 and tried; lost if another spinner's cmpxchg came first.  Its
	 * failed cmpxchg still took the line, after the RMWs ahead of it. */
	if (l->holder != NULL) {
		if (t->cfg->pause) {
			now = (double)l->hv->sim->now;
			from = t->burst_end > now ? t->burst_end : now;
			t->burst_end = from + lock_line_at(l, l->last_p, v);
		}
		l->last_p = v->pcpu;
		return 0;
	}
	take(l, v, lock_claim_ns(l, v));
	return 1;
}

/* The lock in a snapshot of a periodic run (ring_ff.c): who spins, and the
 * TTAS burst, a clock only while it lasts: a burst still under way (a
 * double, not a whole-ns clock) refuses the snapshot; one that is over
 * reads as over at any later time. */
static void
tas_ffs(struct ffs *s, struct glock *l)
{
	struct tas *t = l->priv;

	ffs_bytes(s, t->spinning, (size_t)t->n);
	if (t->burst_end > (double)l->hv->sim->now)
		ffs_refuse(s);
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
	.ffs = tas_ffs,
};
