/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_preempt.c - what a preemption in the middle costs (issue 28): on
 * tiny scenarios whose every delay follows from the mechanism, a preempted
 * lock holder, a preempted next waiter and queue head (pv-qspinlock before
 * and after lock stealing), a halted waiter and a preempted IPI target delay
 * the others exactly as the kernel's code makes them.
 *
 * The host preempts a guest vCPU with a second VM's vCPU that shares its
 * pCPU, sleeps, wakes (a long sleeper under CFS: it preempts at once,
 * GENTLE_FAIR_SLEEPERS' latency/2 of credit is more than the wakeup
 * granularity), computes P and halts for good: the preempted vCPU is
 * runnable for ctx_switch + P and pays ctx_switch again when it returns.
 */
#include "testutil.h"
#include "rig.h"

#include "hv/sched.h"
#include "hv/vcpu.h"

#define MAXV 8

/* The machine's costs, in ns at 1 GHz (written into every scenario). */
#define LINE	100	/* line_socket: every transfer here is within the socket */
#define CTX	1000	/* ctx_switch: the incoming vCPU's switch and VM entry */
#define WIPI	3000	/* wake_ipi: an idle pCPU's IPI and its exit from idle */
#define XHLT	500	/* exit_hlt */
#define XHC	1000	/* exit_hypercall */
#define IRQ	400	/* irq: a guest interrupt's entry */
#define MS	1000000LL

/* What the probe saw, per global vCPU id (first lock acquisition only). */
struct tl {
	sim_time_t wait[MAXV], take[MAXV], rel[MAXV];
	sim_time_t out[MAXV], in[MAXV];	/* its last preemption: switched out runnable, back in */
	sim_time_t halt[MAXV], kick[MAXV];	/* its first halt in acquire; when it was kicked */
	sim_time_t ipi_recv[MAXV], ipi_end[MAXV];
	int pcpu[MAXV];			/* the pCPU it first ran on */
	int order[MAXV], ntake, nkicks, nhalts;
	int rs[MAXV];
};

static void
tl_fn(void *ctx, const struct probe_ev *e)
{
	struct tl *t = ctx;
	int v = e->vcpu;

	if (v < 0 || v >= MAXV)
		return;
	switch (e->kind) {
	case PR_RUNSTATE:
		if (t->pcpu[v] < 0 && e->aux == RS_RUNNING)
			t->pcpu[v] = e->pcpu;
		if (e->aux == RS_RUNNABLE && t->rs[v] == RS_RUNNING)
			t->out[v] = e->t;
		if (e->aux == RS_RUNNING && t->rs[v] == RS_RUNNABLE && t->out[v] >= 0)
			t->in[v] = e->t;
		t->rs[v] = e->aux;
		break;
	case PR_LOCK_WAIT:
		if (tu_sched_lock(e))
			break;
		if (t->wait[v] < 0)
			t->wait[v] = e->t;
		break;
	case PR_LOCK_TAKEN:
		if (tu_sched_lock(e))
			break;
		if (t->take[v] < 0) {
			t->take[v] = e->t;
			if (t->ntake < MAXV)
				t->order[t->ntake++] = v;
		}
		break;
	case PR_LOCK_RELEASE:
		if (tu_sched_lock(e))
			break;
		if (t->rel[v] < 0)
			t->rel[v] = e->t;
		break;
	case PR_HALT:
		/* a halt inside acquire (a pv lock's slow path), not the idle loop's */
		if (t->wait[v] >= 0 && t->take[v] < 0) {
			if (t->halt[v] < 0)
				t->halt[v] = e->t;
			t->nhalts++;
		}
		break;
	case PR_KICK:
		if (e->aux >= 0 && e->aux < MAXV)
			t->kick[e->aux] = e->t;
		t->nkicks++;
		break;
	case PR_IPI_RECV:
		if (t->ipi_recv[v] < 0)
			t->ipi_recv[v] = e->t;
		break;
	case PR_IPI_WAIT_END:
		if (t->ipi_end[v] < 0)
			t->ipi_end[v] = e->t;
		break;
	default:
		break;
	}
}

static void
tl_init(struct tl *t)
{
	int i;

	memset(t, 0, sizeof *t);
	for (i = 0; i < MAXV; i++) {
		t->wait[i] = t->take[i] = t->rel[i] = t->out[i] = t->in[i] = -1;
		t->halt[i] = t->kick[i] = t->ipi_recv[i] = t->ipi_end[i] = -1;
		t->pcpu[i] = -1;
		t->rs[i] = RS_OFFLINE;
	}
}

/*
 * The guest VM g: one vCPU per program in progs (a, b, c, d: at most 4), its
 * vCPUs allowed on pCPUs 0..n-1, so each runs alone on one (the host places
 * them on the idlest pCPUs, in a random order); `pre`, if not NULL, is the
 * program of the preempting VM's single vCPU, allowed only on pCPU pre_pcpu.
 * The tasks are pinned so that program i runs on the guest vCPU the host put
 * on pCPU i: a first run finds where the host placed each vCPU.
 */
struct sc {
	const char *lock, *progs, *pre;
	int n, pre_pcpu;
};

