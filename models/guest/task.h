/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * task.h - the guest kernel's tasks and per-vCPU run queues, as the guest
 * scheduler policies (gsched_*.c) see them.
 *
 * A task is a thread of a workload program.  It runs only on a vCPU, and
 * advances only while that vCPU has a pCPU (guest.h).  The kernel core
 * (kernel.c) switches tasks; a policy orders the run queues and decides
 * preemption and placement, as Linux's sched_class does.
 */
#ifndef VS_TASK_H
#define VS_TASK_H

#include <sys/queue.h>
#include <stdint.h>

#include "evq.h"
#include "guest/gtimer.h"
#include "guest/guest.h"
#include "guest/haltpoll.h"

struct vcpu;
struct gkernel;
struct slock;
struct glock;

enum task_state { T_RUNNABLE, T_RUNNING, T_BLOCKED, T_DEAD };

struct task {
	TAILQ_ENTRY(task) rq_link;	/* in its gcpu's run queue while queued */
	TAILQ_ENTRY(task) wait_link;	/* in a wait queue while blocked */
	struct gkernel *k;
	int id;
	enum task_state state;
	/* read and written at every preemption point, beside the above */
	int preempt_count;	/* >0: inside a spinlock section, never switched out */
	int compute;		/* its current activity is plain work the kernel may preempt */
	int cpu;		/* vCPU index it is queued or runs on; -1 none */
	int prev_cpu;		/* where it ran last; -1 never */
	/* Wakeup placement (gsched_wake.c, LNX-6.18 fair.c record_wakee,
	 * select_idle_sibling): the last task it woke, how often its wakee
	 * changed (halved each second, at wakee_flip_decay_ts in jiffies), the
	 * vCPU it was last placed from (-1 none) */
	const struct task *last_wakee;
	unsigned int wakee_flips;
	int64_t wakee_flip_decay_ts;
	int recent_used_cpu;
	const unsigned char *aff;	/* one byte per vCPU; NULL: any */
	unsigned long weight;	/* Linux prio_to_weight[nice + 20] */
	/* The policy's accounting (CFS: vruntime; all: execution time). */
	double vruntime, sum_exec, prev_sum_exec;
	/* EEVDF's (gsched_eevdf.c): virtual deadline, saved lag, the vruntime
	 * its slice is protected up to; delayed: asleep but still queued
	 * (DELAY_DEQUEUE); rel_deadline: deadline kept relative for a move. */
	double deadline, vlag, vprot;
	int delayed, rel_deadline;
	double exec_clock;	/* the guest clock when it last began to run */
	/* Where it goes on when next run: rem ns of work (or bytes, if mem), then cont. */
	double rem;
	int mem;
	guest_fn cont;
	int mm;			/* its address space (ipi.h: mm_cpumask); -1 none */
	int only;		/* the one vCPU aff allows; -1 more, or any */
	/* Sleeping locks (slock.h): the one it waits for, how, since when. */
	struct slock *slock;
	int slock_read, slock_spinning, slocks_held, slock_lost;
	sim_time_t slock_since, slock_spin_since, slock_sleep_since;
	guest_fn slock_resume;
	sim_time_t woken_at;	/* for the wake-to-run latency; -1 none */
	struct gtimer timer;	/* a timed block's end (hrtimer_nanosleep) */
	struct task *parent;	/* who spawned it (NULL for the VM's initial tasks) */
	int children;		/* spawned and not yet exited */
	int waiting_children;	/* blocked until children <= this; -1 not */
	void *th;		/* the workload's program state (opaque here) */
	void *sched_priv;
	/* The scheduler's locks (kernel_rqlock.c): its p->pi_lock; the flags of its
	 * wake while it waits in a waker's wake_q (on wait_link) */
	struct glock *pi_lock;
	int wake_flags;
	int pi_refs;	/* its wakes and tries queued or under way: dead with none, its
			 * pi_lock goes (ks_pi_put) */
};

TAILQ_HEAD(taskq, task);

/* One vCPU as its guest kernel sees it. */
struct gcpu {
	/* what every preemption point reads first (one line) */
	struct gkernel *k;
	struct vcpu *v;
	struct task *curr;	/* NULL: idle */
	int idx;
	int need_resched;
	int nqueued;
	int nwake;		/* tasks in wake_q and ks_touch (sched_locks): the preemption point looks */
	struct taskq rq;	/* runnable tasks waiting here (not curr) */
	unsigned long load;	/* sum of weights, queued and curr */
	int idle;		/* in the idle loop (polling or halted) */
	int polling;		/* idle and polling (TIF_POLLING_NRFLAG): no IPI needed */
	int tick_pending;
	int timer_pending;	/* a guest timer's interrupt (gtimer.h) is due */
	evq_id tick_ev;
	int32_t tick_ghost;	/* the tick's ghost (sim_ghost), -1: none */
	sim_time_t tick_phase;	/* ticks fall at phase + k / HZ */
	sim_time_t tick_at;	/* the last tick armed (-1: none): from there the next is one period on */
	int tick_lazy;		/* the ghost stands for ticks run later (kernel.c tick_lazy) */
	sim_time_t idle_since;
	double min_vruntime;	/* the policy's (CFS; EEVDF: zero_vruntime) */
	/* EEVDF's (gsched_eevdf.c): sum of (vruntime - zero_vruntime) x weight and
	 * of weights over the queued tasks (curr not), the sleepers still queued
	 * (DELAY_DEQUEUE, not in rq or nqueued), the task just put back */
	double avg_vruntime, avg_load;
	struct taskq delayed;
	int ndelayed;
	struct task *put_prev;
	int finished;		/* no task can ever run here again */
	/* cpuidle-haltpoll (haltpoll.h): the governor's state; the idle pass
	 * under way (a poll since poll_t0, its pCPU time from polled0 on; a
	 * halt since halt_t0) */
	struct ghp_cpu hp;
	int halting;
	sim_time_t poll_t0, halt_t0;
	double polled0;
	int sleeping;		/* the per-vCPU form's thread sleeps: the vCPU idles (gk_sleep) */
	guest_fn sleep_done;	/* ... and what its thread does next */
	/* The scheduler's locks (sched_locks; kernel_rqlock.c):
	 * this run queue's rq->lock; the wakes its task asked for, done at its
	 * next preemption point (wake_q_add / wake_up_q); the lock path under
	 * way: its step, the wakee and its target, a schedule's prev, a pull's
	 * busiest, and the caller's continuation; the tries to wake a task
	 * that find it awake (ks_touch); an exec's sched_exec asked for; the
	 * waker spinning on this vCPU's prev's p->on_cpu. */
	struct glock *rq_lock;
	struct taskq wake_q;
	int ks_step, ks_sched, ks_tick, ks_exec;
	struct task *ks_wakee, *ks_prev;
	struct gcpu *ks_target, *ks_busiest;
	guest_fn ks_done;
#define KS_TOUCHES 4
	struct task *ks_touch[KS_TOUCHES];
	int ntouch;
	struct gcpu *ks_oncpu_waiter;
};

#endif
