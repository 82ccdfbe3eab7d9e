/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hv.c - the hypervisor core (hv.h): vCPU runstates, the SCHEDULE
 * softirq and context switch, host ticks (skipped where the scheduler's
 * tick_next says they cannot act), wakes, yields and PV kicks; the policy
 * is reached only through struct sched_ops and struct hv_kind_ops.
 */
#include "hv/hv.h"

#include <stdlib.h>
#include <string.h>


static void unpark(struct vcpu *);

/* set_rs's report to a watching probe, out of line: an unwatched switch
 * computes none of its arguments (v's pCPU id), twice a switch */
static __attribute__((noinline)) void
probe_rs(const struct hv *hv, const struct vcpu *v, enum runstate rs)
{
	hv_probe(hv, PR_RUNSTATE, v->id, v->pcpu != NULL ? v->pcpu->id : -1, NULL, rs);
}

/* inline: twice at every switch */
static inline void
set_rs(struct hv *hv, struct vcpu *v, enum runstate rs)
{
	vcpu_set_runstate(v, rs, hv->sim->now);
	if (hv->probe != NULL)
		probe_rs(hv, v, rs);
}

/* The speed of work on a pCPU whose busiest sibling has load l (models/README.md, Machine). */
static double
load_rate(const struct hv *hv, enum hw_load l)
{
	switch (l) {
	case LOAD_BUSY:
		return 1.0 / hv->m->smt_busy_slowdown;
	case LOAD_SPIN:
		return 1.0 / hv->m->smt_spin_slowdown;
	default:
		return 1.0;
	}
}

/* hv->nowhere (hv.h) and its row of line costs, all local, beside it */
struct nowhere {
	struct pcpu p;
	double ns[HW_NDIST];
};

static struct pcpu *
nowhere_new(const struct machine *m)
{
	struct nowhere *n = xcalloc_line(1, sizeof *n);	/* (struct pcpu is) */
	int d;

	n->p.id = n->p.core = n->p.socket = -1;
	for (d = 0; d < HW_NDIST; d++)
		n->ns[d] = m->line_ns[HW_SAME];
	n->p.line_ns = n->ns;
	return &n->p;
}

void
hv_init(struct hv *hv, struct sim *sim, const struct machine *m,
    const struct sched_ops *sched, const struct hv_guest_ops *gops)
{
	int i;

	memset(hv, 0, sizeof *hv);
	hv->sim = sim;
	hv->gops = gops;
	hv->m = m;
	hv->sched = sched;
	hv->kind = &kind_none_ops;
	hv->npcpus = m->npcpus;
	hv->pcpus = xcalloc_line((size_t)hv->npcpus, sizeof *hv->pcpus);	/* (hv.h) */
	hv->mem_streamers = xcalloc((size_t)m->sockets, sizeof *hv->mem_streamers);
	for (i = 0; i < hv->npcpus; i++) {
		hv->pcpus[i].id = i;
		hv->pcpus[i].core = machine_core_of(m, i);
		hv->pcpus[i].socket = machine_socket_of(m, i);
		hv->pcpus[i].line_ns = m->line_ns;
		hv->pcpus[i].hv = hv;
		hv->pcpus[i].rate = 1.0;	/* every sibling idle */
		hv->pcpus[i].smt = m->threads_per_core > 1;
		if (m->threads_per_core == 2)	/* the core's other thread */
			hv->pcpus[i].sib = &hv->pcpus[machine_core_of(m, i) * 2 +
			    (machine_core_of(m, i) * 2 == i)];
		hv->pcpus[i].timer_at = SIM_NEVER;
		LIST_INIT(&hv->pcpus[i].parked);
	}
	for (i = LOAD_IDLE; i <= LOAD_BUSY; i++)
		hv->load_rate[i] = load_rate(hv, (enum hw_load)i);
	hv->nowhere = nowhere_new(m);
}

