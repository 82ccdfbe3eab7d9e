/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sched_credit.c - Xen's credit scheduler, as in Xen 4.1/4.2
 * (xen/common/sched_credit.c; model-reference §1), with three choices of
 * __runq_tickle: upstream 4.2, the Nov 2012 patches of seed 004, Xen 4.3.
 *
 * State, as in Xen: one run queue per pCPU ordered by priority
 * (BOOST > UNDER > OVER), FIFO within a priority; a global idlers mask; per
 * domain a weight, a cap and the list of its *active* vCPUs (those that earn
 * credit); the active domains in a list whose order matters for leftovers.
 *
 * Invariants:
 *  - a vCPU is on at most one run queue, that of v->processor, and only
 *    while it is runnable (not blocked, not parked) and not running;
 *  - pcpus[c].curr is what do_schedule last returned on c (the core's
 *    p->curr after the switch); idlers[c] == (pcpus[c].curr == NULL) except
 *    between a tickle and the softirq, as in Xen;
 *  - the idle vCPU is not queued: "run queue empty" is Xen's "head is idle".
 * There is no concurrency in a simulation: Xen's locks (and trylock failures
 * in load balancing) have no counterpart.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hv/hv.h"
#include "hv/sched.h"
#include "hv/sched_credit.h"
#include "hv/sched_pervm.h"
#include "yconf.h"
#include "yparam.h"

#define MS	1000000LL

/* ---- masks: one byte per pCPU ---- */

/* Xen cpumask_cycle: the next set pCPU after n (-1: from the first),
 * wrapping; -1 if none.  Two runs, n+1..np-1 then 0..n, without a divide
 * per pCPU. */
static inline int
mask_cycle(int n, const unsigned char *m, int np)
{
	int c;

	VS_ASSERT(n >= -1 && n < np);
	for (c = n + 1; c < np; c++)
		if (m[c])
			return c;
	for (c = 0; c <= n; c++)
		if (m[c])
			return c;
	return -1;
}

static int
mask_empty(const unsigned char *m, int np)
{
	int i;

	for (i = 0; i < np; i++)
		if (m[i])
			return 0;
	return 1;
}

/* ---- accessors ---- */

struct csched_priv *
csched_priv(struct hv *hv)
{
	return hv->sched_priv;
}

struct csched_vcpu *
csched_vcpu(struct vcpu *v)
{
	return v->sched_priv;
}

static struct csched_pcpu *
spc_of(struct csched_priv *pr, int cpu)
{
	return &pr->pcpus[cpu];
}

static int
cur_pri(struct csched_priv *pr, int cpu)
{
	struct vcpu *c = pr->pcpus[cpu].curr;

	return c == NULL ? CSCHED_PRI_IDLE : csched_vcpu(c)->pri;
}

static int
on_runq(const struct csched_vcpu *svc)
{
	return svc->rq != NULL;
}

/* ---- run queue ---- */

/* Xen 4.2 sched_credit.c: __runq_insert (with YIELD placement) */
static void
runq_insert(struct csched_priv *pr, struct csched_vcpu *svc)
{
	struct csched_runq *rq = &spc_of(pr, svc->v->processor)->runq;
	struct csched_vcpu *it;

	VS_ASSERT(!on_runq(svc));
	TAILQ_FOREACH(it, rq, runq_elem)
		if (svc->pri > it->pri)
			break;
	/* A yielder goes behind one lower-priority vCPU, if there is one (the
	 * idle vCPU, Xen's queue tail, does not count). */
	if ((svc->flags & CSCHED_FLAG_YIELD) && it != NULL)
		it = TAILQ_NEXT(it, runq_elem);
	if (it != NULL)
		TAILQ_INSERT_BEFORE(it, svc, runq_elem);
	else
		TAILQ_INSERT_TAIL(rq, svc, runq_elem);
	svc->rq = rq;
}

static void
runq_remove(struct csched_vcpu *svc)
{
	VS_ASSERT(on_runq(svc));
	TAILQ_REMOVE(svc->rq, svc, runq_elem);
	svc->rq = NULL;
}

/* Xen 4.2 sched_credit.c: csched_runq_sort - UNDER/BOOST ahead of OVER, stable */
static void
runq_sort(struct csched_priv *pr, int cpu)
{
	struct csched_pcpu *spc = spc_of(pr, cpu);
	struct csched_runq *rq = &spc->runq;
	struct csched_vcpu *elem, *next, *last_under = NULL;	/* NULL: the head */

	if (spc->runq_sort_last == pr->runq_sort)
		return;
	spc->runq_sort_last = pr->runq_sort;
	for (elem = TAILQ_FIRST(rq); elem != NULL; elem = next) {
		next = TAILQ_NEXT(elem, runq_elem);
		if (elem->pri >= CSCHED_PRI_TS_UNDER) {
			if (TAILQ_PREV(elem, csched_runq, runq_elem) != last_under) {
				TAILQ_REMOVE(rq, elem, runq_elem);
				if (last_under == NULL)
					TAILQ_INSERT_HEAD(rq, elem, runq_elem);
				else
					TAILQ_INSERT_AFTER(rq, last_under, elem, runq_elem);
			}
			last_under = elem;
		}
	}
}

