/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kernel.c - the guest kernel's core: switching tasks on a vCPU, the idle
 * loop, wakeups and the IPIs they send, the timer tick, balancing.
 *
 * Everything here runs "on" a vCPU, so it advances only while that vCPU has
 * a pCPU: a wakeup aimed at a preempted vCPU waits in its pending interrupt
 * until the host runs it again (guest.c).  Policy is behind guest_sched_ops;
 * the paths that take the scheduler's own locks are kernel_rqlock.c's.
 */
#include "guest/kernel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "ffsnap.h"
#include "guest/kernel_priv.h"
#include "guest/lock.h"
#include "hv/hv.h"
#include "rng.h"
#include "stats.h"

int gk_ncpus(const struct gkernel *k) { return k->ncpu; }
struct gcpu *gk_cpu(struct gkernel *k, int i) { return &k->cpus[i]; }
const struct gk_tunables *gk_tunables(const struct gkernel *k) { return &k->tun; }
const void *gk_sched_cfg(const struct gkernel *k) { return &k->cfg.sched_cfg; }
int gk_hz(const struct gkernel *k) { return k->cfg.hz > 0 ? k->cfg.hz : 1000; }

int64_t
gk_jiffies(const struct gkernel *k)
{
	return ksim(k)->now / (int64_t)(1000000000 / gk_hz(k));	/* jiffies: ticks of 1/HZ */
}
const struct gk_stats *gk_stats(const struct gkernel *k) { return &k->st; }
const struct gt_stats *gk_timer_stats(const struct gkernel *k) { return gt_stats(k->timers); }
struct ipi *gk_ipi(struct gkernel *k) { return k->ipi; }
struct gk_stats *gk_stats_rw(struct gkernel *k) { return &k->st; }

void
gk_set_smp(struct gkernel *k, const struct gk_smp_ops *ops, struct ipi *ip)
{
	k->smp = ops;
	k->ipi = ip;
}

/* Linux 4.16 arch/x86/kernel/kvm.c kvm_steal_time_set_preempted on the host's
 * side: the flag is set when KVM puts a vCPU that was still runnable. */
int
gk_vcpu_is_preempted(const struct vcpu *v)
{
	return v->rs == RS_RUNNABLE;
}

void
gk_watch_register(struct gkernel *k, const struct gk_owner_watch *ops, void *lock)
{
	VS_GROW(k->watches, k->capwatches, (size_t)k->nwatches);
	k->watches[k->nwatches].ops = ops;
	k->watches[k->nwatches++].lock = lock;
}

void
gk_watch_spin(struct gkernel *k, int delta)
{
	k->nwatch_spin += delta;
}

void
gk_entry_due(struct gkernel *k, int delta)
{
	k->entry_due += delta;
}

/* cpu_stopped's asking of the watched locks (out of line: most stops
 * return at once, without a frame; seed001-x7560 2.08 M stops) */
static __attribute__((noinline)) void
cpu_stopped_watch(struct gkernel *k, struct vcpu *v)
{
	int i;

	for (i = 0; i < k->nwatches; i++)
		k->watches[i].ops->vcpu_stopped(k->watches[i].lock, v);
}

/* The host took v's pCPU (guest.c's stop hook).  A lock hears of it only
 * to poke its spinners (LNX-4.10 mutex_spin_on_owner's vcpu_is_preempted):
 * with no spinner on any, none would act, so none is asked (most stops). */
static void
cpu_stopped(struct vcpu *v)
{
	struct gkernel *k = v->vm->kernel;

	if (k->nwatch_spin != 0)
		cpu_stopped_watch(k, v);
}
int gk_live(const struct gkernel *k) { return k->live; }

int
gk_alone(struct vcpu *v)
{
	const struct gcpu *c = cpu_of(v);

	/* a wake, a pull or a tick's preemption needs another task allowed here */
	return c->k->allowed_live[c->idx] == 1 && !c->k->cfg.can_spawn && c->curr != NULL &&
	    c->nwake == 0 && !c->need_resched;
}

int
gk_task_allowed(const struct task *t, int cpu)
{
	return t->aff == NULL || t->aff[cpu];
}

static void cpu_irq(struct vcpu *);
static void cpu_sync(struct vcpu *);
static void timer_raise(void *ctx, int cpu, int kind);

/* The vCPU's LAPIC deadline as its kernel last programmed it: the earliest
 * armed timer that may wake it (gtimer.c gt_next) and its tick if armed. */
static sim_time_t
cpu_next_timer(const struct vcpu *v)
{
	const struct gcpu *c = guest_kcpu(v);
	sim_time_t at;

	if (c->finished)
		return SIM_NEVER;
	at = gt_next(c->k->timers, c->idx);
	if (c->tick_ghost >= 0) {	/* a ghost stands for the pending tick */
		sim_time_t g = sim_ghost_time(ksim(c->k), c->tick_ghost);

		return g < at ? g : at;
	}
	return c->tick_ev != EVQ_NONE && c->tick_at < at ? c->tick_at : at;
}

static void tick_ev(void *s, void *arg, int64_t data);

static void
cpu_entry(struct vcpu *v)
{
	struct gcpu *c = cpu_of(v);

	if (c->tick_ghost >= 0) {	/* its ticks act again: the pending one, real */
		c->tick_at = sim_ghost_time(ksim(c->k), c->tick_ghost);
		sim_ghost_wake(ksim(c->k), c->tick_ghost, tick_ev, c, 0);
	}
	if (c->k->entry_due)	/* (most entries: no PV TLB flush marked) */
		c->k->smp->entry(c->k->ipi, c);
}

/* No tick, armed or a ghost. */
static void
tick_stop(struct gcpu *c)
{
	tick_sync(c);
	sim_cancel(ksim(c->k), &c->tick_ev);
	sim_ghost_cancel(ksim(c->k), &c->tick_ghost);
}

struct gkernel *
gk_new(struct vm *vm, const struct gk_config *cfg)
{
	struct gkernel *k = xcalloc(1, sizeof *k);
	int i, n = vm->nvcpus < 8 ? vm->nvcpus : 8, f = 1;

	k->vm = vm;
	vm->kernel = k;
	k->cfg = *cfg;
	k->ncpu = vm->nvcpus;
	/* Linux 3.2 sched_fair.c: tunables x (1 + ilog2(min(ncpus, 8))), SCHED_TUNABLESCALING_LOG */
	while (n >>= 1)
		f++;
	k->tun.latency_ns = 6e6 * f;
	k->tun.min_gran_ns = 0.75e6 * f;
	k->tun.wakeup_gran_ns = 1e6 * f;
	k->tun.nr_latency = 8;
	k->tun.factor = f;
	k->tick_ns = cfg->hz > 0 ? 1e9 / cfg->hz : 0;
	k->switch_ns = kmach(k)->guest_ctx_switch_ns;
	/* with the scheduler's locks, costs.sched_pick of a switch is paid under
	 * the rq->lock (ks_pick): the rest in kc_switch_to */
	if (k->cfg.sched_locks)
		k->switch_ns = k->switch_ns > kmach(k)->sched_pick_ns ?
		    k->switch_ns - kmach(k)->sched_pick_ns : 0;
	k->tun.tick_ns = k->tick_ns;
	k->tick_lane = k->tick_ns > 0 ? sim_lane(ksim(k), sim_ns(k->tick_ns)) : -1;
	k->timers = gt_new(ksim(k), vm->nvcpus, timer_raise, k);
	k->cpus = xcalloc_line((size_t)k->ncpu, sizeof *k->cpus);	/* task.h: hot line first */
	k->allowed_live = xcalloc((size_t)k->ncpu, sizeof *k->allowed_live);
	for (i = 0; i < k->ncpu; i++) {
		struct gcpu *c = &k->cpus[i];

		c->k = k;
		c->v = vm->vcpus[i];
		c->idx = i;
		TAILQ_INIT(&c->rq);
		TAILQ_INIT(&c->delayed);
		TAILQ_INIT(&c->wake_q);
		if (cfg->sched_locks)
			c->rq_lock = ks_lock_new(k, "rq", i, &ks_rq_lines);
		c->tick_ev = EVQ_NONE;
		c->tick_ghost = -1;
		c->tick_at = -1;
		c->idle_since = -1;
		guest_set_kcpu(c->v, c);
		guest_set_irq_hook(c->v, cpu_irq);
		guest_set_sync_hook(c->v, cpu_sync);
		guest_set_entry_hook(c->v, cpu_entry);
		guest_set_stop_hook(c->v, cpu_stopped);
		guest_set_timer_hook(c->v, cpu_next_timer);
	}
	k->st.wake_lat = hist_new();
	k->st.ipi_wait = hist_new();
	return k;	/* gvm.c installs the IPI layer (gk_set_smp) */
}

