/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kernel_rqlock.c - the guest scheduler's own locks: the paths of
 * kernel.c's wake, schedule and tick that take rq->lock and p->pi_lock when
 * vms[].guest.sched_locks is on, as chains of steps on the vCPU.
 */
#include <stdlib.h>
#include <string.h>

#include "guest/kernel_priv.h"
#include "guest/lock.h"
#include "stats.h"

/*
 * The scheduler's locks (vms[].guest.sched_locks; models/README.md "The
 * guest kernel"): each run queue's rq->lock and each task's p->pi_lock,
 * spinlocks of the VM's own algorithm (so a preempted holder makes the
 * others spin or halt as any kernel spinlock does), taken with interrupts
 * off (raw_spin_lock_irqsave) where the kernel takes them.  A path that
 * takes them is a chain of lock calls and held work on its vCPU; ks_step
 * says where ks_cont, the locks' continuation, goes on.  Left out: a tick
 * that finds its task spinning, in a spinlock section or idle, and wakes
 * from interrupts (a timer's, a device's), take no lock here.
 */
static void ks_cont(struct vcpu *);
static struct gk_lockclass ks_class_of(const struct glock *);
static const struct lock_client ks_client = { .cont = ks_cont };
/* The lines a section touches (a-priori): rq->lock's, struct rq's counts
 * and the tree's leftmost (2); p->pi_lock's, the task's state line (1). */
const struct lock_lines ks_rq_lines = { .cs = 2 };
const struct lock_lines ks_pi_lines = { .cs = 1 };

/* Lock i's name "cls[i]" in buf (without printf's cost: every fork names one). */
static const char *
ks_name(char (*buf)[32], const char *cls, int i)
{
	char d[12];
	size_t c = strlen(cls), n = 0;

	VS_ASSERT(i >= 0 && c + sizeof d + 2 < sizeof *buf);
	do
		d[n++] = (char)('0' + i % 10);
	while ((i /= 10) > 0);
	memcpy(*buf, cls, c);
	(*buf)[c++] = '[';
	while (n > 0)
		(*buf)[c++] = d[--n];
	(*buf)[c++] = ']';
	(*buf)[c] = '\0';
	return *buf;
}

/* Lock i of class cls ("rq", "pi"): one lockdep class each (run --lock-stat). */
struct glock *
ks_lock_new(struct gkernel *k, const char *cls, int i, const struct lock_lines *lines)
{
	char nm[32];

	return lock_new(k->cfg.lock_ops, k->cfg.lock_cfg, ks_name(&nm, cls, i), k->vm, lines,
	    &ks_client);
}

struct glock *
ks_pi_new(struct gkernel *k, int id)
{
	struct glock *l;
	char nm[32];

	if (k->npi_spare == 0)
		return ks_lock_new(k, "pi", id, &ks_pi_lines);
	l = k->pi_spare[--k->npi_spare];
	lock_renew(l, k->cfg.lock_cfg, ks_name(&nm, "pi", id), &ks_pi_lines, &ks_client);
	return l;
}

enum ks_step {
	KS_NONE,
	KS_BEGIN,	/* an interrupt's cost paid first: then the locks */
	KS_PI,		/* p->pi_lock taken: wait for p->on_cpu, or select_task_rq's work */
	KS_ONCPU,	/* spun until p's vCPU finished switching it out: select's work */
	KS_SELECT,	/* ... done: the target's rq->lock, or its wake list */
	KS_RQ,		/* the target's rq->lock taken: ttwu_do_activate's work */
	KS_ACTIVATE,	/* ... done: activate, unlock */
	KS_RQ_OUT,	/* unlocked: unlock p->pi_lock */
	KS_PI_OUT,	/* that wake is done: the next, or what follows */
	KS_TOUCH,	/* a try that finds p awake: p->pi_lock taken, the state check */
	KS_EXEC,	/* sched_exec's p->pi_lock taken: select_task_rq's work */
	KS_EXEC_SEL,	/* ... done: where to, unlock */
	KS_EXEC_OUT,	/* unlocked: stay, or migrate (the stopper's wake) */
	KS_SCHED,	/* __schedule's rq->lock taken */
	KS_RELOCK,	/* dropped for double_lock_balance: the lower one first */
	KS_LOWER,	/* the lower (the busiest) taken: now this one */
	KS_BOTH,	/* both taken: the move's work */
	KS_MOVED,	/* ... done: move, unlock the busiest */
	KS_PICK,	/* ... unlocked: __schedule's work */
	KS_PICKED,	/* this rq->lock alone, __schedule's work done: unlock */
	KS_SWITCH,	/* unlocked: pick and switch, or idle */
	KS_TICK,	/* scheduler_tick's rq->lock taken: its work */
	KS_TICKED,	/* ... done: account, tick_preempt, unlock */
	KS_TICK_OUT,	/* unlocked: the periodic balance (double_rq_lock), or the end */
	KS_TB_LOW,	/* its lower rq->lock taken: the higher */
	KS_TB_BOTH,	/* both taken: the move's work */
	KS_TB_MOVED,	/* ... done: move, unlock this one */
	KS_TB_OUT,	/* unlocked: unlock the busiest */
	KS_TICK_END,	/* all unlocked: the interrupt's rest, then the task again */
};

