/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * evq.h - the event queue: an indexed 4-ary min-heap (a sorted array while
 * few events are pending).
 *
 * Order is (time, seq): seq is a per-queue insertion counter, so two events
 * at the same nanosecond fire in the order they were pushed and every run is
 * deterministic.  Each pushed event gets a handle (evq_id) that stays valid
 * until the event fires or is cancelled; cancel is O(log n) because the heap
 * keeps each slot's position in an index.
 */
#ifndef VS_EVQ_H
#define VS_EVQ_H

#include <stdint.h>
#include <stddef.h>

typedef int64_t sim_time_t;          /* simulated nanoseconds */

/* An event pushed EVQ_HORIZON or more after the latest pop waits in the far
 * part (a second heap and its front), apart from the near ones (evq.c); the
 * order is the same. */
#define EVQ_HORIZON ((sim_time_t)1000000)
typedef uint32_t evq_id;              /* 0 is "no event" */
#define EVQ_NONE ((evq_id)0)

struct evq;

/* A pending event's place in the order: its time, then its key (evq.c). */
struct evq_hent {
	sim_time_t time;
	uint64_t key;		/* seq << EVQ_SLOT_BITS | slot; seq is unique */
};

/*
 * What a peek reads, the first member of struct evq (evq.c, which alone
 * writes it): public so that evq_peek_time is inline in every build (with
 * or without LTO, the sanitizers', the Debian package's).  It runs once or
 * more an event (sim_next_time: the fold's bound, run_deferred); out of
 * line it cost 31.7 instructions an acquisition (d1f5c4a,
 * bench/peer-ticket.yaml at 4 vCPUs).
 */
struct evq_top {
	struct evq_hent *h;	/* the near part's least entry: base + EVQ_PAD, or later when sorted */
	size_t n;		/* near entries (the hole counted) */
	/* The near part's form (evq.c EVQ_SORTED, EVQ_HEAP, EVQ_HOLE: a heap
	 * whose root was popped, not yet refilled; its place's time is then
	 * its least child's, the peek's, its key stale) */
	int form;
	/* The least time of the far part (its front's head or its heap's
	 * top), the lanes' heads and the ghost ring's head (INT64_MAX: none),
	 * kept where one of them changes, which is rarer than a peek */
	sim_time_t side;
	/* The least of side and the near part's head time (evq_peek_time's
	 * answer), kept where either changes (evq.c least_note, least_add):
	 * a peek is one load */
	sim_time_t least;
};

/* What an event carries: a handler and two arguments (opaque to the queue). */
struct evq_ev {
	sim_time_t time;
	uint64_t seq;
	void (*fn)(void *ctx, void *arg, int64_t data);
	void *arg;
	int64_t data;
};

struct evq *evq_new(void);
void evq_free(struct evq *);

evq_id evq_push(struct evq *, sim_time_t t, void (*fn)(void *, void *, int64_t),
    void *arg, int64_t data);
/* Reschedule pending event id (else push a new one): the same order as
 * evq_cancel + evq_push, without the slot churn.  Returns the event's id. */
evq_id evq_move(struct evq *, evq_id id, sim_time_t t,
    void (*fn)(void *, void *, int64_t), void *arg, int64_t data);
/* Cancel a pending event; returns 1 if it was pending, 0 if id is stale/none. */
/* At an equal time an early event pops before every ordinary one (the host
 * tick: models/hv/hv.c). */
evq_id evq_push_early(struct evq *, sim_time_t t, void (*fn)(void *, void *, int64_t),
    void *arg, int64_t data);
int evq_cancel(struct evq *, evq_id id);
/* The place in the order an evq_push would take now (its seq), for a push
 * made later with evq_push_key: the event sorts as if pushed now. */
uint64_t evq_reserve(struct evq *);
uint64_t evq_next_key(const struct evq *);
evq_id evq_push_key(struct evq *, sim_time_t t, uint64_t key,
    void (*fn)(void *, void *, int64_t), void *arg, int64_t data);
/* Remove the earliest event into *out; returns 0 when empty. */
int evq_pop(struct evq *, struct evq_ev *out);
/* As evq_pop, but only an event at or before end (else 0, nothing taken). */
int evq_pop_until(struct evq *, sim_time_t end, struct evq_ev *out);
/* Earliest event's time, or INT64_MAX when empty (inline below). */
static inline sim_time_t evq_peek_time(const struct evq *);
/* Whether a pending entry comes before (t, key), a key evq_reserve gave:
 * EVQ_NONE_BEFORE; EVQ_EVENT_BEFORE, an event that evq_pop takes next;
 * EVQ_GHOST_BEFORE, a ghost (evq_pop would pop it and go on past (t, key)). */
