/* SPDX-License-Identifier: GPL-2.0-or-later */
/* validate.c - predicted against measured, with errors and summaries. */
#include "validate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot.h"
#include "report.h"

/* The pool's progress (finished, running, total) as progress.h's line. */
static struct progress vprog;

static void
vprogress(size_t finished, size_t running, size_t total)
{
	char d[32];

	snprintf(d, sizeof d, "%zu running", running);
	progress_show_jobs(&vprog, (double)finished, (double)running, (double)total, "runs", d);
}

/* Every row of every case, in case order: the same on every rank. */
static struct vpjob *
all_rows(struct vcase *const *cases, int ncases, int reps, size_t *n)
{
	struct vpjob *jobs;
	size_t k;
	int i, j;

	for (*n = 0, i = 0; i < ncases; i++)
		*n += (size_t)cases[i]->nrows;
	jobs = xcalloc(*n + 1, sizeof *jobs);
	for (i = 0, k = 0; i < ncases; i++)
		for (j = 0; j < cases[i]->nrows; j++, k++) {
			jobs[k].c = cases[i];
			jobs[k].r = &cases[i]->rows[j];
			jobs[k].reps = reps;
		}
	return jobs;
}

void
validate_serve(struct vcase *const *cases, int ncases, int reps, int workers)
{
	size_t n;
	struct vpjob *jobs = all_rows(cases, ncases, reps, &n);

	vcase_predict_serve(jobs, n, workers);
	free(jobs);
}

void
vreport_add(struct vreport *out, const struct vcase *c, const struct vrow *row,
    struct vpred *pred)
{
	const struct mrow *m = vcase_measured(c, row);
	struct vresult *r;

	if (out->n == out->cap) {
		out->cap = out->cap ? out->cap * 2 : 16;
		out->r = xrealloc(out->r, (size_t)out->cap * sizeof *out->r);
	}
	r = &out->r[out->n++];
	r->case_name = xstrdup(c->name);
	r->row = xstrdup(row->id);
	r->metric = xstrdup(vcase_metric(c, row));
	r->unit = pred->unit;
	pred->unit = NULL;
	r->role = row->role;
	r->measured = m->mean;
	r->measured_sd = m->sd;
	r->predicted = pred->mean;
	r->predicted_ci95 = pred->ci95;
	r->rel_error = (pred->mean - m->mean) / m->mean;
	r->rule = vcase_judge(c, m, pred->mean);
	r->within = r->rule != RULE_MISS;
	r->capped = pred->capped;
	r->n = pred->n;
	r->tolerance = vcase_tolerance(c);
	r->tol_rel = c->tol_abs > 0 ? 0 : c->tol_rel;
	r->tol_abs = c->tol_abs;
}

int
validate_cases(struct vcase *const *cases, int ncases, int reps, int workers,
    struct vreport *out, int progress, struct vs_err *err)
{
	struct vpjob *jobs;
	struct vpred *pred;
	size_t n, k;
	int rc;

	jobs = all_rows(cases, ncases, reps, &n);
	pred = xcalloc(n + 1, sizeof *pred);
	/* The predictions are made first and without the measured tables. */
	progress_start(&vprog, progress ? stderr : NULL, "validate");
	rc = vcase_predict_rows(jobs, n, NULL, 0, workers, progress ? vprogress : NULL, pred,
	    err);
	progress_end(&vprog);
	for (k = 0; rc == 0 && k < n; k++)
		vreport_add(out, jobs[k].c, jobs[k].r, &pred[k]);
	free(jobs);
	free(pred);
	return rc;
}

