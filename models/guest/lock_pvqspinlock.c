/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lock_pvqspinlock.c - paravirtual queued spinlock as in Linux 4.5 (KVM).
 *
 * LNX-4.5 kernel/locking/qspinlock.c + qspinlock_paravirt.h
 * (model-reference §4.4-4.5), pv_wait = kvm_wait (HLT), pv_kick =
 * kvm_kick_cpu (KVM_HC_KICK_CPU):
 *  - fast path cmpxchg 0 -> locked; else straight to the queue path, whose
 *    first step is one steal attempt (pv_queued_spin_steal_lock: succeeds
 *    when neither locked nor pending is set, tail ignored);
 *  - a queued node (pv_wait_node) spins SPIN_THRESHOLD iterations on its
 *    node->locked, then sets state halted, re-checks, and halts; it halts
 *    early when its predecessor is not running (pv_wait_early);
 *  - the queue head (pv_wait_head_or_lock) sets pending (no stealing),
 *    spins SPIN_THRESHOLD iterations trying to take the lock, clears
 *    pending, hashes (lock -> node) once and sets the locked byte to
 *    _Q_SLOW_VAL (if the lock was free it owns it), then halts;
 *  - the new owner hands MCS headship on (next->locked = 1) and, if the
 *    successor is halted, marks it hashed and sets _Q_SLOW_VAL on its
 *    behalf (pv_kick_node: no kick until unlock);
 *  - unlock cmpxchg's locked -> 0; on _Q_SLOW_VAL it unhashes, stores 0 and
 *    kicks the hashed node's vCPU (the releaser pays a hypercall exit).
 * Invariant (self-checked after every release): the queue head is never
 * left halted and unkicked while the lock is free.
 *
 * Switches for the file's history (defaults: the behaviour above):
 *  - steal: none | once | hybrid.  none: Linux 4.2-4.4, the slow path's
 *    queued_spin_trylock needs the whole word 0 (no overtaking of a queue);
 *    once (default): 4.5 "locking/pvqspinlock: Allow limited lock
 *    stealing" (pv_queued_spin_steal_lock); hybrid: "locking/pvqspinlock:
 *    Implement hybrid PV queued/unfair locks" (4.14 trees,
 *    pv_hybrid_queued_unfair_trylock): while the queue is not empty and
 *    pending is clear the newcomer spins on the lock word unfairly, taking
 *    it whenever locked and pending are clear; it queues once pending is set
 *    (the head spins) or the queue empties;
 *  - wait_early: true (default): 4.5 "locking/pvqspinlock: Queue node
 *    adaptive spinning" (pv_wait_early: halt when the predecessor's node
 *    state is not running); false: 4.2-4.4, always spin SPIN_THRESHOLD;
 *  - wait_early_preempted: true (default): also halt early when the
 *    predecessor's vCPU is preempted: 75437bb304b2 "locking/pvqspinlock:
 *    Don't wait if vCPU is preempted" (vcpu_is_preempted(prev->cpu), 2019),
 *    reverted in Sept 2019 for ebizzy regressions under overcommit; only
 *    with wait_early.  The node looks at spin start, on switch-in and when
 *    poked;
 *  - kick: unlock (default) | head.  unlock: 4.3 "locking/pvqspinlock: Only
 *    kick CPU at unlock time" (pv_kick_node hashes for the halted successor);
 *    head: Linux 4.2 pv_kick_node, the new owner kicks a halted successor at
 *    once so that it is running when it becomes head (it may be kicked
 *    again at unlock); the owner pays the hypercall;
 *  - spin_threshold: SPIN_THRESHOLD (1 << 15, asm/spinlock.h);
 *  - irqs: off (default) | on.  kvm_wait halt()s when the caller's
 *    interrupts were off (spin_lock_irqsave: the kick alone wakes it) and
 *    safe_halt()s when on (spin_lock): then an interrupt (tick, IPI, disk)
 *    ends the halt, the handler runs and the loop goes on, a spurious
 *    wakeup when the node is not granted / the lock still locked.
 *
 * Assumes: an iteration is one PAUSE (machine pause_ns, param `iteration`);
 * the wait-early check (every 256 iterations) sees the predecessor's state
 * change one line transfer plus 256 iterations after it happens.
 * Leaves out: the hash table's probing cost (one entry per lock here), NMI
 * and nesting contexts, halt polling in the host.
 */
