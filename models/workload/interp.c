/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * interp.c - the workload interpreter: each task's thread state (pc, loop
 * counters, lock paths) and wl_continue, which runs a task's ops until one
 * takes simulated time and hands the task to the guest with itself as the
 * continuation.  wl_vm_setup describes the VM to models/guest/gvm.c, which
 * builds it, and gives each of its tasks a thread at its program's start.
 */
#include "workload/wl_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist.h"
#include "engine.h"
#include "ffsnap.h"
#include "guest/guest.h"
#include "guest/gvm.h"
#include "guest/ipi.h"
#include "guest/kernel.h"
#include "guest/slock.h"
#include "guest/vdisk.h"
#include "hv/hv.h"
#include "rng.h"
#include "stats.h"

/* A workload's run on one VM (gvm->prog). */
struct wl_vm {
	const struct workload *wl;
	struct gvm *g;
	uint64_t *counts;
	int threads;
	int live;		/* tasks of this VM still running */
	int counted;		/* its tasks count toward `until: done` */
	sim_time_t done_at;	/* when its last task ended; -1 before */
	struct grun *run;
	int64_t *arrived;	/* per barrier queue: parties arrived */
	sim_time_t *mark_at;	/* per mark: when it was last started; -1 none */
	struct rep *mark_rep;	/* per mark: the intervals' statistics */
	/* exited tasks' threads, for the next spawns' (thread_new clears one):
	 * sysbench's 10,000 requests are a process each */
	struct wl_thread **spare;
	size_t nspare, capspare;
};

/* One block, line-aligned: the struct, then left[], then path_since[], so a
 * step of the program touches one or two lines of its own, not three blocks. */
struct wl_thread {
	struct wl_vm *wv;
	struct gvm *g;		/* wv->g, one load nearer */
	/* wv->run, wv->wl->ops and the clock, kept here: a step reads them, and
	 * with hundreds of VMs their wl_vm is one more line out of cache */
	struct grun *run;
	uint64_t *counts;	/* wv->counts, one load nearer (a lock loop's step counts) */
	const struct wl_op *ops;
	const struct workload *wl;
	const struct sim *sim;
	int pc;
	sim_time_t busy_until;	/* busy_wait: its deadline on the clock */
	int64_t *left;		/* per loop depth */
	sim_time_t *path_since;	/* per lock: when its acquire was entered */
	struct glock **lock;	/* per lock class: the instance inst[] names, once
				 * looked up (gvm_lock reads three arrays of the VM) */
	/* the compute a lock call's wl_next_mid starts (wl_lock_then): its
	 * op's next_of, set where the call begins (lock_call_next) */
	const struct wl_next *next;
	int *inst;		/* per lock class, then per sleeping lock class: the
				 * instance its acquire or lock took */
	/* lock whose release is done; -1 none (not beside pc: a release's
	 * two stores stay two, gcc's SLP makes them four) */
	int closing;
};

/* A thread's bytes: the struct and its arrays after it (thread_new) */
static size_t
thread_size(const struct wl_vm *wv)
{
	const struct wl_thread *th = NULL;
	size_t nleft = (size_t)wv->wl->depth + 1, npath = wv->wl->nlocks + 1;
	size_t ninst = npath + wv->wl->nslocks;

	return sizeof *th + nleft * sizeof *th->left + npath * sizeof *th->path_since +
	    npath * sizeof *th->lock + ninst * sizeof *th->inst;
}

static struct wl_thread *
thread_new(struct wl_vm *wv, struct gvm *g, int pc)
{
	size_t nleft = (size_t)wv->wl->depth + 1, npath = wv->wl->nlocks + 1;
	struct wl_thread *th;
	size_t size = thread_size(wv);

	th = wv->nspare > 0 ? memset(wv->spare[--wv->nspare], 0, size) : xcalloc_line(1, size);

	th->wv = wv;
	th->g = g;
	th->run = wv->run;
	th->counts = wv->counts;
	th->ops = wv->wl->ops;
	th->wl = wv->wl;
	th->sim = g->vm->hv->sim;
	th->pc = pc;
	th->left = (int64_t *)(th + 1);
	th->path_since = (sim_time_t *)(th->left + nleft);
	th->lock = (struct glock **)(th->path_since + npath);
	th->inst = (int *)(th->lock + npath);
	th->closing = -1;
	return th;
}

static void
thread_free(struct wl_thread *th)
{
	free(th);
}

static void task_exited(struct task *);

/* The thread that ran primitives last (wl_grun_where), in the one run a
 * process simulates at a time (guest.c's fold_run assumes the same).  A
 * static: a step's store loads no pointer (th->run), and gcc, which lets a
 * store through a pointer alias any field, loads no vCPU state again after
 * it.  NULL: none, or its task ended or its VM went. */
static struct wl_thread *wl_last;

