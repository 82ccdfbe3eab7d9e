/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sched_eevdf.c - a KVM host: vCPU threads under Linux 6.6's EEVDF fair
 * scheduler (kernel/sched/fair.c of v6.6, features.h defaults:
 * PLACE_LAG, PLACE_DEADLINE_INITIAL, RUN_TO_PARITY, WAKEUP_PREEMPTION on,
 * NEXT_BUDDY off; no HRTICK, so a slice's end is seen at the host tick or
 * the next update_curr).
 *
 * Each entity has a virtual deadline = vruntime + calc_delta_fair(slice)
 * with slice = sysctl_sched_base_slice (0.75 ms x the sysctl factor); the
 * pick is the eligible entity (lag >= 0, i.e. vruntime <= the load-weighted
 * average V) with the earliest deadline.  Lag is saved at dequeue and
 * restored at enqueue (PLACE_LAG), which also carries it across pCPUs
 * (no min_vruntime renormalisation in 6.6).  This file is the per-level
 * entity policy; the task level (groups, balancing, wake placement, CFS
 * bandwidth) is sched_fair.c, shared with cfs.
 *
 * The queue is the array of sched_fair.h sorted by vruntime (6.6's rb-tree
 * is also sorted by vruntime, augmented with min_deadline); eligibility is
 * monotone in vruntime, so the eligible entities are a prefix of it and the
 * pick scans that prefix for the earliest deadline.
 *
 * Tick preemption checked against 6.18 (issue 26): its update_curr
 * reschedules on `resched || !protect_slice(curr)`, and for entities of one
 * slice set_protect_slice's vprot is the deadline (the shortest queued slice
 * bounds it only when slices differ, 6.17), so an equal-weight curr is
 * preempted at the first tick or update_curr after its vruntime passes its
 * deadline, as here; PREEMPT_SHORT (6.12) acts on a shorter custom slice
 * only.  The base slice is 0.70 ms from 6.15 (fair.c, commit 2ae891b8;
 * params base_slice), 0.75 ms here by default as in 6.6.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hv/hv.h"
#include "hv/sched.h"
#include "hv/sched_eevdf.h"
#include "hv/sched_fair.h"
#include "yconf.h"

struct eevdf_cfg {
	struct fair_cfg fc;
	double base_slice;
	int run_to_parity, place_lag, place_deadline_initial, next_buddy, delay_dequeue;
};

struct eevdf {
	struct fair f;
	int64_t base_slice;
	int run_to_parity, place_lag, place_deadline_initial, next_buddy, delay_dequeue;
};

#define EEVDF_OF(f)	((struct eevdf *)(f)->pol)

/* ---- parameters ---- */

/* hypervisor.params of eevdf beside fair_params: LNX-6.6 fair.c
 * sysctl_sched_base_slice and kernel/sched/features.h. */
static const struct vs_param eevdf_params[] = {
	{ "base_slice", NULL, "sysctl_sched_base_slice (x factor; LNX-6.6)", "time", "ns",
	  VP_TIME, VS_AT(struct eevdf_cfg, base_slice), 1e3, 1e10, 0.75e6, NULL },
	{ "run_to_parity", NULL, "RUN_TO_PARITY: curr keeps the CPU until its deadline", "bool",
	  "", VP_BOOL, VS_AT(struct eevdf_cfg, run_to_parity), 0, 1, 1, NULL },
	{ "place_lag", NULL, "PLACE_LAG: a woken entity keeps its lag", "bool", "",
	  VP_BOOL, VS_AT(struct eevdf_cfg, place_lag), 0, 1, 1, NULL },
	{ "place_deadline_initial", NULL, "PLACE_DEADLINE_INITIAL: half a slice for a new task",
	  "bool", "", VP_BOOL, VS_AT(struct eevdf_cfg, place_deadline_initial), 0, 1, 1, NULL },
	{ "next_buddy", NULL, "NEXT_BUDDY: pick the wakee / yield_to target if eligible",
	  "bool", "", VP_BOOL, VS_AT(struct eevdf_cfg, next_buddy), 0, 1, 0, NULL },
	{ "delay_dequeue", NULL, "LNX-6.12 DELAY_DEQUEUE (+DELAY_ZERO): a task that sleeps "
	  "while not eligible stays queued until picked or woken", "bool", "",
	  VP_BOOL, VS_AT(struct eevdf_cfg, delay_dequeue), 0, 1, 0, NULL },
	{ NULL, NULL, NULL, NULL, NULL, VS_LIST }
};