/*
 * Tasks are made in line-aligned chunks (task.h: hot fields first), never
 * freed before the end (k->tasks keeps every one): one allocation a chunk,
 * not a fork.  Chunks double up to TASK_CHUNK tasks (a kernel of a few
 * tasks stays small): task i starts one of task_chunk(i) tasks, or 0.
 */
#define TASK_CHUNK 64

static int
task_chunk(int i)
{
	if (i >= TASK_CHUNK)
		return i % TASK_CHUNK == 0 ? TASK_CHUNK : 0;
	return (i & (i - 1)) == 0 ? (i > 0 ? i : 1) : 0;
}

static struct task *
task_alloc(struct gkernel *k)
{
	size_t stride = (sizeof(struct task) + 63) / 64 * 64;
	int n = task_chunk(k->ntasks);

	if (n > 0)
		return xcalloc_line((size_t)n, stride);
	return (struct task *)(void *)((char *)k->tasks[k->ntasks - 1] + stride);
}

void
gk_free(struct gkernel *k)
{
	int i;

	if (k == NULL)
		return;
	for (i = 0; i < k->ncpu; i++)
		tick_stop(&k->cpus[i]);
	for (i = 0; i < k->ncpu; i++)
		lock_free(k->cpus[i].rq_lock);
	for (i = 0; i < k->ntasks; i++) {
		lock_free(k->tasks[i]->pi_lock);
		gt_cancel(&k->tasks[i]->timer);
		if (k->tasks[i]->th != NULL && k->cfg.task_free != NULL)
			k->cfg.task_free(k->tasks[i]->th);
	}
	for (i = 0; i < k->ntasks; i++)
		if (task_chunk(i) > 0)
			free(k->tasks[i]);	/* its chunk (task_alloc) */
	free(k->tasks);
	while (k->npi_spare > 0)
		lock_free(k->pi_spare[--k->npi_spare]);
	free(k->pi_spare);
	free(k->pi_gone);
	gt_free(k->timers);
	hist_free(k->st.wake_lat);
	hist_free(k->st.ipi_wait);
	free(k->watches);
	free(k->allowed_live);
	free(k->cpus);
	free(k);
}

/* Linux prio_to_weight: 1024 at nice 0, ~1.25x per nice level */
static unsigned long
nice_weight(int nice)
{
	return (unsigned long)lround(1024.0 * pow(1.25, -nice));
}

static void task_timer_fn(struct gtimer *, struct vcpu *);

struct task *
gk_task_new(struct gkernel *k, void *th, const unsigned char *aff, int only, int nice,
    struct task *parent)
{
	struct task *t = task_alloc(k);
	int i;

	t->k = k;
	t->id = k->ntasks;
	t->state = T_BLOCKED;	/* not yet queued */
	t->cpu = t->prev_cpu = t->recent_used_cpu = -1;
	t->aff = aff;
	t->only = only;
	t->weight = nice_weight(nice);
	t->th = th;
	t->parent = parent;
	t->waiting_children = -1;
	t->woken_at = -1;
	gt_init(&t->timer, k->timers, GT_HRTIMER, task_timer_fn, t);
	t->mm = parent != NULL ? parent->mm : -1;
	if (k->cfg.sched_locks)
		t->pi_lock = ks_pi_new(k, t->id);
	VS_GROW(k->tasks, k->captasks, (size_t)k->ntasks);
	k->tasks[k->ntasks++] = t;
	k->live++;
	if (only >= 0)
		k->allowed_live[only]++;	/* no scan: O(vCPUs) setup, not O(vCPUs^2) */
	else
		for (i = 0; i < k->ncpu; i++)
			k->allowed_live[i] += gk_task_allowed(t, i);
	if (parent != NULL)
		parent->children++;
	return t;
}

void
gk_update_curr(struct gcpu *c)
{
	account(c);
}

/* Next tick boundary after now on c. */
static void
tick_arm(struct gcpu *c)
{
	struct gkernel *k = c->k;
	sim_time_t now = ksim(k)->now, per = sim_ns(k->tick_ns), at;

	if (per <= 0 || c->tick_ev != EVQ_NONE || c->tick_ghost >= 0 || c->finished)
		return;
	if (now == c->tick_at) {	/* the tick firing: the boundary after it, without a divide */
		c->tick_at = now + per;
		c->tick_ev = sim_after_lane(ksim(k), k->tick_lane, per, tick_ev, c, 0);
		return;
	}
	at = now < c->tick_phase ? c->tick_phase :
	    c->tick_phase + ((now - c->tick_phase) / per + 1) * per;
	c->tick_at = at;
	c->tick_ev = sim_at(ksim(k), at, tick_ev, c, 0);
}

/* A reschedule IPI (smp_send_reschedule), sent as ipi.c sends them. */
static void
send_ipi(struct gkernel *k, int from, struct gcpu *to)
{
	k->smp->resched(k->ipi, from, to);
}

static void cpu_schedule(struct gcpu *);

static void
leave_idle(struct gcpu *c)
{
	struct gkernel *k = c->k;

	if (!c->idle)
		return;
	c->idle = 0;
	k->nidle--;
	c->polling = 0;
	k->st.idle_ns += (double)(ksim(k)->now - c->idle_since);
	c->idle_since = -1;
	if (k->cfg.tickless)
		tick_arm(c);
}

/* Self-check (--check): every task is in exactly the place its state says. */
static void
check_invariants(const struct gkernel *k)
{
	int i, q, running;

	for (i = 0; i < k->ntasks; i++) {
		const struct task *t = k->tasks[i], *o;
		int j;

		running = q = 0;
		for (j = 0; j < k->ncpu; j++) {
			running += k->cpus[j].curr == t;
			TAILQ_FOREACH(o, &k->cpus[j].rq, rq_link)
				q += o == t;
		}
		if (running > 1)
			vs_fatal("guest task %d runs on %d vCPUs at once", t->id, running);
		if ((t->state == T_RUNNING) != (running == 1) || (t->state == T_RUNNABLE) != (q == 1) ||
		    q > 1)
			vs_fatal("guest task %d: state %d, current on %d vCPUs, queued %d times",
			    t->id, t->state, running, q);
		if (t->cpu >= 0 && !gk_task_allowed(t, t->cpu) && t->state != T_DEAD)
			vs_fatal("guest task %d is on vCPU %d outside its affinity", t->id, t->cpu);
	}
	for (i = 0; i < k->ncpu; i++) {
		const struct task *o;

		q = 0;
		TAILQ_FOREACH(o, &k->cpus[i].rq, rq_link)
			q++;
		if (q != k->cpus[i].nqueued)
			vs_fatal("guest vCPU %d: %d tasks queued, count says %d", i, q,
			    k->cpus[i].nqueued);
	}
}