void
vreport_free(struct vreport *v)
{
	int i;

	for (i = 0; i < v->n; i++) {
		free(v->r[i].case_name);
		free(v->r[i].row);
		free(v->r[i].metric);
		free(v->r[i].unit);
		free(v->r[i].tolerance);
	}
	free(v->r);
	memset(v, 0, sizeof *v);
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Prediction rows within tolerance, capped, and their median |rel_error|, for
 * one case or all. */
static void
summarise(const struct vreport *v, const char *case_name, int *within, int *npred,
    int *capped, double *median)
{
	double *e = xmalloc((size_t)(v->n + 1) * sizeof *e);
	int i, k = 0;

	*within = 0;
	*capped = 0;
	for (i = 0; i < v->n; i++) {
		const struct vresult *r = &v->r[i];

		if (r->role != ROLE_PREDICTION ||
		    (case_name != NULL && strcmp(r->case_name, case_name) != 0))
			continue;
		e[k++] = fabs(r->rel_error);
		*within += r->within;
		*capped += r->capped;
	}
	*npred = k;
	qsort(e, (size_t)k, sizeof *e, cmp_double);
	*median = k == 0 ? NAN : k % 2 ? e[k / 2] : (e[k / 2 - 1] + e[k / 2]) / 2;
	free(e);
}

/* One line per case (with its tolerance and capped rows), then the total. */
static void
summary_lines(FILE *f, const struct vreport *v, const char *prefix)
{
	int i, w, n, cap;
	double med;

	for (i = 0; i < v->n; i++) {
		if (i > 0 && strcmp(v->r[i].case_name, v->r[i - 1].case_name) == 0)
			continue;
		summarise(v, v->r[i].case_name, &w, &n, &cap, &med);
		fprintf(f, "%scase %s: %d/%d prediction rows within tolerance, "
		    "median |rel_error| %.1f%%; tolerance %s", prefix, v->r[i].case_name, w, n,
		    100 * med, v->r[i].tolerance);
		if (cap > 0)
			fprintf(f, "; %d capped", cap);
		fputc('\n', f);
	}
	summarise(v, NULL, &w, &n, &cap, &med);
	fprintf(f, "%soverall: %d/%d prediction rows within tolerance, median |rel_error| "
	    "%.1f%%", prefix, w, n, 100 * med);
	if (cap > 0)
		fprintf(f, "; %d capped (the run hit its duration cap: the prediction is a "
		    "lower bound)", cap);
	fputc('\n', f);
}

/* The numeric columns of a result row, in the order of the CSV header. */
enum { NNUM = 5 };
static const char *const num_names[NNUM] = { "measured", "measured_sd", "predicted",
    "predicted_ci95", "rel_error" };

static void
numbers(const struct vresult *r, double out[NNUM])
{
	out[0] = r->measured;
	out[1] = r->measured_sd;
	out[2] = r->predicted;
	out[3] = r->predicted_ci95;
	out[4] = r->rel_error;
}

char *
vreport_render(const struct vreport *v, int fmt)
{
	char *buf = NULL, *s;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int i, w, n, cap;
	double med;

	if (f == NULL)
		vs_fatal("open_memstream failed");
	if (fmt == FMT_CSV) {
		fputs("case,row,role,metric,unit,measured,measured_sd,predicted,predicted_ci95,"
		    "rel_error,within_tolerance,tolerance,judged_by,capped,reps\n", f);
		for (i = 0; i < v->n; i++) {
			const struct vresult *r = &v->r[i];

			double num[NNUM];
			int k;

			fprintf(f, "%s,%s,%s,%s,%s", r->case_name, r->row, vrole_name(r->role),
			    r->metric, r->unit);
			numbers(r, num);
			for (k = 0; k < NNUM; k++) {
				fputc(',', f);
				report_num(f, num[k], 0);
			}
			fprintf(f, ",%s,%s,%s,%s,%d\n", r->within ? "yes" : "no", r->tolerance,
			    vrule_name(r->rule), r->capped ? "yes" : "no", r->n);
		}
		summary_lines(f, v, "# ");
	} else if (fmt == FMT_JSON) {
		fputs("{\n  \"rows\": [", f);
		for (i = 0; i < v->n; i++) {
			const struct vresult *r = &v->r[i];

			const char *sk[] = { "case", "row", "role", "metric", "unit" };
			const char *sv[] = { r->case_name, r->row, vrole_name(r->role), r->metric,
			    r->unit };
			double num[NNUM];
			int k;
			char *q;

			fputs(i ? ",\n    {" : "\n    {", f);
			for (k = 0; k < 5; k++) {
				q = report_json_str(sv[k]);
				fprintf(f, "%s\"%s\": %s", k ? ", " : "", sk[k], q);
				free(q);
			}
			numbers(r, num);
			for (k = 0; k < NNUM; k++) {
				fprintf(f, ", \"%s\": ", num_names[k]);
				report_num(f, num[k], 1);
			}
			q = report_json_str(r->tolerance);
			fprintf(f, ", \"within_tolerance\": %s, \"tolerance\": %s, "
			    "\"judged_by\": \"%s\", \"capped\": %s, \"reps\": %d}",
			    r->within ? "true" : "false", q, vrule_name(r->rule),
			    r->capped ? "true" : "false", r->n);
			free(q);
		}
		summarise(v, NULL, &w, &n, &cap, &med);
		fprintf(f, "\n  ],\n  \"prediction_rows\": %d,\n  \"within_tolerance\": %d,\n"
		    "  \"capped\": %d,\n  \"median_abs_rel_error\": ", n, w, cap);
		report_num(f, med, 1);
		fputs("\n}\n", f);
	} else {
		int wc = 4, wr = 3;

		/* Columns as wide as the longest case and row names. */
		for (i = 0; i < v->n; i++) {
			if ((int)strlen(v->r[i].case_name) > wc)
				wc = (int)strlen(v->r[i].case_name);
			if ((int)strlen(v->r[i].row) > wr)
				wr = (int)strlen(v->r[i].row);
		}
		fprintf(f, "%-*s  %-*s  %-11s %13s %11s %13s %11s %9s  %-15s %s\n", wc, "case",
		    wr, "row", "role", "measured", "sd", "predicted", "ci95", "rel_err",
		    "tolerance", "ok (by)");
		for (i = 0; i < v->n; i++) {
			const struct vresult *r = &v->r[i];
			char ok[48];

			if (r->role == ROLE_CALIBRATION)
				snprintf(ok, sizeof ok, "(fit)");
			else
				snprintf(ok, sizeof ok, "%s (%s)", r->within ? "yes" : "NO",
				    vrule_name(r->rule));
			fprintf(f, "%-*s  %-*s  %-11s %13.6g %11.4g %13.6g %11.4g %8.1f%%  %-15s %s%s\n",
			    wc, r->case_name, wr, r->row, vrole_name(r->role), r->measured,
			    r->measured_sd, r->predicted, r->predicted_ci95, 100 * r->rel_error,
			    r->tolerance, ok, r->capped ? "  CAPPED" : "");
		}
		summary_lines(f, v, "");
	}
	if (fclose(f) != 0)
		vs_fatal("validate: cannot render");
	s = buf;
	return s;
}

static int
write_text(const char *path, const char *text, struct vs_err *err)
{
	return vs_write_file_atomic(path, text, strlen(text), err);
}

/* Half-width of the tolerance band around a measured value, in its unit. */
static double
band_of(const struct vresult *r)
{
	double b = r->tol_abs > 0 ? r->tol_abs : r->tol_rel * fabs(r->measured);

	return b;
}

/* Does row r's tolerance include or_sd (its band widens to the sd)? */
static int
or_sd(const struct vresult *r)
{
	return strstr(r->tolerance, "or sd") != NULL;
}

static char *
quote_free(char *s)
{
	char *q = plot_quote(s);

	free(s);
	return q;
}

/* A path without its "DIR/../" and "./" steps; from its last "validation/"
 * on when it has one (the data directory's tables: validation/measured/...). */
static char *
shown_path(const char *path)
{
	char *s = xstrdup(path), *p, *q;

	while ((p = strstr(s, "/./")) != NULL)
		memmove(p, p + 2, strlen(p + 2) + 1);
	while ((p = strstr(s, "/../")) != NULL && p > s) {
		for (q = p - 1; q > s && q[-1] != '/'; q--)
			;
		if (strncmp(q, "../", 3) == 0)
			break;
		memmove(q, p + 4, strlen(p + 4) + 1);
	}
	for (p = q = s; (p = strstr(p, "validation/")) != NULL; p++)
		if (p == s || p[-1] == '/')
			q = p;
	memmove(s, q, strlen(q) + 1);
	return s;
}

/*
 * The case plot's footer as a gnuplot string expression: the measured table
 * (a file of the tree) and its source line, then the tolerance, in lines of at
 * most 150 characters ('...'."\n".'...'); *nlines says how many.
 */
static char *
case_footer(const struct vcase *c, int *nlines)
{
	char *path = shown_path(c->measured.path), *tol = vcase_tolerance(c);
	char *text = c->measured.source ? xasprintf("measured: %s - %s | tolerance: %s", path,
	    c->measured.source, tol) : xasprintf("measured: %s | tolerance: %s", path, tol);
	char *out = xstrdup(""), *s, *line;
	const char *p = text;

	*nlines = 0;
	while (*p != '\0') {
		size_t n = strlen(p), cut = n;

		if (n > 150) {
			for (cut = 150; cut > 60 && p[cut] != ' '; cut--)
				;
			if (p[cut] != ' ')
				cut = 150;
		}
		s = xasprintf("%.*s", (int)cut, p);
		line = quote_free(s);
		s = xasprintf("%s%s%s", out, *nlines ? ".\"\\n\"." : "", line);
		free(out);
		free(line);
		out = s;
		++*nlines;
		for (p += cut; *p == ' '; p++)
			;
	}
	free(text);
	free(tol);
	free(path);
	return out;
}

/*
 * One case: a panel per unit (seed003 mixes Gcycles and %); a log axis
 * when a panel's values span more than 10x and the tolerance is relative (an
 * absolute one, x1's 5 percentage points, is a band of one height everywhere
 * on a linear axis; on a log one it was a sliver at 90% and a slab at 0.03%);
 * measured with its tolerance band,
 * predicted with its 95% CI only when n >= 3 (a t-based CI from 2 runs is
 * 12.7 sd wide: it says nothing), capped runs marked.
 */
static int
plot_case(const struct vreport *v, const struct vcase *c, const char *dir,
    struct vs_err *err)
{
	char *buf = NULL, *dat = xasprintf("%s/%s.dat", dir, c->name), *vars, *arr, *s;
	const char **units = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);
	int i, j, p, np = 0, rc, n = 0;

	/* Panels by unit: rows of one unit share an axis. */
	for (i = 0; i < v->n; i++) {
		if (strcmp(v->r[i].case_name, c->name) != 0)
			continue;
		n = v->r[i].n;
		for (p = 0; p < np && strcmp(units[p], v->r[i].unit) != 0; p++)
			;
		if (p == np) {
			units = xrealloc(units, (size_t)(np + 1) * sizeof *units);
			units[np++] = v->r[i].unit;
		}
	}
	arr = xasprintf("array ylab[%d]; array logy[%d]; array zf[%d]", np > 0 ? np : 1,
	    np > 0 ? np : 1, np > 0 ? np : 1);
	for (p = 0; p < np; p++) {
		double lo = INFINITY, hi = 0;
		const char *m1 = NULL;
		int several = 0, zero = 0, logy;

		fprintf(f, "# panel %d: %s\n", p + 1, units[p]);
		for (i = 0, j = 0; i < v->n; i++) {
			const struct vresult *r = &v->r[i];
			double b;

			if (strcmp(r->case_name, c->name) != 0 || strcmp(r->unit, units[p]) != 0)
				continue;
			if (m1 == NULL)
				m1 = r->metric;
			several |= strcmp(m1, r->metric) != 0;
			b = band_of(r);
			if (or_sd(r) && r->measured_sd > b)
				b = r->measured_sd;
			/* index "row" role measured sd predicted ci95 band within capped */
			fprintf(f, "%d \"%s\" %d %.10g %.10g %.10g %.10g %.10g %d %d\n", j++, r->row,
			    r->role == ROLE_PREDICTION, r->measured, r->measured_sd, r->predicted,
			    r->n >= 3 ? r->predicted_ci95 : 0, b, r->within, r->capped);
			if (r->measured > 0 && r->measured < lo)
				lo = r->measured;
			if (r->predicted > 0 && r->predicted < lo)
				lo = r->predicted;
			if (r->measured > hi)
				hi = r->measured;
			if (r->predicted > hi)
				hi = r->predicted;
			zero |= r->measured <= 0 || r->predicted <= 0;
		}
		/* A log axis has no 0: a value of 0 is drawn at zf, a third of the
		 * smallest value, below the others, and labelled there. */
		logy = c->tol_abs <= 0 && lo > 0 && isfinite(lo) && hi / lo > 10;
		if (logy && zero)
			fprintf(f, "# axis: log; a value of 0 drawn at %.6g\n", lo / 3);
		else
			fprintf(f, "# axis: %s\n", logy ? "log" : "linear");
		fputs("\n\n", f);
		s = xasprintf("%s; ylab[%d] = '%s (%s)'; logy[%d] = %d; zf[%d] = %.6g", arr, p + 1,
		    several ? "each row: its metric" : m1, units[p], p + 1, logy, p + 1,
		    logy && zero ? lo / 3 : 0);
		free(arr);
		arr = s;
	}
	fclose(f);
	rc = vs_write_file_atomic(dat, buf, strlen(buf), err);
	free(buf);
	if (rc == 0) {
		char *q1 = plot_quote(dat), *q2 = quote_free(xasprintf("%s/%s", dir, c->name));
		char *q3 = quote_free(xasprintf("%s: %s", c->name, c->title));
		int nsrc;
		char *q4 = case_footer(c, &nsrc);
		char *q5 = quote_free(n >= 3 ? xasprintf("predicted (± 95%% CI, n = %d)", n) :
		    xasprintf("predicted (n = %d: no CI drawn)", n));

		vars = xasprintf("%s; datafile=%s; out=%s; ttl=%s; src=%s; srclines=%d; "
		    "predkey=%s; np=%d", arr, q1, q2, q3, q4, nsrc, q5, np);
		rc = plot_run("case.gp", vars, err);
		free(q1), free(q2), free(q3), free(q4), free(q5), free(vars);
	}
	free(arr);
	free(units);
	free(dat);
	return rc;
}

