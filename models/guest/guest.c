/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * guest.c - a vCPU's guest activities (guest.h): work, spin, memory
 * streams, halt and PLE exits, each advanced by one event at a time, kept
 * across preemption, and the hooks the hv core calls (hv_guest_ops).
 */
#include "guest/guest.h"

#include <stdlib.h>

#include "ffsnap.h"
#include "hv/hv.h"
#include "stats.h"

enum gact { GA_NONE, GA_WORK, GA_SPIN, GA_HALT, GA_DONE, GA_MEM, GA_POLL, GA_BUSY };
/* Which interrupts end a halt: none (halt() with interrupts off), the idle
 * loop's safe_halt, or a lock slow path's safe_halt (kvm_wait with irqs on). */
enum halt_irq { HI_OFF, HI_IDLE, HI_LOCK };

/* Hot fields first: the first line is what settle, arm and guest_ev read at
 * every event, the second what a spin, a poke and the workload read; with
 * thousands of vCPUs each event's vCPU is a cache miss, so fewer lines. */
struct guest {
	struct vcpu *v;
	struct sim *sim;	/* v->vm->hv->sim, kept here: settle reads it at every event */
	sim_time_t t0;		/* progress is settled up to here */
	double pre;		/* switch-in overhead still to pay (ns) */
	double rem;		/* work: nominal ns left; spin: budget ns left; mem: bytes */
	double rate;		/* work progress (mem: bytes) per ns, while running */
	guest_fn cont;		/* work done / spin budget spent / halt woken */
	evq_id ev;
	enum gact act;
	/* line 2 */
	void *wl;
	void *kcpu;		/* guest_set_kcpu */
	sim_time_t obs_at;	/* spin: when the poked change is seen; -1 none */
	double ple_left;	/* spin: time to a pause-loop exit (INFINITY: no PLE) */
	struct glock *lock;	/* spin: the lock watched */
	const struct guest_watch_ops *wops;	/* ... and what it answers */
	int spin_on;		/* the lock counts it among its spinners now */
	int ff;			/* v->vm->hv->fast_forward, kept here: guest_ev reads it */
	int fold;		/* its next event waits for the end of this one (ev_at) */
	int64_t fold_data;	/* ... with this data */
	sim_time_t fold_t;	/* ... at this time */
	uint64_t fold_key;	/* ... in this place of the order */
	struct glock *acquiring;	/* lock of the last acquire entered */
	sim_time_t pre_end;	/* pre's end, unevented (pre_unevented); else SIM_NEVER */
	guest_mid_fn seg_mid;	/* work: what runs at a second segment's start
				 * (guest_work_then), and gives its nominal ns */
	/* line 3's flags, bytes: with them a ticket acquisition's every field
	 * is in the three lines guest_prefetch loads (a poke reads cond, lazy) */
	unsigned char seg;	/* work: a second segment follows this one */
	unsigned char then_ok;	/* ... whose boundary may be taken at once (guest_tail_then) */
	unsigned char held;	/* fold: its event waits for its pCPU's schedule at now (guest_kept) */
	unsigned char cond;	/* spin: on a condition (guest_spin_wait), not a lock */
	unsigned char in_ple;	/* pre is a PLE exit being handled */
	unsigned char irq_pending;	/* an interrupt waits for the vCPU to take it */
	/* what is applied late (lazy_sync first): GL_TICKS, its ticks stand as
	 * a ghost (sync_hook, kernel.c); GL_PLE, a PLE exit's end (ple_in_push) */
	unsigned char lazy;
	/* the kind gives no vCPU a PLE window this run (kind_op_ple_off, asked
	 * at guest_begin; 0 before: spin_window asks the kind) */
	unsigned char ple_none;
	/* ... and no probe watches, the fast-forward on: what guest_spin's
	 * plain case needs of the run, asked once (guest_begin; 0 before) */
	unsigned char spin_fast;
	/* work_end_whole's run: GW_ENDED, the fast-forward on and the run's
	 * end below 2^53 ns, so is every step's clock; GW_FF, the
	 * fast-forward on, the clock to test; 0 (and before guest_begin):
	 * neither */
	unsigned char whole;
	/* colder */
	int irq_wakes;		/* halt: an interrupt ends it (enum halt_irq) */
	int irqs_off;		/* the kernel runs with interrupts disabled (guest_irqs_off) */
	double sw;		/* of pre, this switch-in's own cost still to pay (paid first) */
	int streaming;		/* mem: counted among its socket's streamers */
	int woken;		/* halt: woken, waiting for a pCPU */
	int kicked;		/* a kick came before the halt (KVM pv_unhalted) */
	int polling;		/* halted, but polling before it blocks */
	guest_fn irq_hook;	/* the kernel's interrupt entry (kernel.c) */
	guest_fn sync_hook;	/* the kernel runs the ticks its ghost stood for */
	guest_fn entry_hook;	/* the kernel's VM-entry work (ipi.c: a PV TLB flush) */
	guest_fn stop_hook;	/* the kernel hears the host took the pCPU (slock.c) */
	guest_time_fn timer_hook;	/* the kernel's next timer here (kernel.c) */
	guest_fn after_halt;	/* halt: what runs once woken */
	guest_fn sleep_done;	/* sleep: what runs once its timer ended it */
	int sleep_due;		/* ... its timer has come */
	guest_fn cond_seen;	/* ... and what runs once it is seen */
	evq_id poll_ev;
	int cond_met;		/* ... which was met while the vCPU was not running */
	int waited;		/* this halt really blocked */
	uint64_t ctx_in0;	/* ... and v->ctx_in when it did */
	sim_time_t halt_t0;	/* halt: when it began */
	sim_time_t poll_t0;	/* polling on a pCPU since */
	sim_time_t poll_stop;	/* the poll's deadline (KVM: start + halt_poll_ns) */
	double poll_ns;		/* pCPU time this halt spent polling */
	sim_time_t busy_until;	/* busy, guest poll: the wall-clock deadline */
	double gpolled_ns;	/* guest polls (guest_poll): pCPU time, all of them */
	int gpoll_irq;		/* the last guest poll ended by an interrupt */
	int ff_fault;		/* a test's deliberately broken loop fast-forward (guest_attach) */
	unsigned char ple_quiet;	/* kind_op_ple_done_quiet, asked once: 0 not yet, 1 no, 2 yes */
	sim_time_t late_t1;	/* GL_PLE: the exit's end (ple_in_late) ... */
	double late_rem;	/* ... rem as settle leaves it there, and ple_done's window
				 * as ple_end leaves it (less pre's rounding) */
	double late_w;
};

enum { GL_TICKS = 1, GL_PLE = 2 };
enum { GW_FF = 1, GW_ENDED = 2 };

/* EV_SEG: EV_ACT at a boundary of guest_work_then's, as it armed it (a
 * hint: an activity armed anew, arm's EV_ACT, takes guest_step's seg case).
 * EV_SEG_ANY: never queued; seg_ev hands an EV_SEG it does not take to
 * guest_ev's own path with it (guest_step's seg case, not seg_ev again). */
enum { EV_PRE, EV_ACT, EV_RESUME, EV_SEG, EV_SEG_ANY };

static void ple_sync(struct guest *);

/* Before the guest's state is read or changed from outside: what stands
 * applied late first (a PLE exit's end, ple_in_arm; the kernel's lazy
 * ticks, guest_tick_lazy). */
static inline void
lazy_sync(struct guest *g)
{
	if (__builtin_expect(g->lazy, 0)) {
		if (g->lazy & GL_PLE)
			ple_sync(g);
		if (g->lazy & GL_TICKS)
			g->sync_hook(g->v);
	}
}

static struct sim *
vsim(struct vcpu *v)
{
	return v->vm->hv->sim;
}

void
guest_attach(struct vcpu *v)
{
	/* line-aligned, so the hot fields above share one line */
	struct guest *g = xcalloc_line(1, sizeof *g);

	g->v = v;
	g->sim = vsim(v);
	g->ff = v->vm->hv->fast_forward;	/* set before the VMs are added (run.c) */
	g->obs_at = -1;
	g->pre_end = SIM_NEVER;
	/* tests/e2e_loopff.sh checks that a broken fast-forward is caught */
	g->ff_fault = getenv("VLOCKSIM_TEST_LOOPFF_FAULT") != NULL;
	v->g = g;
}

void
guest_detach(struct vcpu *v)
{
	free(v->g);
	v->g = NULL;
}

void *
guest_wl(struct vcpu *v)
{
	return v->g->wl;
}

void *
guest_kcpu(const struct vcpu *v)
{
	return v->g->kcpu;
}

void
guest_set_kcpu(struct vcpu *v, void *c)
{
	v->g->kcpu = c;
}

void
guest_set_wl(struct vcpu *v, void *wl)
{
	v->g->wl = wl;
}

/* A spin's budget (or PLE window) x, not GUEST_FOREVER, after el ns of it */
static inline double
spin_left(double x, double el)
{
	return x > el ? x - el : 0;
}

/* settle's charge of el ns to the activity, after the overhead's part */
static inline __attribute__((always_inline)) void
settle_act(struct guest *g, double el)
{
	if (g->act == GA_WORK || g->act == GA_MEM) {
		g->rem -= el * g->rate;
		if (g->rem < 0)
			g->rem = 0;
	} else if (g->act == GA_POLL) {
		g->gpolled_ns += el;	/* the deadline is wall time: nothing left to count */
	} else if (g->act == GA_SPIN) {
		if (g->rem != GUEST_FOREVER)
			g->rem = spin_left(g->rem, el);
		if (g->ple_left != GUEST_FOREVER)
			g->ple_left = spin_left(g->ple_left, el);
	}
}

static void overhead_end(struct guest *, double el);

/* settle's charge of el > 0 ns, on a pCPU. */
static inline __attribute__((always_inline)) void
settle_charge(struct guest *g, double el)
{
	if (g->pre > 0) {
		double d = el < g->pre ? el : g->pre;

		g->pre -= d;
		g->sw = g->sw > d ? g->sw - d : 0;
		el -= d;
		/* the charge that pays an overhead's last ns is a VM entry,
		 * whoever settles (its own event, or a look before it): on a
		 * host with PLE, a new PAUSE loop (overhead_end); without
		 * (ple_none), no exit to end, no window to restart */
		if (__builtin_expect(!g->ple_none, 0) && !(g->pre > 0)) {
			overhead_end(g, el);
			return;
		}
	}
	settle_act(g, el);
}

/* (out of line but in guest_step: the calls elsewhere stay small) */
static __attribute__((noinline)) void
settle_el(struct guest *g, double el)
{
	settle_charge(g, el);
}

/* The ns to charge since t0 (0: none, or off a pCPU, unless the caller
 * knows it is on one: on); t0 moves to now.  As
 * integers (el <= 0 exactly when now <= t0): a second settle in the same
 * event (guest_work after guest_ev) then needs neither a conversion nor a
 * load of the vCPU, nor a call. */
static inline sim_time_t
settle_take(struct guest *g, int on)
{
	sim_time_t now = g->sim->now, t0 = g->t0;

	g->t0 = now;
	if (now <= t0 || (!on && g->v->pcpu == NULL))
		return 0;
	return now - t0;
}

/* Charge the time since t0: switch-in overhead first, then the activity. */
static inline void
settle(struct guest *g)
{
	sim_time_t el = settle_take(g, 0);

	if (el > 0)
		settle_el(g, (double)el);
}

/* settle, its charge inline: guest_step's, at every step, and guest_poke's;
 * both on a pCPU (a vCPU's event runs only there: guest_stop cancels it and
 * its fold; guest_poke tests it), so no test of it */
static inline void
settle_step(struct guest *g)
{
	sim_time_t el = settle_take(g, 1);

	if (el > 0)
		settle_charge(g, (double)el);
}

/* Tell the lock whether v spins on it on a pCPU now (its spinners by place). */
static inline void
spin_note(struct guest *g)
{
	int on = g->act == GA_SPIN && !g->cond && g->v->pcpu != NULL;

	if (on != g->spin_on) {
		g->spin_on = on;
		g->wops->spinning(g->lock, g->v, on);
	}
}

static void guest_ev(void *s, void *arg, int64_t data);
static void ple_in_ev(void *s, void *arg, int64_t data);
static double halt_poll(struct guest *);
static void poll_charge(struct guest *);
static void poll_over(void *s, void *arg, int64_t data);

/* A kind's window as the spin's budget to an exit (0, no PLE: none). */
static inline double
ple_budget(double w)
{
	return w > 0 ? w : GUEST_FOREVER;
}

static double
ple_window(struct guest *g)
{
	struct hv *hv = g->v->vm->hv;

	return ple_budget(kind_op_ple_window(hv->kind, hv, g->v));
}

/* A new spin's window: none on a host with PLE off (ple_none), known
 * without the kind's call (a ticket waiter's, at every acquire) */
static inline double
spin_window(struct guest *g)
{
	return g->ple_none ? GUEST_FOREVER : ple_window(g);
}

static void arm(struct guest *);
static inline __attribute__((always_inline)) void arm_body(struct guest *);