#include <stdlib.h>

#include "guest/lock.h"
#include "hv/hv.h"
#include "yconf.h"
#include "yparam.h"

/* qspinlock_paravirt.h: enum vcpu_state */
enum pvq_state { PVQ_RUNNING, PVQ_HALTED, PVQ_HASHED };
/* PVQ_UNFAIR: spinning in pv_hybrid_queued_unfair_trylock, not queued */
enum pvq_role { PVQ_NONE, PVQ_NODE, PVQ_HEAD, PVQ_UNFAIR };

/* qspinlock_paravirt.h: _Q_SLOW_VAL; qspinlock_types.h: _Q_LOCKED_VAL */
#define PVQ_LOCKED 1
#define PVQ_SLOW 3
/* qspinlock_paravirt.h: PV_PREV_CHECK_MASK 0xff */
#define PVQ_PREV_CHECK 256

enum pvq_steal { PVQ_STEAL_NONE, PVQ_STEAL_ONCE, PVQ_STEAL_HYBRID };
static const char *const pvq_steal_names[] = { "none", "once", "hybrid", NULL };
enum pvq_kick { PVQ_KICK_UNLOCK, PVQ_KICK_HEAD };
static const char *const pvq_kick_names[] = { "unlock", "head", NULL };
static const char *const pvq_irqs_names[] = { "off", "on", NULL };

struct pvq_cfg {
	double threshold, iter_ns, hypercall_ns;
	int wait_early, wait_early_preempted, steal, kick;
	int irqs;		/* 1: spin_lock() with interrupts on, kvm_wait safe_halt()s */
};

/* A waiter's qspinlock_paravirt.h struct pv_node, with the model's own
 * bookkeeping beside it: one record per vCPU, not parallel arrays. */
struct pvq_node {
	sim_time_t seen_at;	/* when node->locked = 1 reaches it */
	unsigned char role;	/* enum pvq_role */
	unsigned char state;	/* enum pvq_state: pv_node.state */
	unsigned char granted;	/* mcs_spinlock.locked: its turn as head came */
	unsigned char lp;	/* head: the lock is in the pv hash for it (pv_wait_head_or_lock lp) */
	unsigned char kicked;	/* kicked since it last woke */
};

struct pvq {
	const struct pvq_cfg *cfg;
	int byte;		/* locked byte: 0, PVQ_LOCKED, PVQ_SLOW */
	int pending;		/* set by the spinning queue head */
	struct vcpu **q;	/* MCS queue, ring of n; q[qh] is the head */
	int qh, qn, n;
	struct vcpu *hashed;	/* the pv hash entry for this lock */
	int nunfair;		/* vCPUs with role PVQ_UNFAIR (steal: hybrid) */
	struct pvq_node *node;	/* per vCPU of the VM (v->idx) */
};