/* context_switch(): the next task resumes where it stopped. */
void
kc_switch_to(struct gcpu *c, struct task *t, struct task *prev)
{
	struct gkernel *k = c->k;
	struct vcpu *v = c->v;
	double cost = prev != NULL && prev != t ? k->switch_ns : 0;
	double rem = t->rem;
	guest_fn cont = t->cont;

	leave_idle(c);
	c->curr = t;
	t->state = T_RUNNING;
	if (t->prev_cpu >= 0 && t->prev_cpu != c->idx)
		k->st.migrations++;
	t->cpu = t->prev_cpu = c->idx;
	k->smp->switch_mm(k->ipi, c, t);
	t->exec_clock = cpu_clock(c);
	t->prev_sum_exec = t->sum_exec;
	if (t->woken_at >= 0) {
		double lat = (double)(ksim(k)->now - t->woken_at);

		hist_add(k->st.wake_lat, lat > 1 ? lat : 1);
		t->woken_at = -1;
	}
	if (prev != t)
		k->st.ctx_switches++;
	if (k->cfg.check)
		check_invariants(k);
	guest_set_wl(v, t->th);
	/* what was preempted mid-computation is plain computation again */
	t->compute = (rem > 0 || t->mem) && t->cont != NULL && t->preempt_count == 0;
	t->rem = 0;
	t->cont = NULL;
	if (cont == NULL)
		cont = k->first;
	if (t->mem) {
		t->mem = 0;
		guest_overhead(v, cost);
		guest_memory(v, rem, cont);
	} else if (cost + rem > 0)
		guest_work(v, cost + rem, cont);
	else
		cont(v);
}

/* Linux 3.2 sched_fair.c idle_balance: pull a queued task before idling */
static struct task *
pull(struct gcpu *c)
{
	struct gkernel *k = c->k;
	struct task *t = k->cfg.sched->steal(k, c);

	if (t == NULL)
		return NULL;
	dequeue(&k->cpus[t->cpu], t, GS_MIGRATE);
	enqueue(c, t, GS_MIGRATE);
	return k->cfg.sched->pick_next(c);
}

/* __schedule(): curr has left (blocked, exited or was put back); run the next. */
void
kc_schedule_from(struct gcpu *c, struct task *prev)
{
	struct gkernel *k = c->k;
	struct task *next;

	if (k->cfg.sched_locks) {
		ks_schedule(c, prev);
		return;
	}
	c->need_resched = 0;
	next = c->nqueued > 0 ? k->cfg.sched->pick_next(c) : NULL;
	if (next != NULL)
		c->nqueued--;
	else if ((next = pull(c)) != NULL)
		c->nqueued--;
	if (next != NULL)
		kc_switch_to(c, next, prev);	/* curr stays in the load */
	else
		kc_go_idle(c);
}

static void
cpu_schedule(struct gcpu *c)
{
	kc_schedule_from(c, NULL);
}

static void idle_woken(struct vcpu *);

/* kernel/sched/idle.c do_idle -> cpuidle_idle_call: with cpuidle-haltpoll
 * loaded its governor picks the poll or HLT (haltpoll.c); else default_idle */
static void
idle_loop(struct gcpu *c)
{
	struct gkernel *k = c->k;

	if (k->cfg.hp.max_ns > 0 && ghp_select(&k->cfg.hp, &c->hp) == GHP_POLL) {
		/* poll_state.c poll_idle (the governor keeps the tick: stop_tick false) */
		c->polling = 1;
		c->poll_t0 = ksim(k)->now;
		c->polled0 = guest_polled_ns(c->v);
		guest_poll(c->v, c->hp.limit_ns, idle_woken);
		return;
	}
	c->polling = 0;
	/* tick_nohz_idle_stop_tick; not while a timer is due (the next event is now:
	 * Linux kernel/time/tick-sched.c tick_nohz_next_event keeps the tick) */
	if (k->cfg.tickless && gt_ndue(k->timers, c->idx) == 0)
		tick_stop(c);
	k->st.idle_halts++;
	c->halting = 1;
	c->halt_t0 = ksim(k)->now;
	guest_idle_halt(c->v, 0, idle_woken);
}

/* Linux kernel/sched/idle.c do_idle: nothing to run */
void
kc_go_idle(struct gcpu *c)
{
	struct gkernel *k = c->k;

	c->curr = NULL;
	guest_set_wl(c->v, NULL);
	if (!c->idle) {
		if (k->nidle == 0)
			kc_tick_sync_all(k, 1);	/* their ticks' balance would kick it now */
		c->idle = 1;
		k->nidle++;
		c->idle_since = ksim(k)->now;
	}
	if (k->allowed_live[c->idx] == 0 && !k->cfg.can_spawn) {
		/* No task can ever run here again: the vCPU is done (offline). */
		c->finished = 1;
		tick_stop(c);
		guest_finish(c->v);
		return;
	}
	idle_loop(c);
}

static void do_tick(struct gcpu *);
static void timer_irq(struct gcpu *);

/* A LAPIC timer interrupt's exits (the interrupt, the next deadline's
 * write): costs.timer_tick, two exit round trips; bare metal: none.  Xen's
 * PV timer (Linux 3.2 arch/x86/xen/time.c xen_vcpuop_set_next_event) re-arms
 * with the VCPUOP_set_singleshot_timer hypercall in place of the write: the
 * interrupt's half of timer_tick and a hypercall exit. */
static double
timer_exits_ns(struct gcpu *c, int count)
{
	struct hv *hv = c->k->vm->hv;
	const struct machine *m = kmach(c->k);

	hv->st.exits_timer += (uint64_t)count;
	if (c->k->pv_timer) {
		hv->st.exits_hypercall += (uint64_t)count;
		return m->timer_tick_ns / 2 + m->exit_hypercall_ns;
	}
	return m->timer_tick_ns;
}

void
kc_timer_exits(struct gcpu *c)
{
	if (!hv_native(c->k->vm->hv))
		guest_overhead(c->v, timer_exits_ns(c, 1));
}

/*
 * A guest poll ended (idle_woken): by its limit, or by an interrupt.  As
 * poll_idle, an interrupt that left nothing to run does not end the poll: it
 * goes on to the limit from where it began (1: still polling).  Else the pass
 * is over: cpuidle_reflect, and poll_time_limit for the next select.
 */
