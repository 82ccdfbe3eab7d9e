/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gvm.h - a guest VM's objects, built from a plain description: its guest
 * kernel and the tasks it starts with, its spinlocks, sleeping locks (and one
 * mmap_sem per address space), wait queues and virtual disk.
 *
 * The workload (models/workload) compiles a program into such a description,
 * has gvm_new build it, then gives each of the VM's tasks its program state
 * (task->th) before gk_start.  The interpreter reaches the objects through
 * the fields below; nothing here knows what a program is.
 */
#ifndef VS_GVM_H
#define VS_GVM_H

#include <stdint.h>

#include "guest/kernel.h"
#include "guest/lock.h"

struct slock;
struct slock_ops;
struct vdisk;
struct vm;

/* A spinlock class of the VM, all of one algorithm (gvm_config.lock_ops):
 * one lock, or an array of instances (a lock per object), each a lock of
 * its own named NAME[i]. */
struct gvm_lockdef {
	const char *name;
	struct lock_lines lines;
	int instances;
};

/* A sleeping lock class; ops NULL: a mutex; instances as a spinlock's. */
struct gvm_slockdef {
	const char *name;
	const struct slock_ops *ops;
	int instances;
};

/* count tasks of one nice level, address space mm and affinity cpus (vCPU
 * indices; NULL: any). */
struct gvm_taskdef {
	int count, nice, mm;
	const int64_t *cpus;
	int ncpus;
};

struct gvm_config {
	struct gk_config kernel;	/* its nmm address spaces each get a mmap_sem */
	const char *const *mm_names;	/* kernel.nmm names: "mmap_sem.NAME" */
	const struct lock_ops *lock_ops;
	const void *lock_cfg;
	const struct lock_client *client;	/* the workload's continuations */
	const struct gvm_lockdef *locks;
	int nlocks;
	const struct gvm_slockdef *slocks;
	int nslocks;
	int nqueues;			/* wait queues (and barriers) */
	const int *queue_inst;		/* per queue: its instances, in a row */
	const struct gvm_taskdef *tasks;	/* made in this order */
	int ntaskdefs;
};

struct gvm {
	struct vm *vm;
	struct gkernel *k;
	struct vdisk *disk;
	struct glock **locks;		/* gvm_config.locks' order, each class's instances
					 * in a row from lock_base[class] */
	int nlocks;			/* all instances */
	int *lock_base;			/* per class; [nclasses] = nlocks */
	struct slock **sl;		/* the sleeping locks (each class's instances in a
					 * row from sl_base[class]), then each mm's mmap_sem */
	int nsl, nslocks;		/* all; the sleeping locks' instances */
	int *sl_base;
	struct gk_waitq *queues;	/* each queue's instances from queue_base[queue] */
	int *queue_base;
	int nqueues;			/* all instances */
	struct task **tasks;		/* the initial tasks, taskdef by taskdef */
	int ntasks;
	unsigned char **aff;		/* per taskdef: its vCPU mask, or NULL (any
					 * vCPU, or one: a window of one_hot) */
	int naff;
	unsigned char *one_hot;		/* 2n-1 bytes, a 1 in the middle (gvm.c pinned) */
	void *prog;			/* the workload's per-VM state (opaque here) */
};

/* Build the VM's guest (vm->guest, vm->kernel); tasks have th NULL. */
struct gvm *gvm_new(struct vm *, const struct gvm_config *);
void gvm_free(struct gvm *);
struct gvm *gvm_of(const struct vm *);
/* The warm-up ends: the kernel's, locks' and disk's stats start from zero. */
void gvm_stats_reset(struct gvm *);

struct ffs;
/* The VM's locks, sleeping locks, wait queues and disk in a snapshot of a
 * periodic run (ring_ff.c, ffsnap.h); 0: a lock it cannot list. */
int gvm_ffs(struct ffs *, struct gvm *);

/* Instance i of lock class k. */
static inline struct glock *
gvm_lock(const struct gvm *g, int k, int i)
{
	return g->locks[g->lock_base[k] + i];
}

/* Instance i of sleeping lock class k. */
static inline struct slock *
gvm_slock(const struct gvm *g, int k, int i)
{
	return g->sl[g->sl_base[k] + i];
}

/* Instance i of wait queue q. */
static inline struct gk_waitq *
gvm_queue(const struct gvm *g, int q, int i)
{
	return &g->queues[g->queue_base[q] + i];
}

/* The mmap_sem of address space mm. */
static inline struct slock *
gvm_mmap_sem(const struct gvm *g, int mm)
{
	return g->sl[g->nslocks + mm];
}

#endif
