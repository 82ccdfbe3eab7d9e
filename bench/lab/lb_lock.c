/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lb_lock.c - lockbench's locks: the user-space forms of the algorithms
 * vlocksim models, written from the same sources (models/README.md).
 *
 *   ticket    xadd a ticket, spin (PAUSE) until `owner` reaches it
 *             (LNX-3.6 __ticket_spin_lock)                    -> ticket
 *   tas       cmpxchg 0 -> 1 in a loop, no PAUSE: every try is an RMW
 *                                                   -> tas {pause: false}
 *   ttas      cmpxchg, else spin reading the word with PAUSE until it is 0
 *             (LNX-4.5 virt_spin_lock)                        -> tas
 *   mcs       MCS list lock: xchg the tail, spin on one's own node
 *             (Mellor-Crummey & Scott, TOCS 1991; the queue of LNX-4.5
 *             qspinlock, without its pending bit)            -> qspinlock
 *   mutex     pthread_mutex_t, default type: glibc lll_lock, cmpxchg then
 *             futex_wait on the word set to 2     -> spinpark {spin_count: 0}
 *   adaptive  PTHREAD_MUTEX_ADAPTIVE_NP: glibc's spin-then-park (up to
 *             max_adaptive_count trylocks, then lll_lock)     -> spinpark
 */
#define _GNU_SOURCE	/* PTHREAD_MUTEX_ADAPTIVE_NP */
#include "lb_lock.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#define cpu_relax() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define cpu_relax() __asm__ __volatile__("yield" ::: "memory")
#else
#define cpu_relax() __asm__ __volatile__("" ::: "memory")
#endif

/* One object for every kind: the word(s) on their own line. */
struct lb_lock {
	_Alignas(64) atomic_uint next;	/* ticket: next ticket; tas/ttas: the byte */
	atomic_uint owner;		/* ticket: the ticket being served */
	_Atomic(struct lb_qnode *) tail;	/* mcs */
	pthread_mutex_t mutex;		/* mutex, adaptive (its own line below) */
};

static struct lb_lock *
lb_alloc(void)
{
	struct lb_lock *l;

	if (posix_memalign((void **)&l, 64, sizeof *l) != 0) {
		fputs("lockbench: out of memory\n", stderr);
		exit(1);
	}
	memset(l, 0, sizeof *l);
	atomic_init(&l->next, 0);
	atomic_init(&l->owner, 0);
	atomic_init(&l->tail, NULL);
	return l;
}

static void
lb_free(struct lb_lock *l)
{
	free(l);
}

/* ---- ticket ---- */

static void
ticket_acquire(struct lb_lock *l, struct lb_qnode *q)
{
	unsigned my = atomic_fetch_add_explicit(&l->next, 1, memory_order_relaxed);

	(void)q;
	while (atomic_load_explicit(&l->owner, memory_order_acquire) != my)
		cpu_relax();
}

static void
ticket_release(struct lb_lock *l, struct lb_qnode *q)
{
	unsigned o = atomic_load_explicit(&l->owner, memory_order_relaxed);

	(void)q;
	atomic_store_explicit(&l->owner, o + 1, memory_order_release);
}

/* ---- test-and-set, test-and-test-and-set ---- */

static int
tas_try(struct lb_lock *l)
{
	unsigned zero = 0;

	return atomic_compare_exchange_strong_explicit(&l->next, &zero, 1,
	    memory_order_acquire, memory_order_relaxed);
}

static void
tas_acquire(struct lb_lock *l, struct lb_qnode *q)
{
	(void)q;
	while (!tas_try(l))
		;
}

static void
ttas_acquire(struct lb_lock *l, struct lb_qnode *q)
{
	(void)q;
	while (!tas_try(l))
		while (atomic_load_explicit(&l->next, memory_order_relaxed) != 0)
			cpu_relax();
}

static void
tas_release(struct lb_lock *l, struct lb_qnode *q)
{
	(void)q;
	atomic_store_explicit(&l->next, 0, memory_order_release);
}

/* ---- MCS ---- */

static void
mcs_acquire(struct lb_lock *l, struct lb_qnode *q)
{
	struct lb_qnode *prev;

	atomic_store_explicit(&q->next, NULL, memory_order_relaxed);
	atomic_store_explicit(&q->locked, 1, memory_order_relaxed);
	prev = atomic_exchange_explicit(&l->tail, q, memory_order_acq_rel);
	if (prev == NULL)
		return;
	atomic_store_explicit(&prev->next, q, memory_order_release);
	while (atomic_load_explicit(&q->locked, memory_order_acquire))
		cpu_relax();
}