static int
poll_over(struct gcpu *c, int runnable)
{
	struct gkernel *k = c->k;
	sim_time_t end = c->poll_t0 + sim_ns(c->hp.limit_ns), now = ksim(k)->now;
	int out = !guest_poll_interrupted(c->v) || now >= end;

	if (!runnable && !out && !c->finished) {
		guest_poll(c->v, (double)(end - now), idle_woken);
		return 1;
	}
	c->polling = 0;
	k->st.gpoll_ns += guest_polled_ns(c->v) - c->polled0;
	if (runnable)
		k->st.gpolls_ok++;
	else if (out)
		k->st.gpolls_failed++;
	c->hp.time_limit = out && !runnable;
	ghp_reflect(&k->cfg.hp, &c->hp, GHP_POLL, 0);
	return 0;
}

/* The idle loop's poll or HLT ended: an interrupt, a wakeup or the poll's end. */
static void
idle_woken(struct vcpu *v)
{
	struct gcpu *c = cpu_of(v);
	struct gkernel *k = c->k;
	int runnable;

	k->smp->irq(k->ipi, c);	/* function calls that woke it */
	if (c->tick_pending)
		do_tick(c);
	else if (c->timer_pending) {
		k->st.timer_wakes++;
		timer_irq(c);
	}
	runnable = c->nqueued > 0 || c->need_resched;
	if (c->polling && poll_over(c, runnable))
		return;
	if (c->halting) {
		/* cpuidle_enter_state: last_residency_ns, the halt's wall time */
		c->halting = 0;
		ghp_reflect(&k->cfg.hp, &c->hp, GHP_HALT, (double)(ksim(k)->now - c->halt_t0));
	}
	if (runnable) {
		cpu_schedule(c);
		return;
	}
	if (c->finished)
		return;
	if (k->cfg.sched_locks) {
		/* a pull takes the run queues' locks: only if there is one */
		if (k->cfg.sched->steal(k, c) != NULL)
			cpu_schedule(c);
		else
			kc_go_idle(c);
		return;
	}
	{
		struct task *t = pull(c);

		if (t != NULL) {
			c->nqueued--;
			kc_switch_to(c, t, NULL);
			return;
		}
	}
	kc_go_idle(c);
}

/* Put curr back in its queue and run whatever the policy picks. */
static void
preempt(struct gcpu *c)
{
	struct task *t = c->curr;

	/* Linux: preempt_count > 0 (a spinlock held or awaited) forbids this */
	VS_ASSERT(t->preempt_count == 0 && t->compute);
	account(c);
	t->compute = 0;
	t->mem = guest_save(c->v, &t->rem, &t->cont);
	c->curr = NULL;
	c->load -= t->weight;
	enqueue(c, t, 0);
	owner_off(c->k, t);
	kc_schedule_from(c, t);
}

/* An interrupt's injection and EOI exit (machine irq): none with APICv's
 * virtual-interrupt delivery and EOI virtualization (posted interrupts), nor
 * on bare metal, where the EOI is a plain APIC write (kind.h hv_ipi_path). */
static double
irq_exit_ns(const struct hv *hv)
{
	struct hv_ipi_path p = kind_op_ipi_path(hv->kind, hv);

	return p.exits && !p.posted ? hv->m->irq_ns : 0;
}

/* An interrupt entered on c (a tick, a reschedule IPI, a device's completion). */
static void
cpu_irq(struct vcpu *v)
{
	struct gcpu *c = cpu_of(v);

	if (c->finished)
		return;
	if (c->curr == NULL) {
		c->k->smp->irq(c->k->ipi, c);
		if (c->timer_pending)
			timer_irq(c);
		return;
	}
	if (c->tick_pending && c->k->cfg.sched_locks && c->curr->compute &&
	    c->curr->preempt_count == 0) {
		ks_tick(c);	/* the rest of this interrupt after the locks */
		return;
	}
	if (c->tick_pending)
		do_tick(c);
	else if (c->timer_pending)
		timer_irq(c);
	else
		guest_overhead(v, c->k->irq_exit_ns);
	c->k->smp->irq(c->k->ipi, c);	/* CALL_FUNCTION_VECTOR: run the queued functions */
	/* Linux: preempt on return from interrupt if need_resched and preemptible */
	if (c->need_resched && c->curr->compute && c->curr->preempt_count == 0 &&
	    !kernel_code(c->k, c->curr))
		preempt(c);
	else if (c->need_resched && c->curr->slock_spinning)
		guest_spin_met(v, 0);	/* a sleeping lock's spin loop checks need_resched() */
}

/* The vCPU after idx, round the ring ((idx + 1) % ncpu without a divide:
 * the scans below run at every tick). */
static inline int
next_cpu(const struct gkernel *k, int idx)
{
	return idx + 1 < k->ncpu ? idx + 1 : 0;
}

/* t is the prev of a schedule under way on its vCPU (sched_locks: the pick
 * comes after the lock): LNX-6.6 task_on_cpu, which can_migrate_task
 * refuses until finish_task_switch.  Never so without the locks. */
static int
task_on_cpu(const struct task *t)
{
	return t->k->cpus[t->cpu].ks_prev == t;
}

/* The task of q that may run on cpu, the queue's tail first (Linux 3.2
 * sched_fair.c move_tasks walks rq->cfs_tasks from its tail). */
static struct task *
balance_pick(struct taskq *q, int cpu)
{
	struct task *t;

	for (t = TAILQ_LAST(q, taskq); t != NULL; t = TAILQ_PREV(t, taskq, rq_link))
		if (gk_task_allowed(t, cpu) && !task_on_cpu(t))
			return t;
	return NULL;
}

/* Busy with waiting tasks: kick an idle vCPU that may take one. */
void
kc_balance_kick(struct gcpu *c)
{
	struct gkernel *k = c->k;
	int i, j;

	if (k->nidle - c->idle == 0)
		return;		/* no other vCPU idle: the scan below finds none (every tick) */
	for (i = 1, j = next_cpu(k, c->idx); i < k->ncpu; i++, j = next_cpu(k, j)) {
		struct gcpu *d = &k->cpus[j];
		struct task *t;

		if (!d->idle || d->finished || d->polling)
			continue;
		TAILQ_FOREACH(t, &c->rq, rq_link)
			if (gk_task_allowed(t, d->idx)) {
				send_ipi(k, c->idx, d);
				return;
			}
	}
}

/*
 * Nothing waiting here: the task to pull from a vCPU with two or more
 * waiting, or NULL.  There, a sleeper an EEVDF queue keeps (DELAY_DEQUEUE)
 * counts, as rq->nr_running counts it, and may move, queued ones first: a
 * busy CPU's balance between overloaded groups is migrate_load, which
 * LNX-6.18 fair.c can_migrate_task lets move a sched_delayed task (not so an
 * idle CPU's migrate_task: gk_steal_busiest takes queued ones only); the
 * delayed one ran last, so detach_tasks' walk from the tail of cfs_tasks
 * reaches it last.
 */
struct task *
kc_balance_find(struct gcpu *c)
{
	struct gkernel *k = c->k;
	int i, j;

	for (i = 1, j = next_cpu(k, c->idx); i < k->ncpu; i++, j = next_cpu(k, j)) {
		struct gcpu *b = &k->cpus[j];
		struct task *t;

		if (b->nqueued + (c->curr != NULL ? b->ndelayed : 0) < 2)
			continue;
		if ((t = balance_pick(&b->rq, c->idx)) != NULL ||
		    (c->curr != NULL && (t = balance_pick(&b->delayed, c->idx)) != NULL))
			return t;
	}
	return NULL;
}