static const struct vs_param pvq_params[] = {
	/* LNX-4.5 asm/spinlock.h: SPIN_THRESHOLD (1 << 15) */
	{ "spin_threshold", NULL, "SPIN_THRESHOLD, iterations before halting (asm/spinlock.h "
	  "1 << 15)", "int", "", VP_NUM, VS_AT(struct pvq_cfg, threshold), 1, 1e9, 32768, NULL },
	{ "iteration", "(machine pause)", "ns of one spin iteration (one PAUSE)", "time", "ns",
	  VP_TIME, VS_AT(struct pvq_cfg, iter_ns), 0.01, 1e6, 0, NULL },
	{ "steal", NULL, "none: 4.2-4.4 trylock; once: 4.5 \"Allow limited lock stealing\"; "
	  "hybrid: \"Implement hybrid PV queued/unfair locks\" (4.14)", "enum none|once|hybrid", "",
	  VP_ENUM, VS_AT(struct pvq_cfg, steal), 0, 0, PVQ_STEAL_ONCE, pvq_steal_names },
	{ "wait_early", NULL, "halt when the predecessor's node is not running (4.5 \"Queue node "
	  "adaptive spinning\"); false: 4.2-4.4", "bool", "",
	  VP_BOOL, VS_AT(struct pvq_cfg, wait_early), 0, 1, 1, NULL },
	{ "wait_early_preempted", NULL, "also when its vCPU is preempted (75437bb304b2 \"Don't wait "
	  "if vCPU is preempted\", 2019, reverted)", "bool", "",
	  VP_BOOL, VS_AT(struct pvq_cfg, wait_early_preempted), 0, 1, 1, NULL },
	{ "kick", NULL, "unlock: 4.3 \"Only kick CPU at unlock time\"; head: 4.2 pv_kick_node kicks "
	  "a halted successor when it becomes head", "enum unlock|head", "",
	  VP_ENUM, VS_AT(struct pvq_cfg, kick), 0, 0, PVQ_KICK_UNLOCK, pvq_kick_names },
	{ "irqs", NULL, "off: spin_lock_irqsave sites, kvm_wait halt()s and only the kick wakes; "
	  "on: spin_lock with interrupts enabled, safe_halt(): an interrupt wakes the waiter, a "
	  "spurious wakeup (VM.LOCK.spurious_wakeups): spin, halt again", "enum off|on", "",
	  VP_ENUM, VS_AT(struct pvq_cfg, irqs), 0, 0, 0, pvq_irqs_names },
	{ NULL, NULL, NULL, NULL, NULL, VS_LIST }
};

static int
pvq_parse(const struct yc_node *n, const struct machine *m, void **out, struct vs_err *err)
{
	struct pvq_cfg *c = xcalloc(1, sizeof *c);

	*out = c;
	c->hypercall_ns = m->exit_hypercall_ns;
	c->iter_ns = m->pause_ns;
	return yc_params_read(n, pvq_params, NULL, m->hz, c, err);
}

static void
pvq_free_cfg(void *c)
{
	free(c);
}

/* LNX-4.5 kvm.c kvm_spinlock_init: pv_wait is kvm_wait (HLT), pv_kick KVM_HC_KICK_CPU */
static const char *
pvq_needs_hv(const void *cfg)
{
	(void)cfg;
	return "its pv_kick is the KVM_HC_KICK_CPU hypercall (bare metal runs qspinlock)";
}

static void *
pvq_create(struct glock *l, const void *cfg)
{
	struct pvq *p = xcalloc(1, sizeof *p);
	size_t n = (size_t)l->vm->nvcpus;

	p->cfg = cfg;
	p->n = (int)n;
	p->q = xcalloc(n, sizeof *p->q);
	p->node = xcalloc(n, sizeof *p->node);
	l->halt_irqs = p->cfg->irqs;
	return p;
}

static void
pvq_destroy(void *priv)
{
	struct pvq *p = priv;

	free(p->q);
	free(p->node);
	free(p);
}

static double
budget(const struct pvq *p)
{
	return p->cfg->threshold * p->cfg->iter_ns;
}

static struct vcpu *
qhead(const struct pvq *p)
{
	return p->qn > 0 ? p->q[p->qh] : NULL;
}

/* Queue position of v (0 = head), -1 if not queued. */
static int
qpos(const struct pvq *p, const struct vcpu *v)
{
	int i;

	for (i = 0; i < p->qn; i++)
		if (p->q[(p->qh + i) % p->n] == v)
			return i;
	return -1;
}

