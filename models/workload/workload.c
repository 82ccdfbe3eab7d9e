/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "workload/workload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist.h"
#include "engine.h"
#include "guest/guest.h"
#include "guest/kernel.h"
#include "guest/lock.h"
#include "guest/slock.h"
#include "guest/vdisk.h"
#include "hv/hv.h"
#include "rng.h"
#include "stats.h"
#include "yconf.h"

enum wl_opcode { OP_COMPUTE, OP_ACQUIRE, OP_RELEASE, OP_COUNT, OP_LOOP, OP_ENDLOOP, OP_IO,
    OP_SLEEP, OP_MEMORY, OP_END, OP_BLOCK, OP_WAIT, OP_WAKE, OP_SPAWN, OP_WAITCHILD,
    OP_BARRIER, OP_MARK_START, OP_MARK_STOP, OP_DISK, OP_IPI, OP_TLB_FLUSH, OP_SLOCK,
    OP_SUNLOCK };

struct wl_op {
	enum wl_opcode op;
	struct dist *d;		/* compute, sleep: ns; memory: bytes */
	int arg;		/* lock or counter index; loop depth */
	int64_t n;		/* loop: iterations, -1 forever; wake: how many (-1 all);
				 * waitchild: most children left alive; barrier: parties;
				 * ipi: the target vCPU */
	int jump;		/* loop: index after its ENDLOOP; endloop: body start;
				 * spawn: the program's first op; ipi: wait */
	int ff;			/* loop: its body is fixed steps only (loop_ff) */
	char *ref;		/* spawn: the program's name, until resolved */
	const struct yc_node *src;	/* spawn: where, while compiling */
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

struct wl_lockdef {
	char *name;
	struct lock_lines lines;
	double calls;		/* the measured run's sections, for extrapolated totals */
};

struct workload {
	char *name;
	struct wl_op *ops;
	size_t nops, capops;
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
	char **marks;		/* timed regions, by name */
	size_t nmarks, capmarks;
	char **mms;		/* address spaces, by name */
	size_t nmms, capmms;
	struct wl_slockdef *slocks;	/* sleeping locks */
	size_t nslocks, capslocks;
	int mmap_sem;		/* some program takes mmap_sem (mmap, munmap) */
	int spawns;		/* some program spawns tasks */
	/* While compiling only: which locks the program holds at this point. */
	struct wl_hold *hold;
	size_t caphold;
	size_t cost;		/* primitives and samples emitted, against aliases */
};

struct gvm {
	const struct workload *wl;
	struct glock **locks;
	uint64_t *counts;
	int threads;
	int live;		/* tasks of this VM still running */
	int counted;		/* its tasks count toward `until: done` */
	sim_time_t done_at;	/* when its last task ended; -1 before */
	struct grun *run;
	struct gkernel *k;
	struct vdisk *disk;
	struct vm *vm;
	struct gk_waitq *queues;
	struct slock **sl;	/* the sleeping locks, then each mm's mmap_sem */
	int64_t *arrived;	/* per barrier queue: parties arrived */
	sim_time_t *mark_at;	/* per mark: when it was last started; -1 none */
	struct rep *mark_rep;	/* per mark: the intervals' statistics */
	unsigned char **aff;	/* per task definition: its vCPU mask, or NULL */
};

/* One block, line-aligned: the struct, then left[], then path_since[], so a
 * step of the program touches one or two lines of its own, not three blocks. */
struct wl_thread {
	struct gvm *gvm;
	int pc;
	int closing;		/* lock whose release is done; -1 none */
	int64_t *left;		/* per loop depth */
	sim_time_t *path_since;	/* per lock: when its acquire was entered */
};

static int
lock_index(struct workload *w, const char *name)
{
	size_t i;

	for (i = 0; i < w->nlocks; i++)
		if (strcmp(w->locks[i].name, name) == 0)
			return (int)i;
	VS_GROW(w->locks, w->caplocks, w->nlocks);
	w->locks[w->nlocks].name = xstrdup(name);
	memset(&w->locks[w->nlocks].lines, 0, sizeof w->locks[w->nlocks].lines);
	return (int)w->nlocks++;
}

static int
slock_index(struct workload *w, const char *name, const struct yc_node *at)
{
	size_t i;

	for (i = 0; i < w->nslocks; i++)
		if (strcmp(w->slocks[i].name, name) == 0)
			return (int)i;
	VS_GROW(w->slocks, w->capslocks, w->nslocks);
	memset(&w->slocks[w->nslocks], 0, sizeof *w->slocks);
	w->slocks[w->nslocks].name = xstrdup(name);
	w->slocks[w->nslocks].where = xasprintf("%s:%d:%d", at->file ? at->file : "?",
	    at->line, at->col);
	return (int)w->nslocks++;
}

static int
counter_index(struct workload *w, const char *name)
{
	size_t i;

	for (i = 0; i < w->ncounters; i++)
		if (strcmp(w->counters[i], name) == 0)
			return (int)i;
	VS_GROW(w->counters, w->capcounters, w->ncounters);
	w->counters[w->ncounters] = xstrdup(name);
	return (int)w->ncounters++;
}

static int
name_index(char ***names, size_t *n, size_t *cap, const char *name)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (strcmp((*names)[i], name) == 0)
			return (int)i;
	VS_GROW(*names, *cap, *n);
	(*names)[*n] = xstrdup(name);
	return (int)(*n)++;
}

static struct wl_op *
emit(struct workload *w, enum wl_opcode op)
{
	struct wl_op *o;

	VS_GROW(w->ops, w->capops, w->nops);
	o = &w->ops[w->nops++];
	memset(o, 0, sizeof *o);
	o->op = op;
	return o;
}

static int
is_timed(enum wl_opcode op)
{
	return op == OP_COMPUTE || op == OP_ACQUIRE || op == OP_RELEASE || op == OP_IO ||
	    op == OP_SLEEP || op == OP_MEMORY || op == OP_BLOCK || op == OP_WAIT ||
	    op == OP_WAITCHILD || op == OP_BARRIER || op == OP_DISK || op == OP_IPI ||
	    op == OP_TLB_FLUSH || op == OP_SLOCK || op == OP_SUNLOCK;
}

/*
 * Does an iteration of the body from `from` to the end move simulated time?
 * Lock, device and wait primitives do; durations count by their mean, which
 * must reach 1 ns (times are whole ns: 0.1ns a step would never end).
 */
static int
body_advances(const struct workload *w, size_t from)
{
	double ns = 0;
	size_t i;

	for (i = from; i < w->nops; i++)
		switch (w->ops[i].op) {
		case OP_COMPUTE:
		case OP_SLEEP:
		case OP_BLOCK:
		case OP_DISK:
			ns += dist_mean(w->ops[i].d);
			break;
		case OP_MEMORY:
			if (dist_mean(w->ops[i].d) > 0)
				return 1;
			break;
		case OP_ACQUIRE:
		case OP_RELEASE:
		case OP_IO:
		case OP_WAIT:
		case OP_WAITCHILD:
		case OP_BARRIER:
		case OP_IPI:
		case OP_TLB_FLUSH:
		case OP_SLOCK:
		case OP_SUNLOCK:
			return 1;
		default:
			break;
		}
	return ns >= 1;
}

/*
 * Is the body from `from` to the end one the guest can fast-forward
 * (guest_loop_ff): fixed computes, exits and counters only, at most
 * GUEST_FF_STEPS timed steps?  A random duration, a lock, a wait or an inner
 * loop makes iterations differ or lets others act: those run event by event.
 */