/* ---- credit ---- */

/* Xen 4.2 sched_credit.c: burn_credits - rounded to the nearest credit; the
 * residue is carried by advancing start_time by what was charged. */
int
csched_burn_credits(struct csched_vcpu *svc, sim_time_t now)
{
	sim_time_t delta = now - svc->start_time;
	int credits;

	if (delta <= 0)
		return 0;
	credits = (int)((delta * CSCHED_CREDITS_PER_MSEC + MS / 2) / MS);
	svc->credit -= credits;
	svc->start_time += (sim_time_t)credits * MS / CSCHED_CREDITS_PER_MSEC;
	return credits;
}

/* Xen 4.2 sched_credit.c: __csched_vcpu_acct_start (weight is per vCPU) */
static void
acct_start(struct csched_priv *pr, struct csched_vcpu *svc)
{
	struct csched_dom *sdom = svc->sdom;

	if (svc->active)
		return;
	sdom->active_vcpu_count++;
	TAILQ_INSERT_HEAD(&sdom->active_vcpu, svc, active_elem);
	svc->active = 1;
	pr->weight += sdom->weight;
	if (!sdom->active) {
		TAILQ_INSERT_HEAD(&pr->active_sdom, sdom, active_sdom_elem);
		sdom->active = 1;
	}
}

/* Xen 4.2 sched_credit.c: __csched_vcpu_acct_stop_locked */
static void
acct_stop(struct csched_priv *pr, struct csched_vcpu *svc)
{
	struct csched_dom *sdom = svc->sdom;

	VS_ASSERT(svc->active);
	VS_ASSERT(pr->weight >= sdom->weight);
	sdom->active_vcpu_count--;
	TAILQ_REMOVE(&sdom->active_vcpu, svc, active_elem);
	svc->active = 0;
	pr->weight -= sdom->weight;
	if (TAILQ_EMPTY(&sdom->active_vcpu)) {
		TAILQ_REMOVE(&pr->active_sdom, sdom, active_sdom_elem);
		sdom->active = 0;
	}
}

/* Xen 4.2 sched_credit.c: csched_acct, the per-domain share (ceil divisions) */
int
csched_acct_share(struct csched_acct_ctx *c, int weight, int cap, int n, int *vcpu_cap,
    int *to_head)
{
	int64_t peak, fair, ccap = 0, wt = c->weight_total;

	VS_ASSERT(n > 0 && weight > 0 && (int64_t)weight * n <= c->weight_left);
	c->weight_left -= (int64_t)weight * n;
	*to_head = 0;
	/* At most every active vCPU running the whole period, more only to
	 * pay back a negative system-wide balance. */
	peak = (int64_t)n * c->credits_per_tslice;
	if (c->prev_balance < 0)
		peak += (-c->prev_balance * weight * n + (wt - 1)) / wt;
	if (cap != 0) {
		ccap = ((int64_t)cap * c->credits_per_tslice + 99) / 100;
		if (ccap < peak)
			peak = ccap;
		ccap = (ccap + (n - 1)) / n;
	}
	fair = (c->credit_total * weight * n + (wt - 1)) / wt;
	if (fair < peak) {
		c->xtra = 1;
	} else {
		/* Give the other domains what this one cannot use. */
		if (c->weight_left != 0)
			c->credit_total += ((fair - peak) * wt + (c->weight_left - 1)) /
			    c->weight_left;
		if (c->xtra)
			*to_head = 1;
		fair = peak;
	}
	*vcpu_cap = (int)ccap;
	return (int)((fair + (n - 1)) / n);
}

static void csched_wake_svc(struct csched_priv *, struct csched_vcpu *);
static int is_current(struct csched_priv *, struct vcpu *);
static void park(struct csched_priv *, struct csched_vcpu *);