static int
eevdf_parse(const struct yc_node *params, double hz, void **out, struct vs_err *err)
{
	struct eevdf_cfg *cfg = xcalloc(1, sizeof *cfg);

	*out = cfg;
	if (params != NULL && yc_expect(params, YC_MAP, "a mapping of eevdf parameters", err))
		return -1;
	return fair_parse(params, hz, eevdf_params, cfg, err);
}

/* ---- virtual time and lag ---- */

/* The sums of avg_vruntime/avg_load with curr added (curr is not in the tree). */
static int64_t
avg_sums(const struct fair_rq *rq, long *load)
{
	const struct fair_se *curr = rq->curr;
	int64_t avg = rq->avg_vruntime;

	*load = rq->avg_load;
	if (curr != NULL && curr->on_rq) {
		avg += (curr->vruntime - rq->min_vruntime) * curr->weight;
		*load += curr->weight;
	}
	return avg;
}

/* LNX-6.6 fair.c avg_vruntime: V, the load-weighted mean vruntime (curr included) */
static int64_t
avg_vruntime(const struct fair_rq *rq)
{
	long load;
	int64_t avg = avg_sums(rq, &load);

	if (load) {
		if (avg < 0)	/* sign flips effective floor / ceil */
			avg -= load - 1;
		avg /= load;
	}
	return rq->min_vruntime + avg;
}

/* LNX-6.6 fair.c entity_eligible: lag >= 0, i.e. v_i <= V, without the division */
static int
entity_eligible(const struct fair_rq *rq, const struct fair_se *se)
{
	long load;
	int64_t avg = avg_sums(rq, &load);

	return avg >= (se->vruntime - rq->min_vruntime) * load;
}

/* LNX-6.6 fair.c entity_lag / update_entity_lag: V - v_i, clamped to
 * calc_delta_fair(max(2 slice, TICK_NSEC)) */
static void
update_entity_lag(const struct fair *f, const struct fair_rq *rq, struct fair_se *se)
{
	int64_t vlag = avg_vruntime(rq) - se->vruntime;
	int64_t lim = 2 * se->slice > f->hv->tick_ns ? 2 * se->slice : f->hv->tick_ns;

	lim = fair_delta(lim, se);
	se->vlag = vlag < -lim ? -lim : vlag > lim ? lim : vlag;
}

/* LNX-6.6 fair.c update_deadline: a used-up request gets a new deadline and
 * the CPU is rescheduled */
static void
update_deadline(struct fair *f, struct fair_rq *rq, struct fair_se *se)
{
	if (se->vruntime < se->deadline)
		return;
	se->slice = EEVDF_OF(f)->base_slice;
	se->deadline = se->vruntime + fair_delta(se->slice, se);	/* vd_i = ve_i + r_i/w_i */
	if (rq->nr_running > 1) {
		fair_resched(f, fair_cpu_of(f, rq));
		fair_clear_buddies(rq, se);
	}
}

/* LNX-6.6 fair.c update_curr: after the vruntime (fair_update_curr_at), the deadline */
static void
eevdf_update_curr(struct fair *f, struct fair_rq *rq, struct fair_se *se)
{
	update_deadline(f, rq, se);
}

/* LNX-6.6 fair.c place_entity: at V minus the saved lag, inflated so that
 * adding the entity to the average does not shrink it (PLACE_LAG); half a
 * slice of deadline for a new task (PLACE_DEADLINE_INITIAL) */