/*
 * v's next event, at t (as sim_move).  Inside v's own event with none
 * pending, the push waits for that event's end, its place in the order
 * taken now (sim_reserve): then, if it comes before every pending event,
 * guest_ev takes it at once, without the queue (the fold: nothing else can
 * happen in between), else it is pushed in the place it would have had.
 */
static __attribute__((noinline)) void
ev_move(struct guest *g, sim_time_t t, int64_t data)
{
	g->fold = g->held = 0;	/* a held event is moved: pushed anew (guest_kept) */
	sim_move(g->sim, &g->ev, t, guest_ev, g, data);
}

/*
 * The fold's second place: inside a vCPU's event, the next event of another
 * vCPU with none pending (a spinning waiter the release pokes) waits there
 * too, its place in the order taken now; guest_ev takes whichever of the two
 * comes first in the queue's order while it comes strictly before every
 * pending event, and pushes what is left in the place it would have had.
 * One event runs at a time in a process (workers are processes), so these
 * two are the process's; both are empty outside guest_ev.
 */
/* the vCPU whose guest_ev runs (fast_forward on): g == fold_run is g inside
 * its own event (ev_at) */
static struct guest *fold_run;
static struct guest *fold_other;	/* the other vCPU whose next event waits, or NULL */

static void
fold_push(struct guest *g)
{
	g->fold = 0;
	g->ev = sim_at_key(g->sim, g->fold_t, g->fold_key, guest_ev, g, g->fold_data);
}

/* fold_take's case of another waiting there (o): the earlier stays and the
 * later goes to the queue (inline in poke_at_other, which has o at hand). */
static inline __attribute__((always_inline)) int
fold_take_other_body(struct guest *g, struct guest *o, sim_time_t t)
{
	/* o's place was taken before: at an equal time it comes first.
	 * An earlier g takes the place: a poked waiter's observation
	 * (a line transfer away) may fold where o, the releaser's next
	 * compute's end, waits behind other vCPUs' events anyway */
	if (t >= o->fold_t)
		return 0;
	fold_push(o);
	fold_other = g;
	return 1;
}

/* (out of line for fold_take: rare outside a poke) */
static __attribute__((noinline)) int
fold_take_other(struct guest *g, struct guest *o, sim_time_t t)
{
	return fold_take_other_body(g, o, t);
}

/* May g, not the running vCPU, wait in the second place for an event at t
 * (inside a vCPU's event: fold_run, looked at inline by ev_at)?  If another
 * waits there, fold_take_other.  (Inline: a release's poke, at every
 * hand-over, takes the empty place without a call.) */
static inline int
fold_take(struct guest *g, sim_time_t t)
{
	struct guest *o = fold_other;

	if (!g->ff)
		return 0;
	if (o != NULL && o->fold)
		return fold_take_other(g, o, t);
	fold_other = g;
	return 1;
}

/* The earliest pending event's time, the second place's included (which
 * seg_now, its caller at every lock call, mostly finds taken: the waiter a
 * release poked) */
static inline sim_time_t
next_time(const struct sim *s)
{
	sim_time_t t = sim_next_time(s);

	return __builtin_expect(fold_other != NULL && fold_other->fold, 1) &&
	    fold_other->fold_t < t ? fold_other->fold_t : t;
}

/* g's step at t waits in a place of the fold (first or second), under a
 * key reserved now: the order its push at this point would have had */
static inline __attribute__((always_inline)) void
fold_place(struct guest *g, sim_time_t t, int64_t data)
{
	g->fold = 1;
	g->fold_t = t;
	g->fold_data = data;
	g->fold_key = sim_reserve(g->sim);
}

/* (The fold's few stores inline; the queue's move out of line, so the
 * fold does not pay the registers the move's inlined heap code saves.)
 * 1: folded. */
static inline int
ev_at(struct guest *g, sim_time_t t, int64_t data)
{
	if (g->ev == EVQ_NONE &&
	    (g == fold_run || g == fold_other || (fold_run != NULL && fold_take(g, t)))) {
		fold_place(g, t, data);
		return 1;
	}
	ev_move(g, t, data);
	return 0;
}

/* An unevented pre's end is counted as the step it stands for (a cost
 * figure, as a fold) when it is taken, and uncounted if the event it stands
 * for is moved or cancelled before its time (arm_body, ev_cancel). */
static inline void
pre_end_forget(struct guest *g)
{
	if (g->pre_end != SIM_NEVER) {	/* rare: no store in the common case */
		if (g->pre_end > g->sim->now)
			g->sim->folded--;
		g->pre_end = SIM_NEVER;
	}
}

static inline __attribute__((always_inline)) void
ev_cancel_body(struct guest *g)
{
	g->fold = g->held = 0;
	pre_end_forget(g);
	sim_cancel(g->sim, &g->ev);
}

/* (out of line; guest_stop's, once a switch-out, inline) */
static void
ev_cancel(struct guest *g)
{
	ev_cancel_body(g);
}

/* ev_cancel, called only with something to cancel: a waiter's spin at its
 * acquire (guest_spin: no budget, no PLE window) and most switch-ins'
 * unevented overheads have no event, fold, held event or unevented pre,
 * and ev_cancel would store what is there */
static inline void
ev_clear(struct guest *g)
{
	if (g->ev != EVQ_NONE || g->fold || g->held || g->pre_end != SIM_NEVER)
		ev_cancel(g);
}

/* arm_work's load and rate (on its pCPU: every caller knows it, and
 * hv_rate reads it; no test of it as hv_set_load's) */
static inline void
work_rate(struct guest *g)
{
	hv_pcpu_load(g->v->pcpu, LOAD_BUSY);
	g->rate = hv_rate(g->v);
}

/* The end of ns of work from t at the rate work_rate set (x / 1.0 == x
 * exactly: no divide when no sibling slows it); ns is a rem, never
 * negative (guest_work and settle clamp it at 0), and a rate is positive. */
static inline sim_time_t
work_end(const struct guest *g, sim_time_t t, double ns)
{
	return t + sim_ns_nonneg(g->rate == 1.0 ? ns : ns / g->rate);
}

/* arm's work case: the vCPU runs code at its pCPU's rate until rem is done
 * (inline: guest_work, guest_work_then and seg_chain take it without the
 * rest of arm); 1: its event is folded (ev_at), so guest_work_then's
 * seg_now knows the fold's fields without reading them back */
static inline int
arm_work(struct guest *g)
{
	work_rate(g);
	if (g->rem >= GUEST_FOREVER) {	/* (>= for ==: one compare fewer) */
		ev_cancel(g);	/* work without an end (interp.c loop_endless) */
		return 0;
	}
	return ev_at(g, work_end(g, g->sim->now, g->rem), EV_ACT);
}

/*
 * Memory bandwidth (models/README.md): the vCPUs streaming on one socket
 * share its controller equally, none faster than one core can draw alone
 * (STREAM-style saturation, cf. the roofline model, Williams et al. CACM
 * 2009).  hv->mem_streamers counts them per socket: a guest streams only
 * while it is its pCPU's curr (guest_stop and guest_save stop it), so the
 * count is the number of a socket's pCPUs whose curr streams.
 */
static double
mem_rate(const struct guest *g)
{
	const struct hv *hv = g->v->vm->hv;
	int n = hv->mem_streamers[machine_socket_of(hv->m, g->v->pcpu->id)];
	double share = hv->m->mem_bw_socket / (n > 0 ? n : 1);

	return share < hv->m->mem_bw_core ? share : hv->m->mem_bw_core;
}

/* g starts or stops streaming: re-rate the other streamers of its socket. */
static void
mem_set(struct guest *g, int on)
{
	struct hv *hv = g->v->vm->hv;
	const struct machine *m = hv->m;
	int per = m->cores_per_socket * m->threads_per_core, i, sock;

	if (g->streaming == on)
		return;
	g->streaming = on;
	sock = machine_socket_of(m, g->v->pcpu->id);
	hv->mem_streamers[sock] += on ? 1 : -1;
	if (hv->mem_streamers[sock] == on)
		return;		/* nobody else streams there */
	for (i = sock * per; i < (sock + 1) * per; i++) {
		struct vcpu *o = hv->pcpus[i].curr;

		if (o != NULL && o != g->v && o->g->streaming) {
			settle(o->g);
			arm(o->g);
		}
	}
}

/*
 * The PLE fast-forward (issue 13): a spinner whose exit yielded to nobody and
 * changed nothing (kind ple_repeatable) would go on exit -> scan -> re-entry
 * -> window -> exit, each cycle the same, until some other event changes the
 * world.  With no event pending before the cycles' events, nothing else can:
 * take the whole cycles that end before the next pending event (and not past
 * the end) in one step, with the slow path's arithmetic, then go on as usual.
 * Called in ple_exit, after the scan (pre is the exit's cost, ple_left 0).
 */
static void
ple_fast_forward(struct guest *g)
{
	struct hv *hv = g->v->vm->hv;
	struct sim *s = g->sim;
	sim_time_t e, w, p, bound, k, i, t;
	double left, rem = g->rem, win;

	/* the last cycle's exit must come before the next pending event (a tie
	 * would fire after it in the slow path) and not after the end; the
	 * cheap test first: with other vCPUs spinning it usually fails, and an
	 * exit that yielded has its pCPU's schedule pending at now (so
	 * sim_next_time says now: asked first, without next_time's second
	 * place, which can only be earlier, or the loads of the tests below;
	 * seed001-x7560 brief: 1.40 M exits) */
	if (sim_next_time(s) <= s->now)
		return;
	bound = next_time(s) - 1;
	if (bound < s->now || g->act != GA_SPIN || g->obs_at >= 0 || g->v->pcpu == NULL ||
	    !(g->pre > 0))
		return;
	e = sim_ns(g->pre);
	if (s->end < bound)
		bound = s->end;
	if (bound - s->now <= e || (win = ple_window(g)) == GUEST_FOREVER ||
	    kind_op_ple_repeatable(hv->kind, hv, g->v) < 0)
		return;
	/* the budget: settle's steps at re-entry (pre's rounding) and at the
	 * exit; the window, ple_end's: the new one less that rounding */
	left = (double)e - g->pre;
	w = sim_ns(spin_left(win, left));
	p = e + w;
	if (bound - s->now < p)
		return;
	k = (bound - s->now) / p;
	for (i = 0; rem != GUEST_FOREVER && i < k; i++) {
		double r = rem > left ? rem - left : 0;

		/* arm: the window ends first, else the budget does (the slow path) */
		if (!(w < sim_ns(r)))
			break;
		rem = r > (double)w ? r - (double)w : 0;
	}
	if (rem != GUEST_FOREVER)
		k = i;
	if (k <= 0)
		return;
	for (i = 1; hv->probe != NULL && i <= k; i++) {
		t = s->now + i * p;
		hv_probe_at(hv, t, PR_PLE_EXIT, g->v->id, g->v->pcpu->id, g->cond ? NULL : g->lock,
		    0);
	}
	hv->st.exits_ple += (uint64_t)k;
	hv->st.exits_ple_bulk += (uint64_t)k;
	hv->kind->ple_repeat(hv, g->v, (uint64_t)k);
	g->rem = rem;
	sim_advance(s, s->now + k * p);
	g->t0 = s->now;
}

/* guest_ev leaves cont set while it calls it (act is none: no one reads it) */
static inline __attribute__((always_inline)) int
tail_take(struct guest *g, guest_fn f)
{
	if (g->act != GA_NONE || g->cont != f)
		return 0;
	g->cont = NULL;
	return 1;
}

int
guest_tail_take(struct vcpu *v, guest_fn f)
{
	return tail_take(v->g, f);
}

/*
 * The loop fast-forward (issue 13): a task repeating a loop body of fixed
 * steps only (work of a fixed length, exits of a fixed cost, counters) goes
 * through the same events every iteration, each one's time known in advance.
 * With no event pending before them, nothing else can act in between: no
 * interrupt or tick for this vCPU, no host preemption, no change of its SMT
 * sibling's load (so of hv_rate), no wake or kick (each is an event).  Take
 * the whole iterations whose every event comes strictly before the next
 * pending one (a tie would fire before ours in the slow path) and not past
 * the end, in one step, with the slow path's arithmetic: arm's rounding of
 * each step to whole ns, guest_io's counts and its float sum of I/O time
 * replayed addition by addition, settle's remainder of the last step, and
 * the probe of each exit at its own time.
 *
 * The caller (the workload, at its loop's end) must be the continuation of
 * this vCPU's work-done event (guest_tail_take), so nothing of that event
 * runs after it at the later time.  The state needed here: on its pCPU,
 * between activities (no pending event of its own, no switch-in or exit
 * overhead to pay, no poll, no memory stream), busy already (every step's
 * hv_set_load(BUSY) changes nothing), no interrupt waiting.
 */