static void
sc_text(const struct sc *s, const int *vcpu_on, char *buf, size_t len)
{
	static const char *const names[] = { "a", "b", "c", "d" };
	char tasks[512] = "", pre[256] = "", wl[256] = "";
	size_t k = 0;
	int i;

	for (i = 0; i < s->n; i++)
		k += (size_t)snprintf(tasks + k, sizeof tasks - k, "%s{program: %s, cpus: [%d]}",
		    i ? ", " : "", names[i], vcpu_on[i]);
	if (s->pre != NULL) {
		snprintf(pre, sizeof pre, "  - {name: p, vcpus: 1, affinity: \"%d\", workload: pre}\n",
		    s->pre_pcpu);
		snprintf(wl, sizeof wl, "  pre: {program: %s}\n", s->pre);
	}
	snprintf(buf, len,
	    "name: preempt\n"
	    "until: done\n"
	    "machine: {name: t, sockets: 1, cores_per_socket: 4, threads_per_core: 1, clock: 1GHz,\n"
	    "  cstates: [],\n"	/* the costs add up exactly: no C-state exits (check_idle) */
	    "  costs: {line_socket: %dns, line_same_core: 0ns, atomic: 0ns, ctx_switch: %dns,\n"
	    "          wake_ipi: %dns, exit_hlt: %dns, exit_hypercall: %dns, irq: %dns, pause: 10ns}}\n"
	    "hypervisor: {kind: kvm, scheduler: cfs, params: {scaling: none}}\n"
	    "vms:\n"
	    "  - {name: g, vcpus: %d, affinity: \"0-%d\", lock: %s, workload: w, guest: {hz: 0}}\n"
	    "%s"
	    "workloads:\n"
	    "%s"
	    "  w:\n"
	    "    programs: {%s}\n"
	    "    tasks: [%s]\n",
	    LINE, CTX, WIPI, XHLT, XHC, IRQ, s->n, s->n - 1, s->lock, pre, wl, s->progs, tasks);
}

/* The guest vCPU that ran program i in the last sc_run. */
static int last_on[4];

/* Run s; t sees it with each program's vCPU on pCPU = its index. */
static void
sc_run(const struct sc *s, struct tl *t, struct metrics *m)
{
	int on[4] = { 0, 1, 2, 3 }, i, found;
	char text[4096];
	struct probe p = { tl_fn, t };
	struct metrics m0;

	sc_text(s, on, text, sizeof text);
	tl_init(t);
	tu_run_check(text, 1, &p, 3, &m0);
	metrics_free(&m0);
	for (i = 0; i < s->n; i++) {
		for (found = 0; found < s->n && t->pcpu[found] != i; found++)
			;
		ck_assert_msg(found < s->n, "no guest vCPU on pCPU %d", i);
		on[i] = found;
	}
	sc_text(s, on, text, sizeof text);
	tl_init(t);
	tu_run_check(text, 1, &p, 3, m);
	for (i = 0; i < s->n; i++)
		ck_assert_int_eq(t->pcpu[on[i]], i);
	memcpy(last_on, on, sizeof last_on);
	/* from here on, index by program: vCPU on[i] ran program i */
	{
		struct tl c = *t;

		for (i = 0; i < s->n; i++) {
			t->wait[i] = c.wait[on[i]];
			t->take[i] = c.take[on[i]];
			t->rel[i] = c.rel[on[i]];
			t->out[i] = c.out[on[i]];
			t->in[i] = c.in[on[i]];
			t->halt[i] = c.halt[on[i]];
			t->kick[i] = c.kick[on[i]];
			t->ipi_recv[i] = c.ipi_recv[on[i]];
			t->ipi_end[i] = c.ipi_end[on[i]];
		}
		for (i = 0; i < t->ntake; i++) {
			for (found = 0; found < s->n && on[found] != c.order[i]; found++)
				;
			t->order[i] = found;
		}
	}
}

START_TEST(placement_is_found)
{
	struct sc s = { "ticket", "a: [{compute: 1ms}], b: [{compute: 1ms}], c: [{compute: 1ms}]",
	    "[{sleep: 30ms}, {compute: 5ms}]", 3, 0 };
	struct tl t;
	struct metrics m;

	sc_run(&s, &t, &m);
	metrics_free(&m);
}
END_TEST

/* The lock's metric m of run s. */
static double
lm(const struct metrics *m, const char *name)
{
	char full[128];

	snprintf(full, sizeof full, "g.l.%s", name);
	return tu_metric(m, full);
}

/* a holds 20 ms from 20 ms on; b and c ask at 21 and 22 ms (1 ms sections). */
#define ABC "a: [{compute: 20ms}, {acquire: l}, {compute: 20ms}, {release: l}], " \
	"b: [{compute: 21ms}, {acquire: l}, {compute: 1ms}, {release: l}], " \
	"c: [{compute: 22ms}, {acquire: l}, {compute: 1ms}, {release: l}]"
/* The preempting vCPU: wakes about 30 ms in (its sleep starts when it first
 * runs, at most a few ms after 0), runs P = 2 ms, and halts for good.  P
 * stays below the 3 ms that 3.2's check_preempt_tick gives it beside one
 * other vCPU (sched_slice: latency 6 ms / 2), so nothing splits it. */