static const struct machine *
ks_mach(const struct gcpu *c)
{
	return kmach(c->k);
}

/*
 * The next step of c's lock path: a wake of its wake_q (Linux 6.6
 * kernel/sched/core.c wake_up_q -> try_to_wake_up: raw_spin_lock_irqsave
 * (&p->pi_lock) first), then a schedule's rq->lock (__schedule: local_irq_
 * disable, rq_lock), else the caller goes on with interrupts on again.
 */
static void
ks_go(struct gcpu *c)
{
	struct vcpu *v = c->v;
	guest_fn done;

	if (!TAILQ_EMPTY(&c->wake_q)) {
		struct task *t = TAILQ_FIRST(&c->wake_q);

		TAILQ_REMOVE(&c->wake_q, t, wait_link);
		c->nwake--;
		c->ks_wakee = t;
		c->ks_step = KS_PI;
		lock_acquire(t->pi_lock, v);
		return;
	}
	if (c->ntouch > 0) {
		struct task *t = c->ks_touch[0];

		memmove(c->ks_touch, c->ks_touch + 1, (size_t)--c->ntouch * sizeof *c->ks_touch);
		c->nwake--;
		c->ks_wakee = t;
		c->ks_step = KS_TOUCH;
		lock_acquire(t->pi_lock, v);
		return;
	}
	if (c->ks_exec) {
		c->ks_exec = 0;
		c->ks_wakee = c->curr;
		c->ks_step = KS_EXEC;
		lock_acquire(c->curr->pi_lock, v);	/* sched_exec */
		return;
	}
	if (c->ks_tick) {
		c->ks_tick = 0;
		c->ks_step = KS_TICK;
		lock_acquire(c->rq_lock, v);	/* scheduler_tick: rq_lock(rq) */
		return;
	}
	if (c->ks_sched) {
		c->ks_step = KS_SCHED;
		lock_acquire(c->rq_lock, v);
		return;
	}
	c->ks_step = KS_NONE;
	done = c->ks_done;
	c->ks_done = NULL;
	guest_irqs_on(v);	/* raw_spin_unlock_irqrestore: a pending interrupt now */
	done(v);
}

/* A lock path begins with interrupts off; an interrupt's cost still to pay
 * (guest_overhead: its handler ran just before) is paid before the first
 * lock is asked for, not inside its hold. */
static void
ks_begin(struct gcpu *c)
{
	guest_irqs_off(c->v);
	if (guest_overhead(c->v, 0) > 0) {
		c->ks_step = KS_BEGIN;
		guest_work(c->v, 0, ks_cont);
		return;
	}
	ks_go(c);
}

/* The preemption point after a wake (or fork): the wakes under the locks,
 * then resume, which is that preemption point again. */
int
ks_wakes(struct gcpu *c, guest_fn resume)
{
	c->curr->compute = 0;
	c->ks_done = resume;
	c->ks_sched = 0;
	ks_begin(c);
	return 1;
}

/* LNX-6.6 kernel/sched/core.c sched_exec (from fs/exec.c bprm_execve):
 * select_task_rq(WF_EXEC) under current's p->pi_lock; if that is another
 * CPU, stop_one_cpu(migration_cpu_stop) moves it there (kc_exec_migrate).
 * The wakes c's task asked for first. */
int
ks_exec(struct gcpu *c, guest_fn resume)
{
	c->curr->compute = 0;
	c->ks_done = resume;
	c->ks_sched = 0;
	c->ks_exec = 1;
	ks_begin(c);
	return 1;
}

/* A try_to_wake_up of t from c's task that will find it awake or not
 * waiting for it (ttwu_state_match fails under p->pi_lock): done with c's
 * wakes, after them. */