int64_t
guest_loop_ff(struct vcpu *v, const struct guest_step *st, int n, int64_t max)
{
	struct guest *g = v->g;
	struct hv *hv = v->vm->hv;
	struct sim *s = g->sim;
	sim_time_t dt[GUEST_FF_STEPS], p = 0, bound, k, i, t;
	double ns[GUEST_FF_STEPS], cost[GUEST_FF_STEPS], cexit[GUEST_FF_STEPS], rate, rem;
	uint64_t nio = 0, nhc = 0;
	int path[GUEST_FF_STEPS], exits[GUEST_FF_STEPS];
	int j, nc;

	if (!hv->fast_forward || n <= 0 || n > GUEST_FF_STEPS || max <= 0 || v->pcpu == NULL ||
	    g->act != GA_NONE || g->pre != 0 || g->ev != EVQ_NONE || g->fold || g->poll_ev != EVQ_NONE ||
	    g->streaming || g->irq_pending || v->pcpu->load != LOAD_BUSY || s->stopped)
		return 0;
	bound = next_time(s) - 1;
	if (s->end < bound)
		bound = s->end;
	if (bound <= s->now)
		return 0;
	rate = hv_rate(v);
	for (j = 0; j < n; j++) {
		/* guest_work: rem = ns > 0 ? ns : 0; arm: x / 1.0 == x, no divide */
		cost[j] = 0;
		path[j] = -1;
		if (st[j].io >= 0)
			path[j] = (int)hv_io_route(hv->kind, hv->m, (enum guest_io)st[j].io,
			    &cost[j]);
		exits[j] = path[j] >= 0 && hv_io_exits((enum io_path)path[j]);
		ns[j] = st[j].io < 0 ? st[j].ns : cost[j];
		if (!(ns[j] > 0))
			ns[j] = 0;
		dt[j] = sim_ns(rate == 1.0 ? ns[j] : ns[j] / rate);
		p += dt[j];
		if (st[j].io == IO_HYPERCALL)
			nhc++;
		else if (exits[j])
			nio++;
	}
	if (p <= 0 || bound - s->now < p)
		return 0;
	k = (bound - s->now) / p;
	if (k > max)
		k = max;
	for (i = 0, t = s->now; hv->probe != NULL && i < k; i++)
		for (j = 0; j < n; t += dt[j], j++)
			if (exits[j])
				hv_probe_at(hv, t, PR_IO_EXIT, v->id, v->pcpu->id, NULL, st[j].io);
	hv->st.exits_io += nio * (uint64_t)k;
	hv->st.exits_hypercall += nhc * (uint64_t)k;
	for (j = 0; j < n; j++)
		if (path[j] >= 0)
			hv->st.io_path[path[j]] += (uint64_t)k;
	/* io_ns is a float sum: the slow path's additions, one by one, in order
	 * (fsum_repeat gives their bits without a loop of k) */
	for (j = 0, nc = 0; j < n; j++)
		if (exits[j])
			cexit[nc++] = cost[j];
	if (!g->ff_fault)
		hv->st.io_ns = fsum_repeat(hv->st.io_ns, cexit, nc, k);
	/* settle at the last step's end: what is left of it, as the slow path leaves it */
	rem = ns[n - 1];
	if (dt[n - 1] > 0) {
		rem -= (double)dt[n - 1] * rate;
		if (rem < 0)
			rem = 0;
	}
	g->rem = rem;
	g->rate = rate;
	g->cond = 0;
	sim_advance(s, s->now + k * p);
	g->t0 = s->now;
	return k;
}

/* Intel SDM "PAUSE-loop exiting": the spin outlasted the window; exit. */
static void
ple_exit(struct guest *g)
{
	struct hv *hv = g->v->vm->hv;

	/* the last exit has ended (ple_end): a window runs only after an entry */
	VS_ASSERT(!g->in_ple);
	hv->st.exits_ple++;
	hv_probe(hv, PR_PLE_EXIT, g->v->id, g->v->pcpu->id, g->cond ? NULL : g->lock, 0);
	g->in_ple = 1;
	g->pre += hv->m->exit_ple_ns;
	hv->kind->ple_exit(hv, g->v);
	if (hv->fast_forward)
		ple_fast_forward(g);
	arm_body(g);	/* (inline: each exit arms its overhead's end) */
}

/* Back in the guest after the exit: a new VM entry, a new PLE window. */
static inline __attribute__((always_inline)) void
ple_done(struct guest *g)
{
	struct hv *hv = g->v->vm->hv;

	g->in_ple = 0;
	g->ple_left = ple_budget(kind_op_ple_done(hv->kind, hv, g->v));
}

/*
 * settle's charge that pays a PLE exit's last ns: ple_done, then the rest of
 * el to the spin on the new window, whichever settle it is (as entry_window:
 * the entry came el ns before now, where pre ended, and the first PAUSE after
 * it began the new loop).  LNX-3.2 vmx.c handle_pause
 * runs kvm_vcpu_on_spin and returns 1: the vCPU re-enters the guest, and
 * the first PAUSE after a VM entry starts a new loop (Intel SDM
 * "PAUSE-loop exiting"; LNX-3.10 kvm_vcpu_on_spin clears in_spin_loop and
 * dy_eligible before it returns).  A look from outside at the exit's end
 * that comes before the end's event (a release's poke: check_kvm
 * a_poke_at_a_ple_exits_end_gets_a_new_window, e2e_pleff's seed001 X7560
 * corner) ends the exit too: the spin it arms has that entry's window,
 * not the 0 the exit left (a kept spinner's) or the switch-in's with the
 * exit still marked (in_ple) until a later overhead's end.  The exit's own
 * event (pre_step, ple_in_ev) comes here through its settle_step.
 */
static inline __attribute__((always_inline)) void
ple_end(struct guest *g, double el)
{
	ple_done(g);
	settle_act(g, el);
}

/*
 * The end of an overhead that cut a spin with a window (a tick's, an IPI's
 * or another exit's, a switch-in's) restarts the window: the first PAUSE
 * after a VM entry is the first of a new loop (Intel SDM "PAUSE-loop
 * exiting"; LNX vmx.c keeps no PLE count across an entry), and a guest
 * handler's run leaves a gap between PAUSEs far above ple_gap, which starts
 * a new loop too.  A switch-in's window (guest_run) is the same value:
 * the kind changes a vCPU's window only at its own exit or sched_in.
 */
static inline __attribute__((always_inline)) void
entry_window(struct guest *g)
{
	g->ple_left = ple_window(g);
}

/* settle_charge's overhead end on a host with PLE (ple_none clear): a PLE
 * exit's (ple_end), or any other's in a spin with a window (entry_window),
 * then el on the spin's window.  One call behind one test in settle_charge,
 * so a host without PLE pays that test alone at a settle in an overhead. */
static __attribute__((noinline)) void
overhead_end(struct guest *g, double el)
{
	if (g->in_ple) {
		ple_end(g, el);
		return;
	}
	if (g->act == GA_SPIN && g->ple_left != GUEST_FOREVER)
		entry_window(g);
	settle_act(g, el);
}

/* Take a pending interrupt now if the vCPU runs guest code that can. */
static void poll_interrupted(struct guest *);

static __attribute__((noinline)) void
deliver_pending(struct guest *g)
{
	if (g->act == GA_POLL) {
		/* pending while the host had the pCPU: the poll sees it on return */
		if (g->v->pcpu != NULL)
			poll_interrupted(g);
		return;
	}
	if (g->irq_hook == NULL || g->v->pcpu == NULL ||
	    g->act == GA_HALT || g->act == GA_DONE || g->irq_wakes || g->irqs_off)
		return;
	g->irq_pending = 0;
	g->irq_hook(g->v);
}

/* (the check inline: every switch-in asks, few have one pending) */
static inline void
deliver(struct guest *g)
{
	if (g->irq_pending)
		deliver_pending(g);
}

/*
 * LNX-6.12 x86.c vcpu_run: a halt that returns without the vCPU thread having
 * slept and been switched back in (a successful halt poll, an event pending
 * at the exit, a wake before the switch-out) re-enters through
 * vcpu_enter_guest: the VM entry is paid here, before guest code goes on; a
 * switch-in pays it inside ctx_switch (hv.c).  Bare metal has no entry.
 */
static void
halt_entry(struct guest *g)
{
	struct hv *hv = g->v->vm->hv;

	if (hv_native(hv) || (g->waited && g->v->ctx_in != g->ctx_in0))
		return;
	/* paid first, and not owed if a switch-out cuts it short (guest_stop):
	 * the next switch-in pays its own entry in ctx_switch */
	g->pre += hv->m->vm_entry_ns;
	g->sw += hv->m->vm_entry_ns;
}

static void
finish_halt(struct guest *g)
{
	struct hv *hv = g->v->vm->hv;
	guest_fn f = g->cont;
	int idle = g->irq_wakes == HI_IDLE, lock_irq = g->irq_wakes == HI_LOCK;

	kind_op_halt_end(hv->kind, hv, g->v, (double)(hv->sim->now - g->halt_t0), g->poll_ns,
	    g->waited);
	halt_entry(g);

	g->act = GA_NONE;
	g->woken = 0;
	g->irq_wakes = 0;
	g->cont = NULL;
	if (idle)
		g->irq_pending = 0;	/* the idle loop's wake is the interrupt's entry */
	/* Linux safe_halt (sti; hlt) in kvm_wait: the handler runs on the wake,
	 * then the lock's loop goes on */
	if (lock_irq)
		deliver(g);
	f(g->v);
	if (!idle)
		deliver(g);
}

/*
 * An overhead (pre) ahead of work without an end (interp.c loop_endless: a
 * cpuhog's switch-in, its guest tick's exit) needs no event at its end:
 * there pre_step would zero pre and sw, and arm's work case would set the
 * load (busy already), the rate (read only by a settle, whose charge leaves
 * an endless rem endless) and cancel the event.  Nor does one ahead of a
 * spin without an end, a PLE window or a change to see (a ticket waiter on
 * a host without PLE, at its tick's exit): arm's spin case would set the
 * load (spinning already), note the spin (noted when it was armed) and
 * cancel the event, and a settle leaves an endless spin endless.  The first
 * settle at or after that end charges the whole of pre (the end is pre
 * rounded up, from t0 = now) and so leaves pre and sw 0 as pre_step would
 * (sw <= pre).  Only guest_overhead's query and guest_rerate read pre
 * without a settle: from pre_end on they read it as the slow path has it, 0
 * (pre_left).  Anything that would move or cancel the event forgets pre_end
 * (arm_body, ev_cancel), and the step it counted in steps_folded if that
 * comes before its time.  seed001-x5570 3x: 13%, then 16% of the events.
 * On a pCPU without an SMT sibling the load is read by nothing but these
 * guards (hv_set_load only stores it: no sibling's rate follows it), so arm
 * sets it at once (pre_load) rather than at the end: a ticket waiter
 * switched in, which the switch-in set busy, needs no event either.
 * fast_forward: false keeps the event (tests/e2e_loopff.sh).
 */
/* A spin without a condition, a PLE window or an observation pending, its
 * pCPU's load already what arm sets (or read by nothing: no SMT sibling):
 * pre_unevented's spin case and guest_tick_quiet's say it once here. */
static inline int
spin_unobserved(const struct guest *g, const struct pcpu *p)
{
	return g->act == GA_SPIN && !g->cond && g->ple_left == GUEST_FOREVER && g->obs_at < 0 &&
	    (p->load == LOAD_SPIN || !p->smt);
}

static inline int
pre_unevented(const struct guest *g)
{
	const struct pcpu *p;
	enum hw_load l;

	/* in_ple first: a PLE exit's overhead (seed001-x7560) is never unevented */
	if (g->in_ple || g->rem != GUEST_FOREVER || !g->ff || g->t0 != g->sim->now)
		return 0;
	p = g->v->pcpu;
	l = p->load;
	return g->act == GA_WORK ? l == LOAD_BUSY || !p->smt : spin_unobserved(g, p);
}

/* ... and the load arm's case would set at its end, set now (unobserved
 * before then: the same load or no sibling) */
static inline void
pre_load(struct guest *g)
{
	hv_set_load(g->v, g->act == GA_WORK ? LOAD_BUSY : LOAD_SPIN);
}

/* pre as the slow path has it now: 0 from an unevented pre's end on */
static inline double
pre_left(const struct guest *g)
{
	return g->pre_end <= g->sim->now ? 0 : g->pre;
}

/* A spin's end from now: its budget's or its PLE window's, the earlier
 * (SIM_NEVER: neither) */
static inline sim_time_t
spin_end_of(double rem, double ple_left, sim_time_t now)
{
	sim_time_t t = rem == GUEST_FOREVER ? SIM_NEVER : now + sim_ns(rem);

	if (ple_left != GUEST_FOREVER && now + sim_ns(ple_left) < t)
		t = now + sim_ns(ple_left);
	return t;
}

static inline sim_time_t
spin_end(const struct guest *g, sim_time_t now)
{
	return spin_end_of(g->rem, g->ple_left, now);
}

/* arm's spin case, its pCPU's load already the spin's (guest_poke's plain
 * case): an event at the spin's end (its budget's or its window's) or when
 * a change is seen, the earlier; none without either */
