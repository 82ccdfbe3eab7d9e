/*
 * sched_cfs.c - a KVM host: vCPU threads under Linux's fair scheduler (CFS).
 *
 * Follows Linux 3.2 kernel/sched_fair.c (= LNX-3.6 kernel/sched/fair.c for
 * everything used here, model-reference §6) with its default features:
 * GENTLE_FAIR_SLEEPERS, START_DEBIT, LAST_BUDDY on, NEXT_BUDDY off,
 * WAKEUP_PREEMPTION on, no HRTICK (preemption is checked at the host tick).
 * One run queue per pCPU, no group scheduling (every vCPU thread is a
 * SCHED_OTHER task in the root cfs_rq).
 *
 * Run-queue invariants (the rb-tree of Linux, as a sorted array):
 *   - rq->q holds the queued entities that are not running, sorted by
 *     (vruntime, seq); seq breaks ties first-in-first-out, as the rb-tree
 *     inserts equal keys to the right.  A queued entity's key never changes
 *     while it is in the array (only the running one's vruntime advances),
 *     so removal finds it by binary search.
 *   - rq->curr is the entity running on the pCPU (== the core's p->curr),
 *     kept out of rq->q as Linux keeps cfs_rq->curr out of the tree; it may
 *     be dequeued (blocked) until the core switches it out.
 *   - nr_running and load count every on_rq entity, curr included.
 *   - v->processor is the pCPU whose rq holds v (or held it, if blocked).
 * A sorted array costs O(log n) to search and O(n) memmove to insert or
 * remove; with at most ~100 vCPUs per pCPU that is a few hundred bytes moved,
 * cheaper in practice than rebalancing a tree, and far simpler.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hv/hv.h"
#include "hv/sched.h"
#include "hv/sched_cfs.h"
#include "rng.h"
#include "yconf.h"

/* LNX-3.6 sched.h NICE_0_LOAD: the weight of a nice-0 task */
#define CFS_NICE0	1024
/* LNX-3.6 sched.h: prio_to_weight[] spans nice 19 (15) .. nice -20 (88761) */
#define CFS_WMIN	15
#define CFS_WMAX	88761

enum cfs_scaling { CFS_SCALE_NONE, CFS_SCALE_LOG, CFS_SCALE_LINEAR };
static const char *const cfs_scaling_names[] = { "none", "log", "linear", NULL };

/* The parameters as written (unscaled base values, ns). */
struct cfs_cfg {
	double tick_hz;
	double latency, min_gran, wakeup_gran, migration_cost, balance_interval;
	int scaling;
	int yield_to_esrch;
	int nweights;
	char **wname;		/* VM name */
	long *weight;
	char **wwhere;		/* "file:line:col" of the entry, for errors at init */
};

struct cfs_se {
	struct vcpu *v;
	int64_t vruntime;
	uint64_t seq;		/* tie-break among equal vruntimes: FIFO */
	sim_time_t exec_start;	/* last time update_curr charged it */
	sim_time_t sum_exec, prev_sum_exec;
	long weight;
	int on_rq;		/* counted in nr_running (queued or curr) */
	int queued;		/* in rq->q */
};

struct cfs_rq {
	int id;
	struct cfs_se **q;	/* sorted by (vruntime, seq); see the header */
	int nq;
	size_t cap;
	struct cfs_se *curr;
	struct cfs_se *next, *last, *skip;	/* buddies */
	int nr_running;
	long load;
	int64_t min_vruntime;
	int need_resched;	/* TIF_NEED_RESCHED: a SCHEDULE softirq is coming */
	sim_time_t idle_stamp;	/* when it went idle, -1 if not idle */
	sim_time_t avg_idle;
	sim_time_t next_balance;
};

struct cfs {
	struct cfs_rq *rq;
	struct cfs_se *se;	/* per vCPU, by v->id */
	int64_t latency, min_gran, wakeup_gran, migration_cost, balance_interval;
	int nr_latency;
	int yield_to_esrch;
	uint64_t seq;
	struct rng *rng;	/* ties in fork placement */
};

#define CFS(hv)		((struct cfs *)(hv)->sched_priv)
#define CFS_SE(v)	((struct cfs_se *)(v)->sched_priv)

/* ---- parameters ---- */

