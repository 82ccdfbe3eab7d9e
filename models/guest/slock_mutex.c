/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slock_mutex.c - Linux's mutex (kernel/locking/mutex.c, 4.10): one owner;
 * a contender spins on the owner while it runs (mutex_optimistic_spin,
 * MCS-queued through the osq), else sleeps; unlock hands off to the first
 * waiter (MUTEX_FLAG_HANDOFF) unless a running spinner takes it first.
 */
#include "guest/slock.h"

static int
mutex_can_take(const struct slock *l, int read)
{
	(void)read;
	return l->owner == NULL;
}

static int
mutex_can_spin(const struct slock *l, int read)
{
	(void)l;
	(void)read;
	return 1;
}

static void
mutex_wake(struct slock *l)
{
	slock_handoff_first(l);
}

const struct slock_ops slock_mutex_ops = {
	.name = "mutex",
	.desc = "Linux 4.10 mutex: fast path, optimistic spinning on a running owner, "
	    "FIFO sleep, handoff",
	.can_take = mutex_can_take,
	.can_spin = mutex_can_spin,
	.wake = mutex_wake,
};