static void
mcs_release(struct lb_lock *l, struct lb_qnode *q)
{
	struct lb_qnode *next = atomic_load_explicit(&q->next, memory_order_acquire);

	if (next == NULL) {
		struct lb_qnode *me = q;

		if (atomic_compare_exchange_strong_explicit(&l->tail, &me, NULL,
		    memory_order_release, memory_order_relaxed))
			return;
		/* A successor swapped the tail and is about to link itself. */
		while ((next = atomic_load_explicit(&q->next, memory_order_acquire)) == NULL)
			cpu_relax();
	}
	atomic_store_explicit(&next->locked, 0, memory_order_release);
}

/* ---- pthread mutexes ---- */

static struct lb_lock *
mutex_create_type(int type)
{
	struct lb_lock *l = lb_alloc();
	pthread_mutexattr_t a;

	if (pthread_mutexattr_init(&a) != 0 || pthread_mutexattr_settype(&a, type) != 0 ||
	    pthread_mutex_init(&l->mutex, &a) != 0) {
		fputs("lockbench: pthread_mutex_init failed\n", stderr);
		exit(1);
	}
	pthread_mutexattr_destroy(&a);
	return l;
}

static struct lb_lock *
mutex_create(void)
{
	return mutex_create_type(PTHREAD_MUTEX_DEFAULT);
}

static struct lb_lock *
adaptive_create(void)
{
	return mutex_create_type(PTHREAD_MUTEX_ADAPTIVE_NP);
}

static void
mutex_destroy(struct lb_lock *l)
{
	pthread_mutex_destroy(&l->mutex);
	lb_free(l);
}

static void
mutex_acquire(struct lb_lock *l, struct lb_qnode *q)
{
	(void)q;
	pthread_mutex_lock(&l->mutex);
}

static void
mutex_release(struct lb_lock *l, struct lb_qnode *q)
{
	(void)q;
	pthread_mutex_unlock(&l->mutex);
}

static const struct lb_lock_ops lb_ticket = {
	.name = "ticket", .model = "ticket",
	.desc = "ticket spinlock: xadd, spin with PAUSE until served; FIFO",
	.create = lb_alloc, .destroy = lb_free,
	.acquire = ticket_acquire, .release = ticket_release,
};

static const struct lb_lock_ops lb_tas = {
	.name = "tas", .model = "{kind: tas, pause: false}",
	.desc = "test-and-set: a cmpxchg loop without PAUSE; unfair",
	.create = lb_alloc, .destroy = lb_free,
	.acquire = tas_acquire, .release = tas_release,
};

static const struct lb_lock_ops lb_ttas = {
	.name = "ttas", .model = "tas",
	.desc = "test-and-test-and-set: cmpxchg, else read with PAUSE until free; unfair",
	.create = lb_alloc, .destroy = lb_free,
	.acquire = ttas_acquire, .release = tas_release,
};

static const struct lb_lock_ops lb_mcs = {
	.name = "mcs", .model = "qspinlock",
	.desc = "MCS queue lock: xchg the tail, spin on one's own node; FIFO",
	.create = lb_alloc, .destroy = lb_free,
	.acquire = mcs_acquire, .release = mcs_release,
};

static const struct lb_lock_ops lb_mutex = {
	.name = "mutex", .model = "{kind: spinpark, spin_count: 0, adaptive: false}",
	.desc = "pthread_mutex_t (default type): cmpxchg, else futex_wait",
	.create = mutex_create, .destroy = mutex_destroy,
	.acquire = mutex_acquire, .release = mutex_release,
};

static const struct lb_lock_ops lb_adaptive = {
	.name = "adaptive", .model = "spinpark",
	.desc = "PTHREAD_MUTEX_ADAPTIVE_NP: glibc's spin (adaptive budget) then futex_wait",
	.create = adaptive_create, .destroy = mutex_destroy,
	.acquire = mutex_acquire, .release = mutex_release,
};

/* No exclusion at all: the test that --check can fail (tests/e2e_lab.sh). */
static void
none_op(struct lb_lock *l, struct lb_qnode *q)
{
	(void)l;
	(void)q;
}

static const struct lb_lock_ops lb_none = {
	.name = "none", .model = "-",
	.desc = "no lock (tests only: --check must fail)",
	.create = lb_alloc, .destroy = lb_free,
	.acquire = none_op, .release = none_op,
};

const struct lb_lock_ops *const lb_locks[] = {
	&lb_ticket, &lb_tas, &lb_ttas, &lb_mcs, &lb_mutex, &lb_adaptive, NULL
};

const struct lb_lock_ops *
lb_lock_find(const char *name)
{
	int i;

	for (i = 0; lb_locks[i] != NULL; i++)
		if (strcmp(lb_locks[i]->name, name) == 0)
			return lb_locks[i];
	return strcmp(name, lb_none.name) == 0 ? &lb_none : NULL;
}