static int
body_fixed(const struct workload *w, size_t from)
{
	size_t i;
	int n = 0;

	for (i = from; i < w->nops; i++)
		switch (w->ops[i].op) {
		case OP_COMPUTE:
			if (!dist_is_const(w->ops[i].d))
				return 0;
			/* FALLTHROUGH */
		case OP_IO:
			if (++n > GUEST_FF_STEPS)
				return 0;
			break;
		case OP_COUNT:
			break;
		default:
			return 0;
		}
	return n > 0;
}

static const char *const op_keys = "compute, acquire, release, count, io, sleep, "
    "memory, loop (with do), block, disk, wait, wake, spawn, join, barrier, mark, ipi, "
    "tlb_flush, mmap, munmap, fault, lock, unlock";

/* `ipi: {to: ...}` */
static const char *const ipi_to_names[] = { "all", "others", "random", NULL };

/* `io: pio-user` - the exits a guest device access costs (guest.h: enum guest_io). */
static const char *const io_names[] = { "pio-kernel", "pio-user", "mmio-kernel",
    "mmio-user", "hypercall", NULL };

static int compile_seq(struct workload *, const struct yc_node *, double, int,
    struct vs_err *);
static struct wl_op *emit_mmap_sem(struct workload *, int down);

static struct wl_hold *
hold_of(struct workload *w, int lock)
{
	size_t old = w->caphold;

	if ((size_t)lock >= w->caphold) {
		w->caphold = (size_t)lock * 2 + 4;
		w->hold = xrealloc(w->hold, w->caphold * sizeof *w->hold);
		memset(w->hold + old, 0, (w->caphold - old) * sizeof *w->hold);
	}
	return &w->hold[lock];
}

/* The first lock held here, or -1. */
static int
first_held(const struct workload *w)
{
	size_t i;

	for (i = 0; i < w->caphold; i++)
		if (w->hold[i].held)
			return (int)i;
	return -1;
}

/* A primitive that sleeps: refused while a spinlock is held, as Linux's
 * schedule() does (kernel/sched/core.c: schedule_debug, "scheduling while
 * atomic"); a spinning waiter would never get the lock back. */
static int
no_sleep_holding(struct workload *w, const struct yc_node *n, const char *what,
    struct vs_err *err)
{
	int li = first_held(w);
	const struct yc_node *a;

	if (li < 0)
		return 0;
	a = w->hold[li].acq;
	return yc_err(n, err, "'%s' sleeps while spinlock '%s' is held (acquired at %s:%d:%d): "
	    "a task must not sleep holding a spinlock (Linux: scheduling while atomic)", what,
	    w->locks[li].name, a->file ? a->file : "?", a->line, a->col);
}

/* Cost of what was just emitted; -1 once the workload grows past the cap. */
static int
charge(struct workload *w, const struct yc_node *n, size_t units, struct vs_err *err)
{
	w->cost += units;
	if (w->cost <= WL_MAX_COST)
		return 0;
	return yc_err(n, err, "workload '%s' expands to more than %zu primitives and samples "
	    "(a YAML alias repeats its node at every use; use a loop instead)", w->name,
	    WL_MAX_COST);
}

/* The distribution of a primitive, charged by its samples. */
static int
op_dist(struct workload *w, struct wl_op *o, const struct yc_node *v, enum unit_kind kind,
    double hz, struct vs_err *err)
{
	if ((o->d = dist_from_yaml(v, kind, hz, err)) == NULL)
		return -1;
	/* a sample is 8 bytes, a primitive ~128: 16 samples cost one */
	return charge(w, v, dist_nsamples(o->d) / 16, err);
}

static int
name_arg(const struct yc_node *v, const char *what, const char **out, struct vs_err *err)
{
	if (v->kind != YC_SCALAR || v->text[0] == '\0')
		return yc_err(v, err, "'%s' takes a name", what);
	*out = v->text;
	return 0;
}

/*
 * A loop that repeats must leave the locks as it found them: a lock taken in
 * the body and kept would be taken twice by the next iteration, and one held
 * before and released in the body would be released twice.
 */
static int
loop_balanced(struct workload *w, const int *snap, size_t nsnap, struct vs_err *err)
{
	size_t i;

	for (i = 0; i < w->caphold; i++) {
		int was = i < nsnap && snap[i];
		const struct wl_hold *h = &w->hold[i];

		if (was && !h->held)
			return yc_err(h->rel, err, "release of lock '%s' inside a loop that repeats, "
			    "but it is acquired before the loop (at %s:%d:%d): the next iteration "
			    "would release it again", w->locks[i].name,
			    h->acq->file ? h->acq->file : "?", h->acq->line, h->acq->col);
		if (!was && h->held)
			return yc_err(h->acq, err, "lock '%s' is acquired in a loop that repeats but "
			    "not released before the loop ends: the next iteration would acquire "
			    "it twice", w->locks[i].name);
	}
	return 0;
}

static int
compile_op(struct workload *w, const struct yc_node *n, double hz, int depth,
    struct vs_err *err)
{
	const struct yc_node *v;
	const char *s = NULL;