static void wl_continue_after(struct vcpu *, double);
static void wl_lock_then(struct vcpu *, double);
static void wl_ffs(struct ffs *, struct vcpu *);
/* The hooks its locks call up through (guest/lock.h); fast_forward: false
 * keeps a lock call's costs and the next compute apart (no then: lock.c
 * runs the costs with guest_work, wl_continue after them). */
static const struct lock_client wl_lock_client = { wl_continue, wl_continue_after,
    wl_take_section, wl_lock_then, wl_ffs };
static const struct lock_client wl_lock_client_slow = { wl_continue, wl_continue_after,
    wl_take_section, NULL, wl_ffs };

/* The task definitions of w (the per-vCPU form: thread t pinned to vCPU t);
 * pins holds the per-vCPU form's cpus. */
static struct gvm_taskdef *
taskdefs(const struct workload *w, int threads, int64_t *pins, int *n)
{
	struct gvm_taskdef *td;
	size_t i;
	int t;

	if (w->tasks == NULL) {
		td = xcalloc((size_t)threads + 1, sizeof *td);
		for (t = 0; t < threads; t++) {
			pins[t] = t;
			td[t] = (struct gvm_taskdef){ .count = 1, .cpus = &pins[t], .ncpus = 1 };
		}
		*n = threads;
		return td;
	}
	td = xcalloc(w->ntasks + 1, sizeof *td);
	for (i = 0; i < w->ntasks; i++)
		td[i] = (struct gvm_taskdef){ .count = w->tasks[i].count,
		    .nice = w->tasks[i].nice, .mm = w->tasks[i].mm, .cpus = w->tasks[i].cpus,
		    .ncpus = w->tasks[i].ncpus };
	*n = (int)w->ntasks;
	return td;
}

/* Describe the VM to gvm_new and have it built. */
static struct gvm *
build_guest(struct vm *vm, const struct workload *w, int threads,
    const struct lock_ops *ops, const void *lock_cfg, const struct gk_config *kcfg)
{
	struct gvm_config c = { .kernel = *kcfg, .lock_ops = ops, .lock_cfg = lock_cfg,
	    .client = vm->hv->fast_forward ? &wl_lock_client : &wl_lock_client_slow,
	    .nlocks = (int)w->nlocks, .nslocks = (int)w->nslocks, .nqueues = (int)w->nqueues };
	struct gvm_lockdef *ld = xcalloc(w->nlocks + 1, sizeof *ld);
	struct gvm_slockdef *sd = xcalloc(w->nslocks + 1, sizeof *sd);
	const char **mm = xcalloc((size_t)wl_nmms(w), sizeof *mm);
	int64_t *pins = xcalloc((size_t)threads + 1, sizeof *pins);
	struct gvm_taskdef *td = taskdefs(w, threads, pins, &c.ntaskdefs);
	struct gvm *g;
	size_t i;

	for (i = 0; i < w->nlocks; i++)
		ld[i] = (struct gvm_lockdef){ w->locks[i].name, w->locks[i].lines,
		    w->locks[i].instances };
	for (i = 0; i < w->nslocks; i++)
		sd[i] = (struct gvm_slockdef){ w->slocks[i].name, w->slocks[i].ops,
		    w->slocks[i].instances };
	for (i = 0; i < (size_t)wl_nmms(w); i++)
		mm[i] = wl_mm_name(w, (int)i);
	c.locks = ld;
	c.slocks = sd;
	c.queue_inst = w->queue_inst;
	c.mm_names = mm;
	c.tasks = td;
	c.kernel.nmm = wl_nmms(w);
	c.kernel.can_spawn = w->spawns;
	c.kernel.task_exit = task_exited;
	c.kernel.task_free = (void (*)(void *))thread_free;
	g = gvm_new(vm, &c);
	free(ld);
	free(sd);
	free(mm);
	free(pins);
	free(td);
	return g;
}

void
wl_vm_setup(struct vm *vm, const struct workload *w, int threads,
    const struct lock_ops *ops, const void *lock_cfg, const struct gk_config *kcfg,
    struct grun *run)
{
	struct wl_vm *wv = xcalloc(1, sizeof *wv);
	struct gvm *g;
	size_t i;
	int t = 0;

	wv->wl = w;
	wv->run = run;
	wv->done_at = -1;
	/* (and a spare: wl_next_mid counts a walk that passes none there) */
	wv->counts = xcalloc(w->ncounters + 1, sizeof *wv->counts);
	wv->arrived = xcalloc(w->nqueues + 1, sizeof *wv->arrived);
	wv->mark_at = xcalloc(w->nmarks + 1, sizeof *wv->mark_at);
	wv->mark_rep = xcalloc(w->nmarks + 1, sizeof *wv->mark_rep);
	for (i = 0; i < w->nmarks; i++) {
		wv->mark_at[i] = -1;
		rep_init(&wv->mark_rep[i]);
	}
	wv->g = g = build_guest(vm, w, threads, ops, lock_cfg, kcfg);
	g->prog = wv;
	/* each task its program: the per-vCPU form's all run main */
	if (w->tasks == NULL)
		for (; t < g->ntasks; t++)
			g->tasks[t]->th = thread_new(wv, g, 0);
	for (i = 0; i < w->ntasks; i++) {
		int j;

		for (j = 0; j < w->tasks[i].count; j++, t++)
			g->tasks[t]->th = thread_new(wv, g, w->progs[w->tasks[i].prog].start);
	}
	wv->threads = g->ntasks;
}