/* Xen 4.2 sched_credit.c: csched_acct - every tslice on the master pCPU */
static void
csched_acct(struct csched_priv *pr)
{
	struct csched_acct_ctx c;
	struct csched_dom *sdom, *ns;
	struct csched_vcpu *svc, *nv;
	int64_t balance = 0;
	int cpt = pr->credits_per_tslice;

	c.credit_total = pr->credit;
	c.weight_total = pr->weight;
	c.weight_left = pr->weight;
	c.prev_balance = pr->credit_balance;
	c.credits_per_tslice = cpt;
	c.xtra = 0;
	/* Converge the balance towards 0 when it went negative. */
	if (pr->credit_balance < 0)
		c.credit_total -= pr->credit_balance;
	if (pr->weight == 0) {
		pr->credit_balance = 0;
		return;
	}
	pr->st.accts++;
	for (sdom = TAILQ_FIRST(&pr->active_sdom); sdom != NULL; sdom = ns) {
		int vcap, to_head, incr;

		ns = TAILQ_NEXT(sdom, active_sdom_elem);
		incr = csched_acct_share(&c, sdom->weight, sdom->cap, sdom->active_vcpu_count,
		    &vcap, &to_head);
		if (to_head) {
			/* Lazily keep domains with extra credit at the head. */
			TAILQ_REMOVE(&pr->active_sdom, sdom, active_sdom_elem);
			TAILQ_INSERT_HEAD(&pr->active_sdom, sdom, active_sdom_elem);
		}
		for (svc = TAILQ_FIRST(&sdom->active_vcpu); svc != NULL; svc = nv) {
			nv = TAILQ_NEXT(svc, active_elem);
			svc->credit += incr;
			if (svc->credit < 0) {
				svc->pri = CSCHED_PRI_TS_OVER;
				/* Park the vCPUs of a capped-out domain. */
				if (sdom->cap != 0 && svc->credit < -vcap &&
				    !(svc->flags & CSCHED_FLAG_PARKED))
					park(pr, svc);
				if (svc->credit < -cpt)
					svc->credit = -cpt;
			} else {
				svc->pri = CSCHED_PRI_TS_UNDER;	/* also ends a BOOST */
				if (svc->flags & CSCHED_FLAG_PARKED) {
					/* vcpu_unpause -> vcpu_wake while still PARKED:
					 * no boost; the flag is cleared after. */
					if (!svc->v->blocked && !is_current(pr, svc->v) &&
					    !on_runq(svc))
						csched_wake_svc(pr, svc);
					svc->flags &= ~CSCHED_FLAG_PARKED;
				}
				/* Credit above one tslice: stop earning, keep half. */
				if (svc->credit > cpt) {
					acct_stop(pr, svc);
					svc->credit /= 2;
				}
			}
			balance += svc->credit;
		}
	}
	pr->credit_balance = balance;
	/* Every pCPU re-sorts its run queue at its next tick. */
	pr->runq_sort++;
}

static void
csched_acct_ev(void *s, void *arg, int64_t data)
{
	struct csched_priv *pr = arg;

	pr->acct_ev = sim_after(pr->hv->sim, pr->cfg.tslice_ns, csched_acct_ev, pr, 0);
	csched_acct(pr);
}

/* ---- pCPU choice ---- */

/* Idlers among [lo, hi). */
static int
idlers_in(const unsigned char *idl, int lo, int hi)
{
	int i, n = 0;

	for (i = lo; i < hi; i++)
		n += idl[i];
	return n;
}

/* Xen 4.2 sched_credit.c: _csched_cpu_pick - the idle pCPU whose group has
 * most idlers: SMT siblings within a socket (factor 1), cores across
 * sockets (factor 2); idle_bias rotates among equals.  A pCPU's core and
 * socket come from the machine's tables (a group's first pCPU is its index
 * times its size), not from divides. */
int
csched_cpu_pick(struct csched_priv *pr, struct vcpu *v, int commit)
{
	struct hv *hv = pr->hv;
	const struct machine *m = hv->m;
	int np = hv->npcpus, tpc = m->threads_per_core, tps = tpc * m->cores_per_socket;
	const unsigned char *aff = v->affinity;
	unsigned char *cpus = pr->pick[0], *idl = pr->pick[1], *nxt_idl = pr->pick[2];
	int i, cpu, nxt, pick_bias = -1;

	cpu = aff[v->processor] ? v->processor : mask_cycle(v->processor, aff, np);
	VS_ASSERT(cpu >= 0);
	memcpy(idl, pr->idlers, (size_t)np);
	if (pr->cfg.tickle != CSCHED_TICKLE_XEN_43)
		idl[cpu] = 1;	/* XEN-4.2: the start pCPU always counts as idle */
	else if (v->processor == cpu && TAILQ_EMPTY(&spc_of(pr, cpu)->runq))
		idl[cpu] = 1;	/* Xen 4.3 (750ec2271d): only if IS_RUNQ_IDLE */
	for (i = 0; i < np; i++)
		cpus[i] = aff[i] && idl[i];
	cpus[cpu] = 0;
	/* (mask_cycle from cpu finds nothing only when cpus is empty) */
	while ((nxt = mask_cycle(cpu, cpus, np)) >= 0) {
		int wc, wn, factor, size, lo;

		if (machine_socket_of(m, nxt) == machine_socket_of(m, cpu)) {
			/* Same socket: compare idle SMT siblings. */
			factor = 1;
			size = tpc;
			wc = idlers_in(idl, machine_core_of(m, cpu) * tpc,
			    machine_core_of(m, cpu) * tpc + tpc);
			lo = machine_core_of(m, nxt) * tpc;
		} else {
			/* Other socket: compare idle threads per socket; move
			 * only if the other one is twice as idle. */
			factor = 2;
			size = tps;
			wc = idlers_in(idl, machine_socket_of(m, cpu) * tps,
			    machine_socket_of(m, cpu) * tps + tps);
			lo = machine_socket_of(m, nxt) * tps;
		}
		wn = idlers_in(idl, lo, lo + size);
		if (wc * factor < wn) {
			int c2;

			/* nxt_idlers &= cpus; pick by nxt's idle_bias */
			memset(nxt_idl, 0, (size_t)np);
			for (i = lo; i < lo + size; i++)
				nxt_idl[i] = cpus[i] && idl[i];
			c2 = mask_cycle(spc_of(pr, nxt)->idle_bias, nxt_idl, np);
			VS_ASSERT(c2 >= 0);
			pick_bias = nxt;
			cpu = c2;
			lo = machine_core_of(m, cpu) * tpc;
			for (i = lo; i < lo + tpc; i++)
				cpus[i] = 0;
		} else {
			for (i = lo; i < lo + size; i++)
				if (idl[i])
					cpus[i] = 0;
		}
	}
	if (commit && pick_bias >= 0)
		spc_of(pr, pick_bias)->idle_bias = cpu;
	return cpu;
}