static void
place_entity(struct fair *f, struct fair_rq *rq, struct fair_se *se, int flags)
{
	const struct eevdf *e = EEVDF_OF(f);
	int64_t vruntime = avg_vruntime(rq), lag = 0, vslice;

	se->slice = e->base_slice;
	vslice = fair_delta(se->slice, se);
	if (e->place_lag && rq->nr_running) {
		const struct fair_se *curr = rq->curr;
		long load = rq->avg_load;

		if (curr != NULL && curr->on_rq)
			load += curr->weight;
		lag = se->vlag * (load + se->weight);
		if (load == 0)
			load = 1;
		lag /= load;
	}
	se->vruntime = vruntime - lag;
	if (e->place_deadline_initial && (flags & FAIR_INITIAL))
		vslice /= 2;
	se->deadline = se->vruntime + vslice;
}

static void
eevdf_place_initial(struct fair *f, struct fair_rq *rq, struct fair_se *se)
{
	se->vlag = 0;
	se->slice = EEVDF_OF(f)->base_slice;
}

/* LNX-6.6 fair.c enqueue_entity: place (curr before update_curr), account, queue */
static void
eevdf_enqueue_entity(struct fair *f, struct fair_rq *rq, struct fair_se *se, int flags)
{
	int curr = rq->curr == se;

	VS_ASSERT(!se->on_rq);
	if (curr)
		place_entity(f, rq, se, flags);
	fair_update_curr(f, rq);
	if (!curr)
		place_entity(f, rq, se, flags);
	fair_account_enqueue(f, rq, se);
	if (!curr)
		fair_rq_insert(f, rq, se);
	se->on_rq = 1;
}

/* LNX-6.6 fair.c dequeue_entity: the lag is saved for the next placement.
 * LNX-6.12 DELAY_DEQUEUE: a task going to sleep while not eligible stays
 * queued (delayed) and burns its negative lag competing, until it is
 * picked (pick_next_entity dequeues it then) or woken (requeue_delayed);
 * DELAY_ZERO: the lag it leaves with is at most 0. */
static int
eevdf_dequeue_entity(struct fair *f, struct fair_rq *rq, struct fair_se *se, int flags)
{
	VS_ASSERT(se->on_rq);
	fair_update_curr(f, rq);
	fair_clear_buddies(rq, se);
	if (EEVDF_OF(f)->delay_dequeue && (flags & FAIR_WAKEUP) && !(flags & FAIR_DELAYED) &&
	    se->v != NULL && !entity_eligible(rq, se)) {
		se->delayed = 1;
		return 0;
	}
	update_entity_lag(f, rq, se);
	if (se->queued)
		fair_rq_remove(rq, se);
	se->on_rq = 0;
	fair_account_dequeue(f, rq, se);
	fair_update_min_vruntime(f, rq);
	if (flags & FAIR_DELAYED) {
		se->delayed = 0;
		if (se->vlag > 0)
			se->vlag = 0;
	}
	return 1;
}

/* LNX-6.12 fair.c requeue_delayed_entity (DELAY_ZERO): a delayed task woken
 * in place; positive lag (it became eligible meanwhile) is dropped */
static void
eevdf_requeue_delayed(struct fair *f, struct fair_rq *rq, struct fair_se *se)
{
	fair_update_curr(f, rq);
	update_entity_lag(f, rq, se);
	if (se->vlag > 0) {
		if (se->queued)
			fair_rq_remove(rq, se);
		se->vlag = 0;
		place_entity(f, rq, se, 0);
		if (rq->curr != se)
			fair_rq_insert(f, rq, se);
	}
	se->delayed = 0;
}

/* LNX-6.6 fair.c reweight_entity: keep lag (asleep) or the relative
 * deadline (queued) in real time across the weight change */
static void
eevdf_reweight(struct fair *f, struct fair_rq *rq, struct fair_se *se, long weight)
{
	long old = se->weight;

	if (!se->on_rq)
		se->vlag = se->vlag * old / weight;
	else
		se->deadline = se->vruntime + (se->deadline - se->vruntime) * old / weight;
	se->weight = weight;
}

/* LNX-6.6 fair.c __pick_eevdf + pick_eevdf: the eligible entity with the
 * earliest deadline, curr included; RUN_TO_PARITY keeps an eligible curr
 * until its deadline moves (set_next_entity stashed the deadline in vlag). */