static inline __attribute__((always_inline)) void
arm_spin_event(struct guest *g)
{
	struct sim *s = g->sim;
	sim_time_t t;

	t = spin_end(g, s->now);
	if (g->obs_at >= 0 && g->obs_at < t)
		t = g->obs_at > s->now ? g->obs_at : s->now;	/* seen during an exit */
	if (t != SIM_NEVER)
		ev_at(g, t, EV_ACT);
	else
		ev_clear(g);
}

/* arm's spin case */
static inline __attribute__((always_inline)) void
arm_spin(struct guest *g)
{
	hv_set_load(g->v, LOAD_SPIN);
	arm_spin_event(g);
}

/*
 * Schedule the one event the current activity needs (if any).  A pending
 * event is moved rather than cancelled and pushed again (sim_move keeps the
 * same order); it moves where the push was, after the load and memory
 * re-rating, so the events those push keep their order too.
 */
static inline __attribute__((always_inline)) void
arm_body(struct guest *g)
{
	struct sim *s = g->sim;

	if (g->spin_on || g->act == GA_SPIN)
		spin_note(g);
	if (g->v->pcpu == NULL) {
		ev_cancel(g);
		return;
	}
	if (g->pre > 0) {
		if (pre_unevented(g)) {
			pre_load(g);
			/* at a switch-in (seed001-x7560: a cpuhog's, 0.70 M of
			 * 2.08 M) there is nothing to cancel (guest_stop did) */
			ev_clear(g);
			g->pre_end = s->now + sim_ns(g->pre);
			s->folded++;
			return;
		}
		pre_end_forget(g);
		ev_at(g, s->now + sim_ns(g->pre), EV_PRE);
		return;
	}
	switch (g->act) {
	case GA_WORK:
		arm_work(g);
		break;
	case GA_MEM:
		hv_set_load(g->v, LOAD_BUSY);
		mem_set(g, 1);
		g->rate = mem_rate(g);
		ev_at(g, s->now + sim_ns(g->rem / g->rate), EV_ACT);
		break;
	case GA_SPIN:
		arm_spin(g);
		break;
	case GA_BUSY:
		/* a deadline in wall time: the preempted stretch counts too */
		hv_set_load(g->v, LOAD_BUSY);
		ev_at(g, g->busy_until > s->now ? g->busy_until : s->now, EV_ACT);
		break;
	case GA_POLL:
		/* poll_state.c poll_idle: PAUSE (cpu_relax) until local_clock passes
		 * the limit, a wall-clock deadline like a busy wait's */
		hv_set_load(g->v, LOAD_SPIN);
		ev_at(g, g->busy_until > s->now ? g->busy_until : s->now, EV_ACT);
		break;
	case GA_HALT:
		ev_cancel(g);
		if (g->woken)
			finish_halt(g);
		break;
	default:
		ev_cancel(g);
		break;
	}
}

/* (out of line; guest_poke's, a spin's, inline) */
static __attribute__((noinline)) void
arm(struct guest *g)
{
	arm_body(g);
}

/* (inline in guest_ev: its two calls were a step's call more) */
static inline __attribute__((always_inline)) void guest_step(struct sim *, struct guest *,
    int64_t data);

/*
 * guest_step at a boundary of guest_work_then's two segments (EV_SEG:
 * folded, or popped when an event came first), for less: the vCPU is on
 * its pCPU (a step runs only there) with no overhead to pay and no spin to
 * note (checked: an overhead runs its EV_PRE step first, and work_set ended
 * the spin), settle's remainder is overwritten by the second segment, and
 * arm's work case is all that is left of arm.  The same steps as
 * guest_step's seg case (tests/e2e_fold.sh, bench/ident.sh).  0: mid found
 * done must run (it took nothing back but its draw), guest_step does the
 * rest.
 */
static int
seg_chain(struct guest *g)
{
	struct sim *s = g->sim;
	double ns;

	if (g->spin_on || g->pre != 0)
		return 0;
	g->seg = 0;
	if ((ns = g->seg_mid(g->v, s->now)) < 0)
		return 0;
	g->t0 = s->now;
	g->rem = ns > 0 ? ns : 0;
	arm_work(g);
	return 1;
}

/*
 * At guest_ev's end, g's next event may wait unpushed while its pCPU's
 * SCHEDULE softirq is due now, held (sim_defer) or queued (before it, as
 * nothing but events at now can run first, and those cannot fold past now
 * either: sim_next_time says now): a switch-out there
 * (a PLE exit's yield_to, then hv_schedule_ev) cancels it, and a push then
 * a cancel are two heap operations for nothing.  If the schedule keeps the
 * vCPU, guest_kept pushes it in the place it had; anything that schedules
 * or cancels it first takes it as pending (ev_move, ev_cancel).
 */
static inline int
hold_ok(const struct guest *g)
{
	const struct pcpu *p = g->v->pcpu;

	return p != NULL && (p->sched_now || (p->sched_ev != EVQ_NONE && p->sched_at == g->sim->now)) &&
	    g->fold_t > g->sim->now;
}

static void
guest_kept(struct vcpu *v)
{
	struct guest *g = v->g;

	if (!g->held)
		return;
	g->held = 0;
	if (g->fold) {
		g->fold = 0;
		/* a PLE exit's overhead end: ple_in_ev's case (else it takes guest_ev's) */
		g->ev = sim_at_key(g->sim, g->fold_t, g->fold_key,
		    g->fold_data == EV_PRE && g->in_ple ? ple_in_ev : guest_ev, g, g->fold_data);
	}
}

static void seg_ev(struct sim *, struct guest *);

/* May a step at t be taken now, in the event before it (guest_ev's fold)?
 * (sim_run pops nothing past the cap either) */
static inline __attribute__((always_inline)) int
fold_ok(const struct sim *sim, sim_time_t t)
{
	return t < sim_next_time(sim) && t <= sim->fold_end;
}

/*
 * v's event, and the folded ones after it (ev_at): a step whose next event
 * comes strictly before every pending one (the second place's too) and not
 * past the end is taken in the same call, the clock advanced to it
 * (sim_advance), as the queue would have popped it next; it is not counted
 * in the run's events.  A step of the second place's, or one that comes
 * first only in the order of an equal time, would have been popped: it is
 * taken here too, counted as sim_run counts an event (the limits and the
 * watchdog look at the same counts), unless sim_run has something to do at
 * it: a look at the limits, or the watchdog's count of events at one time.
 */
/* guest_ev's start: its event is taken (no longer pending), g the vCPU
 * whose event runs */
static inline __attribute__((always_inline)) void
ev_start(struct guest *g)
{
	g->ev = EVQ_NONE;
	if (__builtin_expect(g->ff, 1))	/* (the store in line: every run but a test's) */
		fold_run = g;
	/* With many vCPUs this one's lines are cold: start the loads the
	 * continuation makes (the workload's and the kernel's state, the random
	 * stream) now, beside the vCPU's own, rather than one after another.
	 * Once an event: a folded step's are warm (its own, from the step
	 * before; the second place's, from the poke that put it there, which
	 * starts the same loads) */
	__builtin_prefetch(g->wl);
	__builtin_prefetch(g->kcpu);
	__builtin_prefetch(g->v->rng);
}

/* guest_step of an event's other data (out of line: rare) */
static __attribute__((noinline)) void
guest_step_out(struct sim *sim, struct guest *g, int64_t data)
{
	guest_step(sim, g, data);
}

static inline __attribute__((always_inline)) void
fold_loop(struct sim *sim, struct guest *g)
{
	struct guest *o;
	int own;

	for (;;) {
		if ((o = fold_other) != NULL && !o->fold)
			o = fold_other = NULL;
		if (!g->fold && o == NULL)
			break;
		own = g->fold && (o == NULL || g->fold_t < o->fold_t);
		if (!own && (!g->fold || o->fold_t < g->fold_t || o->fold_key < g->fold_key)) {
			/* the other's step comes first: it runs, g's next waits */
			fold_other = g->fold ? g : NULL;
			g = fold_run = o;
		}
		g->fold = 0;
		if (!fold_ok(sim, g->fold_t) ||
		    (!own && (g->fold_t == sim->now || sim->events + 1 >= sim->next_check))) {
			if (hold_ok(g))
				g->fold = g->held = 1;
			else
				g->ev = sim_at_key(sim, g->fold_t, g->fold_key, guest_ev, g,
				    g->fold_data);
			if (fold_other != NULL && fold_other->fold)
				fold_push(fold_other);
			break;
		}
		sim_advance_known(sim, g->fold_t);
		if (!own) {
			sim->same = 0;	/* a later time: sim_run's watchdog count starts again */
			sim->events++;
		} else
			sim->folded++;
		guest_step(sim, g, g->fold_data);
	}
	fold_run = fold_other = NULL;
}

static void
guest_ev(void *s, void *arg, int64_t data)
{
	struct guest *g = arg;
	struct sim *sim = s;

	/* one test of data for the common step (EV_ACT's): a boundary's
	 * event goes to seg_ev, the rest to guest_step out of line */
	if (__builtin_expect(data != EV_ACT, 0)) {
		if (data == EV_SEG) {
			seg_ev(sim, g);
			return;
		}
		ev_start(g);
		guest_step_out(sim, g, data);
	} else {
		ev_start(g);
		guest_step(sim, g, EV_ACT);
	}
	fold_loop(sim, g);
}

/* guest_ev's loop after a step that seg_ev did not finish (out of line:
 * rare, and seg_ev keeps a small frame) */
static __attribute__((noinline)) void
fold_loop_out(struct sim *sim, struct guest *g)
{
	fold_loop(sim, g);
}

/*
 * guest_ev's EV_SEG event (a boundary of guest_work_then's that waited
 * for its own event: peer-ticket at 64 vCPUs, 31 k of 286 k events), its
 * plain case in a handler of its own: seg_chain's steps, then guest_ev's
 * loop for the one event seg_chain folded (g's own, no other waiting):
 * taken at once if it comes first (guest_ev goes on from its step), else
 * held (hold_ok) or pushed in the place its fold reserved, as guest_ev's
 * loop would; without guest_ev's frame, dispatch and loop head.  mid's
 * refusal takes EV_ACT's step (guest_ev), as guest_step after seg_chain's
 * 0; anything else (no fast-forward, an overhead, a spin to note, a fold
 * left in the second place) guest_ev's path.  tests/e2e_fold.sh and
 * bench/ident.sh compare.
 */
static __attribute__((noinline)) void
seg_ev(struct sim *sim, struct guest *g)
{
	void *s = sim, *arg = g;
	double ns;

	if (!(g->ff && g->act == GA_WORK && g->seg && !g->spin_on && g->pre == 0)) {
		guest_ev(s, arg, EV_SEG_ANY);
		return;
	}
	ev_start(g);	/* (its prefetches: mid reads these lines) */
	/* seg_chain's steps */
	g->seg = 0;
	if ((ns = g->seg_mid(g->v, sim->now)) < 0) {
		guest_ev(s, arg, EV_ACT);
		return;
	}
	g->t0 = sim->now;
	g->rem = ns > 0 ? ns : 0;
	if (!arm_work(g) || fold_other != NULL) {
		fold_loop_out(sim, g);
		return;
	}
	/* fold_loop's first pass for g's own fold, fold_data EV_ACT (ev_at's) */
	g->fold = 0;
	if (fold_ok(sim, g->fold_t)) {
		sim_advance_known(sim, g->fold_t);
		sim->folded++;
		guest_ev(s, arg, EV_ACT);
		return;
	}
	if (hold_ok(g))
		g->fold = g->held = 1;
	else
		g->ev = sim_at_key(sim, g->fold_t, g->fold_key, guest_ev, g, EV_ACT);
	fold_run = NULL;
}

/* guest_step's spin cases (now: its clock, read once there) */
static inline __attribute__((always_inline)) void
spin_step(struct guest *g, sim_time_t now)
{
	guest_fn f;
	int on;

	if (g->obs_at >= 0 && g->obs_at <= now && g->cond) {
		/* the condition a guest_spin_wait watched is seen */
		g->obs_at = -1;
		g->cond = g->cond_met = 0;
		f = g->cond_seen;
		g->act = GA_NONE;
		spin_note(g);
		g->cond_seen = NULL;
		f(g->v);
		return;
	}
	if (g->obs_at >= 0 && g->obs_at <= now) {
		g->obs_at = -1;
		/* The lock either hands the vCPU a new activity, the event's
		 * last step (guest_tail_then), or it spins on. */
		g->then_ok = 1;
		on = g->wops->observe(g->lock, g->v);
		g->then_ok = 0;
		if (!on)
			arm(g);
		return;
	}
	if (g->rem > 0 && g->ple_left <= 0) {
		ple_exit(g);
		return;
	}
	hv_probe(g->v->vm->hv, PR_SPIN_END, g->v->id, g->v->pcpu->id, g->lock, 0);
	f = g->cont;
	g->act = GA_NONE;
	g->cont = NULL;
	spin_note(g);
	f(g->v);
}

/* guest_step's end of a switch-in or exit overhead. */
static __attribute__((noinline)) void
pre_step(struct guest *g)
{
	/* (a PLE exit's end: settle_step's charge called ple_end) */
	g->pre = g->sw = 0;
	arm_body(g);	/* (inline: a spinner's switch-in and exit end here) */
}

