/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sched_fair.c - the task-level half of Linux's fair class, shared by the
 * `cfs` (3.2) and `eevdf` (6.6) host schedulers: walks over the group
 * hierarchy, task groups (one per VM) with hierarchical shares, CFS
 * bandwidth (cpu.max), load balancing and wake-up CPU selection.  The
 * per-level policy (placement, pick, preemption, yield) is the struct
 * fair_class a scheduler passes to fair_init.  See sched_fair.h.
 */
#include "hv/sched_fair.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hv/hv.h"
#include "hv/sched_fair_root.h"
#include "rng.h"
#include "yconf.h"
#include "yparam.h"

enum fair_scaling { FAIR_SCALE_NONE, FAIR_SCALE_LOG, FAIR_SCALE_LINEAR };
static const char *const fair_scaling_names[] = { "none", "log", "linear", NULL };
static const char *const fair_groups_names[] = { "none", "per-vm", "autogroup", NULL };

#define FAIR(hv)	((struct fair *)(hv)->sched_priv)

/* ---- parameters ---- */

/* hypervisor.params keys of every fair policy (cfs, eevdf): fair_parse. */
const struct vs_param fair_params[] = {
	{ "scaling", NULL, "sysctl_sched_tunable_scaling: the factor 1+ilog2(min(ncpus,8)) "
	  "(LNX-3.6 get_update_sysctl_factor)", "enum none|log|linear", "",
	  VP_ENUM, VS_AT(struct fair_cfg, scaling), 0, 0, FAIR_SCALE_LOG, fair_scaling_names },
	{ "hz", NULL, "host CONFIG_HZ (the tick checks preemption)", "number", "Hz",
	  VP_NUM, VS_AT(struct fair_cfg, tick_hz), 1, 1e6, 1000, NULL },
	/* LNX-3.6 fair.c sysctl_sched_migration_cost */
	{ "migration_cost", NULL, "sysctl_sched_migration_cost (task_hot, idle_balance)",
	  "time", "ns", VP_TIME, VS_AT(struct fair_cfg, migration_cost), 0, 1e10, 0.5e6, NULL },
	/* unset (0): the per-domain intervals of the policy (fair_class.sd_init) */
	{ "balance_interval", "(per domain)", "periodic load balance: every domain's starting and "
	  "min_interval (max_interval keeps its ratio); unset: cfs 3.2 SD_*_INIT (SMT 1..2ms, "
	  "socket 1..4ms, busy x64; NUMA 8..32ms, x32), eevdf 6.6 sd_init (pCPUs..2*pCPUs ms, "
	  "busy x16)", "time", "ns", VP_TIME, VS_AT(struct fair_cfg, balance_interval), 1e3,
	  1e10, 0, NULL },
	{ "yield_to_esrch", NULL, "LNX-4.5 yield_to returns -ESRCH when both rqs hold one task",
	  "bool", "", VP_BOOL, VS_AT(struct fair_cfg, yield_to_esrch), 0, 1, 0, NULL },
	{ "weights", "{VM: 1024}", "a VM's vCPU-thread weight, 15..88761 (nice 19..-20)", "map",
	  "", VS_LIST },
	{ "groups", NULL, "one task group per VM (FAIR_GROUP_SCHED, calc_group_shares); per-vm: "
	  "its vms[].cgroup weight and max; autogroup: 1024, no max",
	  "enum none|per-vm|autogroup", "", VP_ENUM, VS_AT(struct fair_cfg, groups), 0, 0,
	  FAIR_GROUPS_NONE, fair_groups_names },
	{ NULL, NULL, NULL, NULL, NULL, VS_LIST }
};

void
fair_free_cfg(void *p)
{
	struct fair_cfg *cfg = p;
	int i;

	if (cfg == NULL)
		return;
	for (i = 0; i < cfg->nweights; i++) {
		free(cfg->wname[i]);
		free(cfg->wwhere[i]);
	}
	free(cfg->wname);
	free(cfg->weight);
	free(cfg->wwhere);
	free(cfg);
}

int
fair_parse(const struct yc_node *params, double hz, const struct vs_param *pol, void *cfg,
    struct vs_err *err)
{
	const struct vs_ptab tables[] = { { pol, NULL }, { fair_params, NULL }, { NULL, NULL } };
	struct fair_cfg *fc = cfg;
	const struct yc_node *w;
	size_t i;

	if (yc_params_read(params, pol, NULL, hz, cfg, err) ||
	    yc_params_read(params, fair_params, NULL, hz, fc, err))
		return -1;
	if (params != NULL && (w = yc_find(params, "weights")) != NULL) {
		if (yc_expect(w, YC_MAP, "a mapping of VM name: weight", err))
			return -1;
		fc->wname = xcalloc(w->n + 1, sizeof *fc->wname);
		fc->weight = xcalloc(w->n + 1, sizeof *fc->weight);
		fc->wwhere = xcalloc(w->n + 1, sizeof *fc->wwhere);
		for (i = 0; i < w->n; i++) {
			int64_t x;

			w->used[i] = 1;
			if (yc_node_int(w->vals[i], FAIR_WMIN, FAIR_WMAX, &x, err))
				return -1;
			fc->wname[i] = xstrdup(w->keys[i]);
			fc->weight[i] = (long)x;
			fc->wwhere[i] = xasprintf("%s:%d:%d", w->key_file[i], w->key_line[i],
			    w->key_col[i]);
			fc->nweights++;
		}
	}
	return yc_params_check_all(params, tables, err);
}

/* The VM name an entry of `weights` names: NAME itself, or NAMEk of a count > 1 entry. */
static int
name_matches(const char *entry, const char *vm)
{
	size_t n = strlen(entry);

	if (strncmp(entry, vm, n) != 0)
		return 0;
	if (vm[n] == '\0')
		return 1;
	for (vm += n; *vm >= '0' && *vm <= '9'; vm++)
		;
	return *vm == '\0';
}

/* ---- the run queue (sorted array) ---- */