	if (yc_expect(n, YC_MAP, "a primitive (one of: compute, acquire, release, count, loop)",
	    err) || charge(w, n, 1, err))
		return -1;
	if ((v = yc_find(n, "compute")) != NULL) {
		struct wl_op *o = emit(w, OP_COMPUTE);

		if (op_dist(w, o, v, UNIT_TIME, hz, err))
			return -1;
	} else if ((v = yc_find(n, "acquire")) != NULL) {
		struct wl_hold *h;
		int li;

		if (name_arg(v, "acquire", &s, err))
			return -1;
		li = lock_index(w, s);
		h = hold_of(w, li);
		if (h->held)
			return yc_err(n, err, "acquire of lock '%s', which this task already holds "
			    "(acquired at %s:%d:%d): a spinlock is not recursive", s,
			    h->acq->file ? h->acq->file : "?", h->acq->line, h->acq->col);
		h->held = 1;
		h->acq = n;
		emit(w, OP_ACQUIRE)->arg = li;
	} else if ((v = yc_find(n, "release")) != NULL) {
		struct wl_hold *h;
		int li;

		if (name_arg(v, "release", &s, err))
			return -1;
		li = lock_index(w, s);
		h = hold_of(w, li);
		if (!h->held)
			return yc_err(n, err, "release of lock '%s', which this task does not hold "
			    "here (no acquire of it before, on this path)", s);
		h->held = 0;
		h->rel = n;
		emit(w, OP_RELEASE)->arg = li;
	} else if ((v = yc_find(n, "io")) != NULL) {
		int k;

		if (v->kind != YC_SCALAR)
			return yc_err(v, err, "'io' takes one of: pio-kernel, pio-user, mmio-kernel, "
			    "mmio-user, hypercall");
		for (k = 0; io_names[k] != NULL && strcmp(io_names[k], v->text) != 0; k++)
			;
		if (io_names[k] == NULL)
			return yc_err(v, err, "unknown io '%s' (expected one of: pio-kernel, "
			    "pio-user, mmio-kernel, mmio-user, hypercall)", v->text);
		emit(w, OP_IO)->arg = k;
	} else if ((v = yc_find(n, "sleep")) != NULL) {
		struct wl_op *o;

		if (no_sleep_holding(w, n, "sleep", err))
			return -1;
		o = emit(w, OP_SLEEP);
		if (op_dist(w, o, v, UNIT_TIME, hz, err))
			return -1;
	} else if ((v = yc_find(n, "memory")) != NULL) {
		/* `memory: 1MiB` - bytes streamed at the socket's shared bandwidth */
		struct wl_op *o = emit(w, OP_MEMORY);

		if (op_dist(w, o, v, UNIT_SIZE, hz, err))
			return -1;
	} else if ((v = yc_find(n, "block")) != NULL) {
		/* `block: 5ms` - the task sleeps (I/O, a timer); its vCPU runs others or idles */
		struct wl_op *o;

		if (no_sleep_holding(w, n, "block", err))
			return -1;
		o = emit(w, OP_BLOCK);
		if (op_dist(w, o, v, UNIT_TIME, hz, err))
			return -1;
	} else if ((v = yc_find(n, "disk")) != NULL) {
		/* `disk: 8ms` - a read the VM's disk serves in 8 ms, after the
		 * requests queued before it (guest/vdisk.h); the task sleeps */
		struct wl_op *o;

		if (no_sleep_holding(w, n, "disk", err))
			return -1;
		o = emit(w, OP_DISK);
		if (op_dist(w, o, v, UNIT_TIME, hz, err))
			return -1;
	} else if ((v = yc_find(n, "wait")) != NULL) {
		/* `wait: NAME` - take a token of wait queue NAME, or sleep until woken */
		if (name_arg(v, "wait", &s, err) || no_sleep_holding(w, n, "wait", err))
			return -1;
		emit(w, OP_WAIT)->arg = name_index(&w->queues, &w->nqueues, &w->capqueues, s);
	} else if ((v = yc_find(n, "wake")) != NULL) {
		/* `wake: NAME` or `wake: {on: NAME, count: N | all: true}` */
		struct wl_op *o = emit(w, OP_WAKE);
		int all = 0;

		o->n = 1;
		if (v->kind == YC_MAP) {
			const char *on;

			if (yc_get_str(v, "on", NULL, &on, err) ||
			    yc_get_int(v, "count", 1, 1, INT64_MAX / 2, &o->n, err) ||
			    yc_get_bool(v, "all", 0, &all, err) ||
			    yc_check_unused(v, "on, count, all", err))
				return -1;
			s = on;
		} else if (name_arg(v, "wake", &s, err))
			return -1;
		if (all)
			o->n = -1;
		o->arg = name_index(&w->queues, &w->nqueues, &w->capqueues, s);
	} else if ((v = yc_find(n, "spawn")) != NULL) {
		/* `spawn: {program: cc, count: 2000, parallel: 20}` - as make -j20
		 * forks jobs: at most `parallel` children alive, waiting for one to
		 * exit before the next (do_fork; wait4) */
		const char *prog;
		int64_t cnt, par;
		struct wl_op *o;
		size_t at;

		if (yc_expect(v, YC_MAP, "a mapping {program, count, parallel}", err) ||
		    yc_get_str(v, "program", NULL, &prog, err) ||
		    yc_get_int(v, "count", 1, 1, INT64_MAX / 2, &cnt, err) ||
		    yc_get_int(v, "parallel", 0, 0, 1 << 20, &par, err) ||
		    yc_check_unused(v, "program, count, parallel", err) ||
		    (par > 0 && no_sleep_holding(w, n, "spawn (with parallel)", err)))
			return -1;
		at = w->nops;
		o = emit(w, OP_LOOP);
		o->n = cnt;
		o->arg = depth;
		if (depth + 1 > w->depth)
			w->depth = depth + 1;
		if (par > 0)
			emit(w, OP_WAITCHILD)->n = par - 1;
		o = emit(w, OP_SPAWN);
		o->ref = xstrdup(prog);
		o->src = v;
		w->spawns = 1;
		o = emit(w, OP_ENDLOOP);
		o->arg = depth;
		o->jump = (int)at + 1;
		w->ops[at].jump = (int)w->nops;
	} else if ((v = yc_find(n, "join")) != NULL) {
		/* `join: children` - wait4 until every child has exited */
		if (no_sleep_holding(w, n, "join", err))
			return -1;
		emit(w, OP_WAITCHILD)->n = 0;
	} else if ((v = yc_find(n, "barrier")) != NULL) {
		/* `barrier: {name: NAME, count: N}` - the N-th arrival releases all */
		const char *bn;
		struct wl_op *o;
		int64_t cnt;

		if (yc_expect(v, YC_MAP, "a mapping {name, count}", err) ||
		    yc_get_str(v, "name", NULL, &bn, err) ||
		    yc_get_int(v, "count", 0, 1, 1 << 20, &cnt, err) ||
		    yc_check_unused(v, "name, count", err))
			return -1;
		if (cnt < 1)
			return yc_err(v, err, "'barrier' needs a 'count' of tasks");
		if (no_sleep_holding(w, n, "barrier", err))
			return -1;
		o = emit(w, OP_BARRIER);
		o->arg = name_index(&w->queues, &w->nqueues, &w->capqueues, bn);
		o->n = cnt;
	} else if ((v = yc_find(n, "mark")) != NULL) {
		/* `mark: {start: NAME}` ... `mark: {stop: NAME}` - a timed region (like
		 * kernbench's `time make`); metrics NAME_mean_s, NAME_sd_s, NAME_n */
		const char *a = NULL, *b = NULL;

		if (yc_expect(v, YC_MAP, "a mapping {start: NAME} or {stop: NAME}", err) ||
		    yc_get_str(v, "start", "", &a, err) || yc_get_str(v, "stop", "", &b, err) ||
		    yc_check_unused(v, "start, stop", err))
			return -1;
		if ((a[0] == '\0') == (b[0] == '\0'))
			return yc_err(v, err, "'mark' takes one of 'start' or 'stop'");
		emit(w, a[0] ? OP_MARK_START : OP_MARK_STOP)->arg =
		    name_index(&w->marks, &w->nmarks, &w->capmarks, a[0] ? a : b);
	} else if ((v = yc_find(n, "ipi")) != NULL) {
		/* `ipi: {to: all|others|random|N, wait: true, cost: 500ns}` - a function
		 * call on other vCPUs (smp_call_function_many; `all` is on_each_cpu) */
		const struct yc_node *to;
		struct wl_op *o;
		int wait;

		if (yc_expect(v, YC_MAP, "a mapping {to, wait, cost}", err) ||
		    yc_get_bool(v, "wait", 1, &wait, err))
			return -1;
		o = emit(w, OP_IPI);
		o->jump = wait;
		o->arg = IPI_TO_OTHERS;
		if ((to = yc_find(v, "to")) != NULL) {
			int k;

			if (to->kind != YC_SCALAR)
				return yc_err(to, err, "'to' takes all, others, random or a vCPU index");
			for (k = 0; ipi_to_names[k] != NULL && strcmp(ipi_to_names[k], to->text); k++)
				;
			if (ipi_to_names[k] != NULL)
				o->arg = k == 0 ? IPI_TO_ALL : k == 1 ? IPI_TO_OTHERS : IPI_TO_RANDOM;
			else if (yc_node_int(to, 0, 4095, &o->n, err))
				return yc_err(to, err, "'to' takes all, others, random or a vCPU index");
			else
				o->arg = IPI_TO_ONE;
		}
		/* the function's time on a target: a placeholder (model-reference §7.2) */
		if (yc_find(v, "cost") != NULL) {
			if ((o->d = dist_from_yaml(yc_find(v, "cost"), UNIT_TIME, hz, err)) == NULL)
				return -1;
		}
		else
			o->d = dist_const(500);
		if (yc_check_unused(v, "to, wait, cost", err))
			return -1;
	} else if ((v = yc_find(n, "tlb_flush")) != NULL) {
		/* `tlb_flush: {mm: NAME}` - flush_tlb_mm_range: shoot down the vCPUs
		 * that ran the mm's tasks; without mm, the current task's */
		const char *mm;
		struct wl_op *o;

		if (yc_expect(v, YC_MAP, "a mapping {mm}", err) ||
		    yc_get_str(v, "mm", "", &mm, err) || yc_check_unused(v, "mm", err))
			return -1;
		o = emit(w, OP_TLB_FLUSH);
		o->arg = mm[0] ? name_index(&w->mms, &w->nmms, &w->capmms, mm) : -1;
	} else if ((v = yc_find(n, "mmap")) != NULL || (v = yc_find(n, "munmap")) != NULL) {
		/* `mmap: {cost: 2us}` / `munmap: {cost: 2us}` - the system call's work
		 * under mmap_sem held for writing; munmap then flushes the TLBs of
		 * the task's mm (Linux 4.16 mm/mmap.c do_munmap -> unmap_region ->
		 * tlb_finish_mmu -> flush_tlb_mm_range) */
		int un = yc_find(n, "munmap") == v;
		const struct yc_node *c;
		struct wl_op *o;

		if (yc_expect(v, YC_MAP, "a mapping {cost}", err) ||
		    no_sleep_holding(w, n, un ? "munmap" : "mmap", err))	/* down_write */
			return -1;
		emit_mmap_sem(w, 1);
		o = emit(w, OP_COMPUTE);
		/* a placeholder for the VMA work (model-reference §7.2) */
		if ((c = yc_find(v, "cost")) != NULL) {
			if ((o->d = dist_from_yaml(c, UNIT_TIME, hz, err)) == NULL)
				return -1;
		} else
			o->d = dist_const(2000);
		if (un)
			emit(w, OP_TLB_FLUSH)->arg = -1;
		emit_mmap_sem(w, 0);
		if (yc_check_unused(v, "cost", err))
			return -1;
	} else if ((v = yc_find(n, "fault")) != NULL) {
		/* `fault: 1.2us` - a page fault: its work under the task's mm's
		 * mmap_sem held for reading (Linux 4.16 __do_page_fault: down_read) */
		struct wl_op *o;

		if (no_sleep_holding(w, n, "fault", err))	/* down_read may sleep */
			return -1;
		emit_mmap_sem(w, 1)->n = 1;
		o = emit(w, OP_COMPUTE);
		if ((o->d = dist_from_yaml(v, UNIT_TIME, hz, err)) == NULL)
			return -1;
		emit_mmap_sem(w, 0)->n = 1;
	} else if ((v = yc_find(n, "lock")) != NULL || (v = yc_find(n, "unlock")) != NULL) {
		/* `lock: NAME` / `unlock: NAME`, or {name: NAME, read: true} for an
		 * rwsem's readers: a sleeping lock (mutex unless `locks:` says) */
		int un = yc_find(n, "unlock") == v, rd = 0, si;
		struct wl_op *o;

		if (v->kind == YC_MAP) {
			if (yc_get_str(v, "name", NULL, &s, err) || yc_get_bool(v, "read", 0, &rd, err) ||
			    yc_check_unused(v, "name, read", err))
				return -1;
		} else if (name_arg(v, un ? "unlock" : "lock", &s, err))
			return -1;
		/* mutex_lock / down_read may sleep: not under a spinlock (might_sleep) */
		if (!un && no_sleep_holding(w, n, "lock", err))
			return -1;
		si = slock_index(w, s, v);
		w->slocks[si].read_used |= rd;
		o = emit(w, un ? OP_SUNLOCK : OP_SLOCK);
		o->arg = si;
		o->n = rd;
	} else if ((v = yc_find(n, "count")) != NULL) {
		if (name_arg(v, "count", &s, err))
			return -1;
		emit(w, OP_COUNT)->arg = counter_index(w, s);
	} else if ((v = yc_find(n, "loop")) != NULL) {
		const struct yc_node *body = yc_find(n, "do");
		size_t at = w->nops, i, nsnap;
		int64_t iters = -1, timed = 0;
		struct wl_op *o;
		int *snap, rc;

		if (v->kind == YC_SCALAR && strcmp(v->text, "forever") == 0)
			iters = -1;
		else if (yc_node_int(v, 0, INT64_MAX / 2, &iters, err))
			return -1;
		if (body == NULL)
			return yc_err(n, err, "'loop' needs a 'do' list of primitives");
		o = emit(w, OP_LOOP);
		o->n = iters;
		o->arg = depth;
		if (depth + 1 > w->depth)
			w->depth = depth + 1;
		snap = xcalloc(w->caphold + 1, sizeof *snap);
		nsnap = w->caphold;
		for (i = 0; i < nsnap; i++)
			snap[i] = w->hold[i].held;
		rc = compile_seq(w, body, hz, depth + 1, err);
		if (rc == 0 && iters != 0 && iters != 1)
			rc = loop_balanced(w, snap, nsnap, err);
		if (rc == 0 && iters == 0)	/* never runs: the locks are as before */
			for (i = 0; i < w->caphold; i++)
				w->hold[i].held = i < nsnap ? snap[i] : 0;
		free(snap);
		if (rc)
			return -1;
		for (i = at + 1; i < w->nops; i++)
			timed |= is_timed(w->ops[i].op);
		if (!timed)
			return yc_err(body, err, "this loop body takes no time "
			    "(it needs a compute, memory, acquire or release)");
		if (!body_advances(w, at + 1))
			return yc_err(body, err, "this loop body takes no time (its primitives "
			    "average less than 1ns an iteration): simulated time would stand still");
		w->ops[at].ff = body_fixed(w, at + 1);
		o = emit(w, OP_ENDLOOP);
		o->arg = depth;
		o->jump = (int)at + 1;
		w->ops[at].jump = (int)w->nops;
	} else {
		return yc_check_unused(n, op_keys, err) ? -1 :
		    yc_err(n, err, "empty primitive (expected one of: %s)", op_keys);
	}
	return yc_check_unused(n, op_keys, err);
}

