/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sched_fair_root.h - a switch on a pCPU whose entities are all tasks of its
 * root rq (groups: none; both seed001 hosts), and a directed yield, as
 * inline templates over a struct fair_class: sched_fair.c's
 * fair_do_schedule and fair_yield_to instantiate them with f->cls, a
 * policy's own do_schedule and yield_to with its constant class
 * (sched_cfs.c cfs_do_schedule, cfs_yield_to), whose pick, set_next_entity
 * and yield_task the compiler then calls directly and inlines: no indirect
 * call below do_schedule at a switch (2.5 M per 20 s of seed001-x7560 3x)
 * or below yield_to, no registers saved twice.  With the rq steps they
 * take: the entity order, the swap of put_prev_entity with set_next_entity,
 * update_curr, and the tick's answer after a set_next_entity.  The host
 * tick likewise (fair_tick_cls: sched_fair.c fair_tick, sched_cfs.c
 * cfs_tick), with the skipped ticks' catch-up it starts with.
 *
 * Private to sched_fair.c and the fair policies (and their tests).
 */
#ifndef VS_SCHED_FAIR_ROOT_H
#define VS_SCHED_FAIR_ROOT_H

#include "hv/hv.h"
#include "hv/sched_fair.h"

/* A host rq holds a few entities (a few vCPUs a pCPU): there an insertion
 * step from the right and a scan by pointer beat bsearch and memmove's call. */
#define FAIR_RQ_SHORT 8

/* LNX-3.6 fair.c entity_before, ties first-in-first-out (seq) */
static inline int
se_before(const struct fair_se *a, const struct fair_se *b)
{
	return a->vruntime < b->vruntime || (a->vruntime == b->vruntime && a->seq < b->seq);
}

/* Whether rq keeps avg_vruntime/avg_load: its class's avg_vruntime, a
 * constant where the class is (a policy's own switch: none of cfs_class's
 * swaps and min_vruntime moves tests it), else the rq's copy of it (keep_avg) */
static inline int
fair_keep_avg(const struct fair_rq *rq, const struct fair_class *cls)
{
	return cls != NULL ? cls->avg_vruntime : rq->keep_avg;
}

/* LNX-6.6 fair.c avg_vruntime_add / avg_vruntime_sub: the queued entities'
 * weighted lags, kept only for a policy that reads them (keep_avg: eevdf);
 * cls as in fair_keep_avg */
static inline void
avg_vruntime_add(struct fair_rq *rq, const struct fair_class *cls, const struct fair_se *se)
{
	if (fair_keep_avg(rq, cls)) {
		rq->avg_vruntime += (se->vruntime - rq->min_vruntime) * se->weight;
		rq->avg_load += se->weight;
	}
}

static inline void
avg_vruntime_sub(struct fair_rq *rq, const struct fair_class *cls, const struct fair_se *se)
{
	if (fair_keep_avg(rq, cls)) {
		rq->avg_vruntime -= (se->vruntime - rq->min_vruntime) * se->weight;
		rq->avg_load -= se->weight;
	}
}

/* in takes out's slot and moves to its place among the others (inline in
 * a switch's put_prev_entity, 2.1 M per 20 s of seed001-x7560 3x); cls as
 * in fair_keep_avg */
static inline __attribute__((always_inline)) void
rq_swap(struct fair *f, const struct fair_class *cls, struct fair_rq *rq, struct fair_se *in,
    struct fair_se *out)
{
	int i, n = rq->nq;

	if (n > FAIR_RQ_SHORT) {
		fair_rq_insert(f, rq, in);
		fair_rq_remove(rq, out);
		return;
	}
	VS_ASSERT(!in->queued && out->queued);
	in->seq = f->seq++;
	for (i = 0; rq->q[i] != out; i++)
		VS_ASSERT(i < n - 1);
	for (; i > 0 && se_before(in, rq->q[i - 1]); i--)
		rq->q[i] = rq->q[i - 1];
	for (; i < n - 1 && se_before(rq->q[i + 1], in); i++)
		rq->q[i] = rq->q[i + 1];
	rq->q[i] = in;
	in->queued = 1;
	out->queued = 0;
	avg_vruntime_add(rq, cls, in);
	avg_vruntime_sub(rq, cls, out);
}

