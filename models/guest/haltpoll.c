/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * haltpoll.c - the cpuidle haltpoll governor (haltpoll.h), as Linux
 * drivers/cpuidle/governors/haltpoll.c (5.4+) with cpuidle-haltpoll.c's two
 * states: 0 POLL (poll_state.c poll_idle: spin on need_resched for
 * cpuidle_poll_time, which is poll_limit_ns here) and 1 "haltpoll idle"
 * (default_idle: HLT).  Leaves out: PM QoS latency limits (latency_req 0
 * would always poll), and the driver's load condition
 * (KVM_HINTS_REALTIME or force): `halt_poll` in the scenario loads it.
 */
#include "guest/haltpoll.h"

#include <math.h>

/* governors/haltpoll.c haltpoll_select */
enum ghp_state
ghp_select(const struct ghp_cfg *c, const struct ghp_cpu *d)
{
	if (c->max_ns <= 0 || d->limit_ns <= 0)
		return GHP_HALT;	/* "poll_limit_ns == 0": halt */
	if (d->last_poll)
		return d->time_limit ? GHP_HALT : GHP_POLL;	/* no event in the window: halt */
	return GHP_POLL;		/* the last state was halt: poll */
}

/* governors/haltpoll.c adjust_poll_limit (the limits are unsigned ints there:
 * the shrink's division truncates) */
static void
adjust(const struct ghp_cfg *c, struct ghp_cpu *d, double block_ns)
{
	double val;

	if (block_ns > d->limit_ns && block_ns <= c->max_ns) {
		/* a halt longer than the poll but within guest_halt_poll_ns: grow */
		val = d->limit_ns * c->grow;
		if (val < c->grow_start_ns)
			val = c->grow_start_ns;
		if (val > c->max_ns)
			val = c->max_ns;
		d->limit_ns = val;
	} else if (block_ns > c->max_ns && c->allow_shrink) {
		/* a halt longer than any poll would cover: shrink */
		d->limit_ns = c->shrink == 0 ? 0 : floor(d->limit_ns / c->shrink);
	}
}

/* governors/haltpoll.c haltpoll_reflect: only a halt adjusts the limit */
void
ghp_reflect(const struct ghp_cfg *c, struct ghp_cpu *d, enum ghp_state s, double residency_ns)
{
	d->last_poll = s == GHP_POLL;
	if (s == GHP_HALT)
		adjust(c, d, residency_ns);
}