/* Ops from `at` (after an acquire of lock) up to its release: compute only? */
static int
section_ok(const struct workload *w, size_t at, int lock)
{
	for (; at < w->nops && w->ops[at].op == OP_COMPUTE; at++)
		;
	return at < w->nops && w->ops[at].op == OP_RELEASE && w->ops[at].arg == lock;
}

static int
compile_seq(struct workload *w, const struct yc_node *n, double hz, int depth,
    struct vs_err *err)
{
	size_t i, *start;
	int rc = 0;

	if (yc_expect(n, YC_SEQ, "a list of primitives", err))
		return -1;
	start = xcalloc(n->n + 1, sizeof *start);
	for (i = 0; i < n->n && rc == 0; i++) {
		start[i] = w->nops;
		rc = compile_op(w, n->vals[i], hz, depth, err);
	}
	/* Remember the first section that a combining lock could not run. */
	for (i = 0; i < n->n && rc == 0 && w->sect_err == NULL; i++) {
		const struct wl_op *o = &w->ops[start[i]];
		struct vs_err e;

		if (o->op != OP_ACQUIRE || section_ok(w, start[i] + 1, o->arg))
			continue;
		yc_err(n->vals[i], &e, "the section of lock '%s' must be compute "
		    "primitives up to its release (its lock runs sections itself)",
		    w->locks[o->arg].name);
		w->sect_err = xstrdup(e.msg);
	}
	free(start);
	return rc;
}

int
wl_check_sections(const struct workload *w, struct vs_err *err)
{
	if (w->sect_err == NULL)
		return 0;
	snprintf(err->msg, sizeof err->msg, "%s", w->sect_err);
	return -1;
}

static int
add_prog(struct workload *w, const char *name, const struct yc_node *seq, double hz,
    struct vs_err *err)
{
	size_t i;
	int li;