/* ---- tickling ---- */

/* Raise SCHEDULE_SOFTIRQ on every pCPU of pr->mask. */
static void
raise_mask(struct csched_priv *pr)
{
	struct hv *hv = pr->hv;
	int i;

	memcpy(pr->last_tickled, pr->mask, (size_t)hv->npcpus);
	for (i = 0; i < hv->npcpus; i++)
		if (pr->mask[i]) {
			pr->st.tickles++;
			hv_tickle(hv, &hv->pcpus[i]);
		}
}

/* Add one idler of idle (round-robin from this pCPU's last_tickle_cpu), or
 * all of them, to pr->mask.  The waker's pCPU is unknown to the model, so
 * the rotation state of the target pCPU stands in for Xen's this_cpu. */
static void
tickle_idlers(struct csched_priv *pr, int cpu, const unsigned char *idle)
{
	struct csched_pcpu *spc = spc_of(pr, cpu);
	int np = pr->hv->npcpus, i;

	if (pr->cfg.tickle_one_idle) {
		spc->last_tickle_cpu = mask_cycle(spc->last_tickle_cpu, idle, np);
		pr->mask[spc->last_tickle_cpu] = 1;
	} else {
		for (i = 0; i < np; i++)
			if (idle[i])
				pr->mask[i] = 1;
	}
}

/* Xen 4.2 sched_credit.c: __runq_tickle (and the variants) for new queued on cpu */
static void
runq_tickle(struct csched_priv *pr, int cpu, struct csched_vcpu *new)
{
	int np = pr->hv->npcpus, i, cpri = cur_pri(pr, cpu);
	struct vcpu *cur = spc_of(pr, cpu)->curr;
	unsigned char *idle = pr->scratch;
	int idlers = !mask_empty(pr->idlers, np);

	memset(pr->mask, 0, (size_t)np);
	switch (pr->cfg.tickle) {
	case CSCHED_TICKLE_UPSTREAM_42:
	case CSCHED_TICKLE_PATCHED_2012:
		/* Strictly higher priority than current: preempt it. */
		if (new->pri > cpri)
			pr->mask[cpu] = 1;
		/* A busy pCPU with work queued: tell an idler. */
		if (cpri > CSCHED_PRI_IDLE && idlers) {
			/* Patched (seed 004, fix-tickling): if new will preempt cur,
			 * wake an idler where cur can run, else one where new can. */
			const unsigned char *aff = pr->cfg.tickle == CSCHED_TICKLE_PATCHED_2012 &&
			    new->pri > cpri ? cur->affinity : new->v->affinity;

			for (i = 0; i < np; i++)
				idle[i] = pr->idlers[i] && aff[i];
			if (!mask_empty(idle, np))
				tickle_idlers(pr, cpu, idle);
			/* Upstream limits the mask to new's affinity; the patch
			 * (clarify-cpumask-and-during-tickle) drops that. */
			if (pr->cfg.tickle == CSCHED_TICKLE_UPSTREAM_42)
				for (i = 0; i < np; i++)
					pr->mask[i] = pr->mask[i] && new->v->affinity[i];
		}
		break;
	case CSCHED_TICKLE_XEN_43:
		/* Xen 4.3 __runq_tickle (ebce2d836c): an idle pCPU, or no idlers
		 * and new is better: run it here. */
		if (cpri == CSCHED_PRI_IDLE || (!idlers && new->pri > cpri)) {
			pr->mask[cpu] = 1;
		} else if (idlers) {
			for (i = 0; i < np; i++)
				idle[i] = pr->idlers[i] && new->v->affinity[i];
			if (mask_empty(idle, np)) {
				if (new->pri > cpri) {
					/* No idler for new: kick cur away (it migrates,
					 * probably to an idler) and let new preempt. */
					csched_vcpu(cur)->migrating = 1;
					pr->st.kicked_away++;
					pr->mask[cpu] = 1;
				}
			} else {
				/* Leave cache-hot cur alone; wake idlers for new. */
				tickle_idlers(pr, cpu, idle);
			}
		}
		break;
	}
	raise_mask(pr);
}