static struct wl_vm *
wl_vm_of(const struct vm *vm)
{
	return gvm_of(vm)->prog;
}

void
wl_vm_teardown(struct vm *vm)
{
	struct gvm *g = gvm_of(vm);
	struct wl_vm *wv;

	if (g == NULL)
		return;
	wv = g->prog;
	if (wl_last != NULL && wl_last->wv == wv)
		wl_last = NULL;
	gvm_free(g);		/* frees the threads of tasks still alive (task_free) */
	while (wv->nspare > 0)
		thread_free(wv->spare[--wv->nspare]);
	free(wv->spare);
	free(wv->counts);
	free(wv->arrived);
	free(wv->mark_at);
	free(wv->mark_rep);
	free(wv);
}

/* Tasks start when their vCPU first runs; vCPUs without a task idle (HLT). */
void
wl_vm_start(struct vm *vm)
{
	struct wl_vm *wv = wl_vm_of(vm);

	/* `until: done` waits for tasks that end; a `loop: forever` one never does. */
	wv->counted = !wl_endless(wv->wl);
	if (wv->counted)
		wv->run->live += wv->threads;
	wv->live = wv->threads;
	gk_start(wv->g->k, wl_continue);
}

void
wl_vm_finish(struct vm *vm)
{
	gk_finish(gvm_of(vm)->k);
}

/* An interval of a mark that began in the warm-up counts when it ends. */
void
wl_vm_stats_reset(struct vm *vm)
{
	struct wl_vm *wv = wl_vm_of(vm);
	size_t i;

	memset(wv->counts, 0, wv->wl->ncounters * sizeof *wv->counts);
	for (i = 0; i < wv->wl->nmarks; i++)
		rep_init(&wv->mark_rep[i]);
	gvm_stats_reset(wv->g);
}

uint64_t wl_vm_count(const struct vm *vm, int c) { return wl_vm_of(vm)->counts[c]; }
int wl_vm_threads(const struct vm *vm) { return wl_vm_of(vm)->threads; }
sim_time_t wl_vm_done_at(const struct vm *vm) { return wl_vm_of(vm)->done_at; }
const struct rep *wl_vm_mark(const struct vm *vm, int i) { return &wl_vm_of(vm)->mark_rep[i]; }

/* The kernel's hook: task t has exited. */
static void
task_exited(struct task *t)
{
	struct wl_thread *th = t->th;
	struct wl_vm *wv = th->wv;
	struct sim *s = th->g->vm->hv->sim;

	if (wl_last == th)
		wl_last = NULL;
	VS_GROW(wv->spare, wv->capspare, wv->nspare);
	wv->spare[wv->nspare++] = th;
	if (--wv->live == 0)
		wv->done_at = s->now;
	if (!wv->counted)
		return;
	wv->run->live--;
	wv->run->last_done = s->now;
	if (wv->run->live == 0 && wv->run->stop_when_done)
		sim_stop(s);
}

/* Past a release, at: the call's critical path (acquire to here) ends. */
static inline void
close_path(struct vcpu *v, struct wl_thread *th, sim_time_t at)
{
	th->lock[th->closing]->st.path_ns += (double)(at - th->path_since[th->closing]);
	th->closing = -1;
	gk_preempt_enable(v);
}

/* (the check inline: most steps have no path to close) */
static inline void
wl_close_path(struct vcpu *v, struct wl_thread *th)
{
	if (th->closing >= 0)
		close_path(v, th, th->sim->now);
}

