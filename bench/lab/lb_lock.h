/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lb_lock.h - the locks lockbench measures, one ops table each, and the
 * model lock each stands for (vlocksim's `vms[].lock`).
 *
 * A lock is one object shared by all threads; a thread that needs a queue
 * node (MCS) passes its own, cache-line aligned.  acquire/release are the
 * whole critical path: lockbench times around them.
 */
#ifndef LB_LOCK_H
#define LB_LOCK_H

#include <stdatomic.h>

/* A waiter's node in a queued lock's list (one per thread, its own line). */
struct lb_qnode {
	_Alignas(64) _Atomic(struct lb_qnode *) next;
	atomic_int locked;
};

struct lb_lock;

struct lb_lock_ops {
	const char *name;	/* lockbench --locks NAME */
	const char *model;	/* the vlocksim lock it is compared with */
	const char *desc;
	struct lb_lock *(*create)(void);
	void (*destroy)(struct lb_lock *);
	void (*acquire)(struct lb_lock *, struct lb_qnode *);
	void (*release)(struct lb_lock *, struct lb_qnode *);
};

/* NULL-terminated, in the order the lab measures them. */
extern const struct lb_lock_ops *const lb_locks[];

/* By name: one of lb_locks, or "none" (no exclusion, for tests). */
const struct lb_lock_ops *lb_lock_find(const char *name);

#endif
