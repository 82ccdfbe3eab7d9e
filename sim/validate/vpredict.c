/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpredict.c - many rows' predictions at once, on the worker pool: validate
 * runs every row of every case this way, calibrate every calibration row of
 * an evaluation.  A worker sends back mean and ci95 as hex floats (exact), the
 * replications, whether a run was capped, and the unit, so the report has the same bytes for any number of workers.
 */
#include "validate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pool.h"

struct vp_ctx {
	const struct vpjob *jobs;
	struct vpred *out;
	int *got;
	void (*progress)(size_t, size_t, size_t);
};

static void
vp_progress(void *ctx, size_t finished, size_t running, size_t total)
{
	((struct vp_ctx *)ctx)->progress(finished, running, total);
}

static int
vp_run(void *ctx, size_t i, char **out, size_t *len, struct vs_err *err)
{
	const struct vp_ctx *x = ctx;
	const struct vpjob *j = &x->jobs[i];
	struct vpred p;

	if (vcase_predict(j->c, j->r, j->extra, j->nextra, j->reps, &p, err))
		return -1;
	*out = xasprintf("%a\n%a\n%d\n%d\n%s", p.mean, p.ci95, p.n, p.capped, p.unit);
	*len = strlen(*out);
	free(p.unit);
	return 0;
}

static void
vp_done(void *ctx, size_t i, const char *buf, size_t len)
{
	struct vp_ctx *x = ctx;
	char *text = xstrndup(buf, len), *e1, *e2, *e3, *e4;

	x->out[i].mean = strtod(text, &e1);
	x->out[i].ci95 = strtod(e1, &e2);
	x->out[i].n = (int)strtol(e2, &e3, 10);
	x->out[i].capped = (int)strtol(e3, &e4, 10);
	VS_ASSERT(e1 != text && e2 != e1 && e3 != e2 && e4 != e3 && *e4 == '\n');
	x->out[i].unit = xstrdup(e4 + 1);
	x->got[i] = 1;
	free(text);
}

int
vcase_predict_rows(const struct vpjob *jobs, size_t n, int workers,
    void (*progress)(size_t, size_t, size_t), struct vpred *out, struct vs_err *err)
{
	struct vp_ctx x = { jobs, out, xcalloc(n + 1, sizeof *x.got), progress };
	struct pool_job pj = { vp_run, vp_done, NULL, progress ? vp_progress : NULL, &x };
	size_t i;
	int rc = pool_run(&pj, NULL, n, workers > 0 ? workers : 1, NULL, err);

	for (i = 0; i < n; i++)
		if (rc != 0 || !x.got[i]) {
			if (x.got[i])
				free(out[i].unit);
			out[i].unit = NULL;
		}
	free(x.got);
	return rc;
}