static struct vcpu *
qat(const struct pvq *p, int i)
{
	return i >= 0 && i < p->qn ? p->q[(p->qh + i) % p->n] : NULL;
}

/* pv_wait_early: is the predecessor not running? */
static int
wait_early(const struct pvq *p, const struct vcpu *v)
{
	struct vcpu *prev = qat(p, qpos(p, v) - 1);

	if (prev == NULL || !p->cfg->wait_early)
		return 0;
	return p->node[prev->idx].state != PVQ_RUNNING ||
	    (p->cfg->wait_early_preempted && prev->pcpu == NULL);
}

/* v's state left running: its successor's wait-early check will see it. */
static void
tell_successor(struct glock *l, struct vcpu *v)
{
	struct pvq *p = l->priv;
	struct vcpu *s = qat(p, qpos(p, v) + 1);

	if (p->cfg->wait_early && s != NULL && p->node[s->idx].role == PVQ_NODE &&
	    guest_is_running(s) &&
	    guest_is_spinning(s))
		/* v's store to its own node's state, which s reads */
		guest_poke(s, lock_flag_ns(l, v, s) + PVQ_PREV_CHECK * p->cfg->iter_ns);
}

/* pv_kick (kvm_kick_cpu): KVM_HC_KICK_CPU from v to k; the caller pays it */
static void
pvq_kick(struct glock *l, struct vcpu *v, struct vcpu *k)
{
	struct pvq *p = l->priv;

	p->node[k->idx].kicked = 1;
	l->st.kicks++;
	l->hv->st.exits_hypercall++;
	hv_probe(l->hv, PR_KICK, v->id, v->pcpu->id, l, k->id);
	hv_pv_kick(v, k);	/* KVM_HC_KICK_CPU */
}

/*
 * steal: hybrid.  The unfair spinners re-read the word when it changes in a
 * way that ends their loop: locked or pending cleared, pending set, queue
 * emptied.  They see it one line transfer from v's pCPU later.
 */
static void
poke_unfair(struct glock *l, const struct vcpu *v)
{
	struct pvq *p = l->priv;
	int i;

	if (p->nunfair == 0)
		return;
	for (i = 0; i < p->n; i++) {
		struct vcpu *w = l->vm->vcpus[i];

		if (p->node[i].role == PVQ_UNFAIR && guest_is_running(w) && guest_is_spinning(w))
			guest_poke(w, lock_handover_ns(l) +
			    lock_line_at(l, v->pcpu, w));
	}
}

static void pvq_halt(struct glock *, struct vcpu *, guest_fn);
static void node_spin(struct glock *, struct vcpu *);
static void head_enter(struct glock *, struct vcpu *);
static void head_round(struct glock *, struct vcpu *);

/*
 * v owns the lock.  qspinlock.c "locked:": leave the queue, write
 * next->locked, then pv_kick_node(next): a halted successor becomes hashed
 * and _Q_SLOW_VAL makes our unlock kick it.
 */
