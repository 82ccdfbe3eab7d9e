/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kernel.h - the guest kernel: tasks on vCPUs, its scheduler, idle, the
 * timer tick and the interrupts between vCPUs (models/README.md, "The guest
 * kernel").
 *
 * gvm.c creates a VM's tasks from the workload's description, and the
 * workload layer (models/workload) drives each task's program; every call
 * below that takes a vCPU runs in the context of the task current on it.  A
 * call that blocks the task returns 1 and later calls the `resume`
 * continuation on whatever vCPU the task then runs on.
 */
#ifndef VS_KERNEL_H
#define VS_KERNEL_H

#include "guest/guest.h"
#include "guest/gsched.h"
#include "guest/haltpoll.h"
#include "guest/task.h"

struct vm;
struct hist;
struct ipi;
struct lock_ops;

/* How IPIs are sent, as the guest kernel is configured (ipi.c reads it). */
enum ipi_mode { IPI_PHYS, IPI_CLUSTER, IPI_PV };

struct ipi_config {
	int mode;		/* enum ipi_mode: how a multicast is sent */
	int pv_tlb_flush;	/* Linux 4.16 kvm_flush_tlb_others */
	int pv_sched_yield;	/* Linux 5.3 kvm_smp_send_call_func_ipi */
	double flush_ns;	/* one TLB flush (local, or a target's handler) */
};

/* The preemption model (vms[].guest.preempt, in its enum's order):
 * CONFIG_PREEMPT, CONFIG_PREEMPT_NONE, CONFIG_PREEMPT_VOLUNTARY. */
enum gk_preempt { GK_PREEMPT_FULL, GK_PREEMPT_NONE, GK_PREEMPT_VOLUNTARY };

struct gk_config {
	const struct guest_sched_ops *sched;
	struct gs_cfg sched_cfg;	/* the policy's own keys (gsched.h) */
	int hz;			/* timer ticks per second; 0: no tick modelled */
	int tickless;		/* NO_HZ idle: no tick while a vCPU idles */
	int timers;		/* the periodic kernel services run (gtimer.c) */
	struct ghp_cfg hp;	/* cpuidle-haltpoll's governor; max_ns 0: not loaded */
	int steal_clock;	/* the scheduler's clock leaves out steal time */
	int random_phase;	/* ticks and first instructions at random phases */
	int can_spawn;		/* a program spawns tasks (so no vCPU is ever done early) */
	int check;		/* verify the run queues' invariants at every switch */
	struct ipi_config ipi;	/* how IPIs are sent (ipi.c) */
	int nmm;		/* address spaces of the workload's tasks */
	int spin_preempted;	/* spin-on-owner loops read vcpu_is_preempted (4.10) */
	int preempt;		/* enum gk_preempt: the kernel's preemption model */
	/* The scheduler's own locks (rq->lock, p->pi_lock), spinlocks of the
	 * VM's algorithm (gvm.c sets lock_ops, lock_cfg) */
	int sched_locks;
	const struct lock_ops *lock_ops;
	const void *lock_cfg;
	/* The workload's hook: a task has exited (free its program state). */
	void (*task_exit)(struct task *);
	/* ... and free the program state of a task still alive at the end. */
	void (*task_free)(void *th);
};

struct gk_stats {
	uint64_t ctx_switches, migrations, wakeups, ipis, ticks, idle_halts;
	uint64_t preempt_ipis;	/* of ipis, a wakeup's to a running vCPU (resched_curr) */
	/* cpuidle-haltpoll's polls (haltpoll.h): ended with something to run,
	 * ran out (a halt follows); their pCPU time */
	uint64_t gpolls_ok, gpolls_failed;
	double gpoll_ns;
	uint64_t spawned;
	/* sched_locks: wakes that spun under p->pi_lock until the wakee's vCPU
	 * had switched it out (try_to_wake_up's p->on_cpu wait) */
	uint64_t ttwu_oncpu;
	/* Guest timers (gtimer.h): interrupts for them outside a tick, and
	 * those that woke an idle vCPU */
	uint64_t timer_irqs, timer_wakes;
	double idle_ns;		/* vCPU time in the idle loop (guest view) */
	struct hist *wake_lat;	/* ns from a wakeup to running */
	/* IPIs (ipi.c): function calls, destinations sent to and handled, the
	 * senders' exits, TLB shootdowns, PV TLB flushes marked and done on entry,
	 * PV sched_yields, and the waits of senders (ns). */
	uint64_t ipi_calls, ipis_sent, ipis_received, ipi_exits, tlb_shootdowns;
	uint64_t pv_tlb_marked, pv_tlb_flushed, pv_yields;
	/* The host's delivery of each destination (ipi.c deliver): where the IPI
	 * found its target (running, of which kicked with an exit; halted and
	 * woken; preempted or otherwise waiting), and the host time: the
	 * senders' exits, the delivery (per-destination work in the sender's
	 * exit, the kicks' exits), and the woken targets' time to take it. */
	uint64_t ipi_to_running, ipi_kicks, ipi_wakes, ipi_to_waiting;
	double ipi_sender_ns, ipi_deliver_ns, ipi_wake_ns;
	double ipi_wait_ns;
	struct hist *ipi_wait;
};

struct gkernel;

/* A class of the scheduler's locks (sched_locks), summed over its instances. */
struct gk_lockclass {
	double acquisitions, contended, wait_ns, hold_ns, wait_lhp_ns;
	double oncpu_waits;	/* pi: gk_stats.ttwu_oncpu */
};

struct gkernel *gk_new(struct vm *, const struct gk_config *);
/* Adds rq->lock's and p->pi_lock's classes to *rq and *pi (nothing without
 * sched_locks), so the VMs of one entry sum into one pair. */
void gk_sched_lock_stats(const struct gkernel *, struct gk_lockclass *rq,
    struct gk_lockclass *pi);
struct ipi *gk_ipi(struct gkernel *);
/*
 * A sleeping lock's optimistic spinners watch its owner (slock.c fills this
 * in): the kernel tells each lock registered when a task that holds sleeping
 * locks leaves its vCPU, and when the host takes a vCPU, so that spinners
 * look again (LNX-4.10 mutex.c mutex_spin_on_owner: owner->on_cpu,
 * vcpu_is_preempted).  Through it the kernel never calls slock.c.
 */
struct gk_owner_watch {
	void (*owner_off)(void *lock, const struct task *);
	void (*vcpu_stopped)(void *lock, const struct vcpu *);
};
void gk_watch_register(struct gkernel *, const struct gk_owner_watch *, void *lock);
/* A task joins (1) or leaves (-1) a watched lock's optimistic spinners (its
 * osq): with none anywhere, a vCPU stop has no lock to tell. */
void gk_watch_spin(struct gkernel *, int delta);
/* The IPI layer marks (1) or clears (-1) a vCPU's VM-entry work: with none
 * anywhere, an entry does not call it (gk_smp_ops entry). */
void gk_entry_due(struct gkernel *, int delta);
/*
 * The IPI layer as the kernel calls it (ipi.c fills it in, gvm.c installs it
 * with the IPI state), as Linux x86 sends a reschedule through struct
 * smp_ops and runs the CALL_FUNCTION vector's handler: through it the kernel
 * never calls ipi.c.
 */
struct gk_smp_ops {
	void (*resched)(struct ipi *, int from, struct gcpu *to);	/* from -1: an interrupt */
	void (*irq)(struct ipi *, struct gcpu *);			/* run pending calls */
	void (*entry)(struct ipi *, struct gcpu *);	/* VM entry, while gk_entry_due counts one */
	void (*switch_mm)(struct ipi *, struct gcpu *, const struct task *);
};
void gk_set_smp(struct gkernel *, const struct gk_smp_ops *, struct ipi *);
struct gk_stats *gk_stats_rw(struct gkernel *);
struct ffs;
/* v's kernel state in a snapshot of a periodic run (ring_ff.c, ffsnap.h);
 * 0: a lock it cannot list */
int gk_ffs(struct ffs *, struct vcpu *);
/* vcpu_is_preempted() as the guest reads it from steal time: the host
 * preempted the vCPU while runnable (KVM kvm_steal_time_set_preempted). */
int gk_vcpu_is_preempted(const struct vcpu *);
/* Wake a blocked task from the current task of waker (a futex or lock wake). */
void gk_wake(struct vcpu *waker, struct task *);
void gk_free(struct gkernel *);
/* A task of program state th; aff: one byte per vCPU (NULL any); only: the one
 * vCPU aff allows, -1 if more (or any); parent: its spawner or NULL.  Initial
 * tasks are made before gk_start. */
struct task *gk_task_new(struct gkernel *, void *th, const unsigned char *aff, int only,
    int nice, struct task *parent);
/* Place the initial tasks and start every vCPU; first: a new task's first step. */
void gk_start(struct gkernel *, guest_fn first);
/* Close the idle books at the end of a run. */
void gk_finish(struct gkernel *);
/* The warm-up ends: the stats start again from zero (the books closed first). */
void gk_stats_reset(struct gkernel *);
const struct gk_stats *gk_stats(const struct gkernel *);
/* Timer functions run (gtimer.h). */
const struct gt_stats *gk_timer_stats(const struct gkernel *);
int gk_live(const struct gkernel *);
/* v's current task is the only one that can ever run on it (no other task
 * allowed there, none spawned) and nothing is due: no preemption point of
 * its can act. */
int gk_alone(struct vcpu *);

/* From the current task of v. */
struct task *gk_current(struct vcpu *);
/* A preemption point (spin_unlock, return to user): if a reschedule is due
 * and no spinlock is held, switch; 1 if v now runs another task.  The
 * common case inline (every step of a task passes one): nothing due. */
int gk_preempt_check(struct vcpu *, guest_fn resume);
static inline int
gk_preempt_point(struct vcpu *v, guest_fn resume)
{
	struct gcpu *c = guest_kcpu(v);

	if (c->nwake > 0 || c->need_resched)
		return gk_preempt_check(v, resume);
	c->curr->compute = 0;
	return 0;
}
/* Nothing due at v's preemption points (no wake to run, no reschedule):
 * gk_preempt_point there only clears the compute mark and gk_preempt_due
 * says 0 (interp.c wl_next_mid asks this, not both). */
static inline int
gk_quiet(struct vcpu *v)
{
	const struct gcpu *c = guest_kcpu(v);

	return c->nwake <= 0 && !c->need_resched;
}
/* A might_sleep point (a sleeping lock's acquisition): under preempt:
 * voluntary a reschedule due is taken here even in kernel code; 1 if
 * switched out (resume runs when it is back). */
int gk_might_resched(struct vcpu *, guest_fn resume);
/* Would it switch, with the current task's preempt_count less `enable`
 * (a preempt_enable first)?  Changes nothing. */
int gk_preempt_due(struct vcpu *, int enable);
/* Plain computation the kernel may preempt at a tick or wakeup. */
void gk_compute(struct vcpu *, double ns, guest_fn done);
/* gk_compute's own part, for work that guest_work_then starts. */
void gk_compute_mark(struct vcpu *);
void gk_memory(struct vcpu *, double bytes, guest_fn done);
/* A busy wait until the clock reads until (guest_busy_until), preemptible as
 * computation is; preempted, the task resumes at done, which re-enters it. */
void gk_busy_until(struct vcpu *, sim_time_t until, guest_fn done);
/* Spinlock sections: the task cannot be switched out between these. */
void gk_preempt_disable(struct vcpu *);
void gk_preempt_enable(struct vcpu *);
/* Sleep for ns (I/O); an interrupt wakes the task. */
void gk_block_for(struct vcpu *, double ns, guest_fn resume);
/* The per-vCPU form's `sleep:`: the thread's vCPU idles for ns (its tick
 * stopped if tickless), woken by interrupts in between; then done. */
void gk_sleep(struct vcpu *, double ns, guest_fn done);
/* Sleep until gk_wake_irq(the returned task); e.g. on a device's request. */
struct task *gk_block(struct vcpu *, guest_fn resume);
/* Wake a task from an interrupt (a device's completion). */
void gk_wake_irq(struct task *);
/* The task ends. */
void gk_exit(struct vcpu *);
/* Start a child task of the current one, running program state th. */
struct task *gk_spawn(struct vcpu *, void *th);
/* Block until the current task has at most max live children; 1 if blocked. */
int gk_wait_children(struct vcpu *, int max, guest_fn resume);
/* execve's sched_exec: the current task may move to another vCPU (1: it
 * goes on later with resume, there). */
int gk_exec(struct vcpu *, guest_fn resume);

/* Wait queues with a token count (a semaphore, as futex-based ones are). */
struct gk_waitq {
	struct taskq q;
	int64_t tokens;
	int nwait;
};
void gk_waitq_init(struct gk_waitq *);
/* Take a token or block; 1 if blocked. */
int gk_wait(struct vcpu *, struct gk_waitq *, guest_fn resume);
/* Wake up to n waiters; what finds no waiter stays as tokens unless
 * broadcast.  sync: the waker is about to sleep (WF_SYNC, a pipe's wake). */
void gk_post(struct vcpu *, struct gk_waitq *, int64_t n, int broadcast, int sync);

#endif