static struct fair_se *
pick_eevdf(const struct eevdf *e, const struct fair_rq *rq)
{
	struct fair_se *curr = rq->curr, *best = NULL;
	int i;

	if (curr != NULL && (!curr->on_rq || !entity_eligible(rq, curr)))
		curr = NULL;
	if (e->run_to_parity && curr != NULL && curr->vlag == curr->deadline)
		return curr;
	for (i = 0; i < rq->nq && entity_eligible(rq, rq->q[i]); i++)
		if (best == NULL || rq->q[i]->deadline < best->deadline)
			best = rq->q[i];
	if (best == NULL || (curr != NULL && curr->deadline < best->deadline))
		best = curr;
	if (best == NULL && rq->nq > 0)	/* "EEVDF scheduling fail, picking leftmost" */
		best = rq->q[0];
	return best;
}

/* LNX-6.6 fair.c pick_next_entity: the next buddy if eligible (NEXT_BUDDY), else EEVDF */
static struct fair_se *
eevdf_pick_next_entity(struct fair *f, struct fair_rq *rq)
{
	const struct eevdf *e = EEVDF_OF(f);

	if (e->next_buddy && rq->next != NULL && entity_eligible(rq, rq->next))
		return rq->next;
	return pick_eevdf(e, rq);
}

/* LNX-6.6 fair.c set_next_entity (with its HACK: vlag = deadline at pick) */
static void
eevdf_set_next_entity(struct fair *f, struct fair_rq *rq, struct fair_se *se)
{
	fair_clear_buddies(rq, se);
	if (se->on_rq) {	/* not curr: in the tree, or put_prev_entity took it out */
		if (se->queued)
			fair_rq_remove(rq, se);
		se->vlag = se->deadline;
	}
	rq->curr = se;
	se->exec_start = f->hv->sim->now;
	se->prev_sum_exec = se->sum_exec;
}

/* LNX-6.6 fair.c entity_tick: update_curr (update_deadline may resched), update_cfs_group */
static void
eevdf_entity_tick(struct fair *f, struct fair_rq *rq, struct fair_se *curr)
{
	fair_update_curr(f, rq);
	fair_update_shares(f, rq);
}

/* LNX-6.6 fair.c check_preempt_wakeup: preempt iff pick_eevdf would pick the wakee */
static void
eevdf_check_preempt_wakeup(struct fair *f, struct fair_cpu *cpu, struct fair_se *pse)
{
	const struct eevdf *e = EEVDF_OF(f);
	struct fair_se *se = fair_curr_task(cpu), *s;

	if (se == NULL) {	/* the idle task is preempted by anything */
		fair_resched(f, cpu);
		return;
	}
	if (se == pse)
		return;
	for (s = pse; s != NULL; s = s->parent)	/* throttled_hierarchy(cfs_rq_of(pse)) */
		if (s->cfs_rq->throttled)
			return;
	if (e->next_buddy)
		fair_set_next_buddy(pse);
	if (cpu->need_resched)
		return;
	fair_find_matching_se(&se, &pse);
	fair_update_curr(f, se->cfs_rq);
	if (pick_eevdf(e, se->cfs_rq) == pse)
		fair_resched(f, cpu);
}

/* LNX-6.6 fair.c yield_task_fair: the yielder's deadline moves one slice on */
static void
eevdf_yield_task(struct fair *f, struct fair_cpu *cpu, struct fair_se *se)
{
	VS_ASSERT(se->cfs_rq->curr == se);
	if (cpu->root.h_nr_running == 1)
		return;
	fair_clear_buddies(se->cfs_rq, se);
	fair_update_curr(f, se->cfs_rq);
	se->deadline += fair_delta(se->slice, se);
}

/* LNX-6.6 kernel/sched/topology.c sd_init: min_interval = sd_weight ms,
 * max_interval = 2 * sd_weight, busy_factor 16, balance_interval starts at
 * sd_weight (the same at every level, NUMA included). */