/*
 * A spinner switched in after its own PLE exit, or kept on its pCPU after
 * it (guest_kept; seed001-x7560: a quarter of the events, 1.06 M and 0.23 M
 * of 5.49 M), ends the overhead in an event of its own, ple_in_ev, rather
 * than guest_ev's EV_PRE: the same steps, in the same order, without
 * guest_ev's general machinery (its fold loop, the step's dispatch, arm's
 * cases).  ple_in_arm is arm_body's path at such a switch-in: the spin
 * noted, pre's end pushed (ev_move's push, another handler).
 */

/* The spin both take: a PLE-exited spinner on a pCPU, no condition,
 * nothing seen during the exit, the fast-forward on (else arm_body's and
 * guest_ev's paths) */
static inline __attribute__((always_inline)) int
ple_in_case(const struct guest *g)
{
	return g->in_ple && g->act == GA_SPIN && !g->cond && g->obs_at < 0 && g->ff &&
	    g->v->pcpu != NULL;
}

/* ... and its spin noted, with no SMT re-rate due at the exit's end (a
 * sibling's pCPU load is already the spin's) */
static inline __attribute__((always_inline)) int
ple_in_spinning(const struct guest *g)
{
	const struct pcpu *p = g->v->pcpu;

	return g->spin_on && !(p->smt && p->load != LOAD_SPIN);
}

static void ple_in_act(void *s, void *arg, int64_t data);

/*
 * Its end need not even be an event of its own: ple_in_ev's steps at t1
 * change nothing that anyone reads before the vCPU's next event at t2
 * unless something from outside looks at the vCPU first, and every such
 * look comes through lazy_sync (guest_poke, guest_stop, guest_interrupt,
 * guest_overhead, guest_rerate, guest_kick, guest_save) or ple_sync itself
 * (guest_ffs: a snapshot, which must not run the lazy ticks' sync_hook);
 * guest_tick_quiet reads in_ple, 1 before and the window after: not quiet
 * either way.  So the switch-in pushes a two-stage entry (evq.h
 * evq_push_then): at (t1, its key) the queue files it at t2 under the key
 * ple_in_ev's push would take, without a handler (seed001-x7560 brief:
 * 0.90 M of 5.49 M events).  ple_in_ev's steps are applied late
 * (ple_in_end_late): at that event (ple_in_act) or at the first look
 * (ple_sync); a look before t1's place finds the entry not passed and
 * makes it ple_in_ev's ordinary event in its place.  ple_done is called
 * here, early: its window is the one it gives at t1 and its other effects
 * are seen by nobody (kind_op_ple_done_quiet: kvm without the dy_eligible
 * filter), so a second call at t1 (ple_in_ev's, demoted) changes nothing
 * either.  A pCPU with an SMT sibling must be spinning already (no
 * re-rate at t1).  t2 is ple_in_ev's spin_end, from the doubles settle
 * gives it at t1.  Returns t2, or SIM_NEVER: not here (ple_in_ev's event).
 */
static inline sim_time_t
ple_in_late(struct guest *g, sim_time_t t1)
{
	struct hv *hv = g->v->vm->hv;
	double w, el;

	if (g->lazy || g->irq_pending || !ple_in_spinning(g) || g->t0 != g->sim->now)
		return SIM_NEVER;
	if (__builtin_expect(g->ple_quiet == 0, 0))
		g->ple_quiet = kind_op_ple_done_quiet(hv->kind, hv) ? 2 : 1;
	if (g->ple_quiet != 2)
		return SIM_NEVER;
	/* ple_done now, its window the same (quiet): its other effects are
	 * seen by nobody, early or in time, and a demoted end (ple_sync)
	 * calls it again */
	w = ple_budget(kind_op_ple_done(hv->kind, hv, g->v));
	if (w == GUEST_FOREVER)
		return SIM_NEVER;
	/* settle_charge's spin case after pre's part of t1 - t0: ple_end's,
	 * on the new window */
	el = (double)(t1 - g->t0);
	el -= el < g->pre ? el : g->pre;
	g->late_t1 = t1;
	g->late_rem = g->rem != GUEST_FOREVER ? spin_left(g->rem, el) : g->rem;
	g->late_w = spin_left(w, el);
	return spin_end_of(g->late_rem, g->late_w, t1);
}

/* ple_in_ev's steps at late_t1, from what ple_in_late found: the same
 * doubles (settle's charge to t1 leaves pre and sw 0 and this rem; ple_left
 * is ple_done's window, asked there, less that charge) */
static inline void
ple_in_end_late(struct guest *g)
{
	g->lazy &= (unsigned char)~GL_PLE;
	g->t0 = g->late_t1;
	g->rem = g->late_rem;
	g->pre = g->sw = 0;
	g->in_ple = 0;
	g->ple_left = g->late_w;
	hv_set_load(g->v, LOAD_SPIN);
	g->fold_data = EV_ACT;	/* (as ple_in_ev leaves it) */
}

/*
 * A PLE-exited spinner's switch-in window (ple_left), set after ple_in_arm,
 * not first in guest_run: nothing in between reads it but a snapshot, and
 * ple_done writes it at the exit's end, whichever settle pays that end
 * (ple_end), before arm's spin case reads it.  The
 * two-stage entry (ple_in_push) sets it later still: every look applies
 * that entry first (lazy_sync), and one that demotes it (ple_sync) asks it
 * here then (ple_in_late's late_w is ple_done's window charged past t1:
 * ple_end's, not the switch-in's); the kind is asked once a switch-in but
 * for a demoted one.
 */
static inline void
ple_in_window(struct guest *g)
{
	if (g->act == GA_SPIN && g->in_ple)
		g->ple_left = ple_window(g);
}

/* ple_in_arm's push (out of line: inline, its registers cost every
 * guest_run a longer prologue) */
static __attribute__((noinline)) void
ple_in_push(struct guest *g)
{
	struct sim *s = g->sim;
	sim_time_t t1, t2;

	/* no fold, held event or unevented pre to forget: guest_stop forgot
	 * them, and off its pCPU nothing arms the vCPU (work_set, arm_body);
	 * spin_note's case known (ple_in_case: a lock's spinner on a pCPU) */
	if (!g->spin_on) {
		g->spin_on = 1;
		g->wops->spinning(g->lock, g->v, 1);
	}
	t1 = s->now + sim_ns(g->pre);
	t2 = ple_in_late(g, t1);
	if (t2 != SIM_NEVER) {
		g->ev = sim_at_then(s, t1, t2, ple_in_act, g, 0);
		g->lazy |= GL_PLE;
	} else {
		ple_in_window(g);
		g->ev = sim_at(s, t1, ple_in_ev, g, 0);
	}
}

/* guest_run's arm: 1 if it took the case (pre's end pushed, not folded) */
static inline int
ple_in_arm(struct guest *g)
{
	if (!ple_in_case(g) || !(g->pre > 0) || g->ev != EVQ_NONE || fold_run != NULL)
		return 0;
	ple_in_push(g);
	return 1;
}

/* A look from outside at a vCPU whose PLE exit's end stands late: applied
 * if its first stage passed, else the event becomes ple_in_ev's, in its
 * place. */
static __attribute__((noinline)) void
ple_sync(struct guest *g)
{
	struct evq *q = g->sim->q;

	if (evq_then_pending(q, g->ev)) {
		g->lazy &= (unsigned char)~GL_PLE;
		ple_in_window(g);	/* the switch-in's (late_w is charged past t1) */
		evq_then_drop(q, g->ev, ple_in_ev, 0);
		return;
	}
	ple_in_end_late(g);
}

/* The two-stage entry's event at t2: ple_in_ev's steps first, unless a
 * look applied them. */
static void
ple_in_act(void *s, void *arg, int64_t data)
{
	struct guest *g = arg;

	(void)data;
	if (g->lazy & GL_PLE)
		ple_in_end_late(g);
	guest_ev(s, arg, EV_ACT);
}

/*
 * guest_ev(EV_PRE) at that overhead's end, when its spin case is what it
 * would take: settle, pre_step (ple_done), arm's spin case (the load set:
 * a store, no sibling to re-rate; the spin noted already), then guest_ev's
 * loop for that one event: folded if it comes first (guest_ev goes on from
 * it), else held (hold_ok) or pushed in the place sim_reserve would have
 * given it (nothing is pushed in between, so the push's own).  Anything
 * else (a change to the spin since the switch-in that did not move this
 * event) takes guest_ev's path.
 */
static void
ple_in_ev(void *s, void *arg, int64_t data)
{
	struct guest *g = arg;
	struct sim *sim = s;
	sim_time_t t;

	(void)data;
	if (!ple_in_case(g) || !ple_in_spinning(g)) {
		guest_ev(s, arg, EV_PRE);
		return;
	}
	g->ev = EVQ_NONE;
	settle_step(g);		/* (pays the exit's last ns: ple_end, ple_done) */
	g->pre = g->sw = 0;
	hv_set_load(g->v, LOAD_SPIN);
	t = spin_end(g, sim->now);
	if (t == SIM_NEVER) {
		ev_cancel_body(g);
		return;
	}
	g->fold_t = t;		/* (as ev_at leaves them: a snapshot reads fold_data) */
	g->fold_data = EV_ACT;
	if (fold_ok(sim, t)) {
		sim_advance_known(sim, t);
		sim->folded++;
		guest_ev(s, arg, EV_ACT);
	} else if (hold_ok(g)) {
		g->fold = g->held = 1;
		g->fold_key = sim_reserve(sim);
	} else
		g->ev = sim_at(sim, t, guest_ev, g, EV_ACT);
}

/*
 * guest_step's work done: cont runs (the caller's step).  cont stays f
 * while f runs: nothing of this event follows it, and guest_tail_take
 * tells f so (the first time it is asked).
 */
static inline __attribute__((always_inline)) void
step_cont(struct guest *g)
{
	guest_fn f = g->cont;

	g->act = GA_NONE;
	f(g->v);
	if (g->act == GA_NONE && g->cont == f)
		g->cont = NULL;
	g->then_ok = 0;	/* (f's, if its lock call made no guest_work_then) */
}

/* guest_step's work case after its settle */
static inline __attribute__((always_inline)) void
step_work(struct guest *g)
{
	if (g->seg) {
		/* guest_work_then's boundary: mid did the caller's step; then
		 * what its guest_work would set (rem, the same cont), armed
		 * the same way */
		double ns;

		g->seg = 0;
		if ((ns = g->seg_mid(g->v, g->sim->now)) >= 0) {
			g->rem = ns > 0 ? ns : 0;
			arm(g);
			return;
		}
	}
	step_cont(g);
}

/*
 * A work's own end (EV_ACT) with no overhead to pay, at rate 1 (no SMT
 * sibling slows it), before 2^53 ns: settle_step's charge leaves rem 0,
 * known without its arithmetic.  arm_work put the end at work_end's t_arm +
 * ceil(rem) (sim_ns_nonneg) and the rate is the arm's (a rate changes only
 * at an arm: guest_rerate); every settle since charged whole ns, each
 * subtraction exact (integers below 2^53 from a double below 2^53: both
 * multiples of its ulp), so rem ends at rem - ceil(rem), in (-1, 0], which
 * the clamp makes +0.  (now < 2^53: the arm's ceil(rem) was too.  On a run
 * that ends before 2^53, GW_ENDED, no step's clock passes its end: sim_run
 * pops and the fold takes nothing past fold_end, so the clock is not
 * tested.)  fast_forward: false takes settle_step (tests/e2e_fold.sh
 * compares).
 */
static inline __attribute__((always_inline)) int
work_end_whole(const struct guest *g, sim_time_t now)
{
	return g->act == GA_WORK && !(g->pre > 0) && g->rate == 1.0 &&
	    (g->whole == GW_ENDED || (g->whole == GW_FF && now < ((sim_time_t)1 << 53)));
}

/*
 * A spin's step with no overhead to pay, no budget and no PLE window (a
 * ticket waiter's observation on a host without PLE): settle_step's charge
 * is t0 alone (settle_act's spin case charges neither).  The window is
 * none on a run that gives none (ple_none: every spin's ple_left is
 * GUEST_FOREVER, spin_window's and guest_run's, and no exit ends), asked
 * through spin_fast with the fast-forward: one byte for both.
 * fast_forward: false (and a run with a probe) takes settle_step
 * (tests/e2e_fold.sh, e2e_pleff.sh compare).
 */
static inline __attribute__((always_inline)) int
spin_end_none(const struct guest *g)
{
	/* (the run first: a host with PLE fails there) */
	return g->act == GA_SPIN && g->spin_fast && g->rem >= GUEST_FOREVER && !(g->pre > 0);
}

/* (sim: g->sim, the event's, known to the caller: one sim a run, so a
 * folded step's clock is the value sim_advance_known just stored) */
