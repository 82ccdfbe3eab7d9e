/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lock_combining.c - Ling Ma's delegation ("ali spinlock") lock.
 *
 * Alibaba alispinlock.c (2015, sbourdelin/linux 6e5e94fc; model-reference
 * §5): a caller hands its critical section over instead of entering it.
 * The lock is the tail of a queue of request records; xchg appends one.
 * Whoever finds the queue empty becomes the combiner: it runs its own
 * section, then each queued record's section in arrival order on its own
 * core, clearing each record's `locked` flag when that section is done; the
 * waiter spins on its own record (local spinning) and continues after its
 * release once it sees the flag (one line transfer from the combiner).
 * When the queue drains the combiner cmpxchg's the tail back to NULL.
 *
 * Costs: for each queued record the combiner reads the record (one line
 * from the requester's pCPU), then runs the section: its compute (sampled
 * from the workload) plus the section's cs_lines data lines from the pCPU
 * that last wrote them -- which stays the combiner's, so while a combiner
 * serves a batch the shared data never moves.  That is where the speed-up
 * comes from; nothing else favours this lock.  What moves instead: the
 * requester's own lines (req_lines, req_stream_lines: fetched from it, and
 * fetched back by it when it goes on, lock_reclaim_ns) and data in the lock
 * word's line (word_lines), which every enqueuer's xchg takes away.
 *
 * Differs from the public code: batches are bounded by `max_batch`
 * (default 64 sections, the combiner's own included); the combiner then
 * hands the combiner role to the next queued waiter (one line transfer to
 * its record) and returns to its own work.  The public code serves until
 * the queue drains, which can starve the combiner's caller.  There is no
 * PV halt/kick: a preempted combiner stalls everyone queued behind it.
 * Probes: PR_LOCK_TAKEN/RELEASE for every section as the combiner runs it,
 * vcpu = the section's owner, pcpu = the combiner's pCPU.
 */
#include <stdlib.h>

#include "guest/lock.h"
#include "hv/hv.h"
#include "yconf.h"
#include "yparam.h"

struct comb_cfg {
	int64_t max_batch;
};

/* A requester's record, one per vCPU (not parallel arrays). */
struct comb_node {
	double ns;		/* its section's nominal length */
	unsigned char done;	/* locked == 0, section executed */
	unsigned char handed;	/* told to become the combiner */
};

struct comb {
	const struct comb_cfg *cfg;
	struct vcpu **q;	/* request records, ring of n; q[qh] is next to serve */
	int qh, qn, n;
	struct vcpu *combiner;	/* NULL: the lock is free */
	int batch;		/* sections served by the current combiner */
	struct vcpu *cur;	/* owner of the section being run */
	struct comb_node *node;	/* per vCPU of the VM (v->idx) */
};

static const struct vs_param comb_params[] = {
	{ "max_batch", NULL, "sections a combiner serves before handing the role on (public code: "
	  "unbounded)", "int", "", VP_INT, VS_AT(struct comb_cfg, max_batch), 1, 0x1p62, 64, NULL },
	{ NULL, NULL, NULL, NULL, NULL, VS_LIST }
};

static int
comb_parse(const struct yc_node *n, const struct machine *m, void **out, struct vs_err *err)
{
	struct comb_cfg *c = xcalloc(1, sizeof *c);

	*out = c;
	return yc_params_read(n, comb_params, NULL, m->hz, c, err);
}

static void
comb_free_cfg(void *c)
{
	free(c);
}

static void *
comb_create(struct glock *l, const void *cfg)
{
	struct comb *c = xcalloc(1, sizeof *c);
	size_t n = (size_t)l->vm->nvcpus;

	c->cfg = cfg;
	c->n = (int)n;
	c->q = xcalloc(n, sizeof *c->q);
	c->node = xcalloc(n, sizeof *c->node);
	return c;
}

static void
comb_destroy(void *p)
{
	struct comb *c = p;

	free(c->q);
	free(c->node);
	free(c);
}

static void comb_serve(struct vcpu *);

/* The combiner finished cur's section: release it, tell its owner. */
static void
comb_section_done(struct vcpu *me)
{
	struct glock *l = guest_acquiring(me);
	struct comb *c = l->priv;
	struct vcpu *w = c->cur;

	c->cur = NULL;
	lock_leave(l, w, me);
	c->qh = (c->qh + 1) % c->n;
	c->qn--;
	c->batch++;
	if (w != me) {
		/* alispinlock.c: cur->locked = 0, a store to the record w spins on */
		c->node[w->idx].done = 1;
		if (guest_is_running(w) && guest_is_spinning(w))
			guest_poke(w, lock_flag_ns(l, me, w));
	}
	comb_serve(me);
}

/* The combiner's loop: next record, or hand over, or free the lock. */
static void
comb_serve(struct vcpu *me)
{
	struct glock *l = guest_acquiring(me);
	struct comb *c = l->priv;
	struct vcpu *w;
	double ns;

	if (c->qn == 0) {
		/* cmpxchg(lock_p, tail, NULL) succeeded: the lock is free */
		c->combiner = NULL;
		l->last_p = me->pcpu;
		guest_work(me, lock_atomic_ns(l), l->client->cont);
		return;
	}
	w = c->q[c->qh];
	if (c->batch >= c->cfg->max_batch) {
		/* Bounded batch (not in the public code): w combines next. */
		c->combiner = w;
		c->batch = 0;
		c->node[w->idx].handed = 1;
		if (guest_is_running(w) && guest_is_spinning(w))
			guest_poke(w, lock_flag_ns(l, me, w));
		guest_work(me, 0, l->client->cont);
		return;
	}
	c->cur = w;
	/* Read the record (its line from the requester), then run the section. */
	ns = w == me ? 0 : lock_line_ns(l, w->last_pcpu, me);
	ns += lock_enter(l, w, me) + c->node[w->idx].ns;
	guest_work(me, ns, comb_section_done);
}

/* alispinlock(): xchg our record onto the tail */
static void
comb_acquire(struct glock *l, struct vcpu *v)
{
	struct comb *c = l->priv;
	double xchg = lock_seen_ns(l, v) + lock_atomic_ns(l);

	c->node[v->idx].ns = l->client->take_section(v);
	c->node[v->idx].done = 0;
	c->node[v->idx].handed = 0;
	c->q[(c->qh + c->qn) % c->n] = v;
	c->qn++;
	VS_ASSERT(c->qn <= c->n);
	l->last_p = v->pcpu;
	if (c->combiner == NULL) {
		c->combiner = v;
		c->batch = 0;
		guest_work(v, xchg, comb_serve);
		return;
	}
	lock_wait(l, v, GUEST_FOREVER, NULL);
}

/* Sections are released by the combiner (comb_section_done), never here. */
static double
comb_release(struct glock *l, struct vcpu *v)
{
	vs_fatal("combining lock %s: release() called; sections run inside the lock",
	    l->name);
}

static int
comb_ready(struct glock *l, struct vcpu *v)
{
	struct comb *c = l->priv;

	return c->node[v->idx].done || c->node[v->idx].handed;
}

static int
comb_observe(struct glock *l, struct vcpu *v)
{
	struct comb *c = l->priv;

	if (c->node[v->idx].done) {
		c->node[v->idx].done = 0;
		/* already past its release; its own lines are the combiner's now */
		l->client->cont_after(v, lock_reclaim_ns(l, v));
		return 1;
	}
	if (c->node[v->idx].handed) {
		c->node[v->idx].handed = 0;
		comb_serve(v);
		return 1;
	}
	return 0;
}

/* Waiters spin on their own request record, never on the tail. */
static int
comb_reads_word(const struct glock *l, const struct vcpu *v)
{
	return 0;
}


const struct lock_ops lock_combining_ops = {
	.name = "combining",
	.desc = "Ling Ma's delegation lock: the combiner runs queued sections (bounded batch)",
	.params = comb_params,
	.parse = comb_parse,
	.free_cfg = comb_free_cfg,
	.create = comb_create,
	.destroy = comb_destroy,
	.acquire = comb_acquire,
	.release = comb_release,
	.observe = comb_observe,
	.ready = comb_ready,
	.reads_word = comb_reads_word,
	.takes_sections = 1,
};