static void
eevdf_sd_init(enum hw_dist level, int weight, struct fair_sd_param *p)
{
	(void)level;
	p->min_interval = p->init_interval = weight;
	p->max_interval = 2 * weight;
	p->busy_factor = 16;
}

static const struct fair_class eevdf_class = {
	.pick_with_curr = 1,
	.min_vr_curr_on_rq = 1,
	.avg_vruntime = 1,
	.update_curr = eevdf_update_curr,
	.enqueue_entity = eevdf_enqueue_entity,
	.dequeue_entity = eevdf_dequeue_entity,
	.requeue_delayed = eevdf_requeue_delayed,
	.pick_next_entity = eevdf_pick_next_entity,
	.set_next_entity = eevdf_set_next_entity,
	.entity_tick = eevdf_entity_tick,
	.check_preempt_wakeup = eevdf_check_preempt_wakeup,
	.yield_task = eevdf_yield_task,
	.renormalize = NULL,	/* 6.6: lag placement replaces renormalisation */
	.reweight = eevdf_reweight,
	.place_initial = eevdf_place_initial,
	.sd_init = eevdf_sd_init,
	.busy_interval_trim = 1,
	.newidle_backoff = 0,
	.lb_next_v66 = 1,
};

/* ---- sched_ops ---- */

int64_t
sched_eevdf_deadline(const struct hv *hv, const struct vcpu *v)
{
	return FAIR_SE(v)->deadline;
}

int64_t
sched_eevdf_lag(const struct hv *hv, const struct vcpu *v)
{
	return FAIR_SE(v)->vlag;
}

int64_t
sched_eevdf_lag_now(const struct hv *hv, const struct vcpu *v)
{
	const struct fair_rq *rq = FAIR_SE(v)->cfs_rq;
	const struct fair_se *curr = rq->curr;
	int64_t vnow = avg_vruntime(rq);
	long load;

	/* curr's service since its last update_curr moves V too */
	avg_sums(rq, &load);
	if (curr != NULL && curr->on_rq && load > 0)
		vnow += fair_delta(hv->sim->now - curr->exec_start, curr) * curr->weight / load;
	return vnow - fair_vruntime(hv, v);
}

struct fair_se *
sched_eevdf_pick(struct fair_rq *rq, int run_to_parity, int next_buddy)
{
	struct eevdf e = { .run_to_parity = run_to_parity, .next_buddy = next_buddy };
	struct fair f = { .pol = &e };

	return eevdf_pick_next_entity(&f, rq);
}

void
sched_eevdf_set_next(struct hv *hv, struct fair_rq *rq, struct fair_se *se)
{
	struct fair f = { .hv = hv };

	eevdf_set_next_entity(&f, rq, se);
}

static int
eevdf_init(struct hv *hv, const void *vcfg, struct vs_err *err)
{
	const struct eevdf_cfg *cfg = vcfg;	/* eevdf_parse's, defaults included */
	struct eevdf *e = xcalloc(1, sizeof *e);

	/* LNX-6.6 fair.c update_sysctl: SET_SYSCTL(sched_base_slice) */
	e->base_slice = (int64_t)(cfg->base_slice *
	    fair_sysctl_factor(cfg->fc.scaling, hv->npcpus));
	e->run_to_parity = cfg->run_to_parity;
	e->place_lag = cfg->place_lag;
	e->place_deadline_initial = cfg->place_deadline_initial;
	e->next_buddy = cfg->next_buddy;
	e->delay_dequeue = cfg->delay_dequeue;
	return fair_init(hv, &e->f, &eevdf_class, e, &cfg->fc, err);
}

const struct sched_ops sched_eevdf_ops = {
	.name = "eevdf",
	.desc = "KVM host: vCPU threads under Linux 6.6 EEVDF (lag, deadlines, "
	    "RUN_TO_PARITY, yield moves the deadline, groups, cpu.max)",
	.params = eevdf_params,
	.parse = eevdf_parse,
	.init = eevdf_init,
	.do_schedule = fair_do_schedule,
	.yield_to = fair_yield_to,
	.tick = fair_tick,
	FAIR_SCHED_OPS,
};