/*
 * Every case's prediction rows, each against its own rule: the rows with a
 * relative tolerance as relative error (%) in one panel, those with an
 * absolute tolerance as predicted - measured in their unit, a panel per unit
 * (x1's `abs 5` in percentage points, not as a relative band); each row with
 * its band around 0, cases side by side (a gap between them), coloured by case.
 * A prediction of 0 is marked.  Panel p of summary.dat is gnuplot index p - 1.
 */
struct spanel {
	const char *unit;	/* NULL: the relative panel */
	char *tics, *cases;	/* xtics list; indices of the cases with rows here */
	int nx;
	double lo, hi;		/* the axis */
};

static int
panel_of(const struct vresult *r, struct spanel **ps, int *np)
{
	const char *unit = r->tol_abs > 0 ? r->unit : NULL;
	int p;

	for (p = 0; p < *np; p++)
		if ((*ps)[p].unit == unit || ((*ps)[p].unit && unit && strcmp((*ps)[p].unit, unit) == 0))
			return p;
	*ps = xrealloc(*ps, (size_t)(*np + 1) * sizeof **ps);
	(*ps)[*np].unit = unit;
	(*ps)[*np].tics = xstrdup("");
	(*ps)[*np].cases = xstrdup(" ");
	(*ps)[*np].nx = 0;
	(*ps)[*np].lo = unit ? 0 : -20;
	(*ps)[*np].hi = unit ? 0 : 20;
	return (*np)++;
}

