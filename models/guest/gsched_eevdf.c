/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gsched_eevdf.c - the guest's fair scheduler as Linux 6.6+ EEVDF, after
 * kernel/sched/fair.c of Debian's linux-source-6.12 (6.12.118, whose
 * avg_vruntime moves zero_vruntime along; base slice 0.70 ms as 6.15+) and
 * features.h's defaults: PLACE_LAG, PLACE_DEADLINE_INITIAL,
 * PLACE_REL_DEADLINE, RUN_TO_PARITY, WAKEUP_PREEMPTION, DELAY_DEQUEUE with
 * DELAY_ZERO on; NEXT_BUDDY off; no HRTICK (a used slice is seen at the tick
 * or the next update_curr).  The guest kernel of the 6.18 recordings
 * (bench/profile/summaries).
 *
 * Each task has a virtual deadline = vruntime + the base slice / weight;
 * the pick is the eligible task (lag >= 0: vruntime <= V, the load-weighted
 * mean vruntime, curr included) with the earliest deadline.  Lag is kept
 * across a sleep and a move.  All slices are the base slice (no
 * sched_attr custom slices), so PREEMPT_SHORT never acts.  The run queue is
 * c->rq sorted by vruntime (6.12's rb-tree is sorted by deadline and
 * augmented with min_vruntime): eligibility is monotone in vruntime, so the
 * eligible tasks are a prefix and the pick scans it for the earliest
 * deadline.  A sleeper kept queued by DELAY_DEQUEUE waits in c->delayed (not
 * in c->rq or nqueued, which the kernel core and balancing read) but counts
 * in V and competes in the pick.  A wake is placed as 6.18's
 * select_task_rq_fair does (gsched_wake.c: wake_wide, wake_affine,
 * select_idle_sibling), a new task and the pulls as gk_select_cpu and
 * gk_steal_busiest (EAS, util_est left out, models/README.md).  Times and vruntimes are doubles (the kernel's
 * are u64 ns; an eligibility test allows a picosecond of rounding).
 */
#include <float.h>

#include "guest/gsched.h"

#include "guest/kernel.h"

#define NICE_0_LOAD 1024.0
/* vruntime x weight rounding a double may leave in an eligibility test:
 * 1 ps of vruntime, where the kernel's integer sums are exact */
#define EV_EPS 1e-3

struct eevdf_cfg {
	double base_slice;
	int run_to_parity, place_lag, place_deadline_initial, place_rel_deadline;
	int wakeup_preemption, delay_dequeue;
	struct gs_wa_features wa;
};
_Static_assert(sizeof(struct eevdf_cfg) <= sizeof(struct gs_cfg), "gs_cfg too small");

/* vms[].guest keys with scheduler: eevdf: LNX-6.12 fair.c sysctl_sched_base_slice and
 * kernel/sched/features.h, their defaults */
