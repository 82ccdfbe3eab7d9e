/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sched_fair.h - what Linux's fair class has in common between the `cfs`
 * (3.2) and `eevdf` (6.6) host schedulers: the task-level code of
 * kernel/sched/fair.c (the walks over the entity hierarchy of group
 * scheduling, load balancing, wake placement, task groups with their shares
 * and CFS bandwidth) around per-level entity operations that each policy
 * fills in (struct fair_class), as fair.c's enqueue_task_fair /
 * pick_next_task_fair call enqueue_entity / pick_next_entity.
 *
 * Private to sched_cfs.c, sched_eevdf.c and sched_fair.c (and their tests).
 *
 * Run-queue invariants (the rb-tree of Linux, as a sorted array):
 *   - rq->q holds the queued entities that are not running, sorted by
 *     (vruntime, seq); seq breaks ties first-in-first-out, as the rb-tree
 *     inserts equal keys to the right.  A queued entity's key never changes
 *     while it is in the array (only curr's vruntime advances), so removal
 *     finds it by binary search.  (6.6 sorts the same tree by vruntime and
 *     augments it with min_deadline; eevdf scans it for the pick.)
 *   - rq->curr is the entity running on the pCPU at this level (a task on a
 *     leaf, its group's entity above), kept out of rq->q as Linux keeps
 *     cfs_rq->curr out of the tree; it may be dequeued until switched out.
 *   - nr_running and load count every on_rq entity of the rq, curr included;
 *     h_nr_running counts the runnable tasks below (throttled ones left out).
 *   - avg_vruntime/avg_load: sum of (vruntime - min_vruntime) * weight and of
 *     weight over the queued entities (not curr), as 6.6 avg_vruntime_add;
 *     kept only where the policy reads them (fair_class.avg_vruntime).
 * A sorted array costs O(log n) to search and O(n) memmove to insert or
 * remove; with at most ~100 vCPUs per pCPU that is cheaper than a tree.
 */
#ifndef VS_SCHED_FAIR_H
#define VS_SCHED_FAIR_H

#include <stdint.h>

#include "evq.h"
#include "hw/machine.h"
#include "param.h"
#include "util.h"

struct hv;
struct pcpu;
struct vcpu;
struct yc_node;

/* LNX-3.6 sched.h NICE_0_LOAD: the weight of a nice-0 task */
#define FAIR_NICE0	1024
/* LNX-3.6 sched.h: prio_to_weight[] spans nice 19 (15) .. nice -20 (88761) */
#define FAIR_WMIN	15
#define FAIR_WMAX	88761
/* LNX-3.2 sched.c MIN_SHARES / MAX_SHARES (1 << 18) */
#define FAIR_MIN_SHARES	2
#define FAIR_MAX_SHARES	(1L << 18)

/* enqueue/dequeue flags (LNX-3.2 sched.c ENQUEUE_WAKEUP, ENQUEUE_INITIAL...) */
#define FAIR_WAKEUP	1	/* enqueue after a sleep / dequeue to sleep */
#define FAIR_INITIAL	2	/* a new task (fork placement) */
#define FAIR_MIGRATED	4	/* moved here by the balancer */
#define FAIR_DELAYED	8	/* the real dequeue of a delayed entity (LNX-6.12 DEQUEUE_DELAYED) */

/* none: all threads in the root; per-vm: a cgroup per VM (vms[].cgroup);
 * autogroup: LNX-3.2 sched_autogroup.c, one group per session, i.e. per VM
 * when each QEMU was started from its own session, at nice 0 (1024). */
enum fair_groups { FAIR_GROUPS_NONE, FAIR_GROUPS_PER_VM, FAIR_GROUPS_AUTOGROUP };

struct fair_rq;
struct fair_tg;

struct fair_se {
	struct vcpu *v;		/* NULL: a group's entity */
	struct fair_se *parent;	/* the group entity above, NULL in the root */
	struct fair_rq *cfs_rq;	/* the rq it is (to be) queued on */
	struct fair_rq *my_q;	/* a group entity's own rq */
	int depth;
	int64_t vruntime;
	int64_t deadline, vlag, slice;	/* eevdf */
	uint64_t seq;		/* tie-break among equal vruntimes: FIFO */
	sim_time_t exec_start;	/* last time update_curr charged it */
	sim_time_t sum_exec, prev_sum_exec;
	long weight;
	int on_rq;		/* counted in its rq's nr_running (queued or curr) */
	int queued;		/* in cfs_rq->q */
	int delayed;		/* eevdf DELAY_DEQUEUE: asleep but left on the rq */
};

struct fair_rq {
	int cpu;
	struct fair_se **q;	/* sorted by (vruntime, seq); see the header */
	int nq;
	size_t cap;
	struct fair_se *curr;
	struct fair_se *next, *last, *skip;	/* buddies */
	int nr_running, h_nr_running;
	long load;
	int64_t min_vruntime;
	int64_t avg_vruntime;
	long avg_load;
	int keep_avg;		/* fair_class.avg_vruntime: the two above are kept */
	struct fair_tg *tg;	/* NULL: the root */
	struct fair_se *owner;	/* the group entity that holds this rq (NULL: root) */
	int throttled;		/* CFS bandwidth: out of runtime this period */
	int64_t runtime_remaining;
	/* LNX-3.2 struct cfs_rq: the group rq's load over the shares window */
	int64_t load_stamp, load_last, load_period, load_unacc;
	int64_t load_avg;	/* sum of ns x load, halved each window */
	long load_contribution;	/* what this rq last added to tg->load_weight */
	/* cfs_tick_act's sched_slice of a nice-0 curr, valid while nr_running
	 * and load are the two beside it (its only inputs there) */
	int slice_nr;
	long slice_load;
	int64_t slice_ideal;
	/* what fair_tick_next takes from the curr that set_next_entity set,
	 * the rq as it leaves it: its class's tick_act, SIM_NEVER where it is
	 * not asked (nr_running 1), 0 where tick_next is 0 or its class does
	 * not say (fair_do_schedule: hv_tick_soon_at) */
	sim_time_t act_at;
};

/* The balancing state of one sched domain of a pCPU (LNX-3.2 struct
 * sched_domain: balance_interval, last_balance; schedstat lb_count).  The
 * domains are the machine's levels, indexed by enum hw_dist: HW_SIBLING
 * (SMT), HW_SOCKET (MC), HW_REMOTE (the NUMA level over all sockets). */
struct fair_sd {
	int64_t interval;	/* sd->balance_interval, ns (Linux: ms) */
	sim_time_t last_balance;
	uint64_t lb_count;	/* periodic load balances of this domain */
};

/* A level's constants, the same for every pCPU (symmetric machines). */
struct fair_sd_param {
	int exists;		/* 0: degenerate (no pCPU at this distance), not built */
	int weight;		/* pCPUs the domain spans (sd_weight) */
	int busy_factor;
	int64_t min_interval, max_interval, init_interval;	/* ns */
};

/* Per pCPU: the root rq and what Linux keeps in struct rq. */
struct fair_cpu {
	struct fair_rq root;
	int need_resched;	/* TIF_NEED_RESCHED: a SCHEDULE softirq is coming */
	sim_time_t idle_stamp;	/* when it went idle, -1 if not idle */
	sim_time_t avg_idle;
	sim_time_t next_balance;	/* rq->next_balance: the earliest due domain */
	struct fair_sd sd[HW_NDIST];	/* HW_SIBLING .. HW_REMOTE */
	long cpu_load;		/* LNX-3.2 rq->cpu_load[1]: root load decayed per tick */
	sim_time_t tick_done;	/* the last tick (run or skipped) it reflects */
};

/* A task group (a VM's cgroup): one rq and one entity per pCPU. */
struct fair_tg {
	struct fair *f;
	int id;
	long shares;		/* cpu.weight mapped to shares */
	struct fair_rq *rq;	/* per pCPU */
	struct fair_se *se;	/* per pCPU */
	int64_t quota, period;	/* cpu.max; quota < 0: no limit */
	int64_t runtime;	/* the bandwidth pool left this period */
	evq_id period_ev;
	uint64_t nr_throttled;	/* periods in which some rq was throttled */
	int throttled_now;
	long load_weight;	/* LNX-3.2 tg->load_weight: the rqs' contributions */
};

struct fair;

/* The per-level entity operations a policy fills in. */
struct fair_class {
	/* 1: pick the next entity at each level with curr still queued (6.6
	 * pick_next_task_fair, RUN_TO_PARITY needs curr); 0: the pick is from
	 * the tree with curr (if on_rq) put back first (3.2), which the pick
	 * works out without the put (fair_do_schedule); a kept curr is set
	 * again (a new slice). */
	int pick_with_curr;
	/* 1: update_min_vruntime follows curr only while curr->on_rq (6.6). */
	int min_vr_curr_on_rq;
	/* 1: the rqs keep avg_vruntime/avg_load (6.6 avg_vruntime_add), which
	 * its placement and pick read; 0: nothing reads them (3.2), and they
	 * are not kept (an imul at every insert, remove and min_vruntime move). */
	int avg_vruntime;
	/* update_curr after curr's vruntime moved (fair_update_curr_at; NULL:
	 * nothing more, as 3.2: no indirect call at every switch and yield) */
	void (*update_curr)(struct fair *, struct fair_rq *, struct fair_se *curr);
	void (*enqueue_entity)(struct fair *, struct fair_rq *, struct fair_se *, int flags);
	/* Returns 0 if the entity stays queued, delayed (LNX-6.12 DELAY_DEQUEUE). */
	int (*dequeue_entity)(struct fair *, struct fair_rq *, struct fair_se *, int flags);
	/* A delayed task is woken where it is queued (NULL: never delayed). */
	void (*requeue_delayed)(struct fair *, struct fair_rq *, struct fair_se *);
	struct fair_se *(*pick_next_entity)(struct fair *, struct fair_rq *);
	void (*set_next_entity)(struct fair *, struct fair_rq *, struct fair_se *);
	void (*entity_tick)(struct fair *, struct fair_rq *, struct fair_se *curr);
	/* The earliest time entity_tick of curr on rq can act, nothing else
	 * changing, curr's vruntime growing as its time (nice 0), just after a
	 * tick (NULL: its ticks are never skipped; sched_ops.tick_next). */
	sim_time_t (*tick_act)(struct fair *, struct fair_rq *, struct fair_se *curr);
	/* The woken task pse: resched its pCPU if it should preempt. */
	void (*check_preempt_wakeup)(struct fair *, struct fair_cpu *, struct fair_se *pse);
	/* yield_task_fair for the running task se. */
	void (*yield_task)(struct fair *, struct fair_cpu *, struct fair_se *);
	/* Moving se between leaf rqs of different pCPUs (NULL: nothing to do). */
	void (*renormalize)(struct fair_se *, const struct fair_rq *from,
	    const struct fair_rq *to);
	/* The weight of an entity changes (reweight_entity's policy part). */
	void (*reweight)(struct fair *, struct fair_rq *, struct fair_se *, long weight);
	/* Fork placement of a task at init (before any enqueue). */
	void (*place_initial)(struct fair *, struct fair_rq *, struct fair_se *);
	/* The load-balance constants of a domain level spanning weight pCPUs, in
	 * ms as Linux writes them (min/max/initial interval, busy_factor). */
	void (*sd_init)(enum hw_dist level, int weight, struct fair_sd_param *);
	/* 1: a busy pCPU's interval is one jiffy short (6.6 get_sd_balance_interval). */
	int busy_interval_trim;
	/* 1: the newly-idle balance also doubles a balanced domain's interval
	 * (3.2 load_balance; 6.6 skips it for CPU_NEWLY_IDLE). */
	int newidle_backoff;
	/* 1: 6.6: rebalance_domains takes next_balance from the interval after
	 * the balance, and newidle_balance only moves next_balance earlier, by
	 * update_next_balance; 0: 3.2: from the interval before, and
	 * idle_balance sets it from the raw intervals when it pulled or it was due. */
	int lb_next_v66;
};

/* The parameters both policies read (unscaled, ns). */
struct fair_cfg {
	double tick_hz, migration_cost, balance_interval;
	int scaling;
	int yield_to_esrch;
	int groups;
	int nweights;
	char **wname;		/* VM name */
	long *weight;
	char **wwhere;		/* "file:line:col" of the entry, for errors at init */
};

struct fair {
	struct hv *hv;
	const struct fair_class *cls;
	void *pol;		/* the policy's own state */
	struct fair_cpu *cpu;
	struct fair_se *se;	/* per vCPU, by v->id */
	struct fair_tg *tg;	/* per VM with groups: per-vm */
	int ntg;
	int groups;
	int factor;		/* get_update_sysctl_factor */
	int64_t migration_cost, bw_slice;
	struct fair_sd_param sdp[HW_NDIST];	/* per level */
	int64_t max_lb_interval;	/* max_load_balance_interval, ns */
	int yield_to_esrch;
	int64_t shares_window;	/* > 0: 3.2's averaged group loads; 0: the current ones */
	uint64_t seq;
	struct rng *rng;	/* ties in fork placement */
	/* nr_ge[k]: pCPUs whose root h_nr_running is >= k (k <= nvcpus), so a
	 * balance pass knows in O(1) when no queue is long enough to pull from. */
	int *nr_ge;
	int flat;		/* every entity a task of a root rq (groups: none):
				 * fair_do_schedule walks no hierarchy (tests may clear it) */
	int tick_skip;		/* quiet ticks are skipped (fair_tick_next) */
	int tick_fault;		/* a test's deliberately broken skip (tests/e2e_tickff.sh) */
};

#define FAIR_SE(v)	((struct fair_se *)(v)->sched_priv)

/* ---- parameters ---- */
/* Read params into cfg (whose first member is its struct fair_cfg) by the
 * policy's table pol and fair_params; refuse keys neither names. */
int fair_parse(const struct yc_node *params, double hz, const struct vs_param *pol, void *cfg,
    struct vs_err *);
/* sched_ops.free_cfg of a policy whose cfg starts with its struct fair_cfg. */
void fair_free_cfg(void *cfg);
/* The common keys for `vlocksim list` (struct sched_ops.params_more; param.h). */
extern const struct vs_param fair_params[];

/* LNX-3.6 fair.c get_update_sysctl_factor for a scaling (none, log, linear). */
int fair_sysctl_factor(int scaling, int ncpus);

/* ---- set-up ---- */
/* Build the per-pCPU rqs, groups and entities, and place every vCPU thread. */
int fair_init(struct hv *, struct fair *, const struct fair_class *, void *pol,
    const struct fair_cfg *, struct vs_err *);
void fair_deinit(struct hv *);

/* ---- the rq ---- */
void fair_rq_insert(struct fair *, struct fair_rq *, struct fair_se *);
void fair_rq_remove(struct fair_rq *, struct fair_se *);
/* fair_rq_insert of in, then fair_rq_remove of out, in one pass (a switch's
 * put_prev_entity and set_next_entity at the level that changes hands). */
void fair_rq_swap(struct fair *, struct fair_rq *, struct fair_se *in, struct fair_se *out);
void fair_account_enqueue(struct fair *, struct fair_rq *, struct fair_se *);
void fair_account_dequeue(struct fair *, struct fair_rq *, struct fair_se *);
void fair_update_min_vruntime(struct fair *, struct fair_rq *);
/* update_curr: charge the rq's running entity up to now. */
void fair_update_curr(struct fair *, struct fair_rq *);
void fair_update_curr_at(struct fair *, struct fair_rq *, sim_time_t now);
struct fair_cpu *fair_cpu_of(struct fair *, const struct fair_rq *);
/* LNX-3.6 fair.c calc_delta_fair: delta scaled to nice-0 virtual time */
static inline int64_t
fair_delta(int64_t delta, const struct fair_se *se)
{
	return se->weight == FAIR_NICE0 ? delta : delta * FAIR_NICE0 / se->weight;
}

/* update_cfs_shares: reweight rq's group entity from the group's loads. */
void fair_update_shares(struct fair *, struct fair_rq *);

/* ---- hierarchy helpers ---- */
void fair_find_matching_se(struct fair_se **se, struct fair_se **pse);
void fair_set_next_buddy(struct fair_se *);
void fair_set_last_buddy(struct fair_se *);
void fair_set_skip_buddy(struct fair_se *);
void fair_clear_buddies_up(struct fair_rq *, struct fair_se *);
/* LNX-3.2 fair.c clear_buddies: rq's buddies that name se are cleared, and
 * above it those naming its ancestors (inline for a root entity, which has
 * none: every pick and yield asks) */
static inline void
fair_clear_buddies(struct fair_rq *rq, struct fair_se *se)
{
	if (se->parent != NULL) {
		fair_clear_buddies_up(rq, se);
		return;
	}
	if (rq->last == se)
		rq->last = NULL;
	if (rq->next == se)
		rq->next = NULL;
	if (rq->skip == se)
		rq->skip = NULL;
}
/* The task entity running on cpu (NULL: idle). */
static inline struct fair_se *
fair_curr_task(struct fair_cpu *c)
{
	struct fair_se *se = c->root.curr;

	while (se != NULL && se->my_q != NULL)
		se = se->my_q->curr;
	return se;
}
/* resched_task: set need_resched and IPI the pCPU if remote. */
void fair_resched(struct fair *, struct fair_cpu *);
/* v's vruntime now, charging a running vCPU up to now without changing state. */
int64_t fair_vruntime(const struct hv *, const struct vcpu *);
/* A task group's bandwidth statistics (tests). */
const struct fair_tg *fair_tg_of(const struct hv *, const struct vcpu *);
/* pCPU cpu's domain at level (NULL if that level is degenerate) and the
 * level's constants (tests). */
const struct fair_sd *fair_sd_of(const struct hv *, int cpu, enum hw_dist level,
    const struct fair_sd_param **param);

/* ---- sched_ops bodies shared by cfs and eevdf ---- */
void fair_wake(struct hv *, struct vcpu *);
void fair_sleep(struct hv *, struct vcpu *);
struct vcpu *fair_do_schedule(struct hv *, struct pcpu *, sim_time_t *slice);
void fair_yield(struct hv *, struct vcpu *);
int fair_yield_to(struct hv *, struct vcpu *from, struct vcpu *to);
void fair_tick(struct hv *, struct pcpu *);
sim_time_t fair_tick_next(struct hv *, struct pcpu *);

/* Those bodies, the shared parameters and teardown, in a policy's ops table
 * after its name, params, parse, init, do_schedule and yield_to
 * (fair_do_schedule and fair_yield_to, or the policy's own around
 * fair_schedule_flat and fair_yield_to_cls: sched_fair_root.h). */
#define FAIR_SCHED_OPS \
	.params_more = fair_params, \
	.free_cfg = fair_free_cfg, \
	.deinit = fair_deinit, \
	.wake = fair_wake, \
	.sleep = fair_sleep, \
	.yield = fair_yield, \
	.tick_next = fair_tick_next

#endif
