/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sched_cfs.c - a KVM host: vCPU threads under Linux's fair scheduler (CFS).
 *
 * Follows Linux 3.2 kernel/sched_fair.c (= LNX-3.6 kernel/sched/fair.c for
 * everything used here, model-reference §6) with its default features:
 * GENTLE_FAIR_SLEEPERS, START_DEBIT, LAST_BUDDY on, NEXT_BUDDY off,
 * WAKEUP_PREEMPTION on, no HRTICK (preemption is checked at the host tick).
 * This file is the per-level entity policy (a struct fair_class); the task
 * level (group hierarchy, balancing, wake placement, CFS bandwidth) is
 * sched_fair.c, shared with eevdf.  With the default `groups: none` every
 * vCPU thread is a SCHED_OTHER task in the root cfs_rq; `groups: per-vm`
 * puts each VM's threads in a task group of its own (FAIR_GROUP_SCHED).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hv/hv.h"
#include "hv/sched.h"
#include "hv/sched_cfs.h"
#include "hv/sched_fair.h"
#include "hv/sched_fair_root.h"
#include "yconf.h"

/* The parameters as written (unscaled base values, ns). */
struct cfs_cfg {
	struct fair_cfg fc;
	double latency, min_gran, wakeup_gran, shares_window;
};

struct cfs {
	struct fair f;
	int64_t latency, min_gran, wakeup_gran;
	int nr_latency;
};

#define CFS_OF(f)	((struct cfs *)(f)->pol)

/* ---- parameters ---- */

/* hypervisor.params of cfs beside fair_params: LNX-3.2 fair.c sysctl defaults
 * (LNX-3.6 fair.c sysctl_sched_*; kernel/sched/features.h). */
static const struct vs_param cfs_params[] = {
	{ "latency", NULL, "sysctl_sched_latency (x factor): the period every runnable entity "
	  "runs in", "time", "ns", VP_TIME, VS_AT(struct cfs_cfg, latency), 1e3, 1e10, 6e6,
	  NULL },
	{ "min_granularity", NULL, "sysctl_sched_min_granularity (x factor): shortest slice",
	  "time", "ns", VP_TIME, VS_AT(struct cfs_cfg, min_gran), 1e3, 1e10, 0.75e6, NULL },
	{ "wakeup_granularity", NULL, "sysctl_sched_wakeup_granularity (x factor): vruntime lead "
	  "a waker needs to preempt", "time", "ns", VP_TIME, VS_AT(struct cfs_cfg, wakeup_gran),
	  0, 1e10, 1e6, NULL },
	/* LNX-3.2 sched_fair.c sysctl_sched_shares_window: 10 ms */
	{ "shares_window", NULL, "sysctl_sched_shares_window: groups weigh their other pCPUs' "
	  "loads averaged over it (update_cfs_load); 0: the current loads", "time", "ns",
	  VP_TIME, VS_AT(struct cfs_cfg, shares_window), 0, 1e10, 10e6, NULL },
	{ NULL, NULL, NULL, NULL, NULL, VS_LIST }
};

static int
cfs_parse(const struct yc_node *params, double hz, void **out, struct vs_err *err)
{
	struct cfs_cfg *cfg = xcalloc(1, sizeof *cfg);

	*out = cfg;
	if (params != NULL && yc_expect(params, YC_MAP, "a mapping of cfs parameters", err))
		return -1;
	return fair_parse(params, hz, cfs_params, cfg, err);
}

/* ---- virtual time ---- */

int64_t
sched_cfs_vruntime(const struct hv *hv, const struct vcpu *v)
{
	return fair_vruntime(hv, v);
}

/* LNX-3.6 fair.c __sched_period: stretch the latency past nr_latency tasks */
static int64_t
sched_period(const struct cfs *c, int nr)
{
	return nr > c->nr_latency ? (int64_t)nr * c->min_gran : c->latency;
}

/* LNX-3.2 fair.c sched_slice: the entity's weighted share of the period,
 * scaled by its share at every level of the hierarchy (inline: the tick's
 * look after every switch, cfs_tick_act, asks it) */