void
hv_destroy(struct hv *hv)
{
	int i;

	if (hv->sched != NULL && hv->sched_priv != NULL)
		sched_op_deinit(hv->sched, hv);
	if (hv->kind != NULL && hv->kind_priv != NULL)
		kind_op_deinit(hv->kind, hv);
	for (i = 0; i < hv->nvcpus; i++) {
		hv->gops->detach(hv->vcpus[i]);
		free(hv->vcpus[i]->own_affinity);
		free(hv->vcpus[i]);
	}
	for (i = 0; i < hv->nvms; i++) {
		free(hv->vms[i]->name);
		free(hv->vms[i]->affinity);
		free(hv->vms[i]->vcpus);
		free(hv->vms[i]);
	}
	free(hv->vcpus);
	free(hv->vms);
	free(hv->pcpus);
	free(hv->nowhere);	/* (its struct nowhere: p first) */
	free(hv->mem_streamers);
	memset(hv, 0, sizeof *hv);
}

struct vm *
hv_add_vm(struct hv *hv, const char *name, int nvcpus, const unsigned char *affinity,
    const char *where)
{
	struct vm *vm = xcalloc(1, sizeof *vm);
	int i;

	vm->hv = hv;
	vm->id = hv->nvms;
	vm->name = xstrdup(name);
	vm->where = where;
	vm->nvcpus = nvcpus;
	vm->cg.weight = 100;	/* cgroup v2 CGROUP_WEIGHT_DFL */
	vm->cg.quota = -1;	/* cpu.max "max 100000" */
	vm->cg.period = 100000000;
	vm->vcpus = xcalloc((size_t)nvcpus, sizeof *vm->vcpus);
	/* one array for all its vCPUs (xl's per-domain cpus=): N vCPUs of N
	 * pCPUs would otherwise fill N^2 bytes at start-up */
	vm->affinity = xmalloc((size_t)hv->npcpus);
	if (affinity != NULL)
		memcpy(vm->affinity, affinity, (size_t)hv->npcpus);
	else
		memset(vm->affinity, 1, (size_t)hv->npcpus);
	hv->vms = xrealloc(hv->vms, (size_t)(hv->nvms + 1) * sizeof *hv->vms);
	hv->vms[hv->nvms++] = vm;
	hv->vcpus = xrealloc(hv->vcpus, (size_t)(hv->nvcpus + nvcpus) * sizeof *hv->vcpus);
	for (i = 0; i < nvcpus; i++) {
		struct vcpu *v = xcalloc_line(1, sizeof *v);	/* (vcpu.h: line 1) */

		v->id = hv->nvcpus;
		v->idx = i;
		v->vm = vm;
		v->rs = RS_OFFLINE;
		v->last_pcpu = -1;
		v->processor = -1;
		v->affinity = vm->affinity;
		vm->vcpus[i] = v;
		hv->vcpus[hv->nvcpus++] = v;
		hv->gops->attach(v);
	}
	return vm;
}

unsigned char *
hv_vcpu_affinity(struct vcpu *v)
{
	if (v->own_affinity == NULL) {
		v->own_affinity = xmalloc((size_t)v->vm->hv->npcpus);
		memcpy(v->own_affinity, v->vm->affinity, (size_t)v->vm->hv->npcpus);
		v->affinity = v->own_affinity;
	}
	return v->own_affinity;
}

static void hv_schedule_ev(void *s, void *arg, int64_t data);
static void hv_tick_ev(void *s, void *arg, int64_t data);

int
hv_start(struct hv *hv, const void *cfg, struct vs_err *err)
{
	int i;

	/* Every vCPU starts runnable: its guest has work to do. */
	for (i = 0; i < hv->nvcpus; i++)
		set_rs(hv, hv->vcpus[i], RS_RUNNABLE);
	if (hv->sched->init(hv, cfg, err))
		return -1;
	VS_ASSERT(!hv->tick_skip || hv->sched->tick_next != NULL);
	hv->tick_lane = hv->tick_ns > 0 ? sim_lane(hv->sim, hv->tick_ns) : -1;
	for (i = 0; i < hv->npcpus; i++) {
		hv_resched(&hv->pcpus[i], 0);
		/*
		 * Ticks are staggered across pCPUs (as Linux's skew_tick, and as Xen's
		 * per-pCPU tickers started at bring-up): perfectly aligned ticks in a
		 * model without interrupt jitter put whole VMs in lockstep.
		 */
		if (sched_op_has_tick(hv->sched) && hv->tick_ns > 0) {
			struct pcpu *p = &hv->pcpus[i];

			p->tick_at = hv->sim->now + hv->tick_ns + hv->tick_ns * i / hv->npcpus;
			p->tick_base = p->tick_at;
			p->tick_ev = hv->tick_skip ?
			    sim_at_early(hv->sim, p->tick_at, hv_tick_ev, p, 0) :
			    sim_at(hv->sim, p->tick_at, hv_tick_ev, p, 0);
		}
	}
	return 0;
}