/* fair_tick_next (sched_fair.c) right after a root set_next_entity that gave the
 * rq's act_at (its curr's terms, SIM_NEVER for none; 0: not given, and 0
 * here is not known either) */
static inline sim_time_t
tick_next_set(const struct fair_cpu *c)
{
	if (c->need_resched)
		return 0;
	return c->root.act_at < c->next_balance ? c->root.act_at : c->next_balance;
}

/* LNX-3.6 fair.c put_prev_entity: curr back into its tree; next (or NULL):
 * the entity set_next_entity will take out of it, taken out here at once;
 * cls as in fair_keep_avg */
static inline __attribute__((always_inline)) void
put_prev_entity(struct fair *f, const struct fair_class *cls, struct fair_rq *rq,
    struct fair_se *prev, struct fair_se *next)
{
	if (prev->on_rq) {
		if (next != NULL && next->queued)
			rq_swap(f, cls, rq, prev, next);
		else
			fair_rq_insert(f, rq, prev);
	}
	rq->curr = NULL;
}

/* The class a step below reads: its caller's constant, or (NULL) f->cls,
 * loaded where it is read, as before these were templates: the generic
 * update_curr (every host tick) keeps no register for it. */
static inline const struct fair_class *
fair_cls(const struct fair *f, const struct fair_class *cls)
{
	return cls != NULL ? cls : f->cls;
}

/* LNX-3.6 fair.c update_min_vruntime: monotonic, follows curr and leftmost
 * (LNX-6.6: curr only while on_rq; __update_min_vruntime moves avg_vruntime) */
/* Inlined into update_curr, which runs at every tick and switch. */
static inline __attribute__((always_inline)) void
update_min_vruntime(struct fair *f, const struct fair_class *cls, struct fair_rq *rq)
{
	const struct fair_se *curr = rq->curr;
	int64_t vr = rq->min_vruntime;

	if (curr != NULL && fair_cls(f, cls)->min_vr_curr_on_rq && !curr->on_rq)
		curr = NULL;
	if (curr != NULL)
		vr = curr->vruntime;
	if (rq->nq > 0)
		vr = curr != NULL && curr->vruntime < rq->q[0]->vruntime ? curr->vruntime :
		    rq->q[0]->vruntime;
	if (vr > rq->min_vruntime) {
		if (fair_keep_avg(rq, cls))
			rq->avg_vruntime -= rq->avg_load * (vr - rq->min_vruntime);
		rq->min_vruntime = vr;
	}
}

/* account_cfs_rq_runtime (sched_fair.c): an rq of a group with a quota */
void fair_account_cfs_rq_runtime(struct fair *, struct fair_rq *, int64_t delta);

/* LNX-3.6 fair.c update_curr: charge the running entity of rq (up to now);
 * inline where the class is known (a switch's, a yield's); a root rq has
 * no quota, so the bandwidth's part is a call only where there is a group */
static inline __attribute__((always_inline)) void
update_curr(struct fair *f, const struct fair_class *cls, struct fair_rq *rq, sim_time_t now)
{
	struct fair_se *se = rq->curr;
	sim_time_t d;

	if (se == NULL)
		return;
	d = now - se->exec_start;
	if (d <= 0)
		return;
	se->exec_start = now;
	se->sum_exec += d;
	rq->load_unacc += d;	/* LNX-3.2 __update_curr: load_unacc_exec_time */
	se->vruntime += fair_delta(d, se);	/* LNX-3.6 update_curr: weighted */
	if (fair_cls(f, cls)->update_curr != NULL)
		fair_cls(f, cls)->update_curr(f, rq, se);
	update_min_vruntime(f, cls, rq);
	if (rq->tg != NULL)
		fair_account_cfs_rq_runtime(f, rq, d);
}

#define FAIR_TICK_UNSET	INT64_MIN