static const struct vs_param eevdf_params[] = {
	{ "base_slice", NULL, "sysctl_sched_base_slice, before the x (1 + ilog2(min(ncpus, 8))) "
	  "of update_sysctl (0.70 ms from 6.15, fair.c commit 2ae891b8; 0.75 ms in 6.6-6.14)",
	  "time", "ns", VP_TIME, VS_AT(struct eevdf_cfg, base_slice), 1e3, 1e10, 0.7e6, NULL },
	{ "run_to_parity", NULL, "RUN_TO_PARITY: curr keeps the CPU until its slice's deadline "
	  "(set_protect_slice)", "bool", "",
	  VP_BOOL, VS_AT(struct eevdf_cfg, run_to_parity), 0, 1, 1, NULL },
	{ "place_lag", NULL, "PLACE_LAG: a woken or moved task keeps its lag (place_entity)",
	  "bool", "", VP_BOOL, VS_AT(struct eevdf_cfg, place_lag), 0, 1, 1, NULL },
	{ "place_deadline_initial", NULL, "PLACE_DEADLINE_INITIAL: a new task's first deadline "
	  "is half a slice away", "bool", "",
	  VP_BOOL, VS_AT(struct eevdf_cfg, place_deadline_initial), 0, 1, 1, NULL },
	{ "place_rel_deadline", NULL, "PLACE_REL_DEADLINE: a moved task keeps its deadline "
	  "relative to its vruntime", "bool", "",
	  VP_BOOL, VS_AT(struct eevdf_cfg, place_rel_deadline), 0, 1, 1, NULL },
	{ "wakeup_preemption", NULL, "WAKEUP_PREEMPTION: a woken task the pick would choose "
	  "preempts curr (check_preempt_wakeup_fair)", "bool", "",
	  VP_BOOL, VS_AT(struct eevdf_cfg, wakeup_preemption), 0, 1, 1, NULL },
	{ "delay_dequeue", NULL, "DELAY_DEQUEUE (LNX-6.12, with DELAY_ZERO): a task that sleeps "
	  "while not eligible stays queued until picked or woken", "bool", "",
	  VP_BOOL, VS_AT(struct eevdf_cfg, delay_dequeue), 0, 1, 1, NULL },
	{ "wa_idle", NULL, "WA_IDLE: a wake goes to the waker's idle vCPU, to the waker's when a "
	  "sync waker runs alone there, or to an idle prev (wake_affine_idle)", "bool", "",
	  VP_BOOL, VS_AT(struct eevdf_cfg, wa.idle), 0, 1, 1, NULL },
	{ "wa_weight", NULL, "WA_WEIGHT: else to the waker's vCPU when its load, the wakee's "
	  "added (a sync waker's taken off), is below prev's (wake_affine_weight)", "bool", "",
	  VP_BOOL, VS_AT(struct eevdf_cfg, wa.weight), 0, 1, 1, NULL },
	{ "wa_bias", NULL, "WA_BIAS: prev's load weighs half imbalance_pct more (117: x 1.08) in "
	  "wake_affine_weight", "bool", "",
	  VP_BOOL, VS_AT(struct eevdf_cfg, wa.bias), 0, 1, 1, NULL },
	{ NULL, NULL, NULL, NULL, NULL, VS_LIST }
};

static const struct eevdf_cfg *
cfg(const struct gcpu *c)
{
	return gk_sched_cfg(c->k);
}

/* fair.c update_sysctl: SET_SYSCTL(sched_base_slice), x the log factor */
static double
base_slice(const struct gcpu *c)
{
	return cfg(c)->base_slice * gk_tunables(c->k)->factor;
}

/* fair.c calc_delta_fair: ns of service in virtual time */
static double
vdelta(double ns, const struct task *t)
{
	return ns * NICE_0_LOAD / (double)t->weight;
}

/* fair.c entity_key: against zero_vruntime (c->min_vruntime here) */
static double
key(const struct gcpu *c, const struct task *t)
{
	return t->vruntime - c->min_vruntime;
}

/* fair.c avg_vruntime_add / avg_vruntime_sub */
static void
avg_add(struct gcpu *c, const struct task *t)
{
	c->avg_vruntime += key(c, t) * (double)t->weight;
	c->avg_load += (double)t->weight;
}

static void
avg_sub(struct gcpu *c, const struct task *t)
{
	c->avg_vruntime -= key(c, t) * (double)t->weight;
	c->avg_load -= (double)t->weight;
	if (c->avg_load < 0.5)	/* empty: no rounding left over */
		c->avg_vruntime = c->avg_load = 0;
}

/* Another task is on c's queue besides the running one (nr_running > 1). */
static int
others(const struct gcpu *c)
{
	return c->ndelayed > 0 || !TAILQ_EMPTY(&c->rq);
}

/* Exactly one task on c's queue, cur (running, outside it) included. */
static int
just_one(const struct gcpu *c, const struct task *cur)
{
	const struct task *f = TAILQ_FIRST(&c->rq);
	int n = c->ndelayed + (cur != NULL) + (f != NULL);

	return n == 1 && (f == NULL || TAILQ_NEXT(f, rq_link) == NULL);
}

/* fair.c avg_vruntime: V, the load-weighted mean vruntime with cur (the
 * task running, on the queue but outside the sums; NULL none); zero_vruntime
 * moves to it (update_zero_vruntime) */
