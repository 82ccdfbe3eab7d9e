/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gtimer.h - the guest kernel's timers on its vCPUs (hrtimers and timer-wheel
 * timers, deferrable or not) and the periodic kernel services an idle guest
 * wakes for (models/README.md, "Guest timers").
 *
 * A timer is armed on a vCPU for a time; at that time it comes due there and
 * the kernel (kernel.c, through the raise hook given to gt_new) decides how
 * it is taken: its own interrupt, or the next tick's softirq, or, deferrable
 * on an idle vCPU, the next interrupt that wakes it.  The kernel then runs
 * the vCPU's due timers with gt_run, in that interrupt, on that vCPU.
 */
#ifndef VS_GTIMER_H
#define VS_GTIMER_H

#include <sys/queue.h>
#include <stdint.h>

#include "evq.h"

struct sim;
struct vcpu;
struct gtimer;
struct gtimers;

/* How a timer is taken (Linux include/linux/hrtimer.h, include/linux/timer.h). */
enum gt_kind {
	GT_HRTIMER,	/* high resolution: its own interrupt at its time */
	GT_WHEEL,	/* timer wheel: run by the tick's softirq while the tick runs */
	GT_DEFERRABLE	/* TIMER_DEFERRABLE: as GT_WHEEL, but never wakes an idle CPU */
};

/* A timer's function, run on the vCPU it fired on, in its interrupt. */
typedef void (*gt_fn)(struct gtimer *, struct vcpu *);

struct gtimer {
	TAILQ_ENTRY(gtimer) link;	/* in its vCPU's due list while due */
	LIST_ENTRY(gtimer) alink;	/* in its vCPU's armed list while armed */
	sim_time_t at;		/* its expiry while armed */
	struct gtimers *ts;
	evq_id ev;		/* its expiry while armed */
	int cpu;		/* the vCPU it is armed on */
	int kind;		/* enum gt_kind */
	int due;		/* expired, its function not yet run */
	gt_fn fn;
	void *arg;
};

/* The kernel's side: timer of this kind came due on cpu (kernel.c). */
typedef void (*gt_raise_fn)(void *ctx, int cpu, int kind);

struct gt_stats {
	uint64_t runs;		/* timer functions run */
	uint64_t service_runs;	/* ... of the periodic kernel services */
};

struct gtimers *gt_new(struct sim *, int ncpu, gt_raise_fn, void *ctx);
void gt_free(struct gtimers *);
void gt_init(struct gtimer *, struct gtimers *, int kind, gt_fn, void *arg);
/* Arm (or re-arm) t on cpu to come due at time at (ns). */
void gt_arm(struct gtimer *, int cpu, sim_time_t at);
void gt_cancel(struct gtimer *);
/* The earliest expiry of the timers armed on cpu that may wake it (not the
 * deferrable ones), SIM_NEVER if none. */
sim_time_t gt_next(const struct gtimers *, int cpu);
/* Timers due on cpu, not yet run. */
int gt_ndue(const struct gtimers *, int cpu);
/* Run cpu's due timers on v (its interrupt or softirq); how many ran. */
int gt_run(struct gtimers *, int cpu, struct vcpu *v);
const struct gt_stats *gt_stats(const struct gtimers *);
void gt_stats_reset(struct gtimers *);

/*
 * The periodic kernel services (gtimer.c lists each with its source): start
 * them on the vCPUs, each first due at phase[cpu] + its period (the others
 * start on vCPU 0).
 */
void gt_services_start(struct gtimers *, const sim_time_t *phase);

#endif