	for (i = 0; i < w->nprogs; i++)
		if (strcmp(w->progs[i].name, name) == 0)
			return yc_err(seq, err, "program '%s' is defined twice", name);
	VS_GROW(w->progs, w->capprogs, w->nprogs);
	w->progs[w->nprogs].name = xstrdup(name);
	w->progs[w->nprogs].start = (int)w->nops;
	w->nprogs++;
	if (w->caphold)		/* every program's task starts holding nothing */
		memset(w->hold, 0, w->caphold * sizeof *w->hold);
	if (compile_seq(w, seq, hz, 0, err))
		return -1;
	if ((li = first_held(w)) >= 0)
		return yc_err(w->hold[li].acq, err, "lock '%s' is still held when program '%s' "
		    "ends (release it first)", w->locks[li].name, name);
	emit(w, OP_END);
	return 0;
}

static int
prog_index(const struct workload *w, const char *name)
{
	size_t i;

	for (i = 0; i < w->nprogs; i++)
		if (strcmp(w->progs[i].name, name) == 0)
			return (int)i;
	return -1;
}

static char *
prog_names(const struct workload *w)
{
	size_t i, len = 1;
	char *s;

	for (i = 0; i < w->nprogs; i++)
		len += strlen(w->progs[i].name) + 2;
	s = xcalloc(1, len);
	for (i = 0; i < w->nprogs; i++) {
		if (i)
			strcat(s, ", ");
		strcat(s, w->progs[i].name);
	}
	return s;
}

static int
unknown_prog(const struct workload *w, const struct yc_node *at, const char *name,
    struct vs_err *err)
{
	char *names = prog_names(w);

	yc_err(at, err, "no program named '%s' (programs: %s)", name,
	    names[0] ? names : "none");
	free(names);
	return -1;
}

/* `tasks: [{program: cc, count: 20, nice: 0, cpus: [0, 1]}]` */
static int
parse_tasks(struct workload *w, const struct yc_node *n, struct vs_err *err)
{
	size_t i, j;

	if (yc_expect(n, YC_SEQ, "a list of task definitions", err))
		return -1;
	if (n->n == 0)
		return yc_err(n, err, "'tasks' is empty");
	w->tasks = xcalloc(n->n, sizeof *w->tasks);
	for (i = 0; i < n->n; i++) {
		const struct yc_node *d = n->vals[i], *cpus;
		struct wl_taskdef *td = &w->tasks[i];
		const char *pn;
		int64_t v;

		w->ntasks++;
		if (yc_expect(d, YC_MAP, "a task definition {program, count, nice, cpus}", err) ||
		    yc_get_str(d, "program", "main", &pn, err))
			return -1;
		if ((td->prog = prog_index(w, pn)) < 0)
			return unknown_prog(w, yc_find(d, "program") ? yc_find(d, "program") : d,
			    pn, err);
		if (yc_get_int(d, "count", 1, 0, 1 << 20, &v, err))
			return -1;
		td->count = (int)v;
		if (yc_get_int(d, "nice", 0, -20, 19, &v, err))
			return -1;
		td->nice = (int)v;
		{
			/* `mm: NAME`: tasks naming one mm are threads of one process;
			 * default: the program's name */
			const char *mm;

			if (yc_get_str(d, "mm", pn, &mm, err))
				return -1;
			td->mm = name_index(&w->mms, &w->nmms, &w->capmms, mm);
		}
		if ((cpus = yc_find(d, "cpus")) != NULL) {
			if (yc_expect(cpus, YC_SEQ, "a list of vCPU indices", err))
				return -1;
			if (cpus->n == 0)
				return yc_err(cpus, err, "'cpus' is empty");
			td->cpus = xcalloc(cpus->n, sizeof *td->cpus);
			for (j = 0; j < cpus->n; j++) {
				if (yc_node_int(cpus->vals[j], 0, 4095, &td->cpus[j], err))
					return -1;
				td->ncpus++;
			}
		}
		td->where = xasprintf("%s:%d:%d", d->file ? d->file : "?", d->line, d->col);
		if (yc_check_unused(d, "program, count, nice, cpus, mm", err))
			return -1;
	}
	return 0;
}

/*
 * A lock's pool (lock.h): `pool: {batches, fill, slow_lines, slow_word_lines,
 * slow}`, the slab node's shared array_cache and what a section does when it
 * is empty or full.
 */
static int
lock_pool_from_yaml(const struct yc_node *p, double hz, struct lock_lines *ll,
    struct vs_err *err)
{
	int64_t batches, fill, slow, word;

	if (p == NULL)
		return 0;
	if (yc_expect(p, YC_MAP, "a mapping of pool settings", err) ||
	    yc_get_int(p, "batches", 8, 1, 1 << 20, &batches, err) ||
	    yc_get_int(p, "fill", 0, 0, 1 << 20, &fill, err) ||
	    yc_get_int(p, "slow_lines", 0, 0, 4096, &slow, err) ||
	    yc_get_int(p, "slow_word_lines", 0, 0, 4096, &word, err) ||
	    yc_get_qty(p, "slow", UNIT_TIME, hz, 0, 0, 1e9, &ll->slow_ns, err))
		return -1;
	if (fill > batches)
		return yc_err(yc_find(p, "fill"), err, "pool fill %lld is more than its %lld "
		    "batches", (long long)fill, (long long)batches);
	ll->pool_batches = (int)batches;
	ll->pool_fill = (int)fill;
	ll->slow_lines = (int)slow;
	ll->slow_word = (int)word;
	return yc_check_unused(p, "batches, fill, slow_lines, slow_word_lines, slow", err);
}