void
hv_finish(struct hv *hv)
{
	int i;

	hv_probe(hv, PR_END, 0, -1, NULL, 0);
	for (i = 0; i < hv->nvcpus; i++)
		vcpu_account(hv->vcpus[i], hv->sim->now);
	for (i = 0; i < hv->npcpus; i++) {
		struct pcpu *p = &hv->pcpus[i];

		if (p->curr != NULL) {
			p->busy_time += hv->sim->now - p->busy_since;
			p->busy_since = hv->sim->now;
		}
		hv_idle_finish(hv, p);
		/* the grid's points up to the end (later ones were never due) less
		 * those that ran: every tick runs on the grid (hv_tick_ev) */
		if (hv->tick_skip)
			hv->st.ticks_skipped += (uint64_t)((hv_tick_last(p, hv->sim->now) -
			    p->tick_base) / hv->tick_ns + 1) - p->ticks_ran;
	}
}

void
hv_stats_reset(struct hv *hv)
{
	uint64_t skipped = hv->st.ticks_skipped;
	int i;

	memset(&hv->st, 0, sizeof hv->st);
	hv->st.ticks_skipped = skipped;
	for (i = 0; i < hv->nvcpus; i++)
		vcpu_rs_rebase(hv->vcpus[i], hv->sim->now);
	for (i = 0; i < hv->npcpus; i++)
		hv_idle_rebase(hv, &hv->pcpus[i]);
	kind_op_stats_reset(hv->kind, hv);
	hv->stats_from = hv->sim->now;
}

sim_time_t
hv_measured_ns(const struct hv *hv)
{
	return hv->sim->now - hv->stats_from;
}

/* hv_resched with a delay, or with one pending later (at > now): out of
 * line, so that the common raise for now saves no registers */
static __attribute__((noinline)) void
resched_later(struct pcpu *p, sim_time_t delay)
{
	struct sim *s = p->hv->sim;
	sim_time_t at = s->now + delay;

	if (p->sched_ev != EVQ_NONE) {
		if (p->sched_at <= at)
			return;
		sim_cancel(s, &p->sched_ev);
	}
	p->sched_at = at;
	if (delay == 0) {
		p->sched_now = 1;
		sim_defer(s, hv_schedule_ev, p, 0);
		return;
	}
	p->sched_ev = sim_at(s, at, hv_schedule_ev, p, 0);
}

void
hv_resched(struct pcpu *p, sim_time_t delay)
{
	struct sim *s = p->hv->sim;

	if (p->sched_now)
		return;		/* one for now is pending: at >= now */
	if (delay != 0 || p->sched_ev != EVQ_NONE) {
		resched_later(p, delay);
		return;
	}
	/* raised for now (a yield, a block, a tick's or a wake's preemption):
	 * usually nothing else is due at now, and it runs as soon as the
	 * event raising it ends, without a push and a pop (sim_defer) */
	p->sched_at = s->now;
	p->sched_now = 1;
	sim_defer(s, hv_schedule_ev, p, 0);
}

/* Xen 4.2 schedule.c: cpu_raise_softirq; a remote pCPU needs an IPI */
void
hv_tickle(struct hv *hv, struct pcpu *p)
{
	hv_resched(p, p->curr == NULL ? sim_ns(hv->m->wake_ipi_ns) : 0);
}

