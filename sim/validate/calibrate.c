/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * calibrate.c - fitting scenario parameters to the calibration rows of
 * cases by Nelder-Mead (calibrate.h).
 */
#include "calibrate.h"
#include "progress.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multimin.h>

#include "run.h"
#include "validate.h"
#include "yconf.h"

static int
parse_param(struct cparam *p, const struct yc_node *n, struct vs_err *err)
{
	const struct yc_node *pn;
	const char *s;
	size_t i;

	if (yc_expect(n, YC_MAP, "a parameter {path, unit, min, max, start}", err))
		return -1;
	if ((pn = yc_find(n, "path")) == NULL)
		return yc_err(n, err, "missing key 'path'");
	if (pn->kind == YC_SCALAR) {
		p->paths = xcalloc(1, sizeof *p->paths);
		p->paths[p->npaths++] = xstrdup(pn->text);
	} else {
		if (yc_expect(pn, YC_SEQ, "a path or a list of paths", err))
			return -1;
		p->paths = xcalloc(pn->n + 1, sizeof *p->paths);
		for (i = 0; i < pn->n; i++) {
			if (pn->vals[i]->kind != YC_SCALAR)
				return yc_err(pn->vals[i], err, "a path is a string");
			p->paths[p->npaths++] = xstrdup(pn->vals[i]->text);
		}
		if (p->npaths == 0)
			return yc_err(pn, err, "empty list of paths");
	}
	if (yc_get_str(n, "unit", "", &s, err))
		return -1;
	p->unit = xstrdup(s);
	if (yc_get_num(n, "min", NAN, -1e300, 1e300, &p->min, err) ||
	    yc_get_num(n, "max", NAN, -1e300, 1e300, &p->max, err))
		return -1;
	if (!(p->max > p->min))
		return yc_err(n, err, "'max' must be greater than 'min'");
	if (yc_get_num(n, "start", (p->min + p->max) / 2, p->min, p->max, &p->start, err))
		return -1;
	if (p->start == p->min || p->start == p->max)
		return yc_err(n, err, "'start' must lie strictly between min and max");
	p->value = p->start;
	return yc_check_unused(n, "path, unit, min, max, start", err);
}

int
calib_load(struct calib *c, const char *path, const char *cases_dir, struct vs_err *err)
{
	struct yc_doc *doc;
	const struct yc_node *root, *n;
	const char *s;
	int64_t v;
	size_t i;
	int rc = -1;

	memset(c, 0, sizeof *c);
	c->path = xstrdup(path);
	if ((doc = yc_load(path, err)) == NULL)
		return -1;
	root = yc_root(doc);
	if (yc_expect(root, YC_MAP, "a calibration (a mapping)", err) ||
	    yc_get_str(root, "name", NULL, &s, err))
		goto out;
	c->name = xstrdup(s);
	if ((n = yc_find(root, "cases")) == NULL) {
		yc_err(root, err, "missing key 'cases'");
		goto out;
	}
	if (yc_expect(n, YC_SEQ, "a list of case names", err))
		goto out;
	c->cases = xcalloc(n->n, sizeof *c->cases);
	for (i = 0; i < n->n; i++) {
		char *p;

		if (n->vals[i]->kind != YC_SCALAR) {
			yc_err(n->vals[i], err, "a case is a name or a quoted path");
			goto out;
		}
		p = n->vals[i]->quoted ? yc_node_path(n->vals[i]) :
		    vcase_path(cases_dir, n->vals[i]->text);
		c->cases[i] = xcalloc(1, sizeof **c->cases);
		c->ncases++;
		if (vcase_load(c->cases[i], p, err) || vcase_check(c->cases[i], err)) {
			free(p);
			goto out;
		}
		free(p);
	}
	if ((n = yc_find(root, "params")) == NULL) {
		yc_err(root, err, "missing key 'params'");
		goto out;
	}
	if (yc_expect(n, YC_SEQ, "a list of parameters", err))
		goto out;
	if (n->n == 0 || n->n > 16) {
		yc_err(n, err, "between 1 and 16 parameters, please");
		goto out;
	}
	c->params = xcalloc(n->n, sizeof *c->params);
	for (i = 0; i < n->n; i++) {
		c->nparams++;
		if (parse_param(&c->params[i], n->vals[i], err))
			goto out;
	}
	if (yc_get_int(root, "reps", 2, 1, 1000, &v, err))
		goto out;
	c->reps = (int)v;
	if (yc_get_int(root, "max_iter", 200, 1, 100000, &v, err))
		goto out;
	c->max_iter = (int)v;
	if (yc_get_num(root, "tol", 1e-3, 1e-12, 10, &c->tol, err))
		goto out;
	if ((n = yc_find(root, "output")) != NULL) {
		if (n->kind != YC_SCALAR) {
			yc_err(n, err, "'output' is a quoted file name");
			goto out;
		}
		c->output = yc_node_path(n);
	}
	rc = yc_check_unused(root, "name, cases, params, reps, max_iter, tol, output", err);
out:
	yc_free(doc);
	return rc;
}