/* ... and the move: t (if any) to c, which looks at it as at a wakeup. */
void
kc_balance_pull(struct gcpu *c, struct task *t)
{
	struct gkernel *k = c->k;
	struct gcpu *b;

	if (t == NULL)
		return;
	b = &k->cpus[t->cpu];
	if (!t->delayed) {
		dequeue(b, t, GS_MIGRATE);
		enqueue(c, t, GS_MIGRATE);
	} else {
		/* asleep: in no count or load here, only the policy's queue */
		tick_sync(b);
		k->cfg.sched->dequeue(b, t, GS_MIGRATE);
		t->cpu = c->idx;
		k->cfg.sched->enqueue(c, t, GS_MIGRATE);
	}
	/* attach_task -> wakeup_preempt, which never clears a pending one */
	if (c->curr == NULL || k->cfg.sched->wakeup_preempt(c, c->curr, t))
		c->need_resched = 1;
}

/* Linux 3.2 sched_fair.c trigger_load_balance / nohz_balancer_kick and
 * load_balance: a vCPU running a task with none waiting pulls from one with
 * two or more waiting (kc_balance_find). */
static void
balance_tick(struct gcpu *c)
{
	if (c->nqueued > 0)
		kc_balance_kick(c);
	else
		kc_balance_pull(c, kc_balance_find(c));
}

/* Linux kernel/time/tick-sched.c tick_sched_timer -> scheduler_tick */
static void
do_tick(struct gcpu *c)
{
	struct gkernel *k = c->k;

	c->tick_pending = 0;
	k->st.ticks++;
	kc_timer_exits(c);
	if (c->curr != NULL) {
		account(c);
		if (c->nqueued > 0 && k->cfg.sched->tick_preempt(c, c->curr))
			c->need_resched = 1;
	}
	balance_tick(c);
	/* the tick's interrupt runs the hrtimers due and, in its softirq, the
	 * wheel's (Linux kernel/time/timer.c run_local_timers) */
	c->timer_pending = 0;
	gt_run(k->timers, c->idx, c->v);
}

/*
 * A LAPIC timer interrupt for guest timers outside a tick: on KVM the host's
 * hrtimer (LNX-6.6 arch/x86/kvm/lapic.c apic_timer_fn -> apic_timer_expired
 * -> kvm_vcpu_kick) wakes a halted vCPU or interrupts a running one (a
 * preemption-timer exit, vmx.c handle_preemption_timer); on Xen the vlapic's
 * timer (XEN-4.19 vpt.c pt_timer_fn -> vcpu_kick; pt_update_irq injects it on
 * entry, and pt_save_timer holds a descheduled vCPU's timer until
 * pt_restore_timer) or, with pv_timer, VIRQ_TIMER (sched/core.c
 * vcpu_singleshot_timer_fn -> send_timer_event).  The handler runs the due
 * timers and re-arms: the tick's exits (kc_timer_exits).
 */
static void
timer_irq(struct gcpu *c)
{
	struct gkernel *k = c->k;

	c->timer_pending = 0;
	k->st.timer_irqs++;
	kc_timer_exits(c);
	gt_run(k->timers, c->idx, c->v);
}

/* A guest timer came due on cpu (gtimer.c): Linux kernel/time/hrtimer.c
 * hrtimer_interrupt for a hrtimer; a wheel timer waits for the running tick
 * (run_local_timers); a deferrable one never wakes an idle CPU (the
 * TIMER_DEFERRABLE comment in include/linux/timer.h: it runs when the CPU
 * next wakes for something else). */
static void
timer_raise(void *ctx, int cpu, int kind)
{
	struct gkernel *k = ctx;
	struct gcpu *c = &k->cpus[cpu];
	int ticking;

	tick_sync(c);	/* the next tick runs the due wheel timers */
	ticking = c->tick_ev != EVQ_NONE || c->tick_ghost >= 0;

	if (c->finished || (kind != GT_HRTIMER && ticking) ||
	    (kind == GT_DEFERRABLE && (c->idle || c->sleeping)))
		return;
	c->timer_pending = 1;
	guest_interrupt(c->v);
}

/*
 * Off its pCPU (neither halted nor polling), the vCPU takes this tick's
 * interrupt when it next runs (guest_run's deliver), and every tick until
 * then finds it pending and changes nothing but its own re-arming (LNX-6.6
 * arch/x86/kvm/lapic.c apic_timer_expired returns while one is pending):
 * those keep their places in the event order as ghosts
 * (engine.h sim_ghost), woken into the real tick at the switch-in (cpu_entry).
 */
static int
tick_ghost(struct gcpu *c)
{
	struct gkernel *k = c->k;

	/* the vCPU off its pCPU first: most ticks find it on (and then quiet
	 * asked first below), the settings mostly pass */
	return guest_irq_deferred(c->v) && k->vm->hv->fast_forward && !c->finished &&
	    ksim(k)->now == c->tick_at && k->tick_ns > 0 &&
	    sim_ghost(ksim(k), sim_ns(k->tick_ns), &c->tick_ghost);
}

/*
 * Lazy ticks.  A tick on a vCPU whose task spins without an end (a ticket
 * waiter on a host without PLE, interrupts on: guest.c guest_tick_quiet),
 * with tasks queued and no vCPU of its VM idle, runs scheduler_tick (Linux
 * kernel/time/tick-sched.c tick_sched_timer -> scheduler_tick: update_curr,
 * check_preempt_tick; trigger_load_balance, which finds no idle CPU to
 * kick; run_local_timers, none due) and changes nothing anyone reads until
 * the spin ends or something looks at the vCPU: the counts, the exit's
 * overhead (unevented: guest.c pre_unevented), the task's runtime and
 * need_resched.  So the ticks after such a tick keep their places in the
 * event order as ghosts (engine.h sim_ghost), and run, in order and with
 * the clock each had, when the state they read or write is next read or
 * changed (kc_tick_sync: the guest's entries, an enqueue or dequeue here or
 * of a task that last ran here, a wake here, a vCPU of the VM going idle, a
 * timer coming due, the run's end and the warm-up's); the pending one
 * becomes the real tick.  seed001-x5570 3x: 2/3 of the guest ticks are on
 * such spinners.  fast_forward: false, or a probe, runs them all
 * (tests/e2e_loopff.sh).
 */
static int
tick_quiet(const struct gcpu *c)
{
	const struct gkernel *k = c->k;
	const struct task *t = c->curr;

	return t != NULL && !t->compute && !t->slock_spinning && c->nqueued > 0 &&
	    c->nwake == 0 && k->nidle == 0 && guest_tick_quiet(c->v);
}

/* The ticks the lazy ghost stood for, those before its pending one, as
 * do_tick ran them (the quiet state is the same up to now); hv: whether
 * they count in the host's exits (not at the warm-up's end, where the host's
 * books were reset first: they counted before it). */
static void
tick_replay(struct gcpu *c, int hv)
{
	struct gkernel *k = c->k;
	sim_time_t per = sim_ns(k->tick_ns), next = sim_ghost_time(ksim(k), c->tick_ghost), t;
	uint64_t n = 0;
	double ns = 0;

	c->tick_lazy = 0;
	for (t = c->tick_at + per; t < next; t += per, n++) {
		k->st.ticks++;
		if (!hv_native(k->vm->hv))
			ns = timer_exits_ns(c, hv);
		account_at(c, cpu_clock_at(c, t));
		if (k->cfg.sched->tick_preempt(c, c->curr))
			c->need_resched = 1;
	}
	guest_tick_replay(c->v, next - per, ns, n);
	c->tick_at = next;
	sim_ghost_wake(ksim(k), c->tick_ghost, tick_ev, c, 0);
}

