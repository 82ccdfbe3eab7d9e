/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * wl_priv.h - a compiled workload as compile.c writes it and interp.c runs
 * it: ops (a flat array, loops as jumps), programs, task definitions, names
 * of locks, counters, queues, marks and address spaces.  Private to
 * models/workload (workload.c holds its lifetime and queries).
 */
#ifndef VS_WL_PRIV_H
#define VS_WL_PRIV_H

#include <stddef.h>
#include <stdint.h>

#include "guest/lock.h"
#include "workload/workload.h"

struct dist;
struct slock_ops;
struct yc_node;

enum wl_opcode { OP_COMPUTE, OP_ACQUIRE, OP_RELEASE, OP_COUNT, OP_LOOP, OP_ENDLOOP, OP_IO,
    OP_SLEEP, OP_MEMORY, OP_END, OP_BLOCK, OP_WAIT, OP_WAKE, OP_SPAWN, OP_WAITCHILD,
    OP_BARRIER, OP_MARK_START, OP_MARK_STOP, OP_DISK, OP_IPI, OP_TLB_FLUSH, OP_SLOCK,
    OP_SUNLOCK, OP_BUSY_WAIT, OP_EXEC };

/* Which instance of a lock class (wl_lockdef, wl_slockdef instances) or of
 * a wait queue (`queues:`) an acquire, lock, wait or wake takes (`by:`): the
 * one it names (jump; 0 when it names none), or the current vCPU's, task's
 * or address space's (its index modulo the instances, as Linux hashes into a
 * lock array), or a draw from the vCPU's stream. */
enum wl_by { WL_BY_NONE, WL_BY_INDEX, WL_BY_VCPU, WL_BY_TASK, WL_BY_MM, WL_BY_RANDOM, WL_BY_LOOP };

/* wl_next walk: one counter (the spare one if none) and no finite loop's
 * end passed (the lock loops'), one counter and such a loop's count, or
 * counters one by one. */
enum wl_nx_walk { WL_NX_COUNT, WL_NX_LEFT, WL_NX_OPS };

struct wl_op {
	enum wl_opcode op;
	struct dist *d;		/* compute, sleep, busy_wait: ns; memory: bytes */
	int arg;		/* lock or counter index; loop depth */
	int by;			/* acquire, lock, wait, wake: enum wl_by */
	int64_t n;		/* loop: iterations, -1 forever; wake: how many (-1 all);
				 * waitchild: most children left alive; barrier: parties;
				 * ipi: the target vCPU */
	int jump;		/* loop: index after its ENDLOOP; endloop: body start;
				 * spawn: the program's first op; ipi: wait; acquire,
				 * lock, wait, wake: the instance (WL_BY_INDEX) */
	int ff;			/* loop: its body is fixed steps only (loop_ff) */
	int endless;		/* loop: forever, of fixed computes only (body_endless) */
	int sync;		/* wake: a sync wake (WF_SYNC) */
	int loop;		/* by: {loop: K}: the LOOP op whose iteration i names
				 * instance K + i (K in jump) */
	/* Where a lock call's caller, its thread at this op, starts its next
	 * compute (interp.c wl_lock_then), over counters and one loop end
	 * (compile.c next_plan): nx[1] if that loop goes round again, else
	 * nx[0]; nx_left: that loop's count (its left[] index), when the loop
	 * is finite (-1: none, and nx[0] is nx[1]). */
	struct wl_next {
		/* the compute's draw (ops[at].d): wl_next_mid's draw looks
		 * up no op */
		const struct dist *d;
		int at;		/* the compute's op; -1: none, wl_continue walks */
		int count;	/* the one counter passed; ncounters (the spare
				 * one, never read) none, -2 more than one */
		int left;	/* nx_left, here for wl_next_mid: the count its
				 * loop end takes down (both ways), -1 none */
		/* what next_go does on the way (enum wl_nx_walk): count and
		 * left in one test */
		int walk;
	} nx[2];
	int nx_left;
	char *ref;		/* spawn: the program's name, until resolved */
	const struct yc_node *src;	/* spawn, acquire, lock, wait, wake: where, while
					 * compiling */
};