struct workload *
wl_from_yaml(const char *name, const struct yc_node *n, double hz, struct vs_err *err)
{
	struct workload *w = xcalloc(1, sizeof *w);
	const struct yc_node *prog, *progs, *tasks, *locks;
	int64_t th;
	size_t i;

	w->name = xstrdup(name);
	if (yc_expect(n, YC_MAP, "a workload (a mapping with a 'program' or 'tasks')", err))
		goto fail;
	if (yc_get_int(n, "threads", -1, -1, 4096, &th, err))
		goto fail;
	w->threads = (int)th;
	prog = yc_find(n, "program");
	progs = yc_find(n, "programs");
	tasks = yc_find(n, "tasks");
	if (prog == NULL && tasks == NULL) {
		yc_err(n, err, "workload '%s' has no 'program' (or 'programs' and 'tasks')", name);
		goto fail;
	}
	if (prog != NULL && add_prog(w, "main", prog, hz, err))
		goto fail;
	if (progs != NULL) {
		if (yc_expect(progs, YC_MAP, "a mapping of program names to primitives", err))
			goto fail;
		for (i = 0; i < progs->n; i++) {
			progs->used[i] = 1;
			if (add_prog(w, progs->keys[i], progs->vals[i], hz, err))
				goto fail;
		}
	}
	for (i = 0; i < w->nops; i++) {
		struct wl_op *o = &w->ops[i];
		int pi;

		if (o->op != OP_SPAWN)
			continue;
		if ((pi = prog_index(w, o->ref)) < 0) {
			unknown_prog(w, o->src, o->ref, err);
			goto fail;
		}
		o->jump = w->progs[pi].start;
		o->src = NULL;
	}
	if (tasks != NULL) {
		if (w->threads >= 0) {
			yc_err(yc_find(n, "threads"), err, "'threads' is the per-vCPU form; "
			    "with 'tasks' give each task definition a 'count'");
			goto fail;
		}
		if (parse_tasks(w, tasks, err))
			goto fail;
	} else if (progs != NULL) {
		yc_err(progs, err, "'programs' needs a 'tasks' list that runs them");
		goto fail;
	} else if (w->spawns) {
		/* the per-vCPU form cannot spawn: its threads are its vCPUs */
		yc_err(prog, err, "'spawn' needs the task form: give a 'tasks' list");
		goto fail;
	}
	if ((locks = yc_find(n, "locks")) != NULL) {
		if (yc_expect(locks, YC_MAP, "a mapping of lock names to settings", err))
			goto fail;
		for (i = 0; i < locks->n; i++) {
			const struct yc_node *ld = locks->vals[i];
			int64_t lines, stream, word, req, reqs;
			double calls;
			int li;

			locks->used[i] = 1;
			if (ld->kind == YC_MAP && yc_find(ld, "kind") != NULL) {
				/* a sleeping lock: `{kind: mutex}` or `{kind: rwsem}` */
				const char *kind;
				int si;

				if (yc_get_str(ld, "kind", NULL, &kind, err) ||
				    yc_check_unused(ld, "kind", err))
					goto fail;
				si = slock_index(w, locks->keys[i], yc_find(ld, "kind"));
				free(w->slocks[si].kind);
				free(w->slocks[si].where);
				w->slocks[si].kind = xstrdup(kind);
				w->slocks[si].where = xasprintf("%s:%d:%d", yc_find(ld, "kind")->file ?
				    yc_find(ld, "kind")->file : "?", yc_find(ld, "kind")->line,
				    yc_find(ld, "kind")->col);
				continue;
			}
			li = lock_index(w, locks->keys[i]);
			if (yc_expect(ld, YC_MAP, "a mapping of lock settings", err) ||
			    yc_get_int(ld, "cs_lines", 0, 0, 4096, &lines, err) ||
			    yc_get_int(ld, "stream_lines", 0, 0, 4096, &stream, err) ||
			    yc_get_int(ld, "word_lines", 0, 0, 4096, &word, err) ||
			    yc_get_int(ld, "req_lines", 0, 0, 4096, &req, err) ||
			    yc_get_int(ld, "req_stream_lines", 0, 0, 4096, &reqs, err) ||
			    yc_get_num(ld, "calls", 0, 0, 1e18, &calls, err) ||
			    lock_pool_from_yaml(yc_find(ld, "pool"), hz, &w->locks[li].lines, err) ||
			    yc_check_unused(ld, "cs_lines, stream_lines, word_lines, req_lines, "
			    "req_stream_lines, calls, pool", err))
				goto fail;
			w->locks[li].lines.cs = (int)lines;
			w->locks[li].lines.stream = (int)stream;
			w->locks[li].lines.word = (int)word;
			w->locks[li].lines.req = (int)req;
			w->locks[li].lines.req_stream = (int)reqs;
			w->locks[li].calls = calls;
		}
	}
	(void)yc_find(n, "description");
	if (yc_check_unused(n, "threads, program, programs, tasks, locks, description", err))
		goto fail;
	free(w->hold);
	w->hold = NULL;
	w->caphold = 0;
	return w;
fail:
	wl_free(w);
	return NULL;
}

void
wl_free(struct workload *w)
{
	size_t i;

	if (w == NULL)
		return;
	for (i = 0; i < w->nops; i++) {
		dist_free(w->ops[i].d);
		free(w->ops[i].ref);
	}
	for (i = 0; i < w->nprogs; i++)
		free(w->progs[i].name);
	for (i = 0; i < w->ntasks; i++) {
		free(w->tasks[i].cpus);
		free(w->tasks[i].where);
	}
	for (i = 0; i < w->nqueues; i++)
		free(w->queues[i]);
	for (i = 0; i < w->nmarks; i++)
		free(w->marks[i]);
	for (i = 0; i < w->nmms; i++)
		free(w->mms[i]);
	free(w->mms);
	for (i = 0; i < w->nslocks; i++) {
		free(w->slocks[i].name);
		free(w->slocks[i].kind);
		free(w->slocks[i].where);
	}
	free(w->slocks);
	free(w->progs);
	free(w->tasks);
	free(w->queues);
	free(w->marks);
	for (i = 0; i < w->nlocks; i++)
		free(w->locks[i].name);
	for (i = 0; i < w->ncounters; i++)
		free(w->counters[i]);
	free(w->sect_err);
	free(w->hold);
	free(w->ops);
	free(w->locks);
	free(w->counters);
	free(w->name);
	free(w);
}

int wl_threads(const struct workload *w) { return w->threads; }

int
wl_endless(const struct workload *w)
{
	size_t i;

	for (i = 0; i < w->nops; i++)
		if (w->ops[i].op == OP_LOOP && w->ops[i].n < 0)
			return 1;
	return 0;
}
int wl_nlocks(const struct workload *w) { return (int)w->nlocks; }
int wl_ncounters(const struct workload *w) { return (int)w->ncounters; }
const char *wl_counter_name(const struct workload *w, int i) { return w->counters[i]; }
const char *wl_name(const struct workload *w) { return w->name; }
double wl_lock_calls(const struct workload *w, int i) { return w->locks[i].calls; }

int wl_has_tasks(const struct workload *w) { return w->tasks != NULL; }
int wl_spawns(const struct workload *w) { return w->spawns; }
int wl_nmarks(const struct workload *w) { return (int)w->nmarks; }
/* The per-vCPU form's threads share one mm. */
int wl_nmms(const struct workload *w) { return w->nmms > 0 ? (int)w->nmms : 1; }
const char *wl_mm_name(const struct workload *w, int i) { return w->nmms > 0 ? w->mms[i] : "main"; }
int wl_nslocks(const struct workload *w) { return (int)w->nslocks; }
int wl_uses_mmap_sem(const struct workload *w) { return w->mmap_sem; }
const char *wl_slock_name(const struct workload *w, int i) { return w->slocks[i].name; }
const char *wl_slock_kind(const struct workload *w, int i) { return w->slocks[i].kind; }
const char *wl_slock_where(const struct workload *w, int i) { return w->slocks[i].where; }
int wl_slock_read_used(const struct workload *w, int i) { return w->slocks[i].read_used; }
void wl_set_slock_ops(struct workload *w, int i, const struct slock_ops *o) { w->slocks[i].ops = o; }
struct slock *wl_vm_slock(const struct vm *vm, int i) { return ((struct gvm *)vm->guest)->sl[i]; }
size_t wl_cost(const struct workload *w) { return w->cost; }

int64_t
wl_ntasks(const struct workload *w)
{
	int64_t n = 0;
	size_t i;

	if (w->tasks == NULL)
		return -1;
	for (i = 0; i < w->ntasks; i++)
		n += w->tasks[i].count;
	return n;
}
const char *wl_mark_name(const struct workload *w, int i) { return w->marks[i]; }

int
wl_check_vcpus(const struct workload *w, int vcpus, struct vs_err *err)
{
	size_t i;
	int j;

	for (i = 0; i < w->ntasks; i++)
		for (j = 0; j < w->tasks[i].ncpus; j++)
			if (w->tasks[i].cpus[j] >= vcpus) {
				vs_errf(err, NULL, 0, 0, "%s: task cpus lists vCPU %lld but the VM "
				    "has %d vCPUs (0-%d)", w->tasks[i].where,
				    (long long)w->tasks[i].cpus[j], vcpus, vcpus - 1);
				return -1;
			}
	return 0;
}

static struct wl_thread *
thread_new(struct gvm *g, int pc)
{
	size_t nleft = (size_t)g->wl->depth + 1, npath = g->wl->nlocks + 1;
	struct wl_thread *th = xcalloc_line(1, sizeof *th + nleft * sizeof *th->left +
	    npath * sizeof *th->path_since);

	th->gvm = g;
	th->pc = pc;
	th->left = (int64_t *)(th + 1);
	th->path_since = (sim_time_t *)(th->left + nleft);
	th->closing = -1;
	return th;
}