static void
got_lock(struct glock *l, struct vcpu *v, double extra)
{
	struct pvq *p = l->priv;
	sim_time_t now = l->hv->sim->now;
	struct vcpu *next = NULL;

	if (p->node[v->idx].role != PVQ_NONE) {	/* the queue head, not a stealer */
		VS_ASSERT(qhead(p) == v);
		p->qh = (p->qh + 1) % p->n;
		p->qn--;
		p->node[v->idx].role = PVQ_NONE;
		next = qhead(p);
	}
	p->byte = PVQ_LOCKED;
	if (next != NULL) {
		double d = lock_flag_ns(l, v, next);	/* next spins on its node */

		VS_ASSERT(p->node[next->idx].role == PVQ_NODE && !p->node[next->idx].granted);
		/* arch_mcs_spin_unlock_contended(&next->locked) */
		p->node[next->idx].granted = 1;
		p->node[next->idx].seen_at = now + sim_ns(d);
		if (guest_is_running(next) && guest_is_spinning(next))
			guest_poke(next, d);
		if (p->node[next->idx].state == PVQ_HALTED && p->cfg->kick == PVQ_KICK_HEAD) {
			/* LNX-4.2 pv_kick_node: xchg state running; kick if it was halted */
			p->node[next->idx].state = PVQ_RUNNING;
			pvq_kick(l, v, next);
			extra += p->cfg->hypercall_ns;
		} else if (p->node[next->idx].state == PVQ_HALTED) {
			/* LNX-4.5 qspinlock_paravirt.h: pv_kick_node */
			p->node[next->idx].state = PVQ_HASHED;
			p->byte = PVQ_SLOW;
			VS_ASSERT(p->hashed == NULL);
			p->hashed = next;
		}
	} else if (p->qn == 0) {
		poke_unfair(l, v);	/* tail cleared: unfair spinners queue */
	}
	lock_taken(l, v, extra);
}

/* qspinlock_paravirt.h: trylock_clear_pending */
static int
head_try(struct glock *l, struct vcpu *v, double extra)
{
	struct pvq *p = l->priv;

	if (p->byte != 0)
		return 0;
	p->pending = 0;
	got_lock(l, v, extra);
	return 1;
}

static void
node_woken(struct vcpu *v)
{
	struct glock *l = guest_acquiring(v);
	struct pvq *p = l->priv;

	p->node[v->idx].kicked = 0;
	/* cmpxchg(&pn->state, vcpu_halted, vcpu_running): hashed stays hashed */
	if (p->node[v->idx].state == PVQ_HALTED)
		p->node[v->idx].state = PVQ_RUNNING;
	if (p->node[v->idx].granted) {
		head_enter(l, v);
		return;
	}
	/* qstat_pv_spurious_wakeup: !node->locked; spin again */
	l->st.spurious++;
	node_spin(l, v);
}

/* pv_wait_node after the spin: state = halted, re-check, pv_wait */
static void
node_halt(struct glock *l, struct vcpu *v)
{
	struct pvq *p = l->priv;

	p->node[v->idx].state = PVQ_HALTED;
	if (p->node[v->idx].granted) {
		p->node[v->idx].state = PVQ_RUNNING;
		head_enter(l, v);
		return;
	}
	tell_successor(l, v);
	pvq_halt(l, v, node_woken);
}

static void
node_budget(struct vcpu *v)
{
	node_halt(guest_acquiring(v), v);
}

/* LNX-4.5 qspinlock_paravirt.h: pv_wait_node */
static void
node_spin(struct glock *l, struct vcpu *v)
{
	struct pvq *p = l->priv;

	if (p->node[v->idx].granted) {
		head_enter(l, v);
		return;
	}
	/* loop starts at SPIN_THRESHOLD, a multiple of 256: checked at once */
	if (wait_early(p, v)) {
		node_halt(l, v);
		return;
	}
	lock_wait(l, v, budget(p), node_budget);
}

static void
head_woken(struct vcpu *v)
{
	struct glock *l = guest_acquiring(v);
	struct pvq *p = l->priv;

	p->node[v->idx].kicked = 0;
	/* pv_wait_head_or_lock: qstat_pv_spurious_wakeup if still locked */
	if (p->byte != 0)
		l->st.spurious++;
	head_round(l, v);
}