#define PRE "[{sleep: 30ms}, {compute: 2ms}]"
#define P (2 * MS)

static const char *const fifo_locks[] = {
	"ticket", "qspinlock", "pv-ticket", "pv-qspinlock",
};

/*
 * A preempted lock holder (LNX-3.6 ticket, LNX-4.5 qspinlock and their PV
 * forms): nothing but the holder's unlock hands the lock on (ticket: head++;
 * qspinlock: the locked byte's release store; pv: the same, then the kick),
 * so every waiter behind it is delayed by exactly the holder's absence: its
 * preemption D = ctx_switch + P (the preempting vCPU's entry and work) and
 * its own switch back in, ctx_switch.  The hand-overs after its release are
 * the same as without the preemption (spinning or halted waiters alike),
 * and each waiter's wait holds the whole of D as holder preemption.
 */
START_TEST(preempted_holder_delays_every_waiter_by_its_absence)
{
	struct sc s = { fifo_locks[_i], ABC, PRE, 3, 0 }, c = s;
	struct tl t, u;
	struct metrics m, mc;
	sim_time_t d, shift;
	int w;

	c.pre = NULL;
	sc_run(&s, &t, &m);
	sc_run(&c, &u, &mc);
	ck_assert_int_eq(t.ntake, 3);
	ck_assert_int_eq(u.ntake, 3);
	/* the setup: a was preempted once, inside its section, for ctx + P */
	ck_assert(t.take[0] < t.out[0] && t.in[0] < t.rel[0]);
	d = t.in[0] - t.out[0];
	ck_assert_int_eq(d, CTX + P);
	ck_assert_int_eq(u.out[0], -1);
	/* the holder's section is longer by D and its switch back in */
	ck_assert_int_eq((t.rel[0] - t.take[0]) - (u.rel[0] - u.take[0]), d + CTX);
	/* every waiter takes the lock that much later (b and c ask at the same
	 * times in both runs), in the same order */
	shift = t.rel[0] - u.rel[0];
	for (w = 1; w < 3; w++) {
		ck_assert_int_eq(t.order[w], u.order[w]);
		ck_assert_msg(t.take[w] - u.take[w] == shift, "%s: %c takes %lld ns later, the "
		    "holder released %lld ns later", s.lock, 'a' + w,
		    (long long)(t.take[w] - u.take[w]), (long long)shift);
	}
	/* b's and c's waits each hold all of D as holder preemption */
	ck_assert_double_eq_tol(3 * lm(&m, "wait_holder_preempted_ns"), 2.0 * (double)d, 1e-3);
	ck_assert_double_eq(lm(&mc, "wait_holder_preempted_ns"), 0);
	ck_assert_double_eq_tol(lm(&m, "wait_handover_ns"), lm(&mc, "wait_handover_ns"), 1e-3);
	metrics_free(&m);
	metrics_free(&mc);
}
END_TEST

/*
 * A halted waiter (LNX-3.18 pv-ticket kvm_lock_spinning, LNX-4.5
 * pv_wait_head_or_lock / pv_wait_node): b and c spin SPIN_THRESHOLD (32768
 * x 10 ns) and halt long before a's release.  The unlock hands the lock to
 * the halted next owner and kicks it only after its own store (3.18
 * arch_spin_unlock: add_smp, then the flag test and __ticket_unlock_kick;
 * 4.5 __pv_queued_spin_unlock: the cmpxchg, then unhash, release store,
 * pv_kick), so the kicked vCPU is woken the store's wait for the lock
 * word's line after the release (release visibility: from the last writer,
 * a waiter's flag or hash write on another core: one transfer; nobody spins
 * on it now).  KVM_HC_KICK_CPU -> kvm_vcpu_kick wakes its thread on an idle
 * pCPU (wake_ipi), which switches it in (ctx_switch); it takes the lock
 * there.  Each hand-over down the queue costs that again: the cascade of a
 * halted queue.  (The kick is issued when the hypercall starts: the VM exit's
 * share of exit_hypercall before KVM's handler runs is not split out.)
 */
START_TEST(halted_waiters_cost_a_kick_each)
{
	static const char *const pv[] = {
		"pv-ticket", "pv-qspinlock", "{kind: pv-qspinlock, steal: none}",
	};
	struct sc s = { pv[_i], "a: [{compute: 20ms}, {acquire: l}, {compute: 5ms}, {release: l}], "
	    "b: [{compute: 21ms}, {acquire: l}, {compute: 1ms}, {release: l}], "
	    "c: [{compute: 22ms}, {acquire: l}, {compute: 1ms}, {release: l}]", NULL, 3, 0 };
	struct tl t;
	struct metrics m;

	sc_run(&s, &t, &m);
	ck_assert_int_eq(t.ntake, 3);
	ck_assert(t.halt[1] > 0 && t.halt[1] < t.rel[0] && t.halt[2] > 0 && t.halt[2] < t.rel[0]);
	ck_assert_int_eq(t.order[1], 1);
	ck_assert_int_eq(t.order[2], 2);
	ck_assert_int_eq(t.nkicks, 2);
	/* a's store first fetches the word's line from the waiter that wrote it
	 * last (c's slow-path flag or hash, on another core): one transfer; then
	 * the kick's wake-up and switch */
	ck_assert_int_eq(t.take[1] - t.rel[0], LINE + WIPI + CTX);
	/* b's release: b itself wrote the word last (its take): a local hit */
	ck_assert_int_eq(t.take[2] - t.rel[1], WIPI + CTX);
	metrics_free(&m);
}
END_TEST

