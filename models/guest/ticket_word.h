/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ticket_word.h - the {head, tail} word of x86 ticket locks and who holds
 * which ticket; shared by lock_ticket.c and lock_pvticket.c (header-only).
 * Tickets count up without wrapping; a ring of one slot per vCPU maps a
 * ticket to its owner, which is enough because a vCPU holds one ticket.
 */
#ifndef VS_TICKET_WORD_H
#define VS_TICKET_WORD_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ffsnap.h"
#include "guest/guest.h"
#include "guest/lock.h"
#include "guest/ring_ff.h"
#include "hv/hv.h"
#include "util.h"

struct ticket_word {
	uint64_t head, tail;
	struct vcpu **owner;	/* ring: who holds ticket t (t % n) */
	/* ... and its index in the VM (v->idx), which locates its lock node
	 * without its vCPU line (tkt_prefetch) */
	int *idx;
	int n;
	/* head % n and tail % n, kept as they advance: a ring index without a
	 * 64-bit divide (tens of cycles, four an acquisition) */
	int hi, ti;
};

/* From this many vCPUs a waiter's lines are out of cache by its turn, and
 * tkt_prefetch pays (7034edb: -22% CPU at 1024 pinned vCPUs, -27% at
 * 4096); below, they are still in cache (64 vCPUs: some 60 KB of node,
 * vCPU, activity and pCPU lines) and its ~20 instructions a hand-over buy
 * nothing. */
#define TKT_FAR_VCPUS	256

/* ring index i + 1, wrapped */
static inline int
tkt_next(const struct ticket_word *t, int i)
{
	return i + 1 == t->n ? 0 : i + 1;
}

static inline void
tkt_init(struct ticket_word *t, int nvcpus)
{
	t->head = t->tail = 0;
	t->hi = t->ti = 0;
	t->n = nvcpus;
	t->owner = xcalloc((size_t)nvcpus, sizeof *t->owner);
	t->idx = xcalloc((size_t)nvcpus, sizeof *t->idx);
}

/* t as tkt_init leaves it, its arrays kept (a renewed lock: lock_renew) */
static inline void
tkt_clear(struct ticket_word *t)
{
	t->head = t->tail = 0;
	t->hi = t->ti = 0;
	memset(t->owner, 0, (size_t)t->n * sizeof *t->owner);
	memset(t->idx, 0, (size_t)t->n * sizeof *t->idx);
}

static inline void
tkt_free(struct ticket_word *t)
{
	free(t->owner);
	free(t->idx);
}

/* xadd on tail: v takes the next ticket; 1 if it is already its turn. */
static inline int
tkt_take(struct ticket_word *t, struct vcpu *v)
{
	uint64_t my = t->tail++;

	VS_ASSERT(t->tail - t->head <= (uint64_t)t->n);
	t->owner[t->ti] = v;
	t->idx[t->ti] = v->idx;
	t->ti = tkt_next(t, t->ti);
	return t->head == my;
}

/*
 * LNX-3.6 spinlock.h: __ticket_spin_lock - xadd on tail, then spin on head.
 * v takes a ticket of l's word t: what taking l at once costs (ns), or -1
 * where v queues (priced only when it takes the lock: a waiter pays its
 * turn's).  Inline in the ticket lock's take and in lock_acquire, which
 * calls it directly for that lock (lock.h lock_ticket_take).
 */
static inline double
tkt_lock_take(struct glock *l, struct ticket_word *t, struct vcpu *v)
{
	const struct pcpu *from = l->last_p;	/* the xadd's line: the last writer's */

	l->last_p = v->pcpu;
	if (tkt_take(t, v))
		return pcpu_line_ns(from, v->pcpu) + lock_atomic_ns(l);	/* (v runs) */
	return -1;
}

