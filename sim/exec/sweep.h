/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sweep.h - a grid of --set overrides times replications, run in parallel
 * worker processes, resumable after a kill.
 *
 * Grid: each axis is one varied PATH with its values (a list V1,V2,... or a
 * range START:STOP:STEP, values may carry units; a list's values may be YAML
 * flow collections, {dist: exponential, mean: 5ns},{...}: only the commas
 * outside braces, brackets and quotes split it).  Points are the cartesian
 * product in row-major order: the FIRST axis varies SLOWEST, the last one
 * fastest, as nested loops written in command-line order.  Point i's
 * overrides are the fixed --set list, then PATH=VALUE for every axis (so a
 * varied path wins over a --set of the same path); values are substituted as
 * text, so units work as in a scenario file.
 *
 * Common random numbers: every point runs its replications from the same seed
 * (--seed, else the point's scenario seed), so differences between points are
 * due to the overrides, not to sampling noise.
 *
 * Shards (--shard K/N, for batch job arrays): shard K runs the points i with
 * i mod N = K-1 (interleaved, so every shard gets its share of the slow and
 * the fast corner of the grid) into the same DIR layout.
 *
 * Output directory DIR:
 *   sweep.meta         scenario (absolute path and content hash), seed, reps,
 *                      --set and --vary lists; a restart with other arguments
 *                      on the same DIR is refused.
 *   points/NNNNN.csv   one finished point (header line + its row), written
 *                      atomically; present = done, so a restart skips it.
 *   results.csv        rebuilt from the point files, in grid order: one column
 *                      per varied path, then NAME_mean,NAME_sd,NAME_ci95 per
 *                      metric (the scenario's metrics filter plus events, or
 *                      all metrics; never the wall-clock events_per_sec).
 * Every write is temp file + rename, so SIGKILL at any moment loses at most
 * the points that were running, and never leaves a half-written file in use.
 */
#ifndef VS_SWEEP_H
#define VS_SWEEP_H

#include <stddef.h>
#include <stdio.h>

#include "exec.h"
#include "util.h"

#define SWEEP_MAX_POINTS 100000

/* Return value of sweep_exec() when DIR holds a different sweep (bad input). */
#define SWEEP_REFUSED (-2)
/* Of sweep_prepare() and sweep_exec(): a point's run stopped at a limit
 * (RUN_STOPPED: --max-events, --timeout, the watchdog). */
#define SWEEP_STOPPED (-3)

struct sweep_axis {
	char *path;
	char **vals;
	int nvals;
	char *unit;		/* common unit suffix of numeric values ("" none), NULL: not all numeric */
	double *num;		/* numeric value of each (when unit != NULL) */
};

struct sweep {
	char *scenario;		/* as given */
	char **sets;		/* fixed --set PATH=VALUE */
	int nsets;
	struct sweep_axis *axes;
	int naxes;
	int reps;		/* -1: the point's scenario reps */
	long long seed;		/* -1: the point's scenario seed */
	int shard, nshards;	/* --shard K/N: shard K-1 of N (nshards 0 or 1: all points) */

	/* Filled by sweep_prepare(): */
	size_t npoints;
	char *name;		/* scenario name (point 0) */
	char **cols, **units;	/* metric columns and their units */
	size_t ncols;
	char **filter;		/* point 0's metrics filter, NULL: none */
	int nfilter;
	int reps0;		/* effective reps and seed of point 0 (titles) */
	unsigned long long seed0;
};

void sweep_init(struct sweep *, const char *scenario);
void sweep_free(struct sweep *);
/* Parse one --vary PATH=V1,V2,... or PATH=START:STOP:STEP and append the axis. */
int sweep_add_vary(struct sweep *, const char *arg, struct vs_err *err);
void sweep_add_set(struct sweep *, const char *arg);
/* Number of grid points (product of the axes' sizes; 1 with no axis). */
size_t sweep_npoints(const struct sweep *);
/* Axis value indices of point i (idx[naxes]). */
void sweep_point_index(const struct sweep *, size_t i, int *idx);
/* The overrides of point i (malloc'd array of malloc'd strings). */
char **sweep_point_sets(const struct sweep *, size_t i, int *nsets);
void sweep_free_sets(char **sets, int nsets);

/*
 * Load every point's scenario and build and start its model at time 0 (a dry
 * run, no simulated time), so every bad value, path, overcommit or metric
 * name is reported before anything runs or is written.  Fixes the columns.
 */
int sweep_prepare(struct sweep *, struct vs_err *err);	/* 0, -1, SWEEP_STOPPED */
/* Is name one of the metric columns? */
int sweep_has_col(const struct sweep *, const char *name);
/* The default metrics to plot: the metrics filter, else the first non-engine metric. */
char **sweep_default_plots(const struct sweep *, int *n);

/* The job list of a prepared sweep: job i runs point i (for exec backends). */
void sweep_job(const struct sweep *, struct exec_job *job);

struct sweep_ran {
	size_t share;		/* points of this shard (all without --shard) */
	size_t ran;		/* run (merged) now */
	size_t missing;		/* points still missing in DIR afterwards */
};

/*
 * Take DIR/.sweep.lock (flock, not waiting) for the whole sweep: its points,
 * results.csv and plots; exclusive, or shared by the shards of one sweep
 * (shared).  Returns the descriptor to pass to sweep_unlock, SWEEP_REFUSED
 * when another sweep holds it, -1 on error.  The lock lives exactly as long
 * as the process that took it: a worker (a fork, which writes nothing in DIR)
 * drops its inherited copy first thing (sweep_lock_drop, point_run), so a
 * sweep killed and run again at once is not refused by workers still dying
 * with their master.
 */
int sweep_lock(const char *dir, int shared, struct vs_err *err);
void sweep_unlock(int fd);
/* In a fork of the process that holds the lock: close the inherited copy. */
void sweep_lock_drop(void);

/*
 * Run the points of DIR (an existing directory) that are not done yet and
 * belong to this shard (all without one) on the backends (built on
 * sweep_job), then rebuild DIR/results.csv once no point is missing (a shard
 * leaves that to the last one to finish, to a re-run or to sweep_merge).
 * progress: where to redraw a progress line (NULL: none).  Returns 0, -1
 * (run-time failure), SWEEP_STOPPED, or SWEEP_REFUSED.
 */
int sweep_exec(const struct sweep *, const char *dir, struct exec_backend **be, int nbe,
    FILE *progress, struct sweep_ran *ran, struct vs_err *err);

/* sweep_init() and the arguments recorded in DIR/sweep.meta (for --merge). */
int sweep_from_dir(struct sweep *, const char *dir, struct vs_err *err);
/*
 * Copy the finished points of dirs (folders of this very sweep, e.g. shards
 * run without a shared file system) into out (claimed like sweep_exec), then
 * build out/results.csv; -1 when points are still missing, SWEEP_REFUSED when
 * a folder holds another sweep.  ran->ran: points copied.
 */
int sweep_merge(const struct sweep *, const char *out, char *const *dirs, int ndirs,
    struct sweep_ran *ran, struct vs_err *err);

/*
 * Plot one metric against the first axis, one line per combination of the
 * other axes (mean with 95% CI bars), with plots/sweep.gp into
 * DIR/sweep-METRIC.png and .svg, from DIR's point files.  Returns 0, 1 when
 * gnuplot is absent (skipped), -1 on failure.
 */
int sweep_plot(const struct sweep *, const char *dir, const char *metric,
    struct vs_err *err);

#endif