/*
 * A parked waiter of the spin-then-park mutex (glibc lll_unlock:
 * atomic_exchange_rel(word, 0), then, the word having been 2,
 * lll_futex_wake; LNX-6.6 futex_wake -> wake_up_q -> try_to_wake_up sends
 * the reschedule IPI inside that syscall): b spins spin_count (100 x 10 ns)
 * and parks long before a's release.  a's xchg first fetches the word's
 * line from b, which wrote 2 into it last (one transfer), and only then is
 * b woken: its wake-up (wake_ipi) and switch-in, where its xchg takes the
 * lock (the line's way back is that xchg's cost, after the take).  Waking b
 * when the release began made both one transfer earlier.
 */
START_TEST(spinpark_wakes_the_sleeper_after_its_store)
{
	struct sc s = { "{kind: spinpark, adaptive: false}",
	    "a: [{compute: 20ms}, {acquire: l}, {compute: 5ms}, {release: l}], "
	    "b: [{compute: 21ms}, {acquire: l}, {compute: 1ms}, {release: l}]", NULL, 2, 0 };
	struct tl t;
	struct metrics m;

	sc_run(&s, &t, &m);
	ck_assert_int_eq(t.ntake, 2);
	ck_assert_int_eq(t.order[1], 1);
	ck_assert(t.halt[1] > 0 && t.halt[1] < t.rel[0]);
	ck_assert_int_eq(t.nkicks, 1);
	ck_assert_int_eq(t.kick[1] - t.rel[0], LINE);
	ck_assert_int_eq(t.take[1] - t.rel[0], LINE + WIPI + CTX);
	metrics_free(&m);
}
END_TEST

/*
 * A preempted next owner.  b asks for the lock 200 us before the host
 * preempts it (the preempting vCPU wakes at W), c and a newcomer d after it;
 * a releases in the middle of b's absence.  Nothing but b can take the lock
 * then: the ticket lock hands it to the next ticket (LNX-3.6 ticket: head++,
 * only that ticket's owner sees its turn); the queued spinlock's head spins
 * with pending set (LNX-4.5 qspinlock.c: the head waits for locked_pending;
 * qspinlock_paravirt.h pv_wait_head_or_lock: set_pending before the
 * SPIN_THRESHOLD loop), and a newcomer steals only when locked and pending
 * are both clear (pv_queued_spin_steal_lock; 4.2's queued_spin_trylock needs
 * the whole word 0; the hybrid trylock also stops at pending), so in every
 * variant the lock stays free from a's release until b runs again, c and d
 * wait all of it, and it is counted as hand-over, not holder preemption.
 * (The pv locks spin here without a threshold: the halted waiters are the
 * tests above and below; a halt would idle a pCPU that pulls b.)
 */
static const char *const head_locks[] = {
	"ticket", "qspinlock", "{kind: pv-ticket, spin_threshold: 1e8}",
	"{kind: pv-qspinlock, spin_threshold: 1e8}",
	"{kind: pv-qspinlock, steal: none, spin_threshold: 1e8}",
	"{kind: pv-qspinlock, steal: hybrid, spin_threshold: 1e8}",
};

/* Everybody computes on after its section, so no pCPU goes idle and pulls
 * the preempted b (newidle balance): b returns when the host gives its pCPU
 * back.  tb: when b asks (from its program's start). */
static void
head_progs(char *buf, size_t len, sim_time_t hold, sim_time_t tb)
{
	snprintf(buf, len, "a: [{compute: 20ms}, {acquire: l}, {compute: %lldns}, {release: l}, {compute: 40ms}], "
	    "b: [{compute: %lldns}, {acquire: l}, {compute: 1ms}, {release: l}, {compute: 40ms}], "
	    "c: [{compute: %lldns}, {acquire: l}, {compute: 1ms}, {release: l}, {compute: 40ms}], "
	    "d: [{compute: %lldns}, {acquire: l}, {compute: 1ms}, {release: l}, {compute: 40ms}]",
	    (long long)hold, (long long)tb, (long long)tb + 50000, (long long)tb + 100000);
}