static inline int64_t
sched_slice(const struct cfs *c, const struct fair_rq *rq, const struct fair_se *se)
{
	int64_t slice = sched_period(c, rq->nr_running + !se->on_rq);

	for (; se != NULL; se = se->parent) {
		long load = se->cfs_rq->load + (se->on_rq ? 0 : se->weight);

		if (load > 0)
			slice = slice * se->weight / load;
	}
	return slice;
}

/* LNX-3.6 fair.c place_entity */
static void
place_entity(const struct cfs *c, struct fair_rq *rq, struct fair_se *se, int initial)
{
	int64_t vr = rq->min_vruntime;

	if (initial)	/* START_DEBIT: a new task starts one vslice behind */
		vr += fair_delta(sched_slice(c, rq, se), se);
	else		/* GENTLE_FAIR_SLEEPERS: half a latency of sleeper credit */
		vr -= c->latency / 2;
	if (vr > se->vruntime)
		se->vruntime = vr;
}

static void
cfs_place_initial(struct fair *f, struct fair_rq *rq, struct fair_se *se)
{
	place_entity(CFS_OF(f), rq, se, 1);
}

/* LNX-3.6 fair.c enqueue_entity (wakeup: ENQUEUE_WAKEUP -> place_entity) */
static void
cfs_enqueue_entity(struct fair *f, struct fair_rq *rq, struct fair_se *se, int flags)
{
	VS_ASSERT(!se->on_rq);
	fair_update_curr(f, rq);
	if (flags & FAIR_WAKEUP)
		place_entity(CFS_OF(f), rq, se, 0);
	se->on_rq = 1;
	fair_account_enqueue(f, rq, se);
	if (se != rq->curr)
		fair_rq_insert(f, rq, se);
}

/* LNX-3.6 fair.c dequeue_entity */
static int
cfs_dequeue_entity(struct fair *f, struct fair_rq *rq, struct fair_se *se, int flags)
{
	VS_ASSERT(se->on_rq);
	fair_update_curr(f, rq);
	fair_clear_buddies(rq, se);
	if (se->queued)
		fair_rq_remove(rq, se);
	se->on_rq = 0;
	fair_account_dequeue(f, rq, se);
	fair_update_min_vruntime(f, rq);
	return 1;
}

/* LNX-3.6 fair.c task_waking_fair + enqueue: vruntime is relative to min_vruntime */
static void
cfs_renormalize(struct fair_se *se, const struct fair_rq *from, const struct fair_rq *to)
{
	se->vruntime += to->min_vruntime - from->min_vruntime;
}

/* LNX-3.2 fair.c reweight_entity: only the weight (vruntime stays) */
static void
cfs_reweight(struct fair *f, struct fair_rq *rq, struct fair_se *se, long weight)
{
	se->weight = weight;
}

/* LNX-3.6 fair.c wakeup_gran: wakeup_granularity in se's virtual time */
static int64_t
wakeup_gran(const struct cfs *c, const struct fair_se *se)
{
	return fair_delta(c->wakeup_gran, se);
}

/* LNX-3.6 fair.c wakeup_preempt_entity: 1 if se should preempt curr, -1 if
 * se is not left of curr, 0 if within one wakeup granularity. */
static int
wakeup_preempt_entity(const struct cfs *c, const struct fair_se *curr,
    const struct fair_se *se)
{
	int64_t vdiff = curr->vruntime - se->vruntime;

	if (vdiff <= 0)
		return -1;
	return vdiff > wakeup_gran(c, se) ? 1 : 0;
}

/* LNX-3.2 fair.c check_preempt_wakeup (NEXT_BUDDY off, LAST_BUDDY on) */
static void
cfs_check_preempt_wakeup(struct fair *f, struct fair_cpu *cpu, struct fair_se *pse)
{
	struct cfs *c = CFS_OF(f);
	struct fair_se *se = fair_curr_task(cpu), *s;
	int scale;

	if (se == NULL) {	/* the idle task is preempted by anything */
		fair_resched(f, cpu);
		return;
	}
	if (se == pse || cpu->need_resched)
		return;
	for (s = pse; s != NULL; s = s->parent)	/* throttled_hierarchy(cfs_rq_of(pse)) */
		if (s->cfs_rq->throttled)
			return;
	scale = se->cfs_rq->nr_running >= c->nr_latency;
	fair_find_matching_se(&se, &pse);
	fair_update_curr(f, se->cfs_rq);
	if (wakeup_preempt_entity(c, se, pse) != 1)
		return;
	fair_set_next_buddy(pse);	/* bias pick_next to the preemptor */
	fair_resched(f, cpu);
	if (se->on_rq && scale && se->v != NULL)
		fair_set_last_buddy(se);	/* prev may get the CPU back */
}