void
kc_tick_sync(struct gcpu *c)
{
	if (c->tick_lazy)
		tick_replay(c, 1);
}

void
kc_tick_sync_all(struct gkernel *k, int hv)
{
	int i;

	for (i = 0; i < k->ncpu; i++)
		if (k->cpus[i].tick_lazy)
			tick_replay(&k->cpus[i], hv);
}

static void
cpu_sync(struct vcpu *v)
{
	kc_tick_sync(cpu_of(v));
}

static void
tick_ev(void *s, void *arg, int64_t data)
{
	struct gcpu *c = arg;
	struct gkernel *k = c->k;
	int lazy = 0;

	c->tick_ev = EVQ_NONE;
	/* the ghost takes the place tick_arm's push would take */
	if (!tick_ghost(c) && !(lazy = tick_quiet(c) && k->vm->hv->fast_forward &&
	    k->vm->hv->probe == NULL && !c->finished && k->tick_ns > 0 &&
	    sim_ghost(ksim(k), sim_ns(k->tick_ns), &c->tick_ghost)))
		tick_arm(c);
	c->tick_pending = 1;
	guest_interrupt(c->v);	/* the LAPIC timer; taken when the vCPU runs guest code */
	if (!lazy)
		return;
	if (tick_quiet(c) && !c->tick_pending) {
		c->tick_lazy = 1;
		guest_tick_lazy(c->v);
	} else {
		c->tick_at = sim_ghost_time(ksim(k), c->tick_ghost);	/* a real tick after all */
		sim_ghost_wake(ksim(k), c->tick_ghost, tick_ev, c, 0);
	}
}

/* try_to_wake_up() on the vCPU chosen: queue t there, make that vCPU look. */
void
kc_wake_on(struct gkernel *k, struct task *t, int cpu, int waker, int flags)
{
	struct gcpu *c;
	int was;

	VS_ASSERT(t->state == T_BLOCKED && gk_task_allowed(t, cpu));
	c = &k->cpus[cpu];
	tick_sync(c);	/* need_resched read before the enqueue */
	k->st.wakeups++;
	t->woken_at = ksim(k)->now;
	was = c->need_resched;
	enqueue(c, t, flags);
	if (c->idle && waker == cpu) {
		c->need_resched = 1;	/* from this idle vCPU's own interrupt: no IPI */
	} else if (c->idle) {
		send_ipi(k, waker, c);
	} else if (c->curr != NULL && !was && (k->cfg.sched->wakeup_preempt(c, c->curr, t) ||
	    c->need_resched)) {
		/* the policy's wakeup_preempt, or its update_curr in the enqueue
		 * (EEVDF: a used slice; LNX-6.12 update_curr -> resched_curr);
		 * none once one is pending (LNX-3.2 kernel/sched_fair.c
		 * check_preempt_wakeup and sched.c resched_task return while
		 * test_tsk_need_resched) */
		c->need_resched = 1;	/* resched_task */
		if (waker != cpu) {
			k->st.preempt_ipis += waker >= 0;	/* from an interrupt: no sender */
			send_ipi(k, waker, c);
		}
	} else if (waker < 0)
		guest_interrupt(c->v);	/* the device interrupt itself */
}

/* try_to_wake_up(): choose a vCPU (select_task_rq), then kc_wake_on. */
static void
wake(struct gkernel *k, struct task *t, int waker, int flags)
{
	kc_wake_on(k, t, k->cfg.sched->select_cpu(k, t, waker, flags), waker, flags);
}

/* A wake from the task current on c (futex_wake, a mutex's handoff, fork,
 * exit's parent): with the scheduler's locks, into c's wake_q (Linux 4.2+
 * wake_q_add), done under the locks at c's next preemption point or
 * schedule (wake_up_q after the caller's own lock is dropped). */
static void
wake_task(struct gcpu *c, struct task *t, int flags)
{
	if (!c->k->cfg.sched_locks) {
		wake(c->k, t, c->idx, flags);
		return;
	}
	t->wake_flags = flags;
	TAILQ_INSERT_TAIL(&c->wake_q, t, wait_link);	/* off every wait queue now */
	c->nwake++;
	t->pi_refs++;
}

void
gk_start(struct gkernel *k, guest_fn first)
{
	int i;

	k->first = first;
	k->irq_exit_ns = irq_exit_ns(k->vm->hv);
	k->pv_timer = kind_op_ipi_path(k->vm->hv->kind, k->vm->hv).pv_timer;
	for (i = 0; i < k->ntasks; i++) {
		struct task *t = k->tasks[i];
		int cpu = k->cfg.sched->select_cpu(k, t, 0, GS_FORK);

		enqueue(&k->cpus[cpu], t, GS_FORK);
	}
	for (i = 0; i < k->ncpu; i++) {
		struct gcpu *c = &k->cpus[i];

		if (k->cfg.random_phase && k->tick_ns > 0)
			c->tick_phase = (sim_time_t)(rng_uniform(c->v->rng) * k->tick_ns);
		if (c->nqueued == 0 && k->allowed_live[i] == 0 && !k->cfg.can_spawn) {
			c->finished = 1;
			guest_finish(c->v);
			continue;
		}
		tick_arm(c);
		guest_begin(c->v, idle_woken);
	}
	if (k->cfg.timers) {
		sim_time_t *ph = xcalloc((size_t)k->ncpu, sizeof *ph);

		for (i = 0; i < k->ncpu; i++)
			ph[i] = k->cpus[i].tick_phase;
		gt_services_start(k->timers, ph);
		free(ph);
	}
}

void
gk_finish(struct gkernel *k)
{
	int i;

	kc_tick_sync_all(k, 1);
	for (i = 0; i < k->ncpu; i++)
		if (k->cpus[i].idle && !k->cpus[i].finished) {
			k->st.idle_ns += (double)(ksim(k)->now - k->cpus[i].idle_since);
			k->cpus[i].idle_since = ksim(k)->now;
		}
}

void
gk_stats_reset(struct gkernel *k)
{
	struct hist *wl = k->st.wake_lat, *iw = k->st.ipi_wait;
	int i;

	kc_tick_sync_all(k, 0);	/* (run.c warmup_end reset the host's books first) */
	gk_finish(k);
	memset(&k->st, 0, sizeof k->st);
	hist_reset(wl);
	hist_reset(iw);
	gt_stats_reset(k->timers);
	k->st.wake_lat = wl;
	k->st.ipi_wait = iw;
	for (i = 0; i < k->ncpu; i++)
		if (k->cpus[i].rq_lock != NULL)
			lock_stats_reset(k->cpus[i].rq_lock);
	for (i = 0; i < k->ntasks; i++)
		if (k->tasks[i]->pi_lock != NULL)
			lock_stats_reset(k->tasks[i]->pi_lock);
	if (k->pi_gone != NULL)
		memset(k->pi_gone, 0, k->cap_pi_gone * sizeof *k->pi_gone);
}

struct task *
gk_current(struct vcpu *v)
{
	return cpu_of(v)->curr;
}

/* gk_preempt_point's switch, out of line: the check is on every step. */
static __attribute__((noinline)) int
preempt_now(struct gcpu *c, struct task *t, guest_fn resume)
{
	if (c->nqueued == 0) {
		c->need_resched = 0;
		return 0;
	}
	account(c);
	t->rem = 0;
	t->mem = 0;
	t->cont = resume;
	c->curr = NULL;
	c->load -= t->weight;
	enqueue(c, t, 0);
	owner_off(c->k, t);
	kc_schedule_from(c, t);
	return 1;
}

