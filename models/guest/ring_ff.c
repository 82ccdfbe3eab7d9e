/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ring_ff.c - the ring fast-forward (issue 31; the multi-vCPU form of issue
 * 13's loop fast-forward, guest.c guest_loop_ff; an exact cycle skip of a
 * periodic state, as a steady-state detection in a discrete-event engine):
 * waiters handing a lock over in a fixed ring (seed 000's spinlock_thread),
 * with nothing else due, repeat the same cycle, each one's steps a period
 * after the last one's.  The model is deterministic and reads the clocks a
 * cycle moves only as differences, so a state that repeats, shifted by the
 * period, repeats its whole future until a pending event (a tick, a timer,
 * the warm-up's or the run's end, a metric sample, another VM's step) or a
 * counter's bound breaks in.  Exact: at a hand-over to the vCPU that began
 * the last cycle, a snapshot of all a cycle can read or write (ffsnap.h:
 * the VM's locks, their words and histograms, its sleeping locks, wait
 * queues and disk; per vCPU its vCPU, pCPU, random stream, guest activity,
 * kernel CPU, task and scheduler locks, and program; the kernel's and the
 * host's counters; the queue's size and next event) must equal the one
 * taken a cycle before, byte for byte, but the clocks, shifted by the
 * period, and the counters; then k cycles are taken at once: every clock k
 * periods on, every counter k steps on (the float sums are of whole ns,
 * so exact), with the two cycles after them still before the next pending
 * event.  Anything else that changed stops it: a clock the cycle does not
 * move (a runstate's start) must stay as it is.  The cycles taken are not
 * handled, so not counted in the run's cost figures (events).  A trace
 * (a probe) sees every step: none then.  The same outputs with
 * fast_forward: false (tests/e2e_loopff.sh).
 */
#include "guest/ring_ff.h"

#include <stdlib.h>

#include "engine.h"
#include "ffsnap.h"
#include "guest/guest.h"
#include "guest/gvm.h"
#include "guest/kernel.h"
#include "hv/hv.h"
#include "rng.h"

/* Hand-overs before the first look (the run's start settles), and the
 * most a failed look waits before the next (doubling from 1). */
#define RING_FIRST 64
#define RING_GAP_MAX ((uint64_t)1 << 16)
/* Looks in a row that find the cycle changed before the gap grows. */
#define RING_TRIES 4

struct ring_ff {
	struct ffs snap[2];	/* [a]: a cycle's start; the other: now */
	int a;
	int have;		/* 1: a cycle began (draws), 2: snap[a] is its start */
	uint64_t draws;		/* ... the VM's random streams then */
	struct vcpu *taker;	/* ... the vCPU whose turn began it */
	uint64_t at;		/* ... at this many acquisitions */
	uint64_t gap;
	int misses;
	int fault;		/* a test's deliberately wrong replay (tests/e2e_loopff.sh) */
};

static void
ring_ff_free(struct glock *l)
{
	struct ring_ff *r = l->ring;

	if (r == NULL)
		return;
	ffs_free(&r->snap[0]);
	ffs_free(&r->snap[1]);
	free(r);
	l->ring = NULL;
}

/* No vCPU of another VM that a step of vm's touches without an event: one
 * on an SMT sibling of vm's pCPUs (a load change re-rates it, hv.c
 * hv_set_pcpu_load) or streaming memory (a new streamer re-rates it,
 * guest.c mem_set).  Its progress is not in the snapshot. */
static int
alone(const struct hv *hv, const struct vm *vm)
{
	const struct machine *m = hv->m;
	int i, j, tpc = m->threads_per_core, base;

	for (i = 0; i < m->npcpus; i++) {
		const struct vcpu *o = hv->pcpus[i].curr;

		if (o == NULL || o->vm == vm)
			continue;
		if (guest_mem_rate(o) > 0)
			return 0;
		/* its core's threads, as hv_set_pcpu_load finds them */
		base = machine_core_of(m, i) * tpc;
		for (j = base; hv->pcpus[i].smt && j < base + tpc; j++)
			if (hv->pcpus[j].curr != NULL && hv->pcpus[j].curr->vm == vm)
				return 0;
	}
	return 1;
}

/* The state the cycle can touch, as of now; 0: some of it is not listable. */
static int
snap(struct ffs *f, struct glock *l)
{
	struct sim *s = l->sim;
	struct vm *vm = l->vm;
	int i;

	ffs_begin(f, s->now);
	/* (the run's cost figures, events and steps_folded, are not the model's:
	 * the cycles taken at once are not handled, so not counted) */
	if (s->ndefer > 0)
		return 0;	/* events held for now (sim_defer): none */
	ffs_value(f, (int64_t)s->same);
	ffs_value(f, (int64_t)evq_size(s->q));
	ffs_value(f, sim_next_time(s));
	ffs_bytes(f, &l->hv->st, sizeof l->hv->st);
	ffs_bytes(f, vm, sizeof *vm);
	if (!lock_ffs(f, l) || l->client == NULL || l->client->ffs == NULL ||
	    vm->guest == NULL || !gvm_ffs(f, gvm_of(vm)))
		return 0;
	if (!alone(l->hv, vm))
		return 0;
	for (i = 0; i < vm->nvcpus; i++) {
		struct vcpu *w = vm->vcpus[i];

		ffs_bytes(f, w, sizeof *w);
		if (w->pcpu != NULL)
			ffs_bytes(f, w->pcpu, sizeof *w->pcpu);
		ffs_bytes(f, w->rng, sizeof *w->rng);
		guest_ffs(f, w);
		if (guest_kcpu(w) != NULL && !gk_ffs(f, w))
			return 0;
		l->client->ffs(f, w);
	}
	ffs_end(f);
	return 1;
}

/* Where the VM's random streams stand: a cycle that draws never repeats,
 * and this says so without a snapshot (the common case: random computes). */
static uint64_t
draws(const struct vm *vm)
{
	uint64_t h = 0;
	int i, j;

	for (i = 0; i < vm->nvcpus; i++)
		for (j = 0; j < 3; j++)
			h = h * 0x100000001b3u ^ vm->vcpus[i]->rng->state[j];
	return h;
}

/* The next look after this many more acquisitions. */
static void
look_after(struct glock *l, uint64_t n)
{
	l->ring_at = l->st.acquisitions + n;
}

static void
miss(struct glock *l, struct ring_ff *r)
{
	r->have = 0;
	r->misses = 0;
	r->gap = r->gap < RING_GAP_MAX ? r->gap * 2 : RING_GAP_MAX;
	look_after(l, r->gap);
}

/* The whole cycles after b, at most, that end (with two to spare) before
 * anything else is due: the next pending event, the end, a counter's bound. */
static int64_t
cycles(const struct sim *s, const struct ffs *a, const struct ffs *b)
{
	int64_t per = b->now - a->now, lim = sim_next_time(s) - 1, k;

	if (s->end < lim)
		lim = s->end;
	if (SIM_TIME_CAP < lim)
		lim = SIM_TIME_CAP;
	lim -= s->now + ffs_ahead(b);
	if (lim <= 0)
		return 0;
	k = lim / per - 2;
	return k > 0 ? ffs_bound(a, b, k) : 0;
}

void
ring_ff_look(struct glock *l, struct vcpu *v)
{
	struct ring_ff *r = l->ring;
	struct sim *s = l->sim;
	struct ffs *a, *b;
	uint64_t d;
	int64_t k;

	if (r == NULL) {
		/* the lock's first hand-over (lock_new and lock_renew leave 0) */
		if (!l->hv->fast_forward || l->ops->ffs == NULL) {
			l->ring_at = UINT64_MAX;
			return;
		}
		r = l->ring = xcalloc(1, sizeof *r);
		l->ring_free = ring_ff_free;
		r->gap = 1;
		/* its clocks and counters a cycle short: tests/e2e_loopff.sh catches it */
		r->fault = getenv("VLOCKSIM_TEST_RINGFF_FAULT") != NULL;
		look_after(l, RING_FIRST);
		return;
	}
	if (l->hv->probe != NULL || s->stopped) {
		l->ring_at = UINT64_MAX;	/* a trace sees every step */
		return;
	}
	if (r->have && v != r->taker) {
		/* not round yet; a ring of the VM's vCPUs comes round within them */
		if (l->st.acquisitions - r->at > (uint64_t)l->vm->nvcpus)
			miss(l, r);
		else
			look_after(l, 1);
		return;
	}
	/* (the streams read once a look: with a thousand vCPUs each is a
	 * line, two misses an acquisition while the looks come each turn) */
	d = draws(l->vm);
	if (!r->have || d != r->draws) {
		/* a cycle begins here; one that drew begins here again */
		if (r->have && ++r->misses >= RING_TRIES) {
			miss(l, r);
			return;
		}
		r->have = 1;
		r->draws = d;
		r->taker = v;
		r->at = l->st.acquisitions;
		look_after(l, 1);
		return;
	}
	a = &r->snap[r->a];
	b = &r->snap[!r->a];
	if (r->have == 1) {
		/* a cycle without a draw: its end is the next one's start */
		if (!snap(a, l)) {
			miss(l, r);	/* state it cannot list now */
			return;
		}
		r->have = 2;
		r->at = l->st.acquisitions;
		look_after(l, 1);
		return;
	}
	if (!snap(b, l)) {
		miss(l, r);
		return;
	}
	if (!ffs_same(a, b)) {
		/* changed: this one is the next cycle's start */
		r->a = !r->a;
		r->at = l->st.acquisitions;
		if (++r->misses >= RING_TRIES)
			miss(l, r);
		else
			look_after(l, 1);
		return;
	}
	k = cycles(s, a, b);
	if (k <= 0) {
		miss(l, r);	/* something is due soon: look again later */
		return;
	}
	ffs_advance(a, b, r->fault ? k - 1 : k);
	sim_advance(s, s->now + k * (b->now - a->now));
	/* look again from here: a new cycle's start */
	r->gap = 1;
	r->have = 0;
	r->misses = 0;
	look_after(l, 0);
}