void
ks_touch(struct gcpu *c, struct task *t)
{
	VS_ASSERT(c->ntouch < KS_TOUCHES);
	c->ks_touch[c->ntouch++] = t;
	c->nwake++;
	t->pi_refs++;
}

/* A wake or try of t is done (or t has died): a dead task that nobody will
 * lock again gives its p->pi_lock back, its statistics kept (140 k short
 * processes in a kernbench run would otherwise hold 140 k locks), for a
 * later task's (ks_pi_new renews it without the allocations).  Not
 * while a probe watches: traces and --lock-stat know a lock by its address,
 * which a later lock would take over. */
void
ks_pi_put(struct gkernel *k, struct task *t)
{
	if (t->state != T_DEAD || t->pi_refs > 0 || t->pi_lock == NULL ||
	    k->vm->hv->probe != NULL)
		return;
	VS_GROW(k->pi_gone, k->cap_pi_gone, (size_t)t->id);
	k->pi_gone[t->id] = ks_class_of(t->pi_lock);
	VS_GROW(k->pi_spare, k->cap_pi_spare, k->npi_spare);
	k->pi_spare[k->npi_spare++] = t->pi_lock;
	t->pi_lock = NULL;
}

/* __schedule() under c's rq->lock (the wakes c's task asked for first, as
 * do_exit's wake of its parent precedes do_task_dead's __schedule). */
void
ks_schedule(struct gcpu *c, struct task *prev)
{
	c->ks_prev = prev;
	c->ks_sched = 1;
	ks_begin(c);
}

/*
 * A tick on c while its task computes (Linux kernel/time/tick-sched.c
 * tick_sched_timer -> scheduler_tick): the task's work is put aside, as a
 * preemption would, the tick's exits are paid, then scheduler_tick under
 * c's rq->lock and the periodic balance (3.2 run_rebalance_domains ->
 * load_balance: double_rq_lock) before the interrupt's rest.  A tick that
 * finds the task spinning, in a spinlock section or idle takes no lock.
 */
void
ks_tick(struct gcpu *c)
{
	struct gkernel *k = c->k;
	struct task *t = c->curr;

	c->tick_pending = 0;
	k->st.ticks++;
	kc_timer_exits(c);
	t->compute = 0;
	t->mem = guest_save(c->v, &t->rem, &t->cont);
	c->ks_tick = 1;
	c->ks_sched = 0;
	ks_begin(c);
}

/* The tick's interrupt after its locks: timers, function calls, then the
 * task goes on, or is preempted (put back and scheduled, as preempt). */
static void
ks_tick_end(struct gcpu *c)
{
	struct gkernel *k = c->k;
	struct vcpu *v = c->v;
	struct task *t = c->curr;
	double rem = t->rem;
	guest_fn cont = t->cont;

	c->timer_pending = 0;
	gt_run(k->timers, c->idx, v);
	k->smp->irq(k->ipi, c);
	if (c->need_resched && c->nqueued > 0 && !kernel_code(k, t)) {
		account(c);
		c->curr = NULL;
		c->load -= t->weight;
		enqueue(c, t, 0);
		owner_off(k, t);
		kc_schedule_from(c, t);	/* its lock path turns interrupts on */
		return;
	}
	t->compute = 1;
	t->rem = 0;
	t->cont = NULL;
	if (t->mem) {
		t->mem = 0;
		guest_memory(v, rem, cont);
	} else
		guest_work(v, rem, cont);
	guest_irqs_on(v);
}

/*
 * LNX-6.6 kernel/sched/core.c ttwu_queue_cond (TTWU_QUEUE): a wakee for
 * another CPU of the cache domain (a VM's vCPUs share one) with nothing
 * running goes on that CPU's wake list with an IPI, and the target
 * activates it under its own rq->lock (sched_ttwu_pending, here its
 * schedule's): the waker takes no rq->lock.  LNX-6.6 wake_up_new_task
 * takes the new task's rq->lock itself.
 */
static int
ks_queue_remote(const struct gcpu *c, const struct gcpu *d, int flags)
{
	/* wake_up_new_task locks the new task's rq itself: no wake list */
	return !(flags & GS_FORK) && d != c && cpu_is_idle(d);
}

/* __schedule's work and pick under c's rq->lock alone. */
static void
ks_pick(struct gcpu *c)
{
	c->ks_step = KS_PICKED;
	guest_work(c->v, ks_mach(c)->sched_pick_ns, ks_cont);
}