/* Whether a tick up to `last` was skipped since the last one c reflects. */
static inline __attribute__((always_inline)) int
tick_pending(struct fair_cpu *c, const struct pcpu *p, sim_time_t last)
{
	if (c->tick_done == FAIR_TICK_UNSET)
		c->tick_done = p->tick_base - p->hv->tick_ns;	/* before the first tick */
	return last > c->tick_done;
}

/* The skipped ticks up to `last`, one on the grid after tick_done; curr
 * charged up to last unless the caller charges it at now next, which comes
 * to the same (fair_tick_cls). */
static inline __attribute__((always_inline)) void
tick_catch_up(struct fair *f, struct fair_cpu *c, sim_time_t last, int charge)
{
	sim_time_t per = f->hv->tick_ns, t;

	/* LNX-3.2 core.c update_cpu_load: cpu_load[1] = (old + now) / 2 per tick
	 * (it stops moving once it gets there); a tick a step, no divide */
	for (t = c->tick_done + per; t <= last && !f->tick_fault; t += per) {
		long l = (c->cpu_load + c->root.load) / 2;

		if (l == c->cpu_load)
			break;
		c->cpu_load = l;
	}
	if (charge && !f->tick_fault)
		fair_update_curr_at(f, &c->root, last);
	c->tick_done = last;
}

void fair_tick_balance(struct fair *, struct pcpu *);

/* LNX-3.6 fair.c task_tick_fair -> entity_tick per level; core.c
 * trigger_load_balance; cls as in fair_schedule_root: a policy's own tick
 * (sched_cfs.c cfs_tick) calls its entity_tick directly, inline (every host
 * tick that runs: 277 k per 300 s of seed001-x5570 3x) */
static inline __attribute__((always_inline)) void
fair_tick_cls(struct hv *hv, const struct fair_class *cls, struct pcpu *p)
{
	struct fair *f = hv->sched_priv;
	struct fair_cpu *c = &f->cpu[p->id];
	struct fair_se *se;

	/* the ticks skipped before this one, the last a period back (both on the
	 * grid); its update_curr is left to entity_tick's at now where that one
	 * charges the same in one step: a nice-0 curr on_rq (its vruntime,
	 * sum_exec and load_unacc add up, min_vruntime only rises) and nothing
	 * in the class's update_curr (cfs) */
	if (f->tick_skip && tick_pending(c, p, hv->sim->now - hv->tick_ns)) {
		se = c->root.curr;
		VS_ASSERT(hv->check < 3 || hv_tick_last(p, hv->sim->now - 1) ==
		    hv->sim->now - hv->tick_ns);
		tick_catch_up(f, c, hv->sim->now - hv->tick_ns, se == NULL || !se->on_rq ||
		    se->weight != FAIR_NICE0 || fair_cls(f, cls)->update_curr != NULL);
	}
	for (se = fair_curr_task(c); se != NULL; se = se->parent)
		if (se->on_rq)
			fair_cls(f, cls)->entity_tick(f, se->cfs_rq, se);
	/* LNX-3.2 core.c update_cpu_load: cpu_load[1] = (old + now) / 2 */
	c->cpu_load = (c->cpu_load + c->root.load) / 2;
	c->tick_done = hv->sim->now;
	/* LNX-3.2 core.c trigger_load_balance: only when the earliest domain is due */
	if (hv->sim->now < c->next_balance)
		return;
	fair_tick_balance(f, p);
}

/* fair_schedule_root's rare steps, out of line: the pCPU has nothing to
 * run (prev, if any, back into the rq; idle_balance), and the pick is a
 * delayed entity (dequeued). */
void fair_root_idle(struct fair *, struct fair_cpu *, struct fair_se *prev);
void fair_dequeue_delayed(struct fair *, struct fair_se *);

/* fair_do_schedule where every entity is a task in its pCPU's root rq, as
 * LNX-6.6 fair.c pick_next_task_fair's `simple:` path: each walk is its one
 * level, the root has no bandwidth to check (check_cfs_rq_runtime), and prev
 * is the rq's curr, so the level changes hands when the pick is not prev;
 * cls is f->cls, or the policy's own class where it is known */