static double
avg_vruntime(struct gcpu *c, const struct task *cur)
{
	double w = c->avg_load, run = c->avg_vruntime, delta = 0;

	if (w > 0) {
		if (cur != NULL) {
			run += key(c, cur) * (double)cur->weight;
			w += (double)cur->weight;
		}
		delta = run / w;
	} else if (cur != NULL)
		delta = key(c, cur);
	c->avg_vruntime -= c->avg_load * delta;
	c->min_vruntime += delta;
	return c->min_vruntime;
}

/* fair.c vruntime_eligible / entity_eligible: V >= v, without the division */
static int
eligible(const struct gcpu *c, const struct task *cur, const struct task *t)
{
	double avg = c->avg_vruntime, load = c->avg_load;

	if (cur != NULL) {
		avg += key(c, cur) * (double)cur->weight;
		load += (double)cur->weight;
	}
	return avg >= key(c, t) * load - EV_EPS * load;
}

/* fair.c entity_lag: V - v, within calc_delta_fair(max(2 slice, TICK_NSEC)) */
static double
entity_lag(const struct gcpu *c, double v, const struct task *t)
{
	double s = 2 * base_slice(c), tick = gk_tunables(c->k)->tick_ns;
	double lim = vdelta(s > tick ? s : tick, t), lag = v - t->vruntime;

	return lag < -lim ? -lim : lag > lim ? lim : lag;
}

/* After every equal vruntime, as an insert that sends equal keys right. */
static void
insert_sorted(struct taskq *q, struct task *t)
{
	struct task *o;

	for (o = TAILQ_LAST(q, taskq); o != NULL; o = TAILQ_PREV(o, taskq, rq_link))
		if (!(t->vruntime < o->vruntime)) {
			TAILQ_INSERT_AFTER(q, o, t, rq_link);
			return;
		}
	TAILQ_INSERT_HEAD(q, t, rq_link);
}

/* fair.c place_entity: at V less the saved lag, inflated by (W + w) / W so
 * that adding the task leaves it that lag (PLACE_LAG); deadline one slice on,
 * half for a new task (PLACE_DEADLINE_INITIAL) or the kept relative one
 * (PLACE_REL_DEADLINE).  nr: other tasks are on c's queue (cur included). */
static void
place_entity(struct gcpu *c, const struct task *cur, struct task *t, int nr, int initial)
{
	const struct eevdf_cfg *f = cfg(c);
	double v = avg_vruntime(c, cur), vslice = vdelta(base_slice(c), t), lag = 0;

	if (f->place_lag && nr > 0) {
		double load = c->avg_load + (cur != NULL ? (double)cur->weight : 0);

		lag = t->vlag * (load + (double)t->weight);
		lag /= load > 0 ? load : 1;
	}
	t->vruntime = v - lag;
	if (f->place_rel_deadline && t->rel_deadline) {
		t->deadline += t->vruntime;
		t->rel_deadline = 0;
		return;
	}
	if (f->place_deadline_initial && initial)
		vslice /= 2;
	t->deadline = t->vruntime + vslice;	/* vd_i = ve_i + r_i / w_i */
}

/* fair.c protect_slice (6.12's vlag == deadline stash, 6.17's vprot) */
static int
protected(const struct task *t)
{
	return t->vruntime < t->vprot;
}

/* The eligible task of q with the earliest deadline, skipping skip, or best. */
static struct task *
scan(const struct gcpu *c, const struct task *cur, const struct taskq *q,
    const struct task *skip, struct task *best)
{
	struct task *t;

	TAILQ_FOREACH(t, q, rq_link) {
		if (!eligible(c, cur, t))
			break;	/* sorted by vruntime: none after is eligible */
		if (t != skip && (best == NULL || t->deadline < best->deadline))
			best = t;
	}
	return best;
}

/*
 * fair.c pick_eevdf: the eligible task with the earliest deadline; curr is
 * cur (running, outside the queue: a wakeup's test) or prev (just put back
 * in it by a preemption, as pick_task_fair still sees it as curr); an
 * eligible curr whose slice is protected stays (RUN_TO_PARITY), else it
 * wins only with a strictly earlier deadline.
 */