/* Linux 3.2 include/linux/preempt.h preempt_check_resched: gk_preempt_point's
 * case with a wake or a reschedule due (kernel.h) */
int
gk_preempt_check(struct vcpu *v, guest_fn resume)
{
	struct gcpu *c = cpu_of(v);
	struct task *t = c->curr;

	t->compute = 0;
	if (__builtin_expect(c->nwake > 0, 0))
		return ks_wakes(c, resume);
	if (!c->need_resched || t->preempt_count > 0 || kernel_code(c->k, t))
		return 0;
	return preempt_now(c, t, resume);
}

/* Linux 3.2 include/linux/kernel.h might_resched (CONFIG_PREEMPT_VOLUNTARY):
 * might_sleep's _cond_resched, which mutex_lock, down_read and down_write
 * call first; elsewhere (no sleeping lock held) the primitive's own
 * preemption point has decided already. */
int
gk_might_resched(struct vcpu *v, guest_fn resume)
{
	struct gcpu *c = cpu_of(v);
	struct task *t = c->curr;

	if (c->k->cfg.preempt != GK_PREEMPT_VOLUNTARY || !c->need_resched ||
	    t->preempt_count > 0 || t->slocks_held == 0)
		return 0;
	return preempt_now(c, t, resume);
}

int
gk_preempt_due(struct vcpu *v, int enable)
{
	struct gcpu *c = cpu_of(v);

	return c->nwake > 0 || (c->need_resched && c->curr->preempt_count - enable <= 0 &&
	    c->nqueued > 0 && !kernel_code(c->k, c->curr));
}

void
gk_compute_mark(struct vcpu *v)
{
	struct task *t = cpu_of(v)->curr;

	t->compute = t->preempt_count == 0;
}

void
gk_compute(struct vcpu *v, double ns, guest_fn done)
{
	gk_compute_mark(v);
	guest_work(v, ns, done);
}

void
gk_memory(struct vcpu *v, double bytes, guest_fn done)
{
	struct task *t = cpu_of(v)->curr;

	t->compute = t->preempt_count == 0;
	guest_memory(v, bytes, done);
}

void
gk_busy_until(struct vcpu *v, sim_time_t until, guest_fn done)
{
	struct task *t = cpu_of(v)->curr;

	t->compute = t->preempt_count == 0;
	guest_busy_until(v, until, done);
}

/* v's kernel state in a snapshot of a periodic run (ring_ff.c): its CPU,
 * its current task and the kernel's counters, every field as it is (a
 * cycle of lock hand-overs changes only preempt_count and compute, and
 * back), and the scheduler's locks there (sched_locks); 0: one it cannot
 * list. */
int
gk_ffs(struct ffs *s, struct vcpu *v)
{
	struct gcpu *c = cpu_of(v);

	ffs_bytes(s, c, sizeof *c);
	if (c->curr != NULL) {
		ffs_bytes(s, c->curr, sizeof *c->curr);
		if (c->curr->pi_lock != NULL && !lock_ffs(s, c->curr->pi_lock))
			return 0;
	}
	if (c->rq_lock != NULL && !lock_ffs(s, c->rq_lock))
		return 0;
	ffs_bytes(s, &c->k->st, sizeof c->k->st);
	ffs_value(s, c->k->live);
	ffs_value(s, c->k->nidle);
	return 1;
}

void gk_preempt_disable(struct vcpu *v) { cpu_of(v)->curr->preempt_count++; }

void
gk_preempt_enable(struct vcpu *v)
{
	struct task *t = cpu_of(v)->curr;

	VS_ASSERT(t->preempt_count > 0);
	t->preempt_count--;
}

/* The current task leaves its vCPU (blocked or dead); the vCPU runs the next. */
static void
leave_cpu(struct gcpu *c, enum task_state st)
{
	struct task *t = c->curr;

	account(c);
	t->compute = 0;
	t->state = st;
	c->curr = NULL;
	c->load -= t->weight;
	if (c->k->cfg.sched->sleep != NULL)
		c->k->cfg.sched->sleep(c, t, st == T_DEAD);
	owner_off(c->k, t);
	kc_schedule_from(c, t);
}

/* Linux kernel/time/hrtimer.c hrtimer_wakeup: the sleeper's hrtimer fired
 * on v, whose interrupt handler wakes it */
static void
task_timer_fn(struct gtimer *tm, struct vcpu *v)
{
	struct task *t = tm->arg;

	wake(t->k, t, cpu_of(v)->idx, GS_WAKE);
}

void
gk_block_for(struct vcpu *v, double ns, guest_fn resume)
{
	struct gcpu *c = cpu_of(v);
	struct task *t = c->curr;

	t->cont = resume;
	/* hrtimer_nanosleep: a hrtimer on this vCPU (the sleeper's, not pinned,
	 * stays where it was armed: the CPU was busy) */
	gt_arm(&t->timer, c->idx, ksim(c->k)->now + sim_ns(ns));
	leave_cpu(c, T_BLOCKED);
}

/* tick_nohz_idle_exit: the sleep is over, the tick runs again. */
static void
sleep_end(struct vcpu *v)
{
	struct gcpu *c = cpu_of(v);
	guest_fn done = c->sleep_done;

	c->sleeping = 0;
	c->sleep_done = NULL;
	if (c->k->cfg.tickless)
		tick_arm(c);
	done(v);
}

/*
 * The per-vCPU form's thread never leaves its vCPU, so its sleep is the
 * vCPU's idle (Linux kernel/sched/idle.c do_idle): the tick stops as in
 * kc_go_idle (tick_nohz_idle_stop_tick, not while a timer is due), a deferrable
 * timer does not wake it, and the HLT takes interrupts (guest_sleep).
 */
void
gk_sleep(struct vcpu *v, double ns, guest_fn done)
{
	struct gcpu *c = cpu_of(v);
	struct gkernel *k = c->k;

	c->sleeping = 1;
	c->sleep_done = done;
	if (k->cfg.tickless && gt_ndue(k->timers, c->idx) == 0)
		tick_stop(c);
	guest_sleep(v, ns, sleep_end);
}

struct task *
gk_block(struct vcpu *v, guest_fn resume)
{
	struct gcpu *c = cpu_of(v);
	struct task *t = c->curr;

	t->cont = resume;
	leave_cpu(c, T_BLOCKED);
	return t;
}

void
gk_wake(struct vcpu *waker, struct task *t)
{
	if (waker != NULL)
		wake_task(cpu_of(waker), t, GS_WAKE);
	else
		wake(t->k, t, -1, GS_WAKE);
}

void
gk_wake_irq(struct task *t)
{
	wake(t->k, t, -1, GS_WAKE);
}

