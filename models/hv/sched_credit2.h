/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sched_credit2.h - private to the Xen credit2 scheduler (sched_credit2.c)
 * and its unit test.  The hv core reaches it only through sched_credit2_ops.
 *
 * Follows Xen RELEASE-4.19.0 xen/common/sched/credit2.c (credit2 is Xen's
 * default scheduler since 4.12).  Naming as there: csched2_runqueue_data
 * (here csched2_rqd), csched2_unit (one unit = one vCPU: sched-gran=cpu),
 * csched2_pcpu, csched2_dom, one csched2_priv per run.
 */
#ifndef VS_SCHED_CREDIT2_H
#define VS_SCHED_CREDIT2_H

#include <stdint.h>
#include <sys/queue.h>

#include "engine.h"
#include "hv/hv.h"
#include "hv/sched_pervm.h"

#define C2_US	1000LL
#define C2_MS	1000000LL

/* Xen 4.19 credit2.c: basic constants (credit is in ns of max-weight time) */
#define CSCHED2_DEFAULT_WEIGHT		256
#define CSCHED2_MIN_TIMER		(500 * C2_US)
#define CSCHED2_CREDIT_INIT		(10 * C2_MS)
#define CSCHED2_CREDIT_MIN		(-CSCHED2_CREDIT_INIT)
#define CSCHED2_IDLE_CREDIT		(CSCHED2_CREDIT_MIN - 1)
#define CSCHED2_CARRYOVER_MAX		CSCHED2_MIN_TIMER
#define CSCHED2_MIGRATE_COMPENSATION	(50 * C2_US)
#define CSCHED2_RATELIMIT_TICKLE_TOLERANCE (50 * C2_US)
#define CSCHED2_CREDIT_RESET		0
#define CSCHED2_MAX_TIMER		CSCHED2_CREDIT_INIT
/* Xen 4.19 credit2.c: LOADAVG_* (load averages in Q-format fixed point) */
#define LOADAVG_GRANULARITY_SHIFT	10
#define LOADAVG_WINDOW_SHIFT		30
#define LOADAVG_PRECISION_SHIFT		18

/* Xen 4.19 credit2.c: OPT_RUNQUEUE_* (the credit2_runqueue boot parameter) */
enum csched2_runq_arr {
	CSCHED2_RQ_CPU, CSCHED2_RQ_CORE, CSCHED2_RQ_SOCKET, CSCHED2_RQ_NODE, CSCHED2_RQ_ALL
};

struct csched2_cfg {
	/* what each is, its default and range: csched2_params (sched_credit2.c) */
	enum csched2_runq_arr runqueue;		/* credit2_runqueue */
	int max_cpus_runqueue;			/* sched_credit2_max_cpus_runqueue */
	sim_time_t ratelimit_ns;		/* sched_ratelimit_us; 0 off */
	sim_time_t migrate_resist_ns;		/* sched_credit2_migrate_resist */
	int load_window_shift;			/* credit2_load_window_shift */
	int load_precision_shift;		/* credit2_load_precision_shift */
	int balance_under, balance_over;	/* credit2_balance_under/over */
	struct sched_pervm_wc wc;		/* xl sched-credit2 -d VM -w W / -c C */
	sim_time_t cap_period_ns;		/* credit2_cap_period_ms */
};

struct csched2_rqd;
struct csched2_dom;

struct csched2_unit {
	struct vcpu *v;
	struct csched2_dom *sdom;
	struct csched2_rqd *rqd;		/* assigned runqueue */
	int credit;
	int weight;
	unsigned residual;			/* remainder of t2c's division */
	int yield;				/* CSFLAG_unit_yield */
	int scheduled;				/* CSFLAG_scheduled: running or switching out */
	int delayed_runq_add;			/* CSFLAG_delayed_runq_add */
	int migrate_request;			/* CSFLAG_runq_migrate_request */
	int migrating;				/* _VPF_migrating: move after switch-out */
	int pinned;				/* CSFLAG_pinned: hard affinity of one pCPU */
	int parked;				/* _VPF_parked: no budget left */
	int64_t budget, budget_quota;		/* INT64_MAX: the domain has no cap */
	struct csched2_rqd *migrate_rqd;
	int tickled_cpu;			/* pCPU that will pick it up (-1: none) */
	sim_time_t start_time;			/* credit burnt up to here */
	sim_time_t entry_time;			/* runstate.state_entry_time while running */
	sim_time_t load_last_update;		/* in (ns >> LOADAVG_GRANULARITY_SHIFT) */
	int64_t avgload;
	int on_runq;
	TAILQ_ENTRY(csched2_unit) runq_elem;	/* on rqd->runq, by credit */
	TAILQ_ENTRY(csched2_unit) rqd_elem;	/* on rqd->svc */
	TAILQ_ENTRY(csched2_unit) parked_elem;	/* on sdom->parked */
};

TAILQ_HEAD(csched2_unit_list, csched2_unit);

struct csched2_dom {
	struct csched2_priv *pr;
	int weight, cap;			/* cap: % of one pCPU, 0 = none */
	int nr_units;
	int64_t tot_budget, budget;		/* per cap period; the pool left */
	sim_time_t next_repl;
	evq_id repl_ev;
	struct csched2_unit_list parked;
};

struct csched2_rqd {
	int id;
	int refcnt, nr_cpus;
	struct csched2_unit_list runq;		/* runnable, highest credit first */
	struct csched2_unit_list svc;		/* all units assigned here */
	unsigned char *active, *idle, *tickled, *smt_idle;	/* npcpus bytes each */
	int load;				/* runnable units (not idle) */
	sim_time_t load_last_update;
	int64_t avgload, b_avgload;
	int max_weight;
	int pick_bias;
};

struct csched2_pcpu {
	struct csched2_rqd *rqd;
	unsigned char *sibling_mask;		/* SMT siblings in the same runqueue */
	struct vcpu *curr;			/* what do_schedule last chose (NULL: idle) */
};

struct csched2_stats {
	uint64_t tickles;			/* tickle_cpu calls */
	uint64_t tickle_idle, tickle_busy, tickle_none;
	uint64_t resets;			/* reset_credit */
	uint64_t ratelimited;			/* runq_candidate kept scurr by the rate limit */
	uint64_t balances;			/* balance_load that moved something */
	uint64_t migrations;			/* units moved between runqueues */
	uint64_t pulls;				/* runq_candidate took a unit of another pCPU */
	uint64_t parks, replenishments;		/* caps */
};

struct csched2_priv {
	struct hv *hv;
	struct csched2_cfg cfg;
	int window_shift;			/* load_window_shift - GRANULARITY_SHIFT */
	int nrqd;
	struct csched2_rqd *rqds;		/* in Xen's prv->rql order */
	struct csched2_pcpu *pcpus;
	struct csched2_unit *units;		/* by vcpu->id */
	struct csched2_dom *doms;		/* by vm->id */
	unsigned char *mask, *scratch;		/* work masks */
	struct csched2_stats st;
};

struct csched2_priv *csched2_priv(struct hv *);
struct csched2_unit *csched2_unit(struct vcpu *);
/* Xen 4.19 credit2.c: t2c_update, for tests: charge time ns to svc. */
void csched2_t2c_update(const struct csched2_rqd *, sim_time_t time, struct csched2_unit *);

#endif
