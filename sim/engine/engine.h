/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * engine.h - one simulation run: the clock and the event loop.
 *
 * A struct sim is a whole run's context; nothing in the simulator keeps
 * global mutable state, so several runs may live in one process.  The engine
 * is event-driven: time jumps from event to event, never steps.
 */
#ifndef VS_ENGINE_H
#define VS_ENGINE_H

#include <stdint.h>

#include "evq.h"
#include "util.h"

#define SIM_NEVER INT64_MAX
/*
 * The cap on simulated time (issue 29): 1e18 ns, about 31.7 years, also the
 * largest `duration`.  Every time a scenario writes is at most this (checked
 * at load), a longer draw is saturated just past it (sim_ns), and a run whose
 * next event lies past it stops with SIM_FAIL_CAP: now <= the cap, so now
 * plus a few saturated times stays far below INT64_MAX; the clock never wraps.
 */
#define SIM_TIME_CAP ((sim_time_t)1000000000000000000LL)
/*
 * The watchdog: this many events in a row at one instant is a run that cannot
 * end (simulated time stands still), SIM_FAIL_STALL.  A legitimate instant
 * holds a few events per task and vCPU: 2^26 is 64 per task of the largest
 * spawn, far above that, and some seconds of wall time at most.
 */
#define SIM_STALL_EVENTS ((uint64_t)1 << 26)

/* Events sim_defer holds back at once; more are pushed as sim_at pushes them. */
#define SIM_DEFER_MAX 8

/* Why a run stopped before its end (sim_run): a failure, not a result. */
enum sim_fail {
	SIM_FAIL_NONE,
	SIM_FAIL_CAP,		/* the next event lies past SIM_TIME_CAP */
	SIM_FAIL_STALL,		/* the watchdog: simulated time stands still */
	SIM_FAIL_EVENTS,	/* more events than max_events (--max-events) */
	SIM_FAIL_TIMEOUT,	/* wall time past the deadline (--timeout) */
};

struct sim {
	sim_time_t now;		/* read-only outside engine.c */
	sim_time_t end;		/* stop when the next event is later (SIM_NEVER: no limit) */
	/* The last time a step may be taken inside an event (guest.c's folds,
	 * as sim_run pops nothing later): the end or SIM_TIME_CAP, the earlier;
	 * -1 once stopped.  engine.c keeps it (sim_run takes a changed end). */
	sim_time_t fold_end;
	uint64_t events;	/* events handled so far */
	uint64_t folded;	/* steps taken inside the event before them (guest.c) */
	uint64_t seed;		/* the run's seed (scenario seed mixed with the replication) */
	int stopped;
	struct evq *q;
	/* Optional observer called every 2^20 events (progress lines); it must
	 * not touch the model, so results are the same with or without it. */
	void (*tick)(const struct sim *, void *arg);
	void *tick_arg;
	/* Limits (0: none), looked at every 2^20 events and at max_events. */
	uint64_t max_events;
	double deadline;	/* wall clock (now_wall) */
	/* Set when a limit stopped the run (sim_fail), with what the model said
	 * of where (the watchdog's program and primitive). */
	enum sim_fail fail;
	char fail_where[256];
	uint64_t next_check;	/* the event count of the next look at the limits */
	/* The event count from which sim_run looks at anything past an event's
	 * end: next_check, or 0 while events are held (sim_defer); one test
	 * an event for both (engine.c sim_run) */
	uint64_t attn;
	uint64_t same;		/* events in a row at now (the watchdog) */
	uint64_t stall_events;	/* the watchdog's bound: SIM_STALL_EVENTS (tests: fewer) */
	/* Events at now whose push waits for the current event's end (sim_defer). */
	struct sim_deferred {
		void (*fn)(void *sim, void *arg, int64_t data);
		void *arg;
		int64_t data;
		uint64_t key;
	} defer[SIM_DEFER_MAX];
	int ndefer;		/* held: defer[dhead .. ndefer - 1] are still pending */
	int dhead;
	/* Where sim_next_time reads: the queue's peek (evq_peek_at), or now
	 * while events are held (engine.c defer_hold, run_deferred) */
	const sim_time_t *next;
};

