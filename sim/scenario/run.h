/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * run.h - build the model a scenario describes, run it, collect metrics.
 */
#ifndef VS_RUN_H
#define VS_RUN_H

#include <stdint.h>

#include "metrics.h"
#include "probe.h"
#include "util.h"

struct scenario;

struct run_opts {
	int wall_clock;		/* measure events_per_sec (0: report 0, for golden files) */
	int check;		/* 1: self-check conservation at the end of each run; 2: also
				 * the guest kernel's run queues at every switch */
	const struct probe *probe;	/* optional observer of model events */
	int names_only;		/* build and start the model, run no event: the metric
				 * names the scenario yields (values are meaningless) */
	/* Optional: called every 2^20 events with the simulated time (progress). */
	void (*progress)(void *arg, double sim_now_ns);
	void *progress_arg;
};

/*
 * Limits on every run of the process (issue 29), set once by the command
 * line before any run, as scen_set_mem_limit: max_events (0: none), a wall
 * clock deadline (sim_wall(); 0: none).  A run stopped by one of them, by
 * the cap on simulated time or by the watchdog (engine.h) fails with
 * RUN_STOPPED and a message that says which, when, and where the last task
 * stood.
 */
struct run_limits {
	uint64_t max_events;
	double deadline;
	double timeout;		/* the seconds the deadline was set from, for messages */
};
void run_set_limits(const struct run_limits *);
#define RUN_STOPPED (-2)

/* Seed of replication r: r = 0 is the scenario's seed itself. */
uint64_t run_seed(uint64_t seed, int rep);
/* 0, -1 and err (bad input the loader could not see), or RUN_STOPPED and err. */
int run_once(const struct scenario *, uint64_t seed, const struct run_opts *,
    struct metrics *out, struct vs_err *err);
/*
 * Every name in the scenario's `metrics:` filter is one the run yields, checked
 * without simulating (a names_only run): else -1 and "FILE:LINE:COL: unknown
 * metric 'X'" in err.
 */
int run_check_metrics(const struct scenario *, struct vs_err *err);
/* reps replications from seed; summary in *sum.  0, or run_once's failure. */
int run_reps(const struct scenario *, uint64_t seed, int reps, const struct run_opts *,
    struct msum *sum, struct vs_err *err);

#endif