/* pv_wait_head_or_lock after the spin: clear pending, hash once, halt */
static void
head_budget(struct vcpu *v)
{
	struct glock *l = guest_acquiring(v);
	struct pvq *p = l->priv;
	double rmw = lock_seen_ns(l, v) + lock_atomic_ns(l);

	p->pending = 0;
	l->last_p = v->pcpu;
	if (!p->node[v->idx].lp) {
		p->node[v->idx].lp = 1;
		VS_ASSERT(p->hashed == NULL);
		p->hashed = v;
		if (p->byte == 0) {	/* xchg found it free: ours; unhash */
			p->hashed = NULL;
			got_lock(l, v, rmw);
			return;
		}
		p->byte = PVQ_SLOW;
	}
	p->node[v->idx].state = PVQ_HALTED;
	tell_successor(l, v);
	/* kvm_wait: return at once unless *ptr == val */
	if (p->byte != PVQ_SLOW) {
		head_round(l, v);
		return;
	}
	pvq_halt(l, v, head_woken);
}

/* one round of pv_wait_head_or_lock: state running, set pending, spin */
static void
head_round(struct glock *l, struct vcpu *v)
{
	struct pvq *p = l->priv;

	p->node[v->idx].state = PVQ_RUNNING;
	p->pending = 1;
	if (head_try(l, v, lock_seen_ns(l, v) + lock_atomic_ns(l)))
		return;
	poke_unfair(l, v);	/* set_pending: no more stealing */
	lock_wait(l, v, budget(p), head_budget);
}

static void
head_enter(struct glock *l, struct vcpu *v)
{
	struct pvq *p = l->priv;

	p->node[v->idx].role = PVQ_HEAD;
	/* pv_kick_node already hashed us: do not hash again */
	p->node[v->idx].lp = p->node[v->idx].state == PVQ_HASHED;
	head_round(l, v);
}

/* pv_wait: HLT (KVM kvm_wait -> halt); the lock counts it */
static void
pvq_halt(struct glock *l, struct vcpu *v, guest_fn on_wake)
{
	struct pvq *p = l->priv;

	p->node[v->idx].kicked = 0;
	l->st.halts++;
	/* LNX-4.5 kvm.c kvm_wait: halt() if irqs were off, else safe_halt() */
	if (p->cfg->irqs)
		guest_halt_irqs(v, 0, on_wake);
	else
		guest_halt(v, 0, on_wake);
}

/* qspinlock.c: xchg_tail; with no predecessor v is the head at once */
static void
enqueue(struct glock *l, struct vcpu *v)
{
	struct pvq *p = l->priv;

	p->q[(p->qh + p->qn) % p->n] = v;
	p->qn++;
	VS_ASSERT(p->qn <= p->n);
	p->node[v->idx].state = PVQ_RUNNING;
	p->node[v->idx].granted = 0;
	p->node[v->idx].seen_at = -1;
	p->node[v->idx].kicked = 0;
	if (p->qn == 1) {
		head_enter(l, v);
		return;
	}
	p->node[v->idx].role = PVQ_NODE;
	node_spin(l, v);
}

/* qspinlock.h queued_spin_lock + __pv_queued_spin_lock_slowpath */
static void
pvq_acquire(struct glock *l, struct vcpu *v)
{
	struct pvq *p = l->priv;
	double cmpxchg = lock_seen_ns(l, v) + lock_atomic_ns(l);

	l->last_p = v->pcpu;
	if (p->byte == 0 && !p->pending && p->qn == 0) {
		got_lock(l, v, cmpxchg);	/* fast path */
		return;
	}
	/* LNX-4.5 pv_queued_spin_steal_lock: one try per slow-path entry
	 * (steal: none is 4.2's queued_spin_trylock: the word was not 0) */
	if (p->cfg->steal != PVQ_STEAL_NONE && p->byte == 0 && !p->pending) {
		got_lock(l, v, cmpxchg + lock_atomic_ns(l));
		return;
	}
	/* pv_hybrid_queued_unfair_trylock: spin while tail set, pending clear */
	if (p->cfg->steal == PVQ_STEAL_HYBRID && p->qn > 0 && !p->pending) {
		p->node[v->idx].role = PVQ_UNFAIR;
		p->nunfair++;
		lock_wait(l, v, GUEST_FOREVER, NULL);
		return;
	}
	enqueue(l, v);
}