/*
 * try_to_wake_up under p->pi_lock, before select_task_rq: a wakee still
 * being switched out on another vCPU (its __schedule holds or waits for
 * that rq->lock, its prev is p) is waited for: LNX-6.6 kernel/sched/core.c
 * try_to_wake_up: smp_cond_load_acquire(&p->on_cpu, !VAL), the pi_lock held
 * (3.2 kernel/sched.c: while (p->on_cpu) cpu_relax()), unless that vCPU has
 * nothing else to run, when p goes on its wake list there without a select
 * (ttwu_queue_wakelist(p, task_cpu(p)): ttwu_queue_cond, !nr_running), and
 * that schedule picks it.  1: so handled (c spins, or the wake is done).
 */
static int
ks_on_cpu(struct gcpu *c, struct task *t)
{
	struct gkernel *k = c->k;
	struct gcpu *e = t->cpu >= 0 ? &k->cpus[t->cpu] : NULL;

	if (e == NULL || e == c || e->ks_prev != t || e->ks_step < KS_SCHED ||
	    e->ks_step > KS_PICKED)
		return 0;
	if (e->nqueued == 0) {
		c->ks_target = e;
		kc_wake_on(k, t, e->idx, c->idx, t->wake_flags);
		c->ks_step = KS_PI_OUT;
		lock_release(t->pi_lock, c->v);
		return 1;
	}
	VS_ASSERT(e->ks_oncpu_waiter == NULL);	/* one waker: it holds p->pi_lock */
	e->ks_oncpu_waiter = c;
	k->st.ttwu_oncpu++;
	c->ks_step = KS_ONCPU;
	guest_spin_wait(c->v, ks_cont);
	return 1;
}

/* The wake path's steps (try_to_wake_up). */
static void
ks_wake_step(struct gcpu *c)
{
	struct vcpu *v = c->v;
	struct gcpu *d = c->ks_target;
	struct gkernel *k = c->k;
	struct task *t = c->ks_wakee;

	switch (c->ks_step) {
	case KS_PI:
		if (ks_on_cpu(c, t))
			return;
		/* off its vCPU: select_task_rq */
		/* FALLTHROUGH */
	case KS_ONCPU:
		c->ks_step = KS_SELECT;
		guest_work(v, ks_mach(c)->sched_pi_ns, ks_cont);
		return;
	case KS_SELECT:
		d = c->ks_target = &k->cpus[k->cfg.sched->select_cpu(k, t, c->idx, t->wake_flags)];
		if (ks_queue_remote(c, d, t->wake_flags)) {
			kc_wake_on(k, t, d->idx, c->idx, t->wake_flags);
			c->ks_step = KS_PI_OUT;
			lock_release(t->pi_lock, v);
			return;
		}
		c->ks_step = KS_RQ;
		lock_acquire(d->rq_lock, v);	/* ttwu_queue: rq_lock(rq) */
		return;
	case KS_RQ:
		c->ks_step = KS_ACTIVATE;
		guest_work(v, ks_mach(c)->sched_ttwu_ns, ks_cont);
		return;
	case KS_ACTIVATE:
		if (t->delayed && t->cpu != d->idx) {
			/* a sleeper EEVDF keeps queued was moved meanwhile (a
			 * tick's balance): LNX-6.6 __task_rq_lock retries on the
			 * task's new rq */
			c->ks_step = KS_SELECT;
			lock_release(d->rq_lock, v);
			return;
		}
		kc_wake_on(k, t, d->idx, c->idx, t->wake_flags);	/* ttwu_do_activate */
		c->ks_step = KS_RQ_OUT;
		lock_release(d->rq_lock, v);
		return;
	case KS_RQ_OUT:
		c->ks_step = KS_PI_OUT;
		lock_release(t->pi_lock, v);
		return;
	case KS_PI_OUT:
		t->pi_refs--;
		ks_pi_put(k, t);
		ks_go(c);
		return;
	case KS_TOUCH:
		/* ttwu_state_match fails (a few loads: no work of its own beyond
		 * the lock's line, ks_pi_lines) */
		c->ks_step = KS_PI_OUT;
		lock_release(t->pi_lock, v);
		return;
	case KS_EXEC:
		c->ks_step = KS_EXEC_SEL;
		guest_work(v, ks_mach(c)->sched_pi_ns, ks_cont);
		return;
	case KS_EXEC_SEL:
		/* select_task_rq(WF_EXEC): SD_BALANCE_EXEC's idlest CPU, as a fork's */
		c->ks_target = &k->cpus[k->cfg.sched->select_cpu(k, t, c->idx, GS_FORK)];
		c->ks_step = KS_EXEC_OUT;
		lock_release(t->pi_lock, v);
		return;
	case KS_EXEC_OUT:
		if (c->ks_target == c) {
			ks_go(c);	/* dest_cpu == smp_processor_id(): stay */
			return;
		}
		{
			guest_fn resume = c->ks_done;	/* the task's, kept by the migration */

			c->ks_step = KS_NONE;
			c->ks_done = NULL;
			kc_exec_migrate(c, c->ks_target->idx, resume);
		}
		return;
	default:
		vs_fatal("guest vCPU %d: wake lock step %d", c->idx, c->ks_step);
	}
}

