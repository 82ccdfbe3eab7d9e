/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hv_idle.c - a pCPU with nothing to run: its idle state and the cost of
 * leaving it, for every hypervisor kind (a KVM host's cpuidle, Xen's
 * mwait-idle, bare metal's own idle loop all pick a C-state by the same
 * rule here).
 *
 * Governor: Linux drivers/cpuidle/governors/menu.c menu_select, simplified
 * and deterministic: the expected idle time is the shorter of the time to
 * the pCPU's next timer event (tick_nohz_get_sleep_length: its next
 * scheduler tick, or sooner the timer of a halted vCPU armed on it, hv.c
 * park) and get_typical_interval of its last 8
 * idle periods (each pass of the idle loop is one: a poll, a C-state until
 * a kept tick, or until the wake); the state
 * is the deepest whose target_residency and exit_latency fit in it (latency_req
 * = the prediction, performance_multiplier 1: no iowaiters), and with none
 * that fits the pCPU polls in C0 (drivers/cpuidle/poll_state.c).  Xen's
 * acpi/cpuidle_menu.c follows the same menu.  Leaves out: menu's correction
 * factors (buckets), PM QoS latency limits, the exit latency of the tick's
 * own wakes of an idle pCPU, and the energy side.
 *
 * The pCPU leaving a C-state pays its exit_latency (intel_idle.c's table,
 * the machine file's cstates) before it can schedule: whatever woke it (a
 * wake's IPI, its own timer), its SCHEDULE softirq runs that much later, the
 * vCPU it then runs staying runnable meanwhile.
 */
#include <math.h>

#include "hv/hv.h"

#define HIST	8	/* menu.c INTERVALS */

/* Linux menu.c get_typical_interval: the average of the last 8 periods when
 * their spread is small (stddev <= 20 us or avg > 6 stddev), discarding the
 * largest ones down to 3/4 of them; INFINITY if there is none. */
static double
typical_interval(const struct pcpu *p, double predicted)
{
	double thresh = INFINITY;

	for (;;) {
		double sum = 0, var = 0, avg, min = INFINITY, max = 0;
		int i, n = 0;

		for (i = 0; i < HIST; i++) {
			double x = (double)p->hist[i];

			if (x <= thresh) {
				sum += x;
				n++;
				max = x > max ? x : max;
				min = x < min ? x : min;
			}
		}
		if (min >= predicted)
			return INFINITY;
		avg = sum / n;
		for (i = 0; i < HIST; i++) {
			double x = (double)p->hist[i];

			if (x <= thresh)
				var += (x - avg) * (x - avg);
		}
		var /= n;
		/* variance in ns^2: 400 us^2 = 4e8 ns^2 */
		if ((avg * avg > var * 36 && n * 4 >= HIST * 3) || var <= 4e8)
			return avg;
		if (n * 4 <= HIST * 3)
			return INFINITY;
		thresh = max - 1;
	}
}

/* Linux menu.c menu_select (see the top of the file) at time t of an idle
 * period, the next timer next_timer ns away: -1 is the poll state; *pred
 * gets the expected idle time. */
static int
pick(const struct hv *hv, const struct pcpu *p, double next_timer, double *pred)
{
	const struct machine *m = hv->m;
	int i, idx = -1;

	*pred = typical_interval(p, next_timer);
	if (next_timer < *pred)
		*pred = next_timer;
	for (i = 0; i < m->ncstates; i++) {
		const struct hw_cstate *s = &m->cstates[i];

		if (s->residency_ns > *pred) {
			/* "use a physical idle state, not busy polling, unless a timer
			 * is going to trigger soon enough" */
			if (idx < 0 && s->exit_ns <= *pred && s->residency_ns <= next_timer)
				idx = i;
			break;
		}
		if (s->exit_ns > *pred)
			break;
		idx = i;
	}
	return idx;
}

/* menu.c menu_update: the measured period goes into the history. */
static void
hist_add(struct pcpu *p, sim_time_t d)
{
	p->hist[p->hist_i] = d;
	p->hist_i = (p->hist_i + 1) % HIST;
}

/*
 * The idle period from idle_since to now, as the idle loop would have lived
 * it, computed when it ends (no event while it lasts): each pass of the loop
 * (kernel/sched/idle.c do_idle -> cpuidle_idle_call) picks a state; the poll
 * state ends after cpuidle_poll_time (the first C-state's target residency,
 * poll_state.c), a C-state at the next tick if the governor kept the tick
 * (expected idle shorter than a tick, menu.c), else at the wake (the tick
 * stopped, tick_nohz_idle_stop_tick).  Returns the state the wake finds.
 */
static int
replay(struct hv *hv, struct pcpu *p)
{
	const struct machine *m = hv->m;
	sim_time_t t = p->idle_since, now = hv->sim->now, end;
	int tick = sched_op_has_tick(hv->sched) && hv->tick_ns > 0, s;
	double pred;

	for (;;) {
		sim_time_t next_tick = tick ? hv_tick_last(p, t) + hv->tick_ns : SIM_NEVER;
		sim_time_t next_ev = next_tick;

		/* a halted vCPU's timer armed here comes first (hv.c park) */
		if (p->timer_at > t && p->timer_at < next_ev)
			next_ev = p->timer_at;
		s = pick(hv, p, next_ev != SIM_NEVER ? (double)(next_ev - t) : INFINITY, &pred);
		if (s < 0 && m->ncstates > 0)
			end = t + sim_ns(m->cstates[0].residency_ns);
		else if (s < 0 || (tick && pred < (double)hv->tick_ns))
			end = next_tick;
		else
			end = SIM_NEVER;
		if (end <= t)
			end = t + 1;
		if (now <= end)
			break;
		if (s >= 0)
			p->cstate_time += end - t;
		hist_add(p, end - t);
		t = end;
	}
	if (s >= 0)
		p->cstate_time += now - t;
	hist_add(p, now - t);
	return s;
}

void
hv_idle_enter(struct hv *hv, struct pcpu *p)
{
	if (p->idle)
		return;
	p->idle = 1;
	p->idle_since = hv->sim->now;
}

/* Intel SDM vol. 2B MWAIT: the core resumes after the state's exit latency,
 * then runs the scheduler (Linux do_idle -> schedule_idle; Xen idle_loop). */
int
hv_idle_waking(struct hv *hv, struct pcpu *p)
{
	sim_time_t now = hv->sim->now;
	double lat;
	int s;

	if (p->awake_at > now) {
		hv_resched(p, p->awake_at - now);	/* an earlier tickle: still waking */
		return 1;
	}
	p->awake_at = 0;
	if (!p->idle)
		return 0;
	p->idle = 0;
	s = replay(hv, p);
	if (s < 0)
		return 0;
	lat = hv->m->cstates[s].exit_ns;
	p->cstate_wakes++;
	p->cstate_exit_ns += lat;
	p->awake_at = now + sim_ns(lat);
	if (p->awake_at <= now)
		return 0;
	hv_resched(p, p->awake_at - now);
	return 1;
}

void
hv_idle_finish(struct hv *hv, struct pcpu *p)
{
	if (p->idle) {
		replay(hv, p);
		p->idle_since = hv->sim->now;	/* still idle; the run ends here */
	}
}

/* The books at the warm-up's end, an idle period still open included up to
 * now; replayed on a copy, so that the governor's history (menu.c intervals)
 * sees the period whole, as it would without a warm-up. */
void
hv_idle_rebase(struct hv *hv, struct pcpu *p)
{
	struct pcpu copy = *p;

	if (copy.idle)
		replay(hv, &copy);
	p->cstate_time0 = copy.cstate_time;
	p->cstate_wakes0 = p->cstate_wakes;
	p->cstate_exit_ns0 = p->cstate_exit_ns;
}