/* __pv_queued_spin_unlock */
static double
pvq_release(struct glock *l, struct vcpu *v)
{
	struct pvq *p = l->priv;
	double cost = lock_atomic_ns(l);	/* cmpxchg locked -> 0 */
	struct vcpu *h, *k = NULL;

	VS_ASSERT(p->byte == PVQ_LOCKED || p->byte == PVQ_SLOW);
	if (p->byte == PVQ_SLOW) {
		/* pv_unhash, release store, pv_kick(node->cpu): after the stores */
		k = p->hashed;
		VS_ASSERT(k != NULL);
		p->hashed = NULL;
		p->byte = 0;
		p->node[k->idx].kicked = 1;
		lock_kick(l, v, k, cost);
		cost += p->cfg->hypercall_ns;
	}
	p->byte = 0;
	if ((h = qhead(p)) != NULL && p->node[h->idx].role == PVQ_HEAD)
		lock_poke(l, h);
	poke_unfair(l, v);
	/* Self-check: a free lock never waits on a halted, unkicked head. */
	if (h != NULL && guest_is_halted(h) && !p->node[h->idx].kicked)
		vs_fatal("pv-qspinlock %s: free, but queue head vCPU %d halted and unkicked",
		    l->name, h->id);
	return cost;
}

static int
pvq_ready(struct glock *l, struct vcpu *v)
{
	struct pvq *p = l->priv;

	switch (p->node[v->idx].role) {
	case PVQ_NODE:
		return p->node[v->idx].granted || wait_early(p, v);
	case PVQ_HEAD:
		return p->byte == 0;
	case PVQ_UNFAIR:	/* the hybrid loop ends: steal, or queue */
		return (p->byte == 0 && !p->pending) || p->pending || p->qn == 0;
	default:
		return 0;
	}
}

static int
pvq_observe(struct glock *l, struct vcpu *v)
{
	struct pvq *p = l->priv;
	sim_time_t now = l->hv->sim->now;

	if (!pvq_ready(l, v))
		return 0;
	if (p->node[v->idx].role == PVQ_UNFAIR) {
		p->node[v->idx].role = PVQ_NONE;
		p->nunfair--;
		if (p->byte == 0 && !p->pending) {
			got_lock(l, v, lock_claim_ns(l, v));	/* cmpxchg locked 0 -> 1 */
		} else {
			l->last_p = v->pcpu;	/* its failed cmpxchg */
			enqueue(l, v);
		}
		return 1;
	}
	if (p->node[v->idx].role == PVQ_HEAD)
		return head_try(l, v, lock_claim_ns(l, v));
	if (p->node[v->idx].granted) {
		if (p->node[v->idx].seen_at > now) {
			guest_poke(v, (double)(p->node[v->idx].seen_at - now));
			return 0;
		}
		head_enter(l, v);
		return 1;
	}
	node_halt(l, v);	/* wait early */
	return 1;
}

/* The head (pv_wait_head_or_lock) and the hybrid unfair spinners read the
 * word; queued nodes spin on their own node. */
static int
pvq_reads_word(const struct glock *l, const struct vcpu *v)
{
	const struct pvq *p = l->priv;

	return p->node[v->idx].role == PVQ_HEAD || p->node[v->idx].role == PVQ_UNFAIR;
}


const struct lock_ops lock_pvqspinlock_ops = {
	.name = "pv-qspinlock",
	.desc = "paravirtual queued spinlock: spin, halt, kick at unlock (Linux 4.5, KVM)",
	.params = pvq_params,
	.parse = pvq_parse,
	.free_cfg = pvq_free_cfg,
	.create = pvq_create,
	.destroy = pvq_destroy,
	.acquire = pvq_acquire,
	.release = pvq_release,
	.observe = pvq_observe,
	.ready = pvq_ready,
	.reads_word = pvq_reads_word,
	.needs_hv = pvq_needs_hv,
};