/* ---- wake, sleep, park ---- */

/* Xen 4.2 sched_credit.c: csched_vcpu_wake, after the "running or queued" checks */
static void
csched_wake_svc(struct csched_priv *pr, struct csched_vcpu *svc)
{
	/* Boost a waking UNDER vCPU (not one unparking after a cap). */
	if (svc->pri == CSCHED_PRI_TS_UNDER && !(svc->flags & CSCHED_FLAG_PARKED))
		svc->pri = CSCHED_PRI_TS_BOOST;
	runq_insert(pr, svc);
	runq_tickle(pr, svc->v->processor, svc);
}

static int
is_current(struct csched_priv *pr, struct vcpu *v)
{
	return v->processor >= 0 && spc_of(pr, v->processor)->curr == v;
}

static void
csched_wake(struct hv *hv, struct vcpu *v)
{
	struct csched_priv *pr = hv->sched_priv;
	struct csched_vcpu *svc = csched_vcpu(v);

	if (is_current(pr, v) || on_runq(svc))
		return;
	/* schedule.c vcpu_wake: a paused (parked) vCPU is not runnable. */
	if (svc->flags & CSCHED_FLAG_PARKED)
		return;
	csched_wake_svc(pr, svc);
}

/* Xen 4.2 sched_credit.c: csched_vcpu_sleep (the core raises the softirq
 * when v is running) */
static void
csched_sleep(struct hv *hv, struct vcpu *v)
{
	struct csched_priv *pr = hv->sched_priv;
	struct csched_vcpu *svc = csched_vcpu(v);

	if (!is_current(pr, v) && on_runq(svc))
		runq_remove(svc);
}

/* vcpu_pause_nosync of a capped-out vCPU: off its queue, or off its pCPU. */
static void
park(struct csched_priv *pr, struct csched_vcpu *svc)
{
	struct vcpu *v = svc->v;

	svc->flags |= CSCHED_FLAG_PARKED;
	if (is_current(pr, v))
		hv_resched(&pr->hv->pcpus[v->processor], 0);
	else if (on_runq(svc))
		runq_remove(svc);
}

static void
csched_yield(struct hv *hv, struct vcpu *v)
{
	/* Xen 4.2 sched_credit.c: csched_vcpu_yield (the core raises the softirq) */
	csched_vcpu(v)->flags |= CSCHED_FLAG_YIELD;
}

/* ---- tick ---- */

/* Xen 4.2 sched_credit.c: csched_tick -> csched_vcpu_acct, csched_runq_sort */
static void
csched_tick(struct hv *hv, struct pcpu *p)
{
	struct csched_priv *pr = hv->sched_priv;
	struct csched_pcpu *spc = spc_of(pr, p->id);

	spc->tick++;
	if (spc->curr != NULL) {
		struct csched_vcpu *svc = csched_vcpu(spc->curr);

		/* Seen running at a tick: it uses real CPU, no more boost. */
		if (svc->pri == CSCHED_PRI_TS_BOOST)
			svc->pri = CSCHED_PRI_TS_UNDER;
		csched_burn_credits(svc, hv->sim->now);
		if (!svc->active) {
			acct_start(pr, svc);
		} else if (!svc->migrating && csched_cpu_pick(pr, spc->curr, 0) != p->id) {
			/* A more idle core exists: migrate the running vCPU. */
			svc->migrating = 1;
			pr->st.migrations++;
			hv_resched(p, 0);
		}
	}
	runq_sort(pr, p->id);
}

/* ---- schedule ---- */

/* Xen 4.2 sched_credit.c: __csched_vcpu_is_cache_hot - switched out less than
 * vcpu_migration_delay ago (schedule.c sets last_run_time at switch-out).
 * Never run counts as cold: Xen's NOW() at domain creation is far past 0. */
static int
cache_hot(const struct csched_priv *pr, const struct csched_vcpu *svc)
{
	return svc->last_run_time >= 0 &&
	    pr->hv->sim->now - svc->last_run_time < pr->cfg.migration_delay_ns;
}