static inline int64_t tick_slice(const struct cfs *, struct fair_rq *, const struct fair_se *);

/* LNX-3.6 fair.c check_preempt_tick */
static void
check_preempt_tick(struct fair *f, struct fair_rq *rq, struct fair_se *curr)
{
	struct cfs *c = CFS_OF(f);
	/* a root curr at nice 0 (on_rq: entity_tick) has the slice kept beside
	 * the rq's nr_running and load: no divide at every tick */
	int64_t ideal = f->flat && curr->weight == FAIR_NICE0 ? tick_slice(c, rq, curr) :
	    sched_slice(c, rq, curr);
	int64_t ran = curr->sum_exec - curr->prev_sum_exec, delta;

	if (ran > ideal) {
		fair_resched(f, fair_cpu_of(f, rq));
		fair_clear_buddies(rq, curr);
		return;
	}
	/* Do not preempt before min_granularity, so that it gets some run. */
	if (ran < c->min_gran || rq->nq == 0)
		return;
	delta = curr->vruntime - rq->q[0]->vruntime;
	if (delta > ideal)
		fair_resched(f, fair_cpu_of(f, rq));
}

static const struct fair_class cfs_class;

/* LNX-3.2 fair.c entity_tick; its update_curr inline, with cfs_class's
 * constants (every host tick that runs: 276 k per 300 s of seed001-x5570 3x);
 * inline in cfs_tick */
static inline __attribute__((always_inline)) void
cfs_entity_tick(struct fair *f, struct fair_rq *rq, struct fair_se *curr)
{
	update_curr(f, &cfs_class, rq, f->hv->sim->now);
	/* update_cfs_shares reweights the rq's group entity: a root rq has none */
	if (rq->tg != NULL)
		fair_update_shares(f, rq);
	if (rq->nr_running > 1)
		check_preempt_tick(f, rq, curr);
}

/* sched_slice of the tick's curr, a root entity (tick_skip: groups none),
 * on_rq at nice 0 (fair_tick_next, cfs_set_next_entity, check_preempt_tick;
 * with more than one queued, so a zeroed rq's never matches): it reads the rq's
 * nr_running and load only, so it is kept beside them and computed again
 * when either differs (a switch asks it; an enqueue or a dequeue changes them).
 * Root, on_rq, nice 0: the callers test them (f->tick_skip or f->flat, set
 * by fair_init only with groups: none, where every entity is a root task). */
static inline int64_t
tick_slice(const struct cfs *c, struct fair_rq *rq, const struct fair_se *curr)
{
	if (rq->slice_nr != rq->nr_running || rq->slice_load != rq->load) {
		rq->slice_nr = rq->nr_running;
		rq->slice_load = rq->load;
		rq->slice_ideal = sched_slice(c, rq, curr);
	}
	return rq->slice_ideal;
}

int64_t
sched_cfs_tick_slice(struct fair_rq *rq, const struct fair_se *curr, int64_t latency,
    int64_t min_gran)
{
	struct cfs c = { .latency = latency, .min_gran = min_gran,
	    .nr_latency = (int)((latency + min_gran - 1) / min_gran) };

	return tick_slice(&c, rq, curr);
}

/*
 * The first tick at which check_preempt_tick above would resched, the queue
 * as it is: just after a tick's update_curr, curr's runtime and vruntime
 * both grow 1:1 with time (nice 0), the slice and the leftmost stay.  The
 * time from now, curr having run `ran` of its slice.
 */
static inline int64_t
tick_after(const struct cfs *c, struct fair_rq *rq, const struct fair_se *curr, int64_t ran)
{
	int64_t ideal = tick_slice(c, rq, curr), x = ideal - ran + 1, xb;	/* ran > ideal */

	if (rq->nq > 0) {
		/* ran >= min_gran and curr->vruntime - leftmost > ideal */
		xb = ideal - (curr->vruntime - rq->q[0]->vruntime) + 1;
		if (xb < c->min_gran - ran)
			xb = c->min_gran - ran;
		if (xb < x)
			x = xb;
	}
	return x;
}

