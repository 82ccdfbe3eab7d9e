/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slock.c - the sleeping locks' shared core (slock.h): fast path,
 * optimistic spinning on the owner, the wait list and handoff.
 */
#include "guest/slock.h"

#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "guest/kernel.h"
#include "hv/hv.h"
#include "stats.h"

static struct sim *
lsim(const struct slock *l)
{
	return gk_cpu(l->k, 0)->v->vm->hv->sim;
}

static struct hv *
lhv(const struct slock *l)
{
	return gk_cpu(l->k, 0)->v->vm->hv;
}

static void slock_owner_off(void *, const struct task *);
static void slock_vcpu_stopped(void *, const struct vcpu *);
static const struct gk_owner_watch slock_watch = { slock_owner_off, slock_vcpu_stopped };

struct slock *
slock_new(const struct slock_ops *ops, struct gkernel *k, const char *name, int check_preempted)
{
	struct slock *l = xcalloc(1, sizeof *l);

	l->ops = ops;
	l->k = k;
	l->name = xstrdup(name);
	l->check_preempted = check_preempted;
	TAILQ_INIT(&l->waiters);
	TAILQ_INIT(&l->spinners);
	l->st.wait = hist_new();
	gk_watch_register(k, &slock_watch, l);
	return l;
}

void
slock_stats_reset(struct slock *l)
{
	struct hist *w = l->st.wait;

	memset(&l->st, 0, sizeof l->st);
	hist_reset(w);
	l->st.wait = w;
}

void
slock_free(struct slock *l)
{
	if (l == NULL)
		return;
	hist_free(l->st.wait);
	free(l->name);
	free(l);
}

static void
probe(const struct slock *l, enum probe_kind kind, const struct task *t, int read)
{
	const struct vcpu *v = t->cpu >= 0 ? gk_cpu(l->k, t->cpu)->v : NULL;

	hv_probe(lhv(l), kind, v != NULL ? v->id : -1, v != NULL && v->pcpu != NULL ?
	    v->pcpu->id : -1, l, t->id * 2 + read);
}

/* t owns it now; a wait it had ends here. */
static void
take(struct slock *l, struct task *t, int read)
{
	if (read)
		l->readers++;
	else
		l->owner = t;
	t->slocks_held++;
	if (t->slock == l) {
		double w = (double)(lsim(l)->now - t->slock_since);

		hist_add(l->st.wait, w > 1 ? w : 1);
		t->slock = NULL;
	}
	probe(l, PR_SLOCK_TAKEN, t, read);
}

/* Linux 4.10 kernel/locking/mutex.c owner_on_cpu (mutex_spin_on_owner):
 * owner->on_cpu, and with PV steal time !vcpu_is_preempted(task_cpu(owner)) */
static int
owner_on_cpu(const struct slock *l)
{
	const struct task *o = l->owner;

	if (o == NULL)
		return 1;	/* free, or held by readers: can_spin decides */
	if (o->state != T_RUNNING)
		return 0;
	return !l->check_preempted || !gk_vcpu_is_preempted(gk_cpu(l->k, o->cpu)->v);
}

static void spin_seen(struct vcpu *);

/* mutex_optimistic_spin: spin while the owner runs and we need not reschedule */
static int
try_spin(struct vcpu *v, struct slock *l, struct task *t)
{
	if (!l->ops->can_spin(l, t->slock_read) || !owner_on_cpu(l) ||
	    gk_cpu(l->k, v->idx)->need_resched)
		return 0;
	if (!t->slock_spinning) {
		l->st.spins++;
		t->slock_spinning = 1;
		gk_preempt_disable(v);		/* preempt_disable() around the spin */
		TAILQ_INSERT_TAIL(&l->spinners, t, wait_link);	/* osq_lock */
		gk_watch_spin(l->k, 1);
	}
	t->slock_spin_since = lsim(l)->now;
	guest_spin_wait(v, spin_seen);
	return 1;
}

static void
stop_spin(struct vcpu *v, struct slock *l, struct task *t)
{
	TAILQ_REMOVE(&l->spinners, t, wait_link);	/* osq_unlock */
	gk_watch_spin(l->k, -1);
	t->slock_spinning = 0;
	gk_preempt_enable(v);
}

/* __mutex_lock_common: on the wait list, TASK_UNINTERRUPTIBLE, schedule() */
static void
go_sleep(struct vcpu *v, struct slock *l, struct task *t)
{
	l->st.sleeps++;
	t->slock_sleep_since = lsim(l)->now;
	TAILQ_INSERT_TAIL(&l->waiters, t, wait_link);
	gk_block(v, t->slock_resume);	/* the handoff wakes it owning the lock */
}