static inline void
guest_step(struct sim *sim, struct guest *g, int64_t data)
{
	sim_time_t now;

	if (__builtin_expect(data != EV_ACT, 0)) {	/* (one test for the common step) */
		if (data >= EV_SEG) {
			if (g->act == GA_WORK && g->seg && seg_chain(g))
				return;
			/* else EV_ACT's step */
		} else {
			settle_step(g);
			if (data == EV_RESUME)	/* a halt-poll saw its wake event */
				arm(g);
			else
				pre_step(g);
			return;
		}
	}
	now = sim->now;
	if (__builtin_expect(work_end_whole(g, now), 1)) {
		g->t0 = now;	/* settle_step's */
		g->rem = 0;
		step_work(g);
		return;
	}
	if (spin_end_none(g)) {
		g->t0 = now;	/* settle_step's */
		spin_step(g, now);
		return;
	}
	settle_step(g);
	switch (g->act) {
	case GA_WORK:
		step_work(g);
		break;
	case GA_MEM:
		mem_set(g, 0);
		step_cont(g);
		break;
	case GA_POLL:
	case GA_BUSY:
		step_cont(g);
		break;
	case GA_SPIN:
		spin_step(g, now);
		break;
	default:
		vs_fatal("guest: event in activity %d", g->act);
	}
}

void
guest_run(struct vcpu *v, double overhead_ns)
{
	struct guest *g = v->g;

	g->t0 = g->sim->now;
	g->pre += overhead_ns;
	g->sw = overhead_ns;
	/* a PLE-exited spinner's window: ple_in_window, after ple_in_arm */
	if (g->act == GA_SPIN && !g->in_ple)
		g->ple_left = ple_window(g);
	if (g->act == GA_HALT && g->polling && !g->woken) {
		/* LNX-6.12 kvm_vcpu_halt: the poll's deadline is wall time, start + window */
		g->poll_t0 = g->t0 + sim_ns(g->pre);
		hv_set_load(v, LOAD_SPIN);
		g->poll_ev = sim_at(vsim(v), g->poll_stop > g->poll_t0 ? g->poll_stop : g->poll_t0,
		    poll_over, g, 0);
	}
	if (g->entry_hook != NULL)
		g->entry_hook(v);	/* KVM vcpu_enter_guest: requests made while out */
	if (g->act == GA_SPIN && g->cond && g->cond_met)
		g->obs_at = g->t0 + sim_ns(g->pre);
	else if (g->act == GA_SPIN && !g->cond && g->wops->ready(g->lock, v))
		g->obs_at = g->t0 + sim_ns(g->pre + g->wops->seen_ns(g->lock, v));
	if (!ple_in_arm(g)) {
		ple_in_window(g);
		arm_body(g);	/* (inline: once a switch-in) */
	}
	deliver(g);	/* KVM vcpu_enter_guest: inject what became pending while out */
}

void
guest_stop(struct vcpu *v)
{
	struct guest *g = v->g;

	lazy_sync(g);

	settle(g);
	/* A switch-in cut short never entered the guest, so the next switch-in
	 * pays its own cost and owes nothing of this one (LNX-3.2 x86.c
	 * vcpu_enter_guest: need_resched() with irqs off cancels the entry, r = 1;
	 * Xen 4.2 hvm/vmx/entry.S: a pending softirq, the schedule, runs before the
	 * VM entry).  Guest work in pre (an exit's, a handler's) stays owed. */
	g->pre = g->pre > g->sw ? g->pre - g->sw : 0;
	g->sw = 0;
	ev_cancel_body(g);
	if (g->spin_on) {	/* v->pcpu goes once this returns */
		g->spin_on = 0;
		g->wops->spinning(g->lock, v, 0);
	}
	if (g->act == GA_HALT && g->polling)
		poll_charge(g);
	sim_cancel(g->sim, &g->poll_ev);	/* a preempted poll resumes on return */
	g->obs_at = -1;
	if (g->streaming)
		mem_set(g, 0);
	if (g->stop_hook != NULL)
		g->stop_hook(v);
}

void
guest_rerate(struct vcpu *v)
{
	struct guest *g = v->g;

	lazy_sync(g);

	if (g->act != GA_WORK || pre_left(g) > 0)
		return;
	settle(g);
	arm(g);
}

void
guest_woken(struct vcpu *v)
{
	struct guest *g = v->g;

	if (g->act != GA_HALT)
		return;
	g->woken = 1;
	/* still on its pCPU (the switch-out has not run): resume in its own event */
	if (v->pcpu != NULL) {
		ev_cancel(g);
		g->ev = sim_after(vsim(v), 0, guest_ev, g, EV_RESUME);
	}
}

/* guest_work up to its arm, inline in guest_work_then (each lock call's two
 * segments: a call per lock call less); 1: what is left is arm's work case
 * (no overhead to pay; on its pCPU, asserted), for the caller to take */
static inline __attribute__((always_inline)) int
work_set(struct vcpu *v, double ns, guest_fn done)
{
	struct guest *g = v->g;

	VS_ASSERT(v->pcpu != NULL);
	settle(g);
	/* (spin_fast: no probe watches, so a spin's end asks no hv for it) */
	if (g->act == GA_SPIN && !g->spin_fast && !g->cond)
		hv_probe(v->vm->hv, PR_SPIN_END, v->id, v->pcpu->id, g->lock, 0);
	g->cond = 0;
	g->act = GA_WORK;
	g->seg = 0;
	g->rem = ns > 0 ? ns : 0;
	g->cont = done;
	if (g->spin_on)
		spin_note(g);	/* arm's first step: a spin's end (the lock is told) */
	if (g->pre > 0) {
		arm(g);
		return 0;
	}
	return 1;
}

void
guest_work(struct vcpu *v, double ns, guest_fn done)
{
	v->g->then_ok = 0;	/* the step's first activity: a later one is not its last */
	if (work_set(v, ns, done))
		arm_work(v->g);
}

void
guest_tail_then(struct vcpu *v)
{
	v->g->then_ok = 1;
}

/* (gcc loads v->g again after guest_tail_take's pointer store, which may
 * alias it for all it knows: one g here for both stores) */
void
guest_tail_take_then(struct vcpu *v, guest_fn f)
{
	struct guest *g = v->g;

	if (tail_take(g, f))
		g->then_ok = 1;		/* guest_tail_then's */
}

/*
 * guest_work_then's boundary taken at once, in the step that armed its first
 * segment: that step ends with this call (then_ok), and the boundary comes
 * before every pending event (the second place's too), so guest_ev's next
 * step is this boundary (seg_chain), with nothing run and no place in the
 * order taken in between.  So mid runs now for the boundary's time, and the
 * second segment is armed as seg_chain would arm it there (the load and rate
 * are the first segment's: nothing ran since), in the first one's place in
 * the order, which comes where the second's would.  mid's < 0 leaves the
 * first segment alone: done runs at its end (guest_step), as after
 * seg_chain's 0.  0: not taken (tests/e2e_fold.sh, bench/ident.sh).  The
 * first segment's event is folded (arm_work's 1).  (Always inline: one call.)
 */
static inline __attribute__((always_inline)) int
seg_now(struct guest *g, guest_mid_fn mid)
{
	struct sim *s = g->sim;
	sim_time_t t1 = g->fold_t;
	double ns;

	/* (no spin to note: work_set ended it) */
	if (!(t1 < next_time(s) && t1 <= s->fold_end))
		return 0;
	/* the boundary's step, as guest_ev counts it: counted before mid and
	 * taken back if mid refuses, and t1 read back from the fold mid leaves
	 * alone, so neither lives across mid's calls (a cost figure, read at
	 * the run's end) */
	s->folded++;
	if ((ns = mid(g->v, t1)) < 0) {
		g->sim->folded--;
		return 1;
	}
	t1 = g->fold_t;
	g->t0 = t1;
	g->rem = ns > 0 ? ns : 0;
	g->fold_t = work_end(g, t1, g->rem);
	return 1;
}

/*
 * Two work segments in a row with no step of the caller's between them: at
 * the first one's end (its own event, as guest_work's) mid does what done
 * would have done there and gives the second's ns, whose event is armed as
 * done's guest_work would arm it; or mid finds done would do more (< 0) and
 * done runs.  mid vouches for the rest (interp.c wl_lock_then: the
 * workload's next compute after a lock call).  A step that ends with this
 * call may have the boundary taken at once (seg_now).
 */
void
guest_work_then(struct vcpu *v, double ns, guest_mid_fn mid, guest_fn done)
{
	struct guest *g = v->g;
	int now_ok;

	/* then_ok read after the arm (nothing in work_set or arm_work sets
	 * it: only a lock's observe does, guest_tail_then), so it does not
	 * live across their calls; cleared on every path, before mid */
	if (work_set(v, ns, done) && arm_work(g)) {
		now_ok = g->then_ok;
		g->then_ok = 0;
		if (now_ok && seg_now(g, mid))
			return;
		g->fold_data = EV_SEG;	/* its step: seg_chain's (guest_step) */
	} else
		g->then_ok = 0;
	g->seg = 1;
	g->seg_mid = mid;
}

/* A calibrated delay loop on rdtsc (Linux arch/x86/lib/delay.c delay_tsc):
 * busy on the pCPU until the clock reads until, however long the vCPU was
 * preempted meanwhile; one event at the deadline (or at the next entry). */
void
guest_busy_until(struct vcpu *v, int64_t until, guest_fn done)
{
	struct guest *g = v->g;

	VS_ASSERT(v->pcpu != NULL);
	settle(g);
	g->act = GA_BUSY;
	g->rem = 0;
	g->busy_until = until;
	g->cont = done;
	arm(g);
}

/* A memory transfer: bytes at the socket's shared bandwidth (mem_rate). */
void
guest_memory(struct vcpu *v, double bytes, guest_fn done)
{
	struct guest *g = v->g;

	VS_ASSERT(v->pcpu != NULL);
	settle(g);
	g->act = GA_MEM;
	g->rem = bytes > 0 ? bytes : 0;
	g->cont = done;
	arm(g);
}

double
guest_mem_rate(const struct vcpu *v)
{
	return v->pcpu != NULL && v->g->streaming ? v->g->rate : 0;
}

void
guest_begin(struct vcpu *v, guest_fn first)
{
	struct guest *g = v->g;

	g->ple_none = (unsigned char)kind_op_ple_off(v->vm->hv->kind, v->vm->hv);
	g->spin_fast = g->ple_none && g->ff && v->vm->hv->probe == NULL;
	/* (the end is sim_init's, fixed for the run: run.c) */
	g->whole = !g->ff ? 0 : g->sim->end < ((sim_time_t)1 << 53) ? GW_ENDED : GW_FF;
	g->act = GA_WORK;
	g->seg = 0;
	g->rem = 0;
	g->cont = first;
	arm(g);
}

/* a spin's activity: what guest_spin's two paths both set */
static inline void
spin_set(struct guest *g, struct glock *l, const struct guest_watch_ops *wops,
    double budget_ns, guest_fn on_budget, double window)
{
	g->act = GA_SPIN;
	g->cond = 0;
	g->lock = l;
	g->wops = wops;
	g->rem = budget_ns;
	g->cont = on_budget;
	g->obs_at = -1;
	g->ple_left = window;
}

/*
 * guest_spin's plain case: a waiter's spin at its acquire with no budget
 * (a ticket waiter's), settled (its step's settle_step), no overhead to
 * pay, nothing told to a lock (spin_on 0: work_set ended the last spin),
 * no event, fold, held event or unevented pre (a step's vCPU), its pCPU's
 * load the spin's or no sibling to re-rate, on a run with no PLE window,
 * no probe and the fast-forward on (spin_fast).  Then the general path's
 * settle, probe, arm_body and ev_clear do nothing but its stores, and the
 * lock is told last (its counts are read by no step of these), so the
 * whole is a few stores and a tail call.  fast_forward: false takes the
 * general path (tests/e2e_fold.sh compares the two).
 */
static inline int
spin_plain(const struct guest *g, const struct pcpu *p, double budget_ns)
{
	/* (>= for ==: the same for every double, one compare fewer) */
	return g->spin_fast && budget_ns >= GUEST_FOREVER && !g->spin_on && !(g->pre > 0) &&
	    g->t0 >= g->sim->now && g->ev == EVQ_NONE && !g->fold && !g->held &&
	    g->pre_end == SIM_NEVER && (p->load == LOAD_SPIN || !p->smt);
}

/* guest_spin's general path (out of line: the plain case keeps no frame) */
static __attribute__((noinline)) void
spin_slow(struct vcpu *v, struct glock *l, const struct guest_watch_ops *wops,
    double budget_ns, guest_fn on_budget)
{
	struct guest *g = v->g;

	settle(g);
	hv_probe(v->vm->hv, PR_SPIN_START, v->id, v->pcpu->id, l, 0);
	if (g->spin_on && g->lock != l) {	/* counted by the lock it spun on */
		g->spin_on = 0;
		g->wops->spinning(g->lock, v, 0);
	}
	spin_set(g, l, wops, budget_ns, on_budget, spin_window(g));
	if (g->pre > 0) {	/* a wake's entry still to pay (a lock's continuation
				 * run at a polled wake: check_kvm
				 * a_spin_after_a_polled_wake_pays_its_entry_first) */
		arm_body(g);
		return;
	}
	/* arm_body's steps for a spin on a pCPU with no overhead to pay (a
	 * waiter's at its acquire): the spin noted, then its case, without
	 * the activity's dispatch */
	spin_note(g);
	arm_spin(g);
}