static struct task *
pick_eevdf(const struct gcpu *c, struct task *cur, struct task *prev)
{
	struct task *x = cur != NULL ? cur : prev, *best;

	if (just_one(c, cur))	/* nr_running == 1: no eligibility test */
		return cur != NULL ? cur : TAILQ_FIRST(&c->rq) != NULL ? TAILQ_FIRST(&c->rq) :
		    TAILQ_FIRST(&c->delayed);
	if (x != NULL && !eligible(c, cur, x))
		x = NULL;
	if (cfg(c)->run_to_parity && x != NULL && protected(x))
		return x;
	best = scan(c, cur, &c->delayed, prev, scan(c, cur, &c->rq, prev, NULL));
	if (best == NULL || (x != NULL && x->deadline < best->deadline))
		best = x;
	if (best == NULL) {	/* rounding: none eligible; the least vruntime */
		struct task *a = TAILQ_FIRST(&c->rq), *b = TAILQ_FIRST(&c->delayed);

		best = a == NULL || (b != NULL && b->vruntime < a->vruntime) ? b : a;
		if (cur != NULL && (best == NULL || cur->vruntime < best->vruntime))
			best = cur;
	}
	return best;
}

/* fair.c update_deadline: a used request gets the next one; 1: reschedule */
static int
update_deadline(struct gcpu *c, struct task *t)
{
	if (t->vruntime < t->deadline)
		return 0;
	t->deadline = t->vruntime + vdelta(base_slice(c), t);
	avg_vruntime(c, t);
	return 1;
}

/* fair.c update_curr: vruntime += calc_delta_fair; a used slice reschedules
 * (resched_curr) unless curr is alone (nr_running == 1) */
static void
eevdf_update(struct gcpu *c, struct task *t, double ns)
{
	t->vruntime += vdelta(ns, t);
	if (update_deadline(c, t) && others(c))
		c->need_resched = 1;
}

/* fair.c dequeue_entity(DEQUEUE_DELAYED) + finish_delayed_dequeue_entity:
 * the lag it leaves with, at most 0 (DELAY_ZERO) */
static void
finish_delayed(struct gcpu *c, struct task *t)
{
	t->vlag = entity_lag(c, avg_vruntime(c, NULL), t);
	if (t->vlag > 0)
		t->vlag = 0;
	TAILQ_REMOVE(&c->delayed, t, rq_link);
	c->ndelayed--;
	avg_sub(c, t);
	t->delayed = 0;
}

/* fair.c requeue_delayed_entity (DELAY_ZERO): a delayed sleeper woken in
 * place keeps its vruntime and deadline, unless it became eligible
 * meanwhile: then it is placed again with no lag */
static void
requeue_delayed(struct gcpu *c, struct task *t)
{
	double lag = entity_lag(c, avg_vruntime(c, c->curr), t);

	TAILQ_REMOVE(&c->delayed, t, rq_link);
	c->ndelayed--;
	avg_sub(c, t);
	t->delayed = 0;
	if (lag > 0) {
		t->vlag = 0;
		place_entity(c, c->curr, t, others(c) || c->curr != NULL, 0);
	}
	insert_sorted(&c->rq, t);
	avg_add(c, t);
}

/* fair.c enqueue_entity: update_curr, place_entity, __enqueue_entity; a
 * preempted curr goes back unplaced (put_prev_entity) */
static void
eevdf_enqueue(struct gcpu *c, struct task *t, int flags)
{
	if (flags == 0) {
		insert_sorted(&c->rq, t);
		avg_add(c, t);
		c->put_prev = t;
		return;
	}
	if (t->delayed && (flags & GS_WAKE)) {	/* ttwu_runnable: ENQUEUE_DELAYED */
		requeue_delayed(c, t);
		return;
	}
	gk_update_curr(c);
	if (flags & GS_FORK)
		t->vlag = 0;	/* core.c __sched_fork */
	place_entity(c, c->curr, t, others(c) || c->curr != NULL, (flags & GS_FORK) != 0);
	if (t->delayed) {	/* moved asleep: still delayed here (enqueue_entity) */
		insert_sorted(&c->delayed, t);
		c->ndelayed++;
	} else
		insert_sorted(&c->rq, t);
	avg_add(c, t);
}

/* fair.c dequeue_entity for a move (not a sleep): the lag is saved and the
 * deadline kept relative (PLACE_REL_DEADLINE); a delayed sleeper leaves
 * still delayed, its lag not cut to 0 (no DEQUEUE_DELAYED: LNX-6.18
 * finish_delayed_dequeue_entity does not run).  The source's curr is not
 * charged first (update_curr there could reschedule a vCPU nobody tells). */
