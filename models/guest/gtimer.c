/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gtimer.c - guest timers on vCPUs and the periodic kernel services (gtimer.h).
 *
 * Each armed timer is one event at its expiry; a due timer waits on its
 * vCPU's list until the kernel runs it in an interrupt (gt_run), so a timer
 * of a vCPU the host has preempted runs when that vCPU next runs guest code,
 * as KVM injects the LAPIC timer's interrupt on entry.
 */
#include "guest/gtimer.h"

#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "guest/guest.h"
#include "hv/hv.h"

TAILQ_HEAD(gt_list, gtimer);
LIST_HEAD(gt_armed, gtimer);

/*
 * The periodic kernel services of a guest with nothing to do, each with the
 * code that sets its period and kind.  cost: the guest task switches its
 * function makes (it wakes a kernel thread that runs and sleeps again), at
 * the machine's guest_ctx_switch each; the function's own few hundred
 * instructions are left in the interrupt's cost (costs.timer_tick), as the
 * tick's are.
 */
enum gt_where { SVC_PERCPU, SVC_ROUND, SVC_CPU0 };

static const struct gt_service {
	const char *name;
	double period_ns;
	int kind;		/* enum gt_kind */
	int where;		/* enum gt_where */
	int switches;
} services[] = {
	/* Linux 3.2 kernel/watchdog.c: watchdog_thresh 10 s, get_sample_period()
	 * = get_softlockup_thresh() (2 x 10 s) x NSEC_PER_SEC / 5; the per-CPU
	 * watchdog_hrtimer's watchdog_timer_fn wakes the per-CPU watchdog thread */
	{ "softlockup_watchdog", 4e9, GT_HRTIMER, SVC_PERCPU, 2 },
	/* Linux 3.2 kernel/time/clocksource.c: WATCHDOG_INTERVAL (HZ >> 1), a
	 * timer-wheel timer that clocksource_watchdog re-adds on the next online
	 * CPU (add_timer_on); it runs while a clocksource is CLOCK_SOURCE_MUST_VERIFY
	 * (the TSC, in a KVM guest too: arch/x86/kernel/tsc.c) */
	{ "clocksource_watchdog", 0.5e9, GT_WHEEL, SVC_ROUND, 0 },
	/* Linux 3.2 mm/vmstat.c start_cpu_timer: INIT_DELAYED_WORK_DEFERRABLE
	 * (vmstat_update) every sysctl_stat_interval (HZ); the work runs in a
	 * kworker thread */
	{ "vmstat_update", 1e9, GT_DEFERRABLE, SVC_PERCPU, 2 },
	/* Linux 3.2 kernel/hung_task.c watchdog(): khungtaskd sleeps in
	 * schedule_timeout_interruptible(CONFIG_DEFAULT_HUNG_TASK_TIMEOUT, 120 s) */
	{ "khungtaskd", 120e9, GT_WHEEL, SVC_CPU0, 2 },
};
#define NSERVICES ((int)(sizeof services / sizeof services[0]))

/* One running instance of a service (one per vCPU for the per-CPU ones). */
struct gt_svc {
	struct gtimer t;
	const struct gt_service *def;
	sim_time_t expires;	/* the time it was armed for */
};

struct gtimers {
	struct sim *sim;
	int ncpu;
	gt_raise_fn raise;
	void *ctx;
	struct gt_list *due;	/* per vCPU */
	struct gt_armed *armed;	/* per vCPU */
	int *ndue;
	struct gt_svc *svcs;
	int nsvcs;
	struct gt_stats st;
};

struct gtimers *
gt_new(struct sim *s, int ncpu, gt_raise_fn raise, void *ctx)
{
	struct gtimers *ts = xcalloc(1, sizeof *ts);
	int i;

	ts->sim = s;
	ts->ncpu = ncpu;
	ts->raise = raise;
	ts->ctx = ctx;
	ts->due = xcalloc((size_t)ncpu, sizeof *ts->due);
	ts->ndue = xcalloc((size_t)ncpu, sizeof *ts->ndue);
	ts->armed = xcalloc((size_t)ncpu, sizeof *ts->armed);
	for (i = 0; i < ncpu; i++) {
		TAILQ_INIT(&ts->due[i]);
		LIST_INIT(&ts->armed[i]);
	}
	return ts;
}

void
gt_free(struct gtimers *ts)
{
	int i;

	if (ts == NULL)
		return;
	for (i = 0; i < ts->nsvcs; i++)
		sim_cancel(ts->sim, &ts->svcs[i].t.ev);
	free(ts->svcs);
	free(ts->due);
	free(ts->ndue);
	free(ts->armed);
	free(ts);
}

void
gt_init(struct gtimer *t, struct gtimers *ts, int kind, gt_fn fn, void *arg)
{
	t->ts = ts;
	t->ev = EVQ_NONE;
	t->cpu = 0;
	t->kind = kind;
	t->due = 0;
	t->fn = fn;
	t->arg = arg;
}