static void
strcat_free(char **dst, char *add)
{
	char *s = xasprintf("%s%s", *dst, add);

	free(*dst);
	free(add);
	*dst = s;
}

static int
plot_summary(const struct vreport *v, const char *dir, struct vs_err *err)
{
	char *buf = NULL, *dat = xasprintf("%s/summary.dat", dir), *names = xstrdup("");
	char *vars;
	size_t len;
	FILE *f = open_memstream(&buf, &len);
	struct spanel *ps = NULL;
	int i, ci, p, np = 0, ncases = 0, rc;
	const char *cur, *gcur;

	/* Panels: the relative one first when a row has a relative tolerance, then
	 * one per unit of the absolute rows; cases numbered in report order. */
	for (i = 0; i < v->n; i++)
		if (v->r[i].role == ROLE_PREDICTION && v->r[i].tol_abs <= 0) {
			panel_of(&v->r[i], &ps, &np);
			break;
		}
	for (i = 0, cur = NULL; i < v->n; i++) {
		const struct vresult *r = &v->r[i];

		if (r->role != ROLE_PREDICTION)
			continue;
		if (cur == NULL || strcmp(r->case_name, cur) != 0) {
			cur = r->case_name;
			strcat_free(&names, xasprintf("%s'%s'", ncases ? ", " : "", cur));
			ncases++;
		}
		panel_of(r, &ps, &np);
	}
	fputs("# one block per panel; columns: x case error band within capped clipped "
	    "\"label\" predicted_zero \"case/row\"\n", f);
	for (p = 0; p < np; p++) {
		struct spanel *P = &ps[p];
		int x = 0, x0 = 0;

		/* The relative axis holds every error and band, from -100% (a prediction
		 * of 0) to 500% at most; errors above are drawn at the top, labelled. */
		for (i = 0; i < v->n && P->unit == NULL; i++) {
			const struct vresult *r = &v->r[i];
			double b = fabs(r->measured) > 0 ? 100 * band_of(r) / fabs(r->measured) : 0;

			if (r->role != ROLE_PREDICTION || r->tol_abs > 0)
				continue;
			P->hi = fmin(fmax(P->hi, 1.15 * fmax(100 * r->rel_error, b)), 500);
			P->lo = fmax(fmin(P->lo, 1.15 * fmin(100 * r->rel_error, -b)), -110);
		}
		if (P->unit)
			fprintf(f, "# panel %d: absolute, %s\n", p + 1, P->unit);
		else
			fprintf(f, "# panel %d: relative\n", p + 1);
		for (i = 0, ci = 0, cur = NULL, gcur = NULL; i <= v->n; i++) {
			const struct vresult *r = i < v->n ? &v->r[i] : NULL;
			double e, b;
			int here;

			if (r != NULL && r->role != ROLE_PREDICTION)
				continue;
			if (r != NULL && (gcur == NULL || strcmp(r->case_name, gcur) != 0)) {
				gcur = r->case_name;
				ci++;
			}
			here = r != NULL && panel_of(r, &ps, &np) == p;
			P = &ps[p];
			/* a new case of this panel (or the end): close the previous one's tic */
			if (cur != NULL && (r == NULL || (here && strcmp(r->case_name, cur) != 0))) {
				strcat_free(&P->tics, xasprintf("%s\"%s\" %g", *P->tics ? ", " : "",
				    cur, (x0 + x - 1) / 2.0));
				x++;
				cur = NULL;
			}
			if (!here)
				continue;
			if (cur == NULL) {
				cur = r->case_name;
				x0 = x;
				strcat_free(&P->cases, xasprintf("%d ", ci));
			}
			if (P->unit == NULL) {
				e = 100 * r->rel_error;
				b = fabs(r->measured) > 0 ? 100 * band_of(r) / fabs(r->measured) : 0;
				if (or_sd(r) && fabs(r->measured) > 0)
					b = fmax(b, 100 * r->measured_sd / fabs(r->measured));
				fprintf(f, "%d %d %.6g %.6g %d %d %d \"%.0f%%\" %d \"%s/%s\"\n", x++, ci,
				    fmin(e, P->hi), fmin(b, P->hi), r->within, r->capped, e > P->hi, e,
				    r->predicted == 0, r->case_name, r->row);
			} else {
				e = r->predicted - r->measured;
				b = band_of(r);
				if (or_sd(r))
					b = fmax(b, r->measured_sd);
				P->hi = fmax(P->hi, 1.15 * fmax(fabs(e), b));	/* symmetric */
				P->lo = -P->hi;
				fprintf(f, "%d %d %.6g %.6g %d %d 0 \"%+.3g\" %d \"%s/%s\"\n", x++, ci, e,
				    b, r->within, r->capped, e, r->predicted == 0, r->case_name, r->row);
			}
		}
		P->nx = x;
		fprintf(f, "# axis: %g %g\n\n\n", P->lo, P->hi);
	}
	fclose(f);
	rc = np == 0 ? 0 : vs_write_file_atomic(dat, buf, strlen(buf), err);
	free(buf);
	if (rc == 0 && np > 0) {
		char *q1 = plot_quote(dat), *q2 = quote_free(xasprintf("%s/summary", dir));
		int anycap = 0;

		for (i = 0; i < v->n; i++)
			anycap |= v->r[i].role == ROLE_PREDICTION && v->r[i].capped;
		vars = xasprintf("datafile=%s; out=%s; anycap=%d; array cases[%d] = [%s]; "
		    "ncases=%d; np=%d; array ylab[%d]; array xtl[%d]; array pcases[%d]; array nx[%d]; array ylo[%d]; "
		    "array yhi[%d]; array absp[%d]", q1, q2, anycap, ncases, names, ncases, np, np, np,
		    np, np, np, np, np);
		for (p = 0; p < np; p++) {
			char *yl = quote_free(ps[p].unit == NULL ? xstrdup("relative error of the "
			    "prediction (%; -100: predicted 0)") : strcmp(ps[p].unit, "%") == 0 ? xstrdup("predicted - "
			    "measured (percentage points)") : xasprintf("predicted - measured (%s)",
			    ps[p].unit));
			char *xt = plot_quote(ps[p].tics), *pc = plot_quote(ps[p].cases);

			strcat_free(&vars, xasprintf("; ylab[%d]=%s; xtl[%d]=%s; pcases[%d]=%s; "
			    "nx[%d]=%d; ylo[%d]=%g; yhi[%d]=%g; absp[%d]=%d", p + 1, yl, p + 1, xt,
			    p + 1, pc, p + 1, ps[p].nx, p + 1, ps[p].lo, p + 1, ps[p].hi, p + 1,
			    ps[p].unit != NULL));
			free(yl), free(xt), free(pc);
		}
		rc = plot_run("summary.gp", vars, err);
		free(q1), free(q2), free(vars);
	}
	for (p = 0; p < np; p++)
		free(ps[p].tics), free(ps[p].cases);
	free(ps);
	free(names);
	free(dat);
	return rc;
}

