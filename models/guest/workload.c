#include "guest/workload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist.h"
#include "engine.h"
#include "guest/guest.h"
#include "guest/lock.h"
#include "hv/hv.h"
#include "rng.h"
#include "yconf.h"

enum wl_opcode { OP_COMPUTE, OP_ACQUIRE, OP_RELEASE, OP_COUNT, OP_LOOP, OP_ENDLOOP, OP_IO,
    OP_SLEEP, OP_MEMORY, OP_END };

struct wl_op {
	enum wl_opcode op;
	struct dist *d;		/* compute, sleep: ns; memory: bytes */
	int arg;		/* lock or counter index; loop depth */
	int64_t n;		/* loop: iterations, -1 forever */
	int jump;		/* loop: index after its ENDLOOP; endloop: body start */
};

struct wl_lockdef {
	char *name;
	int cs_lines;
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
};

struct gvm {
	const struct workload *wl;
	struct glock **locks;
	uint64_t *counts;
	int threads;
	int live;		/* threads of this VM still running */
	sim_time_t done_at;	/* when its last thread ended; -1 before */
	struct grun *run;
};

struct wl_thread {
	struct gvm *gvm;
	struct glock *acq;	/* lock of the last acquire entered */
	int pc;
	sim_time_t *path_since;	/* per lock: when its acquire was entered */
	int closing;		/* lock whose release is done; -1 none */
	int64_t *left;		/* per loop depth */
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
	w->locks[w->nlocks].cs_lines = 0;
	return (int)w->nlocks++;
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
	    op == OP_SLEEP || op == OP_MEMORY;
}

static const char *const op_keys = "compute, acquire, release, count, io, sleep, "
    "memory, loop (with do)";

/* `io: pio-user` - the exits a guest device access costs (guest.h: enum guest_io). */
static const char *const io_names[] = { "pio-kernel", "pio-user", "mmio-kernel",
    "mmio-user", "hypercall", NULL };

static int compile_seq(struct workload *, const struct yc_node *, double, int,
    struct vs_err *);

static int
name_arg(const struct yc_node *v, const char *what, const char **out, struct vs_err *err)
{
	if (v->kind != YC_SCALAR || v->text[0] == '\0')
		return yc_err(v, err, "'%s' takes a name", what);
	*out = v->text;
	return 0;
}

static int
compile_op(struct workload *w, const struct yc_node *n, double hz, int depth,
    struct vs_err *err)
{
	const struct yc_node *v;
	const char *s = NULL;

