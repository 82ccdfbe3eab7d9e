/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * engine.c - the clock and the event loop of one run (engine.h).
 */
#include "engine.h"
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define SIM_TICK ((uint64_t)1 << 20)	/* events between looks at the limits */

/* The last time sim_run may reach: the end, or the cap when the end lies past it. */
static sim_time_t
last_time(const struct sim *s)
{
	return s->end < SIM_TIME_CAP ? s->end : SIM_TIME_CAP;
}

/* struct sim's fold_end, from the end and stopped */
static void
fold_end_set(struct sim *s)
{
	s->fold_end = s->stopped ? -1 : last_time(s);
}

void
sim_init(struct sim *s, uint64_t seed, sim_time_t end)
{
	s->now = 0;
	s->end = end;
	s->events = 0;
	s->folded = 0;
	s->seed = seed;
	s->stopped = 0;
	s->q = evq_new();
	s->tick = NULL;
	s->tick_arg = NULL;
	s->max_events = 0;
	s->deadline = 0;
	s->fail = SIM_FAIL_NONE;
	s->fail_where[0] = '\0';
	s->next_check = 0;
	s->same = 0;
	s->stall_events = SIM_STALL_EVENTS;
	s->ndefer = 0;
	s->dhead = 0;
	s->attn = 0;
	s->next = evq_peek_at(s->q);
	fold_end_set(s);
}

void
sim_destroy(struct sim *s)
{
	evq_free(s->q);
	s->q = NULL;
}

double
sim_wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void
sim_fail(struct sim *s, enum sim_fail why, const char *where, ...)
{
	va_list ap;

	s->stopped = 1;
	fold_end_set(s);
	if (s->fail != SIM_FAIL_NONE)
		return;
	s->fail = why;
	if (where != NULL) {
		va_start(ap, where);
		vsnprintf(s->fail_where, sizeof s->fail_where, where, ap);
		va_end(ap);
	}
}

sim_time_t
sim_ns_over(void)
{
	return SIM_TIME_CAP + 1;
}

void
sim_advance(struct sim *s, sim_time_t t)
{
	VS_ASSERT(t >= s->now && t < sim_next_time(s) && t <= s->end && !s->stopped);
	s->now = t;
}

/* Every SIM_TICK events, and at max_events: the observer and the limits. */
static void
check(struct sim *s)
{
	/* max_events done: a failure if the run has more to do */
	if (s->max_events != 0 && s->events >= s->max_events) {
		if (!s->stopped && sim_next_time(s) <= last_time(s))
			sim_fail(s, SIM_FAIL_EVENTS, NULL);
		return;
	}
	if (s->events != 0 && s->events % SIM_TICK == 0) {
		if (s->tick != NULL)
			s->tick(s, s->tick_arg);
		if (s->deadline > 0 && sim_wall() > s->deadline) {
			sim_fail(s, SIM_FAIL_TIMEOUT, NULL);
			return;
		}
	}
	s->next_check = (s->events / SIM_TICK + 1) * SIM_TICK;
	if (s->max_events != 0 && s->max_events < s->next_check)
		s->next_check = s->max_events;
	s->attn = s->dhead < s->ndefer ? 0 : s->next_check;
}

/* Holds fn for the current event's end, with the key sim_at would give it. */
static inline void
defer_hold(struct sim *s, sim_fn fn, void *arg, int64_t data)
{
	struct sim_deferred *d = &s->defer[s->ndefer++];

	d->fn = fn;
	d->arg = arg;
	d->data = data;
	d->key = evq_reserve(s->q);
	s->attn = 0;	/* sim_run runs it at this event's end */
	s->next = &s->now;	/* (now stands still while it is held) */
}

/* sim_defer with all SIM_DEFER_MAX taken: out of line (and a tail call), so
 * that the common hold is a leaf that saves no registers (as ee97213) */
static __attribute__((noinline, cold)) void
defer_full(struct sim *s, sim_fn fn, void *arg, int64_t data)
{
	if (s->dhead > 0) {
		/* those run are gone: the held ones move to the front */
		s->ndefer -= s->dhead;
		memmove(s->defer, s->defer + s->dhead, (size_t)s->ndefer * sizeof *s->defer);
		s->dhead = 0;
		defer_hold(s, fn, arg, data);
		return;
	}
	evq_push(s->q, s->now, fn, arg, data);	/* after those held: its key is later */
}