/* Xen 4.2 sched_credit.c: csched_runq_steal */
static struct csched_vcpu *
runq_steal(struct csched_priv *pr, int peer, int cpu, int pri)
{
	struct csched_vcpu *speer;

	/* An idle peer is about to take its own queued work. */
	if (spc_of(pr, peer)->curr == NULL)
		return NULL;
	TAILQ_FOREACH(speer, &spc_of(pr, peer)->runq, runq_elem) {
		struct vcpu *v = speer->v;

		if (speer->pri <= pri)
			break;
		/* Xen 4.2 sched_credit.c: __csched_vcpu_is_migrateable */
		if (v->pcpu == NULL && !cache_hot(pr, speer) && v->affinity[cpu]) {
			runq_remove(speer);
			v->processor = cpu;
			pr->st.steals++;
			return speer;
		}
	}
	return NULL;
}

/* Xen 4.2 sched_credit.c: csched_load_balance - peers that are not idle, from
 * the next pCPU up; snext (NULL: idle) is the local head, still queued. */
static struct csched_vcpu *
load_balance(struct csched_priv *pr, int cpu, struct csched_vcpu *snext)
{
	int np = pr->hv->npcpus, peer = cpu, pri = snext ? snext->pri : CSCHED_PRI_IDLE;

	/* peer = (cpu + k) % np for k = 1..np-1, without a divide */
	for (;;) {
		struct csched_vcpu *speer;

		if (++peer == np)
			peer = 0;
		if (peer == cpu)
			break;
		if (pr->idlers[peer])
			continue;
		if ((speer = runq_steal(pr, peer, cpu, pri)) != NULL)
			return speer;
	}
	if (snext != NULL)
		runq_remove(snext);
	return snext;
}

/* schedule.c vcpu_migrate after _VPF_migrating: choose a pCPU, then wake
 * there (which boosts an UNDER vCPU, §1.7). */
static void
migrate(struct csched_priv *pr, struct csched_vcpu *svc)
{
	struct vcpu *v = svc->v;

	svc->migrating = 0;
	v->processor = csched_cpu_pick(pr, v, 1);
	if (!v->blocked && !(svc->flags & CSCHED_FLAG_PARKED))
		csched_wake_svc(pr, svc);
}

/* Xen 4.2 sched_credit.c: csched_schedule */
static struct vcpu *
csched_do_schedule(struct hv *hv, struct pcpu *p, sim_time_t *slice)
{
	struct csched_priv *pr = hv->sched_priv;
	struct csched_pcpu *spc = spc_of(pr, p->id);
	struct vcpu *prev = p->curr;
	struct csched_vcpu *scurr = prev ? csched_vcpu(prev) : NULL, *snext;
	sim_time_t now = hv->sim->now, runtime = 0;
	int runnable = 0;

	VS_ASSERT(spc->curr == prev);
	if (scurr != NULL) {
		runtime = now - prev->rs_since;
		csched_burn_credits(scurr, now);
		scurr->start_time -= now;	/* keep the residue across the gap */
		runnable = !prev->blocked && !scurr->migrating &&
		    !(scurr->flags & CSCHED_FLAG_PARKED);
	}
	/* 4.2 rate limit: keep a runnable current for a full ratelimit_us
	 * (whatever raised the softirq; YIELD stays set on this path). */
	if (pr->cfg.ratelimit_ns > 0 && runnable && runtime < pr->cfg.ratelimit_ns) {
		scurr->start_time += now;
		pr->st.ratelimited++;
		*slice = pr->cfg.ratelimit_ns;
		return prev;
	}
	if (runnable)
		runq_insert(pr, scurr);
	snext = TAILQ_FIRST(&spc->runq);
	if (scurr != NULL)
		scurr->flags &= ~CSCHED_FLAG_YIELD;
	/* OVER or nothing: look for better work queued on busy peers. */
	if (snext != NULL && snext->pri > CSCHED_PRI_TS_OVER)
		runq_remove(snext);
	else
		snext = load_balance(pr, p->id, snext);
	pr->idlers[p->id] = snext == NULL;
	spc->curr = snext ? snext->v : NULL;
	if (snext != NULL) {
		snext->start_time += now;
		snext->v->processor = p->id;
	}
	/* Xen 4.2 schedule.c: schedule - prev->last_run_time = now on a switch */
	if (scurr != NULL && snext != scurr)
		scurr->last_run_time = now;
	if (scurr != NULL && scurr->migrating)
		migrate(pr, scurr);
	*slice = snext ? pr->cfg.tslice_ns : 0;
	return snext ? snext->v : NULL;
}

/* ---- set-up ---- */

static void
set_weight(void *ctx, int vm, int val)
{
	((struct csched_priv *)ctx)->doms[vm].weight = val;
}