static void
eevdf_dequeue(struct gcpu *c, struct task *t, int flags)
{
	(void)flags;
	t->vlag = entity_lag(c, avg_vruntime(c, c->curr), t);
	if (cfg(c)->place_rel_deadline) {
		t->deadline -= t->vruntime;
		t->rel_deadline = 1;
	}
	if (t->delayed) {
		TAILQ_REMOVE(&c->delayed, t, rq_link);
		c->ndelayed--;
	} else
		TAILQ_REMOVE(&c->rq, t, rq_link);
	avg_sub(c, t);
	if (c->put_prev == t)
		c->put_prev = NULL;
}

/* fair.c dequeue_entity(DEQUEUE_SLEEP) for curr t: the lag is saved, or,
 * not eligible, t stays queued (DELAY_DEQUEUE).  With nothing else runnable
 * the pick that follows (pick_task_fair's loop) dequeues every delayed one. */
static void
eevdf_sleep(struct gcpu *c, struct task *t, int dead)
{
	if (!dead && cfg(c)->delay_dequeue && !eligible(c, t, t)) {
		t->delayed = 1;
		insert_sorted(&c->delayed, t);
		c->ndelayed++;
		avg_add(c, t);
	} else
		t->vlag = entity_lag(c, avg_vruntime(c, t), t);
	if (c->nqueued == 0)
		while (c->ndelayed > 0)
			finish_delayed(c, pick_eevdf(c, NULL, NULL));
}

/* fair.c pick_next_entity + set_next_entity: a delayed pick is dequeued and
 * the pick repeats (pick_task_fair's again); the slice is protected from
 * here (set_protect_slice) */
static struct task *
eevdf_pick(struct gcpu *c)
{
	struct task *prev = c->put_prev, *t;

	c->put_prev = NULL;
	while ((t = pick_eevdf(c, NULL, prev))->delayed)
		finish_delayed(c, t);
	TAILQ_REMOVE(&c->rq, t, rq_link);
	avg_sub(c, t);
	if (t != prev)	/* a re-picked prev keeps its protection, as curr */
		t->vprot = t->deadline;
	return t;
}

/* fair.c entity_tick: update_curr (account() ran it) rescheduled at a used
 * slice; nothing more to decide */
static int
eevdf_tick_preempt(struct gcpu *c, struct task *curr)
{
	(void)c;
	(void)curr;
	return 0;
}

/* fair.c check_preempt_wakeup_fair: preempt iff pick_eevdf picks the wakee
 * (a delayed one moved here too: the pick that follows dequeues it); no more
 * once a reschedule is pending (test_tsk_need_resched) */
static int
eevdf_wakeup_preempt(struct gcpu *c, struct task *curr, struct task *t)
{
	if (c->need_resched || !cfg(c)->wakeup_preemption)
		return 0;
	gk_update_curr(c);
	if (c->need_resched)	/* update_curr's own reschedule */
		return 0;
	return pick_eevdf(c, curr, NULL) == t;
}

/* core.c ttwu_runnable: a delayed sleeper is still on its vCPU's queue */
static int
eevdf_select_cpu(struct gkernel *k, struct task *t, int waker, int flags)
{
	if (t->delayed)
		return t->cpu;
	return gs_wake_select618(k, t, waker, flags, &((const struct eevdf_cfg *)gk_sched_cfg(k))->wa);
}

const struct guest_sched_ops gsched_eevdf_ops = {
	.name = "eevdf",
	.desc = "Linux 6.6+ EEVDF fair scheduler (6.12 fair.c): lag, eligibility, virtual "
	    "deadlines, RUN_TO_PARITY, DELAY_DEQUEUE",
	.params = eevdf_params,
	.enqueue = eevdf_enqueue,
	.dequeue = eevdf_dequeue,
	.pick_next = eevdf_pick,
	.update_curr = eevdf_update,
	.tick_preempt = eevdf_tick_preempt,
	.wakeup_preempt = eevdf_wakeup_preempt,
	.select_cpu = eevdf_select_cpu,
	.steal = gk_steal_busiest,
	.sleep = eevdf_sleep,
};