	if (yc_expect(n, YC_MAP, "a primitive (one of: compute, acquire, release, count, loop)",
	    err))
		return -1;
	if ((v = yc_find(n, "compute")) != NULL) {
		struct wl_op *o = emit(w, OP_COMPUTE);

		if ((o->d = dist_from_yaml(v, UNIT_TIME, hz, err)) == NULL)
			return -1;
	} else if ((v = yc_find(n, "acquire")) != NULL) {
		if (name_arg(v, "acquire", &s, err))
			return -1;
		emit(w, OP_ACQUIRE)->arg = lock_index(w, s);
	} else if ((v = yc_find(n, "release")) != NULL) {
		if (name_arg(v, "release", &s, err))
			return -1;
		emit(w, OP_RELEASE)->arg = lock_index(w, s);
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
		struct wl_op *o = emit(w, OP_SLEEP);

		if ((o->d = dist_from_yaml(v, UNIT_TIME, hz, err)) == NULL)
			return -1;
	} else if ((v = yc_find(n, "memory")) != NULL) {
		/* `memory: 1MiB` - bytes streamed at the socket's shared bandwidth */
		struct wl_op *o = emit(w, OP_MEMORY);

		if ((o->d = dist_from_yaml(v, UNIT_SIZE, hz, err)) == NULL)
			return -1;
	} else if ((v = yc_find(n, "count")) != NULL) {
		if (name_arg(v, "count", &s, err))
			return -1;
		emit(w, OP_COUNT)->arg = counter_index(w, s);
	} else if ((v = yc_find(n, "loop")) != NULL) {
		const struct yc_node *body = yc_find(n, "do");
		size_t at = w->nops, i;
		int64_t iters = -1, timed = 0;
		struct wl_op *o;

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
		if (compile_seq(w, body, hz, depth + 1, err))
			return -1;
		for (i = at + 1; i < w->nops; i++)
			timed |= is_timed(w->ops[i].op);
		if (!timed)
			return yc_err(body, err, "this loop body takes no time "
			    "(it needs a compute, memory, acquire or release)");
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

struct workload *
wl_from_yaml(const char *name, const struct yc_node *n, double hz, struct vs_err *err)
{
	struct workload *w = xcalloc(1, sizeof *w);
	const struct yc_node *prog, *locks;
	int64_t th;
	size_t i;

	w->name = xstrdup(name);
	if (yc_expect(n, YC_MAP, "a workload (a mapping with a 'program')", err))
		goto fail;
	if (yc_get_int(n, "threads", -1, -1, 4096, &th, err))
		goto fail;
	w->threads = (int)th;
	if ((prog = yc_find(n, "program")) == NULL) {
		yc_err(n, err, "workload '%s' has no 'program'", name);
		goto fail;
	}
	if (compile_seq(w, prog, hz, 0, err))
		goto fail;
	emit(w, OP_END);
	if ((locks = yc_find(n, "locks")) != NULL) {
		if (yc_expect(locks, YC_MAP, "a mapping of lock names to settings", err))
			goto fail;
		for (i = 0; i < locks->n; i++) {
			const struct yc_node *ld = locks->vals[i];
			int64_t lines;
			double calls;
			int li;

			locks->used[i] = 1;
			li = lock_index(w, locks->keys[i]);
			if (yc_expect(ld, YC_MAP, "a mapping of lock settings", err) ||
			    yc_get_int(ld, "cs_lines", 0, 0, 4096, &lines, err) ||
			    yc_get_num(ld, "calls", 0, 0, 1e18, &calls, err) ||
			    yc_check_unused(ld, "cs_lines, calls", err))
				goto fail;
			w->locks[li].cs_lines = (int)lines;
			w->locks[li].calls = calls;
		}
	}
	(void)yc_find(n, "description");
	if (yc_check_unused(n, "threads, program, locks, description", err))
		goto fail;
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
	for (i = 0; i < w->nops; i++)
		dist_free(w->ops[i].d);
	for (i = 0; i < w->nlocks; i++)
		free(w->locks[i].name);
	for (i = 0; i < w->ncounters; i++)
		free(w->counters[i]);
	free(w->sect_err);
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

void
wl_vm_setup(struct vm *vm, const struct workload *w, int threads,
    const struct lock_ops *ops, const void *lock_cfg, struct grun *run)
{
	struct gvm *g = xcalloc(1, sizeof *g);
	size_t i;
	int t;

	g->wl = w;
	g->run = run;
	g->threads = threads;
	g->done_at = -1;
	g->locks = xcalloc(w->nlocks, sizeof *g->locks);
	for (i = 0; i < w->nlocks; i++)
		g->locks[i] = lock_new(ops, lock_cfg, w->locks[i].name, vm,
		    w->locks[i].cs_lines);
	g->counts = xcalloc(w->ncounters, sizeof *g->counts);
	vm->guest = g;
	for (t = 0; t < threads; t++) {
		struct wl_thread *th = xcalloc(1, sizeof *th);

		th->gvm = g;
		th->left = xcalloc((size_t)w->depth + 1, sizeof *th->left);
		th->path_since = xcalloc(w->nlocks + 1, sizeof *th->path_since);
		th->closing = -1;
		guest_set_wl(vm->vcpus[t], th);
	}
}

void
wl_vm_teardown(struct vm *vm)
{
	struct gvm *g = vm->guest;
	size_t i;
	int t;

	if (g == NULL)
		return;
	for (t = 0; t < g->threads; t++) {
		struct wl_thread *th = guest_wl(vm->vcpus[t]);

		free(th->left);
		free(th->path_since);
		free(th);
		guest_set_wl(vm->vcpus[t], NULL);
	}
	for (i = 0; i < g->wl->nlocks; i++)
		lock_free(g->locks[i]);
	free(g->locks);
	free(g->counts);
	free(g);
	vm->guest = NULL;
}

/* Threads start when their vCPU first runs; vCPUs without a thread idle (HLT). */
void
wl_vm_start(struct vm *vm)
{
	struct gvm *g = vm->guest;
	int i;

	/* `until: done` waits for threads that end; a `loop: forever` one never does. */
	if (!wl_endless(g->wl))
		g->run->live += g->threads;
	g->live = g->threads;
	for (i = 0; i < g->threads; i++)
		guest_begin(vm->vcpus[i], wl_continue);
	for (i = g->threads; i < vm->nvcpus; i++)
		guest_finish(vm->vcpus[i]);
}

uint64_t wl_vm_count(const struct vm *vm, int c) { return ((struct gvm *)vm->guest)->counts[c]; }
struct glock *wl_vm_lock(const struct vm *vm, int i) { return ((struct gvm *)vm->guest)->locks[i]; }
int wl_vm_threads(const struct vm *vm) { return ((struct gvm *)vm->guest)->threads; }
sim_time_t wl_vm_done_at(const struct vm *vm) { return ((struct gvm *)vm->guest)->done_at; }

static void
thread_done(struct vcpu *v, struct wl_thread *th)
{
	struct grun *run = th->gvm->run;
	struct sim *s = v->vm->hv->sim;

	guest_finish(v);
	if (--th->gvm->live == 0)
		th->gvm->done_at = s->now;
	run->live--;
	run->last_done = s->now;
	if (run->live == 0 && run->stop_when_done)
		sim_stop(s);
}

void
wl_continue(struct vcpu *v)
{
	struct wl_thread *th = guest_wl(v);
	struct gvm *g = th->gvm;
	const struct wl_op *o;

	if (th->closing >= 0) {
		/* Past a release: the call's critical path (acquire to here) ends. */
		g->locks[th->closing]->st.path_ns +=
		    (double)(v->vm->hv->sim->now - th->path_since[th->closing]);
		th->closing = -1;
	}
	for (;;) {
		o = &g->wl->ops[th->pc];
		switch (o->op) {
		case OP_COMPUTE:
			th->pc++;
			guest_work(v, dist_sample(o->d, v->rng), wl_continue);
			return;
		case OP_ACQUIRE:
			th->pc++;
			th->acq = g->locks[o->arg];
			th->path_since[o->arg] = v->vm->hv->sim->now;
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
			guest_memory(v, dist_sample(o->d, v->rng), wl_continue);
			return;
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
			if (g->wl->ops[o->jump - 1].n < 0 || --th->left[o->arg] > 0)
				th->pc = o->jump;
			else
				th->pc++;
			break;
		case OP_END:
			thread_done(v, th);
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

struct glock *
wl_acquiring(struct vcpu *v)
{
	struct wl_thread *th = guest_wl(v);

	return th != NULL ? th->acq : NULL;
}