void
calib_free(struct calib *c)
{
	int i;

	for (i = 0; i < c->ncases; i++) {
		vcase_free(c->cases[i]);
		free(c->cases[i]);
	}
	for (i = 0; i < c->nparams; i++) {
		int j;

		for (j = 0; j < c->params[i].npaths; j++)
			free(c->params[i].paths[j]);
		free(c->params[i].paths);
		free(c->params[i].unit);
	}
	free(c->cases);
	free(c->params);
	free(c->path);
	free(c->name);
	free(c->output);
	memset(c, 0, sizeof *c);
}

static double
to_value(const struct cparam *p, double u)
{
	return p->min + (p->max - p->min) / (1 + exp(-u));
}

static double
to_u(const struct cparam *p, double x)
{
	double s = (x - p->min) / (p->max - p->min);

	return log(s / (1 - s));
}

struct eval {
	struct calib *c;
	struct progress *progress;
	int failed;		/* an evaluation's failure: -1, or RUN_STOPPED */
	struct vs_err *err;
	gsl_multimin_fminimizer *s;
};

static int
noverrides(const struct calib *c)
{
	int i, n = 0;

	for (i = 0; i < c->nparams; i++)
		n += c->params[i].npaths;
	return n;
}

static char **
overrides(const struct calib *c)
{
	char **sets = xcalloc((size_t)noverrides(c), sizeof *sets);
	int i, j, n = 0;

	for (i = 0; i < c->nparams; i++)
		for (j = 0; j < c->params[i].npaths; j++)
			sets[n++] = xasprintf("%s=%.9g%s", c->params[i].paths[j],
			    c->params[i].value, c->params[i].unit);
	return sets;
}

static void
free_sets(char **sets, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(sets[i]);
	free(sets);
}

/* The calibration rows of every case, in case order: the same on every rank. */
static struct vpjob *
calib_rows(const struct calib *c, size_t *n)
{
	struct vpjob *jobs;
	int i, k;

	for (k = 0, *n = 0; k < c->ncases; k++)
		*n += (size_t)c->cases[k]->nrows;
	jobs = xcalloc(*n + 1, sizeof *jobs);
	for (k = 0, *n = 0; k < c->ncases; k++)
		for (i = 0; i < c->cases[k]->nrows; i++) {
			const struct vrow *r = &c->cases[k]->rows[i];

			if (r->role != ROLE_CALIBRATION)
				continue;
			jobs[*n].c = c->cases[k];
			jobs[*n].r = r;
			jobs[*n].reps = c->reps;
			(*n)++;
		}
	return jobs;
}

void
calib_serve(struct calib *c)
{
	size_t n;
	struct vpjob *jobs = calib_rows(c, &n);

	/* What to evaluate comes with each job: the parameters as overrides. */
	vcase_predict_serve(jobs, n, c->jobs);
	free(jobs);
}

/* Sum of weighted squared relative errors over calibration rows only. */
static double
objective(const gsl_vector *u, void *arg)
{
	struct eval *e = arg;
	struct calib *c = e->c;
	struct vpjob *jobs;
	struct vpred *pred;
	char **sets;
	double sum = 0;
	size_t n, j;
	int i, rc;

	if (e->failed)
		return GSL_NAN;
	for (i = 0; i < c->nparams; i++)
		c->params[i].value = to_value(&c->params[i], gsl_vector_get(u, i));
	sets = overrides(c);
	/*
	 * Every replication of every calibration row at once on the worker pool
	 * (and the MPI ranks, which get the parameters with each job), summed in
	 * row order.
	 */
	jobs = calib_rows(c, &n);
	pred = xcalloc(n + 1, sizeof *pred);
	rc = vcase_predict_rows(jobs, n, sets, noverrides(c), c->jobs, NULL, pred, e->err);
	free_sets(sets, noverrides(c));
	if (rc) {
		e->failed = rc;	/* -1, or RUN_STOPPED */
		free(jobs);
		free(pred);
		return GSL_NAN;
	}
	for (j = 0; j < n; j++) {
		const struct mrow *m = vcase_measured(jobs[j].c, jobs[j].r);
		double rel = (pred[j].mean - m->mean) / m->mean;

		sum += jobs[j].r->weight * rel * rel;
		free(pred[j].unit);
	}
	free(jobs);
	free(pred);
	c->evals++;
	{
		/* iterations of at most max_iter: the ETA is an upper bound */
		char *d = xasprintf("eval %d, objective %.4g", c->evals, sum), *d2;

		for (i = 0; i < c->nparams && i < 2; i++) {
			d2 = xasprintf("%s, %s=%.5g%s", d, c->params[i].paths[0],
			    c->params[i].value, c->params[i].unit);
			free(d);
			d = d2;
		}
		progress_show(e->progress, c->iters, c->max_iter, "iterations at most", d);
		free(d);
	}
	return sum;
}