/* Index of the first entity not before se. */
static int
rq_bsearch(const struct fair_rq *rq, const struct fair_se *se)
{
	int lo = 0, hi = rq->nq;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (se_before(rq->q[mid], se))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* LNX-6.6 fair.c __enqueue_entity + avg_vruntime_add */
void
fair_rq_insert(struct fair *f, struct fair_rq *rq, struct fair_se *se)
{
	int i;

	VS_ASSERT(!se->queued);
	se->seq = f->seq++;
	if ((size_t)rq->nq >= rq->cap)
		VS_GROW(rq->q, rq->cap, (size_t)rq->nq);
	if (rq->nq <= FAIR_RQ_SHORT) {
		/* seq is new, so no entity ties: the same place as rq_bsearch */
		for (i = rq->nq; i > 0 && se_before(se, rq->q[i - 1]); i--)
			rq->q[i] = rq->q[i - 1];
	} else {
		i = rq_bsearch(rq, se);
		memmove(&rq->q[i + 1], &rq->q[i], (size_t)(rq->nq - i) * sizeof *rq->q);
	}
	rq->q[i] = se;
	rq->nq++;
	se->queued = 1;
	avg_vruntime_add(rq, NULL, se);
}

/* LNX-6.6 fair.c __dequeue_entity + avg_vruntime_sub */
void
fair_rq_remove(struct fair_rq *rq, struct fair_se *se)
{
	int i;

	if (rq->nq <= FAIR_RQ_SHORT) {
		/* one pass from the back, moving each entry after se down one:
		 * a search then a shift took two, and the compiler made the
		 * shift a memmove call */
		struct fair_se *up, *t;

		VS_ASSERT(se->queued && rq->nq > 0);
		for (i = rq->nq - 1, up = rq->q[i]; up != se; up = t) {
			VS_ASSERT(i > 0);
			t = rq->q[--i];
			rq->q[i] = up;
		}
	} else {
		i = rq_bsearch(rq, se);
		VS_ASSERT(se->queued && i < rq->nq && rq->q[i] == se);
		memmove(&rq->q[i], &rq->q[i + 1], (size_t)(rq->nq - i - 1) * sizeof *rq->q);
	}
	rq->nq--;
	se->queued = 0;
	avg_vruntime_sub(rq, NULL, se);
}

void
fair_rq_swap(struct fair *f, struct fair_rq *rq, struct fair_se *in, struct fair_se *out)
{
	rq_swap(f, NULL, rq, in, out);
}

static void update_cfs_load(struct fair *, struct fair_rq *, int global);
static void update_shares(struct fair *, int cpu);

/*
 * Bring pCPU cpu up to the ticks on its grid up to `upto` that were skipped
 * (hv.c hv_tick_ev): each would have decayed cpu_load towards the root's
 * load, which has not changed since (every change syncs first), and the
 * last one's update_curr is the one whose min_vruntime the readers that do
 * not update (a wake's renormalize) see.  Every other effect of a tick is
 * what fair_tick_next ruled out.
 */
static void
tick_sync(struct fair *f, int cpu, sim_time_t upto)
{
	struct fair_cpu *c;
	const struct pcpu *p;
	sim_time_t last;

	if (!f->tick_skip)
		return;
	c = &f->cpu[cpu];
	p = &f->hv->pcpus[cpu];
	/* the ticks skipped are those between the last one run and tick_at */
	if (!tick_pending(c, p, p->tick_at - f->hv->tick_ns))
		return;
	last = hv_tick_last(p, upto);
	if (last > c->tick_done)
		tick_catch_up(f, c, last, 1);
}

/* sched_ops.tick_next: the first time pCPU p's tick may act, its state unchanged. */
sim_time_t
fair_tick_next(struct hv *hv, struct pcpu *p)
{
	struct fair *f = FAIR(hv);
	struct fair_cpu *c = &f->cpu[p->id];
	struct fair_se *curr = fair_curr_task(c);
	sim_time_t t = c->next_balance, a;

	if (c->need_resched)
		return 0;
	if (curr != NULL) {
		/* entity_tick charges curr only while on_rq; vruntime grows 1:1 at nice 0 */
		if (!curr->on_rq || curr->weight != FAIR_NICE0)
			return 0;
		if (c->root.nr_running > 1 && (a = f->cls->tick_act(f, &c->root, curr)) < t)
			t = a;
	}
	return t;
}

/* LNX-3.6 fair.c account_entity_enqueue (LNX-3.2 enqueue_entity: update_cfs_load first) */
void
fair_account_enqueue(struct fair *f, struct fair_rq *rq, struct fair_se *se)
{
	if (rq->tg != NULL)
		update_cfs_load(f, rq, 0);
	else if (f->tick_skip)
		tick_sync(f, rq->cpu, f->hv->sim->now);
	rq->nr_running++;
	rq->load += se->weight;
	if (rq->tg == NULL && f->tick_skip)
		hv_tick_soon(&f->hv->pcpus[rq->cpu]);	/* a shorter slice, a new leftmost */
}

/* LNX-3.6 fair.c account_entity_dequeue (LNX-3.2 dequeue_entity: update_cfs_load first) */
void
fair_account_dequeue(struct fair *f, struct fair_rq *rq, struct fair_se *se)
{
	if (rq->tg != NULL)
		update_cfs_load(f, rq, 0);
	else if (f->tick_skip)
		tick_sync(f, rq->cpu, f->hv->sim->now);
	rq->nr_running--;
	rq->load -= se->weight;
}

void
fair_update_min_vruntime(struct fair *f, struct fair_rq *rq)
{
	update_min_vruntime(f, NULL, rq);
}

struct fair_cpu *
fair_cpu_of(struct fair *f, const struct fair_rq *rq)
{
	return &f->cpu[rq->cpu];
}

/* LNX-3.6 core.c resched_task: set need_resched, IPI a remote pCPU */
void
fair_resched(struct fair *f, struct fair_cpu *c)
{
	c->need_resched = 1;
	hv_tickle(f->hv, &f->hv->pcpus[c->root.cpu]);
}

/* ---- CFS bandwidth (cpu.max) ---- */

static void throttle_cfs_rq(struct fair *, struct fair_rq *);

/* LNX-3.2 fair.c assign_cfs_rq_runtime: take up to a slice from the pool */
static int
assign_cfs_rq_runtime(struct fair *f, struct fair_rq *rq)
{
	struct fair_tg *tg = rq->tg;
	int64_t amount = f->bw_slice - rq->runtime_remaining;

	if (amount > tg->runtime)
		amount = tg->runtime;
	tg->runtime -= amount;
	rq->runtime_remaining += amount;
	return rq->runtime_remaining > 0;
}

/* LNX-3.2 fair.c __account_cfs_rq_runtime: out of runtime -> resched curr */
static void
account_runtime_used(struct fair *f, struct fair_rq *rq, int64_t delta)
{
	rq->runtime_remaining -= delta;
	if (rq->runtime_remaining > 0)
		return;
	if (!assign_cfs_rq_runtime(f, rq) && rq->curr != NULL)
		fair_resched(f, fair_cpu_of(f, rq));
}

/* LNX-3.2 fair.c account_cfs_rq_runtime: only an rq with a quota (inline:
 * update_curr, at every switch, charges a root rq that has none) */
static inline void
account_cfs_rq_runtime(struct fair *f, struct fair_rq *rq, int64_t delta)
{
	if (rq->tg == NULL || rq->tg->quota < 0 || rq->throttled)
		return;
	account_runtime_used(f, rq, delta);
}

void
fair_account_cfs_rq_runtime(struct fair *f, struct fair_rq *rq, int64_t delta)
{
	account_cfs_rq_runtime(f, rq, delta);
}

/* LNX-3.2 fair.c check_cfs_rq_runtime (from put_prev_entity) */
static void
check_cfs_rq_runtime(struct fair *f, struct fair_rq *rq)
{
	if (rq->tg == NULL || rq->tg->quota < 0 || rq->runtime_remaining > 0 ||
	    rq->throttled)
		return;
	throttle_cfs_rq(f, rq);
}

/* LNX-3.2 fair.c check_enqueue_throttle: an idle group woken without runtime */
static void
check_enqueue_throttle(struct fair *f, struct fair_rq *rq)
{
	if (rq->tg == NULL || rq->tg->quota < 0 || rq->curr != NULL || rq->throttled)
		return;
	account_cfs_rq_runtime(f, rq, 0);
	if (rq->runtime_remaining <= 0)
		throttle_cfs_rq(f, rq);
}

/* ---- shares (hierarchical weights) ---- */

/* LNX-3.2 sched_fair.c update_cfs_rq_load_contribution: publish this rq's
 * average in tg->load_weight when it moved by more than an eighth */
static void
update_load_contribution(struct fair_rq *rq, int global)
{
	long avg = (long)(rq->load_avg / (rq->load_period + 1)) - rq->load_contribution;

	if (global || labs(avg) > rq->load_contribution / 8) {
		rq->tg->load_weight += avg;
		rq->load_contribution += avg;
	}
}

/*
 * LNX-3.2 sched_fair.c update_cfs_load: accumulate load x time since the
 * last stamp; past the window (sysctl_sched_shares_window, 10 ms) the sums
 * are halved, and four idle windows drop the history.  No-op for the
 * current-load mode (eevdf: 6.6's PELT averages are not modelled).
 */
static void
update_cfs_load(struct fair *f, struct fair_rq *rq, int global)
{
	int64_t window = f->shares_window, now = f->hv->sim->now, delta;

	if (window <= 0 || rq->throttled)
		return;
	delta = now - rq->load_stamp;
	if (rq->load_stamp > rq->load_last && now - rq->load_last > 4 * window) {
		rq->load_period = 0;
		rq->load_avg = 0;
		delta = window - 1;
	}
	rq->load_stamp = now;
	rq->load_unacc = 0;
	rq->load_period += delta;
	if (rq->load != 0) {
		rq->load_last = now;
		rq->load_avg += delta * rq->load;
	}
	if (global || rq->load_period > window || rq->load_period == 0)
		update_load_contribution(rq, global);
	while (rq->load_period > window) {
		rq->load_period /= 2;
		rq->load_avg /= 2;
	}
}

/*
 * LNX-3.2 fair.c calc_cfs_shares (= LNX-6.6 calc_group_shares): the group's
 * entity on this pCPU weighs tg->shares x this rq's load / the group's load
 * over all pCPUs, clamped to [MIN_SHARES, tg->shares].  3.2 (cfs, with its
 * shares window) takes the other rqs' averaged contributions and this rq's
 * current load (calc_tg_weight); otherwise the loads are the current queue
 * weights (6.6 uses PELT averages, not modelled).
 */
static long
calc_group_shares(const struct fair *f, const struct fair_tg *tg, const struct fair_rq *rq)
{
	long total = 0, shares;
	int c;

	if (f->shares_window > 0) {
		total = tg->load_weight - rq->load_contribution + rq->load;
	} else {
		for (c = 0; c < f->hv->npcpus; c++)
			total += tg->rq[c].load;
	}
	shares = total > 0 ? tg->shares * rq->load / total : 0;
	if (shares < FAIR_MIN_SHARES)
		shares = FAIR_MIN_SHARES;
	if (shares > tg->shares)
		shares = tg->shares;
	return shares;
}

/* LNX-3.2 fair.c reweight_entity (the sort key, vruntime, does not change) */
static void
reweight_entity(struct fair *f, struct fair_rq *rq, struct fair_se *se, long weight)
{
	if (se->on_rq) {
		if (rq->curr == se)
			fair_update_curr(f, rq);
		if (se->queued)
			avg_vruntime_sub(rq, NULL, se);
		fair_account_dequeue(f, rq, se);
	}
	f->cls->reweight(f, rq, se, weight);
	if (se->on_rq) {
		fair_account_enqueue(f, rq, se);
		if (se->queued)
			avg_vruntime_add(rq, NULL, se);
	}
}

/* LNX-3.2 fair.c update_cfs_shares: reweight rq's group entity */
static void
update_cfs_shares(struct fair *f, struct fair_rq *rq)
{
	struct fair_se *se = rq->owner;
	long shares;

	if (se == NULL || rq->throttled)
		return;
	shares = calc_group_shares(f, rq->tg, rq);
	if (shares != se->weight)
		reweight_entity(f, se->cfs_rq, se, shares);
}

void
fair_update_curr_at(struct fair *f, struct fair_rq *rq, sim_time_t now)
{
	update_curr(f, NULL, rq, now);
}

void
fair_update_curr(struct fair *f, struct fair_rq *rq)
{
	fair_update_curr_at(f, rq, f->hv->sim->now);
}

/* ---- task-level walks over the hierarchy ---- */

/* rq->h_nr_running += d, keeping nr_ge in step for the root rqs. */
static inline void
h_nr_add(struct fair *f, struct fair_rq *rq, int d)
{
	int n = rq->h_nr_running, k;

	if (rq->tg == NULL) {	/* a pCPU's root */
		for (k = n + 1; k <= n + d; k++)
			f->nr_ge[k]++;
		for (k = n + d + 1; k <= n; k++)
			f->nr_ge[k]--;
	}
	rq->h_nr_running = n + d;
}

/* LNX-3.2 fair.c enqueue_task_fair */
static void
enqueue_task(struct fair *f, struct fair_se *se, int flags)
{
	struct fair_rq *rq = NULL;

	for (; se != NULL; se = se->parent) {
		if (se->on_rq)
			break;
		rq = se->cfs_rq;
		f->cls->enqueue_entity(f, rq, se, flags);
		if (rq->nr_running == 1)
			check_enqueue_throttle(f, rq);
		update_cfs_shares(f, rq);
		if (rq->throttled)
			break;
		h_nr_add(f, rq, 1);
		flags = FAIR_WAKEUP;
	}
	for (; se != NULL; se = se->parent) {
		rq = se->cfs_rq;
		h_nr_add(f, rq, 1);
		if (rq->throttled)
			break;
		update_cfs_shares(f, rq);
	}
}

/* LNX-3.2 fair.c dequeue_task_fair */
static void
dequeue_task(struct fair *f, struct fair_se *se, int flags)
{
	struct fair_rq *rq;

	for (; se != NULL; se = se->parent) {
		rq = se->cfs_rq;
		if (!f->cls->dequeue_entity(f, rq, se, flags))
			return;		/* delayed: it stays queued, counted */
		if (rq->throttled)
			break;
		h_nr_add(f, rq, -1);
		update_cfs_shares(f, rq);
		/* Don't dequeue the parent if it has other entities besides us. */
		if (rq->load != 0) {
			se = se->parent;
			break;
		}
		flags = (flags | FAIR_WAKEUP) & ~FAIR_DELAYED;
	}
	for (; se != NULL; se = se->parent) {
		rq = se->cfs_rq;
		h_nr_add(f, rq, -1);
		if (rq->throttled)
			break;
		update_cfs_shares(f, rq);
	}
}

/* LNX-3.2 fair.c throttle_cfs_rq: take the group's entity off the levels above */
static void
throttle_cfs_rq(struct fair *f, struct fair_rq *rq)
{
	struct fair_se *se;
	int delta = rq->h_nr_running, dequeue = 1;

	update_cfs_load(f, rq, 0);	/* LNX-3.2 tg_throttle_down: record the last load */
	for (se = rq->owner; se != NULL; se = se->parent) {
		struct fair_rq *qrq = se->cfs_rq;

		if (!se->on_rq)
			break;
		if (dequeue)
			f->cls->dequeue_entity(f, qrq, se, FAIR_WAKEUP);
		h_nr_add(f, qrq, -delta);
		if (qrq->load != 0)
			dequeue = 0;
	}
	rq->throttled = 1;
	if (!rq->tg->throttled_now) {
		rq->tg->throttled_now = 1;
		rq->tg->nr_throttled++;
	}
}

/* LNX-3.2 fair.c unthrottle_cfs_rq */
static void
unthrottle_cfs_rq(struct fair *f, struct fair_rq *rq)
{
	struct fair_cpu *c = fair_cpu_of(f, rq);
	struct fair_se *se;
	int delta = rq->h_nr_running, enqueue = 1;

	rq->throttled = 0;
	/* LNX-3.2 tg_unthrottle_up: the throttled time is not in the averages */
	rq->load_last += f->hv->sim->now - rq->load_stamp;
	rq->load_stamp = f->hv->sim->now;
	update_cfs_shares(f, rq);
	if (rq->load == 0)
		return;
	for (se = rq->owner; se != NULL; se = se->parent) {
		struct fair_rq *qrq = se->cfs_rq;

		if (se->on_rq)
			enqueue = 0;
		if (enqueue)
			f->cls->enqueue_entity(f, qrq, se, FAIR_WAKEUP);
		h_nr_add(f, qrq, delta);
		if (qrq->throttled)
			break;
	}
	/* determine whether we need to wake up a potentially idle cpu */
	if (se == NULL && c->root.curr == NULL && c->root.nr_running > 0)
		fair_resched(f, c);
}

/* LNX-3.2 fair.c sched_cfs_period_timer -> do_sched_cfs_period_timer:
 * refill the pool, expire last period's local runtime (expire_cfs_rq_runtime),
 * hand the throttled rqs just enough to run (distribute_cfs_runtime). */
static void
period_timer(void *s, void *arg, int64_t data)
{
	struct fair_tg *tg = arg;
	struct fair *f = tg->f;
	int c;

	tg->period_ev = sim_after(f->hv->sim, tg->period, period_timer, tg, 0);
	for (c = 0; c < f->hv->npcpus; c++)
		if (tg->rq[c].curr != NULL)
			fair_update_curr(f, &tg->rq[c]);
	tg->runtime = tg->quota;
	tg->throttled_now = 0;
	for (c = 0; c < f->hv->npcpus; c++) {
		struct fair_rq *rq = &tg->rq[c];
		int64_t r;

		if (!rq->throttled) {
			if (rq->runtime_remaining > 0)
				rq->runtime_remaining = 0;
			continue;
		}
		r = -rq->runtime_remaining + 1;
		if (r > tg->runtime)
			r = tg->runtime;
		tg->runtime -= r;
		rq->runtime_remaining += r;
		if (rq->runtime_remaining > 0)
			unthrottle_cfs_rq(f, rq);
		else
			tg->throttled_now = 1;
	}
}

/* ---- hierarchy helpers ---- */

/* LNX-3.2 fair.c find_matching_se: climb to siblings of one rq */
void
fair_find_matching_se(struct fair_se **se, struct fair_se **pse)
{
	while ((*se)->depth > (*pse)->depth)
		*se = (*se)->parent;
	while ((*pse)->depth > (*se)->depth)
		*pse = (*pse)->parent;
	while ((*se)->cfs_rq != (*pse)->cfs_rq) {
		*se = (*se)->parent;
		*pse = (*pse)->parent;
	}
}

/* LNX-3.2 fair.c set_next_buddy: for_each_sched_entity(se) cfs_rq_of(se)->next = se */
void
fair_set_next_buddy(struct fair_se *se)
{
	for (; se != NULL; se = se->parent)
		se->cfs_rq->next = se;
}

/* LNX-3.2 fair.c set_last_buddy */
void
fair_set_last_buddy(struct fair_se *se)
{
	for (; se != NULL; se = se->parent)
		se->cfs_rq->last = se;
}

/* LNX-3.2 fair.c set_skip_buddy */
void
fair_set_skip_buddy(struct fair_se *se)
{
	for (; se != NULL; se = se->parent)
		se->cfs_rq->skip = se;
}

/* LNX-3.2 fair.c clear_buddies -> __clear_buddies_{last,next,skip}: clear
 * each buddy of se up the hierarchy while it names se's ancestor (an se in
 * a group: fair_clear_buddies in sched_fair.h) */
void
fair_clear_buddies_up(struct fair_rq *rq, struct fair_se *se)
{
	struct fair_se *s;

	if (rq->last == se)
		for (s = se; s != NULL && s->cfs_rq->last == s; s = s->parent)
			s->cfs_rq->last = NULL;
	if (rq->next == se)
		for (s = se; s != NULL && s->cfs_rq->next == s; s = s->parent)
			s->cfs_rq->next = NULL;
	if (rq->skip == se)
		for (s = se; s != NULL && s->cfs_rq->skip == s; s = s->parent)
			s->cfs_rq->skip = NULL;
}

int64_t
fair_vruntime(const struct hv *hv, const struct vcpu *v)
{
	const struct fair_se *se = FAIR_SE(v);

	if (se->cfs_rq->curr == se && se->on_rq)
		return se->vruntime + fair_delta(hv->sim->now - se->exec_start, se);
	return se->vruntime;
}

const struct fair_tg *
fair_tg_of(const struct hv *hv, const struct vcpu *v)
{
	return FAIR_SE(v)->cfs_rq->tg;
}

/* The rq a task of v is queued on when on pCPU cpu (the VM's group's, or the
 * root); every placement of a task on a pCPU comes here (init, wake, balance),
 * so a pick, from its pCPU's rqs, runs where the vCPU may run: asserted here,
 * at a placement, not at every switch */
static void
attach_task(struct fair *f, struct fair_se *se, int cpu)
{
	VS_ASSERT(se->v->affinity[cpu]);
	if (f->tg != NULL) {
		struct fair_tg *tg = &f->tg[se->v->vm->cg.gid];

		se->cfs_rq = &tg->rq[cpu];
		se->parent = &tg->se[cpu];
		se->depth = 1;
	} else {
		se->cfs_rq = &f->cpu[cpu].root;
		se->parent = NULL;
		se->depth = 0;
	}
}

/* ---- load balancing ---- */

/* LNX-3.6 fair.c can_migrate_task: not running, allowed on the destination,
 * not in a throttled group (throttled_lb_pair) */
static int
can_migrate(const struct fair_se *se, int dst)
{
	return se->queued && se->v->pcpu == NULL && se->v->affinity[dst] &&
	    !se->cfs_rq->throttled && !se->delayed;
}

/* LNX-3.6 fair.c task_hot: ran within migration_cost, its cache is still warm */
static int
task_hot(const struct fair *f, const struct fair_se *se)
{
	return f->hv->sim->now - se->exec_start < f->migration_cost;
}

/* LNX-3.2 fair.c task_h_load: a task's share of its pCPU's root load */
static long
task_h_load(const struct fair_se *se)
{
	const struct fair_se *g = se->parent;

	if (g == NULL || se->cfs_rq->load == 0)
		return se->weight;
	return (long)((int64_t)se->weight * g->weight / se->cfs_rq->load);
}

/* The task to pull from src to dst: cache-cold first, then any; from the
 * right of each queue (the one that would wait longest on src).  max_load
 * >= 0: only tasks whose h_load is at most that (move_tasks: load/2 of the
 * task must not exceed half the imbalance). */
static struct fair_se *
pull_candidate(const struct fair *f, int src, int dst, long max_load)
{
	struct fair_se *hot = NULL;
	int g, i, ng = f->tg != NULL ? f->ntg : 1;

	for (g = 0; g < ng; g++) {
		const struct fair_rq *rq = f->tg != NULL ? &f->tg[g].rq[src] : &f->cpu[src].root;

		for (i = rq->nq - 1; i >= 0; i--) {
			struct fair_se *se = rq->q[i];

			if (se->v == NULL || !can_migrate(se, dst) ||
			    (max_load >= 0 && task_h_load(se) > max_load))
				continue;
			if (!task_hot(f, se))
				return se;
			if (hot == NULL)
				hot = se;
		}
	}
	return hot;
}

/* LNX-3.6 fair.c move_task/pull_task: dequeue, renormalize, enqueue here */
static void
migrate(struct fair *f, struct fair_se *se, int dst)
{
	struct fair_rq *from = se->cfs_rq;

	dequeue_task(f, se, 0);
	attach_task(f, se, dst);
	tick_sync(f, dst, f->hv->sim->now);	/* its min_vruntime, read without an update */
	if (f->cls->renormalize != NULL)
		f->cls->renormalize(se, from, se->cfs_rq);
	enqueue_task(f, se, FAIR_MIGRATED);
	se->v->processor = dst;
}

/*
 * load_balance of one sched domain of this pCPU (level: its SMT siblings,
 * its socket, the machine): pull one task from the busiest queue among the
 * pCPUs the domain adds to its child (those at that distance).  Returns the
 * task.
 *   - groups: none: tasks are counted, an imbalance is at least min_imb
 *     tasks (all threads weigh alike unless `weights` says otherwise).
 *   - groups: per-vm: the root load is weighed, as find_busiest_group does
 *     (a VM's threads are light when its group is spread): the busiest must
 *     exceed this pCPU's load by imbalance_pct 125% (any load, when this
 *     one is idle: min_imb 1), and the task moved may carry at most the
 *     difference (move_tasks).  The periodic pass compares source_load =
 *     min(cpu_load[1], now) of the others with target_load = max(cpu_load[1],
 *     now) of this one (busy_idx 2), so that a vCPU halting for a moment
 *     does not move threads; the newly-idle pass uses the loads now.
 * pCPU ids are (socket, core, thread) in order (machine.h), so the domain
 * is a range of ids and its child a sub-range: each pCPU is looked at once.
 */
static struct fair_se *
balance_level(struct fair *f, int this, enum hw_dist level, int min_imb)
{
	struct hv *hv = f->hv;
	const struct machine *m = hv->m;
	int here = f->cpu[this].root.h_nr_running, weighed = f->tg != NULL;
	long here_load = f->cpu[this].root.load;
	int core = m->threads_per_core, sock = core * m->cores_per_socket;
	int lo, hi, clo, chi, i, busiest = -1, bn = 0;
	long bl = 0;
	struct fair_se *se = NULL;

	/* A queue the scan below takes has n >= 2 and, unweighed, n >= here + min_imb:
	 * with none anywhere, the scan finds nothing. */
	int need = f->tg == NULL && here + min_imb > 2 ? here + min_imb : 2;

	if (f->hv->check >= 3) {	/* --check=full: nr_ge counts the queues */
		int j, k;

		for (k = 1; k <= f->hv->nvcpus + 1; k++) {
			int c = 0;

			for (j = 0; j < hv->npcpus; j++)
				c += f->cpu[j].root.h_nr_running >= k;
			if (c != f->nr_ge[k])
				vs_fatal("check: %d pCPUs run >= %d entities, nr_ge says %d", c, k,
				    f->nr_ge[k]);
		}
	}
	if (need > f->hv->nvcpus || f->nr_ge[need] == 0)
		return NULL;
	tick_sync(f, this, f->hv->sim->now);
	if (min_imb > 1 && f->cpu[this].cpu_load > here_load)	/* target_load */
		here_load = f->cpu[this].cpu_load;
	if (level == HW_SIBLING) {
		lo = this / core * core, hi = lo + core;
		clo = this, chi = this + 1;
	} else if (level == HW_SOCKET) {
		lo = this / sock * sock, hi = lo + sock;
		clo = this / core * core, chi = clo + core;
	} else {
		lo = 0, hi = hv->npcpus;
		clo = this / sock * sock, chi = clo + sock;
	}
	if (hi > hv->npcpus)
		hi = hv->npcpus;
	for (i = lo; i < hi; i++) {
		int n;
		long load;
		struct fair_se *cand;

		if (i == clo) {
			i = chi - 1;	/* the child domain: balanced at its own level */
			continue;
		}
		n = f->cpu[i].root.h_nr_running;
		if (n < 2)
			continue;
		load = f->cpu[i].root.load;
		tick_sync(f, i, f->hv->sim->now);
		if (min_imb > 1 && f->cpu[i].cpu_load < load)	/* source_load */
			load = f->cpu[i].cpu_load;
		if (!weighed && (n - here < min_imb || (busiest >= 0 && n <= bn)))
			continue;
		if (weighed && (load <= here_load ||
		    (min_imb > 1 && load * 100 <= here_load * 125) ||
		    (busiest >= 0 && load <= bl)))
			continue;
		if ((cand = pull_candidate(f, i, this, weighed ? load - here_load : -1)) != NULL) {
			busiest = i;
			bn = n;
			bl = load;
			se = cand;
		}
	}
	if (busiest >= 0)
		migrate(f, se, this);
	return se;
}

/* msecs_to_jiffies, on the model's clock: an interval rounded up to ticks. */
static int64_t
to_ticks(const struct fair *f, int64_t ns)
{
	int64_t t = f->hv->tick_ns;

	return (ns + t - 1) / t;
}

/* LNX-3.2 rebalance_domains / LNX-6.6 get_sd_balance_interval: the domain's
 * interval, times busy_factor when this pCPU runs something, clamped to
 * [1 tick, max_load_balance_interval]. */
static int64_t
sd_interval(const struct fair *f, const struct fair_sd *sd, enum hw_dist level, int busy)
{
	int64_t j = to_ticks(f, busy ? sd->interval * f->sdp[level].busy_factor : sd->interval);
	int64_t max = f->max_lb_interval / f->hv->tick_ns;

	if (busy && f->cls->busy_interval_trim)
		j--;	/* LNX-6.6: busy periods not multiples of each other */
	if (j > max)
		j = max;
	if (j < 1)
		j = 1;
	return j * f->hv->tick_ns;
}

/* LNX-3.2 load_balance: a domain found unbalanced is balanced again at its
 * min_interval; a balanced one backs off, doubling up to max_interval (6.6
 * not for a newly-idle pass).  all_pinned's MAX_PINNED_INTERVAL is left out. */
static void
sd_tune(const struct fair *f, struct fair_sd *sd, enum hw_dist level, int moved, int newidle)
{
	const struct fair_sd_param *p = &f->sdp[level];

	if (moved)
		sd->interval = p->min_interval;
	else if ((!newidle || f->cls->newidle_backoff) && sd->interval < p->max_interval)
		sd->interval *= 2;
}

/* LNX-3.2 idle_balance (LNX-6.6 newidle_balance): only if this pCPU's idle
 * periods are long; the domains closest first, until one gives a task. */
static void
idle_balance(struct fair *f, struct fair_cpu *c)
{
	sim_time_t now = f->hv->sim->now, next = now + sim_ns(1e9);	/* jiffies + HZ */
	int l, pulled = 0, v66 = f->cls->lb_next_v66;

	c->idle_stamp = now;
	if (c->avg_idle < f->migration_cost) {
		/* LNX-6.6: update_next_balance of the lowest domain, then out */
		for (l = HW_SIBLING; v66 && l <= HW_REMOTE; l++)
			if (f->sdp[l].exists) {
				sim_time_t due = c->sd[l].last_balance + sd_interval(f, &c->sd[l], l, 0);

				if (due < next)
					next = due;
				if (next < c->next_balance) {
					c->next_balance = next;
					hv_tick_soon(&f->hv->pcpus[c->root.cpu]);
				}
				break;
			}
		return;
	}
	update_shares(f, c->root.cpu);	/* LNX-3.2 idle_balance */
	for (l = HW_SIBLING; l <= HW_REMOTE; l++) {
		struct fair_sd *sd = &c->sd[l];
		struct fair_se *se;
		sim_time_t due;

		if (!f->sdp[l].exists)
			continue;
		if (v66 && (due = sd->last_balance + sd_interval(f, sd, l, 0)) < next)
			next = due;	/* LNX-6.6 update_next_balance */
		se = balance_level(f, c->root.cpu, l, 1);
		sd_tune(f, sd, l, se != NULL, 1);
		/* LNX-3.2: next from msecs_to_jiffies(sd->balance_interval), unclamped */
		if (!v66 && (due = sd->last_balance + to_ticks(f, sd->interval) *
		    f->hv->tick_ns) < next)
			next = due;
		if (se != NULL) {
			pulled = 1;
			c->idle_stamp = -1;
			break;
		}
	}
	if (v66 ? next < c->next_balance : (pulled || now > c->next_balance)) {
		c->next_balance = next;
		hv_tick_soon(&f->hv->pcpus[c->root.cpu]);
	}
}

/* LNX-3.6 core.c ttwu_do_wakeup: average length of this rq's idle periods */
static void
update_avg_idle(const struct fair *f, struct fair_cpu *c, sim_time_t now)
{
	sim_time_t d, max = 2 * f->migration_cost;

	if (c->idle_stamp < 0)
		return;
	d = now - c->idle_stamp;
	if (d > max)
		c->avg_idle = max;
	else
		c->avg_idle += (d - c->avg_idle) / 8;	/* update_avg */
	c->idle_stamp = -1;
}

/* ---- CPU selection on wakeup ---- */

static int
cpu_idle(const struct fair *f, int cpu)
{
	return f->cpu[cpu].root.curr == NULL && f->cpu[cpu].root.nr_running == 0;
}

/* LNX-3.2 fair.c select_idle_sibling: prev if idle, else the first idle
 * allowed pCPU of the cache-sharing domains (SMT siblings, then the socket),
 * else prev.  wake_affine (pulling towards the waker) is left out; eevdf
 * uses the same (6.6's select_idle_cpu scan is not modelled). */
static int
select_cpu(const struct fair *f, const struct vcpu *v)
{
	static const enum hw_dist levels[] = { HW_SIBLING, HW_SOCKET };
	const struct hv *hv = f->hv;
	int prev = v->processor, i;
	size_t l;

	if (prev < 0 || !v->affinity[prev]) {	/* core.c select_fallback_rq */
		for (i = 0; i < hv->npcpus && !v->affinity[i]; i++)
			;
		VS_ASSERT(i < hv->npcpus);
		prev = i;
	}
	if (cpu_idle(f, prev))
		return prev;
	for (l = 0; l < sizeof levels / sizeof levels[0]; l++)
		for (i = 0; i < hv->npcpus; i++)
			if (v->affinity[i] && machine_dist(hv->m, prev, i) == levels[l] &&
			    cpu_idle(f, i))
				return i;
	return prev;
}

/* ---- set-up ---- */

int
fair_sysctl_factor(int scaling, int ncpus)
{
	int n = ncpus < 8 ? ncpus : 8, lg = 0;

	/* LNX-3.6 fair.c get_update_sysctl_factor */
	switch (scaling) {
	case FAIR_SCALE_NONE:
		return 1;
	case FAIR_SCALE_LINEAR:
		return n;
	default:
		while (n >>= 1)
			lg++;
		return 1 + lg;
	}
}

static int
allowed(const struct hv *hv, const struct vcpu *v)
{
	int p, n = 0;

	for (p = 0; p < hv->npcpus; p++)
		n += v->affinity[p];
	return n;
}

static void
init_rq(const struct fair *f, struct fair_rq *rq, int cpu, struct fair_tg *tg,
    struct fair_se *owner)
{
	rq->cpu = cpu;
	rq->tg = tg;
	rq->owner = owner;
	rq->keep_avg = f->cls->avg_vruntime;
}

/*
 * One task group per VM (libvirt's machine.slice/<vm>.scope), under the
 * root; VMs that name one cgroup share its group (a libvirt partition, or
 * the autogroup of the one shell session that started them).
 */
static int
init_groups(struct fair *f, struct vs_err *err)
{
	struct hv *hv = f->hv;
	int g, c, i, j;

	f->ntg = 0;
	for (i = 0; i < hv->nvms; i++) {
		struct vm *vm = hv->vms[i];

		vm->cg.gid = f->ntg;
		for (j = 0; vm->cg.name != NULL && j < i; j++)
			if (hv->vms[j]->cg.name != NULL &&
			    strcmp(hv->vms[j]->cg.name, vm->cg.name) == 0) {
				vm->cg.gid = hv->vms[j]->cg.gid;
				break;
			}
		if (vm->cg.gid == f->ntg)
			f->ntg++;
	}
	f->tg = xcalloc((size_t)f->ntg + 1, sizeof *f->tg);
	for (g = 0; g < f->ntg; g++) {
		struct fair_tg *tg = &f->tg[g];
		const struct vm *vm = NULL;

		for (i = 0; vm == NULL; i++)	/* the group's first VM gives its settings */
			if (hv->vms[i]->cg.gid == g)
				vm = hv->vms[i];

		tg->f = f;
		tg->id = g;
		/* LNX-6.6 core.c cpu_weight_write_u64 -> sched_weight_from_cgroup:
		 * cpu.weight 100 (the default) is shares 1024 */
		tg->shares = (vm->cg.weight * FAIR_NICE0 + 50) / 100;
		if (tg->shares < FAIR_MIN_SHARES)
			tg->shares = FAIR_MIN_SHARES;
		tg->quota = vm->cg.quota;
		if (f->groups == FAIR_GROUPS_AUTOGROUP) {
			/* LNX-3.2 sched_autogroup.c autogroup_create: NICE_0_LOAD shares */
			tg->shares = FAIR_NICE0;
			tg->quota = -1;
		}
		tg->period = vm->cg.period;
		tg->runtime = tg->quota;
		tg->rq = xcalloc((size_t)hv->npcpus, sizeof *tg->rq);
		tg->se = xcalloc((size_t)hv->npcpus, sizeof *tg->se);
		for (c = 0; c < hv->npcpus; c++) {
			struct fair_se *se = &tg->se[c];

			init_rq(f, &tg->rq[c], c, tg, se);
			/* LNX-3.2 sched.c init_tg_cfs_entry: NICE_0_LOAD until reweighted */
			se->weight = FAIR_NICE0;
			se->cfs_rq = &f->cpu[c].root;
			se->my_q = &tg->rq[c];
		}
		if (tg->quota >= 0)
			tg->period_ev = sim_after(hv->sim, tg->period, period_timer, tg, 0);
	}
	(void)err;
	return 0;
}

/* LNX-3.2 sched.c build_sched_domains (LNX-6.6 topology.c build_sched_domains
 * + sd_init): a domain per level that has pCPUs at that distance (the
 * others are degenerate and dropped: sd_degenerate), with the policy's
 * constants; sockets are NUMA nodes (x86 since Nehalem / Opteron). */
static void
init_domains(struct hv *hv, struct fair *f, const struct fair_cfg *cfg)
{
	int l, i, max;

	for (l = HW_SIBLING; l <= HW_REMOTE; l++) {
		struct fair_sd_param *p = &f->sdp[l];
		int exists = 0, weight = 0;

		for (i = 0; i < hv->npcpus; i++) {
			enum hw_dist d = machine_dist(hv->m, 0, i);

			exists |= d == (enum hw_dist)l;
			weight += d <= (enum hw_dist)l;
		}
		memset(p, 0, sizeof *p);
		f->cls->sd_init(l, weight, p);	/* in ms */
		p->exists = exists;
		p->weight = weight;
		if (cfg->balance_interval > 0) {	/* one base interval for every level */
			p->max_interval = p->max_interval / p->min_interval *
			    (int64_t)cfg->balance_interval;
			p->min_interval = p->init_interval = (int64_t)cfg->balance_interval;
		} else {
			p->min_interval *= 1000000;
			p->max_interval *= 1000000;
			p->init_interval *= 1000000;
		}
		for (i = 0; i < hv->npcpus; i++) {
			f->cpu[i].sd[l].interval = p->init_interval;
			f->cpu[i].sd[l].last_balance = 0;	/* .last_balance = jiffies */
		}
	}
	/* LNX-3.2 fair.c update_max_interval: HZ * num_online_cpus() / 10 */
	max = (int)(cfg->tick_hz * hv->npcpus / 10);
	f->max_lb_interval = (int64_t)(max < 1 ? 1 : max) * hv->tick_ns;
}

const struct fair_sd *
fair_sd_of(const struct hv *hv, int cpu, enum hw_dist level, const struct fair_sd_param **param)
{
	const struct fair *f = FAIR(hv);

	if (param != NULL)
		*param = &f->sdp[level];
	return f->sdp[level].exists ? &f->cpu[cpu].sd[level] : NULL;
}

int
fair_init(struct hv *hv, struct fair *f, const struct fair_class *cls, void *pol,
    const struct fair_cfg *cfg, struct vs_err *err)
{
	int i, k, *order, *nallowed, *nr;

	hv->sched_priv = f;
	f->hv = hv;
	f->cls = cls;
	f->pol = pol;
	f->groups = cfg->groups;
	f->factor = fair_sysctl_factor(cfg->scaling, hv->npcpus);
	f->migration_cost = (int64_t)cfg->migration_cost;
	f->bw_slice = 5000000;	/* LNX-3.2 fair.c sysctl_sched_cfs_bandwidth_slice: 5 ms */
	f->yield_to_esrch = cfg->yield_to_esrch;
	hv->tick_ns = sim_ns(1e9 / cfg->tick_hz);
	f->cpu = xcalloc((size_t)hv->npcpus, sizeof *f->cpu);
	f->nr_ge = xcalloc((size_t)hv->nvcpus + 2, sizeof *f->nr_ge);
	f->nr_ge[0] = hv->npcpus;
	for (i = 0; i < hv->npcpus; i++) {
		init_rq(f, &f->cpu[i].root, i, NULL, NULL);
		f->cpu[i].idle_stamp = -1;
		f->cpu[i].avg_idle = 2 * f->migration_cost;	/* core.c sched_init */
		f->cpu[i].next_balance = 0;	/* sched_init: jiffies */
		f->cpu[i].tick_done = FAIR_TICK_UNSET;
	}
	init_domains(hv, f, cfg);
	f->se = xcalloc((size_t)hv->nvcpus + 1, sizeof *f->se);
	for (k = 0; k < cfg->nweights; k++) {
		int found = 0;

		for (i = 0; i < hv->nvms; i++)
			found |= name_matches(cfg->wname[k], hv->vms[i]->name);
		if (!found)
			return vs_errf(err, NULL, 0, 0, "%s: no VM named '%s'", cfg->wwhere[k],
			    cfg->wname[k]);
	}
	/* With groups: none a VM's cgroup has no effect, as on a host whose
	 * vCPU threads all share one cgroup. */
	if (f->groups != FAIR_GROUPS_NONE && init_groups(f, err))
		return -1;
	f->flat = f->groups == FAIR_GROUPS_NONE;
	/* Quiet ticks are skipped where the class can tell when one may act, and
	 * no group shares or bandwidth timers tick besides (sched_ops.tick_next). */
	if (cls->tick_act != NULL && f->groups == FAIR_GROUPS_NONE) {
		f->tick_skip = 1;
		/* tests/e2e_tickff.sh checks that a broken skip is caught */
		f->tick_fault = getenv("VLOCKSIM_TEST_TICKFF_FAULT") != NULL;
		hv->tick_skip = 1;
	}
	f->rng = rng_new(hv->sim->seed, RNG_ENTITY(RNG_KIND_HV, 1));
	/*
	 * Threads are placed in a random order across VMs: the scenario starts
	 * every VM at t = 0, but real vCPU threads were created at different
	 * times and have wandered since (their guests booted, idled and woke).
	 * Placing VM after VM would always give each VM's vCPUs pCPUs of their
	 * own and hide lock-holder preemption between a VM's own vCPUs.
	 */
	order = xmalloc((size_t)hv->nvcpus * sizeof *order);
	for (i = 0; i < hv->nvcpus; i++) {
		int j = (int)rng_below(f->rng, (uint64_t)i + 1);

		order[i] = order[j];
		order[j] = i;
	}
	/* ...except that vCPUs with fewer allowed pCPUs go first (stable), so
	 * affinity never forces a pCPU past its share.  (Each vCPU's count
	 * once: counted in the sort's compares, 4096 vCPUs on 2048 pCPUs
	 * took 17 M pCPU visits.) */
	nallowed = xmalloc((size_t)hv->nvcpus * sizeof *nallowed);
	for (i = 0; i < hv->nvcpus; i++)
		nallowed[i] = allowed(hv, hv->vcpus[i]);
	for (i = 1; i < hv->nvcpus; i++) {
		int x = order[i], j = i;

		while (j > 0 && nallowed[order[j - 1]] > nallowed[x]) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = x;
	}
	free(nallowed);
	/* The placement below reads every pCPU's count per vCPU: a dense copy
	 * of them, not a line of f->cpu each (CFS 2x at 4096 vCPUs: fair_init
	 * 8.7 M of 40 M D1 read misses in a 5 ms run); only best's changes. */
	nr = xmalloc((size_t)hv->npcpus * sizeof *nr);
	for (i = 0; i < hv->npcpus; i++)
		nr[i] = f->cpu[i].root.h_nr_running;
	for (i = 0; i < hv->nvcpus; i++) {
		struct vcpu *v = hv->vcpus[order[i]];
		struct fair_se *se = &f->se[v->id];
		int best = -1, p, ties = 0;

		se->v = v;
		se->weight = FAIR_NICE0;
		for (k = 0; k < cfg->nweights; k++)
			if (name_matches(cfg->wname[k], v->vm->name))
				se->weight = cfg->weight[k];
		v->sched_priv = se;
		/* LNX-3.6 fair.c select_task_rq_fair (SD_BALANCE_FORK): the idlest
		 * allowed pCPU; ties drawn at random. */
		for (p = 0; p < hv->npcpus; p++) {
			if (!v->affinity[p])
				continue;
			if (best < 0 || nr[p] < nr[best]) {
				best = p;
				ties = 1;
			} else if (nr[p] == nr[best] && rng_below(f->rng, (uint64_t)++ties) == 0) {
				best = p;
			}
		}
		if (best < 0) {
			free(order);
			free(nr);
			return vs_errf(err, NULL, 0, 0, "%s: vm '%s' vCPU %d may run on no pCPU",
			    v->vm->where, v->vm->name, v->idx);
		}
		attach_task(f, se, best);
		/* LNX-3.6 fair.c task_fork_fair: place_entity(initial) */
		cls->place_initial(f, se->cfs_rq, se);
		if (!v->blocked)
			enqueue_task(f, se, FAIR_INITIAL);
		nr[best] = f->cpu[best].root.h_nr_running;
		v->processor = best;
	}
	free(order);
	free(nr);
	return 0;
}

void
fair_deinit(struct hv *hv)
{
	struct fair *f = FAIR(hv);
	int i, g;

	for (i = 0; i < hv->npcpus; i++)
		free(f->cpu[i].root.q);
	for (g = 0; f->tg != NULL && g < f->ntg; g++) {
		for (i = 0; i < hv->npcpus; i++)
			free(f->tg[g].rq[i].q);
		sim_cancel(hv->sim, &f->tg[g].period_ev);
		free(f->tg[g].rq);
		free(f->tg[g].se);
	}
	free(f->tg);
	rng_free(f->rng);
	for (i = 0; i < hv->nvcpus; i++)
		hv->vcpus[i]->sched_priv = NULL;
	free(f->cpu);
	free(f->nr_ge);
	free(f->se);
	hv->sched_priv = NULL;
	free(f->pol);	/* the policy's state, which begins with *f */
}

/* ---- sched_ops bodies ---- */

/* LNX-3.6 core.c try_to_wake_up -> select_task_rq -> ttwu_activate -> check_preempt_curr */
void
fair_wake(struct hv *hv, struct vcpu *v)
{
	struct fair *f = FAIR(hv);
	struct fair_se *se = FAIR_SE(v);
	struct fair_rq *old = se->cfs_rq;
	int cpu;

	if (se->delayed) {
		/* LNX-6.12 ttwu_runnable -> enqueue_task(ENQUEUE_DELAYED): still queued */
		f->cls->requeue_delayed(f, se->cfs_rq, se);
		if (v->pcpu == NULL)
			f->cls->check_preempt_wakeup(f, &f->cpu[v->processor], se);
		return;
	}
	if (v->pcpu != NULL) {
		/* Woken before its switch-out: it never left the CPU (ttwu_remote). */
		VS_ASSERT(old->curr == se);
		enqueue_task(f, se, 0);
		return;
	}
	cpu = select_cpu(f, v);
	if (cpu != v->processor) {
		attach_task(f, se, cpu);
		/* min_vruntime of both, read without an update (task_waking_fair) */
		tick_sync(f, v->processor, hv->sim->now);
		tick_sync(f, cpu, hv->sim->now);
		if (f->cls->renormalize != NULL)
			f->cls->renormalize(se, old, se->cfs_rq);
	}
	v->processor = cpu;
	enqueue_task(f, se, FAIR_WAKEUP);
	update_avg_idle(f, &f->cpu[cpu], hv->sim->now);
	f->cls->check_preempt_wakeup(f, &f->cpu[cpu], se);
}

/* LNX-3.6 fair.c dequeue_task_fair (DEQUEUE_SLEEP) */
void
fair_sleep(struct hv *hv, struct vcpu *v)
{
	struct fair *f = FAIR(hv);
	struct fair_se *se = FAIR_SE(v);
	struct fair_cpu *c = &f->cpu[v->processor];

	if (!se->on_rq)
		return;
	dequeue_task(f, se, FAIR_WAKEUP);
	if (se->cfs_rq->curr == se)
		c->need_resched = 1;	/* the core raises the softirq */
}

/* The entity of chain (a task and its ancestors) queued on rq, or NULL. */
static struct fair_se *
chain_at(struct fair_se *chain, const struct fair_rq *rq)
{
	for (; chain != NULL; chain = chain->parent)
		if (chain->cfs_rq == rq)
			return chain;
	return NULL;
}

void
fair_root_idle(struct fair *f, struct fair_cpu *c, struct fair_se *prev)
{
	if (prev != NULL)
		put_prev_entity(f, NULL, &c->root, prev, NULL);
	idle_balance(f, c);
}

void
fair_dequeue_delayed(struct fair *f, struct fair_se *se)
{
	dequeue_task(f, se, FAIR_WAKEUP | FAIR_DELAYED);
}

/* LNX-3.2 core.c __schedule: put_prev_task, idle_balance, pick_next_task
 * (LNX-6.6 fair.c pick_next_task_fair: pick with curr queued, then
 * put_prev/set_next only on the levels that change).  3.2 puts prev back
 * before the pick; that is fused in 6.6's manner: its policy picks as
 * though curr were put back (fair_class.pick_with_curr), and only the levels
 * that change hands are put back, in the same order (their seqs keep the
 * order the put would give; a kept curr's seq is never read). */
struct vcpu *
fair_do_schedule(struct hv *hv, struct pcpu *p, sim_time_t *slice)
{
	struct fair *f = FAIR(hv);
	struct fair_cpu *c = &f->cpu[p->id];
	struct fair_se *prev = fair_curr_task(c), *se, *next, *nse;
	struct fair_rq *rq;
	sim_time_t now = hv->sim->now;

	if (f->flat)
		return fair_schedule_flat(hv, f->cls, p, slice);
	VS_ASSERT((prev != NULL ? prev->v : NULL) == p->curr);
	*slice = 0;	/* no HRTICK: the host tick checks preemption */
	c->need_resched = 0;
	for (se = prev; se != NULL; se = se->parent) {
		/* each level's se is its rq's curr; one charged at this instant
		 * already (a yield's, 1.4 M of 2.5 M per 20 s of seed001-x7560 3x)
		 * has nothing to add */
		if (se->exec_start != now)
			fair_update_curr_at(f, se->cfs_rq, now);
		check_cfs_rq_runtime(f, se->cfs_rq);
	}
again:
	if (c->root.nr_running == 0) {
		for (se = prev; se != NULL; se = se->parent)
			put_prev_entity(f, NULL, se->cfs_rq, se, NULL);
		prev = NULL;
		idle_balance(f, c);
	}
	/* Walk down: pick an entity at each level, entering group rqs. */
	next = NULL;
	for (rq = &c->root; rq != NULL; rq = next->my_q) {
		next = f->cls->pick_next_entity(f, rq);
		if (next == NULL) {
			VS_ASSERT(rq == &c->root);
			return NULL;
		}
	}
	if (next->delayed) {
		/* LNX-6.12 pick_next_entity: a delayed task is dequeued when picked */
		dequeue_task(f, next, FAIR_WAKEUP | FAIR_DELAYED);
		goto again;	/* if it was prev, its levels are put below (not on_rq) */
	}
	/* The levels where the pick differs from prev's chain change hands. */
	for (se = prev; se != NULL; se = se->parent)
		if ((nse = chain_at(next, se->cfs_rq)) != se)
			put_prev_entity(f, NULL, se->cfs_rq, se, nse);
	for (se = next; se != NULL; se = se->parent)
		if (se->cfs_rq->curr != se || !f->cls->pick_with_curr) {
			/* 3.2: a kept prev is set again: a new slice */
			f->cls->set_next_entity(f, se->cfs_rq, se);
			if (se->cfs_rq->tg == NULL)	/* a new curr, a new slice */
				hv_tick_soon_at(p, tick_next_set(c));
		}
	/* not blocked, and running nowhere else: hv_schedule_ev asserts them
	 * for every policy; allowed here: attach_task asserts it */
	return next->v;
}

/* LNX-3.6 core.c sys_sched_yield */
void
fair_yield(struct hv *hv, struct vcpu *v)
{
	struct fair *f = FAIR(hv);
	struct fair_cpu *c = &f->cpu[v->processor];

	if (v->pcpu == NULL)
		return;
	f->cls->yield_task(f, c, FAIR_SE(v));
	c->need_resched = 1;	/* the core raises the softirq */
}

int
fair_yield_to(struct hv *hv, struct vcpu *from, struct vcpu *to)
{
	return fair_yield_to_cls(hv, FAIR(hv)->cls, from, to);
}

/*
 * LNX-3.2 fair.c rebalance_domains: every domain of this pCPU whose interval
 * (busy_factor times longer when the pCPU runs something: scheduler_tick's
 * idle_cpu) has passed since its last balance is balanced, closest first, a
 * periodic pass moving a task if the imbalance is >= 2 tasks; a pull makes
 * the pCPU busy for the levels above.  next_balance is the earliest
 * last_balance + interval.  SD_SERIALIZE's trylock always succeeds here.
 */
static void
rebalance_domains(struct fair *f, struct pcpu *p)
{
	struct fair_cpu *c = &f->cpu[p->id];
	sim_time_t now = f->hv->sim->now, next = now + sim_ns(60e9);	/* jiffies + 60*HZ */
	int l, busy = fair_curr_task(c) != NULL;

	for (l = HW_SIBLING; l <= HW_REMOTE; l++) {
		struct fair_sd *sd = &c->sd[l];
		int64_t interval;
		struct fair_se *se;

		if (!f->sdp[l].exists)
			continue;
		interval = sd_interval(f, sd, l, busy);
		if (now >= sd->last_balance + interval) {
			se = balance_level(f, p->id, l, 2);
			sd->lb_count++;
			sd_tune(f, sd, l, se != NULL, 0);
			sd->last_balance = now;
			if (se != NULL) {
				busy = 1;	/* idle = CPU_NOT_IDLE */
				if (c->root.curr == NULL) {	/* the idle task is preempted, locally */
					c->need_resched = 1;
					hv_resched(p, 0);
				} else	/* pull_task: check_preempt_curr */
					f->cls->check_preempt_wakeup(f, c, se);
			}
			if (f->cls->lb_next_v66)	/* LNX-6.6: the interval after */
				interval = sd_interval(f, sd, l, busy);
		}
		if (sd->last_balance + interval < next)
			next = sd->last_balance + interval;
	}
	c->next_balance = next;	/* no domain (one pCPU): never (on_null_domain) */
}

/* fair_tick_cls's rare step (12 k of 277 k ticks per 300 s of seed001-x5570
 * 3x), out of line: LNX-3.2 rebalance_domains, its group shares first */
void
fair_tick_balance(struct fair *f, struct pcpu *p)
{
	update_shares(f, p->id);	/* LNX-3.2 rebalance_domains */
	rebalance_domains(f, p);
}

/* LNX-3.6 fair.c task_tick_fair: the class read where used (eevdf's tick) */
void
fair_tick(struct hv *hv, struct pcpu *p)
{
	fair_tick_cls(hv, NULL, p);
}

/* At the tick (entity_tick).  LNX-3.2 update_entity_shares_tick: only once
 * the rq ran a window's worth since its load was last folded. */
void
fair_update_shares(struct fair *f, struct fair_rq *rq)
{
	if (f->shares_window > 0) {
		if (rq->tg == NULL || rq->load_unacc <= f->shares_window)
			return;
		update_cfs_load(f, rq, 0);
	}
	update_cfs_shares(f, rq);
}

/* LNX-3.2 fair.c update_shares (rebalance_domains, idle_balance): fold every
 * group rq of this pCPU that has load or history, publishing its average. */
static void
update_shares(struct fair *f, int cpu)
{
	int g;

	if (f->shares_window <= 0)
		return;
	for (g = 0; g < f->ntg; g++) {
		struct fair_rq *rq = &f->tg[g].rq[cpu];

		if (rq->throttled || (rq->load == 0 && rq->load_avg == 0 && rq->curr == NULL))
			continue;	/* not on the leaf list (list_del_leaf_cfs_rq) */
		update_cfs_load(f, rq, 1);
		update_cfs_shares(f, rq);
	}
}