enum { EVQ_NONE_BEFORE, EVQ_EVENT_BEFORE, EVQ_GHOST_BEFORE };
int evq_first_before(struct evq *, sim_time_t t, uint64_t key);
/*
 * Two-stage entries: an event at t whose handler would only file the next
 * event of its own at t2, with fn (the same arg and data), as a push made
 * there, and change nothing else that anyone reads before then (the owner
 * applies that change itself, late: models/guest/guest.c ple_in_arm).  The
 * entry waits at (t, its key); when it comes first, the queue files it at
 * (t2, the next key), as that push would take it, without a handler (the
 * first stage passed: evq_pop_until, evq_first_before).  Its id stays
 * valid; cancel and move take it as any event.  evq_then_pending: its
 * first stage has not passed; evq_then_drop makes that first stage an
 * ordinary event with handler fn and data, in its place.
 */
evq_id evq_push_then(struct evq *, sim_time_t t, sim_time_t t2,
    void (*fn)(void *, void *, int64_t), void *arg, int64_t data);
int evq_then_pending(const struct evq *, evq_id id);
void evq_then_drop(struct evq *, evq_id id, void (*fn)(void *, void *, int64_t), int64_t data);
size_t evq_size(const struct evq *);
int evq_pending(const struct evq *, evq_id id);

/*
 * FIFO lanes for events pushed in time order (a timer re-armed a fixed delay
 * after it fires): the same order as evq_push, without the heap.  evq_lane
 * returns the lane for tag (created on first use; tag is the caller's name
 * for it, e.g. the delay), or -1 when all EVQ_LANES are taken.  A push to
 * lane -1, or earlier than the lane's latest, goes to the heap.
 */
#define EVQ_LANES 8
int evq_lane(struct evq *, sim_time_t tag);
evq_id evq_push_lane(struct evq *, int lane, sim_time_t t,
    void (*fn)(void *, void *, int64_t), void *arg, int64_t data);
evq_id evq_push_lane_early(struct evq *, int lane, sim_time_t t,
    void (*fn)(void *, void *, int64_t), void *arg, int64_t data);

/*
 * Ghosts: an event that would fire every per from now on, doing nothing but
 * push itself again, kept in its place in the order without being run (the
 * guest's tick on a vCPU the host has preempted: models/guest/kernel.c).
 * evq_ghost takes the place a push at now + per would take now, as the
 * event firing now would re-arm itself; each ghost pop takes the next
 * place as that push would (pops, peeks and every other event's order are
 * those of the real events).  Returns 0 when it cannot keep the ring's order
 * (another period): push the event then.  *at is the ghost's handle (-1:
 * none), kept by the queue.  evq_ghost_wake makes it the pending event its
 * last pop left (its time and key), popped as any event (then *at is -1);
 * evq_ghost_time says when.  evq_ghost_cancel drops it, woken or not.
 */
int evq_ghost(struct evq *, sim_time_t per, int32_t *at);
sim_time_t evq_ghost_time(const struct evq *, int32_t at);
void evq_ghost_wake(struct evq *, int32_t at, void (*fn)(void *, void *, int64_t),
    void *arg, int64_t data);
void evq_ghost_cancel(struct evq *, int32_t *at);
/* Ghost pops so far: events the real ones would have run. */
uint64_t evq_ghost_pops(const struct evq *);

/* The lesser of the near part's head time and the rest's (side): the
 * time of the entry evq_pop would take, as only times are compared.  Kept
 * as its own field (least): a peek runs 4.4 times an acquisition
 * (bench/peer-ticket.yaml at 64 vCPUs), a near pop or push 1.7 times, so
 * a peek's test of n and its load through h cost more than the pop's and
 * the push's upkeep; an empty near part's peek (seed001-x5570 3x: 80% of
 * them) is a load fewer too. */
static inline sim_time_t
evq_peek_time(const struct evq *q)
{
	return ((const struct evq_top *)q)->least;	/* its first member */
}

/* Where evq_peek_time reads its answer, for a caller that keeps the
 * address (engine.h sim_next_time); it stays valid as long as the queue. */
static inline const sim_time_t *
evq_peek_at(const struct evq *q)
{
	return &((const struct evq_top *)q)->least;
}

#endif