int
calib_fit(struct calib *c, int progress, struct vs_err *err)
{
	const gsl_multimin_fminimizer_type *T = gsl_multimin_fminimizer_nmsimplex2;
	gsl_multimin_function fn;
	gsl_vector *u0, *step;
	struct progress prog;
	struct eval e = { c, &prog, 0, err, NULL };
	int i, status = GSL_CONTINUE, ncal = 0;

	for (i = 0; i < c->ncases; i++) {
		int j;

		for (j = 0; j < c->cases[i]->nrows; j++)
			ncal += c->cases[i]->rows[j].role == ROLE_CALIBRATION;
	}
	if (ncal == 0)
		return vs_errf(err, NULL, 0, 0, "%s: the cases have no calibration rows", c->path);
	progress_start(&prog, progress ? stderr : NULL, "calibrate");
	u0 = gsl_vector_alloc((size_t)c->nparams);
	step = gsl_vector_alloc((size_t)c->nparams);
	for (i = 0; i < c->nparams; i++) {
		gsl_vector_set(u0, (size_t)i, to_u(&c->params[i], c->params[i].start));
		gsl_vector_set(step, (size_t)i, 1.0);
	}
	fn.n = (size_t)c->nparams;
	fn.f = objective;
	fn.params = &e;
	e.s = gsl_multimin_fminimizer_alloc(T, fn.n);
	gsl_multimin_fminimizer_set(e.s, &fn, u0, step);
	for (c->iters = 0; c->iters < c->max_iter && status == GSL_CONTINUE; c->iters++) {
		if (gsl_multimin_fminimizer_iterate(e.s) != GSL_SUCCESS || e.failed)
			break;
		status = gsl_multimin_test_size(gsl_multimin_fminimizer_size(e.s), c->tol);
		if (e.s->fval < 1e-12)	/* exact fit: nothing left to gain */
			break;
	}
	progress_end(&prog);
	if (!e.failed) {
		for (i = 0; i < c->nparams; i++)
			c->params[i].value = to_value(&c->params[i],
			    gsl_vector_get(e.s->x, (size_t)i));
		c->objective = e.s->fval;
	}
	gsl_multimin_fminimizer_free(e.s);
	gsl_vector_free(u0);
	gsl_vector_free(step);
	return e.failed == RUN_STOPPED ? RUN_STOPPED : e.failed ? -1 : 0;
}

char *
calib_render(const struct calib *c, const char *date)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int i, k, first = 1;

	fprintf(f, "# Written by `vlocksim calibrate %s` on %s.\n", c->path, date);
	fputs("# Calibration rows (the only measured values read):", f);
	for (k = 0; k < c->ncases; k++)
		for (i = 0; i < c->cases[k]->nrows; i++)
			if (c->cases[k]->rows[i].role == ROLE_CALIBRATION) {
				fprintf(f, "%s %s:%s", first ? "" : ",", c->cases[k]->name,
				    c->cases[k]->rows[i].id);
				first = 0;
			}
	fprintf(f, ".\n# Final objective (sum of squared relative errors): %.6g after %d "
	    "evaluations, %d iterations.\n", c->objective, c->evals, c->iters);
	fputs("# Scenarios use it with `calibration: FILE`; --set still overrides.\n", f);
	fputs("set:\n", f);
	for (i = 0; i < c->nparams; i++) {
		int j;

		for (j = 0; j < c->params[i].npaths; j++)
			fprintf(f, "  - \"%s=%.6g%s\"    # bounds [%g, %g]%s%s\n",
			    c->params[i].paths[j], c->params[i].value, c->params[i].unit,
			    c->params[i].min, c->params[i].max, c->params[i].unit[0] ? " " : "",
			    c->params[i].unit);
	}
	fclose(f);
	return buf;
}
