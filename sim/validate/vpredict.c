/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpredict.c - many rows' predictions at once, on the worker pool: validate
 * runs every row of every case this way, calibrate every calibration row of
 * an evaluation.  A job is one replication of one row, so the replications
 * of a row spread over workers and ranks too.  A worker sends back the
 * metric and `completed` as hex floats (exact) and the unit; the parent adds
 * a row's replications in their order, as run_reps would, so the report has
 * the same bytes for any number of workers.
 */
#include "validate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pool.h"
#include "stats.h"

struct vp_ctx {
	const struct vpjob *jobs;
	size_t nruns;
	size_t *row;		/* job i: replication rep[i] of row row[i] */
	int *rep;
	double *val, *comp;
	char **unit;
	void (*progress)(size_t, size_t, size_t);
};

/* Jobs in row order, then replication order: the same on every rank. */
static void
vp_plan(struct vp_ctx *x, const struct vpjob *jobs, size_t n)
{
	size_t j, k = 0;
	int r, reps;

	memset(x, 0, sizeof *x);
	x->jobs = jobs;
	for (j = 0; j < n; j++)
		x->nruns += (size_t)(jobs[j].reps > 0 ? jobs[j].reps : jobs[j].c->reps);
	x->row = xcalloc(x->nruns + 1, sizeof *x->row);
	x->rep = xcalloc(x->nruns + 1, sizeof *x->rep);
	for (j = 0; j < n; j++) {
		reps = jobs[j].reps > 0 ? jobs[j].reps : jobs[j].c->reps;
		for (r = 0; r < reps; r++, k++) {
			x->row[k] = j;
			x->rep[k] = r;
		}
	}
}

static void
vp_unplan(struct vp_ctx *x)
{
	free(x->row);
	free(x->rep);
}

static void
vp_progress(void *ctx, size_t finished, size_t running, size_t total)
{
	((struct vp_ctx *)ctx)->progress(finished, running, total);
}

/* The run's argument: the extra overrides, one per line. */
static char **
vp_sets(const char *arg, size_t len, int *n)
{
	char **v = NULL;
	size_t a = 0, b;

	*n = 0;
	while (arg != NULL && a < len) {
		for (b = a; b < len && arg[b] != '\n'; b++)
			;
		v = xrealloc(v, (size_t)(*n + 1) * sizeof *v);
		v[(*n)++] = xstrndup(arg + a, b - a);
		a = b + 1;
	}
	return v;
}

static int
vp_run(void *ctx, size_t i, const char *arg, size_t arglen, char **out, size_t *len,
    struct vs_err *err)
{
	const struct vp_ctx *x = ctx;
	const struct vpjob *j = &x->jobs[x->row[i]];
	double v, comp;
	char *unit, **sets;
	int n, k, rc;

	sets = vp_sets(arg, arglen, &n);
	rc = vcase_predict_rep(j->c, j->r, sets, n, x->rep[i], &v, &comp, &unit, err);
	for (k = 0; k < n; k++)
		free(sets[k]);
	free(sets);
	if (rc)
		return -1;
	*out = xasprintf("%a\n%a\n%s", v, comp, unit);
	*len = strlen(*out);
	free(unit);
	return 0;
}

static void
vp_done(void *ctx, size_t i, const char *buf, size_t len)
{
	struct vp_ctx *x = ctx;
	char *text = xstrndup(buf, len), *e1, *e2;

	x->val[i] = strtod(text, &e1);
	x->comp[i] = strtod(e1, &e2);
	VS_ASSERT(e1 != text && e2 != e1 && *e2 == '\n');
	x->unit[i] = xstrdup(e2 + 1);
	free(text);
}

int
vcase_predict_rows(const struct vpjob *jobs, size_t n, char *const *sets, int nsets,
    int workers, void (*progress)(size_t, size_t, size_t), struct vpred *out,
    struct vs_err *err)
{
	struct vp_ctx x;
	struct pool_job pj = { vp_run, vp_done, NULL, NULL };
	struct rep val, comp;
	char *arg = NULL;
	size_t i, j, alen = 0;
	int k, rc;

	vp_plan(&x, jobs, n);
	x.progress = progress;
	x.val = xcalloc(x.nruns + 1, sizeof *x.val);
	x.comp = xcalloc(x.nruns + 1, sizeof *x.comp);
	x.unit = xcalloc(x.nruns + 1, sizeof *x.unit);
	pj.progress = progress ? vp_progress : NULL;
	pj.ctx = &x;
	for (k = 0; k < nsets; k++) {
		VS_ASSERT(strchr(sets[k], '\n') == NULL);
		alen += strlen(sets[k]) + 1;
	}
	if (nsets > 0) {
		arg = xmalloc(alen + 1);
		for (alen = 0, k = 0; k < nsets; k++)
			alen += (size_t)sprintf(arg + alen, "%s\n", sets[k]);
	}
	rc = pool_run(&pj, NULL, x.nruns, arg, alen, workers > 0 ? workers : 1, NULL, err);
	/* Each row's replications in their order: run_reps's sums, bit for bit. */
	for (i = 0, j = 0; rc == 0 && j < n; j++) {
		rep_init(&val);
		rep_init(&comp);
		out[j].unit = xstrdup(x.unit[i]);
		for (; i < x.nruns && x.row[i] == j; i++) {
			rep_add(&val, x.val[i]);
			if (!isnan(x.comp[i]))
				rep_add(&comp, x.comp[i]);
		}
		out[j].mean = rep_mean(&val);
		out[j].ci95 = rep_ci95(&val);
		out[j].n = (int)val.n;
		out[j].capped = comp.n > 0 && rep_mean(&comp) < 1;
	}
	for (i = 0; i < x.nruns; i++)
		free(x.unit[i]);
	free(x.unit);
	free(x.val);
	free(x.comp);
	free(arg);
	vp_unplan(&x);
	return rc;
}

void
vcase_predict_serve(const struct vpjob *jobs, size_t n, int workers)
{
	struct vp_ctx x;
	struct pool_job pj = { vp_run, NULL, NULL, NULL };

	vp_plan(&x, jobs, n);
	pj.ctx = &x;
	pool_serve(&pj, workers > 0 ? workers : 1, NULL);
	vp_unplan(&x);
}