static void
thread_free(struct wl_thread *th)
{
	free(th);
}

static void task_exited(struct task *);

static void wl_continue_after(struct vcpu *, double);
/* The hooks its locks call up through (guest/lock.h). */
static const struct lock_client wl_lock_client = { wl_continue, wl_continue_after,
    wl_take_section };

void
wl_vm_setup(struct vm *vm, const struct workload *w, int threads,
    const struct lock_ops *ops, const void *lock_cfg, const struct gk_config *kcfg,
    struct grun *run)
{
	struct gvm *g = xcalloc(1, sizeof *g);
	struct gk_config cfg = *kcfg;
	size_t i;
	int t, j;

	g->wl = w;
	g->vm = vm;
	g->run = run;
	g->done_at = -1;
	g->locks = xcalloc(w->nlocks, sizeof *g->locks);
	for (i = 0; i < w->nlocks; i++)
		g->locks[i] = lock_new(ops, lock_cfg, w->locks[i].name, vm,
		    &w->locks[i].lines, &wl_lock_client);
	g->counts = xcalloc(w->ncounters, sizeof *g->counts);
	g->queues = xcalloc(w->nqueues + 1, sizeof *g->queues);
	g->arrived = xcalloc(w->nqueues + 1, sizeof *g->arrived);
	for (i = 0; i < w->nqueues; i++)
		gk_waitq_init(&g->queues[i]);
	g->mark_at = xcalloc(w->nmarks + 1, sizeof *g->mark_at);
	g->mark_rep = xcalloc(w->nmarks + 1, sizeof *g->mark_rep);
	for (i = 0; i < w->nmarks; i++) {
		g->mark_at[i] = -1;
		rep_init(&g->mark_rep[i]);
	}
	vm->guest = g;
	cfg.can_spawn = w->spawns;
	cfg.task_exit = task_exited;
	cfg.task_free = (void (*)(void *))thread_free;
	g->k = gk_new(vm, &cfg);
	g->disk = vdisk_new(vm->hv->sim);
	g->sl = xcalloc(w->nslocks + (size_t)wl_nmms(w), sizeof *g->sl);
	for (i = 0; i < w->nslocks; i++)
		g->sl[i] = slock_new(w->slocks[i].ops != NULL ? w->slocks[i].ops : &slock_mutex_ops,
		    g->k, w->slocks[i].name, kcfg->spin_preempted);
	for (j = 0; j < wl_nmms(w); j++) {
		/* Linux mm_struct.mmap_sem: an rw_semaphore per address space */
		char *nm = xasprintf("mmap_sem.%s", wl_mm_name(w, j));

		g->sl[w->nslocks + (size_t)j] = slock_new(&slock_rwsem_ops, g->k, nm,
		    kcfg->spin_preempted);
		free(nm);
	}
	if (w->tasks == NULL) {
		/* The per-vCPU form: thread t is one task that may run only on vCPU t. */
		g->aff = xcalloc((size_t)threads + 1, sizeof *g->aff);
		g->threads = threads;
		for (t = 0; t < threads; t++) {
			g->aff[t] = xcalloc((size_t)vm->nvcpus, 1);
			g->aff[t][t] = 1;
			gk_task_new(g->k, thread_new(g, 0), g->aff[t], 0, NULL)->mm = 0;
		}
		return;
	}
	g->aff = xcalloc(w->ntasks + 1, sizeof *g->aff);
	for (i = 0; i < w->ntasks; i++) {
		const struct wl_taskdef *td = &w->tasks[i];

		if (td->cpus != NULL) {
			g->aff[i] = xcalloc((size_t)vm->nvcpus, 1);
			for (j = 0; j < td->ncpus; j++)
				g->aff[i][td->cpus[j]] = 1;
		}
		for (j = 0; j < td->count; j++)
			gk_task_new(g->k, thread_new(g, w->progs[td->prog].start), g->aff[i],
			    td->nice, NULL)->mm = td->mm;
		g->threads += td->count;
	}
}

void
wl_vm_teardown(struct vm *vm)
{
	struct gvm *g = vm->guest;
	size_t i, naff;

	if (g == NULL)
		return;
	naff = g->wl->tasks == NULL ? (size_t)g->threads : g->wl->ntasks;
	gk_free(g->k);		/* frees the threads of tasks still alive (task_free) */
	for (i = 0; i < g->wl->nslocks + (size_t)wl_nmms(g->wl); i++)
		slock_free(g->sl[i]);
	free(g->sl);
	vdisk_free(g->disk);
	vm->kernel = NULL;
	for (i = 0; i < naff; i++)
		free(g->aff[i]);
	free(g->aff);
	for (i = 0; i < g->wl->nlocks; i++)
		lock_free(g->locks[i]);
	free(g->locks);
	free(g->counts);
	free(g->queues);
	free(g->arrived);
	free(g->mark_at);
	free(g->mark_rep);
	free(g);
	vm->guest = NULL;
}

/* Tasks start when their vCPU first runs; vCPUs without a task idle (HLT). */
void
wl_vm_start(struct vm *vm)
{
	struct gvm *g = vm->guest;

	/* `until: done` waits for tasks that end; a `loop: forever` one never does. */
	g->counted = !wl_endless(g->wl);
	if (g->counted)
		g->run->live += g->threads;
	g->live = g->threads;
	gk_start(g->k, wl_continue);
}

void
wl_vm_finish(struct vm *vm)
{
	gk_finish(((struct gvm *)vm->guest)->k);
}

uint64_t wl_vm_count(const struct vm *vm, int c) { return ((struct gvm *)vm->guest)->counts[c]; }
struct glock *wl_vm_lock(const struct vm *vm, int i) { return ((struct gvm *)vm->guest)->locks[i]; }
int wl_vm_threads(const struct vm *vm) { return ((struct gvm *)vm->guest)->threads; }
sim_time_t wl_vm_done_at(const struct vm *vm) { return ((struct gvm *)vm->guest)->done_at; }
const struct gk_stats *wl_vm_kstats(const struct vm *vm) { return gk_stats(((struct gvm *)vm->guest)->k); }
const struct rep *wl_vm_mark(const struct vm *vm, int i) { return &((struct gvm *)vm->guest)->mark_rep[i]; }
const struct vdisk *wl_vm_disk(const struct vm *vm) { return ((struct gvm *)vm->guest)->disk; }

/* The kernel's hook: task t has exited. */
static void
task_exited(struct task *t)
{
	struct wl_thread *th = t->th;
	struct gvm *g = th->gvm;
	struct sim *s = g->vm->hv->sim;

	thread_free(th);
	if (--g->live == 0)
		g->done_at = s->now;
	if (!g->counted)
		return;
	g->run->live--;
	g->run->last_done = s->now;
	if (g->run->live == 0 && g->run->stop_when_done)
		sim_stop(s);
}

/* Past a release: the call's critical path (acquire to here) ends. */
static void
wl_close_path(struct vcpu *v)
{
	struct wl_thread *th = guest_wl(v);
	struct gvm *g = th->gvm;

	if (th->closing >= 0) {
		g->locks[th->closing]->st.path_ns +=
		    (double)(v->vm->hv->sim->now - th->path_since[th->closing]);
		th->closing = -1;
		gk_preempt_enable(v);
	}
}

/* The lock call returned; ns of the caller's own work follow, off its path. */
static void
wl_continue_after(struct vcpu *v, double ns)
{
	wl_close_path(v);
	if (ns > 0)
		guest_work(v, ns, wl_continue);
	else
		wl_continue(v);
}