void
guest_spin(struct vcpu *v, struct glock *l, const struct guest_watch_ops *wops,
    double budget_ns, guest_fn on_budget)
{
	struct guest *g = v->g;
	struct pcpu *p = v->pcpu;

	VS_ASSERT(p != NULL);
	if (!spin_plain(g, p, budget_ns)) {
		spin_slow(v, l, wops, budget_ns, on_budget);
		return;
	}
	g->t0 = g->sim->now;	/* settle's: nothing to charge */
	spin_set(g, l, wops, GUEST_FOREVER, on_budget, GUEST_FOREVER);	/* spin_window's, ple_none */
	p->load = LOAD_SPIN;	/* hv_pcpu_load's case of no sibling (or no change) */
	/* spin_note's: the lock counts it now (its only call, last) */
	g->spin_on = 1;
	wops->spinning(l, v, 1);
}

/* Linux kernel/smp.c csd_lock_wait: a PAUSE loop on a flag, so PLE sees it */
void
guest_spin_wait(struct vcpu *v, guest_fn seen)
{
	struct guest *g = v->g;

	VS_ASSERT(v->pcpu != NULL);
	settle(g);
	g->act = GA_SPIN;
	g->cond = 1;
	g->cond_met = 0;
	g->cond_seen = seen;
	g->rem = GUEST_FOREVER;
	g->cont = NULL;
	g->obs_at = -1;
	g->ple_left = spin_window(g);
	arm(g);
}

void
guest_spin_met(struct vcpu *v, double latency_ns)
{
	struct guest *g = v->g;
	sim_time_t at;

	VS_ASSERT(g->act == GA_SPIN && g->cond);
	g->cond_met = 1;
	if (v->pcpu == NULL)
		return;		/* seen on its next entry (guest_run) */
	settle(g);
	at = vsim(v)->now + sim_ns(g->pre + latency_ns);
	if (g->obs_at < 0 || at < g->obs_at)
		g->obs_at = at;
	arm(g);
}

void
guest_prefetch(const struct vcpu *v)
{
	__builtin_prefetch(v->g);
	__builtin_prefetch((const char *)v->g + 64);
	__builtin_prefetch((const char *)v->g + 128);
	__builtin_prefetch(v->pcpu);
}

/*
 * A poked spinner whose settle and arm come down to its spin's case alone:
 * no overhead to pay, no budget (a ticket waiter's: spin_end is its PLE
 * window's end, or SIM_NEVER), its spin noted (spin_note calls nothing),
 * its pCPU's load the spin's (hv_set_load stores nothing).  Every
 * hand-over of bench/peer-ticket.yaml and of seed001's ticket lock.
 * fast_forward: false takes the slow path (tests/e2e_fold.sh compares).
 */
static inline int
poke_plain(const struct guest *g, const struct pcpu *p)
{
	/* (>= for ==: the same for every double, one compare fewer) */
	return g->spin_on && g->rem >= GUEST_FOREVER && !(g->pre > 0) && g->ff &&
	    p->load == LOAD_SPIN;
}

/* poke_plain with no PLE window, asked through spin_fast: a run with no
 * window (ple_none: every spin's ple_left is GUEST_FOREVER).  (Else
 * poke_slow, whose poke_plain case makes the same steps.) */
static inline int
poke_fast(const struct guest *g, const struct pcpu *p)
{
	return g->spin_fast && poke_plain(g, p);
}

/* v spins on a lock, on a pCPU (guest_is_spinning, guest_is_running) */
static inline int
poke_spinner(const struct guest *g, const struct vcpu *v)
{
	return g->act == GA_SPIN && !g->cond && v->pcpu != NULL;
}

/* guest_poke's body but its plain case of no window (poke): v a spinner on
 * a pCPU (poke_spinner), its lazy steps applied (lazy_sync).  (Out of line:
 * that case keeps no frame for the calls here.) */
static __attribute__((noinline)) void
poke_slow(struct guest *g, struct vcpu *v, double latency_ns)
{
	sim_time_t at, now, el;

	if (poke_plain(g, v->pcpu)) {
		/* settle_step: t0, and settle_charge's spin case on the PLE
		 * window; the observation; then arm_body's spin case, the
		 * load already the spin's */
		now = g->sim->now;
		el = now - g->t0;
		g->t0 = now;
		at = now + sim_ns(latency_ns);	/* (pre is 0: poke_plain) */
		if (g->obs_at < 0 || at < g->obs_at)
			g->obs_at = at;
		if (el > 0 && g->ple_left != GUEST_FOREVER)
			g->ple_left = spin_left(g->ple_left, (double)el);
		arm_spin_event(g);
		return;
	}
	settle_step(g);
	at = vsim(v)->now + sim_ns(g->pre + latency_ns);
	if (g->obs_at < 0 || at < g->obs_at)
		g->obs_at = at;
	arm_body(g);
}

/* poke's event at t when another vCPU, o, waits in the fold's second place
 * (out of line, at 64 vCPUs 0.37 of the pokes, so that poke's plain case
 * makes no call it must come back from): ev_at's steps with what poke
 * knows (o is fold_other, folded, not g; g->ff: poke_fast), and
 * fold_take_other's inline, one call fewer */
static __attribute__((noinline)) void
poke_at_other(struct guest *g, struct guest *o, sim_time_t t)
{
	if (g->ev != EVQ_NONE ||
	    (g != fold_run && (fold_run == NULL || !fold_take_other_body(g, o, t)))) {
		ev_move(g, t, EV_ACT);
		return;
	}
	fold_place(g, t, EV_ACT);
}

/* guest_poke's body, v a spinner on a pCPU (poke_spinner), its lazy steps
 * applied (lazy_sync); nonneg: the caller's latency is never negative
 * (guest_poke_spinner's), so its rounding needs no test of it */
static inline __attribute__((always_inline)) void
poke(struct guest *g, struct vcpu *v, double latency_ns, int nonneg)
{
	struct guest *o;
	sim_time_t at, now;

	/* its step follows this one's: start the loads guest_step starts */
	__builtin_prefetch(g->wl);
	__builtin_prefetch(g->kcpu);
	__builtin_prefetch(v->rng);
	if (!poke_fast(g, v->pcpu)) {
		poke_slow(g, v, latency_ns);
		return;
	}
	/* no window (PLE off): settle_step's t0 (a spin's charge with no
	 * budget or window changes nothing), the observation, then
	 * arm_spin_event's case of no end but the observation (no budget:
	 * poke_plain), its event at once or in the fold, whose other vCPU's
	 * case goes out of line: every call here a tail call */
	now = g->sim->now;
	g->t0 = now;
	/* (pre is 0: poke_plain) */
	at = now + (nonneg ? sim_ns_nonneg(latency_ns) : sim_ns(latency_ns));
	if (g->obs_at < 0 || at < g->obs_at)
		g->obs_at = at;
	at = g->obs_at > now ? g->obs_at : now;
	if ((o = fold_other) != NULL && o != g && o->fold) {
		poke_at_other(g, o, at);
		return;
	}
	ev_at(g, at, EV_ACT);
}

/* guest_poke's steps: lazy ones first (they may end the spin) */
static inline void
poke_synced(struct vcpu *v, double latency_ns)
{
	struct guest *g = v->g;

	lazy_sync(g);
	if (!poke_spinner(g, v))
		return;
	poke(g, v, latency_ns, 0);
}

void
guest_poke(struct vcpu *v, double latency_ns)
{
	poke_synced(v, latency_ns);
}

/* guest_poke_spinner's case of lazy steps to apply first: guest_poke's
 * steps (out of line: a poke with none makes no call it must come back
 * from) */
static __attribute__((noinline)) void
poke_lazy(struct vcpu *v, double latency_ns)
{
	poke_synced(v, latency_ns);
}

/* guest_poke of a vCPU its caller found spinning on a pCPU (guest_is_running
 * && guest_is_spinning): tested again only after lazy steps (they may end
 * the spin), as guest_poke would; with none, the caller's test stands.
 * latency_ns is never negative (guest.h): its one caller, lock.c
 * lock_poke, passes handover_ns (0, own_ns's line costs, plus lock_tas.c's
 * wait of at least 0) plus a line cost, and a machine's line_ns are >= 0
 * (machine.c's bounds), so poke rounds it with sim_ns_nonneg. */
void
guest_poke_spinner(struct vcpu *v, double latency_ns)
{
	struct guest *g = v->g;

	if (__builtin_expect(g->lazy, 0)) {
		poke_lazy(v, latency_ns);
		return;
	}
	poke(g, v, latency_ns, 1);
}

static void
block_now(struct guest *g)
{
	struct vcpu *v = g->v;

	g->waited = 1;
	g->ctx_in0 = v->ctx_in;
	hv_probe(v->vm->hv, PR_HALT, v->id, v->pcpu->id, g->lock, 0);
	hv_set_load(v, LOAD_IDLE);
	hv_block(v);
}

static double
halt_poll(struct guest *g)
{
	struct hv *hv = g->v->vm->hv;

	return kind_op_halt_poll(hv->kind, hv, g->v);
}

/* The pCPU time polled since poll_t0 counts as this halt's polling. */
static void
poll_charge(struct guest *g)
{
	sim_time_t now = vsim(g->v)->now;

	if (now > g->poll_t0)
		g->poll_ns += (double)(now - g->poll_t0);
	g->poll_t0 = now;
}

/* LNX-4.5 kvm_main.c kvm_vcpu_block: the poll window ran out; sleep */
static void
poll_over(void *s, void *arg, int64_t data)
{
	struct guest *g = arg;

	g->poll_ev = EVQ_NONE;
	poll_charge(g);
	g->polling = 0;
	block_now(g);
}

static void
halt_now(struct vcpu *v)
{
	struct guest *g = v->g;
	sim_time_t now = vsim(v)->now;
	double w;

	g->act = GA_HALT;
	g->woken = 0;
	g->cont = g->after_halt;
	g->halt_t0 = now;
	g->poll_ns = 0;
	g->waited = 0;
	w = halt_poll(g);	/* once per halt: the hypervisor picks this halt's window */
	/* KVM x86.c kvm_vcpu_has_events: a pending pv_unhalted means no sleep */
	if (g->kicked && g->irq_wakes != HI_IDLE) {
		g->kicked = 0;
		finish_halt(g);
		return;
	}
	/* ... and so does a pending interrupt, for a HLT with interrupts on
	 * (one with nobody to take it, no guest kernel, never ends a halt) */
	if (g->irq_wakes != HI_OFF && g->irq_pending && g->irq_hook != NULL) {
		finish_halt(g);
		return;
	}
	if (w > 0) {
		g->polling = 1;
		g->poll_t0 = now;
		g->poll_stop = now + sim_ns(w);
		hv_set_load(v, LOAD_SPIN);
		g->poll_ev = sim_at(vsim(v), g->poll_stop, poll_over, g, 0);
		return;
	}
	block_now(g);
}

/* The HLT exit's round trip; bare metal: HLT/MWAIT idles the CPU, no exit. */
static double
hlt_exit_ns(struct hv *hv)
{
	return hv_native(hv) ? 0 : hv->m->exit_hlt_ns;
}

/* KVM x86.c kvm_emulate_halt -> kvm_vcpu_block: HLT exit, then sleep */
void
guest_halt(struct vcpu *v, double pre_ns, guest_fn on_wake)
{
	struct hv *hv = v->vm->hv;

	if (!hv_native(hv)) {
		hv->st.exits_hlt++;
		hv_probe(hv, PR_HLT_EXIT, v->id, v->pcpu->id, NULL, 0);
	}
	v->g->after_halt = on_wake;
	v->g->irq_wakes = HI_OFF;
	guest_work(v, pre_ns + hlt_exit_ns(hv), halt_now);
}

/* LNX-4.5 arch/x86/kernel/kvm.c kvm_wait: safe_halt() when the lock was taken
 * with interrupts enabled, so an interrupt ends the halt */
void
guest_halt_irqs(struct vcpu *v, double pre_ns, guest_fn on_wake)
{
	guest_halt(v, pre_ns, on_wake);
	v->g->irq_wakes = HI_LOCK;
}

/* Linux arch/x86 default_idle -> safe_halt (sti; hlt): an interrupt ends it */
void
guest_idle_halt(struct vcpu *v, double pre_ns, guest_fn on_wake)
{
	guest_halt(v, pre_ns, on_wake);
	v->g->irq_wakes = HI_IDLE;
}

/* Linux drivers/cpuidle/poll_state.c poll_idle: spin until need_resched or
 * the limit, in guest mode: no exit */
void
guest_poll(struct vcpu *v, double ns, guest_fn done)
{
	struct guest *g = v->g;

	VS_ASSERT(v->pcpu != NULL);
	settle(g);
	g->act = GA_POLL;
	g->rem = 0;
	g->busy_until = vsim(v)->now + sim_ns(ns > 0 ? ns : 0);
	g->gpoll_irq = 0;
	g->cont = done;
	arm(g);
}