void
gk_exit(struct vcpu *v)
{
	struct gcpu *c = cpu_of(v);
	struct gkernel *k = c->k;
	struct task *t = c->curr, *p = t->parent;
	int i;

	VS_ASSERT(t->preempt_count == 0 && t->children == 0);
	k->live--;
	if (t->only >= 0)
		k->allowed_live[t->only]--;
	else
		for (i = 0; i < k->ncpu; i++)
			k->allowed_live[i] -= gk_task_allowed(t, i);
	if (k->cfg.task_exit != NULL)
		k->cfg.task_exit(t);
	t->th = NULL;
	if (p != NULL) {
		int waiting = p->state == T_BLOCKED && p->waiting_children >= 0, woke = 0;

		p->children--;
		if (waiting && p->children <= p->waiting_children) {
			p->waiting_children = -1;
			wake_task(c, p, GS_WAKE);
			woke = 1;
		}
		/* LNX-6.6 kernel/signal.c do_notify_parent: SIGCHLD's
		 * signal_wake_up, then __wake_up_parent if it waits in wait4:
		 * each a try_to_wake_up of the parent under its p->pi_lock; those
		 * that do not wake it find it awake or not waiting */
		for (i = woke; k->cfg.sched_locks && i < 1 + waiting; i++)
			ks_touch(c, p);
	}
	leave_cpu(c, T_DEAD);
	if (k->cfg.sched_locks)
		ks_pi_put(k, t);
}

struct task *
gk_spawn(struct vcpu *v, void *th)
{
	struct gcpu *c = cpu_of(v);
	struct gkernel *k = c->k;
	struct task *t = gk_task_new(k, th, c->curr->aff, c->curr->only, 0, c->curr);

	t->weight = c->curr->weight;
	k->st.spawned++;
	/* Linux 3.2 wake_up_new_task: select_task_rq(SD_BALANCE_FORK), then check_preempt */
	wake_task(c, t, GS_FORK);
	return t;
}

/*
 * sched_exec's move of c's task to dest (LNX-6.6 kernel/sched/core.c
 * sched_exec -> stop_one_cpu(migration_cpu_stop)): the task sleeps until
 * the stopper has run; it finds the task off the run queue and sets
 * p->wake_cpu = dest, and its complete() wakes it, select_task_rq starting
 * from dest (here prev_cpu).  The stopper's switches and its own pi/rq
 * section are left out.
 */
void
kc_exec_migrate(struct gcpu *c, int dest, guest_fn resume)
{
	struct gkernel *k = c->k;
	struct task *t = c->curr;

	t->cont = resume;
	account(c);
	t->compute = 0;
	t->state = T_BLOCKED;
	c->curr = NULL;
	c->load -= t->weight;
	if (k->cfg.sched->sleep != NULL)
		k->cfg.sched->sleep(c, t, 0);
	owner_off(k, t);
	t->prev_cpu = dest;	/* p->wake_cpu: so the switch there counts no move ... */
	k->st.migrations++;	/* ... counted here */
	if (k->cfg.sched_locks)
		wake_task(c, t, GS_WAKE);	/* with c's wakes, before its schedule */
	else
		wake(k, t, c->idx, GS_WAKE);
	kc_schedule_from(c, t);
}

/* fs/exec.c bprm_execve -> sched_exec (LNX-6.6 kernel/sched/core.c):
 * select_task_rq(WF_EXEC), SD_BALANCE_EXEC's idlest CPU as a fork's; with
 * the scheduler's locks under current's p->pi_lock (ks_exec). */
int
gk_exec(struct vcpu *v, guest_fn resume)
{
	struct gcpu *c = cpu_of(v);
	struct gkernel *k = c->k;
	int dest;

	VS_ASSERT(c->curr->preempt_count == 0);
	if (k->cfg.sched_locks)
		return ks_exec(c, resume);
	dest = k->cfg.sched->select_cpu(k, c->curr, c->idx, GS_FORK);
	if (dest == c->idx)
		return 0;
	kc_exec_migrate(c, dest, resume);
	return 1;
}

int
gk_wait_children(struct vcpu *v, int max, guest_fn resume)
{
	struct gcpu *c = cpu_of(v);
	struct task *t = c->curr;

	if (t->children <= max)
		return 0;
	t->waiting_children = max;
	t->cont = resume;
	leave_cpu(c, T_BLOCKED);
	return 1;
}

void
gk_waitq_init(struct gk_waitq *q)
{
	TAILQ_INIT(&q->q);
	q->tokens = 0;
	q->nwait = 0;
}

int
gk_wait(struct vcpu *v, struct gk_waitq *q, guest_fn resume)
{
	struct gcpu *c = cpu_of(v);
	struct task *t = c->curr;

	if (q->tokens > 0) {
		q->tokens--;
		return 0;
	}
	t->cont = resume;
	TAILQ_INSERT_TAIL(&q->q, t, wait_link);
	q->nwait++;
	leave_cpu(c, T_BLOCKED);
	return 1;
}

void
gk_post(struct vcpu *v, struct gk_waitq *q, int64_t n, int broadcast, int sync)
{
	struct gcpu *c = cpu_of(v);

	while ((broadcast || n > 0) && !TAILQ_EMPTY(&q->q)) {
		struct task *t = TAILQ_FIRST(&q->q);

		TAILQ_REMOVE(&q->q, t, wait_link);
		q->nwait--;
		n--;
		wake_task(c, t, GS_WAKE | (sync ? GS_SYNC : 0));	/* __wake_up_sync_key */
	}
	if (!broadcast && n > 0)
		q->tokens += n;
}

/* Linux 3.2 sched_fair.c select_task_rq_fair: the idlest vCPU for a new task
 * (find_idlest_cpu); for a waking one its previous vCPU if idle, else an idle
 * one of the domain (select_idle_sibling), else the previous. */
int
gk_select_cpu(struct gkernel *k, struct task *t, int waker, int flags)
{
	int i, c, best = -1, target;

	if (t->only >= 0)
		return t->only;	/* what either scan below finds, without the scan */
	if (flags & GS_FORK) {
		unsigned long bl = 0;

		for (i = 0, c = waker > 0 ? waker : 0; i < k->ncpu; i++, c = next_cpu(k, c)) {
			if (gk_task_allowed(t, c) && (best < 0 || k->cpus[c].load < bl)) {
				best = c;
				bl = k->cpus[c].load;
			}
		}
		return best;
	}
	target = t->prev_cpu >= 0 && gk_task_allowed(t, t->prev_cpu) ? t->prev_cpu : -1;
	for (i = 0; target < 0 && i < k->ncpu; i++)
		if (gk_task_allowed(t, i))
			target = i;
	if (cpu_is_idle(&k->cpus[target]))
		return target;
	for (i = 1, c = next_cpu(k, target); i < k->ncpu; i++, c = next_cpu(k, c)) {
		if (gk_task_allowed(t, c) && cpu_is_idle(&k->cpus[c]) && !k->cpus[c].finished)
			return c;
	}
	return target;
}

/* Linux 3.2 sched_fair.c load_balance (CPU_NEWLY_IDLE): from the vCPU with the
 * most waiting tasks, one that may run on c (the queue's tail first). */
struct task *
gk_steal_busiest(struct gkernel *k, struct gcpu *c)
{
	int i, b, best = -1;
	struct task *t;

	for (i = 1, b = next_cpu(k, c->idx); i < k->ncpu; i++, b = next_cpu(k, b)) {
		if (k->cpus[b].nqueued > 0 && (best < 0 || k->cpus[b].nqueued > k->cpus[best].nqueued))
			TAILQ_FOREACH(t, &k->cpus[b].rq, rq_link)
				if (gk_task_allowed(t, c->idx) && !task_on_cpu(t)) {
					best = b;
					break;
				}
	}
	if (best < 0)
		return NULL;
	return balance_pick(&k->cpus[best].rq, c->idx);
}
