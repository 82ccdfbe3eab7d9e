/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gsched.h - guest scheduler policies: the ops table.
 *
 * One file per policy fills in a const struct guest_sched_ops, as Linux's
 * sched_class (fair, rt, idle) and the host's struct sched_ops do.  The
 * kernel core (kernel.c) owns tasks, switching, idle and IPIs; a policy owns
 * the order of each run queue and the decisions: which task next, whether a
 * tick or a wakeup preempts, where a waking or new task goes, what an idle
 * vCPU pulls.
 */
#ifndef VS_GSCHED_H
#define VS_GSCHED_H

#include "guest/task.h"
#include "param.h"

struct gkernel;

/* GS_SYNC: the waker is about to sleep (Linux WF_SYNC, __wake_up_sync_key:
 * a pipe's or a unix socket's wake); with GS_WAKE only. */
enum { GS_WAKE = 1, GS_FORK = 2, GS_MIGRATE = 4, GS_SYNC = 8 };

struct guest_sched_ops {
	const char *name;
	const char *desc;
	/* Its own keys of vms[].guest (param.h), or NULL; the guest kernel's
	 * common keys are scen_guest_params (sim/scenario/scenario.h). */
	const struct vs_param *params;
	/* Put t in c's queue (flags: GS_WAKE, GS_FORK, GS_MIGRATE); t is not curr.
	 * A sleeper the policy kept queued (t->delayed) may be moved by the
	 * balance (GS_MIGRATE, outside the counts) or woken (GS_WAKE). */
	void (*enqueue)(struct gcpu *c, struct task *t, int flags);
	/* Take t out of c's queue (it migrates away). */
	void (*dequeue)(struct gcpu *c, struct task *t, int flags);
	/* Take the next task to run out of the queue (NULL: none). */
	struct task *(*pick_next)(struct gcpu *c);
	/* curr ran for ns (guest clock); charge it. */
	void (*update_curr)(struct gcpu *c, struct task *curr, double ns);
	/* At a tick: should curr give way? */
	int (*tick_preempt)(struct gcpu *c, struct task *curr);
	/* t was just queued on c: should it preempt curr? */
	int (*wakeup_preempt)(struct gcpu *c, struct task *curr, struct task *t);
	/* Where t goes: a waking task (GS_WAKE, maybe GS_SYNC; waker = the
	 * waking vCPU, whose curr is the waker, or -1 from a device interrupt)
	 * or a new one (GS_FORK, waker = the parent's). */
	int (*select_cpu)(struct gkernel *, struct task *t, int waker, int flags);
	/* c is about to idle: a queued task of another vCPU to pull, or NULL. */
	struct task *(*steal)(struct gkernel *, struct gcpu *c);
	/* t, c's curr until now, blocked (dead: exited); c->curr is already
	 * NULL.  NULL: nothing to do (Linux dequeue_entity, DEQUEUE_SLEEP). */
	void (*sleep)(struct gcpu *c, struct task *t, int dead);
};

/* A policy's own keys (its params rows) are read into this, as its own
 * struct of ints and doubles (at most its size); gk_sched_cfg returns it. */
struct gs_cfg {
	double w[8];
};

/* Kernel services for policies. */
int gk_ncpus(const struct gkernel *);
struct gcpu *gk_cpu(struct gkernel *, int i);
int gk_task_allowed(const struct task *, int cpu);
/* Scheduler tunables of the guest (Linux 3.2 sched_fair.c, scaled by ncpus). */
struct gk_tunables {
	double latency_ns, min_gran_ns, wakeup_gran_ns;
	int nr_latency;
	int factor;		/* get_update_sysctl_factor: 1 + ilog2(min(ncpus, 8)) */
	double tick_ns;		/* TICK_NSEC (0: no tick modelled) */
};
const struct gk_tunables *gk_tunables(const struct gkernel *);
const void *gk_sched_cfg(const struct gkernel *);
/* The guest's jiffies: its ticks since boot (the guest clock / TICK_NSEC;
 * ms when no tick is modelled), and its HZ (1000 then). */
int64_t gk_jiffies(const struct gkernel *);
int gk_hz(const struct gkernel *);
/* Charge c's curr for the time it ran since it was last charged (Linux
 * update_curr, as enqueue_entity and check_preempt_wakeup call it). */
void gk_update_curr(struct gcpu *c);

/* Placement and pulling that Linux's fair class and the FIFO test policy share. */
int gk_select_cpu(struct gkernel *, struct task *, int waker, int flags);
struct task *gk_steal_busiest(struct gkernel *, struct gcpu *);

/* Wakeup placement of Linux's fair class (gsched_wake.c): 3.2
 * select_task_rq_fair (wake_affine with sync, select_idle_sibling), and
 * 6.18's (record_wakee, wake_wide, wake_affine_idle / _weight with the
 * WA_IDLE, WA_WEIGHT, WA_BIAS features, select_idle_sibling with
 * recent_used_cpu).  A new task goes where gk_select_cpu puts it. */
int gs_wake_select32(struct gkernel *, struct task *, int waker, int flags);
struct gs_wa_features {
	int idle, weight, bias;
};
int gs_wake_select618(struct gkernel *, struct task *, int waker, int flags,
    const struct gs_wa_features *);

extern const struct guest_sched_ops gsched_cfs_ops;
extern const struct guest_sched_ops gsched_fifo_ops;
extern const struct guest_sched_ops gsched_eevdf_ops;

#endif
