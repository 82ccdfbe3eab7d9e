/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lock_spinpark.c - an unfair spin-then-park mutex: spin a budget, then
 * sleep until the releaser wakes one sleeper, who must then win the word
 * again against whoever is running.
 *
 * Follows glibc nptl/pthread_mutex_lock.c, PTHREAD_MUTEX_ADAPTIVE_NP, on the
 * futex lock word of nptl/lowlevellock.c (0 free, 1 locked, 2 locked with
 * sleepers):
 *  - trylock (cmpxchg 0 -> 1); on failure spin: up to max_cnt = MIN(
 *    max_adaptive_count (spin_count, default 100: the tunable
 *    glibc.pthread.mutex_spin_count), __spins * 2 + 10) iterations of one
 *    atomic_spin_nop (PAUSE) and a trylock; after the loop, __spins +=
 *    (cnt - __spins) / 8 (adaptive: false spins spin_count, no estimate);
 *  - out of budget, lll_lock: cmpxchg 0 -> 1, else __lll_lock_wait: xchg
 *    the word to 2 until it was 0, sleeping in futex_wait(word, 2) between
 *    tries (futex_wait returns at once if the word is no longer 2);
 *  - unlock (lll_unlock): xchg the word to 0; if it was 2, futex_wake one
 *    sleeper (the kernel's futex queue is FIFO among equal priorities),
 *    after the xchg: lll_unlock's atomic_exchange_rel, then lll_futex_wake;
 *    LNX-6.6 kernel/futex/waitwake.c futex_wake -> wake_up_q ->
 *    try_to_wake_up sends the reschedule IPI from inside that syscall, so
 *    the sleeper is woken once the store has its line and the xchg is done
 *    (lock_wake), not when the release begins.
 * A woken sleeper only retries: a spinner that sees the 0 first takes the
 * lock with 1, and the sleeper finds it taken and sleeps again (unfair).
 * That is also the shape of the PV hybrid locks: spinning newcomers beat
 * the parked.
 *
 * In the guest: the sleep is the vCPU going idle (HLT, exit_hlt: the KVM
 * guest's idle loop with nothing else to run; on bare metal no exit), the wake is the guest
 * kernel's reschedule IPI to the sleeper's vCPU, which the releaser pays as
 * one exit (`wake`, default the machine's hypercall exit: an x2APIC ICR
 * write exits like a hypercall), and the host wakes the halted vCPU.
 * The spin is one event per change of the word (as `tas` with PAUSE): a
 * spinner sees a release one line transfer later and tries.
 *
 * Assumes: cnt (for __spins) is the time since the spin began over the
 * iteration cost, capped at max_cnt (a preempted spinner did fewer).
 * Leaves out: the futex syscalls' own cost (the empty futex_wake after a
 * sleeper took the lock with 2, the futex_wait entry), other guest tasks
 * that would run instead of HLT, and glibc 2.37's read-only spin with
 * exponential backoff.
 */
#include <stdlib.h>

#include "ffsnap.h"
#include "guest/lock.h"
#include "guest/ring_ff.h"
#include "hv/hv.h"
#include "yconf.h"
#include "yparam.h"

enum sp_state { SP_NONE, SP_SPIN, SP_PARKED };

struct sp_cfg {
	int64_t spin_count;
	int adaptive;
	double iter_ns, wake_ns;
	int wake_default;	/* wake not given: the machine's hypercall exit (none natively) */
};

/* A waiter's state, one record per vCPU (not parallel arrays). */
struct sp_node {
	sim_time_t spin_since;	/* this spin began */
	int max_cnt;		/* this spin's budget in iterations */
	unsigned char state;	/* enum sp_state */
};

struct sp {
	const struct sp_cfg *cfg;
	int word;		/* 0 free, 1 locked, 2 locked and maybe sleepers */
	int spins;		/* mutex->__data.__spins */
	int n;
	struct sp_node *node;	/* per vCPU of the VM (v->idx) */
	struct vcpu **fq;	/* futex wait queue, FIFO ring of n */
	int fqh, fqn;
};

static const struct vs_param sp_params[] = {
	/* glibc elf/dl-tunables.list: glibc.pthread.mutex_spin_count default 100 */
	{ "spin_count", NULL, "max_adaptive_count: spin iterations before sleeping (glibc "
	  "tunable glibc.pthread.mutex_spin_count)", "int", "",
	  VP_INT, VS_AT(struct sp_cfg, spin_count), 0, 1000000000, 100, NULL },
	{ "adaptive", NULL, "budget MIN(spin_count, __spins * 2 + 10), __spins learnt per "
	  "acquisition (glibc); false: always spin_count", "bool", "",
	  VP_BOOL, VS_AT(struct sp_cfg, adaptive), 0, 1, 1, NULL },
	{ "iteration", "(machine pause)", "ns of one spin iteration (atomic_spin_nop + trylock)",
	  "time", "ns", VP_TIME, VS_AT(struct sp_cfg, iter_ns), 0.01, 1e6, 0, NULL },
	{ "wake", "(machine hypercall exit)", "the releaser's cost to wake a sleeper (the "
	  "reschedule IPI's exit)", "time", "ns",
	  VP_TIME, VS_AT(struct sp_cfg, wake_ns), 0, 1e9, 0, NULL },
	{ NULL, NULL, NULL, NULL, NULL, VS_LIST }
};

static int
sp_parse(const struct yc_node *n, const struct machine *m, void **out, struct vs_err *err)
{
	struct sp_cfg *c = xcalloc(1, sizeof *c);

	*out = c;
	c->iter_ns = m->pause_ns;
	c->wake_ns = -1;
	if (yc_params_read(n, sp_params, NULL, m->hz, c, err))
		return -1;
	if (c->wake_ns < 0) {
		c->wake_default = 1;
		c->wake_ns = m->exit_hypercall_ns;
	}
	return 0;
}

static void
sp_free_cfg(void *c)
{
	free(c);
}

static void *
sp_create(struct glock *l, const void *cfg)
{
	struct sp *s = xcalloc(1, sizeof *s);

	s->cfg = cfg;
	s->n = l->vm->nvcpus;
	s->node = xcalloc((size_t)s->n, sizeof *s->node);
	s->fq = xcalloc((size_t)s->n, sizeof *s->fq);
	return s;
}

static void
sp_destroy(void *p)
{
	struct sp *s = p;

	free(s->node);
	free(s->fq);
	free(s);
}

/* v owns the lock, the word holds val; extra is what its RMW cost. */
static void
take(struct glock *l, struct vcpu *v, int val, double extra)
{
	struct sp *s = l->priv;

	s->word = val;
	s->node[v->idx].state = SP_NONE;
	l->last_p = v->pcpu;
	lock_taken(l, v, extra);
}

/* pthread_mutex_lock: __spins += (cnt - __spins) / 8 (int arithmetic) */
static void
learn(struct sp *s, int cnt)
{
	if (s->cfg->adaptive)
		s->spins += (cnt - s->spins) / 8;
}

static void sp_sleep(struct glock *, struct vcpu *, double pre_ns);

/* futex_wait woke (a kick) or never slept: __lll_lock_wait's xchg(word, 2) */
static void
sp_woken(struct vcpu *v)
{
	struct glock *l = guest_acquiring(v);
	struct sp *s = l->priv;
	double xchg = lock_seen_ns(l, v) + lock_atomic_ns(l);

	l->last_p = v->pcpu;
	if (s->word == 0) {
		take(l, v, 2, xchg);
		return;
	}
	s->word = 2;
	sp_sleep(l, v, xchg);
}

/* futex_wait(word, 2): the word is 2 here; join the futex queue and HLT
 * (pre_ns: the failed RMW before it) */
static void
sp_sleep(struct glock *l, struct vcpu *v, double pre_ns)
{
	struct sp *s = l->priv;

	VS_ASSERT(s->word == 2 && s->fqn < s->n);
	s->fq[(s->fqh + s->fqn) % s->n] = v;
	s->fqn++;
	s->node[v->idx].state = SP_PARKED;
	l->st.halts++;
	guest_halt(v, pre_ns, sp_woken);
}

/* Out of spin budget: lll_lock (cmpxchg 0 -> 1), else __lll_lock_wait. */
static void
sp_budget(struct vcpu *v)
{
	struct glock *l = guest_acquiring(v);
	struct sp *s = l->priv;
	double rmw = lock_seen_ns(l, v) + lock_atomic_ns(l);

	learn(s, s->node[v->idx].max_cnt + 1);	/* cnt++ >= max_cnt ended the loop */
	l->last_p = v->pcpu;
	if (s->word == 0) {
		take(l, v, 1, rmw);
		return;
	}
	if (s->word != 2) {		/* xchg(word, 2) found it held */
		s->word = 2;
		rmw += lock_atomic_ns(l);
	}
	sp_sleep(l, v, rmw);
}

static void
sp_acquire(struct glock *l, struct vcpu *v)
{
	struct sp *s;
	double cmpxchg;
	int64_t max;

	ring_ff_turn(l, v);	/* an acquisition: the cycles may repeat from here */
	s = l->priv;
	cmpxchg = lock_seen_ns(l, v) + lock_atomic_ns(l);
	l->last_p = v->pcpu;
	if (s->word == 0) {		/* lll_trylock */
		take(l, v, 1, cmpxchg);
		return;
	}
	max = s->cfg->spin_count;
	if (s->cfg->adaptive && (int64_t)s->spins * 2 + 10 < max)
		max = (int64_t)s->spins * 2 + 10;
	s->node[v->idx].max_cnt = (int)max;
	s->node[v->idx].spin_since = l->hv->sim->now;
	s->node[v->idx].state = SP_SPIN;
	lock_wait(l, v, (double)max * s->cfg->iter_ns, sp_budget);
}

/* lll_unlock: xchg(word, 0); futex_wake(1) if it was 2 */
static double
sp_release(struct glock *l, struct vcpu *v)
{
	struct sp *s = l->priv;
	double cost = lock_atomic_ns(l);
	int old = s->word, i;

	s->word = 0;
	if (old == 2 && s->fqn > 0) {
		struct vcpu *w = s->fq[s->fqh];

		s->fqh = (s->fqh + 1) % s->n;
		s->fqn--;
		/* futex_wake after the xchg (glibc lll_unlock) */
		lock_wake(l, v, w, cost);
		/* bare metal: the reschedule IPI's ICR write does not exit */
		if (!s->cfg->wake_default || !hv_native(l->hv))
			cost += s->cfg->wake_ns;
	}
	for (i = 0; i < s->n; i++)
		if (s->node[i].state == SP_SPIN)
			lock_poke(l, l->vm->vcpus[i]);
	return cost;
}

static int
sp_ready(struct glock *l, struct vcpu *v)
{
	struct sp *s = l->priv;

	return s->node[v->idx].state == SP_SPIN && s->word == 0;
}

/* A spinner saw 0: its trylock wins unless another's came first. */
static int
sp_observe(struct glock *l, struct vcpu *v)
{
	struct sp *s = l->priv;
	double cnt;

	if (!sp_ready(l, v)) {
		l->last_p = v->pcpu;	/* its failed trylock */
		return 0;
	}
	/* the loop counts before its trylock: at least 1 */
	cnt = (double)(l->hv->sim->now - s->node[v->idx].spin_since) / s->cfg->iter_ns;
	learn(s, cnt < 1 ? 1 : cnt < s->node[v->idx].max_cnt ? (int)cnt : s->node[v->idx].max_cnt);
	take(l, v, 1, lock_claim_ns(l, v));
	return 1;
}

/* The lock in a snapshot of a periodic run (ring_ff.c): the word, the
 * estimate, the futex queue, and each waiter's record, its spin's start a
 * clock while it spins (read only then). */
static void
sp_ffs(struct ffs *f, struct glock *l)
{
	struct sp *s = l->priv;
	int i;

	ffs_bytes(f, s, sizeof *s);
	ffs_bytes(f, s->fq, (size_t)s->n * sizeof *s->fq);
	for (i = 0; i < s->n; i++) {
		struct sp_node *n = &s->node[i];

		ffs_bytes(f, n, sizeof *n);
		if (n->state == SP_SPIN)
			ffs_time(f, &n->spin_since);
		else
			ffs_skip(f, &n->spin_since, sizeof n->spin_since);
	}
}

const struct lock_ops lock_spinpark_ops = {
	.name = "spinpark",
	.desc = "unfair spin-then-park mutex: spin, HLT, one sleeper woken, re-taken by the "
	    "running (glibc PTHREAD_MUTEX_ADAPTIVE_NP)",
	.params = sp_params,
	.parse = sp_parse,
	.free_cfg = sp_free_cfg,
	.create = sp_create,
	.destroy = sp_destroy,
	.acquire = sp_acquire,
	.release = sp_release,
	.observe = sp_observe,
	.ready = sp_ready,
	.ffs = sp_ffs,
};