void
sim_defer(struct sim *s, sim_fn fn, void *arg, int64_t data)
{
	if (s->ndefer == SIM_DEFER_MAX) {
		defer_full(s, fn, arg, data);
		return;
	}
	defer_hold(s, fn, arg, data);
}

/*
 * After an event (and before the first): the deferred events, in their keys'
 * order.  While nothing pending comes before the next of them in the order
 * (now, its key), it is what the queue would pop next: it runs here as
 * sim_run runs a popped one (the watchdog's count, the event count, the
 * limits).  An event queued before it (at now, an earlier key) is popped
 * first and the held ones wait for its end, as they would have waited in
 * the queue, without a push and a pop each (seed001-x7560 3x: 37% of the
 * SCHEDULE softirqs raised for now wait so).  A ghost before it, or a
 * stop, pushes them with their keys, as sim_at would have.
 */
static void
run_deferred(struct sim *s)
{
	while (s->dhead < s->ndefer) {
		struct sim_deferred d = s->defer[s->dhead];
		int before = s->stopped ? EVQ_GHOST_BEFORE :
		    evq_first_before(s->q, s->now, d.key);

		if (before == EVQ_EVENT_BEFORE)
			return;		/* sim_run pops it, then comes back */
		if (before == EVQ_GHOST_BEFORE) {
			for (; s->dhead < s->ndefer; s->dhead++) {
				d = s->defer[s->dhead];
				evq_push_key(s->q, s->now, d.key, d.fn, d.arg, d.data);
			}
			break;
		}
		if (++s->dhead == s->ndefer)
			s->next = evq_peek_at(s->q);	/* it runs with none held */
		if (++s->same >= s->stall_events) {
			/* popped, then the watchdog: it never runs; the rest stay queued */
			sim_fail(s, SIM_FAIL_STALL, NULL);
			continue;
		}
		s->events++;
		d.fn(s, d.arg, d.data);	/* may defer more: they follow, later keys */
		if (s->events == s->next_check)
			check(s);
	}
	s->ndefer = s->dhead = 0;
	s->attn = s->next_check;	/* none held */
	s->next = evq_peek_at(s->q);
}

/*
 * The loop.  Its bound is fold_end: the end or the cap, -1 once stopped,
 * so a stop ends the run at the next pop, with no test of its own; and an
 * event's end tests one count (attn) for a look at the limits or at the
 * held events, where it tested each and the stop (bench/peer-ticket.yaml
 * at 64 vCPUs: 1.74 events an acquisition).  What they do and when is the
 * same.
 */
void
sim_run(struct sim *s)
{
	struct evq *q = s->q;	/* (a register across the events: no handler changes it) */
	struct evq_ev ev;

	fold_end_set(s);	/* (a test's rig sets the end between runs) */
	check(s);
	run_deferred(s);
	for (;;) {
		if (!evq_pop_until(q, s->fold_end, &ev)) {
			/* stopped; or nothing left by the end (or at all): the
			 * clock is at the end; an event past the cap is a run that
			 * cannot be timed */
			if (s->stopped)
				break;
			if (s->end > SIM_TIME_CAP && evq_peek_time(s->q) != SIM_NEVER)
				sim_fail(s, SIM_FAIL_CAP, NULL);
			else if (s->end != SIM_NEVER)
				s->now = s->end;
			break;
		}
		VS_ASSERT(ev.time >= s->now);
		if (ev.time != s->now)
			s->same = 0;
		else if (++s->same >= s->stall_events) {
			sim_fail(s, SIM_FAIL_STALL, NULL);
			break;
		}
		s->now = ev.time;
		s->events++;
		ev.fn(s, ev.arg, ev.data);
		if (s->events >= s->attn) {
			if (s->events == s->next_check)
				check(s);
			if (s->ndefer > 0)
				run_deferred(s);
		}
	}
	if (s->dhead < s->ndefer)
		run_deferred(s);	/* stopped: those still held go to the queue */
}

void
sim_stop(struct sim *s)
{
	s->stopped = 1;
	fold_end_set(s);
}
