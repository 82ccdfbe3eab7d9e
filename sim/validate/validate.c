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
	progress_show(&vprog, (double)finished, (double)total, "rows", d);
}

int
validate_cases(struct vcase *const *cases, int ncases, int reps, int workers,
    struct vreport *out, int progress, struct vs_err *err)
{
	struct vpjob *jobs;
	struct vpred *pred;
	size_t n = 0, k;
	int i, j, rc;

	for (i = 0; i < ncases; i++)
		n += (size_t)cases[i]->nrows;
	jobs = xcalloc(n + 1, sizeof *jobs);
	pred = xcalloc(n + 1, sizeof *pred);
	for (i = 0, k = 0; i < ncases; i++)
		for (j = 0; j < cases[i]->nrows; j++, k++) {
			jobs[k].c = cases[i];
			jobs[k].r = &cases[i]->rows[j];
			jobs[k].reps = reps;
		}
	/* The predictions are made first and without the measured tables. */
	progress_start(&vprog, progress ? stderr : NULL, "validate");
	rc = vcase_predict_rows(jobs, n, workers, progress ? vprogress : NULL, pred, err);
	progress_end(&vprog);
	for (k = 0; rc == 0 && k < n; k++) {
		const struct vcase *c = jobs[k].c;
		const struct vrow *row = jobs[k].r;
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
		r->unit = pred[k].unit;
		r->role = row->role;
		r->measured = m->mean;
		r->measured_sd = m->sd;
		r->predicted = pred[k].mean;
		r->predicted_ci95 = pred[k].ci95;
		r->rel_error = (pred[k].mean - m->mean) / m->mean;
		r->rule = vcase_judge(c, m, pred[k].mean);
		r->within = r->rule != RULE_MISS;
		r->capped = pred[k].capped;
		r->n = pred[k].n;
		r->tolerance = vcase_tolerance(c);
		r->tol_rel = c->tol_abs > 0 ? 0 : c->tol_rel;
		r->tol_abs = c->tol_abs;
	}
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

int
vreport_plot(const struct vreport *v, struct vcase *const *cases, int ncases,
    const char *dir, struct vs_err *err)
{
	char *buf, *vars, *q1, *q2, *q3, *q4, *q5;
	size_t len;
	FILE *f;
	int i, j, k, rc = 0, skipped = 0;

	for (k = 0; k < ncases; k++) {
		const struct vcase *c = cases[k];
		char *dat = xasprintf("%s/%s.dat", dir, c->name), *out;
		const char *unit = "";

		buf = NULL;
		f = open_memstream(&buf, &len);
		for (i = 0, j = 0; i < v->n; i++) {
			const struct vresult *r = &v->r[i];

			if (strcmp(r->case_name, c->name) != 0)
				continue;
			unit = r->unit;
			fprintf(f, "%d \"%s\" %d %.10g %.10g %.10g %.10g\n", j++, r->row,
			    r->role == ROLE_PREDICTION, r->measured, r->measured_sd, r->predicted,
			    r->predicted_ci95);
		}
		fclose(f);
		rc = write_text(dat, buf, err);
		free(buf);
		if (rc) {
			free(dat);
			return rc;
		}
		out = xasprintf("%s/%s", dir, c->name);
		{
			char *ttl = xasprintf("%s: %s", c->name, c->title);
			char *ylab = xasprintf("%s (%s)", c->metric, unit);
			char *src = xasprintf("measured: %s", c->measured.source ?
			    c->measured.source : c->measured.path);

			q1 = plot_quote(dat);
			q2 = plot_quote(out);
			q3 = plot_quote(ttl);
			q4 = plot_quote(ylab);
			q5 = plot_quote(src);
			vars = xasprintf("datafile=%s; out=%s; ttl=%s; ylab=%s; src=%s", q1, q2,
			    q3, q4, q5);
			free(ttl);
			free(ylab);
			free(src);
		}
		rc = plot_run("case.gp", vars, err);
		free(q1), free(q2), free(q3), free(q4), free(q5), free(vars), free(out), free(dat);
		if (rc < 0)
			return -1;
		skipped |= rc;
	}
	{
		char *dat = xasprintf("%s/scatter.dat", dir), *out = xasprintf("%s/scatter", dir);

		buf = NULL;
		f = open_memstream(&buf, &len);
		for (i = 0; i < v->n; i++)
			fprintf(f, "%.10g %.10g %d \"%s/%s\"\n", v->r[i].measured, v->r[i].predicted,
			    v->r[i].role == ROLE_PREDICTION, v->r[i].case_name, v->r[i].row);
		fclose(f);
		rc = write_text(dat, buf, err);
		free(buf);
		if (rc == 0) {
			q1 = plot_quote(dat);
			q2 = plot_quote(out);
			vars = xasprintf("datafile=%s; out=%s", q1, q2);
			rc = plot_run("scatter.gp", vars, err);
			free(q1), free(q2), free(vars);
		}
		free(dat);
		free(out);
		if (rc < 0)
			return -1;
		skipped |= rc;
	}
	return skipped;
}
