/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gsched_cfs.c - the guest's fair scheduler, after Linux 3.2's
 * kernel/sched_fair.c (the guest kernel of seed 001): a run queue per vCPU
 * ordered by vruntime, slices out of sched_latency, tick and wakeup
 * preemption, sleeper placement, wakeup placement (gsched_wake.c).  Left
 * out: buddies, group scheduling, load tracking beyond summed weights
 * (models/README.md).
 */
#include "guest/gsched.h"

#include "guest/kernel.h"

#define NICE_0_LOAD 1024.0

static void
update_min_vruntime(struct gcpu *c)
{
	struct task *left = TAILQ_FIRST(&c->rq);
	double v = c->curr != NULL ? c->curr->vruntime : left != NULL ? left->vruntime :
	    c->min_vruntime;

	/* sched_fair.c update_min_vruntime: min(curr, leftmost), never backwards */
	if (left != NULL && left->vruntime < v)
		v = left->vruntime;
	if (v > c->min_vruntime)
		c->min_vruntime = v;
}

static void
insert_sorted(struct gcpu *c, struct task *t, int from_tail)
{
	struct task *o;

	/* After every equal key, as the rbtree's insert (>= goes right).  A
	 * fork lands behind nearly everything, so its walk starts at the tail
	 * (both walks find the same place; 10^5 forks stay linear). */
	if (from_tail) {
		for (o = TAILQ_LAST(&c->rq, taskq); o != NULL; o = TAILQ_PREV(o, taskq, rq_link))
			if (!(t->vruntime < o->vruntime)) {
				TAILQ_INSERT_AFTER(&c->rq, o, t, rq_link);
				return;
			}
		TAILQ_INSERT_HEAD(&c->rq, t, rq_link);
		return;
	}
	TAILQ_FOREACH(o, &c->rq, rq_link)
		if (t->vruntime < o->vruntime) {
			TAILQ_INSERT_BEFORE(o, t, rq_link);
			return;
		}
	TAILQ_INSERT_TAIL(&c->rq, t, rq_link);
}

/* sched_fair.c __sched_period and sched_slice */
static double
slice(const struct gcpu *c, const struct task *t, int nr, unsigned long load)
{
	const struct gk_tunables *tu = gk_tunables(c->k);
	double period = nr > tu->nr_latency ? nr * tu->min_gran_ns : tu->latency_ns;

	return load > 0 ? period * (double)t->weight / (double)load : period;
}

static void
cfs_enqueue(struct gcpu *c, struct task *t, int flags)
{
	const struct gk_tunables *tu = gk_tunables(c->k);

	if (flags & GS_FORK) {
		/* place_entity(initial) with START_DEBIT: one vslice behind */
		t->vruntime = c->min_vruntime +
		    slice(c, t, c->nqueued + (c->curr != NULL), c->load) * NICE_0_LOAD / t->weight;
	} else if (flags & GS_WAKE) {
		/* task_waking_fair: relative to the queue it slept on, then this one's */
		if (t->prev_cpu >= 0)
			t->vruntime -= gk_cpu(c->k, t->prev_cpu)->min_vruntime;
		t->vruntime += c->min_vruntime;
		/* place_entity with GENTLE_FAIR_SLEEPERS: at most half a latency of credit */
		if (t->vruntime < c->min_vruntime - tu->latency_ns / 2)
			t->vruntime = c->min_vruntime - tu->latency_ns / 2;
	} else if (flags & GS_MIGRATE)
		t->vruntime += c->min_vruntime;
	insert_sorted(c, t, (flags & GS_FORK) != 0);
	update_min_vruntime(c);
}

static void
cfs_dequeue(struct gcpu *c, struct task *t, int flags)
{
	TAILQ_REMOVE(&c->rq, t, rq_link);
	if (flags & GS_MIGRATE)
		t->vruntime -= c->min_vruntime;	/* dequeue_entity: normalise for the move */
	update_min_vruntime(c);
}

static struct task *
cfs_pick(struct gcpu *c)
{
	struct task *t = TAILQ_FIRST(&c->rq);

	if (t != NULL)
		TAILQ_REMOVE(&c->rq, t, rq_link);
	return t;
}

/* sched_fair.c update_curr: vruntime advances by delta x NICE_0_LOAD / weight */
static void
cfs_update(struct gcpu *c, struct task *t, double ns)
{
	t->vruntime += ns * NICE_0_LOAD / (double)t->weight;
	update_min_vruntime(c);
}

/* sched_fair.c check_preempt_tick */
static int
cfs_tick_preempt(struct gcpu *c, struct task *curr)
{
	const struct gk_tunables *tu = gk_tunables(c->k);
	double ideal = slice(c, curr, c->nqueued + 1, c->load);
	double ran = curr->sum_exec - curr->prev_sum_exec;
	struct task *left = TAILQ_FIRST(&c->rq);

	if (ran > ideal)
		return 1;
	if (ran < tu->min_gran_ns || left == NULL)
		return 0;
	return curr->vruntime - left->vruntime > ideal;
}

/* sched_fair.c check_preempt_wakeup -> wakeup_preempt_entity */
static int
cfs_wakeup_preempt(struct gcpu *c, struct task *curr, struct task *t)
{
	double gran = gk_tunables(c->k)->wakeup_gran_ns * NICE_0_LOAD / (double)t->weight;

	return curr->vruntime - t->vruntime > gran;
}

const struct guest_sched_ops gsched_cfs_ops = {
	.name = "cfs",
	.desc = "Linux 3.2 fair scheduler: vruntime, slices, tick and wakeup preemption",
	.enqueue = cfs_enqueue,
	.dequeue = cfs_dequeue,
	.pick_next = cfs_pick,
	.update_curr = cfs_update,
	.tick_preempt = cfs_tick_preempt,
	.wakeup_preempt = cfs_wakeup_preempt,
	.select_cpu = gs_wake_select32,
	.steal = gk_steal_busiest,
};
