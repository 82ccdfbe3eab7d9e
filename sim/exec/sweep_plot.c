/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sweep_plot.c - one metric of a finished sweep against its first axis, a
 * line per combination of the other axes, drawn by plots/sweep.gp.
 */
#include "sweep_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plot.h"

/* Data for plots/sweep.gp: one block per line (a gnuplot "index"), rows x, mean, ci95, label. */
static int
plot_data(const struct sweep *sw, const char *dir, size_t c, const char *path,
    struct vs_err *err)
{
	const struct sweep_axis *x = &sw->axes[0];
	size_t nlines = sw->npoints / (size_t)x->nvals, r, k;
	char *buf = NULL, *row, **fld;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int nf, bad, rc;

	if (f == NULL)
		vs_fatal("open_memstream failed");
	for (r = 0; r < nlines; r++) {
		for (k = 0; k < (size_t)x->nvals; k++) {
			/* The first axis varies slowest: its k-th value is k * nlines away. */
			row = sweep_point_row(sw, dir, k * nlines + r, &bad);
			VS_ASSERT(row != NULL);	/* results.csv was just built from them */
			nf = sweep_csv_split(row, &fld);
			VS_ASSERT(nf == sw->naxes + 3 * (int)sw->ncols);
			if (x->unit != NULL)
				fprintf(f, "%.10g", x->num[k]);
			else
				fprintf(f, "%zu", k);
			fprintf(f, " %s %s \"", fld[sw->naxes + 3 * (int)c],
			    fld[sw->naxes + 3 * (int)c + 2]);
			for (const char *p = x->vals[k]; *p; p++)
				fputc(*p == '"' ? '\'' : *p, f);
			fputs("\"\n", f);
			sweep_strv_free(fld, (size_t)nf);
			free(row);
		}
		fputs(r + 1 < nlines ? "\n\n" : "", f);
	}
	fclose(f);
	rc = vs_write_file_atomic(path, buf, len, err);
	free(buf);
	return rc;
}

/* Append "name = 'value'; " to the gnuplot variables. */
static void
gp_var(FILE *f, const char *name, const char *val)
{
	char *q = plot_quote(val);

	fprintf(f, "%s = %s; ", name, q);
	free(q);
}

static char *
plot_vars(const struct sweep *sw, size_t c, const char *data, const char *out)
{
	const struct sweep_axis *x = &sw->axes[0];
	size_t nlines = sw->npoints / (size_t)x->nvals, r;
	int *idx = xcalloc((size_t)sw->naxes + 1, sizeof *idx), a;
	char *buf = NULL, *t, *key, *name;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (f == NULL)
		vs_fatal("open_memstream failed");
	gp_var(f, "datafile", data);
	gp_var(f, "out", out);
	t = xasprintf("%s: %s against %s", sw->name, sw->cols[c], x->path);
	gp_var(f, "ttl", t);
	free(t);
	/* A t-based CI from n < 3 runs is uselessly wide (t = 12.7 at n = 2): none. */
	t = sw->reps0 >= 3 ? xasprintf("mean and 95%% CI over n = %d reps; seed %llu at "
	    "every point", sw->reps0, sw->seed0) : xasprintf("mean of n = %d reps (no CI "
	    "drawn below 3); seed %llu at every point", sw->reps0, sw->seed0);
	gp_var(f, "sub", t);
	free(t);
	t = x->unit != NULL && x->unit[0] ? xasprintf("%s (%s)", x->path, x->unit) :
	    xstrdup(x->path);
	gp_var(f, "xlab", t);
	free(t);
	t = xasprintf("%s (%s)", sw->cols[c], sw->units[c]);
	gp_var(f, "ylab", t);
	free(t);
	{
		int xint = x->unit != NULL;

		for (r = 0; xint && r < (size_t)x->nvals; r++)
			xint = x->num[r] == (double)(long long)x->num[r];
		fprintf(f, "xint = %d; noci = %d; ", xint, sw->reps0 < 3);
	}
	fprintf(f, "xcat = %d; nlines = %zu; array keys[%zu]; ", x->unit == NULL, nlines,
	    nlines);
	for (r = 0; r < nlines; r++) {
		/* Line r holds the other axes' values of point r. */
		key = xstrdup("");
		sweep_point_index(sw, r, idx);
		for (a = 1; a < sw->naxes; a++) {
			t = xasprintf("%s%s%s=%s", key, a > 1 ? ", " : "", sw->axes[a].path,
			    sw->axes[a].vals[idx[a]]);
			free(key);
			key = t;
		}
		name = xasprintf("keys[%zu]", r + 1);
		gp_var(f, name, sw->naxes > 1 ? key : sw->cols[c]);
		free(name);
		free(key);
	}
	fclose(f);
	free(idx);
	return buf;
}

int
sweep_plot(const struct sweep *sw, const char *dir, const char *metric,
    struct vs_err *err)
{
	static const char *const fmts[] = { "png", "svg" };
	char *base, *data, *vars, *tmpf, *fin;
	size_t c;
	int rc, k;

	VS_ASSERT(sw->naxes > 0);
	for (c = 0; c < sw->ncols && strcmp(sw->cols[c], metric) != 0; c++)
		;
	VS_ASSERT(c < sw->ncols);
	/* gnuplot writes beside the final names, then a rename puts each in place. */
	base = xasprintf("%s/.sweep-%s.tmp%ld", dir, metric, (long)getpid());
	data = xasprintf("%s.dat", base);
	if ((rc = plot_data(sw, dir, c, data, err)) == 0) {
		vars = plot_vars(sw, c, data, base);
		rc = plot_run("sweep.gp", vars, err);
		if (rc == 0)
			rc = plot_check_outputs(base, err);
		free(vars);
	}
	for (k = 0; k < 2; k++) {
		tmpf = xasprintf("%s.%s", base, fmts[k]);
		fin = xasprintf("%s/sweep-%s.%s", dir, metric, fmts[k]);
		if (rc == 0)
			rc = vs_replace_file(tmpf, fin, err);
		unlink(tmpf);
		free(tmpf);
		free(fin);
	}
	unlink(data);
	free(data);
	free(base);
	return rc;
}