static void
undue(struct gtimer *t)
{
	if (!t->due)
		return;
	TAILQ_REMOVE(&t->ts->due[t->cpu], t, link);
	t->ts->ndue[t->cpu]--;
	t->due = 0;
}

/* Linux kernel/time/hrtimer.c __run_hrtimer / timer.c expire_timers: the
 * timer leaves its queue before its function runs */
static void
expire_ev(void *s, void *arg, int64_t data)
{
	struct gtimer *t = arg;
	struct gtimers *ts = t->ts;

	(void)s;
	(void)data;
	t->ev = EVQ_NONE;
	LIST_REMOVE(t, alink);
	t->due = 1;
	TAILQ_INSERT_TAIL(&ts->due[t->cpu], t, link);
	ts->ndue[t->cpu]++;
	ts->raise(ts->ctx, t->cpu, t->kind);
}

void
gt_arm(struct gtimer *t, int cpu, sim_time_t at)
{
	undue(t);
	if (t->ev != EVQ_NONE)
		LIST_REMOVE(t, alink);
	t->cpu = cpu;
	t->at = at > t->ts->sim->now ? at : t->ts->sim->now;
	LIST_INSERT_HEAD(&t->ts->armed[cpu], t, alink);
	sim_move(t->ts->sim, &t->ev, t->at, expire_ev, t, 0);
}

void
gt_cancel(struct gtimer *t)
{
	if (t->ts == NULL)
		return;
	if (t->ev != EVQ_NONE)
		LIST_REMOVE(t, alink);
	sim_cancel(t->ts->sim, &t->ev);
	undue(t);
}

/* Linux kernel/time/tick-sched.c tick_nohz_next_event: the next hrtimer or
 * timer-wheel expiry, the deferrable base left out on an idle CPU */
sim_time_t
gt_next(const struct gtimers *ts, int cpu)
{
	const struct gtimer *t;
	sim_time_t at = SIM_NEVER;

	LIST_FOREACH(t, &ts->armed[cpu], alink)
		if (t->kind != GT_DEFERRABLE && t->at < at)
			at = t->at;
	return at;
}

int
gt_ndue(const struct gtimers *ts, int cpu)
{
	return ts->ndue[cpu];
}

int
gt_run(struct gtimers *ts, int cpu, struct vcpu *v)
{
	struct gtimer *t;
	int n = 0;

	while ((t = TAILQ_FIRST(&ts->due[cpu])) != NULL) {
		undue(t);
		ts->st.runs++;
		n++;
		t->fn(t, v);
	}
	return n;
}

/* A scenario's warm-up ends (gk_stats_reset): the counts start from zero. */
void
gt_stats_reset(struct gtimers *ts)
{
	memset(&ts->st, 0, sizeof ts->st);
}

const struct gt_stats *
gt_stats(const struct gtimers *ts)
{
	return &ts->st;
}

/* A service's function: its work on v, then the next expiry. */
static void
service_fn(struct gtimer *t, struct vcpu *v)
{
	struct gt_svc *sv = t->arg;
	const struct gt_service *d = sv->def;
	struct gtimers *ts = t->ts;
	sim_time_t now = ts->sim->now, per = sim_ns(d->period_ns);
	int cpu = t->cpu;

	ts->st.service_runs++;
	if (d->switches > 0)
		guest_overhead(v, d->switches * v->vm->hv->m->guest_ctx_switch_ns);
	if (d->kind == GT_HRTIMER) {
		/* hrtimer_forward_now: the next multiple of the period after now */
		sv->expires += per;
		if (sv->expires <= now)
			sv->expires += ((now - sv->expires) / per + 1) * per;
	} else
		sv->expires = now + per;	/* mod_timer / queue_delayed_work: from now */
	if (d->where == SVC_ROUND)
		cpu = cpu + 1 < ts->ncpu ? cpu + 1 : 0;
	gt_arm(t, cpu, sv->expires);
}

void
gt_services_start(struct gtimers *ts, const sim_time_t *phase)
{
	int i, c, n = 0;

	for (i = 0; i < NSERVICES; i++)
		n += services[i].where == SVC_PERCPU ? ts->ncpu : 1;
	ts->svcs = xcalloc((size_t)n, sizeof *ts->svcs);
	for (i = 0; i < NSERVICES; i++)
		for (c = 0; c < (services[i].where == SVC_PERCPU ? ts->ncpu : 1); c++) {
			struct gt_svc *sv = &ts->svcs[ts->nsvcs++];

			sv->def = &services[i];
			sv->expires = phase[c] + sim_ns(services[i].period_ns);
			gt_init(&sv->t, ts, services[i].kind, service_fn, sv);
			gt_arm(&sv->t, c, sv->expires);
		}
}
