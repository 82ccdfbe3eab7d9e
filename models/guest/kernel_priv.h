/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kernel_priv.h - the guest kernel's state and the few helpers its core
 * (kernel.c) and its scheduler-lock paths (kernel_rqlock.c) share.  Private
 * to those two files: everyone else goes through kernel.h.  kc_ names are
 * kernel.c's, ks_ names kernel_rqlock.c's.
 */
#ifndef VS_KERNEL_PRIV_H
#define VS_KERNEL_PRIV_H

#include "engine.h"
#include "guest/kernel.h"
#include "hv/hv.h"

struct glock;
struct lock_lines;

struct gkernel {
	struct vm *vm;
	struct gk_config cfg;
	struct gk_tunables tun;
	int ncpu;
	struct gcpu *cpus;
	int nidle;		/* vCPUs with c->idle set: none, no idle one to kick */
	int *allowed_live;	/* per vCPU: live tasks that may run there */
	int live;
	int ntasks;
	size_t captasks;
	struct task **tasks;	/* every task made, freed at the end */
	guest_fn first;		/* a new task's first step */
	struct ipi *ipi;	/* IPIs, function calls, TLB shootdowns (ipi.c) */
	const struct gk_smp_ops *smp;	/* ... reached through it */
	struct watch {		/* the sleeping locks (slock.c), in order */
		const struct gk_owner_watch *ops;
		void *lock;
	} *watches;
	int nwatches;
	size_t capwatches;
	int nwatch_spin;	/* tasks on a watched lock's spinners (gk_watch_spin) */
	int entry_due;		/* vCPUs with VM-entry work of the IPI layer (gk_entry_due) */
	double tick_ns;
	int tick_lane;		/* the event queue's FIFO lane for re-armed ticks */
	struct gtimers *timers;	/* guest timers on the vCPUs (gtimer.c) */
	double irq_exit_ns;	/* an interrupt's exits, read at gk_start (the kind is set up) */
	double switch_ns;	/* a context switch's cost outside the rq->lock */
	int pv_timer;		/* the timer re-arms by hypercall (Xen's), read at gk_start */
	struct gk_stats st;
	/* by task id: the statistics of a dead task's pi lock, freed (ks_pi_put) */
	struct gk_lockclass *pi_gone;
	size_t cap_pi_gone;
	/* the freed pi locks, for the next tasks' (ks_pi_new renews one) */
	struct glock **pi_spare;
	size_t npi_spare, cap_pi_spare;
};

static inline struct sim *
ksim(const struct gkernel *k)
{
	return k->vm->hv->sim;
}

static inline const struct machine *
kmach(const struct gkernel *k)
{
	return k->vm->hv->m;
}

/* &v->vm->kernel->cpus[v->idx], kept beside the guest's activity (one load
 * from a line the event has just read, instead of three cold ones) */
static inline struct gcpu *
cpu_of(struct vcpu *v)
{
	return guest_kcpu(v);
}
/* A sleeping-lock owner leaves its vCPU: its spinners look again. */
static inline void
owner_off(struct gkernel *k, const struct task *t)
{
	int i;

	for (i = 0; t->slocks_held > 0 && i < k->nwatches; i++)
		k->watches[i].ops->owner_off(k->watches[i].lock, t);
}
/* The scheduler's clock: the guest's time, less steal time if it is told. */
static inline double
cpu_clock_at(const struct gcpu *c, sim_time_t now)
{
	const struct vcpu *v = c->v;

	if (!c->k->cfg.steal_clock)
		return (double)now;
	return (double)(v->rs_time[RS_RUNNING] + (v->rs == RS_RUNNING ? now - v->rs_since : 0));
}

static inline double
cpu_clock(const struct gcpu *c)
{
	return cpu_clock_at(c, ksim(c->k)->now);
}

/* update_curr as of the scheduler's clock `now` (account: the clock now) */
static inline void
account_at(struct gcpu *c, double now)
{
	struct task *t = c->curr;
	double ns;

	if (t == NULL)
		return;
	ns = now - t->exec_clock;
	t->exec_clock = now;
	if (ns <= 0)
		return;
	t->sum_exec += ns;
	c->k->cfg.sched->update_curr(c, t, ns);
}

static inline void
account(struct gcpu *c)
{
	account_at(c, cpu_clock(c));
}

/* Lazy ticks (kernel.c tick_lazy): replayed before c's state is read or
 * changed. */
void kc_tick_sync(struct gcpu *c);

static inline void
tick_sync(struct gcpu *c)
{
	if (__builtin_expect(c->tick_lazy, 0))
		kc_tick_sync(c);
}

static inline int
cpu_is_idle(const struct gcpu *c)
{
	return c->curr == NULL && c->nqueued == 0;
}
static inline void
enqueue(struct gcpu *c, struct task *t, int flags)
{
	tick_sync(c);
	if (t->prev_cpu >= 0)	/* a wake reads the previous queue's min_vruntime */
		tick_sync(&c->k->cpus[t->prev_cpu]);
	t->state = T_RUNNABLE;
	t->cpu = c->idx;
	c->nqueued++;
	c->load += t->weight;
	c->k->cfg.sched->enqueue(c, t, flags);
}

static inline void
dequeue(struct gcpu *c, struct task *t, int flags)
{
	tick_sync(c);
	c->k->cfg.sched->dequeue(c, t, flags);
	c->nqueued--;
	c->load -= t->weight;
}
/* Under preempt=none or voluntary, t runs kernel code no reschedule may
 * cut: a sleeping lock's section (Linux 6.18 kernel/entry/common.c:
 * irqentry_exit_cond_resched is off without full preemption; the switch
 * waits for the return to user space, which the model's next primitive
 * after the unlock stands for, or under voluntary for a might_sleep point:
 * gk_might_resched). */
static inline int
kernel_code(const struct gkernel *k, const struct task *t)
{
	return t->slocks_held > 0 && k->cfg.preempt != GK_PREEMPT_FULL;
}

/* kernel.c */
void kc_timer_exits(struct gcpu *);
void kc_tick_sync_all(struct gkernel *, int hv);
void kc_switch_to(struct gcpu *, struct task *t, struct task *prev);
void kc_schedule_from(struct gcpu *, struct task *prev);
void kc_go_idle(struct gcpu *);
void kc_wake_on(struct gkernel *, struct task *, int cpu, int waker, int flags);
void kc_balance_kick(struct gcpu *);
struct task *kc_balance_find(struct gcpu *);
void kc_balance_pull(struct gcpu *, struct task *);
void kc_exec_migrate(struct gcpu *, int dest, guest_fn resume);

/* kernel_rqlock.c: the scheduler's locks */
extern const struct lock_lines ks_rq_lines, ks_pi_lines;
struct glock *ks_lock_new(struct gkernel *, const char *cls, int i, const struct lock_lines *);
int ks_wakes(struct gcpu *, guest_fn resume);
int ks_exec(struct gcpu *, guest_fn resume);
void ks_touch(struct gcpu *, struct task *);
void ks_pi_put(struct gkernel *, struct task *);
/* Task id's p->pi_lock: a freed one renewed if there is one, else a new one. */
struct glock *ks_pi_new(struct gkernel *, int id);
void ks_schedule(struct gcpu *, struct task *prev);
void ks_tick(struct gcpu *);

#endif