static enum hw_load
sibling_load(const struct hv *hv, int id)
{
	/* the core's first thread from the precomputed core ids: no divide */
	int tpc = hv->m->threads_per_core, base = machine_core_of(hv->m, id) * tpc, i;
	enum hw_load l = LOAD_IDLE;

	if (tpc == 1)
		return LOAD_IDLE;	/* no SMT: no sibling */
	for (i = base; i < base + tpc; i++)
		if (i != id && hv->pcpus[i].load > l)
			l = hv->pcpus[i].load;
	return l;
}

static double
sibling_rate(const struct hv *hv, int id)
{
	return hv->load_rate[sibling_load(hv, id)];
}

void
hv_set_pcpu_load(struct pcpu *p, enum hw_load load)
{
	struct hv *hv = p->hv;
	struct pcpu *s = p->sib;
	int tpc, base, i;

	if (p->load == load)
		return;
	p->load = load;
	if (!p->smt)
		return;		/* no sibling to slow down (its core's division spared) */
	if (s != NULL) {
		/* two threads a core, the usual SMT: one sibling, whose only
		 * sibling is p; its rate from the table, no divide */
		s->rate = hv->load_rate[load];
		if (s->curr != NULL)
			hv->gops->rerate(s->curr);
		return;
	}
	/* hv_rate is read at every work segment, so it is kept per pCPU and
	 * recomputed here, where it changes: every sibling's first, as a
	 * rerate below may read any of them */
	tpc = hv->m->threads_per_core;
	base = machine_core_of(hv->m, p->id) * tpc;
	for (i = base; i < base + tpc; i++)
		if (i != p->id)
			hv->pcpus[i].rate = sibling_rate(hv, i);
	for (i = base; i < base + tpc; i++)
		if (i != p->id && hv->pcpus[i].curr != NULL)
			hv->gops->rerate(hv->pcpus[i].curr);
}

/* The first tick on the grid at or after t, from a grid point at before t. */
static inline sim_time_t
tick_ceil(sim_time_t at, sim_time_t t, sim_time_t per)
{
	return at + (t - at + per - 1) / per * per;
}

/* sched_ops.tick_next, or its answer as the policy told it with a change
 * inside this schedule() (due: hv_tick_soon_at) */
static inline sim_time_t
tick_next_of(struct pcpu *p, int due)
{
	struct hv *hv = p->hv;

	if (due && p->tick_hint != 0) {
		VS_ASSERT(hv->check < 3 || p->tick_hint == sched_op_tick_next(hv->sched, hv, p));
		return p->tick_hint;
	}
	return sched_op_tick_next(hv->sched, hv, p);
}

/*
 * After schedule() the next tick, held by a tick that rescheduled (tick_next:
 * it may act while a reschedule is pending), pulled back by a change inside
 * schedule() (hv_tick_soon) or already the next one on the grid, goes where
 * hv_tick_ev would arm it after running that next tick: at the first tick
 * that may act.  tick_next reads the state that tick would read (any change
 * until then pulls it back), so the ticks skipped are ones that would change
 * nothing.  A tick already armed earlier than that is left there: it runs
 * and changes nothing, where moving it out at every switch cost more (a PLE
 * storm switches every few us: seed001-x7560 3x moved it at 1.87 M of 2.53 M
 * schedules per 20 s).  Host ticks are the only early events and never tie:
 * their keys order nothing.
 *
 * tick_at is on the grid (hv_tick_ev, tick_sync), so whether the pending
 * tick moves is two comparisons: the first grid point after now is before
 * it only when now is more than a period before it, and the first one at or
 * after tick_next only when tick_next is at most tick_at - per.  The floor
 * and ceiling divisions (2 of them at 2.1 M of 2.5 M schedules per 20 s of
 * seed001-x7560 3x, 64-bit divides that cost time, not instructions) run
 * only for a move (5.5 k).  tick_next is not asked where the policy told
 * its answer with the change (hv_tick_soon_at; --check=full asks anyway and
 * compares).
 */