/*
 * The loop fast-forward (issue 13; guest.c guest_loop_ff): at the end of an
 * iteration of a fixed body (body_fixed), reached from the event that ended
 * its last timed step, th->pc back at the body's start and left[depth]
 * iterations to go: the guest takes the whole iterations that fit before the
 * next pending event; the body's counters count them here.  Between two
 * iterations the task state repeats: the preempt points found nothing to do
 * (need_resched can only be set by an event) and left compute at 0.
 */
static void
loop_ff(struct vcpu *v, struct wl_thread *th, const struct wl_op *end)
{
	struct gvm *g = th->gvm;
	const struct wl_op *ops = g->wl->ops, *o;
	struct guest_step st[GUEST_FF_STEPS];
	int n = 0, forever = ops[end->jump - 1].n < 0;
	int64_t k, left = th->left[end->arg];

	for (o = &ops[end->jump]; o != end; o++)
		if (o->op == OP_COMPUTE || o->op == OP_IO) {
			st[n].io = o->op == OP_IO ? o->arg : -1;
			st[n++].ns = o->op == OP_COMPUTE ? dist_sample(o->d, v->rng) : 0;
		}
	k = guest_loop_ff(v, st, n, forever ? INT64_MAX : left);
	if (k <= 0)
		return;
	for (o = &ops[end->jump]; o != end; o++)
		if (o->op == OP_COUNT)
			g->counts[o->arg] += (uint64_t)k;
	if (!forever && (th->left[end->arg] = left - k) == 0)
		th->pc = (int)(end - ops) + 1;	/* the loop is done, as its ENDLOOP would say */
}

void
wl_continue(struct vcpu *v)
{
	struct wl_thread *th = guest_wl(v);
	struct gvm *g = th->gvm;
	const struct wl_op *o;
	int tail = guest_tail_take(v, wl_continue);	/* for loop_ff */

	wl_close_path(v);
	/* A preemption point: spin_unlock's preempt_enable, or a return to user. */
	if (gk_preempt_point(v, wl_continue))
		return;
	for (;;) {
		o = &g->wl->ops[th->pc];
		switch (o->op) {
		case OP_COMPUTE:
			th->pc++;
			gk_compute(v, dist_sample(o->d, v->rng), wl_continue);
			return;
		case OP_ACQUIRE:
			th->pc++;
			th->path_since[o->arg] = v->vm->hv->sim->now;
			gk_preempt_disable(v);	/* spin_lock: preempt_disable first */
			lock_acquire(g->locks[o->arg], v);
			return;
		case OP_RELEASE:
			th->pc++;
			th->closing = o->arg;
			lock_release(g->locks[o->arg], v);
			return;
		case OP_IO:
			th->pc++;
			guest_io(v, (enum guest_io)o->arg, wl_continue);
			return;
		case OP_SLEEP:
			th->pc++;
			guest_sleep(v, dist_sample(o->d, v->rng), wl_continue);
			return;
		case OP_MEMORY:
			th->pc++;
			gk_memory(v, dist_sample(o->d, v->rng), wl_continue);
			return;
		case OP_BLOCK:
			th->pc++;
			gk_block_for(v, dist_sample(o->d, v->rng), wl_continue);
			return;
		case OP_DISK:
			th->pc++;
			vdisk_read(g->disk, v, dist_sample(o->d, v->rng), wl_continue);
			return;
		case OP_WAIT:
			th->pc++;
			if (gk_wait(v, &g->queues[o->arg], wl_continue))
				return;
			break;
		case OP_WAKE:
			th->pc++;
			gk_post(v, &g->queues[o->arg], o->n < 0 ? 0 : o->n, o->n < 0);
			if (gk_preempt_point(v, wl_continue))
				return;
			break;
		case OP_SPAWN:
			th->pc++;
			if (g->counted)
				g->run->live++;
			g->live++;
			g->threads++;
			gk_spawn(v, thread_new(g, o->jump));
			if (gk_preempt_point(v, wl_continue))
				return;
			break;
		case OP_WAITCHILD:
			th->pc++;
			if (gk_wait_children(v, (int)o->n, wl_continue))
				return;
			break;
		case OP_BARRIER:
			th->pc++;
			if (++g->arrived[o->arg] < o->n) {
				gk_wait(v, &g->queues[o->arg], wl_continue);
				return;
			}
			g->arrived[o->arg] = 0;
			gk_post(v, &g->queues[o->arg], 0, 1);
			if (gk_preempt_point(v, wl_continue))
				return;
			break;
		case OP_IPI:
			th->pc++;
			if (ipi_call(v, (enum ipi_to)o->arg, (int)o->n, o->jump,
			    dist_sample(o->d, v->rng), wl_continue))
				return;
			break;
		case OP_TLB_FLUSH:
			th->pc++;
			if (ipi_flush_tlb(v, o->arg, wl_continue))
				return;
			break;
		case OP_SLOCK:
			th->pc++;
			if (slock_lock(v, g->sl[o->arg >= 0 ? o->arg : (int)g->wl->nslocks +
			    gk_current(v)->mm], (int)o->n, wl_continue))
				return;
			break;
		case OP_SUNLOCK:
			th->pc++;
			slock_unlock(v, g->sl[o->arg >= 0 ? o->arg : (int)g->wl->nslocks +
			    gk_current(v)->mm], (int)o->n);
			if (gk_preempt_point(v, wl_continue))
				return;
			break;
		case OP_MARK_START:
			th->pc++;
			g->mark_at[o->arg] = v->vm->hv->sim->now;
			break;
		case OP_MARK_STOP:
			th->pc++;
			if (g->mark_at[o->arg] >= 0)
				rep_add(&g->mark_rep[o->arg],
				    (double)(v->vm->hv->sim->now - g->mark_at[o->arg]) * 1e-9);
			g->mark_at[o->arg] = -1;
			break;
		case OP_COUNT:
			g->counts[o->arg]++;
			th->pc++;
			break;
		case OP_LOOP:
			if (o->n == 0) {
				th->pc = o->jump;
				break;
			}
			th->left[o->arg] = o->n;
			th->pc++;
			break;
		case OP_ENDLOOP:
			if (g->wl->ops[o->jump - 1].n < 0 || --th->left[o->arg] > 0) {
				th->pc = o->jump;
				if (tail && g->wl->ops[o->jump - 1].ff)
					loop_ff(v, th, o);
			} else
				th->pc++;
			break;
		case OP_END:
			gk_exit(v);
			return;
		}
	}
}

double
wl_take_section(struct vcpu *v)
{
	struct wl_thread *th = guest_wl(v);
	const struct workload *w = th->gvm->wl;
	const struct wl_op *acq = &w->ops[th->pc - 1];
	double ns = 0;

	VS_ASSERT(th->pc > 0 && acq->op == OP_ACQUIRE);
	if (!section_ok(w, (size_t)th->pc, acq->arg))
		vs_fatal("%s", w->sect_err ? w->sect_err : "section is not compute only");
	for (; w->ops[th->pc].op == OP_COMPUTE; th->pc++)
		ns += dist_sample(w->ops[th->pc].d, v->rng);
	th->pc++;		/* past the release */
	th->closing = acq->arg;
	return ns;
}



/* mmap/munmap hold the task's mm's mmap_sem for writing (Linux 4.16
 * vm_mmap_pgoff / vm_munmap: down_write(&mm->mmap_sem)). */
static struct wl_op *
emit_mmap_sem(struct workload *w, int down)
{
	struct wl_op *o = emit(w, down ? OP_SLOCK : OP_SUNLOCK);

	w->mmap_sem = 1;
	o->arg = -1;	/* the current task's mm */
	o->n = 0;	/* for writing; a fault sets 1 (reading) */
	return o;
}
