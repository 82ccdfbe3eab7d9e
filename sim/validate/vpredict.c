/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpredict.c - many rows' predictions at once, on the worker pool: validate
 * runs every row of every case this way, calibrate every calibration row of
 * an evaluation.  A job is one replication of one row, so the replications
 * of a row spread over workers and ranks too.  A worker sends back the
 * metric and `completed` as hex floats (exact) and the unit; the parent adds
 * a row's replications in their order, as run_reps would, so the report has
 * the same bytes for any number of workers.  Rows of one case with the same
 * overrides (seed 000's A and B, a mean row and its sd row) are one run: it
 * is the same simulation, seeded the same, so each replication runs once and
 * serves all of them, and the bytes do not change.
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
	size_t njobs;
	size_t *base;		/* row j's replications: val[base[j] + rep] */
	size_t *lead;		/* row j is served by row lead[j]'s runs */
	size_t nfull;		/* every row's replications */
	size_t nruns;		/* pool jobs: one per replication of a lead row */
	size_t *row;		/* pool job i: replication rep[i] of lead row row[i] */
	int *rep;
	double *val, *comp;
	char **unit;
	void (*progress)(size_t, size_t, size_t);
};

static int
job_reps(const struct vpjob *j)
{
	return j->reps > 0 ? j->reps : j->c->reps;
}

/* The same simulation: one case, the same overrides in order, the same reps. */
static int
same_run(const struct vpjob *a, const struct vpjob *b)
{
	int k;

	if (a->c != b->c || job_reps(a) != job_reps(b) || a->r->nsets != b->r->nsets)
		return 0;
	for (k = 0; k < a->r->nsets; k++)
		if (strcmp(a->r->sets[k], b->r->sets[k]) != 0)
			return 0;
	return 1;
}

/* Jobs in row order, then replication order: the same on every rank. */
static void
vp_plan(struct vp_ctx *x, const struct vpjob *jobs, size_t n)
{
	size_t j, l, k = 0;
	int r;

	memset(x, 0, sizeof *x);
	x->jobs = jobs;
	x->njobs = n;
	x->base = xcalloc(n + 1, sizeof *x->base);
	x->lead = xcalloc(n + 1, sizeof *x->lead);
	for (j = 0; j < n; j++) {
		x->base[j] = x->nfull;
		x->nfull += (size_t)job_reps(&jobs[j]);
		for (l = 0; l < j && !same_run(&jobs[l], &jobs[j]); l++)
			;
		x->lead[j] = l;	/* j itself when no earlier row runs the same */
		if (l == j)
			x->nruns += (size_t)job_reps(&jobs[j]);
	}
	x->row = xcalloc(x->nruns + 1, sizeof *x->row);
	x->rep = xcalloc(x->nruns + 1, sizeof *x->rep);
	for (j = 0; j < n; j++)
		for (r = 0; x->lead[j] == j && r < job_reps(&jobs[j]); r++, k++) {
			x->row[k] = j;
			x->rep[k] = r;
		}
}

static void
vp_unplan(struct vp_ctx *x)
{
	free(x->row);
	free(x->rep);
	free(x->base);
	free(x->lead);
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

/* The rows lead row l's runs serve, in row order (l first). */
static int
vp_members(const struct vp_ctx *x, size_t l, const struct vrow **rows, size_t *idx)
{
	size_t j;
	int m = 0;

	for (j = l; j < x->njobs; j++)
		if (x->lead[j] == l) {
			if (rows != NULL)
				rows[m] = x->jobs[j].r;
			if (idx != NULL)
				idx[m] = j;
			m++;
		}
	return m;
}

static int
vp_run(void *ctx, size_t i, const char *arg, size_t arglen, char **out, size_t *len,
    struct vs_err *err)
{
	const struct vp_ctx *x = ctx;
	const struct vpjob *j = &x->jobs[x->row[i]];
	int m = vp_members(x, x->row[i], NULL, NULL), n, k, rc;
	const struct vrow **rows = xcalloc((size_t)m, sizeof *rows);
	double *v = xcalloc((size_t)m, sizeof *v), comp;
	char **units = xcalloc((size_t)m, sizeof *units), **sets, *s, *o;

	vp_members(x, x->row[i], rows, NULL);
	sets = vp_sets(arg, arglen, &n);
	rc = vcase_predict_rep_rows(j->c, rows, m, sets, n, x->rep[i], v, &comp, units, err);
	for (k = 0; k < n; k++)
		free(sets[k]);
	free(sets);
	if (rc == 0) {
		/* completed, then each row's metric and unit, a line each */
		o = xasprintf("%a\n", comp);
		for (k = 0; k < m; k++) {
			s = xasprintf("%s%a\n%s\n", o, v[k], units[k]);
			free(o);
			o = s;
			free(units[k]);
		}
		*out = o;
		*len = strlen(o);
	}
	free(units);
	free(v);
	free(rows);
	return rc;	/* RUN_STOPPED passes up to the pool */
}

static char *
next_line(char **p)
{
	char *s = *p, *e = strchr(s, '\n');

	VS_ASSERT(e != NULL);
	*e = '\0';
	*p = e + 1;
	return s;
}

static void
vp_done(void *ctx, size_t i, const char *buf, size_t len)
{
	struct vp_ctx *x = ctx;
	char *text = xstrndup(buf, len), *p = text, *e, *f;
	size_t l = x->row[i], *idx = xcalloc(x->njobs + 1, sizeof *idx), at;
	int m = vp_members(x, l, NULL, idx), k;
	double comp;

	f = next_line(&p);
	comp = strtod(f, &e);
	VS_ASSERT(e != f && *e == '\0');
	for (k = 0; k < m; k++) {
		at = x->base[idx[k]] + (size_t)x->rep[i];
		f = next_line(&p);
		x->val[at] = strtod(f, &e);
		VS_ASSERT(e != f && *e == '\0');
		x->comp[at] = comp;
		x->unit[at] = xstrdup(next_line(&p));
	}
	VS_ASSERT(*p == '\0');
	free(idx);
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
	x.val = xcalloc(x.nfull + 1, sizeof *x.val);
	x.comp = xcalloc(x.nfull + 1, sizeof *x.comp);
	x.unit = xcalloc(x.nfull + 1, sizeof *x.unit);
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
	for (j = 0; rc == 0 && j < n; j++) {
		size_t r, reps = (size_t)job_reps(&jobs[j]);

		rep_init(&val);
		rep_init(&comp);
		out[j].unit = xstrdup(x.unit[x.base[j]]);
		for (r = 0; r < reps; r++) {
			i = x.base[j] + r;
			rep_add(&val, x.val[i]);
			if (!isnan(x.comp[i]))
				rep_add(&comp, x.comp[i]);
		}
		out[j].mean = rep_mean(&val);
		out[j].ci95 = rep_ci95(&val);
		out[j].n = (int)val.n;
		out[j].capped = comp.n > 0 && rep_mean(&comp) < 1;
	}
	for (i = 0; i < x.nfull; i++)
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