static void
cfs_free_cfg(void *p)
{
	struct cfs_cfg *cfg = p;
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

static int
cfs_parse(const struct yc_node *params, double hz, void **out, struct vs_err *err)
{
	struct cfs_cfg *cfg = xcalloc(1, sizeof *cfg);
	const struct yc_node *w;
	size_t i;

	*out = cfg;
	if (params != NULL && yc_expect(params, YC_MAP, "a mapping of cfs parameters", err))
		return -1;
	/* LNX-3.6 fair.c sysctl_sched_* defaults; kernel/sched/features.h */
	if (yc_get_num(params, "hz", 1000, 1, 1e6, &cfg->tick_hz, err) ||
	    yc_get_qty(params, "latency", UNIT_TIME, hz, 6e6, 1e3, 1e10, &cfg->latency, err) ||
	    yc_get_qty(params, "min_granularity", UNIT_TIME, hz, 0.75e6, 1e3, 1e10,
	    &cfg->min_gran, err) ||
	    yc_get_qty(params, "wakeup_granularity", UNIT_TIME, hz, 1e6, 0, 1e10,
	    &cfg->wakeup_gran, err) ||
	    yc_get_qty(params, "migration_cost", UNIT_TIME, hz, 0.5e6, 0, 1e10,
	    &cfg->migration_cost, err) ||
	    yc_get_qty(params, "balance_interval", UNIT_TIME, hz, 4e6, 1e3, 1e10,
	    &cfg->balance_interval, err) ||
	    yc_get_enum(params, "scaling", cfs_scaling_names, CFS_SCALE_LOG, &cfg->scaling,
	    err) ||
	    yc_get_bool(params, "yield_to_esrch", 0, &cfg->yield_to_esrch, err))
		return -1;
	if (params != NULL && (w = yc_find(params, "weights")) != NULL) {
		if (yc_expect(w, YC_MAP, "a mapping of VM name: weight", err))
			return -1;
		cfg->wname = xcalloc(w->n + 1, sizeof *cfg->wname);
		cfg->weight = xcalloc(w->n + 1, sizeof *cfg->weight);
		cfg->wwhere = xcalloc(w->n + 1, sizeof *cfg->wwhere);
		for (i = 0; i < w->n; i++) {
			int64_t x;

			w->used[i] = 1;
			if (yc_node_int(w->vals[i], CFS_WMIN, CFS_WMAX, &x, err))
				return -1;
			cfg->wname[i] = xstrdup(w->keys[i]);
			cfg->weight[i] = (long)x;
			cfg->wwhere[i] = xasprintf("%s:%d:%d", w->key_file[i], w->key_line[i],
			    w->key_col[i]);
			cfg->nweights++;
		}
	}
	return yc_check_unused(params, "hz, latency, min_granularity, wakeup_granularity, "
	    "migration_cost, balance_interval, scaling, yield_to_esrch, weights", err);
}

/* The VM name an entry of `weights` names: NAME itself, or NAMEk of a count > 1 entry. */
static int
cfs_name_matches(const char *entry, const char *vm)
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

static int
se_before(const struct cfs_se *a, const struct cfs_se *b)
{
	return a->vruntime < b->vruntime || (a->vruntime == b->vruntime && a->seq < b->seq);
}

/* Index of the first entity not before se. */
static int
rq_bsearch(const struct cfs_rq *rq, const struct cfs_se *se)
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

static void
rq_insert(struct cfs *c, struct cfs_rq *rq, struct cfs_se *se)
{
	int i;

	VS_ASSERT(!se->queued);
	se->seq = c->seq++;
	VS_GROW(rq->q, rq->cap, (size_t)rq->nq);
	i = rq_bsearch(rq, se);
	memmove(&rq->q[i + 1], &rq->q[i], (size_t)(rq->nq - i) * sizeof *rq->q);
	rq->q[i] = se;
	rq->nq++;
	se->queued = 1;
}

static void
rq_remove(struct cfs_rq *rq, struct cfs_se *se)
{
	int i = rq_bsearch(rq, se);

	VS_ASSERT(se->queued && i < rq->nq && rq->q[i] == se);
	memmove(&rq->q[i], &rq->q[i + 1], (size_t)(rq->nq - i - 1) * sizeof *rq->q);
	rq->nq--;
	se->queued = 0;
}

/* ---- virtual time ---- */

/* LNX-3.6 fair.c calc_delta_fair: delta scaled to nice-0 virtual time */
static int64_t
calc_delta_fair(int64_t delta, const struct cfs_se *se)
{
	return se->weight == CFS_NICE0 ? delta : delta * CFS_NICE0 / se->weight;
}

/* LNX-3.6 fair.c update_min_vruntime: monotonic, follows curr and leftmost */
static void
update_min_vruntime(struct cfs_rq *rq)
{
	int64_t vr = rq->min_vruntime;

	if (rq->curr != NULL)
		vr = rq->curr->vruntime;
	if (rq->nq > 0)
		vr = rq->curr != NULL && rq->curr->vruntime < rq->q[0]->vruntime ?
		    rq->curr->vruntime : rq->q[0]->vruntime;
	if (vr > rq->min_vruntime)
		rq->min_vruntime = vr;
}

/* LNX-3.6 fair.c update_curr: charge the running entity, weighted */
static void
update_curr(struct hv *hv, struct cfs_rq *rq)
{
	struct cfs_se *se = rq->curr;
	sim_time_t now = hv->sim->now, d;

	if (se == NULL)
		return;
	d = now - se->exec_start;
	if (d <= 0)
		return;
	se->exec_start = now;
	se->sum_exec += d;
	se->vruntime += calc_delta_fair(d, se);
	update_min_vruntime(rq);
}

int64_t
sched_cfs_vruntime(const struct hv *hv, const struct vcpu *v)
{
	const struct cfs *c = CFS(hv);
	const struct cfs_se *se = CFS_SE(v);

	if (c->rq[v->processor].curr == se && se->on_rq)
		return se->vruntime + calc_delta_fair(hv->sim->now - se->exec_start, se);
	return se->vruntime;
}

/* LNX-3.6 fair.c __sched_period: stretch the latency past nr_latency tasks */
static int64_t
sched_period(const struct cfs *c, int nr)
{
	return nr > c->nr_latency ? (int64_t)nr * c->min_gran : c->latency;
}

/* LNX-3.6 fair.c sched_slice: the entity's weighted share of the period */
static int64_t
sched_slice(const struct cfs *c, const struct cfs_rq *rq, const struct cfs_se *se)
{
	int64_t period = sched_period(c, rq->nr_running + !se->on_rq);
	long load = rq->load + (se->on_rq ? 0 : se->weight);

	return load > 0 ? period * se->weight / load : period;
}

/* LNX-3.6 fair.c place_entity */
static void
place_entity(const struct cfs *c, struct cfs_rq *rq, struct cfs_se *se, int initial)
{
	int64_t vr = rq->min_vruntime;

	if (initial)	/* START_DEBIT: a new task starts one vslice behind */
		vr += calc_delta_fair(sched_slice(c, rq, se), se);
	else		/* GENTLE_FAIR_SLEEPERS: half a latency of sleeper credit */
		vr -= c->latency / 2;
	if (vr > se->vruntime)
		se->vruntime = vr;
}

/* LNX-3.6 fair.c __clear_buddies_{last,next,skip} */
static void
clear_buddies(struct cfs_rq *rq, const struct cfs_se *se)
{
	if (rq->last == se)
		rq->last = NULL;
	if (rq->next == se)
		rq->next = NULL;
	if (rq->skip == se)
		rq->skip = NULL;
}

/* LNX-3.6 fair.c enqueue_entity (wakeup: ENQUEUE_WAKEUP -> place_entity) */
static void
enqueue_entity(struct hv *hv, struct cfs_rq *rq, struct cfs_se *se, int wakeup)
{
	struct cfs *c = CFS(hv);

	VS_ASSERT(!se->on_rq);
	update_curr(hv, rq);
	if (wakeup)
		place_entity(c, rq, se, 0);
	se->on_rq = 1;
	rq->nr_running++;
	rq->load += se->weight;
	if (se != rq->curr)
		rq_insert(c, rq, se);
	se->v->processor = rq->id;
}

/* LNX-3.6 fair.c dequeue_entity */
static void
dequeue_entity(struct hv *hv, struct cfs_rq *rq, struct cfs_se *se)
{
	VS_ASSERT(se->on_rq);
	update_curr(hv, rq);
	clear_buddies(rq, se);
	if (se->queued)
		rq_remove(rq, se);
	se->on_rq = 0;
	rq->nr_running--;
	rq->load -= se->weight;
	update_min_vruntime(rq);
}

/* LNX-3.6 fair.c task_waking_fair + enqueue: vruntime is relative to min_vruntime */
static void
renormalize(struct cfs_se *se, const struct cfs_rq *from, const struct cfs_rq *to)
{
	se->vruntime += to->min_vruntime - from->min_vruntime;
}

/* LNX-3.6 core.c resched_task: set need_resched, IPI a remote pCPU */
static void
resched(struct hv *hv, struct cfs_rq *rq)
{
	rq->need_resched = 1;
	hv_tickle(hv, &hv->pcpus[rq->id]);
}

/* LNX-3.6 fair.c wakeup_gran: wakeup_granularity in se's virtual time */
static int64_t
wakeup_gran(const struct cfs *c, const struct cfs_se *se)
{
	return calc_delta_fair(c->wakeup_gran, se);
}

/* LNX-3.6 fair.c wakeup_preempt_entity: 1 if se should preempt curr, -1 if
 * se is not left of curr, 0 if within one wakeup granularity. */
static int
wakeup_preempt_entity(const struct cfs *c, const struct cfs_se *curr,
    const struct cfs_se *se)
{
	int64_t vdiff = curr->vruntime - se->vruntime;

	if (vdiff <= 0)
		return -1;
	return vdiff > wakeup_gran(c, se) ? 1 : 0;
}

/* LNX-3.6 fair.c check_preempt_wakeup (NEXT_BUDDY off, LAST_BUDDY on) */
static void
check_preempt_wakeup(struct hv *hv, struct cfs_rq *rq, struct cfs_se *pse)
{
	struct cfs *c = CFS(hv);
	struct cfs_se *se = rq->curr;
	int scale = rq->nr_running >= c->nr_latency;

	if (se == NULL) {	/* the idle task is preempted by anything */
		resched(hv, rq);
		return;
	}
	if (se == pse || rq->need_resched)
		return;
	update_curr(hv, rq);
	if (wakeup_preempt_entity(c, se, pse) != 1)
		return;
	rq->next = pse;		/* set_next_buddy: bias pick_next to the preemptor */
	resched(hv, rq);
	if (se->on_rq && scale)
		rq->last = se;	/* set_last_buddy: prev may get the CPU back */
}

/* LNX-3.6 fair.c check_preempt_tick */
static void
check_preempt_tick(struct hv *hv, struct cfs_rq *rq)
{
	struct cfs *c = CFS(hv);
	struct cfs_se *curr = rq->curr;
	int64_t ideal = sched_slice(c, rq, curr), ran = curr->sum_exec - curr->prev_sum_exec;
	int64_t delta;

	if (ran > ideal) {
		resched(hv, rq);
		clear_buddies(rq, curr);
		return;
	}
	/* Do not preempt before min_granularity, so that it gets some run. */
	if (ran < c->min_gran || rq->nq == 0)
		return;
	delta = curr->vruntime - rq->q[0]->vruntime;
	if (delta > ideal)
		resched(hv, rq);
}

/* LNX-3.6 fair.c pick_next_entity: leftmost, unless a buddy is not too unfair */
static struct cfs_se *
pick_next_entity(const struct cfs *c, struct cfs_rq *rq)
{
	struct cfs_se *left, *se;

	if (rq->nq == 0)
		return NULL;
	left = se = rq->q[0];
	/* Avoid the skip buddy (a yielder) if the second is close enough. */
	if (rq->skip == se && rq->nq > 1 && wakeup_preempt_entity(c, rq->q[1], left) < 1)
		se = rq->q[1];
	/* Prefer the last buddy (cache locality), then the next buddy. */
	if (rq->last != NULL && wakeup_preempt_entity(c, rq->last, left) < 1)
		se = rq->last;
	if (rq->next != NULL && wakeup_preempt_entity(c, rq->next, left) < 1)
		se = rq->next;
	clear_buddies(rq, se);
	return se;
}

/* ---- load balancing ---- */

/* LNX-3.6 fair.c can_migrate_task: not running, allowed on the destination */
static int
can_migrate(const struct cfs_se *se, int dst)
{
	return se->queued && se->v->pcpu == NULL && se->v->affinity[dst];
}

/* LNX-3.6 fair.c task_hot: ran within migration_cost, its cache is still warm */
static int
task_hot(const struct hv *hv, const struct cfs_se *se)
{
	return hv->sim->now - se->exec_start < CFS(hv)->migration_cost;
}

/* The task to pull from src to dst: cache-cold first, then any; from the
 * right of the queue (the one that would wait longest on src). */
static struct cfs_se *
pull_candidate(const struct hv *hv, const struct cfs_rq *src, int dst)
{
	struct cfs_se *hot = NULL;
	int i;

	for (i = src->nq - 1; i >= 0; i--) {
		struct cfs_se *se = src->q[i];

		if (!can_migrate(se, dst))
			continue;
		if (!task_hot(hv, se))
			return se;
		if (hot == NULL)
			hot = se;
	}
	return hot;
}

/* LNX-3.6 fair.c move_task/pull_task: dequeue, renormalize, enqueue here */
static void
migrate(struct hv *hv, struct cfs_se *se, struct cfs_rq *src, struct cfs_rq *dst)
{
	dequeue_entity(hv, src, se);
	renormalize(se, src, dst);
	enqueue_entity(hv, dst, se, 0);
}

/*
 * One pass of load_balance over the sched domains of this pCPU, closest
 * first (SMT siblings, then the socket, then the machine), as
 * for_each_domain() does: pull one task from the busiest queue of the first
 * domain with an imbalance of at least min_imb tasks.  Returns the task.
 */
static struct cfs_se *
balance_one(struct hv *hv, struct cfs_rq *this, int min_imb)
{
	struct cfs *c = CFS(hv);
	static const enum hw_dist levels[] = { HW_SIBLING, HW_SOCKET, HW_REMOTE };
	size_t l;
	int i;

	for (l = 0; l < sizeof levels / sizeof levels[0]; l++) {
		struct cfs_rq *busiest = NULL;
		struct cfs_se *se = NULL;

		for (i = 0; i < hv->npcpus; i++) {
			struct cfs_rq *rq = &c->rq[i];
			struct cfs_se *cand;

			if (i == this->id || machine_dist(hv->m, this->id, i) != levels[l] ||
			    rq->nr_running < 2 || rq->nr_running - this->nr_running < min_imb ||
			    (busiest != NULL && rq->nr_running <= busiest->nr_running))
				continue;
			if ((cand = pull_candidate(hv, rq, this->id)) != NULL) {
				busiest = rq;
				se = cand;
			}
		}
		if (busiest != NULL) {
			migrate(hv, se, busiest, this);
			return se;
		}
	}
	return NULL;
}

/* LNX-3.6 fair.c idle_balance: only if this pCPU's idle periods are long */
static void
idle_balance(struct hv *hv, struct cfs_rq *this)
{
	struct cfs *c = CFS(hv);

	this->idle_stamp = hv->sim->now;
	if (this->avg_idle < c->migration_cost)
		return;
	if (balance_one(hv, this, 1) != NULL)
		this->idle_stamp = -1;
}

/* LNX-3.6 core.c ttwu_do_wakeup: average length of this rq's idle periods */
static void
update_avg_idle(const struct cfs *c, struct cfs_rq *rq, sim_time_t now)
{
	sim_time_t d, max = 2 * c->migration_cost;

	if (rq->idle_stamp < 0)
		return;
	d = now - rq->idle_stamp;
	if (d > max)
		rq->avg_idle = max;
	else
		rq->avg_idle += (d - rq->avg_idle) / 8;	/* update_avg */
	rq->idle_stamp = -1;
}

/* ---- CPU selection on wakeup ---- */

static int
cpu_idle(const struct cfs *c, int cpu)
{
	return c->rq[cpu].curr == NULL && c->rq[cpu].nr_running == 0;
}

/* LNX-3.2 fair.c select_idle_sibling: prev if idle, else the first idle
 * allowed pCPU of the cache-sharing domains (SMT siblings, then the socket),
 * else prev.  wake_affine (pulling towards the waker) is left out. */
static int
select_cpu(const struct hv *hv, const struct vcpu *v)
{
	const struct cfs *c = CFS(hv);
	static const enum hw_dist levels[] = { HW_SIBLING, HW_SOCKET };
	int prev = v->processor, i;
	size_t l;

	if (prev < 0 || !v->affinity[prev]) {	/* core.c select_fallback_rq */
		for (i = 0; i < hv->npcpus && !v->affinity[i]; i++)
			;
		VS_ASSERT(i < hv->npcpus);
		prev = i;
	}
	if (cpu_idle(c, prev))
		return prev;
	for (l = 0; l < sizeof levels / sizeof levels[0]; l++)
		for (i = 0; i < hv->npcpus; i++)
			if (v->affinity[i] && machine_dist(hv->m, prev, i) == levels[l] &&
			    cpu_idle(c, i))
				return i;
	return prev;
}

/* ---- sched_ops ---- */

static int
cfs_factor(int scaling, int ncpus)
{
	int n = ncpus < 8 ? ncpus : 8, lg = 0;

	/* LNX-3.6 fair.c get_update_sysctl_factor */
	switch (scaling) {
	case CFS_SCALE_NONE:
		return 1;
	case CFS_SCALE_LINEAR:
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

static int
cfs_init(struct hv *hv, const void *vcfg, struct vs_err *err)
{
	static const struct cfs_cfg defaults = { 1000, 6e6, 0.75e6, 1e6, 0.5e6, 4e6,
	    CFS_SCALE_LOG, 0, 0, NULL, NULL, NULL };
	const struct cfs_cfg *cfg = vcfg != NULL ? vcfg : &defaults;
	struct cfs *c = xcalloc(1, sizeof *c);
	int f = cfs_factor(cfg->scaling, hv->npcpus), i, k, *order;

	hv->sched_priv = c;
	c->latency = (int64_t)(cfg->latency * f);
	c->min_gran = (int64_t)(cfg->min_gran * f);
	c->wakeup_gran = (int64_t)(cfg->wakeup_gran * f);
	/* LNX-3.6 core.c sched_proc_update_handler: DIV_ROUND_UP(latency, min_gran) */
	c->nr_latency = (int)((c->latency + c->min_gran - 1) / c->min_gran);
	c->migration_cost = (int64_t)cfg->migration_cost;
	c->balance_interval = (int64_t)cfg->balance_interval;
	c->yield_to_esrch = cfg->yield_to_esrch;
	hv->tick_ns = sim_ns(1e9 / cfg->tick_hz);
	c->rq = xcalloc((size_t)hv->npcpus, sizeof *c->rq);
	for (i = 0; i < hv->npcpus; i++) {
		c->rq[i].id = i;
		c->rq[i].idle_stamp = -1;
		c->rq[i].avg_idle = 2 * c->migration_cost;	/* core.c sched_init */
		c->rq[i].next_balance = c->balance_interval;
	}
	c->se = xcalloc((size_t)hv->nvcpus + 1, sizeof *c->se);
	for (k = 0; k < cfg->nweights; k++) {
		int found = 0;

		for (i = 0; i < hv->nvms; i++)
			found |= cfs_name_matches(cfg->wname[k], hv->vms[i]->name);
		if (!found)
			return vs_errf(err, NULL, 0, 0, "%s: no VM named '%s'", cfg->wwhere[k],
			    cfg->wname[k]);
	}
	c->rng = rng_new(hv->sim->seed, RNG_ENTITY(RNG_KIND_HV, 1));
	/*
	 * Threads are placed in a random order across VMs: the scenario starts
	 * every VM at t = 0, but real vCPU threads were created at different
	 * times and have wandered since (their guests booted, idled and woke).
	 * Placing VM after VM would always give each VM's vCPUs pCPUs of their
	 * own and hide lock-holder preemption between a VM's own vCPUs.
	 */
	order = xmalloc((size_t)hv->nvcpus * sizeof *order);
	for (i = 0; i < hv->nvcpus; i++) {
		int j = (int)rng_below(c->rng, (uint64_t)i + 1);

		order[i] = order[j];
		order[j] = i;
	}
	/* ...except that vCPUs with fewer allowed pCPUs go first (stable), so
	 * affinity never forces a pCPU past its share. */
	for (i = 1; i < hv->nvcpus; i++) {
		int x = order[i], j = i;

		while (j > 0 && allowed(hv, hv->vcpus[order[j - 1]]) > allowed(hv, hv->vcpus[x])) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = x;
	}
	for (i = 0; i < hv->nvcpus; i++) {
		struct vcpu *v = hv->vcpus[order[i]];
		struct cfs_se *se = &c->se[v->id];
		int best = -1, p, ties = 0;

		se->v = v;
		se->weight = CFS_NICE0;
		for (k = 0; k < cfg->nweights; k++)
			if (cfs_name_matches(cfg->wname[k], v->vm->name))
				se->weight = cfg->weight[k];
		v->sched_priv = se;
		/* LNX-3.6 fair.c select_task_rq_fair (SD_BALANCE_FORK): the idlest
		 * allowed pCPU; ties drawn at random. */
		for (p = 0; p < hv->npcpus; p++) {
			if (!v->affinity[p])
				continue;
			if (best < 0 || c->rq[p].nr_running < c->rq[best].nr_running) {
				best = p;
				ties = 1;
			} else if (c->rq[p].nr_running == c->rq[best].nr_running &&
			    rng_below(c->rng, (uint64_t)++ties) == 0) {
				best = p;
			}
		}
		if (best < 0) {
			free(order);
			return vs_errf(err, NULL, 0, 0, "%s: vm '%s' vCPU %d may run on no pCPU",
			    v->vm->where, v->vm->name, v->idx);
		}
		/* LNX-3.6 fair.c task_fork_fair: place_entity(initial) */
		place_entity(c, &c->rq[best], se, 1);
		if (!v->blocked)
			enqueue_entity(hv, &c->rq[best], se, 0);
		v->processor = best;
	}
	free(order);
	return 0;
}

static void
cfs_deinit(struct hv *hv)
{
	struct cfs *c = CFS(hv);
	int i;

	for (i = 0; i < hv->npcpus; i++)
		free(c->rq[i].q);
	rng_free(c->rng);
	for (i = 0; i < hv->nvcpus; i++)
		hv->vcpus[i]->sched_priv = NULL;
	free(c->rq);
	free(c->se);
	free(c);
	hv->sched_priv = NULL;
}

/* LNX-3.6 core.c try_to_wake_up -> select_task_rq -> ttwu_activate -> check_preempt_curr */
static void
cfs_wake(struct hv *hv, struct vcpu *v)
{
	struct cfs *c = CFS(hv);
	struct cfs_se *se = CFS_SE(v);
	struct cfs_rq *rq, *old = &c->rq[v->processor];
	int cpu;

	if (v->pcpu != NULL) {
		/* Woken before its switch-out: it never left the CPU (ttwu_remote). */
		VS_ASSERT(old->curr == se);
		enqueue_entity(hv, old, se, 0);
		return;
	}
	cpu = select_cpu(hv, v);
	rq = &c->rq[cpu];
	if (rq != old)
		renormalize(se, old, rq);
	enqueue_entity(hv, rq, se, 1);
	update_avg_idle(c, rq, hv->sim->now);
	check_preempt_wakeup(hv, rq, se);
}

/* LNX-3.6 fair.c dequeue_task_fair (DEQUEUE_SLEEP) */
static void
cfs_sleep(struct hv *hv, struct vcpu *v)
{
	struct cfs_rq *rq = &CFS(hv)->rq[v->processor];
	struct cfs_se *se = CFS_SE(v);

	if (!se->on_rq)
		return;
	dequeue_entity(hv, rq, se);
	if (rq->curr == se)
		rq->need_resched = 1;	/* the core raises the softirq */
}

/* LNX-3.2 core.c __schedule: put_prev_task, idle_balance, pick_next_task */
static struct vcpu *
cfs_do_schedule(struct hv *hv, struct pcpu *p, sim_time_t *slice)
{
	struct cfs *c = CFS(hv);
	struct cfs_rq *rq = &c->rq[p->id];
	struct cfs_se *prev = rq->curr, *next;

	VS_ASSERT((prev != NULL ? prev->v : NULL) == p->curr);
	*slice = 0;	/* no HRTICK: the host tick checks preemption */
	rq->need_resched = 0;
	if (prev != NULL) {
		update_curr(hv, rq);
		rq->curr = NULL;
		if (prev->on_rq)	/* put_prev_entity: back into the tree */
			rq_insert(c, rq, prev);
	}
	if (rq->nr_running == 0)
		idle_balance(hv, rq);
	next = pick_next_entity(c, rq);
	if (next == NULL)
		return NULL;
	/* set_next_entity: out of the tree, a new slice starts */
	rq_remove(rq, next);
	rq->curr = next;
	next->exec_start = hv->sim->now;
	next->prev_sum_exec = next->sum_exec;
	VS_ASSERT(!next->v->blocked && next->v->affinity[p->id]);
	VS_ASSERT(next->v->pcpu == NULL || next->v->pcpu == p);
	return next->v;
}

/* LNX-3.6 fair.c yield_task_fair: become the skip buddy */
static void
yield_task(struct hv *hv, struct cfs_rq *rq, struct cfs_se *se)
{
	VS_ASSERT(rq->curr == se);
	if (rq->nr_running == 1)
		return;
	clear_buddies(rq, se);
	update_curr(hv, rq);
	rq->skip = se;
}

/* LNX-3.6 core.c sys_sched_yield */
static void
cfs_yield(struct hv *hv, struct vcpu *v)
{
	struct cfs_rq *rq = &CFS(hv)->rq[v->processor];

	if (v->pcpu == NULL)
		return;
	yield_task(hv, rq, CFS_SE(v));
	rq->need_resched = 1;	/* the core raises the softirq */
}

/* LNX-3.6 core.c yield_to + fair.c yield_to_task_fair (LNX-4.5: -ESRCH) */
static int
cfs_yield_to(struct hv *hv, struct vcpu *from, struct vcpu *to)
{
	struct cfs *c = CFS(hv);
	struct cfs_rq *rq = &c->rq[from->processor], *trq = &c->rq[to->processor];
	struct cfs_se *tse = CFS_SE(to);

	VS_ASSERT(from->pcpu != NULL);
	/* LNX-4.5: nothing to gain when both queues hold one task (under-commit) */
	if (c->yield_to_esrch && rq->nr_running == 1 && trq->nr_running == 1)
		return -1;
	/* task_running(p_rq, p) || p->state: running or blocked targets fail */
	if (to->pcpu != NULL || to->blocked || !tse->on_rq)
		return 0;
	trq->next = tse;	/* set_next_buddy on the target's own rq */
	yield_task(hv, rq, CFS_SE(from));
	if (trq != rq)		/* preempt && rq != p_rq: resched_task(p_rq->curr) */
		resched(hv, trq);
	rq->need_resched = 1;	/* then schedule() locally */
	hv_resched(from->pcpu, 0);
	return 1;
}

/* LNX-3.6 fair.c task_tick_fair -> entity_tick; core.c trigger_load_balance */
static void
cfs_tick(struct hv *hv, struct pcpu *p)
{
	struct cfs *c = CFS(hv);
	struct cfs_rq *rq = &c->rq[p->id];
	struct cfs_se *se;

	if (rq->curr != NULL && rq->curr->on_rq) {
		update_curr(hv, rq);
		if (rq->nr_running > 1)
			check_preempt_tick(hv, rq);
	}
	/* Periodic balance: move one task if the imbalance is >= 2 tasks. */
	if (hv->sim->now < rq->next_balance)
		return;
	rq->next_balance = hv->sim->now + c->balance_interval;
	if ((se = balance_one(hv, rq, 2)) == NULL)
		return;
	if (rq->curr == NULL) {		/* the idle task is preempted, locally: no IPI */
		rq->need_resched = 1;
		hv_resched(p, 0);
	} else
		check_preempt_wakeup(hv, rq, se);	/* pull_task: check_preempt_curr */
}

const struct sched_ops sched_cfs_ops = {
	.name = "cfs",
	.desc = "KVM host: vCPU threads under Linux 3.2 CFS (vruntime, buddies, yield_to)",
	.params = "hz=1000, latency=6ms, min_granularity=750us, wakeup_granularity=1ms, "
	    "migration_cost=500us, balance_interval=4ms, scaling=log, yield_to_esrch=false, "
	    "weights={VM: 1024}",
	.parse = cfs_parse,
	.free_cfg = cfs_free_cfg,
	.init = cfs_init,
	.deinit = cfs_deinit,
	.wake = cfs_wake,
	.sleep = cfs_sleep,
	.do_schedule = cfs_do_schedule,
	.yield = cfs_yield,
	.yield_to = cfs_yield_to,
	.tick = cfs_tick,
};
