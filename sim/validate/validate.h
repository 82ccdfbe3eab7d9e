/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * validate.h - validation cases: a scenario, a measured table, and how each
 * measured row maps to scenario overrides.
 *
 *   name: seed000
 *   title: spinlock_thread module, 4 threads, X5570 (seed 000)
 *   scenario: "../../configs/seed000/spinlock-thread.yaml"   # quoted: a path
 *   measured: "../measured/seed000_spinlock_thread.csv"
 *   metric: megacycles          # the scenario metric compared with each row
 *   tolerance: {rel: 0.10, or_sd: false}  # within if |rel err| <= rel (or <= sd)
 *              {abs: 2}     # instead: within if |pred - meas| <= abs (metric units)
 *   reps: 3
 *   seed: 1
 *   setups:   {S1: ["vms[0].workload=s1"], S2: ["vms[0].workload=s2"]}
 *   variants: {A: ["vms[0].lock=ticket"], C: ["vms[0].lock=pv-ticket"]}
 *   rows:
 *     - {row: S1/A, role: calibration}
 *     - {row: S1/C, role: prediction, set: ["..."]}
 *     - {row: S2/C, role: prediction, metric: guest.running_share}  # the row's own
 *
 * Roles are honest: computing a row's prediction never reads any measured
 * value; calibration reads only calibration rows.
 */
#ifndef VS_VALIDATE_H
#define VS_VALIDATE_H

#include <stddef.h>
#include <stdint.h>

#include "measured.h"
#include "progress.h"
#include "util.h"

enum vrole { ROLE_CALIBRATION, ROLE_PREDICTION };

struct vrow {
	char *id;		/* "SETUP/VARIANT" */
	char *setup, *variant;
	enum vrole role;
	char **sets;		/* overrides: setup's, variant's, the row's own */
	int nsets;
	double weight;		/* in the calibration objective */
	char *metric;		/* the row's own metric; NULL: the case's */
};

struct vcase {
	char *path, *name, *title, *scenario, *metric;
	double tol_rel;
	int tol_or_sd;
	double tol_abs;		/* > 0: an absolute tolerance replaces tol_rel */
	int reps;
	uint64_t seed;
	struct measured measured;
	struct vrow *rows;
	int nrows;
};

/* Where the cases live: ./validation/cases, the source tree's, the installed. */
const char *vcase_dir(void);
/* NAME -> DIR/NAME.yaml; a path is taken as it is (malloc'd). */
char *vcase_path(const char *dir, const char *name);
/* Load a case file (a path, or a NAME found as DIR/NAME.yaml). */
int vcase_load(struct vcase *, const char *path, struct vs_err *err);
void vcase_free(struct vcase *);
const char *vrole_name(enum vrole);

/* One row's prediction: the scenario with the row's overrides (+ extra). */
struct vpred {
	double mean, ci95;
	int n;			/* replications behind mean and ci95 */
	int capped;		/* a replication hit the duration cap (completed < 1) */
	char *unit;
};
int vcase_predict(const struct vcase *, const struct vrow *, char *const *extra,
    int nextra, int reps, struct vpred *out, struct vs_err *err);

/* Replication rep (0-based) of one row, alone: what a worker runs. */
int vcase_predict_rep(const struct vcase *, const struct vrow *, char *const *extra,
    int nextra, int rep, double *value, double *completed, char **unit,
    struct vs_err *err);

/* The same run serving several rows of one case (rows[0]'s overrides, which
 * the others share): each row's metric, values[i] and units[i]. */
int vcase_predict_rep_rows(const struct vcase *, const struct vrow *const *rows, int nrows,
    char *const *extra, int nextra, int rep, double *values, double *completed,
    char **units, struct vs_err *err);