static void
tick_recheck(struct pcpu *p, sim_time_t now)
{
	struct hv *hv = p->hv;
	sim_time_t per = hv->tick_ns, at, next = 0;
	int due = p->tick_due;

	p->tick_due = 0;
	if (p->tick_held) {
		at = p->tick_at;	/* one period after the tick */
		if (hv->fast_forward && (next = tick_next_of(p, due)) > at)
			at = tick_ceil(at, next, per);
		p->tick_held = 0;
		p->tick_ev = sim_at_early(hv->sim, at, hv_tick_ev, p, 0);
		p->tick_at = at;
		return;
	}
	/* the usual switch (seed001-x7560 3x: 2.09 M of 2.53 M schedules per
	 * 20 s): its policy told tick_next, which is no earlier than the grid
	 * point before the pending tick, so the tests below would keep it.
	 * A hint of 0 (none told) never passes: tick_at is on the grid, at or
	 * after its first point tick_base >= per (hv_start), or 0 with no
	 * tick (and per 0) */
	if (due && hv->fast_forward && p->tick_hint > p->tick_at - per) {
		VS_ASSERT(hv->check < 3 || p->tick_hint == sched_op_tick_next(hv->sched, hv, p));
		return;
	}
	/* not pulled back, or already the next on the grid (the first tick
	 * when the grid has none before it): it can only stay */
	if (!due || p->tick_ev == EVQ_NONE || !hv->tick_skip || p->tick_at - now <= per ||
	    p->tick_at == p->tick_base)
		return;
	if (hv->fast_forward && (next = tick_next_of(p, 1)) > p->tick_at - per)
		return;	/* later: it stays, runs, changes nothing and re-arms (hv_tick_ev) */
	at = hv_tick_last(p, now) + per;
	if (at < p->tick_base)
		at = p->tick_base;	/* the grid starts at the first tick */
	if (next > at)
		at = tick_ceil(at, next, per);
	VS_ASSERT(at < p->tick_at);
	sim_move(hv->sim, &p->tick_ev, at, hv_tick_ev, p, 0);
	p->tick_at = at;
}

/* Xen 4.2 schedule.c: schedule() - pick next, switch, charge runstates */
static void
hv_schedule_ev(void *s, void *arg, int64_t data)
{
	struct pcpu *p = arg;
	struct hv *hv = p->hv;
	struct vcpu *prev = p->curr, *next;
	sim_time_t slice = 0, now = hv->sim->now;

	p->sched_ev = EVQ_NONE;
	p->sched_now = 0;
	if (prev == NULL && hv_idle_waking(hv, p))
		return;		/* leaving a C-state: schedule() runs after its exit latency */
	p->scheduling = 1;
	next = hv->sched->do_schedule(hv, p, &slice);
	p->scheduling = 0;
	tick_recheck(p, now);
	sim_cancel(hv->sim, &p->slice_ev);
	if (slice > 0)
		p->slice_ev = sim_at(hv->sim, now + slice, hv_schedule_ev, p, 0);
	/* slice_ev and sched_ev share the handler; only sched_ev is deduplicated. */
	/* every policy's pick is not blocked, and a new one runs nowhere else:
	 * asserted on the branches the switch takes anyway */
	if (next == prev) {
		if (next == NULL)
			hv_idle_enter(hv, p);	/* idle from the start */
		else {
			VS_ASSERT(!next->blocked);
			if (hv->gops->kept != NULL)
				hv->gops->kept(next);
		}
		return;
	}
	if (prev != NULL) {
		hv->gops->stop(prev);
		set_rs(hv, prev, prev->blocked ? RS_BLOCKED : RS_RUNNABLE);
		prev->pcpu = NULL;
		prev->last_pcpu = p->id;
		p->busy_time += now - p->busy_since;
	}
	p->curr = next;
	if (hv->check >= 3 && next != NULL) {
		int q;

		/* --check=full: a vCPU runs on one pCPU at a time */
		for (q = 0; q < hv->npcpus; q++)
			if (q != p->id && hv->pcpus[q].curr == next)
				vs_fatal("check: vCPU %d switched in on pCPU %d while current on pCPU %d",
				    next->id, p->id, q);
	}
	/* the kind's hooks of both sides at once (KVM's preempt notifiers):
	 * prev's after its books, next's before it runs */
	kind_op_sched_switch(hv->kind, hv, prev, next);
	if (next == NULL) {
		hv_pcpu_load(p, LOAD_IDLE);
		hv_idle_enter(hv, p);
		return;
	}
	VS_ASSERT(!next->blocked && next->pcpu == NULL);
	hv->st.ctx_switches++;
	next->pcpu = p;
	next->processor = p->id;
	next->ctx_in++;
	if (next->parked_on != NULL)
		unpark(next);
	p->busy_since = now;
	set_rs(hv, next, RS_RUNNING);
	hv_pcpu_load(p, LOAD_BUSY);
	hv->gops->run(next, hv->m->ctx_switch_ns);
}