/* __schedule's steps, with the idle pull's double_rq_lock. */
static void
ks_sched_step(struct gcpu *c)
{
	struct vcpu *v = c->v;
	struct gcpu *b = c->ks_busiest;
	struct gkernel *k = c->k;
	struct task *t;

	switch (c->ks_step) {
	case KS_SCHED:
		c->need_resched = 0;
		/* Linux 3.2 kernel/sched.c schedule -> idle_balance -> load_balance:
		 * a task to pull (find_busiest_queue reads without locks), then
		 * double_rq_lock in address order (the lower rq first) */
		if (c->nqueued == 0 && (t = k->cfg.sched->steal(k, c)) != NULL) {
			b = c->ks_busiest = &k->cpus[t->cpu];
			if (b->idx < c->idx) {
				c->ks_step = KS_RELOCK;
				lock_release(c->rq_lock, v);
			} else {
				c->ks_step = KS_BOTH;
				lock_acquire(b->rq_lock, v);
			}
			return;
		}
		ks_pick(c);
		return;
	case KS_RELOCK:
		c->ks_step = KS_LOWER;
		lock_acquire(b->rq_lock, v);
		return;
	case KS_LOWER:
		c->ks_step = KS_BOTH;
		lock_acquire(c->rq_lock, v);
		return;
	case KS_BOTH:
		c->ks_step = KS_MOVED;
		guest_work(v, ks_mach(c)->sched_move_ns, ks_cont);
		return;
	case KS_MOVED:
		/* move_tasks: what is still there to pull (the tick's balance and
		 * interrupts' wakes take no lock here) */
		t = k->cfg.sched->steal(k, c);
		if (t != NULL && t->cpu == b->idx) {
			dequeue(b, t, GS_MIGRATE);
			enqueue(c, t, GS_MIGRATE);
		}
		/* double_unlock_balance: the busiest's lock, this one kept for the
		 * pick (3.2 drops both and retakes this one) */
		c->ks_step = KS_PICK;
		lock_release(b->rq_lock, v);
		return;
	case KS_PICK:
		ks_pick(c);
		return;
	case KS_PICKED:
		if (c->ks_oncpu_waiter != NULL) {
			/* finish_task: smp_store_release(&prev->on_cpu, 0) before
			 * the unlock; the waker sees it a line's transfer later */
			guest_spin_met(c->ks_oncpu_waiter->v, ks_mach(c)->line_ns[HW_SOCKET]);
			c->ks_oncpu_waiter = NULL;
		}
		c->ks_step = KS_SWITCH;
		lock_release(c->rq_lock, v);	/* finish_task_switch: rq unlock, irqs on */
		return;
	case KS_SWITCH:
		/* the pick with the switch, in one step as without the locks (a
		 * task picked and not yet current would be in no place) */
		t = c->nqueued > 0 ? k->cfg.sched->pick_next(c) : NULL;
		if (t != NULL)
			c->nqueued--;
		c->ks_step = KS_NONE;
		c->ks_sched = 0;
		if (t != NULL)
			kc_switch_to(c, t, c->ks_prev);	/* curr stays in the load */
		else
			kc_go_idle(c);
		c->ks_prev = NULL;
		guest_irqs_on(v);
		return;
	default:
		vs_fatal("guest vCPU %d: schedule lock step %d", c->idx, c->ks_step);
	}
}

