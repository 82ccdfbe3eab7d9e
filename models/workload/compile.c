/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * compile.c - a workload's YAML to ops (wl_priv.h): each primitive's key
 * names its compiler in one table (prims[], the way tmux's cmd_entry and
 * Lua's luaL_Reg name theirs), which also gives the key list of messages.
 * The compiler walks each program once, straight through (loops are the
 * only branches), and checks on the way what would go wrong at run time:
 * a spinlock acquired twice, released unheld, held across a sleep or past a
 * loop's end, a loop whose body takes no time, and an alias bomb (WL_MAX_COST).
 */
#include "workload/wl_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist.h"
#include "guest/guest.h"
#include "guest/ipi.h"
#include "yconf.h"
#include "yparam.h"

/* The compiler's state: the workload it builds, the clock (cycles), the loop
 * depth of the primitive at hand, and the primitives' keys for messages. */
struct wl_cc {
	struct workload *w;
	double hz;
	int depth;
	int loop_at;		/* the innermost loop's LOOP op; -1 none */
	const struct wl_prim *prim;	/* the primitive at hand */
	char keys[256];		/* "compute, acquire, ..., loop (with do), ..." */
	char what[288];		/* "a primitive (one of: KEYS)" */
};

/* A primitive: its key, its compiler and the compiler's arg (c->prim->arg),
 * a second key its mapping takes, and what `vlocksim list` says of it.  The compiler gets the primitive's
 * mapping n and its value v (n's entry of key). */
struct wl_prim {
	const char *key;
	int (*compile)(struct wl_cc *, const struct yc_node *n, const struct yc_node *v,
	    struct vs_err *);
	int arg;
	const char *with;
	const char *syntax, *what;	/* for `vlocksim list` */
};

/* A lock's settings as the table's defaults give them (one instance, ...). */
static struct wl_lockdef
lock_defaults(void)
{
	struct wl_lockdef l;
	struct vs_err e = { "" };

	memset(&l, 0, sizeof l);
	if (yc_params_read(NULL, wl_lock_params, NULL, 0, &l, &e))
		vs_fatal("%s", e.msg);
	return l;
}

static int
lock_index(struct workload *w, const char *name)
{
	size_t i;

	for (i = 0; i < w->nlocks; i++)
		if (strcmp(w->locks[i].name, name) == 0)
			return (int)i;
	VS_GROW(w->locks, w->caplocks, w->nlocks);
	/* the table's defaults (one instance) until `locks:` says otherwise */
	w->locks[w->nlocks] = lock_defaults();
	w->locks[w->nlocks].name = xstrdup(name);
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
	w->slocks[w->nslocks].instances = lock_defaults().instances;
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
	if (w->capwhere < w->capops) {
		w->op_where = xrealloc(w->op_where, w->capops * sizeof *w->op_where);
		w->op_prim = xrealloc(w->op_prim, w->capops * sizeof *w->op_prim);
		w->capwhere = w->capops;
	}
	w->op_where[w->nops] = NULL;
	w->op_prim[w->nops] = NULL;
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
	    op == OP_TLB_FLUSH || op == OP_SLOCK || op == OP_SUNLOCK || op == OP_BUSY_WAIT;
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
		case OP_BUSY_WAIT:
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

/*
 * A forever loop of fixed computes only (no exit, no counter): its
 * iterations' ends change nothing a run reports, so where nothing can act at
 * them (interp.c, gk_alone) it is one compute without an end.
 */
static int
body_endless(const struct workload *w, size_t at)
{
	size_t i;

	if (w->ops[at].n >= 0 || !w->ops[at].ff)
		return 0;
	for (i = at + 1; i < w->nops; i++)
		if (w->ops[i].op != OP_COMPUTE)
			return 0;
	return 1;
}

/*
 * The walk that interp.c wl_lock_then makes at each lock call, made here
 * once per op: from op `from`, over counters and at most one loop end of a
 * loop the fast-forward leaves alone (its body not fixed), to a compute
 * within 8 ops; `round`: that loop goes round again.  *end: the loop end
 * passed, when its loop is finite (its count is what decides round).
 */
static struct wl_next
next_walk(const struct workload *w, size_t from, int round, int *end)
{
	struct wl_next x = { NULL, -1, -1, -1, 0 };
	size_t pc = from;
	int k, loops = 0;

	for (k = 0; k < 8; k++) {
		const struct wl_op *o = &w->ops[pc];

		if (o->op == OP_COMPUTE) {
			x.at = (int)pc;
			return x;
		}
		if (o->op == OP_COUNT) {
			x.count = x.count == -1 ? o->arg : -2;
			pc++;
		} else if (o->op == OP_ENDLOOP && !w->ops[o->jump - 1].ff && loops++ == 0) {
			int forever = w->ops[o->jump - 1].n < 0;

			if (!forever)
				*end = (int)pc;
			pc = forever || round ? (size_t)o->jump : pc + 1;
		} else
			break;
	}
	return (struct wl_next){ NULL, -1, -1, -1, 0 };
}

/* Every op's nx and nx_left (wl_priv.h), once the loops' ff are known and
 * its counters named (a walk that passes none counts into the spare). */
static void
next_plan(struct workload *w)
{
	size_t i;
	int k;

	for (i = 0; i < w->nops; i++) {
		struct wl_op *o = &w->ops[i];
		int end = -1;

		o->nx[0] = next_walk(w, i, 0, &end);
		o->nx[1] = next_walk(w, i, 1, &end);
		o->nx_left = end >= 0 ? w->ops[end].arg : -1;
		for (k = 0; k < 2; k++) {
			struct wl_next *x = &o->nx[k];

			x->left = end >= 0 ? w->ops[end].arg : -1;
			if (x->count == -1)
				x->count = (int)w->ncounters;
			x->d = x->at >= 0 ? w->ops[x->at].d : NULL;
			x->walk = x->count == -2 ? WL_NX_OPS : x->left >= 0 ? WL_NX_LEFT : WL_NX_COUNT;
		}
	}
}

/* `ipi: {to: ...}` */
static const char *const ipi_to_names[] = { "all", "others", "random", NULL };

/* `io: pio-user` - the exits a guest device access costs (hv/hv_io.h: enum guest_io). */
static const char *const io_names[] = { "pio-kernel", "pio-user", "mmio-kernel",
    "mmio-user", "hypercall", "mmio-ioeventfd", NULL };

static int compile_seq(struct wl_cc *, const struct yc_node *, struct vs_err *);
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

/*
 * The primitives' compilers (struct wl_prim).  Each emits its ops and checks
 * its own value; compile_op checks the mapping's other keys afterwards.
 */

/* `compute: 20ns` (any distribution, dist.h) and `memory: 1MiB` (bytes
 * streamed at the socket's shared bandwidth); the opcode is the table's arg */
static int
prim_work(struct wl_cc *c, const struct yc_node *n, const struct yc_node *v,
    struct vs_err *err)
{
	enum wl_opcode op = (enum wl_opcode)c->prim->arg;

	(void)n;
	return op_dist(c->w, emit(c->w, op), v, op == OP_MEMORY ? UNIT_SIZE : UNIT_TIME, c->hz,
	    err);
}

/* `by:` of an acquire, the names of enum wl_by from WL_BY_VCPU on */
static const char *const by_names[] = { "vcpu", "task", "mm", "random", NULL };

/* `by: vcpu|task|mm|random|INDEX|{loop: K}` into o (its range is checked
 * once the workload's `locks:` and `queues:` are read: instances_ok).
 * {loop: K}: instance K + i in iteration i (from 0) of the innermost loop
 * around o, which repeats a fixed number of times. */
static int
op_by(struct wl_cc *c, struct wl_op *o, const struct yc_node *by, struct vs_err *err)
{
	int64_t i;
	int k;

	o->src = by;
	if (by->kind == YC_MAP) {
		if (yc_get_int(by, "loop", -1, 0, WL_MAX_INSTANCES - 1, &i, err) ||
		    yc_check_unused(by, "loop", err))
			return -1;
		if (i < 0)
			return yc_err(by, err, "'by' as a mapping is {loop: K}: instance K + i in "
			    "the i-th iteration of the loop around it");
		if (c->loop_at < 0 || c->w->ops[c->loop_at].n < 0)
			return yc_err(by, err, "'by: {loop: K}' needs a loop of N iterations "
			    "around it");
		o->by = WL_BY_LOOP;
		o->jump = (int)i;
		o->loop = c->loop_at;
		return 0;
	}
	if (by->kind == YC_SCALAR)
		for (k = 0; by_names[k] != NULL; k++)
			if (strcmp(by_names[k], by->text) == 0) {
				o->by = WL_BY_VCPU + k;
				return 0;
			}
	o->by = WL_BY_INDEX;
	if (by->kind != YC_SCALAR || by->text[0] < '0' || by->text[0] > '9')
		return yc_err(by, err, "'by' takes vcpu, task, mm, random or an instance's index "
		    "(0, 1, ...), or {loop: K} in a loop");
	if (yc_node_int(by, 0, WL_MAX_INSTANCES - 1, &i, err))
		return -1;
	o->jump = (int)i;
	return 0;
}

/* `acquire: NAME` - a spinlock of the VM; not recursive.  A lock with
 * instances (a lock per object) is named with the one to take:
 * `acquire: {name: NAME, by: vcpu|task|mm|random|INDEX}`. */
static int
prim_acquire(struct wl_cc *c, const struct yc_node *n, const struct yc_node *v,
    struct vs_err *err)
{
	struct workload *w = c->w;
	const struct yc_node *by = NULL;
	struct wl_hold *h;
	struct wl_op *o;
	const char *s = NULL;
	int li;

	if (v->kind == YC_MAP) {
		if (yc_get_str(v, "name", NULL, &s, err))
			return -1;
		if ((by = yc_find(v, "by")) == NULL)
			return yc_err(v, err, "'acquire' as a mapping takes 'name' and 'by' "
			    "(which instance: vcpu, task, mm, random or an index)");
		if (yc_check_unused(v, "name, by", err))
			return -1;
	} else if (name_arg(v, "acquire", &s, err))
		return -1;
	li = lock_index(w, s);
	h = hold_of(w, li);
	if (h->held)
		return yc_err(n, err, "acquire of lock '%s', which this task already holds "
		    "(acquired at %s:%d:%d): a spinlock is not recursive", s,
		    h->acq->file ? h->acq->file : "?", h->acq->line, h->acq->col);
	h->held = 1;
	h->acq = n;
	o = emit(w, OP_ACQUIRE);
	o->arg = li;
	o->src = n;
	return by != NULL ? op_by(c, o, by, err) : 0;
}

static int
prim_release(struct wl_cc *c, const struct yc_node *n, const struct yc_node *v,
    struct vs_err *err)
{
	struct workload *w = c->w;
	struct wl_hold *h;
	const char *s = NULL;
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
	return 0;
}

/* `count: NAME` - bump a per-VM counter (a metric) */
static int
prim_count(struct wl_cc *c, const struct yc_node *n, const struct yc_node *v,
    struct vs_err *err)
{
	const char *s = NULL;

	(void)n;
	if (name_arg(v, "count", &s, err))
		return -1;
	emit(c->w, OP_COUNT)->arg = counter_index(c->w, s);
	return 0;
}

/* `io: pio-user` - a guest device access and the exits it costs (hv/hv_io.h) */
static int
prim_io(struct wl_cc *c, const struct yc_node *n, const struct yc_node *v,
    struct vs_err *err)
{
	int k;

	(void)n;
	if (v->kind != YC_SCALAR)
		return yc_err(v, err, "'io' takes one of: pio-kernel, pio-user, mmio-kernel, "
		    "mmio-user, mmio-ioeventfd, hypercall");
	for (k = 0; io_names[k] != NULL && strcmp(io_names[k], v->text) != 0; k++)
		;
	if (io_names[k] == NULL)
		return yc_err(v, err, "unknown io '%s' (expected one of: pio-kernel, "
		    "pio-user, mmio-kernel, mmio-user, mmio-ioeventfd, hypercall)", v->text);
	emit(c->w, OP_IO)->arg = k;
	c->w->uses_io = 1;
	return 0;
}

/*
 * A primitive that sleeps for a time, not under a spinlock (its opcode is
 * the table's arg):
 *   `sleep: 1ms`  the vCPU halts (guest_sleep);
 *   `block: 5ms`  the task sleeps (I/O, a timer); its vCPU runs others or idles;
 *   `disk: 8ms`   a read the VM's disk serves in 8 ms, after the requests
 *                 queued before it (guest/vdisk.h); the task sleeps.
 */
static int
prim_timed_sleep(struct wl_cc *c, const struct yc_node *n, const struct yc_node *v,
    struct vs_err *err)
{
	if (no_sleep_holding(c->w, n, c->prim->key, err))
		return -1;
	return op_dist(c->w, emit(c->w, (enum wl_opcode)c->prim->arg), v, UNIT_TIME, c->hz, err);
}

/* `wait: NAME` - take a token of wait queue NAME, or sleep until woken;
 * `wait: {on: NAME, by: ...}` of a queue with instances (`queues:`) */
static int
prim_wait(struct wl_cc *c, const struct yc_node *n, const struct yc_node *v,
    struct vs_err *err)
{
	struct workload *w = c->w;
	const struct yc_node *by = NULL;
	struct wl_op *o;
	const char *s = NULL;

	if (v->kind == YC_MAP) {
		if (yc_get_str(v, "on", NULL, &s, err))
			return -1;
		by = yc_find(v, "by");
		if (yc_check_unused(v, "on, by", err))
			return -1;
	} else if (name_arg(v, "wait", &s, err))
		return -1;
	if (no_sleep_holding(w, n, "wait", err))
		return -1;
	o = emit(w, OP_WAIT);
	o->arg = name_index(&w->queues, &w->nqueues, &w->capqueues, s);
	o->src = n;
	return by != NULL ? op_by(c, o, by, err) : 0;
}

/* `wake: NAME` or `wake: {on: NAME, count: N | all: true, by: ..., sync: BOOL}` */
static int
prim_wake(struct wl_cc *c, const struct yc_node *n, const struct yc_node *v,
    struct vs_err *err)
{
	struct workload *w = c->w;
	struct wl_op *o = emit(w, OP_WAKE);
	const struct yc_node *by = NULL;
	const char *s = NULL;
	int all = 0;

	o->n = 1;
	o->src = n;
	if (v->kind == YC_MAP) {
		if (yc_get_str(v, "on", NULL, &s, err) ||
		    yc_get_int(v, "count", 1, 1, INT64_MAX / 2, &o->n, err) ||
		    yc_get_bool(v, "all", 0, &all, err) ||
		    yc_get_bool(v, "sync", 0, &o->sync, err))
			return -1;
		by = yc_find(v, "by");
		if (yc_check_unused(v, "on, count, all, by, sync", err))
			return -1;
	} else if (name_arg(v, "wake", &s, err))
		return -1;
	if (all)
		o->n = -1;
	o->arg = name_index(&w->queues, &w->nqueues, &w->capqueues, s);
	return by != NULL ? op_by(c, o, by, err) : 0;
}

/* A loop's ops around its body: LOOP (its iterations) now, ENDLOOP at end. */
static size_t
loop_open(struct wl_cc *c, int64_t iters)
{
	struct workload *w = c->w;
	size_t at = w->nops;
	struct wl_op *o = emit(w, OP_LOOP);

	o->n = iters;
	o->arg = c->depth;
	if (c->depth + 1 > w->depth)
		w->depth = c->depth + 1;
	return at;
}

static void
loop_close(struct wl_cc *c, size_t at)
{
	struct workload *w = c->w;
	struct wl_op *o = emit(w, OP_ENDLOOP);

	o->arg = c->depth;
	o->jump = (int)at + 1;
	w->ops[at].jump = (int)w->nops;
}

/* `spawn: {program: cc, count: 2000, parallel: 20}` - as make -j20 forks
 * jobs: at most `parallel` children alive, waiting for one to exit before
 * the next (do_fork; wait4) */
static int
prim_spawn(struct wl_cc *c, const struct yc_node *n, const struct yc_node *v,
    struct vs_err *err)
{
	struct workload *w = c->w;
	const char *prog;
	int64_t cnt, par;
	struct wl_op *o;
	size_t at;

	if (yc_expect(v, YC_MAP, "a mapping {program, count, parallel}", err) ||
	    yc_get_str(v, "program", NULL, &prog, err) ||
	    yc_get_int(v, "count", 1, 1, INT64_MAX / 2, &cnt, err) ||
	    yc_get_int(v, "parallel", 0, 0, WL_MAX_TASKS, &par, err) ||
	    yc_check_unused(v, "program, count, parallel", err) ||
	    (par > 0 && no_sleep_holding(w, n, "spawn (with parallel)", err)))
		return -1;
	/* without `parallel` every child is alive at once: as many as `tasks` has */
	if (par == 0 && cnt > WL_MAX_TASKS)
		return yc_err(yc_find(v, "count"), err, "'count' = %lld children alive at once "
		    "(no 'parallel'): at most %d; give a 'parallel' to run them in turn",
		    (long long)cnt, WL_MAX_TASKS);
	at = loop_open(c, cnt);
	if (par > 0)
		emit(w, OP_WAITCHILD)->n = par - 1;
	o = emit(w, OP_SPAWN);
	o->ref = xstrdup(prog);
	o->src = v;
	w->spawns = 1;
	loop_close(c, at);
	return 0;
}

/* `exec: {}` - execve: sched_exec may move the task (gk_exec) */
static int
prim_exec(struct wl_cc *c, const struct yc_node *n, const struct yc_node *v,
    struct vs_err *err)
{
	if (yc_expect(v, YC_MAP, "an empty mapping {}", err))
		return -1;
	if (v->n != 0)
		return yc_err(v, err, "'exec' takes no keys: {}");
	if (no_sleep_holding(c->w, n, "exec", err))
		return -1;
	emit(c->w, OP_EXEC);
	return 0;
}

/* `join: children` - wait4 until every child has exited */
static int
prim_join(struct wl_cc *c, const struct yc_node *n, const struct yc_node *v,
    struct vs_err *err)
{
	(void)v;
	if (no_sleep_holding(c->w, n, "join", err))
		return -1;
	emit(c->w, OP_WAITCHILD)->n = 0;
	return 0;
}

/* `barrier: {name: NAME, count: N}` - the N-th arrival releases all */
static int
prim_barrier(struct wl_cc *c, const struct yc_node *n, const struct yc_node *v,
    struct vs_err *err)
{
	struct workload *w = c->w;
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
	return 0;
}

/* `mark: {start: NAME}` ... `mark: {stop: NAME}` - a timed region (like
 * kernbench's `time make`); metrics NAME_mean_s, NAME_sd_s, NAME_n */
static int
prim_mark(struct wl_cc *c, const struct yc_node *n, const struct yc_node *v,
    struct vs_err *err)
{
	struct workload *w = c->w;
	const char *a = NULL, *b = NULL;

	(void)n;
	if (yc_expect(v, YC_MAP, "a mapping {start: NAME} or {stop: NAME}", err) ||
	    yc_get_str(v, "start", "", &a, err) || yc_get_str(v, "stop", "", &b, err) ||
	    yc_check_unused(v, "start, stop", err))
		return -1;
	if ((a[0] == '\0') == (b[0] == '\0'))
		return yc_err(v, err, "'mark' takes one of 'start' or 'stop'");
	emit(w, a[0] ? OP_MARK_START : OP_MARK_STOP)->arg =
	    name_index(&w->marks, &w->nmarks, &w->capmarks, a[0] ? a : b);
	return 0;
}

/* A primitive's `cost:` (a placeholder for work the model does not break
 * down, model-reference §7.2), def_ns when absent. */
static int
cost_dist(struct wl_cc *c, struct wl_op *o, const struct yc_node *v, double def_ns,
    struct vs_err *err)
{
	const struct yc_node *cost = yc_find(v, "cost");

	if (cost == NULL) {
		o->d = dist_const(def_ns);
		return 0;
	}
	return (o->d = dist_from_yaml(cost, UNIT_TIME, c->hz, err)) == NULL ? -1 : 0;
}

/* `ipi: {to: all|others|random|N, wait: true, cost: 500ns}` - a function call
 * on other vCPUs (smp_call_function_many; `all` is on_each_cpu) */
static int
prim_ipi(struct wl_cc *c, const struct yc_node *n, const struct yc_node *v,
    struct vs_err *err)
{
	const struct yc_node *to;
	struct wl_op *o;
	int wait, k;

	(void)n;
	if (yc_expect(v, YC_MAP, "a mapping {to, wait, cost}", err) ||
	    yc_get_bool(v, "wait", 1, &wait, err))
		return -1;
	o = emit(c->w, OP_IPI);
	o->jump = wait;
	o->arg = IPI_TO_OTHERS;
	if ((to = yc_find(v, "to")) != NULL) {
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
	if (cost_dist(c, o, v, 500, err))
		return -1;
	return yc_check_unused(v, "to, wait, cost", err);
}

/* `tlb_flush: {mm: NAME}` - flush_tlb_mm_range: shoot down the vCPUs that
 * ran the mm's tasks; without mm, the current task's */
static int
prim_tlb_flush(struct wl_cc *c, const struct yc_node *n, const struct yc_node *v,
    struct vs_err *err)
{
	struct workload *w = c->w;
	const char *mm;

	(void)n;
	if (yc_expect(v, YC_MAP, "a mapping {mm}", err) ||
	    yc_get_str(v, "mm", "", &mm, err) || yc_check_unused(v, "mm", err))
		return -1;
	emit(w, OP_TLB_FLUSH)->arg = mm[0] ? name_index(&w->mms, &w->nmms, &w->capmms, mm) : -1;
	return 0;
}

/* `mmap: {cost: 2us}` / `munmap: {cost: 2us}` (arg 1) - the system call's
 * work under mmap_sem held for writing; munmap then flushes the TLBs of the
 * task's mm (Linux 4.16 mm/mmap.c do_munmap -> unmap_region ->
 * tlb_finish_mmu -> flush_tlb_mm_range) */
static int
prim_mm(struct wl_cc *c, const struct yc_node *n, const struct yc_node *v,
    struct vs_err *err)
{
	struct workload *w = c->w;
	int un = c->prim->arg;

	if (yc_expect(v, YC_MAP, "a mapping {cost}", err) ||
	    no_sleep_holding(w, n, un ? "munmap" : "mmap", err))	/* down_write */
		return -1;
	emit_mmap_sem(w, 1);
	if (cost_dist(c, emit(w, OP_COMPUTE), v, 2000, err))	/* the VMA work */
		return -1;
	if (un)
		emit(w, OP_TLB_FLUSH)->arg = -1;
	emit_mmap_sem(w, 0);
	return yc_check_unused(v, "cost", err);
}

/* `fault: 1.2us` - a page fault: its work under the task's mm's mmap_sem
 * held for reading (Linux 4.16 __do_page_fault: down_read) */
static int
prim_fault(struct wl_cc *c, const struct yc_node *n, const struct yc_node *v,
    struct vs_err *err)
{
	struct workload *w = c->w;
	struct wl_op *o;

	if (no_sleep_holding(w, n, "fault", err))	/* down_read may sleep */
		return -1;
	emit_mmap_sem(w, 1)->n = 1;
	o = emit(w, OP_COMPUTE);
	if ((o->d = dist_from_yaml(v, UNIT_TIME, c->hz, err)) == NULL)
		return -1;
	emit_mmap_sem(w, 0)->n = 1;
	return 0;
}

/* `lock: NAME` / `unlock: NAME` (arg 1), or {name: NAME, read: true} for an
 * rwsem's readers: a sleeping lock (mutex unless `locks:` says); a lock of a
 * class with instances names its instance, {name: NAME, by: ...}, and the
 * unlock gives back the one the task took */
static int
prim_slock(struct wl_cc *c, const struct yc_node *n, const struct yc_node *v,
    struct vs_err *err)
{
	struct workload *w = c->w;
	const struct yc_node *by = NULL;
	const char *s = NULL;
	struct wl_op *o;
	int un = c->prim->arg, rd = 0, si;

	if (v->kind == YC_MAP) {
		if (yc_get_str(v, "name", NULL, &s, err) || yc_get_bool(v, "read", 0, &rd, err))
			return -1;
		if (!un)
			by = yc_find(v, "by");
		if (yc_check_unused(v, un ? "name, read" : "name, read, by", err))
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
	o->src = n;
	return by != NULL ? op_by(c, o, by, err) : 0;
}

/* The body of a loop starting at op at: takes time, leaves the locks as it
 * found them when it repeats (snap: who held what before). */
static int
loop_body(struct wl_cc *c, const struct yc_node *body, int64_t iters, size_t at,
    struct vs_err *err)
{
	struct workload *w = c->w;
	size_t i, nsnap = w->caphold;
	int *snap = xcalloc(w->caphold + 1, sizeof *snap), rc, timed = 0;

	for (i = 0; i < nsnap; i++)
		snap[i] = w->hold[i].held;
	int outer = c->loop_at;

	c->depth++;
	c->loop_at = (int)at;
	rc = compile_seq(c, body, err);
	c->loop_at = outer;
	c->depth--;
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
	return 0;
}

/* `loop: N` (or forever) with `do: [primitives]` */
static int
prim_loop(struct wl_cc *c, const struct yc_node *n, const struct yc_node *v,
    struct vs_err *err)
{
	const struct yc_node *body = yc_find(n, "do");
	int64_t iters = -1;
	size_t at;

	if (v->kind == YC_SCALAR && strcmp(v->text, "forever") == 0)
		iters = -1;
	else if (yc_node_int(v, 0, INT64_MAX / 2, &iters, err))
		return -1;
	if (body == NULL)
		return yc_err(n, err, "'loop' needs a 'do' list of primitives");
	at = loop_open(c, iters);
	if (loop_body(c, body, iters, at, err))
		return -1;
	c->w->ops[at].ff = body_fixed(c->w, at + 1);
	c->w->ops[at].endless = body_endless(c->w, at);
	loop_close(c, at);
	return 0;
}

/* Every primitive, in the order messages list them. */
static const struct wl_prim prims[] = {
	{ "compute", prim_work, OP_COMPUTE, NULL, "DIST",
	  "run guest code for a time drawn from DIST" },
	{ "busy_wait", prim_work, OP_BUSY_WAIT, NULL, "DIST",
	  "spin on the CPU until DIST of wall time has passed, preempted or not (a "
	  "calibrated rdtsc delay loop)" },
	{ "acquire", prim_acquire, 0, NULL, "LOCK | {name: LOCK, by: vcpu|task|mm|random|N|{loop: K}}",
	  "take a lock of the VM (its algorithm is vms[].lock); of a lock with instances, "
	  "the one by names" },
	{ "release", prim_release, 0, NULL, "LOCK",
	  "release it" },
	{ "count", prim_count, 0, NULL, "NAME",
	  "bump a per-VM counter (metrics VM.NAME, VM.NAME_per_sec)" },
	{ "io", prim_io, 0, NULL, "KIND",
	  "a device access (an exit in a VM): pio-kernel, pio-user, mmio-kernel, "
	  "mmio-user, mmio-ioeventfd, hypercall" },
	{ "sleep", prim_timed_sleep, OP_SLEEP, NULL, "DIST",
	  "block (HLT) for a time, then an interrupt wakes the vCPU" },
	{ "memory", prim_work, OP_MEMORY, NULL, "SIZE",
	  "stream bytes through the socket's shared memory bandwidth" },
	{ "loop", prim_loop, 0, "do", "N|forever",
	  "repeat do: [...]" },
	{ "block", prim_timed_sleep, OP_BLOCK, NULL, "DIST",
	  "(task form) the task sleeps; its vCPU runs others or idles" },
	{ "disk", prim_timed_sleep, OP_DISK, NULL, "DIST",
	  "(task form) a read the VM's disk serves in DIST after those queued" },
	{ "wait", prim_wait, 0, NULL, "Q | {on: Q, by: ...}",
	  "(task form) take a token of wait queue Q, or sleep until woken (by: which of "
	  "Q's queues: instances)" },
	{ "wake", prim_wake, 0, NULL, "Q",
	  "(task form) wake one waiter of Q ({on: Q, count: N} or {on: Q, all: "
	  "true}; by: which of Q's queues; sync: true, the waker is about to sleep, as "
	  "a pipe's or socket's wake: __wake_up_sync_key)" },
	{ "spawn", prim_spawn, 0, NULL, "{program: P, count: N, parallel: M}",
	  "(task form) start N child tasks, at most M alive" },
	{ "join", prim_join, 0, NULL, "children",
	  "(task form) wait until every child has exited" },
	{ "exec", prim_exec, 0, NULL, "{}",
	  "(task form) execve's sched_exec: the task may move to the idlest vCPU "
	  "(SD_BALANCE_EXEC)" },
	{ "barrier", prim_barrier, 0, NULL, "{name: B, count: N}",
	  "(task form) the N-th arrival releases all" },
	{ "mark", prim_mark, 0, NULL, "{start: R} | {stop: R}",
	  "(task form) a timed region: VM.R_mean_s, R_sd_s, R_n" },
	{ "ipi", prim_ipi, 0, NULL, "{to: all|others|random|N, wait: BOOL, cost: DIST}",
	  "(task form) smp_call_function_many (all: on_each_cpu); with wait the "
	  "sender spins (PLE sees it)" },
	{ "tlb_flush", prim_tlb_flush, 0, NULL, "{mm: MM}",
	  "(task form) flush_tlb_mm_range: shoot down the vCPUs that ran MM" },
	{ "mmap", prim_mm, 0, NULL, "{cost: DIST}",
	  "(task form) work under the task's mmap_sem (write)" },
	{ "munmap", prim_mm, 1, NULL, "{cost: DIST}",
	  "(task form) the same, then flush the task's mm" },
	{ "fault", prim_fault, 0, NULL, "DIST",
	  "(task form) a page fault's work under mmap_sem held for reading" },
	{ "lock", prim_slock, 0, NULL, "L | {name: L, read: true, by: ...}",
	  "(task form) take a sleeping lock (rwsem readers: read; by: which instance); "
	  "tasks: [{..., mm: MM}] names the address space (default: program)" },
	{ "unlock", prim_slock, 1, NULL, "L",
	  "(task form) release it" },
	{ NULL, NULL, 0, NULL, NULL, NULL }
};

const char *
wl_prim_doc(int i, const char **syntax, const char **what)
{
	if (i < 0 || i >= (int)(sizeof prims / sizeof prims[0]) - 1)
		return NULL;
	*syntax = prims[i].syntax;
	*what = prims[i].what;
	return prims[i].key;
}

static const struct wl_prim *
prim_of(const char *key)
{
	const struct wl_prim *p;

	for (p = prims; p->key != NULL; p++)
		if (strcmp(p->key, key) == 0)
			return p;
	return NULL;
}

/* The key list and the expectation of messages, from prims[]. */
static void
cc_init(struct wl_cc *c, struct workload *w, double hz)
{
	const struct wl_prim *p;
	size_t off = 0;

	memset(c, 0, sizeof *c);
	c->w = w;
	c->hz = hz;
	c->loop_at = -1;
	for (p = prims; p->key != NULL; p++) {
		off += (size_t)snprintf(c->keys + off, sizeof c->keys - off, "%s%s%s%s%s",
		    p == prims ? "" : ", ", p->key, p->with ? " (with " : "",
		    p->with ? p->with : "", p->with ? ")" : "");
		VS_ASSERT(off < sizeof c->keys);
	}
	snprintf(c->what, sizeof c->what, "a primitive (one of: %s)", c->keys);
}

/* A primitive: a mapping with exactly one of prims[]' keys. */
static int
compile_op(struct wl_cc *c, const struct yc_node *n, struct vs_err *err)
{
	const struct wl_prim *p = NULL, *q;
	size_t i, at = 0, first;
	int rc;

	if (yc_expect(n, YC_MAP, c->what, err) || charge(c->w, n, 1, err))
		return -1;
	for (i = 0; i < n->n; i++) {
		if ((q = prim_of(n->keys[i])) == NULL)
			continue;
		if (p != NULL)
			return vs_errf(err, n->key_file[i], n->key_line[i], n->key_col[i],
			    "'%s' is a second primitive in this list item (after '%s'): "
			    "give each primitive an item of its own", q->key, n->keys[at]);
		p = q;
		at = i;
	}
	if (p == NULL)
		return yc_check_unused(n, c->keys, err) ? -1 :
		    yc_err(n, err, "empty primitive (expected one of: %s)", c->keys);
	c->prim = p;
	first = c->w->nops;
	rc = p->compile(c, n, yc_find(n, p->key), err);
	/* where each op came from (a loop's body ops have theirs already) */
	for (i = first; i < c->w->nops; i++)
		if (c->w->op_where[i] == NULL) {
			c->w->op_where[i] = xasprintf("%s:%d:%d", n->file ? n->file : "?", n->line,
			    n->col);
			c->w->op_prim[i] = p->key;
		}
	if (rc)
		return -1;
	return yc_check_unused(n, c->keys, err);
}

static int
compile_seq(struct wl_cc *c, const struct yc_node *n, struct vs_err *err)
{
	struct workload *w = c->w;
	size_t i, *start;
	int rc = 0;

	if (yc_expect(n, YC_SEQ, "a list of primitives", err))
		return -1;
	start = xcalloc(n->n + 1, sizeof *start);
	for (i = 0; i < n->n && rc == 0; i++) {
		start[i] = w->nops;
		rc = compile_op(c, n->vals[i], err);
	}
	/* Remember the first section that a combining lock could not run. */
	for (i = 0; i < n->n && rc == 0 && w->sect_err == NULL; i++) {
		const struct wl_op *o = &w->ops[start[i]];
		struct vs_err e;

		if (o->op != OP_ACQUIRE || wl_section_ok(w, start[i] + 1, o->arg))
			continue;
		yc_err(n->vals[i], &e, "the section of lock '%s' must be compute "
		    "primitives up to its release (its lock runs sections itself)",
		    w->locks[o->arg].name);
		w->sect_err = xstrdup(e.msg);
	}
	free(start);
	return rc;
}

static int
add_prog(struct wl_cc *c, const char *name, const struct yc_node *seq, struct vs_err *err)
{
	struct workload *w = c->w;
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
	if (compile_seq(c, seq, err))
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

/* A task definition as written (tasks[i]). */
struct task_keys {
	const char *program, *mm;
	int count, nice;
};

/* The keys of a workload (wl_from_yaml) and of its tasks[] entries. */
const struct vs_param wl_params[] = {
	{ "program", "(required unless tasks)", "the per-vCPU form's program: a list of "
	  "primitives (vlocksim list: primitives)", "list", "", VS_LIST },
	{ "threads", NULL, "the per-vCPU form: how many of the VM's vCPUs run it (-1: all)",
	  "int", "", VP_INT, VS_AT(struct workload, threads), -1, 4096, -1, NULL },
	{ "programs", "{}", "the task form: named programs", "map", "", VS_LIST },
	{ "tasks", "(none: the per-vCPU form)", "the task form: the tasks the VM starts with",
	  "list", "", VS_LIST },
	{ "tasks.program", "main", "the program it runs", "string", "",
	  VP_STR, VS_AT(struct task_keys, program), 0, 0, 0, NULL },
	{ "tasks.count", NULL, "tasks of this definition", "int", "",
	  VP_INT, VS_AT(struct task_keys, count), 0, 1 << 20, 1, NULL },
	{ "tasks.nice", NULL, "their nice level (Linux prio_to_weight)", "int", "",
	  VP_INT, VS_AT(struct task_keys, nice), -20, 19, 0, NULL },
	{ "tasks.cpus", "(any)", "their guest affinity: a list of vCPU indices", "list", "",
	  VS_LIST },
	/* tasks naming one mm are threads of one process */
	{ "tasks.mm", "(the program's name)", "their address space", "string", "",
	  VP_STR, VS_AT(struct task_keys, mm), 0, 0, 0, NULL },
	{ "locks", "{}", "its locks by name: settings (vlocksim list: workload locks), or "
	  "{kind: mutex|rwsem} for a sleeping lock", "map", "", VS_LIST },
	{ "queues", "{}", "wait queues of instances, {Q: N}: N queues named Q, each wait and "
	  "wake naming one (by:, as a lock's instances)", "map", "", VS_LIST },
	{ "description", "\"\"", "free text", "string", "", VS_LIST },
	{ NULL, NULL, NULL, NULL, NULL, VS_LIST }
};

/* workloads.W.locks.NAME: the lines its sections touch (lock.h struct
 * lock_lines) and the pool of the slab allocator's node (lock_pool). */
const struct vs_param wl_lock_params[] = {
	{ "cs_lines", NULL, "protected cache lines a critical section touches", "int", "",
	  VP_INT, VS_AT(struct wl_lockdef, lines.cs), 0, 4096, 0, NULL },
	{ "stream_lines", NULL, "more shared lines, copied in one burst (overlapped)", "int", "",
	  VP_INT, VS_AT(struct wl_lockdef, lines.stream), 0, 4096, 0, NULL },
	{ "word_lines", NULL, "section data in the lock word's own line", "int", "",
	  VP_INT, VS_AT(struct wl_lockdef, lines.word), 0, 4096, 0, NULL },
	{ "req_lines", NULL, "the requester's own lines, read one after another", "int", "",
	  VP_INT, VS_AT(struct wl_lockdef, lines.req), 0, 4096, 0, NULL },
	{ "req_stream_lines", NULL, "... and those it then copies in one burst", "int", "",
	  VP_INT, VS_AT(struct wl_lockdef, lines.req_stream), 0, 4096, 0, NULL },
	{ "calls", NULL, "the measured run's sections, for extrapolated totals (0: not given)",
	  "number", "", VP_NUM, VS_AT(struct wl_lockdef, calls), 0, 1e18, 0, NULL },
	{ "pool.batches", NULL, "the node's shared array_cache, in batches (pool: {} turns it "
	  "on)", "int", "", VP_INT, VS_AT(struct wl_lockdef, lines.pool_batches), 1, 1 << 20, 8,
	  NULL },
	{ "pool.fill", NULL, "batches in it at the start (at most batches)", "int", "",
	  VP_INT, VS_AT(struct wl_lockdef, lines.pool_fill), 0, 1 << 20, 0, NULL },
	{ "pool.slow_lines", NULL, "lines a section touches when the pool is empty or full",
	  "int", "", VP_INT, VS_AT(struct wl_lockdef, lines.slow_lines), 0, 4096, 0, NULL },
	{ "pool.slow_word_lines", NULL, "... of them in the lock word's line", "int", "",
	  VP_INT, VS_AT(struct wl_lockdef, lines.slow_word), 0, 4096, 0, NULL },
	{ "pool.slow", NULL, "the slow path's own time", "time", "ns",
	  VP_TIME, VS_AT(struct wl_lockdef, lines.slow_ns), 0, 1e9, 0, NULL },
	{ "instances", NULL, "a lock per object (a per-CPU lock, a lock per page-table page, "
	  "a hash table's bucket locks): this many, each acquire naming one (by:)", "int", "",
	  VP_INT, VS_AT(struct wl_lockdef, instances), 1, WL_MAX_INSTANCES, 1, NULL },
	{ "kind", "(a spinlock)", "a sleeping lock instead: mutex or rwsem (then no other key "
	  "but instances)",
	  "enum mutex|rwsem", "", VS_LIST },
	{ NULL, NULL, NULL, NULL, NULL, VS_LIST }
};

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
		struct task_keys k = { NULL, NULL, 0, 0 };

		w->ntasks++;
		if (yc_expect(d, YC_MAP, "a task definition {program, count, nice, cpus}", err) ||
		    yc_params_read(d, wl_params, "tasks", 0, &k, err))
			return -1;
		if ((td->prog = prog_index(w, k.program)) < 0)
			return unknown_prog(w, yc_find(d, "program") ? yc_find(d, "program") : d,
			    k.program, err);
		td->count = k.count;
		td->nice = k.nice;
		td->mm = name_index(&w->mms, &w->nmms, &w->capmms, k.mm ? k.mm : k.program);
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
		if (yc_params_check(d, wl_params, "tasks", err))
			return -1;
	}
	return 0;
}

/* A lock's settings: the lines of its sections and its pool (lock.h), the
 * slab node's shared array_cache and what a section does when it is empty or
 * full. */
static int
lock_from_yaml(const struct yc_node *ld, double hz, struct wl_lockdef *l, struct vs_err *err)
{
	const struct yc_node *p = yc_find(ld, "pool");

	if (yc_params_read(ld, wl_lock_params, NULL, hz, l, err))
		return -1;
	if (p == NULL)
		return yc_params_check(ld, wl_lock_params, NULL, err);
	if (yc_expect(p, YC_MAP, "a mapping of pool settings", err) ||
	    yc_params_read(p, wl_lock_params, "pool", hz, l, err))
		return -1;
	if (l->lines.pool_fill > l->lines.pool_batches)
		return yc_err(yc_find(p, "fill"), err, "pool fill %d is more than its %d batches",
		    l->lines.pool_fill, l->lines.pool_batches);
	return yc_params_check(p, wl_lock_params, "pool", err) ||
	    yc_params_check(ld, wl_lock_params, NULL, err) ? -1 : 0;
}

/* One op of a class with n instances (what: "lock", "sleeping lock", "wait
 * queue"; usage: how to name one; decl: where n is declared): it names one
 * that exists, or the class has one. */
static int
instance_ok(const struct workload *w, const struct wl_op *o, const char *what,
    const char *name, int n, const char *usage, const char *decl, struct vs_err *err)
{
	if (o->by == WL_BY_NONE && n > 1)
		return yc_err(o->src, err, "%s '%s' has %d instances: name the one to take "
		    "(%s: %s, by: vcpu|task|mm|random|INDEX})", what, name, n, usage, name);
	if (o->by == WL_BY_INDEX && o->jump >= n)
		return yc_err(o->src, err, "%s '%s' has no instance %d (it has %d: 0 to %d: "
		    "workloads.%s.%s.%s%s)", what, name, o->jump, n, n - 1, w->name, decl, name,
		    strcmp(decl, "locks") == 0 ? ".instances" : "");
	if (o->by == WL_BY_LOOP && o->jump + w->ops[o->loop].n > n)
		return yc_err(o->src, err, "%s '%s' has no instance %lld (it has %d: 0 to %d; "
		    "{loop: %d} names %d to %lld)", what, name,
		    (long long)(o->jump + w->ops[o->loop].n - 1), n, n - 1, o->jump, o->jump,
		    (long long)(o->jump + w->ops[o->loop].n - 1));
	return 0;
}

/*
 * Each acquire, lock, wait and wake of a class with instances names one that
 * exists (at load, with the op's or its `by:`'s place), and a barrier's queue
 * has one (queues: its entry qs); then the nodes are let go.
 */
static int
instances_ok(struct workload *w, const struct yc_node *qs, struct vs_err *err)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < w->nops && rc == 0; i++) {
		struct wl_op *o = &w->ops[i];

		if (o->op == OP_ACQUIRE) {
			rc = instance_ok(w, o, "lock", w->locks[o->arg].name,
			    w->locks[o->arg].instances, "acquire: {name", "locks", err);
			/* a class of one takes instance 0 whatever by says (interp.c
			 * instance_of: no draw): by none, op_acquire's one test */
			if (w->locks[o->arg].instances == 1)
				o->by = WL_BY_NONE;
		} else if (o->op == OP_SLOCK && o->arg >= 0)
			rc = instance_ok(w, o, "sleeping lock", w->slocks[o->arg].name,
			    w->slocks[o->arg].instances, "lock: {name", "locks", err);
		else if (o->op == OP_WAIT || o->op == OP_WAKE)
			rc = instance_ok(w, o, "wait queue", w->queues[o->arg],
			    w->queue_inst[o->arg], o->op == OP_WAIT ? "wait: {on" : "wake: {on",
			    "queues", err);
		else if (o->op == OP_BARRIER && w->queue_inst[o->arg] > 1)
			rc = yc_err(yc_find(qs, w->queues[o->arg]), err, "'%s' is a barrier: it has "
			    "one queue, not instances", w->queues[o->arg]);
	}
	for (i = 0; i < w->nops; i++)
		w->ops[i].src = NULL;
	return rc;
}

/* `queues: {Q: N}`: wait queue Q is N queues (w->queue_inst, 1 unless said). */
static int
queues_from_yaml(struct workload *w, const struct yc_node *qs, struct vs_err *err)
{
	size_t i;

	if (qs != NULL && yc_expect(qs, YC_MAP, "a mapping of wait queue names to instances",
	    err))
		return -1;
	for (i = 0; qs != NULL && i < qs->n; i++) {
		qs->used[i] = 1;
		name_index(&w->queues, &w->nqueues, &w->capqueues, qs->keys[i]);
	}
	w->queue_inst = xcalloc(w->nqueues + 1, sizeof *w->queue_inst);
	for (i = 0; i < w->nqueues; i++)
		w->queue_inst[i] = 1;
	for (i = 0; qs != NULL && i < qs->n; i++) {
		int64_t k;

		if (yc_node_int(qs->vals[i], 1, WL_MAX_INSTANCES, &k, err))
			return -1;
		w->queue_inst[name_index(&w->queues, &w->nqueues, &w->capqueues,
		    qs->keys[i])] = (int)k;
	}
	return 0;
}

struct workload *
wl_from_yaml(const char *name, const struct yc_node *n, double hz, struct vs_err *err)
{
	struct workload *w = xcalloc(1, sizeof *w);
	const struct yc_node *prog, *progs, *tasks, *locks;
	struct wl_cc c;
	size_t i;

	w->name = xstrdup(name);
	cc_init(&c, w, hz);
	if (yc_expect(n, YC_MAP, "a workload (a mapping with a 'program' or 'tasks')", err))
		goto fail;
	if (yc_params_read(n, wl_params, NULL, hz, w, err))
		goto fail;
	prog = yc_find(n, "program");
	progs = yc_find(n, "programs");
	tasks = yc_find(n, "tasks");
	if (prog == NULL && tasks == NULL) {
		yc_err(n, err, "workload '%s' has no 'program' (or 'programs' and 'tasks')", name);
		goto fail;
	}
	if (prog != NULL && add_prog(&c, "main", prog, err))
		goto fail;
	if (progs != NULL) {
		if (yc_expect(progs, YC_MAP, "a mapping of program names to primitives", err))
			goto fail;
		for (i = 0; i < progs->n; i++) {
			progs->used[i] = 1;
			if (add_prog(&c, progs->keys[i], progs->vals[i], err))
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
			int li;

			locks->used[i] = 1;
			if (ld->kind == YC_MAP && yc_find(ld, "kind") != NULL) {
				/* a sleeping lock: `{kind: mutex}` or `{kind: rwsem}` */
				/* instances: the same row as a spinlock's, and no other */
				const struct vs_param inst[2] = { *vs_param_find(wl_lock_params,
				    "instances"), { NULL, NULL, NULL, NULL, NULL, VS_LIST } };
				struct wl_lockdef d = lock_defaults();
				const char *kind;
				int si;

				if (yc_get_str(ld, "kind", NULL, &kind, err) ||
				    yc_params_read(ld, inst, NULL, hz, &d, err) ||
				    yc_check_unused(ld, "kind, instances", err))
					goto fail;
				si = slock_index(w, locks->keys[i], yc_find(ld, "kind"));
				w->slocks[si].instances = d.instances;
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
			    lock_from_yaml(ld, hz, &w->locks[li], err))
				goto fail;
		}
	}
	if (queues_from_yaml(w, yc_find(n, "queues"), err) ||
	    yc_params_check(n, wl_params, NULL, err) || instances_ok(w, yc_find(n, "queues"), err) ||
	    wl_bound(w, err))
		goto fail;
	next_plan(w);
	free(w->hold);
	w->hold = NULL;
	w->caphold = 0;
	return w;
fail:
	wl_free(w);
	return NULL;
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