/* A named program: where its ops start. */
struct wl_prog {
	char *name;
	int start;
};

/* Tasks the VM starts with (`tasks:`). */
struct wl_taskdef {
	int prog;
	int count, nice;
	int mm;			/* its address space (threads of one process share one) */
	int64_t *cpus;		/* affinity inside the guest: vCPU indices; NULL any */
	int ncpus;
	char *where;
};

/* A sleeping lock (`lock:` / `unlock:`; slock.h). */
struct wl_slockdef {
	char *name;
	char *kind;		/* `locks: {NAME: {kind: ...}}`; NULL: mutex */
	char *where;		/* its first use or declaration, for errors */
	int read_used;
	int instances;		/* a lock per object (`locks: {L: {kind, instances}}`) */
	const struct slock_ops *ops;	/* resolved by the scenario (wl_set_slock_ops) */
};

/* Compile-time lock state of the program being compiled (no branches but
 * loops, so a straight walk is exact). */
struct wl_hold {
	int held;
	const struct yc_node *acq, *rel;	/* the last acquire / release */
};

/*
 * YAML aliases share a node, but the compiler emits it at every use: nine
 * levels of nine aliases are 9^9 primitives from 2 KB.  This bounds what a
 * workload may expand to (primitives plus empirical samples).
 */
#define WL_MAX_COST ((size_t)1 << 16)
/* Instances of one lock class (each is a lock with its per-vCPU records). */
#define WL_MAX_INSTANCES 4096
/* Tasks of one definition, or children of one spawn alive at once. */
#define WL_MAX_TASKS (1 << 20)

struct wl_lockdef {
	char *name;
	struct lock_lines lines;
	int instances;		/* a lock per object: an array of this many (`by:` picks) */
	double calls;		/* the measured run's sections, for extrapolated totals */
};

struct workload {
	char *name;
	struct wl_op *ops;
	size_t nops, capops;
	/* Per op: where its primitive was written (FILE:LINE:COLUMN) and its
	 * key (`compute`, `mmap`...); NULL for a program's end. */
	char **op_where;
	const char **op_prim;
	size_t capwhere;
	struct wl_lockdef *locks;
	size_t nlocks, caplocks;
	char **counters;
	size_t ncounters, capcounters;
	int threads;
	int depth;		/* deepest loop nesting */
	char *sect_err;		/* first section that is not compute only */
	struct wl_prog *progs;
	size_t nprogs, capprogs;
	struct wl_taskdef *tasks;	/* NULL: the per-vCPU thread form */
	size_t ntasks;
	char **queues;		/* wait queues and barriers, by name */
	size_t nqueues, capqueues;
	int *queue_inst;	/* per queue: its instances (`queues:`; 1 unless said) */
	char **marks;		/* timed regions, by name */
	size_t nmarks, capmarks;
	char **mms;		/* address spaces, by name */
	size_t nmms, capmms;
	struct wl_slockdef *slocks;	/* sleeping locks */
	size_t nslocks, capslocks;
	int mmap_sem;		/* some program takes mmap_sem (mmap, munmap) */
	int uses_io;		/* some program has an `io:` step */
	int spawns;		/* some program spawns tasks */
	/* While compiling only: which locks the program holds at this point. */
	struct wl_hold *hold;
	size_t caphold;
	size_t cost;		/* primitives and samples emitted, against aliases */
	/* bound.c: the longest program's least simulated time; tasks alive at
	 * once at most (the task form) */
	double least_ns;
	int least_prog;
	double peak_tasks;
};

/* bound.c: least_ns and peak_tasks of a compiled workload (-1 and err for
 * a program that spawns without end). */
int wl_bound(struct workload *, struct vs_err *);

/* Ops from `at` (after an acquire of lock) up to its release: compute only? */
int wl_section_ok(const struct workload *, size_t at, int lock);

#endif