/* The tick's steps: scheduler_tick, then the periodic balance's pull. */
static void
ks_tick_step(struct gcpu *c)
{
	struct vcpu *v = c->v;
	struct gcpu *b = c->ks_busiest;
	struct gkernel *k = c->k;
	struct task *t;

	switch (c->ks_step) {
	case KS_TICK:
		c->ks_step = KS_TICKED;
		guest_work(v, ks_mach(c)->sched_tick_ns, ks_cont);
		return;
	case KS_TICKED:
		account(c);	/* task_tick_fair: update_curr, check_preempt_tick */
		if (c->nqueued > 0 && k->cfg.sched->tick_preempt(c, c->curr))
			c->need_resched = 1;
		c->ks_step = KS_TICK_OUT;
		lock_release(c->rq_lock, v);
		return;
	case KS_TICK_OUT:
		if (c->nqueued > 0) {
			kc_balance_kick(c);	/* nohz_balancer_kick: an IPI, no lock */
			c->ks_step = KS_NONE;
			ks_tick_end(c);
			return;
		}
		if ((t = kc_balance_find(c)) == NULL) {
			c->ks_step = KS_NONE;
			ks_tick_end(c);
			return;
		}
		b = c->ks_busiest = &k->cpus[t->cpu];
		c->ks_step = KS_TB_LOW;
		lock_acquire(b->idx < c->idx ? b->rq_lock : c->rq_lock, v);
		return;
	case KS_TB_LOW:
		c->ks_step = KS_TB_BOTH;
		lock_acquire(b->idx < c->idx ? c->rq_lock : b->rq_lock, v);
		return;
	case KS_TB_BOTH:
		c->ks_step = KS_TB_MOVED;
		guest_work(v, ks_mach(c)->sched_move_ns, ks_cont);
		return;
	case KS_TB_MOVED:
		t = kc_balance_find(c);	/* what is still there to pull */
		if (c->nqueued == 0 && t != NULL && t->cpu == b->idx)
			kc_balance_pull(c, t);
		c->ks_step = KS_TB_OUT;
		lock_release(c->rq_lock, v);	/* double_rq_unlock */
		return;
	case KS_TB_OUT:
		c->ks_step = KS_TICK_END;
		lock_release(b->rq_lock, v);
		return;
	case KS_TICK_END:
		c->ks_step = KS_NONE;
		ks_tick_end(c);
		return;
	default:
		vs_fatal("guest vCPU %d: tick lock step %d", c->idx, c->ks_step);
	}
}

/* The locks' continuation: c's lock call (acquire or release), or its work
 * under one, is done; the path's next step. */
static void
ks_cont(struct vcpu *v)
{
	struct gcpu *c = cpu_of(v);

	if (c->ks_step == KS_BEGIN)
		ks_go(c);
	else if (c->ks_step <= KS_EXEC_OUT)
		ks_wake_step(c);
	else if (c->ks_step <= KS_SWITCH)
		ks_sched_step(c);
	else
		ks_tick_step(c);
}

/* A lock's statistics, as a class of one (nothing for no lock). */
static struct gk_lockclass
ks_class_of(const struct glock *l)
{
	struct gk_lockclass g = { 0 };

	if (l != NULL) {
		g.acquisitions = (double)l->st.acquisitions;
		g.contended = (double)lock_contended(l);
		g.wait_ns = lock_wait_ns(l);
		g.hold_ns = lock_hold_ns(l);
		g.wait_lhp_ns = l->st.wait_lhp_ns;
	}
	return g;
}

static void
ks_class_add(struct gk_lockclass *s, const struct gk_lockclass *g)
{
	s->acquisitions += g->acquisitions;
	s->contended += g->contended;
	s->wait_ns += g->wait_ns;
	s->hold_ns += g->hold_ns;
	s->wait_lhp_ns += g->wait_lhp_ns;
}

void
gk_sched_lock_stats(const struct gkernel *k, struct gk_lockclass *rq, struct gk_lockclass *pi)
{
	int i;

	for (i = 0; i < k->ncpu; i++) {
		struct gk_lockclass g = ks_class_of(k->cpus[i].rq_lock);

		ks_class_add(rq, &g);
	}
	for (i = 0; i < k->ntasks; i++) {
		struct gk_lockclass live = ks_class_of(k->tasks[i]->pi_lock);
		const struct gk_lockclass *g = &live;

		if (k->tasks[i]->pi_lock == NULL && (size_t)i < k->cap_pi_gone)
			g = &k->pi_gone[i];	/* in task order, as when all were kept */
		ks_class_add(pi, g);
	}
	pi->oncpu_waits += (double)k->st.ttwu_oncpu;
}