/* v holds ticket head: it is taken (tail > head), and by v.  The owners'
 * ring says it without a per-vCPU array of tickets, whose line was cold with
 * thousands of vCPUs (0.8 D1 misses an acquisition to read it at 1024, and
 * as many to write it, bench/peer-ticket.yaml); the slot tkt_advance just
 * read is not. */
static inline int
tkt_turn(const struct ticket_word *t, const struct vcpu *v)
{
	return t->tail != t->head && t->owner[t->hi] == v;
}

/* head++; the vCPU whose turn it now is, or NULL if nobody waits. */
static inline struct vcpu *
tkt_advance(struct ticket_word *t)
{
	struct vcpu *v;

	t->head++;
	t->hi = tkt_next(t, t->hi);
	if (t->tail == t->head)
		return NULL;
	v = t->owner[t->hi];
	/* a taken ticket's slot names its taker (tkt_take), so a caller's
	 * test for NULL is the tail's test alone */
	if (v == NULL)
		__builtin_unreachable();
	return v;
}

/*
 * With thousands of vCPUs the waiters' lines are cold by their turn: start
 * loading them hand-overs early.  For the waiter two turns after the one
 * just made: its vCPU line, and its lock node, which its take reads first,
 * found from the index ring (sequential, so streamed in), not from the
 * vCPU line, which would have to be here first (one turn early, as it
 * was, the node still missed at the take: bench/peer-ticket.yaml at 1024
 * vCPUs, -4% CPU with it two turns early).  For the one after the one
 * just made: its guest lines (what guest_poke reads) and its pCPU's first
 * line, which holds all lock_poke reads of it (hv.h), from the vCPU line
 * that came a release ago.  Loads only.  Returns that one (NULL: none),
 * which the releases ignore: tests/check_locks sees by it what was asked.
 */
static inline struct vcpu *
tkt_prefetch(const struct glock *l, const struct ticket_word *t)
{
	uint64_t w = t->tail - t->head;
	int i1 = tkt_next(t, t->hi), i2 = tkt_next(t, i1);

	if (t->n < TKT_FAR_VCPUS)
		return NULL;	/* (the lines are in cache: TKT_FAR_VCPUS) */
	if (w > 2) {
		__builtin_prefetch(t->owner[i2]);
		lock_prefetch_node(l, t->idx[i2]);
	}
	if (w <= 1)
		return NULL;
	guest_prefetch(t->owner[i1]);
	return t->owner[i1];
}

/* LNX-3.6 spinlock.h: __ticket_spin_unlock - head++ (no kick): the next
 * ticket's owner, if any, sees it (lock_poke).  Inline in the ticket lock's
 * release and in lock_release (lock.h lock_ticket_release). */
static inline double
tkt_lock_release(struct glock *l, struct ticket_word *t)
{
	struct vcpu *next = tkt_advance(t);

	if (next != NULL) {
		tkt_prefetch(l, t);
		lock_poke(l, next);
	}
	return 0;
}

/* A ticket lock's spinner v saw the word change: 1 if it is free and v
 * holds ticket head (then it owns it: the caller's lock_taken), at a
 * hand-over the ring fast-forward may look at (ring_ff_turn) */
static inline int
tkt_lock_turn(struct glock *l, const struct ticket_word *t, struct vcpu *v)
{
	if (l->holder != NULL || !tkt_turn(t, v))
		return 0;
	ring_ff_turn(l, v);	/* a hand-over: the ring's cycles may repeat from here */
	return 1;
}

/* The word in a snapshot of a periodic run (ring_ff.c): head and tail count
 * up, a cycle by as many as it hands over; the rest, the ring of owners and
 * its indexes, repeats. */
static inline void
tkt_ffs(struct ffs *s, struct ticket_word *t)
{
	ffs_bytes(s, t, sizeof *t);
	ffs_count(s, &t->head);
	ffs_count(s, &t->tail);
	ffs_bytes(s, t->owner, (size_t)t->n * sizeof *t->owner);
	ffs_bytes(s, t->idx, (size_t)t->n * sizeof *t->idx);
}

#endif