/* An interrupt ends the poll (its handler may set need_resched); the
 * continuation looks, and polls on if nothing is to run. */
static void
poll_interrupted(struct guest *g)
{
	guest_fn f = g->cont;

	settle(g);
	ev_cancel(g);
	g->act = GA_NONE;
	g->cont = NULL;
	g->irq_pending = 0;
	g->gpoll_irq = 1;
	f(g->v);
}

int
guest_poll_interrupted(const struct vcpu *v)
{
	return v->g->gpoll_irq;
}

double
guest_polled_ns(const struct vcpu *v)
{
	return v->g->gpolled_ns;
}

/* KVM lapic.c kvm_apic_set_irq -> kvm_vcpu_kick: an interrupt for v */
void
guest_interrupt(struct vcpu *v)
{
	struct guest *g = v->g;

	lazy_sync(g);

	g->irq_pending = 1;
	if (g->irqs_off)
		return;		/* taken at guest_irqs_on */
	if (g->act == GA_HALT && g->irq_wakes && g->irq_hook != NULL) {
		guest_kick(v);		/* the same wake path as a kick: poll, or wake the thread */
		return;
	}
	if (g->act == GA_POLL && v->pcpu != NULL) {
		poll_interrupted(g);	/* poll_idle sees need_resched on its next check */
		return;
	}
	if (g->act == GA_POLL || v->pcpu == NULL)
		return;		/* taken when the poll resumes, or the vCPU runs, on a pCPU */
	deliver(g);
}

/* local_irq_disable / raw_spin_lock_irqsave: interrupts wait until
 * guest_irqs_on (local_irq_restore), which takes one pending at once. */
void
guest_irqs_off(struct vcpu *v)
{
	v->g->irqs_off = 1;
}

void
guest_irqs_on(struct vcpu *v)
{
	v->g->irqs_off = 0;
	deliver(v->g);
}

/* guest_interrupt's cases, before it runs */
enum guest_irq_at
guest_irq_at(const struct vcpu *v)
{
	const struct guest *g = v->g;

	if (g->act == GA_HALT)
		return g->irq_wakes && g->irq_hook != NULL ? GI_WAKES : GI_WAITS;
	if (g->act == GA_DONE || v->pcpu == NULL)
		return GI_WAITS;
	return GI_RUNNING;
}

int
guest_irq_deferred(const struct vcpu *v)
{
	/* guest_interrupt then sets irq_pending, deliver waits for the pCPU */
	return v->pcpu == NULL && v->g->act != GA_HALT && v->g->act != GA_POLL;
}

void
guest_set_irq_hook(struct vcpu *v, guest_fn hook)
{
	v->g->irq_hook = hook;
}

void
guest_set_sync_hook(struct vcpu *v, guest_fn hook)
{
	v->g->sync_hook = hook;
}

/* A tick's exit here ends without an event (pre_unevented's spin case),
 * and one a tick later finds it ended: settle leaves the spin as it is. */
int
guest_tick_quiet(const struct vcpu *v)
{
	const struct guest *g = v->g;
	const struct pcpu *p = v->pcpu;

	return p != NULL && g->rem == GUEST_FOREVER && !g->in_ple && g->ff &&
	    spin_unobserved(g, p) && !g->irqs_off && !g->irq_pending && !g->irq_wakes &&
	    g->ev == EVQ_NONE && !g->fold;
}

void
guest_tick_lazy(struct vcpu *v)
{
	v->g->lazy |= GL_TICKS;
}

/*
 * The n ticks' exits as the slow path leaves them: each tick's settle found
 * the last exit paid (its end is µs after it, the next tick a period on),
 * so pre 0, then pre_unevented's case for this one's exit_ns (n = 0: none;
 * exit_ns 0 on bare metal: no exit, nothing here).
 */
void
guest_tick_replay(struct vcpu *v, int64_t last, double exit_ns, uint64_t n)
{
	struct guest *g = v->g;

	g->lazy &= (unsigned char)~GL_TICKS;
	if (n == 0 || exit_ns <= 0)
		return;
	VS_ASSERT(g->pre_end <= last - (sim_time_t)1 && g->act == GA_SPIN);
	g->t0 = last;
	g->pre = exit_ns;
	g->sw = 0;
	g->pre_end = last + sim_ns(exit_ns);
	g->sim->folded += n;
}

void
guest_set_entry_hook(struct vcpu *v, guest_fn hook)
{
	v->g->entry_hook = hook;
}

void
guest_set_timer_hook(struct vcpu *v, guest_time_fn hook)
{
	v->g->timer_hook = hook;
}

static sim_time_t
guest_next_timer(const struct vcpu *v)
{
	return v->g->timer_hook != NULL ? v->g->timer_hook(v) : SIM_NEVER;
}

void
guest_set_stop_hook(struct vcpu *v, guest_fn hook)
{
	v->g->stop_hook = hook;
}

int
guest_is_cond_spinning(const struct vcpu *v)
{
	return v->g->act == GA_SPIN && v->g->cond;
}

int
guest_save(struct vcpu *v, double *rem, guest_fn *cont)
{
	struct guest *g = v->g;
	int mem = g->act == GA_MEM;

	lazy_sync(g);
	VS_ASSERT(g->act == GA_WORK || g->act == GA_MEM || g->act == GA_BUSY);
	/* only a task that may be preempted is saved, and a chained segment is
	 * a section's (lock.c lock_taken), preemption off */
	VS_ASSERT(!g->seg || g->act != GA_WORK);
	settle(g);
	ev_cancel(g);
	if (g->streaming)
		mem_set(g, 0);
	/* a busy wait keeps no work: its continuation knows its deadline */
	*rem = g->act == GA_BUSY ? 0 : g->rem;
	*cont = g->cont;
	g->act = GA_NONE;
	g->cont = NULL;
	return mem;
}

double
guest_overhead(struct vcpu *v, double ns)
{
	struct guest *g = v->g;

	lazy_sync(g);

	if (v->pcpu == NULL)
		return ns > 0 ? ns : 0;
	if (ns <= 0)
		return pre_left(g);
	settle(g);
	g->pre += ns;
	if (g->act == GA_SPIN && g->obs_at >= 0)
		g->obs_at += sim_ns(ns);
	arm(g);
	return g->pre;
}

/* KVM lapic.c APIC_DM_REMRD: set pv_unhalted, then kvm_vcpu_kick */
void
guest_kick(struct vcpu *v)
{
	struct guest *g = v->g;

	lazy_sync(g);

	if (g->act == GA_HALT && g->polling) {
		/* LNX-4.5 kvm_vcpu_block: the poll saw the event; no sleep (halt_successful_poll) */
		sim_cancel(vsim(v), &g->poll_ev);
		g->polling = 0;
		v->vm->hv->st.halt_polls_ok++;
		g->woken = 1;
		if (v->pcpu != NULL) {
			poll_charge(g);
			/*
			 * kvm_vcpu_check_block sees the event on the poll loop's next pass:
			 * the vCPU re-enters the guest in an event of its own, never inside
			 * the kicker's hypercall (whose caller may not be done with the lock).
			 */
			ev_cancel(g);
			g->ev = sim_after(vsim(v), 0, guest_ev, g, EV_RESUME);
		}
	} else if (g->act == GA_HALT && v->blocked)
		hv_wake(v);
	else if (g->act != GA_HALT)
		g->kicked = 1;
}

/* KVM vmx.c handle_io / handle_ept_misconfig, Xen handle_pio / handle_mmio,
 * QEMU kvm_cpu_exec for user exits; bare metal: no exit (hv/hv_io.h) */
void
guest_io(struct vcpu *v, enum guest_io kind, guest_fn done)
{
	struct hv *hv = v->vm->hv;
	double cost;
	enum io_path p = hv_io_route(hv->kind, hv->m, kind, &cost);

	hv->st.io_path[p]++;
	if (hv_io_exits(p)) {
		hv_probe(hv, PR_IO_EXIT, v->id, v->pcpu->id, NULL, (int)kind);
		if (kind == IO_HYPERCALL)
			hv->st.exits_hypercall++;
		else
			hv->st.exits_io++;
		hv->st.io_ns += cost;
	}
	guest_work(v, cost, done);
}

/* The sleep's timer: it wakes the halted vCPU, or ends its next halt. */
static void
sleep_over(void *s, void *arg, int64_t data)
{
	struct vcpu *v = arg;

	v->g->sleep_due = 1;
	guest_kick(v);
}

/* A wake of the sleep: by its timer, it is over; by an interrupt (whose
 * handler finish_halt ran), the idle loop halts again. */
static void
sleep_woken(struct vcpu *v)
{
	struct guest *g = v->g;
	guest_fn done = g->sleep_done;

	if (!g->sleep_due) {
		guest_halt_irqs(v, 0, sleep_woken);
		return;
	}
	g->sleep_done = NULL;
	done(v);
}

/*
 * Idle for ns as Linux's idle loop halts, with interrupts on (x86
 * default_idle -> safe_halt, sti; hlt; a Xen PV vCPU's xen_safe_halt blocks
 * with events enabled): an interrupt before the sleep's timer wakes the
 * vCPU, its handler runs, and it halts again.
 */
void
guest_sleep(struct vcpu *v, double ns, guest_fn done)
{
	v->g->sleep_done = done;
	v->g->sleep_due = 0;
	sim_after(vsim(v), sim_ns(hlt_exit_ns(v->vm->hv) + ns), sleep_over, v, 0);
	guest_halt_irqs(v, 0, sleep_woken);
}

void
guest_finish(struct vcpu *v)
{
	struct guest *g = v->g;

	g->act = GA_DONE;
	if (g->spin_on)
		spin_note(g);
	hv_set_load(v, LOAD_IDLE);
	hv_block(v);
}

int
guest_is_spinning(const struct vcpu *v)
{
	return v->g->act == GA_SPIN && !v->g->cond;	/* on a lock */
}

int
guest_is_running(const struct vcpu *v)
{
	return v->pcpu != NULL;
}

int
guest_is_halted(const struct vcpu *v)
{
	return v->g->act == GA_HALT;
}

int
guest_is_polling(const struct vcpu *v)
{
	return v->g->act == GA_HALT && v->g->polling && v->pcpu != NULL;
}

void
guest_poll_stop(struct vcpu *v)
{
	struct guest *g = v->g;

	if (!guest_is_polling(v))
		return;
	sim_cancel(vsim(v), &g->poll_ev);
	poll_charge(g);
	g->polling = 0;
	block_now(g);
}

/* lock.c's take has stopped counting v among its spinners (enter): what
 * spin_on says, so the spin's end (work_set's spin_note) tells it nothing */
void
guest_spin_uncounted(struct vcpu *v)
{
	v->g->spin_on = 0;
}

struct glock *
guest_lock(const struct vcpu *v)
{
	return v->g->lock;
}


struct glock *
guest_acquiring(const struct vcpu *v)
{
	return v->g->acquiring;
}

void
guest_set_acquiring(struct vcpu *v, struct glock *l)
{
	v->g->acquiring = l;
}

/*
 * v's guest state in a snapshot of a periodic run (ring_ff.c): every field
 * as it is, but its clocks (shifted by the period) and a pending fold's key
 * (relative to the queue's next), and which of the fold's two places it has.
 */
void
guest_ffs(struct ffs *s, struct vcpu *v)
{
	struct guest *g = v->g;

	if (g->lazy & GL_PLE)
		ple_sync(g);	/* the state as the event at its end leaves it */
	ffs_bytes(s, g, sizeof *g);
	/* read only under GL_PLE, which the sync cleared */
	ffs_skip(s, &g->late_t1, sizeof g->late_t1);
	ffs_skip(s, &g->late_rem, sizeof g->late_rem);
	ffs_skip(s, &g->late_w, sizeof g->late_w);
	ffs_time(s, &g->t0);
	if (g->obs_at >= 0)
		ffs_time(s, &g->obs_at);
	if (g->pre_end != SIM_NEVER)
		ffs_time(s, &g->pre_end);
	if (g->fold) {
		ffs_time(s, &g->fold_t);
		ffs_skip(s, &g->fold_key, sizeof g->fold_key);
		ffs_value(s, (int64_t)(evq_next_key(g->sim->q) - g->fold_key));
	} else {
		/* the last fold's, read only while fold is set (ev_at sets them first) */
		ffs_skip(s, &g->fold_t, sizeof g->fold_t);
		ffs_skip(s, &g->fold_key, sizeof g->fold_key);
	}
	ffs_value(s, (g == fold_run) | (g == fold_other) << 1);
}

/* The hv core's way up into this layer (hv.h). */
const struct hv_guest_ops guest_hv_ops = {
	.attach = guest_attach,
	.detach = guest_detach,
	.run = guest_run,
	.stop = guest_stop,
	.rerate = guest_rerate,
	.kept = guest_kept,
	.woken = guest_woken,
	.is_halted = guest_is_halted,
	.is_polling = guest_is_polling,
	.poll_stop = guest_poll_stop,
	.kick = guest_kick,
	.next_timer = guest_next_timer,
};