/*
 * The host tick.  Where the scheduler can tell when its next tick may act
 * (sched_ops.tick_next), the ticks in between, which would change nothing but
 * what it brings up to date when it next looks (hv_tick_last), are not
 * simulated: the next tick is armed at the first one that may act, and
 * hv_tick_soon pulls it back when the pCPU's state changes.  Ticks are then
 * early events, so the slow path's tick at t, like a skipped one, comes
 * before everything else at t.
 */
static void
hv_tick_ev(void *s, void *arg, int64_t data)
{
	struct pcpu *p = arg;
	struct hv *hv = p->hv;
	sim_time_t now = hv->sim->now, per = hv->tick_ns, next;

	if (!hv->tick_skip) {
		p->tick_at = now + per;
		p->tick_ev = sim_after_lane(hv->sim, hv->tick_lane, per, hv_tick_ev, p, 0);
		sched_op_tick(hv->sched, hv, p);
		return;
	}
	p->tick_ev = EVQ_NONE;
	/* the skipped ones are counted at the end (hv_finish): no divide here */
	VS_ASSERT(hv->check < 3 || (now - p->tick_base) % per == 0);
	p->ticks_ran++;
	sched_op_tick(hv->sched, hv, p);
	p->tick_at = now + per;
	if (hv->fast_forward && p->sched_now && p->curr != NULL) {
		p->tick_held = 1;	/* its schedule, run now, arms the next (tick_recheck) */
		return;
	}
	/* Skipped even where the pCPU's state changed within the last tick
	 * (a switch): a change pulls the tick back (hv_tick_soon), a heap move,
	 * but most skips stand (seed001-x5570 3x: 11% fewer events, -7% CPU). */
	if (hv->fast_forward &&
	    (next = sched_op_tick_next(hv->sched, hv, p)) > p->tick_at) {
		p->tick_at = tick_ceil(now, next, per);
		p->tick_ev = sim_at_early(hv->sim, p->tick_at, hv_tick_ev, p, 0);
	} else
		p->tick_ev = sim_after_lane_early(hv->sim, hv->tick_lane, per, hv_tick_ev, p, 0);
}

sim_time_t
hv_tick_last(const struct pcpu *p, sim_time_t t)
{
	sim_time_t per = p->hv->tick_ns, d = t - p->tick_base;

	/* floor division: t may be before the base */
	return p->tick_base + (d >= 0 ? d / per : -((-d + per - 1) / per)) * per;
}

void
hv_tick_pull(struct pcpu *p)
{
	struct hv *hv = p->hv;
	sim_time_t next;

	if (!hv->tick_skip)
		return;
	/* in its own tick, which arms the next one after; or already the next one */
	if (p->tick_ev == EVQ_NONE || p->tick_at - hv->sim->now <= hv->tick_ns)
		return;
	next = hv_tick_last(p, hv->sim->now) + hv->tick_ns;
	if (next < p->tick_base)
		next = p->tick_base;	/* the grid starts at the first tick */
	if (next < p->tick_at) {
		p->tick_at = next;
		sim_move(hv->sim, &p->tick_ev, next, hv_tick_ev, p, 0);
	}
}

/* A vCPU switched in again takes its timer along (KVM vcpu_load ->
 * kvm_migrate_timers, Xen context_switch -> migrate_timer): it leaves the
 * pCPU it blocked on. */
static void
unpark(struct vcpu *v)
{
	struct pcpu *p = v->parked_on;
	struct vcpu *o;

	LIST_REMOVE(v, park_link);
	v->parked_on = NULL;
	p->timer_at = SIM_NEVER;
	LIST_FOREACH(o, &p->parked, park_link)
		if (o->park_at < p->timer_at)
			p->timer_at = o->park_at;
}