static sim_time_t
cfs_tick_act(struct fair *f, struct fair_rq *rq, struct fair_se *curr)
{
	sim_time_t now = f->hv->sim->now;

	VS_ASSERT(curr->exec_start == now);
	return now + tick_after(CFS_OF(f), rq, curr, curr->sum_exec - curr->prev_sum_exec);
}

/* The tree's first entity after `after` (NULL: its leftmost) with an on_rq
 * curr put back (fair_class.pick_with_curr 0): put_prev_entity's seq is the
 * newest, so curr goes right of equal keys, as 3.2's __enqueue_entity
 * places it ("entity_before" is strict). */
static inline struct fair_se *
tree_next(const struct fair_rq *rq, const struct fair_se *after)
{
	struct fair_se *cur = rq->curr, *q;
	int i = after == NULL ? 0 : after == cur ? -1 : 1;

	if (i < 0)	/* after curr: curr came before the tree's leftmost */
		return rq->nq > 0 ? rq->q[0] : NULL;
	q = rq->nq > i ? rq->q[i] : NULL;
	if (cur != NULL && cur->on_rq && (q == NULL || cur->vruntime < q->vruntime))
		return cur;
	return q;
}

/* LNX-3.6 fair.c pick_next_entity: leftmost, unless a buddy is not too
 * unfair; curr as put back (tree_next); inline in cfs_do_schedule */
static inline __attribute__((always_inline)) struct fair_se *
cfs_pick_next_entity(struct fair *f, struct fair_rq *rq)
{
	const struct cfs *c = CFS_OF(f);
	struct fair_se *left, *se, *second;

	left = se = tree_next(rq, NULL);
	if (left == NULL)
		return NULL;
	/* Avoid the skip buddy (a yielder) if the second is close enough. */
	if (rq->skip == se && (second = tree_next(rq, left)) != NULL &&
	    wakeup_preempt_entity(c, second, left) < 1)
		se = second;
	/* Prefer the last buddy (cache locality), then the next buddy. */
	if (rq->last != NULL && wakeup_preempt_entity(c, rq->last, left) < 1)
		se = rq->last;
	if (rq->next != NULL && wakeup_preempt_entity(c, rq->next, left) < 1)
		se = rq->next;
	fair_clear_buddies(rq, se);
	return se;
}

/* LNX-3.6 fair.c set_next_entity: out of the tree, a new slice starts
 * (a kept curr is not in it); inline in cfs_do_schedule */
static inline __attribute__((always_inline)) void
cfs_set_next_entity(struct fair *f, struct fair_rq *rq, struct fair_se *se)
{
	if (se->queued)
		fair_rq_remove(rq, se);
	rq->curr = se;
	se->exec_start = f->hv->sim->now;
	se->prev_sum_exec = se->sum_exec;
	/* fair_tick_next's terms for this curr, for the tick's look after the
	 * switch: 0 where it answers 0 (not nice 0; not on_rq, which a pick
	 * always is: tree_next's, or a buddy, cleared at its dequeue), cfs_tick_act
	 * with others queued, SIM_NEVER alone */
	if (!f->tick_skip || se->weight != FAIR_NICE0)
		rq->act_at = 0;
	else
		rq->act_at = rq->nr_running > 1 ? se->exec_start + tick_after(CFS_OF(f), rq, se, 0) :
		    SIM_NEVER;
}

struct fair_se *
sched_cfs_pick(struct fair_rq *rq, int64_t wakeup_gran)
{
	struct cfs c = { .wakeup_gran = wakeup_gran };

	c.f.pol = &c;
	return cfs_pick_next_entity(&c.f, rq);
}

/* LNX-3.2 fair.c yield_task_fair: become the skip buddy (up the hierarchy);
 * its update_curr inline, with cfs_class's constants; inline in cfs_yield_to */
static inline __attribute__((always_inline)) void
cfs_yield_task(struct fair *f, struct fair_cpu *cpu, struct fair_se *se)
{
	VS_ASSERT(se->cfs_rq->curr == se);
	if (cpu->root.h_nr_running == 1)
		return;
	fair_clear_buddies(se->cfs_rq, se);
	update_curr(f, &cfs_class, se->cfs_rq, f->hv->sim->now);
	fair_set_skip_buddy(se);
}