static void
set_cap(void *ctx, int vm, int val)
{
	((struct csched_priv *)ctx)->doms[vm].cap = val;
}

static int
csched_init(struct hv *hv, const void *cfgp, struct vs_err *err)
{
	const struct csched_cfg *cfg = cfgp;	/* csched_parse's, defaults included */
	struct csched_priv *pr = xcalloc(1, sizeof *pr);
	int np = hv->npcpus, i, *load;

	hv->sched_priv = pr;
	pr->hv = hv;
	pr->cfg = *cfg;
	pr->cfg.wc = (struct sched_pervm_wc){ 0 };	/* not owned */
	pr->credits_per_tslice = (int)(CSCHED_CREDITS_PER_MSEC * (cfg->tslice_ns / MS));
	pr->pcpus = xcalloc((size_t)np, sizeof *pr->pcpus);
	pr->vcpus = xcalloc((size_t)hv->nvcpus, sizeof *pr->vcpus);
	pr->doms = xcalloc((size_t)hv->nvms, sizeof *pr->doms);
	pr->idlers = xcalloc((size_t)np, 1);
	pr->mask = xcalloc((size_t)np, 1);
	pr->scratch = xcalloc((size_t)np, 1);
	pr->last_tickled = xcalloc((size_t)np, 1);
	for (i = 0; i < 3; i++)
		pr->pick[i] = xcalloc((size_t)np, 1);
	TAILQ_INIT(&pr->active_sdom);
	/* csched_alloc_pdata: each pCPU adds a tslice of credit and starts idle */
	pr->credit = (int64_t)pr->credits_per_tslice * np;
	for (i = 0; i < np; i++) {
		TAILQ_INIT(&pr->pcpus[i].runq);
		pr->pcpus[i].idle_bias = np - 1;
		pr->pcpus[i].last_tickle_cpu = i;
		pr->idlers[i] = 1;
	}
	for (i = 0; i < hv->nvms; i++) {
		pr->doms[i].vm = hv->vms[i];
		pr->doms[i].weight = CSCHED_DEFAULT_WEIGHT;
		TAILQ_INIT(&pr->doms[i].active_vcpu);
	}
	if (sched_pervm_wc_apply(hv, &cfg->wc, set_weight, set_cap, pr, err))
		return -1;
	/* Placement at creation (domctl max_vcpus): vCPU 0 on the least used
	 * pCPU, the next ones cycling on; then into the affinity as
	 * vcpu_set_affinity -> vcpu_migrate -> pick_cpu would. */
	load = xcalloc((size_t)np, sizeof *load);
	for (i = 0; i < hv->nvcpus; i++) {
		struct vcpu *v = hv->vcpus[i];
		struct csched_vcpu *svc = &pr->vcpus[i];
		int c, best = 0;

		VS_ASSERT(v->id == i);
		svc->v = v;
		svc->sdom = &pr->doms[v->vm->id];
		svc->pri = CSCHED_PRI_TS_UNDER;	/* new vCPUs: UNDER, credit 0 */
		svc->last_run_time = -1;	/* never ran */
		v->sched_priv = svc;
		if (mask_empty(v->affinity, np)) {
			free(load);
			return vs_errf(err, NULL, 0, 0, "%s: vm '%s' has an empty affinity",
			    v->vm->where, v->vm->name);
		}
		if (v->idx == 0) {
			for (c = 1; c < np; c++)
				if (load[c] < load[best])
					best = c;
			v->processor = best;
		} else {
			v->processor = (v->vm->vcpus[v->idx - 1]->processor + 1) % np;
		}
		if (!v->affinity[v->processor])
			v->processor = csched_cpu_pick(pr, v, 1);
		load[v->processor]++;
	}
	free(load);
	/* Domain unpause: every runnable vCPU is woken (boosted) and queued. */
	for (i = 0; i < hv->nvcpus; i++) {
		struct csched_vcpu *svc = &pr->vcpus[i];

		if (!svc->v->blocked) {
			svc->pri = CSCHED_PRI_TS_BOOST;
			runq_insert(pr, svc);
		}
	}
	hv->tick_ns = cfg->tick_ns;
	pr->acct_ev = sim_after(hv->sim, cfg->tslice_ns, csched_acct_ev, pr, 0);
	return 0;
}

static void
csched_deinit(struct hv *hv)
{
	struct csched_priv *pr = hv->sched_priv;
	int i;

	sim_cancel(hv->sim, &pr->acct_ev);
	for (i = 0; i < hv->nvcpus; i++)
		hv->vcpus[i]->sched_priv = NULL;
	free(pr->pcpus);
	free(pr->vcpus);
	free(pr->doms);
	free(pr->idlers);
	free(pr->mask);
	free(pr->scratch);
	free(pr->last_tickled);
	for (i = 0; i < 3; i++)
		free(pr->pick[i]);
	free(pr);
	hv->sched_priv = NULL;
}