START_TEST(preempted_next_owner_keeps_the_lock_free_until_it_runs)
{
	char progs[512];
	struct sc s = { head_locks[_i], progs, PRE, 4, 1 };
	struct tl t;
	struct metrics m;
	sim_time_t w, sb, ta, r;
	int k;

	/* find the preemption: b asks early (at 21 ms, from its start) and
	 * computes through it */
	head_progs(progs, sizeof progs, 1 * MS, 21 * MS);
	sc_run(&s, &t, &m);
	metrics_free(&m);
	w = t.out[1];
	sb = t.wait[1] - 21 * MS;	/* b's program began here */
	ta = t.take[0];
	ck_assert(w > 25 * MS && t.in[1] - w == CTX + P);
	/* b asks 200 us before W (within SPIN_THRESHOLD x 10 ns of spinning:
	 * it still spins when preempted), a releases at W + P / 2 */
	head_progs(progs, sizeof progs, w + P / 2 - ta, w - 200000 - sb);
	sc_run(&s, &t, &m);
	ck_assert_int_eq(t.ntake, 4);
	ck_assert_int_eq(t.out[1], w);			/* the same preemption */
	ck_assert(t.wait[1] < w && t.halt[1] < 0);	/* b asked, spinning, before it */
	r = t.rel[0];
	ck_assert(r > w && r < t.in[1]);		/* a released while b was out */
	ck_assert(t.wait[2] < r && t.wait[3] < r);
	/* b is next and takes the lock when it runs again, not before: its
	 * switch back in, then one transfer of the word it re-reads */
	ck_assert_int_eq(t.order[1], 1);
	ck_assert_int_eq(t.take[1] - t.in[1], CTX + LINE);
	for (k = 2; k < 4; k++)
		ck_assert(t.take[k] > t.rel[1]);
	/* the free lock's idle time is in every waiter's wait: b's, c's, d's
	 * (a's own acquisition waited nothing) */
	ck_assert_double_ge(4 * lm(&m, "wait_handover_ns"), 3.0 * (double)(t.take[1] - r));
	ck_assert_double_eq(lm(&m, "wait_holder_preempted_ns"), 0);
	metrics_free(&m);
}
END_TEST

/*
 * A halted queue head, kicked at unlock (LNX-4.5 __pv_queued_spin_unlock:
 * _Q_SLOW_VAL, unhash, release store, pv_kick), and a newcomer d that asks
 * just after the release, while the kick is on its way.  The halted head
 * cleared pending before it hashed (pv_wait_head_or_lock: clear_pending),
 * so with lock stealing (4.5 "Allow limited lock stealing",
 * pv_queued_spin_steal_lock: locked and pending clear) d takes the free lock
 * at once and the woken head finds it locked (qstat_pv_spurious_wakeup),
 * spins again and takes it at d's release; without it (4.2-4.4:
 * queued_spin_trylock needs the whole word 0, the tail is set) d queues
 * behind the head and c and waits for both.
 */
START_TEST(halted_head_and_a_newcomer_before_and_after_stealing)
{
	static const char *const locks[] = {
		"{kind: pv-qspinlock, steal: none}", "pv-qspinlock",
	};
	char progs[512];
	struct sc s = { locks[_i], progs, NULL, 4, 0 };
	struct tl t;
	struct metrics m;
	sim_time_t r, sd;

	/* find a's release; d asks 1 us after it (the kick takes longer) */
	snprintf(progs, sizeof progs, "a: [{compute: 20ms}, {acquire: l}, {compute: 5ms}, {release: l}], "
	    "b: [{compute: 21ms}, {acquire: l}, {compute: 1ms}, {release: l}], "
	    "c: [{compute: 22ms}, {acquire: l}, {compute: 1ms}, {release: l}], "
	    "d: [{compute: 40ms}, {acquire: l}, {compute: 1ms}, {release: l}]");
	sc_run(&s, &t, &m);
	metrics_free(&m);
	r = t.rel[0];
	sd = t.wait[3] - 40 * MS;
	snprintf(progs, sizeof progs, "a: [{compute: 20ms}, {acquire: l}, {compute: 5ms}, {release: l}], "
	    "b: [{compute: 21ms}, {acquire: l}, {compute: 1ms}, {release: l}], "
	    "c: [{compute: 22ms}, {acquire: l}, {compute: 1ms}, {release: l}], "
	    "d: [{compute: %lldns}, {acquire: l}, {compute: 1ms}, {release: l}]",
	    (long long)(r + 1000 - sd));
	sc_run(&s, &t, &m);
	ck_assert_int_eq(t.rel[0], r);
	ck_assert_int_eq(t.wait[3], r + 1000);
	ck_assert(t.halt[1] > 0 && t.halt[1] < r && t.halt[2] > 0 && t.halt[2] < r);
	ck_assert_int_eq(t.ntake, 4);
	if (_i == 0) {
		/* FIFO: b (kicked), c, then d */
		ck_assert_int_eq(t.order[1], 1);
		ck_assert_int_eq(t.order[2], 2);
		ck_assert_int_eq(t.order[3], 3);
	} else {
		/* d steals the lock in the kick's window; b's wake is spurious */
		ck_assert_int_eq(t.order[1], 3);
		ck_assert(t.take[3] - t.wait[3] < 1000);
		ck_assert_int_eq(t.order[2], 1);
		ck_assert(t.take[1] > t.rel[3]);
	}
	metrics_free(&m);
}
END_TEST

/*
 * A preempted IPI target, and the lock its sender holds (LNX-4.5
 * kernel/smp.c smp_call_function_many with wait: the sender spins in
 * csd_lock_wait until the target's handler has run the function and
 * cleared the csd flag; a spinlock holder that sends one keeps the lock
 * meanwhile).  a takes the lock and sends to b while the host has b
 * preempted; c waits for the lock.  b takes the interrupt when it runs
 * again (its switch in, the interrupt's entry, the function, the csd
 * line back to a), so a's wait is b's remaining absence and those costs,
 * and c waits all of it behind a running holder: an IPI wait, not holder
 * preemption.
 */