/* LNX-3.2 include/linux/topology.h SD_SIBLING_INIT, SD_MC_INIT and (x86, one
 * node per socket) arch/x86/include/asm/topology.h SD_NODE_INIT: min/max
 * interval and busy_factor; every domain starts at balance_interval 1 ms. */
static void
cfs_sd_init(enum hw_dist level, int weight, struct fair_sd_param *p)
{
	(void)weight;
	p->init_interval = 1;
	if (level == HW_REMOTE) {
		p->min_interval = 8, p->max_interval = 32, p->busy_factor = 32;
		return;
	}
	p->min_interval = 1, p->busy_factor = 64;
	p->max_interval = level == HW_SIBLING ? 2 : 4;
}

static const struct fair_class cfs_class = {
	.pick_with_curr = 0,
	.min_vr_curr_on_rq = 0,
	.avg_vruntime = 0,
	.update_curr = NULL,	/* 3.2 update_curr moves vruntime only */
	.enqueue_entity = cfs_enqueue_entity,
	.dequeue_entity = cfs_dequeue_entity,
	.pick_next_entity = cfs_pick_next_entity,
	.set_next_entity = cfs_set_next_entity,
	.entity_tick = cfs_entity_tick,
	.tick_act = cfs_tick_act,
	.check_preempt_wakeup = cfs_check_preempt_wakeup,
	.yield_task = cfs_yield_task,
	.renormalize = cfs_renormalize,
	.reweight = cfs_reweight,
	.place_initial = cfs_place_initial,
	.sd_init = cfs_sd_init,
	.busy_interval_trim = 0,
	.newidle_backoff = 1,
	.lb_next_v66 = 0,
};

/* ---- sched_ops ---- */

/* fair_do_schedule, with cfs_class's pick and set_next_entity called
 * directly and inlined where every entity is a root task (groups: none) */
static struct vcpu *
cfs_do_schedule(struct hv *hv, struct pcpu *p, sim_time_t *slice)
{
	if (!((struct fair *)hv->sched_priv)->flat)
		return fair_do_schedule(hv, p, slice);
	return fair_schedule_flat(hv, &cfs_class, p, slice);
}

/* fair_yield_to with cfs_class's yield_task called directly, inline */
static int
cfs_yield_to(struct hv *hv, struct vcpu *from, struct vcpu *to)
{
	return fair_yield_to_cls(hv, &cfs_class, from, to);
}

/* fair_tick with cfs_class's entity_tick called directly, inline */
static void
cfs_tick(struct hv *hv, struct pcpu *p)
{
	fair_tick_cls(hv, &cfs_class, p);
}

static int
cfs_init(struct hv *hv, const void *vcfg, struct vs_err *err)
{
	const struct cfs_cfg *cfg = vcfg;	/* cfs_parse's, defaults included */
	struct cfs *c = xcalloc(1, sizeof *c);
	int f = fair_sysctl_factor(cfg->fc.scaling, hv->npcpus);

	c->latency = (int64_t)(cfg->latency * f);
	c->min_gran = (int64_t)(cfg->min_gran * f);
	c->wakeup_gran = (int64_t)(cfg->wakeup_gran * f);
	/* LNX-3.6 core.c sched_proc_update_handler: DIV_ROUND_UP(latency, min_gran) */
	c->nr_latency = (int)((c->latency + c->min_gran - 1) / c->min_gran);
	c->f.shares_window = (int64_t)cfg->shares_window;	/* not scaled by the factor */
	return fair_init(hv, &c->f, &cfs_class, c, &cfg->fc, err);
}

const struct sched_ops sched_cfs_ops = {
	.name = "cfs",
	.desc = "KVM host: vCPU threads under Linux 3.2 CFS (vruntime, buddies, yield_to, "
	    "groups, cpu.max)",
	.params = cfs_params,
	.parse = cfs_parse,
	.init = cfs_init,
	.do_schedule = cfs_do_schedule,
	.yield_to = cfs_yield_to,
	.tick = cfs_tick,
	FAIR_SCHED_OPS,
};