typedef void (*sim_fn)(void *sim, void *arg, int64_t data);

void sim_init(struct sim *, uint64_t seed, sim_time_t end);
/* The wall clock, in seconds (CLOCK_MONOTONIC): for deadlines and rates. */
double sim_wall(void);
void sim_destroy(struct sim *);
/* The scheduling calls are inline: the model makes one or more per event,
 * and each is a thin check around the queue's own call. */
static inline evq_id
sim_at(struct sim *s, sim_time_t t, sim_fn fn, void *arg, int64_t data)
{
	VS_ASSERT(t >= s->now);
	return evq_push(s->q, t, fn, arg, data);
}

static inline evq_id
sim_after(struct sim *s, sim_time_t dt, sim_fn fn, void *arg, int64_t data)
{
	VS_ASSERT(dt >= 0);
	return evq_push(s->q, s->now + dt, fn, arg, data);
}

/* The FIFO lane for timers re-armed dt after they fire (-1: none left);
 * sim_after_lane keeps the order of sim_after, see evq.h. */
static inline int
sim_lane(struct sim *s, sim_time_t dt)
{
	return evq_lane(s->q, dt);
}

static inline evq_id
sim_after_lane(struct sim *s, int lane, sim_time_t dt, sim_fn fn, void *arg, int64_t data)
{
	VS_ASSERT(dt >= 0);
	return evq_push_lane(s->q, lane, s->now + dt, fn, arg, data);
}

/* Early events: at an equal time before every ordinary event (evq.h). */
static inline evq_id
sim_at_early(struct sim *s, sim_time_t t, sim_fn fn, void *arg, int64_t data)
{
	VS_ASSERT(t >= s->now);
	return evq_push_early(s->q, t, fn, arg, data);
}

static inline evq_id
sim_after_lane_early(struct sim *s, int lane, sim_time_t dt, sim_fn fn, void *arg,
    int64_t data)
{
	VS_ASSERT(dt >= 0);
	return evq_push_lane_early(s->q, lane, s->now + dt, fn, arg, data);
}

/* Set *id to fire at t (moving it if pending): as sim_cancel + sim_at. */
static inline void
sim_move(struct sim *s, evq_id *id, sim_time_t t, sim_fn fn, void *arg, int64_t data)
{
	VS_ASSERT(t >= s->now);
	*id = *id != EVQ_NONE ? evq_move(s->q, *id, t, fn, arg, data) :
	    evq_push(s->q, t, fn, arg, data);
}

/* An event's place in the order, taken now for a push made later in the
 * same event (sim_at_key): as if sim_at had been called now. */
static inline uint64_t
sim_reserve(struct sim *s)
{
	return evq_reserve(s->q);
}

static inline evq_id
sim_at_key(struct sim *s, sim_time_t t, uint64_t key, sim_fn fn, void *arg, int64_t data)
{
	VS_ASSERT(t >= s->now);
	return evq_push_key(s->q, t, key, fn, arg, data);
}

/* A two-stage event (evq.h evq_push_then): at t its first stage only
 * files fn at t2 in the place a push there would take. */
static inline evq_id
sim_at_then(struct sim *s, sim_time_t t, sim_time_t t2, sim_fn fn, void *arg, int64_t data)
{
	VS_ASSERT(t >= s->now);
	return evq_push_then(s->q, t, t2, fn, arg, data);
}

/*
 * fn at now, in the place sim_at(now) would give it (its key is taken now),
 * but not pushed: sim_run runs it, counted as an event as the pop would
 * have, once it comes before every pending event - when the current event
 * ends, or after the events queued before it (at now, earlier keys) have
 * run; only a ghost before it or a stop pushes it with its key.  A push and
 * a pop fewer for an event raised for now, as the host's SCHEDULE softirq
 * is (hv_resched); no id, so it cannot be cancelled.
 */
void sim_defer(struct sim *, sim_fn fn, void *arg, int64_t data);

