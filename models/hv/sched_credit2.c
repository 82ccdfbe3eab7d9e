/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sched_credit2.c - Xen's credit2 scheduler, as in Xen RELEASE-4.19.0
 * (xen/common/sched/credit2.c; Xen's default scheduler since 4.12).
 *
 * State, as in Xen: pCPUs grouped into runqueues by topology
 * (credit2_runqueue: cpu, core, socket - the default -, node, all); per
 * runqueue one list of runnable vCPUs ordered by credit, the list of every
 * vCPU assigned to it, idle/tickled/smt_idle masks and a decaying load
 * average.  Credit is time (ns) scaled by max_weight/weight, so a vCPU of
 * higher weight burns it more slowly; when the best vCPU to run has none
 * left, every vCPU of the runqueue gets CSCHED2_CREDIT_INIT back (an epoch),
 * and that is also when runqueues are load-balanced.
 *
 * Invariants:
 *  - a vCPU is assigned to one runqueue (svc->rqd) and v->processor is a
 *    pCPU of it; it is on rqd->runq only while runnable and not running;
 *  - pcpus[c].curr is what do_schedule last returned on c; scheduled ==
 *    "is some pcpus[].curr" outside do_schedule (no context-switch window);
 *  - rqd->load counts the runnable and running vCPUs of the runqueue.
 *
 * Caps: a per-domain budget pool replenished every cap_period, vCPUs grab
 * quotas from it and are parked without (a parked vCPU shows as runnable).
 *
 * Not modelled: soft affinity (every vCPU has Xen's default, all pCPUs, so
 * the soft-affinity balancing steps are the ones Xen skips when
 * has_soft_affinity() is false), tasklets, cpupools,
 * SMT power savings (sched_smt_power_savings off), lock trylock failures
 * (no concurrency in a simulation).  NUMA nodes are sockets here (the
 * machine model has no separate node level), so `node` equals `socket`.
 */
#include <stdlib.h>
#include <string.h>

#include "hv/hv.h"
#include "hv/sched.h"
#include "hv/sched_credit2.h"
#include "hv/sched_pervm.h"
#include "yconf.h"
#include "yparam.h"

/* ---- masks: one byte per pCPU ---- */

/* Xen cpumask_cycle: the next set pCPU after n, wrapping (n itself last). */
static int
mask_cycle(int n, const unsigned char *m, int np)
{
	int i;

	for (i = 1; i <= np; i++) {
		int c = (n + i) % np;

		if (m[c])
			return c;
	}
	return -1;
}

/* Xen cpumask_test_or_cycle: n if set, else the next one. */
static int
mask_test_or_cycle(int n, const unsigned char *m, int np)
{
	return m[n] ? n : mask_cycle(n, m, np);
}

static int
mask_intersects(const unsigned char *a, const unsigned char *b, int np)
{
	int i;

	for (i = 0; i < np; i++)
		if (a[i] && b[i])
			return 1;
	return 0;
}

/* ---- accessors ---- */

struct csched2_priv *
csched2_priv(struct hv *hv)
{
	return hv->sched_priv;
}

struct csched2_unit *
csched2_unit(struct vcpu *v)
{
	return v->sched_priv;
}

static int
is_current(const struct csched2_priv *pr, const struct vcpu *v)
{
	return v->processor >= 0 && pr->pcpus[v->processor].curr == v;
}

/* schedule.c unit_runnable: not blocked, not paused (migration, parked) */
static int
runnable(const struct csched2_unit *svc)
{
	return !svc->v->blocked && !svc->migrating && !svc->parked;
}

/* Xen 4.19 credit2.c: has_cap */
static int
has_cap(const struct csched2_unit *svc)
{
	return svc->budget != INT64_MAX;
}

static int
hw_siblings(const struct machine *m, int a, int b)
{
	return machine_core_of(m, a) == machine_core_of(m, b);
}

/* ---- SMT idle mask ---- */

/* Xen 4.19 credit2.c: smt_idle_mask_set - all siblings idle and untickled */
static void
smt_idle_mask_set(struct csched2_priv *pr, int cpu, const unsigned char *idlers,
    unsigned char *mask)
{
	const unsigned char *sib = pr->pcpus[cpu].sibling_mask;
	int np = pr->hv->npcpus, i;

	for (i = 0; i < np; i++)
		if (sib[i] && !idlers[i])
			return;
	for (i = 0; i < np; i++)
		if (sib[i])
			mask[i] = 1;
}

/* Xen 4.19 credit2.c: smt_idle_mask_clear */
static void
smt_idle_mask_clear(struct csched2_priv *pr, int cpu, unsigned char *mask)
{
	const unsigned char *sib = pr->pcpus[cpu].sibling_mask;
	int np = pr->hv->npcpus, i;

	for (i = 0; i < np; i++)
		if (sib[i] && !mask[i])
			return;
	for (i = 0; i < np; i++)
		if (sib[i])
			mask[i] = 0;
}

/* idle & ~tickled into pr->scratch */
static unsigned char *
idle_untickled(struct csched2_priv *pr, const struct csched2_rqd *rqd)
{
	int i;

	for (i = 0; i < pr->hv->npcpus; i++)
		pr->scratch[i] = rqd->idle[i] && !rqd->tickled[i];
	return pr->scratch;
}

/* ---- load tracking ---- */

/* Xen 4.19 credit2.c: update_runq_load - EWMA over a 2^W window, Q-format P */
static void
update_runq_load(struct csched2_priv *pr, struct csched2_rqd *rqd, int change, sim_time_t now)
{
	int64_t delta, load = rqd->load;
	int W = pr->window_shift, P = pr->cfg.load_precision_shift;

	now >>= LOADAVG_GRANULARITY_SHIFT;
	if (rqd->load_last_update + (1LL << W) < now) {
		rqd->avgload = load << P;
		rqd->b_avgload = load << P;
	} else {
		delta = now - rqd->load_last_update;
		if (delta < 0)
			delta = 0;
		rqd->avgload += ((delta * (load << P)) >> W) - ((delta * rqd->avgload) >> W);
		rqd->b_avgload += ((delta * (load << P)) >> W) - ((delta * rqd->b_avgload) >> W);
	}
	rqd->load += change;
	rqd->load_last_update = now;
	VS_ASSERT(rqd->avgload >= 0 && rqd->b_avgload >= 0 && rqd->load >= 0);
}

/* Xen 4.19 credit2.c: update_svc_load - the vCPU's own runnable average */
static void
update_svc_load(struct csched2_priv *pr, struct csched2_unit *svc, int change, sim_time_t now)
{
	int64_t delta, unit_load;
	int W = pr->window_shift, P = pr->cfg.load_precision_shift;

	if (change == -1)
		unit_load = 1;
	else if (change == 1)
		unit_load = 0;
	else
		unit_load = runnable(svc);
	now >>= LOADAVG_GRANULARITY_SHIFT;
	if (svc->load_last_update + (1LL << W) < now) {
		svc->avgload = unit_load << P;
	} else {
		delta = now - svc->load_last_update;
		if (delta < 0)
			delta = 0;
		svc->avgload += ((delta * (unit_load << P)) >> W) - ((delta * svc->avgload) >> W);
	}
	svc->load_last_update = now;
	VS_ASSERT(svc->avgload >= 0);
}

/* Xen 4.19 credit2.c: update_load */
static void
update_load(struct csched2_priv *pr, struct csched2_rqd *rqd, struct csched2_unit *svc,
    int change, sim_time_t now)
{
	update_runq_load(pr, rqd, change, now);
	if (svc != NULL)
		update_svc_load(pr, svc, change, now);
}

/* ---- runqueue assignment ---- */

/* Xen 4.19 credit2.c: update_max_weight */
static void
update_max_weight(struct csched2_rqd *rqd, int new_weight, int old_weight)
{
	struct csched2_unit *svc;
	int max_weight = 1;

	if (new_weight > rqd->max_weight) {
		rqd->max_weight = new_weight;
	} else if (old_weight == rqd->max_weight) {
		TAILQ_FOREACH(svc, &rqd->svc, rqd_elem)
			if (svc->weight > max_weight)
				max_weight = svc->weight;
		rqd->max_weight = max_weight;
	}
}

/* Xen 4.19 credit2.c: _runq_assign */
static void
runq_assign(struct csched2_unit *svc, struct csched2_rqd *rqd)
{
	svc->rqd = rqd;
	TAILQ_INSERT_TAIL(&rqd->svc, svc, rqd_elem);
	update_max_weight(rqd, svc->weight, 0);
	rqd->b_avgload += svc->avgload;		/* expected new load */
}

/* Xen 4.19 credit2.c: _runq_deassign */
static void
runq_deassign(struct csched2_unit *svc)
{
	struct csched2_rqd *rqd = svc->rqd;

	VS_ASSERT(!svc->on_runq && !svc->scheduled);
	TAILQ_REMOVE(&rqd->svc, svc, rqd_elem);
	update_max_weight(rqd, 0, svc->weight);
	rqd->b_avgload -= svc->avgload;
	if (rqd->b_avgload < 0)
		rqd->b_avgload = 0;
	svc->rqd = NULL;
}

/* ---- the runqueue ---- */

/* Xen 4.19 credit2.c: runq_insert - by credit, after those with as much */
static void
runq_insert(struct csched2_unit *svc)
{
	struct csched2_rqd *rqd = svc->rqd;
	struct csched2_unit *it;

	VS_ASSERT(!svc->on_runq && !svc->scheduled);
	TAILQ_FOREACH(it, &rqd->runq, runq_elem)
		if (svc->credit > it->credit)
			break;
	if (it != NULL)
		TAILQ_INSERT_BEFORE(it, svc, runq_elem);
	else
		TAILQ_INSERT_TAIL(&rqd->runq, svc, runq_elem);
	svc->on_runq = 1;
}

static void
runq_remove(struct csched2_unit *svc)
{
	VS_ASSERT(svc->on_runq);
	TAILQ_REMOVE(&svc->rqd->runq, svc, runq_elem);
	svc->on_runq = 0;
}

/* ---- credit ---- */

/* Xen 4.19 credit2.c: t2c_update - time to credit at max_weight/weight */
void
csched2_t2c_update(const struct csched2_rqd *rqd, sim_time_t time, struct csched2_unit *svc)
{
	int64_t val = time * rqd->max_weight + svc->residual;

	svc->residual = (unsigned)(val % svc->weight);
	val = svc->credit - val / svc->weight;
	svc->credit = val < CSCHED2_CREDIT_MIN ? (int)CSCHED2_CREDIT_MIN : (int)val;
}

/* Xen 4.19 credit2.c: c2t - credit to time */
static sim_time_t
c2t(const struct csched2_rqd *rqd, int64_t credit, const struct csched2_unit *svc)
{
	return credit * svc->weight / rqd->max_weight;
}

/* Xen 4.19 credit2.c: burn_credits */
static void
burn_credits(struct csched2_unit *svc, sim_time_t now)
{
	sim_time_t delta = now - svc->start_time;

	if (delta <= 0)
		return;
	csched2_t2c_update(svc->rqd, delta, svc);
	if (has_cap(svc))
		svc->budget -= delta;
	svc->start_time = now;
}

static void tickle_cpu(struct csched2_priv *, int cpu, struct csched2_rqd *);

/* Xen 4.19 credit2.c: reset_credit - a new epoch for the whole runqueue */
static void
reset_credit(struct csched2_priv *pr, int cpu, sim_time_t now, struct csched2_unit *snext)
{
	struct csched2_rqd *rqd = pr->pcpus[cpu].rqd;
	struct csched2_unit *svc;
	int reset = CSCHED2_CREDIT_INIT;

	/* Still negative after one reset (it ran long): add two. */
	VS_ASSERT(snext->credit >= CSCHED2_CREDIT_MIN);
	if (snext->credit == CSCHED2_CREDIT_MIN)
		reset += CSCHED2_CREDIT_INIT;
	TAILQ_FOREACH(svc, &rqd->svc, rqd_elem) {
		/* A running vCPU pays for what it ran so far first (and is
		 * told to park if that used up its budget). */
		if (is_current(pr, svc->v)) {
			burn_credits(svc, now);
			if (svc->budget <= 0)
				tickle_cpu(pr, svc->v->processor, rqd);
		}
		svc->credit += reset;
		if (svc->credit > CSCHED2_CREDIT_INIT + CSCHED2_CARRYOVER_MAX)
			svc->credit = CSCHED2_CREDIT_INIT + CSCHED2_CARRYOVER_MAX;
		svc->start_time = now;
	}
	VS_ASSERT(snext->credit > 0);
	pr->st.resets++;
}

/* ---- tickling ---- */

/* Xen 4.19 credit2.c: tickle_cpu */
static void
tickle_cpu(struct csched2_priv *pr, int cpu, struct csched2_rqd *rqd)
{
	rqd->tickled[cpu] = 1;
	smt_idle_mask_clear(pr, cpu, rqd->smt_idle);
	pr->st.tickles++;
	hv_tickle(pr->hv, &pr->hv->pcpus[cpu]);
}

/* Xen 4.19 credit2.c: is_preemptable - ran at least ratelimit (- 50 us) */
static int
is_preemptable(const struct csched2_priv *pr, const struct csched2_unit *svc, sim_time_t now)
{
	sim_time_t rl = pr->cfg.ratelimit_ns;

	if (rl <= CSCHED2_RATELIMIT_TICKLE_TOLERANCE)
		return 1;
	return now - svc->entry_time > rl - CSCHED2_RATELIMIT_TICKLE_TOLERANCE;
}

/* Xen 4.19 credit2.c: tickle_score - credit margin of new over cpu's current,
 * less the migration resistance if new would change pCPU; negative: no. */
static int64_t
tickle_score(struct csched2_priv *pr, sim_time_t now, const struct csched2_unit *new, int cpu)
{
	struct vcpu *cv = pr->pcpus[cpu].curr;
	struct csched2_unit *cur;
	int64_t score;

	if (cv == NULL || !is_preemptable(pr, csched2_unit(cv), now))
		return -1;
	cur = csched2_unit(cv);
	burn_credits(cur, now);
	score = (int64_t)new->credit - cur->credit;
	if (new->v->processor != cpu)
		score -= pr->cfg.migrate_resist_ns;
	/* Soft affinity (all pCPUs by default) holds cpu for new: one bonus;
	 * it holds cpu for cur too: no second one. */
	if (score > 0)
		score += CSCHED2_CREDIT_INIT;
	return score;
}

/* Xen 4.19 credit2.c: runq_tickle - an idle core, else an idle pCPU, else
 * preempt the running vCPU with the best tickle_score (its own pCPU first). */
static void
runq_tickle(struct csched2_priv *pr, struct csched2_unit *new, sim_time_t now)
{
	struct csched2_rqd *rqd = new->rqd;
	const unsigned char *aff = new->v->affinity;
	unsigned char *mask = pr->mask;
	int np = pr->hv->npcpus, cpu = new->v->processor, ipid = -1, i;
	int64_t max = 0;

	VS_ASSERT(pr->pcpus[cpu].rqd == rqd);
	/* Exclusively pinned, its pCPU idle and untickled: go. */
	if (new->pinned && rqd->idle[cpu] && !rqd->tickled[cpu]) {
		ipid = cpu;
		goto tickle_idle;
	}
	/* Fully idle cores first (the pCPU it ran on if it is one). */
	for (i = 0; i < np; i++)
		mask[i] = rqd->smt_idle[i] && aff[i];
	if ((ipid = mask_test_or_cycle(cpu, mask, np)) >= 0)
		goto tickle_idle;
	/* Then any idle pCPU that nobody tickled yet. */
	for (i = 0; i < np; i++)
		mask[i] = rqd->idle[i] && !rqd->tickled[i] && aff[i];
	if ((ipid = mask_test_or_cycle(cpu, mask, np)) >= 0)
		goto tickle_idle;
	/* Busy, untickled pCPUs: its own first, taken if new may preempt there. */
	for (i = 0; i < np; i++)
		mask[i] = rqd->active[i] && !rqd->idle[i] && !rqd->tickled[i] && aff[i];
	if (mask[cpu]) {
		int64_t score = tickle_score(pr, now, new, cpu);

		mask[cpu] = 0;
		if (score > max) {
			ipid = cpu;
			goto tickle_busy;
		}
	}
	for (i = 0; i < np; i++) {
		int64_t score;

		if (!mask[i])
			continue;
		score = tickle_score(pr, now, new, i);
		if (score > max) {
			max = score;
			ipid = i;
		}
	}
	if (ipid == -1) {
		pr->st.tickle_none++;
		return;
	}
tickle_busy:
	pr->st.tickle_busy++;
	tickle_cpu(pr, ipid, rqd);
	new->tickled_cpu = ipid;
	return;
tickle_idle:
	pr->st.tickle_idle++;
	tickle_cpu(pr, ipid, rqd);
	new->tickled_cpu = ipid;
}

/* ---- caps: budget pools ---- */

/* Xen 4.19 credit2.c: park_unit - no budget: not runnable until replenished */
static void
park_unit(struct csched2_priv *pr, struct csched2_unit *svc, sim_time_t now)
{
	svc->parked = 1;
	pr->st.parks++;
	if (svc->on_runq) {
		runq_remove(svc);
		update_load(pr, svc->rqd, svc, -1, now);
	}
	TAILQ_INSERT_HEAD(&svc->sdom->parked, svc, parked_elem);
}

/* Xen 4.19 credit2.c: unit_grab_budget - a quota from the domain's pool
 * (an overrun paid back first), else park */
static int
unit_grab_budget(struct csched2_priv *pr, struct csched2_unit *svc, sim_time_t now)
{
	struct csched2_dom *sdom = svc->sdom;

	if (svc->budget > 0)
		return 1;
	sdom->budget += svc->budget;
	if (sdom->budget > 0) {
		svc->budget = sdom->budget >= svc->budget_quota ? svc->budget_quota :
		    sdom->budget;
		sdom->budget -= svc->budget;
	} else {
		svc->budget = 0;
		park_unit(pr, svc, now);
	}
	return svc->budget > 0;
}

/* Xen 4.19 credit2.c: unit_return_budget - what it did not use goes back;
 * with budget in the pool, the parked vCPUs move to *parked */
static void
unit_return_budget(struct csched2_unit *svc, struct csched2_unit_list *parked)
{
	struct csched2_dom *sdom = svc->sdom;

	sdom->budget += svc->budget;
	svc->budget = 0;
	if (sdom->budget > 0)
		TAILQ_CONCAT(parked, &sdom->parked, parked_elem);
}

/* Xen 4.19 credit2.c: unpark_parked_units */
static void
unpark_parked_units(struct csched2_priv *pr, struct csched2_unit_list *units, sim_time_t now)
{
	struct csched2_unit *svc;

	while ((svc = TAILQ_FIRST(units)) != NULL) {
		TAILQ_REMOVE(units, svc, parked_elem);
		svc->parked = 0;
		if (svc->scheduled) {
			svc->delayed_runq_add = 1;
		} else if (runnable(svc) && !is_current(pr, svc->v)) {
			update_load(pr, svc->rqd, svc, 1, now);
			runq_insert(svc);
			runq_tickle(pr, svc, now);
		}
	}
}

/* Xen 4.19 credit2.c: replenish_domain_budget - every cap period */
static void
replenish_ev(void *s, void *arg, int64_t data)
{
	struct csched2_dom *sdom = arg;
	struct csched2_priv *pr = sdom->pr;
	sim_time_t now = pr->hv->sim->now;
	struct csched2_unit_list parked = TAILQ_HEAD_INITIALIZER(parked);

	(void)s;
	(void)data;
	pr->st.replenishments++;
	do {	/* do_replenish, again if a whole period was missed */
		sdom->next_repl += pr->cfg.cap_period_ns;
		sdom->budget += sdom->tot_budget;
	} while (sdom->next_repl <= now);
	if (sdom->budget > 0) {
		if (sdom->budget > sdom->tot_budget)
			sdom->budget = sdom->tot_budget;
		TAILQ_CONCAT(&parked, &sdom->parked, parked_elem);
		unpark_parked_units(pr, &parked, now);
	}
	sdom->repl_ev = sim_at(pr->hv->sim, sdom->next_repl, replenish_ev, sdom, 0);
}

/* ---- pCPU choice and migration ---- */

/* Xen 4.19 credit2.c: csched2_res_pick - the runqueue of least b_avgload
 * (its own counted without itself), a pCPU of it from pick_bias on. */
static int
res_pick(struct csched2_priv *pr, struct csched2_unit *svc)
{
	const unsigned char *aff = svc->v->affinity;
	struct csched2_rqd *min_rqd = NULL;
	int64_t min_avgload = INT64_MAX;
	int np = pr->hv->npcpus, k, i, cpu, requested = 0;

	/* Asked to move by balance_load: go there. */
	if (svc->migrate_request) {
		svc->migrate_request = 0;
		if (mask_intersects(aff, svc->migrate_rqd->active, np)) {
			min_rqd = svc->migrate_rqd;
			requested = 1;
		}
	}
	/* Else the least loaded runqueue where it may run. */
	for (k = 0; !requested && k < pr->nrqd; k++) {
		struct csched2_rqd *rqd = &pr->rqds[k];
		int64_t l;

		if (!mask_intersects(aff, rqd->active, np))
			continue;
		l = rqd == svc->rqd ? rqd->b_avgload - svc->avgload : rqd->b_avgload;
		if (l < 0)
			l = 0;
		if (l < min_avgload) {
			min_avgload = l;
			min_rqd = rqd;
		}
	}
	VS_ASSERT(min_rqd != NULL);
	for (i = 0; i < np; i++)
		pr->scratch[i] = aff[i] && min_rqd->active[i];
	cpu = mask_cycle(min_rqd->pick_bias, pr->scratch, np);
	VS_ASSERT(cpu >= 0);
	min_rqd->pick_bias = cpu;
	return cpu;
}

/* Xen 4.19 credit2.c: migrate - move svc to trqd now, or (running) flag it
 * to move when it is switched out. */
static void
migrate(struct csched2_priv *pr, struct csched2_unit *svc, struct csched2_rqd *trqd,
    sim_time_t now)
{
	struct vcpu *v = svc->v;
	int np = pr->hv->npcpus, i, on;

	pr->st.migrations++;
	if (svc->scheduled) {
		svc->migrate_rqd = trqd;
		svc->migrating = 1;
		svc->migrate_request = 1;
		tickle_cpu(pr, v->processor, svc->rqd);
		return;
	}
	on = svc->on_runq;
	if (on) {
		runq_remove(svc);
		update_load(pr, svc->rqd, NULL, -1, now);
	}
	runq_deassign(svc);
	for (i = 0; i < np; i++)
		pr->scratch[i] = v->affinity[i] && trqd->active[i];
	v->processor = mask_cycle(trqd->pick_bias, pr->scratch, np);
	VS_ASSERT(v->processor >= 0);
	trqd->pick_bias = v->processor;
	runq_assign(svc, trqd);
	if (on) {
		update_load(pr, svc->rqd, NULL, 1, now);
		runq_insert(svc);
		runq_tickle(pr, svc, now);
	}
}

/* Xen 4.19 credit2.c: unit_is_migrateable */
static int
unit_is_migrateable(const struct csched2_priv *pr, const struct csched2_unit *svc,
    const struct csched2_rqd *rqd)
{
	return !svc->migrate_request && mask_intersects(svc->v->affinity, rqd->active,
	    pr->hv->npcpus);
}

struct balance_state {
	int64_t load_delta;
	struct csched2_unit *best_push, *best_pull;
	struct csched2_rqd *lrqd, *orqd;
};

/* Xen 4.19 credit2.c: consider - the load difference after a push/pull/swap */
static void
consider(struct balance_state *st, struct csched2_unit *push, struct csched2_unit *pull)
{
	int64_t l_load = st->lrqd->b_avgload, o_load = st->orqd->b_avgload, delta;

	if (push != NULL) {
		l_load -= push->avgload;
		o_load += push->avgload;
	}
	if (pull != NULL) {
		l_load += pull->avgload;
		o_load -= pull->avgload;
	}
	delta = l_load - o_load;
	if (delta < 0)
		delta = -delta;
	if (delta < st->load_delta) {
		st->load_delta = delta;
		st->best_push = push;
		st->best_pull = pull;
	}
}

/* Xen 4.19 credit2.c: balance_load - with the runqueue of the largest load
 * difference, the push, pull or swap that leaves the least difference. */
static void
balance_load(struct csched2_priv *pr, int cpu, sim_time_t now)
{
	struct balance_state st = { 0, NULL, NULL, pr->pcpus[cpu].rqd, NULL };
	struct csched2_rqd *max_delta_rqd = NULL;
	struct csched2_unit *push, *pull;
	int P = pr->cfg.load_precision_shift, k, inner_load_updated = 0, cpus_max;
	int64_t load_max;

	update_runq_load(pr, st.lrqd, 0, now);
	for (k = 0; k < pr->nrqd; k++) {
		int64_t delta;

		st.orqd = &pr->rqds[k];
		if (st.orqd == st.lrqd)
			continue;
		update_runq_load(pr, st.orqd, 0, now);
		delta = st.lrqd->b_avgload - st.orqd->b_avgload;
		if (delta < 0)
			delta = -delta;
		if (delta > st.load_delta) {
			st.load_delta = delta;
			max_delta_rqd = st.orqd;
		}
	}
	if (max_delta_rqd == NULL)
		return;
	/* As Xen 4.19 does, capacity is judged against st.orqd, which is the
	 * last runqueue of the loop above, not necessarily max_delta_rqd. */
	load_max = st.lrqd->b_avgload > st.orqd->b_avgload ? st.lrqd->b_avgload :
	    st.orqd->b_avgload;
	cpus_max = st.lrqd->nr_cpus > st.orqd->nr_cpus ? st.lrqd->nr_cpus : st.orqd->nr_cpus;
	/* Under 100% capacity move only for a difference of more than one vCPU
	 * (credit2_balance_under), else of more than 1/8 (credit2_balance_over). */
	if (load_max < ((int64_t)cpus_max << P)) {
		if (st.load_delta < (1LL << (P + pr->cfg.balance_under)))
			return;
	} else if (st.load_delta < (1LL << (P + pr->cfg.balance_over))) {
		return;
	}
	st.orqd = max_delta_rqd;
	TAILQ_FOREACH(push, &st.lrqd->svc, rqd_elem) {
		update_svc_load(pr, push, 0, now);
		if (!unit_is_migrateable(pr, push, st.orqd))
			continue;
		TAILQ_FOREACH(pull, &st.orqd->svc, rqd_elem) {
			if (!inner_load_updated)
				update_svc_load(pr, pull, 0, now);
			if (!unit_is_migrateable(pr, pull, st.lrqd))
				continue;
			consider(&st, push, pull);
		}
		inner_load_updated = 1;
		consider(&st, push, NULL);
	}
	TAILQ_FOREACH(pull, &st.orqd->svc, rqd_elem) {
		if (!unit_is_migrateable(pr, pull, st.lrqd))
			continue;
		consider(&st, NULL, pull);
	}
	if (st.best_push != NULL || st.best_pull != NULL)
		pr->st.balances++;
	if (st.best_push != NULL)
		migrate(pr, st.best_push, st.orqd, now);
	if (st.best_pull != NULL)
		migrate(pr, st.best_pull, st.lrqd, now);
}

/* ---- wake, sleep, yield ---- */

/* Xen 4.19 credit2.c: csched2_unit_wake, after the "running or queued" checks */
static void
wake_svc(struct csched2_priv *pr, struct csched2_unit *svc, sim_time_t now)
{
	VS_ASSERT(!svc->scheduled);	/* no delayed_runq_add window here */
	update_load(pr, svc->rqd, svc, 1, now);
	runq_insert(svc);
	runq_tickle(pr, svc, now);
}

static void
csched2_wake(struct hv *hv, struct vcpu *v)
{
	struct csched2_priv *pr = hv->sched_priv;
	struct csched2_unit *svc = csched2_unit(v);

	if (is_current(pr, v) || svc->on_runq || svc->migrating || svc->parked)
		return;
	wake_svc(pr, svc, hv->sim->now);
}

/* Xen 4.19 credit2.c: csched2_unit_sleep */
static void
csched2_sleep(struct hv *hv, struct vcpu *v)
{
	struct csched2_priv *pr = hv->sched_priv;
	struct csched2_unit *svc = csched2_unit(v);

	if (is_current(pr, v)) {
		tickle_cpu(pr, v->processor, svc->rqd);
	} else if (svc->on_runq) {
		update_load(pr, svc->rqd, svc, -1, hv->sim->now);
		runq_remove(svc);
	}
}

/* Xen 4.19 credit2.c: csched2_unit_yield (the core raises the softirq) */
static void
csched2_yield(struct hv *hv, struct vcpu *v)
{
	csched2_unit(v)->yield = 1;
}

/* ---- schedule ---- */

/* Xen 4.19 credit2.c: runq_candidate - scurr (NULL: idle) or a better vCPU
 * of the runqueue. */
static struct csched2_unit *
runq_candidate(struct csched2_priv *pr, struct csched2_rqd *rqd, struct csched2_unit *scurr,
    int cpu, sim_time_t now)
{
	struct csched2_unit *snext = NULL, *svc, *next;
	int yield = 0;

	if (scurr != NULL) {
		yield = scurr->yield;
		scurr->yield = 0;
		/* Rate limit: keep a runnable scurr that ran less than ratelimit
		 * (not when it yields: it may be about to spin). */
		if (!yield && pr->cfg.ratelimit_ns > 0 && runnable(scurr) &&
		    now - scurr->entry_time < pr->cfg.ratelimit_ns) {
			pr->st.ratelimited++;
			return scurr;
		}
		if (runnable(scurr))
			snext = scurr;
	}
	for (svc = TAILQ_FIRST(&rqd->runq); svc != NULL; svc = next) {
		int snext_credit = snext != NULL ? snext->credit : (int)CSCHED2_IDLE_CREDIT;

		next = TAILQ_NEXT(svc, runq_elem);	/* grabbing budget may park svc */
		/* Sorted by credit: nothing better further on (unless yielding). */
		if (!yield && svc->credit <= snext_credit)
			break;
		if (!runnable(svc) || !svc->v->affinity[cpu])
			continue;
		/* Tickled for another pCPU that has not scheduled yet: leave it. */
		if (svc->tickled_cpu != -1 && svc->tickled_cpu != cpu &&
		    rqd->tickled[svc->tickled_cpu])
			continue;
		/* From another pCPU only with CSCHED2_MIGRATE_RESIST more credit. */
		if (svc->v->processor != cpu &&
		    (int64_t)snext_credit + pr->cfg.migrate_resist_ns > svc->credit)
			continue;
		/* Capped: only with budget (the last check: grabbing has effects). */
		if (has_cap(svc) && !unit_grab_budget(pr, svc, now))
			continue;
		snext = svc;
		break;
	}
	return snext;
}

/* Xen 4.19 credit2.c: csched2_runtime - until snext's credit reaches the
 * next waiter's (or 0), within [MIN_TIMER or what is left of ratelimit,
 * MAX_TIMER]; 0: idle, no timer. */
static sim_time_t
csched2_runtime(struct csched2_priv *pr, struct csched2_rqd *rqd, struct csched2_unit *snext,
    int still_running, sim_time_t now)
{
	struct csched2_unit *swait = TAILQ_FIRST(&rqd->runq);
	sim_time_t time, min_time = CSCHED2_MIN_TIMER;
	int64_t rt_credit;

	if (snext == NULL)
		return 0;
	if (pr->cfg.ratelimit_ns > 0) {
		sim_time_t rl = pr->cfg.ratelimit_ns;

		if (still_running)
			rl = snext->entry_time + pr->cfg.ratelimit_ns - now;
		if (rl > min_time)
			min_time = rl;
	}
	rt_credit = snext->credit;
	if (swait != NULL && swait->credit > 0)
		rt_credit = (int64_t)snext->credit - swait->credit;
	time = rt_credit > 0 ? c2t(rqd, rt_credit, snext) : 0;
	if (has_cap(snext) && snext->budget < time)
		time = snext->budget;	/* never beyond the budget */
	if (time < min_time)
		time = min_time;
	else if (time > CSCHED2_MAX_TIMER)
		time = CSCHED2_MAX_TIMER;
	return time;
}

/* schedule.c sched_unit_migrate_finish: pick a pCPU, move there
 * (csched2_unit_migrate), clear _VPF_migrating and wake. */
static void
migrate_finish(struct csched2_priv *pr, struct csched2_unit *svc, sim_time_t now)
{
	int cpu = res_pick(pr, svc);
	struct csched2_rqd *trqd = pr->pcpus[cpu].rqd;

	if (trqd != svc->rqd)
		migrate(pr, svc, trqd, now);
	else
		svc->v->processor = cpu;
	svc->migrating = 0;
	if (runnable(svc))
		wake_svc(pr, svc, now);
}

/* Xen 4.19 credit2.c: csched2_context_saved - prev off its pCPU: back on
 * the runqueue (and tickle for it) if it is still runnable. */
static void
context_saved(struct csched2_priv *pr, struct csched2_unit *svc, sim_time_t now)
{
	struct csched2_unit_list parked = TAILQ_HEAD_INITIALIZER(parked);
	int add;

	svc->scheduled = 0;
	if (has_cap(svc) && svc->budget > 0)
		unit_return_budget(svc, &parked);
	add = svc->delayed_runq_add;
	svc->delayed_runq_add = 0;
	if (add && runnable(svc)) {
		runq_insert(svc);
		runq_tickle(pr, svc, now);
	} else {
		update_load(pr, svc->rqd, svc, -1, now);
	}
	if (svc->migrating)
		migrate_finish(pr, svc, now);
	unpark_parked_units(pr, &parked, now);
}

/* Xen 4.19 credit2.c: csched2_schedule */
static struct vcpu *
csched2_do_schedule(struct hv *hv, struct pcpu *p, sim_time_t *slice)
{
	struct csched2_priv *pr = hv->sched_priv;
	int cpu = p->id;
	struct csched2_pcpu *spc = &pr->pcpus[cpu];
	struct csched2_rqd *rqd = spc->rqd;
	struct csched2_unit *scurr = p->curr != NULL ? csched2_unit(p->curr) : NULL, *snext;
	sim_time_t now = hv->sim->now;

	VS_ASSERT(spc->curr == p->curr);
	if (rqd->tickled[cpu]) {
		rqd->tickled[cpu] = 0;
		smt_idle_mask_set(pr, cpu, idle_untickled(pr, rqd), rqd->smt_idle);
	}
	if (scurr != NULL) {
		burn_credits(scurr, now);
		/* Capped and overrun: more budget, or parked. */
		if (scurr->budget <= 0)
			unit_grab_budget(pr, scurr, now);
	}
	snext = runq_candidate(pr, rqd, scurr, cpu, now);
	if (snext != scurr && scurr != NULL && runnable(scurr))
		scurr->delayed_runq_add = 1;
	if (snext != NULL) {
		struct csched2_unit *head;
		int top_credit;

		if (snext != scurr) {
			runq_remove(snext);
			snext->scheduled = 1;
		} else {
			update_load(pr, rqd, snext, 0, now);
		}
		if (rqd->idle[cpu]) {
			rqd->idle[cpu] = 0;
			smt_idle_mask_clear(pr, cpu, rqd->smt_idle);
		}
		/* An epoch ends when the best runnable vCPU has no credit left. */
		head = TAILQ_FIRST(&rqd->runq);
		top_credit = head != NULL && head->credit > snext->credit ? head->credit :
		    snext->credit;
		if (top_credit <= CSCHED2_CREDIT_RESET) {
			reset_credit(pr, cpu, now, snext);
			balance_load(pr, cpu, now);
		}
		snext->start_time = now;
		snext->tickled_cpu = -1;
		/* Pulled from another pCPU of the runqueue: compensate. */
		if (snext->v->processor != cpu) {
			snext->credit += CSCHED2_MIGRATE_COMPENSATION;
			snext->v->processor = cpu;
			pr->st.pulls++;
		}
	} else {
		if (!rqd->idle[cpu]) {
			rqd->idle[cpu] = 1;
			smt_idle_mask_set(pr, cpu, idle_untickled(pr, rqd), rqd->smt_idle);
		}
		update_load(pr, rqd, NULL, 0, now);
	}
	*slice = csched2_runtime(pr, rqd, snext, snext == scurr, now);
	if (snext != scurr) {
		if (snext != NULL)
			snext->entry_time = now;
		spc->curr = snext != NULL ? snext->v : NULL;
		if (scurr != NULL)
			context_saved(pr, scurr, now);
	}
	return snext != NULL ? snext->v : NULL;
}

/* ---- set-up ---- */

/* Xen 4.19 credit2.c: cpu_runqueue_match (node = socket here) */
static int
runqueue_match(const struct csched2_priv *pr, const struct csched2_rqd *rqd, int cpu)
{
	const struct machine *m = pr->hv->m;
	int peer = rqd->pick_bias;

	switch (pr->cfg.runqueue) {
	case CSCHED2_RQ_ALL:
		return 1;
	case CSCHED2_RQ_CORE:
		return machine_core_of(m, peer) == machine_core_of(m, cpu);
	case CSCHED2_RQ_SOCKET:
	case CSCHED2_RQ_NODE:
		return machine_socket_of(m, peer) == machine_socket_of(m, cpu);
	case CSCHED2_RQ_CPU:
		break;
	}
	return 0;
}

/* Xen 4.19 credit2.c: cpu_runqueue_siblings_match - room for cpu and all its
 * SMT siblings (those of the CPUs already there counted whole). */
static int
runqueue_siblings_match(const struct csched2_priv *pr, const struct csched2_rqd *rqd,
    int cpu, int max_cpus_runq)
{
	const struct machine *m = pr->hv->m;
	int np = pr->hv->npcpus, tpc = m->threads_per_core, rcpu, i, tot = 0;
	unsigned char *counted = pr->scratch;

	memset(counted, 0, (size_t)np);
	for (rcpu = 0; rcpu < np; rcpu++) {
		if (!rqd->active[rcpu] || counted[rcpu])
			continue;
		for (i = 0; i < np; i++)
			if (hw_siblings(m, i, rcpu))
				counted[i] = 1;
		tot += tpc;
	}
	return tot + tpc <= max_cpus_runq;
}

/* Xen 4.19 credit2.c: cpu_add_to_runqueue - CPUs spread evenly over the
 * runqueues the topology allows, at most max_cpus_runq each */
static struct csched2_rqd *
cpu_add_to_runqueue(struct csched2_priv *pr, int cpu)
{
	int np = pr->hv->npcpus, min_rqs, max_cpus_runq, k, i;
	struct csched2_rqd *rqd, *valid = NULL;

	min_rqs = (np - 1) / pr->cfg.max_cpus_runqueue + 1;
	max_cpus_runq = np / min_rqs;
	for (k = 0; k < pr->nrqd; k++) {
		int sib = 0;

		rqd = &pr->rqds[k];
		if (!runqueue_match(pr, rqd, cpu))
			continue;
		/* Keep SMT siblings together, whatever the limit. */
		for (i = 0; i < np; i++)
			if (rqd->active[i] && hw_siblings(pr->hv->m, i, cpu))
				sib = 1;
		if (sib) {
			valid = rqd;
			break;
		}
		if (rqd->refcnt < max_cpus_runq &&
		    (runqueue_siblings_match(pr, rqd, cpu, max_cpus_runq) ||
		    pr->cfg.runqueue == CSCHED2_RQ_ALL) &&
		    (valid == NULL || rqd->refcnt < valid->refcnt))
			valid = rqd;
	}
	if (valid == NULL) {
		valid = &pr->rqds[pr->nrqd];
		valid->id = pr->nrqd++;
		valid->pick_bias = cpu;
		TAILQ_INIT(&valid->runq);
		TAILQ_INIT(&valid->svc);
		valid->active = xcalloc((size_t)np, 1);
		valid->idle = xcalloc((size_t)np, 1);
		valid->tickled = xcalloc((size_t)np, 1);
		valid->smt_idle = xcalloc((size_t)np, 1);
	}
	valid->refcnt++;
	return valid;
}

/* Xen 4.19 credit2.c: init_cpu_runqueue - cpu joins rqd, idle */
static void
init_cpu_runqueue(struct csched2_priv *pr, int cpu, struct csched2_rqd *rqd)
{
	struct csched2_pcpu *spc = &pr->pcpus[cpu];
	int np = pr->hv->npcpus, rcpu;

	spc->rqd = rqd;
	if (rqd->nr_cpus == 0)
		rqd->max_weight = 1;
	spc->sibling_mask[cpu] = 1;
	if (rqd->nr_cpus > 0)
		for (rcpu = 0; rcpu < np; rcpu++)
			if (rqd->active[rcpu] && hw_siblings(pr->hv->m, rcpu, cpu)) {
				pr->pcpus[rcpu].sibling_mask[cpu] = 1;
				spc->sibling_mask[rcpu] = 1;
			}
	rqd->idle[cpu] = rqd->active[cpu] = rqd->smt_idle[cpu] = 1;
	rqd->nr_cpus++;
	if (rqd->nr_cpus == 1)
		rqd->pick_bias = cpu;
}

static void
set_weight(void *ctx, int vm, int val)
{
	((struct csched2_priv *)ctx)->doms[vm].weight = val;
}

static void
set_cap(void *ctx, int vm, int val)
{
	((struct csched2_priv *)ctx)->doms[vm].cap = val;
}

static int
csched2_init(struct hv *hv, const void *cfgp, struct vs_err *err)
{
	const struct csched2_cfg *cfg = cfgp;	/* csched2_parse's, defaults included */
	struct csched2_priv *pr = xcalloc(1, sizeof *pr);
	int np = hv->npcpus, i, c;
	sim_time_t now = hv->sim->now;

	hv->sched_priv = pr;
	pr->hv = hv;
	pr->cfg = *cfg;
	pr->cfg.wc = (struct sched_pervm_wc){ 0 };	/* not owned */
	/* csched2_init: the window in units of 2^GRANULARITY ns */
	pr->window_shift = cfg->load_window_shift - LOADAVG_GRANULARITY_SHIFT;
	pr->rqds = xcalloc((size_t)np, sizeof *pr->rqds);
	pr->pcpus = xcalloc((size_t)np, sizeof *pr->pcpus);
	pr->units = xcalloc((size_t)hv->nvcpus, sizeof *pr->units);
	pr->doms = xcalloc((size_t)hv->nvms, sizeof *pr->doms);
	pr->mask = xcalloc((size_t)np, 1);
	pr->scratch = xcalloc((size_t)np, 1);
	/* CPUs come up in order: csched2_alloc_pdata, then csched2_switch_sched */
	for (c = 0; c < np; c++) {
		pr->pcpus[c].sibling_mask = xcalloc((size_t)np, 1);
		init_cpu_runqueue(pr, c, cpu_add_to_runqueue(pr, c));
	}
	for (i = 0; i < hv->nvms; i++) {
		pr->doms[i].pr = pr;
		pr->doms[i].weight = CSCHED2_DEFAULT_WEIGHT;
		pr->doms[i].nr_units = hv->vms[i]->nvcpus;
		TAILQ_INIT(&pr->doms[i].parked);
	}
	if (sched_pervm_wc_apply(hv, &cfg->wc, set_weight, set_cap, pr, err))
		return -1;
	/* csched2_dom_cntl putinfo before the domain runs: the cap's budget per
	 * period, the first replenishment one period on. */
	for (i = 0; i < hv->nvms; i++) {
		struct csched2_dom *sdom = &pr->doms[i];

		if (sdom->cap == 0)
			continue;
		if (sdom->cap > 100 * sdom->nr_units)
			return vs_errf(err, NULL, 0, 0, "%s: caps: %d%% for vm '%s' is more "
			    "than 100%% x its %d vCPUs", hv->vms[i]->where, sdom->cap,
			    hv->vms[i]->name, sdom->nr_units);
		sdom->tot_budget = cfg->cap_period_ns * sdom->cap / 100;
		sdom->budget = sdom->tot_budget;
		sdom->next_repl = now + cfg->cap_period_ns;
		sdom->repl_ev = sim_at(hv->sim, sdom->next_repl, replenish_ev, sdom, 0);
	}
	for (i = 0; i < hv->nvcpus; i++) {
		struct vcpu *v = hv->vcpus[i];
		struct csched2_unit *svc = &pr->units[i];
		int naff = 0;

		VS_ASSERT(v->id == i);
		for (c = 0; c < np; c++)
			naff += v->affinity[c] != 0;
		if (naff == 0)
			return vs_errf(err, NULL, 0, 0, "%s: vm '%s' has an empty affinity",
			    v->vm->where, v->vm->name);
		/* csched2_alloc_udata: full credit, a starting load of 50% */
		svc->v = v;
		svc->sdom = &pr->doms[v->vm->id];
		svc->credit = CSCHED2_CREDIT_INIT;
		svc->weight = svc->sdom->weight;
		/* Uncapped: no budget accounting; capped: a quota of 1/N of the
		 * domain's budget (at least CSCHED2_MIN_TIMER), none in hand yet. */
		svc->budget = svc->sdom->cap == 0 ? INT64_MAX : 0;
		if (svc->sdom->cap != 0) {
			svc->budget_quota = svc->sdom->tot_budget / svc->sdom->nr_units;
			if (svc->budget_quota < CSCHED2_MIN_TIMER)
				svc->budget_quota = CSCHED2_MIN_TIMER;
		}
		svc->avgload = 1LL << (cfg->load_precision_shift - 1);
		svc->load_last_update = now >> LOADAVG_GRANULARITY_SHIFT;
		svc->tickled_cpu = -1;
		svc->pinned = naff == 1;	/* csched2_aff_cntl */
		v->sched_priv = svc;
		/* csched2_unit_insert: res_pick, then runq_assign */
		v->processor = res_pick(pr, svc);
		runq_assign(svc, pr->pcpus[v->processor].rqd);
	}
	/* Domain unpause: every runnable vCPU is woken. */
	for (i = 0; i < hv->nvcpus; i++)
		if (!pr->units[i].v->blocked)
			wake_svc(pr, &pr->units[i], now);
	hv->tick_ns = 0;	/* credit2 has no tick: only the runtime timer */
	return 0;
}

static void
csched2_deinit(struct hv *hv)
{
	struct csched2_priv *pr = hv->sched_priv;
	int i;

	for (i = 0; i < hv->nvcpus; i++)
		hv->vcpus[i]->sched_priv = NULL;
	for (i = 0; i < hv->nvms; i++)
		if (pr->doms[i].cap != 0)
			sim_cancel(hv->sim, &pr->doms[i].repl_ev);
	for (i = 0; i < pr->nrqd; i++) {
		free(pr->rqds[i].active);
		free(pr->rqds[i].idle);
		free(pr->rqds[i].tickled);
		free(pr->rqds[i].smt_idle);
	}
	for (i = 0; i < hv->npcpus; i++)
		free(pr->pcpus[i].sibling_mask);
	free(pr->rqds);
	free(pr->pcpus);
	free(pr->units);
	free(pr->doms);
	free(pr->mask);
	free(pr->scratch);
	free(pr);
	hv->sched_priv = NULL;
}

/* ---- parameters ---- */

static void
csched2_free_cfg(void *p)
{
	struct csched2_cfg *cfg = p;

	if (cfg == NULL)
		return;
	sched_pervm_wc_free(&cfg->wc);
	free(cfg);
}

static const char *const csched2_arrs[] = { "cpu", "core", "socket", "node", "all", NULL };

/* hypervisor.params of credit2: Xen sched_credit2.c and its boot parameters. */
static const struct vs_param csched2_params[] = {
	{ "runqueue", NULL, "credit2_runqueue: one run queue per cpu|core|socket|node|all",
	  "enum cpu|core|socket|node|all", "", VP_ENUM, VS_AT(struct csched2_cfg, runqueue), 0, 0,
	  CSCHED2_RQ_SOCKET, csched2_arrs },
	{ "max_cpus_runqueue", NULL, "sched_credit2_max_cpus_runqueue", "int", "",
	  VP_INT, VS_AT(struct csched2_cfg, max_cpus_runqueue), 1, 4096, 16, NULL },
	/* sched_ratelimit_us: 0 (off) or XEN_SYSCTL_SCHED_RATELIMIT_MIN..MAX */
	{ "ratelimit", NULL, "sched_ratelimit_us", "time", "ns",
	  VP_TIME, VS_AT(struct csched2_cfg, ratelimit_ns), 0, 5e8, 1000 * C2_US, NULL },
	{ "migrate_resist", NULL, "sched_credit2_migrate_resist", "time", "ns",
	  VP_TIME, VS_AT(struct csched2_cfg, migrate_resist_ns), 0, 1e9, 500 * C2_US, NULL },
	/* Shifts kept where the Q-format products fit in 63 bits. */
	{ "load_window_shift", NULL, "LOADAVG_WINDOW_SHIFT: load averaging window (2^N ns)",
	  "int", "", VP_INT, VS_AT(struct csched2_cfg, load_window_shift),
	  LOADAVG_GRANULARITY_SHIFT + 1, 34, LOADAVG_WINDOW_SHIFT, NULL },
	{ "load_precision_shift", NULL, "credit2_load_precision_shift", "int", "",
	  VP_INT, VS_AT(struct csched2_cfg, load_precision_shift), 4, 24,
	  LOADAVG_PRECISION_SHIFT, NULL },
	{ "balance_under", NULL, "credit2_balance_under", "int", "",
	  VP_INT, VS_AT(struct csched2_cfg, balance_under), -4, 16, 0, NULL },
	{ "balance_over", NULL, "credit2_balance_over", "int", "",
	  VP_INT, VS_AT(struct csched2_cfg, balance_over), -4, 16, -3, NULL },
	{ "weights", "{VM: 256}", "domain weight", "map", "", VS_LIST },
	{ "caps", "{VM: 0}", "domain cap in % of a pCPU (0: none)", "map", "%", VS_LIST },
	/* credit2_cap_period_ms: whole ms (csched2_parse) */
	{ "cap_period", NULL, "credit2_cap_period_ms: budget replenishment period",
	  "time", "ns", VP_TIME, VS_AT(struct csched2_cfg, cap_period_ns), 1e6, 1e9,
	  10 * C2_MS, NULL },
	{ NULL, NULL, NULL, NULL, NULL, VS_LIST }
};

static int
csched2_parse(const struct yc_node *params, double hz, void **cfgp, struct vs_err *err)
{
	struct csched2_cfg *cfg = xcalloc(1, sizeof *cfg);

	*cfgp = cfg;
	if (params != NULL && yc_expect(params, YC_MAP, "a mapping of credit2 parameters", err))
		return -1;
	if (yc_params_read(params, csched2_params, NULL, hz, cfg, err))
		return -1;
	if (cfg->ratelimit_ns != 0 && cfg->ratelimit_ns < 100 * C2_US)
		return yc_err(yc_find(params, "ratelimit"), err,
		    "ratelimit must be 0 (off) or between 100us and 500ms");
	if (cfg->cap_period_ns % C2_MS != 0)
		return yc_err(yc_find(params, "cap_period"), err,
		    "cap_period must be a whole number of ms (credit2_cap_period_ms)");
	if (sched_pervm_wc_parse(params, &cfg->wc, err))
		return -1;
	return yc_params_check(params, csched2_params, NULL, err);
}

const struct sched_ops sched_credit2_ops = {
	.name = "credit2",
	.desc = "Xen 4.19 credit2 scheduler (Xen's default since 4.12)",
	.params = csched2_params,
	.parse = csched2_parse,
	.free_cfg = csched2_free_cfg,
	.init = csched2_init,
	.deinit = csched2_deinit,
	.wake = csched2_wake,
	.sleep = csched2_sleep,
	.do_schedule = csched2_do_schedule,
	.yield = csched2_yield,
};