/* ---- parameters ---- */

static void
csched_free_cfg(void *p)
{
	struct csched_cfg *cfg = p;

	if (cfg == NULL)
		return;
	sched_pervm_wc_free(&cfg->wc);
	free(cfg);
}

static const char *const csched_tickles[] = { "upstream-4.2", "patched-2012", "xen-4.3", NULL };

/* hypervisor.params of credit: Xen 4.2 sched_credit.c and its boot parameters. */
static const struct vs_param csched_params[] = {
	{ "tickle", NULL, "which runq_tickle: upstream-4.2, patched-2012 (the 2012 "
	  "tickle patch), xen-4.3", "enum upstream-4.2|patched-2012|xen-4.3", "",
	  VP_ENUM, VS_AT(struct csched_cfg, tickle), 0, 0, CSCHED_TICKLE_UPSTREAM_42,
	  csched_tickles },
	/* XEN-4.2 sched_credit_tslice_ms: 1..1000 ms, whole ms (csched_parse) */
	{ "tslice", NULL, "sched_credit_tslice_ms: the time slice", "time", "ns",
	  VP_TIME, VS_AT(struct csched_cfg, tslice_ns), 1e6, 1e9, 30e6, NULL },
	/* XEN-4.2 csched_init: 3 ticks per tslice, 1 if tslice < 3 ms (csched_parse) */
	{ "tick", "(tslice/3)", "CSCHED_TICKS_PER_TSLICE 3: the accounting tick", "time", "ns",
	  VP_TIME, VS_AT(struct csched_cfg, tick_ns), 1e5, 1e9, 0, NULL },
	/* XEN-4.2 sched_ratelimit_us: 0 (off, as 4.1) or 100 us..500 ms, <= tslice */
	{ "ratelimit", NULL, "sched_ratelimit_us (4.2): minimum run before preemption",
	  "time", "ns", VP_TIME, VS_AT(struct csched_cfg, ratelimit_ns), 0, 5e8, 1e6, NULL },
	{ "tickle_one_idle", NULL, "tickle one idle pCPU, not all (4.2 runq_tickle)",
	  "bool", "", VP_BOOL, VS_AT(struct csched_cfg, tickle_one_idle), 0, 1, 1, NULL },
	{ "vcpu_migration_delay", NULL, "vcpu_migration_delay boot parameter (4.2): cache-hot "
	  "window", "time", "ns", VP_TIME, VS_AT(struct csched_cfg, migration_delay_ns), 0, 1e9,
	  0, NULL },
	{ "weights", "{VM: 256}", "domain weight (xl sched-credit -w)", "map", "", VS_LIST },
	{ "caps", "{VM: 0}", "domain cap in % of a pCPU (0: none)", "map", "%", VS_LIST },
	{ NULL, NULL, NULL, NULL, NULL, VS_LIST }
};

static int
csched_parse(const struct yc_node *params, double hz, void **cfgp, struct vs_err *err)
{
	struct csched_cfg *cfg = xcalloc(1, sizeof *cfg);

	*cfgp = cfg;
	if (params != NULL && yc_expect(params, YC_MAP, "a mapping of credit parameters", err))
		return -1;
	cfg->tick_ns = -1;	/* computed from tslice unless given */
	if (yc_params_read(params, csched_params, NULL, hz, cfg, err))
		return -1;
	if (cfg->tslice_ns % MS != 0)
		return yc_err(yc_find(params, "tslice"), err,
		    "tslice must be a whole number of ms (Xen sched_credit_tslice_ms)");
	if (cfg->tick_ns < 0)
		cfg->tick_ns = cfg->tslice_ns / (cfg->tslice_ns < 3 * MS ? 1 : 3);
	if (cfg->ratelimit_ns != 0 &&
	    (cfg->ratelimit_ns < 100000 || cfg->ratelimit_ns > cfg->tslice_ns))
		return yc_err(yc_find(params, "ratelimit"), err,
		    "ratelimit must be 0 (off) or between 100us and tslice");
	if (sched_pervm_wc_parse(params, &cfg->wc, err))
		return -1;
	return yc_params_check(params, csched_params, NULL, err);
}

const struct sched_ops sched_credit_ops = {
	.name = "credit",
	.desc = "Xen 4.1/4.2 credit scheduler (tickle: upstream-4.2, patched-2012, xen-4.3)",
	.params = csched_params,
	.parse = csched_parse,
	.free_cfg = csched_free_cfg,
	.init = csched_init,
	.deinit = csched_deinit,
	.wake = csched_wake,
	.sleep = csched_sleep,
	.do_schedule = csched_do_schedule,
	.yield = csched_yield,
	.tick = csched_tick,
};