/* Ghosts (evq.h evq_ghost): from inside the event that would re-arm itself
 * dt on, keep its next firings' places without running them. */
static inline int
sim_ghost(struct sim *s, sim_time_t dt, int32_t *at)
{
	return evq_ghost(s->q, dt, at);
}

static inline sim_time_t
sim_ghost_time(const struct sim *s, int32_t at)
{
	return evq_ghost_time(s->q, at);
}

static inline void
sim_ghost_wake(struct sim *s, int32_t at, sim_fn fn, void *arg, int64_t data)
{
	evq_ghost_wake(s->q, at, fn, arg, data);
}

static inline void
sim_ghost_cancel(struct sim *s, int32_t *at)
{
	evq_ghost_cancel(s->q, at);
}

/* Cancel *id if pending and clear it. */
static inline void
sim_cancel(struct sim *s, evq_id *id)
{
	if (*id != EVQ_NONE)
		evq_cancel(s->q, *id);
	*id = EVQ_NONE;
}

/* The earliest pending event's time (SIM_NEVER: none): now while events
 * are held, else the queue's peek.  A load through next, which engine.c
 * points at either when events are held or run: the peek runs 4.4 times an
 * acquisition (bench/peer-ticket.yaml at 64 vCPUs), a hold less than once
 * an event, so the test of dhead and ndefer cost more where it was. */
static inline sim_time_t
sim_next_time(const struct sim *s)
{
	return *s->next;
}
/*
 * From inside an event: move the clock on to t, which is before every pending
 * event and not past the end, so nothing but the caller acts in between (an
 * exact fast-forward of work the caller accounts for in one step).
 */
void sim_advance(struct sim *, sim_time_t t);
/* sim_advance for a caller that has just found t before sim_next_time (the
 * fold in guest_ev, at most steps): the rest of its checks, inline.  The end
 * and the stop are one bound, fold_end (-1 once stopped), which the caller's
 * own test (guest.c fold_ok) has just compared: gcc drops the compare here,
 * where the end's and the stop's own tests cost 5 instructions a fold. */
static inline void
sim_advance_known(struct sim *s, sim_time_t t)
{
	VS_ASSERT(t >= s->now && t <= s->fold_end);
	s->now = t;
}
/* Run until the queue is empty, sim_stop() is called, or the end time. */
void sim_run(struct sim *);
void sim_stop(struct sim *);
/* Stop the run as failed (the first failure stays); where, if not NULL, says
 * where in the model (a printf format). */
void sim_fail(struct sim *, enum sim_fail, const char *where, ...)
    __attribute__((format(printf, 3, 4)));

/* sim_ns's saturated answer, SIM_TIME_CAP + 1 (engine.c): out of line, so
 * that gcc does not load the 64-bit constant before the cap's test on every
 * call for the draw past the cap that never comes. */
sim_time_t sim_ns_over(void) __attribute__((cold));

/* sim_ns of an ns known not to be negative (0 rounds to 0 as it is): a
 * test fewer where every lock call rounds twice (guest.c work_end).  The
 * round-up is t + (t < ns) with t = trunc(ns), written !(t >= ns) (the
 * same for every ns but NaN, whose conversion is undefined either way), so
 * gcc makes it a compare and an add with carry, not a compare, a set and
 * an add: (double)t is exact for every ns up to the cap (below 2^53 t is,
 * above it ns is an integer and t = ns), so the carry is ns's fraction. */
static inline sim_time_t
sim_ns_nonneg(double ns)
{
	sim_time_t t;

	if (__builtin_expect(ns > (double)SIM_TIME_CAP, 0))
		return sim_ns_over();
	t = (sim_time_t)ns;
	return (sim_time_t)((uint64_t)t + !((double)t >= ns));
}

/* Round a duration in (fractional) ns up to whole ns, at least 0; one past
 * SIM_TIME_CAP at most (a draw that long ends the run at the cap). */
static inline sim_time_t
sim_ns(double ns)
{
	if (ns <= 0)
		return 0;
	return sim_ns_nonneg(ns);
}

#endif
