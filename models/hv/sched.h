/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sched.h - the host scheduler's ops table.
 *
 * One file per scheduler fills in a const struct sched_ops, in the manner
 * of Xen's struct scheduler (sched-if.h) and Linux's struct sched_class.
 * The hv core calls only through this table and never tests a name.
 * Optional hooks may be NULL; the hv core reaches those through the named
 * wrappers below (Xen private.h), so the NULL test sits in one place.
 */
#ifndef VS_SCHED_H
#define VS_SCHED_H

#include "evq.h"
#include "util.h"

#include "param.h"

struct hv;
struct pcpu;
struct vcpu;
struct yc_node;

struct sched_ops {
	const char *name;
	const char *desc;
	/* Its parameters (hypervisor.params.NAME) with type, unit, default and
	 * source, for `vlocksim list`: a NULL-terminated array (param.h), or NULL. */
	const struct vs_param *params;
	/* More of them shared with other tables (fair_params of cfs and eevdf). */
	const struct vs_param *params_more;
	/* Read the scheduler's parameters (NULL node: defaults) into *cfg. */
	int (*parse)(const struct yc_node *params, double hz, void **cfg, struct vs_err *);
	void (*free_cfg)(void *cfg);
	/* Set up for a run; vCPUs and pCPUs exist.  May refuse (bad placement). */
	int (*init)(struct hv *, const void *cfg, struct vs_err *);
	void (*deinit)(struct hv *);
	/* A blocked vCPU became runnable: queue it and tickle a pCPU. */
	void (*wake)(struct hv *, struct vcpu *);
	/* A running or runnable vCPU blocked. */
	void (*sleep)(struct hv *, struct vcpu *);
	/* Choose what pCPU p runs next (NULL: idle) and for how long (0: no limit). */
	struct vcpu *(*do_schedule)(struct hv *, struct pcpu *p, sim_time_t *slice);
	void (*yield)(struct hv *, struct vcpu *);			/* optional */
	/* optional; >0 yielded, else it failed and changed nothing (the PLE
	 * fast-forward repeats failed scans without calling it again) */
	int (*yield_to)(struct hv *, struct vcpu *from, struct vcpu *to);
	void (*tick)(struct hv *, struct pcpu *);			/* optional */
	/* Optional, with tick: the earliest time after now at which pCPU p's
	 * tick may act, its state unchanged (hv_tick_soon: it changed).  Used
	 * in runs whose init set hv->tick_skip: the ticks before it, which could
	 * change nothing, are not simulated, and ticks are early events, in the
	 * slow path too (hv.c hv_tick_ev). */
	sim_time_t (*tick_next)(struct hv *, struct pcpu *p);
};

/* Read the scheduler's parameters (none: no config; scenario.c refuses
 * params for a scheduler without parse). */
static inline int
sched_op_parse(const struct sched_ops *o, const struct yc_node *params, double hz, void **cfg,
    struct vs_err *err)
{
	return o->parse != NULL ? o->parse(params, hz, cfg, err) : 0;
}

static inline void
sched_op_free_cfg(const struct sched_ops *o, void *cfg)
{
	if (o->free_cfg != NULL)
		o->free_cfg(cfg);
}

static inline void
sched_op_deinit(const struct sched_ops *o, struct hv *hv)
{
	if (o->deinit != NULL)
		o->deinit(hv);
}

static inline int
sched_op_has_tick(const struct sched_ops *o)
{
	return o->tick != NULL;
}

static inline void
sched_op_tick(const struct sched_ops *o, struct hv *hv, struct pcpu *p)
{
	if (o->tick != NULL)
		o->tick(hv, p);
}

static inline sim_time_t
sched_op_tick_next(const struct sched_ops *o, struct hv *hv, struct pcpu *p)
{
	return o->tick_next(hv, p);	/* only where tick_skip: the scheduler has one */
}

static inline void
sched_op_yield(const struct sched_ops *o, struct hv *hv, struct vcpu *v)
{
	if (o->yield != NULL)
		o->yield(hv, v);
}

/* >0 yielded; 0 without the hook (a failed yield_to changes nothing) */
static inline int
sched_op_yield_to(const struct sched_ops *o, struct hv *hv, struct vcpu *from,
    struct vcpu *to)
{
	return o->yield_to != NULL ? o->yield_to(hv, from, to) : 0;
}

/* The schedulers, one file each (sched_NAME.c); models/registry.c lists them. */
extern const struct sched_ops sched_pinned_ops;
extern const struct sched_ops sched_cfs_ops;
extern const struct sched_ops sched_eevdf_ops;
extern const struct sched_ops sched_credit_ops;
extern const struct sched_ops sched_credit2_ops;

#endif
