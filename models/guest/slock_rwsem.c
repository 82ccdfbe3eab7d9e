/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slock_rwsem.c - Linux's rw_semaphore (kernel/locking/rwsem-xadd.c, 4.10):
 * readers share it, a writer excludes everyone; a reader queues behind
 * sleeping waiters (no reader spinning before 5.3); a writer spins while a
 * running writer owns it or it is free, never on readers
 * (rwsem_can_spin_on_owner); a release wakes the first waiter - a writer,
 * or the readers at the front of the queue (__rwsem_mark_wake).
 */
#include "guest/slock.h"

static int
rwsem_can_take(const struct slock *l, int read)
{
	if (read)
		return l->owner == NULL && TAILQ_EMPTY(&l->waiters);
	return l->owner == NULL && l->readers == 0;
}

static int
rwsem_can_spin(const struct slock *l, int read)
{
	return !read && (l->owner != NULL || l->readers == 0);
}

static void
rwsem_wake(struct slock *l)
{
	if (slock_first_waiter_reads(l))
		slock_handoff_readers(l);
	else
		slock_handoff_first(l);
}

const struct slock_ops slock_rwsem_ops = {
	.name = "rwsem",
	.desc = "Linux 4.10 rw_semaphore: shared readers, exclusive writers, writer "
	    "spin-on-owner, FIFO wakeups",
	.can_take = rwsem_can_take,
	.can_spin = rwsem_can_spin,
	.wake = rwsem_wake,
	.shared = 1,
};
