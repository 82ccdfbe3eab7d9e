/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * engine.c - the clock and the event loop of one run (engine.h).
 */
#include "engine.h"
#include "util.h"

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
}

void
sim_destroy(struct sim *s)
{
	evq_free(s->q);
	s->q = NULL;
}

void
sim_advance(struct sim *s, sim_time_t t)
{
	VS_ASSERT(t >= s->now && t < evq_peek_time(s->q) && t <= s->end && !s->stopped);
	s->now = t;
}

void
sim_run(struct sim *s)
{
	struct evq_ev ev;

	while (!s->stopped) {
		if (!evq_pop_until(s->q, s->end, &ev)) {
			/* nothing left by the end (or at all): the clock is at the end */
			if (s->end != SIM_NEVER)
				s->now = s->end;
			break;
		}
		VS_ASSERT(ev.time >= s->now);
		s->now = ev.time;
		s->events++;
		ev.fn(s, ev.arg, ev.data);
		if ((s->events & 0xfffff) == 0 && s->tick != NULL)
			s->tick(s, s->tick_arg);
	}
}

void
sim_stop(struct sim *s)
{
	s->stopped = 1;
}