/* One row to predict: vcase_predict's arguments (reps 0: the case's). */
struct vpjob {
	const struct vcase *c;
	const struct vrow *r;
	int reps;
};
/*
 * Predict n rows, every replication of every row a job of the worker pool
 * (pool.h: `workers` local processes, and MPI ranks when pool_use_ranks was
 * called); out[i] is row i's, its replications summed in their order, so the
 * bytes are vcase_predict's for any number of workers or ranks.  sets
 * (nsets overrides, after each row's own) are the run's argument: sent with
 * each job, so a rank needs only the jobs from its command line.  progress
 * (NULL: none) is told whenever a replication starts or ends.  On failure
 * (-1, or RUN_STOPPED when a limit stopped that job; err: the lowest-numbered
 * failed job's error) no out[i].unit is left allocated.  vcase_predict,
 * vcase_predict_rep(_rows), validate_cases and calib_fit pass RUN_STOPPED up
 * the same way.
 */
int vcase_predict_rows(const struct vpjob *jobs, size_t n, char *const *sets, int nsets,
    int workers, void (*progress)(size_t finished, size_t running, size_t total),
    struct vpred *out, struct vs_err *err);
/* Ranks > 0 of an MPI run: run rank 0's vcase_predict_rows jobs (the same
 * jobs[], built from the same command line), `workers` at once, until rank 0
 * releases the ranks. */
void vcase_predict_serve(const struct vpjob *jobs, size_t n, int workers);

/* Every row's scenario loads and yields the row's metric, checked without
 * simulating (a names_only run), so a typo fails before minutes of runs. */
int vcase_check(const struct vcase *, struct vs_err *err);
/* The metric compared for a row: its own, else the case's. */
const char *vcase_metric(const struct vcase *, const struct vrow *);
/* Which rule of the case's tolerance accepts predicted (RULE_MISS: none):
 * abs (|pred - meas| <= abs), rel (<= rel x |meas|), sd (or_sd: <= meas sd). */
enum vrule { RULE_MISS, RULE_REL, RULE_ABS, RULE_SD };
enum vrule vcase_judge(const struct vcase *, const struct mrow *, double predicted);
const char *vrule_name(enum vrule);
/* Is predicted within the case's tolerance of the measured row? */
int vcase_within(const struct vcase *, const struct mrow *, double predicted);
/* The tolerance as text: "rel 25% or sd", "abs 5" (malloc'd). */
char *vcase_tolerance(const struct vcase *);

/* The measured row for a case row (NULL if the table lacks it). */
const struct mrow *vcase_measured(const struct vcase *, const struct vrow *);

#endif

/* ---- running cases (validate.c) ---- */

struct vresult {
	char *case_name, *row, *metric, *unit, *tolerance;
	enum vrole role;
	double measured, measured_sd, predicted, predicted_ci95, rel_error;
	int within;
	enum vrule rule;	/* which rule judged it (RULE_MISS: none accepted) */
	int capped;		/* the prediction's run stopped at the duration cap */
	int n;			/* replications of the prediction */
	double tol_rel, tol_abs;	/* the band the plots draw (tol_abs > 0: absolute) */
};


struct vreport {
	struct vresult *r;
	int n, cap;
};

/*
 * Predict every row of every case (all replications of all rows at once, on
 * up to `workers` worker processes, and MPI ranks: vcase_predict_rows), then
 * compare each with its measured value; rows are reported in case order, then
 * row order, whatever the number of workers or ranks.
 */
int validate_cases(struct vcase *const *cases, int ncases, int reps, int workers,
    struct vreport *out, int progress, struct vs_err *err);
/* Append row's result: pred against the case's measured row (which must
 * exist; vcase_load checks it); takes pred->unit (set to NULL). */
void vreport_add(struct vreport *, const struct vcase *, const struct vrow *,
    struct vpred *pred);
/* Ranks > 0 of an MPI run: serve rank 0's validate_cases (same arguments). */
void validate_serve(struct vcase *const *cases, int ncases, int reps, int workers);
void vreport_free(struct vreport *);
/* Text of the report: CSV (the columns), table or JSON with summaries. */
char *vreport_render(const struct vreport *, int fmt);
/* Plots into dir: CASE.png/.svg per case and scatter.png/.svg. 1 = skipped. */
int vreport_plot(const struct vreport *, struct vcase *const *cases, int ncases,
    const char *dir, struct vs_err *err);