START_TEST(preempted_ipi_target_delays_the_sender_and_its_lock_waiters)
{
	char progs[640];
	struct sc s = { "ticket", progs, PRE, 3, 1 };
	struct tl t;
	struct metrics m;
	sim_time_t w, sa, send;

	/* find the preemption of b (computing throughout) and a's start */
	snprintf(progs, sizeof progs, "a: [{compute: 20ms}, {acquire: l}, {compute: 1ms}, {release: l}, {compute: 40ms}], "
	    "b: [{compute: 60ms}], "
	    "c: [{compute: 60ms}]");
	sc_run(&s, &t, &m);
	metrics_free(&m);
	w = t.out[1];
	sa = t.wait[0] - 20 * MS;
	ck_assert(w > 25 * MS && t.in[1] - w == CTX + P);
	/* a takes the lock at W + P / 2 and sends to b's vCPU; c asks 10 us later */
	send = w + P / 2;
	snprintf(progs, sizeof progs, "a: [{compute: %lldns}, {acquire: l}, {ipi: {to: %d, wait: true, cost: 700ns}}, "
	    "{release: l}, {compute: 40ms}], "
	    "b: [{compute: 60ms}], "
	    "c: [{compute: %lldns}, {acquire: l}, {compute: 1ms}, {release: l}, {compute: 40ms}]",
	    (long long)(send - sa), last_on[1], (long long)(send - sa + 10000));
	sc_run(&s, &t, &m);
	ck_assert_int_eq(t.out[1], w);
	ck_assert(t.take[0] > w && t.take[0] < t.in[1]);
	ck_assert_int_eq(t.ipi_recv[1], t.in[1]);	/* when b runs guest code again */
	/* a's wait ends with b's entry, the interrupt, the function and the
	 * csd line; its release begins at once */
	ck_assert_int_eq(t.ipi_end[0] - t.in[1], CTX + IRQ + 700 + LINE);
	ck_assert_int_eq(t.rel[0], t.ipi_end[0]);
	/* c spins on the word behind the running holder: a's store fetches the
	 * line from c (its ticket xadd wrote it last), c's read brings it back */
	ck_assert_int_eq(t.take[2] - t.rel[0], 2 * LINE);
	ck_assert_double_eq(lm(&m, "wait_holder_preempted_ns"), 0);
	ck_assert_double_ge(tu_metric(&m, "g.ipi_wait_mean_ns"), (double)(t.in[1] - t.take[0]));
	metrics_free(&m);
}
END_TEST

/* ---- the host's wakeup latency for a vCPU thread among busy ones ---- */

#define NWAKE 12

/* One pCPU (sysctl factor 1), n always-runnable vCPU threads and a vCPU s
 * that sleeps 100 ms and wakes 0.3 ms past a host tick (HZ 1000: ticks at
 * whole ms), runs 20 ms, NWAKE times; lat[k] is each wake to its switch in. */
struct wl {
	struct rig *t;
	struct vcpu *s;
	sim_time_t woke, lat[NWAKE];
	int k;
};

static void
wl_fn(void *ctx, const struct probe_ev *e)
{
	struct wl *w = ctx;

	if (e->kind == PR_RUNSTATE && w->s != NULL && e->vcpu == w->s->id && e->aux == RS_RUNNING &&
	    w->woke >= 0) {
		w->lat[w->k++] = e->t - w->woke;
		w->woke = -1;
	}
}

static void wl_block(void *sim, void *arg, int64_t data);

static void
wl_wake(void *sim, void *arg, int64_t data)
{
	struct wl *w = arg;

	w->woke = w->t->sim.now;
	hv_wake(w->s);
	/* run a while (long enough to be switched out again), then sleep */
	sim_after(&w->t->sim, 20 * MS, wl_block, w, 0);
}

static void
wl_block(void *sim, void *arg, int64_t data)
{
	struct wl *w = arg;

	if (w->k >= NWAKE || w->woke >= 0)
		return;
	hv_block(w->s);
	sim_at(&w->t->sim, (w->t->sim.now / MS + 100) * MS + 300000, wl_wake, w, 0);
}

static void
wake_lat(const struct sched_ops *ops, const char *params, int n, struct wl *w)
{
	struct rig t;
	struct probe p = { wl_fn, w };
	char name[16];
	int i;

	memset(w, 0, sizeof *w);
	w->t = &t;
	w->woke = -1;
	rig_init(&t, ops, "{sockets: 1, cores_per_socket: 1, threads_per_core: 1, clock: 1GHz}",
	    params, (sim_time_t)(NWAKE + 1) * 150 * MS);
	for (i = 0; i <= n; i++) {
		snprintf(name, sizeof name, "v%d", i);
		hv_add_vm(&t.hv, name, 1, NULL, "test");
	}
	t.hv.probe = &p;
	rig_start(&t);
	w->s = t.hv.vcpus[n];
	sim_at(&t.sim, 10 * MS + 500000, wl_block, w, 0);
	sim_run(&t.sim);
	hv_finish(&t.hv);
	rig_free(&t);
	ck_assert_int_eq(w->k, NWAKE);
}