/* The lock call returned; ns of the caller's own work follow, off its path. */
static void
wl_continue_after(struct vcpu *v, double ns)
{
	wl_close_path(v, guest_wl(v));
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
static __attribute__((noinline)) void
loop_ff(struct vcpu *v, struct wl_thread *th, const struct wl_op *end)
{
	struct wl_vm *wv = th->wv;
	const struct wl_op *ops = wv->wl->ops, *o;
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
			wv->counts[o->arg] += (uint64_t)k;
	if (!forever && (th->left[end->arg] = left - k) == 0)
		th->pc = (int)(end - ops) + 1;	/* the loop is done, as its ENDLOOP would say */
}

/*
 * A forever loop of computes only (compile.c body_endless), at the end of an
 * iteration, on a vCPU whose only task it is with nothing due (gk_alone):
 * every later iteration's end would find nothing to do (its preemption point
 * needs another task here), so the loop is one compute without an end
 * (GUEST_FOREVER: no event), marked as op_compute's gk_compute marks it.
 * fast_forward: false runs every iteration.
 */
static int
loop_endless(struct vcpu *v)
{
	if (!v->vm->hv->fast_forward || !gk_alone(v))
		return 0;
	gk_compute_mark(v);
	guest_work(v, GUEST_FOREVER, wl_continue);
	return 1;
}

/*
 * The watchdog inside one event: primitives that take no time (count, mark,
 * an ipi with no one to send to, a wake of no one) in a row.  A program's
 * straight run is at most WL_MAX_COST of them; this many means a loop whose
 * body took no time at all, again and again (the compiler refuses the loops
 * that can never take time; these take none only as the run turned out).
 */
#define WL_STALL_OPS ((unsigned long)1 << 24)

/* The first primitive at or after pc, the loops followed, that takes time
 * when it can: the one that did not. */
static int
untimed_at(const struct workload *w, int pc)
{
	unsigned long k;

	for (k = 0; k < WL_MAX_COST * 4; k++) {
		switch (w->ops[pc].op) {
		case OP_COUNT:
		case OP_LOOP:
		case OP_MARK_START:
		case OP_MARK_STOP:
		case OP_WAKE:
		case OP_SPAWN:
			pc++;
			break;
		case OP_ENDLOOP:
			pc = w->ops[pc].jump;
			break;
		default:
			return pc;
		}
	}
	return pc;
}

/* "VM V, program 'P', 'PRIM' at FILE:LINE:COL" of th at op pc. */
static void
thread_where(const struct wl_thread *th, int pc, char *buf, size_t n)
{
	const struct workload *w = th->wv->wl;
	const char *prog = "main";
	size_t i;

	for (i = 0; i < w->nprogs; i++)
		if (w->progs[i].start <= pc)
			prog = w->progs[i].name;
	if (w->op_where[pc] != NULL)
		snprintf(buf, n, "VM %s, program '%s', '%s' at %s", th->g->vm->name, prog,
		    w->op_prim[pc], w->op_where[pc]);
	else
		snprintf(buf, n, "VM %s, program '%s', at its end", th->g->vm->name, prog);
}

void
wl_grun_where(const struct grun *run, char *buf, size_t n)
{
	const struct wl_thread *th = wl_last != NULL && wl_last->run == run ? wl_last : NULL;

	if (th == NULL)
		snprintf(buf, n, "no task ran");
	else	/* the primitive it last began */
		thread_where(th, th->pc > 0 ? th->pc - 1 : 0, buf, n);
}

/* busy_wait's continuation: on at its deadline, or back into the loop if
 * the task was preempted and resumes before it (gk_busy_until). */
static void
busy_resume(struct vcpu *v)
{
	struct wl_thread *th = guest_wl(v);

	if (v->vm->hv->sim->now >= th->busy_until)
		wl_continue(v);
	else
		gk_busy_until(v, th->busy_until, busy_resume);
}

/* The instance of a class of n that op o takes (wl_priv.h enum wl_by): a
 * per-CPU lock is the running vCPU's (Linux this_rq()), an object's lock is
 * hashed by the object's index as hash_32()/hash_ptr() index a lock array
 * (modulo here: the indices are small and dense), and `random` draws one
 * from the vCPU's stream (an address the program does not name: a futex, a
 * page-table page). */
static __attribute__((noinline)) int
instance_pick(struct vcpu *v, const struct wl_thread *th, int n, const struct wl_op *o)
{
	switch (o->by) {
	case WL_BY_VCPU:
		return v->idx % n;
	case WL_BY_TASK:
		return gk_current(v)->id % n;
	case WL_BY_MM:
		return gk_current(v)->mm % n;
	case WL_BY_RANDOM:
		return (int)rng_below(v->rng, (uint64_t)n);
	case WL_BY_LOOP: {	/* iteration i of its loop, whose left[] counts down from n */
		const struct wl_op *l = &th->ops[o->loop];

		return (int)((o->jump + l->n - th->left[l->arg]) % n);
	}
	default:
		return o->jump;
	}
}

/* (the common case inline: every acquire asks) */
static inline int
instance_of(struct vcpu *v, const struct wl_thread *th, int n, const struct wl_op *o)
{
	if (n == 1 || o->by == WL_BY_NONE)	/* no draw: a class of one is the plain lock */
		return 0;
	return instance_pick(v, th, n, o);
}

/* The watchdog's report (out of line: wl_continue's frame stays small). */
static __attribute__((noinline, cold)) void
stalled(struct vcpu *v, const struct wl_thread *th)
{
	char where[200];

	thread_where(th, untimed_at(th->wv->wl, th->pc), where, sizeof where);
	sim_fail(v->vm->hv->sim, SIM_FAIL_STALL, "%s took no simulated time %lu times in a row",
	    where, WL_STALL_OPS);
}

/* The sleeping lock op o takes or gives back: an instance of its class (the
 * one the task took, for an unlock), or the task's mm's mmap_sem. */
static struct slock *
slock_of(struct vcpu *v, struct wl_thread *th, const struct wl_op *o)
{
	const struct workload *w = th->wv->wl;
	int *i;

	if (o->arg < 0)
		return gvm_mmap_sem(th->g, gk_current(v)->mm);
	i = &th->inst[w->nlocks + 1 + (size_t)o->arg];
	if (o->op == OP_SLOCK)
		*i = instance_of(v, th, w->slocks[o->arg].instances, o);
	return gvm_slock(th->g, o->arg, *i);
}

/* wl_continue's primitives but the six of every lock loop's step (out of
 * line: the hot loop's frame stays small): 1 if the task's step ends here
 * (it took time, or another task runs), 0 to go on to the next. */
static __attribute__((noinline)) int
wl_step_other(struct vcpu *v, struct wl_thread *th, const struct wl_op *o)
{
	struct wl_vm *wv = th->wv;
	struct gvm *g = th->g;

	switch (o->op) {
	case OP_IO:
		th->pc++;
		guest_io(v, (enum guest_io)o->arg, wl_continue);
		return 1;
	case OP_BUSY_WAIT:
		th->pc++;
		th->busy_until = v->vm->hv->sim->now + sim_ns(dist_sample(o->d, v->rng));
		gk_busy_until(v, th->busy_until, busy_resume);
		return 1;
	case OP_SLEEP:
		th->pc++;
		gk_sleep(v, dist_sample(o->d, v->rng), wl_continue);
		return 1;
	case OP_MEMORY:
		th->pc++;
		gk_memory(v, dist_sample(o->d, v->rng), wl_continue);
		return 1;
	case OP_BLOCK:
		th->pc++;
		gk_block_for(v, dist_sample(o->d, v->rng), wl_continue);
		return 1;
	case OP_DISK:
		th->pc++;
		vdisk_read(g->disk, v, dist_sample(o->d, v->rng), wl_continue);
		return 1;
	case OP_WAIT:
		th->pc++;
		return gk_wait(v, gvm_queue(g, o->arg, instance_of(v, th, wv->wl->queue_inst[o->arg],
		    o)), wl_continue) != 0;
	case OP_WAKE:
		th->pc++;
		gk_post(v, gvm_queue(g, o->arg, instance_of(v, th, wv->wl->queue_inst[o->arg], o)),
		    o->n < 0 ? 0 : o->n, o->n < 0, o->sync);
		return gk_preempt_point(v, wl_continue) != 0;
	case OP_SPAWN:
		th->pc++;
		if (wv->counted)
			wv->run->live++;
		wv->live++;
		wv->threads++;
		gk_spawn(v, thread_new(wv, g, o->jump));
		return gk_preempt_point(v, wl_continue) != 0;
	case OP_WAITCHILD:
		th->pc++;
		return gk_wait_children(v, (int)o->n, wl_continue) != 0;
	case OP_EXEC:
		th->pc++;
		return gk_exec(v, wl_continue) != 0;
	case OP_BARRIER:
		th->pc++;
		if (++wv->arrived[o->arg] < o->n) {
			gk_wait(v, gvm_queue(g, o->arg, 0), wl_continue);
			return 1;
		}
		wv->arrived[o->arg] = 0;
		gk_post(v, gvm_queue(g, o->arg, 0), 0, 1, 0);
		return gk_preempt_point(v, wl_continue) != 0;
	case OP_IPI:
		th->pc++;
		return ipi_call(v, (enum ipi_to)o->arg, (int)o->n, o->jump,
		    dist_sample(o->d, v->rng), wl_continue) != 0;
	case OP_TLB_FLUSH:
		th->pc++;
		return ipi_flush_tlb(v, o->arg, wl_continue) != 0;
	case OP_SLOCK:
		/* mutex_lock / down_*: might_sleep() first */
		if (gk_might_resched(v, wl_continue))
			return 1;
		th->pc++;
		return slock_lock(v, slock_of(v, th, o), (int)o->n, wl_continue) != 0;
	case OP_SUNLOCK:
		th->pc++;
		slock_unlock(v, slock_of(v, th, o), (int)o->n);
		return gk_preempt_point(v, wl_continue) != 0;
	case OP_MARK_START:
		th->pc++;
		wv->mark_at[o->arg] = v->vm->hv->sim->now;
		return 0;
	case OP_MARK_STOP:
		th->pc++;
		if (wv->mark_at[o->arg] >= 0)
			rep_add(&wv->mark_rep[o->arg],
			    (double)(v->vm->hv->sim->now - wv->mark_at[o->arg]) * 1e-9);
		wv->mark_at[o->arg] = -1;
		return 0;
	case OP_END:
		gk_exit(v);
		return 1;
	default:
		vs_fatal("wl_continue: op %d", (int)o->op);
	}
	return 0;
}

/* The three primitives that end a lock loop's step, for wl_continue's first
 * op and its loop (always inline: no call of their own). */
static inline __attribute__((always_inline)) void
op_compute(struct vcpu *v, struct wl_thread *th, const struct wl_op *o)
{
	th->pc++;
	gk_compute(v, dist_sample(o->d, v->rng), wl_continue);
}

/* op_acquire's lock when it is not the one looked up before: an instance
 * to pick, or the first acquire (out of line: its calls return here, the
 * common case's only call is the acquire's, a tail call) */
static __attribute__((noinline)) void
acquire_pick(struct vcpu *v, struct wl_thread *th, const struct wl_op *o)
{
	struct glock *l = th->lock[o->arg];
	int i;

	if (o->by == WL_BY_NONE) {	/* instance 0 (a class of one: compile.c instances_ok) */
		l = th->lock[o->arg] = gvm_lock(th->g, o->arg, 0);
	} else {
		i = instance_pick(v, th, th->wl->locks[o->arg].instances, o);
		if (l == NULL || th->inst[o->arg] != i) {
			th->inst[o->arg] = i;
			l = th->lock[o->arg] = gvm_lock(th->g, o->arg, i);
		}
	}
	lock_acquire(l, v);
}

/* The compute th's program starts after op p, its walk made at compile
 * time (wl_priv.h nx): the loop end's count decides which (expected none:
 * a lock loop is a forever loop, as the kernel's and the peers' are). */
static inline const struct wl_next *
next_at(const struct wl_thread *th, const struct wl_op *p)
{
	/* (two returns: each a constant offset from p) */
	if (__builtin_expect(p->nx_left >= 0, 0) && th->left[p->nx_left] > 1)
		return &p->nx[1];
	return &p->nx[0];
}

/* ... at th's pc (the op after a lock call's, once the call has moved it) */
static inline const struct wl_next *
next_of(const struct wl_thread *th)
{
	return next_at(th, &th->ops[th->pc]);
}

/* The lock call of op o, th's pc past it, names the compute wl_lock_then
 * looks for (th->next) where its op is in a register: o + 1 is th's pc,
 * and nothing of th's moves before its then (the task is in the call). */
static inline __attribute__((always_inline)) void
lock_call_next(struct wl_thread *th, const struct wl_op *o)
{
	th->next = next_at(th, o + 1);
}

/* A lock call's step: the tail (wl_step's WL_TAIL_TAKE: taken here) and,
 * if the call is its event's tail, guest_tail_then; last before the call:
 * a pointer and a byte store, after which gcc would load the vCPU's kernel
 * state again (the op's own loads and stores come first). */
#define WL_TAIL_TAKE (-1)
static inline __attribute__((always_inline)) void
lock_call_tail(struct vcpu *v, int tail)
{
	/* (a lock loop's steps are their events' tails; the take and the
	 * then in one guest.c call when not taken yet) */
	if (tail == WL_TAIL_TAKE)
		guest_tail_take_then(v, wl_continue);
	else if (__builtin_expect(tail, 1))
		guest_tail_then(v);
}

static inline __attribute__((always_inline)) void
op_acquire(struct vcpu *v, struct wl_thread *th, const struct wl_op *o, int tail)
{
	struct glock *l;

	th->pc++;
	lock_call_next(th, o);
	th->path_since[o->arg] = th->sim->now;
	gk_preempt_disable(v);	/* spin_lock: preempt_disable first */
	l = th->lock[o->arg];
	lock_call_tail(v, tail);
	if (__builtin_expect(o->by != WL_BY_NONE || l == NULL, 0))
		acquire_pick(v, th, o);
	else
		lock_acquire(l, v);
}

static inline __attribute__((always_inline)) void
op_release(struct vcpu *v, struct wl_thread *th, const struct wl_op *o, int tail)
{
	struct glock *l;

	th->pc++;
	lock_call_next(th, o);
	th->closing = o->arg;
	l = th->lock[o->arg];
	lock_call_tail(v, tail);
	lock_release(l, v);
}

/* wl_continue's primitives from th->pc on, until one takes time or the
 * task is switched out. */
static __attribute__((noinline)) void
wl_run(struct vcpu *v, struct wl_thread *th, int tail)
{
	const struct wl_op *o;
	unsigned long untimed = 0;

	for (;;) {
		if (++untimed > WL_STALL_OPS) {
			stalled(v, th);
			return;
		}
		o = &th->ops[th->pc];
		switch (o->op) {
		case OP_COMPUTE:
			op_compute(v, th, o);
			return;
		case OP_ACQUIRE:
			op_acquire(v, th, o, 0);
			return;
		case OP_RELEASE:
			op_release(v, th, o, 0);
			return;
		case OP_COUNT:
			th->counts[o->arg]++;
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
			if (th->ops[o->jump - 1].n < 0 || --th->left[o->arg] > 0) {
				th->pc = o->jump;
				if (tail && th->ops[o->jump - 1].endless && loop_endless(v))
					return;
				if (tail && th->ops[o->jump - 1].ff)
					loop_ff(v, th, o);
			} else
				th->pc++;
			break;
		default:
			if (wl_step_other(v, th, o))
				return;
			break;
		}
	}
}

/* wl_continue's first op's compute (out of line: a draw's rare edge call
 * returns into it, so it keeps a frame wl_continue need not) */
static __attribute__((noinline)) void
step_compute(struct vcpu *v, struct wl_thread *th, const struct wl_op *o)
{
	op_compute(v, th, o);
}

/* wl_continue past its preemption point: a lock loop's steps begin with one
 * of these: no loop, no watchdog; the lock call is the step's last
 * (guest_tail_then).  tail: guest_tail_take's, or WL_TAIL_TAKE: not taken
 * yet (the lock calls take it last, lock_call_tail) */
static inline __attribute__((always_inline)) void
wl_step(struct vcpu *v, struct wl_thread *th, int tail)
{
	const struct wl_op *o = &th->ops[th->pc];

	if (o->op == OP_ACQUIRE)
		op_acquire(v, th, o, tail);
	else if (o->op == OP_RELEASE)
		op_release(v, th, o, tail);
	else {
		if (tail == WL_TAIL_TAKE)
			tail = guest_tail_take(v, wl_continue);	/* for loop_ff */
		if (o->op == OP_COMPUTE)
			step_compute(v, th, o);
		else
			wl_run(v, th, tail);
	}
}

/* wl_continue with a path to close or something due at its preemption
 * point (out of line: their calls return here, so wl_continue's own path
 * makes tail calls only and keeps no frame: ~10 instructions a step) */
static __attribute__((noinline)) void
wl_continue_due(struct vcpu *v, struct wl_thread *th, int tail)
{
	wl_close_path(v, th);
	/* A preemption point: spin_unlock's preempt_enable, or a return to user. */
	if (gk_preempt_point(v, wl_continue))
		return;
	wl_step(v, th, tail);
}

void
wl_continue(struct vcpu *v)
{
	struct wl_thread *th = guest_wl(v);
	int tail;

	/* (the tests first: the tail's store is of a pointer, after which gcc
	 * would load the vCPU's kernel state again) */
	if (__builtin_expect(th->closing >= 0 || !gk_quiet(v), 0)) {
		tail = guest_tail_take(v, wl_continue);	/* for loop_ff */
		wl_last = th;
		wl_continue_due(v, th, tail);
		return;
	}
	/* the preemption point with nothing due: it clears the compute mark */
	gk_preempt_point(v, wl_continue);
	wl_last = th;
	wl_step(v, th, WL_TAIL_TAKE);
}

/* wl_next_mid past the preempt point: up to the compute, its counter and
 * its loop end (nx), or its counters one by one; the compute's mark; its
 * draw, which it returns. */
static inline __attribute__((always_inline)) double
next_go(struct vcpu *v, struct wl_thread *th, const struct wl_next *x)
{
	const struct wl_op *o;

	/* (one test for the lock loops' case: its counter only) */
	if (__builtin_expect(x->walk == WL_NX_COUNT, 1))
		th->counts[x->count]++;
	else if (x->walk == WL_NX_LEFT) {
		th->left[x->left]--;
		th->counts[x->count]++;
	} else
		while (th->pc != x->at) {
			o = &th->ops[th->pc];
			if (o->op == OP_COUNT) {
				th->counts[o->arg]++;
				th->pc++;
			} else if (th->ops[o->jump - 1].n < 0 || --th->left[o->arg] > 0)
				th->pc = o->jump;
			else
				th->pc++;
		}
	th->pc = x->at + 1;
	gk_compute_mark(v);
	return dist_sample(x->d, v->rng);
}

/* wl_next_mid's case with a wake or a reschedule due (out of line, all of
 * it: across its call wl_lock_then keeps only what seg_now needs): -1 if
 * the preempt point would switch tasks (nothing done), else the path
 * closed, the preempt point passed and next_go's draw. */
static __attribute__((noinline)) double
mid_due(struct vcpu *v, struct wl_thread *th, sim_time_t at)
{
	if (gk_preempt_due(v, th->closing >= 0))
		return -1;
	wl_last = th;
	if (th->closing >= 0)
		close_path(v, th, at);	/* at the boundary (the clock may not be there yet) */
	if (gk_preempt_point(v, wl_continue))
		vs_fatal("wl_next_mid: a preemption gk_preempt_due did not foresee");
	return next_go(v, th, th->next);
}

/*
 * At the end of the lock's costs (at), in wl_continue's place: what it would
 * do up to the compute wl_lock_then found (th->next: the path closed, the
 * preempt point, counters, the loop end, the compute's mark) and that
 * compute's draw, whose ns it returns; or, if its preempt point would
 * switch tasks, nothing (-1): wl_continue runs.  The draw comes last, where
 * wl_continue's op_compute makes it, so the stream's order is the step's.
 * Nothing here reads the clock but the path's end, which takes at
 * (guest_work_then may run this before the clock gets there).  (Always
 * inline: wl_lock_then's seg_now runs it at every lock call; the boundary
 * that waits for its own event calls it through seg_mid.)
 */
static inline __attribute__((always_inline)) double
wl_next_mid(struct vcpu *v, sim_time_t at)
{
	struct wl_thread *th = guest_wl(v);
	const struct wl_next *x = th->next;
	struct task *t;

	/* After an acquire, the section's compute next (no path to close, no
	 * counter, preempt_count > 0, not marked computing): of all below, only
	 * the pc moves (no preemption is due or taken, the marks stay 0) */
	if (th->closing < 0 && th->pc == x->at && (t = gk_current(v))->preempt_count > 0 &&
	    !t->compute) {
		wl_last = th;
		th->pc++;
		return dist_sample(x->d, v->rng);
	}
	if (__builtin_expect(!gk_quiet(v), 0))
		return mid_due(v, th, at);
	/* the preempt point finds nothing: gk_compute_mark (next_go) sets the
	 * mark it would clear */
	wl_last = th;
	if (th->closing >= 0)
		close_path(v, th, at);	/* at the boundary (the clock may not be there yet) */
	return next_go(v, th, x);
}

/*
 * The lock call's own costs (ns), then the caller goes on (lock.h
 * lock_client then): its next compute, when it starts one after counters
 * and loop ends only (th->next, lock_call_next; a loop the fast-forward may take is left
 * alone: it needs wl_continue's tail), follows in the same activity
 * (wl_next_mid at the boundary): the same times, one step of the caller's
 * fewer (fast_forward: false keeps the step, wl_lock_client_slow;
 * tests/e2e_fold.sh compares the two).  th->pc stays until wl_next_mid walks it there: no switch comes
 * first (a lock held, or a release's preempt_enable still to come,
 * preempt_count > 0).
 */
static void
wl_lock_then(struct vcpu *v, double ns)
{
	struct wl_thread *th = guest_wl(v);
	const struct wl_next *x;

	if ((x = th->next)->at >= 0) {
		/* wl_next_mid reads the task: a waiter's is cold when it takes
		 * the lock, start loading it now */
		__builtin_prefetch(gk_current(v));
		guest_work_then(v, ns, wl_next_mid, wl_continue);
	} else
		guest_work(v, ns, wl_continue);
}

/*
 * v's program state in a snapshot of a periodic run (guest/ring_ff.c): its
 * thread (loop counts, which count down, and the acquires' clocks), the
 * VM's counters and its run, every other field as it is.
 */
static void
wl_ffs(struct ffs *s, struct vcpu *v)
{
	struct wl_thread *th = guest_wl(v);
	struct wl_vm *wv;
	size_t i, nleft, npath;

	if (th == NULL) {
		ffs_value(s, -1);
		return;
	}
	wv = th->wv;
	nleft = (size_t)wv->wl->depth + 1;
	npath = wv->wl->nlocks + 1;
	ffs_bytes(s, th, thread_size(wv));
	for (i = 0; i < nleft; i++)
		ffs_left(s, &th->left[i]);
	for (i = 0; i < npath; i++)
		if (th->lock[i] != NULL)
			ffs_time(s, &th->path_since[i]);
	ffs_bytes(s, wv, sizeof *wv);
	for (i = 0; i < wv->wl->ncounters; i++)
		ffs_count(s, &wv->counts[i]);
	ffs_bytes(s, wv->run, sizeof *wv->run);
}

double
wl_take_section(struct vcpu *v)
{
	struct wl_thread *th = guest_wl(v);
	const struct workload *w = th->wv->wl;
	const struct wl_op *acq = &w->ops[th->pc - 1];
	double ns = 0;

	VS_ASSERT(th->pc > 0 && acq->op == OP_ACQUIRE);
	if (!wl_section_ok(w, (size_t)th->pc, acq->arg))
		vs_fatal("%s", w->sect_err ? w->sect_err : "section is not compute only");
	for (; w->ops[th->pc].op == OP_COMPUTE; th->pc++)
		ns += dist_sample(w->ops[th->pc].d, v->rng);
	th->pc++;		/* past the release */
	th->next = next_of(th);	/* (the call's then comes after it) */
	th->closing = acq->arg;
	return ns;
}