/* LNX-6.12 x86.c vcpu_block: a halting vCPU's LAPIC timer becomes a host
 * hrtimer on the pCPU it blocks on (kvm_lapic_switch_to_sw_timer; Xen keeps
 * a vCPU's timer on v->processor): that pCPU's next timer event, which its
 * idle governor sees (hv_idle.c; menu.c tick_nohz_get_sleep_length).  The
 * deadline is the one armed at the halt: a blocked vCPU arms no timer. */
static void
park(struct hv *hv, struct vcpu *v, struct pcpu *p)
{
	if (v->parked_on != NULL)
		unpark(v);
	if (hv->gops->next_timer == NULL || (v->park_at = hv->gops->next_timer(v)) == SIM_NEVER)
		return;
	v->parked_on = p;
	LIST_INSERT_HEAD(&p->parked, v, park_link);
	if (v->park_at < p->timer_at)
		p->timer_at = v->park_at;
}

void
hv_block(struct vcpu *v)
{
	struct hv *hv = v->vm->hv;

	VS_ASSERT(!v->blocked);
	v->blocked = 1;
	hv->st.blocks++;
	hv->sched->sleep(hv, v);
	if (v->pcpu != NULL) {
		park(hv, v, v->pcpu);
		hv_resched(v->pcpu, 0);
	}
	else
		set_rs(hv, v, RS_BLOCKED);
}

/* Xen 4.2 schedule.c: vcpu_wake; KVM kvm_vcpu_kick -> wake_up_interruptible */
void
hv_wake(struct vcpu *v)
{
	struct hv *hv = v->vm->hv;

	if (!v->blocked)
		return;
	v->blocked = 0;
	hv->st.wakes++;
	hv_probe(hv, PR_WAKE, v->id, v->pcpu != NULL ? v->pcpu->id : -1, NULL, 0);
	/* Still on its pCPU (the switch-out softirq has not run yet): keeps running. */
	if (v->pcpu == NULL)
		set_rs(hv, v, RS_RUNNABLE);
	hv->sched->wake(hv, v);
	kind_op_wake(hv->kind, hv, v);
	hv->gops->woken(v);
}

void
hv_yield(struct vcpu *v)
{
	struct hv *hv = v->vm->hv;

	hv->st.yields++;
	sched_op_yield(hv->sched, hv, v);
	if (v->pcpu != NULL)
		hv_resched(v->pcpu, 0);
}

/* hv_yield_to's count of its answer */
static inline int
yield_to_count(struct hv *hv, int r)
{
	if (r <= 0)
		hv->st.yield_to_fail++;
	else
		hv->st.yield_to_ok++;
	return r;
}

/* hv_yield_to with a watching probe, told of a success: out of line, so
 * that the unwatched yield (1.4 M per 20 s of seed001-x7560 3x) keeps
 * neither from nor to across the policy's call */
static __attribute__((noinline)) int
yield_to_probed(struct hv *hv, struct vcpu *from, struct vcpu *to)
{
	int r = sched_op_yield_to(hv->sched, hv, from, to);

	/* from's pCPU as the success left it (the report before the count, as before) */
	if (r > 0)
		hv_probe(hv, PR_YIELD_TO, from->id, from->pcpu != NULL ? from->pcpu->id : -1,
		    NULL, to->id);
	return yield_to_count(hv, r);
}

int
hv_yield_to(struct vcpu *from, struct vcpu *to)
{
	struct hv *hv = from->vm->hv;

	if (hv->probe != NULL)
		return yield_to_probed(hv, from, to);
	return yield_to_count(hv, sched_op_yield_to(hv->sched, hv, from, to));
}

void
hv_pv_kick(struct vcpu *from, struct vcpu *to)
{
	struct hv *hv = to->vm->hv;

	hv->gops->kick(to);
	kind_op_pv_kick(hv->kind, hv, from, to);
}

int
hv_pv_sched_yield(struct vcpu *from, struct vcpu *to)
{
	struct hv *hv = from->vm->hv;

	return kind_op_sched_yield(hv->kind, hv, from, to);
}