static const int wake_n[] = { 1, 3, 7, 15 };

/*
 * CFS (LNX-3.2 sched_fair.c): a thread woken after a long sleep is placed
 * at min_vruntime - sysctl_sched_latency / 2 (place_entity,
 * GENTLE_FAIR_SLEEPERS: 3 ms), and curr, never left of min_vruntime, is
 * then more than wakeup_granularity (1 ms) right of it
 * (wakeup_preempt_entity): it preempts at once, however many threads are
 * runnable (the period stretching past nr_latency changes sched_slice, not
 * this; the sleep, 100 ms, moves min_vruntime on by more than 3 ms for
 * every n here, so the credit applies).  With wakeup_granularity 10 ms
 * nothing preempts at the wake (curr is less than 7 ms right of
 * min_vruntime): the woken thread, leftmost, waits for the next tick, where
 * check_preempt_tick reschedules curr (picked at a tick at least one tick
 * before, it ran at least min_granularity and is more than the ideal slice,
 * at most 3 ms, right of the woken one) and pick_next_entity takes it.
 */
START_TEST(cfs_wakeup_latency_follows_sleeper_credit)
{
	struct wl w;
	int k;

	wake_lat(&sched_cfs_ops, NULL, wake_n[_i], &w);
	for (k = 0; k < NWAKE; k++)
		ck_assert_msg(w.lat[k] == 0, "n %d wake %d: %lld ns", wake_n[_i], k, (long long)w.lat[k]);
	wake_lat(&sched_cfs_ops, "{wakeup_granularity: 10ms}", wake_n[_i], &w);
	for (k = 0; k < NWAKE; k++)
		ck_assert_msg(w.lat[k] == 700000, "n %d wake %d: %lld ns", wake_n[_i], k,
		    (long long)w.lat[k]);
}
END_TEST

/*
 * EEVDF (LNX-6.6 fair.c): no sleeper credit; place_entity puts the woken
 * thread at V minus the lag it left with (PLACE_LAG; the lag clamped to
 * max(2 slice, TICK_NSEC) = 1.5 ms by update_entity_lag), and
 * check_preempt_wakeup preempts only if pick_eevdf picks it now, which
 * RUN_TO_PARITY refuses while curr is eligible and within its request.
 * Without HRTICK the only other reschedule is update_deadline at a tick, so
 * a wake is served at once or at a tick (0.7 ms + whole ms after it).  The
 * woken thread is eligible once V reaches its vruntime (at most 1.5 ms x
 * (n + 1) / n right of V, and V moves at 1 / (n + 1) of the time), and
 * then waits at most for each other thread's request (one tick each).
 * Unlike CFS, woken threads wait, longer with more runnable ones (beside
 * 15: up to 18 ms here); with RUN_TO_PARITY off no more of them wait.
 */
START_TEST(eevdf_wakeup_latency_follows_lag_and_run_to_parity)
{
	int n = wake_n[_i], k, waited = 0, waited_np = 0;
	double bound = 1.5e6 * (n + 1) * (n + 1) / n + (n + 2) * 1e6;
	struct wl w;

	wake_lat(&sched_eevdf_ops, NULL, n, &w);
	for (k = 0; k < NWAKE; k++) {
		ck_assert_msg(w.lat[k] == 0 || w.lat[k] % MS == 700000, "n %d wake %d: %lld ns", n,
		    k, (long long)w.lat[k]);
		ck_assert_double_le((double)w.lat[k], bound);
		waited += w.lat[k] > 0;
	}
	/* beside one busy thread the woken one is eligible with the earlier
	 * deadline by the tick; beside 3 or more, some wakes wait several */
	if (n >= 3)
		ck_assert_int_gt(waited, NWAKE / 2);
	wake_lat(&sched_eevdf_ops, "{run_to_parity: false}", n, &w);
	for (k = 0; k < NWAKE; k++) {
		ck_assert(w.lat[k] == 0 || w.lat[k] % MS == 700000);
		waited_np += w.lat[k] > 0;
	}
	ck_assert_int_le(waited_np, waited);
}
END_TEST

/*
 * A switch-in cut short (the ipi-ebizzy livelock of issue 28): spinners'
 * PLE exits yield_to (LNX-3.2 kvm_vcpu_on_spin, 3.2 yield_to: next buddy
 * and resched_task of the target's pCPU) whichever of two vCPUs stacked on
 * one pCPU is not running, faster than a switch-in completes, so neither
 * enters the guest (LNX-3.2 x86.c vcpu_enter_guest: need_resched() cancels
 * the entry).  Each new switch-in pays its own ctx_switch and owes nothing
 * of the ones cut short: once the yields stop, the holder's work ends
 * ctx_switch + W after its last switch-in, plus the guest work (an
 * interrupt's handler, X) it was given inside one of the cut switch-ins,
 * which is the guest's and stays owed.  Before the fix the unpaid rest of
 * every cut switch-in was carried: 60 of them put 120 us more in front of
 * W, and in ipi-ebizzy (seed 2) milliseconds, so the zone lock's holder
 * never got to its section's end.  The wakeup granularity is wide enough
 * that pick_next_entity always takes the next buddy, as it did there (the
 * two vCPUs' vruntimes 2.6 ms apart, the granularity 4 ms): START_DEBIT puts
 * a new thread more than the default 1 ms right of the first.
 */
