/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sched_credit.h - private to the Xen credit scheduler (sched_credit*.c)
 * and its unit test.  Nothing else includes this: the hv core reaches the
 * scheduler only through sched_credit_ops.
 *
 * Naming follows Xen's sched_credit.c (XEN-4.2): csched_pcpu, csched_vcpu,
 * csched_dom, one csched_priv per run (Xen's csched_private).
 */
#ifndef VS_SCHED_CREDIT_H
#define VS_SCHED_CREDIT_H

#include <stdint.h>
#include <sys/queue.h>

#include "engine.h"
#include "hv/hv.h"
#include "hv/sched_pervm.h"

/* Xen 4.2 sched_credit.c: CSCHED_PRI_* (higher is better) */
#define CSCHED_PRI_TS_BOOST	0	/* time-share, just woken */
#define CSCHED_PRI_TS_UNDER	(-1)	/* time-share with credit left */
#define CSCHED_PRI_TS_OVER	(-2)	/* time-share out of credit */
#define CSCHED_PRI_IDLE		(-64)	/* the idle vCPU (here: nothing) */

/* Xen 4.2 sched_credit.c: CSCHED_FLAG_VCPU_* */
#define CSCHED_FLAG_PARKED	0x1	/* capped out: paused until credit > 0 */
#define CSCHED_FLAG_YIELD	0x2	/* go behind one lower-priority vCPU */

#define CSCHED_DEFAULT_WEIGHT	256	/* CSCHED_DEFAULT_WEIGHT */
#define CSCHED_CREDITS_PER_MSEC	10	/* CSCHED_CREDITS_PER_MSEC */

/* Which __runq_tickle: the parameter `tickle`. */
enum csched_tickle {
	CSCHED_TICKLE_UPSTREAM_42,	/* XEN-4.1/4.2 (model-reference §1.8) */
	CSCHED_TICKLE_PATCHED_2012,	/* + the two patches of seed 004 (Nov 2012) */
	CSCHED_TICKLE_XEN_43,		/* ebce2d836c + 750ec2271d (§1.9) */
};

struct csched_cfg {
	enum csched_tickle tickle;
	sim_time_t tslice_ns, tick_ns, ratelimit_ns;	/* ratelimit 0: off (Xen 4.1) */
	int tickle_one_idle;
	struct sched_pervm_wc wc;	/* xl sched-credit -d VM -w W / -c C */
	sim_time_t migration_delay_ns;	/* vcpu_migration_delay; 0: never cache-hot */
};

struct csched_dom;

/* Xen's list_heads as <sys/queue.h> tail queues (list_add = INSERT_HEAD). */
TAILQ_HEAD(csched_runq, csched_vcpu);
TAILQ_HEAD(csched_vcpu_list, csched_vcpu);
TAILQ_HEAD(csched_dom_list, csched_dom);

struct csched_vcpu {
	struct vcpu *v;
	struct csched_dom *sdom;
	TAILQ_ENTRY(csched_vcpu) runq_elem;
	TAILQ_ENTRY(csched_vcpu) active_elem;
	struct csched_runq *rq;		/* the runq it is on; NULL: not queued */
	int active;			/* on sdom's active list (Xen active_vcpu_elem) */
	int credit;
	int pri;
	unsigned flags;
	int migrating;			/* Xen _VPF_migrating: move at next schedule */
	sim_time_t start_time;		/* credit burnt up to here (relative when off-CPU) */
	sim_time_t last_run_time;	/* Xen v->last_run_time: last switch-out, -1 never */
};

struct csched_dom {
	struct vm *vm;
	int weight, cap;		/* cap: % of one pCPU, 0 = none */
	int active_vcpu_count;
	struct csched_vcpu_list active_vcpu;
	TAILQ_ENTRY(csched_dom) active_sdom_elem;
	int active;			/* on prv's active_sdom list */
};

struct csched_pcpu {
	struct csched_runq runq;	/* FIFO within priority */
	struct vcpu *curr;		/* what do_schedule last chose (NULL: idle) */
	unsigned runq_sort_last;
	int idle_bias;
	int last_tickle_cpu;		/* Xen per_cpu(last_tickle_cpu) */
	uint64_t tick;
};

struct csched_stats {
	uint64_t tickles;		/* pCPUs tickled */
	uint64_t steals;		/* vCPUs taken from a peer's run queue */
	uint64_t migrations;		/* running vCPUs moved (_VPF_migrating) */
	uint64_t kicked_away;		/* xen-4.3: cur kicked away by a waker */
	uint64_t ratelimited;		/* schedules that kept current by the rate limit */
	uint64_t accts;			/* csched_acct runs that handed out credit */
};

struct csched_priv {
	struct hv *hv;
	struct csched_cfg cfg;
	int credits_per_tslice;
	struct csched_pcpu *pcpus;
	struct csched_vcpu *vcpus;	/* by vcpu->id */
	struct csched_dom *doms;	/* by vm->id */
	unsigned char *idlers;		/* prv->idlers */
	unsigned char *mask, *scratch;	/* work masks, npcpus bytes each */
	unsigned char *last_tickled;	/* the pCPUs the last tickle raised */
	unsigned char *pick[3];		/* _csched_cpu_pick's masks */
	struct csched_dom_list active_sdom;
	int64_t weight;			/* prv->weight: sum over active vCPUs */
	int64_t credit;			/* prv->credit: credits_per_tslice * pCPUs */
	int64_t credit_balance;
	unsigned runq_sort;
	evq_id acct_ev;
	struct csched_stats st;
};

/*
 * One domain's step of csched_acct's share computation, exposed for tests.
 * The caller sets credit_total, weight_total, weight_left (= weight_total),
 * prev_balance, credits_per_tslice and xtra = 0 before the first domain.
 */
struct csched_acct_ctx {
	int64_t credit_total, weight_total, weight_left, prev_balance;
	int credits_per_tslice;
	int xtra;
};
/* Per-vCPU credit increment of a domain with n active vCPUs; *vcpu_cap gets
 * the per-vCPU cap (0: uncapped), *to_head whether Xen moves the domain to
 * the head of the active list. */
int csched_acct_share(struct csched_acct_ctx *, int weight, int cap, int nactive,
    int *vcpu_cap, int *to_head);

/* Credits burnt by delta ns of running: Xen 4.2 burn_credits rounding. */
int csched_burn_credits(struct csched_vcpu *, sim_time_t now);

/* Xen 4.2 _csched_cpu_pick: the pCPU v should run on, from the idlers and
 * v's affinity and processor; commit: remember the choice (idle_bias). */
int csched_cpu_pick(struct csched_priv *, struct vcpu *, int commit);

/* Accessors for tests. */
struct csched_priv *csched_priv(struct hv *);
struct csched_vcpu *csched_vcpu(struct vcpu *);

#endif