/*
 * Every row, predicted against measured, on log axes of one range (so y = x
 * is the diagonal): a value of 0 is drawn at zf, a third of the smallest
 * value, on a dotted line labelled once per axis that has one.
 */
static int
plot_scatter(const struct vreport *v, const char *dir, struct vs_err *err)
{
	char *dat = xasprintf("%s/scatter.dat", dir), *out = xasprintf("%s/scatter", dir);
	char *buf = NULL, *vars, *q1, *q2;
	size_t len;
	FILE *f = open_memstream(&buf, &len);
	double lo = INFINITY, hi = 0, zf;
	int i, rc, mz = 0, pz = 0;

	for (i = 0; i < v->n; i++) {
		const struct vresult *r = &v->r[i];

		fprintf(f, "%.10g %.10g %d \"%s/%s\"\n", r->measured, r->predicted,
		    r->role == ROLE_PREDICTION, r->case_name, r->row);
		if (r->measured > 0)
			lo = fmin(lo, r->measured), hi = fmax(hi, r->measured);
		if (r->predicted > 0)
			lo = fmin(lo, r->predicted), hi = fmax(hi, r->predicted);
		mz |= r->measured <= 0;
		pz |= r->predicted <= 0;
	}
	if (!isfinite(lo))
		lo = hi = 1;
	zf = mz || pz ? lo / 3 : 0;
	if (zf > 0)
		fprintf(f, "# a value of 0 drawn at %.6g (log axes)\n", zf);
	fprintf(f, "# axes: %.6g %.6g\n", (zf > 0 ? zf : lo) / 1.6, hi * 1.6);
	fclose(f);
	rc = write_text(dat, buf, err);
	free(buf);
	if (rc == 0) {
		q1 = plot_quote(dat);
		q2 = plot_quote(out);
		vars = xasprintf("datafile=%s; out=%s; zf=%.6g; mz=%d; pz=%d; lo=%.6g; hi=%.6g",
		    q1, q2, zf, mz, pz, (zf > 0 ? zf : lo) / 1.6, hi * 1.6);
		rc = plot_run("scatter.gp", vars, err);
		if (rc == 0)
			rc = plot_check_outputs(out, err);
		free(q1), free(q2), free(vars);
	}
	free(dat);
	free(out);
	return rc;
}

int
vreport_plot(const struct vreport *v, struct vcase *const *cases, int ncases,
    const char *dir, struct vs_err *err)
{
	int k, rc = 0, skipped = 0;

	for (k = 0; k < ncases; k++) {
		rc = plot_case(v, cases[k], dir, err);
		if (rc < 0)
			return -1;
		skipped |= rc;
	}
	rc = plot_summary(v, dir, err);
	if (rc < 0)
		return -1;
	skipped |= rc;
	rc = plot_scatter(v, dir, err);
	if (rc < 0)
		return -1;
	skipped |= rc;
	return skipped;
}
