/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * calibrate.h - fit scenario parameters to the calibration rows of cases.
 *
 *   name: seed000
 *   cases: [seed000]                 # case names (validation/cases) or "paths"
 *   params:
 *     - {path: machine.costs.line_socket, unit: cycles, min: 20, max: 800, start: 80}
 *     - {path: [a.b, c.d], unit: ns, min: 1, max: 500, start: 50}   # tied: one value
 *   reps: 2                          # replications per evaluation (common random numbers)
 *   max_iter: 200
 *   tol: 1e-3                        # stop when the simplex is this small (logit space)
 *   output: "../../configs/seed000/calibrated.yaml"
 *
 * Objective: the sum over calibration rows of weight * ((pred - meas)/meas)^2.
 * Minimised with GSL's nmsimplex2 over u, where each parameter is
 * min + (max - min) / (1 + exp(-u)): bounds hold without constraints.  Every
 * evaluation uses the same seeds, so the objective is a smooth function of
 * the parameters rather than of the noise.  Prediction rows are never read.
 */
#ifndef VS_CALIBRATE_H
#define VS_CALIBRATE_H

#include "util.h"

struct vcase;

struct cparam {
	char **paths;		/* one value, set at every path (tied parameters) */
	int npaths;
	char *unit;
	double min, max, start, value;
};

struct calib {
	char *path, *name, *output;
	struct vcase **cases;
	int ncases;
	struct cparam *params;
	int nparams;
	int reps, max_iter;
	double tol;
	int jobs;		/* worker processes for an evaluation's rows (0: 1) */
	/* results */
	double objective;
	int evals, iters;
};

int calib_load(struct calib *, const char *path, const char *cases_dir, struct vs_err *err);
void calib_free(struct calib *);
/* Run the fit; progress on stderr when progress != 0.  Under MPI (rank 0,
 * pool_use_ranks) every evaluation's jobs spread over the ranks too. */
int calib_fit(struct calib *, int progress, struct vs_err *err);
/* Ranks > 0 of an MPI run: serve rank 0's calib_fit evaluations (c loaded
 * from the same file), c->jobs at once, until rank 0 releases the ranks. */
void calib_serve(struct calib *);
/* The YAML that scenarios include (`calibration: FILE`), with its header. */
char *calib_render(const struct calib *, const char *date);

#endif