/* A spinner looks again: the lock was released, or its owner left its CPU. */
static void
spin_seen(struct vcpu *v)
{
	struct task *t = gk_current(v);
	struct slock *l = t->slock;

	l->st.spin_ns += (double)(lsim(l)->now - t->slock_spin_since);
	if (l->ops->can_take(l, t->slock_read)) {
		stop_spin(v, l, t);
		l->st.spin_acquired++;
		take(l, t, t->slock_read);
		t->slock_resume(v);
		return;
	}
	if (try_spin(v, l, t))
		return;
	stop_spin(v, l, t);
	go_sleep(v, l, t);
}

int
slock_lock(struct vcpu *v, struct slock *l, int read, guest_fn resume)
{
	struct task *t = gk_current(v);

	VS_ASSERT(t->slock == NULL && !t->slock_spinning);
	l->st.acquisitions++;
	if (l->ops->can_take(l, read)) {
		take(l, t, read);	/* the fast path: one cmpxchg */
		return 0;
	}
	l->st.contended++;
	t->slock = l;
	t->slock_read = read;
	t->slock_since = lsim(l)->now;
	t->slock_resume = resume;
	probe(l, PR_SLOCK_WAIT, t, read);
	if (try_spin(v, l, t))
		return 1;
	go_sleep(v, l, t);
	return 1;
}

/* Tell every spinner to look again (one line transfer away, or on entry). */
static void
poke_spinners(struct slock *l)
{
	struct task *s;
	const struct machine *m = lhv(l)->m;

	TAILQ_FOREACH(s, &l->spinners, wait_link)
		guest_spin_met(gk_cpu(l->k, s->cpu)->v, m->line_ns[HW_SOCKET]);
}

/* Linux 4.10 __mutex_unlock_slowpath / rwsem __rwsem_mark_wake: release, then
 * wake.  A spinner that runs takes it (it would win the race against the
 * woken waiter) once; the next release hands it to that first waiter. */
void
slock_unlock(struct vcpu *v, struct slock *l, int read)
{
	struct task *t = gk_current(v), *s;
	int running = 0;

	VS_ASSERT(t->slocks_held > 0);
	t->slocks_held--;
	probe(l, PR_SLOCK_RELEASE, t, read);
	if (read) {
		VS_ASSERT(l->readers > 0);
		if (--l->readers > 0)
			return;
	} else {
		VS_ASSERT(l->owner == t);
		l->owner = NULL;
	}
	TAILQ_FOREACH(s, &l->spinners, wait_link)
		running |= gk_cpu(l->k, s->cpu)->v->pcpu != NULL;
	poke_spinners(l);
	/* 4.10 MUTEX_FLAG_HANDOFF: a first waiter loses one race to a spinner at most */
	if (!TAILQ_EMPTY(&l->waiters) && running && !TAILQ_FIRST(&l->waiters)->slock_lost) {
		TAILQ_FIRST(&l->waiters)->slock_lost = 1;
		return;
	}
	if (!TAILQ_EMPTY(&l->waiters)) {
		l->unlocker = v;
		l->ops->wake(l);
		l->unlocker = NULL;
	}
}

void
slock_handoff_first(struct slock *l)
{
	struct task *w = TAILQ_FIRST(&l->waiters);

	TAILQ_REMOVE(&l->waiters, w, wait_link);
	w->slock_lost = 0;
	l->st.handoffs++;
	l->st.sleep_ns += (double)(lsim(l)->now - w->slock_sleep_since);
	take(l, w, w->slock_read);
	gk_wake(l->unlocker, w);
}

void
slock_handoff_readers(struct slock *l)
{
	while (!TAILQ_EMPTY(&l->waiters) && TAILQ_FIRST(&l->waiters)->slock_read)
		slock_handoff_first(l);
}

int
slock_first_waiter_reads(const struct slock *l)
{
	return !TAILQ_EMPTY(&l->waiters) && TAILQ_FIRST(&l->waiters)->slock_read;
}

/* kernel.h gk_owner_watch: task t left its vCPU; vCPU v lost its pCPU.
 * Spinners re-check their owner. */
static void
slock_owner_off(void *lock, const struct task *t)
{
	struct slock *l = lock;

	if (l->owner == t)
		poke_spinners(l);
}

static void
slock_vcpu_stopped(void *lock, const struct vcpu *v)
{
	struct slock *l = lock;

	if (!TAILQ_EMPTY(&l->spinners) && l->check_preempted && l->owner != NULL &&
	    l->owner->state == T_RUNNING && l->owner->cpu == v->idx)
		poke_spinners(l);
}