static inline __attribute__((always_inline)) struct fair_se *
fair_schedule_root(struct fair *f, const struct fair_class *cls, struct fair_cpu *c,
    struct pcpu *p, struct fair_se *prev, sim_time_t now)
{
	struct fair_rq *rq = &c->root;
	struct fair_se *next;

	if (prev != NULL && prev->exec_start != now)
		update_curr(f, cls, rq, now);
again:
	if (rq->nr_running == 0) {
		fair_root_idle(f, c, prev);
		prev = NULL;
	}
	next = cls->pick_next_entity(f, rq);
	if (next == NULL)
		return NULL;
	if (cls->requeue_delayed != NULL && next->delayed) {	/* NULL: never delayed */
		fair_dequeue_delayed(f, next);
		goto again;
	}
	if (prev != NULL && next != prev)
		put_prev_entity(f, cls, rq, prev, next);
	if (rq->curr != next || !cls->pick_with_curr) {
		cls->set_next_entity(f, rq, next);
		hv_tick_soon_at(p, tick_next_set(c));
	}
	return next;
}

/* fair_do_schedule of a pCPU whose entities are all root tasks (f->flat). */
static inline __attribute__((always_inline)) struct vcpu *
fair_schedule_flat(struct hv *hv, const struct fair_class *cls, struct pcpu *p,
    sim_time_t *slice)
{
	struct fair *f = hv->sched_priv;
	struct fair_cpu *c = &f->cpu[p->id];
	struct fair_se *prev = c->root.curr, *next;	/* a task: no group below */

	VS_ASSERT((prev != NULL ? prev->v : NULL) == p->curr);
	*slice = 0;	/* no HRTICK: the host tick checks preemption */
	c->need_resched = 0;
	if ((next = fair_schedule_root(f, cls, c, p, prev, hv->sim->now)) == NULL)
		return NULL;
	/* not blocked, and running nowhere else: hv_schedule_ev asserts them
	 * for every policy; allowed here: attach_task (sched_fair.c) asserts it
	 * where the vCPU is placed on this pCPU's rq */
	return next->v;
}

/* LNX-3.6 core.c yield_to + fair.c yield_to_task_fair (LNX-4.5: -ESRCH);
 * cls as in fair_schedule_root: a policy's yield_to (sched_cfs.c
 * cfs_yield_to) inlines its yield_task (1.4 M per 20 s of seed001-x7560 3x) */
static inline __attribute__((always_inline)) int
fair_yield_to_cls(struct hv *hv, const struct fair_class *cls, struct vcpu *from,
    struct vcpu *to)
{
	struct fair *f = hv->sched_priv;
	struct fair_cpu *c = &f->cpu[from->processor], *tc = &f->cpu[to->processor];
	struct fair_se *tse = FAIR_SE(to), *s;

	VS_ASSERT(from->pcpu != NULL);
	/* LNX-4.5: nothing to gain when both queues hold one task (under-commit) */
	if (f->yield_to_esrch && c->root.h_nr_running == 1 && tc->root.h_nr_running == 1)
		return -1;
	/* task_running(p_rq, p) || p->state: running or blocked targets fail */
	if (to->pcpu != NULL || to->blocked || !tse->on_rq)
		return 0;
	/* LNX-3.2 fair.c yield_to_task_fair: throttled hierarchies are not
	 * runnable; the root rq is never throttled (no quota: throttle_cfs_rq
	 * is a group's), so the walk stops below it (a root task: no step) */
	for (s = tse; s->parent != NULL; s = s->parent)
		if (s->cfs_rq->throttled)
			return 0;
	fair_set_next_buddy(tse);	/* on the target's own rq */
	cls->yield_task(f, c, FAIR_SE(from));
	if (tc != c)		/* preempt && rq != p_rq: resched_task(p_rq->curr) */
		fair_resched(f, tc);
	c->need_resched = 1;	/* then schedule() locally */
	hv_resched(from->pcpu, 0);
	return 1;
}

#endif
