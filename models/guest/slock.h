/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slock.h - sleeping locks of the guest kernel (mutex, rwsem): they block
 * the *task*, not the vCPU, as Linux's kernel/locking/mutex.c and rwsem.c.
 *
 * One file per kind fills in a const struct slock_ops (beside the spinlocks'
 * lock_ops): whether a task may take the lock now, whether a waiter may spin
 * on the owner, and whom an unlock hands the lock to.  The core here does
 * the rest: optimistic spinning (a PAUSE loop, so PLE sees it, with
 * preemption disabled as in mutex_optimistic_spin) while the owner is
 * current on a vCPU - and, with `vcpu_is_preempted` (Linux 4.10), while that
 * vCPU is not preempted by the host - then sleeping on a FIFO wait list.
 * A holder may be preempted and may block: only spinlocks raise
 * preempt_count.  A waiter's wait ends when it owns the lock (a handoff to a
 * sleeping waiter counts as owning at once; its run-queue delay is a wakeup
 * latency), so no task holds a sleeping lock while its wait is counted.
 */
#ifndef VS_SLOCK_H
#define VS_SLOCK_H

#include "param.h"
#include <stdint.h>

#include "guest/guest.h"
#include "guest/task.h"

struct slock;
struct gkernel;
struct hist;

struct slock_ops {
	const char *name;
	const char *desc;
	/* Its keys beside kind: (param.h), or NULL: none today. */
	const struct vs_param *params;
	/* May a task take it now (read: as a reader)? */
	int (*can_take)(const struct slock *, int read);
	/* May a waiter of this mode spin on the owner (the owner's state aside)? */
	int (*can_spin)(const struct slock *, int read);
	/* The lock is free and waiters sleep: wake whom it goes to (slock_handoff). */
	void (*wake)(struct slock *);
	int shared;		/* has readers (`read: true`) */
};

struct slock_stats {
	uint64_t acquisitions, contended, spins, spin_acquired, sleeps, handoffs;
	double spin_ns;		/* optimistic spinning (vCPU time) */
	double sleep_ns;	/* asleep on the wait list until owning (task time) */
	struct hist *wait;	/* ns from a contended lock() to owning */
};

struct slock {
	const struct slock_ops *ops;
	struct gkernel *k;
	char *name;
	struct task *owner;	/* the exclusive owner (mutex, rwsem writer) */
	int readers;		/* rwsem readers holding it */
	struct taskq waiters;	/* asleep, FIFO (wait_link) */
	struct taskq spinners;	/* optimistic spinners in osq order (wait_link) */
	int check_preempted;	/* owner_on_cpu reads vcpu_is_preempted (4.10) */
	struct vcpu *unlocker;	/* during an unlock's wake: the waker */
	struct slock_stats st;
};

struct slock *slock_new(const struct slock_ops *, struct gkernel *, const char *name,
    int check_preempted);
void slock_free(struct slock *);
/* The warm-up ends: its stats start again from zero. */
void slock_stats_reset(struct slock *);

/* From v's current task; resume continues it.  0: taken at once (go on),
 * 1: spinning or asleep, resume runs once it owns the lock. */
int slock_lock(struct vcpu *, struct slock *, int read, guest_fn resume);
void slock_unlock(struct vcpu *, struct slock *, int read);

/* Glue for kinds: hand the free lock to the first waiter (as a reader: the
 * readers at the front up to the first writer). */
void slock_handoff_first(struct slock *);
void slock_handoff_readers(struct slock *);
int slock_first_waiter_reads(const struct slock *);

extern const struct slock_ops slock_mutex_ops;
extern const struct slock_ops slock_rwsem_ops;

#endif