#define CUT_N	120		/* yields, 1 us apart: each < ctx_switch */
#define CUT_W	(50 * 1000)	/* the holder's work */
#define CUT_X	(10 * 1000)	/* guest work given inside a cut switch-in */
#define CUT_CTX	3000		/* ctx_switch: 6000 cycles at 2 GHz */

static struct {
	struct vcpu *a, *b, *c;		/* a, b share pCPU 0; c yields from pCPU 1 */
	sim_time_t a_in, a_done;	/* a's last switch-in; its work's end */
	int x_given;
} cut;

static void
cut_a_done(struct vcpu *v)
{
	cut.a_done = v->vm->hv->sim->now;
	guest_work(v, 1e12, NULL);	/* stay busy: nothing more to see */
}

static void
cut_a_first(struct vcpu *v)
{
	guest_work(v, CUT_W, cut_a_done);
}

static void
cut_busy(struct vcpu *v)
{
	guest_work(v, 1e12, NULL);
}

static void
cut_irq(void *sim, void *arg, int64_t data)
{
	ck_assert_ptr_nonnull(cut.a->pcpu);	/* inside its switch-in */
	guest_overhead(cut.a, CUT_X);
}

static void
cut_yield(void *sim, void *arg, int64_t k)
{
	struct sim *s = sim;
	struct vcpu *to = cut.a->pcpu == NULL ? cut.a : cut.b;

	if (k == CUT_N && to != cut.a)
		return;		/* the last one leaves a running */
	ck_assert_int_gt(hv_yield_to(cut.c, to), 0);
	if (to == cut.a) {
		cut.a_in = s->now;	/* its switch-in follows at once */
		if (!cut.x_given && k > CUT_N / 2) {
			cut.x_given = 1;
			sim_at(s, s->now + 500, cut_irq, NULL, 0);
		}
	}
	if (k < CUT_N)
		sim_at(s, s->now + 1000, cut_yield, NULL, k + 1);
}

START_TEST(a_switch_in_cut_short_is_not_owed)
{
	unsigned char aff[2] = { 1, 1 };
	struct rig t;
	struct vm *vm;

	memset(&cut, 0, sizeof cut);
	cut.a_done = -1;
	rig_init(&t, &sched_cfs_ops, "{sockets: 1, cores_per_socket: 2, threads_per_core: 1, "
	    "clock: 2GHz, cstates: [], costs: {ctx_switch: 6000cycles}}",
	    "{wakeup_granularity: 50ms}", 2 * MS);
	vm = hv_add_vm(&t.hv, "g", 3, aff, "test");
	cut.a = vm->vcpus[0];
	cut.b = vm->vcpus[1];
	cut.c = vm->vcpus[2];
	rig_aff(&t, cut.a, 1);
	rig_aff(&t, cut.b, 1);
	rig_aff(&t, cut.c, 2);
	rig_start(&t);
	guest_begin(cut.a, cut_a_first);
	guest_begin(cut.b, cut_busy);
	guest_begin(cut.c, cut_busy);
	sim_at(&t.sim, 1000, cut_yield, NULL, 1);
	sim_run(&t.sim);
	ck_assert(cut.x_given);
	ck_assert_ptr_eq(cut.a->pcpu, &t.hv.pcpus[0]);
	ck_assert_int_ge(cut.a->ctx_in, CUT_N / 2);	/* switched in about every other yield */
	ck_assert_msg(cut.a_done == cut.a_in + CUT_CTX + CUT_X + CUT_W,
	    "a's work ended %lld ns after its last switch-in, not ctx_switch + X + W = %d",
	    (long long)(cut.a_done - cut.a_in), CUT_CTX + CUT_X + CUT_W);
	rig_free(&t);
}
END_TEST

static Suite *
preempt_suite(void)
{
	Suite *s = suite_create("preempt");
	TCase *tc = tcase_create("mechanisms");

	/* no wall-time limit (Check's default is 4 s a test): a loaded CI machine */
	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, placement_is_found);
	tcase_add_loop_test(tc, preempted_holder_delays_every_waiter_by_its_absence, 0, 4);
	tcase_add_loop_test(tc, halted_waiters_cost_a_kick_each, 0, 3);
	tcase_add_test(tc, spinpark_wakes_the_sleeper_after_its_store);
	tcase_add_loop_test(tc, preempted_next_owner_keeps_the_lock_free_until_it_runs, 0, 6);
	tcase_add_loop_test(tc, halted_head_and_a_newcomer_before_and_after_stealing, 0, 2);
	tcase_add_test(tc, preempted_ipi_target_delays_the_sender_and_its_lock_waiters);
	tcase_add_test(tc, a_switch_in_cut_short_is_not_owed);
	suite_add_tcase(s, tc);
	tc = tcase_create("wakeup");
	tcase_set_timeout(tc, 0);
	tcase_add_loop_test(tc, cfs_wakeup_latency_follows_sleeper_credit, 0, 4);
	tcase_add_loop_test(tc, eevdf_wakeup_latency_follows_lag_and_run_to_parity, 0, 4);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_main(preempt_suite());
}
